/*
 * report.h - the analysis report as the CLI writes it, and its writers
 * (JSON, human text).
 *
 * The report is a self-contained model: what was read, totals, the flows
 * that carried packets with their latency distributions, the go-back-N
 * episodes, the connections. It is filled from an engine
 * (roce_report_build: the distributions are borrowed from the engine, which
 * must outlive the report), from a JSON report written by rocescope --json
 * (roce_report_parse, report_parse.c) or by merging reports of captures read
 * one after the other (roce_report_merge, report_merge.c); the writers do not
 * care which.
 */
#ifndef ROCE_REPORT_H
#define ROCE_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "roce_engine.h"

/* What a live capture adds to its report: the interface and the capture
 * statistics (pcap_stats, and the frames the analysis had no room for). */
struct roce_report_live {
    const char *iface;
    uint64_t received, dropped, if_dropped, analysis_dropped;
};

/* A latency distribution, owned, or borrowed from an engine. */
struct roce_report_lat {
    const struct roce_lat *ext; /* borrowed (NULL: own is the distribution) */
    struct roce_lat own;
};

/* What the report adds to a flow's report (struct roce_flow_report, whose
 * peer_id it does not use): the paired flow's key, the distributions, the
 * evidence frames of its diagnoses. */
struct roce_report_flow {
    struct roce_flow_key peer; /* the paired flow, when has_peer */
    uint8_t has_peer;
    struct roce_report_lat lat[ROCE_LATENCY_KINDS];
    struct roce_evidence *ev; /* NULL when the flow has none; owned, but the engine's
                                 when ev_ext (a report built from an engine, which
                                 outlives it: roce_report_flow_ev copies it first) */
    uint8_t ev_ext;
};

/* A connection: the requester is the flow whose first request came first
 * (or, without requests, the flow with the lower id). */
struct roce_report_conn {
    struct roce_flow_key req, resp;
    uint64_t req_id, resp_id; /* the two flows' ids (a reused key names several flows) */
    uint8_t paired_by;        /* enum roce_paired_by */
};

/* The strings and options of a parsed or merged report (the fields of
 * struct roce_report that say what was read point here). */
struct roce_report_own {
    char **files;
    size_t n_files;
    char *link_type;
    char *error;
    struct roce_config cfg;
};

struct roce_report {
    /* What was read: set by the caller before roce_report_build (borrowed,
     * they must outlive the report), or by roce_report_init, _parse and
     * _merge (then they point into own: such a report is not to be copied). */
    const char *const *files; /* the capture files, in reading order */
    size_t n_files;
    const char *link_type; /* of the first file (NULL: no file could be opened) */
    const struct roce_config *cfg;
    const char *error;     /* the first problem reading the input: the report is partial */
    uint8_t files_overlap; /* a file began before the latest time of the files read before it */
    const struct roce_report_live *live; /* live capture statistics (NULL: files) */
    /* at most this many flows listed (0: every flow), the first of the one
     * ranking; the others counted (t.flows_unlisted), the totals and the
     * diagnoses still those of every flow (the live monitor's final report:
     * its time and memory bounded whatever the table holds) */
    size_t flow_limit;

    /* What the analysis found. */
    struct roce_totals t; /* t.cnp_latency and t.ack_latency summarise lat[] */
    struct roce_report_lat lat[ROCE_LATENCY_KINDS];
    /* the flows that carried packets, ordered by id (times absolute, ns
     * since the epoch); flow_x[i] goes with flows[i] */
    struct roce_flow_report *flows;
    struct roce_report_flow *flow_x;
    size_t n_flows, cap_flows;
    struct roce_report_conn *conns; /* ordered by the lower id of the pair */
    size_t n_conns, cap_conns;
    struct roce_episode *episodes; /* in the order they started */
    size_t n_episodes, cap_episodes;
    /* the source MACs of RoCE and MAC Control frames (owned), in the order
     * first seen; the diagnoses are computed from all of the above
     * (roce_report_diagnoses) */
    struct roce_host_mac *macs;
    size_t n_macs, cap_macs;

    struct roce_report_own own;
    /* the diagnoses, once kept by roce_report_keep_diagnoses (owned) */
    struct roce_diag_list *diag;
};

/* An empty report (no file, no packet) with the default configuration:
 * what roce_report_merge starts from. */
void roce_report_init(struct roce_report *r);
/* Fill what the analysis found from the engine after roce_engine_finish;
 * the caller has zeroed r and set what was read (files, n_files,
 * link_type, cfg, error, live). The latency distributions are borrowed: e
 * must outlive r. 0, or -1 when out of memory. roce_report_free in both
 * cases. */
int roce_report_build(struct roce_report *r, struct roce_engine *e);
/* Compute the report's diagnoses once and keep them, for every writer
 * that asks (roce_report_diagnoses then lends them): call it when the
 * report is complete, before it is written. 0, or -1 when out of memory
 * (each writer then computes them itself). */
int roce_report_keep_diagnoses(struct roce_report *r);
/* Free what the report owns (not what the caller set) and zero it. */
void roce_report_free(struct roce_report *r);

/* The flow with this id, or NULL (evicted or unknown). */
const struct roce_flow_report *roce_report_flow(const struct roce_report *r, uint64_t id);
/* What the report adds to one of its flows. */
const struct roce_report_flow *roce_report_flow_x(const struct roce_report *r,
                                                  const struct roce_flow_report *f);
/* A distribution of a flow or of the totals. */
const struct roce_lat *roce_report_lat_get(const struct roce_report_lat *l);

/* Trouble (report_rank.c): how much a flow had (retransmitted packets,
 * missing PSNs, NAKs, PSN reuse, unanswered CE marks, unexplained CNPs for
 * it and carried, bad ICRCs, READ response gaps, added up); whether it had any, or CE marks or
 * CNPs; qsort's order of flow pointers, worst first (most trouble, then
 * most CE marks, then by id). */
uint64_t roce_report_trouble(const struct roce_flow_report *f);
int roce_report_is_troubled(const struct roce_flow_report *f);
int roce_report_cmp_worst(const void *a, const void *b);

/* The share of flow f's life (first to last packet) its requests spent
 * stalled by pauses (pause_stall_ns; ANALYSIS.md "Pause victims"), in
 * tenths of a percent; -1 when it had no stall or no life
 * (report_fields_pauses.c). */
int64_t roce_report_pause_share(const struct roce_flow_report *f);
/* The MAC of r that sent the pause p: whether it is a host NIC's or the
 * fabric's (roce_host_mac_role). NULL: its MAC is unknown (r NULL, or
 * beyond the MAC table). */
const struct roce_host_mac *roce_pause_sender(const struct roce_report *r,
                                              const struct roce_pause_episode *p);
/* Flows by key (report_rank.c): the order of two keys, qsort's order of
 * flow pointers by key (then by id), and in by_key (n pointers in that
 * order) the flow with key k: of a key seen twice (a QP reused, a flow
 * record each) the latest; NULL when none. */
int roce_report_cmp_key(const struct roce_flow_key *a, const struct roce_flow_key *b);
int roce_report_cmp_by_key(const void *a, const void *b);
const struct roce_flow_report *roce_report_by_key(const struct roce_flow_report *const *by_key,
                                                  size_t n, const struct roce_flow_key *k);

/* The one ranking (report_rank.c; REPORT.md "One ranking"), of every front
 * end: the flows the diagnoses diag name (flow and connection subjects; diag
 * may be NULL), in the diagnoses' order, each finding's subjects in its
 * order (worst first); then the other flows that are troubled or flagged in
 * extra (NULL, or one byte per flow), by roce_report_cmp_worst. Written to
 * out (room for n pointers into flows); returns how many are ranked so, or
 * ROCE_RANK_NOMEM. With all, the other flows follow in out (by
 * roce_report_cmp_worst: by id), after the ranked ones. */
#define ROCE_RANK_NOMEM ((size_t)-1)
/* The same over n flows anywhere (flows[i] points to each; extra[i] goes
 * with flows[i]): the engine's own reports, in place; with upto nonzero,
 * only the first upto places of that ranking are made (out[0..upto-1], the
 * count returned at most upto): the live monitor's --final-flows of a
 * table of millions. */
size_t roce_report_rank_refs(const struct roce_flow_report *const *flows, size_t n,
                             const struct roce_diag_list *diag, const uint8_t *extra, int all,
                             size_t upto, const struct roce_flow_report **out);
size_t roce_report_rank(const struct roce_flow_report *flows, size_t n,
                        const struct roce_diag_list *diag, const uint8_t *extra, int all,
                        const struct roce_flow_report **out);

/* Growth of the report's arrays (report_model.c): a new zeroed element at the
 * end (a flow with its flow_x), or NULL when out of memory. */
struct roce_flow_report *roce_report_add_flow(struct roce_report *r);
struct roce_report_conn *roce_report_add_conn(struct roce_report *r);
struct roce_episode *roce_report_add_episode(struct roce_report *r);
struct roce_host_mac *roce_report_add_mac(struct roce_report *r);
/* The evidence of flow i, made (zeroed) when it has none; NULL when out of
 * memory. */
struct roce_evidence *roce_report_flow_ev(struct roce_report *r, size_t i);

/* The diagnoses of the report (roce_diagnose over its flows, their
 * evidence, its MACs, totals and options), in *out (roce_diag_list_free
 * frees it; the list kept by roce_report_keep_diagnoses is lent, valid
 * while the report is). 0, or -1 when out of memory (report_diag.c). */
int roce_report_diagnoses(const struct roce_report *r, struct roce_diag_list *out);
/* Set what was read from owned copies (r->own): append a file name, set
 * the link type or the error (NULL allowed). 0, or -1 when out of memory. */
int roce_report_add_file(struct roce_report *r, const char *name);
int roce_report_set_link_type(struct roce_report *r, const char *link_type);
int roce_report_set_error(struct roce_report *r, const char *error);

/* Append src, the report of the capture read after those already in dst
 * (report_merge.c; dst from roce_report_init, then merges only): frame
 * numbers and flow ids of src continue dst's, counts add up, distributions
 * merge; the first report merged gives the options. Everything is copied,
 * src is not changed. 0; 1 when a count would add up past
 * ROCE_REPORT_INT_MAX (dst unchanged; why, when not NULL, names it:
 * "capture.packets: the sum of the reports would be more than ..."); -1
 * when out of memory. rocescope(1), MANY FILES says what is exact. */
int roce_report_merge_checked(struct roce_report *dst, const struct roce_report *src, char *why,
                              size_t whylen);
/* roce_report_merge_checked without the reason: 0, or -1 (out of memory,
 * or a count too big). */
int roce_report_merge(struct roce_report *dst, const struct roce_report *src);

/* Fold src, the report of one part of a split analysis (roce_shard_key:
 * every part read the same frames, each analysed its own), into dst (from
 * roce_report_init): frame numbers as they are, flow ids through map (the
 * parts' ids to the ids one engine would have given), counts add up,
 * distributions merge. Then roce_report_merge_parts_done orders the flows,
 * connections and episodes as one engine's report and keeps the episodes
 * cfg.max_episodes allows. 0, or -1 when out of memory (or a count too big,
 * as roce_report_merge). */
int roce_report_merge_part(struct roce_report *dst, const struct roce_report *src,
                           uint64_t (*map)(uint64_t id, void *ctx), void *ctx);
int roce_report_merge_parts_done(struct roce_report *dst);

/* The largest integer a report holds (its parser refuses larger ones), and
 * so the largest sum a merge makes. */
#define ROCE_REPORT_INT_MAX INT64_MAX
#define ROCE_REPORT_WHY_LEN 128
/* The most JSON text the parser builds into one value: a member outside the
 * long lists, or one element of them (a flow without its episodes). Those
 * rocescope writes take a few KiB. */
#define ROCE_REPORT_VALUE_MAX (1u << 20)

/* Read a JSON report written by roce_report_json (report_parse.c) into r
 * (initialised here), in memory bounded by the report's model, not by the
 * file (report_parse.c says how). 0, or -1 with the reason in err (r is then
 * freed). */
int roce_report_parse(const char *path, struct roce_report *r, char *err, size_t errlen);

/* Write the full report as one JSON document. 0, or -1 on error. */
int roce_report_json(const struct roce_report *r, FILE *out);
/* Write the human summary: the diagnoses worst first, totals, troubled
 * flows worst first (at most top), episodes (at most top), clean flows in
 * one line. 0, or -1 on error. */
int roce_report_text(const struct roce_report *r, FILE *out, unsigned top);
/* Write how the summary begins: its title line and its Diagnosis section
 * (the capture's finding first). 0, or -1 when out of memory. */
int roce_report_text_head(const struct roce_report *r, FILE *out);

#endif
