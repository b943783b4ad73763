"""The human summary against the JSON report of the same run.

check(text, report) reads the summary (analyzer/report/report_text.c, described
in analyzer/report/REPORT.md, "Human summary") with its own patterns and
returns the list of its disagreements with the JSON report (parsed with
parse_float=decimal.Decimal): every total, every listed flow with trouble,
every listed go-back-N episode, every listed pause episode, the clean flows, and the Diagnosis section
(each finding's severity, kind, sentence and frames, in the JSON report's
order). The words that name NAK
codes are written here from PROTOCOL.md ("AETH": 0 PSN sequence error, 1
invalid request, 2 remote access error, 3 remote operational error, 4 invalid
RD request), not taken from the engine. So a summary that puts a count in the
wrong place or names it wrongly fails even after the expected files were
rewritten.
"""
from decimal import Decimal
import re

NAK_WORDS = {"PSN sequence error": "psn_sequence_error", "invalid request": "invalid_request",
             "remote access error": "remote_access_error",
             "remote operational error": "remote_operational_error",
             "invalid RD request": "invalid_rd_request", "reserved code": "reserved_code",
             "RNR": "rnr"}
TRIGGERS = ("nak", "rnr", "implied", "timeout")
ENCAPS = ("erspan1", "erspan2", "erspan3", "gre_teb", "gre_ip", "vxlan", "ib_mirror")
N = r"(\d+)"
US = r"(-?\d+\.\d{3})"


class _Check:
    def __init__(self):
        self.problems = []

    def eq(self, what, got, want):
        if got != want:
            self.problems.append(f"{what}: summary {got}, JSON {want}")

    def fail(self, what):
        self.problems.append(what)


def _line(c, lines, label, pattern):
    """The groups of the totals line `label` (matched whole), or None."""
    for ln in lines:
        if ln.startswith("  " + label):
            m = re.fullmatch(r"  " + re.escape(label) + r" +" + pattern, ln)
            if m is None:
                c.fail(f"line not understood: {ln!r}")
            return m
    return None


def _named_counts(c, what, text, words):
    """'a 1, b 2' with names from words -> {json key: count}; the items come in
    the order of words (NAK codes by number, triggers and encapsulations as
    the JSON report orders them)."""
    out = {}
    for item in text.split(", "):
        m = re.fullmatch(r"(.+) (\d+)", item)
        if m is None or m.group(1) not in words:
            c.fail(f"{what}: unknown item {item!r}")
            continue
        out[words[m.group(1)]] = int(m.group(2))
    order = list(words.values())
    if [order.index(k) for k in out] != sorted(order.index(k) for k in out):
        c.fail(f"{what}: not in the order {order}: {text!r}")
    return out


def _naks(c, what, text, naks):
    got = _named_counts(c, what, text, NAK_WORDS)
    want = {k: v for k, v in naks.items() if k != "total" and v}
    c.eq(what, got, want)


def _step_us(cap):
    """The step of the capture's time stamps in us (REPORT.md: timestamp_steps):
    None when some are finer than 1 us (or there are none)."""
    st = cap["timestamp_steps"]
    if st["finer_than_us"] or not (st["us"] or st["ms"]):
        return None
    return Decimal(1) if st["us"] else Decimal(1000)


def _latency(c, lines, label, lat, step):
    V = r"(<\d+|-?\d+\.\d{3})"
    m = _line(c, lines, label, rf"min {V} us, p50 {V}, p99 {V}, max {V} \({N} samples?"
              rf"(; time stamps in 1 (?:us|ms) steps)?\)")
    if lat["count"] == 0:
        if m is not None:
            c.fail(f"{label} shown without samples")
        return
    if m is None:
        c.fail(f"{label}: missing ({lat['count']} samples)")
        return
    # a value under the step of the time stamps reads "<step"
    want = [f"<{step}" if step is not None and Decimal(lat[k]) < step else Decimal(lat[k])
            for k in ("min", "p50", "p99", "max")]
    got = [x if x.startswith("<") else Decimal(x) for x in m.groups()[:4]]
    c.eq(label, got + [int(m.group(5))], want + [lat["count"]])
    c.eq(f"{label} step noted", m.group(6) is not None, step is not None)


GAP_WORDS = (("lost in the network", "network_loss"), ("missed by the capture", "capture_loss"),
             ("reordered", "reordered"), ("undetermined", "undetermined"))


def _gap_classes(c, text):
    """'lost in the network 1, missed by the capture 3 (1 inferred), ...' ->
    {class: count}, with the capture's two classes apart; in that order."""
    out = {}
    if not text:
        return out
    order = []
    for item in text.split(", "):
        m = re.fullmatch(r"(.+?) (\d+)(?: \((\d+) inferred\))?", item)
        words = dict(GAP_WORDS)
        if m is None or m.group(1) not in words:
            c.fail(f"gap classes: {item!r} not understood")
            continue
        key = words[m.group(1)]
        order.append(key)
        n, inferred = int(m.group(2)), int(m.group(3) or 0)
        if key == "capture_loss":
            out["capture_loss"], out["capture_loss_inferred"] = n - inferred, inferred
        else:
            out[key] = n
    c.eq("gap classes in order", order, [k for _, k in GAP_WORDS if k in order])
    return {k: v for k, v in out.items() if v}


def _gap_classes_json(by):
    return {k: v for k, v in by.items() if v}


def _totals(c, lines, r):
    cap = r["capture"]
    # native InfiniBand: its count among the versions, and a line of its own (REPORT.md)
    ib = cap["ib_packets"] or any(cap["vcrc"].values())
    m = _line(c, lines, "packets", rf"{N} in (\d+\.\d{{9}}) s: RoCE {N} \(v2 {N}, v1 {N}"
              + (rf", InfiniBand {N}" if ib else "()") + rf"\), "
              rf"non-RoCE {N}, malformed {N}, truncated {N}")
    if m:
        got = [int(m.group(1)), Decimal(m.group(2))] + [int(x) for x in m.groups()[2:] if x != ""]
        c.eq("packets", got,
             [cap["packets"], cap["duration_s"], cap["roce_packets"], cap["rocev2_packets"],
              cap["rocev1_packets"]] + ([cap["ib_packets"]] if ib else [])
             + [cap["non_roce_packets"], cap["malformed_packets"], cap["truncated_packets"]])
    m = _line(c, lines, "InfiniBand", rf"{N} transport, {N} raw, {N} IPv6 \(not RoCE\); "
              rf"VCRC {N} good, {N} bad, {N} unchecked")
    if ib and m:
        c.eq("InfiniBand", [int(x) for x in m.groups()],
             [cap["ib_packets"], cap["ib_non_transport"]["raw"], cap["ib_non_transport"]["ipv6"],
              cap["vcrc"]["good"], cap["vcrc"]["bad"], cap["vcrc"]["unchecked"]])
    elif ib or m:
        c.fail(f"InfiniBand line {'missing' if ib else 'without InfiniBand packets'}")
    m = _line(c, lines, "RoCE traffic", rf"{N} requests?, {N} responses?, {N} CNPs?")
    if m:
        c.eq("RoCE traffic", [int(x) for x in m.groups()],
             [cap["request_packets"], cap["response_packets"], cap["cnp_packets"]])
    m = _line(c, lines, "ICRC", rf"{N} good, {N} bad, {N} unchecked( \(every ICRC checked is bad: "
              rf"the capture path probably altered the frames, not a link\))?"
              rf"(?:; {N} valid with another UDP source port \(rewritten on the way\))?"
              rf"(?:; {N} valid with another IPv4 identification \(rewritten on the way\))?")
    if m:
        ic = cap["icrc"]
        c.eq("ICRC", [int(x) for x in m.groups()[:3]], [ic["good"], ic["bad"], ic["unchecked"]])
        rw = ic["rewritten"]
        c.eq("ICRC rewritten", [int(m.group(5) or 0), int(m.group(6) or 0)],
             [rw["udp_sport"], rw["ipv4_id"]])
        # every ICRC bad, and no rewritten field explains them all
        c.eq("ICRC all bad", bool(m.group(4)),
             ic["bad"] > 0 and ic["good"] == 0 and sum(rw.values()) < ic["bad"])
    m = _line(c, lines, "flows", rf"{N} tracked, {N} connections? \({N} set up by CM\), {N} evicted")
    if m:
        c.eq("flows", [int(x) for x in m.groups()],
             [r["limits"]["flows_active"], len(r["connections"]), r["cm"]["connections"],
              r["limits"]["flows_evicted"]])
    m = _line(c, lines, "PSN gaps", rf"{N} \({N} PSNs? missing\)(?:: (.+?))?"
              rf"(?:; {N} packets? out of order)?")
    if m:
        g = r["psn_gaps"]
        c.eq("PSN gaps", [int(m.group(1)), int(m.group(2)), int(m.group(4) or 0)],
             [g["events"], g["missing_psns"], g["reordered_packets"]])
        c.eq("PSN gaps by class", _gap_classes(c, m.group(3)), _gap_classes_json(g["by_class"]))
    m = _line(c, lines, "retransmitted",
              rf"{N} packets? in {N} go-back-N episodes?(?: \((.+)\))?")
    if m:
        rt = r["retransmission"]
        c.eq("retransmitted", [int(m.group(1)), int(m.group(2))], [rt["packets"], rt["episodes"]])
        got = _named_counts(c, "triggers", m.group(3), {t: t for t in TRIGGERS}) if m.group(3) else {}
        c.eq("episodes by trigger", got, {k: v for k, v in rt["by_trigger"].items() if v})
    m = _line(c, lines, "NAKs", rf"{N}(?:: (.+))?")
    if m:
        c.eq("NAKs", int(m.group(1)), r["naks"]["total"])
        if m.group(2):
            _naks(c, "NAKs by code", m.group(2), r["naks"])
        else:
            c.eq("NAKs by code", {}, {k: v for k, v in r["naks"].items() if k != "total" and v})
    m = _line(c, lines, "READ resp gaps", rf"{N} \({N} PSNs? missing\)")
    c.eq("READ resp gaps", [int(x) for x in m.groups()] if m else [0, 0],
         [r["read_response_gaps"]["events"], r["read_response_gaps"]["missing_psns"]])
    m = _line(c, lines, "PSN reuse", rf"{N} requests? reuses? a PSN of an earlier READ")
    c.eq("PSN reuse", int(m.group(1)) if m else 0, r["psn_reuse"])
    marks = ("CE/FECN" if cap["rocev2_packets"] else "FECN") if ib else "CE"
    m = _line(c, lines, "ECN", rf"{N} {marks} marks? \({N} answered, {N} unanswered\), "
              rf"{N} CNPs?(?: and {N} BECN responses?)? \({N} matched, {N} unexplained\)")
    if m:
        e = r["ecn"]
        c.eq("ECN", [int(x) if x is not None else 0 for x in m.groups()],
             [e["ce_marked"], e["ce_answered"], e["ce_unanswered"], cap["cnp_packets"],
              e["becn_packets"], e["cnps_matched"], e["cnps_unexplained"]])
        if (m.group(5) is not None) != (e["becn_packets"] > 0):
            c.fail("BECN responses shown without any, or not shown")
    for label in ("packets", "RoCE traffic", "ICRC", "flows", "PSN gaps", "retransmitted", "NAKs",
                  "ECN"):
        if not any(ln.startswith("  " + label + " ") for ln in lines):
            c.fail(f"totals line {label!r} missing")
    _latency(c, lines, "CNP latency", r["ecn"]["cnp_latency_us"], _step_us(cap))
    _latency(c, lines, "ACK latency", r["ack_latency_us"], _step_us(cap))
    enc = r["encapsulation"]
    m = _line(c, lines, "mirrored", rf"{N} frames? unwrapped \((.+)\)")
    c.eq("mirrored", int(m.group(1)) if m else 0, sum(enc.values()))
    if m:
        c.eq("mirrored by encapsulation",
             _named_counts(c, "mirrored", m.group(2), {k: k for k in ENCAPS}),
             {k: v for k, v in enc.items() if v})
    _pfc(c, lines, r["pfc"])
    lim = r["limits"]
    m = _line(c, lines, "limits hit", rf"{N} flows? evicted, {N} episodes? not listed, "
              rf"{N} verdicts? settled early, {N} CE marks? untracked, {N} CNPs? decided early"
              rf"(?:; for the diagnoses: {N} CNPs? not evaluated, {N} gaps? settled early by "
              rf"time, {N} frames? of untracked MACs, {N} source ports? not kept)?")
    want = [lim["flows_evicted"], lim["episodes_unlisted"], lim["verdicts_forced"],
            lim["ce_tracking_overflow"], lim["cnp_tracking_overflow"], lim["dcqcn_untracked"],
            lim["gap_tracking_overflow"], lim["macs_untracked"], lim["udp_sports_untracked"]]
    c.eq("limits hit", [int(x or 0) for x in m.groups()] if m else [0] * 9, want)


def _pfc(c, lines, p):
    m = _line(c, lines, "PFC/PAUSE", rf"{N} PFC frames?, {N} PAUSE frames?")
    c.eq("PFC/PAUSE", [int(x) for x in m.groups()] if m else [0, 0],
         [p["pfc_frames"], p["pause_frames"]])
    rows = [(f"priority {q['priority']}", q) for q in p["priorities"]] + [("link PAUSE", p["pause"])]
    for name, q in rows:
        got = None
        for ln in lines:
            if ln.startswith(f"    {name} "):
                mm = re.fullmatch(rf"    {name} +{N} XOFF, {N} XON, paused {US} us"
                                  rf"(?:, PAUSE STORM in {N} windows?)?", ln)
                if mm is None:
                    c.fail(f"line not understood: {ln!r}")
                    break
                got = [int(mm.group(1)), int(mm.group(2)), Decimal(mm.group(3)),
                       int(mm.group(4) or 0)]
        want = [q["xoff"], q["xon"], q["paused_us"], q["storm_windows"]] if q["frames"] else None
        c.eq(name, got, want)


def _section(c, lines, title, n):
    """The index of the line that starts a list of the summary (title), or None
    when there is none; it must be there exactly when the JSON report has
    n > 0 of its items."""
    head = [i for i, ln in enumerate(lines) if ln.startswith(title)]
    if bool(head) != bool(n):
        c.fail(f"{title!r} {'listed' if head else 'not listed'}, {n} in the JSON report")
    return head[0] if head and n else None


def _flow_name(f):
    return f"{f['src']} -> {f['dst']} QP 0x{f['dest_qp']:06x}"


def _trouble(f):
    return (f["retransmitted_packets"] + f["missing_psns"] + f["naks"]["total"] + f["psn_reuse"]
            + f["ce_unanswered"] + f["cnps_unexplained"] + f["cnps_carried_unexplained"]
            + f["bad_icrc"] - f["bad_icrc_rewritten"] + f["bad_vcrc"] + f["read_response_gaps"]
            + f["reordered_packets"] + f["responses_early"])


def _troubled(f):
    return _trouble(f) or f["ce_marked"] or f["cnps"] or f["becn_packets"] or f["cnps_for_flow"]


def _gap_items(f):
    """The classes of a flow's gaps as the summary writes them after its PSN
    gaps (no comma before them: they follow a colon)."""
    by = f["psn_gaps_by_class"]
    parts = []
    if by["network_loss"]:
        parts.append(f"lost in the network {by['network_loss']}")
    cap = by["capture_loss"] + by["capture_loss_inferred"]
    if cap:
        parts.append(f"missed by the capture {cap}" + (
            rf" \({by['capture_loss_inferred']} inferred\)" if by["capture_loss_inferred"] else ""))
    if by["reordered"]:
        parts.append(f"reordered {by['reordered']}")
    if by["undetermined"]:
        parts.append(f"undetermined {by['undetermined']}")
    return ": " + ", ".join(parts) if parts else ""


def _flow_items(f):
    """The items the summary gives for flow f, in its order (REPORT.md)."""
    carried = f["cnps_carried_unexplained"]
    unexplained = ("" if carried == 0 else ", unexplained" if carried == f["cnps"] == 1 else
                   ", all unexplained" if carried == f["cnps"] else rf" \({carried} unexplained\)")
    items = [(f["retransmitted_packets"], rf"{f['retransmitted_packets']} retransmitted in "
              rf"{f['episode_count']} episodes?"),
             (f["psn_gaps"], rf"{f['psn_gaps']} PSN gaps? \({f['missing_psns']} missing\)"
              + _gap_items(f)),
             (f["reordered_packets"], rf"{f['reordered_packets']} packets? out of order"),
             (f["psn_reuse"], rf"{f['psn_reuse']} requests? reuses? a PSN of an earlier READ"),
             (f["read_response_gaps"], rf"{f['read_response_gaps']} READ response gaps?"),
             (f["ce_marked"], rf"{f['ce_marked']} {'FECN' if f['version'] == 3 else 'CE'} marks? "
              rf"\({f['ce_unanswered']} unanswered\)"),
             (f["cnps_for_flow"], rf"{f['cnps_for_flow']} CNPs? for it "
              rf"\({f['cnps_matched']} matched, {f['cnps_unexplained']} unexplained\)"),
             (f["cnps"], rf"{f['cnps']} CNPs? carried{unexplained}"),
             (f["becn_packets"], rf"{f['becn_packets']} BECNs? carried"),
             (f["bad_icrc"], rf"{f['bad_icrc']} bad ICRCs?"),
             (f["bad_vcrc"], rf"{f['bad_vcrc']} bad VCRCs?")]
    dq = f.get("dcqcn")
    if dq is not None and dq["cnps_evaluated"]:
        ratio = Decimal(dq["rate_ratio_p50"]).quantize(Decimal("0.01"), rounding="ROUND_DOWN")
        n = dq["cnps_evaluated"]
        items.append((n, rf"DCQCN {dq['verdict']} \(median rate ratio {ratio} over {n} CNPs? "
                         rf"evaluated\)"))
    if f["pause_stalls"]:
        share = (rf" \({f['pause_share_pct']} % of its life\)"
                 if f["pause_share_pct"] is not None else "")
        hol = f", {f['hol_stalls']} of them head-of-line" if f["hol_stalls"] else ""
        items.append((f["pause_stalls"], rf"{f['pause_stalls']} stalls? by pauses, "
                                         rf"{f['pause_stall_us']} us{share}{hol}"))
    return [p for n, p in items if n]


def _ranked(r):
    """The report's one ranking (REPORT.md "One ranking"), computed here from
    the JSON report: the flows the diagnoses name (subjects with a dest_qp),
    in the diagnoses' order, each finding's subjects in their order (of a
    key seen twice, the latest flow); then the other flows with trouble,
    worst first."""
    latest = {}
    for f in r["flows"]:
        k = (f["src"], f["dst"], f["dest_qp"])
        if k not in latest or latest[k]["id"] < f["id"]:
            latest[k] = f
    named, seen = [], set()
    for d in r.get("diagnoses", []):
        for s in d["subjects"]:
            sj = s["subject"]
            f = latest.get((sj.get("src"), sj.get("dst"), sj.get("dest_qp")))
            if "dest_qp" in sj and f is not None and f["id"] not in seen:
                seen.add(f["id"])
                named.append(f)
    rest = sorted((f for f in r["flows"] if _troubled(f) and f["id"] not in seen),
                  key=lambda f: (-_trouble(f), -f["ce_marked"], f["id"]))
    return named + rest


def _flows(c, lines, r, top):
    by_name = {}
    for f in r["flows"]:
        by_name.setdefault(_flow_name(f), []).append(f)
    troubled = _ranked(r)
    head = _section(c, lines, "Flows with trouble", len(troubled))
    if head is None:
        return
    m = re.fullmatch(rf"Flows with trouble, worst first \({N}(?:, first {N} shown)?\):",
                     lines[head])
    if m is None:
        c.fail(f"line not understood: {lines[head]!r}")
        return
    c.eq("flows with trouble", int(m.group(1)), len(troubled))
    i = head + 1
    for rank, f in enumerate(troubled[:top], 1):
        if i + 1 >= len(lines):
            c.fail(f"flow #{rank} missing")
            return
        peer = ""
        if f["paired_with"] is not None:
            peer = f", paired with QP 0x{f['paired_with']['dest_qp']:06x} \\({f['paired_by']}\\)"
        if not re.fullmatch(rf"  #{rank} {re.escape(_flow_name(f))}  {f['transport']}{peer}",
                            lines[i]):
            c.fail(f"flow #{rank}: {lines[i]!r}, JSON: {_flow_name(f)} {f['transport']} "
                   f"paired {f['paired_with']} by {f['paired_by']} (id {f['id']})")
        want = rf"     {f['packets']} packets?" + "".join(", " + p for p in _flow_items(f))
        d = lines[i + 1]
        if f["naks"]["total"]:
            d, sep, naks = d.partition(", NAKs sent: ")
            if not sep:
                c.fail(f"flow #{rank}: no NAKs sent in {lines[i + 1]!r}")
            else:
                _naks(c, f"flow #{rank} NAKs sent", naks, f["naks"])
        if not re.fullmatch(want, d):
            c.fail(f"flow #{rank} details: {lines[i + 1]!r}, JSON wants /{want}/")
        i += 2


def _episodes(c, lines, r, top):
    eps = []
    for f in r["flows"]:
        eps += [(e, f) for e in f["episodes"]]
    eps.sort(key=lambda x: x[0]["first_frame"])
    head = _section(c, lines, "Go-back-N episodes", len(eps))
    if head is None:
        return
    listed = lines[head + 1:head + 1 + min(top, len(eps))]
    for ln, (e, f) in zip(listed, eps):
        nak = ""
        if e["nak_frame"] is not None:
            gen = ""
            if e["nak_generation_us"] is not None:
                gen = f" sent {e['nak_generation_us']} us after the out-of-sequence arrival"
            nak = (f" \\(NAK frame {e['nak_frame']}{gen}, resent after "
                   f"{e['nak_to_resend_us']} us\\)")
        want = (rf"  frame {e['first_frame']}  {re.escape(_flow_name(f))}  PSN "
                rf"{e['first_psn']}..{e['last_psn']}, {e['packets']} packets?, "
                rf"trigger {e['trigger']}{nak}, lasted {e['duration_us']} us")
        if not re.fullmatch(want, ln):
            c.fail(f"episode {ln!r}, JSON wants /{want}/")


def _pause_sender(p):
    """Who sent pause p, as the summary names it."""
    if p["mac"] is None:
        return "an untracked MAC"
    if p["sender"] == "host":
        return f"host NIC {p['address']} \\({p['mac']}\\)"
    return f"the fabric \\({p['mac']}\\)"


def _pauses(c, lines, r, top):
    """The Pause episodes section against pause_episodes (REPORT.md)."""
    eps = r["pause_episodes"]
    head = _section(c, lines, "Pause episodes", len(eps))
    if head is None:
        return
    more = r["limits"]["pauses_unlisted"]
    want = (rf"Pause episodes \({len(eps)} listed"
            + (rf", {more} more not listed" if more else "")
            + (", first shown" if len(eps) > top else "") + r"\):")
    if not re.fullmatch(want, lines[head]):
        c.fail(f"pause episodes: {lines[head]!r}, JSON wants /{want}/")
    i = head + 1
    t0 = r["capture"]["first_time"]
    for p in eps[:top]:
        prio = "link PAUSE" if p["priority"] is None else f"priority {p['priority']}"
        began = ((p["start"] - t0) * 1000000).quantize(Decimal("0.001"))
        victims = (f" \\({p['innocent']} innocent\\), stalled {p['stall_us']} us"
                   if p["victims"] else "")
        want = (rf"  frame {p['frame']}  {prio} paused by {_pause_sender(p)} at {began} us, "
                rf"{p['duration_us']} us \({p['xoffs']} XOFFs?, ended by "
                rf"{'XON' if p['ended_by'] == 'xon' else 'expiry'}\): {p['victims']} victims?"
                + victims)
        if i >= len(lines) or not re.fullmatch(want, lines[i]):
            c.fail(f"pause {lines[i] if i < len(lines) else None!r}, JSON wants /{want}/")
        i += 1
        for v in p["named"]:
            inn = r", innocent \(head-of-line blocked\)" if v["innocent"] else ""
            want = (rf"     {re.escape(_flow_name(v))}  stalled {v['stall_us']} us until frame "
                    rf"{v['resume_frame']}{inn}")
            if i >= len(lines) or not re.fullmatch(want, lines[i]):
                c.fail(f"victim {lines[i] if i < len(lines) else None!r}, JSON wants /{want}/")
            i += 1
        if p["victims"] > len(p["named"]):
            c.eq("victims not named", lines[i] if i < len(lines) else None,
                 f"     and {p['victims'] - len(p['named'])} more")
            i += 1


def _clean(c, lines, r):
    ranked = set(f["id"] for f in _ranked(r))
    clean = [f for f in r["flows"] if f["id"] not in ranked]
    by_tr = {}
    for f in clean:
        by_tr[f["transport"]] = by_tr.get(f["transport"], 0) + 1
    got = [ln for ln in lines if ln.startswith("Clean flows:")]
    if len(got) != 1:
        c.fail(f"{len(got)} 'Clean flows' lines")
        return
    if got[0] == "Clean flows: none":
        c.eq("clean flows", 0, len(clean))
        return
    m = re.fullmatch(rf"Clean flows: {N} \({N} packets?((?:, [A-Z]+ \d+)*)\)", got[0])
    if m is None:
        c.fail(f"line not understood: {got[0]!r}")
        return
    c.eq("clean flows", [int(m.group(1)), int(m.group(2))],
         [len(clean), sum(f["packets"] for f in clean)])
    tr = dict((k, int(v)) for k, v in re.findall(r", ([A-Z]+) (\d+)", m.group(3)))
    c.eq("clean flows by transport", tr, by_tr)


SEVERITIES = ("error", "warning", "note")


TEXT_FINDINGS = 12  # findings the summary lists (REPORT.md)


def _diagnoses(c, lines, r):
    """The Diagnosis section: first after the header, one line per finding in
    the JSON report's order (the capture's finding first, then those it
    explains, indented, then worst first), its sentence and frames, at most
    TEXT_FINDINGS, then how many more."""
    d = r["diagnoses"]
    if len(lines) < 2 or not lines[1].startswith("  Diagnosis "):
        c.fail("no Diagnosis line after the header")
        return
    if not d:
        c.eq("Diagnosis", lines[1],
             "  Diagnosis      nothing found: no loss, congestion or error to act on")
        return
    first = "the capture first, then " if d[0]["kind"] == "capture" else ""
    c.eq("Diagnosis", lines[1], f"  Diagnosis      {len(d)} finding{'s' if len(d) > 1 else ''}, "
         f"{first}worst first:")
    shown = d[:TEXT_FINDINGS]
    for i, x in enumerate(shown):
        ln = lines[2 + i] if 2 + i < len(lines) else ""
        frames = ""
        if x["frames"]:
            frames = (f" (frame{'s' if len(x['frames']) > 1 else ''} "
                      + ", ".join(str(f) for f in x["frames"]) + ")")
        if x["severity"] not in SEVERITIES:
            c.fail(f"diagnosis {i + 1}: severity {x['severity']!r}")
        indent = "    " if x["cause"] == "capture" and x["kind"] != "capture" else ""
        c.eq(f"diagnosis {i + 1}", ln,
             f"  {indent}{x['severity']:<8} {x['kind']}: {x['summary']}{frames}")
    # the capture's finding, then the findings it explains (notes), then worst first
    rank = [0 if x["kind"] == "capture" else 1 if x["cause"] == "capture" else 2 for x in d]
    c.eq("the capture first", rank, sorted(rank))
    c.eq("what the capture explains is a note",
         [x["severity"] for x in d if x["cause"] == "capture"],
         ["note" for x in d if x["cause"] == "capture"])
    order = [SEVERITIES.index(x["severity"]) for x, k in zip(d, rank) if k == 2]
    c.eq("diagnoses worst first", order, sorted(order))
    end = 2 + len(shown)
    if len(d) > TEXT_FINDINGS:
        more = len(d) - TEXT_FINDINGS
        c.eq("more findings", lines[end] if end < len(lines) else "",
             f"  ... and {more} more finding{'s' if more > 1 else ''} (the JSON report lists "
             "them all)")
        end += 1
    if len(lines) > end and lines[end] != "":
        c.fail(f"no blank line after the diagnoses: {lines[end]!r}")


def check(text, report, top=20):
    """Disagreements of the summary text with the JSON report (a list)."""
    c = _Check()
    lines = text.split("\n")
    if not lines or not lines[0].startswith("rocescope report: "):
        c.fail("no header line")
    _diagnoses(c, lines, report)
    _totals(c, lines, report)
    _flows(c, lines, report, top)
    _episodes(c, lines, report, top)
    _pauses(c, lines, report, top)
    _clean(c, lines, report)
    return c.problems
