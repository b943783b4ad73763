/*
 * output.h - where rocescope writes: stdout, or a file written under a
 * temporary name in the same directory and renamed into place only when
 * complete, so nothing is ever left written half-way; its exit statuses and
 * its one-line error messages (README "Usage": `rocescope: WHAT: WHY`).
 */
#ifndef ROCE_OUTPUT_H
#define ROCE_OUTPUT_H

#include <stdio.h>

/* Exit statuses of every rocescope command (README "Usage"). */
enum roce_exit {
    ROCE_EXIT_OK = 0,
    ROCE_EXIT_INPUT = 1,  /* an input could not be read (the report so far is written) */
    ROCE_EXIT_USAGE = 2,  /* bad usage */
    ROCE_EXIT_OUTPUT = 3  /* an output could not be written */
};

/* Print "rocescope: WHAT: WHY" on stderr. */
void roce_complain(const char *what, const char *why);

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
