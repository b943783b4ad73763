#!/usr/bin/env python3
"""Benchmark the HTML report on the benchmark capture (a) of tools/bench/bench.py:
--packets header-only packets (default 10 million) over --qps QPs, made by
`rocegen bulk` with the seed bench.py uses.

Measures, interleaved, --runs times each, the median:
  rocescope -o /dev/null FILE                 the analysis and the summary
  rocescope --html PAGE -o /dev/null FILE     the same, plus the series and the page
(wall time and peak RSS through tools/bench/runmeasure.c), the page's size,
and the page in headless Chromium (tests/html/cdp.py): the time from
navigation to the first contentful paint and to the load event, and the
DOM's size, the median of --runs loads.

  tools/bench/bench_html.py [--build build] [--packets 10000000] [--qps 1000] [--runs 5]
                      [--workdir DIR] [--keep]
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "html"))
import bench  # noqa: E402
import cdp  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(HERE, "..", "..", "build"))
    ap.add_argument("--packets", type=int, default=10_000_000)
    ap.add_argument("--qps", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--workdir")
    ap.add_argument("--keep", action="store_true", help="keep the capture and the page")
    a = ap.parse_args()
    rocescope = os.path.join(a.build, "analyzer", "rocescope")
    rocegen = os.path.join(a.build, "tools", "rocegen", "rocegen")
    exe = cdp.find_chromium()
    if exe is None:
        sys.exit("bench_html: no chromium (tools/setup.sh installs it)")
    work = a.workdir or tempfile.mkdtemp(prefix="rocescope-bench-html-")
    os.makedirs(work, exist_ok=True)
    launcher = os.path.join(work, "runmeasure")
    subprocess.run(["cc", "-O2", "-o", launcher, os.path.join(HERE, "runmeasure.c")],
                   check=True)
    cap = bench.generate(rocegen, work, a.packets, a.qps, False, False)
    page = os.path.join(work, "report.html")
    subprocess.run(["cat", cap], stdout=subprocess.DEVNULL, check=True)  # warm the page cache
    cmds = {"rocescope -o /dev/null": [rocescope, "-o", os.devnull, cap],
            "rocescope --html PAGE -o /dev/null": [rocescope, "--html", page, "-o", os.devnull, cap]}
    times = {k: [] for k in cmds}
    rss = {k: 0.0 for k in cmds}
    for _ in range(a.runs):
        for k, cmd in cmds.items():
            dt, mem = bench.measure(launcher, cmd)
            times[k].append(dt)
            rss[k] = max(rss[k], mem)
    size = os.path.getsize(page)
    paints, loads = [], []
    with cdp.Browser(exe) as b:
        for _ in range(a.runs):
            b.load("about:blank")
            loads.append(b.load("file://" + os.path.abspath(page)) * 1000)
            paints.append(b.first_paint_ms())
        nodes = b.evaluate("document.getElementsByTagName('*').length")
        marks = b.evaluate("document.querySelectorAll('[data-frame]').length")
        problems = b.problems()
    print(f"Machine: {bench.machine()}\n")
    print(f"{a.packets} header-only packets (snaplen 128), {a.qps} QPs, "
          f"{os.path.getsize(cap) / 1e6:.1f} MB; median of {a.runs} interleaved runs\n")
    print("| command | median s | peak RSS MiB |\n|---|---|---|")
    for k in cmds:
        print(f"| `{k}` | {statistics.median(times[k]):.3f} | {rss[k]:.1f} |")
    print(f"\npage: {size} bytes ({size / 1048576:.2f} MiB), {nodes} elements, {marks} frames with "
          f"verdicts plotted")
    print(f"Chromium (headless, {exe}): first contentful paint {statistics.median(paints):.0f} ms "
          f"(runs: {', '.join(f'{p:.0f}' for p in paints)}), load event "
          f"{statistics.median(loads):.0f} ms; console problems: {problems or 'none'}")
    if not a.keep and not a.workdir:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
