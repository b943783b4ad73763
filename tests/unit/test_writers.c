/*
 * test_writers.c - the table of output writers (analyzer/writers/writers.h)
 * and the run of the writers chosen:
 *   - every row has the operations for what it says it needs (a report
 *     writer writes one, a verdict writer takes them, a frame writer takes
 *     frames, a writer of a file of its own is chosen by an option that
 *     takes the path, a stream writes no document, one that merge runs
 *     writes a report), options are unique, one row is the default of the
 *     -o output;
 *   - the writers of a run: the default when nothing is chosen, the chosen
 *     one of -o first with its path, the files of their own after it, what
 *     they need; which take a -j file's verdicts replayed;
 *   - driven through an engine: --events writes a line per settled verdict
 *     and says so when its stream fails, the summary and the HTML page are
 *     written from the report.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocegen_build.h"
#include "test_util.h"
#include "writers.h"

#define T0_NS   1700000000000000000LL
#define STEP_NS 1000

/* The row of the table chosen by option (NULL: the default). */
static int row_of(const char *option)
{
    for (unsigned i = 0; i < roce_writers_count; i++) {
        const char *o = roce_writers[i].option;
        if ((o == NULL && option == NULL) || (o != NULL && option != NULL && !strcmp(o, option)))
            return (int)i;
    }
    return -1;
}

static void test_rows(void)
{
    unsigned defaults = 0;
    CU_ASSERT(roce_writers_count <= ROCE_WRITERS_MAX);
    for (unsigned i = 0; i < roce_writers_count; i++) {
        const struct roce_writer *w = &roce_writers[i];
        const struct roce_writer_ops *o = w->ops;
        CU_ASSERT_PTR_NOT_NULL_FATAL(o);
        CU_ASSERT_PTR_NOT_NULL(w->name);
        CU_ASSERT(!(w->needs & ROCE_WRITER_REPORT) == !o->report);
        CU_ASSERT(!(w->needs & ROCE_WRITER_VERDICTS) == !o->verdict);
        CU_ASSERT(!(w->needs & ROCE_WRITER_FRAMES) == !o->frame);
        CU_ASSERT(!(w->needs & ROCE_WRITER_PATH) || w->option != NULL);
        CU_ASSERT(!(w->needs & ROCE_WRITER_STREAM) ||
                  (!(w->needs & ROCE_WRITER_REPORT) && (w->needs & ROCE_WRITER_VERDICTS)));
        CU_ASSERT(o->absorb == NULL || (o->start != NULL && o->stop != NULL));
        CU_ASSERT(!(w->needs & ROCE_WRITER_MERGED) || (w->needs & ROCE_WRITER_REPORT));
        /* reading the files again: for a document of its own, never from a report alone */
        CU_ASSERT(!(w->needs & ROCE_WRITER_FILES) ||
                  ((w->needs & ROCE_WRITER_REPORT) && (w->needs & ROCE_WRITER_PATH) &&
                   !(w->needs & ROCE_WRITER_MERGED)));
        if (w->option == NULL) {
            defaults++;
            CU_ASSERT(!(w->needs & ROCE_WRITER_PATH) && (w->needs & ROCE_WRITER_REPORT));
        } else {
            CU_ASSERT(strncmp(w->option, "--", 2) == 0);
            CU_ASSERT_EQUAL(row_of(w->option), (int)i);
        }
    }
    CU_ASSERT_EQUAL(defaults, 1);
}

static void test_runs(void)
{
    struct roce_outputs o;
    struct roce_writers ws;
    int json = row_of("--json"), html = row_of("--html"), events = row_of("--events");
    CU_ASSERT_FATAL(json >= 0 && html >= 0 && events >= 0);

    memset(&o, 0, sizeof o);
    o.output = "r.txt";
    roce_writers_init(&ws, &o);
    CU_ASSERT_EQUAL(ws.n, 1);
    CU_ASSERT_PTR_EQUAL(ws.main, &ws.run[0]);
    CU_ASSERT_PTR_EQUAL(ws.main->w, &roce_writers[row_of(NULL)]);
    CU_ASSERT_STRING_EQUAL(ws.main->path, "r.txt");
    CU_ASSERT_PTR_EQUAL(roce_writers_main(&o), ws.main->w);

    o.chosen = 1u << json | 1u << html;
    o.path[html] = "p.html";
    roce_writers_init(&ws, &o);
    CU_ASSERT_EQUAL_FATAL(ws.n, 2);
    CU_ASSERT_PTR_EQUAL(ws.main, &ws.run[0]);
    CU_ASSERT_PTR_EQUAL(ws.run[0].w, &roce_writers[json]);
    CU_ASSERT_PTR_EQUAL(ws.run[1].w, &roce_writers[html]);
    CU_ASSERT_STRING_EQUAL(ws.run[1].path, "p.html");
    CU_ASSERT_EQUAL(ws.needs, roce_writers[json].needs | roce_writers[html].needs);
    CU_ASSERT(!roce_writers_need_replay(&ws)); /* the page's series is merged per file */

    o.chosen = 1u << events;
    roce_writers_init(&ws, &o);
    CU_ASSERT_PTR_EQUAL(ws.main->w, &roce_writers[events]);
    CU_ASSERT(roce_writers_need_replay(&ws));
}

/* A connection with a PSN gap (PSN 2 missing) through an engine whose
 * verdicts and frames go to the writers. */
static void feed(struct roce_writers *ws, struct roce_config *cfg, struct roce_report *rep,
                 struct roce_engine **e)
{
    roce_config_default(cfg);
    cfg->on_verdict = roce_writers_verdict;
    cfg->ctx = ws;
    *e = roce_engine_new(cfg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(*e);
    for (uint32_t psn = 0; psn < 5; psn++) {
        struct rg_spec s;
        uint8_t b[256];
        struct roce_frame_out out;
        if (psn == 2)
            continue;
        rg_spec_init(&s);
        s.dqpn = 0x12;
        s.psn = psn;
        int n = rg_build(&s, b, sizeof b, NULL);
        CU_ASSERT_FATAL(n > 0);
        struct roce_frame_in in = {psn + 1, T0_NS + psn * STEP_NS, ROCE_LINKTYPE_ETHERNET,
                                   b,       (uint32_t)n,           (uint32_t)n};
        roce_engine_frame(*e, &in, &out);
        roce_writers_frame(ws, *e, &in, &out);
    }
    roce_engine_finish(*e);
    roce_writers_finish(ws, *e);
    static const char *const files[] = {"test.pcap"};
    memset(rep, 0, sizeof *rep);
    rep->files = files;
    rep->n_files = 1;
    rep->link_type = "EN10MB";
    rep->cfg = cfg;
    CU_ASSERT_EQUAL_FATAL(roce_report_build(rep, *e), 0);
}

static void test_through_an_engine(void)
{
    struct roce_outputs o;
    struct roce_writers ws;
    struct roce_config cfg;
    struct roce_report rep;
    struct roce_engine *e;
    const struct roce_writer *failed = NULL;
    char *events = NULL, *page = NULL;
    size_t n_events = 0, n_page = 0;
    memset(&o, 0, sizeof o);
    o.chosen = 1u << row_of("--events") | 1u << row_of("--html");
    o.path[row_of("--html")] = "p.html";
    roce_writers_init(&ws, &o);
    CU_ASSERT_EQUAL_FATAL(roce_writers_start(&ws, &failed), 0);
    ws.run[0].fp = open_memstream(&events, &n_events);
    CU_ASSERT_PTR_NOT_NULL_FATAL(ws.run[0].fp);
    feed(&ws, &cfg, &rep, &e);
    fclose(ws.run[0].fp);
    CU_ASSERT_FALSE(roce_writers_failed(&ws));
    CU_ASSERT(events != NULL && strstr(events, "\"verdicts\":[\"gap\"]") != NULL);
    CU_ASSERT(events != NULL && strchr(events, '\n') == events + n_events - 1); /* one line */
    FILE *f = open_memstream(&page, &n_page);
    const struct roce_writer_doc doc = {&rep, ROCE_WRITE_FILES, 5};
    CU_ASSERT_EQUAL(ws.run[1].w->ops->report(&ws.run[1], f, &doc), 0);
    fclose(f);
    CU_ASSERT(page != NULL && strncmp(page, "<!DOCTYPE html>", 15) == 0);
    roce_report_free(&rep);
    roce_engine_free(e);
    roce_writers_stop(&ws);
    free(events);
    free(page);
}

/* --events into a stream that cannot take it: the run says so. */
static void test_stream_fails(void)
{
    struct roce_outputs o;
    struct roce_writers ws;
    struct roce_config cfg;
    struct roce_report rep;
    struct roce_engine *e;
    char tiny[8];
    memset(&o, 0, sizeof o);
    o.chosen = 1u << row_of("--events");
    roce_writers_init(&ws, &o);
    ws.main->fp = fmemopen(tiny, sizeof tiny, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(ws.main->fp);
    setvbuf(ws.main->fp, NULL, _IONBF, 0);
    feed(&ws, &cfg, &rep, &e);
    fclose(ws.main->fp);
    CU_ASSERT_TRUE(roce_writers_failed(&ws));
    roce_report_free(&rep);
    roce_engine_free(e);
}

static const struct tu_test tests[] = {
    {"rows", test_rows},
    {"runs", test_runs},
    {"through_an_engine", test_through_an_engine},
    {"stream_fails", test_stream_fails},
    TU_END,
};

int main(int argc, char **argv)
{
    return tu_main1(argc, argv, "writers", tests);
}
