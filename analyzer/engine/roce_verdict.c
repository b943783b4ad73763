/*
 * roce_verdict.c - the names of verdicts, episode triggers and pairings
 * (see roce_verdict.h): the identifiers the JSON reports, the events and the
 * plugin's filters use.
 */
#include "roce_verdict.h"

#include "roce_totals.h"

static const char *const trigger_names[ROCE_TRIGGER_COUNT] = {
    [ROCE_TRIGGER_NAK] = "nak",
    [ROCE_TRIGGER_RNR] = "rnr",
    [ROCE_TRIGGER_IMPLIED] = "implied",
    [ROCE_TRIGGER_TIMEOUT] = "timeout",
};

static const char *const paired_names[ROCE_PAIRED_COUNT] = {
    [ROCE_PAIRED_NONE] = "none",
    [ROCE_PAIRED_CM] = "cm",
    [ROCE_PAIRED_PSN] = "psn",
    [ROCE_PAIRED_CNP] = "cnp",
};

static const char *const verdict_names[ROCE_V_COUNT] = {
    [ROCE_VBIT_GAP] = "gap",
    [ROCE_VBIT_RETRANSMISSION] = "retransmission",
    [ROCE_VBIT_EPISODE_START] = "episode_start",
    [ROCE_VBIT_NAK] = "nak",
    [ROCE_VBIT_RNR] = "rnr",
    [ROCE_VBIT_CE] = "ce",
    [ROCE_VBIT_CE_ANSWERED] = "ce_answered",
    [ROCE_VBIT_CE_UNANSWERED] = "ce_unanswered",
    [ROCE_VBIT_CNP] = "cnp",
    [ROCE_VBIT_CNP_MATCHED] = "cnp_matched",
    [ROCE_VBIT_CNP_UNEXPLAINED] = "cnp_unexplained",
    [ROCE_VBIT_BAD_ICRC] = "bad_icrc",
    [ROCE_VBIT_PSN_REUSE] = "psn_reuse",
    [ROCE_VBIT_RESP_GAP] = "read_response_gap",
    [ROCE_VBIT_MALFORMED] = "malformed",
    [ROCE_VBIT_NAK_RESENT] = "nak_resent",
    [ROCE_VBIT_DUP_RESPONSE] = "duplicate_read_response",
    [ROCE_VBIT_CAPTURE_LOSS] = "capture_loss",
    [ROCE_VBIT_DCQCN] = "dcqcn",
    [ROCE_VBIT_BAD_VCRC] = "bad_vcrc",
    [ROCE_VBIT_REORDERED] = "reordered",
    [ROCE_VBIT_AFTER_RESPONSE] = "after_response",
    [ROCE_VBIT_UNDERSTATED] = "length_understated",
};

static const char *const verdict_titles[ROCE_V_COUNT] = {
    [ROCE_VBIT_GAP] = "PSN gap",
    [ROCE_VBIT_RETRANSMISSION] = "Retransmission",
    [ROCE_VBIT_EPISODE_START] = "Go-back-N episode start",
    [ROCE_VBIT_NAK] = "NAK",
    [ROCE_VBIT_RNR] = "RNR NAK",
    [ROCE_VBIT_CE] = "CE mark",
    [ROCE_VBIT_CE_ANSWERED] = "CE answered",
    [ROCE_VBIT_CE_UNANSWERED] = "CE unanswered",
    [ROCE_VBIT_CNP] = "CNP",
    [ROCE_VBIT_CNP_MATCHED] = "CNP answering a CE mark",
    [ROCE_VBIT_CNP_UNEXPLAINED] = "CNP unexplained",
    [ROCE_VBIT_BAD_ICRC] = "Bad ICRC",
    [ROCE_VBIT_PSN_REUSE] = "PSN reuse",
    [ROCE_VBIT_RESP_GAP] = "READ response gap",
    [ROCE_VBIT_MALFORMED] = "Malformed",
    [ROCE_VBIT_NAK_RESENT] = "NAK answered by a resend",
    [ROCE_VBIT_DUP_RESPONSE] = "Duplicate READ response",
    [ROCE_VBIT_CAPTURE_LOSS] = "Missed by the capture",
    [ROCE_VBIT_DCQCN] = "DCQCN reaction",
    [ROCE_VBIT_BAD_VCRC] = "Bad VCRC",
    [ROCE_VBIT_REORDERED] = "Out of order",
    [ROCE_VBIT_AFTER_RESPONSE] = "Captured after its response",
    [ROCE_VBIT_UNDERSTATED] = "Length understated",
};

static const char *const gap_class_names[ROCE_GAP_CLASSES] = {
    [ROCE_GAP_UNDETERMINED] = "undetermined", [ROCE_GAP_NETWORK_LOSS] = "network_loss",
    [ROCE_GAP_CAPTURE_LOSS] = "capture_loss", [ROCE_GAP_CAPTURE_INFERRED] = "capture_loss_inferred",
    [ROCE_GAP_REORDERED] = "reordered",
};

static const char *const gap_reason_names[ROCE_GAP_REASONS] = {
    [ROCE_GAP_REASON_NONE] = "none",
    [ROCE_GAP_REASON_ENDED] = "capture_ended",
    [ROCE_GAP_REASON_GO_BACK] = "go_back",
    [ROCE_GAP_REASON_NO_ACKS] = "no_acks",
    [ROCE_GAP_REASON_BOUND] = "tracking_bound",
};

static const char *const ts_step_names[ROCE_TS_STEPS] = {
    [ROCE_TS_FINE] = "finer_than_us",
    [ROCE_TS_US] = "us",
    [ROCE_TS_MS] = "ms",
};

static const char *const rewrite_names[ROCE_REWRITE_FIELDS] = {
    [ROCE_REWRITE_NONE] = "none",
    [ROCE_REWRITE_UDP_SPORT] = "udp_sport",
    [ROCE_REWRITE_IPV4_ID] = "ipv4_id",
};

const char *roce_trigger_name(unsigned t)
{
    return t < ROCE_TRIGGER_COUNT ? trigger_names[t] : "unknown";
}

const char *roce_paired_by_name(unsigned p)
{
    return p < ROCE_PAIRED_COUNT ? paired_names[p] : "unknown";
}

const char *roce_verdict_name(unsigned bit_index)
{
    return bit_index < ROCE_V_COUNT ? verdict_names[bit_index] : "unknown";
}

const char *roce_verdict_title(unsigned bit_index)
{
    return bit_index < ROCE_V_COUNT ? verdict_titles[bit_index] : "unknown";
}

const char *roce_gap_class_name(unsigned c)
{
    return c < ROCE_GAP_CLASSES ? gap_class_names[c] : "unknown";
}

const char *roce_gap_reason_name(unsigned r)
{
    return r < ROCE_GAP_REASONS ? gap_reason_names[r] : "unknown";
}

const char *roce_ts_step_name(unsigned s)
{
    return s < ROCE_TS_STEPS ? ts_step_names[s] : "unknown";
}

const char *roce_rewrite_field_name(unsigned f)
{
    return f < ROCE_REWRITE_FIELDS ? rewrite_names[f] : "unknown";
}
