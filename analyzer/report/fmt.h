/*
 * fmt.h - text forms shared by the CLI's writers: addresses as inet_ntop
 * writes them, times, flows.
 */
#ifndef ROCE_FMT_H
#define ROCE_FMT_H

#include <stddef.h>
#include <stdint.h>

#include "roce_engine.h"

#define ROCE_FMT_ADDR_LEN 48
#define ROCE_FMT_TIME_LEN 32
#define ROCE_FMT_FLOW_LEN 128
#define ROCE_FMT_OPCODE_LEN 48
#define ROCE_FMT_US_LEN 32

/* An address of family af (enum roce_af): dotted IPv4 (its last 4 bytes),
 * IPv6 / GID text, or "lid:0x0012". */
void roce_fmt_addr(const uint8_t addr[ROCE_ADDR_LEN], int af, char *buf, size_t len);
/* Seconds with nine decimals from nanoseconds, e.g. "1700000000.000012345" or "-0.5". */
void roce_fmt_seconds(int64_t ns, char *buf, size_t len);
/* "SRC -> DST QP 0x00002c". */
void roce_fmt_flow(const struct roce_flow_key *k, char *buf, size_t len);
/* The identifier of a BTH opcode (e.g. "RC_SEND_ONLY"), or "OP_0xNN" when
 * it has none. */
void roce_fmt_opcode(uint8_t opcode, char *buf, size_t len);
/* Microseconds as a JSON-friendly double (ns / 1000). */
double roce_fmt_us(int64_t ns);
/* Microseconds with three decimals, exact (from integer nanoseconds), e.g.
 * "4.000" or "-0.250", into buf; returns buf. */
const char *roce_fmt_us_text(int64_t ns, char buf[ROCE_FMT_US_LEN]);
/* "s" unless n is 1. */
const char *roce_fmt_plural(uint64_t n);

#endif
