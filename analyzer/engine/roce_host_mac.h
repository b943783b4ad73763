/*
 * roce_host_mac.h - the source MACs of RoCE and MAC Control frames as the
 * report holds them, and what they say: a host NIC's MAC, or the fabric's
 * (roce_hosts.c). Part of the public interface (roce_engine.h).
 *
 * ANALYSIS.md "Host NIC MACs": the source MAC of RoCE frames from exactly
 * one address names that host when some of those frames arrive unrouted
 * (an initial TTL / hop limit, RoCEv1, a link-local source); PFC and PAUSE
 * frames from it were sent by that host.
 */
#ifndef ROCE_HOST_MAC_H
#define ROCE_HOST_MAC_H

#include <stdint.h>

#include "roce_addr.h"
#include "roce_totals.h"

/* A source MAC address of RoCE or MAC Control (PFC, PAUSE) frames. */
struct roce_host_mac {
    uint8_t mac[ROCE_MAC_LEN];
    uint8_t addresses;           /* addresses behind it: 0 (no RoCE), 1, or 2 for two or more */
    uint8_t version;             /* of the RoCE frames (1 GIDs, 2 IP), when addresses > 0 */
    uint8_t af;                  /* enum roce_af of addr */
    uint8_t ttl_min, ttl_max;    /* TTL / hop limit of its RoCE frames (addresses > 0) */
    uint8_t addr[ROCE_ADDR_LEN]; /* the address behind it (the first one seen) */
    uint64_t checked_frames;     /* RoCE frames whose MAC and TTL were looked at: the first of
                                    each of its flows, then one in 64 */
    uint64_t unrouted_frames;    /* of those, RoCEv1, or a TTL / hop limit of 64, 128 or 255 */
    uint64_t pfc_frames, pause_frames;  /* MAC Control frames it sent */
    uint64_t frames[ROCE_EVIDENCE_MAX]; /* its first PFC / PAUSE frames */
    uint8_t n_frames;
    /* the frame that made the entry and the one whose address is addr (0:
     * unknown, as in a report read back): the order and the first address of
     * one engine when the reports of a split analysis merge */
    uint64_t first_frame, addr_frame;
};

/* Why a MAC is, or is not, a host NIC's. */
enum roce_mac_basis {
    ROCE_MAC_UNROUTED = 0, /* host: one address, its frames arrive unrouted */
    ROCE_MAC_ROUTED,       /* fabric: one address, but every frame was routed (TTL decremented) */
    ROCE_MAC_SEVERAL,      /* fabric: RoCE frames of several addresses */
    ROCE_MAC_NO_ROCE,      /* fabric: MAC Control frames only */
    ROCE_MAC_BASIS_COUNT
};
/* "unrouted", "routed", "several_addresses", "no_roce". */
const char *roce_mac_basis_name(unsigned basis);
/* The basis of m; a host NIC MAC exactly when it is ROCE_MAC_UNROUTED. */
unsigned roce_host_mac_role(const struct roce_host_mac *m);
/* Nonzero when a RoCE frame from src with this TTL (hop limit) reached the
 * capture unrouted: RoCEv1, an initial TTL (what hosts send with), or a
 * link-local source (fe80::/10, 169.254/16), which no router forwards
 * (hosts send link-local RoCE with hop limit 1). */
int roce_frame_unrouted(unsigned ttl, unsigned version, const uint8_t src[ROCE_ADDR_LEN]);
/* Fold src (a capture read after dst's, or another part of a split
 * analysis of the same frames: frame_off 0) into dst, the same MAC. */
void roce_host_mac_merge(struct roce_host_mac *dst, const struct roce_host_mac *src,
                         uint64_t frame_off);

#endif
