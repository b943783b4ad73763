/*
 * live_steps.c - the live monitor's analysis thread without the capture:
 * the frames of a capture through the engine, and the interval's work
 * (roce_live_tracker_step) every K frames, with the processor time of each
 * (bench_live_scale.py). What the issue of a large flow table was about:
 * the interval's cost against the table's size.
 *
 *   live_steps FILE MAX_FLOWS K
 *
 * Prints the frames, the flows tracked at the end, the processor time and
 * frames per second over all, the intervals' total and largest time, and
 * the final interval's (which always computes the diagnoses).
 */
#define _GNU_SOURCE
#include <pcap/pcap.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "live_interval.h"
#include "roce_engine.h"
#include "roce_linktype.h"

#define NS_PER_SEC 1000000000LL
#define NS_PER_US  1000LL
#define LIST_TOP   10

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* One interval closed: its processor time. */
static double step(struct roce_live_tracker *t, struct roce_engine *e, int final)
{
    static const struct roce_livecap_stats cap;
    struct roce_live_interval iv;
    double start = cpu_s();
    memset(&iv, 0, sizeof iv);
    iv.final = final;
    roce_live_tracker_step(t, e, &cap, &iv);
    return cpu_s() - start;
}

int main(int argc, char **argv)
{
    char eb[PCAP_ERRBUF_SIZE];
    struct roce_config cfg;
    if (argc != 4) {
        fprintf(stderr, "usage: live_steps FILE MAX_FLOWS K\n");
        return 2;
    }
    pcap_t *p = pcap_open_offline_with_tstamp_precision(argv[1], PCAP_TSTAMP_PRECISION_NANO, eb);
    if (p == NULL) {
        fprintf(stderr, "live_steps: %s\n", eb);
        return 1;
    }
    roce_config_default(&cfg);
    cfg.max_flows = (uint32_t)strtoul(argv[2], NULL, 10);
    unsigned long k = strtoul(argv[3], NULL, 10);
    struct roce_engine *e = roce_engine_new(&cfg);
    struct roce_live_tracker *t = roce_live_tracker_new(LIST_TOP, 0);
    if (e == NULL || t == NULL || k == 0) {
        fprintf(stderr, "live_steps: bad arguments or out of memory\n");
        return 1;
    }
    step(t, e, 0); /* as the monitor does before capturing */
    struct pcap_pkthdr *h;
    const u_char *d;
    uint64_t n = 0;
    unsigned steps = 0;
    double start = cpu_s(), in_steps = 0, largest = 0;
    while (pcap_next_ex(p, &h, &d) == 1) {
        struct roce_frame_in in = {++n,
                                   (int64_t)h->ts.tv_sec * NS_PER_SEC + h->ts.tv_usec,
                                   ROCE_LINKTYPE_ETHERNET,
                                   d,
                                   h->caplen,
                                   h->len};
        roce_engine_frame(e, &in, NULL);
        if (n % k == 0) {
            double s = step(t, e, 0);
            in_steps += s;
            largest = s > largest ? s : largest;
            steps++;
        }
    }
    double all = cpu_s() - start;
    roce_engine_finish(e);
    double final = step(t, e, 1);
    printf("%llu frames, %zu flows: %.2f s, %.0f frames/s; %u intervals %.2f s (largest %.3f s); "
           "final interval %.2f s\n",
           (unsigned long long)n, roce_engine_flow_count(e), all, (double)n / all, steps, in_steps,
           largest, final);
    roce_live_tracker_free(t);
    roce_engine_free(e);
    pcap_close(p);
    return 0;
}
