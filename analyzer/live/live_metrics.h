/*
 * live_metrics.h - the names of the live monitor's counters, in one table
 * that the JSON Lines writer (live_json.c) and the Prometheus writer
 * (prometheus.c) both read, so the two always carry the same counters.
 */
#ifndef ROCE_LIVE_METRICS_H
#define ROCE_LIVE_METRICS_H

#include <stddef.h>
#include <stdint.h>

#define ROCE_PROM_PREFIX "rocescope_"

/* A count of struct roce_totals. */
struct roce_metric {
    const char *group; /* JSON object that holds the key (NULL: the counters object) */
    const char *key;   /* JSON key */
    const char *prom;  /* Prometheus name after ROCE_PROM_PREFIX (NULL: not exported) */
    const char *help;
    size_t offset; /* of the uint64_t in struct roce_totals */
    int gauge;     /* a current value, not a count (only in the running totals) */
};
/* Ends with a NULL key. */
extern const struct roce_metric roce_live_metrics[];

/* A count of struct roce_pfc_prio (per priority, and for link PAUSE). */
struct roce_pfc_metric {
    const char *key;  /* JSON key */
    const char *prom; /* Prometheus name after "rocescope_pfc_" / "rocescope_pause_" */
    const char *help;
    size_t offset; /* of the 64-bit field in struct roce_pfc_prio */
    int ns;        /* nanoseconds: JSON microseconds, Prometheus seconds */
};
/* Ends with a NULL key. */
extern const struct roce_pfc_metric roce_live_pfc_metrics[];

/* The 64-bit field at offset in the struct at base. */
uint64_t roce_metric_get(const void *base, size_t offset);

#endif
