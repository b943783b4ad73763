/*
 * test_decode_bth.c - the BTH and extension headers (roce_bth.c), second
 * suite of test_decode.
 *
 * PROTOCOL.md "BTH", "AETH", "Header sizes"; IBTA Vol. 1 9.2, 9.3. Each
 * transport part below is written out by hand, byte by byte with its decode,
 * so the field offsets are checked against the wire layout and not against
 * the engine's own table; v2_head wraps them into Ethernet/IPv4/UDP frames.
 */
#include <stdio.h>
#include <string.h>

#include "roce_icrc.h"
#include "test_decode.h"
#include "test_frames.h"

/*
 * RoCEv2 wrapper for the hand-written transport parts:
 *   Ethernet 02:00:00:00:00:01 -> 02:00:00:00:00:02, type 0x0800
 *   IPv4 10.0.0.1 -> 10.0.0.2, TOS 0x02 (ECT(0)), total length (filled in),
 *        id 0, DF, TTL 64, UDP, header checksum 0 (the decoder does not check it)
 *   UDP 0xC000 -> 4791, length (filled in), checksum 0
 * then the transport bytes and their ICRC.
 */
/* clang-format off */
static const uint8_t v2_head[V2_HEAD] = {
    0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00, /* Eth */
    0x45, 0x02, 0x00, 0x00, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00,             /* IPv4 */
    0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02,                                     /* addrs */
    0xc0, 0x00, 0x12, 0xb7, 0x00, 0x00, 0x00, 0x00,                                     /* UDP */
};
/* clang-format on */

static size_t wrap_v2(const uint8_t *roce, size_t n, uint8_t *out)
{
    memcpy(out, v2_head, V2_HEAD);
    memcpy(out + V2_HEAD, roce, n);
    td_put_be16(out + 16, 20 + 8 + n + 4);
    td_put_be16(out + 38, 8 + n + 4);
    uint32_t icrc = roce_icrc_compute(out + ETH_LEN, 20, 0, 1, out + 34, 8 + n);
    for (int i = 0; i < 4; i++)
        out[V2_HEAD + n + (size_t)i] = (uint8_t)(icrc >> (8 * i));
    return V2_HEAD + n + 4;
}

/* ---- hand-written transport headers ---- */

/*
 * BTH opcode 0x4B RD RDMA WRITE Only with Immediate; flags 0xC0: SE 1, M 1,
 *     pad 0, TVer 0; P_Key 0x8001; byte 4 0x80: FECN 1, BECN 0; dest QP
 *     0xFEDCBA; 0x80: AckReq 1; PSN 0xABCDEF
 * RDETH resv 0, EE context 0x0A0B0C
 * DETH Q_Key 0x11223344, resv 0, source QP 0x556677
 * RETH VA 0x0102030405060708, R_Key 0x090A0B0C, DMA length 0x00001000
 * ImmDt 0xDEADBEEF
 * payload aa bb cc dd
 */
/* clang-format off */
static const uint8_t rd_write_imm[] = {
    0x4b, 0xc0, 0x80, 0x01, 0x80, 0xfe, 0xdc, 0xba, 0x80, 0xab, 0xcd, 0xef, /* BTH */
    0x00, 0x0a, 0x0b, 0x0c,                                                 /* RDETH */
    0x11, 0x22, 0x33, 0x44, 0x00, 0x55, 0x66, 0x77,                         /* DETH */
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,                         /* RETH VA */
    0x09, 0x0a, 0x0b, 0x0c, 0x00, 0x00, 0x10, 0x00,                         /* R_Key, len */
    0xde, 0xad, 0xbe, 0xef,                                                 /* ImmDt */
    0xaa, 0xbb, 0xcc, 0xdd,                                                 /* payload */
};
/* clang-format on */

/*
 * BTH opcode 0xAB XRC RDMA WRITE Only with Immediate; flags 0x30: SE 0, M 0,
 *     pad 3, TVer 0; P_Key 0xFFFF; byte 4 0x40: BECN; dest QP 0x000102;
 *     AckReq 0; PSN 0x000000
 * XRCETH resv 0, XRC SRQ 0x123456
 * RETH VA 0xFFEEDDCCBBAA9988, R_Key 0x77665544, DMA length 1
 * ImmDt 0x01020304
 * payload 5a, pad 00 00 00
 */
/* clang-format off */
static const uint8_t xrc_write_imm[] = {
    0xab, 0x30, 0xff, 0xff, 0x40, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, /* BTH */
    0x00, 0x12, 0x34, 0x56,                                                 /* XRCETH */
    0xff, 0xee, 0xdd, 0xcc, 0xbb, 0xaa, 0x99, 0x88,                         /* RETH VA */
    0x77, 0x66, 0x55, 0x44, 0x00, 0x00, 0x00, 0x01,                         /* R_Key, len */
    0x01, 0x02, 0x03, 0x04,                                                 /* ImmDt */
    0x5a, 0x00, 0x00, 0x00,                                                 /* payload, pad */
};
/* clang-format on */

/*
 * BTH opcode 0x13 RC CmpSwap; flags 0; P_Key 0xFFFF; dest QP 0x000011;
 *     AckReq 1; PSN 0x000007
 * AtomicETH VA 0x1000200030004000, R_Key 0xA1B2C3D4,
 *     swap 0x1111222233334444, compare 0x5555666677778888
 */
/* clang-format off */
static const uint8_t rc_cmp_swap[] = {
    0x13, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11, 0x80, 0x00, 0x00, 0x07, /* BTH */
    0x10, 0x00, 0x20, 0x00, 0x30, 0x00, 0x40, 0x00,                         /* VA */
    0xa1, 0xb2, 0xc3, 0xd4,                                                 /* R_Key */
    0x11, 0x11, 0x22, 0x22, 0x33, 0x33, 0x44, 0x44,                         /* swap */
    0x55, 0x55, 0x66, 0x66, 0x77, 0x77, 0x88, 0x88,                         /* compare */
};
/* clang-format on */

/*
 * BTH opcode 0x12 RC ATOMIC Acknowledge; P_Key 0xFFFF; dest QP 0x000022; PSN 0x000007
 * AETH syndrome 0x1F (ACK, credits 31), MSN 0x000102
 * AtomicAckETH original data 0xCAFEBABE01020304
 */
/* clang-format off */
static const uint8_t rc_atomic_ack[] = {
    0x12, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x22, 0x00, 0x00, 0x00, 0x07, /* BTH */
    0x1f, 0x00, 0x01, 0x02,                                                 /* AETH */
    0xca, 0xfe, 0xba, 0xbe, 0x01, 0x02, 0x03, 0x04,                         /* AtomicAckETH */
};
/* clang-format on */

/*
 * BTH opcode 0x16 RC SEND Last with Invalidate; flags 0x20: pad 2; P_Key
 *     0xFFFF; dest QP 0x000033; PSN 0x000100
 * IETH R_Key 0x0BADF00D
 * payload 01 02, pad 00 00
 */
/* clang-format off */
static const uint8_t rc_send_inv[] = {
    0x16, 0x20, 0xff, 0xff, 0x00, 0x00, 0x00, 0x33, 0x00, 0x00, 0x01, 0x00, /* BTH */
    0x0b, 0xad, 0xf0, 0x0d,                                                 /* IETH */
    0x01, 0x02, 0x00, 0x00,                                                 /* payload, pad */
};
/* clang-format on */

/*
 * BTH opcode 0xBC XRC FLUSH; P_Key 0xFFFF; dest QP 0x000044; AckReq 1; PSN 0x000009
 * XRCETH XRC SRQ 0x000077
 * FETH 0x00000013 (selectivity 1, placement type 3)
 * RETH VA 0x0000000000001000, R_Key 0x00000ABC, DMA length 0x40
 */
/* clang-format off */
static const uint8_t xrc_flush[] = {
    0xbc, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x44, 0x80, 0x00, 0x00, 0x09, /* BTH */
    0x00, 0x00, 0x00, 0x77,                                                 /* XRCETH */
    0x00, 0x00, 0x00, 0x13,                                                 /* FETH */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00,                         /* RETH VA */
    0x00, 0x00, 0x0a, 0xbc, 0x00, 0x00, 0x00, 0x40,                         /* R_Key, len */
};
/* clang-format on */

/*
 * BTH opcode 0x65 UD SEND Only with Immediate; P_Key 0xFFFF; dest QP 0x000055; PSN 0x000001
 * DETH Q_Key 0x80010000, resv 0, source QP 0x000066
 * ImmDt 0x00C0FFEE
 * payload 10 20 30 40
 */
/* clang-format off */
static const uint8_t ud_send_imm[] = {
    0x65, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x55, 0x00, 0x00, 0x00, 0x01, /* BTH */
    0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x66,                         /* DETH */
    0x00, 0xc0, 0xff, 0xee,                                                 /* ImmDt */
    0x10, 0x20, 0x30, 0x40,                                                 /* payload */
};
/* clang-format on */

/*
 * BTH opcode 0x4D RD RDMA READ Response First; P_Key 0xFFFF; dest QP 0x000088; PSN 0x000100
 * RDETH EE context 0x000099
 * AETH syndrome 0x05 (ACK, credits 5), MSN 0x000010
 * payload 01 02 03 04 05 06 07 08
 */
/* clang-format off */
static const uint8_t rd_read_first[] = {
    0x4d, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x88, 0x00, 0x00, 0x01, 0x00, /* BTH */
    0x00, 0x00, 0x00, 0x99,                                                 /* RDETH */
    0x05, 0x00, 0x00, 0x10,                                                 /* AETH */
    0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,                         /* payload */
};
/* clang-format on */

/*
 * BTH opcode 0x81 CNP; P_Key 0xFFFF; byte 4 0x40: BECN; dest QP 0x000118; PSN 0
 * 16 reserved bytes
 */
/* clang-format off */
static const uint8_t cnp[] = {
    0x81, 0x00, 0xff, 0xff, 0x40, 0x00, 0x01, 0x18, 0x00, 0x00, 0x00, 0x00, /* BTH */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,                         /* reserved */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};
/* clang-format on */

/*
 * BTH opcode 0x11 RC Acknowledge; P_Key 0xFFFF; dest QP 0x000101; PSN 0x000064
 * AETH syndrome 0x74: type 11 (NAK), code 0x14 (reserved); MSN 0x000003
 */
/* clang-format off */
static const uint8_t rc_nak_reserved[] = {
    0x11, 0x00, 0xff, 0xff, 0x00, 0x00, 0x01, 0x01, 0x00, 0x00, 0x00, 0x64, /* BTH */
    0x74, 0x00, 0x00, 0x03,                                                 /* AETH */
};
/* clang-format on */

/* Decode a hand-written transport part wrapped in v2_head. */
static void dec_hand(const uint8_t *roce, size_t n, struct roce_pkt *pkt)
{
    uint8_t f[256];
    size_t len = wrap_v2(roce, n, f);
    td_dec(ROCE_LINKTYPE_ETHERNET, f, len, len, pkt);
    CU_ASSERT_EQUAL(pkt->cls, ROCE_CLASS_ROCE);
    CU_ASSERT_EQUAL(pkt->version, 2);
    CU_ASSERT_EQUAL(pkt->bth_off, V2_HEAD);
    CU_ASSERT_EQUAL(pkt->end_off, len);
    CU_ASSERT_EQUAL(pkt->icrc_status, ROCE_ICRC_GOOD);
}

static void test_bth_fields(void)
{
    struct roce_pkt p;
    dec_hand(rd_write_imm, sizeof rd_write_imm, &p);
    CU_ASSERT_EQUAL(p.opcode, 0x4B);
    CU_ASSERT_EQUAL(p.se, 1);
    CU_ASSERT_EQUAL(p.mig, 1);
    CU_ASSERT_EQUAL(p.padcnt, 0);
    CU_ASSERT_EQUAL(p.tver, 0);
    CU_ASSERT_EQUAL(p.pkey, 0x8001);
    CU_ASSERT_EQUAL(p.fecn, 1);
    CU_ASSERT_EQUAL(p.becn, 0);
    CU_ASSERT_EQUAL(p.dqpn, 0xFEDCBA);
    CU_ASSERT_EQUAL(p.ackreq, 1);
    CU_ASSERT_EQUAL(p.psn, 0xABCDEF);
    CU_ASSERT_EQUAL(p.bth_captured, 1);

    dec_hand(xrc_write_imm, sizeof xrc_write_imm, &p);
    CU_ASSERT_EQUAL(p.se, 0);
    CU_ASSERT_EQUAL(p.mig, 0);
    CU_ASSERT_EQUAL(p.padcnt, 3);
    CU_ASSERT_EQUAL(p.pkey, 0xFFFF);
    CU_ASSERT_EQUAL(p.fecn, 0);
    CU_ASSERT_EQUAL(p.becn, 1);
    CU_ASSERT_EQUAL(p.dqpn, 0x000102);
    CU_ASSERT_EQUAL(p.ackreq, 0);
    CU_ASSERT_EQUAL(p.psn, 0);
}

#define H_RDETH  ROCE_HDR_RDETH
#define H_DETH   ROCE_HDR_DETH
#define H_XRCETH ROCE_HDR_XRCETH
#define H_FETH   ROCE_HDR_FETH
#define H_RETH   ROCE_HDR_RETH
#define H_ATOM   ROCE_HDR_ATOMICETH
#define H_AETH   ROCE_HDR_AETH
#define H_AACK   ROCE_HDR_ATOMICACKETH
#define H_IMM    ROCE_HDR_IMMDT
#define H_IETH   ROCE_HDR_IETH
#define H_CNP    ROCE_HDR_CNP_RSVD

/* What each hand-written transport part decodes to, from its comment above:
 * opcode, headers, pad count, payload offset (from the BTH) and length, and
 * the fields of each header. */
/* clang-format off */
static const struct hand_case {
    const char *name;
    const uint8_t *roce;
    size_t len;
    struct roce_pkt want; /* payload_off relative to the BTH */
} hand_cases[] = {
    {"rd_write_imm", rd_write_imm, sizeof rd_write_imm,
     {.opcode = 0x4B, .hdrs = H_RDETH | H_DETH | H_RETH | H_IMM, .payload_off = 12 + 32,
      .payload_len = 4, .rdeth_eecnxt = 0x0A0B0C, .deth_qkey = 0x11223344u,
      .deth_srcqp = 0x556677, .reth_va = 0x0102030405060708ull, .reth_rkey = 0x090A0B0Cu,
      .reth_dma_len = 0x1000, .immdt = 0xDEADBEEFu}},
    {"xrc_write_imm", xrc_write_imm, sizeof xrc_write_imm,
     {.opcode = 0xAB, .hdrs = H_XRCETH | H_RETH | H_IMM, .padcnt = 3, .payload_off = 12 + 24,
      .payload_len = 1, .xrceth_srqn = 0x123456, .reth_va = 0xFFEEDDCCBBAA9988ull,
      .reth_rkey = 0x77665544u, .reth_dma_len = 1, .immdt = 0x01020304u}},
    {"rc_cmp_swap", rc_cmp_swap, sizeof rc_cmp_swap,
     {.opcode = 0x13, .hdrs = H_ATOM, .payload_off = 12 + 28, .payload_len = 0,
      .atomic_va = 0x1000200030004000ull, .atomic_rkey = 0xA1B2C3D4u,
      .atomic_swap_add = 0x1111222233334444ull, .atomic_cmp = 0x5555666677778888ull}},
    {"rc_atomic_ack", rc_atomic_ack, sizeof rc_atomic_ack,
     {.opcode = 0x12, .hdrs = H_AETH | H_AACK, .payload_off = 12 + 12, .payload_len = 0,
      .aeth_syndrome = 0x1F, .aeth_msn = 0x000102, .atomicack_orig = 0xCAFEBABE01020304ull}},
    {"rc_send_inv", rc_send_inv, sizeof rc_send_inv,
     {.opcode = 0x16, .hdrs = H_IETH, .padcnt = 2, .payload_off = 12 + 4, .payload_len = 2,
      .ieth_rkey = 0x0BADF00Du}},
    {"xrc_flush", xrc_flush, sizeof xrc_flush,
     {.opcode = 0xBC, .hdrs = H_XRCETH | H_FETH | H_RETH, .payload_off = 12 + 24,
      .payload_len = 0, .xrceth_srqn = 0x77, .feth = 0x13, .reth_va = 0x1000,
      .reth_rkey = 0xABC, .reth_dma_len = 0x40}},
    {"ud_send_imm", ud_send_imm, sizeof ud_send_imm,
     {.opcode = 0x65, .hdrs = H_DETH | H_IMM, .payload_off = 12 + 12, .payload_len = 4,
      .deth_qkey = 0x80010000u, .deth_srcqp = 0x66, .immdt = 0x00C0FFEEu}},
    {"rd_read_first", rd_read_first, sizeof rd_read_first,
     {.opcode = 0x4D, .hdrs = H_RDETH | H_AETH, .payload_off = 12 + 8, .payload_len = 8,
      .rdeth_eecnxt = 0x99, .aeth_syndrome = 0x05, .aeth_msn = 0x10}},
    {"cnp", cnp, sizeof cnp,
     {.opcode = 0x81, .hdrs = H_CNP, .payload_off = 12 + 16, .payload_len = 0}},
    {"rc_nak_reserved", rc_nak_reserved, sizeof rc_nak_reserved,
     {.opcode = 0x11, .hdrs = H_AETH, .payload_off = 12 + 4, .payload_len = 0,
      .aeth_syndrome = 0x74, .aeth_msn = 3}},
};
/* clang-format on */

static void test_extension_headers(void)
{
    for (size_t i = 0; i < sizeof hand_cases / sizeof hand_cases[0]; i++) {
        const struct hand_case *hc = &hand_cases[i];
        const struct roce_pkt *w = &hc->want;
        struct roce_pkt p;
        int ok = 1;
        dec_hand(hc->roce, hc->len, &p);
        ok = p.opcode == w->opcode && p.hdrs == w->hdrs && p.hdrs_captured == w->hdrs &&
             p.padcnt == w->padcnt && p.payload_off - p.bth_off == w->payload_off &&
             p.payload_len == w->payload_len;
        for (unsigned h = 1; h < (1u << MAX_HDRS); h <<= 1)
            if (w->hdrs & h)
                ok = ok && td_same_hdr_fields(&p, w, h);
        if (!ok)
            fprintf(stderr, "  %s: decoded differently\n", hc->name);
        CU_ASSERT_TRUE(ok);
    }
}

static void test_real_cnp(void)
{
    struct roce_pkt p;
    td_dec(ROCE_LINKTYPE_ETHERNET, tu_real_cnp, TU_REAL_CNP_LEN, TU_REAL_CNP_LEN, &p);
    CU_ASSERT_EQUAL(p.cls, ROCE_CLASS_ROCE);
    CU_ASSERT_EQUAL(p.dqpn, 0x118);
    CU_ASSERT_EQUAL(p.dscp, 48);
    CU_ASSERT_EQUAL(p.ecn, 2);
    CU_ASSERT_EQUAL(p.udp_sport, 0);
}

static void test_aeth_classes(void)
{
    /* PROTOCOL.md "AETH": bits 6:5 type, bit 7 reserved */
    CU_ASSERT_EQUAL(roce_aeth_type(0x1F), ROCE_AETH_ACK);
    CU_ASSERT_EQUAL(roce_aeth_type(0x2E), ROCE_AETH_RNR_NAK);
    CU_ASSERT_EQUAL(roce_aeth_value(0x2E), 14);
    CU_ASSERT_EQUAL(roce_aeth_type(0x40), ROCE_AETH_RESERVED);
    CU_ASSERT_EQUAL(roce_aeth_type(0x60), ROCE_AETH_NAK);
    CU_ASSERT_EQUAL(roce_aeth_type(0xE0), ROCE_AETH_NAK); /* bit 7 ignored */
    CU_ASSERT_STRING_EQUAL(roce_nak_code_name(0), "psn_sequence_error");
    CU_ASSERT_STRING_EQUAL(roce_nak_code_name(1), "invalid_request");
    CU_ASSERT_STRING_EQUAL(roce_nak_code_name(2), "remote_access_error");
    CU_ASSERT_STRING_EQUAL(roce_nak_code_name(3), "remote_operational_error");
    CU_ASSERT_STRING_EQUAL(roce_nak_code_name(4), "invalid_rd_request");
    CU_ASSERT_STRING_EQUAL(roce_nak_code_name(5), "reserved_code");
    CU_ASSERT_STRING_EQUAL(roce_nak_code_name(0x14), "reserved_code");
}

/* RNR timer codes in ms, as PROTOCOL.md "AETH" lists them, times 100. */
static void test_rnr_timer(void)
{
    static const uint32_t ms_x100[32] = {
        65536, 1,    2,    3,    4,    6,     8,     12,    16,    24,    32,
        48,    64,   96,   128,  192,  256,   384,   512,   768,   1024,  1536,
        2048,  3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152,
    };
    unsigned wrong = 0;
    for (unsigned c = 0; c < 32; c++)
        wrong += roce_rnr_timer_10us(c) != ms_x100[c];
    CU_ASSERT_EQUAL(wrong, 0);
}

/* Every one of the 256 opcodes, built with 8 payload bytes, over RoCEv2
 * and over native InfiniBand: a defined one decodes as RoCE with all its
 * headers and the payload where they end; an undefined one (on that link:
 * the CNP of the other) is malformed. */
static void test_every_opcode_roundtrip(void)
{
    unsigned wrong = 0;
    for (int ib = 0; ib <= 1; ib++)
        for (unsigned oc = 0; oc < 256; oc++) {
            uint8_t f[RG_MAX_FRAME];
            struct rg_layout lay;
            struct rg_spec s;
            struct roce_pkt p;
            rg_spec_init(&s);
            if (ib) {
                s.linktype = RG_LINKTYPE_INFINIBAND;
                s.kind = RG_KIND_IB;
            }
            s.opcode = (uint8_t)oc;
            s.payload_len = 8;
            size_t n = td_build(&s, f, &lay);
            td_dec(s.linktype, f, n, n, &p);
            const struct roce_opcode_info *op = roce_opcode_lookup_on((uint8_t)oc, ib);
            int ok = p.opcode == oc && p.bth_captured && p.op == op &&
                     p.version == (ib ? ROCE_VERSION_IB : ROCE_VERSION_2) &&
                     (!ib || p.vcrc_status == ROCE_ICRC_GOOD);
            if (op == NULL)
                ok = ok && p.cls == ROCE_CLASS_MALFORMED && p.malformed == ROCE_MAL_OPCODE;
            else
                ok = ok && p.cls == ROCE_CLASS_ROCE && p.hdrs_captured == op->hdrs &&
                     p.payload_off == lay.payload_off && p.payload_len == 8 &&
                     p.icrc_status == ROCE_ICRC_GOOD;
            if (!ok)
                fprintf(stderr, "  %s opcode 0x%02X: cls %u\n", ib ? "InfiniBand" : "RoCEv2", oc,
                        p.cls);
            wrong += !ok;
        }
    CU_ASSERT_EQUAL(wrong, 0);
}

static void test_cuts_hand_written(void)
{
    static const struct {
        const uint8_t *roce;
        size_t len;
    } frames[] = {
        {rd_write_imm, sizeof rd_write_imm},
        {xrc_write_imm, sizeof xrc_write_imm},
        {rc_cmp_swap, sizeof rc_cmp_swap},
        {rc_atomic_ack, sizeof rc_atomic_ack},
        {rc_send_inv, sizeof rc_send_inv},
        {xrc_flush, sizeof xrc_flush},
        {ud_send_imm, sizeof ud_send_imm},
        {rd_read_first, sizeof rd_read_first},
        {cnp, sizeof cnp},
    };
    for (size_t i = 0; i < sizeof frames / sizeof frames[0]; i++) {
        uint8_t f[256];
        size_t n = wrap_v2(frames[i].roce, frames[i].len, f);
        td_check_every_cut(ROCE_LINKTYPE_ETHERNET, f, n, V2_HEAD);
    }
}

const struct tu_test decode_bth_tests[] = {
    {"bth_fields", test_bth_fields},
    {"extension_headers", test_extension_headers},
    {"every_opcode_roundtrip", test_every_opcode_roundtrip},
    {"real_cnp", test_real_cnp},
    {"aeth_classes", test_aeth_classes},
    {"rnr_timer", test_rnr_timer},
    {"cuts_hand_written", test_cuts_hand_written},
    TU_END,
};
