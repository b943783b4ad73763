/*
 * report_fields.h - every field of the report, declared once.
 *
 * As Wireshark declares a protocol's fields once (hf_register_info) and
 * every part of it works from that declaration, the tables of
 * report_fields.c declare each field of the report once: the object that
 * holds it and its JSON key, in document order; its type; where its value
 * lives (an offset in struct roce_totals, roce_flow_report, roce_episode,
 * roce_config...); how reports merge it; whether the live monitor's interval
 * lines carry it, and its Prometheus name and help. From them:
 *
 *   the JSON report (report_json.c)      roce_fields_json
 *   the report parser (report_parse.c)   roce_fields_parse
 *   the merge (report_merge.c)           roce_fields_merge_totals, _renumber
 *   the live interval lines, the interval differences and the Prometheus
 *   file (live_fields.c, live_json.c, live_interval.c, prometheus.c), the
 *   terminal view's counters (live_view.c, by path: roce_fields_find)
 *
 * A composite member (a latency object, the PSN range, an endpoint, the list
 * of files...) is a field of type ROCE_FT_CALL whose callbacks write and read
 * it at its place in the document.
 *
 * Adding a counter: the engine counts it, one line in the right table of
 * report_fields.c, the tests (and the golden files, which gain the key).
 */
#ifndef ROCE_REPORT_FIELDS_H
#define ROCE_REPORT_FIELDS_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "jsonget.h"
#include "report.h"

/* How a field's value is held, and how the JSON documents write it. */
enum roce_ftype {
    ROCE_FT_UINT,    /* an unsigned integer of `size` bytes: a number */
    ROCE_FT_BOOL,    /* uint8_t: true or false */
    ROCE_FT_US,      /* int64_t nanoseconds: microseconds with 3 exact decimals */
    ROCE_FT_SECONDS, /* int64_t nanoseconds: seconds with 9 exact decimals */
    ROCE_FT_NAME,    /* uint8_t enumeration: its name (names) */
    ROCE_FT_COUNTS,  /* uint64_t[]: {name: count, ...} (names, from names->first) */
    ROCE_FT_OBJECT,  /* a struct: an object of its own fields (sub) */
    ROCE_FT_CALL     /* written and read by its callbacks (call) */
};

/* How the report of captures read one after the other gets the field from
 * the reports of each (report_merge.c). Flows and episodes are appended
 * whole: for their fields only the renumbering kinds mean something. */
enum roce_fmerge {
    ROCE_MERGE_NONE,     /* not field by field: an alias, or what report_merge.c merges itself */
    ROCE_MERGE_SUM,      /* 64-bit counters: they add up */
    ROCE_MERGE_EARLIEST, /* a time (int64_t): the earliest of the reports that have packets */
    ROCE_MERGE_LATEST,   /* a time (int64_t): the latest of the reports that have packets */
    ROCE_MERGE_SUMMARY,  /* a latency summary: of the merged distribution */
    ROCE_MERGE_FRAME,    /* a frame number (0: none), numbered on after the reports before */
    ROCE_MERGE_FLOW_ID,  /* a flow id, numbered on after the flows the reports before created */
    ROCE_MERGE_FLOW_REF, /* a flow id, or 0 (none), numbered on */
    ROCE_MERGE_MIN,      /* a uint64_t where 0 is none: the least of the others */
    ROCE_MERGE_MAX       /* a uint64_t: the greatest */
};

/* Where a field appears, and special cases of its type. */
enum roce_fflag {
    ROCE_FF_ALIAS = 1u << 0,    /* the value of another field, written again under a
                                   second key (read and merged under the first) */
    ROCE_FF_NULL0 = 1u << 1,    /* written null when the uint64_t at `when` is 0; null reads as 0 */
    ROCE_FF_RELATIVE = 1u << 2, /* a time written relative to the report's first time */
    ROCE_FF_LIVE = 1u << 3,     /* in the live monitor's interval lines (a count: the
                                   interval's difference, and the running total) */
    ROCE_FF_GAUGE = 1u << 4,    /* with LIVE: a current value, only in the running totals */
    ROCE_FF_LIVE_LAST = 1u << 5, /* with LIVE: after the other counts of its object there */
    ROCE_FF_LIVE_ONLY = 1u << 6, /* in the interval lines, not in the report */
    ROCE_FF_QUANTA = 1u << 7,    /* PFC/PAUSE quanta: Prometheus has them as seconds at the
                                    configured link speed */
    ROCE_FF_SIGNED = 1u << 8     /* US: a difference of two frames' times, negative when the
                                    capture's clock ran backwards (other times are never) */
};

struct roce_field;
struct roce_fieldset;
struct roce_jw;

/* What a field is written from, besides its record. */
struct roce_fout {
    const struct roce_report *r;       /* the report (NULL: the live monitor's totals alone) */
    const struct roce_report_lat *lat; /* the record's distributions ([ROCE_LATENCY_KINDS]) */
    const struct roce_report_flow *fx; /* of a flow: what the report adds to it */
    int64_t t0;                        /* RELATIVE times count from it */
    const size_t *episodes;            /* of a flow streamed: its episodes' indexes in
                                          r->episodes, in order (roce_fields_stream) */
    size_t n_episodes;
    int stream_diagnoses; /* "diagnoses": a null the caller replaces, streamed (roce_jw_diagnoses)
                           */
};

/* What a field is read into, besides its record. */
struct roce_fin {
    struct roce_report *r;       /* the report being read */
    struct roce_report_lat *lat; /* the record's distributions ([ROCE_LATENCY_KINDS]) */
    struct roce_report_flow *fx; /* of a flow: what the report adds to it */
};

/* The callbacks of a ROCE_FT_CALL field. */
struct roce_fcall {
    /* Add the field's member(s) to o, the object that holds it. NULL: the
     * members stream writes, read back (the fields of flows, episodes and
     * connections, which the JSON report streams, have only stream). */
    void (*write)(json_object *o, const struct roce_field *f, const void *base,
                  const struct roce_fout *c);
    /* Read them from o (NULL after a problem), the object at where. 0, or
     * -1 when out of memory. NULL: not read back. */
    int (*parse)(struct roce_jget *g, json_object *o, const char *where, const struct roce_field *f,
                 void *base, const struct roce_fin *c);
    /* Write the field's member(s), keys and values, streamed (jsonw.h) into
     * the object open in w. NULL: what write adds to an object of its own
     * is written. */
    void (*stream)(struct roce_jw *w, const struct roce_field *f, const void *base,
                   const struct roce_fout *c);
};

/* The names of an enumeration (NAME: values 0..count-1) or of the entries
 * of a count array (COUNTS: entries first..count-1). */
struct roce_fnames {
    const char *(*name)(unsigned);
    unsigned first, count;
};

struct roce_field {
    const char *path;  /* the object that holds it, dot-separated ("": the record's) */
    const char *key;   /* its JSON key (NULL: in no document, merged only; "" for COUNTS:
                          the counts are members of the holding object itself) */
    uint8_t type;      /* enum roce_ftype */
    uint8_t merge;     /* enum roce_fmerge */
    uint16_t flags;    /* enum roce_fflag */
    uint32_t size;     /* of the member (UINT: 1, 2, 4 or 8) */
    size_t off;        /* of the member in the record */
    size_t when;       /* NULL0: the uint64_t whose zero makes it null */
    uint64_t min, max; /* UINT: the range read back (max 0: what the member holds) */
    const char *why;   /* UINT: the problem when out of range (NULL: "a value out of range") */
    unsigned arg;      /* CALL: for the callbacks (latency: enum roce_latency_kind) */
    const struct roce_fnames *names; /* NAME, COUNTS */
    const struct roce_fieldset *sub; /* OBJECT */
    const struct roce_fcall *call;   /* CALL */
    const char *prom;                /* Prometheus name after "rocescope_" (NULL: not exported);
                                        fields with the same name are one family, told apart
                                        by the label prom_label */
    const char *help;                /* its help (a family's: its first field's) */
    const char *prom_label;          /* the label of its samples: COUNTS one per entry, valued
                                        by the entry's name; else valued prom_value (NULL:
                                        no label) */
    const char *prom_value;
    const char *option; /* options: how `merge` names it when two reports differ */
};

struct roce_fieldset {
    const struct roce_field *f;
    size_t n; /* at most ROCE_REPORT_FIELDS_MAX */
};
#define ROCE_REPORT_FIELDS_MAX 128

/* The report's own members, base struct roce_totals (the members that are
 * not totals, the files, options, latency objects, are CALL fields reading
 * the report): "capture" ... "limits". */
extern const struct roce_fieldset roce_report_fields;
/* An element of "flows": struct roce_flow_report. */
extern const struct roce_fieldset roce_flow_fields;
/* An element of a flow's "episodes": struct roce_episode. */
extern const struct roce_fieldset roce_episode_fields;
/* An element of "connections": struct roce_report_conn. */
extern const struct roce_fieldset roce_conn_fields;
/* "options": struct roce_config. */
extern const struct roce_fieldset roce_option_fields;
/* A PFC priority, or the link PAUSE: struct roce_pfc_prio. */
extern const struct roce_fieldset roce_pfc_prio_fields;

/* The uint64_t at base + off. */
uint64_t roce_field_u64(const void *base, size_t off);

/* The object at the dot-separated path from o, made where missing ("": o). */
json_object *roce_fields_holder(json_object *o, const char *path);
/* Add field f of the record at base to o, the object that holds it. */
void roce_field_json(json_object *o, const struct roce_field *f, const void *base,
                     const struct roce_fout *c);
/* Add the report's fields of fs (not the live-only ones) to o, each in the
 * object of its path (made on first use: document order is table order). */
void roce_fields_json(json_object *o, const struct roce_fieldset *fs, const void *base,
                      const struct roce_fout *c);
/* The record at base as one object of the report's fields of fs, written
 * to w as roce_fields_json's object would be, without building it (fields
 * in objects of their own, a path, are built and then written). */
void roce_fields_stream(struct roce_jw *w, const struct roce_fieldset *fs, const void *base,
                        const struct roce_fout *c);
/* Read the report's fields of fs from o (at where, for problems: "" for
 * the document or a flow) into the record at base. Every value is checked
 * (type, range); the first problem is recorded (jsonget.h). 0, or -1 when
 * out of memory. */
int roce_fields_parse(struct roce_jget *g, json_object *o, const char *where,
                      const struct roce_fieldset *fs, void *base, const struct roce_fin *c);

/* Merge the totals of src, the report of the capture read after dst's, into
 * dst's by the merge kinds of roce_report_fields (SUM, FIRST, LAST). */
void roce_fields_merge_totals(struct roce_totals *dst, const struct roce_totals *src);
/* Whether the counts (ROCE_MERGE_SUM) of src add to dst's without passing
 * max: 0, or -1 with the name of the first that would ("capture.packets",
 * "pfc.priorities[3].xoff") in why. */
int roce_fields_check_sums(const struct roce_totals *dst, const struct roce_totals *src,
                           uint64_t max, char *why, size_t len);
/* Number the FRAME, FLOW_ID and FLOW_REF fields of a record on after frame_off
 * frames and id_off flows. */
void roce_fields_renumber(const struct roce_fieldset *fs, void *base, uint64_t frame_off,
                          uint64_t id_off);
/* Map the FLOW_ID and FLOW_REF (when not 0) fields of a record through map. */
void roce_fields_map_ids(const struct roce_fieldset *fs, void *base,
                         uint64_t (*map)(uint64_t id, void *ctx), void *ctx);
/* Add t0 to the RELATIVE times of a record read back. */
void roce_fields_absolute(const struct roce_fieldset *fs, void *base, int64_t t0);
/* dst += src (subtract: dst -= src) for the 64-bit counters of a count
 * field (ROCE_MERGE_SUM) of two records. */
void roce_field_add(const struct roce_field *f, void *dst, const void *src, int subtract);
/* Nonzero when f is a count: it adds up, and the live monitor takes its
 * difference over an interval (the others are current values). */
int roce_field_is_count(const struct roce_field *f);

/* The 64-bit counter at the dot-separated JSON path ("ecn.ce_marked",
 * "naks.total") of the records of fs: the field, and the counter's offset
 * in the record in *off. NULL when there is none. */
const struct roce_field *roce_fields_find(const struct roce_fieldset *fs, const char *path,
                                          size_t *off);

/* The callbacks (report_field_calls.c). */
extern const struct roce_fcall roce_fcall_file, roce_fcall_files, roce_fcall_link_type,
    roce_fcall_complete, roce_fcall_error, roce_fcall_live, roce_fcall_options,
    roce_fcall_duration_s, roce_fcall_latency, roce_fcall_priorities, roce_fcall_endpoint,
    roce_fcall_endpoint_object, roce_fcall_paired_with, roce_fcall_opcodes, roce_fcall_psn_range,
    roce_fcall_episodes, roce_fcall_duration_us, roce_fcall_files_overlap;
/* report_fields_diag.c */
extern const struct roce_fcall roce_fcall_diagnoses, roce_fcall_macs, roce_fcall_storm_frames,
    roce_fcall_capture_frames, roce_fcall_udp_sports, roce_fcall_dcqcn, roce_fcall_evidence,
    roce_fcall_nak_generation, roce_fcall_incast;
/* report_fields_pauses.c: "pause_episodes" */
extern const struct roce_fcall roce_fcall_pauses, roce_fcall_pause_share;
/* Append the pauses src lists to dst's (frames numbered on after
 * frame_off); those beyond dst's room are counted in pauses_unlisted. */
void roce_pause_list_merge(struct roce_totals *dst, const struct roce_totals *src,
                           uint64_t frame_off);
/* An element of "host_macs" (host nonzero) or "fabric_macs", o at where,
 * appended to r's MACs (the parser streams the lists element by element).
 * 0, or -1 when out of memory. */
int roce_fields_parse_mac(struct roce_jget *g, json_object *o, const char *where,
                          struct roce_report *r, int host);

#endif
