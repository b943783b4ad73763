#!/usr/bin/env python3
"""Real RoCE captures from public repositories (../shared/captures/real).

Checks, per ../shared/captures/real/PROVENANCE.md: every file is read
without error; the RoCE packet count matches the provenance table; every
ICRC is good (all files are complete captures); the clean captures have no
PSN gaps, retransmissions, NAKs or malformed frames; the PSN reuse in the
two sanderw71 stall captures is flagged at the right frames; the QP reuse in
the htons capture (two CM connections on dest QP 0x11) gives each connection
its own flow to QP 0x11 (tests/integration/consistency.py checks them frame
by frame); the ConnectX-4 Lx CNP is seen as a CNP; the two MACs of the
link-local capture (hop limit 1) are host NICs; the diagnoses say nothing
absurd: psn_reuse on the two stall captures (at the SEND reusing the READ's
PSN), nothing else on any capture (no packet loss on clean captures, no ECMP
collision, slow receiver or ICRC error).

Fails when the folder is missing, skips (exit 77) when the build opted out
of the real captures (tests/real_folder.py).
"""
import argparse
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from real_folder import real_folder  # noqa: E402

STALL = {
    # file: (frame of the SEND reusing a READ PSN, frame of that READ)
    "sanderw71__SoftRoce__Roce_PacketSize_2400_stall.pcapng": (147, 143),
    "sanderw71__SoftRoce__rping_3072_faillire.pcapng": (70, 66),
}
HTONS = "sanderw71__SoftRoce__Frame_req_and_response_htons_bytes.pcapng"
CNP = "secdev__scapy__roce_uts_cnp_cx4lx.pcap"
# RoCE over link-local GIDs, sent with hop limit 1: never routed, so host NICs
LINK_LOCAL = "oferby__rdma__roce.cap"


def provenance(real):
    """file name -> RoCE frame count, from the PROVENANCE.md table."""
    counts = {}
    with open(os.path.join(real, "PROVENANCE.md"), encoding="utf-8") as f:
        for line in f:
            cells = [c.strip() for c in line.split("|")]
            if len(cells) > 8 and re.fullmatch(r"\d+", cells[7] or ""):
                counts[cells[1]] = int(cells[7])
    return counts


def run(tool, *args):
    p = subprocess.run([tool, *args], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rocescope", required=True)
    ap.add_argument("--real", required=True)
    a = ap.parse_args()
    real_folder(a.real)
    expected = provenance(a.real)
    if not expected:
        print("FAIL: no rows parsed from PROVENANCE.md")
        return 1
    failures = []

    def check(cond, what):
        if not cond:
            failures.append(what)

    for name, roce in sorted(expected.items()):
        path = os.path.join(a.real, name)
        rc, out, err = run(a.rocescope, "--json", path)
        check(rc == 0, f"{name}: exit {rc}: {err.strip()}")
        if rc != 0:
            continue
        r = json.loads(out)
        c = r["capture"]
        check(c["roce_packets"] == roce, f"{name}: {c['roce_packets']} RoCE packets, PROVENANCE says {roce}")
        check(c["icrc"]["bad"] == 0 and c["icrc"]["good"] == roce,
              f"{name}: ICRC {c['icrc']} (all {roce} should be good)")
        check(c["malformed_packets"] == 0, f"{name}: {c['malformed_packets']} malformed")
        check(c["packets"] == c["roce_packets"] + c["non_roce_packets"] + c["malformed_packets"],
              f"{name}: packets do not add up")
        check(r["psn_gaps"]["events"] == 0, f"{name}: {r['psn_gaps']['events']} PSN gaps")
        check(r["retransmission"]["packets"] == 0,
              f"{name}: {r['retransmission']['packets']} retransmitted packets")
        check(r["naks"]["total"] == 0, f"{name}: {r['naks']['total']} NAKs")
        kinds = [(d["kind"], d["frames"]) for d in r["diagnoses"]]
        want = [("psn_reuse", [STALL[name][0]])] if name in STALL else []
        check(kinds == want, f"{name}: diagnoses {kinds}, expected {want}")
        if name in STALL:
            send, read = STALL[name]
            check(r["psn_reuse"] == 1, f"{name}: psn_reuse {r['psn_reuse']}, expected 1")
            rc, out, err = run(a.rocescope, "--events", path)
            ev = [json.loads(l) for l in out.splitlines()]
            reuse = [(e["frame"], e.get("reuse_frame")) for e in ev if "psn_reuse" in e["verdicts"]]
            check(reuse == [(send, read)], f"{name}: PSN reuse verdicts {reuse}, expected {[(send, read)]}")
        else:
            check(r["psn_reuse"] == 0, f"{name}: psn_reuse {r['psn_reuse']}")
        if name == HTONS:
            check(r["cm"]["connections"] == 2, f"{name}: {r['cm']['connections']} CM connections, expected 2")
            # QP 0x11 serves both connections: one flow record each, each set up by CM once
            reused = [f for f in r["flows"] if f["dest_qp"] == 0x11 and f["cm_connections"] == 1]
            check(len(reused) == 2, f"{name}: not two flows to QP 0x11, one per CM connection")
        if name == LINK_LOCAL:
            basis = sorted((m["address"], m["basis"]) for m in r["host_macs"] + r["fabric_macs"])
            check(len(basis) == 2 and all(b == "unrouted" for _, b in basis),
                  f"{name}: MACs {basis}: link-local senders are host NICs")
        if name == CNP:
            check(r["ecn"]["cnps"] == 1, f"{name}: {r['ecn']['cnps']} CNPs, expected 1")
            check(r["ecn"]["cnps_unexplained"] == 1, f"{name}: a lone CNP must be unexplained")
    for f in failures:
        print("FAIL:", f)
    print(f"{len(expected)} real captures checked, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
