/*
 * test_engine.h - the second suite of test_engine: allocation failures
 * (test_engine_alloc.c).
 */
#ifndef TEST_ENGINE_H
#define TEST_ENGINE_H

#include "test_util.h"

extern const struct tu_test engine_alloc_tests[];

#endif
