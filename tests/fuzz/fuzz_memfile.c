/*
 * fuzz_memfile.c - see fuzz_memfile.h.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_memfile.h"

int fz_memfile(const uint8_t *data, size_t size, char path[FZ_PATH_LEN])
{
    int fd = memfd_create("fuzz_input", MFD_CLOEXEC);
    if (fd < 0)
        abort();
    for (size_t done = 0; done < size;) {
        ssize_t n = write(fd, data + done, size - done);
        if (n <= 0)
            abort();
        done += (size_t)n;
    }
    snprintf(path, FZ_PATH_LEN, "/proc/self/fd/%d", fd);
    return fd;
}

FILE *fz_devnull(void)
{
    static FILE *devnull;
    if (devnull == NULL && (devnull = fopen("/dev/null", "w")) == NULL)
        abort();
    return devnull;
}
