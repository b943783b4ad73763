/*
 * rotfile.h - a file of lines appended to and rotated by size, as
 * logrotate would: past its bound PATH becomes PATH.1 (PATH.1 becomes
 * PATH.2 ... up to PATH.<keep>, the oldest is removed) and a new PATH is
 * started. For the live monitor's --events -o PATH.
 */
#ifndef ROCE_ROTFILE_H
#define ROCE_ROTFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct roce_rotfile;

/* Open path for appending (made 0644, less the umask, when missing).
 * max_bytes 0: never rotated; neither is what is not a regular file (a
 * FIFO, a device). keep: the older files kept, 1 or more. NULL with the
 * reason in err. */
struct roce_rotfile *roce_rotfile_open(const char *path, uint64_t max_bytes, unsigned keep,
                                       char *err, size_t errlen);

/* The stream to write whole lines to (valid until the next rotation). */
FILE *roce_rotfile_fp(const struct roce_rotfile *r);

/* Between lines: flush, and rotate when the file has grown past its bound.
 * 0, or -1 with the reason in err. */
int roce_rotfile_flush(struct roce_rotfile *r, char *err, size_t errlen);

/* Flush and close. 0, or -1 on a write error. NULL is ignored. */
int roce_rotfile_close(struct roce_rotfile *r);

#endif
