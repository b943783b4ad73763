/*
 * output.h - where rocescope writes: stdout, or a file written under a
 * temporary name in the same directory and renamed into place only when
 * complete, so nothing is ever left written half-way; the safety rules every
 * output path goes through (roce_output_open: never onto an input of the
 * run, never twice, links followed only to regular files; rocescope(1),
 * OUTPUT FILES); its exit statuses and its one-line error messages
 * (rocescope(1), EXIT STATUS: `rocescope: WHAT: WHY`, control characters
 * escaped).
 */
#ifndef ROCE_OUTPUT_H
#define ROCE_OUTPUT_H

#include <stdio.h>

/* Exit statuses of every rocescope command (rocescope(1), EXIT STATUS). */
enum roce_exit {
    ROCE_EXIT_OK = 0,
    ROCE_EXIT_INPUT = 1, /* an input could not be read (the report so far is written) */
    ROCE_EXIT_USAGE = 2, /* bad usage */
    ROCE_EXIT_OUTPUT = 3 /* an output could not be written */
};

/* Print "rocescope: WHAT: WHY" on stderr (one write; control characters
 * escaped, names.h). */
void roce_complain(const char *what, const char *why);
/* Print "rocescope: " and the formatted text, escaped, then a newline. */
void roce_complainf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* At the start of main: descriptors 0, 1 and 2 that are closed are opened on
 * /dev/null, so that no file the tool opens becomes its standard error (and
 * gets its messages) or its standard output. */
void roce_output_std_fds(void);

/* An input of this run (a capture, a report; "-": standard input): no
 * output may be written onto it (roce_output_open). A path that cannot be
 * looked at is left to its reader. 0, or -1 with the message printed when
 * it is a stream (a pipe, standard input) given already: it reads once. */
int roce_output_input(const char *path);

/* Nonzero when a and b name the same file, whatever the names (links, "..",
 * hard links): the same device and inode, or, for a file that does not
 * exist yet, the same name in the same folder. A device (/dev/null) is
 * never "the same file": it takes several outputs. */
int roce_output_same_file(const char *a, const char *b);

/*
 * A file the tool writes (-o, --html, --prometheus-file, merge -o, any
 * writer's path). A regular file, or a path that does not exist yet, is
 * written under a temporary name (PATH.tmp.XXXXXX) in the same directory,
 * flushed to the disk and renamed over it only when complete (an existing
 * file keeps its mode; a new one gets the mode `> FILE` would give it): a
 * failed write (a full file system) leaves the old file as it was and no
 * partial file; the temporary file is removed on SIGINT, SIGTERM, SIGHUP
 * and SIGPIPE too (when the run had left them to their default). A
 * character or block device (/dev/null) or a FIFO is written straight into,
 * never renamed over or removed: the tool only ever removes the temporary
 * files it made itself. "-" means stdout, as it does for tcpdump and tshark.
 *
 * Refused (roce_output_open fails; roce_output_error says why):
 *   - a file that is an input of the run (roce_output_input), by device and
 *     inode: through another name, a hard link or a symbolic link too;
 *   - a file another output of the run has open (two options naming one
 *     file through links);
 *   - a symbolic link, unless it leads to an existing regular file (which
 *     is replaced, the link kept): a dangling link never creates its
 *     target, a link to a device or FIFO is not written through (except to
 *     the run's own standard output or error, as /dev/stdout is);
 *   - a folder.
 */
struct roce_output {
    FILE *fp;
    const char *path; /* the name given, NULL for stdout */
    char *target;     /* what the temporary file replaces (owned; NULL when direct) */
    char *tmp;        /* temporary name (owned; NULL when direct) */
    int slot;         /* its entry among the open outputs (0: none) */
};

/* The one function every output path goes through (the rules above). 0,
 * or -1 with errno set and the reason for roce_output_error. path NULL or
 * "-" means stdout. */
int roce_output_open(struct roce_output *o, const char *path);
/* Why the last roce_output_open or roce_output_commit of this thread
 * failed (a refusal above, or the system's words for errno). */
const char *roce_output_error(void);
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
