/*
 * roce_flow.c - the bounded flow table.
 *
 * A flow is one direction of a queue pair, keyed by (source address,
 * destination address, BTH destination QP) (ANALYSIS-DEFINITIONS "Flow").
 * Flows live in chunks of FLOW_CHUNK slots allocated as the table grows, up
 * to cfg.max_flows; when it is full the least recently active flow is
 * evicted (counted in flows_evicted). Request flows are also listed per
 * (source, destination) address pair, which PSN pairing and the CNP fallback
 * search.
 */
#include <stdlib.h>
#include <string.h>

#include "roce_internal.h"


uint32_t roce_flow_handle(const struct roce_engine *e, const struct roce_flow *f)
{
    (void)e;
    return f->self;
}

static int key_eq(uint32_t val, const void *key, const void *ctx)
{
    const struct roce_flow *f = roce_flow_at(ctx, val);
    return memcmp(&f->key, key, sizeof f->key) == 0;
}


/* ---- LRU list (head = most recent) ---- */

static void lru_unlink(struct roce_engine *e, uint32_t h)
{
    struct lru_link *l = &e->lru[h];
    if (l->prev)
        e->lru[l->prev].next = l->next;
    else if (e->lru_head == h)
        e->lru_head = l->next;
    if (l->next)
        e->lru[l->next].prev = l->prev;
    else if (e->lru_tail == h)
        e->lru_tail = l->prev;
    l->prev = l->next = 0;
}

static void lru_push_head(struct roce_engine *e, uint32_t h)
{
    e->lru[h].prev = 0;
    e->lru[h].next = e->lru_head;
    if (e->lru_head)
        e->lru[e->lru_head].prev = h;
    e->lru_head = h;
    if (!e->lru_tail)
        e->lru_tail = h;
}

/* ---- address pairs ---- */

struct pair_key {
    const uint8_t *src, *dst;
    uint8_t version;
};

static uint32_t pair_hash(const uint8_t *src, const uint8_t *dst, uint8_t version)
{
    uint8_t buf[2 * ROCE_ADDR_LEN + 1];
    memcpy(buf, src, ROCE_ADDR_LEN);
    memcpy(buf + ROCE_ADDR_LEN, dst, ROCE_ADDR_LEN);
    buf[2 * ROCE_ADDR_LEN] = version;
    return roce_hash_bytes(buf, sizeof buf);
}

static int pair_eq(uint32_t val, const void *key, const void *ctx)
{
    const struct roce_engine *e = ctx;
    const struct pair_key *k = key;
    const struct pair_entry *p = &e->pairs[val - 1];
    return p->version == k->version && memcmp(p->src, k->src, ROCE_ADDR_LEN) == 0 &&
           memcmp(p->dst, k->dst, ROCE_ADDR_LEN) == 0;
}

static uint32_t pair_find(struct roce_engine *e, const uint8_t *src, const uint8_t *dst,
                          uint8_t version, uint32_t hash)
{
    struct pair_key k = {src, dst, version};
    return roce_index_find(&e->pair_ix, hash, pair_eq, &k, e);
}

static uint32_t pair_alloc(struct roce_engine *e)
{
    if (e->pairs_free) {
        uint32_t h = e->pairs_free;
        e->pairs_free = e->pairs[h - 1].next_free;
        return h;
    }
    if (e->n_pairs_alloc % FLOW_CHUNK == 0) {
        size_t n = (size_t)e->n_pairs_alloc + FLOW_CHUNK;
        struct pair_entry *np = realloc(e->pairs, n * sizeof *np);
        if (np == NULL)
            return 0;
        e->pairs = np;
    }
    return ++e->n_pairs_alloc;
}

/* Link a request flow into its address-pair list: unpaired flows at the
 * head, paired ones at the tail, so PSN pairing scans only unpaired ones. */
static void list_insert(struct roce_engine *e, struct roce_flow *f)
{
    struct pair_entry *p = &e->pairs[f->pair_entry - 1];
    uint32_t fh = f->self;
    if (!f->peer) {
        f->pair_prev = 0;
        f->pair_next = p->head;
        if (p->head)
            roce_flow_at(e, p->head)->pair_prev = fh;
        else
            p->tail = fh;
        p->head = fh;
    } else {
        f->pair_next = 0;
        f->pair_prev = p->tail;
        if (p->tail)
            roce_flow_at(e, p->tail)->pair_next = fh;
        else
            p->head = fh;
        p->tail = fh;
    }
}

static void list_remove(struct roce_engine *e, struct roce_flow *f)
{
    struct pair_entry *p = &e->pairs[f->pair_entry - 1];
    if (f->pair_prev)
        roce_flow_at(e, f->pair_prev)->pair_next = f->pair_next;
    else
        p->head = f->pair_next;
    if (f->pair_next)
        roce_flow_at(e, f->pair_next)->pair_prev = f->pair_prev;
    else
        p->tail = f->pair_prev;
    f->pair_prev = f->pair_next = 0;
}

void roce_flow_mark_request(struct roce_engine *e, struct roce_flow *f)
{
    if (f->is_request_flow)
        return;
    uint32_t hash = pair_hash(f->key.src, f->key.dst, f->key.version);
    uint32_t ph = pair_find(e, f->key.src, f->key.dst, f->key.version, hash);
    if (!ph) {
        ph = pair_alloc(e);
        if (!ph)
            return;
        if (roce_index_insert(&e->pair_ix, hash, ph) != 0) {
            e->pairs[ph - 1].next_free = e->pairs_free;
            e->pairs_free = ph;
            return;
        }
        struct pair_entry *p = &e->pairs[ph - 1];
        memset(p, 0, sizeof *p);
        memcpy(p->src, f->key.src, ROCE_ADDR_LEN);
        memcpy(p->dst, f->key.dst, ROCE_ADDR_LEN);
        p->version = f->key.version;
        p->hash = hash;
    }
    f->is_request_flow = 1;
    f->pair_entry = ph;
    e->pairs[ph - 1].count++;
    list_insert(e, f);
}

static void pair_unlink(struct roce_engine *e, struct roce_flow *f)
{
    if (!f->is_request_flow)
        return;
    struct pair_entry *p = &e->pairs[f->pair_entry - 1];
    list_remove(e, f);
    f->is_request_flow = 0;
    if (--p->count == 0) {
        roce_index_remove(&e->pair_ix, p->hash, f->pair_entry);
        p->next_free = e->pairs_free;
        e->pairs_free = f->pair_entry;
    }
    f->pair_entry = 0;
}

/* Move a request flow to where its pairing state puts it in its list. */
static void list_reposition(struct roce_engine *e, struct roce_flow *f)
{
    if (!f->is_request_flow)
        return;
    list_remove(e, f);
    list_insert(e, f);
}

struct roce_flow *roce_flow_pair_first(struct roce_engine *e, const uint8_t *src,
                                       const uint8_t *dst, uint8_t version)
{
    uint32_t ph = pair_find(e, src, dst, version, pair_hash(src, dst, version));
    return ph && e->pairs[ph - 1].head ? roce_flow_at(e, e->pairs[ph - 1].head) : NULL;
}

struct roce_flow *roce_flow_pair_next(struct roce_engine *e, const struct roce_flow *f)
{
    return f->pair_next ? roce_flow_at(e, f->pair_next) : NULL;
}

struct roce_flow *roce_flow_only_request(struct roce_engine *e, const uint8_t *src,
                                         const uint8_t *dst, uint8_t version)
{
    uint32_t ph = pair_find(e, src, dst, version, pair_hash(src, dst, version));
    if (!ph || e->pairs[ph - 1].count != 1)
        return NULL;
    return roce_flow_at(e, e->pairs[ph - 1].head);
}

/* ---- pairing ---- */

struct roce_flow *roce_flow_peer(const struct roce_engine *e, const struct roce_flow *f)
{
    return f->peer ? roce_flow_at(e, f->peer) : NULL;
}

static void unpair(struct roce_engine *e, struct roce_flow *f)
{
    struct roce_flow *p = roce_flow_peer(e, f);
    if (p != NULL) {
        p->peer = 0;
        p->peer_id = 0;
        p->peer_dqpn = 0;
        p->paired_by = ROCE_PAIRED_NONE;
        e->t.connections--;
        list_reposition(e, p);
    }
    f->peer = 0;
    f->peer_id = 0;
    f->peer_dqpn = 0;
    f->paired_by = ROCE_PAIRED_NONE;
    list_reposition(e, f);
}

void roce_flow_pair(struct roce_engine *e, struct roce_flow *a, struct roce_flow *b,
                    enum roce_paired_by how)
{
    if (a == b)
        return;
    if (a->peer && roce_flow_peer(e, a) == b) {
        a->paired_by = b->paired_by = (uint8_t)how;
        return;
    }
    unpair(e, a);
    unpair(e, b);
    a->peer = roce_flow_handle(e, b);
    b->peer = roce_flow_handle(e, a);
    a->peer_id = b->id;
    b->peer_id = a->id;
    a->peer_dqpn = b->key.dqpn;
    b->peer_dqpn = a->key.dqpn;
    a->paired_by = b->paired_by = (uint8_t)how;
    e->t.connections++;
    list_reposition(e, a);
    list_reposition(e, b);
    roce_seq_adopt_naks(e, a, b);
    roce_read_share_pmtu(a, b);
}

/* ---- create, find, evict ---- */

static void flow_release(struct roce_engine *e, struct roce_flow *f, uint32_t h)
{
    roce_ecn_forget_flow(e, f);
    roce_seq_drop_naks(e, &f->req.naks);
    roce_seq_drop_naks(e, &f->orphan_naks);
    unpair(e, f);
    pair_unlink(e, f);
    roce_index_remove(&e->flow_ix, f->hash, h);
    lru_unlink(e, h);
    roce_lat_free(&f->ack_lat);
    roce_lat_free(&f->cnp_lat);
    roce_read_free(f);
    if (e->last_flow == h)
        e->last_flow = 0;
    f->id = 0;
    e->lru[h].next = e->free_head;
    e->free_head = h;
    e->n_flows--;
}

static uint32_t slot_alloc(struct roce_engine *e)
{
    if (e->free_head) {
        uint32_t h = e->free_head;
        e->free_head = e->lru[h].next;
        return h;
    }
    if (e->n_slots == e->n_chunks * FLOW_CHUNK) {
        if (e->n_chunks == e->max_chunks)
            return 0;
        e->chunks[e->n_chunks] = calloc(FLOW_CHUNK, sizeof(struct roce_flow));
        if (e->chunks[e->n_chunks] == NULL)
            return 0;
        e->n_chunks++;
    }
    return ++e->n_slots;
}

struct roce_flow *roce_flow_find(struct roce_engine *e, const struct roce_flow_key *key)
{
    if (e->last_flow) {
        struct roce_flow *f = roce_flow_at(e, e->last_flow);
        if (memcmp(&f->key, key, sizeof *key) == 0)
            return f;
    }
    uint32_t h = roce_index_find(&e->flow_ix, roce_flow_key_hash(key), key_eq, key, e);
    return h ? roce_flow_at(e, h) : NULL;
}

const struct roce_lat *roce_engine_flow_latency(const struct roce_engine *e,
                                                const struct roce_flow_key *key,
                                                enum roce_latency_kind which)
{
    uint32_t h = roce_index_find(&e->flow_ix, roce_flow_key_hash(key), key_eq, key, e);
    if (!h)
        return NULL;
    const struct roce_flow *f = roce_flow_at(e, h);
    return which == ROCE_LATENCY_CNP ? &f->cnp_lat : &f->ack_lat;
}

struct roce_flow *roce_flow_get(struct roce_engine *e, const struct roce_flow_key *key,
                                uint64_t frame, int64_t ts)
{
    uint32_t hash, h;
    struct roce_flow *f;

    if (e->last_flow) {
        f = roce_flow_at(e, e->last_flow);
        if (memcmp(&f->key, key, sizeof *key) == 0)
            return f; /* already at the LRU head */
    }
    hash = roce_flow_key_hash(key);
    h = roce_index_find(&e->flow_ix, hash, key_eq, key, e);
    if (h) {
        f = roce_flow_at(e, h);
        if (e->lru_head != h) {
            lru_unlink(e, h);
            lru_push_head(e, h);
        }
        e->last_flow = h;
        return f;
    }
    if (e->n_flows >= e->cfg.max_flows) {
        uint32_t victim = e->lru_tail;
        flow_release(e, roce_flow_at(e, victim), victim);
        e->t.flows_evicted++;
    }
    h = slot_alloc(e);
    if (!h)
        return NULL;
    f = roce_flow_at(e, h);
    memset(f, 0, sizeof *f);
    if (roce_index_insert(&e->flow_ix, hash, h) != 0) {
        e->lru[h].next = e->free_head;
        e->free_head = h;
        return NULL;
    }
    f->key = *key;
    f->self = h;
    f->hash = hash;
    f->id = ++e->next_flow_id;
    f->transport = ROCE_TRANSPORT_NONE;
    f->pmtu = e->cfg.pmtu;
    f->r.first_frame = frame;
    f->r.first_ts_ns = ts;
    f->last_ts_ns = ts;
    roce_lat_init(&f->ack_lat);
    roce_lat_init(&f->cnp_lat);
    lru_push_head(e, h);
    e->n_flows++;
    e->last_flow = h;
    e->t.flows_created++;
    if (e->n_flows > e->t.peak_flows)
        e->t.peak_flows = e->n_flows;
    return f;
}

size_t roce_engine_retire_idle(struct roce_engine *e, int64_t idle_ns)
{
    size_t n = 0;
    /* the LRU tail is the least recently active flow */
    while (e->lru_tail) {
        uint32_t h = e->lru_tail;
        struct roce_flow *f = roce_flow_at(e, h);
        if (e->now - f->last_ts_ns <= idle_ns)
            break;
        flow_release(e, f, h);
        e->t.flows_retired++;
        n++;
    }
    return n;
}

int roce_flows_init(struct roce_engine *e)
{
    e->max_chunks = (e->cfg.max_flows + FLOW_CHUNK - 1) / FLOW_CHUNK;
    e->chunks = calloc(e->max_chunks, sizeof *e->chunks);
    e->lru = calloc((size_t)e->max_chunks * FLOW_CHUNK + 1, sizeof *e->lru);
    if (e->chunks == NULL || e->lru == NULL)
        return -1;
    if (roce_index_init(&e->flow_ix, 1024) != 0 || roce_index_init(&e->pair_ix, 256) != 0)
        return -1;
    return 0;
}

void roce_flows_free(struct roce_engine *e)
{
    for (uint32_t c = 0; c < e->n_chunks; c++) {
        for (uint32_t i = 0; i < FLOW_CHUNK; i++) {
            struct roce_flow *f = &e->chunks[c][i];
            if (f->id) {
                roce_lat_free(&f->ack_lat);
                roce_lat_free(&f->cnp_lat);
                roce_read_free(f);
            }
        }
        free(e->chunks[c]);
    }
    free(e->chunks);
    free(e->lru);
    e->lru = NULL;
    free(e->pairs);
    roce_index_free(&e->flow_ix);
    roce_index_free(&e->pair_ix);
    e->chunks = NULL;
    e->pairs = NULL;
}
