/*
 * capture_src.h - the bytes of a capture as the readers parse them: a
 * mapped file (every byte in place, the resident part kept bounded), or a
 * stream read from a descriptor into a buffer (standard input, a pipe, the
 * output of a decompressor). The readers (pcap_classic.c, pcap_ng.c) ask for
 * the next n bytes at the read position and step over them; a frame points
 * into the source's bytes and is valid until the next request. Internal to
 * analyzer/capture.
 */
#ifndef ROCE_CAPTURE_SRC_H
#define ROCE_CAPTURE_SRC_H

#include <stddef.h>
#include <stdint.h>

struct roce_src {
    const uint8_t *p; /* the bytes at hand: p[off .. len) are the next ones */
    size_t len, off;
    uint64_t pos; /* offset in the input of p[0] */
    /* a mapped file: p is the mapping, len its size */
    size_t map_ahead, map_behind; /* populated up to, released below */
    size_t map_check;             /* the read position at which the window moves next */
    size_t map_keep;              /* windows behind at which the mapping is released (0: two) */
    int mapped;
    /* a stream */
    int fd;
    uint8_t *buf;
    size_t cap;
    int eof;
    int read_errno; /* a read failed (errno) */
};

/* Map the regular file open on fd (size bytes, > 0). 0, or -1 with errno set. */
int roce_src_map(struct roce_src *s, int fd, size_t size);
/* Keep at least `bytes` behind the read position of a mapped file mapped
 * (whole windows; at least the two windows of the default). */
void roce_src_keep_behind(struct roce_src *s, size_t bytes);
/* Read the descriptor fd as a stream (the source does not close it). */
void roce_src_stream(struct roce_src *s, int fd);
/* Release what the source holds (the mapping, the buffer). */
void roce_src_close(struct roce_src *s);

/* Have at least n bytes at the read position: 1, or 0 when the input ends
 * (or a read fails: read_errno) before; then len - off bytes are left. A
 * stream's earlier bytes move: pointers into them are stale after a call. */
int roce_src_fill(struct roce_src *s, size_t n);
static inline int roce_src_need(struct roce_src *s, size_t n)
{
    return s->len - s->off >= n ? 1 : roce_src_fill(s, n);
}
/* Step over n bytes (at hand). */
void roce_src_window(struct roce_src *s);
static inline void roce_src_skip(struct roce_src *s, size_t n)
{
    s->off += n;
    if (s->off >= s->map_check)
        roce_src_window(s);
}
/* Bytes left at hand (a stream may have more to read). */
static inline size_t roce_src_left(const struct roce_src *s)
{
    return s->len - s->off;
}
/* Copy up to n of the next bytes to out and step over them (reading the
 * stream as needed). Returns how many (0 at the end). */
size_t roce_src_read(struct roce_src *s, void *out, size_t n);

#endif
