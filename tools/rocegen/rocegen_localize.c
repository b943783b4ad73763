/*
 * rocegen_localize.c - the localize captures (see rocegen_localize.h).
 *
 * The exchange is a list of wire transmissions, each with the time it left
 * its host and its fate: delivered, lost at the sender's NIC (it never
 * reached the wire: no tap sees it), lost in the fabric between the taps
 * (the upstream tap sees it), or dropped by the receiving NIC (both taps
 * see it). A->B packets pass tap A, then the fabric (leaf, spine, leaf:
 * FABRIC_NS), then tap B; B->A packets the other way. The spine CE-marks
 * some packets: they queued there (CONGESTED_NS instead of FABRIC_NS), the
 * downstream tap sees them marked. Each tap writes what it saw, in its
 * capture window, with its own clock (tap B's runs TAP_B_OFFSET_NS ahead);
 * the mirror collector gets tap A's copies MIRROR_A_NS later as ERSPAN II
 * session 100 from 10.9.0.1 and tap B's MIRROR_B_NS later as session 200
 * from 10.9.0.2, on its own clock (which is tap A's).
 *
 * The hosts' reactions (ACKs, NAKs, go-back-N resends, CNPs) are written
 * into the list by hand, at times consistent with the delays.
 */
#include "rocegen_localize.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocegen_scen.h"
#include "rocegen_spread.h"

#define HOST_A    0xC0A8010Au /* 192.168.1.10 */
#define HOST_B    0xC0A80114u /* 192.168.1.20 */
#define QP_A      0x0000A1u
#define QP_B      0x0000B2u
#define SWITCH_A  0x0A090001u /* 10.9.0.1: mirrors tap A */
#define SWITCH_B  0x0A090002u /* 10.9.0.2: mirrors tap B */
#define COLLECTOR 0x0A090063u /* 10.9.0.99 */
#define SESSION_A 100u
#define SESSION_B 200u

#define US              1000LL
#define FABRIC_NS       (4 * US)
#define CONGESTED_NS    (6 * US)
#define TAP_B_OFFSET_NS 1234567LL
#define MIRROR_A_NS     (2 * US)
#define MIRROR_B_NS     3500LL
#define TAP_A_START     0
#define TAP_A_END       (2280 * US)
#define TAP_B_START     (30 * US)
#define TAP_B_END       (2400 * US)

#define WRITE_LEN 1024u
#define SEND_LEN  256u
#define A_PSN     0x001000u /* A's first request PSN, both connections */
#define B_PSN     0x00A000u
#define B_PSN_2   0x00B000u
#define COMM_1    0x4C001001u
#define COMM_2    0x4C002001u
#define CM_PSN    0x000100u
#define CNP_DSCP  48u
#define REMOTE_VA 0x00007F0000200000ULL
#define RKEY      0x00004321u
#define MAX_TX    128
#define ACK_OK    0x1Fu

enum fate { DELIVERED = 0, LOST_SENDER, LOST_FABRIC, LOST_RECEIVER };
enum tap { TAP_A = 0, TAP_B = 1, TAPS = 2 };

struct lz_tx {
    struct rg_spec s;
    uint8_t mad[RG_MAD_LEN];
    uint8_t has_mad;
    enum rg_side from;
    uint8_t fate;
    uint8_t congested; /* queued at the spine and CE-marked there */
    uint8_t original;  /* the first transmission of its PSN (a loss of it is a lost PSN) */
    int64_t t;         /* when it left its host (true time, ns after RG_SC_BASE_NS) */
};

struct lz {
    struct rg_conn k;
    struct lz_tx tx[MAX_TX];
    int n;
    uint32_t cm_psn[2];
};

/* ---- building the list ---- */

static struct lz_tx *add(struct lz *z, enum rg_side from, int64_t t_us, enum fate fate)
{
    struct lz_tx *x = &z->tx[z->n++];
    memset(x, 0, sizeof *x);
    rg_conn_spec(&z->k, from, &x->s);
    x->from = from;
    x->fate = (uint8_t)fate;
    x->t = t_us * US;
    return x;
}

/* An RDMA WRITE Only (A->B) or SEND Only (B->A) request. */
static void req(struct lz *z, enum rg_side from, int64_t t_us, uint32_t psn, enum fate fate,
                int original)
{
    struct lz_tx *x = add(z, from, t_us, fate);
    x->original = (uint8_t)original;
    x->s.psn = psn;
    x->s.ackreq = 1;
    x->s.payload_fill = (uint8_t)psn;
    if (from == RG_A) {
        x->s.opcode = RG_OP_RC_WRITE_ONLY;
        x->s.payload_len = WRITE_LEN;
        x->s.reth_va = REMOTE_VA;
        x->s.reth_rkey = RKEY;
        x->s.reth_dma_len = WRITE_LEN;
    } else {
        x->s.opcode = RG_OP_RC_SEND_ONLY;
        x->s.payload_len = SEND_LEN;
    }
}

/* New requests psn, psn+1, ... one microsecond apart, all delivered. */
static void reqs(struct lz *z, enum rg_side from, int64_t t_us, uint32_t psn, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        req(z, from, t_us + i, psn + i, DELIVERED, 1);
}

/* Go-back-N: resend psn, psn+1, ... one microsecond apart. */
static void resend(struct lz *z, enum rg_side from, int64_t t_us, uint32_t psn, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        req(z, from, t_us + i, psn + i, DELIVERED, 0);
}

static void ack(struct lz *z, enum rg_side from, int64_t t_us, uint32_t psn, uint32_t msn)
{
    struct lz_tx *x = add(z, from, t_us, DELIVERED);
    x->s.opcode = RG_OP_RC_ACK;
    x->s.psn = psn;
    x->s.aeth_syndrome = rg_aeth_ack(ACK_OK);
    x->s.aeth_msn = msn;
}

static void nak(struct lz *z, enum rg_side from, int64_t t_us, uint32_t psn, uint32_t msn)
{
    struct lz_tx *x = add(z, from, t_us, DELIVERED);
    x->s.opcode = RG_OP_RC_ACK;
    x->s.psn = psn;
    x->s.aeth_syndrome = rg_aeth_nak(RG_NAK_PSN_SEQ_ERR);
    x->s.aeth_msn = msn;
}

static void cnp(struct lz *z, enum rg_side from, int64_t t_us)
{
    struct lz_tx *x = add(z, from, t_us, DELIVERED);
    x->s.opcode = RG_OP_CNP;
    x->s.becn = 1;
    x->s.dscp = CNP_DSCP;
    x->s.udp_sport = 0;
}

/* One CM MAD (UD SEND Only to QP1); its PSN counts per side. */
static void cm(struct lz *z, enum rg_side from, int64_t t_us, const struct rg_cm *m)
{
    struct lz_tx *x = add(z, from, t_us, DELIVERED);
    rg_cm_mad(m, x->mad);
    x->has_mad = 1;
    rg_spec_cm(&x->s, x->mad);
    x->s.psn = CM_PSN + z->cm_psn[from]++;
}

static void cm_connect(struct lz *z, int64_t t_us, uint32_t comm, uint32_t psn_a, uint32_t psn_b)
{
    struct rg_cm m;
    memset(&m, 0, sizeof m);
    m.attr = RG_CM_REQ;
    m.tid = comm;
    m.local_comm_id = comm;
    m.local_qpn = QP_A;
    m.start_psn = psn_b;
    m.pmtu_code = RG_MTU_1024;
    m.transport = RG_CM_TS_RC;
    rg_addr_v4(m.local_gid, HOST_A);
    rg_addr_v4(m.remote_gid, HOST_B);
    cm(z, RG_A, t_us, &m);
    memset(&m, 0, sizeof m);
    m.attr = RG_CM_REP;
    m.tid = comm;
    m.local_comm_id = comm + 1;
    m.remote_comm_id = comm;
    m.local_qpn = QP_B;
    m.start_psn = psn_a;
    cm(z, RG_B, t_us + 5, &m);
    memset(&m, 0, sizeof m);
    m.attr = RG_CM_RTU;
    m.tid = comm;
    m.local_comm_id = comm;
    m.remote_comm_id = comm + 1;
    cm(z, RG_A, t_us + 10, &m);
}

static void cm_disconnect(struct lz *z, int64_t t_us, uint32_t comm)
{
    struct rg_cm m;
    memset(&m, 0, sizeof m);
    m.attr = RG_CM_DREQ;
    m.tid = comm + 2;
    m.local_comm_id = comm;
    m.remote_comm_id = comm + 1;
    m.local_qpn = QP_B;
    cm(z, RG_A, t_us, &m);
    memset(&m, 0, sizeof m);
    m.attr = RG_CM_DREP;
    m.tid = comm + 2;
    m.local_comm_id = comm + 1;
    m.remote_comm_id = comm;
    cm(z, RG_B, t_us + 5, &m);
}

/* The exchange; captures/README.md "localize/" has it as a table. */
static void script(struct lz *z)
{
    rg_conn_init4(&z->k, NULL, HOST_A, HOST_B, QP_A, QP_B);

    /* connection 1; tap B starts capturing at 30 us */
    cm_connect(z, 0, COMM_1, A_PSN, B_PSN);
    req(z, RG_A, 12, A_PSN, DELIVERED, 1); /* before tap B: outside the common span */
    ack(z, RG_B, 17, A_PSN, 1);
    req(z, RG_A, 30, A_PSN + 1, DELIVERED, 1);
    ack(z, RG_B, 35, A_PSN + 1, 2);

    /* 0x001003 lost in A's NIC: both taps see a gap */
    req(z, RG_A, 60, A_PSN + 2, DELIVERED, 1);
    req(z, RG_A, 61, A_PSN + 3, LOST_SENDER, 1);
    reqs(z, RG_A, 62, A_PSN + 4, 2);
    nak(z, RG_B, 68, A_PSN + 3, 3);
    resend(z, RG_A, 73, A_PSN + 3, 3);
    ack(z, RG_B, 80, A_PSN + 5, 6);

    /* 0x001006 lost in the fabric A->B: tap A saw it, tap B did not */
    req(z, RG_A, 90, A_PSN + 6, LOST_FABRIC, 1);
    req(z, RG_A, 91, A_PSN + 7, DELIVERED, 1);
    nak(z, RG_B, 96, A_PSN + 6, 6);
    resend(z, RG_A, 101, A_PSN + 6, 2);
    ack(z, RG_B, 107, A_PSN + 7, 8);

    /* 0x001008 dropped by B's NIC: both taps saw it */
    req(z, RG_A, 120, A_PSN + 8, LOST_RECEIVER, 1);
    req(z, RG_A, 121, A_PSN + 9, DELIVERED, 1);
    nak(z, RG_B, 126, A_PSN + 8, 8);
    resend(z, RG_A, 131, A_PSN + 8, 2);
    ack(z, RG_B, 137, A_PSN + 9, 10);

    /* the spine queues three packets, marks two */
    reqs(z, RG_A, 150, A_PSN + 10, 3);
    z->tx[z->n - 3].congested = 1;
    z->tx[z->n - 2].congested = 1;
    z->tx[z->n - 1].congested = 2; /* queued, not marked */
    cnp(z, RG_B, 160);
    ack(z, RG_B, 161, A_PSN + 12, 13);

    /* B's requests to A: 0x00a001 lost in the fabric B->A, 0x00a003 marked */
    req(z, RG_B, 170, B_PSN, DELIVERED, 1);
    ack(z, RG_A, 175, B_PSN, 1);
    req(z, RG_B, 180, B_PSN + 1, LOST_FABRIC, 1);
    req(z, RG_B, 181, B_PSN + 2, DELIVERED, 1);
    nak(z, RG_A, 186, B_PSN + 1, 1);
    resend(z, RG_B, 191, B_PSN + 1, 2);
    ack(z, RG_A, 197, B_PSN + 2, 3);
    req(z, RG_B, 205, B_PSN + 3, DELIVERED, 1);
    z->tx[z->n - 1].congested = 1;
    ack(z, RG_A, 212, B_PSN + 3, 4);
    cnp(z, RG_A, 213);
    cm_disconnect(z, 230, COMM_1);

    /* connection 2 reuses the QPs and A's start PSN: 0x001003 dropped by B's NIC */
    cm_connect(z, 2200, COMM_2, A_PSN, B_PSN_2);
    reqs(z, RG_A, 2220, A_PSN, 3);
    ack(z, RG_B, 2228, A_PSN + 2, 3);
    req(z, RG_A, 2240, A_PSN + 3, LOST_RECEIVER, 1);
    req(z, RG_A, 2241, A_PSN + 4, DELIVERED, 1);
    nak(z, RG_B, 2246, A_PSN + 3, 3);
    resend(z, RG_A, 2251, A_PSN + 3, 2);
    ack(z, RG_B, 2257, A_PSN + 4, 5);
    req(z, RG_A, 2265, A_PSN + 5, DELIVERED, 1);
    ack(z, RG_B, 2270, A_PSN + 5, 6);
    /* tap A has stopped: only tap B sees the rest */
    req(z, RG_A, 2290, A_PSN + 6, DELIVERED, 1);
    ack(z, RG_B, 2295, A_PSN + 6, 7);
    cm_disconnect(z, 2300, COMM_2);
}

/* ---- what each tap saw ---- */

/* Time a transmission passes a tap (true time), or -1 when it does not. */
static int64_t at_tap(const struct lz_tx *x, enum tap tap)
{
    enum tap up = x->from == RG_A ? TAP_A : TAP_B;
    int64_t delay = x->congested ? CONGESTED_NS : FABRIC_NS;
    if (x->fate == LOST_SENDER || (tap != up && x->fate == LOST_FABRIC))
        return -1;
    int64_t t = tap == up ? x->t : x->t + delay;
    int64_t from = tap == TAP_A ? TAP_A_START : TAP_B_START;
    int64_t to = tap == TAP_A ? TAP_A_END : TAP_B_END;
    return t >= from && t <= to ? t : -1;
}

/* A sighting: which transmission, at which tap, when (in the file's clock). */
struct sight {
    int64_t ts;
    int tx;
    enum tap tap;
};

static int cmp_sight(const void *a, const void *b)
{
    const struct sight *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->tx - y->tx; /* never equal for one tap; stable for the mirror */
}

/* Write the sightings in time order: each frame as its tap saw it. */
static int write_sights(const struct lz *z, struct sight *v, int n, const char *path, int mirror)
{
    struct rg_writer *w = rg_writer_open(path, RG_FMT_PCAP, RG_LINKTYPE_ETHERNET, 0);
    struct rg_sc *c = malloc(sizeof *c);
    struct rg_wrap wraps[TAPS];
    int err;
    if (w == NULL || c == NULL) {
        fprintf(stderr, "rocegen: cannot write %s: %s\n", path, strerror(errno));
        rg_writer_close(w);
        free(c);
        return EXIT_FAILURE;
    }
    rg_wrap_init(&wraps[TAP_A], RG_WRAP_ERSPAN2, SWITCH_A, COLLECTOR);
    rg_wrap_init(&wraps[TAP_B], RG_WRAP_ERSPAN2, SWITCH_B, COLLECTOR);
    wraps[TAP_A].session = SESSION_A;
    wraps[TAP_B].session = SESSION_B;
    qsort(v, (size_t)n, sizeof *v, cmp_sight);
    rg_sc_init(c, w, RG_LINKTYPE_ETHERNET);
    for (int i = 0; i < n; i++) {
        const struct lz_tx *x = &z->tx[v[i].tx];
        struct rg_spec s = x->s;
        enum tap down = x->from == RG_A ? TAP_B : TAP_A;
        if (x->has_mad)
            s.payload = x->mad;
        if (x->congested == 1 && v[i].tap == down)
            s.ecn = RG_ECN_CE;
        c->wrap = mirror ? &wraps[v[i].tap] : NULL;
        c->ts = RG_SC_BASE_NS + v[i].ts;
        rg_sc_emit(c, &s);
    }
    err = c->err;
    free(c);
    if (rg_writer_close(w) != 0 || err != 0) {
        fprintf(stderr, "rocegen: write error on %s\n", path);
        return EXIT_FAILURE;
    }
    return EXIT_SUCCESS;
}

/* One tap's file (mirror: both taps as the collector saw them). */
static int write_file(const struct lz *z, const char *path, int which)
{
    struct sight v[2 * MAX_TX];
    int n = 0;
    for (int i = 0; i < z->n; i++)
        for (int tap = TAP_A; tap < TAPS; tap++) {
            int64_t t = at_tap(&z->tx[i], (enum tap)tap);
            if (t < 0 || (which != TAPS && tap != which))
                continue;
            v[n].tx = i;
            v[n].tap = (enum tap)tap;
            if (which == TAPS)
                v[n].ts = t + (tap == TAP_A ? MIRROR_A_NS : MIRROR_B_NS);
            else
                v[n].ts = t + (tap == TAP_B ? TAP_B_OFFSET_NS : 0);
            n++;
        }
    return write_sights(z, v, n, path, which == TAPS);
}

/* ---- the truth ---- */

static void addr_text(const uint8_t *a, char *buf, size_t len)
{
    snprintf(buf, len, "%u.%u.%u.%u", a[12], a[13], a[14], a[15]);
}

static const char *name(int tap)
{
    return tap == TAP_A ? "\"tap_a\"" : tap == TAP_B ? "\"tap_b\"" : "null";
}

static void truth_event(const struct lz_tx *x, int after, int before, const char **sep)
{
    char src[32], dst[32];
    addr_text(x->s.src, src, sizeof src);
    addr_text(x->s.dst, dst, sizeof dst);
    printf("%s\n    {\"src\": \"%s\", \"dst\": \"%s\", \"dest_qp\": %" PRIu32 ", \"psn\": %" PRIu32
           ", \"after\": %s, \"before\": %s}",
           *sep, src, dst, x->s.dqpn, x->s.psn, name(after), name(before));
    *sep = ",";
}

/* Every lost original and every mark, with the segment the generator put it in. */
static void print_truth(const struct lz *z)
{
    const char *sep = "";
    printf("{\n  \"clock_offsets\": {\"tap_b\": %lld, \"mirror/200\": %lld},\n  \"losses\": [",
           TAP_B_OFFSET_NS, MIRROR_B_NS - MIRROR_A_NS);
    for (int i = 0; i < z->n; i++) {
        const struct lz_tx *x = &z->tx[i];
        int up = x->from == RG_A ? TAP_A : TAP_B, down = up == TAP_A ? TAP_B : TAP_A;
        if (!x->original || x->fate == DELIVERED)
            continue;
        if (x->fate == LOST_SENDER)
            truth_event(x, -1, up, &sep);
        else if (x->fate == LOST_FABRIC)
            truth_event(x, up, down, &sep);
        else
            truth_event(x, down, -1, &sep);
    }
    printf("\n  ],\n  \"ce_marks\": [");
    sep = "";
    for (int i = 0; i < z->n; i++) {
        const struct lz_tx *x = &z->tx[i];
        int up = x->from == RG_A ? TAP_A : TAP_B;
        if (x->congested == 1)
            truth_event(x, up, up == TAP_A ? TAP_B : TAP_A, &sep);
    }
    printf("\n  ]\n}\n");
}

/* ---- command line ---- */

static int usage(const char *msg)
{
    fprintf(stderr,
            "rocegen: localize: %s\n"
            "usage: rocegen localize [--tap-a FILE] [--tap-b FILE] [--mirror FILE] "
            "[--truth]\n"
            "       rocegen localize --pause upstream|cycle [--tap1 FILE] [--tap2 FILE] "
            "[--tap3 FILE]\n",
            msg);
    return 2;
}

/* --pause KIND: the three taps of a pause moving upstream, or of a cycle. */
static int pause_main(int argc, char **argv)
{
    const char *out[3] = {NULL, NULL, NULL}, *kind = NULL;
    for (int i = 1; i < argc; i++) {
        static const char *const taps[3] = {"--tap1", "--tap2", "--tap3"};
        int which = -1;
        for (int k = 0; k < 3; k++)
            if (strcmp(argv[i], taps[k]) == 0)
                which = k;
        if (i + 1 >= argc)
            return usage("missing value");
        if (strcmp(argv[i], "--pause") == 0)
            kind = argv[++i];
        else if (which >= 0)
            out[which] = argv[++i];
        else
            return usage("unknown argument");
    }
    if (kind == NULL || (strcmp(kind, "upstream") != 0 && strcmp(kind, "cycle") != 0))
        return usage("--pause takes upstream or cycle");
    if (out[0] == NULL && out[1] == NULL && out[2] == NULL)
        return usage("nothing to write");
    return rg_spread_write(strcmp(kind, "cycle") == 0, out);
}

int rg_localize_main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--pause") == 0)
            return pause_main(argc, argv);
    const char *out[TAPS + 1] = {NULL, NULL, NULL};
    int truth = 0, rc = EXIT_SUCCESS;
    struct lz *z;
    for (int i = 1; i < argc; i++) {
        int which = strcmp(argv[i], "--tap-a") == 0    ? TAP_A
                    : strcmp(argv[i], "--tap-b") == 0  ? TAP_B
                    : strcmp(argv[i], "--mirror") == 0 ? TAPS
                                                       : -1;
        if (strcmp(argv[i], "--truth") == 0) {
            truth = 1;
        } else if (which >= 0 && i + 1 < argc) {
            out[which] = argv[++i];
        } else {
            return usage(which >= 0 ? "missing file" : "unknown argument");
        }
    }
    if (!truth && out[TAP_A] == NULL && out[TAP_B] == NULL && out[TAPS] == NULL)
        return usage("nothing to write");
    if ((z = calloc(1, sizeof *z)) == NULL) {
        fprintf(stderr, "rocegen: out of memory\n");
        return EXIT_FAILURE;
    }
    script(z);
    for (int which = TAP_A; which <= TAPS && rc == EXIT_SUCCESS; which++)
        if (out[which] != NULL)
            rc = write_file(z, out[which], which);
    if (truth && rc == EXIT_SUCCESS)
        print_truth(z);
    free(z);
    return rc;
}
