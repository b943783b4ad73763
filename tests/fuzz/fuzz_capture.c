/*
 * fuzz_capture.c - libFuzzer target: the input is a capture file (pcap or
 * pcapng bytes, or a raw ERF file) read the way the CLI reads it: the
 * capture reader and its conversion into engine frames (capture.h), the
 * engine with the --events writer and the HTML report's series on its
 * verdicts (and the series on every frame), then the report snapshot and
 * its writers, JSON, text and HTML (report.h, html.h).
 *
 * roce_capture_open() needs a path: the bytes go to a memory file
 * (fuzz_memfile.h). Output goes to /dev/null. max_flows depends on the
 * input length (4..32), so that some inputs evict flows whose peers the
 * report then has to look up.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "events.h"
#include "fuzz_memfile.h"
#include "fuzz_target.h"
#include "html.h"
#include "report.h"
#include "roce_engine.h"

#define ERR_LEN      512
#define FLOWS_MIN    4u
#define FLOWS_SPAN   29u
#define REPORT_TOP   5u
#define CAPTURE_NAME "fuzz.pcap"

/* Both of the CLI's consumers of settled verdicts with --events --html. */
struct fz_sinks {
    struct roce_events events;
    struct roce_html_series *series;
};

static void fz_verdict(const struct roce_verdict *v, void *ctx)
{
    struct fz_sinks *k = ctx;
    roce_events_write(v, &k->events);
    roce_html_series_verdict(v, k->series);
}

/* Read every frame of c into e and the series, as rocescope.c does.
 * Returns the error text when reading stopped early, else NULL. */
static const char *fz_read(struct roce_capture *c, struct roce_engine *e,
                           struct roce_html_series *s)
{
    struct roce_capture_frame fr;
    struct roce_frame_out out;
    enum roce_capture_status st;
    uint64_t frame = 0;

    /* each frame has its own link type (ERF records: that of what they carry) */
    while ((st = roce_capture_next(c, &fr)) == ROCE_CAPTURE_FRAME) {
        struct roce_frame_in in;
        roce_capture_frame_in(&fr, ++frame, &in);
        roce_engine_frame(e, &in, &out);
        roce_html_series_frame(s, e, &in, &out);
    }
    return st == ROCE_CAPTURE_ERROR ? roce_capture_error(c) : NULL;
}

/* The report of e in every format to out. */
static void fz_write_reports(struct roce_engine *e, const struct roce_config *cfg,
                             const char *link_type, const char *error,
                             const struct roce_html_series *s, FILE *out)
{
    static const char *const files[] = {CAPTURE_NAME};
    struct roce_report rep;

    memset(&rep, 0, sizeof rep);
    rep.files = files;
    rep.n_files = 1;
    rep.link_type = link_type;
    rep.cfg = cfg;
    rep.error = error;
    if (roce_report_build(&rep, e) == 0) {
        roce_report_json(&rep, out);
        roce_report_text(&rep, out, REPORT_TOP);
        roce_html_report(out, &rep, s, ROCE_HTML_FILES, REPORT_TOP);
    }
    roce_report_free(&rep);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *devnull = fz_devnull();
    char path[FZ_PATH_LEN], err[ERR_LEN];
    struct fz_sinks sinks = {{NULL, 0}, NULL};
    struct roce_config cfg;

    int fd = fz_memfile(data, size, path);
    struct roce_capture *c = roce_capture_open(path, err, sizeof err);
    if (c == NULL)
        goto out_fd;
    if (roce_capture_linktype_check(roce_capture_linktype(c), roce_capture_linktype_name(c), err,
                                    sizeof err) != 0)
        goto out_capture;

    roce_config_default(&cfg);
    cfg.max_flows = FLOWS_MIN + (uint32_t)(size % FLOWS_SPAN);
    sinks.events.out = devnull;
    sinks.series = roce_html_series_new();
    cfg.on_verdict = fz_verdict;
    cfg.ctx = &sinks;
    struct roce_engine *e = roce_engine_new(&cfg);
    if (e == NULL || sinks.series == NULL)
        abort(); /* a valid configuration; the series' table is small */
    const char *error = fz_read(c, e, sinks.series);
    roce_engine_finish(e);
    roce_html_series_finish(sinks.series, e);
    fz_write_reports(e, &cfg, roce_capture_linktype_name(c), error, sinks.series, devnull);
    roce_engine_free(e);
    roce_html_series_free(sinks.series);
out_capture:
    roce_capture_close(c);
out_fd:
    close(fd);
    return 0;
}
