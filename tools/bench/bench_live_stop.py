#!/usr/bin/env python3
"""The live monitor's stop with a large flow table (BENCHMARKS.md, "Live
monitor at scale"): `rocescope -i` on the veth pair of tests/live/live.py,
`--max-flows 4194304`, a flood of distinct queue pairs (`rocegen flood`: a
request and its ACK each, every frame a new flow) replayed by `tcpreplay
--topspeed`, SIGINT after --seconds; prints the frames and flows of the
final report, the time from SIGINT to exit and the monitor's peak memory
(VmHWM, read while it stops).

  tools/bench/bench_live_stop.py [--build build] [--qps 1000000]
      [--seconds 20] [--json] [--final-flows N] [--perf OUT]

Needs root, `ip netns` and tcpreplay (as the live tests).
"""
import argparse
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "tests", "live"))
import live  # noqa: E402  (the test's namespace and monitor)


def cpu_s(pid):
    """The processor time (user + system) of pid so far, in seconds."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def vmhwm_kib(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def run(a, tmp):
    flood = os.path.join(tmp, "flood.pcap")
    live.sh(os.path.join(a.build, "tools", "rocegen", "rocegen"), "flood", "-o", flood,
            "--packets", str(2 * a.qps), "--qps", str(a.qps), "--snaplen", "64")
    args = ["--max-flows", "4194304", "--interval", "1s", "--duration", "600s"]
    args += ["--json"] if a.json else []
    args += ["--final-flows", str(a.final_flows)] if a.final_flows is not None else []
    mon = live.Monitor(os.path.join(a.build, "analyzer", "rocescope"), tmp, args, name="stop")
    mon.ready()
    rp = subprocess.Popen(live.netns("tcpreplay", "-q", "-i", live.REPLAY_IF, "--topspeed",
                                     flood), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(a.seconds)
    perf = None
    if a.perf:  # the stop's profile: perf attached to the monitor before the signal
        perf = subprocess.Popen(["perf", "record", "-F", "300", "--call-graph", "dwarf,8192",
                                 "-o", a.perf, "-p", str(mon.p.pid)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1)
    load = os.getloadavg()[0]
    cpu0 = cpu_s(mon.p.pid)
    start = time.monotonic()
    mon.p.send_signal(signal.SIGINT)
    peak, cpu1 = 0, cpu0
    while mon.p.poll() is None:
        peak = max(peak, vmhwm_kib(mon.p.pid))
        cpu1 = cpu_s(mon.p.pid) or cpu1  # the last reading before the exit (50 ms apart)
        time.sleep(0.05)
    took = time.monotonic() - start
    cpu = "%.1f s" % (cpu1 - cpu0) if cpu0 is not None and cpu1 is not None else "?"
    if perf is not None:
        perf.wait()
    mon.wait(timeout=5)
    rp.kill()
    rp.wait()
    if mon.p.returncode != 0:
        raise live.Fail("exit %d: %s" % (mon.p.returncode, mon.stderr()))
    sys.stderr.write(mon.stderr())
    if a.json:
        rep = live.final_report(mon)[1]
        frames, listed = rep["capture"]["packets"], len(rep.get("flows", []))
        tracked = rep.get("limits", {}).get("flows_created", "?")
        print("frames %d, flows listed %d (created %s), SIGINT to exit %.2f s "
              "(processor %s, load %.1f), peak %.0f MiB"
              % (frames, listed, tracked, took, cpu, load, peak / 1024))
    else:
        print("SIGINT to exit %.2f s (processor %s, load %.1f), peak %.0f MiB"
              % (took, cpu, load, peak / 1024))
        print(mon.stdout()[:1500])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(TOP, "build"))
    ap.add_argument("--qps", type=int, default=1000000)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--final-flows", type=int)
    ap.add_argument("--perf", help="record the stop with perf into this file")
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("needs root (a network namespace)")
        return 77
    return live.in_namespace("rocescope-stop-", lambda tmp: [("stop", lambda: run(a, tmp))])


if __name__ == "__main__":
    sys.exit(main())
