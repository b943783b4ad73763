/*
 * rotfile.c - a rotated file of lines (see rotfile.h).
 */
#define _DEFAULT_SOURCE
#include "rotfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FILE_MODE  0644
#define NAME_EXTRA 16 /* ".<number>" */

struct roce_rotfile {
    char *path;
    FILE *fp;
    uint64_t max_bytes; /* 0: never rotated */
    unsigned keep;
};

/* Open r->path for appending; 0, or -1 with errno set. Sets r->max_bytes
 * to 0 when it is not a regular file. */
static int open_append(struct roce_rotfile *r)
{
    struct stat st;
    int fd = open(r->path, O_WRONLY | O_APPEND | O_CREAT | O_NOCTTY | O_CLOEXEC, FILE_MODE);
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) == 0 && !S_ISREG(st.st_mode))
        r->max_bytes = 0;
    if ((r->fp = fdopen(fd, "a")) == NULL) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return 0;
}

struct roce_rotfile *roce_rotfile_open(const char *path, uint64_t max_bytes, unsigned keep,
                                       char *err, size_t errlen)
{
    struct roce_rotfile *r = calloc(1, sizeof *r);
    if (r == NULL || (r->path = strdup(path)) == NULL) {
        free(r);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    r->max_bytes = max_bytes;
    r->keep = keep ? keep : 1;
    if (open_append(r) != 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        free(r->path);
        free(r);
        return NULL;
    }
    return r;
}

FILE *roce_rotfile_fp(const struct roce_rotfile *r)
{
    return r->fp;
}

/* PATH.1 -> PATH.2 ... PATH.<keep-1> -> PATH.<keep>, PATH -> PATH.1, a new
 * PATH. 0, or -1 with errno set. */
static int rotate(struct roce_rotfile *r)
{
    size_t n = strlen(r->path) + NAME_EXTRA;
    char *from = malloc(n), *to = malloc(n);
    int rc = -1;
    if (from == NULL || to == NULL) {
        errno = ENOMEM;
        goto out;
    }
    if (fclose(r->fp) != 0) {
        r->fp = NULL;
        goto out;
    }
    r->fp = NULL;
    for (unsigned i = r->keep; i > 1; i--) {
        snprintf(from, n, "%s.%u", r->path, i - 1);
        snprintf(to, n, "%s.%u", r->path, i);
        if (rename(from, to) != 0 && errno != ENOENT)
            goto out;
    }
    snprintf(to, n, "%s.1", r->path);
    if (rename(r->path, to) != 0)
        goto out;
    rc = open_append(r);
out:
    free(from);
    free(to);
    return rc;
}

int roce_rotfile_flush(struct roce_rotfile *r, char *err, size_t errlen)
{
    if (r->fp == NULL || fflush(r->fp) != 0) {
        snprintf(err, errlen, "%s", r->fp == NULL ? "not open" : strerror(errno));
        return -1;
    }
    if (r->max_bytes == 0)
        return 0;
    struct stat st;
    if (fstat(fileno(r->fp), &st) == 0 && (uint64_t)st.st_size >= r->max_bytes && rotate(r) != 0) {
        snprintf(err, errlen, "cannot rotate: %s", strerror(errno));
        return -1;
    }
    return 0;
}

int roce_rotfile_close(struct roce_rotfile *r)
{
    if (r == NULL)
        return 0;
    int rc = r->fp != NULL && fclose(r->fp) != 0 ? -1 : 0;
    free(r->path);
    free(r);
    return rc;
}
