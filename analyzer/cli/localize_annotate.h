/*
 * localize_annotate.h - `rocescope localize --annotate DIR`: one annotated
 * pcapng per vantage point, DIR/NAME.pcapng, written by the --annotate
 * writer (writer_annotate.c): the point's capture frame for frame with the
 * comments `rocescope --annotate` gives that capture alone, and localize's
 * own conclusions ("rocescope: localize: ...") on the frames its losses and
 * CE marks cite. With --split-by a point is the frames of one ERSPAN
 * session or outer source of a file (NAME/KEY): its file DIR/NAME/KEY.pcapng
 * holds those frames, as a capture of them alone.
 */
#ifndef ROCE_LOCALIZE_ANNOTATE_H
#define ROCE_LOCALIZE_ANNOTATE_H

#include "localize_report.h"
#include "options.h"
#include "output.h"
#include "roce_engine.h"

/* The annotated files of a run, one per point: a file, or with
 * --split-by a part of one (its frames of one split key). */
struct lz_annotate {
    const char *dir;
    unsigned n;
    char *path[ROCE_VANTAGE_MAX_POINTS];        /* DIR/NAME.pcapng (owned) */
    const char *input[ROCE_VANTAGE_MAX_POINTS]; /* the capture (borrowed) */
    struct roce_output out[ROCE_VANTAGE_MAX_POINTS];
    enum roce_vantage_split split;                      /* --split-by (NONE: a point is a file) */
    struct roce_split_key key[ROCE_VANTAGE_MAX_POINTS]; /* with a split: each point's */
    char *made[ROCE_VANTAGE_MAX_POINTS]; /* folders DIR/NAME made for split points (owned):
                                            removed again when left empty */
    unsigned n_made;
};

/* 0 when dir is a folder (checked before any reading), else -1 with the
 * message printed. */
int roce_lz_annotate_dir(const char *dir);

/* Open DIR/NAME.pcapng for each of the n points (names[i] read from
 * inputs[i]; with a split, keys[i] its key, and a name NAME/KEY of a split
 * point gives DIR/NAME/KEY.pcapng, the folder DIR/NAME made when missing)
 * under the output rules (output.h). 0, or -1 with the message printed and
 * nothing left behind. */
int roce_lz_annotate_open(struct lz_annotate *la, const char *dir, unsigned n,
                          const char *const *names, const char *const *inputs,
                          enum roce_vantage_split split, const struct roce_split_key *keys);

/* Write every point's file: its own analysis (cfg: localize's engine
 * configuration; outs: the command line, for the section header) and the
 * notes of rep on its frames, then put it in place; a split point's file
 * holds its frames only, numbered from 1 as a capture of them alone would
 * be. 0, or -1 when a file could not be written (message printed; the
 * others are still written). */
int roce_lz_annotate_write(struct lz_annotate *la, const struct roce_config *cfg,
                           const struct roce_outputs *outs, const struct roce_localize_report *rep);

/* Discard the files not written and free the paths. */
void roce_lz_annotate_free(struct lz_annotate *la);

#endif
