/*
 * replay_main.c - runs a fuzz target without libFuzzer: every file named on
 * the command line, and every regular file in the directories named (one
 * level, names starting with '.' skipped), goes once through
 * LLVMFuzzerTestOneInput(). This is how the seed corpus and the regression
 * inputs replay as ordinary tests, in any build (gcc, ASan + UBSan).
 *
 *   replay [--min N] PATH...
 *
 * A finding aborts (sanitizer report or abort()). Exit status: 0 when all
 * inputs ran and there were at least N (default 1), 1 otherwise (an
 * unreadable path, or too few inputs: a replay that runs nothing proves
 * nothing), 2 usage.
 */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_target.h"

#define EXIT_USAGE   2
#define DECIMAL      10
#define PATH_MAX_LEN 4096

struct replay {
    unsigned long inputs;
    int failed;
};

/* Read the whole file at path (malloc'd, *len bytes); NULL on error. */
static uint8_t *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t cap = 0, n = 0;

    if (f == NULL)
        return NULL;
    for (;;) {
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 4096;
            uint8_t *nb = realloc(buf, ncap);
            if (nb == NULL)
                goto fail;
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f))
        goto fail;
    fclose(f);
    *len = n;
    return buf;
fail:
    free(buf);
    fclose(f);
    return NULL;
}

/* Run one file through the target. */
static void run_file(struct replay *r, const char *path)
{
    size_t len;
    uint8_t *data = read_all(path, &len);
    if (data == NULL) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        r->failed = 1;
        return;
    }
    LLVMFuzzerTestOneInput(data, len);
    free(data);
    r->inputs++;
}

/* Run every regular file of directory dir, in name order. */
static void run_dir(struct replay *r, const char *dir)
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);
    if (n < 0) {
        fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
        r->failed = 1;
        return;
    }
    for (int i = 0; i < n; i++) {
        char path[PATH_MAX_LEN];
        struct stat st;
        if (names[i]->d_name[0] != '.' &&
            snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name) < (int)sizeof path &&
            stat(path, &st) == 0 && S_ISREG(st.st_mode))
            run_file(r, path);
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv)
{
    struct replay r = {0, 0};
    unsigned long min = 1;
    int i = 1;

    if (argc > 2 && strcmp(argv[1], "--min") == 0) {
        char *end;
        min = strtoul(argv[2], &end, DECIMAL);
        if (*argv[2] == '\0' || *end != '\0') {
            fprintf(stderr, "usage: replay [--min N] PATH...\n");
            return EXIT_USAGE;
        }
        i = 3;
    }
    if (i >= argc) {
        fprintf(stderr, "usage: replay [--min N] PATH...\n");
        return EXIT_USAGE;
    }
    for (; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
            r.failed = 1;
        } else if (S_ISDIR(st.st_mode)) {
            run_dir(&r, argv[i]);
        } else {
            run_file(&r, argv[i]);
        }
    }
    printf("replay: %lu inputs ran\n", r.inputs);
    if (r.inputs < min) {
        fprintf(stderr, "replay: only %lu inputs, want at least %lu\n", r.inputs, min);
        return EXIT_FAILURE;
    }
    return r.failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
