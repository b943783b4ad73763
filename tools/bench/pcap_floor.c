/*
 * pcap_floor.c - the libpcap floor for benchmarks: read a capture with
 * pcap_next_ex and count packets and captured bytes, nothing else. Any
 * analyser built on libpcap's offline reader is at most this fast.
 *   pcap_floor FILE    prints "<packets> <bytes>"
 */
#define _DEFAULT_SOURCE
#include <pcap/pcap.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    char err[PCAP_ERRBUF_SIZE];
    struct pcap_pkthdr *h;
    const u_char *d;
    unsigned long long packets = 0, bytes = 0;
    int rc;

    if (argc != 2) {
        fprintf(stderr, "usage: pcap_floor FILE\n");
        return 2;
    }
    pcap_t *p = pcap_open_offline_with_tstamp_precision(argv[1], PCAP_TSTAMP_PRECISION_NANO, err);
    if (p == NULL) {
        fprintf(stderr, "pcap_floor: %s: %s\n", argv[1], err);
        return 1;
    }
    while ((rc = pcap_next_ex(p, &h, &d)) == 1) {
        packets++;
        bytes += h->caplen;
    }
    pcap_close(p);
    printf("%llu %llu\n", packets, bytes);
    return rc == PCAP_ERROR_BREAK ? 0 : 1;
}
