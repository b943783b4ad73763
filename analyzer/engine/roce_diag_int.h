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

struct cands {
    struct cand *c;
    size_t n, cap;
    int oom;
};

/* A new zeroed subject of kind and cause, or NULL when out of memory
 * (cs->oom is then set). */
struct cand *roce_diag_cand(struct cands *cs, unsigned kind, unsigned cause);
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
