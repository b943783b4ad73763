/*
 * capture_src.h - the bytes of a capture as the readers parse them, read
 * from a descriptor into a buffer (a regular file, standard input, a pipe,
 * the output of a decompressor). The readers (pcap_classic.c, pcap_ng.c) ask for
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
    int fd;
    uint8_t *buf;
    size_t cap;
    int eof;
    int read_errno; /* a read failed (errno) */
};

/* Read the descriptor fd (the source does not close it). */
void roce_src_stream(struct roce_src *s, int fd);
/* Release what the source holds (its buffer). */
void roce_src_close(struct roce_src *s);

/* Have at least n bytes at the read position: 1, or 0 when the input ends
 * (or a read fails: read_errno) before; then len - off bytes are left. The
 * earlier bytes move: pointers into them are stale after a call. */
int roce_src_fill(struct roce_src *s, size_t n);
static inline int roce_src_need(struct roce_src *s, size_t n)
{
    return s->len - s->off >= n ? 1 : roce_src_fill(s, n);
}
/* Step over n bytes (at hand). */
static inline void roce_src_skip(struct roce_src *s, size_t n)
{
    s->off += n;
}
/* Bytes left at hand (the input may have more to read). */
static inline size_t roce_src_left(const struct roce_src *s)
{
    return s->len - s->off;
}
/* Copy up to n of the next bytes to out and step over them (reading the
 * stream as needed). Returns how many (0 at the end). */
size_t roce_src_read(struct roce_src *s, void *out, size_t n);

#endif
