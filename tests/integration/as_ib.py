#!/usr/bin/env python3
"""The same traffic as RoCE and as native InfiniBand gets the same verdicts.

For every scenario whose traffic is the transport alone (no encapsulation,
no non-RoCE frames that InfiniBand would carry otherwise), `rocegen SCENARIO`
and `rocegen SCENARIO --as-ib` (the same frames as link type 247: LIDs for
addresses, GRHs for RoCEv1, FECN for CE marks, InfiniBand CNPs for RoCEv2's)
are analysed with `rocescope --events`; frame by frame the events must be
equal apart from the addresses, the ICRC values (InfiniBand masks other
fields) and the CNP's opcode name (CNP, IB_CNP); and the diagnoses of the two
JSON reports are the same kinds, severities, counts and evidence frames (the
InfiniBand sentences of ce_unanswered and cnp_ignored name FECN and the HCA). The InfiniBand capture must
be of link type 247 and all InfiniBand, and the scenarios with verdicts must
give some (so that the comparison is not between two empty lists).

Also: an InfiniBand scenario (ib_*) written with --as-ib is written as it
is, byte for byte; a scenario of encapsulations (mirrors, tunnels) is refused
with --as-ib (exit 2).
"""
import argparse
import filecmp
import json
import os
import subprocess
import sys
import tempfile

# (scenario, verdicts expected): the transport scenarios of captures/README.md
SCENARIOS = [
    ("clean_rc", False), ("loss_sender", True), ("loss_receiver", True), ("timeout", True),
    ("rnr", True), ("nak_codes", True), ("read_loss", True), ("read_span", True),
    ("psn_reuse", True), ("psn_wrap", True), ("nak_unpaired", True), ("cm_reuse", False),
    ("ecn_cnp", True), ("cnp_before_pairing", True), ("cnp_after_pairing", True), ("uc", True),
    ("xrc", True), ("ud_atomic", True), ("rocev1", True), ("truncated", True),
    ("bad_icrc", True), ("pfc", False), ("loss_nocm", True), ("read_nocm", True),
    ("ecn_nocm", True), ("capture_loss", True), ("nak_generation", True), ("dcqcn", True),
    ("ce_unanswered", True), ("clean_fabric", True),
]
# not compared: ecmp (its subject is the UDP source port) and pfc_hosts (the
# hosts' MACs), which InfiniBand does not have
IB_SCENARIOS = ["ib_rc", "ib_congestion", "ib_global", "ib_mirror"]
REFUSED = ["erspan2", "erspan3", "vxlan", "gre"]
# what depends on the link: addresses, the ICRC's masking, and byte rates
# (InfiniBand's frames are shorter)
LINK_DEPENDENT = ("src", "dst", "icrc_computed", "icrc_wire", "dcqcn_rate_before_gbps",
                  "dcqcn_rate_after_gbps")
CNP_NAMES = ("CNP", "IB_CNP")
# the words of the InfiniBand sentence of a diagnosis kind (ANALYSIS.md, "Diagnoses")
IB_WORDS = {"ce_unanswered": "FECN-marked", "cnp_ignored": "its HCA"}


def events(rocescope, path):
    p = subprocess.run([rocescope, "--events", path], capture_output=True, text=True,
                       timeout=120, check=True)
    out = {}
    for line in p.stdout.splitlines():
        ev = json.loads(line)
        out[ev["frame"]] = ev
    return out


def without_link(ev):
    ev = {k: v for k, v in ev.items() if k not in LINK_DEPENDENT}
    if ev.get("opcode") in CNP_NAMES:
        ev["opcode"] = "any CNP"
    return ev


# kinds that only Ethernet has: PFC and PAUSE are MAC Control frames, which an
# InfiniBand capture of the same traffic does not carry
ETHERNET_KINDS = ("pfc_storm", "pfc_paused", "slow_receiver")


def diagnoses(rep):
    """The diagnoses of a report without what names the link: (kind, severity, count, frames)."""
    return [(d["kind"], d["severity"], d["count"], d["frames"]) for d in rep.get("diagnoses", [])
            if d["kind"] not in ETHERNET_KINDS]


def report(rocescope, path):
    p = subprocess.run([rocescope, "--json", path], capture_output=True, text=True,
                       timeout=120, check=True)
    return json.loads(p.stdout)


def check(a, work):
    failures = []

    def gen(name, *extra):
        path = os.path.join(work, name + ("-ib" if extra else "") + ".pcap")
        subprocess.run([a.rocegen, name, "-o", path, *extra], check=True, timeout=60)
        return path

    for name, has_verdicts in SCENARIOS:
        roce, ib = gen(name), gen(name, "--as-ib")
        with open(ib, "rb") as f:
            head = f.read(24)
        if int.from_bytes(head[20:22], "little") != 247:
            failures.append(f"{name} --as-ib: not of link type 247")
        rep_ib = report(a.rocescope, ib)
        c = rep_ib["capture"]
        if c["link_type"] != "INFINIBAND" or c["roce_packets"] != c["ib_packets"] or \
                c["ib_packets"] == 0:
            failures.append(f"{name} --as-ib: {c['link_type']}, {c['roce_packets']} transport "
                            f"packets, {c['ib_packets']} of them InfiniBand")
        ev_roce, ev_ib = events(a.rocescope, roce), events(a.rocescope, ib)
        if bool(ev_roce) != has_verdicts:
            failures.append(f"{name}: {len(ev_roce)} frames with verdicts (scenario changed?)")
        n_diff = 0
        for frame in sorted(set(ev_roce) | set(ev_ib)):
            x, y = ev_roce.get(frame), ev_ib.get(frame)
            if x is None or y is None or without_link(x) != without_link(y):
                n_diff += 1
                failures.append(f"{name}: frame {frame}: RoCE {x}, InfiniBand {y}")
        d_roce, d_ib = diagnoses(report(a.rocescope, roce)), diagnoses(rep_ib)
        if d_roce != d_ib:
            failures.append(f"{name}: diagnoses: RoCE {d_roce}, InfiniBand {d_ib}")
        for d in rep_ib.get("diagnoses", []):  # InfiniBand's words: no ECN, no DCQCN
            if d["kind"] in IB_WORDS and IB_WORDS[d["kind"]] not in d["summary"]:
                failures.append(f"{name} --as-ib: {d['kind']} says {d['summary']!r}")
        print(f"{'ok  ' if n_diff == 0 and d_roce == d_ib else 'FAIL'} {name}: {len(ev_roce)} "
              f"frames with verdicts, {n_diff} differ; {len(d_roce)} diagnoses")

    for name in IB_SCENARIOS:
        if not filecmp.cmp(gen(name), gen(name, "--as-ib"), shallow=False):
            failures.append(f"{name} --as-ib: not written as it is")
    for name in REFUSED:
        p = subprocess.run([a.rocegen, name, "-o", os.path.join(work, "x.pcap"), "--as-ib"],
                           capture_output=True, text=True, timeout=60)
        if p.returncode != 2:
            failures.append(f"{name} --as-ib: exit {p.returncode}, want 2 (refused)")
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rocescope", required=True)
    ap.add_argument("--rocegen", required=True)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="rocescope-as-ib-") as work:
        failures = check(a, work)
    for f in failures:
        print("FAIL:", f)
    print(f"{len(SCENARIOS)} scenarios compared, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
