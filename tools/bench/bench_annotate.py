#!/usr/bin/env python3
"""The cost of `rocescope --annotate` (issue 28) against the analysis plus a copy of the file.

Makes capture (a) of tools/bench/bench.py (--packets header-only packets over --qps
QPs, `rocegen bulk` with bench.py's seed), or its pcapng form with --pcapng,
then runs, interleaved, --runs times each:

  rocescope -o /dev/null FILE                      the analysis
  cp FILE COPY                                     a copy of the file
  cp FILE COPY && sync COPY                        the copy on the disk (the annotated file is
                                                   flushed to the disk before it is renamed
                                                   into place, common/output.h)
  rocescope --annotate OUT -o /dev/null FILE       the analysis and the annotated file

and the same two rocescope commands with -T 1 (one engine), and prints the
median wall time, user and system CPU time (the children's rusage) and peak
RSS (tools/bench/runmeasure.c) of each, the annotated file's size, and the
target: annotating at most the analysis plus the copy.

  tools/bench/bench_annotate.py [--build build] [--packets 10000000] [--qps 1000] [--runs 5]
                          [--pcapng] [--workdir DIR] [--keep]
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile

import bench

HERE = os.path.dirname(os.path.abspath(__file__))


def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime, r.ru_stime


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(HERE, "..", "..", "build"))
    ap.add_argument("--packets", type=int, default=10_000_000)
    ap.add_argument("--qps", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--pcapng", action="store_true")
    ap.add_argument("--workdir")
    ap.add_argument("--keep", action="store_true", help="keep the capture and the outputs")
    a = ap.parse_args()
    rocescope = os.path.join(a.build, "analyzer", "rocescope")
    rocegen = os.path.join(a.build, "tools", "rocegen", "rocegen")
    work = a.workdir or tempfile.mkdtemp(prefix="rocescope-bench-annotate-")
    os.makedirs(work, exist_ok=True)
    launcher = os.path.join(work, "runmeasure")
    subprocess.run(["cc", "-O2", "-o", launcher, os.path.join(HERE, "runmeasure.c")],
                   check=True)
    cap = bench.generate(rocegen, work, a.packets, a.qps, False, a.pcapng)
    out, copy = os.path.join(work, "annotated.pcapng"), os.path.join(work, "copy")
    subprocess.run(["cat", cap], stdout=subprocess.DEVNULL, check=True)  # warm the page cache
    cmds = {
        "rocescope -o /dev/null FILE": [rocescope, "-o", os.devnull, cap],
        "cp FILE COPY": ["cp", cap, copy],
        "cp FILE COPY && sync COPY": ["sh", "-c", 'cp "$1" "$2" && sync "$2"', "sh", cap, copy],
        "rocescope --annotate OUT -o /dev/null FILE": [rocescope, "--annotate", out, "-o",
                                                       os.devnull, cap],
        "rocescope -T 1 -o /dev/null FILE": [rocescope, "-T", "1", "-o", os.devnull, cap],
        "rocescope -T 1 --annotate OUT -o /dev/null FILE": [rocescope, "-T", "1", "--annotate",
                                                            out, "-o", os.devnull, cap],
    }
    res = {k: {"wall": [], "user": [], "sys": [], "rss": 0.0} for k in cmds}
    for _ in range(a.runs):
        for k, cmd in cmds.items():
            for f in (out, copy):
                if os.path.exists(f):
                    os.unlink(f)
            u0, s0 = cpu()
            dt, mem = bench.measure(launcher, cmd)
            u1, s1 = cpu()
            res[k]["wall"].append(dt)
            res[k]["user"].append(u1 - u0)
            res[k]["sys"].append(s1 - s0)
            res[k]["rss"] = max(res[k]["rss"], mem)
    med = {k: {m: statistics.median(v[m]) for m in ("wall", "user", "sys")} for k, v in res.items()}
    with open("/proc/loadavg", encoding="utf-8") as f:
        load = f.read().split()[:3]
    print(f"Machine: {bench.machine()}; load average at the end {' '.join(load)}\n")
    print(f"{a.packets} header-only packets (snaplen 128), {a.qps} QPs, "
          f"{'pcapng' if a.pcapng else 'pcap'}, {os.path.getsize(cap) / 1e6:.1f} MB; annotated "
          f"{os.path.getsize(out) / 1e6:.1f} MB; median of {a.runs} interleaved runs\n")
    print("| command | wall s | user s | system s | peak RSS MiB |\n|---|---|---|---|---|")
    for k in cmds:
        m = med[k]
        print(f"| `{k}` | {m['wall']:.2f} | {m['user']:.2f} | {m['sys']:.2f} | "
              f"{res[k]['rss']:.1f} |")
    for t in ("", "-T 1 "):
        plain, ann = med[f"rocescope {t}-o /dev/null FILE"], \
            med[f"rocescope {t}--annotate OUT -o /dev/null FILE"]
        for c in ("cp FILE COPY", "cp FILE COPY && sync COPY"):
            cp = med[c]
            print(f"\n{t or 'default '}: annotate {ann['wall']:.2f} s wall against analysis + "
                  f"`{c}` {plain['wall'] + cp['wall']:.2f} s; CPU {ann['user'] + ann['sys']:.2f} s "
                  f"against {plain['user'] + plain['sys'] + cp['user'] + cp['sys']:.2f} s")
    if not a.keep and not a.workdir:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
