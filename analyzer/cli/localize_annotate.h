/*
 * localize_annotate.h - `rocescope localize --annotate DIR`: one annotated
 * pcapng per vantage point, DIR/NAME.pcapng, written by the --annotate
 * writer (writer_annotate.c): the point's capture frame for frame with the
 * comments `rocescope --annotate` gives that capture alone, and localize's
 * own conclusions ("rocescope: localize: ...") on the frames its losses and
 * CE marks cite.
 */
#ifndef ROCE_LOCALIZE_ANNOTATE_H
#define ROCE_LOCALIZE_ANNOTATE_H

#include "localize_report.h"
#include "options.h"
#include "output.h"
#include "roce_engine.h"

/* The annotated files of a run, one per point (a point is a file: no
 * --split-by). */
struct lz_annotate {
    const char *dir;
    unsigned n;
    char *path[ROCE_VANTAGE_MAX_POINTS];        /* DIR/NAME.pcapng (owned) */
    const char *input[ROCE_VANTAGE_MAX_POINTS]; /* the capture (borrowed) */
    struct roce_output out[ROCE_VANTAGE_MAX_POINTS];
};

/* Open DIR/NAME.pcapng for each of the n points (names[i] read from
 * inputs[i]) under the output rules (output.h), before any reading. 0, or
 * -1 with the message printed and nothing left behind. */
int roce_lz_annotate_open(struct lz_annotate *la, const char *dir, unsigned n,
                          const char *const *names, const char *const *inputs);

/* Write every point's file: its own analysis (cfg: localize's engine
 * configuration; outs: the command line, for the section header) and the
 * notes of rep on its frames, then put it in place. 0, or -1 when a file
 * could not be written (message printed; the others are still written). */
int roce_lz_annotate_write(struct lz_annotate *la, const struct roce_config *cfg,
                           const struct roce_outputs *outs, const struct roce_localize_report *rep);

/* Discard the files not written and free the paths. */
void roce_lz_annotate_free(struct lz_annotate *la);

#endif
