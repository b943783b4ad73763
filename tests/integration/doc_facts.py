#!/usr/bin/env python3
"""The facts the documentation states in prose, checked against the build.

doc_examples runs the examples; this checks what no example shows:

- every Wireshark name `roce.*` written in a tracked document (Markdown, the
  manual page, the coloring rules) is a field, an expert info or a
  preference of the plugin as tshark lists them (`-G fields`, `-G
  defaultprefs`); `roce.expert.diagnosis.<kind>` stands for every kind, and a
  name ending in `.*` or `...` for any name under it;
- every long option of `rocescope --help`, `rocescope merge --help` and
  `rocescope localize --help` is in the manual page, and every long option
  the manual page names is in one of them;
- every long option of those --help texts is offered by the bash completion
  (analyzer/cli/rocescope.bash-completion);
- the manual page's OUTPUT lists the keys the tool emits: every key of
  `rocescope --events` over the sample captures is in its Events list and
  every key of that list is emitted by one of them; every top-level member
  of `rocescope --json` is named in its JSON report paragraph, every member
  of `rocescope localize --json` (and of its options and findings, and the
  findings' kinds) in its Localize JSON paragraph;
- dissector/README.md's field table is the one tools/plugin_fields.py makes
  from the plugin's `tshark -G fields`;
- every unit suite the build registers (ctest `unit_*`) is named in
  tests/README.md, and every `unit_*` that document names exists;
- every diagnosis kind (read from the plugin's expert infos
  `roce.expert.diagnosis.KIND`, which the engine's table of kinds makes) is
  named in ANALYSIS.md and in the manual page's DIAGNOSES.

Run by ctest (doc_facts) with the plugin of the build under test, as the
unprivileged user the plugin tests use (tests/plugin/tshark_env.py).
"""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "plugin"))
from tshark_env import TsharkEnv, add_arguments  # noqa: E402
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import plugin_fields  # noqa: E402

MAN = "analyzer/cli/rocescope.1"
ANALYSIS = "analyzer/engine/ANALYSIS.md"
TESTS_README = "tests/README.md"
COMPLETION = "analyzer/cli/rocescope.bash-completion"
PLUGIN_README = "dissector/README.md"
# a Wireshark name: roce.x.y, not inside a path (dissector/roce.colorfilters) or a word
NAME = re.compile(r"(?<![\w/.\-])roce\.[a-z0-9_]+(?:\.(?:[a-z0-9_]+|<[a-z_]+>|\*))*(?:\.\.\.)?")
MAN_OPTION = re.compile(r"\\-\\-[a-z0-9]+(?:\\-[a-z0-9]+)*")
HELP_OPTION = re.compile(r"(?:^|[\s,\[])(--[a-z][a-z0-9-]*)")
# long options the manual page names that are not rocescope's
NOT_OURS = {"--now": "systemctl enable --now, in the unit's example",
            "--option": "the placeholder of --option=VALUE"}


def tracked(top):
    out = subprocess.run(["git", "-C", top, "ls-files"], capture_output=True, text=True)
    if out.returncode == 0 and out.stdout.strip():
        return out.stdout.split()
    files = []  # not a git checkout (a source tarball): walk it
    for root, dirs, names in os.walk(top):
        dirs[:] = [d for d in dirs if not d.startswith(("build", "."))]
        files += [os.path.relpath(os.path.join(root, n), top) for n in names]
    return files


def documents(top):
    return [f for f in tracked(top)
            if f.endswith(".md") or f == MAN or f.endswith(".colorfilters")]


def plugin_names(env, fields_out):
    """Fields and expert infos, and preferences, of the plugin."""
    out = fields_out
    names = {line.split("\t")[2] for line in out.splitlines()
             if line.startswith(("F\t", "P\t")) and len(line.split("\t")) > 2}
    rc, out, err = env.run("-G", "defaultprefs")
    names |= {m.group(1) for m in re.finditer(r"^#?(roce\.[a-z0-9_.]+):", out, re.M)}
    return {n for n in names if n == "roce" or n.startswith("roce.")}


def check_names(top, docs, known, files):
    failures = []
    basenames = {os.path.basename(f) for f in files}
    kinds = {n.split(".")[-1] for n in known if n.startswith("roce.expert.diagnosis.")}
    for doc in docs:
        with open(os.path.join(top, doc), encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                for m in NAME.finditer(line):
                    name = m.group(0)
                    if name in basenames or name.rstrip(".") in basenames:
                        continue  # a file (roce.colorfilters)
                    if name.endswith("...") or name.endswith(".*"):
                        prefix = name.rstrip(".*") + "."
                        ok = any(k.startswith(prefix) for k in known)
                    elif "<" in name:
                        ok = bool(kinds) and all(re.sub(r"<[a-z_]+>", k, name) in known
                                                 for k in kinds)
                    else:
                        name = name.rstrip(".")  # the end of a sentence
                        ok = name in known
                    if not ok:
                        failures.append(f"{doc}:{lineno}: `{name}` is no field, expert info "
                                        f"or preference of the plugin (tshark -G fields)")
    return failures, kinds


def help_options(rocescope):
    opts = set()
    for sub in ([], ["merge"], ["localize"]):
        p = subprocess.run([rocescope, *sub, "--help"], capture_output=True, text=True)
        if p.returncode != 0:
            raise SystemExit(f"rocescope {' '.join(sub)} --help: exit {p.returncode}")
        opts |= set(HELP_OPTION.findall(p.stdout))
    return opts


def check_options(top, rocescope):
    with open(os.path.join(top, MAN), encoding="utf-8") as f:
        man = {m.replace("\\-", "-") for m in MAN_OPTION.findall(f.read())}
    helped = help_options(rocescope)
    failures = [f"{MAN}: --help gives {o}, the manual page does not" for o in sorted(helped - man)]
    failures += [f"{MAN}: names {o}, which no --help gives"
                 for o in sorted(man - helped - set(NOT_OURS))]
    return failures


def check_field_table(top, fields_out):
    with open(os.path.join(top, PLUGIN_README), encoding="utf-8") as f:
        have = plugin_fields.block(f.read())
    if have is None:
        return [f"{PLUGIN_README}: no field table (its marker lines, tools/plugin_fields.py)"]
    if have != plugin_fields.table(fields_out):
        return [f"{PLUGIN_README}: the field table is not the plugin's: `tshark -G fields | "
                f"tools/plugin_fields.py --update {PLUGIN_README}` (with this build's plugin)"]
    return []


def check_completion(top, rocescope):
    with open(os.path.join(top, COMPLETION), encoding="utf-8") as f:
        offered = set(re.findall(r"--[a-z][a-z0-9-]*", f.read()))
    return [f"{COMPLETION}: does not offer {o}, which --help gives"
            for o in sorted(help_options(rocescope) - offered - {"--help"})]


def man_paragraph(man, head):
    """The text of the manual's OUTPUT paragraph that starts with .B head."""
    out = man[man.find(".SH OUTPUT"):]
    start = out.find(f".B {head}\n")
    if start < 0:
        return ""
    end = out.find("\n.PP", start)
    return out[start:end].replace("\\-", "-").replace("\\fB", "").replace("\\fR", "")


def check_output_keys(top, rocescope):
    with open(os.path.join(top, MAN), encoding="utf-8") as f:
        man = f.read()
    events_text = man_paragraph(man, "Events")
    json_text = man_paragraph(man, "JSON report")
    if not events_text or not json_text:
        return [f"{MAN}: OUTPUT has no Events or JSON report paragraph"]
    listed = set(re.findall(r"\b[a-z][a-z0-9_]*\b", events_text.split(":", 1)[1]))
    caps = os.path.join(top, "captures")
    names = sorted(n for n in os.listdir(caps) if n.endswith((".pcap", ".pcapng", ".erf")))
    emitted, members = set(), set()
    for n in names:
        p = subprocess.run([rocescope, "--events", n], cwd=caps, capture_output=True, text=True)
        for line in p.stdout.splitlines():
            emitted |= set(json.loads(line))
        p = subprocess.run([rocescope, "--json", n], cwd=caps, capture_output=True, text=True)
        if p.returncode == 0:
            members |= set(json.loads(p.stdout))
    failures = [f"{MAN}: OUTPUT, Events does not list the key {k}, which --events emits"
                for k in sorted(emitted - listed)]
    # the list's words that are keys: those with an underscore or a known key's
    # shape; prose words (and, where, they, apply, the, reason) are not keys
    prose = {"and", "where", "they", "apply", "the", "reason", "malformed"}
    failures += [f"{MAN}: OUTPUT, Events lists {k}, which no sample capture's --events emits"
                 for k in sorted(listed - emitted - prose)]
    failures += [f"{MAN}: OUTPUT, JSON report does not name the member {m}"
                 for m in sorted(members) if not re.search(r"\b%s\b" % re.escape(m), json_text)]
    if not emitted or not members:
        failures.append("no --events or --json output from the sample captures")
    return failures


def check_localize_keys(top, rocescope):
    """Every top-level member of `rocescope localize --json`, and of its
    options, findings and pause_spreading, is named in OUTPUT's Localize JSON
    paragraph (over the two taps and the pause cycle of captures/localize)."""
    with open(os.path.join(top, MAN), encoding="utf-8") as f:
        text = man_paragraph(f.read(), "Localize JSON")
    if not text:
        return [f"{MAN}: OUTPUT has no Localize JSON paragraph"]
    lz = os.path.join(top, "captures", "localize")
    keys = set()
    for files in (["tap_a.pcap", "tap_b.pcap"],
                  ["cycle_s1_s2.pcap", "cycle_s2_s3.pcap", "cycle_s3_s1.pcap"]):
        p = subprocess.run([rocescope, "localize", "--json", *files], cwd=lz,
                           capture_output=True, text=True)
        if p.returncode != 0:
            return [f"rocescope localize --json {' '.join(files)}: exit {p.returncode}"]
        r = json.loads(p.stdout)
        keys |= set(r) | set(r["options"]) | {f["kind"] for f in r["findings"]}
        keys |= {k for f in r["findings"] for k in f}
    return [f"{MAN}: OUTPUT, Localize JSON does not name {k}" for k in sorted(keys)
            if not re.search(r"\b%s\b" % re.escape(k), text)]


def check_unit_suites(top, ctest_names):
    with open(os.path.join(top, TESTS_README), encoding="utf-8") as f:
        text = f.read()
    named = set(re.findall(r"\bunit_[a-z_]+\b", text))
    have = {n for n in ctest_names if n.startswith("unit_")}
    failures = [f"{TESTS_README}: does not name the unit suite {n}" for n in sorted(have - named)]
    failures += [f"{TESTS_README}: names {n}, which the build does not register"
                 for n in sorted(named - have)]
    return failures


def check_kinds(top, kinds):
    failures = []
    with open(os.path.join(top, ANALYSIS), encoding="utf-8") as f:
        analysis = f.read()
    with open(os.path.join(top, MAN), encoding="utf-8") as f:
        man = f.read().replace("\\-", "-").replace("\\_", "_")
    diag = man[man.find(".SH DIAGNOSES"):]
    diag = diag[:diag.find("\n.SH ", 1)] if "\n.SH " in diag[1:] else diag
    for k in sorted(kinds):
        if f"`{k}`" not in analysis:
            failures.append(f"{ANALYSIS}: the diagnosis kind {k} is not in it")
        if not re.search(r"\b%s\b" % re.escape(k), diag):
            failures.append(f"{MAN}: DIAGNOSES does not name the kind {k}")
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(ap)
    ap.add_argument("--rocescope", required=True)
    ap.add_argument("--source", required=True, help="the top of the source tree")
    ap.add_argument("--build-dir", required=True, help="the build whose tests are registered")
    a = ap.parse_args()
    a.rocescope = os.path.abspath(a.rocescope)
    top = os.path.abspath(a.source)
    files = tracked(top)
    docs = documents(top)
    listed = subprocess.run(["ctest", "--test-dir", a.build_dir, "-N"], capture_output=True,
                            text=True)
    ctest_names = set(re.findall(r"Test +#\d+: (\S+)", listed.stdout))
    if listed.returncode != 0 or not ctest_names:
        raise SystemExit(f"ctest -N in {a.build_dir}: exit {listed.returncode}")
    with TsharkEnv(a.tshark, a.plugin, a.wireshark_version) as env:
        problem = env.loaded_plugin()
        if problem:
            print(f"FAIL: {problem}")
            return 1
        rc, fields_out, err = env.run("-G", "fields")
        if rc != 0:
            raise SystemExit(f"tshark -G fields: exit {rc}: {err.strip()[:300]}")
        known = plugin_names(env, fields_out)
    failures, kinds = check_names(top, docs, known, files)
    if not kinds:
        failures.append("no roce.expert.diagnosis.* expert info: the kinds cannot be checked")
    failures += check_options(top, a.rocescope)
    failures += check_field_table(top, fields_out)
    failures += check_completion(top, a.rocescope)
    failures += check_output_keys(top, a.rocescope)
    failures += check_localize_keys(top, a.rocescope)
    failures += check_unit_suites(top, ctest_names)
    failures += check_kinds(top, kinds)
    for f in failures:
        print("FAIL:", f)
    print(f"{len(docs)} documents, {len(known)} plugin names, {len(kinds)} diagnosis kinds: "
          f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
