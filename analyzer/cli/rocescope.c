/*
 * rocescope.c - the CLI: options, then capture files through the engine
 * (with -T, through several engines, each taking its connections, merged;
 * with -j, each file through its own, merged), then the report (text, JSON)
 * or the per-frame events; `rocescope merge` merges JSON reports (merge.c);
 * `rocescope localize` locates losses across vantage points (localize.c).
 *
 * Exit status: 0 success; 1 an input problem (missing or unreadable file,
 * not a capture, unsupported link type, file cut short: the report of what
 * was read is still written when anything was read); 2 bad usage; 3 the
 * output could not be written.
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "events.h"
#include "html.h"
#include "live.h"
#include "localize.h"
#include "merge.h"
#include "options.h"
#include "output.h"
#include "parallel.h"
#include "report.h"
#include "roce_engine.h"
#include "threads.h"


/* Where the settled verdicts go: --events, the HTML report's series, or both. */
struct sinks {
    struct roce_events *events;
    struct roce_html_series *series;
};

static void to_sinks(const struct roce_verdict *v, void *ctx)
{
    const struct sinks *k = ctx;
    if (k->events != NULL)
        roce_events_write(v, k->events);
    if (k->series != NULL)
        roce_html_series_verdict(v, k->series);
}

/* All files through one engine (run->engine, which the caller frees after
 * the report), frame numbers continuing from file to file, the settled
 * verdicts to the sinks. The report (with --events and no --html: only its
 * link type, NULL when no file could be opened) borrows from run. 0, or -1
 * when out of memory (message printed). */
static int run_joint(const struct roce_cli_options *opt, struct sinks *sinks,
                     struct roce_report *rep, struct roce_analysis *run, int *input_problem)
{
    struct roce_config cfg = opt->cfg;
    char msg[ROCE_ANALYSIS_ERR_LEN];

    memset(rep, 0, sizeof *rep);
    if (sinks->events != NULL || sinks->series != NULL) {
        cfg.on_verdict = to_sinks;
        cfg.ctx = sinks;
    }
    if (sinks->series != NULL) {
        run->on_frame = roce_html_series_frame;
        run->frame_ctx = sinks->series;
    }
    run->engine = roce_engine_new(&cfg);
    if (run->engine == NULL) {
        roce_complain("engine", "out of memory");
        return -1;
    }
    for (int i = 0; i < opt->n_files; i++)
        if (roce_analysis_file(run, opt->files[i], msg, sizeof msg) != 0) {
            roce_complain(opt->files[i], msg);
            *input_problem = 1;
        }
    roce_engine_finish(run->engine);
    if (sinks->series != NULL)
        roce_html_series_finish(sinks->series, run->engine);
    rep->link_type = run->opened ? run->link_type : NULL;
    if (run->opened == 0 || (sinks->events != NULL && sinks->series == NULL))
        return 0;
    rep->files = (const char *const *)opt->files;
    rep->n_files = (size_t)opt->n_files;
    rep->cfg = &opt->cfg;
    rep->error = run->have_error ? run->error : NULL;
    rep->files_overlap = (uint8_t)run->files_overlap;
    if (roce_report_build(rep, run->engine) != 0) {
        roce_complain("report", "out of memory");
        return -1;
    }
    return 0;
}

/* Write the report in the chosen form. 0, or -1 when it could not be written. */
static int write_report(const struct roce_cli_options *opt, const struct roce_report *rep, FILE *out)
{
    if (opt->mode == ROCE_MODE_JSON)
        return roce_report_json(rep, out);
    return roce_report_text(rep, out, opt->top);
}

/* Write the HTML report (--html) and put it in place. 0, or -1 (message
 * printed; nothing is left behind). */
static int write_html(const struct roce_cli_options *opt, struct roce_output *html,
                      const struct roce_report *rep, const struct roce_html_series *series)
{
    if (roce_html_report(html->fp, rep, series, ROCE_HTML_FILES, opt->top) != 0) {
        roce_output_abort(html);
        roce_complain(opt->html, "write failed");
        return -1;
    }
    if (roce_output_commit(html) != 0) {
        roce_complain(opt->html, strerror(errno));
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct roce_cli_options opt;
    struct roce_events events = {NULL, 0};
    struct roce_output out, html;
    struct roce_report rep;
    struct roce_analysis run;
    struct sinks sinks = {NULL, NULL};
    int input_problem = 0;

    if (argc > 1 && strcmp(argv[1], "merge") == 0)
        return roce_merge_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "localize") == 0)
        return roce_localize_main(argc - 1, argv + 1);
    int rc = roce_cli_parse(argc, argv, &opt);
    if (rc != ROCE_CLI_RUN)
        return rc == ROCE_CLI_EXIT_OK ? 0 : ROCE_EXIT_USAGE;
    if (opt.live.iface != NULL)
        return roce_live_run(&opt);

    if (roce_output_open(&out, opt.output) != 0) {
        roce_complain(opt.output, strerror(errno));
        return ROCE_EXIT_OUTPUT;
    }
    if (opt.html != NULL && roce_output_open(&html, opt.html) != 0) {
        roce_complain(opt.html, strerror(errno));
        roce_output_abort(&out);
        return ROCE_EXIT_OUTPUT;
    }
    if (opt.html != NULL && (sinks.series = roce_html_series_new()) == NULL) {
        roce_complain("--html", "out of memory");
        roce_output_abort(&html);
        roce_output_abort(&out);
        return ROCE_EXIT_INPUT;
    }
    events.out = out.fp;
    memset(&run, 0, sizeof run);
    sinks.events = opt.mode == ROCE_MODE_EVENTS ? &events : NULL;
    if (opt.jobs)
        rc = roce_parallel_run(&opt, sinks.events, sinks.series, &rep, &input_problem);
    else if ((rc = roce_threads_run(&opt, sinks.events, &rep, &input_problem)) == 1)
        rc = run_joint(&opt, &sinks, &rep, &run, &input_problem);
    if (rc != 0 || rep.link_type == NULL) { /* out of memory, or no file could be opened */
        roce_report_free(&rep);
        roce_engine_free(run.engine);
        roce_html_series_free(sinks.series);
        if (opt.html != NULL)
            roce_output_abort(&html);
        roce_output_abort(&out);
        return ROCE_EXIT_INPUT;
    }
    int werr = events.failed || (sinks.events == NULL && write_report(&opt, &rep, out.fp) != 0);
    int herr = opt.html != NULL && write_html(&opt, &html, &rep, sinks.series) != 0;
    roce_report_free(&rep);
    roce_engine_free(run.engine);
    roce_html_series_free(sinks.series);
    if (werr) {
        roce_output_abort(&out);
        roce_complain(opt.output ? opt.output : "stdout", "write failed");
        return ROCE_EXIT_OUTPUT;
    }
    if (roce_output_commit(&out) != 0) {
        roce_complain(opt.output ? opt.output : "stdout", strerror(errno));
        return ROCE_EXIT_OUTPUT;
    }
    if (herr)
        return ROCE_EXIT_OUTPUT;
    return input_problem ? ROCE_EXIT_INPUT : 0;
}
