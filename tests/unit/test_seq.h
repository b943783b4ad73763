/*
 * test_seq.h - the second suite of test_seq: RDMA READ spans
 * (test_seq_read.c).
 */
#ifndef TEST_SEQ_H
#define TEST_SEQ_H

#include "test_util.h"

extern const struct tu_test seq_read_tests[];

#endif
