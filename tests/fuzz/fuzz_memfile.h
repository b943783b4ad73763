/*
 * fuzz_memfile.h - fuzz input bytes as a file for the CLI's readers, which
 * take a path: a memory file (memfd_create), named through /proc/self/fd.
 */
#ifndef FUZZ_MEMFILE_H
#define FUZZ_MEMFILE_H

#include <stddef.h>
#include <stdint.h>

#define FZ_PATH_LEN 64

/* Write the size bytes of data to a new memory file and put its path in
 * path (FZ_PATH_LEN bytes). Returns the descriptor (close it when done);
 * aborts when the machine cannot make one (not a finding of the input). */
int fz_memfile(const uint8_t *data, size_t size, char path[FZ_PATH_LEN]);

/* /dev/null opened for writing once, for the writers' output. */
FILE *fz_devnull(void);

#endif
