#!/usr/bin/env python3
"""The alerting rules and the Grafana dashboard (analyzer/deploy/monitoring),
without a Prometheus server (e2e.py runs them against one):

  --part rules      `promtool check rules` clean; `promtool test rules` passes;
                    every alert has a test in which it fires and one in which
                    it does not; the rules use only metric names the monitor
                    writes (a file written by rocescope -i lo in a namespace
                    of its own; it declares rocescope_diagnosis with no
                    sample while it holds no diagnosis)
  --part dashboard  importable JSON (unique panel ids, a datasource variable
                    for every query, the variables instance and interface);
                    every query, variable queries included, uses only metric
                    names the monitor writes

Needs promtool (Debian package prometheus) and root for the monitor's file;
otherwise it skips (exit 77).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import yaml

import promql

SKIP = 77
class Fail(Exception):
    pass


def written_names(tool):
    tmp = tempfile.mkdtemp(prefix="rocescope-monitoring-")
    os.chmod(tmp, 0o1777)  # started as root, the monitor writes as rocescope or nobody
    try:
        names = promql.families(promql.monitor_file(tool, os.path.join(tmp, "m.prom")))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if len(names) < 40:
        raise Fail("the monitor's file declares only %d families" % len(names))
    return names


def check_names(where, expr, names):
    used = promql.metric_names(expr)
    if not used:
        raise Fail("%s: no metric name found in %r" % (where, expr))
    unknown = used - names
    if unknown:
        raise Fail("%s: %s not written by the monitor" % (where, sorted(unknown)))


def promtool(*args, cwd):
    p = subprocess.run(["promtool", *args], capture_output=True, text=True, timeout=120, cwd=cwd)
    return p.returncode, p.stdout + p.stderr


def part_rules(tool, folder):
    rc, out = promtool("check", "rules", "rocescope.rules.yml", cwd=folder)
    if rc != 0 or "SUCCESS" not in out or "WARNING" in out.upper():
        raise Fail("promtool check rules: %s" % out)
    rc, out = promtool("test", "rules", "rocescope.rules.test.yml", cwd=folder)
    if rc != 0 or "SUCCESS" not in out:
        raise Fail("promtool test rules: %s" % out)
    with open(os.path.join(folder, "rocescope.rules.yml")) as f:
        rules = [r for g in yaml.safe_load(f)["groups"] for r in g["rules"]]
    with open(os.path.join(folder, "rocescope.rules.test.yml")) as f:
        tests = yaml.safe_load(f)["tests"]
    fires, quiet = set(), set()
    for t in tests:
        for a in t.get("alert_rule_test", []):
            (fires if a.get("exp_alerts") else quiet).add(a["alertname"])
    names = written_names(tool)
    for r in rules:
        if "alert" not in r:
            raise Fail("a recording rule: %r" % r)
        if r["alert"] not in fires or r["alert"] not in quiet:
            raise Fail("%s: no test where it fires and one where it does not" % r["alert"])
        check_names(r["alert"], r["expr"], names)
        if "severity" not in r.get("labels", {}) and r["alert"] != "RocescopeDiagnosis":
            raise Fail("%s: no severity" % r["alert"])
    print("     %d rules, each tested firing and quiet" % len(rules))


def part_dashboard(tool, folder):
    with open(os.path.join(folder, "rocescope-dashboard.json")) as f:
        dash = json.load(f)
    names = written_names(tool)
    variables = {v["name"]: v for v in dash["templating"]["list"]}
    if variables.get("datasource", {}).get("type") != "datasource" or \
            not {"instance", "interface"} <= set(variables):
        raise Fail("variables: %s" % sorted(variables))
    ids, queries = set(), 0
    for p in dash["panels"]:
        if p["id"] in ids:
            raise Fail("panel id %d twice" % p["id"])
        ids.add(p["id"])
        for t in p.get("targets", []):
            if t.get("datasource", {}).get("uid") != "${datasource}":
                raise Fail("%s: a query not on the datasource variable" % p["title"])
            for var in ("$instance", "$interface"):
                if var not in t["expr"]:
                    raise Fail("%s: %r ignores %s" % (p["title"], t["expr"], var))
            check_names(p["title"], t["expr"], names)
            queries += 1
    for v in dash["templating"]["list"]:
        if v["type"] == "query":
            check_names("variable " + v["name"], v["query"]["query"], names)
    print("     %d panels, %d queries" % (len(ids), queries))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rocescope", required=True)
    ap.add_argument("--monitoring", required=True, help="analyzer/deploy/monitoring")
    ap.add_argument("--part", choices=("rules", "dashboard"), required=True)
    a = ap.parse_args()
    if shutil.which("promtool") is None:
        print("skip: promtool is not installed (tools/setup.sh installs prometheus)")
        return SKIP
    if os.geteuid() != 0:
        print("skip: the monitor's file needs root (a network namespace, a capture)")
        return SKIP
    try:
        (part_rules if a.part == "rules" else part_dashboard)(a.rocescope, a.monitoring)
    except (Fail, RuntimeError, OSError, KeyError, ValueError) as e:
        print("FAIL %s" % e)
        return 1
    print("ok   %s" % a.part)
    return 0


if __name__ == "__main__":
    sys.exit(main())
