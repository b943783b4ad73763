#!/usr/bin/env python3
"""`rocescope localize` (rocescope(1) LOCALIZE, analyzer/engine/ANALYSIS.md
"Vantage points") against what the generator knows, and its errors.

- The expected reports of captures/localize (captures/expected/localize),
  written from captures/README.md, are reproduced byte for byte.
- `rocegen localize --truth` (what the generator did): the clock offsets are
  recovered within 1 us; every loss and every CE mark is located where it
  happened, no more and no fewer; for the two taps, for the mirror collector
  split by ERSPAN session and by outer source, and with the files given the
  other way round (then the offset is the same one, negated).
- A bigger pair made from `rocegen bulk` by tools/localize_pair.py (a second
  tap, fabric losses and spine marks, another clock): the same checks against
  that tool's truth and bulk's own count of losses before the first tap.
- PFC pauses across three taps (captures/localize up_* and cycle_*,
  `rocegen localize --pause`): the chain names where pausing started and
  the links in the order they paused, each tied by its sender's MAC; the
  cycle is found with its links in order, whatever order the files are
  given in; --spread-window shorter than the steps breaks the chain; the
  two-tap captures have no pause and no finding.
- Bad input gives `rocescope: WHAT: WHY` and the documented exit status:
  0 ok, 1 input problem, 2 usage, 3 output.
"""
import argparse
import collections
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

import error_lines

OFFSET_TOLERANCE_NS = 1000
PCAP_NS = 0xA1B23C4D


class Checks:
    def __init__(self, tool):
        self.tool = tool
        self.failures = []
        self.count = 0

    def run(self, args, cwd=None):
        p = subprocess.run([self.tool, "localize", *args], capture_output=True, text=True,
                           cwd=cwd, timeout=300)
        return p.returncode, p.stdout, p.stderr

    def check(self, what, ok, detail=""):
        self.count += 1
        if not ok:
            self.failures.append(f"{what}{': ' + detail if detail else ''}")

    def status(self, what, args, want_rc, stderr_has=None, cwd=None):
        rc, out, err = self.run(args, cwd)
        ok = rc == want_rc and (stderr_has is None or stderr_has in err)
        if ok and want_rc != 0:
            ok = re.search(r"^rocescope: [^:]+: .+", err, re.M) is not None
        lines = error_lines.problem(err, rc) if ok else None
        self.check(what, ok and lines is None,
                   f"exit {rc} (want {want_rc}); stderr: {err.strip()[:300]} {lines or ''}")
        return rc, out, err


def events(report, key, names=None):
    """The located losses or CE marks as a multiset of tuples (names mapped)."""
    m = names or {}
    return collections.Counter(
        (e["src"], e["dst"], e["dest_qp"], e["psn"], m.get(e["after"], e["after"]),
         m.get(e["before"], e["before"])) for e in report[key])


def segments(report, names=None):
    m = names or {}
    return {(m.get(s["after"], s["after"]), m.get(s["before"], s["before"])):
            (s["lost"], s["ce_marked"], json.dumps(s["latency_us"])) for s in report["segments"]}


def offset_of(report, name):
    for c in report["clock_offsets"]:
        if c["vantage_point"] == name:
            return c["offset_ns"]
    return None


def read_pcap(path):
    with open(path, "rb") as f:
        data = f.read()
    header, recs, off = data[:24], [], 24
    while off + 16 <= len(data):
        sec, frac, incl, orig = struct.unpack_from("<IIII", data, off)
        recs.append((sec * 1_000_000_000 + frac, data[off:off + 16 + incl]))
        off += 16 + incl
    return header, recs


def write_pcap(path, header, recs):
    with open(path, "wb") as f:
        f.write(header)
        for _, raw in recs:
            f.write(raw)


def golden(c, captures):
    here = os.path.join(captures, "localize")
    for name, args in (("taps.json", ["tap_a.pcap", "tap_b.pcap"]),
                       ("mirror.json", ["--split-by", "erspan-session", "mirror.pcap"]),
                       ("pause_upstream.json", UPSTREAM),
                       ("pause_cycle.json", CYCLE)):
        rc, out, err = c.run(["--json", *args], cwd=here)
        with open(os.path.join(captures, "expected", "localize", name), encoding="utf-8") as f:
            want = f.read()
        c.check(f"golden {name}", rc == 0 and out == want,
                f"exit {rc} {err.strip()}; diff <(rocescope localize --json {' '.join(args)}) "
                f"captures/expected/localize/{name}")


UPSTREAM = ["up_s3_h2.pcap", "up_s2_s3.pcap", "up_s1_s2.pcap"]
CYCLE = ["cycle_s1_s2.pcap", "cycle_s2_s3.pcap", "cycle_s3_s1.pcap"]


def chain_of(report):
    """The first chain's steps as (point, sender MAC, after_us, evidence, from)."""
    chains = report["pause_spreading"]["chains"]
    if not chains:
        return None
    return [(s["vantage_point"], s["sender_mac"], s["after_us"], s["evidence"], s["from"])
            for s in chains[0]["steps"]]


def kinds(report):
    return [(f["kind"], f["severity"]) for f in report["findings"]]


def rotate_min(links):
    i = links.index(min(links))
    return links[i:] + links[:i]


def pause_checks(c, captures):
    here = os.path.join(captures, "localize")
    want_up = [("up_s3_h2", "02:00:00:00:00:12", 0.0, "origin", None),
               ("up_s2_s3", "02:00:00:00:00:03", 3.0, "mac", "up_s3_h2"),
               ("up_s1_s2", "02:00:00:00:00:02", 6.0, "mac", "up_s2_s3")]
    for order in (UPSTREAM, list(reversed(UPSTREAM)), UPSTREAM[1:] + UPSTREAM[:1]):
        rc, out, err = c.run(["--json", *order], cwd=here)
        r = json.loads(out) if rc == 0 else {}
        got = chain_of(r) if r else None
        c.check(f"upstream chain, files {order}", got == want_up, f"{got}")
        c.check(f"upstream findings, files {order}",
                r and kinds(r) == [("pause_spreading", "warning")] and
                not r["pause_spreading"]["cycles"], f"{r.get('findings') if r else err}")
    # steps 3 us apart: a 2 us window ties none of them, a 4 us one all
    for window, chained in (("2us", False), ("4us", True)):
        rc, out, err = c.run(["--json", "--spread-window", window, *UPSTREAM], cwd=here)
        r = json.loads(out) if rc == 0 else {}
        c.check(f"--spread-window {window}", r and (chain_of(r) is not None) == chained and
                r["options"]["spread_window_us"] == float(window[:-2]),
                f"{r.get('pause_spreading') if r else err}")
    want_cycle = rotate_min(["cycle_s1_s2", "cycle_s3_s1", "cycle_s2_s3"])
    for order in (CYCLE, list(reversed(CYCLE)), CYCLE[2:] + CYCLE[:2]):
        rc, out, err = c.run(["--json", *order], cwd=here)
        r = json.loads(out) if rc == 0 else {}
        cycles = r["pause_spreading"]["cycles"] if r else []
        ok = len(cycles) == 1 and rotate_min(cycles[0]["links"]) == want_cycle and \
            cycles[0]["closed"] == 1 and \
            [s["evidence"] for s in cycles[0]["steps"][1:]] == ["mac"] * 3 and \
            cycles[0]["steps"][0]["vantage_point"] == cycles[0]["steps"][3]["vantage_point"]
        c.check(f"cycle, files {order}", ok, f"{cycles}")
        c.check(f"cycle findings, files {order}", r and kinds(r) == [
            ("pause_cycle", "error"), ("pause_spreading", "warning")] and
            [f["frame"] for f in r["findings"][0]["frames"]] == [25, 25, 25, 27],
            f"{r.get('findings') if r else err}")
    rc, out, err = c.run(CYCLE, cwd=here)
    c.check("cycle in the summary", rc == 0 and
            "error    pause_cycle: 1 cycle of links each pausing the next: cycle_s1_s2 -> "
            "cycle_s3_s1 -> cycle_s2_s3 -> cycle_s1_s2" in out, out[:2000])
    rc, out, err = c.run(["--json", "tap_a.pcap", "tap_b.pcap"], cwd=here)
    r = json.loads(out) if rc == 0 else {}
    c.check("no pause, no finding", r and r["findings"] == [] and
            r["pause_spreading"]["episodes"] == 0, err)


def truth_checks(c, rocegen, captures):
    here = os.path.join(captures, "localize")
    truth = json.loads(subprocess.run([rocegen, "localize", "--truth"], capture_output=True,
                                      text=True, check=True).stdout)
    want_loss = events(truth, "losses")
    want_ce = events(truth, "ce_marks")
    runs = [
        ("two taps", ["tap_a.pcap", "tap_b.pcap"], {}, "tap_b", truth["clock_offsets"]["tap_b"]),
        ("two taps reversed", ["tap_b.pcap", "tap_a.pcap"], {}, "tap_a",
         -truth["clock_offsets"]["tap_b"]),
        ("mirror by session", ["--split-by", "erspan-session", "mirror.pcap"],
         {"mirror/100": "tap_a", "mirror/200": "tap_b"}, "mirror/200",
         truth["clock_offsets"]["mirror/200"]),
        ("mirror by outer source", ["--split-by", "outer-source", "mirror.pcap"],
         {"mirror/10.9.0.1": "tap_a", "mirror/10.9.0.2": "tap_b"}, "mirror/10.9.0.2",
         truth["clock_offsets"]["mirror/200"]),
        ("named points", ["B=tap_b.pcap", "A=tap_a.pcap"], {"A": "tap_a", "B": "tap_b"}, "A",
         -truth["clock_offsets"]["tap_b"]),
    ]
    reports = {}
    for what, args, names, point, offset in runs:
        rc, out, err = c.run(["--json", *args], cwd=here)
        if rc != 0:
            c.check(what, False, f"exit {rc}: {err.strip()}")
            continue
        r = json.loads(out)
        reports[what] = (r, names)
        got = offset_of(r, point)
        c.check(f"{what}: offset of {point} within 1 us", got is not None and
                abs(got - offset) <= OFFSET_TOLERANCE_NS, f"{got} vs {offset}")
        c.check(f"{what}: every loss located", events(r, "losses", names) == want_loss,
                f"{events(r, 'losses', names)} vs {want_loss}")
        c.check(f"{what}: every CE mark located", events(r, "ce_marks", names) == want_ce,
                f"{events(r, 'ce_marks', names)} vs {want_ce}")
    base = reports.get("two taps")
    for what in ("two taps reversed", "mirror by session", "mirror by outer source", "named points"):
        if base is None or what not in reports:
            continue
        r, names = reports[what]
        c.check(f"{what}: the same segments as the two taps", segments(r, names) == segments(base[0]),
                f"{segments(r, names)} vs {segments(base[0])}")
    # the offset given instead of estimated: the same locations
    rc, out, _ = c.run(["--json", "--offset", f"tap_b={truth['clock_offsets']['tap_b']}",
                        "tap_a.pcap", "tap_b.pcap"], cwd=here)
    c.check("--offset given: status and locations", rc == 0 and
            json.loads(out)["clock_offsets"][1]["status"] == "given" and
            events(json.loads(out), "losses") == want_loss)
    # the text summary
    rc, out, _ = c.run(["tap_a.pcap", "tap_b.pcap"], cwd=here)
    c.check("text summary", rc == 0 and out.startswith("rocescope localize: 2 vantage points") and
            "+1234567 ns +/- 4000 ns" in out and "Losses (5):" in out and "CE marks (3):" in out,
            out[:300])


def bulk_pair(c, rocegen, pair, tmp):
    a, b, truth_path = (os.path.join(tmp, n) for n in ("bulk_a.pcap", "bulk_b.pcap", "bulk.json"))
    p = subprocess.run([rocegen, "bulk", "-o", a, "--packets", "30000", "--qps", "8", "--loss",
                        "0.0005", "--ce", "0.001", "--seed", "7", "--stats"],
                       capture_output=True, text=True, check=True)
    lost_before = int(re.search(r"^lost (\d+)", p.stderr, re.M).group(1))
    marked_before = int(re.search(r"ce marks (\d+)", p.stderr).group(1))
    subprocess.run([sys.executable, pair, a, b, "--offset", "-987654321", "--loss", "0.002",
                    "--ce", "0.003", "--seed", "3", "--truth", truth_path], check=True)
    with open(truth_path, encoding="utf-8") as f:
        truth = json.load(f)
    rc, out, err = c.run(["--json", a, b])
    if rc != 0:
        c.check("bulk pair", False, f"exit {rc}: {err.strip()}")
        return
    r = json.loads(out)
    got = offset_of(r, "bulk_b")
    c.check("bulk pair: offset within 1 us", abs(got - truth["offset_ns"]) <= OFFSET_TOLERANCE_NS,
            f"{got} vs {truth['offset_ns']}")
    between = collections.Counter((e["src"], e["dst"], e["dest_qp"], e["psn"], "bulk_a", "bulk_b")
                                  for e in truth["losses"])
    got_between = collections.Counter(k for k in events(r, "losses").elements() if k[4:] == ("bulk_a", "bulk_b"))
    c.check("bulk pair: losses between the taps", got_between == between and len(between) > 0,
            f"{len(got_between)} located, {len(between)} made")
    ce_between = collections.Counter((e["src"], e["dst"], e["dest_qp"], e["psn"], "bulk_a", "bulk_b")
                                     for e in truth["ce_marks"])
    got_ce = collections.Counter(k for k in events(r, "ce_marks").elements() if k[4:] == ("bulk_a", "bulk_b"))
    c.check("bulk pair: marks between the taps", got_ce == ce_between and len(ce_between) > 0)
    seg = {(s["after"], s["before"]): s for s in r["segments"]}
    c.check("bulk pair: losses before the first tap", seg[(None, "bulk_a")]["lost"] == lost_before,
            f"{seg[(None, 'bulk_a')]['lost']} vs bulk's {lost_before}")
    c.check("bulk pair: marks before the first tap",
            seg[(None, "bulk_a")]["ce_marked"] == marked_before)
    c.check("bulk pair: nothing after the last tap, nothing B->A",
            seg[("bulk_b", None)]["lost"] == 0 and seg.get(("bulk_b", "bulk_a"), {"lost": 0})["lost"] == 0)
    c.check("bulk pair: bounded window never full", r["totals"]["window_forced"] == 0)


def errors(c, captures, tmp):
    here = os.path.join(captures, "localize")
    ta, tb = os.path.join(here, "tap_a.pcap"), os.path.join(here, "tap_b.pcap")
    missing = os.path.join(tmp, "nothere.pcap")
    c.status("missing file", [ta, missing], 1, f"rocescope: {missing}: No such file or directory")
    # a capture without RoCE: UDP to port 9
    eth = b"\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x08\x00"
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 32, 1, 0, 64, 17, 0, bytes([10, 0, 0, 1]),
                     bytes([10, 0, 0, 2]))
    frame = eth + ip + struct.pack("!HHHH", 1234, 9, 12, 0) + b"ABCD"
    noroce = os.path.join(tmp, "noroce.pcap")
    with open(noroce, "wb") as f:
        f.write(struct.pack("<IHHiIII", PCAP_NS, 2, 4, 0, 0, 65535, 1))
        f.write(struct.pack("<IIII", 1, 0, len(frame), len(frame)) + frame)
    c.status("a point with no RoCE", [ta, noroce], 1, f"rocescope: {noroce}: no RoCE packets")
    # captures of the same traffic that do not overlap in time (true time: tap A's clock,
    # tap B's runs 1234567 ns ahead)
    header, recs = read_pcap(ta)
    t0 = recs[0][0]
    early = os.path.join(tmp, "early.pcap")
    write_pcap(early, header, [r for r in recs if r[0] - t0 < 100_000])
    header_b, recs_b = read_pcap(tb)
    late = os.path.join(tmp, "late.pcap")
    write_pcap(late, header_b, [r for r in recs_b if 1_369_567 <= r[0] - t0 <= 1_474_567])
    c.status("non-overlapping captures", [early, late], 1, "no transmission in common with early")
    c.status("non-overlapping captures, offset given", ["--offset", "late=1234567", early, late], 1,
             "rocescope: localize: the captures have no time in common")
    # connection 1 at one point, connection 2 (the same QPs and PSNs) at the other: keys
    # alike, times not
    conn2 = os.path.join(tmp, "conn2.pcap")
    write_pcap(conn2, header_b, [r for r in recs_b if r[0] - t0 > 3_000_000])
    c.status("a reused QP's connections in captures of different times", [early, conn2], 1,
             "does not agree on one clock offset")
    # one direction only
    ab_a, ab_b = os.path.join(tmp, "ab_a.pcap"), os.path.join(tmp, "ab_b.pcap")
    for src, dst in ((ta, ab_a), (tb, ab_b)):
        header, recs = read_pcap(src)
        write_pcap(dst, header, [r for r in recs if r[1][16 + 26:16 + 30] == bytes([192, 168, 1, 10])])
    c.status("one direction only", [ab_a, ab_b], 1, "goes one way only; give it with --offset ab_b=NS")
    # usage
    for what, args, msg in [
        ("one file", [ta], "give two or more"),
        ("no file", [], "no capture file given"),
        ("unknown option", ["--frobnicate", ta, tb], "unknown option '--frobnicate'"),
        ("--offset without =", ["--offset", "tap_b", ta, tb], "--offset: invalid value"),
        ("--offset not a number", ["--offset", "tap_b=12x", ta, tb], "--offset: invalid value"),
        ("--offset empty", ["--offset", "tap_b=", ta, tb], "--offset: invalid value"),
        ("--offset unknown point", ["--offset", "tap_c=5", ta, tb], "no vantage point named 'tap_c'"),
        ("--offset of the reference", ["--offset", "tap_a=5", ta, tb], "is the reference clock"),
        ("--split-by", ["--split-by", "vlan", ta, tb], "--split-by: invalid value"),
        ("--path-delay 0", ["--path-delay", "0", ta, tb], "--path-delay: invalid value"),
        ("--path-delay unit", ["--path-delay", "5x", ta, tb], "--path-delay: invalid value"),
        ("--spread-window", ["--spread-window", "never", ta, tb], "--spread-window: invalid value"),
        ("--spread-window 0", ["--spread-window", "0", ta, tb], "--spread-window: invalid value"),
        ("--link-speed", ["--link-speed", "fast", ta, tb], "--link-speed: invalid value"),
        ("--top 0", ["--top", "0", ta, tb], "--top: invalid value"),
        ("missing value", [ta, tb, "--offset"], "needs a value"),
    ]:
        c.status(what, args, 2, msg)
    same = os.path.join(tmp, "same")
    os.makedirs(same, exist_ok=True)
    shutil.copy(ta, os.path.join(same, "tap_a.pcap"))
    c.status("two points with one name", [ta, os.path.join(same, "tap_a.pcap")], 2,
             "two vantage points named 'tap_a'")
    rc, out, _ = c.run(["--help"])
    c.check("--help", rc == 0 and out.startswith("Usage: rocescope localize"))
    # output
    out_path = os.path.join(tmp, "out.json")
    rc, _, _ = c.run(["--json", "-o", out_path, ta, tb])
    ok = rc == 0
    try:
        with open(out_path, encoding="utf-8") as f:
            ok = ok and json.load(f)["command"] == "localize"
    except (OSError, ValueError):
        ok = False
    c.check("-o writes the report", ok)
    c.status("-o into a folder", ["-o", tmp, ta, tb], 3, f"rocescope: {tmp}: Is a directory")
    before = set(os.listdir(tmp))
    c.status("-o with bad input leaves nothing", ["-o", os.path.join(tmp, "x.json"), ta, missing], 1)
    c.check("-o with bad input leaves nothing: no file", set(os.listdir(tmp)) == before,
            str(set(os.listdir(tmp)) - before))
    # a capture cut short: what was read is reported, marked incomplete
    header, recs = read_pcap(tb)
    cut = os.path.join(tmp, "cut.pcap")
    write_pcap(cut, header, recs)
    with open(cut, "r+b") as f:
        f.truncate(os.path.getsize(cut) - 10)
    rc, out, err = c.run(["--json", ta, cut])
    ok = rc == 1 and f"rocescope: {cut}: " in err
    try:
        r = json.loads(out)
        ok = ok and r["complete"] is False and r["error"].startswith(cut)
    except ValueError:
        ok = False
    c.check("a capture cut short", ok, f"exit {rc}: {err.strip()}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rocescope", required=True)
    ap.add_argument("--rocegen", required=True)
    ap.add_argument("--captures", required=True)
    ap.add_argument("--pair", required=True, help="tools/localize_pair.py")
    a = ap.parse_args()
    c = Checks(os.path.abspath(a.rocescope))
    tmp = tempfile.mkdtemp(prefix="rocescope-localize-")
    try:
        golden(c, a.captures)
        pause_checks(c, a.captures)
        truth_checks(c, a.rocegen, a.captures)
        bulk_pair(c, a.rocegen, a.pair, tmp)
        errors(c, a.captures, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in c.failures:
        print("FAIL:", f)
    print(f"{c.count} checks, {len(c.failures)} failures")
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
