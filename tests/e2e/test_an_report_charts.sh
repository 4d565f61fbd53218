#!/bin/sh
# The HTML report's charts: the data they draw is the trace's (request
# sizes per power of two, the randomly read file's offsets with its exact
# count of calls and jumps, a sequentially written file left out), the page
# stays one offline file, and in headless chromium the charts render: each
# chart's plot area in a screenshot holds the chart's colors, where the same
# page with the charts' data emptied holds none (pixels read with PIL).
# e2e: slow (about 20 s here: draws two pages in chromium)
. "$(dirname "$0")/lib.sh"
need_built "$IOANALYZE"
have python3 || skip "python3 is needed"
work_dir report-charts

# One process: 300 preads of 4 KiB at offsets that jump about a 4 MiB
# file, 64 sequential writes of 512 bytes to a log, 10 of 64 KiB to an
# archive.
python3 - "$work/in.jsonl" <<'PY'
import json, sys
ev = [{"ev": "process", "t": 0, "pid": 9, "ppid": 1, "exe": "/usr/bin/db", "cmdline": ["db"],
       "start_unix_ns": 1763800000000000000},
      {"ev": "call", "t": 1000, "pid": 9, "tid": 9, "op": "open", "dur": 1000, "ret": 3,
       "path": "/data/index.db", "flags": 0},
      {"ev": "call", "t": 2000, "pid": 9, "tid": 9, "op": "open", "dur": 1000, "ret": 4,
       "path": "/data/app.log", "flags": 1089},
      {"ev": "call", "t": 3000, "pid": 9, "tid": 9, "op": "open", "dur": 1000, "ret": 5,
       "path": "/data/archive", "flags": 577}]
t = 10000
for i in range(300):
    off = (i * 7919 % 1024) * 4096
    ev.append({"ev": "call", "t": t, "pid": 9, "tid": 9, "op": "pread", "dur": 20000,
               "ret": 4096, "fd": 3, "size": 4096, "offset": off})
    t += 30000
    if i % 5 == 0 and i < 320:
        ev.append({"ev": "call", "t": t, "pid": 9, "tid": 9, "op": "write", "dur": 3000,
                   "ret": 512, "fd": 4, "size": 512})
        t += 5000
for i in range(10):
    ev.append({"ev": "call", "t": t, "pid": 9, "tid": 9, "op": "write", "dur": 50000,
               "ret": 65536, "fd": 5, "size": 65536})
    t += 60000
for fd in (3, 4, 5):
    ev.append({"ev": "call", "t": t, "pid": 9, "tid": 9, "op": "close", "dur": 1000, "ret": 0, "fd": fd})
    t += 2000
ev.append({"ev": "exit", "t": t, "pid": 9, "status": 0})
with open(sys.argv[1], "w") as f:
    f.write("".join(json.dumps(e) + "\n" for e in ev))
PY
"$IOANALYZE" --format html "$work/in.jsonl" >"$work/report.html" 2>"$work/err" ||
    die "exit $?: $(cat "$work/err")"
! sed 's#http://www.w3.org/2000/svg##g' "$work/report.html" |
    grep -Eq 'https?://|<(link|img|iframe)[ >]|<script[^>]* src=' ||
    die "the page refers to something outside it"
python3 - "$work/report.html" "$work/empty.html" <<'PY' || die "the charts' data"
import json, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'(<script id="ioscope-data" type="application/json">)(.*?)(</script>)', page, re.S)
d = json.loads(m.group(2))
# 2^12 = 4096 (300 reads), 2^9 = 512 (60 writes), 2^16 = 65536 (10 writes)
assert d["sizes"] == {"read": [[12, 300]], "write": [[9, 60], [16, 10]]}, d["sizes"]
# the index: 300 calls, each but the first starting elsewhere than the last
# ended (i*7919 mod 1024 never steps by one page); the log and the archive
# are written in order and are not charted
assert [(o["path"], o["accesses"], o["jumps"]) for o in d["offsets"]] == [("/data/index.db", 300, 299)], \
    [(o["path"], o["accesses"], o["jumps"]) for o in d["offsets"]]
pts = d["offsets"][0]["points"]
# points kept from the 4th jump on (report_access.c), in time order, as pread put them
assert len(pts) == 300 - 4 and all(p[2] == 4096 and p[3] == 0 for p in pts), pts[:3]
assert [p[1] for p in pts] == [(i * 7919 % 1024) * 4096 for i in range(4, 300)]
assert all(a[0] < b[0] for a, b in zip(pts, pts[1:]))
# the blank: the same page, nothing for the charts to draw
for f in d["files"]:
    f["ns"] = f["read_bytes"] = f["write_bytes"] = 0
d["files"], d["sizes"], d["offsets"] = [], {"read": [], "write": []}, []
open(sys.argv[2], "w", encoding="utf-8").write(
    page[:m.start(2)] + json.dumps(d).replace("<", "\\u003c") + page[m.end(2):])
PY

browser=
for b in chromium chromium-browser google-chrome; do
    have "$b" && browser=$b && break
done
[ -n "$browser" ] || { echo "SKIP browser: no chromium to draw the charts in (Debian: apt-get install chromium)"; exit $fail; }
PY_PIL=
for p in python3 /usr/bin/python3; do
    $p -c 'import PIL' 2>/dev/null && PY_PIL=$p && break
done
[ -n "$PY_PIL" ] || { echo "SKIP pixels: no python with PIL (Debian: python3-pil)"; exit $fail; }
mkdir -p "$work/profile"
# draw PAGE: its DOM after the scripts ran in $work/PAGE.dom, its screenshot
# in $work/PAGE.png (the window tall enough for every chart)
draw() {
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$work/profile" \
        --enable-logging=stderr --v=0 --window-size=1400,2400 --dump-dom "file://$work/$1.html" \
        >"$work/$1.dom" 2>"$work/$1.err" || die "$browser exited with $?"
    ! grep -q 'CONSOLE' "$work/$1.err" || not_ok "$1: console messages: $(grep CONSOLE "$work/$1.err")"
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$work/profile" \
        --window-size=1400,2400 --screenshot="$work/$1.png" "file://$work/$1.html" >/dev/null 2>&1 ||
        die "$browser: no screenshot of $1"
}
draw report
draw empty
$PY_PIL - "$work/report.dom" "$work/report.png" "$work/empty.dom" "$work/empty.png" <<'PY' || not_ok "the charts did not render"
import html, json, re, sys
from PIL import Image

def body(path):
    tag = re.search(r"<body[^>]*>", open(path, encoding="utf-8").read()).group(0)
    return dict((k, html.unescape(v)) for k, v in re.findall(r'([\w-]+)="([^"]*)"', tag))

COLORS = {"time": (0x7a, 0x56, 0xc2), "read": (0x2f, 0x6f, 0xd1), "write": (0xe0, 0x7b, 0x12)}
def count(img, box, rgb):
    region = img.crop((box["x"], box["y"], box["x"] + box["w"], box["y"] + box["h"]))
    return sum(1 for p in region.getdata() if all(abs(a - b) <= 12 for a, b in zip(p[:3], rgb)))

b = body(sys.argv[1])
assert b.get("data-ready") == "1" and "data-errors" not in b, b
assert b["data-charts"] == "4", b["data-charts"]
boxes = json.loads(b["data-chart-boxes"])
assert [x["chart"] for x in boxes] == ["files-time", "files-bytes", "sizes", "offsets-0"], boxes
img = Image.open(sys.argv[2]).convert("RGB")
assert all(x["y"] + x["h"] <= img.size[1] for x in boxes), (boxes, img.size)
want = {"files-time": {"time": 500}, "files-bytes": {"read": 300, "write": 300},
        "sizes": {"read": 300, "write": 300}, "offsets-0": {"read": 296 * 2}}
found = {x["chart"]: {c: count(img, x, COLORS[c]) for c in want[x["chart"]]} for x in boxes}
for chart, need in want.items():
    for c, n in need.items():
        assert found[chart][c] >= n, (chart, c, found[chart][c], n)
# the blank page: no chart, and not one pixel of a chart's colors where they were
e = body(sys.argv[3])
assert e["data-charts"] == "0" and e.get("data-ready") == "1", e
blank = Image.open(sys.argv[4]).convert("RGB")
for x in boxes:
    for c in want[x["chart"]]:
        assert count(blank, x, COLORS[c]) == 0, ("blank", x["chart"], c)
print("charts drawn: " + ", ".join("%s %s" % (k, v) for k, v in sorted(found.items())))
PY
mkdir -p "$BUILD/test-artifacts" && cp "$work/report.png" "$BUILD/test-artifacts/report_charts.png"
[ $fail = 0 ] && echo "ok   the report's charts render in $browser (screenshot: $BUILD/test-artifacts/report_charts.png)"
exit $fail
