/*
 * roce_ring.h - a growable ring of fixed-size entries, addressed by sequence
 * number.
 *
 * Entries are appended at sequence number `tail` and retired from `head`;
 * entry s lives in slot s mod cap (cap a power of two), so a sequence number
 * stays a valid name for an entry as long as head <= s < tail, whatever the
 * ring did in between. The caller bounds the ring (how far it may grow, what
 * to do when full). The CE marks waiting for CNPs (roce_ecn.c) and the open
 * verdicts (roce_verdq.c) are such rings.
 */
#ifndef ROCE_RING_H
#define ROCE_RING_H

#include <stddef.h>
#include <stdint.h>

struct roce_ring {
    void *slots;   /* cap entries of the caller's type (owned) */
    uint32_t cap;  /* a power of two */
    uint64_t head; /* sequence number of the oldest entry */
    uint64_t tail; /* sequence number the next entry gets */
};

/* An empty ring of cap (a power of two) zeroed entries of `size` bytes.
 * 0, or -1 when out of memory. */
int roce_ring_init(struct roce_ring *r, uint32_t cap, size_t size);

/* Double the slots, each entry keeping its sequence number. 0, or -1 when
 * out of memory (the ring is then unchanged). */
int roce_ring_grow(struct roce_ring *r, size_t size);

void roce_ring_free(struct roce_ring *r);

/* The slot of sequence number seq (entries are `size` bytes). */
static inline void *roce_ring_at(const struct roce_ring *r, size_t size, uint64_t seq)
{
    return (char *)r->slots + (size_t)(seq & (r->cap - 1)) * size;
}

/* Entries held (tail - head). */
static inline uint64_t roce_ring_count(const struct roce_ring *r)
{
    return r->tail - r->head;
}

#endif
