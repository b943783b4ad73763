/*
 * output.c - atomic output files and error messages (see output.h).
 */
#define _DEFAULT_SOURCE
#include "output.h"

#include <errno.h>
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

int roce_output_open(struct roce_output *o, const char *path)
{
    memset(o, 0, sizeof *o);
    if (path == NULL) {
        o->fp = stdout;
        return 0;
    }
    size_t n = strlen(path) + sizeof TMP_SUFFIX;
    o->tmp = malloc(n);
    if (o->tmp == NULL)
        return -1;
    snprintf(o->tmp, n, "%s%s", path, TMP_SUFFIX);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        free(o->tmp);
        o->tmp = NULL;
        return -1;
    }
    /* mkstemp makes the file private (0600); the report gets the mode a
     * plain `> FILE` would give it */
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, OUTPUT_MODE & ~mask) != 0 || (o->fp = fdopen(fd, "w")) == NULL) {
        int e = errno;
        close(fd);
        unlink(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
        errno = e;
        return -1;
    }
    o->path = path;
    return 0;
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
    if (!failed && rename(o->tmp, o->path) != 0) {
        failed = 1;
        e = errno;
    }
    if (failed)
        unlink(o->tmp);
    free(o->tmp);
    o->tmp = NULL;
    errno = e;
    return failed ? -1 : 0;
}

void roce_output_abort(struct roce_output *o)
{
    if (o->path == NULL)
        return;
    if (o->fp != NULL)
        fclose(o->fp);
    unlink(o->tmp);
    free(o->tmp);
    o->fp = NULL;
    o->tmp = NULL;
}
