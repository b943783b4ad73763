/*
 * test_report_fields.c - the table of the report's fields
 * (analyzer/report/report_fields.c) and what reads it: it covers every
 * member of the totals; a report filled at random through it is written,
 * read back and written again to the same bytes; merge adds the counts and
 * keeps the first and last times; the live monitor's interval differences,
 * its order of the interval lines, its Prometheus names and the Prometheus
 * file written from them; the terminal view finds its counters. The
 * IPv4-mapped address helpers (roce_addr.h) serve the round trip.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live_fields.h"
#include "live_interval.h"
#include "live_view.h"
#include "prometheus.h"
#include "report.h"
#include "jsonscan.h"
#include "jsonw.h"
#include "report_fields.h"
#include "roce_addr.h"
#include "test_util.h"

#define SEED       0x5EEDu
#define ROUNDS     40
#define N_FLOWS    5
#define N_EPISODES 7
#define N_CONNS    3
#define TIME_RANGE (INT64_C(1) << 50)
#define ERR_LEN    512
#define OPS        32
#define VALUE_MAX  ROCE_REPORT_VALUE_MAX
#define REPEAT10   "9999999999"
#define REPEAT100                                                                                  \
    REPEAT10 REPEAT10 REPEAT10 REPEAT10 REPEAT10 REPEAT10 REPEAT10 REPEAT10 REPEAT10 REPEAT10
#define REPEAT400 REPEAT100 REPEAT100 REPEAT100 REPEAT100

static uint64_t rand64(struct tu_rng *g)
{
    return (uint64_t)tu_rng_next(g) << 32 | tu_rng_next(g);
}

/* A value in [lo, hi]. */
static uint64_t rand_in(struct tu_rng *g, uint64_t lo, uint64_t hi)
{
    uint64_t span = hi - lo;
    return span == UINT64_MAX ? rand64(g) : lo + rand64(g) % (span + 1);
}

static void put(void *base, size_t off, const void *v, size_t n)
{
    memcpy((char *)base + off, v, n);
}

/* Fill the members of the fields of fs in the record at base at random,
 * within what each declares (the CALL fields are left to the caller). */
static void fill(struct tu_rng *g, const struct roce_fieldset *fs, void *base)
{
    for (const struct roce_field *f = fs->f; f < fs->f + fs->n; f++) {
        /* a report's integers are at most ROCE_REPORT_INT_MAX, its times not
         * negative but differences of two frames' */
        uint64_t max = f->max         ? f->max
                       : f->size >= 8 ? ROCE_REPORT_INT_MAX
                                      : (1ull << (f->size * 8)) - 1;
        uint64_t v = rand_in(g, f->min, max);
        int64_t t = (int64_t)rand_in(g, 0, 2 * (uint64_t)TIME_RANGE) - TIME_RANGE;
        if (!(f->flags & ROCE_FF_SIGNED))
            t = t < 0 ? -t : t;
        uint8_t b;
        switch ((enum roce_ftype)f->type) {
        case ROCE_FT_UINT:
            if (f->size == 8)
                put(base, f->off, &v, 8);
            else if (f->size == 4)
                put(base, f->off, &(uint32_t){(uint32_t)v}, 4);
            else if (f->size == 2)
                put(base, f->off, &(uint16_t){(uint16_t)v}, 2);
            else
                put(base, f->off, &(uint8_t){(uint8_t)v}, 1);
            break;
        case ROCE_FT_BOOL:
            b = (uint8_t)(v & 1);
            put(base, f->off, &b, 1);
            break;
        case ROCE_FT_US:
        case ROCE_FT_SECONDS:
            put(base, f->off, &t, sizeof t);
            break;
        case ROCE_FT_NAME:
            /* a value whose name no later value has (read back: the last) */
            do
                b = (uint8_t)tu_rng_below(g, f->names->count);
            while (b + 1u < f->names->count &&
                   strcmp(f->names->name(b), f->names->name(f->names->count - 1)) == 0);
            put(base, f->off, &b, 1);
            break;
        case ROCE_FT_COUNTS:
            for (unsigned i = f->names->first; i < f->names->count; i++)
                put(base, f->off + i * 8, &(uint64_t){rand64(g) >> 1}, 8);
            break;
        case ROCE_FT_OBJECT:
            fill(g, f->sub, (char *)base + f->off);
            break;
        case ROCE_FT_CALL:
            break;
        }
    }
}

/* A flow key at random: IPv4 (mapped), IPv6 or InfiniBand LIDs. */
static void random_key(struct tu_rng *g, struct roce_flow_key *k)
{
    uint8_t v4[ROCE_ADDR_V4_LEN];
    k->af = (uint8_t)tu_rng_below(g, ROCE_AF_LID + 1);
    for (unsigned i = 0; i < ROCE_ADDR_LEN; i++) {
        k->src[i] = (uint8_t)tu_rng_next(g);
        k->dst[i] = (uint8_t)tu_rng_next(g);
    }
    if (k->af == ROCE_AF_LID) {
        roce_addr_set_lid(k->src, (uint16_t)tu_rng_next(g));
        roce_addr_set_lid(k->dst, (uint16_t)tu_rng_next(g));
        CU_ASSERT(!roce_addr_is_v4(k->src));
    } else if (k->af == ROCE_AF_IPV4) {
        memcpy(v4, k->src, sizeof v4);
        roce_addr_set_v4(k->src, v4);
        CU_ASSERT(roce_addr_is_v4(k->src) && memcmp(roce_addr_v4(k->src), v4, sizeof v4) == 0);
        memcpy(v4, k->dst, sizeof v4);
        roce_addr_set_v4(k->dst, v4);
    } else {
        k->src[0] = 0x20; /* not IPv4-mapped */
        k->dst[0] = 0x20;
        CU_ASSERT(!roce_addr_is_v4(k->src));
    }
    k->dqpn = tu_rng_below(g, 1u << 24);
}

/* Up to max ascending frame numbers into frames; how many. */
static uint8_t random_frames(struct tu_rng *g, uint64_t *frames, unsigned max)
{
    uint8_t n = (uint8_t)tu_rng_below(g, max + 1);
    uint64_t f = 0;
    for (unsigned i = 0; i < n; i++)
        frames[i] = f += 1 + tu_rng_below(g, 1000);
    return n;
}

/* The members of a flow the diagnoses read (CALL fields): source ports,
 * DCQCN reaction, evidence. */
static void random_diag_members(struct tu_rng *g, struct roce_report *r, struct roce_flow_report *f,
                                size_t i)
{
    f->n_udp_sports = (uint8_t)tu_rng_below(g, ROCE_UDP_SPORTS_MAX + 1);
    for (unsigned k = 0; k < f->n_udp_sports; k++)
        f->udp_sports[k] = (uint16_t)(k * 4000 + tu_rng_below(g, 4000));
    memset(&f->dcqcn, 0, sizeof f->dcqcn);
    f->dcqcn.tracked = (uint8_t)tu_rng_below(g, 2);
    if (f->dcqcn.tracked) {
        f->dcqcn.cnps_evaluated = tu_rng_below(g, 3) ? tu_rng_next(g) : 0;
        if (f->dcqcn.cnps_evaluated) {
            f->dcqcn.rate_before_mbps = tu_rng_next(g);
            f->dcqcn.rate_after_mbps = tu_rng_next(g);
            f->dcqcn.ratio_ppm = tu_rng_next(g);
        }
        f->dcqcn.verdict = (uint8_t)tu_rng_below(g, ROCE_DCQCN_VERDICTS);
    }
    if (tu_rng_below(g, 2)) {
        struct roce_evidence *ev = roce_report_flow_ev(r, i);
        CU_ASSERT_FATAL(ev != NULL);
        for (unsigned k = 0; k < ROCE_DIAG_KINDS; k++)
            ev->n[k] = tu_rng_below(g, 3) ? 0 : random_frames(g, ev->frame[k], ROCE_EVIDENCE_MAX);
    }
}

/* A MAC table at random: hosts and fabric MACs of every basis. */
static void random_macs(struct tu_rng *g, struct roce_report *r)
{
    for (unsigned i = 0; i < 6; i++) {
        struct roce_host_mac *m = roce_report_add_mac(r);
        struct roce_flow_key k;
        CU_ASSERT_FATAL(m != NULL);
        for (unsigned b = 0; b < ROCE_MAC_LEN; b++)
            m->mac[b] = (uint8_t)tu_rng_next(g);
        m->mac[5] = (uint8_t)i; /* distinct */
        m->addresses = (uint8_t)(i % 3);
        if (m->addresses) {
            random_key(g, &k);
            memcpy(m->addr, k.src, ROCE_ADDR_LEN);
            m->af = k.af;
            m->version = (uint8_t)(1 + tu_rng_below(g, 2));
            m->ttl_min = (uint8_t)tu_rng_next(g);
            m->ttl_max = (uint8_t)tu_rng_next(g);
            m->checked_frames = tu_rng_next(g);
            m->unrouted_frames = i % 2 ? m->checked_frames : 0;
        }
        m->pfc_frames = tu_rng_next(g);
        m->pause_frames = tu_rng_next(g);
        m->n_frames = random_frames(g, m->frames, ROCE_EVIDENCE_MAX);
    }
    for (unsigned p = 0; p <= ROCE_PFC_PRIORITIES; p++)
        r->t.storm_frames.n[p] = random_frames(g, r->t.storm_frames.frame[p], ROCE_EVIDENCE_MAX);
}

/* A report filled at random through the tables. */
static void random_report(struct tu_rng *g, struct roce_report *r)
{
    uint64_t id = 0, frame = 0;
    roce_report_init(r);
    CU_ASSERT_FATAL(roce_report_add_file(r, "one.pcap") == 0 &&
                    roce_report_set_link_type(r, "EN10MB") == 0);
    if (tu_rng_below(g, 2))
        CU_ASSERT_FATAL(roce_report_set_error(r, "cut \"short\"") == 0);
    fill(g, &roce_option_fields, &r->own.cfg);
    fill(g, &roce_report_fields, &r->t);
    for (unsigned i = 0; i < ROCE_PFC_PRIORITIES; i++)
        fill(g, &roce_pfc_prio_fields, &r->t.pfc.prio[i]);
    r->t.last_ts_ns = r->t.first_ts_ns + (int64_t)tu_rng_below(g, 1u << 30);
    random_macs(g, r);
    for (unsigned i = 0; i < N_FLOWS; i++) {
        struct roce_flow_report *f = roce_report_add_flow(r);
        CU_ASSERT_FATAL(f != NULL);
        struct roce_report_flow *fx = &r->flow_x[r->n_flows - 1];
        fill(g, &roce_flow_fields, f);
        f->id = id += 1 + tu_rng_below(g, 10);
        /* within the capture */
        f->first_ts_ns =
            r->t.first_ts_ns + (f->first_ts_ns % (r->t.last_ts_ns - r->t.first_ts_ns + 1));
        f->last_ts_ns =
            r->t.first_ts_ns + (f->last_ts_ns % (r->t.last_ts_ns - r->t.first_ts_ns + 1));
        random_key(g, &f->key);
        f->key.version = (uint8_t)(1 + tu_rng_below(g, 2));
        fx->has_peer = (uint8_t)tu_rng_below(g, 2);
        random_key(g, &fx->peer);
        fx->peer.version = f->key.version;
        for (unsigned op = 0; op < OPS; op++)
            f->op_counts[op] = tu_rng_below(g, 3) ? 0 : tu_rng_next(g);
        if (f->transport == ROCE_TRANSPORT_CNP)
            f->op_counts[ROCE_OPCODE_CNP & (OPS - 1)] = 0; /* it is the "CNP" member */
        f->have_psn = (uint8_t)tu_rng_below(g, 2);
        f->first_psn = f->have_psn ? tu_rng_below(g, 1u << 24) : 0;
        f->last_psn = f->have_psn ? tu_rng_below(g, 1u << 24) : 0;
        random_diag_members(g, r, f, r->n_flows - 1);
    }
    for (unsigned i = 0; i < N_EPISODES; i++) { /* in the order they started */
        struct roce_episode *ep = roce_report_add_episode(r);
        CU_ASSERT_FATAL(ep != NULL);
        fill(g, &roce_episode_fields, ep);
        ep->has_nak_generation = tu_rng_below(g, 2);
        ep->nak_generation_ns = ep->has_nak_generation ? (int64_t)tu_rng_below(g, 1u << 30) : 0;
        ep->flow_id = r->flows[tu_rng_below(g, N_FLOWS)].id;
        ep->first_frame = frame += 1 + tu_rng_below(g, 100);
        ep->first_ts_ns = 0;
        ep->last_ts_ns = tu_rng_below(g, 1u << 30);
    }
    for (unsigned i = 0; i < N_CONNS; i++) {
        struct roce_report_conn *c = roce_report_add_conn(r);
        CU_ASSERT_FATAL(c != NULL);
        fill(g, &roce_conn_fields, c);
        random_key(g, &c->req);
        random_key(g, &c->resp);
    }
}

/* The JSON report of r, as a string to free. */
static char *json_of(const struct roce_report *r)
{
    /* The stream's pointer and size on the heap: with them on the stack, GCC 12
     * at -O3 takes the returned text for a pointer to this frame
     * (-Wdangling-pointer), which stops a Release build of the tests. */
    struct {
        char *s;
        size_t n;
    } *m = calloc(1, sizeof *m);
    CU_ASSERT_FATAL(m != NULL);
    FILE *f = open_memstream(&m->s, &m->n);
    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT(roce_report_json(r, f) == 0);
    fclose(f);
    char *s = m->s;
    free(m);
    return s;
}

/* The report read back from JSON text. 0, or -1 with the reason in err. */
static int parse_text(const char *text, struct roce_report *r, char *err)
{
    char path[] = "/tmp/test_report_fields.XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_FATAL(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    int rc = roce_report_parse(path, r, err, ERR_LEN);
    unlink(path);
    return rc;
}

/* Written, read back, written again: the same bytes, for every field. */
static void test_round_trip(void)
{
    struct tu_rng g;
    tu_rng_seed(&g, SEED);
    for (unsigned round = 0; round < ROUNDS; round++) {
        struct roce_report r, back;
        char err[ERR_LEN] = "";
        random_report(&g, &r);
        char *one = json_of(&r);
        int rc = parse_text(one, &back, err);
        CU_ASSERT(rc == 0);
        if (rc != 0) {
            fprintf(stderr, "round %u: %s\n", round, err);
        } else {
            char *two = json_of(&back);
            CU_ASSERT_STRING_EQUAL(two, one);

            free(two);
            roce_report_free(&back);
        }
        free(one);
        roce_report_free(&r);
    }
}

/* A random report into r (seed), and its JSON text (to free). */
static char *random_json(uint64_t seed, struct roce_report *r)
{
    struct tu_rng g;
    tu_rng_seed(&g, seed);
    random_report(&g, r);
    return json_of(r);
}

/* text is refused with a problem that holds why. */
static void expect_refused(const char *text, const char *why)
{
    struct roce_report back;
    char err[ERR_LEN] = "";
    CU_ASSERT(parse_text(text, &back, err) == -1);
    CU_ASSERT(strstr(err, why) != NULL);
    if (strstr(err, why) == NULL)
        fprintf(stderr, "got \"%s\", want \"...%s...\"\n", err, why);
}

/* The JSON of a random report with the first `from` replaced by `to` is
 * refused with a problem that holds `why`. */
static void expect_problem(const char *from, const char *to, const char *why)
{
    struct roce_report r;
    char *text = random_json(SEED + 3, &r), *at = strstr(text, from);
    CU_ASSERT_FATAL(at != NULL);
    char *edited = malloc(strlen(text) + strlen(to) + 1);
    CU_ASSERT_FATAL(edited != NULL);
    sprintf(edited, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    expect_refused(edited, why);
    free(edited);
    free(text);
    roce_report_free(&r);
}

/* Every value is checked, and the problem names its place. */
static void test_problems(void)
{
    expect_problem("\"alloc_failures\"", "\"alloc_failurez\"", "limits.alloc_failures: missing");
    expect_problem("\"xoff\": ", "\"xoff\": -", "pfc.priorities.xoff: negative");
    expect_problem("\"pause\": {", "\"pause\": [], \"p\": {", "pfc.pause: not an object");
    expect_problem("\"storm_share_pct\": ", "\"storm_share_pct\": 9",
                   "options.storm_share_pct: a value out of range");
    expect_problem("\"id\": ", "\"id\": \"1\", \"i\": ", "flows[0]: id: not a number");
    expect_problem("\"unrouted_frames\": ", "\"unrouted_frames\": -",
                   "host_macs[0].unrouted_frames: negative");
    expect_problem("\"cnps_evaluated\": ", "\"cnps_evaluated\": -",
                   "dcqcn.cnps_evaluated: negative");
    expect_problem("\"duration_us\": ", "\"duration_us\": \"1\", \"d\": ",
                   "]: episodes[0].duration_us: not a decimal number"); /* flows[i] */
}

/* JSON as RFC 8259 has it, integers a report can hold, times a capture can
 * have; the problem names the member. */
static void test_strict(void)
{
    static const struct {
        const char *from, *to, *why;
    } cases[] = {
        {"\"alloc_failures\": ", "\"alloc_failures\": 0",
         "limits.alloc_failures: not a JSON number: a leading zero"},
        {"\"sport_is_dport\": ", "\"sport_is_dport\": 1., \"x\": ",
         "capture.sport_is_dport: not a JSON number: no digit after the decimal point"},
        {"\"sport_is_dport\": ", "\"sport_is_dport\": .5, \"x\": ",
         "capture.sport_is_dport: not a JSON number: no digit before the decimal point"},
        {"\"sport_is_dport\": ", "\"sport_is_dport\": +1, \"x\": ",
         "capture.sport_is_dport: not a JSON number: a leading '+'"},
        {"\"sport_is_dport\": ", "\"sport_is_dport\": -01, \"x\": ",
         "capture.sport_is_dport: not a JSON number: a leading zero"},
        {"\"sport_is_dport\": ", "\"sport_is_dport\": 1e, \"x\": ",
         "capture.sport_is_dport: not a JSON number: no digit in the exponent"},
        {"\"sport_is_dport\": ", "\"sport_is_dport\": NaN, \"x\": ",
         "capture.sport_is_dport: not a JSON value"},
        {"\"alloc_failures\": ", "\"alloc_failures\": 18446744073709551615, \"x\": ",
         "limits.alloc_failures: an integer out of range"},
        {"\"alloc_failures\": ", "\"alloc_failures\": 9223372036854775808, \"x\": ",
         "limits.alloc_failures: an integer out of range"},
        {"\"alloc_failures\": ", "\"alloc_failures\": 1" REPEAT400 ", \"x\": ",
         "limits.alloc_failures: an integer out of range"},
        {"\"first_time\": ", "\"first_time\": -", "capture.first_time: a negative time"},
        {"\"duration_s\": ", "\"duration_s\": 9223372036.000000000, \"x\": ",
         "capture.duration_s: first_time + duration_s out of range"},
        {"\"last_time\": ", "\"last_time\": 99999999.0, \"x\": ",
         "flows[0]: last_time: after the end of the capture"},
        {"\"paused_us\": ", "\"paused_us\": -", "paused_us: a negative time"},
        {"\"alloc_failures\": ", "\"alloc_failures\": 1, \"alloc_failures\": ",
         "limits.alloc_failures: a member given twice"},
        {"\"naks\": {", "\"naks\": {}, \"naks\": {", "naks: a member given twice"},
        {"\"link_type\": \"", "\"link_type\": \"\\u0000", "capture.link_type: a NUL character"},
        {"\"link_type\": \"", "\"link_type\": \"\\ud800x",
         "capture.link_type: a \\u surrogate not in a pair"},
        {"\"link_type\": \"", "\"link_type\": \"\\x", "not a JSON escape"},
        {"\"link_type\": \"", "\"link_type\": \"\t", "a control character"},
        {"\n}\n", "\n}\n}", "data after the report"},
    };
    char deep[2 * (ROCE_JSCAN_DEPTH + 8)], *big;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_problem(cases[i].from, cases[i].to, cases[i].why);
    memset(deep, '[', sizeof deep - 1);
    deep[sizeof deep - 1] = '\0';
    memcpy(deep, "\"x\": ", 5);
    expect_problem("\"tool\": ", deep, "nested more than 64 deep");
    /* a member built whole is bounded, one skipped is not */
    big = malloc(VALUE_MAX + 64);
    CU_ASSERT_FATAL(big != NULL);
    size_t n = (size_t)snprintf(big, 64, "\"alloc_failures\": 0, \"big\": \"");
    memset(big + n, 'b', VALUE_MAX);
    strcpy(big + n + VALUE_MAX, "\", \"y\": ");
    expect_problem("\"alloc_failures\": ", big, "limits.big: a value of more than 1048576 bytes");
    free(big);
}

/* What a report may hold that this version does not read: members it does
 * not know (a newer version's, skipped at any size), diagnoses (computed
 * again: what they hold is not read, only checked to be JSON: the
 * diagnoses of a report whose counts are near the bound add up past it). */
static void test_skipped(void)
{
    struct roce_report r, back;
    char err[ERR_LEN] = "";
    char *text = random_json(SEED + 4, &r), *at = strstr(text, "\"diagnoses\": [");
    CU_ASSERT_FATAL(at != NULL);
    size_t pad = 3 * VALUE_MAX, head = (size_t)(at - text);
    char *edited = malloc(strlen(text) + pad + 256);
    CU_ASSERT_FATAL(edited != NULL);
    char *p = edited + sprintf(edited, "%.*s\"newer\": [\"", (int)head, text);
    memset(p, 'n', pad);
    p += pad;
    p += sprintf(p, "\", {\"n\": 1e400}], \"diagnoses\": [{\"count\": 99999999999999999999999},");
    strcpy(p, at + strlen("\"diagnoses\": ["));
    int rc = parse_text(edited, &back, err);
    CU_ASSERT_EQUAL(rc, 0);
    if (rc != 0)
        fprintf(stderr, "%s\n", err);
    else
        roce_report_free(&back);
    /* still checked to be JSON (a number's grammar; its value, not read, may be any) */
    memcpy(strstr(edited, "1e400"), "1e+}]", 5);
    expect_refused(edited, "newer[1].n: not a JSON number: no digit in the exponent");
    free(edited);
    free(text);
    roce_report_free(&r);
}

/* Each MAC once in a report (merge folds by MAC): the first MAC written
 * again over the second. */
static void test_mac_once(void)
{
    struct roce_report r;
    const char key[] = "\"mac\": \"";
    char *text = random_json(SEED + 5, &r), *hosts = strstr(text, "\"host_macs\": [");
    CU_ASSERT_FATAL(hosts != NULL);
    char *first = strstr(hosts, key);
    CU_ASSERT_FATAL(first != NULL);
    char *second = strstr(first + 1, key);
    CU_ASSERT_FATAL(second != NULL);
    memcpy(second, first, sizeof key - 1 + ROCE_MAC_TEXT_LEN - 1);
    expect_refused(text, "a MAC listed twice");
    free(text);
    roce_report_free(&r);
}

/* b merged after a: 1 and a reason naming the count, m unchanged. */
static void expect_too_big_than(struct roce_report *a, struct roce_report *b, const char *name,
                                const char *bound)
{
    char more[ROCE_REPORT_WHY_LEN];
    snprintf(more, sizeof more, ": the sum of the reports would be more than %s", bound);
    struct roce_report m;
    char why[ROCE_REPORT_WHY_LEN] = "";
    roce_report_init(&m);
    CU_ASSERT_EQUAL_FATAL(roce_report_merge_checked(&m, a, why, sizeof why), 0);
    struct roce_totals before = m.t;
    size_t macs = m.n_macs;
    CU_ASSERT_EQUAL(roce_report_merge_checked(&m, b, why, sizeof why), 1);
    CU_ASSERT(strncmp(why, name, strlen(name)) == 0 && strcmp(why + strlen(name), more) == 0);
    if (strncmp(why, name, strlen(name)) != 0 || strcmp(why + strlen(name), more) != 0)
        fprintf(stderr, "got \"%s\", want \"%s%s\"\n", why, name, more);
    CU_ASSERT(memcmp(&m.t, &before, sizeof before) == 0 && m.n_macs == macs);
    CU_ASSERT_EQUAL(roce_report_merge(&m, b), -1);
    roce_report_free(&m);
}

/* A count that would pass 2^63 - 1. */
static void expect_too_big(struct roce_report *a, struct roce_report *b, const char *name)
{
    expect_too_big_than(a, b, name, "9223372036854775807");
}

/* A merge never adds a count up past ROCE_REPORT_INT_MAX: the totals' counts
 * (named as the document places them), a latency bucket, the counts of a MAC
 * both reports have; up to it, it merges. */
static void test_merge_range(void)
{
    struct roce_report a, b, m;
    const uint64_t max = ROCE_REPORT_INT_MAX;
    roce_report_init(&a);
    roce_report_init(&b);
    a.t.packets = max - 10;
    b.t.packets = 10;
    roce_report_init(&m);
    CU_ASSERT(roce_report_merge_checked(&m, &a, NULL, 0) == 0 &&
              roce_report_merge_checked(&m, &b, NULL, 0) == 0);
    CU_ASSERT_EQUAL(m.t.packets, max);
    roce_report_free(&m);
    b.t.packets = 11;
    expect_too_big(&a, &b, "capture.packets");
    b.t.packets = 0;
    a.t.naks.code[ROCE_NAK_PSN_SEQUENCE_ERROR] = max;
    b.t.naks.code[ROCE_NAK_PSN_SEQUENCE_ERROR] = 1;
    expect_too_big(&a, &b, "naks.psn_sequence_error");
    b.t.naks.code[ROCE_NAK_PSN_SEQUENCE_ERROR] = 0;
    a.t.pfc.prio[3].xoff = max;
    b.t.pfc.prio[3].xoff = max;
    expect_too_big(&a, &b, "pfc.priorities[3].xoff");
    b.t.pfc.prio[3].xoff = 0;
    a.t.pfc.pause.paused_ns = INT64_MAX;
    b.t.pfc.pause.paused_ns = 1;
    expect_too_big(&a, &b, "pfc.pause.paused_us");
    b.t.pfc.pause.paused_ns = 0;
    struct roce_host_mac *ma = roce_report_add_mac(&a), *mb = roce_report_add_mac(&b);
    CU_ASSERT_FATAL(ma != NULL && mb != NULL);
    ma->mac[5] = mb->mac[5] = 7;
    ma->pfc_frames = max;
    mb->pfc_frames = 1;
    expect_too_big(&a, &b, "the MAC 00:00:00:00:00:07: pfc_frames");
    mb->mac[5] = 8; /* another MAC: nothing adds up */
    roce_report_init(&m);
    CU_ASSERT(roce_report_merge(&m, &a) == 0 && roce_report_merge(&m, &b) == 0);
    CU_ASSERT_EQUAL(m.n_macs, 2);
    roce_report_free(&m);
    struct roce_lat *la = &a.lat[ROCE_LATENCY_ACK].own, *lb = &b.lat[ROCE_LATENCY_ACK].own;
    CU_ASSERT_FATAL(roce_lat_add_bucket(la, 9, UINT32_MAX / 2, 100, 200) == 0 &&
                    roce_lat_add_bucket(lb, 9, UINT32_MAX / 2 + 1, 100, 200) == 0);
    /* a latency bucket holds 2^32 - 1 */
    expect_too_big_than(&a, &b, "ack_latency_us.distribution.buckets", "4294967295");
    roce_report_free(&a);
    roce_report_free(&b);
}

/* Every byte of struct roce_totals is one field's (aliases aside): merge,
 * the live differences and the writers see all of it. Counts are 64-bit
 * words. */
static void test_totals_covered(void)
{
    const struct roce_fieldset *fs = &roce_report_fields;
    unsigned char owner[sizeof(struct roce_totals)] = {0};
    CU_ASSERT(fs->n <= ROCE_REPORT_FIELDS_MAX);
    for (const struct roce_field *f = fs->f; f < fs->f + fs->n; f++) {
        if (f->flags & ROCE_FF_ALIAS || f->size == 0)
            continue;
        CU_ASSERT_FATAL(f->off + f->size <= sizeof owner);
        for (size_t i = f->off; i < f->off + f->size; i++)
            CU_ASSERT(owner[i]++ == 0);
        if (f->merge == ROCE_MERGE_SUM)
            CU_ASSERT(f->off % 8 == 0 && f->size % 8 == 0);
    }
    for (size_t i = 0; i < sizeof owner; i++)
        CU_ASSERT(owner[i] == 1);
}

/* Two totals filled at random through the table. */
static void random_totals(uint64_t seed, struct roce_totals *a, struct roce_totals *b)
{
    struct tu_rng g;
    tu_rng_seed(&g, seed);
    memset(a, 0, sizeof *a);
    memset(b, 0, sizeof *b);
    fill(&g, &roce_report_fields, a);
    fill(&g, &roce_report_fields, b);
}

/* Two random totals merged: counts add up, gauges too (a later capture's
 * flows come on top), the first time is the earliest of the reports with
 * packets, the last time the latest. */
static void test_merge(void)
{
    struct roce_totals a, b, m;
    random_totals(SEED + 1, &a, &b);
    m = a;
    roce_fields_merge_totals(&m, &b);
    CU_ASSERT(m.packets == a.packets + b.packets);
    CU_ASSERT(m.alloc_failures == a.alloc_failures + b.alloc_failures);
    CU_ASSERT(m.flows_active == a.flows_active + b.flows_active);
    CU_ASSERT(m.naks.total == a.naks.total + b.naks.total);
    CU_ASSERT(m.pfc.prio[7].paused_ns ==
              (int64_t)((uint64_t)a.pfc.prio[7].paused_ns + (uint64_t)b.pfc.prio[7].paused_ns));
    CU_ASSERT(m.encap[ROCE_ENCAP_COUNT - 1] ==
              a.encap[ROCE_ENCAP_COUNT - 1] + b.encap[ROCE_ENCAP_COUNT - 1]);
    /* the earliest and the latest of the reports with packets */
    int64_t first = !a.packets                      ? b.first_ts_ns
                    : !b.packets                    ? a.first_ts_ns
                    : a.first_ts_ns < b.first_ts_ns ? a.first_ts_ns
                                                    : b.first_ts_ns;
    int64_t last = !a.packets                    ? b.last_ts_ns
                   : !b.packets                  ? a.last_ts_ns
                   : a.last_ts_ns > b.last_ts_ns ? a.last_ts_ns
                                                 : b.last_ts_ns;
    CU_ASSERT(m.first_ts_ns == first);
    CU_ASSERT(m.last_ts_ns == last);
    CU_ASSERT(memcmp(&m.ack_latency, &a.ack_latency, sizeof m.ack_latency) == 0);
}

/* Two captures' reports merged: a MAC that only paused in the first and
 * sent RoCE from one unrouted address in the second is that host's NIC in
 * the merged report, whose slow_receiver diagnosis cites the first's
 * frames; the evidence and storm frames of the second are numbered on; a
 * MAC behind two addresses across the reports is no host's. */
static void test_merge_diagnoses(void)
{
    struct roce_report a, b, m;
    struct roce_diag_list d;
    roce_report_init(&a);
    roce_report_init(&b);
    roce_report_init(&m);
    a.t.packets = 100;
    struct roce_host_mac *ma = roce_report_add_mac(&a), *mb = roce_report_add_mac(&b);
    CU_ASSERT_FATAL(ma != NULL && mb != NULL);
    ma->mac[5] = mb->mac[5] = 7;
    ma->pfc_frames = 2;
    ma->frames[ma->n_frames++] = 11;
    ma->frames[ma->n_frames++] = 12;
    mb->addresses = 1;
    mb->version = 2;
    mb->addr[10] = mb->addr[11] = 0xFF;
    mb->checked_frames = mb->unrouted_frames = 3;
    mb->ttl_min = mb->ttl_max = 64;
    struct roce_host_mac *other = roce_report_add_mac(&b);
    CU_ASSERT_FATAL(other != NULL);
    *other = *mb;
    other->mac[5] = 8;
    b.t.packets = 50;
    b.t.storm_frames.n[3] = 1;
    b.t.storm_frames.frame[3][0] = 4;
    b.t.pfc.prio[3].storm_windows = 1;
    struct roce_flow_report *f = roce_report_add_flow(&b);
    CU_ASSERT_FATAL(f != NULL);
    f->id = 1;
    f->packets = f->psn_reuse = 1;
    struct roce_evidence *ev = roce_report_flow_ev(&b, 0);
    CU_ASSERT_FATAL(ev != NULL);
    roce_evidence_add(ev, ROCE_DIAG_PSN_REUSE, 9);
    CU_ASSERT(roce_report_merge(&m, &a) == 0 && roce_report_merge(&m, &b) == 0);
    CU_ASSERT_EQUAL(m.n_macs, 2);
    CU_ASSERT_EQUAL(roce_host_mac_role(&m.macs[0]), ROCE_MAC_UNROUTED);
    CU_ASSERT_EQUAL(m.t.storm_frames.frame[3][0], 104);
    CU_ASSERT_EQUAL_FATAL(roce_report_diagnoses(&m, &d), 0);
    CU_ASSERT_EQUAL_FATAL(d.n, 3);
    CU_ASSERT_EQUAL(d.d[0].kind, ROCE_DIAG_PSN_REUSE); /* error */
    CU_ASSERT_EQUAL(d.d[0].frames[0], 109);
    CU_ASSERT_EQUAL(d.d[1].kind, ROCE_DIAG_SLOW_RECEIVER); /* warning, count 2 */
    CU_ASSERT_EQUAL(d.d[1].count, 2);
    CU_ASSERT_EQUAL(d.d[1].frames[0], 11);
    CU_ASSERT_EQUAL(d.d[2].kind, ROCE_DIAG_PFC_STORM); /* warning, count 1 */
    CU_ASSERT_EQUAL(d.d[2].frames[0], 104);
    roce_diag_list_free(&d);
    /* the same MAC behind another address in a third report: no host's */
    struct roce_report c;
    roce_report_init(&c);
    struct roce_host_mac *mc = roce_report_add_mac(&c);
    CU_ASSERT_FATAL(mc != NULL);
    *mc = *mb;
    mc->addr[15] = 1;
    CU_ASSERT(roce_report_merge(&m, &c) == 0);
    CU_ASSERT_EQUAL(roce_host_mac_role(&m.macs[0]), ROCE_MAC_SEVERAL);
    roce_report_free(&a);
    roce_report_free(&b);
    roce_report_free(&c);
    roce_report_free(&m);
}

/* The interval's counters: counts are differences, the rest current. */
static void test_live_delta(void)
{
    struct roce_totals cur, prev, d;
    random_totals(SEED + 2, &cur, &prev);
    roce_live_totals_delta(&cur, &prev, &d);
    CU_ASSERT(d.packets == cur.packets - prev.packets);
    CU_ASSERT(d.alloc_failures == cur.alloc_failures - prev.alloc_failures);
    CU_ASSERT(d.unsupported_linktype == cur.unsupported_linktype - prev.unsupported_linktype);
    CU_ASSERT(d.pfc.pause.xoff == cur.pfc.pause.xoff - prev.pfc.pause.xoff);
    CU_ASSERT(d.flows_active == cur.flows_active && d.peak_flows == cur.peak_flows &&
              d.connections == cur.connections);
    CU_ASSERT(d.first_ts_ns == cur.first_ts_ns && d.last_ts_ns == cur.last_ts_ns);
    CU_ASSERT(memcmp(&d.cnp_latency, &cur.cnp_latency, sizeof d.cnp_latency) == 0);
}

/* The members of the counters object of the interval lines that a and b are in. */
static int same_member(const struct roce_field *a, const struct roce_field *b)
{
    const char *pa = roce_live_path(a), *pb = roce_live_path(b);
    size_t la = *pa ? strcspn(pa, ".") : strlen(a->key);
    size_t lb = *pb ? strcspn(pb, ".") : strlen(b->key);
    return la == lb && strncmp(*pa ? pa : a->key, *pb ? pb : b->key, la) == 0;
}

/* The interval lines list every live field once, each member of the
 * counters object in one run; Prometheus counts end in _total, gauges do
 * not; fields share a name only as the parts of one family: the same label,
 * different values, the same type. */
static void test_live_fields(void)
{
    const struct roce_fieldset *fs = &roce_report_fields;
    const struct roce_field *order[ROCE_REPORT_FIELDS_MAX];
    size_t n = roce_live_fields(order, ROCE_REPORT_FIELDS_MAX), live = 0;
    for (const struct roce_field *f = fs->f; f < fs->f + fs->n; f++)
        live += (f->flags & ROCE_FF_LIVE) != 0;
    CU_ASSERT(n == live);
    for (size_t i = 0; i < n; i++) {
        for (size_t j = i + 1; j < n; j++) {
            CU_ASSERT(order[i] != order[j]);
            if (j > i + 1 && same_member(order[i], order[j]))
                CU_ASSERT(same_member(order[i], order[j - 1]));
            const struct roce_field *a = order[i], *b = order[j];
            if (a->prom == NULL || b->prom == NULL || strcmp(a->prom, b->prom) != 0)
                continue;
            CU_ASSERT_FATAL(a->prom_label != NULL && b->prom_label != NULL);
            CU_ASSERT(a->prom_value != NULL && b->prom_value != NULL);
            CU_ASSERT(strcmp(a->prom_label, b->prom_label) == 0);
            CU_ASSERT(a->prom_value == NULL || b->prom_value == NULL ||
                      strcmp(a->prom_value, b->prom_value) != 0);
            CU_ASSERT((a->flags & ROCE_FF_GAUGE) == (b->flags & ROCE_FF_GAUGE));
        }
        const char *p = order[i]->prom;
        if (p == NULL)
            continue;
        size_t len = strlen(p);
        int total = len > 6 && strcmp(p + len - 6, "_total") == 0;
        CU_ASSERT(order[i]->help != NULL);
        CU_ASSERT(total == !(order[i]->flags & ROCE_FF_GAUGE));
    }
    CU_ASSERT(strcmp(roce_live_path(&fs->f[0]), "") == 0); /* "capture" is the top level */
}

/* The value of the sample "rocescope_NAME{interface="test\"0"LABELS} V" in
 * text (LABELS: ",k=\"v\"..." or ""), or -1 when there is none. */
static double prom_value(const char *text, const char *name, const char *labels)
{
    char head[256];
    snprintf(head, sizeof head, "\nrocescope_%s{interface=\"test\\\"0\"%s} ", name, labels);
    const char *at = strstr(text, head);
    return at != NULL ? strtod(at + strlen(head), NULL) : -1.0;
}

/* Every line of the Prometheus text is a HELP, TYPE or sample; each family
 * is declared once, HELP then TYPE, before its samples, which follow one
 * another; counters end in _total and gauges do not. */
static void check_exposition(const char *text)
{
    char families[ROCE_REPORT_FIELDS_MAX * 2][128], cur[128] = "";
    size_t n = 0;
    for (const char *line = text; *line; line = strchr(line, '\n') + 1) {
        char name[128], type[16];
        CU_ASSERT_FATAL(strchr(line, '\n') != NULL);
        if (sscanf(line, "# HELP rocescope_%127s ", name) == 1) {
            for (size_t i = 0; i < n; i++)
                CU_ASSERT(strcmp(families[i], name) != 0);
            CU_ASSERT_FATAL(n < sizeof families / sizeof families[0]);
            snprintf(families[n++], sizeof families[0], "%s", name);
            snprintf(cur, sizeof cur, "%s", name);
            line = strchr(line, '\n') + 1;
            CU_ASSERT_FATAL(sscanf(line, "# TYPE rocescope_%127s %15s", name, type) == 2);
            CU_ASSERT(strcmp(name, cur) == 0);
            size_t len = strlen(name);
            int total = len > 6 && strcmp(name + len - 6, "_total") == 0;
            CU_ASSERT(strcmp(type, total ? "counter" : "gauge") == 0);
            continue;
        }
        size_t len = strlen(cur);
        CU_ASSERT(strncmp(line, "rocescope_", 10) == 0 && strncmp(line + 10, cur, len) == 0 &&
                  line[10 + len] == '{');
    }
}

/* The Prometheus file of random totals: well formed, a sample for every
 * live field with a Prometheus name (each part with its label), the PFC
 * families per priority and for the link PAUSE, the quanta as seconds at
 * the link speed, the flows with trouble, and no whole beside its parts. */
static void test_prometheus(void)
{
    struct roce_totals total, prev;
    struct roce_live_interval iv;
    struct roce_live_flow top;
    const struct roce_field *order[ROCE_REPORT_FIELDS_MAX];
    char *s = NULL, labels[128];
    size_t len = 0, n = roce_live_fields(order, ROCE_REPORT_FIELDS_MAX);
    random_totals(SEED + 3, &total, &prev);
    memset(&iv, 0, sizeof iv);
    memset(&top, 0, sizeof top);
    top.key.src[15] = 1;
    top.key.dst[15] = 2;
    top.key.dqpn = 0xb2;
    top.key.af = ROCE_AF_IPV6;
    top.retransmitted = 4;
    roce_live_totals_delta(&total, &prev, &iv.delta);
    iv.total = &total;
    iv.iface = "test\"0";
    iv.link_speed_mbps = 100000;
    iv.top = &top;
    iv.n_top = 1;
    FILE *f = open_memstream(&s, &len);
    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT(roce_prometheus_write(f, &iv) == 0);
    fclose(f);
    check_exposition(s);
    for (size_t i = 0; i < n; i++) {
        const struct roce_field *m = order[i];
        if (m->prom == NULL || m->type == ROCE_FT_OBJECT || m->type == ROCE_FT_CALL)
            continue;
        if (m->type == ROCE_FT_COUNTS) {
            for (unsigned e = m->names->first; e < m->names->count; e++) {
                snprintf(labels, sizeof labels, ",%s=\"%s\"", m->prom_label, m->names->name(e));
                CU_ASSERT(prom_value(s, m->prom, labels) ==
                          (double)roce_field_u64(&total, m->off + e * sizeof(uint64_t)));
            }
            continue;
        }
        labels[0] = '\0';
        if (m->prom_label != NULL)
            snprintf(labels, sizeof labels, ",%s=\"%s\"", m->prom_label, m->prom_value);
        CU_ASSERT(prom_value(s, m->prom, labels) == (double)roce_field_u64(&total, m->off));
        if (m->prom_label != NULL)
            CU_ASSERT(prom_value(s, m->prom, "") < 0); /* no whole beside the parts */
    }
    CU_ASSERT(prom_value(s, "pfc_priority_frames_total", ",priority=\"5\",state=\"xoff\"") ==
              (double)total.pfc.prio[5].xoff);
    CU_ASSERT(prom_value(s, "link_pause_frames_total", ",state=\"xon\"") ==
              (double)total.pfc.pause.xon);
    double want = (double)total.pfc.prio[2].quanta * 512 / 1e11;
    double got = prom_value(s, "pfc_priority_requested_seconds_total", ",priority=\"2\"");
    CU_ASSERT(got >= want * (1 - 1e-9) && got <= want * (1 + 1e-9));
    CU_ASSERT(prom_value(s, "naks_total", ",code=\"rnr\"") == (double)total.naks.rnr);
    CU_ASSERT(prom_value(s, "top_flow_retransmitted_packets",
                         ",src=\"::1\",dst=\"::2\",dest_qp=\"0x0000b2\"") == 4.0);
    CU_ASSERT(strstr(s, "rocescope_roce_packets_total{interface=\"test\\\"0\"} ") == NULL);
    free(s);
}

/* The streaming writer (jsonw.h) writes what json-c writes, byte for byte:
 * objects of random keys and strings (plain words, and with quotes,
 * backslashes, slashes and control characters, which json-c escapes), enough
 * members that its buffer of 64 KiB fills many times over, and a key longer
 * than the buffer. */
static void test_jw_json_c(void)
{
    struct tu_rng g;
    static const char chars[] = "abcxyz_019 /\"\\\n\t\b\f\r\x01\x1f\x7f\xc3\xa9";
    tu_rng_seed(&g, 7);
    for (int round = 0; round < 4; round++) {
        json_object *top = json_object_new_object(), *arr = json_object_new_array();
        for (unsigned i = 0; i < 3000; i++) {
            char key[40], val[24];
            unsigned klen = 1 + tu_rng_below(&g, sizeof key - 12), vlen = tu_rng_below(&g, 20);
            int escapes = tu_rng_below(&g, 4) == 0; /* else a plain word */
            for (unsigned k = 0; k < klen; k++)
                key[k] = chars[tu_rng_below(&g, escapes ? sizeof chars - 1 : 7)];
            snprintf(key + klen, sizeof key - klen, "%u", i); /* unique */
            for (unsigned k = 0; k < vlen; k++)
                val[k] = chars[tu_rng_below(&g, sizeof chars - 1)];
            val[vlen] = '\0';
            json_object *o = json_object_new_object();
            json_object_object_add(o, key, json_object_new_string(val));
            json_object_object_add(o, "n", json_object_new_int64((int64_t)i));
            json_object_array_add(arr, o);
        }
        if (round == 3) { /* a key longer than the buffer */
            char *big = malloc(ROCE_JW_BUF + 100);
            CU_ASSERT_PTR_NOT_NULL_FATAL(big);
            memset(big, 'k', ROCE_JW_BUF + 99);
            big[ROCE_JW_BUF + 99] = '\0';
            json_object_object_add(top, big, json_object_new_string("v"));
            free(big);
        }
        json_object_object_add(top, "list", arr);
        const char *want =
            json_object_to_json_string_ext(top, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
                                                    JSON_C_TO_STRING_NOSLASHESCAPE);
        char *got = NULL;
        size_t got_len = 0;
        FILE *f = open_memstream(&got, &got_len);
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        static struct roce_jw w;
        roce_jw_init(&w, f, 0);
        roce_jw_json(&w, top);
        CU_ASSERT_EQUAL(roce_jw_flush(&w), 0);
        fclose(f);
        CU_ASSERT(got != NULL && strcmp(got, want) == 0);
        free(got);
        json_object_put(top);
    }
}

/* Fields found by their JSON path, into objects too. */
static void test_find(void)
{
    size_t off = 0;
    CU_ASSERT(roce_fields_find(&roce_report_fields, "naks.total", &off) != NULL &&
              off == offsetof(struct roce_totals, naks.total));
    CU_ASSERT(roce_fields_find(&roce_report_fields, "capture.icrc.bad", &off) != NULL &&
              off == offsetof(struct roce_totals, icrc_bad));
    CU_ASSERT(roce_fields_find(&roce_report_fields, "limits.alloc_failures", &off) != NULL &&
              off == offsetof(struct roce_totals, alloc_failures));
    CU_ASSERT(roce_fields_find(&roce_report_fields, "capture.icrc", &off) == NULL);
    CU_ASSERT(roce_fields_find(&roce_report_fields, "capture.nothing", &off) == NULL);
    CU_ASSERT(roce_fields_find(&roce_report_fields, "ecn.cnp_latency_us", &off) == NULL);
}

/* The terminal view and the plain lines find every counter they show. */
static void test_view(void)
{
    struct roce_totals total;
    struct roce_live_interval iv;
    char *s = NULL;
    size_t n = 0;
    memset(&total, 0, sizeof total);
    memset(&iv, 0, sizeof iv);
    total.icrc_bad = 7;
    iv.delta = total;
    iv.total = &total;
    iv.iface = "test0";
    iv.link_type = "EN10MB";
    FILE *f = open_memstream(&s, &n);
    CU_ASSERT_FATAL(f != NULL);
    CU_ASSERT(roce_live_view_lines(f, &iv) == 0);
    CU_ASSERT(roce_live_view_screen(f, &iv) == 0);
    fclose(f);
    CU_ASSERT(strstr(s, " bad_icrc 7 ") != NULL);
    free(s);
}

static const struct tu_test tests[] = {
    {"round_trip", test_round_trip},
    {"problems", test_problems},
    {"strict", test_strict},
    {"skipped", test_skipped},
    {"mac_once", test_mac_once},
    {"merge_range", test_merge_range},
    {"totals_covered", test_totals_covered},
    {"merge", test_merge},
    {"merge_diagnoses", test_merge_diagnoses},
    {"live_delta", test_live_delta},
    {"live_fields", test_live_fields},
    {"prometheus", test_prometheus},
    {"jw_json_c", test_jw_json_c},
    {"find", test_find},
    {"view", test_view},
    TU_END,
};

int main(int argc, char **argv)
{
    return tu_main1(argc, argv, "report_fields", tests);
}
