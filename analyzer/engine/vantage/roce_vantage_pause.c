/*
 * roce_vantage_pause.c - PFC pauses across vantage points (see
 * roce_vantage_pause.h; ANALYSIS.md "Pause spreading").
 *
 * Per point, an episode is what one MAC keeps one priority paused: from an
 * XOFF, on through the XOFFs of that MAC that renew it, until its XON or
 * until the last XOFF's time ran out (ANALYSIS.md "Pause victims" has the
 * same pauses). Once aligned, the episodes of all points are sorted by their
 * start; an episode's cause (parent) is an earlier one at another point, of
 * the same priority (a link PAUSE matches any), that began at most the
 * window before it: one whose paused end is its sender (a MAC tie) first,
 * else the latest. Chains are the trees of those ties, from their root (the
 * origin); a cycle is a path of MAC ties that comes back to the link it
 * started from.
 */
#include "roce_vantage_pause.h"

#include <stdlib.h>
#include <string.h>

#include "roce_vantage_clock.h"
#include "roce_vantage_int.h"

#define BITS_PER_QUANTUM 512
#define NS_PER_BIT_1MBPS 1000
#define MAC_TAG          (UINT64_C(1) << 48)
#define MAC_HASH         UINT64_C(0x9E3779B97F4A7C15)
#define FIRST_CAP        64u

struct vpause_res {
    struct roce_vpause_totals totals;
    struct roce_vpause_ep *ep; /* all points', sorted by aligned start */
    uint32_t n;
    uint32_t *steps; /* episode indices of the chains' and cycles' steps */
    uint32_t n_steps, cap_steps;
    struct roce_vpause_chain *chains;
    uint32_t n_chains;
    struct roce_vpause_cycle *cycles;
    uint32_t n_cycles;
};

/* ---- per point: the first reading ---- */

struct roce_vpauses *roce_vpauses_new(uint32_t link_speed_mbps)
{
    struct roce_vpauses *p = calloc(1, sizeof *p);
    if (p != NULL)
        p->link_speed_mbps = link_speed_mbps ? link_speed_mbps : 100000u;
    return p;
}

void roce_vpauses_free(struct roce_vpauses *p)
{
    if (p == NULL)
        return;
    free(p->ep);
    free(p);
}

static uint64_t mac_key(const uint8_t m[ROCE_VPAUSE_MAC_LEN])
{
    uint64_t k = 0;
    for (unsigned i = 0; i < ROCE_VPAUSE_MAC_LEN; i++)
        k = k << 8 | m[i];
    return k | MAC_TAG;
}

/* The slot of mac in the senders' table: its own, or the empty one where it
 * would go; NULL when the table is full and it is not there. */
static uint64_t *sender_slot(const struct roce_vpauses *p, uint64_t key)
{
    unsigned h = (unsigned)((key * MAC_HASH) >> 56) % ROCE_VPAUSE_MAX_SENDERS;
    for (unsigned i = 0; i < ROCE_VPAUSE_MAX_SENDERS; i++) {
        const uint64_t *s = &p->senders[(h + i) % ROCE_VPAUSE_MAX_SENDERS];
        if (*s == key || *s == 0)
            return (uint64_t *)s;
    }
    return NULL;
}

int roce_vpauses_sent(const struct roce_vpauses *p, const uint8_t mac[ROCE_VPAUSE_MAC_LEN])
{
    uint64_t key = mac_key(mac), *s = sender_slot(p, key);
    return s != NULL && *s == key;
}

static void note_sender(struct roce_vpauses *p, const uint8_t mac[ROCE_VPAUSE_MAC_LEN])
{
    uint64_t key = mac_key(mac), *s = sender_slot(p, key);
    if (s != NULL && *s == key)
        return;
    if (s == NULL || p->n_senders + 1 >= ROCE_VPAUSE_MAX_SENDERS) { /* one slot stays empty */
        p->senders_dropped++;
        return;
    }
    *s = key;
    p->n_senders++;
}

/* The running episode of (prio, mac) at ts, or NULL. */
static struct roce_vpause_ep *running(struct roce_vpauses *p, unsigned prio, const uint8_t *mac,
                                      int64_t ts)
{
    for (unsigned i = 0; i < ROCE_VPAUSE_OPEN; i++) {
        if (p->open[i] == 0)
            continue;
        struct roce_vpause_ep *e = &p->ep[p->open[i] - 1];
        if (e->end_ns < ts) { /* ran out: no longer open */
            p->open[i] = 0;
            continue;
        }
        if (e->prio == prio && e->has_mac == (mac != NULL) &&
            (mac == NULL || memcmp(e->mac, mac, ROCE_VPAUSE_MAC_LEN) == 0))
            return e;
    }
    return NULL;
}

/* One XOFF (quanta > 0) or XON of a priority. */
static void pause_event(struct roce_vpauses *p, unsigned prio, const uint8_t *mac, uint32_t quanta,
                        uint64_t frame, int64_t ts)
{
    int64_t dur = (int64_t)quanta * BITS_PER_QUANTUM * NS_PER_BIT_1MBPS / p->link_speed_mbps;
    struct roce_vpause_ep *e = running(p, prio, mac, ts);
    if (e != NULL) { /* renewed, or ended by its XON */
        e->end_ns = ts + dur;
        e->last_frame = frame;
        e->frames++;
        return;
    }
    if (quanta == 0)
        return; /* an XON of nothing running */
    if (p->n == ROCE_VPAUSE_MAX_EPISODES) {
        p->episodes_dropped++;
        return;
    }
    struct roce_vpause_ep *grown = roce_vreserve(p->ep, p->n, &p->cap, sizeof *p->ep, FIRST_CAP);
    if (grown == NULL) {
        p->episodes_dropped++;
        return;
    }
    p->ep = grown;
    e = &p->ep[p->n++];
    memset(e, 0, sizeof *e);
    e->start_ns = ts;
    e->end_ns = ts + dur;
    e->first_frame = e->last_frame = frame;
    e->frames = 1;
    e->parent = -1;
    e->prio = (uint8_t)prio;
    if (mac != NULL) {
        memcpy(e->mac, mac, ROCE_VPAUSE_MAC_LEN);
        e->has_mac = 1;
    }
    unsigned slot = 0; /* a free slot, else the one that ends first */
    for (unsigned i = 0; i < ROCE_VPAUSE_OPEN; i++) {
        if (p->open[i] == 0) {
            slot = i;
            break;
        }
        if (p->ep[p->open[i] - 1].end_ns < p->ep[p->open[slot] - 1].end_ns)
            slot = i;
    }
    p->open[slot] = p->n;
}

void roce_vpauses_frame(struct roce_vpauses *p, const struct roce_pkt *pkt, const uint8_t *src,
                        uint64_t frame, int64_t ts_ns)
{
    switch (pkt->mac_ctrl) {
    case ROCE_MACCTRL_PFC:
        for (unsigned i = 0; i < ROCE_PFC_PRIORITIES; i++)
            if (pkt->pfc_cev & (1u << i))
                pause_event(p, i, src, pkt->pause_quanta[i], frame, ts_ns);
        break;
    case ROCE_MACCTRL_PAUSE:
        pause_event(p, ROCE_VPAUSE_LINK, src, pkt->pause_quanta[0], frame, ts_ns);
        break;
    case ROCE_MACCTRL_NONE:
        if (src != NULL)
            note_sender(p, src);
        break;
    default:
        break;
    }
}

/* ---- across the points ---- */

static int cmp_ep(const void *a, const void *b)
{
    const struct roce_vpause_ep *x = a, *y = b;
    if (x->start_ns != y->start_ns)
        return x->start_ns < y->start_ns ? -1 : 1;
    if (x->point != y->point)
        return x->point < y->point ? -1 : 1;
    return x->first_frame < y->first_frame ? -1 : x->first_frame > y->first_frame;
}

/* Could b have spread from a (a began first)? */
static int follows(const struct roce_vantage *v, int64_t window, const struct roce_vpause_ep *a,
                   const struct roce_vpause_ep *b)
{
    if (a->point == b->point ||
        (a->prio != b->prio && a->prio != ROCE_VPAUSE_LINK && b->prio != ROCE_VPAUSE_LINK))
        return 0;
    int64_t w = window > 0 ? window : a->end_ns - a->start_ns + v->cfg.path_delay_ns;
    return b->start_ns - a->start_ns <= w;
}

/* b's sender is the paused end at a's point: it sent frames there, and is
 * not a's sender. */
static int mac_tie(struct roce_vpauses *const *pp, const struct roce_vpause_ep *a,
                   const struct roce_vpause_ep *b)
{
    return b->has_mac && pp[a->point] != NULL &&
           (!a->has_mac || memcmp(a->mac, b->mac, ROCE_VPAUSE_MAC_LEN) != 0) &&
           roce_vpauses_sent(pp[a->point], b->mac);
}

/* Every episode's cause, if any; the latest MAC tie first. */
static void find_parents(struct roce_vantage *v, struct vpause_res *r,
                         struct roce_vpauses *const *pp, int64_t window)
{
    for (uint32_t i = 0; i < r->n; i++) {
        struct roce_vpause_ep *b = &r->ep[i];
        int32_t by_order = -1, by_mac = -1;
        for (uint32_t k = i, seen = 0; k > 0 && seen < ROCE_VPAUSE_SCAN; k--, seen++) {
            const struct roce_vpause_ep *a = &r->ep[k - 1];
            if (!follows(v, window, a, b))
                continue;
            if (by_order < 0)
                by_order = (int32_t)(k - 1);
            if (mac_tie(pp, a, b)) {
                by_mac = (int32_t)(k - 1);
                break;
            }
        }
        b->parent = by_mac >= 0 ? by_mac : by_order;
        b->evidence = by_mac >= 0     ? ROCE_VPAUSE_MAC
                      : by_order >= 0 ? ROCE_VPAUSE_ORDER
                                      : ROCE_VPAUSE_ORIGIN;
        if (b->parent >= 0) {
            r->totals.spread++;
            r->totals.spread_mac += by_mac >= 0;
        }
    }
}

static int add_step(struct vpause_res *r, uint32_t ep)
{
    uint32_t *grown =
        roce_vreserve(r->steps, r->n_steps, &r->cap_steps, sizeof *r->steps, FIRST_CAP);
    if (grown == NULL)
        return -1;
    r->steps = grown;
    r->steps[r->n_steps++] = ep;
    return 0;
}

struct by_root {
    uint32_t root, ep;
};

static int cmp_root(const void *a, const void *b)
{
    const struct by_root *x = a, *y = b;
    if (x->root != y->root)
        return x->root < y->root ? -1 : 1;
    return x->ep < y->ep ? -1 : x->ep > y->ep;
}

/* The chains: per root, the first episode at each point (episodes come in
 * time order). */
static int find_chains(struct vpause_res *r)
{
    struct by_root *br = malloc((size_t)r->n * sizeof *br + 1);
    if (br == NULL)
        return -1;
    for (uint32_t i = 0; i < r->n; i++) {
        int32_t p = r->ep[i].parent;
        br[i].root = p < 0 ? i : br[p].root; /* parents come first */
        br[i].ep = i;
    }
    qsort(br, r->n, sizeof *br, cmp_root);
    r->chains = calloc(ROCE_VPAUSE_MAX_CHAINS, sizeof *r->chains);
    if (r->chains == NULL) {
        free(br);
        return -1;
    }
    for (uint32_t i = 0, j; i < r->n; i = j) {
        uint32_t points = 0, links = 0;
        for (j = i; j < r->n && br[j].root == br[i].root; j++)
            if (!(points & VBIT(r->ep[br[j].ep].point))) {
                points |= VBIT(r->ep[br[j].ep].point);
                links++;
            }
        if (links < 2)
            continue;
        r->totals.chains++;
        if (r->n_chains == ROCE_VPAUSE_MAX_CHAINS) {
            r->totals.chains_unlisted++;
            continue;
        }
        struct roce_vpause_chain *c = &r->chains[r->n_chains++];
        c->first_step = r->n_steps;
        c->episodes = j - i;
        c->prio = r->ep[br[i].root].prio;
        points = 0;
        for (uint32_t k = i; k < j; k++) {
            uint8_t pt = r->ep[br[k].ep].point;
            if (points & VBIT(pt))
                continue;
            points |= VBIT(pt);
            if (add_step(r, br[k].ep) != 0) {
                free(br);
                return -1;
            }
            c->n_steps++;
        }
    }
    free(br);
    return 0;
}

/* The same links in the same order (rotations are one cycle)? */
static int same_cycle(const struct vpause_res *r, const struct roce_vpause_cycle *c,
                      const uint32_t *path, uint32_t n)
{
    if (c->n_links != n)
        return 0;
    for (uint32_t rot = 0; rot < n; rot++) {
        uint32_t k = 0;
        while (k < n &&
               r->ep[r->steps[c->first_step + k]].point == r->ep[path[(rot + k) % n]].point)
            k++;
        if (k == n)
            return 1;
    }
    return 0;
}

/* A cycle closed by episode i: the MAC ties up from it come back to its
 * point through other points only. */
static int cycle_at(struct vpause_res *r, uint32_t i)
{
    uint32_t path[ROCE_VANTAGE_MAX_POINTS], n = 0, points = 0;
    const struct roce_vpause_ep *e = &r->ep[i];
    uint32_t cur = i;
    for (;;) {
        const struct roce_vpause_ep *c = &r->ep[cur];
        if (c->evidence != ROCE_VPAUSE_MAC)
            return 0;
        cur = (uint32_t)c->parent;
        const struct roce_vpause_ep *a = &r->ep[cur];
        if (a->point == e->point)
            break;
        if ((points & VBIT(a->point)) || n + 1 == ROCE_VANTAGE_MAX_POINTS)
            return 0;
        points |= VBIT(a->point);
        path[n++] = cur;
    }
    path[n++] = cur; /* the episode at e's point it started from */
    /* path runs backwards: reverse it into time order */
    for (uint32_t k = 0; k < n / 2; k++) {
        uint32_t t = path[k];
        path[k] = path[n - 1 - k];
        path[n - 1 - k] = t;
    }
    for (uint32_t c = 0; c < r->n_cycles; c++)
        if (same_cycle(r, &r->cycles[c], path, n)) {
            r->cycles[c].count++;
            return 0;
        }
    if (r->n_cycles == ROCE_VPAUSE_MAX_CHAINS) {
        r->totals.cycles_unlisted++;
        return 0;
    }
    struct roce_vpause_cycle *c = &r->cycles[r->n_cycles++];
    c->first_step = r->n_steps;
    c->n_links = n;
    c->n_steps = n + 1;
    c->count = 1;
    c->prio = e->prio;
    for (uint32_t k = 0; k < n; k++)
        if (add_step(r, path[k]) != 0)
            return -1;
    return add_step(r, i);
}

void roce_vpause_res_free(struct vpause_res *r)
{
    if (r == NULL)
        return;
    free(r->ep);
    free(r->steps);
    free(r->chains);
    free(r->cycles);
    free(r);
}

int roce_vantage_pauses(struct roce_vantage *v, struct roce_vpauses *const *pp, int64_t window_ns)
{
    struct vpause_res *r = calloc(1, sizeof *r);
    size_t total = 0;
    if (r == NULL)
        return -1;
    roce_vpause_res_free(v->pause);
    v->pause = r;
    r->totals.window_ns = window_ns;
    for (unsigned p = 0; p < v->n_points; p++)
        if (pp[p] != NULL) {
            total += pp[p]->n;
            r->totals.episodes_dropped += pp[p]->episodes_dropped;
            r->totals.senders_dropped += pp[p]->senders_dropped;
        }
    r->ep = malloc(total * sizeof *r->ep + 1);
    r->cycles = calloc(ROCE_VPAUSE_MAX_CHAINS, sizeof *r->cycles);
    if (r->ep == NULL || r->cycles == NULL)
        return -1;
    for (unsigned p = 0; p < v->n_points; p++)
        for (uint32_t i = 0; pp[p] != NULL && i < pp[p]->n; i++) {
            struct roce_vpause_ep *e = &r->ep[r->n++];
            *e = pp[p]->ep[i];
            e->point = (uint8_t)p;
            e->start_ns = roce_vclock_align(&v->clock[p], v->slope[p], e->start_ns);
            e->end_ns = roce_vclock_align(&v->clock[p], v->slope[p], e->end_ns);
        }
    r->totals.episodes = r->n;
    qsort(r->ep, r->n, sizeof *r->ep, cmp_ep);
    find_parents(v, r, pp, window_ns);
    if (find_chains(r) != 0)
        return -1;
    for (uint32_t i = 0; i < r->n; i++)
        if (cycle_at(r, i) != 0)
            return -1;
    return 0;
}

/* ---- results ---- */

static const struct roce_vpause_totals no_totals;

const struct roce_vpause_totals *roce_vantage_pause_totals(const struct roce_vantage *v)
{
    return v->pause != NULL ? &v->pause->totals : &no_totals;
}

size_t roce_vantage_pause_chain_count(const struct roce_vantage *v)
{
    return v->pause != NULL ? v->pause->n_chains : 0;
}

const struct roce_vpause_chain *roce_vantage_pause_chain(const struct roce_vantage *v, size_t i)
{
    return i < roce_vantage_pause_chain_count(v) ? &v->pause->chains[i] : NULL;
}

size_t roce_vantage_pause_cycle_count(const struct roce_vantage *v)
{
    return v->pause != NULL ? v->pause->n_cycles : 0;
}

const struct roce_vpause_cycle *roce_vantage_pause_cycle(const struct roce_vantage *v, size_t i)
{
    return i < roce_vantage_pause_cycle_count(v) ? &v->pause->cycles[i] : NULL;
}

const struct roce_vpause_ep *roce_vantage_pause_episode(const struct roce_vantage *v, size_t i)
{
    return v->pause != NULL && i < v->pause->n ? &v->pause->ep[i] : NULL;
}

const struct roce_vpause_ep *roce_vantage_pause_step(const struct roce_vantage *v, size_t step)
{
    return v->pause != NULL && step < v->pause->n_steps ? &v->pause->ep[v->pause->steps[step]]
                                                        : NULL;
}

const char *roce_vpause_evidence_name(unsigned e)
{
    static const char *const names[] = {"origin", "mac", "order"};
    return e < sizeof names / sizeof names[0] ? names[e] : "unknown";
}
