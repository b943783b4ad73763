/*
 * live_pages.c - the documents of `--listen` (see live_pages.h).
 */
#define _GNU_SOURCE
#include "live_pages.h"

#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "live_view.h"
#include "prometheus.h"
#include "roce_time.h"

int roce_live_pages_declare(struct roce_http *h)
{
    if (roce_http_publish(h, ROCE_LIVE_METRICS_PATH, ROCE_LIVE_METRICS_TYPE, NULL, 0) != 0 ||
        roce_http_publish(h, ROCE_LIVE_PAGE_PATH, ROCE_LIVE_PAGE_TYPE, NULL, 0) != 0)
        return -1;
    return 0;
}

int roce_live_page(FILE *out, const struct roce_live_interval *iv, int64_t interval_ns)
{
    char *lines = NULL;
    size_t n = 0;
    FILE *mem = open_memstream(&lines, &n);
    if (mem == NULL)
        return -1;
    int rc = roce_live_view_lines(mem, iv);
    if (fclose(mem) != 0 || rc != 0) {
        free(lines);
        return -1;
    }
    long long refresh = (interval_ns + ROCE_NS_PER_SEC - 1) / ROCE_NS_PER_SEC;
    fprintf(out,
            "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
            "<meta http-equiv=\"refresh\" content=\"%lld\"><title>rocescope live: ",
            refresh > 0 ? refresh : 1);
    roce_html_text(out, iv->iface, strlen(iv->iface));
    fputs("</title></head>\n<body><h1>rocescope live: ", out);
    roce_html_text(out, iv->iface, strlen(iv->iface));
    fputs("</h1>\n<p><a href=\"" ROCE_LIVE_METRICS_PATH "\">metrics</a> (Prometheus)</p>\n<pre>",
          out);
    roce_html_text(out, lines, n);
    fputs("</pre>\n</body></html>\n", out);
    free(lines);
    return ferror(out) ? -1 : 0;
}

/* Make the page (page != 0) or the metrics of iv in memory and publish
 * them at path. 0, or -1. */
static int publish(struct roce_http *h, int page, const char *path, const char *type,
                   const struct roce_live_interval *iv, int64_t interval_ns)
{
    char *body = NULL;
    size_t n = 0;
    FILE *mem = open_memstream(&body, &n);
    if (mem == NULL)
        return -1;
    int rc = page ? roce_live_page(mem, iv, interval_ns) : roce_prometheus_write(mem, iv);
    if (fclose(mem) != 0)
        rc = -1;
    if (rc == 0)
        rc = roce_http_publish(h, path, type, body, n);
    free(body);
    return rc;
}

int roce_live_pages_publish(struct roce_http *h, const struct roce_live_interval *iv,
                            int64_t interval_ns)
{
    int rc = publish(h, 0, ROCE_LIVE_METRICS_PATH, ROCE_LIVE_METRICS_TYPE, iv, interval_ns);
    if (publish(h, 1, ROCE_LIVE_PAGE_PATH, ROCE_LIVE_PAGE_TYPE, iv, interval_ns) != 0)
        rc = -1;
    return rc;
}
