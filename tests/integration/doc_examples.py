#!/usr/bin/env python3
"""Every command example of the documentation runs, and shows what it says.

Markdown (README.md, dissector/README.md, analyzer/report/REPORT.md,
analyzer/engine/ANALYSIS.md, CONTRIBUTING.md: DOCS; in any other Markdown file
of the tree only the `$` blocks):

- A fenced block whose first line starts with `$ ` holds examples with their
  output: each `$ COMMAND` line (continued on the next line after a trailing
  backslash) is run, and what it writes on standard output must equal the
  lines after it, up to the next `$ ` line or the end of the block. A line
  that is only `...` (at any indentation) stands for any number of lines;
  trailing blanks and blank lines at the start and end do not count. The
  command must exit with status 0.
- A ```sh block is a list of commands without output: it runs as one script
  (`sh -e`, so every line must succeed and variables carry over).
- Any other fenced block in DOCS, and an example that cannot run here (a live
  capture on a real NIC, an installation into the system, a benchmark), is
  preceded by `<!-- example: not run: WHY -->`; those are listed with their
  reason. An unmarked block that is not an example is a failure, so that
  output cannot be shown without the command that makes it.

The manual page (analyzer/cli/rocescope.1): every line of the `.nf` block of
EXAMPLES is a command run in order in one folder, with exit status 0 and
nothing on standard error (the page shows no output). Its comments
`.\\" example files: NAME=CAPTURE ...` say which files of captures/ that folder
holds under the names the examples use; `.\\" example: not run: WHY` before a
line leaves that line out, and before a `.nf` block of another section marks it
as no example (an unmarked one fails).

Everything runs with /bin/sh (dash on Debian: no bash-only syntax) as the
unprivileged user the plugin tests use (tests/plugin/tshark_env.py), in a
scratch folder holding a copy of captures/ and build/analyzer/rocescope and
build/dissector/rocescope.so (the paths the documents use), with `rocescope`
on the PATH. The `$` examples run with the plugin in the user's personal
plugin folder; the ```sh blocks in a home of their own without it (so that the
installation examples are what installs it).
"""
import argparse
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "plugin"))
from tshark_env import TsharkEnv, add_arguments  # noqa: E402

DOCS = ("README.md", "dissector/README.md", "analyzer/report/REPORT.md",
        "analyzer/engine/ANALYSIS.md", "CONTRIBUTING.md")
MAN = "analyzer/cli/rocescope.1"
SKIP_DIRS = {".git", "build", "node_modules"}
NOT_RUN = re.compile(r"<!--\s*example:\s*not run:\s*(.+?)\s*-->")
TIMEOUT_S = 300


class Example:
    def __init__(self, doc, line, kind, body, reason=None):
        self.doc, self.line, self.kind, self.body, self.reason = doc, line, kind, body, reason

    def where(self):
        return f"{self.doc}:{self.line}"


def markdown_examples(doc, text, all_blocks):
    """The fenced blocks of a Markdown document as Examples (kind "output",
    "sh", "other"); with all_blocks False only the `$` blocks."""
    out, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        m = re.match(r"^(\s*)```(\S*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        start, lang, body = i, m.group(2), []
        i += 1
        while i < len(lines) and not re.match(r"^\s*```\s*$", lines[i]):
            body.append(lines[i])
            i += 1
        i += 1
        before = next((lines[j] for j in range(start - 1, -1, -1) if lines[j].strip()), "")
        mark = NOT_RUN.search(before)
        kind = ("output" if body and body[0].startswith("$ ") else
                "sh" if lang in ("sh", "shell") else "other")
        if kind == "output" or all_blocks:
            out.append(Example(doc, start + 1, kind, body, mark.group(1) if mark else None))
    return out


def split_output_examples(body):
    """[(command, expected lines)] of a `$` block."""
    cases, i = [], 0
    while i < len(body):
        cmd = body[i][2:]
        while cmd.endswith("\\") and i + 1 < len(body):
            i += 1
            cmd = cmd + "\n" + body[i]  # the shell continues the line
        i += 1
        want = []
        while i < len(body) and not body[i].startswith("$ "):
            want.append(body[i])
            i += 1
        cases.append((cmd, want))
    return cases


def trimmed(lines):
    lines = [ln.rstrip() for ln in lines]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return lines


def matches(want, got):
    """Whether got (lines) is what want shows, `...` lines standing for any run of lines."""
    memo = {}

    def m(i, j):
        if (i, j) not in memo:
            if i == len(want):
                r = j == len(got)
            elif want[i].strip() == "...":
                r = m(i + 1, j) or (j < len(got) and m(i, j + 1))
            else:
                r = j < len(got) and want[i] == got[j] and m(i + 1, j + 1)
            memo[(i, j)] = r
        return memo[(i, j)]

    sys.setrecursionlimit(max(10000, 4 * (len(want) + len(got))))
    return m(0, 0)


def first_difference(want, got):
    for k, (w, g) in enumerate(zip(want, got)):
        if w != g and w.strip() != "...":
            return f"line {k + 1}: document {w!r}, output {g!r}"
    return f"document {len(want)} lines, output {len(got)} lines"


ROFF = [(r"\-", "-"), (r"\(aq", "'"), (r"\(dq", '"'), (r"\(em", "\u2014"), (r"\&", ""),
        (r"\e", "\\")]


def unroff(line):
    for a, b in ROFF:
        line = line.replace(a, b)
    return line


def man_examples(text):
    """(examples, {file name: capture name}) of the manual page: the lines
    of the .nf blocks (all must be in EXAMPLES)."""
    out, files, section, nf, reason = [], {}, "", False, None
    for n, line in enumerate(text.split("\n"), 1):
        if line.startswith(".SH "):
            section = line[4:].strip().strip('"')
        m = re.match(r'^\.\\"\s*example files:\s*(.+)$', line)
        if m:
            files.update(dict(x.split("=", 1) for x in m.group(1).split()))
            continue
        m = re.match(r'^\.\\"\s*example:\s*not run:\s*(.+)$', line)
        if m:
            reason = m.group(1)
            continue
        if line.startswith(".nf"):
            nf = True
            if section != "EXAMPLES":
                out.append(Example(MAN, n, "other", [], reason))
                reason = None
            continue
        if line.startswith(".fi"):
            nf = False
            continue
        if nf and section == "EXAMPLES" and line.strip() and not line.startswith("."):
            out.append(Example(MAN, n, "man", [unroff(line)], reason))
            reason = None
    return out, files


def find_docs(top):
    """DOCS, then every other Markdown file of the tree."""
    others = []
    for root, dirs, names in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("build"))
        for n in sorted(names):
            rel = os.path.relpath(os.path.join(root, n), top)
            if n.endswith(".md") and rel not in DOCS:
                others.append(rel)
    return list(DOCS), others


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(ap)
    ap.add_argument("--rocescope", required=True)
    ap.add_argument("--source", required=True, help="the top of the source tree")
    a = ap.parse_args()
    top = os.path.abspath(a.source)
    docs, others = find_docs(top)
    examples = []
    for doc in docs + others:
        with open(os.path.join(top, doc), encoding="utf-8") as f:
            examples += markdown_examples(doc, f.read(), doc in docs)
    with open(os.path.join(top, MAN), encoding="utf-8") as f:
        man, man_files = man_examples(f.read())
    examples += man

    failures, ran, not_run = [], 0, []
    with TsharkEnv(a.tshark, a.plugin, a.wireshark_version) as env:
        problem = env.loaded_plugin()
        if problem:
            print(f"FAIL: {problem}")
            return 1
        # the scratch folders: the $ examples' (the plugin's home), the sh blocks' (a home
        # without the plugin), the manual page's (its example files)
        homes = {"output": env.home, "sh": os.path.join(env.home, "sh-home"),
                 "man": os.path.join(env.home, "man")}
        for kind, home in homes.items():
            os.makedirs(os.path.join(home, "bin"), exist_ok=True)
            os.makedirs(os.path.join(home, "captures"), exist_ok=True)
            for sub, src in (("build/analyzer", a.rocescope), ("build/dissector", a.plugin)):
                os.makedirs(os.path.join(home, sub), exist_ok=True)
                shutil.copy(src, os.path.join(home, sub, os.path.basename(src)))
            shutil.copy(a.rocescope, os.path.join(home, "bin", "rocescope"))
            shutil.copytree(os.path.join(top, "captures"), os.path.join(home, "captures"),
                            dirs_exist_ok=True,
                            ignore=lambda d, names: [n for n in names if n.endswith(
                                (".json", ".events", ".txt", ".args", ".md"))])
        for name, cap in man_files.items():
            shutil.copy(os.path.join(top, "captures", cap), os.path.join(homes["man"], name))
        for home in (homes["sh"], homes["man"]):
            TsharkEnv.own_by_user(home)
        for root, dirs, files in os.walk(env.home):  # readable by that user
            os.chmod(root, os.stat(root).st_mode | 0o755)
            for n in files:
                os.chmod(os.path.join(root, n), os.stat(os.path.join(root, n)).st_mode | 0o644)

        for ex in examples:
            if ex.reason:
                not_run.append(f"{ex.where()}: {ex.reason}")
                continue
            if ex.kind == "other":
                failures.append(f"{ex.where()}: a block that is neither an example (`$ ` lines, "
                                f"```sh) nor marked <!-- example: not run: WHY -->")
                continue
            home = homes["output" if ex.kind == "output" else ex.kind]
            env.extra_env["PATH"] = f"{home}/bin:/usr/local/bin:/usr/bin:/bin"
            env.extra_env["TZ"] = "UTC"
            if ex.kind == "output":
                for cmd, want in split_output_examples(ex.body):
                    ran += 1
                    rc, out, err = env.run_shell(cmd, home=home, timeout=TIMEOUT_S)
                    want, got = trimmed(want), trimmed(out.split("\n"))
                    if rc != 0:
                        failures.append(f"{ex.where()}: `{cmd}` exits {rc}: {err.strip()[:300]}")
                    elif not matches(want, got):
                        failures.append(f"{ex.where()}: `{cmd}`: the output differs from the "
                                        f"document ({first_difference(want, got)})\n--- output:\n"
                                        + "\n".join(got[:60]))
            else:
                ran += 1
                script = "\n".join(ex.body)
                rc, out, err = env.run_shell(script, home=home, timeout=TIMEOUT_S)
                if rc != 0 or (ex.kind == "man" and err.strip()):
                    failures.append(f"{ex.where()}: `{script}` exits {rc}: "
                                    f"{(err.strip() or out.strip())[:300]}")
    for n in not_run:
        print("not run:", n)
    for f in failures:
        print("FAIL:", f)
    print(f"{ran} examples run, {len(not_run)} marked not run, {len(failures)} failures "
          f"({len(docs)} documents and the manual page; $ blocks of {len(others)} more)")
    return 1 if failures or ran == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
