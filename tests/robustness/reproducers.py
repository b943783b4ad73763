#!/usr/bin/env python3
"""Reproducers of the robustness bugs found by fuzzing and the adversarial
tests, at the CLI. The fixed ones run in CI (robust_reproducers) so that
they stay fixed; the open ones (--open) in a disabled ctest
(robust_open_bugs) until their fix, which then moves them to the fixed.

pfc_window_walk (fixed, e135d62): the engine accounted a PFC/PAUSE pause
window by window (analyzer/engine/roce_pfc.c, account()), so one XOFF cost
pause / window steps: with --link-speed 1M (a quantum is 512 us) and
--interval 1us, 8 x 33.5 million per 60-byte frame (2.5 s each; a capture
of them kept the CLI busy for hours). Must finish within TIMEOUT_S, with
the pause time right.

pcapng_time_overflow (fixed, e07c071; found by fuzz_capture): a pcapng
timestamp of 2^40 seconds (if_tsresol 0) overflowed the nanosecond
conversion (roce_pcap_frame, then in analyzer/capture/capture.c, now in
capture_pcap.c: tv_sec * 10^9 in int64_t): undefined behaviour (UBSan aborts), and in release builds a
wrapped, negative capture time in the report. Must end with a clear error,
or a report whose times are not negative.

pcapng_time_2262 (fixed, e07c071; found by fuzz_engine with the clock at
the ends of int64_t): the frames of captures/ecn_cnp.pcap (CE marks, CNPs)
1 us apart from 90 us before 2^63 ns (the year 2262), times the conversion
holds: the engine's time arithmetic (ts + cnp window, roce_ecn.c, and 16
more places) overflowed. The engine now clamps times to [0, 2^62] ns (all
these frames get the same time, so the ECN timing is not that of ordinary
times). Must give a report that adds up, every frame counted, no sanitizer
report.

report_cut_overread (fixed; found by valgrind_replay_report, Valgrind over
the fuzz_report corpus): `rocescope merge` handed json-c the length left
*before* the blanks ahead of a value were skipped (analyzer/report/report_parse.c,
next_value), so on a report cut inside a value json-c read that many bytes
past the end of the mapped file (SIGSEGV when the file ends at a page
boundary; ASan did not see it, json-c is not instrumented) and the error
named an offset beyond the file and json-c's state ("continue"). A report
cut at a page boundary inside the flows must give exit 1 and the error
"MEMBER: the report is cut short (offset SIZE)", the offset the file's end.
"""
import argparse
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

import checks

TIMEOUT_S = 10
PAGE = 4096  # a memory page: the report is cut at its end
PFC_FRAMES = 20
PFC_SPACING_S = 30
PFC_PAUSE_US = 65535 * 512  # at 1 Mb/s
PCAP_NS = 0xA1B23C4D
T0_S = 1700000000
MACCTRL_PFC = 0x0101
ETH_MIN = 60
PCAPNG_SHB, PCAPNG_IDB, PCAPNG_EPB = 0x0A0D0D0A, 1, 6
HUGE_S = 1 << 40
INT64_MAX = (1 << 63) - 1
T2262_START_NS = INT64_MAX - 90000  # 90 us before the end: a CNP window (100 us) crosses it
T2262_STEP_NS = 1000
NS_PER_S = 10 ** 9
PCAP_HDR, PCAP_REC = 24, 16


def pfc_xoff_all():
    """802.1Qbb PFC: every priority enabled, 65535 quanta each, padded."""
    f = bytes.fromhex("0180c2000001" "020000000001") + struct.pack("!HHH", 0x8808, MACCTRL_PFC, 0xFF)
    f += struct.pack("!8H", *([0xFFFF] * 8))
    return f + b"\0" * (ETH_MIN - len(f))


def pcap(frames):
    out = struct.pack("<IHHiIII", PCAP_NS, 2, 4, 0, 0, 65535, 1)
    for sec, data in frames:
        out += struct.pack("<IIII", sec, 0, len(data), len(data)) + data
    return out


def pcap_frames(path):
    """(ns since the epoch, bytes) of each frame of a nanosecond pcap file."""
    with open(path, "rb") as f:
        data = f.read()
    out, off = [], PCAP_HDR
    while off + PCAP_REC <= len(data):
        sec, nsec, caplen, _ = struct.unpack_from("<IIII", data, off)
        out.append((sec * NS_PER_S + nsec, data[off + PCAP_REC:off + PCAP_REC + caplen]))
        off += PCAP_REC + caplen
    return out


def pcapng(frames, tsresol):
    """SHB, IDB (Ethernet, if_tsresol 10^-tsresol s), one EPB per (time, frame)."""
    def block(btype, body):
        body += b"\0" * (-len(body) % 4)
        return struct.pack("<II", btype, 12 + len(body)) + body + struct.pack("<I", 12 + len(body))
    shb = block(PCAPNG_SHB, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    opt = struct.pack("<HHB", 9, 1, tsresol) + b"\0" * 3  # option if_tsresol
    idb = block(PCAPNG_IDB, struct.pack("<HHI", 1, 0, 0) + opt + struct.pack("<HH", 0, 0))
    epbs = b"".join(block(PCAPNG_EPB, struct.pack("<IIIII", 0, t >> 32, t & 0xFFFFFFFF,
                                                  len(frame), len(frame)) + frame)
                    for t, frame in frames)
    return shb + idb + epbs


def pfc_window_walk(tool, tmp, _captures):
    path = os.path.join(tmp, "pfc_window_walk.pcap")
    with open(path, "wb") as f:
        f.write(pcap([(T0_S + PFC_SPACING_S * i, pfc_xoff_all()) for i in range(PFC_FRAMES)]))
    argv = [tool, "--json", "--link-speed", "1M", "--interval", "1us", path]
    try:
        r = checks.run(argv, TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return f"{PFC_FRAMES} PFC frames still not analysed after {TIMEOUT_S} s"
    if r.status != 0 or checks.sanitizer_report(r.stderr):
        return f"exit {r.status}: {r.stderr[:300]}"
    # every XOFF restarts the 33.5 s pause 30 s later: paused from the first to the last end
    want_us = PFC_SPACING_S * (PFC_FRAMES - 1) * 1e6 + PFC_PAUSE_US
    got = [p["paused_us"] for p in json.loads(r.stdout)["pfc"]["priorities"]]
    if any(abs(g - want_us) > 1 for g in got):
        return f"paused {got[0]} us per priority, want {want_us}"
    return None


def pcapng_time_overflow(tool, tmp, _captures):
    path = os.path.join(tmp, "pcapng_time_overflow.pcapng")
    with open(path, "wb") as f:
        f.write(pcapng([(HUGE_S, pfc_xoff_all()), (HUGE_S + 1, pfc_xoff_all())], 0))
    r = checks.run([tool, "--json", path], TIMEOUT_S)
    bad = checks.sanitizer_report(r.stderr)
    if bad:
        return bad
    if r.status == 1 and r.stderr.startswith("rocescope: "):
        return None
    if r.status == 0:
        c = json.loads(r.stdout)["capture"]
        if c["first_time"] >= 0 and c["duration_s"] >= 0:
            return None
        return f"first_time {c['first_time']}, duration_s {c['duration_s']}"
    return f"exit {r.status}: {r.stderr[:300]}"


def pcapng_time_2262(tool, tmp, captures):
    src = os.path.join(captures, "ecn_cnp.pcap")
    frames = pcap_frames(src)
    path = os.path.join(tmp, "ecn_cnp_2262.pcapng")
    with open(path, "wb") as f:
        f.write(pcapng([(T2262_START_NS + i * T2262_STEP_NS, d) for i, (_, d) in enumerate(frames)],
                       9))
    r = checks.run([tool, "--json", path], TIMEOUT_S)
    bad = checks.sanitizer_report(r.stderr)
    if bad or r.status != 0:
        return f"exit {r.status}: {bad or r.stderr[:300]}"
    rep_ = json.loads(r.stdout)
    problems = checks.report_problems(rep_, 0)
    if rep_["capture"]["packets"] != len(frames):
        problems.append(f"{rep_['capture']['packets']} packets, the file has {len(frames)}")
    return "; ".join(problems) or None


def report_cut_overread(tool, tmp, captures):
    full = checks.run([tool, "--json", os.path.join(captures, "ecn_cnp.pcap"),
                       os.path.join(captures, "xrc.pcap"), os.path.join(captures, "uc.pcap")],
                      TIMEOUT_S)
    if full.status != 0:
        return f"making the report: exit {full.status}: {full.stderr[:300]}"
    doc = full.stdout.encode()
    flows = doc.find(b'"flows"')
    size = (len(doc) // PAGE) * PAGE
    if flows < 0 or size <= flows:
        return f"the report ({len(doc)} bytes) has no flows past {PAGE} bytes"
    path = os.path.join(tmp, "cut.json")
    with open(path, "wb") as f:
        f.write(doc[:size])
    r = checks.run([tool, "merge", path], TIMEOUT_S)
    bad = checks.sanitizer_report(r.stderr)
    # the streaming merge names the member it was in: "PATH: flows[12].x: ..."
    want = re.compile(re.escape(f"rocescope: {path}: ") + r"(\S+: )?the report is cut short " +
                      re.escape(f"(offset {size})"))
    if bad or r.status != 1 or not want.search(r.stderr):
        return f"exit {r.status}, want 1 and `{want.pattern}`: {bad or r.stderr[:300]}"
    # cut inside a literal, after a decimal point, inside a string and after a
    # key: each the report cut short at its end, whatever token the cut falls in
    cuts = {"in null": doc.find(b"null", flows) + 2, "after a point": doc.find(b".", flows) + 1,
            "in a string": doc.find(b'"', flows) + 3, "after a key": doc.find(b'":', flows) + 2}
    for what, at in cuts.items():
        if at < flows:
            return f"the report has no place to cut {what}"
        with open(path, "wb") as f:
            f.write(doc[:at])
        r = checks.run([tool, "merge", path], TIMEOUT_S)
        want = re.compile(re.escape(f"rocescope: {path}: ") + r"(\S+: )?the report is cut short " +
                          re.escape(f"(offset {at})"))
        if checks.sanitizer_report(r.stderr) or r.status != 1 or not want.search(r.stderr):
            return f"cut {what} at {at}: exit {r.status}: {r.stderr[:300]}"
    return None


# name -> (function, open)
CASES = {
    "pfc_window_walk": (pfc_window_walk, False),
    "pcapng_time_overflow": (pcapng_time_overflow, False),
    "pcapng_time_2262": (pcapng_time_2262, False),
    "report_cut_overread": (report_cut_overread, False),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rocescope", required=True)
    ap.add_argument("--captures", required=True, help="the captures/ folder")
    ap.add_argument("--open", action="store_true", help="run the reproducers of open bugs")
    a = ap.parse_args()
    failures = []
    with tempfile.TemporaryDirectory(prefix="rocescope-repro-") as tmp:
        for name, (fn, is_open) in CASES.items():
            if is_open == a.open:
                problem = fn(a.rocescope, tmp, a.captures)
                if problem:
                    failures.append(f"{name}: {problem}")
    return checks.finish(failures, "reproducers of open bugs" if a.open else "reproducers")


if __name__ == "__main__":
    sys.exit(main())
