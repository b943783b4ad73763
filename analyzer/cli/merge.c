/*
 * merge.c - `rocescope merge`: JSON reports read back (report_parse.c),
 * checked to have been made with the same analysis options, merged in the
 * order given (report_merge.c), written by the writers chosen that write
 * from a report alone (writers.h: the summary, --json, --html; see merge.h).
 */
#define _DEFAULT_SOURCE
#include "merge.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli_options.h"
#include "output.h"
#include "report.h"
#include "report_fields.h"
#include "writers.h"

#define ERR_LEN 512

/* merge's own long options (the output options: roce_cli_getopt). */
static const struct option merge_opts[] = {
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static const char merge_usage[] =
    "Usage: rocescope merge [--json] [-o PATH] [--html PATH] [--top N] REPORT.json...\n"
    "Merge JSON reports made by `rocescope --json` of captures read one after the\n"
    "other, in the order given, into the report of one analysis of them all (exact\n"
    "where no flow spans two captures; README \"Many files\").\n"
    "\n"
    "      --json            the merged report as one JSON document (default: the\n"
    "                        human summary)\n"
    "  -o, --output PATH     write to PATH (via a temporary file and rename)\n"
    "      --html PATH       also write the HTML report to PATH (without the graphs\n"
    "                        over time: a JSON report has no frames)\n"
    "      --top N           flows and episodes listed in the summary (default 20)\n"
    "  -h, --help            this help\n"
    "\n"
    "Exit status: 0 merged, 1 a report could not be read, is not a rocescope report\n"
    "or was made with other analysis options (nothing written), or a report is\n"
    "incomplete (the merged report says so), 2 bad usage, 3 output not written.\n";

struct merge_args {
    struct roce_outputs out; /* --json, -o, --html, --top */
    char **reports;
    int n_reports;
};

/* merge's own option: --help. */
static int merge_option(int c, const char *arg, void *ctx)
{
    (void)arg; /* none takes a value */
    (void)ctx;
    if (c != 'h')
        return -1;
    fputs(merge_usage, stdout);
    return ROCE_CLI_EXIT_OK;
}

static const struct roce_cli_command merge_command = {
    "merge", ":o:h", merge_opts, ROCE_CLI_WRITERS_MERGED, merge_option,
};

/* 0 to run, -1 after --help, else the exit status. */
static int parse_args(int argc, char **argv, struct merge_args *a)
{
    memset(a, 0, sizeof *a);
    enum roce_cli_parse_result rc = roce_cli_getopt(&merge_command, argc, argv, &a->out, a);
    if (rc != ROCE_CLI_RUN)
        return rc == ROCE_CLI_EXIT_OK ? -1 : ROCE_EXIT_USAGE;
    a->reports = argv + optind;
    a->n_reports = argc - optind;
    if (roce_cli_outputs_paths(&a->out) != 0)
        return roce_cli_usage_error(&merge_command);
    for (int i = 0; i < a->n_reports; i++) /* never written onto ("-" is a file's name here) */
        if (roce_output_input(strcmp(a->reports[i], "-") == 0 ? "./-" : a->reports[i]) != 0)
            return roce_cli_usage_error(&merge_command);
    if (a->n_reports > 0)
        return 0;
    fputs("rocescope: merge: no report given\n", stderr);
    return roce_cli_usage_error(&merge_command);
}

/* The first analysis option in which two reports differ (its name for
 * the user, report_fields.c), or NULL: reports are only merged when made
 * with the same ones. */
static const char *option_differs(const struct roce_config *a, const struct roce_config *b)
{
    const struct roce_fieldset *fs = &roce_option_fields;
    for (const struct roce_field *f = fs->f; f < fs->f + fs->n; f++)
        if (memcmp((const char *)a + f->off, (const char *)b + f->off, f->size) != 0)
            return f->option;
    return NULL;
}

/* Read the reports and merge them into acc. 0, or -1 (message printed). */
static int merge_reports(const struct merge_args *a, struct roce_report *acc)
{
    char err[ERR_LEN];
    for (int i = 0; i < a->n_reports; i++) {
        struct roce_report one;
        const char *path = a->reports[i], *differs = NULL;
        if (roce_report_parse(path, &one, err, sizeof err) != 0) {
            roce_complain(path, err);
            return -1;
        }
        if (i > 0 && (differs = option_differs(acc->cfg, one.cfg)) != NULL)
            roce_complainf("%s: made with another %s than %s: not merged", path, differs,
                           a->reports[0]);
        else if (one.error != NULL) /* merged all the same: the merge is incomplete too */
            roce_complainf("%s: an incomplete report (%s): the merge is incomplete", path,
                           one.error);
        int rc = differs == NULL ? roce_report_merge_checked(acc, &one, err, sizeof err) : -1;
        if (rc != 0 && differs == NULL)
            roce_complain(path, rc > 0 ? err : "out of memory");
        roce_report_free(&one);
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* Write the document of every writer to its file, opened beforehand
 * (roce_writers_open), and put each in place. 0, or ROCE_EXIT_OUTPUT
 * (messages printed). */
static int write_all(struct roce_writers *ws, const struct roce_report *acc, unsigned top)
{
    const struct roce_writer_doc doc = {acc, ROCE_WRITE_MERGE, top};
    int rc = 0;
    for (unsigned i = 0; i < ws->n; i++) {
        struct roce_writer_run *r = &ws->run[i];
        int werr = r->w->ops->report(r, r->fp, &doc) != 0;
        if (roce_output_finish(&r->out, r->path ? r->path : "stdout", werr) != 0)
            rc = ROCE_EXIT_OUTPUT;
    }
    return rc;
}

int roce_merge_main(int argc, char **argv)
{
    struct merge_args a;
    struct roce_report acc;
    int rc = parse_args(argc, argv, &a);
    if (rc != 0)
        return rc < 0 ? 0 : rc;

    roce_report_init(&acc);
    if (merge_reports(&a, &acc) != 0) {
        roce_report_free(&acc);
        return ROCE_EXIT_INPUT;
    }
    struct roce_writers ws;
    roce_writers_init(&ws, &a.out);
    rc = roce_writers_open(&ws) != 0 ? ROCE_EXIT_OUTPUT : write_all(&ws, &acc, a.out.top);
    int incomplete = acc.error != NULL;
    roce_report_free(&acc);
    return rc != 0 ? rc : incomplete ? ROCE_EXIT_INPUT : 0;
}
