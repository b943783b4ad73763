#!/usr/bin/env python3
"""Live monitor tests: `rocescope -i IFACE` on a veth pair inside a network
namespace made for the run, with captures replayed into the peer by
tcpreplay.

  --part scenarios  each scenario capture replayed live: the final report
                    equals the offline report of the same file (every count
                    that comes from the headers; times and what depends on
                    them excepted) whenever pcap_stats shows no drops; the
                    diagnoses equal those of the frames saved with -w
                    analysed offline, and for the scenarios whose diagnoses
                    do not depend on times those of the file replayed; the
                    interval lines add up to the totals and raise every
                    diagnosis by its count; the Prometheus file parses,
                    agrees and passes `promtool check metrics`. ERSPAN
                    II/III, VXLAN, GRE, PFC, VLAN, and the scenarios of the
                    diagnoses.
  --part monitor    no-traffic intervals and --duration, interface errors,
                    -c, SIGINT and SIGTERM mid-run (JSON and the terminal
                    view), a vanished interface, -w with -C/-W rotation
                    (the saved files analysed offline give the live report),
                    -Z (files written as the user), idle flows retired,
                    --html with --json and beside live --events (the final
                    page holds the offline --events frames, and the live ones).

Needs root, `ip netns` and tcpreplay: otherwise it skips (exit 77). The
capture is known to be active once the monitor has written its first
Prometheus file (it does so right after opening the capture), so no fixed
start-up sleep is needed.
"""
import argparse
import json
import os
import pty
import pwd
import re
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time

SKIP = 77
NS = "rslive%d" % os.getpid()
CAPTURE_IF, REPLAY_IF = "vb", "va"
SAFETY_DURATION = "20s"      # every monitor run stops by itself at the latest then
READY_TIMEOUT = 10.0
# keys whose values depend on arrival times, not on the headers
TIMED = {"first_time", "last_time", "duration_s", "ack_latency_us", "cnp_latency_us",
         "nak_to_resend_us", "duration_us", "paused_us", "storm_windows", "ce_answered",
         "ce_unanswered", "cnps_matched", "cnps_unexplained", "cnps_carried_unexplained",
         "by_trigger",
         "episodes_by_trigger", "trigger", "nak_frame", "options", "file", "files", "live",
         "complete", "error", "nak_generation_us", "dcqcn", "evidence", "storm_frames",
         "diagnoses", "timestamp_steps", "repeated_timestamps", "time_backwards",
         "responses_early", "reorder_max_us",
         # pauses are timed at the link speed, CNP pacing by the gaps between CNPs
         "pause_stalls", "pause_stall_us", "hol_stalls", "hol_stall_us", "cnp_gaps",
         "cnp_min_gap_us", "cnp_pair_gaps", "cnp_pair_min_gap_us", "victims_untracked",
         "pause_episodes", "pause_share_pct", "cnp_dst_gaps", "cnp_dst_min_gap_us"}
GAUGES = {"flows_active", "peak_flows", "connections"}
PROM_SUBJECTS = 100  # rocescope_diagnosis samples per finding (prometheus.c)
SCENARIOS = ("loss_receiver", "ecn_cnp", "nak_codes", "erspan2", "erspan3", "vxlan", "gre",
             "pfc", "ipv6_vlan", "capture_loss", "nak_generation", "dcqcn", "clean_fabric",
             "pfc_hosts", "ecmp", "icrc_rewritten", "ce_unanswered")
# whose diagnoses come from the headers alone: the live ones equal the file's
HEADER_DIAGNOSES = ("loss_receiver", "nak_codes", "capture_loss", "nak_generation", "pfc_hosts",
                    "ecmp", "icrc_rewritten")


class Fail(Exception):
    pass


def sh(*cmd, check=True):
    return subprocess.run(cmd, capture_output=True, text=True, check=check, timeout=60)


def netns(*cmd):
    return ["ip", "netns", "exec", NS, *cmd]


def setup_netns():
    sh("ip", "netns", "add", NS)
    add_veth()


def add_veth():
    sh("ip", "-n", NS, "link", "add", REPLAY_IF, "type", "veth", "peer", "name", CAPTURE_IF)
    for i in (REPLAY_IF, CAPTURE_IF):
        sh("ip", "-n", NS, "link", "set", i, "mtu", "9000")
        sh("ip", "netns", "exec", NS, "sysctl", "-qw", "net.ipv6.conf.%s.disable_ipv6=1" % i,
           check=False)


def links(up):
    for i in (REPLAY_IF, CAPTURE_IF):
        sh("ip", "-n", NS, "link", "set", i, "up" if up else "down")


def pcap_frames(path):
    """Frames in a classic pcap file."""
    with open(path, "rb") as f:
        data = f.read()
    off, n = 24, 0
    while off + 16 <= len(data):
        caplen = struct.unpack_from("<I", data, off + 8)[0]
        off += 16 + caplen
        n += 1
    return n


class Monitor:
    """One rocescope -i run in the namespace, stdout to a file (or a pty)."""

    def __init__(self, tool, tmp, args, tty=False, name="mon"):
        self.prom = os.path.join(tmp, name + ".prom")
        self.out_path = os.path.join(tmp, name + ".out")
        self.err_path = os.path.join(tmp, name + ".err")
        cmd = netns(tool, "-i", CAPTURE_IF, "--prometheus-file", self.prom, *args)
        if "--duration" not in args:
            cmd += ["--duration", SAFETY_DURATION]
        self.master = None
        self.out = open(self.out_path, "wb")
        err = open(self.err_path, "wb")
        if tty:
            self.master, slave = pty.openpty()
            self.p = subprocess.Popen(cmd, stdout=slave, stderr=err)
            os.close(slave)
        else:
            self.p = subprocess.Popen(cmd, stdout=self.out, stderr=err)
        err.close()

    def ready(self):
        """Wait until the capture is open (the first Prometheus file is there)."""
        end = time.monotonic() + READY_TIMEOUT
        while not os.path.exists(self.prom):
            if self.p.poll() is not None or time.monotonic() > end:
                raise Fail("monitor did not start: " + self.stderr())
            time.sleep(0.02)

    def wait(self, timeout=30):
        if self.master is not None:
            end = time.monotonic() + timeout
            while True:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:
                    break  # the pty closed: the monitor is gone
                if not chunk or time.monotonic() > end:
                    break
                self.out.write(chunk)
            os.close(self.master)
        rc = self.p.wait(timeout=timeout)
        self.out.close()
        return rc

    def stdout(self):
        with open(self.out_path, encoding="utf-8", errors="replace") as f:
            return f.read()

    def stderr(self):
        with open(self.err_path, encoding="utf-8", errors="replace") as f:
            return f.read()

    def json_lines(self):
        return [json.loads(l) for l in self.stdout().splitlines() if l.strip()]


def replay(path, pps=None):
    rate = ["--pps=%d" % pps] if pps else ["--topspeed"]
    p = subprocess.run(netns("tcpreplay", "-q", "-i", REPLAY_IF, *rate, path),
                       capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        raise Fail("tcpreplay %s: %s" % (path, p.stderr.strip()))


def offline(tool, *args):
    p = subprocess.run([tool, "--json", *args], capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        raise Fail("offline %s: %s" % (args, p.stderr.strip()))
    return json.loads(p.stdout)


def header_counts(x):
    """The report without what depends on arrival times."""
    if isinstance(x, dict):
        return {k: header_counts(v) for k, v in x.items() if k not in TIMED}
    if isinstance(x, list):
        return [header_counts(v) for v in x]
    return x


def diff(a, b, path=""):
    """First difference between two JSON values, or None."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return "%s/%s only on one side" % (path, k)
            d = diff(a[k], b[k], path + "/" + k)
            if d:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return "%s: %d vs %d entries" % (path, len(a), len(b))
        for i, (u, v) in enumerate(zip(a, b)):
            d = diff(u, v, "%s/%d" % (path, i))
            if d:
                return d
        return None
    return None if a == b else "%s: live %r, offline %r" % (path, a, b)


def add_up(intervals, path=""):
    """Sum the interval objects key by key (gauges and labels left out)."""
    first = intervals[0]
    if isinstance(first, dict):
        return {k: add_up([i[k] for i in intervals], path + "/" + k)
                for k in first if k not in GAUGES and k != "priority"}
    if isinstance(first, list):
        return [add_up([i[n] for i in intervals], path) for n in range(len(first))]
    return sum(intervals)


def check_sums(lines, report):
    """The interval lines add up to the running totals and to the report."""
    ivs = [l for l in lines if l.get("type") == "interval"]
    if not ivs or not ivs[-1]["final"] or any(l["final"] for l in ivs[:-1]):
        raise Fail("interval lines: the last one (and only it) must be final")
    if [l["seq"] for l in ivs] != list(range(1, len(ivs) + 1)):
        raise Fail("interval seq numbers are not 1..n")
    total = add_up([l["interval"] for l in ivs])
    running = ivs[-1]["totals"]
    close = lambda a, b: abs(a - b) < 1e-3 if isinstance(a, float) or isinstance(b, float) else a == b
    def walk(s, r, path):
        if isinstance(s, dict):
            for k in s:
                walk(s[k], r[k], path + "/" + k)
        elif isinstance(s, list):
            for n, (u, v) in enumerate(zip(s, r)):
                walk(u, v, "%s/%d" % (path, n))
        elif not close(s, r):
            raise Fail("intervals add up to %r, totals say %r at %s" % (s, r, path))
    walk(total, running, "")
    for k in ("packets", "roce_packets", "bytes", "cnp_packets"):
        if running[k] != report["capture"][k]:
            raise Fail("totals.%s %d != report %d" % (k, running[k], report["capture"][k]))
    if running["naks"] != report["naks"] or running["pfc"]["pfc_frames"] != report["pfc"]["pfc_frames"]:
        raise Fail("running totals differ from the final report")
    if ivs[-1]["capture"]["received"] < running["packets"]:
        raise Fail("pcap_stats received fewer than the frames analysed")


PROM_SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$')
PROM_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)')


def parse_prometheus(text):
    """Parse the text exposition format; returns {(name, frozenset(labels)): value}."""
    types, helps, samples = {}, set(), {}
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("# HELP "):
            helps.add(line.split()[2])
        elif line.startswith("# TYPE "):
            _, _, name, typ = line.split(" ", 3)
            if typ not in ("counter", "gauge", "histogram") or name in types:
                raise Fail("prometheus line %d: bad or repeated TYPE" % n)
            types[name] = typ
        elif line.startswith("#") or not line:
            raise Fail("prometheus line %d: unexpected %r" % (n, line))
        else:
            m = PROM_SAMPLE.match(line)
            if not m:
                raise Fail("prometheus line %d: not a sample: %r" % (n, line))
            name, labels = m.group(1), {}
            family = re.sub(r"_(bucket|sum|count)$", "", name)
            if types.get(family) == "histogram":
                name = family  # its samples: _bucket{le=...}, _sum, _count
            body = m.group(3) or ""
            pos = 0
            while pos < len(body):
                lm = PROM_LABEL.match(body, pos)
                if not lm:
                    raise Fail("prometheus line %d: bad labels %r" % (n, body))
                labels[lm.group(1)] = lm.group(2)
                pos = lm.end()
            if name not in types or name not in helps:
                raise Fail("prometheus line %d: %s has no TYPE/HELP before it" % (n, name))
            if types[name] == "counter" and not name.endswith("_total"):
                raise Fail("prometheus: counter %s does not end in _total" % name)
            if not name.startswith("rocescope_") or labels.get("interface") != CAPTURE_IF:
                raise Fail("prometheus line %d: name prefix or interface label" % n)
            samples[(m.group(1), frozenset(labels.items()))] = float(m.group(4))
    return samples


REPORT_MD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "analyzer",
                         "report", "REPORT.md")


def documented_metrics():
    """The metrics of REPORT.md's Prometheus table: (full names, [(first name of a row,
    shorthand suffix)] for rows that write `rocescope_x_a`, `_b`, ...)."""
    with open(REPORT_MD, encoding="utf-8") as f:
        text = f.read()
    section = text[text.index("\n## Prometheus"):]
    section = section[:section.index("**Renamed**")]  # the old names after it are gone
    full, short = set(), []
    for row in re.findall(r"^\| (`rocescope_[^|]*)\|", section, re.M):
        names = re.findall(r"`(_?[a-z0-9_]+)`", row)
        full.update(n for n in names if n.startswith("rocescope_"))
        short += [(names[0], n) for n in names if n.startswith("_")]
    return full, short


HISTOGRAM_SUFFIXES = ("_bucket", "_count", "_sum")


def check_metric_names(samples):
    """Every metric family of the file is in REPORT.md's table (a histogram's _bucket,
    _count and _sum series by its family's name), and every metric of the table is in the
    file (but the top_flow_* gauges, there only when flows had trouble, and
    rocescope_diagnosis and rocescope_diagnosis_subjects, only when a diagnosis is active)."""
    full, short = documented_metrics()
    written = set()
    for name, _ in samples:
        for suffix in HISTOGRAM_SUFFIXES:
            if name.endswith(suffix) and name[:-len(suffix)] in full:
                name = name[:-len(suffix)]
                break
        written.add(name)
    undocumented = {w for w in written if w not in full and not any(
        w.endswith(suffix) and first.startswith(w[:-len(suffix)]) for first, suffix in short)}
    missing = {n for n in full if not n.startswith("rocescope_top_flow_")
               and n not in ("rocescope_diagnosis", "rocescope_diagnosis_subjects")} - written
    if undocumented or missing:
        raise Fail("prometheus: metrics not in REPORT.md: %s; in REPORT.md, not written: %s"
                   % (sorted(undocumented), sorted(missing)))


def check_prometheus(path, report):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    s = parse_prometheus(text)
    if shutil.which("promtool"):  # Debian's prometheus package (tools/setup.sh installs it)
        p = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True,
                           text=True, timeout=30)
        if p.returncode != 0 or p.stdout.strip() or p.stderr.strip():
            raise Fail("promtool check metrics: %s%s" % (p.stdout, p.stderr))
    check_metric_names(s)
    def val(name, **labels):
        labels["interface"] = CAPTURE_IF
        return s[(name, frozenset(labels.items()))]

    def family_sum(name):
        return sum(v for (n, _), v in s.items() if n == name)
    c = report["capture"]
    expect = [(val("rocescope_packets_total"), c["packets"]),
              (family_sum("rocescope_roce_packets_total"), c["roce_packets"]),
              (val("rocescope_roce_packets_total", version="2"), c["rocev2_packets"]),
              (val("rocescope_wire_bytes_total"), c["bytes"]),
              (val("rocescope_icrc_packets_total", result="bad"), c["icrc"]["bad"]),
              (family_sum("rocescope_malformed_packets_total"), c["malformed_packets"]),
              (val("rocescope_naks_total", code="psn_sequence_error"),
               report["naks"]["psn_sequence_error"]),
              (val("rocescope_retransmitted_packets_total"), report["retransmission"]["packets"]),
              (val("rocescope_ce_marked_packets_total"), report["ecn"]["ce_marked"]),
              (family_sum("rocescope_cnp_packets_total"), c["cnp_packets"]),
              (val("rocescope_mac_control_frames_total", type="pfc"), report["pfc"]["pfc_frames"]),
              (val("rocescope_capture_dropped_packets_total", by="kernel"), c["live"]["dropped"]),
              (val("rocescope_capture_dropped_packets_total", by="analysis"),
               c["live"]["analysis_dropped"])]
    for p in report["pfc"]["priorities"]:
        expect.append((val("rocescope_pfc_priority_frames_total", priority=str(p["priority"]),
                           state="xoff"), p["xoff"]))
    # one gauge per subject of each diagnosis (its worst PROM_SUBJECTS), labelled with its
    # kind, severity and cause; and how many subjects each has
    gauges = {k: v for k, v in s.items() if k[0] == "rocescope_diagnosis"}
    n_subjects = sum(len(d["subjects"][:PROM_SUBJECTS]) for d in report["diagnoses"])
    if len(gauges) != n_subjects:
        raise Fail("prometheus: %d diagnosis gauges, report %d subjects in %d diagnoses" %
                   (len(gauges), n_subjects, len(report["diagnoses"])))
    alert = {"error": "critical", "warning": "warning", "note": "info"}
    for d in report["diagnoses"]:
        counts = sorted(v for k, v in gauges.items()
                        if ("kind", d["kind"]) in k[1] and ("cause", d["cause"]) in k[1]
                        and ("severity", alert[d["severity"]]) in k[1])
        if counts != sorted(sj["count"] for sj in d["subjects"][:PROM_SUBJECTS]):
            raise Fail("prometheus: gauges %s/%s %r, its subjects' counts %r" %
                       (d["kind"], d["cause"], counts, [sj["count"] for sj in d["subjects"]]))
        n = [v for k, v in s.items() if k[0] == "rocescope_diagnosis_subjects"
             and ("kind", d["kind"]) in k[1] and ("cause", d["cause"]) in k[1]]
        if n != [len(d["subjects"])]:
            raise Fail("prometheus: rocescope_diagnosis_subjects %s/%s %r, the report %d" %
                       (d["kind"], d["cause"], n, len(d["subjects"])))
    if val("rocescope_dcqcn_rate_ratio_count") != report["dcqcn"]["cnps_evaluated"] or \
            val("rocescope_nak_generation_seconds_bucket", le="+Inf") != \
            val("rocescope_nak_generation_seconds_count"):
        raise Fail("prometheus: the histograms' counts")
    for name, n in report["encapsulation"].items():
        expect.append((val("rocescope_encapsulated_frames_total", encapsulation=name), n))
    for got, want in expect:
        if got != want:
            raise Fail("prometheus value %r, report %r" % (got, want))


def check_raised(lines, report):
    """The intervals raise every diagnosis of the report (a kind and cause), by
    its count in all."""
    raised = {}
    for l in lines:
        if l.get("type") != "interval":
            continue
        for d in l["diagnoses"]:
            key = (d["kind"], d["cause"])
            raised[key] = raised.get(key, 0) + d["interval_count"]
    final = {(d["kind"], d["cause"]): d["count"]
             for d in report["diagnoses"]}
    if raised != final:
        raise Fail("diagnoses raised in the intervals %r, in the report %r" % (raised, final))


def final_report(mon):
    lines = mon.json_lines()
    if not lines or "tool" not in lines[-1]:
        raise Fail("no final report as the last line")
    return lines, lines[-1]


def scenario(tool, captures, tmp, name):
    path = os.path.join(captures, name + ".pcap")
    saved = os.path.join(tmp, name + ".saved.pcap")
    n = pcap_frames(path)
    mon = Monitor(tool, tmp, ["--json", "-s", "0", "-c", str(n), "-w", saved], name=name)
    mon.ready()
    replay(path)
    rc = mon.wait()
    if rc != 0:
        raise Fail("%s: exit %d: %s" % (name, rc, mon.stderr()))
    lines, live = final_report(mon)
    check_sums(lines, live)
    check_raised(lines, live)
    check_prometheus(mon.prom, live)
    stats = live["capture"]["live"]
    if stats["dropped"] or stats["if_dropped"] or stats["analysis_dropped"]:
        print("  %s: the capture dropped packets, report not compared" % name)
        return
    d = diff(header_counts(live), header_counts(offline(tool, path)))
    if d:
        raise Fail("%s: live and offline reports differ: %s" % (name, d))
    d = diff(live["diagnoses"], offline(tool, saved)["diagnoses"], "diagnoses")
    if d:
        raise Fail("%s: live diagnoses and those of the saved frames differ: %s" % (name, d))
    if name in HEADER_DIAGNOSES:
        d = diff(live["diagnoses"], offline(tool, path)["diagnoses"], "diagnoses")
        if d:
            raise Fail("%s: live diagnoses and the file's differ: %s" % (name, d))


def part_scenarios(tool, captures, tmp):
    links(True)
    for name in SCENARIOS:
        yield name, lambda name=name: scenario(tool, captures, tmp, name)


def expect_error(tool, args, status, text):
    p = subprocess.run(netns(tool, *args), capture_output=True, text=True, timeout=30)
    if p.returncode != status or text not in p.stderr:
        raise Fail("%s: exit %d, stderr %r (expected %d, %r)" % (args, p.returncode, p.stderr,
                                                                status, text))


def interface_errors(tool):
    links(False)
    expect_error(tool, ["-i", CAPTURE_IF, "--duration", "1s"], 1, "the interface is down")
    links(True)
    expect_error(tool, ["-i", "rsnothere0", "--duration", "1s"], 1, "no such interface")
    expect_error(tool, ["-i", CAPTURE_IF, "-f", "udp port (", "--duration", "1s"], 2, "bad filter")
    expect_error(tool, ["-i", CAPTURE_IF, "-Z", "no-such-user-rs"], 2, "-Z")


def idle_intervals(tool, tmp):
    """No traffic: intervals still come, --duration stops it."""
    mon = Monitor(tool, tmp, ["--json", "--interval", "200ms", "--duration", "1s"], name="idle")
    start = time.monotonic()
    rc = mon.wait()
    took = time.monotonic() - start
    lines, rep = final_report(mon)
    ivs = [l for l in lines if l.get("type") == "interval"]
    if rc != 0 or len(ivs) < 5 or rep["capture"]["packets"] != 0 or took > 5:
        raise Fail("idle run: exit %d, %d intervals, %.1f s" % (rc, len(ivs), took))
    check_sums(lines, rep)


def bulk_rotation(tool, rocegen, tmp):
    """Intervals over a 1.5 s replay add up; -w -C 1 files give the same report offline."""
    bulk = os.path.join(tmp, "bulk.pcap")
    sh(rocegen, "bulk", "-o", bulk, "--packets", "12000", "--qps", "8", "--snaplen", "128")
    save = os.path.join(tmp, "saved.pcap")
    mon = Monitor(tool, tmp, ["--json", "--interval", "250ms", "-c", "12000", "-w", save,
                              "-C", "1"], name="bulk")
    mon.ready()
    replay(bulk, pps=8000)
    rc = mon.wait()
    lines, live = final_report(mon)
    if rc != 0:
        raise Fail("bulk: exit %d: %s" % (rc, mon.stderr()))
    check_sums(lines, live)
    busy = [l for l in lines if l.get("type") == "interval" and l["interval"]["packets"]]
    if len(busy) < 3:
        raise Fail("bulk: packets in only %d intervals" % len(busy))
    files = [save] + [save + str(i) for i in range(1, 10) if os.path.exists(save + str(i))]
    if len(files) != 2:
        raise Fail("-C 1 over 1.7 MB: %d files" % len(files))
    if live["capture"]["live"]["dropped"] == 0:
        d = diff(header_counts(live), header_counts(offline(tool, *files)))
        if d:
            raise Fail("-w files and live report differ: %s" % d)
    ring = os.path.join(tmp, "ring.pcap")
    mon = Monitor(tool, tmp, ["-c", "12000", "-w", ring, "-C", "1", "-W", "1"], name="ring")
    mon.ready()
    replay(bulk)
    if mon.wait() != 0 or sorted(os.listdir(tmp)).count("ring.pcap0") != 1 or \
            pcap_frames(ring + "0") >= 12000 or os.path.exists(ring + "1"):
        raise Fail("-W 1 ring: %s" % mon.stderr())


def interrupt(tool, rocegen, tmp, sig, tty):
    """A signal mid-replay: exit 0 and the final report (JSON, or the terminal view + text)."""
    slow = os.path.join(tmp, "slow.pcap")
    if not os.path.exists(slow):
        sh(rocegen, "bulk", "-o", slow, "--packets", "600", "--qps", "2", "--snaplen", "128")
    args = ["--interval", "250ms"] + ([] if tty else ["--json"])
    mon = Monitor(tool, tmp, args, tty=tty, name="sig%d" % sig)
    mon.ready()
    rp = subprocess.Popen(netns("tcpreplay", "-q", "-i", REPLAY_IF, "--pps=400", slow),
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.8)
    mon.p.send_signal(sig)
    rc = mon.wait()
    rp.wait(timeout=30)
    if rc != 0:
        raise Fail("signal %d: exit %d: %s" % (sig, rc, mon.stderr()))
    if tty:
        out = mon.stdout()
        m = re.search(r"packets +(\d+) in", out)
        if "\x1b[H\x1b[2J" not in out or "rocescope live: vb" not in out or not m or \
                not 0 < int(m.group(1)) < 600:
            raise Fail("terminal view / final text report missing: %r" % out[-600:])
        return
    lines, rep = final_report(mon)
    check_sums(lines, rep)
    if not 0 < rep["capture"]["packets"] < 600:
        raise Fail("SIGINT mid-run: %d packets in the report" % rep["capture"]["packets"])


def idle_retire(tool, captures, tmp):
    """--idle-timeout: flows idle longer are retired at an interval, their counts kept."""
    first = os.path.join(captures, "loss_receiver.pcap")
    second = os.path.join(captures, "ecn_cnp.pcap")  # other addresses: new flows
    mon = Monitor(tool, tmp, ["--json", "--interval", "200ms", "--idle-timeout", "1s"],
                  name="idle_retire")
    mon.ready()
    replay(first)
    time.sleep(1.3)
    replay(second)
    time.sleep(0.6)
    mon.p.send_signal(signal.SIGINT)
    rc = mon.wait()
    lines, rep = final_report(mon)
    old, new = offline(tool, first), offline(tool, second)
    want = pcap_frames(first) + pcap_frames(second)
    if rc != 0 or rep["limits"]["flows_retired"] != len(old["flows"]) or \
            rep["capture"]["packets"] != want or \
            rep["naks"]["total"] != old["naks"]["total"] + new["naks"]["total"] or \
            len(rep["flows"]) != len(new["flows"]):
        raise Fail("idle timeout: exit %d, %d retired, %d packets, %d flows listed" %
                   (rc, rep["limits"]["flows_retired"], rep["capture"]["packets"],
                    len(rep["flows"])))
    check_sums(lines, rep)


def vanished(tool, captures, tmp):
    """The interface is deleted while capturing: exit 1, the error, the report so far."""
    path = os.path.join(captures, "ecn_cnp.pcap")
    mon = Monitor(tool, tmp, ["--json", "--immediate"], name="gone")
    mon.ready()
    replay(path)
    time.sleep(0.3)
    sh("ip", "-n", NS, "link", "del", REPLAY_IF)
    rc = mon.wait()
    lines, rep = final_report(mon)
    err = mon.stderr()
    if rc != 1 or "vb:" not in err or rep["capture"]["complete"] or \
            rep["capture"]["packets"] != pcap_frames(path):
        raise Fail("vanished interface: exit %d, stderr %r, complete %r, %d packets" %
                   (rc, err, rep["capture"]["complete"], rep["capture"]["packets"]))
    add_veth()
    links(True)


def drop_root(tool, captures, tmp):
    """-Z nobody: the -w and Prometheus files are created as nobody."""
    nobody = pwd.getpwnam("nobody")
    d = tempfile.mkdtemp(dir=tmp)
    os.chmod(d, 0o777)
    path = os.path.join(captures, "loss_receiver.pcap")
    save = os.path.join(d, "z.pcap")
    mon = Monitor(tool, d, ["-Z", "nobody", "-w", save, "-c", str(pcap_frames(path))], name="z")
    mon.ready()
    replay(path)
    rc = mon.wait()
    if rc != 0 or os.stat(save).st_uid != nobody.pw_uid or \
            os.stat(mon.prom).st_uid != nobody.pw_uid or pcap_frames(save) != pcap_frames(path):
        raise Fail("-Z nobody: exit %d, %s" % (rc, mon.stderr()))


def output_files(tool, captures, tmp):
    """Files the monitor writes never replace what is not a regular file
    (tests/integration/output_safety.py has the offline cases): the
    Prometheus file as a link to a regular file stays a link (a link to
    nothing is refused: rocescope(1), OUTPUT FILES), -w into a character
    device and the final report (-o) into a FIFO write into them."""
    d = tempfile.mkdtemp(dir=tmp)
    os.chmod(d, 0o777)  # written as the user the monitor becomes (rocescope(1), PRIVILEGES)
    path = os.path.join(captures, "loss_receiver.pcap")
    with open(os.path.join(d, "real.prom"), "w") as f:
        f.write("old\n")
    os.symlink("real.prom", os.path.join(d, "out.prom"))
    dev = os.path.join(d, "null")
    os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    os.chmod(dev, 0o666)
    fifo = os.path.join(d, "final.fifo")
    os.mkfifo(fifo, 0o666)
    os.chmod(fifo, 0o666)
    got = {}

    def reader():
        with open(fifo) as f:
            got["text"] = f.read()
    t = threading.Thread(target=reader, daemon=True)
    t.start()
    mon = Monitor(tool, d, ["--json", "--interval", "100ms", "-w", dev, "-o", fifo,
                            "-c", str(pcap_frames(path))], name="out")
    mon.ready()
    replay(path)
    rc = mon.wait()
    t.join(30)
    st = os.lstat(dev)
    problems = []
    if rc != 0:
        problems.append("exit %d: %s" % (rc, mon.stderr()))
    if not os.path.islink(mon.prom) or not os.path.isfile(os.path.join(d, "real.prom")):
        problems.append("the Prometheus link was replaced")
    else:
        with open(os.path.join(d, "real.prom")) as f:
            if "rocescope_" not in f.read():
                problems.append("the Prometheus link's file was not written")
    if not stat.S_ISCHR(st.st_mode) or st.st_rdev != os.makedev(1, 3):
        problems.append("the -w device was replaced")
    if not stat.S_ISFIFO(os.lstat(fifo).st_mode) or '"tool"' not in got.get("text", ""):
        problems.append("the FIFO was replaced or its reader got no report")
    extra = set(os.listdir(d)) - {"out.prom", "real.prom", "null", "final.fifo", "out.out",
                                  "out.err"}
    if extra:
        problems.append("left %s" % sorted(extra))
    # a device as the Prometheus file keeps its mode (not the file mode 0644)
    prom_dev = os.path.join(d, "prom-null")
    os.mknod(prom_dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    os.chmod(prom_dev, 0o666)
    r = subprocess.run(netns(tool, "-i", CAPTURE_IF, "--prometheus-file", prom_dev, "-q",
                             "--duration", "300ms"), capture_output=True, text=True, timeout=30)
    mode = stat.S_IMODE(os.lstat(prom_dev).st_mode)
    if r.returncode != 0 or mode != 0o666 or not stat.S_ISCHR(os.lstat(prom_dev).st_mode):
        problems.append("--prometheus-file on a device: exit %d, mode %o: %s"
                        % (r.returncode, mode, r.stderr.strip()))
    if problems:
        raise Fail("; ".join(problems))


def html_page(tool, captures, tmp, mode):
    """--html: the final report's page (with --json, or beside live --events),
    with every frame with verdicts of the offline --events (frame numbers and
    verdicts) when nothing was dropped."""
    path = os.path.join(captures, "loss_receiver.pcap")
    page = os.path.join(tmp, "live%s.html" % mode)
    mon = Monitor(tool, tmp, [mode, "-s", "0", "-c", str(pcap_frames(path)), "--html", page],
                  name="html" + mode)
    mon.ready()
    replay(path)
    rc = mon.wait()
    if rc != 0:
        raise Fail("exit %d: %s" % (rc, mon.stderr()))
    with open(page, encoding="utf-8") as f:
        text = f.read()
    if not text.startswith("<!DOCTYPE html>") or "Live capture on" not in text:
        raise Fail("not the live capture's page")
    if mode == "--json":
        live = final_report(mon)[1]["capture"]["live"]
        if live["dropped"] or live["if_dropped"]:
            print("  the capture dropped packets, frames not compared")
            return
    got = {int(f): v for f, v in re.findall(r'data-frame="(\d+)"[^>]*? data-verdicts="([^"]*)"', text)}
    p = subprocess.run([tool, "--events", path], capture_output=True, text=True, timeout=60)
    want = {o["frame"]: " ".join(o["verdicts"]) for o in map(json.loads, p.stdout.splitlines())}
    if mode == "--events":  # the live events are the page's frames
        live_events = {o["frame"]: " ".join(o["verdicts"]) for o in mon.json_lines()}
        if live_events != got:
            raise Fail("page frames %s, live events %s" % (got, live_events))
    if got != want or not want:
        raise Fail("page frames %s, offline events %s" % (got, want))


def part_monitor(tool, rocegen, captures, tmp):
    links(True)
    yield "interface errors", lambda: interface_errors(tool)
    yield "intervals without traffic", lambda: idle_intervals(tool, tmp)
    yield "bulk intervals and -w rotation", lambda: bulk_rotation(tool, rocegen, tmp)
    yield "SIGINT, JSON", lambda: interrupt(tool, rocegen, tmp, signal.SIGINT, False)
    yield "SIGTERM, terminal view", lambda: interrupt(tool, rocegen, tmp, signal.SIGTERM, True)
    yield "-Z", lambda: drop_root(tool, captures, tmp)
    yield "idle flows retired", lambda: idle_retire(tool, captures, tmp)
    yield "vanished interface", lambda: vanished(tool, captures, tmp)
    yield "output files: link, device, FIFO", lambda: output_files(tool, captures, tmp)
    yield "--html: the final report's page", lambda: html_page(tool, captures, tmp, "--json")
    yield "--html beside live --events", lambda: html_page(tool, captures, tmp, "--events")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rocescope", required=True)
    ap.add_argument("--rocegen", required=True)
    ap.add_argument("--captures", required=True)
    ap.add_argument("--part", choices=("scenarios", "monitor"), required=True)
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("skip: live tests need root (network namespaces)")
        return SKIP
    if shutil.which("tcpreplay") is None:
        print("skip: tcpreplay is not installed (tools/setup.sh installs it)")
        return SKIP
    try:
        setup_netns()
    except (subprocess.CalledProcessError, FileNotFoundError) as e:
        subprocess.run(["ip", "netns", "del", NS], capture_output=True)
        print("skip: cannot make a network namespace with a veth pair: %s" % e)
        return SKIP
    tmp = tempfile.mkdtemp(prefix="rocescope-live-")
    os.chmod(tmp, 0o1777)  # started as root, the monitor writes as rocescope or nobody
    try:
        parts = part_scenarios(a.rocescope, a.captures, tmp) if a.part == "scenarios" else \
            part_monitor(a.rocescope, a.rocegen, a.captures, tmp)
        return run_parts(parts)
    finally:
        subprocess.run(["ip", "netns", "del", NS], capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)


def in_namespace(prefix, make_parts):
    """Runs the parts make_parts(tmp) gives in the namespace with its veth
    pair and lo up; tmp is a folder for the run that the monitor may write
    once it has given root up (it becomes rocescope or nobody: rocescope(1),
    Privileges). SKIP when no namespace can be made, else run_parts'."""
    try:
        setup_netns()
        sh("ip", "-n", NS, "link", "set", "lo", "up")
        links(True)
    except (subprocess.CalledProcessError, FileNotFoundError) as e:
        subprocess.run(["ip", "netns", "del", NS], capture_output=True)
        print("skip: cannot make a network namespace with a veth pair: %s" % e)
        return SKIP
    tmp = tempfile.mkdtemp(prefix=prefix)
    os.chmod(tmp, 0o1777)
    try:
        return run_parts(make_parts(tmp))
    finally:
        subprocess.run(["ip", "netns", "del", NS], capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)


def run_parts(parts):
    """Runs each (name, function) of parts, timed, a failure not stopping the
    others. 1 when any failed."""
    failed = passed = 0
    for name, run in parts:
        start = time.monotonic()
        try:
            run()
            passed += 1
            print("ok   %-36s %.1f s" % (name, time.monotonic() - start))
        except (Fail, subprocess.SubprocessError, OSError, ValueError, KeyError) as e:
            failed += 1
            print("FAIL %-36s %s" % (name, e))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
