/*
 * roce_split.h - a split analysis (`rocescope -T N`): one capture analysed by
 * several engines at once, each taking the frames of whole classes of
 * address pairs, and the proof that their results, merged, are the one
 * engine's. The second public header beside roce_engine.h (which it
 * includes); roce_vantage.h is the third.
 *
 * Each part analyses the frames of its classes and is told the time of
 * the others, so that its engine sees time pass as one engine would: one
 * reader walks the input once and hands each part its own frames with the
 * input's time (roce_split_walk_frame(), roce_split_frame(): what `rocescope
 * -T` does), or every frame of the input goes to every part, in order
 * (roce_split_mine()). Frames with the same key class go to the same part
 * (the key: a hash of the unordered pair of their packet's addresses, after
 * any mirror encapsulation; 0 for frames without a RoCE packet), so every
 * connection, its CNPs and its CM exchange are analysed by one engine, and
 * the requests the
 * diagnoses keep by class (roce_reqlog.h) are those one engine keeps. The
 * front end runs the parts (threads), keeps their settled verdicts with the
 * frame at which each was delivered (roce_split_delivered()), asks
 * roce_split_exact() whether the result is the one engine's, and if so
 * merges the verdicts in frame order and the reports, with flow ids
 * renumbered in the order the flows were created (roce_split_number(),
 * roce_split_flow_id()).
 *
 * The result is the one engine's as long as the capture is in time order and
 * no engine-wide bound is reached (max_flows, max_open_verdicts, the CE mark
 * and CNP rings, the CM REQs waiting, the diagnoses' gap and DCQCN rings and
 * the MAC table): roce_split_exact() checks each from what the engine knows
 * of its windows, rings and usage (roce_engine_usage, roce_engine.h);
 * rocescope(1), THREADS, says it for users. The key of a frame and its class:
 * roce_shard.h.
 */
#ifndef ROCE_SPLIT_H
#define ROCE_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "roce_engine.h"
#include "roce_shard.h"

/* How many parts a split into `wanted` engines has: a part takes whole
 * classes, so parts beyond the classes would read every frame and get none. */
unsigned roce_split_parts(unsigned wanted);

struct roce_split_part;

/*
 * Part `part` (0 .. n-1) of an n-part split (n from roce_split_parts()): an
 * engine of cfg, whose on_verdict gets the part's settled verdicts and whose
 * on_flow (NULL: none) is called for every flow the part creates, both with
 * cfg->ctx, as for an engine of its own. Owns the engine. NULL when out of
 * memory or cfg is invalid. A part is used by one thread at a time.
 */
struct roce_split_part *roce_split_part_new(const struct roce_config *cfg, unsigned part,
                                            unsigned n);
void roce_split_part_free(struct roce_split_part *p);
/* The part's engine: feed it the frames roce_split_mine() says are its
 * (roce_split_frame() feeds it itself);
 * read its totals and report once roce_split_finish() was called. */
struct roce_engine *roce_split_engine(struct roce_split_part *p);

/*
 * Every frame of the input, in order, numbered as one engine numbers them:
 * nonzero when it is the part's (its key's class is one of the part's; the
 * engine is then told the latest time of the input, and the caller hands it
 * the frame), 0 when another part analyses it. Notes whether the frames
 * come in time order.
 */
int roce_split_mine(struct roce_split_part *p, const struct roce_frame_in *in);

/*
 * One walk of each frame (threads.c): a reader takes every frame of the
 * input once, in order, and finds the part that takes it
 * (roce_split_walk_frame, with the latest time of the input up to and with
 * the frame); that part is handed the frame and that time
 * (roce_split_frame) and never sees the frames of the other parts. At the
 * end each part is told the input's latest time (roce_split_input_time,
 * when the input had frames), then finished. The parts' results are those
 * of roce_split_mine's way (every part told every frame), out-of-order
 * frames included: such a frame is earlier than the time its part is
 * handed with it.
 */
struct roce_split_walk {
    const struct roce_config *cfg;    /* the parts' (kept by the caller) */
    uint8_t part[ROCE_SHARD_CLASSES]; /* the part of each key class */
    int64_t now_ns;                   /* the latest time of the input so far */
    int have_now;
};
/* The reader of an n-part split (n from roce_split_parts()) of cfg. */
void roce_split_walk_init(struct roce_split_walk *w, const struct roce_config *cfg, unsigned n);
/* The next frame of the input, numbered as one engine numbers them: the
 * part (0 .. n-1) that takes it, and in *now_ns the input's latest time up
 * to and with it. */
unsigned roce_split_walk_frame(struct roce_split_walk *w, const struct roce_frame_in *in,
                               int64_t *now_ns);
/* The part's next frame, with the time roce_split_walk_frame gave: the
 * engine is told the time and analyses the frame. Notes whether the input
 * came in time order. */
void roce_split_frame(struct roce_split_part *p, const struct roce_frame_in *in, int64_t now_ns);
/* The input's latest time at its end, for the part's finish. */
void roce_split_input_time(struct roce_split_part *p, int64_t now_ns);

/* The input ended: the engine is told its latest time and settles what is
 * still open (roce_engine_finish). */
void roce_split_finish(struct roce_split_part *p);

/* The frame at which the part delivers the verdicts it delivers now: the
 * frame it analyses, or UINT64_MAX once finishing. For its on_verdict. */
uint64_t roce_split_delivered(const struct roce_split_part *p);

/*
 * The settled verdicts of all the parts in frame order, one per call, each
 * with the frame at which its part delivered it (roce_split_delivered):
 * 1 with *v and *delivered set, 0 at the end, -1 when they cannot be read.
 */
typedef int (*roce_split_next_fn)(void *ctx, struct roce_verdict *v, uint64_t *delivered);

/*
 * Whether the n finished parts, merged, give what one engine gives on the
 * same input: NULL when they do, else why not (static text, for a trace).
 * next/ctx give their settled verdicts in frame order (read once). The
 * frames must have been in time order, and no bound of one engine reached:
 * the flows the parts created, the verdicts open at once (one engine
 * delivers a verdict once it and all before it are settled: the latest
 * frame at which a part delivered it or one before it bounds when), the CE
 * marks and CNPs waiting in any span of their longest wait, the CM REQs
 * waiting, the diagnoses' rings and the MAC table, and no allocation failed.
 */
const char *roce_split_exact(struct roce_split_part *const *parts, unsigned n,
                             roce_split_next_fn next, void *ctx);

/*
 * While the part runs: why roce_split_exact will refuse, from what only
 * grows as the part analyses (frames out of time order, PFC pauses, a
 * bound of the engine reached in the part, out of memory), or NULL (the
 * proof may still refuse at the end, over all the parts). A few loads: a
 * front end asks after each batch of frames and stops a doomed split
 * early instead of analysing the whole input twice.
 */
const char *roce_split_doomed(const struct roce_split_part *p);

/*
 * While the parts run, the verdicts waiting at once in one engine, seen from
 * the parts (roce_split_exact refuses when they reach max_open_verdicts:
 * one engine delivers a verdict only after every verdict before it, so one
 * that waits long, in any part, holds all the verdicts after it, in every
 * part). roce_split_glance gives the frame the part analyses and the frame
 * of its oldest verdict still waiting (UINT64_MAX: none). With `from` the
 * oldest waiting verdict of all the parts and `to` the earliest frame any
 * part analyses, each part counts its verdicts of frames in [from, to),
 * waiting or delivered since (roce_split_between: delivered ones are
 * counted by whole epochs of 1024 frames over the last million frames, so
 * it may count fewer, never more); one engine has at least their sum
 * waiting. roce_split_open_doomed: why the proof will refuse when that sum
 * reached the bound, or NULL. The front end moves these numbers between the
 * parts' threads; each call is on its part's own thread. `seen`: the frame
 * up to which the part was given every frame of its (a part reading the
 * input itself sees every frame), or 0; with no verdict waiting the part
 * gives that frame when it is later than its own: every frame of its
 * before it is analysed, and it holds no verdict that `from` could be (a
 * part with few frames of its own would otherwise hold `to` back).
 */
void roce_split_glance(const struct roce_split_part *p, uint64_t seen, uint64_t *frame,
                       uint64_t *oldest);
uint64_t roce_split_between(const struct roce_split_part *p, uint64_t from, uint64_t to);
const char *roce_split_open_doomed(const struct roce_config *cfg, uint64_t verdicts);

/* Number the flows of the n parts as one engine does, in the order of the
 * frames that created them (a frame creates flows in one part only).
 * 0, or -1 when out of memory. */
int roce_split_number(struct roce_split_part *const *parts, unsigned n);
/* The id one engine gives the flow the part numbered id (after
 * roce_split_number; ids the part did not create are returned as they are). */
uint64_t roce_split_flow_id(const struct roce_split_part *p, uint64_t id);

#endif
