#!/usr/bin/env python3
"""`rocescope --annotate OUT.pcapng`: the input, frame for frame, with the verdicts as comments.

- Round trip: every packet of the annotated file equals the input's, as tshark
  reads both (time stamp, captured and original length, encapsulation, the
  interface's name, the bytes) and as libpcap reads both (through ctypes: the
  time stamp in nanoseconds, the lengths, the bytes, the link type), on
  classic pcap (nanosecond and microsecond), pcapng, raw ERF, header-only and
  cut-short captures of captures/, a gzip-compressed file, several files
  (frames numbered on across them), and a pcapng file built here with three
  interfaces of two link types (names, time stamp resolutions of 10^-9 s,
  10^-6 s and 2^-20 s, an offset), Enhanced, Simple and obsolete Packet
  Blocks, a second section in the other byte order and comments of its own;
  the interfaces' names and time stamp resolutions are those of the input
  (capinfos); the section header says "rocescope VERSION" and the command
  line.
- The comments: on every sample capture (--sample N: N of them, the sanitizer
  build's share), the `rocescope: NAME (KEY=VALUE, ...)`
  lines of each frame are the verdicts of `--events` for that frame, in its
  order, with its values; no other frame has one; each `rocescope: diagnosis
  KIND (SEVERITY): ...` line is on an evidence frame of a finding of that
  kind in the JSON report; frame 1 begins with the summary's title and
  Diagnosis section.
- The input's own comments are kept, before rocescope's.
- `rocescope localize --annotate DIR` (the two taps of captures/localize):
  DIR/NAME.pcapng per point, its capture frame for frame (tshark), with the
  comments (tshark) `rocescope --annotate` gives that capture alone (read
  by this script's pcapng reader, as in the comments' check), then on the frames
  the JSON result cites for that point its losses and CE marks as
  `rocescope: localize: ...` lines; refused with --split-by, on a file that is
  not a folder, onto an input; nothing left behind when an input is missing.
- Stock tshark without the plugin (an empty plugin folder, a home of its own)
  filters them: `frame.comment contains "rocescope: retransmission"` gives the
  frames --events calls retransmissions.
- Safety: an input is never the output (also through a symbolic link), standard
  input and a live capture are refused (the files are read again), `-`
  writes the pcapng on standard output beside `-o PATH`, nothing is left
  behind when the analysis fails; the other cases of -o are in
  output_safety.py.
"""
import argparse
import ctypes
import ctypes.util
import glob
import gzip
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

import capfiles as cf

TIMEOUT_S = 120
VERDICT_LINE = re.compile(r"^rocescope: ([a-z_]+)(?: \((.*)\))?$")
DIAG_LINE = re.compile(r"^rocescope: diagnosis ([a-z_]+) \((error|warning|note)\): ")
# the keys of an --events object that are the frame's, not a verdict's
FRAME_KEYS = {"frame", "time", "src", "dst", "dest_qp", "flow_id", "opcode", "psn", "verdicts"}


class Checks:
    def __init__(self):
        self.failures, self.count = [], 0

    def true(self, what, cond):
        self.count += 1
        if not cond:
            self.failures.append(what)
        return cond


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, timeout=TIMEOUT_S, **kw)


class Tshark:
    """Stock tshark: no plugin folder, no personal configuration."""

    def __init__(self, exe, tmp):
        self.exe = exe
        home = os.path.join(tmp, "tshark-home")
        plugins = os.path.join(tmp, "tshark-plugins")
        os.makedirs(home, exist_ok=True)
        os.makedirs(plugins, exist_ok=True)
        self.env = dict(os.environ, HOME=home, WIRESHARK_PLUGIN_DIR=plugins,
                        WIRESHARK_CONFIG_DIR=home, XDG_CONFIG_HOME=home)

    def __call__(self, *args):
        p = run([self.exe, *args], env=self.env)
        return p.returncode, p.stdout.decode(errors="replace")

    def packets(self, path, names=True):
        """(exit status, per packet its time, lengths, encapsulation and
        interface name ("unknown" for a pcapng interface without one), per
        packet its bytes), one tshark run: the frame layer of -T json and
        its bytes (-x)."""
        return self.packets_and_comments(path, names)[:3]

    def packets_and_comments(self, path, names=True):
        """packets(), and {frame number: [comments]} of the same run."""
        code, out = self("-r", path, "-T", "json", "-x", "-J", "frame pkt_comment",
                         "--no-duplicate-keys")
        try:
            pkts = json.loads(out or "[]")
        except ValueError:  # nothing read (a link type tshark does not read)
            pkts = []
        rows, raw, comments = [], [], {}
        for pkt in pkts:
            layers = pkt["_source"]["layers"]
            frame = layers.get("frame", {})
            row = [frame.get(k, "") for k in ("frame.time_epoch", "frame.len", "frame.cap_len",
                                              "frame.encap_type")]
            if names:
                row.append(frame.get("frame.interface_id_tree", {}).get("frame.interface_name",
                                                                          ""))
            rows.append("\t".join(row))
            raw.append(layers.get("frame_raw", [""])[0])
            lines = layers.get("pkt_comment", {}).get("frame.comment", [])
            comments[int(frame["frame.number"])] = [lines] if isinstance(lines, str) else lines
        return code, rows, raw, comments

    def comments(self, path):
        """{frame number: [comments]}."""
        code, out = self("-r", path, "-T", "json", "-e", "frame.number", "-e", "frame.comment")
        res = {}
        for pkt in json.loads(out or "[]"):
            layers = pkt["_source"]["layers"]
            res[int(layers["frame.number"][0])] = layers.get("frame.comment", [])
        return code, res


class Libpcap:
    """libpcap through ctypes: every record of a file, nanosecond time stamps."""

    class Hdr(ctypes.Structure):
        _fields_ = [("sec", ctypes.c_long), ("frac", ctypes.c_long), ("caplen", ctypes.c_uint32),
                    ("len", ctypes.c_uint32)]

    def __init__(self):
        name = ctypes.util.find_library("pcap")
        self.lib = ctypes.CDLL(name) if name else None
        if self.lib is not None:
            self.lib.pcap_open_offline_with_tstamp_precision.restype = ctypes.c_void_p
            self.lib.pcap_open_offline_with_tstamp_precision.argtypes = [
                ctypes.c_char_p, ctypes.c_uint, ctypes.c_char_p]
            self.lib.pcap_next_ex.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
            self.lib.pcap_datalink.argtypes = [ctypes.c_void_p]
            self.lib.pcap_close.argtypes = [ctypes.c_void_p]

    def records(self, path):
        """(link type, [(ts_ns, caplen, len, bytes)]), or (error text, None)."""
        err = ctypes.create_string_buffer(256)
        p = self.lib.pcap_open_offline_with_tstamp_precision(path.encode(), 1, err)  # nano
        if not p:
            return err.value.decode(errors="replace"), None
        hdr, data = ctypes.POINTER(self.Hdr)(), ctypes.POINTER(ctypes.c_ubyte)()
        out = []
        while self.lib.pcap_next_ex(p, ctypes.byref(hdr), ctypes.byref(data)) == 1:
            h = hdr.contents
            out.append((h.sec * 10**9 + h.frac, h.caplen, h.len, bytes(data[:h.caplen])))
        lt = self.lib.pcap_datalink(p)
        self.lib.pcap_close(p)
        return lt, out


def multi_interface_pcapng(sample):
    """Three interfaces of two link types (Ethernet, Linux cooked), names and
    resolutions of their own, EPB, SPB and PB, a comment of the file's own,
    then a big-endian section of one interface."""
    frames = cf.frames_of(sample)
    out = cf.shb(options=cf.opt(1, b"the input's own section comment") + cf.opts_end())
    out += cf.idb(cf.LINKTYPE_ETHERNET, tsresol=9, name="eth0")
    out += cf.idb(cf.LINKTYPE_LINUX_SLL, tsresol=None, name="any")
    out += cf.idb(cf.LINKTYPE_ETHERNET, tsresol=0x80 | 20, tsoffset=5, name="eth1")
    units = [10**9, 10**6, 2**20]
    for i, (ts, d) in enumerate(frames):
        ifid = i % 3
        t = ts * units[ifid] // 10**9 - (5 * units[ifid] if ifid == 2 else 0)
        data = cf.sll(d) if ifid == 1 else d
        if i == 3:
            out += cf.pb(ifid, t, data)
        elif i == 6:  # frame 7: a PSN gap
            out += cf.epb(ifid, t, data, comment="the input's own comment")
        else:
            out += cf.epb(ifid, t, data)
    out += cf.spb(frames[0][1])  # on interface 0, no time stamp
    out += cf.shb() + cf.idb(cf.LINKTYPE_ETHERNET, tsresol=9, name="second")
    for ts, d in frames[:4]:
        out += cf.epb(0, ts, d)
    return out


def big_endian_pcapng(sample):
    """A pcapng file in big-endian order: an interface with a name, an offset
    and a speed, packets with flags, a packet id and a comment."""
    e = ">"
    frames = cf.frames_of(sample)
    speed = cf.opt(8, struct.pack(e + "Q", 100 * 10**9), e)
    out = cf.shb(e=e) + cf.block(cf.IDB, struct.pack(e + "HHI", cf.LINKTYPE_ETHERNET, 0, 65535) +
                                 cf.opt(2, b"big", e) + cf.opt(9, bytes([9]), e) + speed +
                                 cf.opts_end(e), e)
    for i, (ts, d) in enumerate(frames):
        opts = cf.opt(2, struct.pack(e + "I", 1), e) + cf.opt(5, struct.pack(e + "Q", i), e)
        if i == 1:
            opts += cf.opt(1, b"big-endian comment", e)
        body = struct.pack(e + "IIIII", 0, ts >> 32, ts & 0xFFFFFFFF, len(d), len(d))
        out += cf.block(cf.EPB, body + cf.pad4(d) + opts + cf.opts_end(e), e)
    return out


DSB, CB_COPY, CB_NOCOPY = 0x0000000A, 0x00000BAD, 0x40000BAD


def blocks_pcapng(sample, e="<"):
    """A pcapng file (in byte order e) with the blocks a capture may carry
    besides packets: a section header with a comment, hardware, operating
    system and application; a name resolution block (an IPv4 and an IPv6
    record, a DNS server's name); decryption secrets; a custom block that
    may be copied and one that may not; interface statistics with start and
    end times and counters. Returns (file bytes, {type: body} of the blocks
    in byte order e)."""
    frames = cf.frames_of(sample)
    shb_opts = (cf.opt(1, b"the input's section comment", e) + cf.opt(2, b"ConnectX-6 Dx", e) +
                cf.opt(3, b"Linux 6.1.0", e) + cf.opt(4, b"dumpcap (Wireshark) 4.0.17", e) +
                cf.opts_end(e))
    nrb = (struct.pack(e + "HH", 1, 4 + 7) + cf.pad4(bytes([10, 0, 0, 1]) + b"host-a\0") +
           struct.pack(e + "HH", 2, 16 + 7) + cf.pad4(bytes(15) + b"\x01" + b"host-b\0") +
           struct.pack(e + "HH", 0, 0) + cf.opt(2, b"dns.example", e) + cf.opts_end(e))
    dsb = struct.pack(e + "II", 0x544C534B, 8) + b"CLIENT_R"
    cb = struct.pack(e + "I", 32473) + b"keep me!"
    nocopy = struct.pack(e + "I", 32473) + b"drop me!"
    t0, t1 = frames[0][0] // 1000, frames[-1][0] // 1000
    isb = (struct.pack(e + "III", 0, t1 >> 32, t1 & 0xFFFFFFFF) +
           cf.opt(2, struct.pack(e + "II", t0 >> 32, t0 & 0xFFFFFFFF), e) +
           cf.opt(3, struct.pack(e + "II", t1 >> 32, t1 & 0xFFFFFFFF), e) +
           cf.opt(4, struct.pack(e + "Q", len(frames) + 5), e) +
           cf.opt(5, struct.pack(e + "Q", 5), e) + cf.opt(1, b"statistics", e) + cf.opts_end(e))
    out = cf.shb(e=e, options=shb_opts) + cf.idb(cf.LINKTYPE_ETHERNET, tsresol=None, name="eth0",
                                                 e=e)
    out += cf.block(cf.NRB, nrb, e) + cf.block(DSB, dsb, e)
    for i, (ts, d) in enumerate(frames):
        body = struct.pack(e + "IIIII", 0, (ts // 1000) >> 32, (ts // 1000) & 0xFFFFFFFF, len(d),
                           len(d))
        out += cf.block(cf.EPB, body + cf.pad4(d), e)
        if i == 2:
            out += cf.block(CB_COPY, cb, e) + cf.block(CB_NOCOPY, nocopy, e)
    out += cf.block(cf.ISB, isb, e)
    return out, {cf.NRB: cf.pad4(nrb), DSB: cf.pad4(dsb), CB_COPY: cf.pad4(cb), cf.ISB: isb}


def pcapng_blocks(path):
    """[(type, body)] of the blocks of a pcapng file in this machine's order."""
    with open(path, "rb") as f:
        data = f.read()
    out, off = [], 0
    while off + 12 <= len(data):
        btype, blen = struct.unpack_from("<II", data, off)
        out.append((btype, data[off + 8:off + blen - 4]))
        off += blen
    return out


def annotate_bytes(c, tool, tmp, data, name, what):
    """The capture data written to tmp/name and annotated: the annotated
    file's path, or None when rocescope failed (a check that failed)."""
    inp, out = os.path.join(tmp, name), os.path.join(tmp, "annotated-" + name)
    with open(inp, "wb") as f:
        f.write(data)
    p = run([tool, "--annotate", out, "-o", os.devnull, inp])
    ok = c.true(f"{what}: exit {p.returncode} {p.stderr.decode().strip()}", p.returncode == 0)
    return out if ok else None


def check_blocks(c, tool, caps, tmp, tshark):
    """The blocks besides packets and the section header's options, copied
    (tests/README.md, annotate)."""
    sample = os.path.join(caps, "loss_receiver.pcap")
    n = len(cf.frames_of(sample))
    _, want = blocks_pcapng(sample)  # what each block is in this machine's order
    for e, order in (("<", "little-endian"), (">", "big-endian")):
        data, _ = blocks_pcapng(sample, e)
        out = annotate_bytes(c, tool, tmp, data, f"blocks-{order}.pcapng", f"{order} blocks")
        if out is None:
            continue
        got = pcapng_blocks(out)
        types = [t for t, _ in got]
        c.true(f"{order} blocks: {types.count(cf.EPB)} packets, {n} in the input",
               types.count(cf.EPB) == n)
        for t, name in ((cf.NRB, "name resolution"), (cf.ISB, "interface statistics")):
            bodies = [b for bt, b in got if bt == t]
            c.true(f"{order} blocks: the {name} block copied in this machine's order",
                   bodies == [want[t]])
        # decryption secrets, of a layout of their own: as they are, when the
        # order is this machine's
        bodies = [b for bt, b in got if bt == DSB]
        c.true(f"{order} blocks: the decryption secrets {'copied' if e == '<' else 'left out'}",
               bodies == ([want[DSB]] if e == "<" else []))
        # custom blocks: Wireshark numbers them as frames, the comments would
        # cite frames by other numbers
        c.true(f"{order} blocks: the custom blocks left out",
               CB_COPY not in types and CB_NOCOPY not in types)
        c.true(f"{order} blocks: statistics after the packets", types.index(cf.ISB) > n)
        info = run(["capinfos", out]).stdout.decode()
        for line in ("Capture hardware:    ConnectX-6 Dx", "Capture oper-sys:    Linux 6.1.0",
                     "Capture application: rocescope", "Capture comment:     the input's "
                     "section comment"):
            c.true(f"{order} blocks: the section header: '{line}'", line in info)
        c.true(f"{order} blocks: the input's application replaced", "dumpcap" not in info)
        code, names = tshark("-r", out, "-N", "n", "-T", "fields", "-e", "frame.number")
        c.true(f"{order} blocks: tshark reads the copy (exit {code})",
               code == 0 and len(names.split()) == n)


def check_packet_blocks(c, tool, caps, tmp):
    """Enhanced packet blocks in this machine's order are written as the
    writer writes any block (the frames without a comment are copied whole
    when that gives the same bytes, writer_annotate.c): the interfaces
    numbered in the order of their first packet, the data padded with
    zeros, the options as they were (without their end option when it is
    all there is, and with one when it is missing), on a file whose packets
    have each of those, and which is read in runs (a pcapng file of many
    packets)."""
    sample = os.path.join(caps, "loss_receiver.pcap")
    frames = [(ts + k * 10**9, d) for k in range(40)  # more than a run of frames at once
              for ts, d in cf.frames_of(sample)]
    flags = cf.opt(2, struct.pack("<I", 1))
    out = cf.shb() + cf.idb(cf.LINKTYPE_ETHERNET, tsresol=9, name="a")
    out += cf.idb(cf.LINKTYPE_ETHERNET, tsresol=9, name="b")
    want = []  # each EPB's body as written: the interface of the output, then the rest
    for i, (ts, d) in enumerate(frames):
        ifid = 1 if i < 3 else i % 2  # interface 1 first: it becomes the output's 0
        head = struct.pack("<IIII", ts >> 32, ts & 0xFFFFFFFF, len(d), len(d))
        pad = (4 - len(d) % 4) % 4
        kind = i % 5
        if kind == 1:  # an option and its end
            tail, wrote = flags + cf.opts_end(), flags + cf.opts_end()
        elif kind == 2:  # padding that is not zero
            tail, wrote = b"", b""
        elif kind == 3:  # an end option alone: no options
            tail, wrote = cf.opts_end(), b""
        elif kind == 4:  # an option without its end
            tail, wrote = flags, flags + cf.opts_end()
        else:
            tail, wrote = b"", b""
        data = d + (b"\xff" if kind == 2 else b"\0") * pad
        out += cf.block(cf.EPB, struct.pack("<I", ifid) + head + data + tail)
        want.append(struct.pack("<I", 1 - ifid) + head + d + b"\0" * pad + wrote)
    got = annotate_bytes(c, tool, tmp, out, "packet-blocks.pcapng", "packet blocks")
    if got is None:
        return
    bodies = [b for t, b in pcapng_blocks(got) if t == cf.EPB]
    commented = {n for n, lines in pcapng_comments(got).items() if lines}
    bad = [i + 1 for i, (b, w) in enumerate(zip(bodies, want))
           if (i + 1) not in commented and b != w]
    c.true(f"packet blocks: {len(bodies)} written, {len(want)} in the input",
           len(bodies) == len(want))
    c.true(f"packet blocks: the frames without a comment as the writer writes them "
           f"(differing: {bad[:5]}; {len(want) - len(commented)} checked)",
           not bad and len(want) - len(commented) > len(want) // 4)


def pcapng_comments(path):
    """{frame number: [comments]} of a pcapng file in this machine's order
    (the annotated file), read here: one tshark run less per capture."""
    with open(path, "rb") as f:
        data = f.read()
    res, off, n = {}, 0, 0
    while off + 12 <= len(data):
        btype, blen = struct.unpack_from("<II", data, off)
        if btype == cf.EPB:
            n += 1
            caplen = struct.unpack_from("<I", data, off + 20)[0]
            o, end = off + 28 + (caplen + 3) // 4 * 4, off + blen - 4
            while o + 4 <= end:
                code, olen = struct.unpack_from("<HH", data, o)
                if code == 0:
                    break
                if code == 1:
                    res.setdefault(n, []).append(data[o + 4:o + 4 + olen].decode())
                o += 4 + (olen + 3) // 4 * 4
            res.setdefault(n, [])
        off += blen
    return res


def interfaces(path):
    """capinfos' lines on each interface's name, encapsulation and resolution."""
    p = run(["capinfos", "-M", path])
    keep = ("Encapsulation =", "Time precision =", "Time ticks per second =", "Name =")
    return [ln.strip() for ln in p.stdout.decode().splitlines() if ln.strip().startswith(keep)]


def parse_values(text):
    """"k=v, k=v" as {k: v}."""
    out = {}
    for part in (text or "").split(", "):
        if part:
            k, _, v = part.partition("=")
            out[k] = v
    return out


def json_text(v):
    """A JSON value (numbers kept as written) as the comments write it."""
    return v if isinstance(v, str) else json.dumps(v)


def check_comments(c, tool, cap, tmp):
    """The comments of cap's annotated file against --events, --json and the summary."""
    name = os.path.basename(cap)
    out = os.path.join(tmp, "c.pcapng")
    p = run([tool, "--annotate", out, "-o", os.devnull, cap])
    if not c.true(f"{name}: exit {p.returncode} {p.stderr.decode().strip()}",
                  p.returncode in (0, 1)):
        return
    events = {}
    ev = run([tool, "--events", cap]).stdout.decode()
    for line in ev.splitlines():
        o = json.loads(line, parse_float=str, parse_int=str)
        events[int(o["frame"])] = o
    report = json.loads(run([tool, "--json", cap]).stdout.decode())
    evidence = {}
    for d in report["diagnoses"]:
        for s in d["subjects"]:
            for f in s["frames"]:
                evidence.setdefault(f, set()).add(d["kind"])
    summary = run([tool, cap]).stdout.decode().split("\n\n")[0].splitlines()
    head = ["rocescope: " + " ".join(ln.split()) for ln in summary if ln.strip()]
    comments = pcapng_comments(out)
    c.true(f"{name}: frame 1 begins with the summary's head",
           comments.get(1, [])[:len(head)] == head)
    for n, lines in comments.items():
        if n == 1:
            lines = lines[len(head):]
        got_names, got_values = [], {}
        for ln in lines:
            m = DIAG_LINE.match(ln)
            if m:
                c.true(f"{name} frame {n}: {m.group(1)} has it as evidence",
                       m.group(1) in evidence.get(n, set()))
                continue
            m = VERDICT_LINE.match(ln)
            if not c.true(f"{name} frame {n}: a line in no known form: {ln!r}", m is not None):
                continue
            got_names.append(m.group(1))
            for k, v in parse_values(m.group(2)).items():
                c.true(f"{name} frame {n}: {k} given twice with two values",
                       got_values.setdefault(k, v) == v)
        e = events.get(n)
        if e is None:
            c.true(f"{name} frame {n}: verdict lines {got_names} without an event", not got_names)
            continue
        c.true(f"{name} frame {n}: verdicts {got_names}, --events {e['verdicts']}",
               got_names == e["verdicts"])
        want = {k: json_text(v) for k, v in e.items() if k not in FRAME_KEYS}
        c.true(f"{name} frame {n}: values {got_values}, --events {want}", got_values == want)
    for n in events:
        c.true(f"{name}: frame {n} has an event and no comment", n in comments and comments[n])
    for n, kinds in evidence.items():
        c.true(f"{name}: evidence frame {n} without its diagnosis line",
               any(DIAG_LINE.match(ln) for ln in comments.get(n, [])))


LOCALIZE_LINE = "rocescope: localize: "


def localize_lines(doc, point):
    """{frame: [line]} that `localize --annotate` puts on the point's frames,
    written from the JSON result: the losses (their evidence), then the CE
    marks, each on the frame of its first sighting there."""
    want = {}
    for key, what in (("losses", "lost"), ("ce_marks", "CE marked")):
        for e in doc[key]:
            seen = e["first_seen"]
            if seen is None or seen["vantage_point"] != point:
                continue
            after, before = e["after"] or "(sender)", e["before"] or "(receiver)"
            vals = f"psn={e['psn']}" + (f", evidence={e['evidence']}" if key == "losses" else "")
            want.setdefault(seen["frame"], []).append(
                f"{LOCALIZE_LINE}{what} between {after} and {before} ({vals})")
    # then the pauses of the chains and cycles, on each one's first PFC frame
    pauses = doc.get("pause_spreading", {})
    for key, what in (("chains", "pause_spreading"), ("cycles", "pause_cycle")):
        for i, chain in enumerate(pauses.get(key, []), 1):
            n = len(chain["steps"])
            for k, s in enumerate(chain["steps"]):
                if s["vantage_point"] != point:
                    continue
                prio = "link PAUSE" if s["priority"] == "pause" else f"priority {s['priority']}"
                line = (f"{LOCALIZE_LINE}{what} {i}: pausing started here ({prio}, step 1 of {n})"
                        if k == 0 else
                        f"{LOCALIZE_LINE}{what} {i}: paused after {s['from']} ({prio}, step "
                        f"{k + 1} of {n}, evidence={s['evidence']})")
                want.setdefault(s["first_frame"], []).append(line)
    return want


def localize_points(c, tool, lz, tmp, tshark, names, frames=True):
    """localize --annotate over the captures lz/NAME.pcap of names: each
    point's file is its capture frame for frame (with frames: the writer is
    that of --annotate, whose round trip is checked above), with the
    comments of `rocescope --annotate` of it alone, then localize's lines
    written from the JSON result. Returns how many lines of localize's were
    checked."""
    inputs = [os.path.join(lz, n + ".pcap") for n in names]
    out_dir = os.path.join(tmp, "localize-" + names[0])
    os.mkdir(out_dir)
    p = run([tool, "localize", "--json", "--annotate", out_dir, *inputs])
    c.true(f"localize --annotate {names}: exit {p.returncode} {p.stderr.decode().strip()!r}",
           p.returncode == 0)
    doc = json.loads(p.stdout or b"{}")
    c.true(f"one file per point: {sorted(os.listdir(out_dir))}",
           sorted(os.listdir(out_dir)) == sorted(n + ".pcapng" for n in names))
    noted = 0
    for cap in inputs:
        name = os.path.basename(cap)[:-len(".pcap")]
        got = os.path.join(out_dir, name + ".pcapng")
        if not os.path.exists(got):
            continue
        code, got_rows, got_bytes, have = tshark.packets_and_comments(got, False)
        if frames:
            c.true(f"localize {name}: the input frame for frame (tshark)",
                   (got_rows, got_bytes) == tshark.packets(cap, False)[1:])
        alone = os.path.join(tmp, f"alone-{name}.pcapng")
        run([tool, "--annotate", alone, "-o", os.devnull, cap])
        want = pcapng_comments(alone)  # --annotate's own output: read here, one tshark run less
        extra = localize_lines(doc, name)
        for frame, lines in extra.items():
            want.setdefault(frame, []).extend(lines)
        noted += sum(len(v) for v in extra.values())
        bad = [f for f in set(want) | set(have) if want.get(f, []) != have.get(f, [])]
        c.true(f"localize {name}: the comments of rocescope --annotate alone, then localize's "
               f"(frames differing: {sorted(bad)[:5]})", code == 0 and not bad and want)
    return noted


def check_localize_split(c, tool, lz, tmp, tshark):
    """`localize --annotate DIR --split-by KEY` on one file that holds a
    collector's two ERSPAN sessions (mirror.pcap) and, unmirrored, tap B's
    frames (the rest of the file, a point of its own): DIR/NAME/KEY.pcapng
    per split point and DIR/NAME.pcapng for the rest, each holding that
    point's frames (told apart here by stock tshark: the ERSPAN session, the
    outer source address) in the order of the file, with the comments
    `rocescope --annotate` gives a capture of those frames alone and
    localize's lines on the frames the JSON result cites, renumbered;
    nothing left behind when the run fails."""
    frames = sorted(cf.frames_of(os.path.join(lz, "mirror.pcap")) +
                    cf.frames_of(os.path.join(lz, "tap_b.pcap")), key=lambda f: f[0])
    cap = os.path.join(tmp, "collector.pcap")
    with open(cap, "wb") as f:
        f.write(cf.pcap_at(frames))
    code, out = tshark("-r", cap, "-T", "fields", "-e", "erspan.spanid", "-e", "ip.src")
    rows = [line.split("\t") for line in out.splitlines()]
    c.true(f"split: tshark reads the collector's file ({code}, {len(rows)} of {len(frames)})",
           code == 0 and len(rows) == len(frames))
    for split in ("erspan-session", "outer-source"):
        keys = [(r[0] if split == "erspan-session" else r[1].split(",")[0]) if r[0] else None
                for r in rows]
        out_dir = os.path.join(tmp, "localize-split-" + split)
        os.mkdir(out_dir)
        p = run([tool, "localize", "--json", "--split-by", split, "--annotate", out_dir, cap])
        if not c.true(f"split {split}: exit {p.returncode} {p.stderr.decode().strip()!r}",
                      p.returncode == 0):
            continue
        doc = json.loads(p.stdout)
        names = [v["name"] for v in doc["vantage_points"]]
        written = sorted(os.path.relpath(os.path.join(d, f), out_dir)
                         for d, _, fs in os.walk(out_dir) for f in fs)
        c.true(f"split {split}: a file per point, {written} for {names}",
               written == sorted(n + ".pcapng" for n in names) and len(names) == 3 and
               "collector" in names)
        for name in names:
            key = name.split("/", 1)[1] if "/" in name else None
            numbers = [i + 1 for i, k in enumerate(keys) if k == key]  # in the whole file
            part = os.path.join(tmp, "part.pcap")
            with open(part, "wb") as f:
                f.write(cf.pcap_at([frames[n - 1] for n in numbers]))
            got = os.path.join(out_dir, name + ".pcapng")
            code, got_rows, got_bytes, have = tshark.packets_and_comments(got, False)
            c.true(f"split {split} {name}: its {len(numbers)} frames (tshark)",
                   numbers and (got_rows, got_bytes) == tshark.packets(part, False)[1:])
            alone = os.path.join(tmp, "part-alone.pcapng")
            run([tool, "--annotate", alone, "-o", os.devnull, part])
            want = pcapng_comments(alone)
            local = {n: i + 1 for i, n in enumerate(numbers)}
            extra = {local[f]: lines for f, lines in localize_lines(doc, name).items()}
            for frame, lines in extra.items():
                want.setdefault(frame, []).extend(lines)
            # the title names the file the frames come from: the same words
            want[1][0] = want[1][0].replace(part, cap)
            bad = [f for f in set(want) | set(have) if want.get(f, []) != have.get(f, [])]
            c.true(f"split {split} {name}: the comments of rocescope --annotate of its frames "
                   f"alone, then localize's ({sum(map(len, extra.values()))} lines; frames "
                   f"differing: {sorted(bad)[:5]})", code == 0 and not bad)
    # a run that fails leaves no folder it made: the second file's folder
    # is a file, once the first file's folder was made
    out_dir = os.path.join(tmp, "localize-split-failed")
    os.mkdir(out_dir)
    other = os.path.join(tmp, "other.pcap")
    shutil.copy(cap, other)
    with open(os.path.join(out_dir, "other"), "w") as f:
        f.write("not a folder")
    p = run([tool, "localize", "--split-by", "erspan-session", "--annotate", out_dir, "-o",
             os.devnull, cap, other])
    c.true(f"split, a point's folder is a file: exit {p.returncode} "
           f"{p.stderr.decode().strip()!r}, nothing left: {os.listdir(out_dir)}",
           p.returncode == 3 and "not a folder" in p.stderr.decode() and
           os.listdir(out_dir) == ["other"])


def check_localize(c, tool, caps, tmp, tshark):
    """`rocescope localize --annotate DIR`: DIR/NAME.pcapng per point, its
    capture frame for frame, with the comments `rocescope --annotate` gives
    that capture alone and localize's losses, CE marks and pauses of chains
    and cycles on the frames the JSON result cites (two taps; three taps
    with a pause moving upstream; three with a cycle of pauses); the usage
    and safety cases."""
    lz = os.path.join(caps, "localize")
    noted = {}
    for names in (("tap_a", "tap_b"), ("up_s1_s2", "up_s2_s3", "up_s3_h2"),
                  ("cycle_s1_s2", "cycle_s2_s3", "cycle_s3_s1")):
        noted[names[0]] = localize_points(c, tool, lz, tmp, tshark, names,
                                          frames=names[0] == "tap_a")
    c.true(f"localize's own lines on the cited frames: {noted}",
           noted["tap_a"] >= 5 and noted["up_s1_s2"] == 3 and noted["cycle_s1_s2"] >= 7)
    inputs = [os.path.join(lz, "tap_a.pcap"), os.path.join(lz, "tap_b.pcap")]
    out_dir = os.path.join(tmp, "localize-tap_a")
    check_localize_split(c, tool, lz, tmp, tshark)
    # usage and safety
    p = run([tool, "localize", "--annotate", inputs[0], "-o", os.devnull, *inputs])
    c.true(f"localize --annotate on a file, not a folder: exit {p.returncode} "
           f"{p.stderr.decode().strip()!r}",
           p.returncode == 3 and "not a folder" in p.stderr.decode())
    work = os.path.join(tmp, "localize-safety")
    os.mkdir(work)
    shutil.copy(inputs[0], os.path.join(work, "tap_a.pcapng"))
    before = open(os.path.join(work, "tap_a.pcapng"), "rb").read()
    p = run([tool, "localize", "--annotate", work, "-o", os.devnull,
             os.path.join(work, "tap_a.pcapng"), inputs[1]])
    c.true(f"localize --annotate never onto an input: exit {p.returncode} "
           f"{p.stderr.decode().strip()!r}",
           p.returncode == 3 and "not written onto" in p.stderr.decode() and
           open(os.path.join(work, "tap_a.pcapng"), "rb").read() == before and
           sorted(os.listdir(work)) == ["tap_a.pcapng"])
    other = os.path.join(work, "other")
    os.mkdir(other)
    shutil.copy(inputs[0], other)
    p = run([tool, "localize", "--annotate", out_dir, "-o", os.devnull, inputs[0],
             os.path.join(other, "tap_a.pcap")])
    c.true(f"localize --annotate, two points of one name: exit {p.returncode} "
           f"{p.stderr.decode().strip()!r}",
           p.returncode == 2 and "two vantage points named 'tap_a'" in p.stderr.decode())
    shutil.rmtree(other)
    p = run([tool, "localize", "--annotate", work, "-o", os.devnull, inputs[0],
             os.path.join(work, "missing.pcap")])
    c.true(f"localize --annotate, an input missing: exit {p.returncode}, nothing left: "
           f"{sorted(os.listdir(work))}",
           p.returncode == 1 and sorted(os.listdir(work)) == ["tap_a.pcapng"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rocescope", required=True)
    ap.add_argument("--captures", required=True)
    ap.add_argument("--tshark", required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("--sample", type=int, default=0,
                    help="compare the comments on this many sample captures (0: all)")
    a = ap.parse_args()
    tool, caps = os.path.abspath(a.rocescope), a.captures
    c = Checks()
    tmp = tempfile.mkdtemp(prefix="rocescope-annotate-")
    tshark = Tshark(a.tshark, tmp)
    pcap = Libpcap()
    if pcap.lib is None:
        c.true("libpcap not found by ctypes", False)

    # stock tshark: no plugin of ours
    code, plugins = tshark("-G", "plugins")
    c.true("tshark without the plugin lists no roce plugin", "roce" not in plugins.lower())
    code, fields = tshark("-G", "fields")
    c.true("tshark 4.0 has frame.comment", "\tframe.comment\t" in fields)

    # ---- round trip
    built = os.path.join(tmp, "multi.pcapng")
    with open(built, "wb") as f:
        f.write(multi_interface_pcapng(os.path.join(caps, "loss_receiver.pcap")))
    big = os.path.join(tmp, "big.pcapng")
    with open(big, "wb") as f:
        f.write(big_endian_pcapng(os.path.join(caps, "loss_receiver.pcap")))
    gz = os.path.join(tmp, "loss_receiver.pcap.gz")
    with open(os.path.join(caps, "loss_receiver.pcap"), "rb") as f, gzip.open(gz, "wb") as g:
        g.write(f.read())
    cut = os.path.join(tmp, "cut.pcap")
    with open(os.path.join(caps, "loss_receiver.pcap"), "rb") as f:
        data = f.read()
    with open(cut, "wb") as f:
        f.write(data[:-7])
    header_only = os.path.join(tmp, "header_only.pcap")
    with open(header_only, "wb") as f:
        f.write(data[:24])
    singles = ["loss_receiver.pcap", "us_timestamps.pcap", "clean_rc.pcapng", "ib_rc.erf",
               "ib_rc.pcap", "truncated.pcap", "truncated.pcapng", "linktype_sll2.pcap"]
    cases = [[os.path.join(caps, s)] for s in singles]
    cases += [[built], [big], [gz], [cut], [header_only],
              [os.path.join(caps, "loss_receiver.pcap"), os.path.join(caps, "ecn_cnp.pcap")]]
    for files in cases:
        name = " ".join(os.path.basename(f) for f in files)
        out = os.path.join(tmp, "rt.pcapng")
        p = run([tool, "--annotate", out, "-o", os.devnull, *files])
        input_problem = files[0] == cut
        if not c.true(f"{name}: exit {p.returncode} {p.stderr.decode().strip()}",
                      p.returncode == (1 if input_problem else 0) and os.path.exists(out)):
            continue
        # the input as tshark reads it: several files are merged in order (mergecap -a)
        ref = files[0]
        if len(files) > 1 or files[0] == gz:
            ref = os.path.join(tmp, "ref.pcapng")
            run(["mergecap", "-a", "-w", ref, *files])
        # interface names: those of pcapng interfaces (tshark 4.0 names every
        # section's packets after the first section's interfaces: see below)
        ng = ref.endswith(".pcapng") and files[0] != built
        want, got = tshark.packets(ref, ng), tshark.packets(out, ng)
        if files[0] == built:  # a simple packet block has no time stamp: written as 0
            spb = len(cf.frames_of(os.path.join(caps, "loss_receiver.pcap")))
            for rows in (want[1], got[1]):
                rows[spb] = "\t".join([""] + rows[spb].split("\t")[1:])
        if want[0] == 0:  # tshark 4.0 reads no InfiniBand link type (247): libpcap only
            c.true(f"{name}: tshark reads the annotated file (exit {got[0]})", got[0] == 0)
            c.true(f"{name}: tshark sees {len(got[1])} frames, {len(want[1])} in the input",
                   len(got[1]) == len(want[1]))
            c.true(f"{name}: time, lengths, encapsulation, interface as tshark reads them",
                   got[1] == want[1])
            c.true(f"{name}: the bytes as tshark reads them", got[2] == want[2])
        if files[0] not in (built, gz) and len(files) == 1 and want[0] == 0 and \
                not files[0].endswith(".erf"):  # wiretap names a raw ERF file's ports
            c.true(f"{name}: the interfaces (names, resolutions) as capinfos reads them",
                   interfaces(out) == interfaces(files[0]))
        if pcap.lib is not None and files[0] != built:
            lt_in, rec_in = pcap.records(ref)
            lt_out, rec_out = pcap.records(out)
            c.true(f"{name}: libpcap reads the annotated file ({lt_out})", rec_out is not None)
            if rec_in is not None and rec_out is not None:
                c.true(f"{name}: libpcap's link type {lt_out}, input's {lt_in}", lt_out == lt_in)
                c.true(f"{name}: libpcap's {len(rec_out)} records equal the input's "
                       f"{len(rec_in)}", rec_out == rec_in)
    # the built file's interfaces: its own, in order, then the second section's
    out = os.path.join(tmp, "rt.pcapng")
    run([tool, "--annotate", out, "-o", os.devnull, built])
    code, per_frame = tshark("-r", out, "-T", "fields", "-e", "frame.interface_name")
    n = len(cf.frames_of(os.path.join(caps, "loss_receiver.pcap")))
    c.true("multi.pcapng: each frame on its interface",
           per_frame.split() == [["eth0", "any", "eth1"][i % 3] for i in range(n)] + ["eth0"] +
           ["second"] * 4)
    names = [ln for ln in interfaces(out) if ln.startswith("Name =")]
    c.true(f"multi.pcapng: interface names {names}",
           names == ["Name = eth0", "Name = any", "Name = eth1", "Name = second"])
    res = [ln for ln in interfaces(out) if ln.startswith("Time ticks")]
    c.true(f"multi.pcapng: resolutions {res}",
           res == ["Time ticks per second = 1000000000", "Time ticks per second = 1000000",
                   "Time ticks per second = 1048576", "Time ticks per second = 1000000000"])
    # the input's own comments, kept before rocescope's
    code, comments = tshark.comments(out)
    c.true(f"multi.pcapng frame 7: the input's comment first, then rocescope's: {comments.get(7)}",
           comments.get(7, [""])[0] == "the input's own comment" and
           any(x.startswith("rocescope: gap (") for x in comments.get(7, [])))
    run([tool, "--annotate", out, "-o", os.devnull, big])
    code, comments = tshark.comments(out)
    c.true(f"big.pcapng: the comment kept on frame 2, before rocescope's: {comments.get(2)}",
           comments.get(2, [""])[0] == "big-endian comment")
    code, flags = tshark("-r", out, "-T", "fields", "-e", "frame.packet_flags", "-e",
                         "frame.packet_id")
    code2, want = tshark("-r", big, "-T", "fields", "-e", "frame.packet_flags", "-e",
                         "frame.packet_id")
    c.true("big.pcapng: packet flags and ids read as in the input", flags == want and want)
    run([tool, "--annotate", out, "-o", os.devnull, built])
    # the section header
    info = run(["capinfos", out]).stdout.decode()
    c.true("the section header names the version",
           f"Capture application: rocescope {a.version}" in info)
    c.true("the section header's comment is the command line",
           f"Capture comment:     {tool} --annotate {out} -o {os.devnull} {built}" in info)

    # ---- the blocks besides packets, the section header's options
    check_blocks(c, tool, caps, tmp, tshark)
    check_packet_blocks(c, tool, caps, tmp)

    # ---- the comments of every sample capture against --events
    samples = sorted(glob.glob(os.path.join(caps, "*.pcap")) +
                     glob.glob(os.path.join(caps, "*.pcapng")) +
                     glob.glob(os.path.join(caps, "*.erf")))
    c.true(f"{len(samples)} sample captures", len(samples) > 40)
    samples = cf.sample(samples, a.sample)
    for cap in samples:
        check_comments(c, tool, cap, tmp)

    # ---- stock tshark filters them
    cap = os.path.join(caps, "loss_receiver.pcap")
    out = os.path.join(tmp, "f.pcapng")
    run([tool, "--annotate", out, "-o", os.devnull, cap])
    want = [str(json.loads(ln)["frame"]) for ln in run([tool, "--events", cap]).stdout.decode()
            .splitlines() if "retransmission" in json.loads(ln)["verdicts"]]
    code, got = tshark("-r", out, "-Y", 'frame.comment contains "rocescope: retransmission"',
                       "-T", "fields", "-e", "frame.number")
    c.true(f"the display filter: frames {got.split()}, --events {want}",
           code == 0 and got.split() == want and want)

    # ---- safety
    work = os.path.join(tmp, "safety")
    os.mkdir(work)
    inp = os.path.join(work, "in.pcap")
    shutil.copy(cap, inp)
    link = os.path.join(work, "link.pcapng")
    os.symlink("in.pcap", link)
    for target in (inp, link):
        p = run([tool, "--annotate", target, "-o", os.devnull, inp])
        c.true(f"an input as the output ({os.path.basename(target)}): exit {p.returncode}, "
               f"{p.stderr.decode().strip()!r}",
               p.returncode == 3 and p.stderr.decode().startswith(f"rocescope: {target}: ") and
               "not written onto" in p.stderr.decode())
        with open(inp, "rb") as f, open(cap, "rb") as g:
            c.true("the input is left as it was", f.read() == g.read())
    # standard input: redirected from a file, a pipe, a compressed pipe;
    # each the same frames with the same comments as the file itself
    ref = os.path.join(tmp, "ref.pcapng")
    run([tool, "--annotate", ref, "-o", os.devnull, inp])
    code, comments = tshark("-r", ref, "-T", "fields", "-e", "frame.comment")
    # the summary's title on frame 1 names the input: "-" for standard input
    want = tshark.packets(ref, False)[1], (code, comments.replace(f"report: {inp} (",
                                                                  "report: - (", 1))
    with open(inp, "rb") as f:
        data = f.read()
    feeds = {"< file": None, "a pipe": data, "a gzip pipe": gzip.compress(data)}
    for how, feed in feeds.items():
        got_path = os.path.join(tmp, "stdin.pcapng")
        if feed is None:
            with open(inp, "rb") as f:
                p = run([tool, "--annotate", got_path, "-o", os.devnull, "-"], stdin=f)
        else:
            p = run([tool, "--annotate", got_path, "-o", os.devnull, "-"], input=feed)
        got = (tshark.packets(got_path, False)[1] if p.returncode == 0 else None,
               tshark("-r", got_path, "-T", "fields", "-e", "frame.comment")
               if p.returncode == 0 else None)
        c.true(f"standard input from {how}: exit {p.returncode} {p.stderr.decode().strip()!r}, "
               "the frames and comments of the file", p.returncode == 0 and got == want and
               want[0] and "rocescope: retransmission" in want[1][1])
        os.unlink(got_path)
    fifo = os.path.join(work, "fifo")
    os.mkfifo(fifo)
    p = run([tool, "--annotate", os.path.join(work, "o.pcapng"), "-o", os.devnull, fifo])
    os.unlink(fifo)
    c.true(f"a named pipe refused: exit {p.returncode} {p.stderr.decode().strip()!r}",
           p.returncode == 2 and f"{fifo} cannot be" in p.stderr.decode())
    p = run([tool, "--annotate", os.path.join(work, "o.pcapng"), "-i", "lo"])
    c.true(f"a live capture refused: exit {p.returncode} {p.stderr.decode().strip()!r}",
           p.returncode == 2 and p.stderr.decode().startswith(
               "rocescope: --annotate needs capture files"))
    p = run([tool, "--annotate", "-", "-o", os.devnull, inp])
    with open(os.path.join(work, "stdout.pcapng"), "wb") as f:
        f.write(p.stdout)
    c.true("'-' writes the pcapng on standard output",
           p.returncode == 0 and p.stdout[:4] == b"\x0a\x0d\x0d\x0a" and
           tshark.packets(os.path.join(work, "stdout.pcapng"), False)[1] ==
           tshark.packets(inp, False)[1])
    p = run([tool, "--annotate", "-", inp])
    c.true(f"'-' beside the summary on standard output refused: exit {p.returncode}",
           p.returncode == 2)
    p = run([tool, "--annotate", os.path.join(work, "none.pcapng"), "-o", os.devnull,
             os.path.join(work, "missing.pcap")])
    c.true(f"no input read: exit {p.returncode}, nothing left: {sorted(os.listdir(work))}",
           p.returncode == 1 and sorted(os.listdir(work)) ==
           ["in.pcap", "link.pcapng", "stdout.pcapng"])

    check_localize(c, tool, caps, tmp, tshark)

    shutil.rmtree(tmp, ignore_errors=True)
    for f in c.failures:
        print("FAIL:", f)
    print(f"annotate: {c.count} checks, {len(c.failures)} failures")
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
