/*
 * rocescope.c - the CLI: options, then capture files through the engine,
 * then the report (text, JSON) or the per-frame events.
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

#include "capture.h"
#include "events.h"
#include "live.h"
#include "options.h"
#include "output.h"
#include "report.h"
#include "roce_engine.h"

#define EXIT_INPUT  1
#define EXIT_USAGE  2
#define EXIT_OUTPUT 3
#define ERR_LEN     512

struct run {
    struct roce_engine *engine;
    uint64_t frame;
    const char *link_type;
    char error[ERR_LEN];
    int have_error;
    int opened;
};

static void complain(const char *what, const char *why)
{
    fprintf(stderr, "rocescope: %s: %s\n", what, why);
}

/* Read one capture file into the engine. Returns 0, or -1 on a problem
 * (already reported on stderr). */
static int read_file(struct run *run, const char *path)
{
    char err[ERR_LEN];
    struct roce_capture *c = roce_capture_open(path, err, sizeof err);
    struct roce_capture_frame fr;
    enum roce_capture_status st;

    if (c == NULL) {
        complain(path, err);
        return -1;
    }
    int lt = roce_capture_linktype(c);
    if (!roce_linktype_supported(lt)) {
        snprintf(err, sizeof err, "unsupported link type %s (%d)", roce_capture_linktype_name(c),
                 lt);
        complain(path, err);
        roce_capture_close(c);
        return -1;
    }
    if (!run->opened++)
        run->link_type = roce_capture_linktype_name(c);
    while ((st = roce_capture_next(c, &fr)) == ROCE_CAPTURE_FRAME) {
        struct roce_frame_in in = {++run->frame, fr.ts_ns, lt, fr.data, fr.caplen, fr.wirelen};
        roce_engine_frame(run->engine, &in, NULL);
    }
    if (st == ROCE_CAPTURE_ERROR) {
        complain(path, roce_capture_error(c));
        if (!run->have_error)
            snprintf(run->error, sizeof run->error, "%s: %s", path, roce_capture_error(c));
        run->have_error = 1;
        roce_capture_close(c);
        return -1;
    }
    roce_capture_close(c);
    return 0;
}

int main(int argc, char **argv)
{
    struct roce_cli_options opt;
    struct run run;
    struct roce_events events = {NULL, 0};
    struct roce_output out;
    int status = 0;

    int rc = roce_cli_parse(argc, argv, &opt);
    if (rc != ROCE_CLI_RUN)
        return rc == ROCE_CLI_EXIT_OK ? 0 : EXIT_USAGE;
    if (opt.live.iface != NULL)
        return roce_live_run(&opt);

    if (roce_output_open(&out, opt.output) != 0) {
        complain(opt.output, strerror(errno));
        return EXIT_OUTPUT;
    }
    memset(&run, 0, sizeof run);
    if (opt.mode == ROCE_MODE_EVENTS) {
        events.out = out.fp;
        opt.cfg.on_verdict = roce_events_write;
        opt.cfg.ctx = &events;
    }
    run.engine = roce_engine_new(&opt.cfg);
    if (run.engine == NULL) {
        complain("engine", "out of memory");
        roce_output_abort(&out);
        return EXIT_INPUT;
    }
    for (int i = 0; i < opt.n_files; i++)
        if (read_file(&run, opt.files[i]) != 0)
            status = EXIT_INPUT;
    roce_engine_finish(run.engine);

    if (run.opened == 0) {
        roce_engine_free(run.engine);
        roce_output_abort(&out);
        return EXIT_INPUT;
    }
    int werr = events.failed;
    if (opt.mode != ROCE_MODE_EVENTS) {
        struct roce_report rep = {0};
        rep.files = (const char *const *)opt.files;
        rep.n_files = (size_t)opt.n_files;
        rep.link_type = run.link_type;
        rep.cfg = &opt.cfg;
        rep.error = run.have_error ? run.error : NULL;
        if (roce_report_build(&rep, run.engine) != 0) {
            complain("report", "out of memory");
            werr = 1;
        } else if (opt.mode == ROCE_MODE_JSON) {
            werr = roce_report_json(&rep, out.fp) != 0;
        } else {
            werr = roce_report_text(&rep, out.fp, opt.top) != 0;
        }
        roce_report_free(&rep);
    }
    roce_engine_free(run.engine);
    if (werr) {
        roce_output_abort(&out);
        complain(opt.output ? opt.output : "stdout", "write failed");
        return EXIT_OUTPUT;
    }
    if (roce_output_commit(&out) != 0) {
        complain(opt.output ? opt.output : "stdout", strerror(errno));
        return EXIT_OUTPUT;
    }
    return status;
}
