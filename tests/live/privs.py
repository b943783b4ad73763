#!/usr/bin/env python3
"""Live monitor tests of its confinement (rocescope(1), "Privileges"), on the
veth pair of live.py (a network namespace made for the run):

  default     started as root without -Z, with --listen: every thread
              (/proc/PID/task/*/status) runs as the package's user
              `rocescope` when it exists, else `nobody` (real, effective,
              saved and file-system uids and gids), with empty capability
              sets (bounding, effective, permitted, inheritable, ambient),
              NoNewPrivs 1 and Seccomp 2 (a filter); /metrics is served;
              the start-up line says so.
  send        from inside that process (gdb attached, calling the C
              library), on the capture socket (found independently: its
              inode in /proc/PID/net/packet): send (sendto), write, dup,
              setsockopt, and the sendto system call with the descriptor
              plus 2^32 (amd64, arm64); a new AF_UNIX socket; execve (of a
              path that does not exist: ENOENT unless denied): each fails
              with EPERM, and a frame with a marker, sent so, never reaches
              the veth's other end, where a sniffer sees the same frame sent
              by an unfiltered packet socket on the capture interface (the
              control: the test can fail); a write on standard error from
              the same process works (the filter is about the capture
              socket).
  -Z root     explicit, warned about: uid 0 and the capabilities kept,
              NoNewPrivs 1 and the filter still on every thread.
  folder      the default user cannot write the Prometheus file's folder:
              exit 3 at start, with the note naming the user.

Needs root, `ip netns` and gdb: otherwise it skips (exit 77).
"""
import argparse
import os
import platform
import pwd
import re
import shutil
import subprocess
import sys
import tempfile
import time

import live
from live import Fail, Monitor, netns

FULL_WAIT = 10.0
THREADS = 3  # the capture (main), analysis and HTTP threads
PORT = 19781  # --listen, in the namespace made for the run
SENDTO_NR = {"x86_64": 44, "aarch64": 206}  # sendto's system call number
ETH_TYPE = "88b5"  # IEEE 802 local experimental EtherType
CONTROL, INJECTED = "rocescope-privs-control", "rocescope-privs-injected"

SNIFFER = r"""
import select, socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
s.bind((sys.argv[1], 0))
print("ready", flush=True)
seen = set()
while True:
    r, _, _ = select.select([s, sys.stdin], [], [], 0.2)
    if sys.stdin in r and not sys.stdin.buffer.read1(1):
        break
    if s in r:
        f = s.recv(65536)
        seen.update(m for m in sys.argv[2:] if m.encode() in f)
print(" ".join(sorted(seen)), flush=True)
"""

SENDER = r"""
import socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((sys.argv[1], 0))
s.send(bytes.fromhex(sys.argv[2]))
"""


def frame(marker):
    """A broadcast frame of the local experimental EtherType carrying marker
    (hex)."""
    body = b"\xff" * 6 + bytes.fromhex("020000000001" + ETH_TYPE) + marker.encode()
    return (body + b"\0" * (60 - len(body))).hex()


def default_user():
    for name in ("rocescope", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            pass
    raise Fail("neither rocescope nor nobody exists")


def statuses(pid):
    """{tid: {field: value}} of every thread, once THREADS of them run."""
    end = time.monotonic() + FULL_WAIT
    while True:
        tasks = os.listdir("/proc/%d/task" % pid)
        if len(tasks) >= THREADS or time.monotonic() > end:
            break
        time.sleep(0.05)
    out = {}
    for t in tasks:
        with open("/proc/%d/task/%s/status" % (pid, t)) as f:
            out[t] = dict((k, v.strip()) for k, v in
                          (l.split(":", 1) for l in f.read().splitlines() if ":" in l))
    if len(out) < THREADS:
        raise Fail("%d threads, expected %d" % (len(out), THREADS))
    return out


def show(st):
    keys = ("Name", "Uid", "Gid", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", "NoNewPrivs",
            "Seccomp")
    for tid, s in sorted(st.items()):
        print("  task %s: %s" % (tid, ", ".join("%s %s" % (k, s.get(k, "?")) for k in keys)))


def check_threads(st, uid, caps_empty):
    """What is wrong with the threads' statuses (a list)."""
    problems = []
    for tid, s in st.items():
        uids, gids = s["Uid"].split(), s["Gid"].split()
        if any(int(u) != uid for u in uids):
            problems.append("task %s: Uid %s" % (tid, s["Uid"]))
        if uid != 0 and any(int(g) == 0 for g in gids):
            problems.append("task %s: Gid %s" % (tid, s["Gid"]))
        sets = ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb") if caps_empty else ()
        for k in sets:
            if int(s[k], 16) != 0:
                problems.append("task %s: %s %s" % (tid, k, s[k]))
        if not caps_empty and int(s["CapEff"], 16) == 0:
            problems.append("task %s: -Z root lost its capabilities" % tid)
        if s.get("NoNewPrivs") != "1" or s.get("Seccomp") != "2":
            problems.append("task %s: NoNewPrivs %s Seccomp %s" % (tid, s.get("NoNewPrivs"),
                                                                   s.get("Seccomp")))
    return problems


def capture_fd(pid):
    """The descriptor of the monitor's packet socket, from its inode in the
    process's /proc/net/packet."""
    with open("/proc/%d/net/packet" % pid) as f:
        rows = f.read().splitlines()
    col = rows[0].split().index("Inode")
    inodes = {r.split()[col] for r in rows[1:]}
    fds = []
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:
            target = os.readlink("/proc/%d/fd/%s" % (pid, fd))
        except OSError:
            continue
        m = re.fullmatch(r"socket:\[(\d+)\]", target)
        if m and m.group(1) in inodes:
            fds.append(int(fd))
    if len(fds) != 1:
        raise Fail("packet sockets of the monitor: %s" % fds)
    return fds[0]


def gdb_calls(pid, fd):
    """Call the C library inside the monitor; {name: (result, errno)}."""
    data = bytes.fromhex(frame(INJECTED))
    path = b"/nonexistent/rocescope-privs\0"
    # the bytes set one by one: a string literal would be left allocated in
    # the monitor, a leak that fails the sanitizer build at exit
    cmds = ["set $b = (unsigned char *)(long)malloc(%d)" % len(data),
            "set $p = (char *)(long)malloc(%d)" % len(path)]
    cmds += ["set var $b[%d] = %d" % (i, c) for i, c in enumerate(data)]
    cmds += ["set var $p[%d] = %d" % (i, c) for i, c in enumerate(path)]
    calls = {
        "send": "(long)send(%d, $b, %d, 0)" % (fd, len(data)),  # sendto(2)
        "write": "(long)write(%d, $b, %d)" % (fd, len(data)),
        "dup": "(long)dup(%d)" % fd,
        "setsockopt": "(long)setsockopt(%d, 1, 7, $b, 4)" % fd,  # SOL_SOCKET, SO_SNDBUF
        "socket unix": "(long)socket(1, 1, 0)",  # AF_UNIX, SOCK_STREAM: could pass the socket on
        "execve": "(long)execve($p, 0, 0)",  # else ENOENT
        "write stderr": "(long)write(2, $b, 0)",
    }
    nr = SENDTO_NR.get(platform.machine())
    if nr is not None:  # the descriptor with bits above the int's, which the kernel drops
        calls["sendto 2^32+fd"] = "(long)syscall(%d, %d, $b, %d, 0, 0, 0)" % (nr, fd + 2**32,
                                                                            len(data))
    for name, call in calls.items():
        cmds += ["set var *(int *)(long)__errno_location() = 0",
                 "printf \"RESULT %s %%ld %%d\\n\", %s, *(int *)(long)__errno_location()"
                 % (name.replace(" ", "_"), call)]
    cmds += ["call (void)free($b)", "call (void)free($p)"]
    args = ["gdb", "-nx", "-q", "-batch", "-p", str(pid)]
    for c in cmds:
        args += ["-ex", c]
    p = subprocess.run(args + ["-ex", "detach"], capture_output=True, text=True, timeout=120)
    got = {m.group(1).replace("_", " "): (int(m.group(2)), int(m.group(3)))
           for m in re.finditer(r"^RESULT (\S+) (-?\d+) (\d+)$", p.stdout, re.M)}
    if set(got) != set(calls):
        raise Fail("gdb: %s %s" % (p.stdout[-2000:], p.stderr[-2000:]))
    return got


def sniff_start():
    s = subprocess.Popen(netns(sys.executable, "-c", SNIFFER, live.REPLAY_IF, CONTROL, INJECTED),
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    if s.stdout.readline().strip() != "ready":
        raise Fail("the sniffer did not start")
    return s


def sniff_end(s):
    time.sleep(0.5)  # frames in flight
    out, _ = s.communicate(timeout=30)
    return set(out.split())


def monitor_up(tool, d, args, name):
    mon = Monitor(tool, d, args, name=name)
    mon.ready()
    return mon


def default_and_send(tool, tmp):
    """Without -Z: every thread confined; sends from inside denied."""
    user = default_user()
    port = PORT
    mon = monitor_up(tool, tmp, ["-q", "--listen", str(port)], "default")
    try:
        st = statuses(mon.p.pid)
        print("  without -Z, as root (expected user %s, uid %d):" % (user.pw_name, user.pw_uid))
        show(st)
        problems = check_threads(st, user.pw_uid, True)
        line = "capturing as user %s (uid %d): no capabilities, no new privileges, system " \
               "call filter on (sending on the capture socket denied)" % (user.pw_name,
                                                                         user.pw_uid)
        if line not in mon.stderr():
            problems.append("start-up line: %r" % mon.stderr())
        metrics = subprocess.run(netns(sys.executable, "-c",
                                       "import urllib.request; print(urllib.request.urlopen("
                                       "'http://127.0.0.1:%d/metrics', timeout=5).read()"
                                       ".decode())" % port),
                                 capture_output=True, text=True, timeout=30)
        if "rocescope_" not in metrics.stdout:
            problems.append("/metrics not served: %s" % metrics.stderr[-500:])
        fd = capture_fd(mon.p.pid)
        sniffer = sniff_start()
        subprocess.run(netns(sys.executable, "-c", SENDER, live.CAPTURE_IF, frame(CONTROL)),
                       check=True, timeout=30)
        got = gdb_calls(mon.p.pid, fd)
        seen = sniff_end(sniffer)
        print("  capture socket fd %d; calls from inside: %s; seen on %s: %s"
              % (fd, got, live.REPLAY_IF, sorted(seen) or "nothing"))
    finally:
        mon.p.send_signal(2)
        rc = mon.wait()
    for name in ("send", "write", "dup", "setsockopt", "socket unix", "execve", "sendto 2^32+fd"):
        if name in got and got[name] != (-1, 1):  # EPERM
            problems.append("%s: %s" % (name, got[name]))
    if got["write stderr"] != (0, 0):
        problems.append("write on stderr: %s" % (got["write stderr"],))
    if CONTROL not in seen:
        problems.append("the sniffer missed the control frame")
    if INJECTED in seen:
        problems.append("a frame sent from inside the monitor went out")
    if rc != 0:
        problems.append("exit %d: %s" % (rc, mon.stderr()))
    if problems:
        raise Fail("; ".join(problems))


def keep_root(tool, tmp):
    """-Z root: warned about; root and its capabilities kept, NoNewPrivs and
    the filter on."""
    mon = monitor_up(tool, tmp, ["-q", "-Z", "root", "--listen", str(PORT + 1)], "root")
    try:
        st = statuses(mon.p.pid)
        print("  -Z root:")
        show(st)
    finally:
        mon.p.send_signal(2)
        rc = mon.wait()
    problems = check_threads(st, 0, False)
    if problems:
        raise Fail("; ".join(problems))
    err = mon.stderr()
    if rc != 0 or "-Z root: warning: the monitor keeps running as root" not in err or \
            "capturing as root (uid 0): capabilities kept (-Z root)" not in err:
        raise Fail("exit %d: %s" % (rc, err))


def root_folder(tool, tmp):
    """The default user cannot write the Prometheus file's folder: exit 3
    at start, with the note."""
    user = default_user()
    d = tempfile.mkdtemp(dir=tmp)
    os.chmod(d, 0o700)
    mon = Monitor(tool, d, ["-q"], name="closed")
    rc = mon.wait()
    err = mon.stderr()
    if rc != 3 or "note: the outputs are opened as user '%s'" % user.pw_name not in err:
        raise Fail("exit %d: %s" % (rc, err))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rocescope", required=True)
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("skip: the privilege tests need root")
        return live.SKIP
    if shutil.which("gdb") is None:
        print("skip: gdb is not installed (tools/setup.sh installs it)")
        return live.SKIP
    return live.in_namespace("rocescope-privs-", lambda tmp: [
        ("without -Z: threads, send from inside", lambda: default_and_send(a.rocescope, tmp)),
        ("-Z root", lambda: keep_root(a.rocescope, tmp)),
        ("a folder the user cannot write", lambda: root_folder(a.rocescope, tmp))])


if __name__ == "__main__":
    sys.exit(main())
