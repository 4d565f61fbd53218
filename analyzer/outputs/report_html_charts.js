/*
 * ioscope HTML report, its charts: SVG drawn here from #ioscope-data
 * (report_html.c embeds this script after report_html.js, in the same
 * element). Where the I/O time and bytes went per file, as bars; the
 * request sizes of reads and writes, as a histogram of powers of two; and
 * for the files accessed at random, their offsets over time. Nothing is
 * fetched: the page stays one offline file.
 *
 * When done, <body> carries data-charts (how many charts were drawn) and
 * data-chart-boxes (each chart's plot area in page pixels, as JSON): the
 * browser test reads them.
 */
"use strict";
(function () {
  var D = JSON.parse(document.getElementById("ioscope-data").textContent);
  var NS = "http://www.w3.org/2000/svg";
  var W = 640, BAR = 16, LABEL = 250, PAD = 8;
  var READ = "#2f6fd1", WRITE = "#e07b12", TIME = "#7a56c2";
  var TOP = 15;      /* files in a bar chart */

  function svg(tag, attrs, text) {
    var e = document.createElementNS(NS, tag), k;
    for (k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function html(tag, attrs, text) {
    var e = document.createElement(tag), k;
    for (k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function fmtNs(ns) {
    if (ns >= 1e9) return (ns / 1e9).toFixed(2) + " s";
    if (ns >= 1e6) return (ns / 1e6).toFixed(1) + " ms";
    if (ns >= 1e3) return (ns / 1e3).toFixed(1) + " \u00b5s";
    return Math.round(ns) + " ns";
  }

  function fmtBytes(b) {
    var u = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"], i = 0;
    while (b >= 1024 && i < u.length - 1) { b /= 1024; i++; }
    return (i && b < 10 ? b.toFixed(1) : String(Math.round(b))) + " " + u[i];
  }

  /* a long path shortened from the left: its file name is what tells */
  function shortPath(p, max) {
    p = p === "" ? "\"\"" : String(p);
    return p.length <= max ? p : "\u2026" + p.slice(p.length - max + 1);
  }

  function figure(id, title, hint, plot) {
    var f = html("figure", {"class": "chart", "data-chart": id});
    f.appendChild(html("figcaption", {}, title));
    if (hint) f.appendChild(html("p", {"class": "hint"}, hint));
    f.appendChild(plot);
    return f;
  }

  /*
   * Horizontal bars, one row per item: its label, then one bar per series
   * (stacked), scaled to the largest total. series: [[key, color, name]].
   */
  function bars(items, series, label, fmt) {
    var max = 0, h = items.length * (BAR + 4) + 2 * PAD;
    var s = svg("svg", {width: W, height: h, viewBox: "0 0 " + W + " " + h, role: "img"});
    var plot = svg("g", {"class": "plot"});
    items.forEach(function (it) {
      var t = 0;
      series.forEach(function (c) { t += it[c[0]] || 0; });
      if (t > max) max = t;
    });
    items.forEach(function (it, i) {
      var y = PAD + i * (BAR + 4), x = LABEL, total = 0;
      s.appendChild(svg("text", {x: LABEL - 6, y: y + BAR - 4, "text-anchor": "end",
        "font-size": 11, fill: "#1d2330"}, label(it)));
      series.forEach(function (c) {
        var v = it[c[0]] || 0, w = max ? v / max * (W - LABEL - 90) : 0;
        total += v;
        if (w <= 0) return;
        var r = svg("rect", {x: x, y: y, width: Math.max(w, 1), height: BAR, fill: c[1]});
        r.appendChild(svg("title", {}, c[2] + ": " + fmt(v)));
        plot.appendChild(r);
        x += w;
      });
      s.appendChild(svg("text", {x: x + 4, y: y + BAR - 4, "font-size": 11, fill: "#667085"},
        fmt(total)));
    });
    s.appendChild(plot);
    return s;
  }

  function legend(series) {
    var p = html("p", {"class": "legend"});
    series.forEach(function (c) {
      var sp = html("span"), i = html("i");
      i.style.background = c[1];
      sp.appendChild(i);
      sp.appendChild(document.createTextNode(c[2]));
      p.appendChild(sp);
    });
    return p;
  }

  function wrap(plot, series) {
    var d = html("div");
    d.appendChild(plot);
    if (series) d.appendChild(legend(series));
    return d;
  }

  /* axes of a plot box: x0,y0 top left, w by h */
  function box(s, x0, y0, w, h) {
    s.appendChild(svg("rect", {x: x0, y: y0, width: w, height: h, fill: "none",
      stroke: "#d9dee7"}));
  }

  /* Request sizes: a column pair (reads, writes) per power of two. */
  function histogram() {
    var lo = REPORT_BUCKETS, hi = -1, counts = {}, max = 0;
    ["read", "write"].forEach(function (k) {
      (D.sizes && D.sizes[k] || []).forEach(function (b) {
        counts[k + b[0]] = b[1];
        if (b[0] < lo) lo = b[0];
        if (b[0] > hi) hi = b[0];
        if (b[1] > max) max = b[1];
      });
    });
    if (hi < 0) return null;
    var n = hi - lo + 1, x0 = 60, y0 = PAD, h = 180, cw = Math.min(48, (W - x0 - PAD) / n);
    var s = svg("svg", {width: W, height: h + 50, viewBox: "0 0 " + W + " " + (h + 50), role: "img"});
    var plot = svg("g", {"class": "plot"});
    box(s, x0, y0, cw * n, h);
    s.appendChild(svg("text", {x: x0 - 6, y: y0 + 10, "text-anchor": "end", "font-size": 10,
      fill: "#667085"}, String(max)));
    for (var k = lo; k <= hi; k++) {
      var i = k - lo;
      ["read", "write"].forEach(function (dir, j) {
        var v = counts[dir + k] || 0;
        if (!v) return;
        /* a square-root scale: one bucket of many calls must not hide the others */
        var bh = Math.max(1, Math.sqrt(v / max) * h);
        var r = svg("rect", {x: x0 + i * cw + 2 + j * (cw - 4) / 2, y: y0 + h - bh,
          width: (cw - 4) / 2, height: bh, fill: j ? WRITE : READ});
        r.appendChild(svg("title", {}, v + " " + dir + (v === 1 ? "" : "s") + " of " +
          fmtBytes(Math.pow(2, k)) + (k ? " to " + fmtBytes(Math.pow(2, k + 1) - 1) : " or less")));
        plot.appendChild(r);
      });
      if (n <= 16 || i % 2 === 0)
        s.appendChild(svg("text", {x: x0 + i * cw + cw / 2, y: y0 + h + 14, "text-anchor": "middle",
          "font-size": 10, fill: "#667085"}, fmtBytes(Math.pow(2, k)).replace(" ", "")));
    }
    s.appendChild(svg("text", {x: x0, y: y0 + h + 36, "font-size": 11, fill: "#667085"},
      "bytes asked for per call (columns: powers of two; heights: square root of the calls)"));
    s.appendChild(plot);
    return s;
  }
  var REPORT_BUCKETS = 64;

  /* One randomly accessed file: each kept call a dot at (time, offset). */
  function scatter(o) {
    var x0 = 80, y0 = PAD, w = W - x0 - PAD, h = 200, tmin = Infinity, tmax = -Infinity, omax = 0;
    o.points.forEach(function (p) {
      if (p[0] < tmin) tmin = p[0];
      if (p[0] > tmax) tmax = p[0];
      if (p[1] + p[2] > omax) omax = p[1] + p[2];
    });
    var span = Math.max(tmax - tmin, 1), s = svg("svg", {width: W, height: h + 36,
      viewBox: "0 0 " + W + " " + (h + 36), role: "img"});
    var plot = svg("g", {"class": "plot"});
    box(s, x0, y0, w, h);
    s.appendChild(svg("text", {x: x0 - 6, y: y0 + 10, "text-anchor": "end", "font-size": 10,
      fill: "#667085"}, fmtBytes(omax)));
    s.appendChild(svg("text", {x: x0 - 6, y: y0 + h, "text-anchor": "end", "font-size": 10,
      fill: "#667085"}, "0"));
    s.appendChild(svg("text", {x: x0, y: y0 + h + 14, "font-size": 10, fill: "#667085"},
      fmtNs(tmin)));
    s.appendChild(svg("text", {x: x0 + w, y: y0 + h + 14, "text-anchor": "end", "font-size": 10,
      fill: "#667085"}, fmtNs(tmax)));
    s.appendChild(svg("text", {x: x0, y: y0 + h + 30, "font-size": 11, fill: "#667085"},
      "offset (up) over time (across)"));
    o.points.forEach(function (p) {
      plot.appendChild(svg("rect", {x: x0 + (p[0] - tmin) / span * (w - 3), y: y0 + h - 3 -
        (omax ? p[1] / omax * (h - 3) : 0), width: 3, height: 3, fill: p[3] ? WRITE : READ}));
    });
    s.appendChild(plot);
    return s;
  }

  var charts = [];
  var files = D.files.slice().sort(function (a, b) { return b.ns - a.ns; }).slice(0, TOP);
  var label = function (f) { return shortPath(f.path, 40); };
  if (files.length) {
    charts.push(figure("files-time", "I/O time per file",
      files.length < D.files.length ? "The " + files.length + " files of most time." : null,
      wrap(bars(files, [["ns", TIME, "time"]], label, fmtNs))));
    var byBytes = D.files.slice().sort(function (a, b) {
      return b.read_bytes + b.write_bytes - a.read_bytes - a.write_bytes;
    }).slice(0, TOP).filter(function (f) { return f.read_bytes + f.write_bytes > 0; });
    var rw = [["read_bytes", READ, "read"], ["write_bytes", WRITE, "written"]];
    if (byBytes.length)
      charts.push(figure("files-bytes", "Bytes per file", null,
        wrap(bars(byBytes, rw, label, fmtBytes), rw)));
  }
  var hist = histogram();
  if (hist)
    charts.push(figure("sizes", "Request sizes", null,
      wrap(hist, [["", READ, "reads"], ["", WRITE, "writes"]])));
  (D.offsets || []).forEach(function (o, i) {
    charts.push(figure("offsets-" + i, "Offsets over time: " + shortPath(o.path, 60),
      o.jumps + " of " + o.accesses + " calls did not start where the one before ended" +
      (o.points.length < o.accesses ? "; " + o.points.length + " of the " + o.accesses +
        " calls shown" : ""),
      wrap(scatter(o), [["", READ, "read"], ["", WRITE, "written"]])));
  });

  var sec = html("section", {id: "sec-charts"});
  sec.appendChild(html("h2", {}, "Charts"));
  charts.forEach(function (c) { sec.appendChild(c); });
  if (!charts.length) sec.appendChild(html("p", {"class": "hint"}, "No file I/O to chart."));
  var before = document.getElementById("sec-files");
  document.body.insertBefore(sec, before);
  var nav = document.querySelector("nav");
  if (nav) {
    var a = html("a", {href: "#sec-charts"}, "Charts");
    nav.insertBefore(a, nav.querySelector('a[href="#sec-files"]'));
  }

  var boxes = charts.map(function (c) {
    var r = c.querySelector("svg").getBoundingClientRect();
    return {chart: c.getAttribute("data-chart"), x: Math.round(r.left + window.scrollX),
      y: Math.round(r.top + window.scrollY), w: Math.round(r.width), h: Math.round(r.height)};
  });
  document.body.setAttribute("data-charts", String(charts.length));
  document.body.setAttribute("data-chart-boxes", JSON.stringify(boxes));
})();
