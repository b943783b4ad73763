#!/usr/bin/env python3
"""Live monitor tests of what it serves and streams, on the veth pair of
live.py (a network namespace made for the run, captures replayed by
tcpreplay):

  --listen    /metrics and / over HTTP after -Z nobody (the process holds no
              capability and runs as nobody while serving), checked with curl:
              /metrics equals the Prometheus file of the same interval and
              passes `promtool check metrics`; HEAD, query strings, 404, 405,
              413 (a body), and malformed requests on raw sockets (garbage, a
              bad version, an oversized line, oversized headers, a request cut
              short) each answered or closed while the server keeps serving;
              a request from an address holding its bound of idle
              connections is answered at once, the oldest of them closed to
              make room, the others at the request deadline; a port in use
              is exit status 3.
              --part attack (the ctest live_http_attack), under attack
              (http_attack.py: trickling, idle, flooding and
              greedy connections from several loopback addresses, the
              scraper's own among them): every scrape answered within 1 s
              (--scrape-deadline),
              the trickling and idle connections closed at the deadline.
              The other parts are --part serve (live_serve).
  --events    live verdicts equal the offline --events of the same capture
              (frame by frame; times excepted); -o PATH with --rotate-size
              and --rotate-count: the files PATH, PATH.1 ... hold every line;
              -q writes nothing on stdout.

Needs root, `ip netns`, tcpreplay and curl: otherwise it skips (exit 77).
"""
import argparse
import json
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import live
from live import Fail, Monitor, netns, replay, pcap_frames, parse_prometheus

# event keys whose values depend on arrival times: the times, and which CNP
# answered which CE mark (within --cnp-window of the arrival times)
TIMED_EVENT_KEYS = {"time", "nak_to_resend_ns", "cnp_latency_ns", "cnp_frame", "cnp_for_frame",
                    "nak_generation_ns", "dcqcn_rate_before_gbps", "dcqcn_rate_after_gbps",
                    "dcqcn_rate_ratio"}
SETTLED_BY_TIME = {"ce_answered": "ce_settled", "ce_unanswered": "ce_settled",
                   "cnp_matched": "cnp_settled", "cnp_unexplained": "cnp_settled"}
TIMED_VERDICTS = {"dcqcn"}  # evaluated only when the windows hold enough requests
HTTP_PER_IP = 8          # ROCE_HTTP_PER_IP (analyzer/live/http_pool.h)
REQUEST_S = 3.0          # ROCE_HTTP_REQUEST_MS
REQUEST_BYTES = 16384    # ROCE_HTTP_REQUEST_BYTES (analyzer/live/http.h)
ATTACK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "http_attack.py")


def free_port():
    """A TCP port free in the namespace now (the kernel picks it)."""
    p = subprocess.run(netns(sys.executable, "-c",
                             "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); "
                             "print(s.getsockname()[1])"),
                       capture_output=True, text=True, check=True, timeout=30)
    return int(p.stdout)


def curl(*args):
    p = subprocess.run(netns("curl", "-s", "-S", "--max-time", "5", *args),
                       capture_output=True, text=True, timeout=30)
    return p.returncode, p.stdout, p.stderr


def status_of(url, *args):
    rc, out, err = curl("-o", "/dev/null", "-w", "%{http_code}", *args, url)
    return out.strip()


def raw(port, data, read=True):
    """Send data on a raw connection in the namespace; returns what came back."""
    code = ("import socket, sys\n"
            "s = socket.create_connection(('127.0.0.1', %d), timeout=2)\n"
            "s.sendall(sys.stdin.buffer.read())\n"
            "s.shutdown(socket.SHUT_WR)\n"
            "out = b''\n"
            "try:\n"
            "    while True:\n"
            "        b = s.recv(65536)\n"
            "        if not b: break\n"
            "        out += b\n"
            "except OSError: pass\n"
            "sys.stdout.buffer.write(out)\n") % port
    p = subprocess.run(netns(sys.executable, "-c", code), input=data, capture_output=True,
                       timeout=30)
    return p.stdout.decode("latin-1")


def proc_status(pid):
    with open("/proc/%d/status" % pid) as f:
        return dict(l.split(":", 1) for l in f.read().splitlines() if ":" in l)


def listen(tool, captures, tmp):
    nobody = pwd.getpwnam("nobody")
    d = tempfile.mkdtemp(dir=tmp)
    os.chmod(d, 0o777)
    port = free_port()
    base = "http://127.0.0.1:%d" % port
    mon = Monitor(tool, d,
                  ["--listen", str(port), "-Z", "nobody", "--interval", "200ms", "-q",
                   "--duration", "30s"], name="listen")
    try:
        mon.ready()
        replay(os.path.join(captures, "loss_receiver.pcap"))
        time.sleep(0.5)
        st = proc_status(mon.p.pid)
        if st["Uid"].split()[0] != str(nobody.pw_uid) or int(st["CapEff"], 16) != 0:
            raise Fail("--listen after -Z: Uid %s CapEff %s" % (st["Uid"], st["CapEff"]))
        rc, metrics, err = curl("-f", base + "/metrics")
        if rc != 0:
            raise Fail("curl /metrics: %s" % err)
        samples = parse_prometheus(metrics)
        got = samples[("rocescope_naks_total",
                       frozenset({"interface": live.CAPTURE_IF, "code": "psn_sequence_error"}.items()))]
        if got != 2:
            raise Fail("/metrics: %r NAKs, the capture has 2" % got)
        p = subprocess.run(["promtool", "check", "metrics"], input=metrics, capture_output=True,
                           text=True, timeout=30)
        if p.returncode != 0 or p.stdout.strip() or p.stderr.strip():
            raise Fail("promtool check metrics on /metrics: %s%s" % (p.stdout, p.stderr))
        # the file and /metrics of the same interval are the same text
        same = False
        for _ in range(20):
            with open(mon.prom) as f:
                text = f.read()
            if curl(base + "/metrics")[1] == text:
                same = True
                break
            time.sleep(0.05)
        if not same:
            raise Fail("/metrics differs from the Prometheus file")
        rc, page, err = curl("-f", base + "/")
        if rc != 0 or "<pre>" not in page or "rocescope live: " + live.CAPTURE_IF not in page \
                or " %s packets " % live.CAPTURE_IF not in page:
            raise Fail("the live page: %s %r" % (err, page[:300]))
        checks = [
            (status_of(base + "/metrics?x=1&y"), "200"),
            (status_of(base + "/metrics", "-I"), "200"),
            (status_of(base + "/nothing"), "404"),
            (status_of(base + "/metrics/"), "404"),
            (status_of(base + "/metrics", "-X", "POST"), "405"),
            (status_of(base + "/metrics", "-X", "DELETE"), "405"),
            (status_of(base + "/metrics", "-X", "GET", "--data-binary", "x" * 100), "413"),
            (status_of(base + "/metrics", "-X", "GET", "-H", "Transfer-Encoding: chunked", "--data-binary",
                       "x"), "413"),
        ]
        for got, want in checks:
            if got != want:
                raise Fail("HTTP status %s, expected %s (%s)" % (got, want, checks))
        # each answered with an error, or closed unanswered (what libmicrohttpd
        # does with what it cannot parse); never a document
        malformed = [
            (b"GARBAGE\r\n\r\n", ("", "HTTP/1.1 400")),
            (b"GET /metrics HTTP/9.9\r\nHost: x\r\n\r\n", ("HTTP/1.1 505",)),
            (b"GET /" + b"a" * (2 * REQUEST_BYTES) + b" HTTP/1.1\r\nHost: x\r\n\r\n",
             ("", "HTTP/1.1 414")),  # closed with the rest unread: the answer may be lost
            (b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * (2 * REQUEST_BYTES) +
             b"\r\n\r\n", ("", "HTTP/1.1 431")),
            (b"GET /metrics HTTP/1.1\r\nHo", ("",)),
            (b"\x00\xff\r\n\r\n", ("", "HTTP/1.1 400")),
            (b"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\nx",
             ("HTTP/1.1 413",)),
        ]
        for data, want in malformed:
            got = raw(port, data)
            if not any(got.startswith(w) if w else got == "" for w in want):
                raise Fail("malformed request %r...: got %r, expected %s" % (data[:40], got[:80],
                                                                             want))
            if status_of(base + "/metrics") != "200":
                raise Fail("not serving after the malformed request %r" % data[:40])
        per_address(base, port)
        # a second monitor on the same port: exit 3
        p = subprocess.run(netns(tool, "-i", live.CAPTURE_IF, "--listen", str(port), "--duration",
                                 "1s"), capture_output=True, text=True, timeout=30)
        if p.returncode != 3 or "--listen" not in p.stderr:
            raise Fail("port in use: exit %d, %r" % (p.returncode, p.stderr))
    finally:
        mon.p.terminate()
    rc = mon.wait()
    if rc != 0 or mon.stdout() != "":
        raise Fail("--listen -q: exit %d, stdout %r, stderr %r" % (rc, mon.stdout()[:200],
                                                                  mon.stderr()))


def per_address(base, port):
    """Connections of one address beyond its bound: the oldest of its idle
    ones gives its place to a complete request, at once; idle ones are
    closed once past the request deadline."""
    held = subprocess.Popen(netns(sys.executable, "-c", (
        "import socket, sys, time\n"
        "c = []\n"
        "for _ in range(%d):\n"
        "    c.append(socket.create_connection(('127.0.0.1', %d)))\n"
        "    time.sleep(0.05)\n"
        "print('held', flush=True)\n"
        "for line in sys.stdin:\n"
        "    closed = ''\n"
        "    for s in c:\n"
        "        s.setblocking(False)\n"
        "        try:\n"
        "            closed += 'x' if s.recv(1) == b'' else '?'\n"
        "        except BlockingIOError:\n"
        "            closed += '.'\n"
        "        except OSError:\n"
        "            closed += 'x'\n"
        "    print(closed, flush=True)\n") % (HTTP_PER_IP, port)),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        if held.stdout.readline().strip() != "held":
            raise Fail("could not hold connections")
        opened = time.monotonic()
        start = time.monotonic()
        got = status_of(base + "/metrics")
        took = time.monotonic() - start
        held.stdin.write("\n")
        held.stdin.flush()
        closed = held.stdout.readline().strip()
        # curl's own start counts: well under a second all the same
        if got != "200" or took > 1.0 or closed != "x" + "." * (HTTP_PER_IP - 1):
            raise Fail("a request from an address holding %d idle connections: %s after %.2f s, "
                       "held connections closed: %s (expected the oldest alone)" %
                       (HTTP_PER_IP, got, took, closed))
        time.sleep(max(0.0, opened + REQUEST_S + 0.5 - time.monotonic()))
        held.stdin.write("\n")
        held.stdin.flush()
        closed = held.stdout.readline().strip()
        if closed != "x" * HTTP_PER_IP:
            raise Fail("idle connections %.1f s after they opened: %s (expected all closed)" %
                       (REQUEST_S + 0.5, closed))
    finally:
        held.stdin.close()
        held.wait(timeout=10)
    if status_of(base + "/metrics") != "200":
        raise Fail("not serving once the held connections closed")


def under_attack(tool, tmp, deadline):
    """Scrapes answered within deadline seconds each (1 s; more in a
    sanitizer build, whose server is several times slower than the attack),
    under a mix of trickling, idle, flooding and greedy connections from
    several addresses, the scraper's own among them (http_attack.py); the
    trickling and idle ones closed at the request deadline; the monitor ends
    cleanly (no sanitizer report)."""
    d = tempfile.mkdtemp(dir=tmp)
    os.chmod(d, 0o777)
    port = free_port()
    scrapes, every, settle = 24, 0.4, 3.0
    seconds = settle + scrapes * (every + 0.1) + 2
    mon = Monitor(tool, d, ["--listen", str(port), "-Z", "nobody", "--interval", "200ms", "-q",
                            "--duration", "%ds" % (seconds + 20)], name="attack")
    att = None
    try:
        mon.ready()
        att = subprocess.Popen(netns(sys.executable, ATTACK, "attack", "--port", str(port),
                                     "--seconds", str(seconds)),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(settle)  # the pool full, the deadlines at work
        p = subprocess.run(netns(sys.executable, ATTACK, "scrape", "--port", str(port), "--count",
                                 str(scrapes), "--every", str(every), "--deadline", str(deadline)),
                           capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            raise Fail("the scraper: %s" % p.stderr)
        res = json.loads(p.stdout)
        out, err = att.communicate(timeout=seconds + 60)
        if att.returncode != 0:
            raise Fail("the attack: %s" % err)
        stats = json.loads(out)
    finally:
        if att is not None and att.poll() is None:
            att.kill()
            att.wait()
        mon.p.terminate()
    rc = mon.wait()
    answered = res["answered"]
    print("     %d of %d scrapes answered within %g s under attack (slowest %.3f s); the attack: %s"
          % (len(answered), scrapes, deadline, max(answered, default=0), stats))
    if rc != 0:
        raise Fail("the monitor under attack: exit %d: %s" % (rc, mon.stderr()[-2000:]))
    if res["failed"] or len(answered) != scrapes or max(answered) >= deadline:
        raise Fail("scrapes under attack: %d of %d answered within %g s, failures: %s" %
                   (len(answered), scrapes, deadline, res["failed"][:5]))
    trickle, idle, flood = stats["trickle"], stats["idle"], stats["flood"]
    # every trickling and idle connection closed at least once (they last the
    # whole attack, several deadlines), none kept beyond the request deadline
    # (plus its wait to be accepted, as long as a scrape's at most)
    if trickle["closed_by_server"] < 40 or idle["closed_by_server"] < 300 or \
            trickle["longest_s"] > REQUEST_S + deadline + 0.5 or flood["opened"] < 1000:
        raise Fail("the attack: %s" % stats)


def strip_times(ev):
    out = {k: v for k, v in ev.items() if k not in TIMED_EVENT_KEYS}
    out["verdicts"] = [SETTLED_BY_TIME.get(v, v) for v in ev["verdicts"] if v not in TIMED_VERDICTS]
    return out


def offline_events(tool, path):
    p = subprocess.run([tool, "--events", path], capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        raise Fail("offline --events %s: %s" % (path, p.stderr))
    return [json.loads(l) for l in p.stdout.splitlines()]


def events_stdout(tool, captures, tmp):
    for name in ("loss_receiver", "ecn_cnp", "nak_codes", "bad_icrc", "read_loss"):
        path = os.path.join(captures, name + ".pcap")
        mon = Monitor(tool, tmp, ["--events", "-s", "0", "-c", str(pcap_frames(path))],
                      name="ev_" + name)
        mon.ready()
        replay(path)
        rc = mon.wait()
        if rc != 0:
            raise Fail("%s: exit %d: %s" % (name, rc, mon.stderr()))
        got = [strip_times(json.loads(l)) for l in mon.stdout().splitlines()]
        want = [strip_times(e) for e in offline_events(tool, path)]
        if not want or got != want:
            raise Fail("%s: live events differ from offline (%d vs %d lines)" %
                       (name, len(got), len(want)))


def events_rotated(tool, rocegen, tmp):
    flood = os.path.join(tmp, "flood.pcap")
    subprocess.run([rocegen, "flood", "-o", flood, "--packets", "16000", "--qps", "64",
                    "--ce", "1", "--snaplen", "128"], check=True, capture_output=True, timeout=60)
    out = os.path.join(tmp, "events.jsonl")
    mon = Monitor(tool, tmp, ["--events", "-o", out, "--rotate-size", "1", "--rotate-count", "9",
                              "-q", "-c", "16000", "--interval", "100ms"], name="rot")
    mon.ready()
    replay(flood, pps=20000)
    rc = mon.wait()
    if rc != 0 or mon.stdout() != "":
        raise Fail("--events -o: exit %d, stdout %r: %s" % (rc, mon.stdout()[:100], mon.stderr()))
    files = [out] + [out + ".%d" % i for i in range(1, 12) if os.path.exists(out + ".%d" % i)]
    if len(files) < 3 or any(os.path.getsize(f) > 1500000 for f in files[1:]):
        raise Fail("rotation at 1 MB: %s" % [(f, os.path.getsize(f)) for f in files])
    lines = []
    for f in reversed(files):  # oldest first
        with open(f) as fh:
            lines += [json.loads(l) for l in fh]
    want = offline_events(tool, flood)
    if [strip_times(e) for e in lines] != [strip_times(e) for e in want]:
        raise Fail("rotated files: %d lines, offline %d" % (len(lines), len(want)))
    # -W-like bound: with --rotate-count 1 only PATH and PATH.1 remain
    out2 = os.path.join(tmp, "ring.jsonl")
    mon = Monitor(tool, tmp, ["--events", "-o", out2, "--rotate-size", "1", "--rotate-count", "1",
                              "-c", "16000"], name="ring")
    mon.ready()
    replay(flood)
    if mon.wait() != 0 or not os.path.exists(out2 + ".1") or os.path.exists(out2 + ".2"):
        raise Fail("--rotate-count 1: %s" % sorted(os.listdir(tmp)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rocescope", required=True)
    ap.add_argument("--rocegen", required=True)
    ap.add_argument("--captures", required=True)
    ap.add_argument("--part", choices=("serve", "attack"), required=True,
                    help="serve: --listen and --events; attack: --listen under attack")
    ap.add_argument("--scrape-deadline", type=float, default=1.0,
                    help="attack: the seconds each scrape must be answered within")
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("skip: live tests need root (network namespaces)")
        return live.SKIP
    for tool in ("tcpreplay", "curl", "promtool"):
        if shutil.which(tool) is None:
            print("skip: %s is not installed (tools/setup.sh installs it)" % tool)
            return live.SKIP

    def parts(tmp):
        if a.part == "attack":
            return [("--listen under attack",
                     lambda: under_attack(a.rocescope, tmp, a.scrape_deadline))]
        return [("--listen, -Z, malformed requests", lambda: listen(a.rocescope, a.captures, tmp)),
                ("--events on stdout", lambda: events_stdout(a.rocescope, a.captures, tmp)),
                ("--events -o, rotated", lambda: events_rotated(a.rocescope, a.rocegen, tmp))]
    return live.in_namespace("rocescope-serve-", parts)


if __name__ == "__main__":
    sys.exit(main())
