/* report.js - the HTML report's behaviour (embedded in every page; html_page.c):
 * sortable tables, zoom and pan on the time axis of the graphs, and the frame
 * under the pointer (its number and verdicts, shown on hover, kept on click). Plain JavaScript, nothing fetched. */
(function () {
  "use strict";

  /* ---- sortable tables: click (or Enter on) a column header ---- */
  function cellValue(row, i) {
    var c = row.cells[i];
    if (!c) return "";
    var v = c.getAttribute("data-v");
    if (v === null) v = c.textContent.trim();
    var n = Number(v);
    return v !== "" && !isNaN(n) ? n : v.toLowerCase();
  }

  function sortBy(table, th) {
    var i = th.cellIndex, body = table.tBodies[0];
    if (!body) return;
    var asc = th.getAttribute("aria-sort") !== "ascending";
    var heads = table.tHead.rows[0].cells;
    for (var k = 0; k < heads.length; k++) heads[k].removeAttribute("aria-sort");
    th.setAttribute("aria-sort", asc ? "ascending" : "descending");
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = cellValue(a, i), y = cellValue(b, i);
      if (typeof x !== typeof y) { x = String(x); y = String(y); }
      return (x < y ? -1 : x > y ? 1 : 0) * (asc ? 1 : -1);
    });
    var frag = document.createDocumentFragment();
    rows.forEach(function (r) { frag.appendChild(r); });
    body.appendChild(frag);
  }

  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (t) {
    if (!t.tHead) return;
    Array.prototype.forEach.call(t.tHead.rows[0].cells, function (th) {
      th.tabIndex = 0;
      th.title = "sort by this column";
      th.addEventListener("click", function () { sortBy(t, th); });
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sortBy(t, th); }
      });
    });
  });

  /* ---- zoom and pan on the time axis of the graphs over time ----
   * Every chart with a time axis (svg.chart[data-t0]: a flow's sequence and
   * rate graphs, the capture's timeline, the PFC timeline) can show a part
   * of its span: the buttons above it (zoom in, out, earlier, later, reset;
   * Tab and Enter reach them; a flow's at the end of its heading), Ctrl (or Shift) and the mouse wheel on the
   * plot (around the pointer), and a drag on the plot once zoomed. A flow's
   * graphs move together. The drawing is redrawn by an affine map of x on
   * the plotted elements (marks moved, paths and bars stretched, strokes
   * kept), clipped to the plot; the x axis gets round ticks of the range
   * shown; the range is data-view-t0/t1 on the svg (in its data-unit);
   * marks outside it leave the tab order; reset restores the page as it
   * was written. */
  var ZOOM_STEP = 2, PAN_STEP = 0.25, MIN_SPAN = 1e-6, NS = "http://www.w3.org/2000/svg";
  var zoomId = 0;

  function niceStep(span, n) {
    var raw = span / n, mag = Math.pow(10, Math.floor(Math.log10(raw))), f = raw / mag;
    return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * mag;
  }

  function setupChart(svg) {
    var t0 = Number(svg.getAttribute("data-t0")), t1 = Number(svg.getAttribute("data-t1"));
    var x0 = Number(svg.getAttribute("data-x0")), x1 = Number(svg.getAttribute("data-x1"));
    if (!(t1 > t0) || !(x1 > x0)) return null;
    var vb = svg.viewBox.baseVal, xaxis = svg.querySelector("g.xaxis");
    var clip = document.createElementNS(NS, "clipPath"), id = "zclip-" + (++zoomId);
    clip.id = id;
    var r = document.createElementNS(NS, "rect");
    r.setAttribute("x", x0); r.setAttribute("y", 0);
    r.setAttribute("width", x1 - x0); r.setAttribute("height", vb.height);
    clip.appendChild(r);
    var g = document.createElementNS(NS, "g");
    g.setAttribute("class", "zoom");
    g.setAttribute("clip-path", "url(#" + id + ")");
    var data = Array.prototype.filter.call(svg.children, function (c) {
      var n = c.localName;
      return n === "path" || n === "rect" || n === "use" || (n === "g" && c.classList.contains("marks"));
    });
    if (!data.length) return null;
    svg.insertBefore(clip, data[0]);
    svg.insertBefore(g, data[0]);
    data.forEach(function (c) { g.appendChild(c); });
    var uses = Array.prototype.slice.call(g.querySelectorAll("use"));
    uses.forEach(function (u) { u.setAttribute("data-x", u.getAttribute("x")); });
    var shapes = Array.prototype.filter.call(g.querySelectorAll("path, rect"), function (e) {
      return !e.closest("use");
    });
    return { svg: svg, t0: t0, t1: t1, x0: x0, x1: x1, xaxis: xaxis,
             axisHTML: xaxis ? xaxis.innerHTML : "", uses: uses, shapes: shapes,
             a: t0, b: t1 };
  }

  /* the x axis of range a..b: ticks and grid as html_out.c draws them (the
   * written axis gives their geometry; its base line and label are kept) */
  function drawAxis(c) {
    var ax = c.xaxis, grid = ax.querySelector("line.grid"), tick = ax.querySelector("line.axis");
    var base = ax.lastElementChild && ax.lastElementChild.previousElementSibling;
    var label = ax.lastElementChild, num = ax.querySelector("text");
    if (!c.geom) {
      var bottom = Number(base.getAttribute("y1"));
      c.geom = { top: grid ? grid.getAttribute("y1") : bottom, bottom: bottom,
                 len: grid && tick ? Number(tick.getAttribute("y2")) - bottom : 4,
                 ly: num && num !== label ? num.getAttribute("y") : bottom + 16 };
    }
    var g = c.geom, step = niceStep(c.b - c.a, 8), first = Math.ceil(c.a / step) * step;
    while (ax.firstChild !== base) ax.removeChild(ax.firstChild);
    for (var i = 0; i < 40; i++) {
      var v = first + i * step;
      if (v > c.b + step * 1e-9) break;
      var px = (c.x0 + (v - c.a) * (c.x1 - c.x0) / (c.b - c.a)).toFixed(1);
      var l1 = document.createElementNS(NS, "line"), l2 = document.createElementNS(NS, "line");
      var t = document.createElementNS(NS, "text");
      l1.setAttribute("class", "grid");
      l2.setAttribute("class", "axis");
      [["x1", px], ["x2", px], ["y1", g.top], ["y2", g.bottom]].forEach(function (p) {
        l1.setAttribute(p[0], p[1]);
      });
      [["x1", px], ["x2", px], ["y1", g.bottom], ["y2", g.bottom + g.len]].forEach(function (p) {
        l2.setAttribute(p[0], p[1]);
      });
      t.setAttribute("x", px);
      t.setAttribute("y", g.ly);
      t.setAttribute("text-anchor", "middle");
      t.textContent = String(Number(v.toPrecision(10)));
      ax.insertBefore(l1, base);
      ax.insertBefore(l2, base);
      ax.insertBefore(t, base);
    }
  }

  function apply(c) {
    var full = c.a <= c.t0 && c.b >= c.t1;
    if (full) {
      c.a = c.t0; c.b = c.t1;
      c.svg.removeAttribute("data-view-t0");
      c.svg.removeAttribute("data-view-t1");
      if (c.xaxis) c.xaxis.innerHTML = c.axisHTML;
    } else {
      c.svg.setAttribute("data-view-t0", Number(c.a.toPrecision(12)));
      c.svg.setAttribute("data-view-t1", Number(c.b.toPrecision(12)));
      if (c.xaxis) drawAxis(c);
    }
    /* px' = k px + e maps the written drawing to the range shown */
    var k = (c.t1 - c.t0) / (c.b - c.a);
    var e = c.x0 - k * c.x0 - (c.a - c.t0) * (c.x1 - c.x0) / (c.b - c.a);
    c.shapes.forEach(function (s) {
      if (full) s.removeAttribute("transform");
      else s.setAttribute("transform", "matrix(" + k + " 0 0 1 " + e + " 0)");
    });
    c.uses.forEach(function (u) {
      var x = k * Number(u.getAttribute("data-x")) + e;
      u.setAttribute("x", full ? u.getAttribute("data-x") : x.toFixed(1));
      if (full || (x >= c.x0 - 1 && x <= c.x1 + 1)) u.setAttribute("tabindex", "0");
      else u.setAttribute("tabindex", "-1");
    });
  }

  /* show a..b of every chart of the group (clamped to their written span) */
  function view(group, a, b) {
    group.charts.forEach(function (c) {
      var span = Math.max(b - a, (c.t1 - c.t0) * MIN_SPAN);
      if (span >= c.t1 - c.t0) { c.a = c.t0; c.b = c.t1; }
      else {
        var lo = Math.min(Math.max(a, c.t0), c.t1 - span);
        c.a = lo; c.b = lo + span;
      }
      apply(c);
    });
  }

  function zoomBy(group, f, at) {
    var c = group.charts[0], mid = at === undefined ? (c.a + c.b) / 2 : at;
    view(group, mid - (mid - c.a) / f, mid + (c.b - mid) / f);
  }

  function panBy(group, frac) {
    var c = group.charts[0], d = (c.b - c.a) * frac;
    view(group, c.a + d, c.b + d);
  }

  function button(label, title, fn) {
    var b = document.createElement("button");
    b.type = "button";
    b.textContent = label;
    b.title = title;
    b.setAttribute("aria-label", title);
    b.addEventListener("click", fn);
    return b;
  }

  function setupGroup(scope) {
    var charts = Array.prototype.map.call(scope.querySelectorAll("svg.chart[data-t0]"), setupChart)
      .filter(function (c) { return c; });
    if (!charts.length) return;
    var group = { charts: charts };
    var bar = document.createElement("div");
    bar.className = "zoombar noprint";
    bar.setAttribute("role", "toolbar");
    bar.setAttribute("aria-label", "time axis");
    bar.appendChild(button("+", "zoom in on the time axis", function () { zoomBy(group, ZOOM_STEP); }));
    bar.appendChild(button("\u2212", "zoom out", function () { zoomBy(group, 1 / ZOOM_STEP); }));
    bar.appendChild(button("\u25c0", "earlier", function () { panBy(group, -PAN_STEP); }));
    bar.appendChild(button("\u25b6", "later", function () { panBy(group, PAN_STEP); }));
    bar.appendChild(button("reset", "show the whole time axis", function () {
      view(group, -Infinity, Infinity);
    }));
    /* a flow's bar ends its heading (no room taken from the first screen) */
    var head = scope.querySelector("h3"), fig = charts[0].svg.closest("figure");
    if (head) {
      bar.classList.add("inline");
      head.appendChild(bar);
    } else fig.parentNode.insertBefore(bar, fig);
    charts.forEach(function (c) {
      /* the time under the pointer when a..b is shown */
      function timeAt(ev, a, b) {
        var r = c.svg.getBoundingClientRect(), vb = c.svg.viewBox.baseVal;
        var x = (ev.clientX - r.left) * vb.width / r.width;
        return a + (x - c.x0) * (b - a) / (c.x1 - c.x0);
      }
      c.svg.addEventListener("wheel", function (ev) {
        if (!ev.ctrlKey && !ev.shiftKey) return;
        ev.preventDefault();
        var d = ev.deltaY || ev.deltaX;
        zoomBy(group, d < 0 ? Math.SQRT2 : Math.SQRT1_2, timeAt(ev, c.a, c.b));
      }, { passive: false });
      var drag = null;
      c.svg.addEventListener("pointerdown", function (ev) {
        if (c.a <= c.t0 && c.b >= c.t1) return;
        drag = { t: timeAt(ev, c.a, c.b), a: c.a, b: c.b };
      });
      c.svg.addEventListener("pointermove", function (ev) {
        if (!drag || !(ev.buttons & 1)) { drag = null; return; }
        var d = drag.t - timeAt(ev, drag.a, drag.b);
        view(group, drag.a + d, drag.b + d);
      });
      c.svg.addEventListener("pointerup", function () { drag = null; });
    });
  }

  Array.prototype.forEach.call(document.querySelectorAll("article.flow"), setupGroup);
  Array.prototype.forEach.call(document.querySelectorAll("#timeline figure, #pfc figure"),
                               setupGroup);

  /* ---- the frame under the pointer ---- */
  var tip = document.getElementById("tip"), pinned = null;
  if (!tip) return;

  /* ns as a time in the largest unit it fills (ns, \u00b5s, ms, s) */
  function duration(ns) {
    var units = [[1e9, "s"], [1e6, "ms"], [1e3, "\u00b5s"]], a = Math.abs(ns);
    for (var i = 0; i < units.length; i++)
      if (a >= units[i][0]) return (ns / units[i][0]).toFixed(3) + " " + units[i][1];
    return ns + " ns";
  }

  /* the frame's own number, verdicts, time and PSN, as the page has them
   * from the analysis (never read back from the drawing) */
  function describe(el) {
    var parts = [];
    parts.push("<b>frame " + el.getAttribute("data-frame") + "</b>");
    parts.push(el.getAttribute("data-verdicts").split(" ").join(", "));
    if (el.hasAttribute("data-t"))
      parts.push("time " + duration(Number(el.getAttribute("data-t"))) +
                 " since the capture began (" + el.getAttribute("data-time") + ")");
    if (el.hasAttribute("data-psn")) parts.push("PSN " + el.getAttribute("data-psn"));
    return parts.join("<br>");
  }

  function show(el, x, y) {
    tip.innerHTML = describe(el);
    tip.className = "on";
    var w = tip.offsetWidth, h = tip.offsetHeight;
    var left = Math.min(x + 12, window.innerWidth - w - 4);
    var top = y + 14 + h > window.innerHeight ? y - h - 8 : y + 14;
    tip.style.left = Math.max(4, left) + "px";
    tip.style.top = Math.max(4, top) + "px";
  }

  function hide() {
    if (pinned) pinned.classList.remove("pinned");
    pinned = null;
    tip.className = "";
  }

  function frameOf(target) {
    return target && target.closest ? target.closest("[data-frame]") : null;
  }

  document.addEventListener("mouseover", function (e) {
    var el = frameOf(e.target);
    if (el && !pinned && el.ownerSVGElement) show(el, e.clientX, e.clientY);
  });
  document.addEventListener("mouseout", function (e) {
    if (!pinned && frameOf(e.target)) tip.className = "";
  });
  /* a diagnosis's evidence frame: the page goes to its mark, which keeps its tooltip */
  function pinFrame(id) {
    var el = document.getElementById(id);
    if (!el || !el.ownerSVGElement) return;
    hide();
    pinned = el;
    el.classList.add("pinned");
    var r = el.getBoundingClientRect();
    show(el, r.left + r.width / 2, r.top + r.height / 2);
  }

  document.addEventListener("click", function (e) {
    var a = e.target && e.target.closest ? e.target.closest('a[href^="#frame-"]') : null;
    if (a) {
      e.preventDefault();
      var id = a.getAttribute("href").slice(1), el = document.getElementById(id);
      if (!el) return;
      history.replaceState(null, "", "#" + id);
      el.scrollIntoView({ block: "center" });
      pinFrame(id);
      return;
    }
    var el = frameOf(e.target);
    if (!el || !el.ownerSVGElement) { hide(); return; }
    var same = el === pinned;
    hide();
    if (same) return;
    pinned = el;
    el.classList.add("pinned");
    show(el, e.clientX, e.clientY);
  });
  document.addEventListener("keydown", function (e) { if (e.key === "Escape") hide(); });
  /* the keyboard: Tab reaches every mark, which shows its tooltip; Enter keeps it */
  document.addEventListener("focusin", function (e) {
    var el = frameOf(e.target);
    if (!el || !el.ownerSVGElement || pinned) return;
    var r = el.getBoundingClientRect();
    show(el, r.left + r.width / 2, r.top + r.height / 2);
  });
  document.addEventListener("focusout", function (e) {
    if (!pinned && frameOf(e.target)) tip.className = "";
  });
  document.addEventListener("keydown", function (e) {
    var el = frameOf(e.target);
    if (e.key !== "Enter" || !el || !el.ownerSVGElement) return;
    e.preventDefault();
    var same = el === pinned;
    hide();
    if (same) return;
    pinFrame(el.id);
  });
  if (/^#frame-[0-9]+$/.test(location.hash)) pinFrame(location.hash.slice(1));
  /* a scroll hides a tooltip not kept, except a mark's in focus: it follows the mark */
  window.addEventListener("scroll", function () {
    var f = frameOf(document.activeElement);
    if (f && f.ownerSVGElement && !pinned) {
      var r = f.getBoundingClientRect();
      show(f, r.left + r.width / 2, r.top + r.height / 2);
    } else if (!pinned) tip.className = "";
  }, { passive: true });
})();
