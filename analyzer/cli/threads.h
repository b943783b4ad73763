/*
 * threads.h - `rocescope -T N FILE...`: the capture analysed by N engines
 * at once, each taking the frames of its connections (roce_split.h),
 * their verdicts merged in frame order and their reports into one: the
 * report and the events one engine gives (rocescope(1), THREADS).
 */
#ifndef ROCE_THREADS_H
#define ROCE_THREADS_H

#include "cli_options.h"
#include "report.h"
#include "writers.h"

/*
 * Analyse o->files with o->threads engines. The split is used when every
 * input is a file that can be read again (not standard input, a pipe or a
 * compressed file), no writer of ws needs every frame (the HTML report's
 * series), and its result is the one engine's: the frames in time order
 * and no engine-wide bound reached (roce_split_exact). Returns 0 when done:
 * rep filled as run_joint fills it (when no writer needs the report, only
 * its link type), problems printed, the verdicts handed to the writers that
 * take them; -1 when out of memory (message printed); 1 when the split
 * cannot be used or its result could differ: nothing was written, the
 * caller analyses the files with one engine.
 */
int roce_threads_run(const struct roce_cli_options *o, struct roce_writers *ws,
                     struct roce_report *rep, int *input_problem);

#endif
