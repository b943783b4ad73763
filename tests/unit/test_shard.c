/*
 * test_shard.c - which part of a split analysis a frame goes to
 * (roce_split.h: roce_shard_key, roce_pair_key, roce_shard_class).
 *
 * The key is read at fixed offsets for the common frame and through the
 * decoder for the others; both must give the key of the addresses the
 * decoder gives (those of the frame's flow), the same in both directions,
 * because the engine keeps its recent requests by the class of that key and
 * a part must take every frame of its classes. The classes must also spread
 * the address pairs of a fabric, or the parts of a split get unequal work.
 */
#include <stdint.h>
#include <string.h>

#include "roce_split.h"
#include "rocegen_build.h"
#include "test_util.h"

struct built {
    uint8_t frame[RG_MAX_FRAME];
    struct roce_frame_in in;
};

static void build(const struct rg_spec *s, struct built *b)
{
    int n = rg_build(s, b->frame, sizeof b->frame, NULL);
    CU_ASSERT_FATAL(n > 0);
    b->in = (struct roce_frame_in){1, 0, s->linktype, b->frame, (uint32_t)n, (uint32_t)n};
}

/* The key of s's frame and of the frame back, against the decoder's
 * addresses. */
static void check_spec(struct rg_spec *s)
{
    struct roce_config cfg;
    roce_config_default(&cfg);
    const struct roce_decode_cfg dcfg = {cfg.udp_port, cfg.vxlan_port, 0};
    struct built there, back;
    struct roce_pkt pkt;
    build(s, &there);
    CU_ASSERT_EQUAL_FATAL(roce_decode(&dcfg, s->linktype, there.frame, there.in.caplen,
                                      there.in.wirelen, &pkt),
                          0);
    CU_ASSERT_EQUAL_FATAL(pkt.cls, ROCE_CLASS_ROCE);
    uint32_t key = roce_shard_key(&cfg, &there.in);
    CU_ASSERT_NOT_EQUAL(key, 0);
    CU_ASSERT_EQUAL(key, roce_pair_key(pkt.src, pkt.dst));
    CU_ASSERT_EQUAL(key, roce_pair_key(pkt.dst, pkt.src));
    uint8_t a[RG_ADDR_LEN];
    memcpy(a, s->src, sizeof a);
    memcpy(s->src, s->dst, sizeof a);
    memcpy(s->dst, a, sizeof a);
    build(s, &back);
    CU_ASSERT_EQUAL(roce_shard_key(&cfg, &back.in), key);
}

/* Ethernet with 0, 1 and 2 tags, IPv4 with and without options, IPv6
 * (fixed offsets); RoCEv1 and raw IP (the decoder). */
static void test_fast_and_decoded(void)
{
    static const uint8_t v6a[RG_ADDR_LEN] = {0xfe, 0x80, [8] = 0x02, [15] = 0x01};
    static const uint8_t v6b[RG_ADDR_LEN] = {0x20, 0x01, 0x0d, 0xb8, [14] = 0x12, [15] = 0x34};
    struct rg_spec s;
    for (unsigned variant = 0; variant < 7; variant++) {
        rg_spec_init(&s);
        rg_addr_v4(s.src, 0x0A000101u);
        rg_addr_v4(s.dst, 0xC0A80002u);
        switch (variant) {
        case 1:
            s.n_vlans = 1;
            s.vlan[0] = (struct rg_vlan){RG_TPID_8021Q, 3, 0, 100};
            break;
        case 2:
            s.n_vlans = 2;
            s.vlan[0] = (struct rg_vlan){RG_TPID_8021AD, 0, 0, 10};
            s.vlan[1] = (struct rg_vlan){RG_TPID_8021Q, 3, 0, 100};
            break;
        case 3:
            s.ip_opts_len = 4;
            s.ip_opts[0] = 1; /* NOP */
            s.ip_opts[1] = 1;
            s.ip_opts[2] = 1;
            s.ip_opts[3] = 0; /* end */
            break;
        case 4:
            s.ip_version = 6;
            rg_addr_v6(s.src, v6a);
            rg_addr_v6(s.dst, v6b);
            break;
        case 5:
            s.kind = RG_KIND_ROCEV1;
            rg_addr_v6(s.src, v6a);
            rg_addr_v6(s.dst, v6b);
            break;
        case 6:
            s.linktype = RG_LINKTYPE_RAW;
            break;
        default:
            break;
        }
        check_spec(&s);
    }
}

/* Frames without a RoCE packet get 0: UDP to another port, ARP. */
static void test_not_roce(void)
{
    struct roce_config cfg;
    roce_config_default(&cfg);
    struct rg_spec s;
    struct built b;
    rg_spec_init(&s);
    s.kind = RG_KIND_UDP;
    s.udp_dport = 4792;
    build(&s, &b);
    CU_ASSERT_EQUAL(roce_shard_key(&cfg, &b.in), 0);
    rg_spec_init(&s);
    s.kind = RG_KIND_ARP;
    build(&s, &b);
    CU_ASSERT_EQUAL(roce_shard_key(&cfg, &b.in), 0);
}

/* Host pairs numbered as fabrics number them (10.0.0.i <-> 10.0.1.i, whose
 * addresses differ in one byte) spread over the classes: the low bits of
 * the key did not (16 such pairs fell into 2 classes). */
static void test_classes_spread(void)
{
    unsigned count[ROCE_SHARD_CLASSES] = {0}, used = 0, most = 0;
    enum { PAIRS = 16 * ROCE_SHARD_CLASSES };
    for (uint32_t i = 1; i <= PAIRS; i++) {
        uint8_t a[ROCE_ADDR_LEN], b[ROCE_ADDR_LEN];
        rg_addr_v4(a, 0x0A000000u + i);
        rg_addr_v4(b, 0x0A010000u + i);
        unsigned c = roce_shard_class(roce_pair_key(a, b));
        CU_ASSERT_FATAL(c < ROCE_SHARD_CLASSES);
        used += count[c]++ == 0;
        if (count[c] > most)
            most = count[c];
    }
    CU_ASSERT_EQUAL(used, ROCE_SHARD_CLASSES);
    CU_ASSERT(most < 2 * PAIRS / ROCE_SHARD_CLASSES); /* below twice the average */
    /* the first 16 pairs, the bench's: most classes, both halves of a 2-part split */
    unsigned first[ROCE_SHARD_CLASSES] = {0}, classes = 0, part0 = 0;
    for (uint32_t i = 1; i <= 16; i++) {
        uint8_t a[ROCE_ADDR_LEN], b[ROCE_ADDR_LEN];
        rg_addr_v4(a, 0x0A000000u + i);
        rg_addr_v4(b, 0x0A000100u + i);
        unsigned c = roce_shard_class(roce_pair_key(a, b));
        classes += first[c]++ == 0;
        part0 += roce_shard_part(c, 2) == 0;
    }
    CU_ASSERT(classes >= 6);
    CU_ASSERT(part0 >= 4 && part0 <= 12);
}

static const struct tu_test tests[] = {
    {"fast_and_decoded", test_fast_and_decoded},
    {"not_roce", test_not_roce},
    {"classes_spread", test_classes_spread},
    TU_END,
};

int main(int argc, char **argv)
{
    return tu_main1(argc, argv, "shard", tests);
}
