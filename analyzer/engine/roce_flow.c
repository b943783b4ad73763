/*
 * roce_flow.c - the bounded flow table (see roce_flow.h): a plain
 * container that knows no analysis.
 *
 * Flows live in chunks of ROCE_FLOW_CHUNK slots allocated as the table
 * grows, up to max_flows; when it is full the least recently active flow is
 * evicted (counted in stats.evicted). Request flows are also listed per
 * (source, destination) address pair, which PSN pairing and the CNP
 * fallback search. What the analysis keeps per flow is set up and torn down
 * through the hooks.
 */
#include "roce_flow.h"

#include <stdlib.h>
#include <string.h>

/* The cold record of the flow of handle h. */
static struct roce_flow_cold *cold_at(const struct roce_flow_table *t, uint32_t h)
{
    return roce_flow_cold(roce_flow_at(t, h));
}

static int key_eq(uint32_t val, const void *key, const void *ctx)
{
    const struct roce_flow *f = roce_flow_at(ctx, val);
    return memcmp(&f->key, key, sizeof f->key) == 0;
}

/* ---- LRU list (head = most recent) ---- */

static void lru_unlink(struct roce_flow_table *t, uint32_t h)
{
    struct lru_link *l = &t->lru[h];
    if (l->prev)
        t->lru[l->prev].next = l->next;
    else if (t->lru_head == h)
        t->lru_head = l->next;
    if (l->next)
        t->lru[l->next].prev = l->prev;
    else if (t->lru_tail == h)
        t->lru_tail = l->prev;
    l->prev = l->next = 0;
}

static void lru_push_head(struct roce_flow_table *t, uint32_t h)
{
    t->lru[h].prev = 0;
    t->lru[h].next = t->lru_head;
    if (t->lru_head)
        t->lru[t->lru_head].prev = h;
    t->lru_head = h;
    if (!t->lru_tail)
        t->lru_tail = h;
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
    const struct roce_flow_table *t = ctx;
    const struct pair_key *k = key;
    const struct pair_entry *p = &t->pairs[val - 1];
    return p->version == k->version && memcmp(p->src, k->src, ROCE_ADDR_LEN) == 0 &&
           memcmp(p->dst, k->dst, ROCE_ADDR_LEN) == 0;
}

/* The handle of an address pair's entry, or 0. */
static uint32_t pair_find(const struct roce_flow_table *t, const uint8_t *src, const uint8_t *dst,
                          uint8_t version, uint32_t hash)
{
    struct pair_key k = {src, dst, version};
    return roce_index_find(&t->pair_index, hash, pair_eq, &k, t);
}

/* A free address-pair entry (its handle), or 0 when out of memory. */
static uint32_t pair_alloc(struct roce_flow_table *t)
{
    if (t->pairs_free) {
        uint32_t h = t->pairs_free;
        t->pairs_free = t->pairs[h - 1].next_free;
        return h;
    }
    if (t->n_pairs_alloc % ROCE_FLOW_CHUNK == 0) {
        size_t n = (size_t)t->n_pairs_alloc + ROCE_FLOW_CHUNK;
        struct pair_entry *np = realloc(t->pairs, n * sizeof *np);
        if (np == NULL)
            return 0;
        t->pairs = np;
    }
    return ++t->n_pairs_alloc;
}

static void pair_release(struct roce_flow_table *t, uint32_t ph)
{
    t->pairs[ph - 1].next_free = t->pairs_free;
    t->pairs_free = ph;
}

/* Link a request flow into its address-pair list between two neighbours
 * (handles, 0 = the list's end): unpaired flows lead the list, paired ones
 * follow, so PSN pairing scans only unpaired ones. */
static void list_link(struct roce_flow_table *t, struct roce_flow *f, uint32_t prev, uint32_t next)
{
    struct roce_flow_cold *c = roce_flow_cold(f);
    struct pair_entry *p = &t->pairs[c->pair_entry - 1];
    c->pair_prev = prev;
    c->pair_next = next;
    *(prev ? &cold_at(t, prev)->pair_next : &p->head) = f->self;
    *(next ? &cold_at(t, next)->pair_prev : &p->tail) = f->self;
}

static void list_insert(struct roce_flow_table *t, struct roce_flow *f)
{
    const struct pair_entry *p = &t->pairs[roce_flow_cold(f)->pair_entry - 1];
    if (!f->peer)
        list_link(t, f, 0, p->head);
    else
        list_link(t, f, p->tail, 0);
}

static void list_remove(struct roce_flow_table *t, struct roce_flow *f)
{
    struct roce_flow_cold *c = roce_flow_cold(f);
    struct pair_entry *p = &t->pairs[c->pair_entry - 1];
    *(c->pair_prev ? &cold_at(t, c->pair_prev)->pair_next : &p->head) = c->pair_next;
    *(c->pair_next ? &cold_at(t, c->pair_next)->pair_prev : &p->tail) = c->pair_prev;
    c->pair_prev = c->pair_next = 0;
}

void roce_flow_mark_request(struct roce_flow_table *t, struct roce_flow *f)
{
    if (f->is_request_flow)
        return;
    uint32_t hash = pair_hash(f->key.src, f->key.dst, f->key.version);
    uint32_t ph = pair_find(t, f->key.src, f->key.dst, f->key.version, hash);
    if (!ph) {
        ph = pair_alloc(t);
        if (!ph) {
            t->stats.alloc_failures++; /* not listed: PSN pairing and the CNP fallback miss it */
            return;
        }
        if (roce_index_insert(&t->pair_index, hash, ph) != 0) {
            pair_release(t, ph);
            t->stats.alloc_failures++;
            return;
        }
        struct pair_entry *p = &t->pairs[ph - 1];
        memset(p, 0, sizeof *p);
        memcpy(p->src, f->key.src, ROCE_ADDR_LEN);
        memcpy(p->dst, f->key.dst, ROCE_ADDR_LEN);
        p->version = f->key.version;
        p->hash = hash;
    }
    f->is_request_flow = 1;
    roce_flow_cold(f)->pair_entry = ph;
    t->pairs[ph - 1].count++;
    list_insert(t, f);
}

static void pair_unlink(struct roce_flow_table *t, struct roce_flow *f)
{
    if (!f->is_request_flow)
        return;
    struct roce_flow_cold *c = roce_flow_cold(f);
    struct pair_entry *p = &t->pairs[c->pair_entry - 1];
    list_remove(t, f);
    f->is_request_flow = 0;
    if (--p->count == 0) {
        roce_index_remove(&t->pair_index, p->hash, c->pair_entry);
        pair_release(t, c->pair_entry);
    }
    c->pair_entry = 0;
}

/* Move a request flow to where its pairing state puts it in its list. */
static void list_reposition(struct roce_flow_table *t, struct roce_flow *f)
{
    if (!f->is_request_flow)
        return;
    list_remove(t, f);
    list_insert(t, f);
}

struct roce_flow *roce_flow_pair_first(const struct roce_flow_table *t, const uint8_t *src,
                                       const uint8_t *dst, uint8_t version)
{
    uint32_t ph = pair_find(t, src, dst, version, pair_hash(src, dst, version));
    return ph && t->pairs[ph - 1].head ? roce_flow_at(t, t->pairs[ph - 1].head) : NULL;
}

struct roce_flow *roce_flow_pair_next(const struct roce_flow_table *t, const struct roce_flow *f)
{
    uint32_t next = roce_flow_cold(f)->pair_next;
    return next ? roce_flow_at(t, next) : NULL;
}

struct roce_flow *roce_flow_only_request(const struct roce_flow_table *t, const uint8_t *src,
                                         const uint8_t *dst, uint8_t version)
{
    uint32_t ph = pair_find(t, src, dst, version, pair_hash(src, dst, version));
    return ph && t->pairs[ph - 1].count == 1 ? roce_flow_at(t, t->pairs[ph - 1].head) : NULL;
}

/* ---- pairing ---- */

struct pair_entry *roce_flow_pair_of(struct roce_flow_table *t, const uint8_t *src,
                                     const uint8_t *dst, uint8_t version)
{
    uint32_t ph = pair_find(t, src, dst, version, pair_hash(src, dst, version));
    return ph ? &t->pairs[ph - 1] : NULL;
}

struct roce_flow *roce_flow_peer(const struct roce_flow_table *t, const struct roce_flow *f)
{
    return f->peer ? roce_flow_at(t, f->peer) : NULL;
}

/* Forget f's peer (one side of a pair). */
static void clear_peer(struct roce_flow_table *t, struct roce_flow *f)
{
    f->peer = 0;
    f->peer_dqpn = 0;
    roce_flow_cold(f)->peer_id = 0;
    f->paired_by = ROCE_PAIRED_NONE;
    list_reposition(t, f);
}

static void unpair(struct roce_flow_table *t, struct roce_flow *f)
{
    struct roce_flow *p = roce_flow_peer(t, f);
    if (p != NULL) {
        clear_peer(t, p);
        t->stats.connections--;
    }
    clear_peer(t, f);
}

/* Make b a's peer (one side of a pair). */
static void set_peer(struct roce_flow_table *t, struct roce_flow *a, const struct roce_flow *b,
                     enum roce_paired_by how)
{
    a->peer = b->self;
    a->peer_dqpn = b->key.dqpn;
    roce_flow_cold(a)->peer_id = b->id;
    a->paired_by = (uint8_t)how;
    list_reposition(t, a);
}

void roce_flow_pair(struct roce_flow_table *t, struct roce_flow *a, struct roce_flow *b,
                    enum roce_paired_by how)
{
    if (a == b)
        return;
    if (a->peer && roce_flow_peer(t, a) == b) {
        a->paired_by = b->paired_by = (uint8_t)how;
        return;
    }
    unpair(t, a);
    unpair(t, b);
    set_peer(t, a, b, how);
    set_peer(t, b, a, how);
    t->stats.connections++;
    t->hooks.paired(t->hooks.ctx, a, b);
}

/* ---- create, find, evict ---- */

/* Take the flow of handle h out of the table. */
static void release(struct roce_flow_table *t, struct roce_flow *f, uint32_t h)
{
    t->hooks.released(t->hooks.ctx, f);
    unpair(t, f);
    pair_unlink(t, f);
    if (!f->closed)
        roce_index_remove(&t->index, roce_flow_cold(f)->hash, h);
    lru_unlink(t, h);
    t->hooks.freed(t->hooks.ctx, f);
    if (t->last == h)
        t->last = 0;
    f->id = 0;
    t->lru[h].next = t->free_head;
    t->free_head = h;
    t->n_flows--;
}

void roce_flow_remove(struct roce_flow_table *t, struct roce_flow *f)
{
    release(t, f, f->self);
}

/* A free slot (its handle), or 0 when out of memory. */
static uint32_t slot_alloc(struct roce_flow_table *t)
{
    if (t->free_head) {
        uint32_t h = t->free_head;
        t->free_head = t->lru[h].next;
        return h;
    }
    if (t->n_slots == t->n_chunks * ROCE_FLOW_CHUNK) {
        if (t->n_chunks == t->max_chunks)
            return 0;
        /* the hot records, then the cold ones (roce_flow_cold), cache-line
         * aligned (each size is a multiple of the alignment); not zeroed
         * here: a slot is when it is taken (roce_flow_get), and no slot
         * past n_slots is read, so that a capture of a few flows does not
         * touch the chunk's 2 MiB */
        size_t bytes = ROCE_FLOW_CHUNK * (sizeof(struct roce_flow) + sizeof(struct roce_flow_cold));
        struct roce_flow *c = aligned_alloc(ROCE_FLOW_ALIGN, bytes);
        if (c == NULL)
            return 0;
        t->chunks[t->n_chunks] = c;
        t->n_chunks++;
    }
    return ++t->n_slots;
}

struct roce_flow *roce_flow_find(const struct roce_flow_table *t, const struct roce_flow_key *key,
                                 uint64_t id)
{
    uint32_t h = roce_index_find(&t->index, roce_flow_key_hash(key), key_eq, key, t);
    struct roce_flow *f = h ? roce_flow_at(t, h) : NULL;
    /* back along the records the key had, as long as they are still tracked */
    while (f != NULL && id != 0 && f->id != id) {
        const struct roce_flow_cold *c = roce_flow_cold(f);
        struct roce_flow *older = c->older ? roce_flow_at(t, c->older) : NULL;
        f = older != NULL && older->id == c->older_id ? older : NULL;
    }
    return f;
}

struct roce_flow *roce_flow_renew(struct roce_flow_table *t, struct roce_flow *f, uint64_t frame,
                                  int64_t ts)
{
    const struct roce_flow_key key = f->key; /* f may be evicted to make room */
    const uint32_t old = f->self;
    const uint64_t old_id = f->id;

    roce_index_remove(&t->index, roce_flow_cold(f)->hash, old);
    pair_unlink(t, f);
    f->closed = 1;
    if (t->last == old)
        t->last = 0;
    struct roce_flow *n = roce_flow_get(t, &key, frame, ts);
    if (n != NULL) {
        roce_flow_cold(n)->older = old;
        roce_flow_cold(n)->older_id = old_id;
    }
    return n;
}

struct roce_flow *roce_flow_oldest(const struct roce_flow_table *t)
{
    return t->lru_tail ? roce_flow_at(t, t->lru_tail) : NULL;
}

struct roce_flow *roce_flow_next(const struct roce_flow_table *t, uint32_t *h)
{
    while (*h < t->n_slots) {
        struct roce_flow *f = roce_flow_at(t, ++*h);
        if (f->id)
            return f;
    }
    return NULL;
}

struct roce_flow *roce_flow_get(struct roce_flow_table *t, const struct roce_flow_key *key,
                                uint64_t frame, int64_t ts)
{
    uint32_t hash, h;
    struct roce_flow *f;

    if (t->last) {
        f = roce_flow_at(t, t->last);
        if (memcmp(&f->key, key, sizeof *key) == 0) {
            roce_flow_touch(t, f);
            return f; /* already at the LRU head */
        }
    }
    hash = roce_flow_key_hash(key);
    h = roce_index_find(&t->index, hash, key_eq, key, t);
    if (h) {
        f = roce_flow_at(t, h);
        if (t->lru_head != h) {
            lru_unlink(t, h);
            lru_push_head(t, h);
        }
        t->last = h;
        roce_flow_touch(t, f);
        return f;
    }
    if (t->n_flows >= t->max_flows) {
        uint32_t victim = t->lru_tail;
        release(t, roce_flow_at(t, victim), victim);
        t->stats.evicted++;
    }
    h = slot_alloc(t);
    if (!h) {
        t->stats.alloc_failures++; /* the frame is counted in the totals, not in a flow */
        return NULL;
    }
    f = roce_flow_at(t, h);
    memset(f, 0, sizeof *f);
    f->self = h;
    memset(roce_flow_cold(f), 0, sizeof(struct roce_flow_cold));
    if (roce_index_insert(&t->index, hash, h) != 0) {
        t->lru[h].next = t->free_head;
        t->free_head = h;
        t->stats.alloc_failures++;
        return NULL;
    }
    f->key = *key;
    roce_flow_cold(f)->hash = hash;
    f->id = ++t->next_id;
    lru_push_head(t, h);
    t->n_flows++;
    t->last = h;
    t->stats.created++;
    if (t->n_flows > t->stats.peak)
        t->stats.peak = t->n_flows;
    t->hooks.created(t->hooks.ctx, f, frame, ts);
    roce_flow_touch(t, f);
    return f;
}

void roce_flow_note_active(struct roce_flow_table *t, struct roce_flow *f)
{
    f->interval_step = t->step;
    if (t->n_active == t->active_cap) {
        uint32_t cap = t->active_cap ? 2 * t->active_cap : ROCE_FLOW_CHUNK;
        uint32_t *a = cap > t->active_cap ? realloc(t->active, (size_t)cap * sizeof *a) : NULL;
        if (a == NULL) {
            t->active_lost = 1;
            return;
        }
        t->active = a;
        t->active_cap = cap;
    }
    t->active[t->n_active++] = f->self;
}

void roce_flow_next_interval(struct roce_flow_table *t)
{
    t->n_active = 0;
    t->active_lost = 0;
    if (++t->step == 0)
        t->step = 1;
}

int roce_flow_table_init(struct roce_flow_table *t, uint32_t max_flows,
                         const struct roce_flow_hooks *hooks)
{
    memset(t, 0, sizeof *t);
    t->hooks = *hooks;
    t->max_flows = max_flows;
    t->max_chunks = (max_flows + ROCE_FLOW_CHUNK - 1) / ROCE_FLOW_CHUNK;
    t->chunks = calloc(t->max_chunks, sizeof *t->chunks);
    t->lru = calloc((size_t)t->max_chunks * ROCE_FLOW_CHUNK + 1, sizeof *t->lru);
    if (t->chunks == NULL || t->lru == NULL)
        return -1;
    if (roce_index_init(&t->index, 1024) != 0 || roce_index_init(&t->pair_index, 256) != 0)
        return -1;
    return 0;
}

void roce_flow_table_free(struct roce_flow_table *t)
{
    uint32_t h = 0;
    for (struct roce_flow *f; (f = roce_flow_next(t, &h)) != NULL;)
        t->hooks.freed(t->hooks.ctx, f);
    for (uint32_t c = 0; c < t->n_chunks; c++)
        free(t->chunks[c]);
    free(t->chunks);
    free(t->lru);
    free(t->pairs);
    free(t->active);
    roce_index_free(&t->index);
    roce_index_free(&t->pair_index);
    t->chunks = NULL;
    t->lru = NULL;
    t->pairs = NULL;
    t->active = NULL;
    t->n_chunks = t->n_slots = 0;
}
