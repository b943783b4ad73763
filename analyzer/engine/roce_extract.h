/*
 * roce_extract.h - bounds-checked big-endian field readers.
 *
 * Every read of packet bytes in the engine goes through these helpers. A read
 * is allowed when the field lies entirely inside the captured bytes:
 * `n <= len - off` with `off <= len` checked first, so the arithmetic never
 * wraps and a pointer past the buffer is never formed.
 */
#ifndef ROCE_EXTRACT_H
#define ROCE_EXTRACT_H

#include <stddef.h>
#include <stdint.h>

/* Nonzero when n bytes at offset off fit in a buffer of len bytes. */
static inline int roce_fits(size_t len, size_t off, size_t n)
{
    return off <= len && n <= len - off;
}

/* Readers: the caller has checked roce_fits(len, off, width). */
static inline uint8_t roce_get_u8(const uint8_t *p, size_t off)
{
    return p[off];
}

static inline uint16_t roce_get_be16(const uint8_t *p, size_t off)
{
    return (uint16_t)((uint16_t)p[off] << 8 | p[off + 1]);
}

static inline uint32_t roce_get_be24(const uint8_t *p, size_t off)
{
    return (uint32_t)p[off] << 16 | (uint32_t)p[off + 1] << 8 | p[off + 2];
}

static inline uint32_t roce_get_be32(const uint8_t *p, size_t off)
{
    return (uint32_t)p[off] << 24 | (uint32_t)p[off + 1] << 16 | (uint32_t)p[off + 2] << 8 |
           p[off + 3];
}

static inline uint64_t roce_get_be64(const uint8_t *p, size_t off)
{
    return (uint64_t)roce_get_be32(p, off) << 32 | roce_get_be32(p, off + 4);
}

static inline uint32_t roce_get_le32(const uint8_t *p, size_t off)
{
    return (uint32_t)p[off + 3] << 24 | (uint32_t)p[off + 2] << 16 | (uint32_t)p[off + 1] << 8 |
           p[off];
}

#endif
