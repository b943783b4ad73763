/*
 * live_queue.c - single-producer single-consumer ring of records (see
 * live_queue.h).
 *
 * Positions count bytes from the start and only grow; a position modulo
 * the size is a place in the ring. Each record starts with its length and
 * takes a multiple of 8 bytes; a record that would cross the end of the ring is
 * preceded by a skip record filling the rest, and starts at the beginning.
 * The producer publishes its committed position, the consumer its read
 * position (sequentially consistent atomics); the consumer says when it is
 * about to sleep, and the producer wakes it after a commit.
 */
#define _GNU_SOURCE
#include "live_queue.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HDR       sizeof(uint64_t) /* a record's length */
#define SKIP_FLAG (1ull << 63)     /* the rest of the ring is skipped */
#define MIN_BYTES 4096u
#define NS_PER_MS 1000000L
#define NS_PER_S  1000000000L

struct roce_lq {
    uint8_t *ring;
    size_t size; /* a power of two */
    uint64_t reserved; /* the producer's, not yet committed */
    _Atomic uint64_t committed;
    _Atomic uint64_t read;
    uint64_t cur_len; /* the consumer's current record, whole (header and padding) */
    _Atomic int sleeping;
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

struct roce_lq *roce_lq_new(size_t bytes)
{
    struct roce_lq *q = calloc(1, sizeof *q);
    size_t size = MIN_BYTES;
    while (size < bytes)
        size *= 2;
    if (q == NULL || (q->ring = malloc(size)) == NULL) {
        free(q);
        return NULL;
    }
    q->size = size;
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->cv, NULL);
    return q;
}

void roce_lq_free(struct roce_lq *q)
{
    if (q == NULL)
        return;
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->cv);
    free(q->ring);
    free(q);
}

static void put_len(struct roce_lq *q, uint64_t pos, uint64_t v)
{
    memcpy(q->ring + (pos & (q->size - 1)), &v, sizeof v);
}

void *roce_lq_reserve(struct roce_lq *q, size_t len)
{
    uint64_t need = (HDR + len + 7) & ~(uint64_t)7;
    uint64_t read = atomic_load(&q->read);
    uint64_t at = q->reserved & (q->size - 1), tail_room = q->size - at;
    uint64_t skip = need > tail_room ? tail_room : 0;
    if (need > q->size / 2 || q->reserved + skip + need - read > q->size)
        return NULL;
    if (skip) {
        put_len(q, q->reserved, skip | SKIP_FLAG);
        q->reserved += skip;
    }
    put_len(q, q->reserved, len);
    void *p = q->ring + (q->reserved & (q->size - 1)) + HDR;
    q->reserved += need;
    return p;
}

void roce_lq_commit(struct roce_lq *q)
{
    if (atomic_load(&q->committed) == q->reserved)
        return;
    atomic_store(&q->committed, q->reserved);
    if (atomic_load(&q->sleeping)) {
        pthread_mutex_lock(&q->mu);
        pthread_cond_signal(&q->cv);
        pthread_mutex_unlock(&q->mu);
    }
}

/* Wait until the producer committed past read, at most wait_ms. */
static int wait_for(struct roce_lq *q, uint64_t read, int wait_ms)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += (long)wait_ms * NS_PER_MS;
    until.tv_sec += until.tv_nsec / NS_PER_S;
    until.tv_nsec %= NS_PER_S;
    pthread_mutex_lock(&q->mu);
    atomic_store(&q->sleeping, 1);
    int rc = 0;
    while (atomic_load(&q->committed) == read && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&q->cv, &q->mu, &until);
    atomic_store(&q->sleeping, 0);
    pthread_mutex_unlock(&q->mu);
    return atomic_load(&q->committed) != read;
}

const void *roce_lq_next(struct roce_lq *q, int wait_ms, size_t *len)
{
    uint64_t read = atomic_load(&q->read);
    for (;;) {
        if (atomic_load(&q->committed) == read && (wait_ms <= 0 || !wait_for(q, read, wait_ms)))
            return NULL;
        uint64_t v;
        memcpy(&v, q->ring + (read & (q->size - 1)), sizeof v);
        if (v & SKIP_FLAG) {
            read += v & ~SKIP_FLAG;
            atomic_store(&q->read, read);
            continue;
        }
        q->cur_len = (HDR + v + 7) & ~(uint64_t)7;
        *len = v;
        return q->ring + (read & (q->size - 1)) + HDR;
    }
}

void roce_lq_pop(struct roce_lq *q)
{
    atomic_store(&q->read, atomic_load(&q->read) + q->cur_len);
}
