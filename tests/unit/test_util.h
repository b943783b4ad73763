/*
 * test_util.h - what every CUnit suite of the engine shares: the runner
 * (registers the suites, runs them, exits non-zero on any failure), a plain
 * reference CRC-32 and a small deterministic random generator.
 *
 * A suite file defines its tests in a table and calls tu_main():
 *
 *   static const struct tu_test tests[] = {{"name", fn}, ..., TU_END};
 *   int main(int argc, char **argv) { return tu_main1(argc, argv, "psn", tests); }
 *
 * CUnit's CU_basic_run_tests() returns CUE_SUCCESS even when assertions
 * fail, and CU_cleanup_registry() resets the counters (tests/README.md), so the
 * runner reads the failure counts before cleaning up.
 */
#ifndef TEST_UTIL_H
#define TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <CUnit/CUnit.h>

struct tu_test {
    const char *name;
    CU_TestFunc fn;
};
#define TU_END                                                                                     \
    {                                                                                              \
        NULL, NULL                                                                                 \
    }

struct tu_suite {
    const char *name;
    const struct tu_test *tests;
};

/* Run the suites (terminated by {NULL, NULL}); argv[1], when given, runs
 * only the test of that name. Returns the process exit status: 0 when every
 * assertion passed, 1 otherwise (also when a test name matched nothing). */
int tu_main(int argc, char **argv, const struct tu_suite *suites);

/* tu_main() for a file with a single suite. */
int tu_main1(int argc, char **argv, const char *suite, const struct tu_test *tests);

/* Bitwise CRC-32 (reflected, polynomial 0xEDB88320), written from the
 * definition: independent of the engine's table-driven one. crc is the
 * running register (start with 0xFFFFFFFF, complement at the end). */
uint32_t tu_crc32_update(uint32_t crc, const uint8_t *p, size_t n);

/* xorshift64* generator: the same sequence for the same seed. */
struct tu_rng {
    uint64_t s;
};
void tu_rng_seed(struct tu_rng *r, uint64_t seed);
uint32_t tu_rng_next(struct tu_rng *r);
/* Uniform in [0, n), n > 0. */
uint32_t tu_rng_below(struct tu_rng *r, uint32_t n);

#endif
