/*
 * ioscope HTML report: draws the data in #ioscope-data (report_html.c writes
 * it, report_html.c embeds this script). No library and nothing fetched: the
 * page must work from file:// and offline.
 *
 * When done, <body> carries what was drawn (data-ready, data-rows,
 * data-issues, data-files, data-marks), the canvas the time range shown
 * (data-view) and the calls drawn one by one, and data-errors counts script
 * errors: the browser test reads them.
 */
"use strict";
(function () {
  var errors = 0;
  window.addEventListener("error", function () {
    errors++;
    document.body.setAttribute("data-errors", String(errors));
  });

  var D = JSON.parse(document.getElementById("ioscope-data").textContent);
  var ROW = 20, AXIS = 26, LABEL = 210;

  /* ------------------------------------------------------------ helpers */

  function el(tag, attrs, kids) {
    var e = document.createElement(tag);
    var k;
    for (k in attrs || {}) {
      if (k === "text") e.textContent = attrs[k];
      else if (k === "cls") e.className = attrs[k];
      else if (k.slice(0, 2) === "on") e.addEventListener(k.slice(2), attrs[k]);
      else e.setAttribute(k, attrs[k]);
    }
    (kids || []).forEach(function (c) {
      if (c != null) e.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    });
    return e;
  }

  function fmtNs(ns) {
    var a = Math.abs(ns);
    if (a >= 1e9) return (ns / 1e9).toFixed(a >= 1e10 ? 1 : 3) + " s";
    if (a >= 1e6) return (ns / 1e6).toFixed(a >= 1e7 ? 1 : 2) + " ms";
    if (a >= 1e3) return (ns / 1e3).toFixed(a >= 1e4 ? 1 : 2) + " \u00b5s";
    return Math.round(ns) + " ns";
  }

  function fmtBytes(b) {
    var u = ["B", "KiB", "MiB", "GiB", "TiB"], i = 0;
    while (b >= 1024 && i < u.length - 1) { b /= 1024; i++; }
    return (i ? b.toFixed(1) : String(b)) + " " + u[i];
  }

  function fmtInt(n) {
    return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  }

  /* An issue's figure as figure_text.c writes it in the text report: an
     integer as it is, another number to 3 significant digits (from 100 up,
     to the unit), anything else as JSON. The page's data keeps it exact. */
  function fmtVal(v) {
    if (typeof v !== "number" || Number.isInteger(v)) return JSON.stringify(v);
    return Math.abs(v) >= 100 ? String(Math.round(v)) : String(Number(v.toPrecision(3)));
  }

  /* Nodes for a message or fix: each `span` between backticks a code
     element, the rest text; with an odd backtick, the text as written. */
  function richText(s) {
    var parts = String(s).split("`");
    if (parts.length % 2 === 0) return [String(s)];
    return parts.map(function (p, i) {
      return i % 2 ? el("code", {text: p}) : p;
    }).filter(function (n) { return n !== ""; });
  }

  /* ------------------------------------------------------------ header */

  /* D.issues: one entry per finding (a cause), its other issues in .symptoms */
  var nIssues = D.nissues !== undefined ? D.nissues : D.issues.length;
  var nFindings = D.issues.length;
  document.body.appendChild(el("header", {}, [
    el("h1", {text: "ioscope report"}),
    el("p", {text: nIssues + " issue" + (nIssues === 1 ? "" : "s") +
      (nIssues ? " (" + D.severities + ") as " + nFindings + " finding" +
        (nFindings === 1 ? "" : "s") : "") + " \u00b7 " +
      fmtInt(D.events) + " events \u00b7 " + D.procs.length + " process" +
      (D.procs.length === 1 ? "" : "es") + " \u00b7 " + D.threads.length + " thread" +
      (D.threads.length === 1 ? "" : "s") + " \u00b7 " + fmtNs(D.total.ns) +
      " in I/O calls over " + fmtNs(D.t_end) + " \u00b7 ioanalyze " + D.version})
  ]));
  document.body.appendChild(el("nav", {}, [
    el("a", {href: "#sec-timeline", text: "Timeline"}),
    el("a", {href: "#sec-issues", text: "Findings (" + nFindings + ")"}),
    el("a", {href: "#sec-files", text: "Files (" + D.files.length + ")"}),
    el("a", {href: "#sec-procs", text: "Processes"}),
    el("a", {href: "#sec-ops", text: "Calls by op"})
  ]));

  /* ------------------------------------------------------------ timeline */

  /* rows: each process's threads together, processes in the order seen,
     the main thread first */
  D.procs.forEach(function (p) { if (p.name === null) p.name = "pid " + p.pid; });
  D.threads.forEach(function (t) { if (t.name === null) t.name = "tid " + t.tid; });
  var rows = [], rowOfTid = {}, threadRow = [];
  D.procs.forEach(function (p) {
    var ts = [];
    D.threads.forEach(function (t, i) { if (t.pid === p.pid) ts.push(i); });
    ts.sort(function (a, b) {
      var x = D.threads[a], y = D.threads[b];
      return (x.tid !== p.pid) - (y.tid !== p.pid) || x.tid - y.tid;
    });
    ts.forEach(function (i) {
      var t = D.threads[i];
      rowOfTid[t.tid] = rows.length;
      threadRow[i] = rows.length;
      rows.push({t: t, proc: p, first: t.tid === p.pid || ts[0] === i});
    });
  });
  D.threads.forEach(function (t, i) {     /* threads of no known process */
    if (threadRow[i] === undefined) {
      rowOfTid[t.tid] = rows.length;
      threadRow[i] = rows.length;
      rows.push({t: t, proc: null, first: true});
    }
  });

  var full = Math.max(D.t_end, 1000);
  var view = {a: 0, b: 0};
  /* the whole trace, with a margin so that marks at its ends show whole */
  function whole() {
    view.a = -full * 0.01;
    view.b = full * 1.02;
  }
  whole();
  var sec = el("section", {id: "sec-timeline"});
  var canvas = el("canvas", {id: "timeline"});
  var tip = el("div", {id: "tip"});
  var wrap = el("div", {id: "timeline-wrap"}, [canvas, tip]);
  function zoomBy(f, at) {
    var span = view.b - view.a, c = at === undefined ? view.a + span / 2 : at;
    var ns = Math.min(full * 1.1, Math.max(1000, span * f));
    var left = (c - view.a) / span;
    view.a = c - ns * left;
    view.b = view.a + ns;
    draw();
  }
  sec.appendChild(el("h2", {text: "Timeline"}));
  sec.appendChild(el("div", {cls: "controls"}, [
    el("button", {text: "+", title: "zoom in", onclick: function () { zoomBy(0.5); }}),
    el("button", {text: "\u2212", title: "zoom out", onclick: function () { zoomBy(2); }}),
    el("button", {text: "whole trace", onclick: function () { whole(); draw(); }}),
    el("span", {cls: "hint", text: "Wheel to zoom, drag to pan, double-click for the whole trace. " +
      "Shaded bars: calls per " + fmtNs(D.bin_ns) + " (height: share of the time in calls). " +
      "Solid boxes: " + (D.calls.length < D.slow_max ? "every call" :
        "the " + fmtInt(D.calls.length) + " slowest calls") + ". Red marks: issues."})
  ]));
  sec.appendChild(el("div", {cls: "legend"}, [
    el("span", {}, [el("i", {style: "background:var(--read)"}), "reads"]),
    el("span", {}, [el("i", {style: "background:var(--write)"}), "writes"]),
    el("span", {}, [el("i", {style: "background:var(--other)"}), "other calls"]),
    el("span", {}, [el("i", {style: "background:var(--err)"}), "errors, issues"])
  ]));
  sec.appendChild(wrap);
  document.body.appendChild(sec);

  var css = getComputedStyle(document.documentElement);
  var color = {
    read: css.getPropertyValue("--read").trim() || "#2f6fd1",
    write: css.getPropertyValue("--write").trim() || "#e07b12",
    other: css.getPropertyValue("--other").trim() || "#7a56c2",
    err: css.getPropertyValue("--err").trim() || "#d12f2f"
  };
  /* an op's direction from its name: what moves data which way */
  var opDir = D.opnames.map(function (n) {
    if (/^(read|pread|readv|preadv|fread|fgets|getline|fgetc)/.test(n)) return "read";
    if (/^(write|pwrite|writev|pwritev|fwrite|fputs|fputc|fprintf|sendfile|copy_file_range)/.test(n))
      return "write";
    return "other";
  });

  var marks = [];          /* issue markers drawn: {x, y, i} */
  var W = 0, H = 0;

  function X(t) { return LABEL + (t - view.a) / (view.b - view.a) * (W - LABEL); }
  function T(x) { return view.a + (x - LABEL) / (W - LABEL) * (view.b - view.a); }

  function niceStep(span, px) {
    var raw = span / Math.max(1, px / 110), p = Math.pow(10, Math.floor(Math.log10(raw)));
    var m = raw / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
  }

  function draw() {
    var dpr = window.devicePixelRatio || 1;
    W = Math.max(400, wrap.clientWidth);
    H = AXIS + rows.length * ROW + 4;
    canvas.width = W * dpr;
    canvas.height = H * dpr;
    canvas.style.width = W + "px";
    canvas.style.height = H + "px";
    var g = canvas.getContext("2d");
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, W, H);
    g.font = "11px system-ui, sans-serif";
    g.textBaseline = "middle";

    /* the time axis */
    var step = niceStep(view.b - view.a, W - LABEL), t;
    g.fillStyle = "#667085";
    g.strokeStyle = "#eef1f5";
    for (t = Math.ceil(view.a / step) * step; t <= view.b; t += step) {
      var x = Math.round(X(t)) + 0.5;
      g.beginPath(); g.moveTo(x, AXIS - 4); g.lineTo(x, H); g.stroke();
      g.fillText(fmtNs(t), x + 3, AXIS / 2);
    }

    /* rows, then what happened on them, clipped to the plot */
    rows.forEach(function (r, i) {
      var y = AXIS + i * ROW;
      if (r.first && i) {
        g.fillStyle = "#d9dee7";
        g.fillRect(0, y, W, 1);
      }
      g.fillStyle = "#1d2330";
      var label = (r.t.tid === r.t.pid ? "" : "  ") + r.t.name + " [" + r.t.tid + "]";
      if (r.first && r.proc && r.t.tid !== r.t.pid) label = r.proc.name + " [" + r.proc.pid + "] " + label;
      g.save();
      g.beginPath(); g.rect(0, y, LABEL - 6, ROW); g.clip();
      g.fillText(label, 4, y + ROW / 2);
      g.restore();
    });
    g.save();
    g.beginPath(); g.rect(LABEL, AXIS, W - LABEL, H - AXIS); g.clip();

    var binNs = D.bin_ns, lo = Math.floor(view.a / binNs) - 1, hi = Math.ceil(view.b / binNs) + 1;
    D.threads.forEach(function (th, ti) {
      var y = AXIS + threadRow[ti] * ROW, bins = th.bins, k;
      for (k = 0; k < bins.length; k++) {
        var b = bins[k];
        if (b[0] < lo || b[0] > hi) continue;
        var x0 = X(b[0] * binNs), x1 = X((b[0] + 1) * binNs);
        var busy = Math.min(1, b[2] / binNs), h = Math.max(2, (ROW - 4) * busy);
        g.globalAlpha = 0.35 + 0.4 * Math.min(1, busy * 4);
        g.fillStyle = b[5] >= b[6] && b[5] ? color.read : b[6] ? color.write : color.other;
        g.fillRect(x0, y + ROW - 2 - h, Math.max(1, x1 - x0), h);
        if (b[4]) {
          g.fillStyle = color.err;
          g.fillRect(x0, y + 1, Math.max(1, x1 - x0), 2);
        }
      }
    });
    g.globalAlpha = 1;
    var shown = 0;
    D.calls.forEach(function (c) {
      if (c[1] + c[2] < view.a || c[1] > view.b) return;
      var x0 = X(c[1]), w = Math.max(1, X(c[1] + c[2]) - x0), y = AXIS + threadRow[c[0]] * ROW;
      g.fillStyle = c[7] ? color.err : color[opDir[c[3]]];
      g.fillRect(x0, y + 3, w, ROW - 6);
      shown++;
    });
    canvas.setAttribute("data-calls-drawn", String(shown));
    canvas.setAttribute("data-view", Math.round(view.a) + " " + Math.round(view.b));

    marks = [];
    D.issues.forEach(function (is, i) {
      if (is.t === undefined || rowOfTid[is.tid] === undefined) return;
      if (is.t < view.a || is.t > view.b) return;
      var x = X(is.t), y = AXIS + rowOfTid[is.tid] * ROW;
      g.fillStyle = color.err;
      g.beginPath();
      g.moveTo(x - 6, y); g.lineTo(x + 6, y); g.lineTo(x, y + 9); g.closePath();
      g.fill();
      marks.push({x: x, y: y + 4, i: i});
    });
    g.restore();
    document.body.setAttribute("data-marks", String(marks.length));
  }

  function callAt(x, y) {
    var row = Math.floor((y - AXIS) / ROW), best = null, bestD = 4;
    D.calls.forEach(function (c) {
      if (threadRow[c[0]] !== row) return;
      var x0 = X(c[1]), x1 = Math.max(x0 + 1, X(c[1] + c[2]));
      var d = x < x0 ? x0 - x : x > x1 ? x - x1 : 0;
      if (d < bestD) { bestD = d; best = c; }
    });
    return best;
  }

  function binAt(x, y) {
    var row = Math.floor((y - AXIS) / ROW), ti = threadRow.indexOf(row);
    if (ti < 0) return null;
    var idx = Math.floor(T(x) / D.bin_ns), bins = D.threads[ti].bins;
    for (var k = 0; k < bins.length; k++) if (bins[k][0] === idx) return bins[k];
    return null;
  }

  function tipText(x, y) {
    var m = marks.filter(function (m) { return Math.abs(m.x - x) < 7 && Math.abs(m.y - y) < 8; })[0];
    if (m) {
      var is = D.issues[m.i];
      return is.rule + " (click to see it)\n" + is.path + "\n" + is.message;
    }
    var c = callAt(x, y);
    if (c) {
      return D.opnames[c[3]] + (c[4] >= 0 ? " " + D.paths[c[4]] : "") + "\nat " + fmtNs(c[1]) +
        ", took " + fmtNs(c[2]) + (c[5] >= 0 ? "\nsize " + fmtInt(c[5]) : "") + "\nresult " + c[6] +
        (c[7] ? " (errno " + c[7] + ")" : "");
    }
    var b = binAt(x, y);
    if (b) {
      return fmtInt(b[1]) + " calls in " + fmtNs(D.bin_ns) + " from " + fmtNs(b[0] * D.bin_ns) +
        "\n" + fmtNs(b[2]) + " in calls, " + fmtBytes(b[3]) + " moved\n" + b[5] + " reads, " +
        b[6] + " writes" + (b[4] ? ", " + b[4] + " errors" : "");
    }
    return "";
  }

  var drag = null;
  canvas.addEventListener("mousedown", function (e) { drag = {x: e.clientX, a: view.a, b: view.b}; });
  window.addEventListener("mouseup", function () { drag = null; });
  canvas.addEventListener("mousemove", function (e) {
    var r = canvas.getBoundingClientRect(), x = e.clientX - r.left, y = e.clientY - r.top;
    if (drag) {
      var dt = (e.clientX - drag.x) / (W - LABEL) * (drag.b - drag.a);
      view.a = drag.a - dt;
      view.b = drag.b - dt;
      tip.style.display = "none";
      draw();
      return;
    }
    var text = x > LABEL && y > AXIS ? tipText(x, y) : "";
    tip.style.display = text ? "block" : "none";
    tip.textContent = text;
    tip.style.left = Math.min(x + 12, W - 300) + "px";
    tip.style.top = (y + 14) + "px";
  });
  canvas.addEventListener("mouseleave", function () { tip.style.display = "none"; });
  canvas.addEventListener("wheel", function (e) {
    var r = canvas.getBoundingClientRect(), x = e.clientX - r.left;
    if (x < LABEL) return;
    e.preventDefault();
    zoomBy(e.deltaY < 0 ? 0.8 : 1.25, T(x));
  }, {passive: false});
  canvas.addEventListener("dblclick", function () { whole(); draw(); });
  canvas.addEventListener("click", function (e) {
    var r = canvas.getBoundingClientRect(), x = e.clientX - r.left, y = e.clientY - r.top;
    var m = marks.filter(function (m) { return Math.abs(m.x - x) < 7 && Math.abs(m.y - y) < 8; })[0];
    if (m) showIssue(m.i);
  });
  window.addEventListener("resize", draw);

  /* ------------------------------------------------------------ issues */

  var isec = el("section", {id: "sec-issues"}, [el("h2", {text: "Findings, by impact"})]);
  var cards = [];
  function showIssue(i) {
    cards.forEach(function (c) { c.classList.remove("hl"); });
    cards[i].classList.add("hl");
    cards[i].scrollIntoView({block: "center"});
  }
  if (!nIssues) isec.appendChild(el("p", {text: "No issues."}));
  D.issues.forEach(function (is, i) {
    var figs = ["op", "opSize", "buffer", "cost", "repeat"].map(function (k) {
      return k + " " + is[k] + (k === "cost" ? " ms" : "");
    }).join(" \u00b7 ");
    var detail = Object.keys(is.detail || {}).map(function (k) {
      return k + "=" + fmtVal(is.detail[k]);
    }).join("  ");
    var impact = Object.keys(is.impact || {}).map(function (k) {
      return k + "=" + fmtVal(is.impact[k]);
    }).join("  ");
    var symptoms = (is.symptoms || []).map(function (sy) {
      var fig = Object.keys(sy.impact || {}).map(function (k) {
        return k + "=" + JSON.stringify(sy.impact[k]);
      }).join(" ");
      return el("li", {text: (sy.severity || "medium") + " \u00b7 " + sy.rule + " on " +
        (sy.path || "(no path)") + (fig ? ": " + fig : "")});
    });
    var card = el("div", {cls: "issue sev-" + (is.severity || "medium"), id: "issue-" + i}, [
      el("h3", {}, [el("span", {cls: "rule", text: (i + 1) + ". " + (is.severity || "medium") +
        ": " + is.rule + " (type " + is.type + ")"}), is.path || "(no path)"]),
      el("div", {cls: "where", text: "process " + is.process + " (pid " + is.pid + "), thread " +
        is.thread + " (tid " + is.tid + ")" + (is.t !== undefined ? ", at " + fmtNs(is.t) : "")}),
      el("div", {cls: "figs", text: "severity " + (is.severity || "medium") +
        (impact ? " \u00b7 impact: " + impact : "")}),
      el("div", {cls: "figs", text: figs}),
      detail ? el("div", {cls: "figs", text: detail}) : null,
      el("p", {}, richText(is.message)),
      is.fix ? el("div", {cls: "fix"}, [el("b", {text: "Fix: "})].concat(richText(is.fix))) : null,
      symptoms.length ? el("div", {cls: "symptoms"}, [el("b", {text: "Symptoms of the same cause:"}),
        el("ul", {}, symptoms)]) : null,
      is.stack ? el("pre", {text: is.stack}) : null,
      // where the file was opened, when the harmful calls are elsewhere: its top frames
      is.open_stack ? el("pre", {cls: "opened", text: "opened at:\n" +
        is.open_stack.split("\n").slice(0, 3).join("\n")}) : null,
      is.t !== undefined ? el("button", {text: "show in timeline", onclick: function () {
        var span = Math.max(full / 50, 10000);
        view.a = is.t - span / 2;
        view.b = is.t + span / 2;
        draw();
        document.getElementById("sec-timeline").scrollIntoView();
      }}) : null
    ]);
    cards.push(card);
    isec.appendChild(card);
  });
  document.body.appendChild(isec);

  /* ------------------------------------------------------------ tables */

  var LIMIT = 2000;    /* rows drawn at once; sorting covers them all */

  /* cols: [key, label, format] (no format: text, left-aligned) */
  function sortable(id, title, items, cols, sortKey) {
    var s = el("section", {id: id}, [el("h2", {text: title})]);
    var table = el("table"), thead = el("thead"), tbody = el("tbody");
    var note = el("p", {cls: "hint"});
    var state = {key: sortKey, asc: false};
    var ths = cols.map(function (c) {
      return el("th", {cls: c[2] ? "" : "text", text: c[1], onclick: function () {
        state.asc = state.key === c[0] ? !state.asc : !c[2];
        state.key = c[0];
        render();
      }});
    });
    function render() {
      var col = cols.filter(function (c) { return c[0] === state.key; })[0];
      var sorted = items.slice().sort(function (a, b) {
        var x = a[state.key], y = b[state.key];
        var r = col[2] ? x - y : String(x).localeCompare(String(y));
        return state.asc ? r : -r;
      });
      ths.forEach(function (th, i) {
        th.className = (cols[i][2] ? "" : "text") + (cols[i][0] === state.key ?
          " sorted" + (state.asc ? " asc" : "") : "");
      });
      tbody.textContent = "";
      sorted.slice(0, LIMIT).forEach(function (it) {
        tbody.appendChild(el("tr", {}, cols.map(function (c) {
          return el("td", {cls: c[2] ? "" : c[0] === "path" ? "path" : "text",
            text: c[2] ? c[2](it[c[0]]) : String(it[c[0]])});
        })));
      });
      note.textContent = items.length > LIMIT ? "The first " + LIMIT + " of " + items.length +
        " rows in this order." : items.length + " row" + (items.length === 1 ? "" : "s") + ".";
    }
    thead.appendChild(el("tr", {}, ths));
    table.appendChild(thead);
    table.appendChild(tbody);
    s.appendChild(el("div", {cls: "table-wrap"}, [table]));
    s.appendChild(note);
    render();
    document.body.appendChild(s);
    return tbody;
  }

  function flat(o) {
    var r = {}, k;
    for (k in o) if (k !== "sum") r[k] = o[k];
    for (k in o.sum || {}) r[k] = o.sum[k];
    r.avg_ns = r.calls ? r.ns / r.calls : 0;
    return r;
  }

  var sums = [["ns", "time", fmtNs], ["calls", "calls", fmtInt], ["errors", "errors", fmtInt],
    ["reads", "reads", fmtInt], ["writes", "writes", fmtInt], ["read_bytes", "read", fmtBytes],
    ["write_bytes", "written", fmtBytes]];
  var files = sortable("sec-files", "Files", D.files.map(flat),
    [["path", "path"]].concat(sums, [["opens", "opens", fmtInt], ["processes", "processes", fmtInt]]),
    "ns");
  sortable("sec-procs", "Processes", D.procs.map(flat),
    [["pid", "pid", String], ["name", "process"]].concat(sums), "ns");
  sortable("sec-ops", "Calls by op", D.ops.map(flat),
    [["op", "op"], ["ns", "time", fmtNs], ["calls", "calls", fmtInt], ["avg_ns", "per call", fmtNs],
     ["errors", "errors", fmtInt], ["bytes", "bytes", fmtBytes]], "ns");

  draw();
  document.body.setAttribute("data-rows", String(rows.length));
  document.body.setAttribute("data-issues", String(cards.length));
  document.body.setAttribute("data-files", String(files.children.length));
  document.body.setAttribute("data-ready", "1");
})();
