#!/usr/bin/env python3
"""The plugin's per-frame verdicts equal the CLI's, capture by capture.

For every *.pcap / *.pcapng / *.cap in the given folders, runs
`rocescope --events FILE` and `tshark -2 -r FILE -Y roce.analysis -T fields
-e frame.number -e roce.analysis.verdicts -e ...` (the plugin loaded from the
build tree, see tshark_env.py) and compares, frame by frame: the set of
frames with verdicts, the verdict names, and every detail the event carries
(malformed reason, expected PSN, missing PSNs, episode frame, trigger, NAK frame and delay,
NAK code, RNR timer, resend frame, CNP frames and latency, reused READ
frame, ICRC and VCRC values, capture loss, NAK generation time, DCQCN rates), plus
time, addresses, destination QP, flow id and PSN; and the diagnoses: `-z
roce,diagnoses` lists those of `rocescope --json` (kind, severity, count,
sentence, frames), and every evidence frame carries roce.diagnosis of each
diagnosis that cites it (PFC frames too). This is the proof that both front
ends show one engine's analysis. (The first frame of a go-back-N episode
shows no episode frame in the plugin, where the event names the frame
itself: that is taken as equal.)

With --snaplens 64,96,128 every third capture is also cut (editcap -s) and
compared again: header-only frames must be analysed alike. The snaplens
take turns over those (the first sorted capture at 64, the fourth at 96, the
seventh at 128, ...): each snaplen cuts a ninth of the captures. What a cut
frame tests in the plugin is how it hands the engine a frame shorter than on
the wire, the same code for every capture; the engine's analysis of every
capture at every snaplen is the golden test's (tests/integration/golden.py).

--sample N compares N of the captures, spread evenly over the sorted list,
those of SAMPLE_KEEP and every capture that is not pcap of Ethernet frames (pcapng, ERF, the other
link types: how each reaches the plugin depends on the release's wiretap and
dissector tables); the Wireshark releases other than the system's take such
a sample (tests/plugin/CMakeLists.txt).

InfiniBand: ERF files and pcap of link type ERF (ibdump) are compared like
the rest (addresses as lid:0x0012 or GIDs); a capture of link type 247
(LINKTYPE_INFINIBAND), which no Wireshark release opens, must be refused
by tshark as such (that is the check made of it); were it opened,
it would be compared. Of ERF records, Wireshark's own InfiniBand decode
(infiniband.bth.opcode, .destqp, .psn) must also equal the engine's.

A folder that is absent or holds no capture is a failure. --real DIR adds
the real captures (tests/real_folder.py: the test fails when they are
missing, and is skipped, exit 77, when the build opted out of them).
"""
import argparse
import concurrent.futures
import decimal
import ipaddress
import json
import os
import struct
import subprocess
import sys
import tempfile

from tshark_env import TsharkEnv, add_arguments

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from real_folder import real_folder  # noqa: E402

EXTENSIONS = (".pcap", ".pcapng", ".cap", ".erf")
CUT_EVERY = 3  # with --snaplens, every third capture is cut (cut_copies)
# kept in every --sample: loss and go-back-N, CE and CNPs, PFC, the NAK codes,
# each with diagnoses and their evidence frames
SAMPLE_KEEP = ("loss_receiver.pcap", "ecn_cnp.pcap", "pfc.pcap", "nak_codes.pcap")
UNSUPPORTED_247 = "network type 247 unknown or unsupported"
NS = decimal.Decimal(1000000000)

# tshark field -> (event key, conversion); in output order after frame.number
FIELDS = [
    ("frame.time_epoch", "time", "time"),
    ("roce.flow.src", "src", "addr"),
    ("roce.flow.dst", "dst", "addr"),
    ("roce.flow.dest_qp", "dest_qp", "int"),
    ("roce.flow.id", "flow_id", "int"),
    ("roce.psn", "psn", "int"),
    ("roce.analysis.verdicts", "verdicts", "list"),
    ("roce.analysis.malformed", "malformed", "str"),
    ("roce.analysis.expected_psn", "expected_psn", "int"),
    ("roce.analysis.psn_gap", "missing_psns", "int"),
    ("roce.analysis.read_response_gap", "missing_psns", "int"),
    ("roce.analysis.episode_frame", "episode_frame", "int"),
    ("roce.analysis.trigger", "trigger", "str"),
    ("roce.analysis.nak_frame", "nak_frame", "int"),
    ("roce.analysis.time_since_nak", "nak_to_resend_ns", "ns"),
    ("roce.analysis.nak_code", "nak_code", "str"),
    ("roce.analysis.rnr_timer", "rnr_timer", "int"),
    ("roce.analysis.retransmitted_in", "retransmitted_in", "int"),
    ("roce.analysis.cnp_frame", "cnp_frame", "int"),
    ("roce.analysis.cnp_for_frame", "cnp_for_frame", "int"),
    ("roce.analysis.cnp_latency", "cnp_latency_ns", "ns"),
    ("roce.analysis.psn_reuse", "reuse_frame", "int"),
    ("roce.icrc.computed", "icrc_computed", "int"),
    ("roce.icrc.wire", "icrc_wire", "int"),
    ("roce.analysis.nak_generation", "nak_generation_ns", "ns"),
    ("roce.analysis.dcqcn.rate_before", "dcqcn_rate_before_gbps", "float"),
    ("roce.analysis.dcqcn.rate_after", "dcqcn_rate_after_gbps", "float"),
    ("roce.analysis.dcqcn.ratio", "dcqcn_rate_ratio", "float"),
    ("roce.vcrc.computed", "vcrc_computed", "int"),
    ("roce.vcrc.wire", "vcrc_wire", "int"),
    ("roce.analysis.gap_class", "gap_class", "str"),
    ("roce.analysis.gap_reason", "gap_reason", "str"),
    ("roce.analysis.gap_decided_by", "gap_decided_by", "int"),
    ("roce.analysis.reordered", "reorder_psns", "int"),
    ("roce.analysis.reorder_gap_frame", "reorder_gap_frame", "int"),
    ("roce.analysis.reorder_time", "reorder_ns", "ns"),
    ("roce.analysis.after_response", "response_frame", "int"),
    ("roce.icrc.rewritten", "icrc_rewritten", "str"),
    ("roce.icrc.valid_with", "icrc_valid_with", "int"),
]
DIAGNOSIS = "roce.diagnosis"  # last field: every diagnosis citing the frame
IGNORED_CLI_KEYS = {"opcode"}  # the plugin shows the opcode number, the CLI its identifier


def address(text):
    """An address as either front end writes it: IPv4, IPv6 / GID, lid:0x0012."""
    return text if text.startswith("lid:") else ipaddress.ip_address(text)


def convert(kind, text):
    if kind == "int":
        return int(text, 0)
    if kind == "ns":
        return int(decimal.Decimal(text) * NS)
    if kind == "time":
        return decimal.Decimal(text)
    if kind == "addr":
        return address(text)
    if kind == "list":
        return text.split(",")
    if kind == "float":
        return float(text)
    return text


def normalise_cli(ev):
    out = {}
    for k, v in ev.items():
        if k in IGNORED_CLI_KEYS:
            continue
        if k == "time":
            v = decimal.Decimal(v)
        elif k in ("src", "dst"):
            v = address(v)
        out[k] = v
    return out


def cli_events(rocescope, path, *options):
    """{frame: event} of `rocescope --events [options] path`, normalised."""
    p = subprocess.run([rocescope, "--events", *options, path], capture_output=True, text=True,
                       timeout=300)
    if p.returncode != 0:
        raise RuntimeError(f"rocescope --events exit {p.returncode}: {p.stderr.strip()}")
    events = {}
    for line in p.stdout.splitlines():
        ev = json.loads(line)
        events[ev["frame"]] = normalise_cli(ev)
    return events


def cli_diagnoses(rocescope, path, *options):
    """The diagnoses of `rocescope --json [options] path`: the list, and
    {frame: sorted kinds of the diagnoses citing it}."""
    p = subprocess.run([rocescope, "--json", *options, path], capture_output=True, text=True,
                       timeout=300)
    if p.returncode != 0:
        raise RuntimeError(f"rocescope --json exit {p.returncode}: {p.stderr.strip()}")
    found = json.loads(p.stdout)["diagnoses"]
    listed = [(d["severity"], d["kind"], d["count"], d["summary"], d["frames"],
               [s["summary"] for s in d["subjects"]]) for d in found]
    return listed, frame_kinds(found)


def frame_kinds(found):
    """{frame: sorted kinds} of every evidence frame of every subject."""
    cited = {}
    for d in found:
        for s in d["subjects"]:
            for f in s["frames"]:
                cited.setdefault(f, []).append(d["kind"])
    return {f: sorted(k) for f, k in cited.items()}


def parse_diagnoses_table(lines):
    """The entries of the -z roce,diagnoses table (roce_ws_diag.c): a line
    "SEVERITY KIND COUNT N UNITS (CAUSE)", the sentence, "frames: N N ...",
    then "- SUBJECT (FIGURES)" per subject."""
    listed, i = [], 0
    while i < len(lines) and not lines[i].startswith("RoCE diagnoses"):
        i += 1
    i += 1
    while i + 2 < len(lines) and not lines[i].startswith("="):
        head = lines[i].split()
        sentence = lines[i + 1].strip()
        frames = [int(x) for x in lines[i + 2].split()[1:]]
        i += 3
        subjects = []
        while i < len(lines) and lines[i].startswith("         - "):
            subjects.append(lines[i][len("         - "):])
            i += 1
        listed.append((head[0], head[1], int(head[2]), sentence, frames, subjects))
    return listed


def plugin_events(env, path, *options):
    """What the plugin shows (tshark -2 [options] -z roce,diagnoses):
    {frame: event} of the frames with verdicts, in the form of the CLI's, the
    diagnoses table, and {frame: sorted kinds of roce.diagnosis}."""
    args = [*options, "-2", "-r", env.capture(path), "-Y", "roce.analysis || roce.diagnosis",
            "-T", "fields", "-E", "separator=\t", "-E", "occurrence=a", "-E", "aggregator=;",
            "-e", "frame.number"]
    for field, _, _ in FIELDS:
        args += ["-e", field]
    args += ["-e", DIAGNOSIS, "-z", "roce,diagnoses"]
    rc, out, err = env.run(*args)
    if rc != 0 and UNSUPPORTED_247 in err:
        return None, [], {}
    if rc != 0:
        raise RuntimeError(f"tshark exit {rc}: {err.strip()}")
    events, cited, lines = {}, {}, out.splitlines()
    for n, line in enumerate(lines):
        if not line or not line[0].isdigit():
            return events, parse_diagnoses_table(lines[n:]), cited
        cells = line.split("\t")
        frame = int(cells[0])
        ev = {"frame": frame}
        for (field, key, kind), text in zip(FIELDS, cells[1:]):
            if text != "":  # the first occurrence (all are listed for roce.diagnosis)
                ev[key] = convert(kind, text.split(";")[0])
        if "episode_start" in ev.get("verdicts", ()) and "episode_frame" not in ev:
            ev["episode_frame"] = frame  # the plugin leaves out this self-reference
        if cells[-1]:
            cited[frame] = sorted(cells[-1].split(";"))
        if "verdicts" in ev:
            events[frame] = ev
    return events, [], cited


def compare(name, cli, plug):
    """List of differences (strings) between the two event maps."""
    diffs = []
    for frame in sorted(set(cli) | set(plug)):
        c, p = cli.get(frame), plug.get(frame)
        if c is None:
            diffs.append(f"{name}: frame {frame}: plugin {p.get('verdicts')}, CLI no verdict")
        elif p is None:
            diffs.append(f"{name}: frame {frame}: CLI {c.get('verdicts')}, plugin no verdict")
        elif c != p:
            keys = sorted(set(c) | set(p))
            delta = {k: (c.get(k), p.get(k)) for k in keys if c.get(k) != p.get(k)}
            diffs.append(f"{name}: frame {frame}: (CLI, plugin) differ: {delta}")
    return diffs


def check_capture(env, rocescope, path):
    name = os.path.basename(path)
    try:
        cli = cli_events(rocescope, path)
        cli_listed, cli_cited = cli_diagnoses(rocescope, path)
        plug, plug_listed, plug_cited = plugin_events(env, path)
    except (RuntimeError, subprocess.TimeoutExpired, ValueError, IndexError) as e:
        return name, 0, [f"{name}: {e}"]
    if plug is None:
        if not is_linktype_247(path):
            return name, 0, [f"{name}: tshark refused it as of link type 247, which it is not"]
        return name, None, []
    diffs = compare(name, cli, plug)
    if cli_listed != plug_listed:
        diffs.append(f"{name}: diagnoses: CLI {cli_listed}, -z roce,diagnoses {plug_listed}")
    if cli_cited != plug_cited:
        diffs.append(f"{name}: evidence frames: CLI {cli_cited}, roce.diagnosis {plug_cited}")
    if is_erf(path):
        ib_diffs, n = wireshark_decode_diffs(env, path)
        print(f"{'ok  ' if not ib_diffs else 'FAIL'} {name}: {n} frames of Wireshark's "
              f"InfiniBand decode compared")
        diffs += ib_diffs
    return name, len(cli), diffs


def pcap_linktype(path):
    """The link type of a pcap file, or None (pcapng, ERF, anything else)."""
    with open(path, "rb") as f:
        head = f.read(24)
    if len(head) < 24:
        return None
    order = {b"\xd4\xc3\xb2\xa1": "<", b"\x4d\x3c\xb2\xa1": "<",
             b"\xa1\xb2\xc3\xd4": ">", b"\xa1\xb2\x3c\x4d": ">"}.get(head[:4])
    return None if order is None else struct.unpack(order + "I", head[20:24])[0] & 0xFFFF


def is_linktype_247(path):
    """True when path is a pcap file of link type 247 (LINKTYPE_INFINIBAND)."""
    return pcap_linktype(path) == 247


def is_erf(path):
    """True for ERF records: an ERF file, or pcap of link type ERF (197)."""
    return path.endswith(".erf") or pcap_linktype(path) == 197


IB_DECODE = [("infiniband.bth.opcode", "roce.opcode"), ("infiniband.bth.destqp", "roce.flow.dest_qp"),
             ("infiniband.bth.psn", "roce.psn")]


def wireshark_decode_diffs(env, path):
    """Wireshark's own InfiniBand decode of ERF records against the plugin's
    (the engine's): opcode, destination QP and PSN of every frame both
    decode; a frame Wireshark decodes and the engine does not must be
    malformed by the engine."""
    name = os.path.basename(path)
    args = ["-r", env.capture(path), "-T", "fields", "-E", "separator=\t", "-E", "occurrence=f",
            "-e", "frame.number", "-e", "roce.analysis.malformed"]
    for ws, ours in IB_DECODE:
        args += ["-e", ws, "-e", ours]
    rc, out, err = env.run(*args)
    if rc != 0:
        return [f"{name}: tshark exit {rc}: {err.strip()}"], 0
    diffs, compared = [], 0
    for line in out.splitlines():
        cells = line.split("\t")
        frame, malformed, pairs = cells[0], cells[1], cells[2:]
        theirs, ours = pairs[0::2], pairs[1::2]
        if theirs[0] == "" or (ours[0] == "" and malformed != ""):
            continue  # no BTH for Wireshark, or the engine says why it has none
        compared += 1
        if [int(t, 0) for t in theirs] != [int(o, 0) if o else None for o in ours]:
            diffs.append(f"{name}: frame {frame}: Wireshark's (opcode, dest QP, PSN) {theirs}, "
                         f"the engine's {ours}")
    if compared == 0:
        diffs.append(f"{name}: no frame Wireshark decodes as InfiniBand")
    return diffs, compared


def captures_in(folder):
    """The captures of folder; raises ValueError when it is absent or holds none."""
    if not os.path.isdir(folder):
        raise ValueError(f"folder {folder}: absent")
    found = sorted(os.path.join(folder, f) for f in os.listdir(folder)
                   if f.endswith(EXTENSIONS))
    if not found:
        raise ValueError(f"folder {folder}: no capture in it")
    return found


def cut_copies(paths, snaplens, workdir):
    """A copy of every third of paths cut at one of snaplens (editcap -s), in
    turn, named NAME.sN.EXT."""
    out = []
    if not snaplens:
        return out
    cuttable = [p for p in sorted(paths) if not is_linktype_247(p)]  # nor can editcap open it
    for i, path in enumerate(cuttable[::CUT_EVERY]):
        base, ext = os.path.splitext(os.path.basename(path))
        for n in snaplens[i % len(snaplens):][:1]:
            dst = os.path.join(workdir, f"{base}.s{n}{ext}")
            subprocess.run(["editcap", "-s", str(n), path, dst], check=True,
                           capture_output=True, timeout=60)
            out.append(dst)
    return out


def main():
    ap = argparse.ArgumentParser()
    add_arguments(ap)
    ap.add_argument("--rocescope", required=True)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--snaplens", default="",
                    help="also compare a cut copy of every third capture, the snaplens in turn, "
                         "e.g. 64,96,128")
    ap.add_argument("--sample", type=int, default=0,
                    help="only N of the captures, spread evenly over the sorted list (0: all)")
    ap.add_argument("--real", help="a folder of real captures (tests/real_folder.py)")
    ap.add_argument("folders", nargs="*")
    a = ap.parse_args()

    folders = a.folders + ([real_folder(a.real)] if a.real else [])
    try:
        paths = [p for folder in folders for p in captures_in(folder)]
        if 0 < a.sample < len(paths):
            paths = sorted(paths)
            paths = sorted({paths[i * len(paths) // a.sample] for i in range(a.sample)} |
                           {p for p in paths if pcap_linktype(p) != 1 or
                            os.path.basename(p) in SAMPLE_KEEP})
    except ValueError as e:
        print(f"FAIL: {e}")
        return 1
    if not paths:
        print("FAIL: no folder of captures given")
        return 1
    failures = []
    with tempfile.TemporaryDirectory(prefix="rocescope-cut-") as workdir, \
            TsharkEnv(a.tshark, a.plugin, a.wireshark_version,
                      suite=a.wireshark_suite, root=a.wireshark_root) as env:
        snaplens = [int(n) for n in a.snaplens.split(",") if n]
        paths += cut_copies(paths, snaplens, workdir)
        problem = env.loaded_plugin()
        if problem is not None:
            print(f"FAIL: plugin not loaded: {problem}")
            return 1
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
            results = pool.map(lambda p: check_capture(env, a.rocescope, p), paths)
            for name, n, diffs in results:
                if n is None:
                    print(f"ok   {name}: refused by this Wireshark (link type 247), as it must be")
                    continue
                print(f"{'ok  ' if not diffs else 'FAIL'} {name}: {n} frames with verdicts")
                failures += diffs
    for f in failures:
        print("FAIL:", f)
    print(f"{len(paths)} captures compared, {len(failures)} differences")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
