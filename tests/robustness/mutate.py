#!/usr/bin/env python3
"""Corrupted captures, Wireshark's way: every capture of captures/ and
tests/robustness/ (ctest robust_mutate), or with --real every real capture
(../shared/captures/real, read in place, never copied anywhere; ctest
robust_mutate_real; tests/real_folder.py) is mutated with
`editcap -E PROB --seed S` (random byte errors in the frames, PROB 0.01 to
0.1) and cut at random offsets (the file structure itself breaks), and the
CLI runs on every result, in turn as --json, --events and the text summary.
With --tshark, tshark with the plugin runs on every result instead (fewer
inputs: tshark takes most of a second to start; the mutated copies, not the
cut ones: see TSHARK_CUTS), two-pass, with the full
tree (-V), the plugin's flow table (-z roce,flows) and expert info.

Each run must end on its own (timeout), without a signal and without a
sanitizer report on stderr, with exit status 0 or 1; status 1 needs an
error line `rocescope: FILE: WHY`; a JSON report, when one is written, must
parse, add up (packets = RoCE + malformed + non-RoCE) and say whether it is
complete (false exactly when the status is 1).

tshark must end on its own without a signal or a sanitizer report, with
status 0 (and the plugin's table printed: it was loaded) or 2 (an error
line: the file is damaged); no frame may show a RoCE dissector bug or a
malformed RoCE layer (the plugin decodes through the engine and never reads
past the captured bytes). The plugin may be a sanitizer build: --preload
names the runtimes tshark then needs (LD_PRELOAD).

What editcap cannot rewrite (pcap of link type 247, InfiniBand, which
Wireshark does not read; raw ERF files, which it cannot write) gets the same
random byte errors in its frames from this script, keeping the format.

--sample (the sanitizer build's share in the contributor's suite,
tests/CMakeLists.txt) mutates every other source capture, and every one of
a file type (extension) not taken yet and of tests/robustness/; the normal
build and the sanitizer build's release tier mutate every one.

Deterministic: the mutations come from fixed seeds (--seed). The default is
the CI size (a few hundred runs); --many multiplies it. Inputs that fail are
kept in --keep (default: a temporary folder, printed) with the command that
made them.
"""
import argparse
import concurrent.futures
import glob
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from real_folder import captures_in, real_folder  # noqa: E402

import checks

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "plugin"))
from tshark_env import TsharkEnv  # noqa: E402

PROBS = (0.01, 0.02, 0.05, 0.1)
MODES = (["--json"], ["--events"], [], ["--html", os.devnull, "--top", "1000"],
         ["--annotate", os.devnull])
CI_MUTATIONS, CI_CUTS = 3, 2
# through tshark, no cut copies: a file cut short ends in wiretap's error at
# its last record, and the plugin sees whole frames up to it, as in any other
# capture; the cuts of the CLI's runs are its own readers' work
TSHARK_MUTATIONS, TSHARK_CUTS = 1, 0
TSHARK_ARGS = ("-n", "-2", "-V", "-z", "roce,flows", "-z", "expert")
TSHARK_TABLE = "RoCE flows (rocescope)"
TSHARK_BUGS = ("Dissector bug, protocol RoCE", "Malformed Packet: RoCE]")
MANY_FACTOR = 20
# editcap output type by the source's first 4 bytes (editcap writes pcapng by default)
FORMATS = {b"\xd4\xc3\xb2\xa1": ("pcap", "pcap"), b"\xa1\xb2\xc3\xd4": ("pcap", "pcap"),
           b"\x4d\x3c\xb2\xa1": ("nsecpcap", "pcap"), b"\xa1\xb2\x3c\x4d": ("nsecpcap", "pcap")}
PCAPNG = ("pcapng", "pcapng")
PCAP_MAGICS = {b"\xd4\xc3\xb2\xa1": "<", b"\x4d\x3c\xb2\xa1": "<",
               b"\xa1\xb2\xc3\xd4": ">", b"\xa1\xb2\x3c\x4d": ">"}
LINKTYPE_INFINIBAND = 247


def sources(captures, robustness, real):
    """The capture files to mutate (the real ones with --real, else the
    scenario and robustness captures), and a note saying which."""
    if real:
        reals = captures_in(real_folder(real))
        return reals, f"{len(reals)} real captures from {real}"
    found = []
    for d in (captures, robustness):
        for pat in ("*.pcap", "*.pcapng", "*.erf"):
            found += sorted(glob.glob(os.path.join(d, pat)))
    return found, f"the captures of {captures} and {robustness}"


def sample_sources(srcs, robustness):
    """Every other source, and each one of a file type not taken yet or of
    the robustness folder (--sample)."""
    kept, kinds = [], set()
    for i, src in enumerate(srcs):
        kind = os.path.splitext(src)[1]
        if i % 2 == 0 or kind not in kinds or \
                os.path.dirname(os.path.abspath(src)) == os.path.abspath(robustness):
            kept.append(src)
            kinds.add(kind)
    return kept


def own_format(data, path):
    """True for what editcap cannot rewrite: raw ERF files, pcap of link type 247."""
    if path.endswith(".erf"):
        return True
    order = PCAP_MAGICS.get(data[:4])
    return order is not None and len(data) >= 24 and \
        struct.unpack(order + "I", data[20:24])[0] & 0xFFFF == LINKTYPE_INFINIBAND


def byte_errors(data, path, prob, seed):
    """editcap -E's random byte errors, in the frames of a classic pcap or a
    raw ERF file (record headers kept)."""
    rng = random.Random(seed)
    out = bytearray(data)
    order = PCAP_MAGICS.get(data[:4])
    spans = []
    if order is not None:  # records: 16-byte header, incl_len at 8
        off = 24
        while off + 16 <= len(out):
            incl = struct.unpack(order + "I", out[off + 8:off + 12])[0]
            spans.append((off + 16, min(off + 16 + incl, len(out))))
            off += 16 + incl
    else:  # ERF: 16-byte header, rlen (big-endian) at 10, the whole record
        off = 0
        while off + 16 <= len(out):
            rlen = struct.unpack(">H", out[off + 10:off + 12])[0]
            if rlen < 16:
                break
            spans.append((off + 16, min(off + rlen, len(out))))
            off += rlen
    for start, end in spans:
        for j in range(start, end):
            if rng.random() < prob:
                out[j] = rng.randrange(256)
    return bytes(out)


def make_inputs(srcs, work, editcap, seed, n_mut, n_cut):
    """Write the mutated and cut files; returns [(path, how)]."""
    rng = random.Random(seed)
    out = []
    for i, src in enumerate(srcs):
        base = f"{i:03d}_{os.path.basename(src)}"
        with open(src, "rb") as f:
            data = f.read()
        ftype, ext = FORMATS.get(data[:4], PCAPNG)
        for m in range(n_mut):
            prob = PROBS[(i + m) % len(PROBS)]
            s = rng.randrange(1, 2 ** 31)
            if own_format(data, src):
                dst = os.path.join(work, f"{base}.E{prob}.s{s}{os.path.splitext(src)[1]}")
                with open(dst, "wb") as f:
                    f.write(byte_errors(data, src, prob, s))
                out.append((dst, f"mutate.py byte_errors(prob {prob}, seed {s}) of {src}"))
                continue
            dst = os.path.join(work, f"{base}.E{prob}.s{s}.{ext}")
            how = f"editcap -F {ftype} -E {prob} --seed {s} {src} OUT"
            r = subprocess.run([editcap, "-F", ftype, "-E", str(prob), "--seed", str(s), src, dst],
                               capture_output=True, text=True, timeout=120)
            if r.returncode != 0:
                print(f"editcap failed ({how}): {r.stderr.strip()[:200]}")
                continue
            out.append((dst, how))
        for _ in range(n_cut):
            off = rng.randrange(0, max(1, len(data)))
            dst = os.path.join(work, f"{base}.cut{off}")
            with open(dst, "wb") as f:
                f.write(data[:off])
            out.append((dst, f"head -c {off} {src} > OUT"))
    return out


def run_one(tool, path, mode, timeout):
    """Run the CLI on one input; returns a problem text or None."""
    try:
        p = checks.run([tool, *mode, path], timeout)
    except subprocess.TimeoutExpired:
        return f"hang: no exit within {timeout} s"
    if p.status < 0:
        return f"killed by signal {-p.status}"
    bad = checks.sanitizer_report(p.stderr)
    if bad:
        return "sanitizer report: " + bad
    if p.status not in (0, 1):
        return f"exit status {p.status}: {p.stderr.strip()[:300]}"
    if p.status == 1 and f"rocescope: {path}: " not in p.stderr:
        return f"exit 1 without an error line: {p.stderr.strip()[:300]}"
    try:
        if mode == ["--json"] and (p.status == 0 or p.stdout):
            problems = checks.report_problems(json.loads(p.stdout), p.status)
            return "; ".join(problems) if problems else None
        for line in p.stdout.splitlines() if mode == ["--events"] else []:
            json.loads(line)
    except (ValueError, KeyError, TypeError) as e:
        return f"bad output: {e!r}"
    return None


def run_one_tshark(env, path, timeout):
    """Run tshark with the plugin on one input; returns a problem text or None."""
    try:
        rc, out, err = env.run("-r", path, *TSHARK_ARGS, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"hang: no exit within {timeout} s"
    if rc < 0:
        return f"killed by signal {-rc}"
    bad = checks.sanitizer_report(err)
    if bad:
        return "sanitizer report: " + bad
    if rc not in (0, 2):
        return f"exit status {rc}: {err.strip()[:300]}"
    if rc == 0 and TSHARK_TABLE not in out:
        return "no `-z roce,flows` table: the plugin was not loaded"
    if rc == 2 and "tshark: " not in err:
        return f"exit 2 without an error line: {err.strip()[:300]}"
    for line in out.splitlines():
        if any(b in line for b in TSHARK_BUGS):
            return f"frame shows: {line.strip()[:300]}"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rocescope", help="the CLI (unless --tshark)")
    ap.add_argument("--editcap", default=shutil.which("editcap"))
    ap.add_argument("--captures", required=True, help="the captures/ folder")
    ap.add_argument("--robustness", default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--real", default=None, help="mutate the real captures of this folder instead "
                    "(OFF: skipped, exit 77; tests/real_folder.py)")
    ap.add_argument("--many", action="store_true", help=f"{MANY_FACTOR} times more inputs")
    ap.add_argument("--sample", action="store_true",
                    help="every other source capture, every file type (the sanitizer build)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds per run")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--keep", default=None, help="folder for the inputs that fail")
    ap.add_argument("--tshark", default=None, help="run tshark with --plugin instead of the CLI")
    ap.add_argument("--plugin", default=None, help="the plugin (rocescope.so) for --tshark")
    ap.add_argument("--wireshark-version", default=None, help="plugin folder name, as 4.0")
    ap.add_argument("--preload", default="", help="libraries tshark preloads (the sanitizer "
                    "runtimes of a sanitizer build of the plugin), separated by spaces")
    a = ap.parse_args()
    if a.tshark and not (a.plugin and a.wireshark_version):
        ap.error("--tshark needs --plugin and --wireshark-version")
    if not a.tshark and not a.rocescope:
        ap.error("--rocescope or --tshark is needed")
    if not a.editcap:
        print("editcap not found")
        return 1

    srcs, note = sources(a.captures, a.robustness, a.real)
    if a.sample:
        note += f" (--sample: {len(sample_sources(srcs, a.robustness))} of {len(srcs)})"
        srcs = sample_sources(srcs, a.robustness)
    print(f"mutate: {len(srcs)} source captures; {note}")
    if not srcs:
        print("mutate: nothing to mutate")
        return 1
    factor = MANY_FACTOR if a.many else 1
    n_mut, n_cut = (TSHARK_MUTATIONS, TSHARK_CUTS) if a.tshark else (CI_MUTATIONS, CI_CUTS)
    # as root tshark runs as an unprivileged user (tshark_env.py): it must read the inputs
    where = "/tmp" if a.tshark and os.geteuid() == 0 else None
    work = tempfile.mkdtemp(prefix="rocescope-mutate-", dir=where)
    os.chmod(work, 0o755)
    env = None
    try:
        inputs = make_inputs(srcs, work, a.editcap, a.seed, n_mut * factor, n_cut * factor)
        for path, _ in inputs:
            os.chmod(path, 0o644)
        if a.tshark:
            extra = {"LD_PRELOAD": a.preload,
                     "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1",
                     "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1"} if a.preload else {}
            env = TsharkEnv(a.tshark, a.plugin, a.wireshark_version, extra_env=extra).__enter__()
            jobs = [(path, how, ["tshark", *TSHARK_ARGS, "-r"]) for path, how in inputs]

            def one(path, mode):
                del mode
                return run_one_tshark(env, path, a.timeout)
        else:
            jobs = [(path, how, MODES[i % len(MODES)]) for i, (path, how) in enumerate(inputs)]

            def one(path, mode):
                return run_one(a.rocescope, path, mode, a.timeout)
        failures = []
        with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
            futs = {ex.submit(one, p, m): (p, h, m) for p, h, m in jobs}
            for fut in concurrent.futures.as_completed(futs):
                problem = fut.result()
                if problem:
                    failures.append((futs[fut], problem))
        report = []
        if failures:
            keep = a.keep or tempfile.mkdtemp(prefix="rocescope-mutate-fail-")
            os.makedirs(keep, exist_ok=True)
            for (path, how, mode), problem in sorted(failures):
                shutil.copy(path, keep)
                report.append(f"{'' if a.tshark else 'rocescope '}{' '.join(mode)} "
                              f"{os.path.join(keep, os.path.basename(path))}\n"
                              f"      made by: {how}\n      {problem}")
            print(f"mutate: failing inputs kept in {keep}")
        if not jobs:
            report.append("nothing was mutated")
        what = "tshark with the plugin" + (" (sanitizers)" if a.preload else "") if a.tshark \
            else "the CLI"
        return checks.finish(report, f"mutate: {len(jobs)} mutated captures through {what}")
    finally:
        if env is not None:
            env.__exit__(None, None, None)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
