/*
 * live_view.h - the live monitor's human output each interval: on a
 * terminal a view redrawn in place (totals and rates, the flows with
 * trouble in the interval, PFC per priority, capture drops); otherwise a
 * few plain lines appended per interval (analyzer/report/REPORT.md, "The
 * terminal view", "Interval lines").
 */
#ifndef ROCE_LIVE_VIEW_H
#define ROCE_LIVE_VIEW_H

#include <stdio.h>

#include "live_interval.h"

/* Redraw the terminal view. 0, or -1 on a write error. */
int roce_live_view_screen(FILE *out, const struct roce_live_interval *iv);
/* Append the interval as plain lines and flush. 0, or -1 on a write error. */
int roce_live_view_lines(FILE *out, const struct roce_live_interval *iv);

#endif
