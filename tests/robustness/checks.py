"""Shared checks of the robustness tests: run the CLI bounded in time and
memory accounting, recognise sanitizer reports, and check that a JSON
report adds up and agrees with the --events output of the same capture.
"""
import collections
import json
import os
import subprocess
import tempfile
import time

POLL_S = 0.02
GNU_TIME = "/usr/bin/time"
SANITIZER_MARKS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:",
                   "UndefinedBehaviorSanitizer", "AddressSanitizer:")

# --events verdict name -> where the JSON report counts the same frames (the
# sum of several places: a tuple of paths)
EVENT_TOTALS = {
    "malformed": ("capture", "malformed_packets"),
    "cnp": (("capture", "cnp_packets"), ("ecn", "becn_packets")),  # BECN answers are CNPs too
    "bad_icrc": ("capture", "icrc", "bad"),
    "bad_vcrc": ("capture", "vcrc", "bad"),
    "gap": ("psn_gaps", "events"),
    "retransmission": ("retransmission", "packets"),
    "episode_start": ("retransmission", "episodes"),
    "rnr": ("naks", "rnr"),
    "psn_reuse": ("psn_reuse",),
    "read_response_gap": ("read_response_gaps", "events"),
    "ce": ("ecn", "ce_marked"),
    "ce_answered": ("ecn", "ce_answered"),
    "ce_unanswered": ("ecn", "ce_unanswered"),
    "cnp_matched": ("ecn", "cnps_matched"),
    "cnp_unexplained": ("ecn", "cnps_unexplained"),
}


class Run:
    """One finished CLI run: status, output, wall time, peak RSS (KiB)."""

    def __init__(self, status, stdout, stderr, seconds, maxrss_kib):
        self.status, self.stdout, self.stderr = status, stdout, stderr
        self.seconds, self.maxrss_kib = seconds, maxrss_kib


def run(argv, timeout):
    """Run argv to the end; returns a Run (no peak RSS), or raises
    subprocess.TimeoutExpired (the process is killed)."""
    t0 = time.monotonic()
    p = subprocess.run(argv, capture_output=True, timeout=timeout, check=False)
    return Run(p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace"),
               time.monotonic() - t0, None)


def run_measured(argv, timeout, stdout_path):
    """Run argv with stdout to the file stdout_path (read back as text) and
    stderr to a temporary file; returns a Run with the peak RSS of the
    program, or raises subprocess.TimeoutExpired (killed).

    The peak comes from GNU time (%M) when installed: wait4() of our own child
    would not do, since Linux starts a child's peak at its parent's (here
    Python's, about 14 MiB) when it forks. Without GNU time, wait4() it is,
    and the figure includes that."""
    t0 = time.monotonic()
    with open(stdout_path, "wb") as out, tempfile.TemporaryFile() as err, \
            tempfile.NamedTemporaryFile(mode="r") as rss:
        prefix = [GNU_TIME, "-f", "%M", "-o", rss.name] if os.access(GNU_TIME, os.X_OK) else []
        p = subprocess.Popen(prefix + list(argv), stdout=out, stderr=err)
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid == p.pid:
                break
            if time.monotonic() - t0 > timeout:
                p.kill()
                os.wait4(p.pid, 0)
                raise subprocess.TimeoutExpired(argv, timeout)
            time.sleep(POLL_S)
        p.returncode = os.waitstatus_to_exitcode(status)
        maxrss = ru.ru_maxrss
        if prefix:
            lines = rss.read().split()
            maxrss = int(lines[-1]) if lines and lines[-1].isdigit() else maxrss
            if "signal" in lines:  # "Command terminated by signal N"
                p.returncode = -int(lines[lines.index("signal") + 1])
        err.seek(0)
        err_text = err.read().decode(errors="replace")
    with open(stdout_path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    return Run(p.returncode, text, err_text, time.monotonic() - t0, maxrss)


def sanitizer_report(stderr):
    """The sanitizer report in stderr, or None."""
    for mark in SANITIZER_MARKS:
        if mark in stderr:
            return stderr.strip()[:3000]
    return None


def report_problems(r, status):
    """Problems of a parsed JSON report written with exit status `status`."""
    problems = []
    c = r["capture"]
    if c["packets"] != c["roce_packets"] + c["malformed_packets"] + c["non_roce_packets"]:
        problems.append("packets != roce + malformed + non_roce")
    if c["roce_packets"] != c["rocev1_packets"] + c["rocev2_packets"] + c["ib_packets"]:
        problems.append("roce != v1 + v2 + InfiniBand")
    ib_other = c["ib_non_transport"]["raw"] + c["ib_non_transport"]["ipv6"]
    if ib_other > c["non_roce_packets"]:
        problems.append("InfiniBand raw + IPv6 > non_roce")
    if sum(c["vcrc"].values()) > c["ib_packets"] + ib_other + c["malformed_packets"]:
        problems.append("VCRCs counted beyond InfiniBand packets")
    icrc = c["icrc"]
    if c["roce_packets"] != icrc["good"] + icrc["bad"] + icrc["unchecked"]:
        problems.append("roce != icrc good + bad + unchecked")
    if c["complete"] != (status == 0):
        problems.append(f"complete is {c['complete']} with exit status {status}")
    lim = r["limits"]
    if lim["flows_active"] > r["options"]["max_flows"] or lim["peak_flows"] > r["options"]["max_flows"]:
        problems.append("more flows than max_flows")
    retired = lim.get("flows_retired", 0)
    if lim["flows_created"] - lim["flows_evicted"] - retired != lim["flows_active"]:
        problems.append("flows created - evicted - retired != active")
    # analyzer/report/REPORT.md: `flows` lists the tracked flows that carried packets
    if len(r["flows"]) > lim["flows_active"] or any(f["packets"] < 1 for f in r["flows"]):
        problems.append("flows listed beyond flows_active, or without packets")
    if sum(f["packets"] for f in r["flows"]) > c["packets"]:
        problems.append("flows carry more packets than the capture")
    return problems


def events_problems(events_text, r):
    """Where the --events lines disagree with the JSON report r."""
    problems, seen, last = [], collections.Counter(), 0
    for line in events_text.splitlines():
        ev = json.loads(line)
        if ev["frame"] <= last or ev["frame"] > r["capture"]["packets"]:
            problems.append(f"event frame {ev['frame']} out of order or beyond the capture")
        last = ev["frame"]
        seen.update(ev["verdicts"])
    for verdict, paths in EVENT_TOTALS.items():
        want = 0
        for path in paths if isinstance(paths[0], tuple) else (paths,):
            v = r
            for k in path:
                v = v[k]
            want += v
        if seen[verdict] != want:
            problems.append(f"{seen[verdict]} '{verdict}' events, report says {want}")
    return problems


def finish(failures, summary):
    """Print every failure and the summary line; the exit status."""
    for f in failures:
        print("FAIL:", f)
    print(f"{summary}: {len(failures)} failures")
    return 1 if failures else 0
