#!/usr/bin/env python3
"""Bad use of the CLI, beyond tests/integration/cli_errors.py: every numeric
option (analysis, output, -j, and the live capture ones, which are checked
before any capture starts) with negative, overflowing and garbage values
(also as --opt=VALUE or -oVALUE),
special files (FIFO, character devices, symlink loops, over-long names),
capture files that are valid but odd or lie in their headers, unsupported
link types, unreadable input and unwritable output as an unprivileged user
(via setpriv when run as root), and output that cannot be written.

Every case must give the documented exit status (1 input, 2 usage, 3
output) with one clear line `rocescope: WHAT: WHY` on stderr, no sanitizer
report, and nothing left behind by -o.

Cases that fail because of a known, not yet fixed bug are marked open: they
run only with --open (a disabled ctest until the fix), so CI stays green
while the reproducer is kept.

--sample (the sanitizer build's share in the contributor's suite,
tests/CMakeLists.txt): each option's own bad values in both forms, and a
third of the common garbage values, in one form (in turn), each garbage
value on a third of the options; every other case as without it. The
normal build and the sanitizer build's release tier run every value on
every option in both forms.
"""
import argparse
import json
import os
import shutil
import stat
import struct
import subprocess
import sys
import tempfile
import time

import checks

TIMEOUT_S = 60
NOBODY = 65534
PCAP_NS = 0xA1B23C4D
PCAP_US_BE = b"\xa1\xb2\xc3\xd4"
LONG_DIGITS = "9" * 5000

# option -> values that must be refused (besides the common garbage below)
NUMERIC = {
    "--udp-port": ["0", "65536", "4294967296"],
    "--cnp-window": ["0", "10000001", "18446744073709551615"],
    "--pmtu": ["0", "255", "768", "4097", "8192"],
    "--max-flows": ["0", "3", "67108865", "4294967300"],
    "--top": ["0", "1000001"],
    "--link-speed": ["0", "0G", "10T", "1.5G", "18446744073709551615G", "G", "100 G"],
    "--interval": ["0", "0s", "1h", "1.5s", "18446744073709551615s", "20000000000000000000us",
                   "ms", "5 s", "1e3ms"],
    "--storm-share": ["0", "101", "50%"],
    "--dcqcn-window": ["0", "1000001"],
    "--dcqcn-delay": ["1000001", "4us"],
    "--dcqcn-packets": ["0", "1000001"],
    "--dcqcn-cnps": ["0", "1000001"],
    "--dcqcn-reacted": ["1001", "85%"],
    "--dcqcn-ignored": ["1001"],
    "--ce-unanswered": ["0", "1000001"],
    "--jobs": ["0", "1025"],
    "-s": ["63", "262145"],
    "-B": ["0", "2097152"],
    "-c": ["0"],
    "--duration": ["0", "5x", "1y", "18446744073709551615s"],
    "--idle-timeout": ["5x", "-0s"],
    "-C": ["0", "1000001"],
    "-W": ["0", "1000001"],
}
# options whose messages name them by their short form
MESSAGE_NAME = {"--jobs": "-j"}
GARBAGE = ["-1", "-0", "+5", " 5", "5 ", "", "abc", "12abc", "0x10", "1e3", "1,000",
           "18446744073709551616", "99999999999999999999999999", LONG_DIGITS, "\u0661\u0662"]


def pcap(linktype, records, magic=PCAP_NS, snaplen=65535):
    out = struct.pack("<IHHiIII", magic, 2, 4, 0, 0, snaplen, linktype)
    for ts, data, orig in records:
        out += struct.pack("<IIII", ts, 0, len(data), orig) + data
    return out


def shrinking(tool, tmp, good, threads, failures):
    """A capture file cut short by another program while rocescope reads it
    (a capture being rotated or written over): the records up to the cut,
    exit 1 with libpcap's "truncated dump file", never a signal (a mapped
    file gave SIGBUS there). The file: the records of uc.pcap repeated to
    some 120 MB; it is cut, at a byte within a record, 8 MiB past where
    rocescope has read to once it has read its first bytes (or 20 ms after
    it opened it)."""
    with open(good, "rb") as f:
        head, records = f.read(24), f.read()
    path = os.path.join(tmp, f"shrinking-{threads}.pcap")
    with open(path, "wb") as f:
        f.write(head + records * (120_000_000 // len(records) + 1))
    r = None
    p = subprocess.Popen([tool, "-T", threads, path], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    try:
        fd = None
        while p.poll() is None and fd is None:  # the descriptor it reads the file on
            try:
                fds = os.listdir(f"/proc/{p.pid}/fd")
            except OSError:  # it ended
                break
            for n in fds:
                try:
                    if os.readlink(f"/proc/{p.pid}/fd/{n}") == path:
                        fd = n
                except OSError:
                    pass
        pos, cut, start = 0, 0, time.monotonic()
        while p.poll() is None and pos == 0 and time.monotonic() - start < 0.02:
            try:  # read(2) moves the position; a mapping would not: 20 ms then
                with open(f"/proc/{p.pid}/fdinfo/{fd}") as info:
                    pos = int(info.readline().split()[1])
            except (OSError, IndexError, ValueError, TypeError):
                break
        if p.poll() is None:
            cut = pos + 8 * 1024 * 1024 + 5
            os.truncate(path, cut)
        r = p.communicate(timeout=TIMEOUT_S)[1]
    except subprocess.TimeoutExpired:
        r = "(no end within the time allowed)"
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    what = f"a file cut short while read (-T {threads})"
    if p.returncode < 0 and r.startswith("(no end"):
        failures.append(f"{what}: {r}")
    elif p.returncode < 0:
        failures.append(f"{what}: killed by signal {-p.returncode}")
    elif cut == 0:
        failures.append(f"{what}: the file was read before it could be cut")
    elif p.returncode != 1 or "truncated dump file" not in r or checks.sanitizer_report(r):
        failures.append(f"{what}: exit {p.returncode}: {r.strip()[:300]}")
    os.unlink(path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rocescope", required=True)
    ap.add_argument("--captures", required=True)
    ap.add_argument("--open", action="store_true", help="run only the cases of open bugs")
    ap.add_argument("--sample", action="store_true",
                    help="a third of the garbage values per option, in one form (sanitizers)")
    a = ap.parse_args()
    tool = a.rocescope
    failures = []
    tmp = tempfile.mkdtemp(prefix="rocescope-abuse-")
    os.chmod(tmp, 0o755)  # the unprivileged runs below must reach the files

    def put(name, data):
        p = os.path.join(tmp, name)
        with open(p, "wb") as f:
            f.write(data)
        return p

    def case(what, args, status, err=None, check=None, prefix=(), is_open=False, binary=tool):
        if is_open != a.open:
            return
        try:
            r = checks.run([*prefix, binary, *args], TIMEOUT_S)
        except Exception as e:  # a hang is a failure of this case, not of the test
            failures.append(f"{what}: {e!r}")
            return
        problems = []
        if r.status != status:
            problems.append(f"exit {r.status}, want {status}")
        bad = checks.sanitizer_report(r.stderr)
        if bad:
            problems.append(bad)
        lines = r.stderr.strip().splitlines()
        if status != 0 and (not lines or not lines[0].startswith("rocescope: ")):
            problems.append("no `rocescope: ...` error line")
        if err is not None and err not in r.stderr:
            problems.append(f"stderr lacks {err!r}")
        if check is not None and not problems:
            try:
                if not check(r.stdout):
                    problems.append("wrong output")
            except (ValueError, KeyError) as e:
                problems.append(f"output check raised {e!r}")
        if problems:
            failures.append(f"{what}: {'; '.join(problems)}; stderr: {r.stderr.strip()[:300]}")

    good = os.path.join(a.captures, "uc.pcap")

    # numeric options: every bad value, as two arguments and as --opt=VALUE (-oVALUE)
    for k, (opt, bads) in enumerate(NUMERIC.items()):
        want = f"rocescope: {MESSAGE_NAME.get(opt, opt)}: invalid value"
        values = [(v, True, True) for v in bads]
        if a.sample:  # garbage value j on option k when j + k is a multiple of 3, one form
            values += [(v, j % 2 == 0, j % 2 == 1) for j, v in enumerate(GARBAGE)
                       if (j + k) % 3 == 0]
        else:
            values += [(v, True, True) for v in GARBAGE]
        for v, apart, joined in values:
            if apart or not (opt.startswith("--") or v):
                case(f"{opt} {v[:20]!r}", [opt, v, good], 2, want)
            if joined and opt.startswith("--"):
                case(f"{opt}={v[:20]!r}", [f"{opt}={v}", good], 2, want)
            elif joined and v:
                case(f"{opt}{v[:20]!r}", [f"{opt}{v}", good], 2, want)
    # the DCQCN thresholds must be in order (reacted <= ignored)
    case("--dcqcn-reacted above --dcqcn-ignored", ["--dcqcn-reacted", "96", good], 2,
         "rocescope: --dcqcn-reacted: 96 is above --dcqcn-ignored (95)")
    case("--dcqcn-ignored below --dcqcn-reacted", ["--dcqcn-ignored", "50", good], 2,
         "rocescope: --dcqcn-reacted: 85 is above --dcqcn-ignored (50)")
    # (getopt_long takes unambiguous prefixes: --jso is --json, not an error)
    for args in (["-x", good], ["---json", good], ["--json=1", good], ["-o"], ["--top"],
                 ["--events", "--json", good]):
        case(f"usage {args}", args, 2)

    # special files
    fifo = os.path.join(tmp, "fifo")
    os.mkfifo(fifo)
    loop = os.path.join(tmp, "loop")
    os.symlink(loop, loop)
    for what, path, err in [("FIFO", fifo, None), ("/dev/zero", "/dev/zero", None),
                            ("/dev/null", "/dev/null", None),
                            ("symlink loop", loop, "Too many levels of symbolic links"),
                            ("name too long", "x" * 5000, "File name too long"),
                            ("stdin as '-'", "-", None)]:
        case(what, [path], 1, err)

    # capture files that are odd or lie
    eth = b"\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00" + b"\x45" + b"\0" * 45
    odd = {
        "header only (no frames)": (pcap(1, []), 0),
        "one byte": (b"\xd4", 1),
        "pcap header cut": (pcap(1, [])[:20], 1),
        "record header cut": (pcap(1, [(1, eth, len(eth))])[:30], 1),
        "record claims 4 GiB": (pcap(1, [])[:24] + struct.pack("<IIII", 1, 0, 0xFFFFFFF0, 0xFFFFFFF0)
                                + eth, 1),
        "original length below captured": (pcap(1, [(1, eth, 1)]), 0),
        "snaplen 0 in the header": (pcap(1, [(1, eth, len(eth))], snaplen=0), 0),
        "big-endian pcap": (PCAP_US_BE + struct.pack(">HHiIII", 2, 4, 0, 0, 65535, 1)
                            + struct.pack(">IIII", 1, 0, len(eth), len(eth)) + eth, 0),
        "pcapng section header only": (b"\x0a\x0d\x0d\x0a" + struct.pack("<I", 28) +
                                       b"\x4d\x3c\x2b\x1a" + struct.pack("<HHq", 1, 0, -1) +
                                       struct.pack("<I", 28), 1),
        "zero-length frames": (pcap(1, [(1, b"", 0), (2, b"", 60)]), 0),
    }
    for what, (data, status) in odd.items():
        case(what, ["--json", put(what.replace(" ", "_") + ".pcap", data)], status,
             check=lambda o: json.loads(o)["capture"]["packets"] >= 0 if o else True)
    for lt in (0, 105, 147, 65535, 0x7FFFFFFF):
        case(f"link type {lt}", [put(f"lt{lt}.pcap", pcap(lt, [(1, eth, len(eth))]))], 1,
             "unsupported link type")
    many = [good] * 300
    case("the same file 300 times", ["--json", *many], 0,
         check=lambda o: json.loads(o)["capture"]["packets"] % 300 == 0)
    for threads in ("1", "2"):
        shrinking(tool, tmp, good, threads, failures)

    # output that cannot be written: stdout is /dev/full, -o names a directory
    try:
        with open("/dev/full", "wb") as full:
            r = checks.run(["sh", "-c", f'exec "$0" "$@" >/dev/full', tool, "--json", good],
                           TIMEOUT_S)
        if r.status != 3 or "rocescope: stdout: " not in r.stderr:
            failures.append(f"stdout on /dev/full: exit {r.status}: {r.stderr.strip()[:200]}")
    except OSError as e:  # Linux always has it: a check that cannot run is a failure
        failures.append(f"stdout on /dev/full: cannot run the check: {e}")
    case("-o names a directory", ["--json", "-o", tmp, good], 3)
    leftovers = [n for n in os.listdir(tmp) if ".tmp" in n]
    if leftovers:
        failures.append(f"-o left {leftovers}")

    # permissions, as an unprivileged user (root reads and writes anything)
    secret = put("secret.pcap", pcap(1, [(1, eth, len(eth))]))
    os.chmod(secret, 0)
    locked = os.path.join(tmp, "locked")
    os.mkdir(locked, 0o555)
    prefix, mine, mine_good = (), tool, good
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:  # util-linux, on every Debian: its absence is a failure
            failures.append("root without setpriv: the permission cases cannot run")
            prefix = None
        else:
            prefix = (setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups")
            # the build tree may sit where that user cannot go: copies in the open folder
            mine, mine_good = os.path.join(tmp, "rocescope"), os.path.join(tmp, "good.pcap")
            shutil.copy(tool, mine)
            shutil.copy(good, mine_good)
    if prefix is not None:
        def as_user(what, args, status, err, **kw):
            case(what, args, status, err, prefix=prefix, binary=mine, **kw)
        as_user("unreadable file", [secret], 1, "Permission denied")
        # the path once: libpcap's error text already starts with it (fixed in 7e3c3fc)
        as_user("unreadable file, message", [secret], 1, f"rocescope: {secret}: Permission denied")
        as_user("unreadable file among good ones", ["--json", mine_good, secret], 1,
                "Permission denied")
        as_user("-o into a read-only directory",
                ["--json", "-o", os.path.join(locked, "r.json"), mine_good], 3, "Permission denied")
        if os.listdir(locked):
            failures.append(f"-o left {os.listdir(locked)} in a read-only directory")

    # rocescope(1) EXIT STATUS: `"complete": false` and `"error"` in the report when a file
    # among others cannot be read (fixed in 7e3c3fc)
    case("missing file among good ones: the report says so", ["--json", good, "/nonexistent"], 1,
         check=lambda o: json.loads(o)["capture"]["complete"] is False
         and json.loads(o)["capture"]["error"])

    # -o writes a temporary file and renames it; the report gets the mode `> FILE` would
    # give, not mkstemp's 0600 (fixed in 7e3c3fc)
    mode_out = os.path.join(tmp, "mode.json")
    old_umask = os.umask(0o022)
    case("-o file mode follows the umask", ["--json", "-o", mode_out, good], 0,
         check=lambda o: stat.S_IMODE(os.stat(mode_out).st_mode) == 0o644)
    os.umask(old_umask)

    os.chmod(locked, 0o755)
    shutil.rmtree(tmp, ignore_errors=True)
    return checks.finish(failures, f"CLI abuse{' (open bugs)' if a.open else ''}")


if __name__ == "__main__":
    sys.exit(main())
