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

#include "roce_verdq.h"

#include "roce_internal.h"

#define VQ_INITIAL 1024u

/* An open verdict waiting for late annotations. */
struct vq_entry {
    struct roce_verdict verdict;
    int64_t deadline;
    uint16_t pending;
};

static struct vq_entry *vq_at(struct roce_engine *e, uint64_t seq)
{
    return roce_ring_at(&e->vq, sizeof(struct vq_entry), seq);
}

int roce_vq_init(struct roce_engine *e)
{
    return roce_ring_init(&e->vq, VQ_INITIAL, sizeof(struct vq_entry));
}

static void deliver_head(struct roce_engine *e)
{
    struct vq_entry *q = vq_at(e, e->vq.head);
    if (e->cfg.on_verdict != NULL)
        e->cfg.on_verdict(&q->verdict, e->cfg.ctx);
    e->vq.head++;
}

uint64_t roce_vq_push(struct roce_engine *e, const struct roce_verdict *v, unsigned pending,
                      int64_t deadline)
{
    uint64_t open = roce_ring_count(&e->vq);
    int full = open >= e->cfg.max_open_verdicts;
    if (!full && open == e->vq.cap && roce_ring_grow(&e->vq, sizeof(struct vq_entry)) != 0) {
        e->alloc_failures++;
        full = 1;
    }
    if (full) {
        e->totals.verdicts_forced++;
        deliver_head(e);
    }
    uint64_t seq = e->vq.tail++;
    struct vq_entry *q = vq_at(e, seq);
    q->verdict = *v;
    q->pending = (uint16_t)(pending > UINT16_MAX ? UINT16_MAX : pending);
    q->deadline = deadline;
    return seq;
}

/* The frame being analysed: its verdict is not in the queue yet. */
static int current(const struct roce_engine *e, uint64_t seq, uint64_t frame)
{
    return seq == e->vq.tail && e->cur_v != NULL && e->cur_v->frame == frame;
}

struct roce_verdict *roce_vq_get(struct roce_engine *e, uint64_t seq, uint64_t frame)
{
    if (current(e, seq, frame))
        return e->cur_v;
    if (seq < e->vq.head || seq >= e->vq.tail)
        return NULL;
    struct vq_entry *q = vq_at(e, seq);
    return q->verdict.frame == frame ? &q->verdict : NULL;
}

void roce_vq_hold(struct roce_engine *e, uint64_t seq, uint64_t frame, int64_t deadline)
{
    if (current(e, seq, frame))
        roce_cur_expect(e, deadline);
    else if (roce_vq_get(e, seq, frame) != NULL) {
        struct vq_entry *q = vq_at(e, seq);
        if (q->pending < UINT16_MAX)
            q->pending++;
        if (deadline > q->deadline)
            q->deadline = deadline;
    }
}

void roce_vq_done(struct roce_engine *e, uint64_t seq, uint64_t frame)
{
    if (current(e, seq, frame)) {
        if (e->cur_pending > 0)
            e->cur_pending--;
    } else if (roce_vq_get(e, seq, frame) != NULL) {
        struct vq_entry *q = vq_at(e, seq);
        if (q->pending > 0)
            q->pending--;
    }
}

uint64_t roce_vq_before(const struct roce_engine *e, uint64_t frame, uint64_t *oldest)
{
    uint64_t lo = e->vq.head, hi = e->vq.tail; /* the queue is in frame order */
    const size_t size = sizeof(struct vq_entry);
    *oldest = lo < hi ? ((const struct vq_entry *)roce_ring_at(&e->vq, size, lo))->verdict.frame
                      : UINT64_MAX;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (((const struct vq_entry *)roce_ring_at(&e->vq, size, mid))->verdict.frame < frame)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - e->vq.head;
}

void roce_vq_release(struct roce_engine *e, int64_t now, int flush)
{
    while (e->vq.head < e->vq.tail) {
        const struct vq_entry *q = vq_at(e, e->vq.head);
        if (!flush && q->pending > 0 && q->deadline >= now)
            break;
        deliver_head(e);
    }
}
