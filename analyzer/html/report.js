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
