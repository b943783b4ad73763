/*
 * roce_cm.h - Communication Manager MADs: connection pairing and starting
 * PSNs (roce_cm.c; not for front ends).
 */
#ifndef ROCE_CM_H
#define ROCE_CM_H

#include <stddef.h>
#include <stdint.h>

struct roce_engine;
struct roce_pkt;

/* A frame that may carry a CM MAD (data: the frame's caplen captured bytes). */
void roce_cm_packet(struct roce_engine *e, const struct roce_pkt *pkt, const uint8_t *data,
                    size_t caplen, uint64_t frame, int64_t ts);

#endif
