#!/usr/bin/env python3
"""Benchmark rocescope against the floors and against tshark, in one run.

Generates captures with the project's generator (`rocegen bulk`): by default
the five of BENCHMARKS.md -- (a) --packets header-only packets (snaplen 128)
over --qps QPs with losses, go-back-N, CE marks and CNPs, (b) --full-packets
full-size frames, (c) the traffic of (a) as pcapng, (d) the frames of (b) as
pcapng, (e) --trouble-packets header-only packets where every flow is in
trouble (--loss 0.005 --ce 0.02 --bad-icrc 0.2: a fifth of the ICRCs
captured are wrong) -- or one capture chosen with --only. It builds the
floors (tools/bench/pcap_floor.c: a bare pcap_next_ex loop that only counts
packets; tools/bench/scan_floor.c: the file read as rocescope reads it,
read(2) into a 1 MiB buffer, touching each record header and nothing else;
with --map, the file mapped as rocescope read it before, walked the same
way), then times on each capture, interleaved, `runs` times each:

  rocescope --json FILE          the complete analysis, default settings
                                 (-T: as many engines as CPUs)
  rocescope --json -T 1 FILE     the same with one engine
  rocescope -T 1 FILE            (--report-cost) one engine, the text summary
                                 instead of the JSON report
  pcap_floor FILE                the libpcap floor
  scan_floor FILE                the floor of reading the file
  scan_floor --map FILE          the floor of reading the file mapped
  cat FILE > /dev/null           the page-cache floor

and tshark -r FILE -q -Y infiniband on the whole capture (--tshark-runs
times, interleaved with the first runs; --tshark-packets N: only the first
N packets, compared per packet), then prints a Markdown table: median
seconds, median user and system processor seconds (a floor's system time
shows what its reads cost the kernel), packets/s, MB/s, peak RSS, and the ratios rocescope / libpcap floor
and rocescope / scan floor and / mapped scan (both settings; each ratio the median of the
ratios of the runs, every run of a tool paired with the floors' runs of the
same round) and tshark / rocescope. Timings are wall-clock; wall time,
processor time and peak RSS are taken by a small C launcher
(tools/bench/runmeasure.c) with wait4(). The machine's load average is printed before and after each
capture's runs.

  tools/bench/bench.py [--build build] [--packets 10000000] [--full-packets 500000]
                 [--trouble-packets 2000000] [--qps 1000] [--only a|b|c|d|e]
                 [--runs 5] [--tshark-runs 1] [--tshark-packets 0] [--no-tshark]
                 [--report-cost] [--workdir DIR] [--keep]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def measure_cpu(launcher, cmd):
    """Run cmd through the runmeasure launcher; return (seconds, peak RSS in MiB,
    user seconds, system seconds)."""
    p = subprocess.run([launcher, *cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True, check=True)
    last = [l for l in p.stderr.splitlines() if l.startswith("runmeasure ")][-1].split()
    if int(last[3]) != 0:
        sys.exit(f"bench: {' '.join(cmd)} failed ({last[3]}): {p.stderr.strip()[:500]}")
    return float(last[1]), int(last[2]) / 1024.0, float(last[4]), float(last[5])


def measure(launcher, cmd):
    """Run cmd through the runmeasure launcher; return (seconds, peak RSS in MiB)."""
    return measure_cpu(launcher, cmd)[:2]


def machine():
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} CPUs, {os.uname().sysname} {os.uname().release}"


def loadavg():
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def bench_one(a, rocescope, floors, launcher, cap, label):
    """Time the tools on one capture; print its Markdown table."""
    pfloor, sfloor = floors
    out = subprocess.run([pfloor, cap], check=True, capture_output=True, text=True).stdout.split()
    packets, size = int(out[0]), os.path.getsize(cap)
    scan = subprocess.run([sfloor, cap], check=True, capture_output=True, text=True).stdout.split()
    if int(scan[0]) != packets:
        sys.exit(f"bench: scan_floor counts {scan[0]} packets in {cap}, libpcap {packets}")
    r = f"rocescope --json (default: -T {os.cpu_count()})"
    r1 = "rocescope --json -T 1"
    rt = "rocescope -T 1 (text summary, no JSON report)"
    fl = "libpcap floor (pcap_next_ex loop)"
    sf = "scan floor (read(2) into 1 MiB, each record header)"
    mf = "mapped scan (the file mapped, each record header)"
    tools = [(r, [rocescope, "--json", cap], packets),
             (r1, [rocescope, "--json", "-T", "1", cap], packets)]
    if a.report_cost:
        tools.append((rt, [rocescope, "-T", "1", cap], packets))
    tools += [(fl, [pfloor, cap], packets),
              (sf, [sfloor, cap], packets),
              (mf, [sfloor, "--map", cap], packets),
              ("cat > /dev/null (page cache)", ["cat", cap], packets)]
    tshark = shutil.which("tshark")
    ts_name = None
    if tshark and not a.no_tshark:
        n = min(a.tshark_packets, packets) if a.tshark_packets else packets
        ts_name = (f"tshark -q -Y infiniband (first {n} packets)" if n < packets
                   else "tshark -q -Y infiniband (whole capture)")
        tools.append((ts_name, [tshark, "-r", cap, "-c", str(n), "-q", "-Y", "infiniband"], n))
    subprocess.run(["cat", cap], stdout=subprocess.DEVNULL, check=True)  # warm the page cache
    load_before = loadavg()
    times = {name: [] for name, _, _ in tools}
    user = {name: [] for name, _, _ in tools}
    system = {name: [] for name, _, _ in tools}
    rss = {name: 0.0 for name, _, _ in tools}
    for run in range(a.runs):
        for name, cmd, _ in tools:
            if name == ts_name and run >= a.tshark_runs:
                continue
            dt, mem, us, sy = measure_cpu(launcher, cmd)
            times[name].append(dt)
            user[name].append(us)
            system[name].append(sy)
            rss[name] = max(rss[name], mem)
    load_after = loadavg()
    med = {name: statistics.median(times[name]) for name in times}
    pps = {name: n / med[name] for name, _, n in tools}

    def ratio(x, y):
        """The median of the ratios of x's and y's runs of the same round."""
        return statistics.median(t / u for t, u in zip(times[x], times[y]))

    ts_runs = f" (tshark: {min(a.runs, a.tshark_runs)})" if ts_name else ""
    print(f"### {label}\n\n{packets} packets, {size / 1e6:.1f} MB; median of {a.runs} "
          f"interleaved runs{ts_runs}; load average "
          f"{load_before} before, {load_after} after (1, 5, 15 minutes)\n")
    print("| tool | median s | user s | system s | packets/s | MB/s | peak RSS MiB |")
    print("|---|---|---|---|---|---|---|")
    for name, _, n in tools:
        mbs = size * (n / packets) / med[name] / 1e6
        print(f"| {name} | {med[name]:.3f} | {statistics.median(user[name]):.3f} | "
              f"{statistics.median(system[name]):.3f} | {pps[name] / 1e6:.2f} M | {mbs:.0f} | "
              f"{rss[name]:.1f} |")
    print(f"\nrocescope time / libpcap floor time: {ratio(r, fl):.2f} with the default "
          f"settings, {ratio(r1, fl):.2f} with one engine (below 1: faster than libpcap "
          f"can merely read the file)")
    print(f"rocescope time / scan floor time: {ratio(r, sf):.2f} with the default settings, "
          f"{ratio(r1, sf):.2f} with one engine; libpcap floor / scan floor: {ratio(fl, sf):.2f}")
    print(f"rocescope time / mapped scan time: {ratio(r, mf):.2f} with the default settings, "
          f"{ratio(r1, mf):.2f} with one engine; mapped scan / scan floor: {ratio(mf, sf):.2f}")
    if a.report_cost:
        print(f"one engine with the JSON report / with the text summary: {ratio(r1, rt):.2f} "
              f"({med[r1] - med[rt]:+.3f} s)")
    if ts_name:
        print(f"tshark time / rocescope time, per packet: {pps[r] / pps[ts_name]:.0f}x "
              f"(one engine: {pps[r1] / pps[ts_name]:.0f}x)")
    print()


# (e): every flow in trouble (issue 31): losses, CE marks, a fifth of the ICRCs bad
TROUBLE = ["--loss", "0.005", "--ce", "0.02", "--bad-icrc", "0.2"]


def generate(rocegen, work, packets, qps, full, pcapng, trouble=False):
    ext = "pcapng" if pcapng else "pcap"
    kind = ("full" if full else "s128") + ("-trouble" if trouble else "")
    cap = os.path.join(work, f"bulk-{packets}-{qps}-{kind}.{ext}")
    if not os.path.exists(cap):
        gen = [rocegen, "bulk", "-o", cap, "--packets", str(packets), "--qps", str(qps), "--seed", "1"]
        gen += ["--full-size"] if full else ["--snaplen", "128"]
        gen += ["--pcapng"] if pcapng else []
        gen += TROUBLE if trouble else []
        subprocess.run(gen, check=True, stdout=subprocess.DEVNULL)
    return cap


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(HERE, "..", "..", "build"))
    ap.add_argument("--packets", type=int, default=10_000_000)
    ap.add_argument("--full-packets", type=int, default=500_000)
    ap.add_argument("--trouble-packets", type=int, default=2_000_000)
    ap.add_argument("--qps", type=int, default=1000)
    ap.add_argument("--only", choices=("a", "b", "c", "d", "e"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--tshark-packets", type=int, default=0, help="0: the whole capture")
    ap.add_argument("--tshark-runs", type=int, default=1)
    ap.add_argument("--no-tshark", action="store_true")
    ap.add_argument("--report-cost", action="store_true",
                    help="also one engine with the text summary instead of the JSON report")
    ap.add_argument("--workdir")
    ap.add_argument("--keep", action="store_true", help="keep the generated captures")
    a = ap.parse_args()

    rocescope = os.path.join(a.build, "analyzer", "rocescope")
    rocegen = os.path.join(a.build, "tools", "rocegen", "rocegen")
    for exe in (rocescope, rocegen):
        if not os.access(exe, os.X_OK):
            sys.exit(f"bench: {exe} not found: build first (tools/setup.sh)")
    work = a.workdir or tempfile.mkdtemp(prefix="rocescope-bench-")
    os.makedirs(work, exist_ok=True)
    floor = os.path.join(work, "pcap_floor")
    scan = os.path.join(work, "scan_floor")
    launcher = os.path.join(work, "runmeasure")
    subprocess.run(["cc", "-O2", "-o", floor, os.path.join(HERE, "pcap_floor.c"), "-lpcap"],
                   check=True)
    subprocess.run(["cc", "-O2", "-o", scan, os.path.join(HERE, "scan_floor.c")], check=True)
    subprocess.run(["cc", "-O2", "-o", launcher, os.path.join(HERE, "runmeasure.c")],
                   check=True)
    suite = [("a", f"(a) {a.packets} header-only packets (snaplen 128), {a.qps} QPs, pcap",
              a.packets, False, False, False),
             ("b", f"(b) {a.full_packets} full-size frames, {a.qps} QPs, pcap",
              a.full_packets, True, False, False),
             ("c", "(c) the traffic of (a) as pcapng", a.packets, False, True, False),
             ("d", "(d) the frames of (b) as pcapng", a.full_packets, True, True, False),
             ("e", f"(e) {a.trouble_packets} header-only packets, {a.qps} QPs, every flow in "
              f"trouble ({' '.join(TROUBLE)}), pcap", a.trouble_packets, False, False, True)]
    print(f"Machine: {machine()}; load average {loadavg()} at the start\n")
    for key, label, packets, full, ng, trouble in suite:
        if a.only and a.only != key:
            continue
        cap = generate(rocegen, work, packets, a.qps, full, ng, trouble)
        bench_one(a, rocescope, (floor, scan), launcher, cap, label)
        if not a.keep and not a.workdir:
            os.unlink(cap)
    if not a.keep and not a.workdir:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
