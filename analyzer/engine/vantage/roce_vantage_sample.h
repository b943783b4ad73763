/*
 * roce_vantage_sample.h - what one vantage point saw: a transmission record
 * per frame (from the engine's output), the split key of a mirrored frame,
 * and the point's sample of the first reading (the clock offsets are
 * estimated from the samples: roce_vantage_clock.h).
 *
 * A front end gets these through roce_vantage.h. A sample is used by one
 * thread at a time; samples of different points may be filled in parallel.
 */
#ifndef ROCE_VANTAGE_SAMPLE_H
#define ROCE_VANTAGE_SAMPLE_H

#include <stdint.h>

#include "roce_engine.h"
#include "roce_index.h"

/* ---- transmission records ---- */

enum roce_vtx_flag {
    ROCE_VTX_REQUEST = 1u << 0, /* a request packet (else a response) */
    ROCE_VTX_LOCATE = 1u << 1,  /* a request of a sequence-checked flow (RC, UC, XRC) */
    ROCE_VTX_RETX = 1u << 2,    /* the point's engine: retransmission */
    ROCE_VTX_EPISODE = 1u << 3, /* ... first packet of a go-back-N episode (trigger not implied) */
    ROCE_VTX_CE = 1u << 4,      /* IP ECN CE on a RoCEv2 request */
    ROCE_VTX_GAP = 1u << 5      /* gap_count PSNs from gap_first were missing at the point */
};

/* One packet transmission as one point saw it. */
struct roce_vtx {
    struct roce_flow_key key;
    int64_t ts_ns;  /* capture time, the point's own clock */
    uint64_t frame; /* frame number in its capture */
    uint32_t psn;
    uint32_t len; /* the packet's "original length": BTH to the end of the ICRC, as its
                     IP/UDP (or GRH) headers declare it, so tags, mirror headers, padding
                     and the snaplen of a capture do not change it */
    uint32_t gap_first;
    uint32_t gap_count;
    uint8_t opcode;
    uint8_t flags; /* enum roce_vtx_flag */
    uint8_t pad_[6];
};

/* Fill tx from the engine output of one frame. Returns 1 when the frame is a
 * transmission to match (a decoded request or response of a tracked flow;
 * not a CNP, not malformed, not cut before the BTH), else 0. */
int roce_vtx_from_frame(const struct roce_frame_out *o, struct roce_vtx *tx);

/* ---- splitting one capture into several points (mirror collectors) ---- */

enum roce_vantage_split {
    ROCE_SPLIT_NONE = 0,
    ROCE_SPLIT_ERSPAN_SESSION = 1, /* ERSPAN type II/III session ID */
    ROCE_SPLIT_OUTER_SOURCE = 2    /* source address of the outermost tunnel (GRE, ERSPAN, VXLAN) */
};

struct roce_split_key {
    uint8_t has;   /* 0: the frame was not mirrored that way (it belongs to the file itself) */
    uint8_t af; /* enum roce_af of the outer source (roce_addr.h) */
    uint16_t session;
    uint8_t addr[ROCE_ADDR_LEN];
};

/* The split key of a decoded frame (roce_decode() output). */
void roce_vantage_split_key(const struct roce_pkt *pkt, enum roce_vantage_split by,
                            struct roce_split_key *k);

/* ---- samples (first reading) ---- */

/* A sampled transmission: its key hash, its time, how often the point saw it. */
struct vs_entry {
    uint64_t h; /* the transmission's hash (roce_vtx_hash); 0: an empty slot */
    int64_t ts; /* capture time, the point's own clock */
    uint32_t count;
    uint8_t src[ROCE_ADDR_LEN], dst[ROCE_ADDR_LEN];
};

/* A point's sample: at most max_keys transmissions (the hash decides which,
 * identically at every point) and the request flows it saw (at most
 * max_flows). */
struct roce_vsample {
    struct vs_entry *tab; /* open addressing, 2 x max_keys slots */
    uint32_t mask, n, max_keys;
    unsigned level; /* a key is kept when the low `level` bits of its sample hash are 0 */
    struct roce_flow_key *flows; /* request flows seen, in the order first seen */
    struct roce_index flow_index;
    uint32_t n_flows, max_flows;
    uint64_t count;
};

/* A new sample; NULL when out of memory. */
struct roce_vsample *roce_vsample_new(uint32_t max_keys, uint32_t max_flows);
void roce_vsample_free(struct roce_vsample *s);
void roce_vsample_add(struct roce_vsample *s, const struct roce_vtx *tx);
/* Transmissions added. */
uint64_t roce_vsample_count(const struct roce_vsample *s);

/* 64-bit hash of a transmission's identity (flow, PSN, opcode, length):
 * never 0. Its high half chooses the sample, its low half the slot. */
uint64_t roce_vtx_hash(const struct roce_vtx *tx);
/* Nonzero when a key hash is kept at a sampling level. */
int roce_vsample_keeps(uint64_t h, unsigned level);
/* The entry of a key hash, or NULL. */
const struct vs_entry *roce_vsample_find(const struct roce_vsample *s, uint64_t h);

/* Hash and equality of flow keys (the whole key, as the engine's flow table
 * compares them), for the analysis' flow indexes. */
static inline uint32_t roce_vflow_key_hash(const struct roce_flow_key *k)
{
    return roce_hash_bytes(k, sizeof *k);
}

static inline int roce_vflow_key_eq(const struct roce_flow_key *a, const struct roce_flow_key *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

#endif
