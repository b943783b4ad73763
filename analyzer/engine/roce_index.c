/*
 * roce_index.c - open-addressing hash index (see roce_index.h).
 */
#include "roce_index.h"

#include <stdlib.h>
#include <string.h>

#define INDEX_MIN_SLOTS 64u

int roce_index_init(struct roce_index *ix, uint32_t initial_slots)
{
    uint32_t n = INDEX_MIN_SLOTS;
    while (n < initial_slots && n < (1u << 31))
        n <<= 1;
    ix->slots = calloc(n, sizeof *ix->slots);
    ix->mask = n - 1;
    ix->count = 0;
    return ix->slots != NULL ? 0 : -1;
}

void roce_index_free(struct roce_index *ix)
{
    free(ix->slots);
    ix->slots = NULL;
    ix->mask = 0;
    ix->count = 0;
}

uint32_t roce_index_find(const struct roce_index *ix, uint32_t hash, roce_index_eq_fn eq,
                         const void *key, const void *ctx)
{
    for (uint32_t i = hash & ix->mask;; i = (i + 1) & ix->mask) {
        const struct roce_index_slot *s = &ix->slots[i];
        if (s->val == 0)
            return 0;
        if (s->hash == hash && eq(s->val, key, ctx))
            return s->val;
    }
}

static void place(struct roce_index_slot *slots, uint32_t mask, uint32_t hash, uint32_t val)
{
    uint32_t i = hash & mask;
    while (slots[i].val != 0)
        i = (i + 1) & mask;
    slots[i].hash = hash;
    slots[i].val = val;
}

static int grow(struct roce_index *ix)
{
    uint32_t n = (ix->mask + 1) * 2;
    struct roce_index_slot *ns;
    if (n == 0)
        return -1;
    ns = calloc(n, sizeof *ns);
    if (ns == NULL)
        return -1;
    for (uint32_t i = 0; i <= ix->mask; i++)
        if (ix->slots[i].val != 0)
            place(ns, n - 1, ix->slots[i].hash, ix->slots[i].val);
    free(ix->slots);
    ix->slots = ns;
    ix->mask = n - 1;
    return 0;
}

int roce_index_insert(struct roce_index *ix, uint32_t hash, uint32_t val)
{
    if ((ix->count + 1) * 2 > ix->mask + 1 && grow(ix) != 0)
        return -1;
    place(ix->slots, ix->mask, hash, val);
    ix->count++;
    return 0;
}

void roce_index_remove(struct roce_index *ix, uint32_t hash, uint32_t val)
{
    uint32_t i = hash & ix->mask;
    while (ix->slots[i].val != val) {
        if (ix->slots[i].val == 0)
            return;
        i = (i + 1) & ix->mask;
    }
    /* backward-shift deletion: pull later members of the probe run into the hole */
    for (uint32_t j = i;;) {
        ix->slots[i].val = 0;
        for (;;) {
            j = (j + 1) & ix->mask;
            if (ix->slots[j].val == 0) {
                ix->count--;
                return;
            }
            uint32_t home = ix->slots[j].hash & ix->mask;
            /* keep j where it is if its home lies cyclically in (i, j] */
            if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
                continue;
            break;
        }
        ix->slots[i] = ix->slots[j];
        i = j;
    }
}

uint32_t roce_hash_bytes(const void *data, unsigned len)
{
    const uint8_t *p = data;
    uint64_t h = ROCE_HASH_SEED ^ len;
    while (len >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = roce_hash_mix(h, w);
        p += 8;
        len -= 8;
    }
    uint64_t tail = 0;
    memcpy(&tail, p, len);
    h = (h ^ tail) * ROCE_HASH_MUL2;
    h ^= h >> 29;
    h *= ROCE_HASH_MUL1;
    h ^= h >> 32;
    return (uint32_t)h;
}
