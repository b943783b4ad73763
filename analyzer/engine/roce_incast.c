/*
 * roce_incast.c - incast (ANALYSIS.md "Incast").
 *
 * Per receiver (the destination address of requests), the senders that
 * sent it requests, each with its latest request. Its fan-in at a request
 * is the number of senders whose latest request came at most
 * --incast-window before. An episode begins at the request that brings the
 * fan-in to --incast-senders and lasts while the requests to the receiver
 * keep it there; it ends at the first request that finds it lower, or once
 * --incast-window has passed without a request. An episode is flagged when
 * its receiver's traffic was CE marked (a request to it carrying CE, while
 * the episode ran), paused (a pause that stopped a flow to it, or the
 * receiver's own XOFF, beginning while it ran) or lost (a PSN gap of class
 * network_loss of a flow to it, seen while it ran: the class is decided
 * later, so evidence counts up to --incast-window after the episode ended,
 * as long as no new episode began).
 *
 * Each receiver whose fan-in reached the threshold gets a record in the
 * totals (struct roce_incast_receiver): its episodes, its worst (flagged
 * first, then most senders), the evidence frames of its worst flagged one
 * (the first request of each sender in the window, then the CE marks,
 * pauses and gaps) and its fan-in over time. At most ROCE_INCAST_LISTED:
 * beyond that a receiver with a flagged episode takes the place of one
 * without (the one with the fewest senders), else it is counted in
 * incast_receivers_unlisted.
 *
 * Memory: ROCE_INCAST_SETS x ROCE_INCAST_WAYS receivers of
 * ROCE_INCAST_SENDERS senders (about 400 KB), allocated at the first
 * request. Cost per request: the entry where its receiver was last found
 * (a memo by a cheap hash of the address), else the receiver's set (4
 * entries, by the address's FNV-1a hash); its senders (at most 32, the last
 * one first).
 */
#include "roce_incast.h"

#include <stdlib.h>
#include <string.h>

#include "roce_internal.h"

struct incast_sender {
    uint8_t addr[ROCE_ADDR_LEN];
    uint8_t used, in_ep;
    int64_t last;       /* its latest request */
    uint64_t run_frame; /* the first request of its run (requests at most a window apart) */
};

struct incast_rx {
    uint8_t addr[ROCE_ADDR_LEN];
    uint8_t af, version, used;
    uint8_t n_senders, last_sender;
    int64_t seen;  /* its latest request (the set's LRU) */
    uint32_t peak; /* most senders at once */
    int rec;       /* its record in the totals, -1: none */
    struct incast_sender s[ROCE_INCAST_SENDERS];
    uint8_t ep, ep_open;            /* it had an episode; it runs */
    struct roce_incast_episode cur; /* the current or last episode */
};

#define INCAST_RX  (ROCE_INCAST_SETS * ROCE_INCAST_WAYS)
#define MEMO_SLOTS 256 /* the memo of where an address was found */

_Static_assert(INCAST_RX <= 256, "a memo slot names a receiver in a byte");

struct roce_incast {
    struct incast_rx rx[INCAST_RX];
    int owner[ROCE_INCAST_LISTED]; /* the rx of each record, -1: none tracked */
    /* The receiver an address was last found at, by a cheap hash of the
     * address: a hint, checked against the entry's address, so that a
     * request does not hash its address byte by byte for the set (the
     * same entry either way: an address is in one entry of its set). */
    uint8_t memo[MEMO_SLOTS];
};

static unsigned set_of(const uint8_t addr[ROCE_ADDR_LEN])
{
    return (roce_addr_hash(addr) >> 8) % ROCE_INCAST_SETS;
}

static unsigned memo_slot(const uint8_t addr[ROCE_ADDR_LEN])
{
    uint64_t a, b;
    memcpy(&a, addr, sizeof a);
    memcpy(&b, addr + sizeof a, sizeof b);
    return (unsigned)(((a ^ b) * 0x9E3779B97F4A7C15u) >> 56); /* Fibonacci hashing */
}

/* The entry of addr in its set, or NULL. */
static struct incast_rx *find_in_set(const struct roce_incast *in,
                                     const uint8_t addr[ROCE_ADDR_LEN])
{
    struct incast_rx *set = (struct incast_rx *)&in->rx[set_of(addr) * ROCE_INCAST_WAYS];
    for (unsigned w = 0; w < ROCE_INCAST_WAYS; w++)
        if (set[w].used && memcmp(set[w].addr, addr, ROCE_ADDR_LEN) == 0)
            return &set[w];
    return NULL;
}

/* The same, through the memo first (and kept in it). */
static struct incast_rx *find(struct roce_incast *in, const uint8_t addr[ROCE_ADDR_LEN])
{
    uint8_t *memo = &in->memo[memo_slot(addr)];
    struct incast_rx *x = &in->rx[*memo];
    if (x->used && memcmp(x->addr, addr, ROCE_ADDR_LEN) == 0)
        return x;
    if ((x = find_in_set(in, addr)) != NULL)
        *memo = (uint8_t)(x - in->rx);
    return x;
}

static int rec_of(const struct roce_totals *t, const uint8_t addr[ROCE_ADDR_LEN])
{
    for (unsigned i = 0; i < t->incast.n; i++)
        if (memcmp(t->incast.r[i].addr, addr, ROCE_ADDR_LEN) == 0)
            return (int)i;
    return -1;
}

/* The entry of k's receiver, made when missing (the set's least recently
 * sent to evicted, counted). */
static struct incast_rx *receiver(struct roce_engine *e, const struct roce_flow_key *k)
{
    struct roce_incast *in = e->incast;
    struct incast_rx *x = find(in, k->dst);
    if (x != NULL)
        return x;
    struct incast_rx *set = &in->rx[set_of(k->dst) * ROCE_INCAST_WAYS];
    x = &set[0];
    for (unsigned w = 1; w < ROCE_INCAST_WAYS && x->used; w++)
        if (!set[w].used || set[w].seen < x->seen)
            x = &set[w];
    if (x->used) {
        roce_incast_settle(e); /* its record, before it goes */
        if (x->rec >= 0)
            in->owner[x->rec] = -1;
        e->totals.incast_receivers_evicted++;
    }
    memset(x, 0, sizeof *x);
    memcpy(x->addr, k->dst, ROCE_ADDR_LEN);
    x->af = k->af;
    x->version = k->version;
    x->used = 1;
    x->rec = rec_of(&e->totals, k->dst);
    if (x->rec >= 0)
        in->owner[x->rec] = (int)(x - in->rx);
    in->memo[memo_slot(k->dst)] = (uint8_t)(x - in->rx);
    return x;
}

/* The slot of sender addr, taken when missing (a free one, else one idle
 * longer than the window and not in the episode); NULL when all are busy. */
static struct incast_sender *sender(struct incast_rx *x, const uint8_t addr[ROCE_ADDR_LEN],
                                    int64_t ts, int64_t window)
{
    struct incast_sender *s = &x->s[x->last_sender];
    if (s->used && memcmp(s->addr, addr, ROCE_ADDR_LEN) == 0)
        return s;
    struct incast_sender *free_slot = NULL;
    for (unsigned i = 0; i < x->n_senders; i++) {
        s = &x->s[i];
        if (memcmp(s->addr, addr, ROCE_ADDR_LEN) == 0) {
            x->last_sender = (uint8_t)i;
            return s;
        }
        if (free_slot == NULL && ts - s->last > window && !(x->ep_open && s->in_ep))
            free_slot = s;
    }
    if (free_slot == NULL && x->n_senders < ROCE_INCAST_SENDERS)
        free_slot = &x->s[x->n_senders++];
    if (free_slot == NULL)
        return NULL;
    memset(free_slot, 0, sizeof *free_slot);
    memcpy(free_slot->addr, addr, ROCE_ADDR_LEN);
    free_slot->used = 1;
    x->last_sender = (uint8_t)(free_slot - x->s);
    return free_slot;
}

static uint32_t fanin_at(const struct incast_rx *x, int64_t ts, int64_t window)
{
    uint32_t n = 0;
    for (unsigned i = 0; i < x->n_senders; i++)
        n += x->s[i].used && ts - x->s[i].last <= window;
    return n;
}

/* ---- the records in the totals ---- */

/* The record of x, made when missing (or taking the place of one without a
 * flagged episode when x has one); -1 when the list keeps it out. */
static int record(struct roce_engine *e, struct incast_rx *x)
{
    struct roce_incast_report *l = &e->totals.incast;
    if (x->rec >= 0)
        return x->rec;
    int at = -1;
    if (l->n < ROCE_INCAST_LISTED) {
        at = (int)l->n++;
    } else if (x->cur.flagged) {
        for (unsigned i = 0; i < l->n; i++)
            if (l->r[i].flagged == 0 && (at < 0 || l->r[i].worst.fanin < l->r[at].worst.fanin))
                at = (int)i;
        if (at >= 0) {
            if (e->incast->owner[at] >= 0)
                e->incast->rx[e->incast->owner[at]].rec = -1;
            e->totals.incast_receivers_unlisted++; /* the one whose place it takes */
        }
    }
    if (at < 0) {
        e->totals.incast_receivers_unlisted++;
        return -1;
    }
    struct roce_incast_receiver *r = &l->r[at];
    memset(r, 0, sizeof *r);
    memcpy(r->addr, x->addr, ROCE_ADDR_LEN);
    r->af = x->af;
    r->version = x->version;
    r->series_start_ns = x->cur.start_ns;
    r->series_step_ns = e->cfg.incast_window_ns;
    x->rec = at;
    e->incast->owner[at] = (int)(x - e->incast->rx);
    return at;
}

/* The fan-in n at ts into the series of r, whose buckets double in width
 * when time outgrows them. */
static void series_add(struct roce_incast_receiver *r, int64_t ts, uint32_t n)
{
    if (ts < r->series_start_ns)
        return;
    int64_t i = (ts - r->series_start_ns) / r->series_step_ns;
    while (i >= ROCE_INCAST_POINTS) {
        for (unsigned j = 0; j < ROCE_INCAST_POINTS / 2; j++)
            r->series[j] =
                r->series[2 * j] > r->series[2 * j + 1] ? r->series[2 * j] : r->series[2 * j + 1];
        memset(&r->series[ROCE_INCAST_POINTS / 2], 0, sizeof r->series / 2);
        r->n_points = (uint8_t)((r->n_points + 1) / 2);
        r->series_step_ns *= 2;
        i = (ts - r->series_start_ns) / r->series_step_ns;
    }
    if (n > r->series[i])
        r->series[i] = (uint16_t)(n > UINT16_MAX ? UINT16_MAX : n);
    if (i + 1 > r->n_points)
        r->n_points = (uint8_t)(i + 1);
}

/* Nonzero when episode a is worse than b: flagged when b is not, else more
 * senders at once. */
static int worse(const struct roce_incast_episode *a, const struct roce_incast_episode *b)
{
    return a->flagged != b->flagged ? a->flagged > b->flagged : a->fanin > b->fanin;
}

/* The episode of x into its record when it is the worst: flagged first,
 * then the most senders at once (the record already holding it: again). */
static void store(struct roce_engine *e, struct incast_rx *x, int same)
{
    if (x->rec < 0)
        return;
    struct roce_incast_receiver *r = &e->totals.incast.r[x->rec];
    if (!same && r->episodes > 1 && !worse(&x->cur, &r->worst))
        return;
    r->worst = x->cur;
    if (!r->worst.flagged)
        r->worst.n_frames = 0; /* evidence only of a flagged episode */
}

/* Whether the record of x holds its current episode. */
static int holds(const struct roce_engine *e, const struct incast_rx *x)
{
    const struct roce_incast_receiver *r;
    if (x->rec < 0)
        return 0;
    r = &e->totals.incast.r[x->rec];
    return r->worst.start_ns == x->cur.start_ns;
}

static void close_episode(struct roce_engine *e, struct incast_rx *x)
{
    x->ep_open = 0;
    store(e, x, holds(e, x));
}

static void add_frame(struct incast_rx *x, uint64_t frame)
{
    roce_evidence_add_frame(x->cur.frames, &x->cur.n_frames, frame);
}

static void name_sender(struct incast_rx *x, struct incast_sender *s)
{
    s->in_ep = 1;
    x->cur.senders++;
    add_frame(x, s->run_frame);
    if (x->cur.n_named < ROCE_INCAST_NAMED)
        memcpy(x->cur.named[x->cur.n_named++], s->addr, ROCE_ADDR_LEN);
}

static void open_episode(struct roce_engine *e, struct incast_rx *x, int64_t ts)
{
    int64_t w = e->cfg.incast_window_ns;
    x->ep = 1;
    x->ep_open = 1;
    x->cur.flagged = 0;
    x->cur.start_ns = x->cur.end_ns = ts;
    x->cur.fanin = x->cur.senders = 0;
    x->cur.bytes = 0;
    x->cur.n_named = x->cur.n_frames = 0;
    for (unsigned i = 0; i < x->n_senders; i++) {
        struct incast_sender *s = &x->s[i];
        s->in_ep = 0;
        if (s->used && ts - s->last <= w)
            name_sender(x, s);
    }
    if (record(e, x) >= 0)
        e->totals.incast.r[x->rec].episodes++;
}

enum { EV_CE = 0, EV_PAUSED = 1, EV_LOST = 2 };

/* Evidence for the episode of x: flagged, counted, its frames kept. */
static void flag(struct roce_engine *e, struct incast_rx *x, unsigned what, uint64_t f1,
                 uint64_t f2)
{
    int first = !x->cur.flagged;
    x->cur.flagged = 1;
    add_frame(x, f1);
    add_frame(x, f2);
    if (record(e, x) < 0)
        return;
    struct roce_incast_receiver *r = &e->totals.incast.r[x->rec];
    if (first)
        r->flagged++;
    uint64_t *count[] = {&r->ce_marked, &r->paused, &r->lost};
    ++*count[what];
    store(e, x, holds(e, x));
}

void roce_incast_request(struct roce_engine *e, const struct roce_flow_key *k, uint64_t frame,
                         uint32_t wirelen, int ce, int64_t ts)
{
    int64_t w = e->cfg.incast_window_ns;
    if (e->incast == NULL) {
        if ((e->incast = calloc(1, sizeof *e->incast)) == NULL) {
            e->alloc_failures++;
            return;
        }
        for (unsigned i = 0; i < ROCE_INCAST_LISTED; i++)
            e->incast->owner[i] = -1;
    }
    struct incast_rx *x = receiver(e, k);
    x->seen = ts;
    if (x->ep_open && ts - x->cur.end_ns > w)
        close_episode(e, x); /* no request for a window */
    struct incast_sender *s = sender(x, k->src, ts, w);
    if (s == NULL) {
        e->totals.incast_senders_untracked++;
        return;
    }
    if (s->run_frame == 0 || ts - s->last > w)
        s->run_frame = frame;
    s->last = ts;
    uint32_t n = fanin_at(x, ts, w);
    if (n > x->peak)
        x->peak = n;
    int opened = !x->ep_open && n >= e->cfg.incast_senders;
    if (opened)
        open_episode(e, x, ts);
    else if (x->ep_open && n < e->cfg.incast_senders)
        close_episode(e, x);
    if (x->rec >= 0)
        series_add(&e->totals.incast.r[x->rec], ts, n);
    if (!x->ep_open)
        return;
    if (!opened) /* the bytes sent after its first request, over the time since it */
        x->cur.bytes += wirelen;
    x->cur.end_ns = ts;
    if (n > x->cur.fanin)
        x->cur.fanin = n;
    if (!s->in_ep)
        name_sender(x, s);
    if (ce)
        flag(e, x, EV_CE, frame, 0);
}

void roce_incast_evidence(struct roce_engine *e, const uint8_t dst[ROCE_ADDR_LEN], int lost,
                          uint64_t frame1, uint64_t frame2, int64_t ts)
{
    struct incast_rx *x = e->incast != NULL ? find(e->incast, dst) : NULL;
    if (x == NULL || !x->ep || ts < x->cur.start_ns || ts > x->cur.end_ns + e->cfg.incast_window_ns)
        return;
    flag(e, x, lost ? EV_LOST : EV_PAUSED, frame1, frame2);
}

void roce_incast_settle(struct roce_engine *e)
{
    if (e->incast == NULL)
        return;
    for (unsigned i = 0; i < ROCE_INCAST_LISTED; i++) {
        int o = e->incast->owner[i];
        if (o >= 0 && e->incast->rx[o].ep)
            store(e, &e->incast->rx[o], holds(e, &e->incast->rx[o]));
    }
}

void roce_incast_merge(struct roce_totals *dst, const struct roce_totals *src, uint64_t frame_off)
{
    for (unsigned i = 0; i < src->incast.n && i < ROCE_INCAST_LISTED; i++) {
        const struct roce_incast_receiver *s = &src->incast.r[i];
        int at = rec_of(dst, s->addr);
        struct roce_incast_receiver *d;
        if (at < 0 && dst->incast.n >= ROCE_INCAST_LISTED) {
            dst->incast_receivers_unlisted++;
            continue;
        }
        int fresh = at < 0;
        d = fresh ? &dst->incast.r[dst->incast.n++] : &dst->incast.r[at];
        if (fresh) {
            *d = *s;
            d->episodes = d->flagged = d->ce_marked = d->paused = d->lost = 0;
        }
        d->episodes += s->episodes;
        d->flagged += s->flagged;
        d->ce_marked += s->ce_marked;
        d->paused += s->paused;
        d->lost += s->lost;
        if (fresh || worse(&s->worst, &d->worst)) {
            d->worst = s->worst;
            for (unsigned k = 0; k < d->worst.n_frames && k < ROCE_EVIDENCE_MAX; k++)
                d->worst.frames[k] += frame_off; /* ascending still */
        }
    }
}

void roce_incast_free(struct roce_engine *e)
{
    free(e->incast);
    e->incast = NULL;
}

int roce_incast_peak(const struct roce_engine *e, const uint8_t addr[ROCE_ADDR_LEN], uint32_t *peak)
{
    const struct incast_rx *x = e->incast != NULL ? find_in_set(e->incast, addr) : NULL;
    *peak = x != NULL ? x->peak : 0;
    return x != NULL;
}

void roce_incast_each(const struct roce_engine *e,
                      void (*fn)(const uint8_t addr[ROCE_ADDR_LEN], uint32_t peak, void *ctx),
                      void *ctx)
{
    for (unsigned i = 0; e->incast != NULL && i < INCAST_RX; i++)
        if (e->incast->rx[i].used)
            fn(e->incast->rx[i].addr, e->incast->rx[i].peak, ctx);
}
