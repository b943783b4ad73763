/*
 * rocegen_mad.c - Communication Manager MADs (IBTA Vol. 1 13.4.2 MAD
 * header, 12.6 CM messages), carried as UD SEND Only to QP1.
 *
 *   MAD header (24 bytes):
 *   | BaseVersion(8)=1 | MgmtClass(8)=0x07 | ClassVersion(8)=2 | Method(8)=0x03 |
 *   | Status(16)                          | ClassSpecific(16)                   |
 *   | TransactionID(64)                                                         |
 *   | AttributeID(16)                     | Reserved(16)                        |
 *   | AttributeModifier(32)                                                     |
 *   then 232 bytes of message data; offsets below are within that data:
 *
 *   REQ  0 LocalCommID(32)  4 resv  8 ServiceID(64)  16 LocalCAGUID(64)
 *        28 LocalQKey(32)  32 LocalQPN(24) RespResources(8)
 *        36 LocalEECN(24) InitiatorDepth(8)
 *        40 RemoteEECN(24) | RemoteCMRespTimeout(5) TransportServiceType(2) E2EFlowCtl(1)
 *        44 StartingPSN(24) | LocalCMRespTimeout(5) RetryCount(3)
 *        48 P_Key(16)  50 PathMTU(4) RDCExists(1) RNRRetryCount(3)  51 MaxCMRetries(4) SRQ(1) ..
 *        52 PrimaryLocalLID(16) 54 PrimaryRemoteLID(16) 56 PrimaryLocalGID(128)
 *        72 PrimaryRemoteGID(128) ...
 *   REP  0 LocalCommID  4 RemoteCommID  8 LocalQKey  12 LocalQPN(24)  16 LocalEECN(24)
 *        20 StartingPSN(24)  24 RespResources(8) 25 InitiatorDepth(8) ...
 *   RTU  0 LocalCommID  4 RemoteCommID
 *   DREQ 0 LocalCommID  4 RemoteCommID  8 RemoteQPN/EECN(24)
 *   DREP 0 LocalCommID  4 RemoteCommID
 */
#include "rocegen_build.h"

#include <string.h>

#define MAD_HDR_LEN       24
#define MAD_BASE_VERSION  1u
#define MAD_CLASS_CM      0x07u
#define MAD_CLASS_VERSION 2u
#define MAD_METHOD_SEND   0x03u
#define MAD_TID_OFF       8
#define MAD_ATTR_ID_OFF   16

#define CM_LOCAL_COMM_OFF      0
#define CM_REMOTE_COMM_OFF     4
#define REQ_SERVICE_ID_OFF     8
#define REQ_QKEY_OFF           28
#define REQ_LOCAL_QPN_OFF      32
#define REQ_RESP_RES_OFF       35
#define REQ_INIT_DEPTH_OFF     39
#define REQ_TS_OFF             43
#define REQ_TS_SHIFT           1
#define REQ_TS_MASK            3u
#define REQ_CM_TIMEOUT         (20u << 3) /* remote CM response timeout, bits 7:3 */
#define REQ_START_PSN_OFF      44
#define REQ_RETRY_OFF          47
#define REQ_RETRY_DEFAULT      ((20u << 3) | 7u) /* local CM response timeout 20, retry count 7 */
#define REQ_PKEY_OFF           48
#define REQ_PMTU_OFF           50
#define REQ_PMTU_SHIFT         4
#define REQ_RNR_RETRY          7u
#define REQ_MAX_CM_RETRIES_OFF 51
#define REQ_MAX_CM_RETRIES     (15u << 4)
#define REQ_LOCAL_LID_OFF      52
#define REQ_REMOTE_LID_OFF     54
#define RG_LID_PERMISSIVE      0xFFFFu /* RoCE has no LIDs; Linux sends the permissive LID */
#define REQ_LOCAL_GID_OFF      56      /* after the primary local and remote LIDs */
#define REQ_REMOTE_GID_OFF     72
#define REP_QKEY_OFF           8
#define REP_LOCAL_QPN_OFF      12
#define REP_START_PSN_OFF      20
#define REP_RESP_RES_OFF       24
#define REP_INIT_DEPTH_OFF     25
#define REP_RNR_RETRY_OFF      27
#define REP_RNR_RETRY          (7u << 5)
#define DREQ_REMOTE_QPN_OFF    8
#define CM_RDMA_DEPTH          16u

/* Big-endian stores (local: this file has no other helpers). */
static void be16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void be24(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 16);
    be16(p + 1, v);
}

static void be32(uint8_t *p, uint32_t v)
{
    be16(p, v >> 16);
    be16(p + 2, v);
}

static void be64(uint8_t *p, uint64_t v)
{
    be32(p, (uint32_t)(v >> 32));
    be32(p + 4, (uint32_t)v);
}

void rg_cm_mad(const struct rg_cm *m, uint8_t mad[RG_MAD_LEN])
{
    uint8_t *d = mad + MAD_HDR_LEN;

    memset(mad, 0, RG_MAD_LEN);
    mad[0] = MAD_BASE_VERSION;
    mad[1] = MAD_CLASS_CM;
    mad[2] = MAD_CLASS_VERSION;
    mad[3] = MAD_METHOD_SEND;
    be64(mad + MAD_TID_OFF, m->tid);
    be16(mad + MAD_ATTR_ID_OFF, m->attr);

    be32(d + CM_LOCAL_COMM_OFF, m->local_comm_id);
    switch (m->attr) {
    case RG_CM_REQ:
        be64(d + REQ_SERVICE_ID_OFF, m->service_id);
        be32(d + REQ_QKEY_OFF, m->qkey);
        be24(d + REQ_LOCAL_QPN_OFF, m->local_qpn & RG_QPN_MASK);
        d[REQ_RESP_RES_OFF] = CM_RDMA_DEPTH;
        d[REQ_INIT_DEPTH_OFF] = CM_RDMA_DEPTH;
        d[REQ_TS_OFF] = (uint8_t)(REQ_CM_TIMEOUT | (m->transport & REQ_TS_MASK) << REQ_TS_SHIFT);
        be24(d + REQ_START_PSN_OFF, m->start_psn & RG_PSN_MASK);
        d[REQ_RETRY_OFF] = REQ_RETRY_DEFAULT;
        be16(d + REQ_PKEY_OFF, RG_PKEY_DEFAULT);
        d[REQ_PMTU_OFF] = (uint8_t)(m->pmtu_code << REQ_PMTU_SHIFT | REQ_RNR_RETRY);
        d[REQ_MAX_CM_RETRIES_OFF] = REQ_MAX_CM_RETRIES;
        be16(d + REQ_LOCAL_LID_OFF, RG_LID_PERMISSIVE);
        be16(d + REQ_REMOTE_LID_OFF, RG_LID_PERMISSIVE);
        memcpy(d + REQ_LOCAL_GID_OFF, m->local_gid, RG_ADDR_LEN);
        memcpy(d + REQ_REMOTE_GID_OFF, m->remote_gid, RG_ADDR_LEN);
        break;
    case RG_CM_REP:
        be32(d + CM_REMOTE_COMM_OFF, m->remote_comm_id);
        be32(d + REP_QKEY_OFF, m->qkey);
        be24(d + REP_LOCAL_QPN_OFF, m->local_qpn & RG_QPN_MASK);
        be24(d + REP_START_PSN_OFF, m->start_psn & RG_PSN_MASK);
        d[REP_RESP_RES_OFF] = CM_RDMA_DEPTH;
        d[REP_INIT_DEPTH_OFF] = CM_RDMA_DEPTH;
        d[REP_RNR_RETRY_OFF] = REP_RNR_RETRY;
        break;
    case RG_CM_DREQ:
        be32(d + CM_REMOTE_COMM_OFF, m->remote_comm_id);
        be24(d + DREQ_REMOTE_QPN_OFF, m->local_qpn & RG_QPN_MASK);
        break;
    default: /* RTU, DREP and anything else: the two communication IDs */
        be32(d + CM_REMOTE_COMM_OFF, m->remote_comm_id);
        break;
    }
}

void rg_spec_cm(struct rg_spec *s, const uint8_t mad[RG_MAD_LEN])
{
    s->opcode = RG_OP_UD_SEND_ONLY;
    s->dqpn = RG_CM_QPN;
    s->deth_qkey = RG_CM_QKEY;
    s->deth_srcqp = RG_CM_QPN;
    s->hdrs = RG_AUTO;
    s->payload = mad;
    s->payload_len = RG_MAD_LEN;
    s->padcnt = RG_AUTO;
    s->pad_len = RG_AUTO;
}
