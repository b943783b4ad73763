/*
 * rocegen_scen_trust.c - scenarios for evidence before findings (analyzer/
 * engine/ANALYSIS.md "Capture loss and network loss", "The capture first"):
 * a sniffer that drops most frames and most ACKs with no NAK anywhere, a
 * capture that ends right after a gap, RoCEv1 requests answered by RoCEv2,
 * every UDP source port rewritten to 4791, frames whose captured length was
 * written as their original length, ACKs in the microsecond of their
 * request, reordering next to a selective resend after a NAK, and responses
 * time-stamped before their requests. captures/README.md says what each
 * must show, frame by frame.
 *
 * Times are microseconds after RG_SC_BASE_NS; frame numbers are the
 * capture's (from 1).
 */
#include <string.h>

#include "rocegen_scen.h"

#define NS(us)        ((int64_t)((us)*ROCE_NS_PER_US))
#define HOST(a, b)    (0x0A000000u | (a) << 8 | (b)) /* 10.0.a.b */
#define MSG_1024      1024u
#define MSG_4096      4096u
#define UDP_SPORT_OFF 0 /* in the UDP header */
#define ROCE_PORT     4791u

/* Put the sink's clock at exactly t_us (only forward). */
static void at_us(struct rg_sc *c, double t_us)
{
    rg_sc_at(c, NS(t_us));
}

/* ---- a sniffer that drops most frames and most ACKs ---- */

#define DROP_QPS      3u
#define DROP_SENDS    60u /* per QP */
#define DROP_KEEP     3u  /* the sniffer keeps one request in three */
#define DROP_SPACING  40  /* us between two requests of a QP */
#define DROP_START    10  /* us: after the CM exchanges */
#define DROP_ACK_N    11u /* the one ACK captured: QP 1's, for its 12th request */
#define DROP_AT(n, q) (DROP_START + DROP_SPACING * (double)(n) + (q))

/*
 * Three QPs 10.0.20.1 -> 10.0.20.2, set up by CM (frames 1-9), each sending
 * 60 SENDs 40 us apart (QP q at 10 + 40 n + q us, PSN 0x2000 + 0x100 q + n).
 * The sniffer keeps requests 0, 3, 6, ... of each (a gap of 2 PSNs before
 * every kept one but the first) and one ACK of all the responder sent: QP
 * 1's ACK of its 12th request (n = 11), 5 us after it. No NAK, no resend:
 * nothing was lost in the network.
 */
void rg_scen_capture_drops(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k[DROP_QPS];

    rg_sc_base(c, &base);
    for (uint32_t q = 0; q < DROP_QPS; q++) {
        rg_conn_init4(&k[q], &base, HOST(20, 1), HOST(20, 2), 0x0000A1 + q, 0x0000B1 + q);
        k[q].sport[RG_A] = (uint16_t)(0xC021 + q); /* a source port of its own */
        rg_sc_cm_connect(c, &k[q], 0x20000 + q, 0x2000 + 0x100 * q, 0x9000 + 0x100 * q,
                         RG_MTU_1024);
    }
    for (uint32_t n = 0; n < DROP_SENDS; n++) {
        for (uint32_t q = 0; q < DROP_QPS; q++) {
            if (n % DROP_KEEP != 0)
                continue;
            at_us(c, DROP_AT(n, q));
            rg_sc_req(c, &k[q], RG_A, RG_OP_RC_SEND_ONLY, 0x2000 + 0x100 * q + n, MSG_1024);
        }
        if (n == DROP_ACK_N) {
            at_us(c, DROP_AT(n, 0) + 5);
            rg_sc_ack(c, &k[0], RG_B, 0x2000 + n, n + 1);
        }
    }
}

/* ---- the capture ends right after a gap ---- */

/*
 * 10.0.21.1 -> 10.0.21.2, CM (frames 1-3), SENDs 0x2100-0x2104 (4-8), the
 * ACK of 0x2104 (9), then 0x2106 (10): 0x2105 is missing and the capture
 * ends: nothing can tell whether the network lost it.
 */
void rg_scen_gap_at_end(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k;
    const uint32_t p = 0x2100;

    rg_sc_base(c, &base);
    rg_conn_init4(&k, &base, HOST(21, 1), HOST(21, 2), 0x0000A1, 0x0000B2);
    rg_sc_cm_connect(c, &k, 0x21000, p, 0x9100, RG_MTU_1024);
    for (uint32_t i = 0; i < 5; i++)
        rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p + i, MSG_1024);
    rg_sc_ack(c, &k, RG_B, p + 4, 5);
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p + 6, MSG_1024);
}

/* ---- RoCEv1 requests answered by RoCEv2 ---- */

/*
 * Two QPs between 10.0.22.1 (A, whose GID index is a RoCEv1 GID,
 * ::ffff:10.0.22.1) and 10.0.22.2 (B, a RoCEv2 GID): A's requests are RoCEv1
 * (EtherType 0x8915, GRH), B's ACKs RoCEv2 (UDP 4791). No CM.
 * QP 1 (0xa1/0xb1): SENDs 0x2200, 0x2201, (0x2202 missed by the capture),
 * 0x2203, ACK 0x2203. QP 2 (0xa2/0xb2): SENDs 0x2300, 0x2301, ACK 0x2301.
 */
void rg_scen_rocev1_rocev2(struct rg_sc *c)
{
    struct rg_spec v1, v2;
    struct rg_conn a1, b1, a2, b2; /* a*: A's RoCEv1 view, b*: B's RoCEv2 view */
    const uint32_t p = 0x2200, q = 0x2300;

    rg_sc_base(c, &v1);
    v1.kind = RG_KIND_ROCEV1;
    rg_sc_base(c, &v2);
    rg_conn_init4(&a1, &v1, HOST(22, 1), HOST(22, 2), 0x0000A1, 0x0000B1);
    rg_conn_init4(&b1, &v2, HOST(22, 1), HOST(22, 2), 0x0000A1, 0x0000B1);
    rg_conn_init4(&a2, &v1, HOST(22, 1), HOST(22, 2), 0x0000A2, 0x0000B2);
    rg_conn_init4(&b2, &v2, HOST(22, 1), HOST(22, 2), 0x0000A2, 0x0000B2);
    rg_sc_req(c, &a1, RG_A, RG_OP_RC_SEND_ONLY, p, MSG_1024);     /* 1 @0 */
    rg_sc_req(c, &a1, RG_A, RG_OP_RC_SEND_ONLY, p + 1, MSG_1024); /* 2 @1 */
    rg_sc_req(c, &a1, RG_A, RG_OP_RC_SEND_ONLY, p + 3, MSG_1024); /* 3 @2: gap, p + 2 */
    rg_sc_ack(c, &b1, RG_B, p + 3, 4);                            /* 4 @3: covers it */
    rg_sc_req(c, &a2, RG_A, RG_OP_RC_SEND_ONLY, q, MSG_1024);     /* 5 @4 */
    rg_sc_req(c, &a2, RG_A, RG_OP_RC_SEND_ONLY, q + 1, MSG_1024); /* 6 @5 */
    rg_sc_ack(c, &b2, RG_B, q + 1, 2);                            /* 7 @6 */
}

/* ---- every UDP source port rewritten to 4791 ---- */

/* Write s with its UDP source port replaced by 4791 after the ICRC was
 * computed (as a sniffer that rewrites the port does). */
static void emit_port_rewritten(struct rg_sc *c, const struct rg_spec *s)
{
    uint8_t f[RG_MAX_FRAME];
    struct rg_layout lay;
    int n = rg_build(s, f, sizeof f, &lay);
    if (n < 0) {
        c->err = n;
        return;
    }
    f[lay.l4_off + UDP_SPORT_OFF] = (uint8_t)(ROCE_PORT >> 8);
    f[lay.l4_off + UDP_SPORT_OFF + 1] = (uint8_t)ROCE_PORT;
    rg_sc_raw(c, f, (size_t)n);
}

/*
 * Three QPs 10.0.23.1 -> 10.0.23.2 (0xb1-0xb3), each sending from its own
 * UDP source port (49153-49155, the ICRC computed over it), captured by a
 * sniffer that writes 4791 into the source port of every frame: per QP a
 * SEND and its ACK, the QPs interleaved (frames 1-6 SENDs and ACKs of QPs 1,
 * 2, 3 in turn; 7-12 again). Every ICRC fails; each validates with the port
 * the frame was sent with. The QPs would seem to share one ECMP path.
 */
void rg_scen_sport_rewritten(struct rg_sc *c)
{
    struct rg_spec base, s;
    struct rg_conn k[3];

    rg_sc_base(c, &base);
    for (uint32_t q = 0; q < 3; q++) {
        rg_conn_init4(&k[q], &base, HOST(23, 1), HOST(23, 2), 0x0000A1 + q, 0x0000B1 + q);
        k[q].sport[RG_A] = (uint16_t)(0xC001 + q);
        k[q].sport[RG_B] = (uint16_t)(0xC101 + q);
    }
    for (uint32_t round = 0; round < 2; round++)
        for (uint32_t q = 0; q < 3; q++) {
            rg_sc_send_spec(&k[q], RG_A, 0x2300 + 0x100 * q + round, MSG_1024, &s);
            emit_port_rewritten(c, &s);
            rg_conn_spec(&k[q], RG_B, &s);
            s.opcode = RG_OP_RC_ACK;
            s.psn = 0x2300 + 0x100 * q + round;
            s.payload_len = 0;
            s.aeth_syndrome = 0x1F;
            s.aeth_msn = round + 1;
            emit_port_rewritten(c, &s);
        }
}

/* ---- captured length written as the original length ---- */

#define CUT_AT 243u /* what the sniffer kept of each frame */

/*
 * 10.0.24.1 -> 10.0.24.2: four RDMA WRITE Only of 4096 bytes (frames 1, 3,
 * 5, 7; 4170 bytes each by their IP/UDP lengths, IP total length 4156),
 * each followed by its ACK (2, 4, 6, 8; 62 bytes, captured whole). The sniffer kept 243 bytes
 * of each frame and wrote 243 as its original length too: a pcap that says
 * nothing was cut.
 */
void rg_scen_length_understated(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k;
    const uint32_t p = 0x2400;

    rg_sc_base(c, &base);
    rg_conn_init4(&k, &base, HOST(24, 1), HOST(24, 2), 0x0000A1, 0x0000B2);
    c->understate = CUT_AT;
    for (uint32_t i = 0; i < 4; i++) {
        rg_sc_write(c, &k, RG_A, RG_OP_RC_WRITE_ONLY, p + i, MSG_4096, MSG_4096);
        rg_sc_ack(c, &k, RG_B, p + i, i + 1);
    }
    c->understate = 0;
}

/* ---- time stamps in 1 us steps ---- */

/*
 * 10.0.25.1 -> 10.0.25.2, time stamps in whole microseconds: SENDs
 * 0x2500-0x2503 (frames 1, 3, 5, 7) 4 us apart, each ACKed in the same
 * microsecond it was sent (2, 4, 6, 8: the responder took 400 ns, the
 * clock cannot show it).
 */
void rg_scen_us_timestamps(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k;
    const uint32_t p = 0x2500;

    rg_sc_base(c, &base);
    rg_conn_init4(&k, &base, HOST(25, 1), HOST(25, 2), 0x0000A1, 0x0000B2);
    for (uint32_t i = 0; i < 4; i++) {
        at_us(c, 4.0 * i);
        rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p + i, MSG_1024);
        rg_sc_again(c);
        rg_sc_ack(c, &k, RG_B, p + i, i + 1);
    }
}

/* ---- reordering next to a selective resend ---- */

/*
 * Connection 1, 10.0.26.1 -> 10.0.26.2 (0xb1), across a fabric that sprays
 * packets over paths: SENDs 0x2600, 0x2601, 0x2603, 0x2604, then 0x2602
 * 2 us late, 0x2605, ACK 0x2605 (frames 1-7): delivered out of order, nothing
 * lost. Connection 2, 10.0.27.1 -> 10.0.27.2 (0xb2), captured at the
 * receiver: SENDs 0x2700, 0x2701, 0x2703 (0x2702 lost in the network), NAK
 * 0x2702, the requester resends 0x2702 alone (a NIC that resends
 * selectively), then 0x2704, 0x2705, ACK 0x2705 (frames 8-15).
 */
void rg_scen_reorder_resend(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k1, k2;
    const uint32_t p = 0x2600, q = 0x2700;

    rg_sc_base(c, &base);
    rg_conn_init4(&k1, &base, HOST(26, 1), HOST(26, 2), 0x0000A1, 0x0000B1);
    rg_conn_init4(&k2, &base, HOST(27, 1), HOST(27, 2), 0x0000A2, 0x0000B2);
    rg_sc_req(c, &k1, RG_A, RG_OP_RC_SEND_ONLY, p, MSG_1024);     /* 1 @0 */
    rg_sc_req(c, &k1, RG_A, RG_OP_RC_SEND_ONLY, p + 1, MSG_1024); /* 2 @1 */
    rg_sc_req(c, &k1, RG_A, RG_OP_RC_SEND_ONLY, p + 3, MSG_1024); /* 3 @2: gap, p + 2 */
    rg_sc_req(c, &k1, RG_A, RG_OP_RC_SEND_ONLY, p + 4, MSG_1024); /* 4 @3 */
    rg_sc_req(c, &k1, RG_A, RG_OP_RC_SEND_ONLY, p + 2, MSG_1024); /* 5 @4: late */
    rg_sc_req(c, &k1, RG_A, RG_OP_RC_SEND_ONLY, p + 5, MSG_1024); /* 6 @5 */
    rg_sc_ack(c, &k1, RG_B, p + 5, 6);                            /* 7 @6 */
    rg_sc_req(c, &k2, RG_A, RG_OP_RC_SEND_ONLY, q, MSG_1024);     /* 8 @7 */
    rg_sc_req(c, &k2, RG_A, RG_OP_RC_SEND_ONLY, q + 1, MSG_1024); /* 9 @8 */
    rg_sc_req(c, &k2, RG_A, RG_OP_RC_SEND_ONLY, q + 3, MSG_1024); /* 10 @9: gap, q + 2 */
    rg_sc_nak(c, &k2, RG_B, q + 2, 2);                            /* 11 @10 */
    rg_sc_req(c, &k2, RG_A, RG_OP_RC_SEND_ONLY, q + 2, MSG_1024); /* 12 @11: resent alone */
    rg_sc_req(c, &k2, RG_A, RG_OP_RC_SEND_ONLY, q + 4, MSG_1024); /* 13 @12 */
    rg_sc_req(c, &k2, RG_A, RG_OP_RC_SEND_ONLY, q + 5, MSG_1024); /* 14 @13 */
    rg_sc_ack(c, &k2, RG_B, q + 5, 6);                            /* 15 @14 */
}

/* ---- responses before their requests ---- */

/*
 * Two captures merged, the receiver's clock 3 us behind the sender's:
 * 10.0.28.1 -> 10.0.28.2 SENDs 0x2800-0x2805 at 0, 4, 8, ... us by the
 * sender's clock, each ACKed 1 us after it arrived by the receiver's clock,
 * which reads 2 us before the sender's send time. In time order: SEND
 * 0x2800 (1), ACK 0x2800 (2), ACK 0x2801 (3), SEND 0x2801 (4), ACK 0x2802
 * (5), SEND 0x2802 (6), ... : every ACK but the first before its request.
 */
void rg_scen_responses_early(struct rg_sc *c)
{
    struct rg_spec base;
    struct rg_conn k;
    const uint32_t p = 0x2800;

    rg_sc_base(c, &base);
    rg_conn_init4(&k, &base, HOST(28, 1), HOST(28, 2), 0x0000A1, 0x0000B2);
    rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p, MSG_1024); /* 1 @0 */
    rg_sc_ack(c, &k, RG_B, p, 1);                            /* 2 @1: pairs them */
    for (uint32_t i = 1; i < 6; i++) {
        at_us(c, 4.0 * i - 2);
        rg_sc_ack(c, &k, RG_B, p + i, i + 1);
        at_us(c, 4.0 * i);
        rg_sc_req(c, &k, RG_A, RG_OP_RC_SEND_ONLY, p + i, MSG_1024);
    }
}
