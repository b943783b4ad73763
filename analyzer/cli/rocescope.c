/*
 * rocescope.c - the CLI: options, then capture files through the engine
 * (with -T, through several engines, each taking its connections, merged;
 * with -j, each file through its own, merged), then the writers chosen
 * (writers.h: the summary, JSON, events, HTML), which take the verdicts and
 * frames as the engine settles them and write the report at the end;
 * `rocescope merge` merges JSON reports (merge.c); `rocescope localize`
 * locates losses across vantage points (localize.c); `-i` is the live
 * monitor (live.h).
 *
 * Exit status: 0 success; 1 an input problem (missing or unreadable file,
 * not a capture, unsupported link type, file cut short: the report of what
 * was read is still written when anything was read); 2 bad usage; 3 the
 * output could not be written.
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "cli_options.h"
#include "live.h"
#include "localize.h"
#include "merge.h"
#include "output.h"
#include "parallel.h"
#include "report.h"
#include "roce_engine.h"
#include "threads.h"
#include "writers.h"

/* All files through one engine (run->engine, which the caller frees after
 * the report), frame numbers continuing from file to file, the settled
 * verdicts and the frames to the writers that take them. The report (only
 * its link type when no writer needs it, NULL when no file could be opened)
 * borrows from run. 0, or -1 when out of memory (message printed). */
static int run_joint(const struct roce_cli_options *opt, struct roce_writers *ws,
                     struct roce_report *rep, struct roce_analysis *run, int *input_problem)
{
    struct roce_config cfg = opt->cfg;
    char msg[ROCE_ANALYSIS_ERR_LEN];

    memset(rep, 0, sizeof *rep);
    if (ws->needs & ROCE_WRITER_VERDICTS) {
        cfg.on_verdict = roce_writers_verdict;
        cfg.ctx = ws;
    }
    if (ws->needs & ROCE_WRITER_FRAMES) {
        run->on_frame = roce_writers_frame;
        run->frame_ctx = ws;
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
    roce_writers_finish(ws, run->engine);
    rep->link_type = run->opened ? run->link_type : NULL;
    if (run->opened == 0 || !(ws->needs & ROCE_WRITER_REPORT))
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

/* Write the documents: the -o output's (unless it streamed), then each
 * file of its own, put in place, then the -o output put in place. The exit
 * status. */
static int write_documents(const struct roce_cli_options *opt, struct roce_writers *ws,
                           const struct roce_report *rep, int input_problem)
{
    const struct roce_writer_doc doc = {rep, ROCE_WRITE_FILES, opt->out.top};
    struct roce_writer_run *m = ws->main;
    int werr = m->failed || (m->w->ops->report != NULL && m->w->ops->report(m, m->fp, &doc) != 0);
    int herr = 0;
    for (unsigned i = 0; i < ws->n; i++) {
        struct roce_writer_run *r = &ws->run[i];
        if (r != m &&
            roce_output_finish(&r->out, r->path, r->w->ops->report(r, r->fp, &doc) != 0) != 0)
            herr = 1;
    }
    roce_writers_stop(ws);
    if (roce_output_finish(&m->out, opt->out.output ? opt->out.output : "stdout", werr) != 0)
        return ROCE_EXIT_OUTPUT;
    if (herr)
        return ROCE_EXIT_OUTPUT;
    return input_problem ? ROCE_EXIT_INPUT : 0;
}

int main(int argc, char **argv)
{
    struct roce_cli_options opt;
    struct roce_writers ws;
    const struct roce_writer *failed;
    struct roce_report rep;
    struct roce_analysis run;
    int input_problem = 0;

    roce_output_std_fds(); /* before any file is opened */
    if (argc > 1 && strcmp(argv[1], "merge") == 0)
        return roce_merge_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "localize") == 0)
        return roce_localize_main(argc - 1, argv + 1);
    int rc = roce_cli_parse(argc, argv, &opt);
    if (rc != ROCE_CLI_RUN)
        return rc == ROCE_CLI_EXIT_OK ? 0 : ROCE_EXIT_USAGE;
    if (opt.live.iface != NULL) {
        const struct roce_live_config lc = {&opt.live, &opt.cfg, opt.interval_ns, &opt.out};
        return roce_live_run(&lc);
    }

    if (roce_cli_outputs_keep_stdin(&opt.out, opt.files, opt.n_files) != 0)
        return ROCE_EXIT_INPUT;
    roce_writers_init(&ws, &opt.out);
    if (roce_writers_open(&ws) != 0)
        return ROCE_EXIT_OUTPUT;
    if (roce_writers_start(&ws, &failed) != 0) {
        roce_complain(failed->option, "out of memory");
        roce_writers_abort(&ws);
        return ROCE_EXIT_INPUT;
    }
    memset(&run, 0, sizeof run);
    if (opt.jobs)
        rc = roce_parallel_run(&opt, &ws, &rep, &input_problem);
    else if ((rc = roce_threads_run(&opt, &ws, &rep, &input_problem)) == 1)
        rc = run_joint(&opt, &ws, &rep, &run, &input_problem);
    if (rc != 0 || rep.link_type == NULL) { /* out of memory, or no file could be opened */
        roce_report_free(&rep);
        roce_engine_free(run.engine);
        roce_writers_stop(&ws);
        roce_writers_abort(&ws);
        return ROCE_EXIT_INPUT;
    }
    if (ws.needs & ROCE_WRITER_REPORT) /* once for every writer (else each computes them) */
        (void)roce_report_keep_diagnoses(&rep);
    rc = write_documents(&opt, &ws, &rep, input_problem);
    roce_report_free(&rep);
    roce_engine_free(run.engine);
    return rc;
}
