/*
 * http_pool.c - the connection slots of `--listen` (see http_pool.h).
 *
 * A connection is closed by shutting its socket down (both ways): the peer
 * sees the end at once, libmicrohttpd on its next turn, and closes the
 * socket itself (it owns it: the pool never closes a descriptor).
 */
#define _DEFAULT_SOURCE
#include "http_pool.h"

#include <netinet/in.h>
#include <string.h>
#include <sys/ioctl.h>

#define V4_LEN 4

/* A connection as a candidate to give its slot away: the lowest goes
 * first; KEEP never. */
enum rank { RANK_STALLED, RANK_SLOW, RANK_UNREAD, RANK_KEEP };

void roce_http_pool_init(struct roce_http_pool *p)
{
    memset(p, 0, sizeof *p);
    for (size_t i = 0; i < ROCE_HTTP_SLOTS; i++)
        p->slot[i].fd = -1;
}

static int is_open(const struct roce_http_slot *s)
{
    return s->state == ROCE_HTTP_WAITING || s->state == ROCE_HTTP_ANSWERING;
}

size_t roce_http_pool_open(const struct roce_http_pool *p)
{
    size_t n = 0;
    for (size_t i = 0; i < ROCE_HTTP_SLOTS; i++)
        n += is_open(&p->slot[i]);
    return n;
}

/* The peer's address into s (family 0 and zeros when it is neither IPv4
 * nor IPv6, or unknown: such peers count as one address). */
static void set_peer(struct roce_http_slot *s, const struct sockaddr *sa)
{
    s->family = 0;
    memset(s->addr, 0, sizeof s->addr);
    if (sa != NULL && sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)sa;
        s->family = AF_INET;
        memcpy(s->addr, &in->sin_addr, V4_LEN);
    } else if (sa != NULL && sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)(const void *)sa;
        s->family = AF_INET6;
        memcpy(s->addr, &in6->sin6_addr, sizeof s->addr);
    }
}

static int same_peer(const struct roce_http_slot *a, const struct roce_http_slot *b)
{
    return a->family == b->family && memcmp(a->addr, b->addr, sizeof a->addr) == 0;
}

/* Nonzero when the connection's socket holds bytes not read yet. */
static int has_unread(int fd)
{
    int n = 0;
    return ioctl(fd, FIONREAD, &n) == 0 && n > 0;
}

static enum rank rank_of(const struct roce_http_slot *s, int64_t now)
{
    if (s->state == ROCE_HTTP_WAITING) /* unread: most likely a request sent whole */
        return has_unread(s->fd) ? RANK_UNREAD : RANK_STALLED;
    if (s->state == ROCE_HTTP_ANSWERING && now - s->since_ms >= ROCE_HTTP_SLOW_MS)
        return RANK_SLOW;
    return RANK_KEEP;
}

/* Shut the connection down; its slot waits for libmicrohttpd to close it. */
static void shut(struct roce_http_slot *s)
{
    shutdown(s->fd, SHUT_RDWR);
    s->state = ROCE_HTTP_CLOSING;
}

/* The open connection to close to make room for newcomer: among those of
 * its address (same_peer) or all, the lowest rank, then the oldest (the
 * newcomer after any other of its age). NULL when none may be closed. */
static struct roce_http_slot *victim(struct roce_http_pool *p,
                                     const struct roce_http_slot *newcomer, int same_peer_only,
                                     int64_t now)
{
    struct roce_http_slot *best = NULL;
    enum rank best_rank = RANK_KEEP;
    for (size_t i = 0; i < ROCE_HTTP_SLOTS; i++) {
        struct roce_http_slot *s = &p->slot[i];
        if (!is_open(s) || (same_peer_only && !same_peer(s, newcomer)))
            continue;
        enum rank r = rank_of(s, now);
        if (r == RANK_KEEP)
            continue;
        if (best == NULL || r < best_rank ||
            (r == best_rank && (s->since_ms < best->since_ms ||
                                (s->since_ms == best->since_ms && best == newcomer)))) {
            best = s;
            best_rank = r;
        }
    }
    return best;
}

struct roce_http_slot *roce_http_pool_add(struct roce_http_pool *p, int fd,
                                          const struct sockaddr *peer, int64_t now)
{
    struct roce_http_slot *s = NULL;
    for (size_t i = 0; i < ROCE_HTTP_SLOTS && s == NULL; i++)
        if (p->slot[i].state == ROCE_HTTP_FREE)
            s = &p->slot[i];
    if (s == NULL)
        return NULL;
    s->state = ROCE_HTTP_WAITING;
    s->fd = fd;
    s->since_ms = now;
    set_peer(s, peer);
    size_t all = 0, same = 0;
    for (size_t i = 0; i < ROCE_HTTP_SLOTS; i++)
        if (is_open(&p->slot[i])) {
            all++;
            same += same_peer(&p->slot[i], s);
        }
    /* one over a bound at most (each add makes room): one connection closes */
    struct roce_http_slot *v = same > ROCE_HTTP_PER_IP       ? victim(p, s, 1, now)
                               : all > ROCE_HTTP_CONNECTIONS ? victim(p, s, 0, now)
                                                             : NULL;
    if (v != NULL) {
        shut(v);
        p->made_room++;
    }
    return s;
}

void roce_http_pool_answering(struct roce_http_slot *s, int64_t now)
{
    if (is_open(s) && s->state != ROCE_HTTP_ANSWERING) {
        s->state = ROCE_HTTP_ANSWERING;
        s->since_ms = now;
    }
}

void roce_http_pool_answered(struct roce_http_slot *s, int64_t now)
{
    if (is_open(s)) {
        s->state = ROCE_HTTP_WAITING;
        s->since_ms = now;
    }
}

void roce_http_pool_remove(struct roce_http_slot *s)
{
    s->state = ROCE_HTTP_FREE;
    s->fd = -1;
}

int64_t roce_http_pool_expire(struct roce_http_pool *p, int64_t now)
{
    int64_t next = -1;
    for (size_t i = 0; i < ROCE_HTTP_SLOTS; i++) {
        struct roce_http_slot *s = &p->slot[i];
        if (!is_open(s))
            continue;
        int64_t left = s->since_ms - now +
                       (s->state == ROCE_HTTP_WAITING ? ROCE_HTTP_REQUEST_MS : ROCE_HTTP_ANSWER_MS);
        if (left <= 0) {
            shut(s);
            p->expired++;
        } else if (next < 0 || left < next) {
            next = left;
        }
    }
    return next;
}
