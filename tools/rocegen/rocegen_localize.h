/*
 * rocegen_localize.h - the multi-point captures of `rocescope localize`:
 * one simulated exchange between hosts A and B, captured by a tap on each
 * host's access link (one file per tap), or by a mirror collector that gets
 * both taps as ERSPAN sessions (one file). captures/README.md
 * ("localize/") describes the exchange and where every loss and mark is.
 *
 *   rocegen localize [--tap-a FILE] [--tap-b FILE] [--mirror FILE] [--truth]
 *
 * --truth prints what the generator knows (the clock offsets it applied and
 * every loss and CE mark with the segment it happened in) as JSON.
 */
#ifndef ROCEGEN_LOCALIZE_H
#define ROCEGEN_LOCALIZE_H

/* argv[0] is "localize". Returns the exit status (0, 1 write error, 2 usage). */
int rg_localize_main(int argc, char **argv);

#endif
