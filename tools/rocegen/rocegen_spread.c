/*
 * rocegen_spread.c - the pause-spreading captures of `rocescope localize`
 * (see rocegen_localize.h, --pause): three taps on three links between
 * routed switches, each link's frames with its own ends' MACs, each tap on
 * a clock of its own. captures/README.md ("localize/") has them frame by
 * frame.
 *
 * upstream: H1 - S1 - S2 - S3 - H2, RC traffic H1 -> H2 (ACKs back); tap 1
 * on S3-H2, tap 2 on S2-S3, tap 3 on S1-S2. H2 pauses S3 (tap 1), S3 then
 * pauses S2 (tap 2), S2 pauses S1 (tap 3): the pause moves upstream.
 *
 * cycle: S1, S2, S3 in a ring, tap 1 on S1-S2, tap 2 on S2-S3, tap 3 on
 * S3-S1; three connections each crossing two links (S1->S2->S3,
 * S2->S3->S1, S3->S1->S2). S2 pauses S1 (tap 1), S1 then pauses S3 (tap 3),
 * S3 pauses S2 (tap 2), and S2 pauses S1 again (tap 1): a cycle.
 */
#include "rocegen_spread.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocegen_scen.h"

#define US        1000LL
#define HOP_NS    (2 * US) /* from one tap to the next */
#define TAPS      3
#define MAX_EV    256
#define PRIO      3
#define DSCP      26u /* priority 3 */
#define SEND_LEN  256u
#define ACK_OK    0x1Fu
#define QUANTA    4000u /* 20.48 us at 100 Gb/s */
#define FIRST_PSN 0x000100u

/* each tap's clock minus the true time */
static const int64_t tap_offset[TAPS] = {0, 250000, -730000};

struct ev {
    int64_t t; /* true time, ns */
    int seq;   /* creation order: ties of t */
    int tap;
    int pfc; /* a PFC frame (quanta), else a RoCE packet */
    uint16_t quanta;
    struct rg_spec s;
};

struct spread {
    struct ev ev[MAX_EV];
    int n;
};

/* MACs: 02:00:00:00:00:NN */
static void mac(uint8_t m[RG_MAC_LEN], unsigned n)
{
    static const uint8_t base[RG_MAC_LEN] = {0x02, 0, 0, 0, 0, 0};
    memcpy(m, base, RG_MAC_LEN);
    m[RG_MAC_LEN - 1] = (uint8_t)n;
}

enum node { H1 = 0x11, H2 = 0x12, H3 = 0x13, S1 = 0x01, S2 = 0x02, S3 = 0x03 };

/* A hop of a path: the tap that sees it (-1 none) and the link's ends. */
struct hop {
    int tap;
    enum node from, to;
};

/* One packet along a path of hops, passing hop k at t + k * HOP_NS. */
static void along(struct spread *z, const struct rg_spec *s, int64_t t, const struct hop *path,
                  int n)
{
    for (int k = 0; k < n; k++) {
        if (path[k].tap < 0)
            continue;
        struct ev *e = &z->ev[z->n];
        memset(e, 0, sizeof *e);
        e->seq = z->n++;
        e->t = t + k * HOP_NS;
        e->tap = path[k].tap;
        e->s = *s;
        e->s.ttl = (uint8_t)(e->s.ttl - k); /* each switch before this hop routed it */
        mac(e->s.eth_src, path[k].from);
        mac(e->s.eth_dst, path[k].to);
    }
}

static void pfc(struct spread *z, int64_t t_us, int tap, enum node from, uint16_t quanta)
{
    struct ev *e = &z->ev[z->n];
    memset(e, 0, sizeof *e);
    e->seq = z->n++;
    e->t = t_us * US;
    e->tap = tap;
    e->pfc = 1;
    e->quanta = quanta;
    mac(e->s.eth_src, from);
}

/* n requests of k from A, one every step_us from t_us, each acknowledged
 * by B 1 us after it arrived; path: A's hops to B (the ACKs take it
 * backwards). */
static void exchange(struct spread *z, const struct rg_conn *k, int64_t t_us, int64_t step_us,
                     uint32_t psn, unsigned n, const struct hop *path, int hops)
{
    struct hop back[8];
    for (int i = 0; i < hops; i++) {
        back[i].tap = path[hops - 1 - i].tap;
        back[i].from = path[hops - 1 - i].to;
        back[i].to = path[hops - 1 - i].from;
    }
    for (unsigned i = 0; i < n; i++) {
        struct rg_spec s;
        int64_t t = (t_us + (int64_t)i * step_us) * US;
        rg_conn_spec(k, RG_A, &s);
        s.opcode = RG_OP_RC_SEND_ONLY;
        s.psn = psn + i;
        s.ackreq = 1;
        s.payload_len = SEND_LEN;
        s.payload_fill = (uint8_t)(psn + i);
        along(z, &s, t, path, hops);
        rg_conn_spec(k, RG_B, &s);
        s.opcode = RG_OP_RC_ACK;
        s.psn = psn + i;
        s.aeth_syndrome = rg_aeth_ack(ACK_OK);
        s.aeth_msn = i + 1;
        along(z, &s, t + (int64_t)hops * HOP_NS + US, back, hops);
    }
}

static void conn(struct rg_conn *k, uint32_t a, uint32_t b, uint32_t qa, uint32_t qb)
{
    struct rg_spec base;
    rg_spec_init(&base);
    base.dscp = DSCP;
    rg_conn_init4(k, &base, a, b, qa, qb);
}

/* H1 (10.1.0.1) -> H2 (10.3.0.2): S1-S2 (tap 3), S2-S3 (tap 2), S3-H2 (tap 1). */
static void upstream(struct spread *z)
{
    static const struct hop path[] = {
        {-1, H1, S1},
        {2, S1, S2},
        {1, S2, S3},
        {0, S3, H2},
    };
    struct rg_conn k;
    conn(&k, 0x0A010001u, 0x0A030002u, 0xA1, 0xB2);
    exchange(z, &k, 0, 1, FIRST_PSN, 10, path, 4);
    pfc(z, 30, 0, H2, QUANTA); /* H2 pauses S3 */
    pfc(z, 33, 1, S3, QUANTA); /* S3 pauses S2 */
    pfc(z, 36, 2, S2, QUANTA); /* S2 pauses S1 */
    pfc(z, 40, 0, H2, 0);
    pfc(z, 42, 1, S3, 0);
    pfc(z, 44, 2, S2, 0);
    exchange(z, &k, 50, 1, FIRST_PSN + 10, 10, path, 4);
}

/* The ring: tap 1 on S1-S2, tap 2 on S2-S3, tap 3 on S3-S1; H1 behind S1,
 * H2 behind S2, H3 behind S3. */
static void cycle(struct spread *z)
{
    static const struct hop p1[] = {{-1, H1, S1}, {0, S1, S2}, {1, S2, S3}, {-1, S3, H3}};
    static const struct hop p2[] = {{-1, H2, S2}, {1, S2, S3}, {2, S3, S1}, {-1, S1, H1}};
    static const struct hop p3[] = {{-1, H3, S3}, {2, S3, S1}, {0, S1, S2}, {-1, S2, H2}};
    struct rg_conn k1, k2, k3;
    conn(&k1, 0x0A010001u, 0x0A030003u, 0xA1, 0xB1); /* H1 -> H3 */
    conn(&k2, 0x0A020002u, 0x0A010001u, 0xA2, 0xB2); /* H2 -> H1 */
    conn(&k3, 0x0A030003u, 0x0A020002u, 0xA3, 0xB3); /* H3 -> H2 */
    exchange(z, &k1, 0, 3, FIRST_PSN, 6, p1, 4);
    exchange(z, &k2, 1, 3, FIRST_PSN, 6, p2, 4);
    exchange(z, &k3, 2, 3, FIRST_PSN, 6, p3, 4);
    pfc(z, 40, 0, S2, QUANTA); /* S2 pauses S1 on S1-S2 */
    pfc(z, 43, 2, S1, QUANTA); /* S1 pauses S3 on S3-S1 */
    pfc(z, 45, 0, S2, 0);
    pfc(z, 46, 1, S3, QUANTA); /* S3 pauses S2 on S2-S3 */
    pfc(z, 49, 0, S2, QUANTA); /* S2 pauses S1 again: the cycle closed */
    pfc(z, 60, 2, S1, 0);
    pfc(z, 61, 1, S3, 0);
    pfc(z, 62, 0, S2, 0);
    exchange(z, &k1, 80, 3, FIRST_PSN + 6, 6, p1, 4);
    exchange(z, &k2, 81, 3, FIRST_PSN + 6, 6, p2, 4);
    exchange(z, &k3, 82, 3, FIRST_PSN + 6, 6, p3, 4);
}

static int cmp_ev(const void *a, const void *b)
{
    const struct ev *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->seq - y->seq;
}

static int write_tap(struct spread *z, int tap, const char *path)
{
    struct rg_writer *w = rg_writer_open(path, RG_FMT_PCAP, RG_LINKTYPE_ETHERNET, 0);
    struct rg_sc *c = malloc(sizeof *c);
    int err;
    if (w == NULL || c == NULL) {
        fprintf(stderr, "rocegen: cannot write %s: %s\n", path, strerror(errno));
        rg_writer_close(w);
        free(c);
        return EXIT_FAILURE;
    }
    rg_sc_init(c, w, RG_LINKTYPE_ETHERNET);
    for (int i = 0; i < z->n; i++) {
        const struct ev *e = &z->ev[i];
        if (e->tap != tap)
            continue;
        c->ts = RG_SC_BASE_NS + e->t + tap_offset[tap];
        if (e->pfc)
            rg_sc_pfc(c, e->s.eth_src, PRIO, e->quanta);
        else
            rg_sc_emit(c, &e->s);
    }
    err = c->err;
    free(c);
    if (rg_writer_close(w) != 0 || err != 0) {
        fprintf(stderr, "rocegen: write error on %s\n", path);
        return EXIT_FAILURE;
    }
    return EXIT_SUCCESS;
}

int rg_spread_write(int is_cycle, const char *const out[3])
{
    struct spread *z = calloc(1, sizeof *z);
    int rc = EXIT_SUCCESS;
    if (z == NULL) {
        fprintf(stderr, "rocegen: out of memory\n");
        return EXIT_FAILURE;
    }
    if (is_cycle)
        cycle(z);
    else
        upstream(z);
    qsort(z->ev, (size_t)z->n, sizeof z->ev[0], cmp_ev);
    for (int tap = 0; tap < TAPS && rc == EXIT_SUCCESS; tap++)
        if (out[tap] != NULL)
            rc = write_tap(z, tap, out[tap]);
    free(z);
    return rc;
}
