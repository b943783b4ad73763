/*
 * rotfile.h - a file of lines appended to and rotated by size, as
 * logrotate would: past its bound PATH becomes PATH.1 (PATH.1 becomes
 * PATH.2 ... up to PATH.<keep>, the oldest is removed) and a new PATH is
 * started. For the live monitor's --events -o PATH. Only whole lines stay
 * in the files, whatever a write error left.
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

/* After each whole line: rotate when the file has reached its bound, so
 * that no file holds more than its bound plus one line. 0, or -1 with the
 * reason in err. */
int roce_rotfile_line(struct roce_rotfile *r, char *err, size_t errlen);

/* Between lines: flush, and rotate when the file has reached its bound.
 * A failed write (a full file system) cuts the file back to its last whole
 * line and fails every later call with the same reason. 0, or -1 with the
 * reason in err. */
int roce_rotfile_flush(struct roce_rotfile *r, char *err, size_t errlen);

/* A write to the stream failed with errno e (0: unknown): cut the file back
 * to its last whole line; the reason, with the size kept, in err. */
void roce_rotfile_fail(struct roce_rotfile *r, int e, char *err, size_t errlen);

/* Flush and close (the file cut back to its last whole line when a write
 * failed; a failure found only now is reported on stderr). 0, or -1 on a
 * write error. NULL is ignored. */
int roce_rotfile_close(struct roce_rotfile *r);

#endif
