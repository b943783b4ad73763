/*
 * live_capture.h - capturing from a network interface (libpcap live).
 *
 * pcap_create / pcap_activate with the monitor's settings: snapshot length,
 * kernel buffer size, immediate mode, promiscuous mode, nanosecond time
 * stamps where the platform has them (microseconds otherwise), a BPF filter.
 * The handle is non-blocking: roce_livecap_wait() sleeps on its selectable
 * descriptor with a timeout, so the caller's interval clock keeps running
 * when no packet arrives, and roce_livecap_dispatch() hands out what the
 * kernel has. Frames are valid only during the callback (libpcap reuses its
 * ring).
 */
#ifndef ROCE_LIVE_CAPTURE_H
#define ROCE_LIVE_CAPTURE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "capture.h"

struct roce_livecap;

struct roce_livecap_config {
    const char *iface;
    const char *filter;  /* BPF expression; NULL or "" captures everything */
    unsigned snaplen;    /* bytes kept per frame */
    unsigned buffer_kib; /* kernel buffer, KiB; 0: libpcap's default */
    int immediate;       /* deliver each packet at once (no buffering) */
    int promisc;         /* promiscuous mode (a mirror port needs it) */
    int timeout_ms;      /* buffer timeout: longest a packet waits in the kernel */
};

enum roce_livecap_open_status {
    ROCE_LIVECAP_OPEN_OK = 0,
    ROCE_LIVECAP_OPEN_FAILED = 1,    /* no such interface, down, permission... */
    ROCE_LIVECAP_OPEN_BAD_FILTER = 2 /* the filter expression does not compile */
};

/* Counters of pcap_stats, widened to 64 bits (libpcap's wrap at 2^32). */
struct roce_livecap_stats {
    uint64_t received;   /* packets that passed the filter */
    uint64_t dropped;    /* dropped by the kernel: the buffer was full */
    uint64_t if_dropped; /* dropped by the interface or its driver */
    uint64_t analysis_dropped; /* the monitor's: frames its analysis queue had no room for */
};

/* Open and activate. On failure returns NULL with *status and the reason
 * in err; on success warnings (e.g. promiscuous mode refused) are put in
 * warn (empty when none). */
struct roce_livecap *roce_livecap_open(const struct roce_livecap_config *cfg,
                                       enum roce_livecap_open_status *status, char *err,
                                       size_t errlen, char *warn, size_t warnlen);
void roce_livecap_close(struct roce_livecap *c);

int roce_livecap_linktype(const struct roce_livecap *c); /* LINKTYPE_ value */
int roce_livecap_dlt(const struct roce_livecap *c);      /* DLT_ value */
const char *roce_livecap_linktype_name(const struct roce_livecap *c);
unsigned roce_livecap_snaplen(const struct roce_livecap *c);
int roce_livecap_nano(const struct roce_livecap *c); /* time stamps in nanoseconds */
/* The capture socket (pcap_fileno): what the system call filter keeps from
 * sending (sandbox.h). */
int roce_livecap_fd(const struct roce_livecap *c);

/* Sleep until packets are ready, an error is pending, timeout_ns passed or
 * a signal not in blocked_outside arrives (ppoll with the caller's mask
 * sigmask, NULL: unchanged). Returns 1 ready, 0 timeout, -1 interrupted. */
int roce_livecap_wait(struct roce_livecap *c, int64_t timeout_ns, const sigset_t *sigmask);

typedef void (*roce_livecap_fn)(const struct roce_capture_frame *f, void *ctx);

enum roce_livecap_read {
    ROCE_LIVECAP_ERROR = -1, /* read error (the interface went away): see roce_livecap_error */
    ROCE_LIVECAP_BREAK = -2  /* roce_livecap_breakloop was called */
};
/* Hand at most max frames (max > 0) that are ready to fn. Returns how many
 * (0: none ready), or an enum roce_livecap_read value. */
int roce_livecap_dispatch(struct roce_livecap *c, int max, roce_livecap_fn fn, void *ctx);
const char *roce_livecap_error(const struct roce_livecap *c);

/* Make the current or next dispatch return ROCE_LIVECAP_BREAK; safe in a
 * signal handler (pcap_breakloop). */
void roce_livecap_breakloop(struct roce_livecap *c);

/* The capture statistics so far. 0, or -1 with the reason in
 * roce_livecap_error (s is then left as it was). */
int roce_livecap_stats(struct roce_livecap *c, struct roce_livecap_stats *s);

#endif
