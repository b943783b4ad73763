/*
 * threads.c - `rocescope -T N`: one capture, N engines (see threads.h).
 *
 * The split is the engine's (roce_split.h: which frames a part takes, the
 * proof that the parts' results are the one engine's, the flow ids one
 * engine gives); here are the threads and the spools. Each part runs in a
 * thread of its own and reads the files itself (walk.h, alone): it numbers
 * every frame, finds each frame's part and analyses its own, passing the
 * others' by. Reading with read(2) costs little beside the analysis, and
 * no frame crosses between threads (BENCHMARKS.md, "Each part reads the
 * files"). READER_ENV "apart" has one reader walk each file once instead,
 * in a thread of its own, and hand each part its own frames in batches
 * through a bounded ring (the parts never see the frames of the others);
 * "first" has that reader in part 0's thread, which then analyses its own
 * frames as it reads them. Each part's settled verdicts go to a spool file
 * with the frame at which the part delivered them. Afterwards the calling
 * thread
 *
 *   1. asks the engine whether the split gave what one engine gives
 *      (roce_split_exact, over the spooled verdicts in frame order), after
 *      its own checks: the parts created at most max_flows in all, no
 *      allocation or spool write failed. What can be known while the parts
 *      run stops them early (the flows they created; after each batch, what
 *      roce_split_doomed says of a part: frames out of time order, PFC
 *      pauses, a bound reached), so that a split that cannot be used costs
 *      a little of the input, not all of it. When a check fails, nothing has
 *      been written: the caller analyses the files with one engine;
 *   2. numbers the flows as one engine does (roce_split_number);
 *   3. hands the verdicts in frame order, flow ids renumbered, to the
 *      writers that take verdicts, the problems with files where a plain run
 *      prints them; or merges the parts' reports (roce_report_merge_part; the
 *      MAC table in the order of the frames that made its entries).
 * A writer that needs every frame (the HTML report's series) makes one
 * engine analyse.
 */
#define _GNU_SOURCE /* RUSAGE_THREAD */
#include "threads.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "analysis.h"
#include "capture.h"
#include "output.h"
#include "roce_split.h"
#include "walk.h"

#define SPOOL_BUFFER    (256u * 1024u)
#define TRACE_ENV       "ROCESCOPE_THREADS_TRACE"  /* say on stderr whether the split was used */
#define READER_ENV      "ROCESCOPE_THREADS_READER" /* "apart", "first": one reader (above) */
#define RING_ENV        "ROCESCOPE_THREADS_RING"   /* tests: "BATCHES,FRAMES" of a part's ring */
#define DOOM_CHECK_MASK 63u /* the reading part asks roce_split_doomed every 64 of its frames */

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
    FILE *spool;
    char *spool_buf;
    int spool_failed;
    struct roce_report rep;
    int oom;
    const char *doomed;   /* why the proof will refuse (roce_split_doomed), or NULL */
    unsigned since_check; /* the reading part's frames, counted for check_doomed */
    /* what the part shows the others of its verdicts (look_open) */
    atomic_uint_fast64_t at_frame, at_oldest, at_count;
    struct roce_walk *walk; /* its own reading of the files (sp->alone), else NULL */
    pthread_t thread;
    int started;
    /* with TRACE_ENV: the frames it was handed, those of another part,
     * those not after the one before */
    uint64_t frames, foreign, unordered, last;
    double cpu_s; /* the thread's processor time */
    /* the spool as it is read back */
    struct spool_rec head;
    int has_head;
};

struct split {
    const struct roce_cli_options *o;
    struct part *parts;
    struct roce_split_part **split; /* each part's part of the engine's split (for the proof) */
    unsigned n;
    struct roce_walk *walk; /* the reader (sp->alone: part 0's own) */
    unsigned reader;        /* the part whose thread reads, or n: a thread of its own */
    int alone;              /* every part reads the files itself (unless READER_ENV) */
    pthread_t reader_thread;
    int reader_started;
    double reader_cpu_s;                /* the reader's own thread's processor time */
    char (*msg)[ROCE_ANALYSIS_ERR_LEN]; /* each file's problem, when failed */
    int *failed;
    uint64_t *file_end; /* the last frame number after each file */
    int trace;
    int report;     /* build the parts' reports (a writer needs the report) */
    int unreadable; /* the spools could not be read back */
    atomic_int stop;
    atomic_uint_fast64_t created;
    atomic_uint reading; /* sp->alone: the parts still reading */
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

/* Read every file through w, the frames handed to their parts (in the
 * reader's thread: part sp->reader's or its own; sp->alone: each part's
 * own reading), each file's problem and last frame kept when record. */
static void read_files(struct split *sp, struct roce_walk *w, int record)
{
    const struct roce_cli_options *o = sp->o;
    char msg[ROCE_ANALYSIS_ERR_LEN];
    for (int i = 0; i < o->n_files; i++) {
        int failed = roce_walk_file(w, o->files[i], record ? sp->msg[i] : msg, sizeof msg) != 0;
        if (record) {
            sp->failed[i] = failed;
            sp->file_end[i] = roce_walk_analysis(w)->frame;
        }
    }
    roce_walk_end(w);
}

/* The calling thread's processor time so far, in seconds. */
static double thread_cpu(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) != 0)
        return 0;
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static void *run_reader(void *arg)
{
    struct split *sp = arg;
    read_files(sp, sp->walk, 1);
    sp->reader_cpu_s = thread_cpu();
    return NULL;
}

/* One frame of part p, with the input's latest time. */
static void part_frame(struct part *p, const struct roce_frame_in *in, int64_t now_ns,
                       struct roce_split_walk *check)
{
    if (check != NULL) {
        int64_t t;
        p->frames++;
        p->foreign += roce_split_walk_frame(check, in, &t) != p->idx;
        p->unordered += in->frame <= p->last;
        p->last = in->frame;
    }
    if (p->split != NULL) /* else out of memory: the frames pass by */
        roce_split_frame(p->split, in, now_ns);
}

/* The verdicts one engine would hold at once, seen from the parts
 * (roce_split.h, roce_split_between): the part's frame, its oldest waiting
 * verdict and its count shown to the others, theirs read (each may be a
 * batch old: the look only stops a split, the proof at the end decides). */
static const char *look_open(struct part *p)
{
    struct split *sp = p->sp;
    uint64_t frame, oldest, from = UINT64_MAX, to = UINT64_MAX, sum = 0;
    /* a part reading the files itself has seen every frame up to where it
     * read (it also looks every ROCE_WALK_PASSED frames it passes by:
     * passed_frames) */
    roce_split_glance(p->split, p->walk != NULL ? roce_walk_analysis(p->walk)->frame : 0, &frame,
                      &oldest);
    /* the oldest first, the frame after it (release), read in the other
     * order (acquire): a frame read comes with its oldest or a later one,
     * never with an earlier one (which, with a later frame, would count
     * verdicts one engine had delivered) */
    atomic_store_explicit(&p->at_oldest, oldest, memory_order_relaxed);
    atomic_store_explicit(&p->at_frame, frame, memory_order_release);
    for (unsigned i = 0; i < sp->n; i++) {
        uint64_t f = atomic_load_explicit(&sp->parts[i].at_frame, memory_order_acquire);
        uint64_t o = atomic_load_explicit(&sp->parts[i].at_oldest, memory_order_relaxed);
        from = o < from ? o : from;
        to = f < to ? f : to;
    }
    atomic_store_explicit(&p->at_count, roce_split_between(p->split, from, to),
                          memory_order_relaxed);
    for (unsigned i = 0; i < sp->n; i++)
        sum += atomic_load_explicit(&sp->parts[i].at_count, memory_order_relaxed);
    return roce_split_open_doomed(&sp->o->cfg, sum);
}

/* Once the part's result can no longer be one engine's, every part stops:
 * the reader at its next look at the stop flag, the parts taking what it
 * had handed on without analysing it. */
static void check_doomed(struct part *p)
{
    if (p->split != NULL && p->doomed == NULL &&
        ((p->doomed = roce_split_doomed(p->split)) != NULL || (p->doomed = look_open(p)) != NULL))
        atomic_store(&p->sp->stop, 1);
}

/* sp->alone: a part done reading still shows the others its waiting
 * verdicts up to where the slowest part has read (look_open: a part that
 * got ahead would otherwise leave its count behind theirs), until every
 * part is done reading or the split is stopped. Its engine is left as it
 * is meanwhile; the part only looks, once a millisecond. */
static void look_while_reading(struct part *p)
{
    const struct timespec ms = {0, 1000000};
    while (p->split != NULL && p->doomed == NULL && atomic_load(&p->sp->reading) > 0 &&
           !atomic_load(&p->sp->stop)) {
        if ((p->doomed = look_open(p)) != NULL)
            atomic_store(&p->sp->stop, 1);
        else
            nanosleep(&ms, NULL);
    }
}

/* walk.h's passed: the part read ROCE_WALK_PASSED more frames of the
 * others' (sp->alone). */
static void passed_frames(void *ctx)
{
    check_doomed(ctx);
}

/* walk.h's own: a frame of the reading part. */
static void own_frame(void *ctx, const struct roce_frame_in *in, int64_t now_ns)
{
    struct part *p = ctx;
    if (p->doomed != NULL)
        return;
    part_frame(p, in, now_ns, NULL);
    p->frames += p->sp->trace;
    if ((++p->since_check & DOOM_CHECK_MASK) == 0)
        check_doomed(p);
}

static void *run_part(void *arg)
{
    struct part *p = arg;
    struct split *sp = p->sp;
    const struct roce_cli_options *o = sp->o;
    struct roce_split_walk check;
    struct roce_config cfg = o->cfg;
    cfg.on_verdict = spool_verdict;
    cfg.on_flow = count_flow;
    cfg.ctx = p;
    /* made in the part's thread: its memory from that thread's arena */
    p->split = sp->split[p->idx] = roce_split_part_new(&cfg, p->idx, sp->n);
    if (p->split == NULL) {
        p->oom = 1;
        atomic_store(&sp->stop, 1);
    }
    roce_split_walk_init(&check, &o->cfg, sp->n);
    struct roce_walk *walk = p->walk != NULL ? p->walk : sp->walk;
    if (p->walk != NULL) {
        read_files(sp, p->walk, p->idx == 0);
        atomic_fetch_sub(&sp->reading, 1);
        look_while_reading(p);
    } else if (p->idx == sp->reader) {
        read_files(sp, sp->walk, 1);
    } else {
        const struct roce_walk_frame *f;
        size_t n;
        while ((n = roce_walk_take(sp->walk, p->idx, &f)) > 0) {
            if (p->doomed != NULL)
                continue;
            for (size_t i = 0; i < n; i++)
                part_frame(p, &f[i].in, f[i].now_ns, sp->trace ? &check : NULL);
            check_doomed(p);
        }
    }
    const struct roce_analysis *a = roce_walk_analysis(walk);
    int64_t now;
    if (p->split == NULL || atomic_load(&sp->stop)) { /* one engine will analyse */
        p->cpu_s = thread_cpu();
        return NULL;
    }
    if (roce_walk_input_time(walk, &now))
        roce_split_input_time(p->split, now);
    roce_split_finish(p->split);
    struct roce_engine *engine = roce_split_engine(p->split);
    if (fflush(p->spool) != 0)
        p->spool_failed = 1;
    if (!sp->report || !a->opened) {
        p->cpu_s = thread_cpu();
        return NULL;
    }
    p->rep.files = (const char *const *)o->files;
    p->rep.n_files = (size_t)o->n_files;
    p->rep.link_type = a->link_type;
    p->rep.cfg = &o->cfg;
    p->rep.error = a->have_error ? a->error : NULL;
    p->rep.files_overlap = (uint8_t)a->files_overlap;
    if (roce_report_build(&p->rep, engine) != 0)
        p->oom = 1;
    p->cpu_s = thread_cpu();
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

/* sp->alone: nonzero when every part read the same input as part 0 (as
 * many frames, files opened, the same problem or none, the same latest
 * time). A file written to or cut short while the parts read it can give
 * them different frames; then one engine reads it, once. */
static int same_input(const struct split *sp)
{
    const struct roce_analysis *a0 = roce_walk_analysis(sp->walk);
    int64_t t0 = 0, t;
    int h0 = roce_walk_input_time(sp->walk, &t0);
    for (unsigned i = 0; sp->alone && i < sp->n; i++) {
        const struct roce_analysis *a = roce_walk_analysis(sp->parts[i].walk);
        t = 0;
        if (a->frame != a0->frame || a->opened != a0->opened || a->have_error != a0->have_error ||
            roce_walk_input_time(sp->parts[i].walk, &t) != h0 || t != t0)
            return 0;
    }
    return 1;
}

/* Step 1 (threads.c, head comment): NULL when the split gave what one
 * engine gives, else why not. */
static const char *not_exact(struct split *sp)
{
    if (atomic_load(&sp->created) > sp->o->cfg.max_flows)
        return "more flows than --max-flows";
    for (unsigned i = 0; i < sp->n; i++)
        if (sp->parts[i].doomed != NULL)
            return sp->parts[i].doomed;
    if (atomic_load(&sp->stop) || roce_walk_failed(sp->walk))
        return "more flows than --max-flows, or out of memory";
    if (!same_input(sp))
        return "the input changed while the parts read it";
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
    for (; *next < sp->o->n_files && sp->file_end[*next] < frame; (*next)++)
        if (sp->failed[*next]) {
            fflush(NULL);
            roce_complain(sp->o->files[*next], sp->msg[*next]);
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
    if (!roce_walk_analysis(sp->walk)->opened)
        return 0;
    for (unsigned i = 0; i < sp->n; i++)
        if (roce_report_merge_part(rep, &sp->parts[i].rep, map_id, &sp->parts[i]) != 0)
            return -1;
    return roce_report_merge_parts_done(rep);
}

static void free_parts(struct split *sp)
{
    for (unsigned i = 0; sp->parts != NULL && i < sp->n; i++) {
        struct part *p = &sp->parts[i];
        roce_report_free(&p->rep);
        roce_split_part_free(p->split);
        if (p->walk != sp->walk)
            roce_walk_free(p->walk);
        if (p->spool != NULL)
            fclose(p->spool);
        free(p->spool_buf);
    }
    roce_walk_free(sp->walk);
    free(sp->msg);
    free(sp->failed);
    free(sp->file_end);
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

/* The reader's ring sizes (RING_ENV, for the tests: "BATCHES,FRAMES"). */
static void ring_sizes(struct roce_walk_cfg *wc)
{
    const char *s = getenv(RING_ENV);
    unsigned b, f;
    if (s != NULL && sscanf(s, "%u,%u", &b, &f) == 2 && b >= 1 && b <= 1024 && f >= 1 &&
        f <= 4096) {
        wc->batches = b;
        wc->frames = f;
    }
}

/* The parts (each with its spool and reader's ring; its engine is made in
 * its thread). 0, or -1 when out of memory. */
static int make_parts(struct split *sp)
{
    const struct roce_cli_options *o = sp->o;
    size_t nf = (size_t)o->n_files;
    const char *reader = getenv(READER_ENV);
    int apart = reader != NULL && strcmp(reader, "apart") == 0;
    int first = reader != NULL && strcmp(reader, "first") == 0;
    sp->alone = !apart && !first;
    sp->reader = apart ? sp->n : 0;
    sp->msg = calloc(nf ? nf : 1, sizeof *sp->msg);
    sp->failed = calloc(nf ? nf : 1, sizeof *sp->failed);
    sp->file_end = calloc(nf ? nf : 1, sizeof *sp->file_end);
    if (sp->msg == NULL || sp->failed == NULL || sp->file_end == NULL)
        return -1;
    for (unsigned i = 0; i < sp->n; i++) {
        struct part *p = &sp->parts[i];
        p->sp = sp;
        p->idx = i;
        atomic_init(&p->at_frame, 0);
        atomic_init(&p->at_oldest, UINT64_MAX);
        atomic_init(&p->at_count, 0);
        p->spool = tmpfile();
        p->spool_buf = malloc(SPOOL_BUFFER);
        if (p->spool == NULL || p->spool_buf == NULL)
            return -1;
        setvbuf(p->spool, p->spool_buf, _IOFBF, SPOOL_BUFFER);
    }
    if (sp->alone) { /* each part's own reading, part 0's the one whose results are kept */
        for (unsigned i = 0; i < sp->n; i++) {
            struct roce_walk_cfg wc = {&o->cfg, sp->n, i,         own_frame, &sp->parts[i],
                                       0,       0,     &sp->stop, 1,         passed_frames};
            if ((sp->parts[i].walk = roce_walk_new(&wc)) == NULL)
                return -1;
        }
        sp->walk = sp->parts[0].walk;
        atomic_store(&sp->reading, sp->n);
        return 0;
    }
    struct roce_walk_cfg wc = {&o->cfg, sp->n, sp->reader, own_frame, NULL,
                               0,       0,     &sp->stop,  0,         NULL};
    if (sp->reader < sp->n)
        wc.ctx = &sp->parts[sp->reader];
    ring_sizes(&wc);
    sp->walk = roce_walk_new(&wc);
    return sp->walk == NULL ? -1 : 0;
}

/* Start the threads: the parts that take frames from a ring first, then
 * the reader (so that no ring is left without its part). 0, or -1 (no
 * thread: the started ones end). */
static int start_parts(struct split *sp)
{
    int fail = 0;
    for (unsigned k = 0; k < sp->n && !fail; k++)
        if (k != sp->reader) {
            struct part *p = &sp->parts[k];
            fail = pthread_create(&p->thread, NULL, run_part, p) != 0;
            p->started = !fail;
        }
    if (!fail && sp->reader == sp->n) {
        fail = pthread_create(&sp->reader_thread, NULL, run_reader, sp) != 0;
        sp->reader_started = !fail;
    } else if (!fail) {
        struct part *p = &sp->parts[sp->reader];
        fail = pthread_create(&p->thread, NULL, run_part, p) != 0;
        p->started = !fail;
    }
    if (fail) { /* no reader runs: the parts that run end */
        atomic_store(&sp->stop, 1);
        roce_walk_end(sp->walk);
        return -1;
    }
    return 0;
}

/* With TRACE_ENV: what each part was handed. */
static void trace_parts(const struct split *sp)
{
    for (unsigned i = 0; i < sp->n; i++) {
        const struct part *p = &sp->parts[i];
        /* the frames read (alone: by the part itself) */
        uint64_t total = roce_walk_analysis(p->walk != NULL ? p->walk : sp->walk)->frame;
        uint64_t rw = 0, pw = 0;
        if (!sp->alone && i != sp->reader)
            roce_walk_waits(sp->walk, i, &rw, &pw);
        fprintf(stderr,
                "rocescope: walk: part %u of %u: %llu of %llu frames, %llu of another part, "
                "%llu out of order, %s, reader waited %llu times, part %llu; %.3f s of CPU\n",
                i, sp->n, (unsigned long long)p->frames, (unsigned long long)total,
                (unsigned long long)p->foreign, (unsigned long long)p->unordered,
                sp->alone         ? "its own reading"
                : i == sp->reader ? "the reader"
                                  : "a ring",
                (unsigned long long)rw, (unsigned long long)pw, p->cpu_s);
    }
    if (sp->reader == sp->n)
        fprintf(stderr, "rocescope: walk: the reader apart: %.3f s of CPU\n", sp->reader_cpu_s);
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
    sp.trace = getenv(TRACE_ENV) != NULL;
    atomic_init(&sp.stop, 0);
    atomic_init(&sp.created, 0);
    atomic_init(&sp.reading, 0);
    sp.parts = calloc(sp.n, sizeof *sp.parts);
    sp.split = calloc(sp.n, sizeof *sp.split);
    if (sp.parts == NULL || sp.split == NULL || make_parts(&sp) != 0) {
        free_parts(&sp);
        return 1;
    }
    int started = start_parts(&sp) == 0;
    for (unsigned i = 0; i < sp.n; i++)
        if (sp.parts[i].started)
            pthread_join(sp.parts[i].thread, NULL);
    if (sp.reader_started)
        pthread_join(sp.reader_thread, NULL);
    const char *why = started ? not_exact(&sp) : "cannot start the threads";
    if (sp.trace)
        fprintf(stderr, "rocescope: -T %u: %s%s\n", sp.n, why ? "one engine: " : "split",
                why ? why : "");
    if (sp.trace && started)
        trace_parts(&sp);
    if (why == NULL && roce_split_number(sp.split, sp.n) == 0) {
        int next_file = 0;
        roce_report_init(rep);
        if (ws->needs & ROCE_WRITER_VERDICTS)
            write_verdicts(&sp, ws, &next_file, input_problem);
        complain_until(&sp, UINT64_MAX, &next_file, input_problem);
        if (sp.report)
            rc = merge_reports(&sp, rep) != 0 ? -1 : 0;
        else
            rc = roce_walk_analysis(sp.walk)->opened &&
                         roce_report_set_link_type(rep, roce_walk_analysis(sp.walk)->link_type) != 0
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
