/*
 * test_decode.h - helpers shared by the two files of the decode suite:
 * test_decode.c (link layers, IP, classification, malformed, cuts) and
 * test_decode_bth.c (BTH and extension headers, written out by hand).
 */
#ifndef TEST_DECODE_H
#define TEST_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "roce_decode.h"
#include "rocegen_build.h"
#include "test_util.h"

#define ETH_LEN  14
#define V2_HEAD  42 /* Ethernet + IPv4 + UDP */
#define BTH_LEN  12
#define MAX_HDRS 11

/* Decoder settings of the suite: port 4791, ICRC checked. */
extern const struct roce_decode_cfg td_cfg;

/* Decode with td_cfg; fails the test fatally when the link type is refused. */
void td_dec(int linktype, const uint8_t *p, size_t caplen, size_t wirelen, struct roce_pkt *pkt);
/* Build s into buf (RG_MAX_FRAME bytes); fails the test fatally on error. */
size_t td_build(const struct rg_spec *s, uint8_t *buf, struct rg_layout *lay);
void td_put_be16(uint8_t *p, size_t v);
/* Nonzero when the fields of header h (one roce_hdr bit) are equal in a and b. */
int td_same_hdr_fields(const struct roce_pkt *a, const struct roce_pkt *b, unsigned h);
/* Decode f cut to every caplen 0..len (see test_decode.c). */
void td_check_every_cut(int linktype, const uint8_t *f, size_t len, size_t roce_from);

extern const struct tu_test decode_bth_tests[];

#endif
