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

/* The engine's hashing (splitmix64 constants): a state starts at
 * ROCE_HASH_SEED and takes 64-bit words through roce_hash_mix(). */
#define ROCE_HASH_SEED 0x9E3779B97F4A7C15ull
#define ROCE_HASH_MUL1 0xBF58476D1CE4E5B9ull
#define ROCE_HASH_MUL2 0x94D049BB133111EBull

static inline uint64_t roce_hash_mix(uint64_t h, uint64_t w)
{
    h = (h ^ w) * ROCE_HASH_MUL1;
    return h ^ (h >> 31);
}

/* 32-bit hash of a byte string (roce_hash_mix over 8-byte words). */
uint32_t roce_hash_bytes(const void *data, unsigned len);

#endif
