"""Run the real tshark with the plugin from the build tree (shared by the
plugin tests).

tshark loads personal plugins from ~/.local/lib/wireshark/plugins/X.Y/epan,
but as root it ignores that folder and WIRESHARK_PLUGIN_DIR (dissector/README.md,
"Tests").
So the plugin is copied into a world-readable temporary HOME, and when the
test runs as root, tshark runs as an unprivileged user (setpriv, uid/gid
65534) with that HOME; captures are copied there too so that user can read
them. The temporary HOME has no preferences, so every run starts from
Wireshark's defaults.

Another Wireshark release, unpacked into a private root by
tools/wireshark_root.sh (--wireshark-suite trixie / sid), runs through that
script's `run` command (the root's own dynamic loader and libraries); the
script is copied into the temporary HOME too, since the unprivileged user may
not reach the source tree.
"""
import filecmp
import json
import os
import shutil
import subprocess
import re
import tempfile

NOBODY = "65534"
TIMEOUT_S = 300
ROOT_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools",
                           "wireshark_root.sh")


def suite_root(suite, gui=False):
    """The private root of Debian suite `suite` (tools/wireshark_root.sh
    root; gui: the root that also holds the Qt GUI, root --gui), or raises
    RuntimeError saying how to make it."""
    p = subprocess.run(["sh", ROOT_SCRIPT, "root", *(["--gui"] if gui else []), suite],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(p.stderr.strip() or f"no Wireshark root for {suite}")
    return p.stdout.strip()


def add_arguments(ap):
    """The command-line options every plugin test takes."""
    ap.add_argument("--tshark", required=True, help="tshark, or its name in the root")
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--wireshark-version", required=True,
                    help="plugin folder name (4.0); 'auto': ask tshark")
    ap.add_argument("--wireshark-suite", default=None,
                    help="run tshark from the private root of this Debian suite")
    ap.add_argument("--wireshark-root", default=None,
                    help="run tshark from this private root (tools/wireshark_root.sh)")


class TsharkEnv:
    """A temporary HOME with the plugin installed in it; use as a context
    manager (the folder is removed on exit)."""

    def __init__(self, tshark, plugin, wireshark_version, sharkd=None, extra_env=None,
                 suite=None, root=None):
        self.tshark = tshark
        self.root = root or (suite_root(suite) if suite else None)
        self.prefix = []  # the command that runs a program of the root
        # more environment for tshark (LD_PRELOAD of the sanitizer runtimes
        # for a plugin built with them, their options)
        self.extra_env = dict(extra_env or {})
        self.sharkd = sharkd
        self.plugin = os.path.abspath(plugin)
        self.version = wireshark_version  # "4.0": the plugin folder's name
        self.home = None
        self.plugin_path = None

    def __enter__(self):
        # as root, somewhere the unprivileged user can reach (not a private TMPDIR)
        where = "/tmp" if os.geteuid() == 0 else None
        self.home = tempfile.mkdtemp(prefix="rocescope-plugin-", dir=where)
        os.chmod(self.home, 0o755)
        epan = os.path.join(self.home, ".local", "lib", "wireshark", "plugins", self.version,
                            "epan")
        if self.root:
            runner = os.path.join(self.home, "wireshark_root.sh")
            shutil.copy(ROOT_SCRIPT, runner)
            os.chmod(runner, 0o755)
            self.prefix = ["/bin/sh", runner, "run", self.root]
        if self.version == "auto":
            self.version = self._tshark_version()
            epan = os.path.join(self.home, ".local", "lib", "wireshark", "plugins", self.version,
                                "epan")
        os.makedirs(epan)
        # an empty global plugin folder: an installed copy of the plugin (the
        # package's, perhaps older) never shadows the build's
        os.makedirs(os.path.join(self.home, "no-global-plugins"))
        self.plugin_path = os.path.join(epan, os.path.basename(self.plugin))
        shutil.copy(self.plugin, self.plugin_path)
        os.makedirs(os.path.join(self.home, "captures"))
        for root, dirs, files in os.walk(self.home):
            os.chmod(root, 0o755)
            for f in files:
                os.chmod(os.path.join(root, f), 0o644)
        return self

    def _tshark_version(self):
        """major.minor of the tshark run (the personal plugin folder's name)."""
        rc, out, err = self._run(self.tshark, ["-v"])
        m = re.search(r"\(Wireshark\) (\d+)\.(\d+)\.", out)
        if rc != 0 or not m:
            raise RuntimeError(f"tshark -v: exit {rc}: {(out + err).strip()[:300]}")
        return f"{m.group(1)}.{m.group(2)}"

    def __exit__(self, *exc):
        shutil.rmtree(self.home, ignore_errors=True)

    def capture(self, path):
        """A copy of capture path that tshark's user can read."""
        dst = os.path.join(self.home, "captures", os.path.basename(path))
        if not os.path.exists(dst):
            shutil.copy(path, dst)
            os.chmod(dst, 0o644)
        return dst

    def _env(self, home):
        """tshark's environment: HOME, no global plugins (WIRESHARK_PLUGIN_DIR,
        honoured since tshark runs unprivileged), C.UTF-8."""
        return {"HOME": home, "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                "WIRESHARK_PLUGIN_DIR": os.path.join(self.home, "no-global-plugins"),
                "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", **self.extra_env}

    def _run(self, program, args, stdin=None, timeout=TIMEOUT_S, direct=False, home=None,
             cwd=None):
        env = self._env(home or self.home)
        cmd = [program, *args] if direct else [*self.prefix, program, *args]
        if os.geteuid() == 0 and not direct:
            cmd = ["setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups",
                   "env", *[f"{k}={v}" for k, v in env.items()], *cmd]
        p = subprocess.run(cmd, env=env, cwd=cwd or env["HOME"], input=stdin, capture_output=True,
                           text=True, errors="replace", timeout=timeout)
        return p.returncode, p.stdout, p.stderr

    def run_shell(self, script, home=None, cwd=None, timeout=TIMEOUT_S):
        """Run a shell script (sh -e -c, as /bin/sh reads it) as tshark's user,
        with HOME home (default: the one with the plugin) in cwd (default:
        HOME); returns (exit status, stdout, stderr). Another home must be
        writable by that user (own_by_user). The system's tshark only."""
        if self.prefix:
            raise RuntimeError("run_shell: only with the system's tshark")
        return self._run("/bin/sh", ["-e", "-c", script], home=home, cwd=cwd, timeout=timeout)

    @staticmethod
    def own_by_user(path):
        """Make everything under path belong to tshark's user (when run as root)."""
        if os.geteuid() != 0:
            return
        for root, dirs, files in os.walk(path):
            for name in [root, *[os.path.join(root, f) for f in files]]:
                os.chown(name, int(NOBODY), int(NOBODY))

    def run(self, *args, timeout=TIMEOUT_S):
        """Run tshark with args; returns (exit status, stdout, stderr), or
        raises subprocess.TimeoutExpired."""
        return self._run(self.tshark, args, timeout=timeout)

    def run_tty(self, *args, timeout=TIMEOUT_S):
        """Run tshark with args on a pseudo-terminal (script(1)), with 24-bit
        colour announced: what `tshark --color` needs to colour its lines."""
        import shlex
        self.extra_env.setdefault("COLORTERM", "truecolor")
        try:
            inner = shlex.join([*self.prefix, self.tshark, *args])
            if os.geteuid() == 0:
                env = self._env(self.home)
                inner = shlex.join(["setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY,
                                    "--clear-groups", "env",
                                    *[f"{k}={v}" for k, v in env.items()]]) + " " + inner
            rc, out, err = self._run("script", ["-qec", inner, "/dev/null"], timeout=timeout,
                                     direct=True)
        finally:
            self.extra_env.pop("COLORTERM", None)
        return rc, out.replace("\r\n", "\n"), err

    def run_sharkd(self, requests):
        """Run sharkd in console mode on JSON-RPC requests (dicts); returns
        the list of decoded responses."""
        lines = "".join(json.dumps(r) + "\n" for r in requests)
        rc, out, err = self._run(self.sharkd, ["-"], stdin=lines)
        if rc != 0:
            raise RuntimeError(f"sharkd exit {rc}: {err.strip()}")
        return [json.loads(line) for line in out.splitlines() if line.startswith("{")]

    def loaded_plugin(self):
        """None when tshark loads this build's plugin, else what is wrong.

        Wireshark's global plugin folder is replaced by an empty one, so a
        copy installed there (a package's) cannot be loaded instead of the
        personal one; should it be all the same, that is fine only when it is
        the same file as the build's."""
        rc, out, err = self.run("-G", "plugins")
        if rc != 0:
            return f"`tshark -G plugins` failed ({rc}): {err.strip()}"
        name = os.path.basename(self.plugin)
        for line in out.splitlines():
            cells = [c.strip() for c in line.split("\t")]
            if cells[0] != name:
                continue
            path = cells[-1]
            if path == self.plugin_path:
                return None
            if os.path.exists(path) and filecmp.cmp(path, self.plugin, shallow=False):
                print(f"note: tshark loads the installed copy {path}, identical to the build's")
                return None
            return (f"tshark loads {path}, not this build's plugin (a stale installed copy "
                    f"shadows it: reinstall or remove it)")
        return (f"`tshark -G plugins` does not list {name}: not loaded, or built for another "
                f"Wireshark version ({err.strip()[:300]})")
