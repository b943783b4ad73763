#!/usr/bin/env python3
"""The live monitor's highest rate without a drop, on a veth pair.

Makes a network namespace with a veth pair (as tests/live/live.py does), a
capture of header-only frames (`rocegen bulk --snaplen 128`), and the
replayer tools/bench/sendpkts.c (sendmmsg on an AF_PACKET socket, paced or
not). For each rate it starts `rocescope -i` on one end with the default
settings, sends the frames on the other, stops the monitor and reads its
final report: the rate holds when every frame sent was analysed and nothing
was dropped (kernel, interface, analysis queue). It first sends unpaced (the
replayer's own limit), then searches the highest rate that holds.

  tools/bench/bench_live.py [--build build] [--packets 2000000] [--qps 64]
                      [--senders 1] [--keep]
Needs root, ip netns.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
NS, REPLAY_IF, CAPTURE_IF = "rocescope-bench", "vb-rep", "vb-cap"


def sh(*cmd, check=True):
    return subprocess.run(cmd, capture_output=True, text=True, check=check, timeout=120)


def netns(*cmd):
    return ["ip", "netns", "exec", NS, *cmd]


def setup():
    sh("ip", "netns", "del", NS, check=False)
    sh("ip", "netns", "add", NS)
    sh("ip", "-n", NS, "link", "add", REPLAY_IF, "type", "veth", "peer", "name", CAPTURE_IF)
    for i in (REPLAY_IF, CAPTURE_IF):
        sh("ip", "-n", NS, "link", "set", i, "mtu", "9000")
        sh("ip", "netns", "exec", NS, "sysctl", "-qw", f"net.ipv6.conf.{i}.disable_ipv6=1",
           check=False)
        sh("ip", "-n", NS, "link", "set", i, "up")


def trial(tool, sender, cap, pps, tmp, senders=1):
    """Send the capture at pps (0: unpaced; split among the senders); the
    monitor's final report and the rate the senders reached together."""
    prom, out = os.path.join(tmp, "mon.prom"), os.path.join(tmp, "mon.json")
    for p in (prom, out):
        if os.path.exists(p):
            os.unlink(p)
    mon = subprocess.Popen(netns(tool, "-i", CAPTURE_IF, "-q", "--json", "-o", out,
                                 "--prometheus-file", prom, "--duration", "120s"),
                           stderr=subprocess.PIPE, text=True)
    end = time.monotonic() + 10
    while not os.path.exists(prom):
        if mon.poll() is not None or time.monotonic() > end:
            sys.exit("bench_live: the monitor did not start: " + mon.stderr.read())
        time.sleep(0.02)
    procs = [subprocess.Popen(netns(sender, REPLAY_IF, cap, str(pps / senders)),
                              stdout=subprocess.PIPE, text=True) for _ in range(senders)]
    outs = [p.communicate(timeout=600)[0] for p in procs]
    sent = sum(int(o.split()[1]) for o in outs)
    rate = sent / max(float(o.split()[4]) for o in outs)
    time.sleep(1.5)
    mon.send_signal(signal.SIGINT)
    mon.wait(timeout=60)
    with open(out, encoding="utf-8") as f:
        rep = json.load(f)
    live = rep["capture"]["live"]
    analysed = rep["capture"]["packets"]
    drops = live["dropped"] + live["if_dropped"] + live["analysis_dropped"]
    return sent, rate, analysed, live, drops == 0 and analysed == sent


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(HERE, "..", "..", "build"))
    ap.add_argument("--packets", type=int, default=2_000_000)
    ap.add_argument("--qps", type=int, default=64)
    ap.add_argument("--senders", type=int, default=1, help="replayers sending at once")
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    tool = os.path.abspath(os.path.join(a.build, "analyzer", "rocescope"))
    rocegen = os.path.join(a.build, "tools", "rocegen", "rocegen")
    tmp = tempfile.mkdtemp(prefix="rocescope-bench-live-")
    os.chmod(tmp, 0o1777)  # started as root, the monitor writes as rocescope or nobody
    sender = os.path.join(tmp, "sendpkts")
    subprocess.run(["cc", "-O2", "-o", sender, os.path.join(HERE, "sendpkts.c")],
                   check=True)
    cap = os.path.join(tmp, "bulk.pcap")
    subprocess.run([rocegen, "bulk", "-o", cap, "--packets", str(a.packets), "--qps", str(a.qps),
                    "--seed", "1", "--snaplen", "128"],
                   check=True, stdout=subprocess.DEVNULL)
    setup()
    try:
        print(f"{a.packets} header-only frames (snaplen 128), {a.qps} QPs, {a.senders} "
              f"sender(s); load {os.getloadavg()[0]:.1f}\n")
        print("| rate asked (frames/s) | sent at | analysed | kernel drops | interface | "
              "analysis | held |")
        print("|---|---|---|---|---|---|---|")

        def row(pps):
            sent, rate, analysed, live, ok = trial(tool, sender, cap, pps, tmp, a.senders)
            print(f"| {pps or 'unpaced'} | {rate:.0f} | {analysed} of {sent} | {live['dropped']} | "
                  f"{live['if_dropped']} | {live['analysis_dropped']} | {'yes' if ok else 'no'} |")
            sys.stdout.flush()
            return rate, ok

        top, ok = row(0)
        if ok:
            print(f"\nno drop at the replayer's own rate: {top:.0f} frames/s")
            return 0
        lo, hi = 0.0, top
        for _ in range(6):
            mid = (lo + hi) / 2
            _, ok = row(int(mid))
            lo, hi = (mid, hi) if ok else (lo, mid)
        print(f"\nhighest rate without a drop: about {lo:.0f} frames/s "
              f"(the replayer reached {top:.0f})")
    finally:
        sh("ip", "netns", "del", NS, check=False)
        if not a.keep:
            subprocess.run(["rm", "-rf", tmp], check=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
