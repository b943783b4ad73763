/*
 * report.h - the analysis report as the CLI writes it: a snapshot of the
 * engine's totals, flows and episodes plus what was read, and the writers
 * (JSON, human text).
 */
#ifndef ROCE_REPORT_H
#define ROCE_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "roce_engine.h"

/* What a live capture adds to its report: the interface and the capture
 * statistics (pcap_stats). */
struct roce_report_live {
    const char *iface;
    uint64_t received, dropped, if_dropped;
};

struct roce_report {
    const char *const *files; /* the capture files, in reading order */
    size_t n_files;
    const char *link_type;    /* link-layer type name of the first file */
    const struct roce_config *cfg;
    struct roce_engine *engine;
    const struct roce_totals *t;
    struct roce_flow_report *flows; /* sorted by id */
    size_t n_flows;
    const char *error; /* set when reading stopped early: the report is partial */
    const struct roce_report_live *live; /* live capture statistics (NULL: files) */
};

/* Take the snapshot (allocates flows). 0, or -1 when out of memory. */
int roce_report_build(struct roce_report *r, struct roce_engine *e);
void roce_report_free(struct roce_report *r);
/* The flow with this id, or NULL (evicted or unknown). */
const struct roce_flow_report *roce_report_flow(const struct roce_report *r, uint64_t id);

/* Write the full report as one JSON document. 0, or -1 on error. */
int roce_report_json(const struct roce_report *r, FILE *out);
/* Write the human summary: totals, troubled flows worst first (at most top),
 * episodes (at most top), clean flows in one line. 0, or -1 on error. */
int roce_report_text(const struct roce_report *r, FILE *out, unsigned top);

#endif
