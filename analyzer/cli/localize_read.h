/*
 * localize_read.h - one capture file of `rocescope localize` read as one
 * vantage point, or as several (--split-by: one per ERSPAN session or per
 * outer source address, the rest of the file as one more), each through an
 * engine of its own. The first reading fills each point's sample; the
 * second hands each point's transmission records to the matcher through a
 * bounded queue (the reader runs in a thread of its own).
 */
#ifndef ROCE_LOCALIZE_READ_H
#define ROCE_LOCALIZE_READ_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "roce_engine.h"
#include "roce_vantage.h"

#define LZ_BATCH 1024 /* records a reader hands over at once */
#define LZ_SLOTS 4    /* batches queued per reader */

/* One vantage point of a file. */
struct lz_sub {
    struct roce_split_key key;   /* has == 0: the frames the split did not claim */
    struct roce_engine *engine;  /* during a reading */
    struct roce_vsample *sample; /* filled by the first reading */
    struct roce_vpauses *pauses; /* its PFC pauses, filled by the first reading */
    uint64_t packets, roce_packets, transmissions;
    int64_t first_ts_ns, last_ts_ns;
    int point; /* its index in the analysis, -1 when it is not a point (no RoCE) */
};

struct lz_rec {
    unsigned point;
    struct roce_vtx tx;
};

struct lz_batch {
    size_t n;
    int end; /* the file is finished after these */
    struct lz_rec r[LZ_BATCH];
};

/* Batches from a reader thread to the matcher, in file order. */
struct lz_queue {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct lz_batch *slot[LZ_SLOTS];
    unsigned head, n;
    int abort; /* the matcher stopped: readers give up */
};

struct lz_input {
    const char *path, *name;
    enum roce_vantage_split split;
    const struct roce_config *cfg;
    uint32_t sample_keys, max_flows;
    struct lz_sub sub[ROCE_VANTAGE_MAX_POINTS];
    unsigned n_sub;
    uint64_t unsplit; /* frames of further split keys (beyond the point limit): not read */
    int failed;       /* could not be opened, or not a capture we read: msg */
    int read_error;   /* cut short: msg (what was read counts) */
    int oom;
    char msg[ROCE_ANALYSIS_ERR_LEN];
    struct lz_queue q;
};

/* The split key of frame fi (decoded with dc, the ICRC unchecked): which
 * point of its file it belongs to (all zero without a split, and for the
 * frames the split does not claim). */
void roce_localize_split_key(enum roce_vantage_split split, const struct roce_decode_cfg *dc,
                             const struct roce_frame_in *fi, struct roce_split_key *k);

/* The first reading (a thread body: arg is a struct lz_input). Engines are
 * freed at its end; the samples stay for roce_vantage_estimate. */
void *roce_localize_read_first(void *arg);
/* The second reading into in->q (a thread body). */
void *roce_localize_read_second(void *arg);

/* Queue set-up and tear-down (batches allocated here); 0 or -1. */
int roce_localize_queue_init(struct lz_queue *q);
void roce_localize_queue_free(struct lz_queue *q);
/* The matcher: the next batch (blocks), then roce_localize_queue_release when done with it. */
struct lz_batch *roce_localize_queue_next(struct lz_queue *q);
void roce_localize_queue_release(struct lz_queue *q);
/* The matcher stops early: readers blocked on a full queue return. */
void roce_localize_queue_abort(struct lz_queue *q);

/* Free what the input holds (engines, samples). */
void roce_localize_input_free(struct lz_input *in);

#endif
