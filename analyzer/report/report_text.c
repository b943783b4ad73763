/*
 * report_text.c - the human summary (the CLI's default output).
 *
 * The diagnoses first (worst first, one line each), then the totals, the
 * flows that had trouble (gaps, retransmissions, NAKs, PSN reuse, CE marks /
 * CNPs, bad ICRC), worst first, the go-back-N episodes, and the clean flows
 * in one line.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "names.h"
#include "report.h"

#define COUNT_BUF          64
#define ROCE_TEXT_FINDINGS 12 /* findings the summary lists: what fits on a screen */

/* "N noun": one or many, as n asks. The text lives until the end of the
 * statement that called count() (C11 temporary lifetime). */
struct count_text {
    char s[COUNT_BUF];
};

static struct count_text count(uint64_t n, const char *one, const char *many)
{
    struct count_text c;
    snprintf(c.s, sizeof c.s, "%" PRIu64 " %s", n, n == 1 ? one : many);
    return c;
}

/* The step of the capture's time stamps (ns; 0: none, 1: finer than 1 us). */
static int64_t ts_step(const struct roce_totals *t)
{
    return t->ts_steps[ROCE_TS_FINE] ? 1
           : t->ts_steps[ROCE_TS_US] ? ROCE_NS_PER_US
           : t->ts_steps[ROCE_TS_MS] ? ROCE_NS_PER_MS
                                     : 0;
}

/* A latency in us, or "<1" / "<1000" when the time stamps cannot tell it
 * from 0 (a step of 1 us or 1 ms). */
static const char *lat_us(int64_t ns, int64_t step, char buf[ROCE_FMT_US_LEN])
{
    if (step > 1 && ns < step) {
        snprintf(buf, ROCE_FMT_US_LEN, "<%lld", (long long)(step / ROCE_NS_PER_US));
        return buf;
    }
    return roce_fmt_us_text(ns, buf);
}

static void latency_line(FILE *o, const char *label, const struct roce_lat_summary *s, int64_t step)
{
    char a[ROCE_FMT_US_LEN], b[ROCE_FMT_US_LEN], c[ROCE_FMT_US_LEN], d[ROCE_FMT_US_LEN];
    if (s->count == 0)
        return;
    fprintf(o, "  %-14s min %s us, p50 %s, p99 %s, max %s (%s", label, lat_us(s->min, step, a),
            lat_us(s->p50, step, b), lat_us(s->p99, step, c), lat_us(s->max, step, d),
            count(s->count, "sample", "samples").s);
    if (step > 1)
        fprintf(o, "; time stamps in %s steps", step == ROCE_NS_PER_US ? "1 us" : "1 ms");
    fputs(")\n", o);
}

static void naks_text(FILE *o, const struct roce_nak_counts *n)
{
    const char *sep = "";
    for (unsigned c = 0; c < ROCE_NAK_CODES; c++) {
        if (!n->code[c])
            continue;
        fprintf(o, "%s%s %" PRIu64, sep, roce_nak_code_text(c), n->code[c]);
        sep = ", ";
    }
    if (n->reserved_code) {
        fprintf(o, "%sreserved code %" PRIu64, sep, n->reserved_code);
        sep = ", ";
    }
    if (n->rnr)
        fprintf(o, "%sRNR %" PRIu64, sep, n->rnr);
}

static void triggers_text(FILE *o, const uint64_t by[ROCE_TRIGGER_COUNT])
{
    const char *sep = "";
    for (unsigned i = 0; i < ROCE_TRIGGER_COUNT; i++) {
        if (!by[i])
            continue;
        fprintf(o, "%s%s %" PRIu64, sep, roce_trigger_name(i), by[i]);
        sep = ", ";
    }
}

static void pfc_line(FILE *o, const char *name, const struct roce_pfc_prio *p)
{
    char a[ROCE_FMT_US_LEN];
    if (!p->frames)
        return;
    fprintf(o, "    %-12s %" PRIu64 " XOFF, %" PRIu64 " XON, paused %s us", name, p->xoff, p->xon,
            roce_fmt_us_text(p->paused_ns, a));
    if (p->storm_windows)
        fprintf(o, ", PAUSE STORM in %" PRIu64 " window%s", p->storm_windows,
                roce_fmt_plural(p->storm_windows));
    fputc('\n', o);
}

static void pfc_text(FILE *o, const struct roce_totals *t)
{
    const struct roce_pfc_report *p = &t->pfc;
    uint64_t unwrapped = 0;
    for (unsigned i = 1; i < ROCE_ENCAP_COUNT; i++)
        unwrapped += t->encap[i];
    if (unwrapped) {
        const char *sep = " (";
        fprintf(o, "  mirrored       %s unwrapped", count(unwrapped, "frame", "frames").s);
        for (unsigned i = 1; i < ROCE_ENCAP_COUNT; i++)
            if (t->encap[i]) {
                fprintf(o, "%s%s %" PRIu64, sep, roce_encap_name((enum roce_encap)i), t->encap[i]);
                sep = ", ";
            }
        fputs(")\n", o);
    }
    if (!p->pfc_frames && !p->pause_frames)
        return;
    fprintf(o, "  PFC/PAUSE      %s, %s\n", count(p->pfc_frames, "PFC frame", "PFC frames").s,
            count(p->pause_frames, "PAUSE frame", "PAUSE frames").s);
    for (unsigned i = 0; i < ROCE_PFC_PRIORITIES; i++) {
        char name[16];
        snprintf(name, sizeof name, "priority %u", i);
        pfc_line(o, name, &p->prio[i]);
    }
    pfc_line(o, "link PAUSE", &p->pause);
}

static void title(FILE *o, const struct roce_report *r)
{
    fputs("rocescope report: ", o);
    roce_name_fputs(r->n_files ? r->files[0] : "", o); /* names escaped (names.h) */
    if (r->n_files > 1)
        fprintf(o, " and %zu more file%s", r->n_files - 1, r->n_files > 2 ? "s" : "");
    fprintf(o, " (%s)\n", r->link_type ? r->link_type : "unknown link type");
}

/* One finding: severity, kind, its sentence, its first evidence frames;
 * indented under the capture's finding when the capture explains it. */
static void finding(FILE *o, const struct roce_diagnosis *d)
{
    const char *indent =
        d->cause == ROCE_CAUSE_CAPTURE && d->kind != ROCE_DIAG_CAPTURE ? "    " : "";
    fprintf(o, "  %s%-8s %s: %s", indent, roce_diag_severity_name(d->severity),
            roce_diag_kind_name(d->kind), d->summary);
    if (d->n_frames)
        fprintf(o, " (frame%s ", roce_fmt_plural(d->n_frames));
    for (unsigned k = 0; k < d->n_frames; k++)
        fprintf(o, "%s%" PRIu64, k ? ", " : "", d->frames[k]);
    fputs(d->n_frames ? ")\n" : "\n", o);
}

/* The diagnoses: the capture's finding first with those it explains, then
 * worst first, one line each, at most ROCE_TEXT_FINDINGS (then how many
 * more). */
static void diagnosis(FILE *o, const struct roce_diag_list *l)
{
    if (l->n == 0)
        fputs("  Diagnosis      nothing found: no loss, congestion or error to act on\n\n", o);
    else
        fprintf(o, "  Diagnosis      %zu finding%s, %sworst first:\n", l->n, roce_fmt_plural(l->n),
                l->d[0].kind == ROCE_DIAG_CAPTURE ? "the capture first, then " : "");
    for (size_t i = 0; i < l->n && i < ROCE_TEXT_FINDINGS; i++)
        finding(o, &l->d[i]);
    if (l->n > ROCE_TEXT_FINDINGS)
        fprintf(o, "  ... and %zu more finding%s (the JSON report lists them all)\n",
                l->n - ROCE_TEXT_FINDINGS, roce_fmt_plural(l->n - ROCE_TEXT_FINDINGS));
    if (l->n)
        fputc('\n', o);
}

int roce_report_text_head(const struct roce_report *r, FILE *o)
{
    struct roce_diag_list l;
    title(o, r);
    if (roce_report_diagnoses(r, &l) != 0)
        return -1;
    diagnosis(o, &l);
    roce_diag_list_free(&l);
    return 0;
}

/* Nonzero when the capture had native InfiniBand packets. */
static int has_ib(const struct roce_totals *t)
{
    return t->ib_packets || t->vcrc_good || t->vcrc_bad || t->vcrc_unchecked;
}

/* The name of a congestion mark: CE (RoCEv2), FECN (InfiniBand) or both. */
static const char *mark_name(const struct roce_totals *t, uint64_t n)
{
    if (!has_ib(t))
        return n == 1 ? "CE mark" : "CE marks";
    if (t->rocev2_packets)
        return n == 1 ? "CE/FECN mark" : "CE/FECN marks";
    return n == 1 ? "FECN mark" : "FECN marks";
}

/* The InfiniBand lines (only when there was InfiniBand). */
static void ib_text(FILE *o, const struct roce_totals *t)
{
    if (!has_ib(t))
        return;
    fprintf(o,
            "  InfiniBand     %" PRIu64 " transport, %" PRIu64 " raw, %" PRIu64
            " IPv6 (not RoCE); VCRC %" PRIu64 " good, %" PRIu64 " bad, %" PRIu64 " unchecked\n",
            t->ib_packets, t->ib_other[ROCE_IB_RAW], t->ib_other[ROCE_IB_IPV6], t->vcrc_good,
            t->vcrc_bad, t->vcrc_unchecked);
}

/* ": network loss N, missed by the capture N (M inferred), ..." of the
 * gaps settled so far (nothing when none). */
static void gap_classes_text(FILE *o, const uint64_t by[ROCE_GAP_CLASSES])
{
    static const unsigned order[] = {ROCE_GAP_NETWORK_LOSS, ROCE_GAP_CAPTURE_LOSS,
                                     ROCE_GAP_REORDERED, ROCE_GAP_UNDETERMINED};
    const char *sep = ": ";
    for (unsigned i = 0; i < sizeof order / sizeof order[0]; i++) {
        unsigned c = order[i];
        uint64_t n = by[c] + (c == ROCE_GAP_CAPTURE_LOSS ? by[ROCE_GAP_CAPTURE_INFERRED] : 0);
        if (!n)
            continue;
        fprintf(o, "%s%s %" PRIu64, sep,
                c == ROCE_GAP_NETWORK_LOSS   ? "lost in the network"
                : c == ROCE_GAP_CAPTURE_LOSS ? "missed by the capture"
                : c == ROCE_GAP_REORDERED    ? "reordered"
                                             : "undetermined",
                n);
        if (c == ROCE_GAP_CAPTURE_LOSS && by[ROCE_GAP_CAPTURE_INFERRED])
            fprintf(o, " (%" PRIu64 " inferred)", by[ROCE_GAP_CAPTURE_INFERRED]);
        sep = ", ";
    }
}

static void totals(FILE *o, const struct roce_report *r)
{
    const struct roce_totals *t = &r->t;
    char dur[ROCE_FMT_TIME_LEN], ib[COUNT_BUF] = "";

    if (has_ib(t))
        snprintf(ib, sizeof ib, ", InfiniBand %" PRIu64, t->ib_packets);
    roce_fmt_seconds(t->packets ? t->last_ts_ns - t->first_ts_ns : 0, dur, sizeof dur);
    if (r->error != NULL) {
        fprintf(o, "  INCOMPLETE     %s: ",
                r->live ? "the live capture stopped early" : "not all of the input could be read");
        roce_name_fputs(r->error, o); /* it names a file */
        fputc('\n', o);
    }
    if (r->files_overlap)
        fputs("  time order     the files overlap or are not in time order: a flow that goes on "
              "across files is analysed out of order (order them, or use -j)\n",
              o);
    if (r->live != NULL)
        fprintf(o,
                "  capture        %" PRIu64 " received, %" PRIu64 " dropped by the kernel, %" PRIu64
                " by the interface, %" PRIu64 " by the analysis\n",
                r->live->received, r->live->dropped, r->live->if_dropped,
                r->live->analysis_dropped);
    fprintf(o,
            "  packets        %" PRIu64 " in %s s: RoCE %" PRIu64 " (v2 %" PRIu64 ", v1 %" PRIu64
            "%s), non-RoCE %" PRIu64 ", malformed %" PRIu64 ", truncated %" PRIu64 "\n",
            t->packets, dur, t->roce_packets, t->rocev2_packets, t->rocev1_packets, ib,
            t->non_roce_packets, t->malformed_packets, t->truncated_packets);
    fprintf(o, "  RoCE traffic   %s, %s, %s\n", count(t->request_packets, "request", "requests").s,
            count(t->response_packets, "response", "responses").s,
            count(t->cnp_packets, "CNP", "CNPs").s);
    fprintf(o, "  ICRC           %" PRIu64 " good, %" PRIu64 " bad, %" PRIu64 " unchecked%s",
            t->icrc_good, t->icrc_bad, t->icrc_unchecked,
            roce_diag_icrc_all_bad(t) ? " (every ICRC checked is bad: the capture path probably "
                                        "altered the frames, not a link)"
                                      : "");
    for (unsigned f = ROCE_REWRITE_NONE + 1; f < ROCE_REWRITE_FIELDS; f++)
        if (t->icrc_rewritten[f])
            fprintf(o, "; %" PRIu64 " valid with another %s (rewritten on the way)",
                    t->icrc_rewritten[f],
                    f == ROCE_REWRITE_UDP_SPORT ? "UDP source port" : "IPv4 identification");
    fputc('\n', o);
    ib_text(o, t);
    fprintf(o,
            "  flows          %" PRIu64 " tracked, %" PRIu64 " connection%s (%" PRIu64
            " set up by CM), %" PRIu64 " evicted\n",
            t->flows_active, t->connections, roce_fmt_plural(t->connections), t->cm_connections,
            t->flows_evicted);
    fprintf(o, "  PSN gaps       %" PRIu64 " (%s missing)", t->gap_events,
            count(t->missing_psns, "PSN", "PSNs").s);
    gap_classes_text(o, t->gap_class_events);
    if (t->reordered_packets)
        fprintf(o, "; %s out of order", count(t->reordered_packets, "packet", "packets").s);
    fputc('\n', o);
    fprintf(o, "  retransmitted  %s in %s", count(t->retransmitted_packets, "packet", "packets").s,
            count(t->episodes, "go-back-N episode", "go-back-N episodes").s);
    if (t->episodes) {
        fputs(" (", o);
        triggers_text(o, t->by_trigger);
        fputc(')', o);
    }
    fprintf(o, "\n  NAKs           %" PRIu64, t->naks.total);
    if (t->naks.total) {
        fputs(": ", o);
        naks_text(o, &t->naks);
    }
    fputc('\n', o);
    if (t->read_response_gaps)
        fprintf(o, "  READ resp gaps %" PRIu64 " (%s missing)\n", t->read_response_gaps,
                count(t->read_response_missing, "PSN", "PSNs").s);
    if (t->psn_reuse)
        fprintf(o, "  PSN reuse      %s a PSN of an earlier READ\n",
                count(t->psn_reuse, "request reuses", "requests reuse").s);
    fprintf(o, "  ECN            %" PRIu64 " %s (%" PRIu64 " answered, %" PRIu64 " unanswered), %s",
            t->ce_marked, mark_name(t, t->ce_marked), t->ce_answered, t->ce_unanswered,
            count(t->cnp_packets, "CNP", "CNPs").s);
    if (t->becn_packets)
        fprintf(o, " and %s", count(t->becn_packets, "BECN response", "BECN responses").s);
    fprintf(o, " (%" PRIu64 " matched, %" PRIu64 " unexplained)\n", t->cnps_matched,
            t->cnps_unexplained);
    latency_line(o, "CNP latency", &t->cnp_latency, ts_step(t));
    pfc_text(o, t);
    latency_line(o, "ACK latency", &t->ack_latency, ts_step(t));
    uint64_t diag_limits =
        t->dcqcn_untracked + t->gap_tracking_overflow + t->macs_untracked + t->udp_sports_untracked;
    if (t->flows_evicted || t->episodes_unlisted || t->verdicts_forced || t->ce_tracking_overflow ||
        t->cnp_tracking_overflow || diag_limits || t->flows_unlisted) {
        fprintf(o,
                "  limits hit     %s evicted, %s not listed, %s settled early, %s untracked, "
                "%s decided early",
                count(t->flows_evicted, "flow", "flows").s,
                count(t->episodes_unlisted, "episode", "episodes").s,
                count(t->verdicts_forced, "verdict", "verdicts").s,
                count(t->ce_tracking_overflow, "CE mark", "CE marks").s,
                count(t->cnp_tracking_overflow, "CNP", "CNPs").s);
        if (diag_limits)
            fprintf(o,
                    "; for the diagnoses: %s not evaluated, %s settled early by time, "
                    "%s of untracked MACs, %s not kept",
                    count(t->dcqcn_untracked, "CNP", "CNPs").s,
                    count(t->gap_tracking_overflow, "gap", "gaps").s,
                    count(t->macs_untracked, "frame", "frames").s,
                    count(t->udp_sports_untracked, "source port", "source ports").s);
        if (t->flows_unlisted)
            fprintf(o, "; %s not listed in this report (--final-flows)",
                    count(t->flows_unlisted, "flow", "flows").s);
        fputc('\n', o);
    }
}

/* What of the CNPs f carried was unexplained: "" (none), ", unexplained"
 * (all), or " (M unexplained)". */
static const char *carried_unexplained(const struct roce_flow_report *f, char *buf, size_t len)
{
    uint64_t n = f->cnps_carried_unexplained;
    if (n == 0)
        return "";
    if (n == f->cnp_packets)
        return f->cnp_packets == 1 ? ", unexplained" : ", all unexplained";
    snprintf(buf, len, " (%" PRIu64 " unexplained)", n);
    return buf;
}

static void flow_text(FILE *o, const struct roce_report *r, const struct roce_flow_report *f,
                      unsigned rank)
{
    const struct roce_report_flow *rf = roce_report_flow_x(r, f);
    char name[ROCE_FMT_FLOW_LEN], why[COUNT_BUF];
    roce_fmt_flow(&f->key, name, sizeof name);
    fprintf(o, "  #%u %s  %s", rank, name, roce_transport_name((enum roce_transport)f->transport));
    if (rf->has_peer)
        fprintf(o, ", paired with QP 0x%06x (%s)", (unsigned)rf->peer.dqpn,
                roce_paired_by_name(f->paired_by));
    fprintf(o, "\n     %s", count(f->packets, "packet", "packets").s);
#define ITEM(cond, ...)                                                                            \
    do {                                                                                           \
        if (cond) {                                                                                \
            fputs(", ", o);                                                                        \
            fprintf(o, __VA_ARGS__);                                                               \
        }                                                                                          \
    } while (0)
    ITEM(f->retransmitted_packets, "%" PRIu64 " retransmitted in %" PRIu64 " episode%s",
         f->retransmitted_packets, f->episodes, roce_fmt_plural(f->episodes));
    ITEM(f->gap_events, "%" PRIu64 " PSN gap%s (%" PRIu64 " missing)", f->gap_events,
         roce_fmt_plural(f->gap_events), f->missing_psns);
    if (f->gap_events)
        gap_classes_text(o, f->gap_class_gaps);
    ITEM(f->reordered_packets, "%s out of order",
         count(f->reordered_packets, "packet", "packets").s);
    ITEM(f->psn_reuse, "%s a PSN of an earlier READ",
         count(f->psn_reuse, "request reuses", "requests reuse").s);
    ITEM(f->read_response_gaps, "%s",
         count(f->read_response_gaps, "READ response gap", "READ response gaps").s);
    ITEM(f->ce_marked, "%s (%" PRIu64 " unanswered)",
         f->key.version == ROCE_VERSION_IB ? count(f->ce_marked, "FECN mark", "FECN marks").s
                                           : count(f->ce_marked, "CE mark", "CE marks").s,
         f->ce_unanswered);
    ITEM(f->cnps_for_flow, "%s for it (%" PRIu64 " matched, %" PRIu64 " unexplained)",
         count(f->cnps_for_flow, "CNP", "CNPs").s, f->cnps_matched, f->cnps_unexplained);
    ITEM(f->cnp_packets, "%s carried%s", count(f->cnp_packets, "CNP", "CNPs").s,
         carried_unexplained(f, why, sizeof why));
    ITEM(f->becn_packets, "%s", count(f->becn_packets, "BECN carried", "BECNs carried").s);
    ITEM(f->bad_icrc, "%s", count(f->bad_icrc, "bad ICRC", "bad ICRCs").s);
    ITEM(f->bad_vcrc, "%s", count(f->bad_vcrc, "bad VCRC", "bad VCRCs").s);
    ITEM(f->dcqcn.cnps_evaluated, "DCQCN %s (median rate ratio %u.%02u over %s evaluated)",
         roce_dcqcn_verdict_name(f->dcqcn.verdict), (unsigned)(f->dcqcn.ratio_ppm / 1000000u),
         (unsigned)(f->dcqcn.ratio_ppm % 1000000u / 10000u),
         count(f->dcqcn.cnps_evaluated, "CNP", "CNPs").s);
    if (f->pause_stalls) {
        int64_t share = roce_report_pause_share(f);
        char st[ROCE_FMT_US_LEN];
        fprintf(o, ", %s by pauses, %s us", count(f->pause_stalls, "stall", "stalls").s,
                roce_fmt_us_text(f->pause_stall_ns, st));
        if (share >= 0)
            fprintf(o, " (%" PRId64 ".%" PRId64 " %% of its life)", share / 10, share % 10);
        ITEM(f->hol_stalls, "%" PRIu64 " of them head-of-line", f->hol_stalls);
    }
#undef ITEM
    if (f->naks.total) {
        fputs(", NAKs sent: ", o);
        naks_text(o, &f->naks);
    }
    fputc('\n', o);
}

static void episodes_text(FILE *o, const struct roce_report *r, unsigned top)
{
    size_t n = r->n_episodes;
    char name[ROCE_FMT_FLOW_LEN], a[ROCE_FMT_US_LEN], b[ROCE_FMT_US_LEN], c[ROCE_FMT_US_LEN];
    if (n == 0)
        return;
    fprintf(o, "\nGo-back-N episodes (%zu listed%s):\n", n, n > top ? ", first shown" : "");
    for (size_t i = 0; i < n && i < top; i++) {
        const struct roce_episode *ep = &r->episodes[i];
        const struct roce_flow_report *f = roce_report_flow(r, ep->flow_id);
        if (f != NULL)
            roce_fmt_flow(&f->key, name, sizeof name);
        else
            snprintf(name, sizeof name, "(evicted flow %" PRIu64 ")", ep->flow_id);
        fprintf(o, "  frame %" PRIu64 "  %s  PSN %u..%u, %s, trigger %s", ep->first_frame, name,
                (unsigned)ep->first_psn, (unsigned)ep->last_psn,
                count(ep->packets, "packet", "packets").s, roce_trigger_name(ep->trigger));
        if (ep->nak_frame && ep->has_nak_generation)
            fprintf(o, " (NAK frame %" PRIu64 " sent %s us after the out-of-sequence arrival",
                    ep->nak_frame, roce_fmt_us_text(ep->nak_generation_ns, c));
        else if (ep->nak_frame)
            fprintf(o, " (NAK frame %" PRIu64, ep->nak_frame);
        if (ep->nak_frame)
            fprintf(o, ", resent after %s us)", roce_fmt_us_text(ep->nak_to_resend_ns, a));
        fprintf(o, ", lasted %s us\n", roce_fmt_us_text(ep->last_ts_ns - ep->first_ts_ns, b));
    }
}

/* Who sent pause p: "host NIC 10.0.14.2 (02:...)", "fabric (02:...)". */
static void pause_sender(FILE *o, const struct roce_report *r, const struct roce_pause_episode *p)
{
    const struct roce_host_mac *m = roce_pause_sender(r, p);
    char mac[ROCE_MAC_TEXT_LEN], addr[ROCE_FMT_ADDR_LEN];
    if (!p->has_mac) {
        fputs("an untracked MAC", o);
        return;
    }
    roce_mac_format(p->mac, mac, sizeof mac);
    if (m != NULL && roce_host_mac_role(m) == ROCE_MAC_UNROUTED) {
        roce_fmt_addr(m->addr, m->af, addr, sizeof addr);
        fprintf(o, "host NIC %s (%s)", addr, mac);
    } else {
        fprintf(o, "the fabric (%s)", mac);
    }
}

/* The pause episodes (ANALYSIS.md "Pause victims"): the first top. */
static void pauses_text(FILE *o, const struct roce_report *r, unsigned top)
{
    const struct roce_pause_report *l = &r->t.pause_list;
    char a[ROCE_FMT_US_LEN], b[ROCE_FMT_US_LEN], name[ROCE_FMT_FLOW_LEN];
    if (l->n == 0)
        return;
    fprintf(o, "\nPause episodes (%u listed", (unsigned)l->n);
    if (r->t.pauses_unlisted)
        fprintf(o, ", %" PRIu64 " more not listed", r->t.pauses_unlisted);
    fprintf(o, "%s):\n", l->n > top ? ", first shown" : "");
    for (unsigned i = 0; i < l->n && i < top && i < ROCE_PAUSES_LISTED; i++) {
        const struct roce_pause_episode *p = &l->p[i];
        fprintf(o, "  frame %" PRIu64 "  ", p->frame);
        if (p->prio < ROCE_PFC_PRIORITIES)
            fprintf(o, "priority %u", (unsigned)p->prio);
        else
            fputs("link PAUSE", o);
        fputs(" paused by ", o);
        pause_sender(o, r, p);
        fprintf(o, " at %s us, %s us (%s, ended by %s): %s",
                roce_fmt_us_text(p->start_ns - r->t.first_ts_ns, a),
                roce_fmt_us_text(p->end_ns - p->start_ns, b), count(p->xoffs, "XOFF", "XOFFs").s,
                p->xon ? "XON" : "expiry", count(p->victims, "victim", "victims").s);
        if (p->victims)
            fprintf(o, " (%" PRIu64 " innocent), stalled %s us", p->innocent,
                    roce_fmt_us_text(p->stall_ns, a));
        fputc('\n', o);
        for (unsigned k = 0; k < p->n_named && k < ROCE_PAUSE_VICTIMS; k++) {
            const struct roce_pause_victim *v = &p->v[k];
            roce_fmt_flow(&v->key, name, sizeof name);
            fprintf(o, "     %s  stalled %s us until frame %" PRIu64 "%s\n", name,
                    roce_fmt_us_text(v->stall_ns, a), v->resume_frame,
                    v->innocent ? ", innocent (head-of-line blocked)" : "");
        }
        if (p->victims > p->n_named)
            fprintf(o, "     and %" PRIu64 " more\n", p->victims - p->n_named);
    }
}

int roce_report_text(const struct roce_report *r, FILE *o, unsigned top)
{
    const struct roce_flow_report **bad = calloc(r->n_flows ? r->n_flows : 1, sizeof *bad);
    size_t n_bad, n_clean = 0;
    uint64_t clean_packets = 0, by_transport[8] = {0};
    struct roce_diag_list l;

    if (bad == NULL || roce_report_diagnoses(r, &l) != 0) {
        free(bad);
        return -1;
    }
    title(o, r);
    diagnosis(o, &l);
    totals(o, r);
    /* the one ranking (the HTML page's, Wireshark's RoCE Flows') */
    n_bad = roce_report_rank(r->flows, r->n_flows, &l, NULL, 1, bad);
    roce_diag_list_free(&l);
    if (n_bad == ROCE_RANK_NOMEM) {
        free(bad);
        return -1;
    }
    for (size_t i = n_bad; i < r->n_flows; i++) {
        const struct roce_flow_report *f = bad[i];
        n_clean++;
        clean_packets += f->packets;
        by_transport[f->transport & 7]++;
    }
    if (n_bad) {
        fprintf(o, "\nFlows with trouble, worst first (%zu", n_bad);
        if (n_bad > top)
            fprintf(o, ", first %u shown", top);
        fputs("):\n", o);
        for (size_t i = 0; i < n_bad && i < top; i++)
            flow_text(o, r, bad[i], (unsigned)i + 1);
    }
    episodes_text(o, r, top);
    pauses_text(o, r, top);
    if (n_clean == 0) {
        fputs("\nClean flows: none\n", o);
    } else {
        fprintf(o, "\nClean flows: %zu (%s", n_clean, count(clean_packets, "packet", "packets").s);
        for (unsigned t = 0; t < 8; t++)
            if (by_transport[t])
                fprintf(o, ", %s %" PRIu64, roce_transport_name((enum roce_transport)t),
                        by_transport[t]);
        fputs(")\n", o);
    }
    free(bad);
    return ferror(o) ? -1 : 0;
}
