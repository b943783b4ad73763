/*
 * test_harness.h - an engine under test: frames built with rocegen_build fed
 * in order, the returned verdict of the last frame kept, the settled
 * verdicts collected by frame number through cfg.on_verdict.
 *
 * tu_eng_done() finishes the engine and checks the verdict-queue contract
 * for every test that used it (roce_engine.h): settled verdicts arrive in
 * strictly increasing frame order, every frame returned with flags is
 * settled exactly once, no other frame is, and a settled verdict keeps at
 * least the flags the frame was returned with.
 *
 * Connections: flow A->B carries requests with dest QP qb, flow B->A the
 * responses (and CNPs) with dest QP qa (ANALYSIS.md "Flows and connections").
 */
#ifndef TEST_HARNESS_H
#define TEST_HARNESS_H

#include <stdint.h>

#include "roce_engine.h"
#include "rocegen_build.h"

#define TU_STEP_NS 1000 /* default time between two fed frames */
#define TU_T0_NS   1700000000000000000LL
#define TU_IP_A    0x0A000001u /* 10.0.0.1 */
#define TU_IP_B    0x0A000002u /* 10.0.0.2 */
#define TU_IP_C    0x0A000003u /* 10.0.0.3 */
#define TU_QA      0x000101u
#define TU_QB      0x000202u

struct tu_eng {
    struct roce_engine *e;
    struct roce_config cfg;
    int64_t now;               /* timestamp of the next frame */
    int64_t step;              /* added to now after each frame */
    uint64_t frame;            /* number of the last frame fed (frames count from 1) */
    struct roce_frame_out out; /* what the last frame returned */
    int rc;                    /* and roce_engine_frame()'s return value */
    /* per frame number: the flags it was returned with, times settled, the settled verdict */
    uint32_t *imm_flags;
    uint8_t *n_settled;
    struct roce_verdict *settled;
    uint64_t cap;
    uint64_t last_settled; /* frame of the latest settled verdict */
    unsigned order_errors; /* settled verdicts that did not come in increasing frame order */
    unsigned finished;
};

/* Changes to the default configuration (roce_config_default); a zero field
 * keeps the default. */
struct tu_opts {
    uint32_t pmtu;
    uint32_t max_flows;
    uint32_t max_open_verdicts;
    int64_t cnp_window_ns;
    int64_t nak_horizon_ns;
    int64_t nak_rtt_ns;
    uint32_t max_episodes;
    int64_t dcqcn_window_ns;
    int64_t dcqcn_delay_ns;
    uint32_t incast_senders;
    int64_t incast_window_ns;
};

/* Create the engine (o NULL: defaults; on_verdict is always the harness').
 * Use: tu_eng_init(&t, &(struct tu_opts){.pmtu = 1024}). */
void tu_eng_init(struct tu_eng *t, const struct tu_opts *o);
/* roce_engine_finish(), check the verdict-queue contract, free. */
void tu_eng_done(struct tu_eng *t);

/* Feed captured bytes as the next frame; returns its frame number. */
uint64_t tu_feed_bytes(struct tu_eng *t, int linktype, const uint8_t *p, uint32_t caplen,
                       uint32_t wirelen);
/* Build s and feed it whole; returns the frame number. */
uint64_t tu_feed(struct tu_eng *t, const struct rg_spec *s);

/* The settled verdict of a frame, or NULL when it has not been settled. */
const struct roce_verdict *tu_settled(const struct tu_eng *t, uint64_t frame);
/* The settled verdict of a frame; fails the test (fatally) when it is not settled. */
const struct roce_verdict *tu_v(const struct tu_eng *t, uint64_t frame);
/* Flags of the settled verdict of a frame (0 when not settled). */
uint32_t tu_sflags(const struct tu_eng *t, uint64_t frame);
/* Number of frames settled so far. */
uint64_t tu_settled_count(const struct tu_eng *t);
/* Totals now. */
const struct roce_totals *tu_totals(struct tu_eng *t);

/* The report of the tracked flow src -> dst (IPv4) with dest QP dqpn (the
 * first, by id, when a reused key has several); 0 when no such flow is
 * tracked. */
int tu_flow(struct tu_eng *t, uint32_t src, uint32_t dst, uint32_t dqpn,
            struct roce_flow_report *r);
/* The reports of all tracked flows of that key, in id order (at most cap);
 * returns how many there are. */
size_t tu_flows(struct tu_eng *t, uint32_t src, uint32_t dst, uint32_t dqpn,
                struct roce_flow_report *r, size_t cap);

/* Check what must hold of the flow table at any time: ids increase, a
 * paired flow's peer exists and points back, totals.connections counts the
 * pairs, flow_count <= max_flows. */
void tu_check_flow_table(struct tu_eng *t);

/* ---- a connection A -> B ---- */

struct tu_conn {
    struct rg_spec req; /* A -> B, dest QP qb: the template of requests */
    struct rg_spec rsp; /* B -> A, dest QP qa: responses and CNPs */
};

/* RC connection between IPv4 addresses a and b, requests to qb, responses to qa. */
void tu_conn_init(struct tu_conn *c, uint32_t a, uint32_t b, uint32_t qa, uint32_t qb);
/* tu_eng_init(t, o) and the connection TU_IP_A/TU_QA <-> TU_IP_B/TU_QB. */
void tu_setup(struct tu_eng *t, struct tu_conn *c, const struct tu_opts *o);

/* A request (c->req with this opcode, PSN and payload). */
uint64_t tu_req(struct tu_eng *t, const struct tu_conn *c, uint8_t opcode, uint32_t psn,
                uint32_t payload_len);
/* RC SEND Only of 64 bytes. */
uint64_t tu_send(struct tu_eng *t, const struct tu_conn *c, uint32_t psn);
/* n of them with consecutive PSNs from first (wrapping); returns the last frame. */
uint64_t tu_sends(struct tu_eng *t, const struct tu_conn *c, uint32_t first, uint32_t n);
/* RC SEND Only of 64 bytes marked CE (IP ECN 11). */
uint64_t tu_send_ce(struct tu_eng *t, const struct tu_conn *c, uint32_t psn);
/* RDMA READ request (RC or the transport of c->req.opcode) with a DMA length. */
uint64_t tu_read(struct tu_eng *t, const struct tu_conn *c, uint32_t psn, uint32_t dma_len);
/* A response (c->rsp with this opcode, PSN, AETH syndrome and payload). */
uint64_t tu_rsp(struct tu_eng *t, const struct tu_conn *c, uint8_t opcode, uint32_t psn,
                uint8_t syndrome, uint32_t payload_len);
/* RC ACKNOWLEDGE with a syndrome (rg_aeth_ack / rg_aeth_nak / rg_aeth_rnr). */
uint64_t tu_ack(struct tu_eng *t, const struct tu_conn *c, uint32_t psn, uint8_t syndrome);
/* RoCEv2 CNP B -> A to qa (BECN set, P_Key 0xFFFF, PSN 0). */
uint64_t tu_cnp(struct tu_eng *t, const struct tu_conn *c);

#endif
