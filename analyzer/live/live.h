/*
 * live.h - `rocescope -i IFACE`: the live monitor (rocescope(1), LIVE
 * MONITORING). Captures from the interface into the engine, reports every
 * interval (terminal view, plain lines or JSON Lines, Prometheus file),
 * saves the frames with -w, and on SIGINT/SIGTERM, -c or --duration
 * writes the final report with the writers chosen (writers.h).
 */
#ifndef ROCE_LIVE_H
#define ROCE_LIVE_H

#include <stdint.h>

#include "options.h"
#include "roce_engine.h"

/* What the monitor runs with (the caller's; read only, for the run). */
struct roce_live_config {
    const struct roce_live_options *capture; /* -i and the options of the capture */
    const struct roce_config *cfg;           /* the analysis */
    int64_t interval_ns;                     /* --interval: the reporting interval */
    const struct roce_outputs *out;          /* the writers chosen, -o, --top */
};

/* Run the monitor; returns the exit status: 0 stopped normally; 1 the
 * capture could not be opened or failed (interface missing, down, gone:
 * the report so far is still written when capturing had started); 2 bad
 * filter expression; 3 an output could not be written. */
int roce_live_run(const struct roce_live_config *lc);

#endif
