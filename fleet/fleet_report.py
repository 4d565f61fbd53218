"""fleet_report.py - the fleet report (fleet_reduce.Reducer.report) and the
fleet diff written as JSON, CSV, text or one self-contained HTML page."""
import csv
import html
import json

CSV_COLUMNS = ("rank", "fingerprint", "rule", "severity", "traces", "share", "hosts",
               "first_seen", "last_seen", "total_time_ms", "median_time_ms",
               "worst_trace", "labels", "message")


def _shown_char(ch):
    """One character as text_one in common/text.c shows it."""
    o = ord(ch)
    if 0x20 <= o < 0x7f and ch != "\\":
        return ch
    if ch in _ESCAPES:
        return _ESCAPES[ch]
    if o < 0x20 or o == 0x7f:
        return "\\x%02x" % o
    if 0xdc80 <= o <= 0xdcff:           # a byte that was not UTF-8 (surrogateescape)
        return "\\x%02x" % (o - 0xdc00)
    if (0x80 <= o <= 0x9f or 0x202a <= o <= 0x202e or 0x2066 <= o <= 0x2069
            or o in (0x2028, 0x2029) or 0xd800 <= o <= 0xdfff):
        return "\\u%04x" % o
    return ch


_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\x1b": "\\e"}


def shown(value):
    """A string from a trace as every text output shows it: the rule of
    iot_text_write (common/text.c; docs/analyzer.md, "Text output and
    hostile bytes"): no control character reaches a terminal."""
    return "".join(_shown_char(ch) for ch in str(value))


def csv_cell(value):
    """A cell of every CSV the project writes (docs/analyzer.md, "CSV
    cells"), as iot_csv_write (common/text.c) writes it: the text form
    above, then a ' before a leading = + - @ (a spreadsheet formula; tab and
    CR are escaped already); csv.writer adds RFC 4180's quoting. Numbers
    stay numbers."""
    if not isinstance(value, str):
        return value
    cell = shown(value)
    return "'" + cell if cell[:1] in ("=", "+", "-", "@") else cell


def write_json(f, rep):
    json.dump(rep, f, indent=2)
    f.write("\n")


def label_text(labels):
    """{"version": {"1.2": 3}} as "version=1.2:3"; pairs ';'-separated."""
    return ";".join("%s=%s:%d" % (k, v, n) for k, by in labels.items() for v, n in by.items())


def write_csv(f, rep):
    w = csv.writer(f, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    for i, o in enumerate(rep["issues"], 1):
        w.writerow([csv_cell(v) for v in (
            i, o["fingerprint"], o["rule"], o["severity"] or "", o["traces"],
            o["share"], o["hosts"], o["first_seen"] or "", o["last_seen"] or "",
            o["impact"]["total_time_ms"], o["impact"]["median_time_ms"]
            if o["impact"]["median_time_ms"] is not None else "",
            o["worst"]["trace"], label_text(o["labels"]), o["message"])])


def summary_line(rep):
    return ("%d traces: %d analysed, %d not (%d damaged but read), %d outside the "
            "selection; %d hosts; %d fingerprints"
            % (rep["traces"], rep["analysed"], rep["failed"], rep["damaged"],
               rep["skipped"], rep["hosts"], len(rep["issues"])))


def write_text(f, rep):
    f.write(summary_line(rep) + "\n")
    for i, o in enumerate(rep["issues"], 1):
        med = o["impact"]["median_time_ms"]
        f.write("\n%d. %s %s [%s] in %d traces (%.1f%%), %d hosts; median %s, total %.1f ms\n"
                % (i, shown(o["rule"]), shown(o["fingerprint"]), o["severity"] or "-", o["traces"],
                   100.0 * o["share"], o["hosts"],
                   "-" if med is None else "%.1f ms" % med, o["impact"]["total_time_ms"]))
        f.write("   %s\n" % shown(o["message"]))
        for k, by in o["labels"].items():
            f.write("   %s: %s\n" % (shown(k), ", ".join("%s %d" % (shown(v), n)
                                                        for v, n in by.items())))
        f.write("   worst: %s\n" % shown(o["worst"]["trace"]))
    for e in rep["errors"]:
        f.write("not analysed: %s: %s\n" % (shown(e["trace"]), shown(e["error"])))


PAGE_CSS = """body{font:14px system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;width:100%}td,th{padding:4px 8px;border-bottom:1px solid #ddd;
text-align:left;vertical-align:top}th{background:#f4f4f4}.bar{display:inline-block;height:10px;
background:#4a7fd0;margin-right:4px}.lab{font-size:12px;white-space:nowrap}.msg{font-size:12px;
color:#555}.high{color:#b00}.medium{color:#b60}.low{color:#666}code{font-size:12px}"""


def bar(fraction, width=120):
    return '<span class="bar" style="width:%dpx"></span>' % max(1, round(fraction * width))


def write_html(f, rep):
    e = html.escape
    f.write("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>ioscope fleet report"
            "</title><style>%s</style></head><body>\n" % PAGE_CSS)
    f.write("<h1>ioscope fleet report</h1>\n<p>%s</p>\n" % e(summary_line(rep)))
    f.write("<p>Ranked by prevalence &times; impact: the share of traces that show the issue "
            "times its median time in the harmful calls.</p>\n<table>\n<tr><th>#</th>"
            "<th>issue</th><th>prevalence</th><th>impact (median / total)</th>"
            "<th>per label</th><th>worst example</th></tr>\n")
    totals = rep["labels"]
    for i, o in enumerate(rep["issues"], 1):
        med = o["impact"]["median_time_ms"]
        labs = []
        for k, by in o["labels"].items():
            for v, n in by.items():
                of = totals.get(k, {}).get(v, 0) or 1
                labs.append('<div class="lab">%s %s=%s %d/%d</div>'
                            % (bar(n / of, 80), e(k), e(v), n, of))
        f.write("<tr><td>%d</td><td><b>%s</b> <span class=\"%s\">%s</span><br><code>%s</code>"
                "<div class=\"msg\">%s</div></td><td>%s %d traces (%.1f%%), %d hosts</td>"
                "<td>%s / %.1f ms</td><td>%s</td><td><code>%s</code></td></tr>\n"
                % (i, e(o["rule"]), e(o["severity"] or ""), e(o["severity"] or ""),
                   e(o["fingerprint"]), e(o["message"]), bar(o["share"]), o["traces"],
                   100.0 * o["share"], o["hosts"], "-" if med is None else "%.1f ms" % med,
                   o["impact"]["total_time_ms"], "".join(labs), e(o["worst"]["trace"] or "")))
    f.write("</table>\n")
    if rep["errors"]:
        f.write("<h2>Traces not analysed</h2>\n<ul>\n")
        for x in rep["errors"]:
            f.write("<li><code>%s</code>: %s</li>\n" % (e(x["trace"]), e(x["error"])))
        f.write("</ul>\n")
    f.write("</body></html>\n")


def write_diff(f, fmt, d, base_label, cur_label):
    d = dict(d, baseline=base_label, current=cur_label)
    if fmt == "json":
        json.dump(d, f, indent=2)
        f.write("\n")
        return
    if fmt == "csv":
        w = csv.writer(f, lineterminator="\n")
        w.writerow(("change", "fingerprint", "rule", "base_traces", "base_share",
                    "cur_traces", "cur_share", "z", "p"))
        for change in ("new", "rising", "gone"):
            for r in d[change]:
                w.writerow([csv_cell(v) for v in (
                    change, r["fingerprint"], r["rule"], r["base_traces"],
                    r["base_share"], r["cur_traces"], r["cur_share"],
                    r.get("z", ""), r.get("p", ""))])
        return
    f.write("fleet diff: %s (%d traces) against %s (%d traces); rising: one-sided "
            "two-proportion z-test p < %g, at least %d traces\n"
            % (shown(cur_label), d["cur_traces"], shown(base_label), d["base_traces"], d["level"],
               d["min_traces"]))
    for change in ("new", "rising", "gone"):
        for r in d[change]:
            f.write("%-6s %s %s: %d/%d traces -> %d/%d%s\n"
                    % (change, shown(r["rule"]), shown(r["fingerprint"]), r["base_traces"],
                       d["base_traces"],
                       r["cur_traces"], d["cur_traces"],
                       "" if "z" not in r else " (z %.2f, p %.3g)" % (r["z"], r["p"])))
    f.write("%d new, %d rising, %d gone, %d steady\n"
            % (len(d["new"]), len(d["rising"]), len(d["gone"]), d["steady"]))


WRITERS = {"json": write_json, "csv": write_csv, "text": write_text, "html": write_html}
