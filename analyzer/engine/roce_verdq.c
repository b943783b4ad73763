/*
 * roce_verdq.c - verdicts waiting to settle, delivered in frame order.
 *
 * A frame with a verdict enters the queue; it waits while annotations are
 * still due (a CE mark until the window after it has passed, a NAK until its
 * resend is seen or the NAK horizon passes), and frames behind it wait for
 * it, so on_verdict sees frames in order. The queue is bounded
 * (max_open_verdicts); when full the oldest is delivered early and counted
 * in verdicts_forced. Entries are found again by sequence number.
 */
#include <stdlib.h>
#include <string.h>

#include "roce_internal.h"

#define VQ_INITIAL 1024u

static struct vq_entry *vq_at(struct roce_engine *e, uint64_t seq)
{
    return &e->vq[seq & (e->vq_cap - 1)];
}

int roce_vq_init(struct roce_engine *e)
{
    e->vq_max = e->cfg.max_open_verdicts;
    e->vq_cap = VQ_INITIAL;
    e->vq = calloc(e->vq_cap, sizeof *e->vq);
    return e->vq != NULL ? 0 : -1;
}

static void deliver_head(struct roce_engine *e)
{
    struct vq_entry *q = vq_at(e, e->vq_head_seq);
    if (e->cfg.on_verdict != NULL)
        e->cfg.on_verdict(&q->v, e->cfg.ctx);
    e->vq_head_seq++;
}

static int vq_grow(struct roce_engine *e)
{
    uint32_t n = e->vq_cap * 2;
    struct vq_entry *nq = calloc(n, sizeof *nq);
    if (nq == NULL)
        return -1;
    for (uint64_t s = e->vq_head_seq; s < e->vq_tail_seq; s++)
        nq[s & (n - 1)] = *vq_at(e, s);
    free(e->vq);
    e->vq = nq;
    e->vq_cap = n;
    return 0;
}

uint64_t roce_vq_push(struct roce_engine *e, const struct roce_verdict *v, unsigned pending,
                      int64_t deadline)
{
    uint64_t open = e->vq_tail_seq - e->vq_head_seq;
    if (open >= e->vq_max || (open == e->vq_cap && vq_grow(e) != 0)) {
        e->t.verdicts_forced++;
        deliver_head(e);
    }
    uint64_t seq = e->vq_tail_seq++;
    struct vq_entry *q = vq_at(e, seq);
    q->v = *v;
    q->pending = (uint16_t)(pending > UINT16_MAX ? UINT16_MAX : pending);
    q->deadline = deadline;
    return seq;
}

struct roce_verdict *roce_vq_get(struct roce_engine *e, uint64_t seq, uint64_t frame)
{
    if (seq < e->vq_head_seq || seq >= e->vq_tail_seq)
        return NULL;
    struct vq_entry *q = vq_at(e, seq);
    return q->v.frame == frame ? &q->v : NULL;
}

void roce_vq_done(struct roce_engine *e, uint64_t seq, uint64_t frame)
{
    if (roce_vq_get(e, seq, frame) != NULL) {
        struct vq_entry *q = vq_at(e, seq);
        if (q->pending > 0)
            q->pending--;
    }
}

void roce_vq_release(struct roce_engine *e, int64_t now, int flush)
{
    while (e->vq_head_seq < e->vq_tail_seq) {
        const struct vq_entry *q = vq_at(e, e->vq_head_seq);
        if (!flush && q->pending > 0 && q->deadline >= now)
            break;
        deliver_head(e);
    }
}
