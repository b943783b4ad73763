#!/usr/bin/env python3
"""Files rocescope writes never replace what is not a regular file.

`-o PATH`, `--html PATH` and `--annotate PATH` (and `rocescope merge -o`, `merge --html`,
`rocescope localize -o`) write a temporary file and rename it over PATH. That is
only right for a regular file or a missing path: renamed over a device or a FIFO
it destroys it (`rocescope --json -o /dev/null x.pcap` once replaced a
machine's /dev/null). Checked here, as root and as an unprivileged user
(setpriv, uid 65534), for every one of these commands:
  - a character device (made with mknod in a scratch folder, never /dev/null
    itself) stays that device, and the output goes into it;
  - a FIFO stays a FIFO, and a reader gets the whole report through it;
  - a symbolic link to a regular file stays a link, the file it points to is
    replaced and keeps its mode;
  - a link to nothing creates the file it names;
  - a regular file is replaced and keeps its mode; a new file gets the umask's;
  - "-" is stdout; a folder is refused (exit 3) and left alone;
  - nothing but the output is left in the folder.
The live monitor's --prometheus-file and -w follow the same rule (tests/live).
"""
import argparse
import hashlib
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time

NOBODY = 65534
TIMEOUT_S = 30
# a classic pcap file header (little-endian, microseconds, Ethernet): the
# signal test writes it and then makes the run wait for the first record
PCAP_HEADER = bytes.fromhex("d4c3b2a1020004000000000000000000ffff000001000000")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rocescope", required=True)
    ap.add_argument("--captures", required=True)
    a = ap.parse_args()
    failures = []
    root = os.geteuid() == 0
    base = tempfile.mkdtemp(prefix="rocescope-outsafe-")
    os.chmod(base, 0o755)
    tool = os.path.join(base, "rocescope")
    shutil.copy(a.rocescope, tool)
    cap = os.path.join(base, "loss_receiver.pcap")
    shutil.copy(os.path.join(a.captures, "loss_receiver.pcap"), cap)
    os.chmod(cap, 0o644)
    taps = []
    for name in ("tap_a.pcap", "tap_b.pcap"):
        taps.append(os.path.join(base, name))
        shutil.copy(os.path.join(a.captures, "localize", name), taps[-1])
        os.chmod(taps[-1], 0o644)
    report = os.path.join(base, "report.json")
    subprocess.run([tool, "--json", "-o", report, cap], check=True, timeout=TIMEOUT_S)
    os.chmod(report, 0o644)

    users = [("caller", ())]
    if root:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            failures.append("root without setpriv: the unprivileged cases cannot run")
        else:
            users.append(("uid 65534", (setpriv, f"--reuid={NOBODY}", f"--regid={NOBODY}",
                                        "--clear-groups")))

    commands = {
        "-o": lambda out: [tool, "--json", "-o", out, cap],
        "merge -o": lambda out: [tool, "merge", "--json", "-o", out, report],
        "localize -o": lambda out: [tool, "localize", "--json", "-o", out, *taps],
        "--html": lambda out: [tool, "--html", out, "-o", os.devnull, cap],
        "merge --html": lambda out: [tool, "merge", "--html", out, "-o", os.devnull, report],
        "--annotate": lambda out: [tool, "--annotate", out, "-o", os.devnull, cap],
    }

    def run(prefix, argv, stdin=None):
        r = subprocess.run([*prefix, *argv], capture_output=True, timeout=TIMEOUT_S)
        r.stderr = r.stderr.decode(errors="replace")
        return r

    def rm(p):
        if os.path.lexists(p):
            os.unlink(p)

    def is_report(data):
        if data.startswith(b"\x0a\x0d\x0d\x0a"):  # --annotate: a pcapng section header
            return b"rocescope " in data[:512] and len(data) > 512
        text = data.decode(errors="replace")
        if text.startswith("<!DOCTYPE html>"):  # --html: a whole page
            return "<h1>rocescope report</h1>" in text and text.rstrip().endswith("</html>")
        try:
            return json.loads(text)["tool"] == "rocescope"
        except (ValueError, KeyError, TypeError):
            return False

    for who, prefix in users:
        for name, cmd in commands.items():
            tag = f"{name} as {who}"
            d = tempfile.mkdtemp(dir=base)
            os.chmod(d, 0o777)

            def check_alone(expected):
                extra = set(os.listdir(d)) - set(expected)
                if extra:
                    failures.append(f"{tag}: left {sorted(extra)}")

            # a character device: stays one (made here, only root can)
            if root:
                dev = os.path.join(d, "null")
                os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
                os.chmod(dev, 0o666)
                r = run(prefix, cmd(dev))
                st = os.lstat(dev)
                if r.returncode != 0:
                    failures.append(f"{tag} on a device: exit {r.returncode}: {r.stderr.strip()}")
                if not stat.S_ISCHR(st.st_mode) or st.st_rdev != os.makedev(1, 3):
                    failures.append(f"{tag}: the device was replaced")
                check_alone(["null"])
                rm(dev)

            # a FIFO: stays one, and its reader gets the report
            fifo = os.path.join(d, "fifo")
            os.mkfifo(fifo, 0o666)
            os.chmod(fifo, 0o666)
            got = {}

            def reader():
                with open(fifo, "rb") as f:
                    got["text"] = f.read()
            t = threading.Thread(target=reader, daemon=True)
            t.start()
            r = run(prefix, cmd(fifo))
            t.join(TIMEOUT_S)
            if r.returncode != 0:
                failures.append(f"{tag} on a FIFO: exit {r.returncode}: {r.stderr.strip()}")
            if not stat.S_ISFIFO(os.lstat(fifo).st_mode):
                failures.append(f"{tag}: the FIFO was replaced")
            if not is_report(got.get("text", b"")):
                failures.append(f"{tag}: the FIFO's reader did not get the report")
            check_alone(["fifo"])
            rm(fifo)

            # a link to a regular file: the link stays, the file is replaced, its mode kept
            target = os.path.join(d, "target.json")
            with open(target, "w") as f:
                f.write("old\n")
            os.chmod(target, 0o640 if not prefix else 0o666)
            mode = stat.S_IMODE(os.stat(target).st_mode)
            link = os.path.join(d, "link.json")
            os.symlink("target.json", link)
            r = run(prefix, cmd(link))
            if r.returncode != 0:
                failures.append(f"{tag} on a link: exit {r.returncode}: {r.stderr.strip()}")
            if not os.path.islink(link) or os.readlink(link) != "target.json":
                failures.append(f"{tag}: the link was replaced")
            with open(target, "rb") as f:
                if not is_report(f.read()):
                    failures.append(f"{tag}: the link's target does not hold the report")
            if stat.S_IMODE(os.stat(target).st_mode) != mode:
                failures.append(f"{tag}: the link's target lost its mode {mode:o}")
            check_alone(["target.json", "link.json"])

            # a regular file keeps its mode
            rm(link)
            r = run(prefix, cmd(target))
            if r.returncode != 0 or stat.S_IMODE(os.stat(target).st_mode) != mode:
                failures.append(f"{tag}: a regular file was not replaced keeping its mode")
            rm(target)

            # a link to nothing is refused: it never makes the file it names
            dangling = os.path.join(d, "dangling.json")
            os.symlink("made.json", dangling)
            r = run(prefix, cmd(dangling))
            made = os.path.join(d, "made.json")
            if (r.returncode != 3 or "symbolic link to nothing" not in r.stderr
                    or not os.path.islink(dangling) or os.path.lexists(made)):
                failures.append(f"{tag}: a link to nothing: exit {r.returncode} "
                                f"({r.stderr.strip()}), link kept {os.path.islink(dangling)}, "
                                f"file made {os.path.lexists(made)}")
            check_alone(["dangling.json"])
            rm(dangling)

            # a link to a FIFO (or a device) is not written through, nor waited on
            fifo = os.path.join(d, "fifo")
            os.mkfifo(fifo, 0o666)
            os.symlink("fifo", os.path.join(d, "fifolink"))
            r = run(prefix, cmd(os.path.join(d, "fifolink")))
            if r.returncode != 3 or "a symbolic link to a device or FIFO" not in r.stderr:
                failures.append(f"{tag}: a link to a FIFO: exit {r.returncode}: "
                                f"{r.stderr.strip()}")
            check_alone(["fifo", "fifolink"])
            rm(fifo)
            rm(os.path.join(d, "fifolink"))

            # "-" is stdout
            r = run(prefix, cmd("-"))
            if r.returncode != 0 or not is_report(r.stdout):
                failures.append(f"{tag}: '-' did not write the report on stdout")
            check_alone([])

            # a folder is refused and left alone
            sub = os.path.join(d, "folder")
            os.mkdir(sub)
            os.chmod(sub, 0o777)
            r = run(prefix, cmd(sub))
            if r.returncode != 3 or not r.stderr.startswith("rocescope: "):
                failures.append(f"{tag} on a folder: exit {r.returncode}: {r.stderr.strip()}")
            if not os.path.isdir(sub) or os.listdir(sub):
                failures.append(f"{tag}: the folder was changed")
            check_alone(["folder"])

    hostile_paths(tool, cap, taps, report, base, failures)
    shutil.rmtree(base, ignore_errors=True)
    for f in failures:
        print("FAIL:", f)
    print(f"output safety: {len(failures)} failures ({', '.join(u for u, _ in users)})")
    return 1 if failures else 0


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def leftovers(d):
    """The temporary files (*.tmp.XXXXXX) left in folder d."""
    return sorted(n for n in os.listdir(d) if ".tmp." in n)


def run_sh(script, *args, stdin=None):
    """Run script with sh -c (its $0, $1... are args): redirections the
    test needs, such as a closed descriptor."""
    return subprocess.run(["sh", "-c", script, *args], capture_output=True, text=True,
                          stdin=stdin, timeout=TIMEOUT_S)


def hostile_paths(tool, cap, taps, report, base, failures):
    """Issue 26, item 3: what a careless operator or a hostile folder tries."""
    d = tempfile.mkdtemp(dir=base)
    orig = {p: sha(p) for p in (cap, report, *taps)}

    def refused(tag, argv, status, words, stdin=None):
        r = subprocess.run(argv, capture_output=True, text=True, stdin=stdin, timeout=TIMEOUT_S)
        if r.returncode != status or words not in r.stderr:
            failures.append(f"{tag}: exit {r.returncode} (expected {status}, '{words}'): "
                            f"{r.stderr.strip()[:300]}")
        return r

    def inputs_intact(tag):
        for p, h in orig.items():
            if not os.path.isfile(p) or os.path.islink(p) or sha(p) != h:
                failures.append(f"{tag}: the input {os.path.basename(p)} was changed")
        for folder in (base, d):
            if leftovers(folder):
                failures.append(f"{tag}: left {leftovers(folder)}")

    # never onto an input: its own name, another name, a hard link, a symbolic link
    hard = os.path.join(d, "hard.pcap")
    os.link(cap, hard)
    sym = os.path.join(d, "sym.pcap")
    os.symlink(cap, sym)
    alias = os.path.join(d, "..", os.path.basename(cap))
    for name, out in [("its name", cap), ("another name", alias), ("a hard link", hard),
                      ("a symbolic link", sym)]:
        refused(f"-o onto the input by {name}", [tool, "--json", "-o", out, cap], 3,
                "not written onto")
        refused(f"--html onto the input by {name}", [tool, "--html", out, cap], 3,
                "not written onto")
        inputs_intact(f"onto the input by {name}")
        if not os.path.islink(sym) or os.stat(hard).st_ino != os.stat(cap).st_ino:
            failures.append(f"onto the input by {name}: a link was replaced")
    refused("-o onto the input read through a link", [tool, "-o", cap, sym], 3,
            "not written onto")
    with open(cap, "rb") as f:
        refused("-o onto standard input's file", [tool, "-o", cap, "-"], 3, "not written onto",
                stdin=f)
    r = run_sh('exec "$0" "$1" >>"$1"', tool, cap)
    if r.returncode != 3 or "standard output is an input" not in r.stderr:
        failures.append(f"standard output appended to the input: exit {r.returncode}: "
                        f"{r.stderr.strip()}")
    refused("merge -o onto a report merged", [tool, "merge", "--json", "-o", report, report], 3,
            "not written onto")
    refused("merge --html onto a report merged",
            [tool, "merge", "--html", report, "-o", os.devnull, report], 3, "not written onto")
    refused("localize -o onto a capture", [tool, "localize", "--json", "-o", taps[1], *taps], 3,
            "not written onto")
    refused("localize -o onto a NAME=FILE capture",
            [tool, "localize", "--json", "-o", taps[0], "a=" + taps[0], "b=" + taps[1]], 3,
            "not written onto")
    inputs_intact("onto an input")

    # one file named twice through links: refused before anything is written
    page = os.path.join(d, "page.html")
    with open(page, "w") as f:
        f.write("old\n")
    plink = os.path.join(d, "page-link.html")
    os.symlink("page.html", plink)
    phard = os.path.join(d, "page-hard.html")
    os.link(page, phard)
    for name, other in [("a symbolic link", plink), ("a hard link", phard),
                        ("another name", os.path.join(d, ".", "page.html"))]:
        refused(f"-o and --html the same file by {name}",
                [tool, "--html", page, "-o", other, cap], 2, "name the same file")
        refused(f"merge -o and --html the same file by {name}",
                [tool, "merge", "--html", other, "-o", page, report], 2, "name the same file")
        with open(page) as f:
            if f.read() != "old\n":
                failures.append(f"the same file by {name}: it was written")
    refused("live -o and --prometheus-file the same file by a link",
            [tool, "-i", "lo", "-o", page, "--prometheus-file", plink], 2, "name the same file")
    refused("live --html and -w the same file by another name",
            [tool, "-i", "lo", "-w", page, "--html", os.path.join(d, ".", "page.html"),
             "-o", os.devnull], 2, "name the same file")
    r = subprocess.run([tool, "--html", os.devnull, "-o", os.devnull, cap], capture_output=True,
                       text=True, timeout=TIMEOUT_S)
    if r.returncode != 0:  # a device is not one file: it takes both
        failures.append(f"--html and -o both /dev/null: exit {r.returncode}: {r.stderr.strip()}")
    new = os.path.join(d, "new.html")
    refused("-o and --html the same new file", [tool, "--html", new, "-o",
                                                os.path.join(d, ".", "new.html"), cap], 2,
            "name the same file")
    if os.path.lexists(new):
        failures.append("the same new file twice: it was made")

    # /dev/stdout leads to the run's own standard output: written into
    r = subprocess.run([tool, "--json", "-o", "/dev/stdout", cap], capture_output=True,
                       text=True, timeout=TIMEOUT_S)
    if r.returncode != 0 or '"tool": "rocescope"' not in r.stdout.replace('":"', '": "'):
        failures.append(f"-o /dev/stdout on a pipe: exit {r.returncode}: {r.stderr.strip()}")

    signals_remove_temporaries(tool, d, failures)
    full_file_system(tool, cap, d, failures)
    closed_descriptors(tool, cap, d, failures)
    option_values(tool, cap, report, taps, d, failures)
    names_escaped(tool, cap, taps, d, failures)
    inputs_intact("all cases")


def signals_remove_temporaries(tool, d, failures):
    """SIGINT, SIGTERM, SIGHUP, SIGPIPE while the outputs are open: the run
    ends by the signal, the temporary files go with it, the old file stays."""
    fifo = os.path.join(d, "input.fifo")
    os.mkfifo(fifo)
    out, page = os.path.join(d, "sig.json"), os.path.join(d, "sig.html")
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE):
        tag = f"{signal.Signals(sig).name} while writing"
        with open(out, "w") as f:
            f.write("old\n")
        # a writer held open: the run waits for the capture's bytes
        w = os.open(fifo, os.O_RDWR)
        p = subprocess.Popen([tool, "--json", "-o", out, "--html", page, fifo],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + TIMEOUT_S
        while len(leftovers(d)) < 2 and time.monotonic() < deadline and p.poll() is None:
            time.sleep(0.02)
        made = leftovers(d)
        os.write(w, PCAP_HEADER)  # the run is reading now, inside the analysis
        time.sleep(0.2)
        p.send_signal(sig)
        try:
            p.wait(TIMEOUT_S)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        os.close(w)
        err = p.stderr.read().decode(errors="replace")
        p.stderr.close()
        if len(made) != 2:
            failures.append(f"{tag}: the temporary files were not there to test ({made}, "
                            f"exit {p.returncode}: {err.strip()})")
        if p.returncode != -sig:
            failures.append(f"{tag}: exit {p.returncode}, not ended by the signal: {err.strip()}")
        if leftovers(d):
            failures.append(f"{tag}: left {leftovers(d)}")
        with open(out) as f:
            if f.read() != "old\n":
                failures.append(f"{tag}: the old file was changed")
        if os.path.lexists(page):
            failures.append(f"{tag}: the page was made")
    os.unlink(fifo)
    os.unlink(out)


def full_file_system(tool, cap, d, failures):
    """A write that fails (a full file system: a small tmpfs, as root; /dev/full
    in any case): exit 3, the old file untouched, no partial file, also behind
    a symbolic link."""
    r = subprocess.run([tool, "--json", "-o", "/dev/full", cap], capture_output=True, text=True,
                       timeout=TIMEOUT_S)
    if r.returncode != 3 or not r.stderr.startswith("rocescope: /dev/full: "):
        failures.append(f"-o /dev/full: exit {r.returncode}: {r.stderr.strip()}")
    if os.geteuid() != 0 or shutil.which("mount") is None:
        print("output safety: not root: the full file system is /dev/full only")
        return
    mnt = os.path.join(d, "small")
    os.mkdir(mnt)
    m = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=128k,mode=0755", "tmpfs", mnt],
                       capture_output=True, text=True)
    if m.returncode != 0:
        print(f"output safety: cannot mount a tmpfs ({m.stderr.strip()}): /dev/full only")
        os.rmdir(mnt)
        return
    try:
        old = os.path.join(mnt, "report.json")
        with open(old, "w") as f:
            f.write("old\n")
        link = os.path.join(d, "to-small.json")
        os.symlink(old, link)
        try:  # fill it
            with open(os.path.join(mnt, "filler"), "wb") as f:
                while True:
                    f.write(b"\0" * 4096)
                    f.flush()
        except OSError:
            pass
        for what, argv in [("-o", [tool, "--json", "-o", old, cap]),
                           ("-o through a link", [tool, "--json", "-o", link, cap]),
                           ("--html", [tool, "--html", old, cap])]:
            r = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT_S)
            if r.returncode != 3 or "rocescope: " not in r.stderr:
                failures.append(f"full file system, {what}: exit {r.returncode}: "
                                f"{r.stderr.strip()}")
            with open(old) as f:
                if f.read() != "old\n":
                    failures.append(f"full file system, {what}: the old file was changed")
            if sorted(os.listdir(mnt)) != ["filler", "report.json"]:
                failures.append(f"full file system, {what}: left {sorted(os.listdir(mnt))}")
        os.unlink(link)
    finally:
        subprocess.run(["umount", mnt], check=False)
        os.rmdir(mnt)


def closed_descriptors(tool, cap, d, failures):
    """Descriptors 0-2 closed at the start are /dev/null: no file the run opens
    becomes its standard error (the error text in the JSON report) or output."""
    out = os.path.join(d, "closed.json")
    missing = os.path.join(d, "missing.pcap")
    r = run_sh('exec "$0" "$@" 2>&-', tool, "--json", "-o", out, missing, cap)
    try:
        with open(out) as f:
            text = f.read()
        json.loads(text)
        if "rocescope: " in text or r.returncode != 1:
            failures.append(f"stderr closed: exit {r.returncode}, the error in the report")
    except (OSError, ValueError) as e:
        failures.append(f"stderr closed: the report is not JSON ({e})")
    r = run_sh('exec "$0" "$@" >&-', tool, "--json", "-o", out, cap)
    try:
        with open(out) as f:
            json.loads(f.read())
        if r.returncode != 0:
            failures.append(f"stdout closed: exit {r.returncode}: {r.stderr.strip()}")
    except (OSError, ValueError) as e:
        failures.append(f"stdout closed: the report is not JSON ({e})")
    r = run_sh('exec "$0" "$@" <&-', tool, "--json", "-o", out, "-")
    if r.returncode != 1 or "empty input" not in r.stderr:
        failures.append(f"stdin closed: exit {r.returncode}: {r.stderr.strip()}")
    os.unlink(out)


def option_values(tool, cap, report, taps, d, failures):
    """A value that looks like an option is refused (one rule for every option
    taking a value); '-' stays standard output; standard input is read once."""
    before = set(os.listdir("."))
    cases = [
        ("--html -o x", [tool, "--html", "-o", "x", cap], "--html: invalid value '-o'"),
        ("-o --json", [tool, "-o", "--json", cap], "-o: invalid value '--json'"),
        ("--html=-x", [tool, "--html=-x", cap], "--html: invalid value '-x'"),
        ("--output -q", [tool, "--output", "-q", cap], "-o: invalid value '-q'"),
        ("-o-q", [tool, "-o-q", cap], "-o: invalid value '-q'"),
        ("merge --html -o", [tool, "merge", "--html", "-o", "x", report],
         "--html: invalid value '-o'"),
        ("localize -o --json", [tool, "localize", "-o", "--json", *taps],
         "-o: invalid value '--json'"),
        ("-w -c", [tool, "-i", "lo", "-w", "-c", "5"], "-w: invalid value '-c'"),
        ("--prometheus-file -q", [tool, "-i", "lo", "--prometheus-file", "-q"],
         "--prometheus-file: invalid value '-q'"),
        ("-j 2 - -", [tool, "-j", "2", "-", "-"], "standard input given twice"),
        ("- -", [tool, "-", "-"], "standard input given twice"),
        ("- /dev/stdin", [tool, "-j", "2", "-", "/dev/stdin"], "the same stream as '-'"),
    ]
    with open(cap, "rb") as f:  # a regular file as standard input: "-" twice all the same
        r = subprocess.run([tool, "-", "-"], capture_output=True, text=True, stdin=f,
                           timeout=TIMEOUT_S)
    if r.returncode != 2 or "standard input given twice" not in r.stderr:
        failures.append(f"- - from a file: exit {r.returncode}: {r.stderr.strip()}")
    with open(cap, "rb") as f:
        data = f.read()
    for tag, argv, words in cases:  # standard input a pipe
        r = subprocess.run(argv, capture_output=True, input=data, timeout=TIMEOUT_S, cwd=d)
        r = subprocess.CompletedProcess(r.args, r.returncode, r.stdout.decode(errors="replace"),
                                        r.stderr.decode(errors="replace"))
        if r.returncode != 2 or words not in r.stderr or r.stdout:
            failures.append(f"{tag}: exit {r.returncode}: {r.stderr.strip()[:200]}")
    made = set(os.listdir(d)) - {"hard.pcap", "sym.pcap", "page.html", "page-link.html",
                                 "page-hard.html"}
    if made or set(os.listdir(".")) != before:
        failures.append(f"values that look like options: files made {sorted(made)}")
    r = subprocess.run([tool, "--json", "-o", "-", cap], capture_output=True, text=True,
                       timeout=TIMEOUT_S)
    if r.returncode != 0 or not r.stdout.startswith("{"):
        failures.append(f"-o -: exit {r.returncode}, not the report on stdout")
    # -Z root: accepted because explicit, and warned about; another user is not
    for user, warned in (("root", True), ("nobody", False)):
        r = subprocess.run([tool, "-i", "rsnosuchif0", "-Z", user], capture_output=True,
                           text=True, timeout=TIMEOUT_S)
        has = f"rocescope: -Z {user}: warning: the monitor keeps running as root" in r.stderr
        if has != warned or "invalid value" in r.stderr:
            failures.append(f"-Z {user}: warning {has}, expected {warned}: {r.stderr.strip()}")


def names_escaped(tool, cap, taps, d, failures):
    """Control characters in names are escaped (\\xHH) in every error line and
    summary, never written raw to a terminal."""
    esc = "\x1b]0;owned\x07\x1b[2J"
    shown = "\\x1b]0;owned\\x07\\x1b[2J"

    def clean(tag, text, must):
        if any(c in text for c in "\x1b\x07\x9b") or must not in text:
            failures.append(f"{tag}: not escaped: {text[:300]!r}")

    missing = os.path.join(d, "gone" + esc + ".pcap")
    r = subprocess.run([tool, missing], capture_output=True, text=True, timeout=TIMEOUT_S)
    clean("a missing file's name", r.stderr, "gone" + shown)
    named = os.path.join(d, "cap" + esc + ".pcap")
    shutil.copy(cap, named)
    r = subprocess.run([tool, named], capture_output=True, text=True, timeout=TIMEOUT_S)
    clean("the summary's file name", r.stdout.splitlines()[0] if r.stdout else "", "cap" + shown)
    r = subprocess.run([tool, "--top", esc, cap], capture_output=True, text=True,
                       timeout=TIMEOUT_S)
    clean("an option's value", r.stderr, shown)
    r = subprocess.run([tool, "localize", "tap" + esc + "=" + taps[0], "b=" + taps[1]],
                       capture_output=True, text=True, timeout=TIMEOUT_S)
    clean("localize's point names", r.stdout, "tap" + shown)
    r = subprocess.run([tool, "localize", "--offset", "x" + esc + "=5", *taps],
                       capture_output=True, text=True, timeout=TIMEOUT_S)
    clean("localize --offset's name", r.stderr, "x" + shown)
    s8 = "\u009b31m"  # a C1 control (CSI) written in UTF-8
    r = subprocess.run([tool, os.path.join(d, "c1" + s8)], capture_output=True, text=True,
                       timeout=TIMEOUT_S)
    clean("a C1 control", r.stderr, "c1\\xc2\\x9b31m")
    os.unlink(named)


if __name__ == "__main__":
    sys.exit(main())
