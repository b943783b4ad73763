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
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import threading

NOBODY = 65534
TIMEOUT_S = 30


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

            # a link to nothing: the file it names is made
            dangling = os.path.join(d, "dangling.json")
            os.symlink("made.json", dangling)
            r = run(prefix, cmd(dangling))
            made = os.path.join(d, "made.json")
            if r.returncode != 0 or not os.path.islink(dangling) or not os.path.isfile(made):
                failures.append(f"{tag}: a link to nothing: exit {r.returncode}, "
                                f"link kept {os.path.islink(dangling)}, file made "
                                f"{os.path.isfile(made)}")
            check_alone(["dangling.json", "made.json"])
            rm(dangling)
            rm(made)

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

    shutil.rmtree(base, ignore_errors=True)
    for f in failures:
        print("FAIL:", f)
    print(f"output safety: {len(failures)} failures ({', '.join(u for u, _ in users)})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
