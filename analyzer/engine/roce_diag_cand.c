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

struct cand *roce_diag_cand(struct cands *cs, unsigned kind, unsigned cause)
{
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
