/*
 * test_opcode.c - the BTH opcode table (roce_opcode.h).
 *
 * The expectation is written here from PROTOCOL.md "Opcodes", not copied from
 * the engine: one row per operation (opcode bits 4:0) with its headers, the
 * operations each transport (bits 7:5) defines, and the headers a transport
 * adds. Every one of the 256 opcodes is checked against it; undefined ones
 * must look up as NULL. Header sizes and wire order: PROTOCOL.md "Header
 * sizes", IBTA Vol. 1 9.2 (RDETH, DETH, XRCETH, [FETH], RETH, AtomicETH, AETH,
 * AtomicAckETH, ImmDt, IETH).
 */
#include <stdio.h>

#include "roce_opcode.h"
#include "test_util.h"

#define RDETH  ROCE_HDR_RDETH
#define DETH   ROCE_HDR_DETH
#define XRCETH ROCE_HDR_XRCETH
#define FETH   ROCE_HDR_FETH
#define RETH   ROCE_HDR_RETH
#define ATOM   ROCE_HDR_ATOMICETH
#define AETH   ROCE_HDR_AETH
#define AACK   ROCE_HDR_ATOMICACKETH
#define IMM    ROCE_HDR_IMMDT
#define IETH   ROCE_HDR_IETH
#define CNPR   ROCE_HDR_CNP_RSVD

enum pos {
    FIRST = ROCE_OPF_FIRST,
    MIDDLE = ROCE_OPF_MIDDLE,
    LAST = ROCE_OPF_LAST,
    ONLY = ROCE_OPF_ONLY
};

/* PROTOCOL.md "Opcodes": bits 4:0 the operation. resp: a response packet (ANALYSIS.md). */
static const struct {
    unsigned hdrs;
    unsigned pos;
    unsigned resp;
} op_row[32] = {
    [0x00] = {0, FIRST, 0},          /* SEND First */
    [0x01] = {0, MIDDLE, 0},         /* SEND Middle */
    [0x02] = {0, LAST, 0},           /* SEND Last */
    [0x03] = {IMM, LAST, 0},         /* SEND Last with Immediate */
    [0x04] = {0, ONLY, 0},           /* SEND Only */
    [0x05] = {IMM, ONLY, 0},         /* SEND Only with Immediate */
    [0x06] = {RETH, FIRST, 0},       /* RDMA WRITE First */
    [0x07] = {0, MIDDLE, 0},         /* RDMA WRITE Middle */
    [0x08] = {0, LAST, 0},           /* RDMA WRITE Last */
    [0x09] = {IMM, LAST, 0},         /* RDMA WRITE Last with Immediate */
    [0x0A] = {RETH, ONLY, 0},        /* RDMA WRITE Only */
    [0x0B] = {RETH | IMM, ONLY, 0},  /* RDMA WRITE Only with Immediate */
    [0x0C] = {RETH, ONLY, 0},        /* RDMA READ Request */
    [0x0D] = {AETH, FIRST, 1},       /* RDMA READ Response First */
    [0x0E] = {0, MIDDLE, 1},         /* RDMA READ Response Middle */
    [0x0F] = {AETH, LAST, 1},        /* RDMA READ Response Last */
    [0x10] = {AETH, ONLY, 1},        /* RDMA READ Response Only */
    [0x11] = {AETH, ONLY, 1},        /* Acknowledge */
    [0x12] = {AETH | AACK, ONLY, 1}, /* ATOMIC Acknowledge */
    [0x13] = {ATOM, ONLY, 0},        /* CmpSwap */
    [0x14] = {ATOM, ONLY, 0},        /* FetchAdd */
    [0x15] = {0, ONLY, 0},           /* RD RESYNC */
    [0x16] = {IETH, LAST, 0},        /* SEND Last with Invalidate */
    [0x17] = {IETH, ONLY, 0},        /* SEND Only with Invalidate */
    [0x1C] = {FETH | RETH, ONLY, 0}, /* FLUSH */
    [0x1D] = {RETH, ONLY, 0},        /* ATOMIC WRITE */
};

#define OPS(lo, hi) ((uint32_t)((2ull << (hi)) - (1ull << (lo)))) /* operations lo..hi */
#define OP(x)       (1u << (x))

/* Operations defined per transport. 0x15 is RESYNC, which only RD has. */
static uint32_t ops_of(unsigned transport)
{
    switch (transport) {
    case ROCE_TRANSPORT_RC:
    case ROCE_TRANSPORT_XRC:
        return OPS(0x00, 0x14) | OP(0x16) | OP(0x17) | OP(0x1C) | OP(0x1D);
    case ROCE_TRANSPORT_UC:
        return OPS(0x00, 0x0B);
    case ROCE_TRANSPORT_RD:
        return OPS(0x00, 0x15);
    case ROCE_TRANSPORT_UD:
        return OP(0x04) | OP(0x05);
    case ROCE_TRANSPORT_CNP:
        return OP(0x00) | OP(0x01); /* 0x80 InfiniBand, 0x81 RoCEv2 */
    default:
        return 0;
    }
}

/* Headers an opcode carries: the operation's, plus what its transport adds. */
static unsigned expected_hdrs(unsigned opcode)
{
    unsigned t = opcode >> 5, op = opcode & 0x1F;
    unsigned h = op_row[op].hdrs;
    switch (t) {
    case ROCE_TRANSPORT_RD:
        return RDETH | (op_row[op].resp ? 0 : DETH) | h;
    case ROCE_TRANSPORT_UD:
        return DETH | h;
    case ROCE_TRANSPORT_XRC:
        return (op_row[op].resp ? 0 : XRCETH) | h;
    case ROCE_TRANSPORT_CNP:
        return op == 0x01 ? CNPR : 0; /* the RoCEv2 CNP's 16 reserved bytes */
    default:
        return h;
    }
}

static unsigned expected_kind(unsigned opcode)
{
    if (opcode >> 5 == ROCE_TRANSPORT_CNP)
        return ROCE_KIND_CNP;
    if ((opcode & 0x1F) == 0x15)
        return ROCE_KIND_OTHER;
    return op_row[opcode & 0x1F].resp ? ROCE_KIND_RESPONSE : ROCE_KIND_REQUEST;
}

static int defined(unsigned opcode)
{
    return (ops_of(opcode >> 5) >> (opcode & 0x1F)) & 1u;
}

static void test_every_opcode_headers(void)
{
    unsigned wrong = 0, n_defined = 0;
    for (unsigned oc = 0; oc < 256; oc++) {
        const struct roce_opcode_info *info = roce_opcode_lookup((uint8_t)oc);
        if (!defined(oc)) {
            if (info != NULL) {
                wrong++;
                fprintf(stderr, "opcode 0x%02X: defined in the engine, not in PROTOCOL.md\n",
                        oc);
            }
            continue;
        }
        n_defined++;
        if (info == NULL) {
            wrong++;
            fprintf(stderr, "opcode 0x%02X: missing\n", oc);
            continue;
        }
        if (info->hdrs != expected_hdrs(oc) || info->kind != expected_kind(oc) ||
            info->name == NULL || info->ident == NULL) {
            wrong++;
            fprintf(stderr, "opcode 0x%02X: hdrs 0x%03X (want 0x%03X) kind %u (want %u)\n", oc,
                    info->hdrs, expected_hdrs(oc), info->kind, expected_kind(oc));
        }
    }
    CU_ASSERT_EQUAL(wrong, 0);
    /* RC 25 + UC 12 + RD 22 + UD 2 + XRC 25 + CNP 2 */
    CU_ASSERT_EQUAL(n_defined, 88);
}

static void test_position_flags(void)
{
    const unsigned pos_mask = ROCE_OPF_FIRST | ROCE_OPF_MIDDLE | ROCE_OPF_LAST | ROCE_OPF_ONLY;
    unsigned wrong = 0;
    for (unsigned oc = 0; oc < 256; oc++) {
        const struct roce_opcode_info *info = roce_opcode_lookup((uint8_t)oc);
        if (info == NULL || info->kind == ROCE_KIND_CNP)
            continue;
        wrong += (info->flags & pos_mask) != op_row[oc & 0x1F].pos;
    }
    CU_ASSERT_EQUAL(wrong, 0);
}

static void test_analysis_flags(void)
{
    /* what the sequence analysis keys on */
    CU_ASSERT(roce_opcode_lookup(0x0C)->flags & ROCE_OPF_READ_REQ);
    CU_ASSERT(roce_opcode_lookup(0x4C)->flags & ROCE_OPF_READ_REQ);
    CU_ASSERT(roce_opcode_lookup(0xAC)->flags & ROCE_OPF_READ_REQ);
    for (unsigned oc = 0x0D; oc <= 0x10; oc++)
        CU_ASSERT(roce_opcode_lookup((uint8_t)oc)->flags & ROCE_OPF_READ_RESP);
    CU_ASSERT(roce_opcode_lookup(0x11)->flags & ROCE_OPF_ACK);
    CU_ASSERT(roce_opcode_lookup(0x12)->flags & ROCE_OPF_ACK);
    CU_ASSERT_FALSE(roce_opcode_lookup(0x04)->flags & (ROCE_OPF_READ_REQ | ROCE_OPF_ACK));
    CU_ASSERT(roce_opcode_lookup(0x04)->flags & ROCE_OPF_PAYLOAD);
    CU_ASSERT_FALSE(roce_opcode_lookup(0x0C)->flags & ROCE_OPF_PAYLOAD);
    CU_ASSERT_FALSE(roce_opcode_lookup(0x11)->flags & ROCE_OPF_PAYLOAD);
}

/* The two CNPs: 0x80 on native InfiniBand only (IBA Vol. 1 Annex A10), 0x81
 * on RoCE only (Annex A17); every other opcode on both. */
static void test_cnp_per_link(void)
{
    unsigned wrong = 0;
    for (unsigned oc = 0; oc < 256; oc++) {
        const struct roce_opcode_info *any = roce_opcode_lookup((uint8_t)oc);
        const struct roce_opcode_info *ib = roce_opcode_lookup_on((uint8_t)oc, 1);
        const struct roce_opcode_info *roce = roce_opcode_lookup_on((uint8_t)oc, 0);
        if (oc == 0x80)
            wrong += ib != any || roce != NULL || any == NULL;
        else if (oc == 0x81)
            wrong += roce != any || ib != NULL || any == NULL;
        else
            wrong += ib != any || roce != any;
    }
    CU_ASSERT_EQUAL(wrong, 0);
    CU_ASSERT_EQUAL(roce_opcode_lookup(0x80)->kind, ROCE_KIND_CNP);
    CU_ASSERT_EQUAL(roce_opcode_lookup(0x80)->hdrs_len, 0);
    CU_ASSERT_EQUAL(roce_opcode_lookup(0x81)->hdrs_len, 16);
}

static void test_unknown_opcodes(void)
{
    /* a few named ones on top of the sweep above */
    CU_ASSERT_PTR_NULL(roce_opcode_lookup(0x15)); /* RESYNC on RC */
    CU_ASSERT_PTR_NULL(roce_opcode_lookup(0x18));
    CU_ASSERT_PTR_NULL(roce_opcode_lookup(0x1F));
    CU_ASSERT_PTR_NULL(roce_opcode_lookup(0x2C)); /* UC READ */
    CU_ASSERT_PTR_NULL(roce_opcode_lookup(0x60)); /* UD SEND First */
    CU_ASSERT_PTR_NULL(roce_opcode_lookup(0xB5));
    CU_ASSERT_PTR_NULL(roce_opcode_lookup(0xC0));
    CU_ASSERT_PTR_NULL(roce_opcode_lookup(0xFF));
    CU_ASSERT_PTR_NOT_NULL(roce_opcode_lookup(0x81));
}

static void test_transport(void)
{
    CU_ASSERT_EQUAL(roce_opcode_transport(0x04), ROCE_TRANSPORT_RC);
    CU_ASSERT_EQUAL(roce_opcode_transport(0x24), ROCE_TRANSPORT_UC);
    CU_ASSERT_EQUAL(roce_opcode_transport(0x44), ROCE_TRANSPORT_RD);
    CU_ASSERT_EQUAL(roce_opcode_transport(0x64), ROCE_TRANSPORT_UD);
    CU_ASSERT_EQUAL(roce_opcode_transport(0x81), ROCE_TRANSPORT_CNP);
    CU_ASSERT_EQUAL(roce_opcode_transport(0xA4), ROCE_TRANSPORT_XRC);
    CU_ASSERT_STRING_EQUAL(roce_transport_name(ROCE_TRANSPORT_RC), "RC");
    CU_ASSERT_STRING_EQUAL(roce_transport_name(ROCE_TRANSPORT_XRC), "XRC");
    CU_ASSERT_STRING_EQUAL(roce_transport_name(ROCE_TRANSPORT_NONE), "none");
    CU_ASSERT_STRING_EQUAL(roce_transport_name((enum roce_transport)6), "none"); /* unassigned */
}

/* Header sizes in wire order (PROTOCOL.md "Header sizes"; FETH precedes RETH in FLUSH). */
static const struct {
    unsigned hdr, len;
} wire[] = {
    {RDETH, 4}, {DETH, 8}, {XRCETH, 4}, {FETH, 4}, {RETH, 16}, {ATOM, 28},
    {AETH, 4},  {AACK, 8}, {IMM, 4},    {IETH, 4}, {CNPR, 16},
};
#define N_WIRE (sizeof wire / sizeof wire[0])

static void test_hdrs_len(void)
{
    unsigned all = 0, sum = 0;
    CU_ASSERT_EQUAL(roce_hdrs_len(0), 0);
    for (size_t i = 0; i < N_WIRE; i++) {
        CU_ASSERT_EQUAL(roce_hdrs_len(wire[i].hdr), wire[i].len);
        all |= wire[i].hdr;
        sum += wire[i].len;
    }
    CU_ASSERT_EQUAL(sum, 100);
    CU_ASSERT_EQUAL(roce_hdrs_len(all), sum);
    CU_ASSERT_EQUAL(roce_hdrs_len(RDETH | DETH | RETH | IMM), 32);
    CU_ASSERT_EQUAL(roce_hdrs_len(AETH | AACK), 12);
    CU_ASSERT_EQUAL(ROCE_HDR_COUNT, N_WIRE);
    CU_ASSERT_EQUAL(ROCE_HDRS_LEN(RETH | IMM), 20); /* the compile-time form */
}

static void test_hdr_offset(void)
{
    /* named cases */
    CU_ASSERT_EQUAL(roce_hdr_offset(RDETH | DETH | RETH | IMM, RDETH), 0);
    CU_ASSERT_EQUAL(roce_hdr_offset(RDETH | DETH | RETH | IMM, DETH), 4);
    CU_ASSERT_EQUAL(roce_hdr_offset(RDETH | DETH | RETH | IMM, RETH), 12);
    CU_ASSERT_EQUAL(roce_hdr_offset(RDETH | DETH | RETH | IMM, IMM), 28);
    CU_ASSERT_EQUAL(roce_hdr_offset(XRCETH | FETH | RETH, RETH), 8);
    CU_ASSERT_EQUAL(roce_hdr_offset(AETH | AACK, AACK), 4);
    CU_ASSERT_EQUAL(roce_hdr_offset(RDETH | AETH | AACK, AACK), 8);
    CU_ASSERT_EQUAL(roce_hdr_offset(XRCETH | IETH, IETH), 4);

    /* every header of every defined opcode */
    unsigned wrong = 0;
    for (unsigned oc = 0; oc < 256; oc++) {
        if (!defined(oc))
            continue;
        unsigned h = expected_hdrs(oc), off = 0;
        for (size_t i = 0; i < N_WIRE; i++) {
            if (!(h & wire[i].hdr))
                continue;
            wrong += roce_hdr_offset(h, wire[i].hdr) != off;
            off += wire[i].len;
        }
        wrong += roce_hdrs_len(h) != off;
        wrong += roce_opcode_lookup((uint8_t)oc)->hdrs_len != off; /* the table's derived length */
    }
    CU_ASSERT_EQUAL(wrong, 0);
}

static const struct tu_test tests[] = {
    {"every_opcode_headers", test_every_opcode_headers},
    {"position_flags", test_position_flags},
    {"analysis_flags", test_analysis_flags},
    {"unknown_opcodes", test_unknown_opcodes},
    {"cnp_per_link", test_cnp_per_link},
    {"transport", test_transport},
    {"hdrs_len", test_hdrs_len},
    {"hdr_offset", test_hdr_offset},
    TU_END,
};

int main(int argc, char **argv)
{
    return tu_main1(argc, argv, "opcode", tests);
}
