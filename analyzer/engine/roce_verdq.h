/*
 * roce_verdq.h - verdicts waiting to settle, delivered in frame order
 * (roce_verdq.c; not for front ends).
 */
#ifndef ROCE_VERDQ_H
#define ROCE_VERDQ_H

#include <stdint.h>

struct roce_engine;
struct roce_verdict;

/* 0, or -1 when out of memory (the ring is struct roce_engine's: it frees it). */
int roce_vq_init(struct roce_engine *e);
/* Append the verdict of the current frame, waiting for `pending` annotations
 * until deadline. Returns its sequence number. */
uint64_t roce_vq_push(struct roce_engine *e, const struct roce_verdict *v, unsigned pending,
                      int64_t deadline);
/* The open verdict with this sequence and frame (also the frame being
 * analysed, not in the queue yet), or NULL when already settled. */
struct roce_verdict *roce_vq_get(struct roce_engine *e, uint64_t seq, uint64_t frame);
/* One more annotation is due on the open verdict with this sequence and
 * frame, until deadline (nothing when it was delivered already). */
void roce_vq_hold(struct roce_engine *e, uint64_t seq, uint64_t frame, int64_t deadline);
/* One awaited annotation arrived (or will not come). */
void roce_vq_done(struct roce_engine *e, uint64_t seq, uint64_t frame);
/* The open verdicts (in the queue) of frames before `frame`; in *oldest
 * the frame of the oldest open verdict (UINT64_MAX when none is open). */
uint64_t roce_vq_before(const struct roce_engine *e, uint64_t frame, uint64_t *oldest);
/* Deliver settled verdicts from the head (all when flush). */
void roce_vq_release(struct roce_engine *e, int64_t now, int flush);

#endif
