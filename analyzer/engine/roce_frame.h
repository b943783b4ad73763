/*
 * roce_frame.h - the frame a front end hands the engine (roce_engine_frame,
 * roce_engine.h), and the split's key reads (roce_shard.h).
 */
#ifndef ROCE_FRAME_H
#define ROCE_FRAME_H

#include <stdint.h>

/* Input frame: bytes are only read during the call. The frame number is a
 * label: the engine only compares it for equality and hands it back in
 * verdicts and reports (front ends number frames from 1, as Wireshark). */
struct roce_frame_in {
    uint64_t frame; /* frame number, from 1 */
    int64_t ts_ns;  /* capture time, ns since the epoch (clamped to [0, 2^62]) */
    int linktype;   /* enum roce_linktype */
    const uint8_t *data;
    uint32_t caplen;
    uint32_t wirelen;
};

#endif
