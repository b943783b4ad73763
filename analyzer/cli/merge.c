/*
 * merge.c - `rocescope merge`: JSON reports read back (report_parse.c),
 * checked to have been made with the same analysis options, merged in the
 * order given (report_merge.c), written as text or JSON (see merge.h).
 */
#define _DEFAULT_SOURCE
#include "merge.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "html.h"
#include "options.h"
#include "output.h"
#include "report.h"
#include "report_fields.h"

#define ERR_LEN 512

enum { OPT_JSON = 256, OPT_TOP, OPT_HTML };

static const struct option merge_opts[] = {
    {"json", no_argument, NULL, OPT_JSON},
    {"output", required_argument, NULL, 'o'},
    {"html", required_argument, NULL, OPT_HTML},
    {"top", required_argument, NULL, OPT_TOP},
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
    int json;
    const char *output;
    const char *html;
    unsigned top;
    char **reports;
    int n_reports;
};

/* 0 to run, else the exit status. */
static int parse_args(int argc, char **argv, struct merge_args *a)
{
    int c;
    memset(a, 0, sizeof *a);
    a->top = ROCE_CLI_TOP_DEFAULT;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":o:h", merge_opts, NULL)) != -1) {
        switch (c) {
        case OPT_JSON:
            a->json = 1;
            break;
        case 'o':
            a->output = optarg;
            break;
        case OPT_HTML:
            a->html = optarg;
            break;
        case OPT_TOP:
            if (roce_cli_top(optarg, &a->top) != 0)
                goto usage;
            break;
        case 'h':
            fputs(merge_usage, stdout);
            return -1;
        default:
            roce_cli_getopt_error("merge", c, argv[optind - 1]);
            goto usage;
        }
    }
    a->reports = argv + optind;
    a->n_reports = argc - optind;
    if (a->html != NULL && roce_cli_html_check(a->html, a->output) != 0)
        goto usage;
    if (a->n_reports > 0)
        return 0;
    fputs("rocescope: merge: no report given\n", stderr);
usage:
    fputs("Try 'rocescope merge --help'.\n", stderr);
    return ROCE_EXIT_USAGE;
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
            fprintf(stderr, "rocescope: %s: made with another %s than %s: not merged\n", path,
                    differs, a->reports[0]);
        else if (one.error != NULL) /* merged all the same: the merge is incomplete too */
            fprintf(stderr, "rocescope: %s: an incomplete report (%s): the merge is incomplete\n",
                    path, one.error);
        int rc = differs == NULL ? roce_report_merge_checked(acc, &one, err, sizeof err) : -1;
        if (rc != 0 && differs == NULL)
            roce_complain(path, rc > 0 ? err : "out of memory");
        roce_report_free(&one);
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* Write one output (the report, or the HTML page) and put it in place. 0,
 * or ROCE_EXIT_OUTPUT (message printed). */
static int write_one(const char *path, const struct merge_args *a, const struct roce_report *acc,
                     int html)
{
    struct roce_output out;
    if (roce_output_open(&out, path) != 0) {
        roce_complain(path, strerror(errno));
        return ROCE_EXIT_OUTPUT;
    }
    int werr = html     ? roce_html_report(out.fp, acc, NULL, ROCE_HTML_MERGE, a->top)
               : a->json ? roce_report_json(acc, out.fp)
                         : roce_report_text(acc, out.fp, a->top);
    if (werr != 0 || roce_output_commit(&out) != 0) {
        if (werr != 0)
            roce_output_abort(&out);
        roce_complain(path ? path : "stdout", werr != 0 ? "write failed" : strerror(errno));
        return ROCE_EXIT_OUTPUT;
    }
    return 0;
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
    rc = write_one(a.output, &a, &acc, 0);
    if (rc == 0 && a.html != NULL)
        rc = write_one(a.html, &a, &acc, 1);
    int incomplete = acc.error != NULL;
    roce_report_free(&acc);
    return rc != 0 ? rc : incomplete ? ROCE_EXIT_INPUT : 0;
}
