/*
 * roce_vantage_pause.h - PFC pauses across vantage points: each point's
 * pause episodes, put on the common clock and ordered, show where pausing
 * started, the order in which the links paused after it (the pause moving
 * upstream) and a cycle of links each pausing the next (a deadlock risk).
 * ANALYSIS.md, "Pause spreading".
 *
 * A front end gives each point a struct roce_vpauses and hands it every
 * frame of its first reading (roce_vpauses_frame: PFC and PAUSE frames make
 * episodes, the other frames' source MACs are noted); once the clock offsets
 * are final (after roce_vantage_start), roce_vantage_pauses() orders them.
 * Memory is bounded: ROCE_VPAUSE_MAX_EPISODES episodes and
 * ROCE_VPAUSE_MAX_SENDERS source MACs per point; what does not fit is
 * counted. C11 + libc only.
 */
#ifndef ROCE_VANTAGE_PAUSE_H
#define ROCE_VANTAGE_PAUSE_H

#include <stddef.h>
#include <stdint.h>

#include "roce_pkt.h"

#define ROCE_VPAUSE_MAX_EPISODES 4096u /* per point */
#define ROCE_VPAUSE_MAX_SENDERS  256u  /* source MACs noted per point */
#define ROCE_VPAUSE_OPEN         64u   /* running episodes looked up per frame */
#define ROCE_VPAUSE_SCAN         1024u /* earlier episodes an episode's cause is sought among */
#define ROCE_VPAUSE_MAX_CHAINS   1024u /* chains and cycles listed */
#define ROCE_VPAUSE_LINK         ROCE_PFC_PRIORITIES /* "priority" of an 802.3x PAUSE */
#define ROCE_VPAUSE_MAC_LEN      6

/* How an episode was tied to the one before it in its chain. */
enum roce_vpause_evidence {
    ROCE_VPAUSE_ORIGIN = 0, /* none: where pausing started */
    ROCE_VPAUSE_MAC = 1,    /* its sender sent frames at the earlier point (the paused end there) */
    ROCE_VPAUSE_ORDER = 2   /* only the time order: it began within the window after it */
};

/* One pause: a MAC keeping one priority paused, on one point's clock until
 * roce_vantage_pauses() aligns it. */
struct roce_vpause_ep {
    int64_t start_ns, end_ns; /* first XOFF; its XON, or when its last XOFF ran out */
    uint64_t first_frame, last_frame;
    uint32_t frames; /* PFC/PAUSE frames of it (XOFFs and the XON) */
    int32_t parent;  /* results: the episode it spread from (index), -1 none */
    uint8_t mac[ROCE_VPAUSE_MAC_LEN];
    uint8_t has_mac;
    uint8_t prio;     /* 0..7, ROCE_VPAUSE_LINK */
    uint8_t point;    /* results */
    uint8_t evidence; /* results: enum roce_vpause_evidence */
};

/* What one point's first reading collected. */
struct roce_vpauses {
    uint32_t link_speed_mbps;
    struct roce_vpause_ep *ep;
    uint32_t n, cap;
    uint32_t open[ROCE_VPAUSE_OPEN];           /* episodes that may be running (index + 1) */
    uint64_t episodes_dropped;                 /* beyond ROCE_VPAUSE_MAX_EPISODES */
    uint64_t senders[ROCE_VPAUSE_MAX_SENDERS]; /* MAC + 1 << 48, open addressing; 0 empty */
    uint32_t n_senders;
    uint64_t senders_dropped;
};

/* NULL when out of memory; link_speed_mbps gives a quantum's length. */
struct roce_vpauses *roce_vpauses_new(uint32_t link_speed_mbps);
void roce_vpauses_free(struct roce_vpauses *p);
/* One frame of the point (in capture order): a PFC or PAUSE frame
 * (pkt->mac_ctrl) extends the episodes; another frame notes its source MAC
 * src (NULL: none). */
void roce_vpauses_frame(struct roce_vpauses *p, const struct roce_pkt *pkt, const uint8_t *src,
                        uint64_t frame, int64_t ts_ns);
/* Nonzero when mac sent a frame other than PFC/PAUSE at the point. */
int roce_vpauses_sent(const struct roce_vpauses *p, const uint8_t mac[ROCE_VPAUSE_MAC_LEN]);

/* ---- the results ---- */

/* A chain: an episode no other explains (its origin) and those that spread
 * from it, by link: the first episode at each point, in time order. */
struct roce_vpause_chain {
    uint32_t first_step, n_steps; /* in roce_vantage_pause_step() */
    uint32_t episodes;            /* episodes of the chain, at all its points */
    uint8_t prio;
};

/* A cycle: links each pausing the next, back to the first (n_links of
 * them); its steps are the episodes around it and the one that closed it. */
struct roce_vpause_cycle {
    uint32_t first_step, n_steps; /* n_links + 1 */
    uint32_t n_links;
    uint64_t count; /* times it closed */
    uint8_t prio;
};

struct roce_vpause_totals {
    int64_t window_ns; /* the spread window given, 0: per episode (its length + path delay) */
    uint64_t episodes, episodes_dropped, senders_dropped;
    uint64_t spread;     /* episodes that spread from another */
    uint64_t spread_mac; /* ... of those with a MAC tie */
    uint64_t chains;     /* chains of two links or more */
    uint64_t chains_unlisted;
    uint64_t cycles_unlisted;
};

struct roce_vantage;

/* Order the points' episodes on the common clock (after roce_vantage_start).
 * pp[point], NULL for a point without. window_ns: how long after an episode
 * began one at another point may begin to have spread from it; 0: the
 * episode's own length plus the path-delay bound. 0, or -1 out of memory. */
int roce_vantage_pauses(struct roce_vantage *v, struct roce_vpauses *const *pp, int64_t window_ns);

const struct roce_vpause_totals *roce_vantage_pause_totals(const struct roce_vantage *v);
size_t roce_vantage_pause_chain_count(const struct roce_vantage *v);
const struct roce_vpause_chain *roce_vantage_pause_chain(const struct roce_vantage *v, size_t i);
size_t roce_vantage_pause_cycle_count(const struct roce_vantage *v);
const struct roce_vpause_cycle *roce_vantage_pause_cycle(const struct roce_vantage *v, size_t i);
/* Episode i of all points' (a step's parent: its index), aligned. */
const struct roce_vpause_ep *roce_vantage_pause_episode(const struct roce_vantage *v, size_t i);
/* The episode of a chain's or cycle's step (aligned times). */
const struct roce_vpause_ep *roce_vantage_pause_step(const struct roce_vantage *v, size_t step);
/* "origin", "mac", "order". */
const char *roce_vpause_evidence_name(unsigned e);

#endif
