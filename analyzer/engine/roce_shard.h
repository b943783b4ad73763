/*
 * roce_shard.h - the key of a frame's address pair and its class
 * (roce_shard.c): which part of a split analysis (roce_split.h) takes a
 * frame, and which ring of recent requests keeps a flow's (roce_reqlog.h).
 * The engine and the split both use it; it uses neither.
 */
#ifndef ROCE_SHARD_H
#define ROCE_SHARD_H

#include <stdint.h>

#include "roce_addr.h"
#include "roce_config.h"
#include "roce_frame.h"

/* The key of a frame's address pair for a split (0: no RoCE packet), and
 * the key of an address pair (either order; never 0), as roce_shard_key
 * gives it for a packet between them (roce_shard.c). */
uint32_t roce_shard_key(const struct roce_config *cfg, const struct roce_frame_in *in);
uint32_t roce_pair_key(const uint8_t a[ROCE_ADDR_LEN], const uint8_t b[ROCE_ADDR_LEN]);

#define ROCE_SHARD_CLASS_BITS 4
#define ROCE_SHARD_CLASSES    (1u << ROCE_SHARD_CLASS_BITS)
/* The class of a key (its top bits: the best mixed), and the part of an
 * n-part split that takes a class. */
static inline unsigned roce_shard_class(uint32_t key)
{
    return key >> (32 - ROCE_SHARD_CLASS_BITS);
}
static inline unsigned roce_shard_part(unsigned cls, unsigned n)
{
    return cls % n;
}

#endif
