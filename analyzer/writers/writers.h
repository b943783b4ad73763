/*
 * writers.h - the output writers: one table (writers.c), a row per writer
 * {the option that chooses it, its name, what it needs, how it writes}, and
 * the run of the writers chosen (struct roce_outputs, common/options.h),
 * which every front end drives the same way: the analysis with one engine,
 * -T and -j (cli/), `rocescope merge` and `rocescope localize` (the
 * documents only), the live monitor (live/). Like Wireshark's taps: a
 * writer is declared once and every front end can run it; the command
 * line's options for it come from its row too (cli/options_output.c).
 *
 * What a writer needs decides how a front end runs it:
 *   ROCE_WRITER_REPORT    its document is written at the end from the report
 *                         (and from localize's result when it has `localize`);
 *   ROCE_WRITER_VERDICTS  it takes every settled verdict in frame order,
 *                         numbered as one engine numbers them (`verdict`);
 *   ROCE_WRITER_FRAMES    it takes every frame with the engine's output, in
 *                         order (`frame`): -T then analyses with one engine;
 *                         with -j each file gets a state of its own, merged in
 *                         file order (`absorb`); merge has no frames;
 *   ROCE_WRITER_PATH      it writes a file of its own, its option's value,
 *                         beside -o; every other writer writes -o (at most one
 *                         of those is chosen; none: the summary);
 *   ROCE_WRITER_STREAM    it writes as the verdicts settle, not a document at
 *                         the end (the live monitor: instead of the interval
 *                         lines and the final report; --rotate-size rotates
 *                         its -o file);
 *   ROCE_WRITER_JSON      its document is one JSON value (a stream of JSON
 *                         Lines, the live monitor's standard output with it,
 *                         carries it on one line, after the intervals as JSON);
 *   ROCE_WRITER_MERGED    its document can be made from a report alone,
 *                         without frames or verdicts: `rocescope merge` runs it
 *                         on the merged report.
 *   ROCE_WRITER_FILES     it reads the capture files again when it writes its
 *                         document: they must be regular files (not standard
 *                         input, a pipe or a live capture).
 * A writer that takes verdicts without a per-file state gets a -j file's
 * verdicts replayed (`roce_writers_replay`), renumbered.
 */
#ifndef ROCE_WRITERS_H
#define ROCE_WRITERS_H

#include <stdint.h>
#include <stdio.h>

#include "localize_report.h"
#include "options.h"
#include "output.h"
#include "report.h"
#include "roce_engine.h"

enum roce_writer_need {
    ROCE_WRITER_REPORT = 1u << 0,
    ROCE_WRITER_VERDICTS = 1u << 1,
    ROCE_WRITER_FRAMES = 1u << 2,
    ROCE_WRITER_PATH = 1u << 3,
    ROCE_WRITER_STREAM = 1u << 4,
    ROCE_WRITER_JSON = 1u << 5,
    ROCE_WRITER_MERGED = 1u << 6,
    ROCE_WRITER_FILES = 1u << 7
};

/* What the document is made from (the HTML page says so). */
enum roce_writer_source {
    ROCE_WRITE_FILES = 0, /* capture files (rocescope FILE...) */
    ROCE_WRITE_MERGE = 1, /* JSON reports (rocescope merge): no frames */
    ROCE_WRITE_LIVE = 2   /* a live capture's final report */
};

struct roce_writer;

/* A comment a front end adds to a frame (--annotate writes it after the
 * frame's own verdicts and diagnoses; `rocescope localize --annotate`
 * gives its conclusions so). */
struct roce_writer_note {
    uint64_t frame;   /* its number in the run */
    const char *text; /* one line, "rocescope: ..." (borrowed) */
};

/* A chosen writer during a run. */
struct roce_writer_run {
    const struct roce_writer *w;
    const char *path;       /* where it writes: its own path or -o's (NULL: standard output) */
    struct roce_output out; /* that file, once the driver opened it (roce_writers_open) */
    FILE *fp;               /* its stream's output (out.fp, or the driver's rotated file,
                               which may change between calls) */
    int failed;             /* a write of its stream failed */
    void *state;            /* the writer's own (owned; from start to stop) */
    const struct roce_outputs *outputs;   /* the outputs chosen (roce_writers_init's) */
    const struct roce_writer_note *notes; /* by frame, then in order (NULL: none; borrowed) */
    size_t n_notes;
    /* the frames of the capture files its document holds, when not all (a
     * ROCE_WRITER_FILES writer: --annotate): those keep keeps, numbered on
     * among themselves as struct roce_analysis' keep numbers them (NULL:
     * every frame) */
    int (*keep)(void *ctx, const struct roce_frame_in *in);
    void *keep_ctx;
};

/* The document a writer writes at the end. */
struct roce_writer_doc {
    const struct roce_report *rep; /* the report */
    enum roce_writer_source source;
    unsigned top; /* --top */
};

/* How a writer writes; a member is NULL when the writer does not do it. */
struct roce_writer_ops {
    /* its state for a run (or a -j file): 0, or -1 when out of memory */
    int (*start)(struct roce_writer_run *r);
    /* after every frame the engine analysed (ROCE_WRITER_FRAMES) */
    void (*frame)(struct roce_writer_run *r, struct roce_engine *e, const struct roce_frame_in *in,
                  const struct roce_frame_out *out);
    /* every settled verdict, in frame order (ROCE_WRITER_VERDICTS) */
    void (*verdict)(struct roce_writer_run *r, const struct roce_verdict *v);
    /* the engine finished (roce_engine_finish) */
    void (*finish)(struct roce_writer_run *r, struct roce_engine *e);
    /* -j: the state of a file's run (part) into r, after the files before
     * it: its frame numbers and flow ids shifted by frames and ids. 0, or
     * -1 when out of memory (part's contribution is left out) */
    int (*absorb)(struct roce_writer_run *r, struct roce_writer_run *part, uint64_t frames,
                  uint64_t ids);
    /* the document (ROCE_WRITER_REPORT) to out: 0, or -1 on a write error */
    int (*report)(const struct roce_writer_run *r, FILE *out, const struct roce_writer_doc *d);
    /* rocescope localize's result to out: 0, or -1 */
    int (*localize)(FILE *out, const struct roce_localize_report *lz);
    /* free the state */
    void (*stop)(struct roce_writer_run *r);
};

/* A row of the table. */
struct roce_writer {
    const char *option; /* the option that chooses it ("--json"; NULL: the -o output's default) */
    const char *name;   /* what it writes, in messages ("the HTML report") */
    unsigned needs;     /* enum roce_writer_need */
    const struct roce_writer_ops *ops;
};

/* The table (writers.c), in the order the writers run and are listed. */
extern const struct roce_writer roce_writers[];
extern const unsigned roce_writers_count;

/* The writers of a run: the -o output's (main) and those with files of
 * their own, in table order. */
struct roce_writers {
    struct roce_writer_run run[ROCE_WRITERS_MAX];
    unsigned n;
    struct roce_writer_run *main; /* the -o output's */
    unsigned needs;               /* all they need */
};

/* The row whose option is `option` ("--annotate"), NULL when none. */
const struct roce_writer *roce_writers_find(const char *option);

/* The writer of o's -o output: the one chosen, else the table's default. */
const struct roce_writer *roce_writers_main(const struct roce_outputs *o);

/* The writers chosen in o (the default one on -o when none of those is),
 * not started: no state, no output (fp NULL). */
void roce_writers_init(struct roce_writers *ws, const struct roce_outputs *o);

/* Open every writer's file, in order (fp is then out.fp). 0, or -1 with
 * "rocescope: PATH: WHY" printed and the files opened before discarded. */
int roce_writers_open(struct roce_writers *ws);
/* Discard the files still open (nothing is left behind). */
void roce_writers_abort(struct roce_writers *ws);

/* Start every writer's state. 0, or -1 when out of memory (then *failed is
 * the writer that could not start, and none is started). */
int roce_writers_start(struct roce_writers *ws, const struct roce_writer **failed);
/* Free every writer's state. */
void roce_writers_stop(struct roce_writers *ws);

/* Hand a frame's engine output to the writers that take frames (ctx: the
 * struct roce_writers; the signature of struct roce_analysis' on_frame). */
void roce_writers_frame(void *ctx, struct roce_engine *e, const struct roce_frame_in *in,
                        const struct roce_frame_out *out);
/* Hand a settled verdict to the writers that take them (an on_verdict:
 * ctx is the struct roce_writers). */
void roce_writers_verdict(const struct roce_verdict *v, void *ctx);
/* The engine finished: tell the writers. */
void roce_writers_finish(struct roce_writers *ws, struct roce_engine *e);

/* -j: the run of one file: the writers of ws that keep a state per file
 * (absorb), started. 0, or -1 when out of memory. */
int roce_writers_part(const struct roce_writers *ws, struct roce_writers *part);
/* -j: nonzero when a file's verdicts must be kept to be replayed: a writer
 * of ws takes verdicts and keeps no state per file. */
int roce_writers_need_replay(const struct roce_writers *ws);
/* -j: a file's kept verdict, renumbered, to those writers. */
void roce_writers_replay(const struct roce_verdict *v, struct roce_writers *ws);
/* -j: a file's kept verdicts could not be read back: those writers failed. */
void roce_writers_replay_lost(struct roce_writers *ws);
/* -j: merge the states of a file's run into ws (its frames and flow ids
 * after those of the files before it). NULL, or the writer whose state was
 * left out (out of memory). */
const struct roce_writer *roce_writers_absorb(struct roce_writers *ws, struct roce_writers *part,
                                              uint64_t frames, uint64_t ids);

/* Nonzero when a writer's stream failed. */
int roce_writers_failed(const struct roce_writers *ws);

#endif
