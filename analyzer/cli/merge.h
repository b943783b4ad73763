/*
 * merge.h - `rocescope merge [--json] [-o PATH] [--top N] REPORT.json...`:
 * one report from JSON reports made by `rocescope --json` of captures read
 * one after the other (rocescope(1), MANY FILES).
 */
#ifndef ROCE_MERGE_H
#define ROCE_MERGE_H

/* argv[0] is "merge". Returns the exit status: 0 merged; 1 an input problem:
 * a report that cannot be read, is not a rocescope report, or was made with
 * other analysis options than the first (nothing is written), or a report
 * that is itself incomplete (the merged report is written, incomplete);
 * 2 bad usage; 3 the output could not be written. */
int roce_merge_main(int argc, char **argv);

#endif
