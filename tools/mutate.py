#!/usr/bin/env python3
"""Mutation check: does the test suite notice small bugs in the analysis?

Copies the source tree (the files git knows, as they are in the working tree)
into a temporary folder, builds it there once (no plugin, no IPO, warnings not
errors: a mutant may leave a variable unused), checks that
the fast suite passes, then for each mutant in MUTANTS below: applies it (one
textual replacement in one file: a flipped comparison, a swapped constant, a
removed statement, swapped names), rebuilds, runs the fast suite, and puts the
file back. A mutant is killed when a test fails, survives when all pass. A
mutant that no longer applies (its text is not found exactly once) or does
not build is an error of this list, reported as such: fix the list with the
code.

The fast suite: the unit suites (unit_*), the golden test (JSON reports,
events and summaries of every scenario capture, and their snaplen cuts) and
the localize test (vantage points against the generator's truth).

    tools/mutate.py                       every mutant (tests/README.md says how long)
    tools/mutate.py --list                the mutants
    tools/mutate.py seq-karn ecn-*        some (shell-style patterns on the ids)
    tools/mutate.py --keep DIR            build in DIR and keep it (faster next time)
    tools/mutate.py --check               every mutant still applies (a ctest: mutants_apply)

Exit status: 0 when every mutant was killed, 1 when one survived or a mutant
is stale, 2 on a usage or set-up error. Run before a release and on demand
(tests/README.md, "Mutation check"); not part of CI (it takes several minutes).
"""
import argparse
import fnmatch
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAST = "^(unit_.*|golden|localize)$"

E = "analyzer/engine/"
V = "analyzer/engine/vantage/"
R = "analyzer/report/"

# (id, file, text, replacement, what the mutant does). The text must occur
# exactly once in the file.
MUTANTS = [
    # ---- roce_seq.c: gaps, retransmissions, episodes, triggers, NAKs, ACK latency ----
    ("seq-expected-off-by-one", E + "roce_seq.c", "uint32_t expected = roce_psn_add(rq->highest, 1);",
     "uint32_t expected = roce_psn_add(rq->highest, 2);", "expected PSN is highest + 2"),
    ("seq-next-is-retx", E + "roce_seq.c", "    if (d >= 0) {\n        struct read_span *r",
     "    if (d > 0) {\n        struct read_span *r", "the expected PSN counts as a retransmission"),
    ("seq-gap-after-cm-start", E + "roce_seq.c", "            if (d > 0)\n                gap(",
     "            if (d > 1)\n                gap(", "gap against the CM start PSN needs 2 missing"),
    ("seq-read-jump-is-gap", E + "roce_seq.c", "if (d > 0 && r != NULL) {", "if (0 && r != NULL) {",
     "a jump after a READ of unknown span counts as a gap"),
    ("seq-reissued-read-is-reuse", E + "roce_seq.c",
     "if (r != NULL && !(pkt->op->flags & ROCE_OPF_READ_REQ)) {", "if (r != NULL) {",
     "a re-issued READ counts as PSN reuse"),
    ("seq-uc-retransmissions", E + "roce_seq.c", "    if (!full)\n        return;\n    retransmission(",
     "    retransmission(", "UC requests can be retransmissions"),
    ("seq-ud-checked", E + "roce_seq.c", "    if (!full && tr != ROCE_TRANSPORT_UC)\n        return;",
     "", "UD and RD are sequence-checked"),
    ("seq-new-request-keeps-episode", E + "roce_seq.c", "    rq->in_episode = 0;\n", "",
     "a new request does not end the episode"),
    ("seq-episode-psn-back", E + "roce_seq.c",
     "if (!rq->in_episode || !roce_psn_after(pkt->psn, rc->last_retx_psn))",
     "if (!rq->in_episode)", "moving back inside an episode starts no new one"),
    ("seq-episode-same-psn-continues", E + "roce_seq.c",
     "if (!rq->in_episode || !roce_psn_after(pkt->psn, rc->last_retx_psn))",
     "if (!rq->in_episode || roce_psn_after(rc->last_retx_psn, pkt->psn))",
     "a second resend of the same PSN continues the episode"),
    ("seq-karn", E + "roce_seq.c", "    rq->ack_n = 0; /* Karn: outstanding requests are ambiguous now */\n",
     "", "Karn's rule dropped: samples across a resend"),
    ("seq-ack-covers-equal", E + "roce_seq.c",
     "        if (roce_psn_after(a->psn, psn))\n            break;",
     "        if (!roce_psn_after(psn, a->psn))\n            break;",
     "an ACK does not acknowledge its own PSN"),
    ("seq-nak-horizon-exclusive", E + "roce_seq.c", "ts - n->ts <= e->cfg.nak_horizon_ns",
     "ts - n->ts < e->cfg.nak_horizon_ns", "the NAK horizon excludes its end"),
    ("seq-nak-oldest-first", E + "roce_seq.c",
     "rc->naks.recs[(rc->naks.head + NAK_RING - i) % NAK_RING]",
     "rc->naks.recs[(rc->naks.head + NAK_RING - rc->naks.count + i - 1) % NAK_RING]",
     "the oldest matching NAK is named, not the newest"),
    ("seq-nak-any-type", E + "roce_seq.c", "!n->used && n->type == type && n->psn == psn",
     "!n->used && n->psn == psn", "an RNR NAK counts as a PSN sequence error NAK"),
    ("seq-nak-any-psn", E + "roce_seq.c", "!n->used && n->type == type && n->psn == psn",
     "!n->used && n->type == type", "a NAK for another PSN triggers"),
    ("seq-rnr-before-nak", E + "roce_seq.c",
     "find_nak(e, rc, psn, ROCE_TRIGGER_NAK, v->ts_ns);\n\n    if (nak == NULL)\n"
     "        nak = find_nak(e, rc, psn, ROCE_TRIGGER_RNR, v->ts_ns);",
     "find_nak(e, rc, psn, ROCE_TRIGGER_RNR, v->ts_ns);\n\n    if (nak == NULL)\n"
     "        nak = find_nak(e, rc, psn, ROCE_TRIGGER_NAK, v->ts_ns);",
     "trigger order: rnr before nak"),
    ("seq-implied-before-nak", E + "roce_seq.c", "    if (nak != NULL) {\n        trig = nak->type;",
     "    struct read_span *ri = (pkt->op->flags & ROCE_OPF_READ_REQ) ? roce_read_covering(f, psn)"
     " : NULL;\n    if (ri != NULL && ri->gap_seen)\n        nak = NULL;\n"
     "    if (nak != NULL) {\n        trig = nak->type;", "trigger order: implied before nak"),
    ("seq-spend-all-psns", E + "roce_seq.c", "if (n->used || n->psn != psn)", "if (n->used)",
     "an episode spends the NAKs of every PSN"),
    ("seq-spend-named-only", E + "roce_seq.c", "        consume_naks(e, rc, psn, v->frame);\n",
     "        (void)consume_naks;\n        nak->used = 1;\n"
     "        struct roce_verdict *nv = roce_vq_get(e, nak->vq_seq, nak->frame);\n"
     "        if (nv != NULL) {\n            nv->flags |= ROCE_V_NAK_RESENT;\n"
     "            nv->retransmitted_in = v->frame;\n        }\n"
     "        roce_vq_done(e, nak->vq_seq, nak->frame);\n",
     "an episode spends only the NAK it names"),
    ("seq-nak-reusable", E + "roce_seq.c", "        n->used = 1;\n", "",
     "a spent NAK can trigger again"),
    ("seq-any-nak-code-triggers", E + "roce_seq.c",
     "if (reliable && value == ROCE_NAK_PSN_SEQUENCE_ERROR)", "if (reliable)",
     "a NAK of any code can trigger an episode"),
    ("seq-nak-code-4-reserved", E + "roce_seq.c", "} else if (value < ROCE_NAK_CODES) {",
     "} else if (value < ROCE_NAK_CODES - 1) {", "NAK code 4 counted as reserved"),
    ("seq-orphan-naks-dropped", E + "roce_seq.c",
     "nak_push(e, x != NULL ? &roce_flow_cold(x)->req.naks : &roce_flow_cold(y)->orphan_naks, &n);",
     "if (x != NULL)\n        nak_push(e, &roce_flow_cold(x)->req.naks, &n);",
     "NAKs seen before pairing are dropped"),
    ("seq-pair-tie-first-wins", E + "roce_seq.c",
     "                if (found != NULL)\n                    return NULL; /* a tie: stays unpaired */\n",
     "",
     "pairing by PSN: a tie pairs with the first candidate"),
    ("seq-pair-range-exclusive", E + "roce_seq.c", "if (pos >= 0 && pos <= reach) {",
     "if (pos >= 0 && pos < reach) {", "pairing by PSN: the highest PSN is outside the range"),
    ("seq-episode-cap", E + "roce_seq.c", "if (e->n_episodes >= e->cfg.max_episodes) {",
     "if (e->n_episodes > e->cfg.max_episodes) {", "one episode more than the cap listed"),
    ("flow-nak-ring-8", E + "roce_flow.h", "#define NAK_RING              4",
     "#define NAK_RING              8", "8 NAKs kept per flow"),
    ("flow-ackreq-ring-4", E + "roce_flow.h", "#define ACKREQ_RING           8",
     "#define ACKREQ_RING           4", "4 AckReq requests sampled per flow"),
    # ---- roce_read.c: READ spans, response gaps, PMTU ----
    ("read-span-floor", E + "roce_read.c", "((uint64_t)dma_len + pmtu - 1) / pmtu",
     "(uint64_t)dma_len / pmtu", "READ span rounded down"),
    ("read-gap-needs-2", E + "roce_read.c", "    if (d > 0) {\n        v->flags |= ROCE_V_RESP_GAP;",
     "    if (d > 1) {\n        v->flags |= ROCE_V_RESP_GAP;", "a READ response gap needs 2 missing"),
    ("read-dup-needs-2", E + "roce_read.c", "} else if (d < 0) {\n        v->flags |= ROCE_V_DUP_RESPONSE;",
     "} else if (d < -1) {\n        v->flags |= ROCE_V_DUP_RESPONSE;",
     "a duplicate READ response must be 2 back"),
    ("read-next-after-gap", E + "roce_read.c", "    if (d >= 0)\n        r->next_resp",
     "    if (d == 0)\n        r->next_resp", "after a gap the next response is still expected"),
    ("read-no-pmtu-from-responses", E + "roce_read.c",
     "    if (pkt->op->flags & (ROCE_OPF_FIRST | ROCE_OPF_MIDDLE))\n"
     "        roce_read_learn_pmtu(e, x, pkt->payload_len, 1);\n", "",
     "PMTU not learned from READ responses"),
    ("read-pmtu-keep-smallest", E + "roce_read.c", "(exact ? hint == pmtu : hint >= pmtu))\n        return;\n"
     "    const struct roce_flow_cold *c = roce_flow_cold(f);\n"
     "    if (c->pmtu_learned && (exact ? c->pmtu == pmtu : c->pmtu >= pmtu)",
     "(exact ? hint == pmtu : hint <= pmtu))\n        return;\n"
     "    const struct roce_flow_cold *c = roce_flow_cold(f);\n"
     "    if (c->pmtu_learned && (exact ? c->pmtu == pmtu : c->pmtu <= pmtu)", "request payloads keep the smallest PMTU"),
    ("read-last-no-span", E + "roce_read.c",
     "if ((pkt->op->flags & (ROCE_OPF_LAST | ROCE_OPF_ONLY)) && r->span_state != ROCE_SPAN_KNOWN)",
     "if (0)", "the last READ response does not fix the span"),
    ("read-ring-4", E + "roce_read.h", "#define READ_RING 16", "#define READ_RING 4",
     "4 READs tracked per flow"),
    # ---- roce_ecn.c and the CE decision: CE marks and CNPs ----
    ("ecn-ect1-is-ce", E + "roce_pkt.h", "ROCE_VERSION_2 ? pkt->ecn == ROCE_ECN_CE",
     "ROCE_VERSION_2 ? (pkt->ecn & 1)", "ECT(1) counted as CE"),
    ("ecn-v1-ce", E + "roce_pkt.h", "pkt->version == ROCE_VERSION_2 ? pkt->ecn == ROCE_ECN_CE",
     "pkt->version != ROCE_VERSION_IB ? pkt->ecn == ROCE_ECN_CE",
     "RoCEv1 GRH ECN bits counted as CE"),
    ("ib-fecn-no-mark", E + "roce_pkt.h", ": pkt->version == ROCE_VERSION_IB && pkt->fecn;",
     ": 0;", "InfiniBand FECN not taken as a congestion mark"),
    ("ib-fecn-on-roce", E + "roce_pkt.h", "ROCE_VERSION_2 ? pkt->ecn == ROCE_ECN_CE\n",
     "ROCE_VERSION_2 ? (pkt->ecn == ROCE_ECN_CE || pkt->fecn)\n",
     "FECN on RoCEv2 taken as a congestion mark"),
    ("ib-becn-no-answer", E + "roce_pkt.h", "ROCE_VERSION_IB && pkt->becn && pkt->op != NULL",
     "ROCE_VERSION_IB && 0 && pkt->op != NULL", "BECN on an InfiniBand response answers nothing"),
    ("ib-becn-on-roce", E + "roce_pkt.h", "return pkt->version == ROCE_VERSION_IB && pkt->becn &&",
     "return pkt->becn &&", "BECN on a RoCEv2 response taken as an answer"),
    ("ecn-match-window-exclusive", E + "roce_ecn.c",
     "if (age <= w && (matched == NULL || !c->answered)) {",
     "if (age < w && (matched == NULL || !c->answered)) {",
     "a CNP exactly a window after its mark does not match"),
    ("ecn-expire-window-exclusive", E + "roce_ecn.c", "(now - c->ts <= w || (n != NULL",
     "(now - c->ts < w || (n != NULL", "a mark expires at its window's end"),
    ("ecn-covered-exclusive", E + "roce_ecn.c", "v->ts_ns - fc->last_cnp_ts <= e->cfg.cnp_window_ns",
     "v->ts_ns - fc->last_cnp_ts < e->cfg.cnp_window_ns",
     "a mark exactly a window after a CNP is not covered by it"),
    ("ecn-not-covered", E + "roce_ecn.c", "if (fc->have_cnp && v->ts_ns - fc->last_cnp_ts",
     "if (0 && v->ts_ns - fc->last_cnp_ts", "a mark after a CNP is never covered by it"),
    ("ecn-no-coalescing", E + "roce_ecn.c", "if (age <= w && (matched == NULL || !c->answered)) {",
     "if (age <= w && matched == NULL) {", "one CNP answers one mark only"),
    ("ecn-no-fallback", E + "roce_ecn.c",
     "return x == k || (x != NULL && x->id > last_id) ? NULL : x;", "return NULL;",
     "no CNP fallback to the only request flow"),
    ("ecn-fallback-ambiguous", E + "roce_flow.c", "t->pairs[ph - 1].count == 1 ?",
     "t->pairs[ph - 1].count >= 1 ?", "the CNP fallback takes one of several request flows"),
    ("ecn-unexplained-uncounted", E + "roce_ecn.c",
     "        }\n        e->totals.cnps_unexplained++;\n        return;\n    }\n"
     "    roce_flow_touch(&e->flows, x);",
     "        }\n        return;\n    }\n    roce_flow_touch(&e->flows, x);",
     "a CNP of no connection is not counted as unexplained"),
    ("ecn-ring-max", E + "roce_ecn.c",
     "if (ring_full(e, &e->ce, sizeof(struct ce_entry), CE_RING_MAX))",
     "if (ring_full(e, &e->ce, sizeof(struct ce_entry), 2 * CE_RING_MAX))",
     "the CE ring grows past its bound"),
    ("ecn-waiting-cnp-window-inclusive", E + "roce_ecn.c",
     "if (n != NULL && (flush || now - n->ts > roce_ecn_cnp_wait(&e->cfg))) {",
     "if (n != NULL && (flush || now - n->ts >= roce_ecn_cnp_wait(&e->cfg))) {",
     "a waiting CNP is decided at its window's end, not after it"),
    ("ecn-ce-wait-one-window", E + "roce_ecn.h", "return cfg->cnp_window_ns + roce_ecn_cnp_wait(cfg);",
     "return roce_ecn_cnp_wait(cfg);",
     "a CE mark is held to wait one CNP window, not two (its deadline and the -T proof)"),
    ("ecn-late-cnp-window-exclusive", E + "roce_ecn.c", "if (c->ts - t > w || c->answered)",
     "if (c->ts - t >= w || c->answered)",
     "a CNP decided late does not answer a mark exactly a window after it"),
    ("ecn-forgotten-unanswered", E + "roce_ecn.c", "        ce_settle(e, c, NULL, SETTLE_DROPPED);",
     "        ce_settle(e, c, NULL, SETTLE_WINDOW);",
     "the marks of a flow that goes away count as unanswered"),
    # ---- walk.c: the split's reader hands on copies (its read buffer moves on) ----
    ("walk-no-copy", "analyzer/capture/walk.c",
     "    f->in.data = b->copy + b->copy_len;",
     "    f->in.data = in->data;",
     "a frame handed to another part points into the reader's buffer, which the next reads "
     "overwrite"),
    ("walk-alone-all", "analyzer/capture/walk.c",
     "        if (k == w->wc.self)\n            w->wc.own(w->wc.ctx, in, now);",
     "        if (k == w->wc.self || k != w->wc.self)\n            w->wc.own(w->wc.ctx, in, now);",
     "a part reading the files itself analyses every frame, not only its own"),
    # ---- roce_split.c: the split's early refusal (rocescope -T stops a doomed split) ----
    ("split-doomed-blind", E + "roce_split.c",
     "    return part_refused(p, &e->totals, e->alloc_failures + e->flows.stats.alloc_failures,\n"
     "                        e->flows.stats.evicted);",
     "    return e == NULL ? part_refused(p, &e->totals, 0, 0) : NULL;",
     "a part that frames out of time order or a PFC pause doom is not said to be doomed"),
    ("split-glance-seen-always", E + "roce_split.c",
     "    if (*oldest == UINT64_MAX && seen > *frame)",
     "    if (seen > *frame)",
     "a part with a verdict waiting shows where it read, not its own frame: the look counts "
     "verdicts one engine had delivered"),
    ("split-between-open-only", E + "roce_split.c",
     "        n += (e2 <= p->hist_last ? p->before[e2 % HIST_EPOCHS] : p->delivered) -",
     "        n += 0 * (e2 <= p->hist_last ? p->before[e2 % HIST_EPOCHS] : p->delivered) -",
     "the early look at the open verdicts counts only the parts' waiting verdicts, not those "
     "delivered since the oldest waiting one"),
    ("split-between-epoch-floor", E + "roce_split.c",
     "    uint64_t e1 = (from >> EPOCH_SHIFT) + ((from & ((1u << EPOCH_SHIFT) - 1)) != 0);",
     "    uint64_t e1 = from >> EPOCH_SHIFT;",
     "the early look counts the delivered verdicts of the epoch that holds the oldest waiting "
     "verdict whole, also those before it"),
    # ---- roce_incast.c: the receivers' table ----
    ("incast-memo-unchecked", E + "roce_incast.c",
     "    struct incast_rx *x = &in->rx[*memo];\n    if (x->used && memcmp(x->addr, addr, ROCE_ADDR_LEN) == 0)",
     "    struct incast_rx *x = &in->rx[*memo];\n    if (x->used)",
     "incast: a receiver found through the memo without checking its address"),
    # ---- roce_dcqcn.c, roce_reqlog.c: the DCQCN windows [t - W, t) and [t + D, t + D + W) ----
    ("dcqcn-after-end-inclusive", E + "roce_dcqcn.c", "ts >= ev->ts + d && ts < ev->ts + d + w",
     "ts >= ev->ts + d && ts <= ev->ts + d + w", "a request at t + D + W counts in the after window"),
    ("dcqcn-after-start-exclusive", E + "roce_dcqcn.c", "ts >= ev->ts + d && ts < ev->ts + d + w",
     "ts > ev->ts + d && ts < ev->ts + d + w", "a request at t + D is outside the after window"),
    ("reqlog-window-start-exclusive", E + "roce_reqlog.c", "        if (x->ts < from)\n            break;",
     "        if (x->ts <= from)\n            break;", "a kept request at a window's start is outside it"),
    ("reqlog-window-end-inclusive", E + "roce_reqlog.c", "        if (x->ts < to) {",
     "        if (x->ts <= to) {", "a kept request at a window's end (the CNP's t) is inside it"),
    # ---- roce_pfc.c: PFC and PAUSE ----
    ("pfc-storm-share-inclusive", E + "roce_pfc.c",
     "s->window_paused * PCT > (int64_t)e->cfg.pfc_storm_pct * e->cfg.pfc_window_ns",
     "s->window_paused * PCT >= (int64_t)e->cfg.pfc_storm_pct * e->cfg.pfc_window_ns",
     "a window paused exactly the storm share is a storm"),
    ("pfc-xon-does-not-end", E + "roce_pfc.c", "        r->xon++;\n        s->paused = 0;\n",
     "        r->xon++;\n", "an XON does not end the pause"),
    ("pfc-quantum-256", E + "roce_pfc.c", "#define BIT_TIMES_PER_QUANTUM 512",
     "#define BIT_TIMES_PER_QUANTUM 256", "a quantum is 256 bit times"),
    ("pfc-full-windows-at-100", E + "roce_pfc.c", "if (full > 0 && e->cfg.pfc_storm_pct < PCT)",
     "if (full > 0)", "whole paused windows are storms at a 100 % share"),
    # ---- roce_cm.c: CM pairing and start PSNs ----
    ("cm-any-comm-id", E + "roce_cm.c", "if (c->valid && c->comm_id == remote_comm &&",
     "if (c->valid &&", "a REP pairs with a REQ of another communication"),
    ("cm-start-psns-swapped", E + "roce_cm.c",
     "cm_flow_start(e, x, roce_get_be24(d, REP_START_PSN_OFF), q->pmtu);",
     "cm_flow_start(e, x, q->start_psn, q->pmtu);", "the REP's starting PSN ignored"),
    ("cm-pmtu-code", E + "roce_cm.c", "IB_MTU_256 << (mtu - IB_MTU_256_CODE)",
     "IB_MTU_256 << (mtu - IB_MTU_256_CODE + 1)", "CM path MTU code read one too high"),
    # ---- roce_flow.c, roce_engine.c, roce_verdq.c ----
    ("flow-connections-uncounted", E + "roce_flow.c",
     "    set_peer(t, b, a, how);\n    t->stats.connections++;", "    set_peer(t, b, a, how);",
     "pairs not counted as connections"),
    ("engine-retire-at-idle", E + "roce_engine.c", "e->now - f->last_ts_ns > idle_ns",
     "e->now - f->last_ts_ns >= idle_ns", "a flow idle exactly the timeout is retired"),
    ("engine-cnp-flow-keeps-transport", E + "roce_engine.c",
     "if (f->transport == ROCE_TRANSPORT_NONE || f->transport == ROCE_TRANSPORT_CNP)",
     "if (f->transport == ROCE_TRANSPORT_NONE)", "a flow of CNPs stays CNP when it carries more"),
    ("engine-no-bad-icrc-verdict", E + "roce_engine.c", "        v->flags |= ROCE_V_BAD_ICRC;\n", "",
     "a bad ICRC gets no verdict"),
    ("engine-truncated-uncounted", E + "roce_engine.c",
     "    if (pkt->truncated)\n        t->truncated_packets++;\n", "", "truncated frames not counted"),
    ("engine-v1-v2-swapped", E + "roce_engine.c",
     "    if (pkt->version == ROCE_VERSION_1)\n        t->rocev1_packets++;",
     "    if (pkt->version != ROCE_VERSION_1)\n        t->rocev1_packets++;",
     "RoCEv1 and v2 counts swapped"),
    # ---- roce_ib.c, roce_icrc.c, roce_opcode.c: native InfiniBand ----
    ("ib-vcrc-not-complemented", E + "roce_ib.c", "    return (uint16_t)~crc;", "    return crc;",
     "the VCRC left uncomplemented"),
    ("ib-icrc-vl-covered", E + "roce_icrc.c", "    head[0] |= LRH_VL_MASK;\n", "",
     "the ICRC of a local packet covers the VL"),
    ("ib-pktlen-bytes", E + "roce_ib.c", "size_t len = (size_t)l->pktlen * ROCE_LRH_WORD;",
     "size_t len = (size_t)l->pktlen * 2;", "the LRH's packet length read in 2-byte units"),
    ("ib-cnp-any-link", E + "roce_opcode.c", "return info != NULL && !(info->flags & other) ? info : NULL;",
     "return info;", "the CNP of one link decoded on the other"),
    ("vq-deadline-exclusive", E + "roce_verdq.c", "q->deadline >= now", "q->deadline > now",
     "a verdict is delivered at its deadline, before a frame of that time"),
    ("vq-bound-plus-one", E + "roce_verdq.c", "int full = open >= e->cfg.max_open_verdicts;",
     "int full = open > e->cfg.max_open_verdicts;", "one waiting verdict more than the bound"),
    # ---- roce_ip.c: IPv6 extension headers ----
    ("ip-ah-length-like-others", E + "roce_ip.c", "len = ((size_t)p[h + 1] + 2) * 4;",
     "len = ((size_t)p[h + 1] + 1) * 8;", "IPv6 AH length read in 8-byte units"),
    # ---- roce_bth.c: classification, ICRC, names ----
    ("bth-short-hdrs-no-icrc", E + "roce_bth.c",
     "if (declared < ROCE_BTH_LEN + hlen + ROCE_ICRC_LEN) {", "if (declared < ROCE_BTH_LEN + hlen) {",
     "the ICRC is not needed for a well-formed length"),
    ("bth-pad-equal-malformed", E + "roce_bth.c", "if (pkt->padcnt > body) {",
     "if (pkt->padcnt >= body) {", "a pad count equal to the payload is malformed"),
    ("bth-icrc-whole-exclusive", E + "roce_bth.c", "if (cfg->check_icrc && pkt->end_off <= caplen) {",
     "if (cfg->check_icrc && pkt->end_off < caplen) {",
     "a frame captured exactly whole is not ICRC-checked"),
    ("bth-nak-texts-swapped", E + "roce_bth.c",
     '{"invalid_request", "invalid request"},\n'
     '    [ROCE_NAK_REMOTE_ACCESS_ERROR] = {"remote_access_error", "remote access error"},',
     '{"invalid_request", "remote access error"},\n'
     '    [ROCE_NAK_REMOTE_ACCESS_ERROR] = {"remote_access_error", "invalid request"},',
     "NAK code words 1 and 2 swapped (summary, plugin)"),
    ("bth-nak-idents-swapped", E + "roce_bth.c",
     '{"invalid_request", "invalid request"},\n'
     '    [ROCE_NAK_REMOTE_ACCESS_ERROR] = {"remote_access_error", "remote access error"},',
     '{"remote_access_error", "invalid request"},\n'
     '    [ROCE_NAK_REMOTE_ACCESS_ERROR] = {"invalid_request", "remote access error"},',
     "NAK code identifiers 1 and 2 swapped (events, JSON)"),
    ("verdict-trigger-names-swapped", E + "roce_verdict.c",
     '[ROCE_TRIGGER_IMPLIED] = "implied",\n    [ROCE_TRIGGER_TIMEOUT] = "timeout",',
     '[ROCE_TRIGGER_IMPLIED] = "timeout",\n    [ROCE_TRIGGER_TIMEOUT] = "implied",',
     "trigger names implied and timeout swapped"),
    # ---- vantage/roce_vantage_*.c: vantage points (rocescope localize) ----
    ("vantage-sightings-reversed", V + "roce_vantage_settle.c", "while (i > 0 && t[i - 1] > gt[p])",
     "while (i > 0 && t[i - 1] < gt[p])", "sightings ordered latest first"),
    ("vantage-ce-after-marking-point", V + "roce_vantage_settle.c",
     "mark_add(v, g, i > 0 ? (int)pt[i - 1] : ROCE_VANTAGE_END, (int)pt[i]);",
     "mark_add(v, g, (int)pt[i], i + 1 < k ? (int)pt[i + 1] : ROCE_VANTAGE_END);",
     "a CE mark located after the first point that saw it marked"),
    ("vantage-partly-seen-no-loss", V + "roce_vantage_settle.c", "if ((g->seen & all) == all) {",
     "if ((g->seen & all) != 0) {", "an original some points missed is no loss candidate"),
    ("vantage-no-episode-candidates", V + "roce_vantage_settle.c",
     "        if (!(g->episode & VBIT(g->first_point)))\n            return;",
     "        if (1)\n            return;", "a go-back-N episode whose original all saw is no loss"),
    ("vantage-outside-span-located", V + "roce_vantage_settle.c",
     "    if (span)\n        candidate = candidate_add(", "    if (1)\n        candidate = candidate_add(",
     "losses outside the common span located"),
    ("vantage-span-no-margin", V + "roce_vantage_settle.c",
     "(t - v->margin < v->first_aligned[p] || t + v->margin > v->last_aligned[p])",
     "(t < v->first_aligned[p] || t > v->last_aligned[p])",
     "the common span without the one-way delay margin"),
    ("vantage-offset-bound-rounded-down", V + "roce_vantage_clock.c", "*bound = w / 2 + w % 2;",
     "*bound = w / 2;", "the clock offset bound rounded down"),
    ("vantage-offset-from-min", V + "roce_vantage_clock.c", "if (down->max > e->lo)\n                e->lo = down->max;",
     "if (down->min > e->lo)\n                e->lo = down->min;", "the offset's lower end from the smallest delta"),
    # ---- the writers: summary, JSON report, events ----
    ("jw-key-quote-plain", R + "jsonw.c",
     "    return c < CONTROL_END || c == '\"' || c == '\\\\';",
     "    return c < CONTROL_END || c == '\\\\';",
     "a quote in a key or string written as it is, not escaped"),
    ("addr-v4-tens", E + "roce_addr.c",
     "        if (v >= TEN)\n            t[k++] = (char)('0' + v / TEN % TEN);",
     "        if (v > TEN)\n            t[k++] = (char)('0' + v / TEN % TEN);",
     "an IPv4 address byte of 10 written as 0"),
    ("text-answered-swapped", R + "report_text.c",
     "t->ce_marked, mark_name(t, t->ce_marked), t->ce_answered, t->ce_unanswered,",
     "t->ce_marked, mark_name(t, t->ce_marked), t->ce_unanswered, t->ce_answered,",
     "summary: answered and unanswered swapped"),
    ("text-flow-unanswered", R + "report_text.c",
     '"CE marks").s,\n         f->ce_unanswered);', '"CE marks").s,\n         f->ce_answered);',
     "summary: a flow's answered marks shown as unanswered"),
    ("text-gaps-swapped", R + "report_text.c",
     '(%s missing)", t->gap_events,\n            count(t->missing_psns, "PSN", "PSNs").s);',
     '(%s missing)", t->missing_psns,\n            count(t->gap_events, "PSN", "PSNs").s);',
     "summary: PSN gaps and missing PSNs swapped"),
    ("text-retx-episodes-swapped", R + "report_text.c",
     'count(t->retransmitted_packets, "packet", "packets").s,\n'
     '            count(t->episodes, "go-back-N episode", "go-back-N episodes").s);',
     'count(t->episodes, "packet", "packets").s,\n'
     '            count(t->retransmitted_packets, "go-back-N episode", "go-back-N episodes").s);',
     "summary: retransmissions and episodes swapped"),
    ("text-best-first", R + "report_rank.c", "        return tx < ty ? 1 : -1;",
     "        return tx < ty ? -1 : 1;", "summary: flows with trouble best first"),
    ("text-episode-duration-as-nak-time", R + "report_text.c",
     "roce_fmt_us_text(ep->nak_to_resend_ns, a)",
     "roce_fmt_us_text(ep->last_ts_ns - ep->first_ts_ns, a)",
     "summary: episode duration shown as NAK to resend"),
    ("json-ce-keys-swapped", R + "report_fields.c",
     'COUNTER(T, "ecn", "ce_answered", ce_answered,', 'COUNTER(T, "ecn", "ce_answered", ce_unanswered,',
     "JSON: ecn.ce_answered holds the unanswered count"),
    ("json-flow-missing", R + "report_fields.c", 'FLOW_COUNT("missing_psns", missing_psns),',
     'FLOW_COUNT("missing_psns", gap_events),', "JSON: a flow's missing_psns holds its gap count"),
    ("json-p50-p99", R + "report_fields_latency.c", 'percentile(w, "p50", s, s->p50);',
     'percentile(w, "p50", s, s->p99);', "JSON: p50 written as p99"),
    ("events-cnp-frames-swapped", R + "events.c",
     'roce_json_put_u64(o, "cnp_frame", v->cnp_frame);', 'roce_json_put_u64(o, "cnp_frame", v->cnp_for_frame);',
     "events: cnp_frame from the wrong member"),
    ("events-no-missing", R + "events.c", "if (v->flags & (ROCE_V_GAP | ROCE_V_RESP_GAP))",
     "if (v->flags & ROCE_V_GAP)", "events: READ response gaps without missing_psns"),
]


def run(cmd, cwd, timeout=1800):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def copy_tree(dst):
    files = run(["git", "ls-files", "-co", "--exclude-standard", "-z"], TOP).stdout.split("\0")
    for f in filter(None, files):
        src = os.path.join(TOP, f)
        if not os.path.isfile(src):
            continue  # deleted in the working tree
        os.makedirs(os.path.dirname(os.path.join(dst, f)), exist_ok=True)
        shutil.copy2(src, os.path.join(dst, f))


def build(src, bdir, jobs):
    p = run(["cmake", "--build", bdir, "-j", str(jobs)], src)
    return p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]


def fast_suite(bdir, jobs):
    """(passed, the failed tests: ctest names, with the failed CUnit tests of a unit suite)."""
    p = run(["ctest", "--test-dir", bdir, "-j", str(jobs), "-R", FAST, "--timeout", "300",
             "--output-on-failure"], bdir)
    failed = re.findall(r"^\s*\d+ - (\S+) \(", p.stdout, re.M)
    cases = re.findall(r"Test: (\S+) \.\.\.FAILED", p.stdout)
    if cases:
        failed = [f"{f}({','.join(cases)})" if f.startswith("unit_") and len(failed) == 1 else f
                  for f in failed]
        if len(failed) > 1:
            failed.append("cases: " + ",".join(cases))
    return p.returncode == 0 and not failed, failed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ids", nargs="*", help="mutant ids or shell patterns (default: all)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--check", action="store_true",
                    help="only check that every mutant applies (its text is found once): "
                    "the ctest mutants_apply")
    ap.add_argument("--keep", metavar="DIR", help="work in DIR (kept) instead of a temporary folder")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    a = ap.parse_args()
    ids = [m[0] for m in MUTANTS]
    if len(set(ids)) != len(ids):
        print("mutate: duplicate mutant ids", file=sys.stderr)
        return 2
    chosen = [m for m in MUTANTS if not a.ids or any(fnmatch.fnmatch(m[0], p) for p in a.ids)]
    if a.list:
        for m in chosen:
            print(f"{m[0]:36} {m[1]:42} {m[4]}")
        return 0
    if a.check:
        stale = []
        for mid, path, text, _, _ in chosen:
            with open(os.path.join(TOP, path), encoding="utf-8") as f:
                n = f.read().count(text)
            if n != 1:
                stale.append(f"{mid}: its text is found {n} times in {path}")
        for line in stale:
            print("STALE", line)
        print(f"{len(chosen) - len(stale)} of {len(chosen)} mutants apply")
        return 1 if stale else 0
    if not chosen:
        print("mutate: no mutant matches", file=sys.stderr)
        return 2

    work = a.keep or tempfile.mkdtemp(prefix="rocescope-mutate-")
    src, bdir = os.path.join(work, "src"), os.path.join(work, "build")
    start = time.monotonic()
    try:
        if os.path.isdir(src):
            shutil.rmtree(src)
        copy_tree(src)
        p = run(["cmake", "-S", src, "-B", bdir, "-DCMAKE_BUILD_TYPE=Debug",
                 "-DCMAKE_INTERPROCEDURAL_OPTIMIZATION=OFF", "-DROCESCOPE_DISSECTOR=OFF",
                 "-DROCESCOPE_WERROR=OFF",
                 "-DROCESCOPE_WIRESHARK_SUITES="], src)
        ok, log = build(src, bdir, a.jobs) if p.returncode == 0 else (False, p.stderr)
        if not ok:
            print("mutate: the unmutated tree does not build:\n" + log, file=sys.stderr)
            return 2
        ok, failed = fast_suite(bdir, a.jobs)
        if not ok:
            print(f"mutate: the fast suite fails without mutants: {failed}", file=sys.stderr)
            return 2
        print(f"baseline built and passing ({time.monotonic() - start:.0f} s); "
              f"{len(chosen)} mutants, fast suite: ctest -R '{FAST}'", flush=True)
        results = []
        for mid, path, text, repl, what in chosen:
            t0 = time.monotonic()
            full = os.path.join(src, path)
            with open(full, encoding="utf-8") as f:
                orig = f.read()
            n = orig.count(text)
            if n != 1:
                results.append((mid, "STALE", f"text found {n} times in {path}", what))
                print(f"{mid:36} STALE (text found {n} times in {path})", flush=True)
                continue
            try:
                with open(full, "w", encoding="utf-8") as f:
                    f.write(orig.replace(text, repl))
                ok, log = build(src, bdir, a.jobs)
                if not ok:
                    errors = [ln for ln in log.splitlines() if "error" in ln]
                    status, detail = "NO-BUILD", (errors or ["?"])[0].strip()
                else:
                    passed, failed = fast_suite(bdir, a.jobs)
                    status = "survived" if passed else "killed"
                    detail = ", ".join(failed) if failed else ""
            finally:
                with open(full, "w", encoding="utf-8") as f:
                    f.write(orig)
            results.append((mid, status, detail, what))
            print(f"{mid:36} {status:8} {time.monotonic() - t0:4.0f} s  {what}"
                  + (f"  [{detail}]" if detail else ""), flush=True)
        build(src, bdir, a.jobs)  # leave the kept build unmutated
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    killed = sum(1 for r in results if r[1] == "killed")
    bad = [r for r in results if r[1] != "killed"]
    print(f"\n{killed} of {len(results)} mutants killed, {len(bad)} not "
          f"({time.monotonic() - start:.0f} s in all)")
    for mid, status, detail, what in bad:
        print(f"  {status}: {mid} ({what}) {detail}")
    return 0 if not bad else 1


if __name__ == "__main__":
    sys.exit(main())
