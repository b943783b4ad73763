/*
 * roce_keymap.c - flows found by key in a caller's array (roce_keymap.h).
 */
#include "roce_keymap.h"

#include <string.h>

#include "roce_flow.h"

static int same_key(uint32_t val, const void *key, const void *ctx)
{
    const struct roce_keymap *m = ctx;
    return memcmp(m->key_of(m->array, val - 1), key, sizeof(struct roce_flow_key)) == 0;
}

int roce_keymap_build(struct roce_keymap *m, const void *array, size_t n, roce_key_of_fn key_of)
{
    m->array = array;
    m->key_of = key_of;
    const uint32_t slots = n < (1u << 30) ? (uint32_t)(n * 2) : 1u << 31; /* half full */
    if (n >= UINT32_MAX || roce_index_init(&m->ix, slots) != 0) {
        memset(&m->ix, 0, sizeof m->ix);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        const struct roce_flow_key *k = key_of(array, i);
        uint32_t h = roce_flow_key_hash(k);
        if (roce_index_find(&m->ix, h, same_key, k, m) != 0)
            continue; /* the first of a key stays */
        if (roce_index_insert(&m->ix, h, (uint32_t)(i + 1)) != 0) {
            roce_keymap_free(m);
            return -1;
        }
    }
    return 0;
}

size_t roce_keymap_find(const struct roce_keymap *m, const struct roce_flow_key *k)
{
    if (m->ix.slots == NULL)
        return SIZE_MAX;
    uint32_t at = roce_index_find(&m->ix, roce_flow_key_hash(k), same_key, k, m);
    return at != 0 ? (size_t)at - 1 : SIZE_MAX;
}

void roce_keymap_free(struct roce_keymap *m)
{
    roce_index_free(&m->ix);
}
