/*
 * analysis.h - capture files through one engine: frames numbered on from
 * file to file, what was read (link type, files opened, the first read
 * error). Used by the plain run (all files, one engine), by -j (one
 * engine per file, parallel.c) and by the reader of -T (threads.c).
 */
#ifndef ROCE_ANALYSIS_H
#define ROCE_ANALYSIS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "roce_engine.h"

/* What a reader that hands the frames on is told (roce_analysis.walker). */
struct roce_analysis_walker {
    void (*frame)(void *ctx, const struct roce_frame_in *in);
    void (*closing)(void *ctx);
};

#define ROCE_ANALYSIS_ERR_LEN 512

struct roce_analysis {
    struct roce_engine *engine;        /* the caller's */
    uint64_t frame;                    /* the last frame number given out */
    const char *link_type;             /* link-layer type name of the first file opened (static) */
    char error[ROCE_ANALYSIS_ERR_LEN]; /* the first read error, "PATH: WHY" */
    int have_error;
    int opened; /* files opened */
    /* a file began before the latest time of the files read before it */
    int files_overlap;
    int64_t latest_ns; /* latest frame time so far (when have_latest) */
    int have_latest;
    /* when set, called after every frame with the engine's output (the
     * HTML report's series, roce_html_series_frame) */
    void (*on_frame)(void *ctx, struct roce_engine *e, const struct roce_frame_in *in,
                     const struct roce_frame_out *out);
    void *frame_ctx;
    /* The reader of a split analysis (threads.c; NULL: none): every frame
     * goes to walker->frame instead of the engine (its bytes valid only
     * during the call); walker->closing is called before each capture is
     * closed. Reading stops early when *stop is set. */
    const struct roce_analysis_walker *walker;
    void *walker_ctx;
    atomic_int *stop;
    /* When set, only the frames it keeps (nonzero) are analysed, numbered
     * on among themselves (in->frame: the number a kept frame gets); the
     * others are not counted (`rocescope localize --annotate --split-by`:
     * one vantage point's frames of a file). Called for every frame, in
     * order. */
    int (*keep)(void *ctx, const struct roce_frame_in *in);
    void *keep_ctx;
};

/* Read one capture file into a->engine. Returns 0, or -1 on a problem (file
 * missing, not a capture, unsupported link type, read error): then msg
 * holds the reason (without the path). Reentrant: separate analyses may
 * run in separate threads. */
int roce_analysis_file(struct roce_analysis *a, const char *path, char *msg, size_t msglen);

#endif
