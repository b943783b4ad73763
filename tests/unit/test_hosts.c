/*
 * test_hosts.c - host NIC MACs and who sent the PFC / PAUSE frames
 * (roce_hosts.c; roce_host_mac_role, roce_host_mac_merge of roce_diag.c).
 *
 * ANALYSIS.md "Host NIC MACs": a source MAC that is the
 * source MAC of RoCE frames from exactly one IP address names that host;
 * PFC/PAUSE frames from it are that host's (the slow_receiver diagnosis).
 * ANALYSIS.md "Diagnoses": a MAC whose RoCE frames all arrive routed (a TTL
 * other than 64, 128 or 255) is a router's, whatever the number of
 * addresses behind it: its PFC is the fabric's.
 */
#include <string.h>

#include "rocegen_encap.h"
#include "test_harness.h"
#include "test_util.h"

#define PRIO      3u
#define DSCP_PRIO 26u /* priority 3 by the default DSCP map: RoCE where the PFC pauses */

static const uint8_t mac_a[6] = {0x02, 0x00, 0x0a, 0x00, 0x00, 0x01};
static const uint8_t mac_router[6] = {0x02, 0x00, 0x00, 0x00, 0x0f, 0xc1};

/* A PFC frame for priority PRIO from src; returns its frame number. */
static uint64_t pfc(struct tu_eng *t, const uint8_t src[6], uint16_t quanta)
{
    uint16_t q[RG_PFC_PRIOS] = {0};
    uint8_t f[RG_MAX_FRAME];
    q[PRIO] = quanta;
    int n = rg_build_mac_control(RG_MACCTRL_PFC, 1u << PRIO, q, src, f, sizeof f);
    CU_ASSERT_FATAL(n > 0);
    return tu_feed_bytes(t, RG_LINKTYPE_ETHERNET, f, (uint32_t)n, (uint32_t)n);
}

/* The engine's entry of a MAC, or NULL. */
static const struct roce_host_mac *entry(struct tu_eng *t, const uint8_t mac[6])
{
    size_t n;
    const struct roce_host_mac *m = roce_engine_macs(t->e, &n);
    for (size_t i = 0; i < n; i++)
        if (memcmp(m[i].mac, mac, 6) == 0)
            return &m[i];
    return NULL;
}

/* The connection with A's frames from mac_a and B's from the router with
 * TTL rsp_ttl. */
static void setup(struct tu_eng *t, struct tu_conn *c, uint8_t rsp_ttl)
{
    tu_setup(t, c, NULL);
    memcpy(c->req.eth_src, mac_a, 6);
    memcpy(c->rsp.eth_src, mac_router, 6);
    c->req.ttl = 64;
    c->rsp.ttl = rsp_ttl;
    c->req.dscp = c->rsp.dscp = DSCP_PRIO;
}

/* A's NIC pauses: a slow receiver; the router's PFC is the fabric's, though
 * only B's address is behind its MAC (its frames were routed: TTL 63). */
static void test_host_and_router(void)
{
    struct tu_eng t;
    struct tu_conn c;
    setup(&t, &c, 63);
    tu_sends(&t, &c, 1, 3);
    tu_ack(&t, &c, 3, rg_aeth_ack(0));
    uint64_t x1 = pfc(&t, mac_a, 1000), x2 = pfc(&t, mac_a, 0);
    pfc(&t, mac_router, 1000);
    const struct roce_host_mac *a = entry(&t, mac_a), *r = entry(&t, mac_router);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(a->addresses, 1);
    CU_ASSERT_EQUAL(a->checked_frames, 1); /* a flow's first frame, then one in 64 */
    CU_ASSERT_EQUAL(a->unrouted_frames, 1);
    CU_ASSERT_EQUAL(a->ttl_min, 64);
    CU_ASSERT_EQUAL(a->pfc_frames, 2);
    CU_ASSERT_EQUAL(a->n_frames, 2);
    CU_ASSERT_EQUAL(roce_host_mac_role(a), ROCE_MAC_UNROUTED);
    CU_ASSERT_EQUAL(r->addresses, 1);
    CU_ASSERT_EQUAL(r->unrouted_frames, 0);
    CU_ASSERT_EQUAL(r->ttl_max, 63);
    CU_ASSERT_EQUAL(r->pfc_frames, 1);
    CU_ASSERT_EQUAL(roce_host_mac_role(r), ROCE_MAC_ROUTED);
    struct roce_diag_list l;
    CU_ASSERT_EQUAL_FATAL(roce_engine_diagnoses(t.e, 0, &l), 0);
    CU_ASSERT_EQUAL_FATAL(l.n, 1);
    const struct roce_diagnosis *d = &l.d[0];
    const struct roce_diag_subject *s = roce_diag_subject_at(&l, d, 0);
    CU_ASSERT_EQUAL(d->kind, ROCE_DIAG_SLOW_RECEIVER);
    CU_ASSERT_EQUAL(memcmp(s->mac, mac_a, 6), 0);
    CU_ASSERT_EQUAL(d->count, 2);
    CU_ASSERT_EQUAL(d->frames[0], x1);
    CU_ASSERT_EQUAL(d->frames[1], x2);
    CU_ASSERT_PTR_NOT_NULL(strstr(d->summary, "host 10.0.0.1 sent PFC/PAUSE frames (2 frames; NIC "
                                              "MAC 02:00:0a:00:00:01"));
    CU_ASSERT_PTR_NOT_NULL(strstr(d->summary, "TTL 64"));
    roce_diag_list_free(&l);
    tu_eng_done(&t);
}

/* Without the TTL the router would have passed for B's NIC: with B's
 * frames unrouted (TTL 255) its MAC is B's, and its PFC B's. */
static void test_unrouted_peer(void)
{
    struct tu_eng t;
    struct tu_conn c;
    setup(&t, &c, 255);
    tu_send(&t, &c, 1);
    tu_ack(&t, &c, 1, rg_aeth_ack(0));
    pfc(&t, mac_router, 1000);
    CU_ASSERT_EQUAL(roce_host_mac_role(entry(&t, mac_router)), ROCE_MAC_UNROUTED);
    struct roce_diag_list l;
    CU_ASSERT_EQUAL_FATAL(roce_engine_diagnoses(t.e, 0, &l), 0);
    CU_ASSERT_EQUAL_FATAL(l.n, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(l.d[0].summary, "host 10.0.0.2"));
    roce_diag_list_free(&l);
    tu_eng_done(&t);
}

/* One MAC behind two addresses is no host's; a MAC that sent only PFC is
 * no host's either. */
static void test_several_and_no_roce(void)
{
    struct tu_eng t;
    struct tu_conn c, c2;
    setup(&t, &c, 64);
    tu_conn_init(&c2, TU_IP_A + 10, TU_IP_B, TU_QA, TU_QB);
    memcpy(c2.req.eth_src, mac_a, 6);
    c2.req.dscp = DSCP_PRIO;
    tu_send(&t, &c, 1);
    tu_send(&t, &c2, 1);
    pfc(&t, mac_a, 1000);
    static const uint8_t other[6] = {0x02, 0, 0, 0, 0x0f, 0xc2};
    pfc(&t, other, 1000);
    CU_ASSERT_EQUAL(entry(&t, mac_a)->addresses, 2);
    CU_ASSERT_EQUAL(roce_host_mac_role(entry(&t, mac_a)), ROCE_MAC_SEVERAL);
    CU_ASSERT_EQUAL(roce_host_mac_role(entry(&t, other)), ROCE_MAC_NO_ROCE);
    struct roce_diag_list l;
    CU_ASSERT_EQUAL(roce_engine_diagnoses(t.e, 0, &l), 0);
    CU_ASSERT_EQUAL(l.n, 0);
    roce_diag_list_free(&l);
    tu_eng_done(&t);
}

/* The link-layer address of a Linux cooked capture is the source MAC. */
static void test_sll(void)
{
    struct tu_eng t;
    struct tu_conn c;
    setup(&t, &c, 64);
    c.req.linktype = RG_LINKTYPE_LINUX_SLL;
    tu_send(&t, &c, 1);
    c.req.linktype = RG_LINKTYPE_LINUX_SLL2;
    c.req.dqpn = TU_QB + 1; /* another flow: its first frame is looked at */
    tu_send(&t, &c, 2);
    CU_ASSERT_EQUAL(entry(&t, mac_a)->checked_frames, 2);
    tu_eng_done(&t);
}

/* A flow is looked at again every 64 frames: a MAC that changes is seen
 * (a mirror behind a router that starts rewriting). */
static void test_sampled(void)
{
    struct tu_eng t;
    struct tu_conn c;
    setup(&t, &c, 64);
    tu_sends(&t, &c, 1, 63);
    CU_ASSERT_EQUAL(entry(&t, mac_a)->checked_frames, 1);
    memcpy(c.req.eth_src, mac_router, 6);
    c.req.ttl = 63;
    tu_sends(&t, &c, 64, 1); /* the 64th frame of the flow */
    const struct roce_host_mac *r = entry(&t, mac_router);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(r->checked_frames, 1);
    CU_ASSERT_EQUAL(roce_host_mac_role(r), ROCE_MAC_ROUTED);
    tu_eng_done(&t);
}

/* At most ROCE_MACS_MAX MACs; the frames of others are counted. */
static void test_bound(void)
{
    struct tu_eng t;
    struct tu_conn c;
    uint8_t m[6] = {0x02, 0, 0, 0, 0, 0};
    tu_setup(&t, &c, NULL);
    for (unsigned i = 0; i <= 4096; i++) {
        m[4] = (uint8_t)(i >> 8);
        m[5] = (uint8_t)i;
        pfc(&t, m, 0);
    }
    size_t n;
    roce_engine_macs(t.e, &n);
    CU_ASSERT_EQUAL(n, 4096);
    CU_ASSERT_EQUAL(tu_totals(&t)->macs_untracked, 1);
    tu_eng_done(&t);
}

/* Two captures' entries of one MAC: addresses join (two different: several),
 * counts add, TTLs widen, frames are numbered on. */
static void test_merge(void)
{
    struct roce_host_mac a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.addresses = b.addresses = 1;
    a.version = b.version = 2;
    a.addr[15] = 1;
    b.addr[15] = 1;
    a.ttl_min = a.ttl_max = 64;
    b.ttl_min = 63;
    b.ttl_max = 64;
    a.checked_frames = a.unrouted_frames = 3;
    a.pfc_frames = 1;
    a.frames[a.n_frames++] = 7;
    b.pfc_frames = 2;
    b.frames[b.n_frames++] = 2;
    b.frames[b.n_frames++] = 5;
    roce_host_mac_merge(&a, &b, 100);
    CU_ASSERT_EQUAL(a.addresses, 1);
    CU_ASSERT_EQUAL(a.ttl_min, 63);
    CU_ASSERT_EQUAL(a.pfc_frames, 3);
    CU_ASSERT_EQUAL(a.n_frames, 3);
    CU_ASSERT_EQUAL(a.frames[2], 105);
    b.addr[15] = 2;
    roce_host_mac_merge(&a, &b, 200);
    CU_ASSERT_EQUAL(a.addresses, 2);
    static const uint8_t v4[ROCE_ADDR_LEN] = {[10] = 0xFF, [11] = 0xFF, 10, 0, 0, 1};
    static const uint8_t v4_ll[ROCE_ADDR_LEN] = {[10] = 0xFF, [11] = 0xFF, 169, 254, 3, 4};
    static const uint8_t v6[ROCE_ADDR_LEN] = {0xFD, 0x00, [15] = 1};
    static const uint8_t v6_ll[ROCE_ADDR_LEN] = {0xFE, 0x80, [8] = 0x4E, [15] = 0x51};
    CU_ASSERT(roce_frame_unrouted(255, 2, v4) && roce_frame_unrouted(128, 2, v4) &&
              roce_frame_unrouted(64, 2, v6) && !roce_frame_unrouted(63, 2, v4) &&
              !roce_frame_unrouted(1, 2, v6) && roce_frame_unrouted(1, 1, v6));
    /* link-local sources are never routed, whatever their hop limit (1 in
     * real captures of RoCE over link-local GIDs) */
    CU_ASSERT(roce_frame_unrouted(1, 2, v6_ll) && roce_frame_unrouted(1, 2, v4_ll));
}

static const struct tu_test tests[] = {
    {"host_and_router", test_host_and_router},
    {"unrouted_peer", test_unrouted_peer},
    {"several_and_no_roce", test_several_and_no_roce},
    {"sll", test_sll},
    {"sampled", test_sampled},
    {"bound", test_bound},
    {"merge", test_merge},
    TU_END,
};

int main(int argc, char **argv)
{
    return tu_main1(argc, argv, "hosts", tests);
}
