#!/usr/bin/env python3
"""-T N gives the results of one engine, whatever N.

`rocescope -T N` splits the frames of a capture among N engines by the
address pair of their packet and merges the verdicts and the reports
(analyzer/cli/threads.c); when the split could give another result (frames out
of time order, a bound of one engine reached) it analyses with one engine.
For every capture in captures/ and ../shared/captures/real, pcapng files and
damaged files made as readers.py makes them, a bulk capture with losses,
go-back-N, CE marks and CNPs over many QPs, several files in one run, the text
summary, the JSON report and the events with -T 2, 3 and 4 must equal those of
-T 1, byte for byte, with the same exit status and messages. The split must
actually be used where it can be (ROCESCOPE_THREADS_TRACE says which way a run
went), and not used for frames out of time order or more flows than
--max-flows.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import capfiles as cf
import readers

THREADS = (2, 3, 4)


def run(tool, args, trace=False):
    env = dict(os.environ)
    env.pop("ROCESCOPE_READER", None)
    env.pop("ROCESCOPE_THREADS_TRACE", None)
    if trace:
        env["ROCESCOPE_THREADS_TRACE"] = "1"
    p = subprocess.run([tool, *args], capture_output=True, env=env, timeout=600,
                       stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def way(tool, args):
    """How a -T run went: 'split' or 'one engine: WHY'."""
    err = run(tool, args, trace=True)[2]
    lines = [l for l in err.splitlines() if l.startswith("rocescope: -T ")]
    return lines[0].split(": ", 2)[2] if lines else "no trace"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rocescope", required=True)
    ap.add_argument("--rocegen", required=True)
    ap.add_argument("--captures", required=True)
    ap.add_argument("--real", required=True)
    a = ap.parse_args()
    tool = a.rocescope
    tmp = tempfile.mkdtemp(prefix="rocescope-threads-")
    files = [os.path.join(a.captures, n) for n in sorted(os.listdir(a.captures))
             if n.endswith((".pcap", ".pcapng"))]
    if os.path.isdir(a.real):
        files += [os.path.join(a.real, n) for n in sorted(os.listdir(a.real))
                  if n.endswith((".pcap", ".pcapng", ".cap"))]
    else:
        print(f"note: {a.real} absent, real captures not compared")
    frames = cf.frames_of(os.path.join(a.captures, "loss_receiver.pcap"))
    files += (readers.damaged(frames, tmp) + readers.pcapng_variants(frames, tmp) +
              readers.ng_damaged(frames, tmp))
    bulk = os.path.join(tmp, "bulk.pcap")
    subprocess.run([a.rocegen, "bulk", "-o", bulk, "--packets", "200000", "--qps", "64",
                    "--seed", "7", "--snaplen", "128"], check=True, stdout=subprocess.DEVNULL)
    files.append(bulk)
    failures, runs, split_used = [], 0, []

    def compare(label, args):
        nonlocal runs
        want = run(tool, ["-T", "1", *args])
        for n in THREADS:
            got = run(tool, ["-T", str(n), *args])
            runs += 1
            if got != want:
                failures.append(f"{label} -T {n}: differs from -T 1 (exit {got[0]} vs {want[0]}; "
                                f"stderr {got[2].strip()[:200]!r} vs {want[2].strip()[:200]!r})")

    for path in files:
        name = os.path.basename(path)
        for mode in ([], ["--json"], ["--events"]):
            compare(f"{name} {' '.join(mode) or 'text'}", [*mode, path])
        if way(tool, ["-T", "2", "--json", path]) == "split":
            split_used.append(name)

    # several files in one run, one of them damaged: the problem is printed
    # where a plain run prints it
    group = [os.path.join(a.captures, "ecn_cnp.pcap"), os.path.join(tmp, "record_cut.pcap"),
             os.path.join(a.captures, "loss_sender.pcap"), os.path.join(tmp, "missing.pcap")]
    for mode in ("--json", "--events"):
        compare(f"several files {mode}", [mode, *group])

    # where the split must be used, and where it must not
    for name in ("bulk.pcap", "ecn_cnp.pcap", "cm_reuse.pcap", "nak_codes.pcap", "pfc.pcap",
                 "clean_rc.pcapng"):
        if name not in split_used:
            path = next(p for p in files if os.path.basename(p) == name)
            failures.append(f"{name}: the split was not used "
                            f"({way(tool, ['-T', '2', '--json', path])})")
    shuffled = os.path.join(tmp, "out_of_order.pcap")
    swapped = list(frames)
    swapped[3], swapped[4] = swapped[4], swapped[3]
    with open(shuffled, "wb") as f:
        f.write(cf.pcap_at(swapped))
    for label, args, expect in (
            ("frames out of time order", [shuffled], "one engine: frames out of time order"),
            ("--max-flows 4", ["--max-flows", "4", bulk], "one engine: more flows than"),
            ("bulk", [bulk], "split")):
        got = way(tool, ["-T", "2", "--json", *args])
        if not got.startswith(expect):
            failures.append(f"{label}: -T 2 went '{got}', expected '{expect}'")
        compare(label, ["--json", *args])
        compare(label, ["--events", *args])

    for f in failures:
        print("FAIL:", f)
    print(f"{runs} runs compared with -T 1 ({len(split_used)} of {len(files)} files split), "
          f"{len(failures)} failures")
    shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
