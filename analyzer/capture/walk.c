/*
 * walk.c - one walk of each frame for a split analysis (see walk.h).
 *
 * A part's ring holds `batches` batches of up to `frames` frames each. The
 * reader fills the batch at the ring's head in place and hands it on by
 * moving the head; the part analyses the batch at the tail and moves the
 * tail when done with it, so that a slot is written again only once its
 * part is done with its frames. Each side sleeps only when it must (the
 * ring full, or empty), having said so in a flag the other side looks at
 * after moving its end (both sequentially consistent: one of them sees the
 * other's move, so no wake-up is lost); the reader, once woken, finds half
 * the ring free, so that a full ring costs one sleep a half ring, not one a
 * batch.
 *
 * A frame's bytes are copied into its batch (the input is read into a
 * buffer that the next record may move: capture_src.c). The reader hands on
 * every open batch each FLUSH_FRAMES frames it reads, so that a part with
 * few frames does not fall far behind the others in the input: the parts'
 * frames are compared while they run (threads.c, look_open).
 */
#include "walk.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define BATCHES      64u           /* a ring's batches, by default */
#define FRAMES       64u           /* a batch's frames, by default */
#define COPY_BYTES   (64u * 1024u) /* copied bytes a batch holds (more for one frame) */
#define FLUSH_FRAMES 4096u         /* open batches handed on this often */
#define LINE         64            /* bytes of a cache line */

struct batch {
    struct roce_walk_frame *f;
    unsigned n;
    uint8_t *copy; /* the bytes of its frames */
    size_t copy_len, copy_cap;
};

struct ring {
    struct batch *slot;
    char pad0[LINE];
    atomic_uint_fast64_t head; /* batches handed on */
    char pad1[LINE];
    atomic_uint_fast64_t tail; /* batches the part is done with */
    char pad2[LINE];
    atomic_uint_fast64_t want;      /* the tail the sleeping reader waits for */
    atomic_uint_fast64_t part_want; /* the head the sleeping part waits for */
    atomic_int reader_sleeps, part_sleeps, done;
    atomic_int kick;    /* the reader waits: the part is to take what there is */
    struct batch *open; /* the reader's: the batch at the head, taking frames (NULL: none) */
    int holding;        /* the part's: it has the batch at the tail */
    pthread_mutex_t m;
    pthread_cond_t to_reader, to_part;
    uint64_t reader_waits, part_waits;
};

struct roce_walk {
    struct roce_walk_cfg wc;
    struct roce_split_walk split;
    struct roce_analysis a;
    struct ring *rings; /* by part (self's unused; NULL when alone) */
    unsigned to_flush;  /* frames read before the next hand_on_all */
    int failed;
};

static const struct roce_analysis_walker walker; /* below */

/* ---- the ring ---- */

static int ring_init(struct ring *q, unsigned batches, unsigned frames)
{
    atomic_init(&q->head, 0);
    atomic_init(&q->tail, 0);
    atomic_init(&q->want, 0);
    atomic_init(&q->part_want, 0);
    atomic_init(&q->kick, 0);
    atomic_init(&q->reader_sleeps, 0);
    atomic_init(&q->part_sleeps, 0);
    atomic_init(&q->done, 0);
    if ((q->slot = calloc(batches, sizeof *q->slot)) == NULL)
        return -1;
    /* before the batches: ring_free destroys them once slot is set */
    pthread_mutex_init(&q->m, NULL);
    pthread_cond_init(&q->to_reader, NULL);
    pthread_cond_init(&q->to_part, NULL);
    for (unsigned i = 0; i < batches; i++)
        if ((q->slot[i].f = malloc(frames * sizeof *q->slot[i].f)) == NULL)
            return -1;
    return 0;
}

static void ring_free(struct ring *q, unsigned batches)
{
    if (q->slot == NULL)
        return;
    for (unsigned i = 0; i < batches; i++) {
        free(q->slot[i].f);
        free(q->slot[i].copy);
    }
    free(q->slot);
    pthread_mutex_destroy(&q->m);
    pthread_cond_destroy(&q->to_reader);
    pthread_cond_destroy(&q->to_part);
}

static void wake(struct ring *q, pthread_cond_t *cv)
{
    pthread_mutex_lock(&q->m);
    pthread_cond_broadcast(cv);
    pthread_mutex_unlock(&q->m);
}

/* The reader: wait until the part is done with the batches before want
 * (handed on: want is at most the head). */
static void reader_wait(struct ring *q, uint64_t want)
{
    if (atomic_load(&q->tail) >= want)
        return;
    q->reader_waits++;
    atomic_store(&q->kick, 1);
    if (atomic_load(&q->part_sleeps))
        wake(q, &q->to_part);
    pthread_mutex_lock(&q->m);
    atomic_store(&q->want, want);
    atomic_store(&q->reader_sleeps, 1);
    while (atomic_load(&q->tail) < want)
        pthread_cond_wait(&q->to_reader, &q->m);
    atomic_store(&q->reader_sleeps, 0);
    pthread_mutex_unlock(&q->m);
}

/* The part: the head once past tail (asleep: once `wake` batches are
 * there, or the reader waits for the part), or tail once the reader ended
 * with nothing more. */
static uint64_t part_wait(struct ring *q, uint64_t tail, unsigned wake)
{
    uint64_t h = atomic_load(&q->head);
    if (h != tail)
        return h;
    q->part_waits++;
    pthread_mutex_lock(&q->m);
    atomic_store(&q->part_want, tail + wake);
    atomic_store(&q->part_sleeps, 1);
    for (;;) {
        if ((h = atomic_load(&q->head)) >= tail + wake || (h != tail && atomic_load(&q->kick)))
            break;
        if (atomic_load(&q->done)) { /* the end came after the last batch */
            h = atomic_load(&q->head);
            break;
        }
        pthread_cond_wait(&q->to_part, &q->m);
    }
    atomic_store(&q->part_sleeps, 0);
    atomic_store(&q->kick, 0);
    pthread_mutex_unlock(&q->m);
    return h;
}

/* ---- the reader ---- */

/* The batch at the head of part k's ring, open for frames (waiting for a
 * slot: half the ring free). */
static struct batch *open_batch(struct roce_walk *w, struct ring *q)
{
    uint64_t h = atomic_load_explicit(&q->head, memory_order_relaxed);
    unsigned n = w->wc.batches;
    if (h - atomic_load_explicit(&q->tail, memory_order_acquire) >= n)
        reader_wait(q, h - n / 2);
    return &q->slot[h % n];
}

/* Hand on the batch at the head of q (when it has frames). */
static void hand_on(struct ring *q)
{
    uint64_t h = atomic_load_explicit(&q->head, memory_order_relaxed);
    if (q->open == NULL || q->open->n == 0)
        return;
    q->open = NULL;
    atomic_store(&q->head, h + 1);
    if (atomic_load(&q->part_sleeps) && h + 1 >= atomic_load(&q->part_want))
        wake(q, &q->to_part);
}

/* Every part's open batch handed on. */
static void hand_on_all(struct roce_walk *w)
{
    for (unsigned k = 0; k < w->wc.parts; k++)
        if (k != w->wc.self)
            hand_on(&w->rings[k]);
}

/* The next batch's slot at the head, emptied. */
static struct batch *next_batch(struct roce_walk *w, struct ring *q)
{
    struct batch *b = open_batch(w, q);
    q->open = b;
    b->n = 0;
    b->copy_len = 0;
    return b;
}

/* Room for len copied bytes in the open batch b of q (handing b on when it
 * has frames and not the room): the batch to add to, or NULL when out of
 * memory. */
static struct batch *copy_room(struct roce_walk *w, struct ring *q, struct batch *b, size_t len)
{
    if (b->copy_cap - b->copy_len >= len)
        return b;
    if (b->n > 0) {
        hand_on(q);
        b = next_batch(w, q);
    }
    if (b->copy_cap < len) {
        size_t cap = len > COPY_BYTES ? len : COPY_BYTES;
        uint8_t *c = realloc(b->copy, cap);
        if (c == NULL)
            return NULL;
        b->copy = c;
        b->copy_cap = cap;
    }
    return b;
}

/* roce_analysis walker: one frame of the input. */
static void walk_frame(void *ctx, const struct roce_frame_in *in)
{
    struct roce_walk *w = ctx;
    int64_t now;
    unsigned k = roce_split_walk_frame(&w->split, in, &now);
    if (w->wc.alone) {
        if (k == w->wc.self)
            w->wc.own(w->wc.ctx, in, now);
        else if (w->wc.passed != NULL && (in->frame & (ROCE_WALK_PASSED - 1)) == 0)
            w->wc.passed(w->wc.ctx);
        return;
    }
    if (--w->to_flush == 0) {
        hand_on_all(w);
        w->to_flush = FLUSH_FRAMES;
    }
    if (k == w->wc.self) {
        w->wc.own(w->wc.ctx, in, now);
        return;
    }
    struct ring *q = &w->rings[k];
    struct batch *b = q->open != NULL ? q->open : next_batch(w, q);
    if ((b = copy_room(w, q, b, in->caplen)) == NULL) {
        w->failed = 1;
        atomic_store(w->wc.stop, 1);
        return;
    }
    struct roce_walk_frame *f = &b->f[b->n];
    f->in = *in;
    f->now_ns = now;
    if (in->caplen)
        memcpy(b->copy + b->copy_len, in->data, in->caplen);
    f->in.data = b->copy + b->copy_len;
    b->copy_len += in->caplen;
    if (++b->n == w->wc.frames)
        hand_on(q);
}

/* roce_analysis walker: the file ends; its frames go on to the parts. */
static void walk_closing(void *ctx)
{
    struct roce_walk *w = ctx;
    if (!w->wc.alone)
        hand_on_all(w);
}

static const struct roce_analysis_walker walker = {walk_frame, walk_closing};

struct roce_walk *roce_walk_new(const struct roce_walk_cfg *wc)
{
    struct roce_walk *w = calloc(1, sizeof *w);
    if (w == NULL)
        return NULL;
    w->wc = *wc;
    w->to_flush = FLUSH_FRAMES;
    if (w->wc.batches == 0)
        w->wc.batches = BATCHES;
    if (w->wc.frames == 0)
        w->wc.frames = FRAMES;
    roce_split_walk_init(&w->split, wc->cfg, wc->parts);
    w->a.walker = &walker;
    w->a.walker_ctx = w;
    w->a.stop = wc->stop;
    if (wc->alone)
        return w; /* no frame is handed on: no ring */
    if ((w->rings = calloc(wc->parts, sizeof *w->rings)) == NULL) {
        free(w);
        return NULL;
    }
    for (unsigned k = 0; k < wc->parts; k++)
        if (k != wc->self && ring_init(&w->rings[k], w->wc.batches, w->wc.frames) != 0) {
            roce_walk_free(w);
            return NULL;
        }
    return w;
}

void roce_walk_free(struct roce_walk *w)
{
    if (w == NULL)
        return;
    for (unsigned k = 0; k < w->wc.parts && w->rings != NULL; k++)
        ring_free(&w->rings[k], w->wc.batches);
    free(w->rings);
    free(w);
}

int roce_walk_file(struct roce_walk *w, const char *path, char *msg, size_t msglen)
{
    return roce_analysis_file(&w->a, path, msg, msglen);
}

/* Every file's frames were handed on before it was closed: the end. */
void roce_walk_end(struct roce_walk *w)
{
    for (unsigned k = 0; k < w->wc.parts && !w->wc.alone; k++)
        if (k != w->wc.self) {
            atomic_store(&w->rings[k].done, 1);
            wake(&w->rings[k], &w->rings[k].to_part);
        }
}

const struct roce_analysis *roce_walk_analysis(const struct roce_walk *w)
{
    return &w->a;
}

int roce_walk_input_time(const struct roce_walk *w, int64_t *now_ns)
{
    *now_ns = w->split.now_ns;
    return w->split.have_now;
}

int roce_walk_failed(const struct roce_walk *w)
{
    return w->failed;
}

size_t roce_walk_take(struct roce_walk *w, unsigned part, const struct roce_walk_frame **frames)
{
    struct ring *q = &w->rings[part];
    uint64_t t = atomic_load_explicit(&q->tail, memory_order_relaxed);
    if (q->holding) { /* done with it */
        q->holding = 0;
        atomic_store(&q->tail, ++t);
        if (atomic_load(&q->reader_sleeps) && t >= atomic_load(&q->want))
            wake(q, &q->to_reader);
    }
    if (part_wait(q, t, w->wc.batches / 2 ? w->wc.batches / 2 : 1) == t)
        return 0;
    const struct batch *b = &q->slot[t % w->wc.batches];
    q->holding = 1;
    *frames = b->f;
    return b->n;
}

void roce_walk_waits(const struct roce_walk *w, unsigned part, uint64_t *reader, uint64_t *taker)
{
    *reader = w->rings != NULL ? w->rings[part].reader_waits : 0; /* alone: no ring */
    *taker = w->rings != NULL ? w->rings[part].part_waits : 0;
}
