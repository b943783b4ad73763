/* report.js - the HTML report's behaviour (embedded in every page; html_page.c):
 * sortable tables, and the frame under the pointer (its number and verdicts,
 * shown on hover, kept on click). Plain JavaScript, nothing fetched. */
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

  /* ---- the frame under the pointer ---- */
  var tip = document.getElementById("tip"), pinned = null;
  if (!tip) return;

  function num(el, name) { return Number(el.getAttribute(name)); }

  /* A value of an axis from a coordinate: data-{a}0/{a}1 are the values at
   * the pixels data-{p}0/{p}1. */
  function invert(svg, a, p, pos) {
    var v0 = num(svg, "data-" + a + "0"), v1 = num(svg, "data-" + a + "1");
    var p0 = num(svg, "data-" + p + "0"), p1 = num(svg, "data-" + p + "1");
    return p1 === p0 ? v0 : v0 + (pos - p0) * (v1 - v0) / (p1 - p0);
  }

  function describe(el) {
    var svg = el.ownerSVGElement, parts = [];
    parts.push("<b>frame " + el.getAttribute("data-frame") + "</b>");
    parts.push(el.getAttribute("data-verdicts").split(" ").join(", "));
    if (svg && svg.hasAttribute("data-t0")) {
      var t = invert(svg, "t", "x", num(el, "x"));
      parts.push("t \u2248 " + t.toPrecision(6) + " " + svg.getAttribute("data-unit"));
      if (svg.hasAttribute("data-p0") && el.getAttribute("data-strip") === null) {
        var p = invert(svg, "p", "y", num(el, "y"));
        parts.push("PSN \u2248 first + " + Math.round(p));
      }
    }
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
  if (/^#frame-[0-9]+$/.test(location.hash)) pinFrame(location.hash.slice(1));
  window.addEventListener("scroll", function () { if (!pinned) tip.className = ""; }, { passive: true });
})();
