/*
 * prometheus.c - the Prometheus text exposition format (see prometheus.h).
 *
 * Every family has its # HELP and # TYPE lines, then its samples; every
 * sample carries the label interface="IFACE", so that monitors of several
 * interfaces can share a collector directory. Counts end in _total; times
 * are seconds. Label values are escaped as the format requires (\\, \", \n).
 * The families of single counters are the fields of the report that the
 * interval lines carry with a Prometheus name (live_fields.h), in their
 * order; the PFC families those of a priority (roce_pfc_prio_fields).
 */
#define _DEFAULT_SOURCE
#include "prometheus.h"

#include <errno.h>
#include <inttypes.h>
#include <sys/stat.h>

#include "live_fields.h"
#include "output.h"
#include "roce_time.h"

#define FILE_MODE  0644
#define LABEL_BUF  128

struct prom {
    FILE *out;
    const char *iface;
};

/* "# HELP" and "# TYPE" of a family. */
static void family(struct prom *p, const char *name, const char *type, const char *help)
{
    fprintf(p->out, "# HELP " ROCE_PROM_PREFIX "%s %s\n# TYPE " ROCE_PROM_PREFIX "%s %s\n", name,
            help, name, type);
}

/* A label value with \, " and newline escaped. */
static void label_value(FILE *out, const char *v)
{
    for (; *v; v++) {
        if (*v == '\\' || *v == '"')
            fputc('\\', out);
        if (*v == '\n') {
            fputs("\\n", out);
            continue;
        }
        fputc(*v, out);
    }
}

/* The start of a sample: name{interface="..."[,key="value"]. */
static void sample_start(struct prom *p, const char *name, const char *key, const char *value)
{
    fprintf(p->out, ROCE_PROM_PREFIX "%s{interface=\"", name);
    label_value(p->out, p->iface);
    if (key != NULL) {
        fprintf(p->out, "\",%s=\"", key);
        label_value(p->out, value);
    }
    fputs("\"} ", p->out);
}

static void sample_u64(struct prom *p, const char *name, const char *key, const char *value,
                       uint64_t v)
{
    sample_start(p, name, key, value);
    fprintf(p->out, "%" PRIu64 "\n", v);
}

static void sample_seconds(struct prom *p, const char *name, const char *key, const char *value,
                           int64_t ns)
{
    sample_start(p, name, key, value);
    fprintf(p->out, "%.9f\n", (double)ns / (double)ROCE_NS_PER_SEC);
}

/* A sample of field m of the record at base: a count, or seconds. */
static void sample_field(struct prom *p, const char *name, const char *key, const char *value,
                         const struct roce_field *m, const void *base)
{
    uint64_t v = roce_field_u64(base, m->off);
    if (m->type == ROCE_FT_US)
        sample_seconds(p, name, key, value, (int64_t)v);
    else
        sample_u64(p, name, key, value, v);
}

/* The PFC families: per priority, and the link PAUSE ones. */
static void pfc_families(struct prom *p, const struct roce_totals *t, const struct roce_totals *d,
                         int64_t length_ns)
{
    char name[LABEL_BUF], prio[LABEL_BUF], help[LABEL_BUF * 2];
    const struct roce_fieldset *fs = &roce_pfc_prio_fields;
    for (const struct roce_field *m = fs->f; m < fs->f + fs->n; m++) {
        if (m->prom == NULL)
            continue;
        snprintf(name, sizeof name, "pfc_%s", m->prom);
        snprintf(help, sizeof help, "PFC per priority: %s", m->help);
        family(p, name, "counter", help);
        for (unsigned i = 0; i < ROCE_PFC_PRIORITIES; i++) {
            snprintf(prio, sizeof prio, "%u", i);
            sample_field(p, name, "priority", prio, m, &t->pfc.prio[i]);
        }
        snprintf(name, sizeof name, "pause_%s", m->prom);
        snprintf(help, sizeof help, "802.3x link PAUSE: %s", m->help);
        family(p, name, "counter", help);
        sample_field(p, name, NULL, NULL, m, &t->pfc.pause);
    }
    family(p, "pfc_paused_ratio", "gauge", "Share of the last interval a priority was paused");
    for (unsigned i = 0; i < ROCE_PFC_PRIORITIES; i++) {
        snprintf(prio, sizeof prio, "%u", i);
        sample_start(p, "pfc_paused_ratio", "priority", prio);
        fprintf(p->out, "%.6f\n",
                length_ns > 0 ? (double)d->pfc.prio[i].paused_ns / (double)length_ns : 0.0);
    }
}

/* The families with a label per kind: NAK codes, triggers, malformed
 * reasons, encapsulations. */
static void labelled_families(struct prom *p, const struct roce_totals *t)
{
    family(p, "naks_total", "counter", "NAKs by code (rnr: RNR NAKs)");
    for (unsigned c = 0; c < ROCE_NAK_CODES; c++)
        sample_u64(p, "naks_total", "code", roce_nak_code_name(c), t->naks.code[c]);
    sample_u64(p, "naks_total", "code", "reserved_code", t->naks.reserved_code);
    sample_u64(p, "naks_total", "code", "rnr", t->naks.rnr);
    family(p, "episodes_total", "counter", "Go-back-N episodes by trigger");
    for (unsigned i = 0; i < ROCE_TRIGGER_COUNT; i++)
        sample_u64(p, "episodes_total", "trigger", roce_trigger_name(i), t->by_trigger[i]);
    family(p, "malformed_by_reason_total", "counter", "Malformed RoCE frames by reason");
    for (unsigned i = 1; i < ROCE_MAL_COUNT; i++)
        sample_u64(p, "malformed_by_reason_total", "reason",
                   roce_malformed_name((enum roce_malformed)i), t->malformed_by_reason[i]);
    family(p, "encapsulated_frames_total", "counter",
           "Mirrored frames unwrapped, by outermost encapsulation");
    for (unsigned i = 1; i < ROCE_ENCAP_COUNT; i++)
        sample_u64(p, "encapsulated_frames_total", "encapsulation",
                   roce_encap_name((enum roce_encap)i), t->encap[i]);
}

static void capture_families(struct prom *p, const struct roce_live_interval *iv)
{
    family(p, "capture_received_total", "counter", "Packets the capture received (pcap_stats)");
    sample_u64(p, "capture_received_total", NULL, NULL, iv->cap.received);
    family(p, "capture_dropped_total", "counter",
           "Packets dropped by the kernel: the capture buffer was full (pcap_stats)");
    sample_u64(p, "capture_dropped_total", NULL, NULL, iv->cap.dropped);
    family(p, "capture_if_dropped_total", "counter",
           "Packets dropped by the interface or its driver (pcap_stats)");
    sample_u64(p, "capture_if_dropped_total", NULL, NULL, iv->cap.if_dropped);
    family(p, "flows_with_trouble", "gauge",
           "Flows with retransmissions, NAKs, gaps, CE marks or CNPs in the last interval");
    sample_u64(p, "flows_with_trouble", NULL, NULL, iv->n_troubled);
    family(p, "interval_seconds", "gauge", "Length of the last interval");
    sample_seconds(p, "interval_seconds", NULL, NULL, iv->length_ns);
    family(p, "uptime_seconds", "gauge", "Time since the capture started");
    sample_seconds(p, "uptime_seconds", NULL, NULL, iv->uptime_ns);
    family(p, "last_update_timestamp_seconds", "gauge", "When these metrics were written");
    sample_seconds(p, "last_update_timestamp_seconds", NULL, NULL, iv->wall_ns);
}

int roce_prometheus_write(FILE *out, const struct roce_live_interval *iv)
{
    struct prom p = {out, iv->iface};
    const struct roce_field *fields[ROCE_REPORT_FIELDS_MAX];
    size_t n = roce_live_fields(fields, ROCE_REPORT_FIELDS_MAX);
    for (size_t i = 0; i < n; i++) {
        const struct roce_field *m = fields[i];
        if (m->prom == NULL)
            continue;
        family(&p, m->prom, m->flags & ROCE_FF_GAUGE ? "gauge" : "counter", m->help);
        sample_u64(&p, m->prom, NULL, NULL, roce_field_u64(iv->total, m->off));
    }
    labelled_families(&p, iv->total);
    pfc_families(&p, iv->total, &iv->delta, iv->length_ns);
    capture_families(&p, iv);
    return ferror(out) ? -1 : 0;
}

int roce_prometheus_file(const char *path, const struct roce_live_interval *iv)
{
    struct roce_output o;
    if (roce_output_open(&o, path) != 0)
        return -1;
    if (fchmod(fileno(o.fp), FILE_MODE) != 0 || roce_prometheus_write(o.fp, iv) != 0) {
        int e = errno;
        roce_output_abort(&o);
        errno = e;
        return -1;
    }
    return roce_output_commit(&o);
}
