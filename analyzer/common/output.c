/*
 * output.c - atomic output files and error messages (see output.h).
 */
#define _DEFAULT_SOURCE
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TMP_SUFFIX ".tmp.XXXXXX"
#define OUTPUT_MODE 0666

void roce_complain(const char *what, const char *why)
{
    fprintf(stderr, "rocescope: %s: %s\n", what, why);
}

/* Free what o owns; o becomes a closed output. */
static void release(struct roce_output *o)
{
    free(o->tmp);
    free(o->target);
    o->tmp = o->target = NULL;
    o->fp = NULL;
}

/* Write straight into path, which exists and is not a regular file (a
 * device, a FIFO), or is a link to nothing yet (created through it, as
 * `> FILE` would). */
static int open_direct(struct roce_output *o, const char *path, int create)
{
    int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | (create ? O_CREAT | O_TRUNC : 0),
                  OUTPUT_MODE);
    if (fd < 0)
        return -1;
    if ((o->fp = fdopen(fd, "w")) == NULL) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    o->path = path;
    return 0;
}

/* Write under a temporary name beside target, to be renamed over it. mode:
 * the existing file's, or -1 for a new file (the umask's). */
static int open_replacing(struct roce_output *o, const char *path, const char *target, int mode)
{
    size_t n = strlen(target) + sizeof TMP_SUFFIX;
    o->target = strdup(target);
    o->tmp = malloc(n);
    if (o->target == NULL || o->tmp == NULL) {
        release(o);
        errno = ENOMEM;
        return -1;
    }
    snprintf(o->tmp, n, "%s%s", target, TMP_SUFFIX);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        int e = errno;
        release(o);
        errno = e;
        return -1;
    }
    /* mkstemp makes the file private (0600): give it the existing file's
     * mode, or the mode a plain `> FILE` would give a new one */
    if (mode < 0) {
        mode_t mask = umask(0);
        umask(mask);
        mode = (int)(OUTPUT_MODE & ~mask);
    }
    if (fchmod(fd, (mode_t)mode) != 0 || (o->fp = fdopen(fd, "w")) == NULL) {
        int e = errno;
        close(fd);
        unlink(o->tmp);
        release(o);
        errno = e;
        return -1;
    }
    o->path = path;
    return 0;
}

int roce_output_open(struct roce_output *o, const char *path)
{
    struct stat st;
    memset(o, 0, sizeof *o);
    if (path == NULL || strcmp(path, "-") == 0) {
        o->fp = stdout;
        return 0;
    }
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? open_replacing(o, path, path, -1) : -1;
    if (S_ISLNK(st.st_mode)) {
        /* replace the file the link leads to, not the link */
        char *real = realpath(path, NULL);
        if (real == NULL)
            return errno == ENOENT ? open_direct(o, path, 1) : -1;
        int rc;
        if (stat(real, &st) != 0)
            rc = -1;
        else if (S_ISREG(st.st_mode))
            rc = open_replacing(o, path, real, (int)(st.st_mode & 07777));
        else if (S_ISDIR(st.st_mode))
            rc = (errno = EISDIR, -1);
        else
            rc = open_direct(o, path, 0);
        int e = errno;
        free(real);
        errno = e;
        return rc;
    }
    if (S_ISREG(st.st_mode))
        return open_replacing(o, path, path, (int)(st.st_mode & 07777));
    if (S_ISDIR(st.st_mode)) {
        errno = EISDIR;
        return -1;
    }
    return open_direct(o, path, 0);
}

int roce_output_commit(struct roce_output *o)
{
    if (o->path == NULL)
        return fflush(o->fp) == 0 && !ferror(o->fp) ? 0 : -1;
    int failed = fflush(o->fp) != 0 || ferror(o->fp);
    int e = errno;
    if (fclose(o->fp) != 0 && !failed) {
        failed = 1;
        e = errno;
    }
    o->fp = NULL;
    if (o->tmp != NULL) {
        if (!failed && rename(o->tmp, o->target) != 0) {
            failed = 1;
            e = errno;
        }
        if (failed)
            unlink(o->tmp);
    }
    release(o);
    errno = e;
    return failed ? -1 : 0;
}

void roce_output_abort(struct roce_output *o)
{
    if (o->path == NULL)
        return;
    if (o->fp != NULL)
        fclose(o->fp);
    if (o->tmp != NULL)
        unlink(o->tmp);
    release(o);
}

int roce_output_finish(struct roce_output *o, const char *name, int werr)
{
    if (werr) {
        roce_output_abort(o);
        roce_complain(name, "write failed");
        return -1;
    }
    if (roce_output_commit(o) != 0) {
        roce_complain(name, strerror(errno));
        return -1;
    }
    return 0;
}
