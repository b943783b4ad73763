/*
 * http_pool.h - the connection slots of `--listen` (http.c): who holds one,
 * since when, doing what; which connection gives its slot away when the
 * pool or an address is full; the deadlines.
 *
 * A connection is WAITING from its accept until its request line and headers
 * are complete, and again after each answer (keep-alive); ANSWERING while its
 * answer is being sent; CLOSING once the pool has shut its socket down
 * (libmicrohttpd then closes it and the slot is removed). The rules:
 *
 *   - a WAITING connection has ROCE_HTTP_REQUEST_MS to complete its request
 *     (from its accept or its previous answer, however it trickles), an
 *     ANSWERING one ROCE_HTTP_ANSWER_MS to take its answer: then it is closed;
 *   - at most ROCE_HTTP_CONNECTIONS connections are open, at most
 *     ROCE_HTTP_PER_IP from one address. A connection over either bound does
 *     not wait and is not refused outright: the connection that has shown the
 *     least, among those of its address (over the address's bound) or all
 *     (over the pool's), is closed to make room, in this order: WAITING with
 *     nothing unread in its socket (idle, or trickling: everything it sent was
 *     read and its request is still incomplete), then ANSWERING for
 *     ROCE_HTTP_SLOW_MS or more (a slow reader), then WAITING with bytes
 *     unread (most likely a request sent whole, about to be read), each the
 *     oldest first. The newcomer is ranked with the others (as the youngest),
 *     so it is the one closed only when every other connection has shown
 *     more than it has; an answer under way for less than ROCE_HTTP_SLOW_MS
 *     is never interrupted.
 *
 * So a client that sends a complete request at once is answered whatever
 * the other connections do, also from an address that holds many stalled
 * ones. Not thread-safe: one thread (the server's) calls it all.
 */
#ifndef ROCE_HTTP_POOL_H
#define ROCE_HTTP_POOL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define ROCE_HTTP_CONNECTIONS 32    /* open at once */
#define ROCE_HTTP_PER_IP      8     /* open at once from one address */
#define ROCE_HTTP_REQUEST_MS  3000  /* for the request line and headers */
#define ROCE_HTTP_ANSWER_MS   10000 /* for taking the answer */
#define ROCE_HTTP_SLOW_MS     1000  /* an answer this old may be interrupted to make room */
/* Slots: the open connections and those shut down that libmicrohttpd has
 * not closed yet (it closes them on its next turn: at most a turn's accepts,
 * 11, and the pool's connections, expired at once). The server's own
 * connection limit, so that it never refuses a connection itself. */
#define ROCE_HTTP_SLOTS    (4 * ROCE_HTTP_CONNECTIONS)
#define ROCE_HTTP_ADDR_LEN 16

enum roce_http_state { ROCE_HTTP_FREE, ROCE_HTTP_WAITING, ROCE_HTTP_ANSWERING, ROCE_HTTP_CLOSING };

struct roce_http_slot {
    uint8_t state;                    /* enum roce_http_state */
    uint8_t family;                   /* AF_INET, AF_INET6 (0: other) */
    uint8_t addr[ROCE_HTTP_ADDR_LEN]; /* the peer's address (IPv4 in the first 4 bytes) */
    int fd;                           /* the connection's socket (libmicrohttpd's) */
    int64_t since_ms;                 /* when its state began (a monotonic clock) */
};

struct roce_http_pool {
    struct roce_http_slot slot[ROCE_HTTP_SLOTS];
    uint64_t made_room, expired; /* connections closed to make room, past a deadline */
};

/* An empty pool. */
void roce_http_pool_init(struct roce_http_pool *p);

/* A connection accepted at now on socket fd from peer (may be NULL): its
 * slot, WAITING, after making room by the rules above (which may close this
 * very connection: its slot is then CLOSING). NULL when no slot is free
 * (the caller shuts fd down); never with the bound of ROCE_HTTP_SLOTS. */
struct roce_http_slot *roce_http_pool_add(struct roce_http_pool *p, int fd,
                                          const struct sockaddr *peer, int64_t now);

/* Its request is complete (ANSWERING), its answer sent (WAITING again).
 * A CLOSING slot stays so. */
void roce_http_pool_answering(struct roce_http_slot *s, int64_t now);
void roce_http_pool_answered(struct roce_http_slot *s, int64_t now);

/* The connection is closed: its slot is free. */
void roce_http_pool_remove(struct roce_http_slot *s);

/* Close the connections past their deadline at now. Returns the
 * milliseconds until the next deadline, -1 when there is none. */
int64_t roce_http_pool_expire(struct roce_http_pool *p, int64_t now);

/* Open connections (WAITING or ANSWERING). */
size_t roce_http_pool_open(const struct roce_http_pool *p);

#endif
