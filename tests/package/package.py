#!/usr/bin/env python3
"""The Debian packages (analyzer/deploy): made by `cpack -G DEB` from the
build folder into a temporary folder, then

  contents    every file where the FHS puts it and nothing else: the
              command, its compressed manual page, bash completion,
              copyright and changelog, the unit, the conffile, the rules
              and dashboard; the plugin in Wireshark's plugin folder of its
              version; the control fields (architecture from dpkg,
              dependencies from dpkg-shlibdeps, the conffile, maintainer
              scripts)
  lintian     no error (warnings and information are printed)
  unit        `systemd-analyze verify` of rocescope@IFACE.service in a root
              holding the system's units and the package's files (systemd
              need not run)
  completion  the bash completion's option lists equal the command's (--help
              of rocescope, merge and localize), and completing in bash with
              bash-completion gives options, interfaces and subcommands
  plugin      the packaged plugin loads into tshark (as the plugin tests do,
              from a private HOME: the system's plugin folder is never
              touched) and marks the retransmissions of a capture
  install     as root, when no package rocescope is installed:
              `apt-get install ./rocescope_*.deb`, the installed command
              analyses a capture as the build's does, its manual page, unit
              (verified in place), user and directories; `apt-get remove`
              (the conffile stays), `apt-get purge` (nothing stays); the user
              the package made is deleted again, so the machine is left as it
              was. Skipped (printed) when not root or a rocescope package is
              installed already.

Exit 77 (skip) when cpack, dpkg-deb or lintian is missing.
"""
import argparse
import gzip
import json
import os
import pwd
import grp
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "plugin"))

CLI_FILES = {
    "etc/default/rocescope",
    "lib/systemd/system/rocescope@.service",
    "usr/bin/rocescope",
    "usr/share/bash-completion/completions/rocescope",
    "usr/share/doc/rocescope/changelog.gz",
    "usr/share/doc/rocescope/copyright",
    "usr/share/man/man1/rocescope.1.gz",
    "usr/share/rocescope/rocescope-dashboard.json",
    "usr/share/rocescope/rocescope.rules.test.yml",
    "usr/share/rocescope/rocescope.rules.yml",
}
CLI_DIRS = {"var/lib/rocescope", "var/log/rocescope"}
PLUGIN_FILES = {
    "usr/share/doc/rocescope-wireshark-plugin/changelog.gz",
    "usr/share/doc/rocescope-wireshark-plugin/copyright",
    "usr/share/doc/rocescope-wireshark-plugin/examples/roce.colorfilters",
}
SHLIBDEPS = {"rocescope": ("libc6", "libpcap0.8", "libjson-c5", "libmicrohttpd12", "libseccomp2",
                           "adduser"),
             "rocescope-wireshark-plugin": ("libc6", "libwireshark16", "libglib2.0-0")}
APT = ["apt-get", "-y", "-q", "-o", "DPkg::Lock::Timeout=300"]


class Fail(Exception):
    pass


def run(*cmd, check=True, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kw)
    if check and p.returncode != 0:
        raise Fail("%s: exit %d: %s%s" % (" ".join(cmd), p.returncode, p.stdout[-2000:],
                                          p.stderr[-2000:]))
    return p


def files_of(deb):
    """The regular files and the directories of a package (paths without ./)."""
    out = run("dpkg-deb", "-c", deb).stdout
    files, dirs = set(), set()
    for line in out.splitlines():
        path = line.split()[-1].lstrip("./").rstrip("/")
        (dirs if line.startswith("d") else files).add(path)
    return files, dirs


def check_contents(debs, version, plugin_dir):
    arch = run("dpkg", "--print-architecture").stdout.strip()
    files, dirs = files_of(debs["rocescope"])
    if files != CLI_FILES or not CLI_DIRS <= dirs:
        raise Fail("rocescope: files %s" % sorted(files ^ CLI_FILES))
    for name, deb in debs.items():
        f = run("dpkg-deb", "-f", deb, "Package", "Version", "Architecture", "Depends").stdout
        fields = dict(l.split(": ", 1) for l in f.splitlines())
        deps = [d.strip().split()[0] for d in fields.get("Depends", "").split(",")]
        if fields["Package"] != name or fields["Version"] != version or \
                fields["Architecture"] != arch or not set(SHLIBDEPS[name]) <= set(deps):
            raise Fail("%s: control fields %r" % (name, fields))
    ctrl = run("dpkg-deb", "-I", debs["rocescope"]).stdout
    for part in ("postinst", "prerm", "postrm", "conffiles"):
        if part not in ctrl:
            raise Fail("rocescope: no %s in the control archive" % part)
    if "rocescope-wireshark-plugin" in debs:
        files, _ = files_of(debs["rocescope-wireshark-plugin"])
        want = PLUGIN_FILES | {plugin_dir.lstrip("/") + "/epan/rocescope.so"}
        if files != want:
            raise Fail("rocescope-wireshark-plugin: files %s" % sorted(files ^ want))


def check_lintian(debs):
    p = run("lintian", "-I", *debs.values(), check=False)
    report = [l for l in (p.stdout + p.stderr).splitlines() if re.match(r"^[EWIP]: ", l)]
    for line in report:
        print("     lintian " + line)
    errors = [l for l in report if l.startswith("E: ")]
    if errors or p.returncode not in (0, 1):  # 1: tags of lower severity than error were found
        raise Fail("lintian: %d errors (exit %d)" % (len(errors), p.returncode))


def extract(deb, dest):
    run("dpkg-deb", "-x", deb, dest)


def check_unit(deb, tmp):
    """systemd-analyze verify in a root: the system's units, the package's files."""
    root = os.path.join(tmp, "unitroot")
    os.makedirs(os.path.join(root, "lib", "systemd"))
    shutil.copytree("/lib/systemd/system", os.path.join(root, "lib", "systemd", "system"),
                    symlinks=True)
    os.makedirs(os.path.join(root, "bin"))
    shutil.copy("/bin/ln", os.path.join(root, "bin", "ln"))  # ExecStartPre
    extract(deb, root)
    p = run("systemd-analyze", "verify", "--man=no", "--root=" + root, "rocescope@eth3.service",
            check=False)
    if p.returncode != 0 or p.stdout.strip() or p.stderr.strip():
        raise Fail("systemd-analyze verify: exit %d: %s%s" % (p.returncode, p.stdout, p.stderr))
    running = os.path.isdir("/run/systemd/system")
    print("     unit verified statically (systemd %s on this machine)" %
          ("runs" if running else "does not run"))


def long_options(help_text):
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*|-[a-zA-Z])(?=[ ,=\n])", help_text))


def check_completion(tool, root):
    path = os.path.join(root, "usr/share/bash-completion/completions/rocescope")
    run("bash", "-n", path)
    with open(path) as f:
        text = f.read()
    for var, args in (("main", ["--help"]), ("merge", ["merge", "--help"]),
                      ("localize", ["localize", "--help"])):
        m = re.search(r"_rocescope_%s_opts='([^']*)'" % var, text)
        have = set(m.group(1).split())
        want = long_options(run(tool, *args).stdout)
        if have != want:
            raise Fail("completion %s: %s" % (var, sorted(have ^ want)))
    bc = "/usr/share/bash-completion/bash_completion"
    if not os.path.exists(bc):
        print("     bash-completion not installed: completions not tried")
        return
    script = ('source %s; source %s\n'
              'try() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; '
              'COMP_POINT=${#COMP_LINE}; COMPREPLY=(); _rocescope; echo "${COMPREPLY[*]}"; }\n'
              'try rocescope --lis\n try rocescope -i l\n try rocescope mer\n'
              'try rocescope merge --j\n try rocescope localize --split-by e\n') % (bc, path)
    out = run("bash", "-c", script).stdout.splitlines()
    want = ["--listen", "lo", "merge", "--json", "erspan-session"]
    if len(out) != len(want) or any(w not in o.split() for w, o in zip(want, out)):
        raise Fail("completions: %r, expected %r among them" % (out, want))


def check_plugin(deb, plugin_dir, tshark, captures, tmp):
    try:
        from tshark_env import TsharkEnv
    except ImportError as e:
        raise Fail("tests/plugin/tshark_env.py: %s" % e)
    root = os.path.join(tmp, "pluginroot")
    extract(deb, root)
    so = os.path.join(root, plugin_dir.lstrip("/"), "epan", "rocescope.so")
    with TsharkEnv(tshark, so, os.path.basename(plugin_dir)) as env:
        why = env.loaded_plugin()
        if why:
            raise Fail("packaged plugin: %s" % why)
        cap = env.capture(os.path.join(captures, "loss_receiver.pcap"))
        rc, out, err = env.run("-r", cap, "-Y", "roce.analysis.retransmission")
        if rc != 0 or len(out.splitlines()) != 6:
            raise Fail("packaged plugin: %d retransmissions marked, 6 expected: %s" %
                       (len(out.splitlines()), err))


def installed(pkg):
    p = run("dpkg-query", "-W", "-f=${Status}", pkg, check=False)
    return p.returncode == 0 and "installed" in p.stdout and "not-installed" not in p.stdout


def user_exists(name):
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


def group_exists(name):
    try:
        grp.getgrnam(name)
        return True
    except KeyError:
        return False


def check_install(deb, tool, captures, version):
    if os.geteuid() != 0:
        print("     install: skipped (not root)")
        return
    if installed("rocescope") or run("dpkg-query", "-W", "rocescope", check=False).returncode == 0:
        print("     install: skipped (a package rocescope is on this machine already)")
        return
    had_user, had_group = user_exists("rocescope"), group_exists("rocescope")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    # A machine shut down in the middle of an earlier install leaves dpkg
    # half-configured, and apt-get then refuses everything; tools/setup.sh
    # finishes such work the same way before it installs anything.
    if run("dpkg", "--audit", check=False).stdout.strip():
        print("     dpkg was interrupted earlier: dpkg --configure -a")
        run("dpkg", "--configure", "-a", env=env, check=False)
    try:
        run(*APT, "install", "--no-install-recommends", os.path.abspath(deb), env=env)
        cap = os.path.join(captures, "loss_receiver.pcap")
        got = run("/usr/bin/rocescope", "--json", cap).stdout
        want = run(tool, "--json", cap).stdout
        if json.loads(got) != json.loads(want):
            raise Fail("the installed rocescope reports otherwise than the build's")
        if run("/usr/bin/rocescope", "--version").stdout.strip() != "rocescope " + version:
            raise Fail("installed --version")
        if run("man", "-w", "rocescope").stdout.strip() != "/usr/share/man/man1/rocescope.1.gz":
            raise Fail("man -w rocescope")
        p = run("systemd-analyze", "verify", "--man=no", "rocescope@lo.service", check=False)
        if p.returncode != 0 or p.stdout.strip() or p.stderr.strip():
            raise Fail("systemd-analyze verify, installed: %s%s" % (p.stdout, p.stderr))
        st = os.stat("/var/lib/rocescope")
        if not user_exists("rocescope") or pwd.getpwuid(st.st_uid).pw_name != "rocescope" or \
                pwd.getpwnam("rocescope").pw_uid >= 1000:
            raise Fail("the system user rocescope and /var/lib/rocescope")
        conf = run("dpkg-query", "-W", "-f=${Conffiles}", "rocescope").stdout
        if "/etc/default/rocescope" not in conf:
            raise Fail("/etc/default/rocescope is not a conffile: %r" % conf)
        run("promtool", "check", "rules", "/usr/share/rocescope/rocescope.rules.yml")
        run(*APT, "remove", "rocescope", env=env)
        if os.path.exists("/usr/bin/rocescope") or not os.path.exists("/etc/default/rocescope"):
            raise Fail("apt-get remove: the command stays or the conffile went")
        run(*APT, "purge", "rocescope", env=env)
        left = [p for p in ("/etc/default/rocescope", "/var/lib/rocescope", "/var/log/rocescope",
                            "/lib/systemd/system/rocescope@.service") if os.path.exists(p)]
        if left or run("dpkg-query", "-W", "rocescope", check=False).returncode == 0:
            raise Fail("apt-get purge left %s" % left)
    finally:
        if run("dpkg-query", "-W", "rocescope", check=False).returncode == 0:
            run(*APT, "purge", "rocescope", env=env, check=False)
        if not had_user and user_exists("rocescope"):
            run("deluser", "--system", "--quiet", "rocescope", check=False)
        if not had_group and group_exists("rocescope"):
            run("delgroup", "--system", "--quiet", "rocescope", check=False)
    if user_exists("rocescope") != had_user or group_exists("rocescope") != had_group:
        raise Fail("the user or group rocescope was not put back as it was")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True, help="the build folder (CPackConfig.cmake)")
    ap.add_argument("--rocescope", required=True)
    ap.add_argument("--captures", required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("--plugin-dir", default="", help="the plugin's folder, when it is packaged")
    ap.add_argument("--tshark", default="tshark")
    a = ap.parse_args()
    for tool in ("cpack", "dpkg-deb", "lintian", "systemd-analyze"):
        if shutil.which(tool) is None:
            print("skip: %s is not installed (tools/setup.sh installs it)" % tool)
            return SKIP
    tmp = tempfile.mkdtemp(prefix="rocescope-package-")
    failed = 0
    try:
        run("cpack", "-G", "DEB", "-B", tmp, "--config",
            os.path.join(a.build, "CPackConfig.cmake"))
        debs = {}
        for name in os.listdir(tmp):
            m = re.match(r"^(rocescope(?:-wireshark-plugin)?)_([^_]+)_([^_]+)\.deb$", name)
            if m:
                debs[m.group(1)] = os.path.join(tmp, name)
        want = {"rocescope"} | ({"rocescope-wireshark-plugin"} if a.plugin_dir else set())
        if set(debs) != want:
            raise Fail("cpack made %s, expected %s" % (sorted(debs), sorted(want)))
        cli_root = os.path.join(tmp, "cliroot")
        extract(debs["rocescope"], cli_root)
        parts = [("contents and control fields",
                  lambda: check_contents(debs, a.version, a.plugin_dir)),
                 ("lintian", lambda: check_lintian(debs)),
                 ("systemd unit", lambda: check_unit(debs["rocescope"], tmp)),
                 ("bash completion", lambda: check_completion(a.rocescope, cli_root))]
        if a.plugin_dir:
            parts.append(("plugin package in tshark",
                          lambda: check_plugin(debs["rocescope-wireshark-plugin"], a.plugin_dir,
                                               a.tshark, a.captures, tmp)))
        parts.append(("apt-get install, remove, purge",
                      lambda: check_install(debs["rocescope"], a.rocescope, a.captures,
                                            a.version)))
        for name, part in parts:
            try:
                part()
                print("ok   %s" % name)
            except (Fail, OSError, subprocess.SubprocessError, ValueError, KeyError) as e:
                failed += 1
                print("FAIL %s: %s" % (name, e))
    except Fail as e:
        print("FAIL %s" % e)
        failed += 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
