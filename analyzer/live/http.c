/*
 * http.c - the live monitor's HTTP server (see http.h), on libmicrohttpd.
 *
 * The monitor's thread publishes documents (roce_http_publish) under the
 * mutex; the server's thread answers each request with a copy made under
 * the same mutex, so a document is never seen half replaced. Requests are
 * answered on the first call of the access handler, before any body is
 * read: a request announcing a body (Content-Length other than 0, or a
 * Transfer-Encoding) is refused with 413 and its connection closed.
 *
 * The server's thread runs libmicrohttpd's turns itself (MHD_run when its
 * epoll descriptor is ready), so that the connection pool (http_pool.c) is
 * kept by that one thread: a connection enters it when libmicrohttpd has
 * accepted it (which may close another, or this one), is answering once its
 * request is complete and waiting again once its answer is sent, and leaves
 * when libmicrohttpd closes it (before it closes the descriptor, which the
 * pool only ever shuts down). After each turn the connections past their
 * deadline are shut down; the thread sleeps until the next deadline at most.
 *
 * libmicrohttpd is loaded (dlopen) when --listen asks for it, not linked:
 * with its TLS library it cost every start of rocescope about 9 ms of
 * processor time (a command of the test suite runs thousands of times),
 * and most runs never serve HTTP.
 */
#define _GNU_SOURCE /* pipe2 */
#include "http.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PORT_MAX       65535ul
#define LISTEN_BACKLOG SOMAXCONN /* connections waiting to be accepted, up to the system bound */
#define MS_PER_S       1000
#define NS_PER_MS      1000000
#define DEFAULT_ADDR   "127.0.0.1"
#define ADDR_BUF       64
#define ALLOWED        "GET, HEAD"

struct doc {
    char *path, *type, *body;
    size_t len;
};

struct roce_http {
    int fd; /* the listening socket, until the daemon owns it */
    struct MHD_Daemon *daemon;
    int epoll_fd; /* the daemon's */
    pthread_t thread;
    int running;        /* the thread was started */
    int wake[2];        /* a byte written to wake[1] stops the thread */
    pthread_mutex_t mu; /* the documents */
    struct doc docs[ROCE_HTTP_DOCS];
    struct roce_http_pool pool; /* the server's thread's alone */
};

/* The functions of libmicrohttpd the server calls, loaded by load_mhd. */
#define MHD_LIBRARY "libmicrohttpd.so.12" /* Debian 12 and 13: libmicrohttpd12(t64) */
static struct {
    __typeof__(&MHD_create_response_from_buffer) create_response_from_buffer;
    __typeof__(&MHD_add_response_header) add_response_header;
    __typeof__(&MHD_queue_response) queue_response;
    __typeof__(&MHD_destroy_response) destroy_response;
    __typeof__(&MHD_lookup_connection_value) lookup_connection_value;
    __typeof__(&MHD_get_connection_info) get_connection_info;
    __typeof__(&MHD_get_timeout) get_timeout;
    __typeof__(&MHD_run) run;
    __typeof__(&MHD_start_daemon) start_daemon;
    __typeof__(&MHD_get_daemon_info) get_daemon_info;
    __typeof__(&MHD_stop_daemon) stop_daemon;
} mhd;

/* Put symbol name of lib into the function pointer at fp. 0, or -1. */
static int sym(void *lib, const char *name, void *fp)
{
    void *p = dlsym(lib, name);
    if (p == NULL)
        return -1;
    memcpy(fp, &p, sizeof p); /* POSIX: a function's address as dlsym gives it */
    return 0;
}

/* Load libmicrohttpd once (the library stays for the process). 0, or -1
 * with the reason in err. */
static int load_mhd(char *err, size_t errlen)
{
    static void *lib;
    if (lib != NULL)
        return 0;
    void *l = dlopen(MHD_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (l == NULL) {
        snprintf(err, errlen, "--listen needs %s (Debian: libmicrohttpd12): %s", MHD_LIBRARY,
                 dlerror());
        return -1;
    }
    if (sym(l, "MHD_create_response_from_buffer", &mhd.create_response_from_buffer) ||
        sym(l, "MHD_add_response_header", &mhd.add_response_header) ||
        sym(l, "MHD_queue_response", &mhd.queue_response) ||
        sym(l, "MHD_destroy_response", &mhd.destroy_response) ||
        sym(l, "MHD_lookup_connection_value", &mhd.lookup_connection_value) ||
        sym(l, "MHD_get_connection_info", &mhd.get_connection_info) ||
        sym(l, "MHD_get_timeout", &mhd.get_timeout) || sym(l, "MHD_run", &mhd.run) ||
        sym(l, "MHD_start_daemon", &mhd.start_daemon) ||
        sym(l, "MHD_get_daemon_info", &mhd.get_daemon_info) ||
        sym(l, "MHD_stop_daemon", &mhd.stop_daemon)) {
        snprintf(err, errlen, "%s lacks a function the server needs: %s", MHD_LIBRARY, dlerror());
        dlclose(l);
        return -1;
    }
    lib = l;
    return 0;
}

/* A monotonic clock in milliseconds. */
static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * MS_PER_S + ts.tv_nsec / NS_PER_MS;
}

int roce_http_parse_addr(const char *spec, struct sockaddr_storage *sa, socklen_t *len)
{
    char addr[ADDR_BUF];
    const char *port = strrchr(spec, ':');
    char *end;
    memset(sa, 0, sizeof *sa);
    if (port == NULL) {
        snprintf(addr, sizeof addr, "%s", DEFAULT_ADDR);
        port = spec;
    } else {
        size_t n = (size_t)(port - spec);
        if (n >= sizeof addr)
            return -1;
        memcpy(addr, spec, n);
        addr[n] = '\0';
        port++;
    }
    if (*port < '0' || *port > '9')
        return -1;
    errno = 0;
    unsigned long p = strtoul(port, &end, 10);
    if (errno != 0 || *end != '\0' || p == 0 || p > PORT_MAX)
        return -1;
    size_t alen = strlen(addr);
    if (alen >= 2 && addr[0] == '[' && addr[alen - 1] == ']') {
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)sa;
        addr[alen - 1] = '\0';
        if (inet_pton(AF_INET6, addr + 1, &s6->sin6_addr) != 1)
            return -1;
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons((uint16_t)p);
        *len = sizeof *s6;
        return 0;
    }
    struct sockaddr_in *s4 = (struct sockaddr_in *)sa;
    if (inet_pton(AF_INET, addr, &s4->sin_addr) != 1)
        return -1;
    s4->sin_family = AF_INET;
    s4->sin_port = htons((uint16_t)p);
    *len = sizeof *s4;
    return 0;
}

struct roce_http *roce_http_bind(const char *spec, char *err, size_t errlen)
{
    struct sockaddr_storage sa;
    socklen_t len;
    int one = 1;
    if (roce_http_parse_addr(spec, &sa, &len) != 0) {
        snprintf(err, errlen, "not ADDR:PORT or PORT: '%s'", spec);
        return NULL;
    }
    if (load_mhd(err, errlen) != 0) /* now: before the privileges and the filter go */
        return NULL;
    struct roce_http *h = calloc(1, sizeof *h);
    if (h == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    h->wake[0] = h->wake[1] = -1;
    roce_http_pool_init(&h->pool);
    h->fd = socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (h->fd < 0 || setsockopt(h->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(h->fd, (struct sockaddr *)&sa, len) != 0 || listen(h->fd, LISTEN_BACKLOG) != 0) {
        snprintf(err, errlen, "cannot listen on %s: %s", spec, strerror(errno));
        if (h->fd >= 0)
            close(h->fd);
        free(h);
        return NULL;
    }
    pthread_mutex_init(&h->mu, NULL);
    return h;
}

/* A response of len bytes copied from body (NULL: empty), with the headers
 * every answer carries, queued with status. */
static enum MHD_Result respond(struct MHD_Connection *c, unsigned status, const char *type,
                               const char *body, size_t len)
{
    struct MHD_Response *r =
        mhd.create_response_from_buffer(len, (void *)(body ? body : ""), MHD_RESPMEM_MUST_COPY);
    if (r == NULL)
        return MHD_NO;
    mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    mhd.add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    mhd.add_response_header(r, "X-Content-Type-Options", "nosniff");
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
        mhd.add_response_header(r, MHD_HTTP_HEADER_ALLOW, ALLOWED);
    enum MHD_Result rc = mhd.queue_response(c, status, r);
    mhd.destroy_response(r);
    return rc;
}

static enum MHD_Result error_page(struct MHD_Connection *c, unsigned status, const char *text)
{
    return respond(c, status, "text/plain; charset=utf-8", text, strlen(text));
}

/* Nonzero when the request announces a body. */
static int has_body(struct MHD_Connection *c)
{
    const char *cl =
        mhd.lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    const char *te =
        mhd.lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING);
    return te != NULL || (cl != NULL && strcmp(cl, "0") != 0);
}

/* The access handler: answered on its first call. */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **state)
{
    struct roce_http *h = cls;
    const union MHD_ConnectionInfo *ci =
        mhd.get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    (void)version;
    (void)upload;
    (void)upload_size;
    (void)state;
    if (ci != NULL && ci->socket_context != NULL)
        roce_http_pool_answering(ci->socket_context, now_ms());
    if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
        return error_page(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET and HEAD\n");
    if (has_body(c))
        return error_page(c, MHD_HTTP_CONTENT_TOO_LARGE, "no request body is read\n");
    pthread_mutex_lock(&h->mu);
    const struct doc *d = NULL;
    for (unsigned i = 0; i < ROCE_HTTP_DOCS && d == NULL; i++)
        if (h->docs[i].path != NULL && strcmp(h->docs[i].path, url) == 0)
            d = &h->docs[i];
    enum MHD_Result rc = d == NULL ? error_page(c, MHD_HTTP_NOT_FOUND, "not found\n")
                         : d->body == NULL
                             ? error_page(c, MHD_HTTP_SERVICE_UNAVAILABLE, "not ready\n")
                             : respond(c, MHD_HTTP_OK, d->type, d->body, d->len);
    pthread_mutex_unlock(&h->mu);
    return rc;
}

/* A connection libmicrohttpd accepted (into the pool, which may close
 * another or this one) or closed (out of it). */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
    struct roce_http *h = cls;
    if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        if (*socket_context != NULL)
            roce_http_pool_remove(*socket_context);
        *socket_context = NULL;
        return;
    }
    const union MHD_ConnectionInfo *fd =
        mhd.get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    const union MHD_ConnectionInfo *peer =
        mhd.get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (fd == NULL)
        return;
    *socket_context = roce_http_pool_add(&h->pool, fd->connect_fd,
                                         peer != NULL ? peer->client_addr : NULL, now_ms());
    if (*socket_context == NULL) /* no slot: cannot be with the daemon's limit */
        shutdown(fd->connect_fd, SHUT_RDWR);
}

/* An answer sent (or a request ended otherwise): the connection waits for
 * its next request. */
static void on_completed(void *cls, struct MHD_Connection *c, void **state,
                         enum MHD_RequestTerminationCode toe)
{
    const union MHD_ConnectionInfo *ci =
        mhd.get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    (void)cls;
    (void)state;
    (void)toe;
    if (ci != NULL && ci->socket_context != NULL)
        roce_http_pool_answered(ci->socket_context, now_ms());
}

/* The server's thread: libmicrohttpd's turns, then the deadlines, until a
 * byte comes on h->wake[0]. */
static void *serve(void *arg)
{
    struct roce_http *h = arg;
    struct pollfd p[2] = {{h->epoll_fd, POLLIN, 0}, {h->wake[0], POLLIN, 0}};
    int64_t next = -1;
    for (;;) {
        MHD_UNSIGNED_LONG_LONG mhd_next;
        if (mhd.get_timeout(h->daemon, &mhd_next) == MHD_YES &&
            (next < 0 || mhd_next < (MHD_UNSIGNED_LONG_LONG)next))
            next = (int64_t)mhd_next;
        if (poll(p, 2,
                 next < 0           ? -1
                 : next > INT32_MAX ? INT32_MAX
                                    : (int)next) < 0 &&
            errno != EINTR)
            break;
        if (p[1].revents != 0)
            break;
        mhd.run(h->daemon);
        next = roce_http_pool_expire(&h->pool, now_ms());
    }
    return NULL;
}

int roce_http_start(struct roce_http *h, char *err, size_t errlen)
{
    sigset_t all, saved;
    if (pipe2(h->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
        snprintf(err, errlen, "cannot start the HTTP server: %s", strerror(errno));
        return -1;
    }
    h->daemon = mhd.start_daemon(
        MHD_USE_EPOLL, 0, NULL, NULL, on_request, h, MHD_OPTION_LISTEN_SOCKET, (MHD_socket)h->fd,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)ROCE_HTTP_SLOTS, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
        (size_t)ROCE_HTTP_REQUEST_BYTES, MHD_OPTION_CONNECTION_TIMEOUT,
        (unsigned)(ROCE_HTTP_ANSWER_MS / MS_PER_S), MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, h, MHD_OPTION_END);
    if (h->daemon == NULL) {
        snprintf(err, errlen, "cannot start the HTTP server");
        return -1;
    }
    h->fd = -1; /* the daemon's now */
    const union MHD_DaemonInfo *di = mhd.get_daemon_info(h->daemon, MHD_DAEMON_INFO_EPOLL_FD);
    if (di == NULL) {
        snprintf(err, errlen, "cannot start the HTTP server: no epoll");
        return -1;
    }
    h->epoll_fd = di->epoll_fd;
    /* the thread inherits the mask: it must take none of the monitor's signals */
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &saved);
    int rc = pthread_create(&h->thread, NULL, serve, h);
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
    if (rc != 0) {
        snprintf(err, errlen, "cannot start the HTTP server: %s", strerror(rc));
        return -1;
    }
    h->running = 1;
    return 0;
}

int roce_http_publish(struct roce_http *h, const char *path, const char *content_type,
                      const char *body, size_t len)
{
    struct doc *d = NULL, *free_slot = NULL;
    char *copy = NULL;
    if (body != NULL) {
        if ((copy = malloc(len ? len : 1)) == NULL)
            return -1;
        memcpy(copy, body, len);
    }
    pthread_mutex_lock(&h->mu);
    for (unsigned i = 0; i < ROCE_HTTP_DOCS && d == NULL; i++) {
        if (h->docs[i].path != NULL && strcmp(h->docs[i].path, path) == 0)
            d = &h->docs[i];
        else if (h->docs[i].path == NULL && free_slot == NULL)
            free_slot = &h->docs[i];
    }
    if (d == NULL && free_slot != NULL) {
        free_slot->path = strdup(path);
        free_slot->type = strdup(content_type);
        if (free_slot->path == NULL || free_slot->type == NULL) {
            free(free_slot->path);
            free(free_slot->type);
            free_slot->path = free_slot->type = NULL;
        } else {
            d = free_slot;
        }
    }
    if (d != NULL) {
        free(d->body);
        d->body = copy;
        d->len = len;
    }
    pthread_mutex_unlock(&h->mu);
    if (d == NULL)
        free(copy);
    return d != NULL ? 0 : -1;
}

void roce_http_free(struct roce_http *h)
{
    if (h == NULL)
        return;
    if (h->running) {
        const char stop = 1;
        while (write(h->wake[1], &stop, 1) < 0 && errno == EINTR)
            ;
        pthread_join(h->thread, NULL);
    }
    if (h->daemon != NULL)
        mhd.stop_daemon(h->daemon);
    for (unsigned i = 0; i < 2; i++)
        if (h->wake[i] >= 0)
            close(h->wake[i]);
    if (h->fd >= 0)
        close(h->fd);
    for (unsigned i = 0; i < ROCE_HTTP_DOCS; i++) {
        free(h->docs[i].path);
        free(h->docs[i].type);
        free(h->docs[i].body);
    }
    pthread_mutex_destroy(&h->mu);
    free(h);
}
