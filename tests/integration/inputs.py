#!/usr/bin/env python3
"""Inputs users have: compressed captures, standard input, mixed link types.

- Compressed: every capture in captures/ gzip-, zstd- and lz4-compressed
  (zstd and lz4 when their tools are installed) gives the report and the
  events of the capture itself, the file names aside; the format is told by the
  first bytes (a gzip file named .pcap is decompressed); two concatenated gzip
  members read as one stream; a compressed file cut short or corrupt is the
  file's problem ("gzip: compressed data cut short"), after the report of what
  was read.
- Standard input: `rocescope -` reads a capture (pcap, pcapng, compressed) from
  a pipe as from the file; an empty input is an error.
- Mixed link types: a pcapng file with an Ethernet and a Linux cooked interface
  (as dumpcap -i eth0 -i any writes), which libpcap refuses, gives the events
  and report of the same frames all captured on Ethernet.
"""
import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

import capfiles as cf


def run(tool, args, stdin_bytes=None, env=None):
    full_env = dict(os.environ)
    full_env.pop("ROCESCOPE_READER", None)
    full_env.update(env or {})
    p = subprocess.run([tool, *args], capture_output=True, env=full_env, timeout=300,
                       input=stdin_bytes if stdin_bytes is not None else b"")
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def without_bytes(o):
    """o without its "bytes" members (wire lengths), at every depth."""
    if isinstance(o, dict):
        return {k: without_bytes(v) for k, v in o.items() if k != "bytes"}
    if isinstance(o, list):
        return [without_bytes(v) for v in o]
    return o


def named(result, path, name):
    """A result with the file's name in place of path."""
    code, out, err = result
    return code, out.replace(path, name), err.replace(path, name)


class Checks:
    def __init__(self):
        self.failures, self.count = [], 0

    def equal(self, what, got, want):
        self.count += 1
        if got != want:
            self.failures.append(f"{what}: got exit {got[0]} {got[2].strip()[:200]!r}, "
                                 f"want exit {want[0]} {want[2].strip()[:200]!r}"
                                 + ("" if got[1] == want[1] else " (outputs differ)"))

    def true(self, what, cond):
        self.count += 1
        if not cond:
            self.failures.append(what)


def gzip_file(src, dst):
    with open(src, "rb") as f, open(dst, "wb") as g:
        g.write(gzip.compress(f.read()))


def tool_compressor(exe, out_flag):
    def compress(src, dst):
        subprocess.run([exe, "-q", "-f", src] + ([out_flag] if out_flag else []) + [dst],
                       check=True)
    return compress


def compressors():
    """(suffix, function writing a compressed copy) of the formats testable here."""
    out = [(".gz", gzip_file)]
    for name, suffix, out_flag in (("zstd", ".zst", "-o"), ("lz4", ".lz4", None)):
        exe = shutil.which(name)
        if exe:
            out.append((suffix, tool_compressor(exe, out_flag)))
        else:
            print(f"note: {name} not installed, its format not tested")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rocescope", required=True)
    ap.add_argument("--captures", required=True)
    ap.add_argument("--sample", type=int, default=0,
                    help="only N of the scenario captures, spread evenly (the sanitizer build)")
    a = ap.parse_args()
    tool, c = a.rocescope, Checks()
    tmp = tempfile.mkdtemp(prefix="rocescope-inputs-")
    caps = cf.sample([os.path.join(a.captures, n) for n in os.listdir(a.captures)
                      if n.endswith((".pcap", ".pcapng"))], a.sample, ("clean_rc.pcapng",))

    # compressed files and standard input give the capture's own results
    for cap in caps:
        base = os.path.basename(cap)
        for mode in ("--json", "--events"):
            want = run(tool, [mode, cap])
            for suffix, compress in compressors():
                z = os.path.join(tmp, base + suffix)
                if not os.path.exists(z):
                    compress(cap, z)
                c.equal(f"{base}{suffix} {mode}", named(run(tool, [mode, z]), z, cap), want)
            with open(cap, "rb") as f:
                data = f.read()
            c.equal(f"{base} {mode} on standard input",
                    run(tool, [mode, "-"], data), named(want, cap, "-"))
            if base == "clean_rc.pcapng":
                gz = gzip.compress(data)
                c.equal(f"{base}.gz {mode} on standard input",
                        run(tool, [mode, "-"], gz), named(want, cap, "-"))

    # the magic decides, not the name; gzip members one after the other
    cap = os.path.join(a.captures, "loss_receiver.pcap")
    with open(cap, "rb") as f:
        data = f.read()
    want = run(tool, ["--json", cap])
    odd = os.path.join(tmp, "compressed_but_named.pcap")
    with open(odd, "wb") as f:
        f.write(gzip.compress(data))
    c.equal("gzip file named .pcap", named(run(tool, ["--json", odd]), odd, cap), want)
    members = os.path.join(tmp, "members.pcap.gz")
    with open(members, "wb") as f:
        f.write(gzip.compress(data[:1000]) + gzip.compress(data[1000:]))
    c.equal("two gzip members", named(run(tool, ["--json", members]), members, cap), want)

    # cut or corrupt compressed input: the file's problem, after what was read
    big = os.path.join(a.captures, "ecn_cnp.pcap")
    with open(big, "rb") as f:
        bigdata = f.read()
    cut = os.path.join(tmp, "cut.pcap.gz")
    with open(cut, "wb") as f:
        f.write(gzip.compress(bigdata)[:-40])
    code, out, err = run(tool, ["--json", cut])
    c.true(f"cut gzip: exit {code}, {err.strip()!r}",
           code == 1 and err.strip() == f"rocescope: {cut}: gzip: compressed data cut short"
           and '"complete": false' in out and "compressed data cut short" in out)
    bad = os.path.join(tmp, "corrupt.pcap.gz")
    z = bytearray(gzip.compress(bigdata))
    z[len(z) // 2] ^= 0xFF
    with open(bad, "wb") as f:
        f.write(bytes(z))
    code, out, err = run(tool, ["--json", bad])
    c.true(f"corrupt gzip: exit {code}, {err.strip()!r}",
           code == 1 and err.startswith(f"rocescope: {bad}: gzip: "))
    for suffix, compress in compressors()[1:]:
        z = os.path.join(tmp, "cut" + suffix)
        compress(big, z + ".whole")
        with open(z + ".whole", "rb") as f:
            whole = f.read()
        with open(z, "wb") as f:
            f.write(whole[:len(whole) // 2])
        code, out, err = run(tool, [z])
        kind = "zstd" if suffix == ".zst" else "lz4"
        c.true(f"cut {kind}: exit {code}, {err.strip()!r}",
               code == 1 and err.strip() == f"rocescope: {z}: {kind}: compressed data cut short")
    code, out, err = run(tool, ["-"], b"")
    c.true(f"empty standard input: exit {code}, {err.strip()!r}",
           code == 1 and err.strip() == "rocescope: -: empty input, not a capture")
    code, out, err = run(tool, ["-"], gzip.compress(b""))
    c.true(f"empty gzip on standard input: exit {code}, {err.strip()!r}",
           code == 1 and err.strip() == "rocescope: -: gzip-compressed empty input, not a capture")

    # an Ethernet and a Linux cooked interface in one pcapng file
    frames = cf.frames_of(cap)
    mixed = cf.shb() + cf.idb(cf.LINKTYPE_ETHERNET, tsresol=9) + cf.idb(cf.LINKTYPE_LINUX_SLL,
                                                                        tsresol=9)
    for i, (ts, d) in enumerate(frames):
        mixed += cf.epb(i % 2, ts, cf.sll(d) if i % 2 else d)
    mixed_path = os.path.join(tmp, "mixed.pcapng")
    with open(mixed_path, "wb") as f:
        f.write(mixed)
    c.equal("mixed link types --events", run(tool, ["--events", mixed_path]),
            run(tool, ["--events", cap]))
    got, want = named(run(tool, ["--json", mixed_path]), mixed_path, cap), run(tool, ["--json", cap])
    gj, wj = json.loads(got[1]), json.loads(want[1])
    sll_frames = len(frames) // 2  # a cooked header is 2 bytes longer than Ethernet's
    c.true(f"mixed link types: bytes {gj['capture']['bytes']} vs {wj['capture']['bytes']}",
           gj["capture"]["bytes"] == wj["capture"]["bytes"] + 2 * sll_frames)
    c.equal("mixed link types --json (bytes aside)",
            (got[0], json.dumps(without_bytes(gj)), got[2]),
            (want[0], json.dumps(without_bytes(wj)), want[2]))
    code, out, err = run(tool, [mixed_path], env={"ROCESCOPE_READER": "libpcap"})
    c.true(f"libpcap refuses the mixed file: exit {code}, {err.strip()!r}",
           code == 1 and "different from the type of the first interface" in err)
    cut_mixed = os.path.join(tmp, "mixed_cut.pcapng")
    with open(cut_mixed, "wb") as f:
        f.write(mixed[:-10])
    code, out, err = run(tool, ["--json", cut_mixed])
    c.true(f"mixed file cut short: exit {code}, {err.strip()!r}",
           code == 1 and err.strip() == f"rocescope: {cut_mixed}: pcapng: block cut short or invalid"
           and '"complete": false' in out)

    for f in c.failures:
        print("FAIL:", f)
    print(f"{c.count} checks, {len(c.failures)} failures")
    shutil.rmtree(tmp, ignore_errors=True)
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
