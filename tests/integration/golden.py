#!/usr/bin/env python3
"""Golden tests: every capture in captures/ against its expected report.

For captures/NAME.pcap (or .pcapng, .erf) the expected outputs are
captures/expected/NAME.pcap.json (`rocescope --json NAME.pcap`, run inside
captures/), captures/expected/NAME.pcap.events (`rocescope --events`) and
captures/expected/NAME.pcap.txt (`rocescope NAME.pcap`, the human summary), with
the options in captures/expected/NAME.pcap.args when that file exists. They
were produced by the tool and checked by hand against the analysis
definitions of analyzer/engine/ANALYSIS.md (captures/README.md says, frame by
frame, what each scenario must show). `--update` rewrites them all (then check
them by hand again: git diff captures/expected).

The runs pin `-T 4` (four engines splitting the capture, whatever the number
of CPUs): the expected outputs are one engine's, and the split must give them
byte for byte (threads.py and same_results.py compare -T 1, 2 and 4 too).

Every summary is also read back (summary_check.py) and must agree with the
JSON report of the same run, total by total, flow by flow, episode by episode.

Then every capture is cut at snaplen 64, 96 and 128 (pcap records here,
pcapng with editcap -s; raw ERF files are not cut: the same frames are in a
pcap) and analysed again: no crash, a complete report, the same frame counts, a summary
that agrees with its JSON report; and when every RoCE frame's headers fit in
the snaplen (computed here by an independent header walker, below), the same
header-derived counts as the full capture: everything except the ICRC results
and the truncation count. Which captures were compared at each snaplen, and
which not (their headers need more, e.g. a CM MAD needs 137 bytes), is printed;
the compared ones must together show every kind of verdict that fits in that
snaplen (COMPARED_KINDS), so the comparison cannot quietly stop covering them.

--cut-sample (the sanitizer build's share in the contributor's suite,
tests/CMakeLists.txt) cuts each capture at one of the snaplens, in turn,
instead of at all three: every capture is still read cut short and analysed
whole; the kinds a snaplen's comparisons show are then not required (the
normal build and the sanitizer build's release tier run every cut).
"""
import argparse
from decimal import Decimal
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

import summary_check

SNAPLENS = (64, 96, 128)
ROCE_PORT = 4791

# Extension header bytes per BTH opcode (analyzer/engine/PROTOCOL.md "Opcodes",
# "Header sizes"), written
# here independently of the engine's table.
RETH, AETH, DETH, IMM, IETH, ATOMIC, ATOMACK, RDETH, XRC, FETH = 16, 4, 8, 4, 4, 28, 8, 4, 4, 4
RC_EXT = {0x03: IMM, 0x05: IMM, 0x06: RETH, 0x09: IMM, 0x0A: RETH, 0x0B: RETH + IMM,
          0x0C: RETH, 0x0D: AETH, 0x0F: AETH, 0x10: AETH, 0x11: AETH, 0x12: AETH + ATOMACK,
          0x13: ATOMIC, 0x14: ATOMIC, 0x16: IETH, 0x17: IETH, 0x1C: FETH + RETH, 0x1D: RETH}
CNP_RESERVED = 16
MAD_NEEDED = 24 + 51  # MAD header + the CM REQ fields the engine reads
LRH, GRH, ERF_HDR = 8, 40, 16
LNH_GLOBAL, LNH_LOCAL, LNH_RAW = 3, 2, 0
IB_MIRROR = 0x1123    # raw header EtherType of a switch's mirror, then a 4-byte prefix


def ext_len(op):
    tr, low = op >> 5, op & 0x1F
    if op == 0x81:
        return CNP_RESERVED
    base = RC_EXT.get(low, 0)
    if tr == 1:      # UC
        return base
    if tr == 2:      # RD: RDETH, plus DETH on requests
        return RDETH + (DETH if low not in (0x0D, 0x0E, 0x0F, 0x10, 0x11, 0x12) else 0) + base
    if tr == 3:      # UD
        return DETH + base
    if tr == 5:      # XRC: XRCETH on requests
        return (XRC if low not in (0x0D, 0x0E, 0x0F, 0x10, 0x11, 0x12) else 0) + base
    return base


def header_len(frame, linktype):
    """Bytes a frame needs captured for all its RoCE headers (0: not RoCE)."""
    if linktype == 1:
        return eth_len(frame, 0)
    if linktype == 113:
        return ethertype_len(frame, struct.unpack_from("!H", frame, 14)[0], 16)
    if linktype == 276:
        return ethertype_len(frame, struct.unpack_from("!H", frame, 0)[0], 20)
    if linktype in (12, 101, 228, 229):
        return ethertype_len(frame, 0x0800 if frame[0] >> 4 == 4 else 0x86DD, 0)
    if linktype == 247:
        return ib_len(frame, 0)
    if linktype == 197:      # ERF records of InfiniBand (the generator adds no extension headers)
        return ib_len(frame, ERF_HDR)
    return 0


def ib_len(frame, off):
    """Header bytes an InfiniBand packet at off needs (its LRH at least)."""
    lnh = frame[off + 1] & 3
    if lnh == LNH_LOCAL:
        return roce_len(frame, off + LRH)
    if lnh == LNH_GLOBAL:
        return roce_len(frame, off + LRH + GRH) if frame[off + LRH + 6] == 0x1B else off + LRH + GRH
    if lnh == LNH_RAW and struct.unpack_from("!H", frame, off + LRH + 2)[0] == IB_MIRROR:
        return ib_len(frame, off + LRH + 8)
    return off + LRH


def eth_len(frame, off):
    return ethertype_len(frame, struct.unpack_from("!H", frame, off + 12)[0], off + 14)


def ethertype_len(frame, etype, off):
    """Header bytes needed from an EtherType whose payload starts at off."""
    while etype in (0x8100, 0x88A8, 0x9100):
        etype = struct.unpack_from("!H", frame, off + 2)[0]
        off += 4
    if etype == 0x8808:      # MAC Control: opcode, class-enable vector, 8 times
        return off + 20
    if etype == 0x8915:
        return roce_len(frame, off + 40)
    if etype == 0x0800:
        proto, l4 = frame[off + 9], off + (frame[off] & 0x0F) * 4
    elif etype == 0x86DD:
        proto, l4 = frame[off + 6], off + 40   # the scenarios use no IPv6 extension headers
    else:
        return 0
    if proto == 47:          # GRE: flags C, K, S add 4 bytes each
        flags, gproto = struct.unpack_from("!HH", frame, l4)
        h = l4 + 4 + 4 * bin(flags & 0xB000).count("1")
        if gproto == 0x88BE:
            return eth_len(frame, h + 8 if flags & 0x1000 else h)   # ERSPAN II / I
        if gproto == 0x22EB:
            return eth_len(frame, h + 12 + (8 if frame[h + 11] & 1 else 0))  # ERSPAN III
        if gproto == 0x6558:
            return eth_len(frame, h)
        return 0
    if proto != 17:
        return 0
    dport = struct.unpack_from("!H", frame, l4 + 2)[0]
    if dport == 4789:        # VXLAN
        return eth_len(frame, l4 + 16)
    return roce_len(frame, l4 + 8) if dport == ROCE_PORT else 0


def roce_len(frame, bth):
    if len(frame) < bth + 12:
        return len(frame)
    op = frame[bth]
    end = bth + 12 + ext_len(op)
    if op == 0x64 and struct.unpack_from("!I", frame, bth + 4)[0] & 0xFFFFFF == 1:
        end += MAD_NEEDED  # a CM MAD: the analysis reads its fields
    return end


def read_frames(path):
    """Frames of a classic pcap or pcapng file: (linktype, bytes) list."""
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack_from("<I", data, 0)[0]
    out = []
    if magic in (0xA1B2C3D4, 0xA1B23C4D):
        lt = struct.unpack_from("<I", data, 20)[0]
        off = 24
        while off + 16 <= len(data):
            incl = struct.unpack_from("<I", data, off + 8)[0]
            out.append((lt, data[off + 16:off + 16 + incl]))
            off += 16 + incl
        return out
    off, lts = 0, []
    while off + 12 <= len(data):  # pcapng, little-endian as written by the generator
        btype, blen = struct.unpack_from("<II", data, off)
        if btype == 1:
            lts.append(struct.unpack_from("<H", data, off + 8)[0])
        elif btype == 6:
            ifid, _, _, caplen = struct.unpack_from("<IIII", data, off + 8)
            out.append((lts[ifid], data[off + 28:off + 28 + caplen]))
        off += blen
    return out


HEADER_DERIVED = ("packets", "roce_packets", "rocev1_packets", "rocev2_packets", "ib_packets",
                  "ib_non_transport", "non_roce_packets", "malformed_packets",
                  "request_packets", "response_packets", "cnp_packets")


def derived(r):
    """The counts of a report that only depend on captured headers."""
    c = r["capture"]
    d = {k: c[k] for k in HEADER_DERIVED}
    d.update(naks=r["naks"], retransmission=r["retransmission"], psn_gaps=r["psn_gaps"],
             psn_reuse=r["psn_reuse"], read_response_gaps=r["read_response_gaps"],
             ecn={k: v for k, v in r["ecn"].items()}, cm=r["cm"],
             connections=r["connections"], pfc=r["pfc"], encapsulation=r["encapsulation"])
    return d


# What the captures compared at a snaplen must show between them (the kinds
# whose headers fit: at 64 bytes no RETH and no CNP does).
COMPARED_KINDS = {
    64: ("psn_gaps", "retransmission", "naks"),
    96: ("psn_gaps", "retransmission", "naks", "psn_reuse", "read_response_gaps", "ce_marked",
         "cnps_matched", "ce_unanswered", "cnps_unexplained"),
    128: ("psn_gaps", "retransmission", "naks", "psn_reuse", "read_response_gaps", "ce_marked",
          "cnps_matched", "ce_unanswered", "cnps_unexplained", "pfc"),
}


def kinds(r):
    """The kinds of COMPARED_KINDS a report shows."""
    k = {"psn_gaps": r["psn_gaps"]["events"], "retransmission": r["retransmission"]["episodes"],
         "naks": r["naks"]["total"], "psn_reuse": r["psn_reuse"],
         "read_response_gaps": r["read_response_gaps"]["events"],
         "ce_marked": r["ecn"]["ce_marked"], "cnps_matched": r["ecn"]["cnps_matched"],
         "ce_unanswered": r["ecn"]["ce_unanswered"],
         "cnps_unexplained": r["ecn"]["cnps_unexplained"],
         "pfc": r["pfc"]["pfc_frames"] + r["pfc"]["pause_frames"]}
    return {name for name, n in k.items() if n}


def cut_pcap(src, dst, snap):
    """A classic pcap with every record cut to snap bytes (original lengths kept)."""
    with open(src, "rb") as f:
        data = f.read()
    out, off = bytearray(data[:16]) + struct.pack("<I", snap) + data[20:24], 24
    while off + 16 <= len(data):
        sec, frac, incl, orig = struct.unpack_from("<IIII", data, off)
        keep = min(incl, snap)
        out += struct.pack("<IIII", sec, frac, keep, orig) + data[off + 16:off + 16 + keep]
        off += 16 + incl
    with open(dst, "wb") as f:
        f.write(out)


def run(tool, args, cwd):
    p = subprocess.run([tool, *args], capture_output=True, text=True, cwd=cwd, timeout=120)
    return p.returncode, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rocescope", required=True)
    ap.add_argument("--captures", required=True)
    ap.add_argument("--editcap", default=shutil.which("editcap"))
    ap.add_argument("--update", action="store_true")
    ap.add_argument("--cut-sample", action="store_true",
                    help="cut each capture at one snaplen, in turn (the sanitizer build)")
    a = ap.parse_args()
    a.rocescope = os.path.abspath(a.rocescope)
    caps = sorted(n for n in os.listdir(a.captures) if n.endswith((".pcap", ".pcapng", ".erf")))
    expdir = os.path.join(a.captures, "expected")
    failures = []
    if not caps:
        print("FAIL: no captures in", a.captures)
        return 1
    tmp = tempfile.mkdtemp(prefix="rocescope-golden-")
    compared = {snap: [] for snap in SNAPLENS}
    kinds_seen = {snap: set() for snap in SNAPLENS}
    not_compared = {snap: [] for snap in SNAPLENS}
    for index, name in enumerate(caps):
        base = name
        outs = {}
        argfile = os.path.join(expdir, base + ".args")
        extra = open(argfile, encoding="utf-8").read().split() if os.path.exists(argfile) else []
        # the expected outputs are one engine's; -T 4 pinned so that the split
        # (-T) is held to them whatever the number of CPUs of the machine
        pinned = extra if "-T" in extra else ["-T", "4", *extra]
        for mode, suffix in (("--json", ".json"), ("--events", ".events"), (None, ".txt")):
            args = [mode, *pinned, name] if mode else [*pinned, name]
            rc, out, err = run(a.rocescope, args, a.captures)
            mode = mode or "(summary)"
            if rc != 0:
                failures.append(f"{name} {mode}: exit {rc}: {err.strip()}")
                continue
            outs[mode] = out
            exp = os.path.join(expdir, base + suffix)
            if a.update:
                os.makedirs(expdir, exist_ok=True)
                with open(exp, "w", encoding="utf-8") as f:
                    f.write(out)
            elif not os.path.exists(exp):
                failures.append(f"{name}: no expected output {exp}")
            else:
                with open(exp, encoding="utf-8") as f:
                    want = f.read()
                if out != want:
                    failures.append(f"{name} {mode}: output differs from {exp} (in captures/: "
                                    f"rocescope {' '.join(args)} | diff - expected/{base + suffix})")
        if "--json" not in outs:
            continue
        full = json.loads(outs["--json"])
        if "(summary)" in outs:
            for p in summary_check.check(outs["(summary)"], json.loads(outs["--json"],
                                                                       parse_float=Decimal)):
                failures.append(f"{name}: the summary disagrees with the JSON report: {p}")
        if name.endswith(".erf"):
            continue  # not cut: its frames are those of a pcap that is
        need = max((header_len(fr, lt) for lt, fr in read_frames(os.path.join(a.captures, name))),
                   default=0)
        for snap in (SNAPLENS[index % len(SNAPLENS)],) if a.cut_sample else SNAPLENS:
            cut = os.path.join(tmp, f"{snap}-{name}")
            if name.endswith(".pcap"):  # editcap cannot rewrite every link type (InfiniBand)
                cut_pcap(os.path.join(a.captures, name), cut, snap)
            else:
                subprocess.run([a.editcap, "-s", str(snap), os.path.join(a.captures, name), cut],
                               check=True, capture_output=True)
            rc, out, err = run(a.rocescope, ["--json", *extra, cut], tmp)
            rc2, text, err2 = run(a.rocescope, [*extra, cut], tmp)
            if rc != 0 or rc2 != 0:
                failures.append(f"{name} at snaplen {snap}: exit {rc}, {rc2}: {err.strip()}")
                continue
            for p in summary_check.check(text, json.loads(out, parse_float=Decimal)):
                failures.append(f"{name} at snaplen {snap}: the summary disagrees with the JSON "
                                f"report: {p}")
            r = json.loads(out)
            c = r["capture"]
            if c["packets"] != full["capture"]["packets"]:
                failures.append(f"{name} at snaplen {snap}: {c['packets']} packets")
            if c["packets"] != c["roce_packets"] + c["malformed_packets"] + c["non_roce_packets"]:
                failures.append(f"{name} at snaplen {snap}: packets do not add up")
            if c["icrc"]["bad"] > full["capture"]["icrc"]["bad"]:
                failures.append(f"{name} at snaplen {snap}: more bad ICRCs than in full")
            if need > snap:
                not_compared[snap].append(f"{name} ({need})")
                continue
            compared[snap].append(name)
            if derived(r) != derived(full):
                failures.append(f"{name} at snaplen {snap} (headers need {need}): "
                                f"header-derived counts changed:\n  full {derived(full)}\n  cut  {derived(r)}")
            kinds_seen[snap] |= kinds(full)
    shutil.rmtree(tmp, ignore_errors=True)
    for snap in SNAPLENS:
        print(f"snaplen {snap}: header-derived counts compared on {len(compared[snap])} captures; "
              f"not on {len(not_compared[snap])} (headers need more bytes): "
              + (", ".join(not_compared[snap]) or "none"))
        missing = [k for k in COMPARED_KINDS[snap] if k not in kinds_seen[snap]
                   and not a.cut_sample]
        if missing:
            failures.append(f"snaplen {snap}: no capture compared at this snaplen shows "
                            f"{', '.join(missing)} (add a header-only scenario that does)")
    for f in failures:
        print("FAIL:", f)
    print(f"{len(caps)} captures, {len(failures)} failures" + (" (expected files rewritten)" if a.update else "")
          + (" (each cut at one snaplen: --cut-sample)" if a.cut_sample else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
