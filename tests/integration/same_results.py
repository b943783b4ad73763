#!/usr/bin/env python3
"""The same reports and events whichever way a capture comes in.

One reference per file and output -- libpcap reading the plain file with one
engine (ROCESCOPE_READER=libpcap -T 1) -- and every other way of reading it
must give the same bytes, exit status and messages (the input's name aside):

  rocescope's own reader with -T 1, -T 2 and -T 4;
  libpcap with -T 2 (each engine reopens the file with libpcap);
  the file gzip-compressed, with -T 1 and -T 4 (a stream: one engine);
  the file on standard input, with -T 1 and -T 4, and gzip-compressed there.

The files: every capture in captures/, the pcapng files and damaged files
readers.py makes (classic and pcapng), and two bulk captures over 64 QPs (so that the split has
work to share): one with losses, go-back-N, CE marks and CNPs, one where every flow is in trouble
(BENCHMARKS.md's capture (e): more of them, and a fifth of the ICRCs captured wrong, whose count
the report must give as rocegen's ground truth has it) (ctest: same_results);
or every real capture (--real, ctest: same_results_real; tests/real_folder.py). The outputs: the JSON
report, the events and the text summary.

readers.py, inputs.py and threads.py test each way against its neighbour, with
their own further checks; this test holds every way to one reference.
"""
import argparse
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import capfiles as cf
import readers

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from real_folder import captures_in, real_folder  # noqa: E402

MODES = (["--json"], ["--events"], [])


def run(tool, args, reader=None, stdin=b""):
    env = dict(os.environ)
    for k in ("ROCESCOPE_READER", "ROCESCOPE_THREADS_TRACE"):
        env.pop(k, None)
    if reader:
        env["ROCESCOPE_READER"] = reader
    p = subprocess.run([tool, *args], capture_output=True, env=env, timeout=600, input=stdin)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def named(result, path, name):
    """A result with name in place of the file's path."""
    code, out, err = result
    return code, out.replace(path, name), err.replace(path, name)


def ways(path, gz):
    """(label, reader, args before the input, input name, standard input bytes)."""
    with open(path, "rb") as f:
        data = f.read()
    zdata = gzip.compress(data, mtime=0)
    with open(gz, "wb") as f:
        f.write(zdata)
    return [("own reader -T 1", None, ["-T", "1"], path, b""),
            ("own reader -T 2", None, ["-T", "2"], path, b""),
            ("own reader -T 4", None, ["-T", "4"], path, b""),
            ("libpcap -T 2", "libpcap", ["-T", "2"], path, b""),
            ("gzip file -T 1", None, ["-T", "1"], gz, b""),
            ("gzip file -T 4", None, ["-T", "4"], gz, b""),
            ("standard input -T 1", None, ["-T", "1"], "-", data),
            ("standard input -T 4", None, ["-T", "4"], "-", data),
            ("gzip on standard input -T 2", None, ["-T", "2"], "-", zdata)]


def troubled_truth(a, tool, path):
    """Make the troubled bulk capture at path; check its ICRC counts against rocegen's."""
    p = subprocess.run([a.rocegen, "bulk", "-o", path, "--packets", "50000", "--qps", "64",
                        "--seed", "5", "--snaplen", "128", "--loss", "0.005", "--ce", "0.02",
                        "--bad-icrc", "0.2", "--stats"], check=True, capture_output=True, text=True)
    made = int(re.search(r"bad icrcs (\d+)", p.stderr).group(1))
    icrc = json.loads(run(tool, ["--json", path])[1])["capture"]["icrc"]
    # a wrong ICRC that one rewritten field (UDP source port, IPv4 id) explains is counted there
    got = icrc["bad"] + sum(icrc["rewritten"].values())
    if made < 500 or got != made:
        print(f"FAIL: troubled bulk capture: {made} wrong ICRCs written, the report has {got} "
              f"({icrc})")
        return False
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rocescope", required=True)
    ap.add_argument("--rocegen")
    ap.add_argument("--captures", help="the scenario captures (and files made from them)")
    ap.add_argument("--real", help="the real captures instead (same_results_real)")
    ap.add_argument("--sample", type=int, default=0,
                    help="only N of the scenario captures, spread evenly (the sanitizer build)")
    a = ap.parse_args()
    tool = a.rocescope
    tmp = tempfile.mkdtemp(prefix="rocescope-same-")
    made = []
    if a.real:
        files = captures_in(real_folder(a.real))
    else:
        frames = cf.frames_of(os.path.join(a.captures, "loss_receiver.pcap"))
        # (in a sample, the made and damaged files too: readers, under the
        # sanitizers as well, holds every one of them to libpcap)
        made = cf.sample(readers.damaged(frames, tmp) + readers.pcapng_variants(frames, tmp) +
                         readers.ng_damaged(frames, tmp), a.sample)
        bulk = os.path.join(tmp, "bulk.pcap")
        subprocess.run([a.rocegen, "bulk", "-o", bulk, "--packets", "50000", "--qps", "64",
                        "--seed", "3", "--snaplen", "128"], check=True, stdout=subprocess.DEVNULL)
        trouble = os.path.join(tmp, "bulk_trouble.pcap")
        if not troubled_truth(a, tool, trouble):
            return 1
        files = (cf.sample(captures_in(a.captures, (".pcap", ".pcapng")), a.sample) + made +
                 [bulk, trouble])
    failures, runs = [], 0
    for path in files:
        name = os.path.basename(path)
        gz = os.path.join(tmp, "z-" + name + ".gz")
        all_ways = ways(path, gz)
        for mode in MODES:
            want = run(tool, ["-T", "1", *mode, path], "libpcap")
            for label, reader, opts, inp, stdin in all_ways:
                got = run(tool, [*opts, *mode, inp], reader, stdin)
                runs += 1
                if got != named(want, path, inp):
                    failures.append(
                        f"{name} {' '.join(mode) or 'text'}, {label}: differs from libpcap -T 1 "
                        f"(exit {got[0]} vs {want[0]}; stderr {got[2].strip()[:160]!r} vs "
                        f"{want[2].strip()[:160]!r}" +
                        ("" if got[1] == want[1] else "; outputs differ") + ")")
    for f in failures:
        print("FAIL:", f)
    print(f"{len(files)} files ({len(made)} made or damaged), {runs} runs "
          f"compared with libpcap -T 1, {len(failures)} failures")
    shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
