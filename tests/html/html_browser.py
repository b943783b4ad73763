#!/usr/bin/env python3
"""The HTML report in a real browser (headless Chromium, driven over the
DevTools protocol by cdp.py; standard library only).

For the page of every scenario capture of captures/ (and its header-only cut
at snaplen 64 for a few), of a capture without RoCE, of one without frames,
of `-j 2`, of `rocescope merge`, of `rocescope localize`, and of a
`rocegen bulk` capture (--bulk-packets):

  - no console error or warning, no exception, and no network request: the
    only request is the page's own file;
  - the DOM holds one element per frame with verdicts, with data-frame and
    data-verdicts exactly as `rocescope --events` gives them, none twice,
    each with the frame's time and PSN (data-time, data-psn: what its
    tooltip shows) as --events has them, each reachable by Tab;
  - a screenshot of each section is not blank (pixel variance and ink of
    the decoded PNG); for the bulk capture, the page's size and its first
    contentful paint.

  - the Diagnosis section lists what `rocescope --json` diagnoses, in its
    order (severity, kind, count, sentence, evidence frames); an evidence
    frame links to its mark exactly when a graph plots it, and the subject
    of a flow links to that flow's graph; a clean capture says nothing was
    found;
  - the first screen (1400x900) holds the verdict, the diagnoses in view
    (and "N more findings") and the worst flow's sequence graph; one
    ranking: the flows the diagnoses name, in their order, are the flow
    table's first ranks, the graphs follow the ranks, the worst flow's
    graph is rank 1, and the text summary's flows (#1, #2, ...) are the
    table's ranks (on captures where a diagnosis names first a flow with
    less trouble than another);
  - the bulk capture (2 million packets over 2,000 QPs by default): every
    drawn flow's series covers the flow (its first and last buckets within
    one bucket of the flow's first and last frame in the JSON report);
  - the capture's timeline, on every scenario capture's page: its frames, CE marks, CNPs and
    XOFF as --json counts them, 32 to 128 buckets spanning the capture, the
    time axis in the unit its span fills;

And on one page: zoom and pan on the time axis (the buttons, by the
keyboard, Ctrl and the wheel; reset restores the graph), the tooltip shows
the frame under the pointer (its number,
verdicts, time and PSN as --events has them), a mark in focus shows its
tooltip and Enter keeps it, a click on
a column heading sorts the table, a 400-pixel window needs no horizontal
scrolling, printing hides the navigation and makes a PDF, and the shapes of
the marks differ without their colours.

  html_browser.py --rocescope R --rocegen G --editcap E --captures DIR
                  [--work DIR] [--bulk-packets N] [--max-render-ms MS] [--bulk-only]

--bulk-packets 0 leaves the bulk capture out (ctest html_browser); --bulk-only
checks it alone (ctest html_browser_bulk, the release tier).
Exit 77 (skipped) when no Chromium is installed.
"""
import argparse
from decimal import Decimal
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402
# a flow's trouble as report_rank.c adds it up, read from the JSON report
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from summary_check import _trouble  # noqa: E402

SECTIONS = ["diagnoses", "timeline", "summary", "flows", "graphs", "cnp-latency", "pfc", "episodes", "loose", "limits"]
LOCALIZE_SECTIONS = ["diagnoses", "timeline", "summary", "points", "segments", "flows", "losses", "ce-marks"]
# captures whose every section is photographed (the others: their graphs)
FULL_SHOTS = {"loss_receiver", "ecn_cnp", "pfc", "malformed", "timeout", "read_loss"}
MIN_VARIANCE = 20.0
MIN_INK = 0.003
PAGE_MAX_BYTES = 8 * 1024 * 1024

failures = []


def fail(what):
    failures.append(what)
    print(f"FAIL {what}", flush=True)


def run(cmd, ok=(0,)):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode not in ok:
        sys.exit(f"html_browser: {' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}")
    return p.stdout


def capture_args(captures, name):
    a = os.path.join(captures, "expected", name + ".args")
    return open(a, encoding="utf-8").read().split() if os.path.exists(a) else []


class Events(dict):
    """frame -> verdicts (space-separated); .detail: frame -> [time, PSN] as
    --events writes them (the PSN as a string, None without one)."""
    detail = None


def events_of(rocescope, args, files):
    """The frames with verdicts of --events (Events)."""
    out = Events()
    out.detail = {}
    for line in run([rocescope, "--events", *args, *files]).splitlines():
        o = json.loads(line)
        out[o["frame"]] = " ".join(o["verdicts"])
        out.detail[o["frame"]] = [o["time"], str(o["psn"]) if "psn" in o else None]
    return out


DOM_FRAMES = """Array.from(document.querySelectorAll('[data-frame]')).map(e => {
  const r = e.getBoundingClientRect();
  return [e.getAttribute('data-frame'), e.getAttribute('data-verdicts'), r.width > 0 && r.height > 0,
          e.getAttribute('data-time'), e.getAttribute('data-psn'), e.tabIndex,
          !!e.ownerSVGElement];
})"""

SECTION_RECT = """(() => { const s = document.getElementById(%s); if (!s) return null;
  const r = s.getBoundingClientRect();
  return {x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width,
          height: Math.min(r.height, 4000)}; })()"""


def check_clean(b, label, page_url):
    for p in b.problems():
        fail(f"{label}: {p}")
    for url in b.requests():
        if url != page_url and not url.startswith("data:"):
            fail(f"{label}: network request {url}")


def check_frames(b, label, want):
    got, seen, bad = {}, set(), []
    for frame, verdicts, visible, t, psn, tab, svg in b.evaluate(DOM_FRAMES):
        f = int(frame)
        if f in seen:
            fail(f"{label}: frame {f} plotted twice")
        seen.add(f)
        got[f] = verdicts
        if not visible:
            fail(f"{label}: frame {f} has no area on the page")
        if not svg:  # a row of the table of frames outside any flow
            continue
        # the tooltip's time and PSN are the frame's own, as --events has them
        d = want.detail.get(f) if getattr(want, "detail", None) else None
        if d is not None and (t != d[0] or (d[1] is not None and psn != d[1])):
            bad.append((f, t, psn, d))
        if tab != 0:
            fail(f"{label}: frame {f} cannot be reached with the keyboard (tabindex {tab})")
    if bad:
        fail(f"{label}: {len(bad)} marks' time or PSN differ from --events: {bad[:3]}")
    if got != want:
        diff = sorted(set(got) ^ set(want)) or [f for f in want if got.get(f) != want[f]]
        fail(f"{label}: DOM frames differ from --events at frames {diff[:10]} "
             f"(DOM {len(got)}, events {len(want)}): "
             f"{[(f, got.get(f), want.get(f)) for f in diff[:3]]}")
    return len(got)


EVIDENCE = ":scope > div > .evidence, :scope > details > summary > .evidence"
DOM_DIAGNOSES = """Array.from(document.querySelectorAll('#diagnoses ol > li[data-kind]')).map(li => ({
  kind: li.getAttribute('data-kind'), severity: li.getAttribute('data-severity'),
  cause: li.getAttribute('data-cause'),
  text: li.querySelector(':scope > .ftext').textContent,
  frames: Array.from(li.querySelectorAll('%s')).map(e => e.textContent)[0] || '',
  links: Array.from(li.querySelectorAll('%s')).flatMap(e => Array.from(e.querySelectorAll('a')))
             .map(a => a.getAttribute('href')),
  subjects: Array.from(li.querySelectorAll(':scope > details > ul.subjects > li')).map(s => ({
    more: s.classList.contains('muted'), text: s.textContent,
    frames: Array.from(s.querySelectorAll(':scope > .evidence')).map(e => e.textContent)[0] || '',
    links: Array.from(s.querySelectorAll(':scope > .evidence a')).map(a => a.getAttribute('href')),
    subject: Array.from(s.querySelectorAll('.subject a')).map(a => a.getAttribute('href'))}))}))""" % (
    EVIDENCE, EVIDENCE)
HTML_FINDINGS = 12  # findings the page lists (analyzer/html/html_page.c)
HTML_OPEN = 4       # ... in view, the others behind "N more findings"
HTML_SUBJECTS = 5   # subjects per finding, then "and N more"
FIRST_SCREEN = (1400, 900)


def check_diagnoses(b, label, want, plotted):
    """The Diagnosis section against --json's diagnoses; plotted: the
    frames with a mark in the graphs."""
    got = b.evaluate(DOM_DIAGNOSES)
    section = b.evaluate("(document.getElementById('diagnoses') || {}).textContent || null")
    if section is None:
        fail(f"{label}: no Diagnosis section")
        return 0
    if not want and "Nothing found" not in section:
        fail(f"{label}: no diagnosis, and the section says {section[:200]!r}")
    want_shown = want[:HTML_FINDINGS]
    if [(g["kind"], g["severity"], g["cause"]) for g in got] != \
            [(d["kind"], d["severity"], d["cause"]) for d in want_shown]:
        fail(f"{label}: diagnoses {[(g['kind'], g['severity'], g['cause']) for g in got]}, "
             f"--json says {[(d['kind'], d['severity'], d['cause']) for d in want_shown]}")
        return 0
    if len(want) > HTML_FINDINGS and f"and {len(want) - HTML_FINDINGS} more finding" not in section:
        fail(f"{label}: {len(want)} findings, the page does not say how many it left out")
    linked = 0

    def check_evidence(what, g, frames):
        nums = [int(x) for x in re.findall(r"[0-9]+", g["frames"])]
        if nums != frames:
            fail(f"{what}: evidence frames {nums}, --json says {frames}")
        want_links = ["#frame-%d" % f for f in frames if f in plotted]
        if g["links"] != want_links:
            fail(f"{what}: evidence links {g['links']}, frames plotted {want_links}")
        for href in g["links"]:
            mark = b.evaluate("(() => { const e = document.getElementById(%s); return e && "
                              "e.ownerSVGElement ? e.getAttribute('data-frame') : null; })()"
                              % json.dumps(href[1:]))
            if mark != href[len("#frame-"):]:
                fail(f"{what}: link {href} leads to {mark}")
        return len(g["links"])

    for g, d in zip(got, want_shown):
        what = f"{label}: {d['kind']}"
        if d["summary"] not in g["text"] or f"count {d['count']}" not in g["text"]:
            fail(f"{what}: {g['text']!r} lacks its sentence or count {d['count']}")
        linked += check_evidence(what, g, d["frames"])
        shown = [s for s in g["subjects"] if not s["more"]]
        more = [s for s in g["subjects"] if s["more"]]
        if len(shown) != min(len(d["subjects"]), HTML_SUBJECTS):
            fail(f"{what}: {len(shown)} subjects shown, --json has {len(d['subjects'])}")
        if len(d["subjects"]) > HTML_SUBJECTS and not (
                more and f"and {len(d['subjects']) - HTML_SUBJECTS} more" in more[0]["text"]):
            fail(f"{what}: {len(d['subjects'])} subjects, the page does not say how many it left out")
        for gs, ds in zip(shown, d["subjects"]):
            if ds["summary"] not in gs["text"]:
                fail(f"{what}: subject {gs['text']!r} lacks {ds['summary']!r}")
            linked += check_evidence(f"{what} subject", gs, ds["frames"])
            for href in gs["subject"]:
                if b.evaluate("!!document.querySelector(%s)" % json.dumps(
                        "h3" + href if href.startswith("#flow-") else href)) is not True:
                    fail(f"{what}: subject link {href} leads nowhere")
    return linked


DOM_FIRST = """(() => { const box = s => { const e = typeof s === 'string' ? document.querySelector(s) : s;
    if (!e) return null; const r = e.getBoundingClientRect();
    return [r.top + scrollY, r.bottom + scrollY, r.width]; };
  return {verdict: box('#verdict'), text: (document.getElementById('verdict') || {}).textContent,
    findings: Array.from(document.querySelectorAll('#diagnoses > ol > li[data-kind]')).map(box),
    more: box('#diagnoses details.findings > summary'),
    worst: box('#worst svg.chart'), worstFlow: (document.querySelector('#worst article.flow') || {
      getAttribute: () => null}).getAttribute('data-flow'),
    graphs: Array.from(document.querySelectorAll('article.flow')).map(a => a.getAttribute('data-flow')),
    ranked: Array.from(document.querySelectorAll('#flows-table tbody tr')).filter(
      r => r.cells[0].getAttribute('data-v') !== '-1').map(
      r => [Number(r.cells[0].textContent), r.cells[r.cells.length - 1].textContent])}; })()"""


def check_first_screen(b, label, html, report):
    """At 1400x900, before any scrolling: the verdict, the diagnoses (the first
    HTML_OPEN findings, then "N more findings") and the worst flow's sequence
    graph. One ranking: the flows the diagnoses name, in their order, are
    the first ranks of the flow table, the graphs follow the ranks, and the
    worst flow's graph is rank 1."""
    w, h = FIRST_SCREEN
    b.page("Emulation.setDeviceMetricsOverride",
           {"width": w, "height": h, "deviceScaleFactor": 1, "mobile": False})
    b.load("file://" + os.path.abspath(html))
    got = b.evaluate(DOM_FIRST)
    b.page("Emulation.setDeviceMetricsOverride",
           {"width": 1200, "height": 900, "deviceScaleFactor": 1, "mobile": False})
    diags = report["diagnoses"]
    if got["verdict"] is None or got["verdict"][1] > h:
        fail(f"{label}: the verdict is not on the first screen: {got['verdict']}")
    elif not diags and "Nothing to act on" not in got["text"]:
        fail(f"{label}: no diagnosis, and the verdict says {got['text']!r}")
    elif diags and f"{len(diags[0]['subjects'])} " not in got["text"]:
        fail(f"{label}: the verdict {got['text']!r} does not count the worst finding's subjects")
    if len(got["findings"]) != min(len(diags), HTML_OPEN):
        fail(f"{label}: {len(got['findings'])} findings in view, --json has {len(diags)}")
    low = [f for f in got["findings"] if f[1] > h]
    if low:
        fail(f"{label}: findings below the first screen: {low}")
    if len(diags) > HTML_OPEN and (got["more"] is None or got["more"][1] > h):
        fail(f"{label}: {len(diags)} findings and no 'more findings' on the first screen")
    if got["graphs"]:
        if got["worst"] is None or got["worst"][1] > h:
            fail(f"{label}: the worst flow's graph is not on the first screen: {got['worst']}")
    # one ranking
    ids = {}
    for f in report["flows"]:
        ids.setdefault((f["src"], f["dst"], f["dest_qp"]), set()).add(str(f["id"]))
    named = []
    for d in diags:
        for sj in d["subjects"]:
            k = sj["subject"]
            c = ids.get((k.get("src"), k.get("dst"), k.get("dest_qp")))
            if "dest_qp" in k and c and not any(n & c for n in named):
                named.append(c)
    ranked = got["ranked"]
    if [r for r, _ in ranked] != list(range(1, len(ranked) + 1)):
        fail(f"{label}: the flow table's ranks are not 1..{len(ranked)} in order")
    bad = [i for i, c in enumerate(named) if i >= len(ranked) or ranked[i][1] not in c]
    if bad:
        i = bad[0]
        fail(f"{label}: rank {i + 1} is flow {ranked[i][1] if i < len(ranked) else None}, the "
             f"diagnoses' flow #{i + 1} is one of {sorted(named[i])}")
    if got["graphs"] != [fid for _, fid in ranked[:len(got["graphs"])]]:
        fail(f"{label}: graphs in the order {got['graphs'][:10]}, ranks {ranked[:10]}")
    if got["graphs"] and got["worstFlow"] != got["graphs"][0]:
        fail(f"{label}: the worst flow's graph is flow {got['worstFlow']}, rank 1 {got['graphs'][0]}")
    return len(named)


def flow_name(f):
    return f"{f['src']} -> {f['dst']} QP 0x{f['dest_qp']:06x}"


def check_same_ranking(b, label, rs, args, cap, report):
    """One ranking across front ends: the flow table's ranks (the page is
    loaded) are the text summary's #1, #2, ... (rocescope CAP). Returns 1 when
    the summary's #1 is not the flow with the most trouble (a diagnosis named
    another first), else 0."""
    out = run([rs, "--top", "100000", *args, cap])
    cli = re.findall(r"^  #\d+ (\S+ -> \S+ QP 0x[0-9a-f]+)  ", out, re.M)
    by_id = {str(f["id"]): f for f in report["flows"]}
    ranked = [flow_name(by_id[fid]) for _, fid in b.evaluate(DOM_FIRST)["ranked"]]
    if ranked[:len(cli)] != cli:
        fail(f"{label}: the flow table ranks {ranked[:8]}, the summary {cli[:8]}")
    if not cli:
        return 0
    worst = min(report["flows"], key=lambda f: (-_trouble(f), -f["ce_marked"], f["id"]))
    return int(cli[0] != flow_name(worst))


DOM_TIMELINE = """(() => { const f = document.getElementById('timeline-chart');
  if (!f) return null; const svg = f.querySelector('svg.chart');
  const strips = {}; f.querySelectorAll('g.strip').forEach(g => strips[g.getAttribute('data-strip')] =
    Number(g.getAttribute('data-total')));
  const rate = f.querySelector('path.rate');
  return {bucket: Number(f.dataset.bucket), buckets: Number(f.dataset.buckets),
    first: Number(f.dataset.seriesFirst), last: Number(f.dataset.seriesLast),
    packets: Number(f.dataset.packets), strips, unit: svg.getAttribute('data-unit'),
    t1: Number(svg.getAttribute('data-t1')), steps: rate ? (rate.getAttribute('d').match(/H/g) || []).length : 0,
    ylabel: (svg.querySelector('g.yaxis > text:last-child') || {}).textContent}; })()"""
UNIT_NS = {"ns": 1, "\u00b5s": 1e3, "ms": 1e6, "s": 1e9}


def check_timeline(b, label, report):
    """The capture's timeline (the page is loaded), whatever was found: one
    series over the whole capture, its buckets scaled to its duration (32 to
    128 drawn, first and last frame within one bucket), the time unit by
    magnitude (the span is 2 to 2,000 of it), the frames, CE marks, CNPs and
    XOFF counted as the JSON report counts them."""
    got = b.evaluate(DOM_TIMELINE)
    cap = report["capture"]
    if got is None:
        fail(f"{label}: no capture timeline")
        return 0
    dur = round(Decimal(str(cap["duration_s"])) * 10**9)
    want = {"ce": report["ecn"]["ce_marked"], "cnp": report["ecn"]["cnps"],
            "xoff": sum(p["xoff"] for p in report["pfc"]["priorities"]) + report["pfc"]["pause"]["xoff"]}
    if got["packets"] != cap["packets"] or got["strips"] != want:
        fail(f"{label}: timeline counts {got['packets']} frames, {got['strips']}; --json "
             f"{cap['packets']} frames, {want}")
    if got["first"] != 0 or abs(got["last"] - dur) > got["bucket"]:
        fail(f"{label}: timeline spans {got['first']}..{got['last']} ns, the capture 0..{dur}")
    if not (dur < 1000 or 32 <= got["buckets"] <= 128) or got["steps"] != got["buckets"]:
        fail(f"{label}: timeline of {got['buckets']} buckets of {got['bucket']} ns "
             f"({got['steps']} drawn) over {dur} ns")
    span = got["t1"] * UNIT_NS.get(got["unit"], 0)
    if not (got["unit"] == "ns" or 2 <= got["t1"] < 2000) or abs(span - max(dur, 1000)) > 2 * got["bucket"] + 1:
        fail(f"{label}: timeline axis {got['t1']} {got['unit']} for {dur} ns")
    if got["ylabel"] not in ("Gb/s", "Mb/s"):
        fail(f"{label}: timeline rate in {got['ylabel']!r}")
    return 1


DOM_ZOOM = """(() => { const art = document.querySelector('#worst article.flow');
  const svgs = Array.from(art.querySelectorAll('svg.chart[data-t0]'));
  const s = svgs[0], m = s.querySelector('use[data-frame]');
  return {views: svgs.map(v => [v.getAttribute('data-view-t0'), v.getAttribute('data-view-t1')]),
    t: [Number(s.getAttribute('data-t0')), Number(s.getAttribute('data-t1'))],
    ticks: Array.from(s.querySelectorAll('g.xaxis > text')).slice(0, -1).map(x => Number(x.textContent)),
    axis: s.querySelector('g.xaxis').innerHTML, mark: m ? m.getAttribute('x') : null,
    focusable: Array.from(s.querySelectorAll('use[data-frame]')).filter(u => u.tabIndex >= 0).length,
    focus: document.activeElement ? document.activeElement.getAttribute('aria-label') : null}; })()"""


def check_zoom(b, html):
    """Zoom and pan on the time axis: the + button (reached by the keyboard),
    Ctrl and the wheel, and the earlier/later buttons change the range the
    flow's sequence and rate graphs show (data-view-t0/t1, the x axis' ticks
    within it, the marks moved); reset restores the page as it was written."""
    b.page("Emulation.setDeviceMetricsOverride",
           {"width": 1400, "height": 900, "deviceScaleFactor": 1, "mobile": False})
    b.load("file://" + os.path.abspath(html))
    before = b.evaluate(DOM_ZOOM)
    if any(v != [None, None] for v in before["views"]):
        fail(f"zoom: a range shown before any zoom: {before['views']}")
    # the keyboard: Tab from the flow's heading reaches "zoom in", Enter zooms
    b.evaluate("document.querySelector('#worst .zoombar button').focus()")
    b.page("Input.dispatchKeyEvent", {"type": "keyDown", "key": "Enter", "code": "Enter",
                                      "windowsVirtualKeyCode": 13, "text": "\r"})
    b.page("Input.dispatchKeyEvent", {"type": "keyUp", "key": "Enter", "code": "Enter",
                                      "windowsVirtualKeyCode": 13})
    z = b.evaluate(DOM_ZOOM)
    t0, t1 = before["t"]
    v = [tuple(float(x) for x in w) if w[0] is not None else None for w in z["views"]]
    if z["focus"] != "zoom in on the time axis" or v[0] is None or len(set(v)) != 1:
        fail(f"zoom: Enter on the focused button ({z['focus']}): ranges {z['views']}")
    else:
        a, c = v[0]
        if not (t0 <= a < c <= t1 and abs((c - a) - (t1 - t0) / 2) < 1e-6 * (t1 - t0)):
            fail(f"zoom: shows {a}..{c} of {t0}..{t1}, want half of it")
        if not z["ticks"] or min(z["ticks"]) < a - 1e-9 or max(z["ticks"]) > c + 1e-9 or \
                z["ticks"] == before["ticks"]:
            fail(f"zoom: x axis ticks {z['ticks']} for {a}..{c} (before {before['ticks']})")
        if z["mark"] == before["mark"]:
            fail("zoom: the marks did not move")
    # later, then Ctrl and the wheel on the plot zoom in around the pointer
    b.evaluate("document.querySelectorAll('#worst .zoombar button')[3].click()")
    p = b.evaluate(DOM_ZOOM)["views"][0]
    if p[0] is None or not float(p[0]) > v[0][0]:
        fail(f"zoom: 'later' shows {p}, was {v[0]}")
    pos = b.evaluate("""(() => { const s = document.querySelector('#worst svg.chart[data-t0]');
        s.scrollIntoView({block: 'center'}); const r = s.getBoundingClientRect();
        return [r.left + r.width / 2, r.top + r.height / 2]; })()""")
    b.page("Input.dispatchMouseEvent", {"type": "mouseWheel", "x": pos[0], "y": pos[1],
                                        "deltaX": 0, "deltaY": -100, "modifiers": 2})
    w = b.evaluate(DOM_ZOOM)["views"][0]
    if w[0] is None or not float(w[1]) - float(w[0]) < float(p[1]) - float(p[0]) - 1e-9:
        fail(f"zoom: Ctrl and the wheel show {w}, was {p}")
    # reset: the whole span, the axis as written, every mark in the tab order
    b.evaluate("document.querySelectorAll('#worst .zoombar button')[4].click()")
    r = b.evaluate(DOM_ZOOM)
    if any(x != [None, None] for x in r["views"]) or r["axis"] != before["axis"] or \
            r["mark"] != before["mark"] or r["focusable"] != before["focusable"]:
        fail(f"zoom: reset leaves {r['views']}, axis as written {r['axis'] == before['axis']}, "
             f"mark at {r['mark']} (was {before['mark']}), {r['focusable']} marks focusable "
             f"(was {before['focusable']})")
    if b.problems():
        fail(f"zoom: console {b.problems()}")
    b.page("Emulation.setDeviceMetricsOverride",
           {"width": 1200, "height": 900, "deviceScaleFactor": 1, "mobile": False})


def check_coverage(b, label, report):
    """Every drawn flow's series covers the flow: its first and last bucket
    with packets within one bucket of the flow's first and last frame (the
    JSON's times), and no graph says it is partial."""
    flows = {str(f["id"]): f for f in report["flows"]}
    arts = b.evaluate("Array.from(document.querySelectorAll('article.flow')).map(a => ["
                      "a.getAttribute('data-flow'), a.getAttribute('data-series-first'), "
                      "a.getAttribute('data-series-last'), a.getAttribute('data-bucket'), "
                      "!!a.querySelector('[data-partial]')])")
    for fid, first, last, width, partial in arts:
        f = flows[fid]
        if first is None or partial:
            fail(f"{label}: flow {fid}'s graph has no whole series ({first}, partial {partial})")
            continue
        # the flows' times: seconds since the capture's first frame
        ff, fl = f["first_time"] * 1e9, f["last_time"] * 1e9
        w = int(width) + 1000  # and the JSON's rounding
        if abs(int(first) - ff) > w or abs(int(last) - fl) > w:
            fail(f"{label}: flow {fid}: series {first}..{last} ns, flow {ff:.0f}..{fl:.0f} ns, "
                 f"bucket {width} ns")
    return len(arts)


def check_sections(b, label, sections, shots_dir, required=()):
    for sec in sections:
        rect = b.evaluate(SECTION_RECT % json.dumps(sec))
        if rect is None:
            if sec in required:
                fail(f"{label}: no section #{sec}")
            continue
        if rect["width"] < 10 or rect["height"] < 10:
            fail(f"{label}: section #{sec} is {rect['width']}x{rect['height']}")
            continue
        png = b.page("Page.captureScreenshot", {
            "format": "png", "captureBeyondViewport": True,
            "clip": {**rect, "scale": 0.5}})["data"]
        st = b.image_stats(png)
        if shots_dir:
            with open(os.path.join(shots_dir, f"{label}-{sec}.png"), "wb") as f:
                f.write(cdp.base64.b64decode(png))
        if st["variance"] < MIN_VARIANCE or st["ink"] < MIN_INK:
            fail(f"{label}: section #{sec} looks blank ({st})")


def canary_check(b, html, work):
    """The checks of check_clean see what they look for: a copy of a page
    with an error on the console, an exception and a request to the network
    added at its end, loaded as page_check loads a page."""
    with open(html, encoding="utf-8") as f:
        page = f.read()
    canary = os.path.join(work, "canary.html")
    with open(canary, "w", encoding="utf-8") as f:
        f.write(page.replace("</body>", '<img src="http://127.0.0.1:9/canary.png">'
                             '<script>console.error("canary-console");'
                             'throw new Error("canary-exception")</script></body>', 1))
    url = "file://" + os.path.abspath(canary)
    b.load(url)
    b.settle()
    seen = " ".join(b.problems())
    for what in ("canary-console", "canary-exception"):
        if what not in seen:
            fail(f"the page checks did not see {what} (problems: {seen[:300]!r})")
    if not any("canary.png" in u for u in b.requests()):
        fail(f"the page checks did not see the request to the network ({b.requests()[:5]})")


def page_check(b, rocescope, html, label, want, shots_dir, sections, required=("summary",)):
    url = "file://" + os.path.abspath(html)
    b.load(url)
    b.settle()
    check_clean(b, label, url)
    n = check_frames(b, label, want) if want is not None else 0
    check_sections(b, label, sections, shots_dir, required)
    return n


def interaction_checks(b, html, want):
    """Tooltip, sorting, narrow window, print, shapes without colour."""
    url = "file://" + os.path.abspath(html)
    b.load(url)
    # the tooltip shows the frame under the pointer
    frame = sorted(want)[0]
    pos = b.evaluate("""(() => { const e = document.querySelector('svg [data-frame="%d"]');
        e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();
        return [r.left + r.width / 2, r.top + r.height / 2]; })()""" % frame)
    b.drain(0.3)  # the scroll event (which hides a tooltip not kept) comes first
    b.page("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": pos[0], "y": pos[1]})
    tip = b.evaluate("[document.getElementById('tip').className, "
                     "document.getElementById('tip').textContent]")
    t, psn = want.detail[frame]
    if tip[0] != "on" or f"frame {frame}" not in tip[1] or want[frame].split()[0] not in tip[1] \
            or f"PSN {psn}" not in tip[1] or t not in tip[1]:
        fail(f"tooltip over frame {frame}: {tip}, --events: time {t}, PSN {psn}")
    b.page("Input.dispatchMouseEvent", {"type": "mousePressed", "x": pos[0], "y": pos[1],
                                        "button": "left", "clickCount": 1})
    b.page("Input.dispatchMouseEvent", {"type": "mouseReleased", "x": pos[0], "y": pos[1],
                                        "button": "left", "clickCount": 1})
    b.page("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": 2, "y": 2})
    if b.evaluate("document.getElementById('tip').className") != "on":
        fail("a click does not keep the tooltip")
    # the keyboard: a mark in focus shows its tooltip, Enter keeps it
    b.page("Input.dispatchMouseEvent", {"type": "mousePressed", "x": 2, "y": 2,
                                        "button": "left", "clickCount": 1})
    b.page("Input.dispatchMouseEvent", {"type": "mouseReleased", "x": 2, "y": 2,
                                        "button": "left", "clickCount": 1})
    last = sorted(want)[-1]
    b.evaluate("document.querySelector('svg [data-frame=\"%d\"]').focus()" % last)
    tip = b.evaluate("[document.getElementById('tip').className, "
                     "document.getElementById('tip').textContent]")
    if tip[0] != "on" or f"frame {last}" not in tip[1]:
        fail(f"focus on frame {last}: tooltip {tip}")
    b.page("Input.dispatchKeyEvent", {"type": "keyDown", "key": "Enter", "code": "Enter",
                                      "windowsVirtualKeyCode": 13})
    if not b.evaluate("document.querySelector('svg [data-frame=\"%d\"]').classList.contains("
                      "'pinned')" % last):
        fail(f"Enter on frame {last} does not keep its tooltip")
    # sorting: packets, ascending then descending
    order = b.evaluate("""(() => { const t = document.getElementById('flows-table');
        const th = Array.from(t.tHead.rows[0].cells).find(c => c.textContent === 'packets');
        const col = th.cellIndex, vals = () => Array.from(t.tBodies[0].rows).map(
            r => Number(r.cells[col].getAttribute('data-v') ?? r.cells[col].textContent));
        th.click(); const a = vals(); th.click(); const d = vals(); return [a, d]; })()""")
    if order[0] != sorted(order[0]) or order[1] != sorted(order[1], reverse=True):
        fail(f"sorting by packets: {order}")
    # a narrow window: nothing wider than it
    b.page("Emulation.setDeviceMetricsOverride",
           {"width": 400, "height": 800, "deviceScaleFactor": 1, "mobile": True})
    b.load(url)
    widths = b.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    if widths[0] > widths[1] + 1:
        fail(f"a 400-pixel window scrolls sideways: {widths}")
    b.page("Emulation.setDeviceMetricsOverride",
           {"width": 1200, "height": 900, "deviceScaleFactor": 1, "mobile": False})
    # printing
    b.load(url)
    b.page("Emulation.setEmulatedMedia", {"media": "print"})
    nav = b.evaluate("getComputedStyle(document.querySelector('nav')).display")
    b.page("Emulation.setEmulatedMedia", {"media": ""})
    if nav != "none":
        fail(f"print style keeps the navigation ({nav})")
    pdf = cdp.base64.b64decode(b.page("Page.printToPDF", {})["data"])
    if not pdf.startswith(b"%PDF") or len(pdf) < 10000:
        fail(f"printing gave {len(pdf)} bytes")
    # shapes differ without colour: the marks' definitions, colours removed
    shapes = b.evaluate("""Array.from(document.querySelectorAll('defs [id^="m-"]')).map(e =>
        [e.id, e.outerHTML.replace(/ id="[^"]*"/, '').replace(/ (fill|stroke)="#[0-9a-f]+"/g, '')])""")
    by = {}
    for ident, geometry in shapes:
        by.setdefault(geometry, []).append(ident)
    same = [ids for ids in by.values() if len(ids) > 1]
    if len(shapes) < 9 or same:
        fail(f"mark shapes that only colour tells apart: {same} ({len(shapes)} shapes)")
    used = set(b.evaluate("Array.from(document.querySelectorAll('use[data-frame]')).map("
                          "e => e.getAttribute('href'))"))
    if not used <= {"#" + i for i, _ in shapes}:
        fail(f"marks use shapes that are not defined: {used}")


def evidence_click(b, html):
    """A click on a diagnosis's evidence frame goes to its mark and shows its
    tooltip."""
    b.load("file://" + os.path.abspath(html))
    pos = b.evaluate("""(() => { const a = document.querySelector('#diagnoses .evidence a');
        const r = a.getBoundingClientRect(); return [a.getAttribute('href'),
        r.left + r.width / 2, r.top + r.height / 2]; })()""")
    href = pos[0]
    for t in ("mousePressed", "mouseReleased"):
        b.page("Input.dispatchMouseEvent", {"type": t, "x": pos[1], "y": pos[2],
                                            "button": "left", "clickCount": 1})
    b.drain(0.3)
    st = b.evaluate("""(() => { const e = document.getElementById(%s), r = e.getBoundingClientRect();
        return [location.hash, e.classList.contains('pinned'), r.top >= 0 &&
                r.bottom <= window.innerHeight, document.getElementById('tip').className,
                document.getElementById('tip').textContent]; })()""" % json.dumps(href[1:]))
    if st[0] != href or not st[1] or not st[2] or st[3] != "on" or \
            f"frame {href[len('#frame-'):]}" not in st[4]:
        fail(f"a click on evidence {href}: hash, pinned, in view, tooltip = {st}")


def write_pcap_header(path):
    import struct
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))


def check_bulk(b, a, work, shots):
    """A bulk capture (--bulk-packets over --bulk-qps): a bounded page, its
    first paint, the frames drawn as --events says, every graph covering
    its flow, the first screen."""
    rs = a.rocescope
    bulk = os.path.join(work, f"bulk-{a.bulk_packets}-{a.bulk_qps}.pcap")
    run([a.rocegen, "bulk", "-o", bulk, "--packets", str(a.bulk_packets), "--qps",
         str(a.bulk_qps),
         "--seed", "1", "--snaplen", "128"])
    html = bulk + ".html"
    run([rs, "--html", html, "-o", os.devnull, bulk])
    size = os.path.getsize(html)
    url = "file://" + os.path.abspath(html)
    secs = b.load(url)
    paint = b.first_paint_ms()
    check_clean(b, "bulk", url)
    # the frames with verdicts of the flows drawn (the top 20): as --events says
    drawn = b.evaluate("Array.from(document.querySelectorAll('[data-frame]')).map("
                       "e => [e.getAttribute('data-frame'), e.getAttribute('data-verdicts')])")
    want = events_of(rs, [], [bulk])
    wrong = [f for f, v in drawn if want.get(int(f)) != v]
    if wrong or len(drawn) == 0:
        fail(f"bulk: {len(wrong)} of {len(drawn)} plotted frames differ from --events")
    check_sections(b, "bulk", ["summary", "graphs", "cnp-latency"], shots)
    report = json.loads(run([rs, "--json", bulk]))
    covered = check_coverage(b, "bulk", report)
    named = check_first_screen(b, "bulk", html, report)
    if covered < 20 or named < 20:
        fail(f"bulk: {covered} graphs, {named} flows the diagnoses name")
    os.remove(bulk)
    if size > PAGE_MAX_BYTES:
        fail(f"bulk: page of {size} bytes")
    if paint is None or paint > a.max_render_ms:
        fail(f"bulk: first contentful paint {paint} ms")
    print(f"ok bulk {a.bulk_packets} packets: page {size} bytes, load {secs * 1000:.0f} ms, "
          f"first contentful paint {paint:.0f} ms, {len(drawn)} frames plotted, "
          f"{covered} graphs covering their flows", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rocescope", required=True)
    ap.add_argument("--rocegen", required=True)
    ap.add_argument("--editcap", required=True)
    ap.add_argument("--captures", required=True)
    ap.add_argument("--work", help="keep pages and screenshots here")
    ap.add_argument("--bulk-packets", type=int, default=2000000)
    ap.add_argument("--bulk-qps", type=int, default=2000)
    ap.add_argument("--max-render-ms", type=float, default=2000)
    ap.add_argument("--bulk-only", action="store_true",
                    help="only the bulk capture (html_browser_bulk, the release tier)")
    a = ap.parse_args()
    exe = cdp.find_chromium()
    if exe is None:
        print("html_browser: skipped: no chromium (tools/setup.sh installs it)")
        return 77
    work = a.work or tempfile.mkdtemp(prefix="rocescope-html-")
    shots = os.path.join(work, "shots")
    os.makedirs(shots, exist_ok=True)
    rs = a.rocescope
    pages = n_diags = n_links = n_named = n_not_worst = n_timelines = n_clean_timelines = 0

    if a.bulk_only:
        with cdp.Browser(exe) as b:
            check_bulk(b, a, work, shots)
        print(f"{len(failures)} failures" if failures else "bulk page checked")
        return 1 if failures else 0

    with cdp.Browser(exe) as b:
        # every scenario capture, all flows drawn (--top)
        caps = sorted(glob.glob(os.path.join(a.captures, "*.pcap*")))
        for cap in caps:
            name = os.path.basename(cap).replace(".", "_")
            base = os.path.basename(cap).rsplit(".", 1)[0]
            args = capture_args(a.captures, base)
            html = os.path.join(work, name + ".html")
            run([rs, "--html", html, "--top", "1000", "-o", os.devnull, *args, cap])
            want = events_of(rs, args, [cap])
            secs = SECTIONS if base in FULL_SHOTS else (["graphs"] if want else ["summary"])
            n = page_check(b, rs, html, name, want, shots, secs + ["diagnoses"],
                           required=("diagnoses", "summary", "flows", "graphs", "episodes",
                                     "limits"))
            report = json.loads(run([rs, "--json", *args, cap]))
            diags = report["diagnoses"]
            links = check_diagnoses(b, name, diags, set(want))
            n_named += check_first_screen(b, name, html, report)
            n_not_worst += check_same_ranking(b, name, rs, args, cap, report)
            drawn = check_timeline(b, name, report)
            n_timelines += drawn
            n_clean_timelines += drawn and not diags and base.startswith("clean")
            n_diags += len(diags)
            n_links += links
            pages += 1
            print(f"ok {name}: {n} frames with verdicts, {len(diags)} diagnoses ({links} evidence "
                  f"links), {os.path.getsize(html)} bytes", flush=True)
            if cap == caps[0]:
                canary_check(b, html, work)

        # header-only cuts (snaplen 64)
        for base in ("loss_receiver", "ecn_cnp", "erspan3"):
            cut = os.path.join(work, base + "-s64.pcap")
            run([a.editcap, "-s", "64", os.path.join(a.captures, base + ".pcap"), cut])
            html = cut + ".html"
            run([rs, "--html", html, "--top", "1000", "-o", os.devnull, cut])
            n = page_check(b, rs, html, base + "-s64", events_of(rs, [], [cut]), shots,
                           ["summary", "graphs"])
            pages += 1
            print(f"ok {base} cut at 64 bytes: {n} frames with verdicts", flush=True)

        # no RoCE at all, and no frame at all
        noroce = os.path.join(work, "no-roce.pcap")
        run([a.editcap, "-r", os.path.join(a.captures, "noise.pcap"), noroce, "1-3"])
        empty = os.path.join(work, "empty.pcap")
        write_pcap_header(empty)
        for cap, label in ((noroce, "no-roce"), (empty, "no-frames")):
            html = cap + ".html"
            run([rs, "--html", html, "-o", os.devnull, cap])
            page_check(b, rs, html, label, {}, shots, SECTIONS,
                       required=("summary", "flows", "graphs", "limits"))
            check_diagnoses(b, label, [], set())
            text = b.evaluate("document.getElementById('graphs').textContent")
            if "No flow had trouble" not in text:
                fail(f"{label}: the graphs section says {text[:200]!r}")
            pages += 1
            print(f"ok {label}", flush=True)

        # -j 2 and merge: the same frames as the joint analysis
        two = [os.path.join(a.captures, c) for c in ("loss_receiver.pcap", "ecn_cnp.pcap")]
        html = os.path.join(work, "jobs.html")
        run([rs, "-j", "2", "--html", html, "--top", "1000", "-o", os.devnull, *two])
        page_check(b, rs, html, "jobs", events_of(rs, ["-j", "2"], two), shots,
                   ["summary", "graphs", "episodes"])
        jsons = []
        for c in two:
            j = os.path.join(work, os.path.basename(c) + ".json")
            run([rs, "--json", "-o", j, c])
            jsons.append(j)
        html = os.path.join(work, "merge.html")
        run([rs, "merge", "--html", html, "-o", os.devnull, *jsons])
        page_check(b, rs, html, "merge", {}, shots, ["summary", "flows", "episodes"])
        if "need the frames" not in b.evaluate("document.getElementById('graphs').textContent"):
            fail("merge: the page does not say why it has no graphs")
        # merged reports: the diagnoses recomputed from the merged counts, no mark to link
        check_diagnoses(b, "merge", json.loads(run([rs, "merge", "--json", *jsons]))["diagnoses"],
                        set())
        pages += 2
        print("ok -j 2 and merge", flush=True)

        # localize
        lz = [os.path.join(a.captures, "localize", f) for f in ("tap_a.pcap", "tap_b.pcap")]
        html = os.path.join(work, "localize.html")
        run([rs, "localize", "--html", html, "-o", os.devnull, *lz])
        page_check(b, rs, html, "localize", None, shots, LOCALIZE_SECTIONS,
                   required=("summary", "points", "segments", "flows"))
        pages += 1
        # PFC pauses round a cycle of three taps: the findings and the steps
        lz = [os.path.join(a.captures, "localize", f"cycle_{l}.pcap")
              for l in ("s1_s2", "s2_s3", "s3_s1")]
        html = os.path.join(work, "localize-cycle.html")
        run([rs, "localize", "--html", html, "-o", os.devnull, *lz])
        page_check(b, rs, html, "localize-cycle", None, shots, LOCALIZE_SECTIONS + ["pauses"],
                   required=("diagnoses", "summary", "pauses", "points"))
        got = b.evaluate("[Array.from(document.querySelectorAll('#diagnoses li')).map("
                         "e => e.getAttribute('data-kind')), Array.from(document."
                         "querySelectorAll('#pauses tbody tr')).map(e => e.cells[3].textContent)]")
        if got != [["pause_cycle", "pause_spreading"],
                   ["cycle_s1_s2", "cycle_s3_s1", "cycle_s2_s3", "cycle_s1_s2",
                    "cycle_s1_s2", "cycle_s3_s1", "cycle_s2_s3"]]:
            fail(f"localize-cycle: findings and steps {got}")
        pages += 1
        print("ok localize", flush=True)

        # the summary and the page agree where the ranking is not by trouble
        # alone (dcqcn, ecn_cnp, reorder_resend, nak_codes: a diagnosis
        # names first a flow with less trouble than another)
        if n_clean_timelines < 2 or n_timelines != len(caps):
            fail(f"timeline: {n_timelines} of {len(caps)} pages checked, {n_clean_timelines} of "
                 f"clean captures")
        if n_not_worst < 3:
            fail(f"one ranking: only {n_not_worst} captures rank first a flow the diagnoses "
                 f"name over the flow with the most trouble")
        if n_diags < 10 or n_links < 10 or n_named < 10:
            fail(f"the scenarios gave {n_diags} diagnoses, {n_links} evidence links and "
                 f"{n_named} flows the diagnoses name")
        evidence_click(b, os.path.join(work, "dcqcn_pcap.html"))
        print("ok a click on evidence frame pins its mark", flush=True)

        check_zoom(b, os.path.join(work, "loss_receiver_pcap.html"))
        interaction_checks(b, os.path.join(work, "loss_receiver_pcap.html"),
                           events_of(rs, [], [os.path.join(a.captures, "loss_receiver.pcap")]))
        print("ok tooltip, sorting, narrow window, print, shapes", flush=True)

        # a bulk capture: bounded page, first paint
        if a.bulk_packets:
            check_bulk(b, a, work, shots)

    print(f"{pages} pages checked; pages and screenshots in {work}")
    if failures:
        print(f"{len(failures)} failures")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
