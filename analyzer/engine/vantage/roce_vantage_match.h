/*
 * roce_vantage_match.h - the matching window of the second reading: records
 * of all points join the transmissions they are sightings of, which are
 * settled (roce_vantage_settle.h) once every source has passed them.
 */
#ifndef ROCE_VANTAGE_MATCH_H
#define ROCE_VANTAGE_MATCH_H

#include <stdint.h>

#include "roce_vantage_int.h"

/* The window's first slots. 0, or -1 when out of memory. */
int roce_vmatch_init(struct roce_vantage *v);
void roce_vmatch_free(struct roce_vantage *v);

/* The source furthest behind in aligned time that has not ended, or -1. */
int roce_vmatch_need(const struct roce_vantage *v);
/* Match a record of a point (after the clocks are known). */
void roce_vmatch_feed(struct roce_vantage *v, unsigned point, const struct roce_vtx *tx);
/* Settle what every source has passed by twice the bound (everything once
 * every source has ended). */
void roce_vmatch_settle_passed(struct roce_vantage *v);

#endif
