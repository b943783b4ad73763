#!/usr/bin/env python3
"""The outputs agree with the traffic and with themselves, where checks of
the engine, the CLI and the plugin against independent decodes found that
they did not (each check names what it guards):

- cnp_order: a CNP that comes before the response pairing its connection
  is decided as if it came after: captures/cnp_before_pairing.pcap and
  cnp_after_pairing.pcap (the same traffic, each CNP and its pairing ACK at
  the same time in the other order) give the same events and the same JSON
  report once those frames are exchanged;
- qp_reuse: a QP number reused by a new CM connection gives that connection
  flows of its own, both connections listed with their own frames, PSNs and
  pairing (the real Soft-RoCE capture ..._htons_bytes.pcapng and
  captures/cm_reuse.pcap); connection and flow ids agree (in every capture);
- first_frames: a flow's first frame is its own first packet, not the CM
  exchange that created it: per address triple, the first frame and the
  packets of the report's flows equal those tshark's own InfiniBand decode
  finds (udp.dstport == 4791 and a BTH) in every real capture;
- time_order: files given out of time order never give a negative
  duration, and the report says once (text and JSON, also -j and merge)
  that they overlap;
- names: a NAK code and a malformed reason are named in the events as the
  report's counts name them;
- wording: the text summary, over every capture of captures/ and of the
  real ones (and a run over the real folder, PROVENANCE.md included), has
  numbers agreeing with their nouns, says when a carried CNP was
  unexplained, and says a skipped file was not read rather than that
  reading stopped.

Real captures and tshark are optional: their checks are skipped, with a
message, when absent.
"""
import argparse
import collections
import ipaddress
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from checker import Checker  # noqa: E402

HTONS = "sanderw71__SoftRoce__Frame_req_and_response_htons_bytes.pcapng"
# captures whose frames tshark's InfiniBand dissector does not see as RoCE
# (one direction comes from UDP source port 69: UDP gives it to TFTP)
NOT_DECODED_BY_TSHARK = {"oferby__proxy__roce.pcap"}
CAPTURE_EXT = (".pcap", ".pcapng", ".cap")

# Count nouns of the text summary: singular, plural (longest first when one
# phrase ends another).
NOUNS = [
    ("go-back-N episode", "go-back-N episodes"), ("READ response gap", "READ response gaps"),
    ("request reuses", "requests reuse"), ("PFC frame", "PFC frames"),
    ("PAUSE frame", "PAUSE frames"), ("CE mark", "CE marks"), ("PSN gap", "PSN gaps"),
    ("bad ICRC", "bad ICRCs"), ("more file", "more files"), ("packet", "packets"),
    ("request", "requests"), ("response", "responses"), ("CNP", "CNPs"), ("PSN", "PSNs"),
    ("episode", "episodes"), ("sample", "samples"), ("frame", "frames"), ("flow", "flows"),
    ("verdict", "verdicts"), ("connection", "connections"), ("window", "windows"),
]
UNITS = {"s", "us", "ms", "ns"}


def run(*args):
    p = subprocess.run(args, capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def report(rocescope, *args):
    rc, out, err = run(rocescope, "--json", *args)
    if rc not in (0, 1) or not out:
        raise RuntimeError(f"rocescope --json {' '.join(args)}: exit {rc}: {err.strip()}")
    return json.loads(out)


def events(rocescope, *args):
    rc, out, err = run(rocescope, "--events", *args)
    if rc != 0:
        raise RuntimeError(f"rocescope --events {' '.join(args)}: exit {rc}: {err.strip()}")
    return [json.loads(line) for line in out.splitlines()]


def renumber(doc, swap):
    """doc with every frame number (a member named frame or *_frame,
    retransmitted_in) mapped through swap."""
    if isinstance(doc, list):
        return [renumber(v, swap) for v in doc]
    if isinstance(doc, dict):
        return {k: (swap.get(v, v) if (k == "frame" or k.endswith("_frame") or
                                        k == "retransmitted_in") and isinstance(v, int)
                    else renumber(v, swap)) for k, v in doc.items()}
    return doc


def test_cnp_order(c, rocescope, captures):
    before = os.path.join(captures, "cnp_before_pairing.pcap")
    after = os.path.join(captures, "cnp_after_pairing.pcap")
    swap = {5: 6, 6: 5, 13: 14, 14: 13}
    eb, ea = events(rocescope, before), events(rocescope, after)
    c.check(any("cnp_matched" in e["verdicts"] for e in ea),
            "cnp_after_pairing: no matched CNP (scenario changed?)")
    got = sorted(renumber(eb, swap), key=lambda e: e["frame"])
    c.check(got == ea, "cnp_order: the events differ with the CNP before its pairing ACK: "
            + "; ".join(f"{x} vs {y}" for x, y in zip(got, ea) if x != y)[:600])
    rb, ra = report(rocescope, before), report(rocescope, after)
    for r in (rb, ra):
        r["capture"].pop("file")
        r["capture"].pop("files")
    # (the exchanged frames are of one flow: its first and last frames are the same;
    # the frames a flow's priorities were read from are exchanged with them)
    for f in rb.get("flows", []):
        for key in ("priority_frame", "cnp_priority_frame"):
            if f.get(key) in swap:
                f[key] = swap[f[key]]
    for key in rb:
        c.check(rb[key] == ra[key], f"cnp_order: JSON member {key} differs: {rb[key]} vs {ra[key]}"
                [:600])


def flows_by_key(rep):
    out = collections.defaultdict(list)
    for f in rep["flows"]:
        out[(f["src"], f["dst"], f["dest_qp"])].append(f)
    return out


def check_ids(c, name, rep):
    """Connections and flows name each other by id, consistently."""
    flows = {f["id"]: f for f in rep["flows"]}
    for conn in rep["connections"]:
        if not c.check("requester_id" in conn and "responder_id" in conn,
                       f"{name}: a connection without its flows' ids"):
            continue
        for end, fid in (("requester", conn["requester_id"]), ("responder", conn["responder_id"])):
            f = flows.get(fid)
            if f is None:
                continue  # announced by CM, never carried a packet: not listed
            c.check({k: f[k] for k in ("src", "dst", "dest_qp")} == conn[end],
                    f"{name}: connection {end}_id {fid} is not the flow {conn[end]}")
        a, b = flows.get(conn["requester_id"]), flows.get(conn["responder_id"])
        if a and b:
            c.check(a.get("paired_with_id") == b["id"] and b.get("paired_with_id") == a["id"],
                    f"{name}: flows {a['id']} and {b['id']} of a connection do not name each other")
    for f in rep["flows"]:
        c.check(f["first_frame"] <= f["last_frame"] and f["first_time"] <= f["last_time"],
                f"{name}: flow {f['id']} ends before it begins")


def test_qp_reuse(c, rocescope, captures, real):
    for path in capture_files(captures) + capture_files(real):
        check_ids(c, os.path.basename(path), report(rocescope, path))
    rep = report(rocescope, os.path.join(captures, "cm_reuse.pcap"))
    fl = flows_by_key(rep)
    req = fl[("192.168.1.10", "192.168.1.20", 0xb2)]
    resp = fl[("192.168.1.20", "192.168.1.10", 0xa1)]
    c.check([(f["first_frame"], f["last_frame"], f["first_psn"], f["last_psn"], f["packets"])
             for f in req] == [(4, 10, 0x3000, 0x3002, 4), (16, 20, 0x1000, 0x1001, 3)],
            f"cm_reuse: requester flows {[(f['first_frame'], f['last_frame']) for f in req]}")
    c.check([(f["first_frame"], f["first_psn"], f["packets"]) for f in resp]
            == [(7, 0x5000, 3), (18, 0x7000, 2)], "cm_reuse: responder flows differ")
    c.check(len(rep["connections"]) == 2, f"cm_reuse: connections {rep['connections']}")
    if len(req) == len(resp) == 2:
        c.check({(x.get("requester_id"), x.get("responder_id")) for x in rep["connections"]}
                == {(req[0]["id"], resp[0]["id"]), (req[1]["id"], resp[1]["id"])},
                f"cm_reuse: connections {rep['connections']}")
    check_ids(c, "cm_reuse", rep)

    path = os.path.join(real, HTONS)
    if not os.path.isfile(path):
        print(f"SKIP qp_reuse on {HTONS}: absent")
        return
    rep = report(rocescope, path)
    fl = flows_by_key(rep)
    a, b = "192.168.37.175", "192.168.37.174"
    # frames as tshark lists them: 51 SEND, 52 ACK, 53 WRITE, 54 ACK (first
    # connection, QPs 0x11/0x26); 266 SEND, 267 ACK, 268-269 WRITE, 270 ACK
    # (second connection, QP 0x11 again with 0x27)
    reused = fl[(a, b, 0x11)]
    c.check([(f["first_frame"], f["last_frame"], f["packets"], f["first_psn"], f["paired_by"])
             for f in reused] == [(51, 54, 2, 7825157, "cm"), (266, 270, 2, 16227732, "cm")],
            f"htons: flows of QP 0x11 {[(f['first_frame'], f['last_frame']) for f in reused]}")
    first, second = fl[(b, a, 0x26)], fl[(b, a, 0x27)]
    c.check([(f["first_frame"], f["last_frame"], f["first_psn"], f["paired_by"]) for f in first]
            == [(52, 53, 13807125, "cm")], f"htons: first responder flow {first}"[:300])
    c.check([(f["first_frame"], f["last_frame"], f["first_psn"], f["last_psn"]) for f in second]
            == [(267, 269, 9628526, 9628527)], f"htons: second responder flow {second}"[:300])
    if len(reused) == 2 and first and second:
        c.check(reused[0].get("paired_with_id") == first[0]["id"] and
                reused[1].get("paired_with_id") == second[0]["id"],
                "htons: each connection's flows are not paired with each other")
    c.check(len(rep["connections"]) == 2 and rep["cm"]["connections"] == 2,
            f"htons: {len(rep['connections'])} connections listed, CM set up 2")
    check_ids(c, "htons", rep)


def tshark_flows(tshark, paths, work):
    """{path: {(src, dst, dest QP): (first frame, packets)}} of tshark's
    decode. One tshark run (it takes most of a second to start) over the
    files one after the other (mergecap -a), its frames given back to their
    files by the frame counts capinfos reads: the decode of a frame is the
    frame's alone."""
    merged = os.path.join(work, "first-frames.pcapng")
    rc, _, err = run("mergecap", "-a", "-w", merged, *paths)
    if rc != 0:
        raise RuntimeError(f"mergecap -a: exit {rc}: {err.strip()}")
    rc, out, err = run("capinfos", "-T", "-r", "-c", *paths)
    if rc != 0:
        raise RuntimeError(f"capinfos: exit {rc}: {err.strip()}")
    counts = [int(line.rsplit("\t", 1)[1]) for line in out.splitlines()]
    rc, out, err = run(tshark, "-r", merged, "-Y", "udp.dstport == 4791 && infiniband.bth", "-T",
                       "fields", "-E", "occurrence=l", "-e", "frame.number", "-e", "ip.src",
                       "-e", "ipv6.src", "-e", "ip.dst", "-e", "ipv6.dst",
                       "-e", "infiniband.bth.destqp")
    if rc != 0 or len(counts) != len(paths):
        raise RuntimeError(f"tshark -r {merged}: exit {rc}: {err.strip()}")
    starts = [sum(counts[:i]) for i in range(len(counts))]  # frames before each file
    flows = {path: {} for path in paths}
    for line in out.splitlines():
        cells = line.split("\t")
        if len(cells) < 6 or not cells[5]:
            continue
        number = int(cells[0])
        i = max(k for k, start in enumerate(starts) if start < number)
        key = (str(ipaddress.ip_address(cells[1] or cells[2])),
               str(ipaddress.ip_address(cells[3] or cells[4])), int(cells[5], 0))
        first, n = flows[paths[i]].get(key, (number - starts[i], 0))
        flows[paths[i]][key] = (first, n + 1)
    return flows


def capture_files(folder):
    if not os.path.isdir(folder):
        return []
    return sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(CAPTURE_EXT))



def test_first_frames(c, rocescope, real, tshark, work):
    paths = capture_files(real)
    if not paths or tshark is None:
        print("SKIP first_frames: no real captures or no tshark")
        return
    paths = [p for p in paths if os.path.basename(p) not in NOT_DECODED_BY_TSHARK]
    decoded = tshark_flows(tshark, paths, work)
    for path in paths:
        name = os.path.basename(path)
        want = decoded[path]
        got = {k: (min(f["first_frame"] for f in fs), sum(f["packets"] for f in fs))
               for k, fs in flows_by_key(report(rocescope, path)).items()}
        diff = {k: (got.get(k), want.get(k)) for k in set(got) | set(want)
                if got.get(k) != want.get(k)}
        c.check(not diff, f"{name}: (first frame, packets) per flow, (rocescope, tshark): "
                f"{dict(list(diff.items())[:3])}")


def test_time_order(c, rocescope, captures, editcap, work):
    early = os.path.join(captures, "clean_rc.pcap")
    late = os.path.join(work, "clean_rc_late.pcap")
    subprocess.run([editcap, "-t", "10", early, late], check=True, capture_output=True, timeout=60)
    ordered, backwards = report(rocescope, early, late), report(rocescope, late, early)
    span = ordered["capture"]["duration_s"]
    c.check(span > 10 and ordered["capture"].get("files_overlap") is False,
            f"files in time order: duration {span}, files_overlap "
            f"{ordered['capture'].get('files_overlap')}")
    c.check(backwards["capture"]["duration_s"] == span,
            f"files out of time order: duration {backwards['capture']['duration_s']} "
            f"(in order: {span})")
    c.check(backwards["capture"].get("files_overlap") is True,
            "files out of time order: files_overlap is not true")
    c.check(backwards["capture"]["first_time"] == ordered["capture"]["first_time"],
            "files out of time order: first_time is not the earliest frame's")
    c.check(all(f["first_time"] >= 0 for f in backwards["flows"]),
            "files out of time order: a flow begins before the capture")
    jobs = report(rocescope, "-j", "2", late, early)
    c.check(jobs["capture"].get("files_overlap") and jobs["capture"]["duration_s"] == span,
            f"-j, files out of time order: {jobs['capture']}"[:300])
    parts = []
    for i, path in enumerate((late, early)):
        parts.append(os.path.join(work, f"part{i}.json"))
        subprocess.run([rocescope, "--json", "-o", parts[-1], path], check=True, timeout=60)
    rc, out, err = run(rocescope, "merge", "--json", *parts)
    merged = json.loads(out) if rc == 0 else {"capture": {}}
    c.check(merged["capture"].get("files_overlap") is True and
            merged["capture"].get("duration_s") == span,
            f"merge, reports out of time order: {merged['capture']}"[:300])
    for args in ((late, early), ("-j", "2", late, early)):
        rc, out, err = run(rocescope, *args)
        c.check(out.count("not in time order") == 1,
                f"rocescope {' '.join(args)}: the summary says {out.count('not in time order')} "
                "times that the files are out of time order")
    rc, out, err = run(rocescope, early, late)
    c.check("time order" not in out, "files in time order: the summary says they are not")


def test_names(c, rocescope, captures):
    for name in ("nak_codes.pcap", "malformed.pcap"):
        path = os.path.join(captures, name)
        rep = report(rocescope, path)
        evs = events(rocescope, path)
        for e in evs:
            if "nak" in e["verdicts"]:
                c.check(e.get("nak_code") in rep["naks"],
                        f"{name}: frame {e['frame']}: nak_code {e.get('nak_code')!r} is not a key "
                        "of the report's naks")
            if "malformed" in e["verdicts"]:
                reason = e.get("malformed")
                c.check(rep["capture"]["malformed_by_reason"].get(reason, 0) > 0,
                        f"{name}: frame {e['frame']}: malformed reason {reason!r} is not one the "
                        "report counts")
    nak = [e for e in events(rocescope, os.path.join(captures, "nak_codes.pcap"))
           if e.get("nak_code") == "reserved_code"]
    c.check(len(nak) == 1, "nak_codes: no NAK named reserved_code (NAK code 5)")


SINGULAR = {one for one, _ in NOUNS}
PHRASES = re.compile(r"(?<![\w.])(\d+) (%s)\b" % "|".join(
    re.escape(p) for p in sorted((w for pair in NOUNS for w in pair), key=len, reverse=True)))


def bad_numbers(text):
    """'N noun' phrases whose number and noun disagree."""
    bad = []
    for m in PHRASES.finditer(text):  # the longest phrase at each number
        if (int(m.group(1)) == 1) != (m.group(2) in SINGULAR):
            bad.append(m.group(0))
    for m in re.finditer(r"(?<![\w.])1 ([A-Za-z][\w-]*s)\b", text):
        if m.group(1) not in UNITS and m.group(1) not in (p for _, p in NOUNS):
            bad.append(m.group(0))  # a plural noun not in the table above
    return sorted(set(bad))


def summaries(rocescope, paths):
    for path in paths:
        rc, out, err = run(rocescope, path)
        yield os.path.basename(path), out
    for path in paths:
        if os.path.basename(path) == "ecn_cnp.pcap":
            rc, out, err = run(rocescope, "--max-flows", "4", path)
            yield "ecn_cnp.pcap --max-flows 4", out


def test_wording(c, rocescope, captures, real):
    paths = capture_files(captures) + capture_files(real)
    for name, text in summaries(rocescope, paths):
        c.check(text.startswith("rocescope report:"), f"{name}: no summary")
        bad = bad_numbers(text)
        c.check(not bad, f"{name}: numbers and nouns disagree: {bad}")
    rc, text, err = run(rocescope, os.path.join(captures, "ecn_cnp.pcap"))
    c.check("1 packet, 1 CNP carried, unexplained" in text,
            "ecn_cnp: the flow that carried the unexplained CNP 24 does not say so")
    c.check("1 packets" not in text and "1 CNPs" not in text, "ecn_cnp: '1 packets' or '1 CNPs'")
    rc, text, err = run(rocescope, os.path.join(captures, "psn_reuse.pcap"))
    c.check("1 request reuses a PSN of an earlier READ" in text,
            "psn_reuse: the PSN reuse line does not read '1 request reuses a PSN of an earlier "
            "READ'")
    if os.path.isdir(real):
        folder = sorted(os.path.join(real, f) for f in os.listdir(real))
        rc, text, err = run(rocescope, *folder)
        c.check(rc == 1 and "PROVENANCE.md" in err, f"the real folder: exit {rc}, {err.strip()}")
        c.check("stopped early" not in text and "not all of the input could be read" in text,
                "the real folder, one file not a capture: the summary says "
                f"{[l for l in text.splitlines() if 'INCOMPLETE' in l]}")
        c.check(not bad_numbers(text), f"the real folder: {bad_numbers(text)}")
    else:
        print("SKIP wording over the real folder: absent")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rocescope", required=True)
    ap.add_argument("--captures", required=True)
    ap.add_argument("--real", required=True)
    ap.add_argument("--editcap", required=True)
    ap.add_argument("--tshark", default=None)
    a = ap.parse_args()
    tshark = a.tshark or shutil.which("tshark")
    c = Checker()
    with tempfile.TemporaryDirectory(prefix="rocescope-consistency-") as work:
        for name, test in (("cnp_order", lambda: test_cnp_order(c, a.rocescope, a.captures)),
                           ("qp_reuse", lambda: test_qp_reuse(c, a.rocescope, a.captures, a.real)),
                           ("first_frames",
                            lambda: test_first_frames(c, a.rocescope, a.real, tshark, work)),
                           ("time_order", lambda: test_time_order(c, a.rocescope, a.captures,
                                                                  a.editcap, work)),
                           ("names", lambda: test_names(c, a.rocescope, a.captures)),
                           ("wording", lambda: test_wording(c, a.rocescope, a.captures, a.real))):
            try:
                test()
            except (RuntimeError, subprocess.SubprocessError, ValueError, KeyError) as e:
                c.check(False, f"{name}: {type(e).__name__}: {e}")
    print(f"{c.passed} checks passed, {len(c.failures)} failed")
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
