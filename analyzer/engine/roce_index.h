/*
 * roce_index.h - open-addressing hash index from a 32-bit hash to a value.
 *
 * Linear probing, power-of-two size, at most half full (it doubles when
 * needed), deletion by backward shift so no tombstones accumulate. Values
 * are nonzero 32-bit handles owned by the caller; the caller compares keys.
 */
#ifndef ROCE_INDEX_H
#define ROCE_INDEX_H

#include <stdint.h>

struct roce_index_slot {
    uint32_t hash;
    uint32_t val; /* 0: empty */
};

struct roce_index {
    struct roce_index_slot *slots;
    uint32_t mask;
    uint32_t count;
};

/* Equality callback: nonzero when handle val has the key the caller looks for. */
typedef int (*roce_index_eq_fn)(uint32_t val, const void *key, const void *ctx);

/* Returns 0, or -1 when out of memory. */
int roce_index_init(struct roce_index *ix, uint32_t initial_slots);
void roce_index_free(struct roce_index *ix);
/* The handle stored for a key, or 0. */
uint32_t roce_index_find(const struct roce_index *ix, uint32_t hash, roce_index_eq_fn eq,
                         const void *key, const void *ctx);
/* Add a handle (the caller made sure its key is absent). 0, or -1 when out of memory. */
int roce_index_insert(struct roce_index *ix, uint32_t hash, uint32_t val);
/* Remove a handle stored under hash (no-op when absent). */
void roce_index_remove(struct roce_index *ix, uint32_t hash, uint32_t val);

/* 32-bit hash of a byte string (multiply-xorshift over 8-byte words). */
uint32_t roce_hash_bytes(const void *data, unsigned len);

#endif
