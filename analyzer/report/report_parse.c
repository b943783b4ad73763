/*
 * report_parse.c - a JSON report written by rocescope --json, read back into
 * the report model (see report.h), for `rocescope merge`.
 *
 * The file is mapped and walked one top-level member at a time with
 * json-c's tokener; the long arrays ("flows", "connections") one element at
 * a time, each turned into the model and put at once: memory holds the
 * model and one element, not the document. Every value is checked (type,
 * range, the latency distributions against the percentiles written); the
 * first problem is the error.
 */
#define _DEFAULT_SOURCE
#include "report_parse.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define US_DECIMALS  3
#define SEC_DECIMALS 9
#define PORT_MAX     65535u

/* The document being walked. */
struct walk {
    const char *buf;
    size_t len, pos;
    json_tokener *tok;
    struct roce_jget *g;
};

/* JSON white space. */
static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Past the white space at the current position. */
static void skip_ws(struct walk *w)
{
    while (w->pos < w->len && is_blank(w->buf[w->pos]))
        w->pos++;
}

/* The next character after blanks, consumed when it is one of accept; 0
 * (not consumed) otherwise. */
static char next_char(struct walk *w, const char *accept)
{
    skip_ws(w);
    if (w->pos < w->len && w->buf[w->pos] && strchr(accept, w->buf[w->pos]) != NULL)
        return w->buf[w->pos++];
    return 0;
}

/* The JSON value at the current position. 0 with *out (NULL for null), or
 * -1 on a syntax error (recorded). */
static int next_value(struct walk *w, json_object **out)
{
    skip_ws(w);
    size_t left = w->len - w->pos; /* after the blanks: the tokener reads no further */
    json_tokener_reset(w->tok);
    *out = json_tokener_parse_ex(w->tok, w->buf + w->pos, left > INT_MAX ? INT_MAX : (int)left);
    enum json_tokener_error err = json_tokener_get_error(w->tok);
    if (err != json_tokener_success) {
        char where[48];
        snprintf(where, sizeof where, "offset %zu", w->pos + json_tokener_get_parse_end(w->tok));
        /* json_tokener_continue: the document ended inside the value */
        roce_jget_fail(w->g, where, "",
                       err == json_tokener_continue ? "the report is cut short"
                                                    : json_tokener_error_desc(err));
        return -1;
    }
    w->pos += json_tokener_get_parse_end(w->tok);
    return 0;
}

/* Record a problem at the current position. */
static void syntax_error(struct walk *w, const char *why)
{
    char where[48];
    snprintf(where, sizeof where, "offset %zu", w->pos);
    roce_jget_fail(w->g, where, "", why);
}

/* An element of "connections". */
static int parse_conn(struct roce_jget *g, json_object *o, struct roce_report *r)
{
    struct roce_report_conn *c = roce_report_add_conn(r);
    if (c == NULL)
        return -1;
    roce_jget_endpoint(g, roce_jget_path(g, o, "requester"), "requester", &c->req);
    roce_jget_endpoint(g, roce_jget_path(g, o, "responder"), "responder", &c->resp);
    c->paired_by =
        (uint8_t)roce_jget_name(g, o, "", "paired_by", roce_paired_by_name, ROCE_PAIRED_CNP + 1);
    return 0;
}

/* The opening bracket of an array or object: 1 when it closes at once
 * (empty), 0 when elements follow, -1 (recorded) when it is not there. */
static int open_container(struct walk *w, const char *open, const char *close, const char *what)
{
    if (!next_char(w, open)) {
        syntax_error(w, what);
        return -1;
    }
    return next_char(w, close) ? 1 : 0;
}

/* The elements of a top-level array, each turned into the model by fn and
 * put. 0, or -1 (recorded). */
static int walk_array(struct walk *w, struct roce_report *r,
                      int (*fn)(struct roce_jget *, json_object *, struct roce_report *))
{
    int st = open_container(w, "[", "]", "an array expected");
    if (st != 0)
        return st < 0 ? -1 : 0;
    do {
        json_object *e;
        if (next_value(w, &e) != 0)
            return -1;
        int rc = json_object_get_type(e) == json_type_object ? fn(w->g, e, r) : 0;
        if (json_object_get_type(e) != json_type_object)
            syntax_error(w, "an object expected");
        json_object_put(e);
        if (rc != 0)
            roce_jget_fail(w->g, "report", "", "out of memory");
        if (w->g->failed)
            return -1;
    } while (next_char(w, ","));
    if (!next_char(w, "]")) {
        syntax_error(w, "',' or ']' expected");
        return -1;
    }
    return 0;
}

/* The top-level object: "flows" and "connections" element by element into
 * r, the other members into root. 0, or -1 (recorded). */
static int walk_report(struct walk *w, json_object *root, struct roce_report *r)
{
    int st = open_container(w, "{", "}", "not a JSON object");
    if (st != 0)
        return st < 0 ? -1 : 0;
    do {
        json_object *k, *v = NULL;
        if (next_value(w, &k) != 0)
            return -1;
        if (json_object_get_type(k) != json_type_string || !next_char(w, ":")) {
            json_object_put(k);
            syntax_error(w, "a member expected");
            return -1;
        }
        const char *key = json_object_get_string(k);
        int rc = strcmp(key, "flows") == 0         ? walk_array(w, r, roce_parse_flow)
                 : strcmp(key, "connections") == 0 ? walk_array(w, r, parse_conn)
                                                   : next_value(w, &v);
        if (rc == 0 && strcmp(key, "flows") != 0 && strcmp(key, "connections") != 0)
            json_object_object_add(root, key, v);
        json_object_put(k);
        if (rc != 0)
            return -1;
    } while (next_char(w, ","));
    if (!next_char(w, "}") || (skip_ws(w), w->pos != w->len)) {
        syntax_error(w, "',' or '}' expected, or data after the report");
        return -1;
    }
    return 0;
}

/* clang-format off */
#define T_FIELD(path, key, member) {path, key, offsetof(struct roce_totals, member)}
/* clang-format on */
static const struct roce_jget_field totals_fields[] = {
    T_FIELD("capture", "packets", packets),
    T_FIELD("capture", "roce_packets", roce_packets),
    T_FIELD("capture", "rocev1_packets", rocev1_packets),
    T_FIELD("capture", "rocev2_packets", rocev2_packets),
    T_FIELD("capture", "non_roce_packets", non_roce_packets),
    T_FIELD("capture", "malformed_packets", malformed_packets),
    T_FIELD("capture", "truncated_packets", truncated_packets),
    T_FIELD("capture", "no_bth_packets", no_bth_packets),
    T_FIELD("capture", "bytes", bytes),
    T_FIELD("capture", "request_packets", request_packets),
    T_FIELD("capture", "response_packets", response_packets),
    T_FIELD("capture", "cnp_packets", cnp_packets),
    T_FIELD("capture.icrc", "good", icrc_good),
    T_FIELD("capture.icrc", "bad", icrc_bad),
    T_FIELD("capture.icrc", "unchecked", icrc_unchecked),
    T_FIELD("retransmission", "episodes", episodes),
    T_FIELD("retransmission", "packets", retransmitted_packets),
    T_FIELD("psn_gaps", "events", gap_events),
    T_FIELD("psn_gaps", "missing_psns", missing_psns),
    T_FIELD("", "psn_reuse", psn_reuse),
    T_FIELD("read_response_gaps", "events", read_response_gaps),
    T_FIELD("read_response_gaps", "missing_psns", read_response_missing),
    T_FIELD("", "aeth_reserved", aeth_reserved),
    T_FIELD("ecn", "ce_marked", ce_marked),
    T_FIELD("ecn", "ce_answered", ce_answered),
    T_FIELD("ecn", "ce_unanswered", ce_unanswered),
    T_FIELD("ecn", "cnps_matched", cnps_matched),
    T_FIELD("ecn", "cnps_unexplained", cnps_unexplained),
    T_FIELD("cm", "messages", cm_messages),
    T_FIELD("cm", "connections", cm_connections),
    T_FIELD("pfc", "pfc_frames", pfc.pfc_frames),
    T_FIELD("pfc", "pause_frames", pfc.pause_frames),
    T_FIELD("pfc", "other_mac_control", pfc.other_mac_control),
    T_FIELD("limits", "flows_created", flows_created),
    T_FIELD("limits", "flows_evicted", flows_evicted),
    T_FIELD("limits", "flows_retired", flows_retired),
    T_FIELD("limits", "flows_active", flows_active),
    T_FIELD("limits", "peak_flows", peak_flows),
    T_FIELD("limits", "episodes_unlisted", episodes_unlisted),
    T_FIELD("limits", "verdicts_forced", verdicts_forced),
    T_FIELD("limits", "ce_tracking_overflow", ce_tracking_overflow),
    {NULL, NULL, 0},
};

/* clang-format off */
#define P_FIELD(key, member) {"", key, offsetof(struct roce_pfc_prio, member)}
/* clang-format on */
static const struct roce_jget_field prio_fields[] = {
    P_FIELD("frames", frames),
    P_FIELD("xoff", xoff),
    P_FIELD("xon", xon),
    P_FIELD("quanta", quanta),
    P_FIELD("storm_windows", storm_windows),
    {NULL, NULL, 0},
};

/* One PFC priority (or the link PAUSE) object. */
static void parse_prio(struct roce_jget *g, json_object *o, struct roce_pfc_prio *p)
{
    roce_jget_fields(g, o, prio_fields, p);
    roce_jget_ns(g, o, "pfc", "paused_us", US_DECIMALS, 0, &p->paused_ns);
}

/* The totals of the report (and its two latency distributions). */
static void parse_totals(struct roce_jget *g, json_object *root, struct roce_report *r)
{
    struct roce_totals *t = &r->t;
    json_object *mal = roce_jget_path(g, root, "capture.malformed_by_reason");
    json_object *enc = roce_jget_path(g, root, "encapsulation");
    json_object *prios = roce_jget_member(g, roce_jget_path(g, root, "pfc"), "pfc", "priorities",
                                          json_type_array, 0);

    roce_jget_fields(g, root, totals_fields, t);
    for (unsigned m = 1; m < ROCE_MAL_COUNT; m++)
        t->malformed_by_reason[m] = roce_jget_u64(g, mal, "capture.malformed_by_reason",
                                                  roce_malformed_name((enum roce_malformed)m));
    for (unsigned i = 1; i < ROCE_ENCAP_COUNT; i++)
        t->encap[i] = roce_jget_u64(g, enc, "encapsulation", roce_encap_name((enum roce_encap)i));
    if (prios != NULL && json_object_array_length(prios) != ROCE_PFC_PRIORITIES)
        roce_jget_fail(g, "pfc", "priorities", "not 8 priorities");
    for (unsigned i = 0; prios != NULL && !g->failed && i < ROCE_PFC_PRIORITIES; i++)
        parse_prio(g, json_object_array_get_idx(prios, i), &t->pfc.prio[i]);
    parse_prio(g, roce_jget_path(g, root, "pfc.pause"), &t->pfc.pause);
    roce_parse_naks(g, root, "naks", &t->naks);
    roce_parse_triggers(g, root, "retransmission.by_trigger", t->by_trigger);
    roce_parse_latency(g, root, "ecn.cnp_latency_us", &r->lat[ROCE_LATENCY_CNP].own,
                       &t->cnp_latency);
    roce_parse_latency(g, root, "ack_latency_us", &r->lat[ROCE_LATENCY_ACK].own, &t->ack_latency);
    int64_t duration;
    json_object *cap = roce_jget_path(g, root, "capture");
    roce_jget_ns(g, cap, "capture", "first_time", SEC_DECIMALS, 1, &t->first_ts_ns);
    roce_jget_ns(g, cap, "capture", "duration_s", SEC_DECIMALS, 0, &duration);
    t->last_ts_ns = t->first_ts_ns + duration;
}

/* The analysis options (the keys of report_json.c's options_object). */
static void parse_options(struct roce_jget *g, json_object *root, struct roce_config *c)
{
    json_object *o = roce_jget_path(g, root, "options");
    json_object *icrc = roce_jget_member(g, o, "options", "icrc_check", json_type_boolean, 0);
    uint64_t udp = roce_jget_u64(g, o, "options", "udp_port");
    uint64_t vxlan = roce_jget_u64(g, o, "options", "vxlan_port");
    uint64_t pmtu = roce_jget_u64(g, o, "options", "pmtu");
    uint64_t flows = roce_jget_u64(g, o, "options", "max_flows");
    uint64_t speed = roce_jget_u64(g, o, "options", "link_speed_mbps");
    uint64_t share = roce_jget_u64(g, o, "options", "storm_share_pct");
    if (udp > PORT_MAX || vxlan > PORT_MAX || pmtu > UINT32_MAX || flows > UINT32_MAX ||
        speed > UINT32_MAX || share > 100)
        roce_jget_fail(g, "options", "", "a value out of range");
    c->udp_port = (uint16_t)udp;
    c->vxlan_port = (uint16_t)vxlan;
    c->pmtu = (uint32_t)pmtu;
    c->max_flows = (uint32_t)flows;
    c->link_speed_mbps = (uint32_t)speed;
    c->pfc_storm_pct = (uint32_t)share;
    c->check_icrc = icrc != NULL && json_object_get_boolean(icrc);
    roce_jget_ns(g, o, "options", "cnp_window_us", US_DECIMALS, 0, &c->cnp_window_ns);
    roce_jget_ns(g, o, "options", "interval_us", US_DECIMALS, 0, &c->pfc_window_ns);
}

/* What was read: files, link type, complete/error. 0, or -1 when out of memory. */
static int parse_capture(struct roce_jget *g, json_object *root, struct roce_report *r)
{
    json_object *c = roce_jget_path(g, root, "capture");
    json_object *files = roce_jget_member(g, c, "capture", "files", json_type_array, 0);
    json_object *complete = roce_jget_member(g, c, "capture", "complete", json_type_boolean, 0);
    for (size_t i = 0; files != NULL && i < json_object_array_length(files); i++) {
        json_object *f = json_object_array_get_idx(files, i);
        if (json_object_get_type(f) != json_type_string)
            roce_jget_fail(g, "capture", "files", "not a list of names");
        else if (roce_report_add_file(r, json_object_get_string(f)) != 0)
            return -1;
    }
    if (roce_report_set_link_type(r, roce_jget_str(g, c, "capture", "link_type")) != 0)
        return -1;
    if (complete != NULL && !json_object_get_boolean(complete))
        return roce_report_set_error(r, roce_jget_str(g, c, "capture", "error"));
    return 0;
}

/* Episodes by their first frame: the order they started in. */
static int cmp_episode_start(const void *a, const void *b)
{
    const struct roce_episode *x = a, *y = b;
    return (x->first_frame > y->first_frame) - (x->first_frame < y->first_frame);
}

/* The summary members (all but flows and connections), then what the
 * element-by-element walk left: absolute flow times, the flows in id order,
 * the episodes in the order they started. 0, or -1 when out of memory. */
static int finish(struct roce_jget *g, json_object *root, struct roce_report *r)
{
    const char *tool = "";
    json_object *v;
    if (json_object_object_get_ex(root, "tool", &v) && json_object_get_type(v) == json_type_string)
        tool = json_object_get_string(v);
    if (strcmp(tool, "rocescope") != 0) {
        roce_jget_fail(g, "", "", "not a rocescope JSON report (no \"tool\": \"rocescope\")");
        return 0;
    }
    if (parse_capture(g, root, r) != 0)
        return -1;
    parse_options(g, root, &r->own.cfg);
    parse_totals(g, root, r);
    r->t.connections = r->n_conns;
    for (size_t i = 0; i < r->n_flows; i++) {
        r->flows[i].first_ts_ns += r->t.first_ts_ns;
        r->flows[i].last_ts_ns += r->t.first_ts_ns;
        if (i > 0 && r->flows[i].id <= r->flows[i - 1].id)
            roce_jget_fail(g, "flows", "", "not in id order");
    }
    if (r->n_episodes > 1)
        qsort(r->episodes, r->n_episodes, sizeof *r->episodes, cmp_episode_start);
    return 0;
}

int roce_report_parse(const char *path, struct roce_report *r, char *err, size_t errlen)
{
    struct roce_jget g = {err, errlen, 0, ""};
    struct walk w = {NULL, 0, 0, json_tokener_new(), &g};
    json_object *root = json_object_new_object();
    struct stat st;
    void *map = MAP_FAILED;
    int fd = open(path, O_RDONLY);

    roce_report_init(r);
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(err, errlen, "%s", strerror(errno));
        g.failed = 1;
    } else if (st.st_size == 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s", st.st_size == 0 ? "empty file" : "not a regular file");
        g.failed = 1;
    } else if ((map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) ==
               MAP_FAILED) {
        snprintf(err, errlen, "%s", strerror(errno));
        g.failed = 1;
    } else if (w.tok == NULL || root == NULL) {
        snprintf(err, errlen, "out of memory");
        g.failed = 1;
    } else {
        w.buf = map;
        w.len = (size_t)st.st_size;
        if (walk_report(&w, root, r) == 0 && finish(&g, root, r) != 0)
            roce_jget_fail(&g, "report", "", "out of memory");
    }
    if (map != MAP_FAILED)
        munmap(map, (size_t)st.st_size);
    if (fd >= 0)
        close(fd);
    json_object_put(root);
    if (w.tok != NULL)
        json_tokener_free(w.tok);
    if (g.failed)
        roce_report_free(r);
    return g.failed ? -1 : 0;
}
