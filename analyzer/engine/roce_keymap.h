/*
 * roce_keymap.h - flows found by key in a caller's array: an index
 * (roce_index.h) over the keys of an array of n items, read through the
 * caller's key_of, so that a lookup costs one probe, not a sort of the
 * whole array and a binary search (the diagnoses and the one ranking of a
 * table of a million flows look up every flow's peer or subject).
 */
#ifndef ROCE_KEYMAP_H
#define ROCE_KEYMAP_H

#include <stddef.h>
#include <stdint.h>

#include "roce_index.h"
#include "roce_verdict.h"

/* The key of item i of array. */
typedef const struct roce_flow_key *(*roce_key_of_fn)(const void *array, size_t i);

struct roce_keymap {
    struct roce_index ix;
    const void *array;
    roce_key_of_fn key_of;
};

/* Index the n items of array by key; of items with equal keys the first
 * is found. 0, or -1 when out of memory (m then finds nothing and is freed
 * as usual). */
int roce_keymap_build(struct roce_keymap *m, const void *array, size_t n, roce_key_of_fn key_of);
/* The item of key k, or SIZE_MAX when none. */
size_t roce_keymap_find(const struct roce_keymap *m, const struct roce_flow_key *k);
void roce_keymap_free(struct roce_keymap *m);

#endif
