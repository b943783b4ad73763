#!/usr/bin/env python3
"""The live monitor's outputs at their limits, on live.py's set-up (a veth
pair in a network namespace, captures replayed by tcpreplay):

  rotation      --events -o PATH --rotate-size 1: every file holds at most
                1 MB plus one line (the size is checked after each line, not
                when the stream happens to be flushed), every line whole
  full disk     -w and --events -o on a 256 KiB tmpfs: exit 3 with the reason
                said once, and the files end on a whole record: the pcap reads
                to its end with no part of a record (and capinfos agrees, when
                installed), the events file ends with a newline and each of
                its lines is a JSON object
  interrupt     SIGINT while a flood of distinct queue pairs is replayed into
                --max-flows 4194304 --final-flows 1000: the final report lists the
                1000 worst flows and counts the others (limits.flows_unlisted), each
                diagnosis its 1000 worst subjects (the flows listed first) and
                counts the others (subjects_unlisted), the last interval line the worst
                10 subjects of each raised diagnosis; it comes, with its frames,
                well within the 10 s a service manager grants (a generous
                bound on a scaled-down table: the time is measured in
                BENCHMARKS.md; that an interval visits only its active flows
                is asserted by tests/unit/test_live_interval.c)

Needs root (namespaces, a tmpfs mount) and tcpreplay: otherwise it skips (77).
"""
import argparse
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import time

import live
from live import Fail, Monitor, netns, replay

SKIP = 77
EXIT_OUTPUT = 3
MB = 1000000
SIGINT_BOUND_S = 10.0
FINAL_FLOWS = 1000   # --final-flows of the interrupt: fewer than the flood's flows
LINE_SUBJECTS = 10   # subjects of a raised diagnosis in an interval line (live_json.c)


def bulk(rocegen, tmp, name, packets, qps, loss="0.01", ce="0.02"):
    path = os.path.join(tmp, name)
    if not os.path.exists(path):
        live.sh(rocegen, "bulk", "-o", path, "--packets", str(packets), "--qps", str(qps),
                "--loss", loss, "--ce", ce, "--snaplen", "128")
    return path


def event_lines(path):
    """The lines of an events file: each a JSON object, the file ending with a newline."""
    with open(path, "rb") as f:
        data = f.read()
    if data and not data.endswith(b"\n"):
        raise Fail("%s ends inside a line: %r" % (path, data[-80:]))
    lines = data.decode("utf-8").splitlines()
    for l in lines:
        if not isinstance(json.loads(l), dict):
            raise Fail("%s: not an object: %r" % (path, l[:80]))
    return lines


def rotation(tool, rocegen, tmp):
    """--rotate-size 1: no file past 1 MB plus one line."""
    traffic = bulk(rocegen, tmp, "events.pcap", 60000, 16)
    ev = os.path.join(tmp, "ev.jsonl")
    mon = Monitor(tool, tmp, ["--events", "-o", ev, "--rotate-size", "1", "--rotate-count", "50",
                              "-c", "60000"], name="rot")
    mon.ready()
    replay(traffic)
    rc = mon.wait()
    if rc != 0:
        raise Fail("exit %d: %s" % (rc, mon.stderr()))
    files = [ev] + [ev + ".%d" % i for i in range(1, 51) if os.path.exists(ev + ".%d" % i)]
    if len(files) < 3:
        raise Fail("%d files: the events did not pass 2 MB (%d bytes)" %
                   (len(files), sum(os.path.getsize(f) for f in files)))
    longest = max(len(l) + 1 for f in files for l in event_lines(f))
    for f in files:
        size = os.path.getsize(f)
        if size > MB + longest:
            raise Fail("%s: %d bytes, past 1 MB plus one line (%d bytes)" % (f, size, longest))
        if f != ev and size < MB:
            raise Fail("%s rotated at %d bytes, short of 1 MB" % (f, size))


def pcap_whole(path):
    """Frames of a classic pcap file that must end on a record boundary."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) == 0:
        return 0
    if len(data) < 24:
        raise Fail("%s: %d bytes, part of a file header" % (path, len(data)))
    off, n = 24, 0
    while off < len(data):
        if off + 16 > len(data):
            raise Fail("%s: part of a record header at %d" % (path, off))
        caplen = struct.unpack_from("<I", data, off + 8)[0]
        if off + 16 + caplen > len(data):
            raise Fail("%s: a record cut short at %d" % (path, off))
        off += 16 + caplen
        n += 1
    if shutil.which("capinfos"):
        p = subprocess.run(["capinfos", "-c", "-M", path], capture_output=True, text=True,
                           timeout=60)
        if p.returncode != 0 or "cut short" in p.stderr + p.stdout:
            raise Fail("capinfos %s: %s" % (path, (p.stderr + p.stdout).strip()))
    return n


def full_disk(tool, rocegen, tmp, what):
    """-w or --events -o on a 256 KiB tmpfs: whole records, the reason once."""
    small = os.path.join(tmp, "small-" + what)
    os.makedirs(small, exist_ok=True)
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k,mode=1777", "tmpfs", small],
                       capture_output=True, text=True)
    if p.returncode != 0:
        print("     (skipped: cannot mount a tmpfs: %s)" % p.stderr.strip())
        return
    try:
        traffic = bulk(rocegen, tmp, "full.pcap", 20000, 8, loss="0.02", ce="0.05")
        out = os.path.join(small, "out")
        args = ["-w", out, "--json"] if what == "pcap" else ["--events", "-o", out]
        mon = Monitor(tool, tmp, args + ["-c", "20000"], name="full-" + what)
        mon.ready()
        replay(traffic)
        rc = mon.wait()
        err = mon.stderr()
        if rc != EXIT_OUTPUT:
            raise Fail("exit %d (want %d): %s" % (rc, EXIT_OUTPUT, err))
        if err.count("No space left on device") != 1:
            raise Fail("the reason not said once: %r" % err)
        if "last whole" not in err:
            raise Fail("what was kept not said: %r" % err)
        if what == "pcap":
            if pcap_whole(out) < 100:
                raise Fail("fewer than 100 frames kept in 256 KiB")
        elif len(event_lines(out)) < 100:
            raise Fail("fewer than 100 events kept in 256 KiB")
    finally:
        subprocess.run(["umount", small], capture_output=True)


def interrupt_large_table(tool, rocegen, tmp):
    """SIGINT into --max-flows 4194304 during a flood of distinct QPs: the
    final report within the bound, with the frames analysed."""
    flood = os.path.join(tmp, "flood.pcap")
    live.sh(rocegen, "flood", "-o", flood, "--packets", "100000", "--qps", "10000",
            "--snaplen", "64")
    mon = Monitor(tool, tmp, ["--json", "--interval", "100ms", "--max-flows", "4194304",
                              "--final-flows", str(FINAL_FLOWS)], name="flood")
    mon.ready()
    rp = subprocess.Popen(netns("tcpreplay", "-q", "-i", live.REPLAY_IF, "--topspeed", flood),
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.5)
    start = time.monotonic()
    mon.p.send_signal(signal.SIGINT)
    rc = mon.wait(timeout=60)
    took = time.monotonic() - start
    rp.wait(timeout=60)
    if rc != 0:
        raise Fail("exit %d: %s" % (rc, mon.stderr()))
    lines, rep = live.final_report(mon)
    if took > SIGINT_BOUND_S:
        raise Fail("SIGINT to exit: %.1f s" % took)
    if rep["capture"]["packets"] == 0:
        raise Fail("no frames in the final report")
    # --final-flows: the worst listed, the others counted; the diagnoses whole
    lim, listed = rep["limits"], len(rep.get("flows", []))
    if listed != min(FINAL_FLOWS, lim["flows_created"]) or \
            listed + lim["flows_unlisted"] != lim["flows_created"]:
        raise Fail("--final-flows %d: %d flows listed, %d unlisted, %d created" %
                   (FINAL_FLOWS, listed, lim["flows_unlisted"], lim["flows_created"]))
    # each diagnosis lists its worst --final-flows subjects and counts the others
    whole = {(d["kind"], d["cause"]): len(d["subjects"]) + d["subjects_unlisted"]
             for d in rep["diagnoses"]}
    if any(len(d["subjects"]) > FINAL_FLOWS for d in rep["diagnoses"]):
        raise Fail("a diagnosis lists more than %d subjects" % FINAL_FLOWS)
    if lim["flows_created"] > FINAL_FLOWS and not any(n > FINAL_FLOWS for n in whole.values()):
        raise Fail("no diagnosis over the unlisted flows: %r" % whole)
    # the flows ranked first are those the first diagnosis of flows names
    flows = {(f["src"], f["dst"], f["dest_qp"]) for f in rep.get("flows", [])}
    for d in rep["diagnoses"]:
        named = [(s["subject"].get("src"), s["subject"].get("dst"), s["subject"].get("dest_qp"))
                 for s in d["subjects"]]
        if named and all(k[2] is not None for k in named):
            missing = [k for k in named if k not in flows]
            if missing:
                raise Fail("%s names %d flows the report does not list, e.g. %r" %
                           (d["kind"], len(missing), missing[0]))
            break
    # the last interval line lists a raised diagnosis' worst subjects, counts the rest
    for d in lines[-2].get("diagnoses", []):
        n = len(d["subjects"]) + d["subjects_unlisted"]
        if len(d["subjects"]) > LINE_SUBJECTS or n != whole.get((d["kind"], d["cause"])):
            raise Fail("final interval line: %s %d subjects + %d unlisted, the report %r" %
                       (d["kind"], len(d["subjects"]), d["subjects_unlisted"],
                        whole.get((d["kind"], d["cause"]))))
    print("     (SIGINT to exit %.2f s, %d frames, %d flows)" %
          (took, rep["capture"]["packets"], len(rep.get("flows", []))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rocescope", required=True)
    ap.add_argument("--rocegen", required=True)
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("skip: live tests need root (network namespaces)")
        return SKIP
    if shutil.which("tcpreplay") is None:
        print("skip: tcpreplay is not installed (tools/setup.sh installs it)")
        return SKIP
    tool, gen = a.rocescope, a.rocegen
    # in_namespace: a folder the monitor may write once it has given root up
    return live.in_namespace("rocescope-scale-", lambda tmp: [
        ("--events --rotate-size 1", lambda: rotation(tool, gen, tmp)),
        ("-w on a full disk", lambda: full_disk(tool, gen, tmp, "pcap")),
        ("--events -o on a full disk", lambda: full_disk(tool, gen, tmp, "events")),
        ("SIGINT with --max-flows 4194304", lambda: interrupt_large_table(tool, gen, tmp)),
    ])

if __name__ == "__main__":
    sys.exit(main())
