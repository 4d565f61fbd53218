#!/bin/sh
# ioanalyze --format html: one self-contained page. Its structure and data
# are checked everywhere (one data element holding the expected processes,
# threads, calls, files and issues; nothing fetched from anywhere; a path
# holding "</script>" cannot end the data early). Where Debian's chromium is
# installed, the page is loaded headless from file://: it must draw without a
# console message or script error, with one timeline row per thread and one
# card per issue, and its screenshot is kept in $BUILD/test-artifacts/.
# e2e: slow (about 10 s here: draws the page in chromium)
. "$(dirname "$0")/lib.sh"
need_built "$IOANALYZE"
have python3 || skip "python3 is needed to read the page's data"
work_dir report_html

cat >"$work/in.jsonl" <<'JSONL'
{"ev":"process","t":0,"pid":100,"ppid":1,"exe":"/usr/bin/app","cmdline":["app"],"start_unix_ns":1763800000000000000}
{"ev":"thread","t":0,"pid":100,"tid":101,"name":"worker"}
{"ev":"call","t":1000,"pid":100,"tid":100,"op":"open","dur":5000,"ret":3,"path":"/data/a","flags":0,"stack":"main+0x2a (/usr/bin/app)"}
{"ev":"call","t":10000,"pid":100,"tid":101,"op":"read","dur":2000,"ret":4096,"fd":3,"size":4096}
{"ev":"call","t":20000,"pid":100,"tid":101,"op":"read","dur":1500,"ret":100,"fd":3,"size":4096}
{"ev":"call","t":30000,"pid":100,"tid":100,"op":"open","dur":1000,"ret":-1,"errno":2,"path":"/data/</script><b>x","flags":0}
{"ev":"process","t":40000,"pid":200,"ppid":100,"exe":"/usr/bin/helper","cmdline":["helper"],"start_unix_ns":1763800000000040000}
{"ev":"call","t":50000,"pid":200,"tid":200,"op":"open","dur":1000,"ret":3,"path":"/data/b","flags":1}
{"ev":"call","t":60000,"pid":200,"tid":200,"op":"write","dur":3000,"ret":10,"fd":3,"size":10}
{"ev":"call","t":70000,"pid":200,"tid":200,"op":"close","dur":500,"ret":0,"fd":3}
{"ev":"exit","t":80000,"pid":200,"status":0}
{"ev":"exit","t":2000000,"pid":100,"status":0}
JSONL

"$IOANALYZE" --format html --set leak.min_count=1 "$work/in.jsonl" >"$work/report.html" 2>"$work/err" ||
    die "exit $?: $(cat "$work/err")"
# Self-contained: nothing names another place to load from (the SVG
# namespace, which the charts' script names, is an identifier, not a place).
! sed 's#http://www.w3.org/2000/svg##g' "$work/report.html" |
    grep -Eq 'https?://|<(link|img|iframe)[ >]|<script[^>]* src=' ||
    die "the page refers to something outside it"
[ "$(grep -c '<script' "$work/report.html")" -eq 2 ] || die "not two script elements"
python3 - "$work/report.html" <<'EOF' || die "the page's data is not as expected"
import json, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'<script id="ioscope-data" type="application/json">(.*?)</script>', page, re.S)
assert m, "no data element"
d = json.loads(m.group(1))
assert d["events"] == 12, d["events"]
assert [(p["pid"], p["name"], p["sum"]["calls"]) for p in d["procs"]] == [(100, "app", 4), (200, "helper", 3)]
assert sorted((t["tid"], t["name"]) for t in d["threads"]) == [(100, "app"), (101, "worker"), (200, "helper")]
assert len(d["calls"]) == 7, d["calls"]
files = {f["path"]: (f["calls"], f["reads"], f["writes"], f["read_bytes"], f["write_bytes"], f["errors"])
         for f in d["files"]}
assert files == {"/data/a": (3, 2, 0, 4196, 0, 0), "/data/</script><b>x": (1, 0, 0, 0, 0, 1),
                 "/data/b": (3, 0, 1, 0, 10, 0)}, files
assert [(i["rule"], i["path"], i["t"]) for i in d["issues"]] == [("leak", "/data/a", 2000000)], d["issues"]
assert d["issues"][0]["fix"].startswith("Close the file"), d["issues"][0]
ops = {o["op"]: (o["calls"], o["errors"], o["ns"], o["bytes"]) for o in d["ops"]}
assert ops == {"open": (3, 1, 7000, 0), "read": (2, 0, 3500, 4196), "write": (1, 0, 3000, 10),
               "close": (1, 0, 500, 0)}, ops
EOF

# A path that is not all UTF-8 (an strace log's octal escapes): its valid
# characters are kept and only the stray byte becomes U+FFFD, as in JSONL.
printf '%s\n' '100 openat(AT_FDCWD, "/data/caf\303\251\377", O_RDONLY) = 3 <0.000010>' \
    '100 read(3, "abc", 4096) = 3 <0.000005>' '100 close(3) = 0 <0.000001>' \
    '100 +++ exited with 0 +++' >"$work/utf8.log"
"$IOANALYZE" --format html "$work/utf8.log" >"$work/utf8.html" 2>"$work/err" ||
    die "exit $?: $(cat "$work/err")"
python3 - "$work/utf8.html" <<'EOF' || die "a path with a stray byte is not shown as JSONL shows it"
import json, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'<script id="ioscope-data" type="application/json">(.*?)</script>', page, re.S)
d = json.loads(m.group(1))
paths = [f["path"] for f in d["files"]]
assert paths == ["/data/caf\u00e9\ufffd"], paths
EOF

# The page in a real browser, where one is installed (Debian: apt-get install chromium).
browser=
# Findings: a database that syncs its journal (30 x 5 ms), itself (30 x 2
# ms) and its directory (30 x 1 ms) per commit, and a leak: two findings,
# by modelled impact. The database's and the journal's syncs cost the same
# by the model (30 syncs of 100 bytes each), so the one that ended first,
# the database's, leads, with the journal's and the directory's as
# symptoms (same process, file unit and stack).
{
    echo '{"ev":"process","t":0,"pid":7,"ppid":1,"exe":"/usr/bin/dbapp","cmdline":["dbapp"],"start_unix_ns":1763800000000000000}'
    echo '{"ev":"call","t":1000,"pid":7,"tid":7,"op":"open","dur":1000,"ret":3,"path":"/data/kept","flags":0}'
    echo '{"ev":"call","t":2000,"pid":7,"tid":7,"op":"open","dur":1000,"ret":4,"path":"/data/db","flags":2}'
    echo '{"ev":"call","t":3000,"pid":7,"tid":7,"op":"open","dur":1000,"ret":5,"path":"/data/db-journal","flags":2}'
    i=0 t=10000
    while [ $i -lt 30 ]; do
        echo '{"ev":"call","t":'$t',"pid":7,"tid":7,"op":"write","dur":1000,"ret":100,"fd":5,"size":100}'
        echo '{"ev":"call","t":'$((t + 2000))',"pid":7,"tid":7,"op":"fsync","dur":5000000,"ret":0,"fd":5}'
        echo '{"ev":"call","t":'$((t + 5010000))',"pid":7,"tid":7,"op":"write","dur":1000,"ret":100,"fd":4,"size":100}'
        echo '{"ev":"call","t":'$((t + 5020000))',"pid":7,"tid":7,"op":"fsync","dur":2000000,"ret":0,"fd":4}'
        echo '{"ev":"call","t":'$((t + 7030000))',"pid":7,"tid":7,"op":"open","dur":1000,"ret":6,"path":"/data","flags":65536}'
        echo '{"ev":"call","t":'$((t + 7040000))',"pid":7,"tid":7,"op":"fsync","dur":1000000,"ret":0,"fd":6}'
        echo '{"ev":"call","t":'$((t + 8050000))',"pid":7,"tid":7,"op":"close","dur":1000,"ret":0,"fd":6}'
        i=$((i + 1)) t=$((t + 9000000))
    done
    echo '{"ev":"call","t":'$t',"pid":7,"tid":7,"op":"close","dur":1000,"ret":0,"fd":4}'
    echo '{"ev":"call","t":'$((t + 1000))',"pid":7,"tid":7,"op":"close","dur":1000,"ret":0,"fd":5}'
    echo '{"ev":"exit","t":'$((t + 2000))',"pid":7,"status":0}'
} >"$work/rank.jsonl"
"$IOANALYZE" --format html --rules sync_storm,leak --set leak.min_count=1 "$work/rank.jsonl" \
    >"$work/rank.html" 2>"$work/err" || die "exit $?: $(cat "$work/err")"
python3 - "$work/rank.html" <<'EOF' || die "the findings' data is not as expected"
import json, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r'<script id="ioscope-data" type="application/json">(.*?)</script>', page, re.S)
d = json.loads(m.group(1))
assert d["nissues"] == 4 and d["severities"] == "3 high, 1 medium", (d["nissues"], d["severities"])
f = [(i["rule"], i["path"], [(s["rule"], s["path"]) for s in i["symptoms"]]) for i in d["issues"]]
assert f == [("sync_storm", "/data/db", [("sync_storm", "/data/db-journal"), ("sync_storm", "/data")]),
             ("leak", "/data/kept", [])], f
assert d["issues"][0]["fix"].startswith("Each commit syncs the database and its journal"), d["issues"][0]["fix"]
EOF

for b in chromium chromium-browser google-chrome; do
    have "$b" && browser=$b && break
done
[ -n "$browser" ] || skip "structure checked; no chromium to load the page in"
mkdir -p "$work/profile"
# --no-sandbox: CI runs as root, where chromium's sandbox refuses to start.
run_browser() {
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$work/profile" \
        --enable-logging=stderr --v=0 --window-size=1400,1000 "$@" "file://$work/report.html"
}
run_browser --dump-dom >"$work/dom" 2>"$work/browser.err" || die "$browser exited with $?"
if grep -q 'CONSOLE' "$work/browser.err"; then
    die "console messages: $(grep CONSOLE "$work/browser.err")"
fi
body=$(grep -o '<body[^>]*>' "$work/dom")
for want in 'data-ready="1"' 'data-rows="3"' 'data-issues="1"' 'data-files="3"' 'data-marks="1"'; do
    case $body in *"$want"*) ;; *) die "drawn page lacks $want: $body" ;; esac
done
case $body in *data-errors*) die "script errors: $body" ;; esac
# the findings' page: one card per finding, its symptoms listed in it
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$work/profile" \
    --enable-logging=stderr --v=0 --window-size=1400,1000 --dump-dom "file://$work/rank.html" \
    >"$work/rdom" 2>"$work/rank.err" || die "$browser exited with $?"
! grep -q 'CONSOLE' "$work/rank.err" || die "console messages: $(grep CONSOLE "$work/rank.err")"
grep -q 'data-issues="2"' "$work/rdom" || die "not two finding cards: $(grep -o '<body[^>]*>' "$work/rdom")"
grep -q 'Symptoms of the same cause' "$work/rdom" || die "no symptoms in the first card"
grep -q '1\. high: sync_storm (type 9)' "$work/rdom" || die "no ranked heading"
# Zoomed in with the wheel (events sent by a script added to a copy): the
# range shown narrows around the pointer, and still nothing is logged.
sed 's#</body>#<script>var c = document.getElementById("timeline"), r = c.getBoundingClientRect();\
for (var i = 0; i < 10; i++) c.dispatchEvent(new WheelEvent("wheel", {deltaY: -100, bubbles: true,\
    cancelable: true, clientX: r.left + r.width / 2, clientY: r.top + 40}));</script></body>#' \
    "$work/report.html" >"$work/zoom.html"
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$work/profile" \
    --enable-logging=stderr --v=0 --window-size=1400,1000 --dump-dom "file://$work/zoom.html" \
    >"$work/zdom" 2>"$work/zoom.err" || die "$browser exited with $?"
! grep -q 'CONSOLE' "$work/zoom.err" || die "console messages on zoom: $(grep CONSOLE "$work/zoom.err")"
before=$(grep -o 'data-view="[^"]*"' "$work/dom")
after=$(grep -o 'data-view="[^"]*"' "$work/zdom")
python3 - "$before" "$after" <<'EOF' || die "the wheel did not zoom: $before -> $after"
import sys
a0, b0 = map(float, sys.argv[1].split('"')[1].split())
a1, b1 = map(float, sys.argv[2].split('"')[1].split())
assert a0 < a1 < b1 < b0 and (b1 - a1) < (b0 - a0) / 5, (a0, b0, a1, b1)
EOF
mkdir -p "$BUILD/test-artifacts"
run_browser --screenshot="$BUILD/test-artifacts/report_html.png" >/dev/null 2>&1 ||
    die "no screenshot"
[ -s "$BUILD/test-artifacts/report_html.png" ] || die "empty screenshot"
echo "report_html: data as expected; drawn by $browser with no console message" \
    "(screenshot: $BUILD/test-artifacts/report_html.png)"
