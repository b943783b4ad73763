#!/usr/bin/env python3
"""The live monitor's analysis with a small and a large flow table
(BENCHMARKS.md, "Live monitor at scale"): live_steps.c, compiled against the
build's libraries, runs the frames of `rocegen flood` (distinct queue pairs,
a request and its ACK each: every frame a new flow) through the engine and
closes an interval every K frames (an interval at the rate the issue saw),
with --max-flows 65536 and 4194304; its peak memory through runmeasure.c.

  tools/bench/bench_live_scale.py [--build build] [--frames 600000] [--k 124000]
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
LIBS = ["live/librocescope_live.a", "writers/librocescope_writers.a", "html/librocescope_html.a",
        "report/librocescope_report.a", "capture/librocescope_capture.a",
        "common/librocescope_common.a", "engine/libroce_engine.a"]
INCLUDES = ["live", "engine", "capture", "report", "common"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(TOP, "build"))
    ap.add_argument("--frames", type=int, default=600000)
    ap.add_argument("--k", type=int, default=124000)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="rocescope-livescale-")
    steps, measure = os.path.join(tmp, "live_steps"), os.path.join(tmp, "runmeasure")
    subprocess.run(["cc", "-O2", "-std=c11", *["-I" + os.path.join(TOP, "analyzer", i)
                                              for i in INCLUDES],
                    os.path.join(HERE, "live_steps.c"), "-o", steps,
                    *[os.path.join(a.build, "analyzer", l) for l in LIBS],
                    "-lpcap", "-ljson-c", "-lmicrohttpd", "-lz", "-lzstd", "-llz4", "-lpthread",
                    "-lm"], check=True)
    subprocess.run(["cc", "-O2", "-o", measure, os.path.join(HERE, "runmeasure.c")], check=True)
    flood = os.path.join(tmp, "flood.pcap")
    subprocess.run([os.path.join(a.build, "tools", "rocegen", "rocegen"), "flood", "-o", flood,
                    "--packets", str(a.frames), "--qps", str(a.frames // 2), "--snaplen", "64"],
                   check=True)
    for max_flows in (65536, 4194304):
        p = subprocess.run([measure, steps, flood, str(max_flows), str(a.k)],
                           capture_output=True, text=True)
        print("--max-flows %-8d %s %s" % (max_flows, p.stdout.strip(), p.stderr.strip()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
