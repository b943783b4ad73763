/*
 * prometheus.h - `--prometheus-file PATH`: the live monitor's counters in
 * the Prometheus text exposition format, for node_exporter's textfile
 * collector (analyzer/report/REPORT.md, "Prometheus", lists the metrics).
 */
#ifndef ROCE_PROMETHEUS_H
#define ROCE_PROMETHEUS_H

#include <stdio.h>

#include "live_interval.h"

/* Write the metrics of the running totals after interval iv to out. 0, or
 * -1 on a write error. */
int roce_prometheus_write(FILE *out, const struct roce_live_interval *iv);

/* Replace the file at path with the metrics, atomically (a temporary file
 * in the same directory, renamed; readable by all, as the collector runs
 * as another user). 0, or -1 with errno set. */
int roce_prometheus_file(const char *path, const struct roce_live_interval *iv);

#endif
