/*
 * roce_diag_int.h - what the modules of the diagnoses share (not for front
 * ends): the subjects as they are found, and the judgement of the capture
 * that the other findings depend on.
 *
 *   roce_diag.c          subjects of the flows, the MACs and PFC; joining,
 *                        grouping into findings, ordering
 *   roce_diag_capture.c  the capture judged first: its faults
 *   roce_diag_ecmp.c     QPs sharing one ECMP path
 *   roce_diag_text.c     the sentences
 *   roce_diag_kinds.c    the kinds, one row each
 */
#ifndef ROCE_DIAG_INT_H
#define ROCE_DIAG_INT_H

#include <stddef.h>
#include <stdint.h>

#include "roce_diag.h"

/* A subject while the list is made, with its kind and cause. */
struct cand {
    uint8_t kind;  /* enum roce_diag_kind */
    uint8_t cause; /* enum roce_diag_cause */
    struct roce_diag_subject s;
};

/* The subjects of one finding (kind and cause) beyond the store's limit:
 * the candidates of it that are kept (a heap, the least bad on top, once
 * full), and what the others added up to. */
struct cand_bound {
    size_t *heap; /* places in cands.c, limit of them once full */
    size_t n;
    uint64_t unlisted, unlisted_count;
    uint64_t frames[ROCE_EVIDENCE_MAX]; /* the unlisted subjects' lowest evidence frames */
    uint8_t n_frames;
};

struct cands {
    struct cand *c;
    size_t n, cap;
    int oom;
    /* 0: every subject kept; else each finding keeps its worst limit
     * subjects as they are found and counts the others (each subject must
     * be found once: roce_diag_input.subject_limit) */
    size_t limit;
    int pending; /* the last candidate is still to be weighed against its bound */
    struct cand_bound bound[ROCE_DIAG_KINDS][ROCE_CAUSES];
};

/* A new zeroed subject of kind and cause, or NULL when out of memory
 * (cs->oom is then set). Under a limit the candidate before it is weighed
 * then: kept, kept in the place of the least bad one kept, or only
 * counted; a pointer to a candidate is good until the next call. */
struct cand *roce_diag_cand(struct cands *cs, unsigned kind, unsigned cause);
/* Under a limit, nonzero when a subject of a flow (key) of kind and cause,
 * with count and these evidence frames, is worse than every subject its
 * full bound keeps: it is then counted as unlisted and no candidate is
 * made (a table of a million troubled flows does not fill one for each). */
int roce_diag_cand_unlisted(struct cands *cs, unsigned kind, unsigned cause,
                            const struct roce_flow_key *key, uint64_t count, const uint64_t *frames,
                            unsigned n_frames);
/* Weigh the last candidate (call once every subject is found). */
void roce_diag_cands_settle(struct cands *cs);
/* Free the bounds' heaps. */
void roce_diag_cands_free(struct cands *cs);

static inline int roce_diag_cmp_u(uint64_t a, uint64_t b)
{
    return (a > b) - (a < b);
}
static inline uint64_t roce_diag_first_frame(const uint64_t *frames, unsigned n)
{
    return n ? frames[0] : UINT64_MAX;
}
/* The identity of a subject. */
int roce_diag_cmp_subject(const struct roce_diag_subject *a, const struct roce_diag_subject *b);
/* Subjects of one finding: worst first (count, then first frame, then
 * identity); a and b are struct cand. */
int roce_diag_cmp_worst(const void *a, const void *b);
/* Join n frames (ascending or not) into the lowest ROCE_EVIDENCE_MAX of
 * dst's n_dst and them; returns how many dst holds now. */
uint8_t roce_diag_join_frames(uint64_t *dst, unsigned n_dst, const uint64_t *src, unsigned n_src);
/* Join frames into s's evidence. */
void roce_diag_take_frames(struct roce_diag_subject *s, const uint64_t *frames, unsigned n);

/* What the capture's faults change in the other findings. */
struct roce_capture_judgement {
    int icrc_all_bad;    /* every ICRC checked is bad and no rewritten field explains some */
    int sport_rewritten; /* the UDP source port was shown rewritten: no ECMP finding */
};
/* Judge the capture of in (roce_diag_capture.c). */
void roce_diag_judge(const struct roce_diag_input *in, struct roce_capture_judgement *j);
/* The subjects of the finding of kind "capture": its faults. */
void roce_diag_capture_findings(struct cands *cs, const struct roce_diag_input *in,
                                const struct roce_capture_judgement *j);
/* ECMP collisions (roce_diag_ecmp.c). */
void roce_diag_ecmp_findings(struct cands *cs, const struct roce_diag_input *in);

#endif
