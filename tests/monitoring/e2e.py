#!/usr/bin/env python3
"""End to end, with the real components from Debian's packages, in a network
namespace made for the run (everything on its 127.0.0.1, ports chosen free
there at run time):

  rocescope -i vb -Z nobody   on a veth pair, as the unit runs it: the
                              Prometheus file in a state folder, linked into
                              node_exporter's textfile folder; --listen too;
                              its final JSON report with -o
  prometheus-node-exporter    textfile collector only
  prometheus                  scraping node_exporter and --listen every
                              second, evaluating the shipped rules every second

while a PFC pause storm is replayed (captures/pfc.pcap looped at 600
frames/s for 2 s, the monitor at --link-speed 1G: each XOFF pauses 33.5 ms,
far longer than tcpreplay's pacing may bunch frames, so priority 3 is paused
about two thirds of every second whatever the load; its RoCE SEND is resent
each loop) after loss_receiver.pcap and ecn_cnp.pcap (NAKs, CE marks, CNPs).
Then, through Prometheus's HTTP API:

  - the alert RocescopePfcPauseStorm fires for priority 3, from both jobs
  - the counters scraped from --listen equal those of the file at one instant
  - once the monitor stopped: every counter series of the file equals the
    monitor's final report (a table written here from REPORT.md, not from
    the code), and the series in Prometheus equal the file's
  - every query of the dashboard (its variables set to all) returns data
    over the run, and so do its variable queries

Bounded in time (--timeout, default 150 s: everything is killed then); the
namespace, the processes and the temporary folder are removed whatever
happens. Needs root, ip netns, tcpreplay, prometheus, prometheus-node-exporter;
otherwise it skips (exit 77).
"""
import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

import promql

SKIP = 77
NS = "rse2e%d" % os.getpid()
CAPTURE_IF, REPLAY_IF = "vb", "va"
STORM_PPS, STORM_LOOPS = 600, 80        # 1200 frames, 2 s of storm
LINK_SPEED = "1G"                       # a pause quantum of 512 ns
WAIT_S = 40


class Fail(Exception):
    pass


# ---------------------------------------------------------------- outside

def outside(a):
    """Make the namespace, run this script inside it, remove everything."""
    for tool in ("ip", "tcpreplay", "prometheus", "prometheus-node-exporter", "promtool"):
        if shutil.which(tool) is None:
            print("skip: %s is not installed (tools/setup.sh installs it)" % tool)
            return SKIP
    if os.geteuid() != 0:
        print("skip: needs root (network namespace, capture)")
        return SKIP
    tmp = tempfile.mkdtemp(prefix="rocescope-e2e-")
    os.chmod(tmp, 0o755)
    start = time.monotonic()
    try:
        try:
            sh("ip", "netns", "add", NS)
            sh("ip", "-n", NS, "link", "set", "lo", "up")
            sh("ip", "-n", NS, "link", "add", REPLAY_IF, "type", "veth", "peer", "name", CAPTURE_IF)
            for i in (REPLAY_IF, CAPTURE_IF):
                sh("ip", "-n", NS, "link", "set", i, "mtu", "9000", "up")
        except (subprocess.CalledProcessError, OSError) as e:
            print("skip: cannot make a network namespace with a veth pair: %s" % e)
            return SKIP
        cmd = ["ip", "netns", "exec", NS, sys.executable, os.path.abspath(__file__), "--inside",
               "--tmp", tmp] + [x for k, v in vars(a).items() if k in
                                ("rocescope", "captures", "monitoring") for x in
                                ("--" + k, os.path.abspath(v))]
        p = subprocess.Popen(cmd, start_new_session=True)
        try:
            rc = p.wait(timeout=a.timeout)
        except subprocess.TimeoutExpired:
            print("FAIL timed out after %d s: everything killed" % a.timeout)
            rc = 1
        try:
            os.killpg(p.pid, signal.SIGKILL)  # whatever the inside left behind
        except ProcessLookupError:
            pass
        p.wait()
        print("end to end: %.1f s" % (time.monotonic() - start))
        return rc
    finally:
        subprocess.run(["ip", "netns", "del", NS], capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)


def sh(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=60)


# ----------------------------------------------------------------- inside

def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def http_get(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read().decode()


class Prom:
    def __init__(self, port):
        self.base = "http://127.0.0.1:%d" % port

    def api(self, path, **params):
        url = self.base + "/api/v1/" + path + "?" + urllib.parse.urlencode(params, doseq=True)
        r = json.loads(http_get(url, timeout=30))
        if r.get("status") != "success":
            raise Fail("%s: %r" % (path, r))
        return r["data"]

    def query(self, expr, at=None):
        params = {"query": expr}
        if at is not None:
            params["time"] = "%.3f" % at
        return self.api("query", **params)["result"]

    def query_range(self, expr, start, end):
        return self.api("query_range", query=expr, start="%.3f" % start, end="%.3f" % end,
                        step="1")["result"]


def wait_for(what, check, timeout=WAIT_S, every=0.5):
    """check() until it returns something true; what it raises but OSError
    and ValueError (a server not up yet) ends the wait at once."""
    end = time.monotonic() + timeout
    last = None
    while time.monotonic() < end:
        try:
            got = check()
            if got:
                return got
        except (OSError, ValueError) as e:
            last = e
        time.sleep(every)
    raise Fail("waited %d s for %s (%s)" % (timeout, what, last))


class Procs:
    """The processes started inside: stopped (TERM, then KILL) at the end."""

    def __init__(self, tmp):
        self.tmp, self.procs = tmp, []

    def start(self, name, cmd, **kw):
        log = open(os.path.join(self.tmp, name + ".log"), "wb")
        p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, **kw)
        log.close()
        self.procs.append((name, p))
        return p

    def log(self, name):
        with open(os.path.join(self.tmp, name + ".log"), errors="replace") as f:
            return f.read()[-1500:]

    def stop_all(self):
        for _, p in self.procs:
            if p.poll() is None:
                p.terminate()
        for _, p in self.procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def samples(text):
    """{(name, frozenset(labels)): value} of a Prometheus text file."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        head, value = line.rsplit(" ", 1)
        name, _, rest = head.partition("{")
        labels = {}
        for part in rest.rstrip("}").split('",'):
            if part:
                k, v = part.split('="', 1)
                labels[k] = v.rstrip('"')
        out[(name, frozenset(labels.items()))] = float(value)
    return out


def report_counters(rep):
    """The counter series the final report says the monitor wrote, from
    REPORT.md's table: {(name, frozenset(labels)): value}."""
    c, e, p = rep["capture"], rep["ecn"], rep["pfc"]
    quantum_s = 512 / (rep["options"]["link_speed_mbps"] * 1e6)
    want = {}

    def put(name, value, **labels):
        labels["interface"] = CAPTURE_IF
        want[("rocescope_" + name, frozenset(labels.items()))] = float(value)
    for k in ("packets", "non_roce_packets", "truncated_packets", "no_bth_packets",
              "request_packets", "response_packets"):
        put(k + "_total", c[k])
    put("roce_packets_total", c["rocev1_packets"], version="1")
    put("roce_packets_total", c["rocev2_packets"], version="2")
    put("roce_packets_total", c["ib_packets"], version="ib")
    for k, n in c["ib_non_transport"].items():
        put("ib_non_transport_packets_total", n, kind=k)
    for r, n in c["vcrc"].items():
        put("vcrc_packets_total", n, result=r)
    put("wire_bytes_total", c["bytes"])
    for r, n in c["malformed_by_reason"].items():
        put("malformed_packets_total", n, reason=r)
    for r, n in c["icrc"].items():
        if r != "rewritten":  # bad ICRCs a rewrite explains: the capture diagnosis says so
            put("icrc_packets_total", n, result=r)
    for code, n in rep["naks"].items():
        if code != "total":
            put("naks_total", n, code=code)
    put("retransmitted_packets_total", rep["retransmission"]["packets"])
    for t, n in rep["retransmission"]["by_trigger"].items():
        put("episodes_total", n, trigger=t)
    put("psn_gaps_total", rep["psn_gaps"]["events"])
    put("missing_psns_total", rep["psn_gaps"]["missing_psns"])
    for cls, n in rep["psn_gaps"]["by_class"].items():
        put("psn_gaps_settled_total", n, **{"class": cls})
    for cls, n in rep["psn_gaps"]["missing_psns_by_class"].items():
        put("missing_psns_settled_total", n, **{"class": cls})
    put("reordered_packets_total", rep["psn_gaps"]["reordered_packets"])
    for k in ("repeated_timestamps", "time_backwards", "responses_early"):
        put(k + "_total", c[k])
    put("understated_packets_total", c["understated"]["frames"])
    for field, n in c["icrc"]["rewritten"].items():
        put("icrc_rewritten_packets_total", n, field=field)
    put("dcqcn_cnps_evaluated_total", rep["dcqcn"]["cnps_evaluated"])
    put("psn_reuse_total", rep["psn_reuse"])
    put("read_response_gaps_total", rep["read_response_gaps"]["events"])
    put("read_response_missing_psns_total", rep["read_response_gaps"]["missing_psns"])
    put("aeth_reserved_total", rep["aeth_reserved"])
    put("ce_marked_packets_total", e["ce_marked"])
    put("becn_packets_total", e["becn_packets"])
    put("cnps_ce_marked_total", e["cnps_ce_marked"])
    put("ce_marks_settled_total", e["ce_answered"], outcome="answered")
    put("ce_marks_settled_total", e["ce_unanswered"], outcome="unanswered")
    put("cnp_packets_total", e["cnps_matched"], match="matched")
    put("cnp_packets_total", e["cnps_unexplained"], match="unexplained")
    put("cm_messages_total", rep["cm"]["messages"])
    put("cm_connections_total", rep["cm"]["connections"])
    put("mac_control_frames_total", p["pfc_frames"], type="pfc")
    put("mac_control_frames_total", p["pause_frames"], type="pause")
    put("mac_control_frames_total", p["other_mac_control"], type="other")
    put("pfc_pauses_total", p["pauses"])
    for prio in p["priorities"]:
        i = str(prio["priority"])
        put("pfc_priority_frames_total", prio["xoff"], priority=i, state="xoff")
        put("pfc_priority_frames_total", prio["xon"], priority=i, state="xon")
        put("pfc_priority_requested_seconds_total", prio["quanta"] * quantum_s, priority=i)
        put("pfc_priority_paused_seconds_total", prio["paused_us"] / 1e6, priority=i)
        put("pfc_priority_storm_windows_total", prio["storm_windows"], priority=i)
    lp = p["pause"]
    put("link_pause_frames_total", lp["xoff"], state="xoff")
    put("link_pause_frames_total", lp["xon"], state="xon")
    put("link_pause_requested_seconds_total", lp["quanta"] * quantum_s)
    put("link_pause_paused_seconds_total", lp["paused_us"] / 1e6)
    put("link_pause_storm_windows_total", lp["storm_windows"])
    for enc, n in rep["encapsulation"].items():
        put("encapsulated_frames_total", n, encapsulation=enc)
    lim = rep["limits"]
    for k in ("flows_created", "flows_evicted", "flows_retired", "verdicts_forced",
              "ce_tracking_overflow", "cnp_tracking_overflow", "alloc_failures", "dcqcn_untracked",
              "gap_tracking_overflow", "macs_untracked", "udp_sports_untracked",
              "victims_untracked", "pauses_unlisted", "incast_receivers_evicted", "incast_receivers_unlisted",
              "incast_senders_untracked", "cnp_dsts_evicted"):
        put(k + "_total", lim[k])
    live = c["live"]
    put("capture_received_packets_total", live["received"])
    put("capture_dropped_packets_total", live["dropped"], by="kernel")
    put("capture_dropped_packets_total", live["if_dropped"], by="interface")
    put("capture_dropped_packets_total", live["analysis_dropped"], by="analysis")
    return want


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def dashboard_queries(path):
    with open(path) as f:
        dash = json.load(f)
    out = []
    for p in dash["panels"]:
        for t in p.get("targets", []):
            out.append((p["title"], t["expr"], bool(t.get("instant"))))
    variables = [v["query"]["query"] for v in dash["templating"]["list"] if v["type"] == "query"]
    return out, variables


def grafana_expr(expr, span_s):
    """A dashboard expression as Grafana sends it: every instance and interface."""
    return (expr.replace("$instance", ".*").replace("$interface", ".*")
            .replace("$__rate_interval", "4s").replace("$__range", "%ds" % span_s))


def prometheus_config(tmp, node_port, listen_port, rules):
    path = os.path.join(tmp, "prometheus.yml")
    with open(path, "w") as f:
        f.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                "rule_files:\n  - %s\n"
                "scrape_configs:\n"
                "  - job_name: node\n    static_configs:\n      - targets: ['127.0.0.1:%d']\n"
                "  - job_name: rocescope\n    static_configs:\n      - targets: ['127.0.0.1:%d']\n"
                % (rules, node_port, listen_port))
    return path


def replay(captures, name, *rate):
    p = subprocess.run(["tcpreplay", "-q", "-i", REPLAY_IF, *rate,
                        os.path.join(captures, name)], capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        raise Fail("tcpreplay %s: %s" % (name, p.stderr.strip()))


def step(name, t0):
    print("ok   %-52s %5.1f s" % (name, time.monotonic() - t0), flush=True)


def inside(a):
    tmp = a.tmp
    textfile, state = os.path.join(tmp, "textfile"), os.path.join(tmp, "state")
    os.mkdir(textfile)
    os.mkdir(state)
    os.chmod(state, 0o777)
    prom_file = os.path.join(state, CAPTURE_IF + ".prom")
    os.symlink(prom_file, os.path.join(textfile, "rocescope-%s.prom" % CAPTURE_IF))
    final = os.path.join(state, "final.json")
    rules = os.path.join(tmp, "rocescope.rules.yml")
    shutil.copy(os.path.join(a.monitoring, "rocescope.rules.yml"), rules)
    node_port, listen_port, prom_port = free_port(), free_port(), free_port()
    procs = Procs(tmp)
    t0 = time.monotonic()
    try:
        mon = procs.start("rocescope", [
            a.rocescope, "-i", CAPTURE_IF, "-Z", "nobody", "--quiet", "--interval", "1s",
            "--link-speed", LINK_SPEED,
            "--prometheus-file", prom_file, "--listen", "127.0.0.1:%d" % listen_port,
            "--json", "-o", final, "-s", "0", "--duration", "120s"])
        procs.start("node_exporter", [
            "prometheus-node-exporter", "--web.listen-address=127.0.0.1:%d" % node_port,
            "--collector.disable-defaults", "--collector.textfile",
            "--collector.textfile.directory=" + textfile])
        procs.start("prometheus", [
            "prometheus", "--config.file=" + prometheus_config(tmp, node_port, listen_port, rules),
            "--storage.tsdb.path=" + os.path.join(tmp, "data"),
            "--web.listen-address=127.0.0.1:%d" % prom_port, "--log.level=warn"])
        prom = Prom(prom_port)
        def first_file():
            if mon.poll() is not None:
                raise Fail("the monitor exited %d: %s" % (mon.returncode, procs.log("rocescope")))
            return os.path.exists(prom_file)
        wait_for("the monitor's first file", first_file)
        wait_for("Prometheus to be ready", lambda: "Ready" in http_get(prom.base + "/-/ready"))
        wait_for("both targets up", lambda: sorted(
            t["labels"]["job"] for t in prom.api("targets")["activeTargets"]
            if t["health"] == "up") == ["node", "rocescope"])
        start = time.time()
        step("monitor, node_exporter, Prometheus up", t0)

        replay(a.captures, "loss_receiver.pcap")
        replay(a.captures, "ecn_cnp.pcap")
        replay(a.captures, "pfc.pcap", "--pps=%d" % STORM_PPS, "--loop=%d" % STORM_LOOPS)
        step("scenario replayed (PFC storm on priority 3)", t0)

        def storm_alerts():
            firing = [al for al in prom.api("alerts")["alerts"]
                      if al["labels"]["alertname"] == "RocescopePfcPauseStorm" and
                      al["state"] == "firing" and al["labels"].get("priority") == "3" and
                      al["labels"].get("interface") == CAPTURE_IF]
            jobs = sorted(al["labels"]["job"] for al in firing)
            return jobs == ["node", "rocescope"] and firing
        try:
            firing = wait_for("RocescopePfcPauseStorm to fire", storm_alerts)
        except Fail as e:
            with open(prom_file) as f:
                prio3 = [l for l in f if 'priority="3"' in l and "_total" in l]
            raise Fail("%s; the monitor's file says: %s" % (e, "".join(prio3)))
        other = sorted({al["labels"]["alertname"] for al in prom.api("alerts")["alerts"]
                        if al["state"] == "firing"} - {"RocescopePfcPauseStorm"})
        step("RocescopePfcPauseStorm firing (%d alerts; also %s)" % (len(firing), other), t0)

        # the monitor's diagnoses reach Alertmanager's routing through one rule:
        # the storm and the replayed loss are warnings (ANALYSIS.md, "Severities"), each
        # one alert per subject, labelled with the subject and the cause
        def diagnosis_alerts():
            got = {(al["labels"].get("kind"), al["labels"].get("severity"),
                    al["labels"].get("cause"), al["labels"].get("subject"))
                   for al in prom.api("alerts")["alerts"]
                   if al["labels"]["alertname"] == "RocescopeDiagnosis" and
                   al["state"] == "firing" and al["labels"].get("interface") == CAPTURE_IF}
            want = {("pfc_storm", "warning", "traffic", "priority 3"),
                    ("packet_loss", "warning", "traffic",
                     "192.168.1.10 -> 192.168.1.20 QP 0x0000b2")}
            return want <= got and got
        got = wait_for("RocescopeDiagnosis to fire for the storm and the loss", diagnosis_alerts)
        step("RocescopeDiagnosis firing (%d diagnoses)" % len(got), t0)

        # idle now: --listen and the file carry the same counters at one instant
        def same_counters():
            at = time.time() - 0.5
            got = {}
            for job in ("node", "rocescope"):
                got[job] = {(r["metric"]["__name__"], frozenset(
                    (k, v) for k, v in r["metric"].items()
                    if k not in ("__name__", "job", "instance"))): float(r["value"][1])
                    for r in prom.query('{__name__=~"rocescope_.+_total",job="%s"}' % job, at)}
            return got["node"] and got["node"] == got["rocescope"] and got["node"]
        counters = wait_for("the --listen and textfile counters to agree", same_counters)
        step("--listen and textfile agree (%d counter series)" % len(counters), t0)

        mon.send_signal(signal.SIGTERM)
        if mon.wait(timeout=30) != 0:
            raise Fail("the monitor exited %d: %s" % (mon.returncode, procs.log("rocescope")))
        with open(final) as f:
            rep = json.load(f)
        with open(prom_file) as f:
            written = samples(f.read())
        want = report_counters(rep)
        have = {k: v for k, v in written.items() if k[0].endswith("_total")}
        if set(have) != set(want):
            raise Fail("counter series of the file and of the report differ: %s" %
                       sorted(set(have) ^ set(want))[:8])
        bad = [(k, have[k], want[k]) for k in want if not close(have[k], want[k])]
        if bad:
            raise Fail("file differs from the final report: %s" % bad[:5])
        if rep["capture"]["live"]["dropped"] or want[("rocescope_pfc_priority_storm_windows_total",
                                                      frozenset({"interface": CAPTURE_IF,
                                                                 "priority": "3"}.items()))] < 1:
            raise Fail("the capture dropped packets, or no storm window on priority 3")

        def in_prometheus():
            got = {}
            for r in prom.query('{__name__=~"rocescope_.+",job="node"}'):
                m = r["metric"]
                key = (m["__name__"], frozenset((k, v) for k, v in m.items()
                                                if k not in ("__name__", "job", "instance")))
                got[key] = float(r["value"][1])
            return got == written and got
        wait_for("Prometheus to hold the final file's series", in_prometheus)
        step("final report = file = Prometheus (%d series, %d counters)" % (len(written), len(want)),
             t0)

        span = int(time.time() - start) + 5
        queries, variables = dashboard_queries(os.path.join(a.monitoring,
                                                            "rocescope-dashboard.json"))
        empty = []
        for title, expr, instant in queries:
            e = grafana_expr(expr, span)
            res = prom.query(e) if instant else prom.query_range(e, start - 5, time.time())
            if not res:
                empty.append((title, e))
        for q in variables:
            m = promql.LABEL_VALUES.match(q)
            label = q.rsplit(",", 1)[1].strip(" )")
            match = grafana_expr(m.group(1), span)
            vals = prom.api("label/%s/values" % label, **{"match[]": match})
            if not vals:
                empty.append(("variable", q))
        if empty:
            raise Fail("dashboard queries without data: %s" % empty)
        step("all %d dashboard queries and %d variables return data" % (len(queries),
                                                                         len(variables)), t0)
        return 0
    except (Fail, OSError, ValueError, KeyError, subprocess.SubprocessError) as e:
        print("FAIL %s" % e)
        for name in ("rocescope", "prometheus", "node_exporter"):
            print("---- %s log:\n%s" % (name, procs.log(name)))
        return 1
    finally:
        procs.stop_all()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rocescope", required=True)
    ap.add_argument("--captures", required=True)
    ap.add_argument("--monitoring", required=True, help="analyzer/deploy/monitoring")
    ap.add_argument("--timeout", type=int, default=150)
    ap.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--tmp", help=argparse.SUPPRESS)
    a = ap.parse_args()
    return inside(a) if a.inside else outside(a)


if __name__ == "__main__":
    sys.exit(main())
