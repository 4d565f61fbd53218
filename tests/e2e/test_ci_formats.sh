#!/bin/sh
# What the gate writes: diff --format text|markdown|junit|sarif|json on the
# strace fixtures and on hand-made issue files (exact lines; hostile
# strings stay text in markdown and XML), analyze -o FORMAT=FILE (each file
# what --format writes, stdout unchanged), analyze --ci (accepted, changes
# nothing: no judgement rests on time) and diff --ci's margin: which new or fixed
# findings count as unchanged.
. "$(dirname "$0")/lib.sh"
FX=$TOP/tests/fixtures/strace
need_built "$IOANALYZE"
have python3 || skip "python3 is needed"
work_dir ci-formats
cd "$work" || exit 1

# the fixtures' one-off leaks shown (leak.min_count 1), as test_ci_diff.sh does
"$IOANALYZE" --set leak.min_count=1 "$FX/ci_v1.log" >v1.json 2>/dev/null || not_ok "analyze v1"
"$IOANALYZE" --set leak.min_count=1 "$FX/ci_v2.log" >v2.json 2>/dev/null || not_ok "analyze v2"

# expect STATUS FILE CMD...: run with stdout to FILE, compare the status
expect() {
    want=$1 file=$2; shift 2
    "$@" >"$file" 2>err
    got=$?
    [ "$got" -eq "$want" ] || not_ok "'$*' exited $got, expected $want: $(cat err)"
}

# text: counts, the new issues, the fixed ones
expect 1 diff.txt "$IOANALYZE" diff --format text v1.json v2.json
cat >want.txt <<'TXT'
ioscope diff: 1 new, 1 fixed, 1 unchanged
new:
  [medium] leak /srv/leak2.txt
      this file was opened and never closed before process ciapp exited; close it when done (fclose/close)
fixed:
  [medium] small_buffer /srv/app.log
      16-byte writes: 25 write() calls on the main thread; use a buffer of at least 4096 bytes
TXT
cmp -s want.txt diff.txt || not_ok "text diff: $(diff want.txt diff.txt)"
grep -qx "diff: 1 new, 1 fixed, 1 unchanged (new: leak 1)" err || not_ok "summary: $(cat err)"

# markdown
expect 1 diff.md "$IOANALYZE" diff -f markdown v1.json v2.json
cat >want.md <<'MD'
### ioscope: 1 new I/O issue

1 new, 1 fixed, 1 unchanged.

**New**

| severity | rule | file | stack top | what |
|---|---|---|---|---|
| medium | leak | /srv/leak2.txt | - | this file was opened and never closed before process ciapp exited; close it when done (fclose/close) |

**Fixed**

| severity | rule | file | stack top | what |
|---|---|---|---|---|
| medium | small_buffer | /srv/app.log | - | 16-byte writes: 25 write() calls on the main thread; use a buffer of at least 4096 bytes |
MD
cmp -s want.md diff.md || not_ok "markdown diff: $(diff want.md diff.md)"
expect 0 same.md "$IOANALYZE" diff -f markdown v2.json v2.json
head -n 3 same.md | tr '\n' '/' | grep -qx "### ioscope: no new I/O issues//0 new, 0 fixed, 2 unchanged./" ||
    not_ok "markdown without news: $(cat same.md)"

# junit: one case per fingerprint, the new one failed, well-formed XML
expect 1 diff.xml "$IOANALYZE" diff --format junit v1.json v2.json
python3 - diff.xml <<'PY' || not_ok "junit: $(cat diff.xml)"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites" and root.get("tests") == "3" and root.get("failures") == "1", root.attrib
cases = root.findall("testsuite/testcase")
got = [(c.get("classname"), c.get("name").split(" ")[0], c.find("failure") is not None) for c in cases]
assert got == [("ioscope.leak", "/srv/leak2.txt", True), ("ioscope.leak", "/srv/leak1.txt", False),
               ("ioscope.small_buffer", "/srv/app.log", False)], got
assert cases[0].find("failure").get("message").startswith("medium: this file was opened"), cases[0]
assert "fixed" in cases[2].find("system-out").text
PY

# sarif: the new issue only; json: as before
expect 1 diff.sarif "$IOANALYZE" diff --format sarif v1.json v2.json
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["runs"][0]["results"]; assert [x["ruleId"] for x in r] == ["leak"], r' \
    diff.sarif || not_ok "sarif diff: $(head -c 300 diff.sarif)"
expect 1 diff.json "$IOANALYZE" diff v1.json v2.json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert sorted(d) == ["fixed","new","unchanged"] and d["unchanged"] == 1, d' \
    diff.json || not_ok "json diff keys"
expect 2 bad.out "$IOANALYZE" diff --format yaml v1.json v2.json
[ "$(wc -l <err)" -eq 1 ] && grep -q "expected json, text, markdown, junit, sarif or codequality, not 'yaml'" err ||
    not_ok "bad --format: $(cat err)"

# hostile strings: a path with markup and a control byte, a message with HTML
python3 - <<'PY'
import json
base = []
new = [{"rule": "leak", "fingerprint": "f1", "severity": "high", "path": "/a|b<i>`x`*\u0007.log",
        "message": "<script>alert(1)</script> & more", "stack": "",
        "frames": [{"function": "f]oo", "file": "x.c", "line": 3}]}]
json.dump(base, open("h0.json", "w")); json.dump(new, open("h1.json", "w"))
PY
expect 1 h.md "$IOANALYZE" diff -f markdown h0.json h1.json
grep -qxF '| high | leak | /a&#124;b&#60;i&#62;&#96;x&#96;&#42;&#92;x07.log | f&#93;oo (x.c:3) | &#60;script&#62;alert(1)&#60;/script&#62; &#38; more |' h.md ||
    not_ok "markdown escaping: $(cat h.md)"
expect 1 h.xml "$IOANALYZE" diff -f junit h0.json h1.json
python3 - h.xml <<'PY' || not_ok "junit escaping: $(cat h.xml)"
import sys, xml.etree.ElementTree as ET
c = ET.parse(sys.argv[1]).getroot().find("testsuite/testcase")
assert c.get("name") == "/a|b<i>`x`*\\x07.log [f1]", c.get("name")
assert c.find("failure").get("message") == "high: <script>alert(1)</script> & more"
PY

# analyze -o: every file what --format writes; stdout unchanged
expect 0 out.json "$IOANALYZE" --set leak.min_count=1 -o json=o.json -o jsonl=o.jsonl \
    --output sarif=o.sarif -o text=o.txt -o html=o.html "$FX/ci_v2.log"
cmp -s out.json v2.json || not_ok "-o changed stdout"
for f in json jsonl sarif text; do
    ext=$f
    [ $f = text ] && ext=txt
    "$IOANALYZE" --set leak.min_count=1 --format $f "$FX/ci_v2.log" >want.$ext 2>/dev/null
    cmp -s want.$ext o.$ext || not_ok "-o $f= differs from --format $f"
done
tail -n 1 o.html | grep -q "</html>" || not_ok "-o html= is not a page"
expect 2 bad.out "$IOANALYZE" -o yaml=x.yaml "$FX/ci_v2.log"
[ "$(wc -l <err)" -eq 1 ] && grep -q "^ioanalyze: --output: expected FORMAT=FILE" err || not_ok "bad -o: $(cat err)"
[ ! -e x.yaml ] || not_ok "a bad -o wrote its file"

# analyze --ci: accepted, and the same output as without it: the finding is
# judged by its modelled cost (25 small writes, 25 us: medium, where its
# measured 22.5 ms once made it high), its measured time kept as evidence
"$IOANALYZE" --ci "$FX/ci_v1.log" >ci.json 2>/dev/null || not_ok "analyze --ci"
"$IOANALYZE" "$FX/ci_v1.log" >noci.json 2>/dev/null || not_ok "analyze"
cmp -s ci.json noci.json || not_ok "--ci changed the output: $(diff ci.json noci.json)"
python3 - ci.json <<'PY' || not_ok "analyze --ci: $(cat ci.json)"
import json, sys
[i] = json.load(open(sys.argv[1]))
assert i["rule"] == "small_buffer" and i["severity"] == "medium", i
assert i["impact"] == {"time_ms": 22.5, "model_ms": 0.0251, "io_share": 0.6955,
                       "excess_calls": 24}, i["impact"]
assert i["detail"]["max_continual_us"] == 22500 and i["detail"]["model_us"] == 25, i["detail"]
PY

# diff --ci: which new findings count as unchanged (near their threshold)
python3 - <<'PY'
import json
def issue(fp, rule, **detail):
    return {"rule": rule, "fingerprint": fp, "severity": "medium", "path": "/p/" + fp,
            "message": fp, "detail": detail}
new = [issue("mt", "main_thread"),
       issue("sb_timed", "small_buffer", syscalls=500),
       issue("sb_waived", "small_buffer", syscalls=500, timing="unknown: continual condition waived"),
       issue("sb_many", "small_buffer", syscalls=1000),
       issue("rr9", "repeat_read", repeat_count=9), issue("rr10", "repeat_read", repeat_count=10),
       issue("ss_big", "sync_storm", bytes_per_sync=65536), issue("ss_small", "sync_storm", bytes_per_sync=4096),
       issue("leak", "leak", shape="abandoned", leaked=1),
       issue("leak_loop", "leak", shape="abandoned", leaked=8)]
json.dump([], open("n0.json", "w")); json.dump(new, open("n1.json", "w"))
PY
near() {
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join(sorted(i["fingerprint"] for i in d["new"])), "/", " ".join(sorted(i["fingerprint"] for i in d.get("near_threshold", []))), "/", d["unchanged"])' "$1"
}
expect 1 n.json "$IOANALYZE" diff --ci n0.json n1.json
[ "$(near n.json)" = "leak rr10 sb_many sb_waived ss_small / leak_loop mt rr9 sb_timed ss_big / 5" ] ||
    not_ok "diff --ci margin: $(near n.json)"
grep -qx "diff: 5 new, 0 fixed, 5 unchanged (new: small_buffer 2, repeat_read 1, sync_storm 1, leak 1)" err ||
    not_ok "diff --ci summary: $(cat err)"
# thresholds from --set: repeat_read.threshold 4 puts 9 past twice it
expect 1 n.json "$IOANALYZE" diff --ci --set repeat_read.threshold=4 n0.json n1.json
[ "$(near n.json)" = "leak rr10 rr9 sb_many sb_waived ss_small / leak_loop mt sb_timed ss_big / 4" ] ||
    not_ok "diff --ci with --set: $(near n.json)"
# the other way round: fixed near the threshold is unchanged too
expect 0 n.json "$IOANALYZE" diff --ci --min-severity low n1.json n0.json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert sorted(i["fingerprint"] for i in d["fixed"]) == ["leak","rr10","sb_many","sb_waived","ss_small"], d' \
    n.json || not_ok "diff --ci fixed"
expect 1 n.md "$IOANALYZE" diff --ci -f markdown n0.json n1.json
grep -qx '\*\*Near the threshold (counted unchanged by --ci)\*\*' n.md || not_ok "markdown near: $(cat n.md)"
# without --ci every one is new
expect 1 n.json "$IOANALYZE" diff n0.json n1.json
[ "$(near n.json)" = "leak leak_loop mt rr10 rr9 sb_many sb_timed sb_waived ss_big ss_small /  / 0" ] ||
    not_ok "diff without --ci: $(near n.json)"
exit $fail
