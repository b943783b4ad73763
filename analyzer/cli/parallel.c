/*
 * parallel.c - `rocescope -j N`: files analysed in worker threads, reports
 * merged in file order (see parallel.h).
 *
 * Workers take the next file (at most WINDOW_PER_JOB x jobs files ahead of
 * the merge, so memory stays bounded however many files there are), run it
 * through an engine of their own (engines are independent), and build its
 * report, which borrows from that engine. The calling thread waits for the
 * files in order, prints their problems, replays their verdicts to the
 * writers that take them (--events), merges the writers' states of the
 * file (the HTML report's series) and the reports, and frees the engines.
 * The engines never meet: the only shared state is the job table under one
 * mutex.
 */
#define _DEFAULT_SOURCE
#include "parallel.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "output.h"

#define WINDOW_PER_JOB 2

struct job {
    const char *path;
    struct roce_engine *engine;
    struct roce_report rep;            /* borrows from engine */
    char msg[ROCE_ANALYSIS_ERR_LEN];   /* the file's problem, when failed */
    char error[ROCE_ANALYSIS_ERR_LEN]; /* its read error, for the report */
    FILE *spool;                       /* the settled verdicts, binary, in frame order, to replay */
    int spool_failed;
    struct roce_writers part; /* the writers' states of the file (the HTML report's series) */
    int failed;               /* the file had a problem (msg) */
    int oom;
    int done;
};

struct pool {
    const struct roce_cli_options *o;
    struct job *jobs;
    size_t n, next, merged, window;
    int replay;              /* keep each file's verdicts to replay them */
    struct roce_writers *ws; /* the run's writers: where the files' verdicts and states go */
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

/* on_verdict of a worker's engine: keep the record for the in-order replay,
 * and hand it to the file's writers. */
static void job_verdict(const struct roce_verdict *v, void *ctx)
{
    struct job *j = ctx;
    if (j->spool != NULL && fwrite(v, sizeof *v, 1, j->spool) != 1)
        j->spool_failed = 1;
    roce_writers_verdict(v, &j->part);
}

/* Analyse one file and build its report (in a worker). */
static void run_job(struct pool *p, struct job *j)
{
    struct roce_config cfg = p->o->cfg;
    struct roce_analysis a;
    memset(&a, 0, sizeof a);
    if (p->replay) {
        j->spool = tmpfile();
        j->spool_failed = j->spool == NULL; /* an output problem, found at the replay */
    }
    if (roce_writers_part(p->ws, &j->part) != 0) {
        j->oom = 1;
        return;
    }
    if (j->part.needs & ROCE_WRITER_FRAMES) {
        a.on_frame = roce_writers_frame;
        a.frame_ctx = &j->part;
    }
    if (j->spool != NULL || (j->part.needs & ROCE_WRITER_VERDICTS)) {
        cfg.on_verdict = job_verdict;
        cfg.ctx = j;
    }
    a.engine = j->engine = roce_engine_new(&cfg);
    if (j->engine == NULL) {
        j->oom = 1;
        return;
    }
    j->failed = roce_analysis_file(&a, j->path, j->msg, sizeof j->msg) != 0;
    roce_engine_finish(j->engine);
    roce_writers_finish(&j->part, j->engine);
    j->rep.files = &j->path;
    j->rep.n_files = 1;
    j->rep.link_type = a.opened ? a.link_type : NULL;
    j->rep.cfg = &p->o->cfg;
    if (a.have_error) {
        memcpy(j->error, a.error, sizeof j->error);
        j->rep.error = j->error;
    }
    j->oom = roce_report_build(&j->rep, j->engine) != 0;
}

/* A worker thread: takes the next file while the merge is not too far
 * behind, analyses it, marks it done. */
static void *worker(void *arg)
{
    struct pool *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (p->next < p->n && p->next >= p->merged + p->window)
            pthread_cond_wait(&p->cv, &p->mu);
        if (p->next >= p->n)
            break;
        struct job *j = &p->jobs[p->next++];
        pthread_mutex_unlock(&p->mu);
        run_job(p, j);
        pthread_mutex_lock(&p->mu);
        j->done = 1;
        pthread_cond_broadcast(&p->cv);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* A frame number of a file, numbered on after the frames before it. */
static void shift(uint64_t *frame, uint64_t offset)
{
    if (*frame)
        *frame += offset;
}

/* Replay a file's spooled verdicts to the writers, with its frames numbered
 * on from offset and its flow ids from id_offset. */
static void replay_verdicts(struct job *j, uint64_t offset, uint64_t id_offset,
                            struct roce_writers *ws)
{
    struct roce_verdict v;
    if (j->spool_failed || fflush(j->spool) != 0 || fseek(j->spool, 0, SEEK_SET) != 0) {
        roce_writers_replay_lost(ws);
        return;
    }
    while (fread(&v, sizeof v, 1, j->spool) == 1) {
        shift(&v.frame, offset);
        shift(&v.flow_id, id_offset);
        shift(&v.episode_frame, offset);
        shift(&v.nak_frame, offset);
        shift(&v.retransmitted_in, offset);
        shift(&v.cnp_frame, offset);
        shift(&v.cnp_for_frame, offset);
        shift(&v.reuse_frame, offset);
        shift(&v.gap_decided_by, offset);
        shift(&v.reorder_gap_frame, offset);
        shift(&v.response_frame, offset);
        roce_writers_replay(&v, ws);
    }
    if (ferror(j->spool))
        roce_writers_replay_lost(ws);
}

/* Wait for job i, report it, merge it, free it. 0, or -1 when out of memory. */
static int merge_job(struct pool *p, size_t i, struct roce_report *rep, int *input_problem)
{
    struct job *j = &p->jobs[i];
    int rc = 0;
    pthread_mutex_lock(&p->mu);
    while (!j->done)
        pthread_cond_wait(&p->cv, &p->mu);
    pthread_mutex_unlock(&p->mu);
    if (j->oom || roce_report_merge(rep, &j->rep) != 0) {
        fputs("rocescope: report: out of memory\n", stderr);
        rc = -1;
    } else {
        uint64_t frames = rep->t.packets - j->rep.t.packets;
        uint64_t ids = rep->t.flows_created - j->rep.t.flows_created;
        const struct roce_writer *left_out;
        if (p->replay)
            replay_verdicts(j, frames, ids, p->ws);
        if ((left_out = roce_writers_absorb(p->ws, &j->part, frames, ids)) != NULL)
            fprintf(stderr, "rocescope: %s: out of memory (series left out)\n", left_out->option);
    }
    if (j->failed) { /* after the file's events, as a plain run */
        fflush(NULL);
        roce_complain(j->path, j->msg);
        *input_problem = 1;
    }
    roce_report_free(&j->rep);
    roce_engine_free(j->engine);
    roce_writers_stop(&j->part);
    if (j->spool != NULL)
        fclose(j->spool);
    pthread_mutex_lock(&p->mu);
    p->merged = i + 1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    return rc;
}

int roce_parallel_run(const struct roce_cli_options *o, struct roce_writers *ws,
                      struct roce_report *rep, int *input_problem)
{
    struct pool p = {.o = o,
                     .n = (size_t)o->n_files,
                     .replay = roce_writers_need_replay(ws),
                     .ws = ws,
                     .mu = PTHREAD_MUTEX_INITIALIZER,
                     .cv = PTHREAD_COND_INITIALIZER};
    size_t n_threads = o->jobs < p.n ? o->jobs : p.n, started = 0;
    pthread_t *threads = calloc(n_threads ? n_threads : 1, sizeof *threads);
    int rc = 0;

    roce_report_init(rep);
    rep->own.cfg = o->cfg;
    p.window = WINDOW_PER_JOB * n_threads;
    p.jobs = calloc(p.n ? p.n : 1, sizeof *p.jobs);
    if (threads == NULL || p.jobs == NULL) {
        fputs("rocescope: out of memory\n", stderr);
        free(threads);
        free(p.jobs);
        return -1;
    }
    for (size_t i = 0; i < p.n; i++)
        p.jobs[i].path = o->files[i];
    while (started < n_threads && pthread_create(&threads[started], NULL, worker, &p) == 0)
        started++;
    if (started == 0) {
        fputs("rocescope: -j: cannot start a thread\n", stderr);
        rc = -1;
    }
    /* after a failure the remaining files are still waited for and freed */
    for (size_t i = 0; i < p.n && started > 0; i++)
        if (merge_job(&p, i, rep, input_problem) != 0)
            rc = -1;
    for (size_t t = 0; t < started; t++)
        pthread_join(threads[t], NULL);
    free(threads);
    free(p.jobs);
    if (rc != 0)
        roce_report_free(rep);
    return rc;
}
