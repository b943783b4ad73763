/*
 * localize_read.c - a capture file read as vantage points (see
 * localize_read.h). Frames are numbered from 1 per file (as Wireshark
 * does), whichever point they belong to. With --split-by, the frame is
 * first decoded (ICRC unchecked) only to learn its split key; the engine of
 * that point then analyses it as usual.
 */
#define _DEFAULT_SOURCE
#include "localize_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"

void roce_localize_split_key(enum roce_vantage_split split, const struct roce_decode_cfg *dc,
                             const struct roce_frame_in *fi, struct roce_split_key *k)
{
    memset(k, 0, sizeof *k);
    if (split != ROCE_SPLIT_NONE) {
        struct roce_pkt pkt;
        roce_decode(dc, fi->linktype, fi->data, fi->caplen, fi->wirelen, &pkt);
        roce_vantage_split_key(&pkt, split, k);
    }
}

/* The point a frame belongs to; NULL when the file already has as many
 * points as an analysis may have (then the frame is not read). */
static struct lz_sub *sub_of(struct lz_input *in, const struct roce_decode_cfg *dc,
                             const struct roce_frame_in *fi, int first)
{
    struct roce_split_key k;
    roce_localize_split_key(in->split, dc, fi, &k);
    for (unsigned i = 0; i < in->n_sub; i++)
        if (memcmp(&in->sub[i].key, &k, sizeof k) == 0)
            return &in->sub[i];
    if (!first || in->n_sub == ROCE_VANTAGE_MAX_POINTS)
        return NULL;
    struct lz_sub *s = &in->sub[in->n_sub];
    memset(s, 0, sizeof *s);
    s->key = k;
    s->point = -1;
    s->sample = roce_vsample_new(in->sample_keys, in->max_flows);
    s->pauses = roce_vpauses_new(in->cfg->link_speed_mbps);
    if (s->sample == NULL || s->pauses == NULL) {
        roce_vsample_free(s->sample);
        roce_vpauses_free(s->pauses);
        in->oom = 1;
        return NULL;
    }
    in->n_sub++;
    return s;
}

/* Publish the batch being filled; wait for a free slot and return it
 * (empty), or NULL when the matcher gave up. */
static struct lz_batch *push(struct lz_queue *q)
{
    pthread_mutex_lock(&q->mu);
    q->n++;
    pthread_cond_broadcast(&q->cv);
    while (q->n == LZ_SLOTS && !q->abort)
        pthread_cond_wait(&q->cv, &q->mu);
    struct lz_batch *next = q->abort ? NULL : q->slot[(q->head + q->n) % LZ_SLOTS];
    pthread_mutex_unlock(&q->mu);
    if (next != NULL) {
        next->n = 0;
        next->end = 0;
    }
    return next;
}

/* The slot the reader fills first. */
static struct lz_batch *first_batch(struct lz_queue *q)
{
    pthread_mutex_lock(&q->mu);
    struct lz_batch *b = q->abort ? NULL : q->slot[(q->head + q->n) % LZ_SLOTS];
    pthread_mutex_unlock(&q->mu);
    if (b != NULL) {
        b->n = 0;
        b->end = 0;
    }
    return b;
}

/* The point's engine (made at its first frame); NULL when out of memory. */
static struct roce_engine *engine_of(struct lz_input *in, struct lz_sub *s)
{
    if (s->engine == NULL && (s->engine = roce_engine_new(in->cfg)) == NULL)
        in->oom = 1;
    return s->engine;
}

/* After the first reading: what each point's engine counted. */
static void keep_counts(struct lz_input *in)
{
    for (unsigned i = 0; i < in->n_sub; i++) {
        struct lz_sub *s = &in->sub[i];
        if (s->engine == NULL)
            continue;
        const struct roce_totals *t = roce_engine_totals(s->engine);
        s->packets = t->packets;
        s->roce_packets = t->roce_packets;
        s->first_ts_ns = t->first_ts_ns;
        s->last_ts_ns = t->last_ts_ns;
        s->transmissions = roce_vsample_count(s->sample);
    }
}

/* One reading of the file. second: hand the records to in->q. */
static void read_file(struct lz_input *in, int second)
{
    struct roce_decode_cfg dc = {in->cfg->udp_port, in->cfg->vxlan_port, 0};
    struct roce_capture *c = NULL;
    struct roce_capture_frame fr;
    struct roce_frame_out out;
    struct roce_vtx tx;
    struct lz_batch *b = second ? first_batch(&in->q) : NULL;
    enum roce_capture_status st = ROCE_CAPTURE_END;
    uint64_t frame = 0;

    if (second && b == NULL)
        goto done;
    if ((c = roce_capture_open(in->path, in->msg, sizeof in->msg)) == NULL) {
        in->failed = 1;
        goto done;
    }
    if (roce_capture_linktype_check(roce_capture_linktype(c), roce_capture_linktype_name(c),
                                    in->msg, sizeof in->msg) != 0) {
        in->failed = 1;
        goto done;
    }
    while ((st = roce_capture_next(c, &fr)) == ROCE_CAPTURE_FRAME) {
        struct roce_frame_in fi;
        roce_capture_frame_in(&fr, ++frame, &fi);
        struct lz_sub *s = sub_of(in, &dc, &fi, !second);
        if (s == NULL) {
            in->unsplit += !second;
            if (in->oom)
                break;
            continue;
        }
        if (engine_of(in, s) == NULL)
            break;
        roce_engine_frame(s->engine, &fi, &out);
        if (!second)
            roce_vpauses_frame(s->pauses, &out.pkt, roce_frame_src_mac(&fi, &out.pkt), frame,
                               fi.ts_ns);
        if (!roce_vtx_from_frame(&out, &tx))
            continue;
        if (!second) {
            roce_vsample_add(s->sample, &tx);
        } else if (s->point >= 0) {
            b->r[b->n].point = (unsigned)s->point;
            b->r[b->n].tx = tx;
            if (++b->n == LZ_BATCH && (b = push(&in->q)) == NULL)
                break; /* the matcher gave up */
        }
    }
    if (st == ROCE_CAPTURE_ERROR) {
        snprintf(in->msg, sizeof in->msg, "%s", roce_capture_error(c));
        in->read_error = 1;
    }
done:
    if (b != NULL) { /* the last batch ends the file */
        b->end = 1;
        pthread_mutex_lock(&in->q.mu);
        in->q.n++;
        pthread_cond_broadcast(&in->q.cv);
        pthread_mutex_unlock(&in->q.mu);
    }
    if (!second)
        keep_counts(in);
    for (unsigned i = 0; i < in->n_sub; i++) {
        roce_engine_free(in->sub[i].engine);
        in->sub[i].engine = NULL;
    }
    roce_capture_close(c);
}

void *roce_localize_read_first(void *arg)
{
    read_file(arg, 0);
    return NULL;
}

void *roce_localize_read_second(void *arg)
{
    read_file(arg, 1);
    return NULL;
}

int roce_localize_queue_init(struct lz_queue *q)
{
    memset(q, 0, sizeof *q);
    if (pthread_mutex_init(&q->mu, NULL) != 0)
        return -1;
    if (pthread_cond_init(&q->cv, NULL) != 0) {
        pthread_mutex_destroy(&q->mu);
        return -1;
    }
    for (unsigned i = 0; i < LZ_SLOTS; i++)
        if ((q->slot[i] = calloc(1, sizeof *q->slot[i])) == NULL) {
            roce_localize_queue_free(q);
            return -1;
        }
    return 0;
}

void roce_localize_queue_free(struct lz_queue *q)
{
    for (unsigned i = 0; i < LZ_SLOTS; i++) {
        free(q->slot[i]);
        q->slot[i] = NULL;
    }
    pthread_cond_destroy(&q->cv);
    pthread_mutex_destroy(&q->mu);
}

struct lz_batch *roce_localize_queue_next(struct lz_queue *q)
{
    pthread_mutex_lock(&q->mu);
    while (q->n == 0 && !q->abort)
        pthread_cond_wait(&q->cv, &q->mu);
    struct lz_batch *b = q->n > 0 ? q->slot[q->head] : NULL;
    pthread_mutex_unlock(&q->mu);
    return b;
}

void roce_localize_queue_release(struct lz_queue *q)
{
    pthread_mutex_lock(&q->mu);
    q->head = (q->head + 1) % LZ_SLOTS;
    q->n--;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
}

void roce_localize_queue_abort(struct lz_queue *q)
{
    pthread_mutex_lock(&q->mu);
    q->abort = 1;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
}

void roce_localize_input_free(struct lz_input *in)
{
    for (unsigned i = 0; i < in->n_sub; i++) {
        roce_engine_free(in->sub[i].engine);
        roce_vsample_free(in->sub[i].sample);
        roce_vpauses_free(in->sub[i].pauses);
        in->sub[i].engine = NULL;
        in->sub[i].sample = NULL;
        in->sub[i].pauses = NULL;
    }
}
