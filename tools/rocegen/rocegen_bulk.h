/*
 * rocegen_bulk.h - the bulk traffic generator behind `rocegen bulk`.
 *
 * Q RC connections (set up with CM at the start) carry RDMA WRITE messages
 * (First/Middle/Last with a 4096-byte PMTU, or Only) at ~100 Gb/s line rate.
 * The responder ACKs each message (coalesced: one ACK per message). A lost
 * request (probability `loss`, captured between the hosts, so the lost
 * packet is absent) makes the responder NAK the first out-of-order packet
 * with a PSN sequence error carrying the expected PSN; when the NAK reaches
 * the sender it resends everything from the lost PSN (go-back-N). A request
 * is CE-marked with probability `ce`; the responder sends a CNP 10-50 us
 * later to the sender's QP, at most one per QP per 50 us (marks in between
 * are covered by it). A frame captured whole (its ICRC in the capture) gets a
 * wrong ICRC with probability `bad_icrc`, drawn from a random stream of its
 * own, so the traffic is that of the same seed without it. Frames are written as they are made:
 * memory is fixed by Q, not by the number of packets.
 */
#ifndef ROCEGEN_BULK_H
#define ROCEGEN_BULK_H

#include <stdint.h>

#include "rocegen_build.h"

#define RG_BULK_MAX_QPS 65536u

struct rg_bulk_opts {
    uint64_t packets; /* frames to write, all kinds counted */
    uint32_t qps;     /* 1..RG_BULK_MAX_QPS */
    double loss;      /* per new request packet */
    double ce;        /* per request packet */
    double bad_icrc;  /* per frame whose ICRC is captured: the ICRC is made wrong */
    uint64_t seed;
    uint32_t snaplen; /* of the writer, 0 = whole frames (decides whether ICRCs are computed) */
};

/* Ground truth of a run, for checking an analyser's counts. */
struct rg_bulk_stats {
    uint64_t frames;
    uint64_t cm_frames;
    uint64_t requests;      /* new request packets written */
    uint64_t lost;          /* new request packets not written (lost before the capture point) */
    uint64_t retransmitted; /* request packets written again by go-back-N */
    uint64_t episodes;      /* go-back-N resends started */
    uint64_t naks;
    uint64_t acks;
    uint64_t acks_dropped; /* ACKs left out because the event queue was full */
    uint64_t ce_marks;
    uint64_t cnps;
    uint64_t bad_icrcs; /* frames written with a wrong ICRC (--bad-icrc) */
    int64_t first_ts_ns, last_ts_ns;
};

/*
 * Write opts->packets frames to w. Returns 0, RG_ERR_INVALID for bad
 * options, RG_ERR_IO on a write error, RG_ERR_SPACE when out of memory.
 * stats may be NULL.
 */
int rg_bulk_run(struct rg_writer *w, const struct rg_bulk_opts *opts, struct rg_bulk_stats *stats);

#endif
