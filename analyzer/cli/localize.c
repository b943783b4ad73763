/*
 * localize.c - `rocescope localize`: reads each capture twice (in threads,
 * one engine per vantage point), hands the records to the vantage-point
 * analysis of the engine (roce_vantage.h) and writes its result
 * (localize_report.h). Only wiring lives here: naming the points, the
 * options, the threads and the queues, the messages and exit statuses.
 */
#define _DEFAULT_SOURCE
#include "localize.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_options.h"
#include "fmt.h"
#include "localize_annotate.h"
#include "localize_read.h"
#include "localize_report.h"
#include "output.h"
#include "writers.h"

#define JOBS_MAX      ROCE_VANTAGE_MAX_POINTS
#define SAMPLE_KEYS   65536u
#define DELAY_MIN_NS  100ull
#define DELAY_MAX_NS  10000000000ull /* 10 s */
#define OFFSET_MAX_NS (1LL << 50)    /* about 13 days */
#define NAME_LEN      96
#define DECIMAL       10

enum {
    OPT_OFFSET = 256,
    OPT_SPLIT,
    OPT_DELAY,
    OPT_UDP_PORT,
    OPT_MAX_FLOWS,
    OPT_ANNOTATE,
    OPT_SPREAD,
    OPT_LINK_SPEED
};

/* localize's own long options (the output options: roce_cli_getopt). */
static const struct option lz_opts[] = {
    {"offset", required_argument, NULL, OPT_OFFSET},
    {"split-by", required_argument, NULL, OPT_SPLIT},
    {"path-delay", required_argument, NULL, OPT_DELAY},
    {"udp-port", required_argument, NULL, OPT_UDP_PORT},
    {"max-flows", required_argument, NULL, OPT_MAX_FLOWS},
    {"annotate", required_argument, NULL, OPT_ANNOTATE},
    {"spread-window", required_argument, NULL, OPT_SPREAD},
    {"link-speed", required_argument, NULL, OPT_LINK_SPEED},
    {"jobs", required_argument, NULL, 'j'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static const char lz_usage[] =
    "Usage: rocescope localize [OPTIONS] [NAME=]FILE [NAME=]FILE...\n"
    "Captures of the same traffic taken at several points (vantage points): their\n"
    "clocks aligned, packet transmissions matched across them, and every lost\n"
    "request PSN and every CE mark located between two points (rocescope(1),\n"
    "LOCALIZE). Each file is one point, named NAME or by its base name (without\n"
    ".pcap/.pcapng/.cap); offsets are against the first point.\n"
    "\n"
    "      --json            one JSON document (default: a human summary)\n"
    "  -o, --output PATH     write to PATH (via a temporary file and rename)\n"
    "      --html PATH       also write the result as an HTML page to PATH\n"
    "      --annotate DIR    also write DIR/NAME.pcapng for each point: its capture\n"
    "                        with the comments of rocescope --annotate and, on the\n"
    "                        frames they cite, localize's losses and CE marks (a\n"
    "                        split point NAME/KEY: DIR/NAME/KEY.pcapng, its frames)\n"
    "      --offset NAME=NS  the clock offset of point NAME in nanoseconds (its\n"
    "                        clock minus the first point's) instead of estimating it\n"
    "      --split-by KEY    erspan-session or outer-source: each ERSPAN session, or\n"
    "                        each tunnel source address, of a file is a point of its\n"
    "                        own, NAME/SESSION or NAME/ADDRESS (the rest stays NAME)\n"
    "      --path-delay T    the most two sightings of one transmission may be apart\n"
    "                        once aligned (default 1ms; also 500us, 20000ns)\n"
    "      --spread-window T how long after a PFC pause began one at another point\n"
    "                        may have spread from it (default auto: that pause's\n"
    "                        length plus --path-delay)\n"
    "      --link-speed R    link speed for PFC pause quanta (default 100G)\n"
    "      --udp-port N      RoCEv2 UDP destination port (default 4791)\n"
    "      --max-flows N     flows tracked per point and in the matching (default 65536)\n"
    "      --top N           flows, losses and CE marks listed in the summary (default 20)\n"
    "  -j, --jobs N          files read at once in the first reading (default: all)\n"
    "  -h, --help            this help\n"
    "\n"
    "Exit status: 0 done, 1 input problem (a file missing or unreadable, no RoCE in\n"
    "it, nothing in common with the first file, no time in common; a file cut short:\n"
    "the output of what was read is still written), 2 bad usage, 3 output not written.\n";

struct lz_args {
    struct roce_config cfg;
    struct roce_vantage_config vcfg;
    enum roce_vantage_split split;
    const char *split_name;
    struct roce_outputs out;  /* --json, -o, --html, --top */
    const char *annotate;     /* --annotate DIR (NULL: none) */
    int64_t spread_window_ns; /* --spread-window, 0: auto */
    unsigned jobs;
    const char **offsets;
    int n_offsets;
    char **files;
    int n_files;
};

static const struct roce_cli_unit delay_units[] = {
    {"", 1000}, {"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}, {NULL, 0},
};

/* One of localize's own options; 0, -1 on a bad value (message printed),
 * ROCE_CLI_EXIT_OK after --help. */
static int option(int c, const char *arg, void *ctx)
{
    struct lz_args *a = ctx;
    uint64_t v;
    switch (c) {
    case OPT_SPLIT:
        if (strcmp(arg, "erspan-session") == 0)
            a->split = ROCE_SPLIT_ERSPAN_SESSION;
        else if (strcmp(arg, "outer-source") == 0)
            a->split = ROCE_SPLIT_OUTER_SOURCE;
        else
            return roce_cli_bad_value("--split-by", arg, "erspan-session or outer-source");
        a->split_name = arg;
        return 0;
    case OPT_DELAY:
        if (roce_cli_parse_unit(arg, delay_units, DELAY_MIN_NS, DELAY_MAX_NS, &v))
            return roce_cli_bad_value("--path-delay", arg,
                                      "a duration 100ns..10s like 1ms or 500us");
        a->vcfg.path_delay_ns = (int64_t)v;
        return 0;
    case OPT_SPREAD:
        if (strcmp(arg, "auto") == 0) {
            a->spread_window_ns = 0;
            return 0;
        }
        if (roce_cli_parse_unit(arg, delay_units, DELAY_MIN_NS, DELAY_MAX_NS, &v))
            return roce_cli_bad_value("--spread-window", arg,
                                      "auto, or a duration 100ns..10s like 50us");
        a->spread_window_ns = (int64_t)v;
        return 0;
    case OPT_LINK_SPEED:
        return roce_cli_link_speed(arg, &a->cfg.link_speed_mbps);
    case OPT_UDP_PORT:
        return roce_cli_udp_port(arg, &a->cfg.udp_port);
    case OPT_MAX_FLOWS:
        if (roce_cli_max_flows(arg, &a->cfg.max_flows) != 0)
            return -1;
        a->vcfg.max_flows = a->cfg.max_flows;
        return 0;
    case OPT_OFFSET:
        a->offsets[a->n_offsets++] = arg;
        return 0;
    case OPT_ANNOTATE:
        a->annotate = arg;
        return 0;
    case 'h':
        fputs(lz_usage, stdout);
        return ROCE_CLI_EXIT_OK;
    case 'j':
        if (roce_cli_parse_u64(arg, 1, JOBS_MAX, &v))
            return roce_cli_bad_value("-j", arg, "a number of files 1..32");
        a->jobs = (unsigned)v;
        return 0;
    default:
        return -1;
    }
}

static const struct roce_cli_command lz_command = {
    "localize", ":o:j:h", lz_opts, ROCE_CLI_WRITERS_LOCALIZE, option,
};

static int usage_error(void)
{
    return roce_cli_usage_error(&lz_command);
}

/* 0 to run, -1 after --help, else the exit status. */
static int parse_args(int argc, char **argv, struct lz_args *a)
{
    memset(a, 0, sizeof *a);
    roce_config_default(&a->cfg);
    roce_vantage_config_default(&a->vcfg);
    a->split_name = "none";
    a->offsets = calloc((size_t)argc, sizeof *a->offsets);
    if (a->offsets == NULL) {
        roce_complain("localize", "out of memory");
        return ROCE_EXIT_INPUT;
    }
    enum roce_cli_parse_result rc = roce_cli_getopt(&lz_command, argc, argv, &a->out, a);
    if (rc != ROCE_CLI_RUN)
        return rc == ROCE_CLI_EXIT_OK ? -1 : ROCE_EXIT_USAGE;
    a->files = argv + optind;
    a->n_files = argc - optind;
    if (roce_cli_outputs_paths(&a->out) != 0)
        return usage_error();
    if (a->n_files < (a->split == ROCE_SPLIT_NONE ? 2 : 1)) {
        fputs(a->n_files == 0 ? "rocescope: localize: no capture file given\n"
                              : "rocescope: localize: one capture is one vantage point: give two "
                                "or more (or --split-by)\n",
              stderr);
        return usage_error();
    }
    if (a->n_files > ROCE_VANTAGE_MAX_POINTS) {
        fprintf(stderr, "rocescope: localize: at most %d files\n", ROCE_VANTAGE_MAX_POINTS);
        return usage_error();
    }
    return 0;
}

/* ---- the points ---- */

/* NAME=FILE (a name without '/' before the first '='), or a plain FILE,
 * named by its base name without a capture extension. A path that exists
 * is always a FILE. */
static void name_input(const char *arg, const char **path, char *name, size_t len)
{
    static const char *const exts[] = {".pcapng", ".pcap", ".cap"};
    const char *eq = strchr(arg, '=');
    if (eq != NULL && eq != arg && memchr(arg, '/', (size_t)(eq - arg)) == NULL &&
        access(arg, F_OK) != 0) {
        snprintf(name, len, "%.*s", (int)(eq - arg), arg);
        *path = eq + 1;
        return;
    }
    *path = arg;
    const char *base = strrchr(arg, '/');
    base = base != NULL ? base + 1 : arg;
    snprintf(name, len, "%s", base);
    size_t n = strlen(name);
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
        size_t e = strlen(exts[i]);
        if (n > e && strcmp(name + n - e, exts[i]) == 0) {
            name[n - e] = '\0';
            break;
        }
    }
}

/* The name of a point: NAME, or NAME/SESSION, or NAME/ADDRESS (then also
 * the address alone in addr). */
static void sub_name(const char *file_name, const struct roce_split_key *k,
                     enum roce_vantage_split split, char *buf, size_t len, char *addr, size_t alen)
{
    char session[16]; /* room for any unsigned */
    const char *tail = NULL;
    addr[0] = '\0';
    if (k->has && split == ROCE_SPLIT_OUTER_SOURCE) {
        roce_fmt_addr(k->addr, k->af, addr, alen);
        tail = addr;
    } else if (k->has) {
        snprintf(session, sizeof session, "%u", (unsigned)k->session);
        tail = session;
    }
    /* NAME, then "/" and the tail, cut at len as snprintf would */
    const char *part[3] = {file_name, tail ? "/" : "", tail ? tail : ""};
    size_t n = 0;
    for (unsigned i = 0; i < 3; i++)
        for (const char *c = part[i]; *c && n + 1 < len; c++)
            buf[n++] = *c;
    if (len)
        buf[n] = '\0';
}

static int cmp_sub(const void *a, const void *b)
{
    const struct lz_sub *x = a, *y = b;
    if (x->key.has != y->key.has)
        return (int)x->key.has - (int)y->key.has; /* the unsplit rest first */
    if (x->key.session != y->key.session)
        return x->key.session < y->key.session ? -1 : 1;
    if (x->key.af != y->key.af)
        return (int)x->key.af - (int)y->key.af;
    return memcmp(x->key.addr, y->key.addr, ROCE_ADDR_LEN);
}

struct lz_run {
    struct lz_args a;
    struct lz_input *in;
    unsigned n_in;
    struct roce_localize_point pt[ROCE_VANTAGE_MAX_POINTS];
    char names[ROCE_VANTAGE_MAX_POINTS][NAME_LEN];
    char addrs[ROCE_VANTAGE_MAX_POINTS][ROCE_FMT_ADDR_LEN];
    struct roce_vsample *samples[ROCE_VANTAGE_MAX_POINTS];
    struct roce_vantage_point vp[ROCE_VANTAGE_MAX_POINTS];
    unsigned n_pt;
    struct roce_vantage *v;
    struct lz_annotate ann; /* --annotate's files (n 0: none) */
    pthread_mutex_t mu;
    unsigned next_job;
};

/* Points in file order (a file's split points by key); their names. 0, or
 * the exit status after a message. */
static int make_points(struct lz_run *r)
{
    char fname[NAME_LEN];
    for (unsigned i = 0; i < r->n_in; i++) {
        struct lz_input *in = &r->in[i];
        unsigned kept = 0;
        qsort(in->sub, in->n_sub, sizeof in->sub[0], cmp_sub);
        for (unsigned k = 0; k < in->n_sub; k++) {
            struct lz_sub *s = &in->sub[k];
            if (s->transmissions == 0)
                continue; /* no RoCE there (e.g. what a collector got unmirrored) */
            if (r->n_pt == ROCE_VANTAGE_MAX_POINTS) {
                roce_complainf("localize: more than %d vantage points", ROCE_VANTAGE_MAX_POINTS);
                return usage_error();
            }
            unsigned p = r->n_pt++;
            snprintf(fname, sizeof fname, "%s", in->name);
            sub_name(fname, &s->key, r->a.split, r->names[p], NAME_LEN, r->addrs[p],
                     ROCE_FMT_ADDR_LEN);
            s->point = (int)p;
            struct roce_localize_point *pt = &r->pt[p];
            pt->name = r->names[p];
            pt->file = in->path;
            pt->has_session = s->key.has && r->a.split == ROCE_SPLIT_ERSPAN_SESSION;
            pt->session = s->key.session;
            pt->outer_source =
                s->key.has && r->a.split == ROCE_SPLIT_OUTER_SOURCE ? r->addrs[p] : NULL;
            pt->packets = s->packets;
            pt->roce_packets = s->roce_packets;
            r->samples[p] = s->sample;
            r->vp[p].source = i;
            r->vp[p].first_ts_ns = s->first_ts_ns;
            r->vp[p].last_ts_ns = s->last_ts_ns;
            kept++;
        }
        if (kept == 0) {
            roce_complain(in->path, "no RoCE packets (nothing to match)");
            return ROCE_EXIT_INPUT;
        }
    }
    for (unsigned p = 0; p < r->n_pt; p++) {
        unsigned rank = 0;
        for (unsigned q = 0; q < r->n_pt; q++) {
            int c = strcmp(r->names[q], r->names[p]);
            if (c == 0 && q != p) {
                roce_complainf("localize: two vantage points named '%s' (name them: NAME=FILE)",
                               r->names[p]);
                return usage_error();
            }
            rank += c < 0;
        }
        r->vp[p].tie_rank = rank;
    }
    if (r->n_pt < 2) {
        roce_complainf("localize: only one vantage point (%s): nothing to compare", r->names[0]);
        return ROCE_EXIT_INPUT;
    }
    return 0;
}

/* --offset NAME=NS; 0, or the exit status after a message. */
static int apply_offsets(struct lz_run *r)
{
    for (int i = 0; i < r->a.n_offsets; i++) {
        const char *arg = r->a.offsets[i], *eq = strrchr(arg, '=');
        char *end;
        unsigned p;
        if (eq == NULL || eq == arg || eq[1] == '\0') {
            roce_cli_bad_value("--offset", arg, "NAME=NS, a signed number of nanoseconds");
            return usage_error();
        }
        errno = 0;
        long long ns = strtoll(eq + 1, &end, DECIMAL);
        if (errno != 0 || *end != '\0' || ns > OFFSET_MAX_NS || ns < -OFFSET_MAX_NS ||
            eq[1] == ' ') {
            roce_cli_bad_value("--offset", arg, "NAME=NS, a signed number of nanoseconds");
            return usage_error();
        }
        for (p = 0; p < r->n_pt; p++)
            if (strlen(r->names[p]) == (size_t)(eq - arg) &&
                strncmp(r->names[p], arg, (size_t)(eq - arg)) == 0)
                break;
        if (p == r->n_pt) {
            roce_complainf("--offset: no vantage point named '%.*s'", (int)(eq - arg), arg);
            return usage_error();
        }
        if (p == 0) {
            roce_complainf("--offset: %s is the reference clock (offset 0)", r->names[0]);
            return usage_error();
        }
        roce_vantage_set_offset(r->v, p, ns);
    }
    return 0;
}

/* After estimating: every point needs an offset. 0, or ROCE_EXIT_INPUT. */
static int check_clocks(struct lz_run *r)
{
    int rc = 0;
    char why[ROCE_ANALYSIS_ERR_LEN];
    for (unsigned p = 1; p < r->n_pt; p++) {
        const struct roce_vantage_clock *c = roce_vantage_clock(r->v, p);
        if (c->status == ROCE_VCLOCK_NO_COMMON)
            snprintf(why, sizeof why,
                     "no transmission in common with %s (other traffic, or the captures do not "
                     "overlap in time); give its clock offset with --offset %s=NS",
                     r->names[0], r->names[p]);
        else if (c->status == ROCE_VCLOCK_ONE_WAY)
            snprintf(why, sizeof why,
                     "its clock offset cannot be estimated: what it shares with %s goes one way "
                     "only; give it with --offset %s=NS",
                     r->names[0], r->names[p]);
        else if (c->status == ROCE_VCLOCK_INCONSISTENT)
            snprintf(why, sizeof why,
                     "what it shares with %s does not agree on one clock offset (by %lld ns; a "
                     "clock step, points not on one path, or a reused QP's packets in captures "
                     "of different times); give it with --offset %s=NS",
                     r->names[0], (long long)(2 * c->error_bound_ns), r->names[p]);
        else
            continue;
        roce_complain(r->names[p], why);
        rc = ROCE_EXIT_INPUT;
    }
    return rc;
}

/* ---- the two readings ---- */

static void *first_worker(void *arg)
{
    struct lz_run *r = arg;
    for (;;) {
        pthread_mutex_lock(&r->mu);
        unsigned i = r->next_job++;
        pthread_mutex_unlock(&r->mu);
        if (i >= r->n_in)
            return NULL;
        roce_localize_read_first(&r->in[i]);
    }
}

/* The first reading of every file, -j at a time. 0, or the exit status. */
static int first_reading(struct lz_run *r)
{
    unsigned jobs = r->a.jobs ? r->a.jobs : r->n_in, started = 0;
    pthread_t th[ROCE_VANTAGE_MAX_POINTS];
    int rc = 0;
    if (jobs > r->n_in)
        jobs = r->n_in;
    while (started < jobs && pthread_create(&th[started], NULL, first_worker, r) == 0)
        started++;
    if (started == 0)
        first_worker(r);
    for (unsigned t = 0; t < started; t++)
        pthread_join(th[t], NULL);
    for (unsigned i = 0; i < r->n_in; i++) {
        struct lz_input *in = &r->in[i];
        if (in->oom) {
            roce_complain(in->path, "out of memory");
            rc = ROCE_EXIT_INPUT;
        } else if (in->failed) {
            roce_complain(in->path, in->msg);
            rc = ROCE_EXIT_INPUT;
        }
    }
    return rc;
}

/* The second reading: readers in threads, the matcher here. 0, or -1. */
static int second_reading(struct lz_run *r)
{
    pthread_t th[ROCE_VANTAGE_MAX_POINTS];
    unsigned started = 0;
    int src, rc = 0;
    for (unsigned i = 0; i < r->n_in; i++)
        if (roce_localize_queue_init(&r->in[i].q) != 0) {
            for (unsigned k = 0; k < i; k++)
                roce_localize_queue_free(&r->in[k].q);
            return -1;
        }
    for (; started < r->n_in; started++)
        if (pthread_create(&th[started], NULL, roce_localize_read_second, &r->in[started]) != 0)
            break;
    if (started < r->n_in)
        rc = -1;
    while (rc == 0 && (src = roce_vantage_need(r->v)) >= 0) {
        struct lz_batch *b = roce_localize_queue_next(&r->in[src].q);
        if (b == NULL) {
            roce_vantage_end(r->v, (unsigned)src);
            continue;
        }
        for (size_t k = 0; k < b->n; k++)
            roce_vantage_feed(r->v, b->r[k].point, &b->r[k].tx);
        int end = b->end;
        roce_localize_queue_release(&r->in[src].q);
        if (end)
            roce_vantage_end(r->v, (unsigned)src);
    }
    for (unsigned i = 0; i < r->n_in; i++)
        roce_localize_queue_abort(&r->in[i].q);
    for (unsigned t = 0; t < started; t++)
        pthread_join(th[t], NULL);
    for (unsigned i = 0; i < r->n_in; i++)
        roce_localize_queue_free(&r->in[i].q);
    if (rc == 0)
        roce_vantage_finish(r->v);
    return rc;
}

/* ---- main ---- */

/* Write the result with every writer chosen (their files opened before the
 * readings) and put it in place, then --annotate's files. */
static int write_output(struct lz_run *r, struct roce_writers *ws, const char *incomplete)
{
    struct roce_localize_report rep = {r->v,
                                       r->n_pt,
                                       r->pt,
                                       r->a.vcfg.path_delay_ns,
                                       r->a.split_name,
                                       r->a.out.top,
                                       incomplete,
                                       r->a.cfg.link_speed_mbps,
                                       r->a.spread_window_ns};
    for (unsigned i = 0; i < ws->n; i++) {
        struct roce_writer_run *w = &ws->run[i];
        int werr = w->w->ops->localize(w->fp, &rep) != 0;
        if (roce_output_finish(&w->out, w->path ? w->path : "stdout", werr) != 0)
            return ROCE_EXIT_OUTPUT;
    }
    if (r->ann.n && roce_lz_annotate_write(&r->ann, &r->a.cfg, &r->a.out, &rep) != 0)
        return ROCE_EXIT_OUTPUT;
    return 0;
}

/* --annotate: a file per capture, DIR/NAME.pcapng, opened before the
 * readings; with --split-by the points are known after the first reading
 * (open_split_annotated), only DIR is checked now. 0, or the exit status
 * after a message (two points of one name: usage). */
static int open_annotated(struct lz_run *r)
{
    static char names[ROCE_VANTAGE_MAX_POINTS][NAME_LEN];
    const char *np[ROCE_VANTAGE_MAX_POINTS], *paths[ROCE_VANTAGE_MAX_POINTS];
    if (r->a.annotate == NULL)
        return 0;
    if (r->a.split != ROCE_SPLIT_NONE)
        return roce_lz_annotate_dir(r->a.annotate) != 0 ? ROCE_EXIT_OUTPUT : 0;
    for (int i = 0; i < r->a.n_files; i++) {
        name_input(r->a.files[i], &paths[i], names[i], NAME_LEN);
        np[i] = names[i];
        for (int k = 0; k < i; k++)
            if (strcmp(names[k], names[i]) == 0) { /* as make_points says it */
                roce_complainf("localize: two vantage points named '%s' (name them: NAME=FILE)",
                               names[i]);
                return usage_error();
            }
    }
    return roce_lz_annotate_open(&r->ann, r->a.annotate, (unsigned)r->a.n_files, np, paths,
                                 ROCE_SPLIT_NONE, NULL) != 0
               ? ROCE_EXIT_OUTPUT
               : 0;
}

/* --annotate with --split-by: a file per point, DIR/NAME.pcapng for the
 * rest of a file and DIR/NAME/KEY.pcapng for a split point (make_points'
 * names), opened once the points are known. 0, or the exit status. */
static int open_split_annotated(struct lz_run *r)
{
    const char *np[ROCE_VANTAGE_MAX_POINTS], *paths[ROCE_VANTAGE_MAX_POINTS];
    struct roce_split_key keys[ROCE_VANTAGE_MAX_POINTS];
    if (r->a.annotate == NULL || r->a.split == ROCE_SPLIT_NONE)
        return 0;
    for (unsigned i = 0; i < r->n_in; i++)
        for (unsigned k = 0; k < r->in[i].n_sub; k++) {
            int p = r->in[i].sub[k].point;
            if (p < 0)
                continue;
            np[p] = r->names[p];
            paths[p] = r->in[i].path;
            keys[p] = r->in[i].sub[k].key;
        }
    return roce_lz_annotate_open(&r->ann, r->a.annotate, r->n_pt, np, paths, r->a.split, keys) != 0
               ? ROCE_EXIT_OUTPUT
               : 0;
}

/* The points' PFC pauses on the common clock (the offsets are final). */
static int order_pauses(struct lz_run *r)
{
    struct roce_vpauses *pp[ROCE_VANTAGE_MAX_POINTS] = {NULL};
    for (unsigned i = 0; i < r->n_in; i++)
        for (unsigned k = 0; k < r->in[i].n_sub; k++)
            if (r->in[i].sub[k].point >= 0)
                pp[r->in[i].sub[k].point] = r->in[i].sub[k].pauses;
    return roce_vantage_pauses(r->v, pp, r->a.spread_window_ns);
}

/* Everything after the arguments, into the writers' files (committed, or
 * aborted when nothing is written); the exit status. */
static int run(struct lz_run *r, struct roce_writers *ws)
{
    char incomplete[ROCE_ANALYSIS_ERR_LEN + 256];
    int rc;
    for (unsigned i = 0; i < r->n_in; i++) {
        struct lz_input *in = &r->in[i];
        char *name = malloc(NAME_LEN);
        if (name == NULL)
            return ROCE_EXIT_INPUT;
        name_input(r->a.files[i], &in->path, name, NAME_LEN);
        in->name = name;
        in->split = r->a.split;
        in->cfg = &r->a.cfg;
        in->sample_keys = SAMPLE_KEYS;
        in->max_flows = r->a.cfg.max_flows;
    }
    if ((rc = first_reading(r)) != 0 || (rc = make_points(r)) != 0 ||
        (rc = open_split_annotated(r)) != 0)
        return rc;
    r->v = roce_vantage_new(&r->a.vcfg, r->n_pt, r->vp, r->n_in);
    if (r->v == NULL) {
        roce_complain("localize", "out of memory");
        return ROCE_EXIT_INPUT;
    }
    if ((rc = apply_offsets(r)) != 0)
        return rc;
    if (roce_vantage_estimate(r->v, r->samples) != 0) {
        roce_complain("localize", "out of memory");
        return ROCE_EXIT_INPUT;
    }
    for (unsigned i = 0; i < r->n_in; i++) /* samples are done with */
        for (unsigned k = 0; k < r->in[i].n_sub; k++) {
            roce_vsample_free(r->in[i].sub[k].sample);
            r->in[i].sub[k].sample = NULL;
        }
    if ((rc = check_clocks(r)) != 0)
        return rc;
    if ((rc = roce_vantage_start(r->v)) != 0) {
        roce_complain("localize", rc == -3 ? "out of memory"
                                           : "the captures have no time in common once their "
                                             "clocks are aligned");
        return ROCE_EXIT_INPUT;
    }
    if (order_pauses(r) != 0) {
        roce_complain("localize", "out of memory");
        return ROCE_EXIT_INPUT;
    }
    if (second_reading(r) != 0) {
        roce_complain("localize", "cannot start the readers (out of memory or threads)");
        return ROCE_EXIT_INPUT;
    }
    incomplete[0] = '\0';
    for (unsigned i = 0; i < r->n_in; i++)
        if (r->in[i].read_error || r->in[i].failed) {
            roce_complain(r->in[i].path, r->in[i].msg);
            if (incomplete[0] == '\0')
                snprintf(incomplete, sizeof incomplete, "%s: %s", r->in[i].path, r->in[i].msg);
        }
    rc = write_output(r, ws, incomplete[0] ? incomplete : NULL);
    return rc != 0 ? rc : incomplete[0] ? ROCE_EXIT_INPUT : 0;
}

int roce_localize_main(int argc, char **argv)
{
    struct lz_run *r = calloc(1, sizeof *r);
    int rc;
    if (r == NULL) {
        roce_complain("localize", "out of memory");
        return ROCE_EXIT_INPUT;
    }
    rc = parse_args(argc, argv, &r->a);
    for (int i = 0; rc == 0 && i < r->a.n_files; i++) { /* never written onto */
        char name[NAME_LEN];
        const char *path;
        name_input(r->a.files[i], &path, name, sizeof name);
        if (roce_output_input(path) != 0)
            rc = usage_error();
    }
    if (rc == 0) {
        struct roce_writers ws;
        roce_writers_init(&ws, &r->a.out);
        r->n_in = (unsigned)r->a.n_files;
        r->in = calloc(r->n_in, sizeof *r->in);
        if (roce_writers_open(&ws) != 0) {
            rc = ROCE_EXIT_OUTPUT;
        } else if ((rc = open_annotated(r)) != 0) {
            roce_writers_abort(&ws);
        } else {
            pthread_mutex_init(&r->mu, NULL);
            rc = r->in != NULL ? run(r, &ws) : ROCE_EXIT_INPUT;
            pthread_mutex_destroy(&r->mu);
            roce_writers_abort(&ws); /* what was not written: nothing is left behind */
            roce_lz_annotate_free(&r->ann);
        }
    }
    for (unsigned i = 0; r->in != NULL && i < r->n_in; i++) {
        roce_localize_input_free(&r->in[i]);
        free((char *)r->in[i].name);
    }
    roce_vantage_free(r->v);
    free(r->in);
    free(r->a.offsets);
    free(r);
    return rc < 0 ? 0 : rc;
}
