/*
 * test_util.c - the CUnit runner and small helpers shared by the suites
 * (see test_util.h).
 */
#include "test_util.h"

#include <stdio.h>
#include <string.h>

#include <CUnit/Basic.h>

#define CRC32_POLY_REFLECTED 0xEDB88320u
#define RNG_MULT             0x2545F4914F6CDD1Dull
#define RNG_DEFAULT_SEED     0x9E3779B97F4A7C15ull

/* Add the tests of one suite (only `only` when not NULL); returns how many. */
static int add_suite(const struct tu_suite *s, const char *only)
{
    int added = 0;
    CU_pSuite cs = CU_add_suite(s->name, NULL, NULL);
    if (cs == NULL)
        return -1;
    for (const struct tu_test *t = s->tests; t->name != NULL; t++) {
        if (only != NULL && strcmp(only, t->name) != 0)
            continue;
        if (CU_add_test(cs, t->name, t->fn) == NULL)
            return -1;
        added++;
    }
    return added;
}

int tu_main(int argc, char **argv, const struct tu_suite *suites)
{
    const char *only = argc > 1 ? argv[1] : NULL;
    int added = 0;

    if (CU_initialize_registry() != CUE_SUCCESS) {
        fprintf(stderr, "CUnit: %s\n", CU_get_error_msg());
        return 1;
    }
    for (const struct tu_suite *s = suites; s->name != NULL; s++) {
        int n = add_suite(s, only);
        if (n < 0) {
            fprintf(stderr, "CUnit: %s\n", CU_get_error_msg());
            CU_cleanup_registry();
            return 1;
        }
        added += n;
    }
    if (added == 0) {
        fprintf(stderr, "no test named %s\n", only != NULL ? only : "(any)");
        CU_cleanup_registry();
        return 1;
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    /* read the results before CU_cleanup_registry() resets them */
    unsigned failed_asserts = CU_get_number_of_failures();
    unsigned failed_tests = CU_get_number_of_tests_failed();
    unsigned asserts = CU_get_number_of_asserts();
    CU_cleanup_registry();
    printf("\n%d tests, %u assertions, %u failed assertions in %u tests\n", added, asserts,
           failed_asserts, failed_tests);
    return failed_asserts != 0 || failed_tests != 0 ? 1 : 0;
}

int tu_main1(int argc, char **argv, const char *suite, const struct tu_test *tests)
{
    const struct tu_suite suites[] = {{suite, tests}, {NULL, NULL}};
    return tu_main(argc, argv, suites);
}

uint32_t tu_crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int b = 0; b < 8; b++)
            crc = (crc >> 1) ^ ((crc & 1u) ? CRC32_POLY_REFLECTED : 0u);
    }
    return crc;
}

void tu_rng_seed(struct tu_rng *r, uint64_t seed)
{
    r->s = seed != 0 ? seed : RNG_DEFAULT_SEED;
}

uint32_t tu_rng_next(struct tu_rng *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return (uint32_t)((r->s * RNG_MULT) >> 32);
}

uint32_t tu_rng_below(struct tu_rng *r, uint32_t n)
{
    return (uint32_t)(((uint64_t)tu_rng_next(r) * n) >> 32);
}
