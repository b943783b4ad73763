/*
 * http.h - `--listen ADDR:PORT`: the live monitor's documents served over
 * HTTP (libmicrohttpd), as exporters serve theirs: GET or HEAD only, a few
 * fixed paths, each document replaced whole by the monitor every interval.
 *
 * Bounds: at most ROCE_HTTP_CONNECTIONS connections at once (and
 * ROCE_HTTP_PER_IP from one address), ROCE_HTTP_REQUEST_BYTES for a
 * request's line and headers, no request body; a request must be complete
 * within ROCE_HTTP_REQUEST_MS of its connection's accept (or of the previous
 * answer on it) and its answer taken within ROCE_HTTP_ANSWER_MS. A
 * connection over a bound takes the place of the one that has shown least
 * (stalled or trickling requests, then slow readers, oldest first:
 * http_pool.h), so that a complete request is answered at once whatever the
 * other connections do. The socket is bound first (as root, so that ports
 * below 1024 work), the server's thread started after the privileges are
 * dropped (-Z): it never runs as root, takes no signals and only reads what
 * the monitor published.
 */
#ifndef ROCE_HTTP_H
#define ROCE_HTTP_H

#include <stddef.h>
#include <sys/socket.h>

#include "http_pool.h"

#define ROCE_HTTP_REQUEST_BYTES 16384
#define ROCE_HTTP_DOCS          4 /* paths that can be published */

struct roce_http;

/* Parse "ADDR:PORT" (numeric IPv4, or IPv6 in brackets) or "PORT" (on
 * 127.0.0.1), port 1..65535, into *sa. 0, or -1. */
int roce_http_parse_addr(const char *spec, struct sockaddr_storage *sa, socklen_t *len);

/* Bind a listening socket to spec (checked by roce_http_parse_addr). NULL
 * with the reason in err. */
struct roce_http *roce_http_bind(const char *spec, char *err, size_t errlen);

/* Start serving on the bound socket in a thread of its own. 0, or -1 with
 * the reason in err. */
int roce_http_start(struct roce_http *h, char *err, size_t errlen);

/* Publish body (len bytes, copied) at path ("/metrics", "/") with its
 * Content-Type, replacing what was there; body NULL declares the path
 * without a document yet (it answers 503 until one comes); other paths
 * answer 404. 0, or -1 when out of memory or out of paths (the previous
 * document stays). */
int roce_http_publish(struct roce_http *h, const char *path, const char *content_type,
                      const char *body, size_t len);

/* Stop serving (waits for the thread) and free. NULL is ignored. */
void roce_http_free(struct roce_http *h);

#endif
