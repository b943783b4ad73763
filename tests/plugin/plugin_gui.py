#!/usr/bin/env python3
"""The plugin in the real Wireshark GUI (wireshark-qt) under a virtual
display (Xvfb), driven by xdotool as a user's keys and clicks:

  1. Statistics > RoCE Flows (opened with -z roce,flowtable): its rows, as
     the dialog's Copy puts them on the clipboard (read with xclip), are in
     the order of the trouble rank, the worst first, the same order as
     rocescope's text summary (#1, #2, ...), not by flow id.
  2. Statistics > Conversations, RoCE tab (opened through the menu; the tab
     shown by the profile's recent file): its ends are "address QP 0x...",
     and the row's context menu Apply as Filter > Selected > A <-> B applies
     that queue pair's filter in the main window. What was applied is read
     from the display filter history Wireshark writes to recent_common when
     it quits (ctrl+Q), and run through tshark: it selects the queue pair's
     frames.

Neither dialog applies a filter on a double-click in Wireshark 4.0 (nor can a
plugin add one: dissector/README.md, "What works where"), so the context
menu is what is driven.

The plugin is loaded from the build: Wireshark runs as an unprivileged user
(when the test runs as root) with a temporary HOME holding the plugin in the
personal folder (tshark_env.py). Exit 77 (skipped) when Xvfb, wireshark,
xdotool or xclip is missing or no virtual display can be started.

The suite runs it on the system's Wireshark (4.0: ctest plugin_gui). By hand,
on another release's GUI: --wireshark-root ROOT, a root made by
tools/wireshark_root.sh fetch --gui SUITE, or --wireshark-suite SUITE, that
root of the suite (Wireshark and tshark then both run from it, through the
root's loader), with --plugin a rocescope.so built against that release
(dissector/README.md, "Wireshark 4.6 GUI").
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tshark_env import NOBODY, TsharkEnv, add_arguments, suite_root  # noqa: E402
from checker import Checker  # noqa: E402
from plugin_features import cli_ranking, conv_table  # noqa: E402

SKIP = 77
CAPTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "captures")
WAIT_S = 90  # for a window (Wireshark starts in a few seconds; the machine may be loaded)


class Gui:
    """An Xvfb display and Wireshark runs on it, as tshark's user of env."""

    def __init__(self, env):
        self.env = env
        self.xvfb = None
        self.display = None
        self.ws = None
        self.config = os.path.join(env.home, ".config")

    def start_display(self):
        """Start Xvfb on a free display (-displayfd); False when it cannot."""
        r, w = os.pipe()
        self.xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-screen", "0", "1400x900x24",
                                      "-nolisten", "tcp"], pass_fds=(w,),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(w)
        with os.fdopen(r) as f:
            num = f.readline().strip()
        if not num.isdigit():
            return False
        self.display = ":" + num
        return True

    def write_config(self):
        """No personal preferences but these; the RoCE tab shown in
        Conversations (the profile's recent file, as Wireshark saves it)."""
        ws = os.path.join(self.config, "wireshark")
        os.makedirs(ws, exist_ok=True)
        with open(os.path.join(ws, "preferences"), "w") as f:
            f.write("gui.ask_unsaved: FALSE\ngui.update.enabled: FALSE\n")
        with open(os.path.join(ws, "recent"), "w") as f:
            f.write("gui.conversation_tabs: RoCE\ngui.endpoint_tabs: RoCE\n")
        TsharkEnv.own_by_user(self.config)

    def xdo(self, *args):
        """xdotool on the display; its output."""
        p = subprocess.run(["xdotool", *args], env={**os.environ, "DISPLAY": self.display},
                           capture_output=True, text=True, timeout=60)
        return p.stdout.strip()

    def selected_row_y(self, win, x):
        """The middle y, in window win, of the selected (highlighted) table
        row at column x: the run of Qt's selection colour #308CC6 in the
        window's image (ImageMagick's import); None when none is found."""
        if shutil.which("import") is None:
            return None
        p = subprocess.run(["import", "-window", win, "-crop", f"1x10000+{x}+0", "-depth", "8",
                            "txt:-"],
                           env={**os.environ, "DISPLAY": self.display}, capture_output=True,
                           text=True, timeout=60)
        ys = [int(m.group(1)) for m in re.finditer(r"^0,(\d+): .*#308CC6", p.stdout, re.M | re.I)]
        return (ys[0] + ys[-1]) // 2 if ys else None

    def clipboard(self):
        p = subprocess.run(["xclip", "-o", "-selection", "clipboard"],
                           env={**os.environ, "DISPLAY": self.display}, capture_output=True,
                           text=True, timeout=30)
        return p.stdout

    def start(self, *args):
        """Run Wireshark with args (as tshark's user, the plugin's HOME)."""
        env = {"HOME": self.env.home, "XDG_CONFIG_HOME": self.config, "DISPLAY": self.display,
               "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8",
               "LC_ALL": "C.UTF-8", "XDG_RUNTIME_DIR": os.path.join(self.env.home, "run"),
               "WIRESHARK_PLUGIN_DIR": os.path.join(self.env.home, "no-global-plugins")}
        os.makedirs(env["XDG_RUNTIME_DIR"], mode=0o700, exist_ok=True)
        TsharkEnv.own_by_user(env["XDG_RUNTIME_DIR"])
        # a private root's through its loader (TsharkEnv.prefix), else the system's
        cmd = [*self.env.prefix, "wireshark", *args]
        if os.geteuid() == 0:
            cmd = ["setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups", "env",
                   *[f"{k}={v}" for k, v in env.items()], *cmd]
        self.log = open(os.path.join(self.env.home, "wireshark.log"), "w")
        self.ws = subprocess.Popen(cmd, env=env, cwd=self.env.home, stdout=self.log,
                                   stderr=subprocess.STDOUT)

    def window(self, name):
        """The id of the visible window whose title matches name (waits)."""
        end = time.time() + WAIT_S
        while time.time() < end:
            if self.ws.poll() is not None:
                raise RuntimeError(f"wireshark exited ({self.ws.returncode})")
            out = self.xdo("search", "--onlyvisible", "--name", name)
            if out:
                time.sleep(2)  # let it finish filling
                return out.split()[-1]
            time.sleep(1)
        raise RuntimeError(f"no window {name!r} after {WAIT_S} s")

    def wait_exit(self):
        try:
            self.ws.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.ws.terminate()
            self.ws.wait(timeout=10)
            raise RuntimeError("wireshark did not quit on ctrl+Q")

    def stop(self):
        if self.ws is not None and self.ws.poll() is None:
            self.ws.terminate()
            try:
                self.ws.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.ws.kill()
        if self.xvfb is not None:
            self.xvfb.terminate()
            self.xvfb.wait(timeout=10)


def flows_order(c, gui, env, rocescope, path):
    """RoCE Flows: rows by rank, as the CLI's summary."""
    gui.start("-r", env.capture(path), "-z", "roce,flowtable")
    w = gui.window("RoCE Flows")
    geo = gui.xdo("getwindowgeometry", w)
    m = re.search(r"Geometry: (\d+)x(\d+)", geo)
    width, height = (int(m.group(1)), int(m.group(2))) if m else (580, 450)
    # focus the table (a click below its rows), then its context menu's Copy
    gui.xdo("mousemove", "--window", w, str(width // 2), str(height * 3 // 5), "click", "1")
    time.sleep(0.5)
    gui.xdo("key", "Menu")
    time.sleep(1)
    gui.xdo("key", "Down", "Return")
    time.sleep(1)
    text = gui.clipboard()
    gui.ws.terminate()
    gui.ws.wait(timeout=30)
    rows = [m.groups() for m in re.finditer(r"^\s*(\d+)\s{2}(\S+ -> \S+ QP 0x[0-9a-f]+)\s",
                                            text, re.M)]
    name = os.path.basename(path)
    if not c.check(rows, f"{name}: RoCE Flows: no rows on the clipboard: {text[:300]!r}"):
        return
    ranks = [int(r[0]) for r in rows]
    c.check(ranks == list(range(1, len(rows) + 1)),
            f"{name}: RoCE Flows rows not sorted by rank: {ranks}")
    cli = cli_ranking(rocescope, path)
    got = [r[1] for r in rows][:len(cli)]
    c.check(cli and got == cli, f"{name}: RoCE Flows order {got}, CLI summary {cli}")
    ids = re.findall(r"roce\.flow\.id == (\d+)", text)
    c.check(ids != sorted(ids, key=int),
            f"{name}: rows in flow id order {ids} (the capture should rank them otherwise)")


def conversation_filter(c, gui, env, path):
    """Conversations, RoCE tab: QP ends, and Apply as Filter on the last row."""
    rc, out, err = env.run("-2", "-r", env.capture(path), "-q", "-z", "conv,roce")
    out_conv = out
    convs = re.findall(r"^(\S+ QP \S+)\s+<-> (\S+ QP \S+)\s", out, re.M)
    if not c.check(convs, f"tshark -z conv,roce: no conversation: {out[:300]} {err[:300]}"):
        return
    gui.start("-r", env.capture(path))
    main = gui.window(os.path.basename(path))
    gui.xdo("mousemove", "--window", main, "100", "200", "click", "1")
    time.sleep(0.5)
    gui.xdo("key", "alt+s", "c")  # Statistics > Conversations
    w = gui.window("Conversations")
    geo = gui.xdo("getwindowgeometry", w)
    m = re.search(r"Geometry: (\d+)x(\d+)", geo)
    width, height = (int(m.group(1)), int(m.group(2))) if m else (750, 450)
    # the table fills the right part: a click below its rows focuses it; the
    # last row (End) is the conversation sorted last by address A
    gui.xdo("mousemove", "--window", w, str(width * 7 // 10), str(height * 3 // 5), "click", "1")
    time.sleep(0.5)
    gui.xdo("key", "End")
    time.sleep(0.5)
    # the context menu of that row: a right click on it (4.6 fills the
    # Apply as Filter submenus from the row under the pointer: the Menu key's
    # menu opens Apply as Filter > Selected but not its A <-> B level), else
    # the Menu key (enough in 4.0)
    y = gui.selected_row_y(w, width * 7 // 10)
    if y is not None:
        gui.xdo("mousemove", "--window", w, str(width * 7 // 10), str(y), "click", "3")
    else:
        gui.xdo("key", "Menu")
    time.sleep(1)
    # Apply as Filter > Selected > A <-> B, a key at a time: a submenu must
    # be open before the next key (4.6's open later than 4.0's)
    for key in ("Down", "Right", "Right", "Return"):
        gui.xdo("key", key)
        time.sleep(0.7)
    time.sleep(2)
    gui.xdo("key", "Escape")  # closes the dialog
    time.sleep(1)
    gui.xdo("mousemove", "--window", main, "100", "200", "click", "1")
    time.sleep(0.5)
    gui.xdo("key", "ctrl+q")
    gui.wait_exit()
    recent = os.path.join(gui.config, "wireshark", "recent_common")
    applied = []
    if os.path.exists(recent):
        applied = re.findall(r"^recent\.display_filter: (.*)$", open(recent).read(), re.M)
    if not c.check(applied, "Conversations: Apply as Filter left no filter in the history"):
        return
    f = applied[-1]
    m = re.fullmatch(r'roce\.endpoint=="([^"]+)" && roce\.endpoint=="([^"]+)"', f)
    c.check(m and (m.group(1), m.group(2)) == max(convs),
            f"Conversations: applied {f!r}, expected A <-> B of {max(convs)} (of {convs})")
    c.check(not any("QP ?" in e for conv in convs for e in conv),
            f"Conversations: an end without its QP: {convs}")
    # the filter selects that queue pair's frames
    rc, out, err = env.run("-2", "-r", env.capture(path), "-Y", f)
    n = len([l for l in out.splitlines() if l.strip()])
    want = conv_table(out_conv, "conv").get(max(convs), [0, 0, 0])[2]
    c.check(n > 0 and n == want, f"the applied filter {f!r}: {n} frames, the conversation {want}")


def main():
    ap = argparse.ArgumentParser()
    add_arguments(ap)
    ap.add_argument("--rocescope", required=True)
    a = ap.parse_args()
    root = a.wireshark_root
    if a.wireshark_suite and not root:
        try:
            root = suite_root(a.wireshark_suite, gui=True)
        except RuntimeError as e:
            print(e)
            return 1
    if root and not os.path.exists(os.path.join(root, "usr", "bin", "wireshark")):
        print(f"{root} has no GUI (tools/wireshark_root.sh fetch --gui SUITE makes one)")
        return 1
    for tool in ("Xvfb", "xdotool", "xclip", *([] if root else ["wireshark"])):
        if shutil.which(tool) is None:
            print(f"{tool} not found (tools/setup.sh installs it): skipped")
            return SKIP
    c = Checker()
    with TsharkEnv(a.tshark, a.plugin, a.wireshark_version, root=root) as env:
        gui = Gui(env)
        try:
            if not gui.start_display():
                print("no virtual display (Xvfb did not start): skipped")
                return SKIP
            gui.write_config()
            path = os.path.join(CAPTURES, "loss_receiver.pcap")
            for test in (lambda: flows_order(c, gui, env, a.rocescope, path),
                         lambda: conversation_filter(c, gui, env, path)):
                try:
                    test()
                except (RuntimeError, subprocess.SubprocessError) as e:
                    c.check(False, f"{e}; wireshark said: "
                            f"{open(os.path.join(env.home, 'wireshark.log')).read()[-500:]}")
                finally:
                    if gui.ws is not None and gui.ws.poll() is None:
                        gui.ws.terminate()
                        gui.ws.wait(timeout=30)
        finally:
            gui.stop()
    print(f"{c.passed} checks passed, {len(c.failures)} failed")
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
