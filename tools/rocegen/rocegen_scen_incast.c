/*
 * rocegen_scen_incast.c - the incast scenario (analyzer/engine/ANALYSIS.md
 * "Incast"): eight senders at once to a receiver whose traffic is CE
 * marked; eight at once to another, unmarked; three at once to a third,
 * marked. captures/README.md says what it must show, frame by frame.
 *
 * Times are microseconds after RG_SC_BASE_NS; frame numbers are the
 * capture's (from 1).
 */
#include "rocegen_scen.h"

#define HOST(a, b) (0x0A000000u | (a) << 8 | (b)) /* 10.0.a.b */
#define RECEIVER   100u                           /* 10.0.a.100 */
#define LEN_4096   4096u
#define SENDERS    8u
#define FEW        3u
#define BURST_NS   250 /* between the frames of a burst: 8 x 4 KB in 2 us, 130 Gb/s */
#define PSN0       0x000100u
#define US(x)      ((int64_t)(x)*ROCE_NS_PER_US)

/* A SEND Only of 4096 bytes from k's A side with the ECN field ecn, the
 * next frame BURST_NS after it. */
static void burst_send(struct rg_sc *c, const struct rg_conn *k, uint32_t psn, uint8_t ecn)
{
    struct rg_spec s;
    rg_sc_send_spec(k, RG_A, psn, LEN_4096, &s);
    s.ecn = ecn;
    s.ackreq = 1;
    rg_sc_emit(c, &s);
    rg_sc_wait(c, BURST_NS - RG_SC_STEP_NS);
}

/* n senders 10.0.net.1.. to 10.0.net.100: a burst of one SEND each, then a
 * second burst (CE marked when marked), then the receiver's ACKs, then
 * (marked) its CNPs. */
static void fan_in(struct rg_sc *c, unsigned net, unsigned n, int marked)
{
    struct rg_spec base;
    struct rg_conn k[SENDERS];

    rg_sc_base(c, &base);
    for (unsigned i = 0; i < n; i++)
        rg_conn_init4(&k[i], &base, HOST(net, i + 1), HOST(net, RECEIVER), 0x0000A1 + i,
                      0x0000B1 + i);
    for (unsigned i = 0; i < n; i++)
        burst_send(c, &k[i], PSN0, RG_ECN_ECT0);
    for (unsigned i = 0; i < n; i++)
        burst_send(c, &k[i], PSN0 + 1, marked ? RG_ECN_CE : RG_ECN_ECT0);
    rg_sc_wait(c, RG_SC_STEP_NS - BURST_NS);
    for (unsigned i = 0; i < n; i++)
        rg_sc_ack(c, &k[i], RG_B, PSN0 + 1, 2);
    for (unsigned i = 0; marked && i < n; i++)
        rg_sc_cnp(c, &k[i], RG_B);
}

/*
 * Receiver 10.0.20.100: eight senders (10.0.20.1-8), frames 1-8 @0-1.75
 * (0.25 us apart), their second SENDs CE marked, frames 9-16 @2-3.75;
 * ACKs 17-24 @4.75-11.75, CNPs 25-32 @12.75-19.75: an incast.
 * Receiver 10.0.21.100 from 100 us: the same without marks (frames 33-56):
 * eight at once, no finding. Receiver 10.0.22.100 from 200 us: three
 * senders, marked (frames 57-68): no finding.
 */
void rg_scen_incast(struct rg_sc *c)
{
    fan_in(c, 20, SENDERS, 1);
    rg_sc_at(c, US(100));
    fan_in(c, 21, SENDERS, 0);
    rg_sc_at(c, US(200));
    fan_in(c, 22, FEW, 1);
}
