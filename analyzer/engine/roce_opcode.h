/*
 * roce_opcode.h - the BTH opcode table.
 *
 * IBTA Vol. 1 9.2 (Table 35 "OpCode field", Table 38 "Extended transport
 * headers per opcode"), Annex A10 (InfiniBand CNP, opcode 0x80), Annex A17
 * (RoCEv2 CNP, opcode 0x81), IBTA 1.5 errata
 * (FLUSH 0x1C, ATOMIC WRITE 0x1D). Which extension headers follow an opcode
 * lives in this one table; the decoder and the analysis only consult it.
 */
#ifndef ROCE_OPCODE_H
#define ROCE_OPCODE_H

#include <stdint.h>

/* Transport service: BTH opcode bits 7:5. */
#define ROCE_OPCODE_TRANSPORT_SHIFT 5
enum roce_transport {
    ROCE_TRANSPORT_RC = 0,
    ROCE_TRANSPORT_UC = 1,
    ROCE_TRANSPORT_RD = 2,
    ROCE_TRANSPORT_UD = 3,
    ROCE_TRANSPORT_CNP = 4,
    ROCE_TRANSPORT_XRC = 5,
    ROCE_TRANSPORT_NONE = 7 /* not known (a flow that carried nothing decodable) */
};

/*
 * The extension headers, in wire order after the BTH, with their sizes in
 * bytes (IBTA Vol. 1 9.3, Table 38; the 16 reserved bytes of a RoCEv2 CNP:
 * Annex A17.9.3). This list is the one place that pairs a header with its
 * length: the header bits (enum roce_hdr, in wire order), the sizes
 * (ROCE_RDETH_LEN, ...), each opcode's header length and the offset of a
 * header among an opcode's headers all follow from it. X(name, len, arg).
 */
#define ROCE_EXT_HEADERS(X, arg)                                                                   \
    X(RDETH, 4, arg)                                                                               \
    X(DETH, 8, arg)                                                                                \
    X(XRCETH, 4, arg)                                                                              \
    X(FETH, 4, arg)                                                                                \
    X(RETH, 16, arg)                                                                               \
    X(ATOMICETH, 28, arg)                                                                          \
    X(AETH, 4, arg)                                                                                \
    X(ATOMICACKETH, 8, arg)                                                                        \
    X(IMMDT, 4, arg)                                                                               \
    X(IETH, 4, arg)                                                                                \
    X(CNP_RSVD, 16, arg)

/* Position of each header in wire order: ROCE_HDR_POS_RDETH = 0, ... */
#define ROCE_HDR_POS_(name, len, arg) ROCE_HDR_POS_##name,
enum roce_hdr_pos { ROCE_EXT_HEADERS(ROCE_HDR_POS_, -) ROCE_HDR_COUNT };
#undef ROCE_HDR_POS_

/* Extension header bits: ROCE_HDR_RDETH = 1 << 0, ... (a lower bit comes first on the wire). */
#define ROCE_HDR_BIT_(name, len, arg) ROCE_HDR_##name = 1u << ROCE_HDR_POS_##name,
enum roce_hdr { ROCE_EXT_HEADERS(ROCE_HDR_BIT_, -) };
#undef ROCE_HDR_BIT_

/* Header sizes in bytes: ROCE_RDETH_LEN, ... */
#define ROCE_HDR_SIZE_(name, len, arg) ROCE_##name##_LEN = (len),
enum roce_hdr_len { ROCE_EXT_HEADERS(ROCE_HDR_SIZE_, -) };
#undef ROCE_HDR_SIZE_

/* Bytes of the extension headers in mask h (an integer constant expression
 * when h is one). */
#define ROCE_HDR_LEN_IF_(name, len, h) +(((h)&ROCE_HDR_##name) ? (unsigned)(len) : 0u)
#define ROCE_HDRS_LEN(h)               (0u ROCE_EXT_HEADERS(ROCE_HDR_LEN_IF_, h))

#define ROCE_BTH_LEN  12
#define ROCE_ICRC_LEN 4

/* What a packet of this opcode is. */
enum roce_kind {
    ROCE_KIND_REQUEST = 1,
    ROCE_KIND_RESPONSE = 2,
    ROCE_KIND_CNP = 3,
    ROCE_KIND_OTHER = 4 /* RD RESYNC */
};

/* Properties of an opcode. */
enum roce_op_flag {
    ROCE_OPF_FIRST = 1u << 0,
    ROCE_OPF_MIDDLE = 1u << 1,
    ROCE_OPF_LAST = 1u << 2,
    ROCE_OPF_ONLY = 1u << 3,
    ROCE_OPF_PAYLOAD = 1u << 4, /* carries data payload */
    ROCE_OPF_READ_REQ = 1u << 5,
    ROCE_OPF_READ_RESP = 1u << 6,
    ROCE_OPF_ACK = 1u << 7, /* ACKNOWLEDGE or ATOMIC ACKNOWLEDGE */
    ROCE_OPF_ATOMIC = 1u << 8,
    ROCE_OPF_SEND = 1u << 9,
    ROCE_OPF_WRITE = 1u << 10,
    ROCE_OPF_IB_ONLY = 1u << 11,  /* defined on native InfiniBand only (its CNP) */
    ROCE_OPF_ROCE_ONLY = 1u << 12 /* defined on RoCE only (the RoCEv2 CNP) */
};

struct roce_opcode_info {
    const char *name;  /* display name, e.g. "RC SEND Only" */
    const char *ident; /* identifier, e.g. "RC_SEND_ONLY" (JSON keys) */
    uint16_t hdrs;     /* enum roce_hdr bits */
    uint16_t flags;    /* enum roce_op_flag bits */
    uint8_t kind;      /* enum roce_kind */
    uint8_t hdrs_len;  /* bytes of the extension headers in hdrs: ROCE_HDRS_LEN(hdrs) */
};

/* Opcodes named in the analysis. */
#define ROCE_OPCODE_CNP           0x81u /* RoCEv2 */
#define ROCE_OPCODE_IB_CNP        0x80u /* native InfiniBand */
#define ROCE_OPCODE_UD_SEND_ONLY  0x64u
#define ROCE_OPCODE_OP_MASK       0x1Fu

/* The table entry for an opcode, or NULL when the opcode is not defined. */
const struct roce_opcode_info *roce_opcode_lookup(uint8_t opcode);

/* The same for a packet of native InfiniBand (ib nonzero) or of RoCE: NULL
 * also for an opcode only the other one defines (the two CNPs). */
const struct roce_opcode_info *roce_opcode_lookup_on(uint8_t opcode, int ib);

/* Transport of an opcode (bits 7:5). */
static inline enum roce_transport roce_opcode_transport(uint8_t opcode)
{
    return (enum roce_transport)(opcode >> ROCE_OPCODE_TRANSPORT_SHIFT);
}

/* Sum of the sizes of the headers in a mask (ROCE_HDRS_LEN at run time). */
unsigned roce_hdrs_len(unsigned hdrs);

/* Offset of header h (one bit) inside the extension headers of a mask: the
 * sizes of the headers of the mask that come before h on the wire. */
unsigned roce_hdr_offset(unsigned hdrs, unsigned h);

/* "RC", "UC", "RD", "UD", "CNP", "XRC" or "none". */
const char *roce_transport_name(enum roce_transport t);

#endif
