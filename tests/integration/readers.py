#!/usr/bin/env python3
"""Both capture readers give the same results.

Classic pcap files are read by rocescope's own mapped-file reader
(analyzer/capture/pcapmap.c), everything else by libpcap; ROCESCOPE_READER=libpcap
forces libpcap. For every capture in captures/ and for damaged files made
here (a record longer than the file's snapshot length, a record cut by the
end of the file, a cut record header, both byte orders and both timestamp
precisions) (ctest: readers), or for every real capture (--real, ctest:
readers_real; tests/real_folder.py), `rocescope --json` and
`rocescope --events` must give byte-identical output and the same exit status
and error message with either reader.
"""
import argparse
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from real_folder import captures_in, real_folder  # noqa: E402


def run(tool, args, reader):
    env = dict(os.environ)
    env.pop("ROCESCOPE_READER", None)
    if reader:
        env["ROCESCOPE_READER"] = reader
    p = subprocess.run([tool, *args], capture_output=True, text=True, env=env, timeout=300)
    return p.returncode, p.stdout, p.stderr


def pcap(records, magic=0xA1B23C4D, snaplen=65535, endian="<", linktype=1):
    out = struct.pack(endian + "IHHiIII", magic, 2, 4, 0, 0, snaplen, linktype)
    for i, (data, incl) in enumerate(records):
        out += struct.pack(endian + "IIII", 1700000000 + i, 500 * i, incl, max(incl, len(data)))
        out += data
    return out


def damaged(src_frames, tmp):
    """Damaged and unusual classic pcap files built from real frames."""
    recs = [(f, len(f)) for f in src_frames[:6]]
    files = {
        "big_endian_us.pcap": pcap(recs, magic=0xA1B2C3D4, endian=">"),
        "snaplen_exceeded.pcap": pcap(recs[:2] + [(recs[2][0], len(recs[2][0]))] + recs[3:],
                                      snaplen=len(recs[2][0]) - 10),
        "record_cut.pcap": pcap(recs)[:-7],
        "header_cut.pcap": pcap(recs) + b"\x01\x02\x03\x04\x05",
        "snaplen_zero.pcap": pcap(recs, snaplen=0),
    }
    paths = []
    for name, data in files.items():
        p = os.path.join(tmp, name)
        with open(p, "wb") as f:
            f.write(data)
        paths.append(p)
    return paths


def frames_of(path):
    with open(path, "rb") as f:
        data = f.read()
    if struct.unpack_from("<I", data, 0)[0] != 0xA1B23C4D:
        return []
    out, off = [], 24
    while off + 16 <= len(data):
        incl = struct.unpack_from("<I", data, off + 8)[0]
        out.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rocescope", required=True)
    ap.add_argument("--captures", help="the scenario captures (and damaged files made from them)")
    ap.add_argument("--real", help="the real captures instead (readers_real)")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="rocescope-readers-")
    if a.real:
        files = captures_in(real_folder(a.real))
    else:
        files = captures_in(a.captures, (".pcap", ".pcapng"))
        files += damaged(frames_of(os.path.join(a.captures, "loss_receiver.pcap")), tmp)
    failures = []
    for path in files:
        for mode in ("--json", "--events"):
            fast = run(a.rocescope, [mode, path], None)
            slow = run(a.rocescope, [mode, path], "libpcap")
            if fast != slow:
                failures.append(f"{os.path.basename(path)} {mode}: readers differ "
                                f"(exit {fast[0]} vs {slow[0]}; stderr {fast[2].strip()!r} vs {slow[2].strip()!r})")
    for f in failures:
        print("FAIL:", f)
    print(f"{len(files)} files compared with both readers, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
