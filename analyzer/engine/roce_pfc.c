/*
 * roce_pfc.c - PFC and PAUSE accounting: frames, XOFF/XON, quanta, time
 * paused per priority, and pause storms.
 *
 * IEEE 802.1Qbb (PFC, MAC Control opcode 0x0101) pauses each enabled
 * priority for time[i] quanta; IEEE 802.3 Annex 31B (PAUSE, opcode 0x0001)
 * pauses the whole link. One quantum is 512 bit times, so its duration
 * depends on the link speed (configured: link_speed_mbps, default 100G,
 * where a quantum is 5.12 ns). A frame with a nonzero time is an XOFF, zero
 * an XON (resume now). A new XOFF while paused restarts the timer.
 *
 * Time paused is the union of the paused intervals up to the latest frame,
 * split into fixed windows of pfc_window_ns from the first frame of the
 * capture; a window in which a priority was paused for more than
 * pfc_storm_pct percent of it is a pause storm. The first XOFF frames of a
 * storm window are the evidence of the pfc_storm diagnosis (roce_diag.c):
 * the XOFF frames of the latest two windows that had one are kept until
 * their window closes (windows close in order, at most one behind).
 */
#include "roce_pfc.h"

#include <string.h>

#include "roce_internal.h"

#define BIT_TIMES_PER_QUANTUM 512
#define NS_PER_BIT_AT_1MBPS   1000 /* one bit at 1 Mb/s lasts 1 us */
#define PCT                   100

static int64_t quanta_ns(const struct roce_engine *e, uint32_t quanta)
{
    /* quanta x 512 bits at link_speed_mbps Mb/s */
    return (int64_t)quanta * BIT_TIMES_PER_QUANTUM * NS_PER_BIT_AT_1MBPS /
           (int64_t)e->cfg.link_speed_mbps;
}

/* The storm window just closed: its XOFF frames become evidence. */
static void storm_evidence(struct roce_engine *e, const struct pfc_state *s)
{
    unsigned p = (unsigned)(s - e->pfc);
    struct roce_pfc_storm_frames *sf = &e->totals.storm_frames;
    for (unsigned k = 0; k < 2; k++) {
        if (s->ev_window[k] != s->window)
            continue;
        for (unsigned i = 0; i < s->ev_n[k] && sf->n[p] < ROCE_EVIDENCE_MAX; i++)
            sf->frame[p][sf->n[p]++] = s->ev_frame[k][i];
    }
}

/* Close the current window of a priority: count it as a storm when paused
 * for more than the configured share of it. */
static void window_close(struct roce_engine *e, struct pfc_state *s, struct roce_pfc_prio *r)
{
    if (s->window_paused * PCT > (int64_t)e->cfg.pfc_storm_pct * e->cfg.pfc_window_ns) {
        r->storm_windows++;
        storm_evidence(e, s);
    }
    s->window_paused = 0;
}

/* Keep an XOFF frame with the window it came in. */
static void xoff_frame(struct roce_engine *e, struct pfc_state *s, uint64_t frame, int64_t ts)
{
    int64_t idx = (ts - e->pfc_origin) / e->cfg.pfc_window_ns;
    if (s->ev_window[0] != idx) {
        s->ev_window[1] = s->ev_window[0];
        s->ev_n[1] = s->ev_n[0];
        memcpy(s->ev_frame[1], s->ev_frame[0], sizeof s->ev_frame[0]);
        s->ev_window[0] = idx;
        s->ev_n[0] = 0;
    }
    if (s->ev_n[0] < ROCE_EVIDENCE_MAX)
        s->ev_frame[0][s->ev_n[0]++] = frame;
}

/* Add the paused time [from, to) to a priority: the partial windows at its
 * ends one by one, the whole windows in between in one step (each is paused
 * throughout, so a storm unless the storm share is 100 %). */
static void account(struct roce_engine *e, struct pfc_state *s, struct roce_pfc_prio *r,
                    int64_t from, int64_t to)
{
    const int64_t w = e->cfg.pfc_window_ns;
    if (from >= to)
        return;
    r->paused_ns += to - from;
    while (from < to) {
        int64_t idx = (from - e->pfc_origin) / w;
        int64_t wend = e->pfc_origin + (idx + 1) * w;
        if (idx != s->window) {
            window_close(e, s, r);
            s->window = idx;
        }
        if (to <= wend) {
            s->window_paused += to - from;
            return;
        }
        s->window_paused += wend - from;
        window_close(e, s, r);
        int64_t full = (to - wend) / w;
        if (full > 0 && e->cfg.pfc_storm_pct < PCT)
            r->storm_windows += (uint64_t)full;
        s->window = idx + 1 + full;
        from = wend + full * w;
    }
}

/* Bring a priority's paused time up to now without ending a running pause. */
static void settle(struct roce_engine *e, struct pfc_state *s, struct roce_pfc_prio *r, int64_t now)
{
    if (!s->paused)
        return;
    int64_t upto = s->end < now ? s->end : now;
    account(e, s, r, s->start, upto);
    s->start = upto;
    if (s->end <= now)
        s->paused = 0;
}

/* One XOFF (quanta > 0) or XON (quanta == 0) for a priority at ts. */
static void pause_event(struct roce_engine *e, struct pfc_state *s, struct roce_pfc_prio *r,
                        uint32_t quanta, uint64_t frame, int64_t ts, uint32_t mac)
{
    unsigned p = (unsigned)(s - e->pfc); /* the priority, ROCE_PFC_PRIORITIES: link PAUSE */
    r->frames++;
    roce_victims_pause(e, p, mac, quanta ? quanta_ns(e, quanta) : 0, frame, ts);
    settle(e, s, r, ts);
    if (quanta == 0) {
        r->xon++;
        s->paused = 0;
        return;
    }
    r->xoff++;
    r->quanta += quanta;
    xoff_frame(e, s, frame, ts);
    if (e->totals.xoff_frames.n[p] < ROCE_EVIDENCE_MAX) /* frames come in order */
        e->totals.xoff_frames.frame[p][e->totals.xoff_frames.n[p]++] = frame;
    if (!s->paused) {
        s->paused = 1;
        s->start = ts;
    }
    s->end = ts + quanta_ns(e, quanta);
}

void roce_pfc_frame(struct roce_engine *e, const struct roce_pkt *pkt, uint64_t frame, int64_t ts,
                    uint32_t mac)
{
    struct roce_pfc_report *t = &e->totals.pfc;
    if (!e->pfc_have_origin) {
        e->pfc_origin = e->totals.first_ts_ns;
        e->pfc_have_origin = 1;
    }
    switch (pkt->mac_ctrl) {
    case ROCE_MACCTRL_PFC:
        t->pfc_frames++;
        for (unsigned i = 0; i < ROCE_PFC_PRIORITIES; i++)
            if (pkt->pfc_cev & (1u << i))
                pause_event(e, &e->pfc[i], &t->prio[i], pkt->pause_quanta[i], frame, ts, mac);
        break;
    case ROCE_MACCTRL_PAUSE:
        t->pause_frames++;
        pause_event(e, &e->pfc[ROCE_PFC_PRIORITIES], &t->pause, pkt->pause_quanta[0], frame, ts,
                    mac);
        break;
    default:
        t->other_mac_control++;
        break;
    }
}

void roce_pfc_settle(struct roce_engine *e, int64_t now, int final)
{
    struct roce_pfc_report *t = &e->totals.pfc;
    for (unsigned i = 0; i <= ROCE_PFC_PRIORITIES; i++) {
        struct roce_pfc_prio *r = i < ROCE_PFC_PRIORITIES ? &t->prio[i] : &t->pause;
        struct pfc_state *s = &e->pfc[i];
        settle(e, s, r, final && s->paused ? s->end : now);
        if (final && s->window >= 0) {
            window_close(e, s, r);
            s->window = -1;
        }
    }
}

unsigned roce_pfc_priority(const struct roce_config *cfg, const struct roce_pkt *pkt)
{
    if (pkt->version == ROCE_VERSION_IB)
        return ROCE_PRIORITY_NONE;
    if (pkt->n_vlans > 0)
        return pkt->pcp[0]; /* the tag on the wire: the outermost of the frame */
    if (pkt->encap_cos != 0)
        return pkt->encap_cos - 1u; /* its tag, as the mirror's ERSPAN header keeps it */
    return cfg->dscp_priority[pkt->dscp & (ROCE_DSCP_VALUES - 1)];
}

void roce_pfc_init(struct roce_engine *e)
{
    memset(e->pfc, 0, sizeof e->pfc);
    for (unsigned i = 0; i <= ROCE_PFC_PRIORITIES; i++) {
        e->pfc[i].window = -1;
        e->pfc[i].ev_window[0] = e->pfc[i].ev_window[1] = -1;
    }
}
