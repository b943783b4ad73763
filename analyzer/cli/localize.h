/*
 * localize.h - `rocescope localize [OPTIONS] [NAME=]FILE...`: several
 * captures of the same traffic (vantage points), clock-aligned, every lost
 * request PSN and every CE mark located between two points (rocescope.1,
 * LOCALIZE).
 */
#ifndef ROCE_LOCALIZE_H
#define ROCE_LOCALIZE_H

/* argv[0] is "localize". Returns the exit status: 0 done; 1 an input
 * problem (a file missing or unreadable, no RoCE in it, no traffic in common
 * with the first file, no time in common; a file cut short: the output of
 * what was read is still written); 2 bad usage; 3 the output could not be
 * written. */
int roce_localize_main(int argc, char **argv);

#endif
