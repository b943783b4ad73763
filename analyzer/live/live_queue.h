/*
 * live_queue.h - the bounded queue between the live monitor's capture
 * thread and its analysis thread: one producer, one consumer, records of
 * any length in a ring of bytes. The producer never waits: a record that
 * does not fit is refused (the monitor counts the frame as dropped by the
 * analysis); the consumer sleeps while the queue is empty.
 */
#ifndef ROCE_LIVE_QUEUE_H
#define ROCE_LIVE_QUEUE_H

#include <stddef.h>
#include <stdint.h>

struct roce_lq;

/* A queue of at least bytes bytes (rounded up to a power of two). NULL when
 * out of memory. */
struct roce_lq *roce_lq_new(size_t bytes);
void roce_lq_free(struct roce_lq *q);

/* Producer: room for a record of len bytes (aligned to 8 inside), or NULL
 * when the queue is full. Records reserved are seen by the consumer after
 * roce_lq_commit, in order. */
void *roce_lq_reserve(struct roce_lq *q, size_t len);
void roce_lq_commit(struct roce_lq *q);

/* Consumer: the next record (its length in *len), waiting for one at most
 * wait_ms milliseconds (NULL then); roce_lq_pop releases it. */
const void *roce_lq_next(struct roce_lq *q, int wait_ms, size_t *len);
void roce_lq_pop(struct roce_lq *q);

#endif
