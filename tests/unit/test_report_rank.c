/*
 * test_report_rank.c - the one ranking of every front end
 * (analyzer/report/report_rank.c, roce_report_rank): the flows the
 * diagnoses name first, in the diagnoses' order (flow and connection
 * subjects only; of a key seen twice the latest flow), then the other flows
 * with trouble worst first, then, when asked, the rest by id.
 */
#include <string.h>

#include "report.h"
#include "test_util.h"

#define N_FLOWS 5

static void flow(struct roce_flow_report *f, uint64_t id, uint32_t dqpn)
{
    memset(f, 0, sizeof *f);
    f->id = id;
    f->key.src[15] = 1;
    f->key.dst[15] = 2;
    f->key.dqpn = dqpn;
    f->key.version = 2;
    f->packets = 1;
}

/* Flow 1 has the most trouble, flow 2 some; flow 5 is flow 2's QP reused
 * (the same key, later) with none; flows 3 and 4 have none. A packet loss
 * names flow 2's key then flow 3; a slow receiver (a host subject) carries
 * flow 1's key, which is not a flow subject. */
static void test_diagnoses_first(void)
{
    struct roce_flow_report f[N_FLOWS];
    const struct roce_flow_report *out[N_FLOWS];
    struct roce_diag_subject sj[3];
    struct roce_diagnosis d[2];
    struct roce_diag_list l;
    flow(&f[0], 1, 0xa1);
    f[0].retransmitted_packets = 10;
    flow(&f[1], 2, 0xb2);
    f[1].missing_psns = 3;
    flow(&f[2], 3, 0xc3);
    flow(&f[3], 4, 0xd4);
    flow(&f[4], 5, 0xb2);
    memset(sj, 0, sizeof sj);
    memset(d, 0, sizeof d);
    sj[0].flow = f[1].key;
    sj[1].flow = f[2].key;
    sj[2].flow = f[0].key;
    d[0].kind = ROCE_DIAG_SLOW_RECEIVER;
    d[0].first_subject = 2;
    d[0].n_subjects = 1;
    d[1].kind = ROCE_DIAG_PACKET_LOSS;
    d[1].first_subject = 0;
    d[1].n_subjects = 2;
    l = (struct roce_diag_list){d, 2, sj, 3, {0}, 0};
    /* the named ones (5, the latest of its key, then 3), then 1 and 2 by trouble */
    size_t n = roce_report_rank(f, N_FLOWS, &l, NULL, 0, out);
    CU_ASSERT_EQUAL_FATAL(n, 4);
    CU_ASSERT_EQUAL(out[0]->id, 5);
    CU_ASSERT_EQUAL(out[1]->id, 3);
    CU_ASSERT_EQUAL(out[2]->id, 1);
    CU_ASSERT_EQUAL(out[3]->id, 2);
    /* all: the rest after them */
    n = roce_report_rank(f, N_FLOWS, &l, NULL, 1, out);
    CU_ASSERT_EQUAL_FATAL(n, 4);
    CU_ASSERT_EQUAL(out[4]->id, 4);
    /* no diagnoses: by trouble alone; a flag of the caller joins them */
    uint8_t extra[N_FLOWS] = {0, 0, 0, 1, 0};
    n = roce_report_rank(f, N_FLOWS, NULL, extra, 1, out);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    CU_ASSERT_EQUAL(out[0]->id, 1);
    CU_ASSERT_EQUAL(out[1]->id, 2);
    CU_ASSERT_EQUAL(out[2]->id, 4);
    CU_ASSERT_EQUAL(out[3]->id, 3);
    CU_ASSERT_EQUAL(out[4]->id, 5);
    /* no flows */
    CU_ASSERT_EQUAL(roce_report_rank(f, 0, &l, NULL, 1, out), 0);
}

/* The first places only (the live monitor's --final-flows): the first upto
 * of the whole ranking, whatever upto, the named, the troubled and the rest
 * alike; 200 flows with trouble in a scrambled order, one in 3 without,
 * 20 of them named. */
static void test_first_places(void)
{
    enum { N = 200, NAMED = 20 };
    static struct roce_flow_report f[N];
    static const struct roce_flow_report *refs[N], *whole[N], *part[N];
    static struct roce_diag_subject sj[NAMED];
    struct roce_diagnosis d;
    for (uint32_t i = 0; i < N; i++) {
        flow(&f[i], i + 1, 0x100 + i);
        f[i].missing_psns = i % 3 ? (i * 37u) % 11u : 0; /* ties broken by id */
        f[i].ce_marked = (i * 13u) % 5u;
        refs[i] = &f[i];
    }
    memset(sj, 0, sizeof sj);
    for (uint32_t i = 0; i < NAMED; i++)
        sj[i].flow = f[(i * 71u) % N].key;
    memset(&d, 0, sizeof d);
    d.kind = ROCE_DIAG_PACKET_LOSS;
    d.n_subjects = NAMED;
    struct roce_diag_list l = {&d, 1, sj, NAMED, {0}, 0};
    size_t n_whole = roce_report_rank_refs(refs, N, &l, NULL, 1, 0, whole);
    CU_ASSERT_FATAL(n_whole > NAMED && n_whole < N);
    const size_t uptos[] = {1, 5, NAMED, NAMED + 1, 90, n_whole, n_whole + 1, N - 1, N};
    for (size_t u = 0; u < sizeof uptos / sizeof uptos[0]; u++) {
        size_t n = roce_report_rank_refs(refs, N, &l, NULL, 1, uptos[u], part);
        CU_ASSERT_EQUAL(n, n_whole < uptos[u] ? n_whole : uptos[u]);
        for (size_t i = 0; i < uptos[u]; i++)
            CU_ASSERT_PTR_EQUAL(part[i], whole[i]);
    }
}

static const struct tu_test tests[] = {
    {"diagnoses_first", test_diagnoses_first},
    {"first_places", test_first_places},
    TU_END,
};

int main(int argc, char **argv)
{
    return tu_main1(argc, argv, "report_rank", tests);
}
