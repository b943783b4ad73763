/*
 * roce_diag_cand.c - the store of subjects as they are found (candidates)
 * and their evidence frames, shared by every file that finds subjects:
 * roce_diag.c (the flows, MACs and totals), roce_diag_capture.c (the
 * capture's faults) and roce_diag_ecmp.c (ECMP paths). Apart from
 * roce_diag.c so that those files depend on it, not on each other.
 */
#include <stdlib.h>
#include <string.h>

#include "roce_diag_int.h"

#define CANDS_MIN 16u

int roce_diag_cmp_subject(const struct roce_diag_subject *a, const struct roce_diag_subject *b)
{
    int c = memcmp(&a->flow, &b->flow, sizeof a->flow);
    if (c == 0)
        c = memcmp(&a->peer, &b->peer, sizeof a->peer);
    if (c == 0)
        c = memcmp(a->mac, b->mac, sizeof a->mac);
    if (c == 0)
        c = roce_diag_cmp_u(a->priority, b->priority);
    if (c == 0)
        c = roce_diag_cmp_u(a->fault, b->fault);
    if (c == 0)
        c = roce_diag_cmp_u(a->field, b->field);
    if (c == 0)
        c = roce_diag_cmp_u(a->udp_sport, b->udp_sport);
    return c;
}

int roce_diag_cmp_worst(const void *pa, const void *pb)
{
    const struct cand *a = pa, *b = pb;
    int c = roce_diag_cmp_u(a->kind, b->kind);
    if (c == 0)
        c = roce_diag_cmp_u(a->cause, b->cause);
    if (c == 0)
        c = -roce_diag_cmp_u(a->s.count, b->s.count);
    if (c == 0)
        c = roce_diag_cmp_u(roce_diag_first_frame(a->s.frames, a->s.n_frames),
                            roce_diag_first_frame(b->s.frames, b->s.n_frames));
    if (c == 0)
        c = roce_diag_cmp_subject(&a->s, &b->s);
    return c;
}

/* ---- the bound: each finding's worst cs->limit subjects ----
 *
 * It applies to the kinds whose subjects are flows (one each). A host, a
 * priority, a path, a receiver or a fault of the capture are few, and some
 * are found once per flow and joined after (lossy_priority): all listed. */

/* Nonzero when kept candidate a is listed after kept candidate b (a is
 * the less bad): the heap's order, the least bad on top. */
static int listed_after(const struct cands *cs, size_t a, size_t b)
{
    return roce_diag_cmp_worst(&cs->c[a], &cs->c[b]) > 0;
}

static void sift_down(const struct cands *cs, size_t *h, size_t n, size_t i)
{
    for (;;) {
        size_t top = i, l = 2 * i + 1, r = l + 1;
        if (l < n && listed_after(cs, h[l], h[top]))
            top = l;
        if (r < n && listed_after(cs, h[r], h[top]))
            top = r;
        if (top == i)
            return;
        size_t t = h[i];
        h[i] = h[top];
        h[top] = t;
        i = top;
    }
}

/* A subject of count and frames counted, not listed. */
static void count_unlisted(struct cand_bound *b, uint64_t count, const uint64_t *frames,
                           unsigned n_frames)
{
    b->unlisted++;
    b->unlisted_count += count;
    b->n_frames = roce_diag_join_frames(b->frames, b->n_frames, frames, n_frames);
}

void roce_diag_cands_settle(struct cands *cs)
{
    if (!cs->pending)
        return;
    cs->pending = 0;
    const size_t last = cs->n - 1;
    struct cand *x = &cs->c[last];
    struct cand_bound *b = &cs->bound[x->kind][x->cause];
    if (!roce_diag_kind_names_flow(x->kind))
        return;
    if (b->n < cs->limit) { /* room: kept; a heap once full */
        if (b->heap == NULL && (b->heap = malloc(cs->limit * sizeof *b->heap)) == NULL) {
            cs->oom = 1;
            return;
        }
        b->heap[b->n++] = last;
        if (b->n == cs->limit)
            for (size_t i = b->n / 2; i-- > 0;)
                sift_down(cs, b->heap, b->n, i);
        return;
    }
    const size_t top = b->heap[0];
    if (roce_diag_cmp_worst(x, &cs->c[top]) < 0) { /* worse than the least bad kept */
        count_unlisted(b, cs->c[top].s.count, cs->c[top].s.frames, cs->c[top].s.n_frames);
        cs->c[top] = *x;
        sift_down(cs, b->heap, b->n, 0);
    } else {
        count_unlisted(b, x->s.count, x->s.frames, x->s.n_frames);
    }
    cs->n--; /* its place is free again */
}

int roce_diag_cand_unlisted(struct cands *cs, unsigned kind, unsigned cause,
                            const struct roce_flow_key *key, uint64_t count, const uint64_t *frames,
                            unsigned n_frames)
{
    roce_diag_cands_settle(cs);
    const struct cand_bound *b = &cs->bound[kind][cause];
    if (cs->limit == 0 || !roce_diag_kind_names_flow(kind) || b->n < cs->limit)
        return 0;
    const struct roce_diag_subject *top = &cs->c[b->heap[0]].s;
    uint64_t first = UINT64_MAX; /* as the candidate's frames would be joined */
    for (unsigned i = 0; i < n_frames; i++)
        if (frames[i] != 0 && frames[i] < first)
            first = frames[i];
    /* roce_diag_cmp_worst against the least bad kept, as far as the key */
    int c = -roce_diag_cmp_u(count, top->count);
    if (c == 0)
        c = roce_diag_cmp_u(first, roce_diag_first_frame(top->frames, top->n_frames));
    if (c == 0)
        c = memcmp(key, &top->flow, sizeof *key);
    if (c <= 0)
        return 0; /* kept, or undecided: a candidate weighs it whole */
    count_unlisted(&cs->bound[kind][cause], count, frames, n_frames);
    return 1;
}

void roce_diag_cands_free(struct cands *cs)
{
    for (unsigned k = 0; k < ROCE_DIAG_KINDS; k++)
        for (unsigned c = 0; c < ROCE_CAUSES; c++)
            free(cs->bound[k][c].heap);
    free(cs->c);
}

struct cand *roce_diag_cand(struct cands *cs, unsigned kind, unsigned cause)
{
    roce_diag_cands_settle(cs);
    if (cs->n == cs->cap) {
        size_t cap = cs->cap ? cs->cap * 2 : CANDS_MIN;
        struct cand *c = realloc(cs->c, cap * sizeof *c);
        if (c == NULL) {
            cs->oom = 1;
            return NULL;
        }
        cs->c = c;
        cs->cap = cap;
    }
    struct cand *x = &cs->c[cs->n++];
    memset(x, 0, sizeof *x);
    x->kind = (uint8_t)kind;
    x->cause = (uint8_t)cause;
    cs->pending = cs->limit != 0;
    return x;
}

uint8_t roce_diag_join_frames(uint64_t *dst, unsigned n_dst, const uint64_t *src, unsigned n_src)
{
    /* the lowest ROCE_EVIDENCE_MAX of both, each once, ascending: a small
     * array, not a whole struct roce_evidence to clear for every subject */
    uint64_t a[ROCE_EVIDENCE_MAX];
    uint8_t n = 0;
    for (unsigned i = 0; i < n_dst; i++)
        roce_evidence_add_frame(a, &n, dst[i]);
    for (unsigned i = 0; i < n_src; i++)
        roce_evidence_add_frame(a, &n, src[i]);
    memcpy(dst, a, n * sizeof a[0]);
    memset(dst + n, 0, (ROCE_EVIDENCE_MAX - n) * sizeof a[0]); /* as before: zeros after */
    return n;
}

void roce_diag_take_frames(struct roce_diag_subject *s, const uint64_t *frames, unsigned n)
{
    s->n_frames = roce_diag_join_frames(s->frames, s->n_frames, frames, n);
}
