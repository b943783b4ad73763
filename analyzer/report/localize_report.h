/*
 * localize_report.h - the output of `rocescope localize`: the vantage-point
 * analysis (roce_vantage.h) with the names and files of its points, written
 * as the human summary or as one JSON document (REPORT.md, "Localize").
 */
#ifndef ROCE_LOCALIZE_REPORT_H
#define ROCE_LOCALIZE_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "roce_vantage.h"

/* One vantage point as the command line and the first reading made it. */
struct roce_localize_point {
    const char *name; /* NAME, NAME/SESSION or NAME/OUTER-SOURCE */
    const char *file; /* the capture it comes from, as given */
    int has_session;  /* split by ERSPAN session: session is its ID */
    unsigned session;
    const char *outer_source; /* split by outer source: its address (NULL otherwise) */
    uint64_t packets, roce_packets;
};

struct roce_localize_report {
    const struct roce_vantage *v; /* finished */
    unsigned n_points;
    const struct roce_localize_point *points;
    int64_t path_delay_ns;
    const char *split_by;   /* "none", "erspan-session" or "outer-source" */
    unsigned top;           /* flows, losses and CE marks listed in the text */
    const char *incomplete; /* the first read error ("FILE: WHY"), NULL when none */
    uint32_t link_speed_mbps;
    int64_t spread_window_ns; /* --spread-window, 0: auto */
};

#define ROCE_LOCALIZE_SENTENCE_LEN 1024
/* The sentence of finding pause_cycle (cycle) or pause_spreading: what the
 * first cycle or chain shows and what to do (localize_text.c). */
void roce_localize_pause_sentence(const struct roce_localize_report *r, int cycle, char *buf,
                                  size_t len);
/* "priority 3" or "link PAUSE". */
void roce_localize_priority_name(unsigned prio, char *buf, size_t len);

/* A point's name, or "(sender)" / "(receiver)" for the open end before the
 * first point (is_after) or after the last (localize_text.c). */
const char *roce_localize_end_name(const struct roce_localize_report *r, int p, int is_after);
/* "AFTER -> BEFORE" of a segment. */
void roce_localize_segment_name(const struct roce_localize_report *r,
                                const struct roce_vantage_segment *s, char *buf, size_t len);

/* 0, or -1 when the output could not be written (or out of memory). */
int roce_localize_json(const struct roce_localize_report *r, FILE *out);
int roce_localize_text(const struct roce_localize_report *r, FILE *out);

#endif
