/*
 * roce_diag_text.c - the sentences of the diagnoses (see roce_diag.h).
 *
 * Each subject gets a phrase: itself and its figures ("10.0.0.1 -> 10.0.0.2
 * QP 0x00000b (1 PSN gap, 2 PSNs missing)"). Each finding gets one
 * sentence: with one subject, the subject, what happened, its figures and
 * what to do; with several, how many, what happened, the worst
 * ROCE_DIAG_WORST with their figures, how many more, and what to do. The
 * capture's finding names every fault it found.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "roce_diag_int.h"
#include "roce_time.h"

#define PPM         1000000u
#define KBPS_PER_GB 1000u
#define MAX_QP_TEXT 80
#define PCT_TENTHS  1000u

/* Append to the text s of size cap (cut at cap - 1 characters, as meant:
 * the return value is looked at, so GCC does not warn of the cut). */
#define SAY(s, cap, ...)                                                                           \
    do {                                                                                           \
        size_t at_ = strlen(s);                                                                    \
        if (at_ < (cap) && snprintf((s) + at_, (cap)-at_, __VA_ARGS__) < 0)                        \
            (s)[at_] = '\0'; /* an encoding error: what was there stays */                         \
    } while (0)

static const char *plural(uint64_t n)
{
    return n == 1 ? "" : "s";
}

static unsigned long long ull(uint64_t n)
{
    return (unsigned long long)n;
}

/* Gb/s with one decimal from Mb/s. */
static void gbps(uint64_t mbps, char *buf, size_t len)
{
    (void)snprintf(buf, len, "%llu.%llu", ull(mbps / KBPS_PER_GB), ull((mbps % KBPS_PER_GB) / 100));
}

/* A duration such as "1 s", "500 ms", "250 us" or "1500 ns". */
static void duration(int64_t ns, char *buf, size_t len)
{
    if (ns % ROCE_NS_PER_SEC == 0)
        (void)snprintf(buf, len, "%lld s", (long long)(ns / ROCE_NS_PER_SEC));
    else if (ns % ROCE_NS_PER_MS == 0)
        (void)snprintf(buf, len, "%lld ms", (long long)(ns / ROCE_NS_PER_MS));
    else if (ns % ROCE_NS_PER_US == 0)
        (void)snprintf(buf, len, "%lld us", (long long)(ns / ROCE_NS_PER_US));
    else
        (void)snprintf(buf, len, "%lld ns", (long long)ns);
}

/* A time span with three significant decimals: "2.100 us", "1.250 ms". */
static void span_text(uint64_t ns, char *buf, size_t len)
{
    if (ns >= ROCE_NS_PER_SEC)
        (void)snprintf(buf, len, "%.3f s", (double)ns / ROCE_NS_PER_SEC);
    else if (ns >= ROCE_NS_PER_MS)
        (void)snprintf(buf, len, "%.3f ms", (double)ns / ROCE_NS_PER_MS);
    else
        (void)snprintf(buf, len, "%.3f us", (double)ns / ROCE_NS_PER_US);
}

/* A share in percent with one decimal, rounded down: "41.2". */
static void pct(uint64_t part, uint64_t whole, char *buf, size_t len)
{
    uint64_t tenths = whole ? (part * PCT_TENTHS) / whole : 0;
    (void)snprintf(buf, len, "%llu.%llu", ull(tenths / 10), ull(tenths % 10));
}

static const char *fault_words[ROCE_FAULTS] = {
    [ROCE_FAULT_LOSS] = "capture loss",       [ROCE_FAULT_TRUNCATION] = "truncation",
    [ROCE_FAULT_TIMESTAMPS] = "time stamps",  [ROCE_FAULT_CLOCK] = "clock",
    [ROCE_FAULT_REWRITE] = "rewritten field",
};

static const char *field_words(unsigned f)
{
    return f == ROCE_REWRITE_UDP_SPORT ? "UDP source port"
           : f == ROCE_REWRITE_IPV4_ID ? "IPv4 identification"
                                       : "header field";
}

size_t roce_diag_subject_text(unsigned kind, const struct roce_diag_subject *s, char *buf,
                              size_t len)
{
    char a[ROCE_ADDR_TEXT_LEN], b[ROCE_ADDR_TEXT_LEN], m[ROCE_MAC_TEXT_LEN];
    int n;
    roce_addr_format(s->flow.src, s->flow.af, a, sizeof a);
    roce_addr_format(s->flow.dst, s->flow.af, b, sizeof b);
    switch (roce_diag_kind(kind)->subject) {
    case ROCE_SUBJ_HOST:
        roce_mac_format(s->mac, m, sizeof m);
        n = snprintf(buf, len, "host %s MAC %s", a, m);
        break;
    case ROCE_SUBJ_PRIORITY:
        n = s->priority < ROCE_PFC_PRIORITIES ? snprintf(buf, len, "priority %u", s->priority)
                                              : snprintf(buf, len, "link PAUSE");
        break;
    case ROCE_SUBJ_PATH:
        n = snprintf(buf, len, "%s -> %s UDP source port %u", a, b, s->udp_sport);
        break;
    case ROCE_SUBJ_RECEIVER:
        n = snprintf(buf, len, "receiver %s", b);
        break;
    case ROCE_SUBJ_FAULT:
        if (s->fault == ROCE_FAULT_REWRITE)
            n = snprintf(buf, len, "rewritten %s", field_words(s->field));
        else
            n = snprintf(buf, len, "%s", s->fault < ROCE_FAULTS ? fault_words[s->fault] : "fault");
        break;
    default:
        n = snprintf(buf, len, "%s -> %s QP 0x%06x", a, b, (unsigned)s->flow.dqpn);
        break;
    }
    return n > 0 ? (size_t)n : 0;
}

/* ---- what each kind says: after the subject, the figures, what to do ---- */

/* What happened, after the subject ("A -> B QP x lost packets ..." and "46
 * QPs lost packets ..."), and what to do. */
struct words {
    const char *what, *action;
};

static struct words words_of(unsigned kind, unsigned cause, int ib)
{
    switch (kind) {
    case ROCE_DIAG_PACKET_LOSS:
        return (struct words){" lost packets in the network",
                              "check the drop and error counters of the switch ports on the path"};
    case ROCE_DIAG_CAPTURE_LOSS:
        return (struct words){
            ": the capture missed packets that the network delivered",
            "the capture dropped them, give it a larger buffer or a hardware tap"};
    case ROCE_DIAG_RETRANSMISSION_TIMEOUT:
        return (struct words){" resent after a timeout with no NAK seen",
                              "requests or their ACKs were lost where this capture does not see, "
                              "or the responder stalled"};
    case ROCE_DIAG_RNR:
        return (struct words){" got RNR NAKs", "the responder had no receive buffer posted; post "
                                               "receives ahead of the sender or raise its RNR "
                                               "retry count"};
    case ROCE_DIAG_REMOTE_ERROR:
        return (struct words){": the responder rejected requests",
                              "check the memory region's rkey, bounds and access rights; the QP is "
                              "now in the error state"};
    case ROCE_DIAG_CNP_IGNORED:
        return (struct words){
            " kept sending at its rate after CNPs",
            ib ? "congestion control is not slowing this sender, check that it is "
                 "enabled on its HCA and in the subnet manager"
               : "DCQCN is not slowing this sender, check that congestion control "
                 "is enabled on its NIC"};
    case ROCE_DIAG_CE_UNANSWERED:
        return ib ? (struct words){": FECN-marked packets and no CNP or BECN for any of them",
                                   "the receiver's HCA returns no congestion notification "
                                   "(congestion control off) or it takes a path this capture "
                                   "does not see"}
                  : (struct words){": CE-marked packets and no CNP for any of them",
                                   "the receiver's NIC sends no CNPs (ECN notification off) or "
                                   "they take a path this capture does not see"};
    case ROCE_DIAG_CE_SOME_UNANSWERED:
        return (struct words){": congestion marks left unanswered",
                              "the receiver's NIC paces its CNPs further apart than the CNP window "
                              "(--cnp-window), some CNPs take a path this capture does not see, "
                              "or their QP could not be paired (no response captured)"};
    case ROCE_DIAG_CNP_UNEXPLAINED:
        return (struct words){": CNPs with no congestion mark seen",
                              "the marks were set where this capture does not see (a capture "
                              "upstream of the marking switch), the CNP's QP could not be paired "
                              "with its data (no response captured), or the NIC sends CNPs "
                              "without marks"};
    case ROCE_DIAG_SLOW_RECEIVER:
        return (struct words){" sent PFC/PAUSE frames",
                              "this receiver cannot keep up and pauses the fabric"};
    case ROCE_DIAG_PFC_STORM:
        return (struct words){" was paused for most of some windows",
                              "a pause storm, find the port that keeps sending XOFF (a stuck or "
                              "slow receiver)"};
    case ROCE_DIAG_PFC_PAUSED:
        return (struct words){" was paused for a large share of the capture",
                              "a receiver or a congested port keeps pausing it: find who sends the "
                              "XOFF frames (the PFC section names the senders)"};
    case ROCE_DIAG_ECMP_COLLISION:
        return (struct words){" carries several QPs", "every ECMP hash puts them on one path; give "
                                                      "each QP its own source port"};
    case ROCE_DIAG_ICRC_ERROR:
        return cause == ROCE_CAUSE_CAPTURE
                   ? (struct words){": frames with a bad ICRC, like every ICRC checked in this "
                                    "capture",
                                    "the capture path probably altered the frames (a "
                                    "header-rewriting sniffer or mirror), not a link"}
                   : (struct words){": frames with a bad ICRC",
                                    "corrupted on the way: check the CRC and FEC error counters of "
                                    "the links on the path"};
    case ROCE_DIAG_PSN_REUSE:
        return (struct words){" reused PSNs of an earlier RDMA READ's span",
                              "a requester bug that stalls the connection: fix the requester's PSN "
                              "accounting"};
    case ROCE_DIAG_GID_TYPE_MISMATCH:
        return (struct words){": the two ends use different RoCE versions",
                              "each end's GID index selects another GID type: give both ends the "
                              "same RoCE mode (GID index)"};
    case ROCE_DIAG_REORDERING:
        return (struct words){": packets arrived out of order",
                              "delivered late, not lost (adaptive routing or packet spraying): "
                              "harmless where the NICs accept out-of-order packets, else expect "
                              "NAKs"};
    case ROCE_DIAG_LOSSY_PRIORITY:
        return (struct words){" carries RoCE data but no PFC frame paused it, while another "
                              "priority was paused",
                              "RoCE runs on a lossy class here: put its traffic class on the "
                              "PFC-enabled priority (NIC trust mode, DSCP or PCP) or enable PFC "
                              "for this priority on the switches and NICs"};
    case ROCE_DIAG_CNP_CONGESTED:
        return (struct words){": its CNPs arrived congestion marked",
                              "the CNPs queue with congested traffic on their way back (a class "
                              "that marks ECN), so the sender slows down late: give CNPs a "
                              "strict-priority class of their own that marks no ECN (the NICs' "
                              "CNP DSCP, often 48, mapped to it on the switches)"};
    case ROCE_DIAG_CNP_UNPACED:
        return (struct words){": its responder answered every CE mark with a CNP of its own",
                              "the NIC paces no CNPs (each mark cuts the sender's rate again): "
                              "set its minimum time between CNPs (a few microseconds is usual)"};
    case ROCE_DIAG_INCAST:
        return (struct words){" had many senders at once while its traffic was CE marked, "
                              "paused or lost",
                              "the senders together exceed the receiver's link: stagger or "
                              "shrink their transfers (fewer peers at once, smaller messages), "
                              "and check that congestion control slows them (see cnp_ignored, "
                              "ce_unanswered)"};
    case ROCE_DIAG_PAUSE_VICTIM:
        return (struct words){" stalled while a host NIC paused its priority for another "
                              "destination",
                              "head-of-line blocking: the paused host is the cause (see "
                              "slow_receiver); give this traffic another priority or fix the "
                              "slow receiver"};
    case ROCE_DIAG_CNP_PRIORITY:
        return (struct words){": its CNPs travel on a lower priority than its data",
                              "CNPs wait behind the congestion they report, or are dropped on a "
                              "lossy class: give CNPs the high priority NICs use for them (the "
                              "NIC's CNP DSCP and PCP settings)"};
    default:
        return (struct words){"", ""};
    }
}

/* The figures of subject s of a finding of kind, in words, into f. */
static void figures(unsigned kind, const struct roce_diag_subject *s, const struct roce_config *cfg,
                    char *f, size_t cap)
{
    const struct roce_diag_figures *x = &s->fig;
    char a[ROCE_ADDR_TEXT_LEN], b[ROCE_ADDR_TEXT_LEN], m[ROCE_MAC_TEXT_LEN];
    const char *sep = "";
    uint64_t n = s->count;
    f[0] = '\0';
    switch (kind) {
    case ROCE_DIAG_PACKET_LOSS:
        if (x->gaps) {
            SAY(f, cap, "%llu PSN gap%s, %llu PSN%s missing", ull(x->gaps), plural(x->gaps),
                ull(x->missing_psns), plural(x->missing_psns));
            sep = "; ";
        }
        if (x->nak_episodes) {
            SAY(f, cap, "%s%llu resend%s after a NAK", sep, ull(x->nak_episodes),
                plural(x->nak_episodes));
            sep = "; ";
        }
        if (x->implied_episodes)
            SAY(f, cap, "%s%llu READ%s re-issued after lost responses", sep,
                ull(x->implied_episodes), plural(x->implied_episodes));
        break;
    case ROCE_DIAG_CAPTURE_LOSS:
        SAY(f, cap, "%llu burst%s, %llu PSN%s", ull(x->gaps), plural(x->gaps), ull(x->missing_psns),
            plural(x->missing_psns));
        if (x->gaps > x->inferred_gaps)
            SAY(f, cap, "; %llu acknowledged by the responder", ull(x->gaps - x->inferred_gaps));
        if (x->inferred_gaps)
            SAY(f, cap,
                "; %llu sent past by the requester for longer than a NAK round trip "
                "with no NAK or resend",
                ull(x->inferred_gaps));
        break;
    case ROCE_DIAG_RETRANSMISSION_TIMEOUT:
        SAY(f, cap, "%llu episode%s", ull(n), plural(n));
        break;
    case ROCE_DIAG_RNR:
        SAY(f, cap, "%llu RNR NAK%s", ull(n), plural(n));
        break;
    case ROCE_DIAG_REMOTE_ERROR:
        if (x->remote_access_error) {
            SAY(f, cap, "remote access error %llu", ull(x->remote_access_error));
            sep = ", ";
        }
        if (x->invalid_request) {
            SAY(f, cap, "%sinvalid request %llu", sep, ull(x->invalid_request));
            sep = ", ";
        }
        if (x->remote_other)
            SAY(f, cap, "%sremote operational or invalid RD request %llu", sep,
                ull(x->remote_other));
        break;
    case ROCE_DIAG_CNP_IGNORED:
        gbps(x->rate_before_mbps, a, sizeof a);
        gbps(x->rate_after_mbps, b, sizeof b);
        SAY(f, cap, "%s Gb/s after %llu CNP%s, %s Gb/s before, median ratio %llu.%02llu", b, ull(n),
            plural(n), a, ull(x->ratio_ppm / PPM), ull((x->ratio_ppm % PPM) / (PPM / 100)));
        break;
    case ROCE_DIAG_CE_UNANSWERED:
        SAY(f, cap, "%llu mark%s", ull(x->ce_marked), plural(x->ce_marked));
        break;
    case ROCE_DIAG_CE_SOME_UNANSWERED:
        SAY(f, cap, "%llu of %llu mark%s unanswered", ull(x->ce_unanswered), ull(x->ce_marked),
            plural(x->ce_marked));
        break;
    case ROCE_DIAG_CNP_UNEXPLAINED:
        SAY(f, cap, "%llu of %llu CNP%s", ull(x->cnps_unexplained), ull(x->cnps), plural(x->cnps));
        break;
    case ROCE_DIAG_CNP_CONGESTED:
        SAY(f, cap, "%llu of %llu CNP%s marked", ull(x->ce_marked), ull(x->cnps), plural(x->cnps));
        break;
    case ROCE_DIAG_SLOW_RECEIVER:
        roce_mac_format(s->mac, m, sizeof m);
        SAY(f, cap,
            "%llu frame%s; NIC MAC %s, the source of its RoCE frames, which arrive "
            "unrouted with ",
            ull(n), plural(n), m);
        if (s->flow.version == ROCE_VERSION_1)
            SAY(f, cap, "RoCEv1");
        else
            SAY(f, cap, "TTL %llu", ull(x->ttl));
        break;
    case ROCE_DIAG_PFC_STORM:
        duration(cfg->pfc_window_ns, a, sizeof a);
        SAY(f, cap, "more than %u%% of %llu window%s of %s", (unsigned)cfg->pfc_storm_pct, ull(n),
            plural(n), a);
        break;
    case ROCE_DIAG_PFC_PAUSED:
        pct(x->paused_ns, x->span_ns, a, sizeof a);
        span_text(x->span_ns, b, sizeof b);
        SAY(f, cap, "%s %% of %s, %llu XOFF frame%s", a, b, ull(x->pfc_frames),
            plural(x->pfc_frames));
        break;
    case ROCE_DIAG_ECMP_COLLISION:
        SAY(f, cap, "%llu QPs: ", ull(n));
        for (unsigned i = 0; i < s->n_dest_qps; i++)
            SAY(f, cap, "%s0x%06x", i ? ", " : "", (unsigned)s->dest_qps[i]);
        if (n > s->n_dest_qps)
            SAY(f, cap, ", ...");
        break;
    case ROCE_DIAG_ICRC_ERROR:
        SAY(f, cap, "%llu frame%s", ull(n), plural(n));
        break;
    case ROCE_DIAG_PSN_REUSE:
        SAY(f, cap, "%llu request%s", ull(n), plural(n));
        break;
    case ROCE_DIAG_GID_TYPE_MISMATCH:
        roce_addr_format(s->flow.src, s->flow.af, a, sizeof a);
        roce_addr_format(s->peer.src, s->peer.af, b, sizeof b);
        SAY(f, cap, "requests %s from %s, responses %s from %s",
            x->request_version == ROCE_VERSION_1 ? "RoCEv1" : "RoCEv2", a,
            x->response_version == ROCE_VERSION_1 ? "RoCEv1" : "RoCEv2", b);
        break;
    case ROCE_DIAG_LOSSY_PRIORITY:
        SAY(f, cap, "%llu request%s of %llu flow%s; priority %llu paused", ull(x->requests),
            plural(x->requests), ull(x->flows), plural(x->flows), ull(x->paused_priority));
        break;
    case ROCE_DIAG_CNP_UNPACED:
        span_text(x->min_gap_ns, a, sizeof a);
        SAY(f, cap, "%llu CNP%s for %llu mark%s, as close as %s", ull(x->cnps), plural(x->cnps),
            ull(x->ce_marked), plural(x->ce_marked), a);
        break;
    case ROCE_DIAG_INCAST:
        SAY(f, cap, "%llu sender%s at once", ull(x->fanin), plural(x->fanin));
        for (unsigned i = 0; i < s->n_senders && i < ROCE_DIAG_WORST; i++) {
            roce_addr_format(s->senders[i], s->flow.af, a, sizeof a);
            SAY(f, cap, "%s%s", i ? ", " : ": ", a);
        }
        if (x->senders > ROCE_DIAG_WORST && s->n_senders >= ROCE_DIAG_WORST)
            SAY(f, cap, " and %llu more", ull(x->senders - ROCE_DIAG_WORST));
        if (x->rate_mbps) {
            gbps(x->rate_mbps, a, sizeof a);
            gbps(x->link_speed_mbps, b, sizeof b);
            SAY(f, cap, "; %s Gb/s together on a %s Gb/s link", a, b);
        }
        SAY(f, cap, "; %llu CE mark%s, %llu pause%s, %llu network loss gap%s", ull(x->ce_marked),
            plural(x->ce_marked), ull(x->pauses), plural(x->pauses), ull(x->lost), plural(x->lost));
        break;
    case ROCE_DIAG_PAUSE_VICTIM:
        span_text(x->stall_ns, a, sizeof a);
        pct(x->stall_ns, x->span_ns, b, sizeof b);
        SAY(f, cap, "%llu stall%s, %s, %s %% of its life", ull(x->stalls), plural(x->stalls), a, b);
        break;
    case ROCE_DIAG_CNP_PRIORITY:
        SAY(f, cap, "%llu CNP%s on priority %llu, data on priority %llu", ull(x->cnps),
            plural(x->cnps), ull(x->cnp_priority), ull(x->priority));
        break;
    case ROCE_DIAG_REORDERING:
        span_text(x->max_ns, a, sizeof a);
        SAY(f, cap, "%llu packet%s, up to %llu PSN%s and %s behind", ull(x->reordered),
            plural(x->reordered), ull(x->max_psns), plural(x->max_psns), a);
        break;
    default:
        break;
    }
}

/* A fault of the capture, in words, into f. */
static void fault_text(const struct roce_diag_subject *s, char *f, size_t cap)
{
    const struct roce_diag_figures *x = &s->fig;
    char a[32];
    f[0] = '\0';
    switch (s->fault) {
    case ROCE_FAULT_LOSS:
        pct(x->psns_kept, x->psns_expected, a, sizeof a);
        SAY(f, cap,
            "it kept %s %% of the request PSNs (%llu gap%s the capture missed, on %llu QP%s", a,
            ull(x->gaps), plural(x->gaps), ull(x->flows), plural(x->flows));
        if (x->inferred_gaps)
            SAY(f, cap, ", %llu of them inferred", ull(x->inferred_gaps));
        if (x->undetermined_gaps)
            SAY(f, cap, "; %llu more gap%s undetermined", ull(x->undetermined_gaps),
                plural(x->undetermined_gaps));
        SAY(f, cap, ")");
        break;
    case ROCE_FAULT_TRUNCATION:
        SAY(f, cap, "%llu frame%s captured at ", ull(x->frames), plural(x->frames));
        SAY(f, cap, x->caplen_min == x->caplen_max ? "%llu" : "%llu-", ull(x->caplen_min));
        if (x->caplen_min != x->caplen_max)
            SAY(f, cap, "%llu", ull(x->caplen_max));
        SAY(f, cap, " bytes although their IP/UDP lengths make them ");
        SAY(f, cap, x->declared_min == x->declared_max ? "%llu" : "%llu-", ull(x->declared_min));
        if (x->declared_min != x->declared_max)
            SAY(f, cap, "%llu", ull(x->declared_max));
        SAY(f, cap,
            " bytes and their original length was written as captured (counted as "
            "truncated, bytes from the declared lengths)");
        break;
    case ROCE_FAULT_TIMESTAMPS:
        SAY(f, cap, "time stamps in %s steps",
            x->resolution_ns >= ROCE_NS_PER_MS  ? "1 ms"
            : x->resolution_ns > ROCE_NS_PER_US ? "coarse"
                                                : "1 us");
        if (x->latency_min_ns < x->resolution_ns)
            SAY(f, cap, ": latencies shorter than a step are not measured (the shortest reads 0)");
        if (x->frames) {
            pct(x->frames, x->of_frames, a, sizeof a);
            SAY(f, cap,
                "; %s %% of the RoCE frames carry the time of the frame before them in "
                "their flow",
                a);
        }
        break;
    case ROCE_FAULT_CLOCK:
        if (x->responses_early)
            SAY(f, cap, "%llu response%s captured before the request%s %s acknowledge%s",
                ull(x->responses_early), plural(x->responses_early), plural(x->responses_early),
                x->responses_early == 1 ? "it" : "they", x->responses_early == 1 ? "s" : "");
        if (x->backwards)
            SAY(f, cap, "%s%llu RoCE frame%s earlier than the frame before %s in %s flow",
                x->responses_early ? ", " : "", ull(x->backwards), plural(x->backwards),
                x->backwards == 1 ? "it" : "them", x->backwards == 1 ? "its" : "their");
        SAY(f, cap, " (clocks of merged captures disagree, or the files are out of order)");
        break;
    case ROCE_FAULT_REWRITE:
        if (s->udp_sport)
            SAY(f, cap,
                "every RoCEv2 frame (%llu) carries UDP source port %u and no ICRC shows "
                "it was sent so: the capture path probably rewrote it, no ECMP finding rests on "
                "it",
                ull(x->frames), s->udp_sport);
        else {
            SAY(f, cap,
                "the %s was rewritten on the way: recomputing the ICRC with the value "
                "sent validates %llu of %llu bad ICRC%s",
                field_words(s->field), ull(x->frames), ull(x->of_frames), plural(x->of_frames));
            if (s->field == ROCE_REWRITE_UDP_SPORT)
                SAY(f, cap, " (no ECMP finding rests on the port)");
        }
        break;
    default:
        break;
    }
}

/* A subject of kind as text, and its figures, in subj and fig (each
 * ROCE_DIAG_PHRASE_LEN bytes). */
static void parts(unsigned kind, const struct roce_diag_subject *s, const struct roce_config *cfg,
                  char *subj, char *fig)
{
    roce_diag_subject_text(kind, s, subj, ROCE_DIAG_PHRASE_LEN);
    if (roce_diag_kind(kind)->subject == ROCE_SUBJ_HOST) {
        char a[ROCE_ADDR_TEXT_LEN];
        roce_addr_format(s->flow.src, s->flow.af, a, sizeof a);
        (void)snprintf(subj, ROCE_DIAG_PHRASE_LEN, "host %s", a); /* the MAC: in the figures */
    }
    figures(kind, s, cfg, fig, ROCE_DIAG_PHRASE_LEN);
}

/* The phrase of a subject: itself, then its figures in parentheses, into
 * buf (cap bytes). */
static void phrase(unsigned kind, const struct roce_diag_subject *s, const struct roce_config *cfg,
                   char *buf, size_t cap)
{
    char subj[ROCE_DIAG_PHRASE_LEN], fig[ROCE_DIAG_PHRASE_LEN];
    buf[0] = '\0';
    if (kind == ROCE_DIAG_CAPTURE) {
        fault_text(s, buf, cap);
        return;
    }
    parts(kind, s, cfg, subj, fig);
    SAY(buf, cap, fig[0] ? "%s (%s)" : "%s", subj, fig);
}

size_t roce_diag_subject_phrase(const struct roce_diag_list *l, const struct roce_diagnosis *d,
                                size_t i, char *buf, size_t len)
{
    char p[ROCE_DIAG_PHRASE_LEN];
    if (i >= d->n_subjects)
        p[0] = '\0';
    else
        phrase(d->kind, roce_diag_subject_at(l, d, i), &l->cfg, p, sizeof p);
    return (size_t)snprintf(buf, len, "%s", p);
}

/* The sentence of finding d of kind and cause with subject s alone, into
 * buf (cap bytes). */
static void one_subject(const struct roce_diagnosis *d, const struct roce_diag_subject *s,
                        const struct roce_config *cfg, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (d->kind == ROCE_DIAG_CAPTURE) {
        char p[ROCE_DIAG_PHRASE_LEN];
        phrase(d->kind, s, cfg, p, sizeof p);
        SAY(buf, cap, "the capture itself is at fault: %s: read what follows with that in mind", p);
        return;
    }
    struct words w = words_of(d->kind, d->cause, s->flow.version == ROCE_VERSION_IB);
    char subj[ROCE_DIAG_PHRASE_LEN], fig[ROCE_DIAG_PHRASE_LEN];
    parts(d->kind, s, cfg, subj, fig);
    /* "SUBJECT what (figures): action" */
    SAY(buf, cap, fig[0] ? "%s%s (%s): %s" : "%s%s%s: %s", subj, w.what, fig, w.action);
}

size_t roce_diag_subject_sentence(const struct roce_diag_list *l, const struct roce_diagnosis *d,
                                  size_t i, char *buf, size_t len)
{
    char s[sizeof d->summary];
    if (i >= d->n_subjects)
        return (size_t)snprintf(buf, len, "%s", d->summary);
    one_subject(d, roce_diag_subject_at(l, d, i), &l->cfg, s, sizeof s);
    return (size_t)snprintf(buf, len, "%s", s);
}

/* The sentence of finding d. */
static void summary(const struct roce_diag_list *l, struct roce_diagnosis *d)
{
    char *s = d->summary;
    const size_t cap = sizeof d->summary;
    const struct roce_diag_kind_info *k = roce_diag_kind(d->kind);
    const struct roce_diag_subject *first = roce_diag_subject_at(l, d, 0);
    struct words w = words_of(d->kind, d->cause, first->flow.version == ROCE_VERSION_IB);
    char p[ROCE_DIAG_PHRASE_LEN];
    s[0] = '\0';
    if (d->kind == ROCE_DIAG_CAPTURE && d->n_subjects > 1) {
        SAY(s, cap, "the capture itself is at fault: ");
        for (size_t i = 0; i < d->n_subjects; i++) {
            roce_diag_subject_phrase(l, d, i, p, sizeof p);
            SAY(s, cap, "%s%s", i ? "; " : "", p);
        }
        SAY(s, cap, ": read what follows with that in mind");
        return;
    }
    const uint64_t all = roce_diag_subjects(d); /* listed or not */
    if (all == 1) {
        one_subject(d, first, &l->cfg, s, cap);
        return;
    }
    SAY(s, cap, "%llu %ss%s, worst first: ", ull(all), k->unit, w.what);
    for (size_t i = 0; i < d->n_subjects && i < ROCE_DIAG_WORST; i++) {
        roce_diag_subject_phrase(l, d, i, p, sizeof p);
        SAY(s, cap, "%s%s", i ? ", " : "", p);
    }
    if (all > ROCE_DIAG_WORST)
        SAY(s, cap, ", and %llu more", ull(all - ROCE_DIAG_WORST));
    SAY(s, cap, ": %s", w.action);
}

void roce_diag_text(struct roce_diag_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        summary(l, &l->d[i]);
}
