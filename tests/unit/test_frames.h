/*
 * test_frames.h - real RoCE frames copied byte for byte from the shared
 * captures (../shared/captures/real, dumped with tshark -x), for the suites
 * that check the decoder and the ICRC against hardware and Soft-RoCE.
 * test_frames.c gives each frame's provenance and readable decode.
 */
#ifndef TEST_FRAMES_H
#define TEST_FRAMES_H

#include <stdint.h>

/* RC ACKNOWLEDGE over IPv4 (Soft-RoCE), pingpong_rc.pcap frame 13. */
#define TU_REAL_ACK_LEN        62
#define TU_REAL_ACK_ICRC       0x92881DE6u /* as roce_icrc_compute() gives it */
#define TU_REAL_ACK_ICRC_SHOWN 0xE61D8892u /* as Wireshark shows it (infiniband.invariant.crc) */
extern const uint8_t tu_real_ack[TU_REAL_ACK_LEN];

/* CNP over IPv4 (ConnectX-4 Lx), secdev__scapy__roce_uts_cnp_cx4lx.pcap frame 1. */
#define TU_REAL_CNP_LEN  74
#define TU_REAL_CNP_ICRC 0x2A00FD82u
extern const uint8_t tu_real_cnp[TU_REAL_CNP_LEN];

/* UD SEND Only over IPv6 (real NIC), oferby__rdma__roce.cap frame 100. */
#define TU_REAL_V6_PAYLOAD    1024
#define TU_REAL_V6_HEAD       82 /* Ethernet, IPv6, UDP, BTH, DETH */
#define TU_REAL_V6_LEN        (TU_REAL_V6_HEAD + TU_REAL_V6_PAYLOAD + 4)
#define TU_REAL_V6_ICRC       0x8E97DDF0u
#define TU_REAL_V6_ICRC_SHOWN 0xF0DD978Eu /* infiniband.invariant.crc */
void tu_real_v6_frame(uint8_t f[TU_REAL_V6_LEN]);

#endif
