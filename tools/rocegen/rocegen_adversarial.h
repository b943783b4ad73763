/*
 * rocegen_adversarial.h - the adversarial captures of rocegen, for the
 * robustness tests (tests/robustness/), not for captures/:
 *
 *   rocegen hostile -o FILE   hostile header values, lengths and PSNs
 *                             (rocegen_hostile.c)
 *   rocegen flood -o FILE --packets N --qps Q [--ce P] [--seed S] [--gaps]
 *                             as many distinct queue pairs as asked, each
 *                             request followed by its ACK; with --gaps,
 *                             requests that each skip a PSN and one ACK per
 *                             queue pair at the end (rocegen_flood.c)
 */
#ifndef ROCEGEN_ADVERSARIAL_H
#define ROCEGEN_ADVERSARIAL_H

#include <stdint.h>

#include "rocegen_build.h"
#include "rocegen_scen.h"

/* The hostile scenario (Ethernet, whole frames). */
void rg_scen_hostile(struct rg_sc *c);

#define RG_FLOOD_MAX_QPS   (1u << 28) /* 256 host pairs x 2^20 QPs each */
#define RG_FLOOD_MAX_HOSTS 256u

struct rg_flood_opts {
    uint64_t packets; /* frames to write */
    uint32_t qps;     /* distinct queue pairs, 1..RG_FLOOD_MAX_QPS */
    double ce;        /* probability a request is CE-marked (never answered by a CNP) */
    uint64_t seed;    /* start PSNs and CE marks */
    uint32_t hosts;   /* host pairs the queue pairs are spread over, 1..256 (0: 256) */
    int stray_acks;   /* ACK PSNs half the PSN space away: no ACK pairs with its request */
    int gaps;         /* every request after a queue pair's first skips a PSN; ACKs at the end */
    uint32_t snaplen; /* of the writer, 0 = whole frames (ICRCs computed) */
};

struct rg_flood_stats {
    uint64_t frames, requests, acks, ce_marks;
    uint64_t gaps;  /* PSN gaps written (--gaps), one PSN each */
    uint64_t flows; /* distinct flows written: two per queue pair that sent */
};

/*
 * Write opts->packets frames to w: request i goes to queue pair i % qps (so
 * with more queue pairs than an analyser tracks, every packet finds its
 * flow evicted), RDMA WRITE Only of 0 bytes with AckReq, PSNs in sequence
 * per queue pair from a random start; each is followed by its ACK. Memory
 * does not grow with qps or packets. Returns 0, RG_ERR_INVALID for bad
 * options, RG_ERR_IO on a write error. stats may be NULL.
 */
int rg_flood_run(struct rg_writer *w, const struct rg_flood_opts *opts,
                 struct rg_flood_stats *stats);

#endif
