#!/usr/bin/env python3
"""The capture readers give the same results as libpcap.

Classic pcap and pcapng files are read by rocescope's own readers
(analyzer/capture/pcap_classic.c, pcap_ng.c), which give way to libpcap for
anything they do not take; ROCESCOPE_READER=libpcap makes libpcap read
everything. For every capture in captures/ (ctest: readers) or every real
capture (--real, ctest: readers_real; tests/real_folder.py), and, with the
captures, for pcapng files made here (several sections and interfaces, time
stamp resolutions decimal and binary, time stamp offsets, Enhanced, Simple and
obsolete Packet Blocks, options and blocks to step over, both byte orders) and
for damaged files made here (classic: a record longer than the snapshot length,
a record cut by the end of the file, a cut record header, both byte orders and
both timestamp precisions; pcapng: blocks cut, with lengths that disagree or are
not multiples of 4, packets longer than the snapshot length or their block, on
an undescribed interface, bad options, a section of the other byte order, an
unknown version, a block larger than the reader takes), `rocescope --json` and
`rocescope --events` must give byte-identical output and the same exit status
and error message with either reader, from the file and from standard input.
"""
import argparse
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from real_folder import captures_in, real_folder  # noqa: E402
import capfiles as cf  # noqa: E402


def run(tool, args, reader, stdin=None):
    env = dict(os.environ)
    env.pop("ROCESCOPE_READER", None)
    if reader:
        env["ROCESCOPE_READER"] = reader
    with open(stdin, "rb") if stdin else open(os.devnull, "rb") as inp:
        p = subprocess.run([tool, *args], capture_output=True, env=env, timeout=300, stdin=inp)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def write(tmp, files):
    paths = []
    for name, data in files.items():
        p = os.path.join(tmp, name)
        with open(p, "wb") as f:
            f.write(data)
        paths.append(p)
    return paths


def damaged(src_frames, tmp):
    """Damaged and unusual classic pcap files built from real frames."""
    recs = [(f, len(f)) for _, f in src_frames[:6]]
    pcap = cf.pcap
    return write(tmp, {
        "big_endian_us.pcap": pcap(recs, magic=0xA1B2C3D4, endian=">"),
        "snaplen_exceeded.pcap": pcap(recs[:2] + [(recs[2][0], len(recs[2][0]))] + recs[3:],
                                      snaplen=len(recs[2][0]) - 10),
        "record_cut.pcap": pcap(recs)[:-7],
        "header_cut.pcap": pcap(recs) + b"\x01\x02\x03\x04\x05",
        "snaplen_zero.pcap": pcap(recs, snaplen=0),
    })


def ng_sections(frames, e="<"):
    """Two sections, two interfaces each, every time stamp form and block kind."""
    t0 = frames[0][0]
    res = [(9, None), (None, 100), (0x80 | 20, -5), (3, 7)]  # (if_tsresol, if_tsoffset) per interface
    out = cf.shb(e, options=cf.opt(4, b"rocescope tests", e) + cf.opts_end(e))
    out += cf.idb(tsresol=res[0][0], name="eth0", e=e) + cf.other(cf.NRB, e=e)
    out += cf.idb(tsresol=res[1][0], tsoffset=res[1][1], e=e)
    half = len(frames) // 2
    for i, (ts, data) in enumerate(frames[:half]):
        ifid = i % 2
        tsres, tsoff = res[ifid]
        t = (ts - (tsoff or 0) * 10**9) * cf.units(tsres) // 10**9
        out += cf.epb(ifid, t, data, comment="frame %d" % i if i % 3 == 0 else None, e=e)
    out += cf.other(cf.ISB, b"\x00" * 12, e=e)
    out += cf.shb(e, minor=2) + cf.idb(tsresol=res[2][0], tsoffset=res[2][1], e=e)
    out += cf.idb(tsresol=res[3][0], tsoffset=res[3][1], e=e)
    for i, (ts, data) in enumerate(frames[half:]):
        kind = i % 4
        ifid = 0 if kind < 2 else 1
        tsres, tsoff = res[2 + ifid]
        t = (ts - (tsoff or 0) * 10**9) * cf.units(tsres) // 10**9
        if kind == 1:
            out += cf.spb(data, e=e)
        elif kind == 2:
            out += cf.pb(ifid, t, data, e=e)
        else:
            out += cf.epb(ifid, t, data, e=e)
    return out


def pcapng_variants(frames, tmp):
    """pcapng files libpcap reads, made to cover what the reader handles."""
    return write(tmp, {
        "ng_sections.pcapng": ng_sections(frames),
        "ng_sections_be.pcapng": ng_sections(frames, ">"),
        "ng_snaplen_zero.pcapng": cf.shb() + cf.idb(snaplen=0) +
        b"".join(cf.epb(0, ts // 1000, d) for ts, d in frames[:8]),
        "ng_tsresol_ps.pcapng": cf.shb() + cf.idb(tsresol=12, tsoffset=1700000000) +
        b"".join(cf.epb(0, (ts - 1700000000 * 10**9) * 1000, d) for ts, d in frames[:8]),
        "ng_big_block.pcapng": cf.shb() + cf.idb() + cf.epb(0, 1, frames[0][1]) +
        cf.block(cf.EPB, struct.pack("<IIIII", 0, 0, 2, len(frames[1][1]), len(frames[1][1])) +
                 cf.pad4(frames[1][1]) + cf.opt(1, b"x" * 60000) * 20 + cf.opts_end()) +
        b"".join(cf.epb(0, 3 + i, d) for i, (_, d) in enumerate(frames[2:8])),
    })


def ng_damaged(frames, tmp):
    """Damaged pcapng files: libpcap says what is wrong, in its words."""
    head = cf.shb() + cf.idb()
    good = b"".join(cf.epb(0, ts // 1000, d) for ts, d in frames[:6])
    d0 = frames[0][1]
    return write(tmp, {
        "ng_block_cut.pcapng": (head + good)[:-9],
        "ng_header_cut.pcapng": head + good + b"\x06\x00\x00",
        "ng_trailer_differs.pcapng": head + good[:len(good) // 2] +
        cf.block(cf.EPB, struct.pack("<IIIII", 0, 0, 0, len(d0), len(d0)) + d0, trailer=4) + good,
        "ng_length_odd.pcapng": head + good + cf.block(cf.EPB, b"\x00" * 24, length=38),
        "ng_caplen_snaplen.pcapng": cf.shb() + cf.idb(snaplen=len(d0) - 4) + cf.epb(0, 5, d0),
        "ng_caplen_block.pcapng": head + good + cf.epb(0, 5, d0, caplen=len(d0) + 40),
        "ng_no_interface.pcapng": head + good + cf.epb(3, 5, d0),
        "ng_tsresol_len.pcapng": head + good + cf.shb() +
        cf.block(cf.IDB, struct.pack("<HHI", 1, 0, 65535) + cf.opt(9, b"\x09\x09") + cf.opts_end()) +
        cf.epb(0, 5, d0),
        "ng_section_swapped.pcapng": head + good + cf.shb(">") + cf.idb(e=">") + cf.epb(0, 5, d0, e=">"),
        "ng_section_no_idb.pcapng": head + good + cf.shb() + cf.spb(d0),
        "ng_version.pcapng": cf.shb(minor=1) + cf.idb() + good,
        "ng_packet_first.pcapng": cf.shb() + cf.epb(0, 5, d0) + cf.idb() + good,
        "ng_no_idb.pcapng": cf.shb() + cf.other(cf.NRB),
    })


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rocescope", required=True)
    ap.add_argument("--captures", help="the scenario captures (and damaged files made from them)")
    ap.add_argument("--real", help="the real captures instead (readers_real)")
    ap.add_argument("--sample", type=int, default=0,
                    help="only N of the scenario captures, spread evenly (the sanitizer build)")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="rocescope-readers-")
    if a.real:
        files, made, frames = captures_in(real_folder(a.real)), [], []
    else:
        frames = cf.frames_of(os.path.join(a.captures, "loss_receiver.pcap"))
        made = damaged(frames, tmp) + pcapng_variants(frames, tmp) + ng_damaged(frames, tmp)
        files = cf.sample(captures_in(a.captures, (".pcap", ".pcapng")), a.sample) + made
    failures = []
    for path in files:
        for mode in ("--json", "--events"):
            fast = run(a.rocescope, [mode, path], None)
            slow = run(a.rocescope, [mode, path], "libpcap")
            if fast != slow:
                failures.append(f"{os.path.basename(path)} {mode}: readers differ "
                                f"(exit {fast[0]} vs {slow[0]}; stderr {fast[2].strip()!r} vs {slow[2].strip()!r})")
    # the same from standard input (a stream: libpcap then reads the kept
    # headers and the rest of the input), the file's name aside
    for path in made:
        name = os.path.basename(path)
        for mode in ("--json", "--events"):
            fast = run(a.rocescope, [mode, "-"], None, stdin=path)
            slow = run(a.rocescope, [mode, path], "libpcap")
            slow = (slow[0], slow[1].replace(path, "-"), slow[2].replace(path, "-"))
            if fast != slow:
                failures.append(f"{name} {mode} on standard input: differs from libpcap on the file "
                                f"(exit {fast[0]} vs {slow[0]}; stderr {fast[2].strip()!r} vs {slow[2].strip()!r})")
    # the files libpcap reads are read whole (no problem reported)
    for path in pcapng_variants(frames, tmp) if frames else []:
        code, out, err = run(a.rocescope, ["--json", path], None)
        if code != 0 or err or '"complete": true' not in out:
            failures.append(f"{os.path.basename(path)}: not read whole (exit {code}, {err.strip()!r})")
    for f in failures:
        print("FAIL:", f)
    print(f"{len(files)} files compared with both readers, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
