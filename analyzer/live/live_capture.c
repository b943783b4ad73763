/*
 * live_capture.c - capturing from a network interface over libpcap (see
 * live_capture.h).
 *
 * pcap_activate's outcomes each get their own message: an error (negative)
 * ends the open, a warning (positive) is passed on and the capture goes
 * ahead. pcap_dispatch's outcomes each have their own branch too: a count
 * of frames (0 when nothing is ready, the handle being non-blocking),
 * PCAP_ERROR_BREAK after pcap_breakloop, PCAP_ERROR when reading fails
 * (on Linux: the interface went down or was removed).
 */
#define _GNU_SOURCE
#include "live_capture.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture_pcap.h"
#include "roce_time.h"

#define BYTES_PER_KIB  1024
#define NO_FD_SLEEP_NS 10000000LL /* without a selectable descriptor: poll every 10 ms */
#define BPF_OPTIMIZE   1

struct roce_livecap {
    pcap_t *p;
    int fd; /* selectable descriptor, -1 when the platform has none */
    int nano;
    int linktype;
    struct pcap_stat last; /* raw counters at the previous roce_livecap_stats */
    struct roce_livecap_stats wide;
    struct roce_capture_frame frame;
    roce_livecap_fn fn;
    void *ctx;
    char err[PCAP_ERRBUF_SIZE + 64];
};

struct status_text {
    int code;
    const char *text;
};

/* What pcap_activate's errors and warnings mean, for the user. */
static const struct status_text activate_texts[] = {
    {PCAP_ERROR_NO_SUCH_DEVICE, "no such interface"},
    {PCAP_ERROR_IFACE_NOT_UP, "the interface is down"},
    {PCAP_ERROR_PERM_DENIED, "permission denied (capturing needs root or CAP_NET_RAW)"},
    {PCAP_ERROR_PROMISC_PERM_DENIED, "permission denied for promiscuous mode"},
    {PCAP_ERROR_RFMON_NOTSUP, "monitor mode is not supported"},
    {PCAP_ERROR_ACTIVATED, "already activated"},
    {PCAP_WARNING_PROMISC_NOTSUP, "promiscuous mode is not supported"},
    {PCAP_WARNING_TSTAMP_TYPE_NOTSUP, "the time stamp type is not supported"},
    {0, NULL},
};

static const char *status_text(int code)
{
    for (const struct status_text *s = activate_texts; s->text != NULL; s++)
        if (s->code == code)
            return s->text;
    return NULL;
}

/* "what (libpcap's detail)", or whichever of the two there is. */
static void describe(char *buf, size_t len, const char *what, const char *detail)
{
    if (what != NULL && detail != NULL && detail[0] != '\0')
        snprintf(buf, len, "%s (%s)", what, detail);
    else
        snprintf(buf, len, "%s", what != NULL ? what : detail != NULL ? detail : "failed");
}

/* Settings that must be made before pcap_activate. 0, or -1 with err set. */
static int configure(pcap_t *p, const struct roce_livecap_config *cfg, char *err, size_t errlen)
{
    if (pcap_set_snaplen(p, (int)cfg->snaplen) != 0 || pcap_set_promisc(p, cfg->promisc) != 0 ||
        pcap_set_timeout(p, cfg->timeout_ms) != 0 ||
        pcap_set_immediate_mode(p, cfg->immediate) != 0 ||
        (cfg->buffer_kib && pcap_set_buffer_size(p, (int)cfg->buffer_kib * BYTES_PER_KIB) != 0)) {
        snprintf(err, errlen, "cannot configure the capture");
        return -1;
    }
    /* nanoseconds where the platform has them; otherwise microseconds */
    (void)pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO);
    return 0;
}

/* Compile and install the filter. 0, or -1 with err set. */
static int set_filter(pcap_t *p, const char *filter, char *err, size_t errlen)
{
    struct bpf_program prog;
    if (filter == NULL || filter[0] == '\0')
        return 0;
    if (pcap_compile(p, &prog, filter, BPF_OPTIMIZE, PCAP_NETMASK_UNKNOWN) != 0) {
        snprintf(err, errlen, "bad filter '%s': %s", filter, pcap_geterr(p));
        return -1;
    }
    int rc = pcap_setfilter(p, &prog);
    pcap_freecode(&prog);
    if (rc != 0) {
        snprintf(err, errlen, "cannot set the filter: %s", pcap_geterr(p));
        return -1;
    }
    return 0;
}

struct roce_livecap *roce_livecap_open(const struct roce_livecap_config *cfg,
                                       enum roce_livecap_open_status *status, char *err,
                                       size_t errlen, char *warn, size_t warnlen)
{
    char perr[PCAP_ERRBUF_SIZE] = "";
    struct roce_livecap *c = calloc(1, sizeof *c);

    *status = ROCE_LIVECAP_OPEN_FAILED;
    warn[0] = '\0';
    if (c == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    c->p = pcap_create(cfg->iface, perr);
    if (c->p == NULL) {
        describe(err, errlen, "cannot capture", perr);
        free(c);
        return NULL;
    }
    if (configure(c->p, cfg, err, errlen) != 0)
        goto fail;
    int rc = pcap_activate(c->p);
    if (rc < 0) {
        const char *detail =
            rc == PCAP_ERROR || rc == PCAP_ERROR_NO_SUCH_DEVICE || rc == PCAP_ERROR_PERM_DENIED
                ? pcap_geterr(c->p)
                : NULL;
        describe(err, errlen, status_text(rc), detail);
        goto fail;
    }
    if (rc > 0)
        describe(warn, warnlen, status_text(rc), rc == PCAP_WARNING ? pcap_geterr(c->p) : NULL);
    if (set_filter(c->p, cfg->filter, err, errlen) != 0) {
        *status = ROCE_LIVECAP_OPEN_BAD_FILTER;
        goto fail;
    }
    if (pcap_setnonblock(c->p, 1, perr) != 0) {
        describe(err, errlen, "cannot make the capture non-blocking", perr);
        goto fail;
    }
    c->fd = pcap_get_selectable_fd(c->p);
    c->nano = pcap_get_tstamp_precision(c->p) == PCAP_TSTAMP_PRECISION_NANO;
    c->linktype = roce_pcap_linktype(pcap_datalink(c->p));
    *status = ROCE_LIVECAP_OPEN_OK;
    return c;
fail:
    pcap_close(c->p);
    free(c);
    return NULL;
}

void roce_livecap_close(struct roce_livecap *c)
{
    if (c == NULL)
        return;
    pcap_close(c->p);
    free(c);
}

int roce_livecap_linktype(const struct roce_livecap *c)
{
    return c->linktype;
}

int roce_livecap_dlt(const struct roce_livecap *c)
{
    return pcap_datalink(c->p);
}

const char *roce_livecap_linktype_name(const struct roce_livecap *c)
{
    return roce_pcap_linktype_name(pcap_datalink(c->p));
}

unsigned roce_livecap_snaplen(const struct roce_livecap *c)
{
    return (unsigned)pcap_snapshot(c->p);
}

int roce_livecap_nano(const struct roce_livecap *c)
{
    return c->nano;
}

int roce_livecap_fd(const struct roce_livecap *c)
{
    return pcap_fileno(c->p);
}

int roce_livecap_wait(struct roce_livecap *c, int64_t timeout_ns, const sigset_t *sigmask)
{
    if (timeout_ns < 0)
        timeout_ns = 0;
    if (c->fd < 0 && timeout_ns > NO_FD_SLEEP_NS)
        timeout_ns = NO_FD_SLEEP_NS;
    struct timespec ts = {(time_t)(timeout_ns / ROCE_NS_PER_SEC), (long)(timeout_ns % ROCE_NS_PER_SEC)};
    struct pollfd pfd = {c->fd, POLLIN, 0};
    int n = ppoll(&pfd, c->fd < 0 ? 0 : 1, &ts, sigmask);
    if (n < 0)
        return errno == EINTR ? -1 : 1; /* other failures: let the read report them */
    return n > 0 || c->fd < 0 ? 1 : 0;
}

/* pcap_handler: one frame to the caller's callback. */
static void on_packet(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
    struct roce_livecap *c = (struct roce_livecap *)user;
    roce_pcap_frame(h, bytes, c->nano, c->linktype, &c->frame);
    c->fn(&c->frame, c->ctx);
}

int roce_livecap_dispatch(struct roce_livecap *c, int max, roce_livecap_fn fn, void *ctx)
{
    c->fn = fn;
    c->ctx = ctx;
    int n = pcap_dispatch(c->p, max, on_packet, (u_char *)c);
    if (n >= 0)
        return n;
    if (n == PCAP_ERROR_BREAK)
        return ROCE_LIVECAP_BREAK;
    if (n == PCAP_ERROR)
        snprintf(c->err, sizeof c->err, "%s", pcap_geterr(c->p));
    else
        snprintf(c->err, sizeof c->err, "read error %d", n);
    return ROCE_LIVECAP_ERROR;
}

const char *roce_livecap_error(const struct roce_livecap *c)
{
    return c->err;
}

void roce_livecap_breakloop(struct roce_livecap *c)
{
    pcap_breakloop(c->p);
}

int roce_livecap_stats(struct roce_livecap *c, struct roce_livecap_stats *s)
{
    struct pcap_stat now;
    if (pcap_stats(c->p, &now) != 0) {
        snprintf(c->err, sizeof c->err, "%s", pcap_geterr(c->p));
        return -1;
    }
    /* the raw counters are unsigned int and wrap: add the differences */
    c->wide.received += (unsigned)(now.ps_recv - c->last.ps_recv);
    c->wide.dropped += (unsigned)(now.ps_drop - c->last.ps_drop);
    c->wide.if_dropped += (unsigned)(now.ps_ifdrop - c->last.ps_ifdrop);
    c->last = now;
    *s = c->wide;
    return 0;
}
