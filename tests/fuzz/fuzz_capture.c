/*
 * fuzz_capture.c - libFuzzer target: the input is a capture file (pcap or
 * pcapng bytes, or a raw ERF file) read the way the CLI reads it: the
 * capture reader and its conversion into engine frames (capture.h), the
 * engine with every writer of the writers' table (writers.h: the --events
 * lines, the HTML report's series) taking its verdicts and frames, then the
 * report snapshot and every writer's document (summary, JSON, HTML): a new
 * row of the table is fuzzed without a change here.
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
#include "fuzz_memfile.h"
#include "fuzz_target.h"
#include "report.h"
#include "roce_engine.h"
#include "writers.h"

#define ERR_LEN      512
#define FLOWS_MIN    4u
#define FLOWS_SPAN   29u
#define REPORT_TOP   5u

/* Every writer of the table, each writing to out (not only those a
 * command line could choose together). */
static void fz_writers(struct roce_writers *ws, FILE *out)
{
    memset(ws, 0, sizeof *ws);
    for (unsigned i = 0; i < roce_writers_count; i++) {
        ws->run[i].w = &roce_writers[i];
        ws->run[i].fp = out;
        ws->needs |= roce_writers[i].needs;
    }
    ws->n = roce_writers_count;
    ws->main = &ws->run[0];
}

/* Read every frame of c into e and the writers, as rocescope.c does.
 * Returns the error text when reading stopped early, else NULL. */
static const char *fz_read(struct roce_capture *c, struct roce_engine *e, struct roce_writers *ws)
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
        roce_writers_frame(ws, e, &in, &out);
    }
    return st == ROCE_CAPTURE_ERROR ? roce_capture_error(c) : NULL;
}

/* The report of e (of the capture at path) by every writer that writes
 * one, to out. */
static void fz_write_reports(struct roce_engine *e, const struct roce_config *cfg,
                             const char *path, const char *link_type, const char *error,
                             const struct roce_writers *ws, FILE *out)
{
    const char *const files[] = {path}; /* read again by a writer that does (--annotate) */
    struct roce_report rep;

    memset(&rep, 0, sizeof rep);
    rep.files = files;
    rep.n_files = 1;
    rep.link_type = link_type;
    rep.cfg = cfg;
    rep.error = error;
    if (roce_report_build(&rep, e) == 0) {
        const struct roce_writer_doc doc = {&rep, ROCE_WRITE_FILES, REPORT_TOP};
        for (unsigned i = 0; i < ws->n; i++)
            if (ws->run[i].w->ops->report != NULL)
                ws->run[i].w->ops->report(&ws->run[i], out, &doc);
    }
    roce_report_free(&rep);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *devnull = fz_devnull();
    char path[FZ_PATH_LEN], err[ERR_LEN];
    struct roce_writers ws;
    const struct roce_writer *failed;
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
    fz_writers(&ws, devnull);
    if (roce_writers_start(&ws, &failed) != 0)
        abort(); /* the writers' states are small */
    cfg.on_verdict = roce_writers_verdict;
    cfg.ctx = &ws;
    struct roce_engine *e = roce_engine_new(&cfg);
    if (e == NULL)
        abort(); /* a valid configuration */
    const char *error = fz_read(c, e, &ws);
    roce_engine_finish(e);
    roce_writers_finish(&ws, e);
    fz_write_reports(e, &cfg, path, roce_capture_linktype_name(c), error, &ws, devnull);
    roce_engine_free(e);
    roce_writers_stop(&ws);
out_capture:
    roce_capture_close(c);
out_fd:
    close(fd);
    return 0;
}
