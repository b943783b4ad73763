/*
 * fuzz_target.h - the libFuzzer entry point every fuzz target defines. The
 * same object files link with libFuzzer (tools/fuzz.sh, clang) or with
 * replay_main.c (ctest, any compiler), which calls it once per input file.
 */
#ifndef FUZZ_TARGET_H
#define FUZZ_TARGET_H

#include <stddef.h>
#include <stdint.h>

/* Run one input; returns 0 (libFuzzer reserves other values). Aborts on a
 * finding; must not leak or keep state that changes later runs' outcomes. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
