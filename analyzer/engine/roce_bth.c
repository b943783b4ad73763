/*
 * roce_bth.c - the transport: BTH and extension headers (IBTA Vol. 1 9.2,
 * 9.3), checked against the lengths the network layer declares, and the
 * ICRC (roce_icrc.c).
 *
 *   RDETH  | resv(8) | EE context(24) |
 *   DETH   | Q_Key(32) | resv(8) | source QP(24) |
 *   XRCETH | resv(8) | XRC SRQ(24) |
 *   FETH   | resv(26) | SEL(2) | PLT(4) |          (kept raw)
 *   RETH   | VA(64) | R_Key(32) | DMA length(32) |
 *   AtomicETH | VA(64) | R_Key(32) | swap/add(64) | compare(64) |
 *   AETH   | syndrome(8) | MSN(24) |
 *   AtomicAckETH | original remote data(64) |
 *   ImmDt  | immediate(32) |     IETH | R_Key(32) |
 */
#include "roce_bth.h"

#include "roce_extract.h"
#include "roce_icrc.h"
#include "roce_verdict.h"

#define UDP_SPORT_LEN 2 /* the UDP source port, first in the UDP header */
#define IPV4_ID_OFF   4 /* the IPv4 identification */
#define IPV4_ID_END   6

void roce_bth_decode(const uint8_t *bth, struct roce_pkt *pkt)
{
    uint8_t flags = bth[ROCE_BTH_FLAGS_OFF];
    uint8_t fb = bth[ROCE_BTH_FB_OFF];

    pkt->opcode = bth[ROCE_BTH_OPCODE_OFF];
    pkt->se = (flags & ROCE_BTH_SE_BIT) != 0;
    pkt->mig = (flags & ROCE_BTH_M_BIT) != 0;
    pkt->padcnt = (flags >> ROCE_BTH_PAD_SHIFT) & ROCE_BTH_PAD_MASK;
    pkt->tver = flags & ROCE_BTH_TVER_MASK;
    pkt->pkey = roce_get_be16(bth, ROCE_BTH_PKEY_OFF);
    pkt->fecn = (fb & ROCE_BTH_FECN_BIT) != 0;
    pkt->becn = (fb & ROCE_BTH_BECN_BIT) != 0;
    pkt->dqpn = roce_get_be24(bth, ROCE_BTH_DQPN_OFF);
    pkt->ackreq = (bth[ROCE_BTH_ACKREQ_OFF] & ROCE_BTH_ACKREQ_BIT) != 0;
    pkt->psn = roce_get_be24(bth, ROCE_BTH_PSN_OFF);
    pkt->op = roce_opcode_lookup_on(pkt->opcode, pkt->version == ROCE_VERSION_IB);
    pkt->hdrs = pkt->op != NULL ? pkt->op->hdrs : 0;
}

/* Walk the extension headers of pkt in wire order; decode each one that is
 * entirely captured (the rest stay unset: hdrs_captured says which are). */
void roce_ext_decode(const uint8_t *p, size_t caplen, struct roce_pkt *pkt)
{
    size_t o = pkt->bth_off + ROCE_BTH_LEN;
    unsigned hdrs = pkt->hdrs;

#define EXT(name, body)                                                                            \
    if (hdrs & ROCE_HDR_##name) {                                                                  \
        if (!roce_fits(caplen, o, ROCE_##name##_LEN))                                              \
            return;                                                                                \
        body;                                                                                      \
        pkt->hdrs_captured |= ROCE_HDR_##name;                                                     \
        o += ROCE_##name##_LEN;                                                                    \
    }
    EXT(RDETH, pkt->rdeth_eecnxt = roce_get_be24(p, o + 1))
    EXT(DETH, {
        pkt->deth_qkey = roce_get_be32(p, o);
        pkt->deth_srcqp = roce_get_be24(p, o + 5);
    })
    EXT(XRCETH, pkt->xrceth_srqn = roce_get_be24(p, o + 1))
    EXT(FETH, pkt->feth = roce_get_be32(p, o))
    EXT(RETH, {
        pkt->reth_va = roce_get_be64(p, o);
        pkt->reth_rkey = roce_get_be32(p, o + 8);
        pkt->reth_dma_len = roce_get_be32(p, o + 12);
    })
    EXT(ATOMICETH, {
        pkt->atomic_va = roce_get_be64(p, o);
        pkt->atomic_rkey = roce_get_be32(p, o + 8);
        pkt->atomic_swap_add = roce_get_be64(p, o + 12);
        pkt->atomic_cmp = roce_get_be64(p, o + 20);
    })
    EXT(AETH, {
        pkt->aeth_syndrome = p[o];
        pkt->aeth_msn = roce_get_be24(p, o + 1);
    })
    EXT(ATOMICACKETH, pkt->atomicack_orig = roce_get_be64(p, o))
    EXT(IMMDT, pkt->immdt = roce_get_be32(p, o))
    EXT(IETH, pkt->ieth_rkey = roce_get_be32(p, o))
    EXT(CNP_RSVD, (void)0)
#undef EXT
}

/* A bad RoCEv2 ICRC that another UDP source port, or IPv4 identification,
 * would make good: the field was rewritten on the way (a sniffer or mirror
 * that writes it), not the frame corrupted. The ICRC computation covers 8
 * bytes of ones, the IP header, then the UDP header and the rest up to the
 * ICRC: the source port's two bytes are followed by icrc_off - l4_off - 2
 * of them, the IPv4 identification's (at offset 4) by l3_hdr_len - 6 more. */
static void icrc_rewrite(const uint8_t *p, size_t icrc_off, uint32_t calc, uint32_t wire,
                         struct roce_pkt *pkt)
{
    size_t rest = icrc_off - pkt->l4_off;
    uint16_t x;
    if (rest >= UDP_SPORT_LEN && roce_icrc_solve_field(calc, wire, rest - UDP_SPORT_LEN, &x)) {
        pkt->icrc_rewrite = ROCE_REWRITE_UDP_SPORT;
        pkt->icrc_rewrite_value = (uint16_t)(pkt->udp_sport ^ x);
    } else if (pkt->af == ROCE_AF_IPV4 &&
               roce_icrc_solve_field(calc, wire, pkt->l3_hdr_len - IPV4_ID_END + rest, &x)) {
        pkt->icrc_rewrite = ROCE_REWRITE_IPV4_ID;
        pkt->icrc_rewrite_value = (uint16_t)(roce_get_be16(p, pkt->l3_off + IPV4_ID_OFF) ^ x);
    }
}

void roce_transport_decode(const struct roce_decode_cfg *cfg, const uint8_t *p, size_t caplen,
                           size_t declared, struct roce_pkt *pkt)
{
    pkt->cls = ROCE_CLASS_ROCE;
    if (declared < ROCE_BTH_LEN) {
        pkt->cls = ROCE_CLASS_MALFORMED;
        pkt->malformed = ROCE_MAL_SHORT_BTH;
        return;
    }
    pkt->end_off = (uint32_t)(pkt->bth_off + declared);
    if (!roce_fits(caplen, pkt->bth_off, ROCE_BTH_LEN))
        return; /* RoCE, but the snaplen cut the BTH */
    roce_bth_decode(p + pkt->bth_off, pkt);
    pkt->bth_captured = 1;
    if (pkt->op == NULL) {
        pkt->cls = ROCE_CLASS_MALFORMED;
        pkt->malformed = ROCE_MAL_OPCODE;
        return;
    }
    unsigned hlen = pkt->op->hdrs_len;
    if (declared < ROCE_BTH_LEN + hlen + ROCE_ICRC_LEN) {
        pkt->cls = ROCE_CLASS_MALFORMED;
        pkt->malformed = ROCE_MAL_SHORT_HDRS;
        return;
    }
    size_t body = declared - ROCE_BTH_LEN - hlen - ROCE_ICRC_LEN;
    if (pkt->padcnt > body) {
        pkt->cls = ROCE_CLASS_MALFORMED;
        pkt->malformed = ROCE_MAL_PAD;
        return;
    }
    pkt->payload_off = pkt->bth_off + ROCE_BTH_LEN + hlen;
    pkt->payload_len = (uint32_t)(body - pkt->padcnt);
    roce_ext_decode(p, caplen, pkt);

    if (cfg->check_icrc && pkt->end_off <= caplen) {
        size_t icrc_off = pkt->end_off - ROCE_ICRC_LEN;
        uint32_t calc =
            pkt->version == ROCE_VERSION_IB
                ? roce_icrc_ib_compute(p + pkt->lrh_off, pkt->has_grh, icrc_off - pkt->lrh_off)
                : roce_icrc_compute(p + pkt->l3_off, pkt->l3_hdr_len, pkt->af == ROCE_AF_IPV6,
                                    pkt->version == ROCE_VERSION_2, p + pkt->l4_off,
                                    icrc_off - pkt->l4_off);
        uint32_t wire = roce_get_le32(p, icrc_off);
        pkt->icrc_status = wire == calc ? ROCE_ICRC_GOOD : ROCE_ICRC_BAD;
        /* both as Wireshark shows the field: the bytes in wire order, big-endian */
        pkt->icrc_wire = roce_get_be32(p, icrc_off);
        pkt->icrc_calc = roce_icrc_wire_value(calc);
        if (pkt->icrc_status == ROCE_ICRC_BAD && pkt->version == ROCE_VERSION_2)
            icrc_rewrite(p, icrc_off, calc, wire, pkt);
    }
}

/* NAK codes (IBTA Vol. 1 9.7.5.2.4 / Table 43). */
static const struct {
    const char *ident;
    const char *text;
} nak_codes[ROCE_NAK_CODES] = {
    [ROCE_NAK_PSN_SEQUENCE_ERROR] = {"psn_sequence_error", "PSN sequence error"},
    [ROCE_NAK_INVALID_REQUEST] = {"invalid_request", "invalid request"},
    [ROCE_NAK_REMOTE_ACCESS_ERROR] = {"remote_access_error", "remote access error"},
    [ROCE_NAK_REMOTE_OPERATIONAL_ERROR] = {"remote_operational_error", "remote operational error"},
    [ROCE_NAK_INVALID_RD_REQUEST] = {"invalid_rd_request", "invalid RD request"},
};

const char *roce_nak_code_name(unsigned code)
{
    return code < ROCE_NAK_CODES ? nak_codes[code].ident : "reserved_code";
}

const char *roce_nak_code_text(unsigned code)
{
    return code < ROCE_NAK_CODES ? nak_codes[code].text : "reserved code";
}

/* RNR NAK timer field encoding (IBTA Vol. 1 9.7.5.2.8 Table 45), in 10 us units. */
static const uint32_t rnr_timer_10us[32] = {
    65536, 1,    2,    3,    4,    6,     8,     12,    16,    24,    32,
    48,    64,   96,   128,  192,  256,   384,   512,   768,   1024,  1536,
    2048,  3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152,
};

uint32_t roce_rnr_timer_10us(unsigned code)
{
    return rnr_timer_10us[code & ROCE_AETH_VALUE_MASK];
}
