/*
 * pcapmap.h - fast reader for classic pcap files: maps the file and parses
 * the records in place, without libpcap's copy of every record into its
 * buffer. It only takes files libpcap would read the same way (a sane file
 * header, every record within the header's snapshot length and within the
 * file); capture.c hands anything else to libpcap, so the frames and errors
 * a user sees do not depend on which reader ran.
 */
#ifndef ROCE_PCAPMAP_H
#define ROCE_PCAPMAP_H

#include <stddef.h>

#include "capture.h"

struct roce_pcapmap;

/* Nonzero when the first bytes of a file look like classic pcap. */
int roce_pcapmap_probe(const void *head, size_t len);
/* Map a classic pcap file; NULL (reason in err) when it cannot be mapped or
 * its header is one libpcap treats specially. */
struct roce_pcapmap *roce_pcapmap_open(const char *path, char *err, size_t errlen);
int roce_pcapmap_linktype(const struct roce_pcapmap *m);
/* ROCE_CAPTURE_FRAME, ROCE_CAPTURE_END, or ROCE_CAPTURE_ERROR when the next
 * record is one this reader does not take (see roce_pcapmap_error): the
 * caller then reads the rest with libpcap. */
int roce_pcapmap_next(struct roce_pcapmap *m, struct roce_capture_frame *f);
const char *roce_pcapmap_error(const struct roce_pcapmap *m);
void roce_pcapmap_close(struct roce_pcapmap *m);

#endif
