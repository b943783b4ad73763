/*
 * roce_vantage_result.h - the end of a vantage-point analysis: each flow's
 * points in order, the loss candidates located, segments summed, flows,
 * losses and CE marks sorted (read through roce_vantage.h's accessors).
 */
#ifndef ROCE_VANTAGE_RESULT_H
#define ROCE_VANTAGE_RESULT_H

#include "roce_vantage_int.h"

/* Once every transmission is settled. 0, or -1 when out of memory. */
int roce_vresults(struct roce_vantage *v);
void roce_vresults_free(struct roce_vantage *v);

#endif
