/*
 * roce_cm.c - InfiniBand Communication Manager MADs on QP1.
 *
 * IBTA Vol. 1 13.4 (MAD header), 12.6 (CM messages). CM MADs travel as UD
 * SEND Only to QP1 with a DETH; the 256-byte MAD follows:
 *
 *   MAD header (24): BaseVersion(1)=1 MgmtClass(1)=0x07 ClassVersion(1)
 *                    Method(1) Status(2) ClassSpecific(2) TransactionID(8)
 *                    AttributeID(2) Reserved(2) AttributeModifier(4)
 *   REQ (0x0010): LocalCommID@0 ... LocalQPN(24)@32 ... StartingPSN(24)@44
 *                 ... PathMTU(4 high bits)@50
 *   REP (0x0013): LocalCommID@0 RemoteCommID@4 LocalQKey@8 LocalQPN(24)@12
 *                 ... StartingPSN(24)@20
 *
 * The REQ's starting PSN is what the active side expects to receive (the
 * passive side's first request PSN), the REP's what the passive side expects
 * (the active side's first request PSN): checked on the real Linux captures
 * (linlinw5 rping, montybeatnik). A REP that answers a captured REQ pairs the
 * two flows of the connection and starts their PSN history afresh; when a
 * key of the connection belongs to an earlier one (a QP number reused), the
 * connection gets new flow records and the earlier ones stay as they were.
 */
#include "roce_cm.h"

#include <string.h>

#include "roce_extract.h"
#include "roce_internal.h"
#include "roce_seq.h"

#define CM_QPN              1u
#define MAD_HDR_LEN         24
#define MAD_BASE_VERSION    1u
#define MAD_CLASS_CM        0x07u
#define MAD_CLASS_OFF       1
#define MAD_ATTR_ID_OFF     16
#define CM_ATTR_REQ         0x0010u
#define CM_ATTR_REP         0x0013u
#define REQ_LOCAL_COMM_OFF  0
#define REQ_LOCAL_QPN_OFF   32
#define REQ_START_PSN_OFF   44
#define REQ_PMTU_OFF        50
#define REQ_PMTU_SHIFT      4
#define REQ_LEN             51
#define REP_REMOTE_COMM_OFF 4
#define REP_LOCAL_QPN_OFF   12
#define REP_START_PSN_OFF   20
#define REP_LEN             23
#define IB_MTU_256_CODE     1u
#define IB_MTU_4096_CODE    5u
#define IB_MTU_256          256u

/* Nonzero when the flow of a key belongs to an earlier connection: it
 * carried packets, or it is paired with another flow than other (the
 * flow of the connection's other key, NULL when there is none yet). */
static int cm_earlier(const struct roce_engine *e, const struct roce_flow *f,
                      const struct roce_flow *other)
{
    return f != NULL && (f->packets || (f->peer && roce_flow_peer(&e->flows, f) != other));
}

/* The flow CM sets up for key: a new record when the connection reuses a
 * key of an earlier one (reuse), which closes the earlier record (what
 * waits on its requests' NAKs is settled: no resend can come on it now). */
static struct roce_flow *cm_flow(struct roce_engine *e, const struct roce_flow_key *key, int reuse,
                                 uint64_t frame, int64_t ts)
{
    struct roce_flow *f = roce_flow_find(&e->flows, key, 0);
    if (f == NULL || !reuse)
        return roce_flow_get(&e->flows, key, frame, ts);
    roce_seq_drop_naks(e, &roce_flow_cold(f)->req.naks);
    roce_seq_drop_naks(e, &roce_flow_cold(f)->orphan_naks);
    return roce_flow_renew(&e->flows, f, frame, ts);
}

static void cm_flow_start(struct roce_engine *e, struct roce_flow *f, uint32_t start_psn,
                          uint32_t pmtu)
{
    if (f->req.have)
        roce_seq_reset(e, f);
    roce_flow_cold(f)->req.cm_start_valid = 1;
    roce_flow_cold(f)->req.cm_start_psn = start_psn;
    roce_flow_cold(f)->report.cm_connections++;
    if (pmtu) {
        roce_flow_cold(f)->pmtu = pmtu;
        roce_flow_cold(f)->pmtu_learned = 1;
        roce_flow_pmtu_changed(f);
    }
}

/* A REP answers REQ c only in the same RoCE version, or across RoCEv1 and
 * RoCEv2 between IPv4 hosts (IPv4-mapped GIDs: the two ends of a QP with
 * different GID types, ANALYSIS.md "Flows and connections"). */
static int same_host_versions(const struct cm_req *c, const struct roce_pkt *pkt)
{
    if (c->version == pkt->version)
        return 1;
    return c->version != ROCE_VERSION_IB && pkt->version != ROCE_VERSION_IB &&
           roce_addr_is_v4(pkt->src) && roce_addr_is_v4(pkt->dst);
}

static void cm_rep(struct roce_engine *e, const struct roce_pkt *pkt, const uint8_t *d,
                   uint64_t frame, int64_t ts)
{
    uint32_t remote_comm = roce_get_be32(d, REP_REMOTE_COMM_OFF);
    struct cm_req *q = NULL;
    for (unsigned i = 0; i < CM_PENDING; i++) {
        struct cm_req *c = &e->cm[i];
        if (c->valid && c->comm_id == remote_comm && same_host_versions(c, pkt) &&
            memcmp(c->src, pkt->dst, ROCE_ADDR_LEN) == 0 &&
            memcmp(c->dst, pkt->src, ROCE_ADDR_LEN) == 0 && (q == NULL || c->seq < q->seq))
            q = c;
    }
    if (q == NULL)
        return; /* REQ not captured: nothing to pair with */
    q->valid = 0;
    e->cm_waiting--;

    struct roce_flow_key kx, ky;
    memset(&kx, 0, sizeof kx);
    memcpy(kx.src, q->src, ROCE_ADDR_LEN);
    memcpy(kx.dst, q->dst, ROCE_ADDR_LEN);
    kx.dqpn = roce_get_be24(d, REP_LOCAL_QPN_OFF);
    kx.version = q->version;
    kx.af = q->af;
    ky = kx;
    memcpy(ky.src, q->dst, ROCE_ADDR_LEN);
    memcpy(ky.dst, q->src, ROCE_ADDR_LEN);
    ky.dqpn = q->qpn;
    ky.version = pkt->version; /* each end sends with its own GID type */
    ky.af = pkt->af;

    /* a new connection on keys an earlier one used gets flows of its own */
    struct roce_flow *x = roce_flow_find(&e->flows, &kx, 0), *y = roce_flow_find(&e->flows, &ky, 0);
    int reuse = cm_earlier(e, x, y) || cm_earlier(e, y, x);
    x = cm_flow(e, &kx, reuse, frame, ts);
    if (x == NULL)
        return;
    cm_flow_start(e, x, roce_get_be24(d, REP_START_PSN_OFF), q->pmtu);
    y = cm_flow(e, &ky, reuse, frame, ts);
    if (y == NULL)
        return;
    cm_flow_start(e, y, q->start_psn, q->pmtu);
    roce_flow_pair(&e->flows, x, y, ROCE_PAIRED_CM);
    e->totals.cm_connections++;
}

/* The place of a new REQ: a free one, or the oldest waiting REQ's. */
static struct cm_req *cm_place(struct roce_engine *e)
{
    struct cm_req *oldest = &e->cm[0];
    for (unsigned i = 0; i < CM_PENDING; i++) {
        if (!e->cm[i].valid) {
            if (++e->cm_waiting > e->cm_peak)
                e->cm_peak = e->cm_waiting;
            return &e->cm[i];
        }
        if (e->cm[i].seq < oldest->seq)
            oldest = &e->cm[i];
    }
    return oldest;
}

void roce_cm_packet(struct roce_engine *e, const struct roce_pkt *pkt, const uint8_t *data,
                    size_t caplen, uint64_t frame, int64_t ts)
{
    size_t off = pkt->payload_off;
    if (pkt->opcode != ROCE_OPCODE_UD_SEND_ONLY || pkt->dqpn != CM_QPN ||
        !roce_fits(caplen, off, MAD_HDR_LEN) || pkt->payload_len < MAD_HDR_LEN)
        return;
    const uint8_t *m = data + off;
    if (m[0] != MAD_BASE_VERSION || m[MAD_CLASS_OFF] != MAD_CLASS_CM)
        return;
    e->totals.cm_messages++;
    unsigned attr = roce_get_be16(m, MAD_ATTR_ID_OFF);
    const uint8_t *d = m + MAD_HDR_LEN;
    size_t avail = caplen - off - MAD_HDR_LEN;
    if (attr == CM_ATTR_REQ && avail >= REQ_LEN) {
        struct cm_req *c = cm_place(e);
        memset(c, 0, sizeof *c);
        c->seq = ++e->cm_reqs;
        c->comm_id = roce_get_be32(d, REQ_LOCAL_COMM_OFF);
        memcpy(c->src, pkt->src, ROCE_ADDR_LEN);
        memcpy(c->dst, pkt->dst, ROCE_ADDR_LEN);
        c->version = pkt->version;
        c->af = pkt->af;
        c->qpn = roce_get_be24(d, REQ_LOCAL_QPN_OFF);
        c->start_psn = roce_get_be24(d, REQ_START_PSN_OFF);
        unsigned mtu = d[REQ_PMTU_OFF] >> REQ_PMTU_SHIFT;
        c->pmtu = mtu >= IB_MTU_256_CODE && mtu <= IB_MTU_4096_CODE
                      ? IB_MTU_256 << (mtu - IB_MTU_256_CODE)
                      : 0;
        c->valid = 1;
    } else if (attr == CM_ATTR_REP && avail >= REP_LEN) {
        cm_rep(e, pkt, d, frame, ts);
    }
}
