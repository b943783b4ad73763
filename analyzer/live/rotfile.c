/*
 * rotfile.c - a rotated file of lines (see rotfile.h). The size is read
 * after every line (ftello: what the stream holds counts), so a file is
 * rotated as soon as a line takes it to its bound, not when the stream
 * happens to be flushed. A write that fails (a full file system) may leave
 * part of a line behind: the file is cut back to its last newline.
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
    int regular;   /* a regular file: cut back to its last line after a failed write */
    int failed;    /* a write failed: nothing more is written */
    char why[160]; /* and why */
};

#define CUT_CHUNK 4096

/* Cut the file of fd back to just after its last newline (to nothing when
 * it has none); returns the size kept, or -1. */
static off_t cut_fd(int fd)
{
    struct stat st;
    char buf[CUT_CHUNK];
    if (fstat(fd, &st) != 0)
        return -1;
    off_t end = st.st_size;
    while (end > 0) {
        off_t from = end > CUT_CHUNK ? end - CUT_CHUNK : 0;
        ssize_t n = pread(fd, buf, (size_t)(end - from), from);
        if (n <= 0)
            return -1;
        while (n > 0 && buf[n - 1] != '\n')
            n--;
        if (n > 0) {
            end = from + n;
            break;
        }
        end = from;
    }
    return end == st.st_size || ftruncate(fd, end) == 0 ? end : -1;
}

/* The same for the regular file at r->path (opened apart to be read: the
 * stream is append-only, and a FIFO is never opened for reading). */
static off_t cut_to_line(const struct roce_rotfile *r)
{
    if (!r->regular)
        return -1;
    int fd = open(r->path, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    off_t kept = cut_fd(fd);
    close(fd);
    return kept;
}

/* A write failed (errno e): note why, keep the whole lines. */
static void fail(struct roce_rotfile *r, int e)
{
    off_t kept = cut_to_line(r);
    r->failed = 1;
    if (kept >= 0)
        snprintf(r->why, sizeof r->why, "%s: the file ends at its last whole line (%lld bytes)",
                 strerror(e), (long long)kept);
    else
        snprintf(r->why, sizeof r->why, "%s", strerror(e));
}

/* Open r->path for appending; 0, or -1 with errno set. Sets r->max_bytes
 * to 0 when it is not a regular file. */
static int open_append(struct roce_rotfile *r)
{
    struct stat st;
    int fd = open(r->path, O_WRONLY | O_APPEND | O_CREAT | O_NOCTTY | O_CLOEXEC, FILE_MODE);
    if (fd < 0)
        return -1;
    r->regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    if (!r->regular)
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
    if (fflush(r->fp) != 0) {
        fail(r, errno);
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

void roce_rotfile_fail(struct roce_rotfile *r, int e, char *err, size_t errlen)
{
    if (!r->failed)
        fail(r, e ? e : EIO);
    snprintf(err, errlen, "%s", r->why);
}

int roce_rotfile_flush(struct roce_rotfile *r, char *err, size_t errlen)
{
    errno = 0;
    if (!r->failed && r->fp != NULL && (fflush(r->fp) != 0 || ferror(r->fp)))
        fail(r, errno ? errno : EIO);
    if (r->failed || r->fp == NULL) {
        snprintf(err, errlen, "%s", r->failed ? r->why : "not open");
        return -1;
    }
    return roce_rotfile_line(r, err, errlen);
}

int roce_rotfile_line(struct roce_rotfile *r, char *err, size_t errlen)
{
    if (r->failed || r->fp == NULL || r->max_bytes == 0)
        return 0;
    off_t at = ftello(r->fp);
    if (at < 0 || (uint64_t)at < r->max_bytes)
        return 0;
    if (rotate(r) != 0) {
        if (r->failed)
            snprintf(err, errlen, "%s", r->why);
        else
            snprintf(err, errlen, "cannot rotate: %s", strerror(errno));
        r->failed = 1;
        return -1;
    }
    return 0;
}

int roce_rotfile_close(struct roce_rotfile *r)
{
    if (r == NULL)
        return 0;
    int rc = 0;
    if (r->fp != NULL && !r->failed && fflush(r->fp) != 0) {
        fail(r, errno);
        fprintf(stderr, "rocescope: %s: %s\n", r->path, r->why);
    }
    if (r->fp != NULL) {
        rc = fclose(r->fp) != 0 || r->failed ? -1 : 0;
        if (r->failed) /* a stream that failed may still write what it held: cut again */
            cut_to_line(r);
    }
    free(r->path);
    free(r);
    return rc;
}
