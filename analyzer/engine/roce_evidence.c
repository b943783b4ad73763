/*
 * roce_evidence.c - evidence frames: the first frames of every diagnosis
 * kind, per flow, and of every fault of the capture (see roce_evidence.h
 * and roce_diag.h).
 */
#include "roce_evidence.h"

#include <stdlib.h>
#include <string.h>

#include "roce_internal.h"

void roce_evidence_add_frame(uint64_t *a, uint8_t *np, uint64_t frame)
{
    unsigned n = *np, at = n;
    if (frame == 0 || (n == ROCE_EVIDENCE_MAX && frame > a[n - 1]))
        return; /* the usual case once full: later frames come later */
    while (at > 0 && a[at - 1] > frame)
        at--;
    if (at > 0 && a[at - 1] == frame)
        return;
    if (n == ROCE_EVIDENCE_MAX)
        n--; /* the highest goes */
    memmove(&a[at + 1], &a[at], (n - at) * sizeof a[0]);
    a[at] = frame;
    *np = (uint8_t)(n + 1);
}

void roce_evidence_add(struct roce_evidence *ev, unsigned kind, uint64_t frame)
{
    if (kind < ROCE_DIAG_KINDS)
        roce_evidence_add_frame(ev->frame[kind], &ev->n[kind], frame);
}

void roce_evidence_add_capture(struct roce_capture_evidence *ev, unsigned fault, uint64_t frame)
{
    if (fault < ROCE_FAULTS)
        roce_evidence_add_frame(ev->frame[fault], &ev->n[fault], frame);
}

void roce_evidence_merge(struct roce_evidence *dst, const struct roce_evidence *src,
                         uint64_t frame_off)
{
    for (unsigned k = 0; k < ROCE_DIAG_KINDS; k++)
        for (unsigned i = 0; i < src->n[k] && i < ROCE_EVIDENCE_MAX; i++)
            roce_evidence_add(dst, k, src->frame[k][i] + frame_off);
}

struct flow_ev *roce_ev_of(struct roce_engine *e, struct roce_flow *f)
{
    struct roce_flow_cold *c = roce_flow_cold(f);
    if (c->ev == NULL && (c->ev = calloc(1, sizeof *c->ev)) == NULL)
        e->alloc_failures++; /* this evidence is lost; the next one tries again */
    return c->ev;
}

void roce_ev_note(struct roce_engine *e, struct roce_flow *f, unsigned kind, uint64_t frame)
{
    struct flow_ev *x = roce_ev_of(e, f);
    if (x != NULL)
        roce_evidence_add(&x->ev, kind, frame);
}

void roce_ev_free(struct roce_flow *f)
{
    struct roce_flow_cold *c = roce_flow_cold(f);
    free(c->ev);
    c->ev = NULL;
}
