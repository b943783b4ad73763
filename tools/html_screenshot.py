#!/usr/bin/env python3
"""A screenshot of part of an HTML report, in headless Chromium (tests/html/cdp.py),
optionally with the tooltip of one frame shown: how the README's screenshot is made.

  tools/html_screenshot.py PAGE.html SELECTOR OUT.png [--width 900] [--frame N]

  build/analyzer/rocescope --html /tmp/lr.html -o /dev/null captures/loss_receiver.pcap
  tools/html_screenshot.py /tmp/lr.html '#worst article' \\
      analyzer/html/screenshots/loss_receiver.png --frame 10
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "html"))
import cdp  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("page")
    ap.add_argument("selector")
    ap.add_argument("out")
    ap.add_argument("--width", type=int, default=900)
    ap.add_argument("--frame", type=int, help="show the tooltip of this frame (kept, as by a click)")
    a = ap.parse_args()
    exe = cdp.find_chromium()
    if exe is None:
        sys.exit("html_screenshot: no chromium (tools/setup.sh installs it)")
    with cdp.Browser(exe, width=a.width, height=1200) as b:
        b.load("file://" + os.path.abspath(a.page))
        rect = b.evaluate("""(() => { const s = document.querySelector(%s);
            s.scrollIntoView(); const r = s.getBoundingClientRect();
            return {x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height}; })()"""
                          % json.dumps(a.selector))
        if a.frame is not None:
            pos = b.evaluate("""(() => { const r = document.querySelector(
                'svg [data-frame="%d"]').getBoundingClientRect();
                return [r.left + r.width / 2, r.top + r.height / 2]; })()""" % a.frame)
            for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
                b.page("Input.dispatchMouseEvent", {"type": kind, "x": pos[0], "y": pos[1],
                                                    "button": "left", "clickCount": 1})
        with open(a.out, "wb") as f:
            f.write(b.screenshot(rect))
    return 0


if __name__ == "__main__":
    sys.exit(main())
