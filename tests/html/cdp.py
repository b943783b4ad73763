"""A small Chrome DevTools Protocol client over --remote-debugging-pipe: what
the HTML report's browser tests need, in the standard library only.

Chromium reads commands from its descriptor 3 and writes replies and events
to its descriptor 4, one JSON message each, ended by a NUL byte. Page-level
commands go to a session attached to a tab (flattened sessions: the
sessionId travels in the message).
"""
import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time

# What keeps a headless Chromium from reaching out on its own (update checks,
# field trials, sync, QUIC probes), and a resolver that answers nothing, so
# that a request the page made would fail rather than leave the machine.
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--disable-extensions", "--no-default-browser-check",
    "--metrics-recording-only", "--disable-features=Translate,OptimizationHints,MediaRouter",
    "--host-resolver-rules=MAP * ~NOTFOUND", "--hide-scrollbars", "--mute-audio",
]


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    return None


class CDPError(Exception):
    pass


class Browser:
    """A headless Chromium with one tab; events are kept per method."""

    def __init__(self, exe, width=1200, height=900, timeout=60):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="rocescope-chromium-")
        cmd_r, cmd_w = os.pipe()  # we write commands, Chromium reads them on fd 3
        ev_r, ev_w = os.pipe()  # Chromium writes on fd 4, we read

        def child_fds():
            # via descriptors above 10, so that neither pipe end is overwritten
            # nor keeps its close-on-exec flag
            hi = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (cmd_r, ev_w)]
            for fd, want in zip(hi, (3, 4)):
                os.dup2(fd, want)
                os.set_inheritable(want, True)

        self.proc = subprocess.Popen(
            [exe, *CHROMIUM_FLAGS, "--remote-debugging-pipe", f"--user-data-dir={self.profile}",
             f"--window-size={width},{height}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=child_fds, close_fds=False)
        os.close(cmd_r)
        os.close(ev_w)
        self.w, self.r = cmd_w, ev_r
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.helper = None  # the blank tab of image_stats
        self.target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget",
                                 {"targetId": self.target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.page(f"{domain}.enable")
        self.page("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def close(self):
        try:
            self.call("Browser.close", timeout=5)
        except (CDPError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self.w, self.r):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _read_message(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise CDPError("timed out waiting for Chromium")
            ready, _, _ = select.select([self.r], [], [], left)
            if ready:
                chunk = os.read(self.r, 1 << 20)
                if not chunk:
                    raise CDPError("Chromium closed the pipe")
                self.buf += chunk
        msg, _, self.buf = self.buf.partition(b"\0")
        return json.loads(msg)

    def call(self, method, params=None, session=None, timeout=None):
        self.next_id += 1
        mid = self.next_id
        msg = {"id": mid, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            m = self._read_message(deadline)
            if m.get("id") == mid:
                if "error" in m:
                    raise CDPError(f"{method}: {m['error']}")
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def page(self, method, params=None, timeout=None):
        return self.call(method, params, self.session, timeout)

    def wait_event(self, method, timeout=None):
        """The first event `method` not taken yet (from those kept, or awaited)."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            for i, e in enumerate(self.events):
                if e["method"] == method and not e.get("_taken"):
                    e["_taken"] = True
                    return e
            m = self._read_message(deadline)
            if "method" in m:
                self.events.append(m)

    def drain(self, seconds):
        """Keep the events that come in the next seconds."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                m = self._read_message(deadline)
            except CDPError as e:
                if "timed out" in str(e):
                    return
                raise
            if "method" in m:
                self.events.append(m)

    def settle(self):
        """After a load: wait until the page has made two frames (its
        scripts have run, its first layout and paint are done) and keep the
        events that came until then, and in 20 ms more (those of the browser
        process, which do not queue behind the page's answer). The report's
        page sets no timer, so what it reports comes by then (a fixed wait
        of 0.2 s after each of some 75 loads did the same)."""
        self.evaluate("new Promise(done => requestAnimationFrame("
                      "() => requestAnimationFrame(() => done(1))))")
        self.drain(0.02)

    def evaluate(self, expr):
        r = self.page("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                           "awaitPromise": True})
        if "exceptionDetails" in r:
            raise CDPError(f"evaluate: {r['exceptionDetails']}")
        return r["result"].get("value")

    def load(self, url):
        """Navigate and wait for the page's load event; the seconds it took.
        (A load event of the page before can still be on its way: the
        document's address and readyState say which one came.)"""
        self.events = []
        t0 = time.monotonic()
        self.page("Page.navigate", {"url": url})
        while True:
            self.wait_event("Page.loadEventFired")
            if self.evaluate("[location.href, document.readyState]") == [url, "complete"]:
                return time.monotonic() - t0

    def first_paint_ms(self):
        """The page's first contentful paint, ms from navigation (None: none in 5 s)."""
        return self.evaluate("""new Promise(done => {
          const find = l => l.find(e => e.name === 'first-contentful-paint');
          const e = find(performance.getEntriesByType('paint'));
          if (e) return done(e.startTime);
          new PerformanceObserver(l => { const f = find(l.getEntries()); if (f) done(f.startTime); })
            .observe({type: 'paint', buffered: true});
          setTimeout(() => done(null), 5000); })""")

    def screenshot(self, clip=None):
        params = {"format": "png", "captureBeyondViewport": True}
        if clip:
            params["clip"] = {**clip, "scale": 1}
        return base64.b64decode(self.page("Page.captureScreenshot", params)["data"])

    def image_stats(self, png, step=2):
        """Size, luminance variance and the share of pixels that are not the
        most common colour of a PNG in base64 (a screenshot as
        Page.captureScreenshot gives it), over every step-th pixel
        of every step-th row. Decoded by the browser itself, in a blank tab
        of its own (the page under test is left alone): a decoder in Python
        took most of the browser test's time."""
        if self.helper is None:
            target = self.call("Target.createTarget", {"url": "about:blank",
                                                      "background": True})["targetId"]
            self.helper = self.call("Target.attachToTarget",
                                    {"targetId": target, "flatten": True})["sessionId"]
            # the page's tab in front again (a tab behind paints no frame to capture)
            self.call("Target.activateTarget", {"targetId": self.target})
        r = self.call("Runtime.evaluate", {"expression": IMAGE_STATS % (
            json.dumps(png), step), "returnByValue": True,
            "awaitPromise": True}, self.helper)
        if "exceptionDetails" in r:
            raise CDPError(f"image_stats: {r['exceptionDetails']}")
        return r["result"]["value"]

    # what the page did wrong
    def problems(self):
        out = []
        for e in self.events:
            m, p = e["method"], e.get("params", {})
            if m == "Runtime.exceptionThrown":
                out.append(f"exception: {p['exceptionDetails'].get('text')} "
                           f"{p['exceptionDetails'].get('exception', {}).get('description', '')}")
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning", "assert"):
                out.append(f"console.{p['type']}: {[a.get('value') for a in p.get('args', [])]}")
            elif m == "Log.entryAdded" and p["entry"].get("level") in ("error", "warning"):
                out.append(f"log {p['entry']['level']}: {p['entry'].get('text')} "
                           f"{p['entry'].get('url', '')}")
        return out

    def requests(self):
        return [e["params"]["request"]["url"] for e in self.events
                if e["method"] == "Network.requestWillBeSent"]


# image_stats in the browser: the PNG's pixels as they are (no colour
# conversion, alpha not premultiplied), the luminance of every step-th pixel
# of every step-th row, its variance and the most common colour's share
IMAGE_STATS = """(async () => {
  const bin = atob(%s), step = %d, bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  const bmp = await createImageBitmap(new Blob([bytes], {type: 'image/png'}),
                                      {colorSpaceConversion: 'none', premultiplyAlpha: 'none'});
  const w = bmp.width, h = bmp.height, canvas = new OffscreenCanvas(w, h);
  const g = canvas.getContext('2d');
  g.drawImage(bmp, 0, 0);
  const px = g.getImageData(0, 0, w, h).data, colours = new Map();
  let n = 0, sum = 0, sq = 0, top = 0;
  for (let y = 0; y < h; y += step) {
    for (let x = 0; x < w; x += step) {
      const i = (y * w + x) * 4, r = px[i], gr = px[i + 1], b = px[i + 2];
      const lum = (299 * r + 587 * gr + 114 * b) / 1000;
      n++; sum += lum; sq += lum * lum;
      const k = (r << 16) | (gr << 8) | b, c = (colours.get(k) || 0) + 1;
      colours.set(k, c);
      if (c > top) top = c;
    }
  }
  const mean = n ? sum / n : 0;
  return {width: w, height: h, variance: n ? Math.max(0, sq / n - mean * mean) : 0,
          ink: n ? 1 - top / n : 0, colours: colours.size};
})()"""
