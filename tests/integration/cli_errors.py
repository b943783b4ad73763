#!/usr/bin/env python3
"""Bad use of the CLI: every case gives a clear `rocescope: what: why`
message, one line per problem (and the --help line after a usage error:
error_lines.py), and the documented exit status (0 ok, 1 input problem, 2
usage, 3 output), and -o never leaves a file written half-way.

The capture files are made here from bytes (classic pcap, microsecond and
nanosecond magic), so this test needs nothing but the binary.
"""
import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile

import error_lines

PCAP_US = 0xA1B2C3D4
PCAP_NS = 0xA1B23C4D
LINKTYPE_ETHERNET = 1
LINKTYPE_USER0 = 147


def pcap_bytes(records, linktype=LINKTYPE_ETHERNET, magic=PCAP_NS):
    out = struct.pack("<IHHiIII", magic, 2, 4, 0, 0, 65535, linktype)
    for ts, data in records:
        out += struct.pack("<IIII", ts, 0, len(data), len(data)) + data
    return out


def frame(n):
    """An Ethernet frame with an IPv4/UDP header to port 9 (not RoCE)."""
    eth = b"\x02\x00\x00\x00\x00\x02" + b"\x02\x00\x00\x00\x00\x01" + b"\x08\x00"
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 28 + 4, n, 0, 64, 17, 0,
                     bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    udp = struct.pack("!HHHH", 1234, 9, 12, 0)
    return eth + ip + udp + b"ABCD"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rocescope", required=True)
    a = ap.parse_args()
    tool = a.rocescope
    failures = []
    tmp = tempfile.mkdtemp(prefix="rocescope-cli-")

    def path(name, data=None):
        p = os.path.join(tmp, name)
        if data is not None:
            with open(p, "wb") as f:
                f.write(data)
        return p

    def case(what, args, status, stderr_has=None, stdout_check=None, errors=1):
        p = subprocess.run([tool, *args], capture_output=True, text=True, timeout=60)
        ok = p.returncode == status
        if stderr_has is not None and stderr_has not in p.stderr:
            ok = False
        lines = error_lines.problem(p.stderr, p.returncode, errors)
        if lines:
            ok = False
            p.stderr += f"\n({lines})"
        if ok and stdout_check is not None:
            try:
                ok = stdout_check(p.stdout)
            except Exception as e:  # a broken report is a failure, not a crash of the test
                ok = False
                p.stderr += f"\n(check raised {e!r})"
        if not ok:
            failures.append(f"{what}: exit {p.returncode} (want {status}); stderr: {p.stderr.strip()[:300]}")

    good = path("good.pcap", pcap_bytes([(1, frame(1)), (2, frame(2)), (3, frame(3))]))
    good_us = path("good_us.pcap", pcap_bytes([(1, frame(1))], magic=PCAP_US))
    full = pcap_bytes([(1, frame(1)), (2, frame(2)), (3, frame(3))])
    cut = path("cut.pcap", full[:len(full) - 7])
    empty = path("empty.pcap", b"")
    text = path("notes.txt", b"this is not a capture file\n" * 10)
    user0 = path("user0.pcap", pcap_bytes([(1, frame(1))], linktype=LINKTYPE_USER0))
    unreadable = path("unreadable.pcap", full)
    os.chmod(unreadable, 0)
    missing = path("does-not-exist.pcap")

    def json_packets(n, complete=True):
        def check(out):
            r = json.loads(out)
            return r["capture"]["packets"] == n and r["capture"]["complete"] == complete
        return check

    case("good file", ["--json", good], 0, stdout_check=json_packets(3))
    case("microsecond pcap", ["--json", good_us], 0, stdout_check=json_packets(1))
    case("text summary", [good], 0, stdout_check=lambda o: o.startswith("rocescope report:"))
    # no file is a capture: no report at all (the manual page, EXIT STATUS 1)
    nothing = lambda o: o == ""  # noqa: E731
    case("missing file", [missing], 1, f"rocescope: {missing}: No such file or directory",
         nothing)
    case("empty file", [empty], 1, f"rocescope: {empty}: empty file", nothing)
    case("empty file, JSON", ["--json", empty], 1, f"rocescope: {empty}: empty file", nothing)
    case("not a capture", [text], 1, f"rocescope: {text}: ", nothing)
    case("directory", [tmp], 1, f"rocescope: {tmp}: is a directory")
    case("unsupported link type", [user0], 1, "unsupported link type")
    if os.geteuid() != 0:  # root reads anything
        case("unreadable file", [unreadable], 1, "Permission denied")
    case("file cut short: report of what was read, plus the error",
         ["--json", cut], 1, f"rocescope: {cut}: ", json_packets(2, complete=False))
    case("one bad file among good ones: a report marked incomplete", ["--json", good, missing], 1,
         "No such file", json_packets(3, complete=False))
    case("two bad files: two error lines", ["--json", good, missing, empty], 1, "empty file",
         json_packets(3, complete=False), errors=2)
    case("no file", [], 2, "no capture file given")
    case("unknown option", ["--frobnicate", good], 2, "unknown option '--frobnicate'")
    case("missing value", [good, "--udp-port"], 2, "needs a value")
    case("json and events", ["--json", "--events", good], 2, "exclude each other")
    for opt, bad in [("--udp-port", "-1"), ("--udp-port", "0"), ("--udp-port", "65536"),
                     ("--udp-port", "47x"), ("--udp-port", ""), ("--udp-port", " 4791"),
                     ("--cnp-window", "-5"), ("--cnp-window", "99999999999999999999999"),
                     ("--cnp-window", "1e3"), ("--pmtu", "1000"), ("--pmtu", "8192"),
                     ("--max-flows", "3"), ("--max-flows", "18446744073709551616"),
                     ("--max-flows", "+10"), ("--top", "0"), ("--top", "ten")]:
        case(f"{opt} {bad!r}", [opt, bad, good], 2, f"rocescope: {opt}: invalid value")
    for bad in ["0", "65536", "x", "1.2.3.4", "1.2.3.4:", ":80", "[::1]80", "::1:80",
                "localhost:80", "1.2.3.400:80", "[::1:80", "9100 "]:
        case(f"--listen {bad!r}", ["-i", "lo", "--listen", bad], 2,
             "rocescope: --listen: invalid value")
    case("--listen needs -i", ["--listen", "9100", good], 2, "--listen needs -i")
    case("-q needs -i", ["-q", good], 2, "-q needs -i")
    case("--rotate-size needs --events and -o", ["-i", "lo", "--rotate-size", "1"], 2,
         "--rotate-size needs --events and -o")
    case("--rotate-count 0", ["-i", "lo", "--rotate-count", "0"], 2,
         "rocescope: --rotate-count: invalid value")
    case("-Z with a user that does not exist", ["-i", "lo", "-Z", "no-such-user-rocescope"], 2,
         "rocescope: -Z: invalid value 'no-such-user-rocescope'")
    case("-j and -i", ["-j", "2", "-i", "lo"], 2, "-j needs capture files")
    report = path("report-good.json")
    with open(report, "w", encoding="utf-8") as f:
        f.write(subprocess.run([tool, "--json", good], capture_output=True, text=True,
                               timeout=60).stdout)
    notreport = path("notreport.json", b'{"hello": "world"}\n')
    case("merge: not a report", ["merge", notreport], 1,
         f"rocescope: {notreport}: not a rocescope JSON report")
    partial = path("partial.json")
    with open(partial, "w", encoding="utf-8") as f:
        f.write(subprocess.run([tool, "--json", cut], capture_output=True, text=True,
                               timeout=60).stdout)
    case("merge: an incomplete report: merged, exit 1, one line saying so",
         ["merge", "--json", report, partial], 1,
         f"rocescope: {partial}: an incomplete report (", json_packets(5, complete=False))
    case("merge: no report", ["merge"], 2, "rocescope: merge: no report given")
    case("--help", ["--help"], 0, stdout_check=lambda o: "Usage: rocescope" in o)
    case("--version", ["--version"], 0, stdout_check=lambda o: o.startswith("rocescope "))

    out = path("report.json")
    case("-o writes the report", ["--json", "-o", out, good], 0)
    try:
        with open(out, encoding="utf-8") as f:
            if json.load(f)["capture"]["packets"] != 3:
                failures.append("-o: wrong content")
    except (OSError, ValueError) as e:
        failures.append(f"-o: {e}")
    leftovers = [n for n in os.listdir(tmp) if ".tmp." in n]
    if leftovers:
        failures.append(f"-o left temporary files: {leftovers}")
    case("-o into a missing directory", ["--json", "-o", os.path.join(tmp, "no", "r.json"), good], 3,
         "No such file or directory")
    before = set(os.listdir(tmp))
    case("-o with only bad input writes nothing", ["--json", "-o", path("nothing.json"), missing], 1)
    if set(os.listdir(tmp)) != before:
        failures.append(f"-o with bad input left {set(os.listdir(tmp)) - before}")

    # --html PATH: written beside the report, through the same safe replacement
    page = path("page.html")
    case("--html writes the page and the summary", ["--html", page, good], 0,
         stdout_check=lambda o: o.startswith("rocescope report:"))
    try:
        with open(page, encoding="utf-8") as f:
            html = f.read()
        if not html.startswith("<!DOCTYPE html>") or not html.rstrip().endswith("</html>"):
            failures.append("--html: not a whole page")
    except OSError as e:
        failures.append(f"--html: {e}")
    case("--html - without -o", ["--html", "-", good], 2, "standard output carries the report")
    case("--html and -o the same file", ["--html", page, "-o", page, good], 2, "name the same file")
    case("--html - with -o", ["--html", "-", "-o", path("r2.json"), "--json", good], 0,
         stdout_check=lambda o: o.startswith("<!DOCTYPE html>"))
    case("--html into a missing directory", ["--html", os.path.join(tmp, "no", "p.html"), good], 3,
         "No such file or directory")
    before = set(os.listdir(tmp))
    case("--html with only bad input writes nothing", ["--html", path("nothing.html"), missing], 1)
    case("--html with -j and bad input writes nothing",
         ["-j", "2", "--html", path("nothing.html"), missing, missing], 1, errors=2)
    if set(os.listdir(tmp)) != before:
        failures.append(f"--html with bad input left {set(os.listdir(tmp)) - before}")
    # --annotate PATH: the same rules, and the capture files read again
    case("--annotate - without -o", ["--annotate", "-", good], 2,
         "standard output carries the report")
    case("--annotate and -o the same file", ["--annotate", page, "-o", page, good], 2,
         "name the same file")
    case("--annotate over its input", ["--annotate", good, "-o", os.devnull, good], 3,
         "an input of this run: not written onto")
    case("--annotate into a missing directory",
         ["--annotate", os.path.join(tmp, "no", "a.pcapng"), good], 3, "No such file or directory")
    fifo = os.path.join(tmp, "fifo")
    os.mkfifo(fifo)  # standard input is kept for it (the annotate test); a named pipe is not
    case("--annotate of a named pipe", ["--annotate", path("s.pcapng"), fifo], 2,
         f"{fifo} cannot be")
    os.unlink(fifo)
    before = set(os.listdir(tmp))
    case("--annotate with only bad input writes nothing",
         ["--annotate", path("nothing.pcapng"), missing], 1)
    if set(os.listdir(tmp)) != before:
        failures.append(f"--annotate with bad input left {set(os.listdir(tmp)) - before}")
    case("merge --html - without -o", ["merge", "--html", "-", out], 2,
         "standard output carries the report")
    case("merge --html", ["merge", "--html", path("merged.html"), out], 0)
    case("localize --html and -o the same file",
         ["localize", "--html", page, "-o", page, good, good_us], 2, "name the same file")

    for f in failures:
        print("FAIL:", f)
    print(f"CLI error handling: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
