/*
 * threads.c - `rocescope -T N`: one capture, N engines (see threads.h).
 *
 * Each part runs in a thread of its own, reads every file itself (the
 * mapped file: reading is cheap next to the analysis), numbers every frame
 * and hands its engine the frames whose key (roce_shard_key) falls to it
 * (roce_shard_part: whole classes of address pairs), telling it the latest
 * time of the others. Its settled verdicts go to a
 * spool file with the frame at which the part delivered them; the flows it
 * creates are noted with their frame. Afterwards the calling thread
 *
 *   1. checks that the split gave what one engine gives. One engine's
 *      results depend on the other connections only through engine-wide
 *      bounds and the time of the latest frame, so the split is exact when
 *      the frames are in time order (else the latest time an engine sees
 *      between its frames could differ) and no bound was reached:
 *      - flows: the parts created at most max_flows in all (one engine
 *        evicts only beyond that; counted while they run: they stop early);
 *      - open verdicts: one engine delivers a verdict once it is settled and
 *        all before it are; a part delivers it no earlier than it is
 *        settled, so the latest frame at which a part delivered it or any
 *        verdict before it bounds when one engine delivers it; the verdicts
 *        open at once by that bound stay below max_open_verdicts;
 *      - CE marks (a mark waits at most two CNP windows in time order) and
 *        waiting CNPs (one window): fewer in any such span than their rings
 *        hold;
 *      - CM REQs waiting at once, summed over the parts, within their table;
 *      - the diagnoses' rings (PSN gaps waiting, CNPs waiting for their
 *        DCQCN window): the room the parts made, summed, within the bound;
 *        source MACs, summed, within the MAC table;
 *      (the diagnoses' recent requests need no check: they are kept by
 *      class of address pairs, and a part takes whole classes, so it keeps
 *      for its flows exactly the requests one engine keeps);
 *      - no allocation failed, no bound was reached in a part itself.
 *      When a check fails, nothing has been written: the caller analyses the
 *      files with one engine.
 *   2. numbers the flows as one engine does: in the order of the frames
 *      that created them (a frame creates flows in one part only);
 *   3. writes the verdicts in frame order, flow ids renumbered, the
 *      problems with files where a plain run prints them; or merges the
 *      parts' reports (roce_report_merge_part; the MAC table in the order
 *      of the frames that made its entries).
 * With --html one engine analyses: the page's series takes every frame.
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
    struct roce_engine *engine;
    struct roce_analysis a;
    int finishing;
    FILE *spool;
    char *spool_buf;
    int spool_failed;
    uint64_t *created; /* the frame that created each flow, by id - 1 */
    size_t n_created, cap_created;
    uint64_t *map; /* id - 1 -> id one engine gives */
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
    unsigned n;
    int report; /* build the parts' reports (not --events) */
    atomic_int stop;
    atomic_uint_fast64_t created;
};

/* on_verdict of a part's engine. */
static void spool_verdict(const struct roce_verdict *v, void *ctx)
{
    struct part *p = ctx;
    struct spool_rec r;
    r.v = *v;
    r.delivered = p->finishing ? UINT64_MAX : p->a.frame;
    if (fwrite(&r, sizeof r, 1, p->spool) != 1)
        p->spool_failed = 1;
}

/* on_flow of a part's engine: note the frame; stop every part once they
 * created more flows than one engine keeps. */
static void note_flow(uint64_t id, uint64_t frame, void *ctx)
{
    struct part *p = ctx;
    struct split *sp = p->sp;
    (void)id; /* ids count up from 1: the next entry */
    if (p->n_created == p->cap_created) {
        size_t cap = p->cap_created ? p->cap_created * 2 : 1024;
        uint64_t *c = realloc(p->created, cap * sizeof *c);
        if (c == NULL) {
            p->oom = 1;
            atomic_store(&sp->stop, 1);
            return;
        }
        p->created = c;
        p->cap_created = cap;
    }
    p->created[p->n_created++] = frame;
    if (atomic_fetch_add(&sp->created, 1) + 1 > sp->o->cfg.max_flows)
        atomic_store(&sp->stop, 1);
}

static void *run_part(void *arg)
{
    struct part *p = arg;
    const struct roce_cli_options *o = p->sp->o;
    struct roce_config cfg = o->cfg;
    cfg.on_verdict = spool_verdict;
    cfg.on_flow = note_flow;
    cfg.ctx = p;
    p->engine = roce_engine_new(&cfg);
    if (p->engine == NULL) {
        p->oom = 1;
        atomic_store(&p->sp->stop, 1);
        return NULL;
    }
    p->a.engine = p->engine;
    /* the classes this part takes, found once rather than per frame */
    p->a.split = 1;
    for (unsigned c = 0; c < ROCE_SHARD_CLASSES; c++)
        if (roce_shard_part(c, p->sp->n) == p->idx)
            p->a.classes |= 1u << c;
    p->a.cfg = &o->cfg;
    p->a.stop = &p->sp->stop;
    for (int i = 0; i < o->n_files; i++) {
        p->failed[i] = roce_analysis_file(&p->a, o->files[i], p->msg[i], sizeof p->msg[i]) != 0;
        p->file_end[i] = p->a.frame;
    }
    if (p->a.have_latest)
        roce_engine_note_time(p->engine, p->a.latest_ns);
    p->finishing = 1;
    roce_engine_finish(p->engine);
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
    if (roce_report_build(&p->rep, p->engine) != 0)
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

/* A queue of 64-bit values (frames, times) for the checks. */
struct queue {
    uint64_t *v;
    size_t head, n, cap;
};

static int queue_push(struct queue *q, uint64_t x)
{
    if (q->n == q->cap) {
        size_t cap = q->cap ? q->cap * 2 : 1024;
        uint64_t *v = malloc(cap * sizeof *v);
        if (v == NULL)
            return -1;
        for (size_t i = 0; i < q->n; i++)
            v[i] = q->v[(q->head + i) % q->cap];
        free(q->v);
        q->v = v;
        q->head = 0;
        q->cap = cap;
    }
    q->v[(q->head + q->n++) % q->cap] = x;
    return 0;
}

static uint64_t queue_front(const struct queue *q)
{
    return q->v[q->head];
}

static void queue_pop(struct queue *q)
{
    q->head = (q->head + 1) % q->cap;
    q->n--;
}

/* Step 1's checks on the verdicts (threads.c, head comment): nonzero when
 * one engine would not have reached the bounds. */
static int verdicts_within_bounds(struct split *sp, const struct roce_engine_usage *u)
{
    const struct roce_config *cfg = &sp->o->cfg;
    const uint64_t w = (uint64_t)cfg->cnp_window_ns;
    struct queue open = {0}, ce = {0}, cnp = {0};
    uint64_t bound = 0;
    int ok = rewind_spools(sp) == 0;
    for (struct part *p; ok && (p = next_head(sp)) != NULL; p->has_head = 0) {
        const struct roce_verdict *v = &p->head.v;
        uint64_t x = v->frame, ts = (uint64_t)v->ts_ns;
        if (p->head.delivered > bound)
            bound = p->head.delivered;
        while (open.n && queue_front(&open) < x)
            queue_pop(&open);
        ok = open.n < cfg->max_open_verdicts && queue_push(&open, bound) == 0;
        if (ok && (v->flags & ROCE_V_CE)) {
            while (ce.n && queue_front(&ce) + 2 * w < ts)
                queue_pop(&ce);
            ok = ce.n < u->ce_ring_max && queue_push(&ce, ts) == 0;
        }
        if (ok && (v->flags & ROCE_V_CNP)) {
            while (cnp.n && queue_front(&cnp) + w < ts)
                queue_pop(&cnp);
            ok = cnp.n < u->cnp_ring_max && queue_push(&cnp, ts) == 0;
        }
    }
    free(open.v);
    free(ce.v);
    free(cnp.v);
    return ok;
}

/* Step 1 (threads.c, head comment): NULL when the split gave what one
 * engine gives, else why not. */
static const char *not_exact(struct split *sp)
{
    struct roce_engine_usage u = {0};
    uint64_t cm_peak = 0, gaps = 0, cnps = 0, macs = 0;
    if (atomic_load(&sp->stop))
        return "more flows than --max-flows, or out of memory";
    for (unsigned i = 0; i < sp->n; i++) {
        struct part *p = &sp->parts[i];
        if (p->oom || p->spool_failed)
            return "out of memory or spool space";
        if (p->a.out_of_order)
            return "frames out of time order";
        const struct roce_totals *t = roce_engine_totals(p->engine);
        if (t->alloc_failures || t->verdicts_forced || t->ce_tracking_overflow ||
            t->cnp_tracking_overflow || t->flows_evicted || t->macs_untracked)
            return "a bound reached in a part";
        roce_engine_usage(p->engine, &u);
        cm_peak += u.cm_pending_peak;
        gaps += u.gap_ring_room;
        cnps += u.dcqcn_ring_room;
        macs += u.macs;
    }
    if (cm_peak > u.cm_pending_max)
        return "CM REQs waiting";
    if (gaps > u.gap_ring_max || cnps > u.dcqcn_ring_max)
        return "PSN gaps or CNPs waiting for their DCQCN window near their bounds";
    if (macs > u.macs_max)
        return "more source MACs than one engine keeps";
    if (!verdicts_within_bounds(sp, &u))
        return "open verdicts, CE marks or CNPs near their bounds";
    return NULL;
}

/* Step 2: the ids one engine gives, in the order of the creating frames. */
static int number_flows(struct split *sp)
{
    size_t *at = calloc(sp->n, sizeof *at);
    if (at == NULL)
        return -1;
    for (unsigned i = 0; i < sp->n; i++) {
        struct part *p = &sp->parts[i];
        p->map = malloc((p->n_created ? p->n_created : 1) * sizeof *p->map);
        if (p->map == NULL) {
            free(at);
            return -1;
        }
    }
    for (uint64_t id = 1;; id++) {
        struct part *best = NULL;
        unsigned bi = 0;
        for (unsigned i = 0; i < sp->n; i++) {
            struct part *p = &sp->parts[i];
            if (at[i] < p->n_created &&
                (best == NULL || p->created[at[i]] < best->created[at[bi]])) {
                best = p;
                bi = i;
            }
        }
        if (best == NULL)
            break;
        best->map[at[bi]++] = id;
    }
    free(at);
    return 0;
}

static uint64_t map_id(uint64_t id, void *ctx)
{
    const struct part *p = ctx;
    return id >= 1 && id <= p->n_created ? p->map[id - 1] : id;
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

/* Step 3, --events: the verdicts in frame order. */
static void write_events(struct split *sp, struct roce_events *events, int *input_problem)
{
    int next_file = 0;
    if (rewind_spools(sp) != 0) {
        events->failed = 1;
        return;
    }
    for (struct part *p; (p = next_head(sp)) != NULL; p->has_head = 0) {
        struct roce_verdict v = p->head.v;
        if (v.has_flow)
            v.flow_id = map_id(v.flow_id, p);
        complain_until(sp, v.frame, &next_file, input_problem);
        roce_events_write(&v, events);
    }
    complain_until(sp, UINT64_MAX, &next_file, input_problem);
}

/* Step 3, the report: the parts' reports merged. 0 or -1. */
static int merge_reports(struct split *sp, struct roce_report *rep, int *input_problem)
{
    int next_file = 0;
    complain_until(sp, UINT64_MAX, &next_file, input_problem);
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
        roce_engine_free(p->engine);
        if (p->spool != NULL)
            fclose(p->spool);
        free(p->spool_buf);
        free(p->created);
        free(p->map);
        free(p->msg);
        free(p->failed);
        free(p->file_end);
    }
    free(sp->parts);
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

int roce_threads_run(const struct roce_cli_options *o, struct roce_events *events,
                     struct roce_report *rep, int *input_problem)
{
    struct split sp;
    int rc = 1;
    if (o->threads < 2)
        return 1;
    if (o->html != NULL) { /* the HTML report's series takes every frame in order */
        if (getenv(TRACE_ENV) != NULL)
            fprintf(stderr, "rocescope: -T %u: one engine: the HTML report\n", o->threads);
        return 1;
    }
    if (!inputs_splittable(o)) {
        if (getenv(TRACE_ENV) != NULL)
            fprintf(stderr, "rocescope: -T %u: one engine: a stream input\n", o->threads);
        return 1;
    }
    memset(&sp, 0, sizeof sp);
    sp.o = o;
    /* a part takes whole classes of address pairs: parts beyond the
     * classes would read every frame and get none */
    sp.n = o->threads < ROCE_SHARD_CLASSES ? o->threads : ROCE_SHARD_CLASSES;
    sp.report = events == NULL;
    atomic_init(&sp.stop, 0);
    atomic_init(&sp.created, 0);
    sp.parts = calloc(sp.n, sizeof *sp.parts);
    if (sp.parts == NULL)
        return 1;
    int started = start_parts(&sp) == 0;
    for (unsigned i = 0; i < sp.n; i++)
        if (sp.parts[i].started)
            pthread_join(sp.parts[i].thread, NULL);
    const char *why = started ? not_exact(&sp) : "cannot start the threads";
    if (getenv(TRACE_ENV) != NULL)
        fprintf(stderr, "rocescope: -T %u: %s%s\n", sp.n, why ? "one engine: " : "split",
                why ? why : "");
    if (why == NULL && number_flows(&sp) == 0) {
        roce_report_init(rep);
        if (events != NULL) {
            write_events(&sp, events, input_problem);
            rc =
                sp.parts[0].a.opened && roce_report_set_link_type(rep, sp.parts[0].a.link_type) != 0
                    ? -1
                    : 0;
        } else {
            rc = merge_reports(&sp, rep, input_problem) != 0 ? -1 : 0;
        }
        if (rc != 0) {
            roce_report_free(rep);
            fputs("rocescope: report: out of memory\n", stderr);
        }
    }
    free_parts(&sp);
    return rc;
}
