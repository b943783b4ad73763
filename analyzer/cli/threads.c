/*
 * threads.c - `rocescope -T N`: one capture, N engines (see threads.h).
 *
 * The split is the engine's (roce_split.h: which frames a part takes, the
 * proof that the parts' results are the one engine's, the flow ids one
 * engine gives); here are the threads and the spools. Each part runs in a
 * thread of its own, reads every file itself (the mapped file: reading is
 * cheap next to the analysis) and hands every frame to its part of the
 * split. Its settled verdicts go to a spool file with the frame at which the
 * part delivered them. Afterwards the calling thread
 *
 *   1. asks the engine whether the split gave what one engine gives
 *      (roce_split_exact, over the spooled verdicts in frame order), after
 *      its own checks: the parts created at most max_flows in all (counted
 *      while they run: they stop early), no allocation or spool write
 *      failed. When a check fails, nothing has been written: the caller
 *      analyses the files with one engine;
 *   2. numbers the flows as one engine does (roce_split_number);
 *   3. hands the verdicts in frame order, flow ids renumbered, to the
 *      writers that take verdicts, the problems with files where a plain run
 *      prints them; or merges the parts' reports (roce_report_merge_part; the
 *      MAC table in the order of the frames that made its entries).
 * A writer that needs every frame (the HTML report's series) makes one
 * engine analyse.
 */
#define _DEFAULT_SOURCE
#include "threads.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "capture.h"
#include "output.h"
#include "roce_split.h"

#define SPOOL_BUFFER (256u * 1024u)
#define TRACE_ENV    "ROCESCOPE_THREADS_TRACE" /* say on stderr whether the split was used */

/* A settled verdict and the frame at which its part delivered it. */
struct spool_rec {
    struct roce_verdict v;
    uint64_t delivered; /* UINT64_MAX: at the end */
};

struct split;

/* One part of the split analysis. */
struct part {
    struct split *sp;
    unsigned idx;
    struct roce_split_part *split; /* the engine's part, with its engine */
    struct roce_analysis a;
    FILE *spool;
    char *spool_buf;
    int spool_failed;
    struct roce_report rep;
    char (*msg)[ROCE_ANALYSIS_ERR_LEN]; /* each file's problem, when failed */
    int *failed;
    uint64_t *file_end; /* the last frame number after each file */
    int oom;
    pthread_t thread;
    int started;
    /* the spool as it is read back */
    struct spool_rec head;
    int has_head;
};

struct split {
    const struct roce_cli_options *o;
    struct part *parts;
    struct roce_split_part **split; /* each part's part of the engine's split (for the proof) */
    unsigned n;
    int report;     /* build the parts' reports (a writer needs the report) */
    int unreadable; /* the spools could not be read back */
    atomic_int stop;
    atomic_uint_fast64_t created;
};

/* on_verdict of a part's engine. */
static void spool_verdict(const struct roce_verdict *v, void *ctx)
{
    struct part *p = ctx;
    struct spool_rec r;
    r.v = *v;
    r.delivered = roce_split_delivered(p->split);
    if (fwrite(&r, sizeof r, 1, p->spool) != 1)
        p->spool_failed = 1;
}

/* on_flow of a part's engine: stop every part once they created more
 * flows than one engine keeps. */
static void count_flow(uint64_t id, uint64_t frame, void *ctx)
{
    struct part *p = ctx;
    struct split *sp = p->sp;
    (void)id; /* the split notes which frame created which flow */
    (void)frame;
    if (atomic_fetch_add(&sp->created, 1) + 1 > sp->o->cfg.max_flows)
        atomic_store(&sp->stop, 1);
}

static void *run_part(void *arg)
{
    struct part *p = arg;
    const struct roce_cli_options *o = p->sp->o;
    struct roce_config cfg = o->cfg;
    cfg.on_verdict = spool_verdict;
    cfg.on_flow = count_flow;
    cfg.ctx = p;
    p->split = p->sp->split[p->idx] = roce_split_part_new(&cfg, p->idx, p->sp->n);
    if (p->split == NULL) {
        p->oom = 1;
        atomic_store(&p->sp->stop, 1);
        return NULL;
    }
    struct roce_engine *engine = roce_split_engine(p->split);
    p->a.engine = engine;
    p->a.split = p->split;
    p->a.stop = &p->sp->stop;
    for (int i = 0; i < o->n_files; i++) {
        p->failed[i] = roce_analysis_file(&p->a, o->files[i], p->msg[i], sizeof p->msg[i]) != 0;
        p->file_end[i] = p->a.frame;
    }
    roce_split_finish(p->split);
    if (fflush(p->spool) != 0)
        p->spool_failed = 1;
    if (!p->sp->report || !p->a.opened)
        return NULL;
    p->rep.files = (const char *const *)o->files;
    p->rep.n_files = (size_t)o->n_files;
    p->rep.link_type = p->a.link_type;
    p->rep.cfg = &o->cfg;
    p->rep.error = p->a.have_error ? p->a.error : NULL;
    p->rep.files_overlap = (uint8_t)p->a.files_overlap;
    if (roce_report_build(&p->rep, engine) != 0)
        p->oom = 1;
    return NULL;
}

/* The next spooled verdict of every part, in frame order: the part whose
 * head comes first, or NULL at the end. */
static struct part *next_head(struct split *sp)
{
    struct part *best = NULL;
    for (unsigned i = 0; i < sp->n; i++) {
        struct part *p = &sp->parts[i];
        if (!p->has_head && fread(&p->head, sizeof p->head, 1, p->spool) == 1)
            p->has_head = 1;
        if (p->has_head && (best == NULL || p->head.v.frame < best->head.v.frame))
            best = p;
    }
    return best;
}

static int rewind_spools(struct split *sp)
{
    for (unsigned i = 0; i < sp->n; i++) {
        sp->parts[i].has_head = 0;
        if (fseek(sp->parts[i].spool, 0, SEEK_SET) != 0)
            return -1;
    }
    return 0;
}

/* The spooled verdicts in frame order, for roce_split_exact. */
static int next_verdict(void *ctx, struct roce_verdict *v, uint64_t *delivered)
{
    struct split *sp = ctx;
    struct part *p;
    if (sp->unreadable)
        return -1;
    if ((p = next_head(sp)) == NULL)
        return 0;
    *v = p->head.v;
    *delivered = p->head.delivered;
    p->has_head = 0;
    return 1;
}

/* Step 1 (threads.c, head comment): NULL when the split gave what one
 * engine gives, else why not. */
static const char *not_exact(struct split *sp)
{
    if (atomic_load(&sp->stop))
        return "more flows than --max-flows, or out of memory";
    for (unsigned i = 0; i < sp->n; i++)
        if (sp->parts[i].oom || sp->parts[i].spool_failed)
            return "out of memory or spool space";
    sp->unreadable = rewind_spools(sp) != 0;
    return roce_split_exact(sp->split, sp->n, next_verdict, sp);
}

/* The id one engine gives a part's flow (ctx: the part). */
static uint64_t map_id(uint64_t id, void *ctx)
{
    const struct part *p = ctx;
    return roce_split_flow_id(p->split, id);
}

/* Print the problems of the files that ended before frame (all: UINT64_MAX),
 * from *next on, as a plain run prints them after the file's frames. */
static void complain_until(struct split *sp, uint64_t frame, int *next, int *input_problem)
{
    const struct part *p0 = &sp->parts[0];
    for (; *next < sp->o->n_files && p0->file_end[*next] < frame; (*next)++)
        if (p0->failed[*next]) {
            fflush(NULL);
            roce_complain(sp->o->files[*next], p0->msg[*next]);
            *input_problem = 1;
        }
}

/* Step 3, the writers that take verdicts: the verdicts in frame order, the
 * problems of the files (from *next_file on) after their frames. */
static void write_verdicts(struct split *sp, struct roce_writers *ws, int *next_file,
                           int *input_problem)
{
    if (rewind_spools(sp) != 0) {
        for (unsigned i = 0; i < ws->n; i++)
            if (ws->run[i].w->ops->verdict != NULL)
                ws->run[i].failed = 1;
        return;
    }
    for (struct part *p; (p = next_head(sp)) != NULL; p->has_head = 0) {
        struct roce_verdict v = p->head.v;
        if (v.has_flow)
            v.flow_id = map_id(v.flow_id, p);
        complain_until(sp, v.frame, next_file, input_problem);
        roce_writers_verdict(&v, ws);
    }
}

/* Step 3, the report: the parts' reports merged. 0 or -1. */
static int merge_reports(struct split *sp, struct roce_report *rep)
{
    if (!sp->parts[0].a.opened)
        return 0;
    for (unsigned i = 0; i < sp->n; i++)
        if (roce_report_merge_part(rep, &sp->parts[i].rep, map_id, &sp->parts[i]) != 0)
            return -1;
    return roce_report_merge_parts_done(rep);
}

static void free_parts(struct split *sp)
{
    for (unsigned i = 0; i < sp->n; i++) {
        struct part *p = &sp->parts[i];
        roce_report_free(&p->rep);
        roce_split_part_free(p->split);
        if (p->spool != NULL)
            fclose(p->spool);
        free(p->spool_buf);
        free(p->msg);
        free(p->failed);
        free(p->file_end);
    }
    free(sp->parts);
    free(sp->split);
}

/* Nonzero when every input can be read by each part (a file, not standard
 * input, a pipe or a compressed file). */
static int inputs_splittable(const struct roce_cli_options *o)
{
    for (int i = 0; i < o->n_files; i++)
        if (!roce_capture_path_reopenable(o->files[i]))
            return 0;
    return 1;
}

/* Start the parts. 0, or -1 (out of memory, or no thread). */
static int start_parts(struct split *sp)
{
    size_t nf = (size_t)sp->o->n_files;
    for (unsigned i = 0; i < sp->n; i++) {
        struct part *p = &sp->parts[i];
        p->sp = sp;
        p->idx = i;
        p->msg = calloc(nf ? nf : 1, sizeof *p->msg);
        p->failed = calloc(nf ? nf : 1, sizeof *p->failed);
        p->file_end = calloc(nf ? nf : 1, sizeof *p->file_end);
        p->spool = tmpfile();
        p->spool_buf = malloc(SPOOL_BUFFER);
        if (p->msg == NULL || p->failed == NULL || p->file_end == NULL || p->spool == NULL ||
            p->spool_buf == NULL)
            return -1;
        setvbuf(p->spool, p->spool_buf, _IOFBF, SPOOL_BUFFER);
    }
    for (unsigned i = 0; i < sp->n; i++) {
        struct part *p = &sp->parts[i];
        if (pthread_create(&p->thread, NULL, run_part, p) != 0) {
            atomic_store(&sp->stop, 1);
            return -1;
        }
        p->started = 1;
    }
    return 0;
}

/* The first writer of ws that needs every frame in order, or NULL. */
static const struct roce_writer *frames_writer(const struct roce_writers *ws)
{
    for (unsigned i = 0; i < ws->n; i++)
        if (ws->run[i].w->needs & ROCE_WRITER_FRAMES)
            return ws->run[i].w;
    return NULL;
}

int roce_threads_run(const struct roce_cli_options *o, struct roce_writers *ws,
                     struct roce_report *rep, int *input_problem)
{
    struct split sp;
    const struct roce_writer *every_frame = frames_writer(ws);
    int rc = 1;
    if (o->threads < 2)
        return 1;
    if (every_frame != NULL) { /* its frames, in order, from one engine */
        if (getenv(TRACE_ENV) != NULL)
            fprintf(stderr, "rocescope: -T %u: one engine: %s\n", o->threads, every_frame->name);
        return 1;
    }
    if (!inputs_splittable(o)) {
        if (getenv(TRACE_ENV) != NULL)
            fprintf(stderr, "rocescope: -T %u: one engine: a stream input\n", o->threads);
        return 1;
    }
    memset(&sp, 0, sizeof sp);
    sp.o = o;
    sp.n = roce_split_parts(o->threads);
    sp.report = (ws->needs & ROCE_WRITER_REPORT) != 0;
    atomic_init(&sp.stop, 0);
    atomic_init(&sp.created, 0);
    sp.parts = calloc(sp.n, sizeof *sp.parts);
    sp.split = calloc(sp.n, sizeof *sp.split);
    if (sp.parts == NULL || sp.split == NULL) {
        free(sp.parts);
        free(sp.split);
        return 1;
    }
    int started = start_parts(&sp) == 0;
    for (unsigned i = 0; i < sp.n; i++)
        if (sp.parts[i].started)
            pthread_join(sp.parts[i].thread, NULL);
    const char *why = started ? not_exact(&sp) : "cannot start the threads";
    if (getenv(TRACE_ENV) != NULL)
        fprintf(stderr, "rocescope: -T %u: %s%s\n", sp.n, why ? "one engine: " : "split",
                why ? why : "");
    if (why == NULL && roce_split_number(sp.split, sp.n) == 0) {
        int next_file = 0;
        roce_report_init(rep);
        if (ws->needs & ROCE_WRITER_VERDICTS)
            write_verdicts(&sp, ws, &next_file, input_problem);
        complain_until(&sp, UINT64_MAX, &next_file, input_problem);
        if (sp.report)
            rc = merge_reports(&sp, rep) != 0 ? -1 : 0;
        else
            rc =
                sp.parts[0].a.opened && roce_report_set_link_type(rep, sp.parts[0].a.link_type) != 0
                    ? -1
                    : 0;
        if (rc != 0) {
            roce_report_free(rep);
            fputs("rocescope: report: out of memory\n", stderr);
        }
    }
    free_parts(&sp);
    return rc;
}
