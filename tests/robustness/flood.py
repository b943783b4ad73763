#!/usr/bin/env python3
"""Millions of distinct queue pairs (`rocegen flood`): memory stays under
the configured bound, evictions are counted, run time grows linearly.

Default (CI): QPS queue pairs sending round-robin (each request followed
by its ACK, PACKETS frames: two rounds; half the requests CE-marked, never
answered), analysed with --max-flows MAX_FLOWS. With more queue pairs than flows tracked, every frame finds its
flow evicted (least recently used), so: flows_created = packets, evicted =
created - active, active <= MAX_FLOWS, peak <= MAX_FLOWS, every frame is
RoCE with a good ICRC, every CE mark is counted, and the peak RSS of the run stays under
--rss-bound-mb (0: not checked; sanitizer builds, whose allocator keeps
freed memory in quarantine, pass 0).

Then more open PSN gaps than the engine's table holds (`rocegen flood
--gaps`: GAP_QPS queue pairs each sending GAP_ROUNDS requests that each skip
a PSN, then one ACK per queue pair that acknowledges them all): no bound
turns a gap into network loss (ANALYSIS.md, "Capture loss and network
loss"). The GAP_TABLE gaps still in the table when the ACKs come are
capture loss, confirmed; the ones pushed out before (gap_tracking_overflow)
are settled by the requester's progress, capture loss inferred (it went on
for longer than the NAK round trip, 1 ms); with --nak-rtt 100000 (100 ms,
longer than the capture) the same ones are undetermined, reason
tracking_bound; never a packet_loss finding.

--measure: the figures for the robustness report instead, from the text
summary (the JSON report of a million flows is a 2 GB document whose
writing would dominate): peak RSS and time for 1M, 2M and 4M packets over
1M queue pairs, with --max-flows 1000, 65536 (the default) and 4194304 (no
eviction); then 1M packets whose ACKs pair with nothing (--stray-acks),
over 256 host pairs and over one.
"""
import argparse
import json
import os
import re
import sys
import tempfile

import checks

CI_QPS, CI_PACKETS, CI_MAX_FLOWS, CI_CE = 200000, 800000, 1000, "0.5"
CE_MARKS = re.compile(r"ce marks (\d+)")
MEASURE_QPS = 1000000
MEASURE_PACKETS = (1000000, 2000000, 4000000)
MEASURE_MAX_FLOWS = (1000, 65536, 4194304)
MEASURE_STRAY_HOSTS = (256, 1)
FLOWS_LINE = re.compile(r"flows +(\d+) tracked.*?(\d+) evicted")
TIMEOUT_S = 900
GAP_QPS, GAP_ROUNDS, GAP_TABLE = 1000, 71, 65536  # 70000 gaps, the table holds 65536
KIB_PER_MIB = 1024


def generate(rocegen, path, packets, qps, extra=()):
    """Write the flood capture; returns rocegen's --stats text."""
    g = checks.run([rocegen, "flood", "-o", path, "--packets", str(packets), "--qps", str(qps),
                    "--stats", *extra], TIMEOUT_S)
    if g.status != 0:
        raise SystemExit(f"rocegen flood failed: {g.stderr.strip()}")
    return g.stderr


def analyse(tool, path, max_flows, tmp):
    """Run the CLI (--json); returns (run, report or None, problems)."""
    out = os.path.join(tmp, "report.json")
    r = checks.run_measured([tool, "--json", "--max-flows", str(max_flows), path], TIMEOUT_S, out)
    problems = []
    bad = checks.sanitizer_report(r.stderr)
    if r.status != 0 or bad:
        return r, None, [f"exit {r.status}: {bad or r.stderr.strip()[:300]}"]
    rep = json.loads(r.stdout)
    problems += checks.report_problems(rep, 0)
    return r, rep, problems


def ci(a, tmp):
    path = os.path.join(tmp, "flood.pcap")
    ce_marks = int(CE_MARKS.search(generate(a.rocegen, path, CI_PACKETS, CI_QPS,
                                            ["--ce", CI_CE])).group(1))
    r, rep, problems = analyse(a.rocescope, path, CI_MAX_FLOWS, tmp)
    if rep is not None:
        c, lim = rep["capture"], rep["limits"]
        if c["packets"] != CI_PACKETS or c["roce_packets"] != CI_PACKETS:
            problems.append(f"{c['packets']} packets ({c['roce_packets']} RoCE), want {CI_PACKETS}")
        if c["icrc"]["good"] != CI_PACKETS:
            problems.append(f"ICRC good {c['icrc']['good']}, want {CI_PACKETS}")
        if rep["ecn"]["ce_marked"] != ce_marks:
            problems.append(f"{rep['ecn']['ce_marked']} CE marks counted, {ce_marks} written")
        if lim["flows_created"] != CI_PACKETS:
            problems.append(f"flows created {lim['flows_created']}: every frame should find its "
                            f"flow evicted, want {CI_PACKETS}")
        if lim["flows_evicted"] == 0 or lim["flows_active"] > CI_MAX_FLOWS or \
                lim["peak_flows"] > CI_MAX_FLOWS:
            problems.append(f"limits {lim} with --max-flows {CI_MAX_FLOWS}")
    rss_mib = r.maxrss_kib / KIB_PER_MIB
    if a.rss_bound_mb and rss_mib > a.rss_bound_mb:
        problems.append(f"peak RSS {rss_mib:.1f} MiB above the bound {a.rss_bound_mb} MiB")
    problems += gap_table(a, tmp)
    return checks.finish(problems, f"flood: {CI_QPS} QPs, {CI_PACKETS} packets, --max-flows "
                         f"{CI_MAX_FLOWS}: {r.seconds:.2f} s, peak RSS {rss_mib:.1f} MiB (bound "
                         f"{a.rss_bound_mb or 'not checked'}); {GAP_QPS * (GAP_ROUNDS - 1)} open "
                         f"gaps against a table of {GAP_TABLE}")


def gap_table(a, tmp):
    """The open-gap table overflows: failures (list)."""
    path = os.path.join(tmp, "gaps.pcap")
    stats = generate(a.rocegen, path, (GAP_ROUNDS + 1) * GAP_QPS, GAP_QPS, ["--gaps"])
    gaps = int(re.search(r"gaps (\d+)", stats).group(1))
    over = gaps - GAP_TABLE
    problems = [] if over > 0 else [f"{gaps} gaps written: not more than the table holds"]
    for extra, want_class in (([], "capture_loss_inferred"),
                              (["--nak-rtt", "100000"], "undetermined")):
        out = os.path.join(tmp, "gaps.json")
        r = checks.run_measured([a.rocescope, "--json", *extra, path], TIMEOUT_S, out)
        bad = checks.sanitizer_report(r.stderr)
        if r.status != 0 or bad:
            problems.append(f"gaps {extra}: exit {r.status}: {bad or r.stderr.strip()[:300]}")
            continue
        rep = json.loads(r.stdout)
        g, lim = rep["psn_gaps"], rep["limits"]
        want = {"undetermined": 0, "network_loss": 0, "capture_loss": GAP_TABLE,
                "capture_loss_inferred": 0, "reordered": 0}
        want[want_class] = over
        if g["events"] != gaps or g["by_class"] != want or lim["gap_tracking_overflow"] != over:
            problems.append(f"gaps {extra}: {g['events']} gaps by class {g['by_class']}, "
                            f"overflow {lim['gap_tracking_overflow']}; want {gaps}, {want}, {over}")
        kinds = [d["kind"] for d in rep["diagnoses"]]
        if "packet_loss" in kinds or "capture" not in kinds:
            problems.append(f"gaps {extra}: diagnoses {kinds}: no packet_loss, the capture first")
        if want_class == "undetermined":
            ev = checks.run([a.rocescope, "--events", *extra, path], TIMEOUT_S)
            reasons = {}
            for line in ev.stdout.splitlines():
                e = json.loads(line)
                if e.get("gap_class") == "undetermined":
                    reasons[e.get("gap_reason")] = reasons.get(e.get("gap_reason"), 0) + 1
            if reasons != {"tracking_bound": over}:
                problems.append(f"gaps {extra}: undetermined gaps by reason {reasons}")
    return problems


def measure_one(a, tmp, path, packets, max_flows, label):
    """One row of the --measure table (text summary: analysis time only)."""
    out = os.path.join(tmp, "summary.txt")
    r = checks.run_measured([a.rocescope, "--max-flows", str(max_flows), path], TIMEOUT_S, out)
    m = FLOWS_LINE.search(r.stdout)
    if r.status != 0 or checks.sanitizer_report(r.stderr) or m is None:
        print(f"FAIL: {label} --max-flows {max_flows}: exit {r.status} {r.stderr[:300]}")
        return 1
    print(f"| {label} | {packets} | {max_flows} | {r.seconds:.2f} | {r.seconds * 1e9 / packets:.0f} "
          f"| {r.maxrss_kib / KIB_PER_MIB:.1f} | {m.group(1)} | {m.group(2)} |", flush=True)
    return 0


def measure(a, tmp):
    path = os.path.join(tmp, "flood.pcap")
    print("| traffic | packets | --max-flows | time s | ns/packet | peak RSS MiB | flows at the end "
          "| evicted |")
    print("|---|---|---|---|---|---|---|---|")
    status = 0
    for packets in MEASURE_PACKETS:
        generate(a.rocegen, path, packets, MEASURE_QPS)
        for mf in MEASURE_MAX_FLOWS:
            status |= measure_one(a, tmp, path, packets, mf, f"{MEASURE_QPS} QPs")
    # responses that pair with nothing: every one examines the unpaired request flows
    for hosts in MEASURE_STRAY_HOSTS:
        generate(a.rocegen, path, MEASURE_PACKETS[0], MEASURE_QPS, ["--stray-acks", "--hosts",
                                                                    str(hosts)])
        for mf in MEASURE_MAX_FLOWS[:2]:
            status |= measure_one(a, tmp, path, MEASURE_PACKETS[0], mf,
                                  f"{MEASURE_QPS} QPs, stray ACKs, {hosts} host pairs")
    os.unlink(path)
    return status


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rocescope", required=True)
    ap.add_argument("--rocegen", required=True)
    ap.add_argument("--rss-bound-mb", type=float, default=0)
    ap.add_argument("--measure", action="store_true")
    ap.add_argument("--tmp", default=None, help="folder for the generated captures")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="rocescope-flood-", dir=a.tmp) as tmp:
        return measure(a, tmp) if a.measure else ci(a, tmp)


if __name__ == "__main__":
    sys.exit(main())
