/*
 * threads.h - `rocescope -T N FILE...`: the capture analysed by N engines
 * at once, each taking the frames of its connections (roce_shard_key),
 * their verdicts merged in frame order and their reports into one: the
 * report and the events one engine gives (rocescope(1), THREADS).
 */
#ifndef ROCE_THREADS_H
#define ROCE_THREADS_H

#include "events.h"
#include "options.h"
#include "report.h"

/*
 * Analyse o->files with o->threads engines. The split is used when every
 * input is a file that can be read again (not standard input, a pipe or a
 * compressed file) and its result is the one engine's: the frames in time
 * order and no engine-wide bound reached (threads.c says how that is
 * checked). Returns 0 when done: rep filled as run_joint fills it (with
 * --events only its link type), problems printed, events written; -1 when
 * out of memory (message printed); 1 when the split cannot be used or its
 * result could differ: nothing was written, the caller analyses the files
 * with one engine.
 */
int roce_threads_run(const struct roce_cli_options *o, struct roce_events *events,
                     struct roce_report *rep, int *input_problem);

#endif
