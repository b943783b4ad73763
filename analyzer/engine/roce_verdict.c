/*
 * roce_verdict.c - the names of verdicts, episode triggers and pairings
 * (see roce_verdict.h): the identifiers the JSON reports, the events and the
 * plugin's filters use.
 */
#include "roce_verdict.h"

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
