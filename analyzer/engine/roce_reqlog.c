/*
 * roce_reqlog.c - the recent request packets of all flows (see
 * roce_reqlog.h).
 *
 * A ring per class of address pairs, each in capture order, written
 * sequentially: a per-flow ring would cost a cold cache line per request
 * when many flows interleave. A flow's entries are chained (each names the
 * flow's previous one, the flow its latest), so a query walks that flow's
 * entries only; a link to an entry the ring has overwritten ends the chain.
 */
#include "roce_reqlog.h"

#include <stdlib.h>

#include "roce_internal.h"
#include "roce_psn.h"

#define MASK         (REQLOG_ENTRIES - 1)
#define REQLOG_AHEAD 8u /* entries: three cache lines ahead */

/* The entry a link names (its number + 1), or NULL when there is none or
 * the ring has overwritten it. */
static const struct reqlog_entry *entry(const struct reqlog_ring *r, uint64_t link)
{
    if (link == 0 || r->e == NULL || r->written - (link - 1) > REQLOG_ENTRIES)
        return NULL;
    return &r->e[(link - 1) & MASK];
}

/* The ring of f's class. */
static const struct reqlog_ring *ring_of(const struct roce_engine *e, const struct roce_flow *f)
{
    return &e->reqlog[f->req.log_class];
}

/* Nonzero when the chain that ended at link was cut by the ring (older
 * entries of the flow were overwritten), not by its start. */
static int cut(const struct reqlog_ring *r, uint64_t link)
{
    return link != 0 && entry(r, link) == NULL;
}

void roce_reqlog_add(struct roce_engine *e, struct roce_flow *f, int64_t ts, uint32_t psn,
                     uint32_t len)
{
    struct reqlog_ring *r = &e->reqlog[f->req.log_class];
    if (r->e == NULL && (r->e = malloc(REQLOG_ENTRIES * sizeof *r->e)) == NULL) {
        e->alloc_failures++; /* this request is not logged; the next one tries again */
        return;
    }
    struct reqlog_entry *x = &r->e[r->written & MASK];
#if defined(__GNUC__)
    /* the entries are written in order, a few rings at a time: fetch the
     * line of the entries after the next ones now, so that the store does
     * not wait for it (the hardware sees one stream per ring too late) */
    __builtin_prefetch(&r->e[(r->written + REQLOG_AHEAD) & MASK], 1, 3);
#endif
    x->ts = ts;
    x->prev = f->log_last;
    x->psn = psn;
    x->len = len;
    f->log_last = ++r->written;
}

int roce_reqlog_window(const struct roce_engine *e, const struct roce_flow *f, int64_t from,
                       int64_t to, uint64_t *bytes, uint64_t *packets)
{
    const struct reqlog_ring *r = ring_of(e, f);
    uint64_t b = 0, n = 0, link = f->log_last;
    const struct reqlog_entry *x;
    unsigned walked = 0;
    for (; (x = entry(r, link)) != NULL && walked < REQLOG_WALK; link = x->prev, walked++) {
        if (x->ts < from)
            break;
        if (x->ts < to) {
            b += x->len;
            n++;
        }
    }
    if ((x == NULL && cut(r, link)) || walked == REQLOG_WALK)
        return -1; /* requests older than what is kept may still be in the window */
    *bytes = b;
    *packets = n;
    return 0;
}

int roce_reqlog_first_after(const struct roce_engine *e, const struct roce_flow *f, uint32_t psn,
                            int64_t at, int64_t *ts)
{
    const struct reqlog_ring *r = ring_of(e, f);
    uint64_t link = f->log_last;
    const struct reqlog_entry *x, *first = NULL;
    unsigned walked = 0;
    for (; (x = entry(r, link)) != NULL && walked < REQLOG_WALK; link = x->prev, walked++) {
        if (x->ts > at)
            continue; /* captured after the NAK */
        if (!roce_psn_after(x->psn, psn))
            break;
        first = x;
    }
    if (first == NULL || (x == NULL && cut(r, link)) || walked == REQLOG_WALK)
        return 0; /* none, or the run began before the oldest request kept */
    *ts = first->ts;
    return 1;
}

void roce_reqlog_done(struct roce_engine *e)
{
    for (unsigned c = 0; c < REQLOG_CLASSES; c++) {
        free(e->reqlog[c].e);
        e->reqlog[c].e = NULL;
    }
}
