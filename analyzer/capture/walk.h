/*
 * walk.h - one walk of each frame for a split analysis (`rocescope -T N`,
 * threads.c; the split: roce_split.h): one reader reads the files once,
 * numbers their frames as one engine does (roce_analysis_file), finds each
 * frame's part once (roce_split_walk_frame) and hands each part its own
 * frames, with the input's latest time, in batches through a bounded ring
 * of its own (one writer, one reader: C11 atomics; a thread that finds its
 * ring full or empty sleeps on a condition variable). The parts never see
 * the frames of the others.
 *
 * A frame's bytes are copied into its batch (the reader's buffer moves on
 * at the next record).
 *
 * Or (roce_walk_cfg.alone) each part has a walk of its own, which reads
 * every file, numbers every frame, finds each frame's part and gives its
 * own part's frames to `own` at once, passing the others by: no ring, no
 * copy, every part reading the whole input (threads.c's default).
 */
#ifndef ROCE_WALK_H
#define ROCE_WALK_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "roce_split.h"

/* A frame handed to a part: the frame and the input's latest time up to
 * and with it (for roce_split_frame). */
struct roce_walk_frame {
    struct roce_frame_in in;
    int64_t now_ns;
};

struct roce_walk_cfg {
    const struct roce_config *cfg; /* the parts' (kept by the caller) */
    unsigned parts;                /* n, from roce_split_parts() */
    /* the part whose frames the reading thread analyses itself, at once
     * (own is called with each, ctx); parts: none, every part has a ring */
    unsigned self;
    void (*own)(void *ctx, const struct roce_frame_in *in, int64_t now_ns);
    void *ctx;
    unsigned batches, frames; /* a ring's batches, a batch's frames; 0: the defaults */
    atomic_int *stop;         /* reading stops early when set */
    /* every part reads the files itself: this walk hands its own part's
     * frames to own and passes the others' by (no ring) */
    int alone;
    /* alone: called (with ctx) at every ROCE_WALK_PASSED-th frame numbered
     * that is another part's, so that a part with few frames of its own
     * still looks around while it reads; NULL: never */
    void (*passed)(void *ctx);
};
#define ROCE_WALK_PASSED 4096u /* a power of two */

struct roce_walk;

/* A reader for the parts of wc (copied). NULL when out of memory. */
struct roce_walk *roce_walk_new(const struct roce_walk_cfg *wc);
void roce_walk_free(struct roce_walk *w);

/* The reading thread: the next file, as roce_analysis_file reads it (the
 * same return value and msg), its frames handed to their parts. Once every
 * file was read, roce_walk_end: the parts get the end. */
int roce_walk_file(struct roce_walk *w, const char *path, char *msg, size_t msglen);
void roce_walk_end(struct roce_walk *w);
/* What was read (frames numbered, files opened, link type, the first
 * problem, overlaps); final for a part once roce_walk_take gave it 0. */
const struct roce_analysis *roce_walk_analysis(const struct roce_walk *w);
/* The input's latest time once read (0 when it had no frame). */
int roce_walk_input_time(const struct roce_walk *w, int64_t *now_ns);
/* Nonzero when the reader ran out of memory (a copy of a frame): frames
 * were lost, the parts' results are not the input's. */
int roce_walk_failed(const struct roce_walk *w);

/* A part's thread (part != self): its next frames, in order, in *frames
 * (how many is returned; valid until the next call, which is done with
 * them), 0 once the reader ended. Sleeps while there is none. Not for a
 * walk made alone (it hands nothing on). */
size_t roce_walk_take(struct roce_walk *w, unsigned part, const struct roce_walk_frame **frames);

/* How often the reader waited for the part (its ring full, or a file to be
 * done with) and the part for the reader (its ring empty); 0 and 0 for a
 * walk made alone. */
void roce_walk_waits(const struct roce_walk *w, unsigned part, uint64_t *reader, uint64_t *taker);

#endif
