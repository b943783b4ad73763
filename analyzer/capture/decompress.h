/*
 * decompress.h - compressed captures (gzip; zstd and lz4 when built with
 * their libraries) decompressed as a stream on a thread of their own, into
 * a pipe that the readers read like standard input. The format is told by
 * the first bytes, never by the file name. Internal to analyzer/capture.
 */
#ifndef ROCE_DECOMPRESS_H
#define ROCE_DECOMPRESS_H

#include <stddef.h>
#include <stdint.h>

#include "capture_src.h"

enum roce_zkind { ROCE_Z_NONE = 0, ROCE_Z_GZIP, ROCE_Z_ZSTD, ROCE_Z_LZ4 };

/* The compression of an input whose first len bytes are head (4 at least
 * to tell), or ROCE_Z_NONE. */
enum roce_zkind roce_unzip_kind(const uint8_t *head, size_t len);
/* "gzip", "zstd", "lz4". */
const char *roce_unzip_name(enum roce_zkind kind);

struct roce_unzip;
/* Decompress the input in (taken over: its bytes at hand first, then its
 * descriptor, which is closed at the end) on a new thread. NULL with the
 * reason in err when the format was not built in or a thread or pipe cannot
 * be made (in is then closed too). */
struct roce_unzip *roce_unzip_start(struct roce_src *in, enum roce_zkind kind, char *err,
                                    size_t errlen);
/* The descriptor of the decompressed bytes (the pipe's read end, owned by z). */
int roce_unzip_fd(const struct roce_unzip *z);
/* Stop reading (closes the pipe's read end), wait for the thread and free
 * z. Returns 0, or -1 with the decompression problem in err ("gzip:
 * compressed data cut short") when the input was not a whole compressed
 * stream. */
int roce_unzip_finish(struct roce_unzip *z, char *err, size_t errlen);

#endif
