/*
 * roce_internal.h - engine state shared by the engine's modules (not for
 * front ends: they use roce_engine.h).
 *
 * Ownership: struct roce_engine owns everything below. Flows live in
 * fixed-size chunks so their addresses never change; handles (slot + 1)
 * name them in the indexes, the LRU list and the pair lists. A flow that is
 * evicted or reused gets a new id, so stale references (CE marks, verdicts)
 * are recognised by comparing ids.
 */
#ifndef ROCE_INTERNAL_H
#define ROCE_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "roce_engine.h"
#include "roce_index.h"
#include "roce_ring.h"

#define FLOW_CHUNK_SHIFT 10
#define FLOW_CHUNK       (1u << FLOW_CHUNK_SHIFT)
#define READ_RING        16 /* recent READ requests per flow (a NIC allows 16 outstanding) */
#define NAK_RING         4  /* recent NAKs per request flow */
#define ACKREQ_RING      8  /* outstanding AckReq requests sampled per flow */
#define CM_PENDING       64 /* CM REQs waiting for their REP */

/* How a READ's PSN span is known (roce_read.c). */
enum roce_span_state {
    ROCE_SPAN_UNKNOWN = 0,
    ROCE_SPAN_GUESS = 1, /* from the configured fallback PMTU */
    ROCE_SPAN_KNOWN = 2  /* from a learned PMTU or from the responses */
};

/* An RDMA READ request and what its responses showed. */
struct read_span {
    uint64_t frame;
    uint32_t psn;
    uint32_t dma_len;
    uint32_t span;      /* PSNs occupied (1 while unknown) */
    uint32_t next_resp; /* PSN of the next expected response */
    uint8_t span_state; /* enum roce_span_state */
    uint8_t dma_known;
    uint8_t gap_seen; /* a response gap was seen inside this READ */
};

struct read_ring {
    struct read_span r[READ_RING];
    uint8_t head, n; /* newest at head - 1 */
};

/* A NAK (PSN sequence error or RNR) for the requests of a flow. */
struct nak_rec {
    uint64_t frame;
    uint64_t vq_seq; /* verdict queue sequence of the NAK frame */
    int64_t ts;
    uint32_t psn;
    uint8_t type; /* ROCE_TRIGGER_NAK or ROCE_TRIGGER_RNR */
    uint8_t used;
};

/* Recent NAKs, newest at head - 1. */
struct nak_ring {
    struct nak_rec r[NAK_RING];
    uint8_t head, n;
};

struct ackreq_rec {
    int64_t ts;
    uint32_t psn;
};

/* Request-side sequence state of a flow (its own requests, and what the
 * paired flow's responses said about them). */
struct req_state {
    uint8_t have;          /* a request PSN was seen */
    uint8_t in_episode;    /* the previous request was retransmitted */
    uint8_t read_pending;  /* latest new request is a READ whose span is unknown */
    uint8_t cm_start_valid;
    uint32_t first_psn;
    uint32_t highest;      /* last PSN of the span of the latest new request */
    uint32_t last_retx_psn;
    uint32_t cm_start_psn;
    uint32_t cur_episode;  /* index in the episode log + 1, 0 when not listed */
    uint64_t episode_frame;
    uint64_t last_read_frame; /* the latest new request, when it is a READ */
    struct read_ring *reads;  /* allocated at the flow's first READ */
    uint8_t ack_head, ack_n;  /* outstanding AckReq samples: oldest at ack_head */
    struct ackreq_rec ackreq[ACKREQ_RING];
    struct nak_ring naks;
};

/* A flow. Laid out for the per-packet path: the first cache line holds what
 * a lookup compares, the second the counters every packet updates, then the
 * opcode counts and the request sequence state (its hot part first); all
 * that only some packets touch, and the report's other counters, follow. */
struct roce_flow {
    /* identity (cache line 0) */
    struct roce_flow_key key;
    uint32_t hash;
    uint32_t self;      /* this flow's handle */
    uint32_t peer;      /* handle of the paired flow, 0 = none */
    uint32_t peer_dqpn; /* the paired flow's dest QP (this flow's source QP) */
    uint8_t transport;
    uint8_t paired_by;
    uint8_t is_request_flow;
    uint8_t have_cnp;
    uint8_t pmtu_learned;
    /* every packet (cache line 1) */
    uint64_t id; /* 0 = free slot */
    uint64_t packets, bytes, payload_bytes, request_packets, response_packets;
    uint64_t last_frame;
    int64_t last_ts_ns;
    /* opcode counts (one of them per packet; cache lines 2-3) */
    uint32_t op_counts[32]; /* by opcode bits 4:0 */
    /* request PSN state, its hot part first (cache line 4) */
    uint32_t pmtu;
    struct req_state req;
    /* the rest */
    uint64_t peer_id;
    uint32_t pair_entry; /* handle of its address-pair entry when a request flow */
    uint32_t pair_prev, pair_next;
    struct roce_flow_report r; /* the other counters (the fields above are copied in at report time) */
    /* NAKs this flow carried while it had no peer: adopted by the request
     * flow it gets paired with (the NAK was "seen on the paired flow") */
    struct nak_ring orphan_naks;
    /* ECN: CE marks since the last CNP of this request flow's connection */
    uint64_t ce_first, ce_last; /* CE sequence numbers + 1, 0 = none */
    int64_t last_cnp_ts;
    uint64_t last_cnp_frame;
    struct roce_lat ack_lat;
    struct roce_lat cnp_lat;
};

/* Request flows sharing (src, dst, version): for PSN pairing and the CNP fallback. */
struct pair_entry {
    uint8_t src[ROCE_ADDR_LEN];
    uint8_t dst[ROCE_ADDR_LEN];
    uint8_t version;
    uint32_t hash;
    uint32_t count; /* request flows in the list */
    uint32_t head;  /* flow handles: unpaired flows first, then paired ones */
    uint32_t tail;
    uint32_t next_free;
};

/* A CE mark waiting to be settled by a CNP or by the window running out. */
struct ce_entry {
    uint64_t frame;
    uint64_t vq_seq;
    uint64_t flow_id;
    uint64_t next; /* next CE of the same flow: sequence + 1, 0 = none */
    int64_t ts;
    uint32_t flow; /* handle */
    uint8_t answered; /* covered by the previous CNP */
    uint8_t live;
};

/* An open verdict waiting for late annotations. */
struct vq_entry {
    struct roce_verdict v;
    int64_t deadline;
    uint16_t pending;
};

/* PFC pause state of one priority (roce_pfc.c). */
struct pfc_state {
    uint8_t paused;
    int64_t start, end;   /* accounted up to start; paused until end */
    int64_t window;       /* index of the current storm window, -1 none */
    int64_t window_paused;
};

struct cm_req {
    uint32_t comm_id;
    uint8_t src[ROCE_ADDR_LEN], dst[ROCE_ADDR_LEN];
    uint8_t version, is_v6, valid;
    uint32_t qpn;       /* requester (active side) QPN */
    uint32_t start_psn; /* REQ starting PSN */
    uint32_t pmtu;
};

struct roce_engine {
    struct roce_config cfg;
    struct roce_decode_cfg dcfg;
    struct roce_totals t;
    int64_t now; /* latest capture time seen */
    uint8_t have_now;

    /* flows */
    struct roce_flow **chunks;
    uint32_t n_chunks, max_chunks;
    uint32_t n_slots;   /* slots handed out so far */
    uint32_t free_head; /* free slot handles, linked through lru[].next */
    uint32_t lru_head, lru_tail;
    /* the LRU list, by handle: kept apart from the flows, whose 1 KB would
     * otherwise be fetched three times per packet just to relink it */
    struct lru_link {
        uint32_t prev, next; /* handles, 0 = none */
    } * lru;
    uint32_t n_flows;
    uint64_t next_flow_id;
    struct roce_index flow_ix;
    uint32_t last_flow; /* handle of the last flow looked up */

    /* address pairs */
    struct pair_entry *pairs;
    uint32_t n_pairs_alloc, pairs_free;
    struct roce_index pair_ix;

    /* episodes */
    struct roce_episode *episodes;
    uint32_t n_episodes, cap_episodes;

    /* CE marks in arrival order (struct ce_entry) */
    struct roce_ring ce;

    /* open verdicts (struct vq_entry), at most cfg.max_open_verdicts */
    struct roce_ring vq;

    struct roce_lat cnp_lat;
    struct roce_lat ack_lat;

    /* the frame being analysed: where its verdict will go if it has one,
     * how many late annotations it waits for, and until when */
    uint64_t cur_seq;
    unsigned cur_pending;
    int64_t cur_deadline;

    struct cm_req cm[CM_PENDING];
    uint32_t cm_next;

    struct pfc_state pfc[ROCE_PFC_PRIORITIES + 1]; /* the last one: 802.3x PAUSE */
    int64_t pfc_origin; /* start of the first storm window */
    uint8_t pfc_have_origin;
};

/* ---- flows (roce_flow.c) ---- */
/* The flow of a handle (slot + 1). */
static inline struct roce_flow *roce_flow_at(const struct roce_engine *e, uint32_t h)
{
    uint32_t slot = h - 1;
    return &e->chunks[slot >> FLOW_CHUNK_SHIFT][slot & (FLOW_CHUNK - 1)];
}

/* 32-bit hash of a flow key: its five 64-bit words, multiply-xorshift mixed. */
static inline uint32_t roce_flow_key_hash(const struct roce_flow_key *k)
{
    uint64_t w[sizeof *k / sizeof(uint64_t)], h = 0x9E3779B97F4A7C15ull;
    memcpy(w, k, sizeof w);
    for (unsigned i = 0; i < sizeof w / sizeof w[0]; i++) {
        h = (h ^ w[i]) * 0xBF58476D1CE4E5B9ull;
        h ^= h >> 31;
    }
    return (uint32_t)(h ^ (h >> 32));
}
uint32_t roce_flow_handle(const struct roce_engine *e, const struct roce_flow *f);
/* Find or create the flow of key; NULL only when out of memory. Marks it recently used. */
struct roce_flow *roce_flow_get(struct roce_engine *e, const struct roce_flow_key *key,
                                uint64_t frame, int64_t ts);
/* Find without creating. */
struct roce_flow *roce_flow_find(struct roce_engine *e, const struct roce_flow_key *key);
/* Record that f carries requests (adds it to its address-pair list once). */
void roce_flow_mark_request(struct roce_engine *e, struct roce_flow *f);
/* The only request flow from src to dst, or NULL when there is none or several. */
struct roce_flow *roce_flow_only_request(struct roce_engine *e, const uint8_t *src,
                                         const uint8_t *dst, uint8_t version);
/* Request flows from src to dst: first, then next (NULL at the end). */
struct roce_flow *roce_flow_pair_first(struct roce_engine *e, const uint8_t *src,
                                       const uint8_t *dst, uint8_t version);
struct roce_flow *roce_flow_pair_next(struct roce_engine *e, const struct roce_flow *f);
/* Pair two flows (unpairing what they were paired with). */
void roce_flow_pair(struct roce_engine *e, struct roce_flow *a, struct roce_flow *b,
                    enum roce_paired_by how);
struct roce_flow *roce_flow_peer(const struct roce_engine *e, const struct roce_flow *f);
void roce_flows_free(struct roce_engine *e);
int roce_flows_init(struct roce_engine *e);

/* ---- sequence analysis (roce_seq.c) ---- */
void roce_seq_request(struct roce_engine *e, struct roce_flow *f, const struct roce_pkt *pkt,
                      struct roce_verdict *v);
void roce_seq_response(struct roce_engine *e, struct roce_flow *f, const struct roce_pkt *pkt,
                       struct roce_verdict *v);
/* Forget the request PSN history of f (a new connection reuses its QP). */
void roce_seq_reset(struct roce_engine *e, struct roce_flow *f);
/* a and b were just paired: each adopts the NAKs the other carried unpaired. */
void roce_seq_adopt_naks(struct roce_engine *e, struct roce_flow *a, struct roce_flow *b);
/* Settle the verdicts still waiting on the NAKs of a ring, and empty it. */
void roce_seq_drop_naks(struct roce_engine *e, struct nak_ring *ring);

/* ---- READ spans and responses, PMTU (roce_read.c) ---- */
/* Remember a READ request (is_new: a new request, not a re-issue); NULL when
 * out of memory. Its span follows the flow's PMTU when there is one. */
struct read_span *roce_read_push(struct roce_flow *f, const struct roce_pkt *pkt, uint64_t frame,
                                 int is_new);
/* The READ that is the flow's latest new request, or NULL. */
struct read_span *roce_read_latest_new(const struct roce_flow *f);
/* Newest READ whose span holds psn (an unknown span reaches forward). */
struct read_span *roce_read_covering(const struct roce_flow *f, uint32_t psn);
/* Set a READ's span; moves the flow's highest PSN if it is the latest request. */
void roce_read_set_span(struct roce_flow *f, struct read_span *r, uint32_t span,
                        enum roce_span_state state);
/* A FIRST/MIDDLE payload (exact: from a READ response, else a lower bound) or a
 * CM path MTU gives the connection's PMTU. */
void roce_read_learn_pmtu(struct roce_engine *e, struct roce_flow *f, uint32_t pmtu, int exact);
/* a and b were just paired: the PMTU one of them learned is the connection's. */
void roce_read_share_pmtu(struct roce_flow *a, struct roce_flow *b);
/* A READ response on y for the READs of x. */
void roce_read_response(struct roce_engine *e, struct roce_flow *x, struct roce_flow *y,
                        const struct roce_pkt *pkt, struct roce_verdict *v);
void roce_read_free(struct roce_flow *f);

/* ---- ECN (roce_ecn.c) ---- */
int roce_ecn_init(struct roce_engine *e);
void roce_ecn_ce(struct roce_engine *e, struct roce_flow *f, struct roce_verdict *v);
void roce_ecn_cnp(struct roce_engine *e, struct roce_flow *cnp_flow, struct roce_verdict *v);
/* Settle CE marks older than the window at time now (all when flush). */
void roce_ecn_expire(struct roce_engine *e, int64_t now, int flush);
/* Drop the CE marks of a flow that goes away. */
void roce_ecn_forget_flow(struct roce_engine *e, struct roce_flow *f);

/* ---- CM (roce_cm.c) ---- */
void roce_cm_packet(struct roce_engine *e, const struct roce_pkt *pkt, const uint8_t *data,
                    size_t caplen, uint64_t frame, int64_t ts);

/* ---- PFC / PAUSE (roce_pfc.c) ---- */
void roce_pfc_init(struct roce_engine *e);
void roce_pfc_frame(struct roce_engine *e, const struct roce_pkt *pkt, int64_t ts);
/* Bring paused times up to now (final: end of capture, running pauses run out). */
void roce_pfc_settle(struct roce_engine *e, int64_t now, int final);

/* ---- verdict queue (roce_verdq.c) ---- */
int roce_vq_init(struct roce_engine *e);
/* Append the verdict of the current frame, waiting for `pending` annotations
 * until deadline. Returns its sequence number. */
uint64_t roce_vq_push(struct roce_engine *e, const struct roce_verdict *v, unsigned pending,
                      int64_t deadline);
/* The open verdict with this sequence and frame, or NULL when already settled. */
struct roce_verdict *roce_vq_get(struct roce_engine *e, uint64_t seq, uint64_t frame);
/* One awaited annotation arrived (or will not come). */
void roce_vq_done(struct roce_engine *e, uint64_t seq, uint64_t frame);
/* Deliver settled verdicts from the head (all when flush). */
void roce_vq_release(struct roce_engine *e, int64_t now, int flush);

/* The current frame will wait for one more annotation, until deadline. */
static inline void roce_cur_expect(struct roce_engine *e, int64_t deadline)
{
    e->cur_pending++;
    if (deadline > e->cur_deadline)
        e->cur_deadline = deadline;
}

/* ---- episodes ---- */
struct roce_episode *roce_episode_new(struct roce_engine *e, uint32_t *index_plus_one);

#endif
