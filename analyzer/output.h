/*
 * output.h - where the CLI writes: stdout, or a file written under a
 * temporary name in the same directory and renamed into place only when
 * complete, so nothing is ever left written half-way.
 */
#ifndef ROCE_OUTPUT_H
#define ROCE_OUTPUT_H

#include <stdio.h>

struct roce_output {
    FILE *fp;
    const char *path; /* final name, NULL for stdout */
    char *tmp;        /* temporary name (owned) */
};

/* 0, or -1 with errno set. path NULL means stdout. */
int roce_output_open(struct roce_output *o, const char *path);
/* Flush and move into place. 0, or -1 with errno set (the temporary is removed). */
int roce_output_commit(struct roce_output *o);
/* Discard: remove the temporary file. */
void roce_output_abort(struct roce_output *o);

#endif
