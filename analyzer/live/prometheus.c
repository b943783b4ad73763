/*
 * prometheus.c - the Prometheus text exposition format (see prometheus.h).
 *
 * Every family has its # HELP and # TYPE lines, then its samples; every
 * sample carries the label interface="IFACE", so that monitors of several
 * interfaces can share a collector directory. Names follow the conventions
 * (https://prometheus.io/docs/practices/naming/): counts end in _total,
 * times are seconds, bytes bytes; the parts of one whole are one family
 * told apart by a label, and the whole is not written beside them (sum()
 * gives it). Label values are escaped as the format requires (\\, \", \n).
 *
 * The families come from the report's field table (report_fields.c): the
 * fields the interval lines carry (live_fields.h) that have a Prometheus
 * name, in their order, fields of the same name making one family; the PFC
 * families from the fields of a priority (roce_pfc_prio_fields), once per
 * priority (label priority) and once for the link PAUSE. The NAK codes, the
 * capture statistics, the flows with trouble and the times are written
 * here.
 */
#define _DEFAULT_SOURCE
#include "prometheus.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>

#include "fmt.h"
#include "live_fields.h"
#include "output.h"
#include "roce_time.h"

#define FILE_MODE             0644
#define BITS_PER_QUANTUM      512.0 /* IEEE 802.3 Annex 31B: a quantum is 512 bit times */
#define BITS_PER_SEC_PER_MBPS 1e6
#define NAME_BUF              128
#define HELP_BUF              256
#define VALUE_BUF             32
#define MAX_LABELS            4
#define PFC_PREFIX            "pfc_priority_"
#define PAUSE_PREFIX          "link_pause_"
#define PROM_SUBJECTS         100 /* diagnosis samples per finding: its worst subjects */
#define STR_(x)               #x
#define STR(x)                STR_(x)

struct prom {
    FILE *out;
    const char *iface;
    double quantum_s; /* one pause quantum at the configured link speed */
};

struct label {
    const char *key, *value;
};

/* The records a set of families is written for: one (no label of its own),
 * or several told apart by the label key="<index>" (the PFC priorities). */
struct records {
    const void *base[ROCE_PFC_PRIORITIES];
    size_t n;
    const char *key;
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

/* The start of a sample: name{interface="...",key="value"...} . */
static void sample_start(struct prom *p, const char *name, const struct label *l, size_t n)
{
    fprintf(p->out, ROCE_PROM_PREFIX "%s{interface=\"", name);
    label_value(p->out, p->iface);
    for (size_t i = 0; i < n; i++) {
        fprintf(p->out, "\",%s=\"", l[i].key);
        label_value(p->out, l[i].value);
    }
    fputs("\"} ", p->out);
}

static void sample_u64(struct prom *p, const char *name, const struct label *l, size_t n,
                       uint64_t v)
{
    sample_start(p, name, l, n);
    fprintf(p->out, "%" PRIu64 "\n", v);
}

static void sample_double(struct prom *p, const char *name, const struct label *l, size_t n,
                          double v)
{
    sample_start(p, name, l, n);
    fprintf(p->out, "%.9f\n", v);
}

static void sample_seconds(struct prom *p, const char *name, const struct label *l, size_t n,
                           int64_t ns)
{
    sample_double(p, name, l, n, (double)ns / (double)ROCE_NS_PER_SEC);
}

/* The samples of field f of the record at base: a count, seconds, or one
 * per entry of a COUNTS field; labels l[0..n) first, then its own. */
static void field_samples(struct prom *p, const char *name, const struct roce_field *f,
                          const void *base, const struct label *l, size_t n)
{
    struct label all[MAX_LABELS];
    memcpy(all, l, n * sizeof *l);
    if (f->type == ROCE_FT_COUNTS) {
        for (unsigned i = f->names->first; i < f->names->count; i++) {
            all[n] = (struct label){f->prom_label, f->names->name(i)};
            sample_u64(p, name, all, n + 1, roce_field_u64(base, f->off + i * sizeof(uint64_t)));
        }
        return;
    }
    if (f->prom_label != NULL)
        all[n++] = (struct label){f->prom_label, f->prom_value};
    uint64_t v = roce_field_u64(base, f->off);
    if (f->type == ROCE_FT_US)
        sample_seconds(p, name, all, n, (int64_t)v);
    else if (f->flags & ROCE_FF_QUANTA)
        sample_double(p, name, all, n, (double)v * p->quantum_s);
    else
        sample_u64(p, name, all, n, v);
}

/* Nonzero when an earlier field of f[0..i) has f[i]'s Prometheus name. */
static int family_written(const struct roce_field *const *f, size_t i)
{
    for (size_t k = 0; k < i; k++)
        if (f[k]->prom != NULL && strcmp(f[k]->prom, f[i]->prom) == 0)
            return 1;
    return 0;
}

/* Every family of the fields f[0..n) that have a Prometheus name, once, in
 * the order of its first field: named prefix + name, its help after
 * help_prefix; the samples of each of its fields for each record of rec. */
static void families(struct prom *p, const struct roce_field *const *f, size_t n,
                     const char *prefix, const char *help_prefix, const struct records *rec)
{
    char name[NAME_BUF], help[HELP_BUF], index[VALUE_BUF];
    for (size_t i = 0; i < n; i++) {
        if (f[i]->prom == NULL || family_written(f, i))
            continue;
        snprintf(name, sizeof name, "%s%s", prefix, f[i]->prom);
        snprintf(help, sizeof help, "%s%s", help_prefix, f[i]->help);
        family(p, name, f[i]->flags & ROCE_FF_GAUGE ? "gauge" : "counter", help);
        for (size_t r = 0; r < rec->n; r++) {
            struct label l = {rec->key, index};
            snprintf(index, sizeof index, "%zu", r);
            for (size_t j = i; j < n; j++)
                if (f[j]->prom != NULL && strcmp(f[j]->prom, f[i]->prom) == 0)
                    field_samples(p, name, f[j], rec->base[r], &l, rec->key != NULL);
        }
    }
}

/* NAKs by code: the codes, the reserved ones and RNR NAKs. */
static void nak_family(struct prom *p, const struct roce_totals *t)
{
    struct label l = {"code", NULL};
    family(p, "naks_total", "counter", "NAKs by code (rnr: RNR NAKs)");
    for (unsigned c = 0; c < ROCE_NAK_CODES; c++) {
        l.value = roce_nak_code_name(c);
        sample_u64(p, "naks_total", &l, 1, t->naks.code[c]);
    }
    l.value = "reserved_code";
    sample_u64(p, "naks_total", &l, 1, t->naks.reserved_code);
    l.value = "rnr";
    sample_u64(p, "naks_total", &l, 1, t->naks.rnr);
}

/* The PFC families, per priority and for the link PAUSE, and the share of
 * the last interval each priority was paused. */
static void pfc_families(struct prom *p, const struct roce_totals *t, const struct roce_totals *d,
                         int64_t length_ns)
{
    const struct roce_fieldset *fs = &roce_pfc_prio_fields;
    const struct roce_field *f[ROCE_REPORT_FIELDS_MAX];
    struct records prio = {{NULL}, ROCE_PFC_PRIORITIES, "priority"};
    struct records pause = {{&t->pfc.pause}, 1, NULL};
    char index[VALUE_BUF];
    size_t n = 0;
    for (; n < fs->n && n < ROCE_REPORT_FIELDS_MAX; n++)
        f[n] = &fs->f[n];
    for (unsigned i = 0; i < ROCE_PFC_PRIORITIES; i++)
        prio.base[i] = &t->pfc.prio[i];
    families(p, f, n, PFC_PREFIX, "802.1Qbb PFC, per priority: ", &prio);
    family(p, PFC_PREFIX "paused_ratio", "gauge",
           "Share of the last interval a PFC priority was paused");
    for (unsigned i = 0; i < ROCE_PFC_PRIORITIES; i++) {
        struct label l = {"priority", index};
        snprintf(index, sizeof index, "%u", i);
        sample_double(p, PFC_PREFIX "paused_ratio", &l, 1,
                      length_ns > 0 ? (double)d->pfc.prio[i].paused_ns / (double)length_ns : 0.0);
    }
    families(p, f, n, PAUSE_PREFIX, "802.3x link PAUSE: ", &pause);
}

/* The counts of a flow with trouble, as gauges of the last interval. */
static const struct {
    const char *name, *help;
    size_t off;
} flow_gauges[] = {
    {"top_flow_packets", "packets", offsetof(struct roce_live_flow, packets)},
    {"top_flow_retransmitted_packets", "retransmitted packets",
     offsetof(struct roce_live_flow, retransmitted)},
    {"top_flow_naks", "NAKs sent", offsetof(struct roce_live_flow, naks)},
    {"top_flow_psn_gaps", "PSN gaps", offsetof(struct roce_live_flow, gaps)},
    {"top_flow_missing_psns", "PSNs missing in its gaps",
     offsetof(struct roce_live_flow, missing_psns)},
    {"top_flow_ce_marked_packets", "CE-marked packets", offsetof(struct roce_live_flow, ce_marked)},
    {"top_flow_cnps", "CNPs", offsetof(struct roce_live_flow, cnps)},
};

/* The flows with the most trouble in the last interval (at most --top or
 * 10), one series each, labelled src, dst and dest_qp. */
static void flow_families(struct prom *p, const struct roce_live_interval *iv)
{
    char help[HELP_BUF], src[ROCE_FMT_ADDR_LEN], dst[ROCE_FMT_ADDR_LEN], qp[VALUE_BUF];
    struct label l[] = {{"src", src}, {"dst", dst}, {"dest_qp", qp}};
    for (size_t g = 0; g < sizeof flow_gauges / sizeof flow_gauges[0]; g++) {
        snprintf(help, sizeof help,
                 "Flows with the most trouble in the last interval: its %s in the interval",
                 flow_gauges[g].help);
        family(p, flow_gauges[g].name, "gauge", help);
        for (size_t i = 0; i < iv->n_top; i++) {
            const struct roce_live_flow *f = &iv->top[i];
            roce_fmt_addr(f->key.src, f->key.af, src, sizeof src);
            roce_fmt_addr(f->key.dst, f->key.af, dst, sizeof dst);
            snprintf(qp, sizeof qp, "0x%06x", (unsigned)f->key.dqpn);
            sample_u64(p, flow_gauges[g].name, l, sizeof l / sizeof l[0],
                       roce_field_u64(f, flow_gauges[g].off));
        }
    }
}

/* Alertmanager's severities for the diagnoses' error, warning, note (the
 * RocescopeDiagnosis rule of analyzer/deploy passes the label on). */
static const char *alert_severity(unsigned sev)
{
    static const char *const names[] = {"critical", "warning", "info"};
    return sev <= ROCE_SEV_NOTE ? names[sev] : "info";
}

/* The active diagnoses: one gauge sample per subject of each finding (its
 * worst PROM_SUBJECTS: a finding over a million flows must not make a
 * million series), labelled with the finding's kind, severity and cause and
 * the subject, valued by the subject's count (the alert rules of
 * analyzer/deploy fire on it; Alertmanager groups a finding's subjects by
 * kind); and per finding how many subjects it has. */
/* Diagnosis i of iv, its kind, severity and cause put in l[0..2]. */
static const struct roce_diagnosis *diag_labels(const struct roce_live_interval *iv, size_t i,
                                                struct label *l)
{
    const struct roce_diagnosis *d = &iv->diags->d[i];
    l[0].value = roce_diag_kind_name(d->kind);
    l[1].value = alert_severity(d->severity);
    l[2].value = roce_diag_cause_name(d->cause);
    return d;
}

static void diagnosis_family(struct prom *p, const struct roce_live_interval *iv)
{
    char subject[ROCE_DIAG_PHRASE_LEN];
    struct label l[4] = {{"kind", NULL}, {"severity", NULL}, {"cause", NULL}, {"subject", subject}};
    family(p, "diagnosis_subjects", "gauge",
           "Active diagnoses: how many subjects each has (rocescope_diagnosis lists the worst " STR(
               PROM_SUBJECTS) ")");
    for (size_t i = 0; i < iv->n_diags; i++) {
        const struct roce_diagnosis *d = diag_labels(iv, i, l);
        sample_u64(p, "diagnosis_subjects", l, 3, roce_diag_subjects(d)); /* listed or not */
    }
    family(p, "diagnosis", "gauge",
           "Active diagnoses (analyzer/engine/ANALYSIS.md): each subject's count since the "
           "monitor started (the worst " STR(PROM_SUBJECTS) " subjects of each)");
    for (size_t i = 0; i < iv->n_diags; i++) {
        const struct roce_diagnosis *d = diag_labels(iv, i, l);
        for (size_t j = 0; j < d->n_subjects && j < PROM_SUBJECTS; j++) {
            const struct roce_diag_subject *s = roce_diag_subject_at(iv->diags, d, j);
            roce_diag_subject_text(d->kind, s, subject, sizeof subject);
            sample_u64(p, "diagnosis", l, 4, s->count);
        }
    }
}

/* A histogram from the engine's bucket counts (not cumulative there);
 * unit: its values per base unit (ns per second, ppm per ratio). */
static void histogram(struct prom *p, const char *name, const char *help, const struct roce_hist *h,
                      unsigned kind, double unit)
{
    const int64_t *bound = roce_hist_bounds(kind);
    uint64_t cum = 0;
    char le[VALUE_BUF], sub[NAME_BUF];
    struct label l = {"le", le};
    family(p, name, "histogram", help);
    snprintf(sub, sizeof sub, "%s_bucket", name);
    for (unsigned i = 0; i <= ROCE_HIST_BUCKETS; i++) {
        cum += h->bucket[i];
        if (i < ROCE_HIST_BUCKETS)
            snprintf(le, sizeof le, "%.9g", (double)bound[i] / unit);
        else
            snprintf(le, sizeof le, "+Inf");
        sample_u64(p, sub, &l, 1, cum);
    }
    snprintf(sub, sizeof sub, "%s_sum", name);
    sample_double(p, sub, NULL, 0, (double)h->sum / unit);
    snprintf(sub, sizeof sub, "%s_count", name);
    sample_u64(p, sub, NULL, 0, h->count);
}

static void capture_families(struct prom *p, const struct roce_live_interval *iv)
{
    struct label by = {"by", "kernel"};
    family(p, "capture_received_packets_total", "counter",
           "Packets the capture received (pcap_stats)");
    sample_u64(p, "capture_received_packets_total", NULL, 0, iv->cap.received);
    family(p, "capture_dropped_packets_total", "counter",
           "Packets the capture lost: by the kernel (its buffer was full) or by the interface "
           "or its driver (pcap_stats), or by the analysis (its queue was full)");
    sample_u64(p, "capture_dropped_packets_total", &by, 1, iv->cap.dropped);
    by.value = "interface";
    sample_u64(p, "capture_dropped_packets_total", &by, 1, iv->cap.if_dropped);
    by.value = "analysis";
    sample_u64(p, "capture_dropped_packets_total", &by, 1, iv->cap.analysis_dropped);
    family(p, "flows_with_trouble", "gauge",
           "Flows with retransmissions, NAKs, gaps, CE marks or CNPs in the last interval");
    sample_u64(p, "flows_with_trouble", NULL, 0, iv->n_troubled);
    family(p, "interval_seconds", "gauge", "Length of the last interval");
    sample_seconds(p, "interval_seconds", NULL, 0, iv->length_ns);
    family(p, "uptime_seconds", "gauge", "Time since the capture started");
    sample_seconds(p, "uptime_seconds", NULL, 0, iv->uptime_ns);
    family(p, "last_update_timestamp_seconds", "gauge", "When these metrics were written");
    sample_seconds(p, "last_update_timestamp_seconds", NULL, 0, iv->wall_ns);
}

int roce_prometheus_write(FILE *out, const struct roce_live_interval *iv)
{
    struct prom p = {out, iv->iface, 0.0};
    const struct roce_field *fields[ROCE_REPORT_FIELDS_MAX];
    const struct records totals = {{iv->total}, 1, NULL};
    size_t n = roce_live_fields(fields, ROCE_REPORT_FIELDS_MAX);
    if (iv->link_speed_mbps > 0)
        p.quantum_s = BITS_PER_QUANTUM / ((double)iv->link_speed_mbps * BITS_PER_SEC_PER_MBPS);
    families(&p, fields, n < ROCE_REPORT_FIELDS_MAX ? n : ROCE_REPORT_FIELDS_MAX, "", "", &totals);
    nak_family(&p, iv->total);
    pfc_families(&p, iv->total, &iv->delta, iv->length_ns);
    diagnosis_family(&p, iv);
    if (iv->hist[0] != NULL) {
        histogram(&p, "nak_generation_seconds",
                  "Out-of-sequence arrival to the responder's NAK (recovery breakdown)",
                  iv->hist[ROCE_HIST_NAK_GENERATION], ROCE_HIST_NAK_GENERATION,
                  (double)ROCE_NS_PER_SEC);
        histogram(&p, "nak_to_resend_seconds", "NAK to the first resent packet",
                  iv->hist[ROCE_HIST_NAK_TO_RESEND], ROCE_HIST_NAK_TO_RESEND,
                  (double)ROCE_NS_PER_SEC);
        histogram(&p, "dcqcn_rate_ratio",
                  "A sender's rate after a CNP over its rate before (DCQCN reaction)",
                  iv->hist[ROCE_HIST_DCQCN_RATIO], ROCE_HIST_DCQCN_RATIO, 1e6);
    }
    capture_families(&p, iv);
    flow_families(&p, iv);
    return ferror(out) ? -1 : 0;
}

int roce_prometheus_file(const char *path, const struct roce_live_interval *iv)
{
    struct roce_output o;
    if (roce_output_open(&o, path) != 0)
        return -1;
    /* the mode of the file it makes, never of a device written into
     * (--prometheus-file /dev/null once left /dev/null 0644) */
    if ((o.tmp != NULL && fchmod(fileno(o.fp), FILE_MODE) != 0) ||
        roce_prometheus_write(o.fp, iv) != 0) {
        int e = errno;
        roce_output_abort(&o);
        errno = e;
        return -1;
    }
    return roce_output_commit(&o);
}
