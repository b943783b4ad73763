/*
 * output.h - where rocescope writes: stdout, or a file written under a
 * temporary name in the same directory and renamed into place only when
 * complete, so nothing is ever left written half-way; its exit statuses and
 * its one-line error messages (rocescope(1), EXIT STATUS: `rocescope: WHAT: WHY`).
 */
#ifndef ROCE_OUTPUT_H
#define ROCE_OUTPUT_H

#include <stdio.h>

/* Exit statuses of every rocescope command (rocescope(1), EXIT STATUS). */
enum roce_exit {
    ROCE_EXIT_OK = 0,
    ROCE_EXIT_INPUT = 1,  /* an input could not be read (the report so far is written) */
    ROCE_EXIT_USAGE = 2,  /* bad usage */
    ROCE_EXIT_OUTPUT = 3  /* an output could not be written */
};

/* Print "rocescope: WHAT: WHY" on stderr. */
void roce_complain(const char *what, const char *why);

/*
 * A file the tool writes (-o, --prometheus-file, merge -o, ...). A regular
 * file, or a path that does not exist yet, is written under a temporary name
 * in the same directory and renamed over it only when complete (an existing
 * file keeps its mode; a new one gets the mode `> FILE` would give it). A
 * symbolic link to a regular file replaces the file it points to, never the
 * link. Anything else that exists (a character or block device such as
 * /dev/null, a FIFO) is written straight into, never renamed over or
 * removed: the tool only ever removes the temporary files it made itself.
 * "-" means stdout, as it does for tcpdump and tshark.
 */
struct roce_output {
    FILE *fp;
    const char *path; /* the name given, NULL for stdout */
    char *target;     /* what the temporary file replaces (owned; NULL when direct) */
    char *tmp;        /* temporary name (owned; NULL when direct) */
};

/* 0, or -1 with errno set. path NULL or "-" means stdout. */
int roce_output_open(struct roce_output *o, const char *path);
/* Flush, close and move into place. 0, or -1 with errno set (the temporary
 * is removed). */
int roce_output_commit(struct roce_output *o);
/* Discard: close, and remove the temporary file (a file written straight
 * into is left as it is). */
void roce_output_abort(struct roce_output *o);
/* After writing: commit, or discard when the writing failed (werr). 0, or
 * -1 with "rocescope: NAME: write failed" or the reason the commit failed
 * printed (name: the path given, or "stdout"). */
int roce_output_finish(struct roce_output *o, const char *name, int werr);

#endif
