#!/usr/bin/env python3
"""Benchmark rocescope against the floors and against tshark, in one run.

Generates captures with the project's generator (`rocegen bulk`): by default
the four of BENCHMARKS.md -- (a) --packets header-only packets (snaplen 128)
over --qps QPs with losses, go-back-N, CE marks and CNPs, (b) --full-packets
full-size frames, (c) the traffic of (a) as pcapng, (d) the frames of (b) as
pcapng -- or one capture chosen with --only. It builds the libpcap floor
(tools/bench/pcap_floor.c: a bare pcap_next_ex loop that only counts
packets), then times on each capture,
interleaved, `runs` times each:

  rocescope --json FILE          the complete analysis, default settings
                                 (-T: as many engines as CPUs)
  rocescope --json -T 1 FILE     the same with one engine
  pcap_floor FILE                the libpcap floor
  cat FILE > /dev/null           the page-cache floor

and tshark -r FILE -q -Y infiniband on the whole capture (--tshark-runs
times, interleaved with the first runs; --tshark-packets N: only the first
N packets, compared per packet), then prints a Markdown table: median
seconds, packets/s, MB/s, peak RSS, and the ratios rocescope / libpcap floor
(both settings) and tshark / rocescope. Timings are wall-clock medians; wall
time and peak RSS are taken by a small C launcher (tools/bench/runmeasure.c)
with wait4(). The machine's load average is printed before and after.

  tools/bench/bench.py [--build build] [--packets 10000000] [--full-packets 500000]
                 [--qps 1000] [--only a|b|c|d] [--runs 5] [--tshark-runs 1]
                 [--tshark-packets 0] [--no-tshark] [--workdir DIR] [--keep]
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


def measure(launcher, cmd):
    """Run cmd through the runmeasure launcher; return (seconds, peak RSS in MiB)."""
    p = subprocess.run([launcher, *cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True, check=True)
    last = [l for l in p.stderr.splitlines() if l.startswith("runmeasure ")][-1].split()
    if int(last[3]) != 0:
        sys.exit(f"bench: {' '.join(cmd)} failed ({last[3]}): {p.stderr.strip()[:500]}")
    return float(last[1]), int(last[2]) / 1024.0


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


def bench_one(a, rocescope, floor, launcher, cap, label):
    """Time the tools on one capture; print its Markdown table."""
    out = subprocess.run([floor, cap], check=True, capture_output=True, text=True).stdout.split()
    packets, size = int(out[0]), os.path.getsize(cap)
    r = f"rocescope --json (default: -T {os.cpu_count()})"
    r1 = "rocescope --json -T 1"
    tools = [(r, [rocescope, "--json", cap], packets),
             (r1, [rocescope, "--json", "-T", "1", cap], packets),
             ("libpcap floor (pcap_next_ex loop)", [floor, cap], packets),
             ("cat > /dev/null (page cache)", ["cat", cap], packets)]
    tshark = shutil.which("tshark")
    ts_name = None
    if tshark and not a.no_tshark:
        n = min(a.tshark_packets, packets) if a.tshark_packets else packets
        ts_name = (f"tshark -q -Y infiniband (first {n} packets)" if n < packets
                   else "tshark -q -Y infiniband (whole capture)")
        tools.append((ts_name, [tshark, "-r", cap, "-c", str(n), "-q", "-Y", "infiniband"], n))
    subprocess.run(["cat", cap], stdout=subprocess.DEVNULL, check=True)  # warm the page cache
    times = {name: [] for name, _, _ in tools}
    rss = {name: 0.0 for name, _, _ in tools}
    for run in range(a.runs):
        for name, cmd, _ in tools:
            if name == ts_name and run >= a.tshark_runs:
                continue
            dt, mem = measure(launcher, cmd)
            times[name].append(dt)
            rss[name] = max(rss[name], mem)
    med = {name: statistics.median(times[name]) for name in times}
    pps = {name: n / med[name] for name, _, n in tools}
    print(f"### {label}\n\n{packets} packets, {size / 1e6:.1f} MB; median of {a.runs} "
          f"interleaved runs (tshark: {min(a.runs, a.tshark_runs)}); load average "
          f"{os.getloadavg()[0]:.1f} at the end\n")
    print("| tool | median s | packets/s | MB/s | peak RSS MiB |")
    print("|---|---|---|---|---|")
    for name, _, n in tools:
        mbs = size * (n / packets) / med[name] / 1e6
        print(f"| {name} | {med[name]:.3f} | {pps[name] / 1e6:.2f} M | {mbs:.0f} | {rss[name]:.1f} |")
    fl = tools[2][0]
    print(f"\nrocescope time / libpcap floor time: {med[r] / med[fl]:.2f} with the default "
          f"settings, {med[r1] / med[fl]:.2f} with one engine (below 1: faster than libpcap "
          f"can merely read the file)")
    if ts_name:
        print(f"tshark time / rocescope time, per packet: {pps[r] / pps[ts_name]:.0f}x "
              f"(one engine: {pps[r1] / pps[ts_name]:.0f}x)")
    print()


def generate(rocegen, work, packets, qps, full, pcapng):
    ext = "pcapng" if pcapng else "pcap"
    cap = os.path.join(work, f"bulk-{packets}-{qps}-{'full' if full else 's128'}.{ext}")
    if not os.path.exists(cap):
        gen = [rocegen, "bulk", "-o", cap, "--packets", str(packets), "--qps", str(qps), "--seed", "1"]
        gen += ["--full-size"] if full else ["--snaplen", "128"]
        gen += ["--pcapng"] if pcapng else []
        subprocess.run(gen, check=True, stdout=subprocess.DEVNULL)
    return cap


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(HERE, "..", "..", "build"))
    ap.add_argument("--packets", type=int, default=10_000_000)
    ap.add_argument("--full-packets", type=int, default=500_000)
    ap.add_argument("--qps", type=int, default=1000)
    ap.add_argument("--only", choices=("a", "b", "c", "d"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--tshark-packets", type=int, default=0, help="0: the whole capture")
    ap.add_argument("--tshark-runs", type=int, default=1)
    ap.add_argument("--no-tshark", action="store_true")
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
    launcher = os.path.join(work, "runmeasure")
    subprocess.run(["cc", "-O2", "-o", floor, os.path.join(HERE, "pcap_floor.c"), "-lpcap"],
                   check=True)
    subprocess.run(["cc", "-O2", "-o", launcher, os.path.join(HERE, "runmeasure.c")],
                   check=True)
    suite = [("a", f"(a) {a.packets} header-only packets (snaplen 128), {a.qps} QPs, pcap",
              a.packets, False, False),
             ("b", f"(b) {a.full_packets} full-size frames, {a.qps} QPs, pcap",
              a.full_packets, True, False),
             ("c", f"(c) the traffic of (a) as pcapng", a.packets, False, True),
             ("d", f"(d) the frames of (b) as pcapng", a.full_packets, True, True)]
    print(f"Machine: {machine()}; load average {os.getloadavg()[0]:.1f} at the start\n")
    for key, label, packets, full, ng in suite:
        if a.only and a.only != key:
            continue
        cap = generate(rocegen, work, packets, a.qps, full, ng)
        bench_one(a, rocescope, floor, launcher, cap, label)
        if not a.keep and not a.workdir:
            os.unlink(cap)
    if not a.keep and not a.workdir:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
