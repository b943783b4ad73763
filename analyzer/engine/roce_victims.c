/*
 * roce_victims.c - the victims of PFC pauses (ANALYSIS.md "Pause
 * victims").
 *
 * A pause is the time one MAC keeps one priority paused: from its XOFF, on
 * through the XOFFs that renew it, until its XON or until its last XOFF's
 * time runs out (quanta at --link-speed). The latest ROCE_PAUSES_KEPT
 * pauses are kept in a ring, with when each began and ended, its first XOFF
 * frame and the MAC table entry of its sender.
 *
 * A request flow of that priority (or of any, for a link PAUSE) is a victim
 * of a pause when its requests stopped with it: its previous request came
 * no more than --victim-window before the pause began, and its next one
 * once the pause had ended, no more than --victim-window after. Its stall is the time between the
 * two. A flow whose frames come from the pausing MAC is none of its victims: a pause stops what is
 * sent to that MAC, not what it sends. When the pause was sent by a host NIC (its MAC's RoCE frames
 * come from one address, unrouted, as the MAC table says at that moment) and the victim's
 * destination is another host, the victim was innocent: blocked at the head of a queue by a pause
 * meant for another destination.
 *
 * The first ROCE_PAUSES_LISTED pauses are listed in the totals
 * (pause_list: who sent it, its priority, start and end, its victims with
 * their stalls, the first ROCE_PAUSE_VICTIMS named); the others are
 * counted in pauses_unlisted.
 *
 * Cost: the requests of a flow whose priority has had no pause since its
 * previous request are passed over with one comparison; the others read
 * the ring.
 */
#include "roce_victims.h"

#include <string.h>

#include "roce_evidence.h"
#include "roce_internal.h"

/* The running pause of (prio, mac), or NULL. */
static struct pause_rec *running(struct roce_engine *e, unsigned prio, uint32_t mac, int64_t ts)
{
    for (unsigned i = 0; i < ROCE_PAUSES_KEPT; i++) {
        struct pause_rec *p = &e->pauses[i];
        if (p->frame != 0 && p->prio == prio && p->mac == mac && p->end >= ts)
            return p;
    }
    return NULL;
}

/* The listed episode of p, or NULL. */
static struct roce_pause_episode *listed(struct roce_engine *e, const struct pause_rec *p)
{
    return p->listed != 0 ? &e->totals.pause_list.p[p->listed - 1] : NULL;
}

/* List the pause p that just began, when there is room. */
static void list_pause(struct roce_engine *e, struct pause_rec *p)
{
    struct roce_pause_report *l = &e->totals.pause_list;
    p->listed = 0;
    if (l->n >= ROCE_PAUSES_LISTED) {
        e->totals.pauses_unlisted++;
        return;
    }
    struct roce_pause_episode *x = &l->p[l->n++];
    memset(x, 0, sizeof *x);
    p->listed = l->n;
    if (p->mac != 0) {
        memcpy(x->mac, e->macs[p->mac - 1].mac, ROCE_MAC_LEN);
        x->has_mac = 1;
    }
    x->prio = p->prio;
    x->start_ns = p->start;
    x->end_ns = p->end;
    x->frame = p->frame;
    x->xoffs = 1;
}

void roce_victims_pause(struct roce_engine *e, unsigned prio, uint32_t mac, int64_t dur_ns,
                        uint64_t frame, int64_t ts)
{
    struct pause_rec *p = running(e, prio, mac, ts);
    struct roce_pause_episode *x = p != NULL ? listed(e, p) : NULL;
    if (dur_ns == 0) { /* XON: the pause ends now */
        if (p != NULL)
            p->end = ts;
        if (x != NULL) {
            x->end_ns = ts;
            x->xon = 1;
        }
        return;
    }
    if (p != NULL) { /* renewed */
        p->end = ts + dur_ns;
        if (x != NULL) {
            x->end_ns = p->end;
            x->xon = 0;
            x->xoffs++;
        }
        return;
    }
    if (mac != 0 && roce_host_mac_role(&e->macs[mac - 1]) == ROCE_MAC_UNROUTED)
        roce_incast_evidence(e, e->macs[mac - 1].addr, 0, frame, 0, ts); /* the receiver's own */
    p = &e->pauses[e->pauses_next];
    e->pauses_next = (e->pauses_next + 1) % ROCE_PAUSES_KEPT;
    if (p->frame != 0)
        e->pauses_wrapped = 1;
    p->prio = (uint8_t)prio;
    p->mac = mac;
    p->start = ts;
    p->end = ts + dur_ns;
    p->frame = frame;
    if (ts > e->pause_last_start[prio])
        e->pause_last_start[prio] = ts;
    e->totals.pauses++;
    list_pause(e, p);
}

/* Nonzero when the pause was sent by a host NIC whose address is not dst. */
static int innocent(const struct roce_engine *e, const struct pause_rec *p,
                    const uint8_t dst[ROCE_ADDR_LEN])
{
    if (p->mac == 0)
        return 0;
    const struct roce_host_mac *m = &e->macs[p->mac - 1];
    return roce_host_mac_role(m) == ROCE_MAC_UNROUTED && memcmp(m->addr, dst, ROCE_ADDR_LEN) != 0;
}

void roce_victims_request(struct roce_engine *e, struct roce_flow *f, uint64_t frame, int64_t ts)
{
    int64_t prev = roce_flow_last_req_ts(f); /* the request before this one */
    unsigned prio = roce_flow_cold(f)->report.priority;
    if (prev == 0 || prio >= ROCE_PFC_PRIORITIES ||
        (e->pause_last_start[prio] <= prev && e->pause_last_start[ROCE_PFC_PRIORITIES] <= prev))
        return;
    /* a pause began since the previous request: the earliest that stopped it */
    const struct pause_rec *best = NULL;
    int64_t oldest = INT64_MAX;
    for (unsigned i = 0; i < ROCE_PAUSES_KEPT; i++) {
        const struct pause_rec *p = &e->pauses[i];
        if (p->frame == 0)
            continue;
        if (p->start < oldest)
            oldest = p->start;
        if ((p->prio != prio && p->prio != ROCE_PFC_PRIORITIES) || p->start <= prev ||
            p->start > ts || p->start - prev > e->cfg.victim_window_ns || p->end > ts ||
            ts - p->end > e->cfg.victim_window_ns ||
            (p->mac != 0 && p->mac == roce_flow_cold(f)->mac_slot))
            continue; /* a MAC's pause stops what is sent to it, not what it sends */
        if (best == NULL || p->start < best->start)
            best = p;
    }
    if (best == NULL) {
        if (e->pauses_wrapped && oldest > prev)
            e->totals.victims_untracked++; /* the pauses of its gap left the ring */
        return;
    }
    struct roce_flow_report *r = &roce_flow_cold(f)->report;
    const int hol = innocent(e, best, f->key.dst);
    r->pause_stalls++;
    r->pause_stall_ns += ts - prev;
    roce_incast_evidence(e, f->key.dst, 0, best->frame, frame, best->start);
    if (hol) {
        r->hol_stalls++;
        r->hol_stall_ns += ts - prev;
        roce_ev_note(e, f, ROCE_DIAG_PAUSE_VICTIM, best->frame);
        roce_ev_note(e, f, ROCE_DIAG_PAUSE_VICTIM, frame);
    }
    struct roce_pause_episode *x = listed(e, best);
    if (x == NULL)
        return;
    x->victims++;
    x->innocent += (uint64_t)hol;
    x->stall_ns += ts - prev;
    if (x->n_named < ROCE_PAUSE_VICTIMS) {
        struct roce_pause_victim *v = &x->v[x->n_named++];
        v->key = f->key;
        v->stall_ns = ts - prev;
        v->resume_frame = frame;
        v->innocent = (uint8_t)hol;
    }
}
