/*
 * live.c - the live monitor's main loop (see live.h).
 *
 * Order at start, as tcpdump: open and activate the capture and bind the
 * --listen socket (as root), drop privileges (-Z, by default the package's
 * user or nobody: privs.h) and install the system call filter (sandbox.h)
 * before any other thread starts, then open the outputs
 * (-o, -w, the Prometheus file, --events) and start the HTTP server as the
 * user (the writers chosen: writers.h). The capture thread sleeps on the capture descriptor until
 * the next interval boundary (CLOCK_MONOTONIC), reads what is ready in batches into a bounded queue
 * (live_queue.c; -w writes the frames as they are read) and marks in it the end of an interval
 * whenever its time has come, packets or not. The analysis thread takes the frames and the marks in
 * order: frames through the engine, at a mark the interval's outputs. The
 * analysis never holds up the capture: a frame the queue has no room for is
 * counted (analysis_dropped) and shown with the kernel's drops.
 * SIGINT and SIGTERM are blocked except while sleeping (ppoll), so they
 * interrupt the sleep and nothing else; the handler only sets a flag and
 * calls pcap_breakloop. On a stop by signal or --duration the kernel's
 * buffer is drained (a buffered capture delivers within the buffer
 * timeout) before the final interval and the final report; interval marks
 * still queued then are merged into the final interval.
 */
#define _GNU_SOURCE
#include "live.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "http.h"
#include "live_capture.h"
#include "live_interval.h"
#include "live_json.h"
#include "live_queue.h"
#include "live_pages.h"
#include "live_view.h"
#include "output.h"
#include "privs.h"
#include "prometheus.h"
#include "report.h"
#include "roce_engine.h"
#include "roce_time.h"
#include "rotfile.h"
#include "sandbox.h"
#include "savefile.h"
#include "writers.h"

#define ERR_LEN           512
#define BUFFER_TIMEOUT_MS 100 /* longest a packet waits in the kernel's buffer */
#define LIVE_SETTLE_LAG_NS ROCE_NS_PER_SEC /* engine time kept behind the wall clock */
#define DRAIN_EXTRA_NS    (150 * ROCE_NS_PER_MS)
#define READ_BATCH        4096 /* frames per read: the clock is checked between batches */
#define VIEW_TOP          10   /* flows listed per interval (or --top when smaller) */
#define QUEUE_BYTES       (64u * 1024u * 1024u) /* frames waiting for the analysis, at most */
#define QUEUE_WAIT_MS     100  /* the analysis thread's longest sleep */
#define MARK_RETRY_NS     (ROCE_NS_PER_MS) /* a full queue: wait that long for room for a mark */
/* after a stop by a signal, the frames still queued are analysed for this long at most;
 * the rest count as dropped by the analysis (the final report comes within
 * a service manager's stop timeout whatever the backlog) */
#define STOP_BACKLOG_NS (2 * ROCE_NS_PER_SEC)

/* What the capture thread puts in the queue. */
enum rec_type { REC_FRAME = 1, REC_INTERVAL, REC_END };

struct rec_frame {
    uint32_t type;
    uint32_t caplen, wirelen;
    int32_t linktype;
    uint64_t frame;
    int64_t ts_ns;
    /* the bytes follow */
};

/* The end of an interval: the capture statistics then, the clocks. */
struct mark {
    uint32_t type;
    struct roce_livecap_stats stats;
    int64_t mono_ns, wall_ns;
};

enum stop_reason { RUNNING, STOP_SIGNAL, STOP_COUNT, STOP_DURATION, STOP_READ_ERROR, STOP_OUTPUT };

static volatile sig_atomic_t stop_signal;
static struct roce_livecap *volatile signal_cap;

struct monitor {
    const struct roce_live_config *lc;
    const struct roce_live_options *lo; /* lc's capture options */
    const char *iface;
    struct roce_livecap *cap;
    struct roce_engine *engine;
    struct roce_savefile *save;
    struct roce_live_tracker *tracker;
    struct roce_http *http;           /* --listen */
    struct roce_writers ws;           /* the final report's (and --events, as verdicts settle) */
    struct roce_rotfile *events_file; /* a stream's -o PATH (--events -o PATH) */
    struct roce_livecap_stats stats;
    struct roce_lq *queue;       /* the capture thread's frames and marks for the analysis */
    pthread_t analysis;
    int analysis_started;
    atomic_int analysis_failed;  /* an output of the analysis thread failed */
    atomic_int stopping;         /* the capture stopped: intervals still queued merge into the last */
    atomic_int hurry;            /* by a signal: the frames still queued get STOP_BACKLOG_NS */
    uint64_t analysis_dropped;   /* frames the queue had no room for */
    uint64_t backlog_dropped;    /* frames still queued STOP_BACKLOG_NS after a stop */
    uint64_t frames;
    uint64_t seq;
    int64_t start_ns, last_ns; /* CLOCK_MONOTONIC */
    int tty;
    int save_failed;
    int events_failed; /* the stream's failure was reported */
    enum stop_reason reason;
    char error[ERR_LEN]; /* why the capture stopped early ("" when it did not) */
    char user[ROCE_PRIVS_NAME_LEN]; /* the user it runs as once confined */
    int dropped;                    /* started as root, now that user */
};

static int64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * ROCE_NS_PER_SEC + ts.tv_nsec;
}

static void on_signal(int sig)
{
    stop_signal = sig;
    struct roce_livecap *c = signal_cap;
    if (c != NULL)
        roce_livecap_breakloop(c);
}

/* Catch SIGINT and SIGTERM, and block them outside the sleep: *sleep_mask
 * is the mask to sleep with, *saved the one to restore. */
static void catch_signals(sigset_t *sleep_mask, sigset_t *saved)
{
    struct sigaction sa;
    sigset_t block;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigprocmask(SIG_BLOCK, &block, saved);
    *sleep_mask = *saved;
    sigdelset(sleep_mask, SIGINT);
    sigdelset(sleep_mask, SIGTERM);
}

/* Open the capture; 0, or the exit status (message printed). */
static int open_capture(struct monitor *m)
{
    const struct roce_live_options *lo = m->lo;
    char filter[ROCE_CAPTURE_FILTER_LEN], err[ERR_LEN], warn[ERR_LEN];
    enum roce_livecap_open_status st;
    struct roce_livecap_config cfg = {lo->iface,     lo->filter,  lo->snaplen,      lo->buffer_kib,
                                      lo->immediate, lo->promisc, BUFFER_TIMEOUT_MS};
    if (lo->filter == NULL) {
        roce_capture_filter(m->lc->cfg, filter, sizeof filter);
        cfg.filter = filter;
    }
    m->cap = roce_livecap_open(&cfg, &st, err, sizeof err, warn, sizeof warn);
    if (m->cap == NULL) {
        roce_complain(lo->iface, err);
        return st == ROCE_LIVECAP_OPEN_BAD_FILTER ? ROCE_EXIT_USAGE : ROCE_EXIT_INPUT;
    }
    if (warn[0] != '\0')
        fprintf(stderr, "rocescope: %s: warning: %s\n", lo->iface, warn);
    if (roce_capture_linktype_check(roce_livecap_linktype(m->cap),
                                    roce_livecap_linktype_name(m->cap), err, sizeof err) != 0) {
        roce_complain(lo->iface, err);
        return ROCE_EXIT_INPUT;
    }
    return 0;
}

/* After the capture is open and --listen bound, before any other thread:
 * give up privileges (-Z USER; started as root without -Z, the package's
 * user or nobody) and install the system call filter, then say so on
 * standard error. 0, or the exit status (message printed). */
static int confine(struct monitor *m)
{
    const int root = getuid() == 0 || geteuid() == 0;
    const char *user = m->lo->user;
    struct roce_privs_state st;
    char err[ERR_LEN];
    if (root && user == NULL && (user = roce_privs_default_user()) == NULL) {
        roce_complainf("-Z: neither the user '%s' nor '%s' exists: give -Z USER",
                       ROCE_PRIVS_SYSTEM_USER, ROCE_PRIVS_FALLBACK_USER);
        return ROCE_EXIT_INPUT;
    }
    if (roce_privs_drop(root ? user : NULL, &st, err, sizeof err) != 0) {
        roce_complain("-Z", err);
        return ROCE_EXIT_INPUT;
    }
    if (roce_sandbox_apply(roce_livecap_fd(m->cap), err, sizeof err) != 0) {
        roce_complain(m->iface, err);
        return ROCE_EXIT_INPUT;
    }
    snprintf(m->user, sizeof m->user, "%s", st.user);
    m->dropped = st.uid != 0 && st.was_root;
    char bounding[ERR_LEN] = "";
    if (st.bounding_kept && st.was_root && st.uid != 0)
        snprintf(bounding, sizeof bounding,
                 " (%u capabilities left in the bounding set: "
                 "no CAP_SETPCAP to drop them)",
                 st.bounding_kept);
    roce_complainf(
        "%s: capturing as %s%s (uid %u): %s%s, no new privileges, "
        "system call filter on (sending on the capture socket denied)",
        m->iface, st.uid == 0 ? "root" : "user ", st.uid == 0 ? "" : st.user, (unsigned)st.uid,
        st.uid == 0 && st.was_root ? "capabilities kept (-Z root)" : "no capabilities", bounding);
    return 0;
}

/* An output could not be opened as the user the monitor became: say why
 * it may be so (once). */
static void output_hint(const struct monitor *m)
{
    if (m->dropped)
        roce_complainf("note: the outputs are opened as user '%s' once the capture is open (-Z; "
                       "the default when started as root): their folders must be writable by "
                       "that user",
                       m->user);
}

/* After the capture is open and the monitor confined: open the outputs as
 * the user. 0, or the exit status (message printed). */
static int open_outputs(struct monitor *m)
{
    const struct roce_live_options *lo = m->lo;
    struct roce_writer_run *mr = m->ws.main;
    char err[ERR_LEN];
    for (unsigned i = 0; i < m->ws.n; i++) {
        struct roce_writer_run *r = &m->ws.run[i];
        if (r == mr && (r->w->needs & ROCE_WRITER_STREAM)) { /* stdout, or -o appended, rotated */
            r->fp = stdout;
            if (r->path != NULL) {
                m->events_file =
                    roce_rotfile_open(r->path, lo->rotate_bytes, lo->rotate_count, err, sizeof err);
                if (m->events_file == NULL) {
                    roce_complain(r->path, err);
                    return ROCE_EXIT_OUTPUT;
                }
                r->fp = roce_rotfile_fp(m->events_file);
            }
        } else if (roce_output_open(&r->out, r->path) != 0) {
            roce_complain(r->path ? r->path : "stdout", roce_output_error());
            return ROCE_EXIT_OUTPUT;
        } else {
            r->fp = r->out.fp;
        }
    }
    if (m->http != NULL && roce_live_pages_declare(m->http) != 0) {
        roce_complain("--listen", "out of memory");
        return ROCE_EXIT_OUTPUT;
    }
    if (m->http != NULL && roce_http_start(m->http, err, sizeof err) != 0) {
        roce_complain("--listen", err);
        return ROCE_EXIT_OUTPUT;
    }
    if (lo->savefile != NULL) {
        struct roce_savefile_config sc = {lo->savefile,
                                          roce_livecap_dlt(m->cap),
                                          roce_livecap_snaplen(m->cap),
                                          roce_livecap_nano(m->cap),
                                          lo->file_bytes,
                                          lo->file_count};
        m->save = roce_savefile_open(&sc, err, sizeof err);
        if (m->save == NULL) {
            roce_complain("-w", err);
            return ROCE_EXIT_OUTPUT;
        }
    }
    return 0;
}

/* Bind the --listen socket (before -Z: a port below 1024 needs root). 0,
 * or the exit status (message printed). */
static int open_listener(struct monitor *m)
{
    char err[ERR_LEN];
    if (m->lo->listen == NULL)
        return 0;
    m->http = roce_http_bind(m->lo->listen, err, sizeof err);
    if (m->http == NULL) {
        roce_complain("--listen", err);
        return ROCE_EXIT_OUTPUT;
    }
    return 0;
}

/* A writer that streams (--events): hand over the verdicts settled so far
 * (rotating the -o file). 0, or -1 when they could not be written (message
 * printed). */
static int flush_events(struct monitor *m)
{
    char err[ERR_LEN];
    struct roce_writer_run *ev = m->ws.main;
    const char *what = ev->path ? ev->path : "stdout";
    if (!(ev->w->needs & ROCE_WRITER_STREAM) || ev->fp == NULL)
        return 0;
    if (m->events_failed)
        return -1; /* said once */
    int rc = 0;
    if (ev->failed && m->events_file != NULL) {
        roce_rotfile_fail(m->events_file, 0, err, sizeof err);
        rc = -1;
    } else if (ev->failed) {
        snprintf(err, sizeof err, "write failed");
        rc = -1;
    }
    if (rc == 0 && m->events_file != NULL) {
        rc = roce_rotfile_flush(m->events_file, err, sizeof err);
        ev->fp = roce_rotfile_fp(m->events_file);
    } else if (rc == 0 && fflush(ev->fp) != 0) {
        snprintf(err, sizeof err, "%s", strerror(errno));
        rc = -1;
    }
    if (rc != 0) {
        roce_complain(what, err);
        m->events_failed = 1;
    }
    return rc;
}

/* The engine's settled verdicts (cfg.on_verdict): to the writers, then a
 * rotated --events file checked after each line, so that it rotates within
 * one line of its bound. */
static void on_verdict(const struct roce_verdict *v, void *ctx)
{
    struct monitor *m = ctx;
    char err[ERR_LEN];
    errno = 0;
    roce_writers_verdict(v, &m->ws);
    if (m->events_file == NULL || m->events_failed)
        return;
    if (m->ws.main->failed) /* the line did not go (a full file system) */
        roce_rotfile_fail(m->events_file, errno, err, sizeof err);
    if (m->ws.main->failed || roce_rotfile_line(m->events_file, err, sizeof err) != 0) {
        roce_complain(m->ws.main->path, err);
        m->events_failed = 1;
        atomic_store(&m->analysis_failed, 1);
    }
    m->ws.main->fp = roce_rotfile_fp(m->events_file);
}

/* Capture callback: one frame into the queue (and the -w file). */
static void on_frame(const struct roce_capture_frame *f, void *ctx)
{
    struct monitor *m = ctx;
    struct rec_frame *r = roce_lq_reserve(m->queue, sizeof *r + f->caplen);
    ++m->frames;
    if (r == NULL) {
        m->analysis_dropped++;
    } else {
        r->type = REC_FRAME;
        r->caplen = f->caplen;
        r->wirelen = f->wirelen;
        r->linktype = roce_livecap_linktype(m->cap);
        r->frame = m->frames;
        r->ts_ns = f->ts_ns;
        memcpy(r + 1, f->data, f->caplen);
    }
    if (m->save != NULL && !m->save_failed && roce_savefile_write(m->save, f) != 0) {
        m->save_failed = 1;
        roce_livecap_breakloop(m->cap);
    }
}

/* Read one batch of what is ready. Sets m->reason on an error or when -c
 * is reached. */
static void read_batch(struct monitor *m)
{
    uint64_t count = m->lo->count;
    int max = READ_BATCH;
    if (count && count - m->frames < (uint64_t)max)
        max = (int)(count - m->frames);
    int n = roce_livecap_dispatch(m->cap, max, on_frame, m);
    roce_lq_commit(m->queue);
    if (n == ROCE_LIVECAP_ERROR) {
        snprintf(m->error, sizeof m->error, "%s: %s", m->iface, roce_livecap_error(m->cap));
        m->reason = STOP_READ_ERROR;
    } else if (m->save_failed) {
        roce_complain(m->lo->savefile, roce_savefile_error(m->save));
        m->reason = STOP_OUTPUT;
    } else if (atomic_load(&m->analysis_failed)) {
        m->reason = STOP_OUTPUT;
    } else if (count && m->frames >= count) {
        m->reason = STOP_COUNT;
    }
    /* n >= 0: frames read (0: none ready); ROCE_LIVECAP_BREAK: a signal,
     * whose flag the loop checks */
}

/* The interval's Prometheus file and --listen documents. 0, or -1 when the
 * file could not be written (message printed). */
static int publish(struct monitor *m, const struct roce_live_interval *iv)
{
    const char *prom = m->lo->prometheus;
    if (prom != NULL && roce_prometheus_file(prom, iv) != 0) {
        roce_complain(prom, strerror(errno));
        return -1;
    }
    if (m->http != NULL && roce_live_pages_publish(m->http, iv, m->lc->interval_ns) != 0)
        roce_complain("--listen", "out of memory: the documents served are not updated");
    return 0;
}

/* The end of an interval as the capture thread sees it: the capture
 * statistics (with the analysis' drops) and the clocks. */
static void take_mark(struct monitor *m, struct mark *mk)
{
    if (roce_livecap_stats(m->cap, &m->stats) != 0 && m->error[0] == '\0')
        roce_complain(m->iface, roce_livecap_error(m->cap));
    m->stats.analysis_dropped = m->analysis_dropped;
    mk->type = REC_INTERVAL;
    mk->stats = m->stats;
    mk->mono_ns = clock_ns(CLOCK_MONOTONIC);
    mk->wall_ns = clock_ns(CLOCK_REALTIME);
}

/* Close an interval ended at mk and write it everywhere (the analysis
 * thread, or the caller after it ended). 0, or -1 when an output failed
 * (message printed). */
static int emit_interval(struct monitor *m, int final, const struct mark *mk)
{
    const struct roce_live_options *lo = m->lo;
    const struct roce_writer *w = m->ws.main->w;
    struct roce_live_interval iv;
    int64_t now = mk->mono_ns;
    memset(&iv, 0, sizeof iv);
    m->stats = mk->stats;
    iv.seq = ++m->seq;
    iv.final = final;
    iv.wall_ns = mk->wall_ns;
    iv.length_ns = now - m->last_ns;
    iv.uptime_ns = now - m->start_ns;
    iv.iface = m->iface;
    iv.link_type = roce_livecap_linktype_name(m->cap);
    iv.link_speed_mbps = m->lc->cfg->link_speed_mbps;
    m->last_ns = now;
    /* let capture time pass on idle links (windows settle, paused time
     * accrues), a second behind the wall clock so that frames still in the
     * capture buffer are analysed exactly as they would be offline */
    if (!final)
        roce_engine_advance(m->engine, iv.wall_ns - LIVE_SETTLE_LAG_NS);
    roce_live_tracker_step(m->tracker, m->engine, &m->stats, &iv);

    int rc = 0;
    if (lo->quiet || (w->needs & ROCE_WRITER_STREAM))
        rc = 0; /* stdout carries the events, or nothing */
    else if (w->needs & ROCE_WRITER_JSON) /* JSON Lines, as the final report */
        rc = roce_live_json_interval(stdout, &iv);
    else
        rc = m->tty ? roce_live_view_screen(stdout, &iv) : roce_live_view_lines(stdout, &iv);
    if (rc != 0)
        roce_complain("stdout", "write failed");
    if (publish(m, &iv) != 0 || flush_events(m) != 0)
        rc = -1;
    if (!final && lo->idle_timeout_ns > 0)
        roce_engine_retire_idle(m->engine, lo->idle_timeout_ns);
    return rc;
}

/* The analysis thread: frames through the engine, interval marks to the
 * outputs, until the end record. The events are handed over whenever the
 * queue runs empty. */
static void *analysis_main(void *arg)
{
    struct monitor *m = arg;
    int64_t deadline = 0; /* for the backlog, once stopped by a signal */
    for (;;) {
        size_t len;
        const void *p = roce_lq_next(m->queue, 0, &len);
        if (p == NULL) {
            if (flush_events(m) != 0)
                atomic_store(&m->analysis_failed, 1);
            p = roce_lq_next(m->queue, QUEUE_WAIT_MS, &len);
            if (p == NULL)
                continue;
        }
        uint32_t type;
        memcpy(&type, p, sizeof type);
        if (deadline == 0 && atomic_load(&m->hurry))
            deadline = clock_ns(CLOCK_MONOTONIC) + STOP_BACKLOG_NS;
        if (type == REC_FRAME && deadline != 0 && clock_ns(CLOCK_MONOTONIC) > deadline) {
            m->backlog_dropped++;
        } else if (type == REC_FRAME) {
            const struct rec_frame *r = p;
            /* as captured (-w keeps ERF records), then as the engine takes it */
            struct roce_capture_frame g = {r->ts_ns, r->caplen, r->wirelen,
                                           (const uint8_t *)(r + 1), r->linktype};
            struct roce_frame_in in;
            roce_capture_frame_in(&g, r->frame, &in);
            if (!(m->ws.needs & ROCE_WRITER_FRAMES)) {
                roce_engine_frame(m->engine, &in, NULL);
            } else {
                struct roce_frame_out out;
                roce_engine_frame(m->engine, &in, &out);
                roce_writers_frame(&m->ws, m->engine, &in, &out);
            }
        } else if (type == REC_INTERVAL && !atomic_load(&m->stopping)) {
            struct mark mk;
            memcpy(&mk, p, sizeof mk);
            if (emit_interval(m, 0, &mk) != 0)
                atomic_store(&m->analysis_failed, 1);
        }
        roce_lq_pop(m->queue);
        if (type == REC_END)
            break;
    }
    if (flush_events(m) != 0)
        atomic_store(&m->analysis_failed, 1);
    return NULL;
}

/* Put a record of the capture thread's that must not be dropped (an
 * interval mark, the end) in the queue, waiting for room. */
static void post(struct monitor *m, const void *rec, size_t len)
{
    void *p;
    while ((p = roce_lq_reserve(m->queue, len)) == NULL) {
        struct timespec ts = {0, MARK_RETRY_NS};
        nanosleep(&ts, NULL);
    }
    memcpy(p, rec, len);
    roce_lq_commit(m->queue);
}

/* The end of an interval, from the capture thread: the -w file flushed,
 * the mark queued. 0, or -1 when the -w file could not be written. */
static int end_interval(struct monitor *m)
{
    struct mark mk;
    take_mark(m, &mk);
    post(m, &mk, sizeof mk);
    if (m->save != NULL && !m->save_failed && roce_savefile_flush(m->save) != 0) {
        m->save_failed = 1;
        roce_complain(m->lo->savefile, roce_savefile_error(m->save));
        return -1;
    }
    return atomic_load(&m->analysis_failed) ? -1 : 0;
}

/* Capture until a stop: signal, -c, --duration, read error or output error. */
static void capture_loop(struct monitor *m, const sigset_t *sleep_mask)
{
    const int64_t interval = m->lc->interval_ns;
    const int64_t duration = m->lo->duration_ns;
    const int64_t deadline = duration ? m->start_ns + duration : INT64_MAX;
    int64_t next = m->start_ns + interval;

    while (m->reason == RUNNING) {
        int64_t now = clock_ns(CLOCK_MONOTONIC);
        if (now >= deadline) {
            m->reason = STOP_DURATION;
            break;
        }
        if (now >= next) {
            if (end_interval(m) != 0) {
                m->reason = STOP_OUTPUT;
                break;
            }
            next += ((now - next) / interval + 1) * interval; /* skip boundaries missed */
        }
        int64_t until = next < deadline ? next : deadline;
        int ready = roce_livecap_wait(m->cap, until - clock_ns(CLOCK_MONOTONIC), sleep_mask);
        if (stop_signal) {
            m->reason = STOP_SIGNAL;
            break;
        }
        if (ready > 0)
            read_batch(m);
    }
}

/* After a stop by signal or --duration: read what the kernel still holds
 * (a buffered capture hands it over within the buffer timeout). */
static void drain(struct monitor *m)
{
    const int64_t end = clock_ns(CLOCK_MONOTONIC) + BUFFER_TIMEOUT_MS * ROCE_NS_PER_MS + DRAIN_EXTRA_NS;
    const enum stop_reason why = m->reason;
    for (;;) {
        int64_t left = end - clock_ns(CLOCK_MONOTONIC);
        if (left <= 0)
            break;
        m->reason = RUNNING;
        if (roce_livecap_wait(m->cap, left, NULL) > 0)
            read_batch(m);
        if (m->reason != RUNNING)
            return; /* -c reached, or an error */
    }
    m->reason = why;
}

/* The final report, by the writers chosen as offline (a JSON document on
 * stdout: on one line, the last of the JSON Lines). 0, or -1 when it could
 * not be written (message printed). */
static int final_report(struct monitor *m)
{
    const char *files[] = {m->iface};
    char why[ERR_LEN + 128];
    struct roce_writer_run *mr = m->ws.main;
    /* a stream (--events) is the output, as offline; -q without -o prints
     * nothing: then only the files of their own (the page), if any */
    int report = !(mr->w->needs & ROCE_WRITER_STREAM) && !(m->lo->quiet && mr->path == NULL);
    if (!report && m->ws.n == 1)
        return 0;
    struct roce_report_live live = {m->iface, m->stats.received, m->stats.dropped,
                                    m->stats.if_dropped, m->stats.analysis_dropped};
    struct roce_report rep;
    memset(&rep, 0, sizeof rep);
    rep.files = files;
    rep.n_files = 1;
    rep.link_type = roce_livecap_linktype_name(m->cap);
    rep.cfg = m->lc->cfg;
    rep.live = &live;
    if (m->stats.dropped || m->stats.if_dropped || m->stats.analysis_dropped)
        snprintf(why, sizeof why,
                 "%s%spackets were dropped (%llu by the kernel, %llu by the "
                 "interface, %llu by the analysis): the counts may be low",
                 m->error, m->error[0] ? "; " : "", (unsigned long long)m->stats.dropped,
                 (unsigned long long)m->stats.if_dropped,
                 (unsigned long long)m->stats.analysis_dropped);
    else
        snprintf(why, sizeof why, "%s", m->error);
    rep.error = why[0] ? why : NULL;
    /* the worst --final-flows flows listed (the stop bounded whatever the
     * table holds), with the diagnoses the final interval computed from the
     * same engine over every flow, lent */
    rep.flow_limit = m->lo->final_flows;
    const struct roce_diag_list *fd = roce_live_tracker_final_diagnoses(m->tracker);
    if (fd != NULL && (rep.diag = malloc(sizeof *rep.diag)) != NULL) {
        *rep.diag = *fd;
        rep.diag->borrowed = 1;
    }
    if (roce_report_build(&rep, m->engine) != 0) {
        roce_complain("report", "out of memory");
        roce_report_free(&rep);
        return -1;
    }
    if (rep.diag == NULL)
        (void)roce_report_keep_diagnoses(&rep); /* once for every writer */
    const struct roce_writer_doc doc = {&rep, ROCE_WRITE_LIVE, m->lc->out->top};
    int rc = 0, status = 0;
    if (report && (mr->w->needs & ROCE_WRITER_JSON) && mr->path == NULL)
        rc = roce_live_json_document(stdout, mr, &doc);
    else if (report) /* on a terminal, below the view */
        rc = (m->tty && mr->path == NULL && fputc('\n', stdout) == EOF) ||
             mr->w->ops->report(mr, mr->fp, &doc) != 0;
    for (unsigned i = 0; i < m->ws.n; i++) {
        struct roce_writer_run *r = &m->ws.run[i];
        if (r == mr || (r->w->ops->report(r, r->fp, &doc) == 0 && roce_output_commit(&r->out) == 0))
            continue;
        if (r->out.fp != NULL)
            roce_output_abort(&r->out);
        roce_complain(r->path, "write failed");
        status = -1;
    }
    roce_report_free(&rep);
    if (!report)
        return status;
    if (roce_output_finish(&mr->out, mr->path ? mr->path : "stdout", rc) != 0)
        return -1;
    return status;
}

/* Write the Prometheus file (and publish the --listen documents) once
 * before capturing, all counters zero, so that a path that cannot be
 * written is reported at once. 0, or -1. */
static int first_interval(struct monitor *m)
{
    struct roce_live_interval iv;
    memset(&iv, 0, sizeof iv);
    iv.wall_ns = clock_ns(CLOCK_REALTIME);
    iv.iface = m->iface;
    iv.link_type = roce_livecap_linktype_name(m->cap);
    iv.link_speed_mbps = m->lc->cfg->link_speed_mbps;
    roce_live_tracker_step(m->tracker, m->engine, &m->stats, &iv);
    return publish(m, &iv);
}

/* Everything after the capture and the outputs are open. */
static int monitor(struct monitor *m)
{
    sigset_t sleep_mask, saved;
    struct roce_config cfg = *m->lc->cfg;
    const struct roce_writer *failed;
    const unsigned top = m->lc->out->top;
    int status = 0;

    int started = roce_writers_start(&m->ws, &failed) == 0;
    if (m->ws.needs & ROCE_WRITER_VERDICTS) { /* --events and the page's series */
        cfg.on_verdict = on_verdict;
        cfg.ctx = m;
    }
    m->tracker = roce_live_tracker_new(top < VIEW_TOP ? top : VIEW_TOP, m->lo->final_flows);
    m->engine = roce_engine_new(&cfg);
    if (m->tracker == NULL || m->engine == NULL || !started) {
        roce_complain("engine", "out of memory");
        roce_writers_abort(&m->ws);
        return ROCE_EXIT_INPUT;
    }
    if (first_interval(m) != 0) {
        roce_writers_abort(&m->ws);
        return ROCE_EXIT_OUTPUT;
    }
    m->start_ns = m->last_ns = clock_ns(CLOCK_MONOTONIC);
    signal_cap = m->cap;
    catch_signals(&sleep_mask, &saved); /* the analysis thread keeps them blocked */
    m->queue = roce_lq_new(QUEUE_BYTES);
    if (m->queue == NULL || pthread_create(&m->analysis, NULL, analysis_main, m) != 0) {
        roce_complain("analysis", m->queue == NULL ? "out of memory" : "cannot start its thread");
        sigprocmask(SIG_SETMASK, &saved, NULL);
        roce_output_abort(&m->ws.main->out);
        return ROCE_EXIT_INPUT;
    }
    capture_loop(m, &sleep_mask);
    /* the final report is what matters now: the intervals an analysis
     * behind the capture still has queued are not written one by one but
     * merged into the last (the exit takes the time of the frames queued,
     * not of their intervals) */
    atomic_store(&m->stopping, 1);
    if (m->reason == STOP_SIGNAL) /* a service manager waits: -c and --duration take every frame */
        atomic_store(&m->hurry, 1);
    if (m->reason == STOP_SIGNAL || m->reason == STOP_DURATION)
        drain(m);
    const uint32_t end = REC_END;
    post(m, &end, sizeof end);
    pthread_join(m->analysis, NULL);
    m->analysis_dropped += m->backlog_dropped;
    if (atomic_load(&m->analysis_failed))
        m->reason = STOP_OUTPUT;
    roce_engine_finish(m->engine);
    roce_writers_finish(&m->ws, m->engine);
    if (flush_events(m) != 0)
        status = ROCE_EXIT_OUTPUT;
    struct mark last;
    take_mark(m, &last);
    if (m->save != NULL && !m->save_failed && roce_savefile_flush(m->save) != 0) {
        m->save_failed = 1;
        roce_complain(m->lo->savefile, roce_savefile_error(m->save));
    }
    if (m->save_failed)
        status = ROCE_EXIT_OUTPUT;
    if (emit_interval(m, 1, &last) != 0)
        status = ROCE_EXIT_OUTPUT;
    if (m->reason == STOP_READ_ERROR) {
        roce_complain(m->iface, roce_livecap_error(m->cap));
        status = ROCE_EXIT_INPUT;
    }
    if (m->reason == STOP_OUTPUT)
        status = ROCE_EXIT_OUTPUT;
    if (final_report(m) != 0)
        status = ROCE_EXIT_OUTPUT;
    signal_cap = NULL;
    sigprocmask(SIG_SETMASK, &saved, NULL);
    return status;
}

int roce_live_run(const struct roce_live_config *lc)
{
    struct monitor m;
    memset(&m, 0, sizeof m);
    m.lc = lc;
    m.lo = lc->capture;
    m.iface = m.lo->iface;
    roce_writers_init(&m.ws, lc->out);
    m.tty = isatty(STDOUT_FILENO);
    int status = open_capture(&m);
    if (status == 0)
        status = open_listener(&m);
    if (status == 0)
        status = confine(&m);
    if (status == 0) {
        status = open_outputs(&m);
        if (status == 0)
            status = monitor(&m);
        else
            roce_writers_abort(&m.ws);
        if (status == ROCE_EXIT_OUTPUT && m.seq == 0)
            output_hint(&m); /* at start: a file or folder the user may not write */
    }
    if (m.save != NULL && !m.save_failed && roce_savefile_flush(m.save) != 0) {
        m.save_failed = 1;
        roce_complain(m.lo->savefile, roce_savefile_error(m.save));
    }
    if (m.save_failed && status == 0)
        status = ROCE_EXIT_OUTPUT;
    if (roce_savefile_close(m.save) != 0 && status == 0)
        status = ROCE_EXIT_OUTPUT;
    if (roce_rotfile_close(m.events_file) != 0 && status == 0) {
        if (!m.events_failed)
            roce_complain(m.ws.main->path, "write failed");
        status = ROCE_EXIT_OUTPUT;
    }
    roce_http_free(m.http);
    roce_live_tracker_free(m.tracker);
    roce_engine_free(m.engine);
    roce_writers_stop(&m.ws);
    roce_lq_free(m.queue);
    roce_livecap_close(m.cap);
    return status;
}
