/*
 * rocegen_spread.h - the pause-spreading captures of `rocescope localize`:
 * three taps on three links, a PFC pause moving upstream across them
 * (upstream) or going round them (cycle). captures/README.md ("localize/").
 */
#ifndef ROCEGEN_SPREAD_H
#define ROCEGEN_SPREAD_H

/* Write each tap's file out[0..2] (NULL: not written); the exit status. */
int rg_spread_write(int is_cycle, const char *const out[3]);

#endif
