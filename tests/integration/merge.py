#!/usr/bin/env python3
"""Many files: `rocescope -j N FILE...` and `rocescope merge REPORT.json...`
against the joint analysis `rocescope FILE...` (rocescope(1), MANY FILES).

For sets of captures whose flows do not span files, and which follow one
another in time, the three must give the same report byte for byte (JSON and
text) and `-j` the same --events:

- scenario captures of captures/ with distinct addresses and QPs (link types
  differ in one set: the first file's is reported), and the PFC scenario
  followed by a copy of another scenario moved 10 s later (the scenarios all
  start at the same time, and a joint analysis of files that overlap in time
  settles CE marks early);
- rocegen bulk captures made with different seeds, each cut down to its own
  host pairs and moved in time after the one before, so that the latency
  distributions are histograms (more than 32 samples) and merge as such;
- a report of several files merged with the report of another.

Every golden report read back and written again by `rocescope merge` is
unchanged (the parser loses nothing). Then the errors and exit statuses: a
non-report JSON, a missing file, a broken one, an edited distribution,
reports made with different options, bad usage, an unwritable output.
"""
import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

import error_lines

# Sets of captures/ scenarios with distinct flows, each file starting after
# the previous one's CE windows (they all start at the same time).
SCENARIO_SETS = [
    ["ecn_cnp.pcap", "loss_receiver.pcap", "psn_reuse.pcap"],
    ["ipv6_vlan.pcap", "rocev1.pcap", "nak_codes.pcap"],
    ["linktype_ipv6.pcap", "loss_sender.pcap"],
    ["rocev1.pcap", "timeout.pcap", "psn_reuse.pcap"],
    ["gre.pcap", "ecn_cnp.pcap"],
    ["clean_rc.pcap"],
    # QP reuse (closed flows, connections named by flow ids) and CNPs decided late
    ["cnp_before_pairing.pcap", "cm_reuse.pcap", "ipv6_vlan.pcap"],
    # the diagnoses: computed again from the merged flows, MACs and evidence
    ["capture_loss.pcap", "pfc_hosts.pcap", "ecmp.pcap"],
    ["ce_unanswered.pcap", "dcqcn.pcap", "nak_generation.pcap", "icrc_rewritten.pcap"],
]
PCAP_HDR = 24
REC_HDR = 16
NS = 1_000_000_000
SHIFT_S = 10
BULK_PACKETS = 40000
BULK_QPS = 16
BULK_HOSTS = 16          # rocegen bulk: QP q uses hosts 10.0.0.(1 + q % 16), 10.0.1.(1 + q % 16)
ETH_IPV4 = 0x0800
IP_SRC_OFF = 14 + 12


def read_pcap(path):
    """(header bytes, [(ts_ns, rest of the record header, data)]) of a
    little-endian nanosecond pcap (what rocegen writes)."""
    with open(path, "rb") as f:
        raw = f.read()
    recs, off = [], PCAP_HDR
    while off < len(raw):
        sec, nsec, caplen, wire = struct.unpack_from("<IIII", raw, off)
        recs.append((sec * NS + nsec, wire, raw[off + REC_HDR:off + REC_HDR + caplen]))
        off += REC_HDR + caplen
    return raw[:PCAP_HDR], recs


def write_pcap(path, header, recs, shift_ns=0):
    with open(path, "wb") as f:
        f.write(header)
        for ts, wire, data in recs:
            ts += shift_ns
            f.write(struct.pack("<IIII", ts // NS, ts % NS, len(data), wire) + data)


def host_of(data):
    """rocegen bulk's host index of an IPv4 frame (None for others)."""
    if len(data) < IP_SRC_OFF + 8 or struct.unpack_from("!H", data, 12)[0] != ETH_IPV4:
        return None
    return (data[IP_SRC_OFF + 3] - 1) % BULK_HOSTS


class Checker:
    def __init__(self, tool, tmp):
        self.tool, self.tmp, self.failures, self.checks = tool, tmp, [], 0

    def run(self, args, cwd=None):
        p = subprocess.run([self.tool, *args], capture_output=True, cwd=cwd, timeout=600)
        return p.returncode, p.stdout, p.stderr.decode()

    def expect(self, what, ok, detail=""):
        self.checks += 1
        if not ok:
            self.failures.append(f"{what}{': ' + detail if detail else ''}")

    def output(self, args, cwd=None):
        rc, out, err = self.run(args, cwd)
        self.expect(f"rocescope {' '.join(args)} exits 0", rc == 0, err.strip())
        return out

    def path(self, name):
        return os.path.join(self.tmp, name)

    def equal(self, what, a, b):
        if a == b:
            self.expect(what, True)
            return
        la, lb = a.decode().splitlines(), b.decode().splitlines()
        first = next((i for i in range(min(len(la), len(lb))) if la[i] != lb[i]), None)
        where = (f"line {first + 1}: {la[first]!r} != {lb[first]!r}" if first is not None
                 else f"{len(la)} lines != {len(lb)} lines")
        self.expect(what, False, where)

    def compare_set(self, name, files, opts=(), cwd=None, jobs=(1, 2, 3)):
        """Joint analysis == -j N == merge of the single reports, JSON and
        text; --events joint == -j."""
        opts = list(opts)
        joint_json = self.output([*opts, "--json", *files], cwd)
        joint_text = self.output([*opts, *files], cwd)
        joint_events = self.output([*opts, "--events", *files], cwd)
        for n in jobs:
            self.equal(f"{name}: -j {n} --json equals the joint report",
                       self.output([*opts, "-j", str(n), "--json", *files], cwd), joint_json)
            self.equal(f"{name}: -j {n} text equals the joint summary",
                       self.output([*opts, "-j", str(n), *files], cwd), joint_text)
            self.equal(f"{name}: -j {n} --events equal the joint events",
                       self.output([*opts, "-j", str(n), "--events", *files], cwd), joint_events)
        reports = []
        for i, f in enumerate(files):
            reports.append(self.path(f"{name}.{i}.json"))
            with open(reports[-1], "wb") as out:
                out.write(self.output([*opts, "--json", f], cwd))
        self.equal(f"{name}: merge --json of the single reports equals the joint report",
                   self.output(["merge", "--json", *reports]), joint_json)
        self.equal(f"{name}: merge (text) of the single reports equals the joint summary",
                   self.output(["merge", *reports]), joint_text)
        return joint_json


def scenario_sets(c, captures):
    for files in SCENARIO_SETS:
        c.compare_set("+".join(files), files, cwd=captures)
    # PFC (with its options) then a scenario moved 10 s later
    header, recs = read_pcap(os.path.join(captures, "ecn_cnp.pcap"))
    write_pcap(c.path("ecn_cnp_later.pcap"), header, recs, SHIFT_S * NS)
    with open(os.path.join(captures, "expected", "pfc.pcap.args")) as f:
        pfc_args = f.read().split()
    c.compare_set("pfc+ecn_cnp_later", [os.path.join(captures, "pfc.pcap"),
                                         c.path("ecn_cnp_later.pcap")], opts=pfc_args)
    # a capture without frames in the middle
    write_pcap(c.path("empty.pcap"), header, [])
    c.compare_set("with an empty capture", [os.path.join(captures, "ecn_cnp.pcap"),
                                            c.path("empty.pcap"),
                                            os.path.join(captures, "rocev1.pcap")])


def bulk_sets(c, rocegen):
    """Bulk captures of different seeds, each keeping its own hosts, one after
    the other in time. Two halves with many CE marks: histograms in the
    single reports already; three thirds with few: exact CNP latencies in
    each single report, a histogram in the merge."""
    sets = [("x2", "0.02", [range(0, 8), range(8, 16)]),
            ("x3", "0.002", [range(0, 5), range(5, 10), range(10, 16)])]
    for name, ce, hosts in sets:
        files = []
        for k, hs in enumerate(hosts):
            src = c.path(f"bulk{name}_{k + 1}.pcap")
            subprocess.run([rocegen, "bulk", "-o", src, "--packets", str(BULK_PACKETS),
                            "--qps", str(BULK_QPS), "--seed", str(k + 1), "--ce", ce], check=True)
            header, recs = read_pcap(src)
            files.append(c.path(f"bulk{name}_{k + 1}_part.pcap"))
            write_pcap(files[-1], header, [r for r in recs if host_of(r[2]) in hs],
                       k * SHIFT_S * NS)
        joint = json.loads(c.compare_set(f"bulk {name}", files, jobs=(2,)))
        singles = [json.loads(c.output(["--json", f])) for f in files]

        def kind(lat):
            return next(iter(lat["distribution"]))
        c.expect(f"bulk {name}: joint ACK latencies are a histogram",
                 kind(joint["ack_latency_us"]) == "buckets" and
                 any(kind(f["ack_latency_us"]) == "buckets" for f in joint["flows"]))
        c.expect(f"bulk {name}: joint CNP latencies are a histogram",
                 kind(joint["ecn"]["cnp_latency_us"]) == "buckets")
        single_kinds = {kind(r["ecn"]["cnp_latency_us"]) for r in singles}
        c.expect(f"bulk {name}: CNP latencies of the single reports",
                 single_kinds == ({"buckets"} if name == "x2" else {"exact_ns"}), str(single_kinds))


def joint_then_merge(c, captures):
    """merge(report of a + b, report of c) == report of a + b + c."""
    files = SCENARIO_SETS[0]
    ab, cc = c.path("ab.json"), c.path("c.json")
    with open(ab, "wb") as f:
        f.write(c.output(["--json", *files[:2]], captures))
    with open(cc, "wb") as f:
        f.write(c.output(["--json", files[2]], captures))
    c.equal("merge of a two-file report and a one-file report equals the joint report",
            c.output(["merge", "--json", ab, cc]), c.output(["--json", *files], captures))


def golden_round_trip(c, captures):
    """Every golden report read back and written again is unchanged."""
    expected = os.path.join(captures, "expected")
    for name in sorted(os.listdir(expected)):
        if name.endswith(".json"):
            path = os.path.join(expected, name)
            with open(path, "rb") as f:
                want = f.read()
            c.equal(f"merge --json {name} alone gives it back", c.output(["merge", "--json", path]),
                    want)


def errors(c, captures):
    good = c.path("good.json")
    with open(good, "wb") as f:
        f.write(c.output(["--json", "ecn_cnp.pcap"], captures))
    other = c.path("other.json")
    with open(other, "wb") as f:
        f.write(c.output(["--json", "--cnp-window", "50", "rocev1.pcap"], captures))
    with open(good, "rb") as f:
        text = f.read()
    cases = {
        "notreport.json": b'{"hello": "world"}\n',
        "notjson.json": b"this is not JSON\n",
        "cut.json": text[:len(text) // 2],
        "trailing.json": text + b"{}",
        # the first p50 of the report (ecn.cnp_latency_us) no longer what its distribution gives
        "edited.json": text.replace(b'"p50": 40.000', b'"p50": 41.000', 1),
        "nodist.json": text.replace(b'"distribution"', b'"distributio"', 1),
        "negative.json": text.replace(b'"packets": 29', b'"packets": -29', 1),
        # issue 26: numbers by RFC 8259, integers a report can hold, times a capture can have
        "u64max.json": text.replace(b'"packets": 29', b'"packets": 18446744073709551615', 1),
        "digits400.json": text.replace(b'"bytes": ', b'"bytes": 1' + b"0" * 399 + b", \"x\": ", 1),
        "dot.json": text.replace(b'"bytes": ', b'"bytes": 1., "x": ', 1),
        "zero1.json": text.replace(b'"bytes": ', b'"bytes": 01, "x": ', 1),
        "plus.json": text.replace(b'"bytes": ', b'"bytes": +1, "x": ', 1),
        "negtime.json": text.replace(b'"first_time": 1', b'"first_time": -1', 1),
        "inftime.json": text.replace(b'"duration_s": ', b'"duration_s": 1e400, "x": ', 1),
        "exptime.json": text.replace(b'"duration_s": ', b'"duration_s": 1e-3, "x": ', 1),
        # each within range; their sums are not
        "bytesmax.json": re.sub(rb'"bytes": \d+', b'"bytes": 9223372036854775807', text, count=1),
        "xoffmax.json": re.sub(rb'"xoff": \d+', b'"xoff": 9223372036854775800', text, count=1),
    }
    for name, data in cases.items():
        with open(c.path(name), "wb") as f:
            f.write(data)
    out = c.path("out.json")

    def case(what, args, status, stderr_has):
        rc, stdout, err = c.run(args)
        c.expect(f"{what}: exit {status}", rc == status, f"exit {rc}, stderr {err.strip()!r}")
        c.expect(f"{what}: message", stderr_has in err, f"stderr {err.strip()!r}")
        lines = error_lines.problem(err, rc)
        c.expect(f"{what}: one error line", lines is None, lines)
        c.expect(f"{what}: no output file", status == 0 or not os.path.exists(out))
        if os.path.exists(out):
            os.unlink(out)

    case("not a report", ["merge", "-o", out, good, c.path("notreport.json")], 1,
         "not a rocescope JSON report")
    case("not JSON", ["merge", "-o", out, c.path("notjson.json")], 1,
         "notjson.json: an object expected (offset 0)")
    case("cut short", ["merge", "-o", out, c.path("cut.json")], 1,
         "the report is cut short (offset %d)" % (len(text) // 2))
    case("data after the report", ["merge", "-o", out, c.path("trailing.json")], 1,
         "data after the report")
    case("missing file", ["merge", "-o", out, good, c.path("nothere.json")], 1,
         "nothere.json: No such file or directory")
    case("a directory", ["merge", "-o", out, c.tmp], 1, "not a regular file")
    case("edited percentile", ["merge", "-o", out, c.path("edited.json")], 1,
         "ecn.cnp_latency_us.distribution: does not give the count and percentiles written")
    case("no distribution", ["merge", "-o", out, c.path("nodist.json")], 1,
         "ecn.cnp_latency_us.distribution: missing")
    case("negative count", ["merge", "-o", out, c.path("negative.json")], 1,
         "capture.packets: negative")
    for name, why in (("u64max", "capture.packets: an integer out of range"),
                      ("digits400", "capture.bytes: an integer out of range"),
                      ("dot", "capture.bytes: not a JSON number: no digit after the decimal point"),
                      ("zero1", "capture.bytes: not a JSON number: a leading zero"),
                      ("plus", "capture.bytes: not a JSON number: a leading '+'"),
                      ("negtime", "capture.first_time: a negative time"),
                      ("inftime", "capture.duration_s: a number out of range"),
                      ("exptime", "capture.duration_s: not an exact decimal number")):
        case(f"{name}.json", ["merge", "-o", out, good, c.path(name + ".json")], 1,
             f"rocescope: {c.path(name + '.json')}: {why}")
    # a sum past 2^63 - 1 is refused naming the report that would make it and the count
    big = c.path("bytesmax.json")
    case("a sum too big", ["merge", "-o", out, big, good], 1,
         f"rocescope: {good}: capture.bytes: the sum of the reports would be more than "
         "9223372036854775807")
    case("a sum too big, the same report twice", ["merge", "-o", out, big, big], 1,
         f"rocescope: {big}: capture.bytes: the sum of the reports would be more than")
    xoff = c.path("xoffmax.json")
    case("a PFC sum too big", ["merge", "-o", out, xoff, xoff, good], 1,
         f"rocescope: {xoff}: pfc.priorities[")
    case("a sum at the bound", ["merge", "-o", out, big], 0, "")
    case("different options", ["merge", "-o", out, good, other], 1,
         "made with another --cnp-window than")
    case("no report", ["merge"], 2, "no report given")
    case("unknown option", ["merge", "--events", good], 2, "unknown option '--events'")
    case("bad --top", ["merge", "--top", "0", good], 2, "--top: invalid value '0'")
    case("unwritable output", ["merge", "-o", os.path.join(c.tmp, "no", "dir.json"), good], 3,
         "dir.json")
    case("merge ok", ["merge", "-o", out, good, c.path("ab.json")], 0, "")
    case("-j 0", ["-j", "0", good], 2, "-j: invalid value '0'")
    case("-j FILE (the old -j for --json)", ["-j", os.path.join(captures, "ecn_cnp.pcap")], 2,
         "JSON output is --json")
    case("-j with -i", ["-j", "2", "-i", "lo"], 2, "-j needs capture files")
    # -j with files that cannot be read: exit 1, the report of the others, the
    # messages of a plain run (in file order)
    bad = ["ecn_cnp.pcap", "nothere.pcap", "loss_receiver.pcap", c.path("notjson.json"),
           "psn_reuse.pcap"]
    for mode in ([], ["--json"], ["--events"]):
        joint, par = c.run([*mode, *bad], cwd=captures), c.run(["-j", "2", *mode, *bad], cwd=captures)
        c.expect(f"-j {' '.join(mode)} with unreadable files: as a plain run", joint == par,
                 f"exit {par[0]} (plain {joint[0]}), stderr {par[2]!r} (plain {joint[2]!r})")
        c.expect(f"-j {' '.join(mode)} with unreadable files: exit 1, messages",
                 par[0] == 1 and "rocescope: nothere.pcap: No such file" in par[2] and
                 "notjson.json: unknown file format" in par[2], par[2])
    rc, stdout, err = c.run(["-j", "2", "nothere.pcap", "gone.pcap"], cwd=captures)
    c.expect("-j with no readable file: exit 1, nothing written", rc == 1 and stdout == b"",
             f"exit {rc}")
    # an incomplete report stays incomplete in the merge, exit 1
    header, recs = read_pcap(os.path.join(captures, "rocev1.pcap"))
    write_pcap(c.path("cut.pcap"), header, recs)
    with open(c.path("cut.pcap"), "r+b") as f:
        f.truncate(os.path.getsize(c.path("cut.pcap")) - 10)
    rc, partial, _ = c.run(["--json", c.path("cut.pcap")])
    with open(c.path("partial.json"), "wb") as f:
        f.write(partial)
    rc, stdout, err = c.run(["merge", "--json", good, c.path("partial.json")])
    c.expect("merge of an incomplete report: exit 1, written, incomplete",
             rc == 1 and b'"complete": false' in stdout and b'"error": "' in stdout, f"exit {rc}")
    c.expect("merge of an incomplete report: one line saying so",
             err.startswith(f"rocescope: {c.path('partial.json')}: an incomplete report (")
             and error_lines.problem(err, rc) is None, repr(err))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for required in ("--rocescope", "--rocegen", "--captures"):
        ap.add_argument(required, required=True)
    a = ap.parse_args()
    captures = os.path.abspath(a.captures)
    tmp = tempfile.mkdtemp(prefix="rocescope-merge-")
    c = Checker(os.path.abspath(a.rocescope), tmp)
    try:
        scenario_sets(c, captures)
        bulk_sets(c, os.path.abspath(a.rocegen))
        joint_then_merge(c, captures)
        golden_round_trip(c, captures)
        errors(c, captures)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in c.failures:
        print("FAIL", f)
    print(f"{c.checks - len(c.failures)}/{c.checks} checks passed")
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
