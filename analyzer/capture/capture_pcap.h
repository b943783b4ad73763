/*
 * capture_pcap.h - what the file reader (capture_pcap.c, the probe table's
 * libpcap row) and the live reader (live_capture.c) share over libpcap: the
 * link type as the engine wants it, and a libpcap record turned into a
 * frame. Internal to analyzer/.
 */
#ifndef ROCE_CAPTURE_PCAP_H
#define ROCE_CAPTURE_PCAP_H

#include <pcap/pcap.h>

#include "capture.h"

/* The LINKTYPE_ value of a DLT_ value (pcap_datalink gives DLT_ values;
 * they differ for raw IP). */
int roce_pcap_linktype(int dlt);
/* Name of a DLT_ value as libpcap knows it (e.g. "EN10MB"), never NULL. */
const char *roce_pcap_linktype_name(int dlt);
/* Fill f from a libpcap record of link type linktype; nano: the handle
 * gives nanoseconds in tv_usec (else microseconds). f->data points into
 * libpcap's buffer: valid until the next read. */
void roce_pcap_frame(const struct pcap_pkthdr *h, const u_char *d, int nano, int linktype,
                     struct roce_capture_frame *f);

#endif
