/*
 * parallel.h - `rocescope -j N FILE...`: each file analysed by its own
 * engine, N files at a time in worker threads, and the per-file reports
 * merged in file order into one (rocescope(1), MANY FILES).
 */
#ifndef ROCE_PARALLEL_H
#define ROCE_PARALLEL_H

#include "cli_options.h"
#include "report.h"
#include "writers.h"

/*
 * Analyse o->files with o->jobs threads and merge their reports into rep
 * (initialised here; it owns all it holds). The problems with files are
 * printed on stderr in file order, as a plain run prints them; *input_problem
 * is set when there was one. The writers of ws get what they take as a
 * plain run gives it: the verdicts of a writer without a state per file
 * (--events) replayed in frame order, with the frame numbers and flow ids a
 * plain run gives; the state of one that keeps one per file (the HTML
 * report's series) collected per file and merged (roce_writers_absorb).
 * Memory: at most 2 x jobs files are analysed but not merged yet. Returns 0,
 * or -1 when out of memory or no thread could be started (message printed;
 * rep is then empty).
 */
int roce_parallel_run(const struct roce_cli_options *o, struct roce_writers *ws,
                      struct roce_report *rep, int *input_problem);

#endif
