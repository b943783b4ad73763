/*
 * roce_ring.c - growable ring addressed by sequence number (see roce_ring.h).
 */
#include "roce_ring.h"

#include <stdlib.h>
#include <string.h>

int roce_ring_init(struct roce_ring *r, uint32_t cap, size_t size)
{
    memset(r, 0, sizeof *r);
    r->slots = calloc(cap, size);
    if (r->slots == NULL)
        return -1;
    r->cap = cap;
    return 0;
}

int roce_ring_grow(struct roce_ring *r, size_t size)
{
    struct roce_ring bigger = *r;
    if (r->cap > UINT32_MAX / 2)
        return -1;
    bigger.cap = r->cap * 2;
    bigger.slots = calloc(bigger.cap, size);
    if (bigger.slots == NULL)
        return -1;
    for (uint64_t s = r->head; s < r->tail; s++)
        memcpy(roce_ring_at(&bigger, size, s), roce_ring_at(r, size, s), size);
    free(r->slots);
    *r = bigger;
    return 0;
}

void roce_ring_free(struct roce_ring *r)
{
    free(r->slots);
    r->slots = NULL;
    r->cap = 0;
}
