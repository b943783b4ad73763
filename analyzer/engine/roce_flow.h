/*
 * roce_flow.h - the flow record and the bounded flow table (not for front
 * ends).
 *
 * A flow is one direction of a queue pair, keyed by (source address,
 * destination address, BTH destination QP) (ANALYSIS.md, "Flows and
 * connections").
 * The record is in two parts: a hot one (struct roce_flow, two cache lines)
 * with what the lookup and every request and ACK touch, and a cold one
 * (struct roce_flow_cold) with the rest, reached only on events; each holds
 * container fields and analysis state. The table (roce_flow.c)
 * is a plain container: it finds, creates, evicts and pairs flows and keeps
 * the request flows of each address pair in a list, reading and writing
 * only its own fields. The analysis state is set up and torn down by the
 * hooks its owner installs (roce_engine.c), on the rare events of a flow's
 * life: created, paired, released and freed; never per packet.
 *
 * Ownership: the table owns the records. They live in fixed-size chunks (the
 * hot records, then the cold ones), so their addresses never change; handles (slot + 1) name them
 * in the indexes, the LRU list and the pair lists. A flow that is evicted or reused gets a new id,
 * so a stale reference (a CE mark, a verdict) is recognised by comparing ids. A key reused by a new
 * connection gets a new record (roce_flow_renew); the old one is closed but stays in the table.
 */
#ifndef ROCE_FLOW_H
#define ROCE_FLOW_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "roce_index.h"
#include "roce_lat.h"
#include "roce_totals.h"

#define ROCE_FLOW_CHUNK_SHIFT 10
#define ROCE_FLOW_CHUNK       (1u << ROCE_FLOW_CHUNK_SHIFT)
#define NAK_RING              4 /* recent NAKs per request flow */
#define ACK_BATCH             7 /* ACK latency samples added to a flow's distribution at once */
#define ACKREQ_RING           8 /* outstanding AckReq requests sampled per flow */

struct read_ring;   /* roce_read.h */
struct flow_ev;     /* roce_evidence.h */
struct dcqcn_state; /* roce_dcqcn.h */

/* A NAK (PSN sequence error or RNR) for the requests of a flow. */
struct nak_rec {
    uint64_t frame;
    uint64_t vq_seq; /* verdict queue sequence of the NAK frame */
    int64_t ts;
    uint32_t psn;
    uint8_t type; /* ROCE_TRIGGER_NAK or ROCE_TRIGGER_RNR */
    uint8_t used;
    uint8_t has_gen; /* gen_ns: from the out-of-sequence arrival that caused it */
    int64_t gen_ns;
};

/* Recent NAKs, newest at head - 1. */
struct nak_ring {
    struct nak_rec recs[NAK_RING];
    uint8_t head, count;
};

struct ackreq_rec {
    int64_t ts;
    uint32_t psn;
};

/* Request-side sequence state of a flow (its own requests, and what the
 * paired flow's responses said about them): roce_seq.c, roce_read.c. What
 * every request and ACK reads is in the hot record (struct req_hot, and
 * log_last beside it); this is the rest, in the cold record. */
struct req_state {
    uint8_t cm_start_valid;
    uint8_t ack_head; /* outstanding AckReq samples: oldest at ack_head */
    uint32_t first_psn;
    uint32_t last_retx_psn;
    uint32_t cm_start_psn;
    uint32_t cur_episode; /* index in the episode log + 1, 0 when not listed */
    /* the latest new request (when, and its frame) and the latest request
     * (roce_victims.c), when the flow's latest packet was not one (see
     * req_hot.new_last, req_last): roce_flow_last_new(), roce_flow_last_req_ts() */
    int64_t last_new_ts;
    uint64_t last_new_frame;
    int64_t last_req_ts;
    uint64_t last_read_frame; /* the latest new request, when it is a READ */
    struct ackreq_rec ackreq[ACKREQ_RING];
    struct read_ring *reads; /* allocated at the flow's first READ */
    struct nak_ring naks;
    uint64_t episode_frame; /* the first frame of the current episode */
    /* a response acknowledged a PSN no request had shown yet (ack_ahead):
     * that PSN and the response's frame */
    uint32_t ack_ahead_psn;
    uint64_t ack_ahead_frame; /* the first such response, 0 once counted */
    uint64_t ack_ahead_by;    /* the latest such response */
};

/* The request sequence state every request and ACK reads (hot record). */
struct req_hot {
    uint32_t highest;         /* last PSN of the span of the latest new request */
    uint8_t ack_n : 4;        /* outstanding AckReq samples (cold: req.ackreq) */
    uint8_t log_class : 4;    /* the ring of its recent requests (roce_reqlog.c) */
    uint8_t dcqcn_open;       /* CNPs whose after window is open (roce_dcqcn.c) */
    uint8_t have : 1;         /* a request PSN was seen */
    uint8_t in_episode : 1;   /* the previous request was retransmitted */
    uint8_t read_pending : 1; /* latest new request is a READ whose span is unknown */
    uint8_t ack_ahead : 1;    /* a response acknowledged a PSN ahead (req.ack_ahead_psn) */
    uint8_t read_frame : 1;   /* cold req.last_read_frame != 0 */
    /* the flow's latest packet was a new request, a request: its time and
     * frame (last_ts_ns, last_frame) are those of the latest new request,
     * of the latest request (cold req.last_new_*, last_req_ts otherwise) */
    uint8_t new_last : 1, req_last : 1;
    /* the cold ack_lat has its histogram (it allocates no more): ACK
     * latency samples go through ack_batch. A hint: 0 after a reset. */
    uint8_t lat_batch : 1;
};
_Static_assert(sizeof(struct req_hot) == 8, "req_hot packs into 8 bytes");

/* A flow: a hot record of two cache lines, what the lookup and every
 * request and ACK touch, and a cold record reached only on events (gaps,
 * episodes, NAKs, CE marks, CNPs, diagnoses, reports) and by a few
 * per-packet fields that would not fit (ANALYSIS.md's definitions are
 * those of the fields, whichever record holds them). The hot record's
 * counters are 32-bit, their carries in the cold record (the
 * roce_flow_*() getters give the whole count); opcodes are counted in the
 * hot record while they repeat (op_last, op_run) and folded into the cold
 * op_counts when the opcode changes. A hot record and its cold one are
 * allocated together, in the same chunk (roce_flow_cold() finds one from
 * the other without a pointer). [table] marks the container's fields; the
 * others belong to the analysis. */
#define ROCE_FLOW_ALIGN 64
#define ROCE_FLOW_HOT   128 /* bytes: two cache lines */
struct roce_flow {
    /* cache line 0: what a lookup compares, and the request sequence */
    _Alignas(ROCE_FLOW_ALIGN) struct roce_flow_key key; /* [table] */
    uint32_t interval_step; /* [table] the interval it was last listed in as active */
    uint32_t self;          /* [table] this flow's handle */
    uint32_t peer;          /* [table] handle of the paired flow, 0 = none */
    uint32_t peer_dqpn;     /* [table] the paired flow's dest QP (this flow's source QP) */
    struct req_hot req;
    /* cache line 1: what every packet updates */
    uint64_t id; /* [table] creation number from 1; 0 = free slot */
    uint64_t packets;
    int64_t last_ts_ns;
    uint64_t last_frame;
    uint64_t log_last; /* the flow's latest entry in the engine's recent requests
                          (its number + 1, 0: none; roce_reqlog.c); req's, reset with it */
    uint32_t bytes_lo, payload_lo, requests_lo, responses_lo; /* carries: cold *_hi */
    uint16_t last_sport; /* the latest request's UDP source port (RoCEv2); req's, reset with it */
    uint16_t op_run;     /* packets of opcode op_last not yet in the cold op_counts */
    uint8_t op_last;     /* opcode bits 4:0 */
    uint8_t transport;
    uint8_t paired_by;              /* [table] enum roce_paired_by */
    uint8_t is_request_flow : 1;    /* [table] listed with its address pair */
    uint8_t closed : 1;             /* [table] renewed: no longer found by its key */
    uint8_t priority_known : 1;     /* cold report.priority_frame != 0 */
    uint8_t cnp_priority_known : 1; /* cold report.cnp_priority_frame != 0 */
    uint8_t mac_known : 1;          /* cold mac_slot != 0 */
    uint8_t pmtu_code : 3;          /* the learned PMTU, 256 << (code - 1); 0: see cold pmtu */
};
_Static_assert(sizeof(struct roce_flow) == ROCE_FLOW_HOT, "the hot flow record is two cache lines");
_Static_assert(offsetof(struct roce_flow, id) == ROCE_FLOW_ALIGN,
               "the lookup's fields fill line 0");

/* The rest of a flow (see struct roce_flow). */
struct roce_flow_cold {
    /* ACK latency samples not yet in ack_lat, oldest first, once it has
     * its histogram (req_hot.lat_batch): added a batch at a time, and
     * before ack_lat is read (roce_seq_ack_fold) */
    _Alignas(ROCE_FLOW_ALIGN) int64_t ack_batch[ACK_BATCH];
    uint8_t ack_batched;
    struct req_state req;
    uint32_t bytes_hi, payload_hi, requests_hi, responses_hi; /* the hot counters' carries */
    uint32_t hash;                                            /* [table] */
    uint8_t have_cnp;
    uint8_t pmtu_learned;
    uint16_t mac_slot; /* MAC table entry of its frames' source MAC + 1 (roce_hosts.c) */
    uint32_t pmtu;
    uint32_t op_counts[32]; /* by opcode bits 4:0, without the hot op_run */
    uint64_t peer_id;       /* [table] */
    uint64_t older_id;      /* [table] the flow this one renewed (its key's previous record) */
    uint32_t older;         /*         and its handle, 0 = none (stale when its id differs) */
    uint32_t pair_entry;    /* [table] handle of its address-pair entry when a request flow */
    uint32_t pair_prev, pair_next;  /* [table] */
    struct roce_flow_report report; /* the other counters (those above: copied in to report) */
    /* NAKs this flow carried while it had no peer: adopted by the request
     * flow it gets paired with (the NAK was "seen on the paired flow") */
    struct nak_ring orphan_naks;
    /* ECN: CE marks since the last CNP of this request flow's connection */
    uint64_t ce_first, ce_last; /* CE sequence numbers + 1, 0 = none */
    /* ECN: CNPs this flow carried that wait for its connection */
    uint64_t cnp_wait_first, cnp_wait_last; /* waiting-CNP sequence numbers + 1, 0 = none */
    int64_t last_cnp_ts;
    uint64_t last_cnp_frame;
    /* the latest CNP this flow carried (its pacing, roce_ecn.c); frame 0: none */
    int64_t carried_cnp_ts;
    uint64_t carried_cnp_frame;
    struct roce_lat ack_lat;
    struct roce_lat cnp_lat;
    /* what the diagnoses need, allocated when first needed (its recent
     * requests: in the engine, by handle, roce_reqlog.c) */
    struct flow_ev *ev;        /* evidence frames, gaps to classify (roce_evidence.c) */
    struct dcqcn_state *dcqcn; /* CNPs being evaluated (roce_dcqcn.c) */
    /* its counts when an interval last listed it (roce_interval.c) */
    struct roce_flow_counts interval_mark;
};

/* The cold record of a flow: a chunk holds ROCE_FLOW_CHUNK hot records,
 * then their cold records in the same order. */
static inline struct roce_flow_cold *roce_flow_cold(const struct roce_flow *f)
{
    uint32_t i = (f->self - 1) & (ROCE_FLOW_CHUNK - 1);
    const struct roce_flow *first = f - i;
    return (struct roce_flow_cold *)(void *)(uintptr_t)(first + ROCE_FLOW_CHUNK) + i;
}

/* Add n to a hot 32-bit counter; nonzero when it carried (add 1 to its _hi). */
static inline int roce_flow_add32(uint32_t *lo, uint32_t n)
{
    *lo += n;
    return *lo < n;
}

static inline uint64_t roce_flow_join(uint32_t hi, uint32_t lo)
{
    return (uint64_t)hi << 32 | lo;
}

/* The whole counts of the hot counters. */
static inline uint64_t roce_flow_bytes(const struct roce_flow *f)
{
    return roce_flow_join(roce_flow_cold(f)->bytes_hi, f->bytes_lo);
}
static inline uint64_t roce_flow_payload_bytes(const struct roce_flow *f)
{
    return roce_flow_join(roce_flow_cold(f)->payload_hi, f->payload_lo);
}
static inline uint64_t roce_flow_requests(const struct roce_flow *f)
{
    return roce_flow_join(roce_flow_cold(f)->requests_hi, f->requests_lo);
}
static inline uint64_t roce_flow_responses(const struct roce_flow *f)
{
    return roce_flow_join(roce_flow_cold(f)->responses_hi, f->responses_lo);
}

/* The time of the latest request of f (0: none). Between the flow's
 * packets, and during the analysis of one before its time is written in. */
static inline int64_t roce_flow_last_req_ts(const struct roce_flow *f)
{
    return f->req.req_last ? f->last_ts_ns : roce_flow_cold(f)->req.last_req_ts;
}

/* The PMTU the hot record mirrors (0: none, see the cold pmtu). */
static inline uint32_t roce_flow_pmtu_hint(const struct roce_flow *f)
{
    return f->pmtu_code ? 256u << (f->pmtu_code - 1) : 0;
}

/* Mirror the cold PMTU in the hot record: call when pmtu or pmtu_learned change. */
static inline void roce_flow_pmtu_changed(struct roce_flow *f)
{
    const struct roce_flow_cold *c = roce_flow_cold(f);
    f->pmtu_code = 0;
    for (unsigned code = 1; c->pmtu_learned && code <= 5; code++)
        if (c->pmtu == 256u << (code - 1))
            f->pmtu_code = (uint8_t)code;
}

/* Count a packet of opcode op (bits 4:0) in f. */
static inline void roce_flow_count_op(struct roce_flow *f, unsigned op)
{
    if (op != f->op_last || f->op_run == UINT16_MAX) {
        if (f->op_run != 0)
            roce_flow_cold(f)->op_counts[f->op_last] += f->op_run;
        f->op_last = (uint8_t)op;
        f->op_run = 0;
    }
    f->op_run++;
}

/* What the table's owner does at the events of a flow's life (ctx is the
 * hooks' ctx; every hook must be set). None is called per packet. */
struct roce_flow_hooks {
    /* f was just created: its container fields are set, the rest is zero. */
    void (*created)(void *ctx, struct roce_flow *f, uint64_t frame, int64_t ts);
    /* a and b were just paired with each other. */
    void (*paired)(void *ctx, struct roce_flow *a, struct roce_flow *b);
    /* f leaves the table (evicted or removed), still paired and listed:
     * settle what waits on it. */
    void (*released)(void *ctx, struct roce_flow *f);
    /* Free what f owns: after released, and for every flow when the table
     * itself is freed. */
    void (*freed)(void *ctx, struct roce_flow *f);
    void *ctx;
};

/* The table's counts (the engine reports them in its totals). */
struct roce_flow_stats {
    uint64_t created, evicted, peak;
    uint64_t connections;    /* flow pairs currently paired */
    uint64_t alloc_failures; /* flows not created, request flows not listed */
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
    int64_t last_cnp_ts;     /* the latest CNP answering these flows (roce_ecn.c), */
    uint64_t last_cnp_frame; /* its frame; 0: none */
};

struct roce_flow_table {
    struct roce_flow **chunks;
    uint32_t n_chunks, max_chunks;
    uint32_t max_flows;
    uint32_t n_slots;   /* slots handed out so far */
    uint32_t free_head; /* free slot handles, linked through lru[].next */
    uint32_t lru_head, lru_tail;
    /* the LRU list, by handle: kept apart from the flows, whose lines would
     * otherwise be fetched three times per packet just to relink it */
    struct lru_link {
        uint32_t prev, next; /* handles, 0 = none */
    } * lru;
    uint32_t n_flows;
    uint64_t next_id;
    struct roce_index index;
    uint32_t last; /* handle of the last flow looked up */

    /* address pairs */
    struct pair_entry *pairs;
    uint32_t n_pairs_alloc, pairs_free;
    struct roce_index pair_index;

    struct roce_flow_hooks hooks;
    struct roce_flow_stats stats;

    /* The flows active in the current interval (roce_flow_touch), by
     * handle, each once; a handle may stay behind its flow's release (its
     * id then differs). Off while step is 0, until the first interval. */
    uint32_t step;
    uint32_t *active;
    uint32_t n_active, active_cap;
    uint8_t active_lost; /* the list could not grow: the interval walks every flow */
};

/* An empty table for at most max_flows flows. 0, or -1 when out of memory
 * (then roce_flow_table_free() cleans up). */
int roce_flow_table_init(struct roce_flow_table *t, uint32_t max_flows,
                         const struct roce_flow_hooks *hooks);
/* Free the table: the hooks' freed() for every flow, then the table's memory. */
void roce_flow_table_free(struct roce_flow_table *t);

/* The flow of a handle (slot + 1). */
static inline struct roce_flow *roce_flow_at(const struct roce_flow_table *t, uint32_t h)
{
    uint32_t slot = h - 1;
    return &t->chunks[slot >> ROCE_FLOW_CHUNK_SHIFT][slot & (ROCE_FLOW_CHUNK - 1)];
}

/* 32-bit hash of a flow key: its five 64-bit words, multiply-xorshift mixed. */
static inline uint32_t roce_flow_key_hash(const struct roce_flow_key *k)
{
    uint64_t w[sizeof *k / sizeof(uint64_t)], h = ROCE_HASH_SEED;
    memcpy(w, k, sizeof w);
    for (unsigned i = 0; i < sizeof w / sizeof w[0]; i++)
        h = roce_hash_mix(h, w[i]);
    return (uint32_t)(h ^ (h >> 32));
}

/* Find or create the flow of key and mark it recently used; when the table
 * is full the least recently used flow is evicted first. NULL only when out
 * of memory (counted in stats.alloc_failures). */
struct roce_flow *roce_flow_get(struct roce_flow_table *t, const struct roce_flow_key *key,
                                uint64_t frame, int64_t ts);
/* The flow of key, or NULL; does not touch the LRU order. With id != 0,
 * the flow of that id among the records of key (the current one and those
 * it renewed), or NULL when it is no longer tracked. */
struct roce_flow *roce_flow_find(const struct roce_flow_table *t, const struct roce_flow_key *key,
                                 uint64_t id);
/* Start a new record for f's key (a new connection reuses the key): f is
 * closed, no longer found by its key nor offered for pairing, but stays
 * tracked, listed and paired until it is evicted or retired; the new flow,
 * created as by roce_flow_get(), is found by the key from now on. NULL
 * only when out of memory (f is then closed all the same). */
struct roce_flow *roce_flow_renew(struct roce_flow_table *t, struct roce_flow *f, uint64_t frame,
                                  int64_t ts);
/* The least recently used flow, or NULL when the table is empty. */
struct roce_flow *roce_flow_oldest(const struct roce_flow_table *t);
/* Take f out of the table (hooks released, then freed). */
void roce_flow_remove(struct roce_flow_table *t, struct roce_flow *f);
/* The live flows in slot order: start with *h = 0; NULL after the last. */
struct roce_flow *roce_flow_next(const struct roce_flow_table *t, uint32_t *h);

/* List f among the flows active in the current interval (once per
 * interval); the table does so for every flow it finds or creates, the
 * analysis for a flow whose counts it changes from another flow's frame or
 * from a timer. A list that cannot grow is noted (active_lost), never
 * silent. */
void roce_flow_note_active(struct roce_flow_table *t, struct roce_flow *f);
static inline void roce_flow_touch(struct roce_flow_table *t, struct roce_flow *f)
{
    if (f->interval_step != t->step)
        roce_flow_note_active(t, f);
}
/* Start a new interval: the list emptied (interval steps skip 0). */
void roce_flow_next_interval(struct roce_flow_table *t);

/* Record that f carries requests (adds it to its address-pair list once). */
void roce_flow_mark_request(struct roce_flow_table *t, struct roce_flow *f);
/* The only request flow from src to dst, or NULL when there is none or several. */
struct roce_flow *roce_flow_only_request(const struct roce_flow_table *t, const uint8_t *src,
                                         const uint8_t *dst, uint8_t version);
/* Request flows from src to dst, unpaired ones first: first, then next (NULL at the end). */
struct roce_flow *roce_flow_pair_first(const struct roce_flow_table *t, const uint8_t *src,
                                       const uint8_t *dst, uint8_t version);
struct roce_flow *roce_flow_pair_next(const struct roce_flow_table *t, const struct roce_flow *f);

/* Pair two flows (unpairing what they were paired with; hooks paired). */
void roce_flow_pair(struct roce_flow_table *t, struct roce_flow *a, struct roce_flow *b,
                    enum roce_paired_by how);
/* The flow f is paired with, or NULL. */
struct roce_flow *roce_flow_peer(const struct roce_flow_table *t, const struct roce_flow *f);
/* The address-pair entry of the request flows src -> dst (version), or NULL. */
struct pair_entry *roce_flow_pair_of(struct roce_flow_table *t, const uint8_t *src,
                                     const uint8_t *dst, uint8_t version);

#endif
