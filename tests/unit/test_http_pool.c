/*
 * test_http_pool.c - the connection slots of `--listen`
 * (analyzer/live/http_pool.h), on socket pairs standing for connections:
 * the pool's end is the connection's socket, the test's end the client,
 * which sees the end of the stream when the pool shuts a connection down.
 *
 * Over the pool's bound the oldest stalled connection of any address gives
 * its place, over an address's bound the oldest of that address; an answer
 * under way goes only when slow, after the stalled connections and before
 * those with a request unread; the newcomer itself when nothing else may go;
 * requests and answers past their deadline are closed; the slots are
 * bounded.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "http_pool.h"
#include "test_util.h"

#define MAX_CONNS ROCE_HTTP_SLOTS
#define REQUEST   "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"

/* The connections of a test: the pool's end and the client's of each. */
struct conns {
    int server[MAX_CONNS], client[MAX_CONNS];
    struct roce_http_slot *slot[MAX_CONNS];
    unsigned n;
};

/* 127.0.0.host as a peer address. */
static struct sockaddr_in peer(unsigned host)
{
    struct sockaddr_in sa;
    char text[INET_ADDRSTRLEN];
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    snprintf(text, sizeof text, "127.0.0.%u", host);
    inet_pton(AF_INET, text, &sa.sin_addr);
    return sa;
}

/* A new connection from 127.0.0.host at now, that has sent request
 * (NULL: nothing yet): its index in c. */
static unsigned connect_sent(struct roce_http_pool *p, struct conns *c, unsigned host, int64_t now,
                             const char *request)
{
    int sv[2];
    unsigned i = c->n++;
    struct sockaddr_in sa = peer(host);
    CU_ASSERT_FATAL(i < MAX_CONNS && socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    if (request != NULL)
        CU_ASSERT(write(sv[1], request, strlen(request)) == (ssize_t)strlen(request));
    c->server[i] = sv[0];
    c->client[i] = sv[1];
    c->slot[i] = roce_http_pool_add(p, sv[0], (const struct sockaddr *)&sa, now);
    return i;
}

/* A new connection that has sent nothing yet. */
static unsigned connect_from(struct roce_http_pool *p, struct conns *c, unsigned host, int64_t now)
{
    return connect_sent(p, c, host, now, NULL);
}

/* Nonzero when the pool shut connection i down (its client sees the end). */
static int shut_down(const struct conns *c, unsigned i)
{
    char b;
    return recv(c->client[i], &b, 1, MSG_DONTWAIT) == 0;
}

/* How many connections the pool shut down. */
static unsigned count_shut(const struct conns *c)
{
    unsigned n = 0;
    for (unsigned i = 0; i < c->n; i++)
        n += shut_down(c, i) != 0;
    return n;
}

static void close_all(struct conns *c)
{
    for (unsigned i = 0; i < c->n; i++) {
        close(c->server[i]);
        close(c->client[i]);
    }
    c->n = 0;
}

/* The pool filled: ROCE_HTTP_PER_IP connections from each of hosts 1..,
 * the one at index i accepted at time i. */
static void fill(struct roce_http_pool *p, struct conns *c)
{
    roce_http_pool_init(p);
    memset(c, 0, sizeof *c);
    for (unsigned i = 0; i < ROCE_HTTP_CONNECTIONS; i++)
        connect_from(p, c, 1 + i / ROCE_HTTP_PER_IP, i);
    CU_ASSERT_EQUAL(roce_http_pool_open(p), ROCE_HTTP_CONNECTIONS);
    CU_ASSERT_EQUAL(count_shut(c), 0);
}

static void test_pool_full(void)
{
    struct roce_http_pool p;
    struct conns c;
    fill(&p, &c);
    /* a newcomer from another address: the oldest of all makes room */
    unsigned n = connect_from(&p, &c, 99, 100);
    CU_ASSERT_PTR_NOT_NULL(c.slot[n]);
    CU_ASSERT_EQUAL(c.slot[n]->state, ROCE_HTTP_WAITING);
    CU_ASSERT(shut_down(&c, 0));
    CU_ASSERT_EQUAL(count_shut(&c), 1);
    CU_ASSERT_EQUAL(c.slot[0]->state, ROCE_HTTP_CLOSING);
    CU_ASSERT_EQUAL(roce_http_pool_open(&p), ROCE_HTTP_CONNECTIONS);
    CU_ASSERT_EQUAL(p.made_room, 1);
    /* then the next oldest */
    connect_from(&p, &c, 98, 101);
    CU_ASSERT(shut_down(&c, 1));
    CU_ASSERT_EQUAL(count_shut(&c), 2);
    close_all(&c);
}

static void test_address_full(void)
{
    struct roce_http_pool p;
    struct conns c;
    roce_http_pool_init(&p);
    memset(&c, 0, sizeof c);
    unsigned other = connect_from(&p, &c, 2, 0); /* older than any of host 1's */
    for (unsigned i = 0; i < ROCE_HTTP_PER_IP; i++)
        connect_from(&p, &c, 1, 10 + i);
    CU_ASSERT_EQUAL(count_shut(&c), 0);
    /* a ninth from host 1: host 1's oldest goes, not host 2's older one */
    unsigned n = connect_from(&p, &c, 1, 50);
    CU_ASSERT_EQUAL(c.slot[n]->state, ROCE_HTTP_WAITING);
    CU_ASSERT(shut_down(&c, other + 1));
    CU_ASSERT(!shut_down(&c, other));
    CU_ASSERT_EQUAL(count_shut(&c), 1);
    close_all(&c);
}

static void test_unread_goes_later(void)
{
    struct roce_http_pool p;
    struct conns c;
    fill(&p, &c);
    /* the oldest has a request waiting to be read: the next oldest goes */
    CU_ASSERT_EQUAL(write(c.client[0], "GET", 3), 3);
    connect_from(&p, &c, 99, 100);
    CU_ASSERT(shut_down(&c, 1));
    CU_ASSERT_EQUAL(count_shut(&c), 1);
    CU_ASSERT_EQUAL(c.slot[0]->state, ROCE_HTTP_WAITING);
    close_all(&c);
}

static void test_answers(void)
{
    struct roce_http_pool p;
    struct conns c;
    fill(&p, &c);
    for (unsigned i = 0; i < ROCE_HTTP_CONNECTIONS; i++)
        roce_http_pool_answering(c.slot[i], 1000 + i);
    /* every slot answering for less than ROCE_HTTP_SLOW_MS: the newcomer
     * goes, even with its request sent */
    unsigned n = connect_sent(&p, &c, 99, 1000 + ROCE_HTTP_SLOW_MS - 1, REQUEST);
    CU_ASSERT_EQUAL(c.slot[n]->state, ROCE_HTTP_CLOSING);
    CU_ASSERT_EQUAL(count_shut(&c), 1);
    /* the oldest answer is slow now: a newcomer that has sent nothing goes
     * before it, one with its request sent stays */
    n = connect_from(&p, &c, 99, 1000 + ROCE_HTTP_SLOW_MS);
    CU_ASSERT_EQUAL(c.slot[n]->state, ROCE_HTTP_CLOSING);
    CU_ASSERT_EQUAL(count_shut(&c), 2);
    n = connect_sent(&p, &c, 99, 1000 + ROCE_HTTP_SLOW_MS, REQUEST);
    CU_ASSERT_EQUAL(c.slot[n]->state, ROCE_HTTP_WAITING);
    CU_ASSERT(shut_down(&c, 0));
    CU_ASSERT_EQUAL(count_shut(&c), 3);
    /* an answer sent: waiting again (a closing slot stays closing) */
    roce_http_pool_answered(c.slot[1], 5000);
    CU_ASSERT_EQUAL(c.slot[1]->state, ROCE_HTTP_WAITING);
    CU_ASSERT_EQUAL(c.slot[1]->since_ms, 5000);
    roce_http_pool_answered(c.slot[0], 5000);
    roce_http_pool_answering(c.slot[0], 5000);
    CU_ASSERT_EQUAL(c.slot[0]->state, ROCE_HTTP_CLOSING);
    close_all(&c);
}

static void test_deadlines(void)
{
    struct roce_http_pool p;
    struct conns c;
    roce_http_pool_init(&p);
    memset(&c, 0, sizeof c);
    CU_ASSERT_EQUAL(roce_http_pool_expire(&p, 0), -1);
    unsigned waiting = connect_from(&p, &c, 1, 0);
    unsigned answering = connect_from(&p, &c, 1, 0);
    roce_http_pool_answering(c.slot[answering], 100);
    /* a request trickling in is closed at its deadline all the same */
    CU_ASSERT_EQUAL(write(c.client[waiting], "G", 1), 1);
    CU_ASSERT_EQUAL(roce_http_pool_expire(&p, ROCE_HTTP_REQUEST_MS - 1), 1);
    CU_ASSERT_EQUAL(count_shut(&c), 0);
    CU_ASSERT_EQUAL(roce_http_pool_expire(&p, ROCE_HTTP_REQUEST_MS),
                    100 + ROCE_HTTP_ANSWER_MS - ROCE_HTTP_REQUEST_MS);
    CU_ASSERT_EQUAL(c.slot[waiting]->state, ROCE_HTTP_CLOSING);
    CU_ASSERT(shut_down(&c, waiting));
    CU_ASSERT_EQUAL(count_shut(&c), 1);
    CU_ASSERT_EQUAL(roce_http_pool_expire(&p, 100 + ROCE_HTTP_ANSWER_MS), -1);
    CU_ASSERT(shut_down(&c, answering));
    CU_ASSERT_EQUAL(p.expired, 2);
    CU_ASSERT_EQUAL(roce_http_pool_open(&p), 0);
    /* closed by the server: the slots are free again */
    roce_http_pool_remove(c.slot[waiting]);
    roce_http_pool_remove(c.slot[answering]);
    CU_ASSERT_EQUAL(c.slot[waiting]->state, ROCE_HTTP_FREE);
    close_all(&c);
}

static void test_slots_bounded(void)
{
    struct roce_http_pool p;
    struct conns c;
    roce_http_pool_init(&p);
    memset(&c, 0, sizeof c);
    /* connections shut down that the server has not closed yet keep their slots */
    for (unsigned i = 0; i < ROCE_HTTP_SLOTS; i++)
        CU_ASSERT_PTR_NOT_NULL(c.slot[connect_from(&p, &c, 1, i)]);
    CU_ASSERT_EQUAL(roce_http_pool_open(&p), ROCE_HTTP_PER_IP);
    CU_ASSERT_EQUAL(p.made_room, ROCE_HTTP_SLOTS - ROCE_HTTP_PER_IP);
    int sv[2];
    struct sockaddr_in sa = peer(1);
    CU_ASSERT_FATAL(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    CU_ASSERT_PTR_NULL(roce_http_pool_add(&p, sv[0], (const struct sockaddr *)&sa, 1000));
    roce_http_pool_remove(c.slot[0]);
    CU_ASSERT_PTR_NOT_NULL(roce_http_pool_add(&p, sv[0], (const struct sockaddr *)&sa, 1000));
    close(sv[0]);
    close(sv[1]);
    close_all(&c);
}

static const struct tu_test tests[] = {
    {"pool_full", test_pool_full},
    {"address_full", test_address_full},
    {"unread_goes_later", test_unread_goes_later},
    {"answers", test_answers},
    {"deadlines", test_deadlines},
    {"slots_bounded", test_slots_bounded},
    TU_END,
};

int main(int argc, char **argv)
{
    return tu_main1(argc, argv, "http_pool", tests);
}
