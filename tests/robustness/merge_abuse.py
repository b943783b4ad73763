#!/usr/bin/env python3
"""Corrupted JSON reports through `rocescope merge`: the reports of some
captures/ files, each mutated many times (seeded) as text (cut at a random
offset, bytes flipped) and as JSON (a random member deleted, nulled, given
another type, a negative, huge or fractional number, an array emptied,
reversed or repeated, deep nesting). Every `merge` must end on its own
without a signal or a sanitizer report, with exit 0 (a merged report that
parses) or 1 (one line `rocescope: REPORT: WHY`, and nothing written by
-o). --many multiplies the mutations.

Then memory (issue 26): reports made large by what merge does not keep, a
newer version's member and "diagnoses" (each 48 MiB of text), are merged
into the report of the same small one (byte for byte) within
--rss-bound-mb of peak RSS (0: not checked; sanitizer builds); a report
listing more episodes than any report lists is refused at the first one
too many, also within the bound.

--per-source N (the sanitizer build's share in the contributor's suite,
tests/CMakeLists.txt: 10) mutates each report N times instead of 30; the
normal build and the sanitizer build's release tier run all 30.
"""
import argparse
import copy
import decimal
import json
import os
import random
import subprocess
import sys
import tempfile

import checks

SOURCES = ("loss_receiver.pcap", "ecn_cnp.pcap", "read_loss.pcap", "pfc.pcap", "erspan2.pcap",
           "rnr.pcap", "truncated.pcapng", "ud_atomic.pcap")
PER_SOURCE, MANY_FACTOR = 30, 20
TIMEOUT_S = 60
VALUES = (None, -1, 0, 2 ** 64, 2 ** 63, -2 ** 63, 1e308, 0.5, 1e-9, "x", "", [], {}, True,
          "::ffff:999.1.1.1", "1700000000.0000000001")
DEEP = 5000
DEEP_MARK = "@deep@"


def dump(o):
    """JSON text of o that keeps the report's decimals as written (Decimal
    members come out in fixed notation, as rocescope writes them)."""
    if isinstance(o, dict):
        return "{" + ",".join(json.dumps(k) + ":" + dump(v) for k, v in o.items()) + "}"
    if isinstance(o, list):
        return "[" + ",".join(dump(v) for v in o) + "]"
    if isinstance(o, decimal.Decimal):
        return format(o, "f")
    return json.dumps(o)


def paths(o, prefix=()):
    """Every path (tuple of keys / indexes) to a member of o."""
    out = []
    items = o.items() if isinstance(o, dict) else enumerate(o) if isinstance(o, list) else []
    for k, v in items:
        out.append(prefix + (k,))
        out += paths(v, prefix + (k,))
    return out


def json_mutation(doc, rng):
    """A copy of doc with one structural change."""
    d = copy.deepcopy(doc)
    p = rng.choice(paths(d))
    parent = d
    for k in p[:-1]:
        parent = parent[k]
    key, op = p[-1], rng.randrange(5)
    if op == 0 and isinstance(parent, dict):
        del parent[key]
    elif op == 1 and isinstance(parent[key], list) and parent[key]:
        parent[key] = rng.choice([[], parent[key][::-1], parent[key] * 3])
    elif op == 2:  # nested deeper than Python's encoder goes: spliced in as text
        parent[key] = DEEP_MARK
        inner = json.dumps(rng.choice(VALUES))
        return dump(d).replace(json.dumps(DEEP_MARK), "[" * DEEP + inner + "]" * DEEP, 1)
    else:
        parent[key] = rng.choice(VALUES)
    return dump(d)


def text_mutation(text, rng):
    """text cut at a random offset, or with a few bytes changed."""
    b = bytearray(text.encode())
    if rng.randrange(2):
        return bytes(b[:rng.randrange(len(b))])
    for _ in range(rng.randrange(1, 6)):
        b[rng.randrange(len(b))] = rng.randrange(256)
    return bytes(b)


def check_merge(tool, args, out_path):
    """Problems of one `merge` run, or None."""
    try:
        r = checks.run([tool, "merge", *args], TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return "hang"
    bad = checks.sanitizer_report(r.stderr)
    if r.status < 0 or bad:
        return bad or f"signal {-r.status}"
    if r.status == 0 and out_path is not None:
        try:
            with open(out_path, encoding="utf-8") as f:
                json.load(f)
        except (OSError, ValueError) as e:
            return f"merged report unreadable: {e!r}"
    if r.status == 1 and not r.stderr.startswith("rocescope: "):
        return f"exit 1 without an error line: {r.stderr[:200]}"
    if r.status not in (0, 1):
        return f"exit {r.status}: {r.stderr[:300]}"
    if r.status != 0 and out_path is not None and os.path.exists(out_path):
        # an incomplete input report still gives a merged (incomplete) report
        if "incomplete" not in r.stderr and "complete" not in open(out_path).read():
            return "-o written although the merge failed"
    return None


PAD_MIB = 48
KIB_PER_MIB = 1024
MAX_EPISODES = 65536  # roce_config.h: a report lists at most this many


def padded(text, doc, room_mib):
    """text (a report) with room_mib MiB of a member this version does not
    read ("newer", before "diagnoses") and as much again of diagnoses."""
    at = text.index('"diagnoses": [')
    diag = json.dumps(doc["diagnoses"][0] if doc["diagnoses"] else {"kind": "x"})
    n = (room_mib << 20) // (len(diag) + 1)
    newer = '"newer": [' + ",".join(['{"a": [1, 2.5, "x", null, true]}'] * (n * len(diag) // 34)) + "],\n  "
    return text[:at] + newer + '"diagnoses": [' + ",".join([diag] * n) + "," + \
        text[at + len('"diagnoses": ['):]


def with_episodes(doc, n):
    """A report like doc (a dict, Decimal numbers) whose first flow with
    episodes lists its first one n times."""
    d = copy.deepcopy(doc)
    for f in d["flows"]:
        if f.get("episodes"):
            one = dump(f["episodes"][0])
            f["episodes"] = [DEEP_MARK]
            return dump(d).replace(json.dumps(DEEP_MARK), ",".join([one] * n))
    return None


def memory(tool, captures, tmp, bound_mb):
    """Merge of large reports: the problems (a list)."""
    problems = []
    good = os.path.join(tmp, "mem.json")
    r = checks.run([tool, "--json", "-o", good, os.path.join(captures, "loss_receiver.pcap")],
                   TIMEOUT_S)
    if r.status != 0:
        return [f"memory: no report to start from: {r.stderr[:200]}"]
    with open(good, encoding="utf-8") as f:
        text = f.read()
    doc = json.loads(text, parse_float=decimal.Decimal)
    want = checks.run([tool, "merge", "--json", good], TIMEOUT_S)
    big = os.path.join(tmp, "padded.json")
    with open(big, "w", encoding="utf-8") as f:
        f.write(padded(text, doc, PAD_MIB))
    cases = [("padded", big, 0, want.stdout, "")]
    many = with_episodes(doc, MAX_EPISODES + 1)
    if many is None:
        return ["memory: loss_receiver.pcap's report has no episode"]
    path = os.path.join(tmp, "episodes.json")
    with open(path, "w", encoding="utf-8") as f:
        f.write(many)
    cases.append(("too many episodes", path, 1, "", f"episodes[{MAX_EPISODES}]: more than "
                  f"{MAX_EPISODES} episodes listed"))
    for name, path, status, stdout, stderr_has in cases:
        out = os.path.join(tmp, "mem-out.json")
        try:
            r = checks.run_measured([tool, "merge", "--json", path], TIMEOUT_S, out)
        except subprocess.TimeoutExpired:
            problems.append(f"memory, {name}: hang")
            continue
        rss_mib = r.maxrss_kib / KIB_PER_MIB
        print(f"merge of {name} ({os.path.getsize(path) / (1 << 20):.0f} MiB): exit {r.status}, "
              f"{r.seconds:.2f} s, peak RSS {rss_mib:.1f} MiB (bound {bound_mb or 'not checked'})")
        if r.status != status or r.stdout != stdout or stderr_has not in r.stderr:
            problems.append(f"memory, {name}: exit {r.status}, stderr {r.stderr[:300]!r}, "
                            f"{'the' if r.stdout == stdout else 'not the'} report expected")
        if bound_mb and rss_mib > bound_mb:
            problems.append(f"memory, {name}: peak RSS {rss_mib:.1f} MiB above {bound_mb} MiB")
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rocescope", required=True)
    ap.add_argument("--captures", required=True)
    ap.add_argument("--many", action="store_true")
    ap.add_argument("--per-source", type=int, default=PER_SOURCE,
                    help=f"mutations of each report (default {PER_SOURCE})")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rss-bound-mb", type=float, default=0)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    failures, runs = [], 0
    n = a.per_source * (MANY_FACTOR if a.many else 1)
    with tempfile.TemporaryDirectory(prefix="rocescope-merge-") as tmp:
        for name in SOURCES:
            cap = os.path.join(a.captures, name)
            if not os.path.exists(cap):
                continue
            good = os.path.join(tmp, name + ".json")
            r = checks.run([a.rocescope, "--json", "-o", good, cap], TIMEOUT_S)
            if r.status != 0:
                failures.append(f"{name}: no report to start from: {r.stderr[:200]}")
                continue
            with open(good, encoding="utf-8") as f:
                text = f.read()
            doc = json.loads(text, parse_float=decimal.Decimal)
            if json.loads(dump(doc)) != json.loads(text):
                failures.append(f"{name}: the mutator does not reproduce the report")
            for i in range(n):
                bad = os.path.join(tmp, f"{name}.{i}.json")
                data = (json_mutation(doc, rng).encode() if i % 2 else text_mutation(text, rng))
                with open(bad, "wb") as f:
                    f.write(data)
                out = os.path.join(tmp, "merged.json")
                if os.path.exists(out):
                    os.unlink(out)
                for args, out_path in ((["--json", "-o", out, good, bad], out), ([bad], None)):
                    runs += 1
                    problem = check_merge(a.rocescope, args, out_path)
                    if problem:
                        keep = os.path.join(tempfile.gettempdir(), f"rocescope-merge-fail-{name}.{i}.json")
                        with open(keep, "wb") as f:
                            f.write(data)
                        failures.append(f"merge {' '.join(args[:-1])} {keep}: {problem}")
        failures += memory(a.rocescope, a.captures, tmp, a.rss_bound_mb)
    return checks.finish(failures, f"merge of corrupted reports, {runs} runs")


if __name__ == "__main__":
    sys.exit(main())
