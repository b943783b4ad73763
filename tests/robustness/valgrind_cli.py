#!/usr/bin/env python3
"""The CLI under Valgrind (memcheck): every output mode, several files, the
error paths (file cut short, missing file, not a capture, bad option), -o,
flow eviction on the hostile capture. Each run must show no memory error
and no leak (definite, indirect or possible), and its usual exit status.
"""
import argparse
import os
import shutil
import sys
import tempfile

import checks

VALGRIND_ERROR = 99
TIMEOUT_S = 300


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--valgrind", default=shutil.which("valgrind"))
    ap.add_argument("--rocescope", required=True)
    ap.add_argument("--captures", required=True)
    ap.add_argument("--hostile", required=True)
    a = ap.parse_args()
    if not a.valgrind:
        print("valgrind not installed: skipped")
        return 77
    cap = lambda name: os.path.join(a.captures, name)  # noqa: E731
    failures = []
    with tempfile.TemporaryDirectory(prefix="rocescope-valgrind-") as tmp:
        with open(cap("loss_receiver.pcap"), "rb") as f:
            data = f.read()
        cut = os.path.join(tmp, "cut.pcap")
        with open(cut, "wb") as f:
            f.write(data[:len(data) - 10])
        text = os.path.join(tmp, "notes.txt")
        with open(text, "w", encoding="ascii") as f:
            f.write("not a capture\n" * 8)
        cases = [
            ("text summary", [cap("loss_receiver.pcap")], 0),
            ("json, two files", ["--json", cap("ecn_cnp.pcap"), cap("read_loss.pcap")], 0),
            ("events, pcapng cut by a snaplen", ["--events", cap("truncated.pcapng")], 0),
            ("json to -o", ["--json", "-o", os.path.join(tmp, "r.json"), cap("clean_rc.pcap")], 0),
            ("hostile, 4 flows", ["--json", "--max-flows", "4", a.hostile], 0),
            ("hostile, events", ["--events", "--pmtu", "256", a.hostile], 0),
            ("hostile, html", ["--html", os.path.join(tmp, "h.html"), "--top", "1000",
                               "--max-flows", "16", a.hostile], 0),
            ("hostile, annotate", ["--annotate", os.path.join(tmp, "h.pcapng"), "--max-flows",
                                   "16", a.hostile], 0),
            ("annotate, pcapng and ERF", ["--annotate", os.path.join(tmp, "a.pcapng"),
                                         cap("truncated.pcapng"), cap("ib_rc.erf")], 0),
            ("html, -j 2, PFC and CE marks", ["-j", "2", "--html", os.path.join(tmp, "j.html"),
                                              cap("pfc.pcap"), cap("ecn_cnp.pcap")], 0),
            ("localize, html", ["localize", "--html", os.path.join(tmp, "l.html"),
                                cap("localize/tap_a.pcap"), cap("localize/tap_b.pcap")], 0),
            ("file cut short", ["--json", cut], 1),
            ("missing file and a good one", ["--json", os.path.join(tmp, "nope.pcap"),
                                             cap("uc.pcap")], 1),
            ("not a capture", [text], 1),
            ("bad option value", ["--max-flows", "3", cap("uc.pcap")], 2),
            ("localize, two taps", ["localize", "--json", cap("localize/tap_a.pcap"),
                                    cap("localize/tap_b.pcap")], 0),
            ("localize, a mirror split", ["localize", "--split-by", "outer-source",
                                          cap("localize/mirror.pcap")], 0),
            ("localize, a file cut short", ["localize", cap("localize/tap_a.pcap"), cut], 1),
            ("localize, a missing file", ["localize", cap("localize/tap_a.pcap"),
                                          os.path.join(tmp, "nope.pcap")], 1),
        ]
        for what, args, status in cases:
            argv = [a.valgrind, "--quiet", "--leak-check=full",
                    "--errors-for-leak-kinds=definite,indirect,possible",
                    f"--error-exitcode={VALGRIND_ERROR}", a.rocescope, *args]
            r = checks.run(argv, TIMEOUT_S)
            if r.status != status:
                failures.append(f"{what}: exit {r.status} (want {status}): {r.stderr.strip()[:3000]}")
    return checks.finish(failures, f"CLI under valgrind, {len(cases)} runs")


if __name__ == "__main__":
    sys.exit(main())
