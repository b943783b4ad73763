/*
 * events.h - `rocescope --events`: JSON Lines, one object per frame that
 * carries a verdict, in frame order (analyzer/report/REPORT.md, "Events").
 */
#ifndef ROCE_EVENTS_H
#define ROCE_EVENTS_H

#include <stdio.h>

#include "roce_engine.h"

struct roce_events {
    FILE *out;
    int failed; /* a write failed */
};

/* on_verdict callback: ctx is a struct roce_events. */
void roce_events_write(const struct roce_verdict *v, void *ctx);

#endif
