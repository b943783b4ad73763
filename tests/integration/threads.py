#!/usr/bin/env python3
"""-T N gives the results of one engine, whatever N.

`rocescope -T N` splits the frames of a capture among N engines by the
address pair of their packet and merges the verdicts and the reports
(analyzer/cli/threads.c); when the split could give another result (frames out
of time order, a bound of one engine reached) it analyses with one engine.
For every capture in captures/ (ctest: threads) or every real capture
(--real, ctest: threads_real; tests/real_folder.py), and with the captures for
pcapng files and damaged files made as readers.py makes them, a bulk capture with losses,
go-back-N, CE marks and CNPs over many QPs, several files in one run, the text
summary, the JSON report and the events with -T 2, 3 and 4 must equal those of
-T 1, byte for byte, with the same exit status and messages (of the scenario
and made files, -T 3 only: same_results.py holds their -T 2 and -T 4 to the
same reference; with --sample, the sanitizer build, -T 2 only). Every frame
must reach exactly one part, its own, in order: each part reading the files
itself (the default), or one reader handing them on with rings of every size
(down to one frame: the reader waits for a full ring), in a thread of its own
or the first part's, with the own readers or libpcap's. The split must
actually be used where it can be (ROCESCOPE_THREADS_TRACE says which way a run
went), and not used for frames out of time order, more flows than --max-flows
or the HTML report (--html: its series takes every frame in order; the page
must equal that of -T 1).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import capfiles as cf
import readers

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from real_folder import captures_in, real_folder  # noqa: E402

THREADS = (2, 3, 4)


def run(tool, args, trace=False, more_env=None):
    env = dict(os.environ)
    for k in ("ROCESCOPE_READER", "ROCESCOPE_THREADS_TRACE", "ROCESCOPE_THREADS_READER",
              "ROCESCOPE_THREADS_RING"):
        env.pop(k, None)
    if trace:
        env["ROCESCOPE_THREADS_TRACE"] = "1"
    env.update(more_env or {})
    p = subprocess.run([tool, *args], capture_output=True, env=env, timeout=600,
                       stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def way(tool, args):
    """How a -T run went: 'split' or 'one engine: WHY'."""
    err = run(tool, args, trace=True)[2]
    lines = [l for l in err.splitlines() if l.startswith("rocescope: -T ")]
    return lines[0].split(": ", 2)[2] if lines else "no trace"


def compare_runs(tool, label, args, failures, runs, threads=None):
    """-T 2, 3 and 4 (or threads) against -T 1 on args; runs[0] counts the runs."""
    want = run(tool, ["-T", "1", *args])
    for n in threads or THREADS:
        got = run(tool, ["-T", str(n), *args])
        runs[0] += 1
        if got != want:
            failures.append(f"{label} -T {n}: differs from -T 1 (exit {got[0]} vs {want[0]}; "
                            f"stderr {got[2].strip()[:200]!r} vs {want[2].strip()[:200]!r})")


def compare_all(tool, files):
    """Every file's summary, JSON and events with -T 2, 3, 4 against -T 1."""
    failures, runs = [], [0]
    for path in files:
        for mode in ([], ["--json"], ["--events"]):
            compare_runs(tool, f"{os.path.basename(path)} {' '.join(mode) or 'text'}",
                         [*mode, path], failures, runs)
    for f in failures:
        print("FAIL:", f)
    print(f"{runs[0]} runs of {len(files)} files compared with -T 1, {len(failures)} failures")
    return 1 if failures else 0


def request_log_wrap(captures, tmp):
    """dcqcn.pcap with 70 000 requests of another QP of C2's address pair
    (PSNs counting up, so --no-icrc) at the time of the frame before C1's
    first CNP: the ring of recent requests of their class (8192) no longer
    reaches C1's requests before that CNP (dcqcn_untracked). The rings are
    kept by class of address pair and a part takes whole classes, so the
    split loses exactly the requests one engine loses."""
    fr = cf.frames_of(os.path.join(captures, "dcqcn.pcap"))
    c2 = next(d for _, d in fr if d[26:30] == bytes([10, 0, 5, 1]) and d[42] == 0x04)
    more = []
    for i in range(70000):
        d = bytearray(c2)
        d[47:50] = (0x999).to_bytes(3, "big")  # BTH destination QP
        d[51:54] = i.to_bytes(3, "big")        # BTH PSN
        more.append((fr[63][0], bytes(d)))
    path = os.path.join(tmp, "request_log_wrap.pcap")
    with open(path, "wb") as f:
        f.write(cf.pcap_at(fr[:64] + more + fr[64:]))
    return path


# the scenario captures named below (kept in a sample)
NAMED = ("ecn_cnp.pcap", "cm_reuse.pcap", "nak_codes.pcap", "pfc.pcap", "clean_rc.pcapng",
         "dcqcn.pcap", "loss_sender.pcap")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rocescope", required=True)
    ap.add_argument("--rocegen", required=True)
    ap.add_argument("--captures", help="the scenario captures (and files made from them)")
    ap.add_argument("--real", help="the real captures instead (threads_real)")
    ap.add_argument("--sample", type=int, default=0,
                    help="only N of the scenario captures, spread evenly, and -T 2 only "
                         "(the sanitizer build)")
    a = ap.parse_args()
    tool = a.rocescope
    tmp = tempfile.mkdtemp(prefix="rocescope-threads-")
    if a.sample:
        # the sanitizer build: -T 2 only; 3 and 4 parts run the same code as 2
        # (more parts of the same split), which the normal build compares
        global THREADS
        THREADS = (2,)
    if a.real:
        return compare_all(tool, captures_in(real_folder(a.real)))
    files = cf.sample(captures_in(a.captures, (".pcap", ".pcapng")), a.sample, NAMED)
    frames = cf.frames_of(os.path.join(a.captures, "loss_receiver.pcap"))
    files += (readers.damaged(frames, tmp) + readers.pcapng_variants(frames, tmp) +
              readers.ng_damaged(frames, tmp))
    # 43 381 and 173 000 requests: the split either way (the diagnoses'
    # recent requests are kept by class of address pair, which a part takes whole)
    bulk_small = os.path.join(tmp, "bulk_small.pcap")
    bulk = os.path.join(tmp, "bulk.pcap")
    for path, packets in ((bulk_small, "50000"), (bulk, "200000")):
        subprocess.run([a.rocegen, "bulk", "-o", path, "--packets", packets, "--qps", "64",
                        "--seed", "7", "--snaplen", "128"], check=True, stdout=subprocess.DEVNULL)
        files.append(path)
    failures, runs, split_used = [], [0], []

    def compare(label, args, threads=None):
        compare_runs(tool, label, args, failures, runs, threads)

    # same_results holds -T 2 and -T 4 of the scenario captures and the made
    # files to one reference (libpcap, -T 1) in every output, the sample of
    # them in the sanitizer build: here -T 3 of those (an odd number of parts),
    # and every count on the bulk captures, which it does not read
    in_same_results = (3,) if not a.sample else None
    for path in files:
        threads = None if path in (bulk_small, bulk) else in_same_results
        for mode in ([], ["--json"], ["--events"]):
            compare(f"{os.path.basename(path)} {' '.join(mode) or 'text'}", [*mode, path],
                    threads)
        if way(tool, ["-T", "2", "--json", path]) == "split":
            split_used.append(os.path.basename(path))

    # several files in one run, one of them damaged: the problem is printed
    # where a plain run prints it
    group = [os.path.join(a.captures, "ecn_cnp.pcap"), os.path.join(tmp, "record_cut.pcap"),
             os.path.join(a.captures, "loss_sender.pcap"), os.path.join(tmp, "missing.pcap")]
    for mode in ("--json", "--events"):
        compare(f"several files {mode}", [mode, *group])

    # where the split must be used, and where it must not
    for name in ("bulk_small.pcap", "ecn_cnp.pcap", "cm_reuse.pcap", "nak_codes.pcap",
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
            # a pause and the flows it stalls are in different address pairs (pause_victim)
            ("PFC pauses", [os.path.join(a.captures, "pfc.pcap")], "one engine: PFC pauses"),
            # an incast's senders are in different address pairs (incast)
            ("incast", [os.path.join(a.captures, "incast.pcap")],
             "one engine: incast: a receiver's senders in several parts"),
            ("--incast-senders 9: no receiver reaches it", ["--incast-senders", "9",
                                                            os.path.join(a.captures, "incast.pcap")],
             "split"),
            ("bulk_small", [bulk_small], "split"),
            ("more requests than a ring of recent requests keeps", [bulk], "split"),
            ("ring of recent requests wrapped before a CNP",
             ["--no-icrc", request_log_wrap(a.captures, tmp)], "split")):
        got = way(tool, ["-T", "2", "--json", *args])
        if not got.startswith(expect):
            failures.append(f"{label}: -T 2 went '{got}', expected '{expect}'")
        compare(label, ["--json", *args])
        compare(label, ["--events", *args])
    # a split doomed early (roce_split_doomed: a PFC pause, frames out of
    # time order) stops at once instead of analysing the whole input and
    # then again with one engine: the slowest part read a few batches of
    # the 200 000 frames behind the pause, the results are one engine's
    pause = cf.frames_of(os.path.join(a.captures, "pfc.pcap"))
    later = [(ts + pause[-1][0] + 10**9, data) for ts, data in cf.frames_of(bulk)]
    # and, seen from the parts' counts while they run (roce_split_between),
    # more verdicts waiting at once in one engine than it keeps: a NAK that
    # no resend answers (loss_sender.pcap cut after its NAK) holds every
    # verdict after it, 150 000 CE-marked requests of other pairs
    nak_path = os.path.join(a.captures, "loss_sender.pcap")
    nak = next(json.loads(ln)["frame"] for ln in run(tool, ["--events", nak_path])[1].splitlines()
               if "nak" in json.loads(ln)["verdicts"])
    held = cf.frames_of(nak_path)[:nak]
    marked = os.path.join(tmp, "marked.pcap")
    subprocess.run([a.rocegen, "bulk", "-o", marked, "--packets", "150000", "--qps", "64",
                    "--ce", "1.0", "--seed", "7", "--snaplen", "128"], check=True,
                   stdout=subprocess.DEVNULL)
    marked = cf.frames_of(marked)
    marked = [(ts - marked[0][0] + held[-1][0] + 1000, data) for ts, data in marked]
    for label, frames_in, expect in (
            ("a PFC pause", pause + later, "one engine: PFC pauses"),
            ("frames out of time order",
             later[:999] + later[1000:1001] + later[999:1000] + later[1001:],
             "one engine: frames out of time order"),
            ("a NAK that holds 65 536 verdicts", held + marked,
             "one engine: open verdicts past their bound")):
        path = os.path.join(tmp, "doomed.pcap")
        with open(path, "wb") as f:
            f.write(cf.pcap_at(frames_in))
        # -T 8 on the NAK's: a part that takes no frame at all (it has no
        # verdict to count, and shows where it read, not its latest frame)
        for n in (2, 3, 8) if "NAK" in label else (2, 3):
            code, out, err = run(tool, ["-T", str(n), "--json", path], True)
            own = [int(ln.split(" of ")[1].split(": ")[1]) for ln in err.splitlines()
                   if ln.startswith("rocescope: walk: part ")]
            if n == 8 and 0 not in own:
                failures.append(f"doomed early, {label}, -T 8: every part took frames ({own}): "
                                "the case of a part without any is not made")
            # the frames read: by the reader, or by each part reading the
            # files itself (one with few frames may read ahead to the end:
            # the slowest, which the others wait for, is the one to stop)
            walked = sorted(int(ln.split(" of ")[2].split()[0]) for ln in err.splitlines()
                            if ln.startswith("rocescope: walk: part "))
            if f"rocescope: -T {n}: {expect}" not in err:
                failures.append(f"doomed early, {label}, -T {n}: expected '{expect}': {err[:300]}")
            # within a few batches; the NAK's once the counts reach 65 536
            # (after 65 536 frames and the parts' lag)
            most = 20000 if "NAK" not in label else 100000
            if n == 8:  # eight threads on two CPUs lag further behind each other
                most = len(frames_in) * 9 // 10
            if not walked or walked[0] > most:
                failures.append(f"doomed early, {label}, -T {n}: the parts read {walked} of "
                                f"{len(frames_in)} frames (at most {most} expected)")
            if (code, out) != run(tool, ["-T", "1", "--json", path])[:2]:
                failures.append(f"doomed early, {label}, -T {n}: differs from -T 1")

    # the wrap is real: C1's first CNPs are not evaluated, with one engine or two
    wrapped = ["--no-icrc", "--json", os.path.join(tmp, "request_log_wrap.pcap")]
    for n in ("1", "2"):
        untracked = json.loads(run(tool, ["-T", n, *wrapped])[1])["limits"]["dcqcn_untracked"]
        if untracked < 1:
            failures.append(f"ring of recent requests wrapped, -T {n}: dcqcn_untracked {untracked}")

    # a file written to while the parts read it (each reads it itself): parts
    # that read different frames must not be merged ("the input changed
    # while the parts read it": one engine reads it, once). Whether they do
    # depends on timing; the invariant is checked on every run, three runs.
    with open(bulk, "rb") as f:
        whole = f.read()
    growing = os.path.join(tmp, "growing.pcap")
    for attempt in range(3):
        with open(growing, "wb") as f:
            f.write(whole[:len(whole) // 8])

        def grow():
            with open(growing, "ab") as f:
                for at in range(len(whole) // 8, len(whole), 65536):
                    f.write(whole[at:at + 65536])
                    f.flush()
                    time.sleep(0.001)
        writer = threading.Thread(target=grow)
        writer.start()
        time.sleep(0.01)
        code, _, err = run(tool, ["-T", "2", "--json", growing], True)
        writer.join()
        totals = {int(ln.split(" of ")[2].split()[0]) for ln in err.splitlines()
                  if ln.startswith("rocescope: walk: part ")}
        if code not in (0, 1) or (len(totals) > 1 and "rocescope: -T 2: split" in err):
            failures.append(f"a file written while read, run {attempt + 1}: exit {code}, parts "
                            f"read {sorted(totals)} frames: {err[:300]}")

    # the walks of the frames (analyzer/capture/walk.h): each part reading
    # the files itself, or one reader handing each part its own frames. With
    # the trace each part checks every frame it is given against its class
    # and the frame before, and says how often the reader waited for it (its
    # ring full). Rings down to one batch of one frame, the reader apart or
    # in part 0's thread, the own readers or libpcap's, one file or several:
    # the results of -T 1, every frame in exactly one part, and the reader
    # waited for a full ring.
    # (the files of the group one after the other in time: frames out of
    # time order would stop the split early, roce_split_doomed)
    walk_group, last = [], 0
    for path in (os.path.join(a.captures, "ecn_cnp.pcap"), bulk_small,
                 os.path.join(a.captures, "loss_sender.pcap")):
        fr = cf.frames_of(path)
        shift = last + 10**9 - fr[0][0]
        walk_group.append(os.path.join(tmp, "walk-" + os.path.basename(path)))
        with open(walk_group[-1], "wb") as f:
            f.write(cf.pcap_at([(ts + shift, data) for ts, data in fr]))
        last = fr[-1][0] + shift
    apart = {"ROCESCOPE_THREADS_READER": "apart"}
    for label, more_env, args in (
            ("each part reading the files itself (the default)", {}, [bulk]),
            ("each part reading the files itself", {}, walk_group),
            ("one reader, default rings", apart, [bulk]),
            ("one reader, a ring of one frame", {**apart, "ROCESCOPE_THREADS_RING": "1,1"},
             [bulk_small]),
            ("rings of 2 batches of 3 frames, the reader in the first part",
             {"ROCESCOPE_THREADS_RING": "2,3", "ROCESCOPE_THREADS_READER": "first"}, walk_group),
            ("one reader, libpcap reading",
             {**apart, "ROCESCOPE_THREADS_RING": "3,5", "ROCESCOPE_READER": "libpcap"},
             walk_group)):
        want = run(tool, ["-T", "1", "--json", *args])
        for n in (2, 3):
            code, out, err = run(tool, ["-T", str(n), "--json", *args], True, more_env)
            parts = [ln.split(": ", 3)[3] for ln in err.splitlines()
                     if ln.startswith("rocescope: walk: part ")]
            err = "\n".join(ln for ln in err.splitlines() if not ln.startswith("rocescope: -T ")
                            and not ln.startswith("rocescope: walk: "))
            if (code, out) != want[:2] or err.strip() != want[2].strip():
                failures.append(f"walk, {label}, -T {n}: differs from -T 1")
            counts = [[int(w) for w in p.replace(",", "").split() if w.isdigit()] for p in parts]
            # frames, total, of another part, out of order, reader's waits, part's
            total = counts[0][1] if counts else -1
            if (len(counts) != n or sum(c[0] for c in counts) != total or
                    any(c[2] or c[3] for c in counts)):
                failures.append(f"walk, {label}, -T {n}: frames handed: {parts}")
            if "ROCESCOPE_THREADS_RING" in more_env and not any(c[4] >= 1 for c in counts):
                failures.append(f"walk, {label}, -T {n}: the reader never waited for a "
                                f"full ring: {parts}")

    # --html: the page's series takes every frame in order, so one engine
    # analyses; the page and the report beside it are those of -T 1
    for name in ("dcqcn.pcap", "ecn_cnp.pcap", "pfc.pcap", "bulk_small.pcap"):
        path = next(p for p in files if os.path.basename(p) == name)
        pages = {}
        for n in (1, *THREADS):
            page = os.path.join(tmp, f"page-{n}.html")
            got = run(tool, ["-T", str(n), "--json", "--html", page, path])
            with open(page, "rb") as f:
                pages[n] = (got, f.read())
            if n != 1 and pages[n] != pages[1]:
                failures.append(f"{name} --html -T {n}: page or report differs from -T 1")
        got = way(tool, ["-T", "2", "--html", os.path.join(tmp, "page.html"), path])
        if got != "one engine: the HTML report":
            failures.append(f"{name} --html: -T 2 went '{got}', expected one engine")

    for f in failures:
        print("FAIL:", f)
    print(f"{runs[0]} runs compared with -T 1 ({len(split_used)} of {len(files)} files split), "
          f"{len(failures)} failures")
    shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
