/*
 * sendpkts.c - send the frames of a classic pcap file on an interface as
 * fast as the kernel takes them, or at a given rate: a replayer for the
 * live monitor's benchmark (tools/bench/bench_live.py) faster than tcpreplay.
 *
 *   sendpkts IFACE FILE.pcap [PPS [LOOPS]]
 *
 * The frames are read into memory once, then sent with sendmmsg() on an
 * AF_PACKET socket (PACKET_QDISC_BYPASS) in batches of 64 (PPS 0: no pacing; else the batches are
 * paced on CLOCK_MONOTONIC), LOOPS times over (default 1). Prints
 * "sent N frames in S s (R frames/s)". Needs CAP_NET_RAW.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BATCH    64
#define REC_HDR  16
#define FILE_HDR 24

struct frame {
    const uint8_t *data;
    uint32_t len;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The frames of a little-endian classic pcap file held in buf. */
static struct frame *frames_of(const uint8_t *buf, size_t size, size_t *n)
{
    size_t cap = 1024, off = FILE_HDR;
    struct frame *f = malloc(cap * sizeof *f);
    *n = 0;
    while (f != NULL && off + REC_HDR <= size) {
        uint32_t incl;
        memcpy(&incl, buf + off + 8, sizeof incl);
        if (incl > size - off - REC_HDR)
            break;
        if (*n == cap) {
            struct frame *g = realloc(f, (cap *= 2) * sizeof *f);
            if (g == NULL) {
                free(f);
                return NULL;
            }
            f = g;
        }
        f[(*n)++] = (struct frame){buf + off + REC_HDR, incl};
        off += REC_HDR + incl;
    }
    return f;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: sendpkts IFACE FILE.pcap [PPS [LOOPS]]\n");
        return 2;
    }
    double pps = argc > 3 ? atof(argv[3]) : 0;
    long loops = argc > 4 ? atol(argv[4]) : 1;
    FILE *fp = fopen(argv[2], "rb");
    if (fp == NULL) {
        perror(argv[2]);
        return 1;
    }
    fseek(fp, 0, SEEK_END);
    long size = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    uint8_t *buf = malloc(size > 0 ? (size_t)size : 1);
    if (buf == NULL || fread(buf, 1, (size_t)size, fp) != (size_t)size) {
        fprintf(stderr, "sendpkts: cannot read %s\n", argv[2]);
        return 1;
    }
    fclose(fp);
    size_t n;
    struct frame *fr = frames_of(buf, (size_t)size, &n);
    if (fr == NULL || n == 0) {
        fprintf(stderr, "sendpkts: no frames in %s\n", argv[2]);
        return 1;
    }
    int s = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
    if (s < 0) {
        perror("socket");
        return 1;
    }
    int one = 1; /* straight to the driver: the qdisc layer costs more than the veth */
    setsockopt(s, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof one);
    struct sockaddr_ll to;
    memset(&to, 0, sizeof to);
    to.sll_family = AF_PACKET;
    to.sll_ifindex = (int)if_nametoindex(argv[1]);
    to.sll_halen = ETH_ALEN;
    if (to.sll_ifindex == 0) {
        perror(argv[1]);
        return 1;
    }
    struct mmsghdr msgs[BATCH];
    struct iovec iov[BATCH];
    uint64_t sent = 0, total = (uint64_t)n * (uint64_t)loops;
    double t0 = now_s();
    for (uint64_t i = 0; i < total;) {
        unsigned k = 0;
        for (; k < BATCH && i + k < total; k++) {
            const struct frame *f = &fr[(i + k) % n];
            iov[k] = (struct iovec){(void *)f->data, f->len};
            memset(&msgs[k], 0, sizeof msgs[k]);
            msgs[k].msg_hdr.msg_name = &to;
            msgs[k].msg_hdr.msg_namelen = sizeof to;
            msgs[k].msg_hdr.msg_iov = &iov[k];
            msgs[k].msg_hdr.msg_iovlen = 1;
        }
        if (pps > 0) {
            double due = t0 + (double)i / pps;
            while (now_s() < due)
                ;
        }
        int r = sendmmsg(s, msgs, k, 0);
        if (r < 0) {
            if (errno == ENOBUFS || errno == EAGAIN || errno == EINTR)
                continue;
            perror("sendmmsg");
            return 1;
        }
        i += (unsigned)r;
        sent += (unsigned)r;
    }
    double dt = now_s() - t0;
    printf("sent %llu frames in %.3f s (%.0f frames/s)\n", (unsigned long long)sent, dt,
           dt > 0 ? (double)sent / dt : 0.0);
    close(s);
    free(fr);
    free(buf);
    return 0;
}
