/*
 * rocegen_scen_diag.c - scenarios for the diagnoses (analyzer/engine/
 * ANALYSIS.md "Diagnoses"): capture loss next to network loss, NAK
 * generation time, DCQCN senders that react to CNPs and one that ignores
 * them, CE marks no CNP answers, a host NIC sending PFC next to a switch in a routed fabric, QPs
 * sharing a UDP source port, frames altered by the capture path, and clean
 * traffic that has no diagnosis. captures/README.md says what each must show.
 *
 * Times are microseconds after RG_SC_BASE_NS; frame numbers are the
 * capture's (from 1).
 */
#include <stdlib.h>
#include <string.h>

#include "rocegen_scen.h"

#define NS(us)     ((int64_t)((us)*ROCE_NS_PER_US))
#define HOST(a, b) (0x0A000000u | (a) << 8 | (b)) /* 10.0.a.b */
#define MSG_1024   1024u
#define MSG_256    256u
#define ACK_OK     0x1Fu

/* Put the sink's clock at exactly t_us (the scenarios below keep it going forward). */
static void at_us(struct rg_sc *c, double t_us)
{
    c->ts = RG_SC_BASE_NS + NS(t_us);
}

/* A SEND Only of len bytes from side A with the given ECN field. */
static uint64_t send_ecn(struct rg_sc *c, const struct rg_conn *k, uint32_t psn, uint32_t len,
                         uint8_t ecn)
{
    struct rg_spec s;
    rg_conn_spec(k, RG_A, &s);
    s.opcode = RG_OP_RC_SEND_ONLY;
    s.psn = psn & RG_PSN_MASK;
    s.payload_len = len;
    s.payload_fill = (uint8_t)psn;
    s.ecn = ecn;
    return rg_sc_emit(c, &s);
}

/* ---- capture loss next to network loss ---- */

/*
 * One capture point misses two bursts of connection 1 (10.0.1.1 -> 10.0.1.2,
 * a tap that drops, as ibdump does): the responder ACKs past them, no NAK, no
 * resend. Connection 2 (10.0.2.1 -> 10.0.2.2) loses a packet in the network:
 * the responder NAKs it and the requester resends.
 */
void rg_scen_capture_loss(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k1, k2;
    const uint32_t p = 0x000100, q = 0x000200;

    rg_sc_base(c, &base);
    rg_conn_init4(&k1, &base, HOST(1, 1), HOST(1, 2), 0x0000A1, 0x0000B2);
    rg_conn_init4(&k2, &base, HOST(2, 1), HOST(2, 2), 0x0000C1, 0x0000D2);
    rg_sc_req(c, &k1, RG_A, RG_OP_RC_SEND_ONLY, p, MSG_1024);     /* 1 @0 */
    rg_sc_req(c, &k1, RG_A, RG_OP_RC_SEND_ONLY, p + 1, MSG_1024); /* 2 @1 */
    /* p + 2, p + 3 crossed the wire, the capture missed them */
    rg_sc_req(c, &k1, RG_A, RG_OP_RC_SEND_ONLY, p + 4, MSG_1024); /* 3 @2: gap of 2 */
    rg_sc_req(c, &k1, RG_A, RG_OP_RC_SEND_ONLY, p + 5, MSG_1024); /* 4 @3 */
    rg_sc_ack(c, &k1, RG_B, p + 5, 6);                            /* 5 @4: covers both */
    rg_sc_req(c, &k2, RG_A, RG_OP_RC_SEND_ONLY, q, MSG_1024);     /* 6 @5 */
    /* q + 1 is lost in the network */
    rg_sc_req(c, &k2, RG_A, RG_OP_RC_SEND_ONLY, q + 2, MSG_1024); /* 7 @6: gap of 1 */
    rg_sc_req(c, &k1, RG_A, RG_OP_RC_SEND_ONLY, p + 6, MSG_1024); /* 8 @7 */
    /* p + 7 missed by the capture again */
    rg_sc_req(c, &k1, RG_A, RG_OP_RC_SEND_ONLY, p + 8, MSG_1024); /* 9 @8: gap of 1 */
    rg_sc_nak(c, &k2, RG_B, q + 1, 1);                            /* 10 @9: NAK q + 1 */
    rg_sc_ack(c, &k1, RG_B, p + 8, 9);                            /* 11 @10: covers it */
    rg_sc_req(c, &k2, RG_A, RG_OP_RC_SEND_ONLY, q + 1, MSG_1024); /* 12 @11: resend */
    rg_sc_req(c, &k2, RG_A, RG_OP_RC_SEND_ONLY, q + 2, MSG_1024); /* 13 @12 */
    rg_sc_ack(c, &k2, RG_B, q + 2, 3);                            /* 14 @13 */
}

/* ---- NAK generation ---- */

/*
 * Captured at the sender 10.0.3.1: PSN 0x000302 is lost beyond the capture
 * point (at the receiver's side); the responder sees 0x000303 arrive out of
 * sequence and NAKs 0x000302 3.25 us after it left the sender; the sender
 * resends 2.5 us after the NAK.
 */
void rg_scen_nak_generation(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k;
    const uint32_t p = 0x000300;

    rg_sc_base(c, &base);
    rg_conn_init4(&k, &base, HOST(3, 1), HOST(3, 2), 0x0000A1, 0x0000B2);
    for (uint32_t i = 0; i < 6; i++) /* 1-6 @0-5: 0x000300-0x000305 */
        rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p + i, MSG_1024);
    at_us(c, 6.25);
    rg_sc_nak(c, &k, RG_B, p + 2, 2); /* 7 @6.25: NAK 0x000302, 3.25 us after frame 4 */
    at_us(c, 8.75);
    for (uint32_t i = 2; i < 6; i++) /* 8-11 @8.75-11.75: resend 0x000302-0x000305 */
        rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p + i, MSG_1024);
    rg_sc_ack(c, &k, RG_B, p + 5, 6); /* 12 @12.75 */
}

/* ---- DCQCN ---- */

/* One RoCEv2 sender of the DCQCN scenarios: a request every 1 us, every
 * `slow` us for 30 us after each CNP (1: it ignores them); CNPs at the given
 * times, each 1.5 us after a CE-marked request. */
struct sender {
    struct rg_conn k;
    double offset; /* its packets are at offset + whole microseconds */
    unsigned slow;
    const double *cnps; /* CNP times, ascending */
    unsigned n_cnps;
    double next;       /* the next packet's time */
    unsigned next_cnp; /* the next CNP to send */
    uint32_t psn;
    unsigned since_ack;
    double ack_at; /* a coalesced ACK due then (0: none) */
    uint32_t ack_psn;
};

#define DCQCN_END_US   230.0 /* the senders stop */
#define DCQCN_SLOW_US  30.0  /* a reacting sender sends slower this long after a CNP */
#define CNP_AFTER_CE   1.5   /* a CE mark to its CNP */
#define ACK_EVERY      20u   /* requests between coalesced ACKs */
#define RESPONSE_DELAY 0.5

/* The sender's next event: a request, its coalesced ACK, or a CNP. */
static double sender_next(const struct sender *s)
{
    double t = s->next < DCQCN_END_US + s->offset ? s->next : 1e18;
    if (s->next_cnp < s->n_cnps && s->cnps[s->next_cnp] < t)
        t = s->cnps[s->next_cnp];
    if (s->ack_at > 0 && s->ack_at < t)
        t = s->ack_at;
    return t;
}

/* Emit the sender's next event at its time. */
static void sender_step(struct rg_sc *c, struct sender *s)
{
    double t = sender_next(s);
    at_us(c, t);
    if (s->ack_at > 0 && s->ack_at == t) {
        rg_sc_ack(c, &s->k, RG_B, s->ack_psn, s->ack_psn + 1);
        s->ack_at = 0;
        return;
    }
    if (s->next_cnp < s->n_cnps && s->cnps[s->next_cnp] == t) {
        rg_sc_cnp(c, &s->k, RG_B);
        s->next_cnp++;
        return;
    }
    /* the request sent CNP_AFTER_CE before a CNP is CE-marked */
    int ce = s->next_cnp < s->n_cnps && s->cnps[s->next_cnp] - t <= CNP_AFTER_CE &&
             s->cnps[s->next_cnp] - t > CNP_AFTER_CE - 1.0;
    send_ecn(c, &s->k, s->psn++, MSG_256, ce ? RG_ECN_CE : RG_ECN_ECT0);
    if (++s->since_ack == ACK_EVERY) { /* an ACK RESPONSE_DELAY later, in time order */
        s->ack_at = t + RESPONSE_DELAY;
        s->ack_psn = s->psn - 1;
        s->since_ack = 0;
    }
    unsigned step = 1;
    for (unsigned i = 0; i < s->next_cnp; i++)
        if (s->cnps[i] < s->next + 1.0 && s->next + 1.0 <= s->cnps[i] + DCQCN_SLOW_US)
            step = s->slow;
    s->next += step;
}

/* Run the senders interleaved in time. */
static void run_senders(struct rg_sc *c, struct sender *s, unsigned n)
{
    for (;;) {
        unsigned best = n;
        for (unsigned i = 0; i < n; i++)
            if (sender_next(&s[i]) < 1e17 &&
                (best == n || sender_next(&s[i]) < sender_next(&s[best])))
                best = i;
        if (best == n || c->err)
            return;
        sender_step(c, &s[best]);
    }
}

static const double cnps_a[] = {30.5, 80.5, 130.5, 180.5};
static const double cnps_b[] = {30.75, 80.75, 130.75, 180.75};

/* A sender a > b (10.0.n.1 QP qa > 10.0.n.2 QP qb) from offset us, first
 * PSN psn, getting the 4 CNPs cnps; every `slow` us after each. */
static void sender_init(struct sender *s, const struct rg_spec *base, unsigned n, uint32_t qa,
                        uint32_t qb, double offset, unsigned slow, const double *cnps, uint32_t psn)
{
    memset(s, 0, sizeof *s);
    rg_conn_init4(&s->k, base, HOST(n, 1), HOST(n, 2), qa, qb);
    s->offset = offset;
    s->next = offset;
    s->slow = slow;
    s->cnps = cnps;
    s->n_cnps = 4;
    s->psn = psn;
}

/*
 * Two senders, each getting a CNP at 30, 80, 130 and 180 us (matched to a CE
 * mark 1.5 us before): 10.0.4.1 -> 10.0.4.2 halves its rate for 30 us after
 * each (ratio 0.5: reacted), 10.0.5.1 -> 10.0.5.2 keeps its rate (ratio 1:
 * ignored, DCQCN off).
 */
void rg_scen_dcqcn(struct rg_sc *c)
{
    struct rg_spec base;
    struct sender s[2];

    rg_sc_base(c, &base);
    sender_init(&s[0], &base, 4, 0x0000A1, 0x0000B2, 0.0, 2, cnps_a, 0x001000);
    sender_init(&s[1], &base, 5, 0x0000C1, 0x0000D2, 0.25, 1, cnps_b, 0x002000);
    run_senders(c, s, 2);
}

/*
 * Clean traffic: CM set-up, a sender that reacts to its CNPs (the CE marks
 * answered), a second QP of the same hosts on its own UDP source port with
 * an RDMA READ, ACKs. Nothing to diagnose.
 */
void rg_scen_clean_fabric(struct rg_sc *c)
{
    struct rg_spec base;
    struct sender s;
    struct rg_conn k2;
    const uint32_t p2 = 0x005000;

    rg_sc_base(c, &base);
    sender_init(&s, &base, 6, 0x0000A1, 0x0000B2, 5.0, 2, cnps_a, 0x004000);
    rg_conn_init4(&k2, &base, HOST(6, 1), HOST(6, 2), 0x0000A3, 0x0000B4);
    rg_sc_cm_connect(c, &s.k, 0x4D2A0001u, 0x004000, 0x00F000, RG_MTU_1024); /* 1-3 @0-2 */
    run_senders(c, &s, 1);
    rg_sc_wait(c, NS(5));
    rg_sc_read(c, &k2, RG_A, p2, 2 * MSG_1024);
    rg_sc_resp(c, &k2, RG_B, RG_OP_RC_READ_RESP_FIRST, p2, MSG_1024, ACK_OK, 0);
    rg_sc_resp(c, &k2, RG_B, RG_OP_RC_READ_RESP_LAST, p2 + 1, MSG_1024, ACK_OK, 1);
    rg_sc_req(c, &k2, RG_A, RG_OP_RC_SEND_ONLY, p2 + 2, MSG_256);
    rg_sc_ack(c, &k2, RG_B, p2 + 2, 2);
}

/* ---- CE marks no CNP answers ---- */

/*
 * The switch CE-marks four requests of 10.0.12.1 -> 10.0.12.2 and the
 * receiver sends no CNP for any (ECN notification off on its NIC): a
 * ce_unanswered diagnosis. 10.0.13.1 -> 10.0.13.2 gets three marks that a
 * CNP answers, 10.0.14.1 -> 10.0.14.2 two unanswered marks, below the
 * threshold of 3: no diagnosis for either.
 */
void rg_scen_ce_unanswered(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k1, k2, k3;
    const uint32_t p = 0x000c00, q = 0x000d00, r = 0x000e00;

    rg_sc_base(c, &base);
    rg_conn_init4(&k1, &base, HOST(12, 1), HOST(12, 2), 0x0000A1, 0x0000B2);
    rg_conn_init4(&k2, &base, HOST(13, 1), HOST(13, 2), 0x0000A3, 0x0000B4);
    rg_conn_init4(&k3, &base, HOST(14, 1), HOST(14, 2), 0x0000A5, 0x0000B6);
    send_ecn(c, &k1, p, MSG_256, RG_ECN_ECT0);   /* 1 @0 */
    send_ecn(c, &k1, p + 1, MSG_256, RG_ECN_CE); /* 2 @1 */
    send_ecn(c, &k1, p + 2, MSG_256, RG_ECN_CE); /* 3 @2 */
    rg_sc_ack(c, &k1, RG_B, p + 2, 3);           /* 4 @3 */
    send_ecn(c, &k1, p + 3, MSG_256, RG_ECN_CE); /* 5 @4 */
    send_ecn(c, &k1, p + 4, MSG_256, RG_ECN_CE); /* 6 @5 */
    rg_sc_ack(c, &k1, RG_B, p + 4, 5);           /* 7 @6 */
    send_ecn(c, &k2, q, MSG_256, RG_ECN_CE);     /* 8 @7 */
    send_ecn(c, &k2, q + 1, MSG_256, RG_ECN_CE); /* 9 @8 */
    send_ecn(c, &k2, q + 2, MSG_256, RG_ECN_CE); /* 10 @9 */
    rg_sc_cnp(c, &k2, RG_B);                     /* 11 @10: answers 8-10 */
    rg_sc_ack(c, &k2, RG_B, q + 2, 3);           /* 12 @11 */
    send_ecn(c, &k3, r, MSG_256, RG_ECN_CE);     /* 13 @12 */
    send_ecn(c, &k3, r + 1, MSG_256, RG_ECN_CE); /* 14 @13 */
    rg_sc_ack(c, &k3, RG_B, r + 1, 2);           /* 15 @14 */
}

/* ---- PFC from a host NIC next to PFC from the switch ---- */

static const uint8_t router_mac[RG_MAC_LEN] = {0x02, 0x00, 0x00, 0x00, 0x0F, 0xC1};
static const uint8_t other_port_mac[RG_MAC_LEN] = {0x02, 0x00, 0x00, 0x00, 0x0F, 0xC2};

#define PFC_PRIO      3u
#define DSCP_PFC_PRIO 26u   /* AF31: priority 3 by the default DSCP map (DSCP / 8) */
#define PFC_QUANTA    2000u /* 10.24 us at 100G */
#define ROUTED_TTL    63u   /* one router on the way */

/*
 * Captured on host A's port (10.0.7.1) of a routed fabric: A's frames carry
 * its NIC's MAC and TTL 64; the frames of its only peer B (10.0.8.2) arrive
 * routed, from the switch's MAC with TTL 63. A's NIC pauses the switch
 * (XOFF, XON, twice): A is a slow receiver. The switch pauses A's NIC (XOFF,
 * XON) and another switch port sends an XOFF: fabric PFC. With one address
 * behind it, the switch's MAC would pass for B's NIC; its frames' TTL shows
 * they were routed.
 */
void rg_scen_pfc_hosts(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k;
    const uint32_t p = 0x000700, q = 0x000800;

    rg_sc_base(c, &base);
    base.dscp = DSCP_PFC_PRIO; /* the RoCE runs on the priority the PFC frames pause */
    rg_conn_init4(&k, &base, HOST(7, 1), HOST(8, 2), 0x0000A1, 0x0000B2);
    memcpy(k.mac[RG_B], router_mac, RG_MAC_LEN); /* B's frames come from the router */
    for (uint32_t i = 0; i < 3; i++)             /* 1-3 @0-2 */
        rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p + i, MSG_1024);
    k.base.ttl = ROUTED_TTL; /* rg_conn_spec copies it for both sides: B's are routed */
    struct rg_spec s;
    rg_conn_spec(&k, RG_B, &s);
    s.opcode = RG_OP_RC_ACK;
    s.psn = p + 2;
    s.aeth_syndrome = ACK_OK;
    s.aeth_msn = 3;
    rg_sc_emit(c, &s); /* 4 @3: ACK from B, TTL 63 */
    for (uint32_t i = 0; i < 2; i++) {
        rg_conn_spec(&k, RG_B, &s); /* 5-6 @4-5: B's requests to A, TTL 63 */
        s.opcode = RG_OP_RC_SEND_ONLY;
        s.psn = q + i;
        s.payload_len = MSG_1024;
        rg_sc_emit(c, &s);
    }
    k.base.ttl = 64;
    rg_sc_ack(c, &k, RG_A, q + 1, 2);                            /* 7 @6: A's ACK, TTL 64 */
    rg_sc_pfc(c, k.mac[RG_A], PFC_PRIO, PFC_QUANTA);             /* 8 @7: A's NIC XOFF */
    rg_sc_pfc(c, k.mac[RG_A], PFC_PRIO, 0);                      /* 9 @8: XON */
    rg_sc_pfc(c, router_mac, PFC_PRIO, PFC_QUANTA);              /* 10 @9: switch XOFF */
    rg_sc_pfc(c, router_mac, PFC_PRIO, 0);                       /* 11 @10: XON */
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p + 3, MSG_1024); /* 12 @11 */
    rg_sc_pfc(c, k.mac[RG_A], PFC_PRIO, PFC_QUANTA);             /* 13 @12: A's NIC XOFF */
    rg_sc_pfc(c, other_port_mac, PFC_PRIO, PFC_QUANTA);          /* 14 @13: other port XOFF */
    rg_sc_pfc(c, k.mac[RG_A], PFC_PRIO, 0);                      /* 15 @14: XON */
    k.base.ttl = ROUTED_TTL;
    rg_conn_spec(&k, RG_B, &s);
    s.opcode = RG_OP_RC_ACK;
    s.psn = p + 3;
    s.aeth_syndrome = ACK_OK;
    s.aeth_msn = 4;
    rg_sc_emit(c, &s); /* 16 @15: ACK from B, TTL 63 */
}

/* ---- QPs on one ECMP path ---- */

#define SPORT_SHARED 0xC100u
#define SPORT_OWN    0xC101u

/*
 * Three QPs from 10.0.9.1 to 10.0.9.2 (dest QPs 0x10, 0x11, 0x12) use UDP
 * source port 0xC100 at the same time: one ECMP path for all three. A fourth
 * QP of the same hosts (0x13) has a port of its own; QP 0x20 between
 * 10.0.10.1 and 10.0.10.2 uses 0xC100 too, but between other hosts: no
 * collision. Each QP sends three WRITEs, round by round, then each is ACKed.
 */
void rg_scen_ecmp(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k[5];
    static const uint16_t sport[5] = {SPORT_SHARED, SPORT_SHARED, SPORT_SHARED, SPORT_OWN,
                                      SPORT_SHARED};

    rg_sc_base(c, &base);
    rg_conn_init4(&k[0], &base, HOST(9, 1), HOST(9, 2), 0x000001A, 0x000010);
    rg_conn_init4(&k[1], &base, HOST(9, 1), HOST(9, 2), 0x000001B, 0x000011);
    rg_conn_init4(&k[2], &base, HOST(9, 1), HOST(9, 2), 0x000001C, 0x000012);
    rg_conn_init4(&k[3], &base, HOST(9, 1), HOST(9, 2), 0x000001D, 0x000013);
    rg_conn_init4(&k[4], &base, HOST(10, 1), HOST(10, 2), 0x000002A, 0x000020);
    for (unsigned q = 0; q < 5; q++)
        k[q].sport[RG_A] = sport[q];
    for (uint32_t i = 0; i < 3; i++) /* 1-15: round i, QPs in order; PSNs 0x0N00 + i */
        for (unsigned q = 0; q < 5; q++)
            rg_sc_write(c, &k[q], RG_A, RG_OP_RC_WRITE_ONLY, 0x000100 * (q + 1) + i, MSG_1024,
                        MSG_1024);
    for (unsigned q = 0; q < 5; q++) /* 16-20: the ACKs */
        rg_sc_ack(c, &k[q], RG_B, 0x000100 * (q + 1) + 2, 3);
}

/* ---- every ICRC bad ---- */

#define IPV4_ID_OFF    4
#define IPV4_CSUM_OFF  10
#define IPV4_HDR_LEN   20
#define BROKER_ID_BASE 0x5000u

/* The IPv4 header checksum (RFC 791) of the 20-byte header at h, as written. */
static void ipv4_checksum(uint8_t *h)
{
    uint32_t sum = 0;
    h[IPV4_CSUM_OFF] = h[IPV4_CSUM_OFF + 1] = 0;
    for (unsigned i = 0; i < IPV4_HDR_LEN; i += 2)
        sum += (uint32_t)h[i] << 8 | h[i + 1];
    while (sum >> 16)
        sum = (sum & 0xFFFFu) + (sum >> 16);
    h[IPV4_CSUM_OFF] = (uint8_t)(~sum >> 8);
    h[IPV4_CSUM_OFF + 1] = (uint8_t)~sum;
}

/*
 * Captured through a packet broker that renumbers the IPv4 identification
 * of what it forwards (and fixes the header checksum, not the ICRC, which
 * covers the identification): every frame's ICRC is bad, which no link
 * does to every frame.
 */
void rg_scen_icrc_rewritten(struct rg_sc *c)
{
    struct rg_spec base, s;
    struct rg_conn k;
    uint8_t f[RG_MAX_FRAME];
    struct rg_layout lay;

    rg_sc_base(c, &base);
    rg_conn_init4(&k, &base, HOST(11, 1), HOST(11, 2), 0x0000A1, 0x0000B2);
    for (uint32_t i = 0; i < 4; i++) { /* 1-4: SEND, ACK, SEND, ACK */
        rg_conn_spec(&k, i % 2 ? RG_B : RG_A, &s);
        s.opcode = i % 2 ? RG_OP_RC_ACK : RG_OP_RC_SEND_ONLY;
        s.psn = 0x000100 + i / 2;
        s.payload_len = i % 2 ? 0 : MSG_256;
        s.aeth_syndrome = i % 2 ? ACK_OK : 0;
        s.aeth_msn = i / 2 + 1;
        int n = rg_build(&s, f, sizeof f, &lay);
        if (n < 0) {
            c->err = n;
            return;
        }
        f[lay.l3_off + IPV4_ID_OFF] = (uint8_t)((BROKER_ID_BASE + i) >> 8);
        f[lay.l3_off + IPV4_ID_OFF + 1] = (uint8_t)(BROKER_ID_BASE + i);
        ipv4_checksum(f + lay.l3_off);
        rg_sc_raw(c, f, (size_t)n);
    }
}
