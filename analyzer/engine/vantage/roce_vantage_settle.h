/*
 * roce_vantage_settle.h - what one transmission of the matching window shows
 * once its window has closed: votes and latencies, a located CE mark, a loss
 * candidate (located at the end: roce_vantage_result.h).
 */
#ifndef ROCE_VANTAGE_SETTLE_H
#define ROCE_VANTAGE_SETTLE_H

#include <stdint.h>

#include "roce_vantage_int.h"

/* Settle the transmission in window slot `slot` (the caller releases it). */
void roce_vsettle(struct roce_vantage *v, uint32_t slot);
/* Free what settling kept: the index of originals, the candidates, the marks. */
void roce_vsettle_free(struct roce_vantage *v);

#endif
