"""Metric names in PromQL expressions and Prometheus text files (shared by
the monitoring tests).

metric_names() is a small lexer, not a parser: it drops what cannot hold a
metric name (strings, label matchers, ranges, grouping label lists, Grafana
variables, numbers) and keeps the identifiers that are not called
(functions, aggregations) and not keywords. Each expression of the rules
and the dashboard is simple enough for it, and every expression must yield
at least one name, so a lexer that lost them would fail the tests.
"""
import re
import subprocess

KEYWORDS = {"and", "or", "unless", "by", "without", "on", "ignoring", "group_left",
            "group_right", "offset", "bool", "inf", "nan"}
GROUPING = re.compile(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^()]*\)")
LABEL_VALUES = re.compile(r"^\s*label_values\((.*),\s*[a-zA-Z_][a-zA-Z0-9_]*\s*\)\s*$", re.S)


def metric_names(expr):
    """The metric names an expression (or a Grafana label_values() query) selects."""
    m = LABEL_VALUES.match(expr)
    if m:
        expr = m.group(1)
    s = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)   # strings
    s = re.sub(r"\{[^{}]*\}", " ", s)               # label matchers
    s = re.sub(r"\[[^\[\]]*\]", " ", s)             # ranges and subqueries
    s = GROUPING.sub(" ", s)                        # grouping label lists
    s = re.sub(r"\$\{?\w+\}?", " ", s)              # Grafana variables
    names = set()
    for tok in re.finditer(r"[a-zA-Z_:][a-zA-Z0-9_:]*(\s*\()?", s):
        word = tok.group(0).rstrip("( \t\n")
        if tok.group(1) or word.lower() in KEYWORDS:
            continue
        start = tok.start()
        if start > 0 and (s[start - 1].isdigit() or s[start - 1] == "."):
            continue  # a number's exponent or unit (1e3, 5m)
        names.add(word)
    return names


def families(text):
    """The metric families a Prometheus text file declares (# TYPE lines)."""
    return {line.split()[2] for line in text.splitlines() if line.startswith("# TYPE ")}


def monitor_file(tool, path, seconds="1500ms"):
    """Have the monitor write its Prometheus file: rocescope -i lo in a network
    namespace of its own (unshare -n: only its loopback, no traffic).
    Returns the text, or raises RuntimeError (needs root)."""
    cmd = ["unshare", "--net", "sh", "-c",
           'ip link set lo up && exec "$0" -i lo --quiet --duration "$1" --prometheus-file "$2"',
           tool, seconds, path]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        raise RuntimeError("rocescope -i lo in a namespace: exit %d: %s" % (p.returncode,
                                                                          p.stderr.strip()))
    with open(path, encoding="utf-8") as f:
        return f.read()
