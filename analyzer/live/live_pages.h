/*
 * live_pages.h - the documents `--listen` serves, made from each interval
 * of the live monitor:
 *
 *   /metrics  the Prometheus text exposition format, as the file
 *             --prometheus-file writes (prometheus.c)
 *   /         the live page: for now the interval's lines (live_view.c) in
 *             a page that reloads every interval. This is the hook of the
 *             HTML report of the running capture: roce_live_page() is the
 *             one function to replace.
 */
#ifndef ROCE_LIVE_PAGES_H
#define ROCE_LIVE_PAGES_H

#include <stdint.h>
#include <stdio.h>

#include "http.h"
#include "live_interval.h"

#define ROCE_LIVE_METRICS_PATH "/metrics"
#define ROCE_LIVE_METRICS_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define ROCE_LIVE_PAGE_PATH    "/"
#define ROCE_LIVE_PAGE_TYPE    "text/html; charset=utf-8"

/* Declare the paths (503 until the first interval). 0, or -1. */
int roce_live_pages_declare(struct roce_http *h);

/* Write the live page of interval iv to out (refreshed every interval_ns).
 * 0, or -1 on a write error. */
int roce_live_page(FILE *out, const struct roce_live_interval *iv, int64_t interval_ns);

/* Make both documents of iv and publish them. 0, or -1 when out of memory. */
int roce_live_pages_publish(struct roce_http *h, const struct roce_live_interval *iv,
                            int64_t interval_ns);

#endif
