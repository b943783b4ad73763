/*
 * roce_diag.h - from counters to diagnoses: the kinds of finding, each
 * declared once (roce_diag_kinds.c), the evidence frames the engine keeps
 * for them, and the list of findings a person acts on (roce_diagnose,
 * roce_diag.c; their sentences: roce_diag_text.c).
 *
 * What each kind means, its severity, subject, condition and count, and the
 * project's decisions: ANALYSIS.md "Diagnoses".
 *
 * A finding is one kind and one cause, whatever the number of its subjects:
 * "packets lost in the network on 46 QPs" is one finding with 46 subjects,
 * each with its own count, figures and evidence frames, the worst first.
 * The capture's own faults come first, as one finding of kind "capture";
 * the findings the capture explains (its cause "capture") are notes listed
 * right after it; then the others by severity, count and first frame.
 *
 * roce_diagnose() is a pure function of report data (flow reports, their
 * evidence, the MAC table, the totals, the options), so that every front end
 * computes the same list: the engine's own state (roce_engine_diagnoses, for
 * the plugin and the live monitor), a report built from it, read back from
 * JSON, or merged from several reports (rocescope merge, -j).
 */
#ifndef ROCE_DIAG_H
#define ROCE_DIAG_H

#include <stddef.h>
#include <stdint.h>

#include "roce_config.h"
#include "roce_host_mac.h"
#include "roce_totals.h"

/* The kinds, in the order of the table of ANALYSIS.md "Diagnoses" (the
 * order is also the last key of the list's order). */
enum roce_diag_kind {
    ROCE_DIAG_CAPTURE = 0,            /* the capture itself is at fault */
    ROCE_DIAG_PACKET_LOSS,            /* network loss: NAKs, resends of missing PSNs */
    ROCE_DIAG_CAPTURE_LOSS,           /* PSN gaps the capture missed (confirmed or inferred) */
    ROCE_DIAG_RETRANSMISSION_TIMEOUT, /* go-back-N after a timeout */
    ROCE_DIAG_RNR,                    /* RNR NAKs */
    ROCE_DIAG_REMOTE_ERROR,           /* NAKs that end the connection */
    ROCE_DIAG_CNP_IGNORED,            /* DCQCN verdict "ignored" */
    ROCE_DIAG_CE_UNANSWERED,          /* CE marks, no CNP for any */
    ROCE_DIAG_CE_SOME_UNANSWERED,     /* CE marks left unanswered here and there */
    ROCE_DIAG_CNP_UNEXPLAINED,        /* CNPs without a CE mark seen */
    ROCE_DIAG_SLOW_RECEIVER,          /* PFC/PAUSE from a host NIC */
    ROCE_DIAG_PFC_STORM,              /* storm windows */
    ROCE_DIAG_PFC_PAUSED,             /* a priority paused a large share, no storm */
    ROCE_DIAG_ECMP_COLLISION,         /* QPs on one UDP source port */
    ROCE_DIAG_ICRC_ERROR,             /* bad ICRCs */
    ROCE_DIAG_PSN_REUSE,              /* a PSN of a READ's span reused */
    ROCE_DIAG_GID_TYPE_MISMATCH,      /* the two ends of a QP use different RoCE versions */
    ROCE_DIAG_REORDERING,             /* packets delivered out of order */
    ROCE_DIAG_LOSSY_PRIORITY,         /* RoCE data on a priority PFC never pauses */
    ROCE_DIAG_CNP_PRIORITY,           /* CNPs on a lower priority than their data */
    ROCE_DIAG_PAUSE_VICTIM,           /* requests stalled by a host's pause for another host */
    ROCE_DIAG_CNP_UNPACED,            /* a NIC answers every CE mark with its own CNP */
    ROCE_DIAG_INCAST,                 /* many senders at once to one congested receiver */
    ROCE_DIAG_CNP_CONGESTED,          /* CNPs that arrived CE marked */
    ROCE_DIAG_KINDS
};

/* Severities, worst first (ANALYSIS.md "Severities"): error = data
 * integrity or a failing connection; warning = a network or host
 * performance problem with evidence; note = capture artefacts, advice, what
 * could not be decided. */
enum roce_diag_severity { ROCE_SEV_ERROR = 0, ROCE_SEV_WARNING = 1, ROCE_SEV_NOTE = 2 };
/* "error", "warning", "note". */
const char *roce_diag_severity_name(unsigned sev);

/* What a finding's subjects are. */
enum roce_diag_subject_kind {
    ROCE_SUBJ_FLOW = 0,   /* a request flow (flow) */
    ROCE_SUBJ_CONNECTION, /* a request flow (flow) and its responses' flow (peer) */
    ROCE_SUBJ_HOST,       /* a host: MAC (mac) and address (flow.src) */
    ROCE_SUBJ_PRIORITY,   /* a PFC priority, or the link PAUSE (priority) */
    ROCE_SUBJ_PATH,       /* src, dst, UDP source port and the dest QPs on it */
    ROCE_SUBJ_FAULT,      /* a fault of the capture (fault) */
    ROCE_SUBJ_RECEIVER    /* a receiver (flow.dst) and the senders it had at once (senders) */
};

/* The plugin's expert groups, without Wireshark's headers (the plugin maps
 * them to PI_SEQUENCE, ...). */
enum roce_diag_group {
    ROCE_GROUP_SEQUENCE = 0,
    ROCE_GROUP_RESPONSE_CODE,
    ROCE_GROUP_PROTOCOL,
    ROCE_GROUP_CHECKSUM,
    ROCE_GROUP_MALFORMED
};

/* Why a finding is there: the traffic itself, or the way it was captured
 * (ANALYSIS.md "The capture first"). */
enum roce_diag_cause { ROCE_CAUSE_TRAFFIC = 0, ROCE_CAUSE_CAPTURE = 1, ROCE_CAUSES = 2 };
/* "traffic", "capture". */
const char *roce_diag_cause_name(unsigned cause);

/* The faults of a capture (enum roce_capture_fault, roce_totals.h): */
/* "capture_loss", "truncation", "timestamps", "clock", "rewritten_field". */
const char *roce_capture_fault_name(unsigned fault);

/* The named numbers of a subject; each kind uses some of them (its row's
 * figures say which, with their report keys). */
struct roce_diag_figures {
    uint64_t gaps, missing_psns, inferred_gaps, undetermined_gaps;
    uint64_t nak_episodes, implied_episodes, timeout_episodes;
    uint64_t invalid_request, remote_access_error, remote_other;
    uint64_t ce_marked, ce_answered, ce_unanswered;
    uint64_t cnps, cnps_unexplained;
    uint64_t rate_before_mbps, rate_after_mbps, ratio_ppm;
    uint64_t pfc_frames, pause_frames, ttl;
    uint64_t paused_ns, span_ns;
    uint64_t reordered, max_psns, max_ns;
    uint64_t request_version, response_version;
    uint64_t psns_kept, psns_expected, flows;
    uint64_t frames, of_frames;
    uint64_t caplen_min, caplen_max, declared_min, declared_max;
    uint64_t resolution_ns, latency_min_ns, responses_early, backwards;
    uint64_t requests, paused_priority, priority, cnp_priority;
    uint64_t stalls, stall_ns, pause_stalls, pause_stall_ns;
    uint64_t min_gap_ns, pair_min_gap_ns;
    uint64_t fanin, senders, pauses, lost, rate_mbps, link_speed_mbps;
};

/* A figure of a kind: its key in the report and where it is. */
struct roce_diag_figure {
    const char *key;
    size_t off; /* in struct roce_diag_figures */
};
#define ROCE_DIAG_FIGURES_MAX 8

/* One kind, declared once: everything a front end needs to show it. */
struct roce_diag_kind_info {
    const char *name;  /* "packet_loss" */
    uint8_t severity;  /* enum roce_diag_severity */
    uint8_t subject;   /* enum roce_diag_subject_kind */
    uint8_t cause;     /* enum roce_diag_cause */
    uint8_t group;     /* enum roce_diag_group (the plugin's expert info) */
    const char *title; /* what it is, for the plugin's expert info and legends */
    const char *unit;  /* a subject in "on 46 QPs": "QP", "host", ... (plural: + "s") */
    struct roce_diag_figure figures[ROCE_DIAG_FIGURES_MAX]; /* ended by a NULL key */
};
/* The row of a kind (an unknown kind gets a row named "unknown"). */
const struct roce_diag_kind_info *roce_diag_kind(unsigned kind);
struct roce_diag_subject;
/* The figures of subject s of a finding of kind (a fault of the capture has
 * its own), ended by a NULL key. */
const struct roce_diag_figure *roce_diag_figures_of(unsigned kind,
                                                    const struct roce_diag_subject *s);
/* Nonzero when the subjects of kind are flows (a flow or a connection):
 * the ones a report's ranking places first and a bound may leave unlisted. */
int roce_diag_kind_names_flow(unsigned kind);
/* Shorthands of the row. */
const char *roce_diag_kind_name(unsigned kind);
unsigned roce_diag_kind_severity(unsigned kind);

/* The first evidence frames of one flow, per kind (only the kinds whose
 * subject is a flow or a connection are used). Frame numbers ascending; 0
 * never appears. */
struct roce_evidence {
    uint64_t frame[ROCE_DIAG_KINDS][ROCE_EVIDENCE_MAX];
    uint8_t n[ROCE_DIAG_KINDS];
};
/* Add frame to the evidence of kind, keeping the ROCE_EVIDENCE_MAX lowest
 * frame numbers (a frame already listed is not added twice). */
void roce_evidence_add(struct roce_evidence *ev, unsigned kind, uint64_t frame);
/* Add frame to the ascending list a of *n frames, keeping the
 * ROCE_EVIDENCE_MAX lowest, each once (0 is never added). */
void roce_evidence_add_frame(uint64_t *a, uint8_t *n, uint64_t frame);
/* dst's frames of every kind plus src's (renumbered by frame_off). */
void roce_evidence_merge(struct roce_evidence *dst, const struct roce_evidence *src,
                         uint64_t frame_off);
/* src's incast receivers (ANALYSIS.md "Incast") folded into dst's, their
 * frames numbered on by frame_off: a receiver both list adds its counts and
 * keeps the worse worst episode and dst's fan-in series; one beyond
 * ROCE_INCAST_LISTED is counted in incast_receivers_unlisted. */
void roce_incast_merge(struct roce_totals *dst, const struct roce_totals *src, uint64_t frame_off);
/* A frame showing a fault of the capture (enum roce_capture_fault), kept as
 * roce_evidence_add keeps them. */
void roce_evidence_add_capture(struct roce_capture_evidence *ev, unsigned fault, uint64_t frame);

/* DCQCN verdicts of a request flow (ANALYSIS.md "DCQCN reaction"). */
enum roce_dcqcn_verdict {
    ROCE_DCQCN_UNDETERMINED = 0,
    ROCE_DCQCN_REACTED = 1,
    ROCE_DCQCN_IGNORED = 2,
    ROCE_DCQCN_VERDICTS = 3
};
/* "undetermined", "reacted", "ignored". */
const char *roce_dcqcn_verdict_name(unsigned v);
/* The verdict for cnps_evaluated CNPs with the median ratio ratio_ppm. */
unsigned roce_dcqcn_verdict_of(const struct roce_config *cfg, uint64_t cnps_evaluated,
                               uint32_t ratio_ppm);

/* ---- the diagnoses ---- */

#define ROCE_DIAG_SUMMARY_LEN 640
#define ROCE_DIAG_PHRASE_LEN  192
#define ROCE_DIAG_MAX_QPS     8 /* dest QPs named in an ECMP collision's subject */
#define ROCE_DIAG_WORST       3 /* subjects a finding's sentence names */
#define ROCE_DIAG_MAX_SENDERS 8 /* senders named in an incast's subject */

/* One subject of a finding. */
struct roce_diag_subject {
    /* a flow key (flow, connection subjects); src, dst and version of a
     * path; the host's address in flow.src */
    struct roce_flow_key flow;
    struct roce_flow_key peer; /* connection: the flow of the responses */
    uint8_t mac[ROCE_MAC_LEN]; /* host */
    uint8_t priority;          /* priority: 0..7, or ROCE_PFC_PRIORITIES for link PAUSE */
    uint8_t fault;             /* fault: enum roce_capture_fault */
    uint8_t field;             /* fault rewritten_field: enum roce_rewrite_field */
    uint16_t udp_sport;        /* path */
    uint32_t dest_qps[ROCE_DIAG_MAX_QPS]; /* path, ascending */
    uint8_t n_dest_qps;                   /* listed (count may be larger) */
    uint8_t n_senders;                    /* receiver: senders named (fig.senders: all) */
    uint8_t senders[ROCE_DIAG_MAX_SENDERS][ROCE_ADDR_LEN];
    uint64_t count;
    struct roce_diag_figures fig;
    uint64_t frames[ROCE_EVIDENCE_MAX];
    uint8_t n_frames;
};

/* One finding: a kind, a cause and its subjects (worst first). */
struct roce_diagnosis {
    uint8_t kind;                       /* enum roce_diag_kind */
    uint8_t severity;                   /* enum roce_diag_severity */
    uint8_t cause;                      /* enum roce_diag_cause */
    uint64_t count;                     /* the subjects' counts added (the unlisted too) */
    size_t first_subject, n_subjects;   /* listed, in struct roce_diag_list.subjects */
    uint64_t n_unlisted;                /* subjects beyond the input's subject_limit: counted */
    uint64_t frames[ROCE_EVIDENCE_MAX]; /* the lowest evidence frames of all its subjects */
    uint8_t n_frames;
    char summary[ROCE_DIAG_SUMMARY_LEN];
};
/* How many subjects finding d has, listed or not. */
static inline uint64_t roce_diag_subjects(const struct roce_diagnosis *d)
{
    return d->n_subjects + d->n_unlisted;
}

/* The list: findings in order, their subjects in one array. */
struct roce_diag_list {
    struct roce_diagnosis *d;
    size_t n;
    struct roce_diag_subject *subjects;
    size_t n_subjects;
    struct roce_config cfg; /* the options it was made with (sentences quote some) */
    uint8_t borrowed;       /* d and subjects are another list's: roce_diag_list_free leaves them */
};
/* The i-th subject of finding d in list l. */
static inline const struct roce_diag_subject *
roce_diag_subject_at(const struct roce_diag_list *l, const struct roce_diagnosis *d, size_t i)
{
    return &l->subjects[d->first_subject + i];
}
/* Free what roce_diagnose() allocated (the list itself is the caller's). */
void roce_diag_list_free(struct roce_diag_list *l);

/* One flow as roce_diagnose reads it: its report, its evidence (NULL when
 * it has none) and the key of the flow it is paired with. */
struct roce_diag_flow {
    const struct roce_flow_report *r;
    const struct roce_evidence *ev;
    const struct roce_flow_key *peer; /* NULL when unpaired */
};

struct roce_diag_input {
    const struct roce_diag_flow *flows;
    size_t n_flows;
    const struct roce_host_mac *macs;
    size_t n_macs;
    const struct roce_totals *t;
    const struct roce_config *cfg; /* thresholds, the PFC window */
    /* 0: every subject listed. Else each finding lists its worst
     * subject_limit subjects, kept as they are found (memory and time
     * bounded whatever the number of flows), and counts the others
     * (n_unlisted; their counts and evidence frames are in the finding's).
     * Only for an input that holds each flow once (the engine's own table:
     * a merged report may hold a flow twice, whose two subjects join). */
    size_t subject_limit;
};

/* Nonzero when a and b are the same finding (kind and cause) at two
 * moments: its count may have grown. */
int roce_diag_same(const struct roce_diagnosis *a, const struct roce_diagnosis *b);
/* The subject s of a finding of kind as text ("10.0.0.1 -> 10.0.0.2 QP
 * 0x00000b", "host 10.0.0.7 MAC 02:00:...", "priority 3", "link PAUSE",
 * "10.0.0.1 -> 10.0.0.2 UDP source port 49408", "capture loss"), as
 * snprintf. */
size_t roce_diag_subject_text(unsigned kind, const struct roce_diag_subject *s, char *buf,
                              size_t len);

/* The phrase of subject i of finding d: the subject and its figures as
 * text ("10.0.0.1 -> 10.0.0.2 QP 0x00000b (2 of 2 CNPs)"), as snprintf (at
 * most ROCE_DIAG_PHRASE_LEN bytes with its end). Made when asked: a finding
 * of a large table has a subject for each of thousands of flows, and the
 * text report names the worst few. */
size_t roce_diag_subject_phrase(const struct roce_diag_list *l, const struct roce_diagnosis *d,
                                size_t i, char *buf, size_t len);

/* The sentence finding d would have if its subject i were its only one
 * ("10.0.0.1 -> 10.0.0.2 QP 0x0000b2 lost packets in the network (1 PSN
 * gap, ...): check ..."; its summary when it has one subject), as
 * snprintf: what one evidence frame of that subject says of it (the
 * plugin's expert info). */
size_t roce_diag_subject_sentence(const struct roce_diag_list *l, const struct roce_diagnosis *d,
                                  size_t i, char *buf, size_t len);

/* Nonzero when every ICRC checked was bad (at least one) and no rewritten
 * field explains them: the capture path probably altered the frames
 * (ANALYSIS.md "The list"), not a link. */
int roce_diag_icrc_all_bad(const struct roce_totals *t);

/* The diagnoses of in, ordered as defined, into *out (freed with
 * roce_diag_list_free). Returns 0, or -1 when out of memory (*out is then
 * empty). */
int roce_diagnose(const struct roce_diag_input *in, struct roce_diag_list *out);

/* ---- the sentences (roce_diag_text.c) ---- */

/* Fill the summary of every finding of l
 * (kind of each subject: its finding's; the options quoted: l->cfg). */
void roce_diag_text(struct roce_diag_list *l);

#endif
