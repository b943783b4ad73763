/*
 * roce_cnpdst.h - the latest CNP sent to each destination address, for the
 * CNP pacing per destination (roce_cnpdst.c; not for front ends;
 * ANALYSIS.md "CNP pacing").
 */
#ifndef ROCE_CNPDST_H
#define ROCE_CNPDST_H

#include <stdint.h>

#include "roce_addr.h"

struct roce_engine;

/* Destinations kept at once: sets x ways (the destination of a full set
 * that got a CNP least recently leaves, counted in cnp_dsts_evicted). */
#define ROCE_CNPDST_SETS 256
#define ROCE_CNPDST_WAYS 4

/* Allocated at the first CNP (NULL before); freed by roce_cnpdst_free. */
struct roce_cnpdst;

/* A CNP to dst (of RoCE version version) at ts: the time since the
 * previous CNP to dst from any source, or -1 when there was none (or it
 * was not kept). */
int64_t roce_cnpdst_gap(struct roce_engine *e, const uint8_t dst[ROCE_ADDR_LEN], uint8_t version,
                        int64_t ts);
void roce_cnpdst_free(struct roce_engine *e);

/* For roce_split_exact: whether e keeps dst, and how many destinations it
 * keeps in set s (0 <= s < ROCE_CNPDST_SETS). */
int roce_cnpdst_has(const struct roce_engine *e, const uint8_t dst[ROCE_ADDR_LEN], uint8_t version);
unsigned roce_cnpdst_set_use(const struct roce_engine *e, unsigned s);
/* Call fn for every destination e keeps. */
void roce_cnpdst_each(const struct roce_engine *e,
                      void (*fn)(const uint8_t dst[ROCE_ADDR_LEN], uint8_t version, void *ctx),
                      void *ctx);

#endif
