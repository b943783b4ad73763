/*
 * fuzz_format.h - the input format of the engine fuzz target (fuzz_engine.c),
 * shared with the seed writer (seed_engine.c) that turns captures into it.
 *
 * An input is a small header that picks the link type and the engine
 * configuration, then a sequence of frame records. Everything is read
 * leniently: a short header is padded with zero bytes, a record cut short
 * becomes a frame of the bytes that remain. All multi-byte fields are
 * little-endian.
 *
 *   header (5 bytes)
 *   +--------+--------+--------+--------+--------+
 *   | link   | flags  | flows  | bounds | pfc    |
 *   +--------+--------+--------+--------+--------+
 *     link   index into the link type table below (modulo its size)
 *     flags  bit 0 ICRC checks off, bit 1 VXLAN off, bit 2 RoCEv2 on the
 *            alternative UDP port, bits 5:3 PMTU index, bits 7:6 CNP window
 *     flows  max_flows = FZ_FLOWS_MIN + flows % FZ_FLOWS_SPAN  (4..64)
 *     bounds max_open_verdicts = 1 + (bounds & 0x0F),
 *            max_episodes = 1 + (bounds >> 4)
 *     pfc    bits 1:0 link speed index, bits 3:2 PFC storm window index,
 *            bits 7:4 storm share = 7 % per step (values above 100 %
 *            are invalid on purpose)
 *
 *   record (6-byte head, then caplen bytes of frame)
 *   +--------+--------+--------+--------+--------+--------+----------
 *   | time   | ctl    | caplen (le16)   | wire extra (le16)| frame...
 *   +--------+--------+--------+--------+--------+--------+----------
 *     time   bits 5:0 a magnitude, bits 7:6 its unit: ns, us, ms, or
 *            microseconds backwards (captures are not always in order)
 *     ctl    bit 0 finish (flush) the engine before this frame, bit 1 take
 *            a report snapshot after it, bit 2 retire the flows idle for
 *            longer than the time magnitude in microseconds after it,
 *            bit 3 put the clock at an extreme before the time step:
 *            INT64_MAX (magnitude odd) or INT64_MIN (even), as a hostile
 *            capture's timestamps can be; steps then saturate
 *     wire extra  wirelen = caplen + extra; FZ_WIRE_MAX gives wirelen
 *            UINT32_MAX (an impossible original length)
 */
#ifndef FUZZ_FORMAT_H
#define FUZZ_FORMAT_H

#include <stdint.h>

#define FZ_HEADER_LEN 5
#define FZ_RECORD_LEN 6

/* header byte 0: link types, LINKTYPE_* values; 147 is unsupported, 247
 * (InfiniBand) came later */
#define FZ_LINKTYPES                                                                               \
    {                                                                                              \
        1, 101, 12, 14, 113, 276, 228, 229, 147, 247                                               \
    }
#define FZ_N_LINKTYPES 10

/* header byte 1 */
#define FZ_F_NO_ICRC      0x01u
#define FZ_F_NO_VXLAN     0x02u
#define FZ_F_ALT_PORT     0x04u
#define FZ_F_PMTU_SHIFT   3
#define FZ_F_PMTU_MASK    0x07u
#define FZ_F_WINDOW_SHIFT 6
#define FZ_F_WINDOW_MASK  0x03u
#define FZ_ALT_UDP_PORT   4792u
/* PMTU by index: 0 = learn it; indices 6 and 7 are invalid values on purpose */
#define FZ_PMTUS                                                                                   \
    {                                                                                              \
        0, 256, 512, 1024, 2048, 4096, 1000, 0xFFFFFFFFu                                           \
    }
/* CNP window by index, ns: none, 1 us, the default 100 us, 10 ms */
#define FZ_WINDOWS                                                                                 \
    {                                                                                              \
        0, 1000, 100000, 10000000                                                                  \
    }

/* header bytes 2 and 3 */
#define FZ_FLOWS_MIN      4u
#define FZ_FLOWS_SPAN     61u
#define FZ_BOUND_MASK     0x0Fu
#define FZ_EPISODES_SHIFT 4

/* header byte 4 */
#define FZ_P_SPEED_MASK   0x03u
#define FZ_P_WINDOW_SHIFT 2
#define FZ_P_WINDOW_MASK  0x03u
#define FZ_P_SHARE_SHIFT  4
#define FZ_P_SHARE_STEP   7u
/* link speeds by index, Mb/s: the default 100G, 10M (long pauses), 1G, 400G */
#define FZ_SPEEDS                                                                                  \
    {                                                                                              \
        100000, 10, 1000, 400000                                                                   \
    }
/* PFC storm windows by index, ns: the default 1 s, 1 ns, 1 us, 1 ms (a pause
 * covers up to billions of 1 ns windows: the engine must count whole
 * windows in one step) */
#define FZ_PFC_WINDOWS                                                                             \
    {                                                                                              \
        1000000000, 1, 1000, 1000000                                                               \
    }

/* record byte 0 */
#define FZ_T_MAG_MASK   0x3Fu
#define FZ_T_UNIT_SHIFT 6
enum fz_time_unit { FZ_T_NS = 0, FZ_T_US = 1, FZ_T_MS = 2, FZ_T_US_BACK = 3 };

/* record byte 1 */
#define FZ_C_FINISH  0x01u
#define FZ_C_REPORT  0x02u
#define FZ_C_RETIRE  0x04u
#define FZ_C_EXTREME 0x08u

/* record bytes 4..5 */
#define FZ_WIRE_MAX 0xFFFFu

#endif
