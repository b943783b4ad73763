/*
 * live_view.c - the live monitor's terminal view and plain lines (see
 * live_view.h). Both list the same counters, from one table of rows.
 */
#define _DEFAULT_SOURCE
#include "live_view.h"

#include <assert.h>
#include <inttypes.h>
#include <stddef.h>
#include <time.h>

#include "fmt.h"
#include "report_fields.h"
#include "roce_time.h"

#define ANSI_HOME_CLEAR "\033[H\033[2J"
#define SECS_PER_MIN    60
#define SECS_PER_HOUR   3600
#define PCT             100.0
#define CLOCK_BUF       32

/* A counter the view shows: its label on screen, its plain-line name, and
 * the field of the report it shows (by its JSON path, report_fields.c). */
struct row {
    const char *label;
    const char *word;
    const char *field;
};

static const struct row rows[] = {
    {"packets", "packets", "capture.packets"},
    {"RoCE packets", "roce", "capture.roce_packets"},
    {"bytes", "bytes", "capture.bytes"},
    {"requests", "requests", "capture.request_packets"},
    {"responses", "responses", "capture.response_packets"},
    {"CNPs", "cnps", "capture.cnp_packets"},
    {"NAKs", "naks", "naks.total"},
    {"retransmitted", "retransmitted", "retransmission.packets"},
    {"go-back-N episodes", "episodes", "retransmission.episodes"},
    {"PSN gaps", "gaps", "psn_gaps.events"},
    {"PSNs missing", "missing", "psn_gaps.missing_psns"},
    {"CE marks", "ce", "ecn.ce_marked"},
    {"CE unanswered", "ce_unanswered", "ecn.ce_unanswered"},
    {"CNPs unexplained", "cnps_unexplained", "ecn.cnps_unexplained"},
    {"bad ICRC", "bad_icrc", "capture.icrc.bad"},
    {"malformed", "malformed", "capture.malformed_packets"},
    {"PFC frames", "pfc", "pfc.pfc_frames"},
    {"PAUSE frames", "pause", "pfc.pause_frames"},
    {NULL, NULL, NULL},
};

/* The offset in struct roce_totals of a row's counter. */
static size_t row_offset(const struct row *r)
{
    size_t off = 0;
    const struct roce_field *f = roce_fields_find(&roce_report_fields, r->field, &off);
    assert(f != NULL); /* the rows name fields of the report */
    (void)f;
    return off;
}

static double per_second(uint64_t n, int64_t ns)
{
    return ns > 0 ? (double)n * (double)ROCE_NS_PER_SEC / (double)ns : 0.0;
}

/* Local wall-clock time, "2024-05-01 12:00:01" (sep ' ') or "...T..." (sep 'T'). */
static void wall_clock(int64_t ns, char sep, char *buf, size_t len)
{
    time_t s = (time_t)(ns / ROCE_NS_PER_SEC);
    struct tm tm;
    if (localtime_r(&s, &tm) == NULL ||
        strftime(buf, len, sep == 'T' ? "%Y-%m-%dT%H:%M:%S" : "%Y-%m-%d %H:%M:%S", &tm) == 0)
        snprintf(buf, len, "%lld", (long long)s);
}

static void flow_line(FILE *o, const char *indent, const struct roce_live_flow *f)
{
    char name[ROCE_FMT_FLOW_LEN];
    roce_fmt_flow(&f->key, name, sizeof name);
    fprintf(o,
            "%s%-52s %-3s %7" PRIu64 " %6" PRIu64 " %6" PRIu64 " %8" PRIu64 " %6" PRIu64
            " %6" PRIu64 " %9" PRIu64 "\n",
            indent, name, roce_transport_name((enum roce_transport)f->transport), f->retransmitted,
            f->naks, f->gaps, f->missing_psns, f->ce_marked, f->cnps, f->packets);
}

static void flows_table(FILE *o, const char *indent, const struct roce_live_interval *iv)
{
    if (iv->n_troubled == 0)
        return;
    fprintf(o, "%s%-52s %-3s %7s %6s %6s %8s %6s %6s %9s\n", indent,
            "flows with trouble in the interval", "", "retx", "NAKs", "gaps", "missing", "CE",
            "CNPs", "packets");
    for (size_t i = 0; i < iv->n_top; i++)
        flow_line(o, indent, &iv->top[i]);
    if (iv->n_troubled > iv->n_top)
        fprintf(o, "%s(%zu more)\n", indent, iv->n_troubled - iv->n_top);
}

/* The diagnoses raised in the interval, worst first: severity, kind, how
 * much its count grew, its sentence. */
static void diagnoses(FILE *o, const char *indent, const struct roce_live_interval *iv)
{
    if (iv->n_raised == 0)
        return;
    fprintf(o, "%sdiagnoses raised in the interval (%zu of %zu):\n", indent, iv->n_raised,
            iv->n_diags);
    for (size_t i = 0; i < iv->n_raised; i++) {
        const struct roce_diagnosis *d = iv->raised[i].d;
        fprintf(o, "%s  %-8s %s (+%" PRIu64 "): %s\n", indent, roce_diag_severity_name(d->severity),
                roce_diag_kind_name(d->kind), iv->raised[i].added, d->summary);
    }
}

/* One PFC line per priority (and link PAUSE) with frames in the interval or paused. */
static void pfc_table(FILE *o, const char *indent, const struct roce_live_interval *iv)
{
    int header = 0;
    for (unsigned i = 0; i <= ROCE_PFC_PRIORITIES; i++) {
        const struct roce_pfc_prio *d =
            i < ROCE_PFC_PRIORITIES ? &iv->delta.pfc.prio[i] : &iv->delta.pfc.pause;
        if (!d->frames && !d->paused_ns)
            continue;
        if (!header++)
            fprintf(o, "%s%-12s %8s %8s %8s %12s %8s\n", indent, "PFC/PAUSE", "frames", "XOFF",
                    "XON", "quanta", "paused");
        char name[CLOCK_BUF];
        if (i < ROCE_PFC_PRIORITIES)
            snprintf(name, sizeof name, "priority %u", i);
        else
            snprintf(name, sizeof name, "link PAUSE");
        fprintf(o, "%s%-12s %8" PRIu64 " %8" PRIu64 " %8" PRIu64 " %12" PRIu64 " %7.1f%%%s\n",
                indent, name, d->frames, d->xoff, d->xon, d->quanta,
                iv->length_ns > 0 ? PCT * (double)d->paused_ns / (double)iv->length_ns : 0.0,
                d->storm_windows ? "  PAUSE STORM" : "");
    }
}

static void capture_line(FILE *o, const char *indent, const struct roce_live_interval *iv)
{
    const struct roce_livecap_stats *c = &iv->cap, *d = &iv->cap_delta;
    fprintf(o,
            "%scapture: %" PRIu64 " received, %" PRIu64 " dropped by the kernel, %" PRIu64
            " by the interface, %" PRIu64 " by the analysis (in the interval: %" PRIu64 ", %" PRIu64
            ", %" PRIu64 ", %" PRIu64 ")%s\n",
            indent, c->received, c->dropped, c->if_dropped, c->analysis_dropped, d->received,
            d->dropped, d->if_dropped, d->analysis_dropped,
            d->dropped || d->if_dropped || d->analysis_dropped ? "  PACKETS DROPPED" : "");
    fprintf(o,
            "%sflows: %" PRIu64 " tracked, %" PRIu64 " created, %" PRIu64 " retired, %" PRIu64
            " evicted\n",
            indent, iv->total->flows_active, iv->total->flows_created, iv->total->flows_retired,
            iv->total->flows_evicted);
}

int roce_live_view_screen(FILE *o, const struct roce_live_interval *iv)
{
    char now[CLOCK_BUF];
    int64_t up = iv->uptime_ns / ROCE_NS_PER_SEC;
    wall_clock(iv->wall_ns, ' ', now, sizeof now);
    fprintf(o,
            ANSI_HOME_CLEAR
            "rocescope live: %s (%s)   %s   up %lld:%02lld:%02lld   interval %.3f s%s\n\n",
            iv->iface, iv->link_type, now, (long long)(up / SECS_PER_HOUR),
            (long long)(up % SECS_PER_HOUR / SECS_PER_MIN), (long long)(up % SECS_PER_MIN),
            (double)iv->length_ns / (double)ROCE_NS_PER_SEC, iv->final ? "   (stopped)" : "");
    fprintf(o, "  %-20s %14s %14s %16s\n", "", "interval", "per second", "total");
    for (const struct row *r = rows; r->label != NULL; r++) {
        size_t off = row_offset(r);
        uint64_t d = roce_field_u64(&iv->delta, off);
        fprintf(o, "  %-20s %14" PRIu64 " %14.1f %16" PRIu64 "\n", r->label, d,
                per_second(d, iv->length_ns), roce_field_u64(iv->total, off));
    }
    fputc('\n', o);
    capture_line(o, "  ", iv);
    fputc('\n', o);
    diagnoses(o, "  ", iv);
    if (iv->n_raised)
        fputc('\n', o);
    flows_table(o, "  ", iv);
    if (iv->n_troubled)
        fputc('\n', o);
    pfc_table(o, "  ", iv);
    return fflush(o) != 0 || ferror(o) ? -1 : 0;
}

int roce_live_view_lines(FILE *o, const struct roce_live_interval *iv)
{
    char now[CLOCK_BUF];
    wall_clock(iv->wall_ns, 'T', now, sizeof now);
    fprintf(o, "%s %s", now, iv->iface);
    for (const struct row *r = rows; r->label != NULL; r++)
        fprintf(o, " %s %" PRIu64, r->word, roce_field_u64(&iv->delta, row_offset(r)));
    fprintf(o,
            " pps %.1f dropped %" PRIu64 " if_dropped %" PRIu64 " analysis_dropped %" PRIu64 "%s\n",
            per_second(iv->delta.packets, iv->length_ns), iv->cap_delta.dropped,
            iv->cap_delta.if_dropped, iv->cap_delta.analysis_dropped, iv->final ? " final" : "");
    diagnoses(o, "    ", iv);
    flows_table(o, "    ", iv);
    pfc_table(o, "    ", iv);
    return fflush(o) != 0 || ferror(o) ? -1 : 0;
}
