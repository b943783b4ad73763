/*
 * roce_hosts.c - host NIC MACs and who sent the PFC / PAUSE frames
 * (ANALYSIS.md "Host NIC MACs", "Diagnoses").
 *
 * Every source MAC of a RoCE or MAC Control frame gets an entry (at most
 * ROCE_MACS_MAX): the addresses of the RoCE frames behind it (one, or
 * several), their TTL / hop limit, and the PFC and PAUSE frames it sent.
 * A flow's frames share their MAC and TTL: its first frame is looked at,
 * then one in HOSTS_SAMPLE (checked_frames and unrouted_frames count the
 * frames looked at), so that the per-packet cost is a test.
 * Whether it is a host NIC's is decided when reported (roce_host_mac_role,
 * below), from the whole capture.
 *
 * The source MAC is that of the frame's innermost Ethernet header (inside a
 * mirror encapsulation: the mirrored frame's), or the link-layer address of
 * a Linux cooked capture; raw IP and IP in GRE have none.
 *
 *   Ethernet  | dst(6) | src(6) | type |           src at 6
 *   SLL       | pkttype(2) | hatype(2) | halen(2) | addr(8) | proto(2) |    addr at 6
 *   SLL2      | proto(2) | rsv(2) | ifindex(4) | hatype(2) | pkttype(1) | halen(1) | addr(8) |
 */
#include "roce_hosts.h"

#include <stdlib.h>
#include <string.h>

#include "roce_engine.h"
#include "roce_extract.h"
#include "roce_internal.h"

#define ETH_SRC_OFF       6
#define SLL_HALEN_OFF     4
#define SLL_ADDR_OFF      6
#define SLL_HDR_LEN       16
#define SLL2_HALEN_OFF    11
#define SLL2_ADDR_OFF     12
#define SLL2_HDR_LEN      20
#define IPV4_TTL_OFF      8
#define IPV6_HOPLIMIT_OFF 7 /* also the GRH's */
#define MACS_INITIAL      64u
#define HOSTS_SAMPLE      64u /* a flow's frames looked at: its first, then one in this many */
#define INDEX_INITIAL     128u

int roce_hosts_init(struct roce_engine *e)
{
    return roce_index_init(&e->mac_index, INDEX_INITIAL);
}

void roce_hosts_free(struct roce_engine *e)
{
    roce_index_free(&e->mac_index);
    free(e->macs);
    e->macs = NULL;
    e->n_macs = e->cap_macs = 0;
}

/* The frame's source MAC, or NULL when it has none (captured whole). */
const uint8_t *roce_frame_src_mac(const struct roce_frame_in *in, const struct roce_pkt *pkt)
{
    size_t off;
    if (pkt->encap_depth) {
        if (pkt->inner_type)
            return NULL; /* IP in GRE: the mirrored frame's link layer is gone */
        off = pkt->inner_off + ETH_SRC_OFF;
    } else {
        switch (in->linktype) {
        case ROCE_LINKTYPE_ETHERNET:
            off = ETH_SRC_OFF;
            break;
        case ROCE_LINKTYPE_LINUX_SLL:
            if (in->caplen < SLL_HDR_LEN || roce_get_be16(in->data, SLL_HALEN_OFF) != ROCE_MAC_LEN)
                return NULL;
            off = SLL_ADDR_OFF;
            break;
        case ROCE_LINKTYPE_LINUX_SLL2:
            if (in->caplen < SLL2_HDR_LEN || in->data[SLL2_HALEN_OFF] != ROCE_MAC_LEN)
                return NULL;
            off = SLL2_ADDR_OFF;
            break;
        default:
            return NULL;
        }
    }
    return roce_fits(in->caplen, off, ROCE_MAC_LEN) ? in->data + off : NULL;
}

static int mac_eq(uint32_t val, const void *key, const void *ctx)
{
    const struct roce_engine *e = ctx;
    return memcmp(e->macs[val - 1].mac, key, ROCE_MAC_LEN) == 0;
}

/* The handle of mac's entry, added when new; 0 when the table is full or
 * out of memory (the frame is counted in macs_untracked). */
static uint32_t entry_of(struct roce_engine *e, const uint8_t *mac, uint64_t frame)
{
    uint32_t hash = roce_hash_bytes(mac, ROCE_MAC_LEN);
    uint32_t h = roce_index_find(&e->mac_index, hash, mac_eq, mac, e);
    if (h != 0)
        return h;
    if (e->n_macs == ROCE_MACS_MAX) {
        e->totals.macs_untracked++;
        return 0;
    }
    if (e->n_macs == e->cap_macs) {
        uint32_t cap = e->cap_macs ? e->cap_macs * 2 : MACS_INITIAL;
        struct roce_host_mac *m = realloc(e->macs, (size_t)cap * sizeof *m);
        if (m == NULL) {
            e->alloc_failures++;
            e->totals.macs_untracked++;
            return 0;
        }
        e->macs = m;
        e->cap_macs = cap;
    }
    if (roce_index_insert(&e->mac_index, hash, e->n_macs + 1) != 0) {
        e->alloc_failures++;
        e->totals.macs_untracked++;
        return 0;
    }
    struct roce_host_mac *m = &e->macs[e->n_macs++];
    memset(m, 0, sizeof *m);
    memcpy(m->mac, mac, ROCE_MAC_LEN);
    m->first_frame = frame;
    return e->n_macs;
}

void roce_hosts_roce(struct roce_engine *e, struct roce_flow *f, const struct roce_frame_in *in,
                     const struct roce_pkt *pkt)
{
    /* a flow's MAC and TTL stay the same: its first frame is looked at,
     * then one in HOSTS_SAMPLE (a change is seen within that many) */
    if (f->mac_known && (f->packets & (HOSTS_SAMPLE - 1)) != 0)
        return;
    const uint8_t *mac = roce_frame_src_mac(in, pkt);
    if (mac == NULL)
        return;
    uint32_t h = roce_flow_cold(f)->mac_slot;
    if (h == 0 || memcmp(e->macs[h - 1].mac, mac, ROCE_MAC_LEN) != 0) {
        /* the flow's first frame, or its MAC changed: bind it, note its address */
        if ((h = entry_of(e, mac, in->frame)) == 0)
            return;
        roce_flow_cold(f)->mac_slot = (uint16_t)h;
        f->mac_known = 1;
        struct roce_host_mac *m = &e->macs[h - 1];
        if (m->addresses == 0) {
            m->addresses = 1;
            m->version = pkt->version;
            m->af = pkt->af;
            memcpy(m->addr, pkt->src, ROCE_ADDR_LEN);
            m->addr_frame = in->frame;
            m->ttl_min = UINT8_MAX;
        } else if (m->addresses == 1 && memcmp(m->addr, pkt->src, ROCE_ADDR_LEN) != 0) {
            m->addresses = 2;
        }
    }
    struct roce_host_mac *m = &e->macs[h - 1];
    unsigned ttl =
        in->data[pkt->l3_off + (pkt->af == ROCE_AF_IPV6 ? IPV6_HOPLIMIT_OFF : IPV4_TTL_OFF)];
    m->checked_frames++;
    if (roce_frame_unrouted(ttl, pkt->version, pkt->src))
        m->unrouted_frames++;
    if (ttl < m->ttl_min)
        m->ttl_min = (uint8_t)ttl;
    if (ttl > m->ttl_max)
        m->ttl_max = (uint8_t)ttl;
}

uint32_t roce_hosts_mac_control(struct roce_engine *e, const struct roce_frame_in *in,
                                const struct roce_pkt *pkt)
{
    const uint8_t *mac = roce_frame_src_mac(in, pkt);
    uint32_t h;
    if (mac == NULL || (pkt->mac_ctrl != ROCE_MACCTRL_PFC && pkt->mac_ctrl != ROCE_MACCTRL_PAUSE) ||
        (h = entry_of(e, mac, in->frame)) == 0)
        return 0;
    struct roce_host_mac *m = &e->macs[h - 1];
    if (pkt->mac_ctrl == ROCE_MACCTRL_PFC)
        m->pfc_frames++;
    else
        m->pause_frames++;
    if (m->n_frames < ROCE_EVIDENCE_MAX)
        m->frames[m->n_frames++] = in->frame;
    return h;
}

/* ---- what a MAC is (roce_host_mac.h) ---- */

static const char *const basis_names[ROCE_MAC_BASIS_COUNT] = {
    [ROCE_MAC_UNROUTED] = "unrouted",
    [ROCE_MAC_ROUTED] = "routed",
    [ROCE_MAC_SEVERAL] = "several_addresses",
    [ROCE_MAC_NO_ROCE] = "no_roce",
};

const char *roce_mac_basis_name(unsigned basis)
{
    return basis < ROCE_MAC_BASIS_COUNT ? basis_names[basis] : "unknown";
}

/* The TTLs (hop limits) hosts send with: RoCE NICs use 64 (Linux) or 255
 * (perftest, NCCL), Windows stacks 128; a router decrements it. RoCEv1 is
 * never routed, nor is a link-local source. */
#define LINK_LOCAL_V6_0    0xFEu
#define LINK_LOCAL_V6_1    0x80u
#define LINK_LOCAL_V6_MASK 0xC0u
#define LINK_LOCAL_V4_0    169u
#define LINK_LOCAL_V4_1    254u

int roce_frame_unrouted(unsigned ttl, unsigned version, const uint8_t src[ROCE_ADDR_LEN])
{
    if (version == 1 || ttl == 64 || ttl == 128 || ttl == 255)
        return 1;
    if (roce_addr_is_v4(src)) {
        const uint8_t *v4 = roce_addr_v4(src);
        return v4[0] == LINK_LOCAL_V4_0 && v4[1] == LINK_LOCAL_V4_1;
    }
    return src[0] == LINK_LOCAL_V6_0 && (src[1] & LINK_LOCAL_V6_MASK) == LINK_LOCAL_V6_1;
}

unsigned roce_host_mac_role(const struct roce_host_mac *m)
{
    if (m->addresses == 0)
        return ROCE_MAC_NO_ROCE;
    if (m->addresses > 1)
        return ROCE_MAC_SEVERAL;
    return m->unrouted_frames > 0 ? ROCE_MAC_UNROUTED : ROCE_MAC_ROUTED;
}

void roce_host_mac_merge(struct roce_host_mac *dst, const struct roce_host_mac *src,
                         uint64_t frame_off)
{
    if (src->addresses > 0) {
        if (dst->addresses == 0) {
            dst->addresses = src->addresses;
            dst->version = src->version;
            dst->af = src->af;
            memcpy(dst->addr, src->addr, ROCE_ADDR_LEN);
            dst->addr_frame = src->addr_frame ? src->addr_frame + frame_off : 0;
            dst->ttl_min = src->ttl_min;
            dst->ttl_max = src->ttl_max;
        } else {
            if (src->addresses > 1 || memcmp(dst->addr, src->addr, ROCE_ADDR_LEN) != 0)
                dst->addresses = 2;
            if (src->addr_frame != 0 && src->addr_frame + frame_off < dst->addr_frame) {
                /* src saw its address first (another part of a split analysis) */
                dst->version = src->version;
                dst->af = src->af;
                memcpy(dst->addr, src->addr, ROCE_ADDR_LEN);
                dst->addr_frame = src->addr_frame + frame_off;
            }
            if (src->ttl_min < dst->ttl_min)
                dst->ttl_min = src->ttl_min;
            if (src->ttl_max > dst->ttl_max)
                dst->ttl_max = src->ttl_max;
        }
    }
    if (src->first_frame != 0 &&
        (dst->first_frame == 0 || src->first_frame + frame_off < dst->first_frame))
        dst->first_frame = src->first_frame + frame_off;
    dst->checked_frames += src->checked_frames;
    dst->unrouted_frames += src->unrouted_frames;
    dst->pfc_frames += src->pfc_frames;
    dst->pause_frames += src->pause_frames;
    for (unsigned i = 0; i < src->n_frames && dst->n_frames < ROCE_EVIDENCE_MAX; i++)
        dst->frames[dst->n_frames++] = src->frames[i] + frame_off;
}
