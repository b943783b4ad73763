#!/usr/bin/env python3
"""The plugin inside real tshark: loading, fields, display filters, expert
info, Info column, `-z roce,flows` / `-z roce,flowtable`, header-only
frames, the destination-port rule and the port preference.

Scenario captures are written by rocegen into a temporary folder (same
arguments, same bytes); the CLI (`rocescope --events`, `--json`) says what
each must show, so nothing here restates the analysis. One tshark run per
scenario checks several things at once (tshark takes ~0.8 s to start).
"""
import argparse
import collections
import ipaddress
import json
import os
import re
import subprocess
import sys
import tempfile
import time

from plugin_verdicts import cli_events, compare, plugin_events
from tshark_env import TsharkEnv, add_arguments

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from checker import Checker  # noqa: E402
from real_folder import real_folder  # noqa: E402

# Field names dissector/README.md promises (issue 3); more may exist.
REQUIRED_FIELDS = """roce.flow roce.flow.src roce.flow.dst roce.flow.dest_qp roce.paired_qp
roce.paired_by roce.transport roce.bth.fecn roce.bth.becn roce.cnp roce.icrc.status
roce.icrc.computed roce.analysis.expected_psn roce.analysis.psn_gap
roce.analysis.retransmission roce.analysis.episode_frame roce.analysis.gbn_episode
roce.analysis.trigger roce.analysis.nak_frame roce.analysis.time_since_nak
roce.analysis.psn_reuse roce.analysis.nak roce.analysis.rnr roce.analysis.retransmitted_in
roce.analysis.ce roce.analysis.cnp_frame roce.analysis.ce_unanswered
roce.analysis.cnp_for_frame roce.analysis.cnp_latency roce.analysis.cnp_unexplained
roce.analysis.read_response_gap roce.analysis.duplicate_read_response
roce.analysis.malformed roce.flow.id roce.endpoint roce.src_endpoint roce.dst_endpoint
roce.analysis.capture_loss roce.analysis.nak_generation roce.analysis.dcqcn
roce.analysis.dcqcn.rate_before roce.analysis.dcqcn.rate_after roce.analysis.dcqcn.ratio
roce.analysis.dcqcn.verdict roce.analysis.dcqcn.cnps_evaluated roce.diagnosis
roce.diagnosis.severity roce.diagnosis.count roce.vcrc.status roce.vcrc.computed
roce.vcrc.wire""".split()
FRAMENUM_FIELDS = """roce.analysis.episode_frame roce.analysis.nak_frame roce.analysis.psn_reuse
roce.analysis.retransmitted_in roce.analysis.cnp_frame roce.analysis.cnp_for_frame""".split()

# -z roce,flows columns after ID, flow, transport, paired, in order, and the
# JSON flow keys (rocescope --json) they must equal.
FLOW_COLUMNS = [
    ("Packets", lambda f: f["packets"]), ("Bytes", lambda f: f["bytes"]),
    ("Gaps", lambda f: f["psn_gaps"]), ("Missing", lambda f: f["missing_psns"]),
    ("Retx", lambda f: f["retransmitted_packets"]), ("Episodes", lambda f: f["episode_count"]),
    ("NAK", lambda f: f["episodes_by_trigger"]["nak"]),
    ("RNR", lambda f: f["episodes_by_trigger"]["rnr"]),
    ("Impl", lambda f: f["episodes_by_trigger"]["implied"]),
    ("Tmo", lambda f: f["episodes_by_trigger"]["timeout"]),
    ("NAKs", lambda f: f["naks"]["total"]), ("CE", lambda f: f["ce_marked"]),
    ("CE-unans", lambda f: f["ce_unanswered"]), ("CNPs", lambda f: f["cnps_for_flow"]),
    ("Matched", lambda f: f["cnps_matched"]), ("BadICRC", lambda f: f["bad_icrc"]),
]
FLOW_ROW = re.compile(r"^\s*(\d+) (\S+) -> (\S+) QP 0x([0-9a-f]+)\s+(\S+)"
                      r"\s+(-|0x[0-9a-f]+ \(\w+\))\s+(.*)$")
ROW_SEPARATOR = "=" * 20


class Tools:
    def __init__(self, env, rocescope, rocegen, workdir):
        self.env, self.rocescope, self.rocegen, self.workdir = env, rocescope, rocegen, workdir

    def scenario(self, name):
        path = os.path.join(self.workdir, name + ".pcap")
        if not os.path.exists(path):
            subprocess.run([self.rocegen, name, "-o", path], check=True, timeout=60)
        return path

    def events(self, path):
        out = subprocess.run([self.rocescope, "--events", path], check=True, capture_output=True,
                             text=True, timeout=60).stdout
        return [json.loads(line) for line in out.splitlines()]

    def report(self, path):
        out = subprocess.run([self.rocescope, "--json", path], check=True, capture_output=True,
                             text=True, timeout=60).stdout
        return json.loads(out)

    def tshark(self, path, *args):
        rc, out, err = self.env.run("-r", self.env.capture(path), *args)
        if rc != 0:
            raise RuntimeError(f"tshark {' '.join(args)}: exit {rc}: {err.strip()}")
        return out


def frames_with(events, verdict):
    return [e["frame"] for e in events if verdict in e["verdicts"]]


def field_rows(out):
    """-T fields output up to the first tap table: list of cell lists."""
    rows = []
    for line in out.splitlines():
        if line.startswith(ROW_SEPARATOR) or line == "":
            break
        rows.append(line.split("\t"))
    return rows


def flows_table(out):
    """Rows of the -z roce,flows table: {(id, src, dst, qp): {column: int}} (the id:
    a QP reused by a new connection gives two flows of one address triple)."""
    rows = {}
    for line in out.splitlines():
        m = FLOW_ROW.match(line)
        if not m:
            continue
        values = m.group(7).split()
        key = (int(m.group(1)), ipaddress.ip_address(m.group(2)), ipaddress.ip_address(m.group(3)),
               int(m.group(4), 16))
        rows[key] = {name: int(v) for (name, _), v in zip(FLOW_COLUMNS, values)}
        rows[key]["_latency"] = values[len(FLOW_COLUMNS):]
    return rows


def check_flows_table(c, name, out, report):
    """Every flow of the JSON report has its row with the same numbers."""
    rows = flows_table(out)
    c.check(len(rows) == len(report["flows"]),
            f"{name}: -z roce,flows lists {len(rows)} flows, the CLI {len(report['flows'])}")
    for f in report["flows"]:
        key = (f["id"], ipaddress.ip_address(f["src"]), ipaddress.ip_address(f["dst"]),
               f["dest_qp"])
        row = rows.get(key)
        if not c.check(row is not None, f"{name}: no -z roce,flows row for {key}"):
            continue
        for col, get in FLOW_COLUMNS:
            c.check(row[col] == get(f), f"{name}: flow {key} {col}: table {row[col]}, CLI {get(f)}")
        lat = f["cnp_latency_us"]
        want = ["-", "-"] if not lat or lat.get("count", 0) == 0 else \
            [f"{lat['p50']:.3f}", f"{lat['max']:.3f}"]
        c.check(row["_latency"] == want,
                f"{name}: flow {key} CNP latency {row['_latency']}, CLI {want}")


def expert_lines(out):
    """(severity, group, protocol, summary) of `-z expert` output."""
    lines, severity = [], None
    for line in out.splitlines():
        m = re.match(r"^(Errors|Warns|Notes|Chats|Comments) \(\d+\)", line)
        if m:
            severity = m.group(1)
            continue
        m = re.match(r"^\s+\d+\s+(\S+)\s+(\S+)\s+(.*)$", line)
        if m and severity:
            lines.append((severity, m.group(1), m.group(2), m.group(3)))
    return lines


def has_expert(lines, severity, text):
    return any(s == severity and g == "Sequence" and p == "RoCE" and t.startswith(text)
               for s, g, p, t in lines)


def test_diagnoses(c, t):
    """capture_loss, dcqcn, pfc_hosts: a gap the capture missed is never
    called a loss; each diagnosis is an expert info with its sentence on its
    evidence frames (a PFC frame too), from the second pass on; a CNP shows
    its flow's DCQCN verdict, as the CLI's report has it."""
    path = t.scenario("capture_loss")
    report = t.report(path)
    out = t.tshark(path, "-2", "-Y", "roce.analysis.psn_gap", "-T", "fields", "-e",
                   "frame.number", "-e", "roce.analysis.capture_loss", "-e", "_ws.col.Info",
                   "-z", "expert")
    missed = [int(r[0]) for r in field_rows(out) if r[1] != ""]
    want = [e["frame"] for e in t.events(path)
            if e.get("gap_class") in ("capture_loss", "capture_loss_inferred")]
    c.check(missed == want and want, f"capture_loss: roce.analysis.capture_loss on {missed}, "
                                     f"the CLI's gaps the capture missed {want}")
    labels = {int(r[0]): ("[RoCE PSN gap missed by the capture]" in r[2],
                          "[RoCE PSN gap: lost in the network]" in r[2]) for r in field_rows(out)}
    c.check(labels and all(labels[n] == ((True, False) if n in want else (False, True))
                           for n in labels),
            f"capture_loss: Info labels {labels} (missed gaps: {want})")
    ex = expert_lines(out)
    lost = [x for x in ex if x[3].startswith("PSN gap lost in the network")]
    c.check(len(lost) == 1 and any(x[3].startswith("PSN gap missed by the capture") for x in ex),
            f"capture_loss: the missed gaps are called lost: {ex}")
    sevs = {"error": "Errors", "warning": "Warns", "note": "Notes"}
    for d in report["diagnoses"]:  # one subject each: the expert info is the summary
        sev = sevs[d["severity"]]
        c.check(len(d["subjects"]) == 1 and
                any(x[0] == sev and x[2] == "RoCE" and x[3] == d["summary"] for x in ex),
                f"capture_loss: no {sev} expert info {d['summary']!r}")
    # a finding of two QPs: on each evidence frame, the sentence of that frame's QP alone
    path = t.scenario("loss_receiver")
    (d,) = t.report(path)["diagnoses"]
    ex = expert_lines(t.tshark(path, "-2", "-q", "-z", "expert"))
    for sj in d["subjects"]:
        subject = sj["summary"].split(" (")[0]  # "SRC -> DST QP 0x..." (figures follow)
        figures = sj["summary"][len(subject) + 2:-1]
        mine = [x for x in ex if x[3].startswith(subject + " lost packets in the network")]
        c.check(len(mine) == 1 and mine[0][0] == sevs[d["severity"]] and figures in mine[0][3]
                and all(o["summary"].split(" (")[0] not in mine[0][3]
                        for o in d["subjects"] if o is not sj),
                f"loss_receiver: the expert info of {subject}: {mine} (all: {ex})")

    path = t.scenario("dcqcn")
    verdicts = {(f["dst"], f["src"]): f["dcqcn"]["verdict"] for f in t.report(path)["flows"]
                if f["dcqcn"]}
    out = t.tshark(path, "-2", "-Y", "roce.cnp", "-T", "fields", "-e", "roce.flow.src",
                   "-e", "roce.flow.dst", "-e", "roce.analysis.dcqcn.verdict")
    rows = field_rows(out)
    c.check(rows and all(verdicts.get((r[0], r[1])) == r[2] for r in rows),
            f"dcqcn: CNPs show verdicts {rows[:4]}, the CLI's flows {verdicts}")

    path = t.scenario("pfc_hosts")
    frames = [d["frames"] for d in t.report(path)["diagnoses"]]
    for passes in ((), ("-2",)):
        out = t.tshark(path, *passes, "-Y", "roce.diagnosis == \"slow_receiver\"", "-T",
                       "fields", "-e", "frame.number", "-e", "eth.type")
        got = [int(r[0]) for r in field_rows(out)]
        c.check(got == (frames[0] if passes else []) and all(r[1] == "0x8808"
                                                             for r in field_rows(out)),
                f"pfc_hosts {passes}: slow_receiver on {got}, CLI {frames}")


def test_loading(c, t):
    problem = t.env.loaded_plugin()
    c.check(problem is None, f"plugin not loaded: {problem}")
    rc, out, err = t.env.run("-G", "fields")
    c.check(rc == 0, f"tshark -G fields: exit {rc}")
    c.check("Duplicate" not in err and "rocescope" not in err,
            f"tshark reports problems registering the plugin: {err.strip()[:300]}")
    fields = {}
    for line in out.splitlines():
        cells = line.split("\t")
        if cells[0] == "F" and len(cells) > 3:
            fields.setdefault(cells[2], []).append(cells[3])
        if cells[0] == "P" and len(cells) > 2 and cells[2] == "roce":
            fields.setdefault("roce", []).append("protocol")
    c.check("roce" in fields, "protocol roce is not registered")
    for f in REQUIRED_FIELDS:
        c.check(f in fields, f"field {f} is not registered")
    for f in FRAMENUM_FIELDS:
        c.check(fields.get(f) == ["FT_FRAMENUM"], f"{f} is {fields.get(f)}, not FT_FRAMENUM")
    dup = [f for f, types in fields.items() if f.startswith("roce") and len(types) > 1]
    c.check(not dup, f"abbreviations registered twice (expert vs field?): {dup}")


def test_sequence(c, t):
    """loss_receiver: gaps, NAKs, go-back-N. Display filter, Info labels,
    expert info, -z roce,flows against the CLI; one pass shows
    retransmissions too."""
    path = t.scenario("loss_receiver")
    ev = t.events(path)
    retx = frames_with(ev, "retransmission")
    c.check(retx, "loss_receiver: the CLI finds no retransmission (scenario changed?)")
    out = t.tshark(path, "-2", "-Y", "roce.analysis.retransmission", "-T", "fields",
                   "-e", "frame.number", "-e", "_ws.col.Info", "-z", "expert", "-z", "roce,flows")
    rows = field_rows(out)
    c.check([int(r[0]) for r in rows] == retx,
            f"loss_receiver: -Y roce.analysis.retransmission gives {[r[0] for r in rows]}, "
            f"CLI {retx}")
    c.check(all(r[1].startswith("[RoCE Retransmission]") for r in rows),
            f"loss_receiver: Info of retransmissions: {[r[1] for r in rows][:3]}")
    ex = expert_lines(out)
    c.check(has_expert(ex, "Warns", "PSN gap"), "loss_receiver: no PSN gap warning in -z expert")
    c.check(has_expert(ex, "Warns", "NAK: PSN sequence error"), "loss_receiver: no NAK warning")
    c.check(has_expert(ex, "Notes", "Retransmission"), "loss_receiver: no retransmission note")
    c.check(has_expert(ex, "Notes", "Go-back-N episode starts (trigger: nak)"),
            "loss_receiver: no go-back-N note")
    check_flows_table(c, "loss_receiver", out, t.report(path))

    gaps, naks = frames_with(ev, "gap"), frames_with(ev, "nak")
    out = t.tshark(path, "-2", "-Y", "roce.analysis.psn_gap || roce.analysis.nak", "-T", "fields",
                   "-e", "frame.number", "-e", "_ws.col.Info")
    for r in field_rows(out):
        n = int(r[0])
        want = ("[RoCE PSN gap: lost in the network]" if n in gaps
                else "[RoCE NAK: PSN sequence error]")
        c.check(want in r[1], f"loss_receiver: frame {n} Info {r[1]!r} lacks {want}")
    c.check(sorted(int(r[0]) for r in field_rows(out)) == sorted(gaps + naks),
            "loss_receiver: -Y 'roce.analysis.psn_gap || roce.analysis.nak' frames differ "
            "from the CLI")

    # a read filter drops frames after the first pass has fed them to the
    # engine: the NAKs are gone from the view, not from the analysis
    out = t.tshark(path, "-2", "-R", "not roce.analysis.nak", "-Y", "roce.analysis", "-T",
                   "fields", "-e", "roce.analysis.verdicts", "-e", "roce.analysis.trigger")
    want = [[",".join(e["verdicts"]), e.get("trigger", "")] for e in ev
            if "nak" not in e["verdicts"]]
    c.check(field_rows(out) == want, f"loss_receiver, -R 'not roce.analysis.nak': verdicts "
            f"{field_rows(out)}, CLI (NAKs left out) {want}")

    # one pass (no -2): retransmissions are known at once
    out = t.tshark(path, "-Y", "roce.analysis.retransmission", "-T", "fields", "-e", "frame.number")
    c.check([int(r[0]) for r in field_rows(out)] == retx,
            "loss_receiver: one-pass tshark shows other retransmissions than -2")


def test_details(c, t):
    """Details shown as Wireshark users read them: the first retransmission of
    an episode names no episode frame (it would be itself), the others name
    the CLI's; a bad ICRC's values read as Wireshark's own Invariant CRC, a
    bad VCRC's (native InfiniBand, ERF records) as its Variant CRC."""
    path = t.scenario("loss_receiver")
    ev = {e["frame"]: e for e in t.events(path)}
    out = t.tshark(path, "-2", "-Y", "roce.analysis.retransmission", "-T", "fields",
                   "-e", "frame.number", "-e", "roce.analysis.gbn_episode",
                   "-e", "roce.analysis.episode_frame")
    rows = field_rows(out)
    starts = [int(r[0]) for r in rows if "episode_start" in ev[int(r[0])]["verdicts"]]
    c.check(starts, "loss_receiver: no episode start (scenario changed?)")
    for r in rows:
        n, e = int(r[0]), ev[int(r[0])]
        want = "" if n in starts else str(e["episode_frame"])
        c.check(r[2] == want, f"loss_receiver: frame {n} episode_frame {r[2]!r}, want {want!r} "
                f"(CLI: {e['episode_frame']})")

    check_bad_crc(c, t, "bad_icrc", "icrc", "infiniband.invariant.crc", "Invariant CRC")
    # native InfiniBand in ERF records: a bad VCRC as Wireshark's own Variant CRC
    check_bad_crc(c, t, "ib_global", "vcrc", "infiniband.variant.crc", "Variant CRC")


def check_bad_crc(c, t, scenario, crc, ws_field, ws_name):
    """The frames with a bad CRC (crc: icrc or vcrc) are the CLI's, with its
    values, and roce.CRC.wire equals Wireshark's own field ws_field."""
    path = t.scenario(scenario)
    out = t.tshark(path, "-2", "-Y", f"roce.{crc}.status == \"bad\"", "-T", "fields",
                   "-e", "frame.number", "-e", f"roce.{crc}.wire", "-e", ws_field,
                   "-e", f"roce.{crc}.computed")
    rows = field_rows(out)
    bad = [e for e in t.events(path) if f"bad_{crc}" in e["verdicts"]]
    c.check(len(rows) == len(bad) > 0, f"{scenario}: {len(rows)} bad {crc}, CLI {len(bad)}")
    for r, e in zip(rows, bad):
        c.check(r[1] and r[2] and int(r[1], 0) == int(r[2], 0),
                f"{scenario}: frame {r[0]}: roce.{crc}.wire {r[1]}, Wireshark's {ws_name} {r[2]}")
        c.check(int(r[1], 0) == e[f"{crc}_wire"] and int(r[3], 0) == e[f"{crc}_computed"],
                f"{scenario}: frame {r[0]}: plugin {r[1]}/{r[3]}, CLI {e[f'{crc}_wire']}/"
                f"{e[f'{crc}_computed']}")


# scenarios (and real captures, when present) whose flows are paired after
# their first frames, or whose QPs serve two connections
FLOW_SCENARIOS = ["loss_sender", "cm_reuse", "ecn_cnp", "cnp_before_pairing", "read_span"]
FLOW_REAL = ["sanderw71__SoftRoce__Frame_req_and_response_htons_bytes.pcapng",
             "linlinw5__rdma_ib_tutorial__rping.pcap"]


def check_frames_of_flows(c, t, name, path):
    """tshark -2: every frame names its flow (roce.flow.id) as the CLI counts
    it (first and last frame, packets), and shows the flow's final pairing
    and transport, also before the frame where it was paired."""
    report = t.report(path)
    out = t.tshark(path, "-2", "-Y", "roce.flow.id", "-T", "fields", "-e", "frame.number",
                   "-e", "roce.flow.id", "-e", "roce.paired_qp", "-e", "roce.paired_by",
                   "-e", "roce.transport")
    frames = collections.defaultdict(list)
    for r in field_rows(out):
        frames[int(r[1])].append((int(r[0]), r[2], r[3], r[4]))
    listed = {f["id"] for f in report["flows"]}
    c.check(set(frames) == listed, f"{name}: flow ids on frames {sorted(frames)}, CLI flows "
            f"{sorted(listed)}")
    for f in report["flows"]:
        mine = frames.get(f["id"], [])
        nums = [n for n, _, _, _ in mine]
        c.check(nums and (min(nums), max(nums), len(nums)) ==
                (f["first_frame"], f["last_frame"], f["packets"]),
                f"{name}: flow {f['id']}: frames {nums[:5]}..., CLI first {f['first_frame']}, last "
                f"{f['last_frame']}, packets {f['packets']}")
        peer = f["paired_with"]
        want = (str(peer["dest_qp"]) if peer else "", f["paired_by"] if peer else "",
                f["transport"])
        wrong = [(n, q, b, tr) for n, q, b, tr in mine
                 if (str(int(q, 0)) if q else "", b, tr) != want]
        c.check(not wrong, f"{name}: flow {f['id']} is paired with {want} at the end; frames "
                f"show otherwise: {wrong[:3]}")


def test_flows_on_frames(c, t):
    """Flows frame by frame (QP reuse, first frames, final pairing), and the
    -z roce,flows table of a reused QP."""
    for name in FLOW_SCENARIOS:
        check_frames_of_flows(c, t, name, t.scenario(name))
    path = t.scenario("cm_reuse")
    check_flows_table(c, "cm_reuse", t.tshark(path, "-2", "-q", "-z", "roce,flows"),
                      t.report(path))


def test_flows_on_real_frames(c, t, real):
    """The same, frame by frame, on the real captures of FLOW_REAL (--real:
    ctest plugin_features_real)."""
    for name in FLOW_REAL:
        path = os.path.join(real, name)
        c.check(os.path.isfile(path), f"{name}: not among the real captures in {real}")
        if os.path.isfile(path):
            check_frames_of_flows(c, t, name, path)


def test_ecn(c, t):
    """ecn_cnp: CE marks and CNPs: filter, Info, expert, latency table."""
    path = t.scenario("ecn_cnp")
    ev = t.events(path)
    unanswered, cnps = frames_with(ev, "ce_unanswered"), frames_with(ev, "cnp")
    out = t.tshark(path, "-2", "-Y", "roce.analysis.ce_unanswered || roce.cnp", "-T", "fields",
                   "-e", "frame.number", "-e", "_ws.col.Info", "-z", "expert", "-z", "roce,flows")
    rows = field_rows(out)
    c.check(sorted(int(r[0]) for r in rows) == sorted(unanswered + cnps),
            f"ecn_cnp: filtered frames {[r[0] for r in rows]}, CLI {sorted(unanswered + cnps)}")
    for r in rows:
        n = int(r[0])
        want = "[RoCE CE unanswered]" if n in unanswered else "[RoCE CNP"
        c.check(want in r[1], f"ecn_cnp: frame {n} Info {r[1]!r} lacks {want}")
    ex = expert_lines(out)
    c.check(has_expert(ex, "Warns", "CE mark unanswered"), "ecn_cnp: no CE unanswered warning")
    c.check(has_expert(ex, "Notes", "CNP answering a CE mark"), "ecn_cnp: no CNP note")
    c.check(has_expert(ex, "Notes", "CNP unexplained"), "ecn_cnp: no unexplained-CNP note")
    check_flows_table(c, "ecn_cnp", out, t.report(path))


def test_nak_kinds(c, t):
    """rnr and read_loss: RNR NAK in words, implied episodes, response gaps."""
    path = t.scenario("rnr")
    rnr = frames_with(t.events(path), "rnr")
    out = t.tshark(path, "-2", "-Y", "roce.analysis.rnr", "-T", "fields", "-e", "frame.number",
                   "-e", "_ws.col.Info", "-e", "roce.analysis.rnr", "-z", "expert")
    rows = field_rows(out)
    c.check([int(r[0]) for r in rows] == rnr, f"rnr: frames {[r[0] for r in rows]}, CLI {rnr}")
    c.check(all("[RoCE RNR NAK]" in r[1] and "ms" in r[2] for r in rows),
            f"rnr: Info / timer words: {rows[:2]}")
    c.check(has_expert(expert_lines(out), "Warns", "RNR NAK"), "rnr: no RNR NAK warning")

    path = t.scenario("read_loss")
    ev = t.events(path)
    out = t.tshark(path, "-2", "-Y", 'roce.analysis.trigger == "implied" || '
                   "roce.analysis.read_response_gap", "-T", "fields", "-e", "frame.number")
    want = sorted(set(frames_with(ev, "read_response_gap")) |
                  {e["frame"] for e in ev if e.get("trigger") == "implied"})
    c.check(want and sorted(int(r[0]) for r in field_rows(out)) == want,
            f"read_loss: implied / response-gap frames {field_rows(out)}, CLI {want}")


def test_header_only(c, t):
    """truncated (snaplen 64): no Malformed frame, not in _ws.malformed nor in
    the Info column, while the analysis still runs; with the ports left to
    the built-in dissector, its "[Malformed Packet]" Info comes back and the
    analysis still runs."""
    path = t.scenario("truncated")
    ev = t.events(path)
    args = ("-2", "-Y", "_ws.malformed || roce.truncated || roce.analysis", "-T", "fields",
            "-e", "frame.number", "-e", "_ws.malformed", "-e", "_ws.col.Info", "-e",
            "roce.truncated", "-e", "roce.analysis.verdicts")
    rows = field_rows(t.tshark(path, *args))
    cut = [r for r in rows if r[3] in ("1", "True")]
    c.check(len(cut) >= len(rows) // 2, f"truncated: {len(cut)} of {len(rows)} frames flagged "
            "roce.truncated (scenario changed?)")
    c.check(not any(r[1] for r in rows), "truncated: frames in _ws.malformed")
    c.check(not any("Malformed" in r[2] for r in rows),
            f"truncated: Info says Malformed: {[r[2] for r in rows if 'Malformed' in r[2]][:2]}")
    c.check(all(re.search(r"PSN=\d+ \[header only\]|BTH not captured", r[2]) for r in cut),
            f"truncated: Info without the header-only decode: {[r[2] for r in cut][:2]}")
    want = {e["frame"]: ",".join(e["verdicts"]) for e in ev}
    got = {int(r[0]): r[4] for r in rows if r[4]}
    c.check(got == want, f"truncated: verdicts {got}, CLI {want}")

    rows = field_rows(t.tshark(path, "-o", "roce.leave_ports:TRUE", *args))
    c.check(any("Malformed" in r[2] for r in rows),
            "truncated, leave_ports: the built-in's Info is not back (preference ignored?)")
    got = {int(r[0]): r[4] for r in rows if r[4]}
    c.check(got == want, f"truncated, leave_ports: analysis differs: {got}, CLI {want}")


def test_ports(c, t):
    """noise: a datagram from source port 4791 to another port is not RoCE
    (the built-in would decode it), also after an infiniband preference made
    the built-in take the port back; malformed: each malformed frame is in
    _ws.malformed with its reason; a RoCEv2 frame whose source port 69 makes UDP
    pick TFTP (as in the real oferby capture) is analysed all the same."""
    path = t.scenario("noise")
    # a non-default infiniband preference re-runs the built-in's handoff, which
    # takes the port back (trap 1, dissector/README.md "Why it attaches this way"):
    # the plugin must take it again
    out = t.tshark(path, "-o", "infiniband.try_heuristic_first:FALSE", "-Y",
                   "udp.srcport == 4791 && udp.dstport != 4791", "-T", "fields",
                   "-e", "frame.number", "-e", "_ws.col.Protocol", "-e", "infiniband")
    rows = field_rows(out)
    c.check(rows, "noise: no datagram from source port 4791 (scenario changed?)")
    c.check(all(r[1] != "RRoCE" and r[2] == "" for r in rows),
            f"noise: source-port-only datagrams decoded as RoCE: {rows}")
    out = t.tshark(path, "-o", "roce.leave_ports:TRUE", "-Y",
                   "udp.srcport == 4791 && udp.dstport != 4791", "-T", "fields",
                   "-e", "_ws.col.Protocol", "-e", "roce.analysis")
    rows = field_rows(out)
    c.check(rows and all(r[0] == "RRoCE" and r[1] == "" for r in rows),
            f"noise, leave_ports: built-in not back, or analysis of non-RoCE: {rows}")

    # the UDP port preference moves both the port and the engine's option
    rep = subprocess.run([t.rocescope, "--udp-port", "4792", "--json", path], check=True,
                         capture_output=True, text=True, timeout=60).stdout
    want = json.loads(rep)["capture"]["roce_packets"]
    out = t.tshark(path, "-o", "roce.udp_port:4792", "-q", "-z", "roce,flows")
    m = re.search(r"^Packets: \d+ \(RoCE (\d+)", out, re.M)
    c.check(m and int(m.group(1)) == want,
            f"noise, roce.udp_port 4792: RoCE packets {m and m.group(1)}, CLI --udp-port {want}")

    path = t.scenario("malformed")
    mal = frames_with(t.events(path), "malformed")
    out = t.tshark(path, "-2", "-Y", "_ws.malformed", "-T", "fields", "-e", "frame.number",
                   "-e", "roce.analysis.malformed", "-e", "_ws.col.Info")
    rows = field_rows(out)
    c.check([int(r[0]) for r in rows] == mal, f"malformed: _ws.malformed frames "
            f"{[r[0] for r in rows]}, CLI {mal}")
    c.check(all(r[1] for r in rows), f"malformed: reason missing: {rows[:2]}")
    # Info labels: every malformed frame has one in the packet list (tshark's
    # summary lines, written after the postdissectors). _ws.col.info has it
    # when the frame came through the plugin's port; a datagram whose UDP
    # length is bad never reaches a UDP port dissector, so its label comes
    # from the postdissector, which from 4.2 on runs after _ws.col.* were
    # filled (dissector/README.md): there only up to 4.0.
    out = t.tshark(path, "-2", "-Y", "_ws.malformed")
    summary = [l for l in out.splitlines() if l.strip()]
    c.check(len(summary) == len(mal) and all("[RoCE Malformed]" in l for l in summary),
            f"malformed: packet-list Info without the label: {summary[:3]}")
    # the UDP dissector's own note tells the frames it kept for itself
    routed = [r for r in rows if "BAD UDP LENGTH" not in r[2]]
    c.check(routed and all("[RoCE Malformed]" in r[2] for r in routed),
            f"malformed: _ws.col.info without the label on routed frames: {routed[:2]}")
    unrouted = [r for r in rows if "BAD UDP LENGTH" in r[2]]
    new_cols = tuple(int(x) for x in t.env.version.split(".")) >= (4, 2)
    c.check(unrouted and all(("[RoCE Malformed]" in r[2]) != new_cols for r in unrouted),
            f"malformed: _ws.col.info of a frame labelled by the postdissector on "
            f"{t.env.version}: {unrouted[:2]} (expected the label {'not ' if new_cols else ''}"
            f"to be there)")

    # noise frame 13: a RoCEv2 SEND from UDP source port 69, as one direction of the real
    # oferby capture sends them; UDP tries the lower port first and hands it to TFTP
    path = t.scenario("noise")
    out = t.tshark(path, "-Y", "udp.srcport == 69 && udp.dstport == 4791", "-T", "fields",
                   "-e", "_ws.col.Protocol", "-e", "roce.flow", "-e", "roce.psn")
    rows = field_rows(out)
    c.check(len(rows) == 1 and rows[0][0] == "TFTP" and rows[0][1] and rows[0][2] == "258",
            f"noise: the source-port-69 RoCEv2 frame is not analysed under TFTP: {rows}")


def flowtable_rows(out):
    """Rows of tshark's generic table printer: list of cell lists."""
    return [[x.strip() for x in l.split("|")] for l in out.splitlines()
            if re.match(r"^\s*\d+ \|", l)]


# cells of a -z roce,flowtable row (dissector/roce_ws_stats.c, enum table_col)
FT_RANK, FT_FLOW, FT_PAIRED, FT_ID, FT_FILTER = 0, 1, 19, 20, 21


def cli_ranking(rocescope, path):
    """The flows of rocescope's text summary (#1, #2, ...), worst first."""
    out = subprocess.run([rocescope, path], check=True, capture_output=True, text=True,
                         timeout=60).stdout
    return [m.group(1) for m in re.finditer(r"^\s+#\d+ (\S+ -> \S+ QP 0x[0-9a-f]+)  ", out,
                                             re.M)]


def test_flowtable(c, t):
    """The Statistics-menu table, through tshark's generic table printer:
    ranked by trouble as the CLI's summary, integer columns, the paired QP in
    hex, latencies in microseconds (blank without CNPs), the flow's filter,
    and a display filter that selects flows."""
    path = t.scenario("loss_receiver")
    report = t.report(path)
    rows = flowtable_rows(t.tshark(path, "-2", "-q", "-z", "roce,flowtable"))
    c.check(len(rows) == len(report["flows"]),
            f"-z roce,flowtable: {len(rows)} rows, CLI {len(report['flows'])} flows")
    by_id = {int(r[FT_ID]): r for r in rows}
    for f in report["flows"]:
        r = by_id.get(f["id"])
        if not c.check(r is not None, f"-z roce,flowtable: no row for flow {f['id']}"):
            continue
        # Rank, Flow, Packets, Bytes, Gaps, Missing, Retx: integers as the CLI's
        c.check(r[2:7] == [str(f["packets"]), str(f["bytes"]), str(f["psn_gaps"]),
                           str(f["missing_psns"]), str(f["retransmitted_packets"])],
                f"-z roce,flowtable flow {f['id']}: {r[2:7]}")
        c.check(f"roce.flow.id == {f['id']}" == r[FT_FILTER],
                f"-z roce,flowtable flow {f['id']}: no filter cell in {r}")
        if f.get("paired_with"):
            want = "0x%06x (%s)" % (f["paired_with"]["dest_qp"], f["paired_by"])
            c.check(r[FT_PAIRED] == want, f"-z roce,flowtable flow {f['id']}: paired "
                    f"{r[FT_PAIRED]!r}, CLI {want!r}")
        else:
            c.check(r[FT_PAIRED] == "-", f"-z roce,flowtable flow {f['id']}: paired "
                    f"{r[FT_PAIRED]!r} (unpaired)")
    # the flow's filter selects its frames
    flow = max(report["flows"], key=lambda f: f["packets"])
    out = t.tshark(path, "-2", "-Y", f"roce.flow.id == {flow['id']}")
    n = len([l for l in out.splitlines() if l.strip()])
    c.check(n == flow["packets"], f"roce.flow.id == {flow['id']}: {n} frames, "
            f"CLI {flow['packets']}")
    # a display filter selects flows (with their whole numbers)
    rows = flowtable_rows(t.tshark(path, "-2", "-q", "-z",
                                   "roce,flowtable,roce.analysis.psn_gap"))
    want = sorted(f["id"] for f in report["flows"] if f["psn_gaps"] > 0)
    c.check(sorted(int(r[FT_ID]) for r in rows) == want,
            f"-z roce,flowtable,roce.analysis.psn_gap: flows {[r[FT_ID] for r in rows]}, "
            f"want {want}")
    # ranks: 1..n, the report's one ranking (the CLI summary's order): on
    # dcqcn and ecn_cnp the diagnoses name first a flow with less trouble
    # than another, and rank 1 is that flow
    for name in ("loss_receiver", "dcqcn", "ecn_cnp"):
        path = t.scenario(name)
        rows = flowtable_rows(t.tshark(path, "-2", "-q", "-z", "roce,flowtable"))
        ranked = sorted(rows, key=lambda r: int(r[FT_RANK]))
        c.check([int(r[FT_RANK]) for r in ranked] == list(range(1, len(rows) + 1)),
                f"{name} flowtable: ranks {[r[FT_RANK] for r in rows]}")
        cli = cli_ranking(t.rocescope, path)
        got = [r[FT_FLOW] for r in ranked][:len(cli)]
        c.check(cli and got == cli, f"{name} flowtable: by rank {got}, CLI summary {cli}")
        if name != "loss_receiver":
            sj = t.report(path)["diagnoses"][0]["subjects"][0]["subject"]
            first = "%s -> %s QP 0x%06x" % (sj["src"], sj["dst"], sj["dest_qp"])
            c.check(got[:1] == [first], f"{name} flowtable: rank 1 {got[:1]}, the first "
                    f"diagnosis names {first} first")
    # latencies: microseconds (three decimals) where the flow has CNPs, blank elsewhere
    path = t.scenario("ecn_cnp")
    report = t.report(path)
    rows = {int(r[FT_ID]): r for r in flowtable_rows(t.tshark(path, "-2", "-q", "-z",
                                                               "roce,flowtable"))}
    for f in report["flows"]:
        r = rows.get(f["id"], [])
        lat = f["cnp_latency_us"]
        if lat and lat.get("count", 0) > 0:
            want = ["%.3f" % lat["p50"], "%.3f" % lat["max"]]
            c.check(r[-3:-1] == want, f"ecn_cnp flowtable flow {f['id']}: latency {r[-3:-1]}, "
                    f"CLI {want} us")
        else:
            c.check(r[-2:] == ["roce.flow.id == %d" % f["id"], ""],
                    f"ecn_cnp flowtable flow {f['id']}: latency not blank: {r[-3:]}")


def conv_table(out, kind):
    """Rows of -z conv,roce / -z endpoints,roce: {key: [numbers]}."""
    rows = {}
    for line in out.splitlines():
        if kind == "conv":
            m = re.match(r"^(\S+ QP \S+)\s+<-> (\S+ QP \S+)\s+(\d+) \S+ bytes\s+(\d+) \S+ bytes"
                         r"\s+(\d+) (\d+) bytes", line)
            if m:
                rows[(m.group(1), m.group(2))] = [int(m.group(i)) for i in (3, 4, 5, 6)]
        else:
            m = re.match(r"^(\S+ QP \S+)\s+(\d+)\s+(\d+)\s", line)
            if m:
                rows[m.group(1)] = [int(m.group(2)), int(m.group(3))]
    return rows


def test_conversations(c, t):
    """Statistics > Conversations / Endpoints, RoCE tab (tshark -z conv,roce,
    -z endpoints,roce): one conversation per queue pair keyed by
    "address QP 0x...", with the CLI's packet and byte counts, and the filter
    Wireshark's Apply as Filter writes selects exactly its frames."""
    path = t.scenario("loss_receiver")
    report = t.report(path)
    out = t.tshark(path, "-2", "-q", "-z", "conv,roce", "-z", "endpoints,roce")
    conv = conv_table(out, "conv")
    ends = conv_table(out, "endpoints")
    flows = {f["id"]: f for f in report["flows"]}
    rc = [f for f in report["flows"] if f["transport"] == "RC"]
    c.check(len(rc) == 2, f"loss_receiver: {len(rc)} RC flows (scenario changed?)")
    a, b = rc[0], rc[1]
    end_a = f"{a['src']} QP 0x{b['dest_qp']:06x}"
    end_b = f"{a['dst']} QP 0x{a['dest_qp']:06x}"
    row = conv.get((end_a, end_b)) or conv.get((end_b, end_a))
    total = a["packets"] + b["packets"]
    c.check(row is not None and row[2] == total and row[3] == a["bytes"] + b["bytes"],
            f"-z conv,roce: {end_a} <-> {end_b} row {row}, CLI {total} frames "
            f"(conversations: {list(conv)})")
    c.check(ends.get(end_a, [0])[0] == total and ends.get(end_b, [0])[0] == total,
            f"-z endpoints,roce: {end_a}, {end_b}: {ends}")
    # UD flows are never paired, but their frames carry the source QP (DETH)
    c.check(not any("QP ?" in end for key in conv for end in key),
            f"-z conv,roce: an end without its QP: {list(conv)}")
    c.check(sum(r[2] for r in conv.values()) == sum(f["packets"] for f in flows.values()),
            f"-z conv,roce: {sum(r[2] for r in conv.values())} frames in all")
    # Apply as Filter: A <-> B, and A -> B
    out = t.tshark(path, "-2", "-Y", f'roce.endpoint == "{end_a}" && roce.endpoint == "{end_b}"')
    n = len([l for l in out.splitlines() if l.strip()])
    c.check(n == total, f"conversation filter: {n} frames, CLI {total}")
    out = t.tshark(path, "-2", "-Y",
                   f'roce.src_endpoint == "{end_a}" && roce.dst_endpoint == "{end_b}"')
    n = len([l for l in out.splitlines() if l.strip()])
    c.check(n == a["packets"], f"A -> B filter: {n} frames, CLI {a['packets']}")


COLORFILTERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "dissector",
                            "roce.colorfilters")


def test_colorfilters(c, t):
    """dissector/roce.colorfilters: tshark --color (a terminal, 24-bit colour)
    parses every rule and colours the frames of each kind of trouble."""
    rules = {}
    for line in open(COLORFILTERS):
        m = re.match(r"^@([^@]+)@([^@]+)@\[(\d+),(\d+),(\d+)\]\[(\d+),(\d+),(\d+)\]$",
                     line.strip())
        if m:
            rules[m.group(1)] = tuple(int(m.group(i)) >> 8 for i in range(3, 9))
        elif line.strip() and not line.startswith("#"):
            c.check(False, f"roce.colorfilters: not a rule: {line.strip()}")
    c.check(len(rules) >= 5, f"roce.colorfilters: {len(rules)} rules")
    conf = os.path.join(t.env.home, ".config", "wireshark")
    os.makedirs(conf, exist_ok=True)
    with open(os.path.join(conf, "colorfilters"), "w") as f:
        f.write(open(COLORFILTERS).read())
    os.chmod(conf, 0o755)
    os.chmod(os.path.join(conf, "colorfilters"), 0o644)
    try:
        # a gap lost in the network is trouble; one the capture missed, and a bad ICRC that
        # a sniffer's rewrite explains, are the capture's: grey
        grey = "RoCE capture fault or gap not lost"
        for name, verdict, rule in (("loss_receiver", "gap", "RoCE PSN gap lost in the network"),
                                    ("loss_receiver", "nak", "RoCE NAK"),
                                    ("loss_receiver", "retransmission", "RoCE Retransmission"),
                                    ("ecn_cnp", "ce_unanswered", "RoCE CE unanswered"),
                                    ("ecn_cnp", "cnp_unexplained", "RoCE CNP unexplained"),
                                    ("bad_icrc", "bad_icrc", "RoCE Bad ICRC or malformed"),
                                    ("capture_loss", "capture_loss", grey),
                                    ("icrc_rewritten", "bad_icrc", grey),
                                    ("reorder_resend", "reordered", grey),
                                    ("length_understated", "length_understated", grey)):
            path = t.scenario(name)
            want = set(frames_with(t.events(path), verdict))
            rc, out, err = t.env.run_tty("--color", "-2", "-r", t.env.capture(path))
            c.check(rc == 0 and "olor" not in err,
                    f"tshark --color with roce.colorfilters: exit {rc}: {err.strip()[:300]}")
            bg, fg = rules.get(rule, (0, 0, 0)), ()
            bg, fg = rules[rule][:3], rules[rule][3:]
            esc = f"\x1b[38;2;{fg[0]};{fg[1]};{fg[2]}m\x1b[48;2;{bg[0]};{bg[1]};{bg[2]}m"
            got = set()
            for line in out.splitlines():
                m = re.match(r"^(?:\x1b\[[0-9;]*m)*\s*(\d+) ", line)
                if m and esc in line:
                    got.add(int(m.group(1)))
            c.check(want and want <= got, f"{name}: frames {sorted(want)} ({verdict}) not all "
                    f"coloured by '{rule}': {sorted(got)}")
    finally:
        os.remove(os.path.join(conf, "colorfilters"))


# sharkd tree filters of the frame references -> event keys (the verdict
# names from the roce.analysis.verdicts item; the roce.analysis item's text
# gives their titles, which must be the engine's)
SHARKD_FIELDS = {"roce.analysis.episode_frame": "episode_frame",
                 "roce.analysis.nak_frame": "nak_frame", "roce.analysis.psn_reuse": "reuse_frame",
                 "roce.analysis.retransmitted_in": "retransmitted_in",
                 "roce.analysis.cnp_frame": "cnp_frame",
                 "roce.analysis.cnp_for_frame": "cnp_for_frame"}


def tree_fields(nodes, found):
    """Collect `field == value` filters of a sharkd tree into found."""
    for n in nodes:
        if n.get("f") == "roce.analysis" and n.get("l", "").startswith("Verdicts: "):
            found["titles"] = n["l"][len("Verdicts: "):].split(", ")
        v = re.match(r'^roce\.analysis\.verdicts == "(.*)"$', n.get("f", ""))
        if v:
            found["verdicts"] = v.group(1).split(",")
        m = re.match(r'^([a-z_.]+) == "?(.*?)"?$', n.get("f", ""))
        if m and m.group(1) in SHARKD_FIELDS:
            found[SHARKD_FIELDS[m.group(1)]] = int(m.group(2))
        tree_fields(n.get("n", []), found)


def test_random_access(c, t):
    """Frames revisited in any order (as the GUI does, through sharkd): the
    verdicts and their frame references equal the CLI's, whatever the order."""
    for name in ("ecn_cnp", "loss_receiver", "read_loss"):
        path = t.scenario(name)
        # (the plugin names no episode frame on the episode's own first frame)
        want = {e["frame"]: {k: e[k] for k in ["verdicts", *SHARKD_FIELDS.values()]
                             if k in e and not (k == "episode_frame" and e[k] == e["frame"])}
                for e in t.events(path)}
        frames = sorted(want, reverse=True)
        frames = frames[::2] + frames[1::2]  # descending, then interleaved
        reqs = [{"jsonrpc": "2.0", "id": 1 << 30, "method": "load",
                 "params": {"file": t.env.capture(path)}}]
        reqs += [{"jsonrpc": "2.0", "id": f, "method": "frame",
                  "params": {"frame": f, "proto": True}}
                 for f in frames]
        got = {}
        for r in t.env.run_sharkd(reqs):
            if r.get("id") in want and "result" in r:
                found = {}
                tree_fields(r["result"].get("tree", []), found)
                # the item's text: one title for people per verdict, in its order
                titles = found.pop("titles", [])
                c.check(len(titles) == len(found.get("verdicts", [])) and
                        all(t[:1].isupper() and t != v
                            for t, v in zip(titles, found.get("verdicts", []))),
                        f"{name} frame {r['id']}: verdict titles {titles} for "
                        f"{found.get('verdicts')}")
                got[r["id"]] = found
        c.check(got == want, f"{name}: frames revisited out of order differ: "
                f"{ {f: (want.get(f), got.get(f)) for f in want if want.get(f) != got.get(f)} }")


# preference -> the CLI option it maps onto, and a scenario where it matters
PREFERENCES = [
    ("roce.cnp_window_us:10", ["--cnp-window", "10"], "ecn_cnp"),
    ("roce.check_icrc:FALSE", ["--no-icrc"], "bad_icrc"),
    ("roce.pmtu:256", ["--pmtu", "256"], "read_span"),
]


def test_preferences(c, t):
    """Each engine preference gives the verdicts of the CLI option it maps
    onto, and changes them on its scenario."""
    for pref, options, name in PREFERENCES:
        path = t.scenario(name)
        default = cli_events(t.rocescope, path)
        cli = cli_events(t.rocescope, path, *options)
        c.check(cli != default, f"{pref}: {name} does not exercise it (scenario changed?)")
        diffs = compare(f"{name} with {pref}", cli, plugin_events(t.env, path, "-o", pref)[0])
        c.check(not diffs, "; ".join(diffs[:3]))
    # max_flows changes no verdict of the scenarios, only the evictions
    path = t.scenario("ecn_cnp")
    rep = subprocess.run([t.rocescope, "--max-flows", "4", "--json", path], check=True,
                         capture_output=True, text=True, timeout=60).stdout
    want = json.loads(rep)["limits"]["flows_evicted"]
    out = t.tshark(path, "-o", "roce.max_flows:4", "-q", "-z", "roce,flows")
    m = re.search(r"created, (\d+) evicted", out)
    c.check(want > 0 and m and int(m.group(1)) == want,
            f"roce.max_flows:4: {m and m.group(1)} flows evicted, CLI --max-flows 4: {want}")


def main():
    ap = argparse.ArgumentParser()
    add_arguments(ap)
    ap.add_argument("--rocescope", required=True)
    ap.add_argument("--rocegen", required=True)
    ap.add_argument("--sharkd", required=True, help="sharkd (Debian: wireshark-common, "
                    "which tshark needs)")
    ap.add_argument("--real", help="only the checks on the real captures of this folder "
                    "(tests/real_folder.py)")
    a = ap.parse_args()
    if a.real:
        real_folder(a.real)
    c = Checker()
    with tempfile.TemporaryDirectory(prefix="rocescope-scen-") as work, \
            TsharkEnv(a.tshark, a.plugin, a.wireshark_version, a.sharkd,
                      suite=a.wireshark_suite, root=a.wireshark_root) as env:
        t = Tools(env, a.rocescope, a.rocegen, work)
        test_loading(c, t)
        if c.failures:
            print("the plugin does not load: nothing else checked")
            return 1
        tests = (test_sequence, test_details, test_ecn, test_nak_kinds, test_diagnoses,
                 test_header_only,
                 test_flowtable, test_conversations, test_colorfilters, test_random_access,
                 test_preferences, test_ports, test_flows_on_frames)
        if a.real:
            tests = (lambda c, t: test_flows_on_real_frames(c, t, a.real),)
        for test in tests:
            started = time.monotonic()
            try:
                test(c, t)
            except (RuntimeError, subprocess.SubprocessError, ValueError) as e:
                c.check(False, f"{getattr(test, '__name__', 'test')}: {e}")
            print(f"{getattr(test, '__name__', 'test')}: {time.monotonic() - started:.1f} s")
    print(f"{c.passed} checks passed, {len(c.failures)} failed")
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
