/*
 * roce_verdict.h - the analysis of one frame as the engine hands it out:
 * verdict bits and the values that come with them, and the flow a frame
 * belongs to (what each verdict means: roce_engine.h).
 *
 * Adding a verdict: a position in enum roce_verdict_bit, its flag in enum
 * roce_verdict_flag, its name in roce_verdict.c, the analysis that sets it,
 * and, when it carries the expected PSN, ROCE_V_EXPECTED_PSN_FLAGS.
 */
#ifndef ROCE_VERDICT_H
#define ROCE_VERDICT_H

#include <stdint.h>

#include "roce_pkt.h"

/* Go-back-N episode triggers (ANALYSIS.md, "PSN analysis"). */
enum roce_trigger {
    ROCE_TRIGGER_NAK = 0,
    ROCE_TRIGGER_RNR = 1,
    ROCE_TRIGGER_IMPLIED = 2,
    ROCE_TRIGGER_TIMEOUT = 3,
    ROCE_TRIGGER_COUNT = 4
};
/* "nak", "rnr", "implied", "timeout". */
const char *roce_trigger_name(unsigned t);

/* How the two flows of a connection were paired. */
enum roce_paired_by {
    ROCE_PAIRED_NONE = 0,
    ROCE_PAIRED_CM = 1,
    ROCE_PAIRED_PSN = 2,
    ROCE_PAIRED_CNP = 3,
    ROCE_PAIRED_COUNT = 4
};
/* "none", "cm", "psn", "cnp". */
const char *roce_paired_by_name(unsigned p);

/* The class of a PSN gap (ANALYSIS.md "Capture loss and network loss"):
 * what the responder, the requester or the late packet itself showed. */
enum roce_gap_class {
    ROCE_GAP_UNDETERMINED = 0,     /* nothing could decide it (gap_reason says why) */
    ROCE_GAP_NETWORK_LOSS = 1,     /* a NAK for a missing PSN, or a resend of one */
    ROCE_GAP_CAPTURE_LOSS = 2,     /* an ACK (or NAK) said the responder got them */
    ROCE_GAP_CAPTURE_INFERRED = 3, /* the requester went on for longer than a NAK round trip
                                      and no NAK or resend came */
    ROCE_GAP_REORDERED = 4,        /* every missing PSN arrived late, before any NAK or resend */
    ROCE_GAP_CLASSES = 5
};
/* "undetermined", "network_loss", "capture_loss", "capture_loss_inferred", "reordered". */
const char *roce_gap_class_name(unsigned c);

/* Why a gap stayed undetermined. */
enum roce_gap_reason {
    ROCE_GAP_REASON_NONE = 0,
    ROCE_GAP_REASON_ENDED = 1,   /* the capture or the flow ended before anything showed */
    ROCE_GAP_REASON_GO_BACK = 2, /* a go-back-N from an earlier PSN resent it whatever its fate */
    ROCE_GAP_REASON_NO_ACKS = 3, /* UC: no ACK or NAK ever speaks for it */
    ROCE_GAP_REASON_BOUND = 4,   /* pushed out of the bounded table of open gaps */
    ROCE_GAP_REASONS = 5
};
/* "none", "capture_ended", "go_back", "no_acks", "tracking_bound". */
const char *roce_gap_reason_name(unsigned r);

/* A header field found rewritten on the way: the ICRC of a frame validates
 * with another value of it (ANALYSIS.md "The capture first"). */
enum roce_rewrite_field {
    ROCE_REWRITE_NONE = 0,
    ROCE_REWRITE_UDP_SPORT = 1, /* the UDP source port */
    ROCE_REWRITE_IPV4_ID = 2,   /* the IPv4 identification */
    ROCE_REWRITE_FIELDS = 3
};
/* "none", "udp_sport", "ipv4_id". */
const char *roce_rewrite_field_name(unsigned f);

/* Per-frame verdicts: their bit positions, and what each means. */
enum roce_verdict_bit {
    ROCE_VBIT_GAP,             /* request PSN after expected: missing_psns lost */
    ROCE_VBIT_RETRANSMISSION,  /* request PSN not after the highest used */
    ROCE_VBIT_EPISODE_START,   /* first packet of a go-back-N episode */
    ROCE_VBIT_NAK,             /* AETH NAK (nak_code) */
    ROCE_VBIT_RNR,             /* AETH RNR NAK (rnr_timer) */
    ROCE_VBIT_CE,              /* CE-marked request */
    ROCE_VBIT_CE_ANSWERED,     /* CE mark with a CNP (cnp_frame) */
    ROCE_VBIT_CE_UNANSWERED,   /* CE mark with no CNP within the window */
    ROCE_VBIT_CNP,             /* congestion notification packet */
    ROCE_VBIT_CNP_MATCHED,     /* CNP matched to a CE mark (cnp_for_frame) */
    ROCE_VBIT_CNP_UNEXPLAINED, /* CNP with no CE mark to match */
    ROCE_VBIT_BAD_ICRC,        /* ICRC does not match */
    ROCE_VBIT_PSN_REUSE,       /* request PSN inside an earlier READ's span (reuse_frame) */
    ROCE_VBIT_RESP_GAP,        /* READ response PSN after the expected one */
    ROCE_VBIT_MALFORMED,       /* RoCE by port/EtherType, but malformed */
    ROCE_VBIT_NAK_RESENT,      /* NAK/RNR NAK followed by a resend (retransmitted_in) */
    ROCE_VBIT_DUP_RESPONSE,    /* READ response PSN before the expected one */
    ROCE_VBIT_CAPTURE_LOSS,    /* a GAP the capture missed (gap_class capture_loss or _inferred) */
    ROCE_VBIT_DCQCN,           /* a CNP whose DCQCN reaction was evaluated (dcqcn_*) */
    ROCE_VBIT_BAD_VCRC,        /* InfiniBand VCRC does not match */
    ROCE_VBIT_REORDERED,       /* a missing PSN arriving late: out of order, not resent */
    ROCE_VBIT_AFTER_RESPONSE,  /* a request captured after a response that acknowledged it */
    ROCE_VBIT_UNDERSTATED,     /* captured short of its IP/UDP length, original length too */
    ROCE_V_COUNT
};

/* The verdict flags (struct roce_verdict.flags): one bit each. */
enum roce_verdict_flag {
    ROCE_V_GAP = 1u << ROCE_VBIT_GAP,
    ROCE_V_RETRANSMISSION = 1u << ROCE_VBIT_RETRANSMISSION,
    ROCE_V_EPISODE_START = 1u << ROCE_VBIT_EPISODE_START,
    ROCE_V_NAK = 1u << ROCE_VBIT_NAK,
    ROCE_V_RNR = 1u << ROCE_VBIT_RNR,
    ROCE_V_CE = 1u << ROCE_VBIT_CE,
    ROCE_V_CE_ANSWERED = 1u << ROCE_VBIT_CE_ANSWERED,
    ROCE_V_CE_UNANSWERED = 1u << ROCE_VBIT_CE_UNANSWERED,
    ROCE_V_CNP = 1u << ROCE_VBIT_CNP,
    ROCE_V_CNP_MATCHED = 1u << ROCE_VBIT_CNP_MATCHED,
    ROCE_V_CNP_UNEXPLAINED = 1u << ROCE_VBIT_CNP_UNEXPLAINED,
    ROCE_V_BAD_ICRC = 1u << ROCE_VBIT_BAD_ICRC,
    ROCE_V_PSN_REUSE = 1u << ROCE_VBIT_PSN_REUSE,
    ROCE_V_RESP_GAP = 1u << ROCE_VBIT_RESP_GAP,
    ROCE_V_MALFORMED = 1u << ROCE_VBIT_MALFORMED,
    ROCE_V_NAK_RESENT = 1u << ROCE_VBIT_NAK_RESENT,
    ROCE_V_DUP_RESPONSE = 1u << ROCE_VBIT_DUP_RESPONSE,
    ROCE_V_CAPTURE_LOSS = 1u << ROCE_VBIT_CAPTURE_LOSS,
    ROCE_V_DCQCN = 1u << ROCE_VBIT_DCQCN,
    ROCE_V_BAD_VCRC = 1u << ROCE_VBIT_BAD_VCRC,
    ROCE_V_REORDERED = 1u << ROCE_VBIT_REORDERED,
    ROCE_V_AFTER_RESPONSE = 1u << ROCE_VBIT_AFTER_RESPONSE,
    ROCE_V_UNDERSTATED = 1u << ROCE_VBIT_UNDERSTATED
};
/* Identifier of one verdict bit (index 0..ROCE_V_COUNT-1): "gap", ... (JSON,
 * events, filters). */
const char *roce_verdict_name(unsigned bit_index);
/* Its name for people (the plugin's detail tree): "PSN gap", ... */
const char *roce_verdict_title(unsigned bit_index);

/* The verdicts whose frames carry the PSN that was expected (expected_psn):
 * the sequence verdicts of requests and of READ responses. */
#define ROCE_V_EXPECTED_PSN_FLAGS                                                                  \
    (ROCE_V_GAP | ROCE_V_RETRANSMISSION | ROCE_V_PSN_REUSE | ROCE_V_RESP_GAP |                     \
     ROCE_V_DUP_RESPONSE | ROCE_V_REORDERED)

/* The address triple that names a flow: one direction of a queue pair. */
struct roce_flow_key {
    uint8_t src[ROCE_ADDR_LEN]; /* IPv4 as IPv4-mapped IPv6 */
    uint8_t dst[ROCE_ADDR_LEN];
    uint32_t dqpn;
    uint8_t version; /* enum roce_version: 1 (GIDs), 2 (IP) or IB (LIDs or GIDs) */
    uint8_t af;      /* enum roce_af of src and dst (roce_addr.h) */
    uint8_t pad_[2];
};

/* The analysis of one frame. Frame numbers are the caller's (Wireshark
 * numbering: every frame of the capture from 1); 0 means "none". */
struct roce_verdict {
    uint64_t frame;
    int64_t ts_ns;
    uint64_t flow_id;         /* the flow's id (struct roce_flow_report), when has_flow */
    struct roce_flow_key key; /* valid when has_flow */
    uint8_t has_flow;
    uint8_t transport; /* enum roce_transport of the flow */
    uint8_t opcode;
    uint8_t paired_by;  /* enum roce_paired_by of the flow */
    uint32_t peer_dqpn; /* dest QP of the paired flow (this flow's source QP), when paired */
    uint32_t psn;
    uint32_t flags; /* enum roce_verdict_flag */

    uint8_t expected_valid; /* expected_psn is meaningful (sequence-checked request) */
    uint8_t trigger;        /* enum roce_trigger, on EPISODE_START */
    uint8_t nak_code;       /* on NAK: enum roce_nak_code (or a reserved code) */
    uint8_t rnr_timer;      /* on RNR: the 5-bit timer code */
    uint32_t expected_psn;
    uint32_t missing_psns;       /* on GAP and RESP_GAP */
    uint8_t gap_class;           /* on GAP, once settled: enum roce_gap_class */
    uint8_t gap_reason;          /* on GAP of class undetermined: enum roce_gap_reason */
    uint8_t icrc_rewrite;        /* on BAD_ICRC: enum roce_rewrite_field that explains it */
    uint16_t icrc_rewrite_value; /* and the value the ICRC validates with */
    uint64_t gap_decided_by;     /* on GAP: the frame that decided its class (0: none, as for
                                    inferred and undetermined gaps decided by time) */
    uint32_t reorder_psns;       /* on REORDERED: how far behind the highest PSN it came */
    int64_t reorder_ns;          /* on REORDERED: how long after the gap that skipped it */
    uint64_t reorder_gap_frame;  /* on REORDERED: the frame of that gap */
    uint64_t response_frame;     /* on AFTER_RESPONSE: the response captured before it */
    uint8_t malformed;           /* on MALFORMED: enum roce_malformed, the reason */
    uint64_t episode_frame;      /* on RETRANSMISSION: the first frame of its episode */
    uint64_t nak_frame;          /* on EPISODE_START with trigger nak/rnr */
    int64_t nak_to_resend_ns;
    uint64_t retransmitted_in; /* on NAK_RESENT: the frame where the resend began */
    uint64_t cnp_frame;        /* on CE_ANSWERED */
    uint64_t cnp_for_frame;    /* on CNP_MATCHED: the CE-marked frame */
    int64_t cnp_latency_ns;    /* on CNP_MATCHED */
    uint64_t reuse_frame;      /* on PSN_REUSE: the READ request whose span is reused */
    uint32_t icrc_calc;        /* on BAD_ICRC */
    uint32_t icrc_wire;
    int64_t nak_generation_ns; /* on a PSN sequence error NAK, when has_nak_generation: from
                                  the out-of-sequence arrival that caused it */
    uint8_t has_nak_generation;
    uint32_t dcqcn_before_mbps; /* on DCQCN: the flow's rate in the window before the CNP */
    uint32_t dcqcn_after_mbps;  /* and in the window after it */
    uint32_t dcqcn_ratio_ppm;   /* after / before, x 10^6 */
    uint16_t vcrc_calc;         /* on BAD_VCRC */
    uint16_t vcrc_wire;
};

/* Nonzero when the verdict shows the expected PSN (expected_psn): the
 * frame's PSN was checked and it has one of ROCE_V_EXPECTED_PSN_FLAGS. */
static inline int roce_verdict_shows_expected(const struct roce_verdict *v)
{
    return v->expected_valid && (v->flags & ROCE_V_EXPECTED_PSN_FLAGS) != 0;
}

#endif
