#!/usr/bin/env python3
"""The hostile-values capture (tests/robustness/hostile.pcap, written by
`rocegen hostile`; tools/rocegen/rocegen_hostile.c says what is in it): the CLI
survives it in every output mode and under tight options, and the report
is sane.

1. The committed capture is what this rocegen writes (byte for byte), so the
   test and the generator cannot drift apart.
2. Every run exits 0 with no sanitizer report; JSON reports add up
   (checks.report_problems) and every --events verdict count equals its
   count in the JSON report (checks.events_problems).
3. The report counts what the capture was built to contain (lower bounds
   that follow from its construction, see the comments below), and every
   frame of the file (counted here from the pcap records) is counted.
"""
import argparse
import filecmp
import json
import os
import struct
import sys
import tempfile

import checks

PCAP_HDR, REC_HDR = 24, 16
TIMEOUT_S = 120
OPTION_SETS = ([], ["--max-flows", "4"], ["--pmtu", "256"], ["--no-icrc"], ["--cnp-window", "1"],
               ["--udp-port", "4789"], ["--link-speed", "10M", "--interval", "250us",
                                        "--storm-share", "1"])

# (path in the JSON report, at least): what the construction guarantees
PROMISED = [
    (("capture", "malformed_by_reason", "pad_count"), 3),  # pad count 3, payload 0..2
    # opcodes 0x60..0xFF but UD SEND Only (+Imm), the CNP and XRC (0xA0..0xBF): undefined
    (("capture", "malformed_by_reason", "unknown_opcode"), 64 + 64 - 3),
    (("aeth_reserved",), 32),                               # every value of AETH type 10
    (("naks", "reserved_code"), 27),                        # NAK codes 5..31
    (("naks", "rnr"), 2),                                   # RNR timers 0 and 31
    (("ecn", "cnps_unexplained"), 40),                      # CNPs between silent hosts
    (("psn_gaps", "missing_psns"), 0x7FFFFE),              # the largest forward jump
    (("capture", "truncated_packets"), 1),                  # cut with the original length
    (("cm", "messages"), 80),                               # 80 REQs nobody answers
    (("pfc", "pfc_frames"), 4),                             # whole PFC frames
    (("pfc", "pause", "xoff"), 1),                          # the longest PAUSE
    (("encapsulation", "erspan1"), 1),                      # five mirrors deep, outermost
]


def pcap_records(path):
    """Number of records of a classic little-endian pcap file."""
    with open(path, "rb") as f:
        data = f.read()
    n, off = 0, PCAP_HDR
    while off + REC_HDR <= len(data):
        caplen = struct.unpack_from("<I", data, off + 8)[0]
        off += REC_HDR + caplen
        n += 1
    return n


def get(r, path):
    for k in path:
        r = r[k]
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rocescope", required=True)
    ap.add_argument("--rocegen", required=True)
    ap.add_argument("--capture", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                      "hostile.pcap"))
    a = ap.parse_args()
    failures = []

    with tempfile.TemporaryDirectory(prefix="rocescope-hostile-") as tmp:
        fresh = os.path.join(tmp, "hostile.pcap")
        g = checks.run([a.rocegen, "hostile", "-o", fresh], TIMEOUT_S)
        if g.status != 0 or not filecmp.cmp(fresh, a.capture, shallow=False):
            failures.append(f"{a.capture} is not what `rocegen hostile` writes now "
                            f"(regenerate it: rocegen hostile -o {a.capture}) {g.stderr.strip()}")
        frames = pcap_records(a.capture)

        for opts in OPTION_SETS:
            runs = {mode: checks.run([a.rocescope, *opts, *mode, a.capture], TIMEOUT_S)
                    for mode in (("--json",), ("--events",), (), ("--html", os.devnull, "--events"),
                                 ("--annotate", os.devnull, "--json"))}
            what = " ".join(opts) or "defaults"
            for mode, r in runs.items():
                bad = checks.sanitizer_report(r.stderr)
                if r.status != 0 or bad:
                    failures.append(f"{what} {' '.join(mode)}: exit {r.status}: {bad or r.stderr[:300]}")
            if runs[()].status == 0 and not runs[()].stdout.startswith("rocescope report:"):
                failures.append(f"{what}: no text summary")
            try:
                rep = json.loads(runs[("--json",)].stdout)
            except ValueError as e:
                failures.append(f"{what}: JSON report does not parse: {e}")
                continue
            problems = checks.report_problems(rep, 0)
            problems += checks.events_problems(runs[("--events",)].stdout, rep)
            if rep["capture"]["packets"] != frames:
                problems.append(f"{rep['capture']['packets']} packets counted, the file has {frames}")
            if not opts:
                problems += [f"{'.'.join(p)} is {get(rep, p)}, at least {least} were written"
                             for p, least in PROMISED if get(rep, p) < least]
            failures += [f"{what}: {p}" for p in problems]

    return checks.finish(failures,
                         f"hostile capture ({frames} frames, {len(OPTION_SETS)} option sets)")


if __name__ == "__main__":
    sys.exit(main())
