#!/bin/sh
# Hostile file and program names through every CSV and text output. One
# program (an_hostile: the issue's evil.c, 2000 one-byte writes with an
# fsync every 50, 150 opens of which 4 stay open) is recorded under
#   - plain:  program "plain", file d/plain.txt;
#   - latin:  program "plain", file d/caf\351.txt (not UTF-8);
#   - ctl:    program =cmd|' -C calc'!A0, file d/e ESC[2J v BEL il CR LF =x.txt;
#   - esc:    program p ESC[2J BEL, file d/@x.txt;
# and ctl's JSONL dump is read as an input too. Each keeps the same five
# issues (small_buffer, sync_storm, repeat_open, leak with leak.min_count=1,
# and repeat_read: its 150 reopens each read the file whole, judged by the
# work and not by how long the reads took);
# a path that is not UTF-8 keeps its bytes in path_hex. Then every CSV
# (profile, --csv, the fleet's) and every text output (--format text and
# the summary on stderr, info, dump --format text, diff --format text, the
# fleet's text) holds no raw control byte and only valid UTF-8, shows the
# names escaped as docs/analyzer.md says (\e \x07 \r \n \xe9), and no CSV
# cell begins with a formula character (= + - @ TAB CR).
# e2e: slow (about 60 s here: the fleet part starts a local Dask cluster)
. "$(dirname "$0")/lib.sh"
PROG=$BUILD/bin/progs/an_hostile
need_built "$IORECORD" "$IOANALYZE" "$PROG"
# a sanitizer build's recorded runs put its runtime first
REC_ENV=$(asan_env "$LIBIORECORD")
have python3 || skip "python3 is needed"
work_dir hostile_names
cd "$work" || exit 1
mkdir d

FORMULA="=cmd|' -C calc'!A0"
ESCNAME=$(printf 'p\033[2J\007')
LATIN=$(printf 'd/caf\351.txt')
CTLFILE=$(printf 'd/e\033[2Jv\007il\r\n=x.txt')
cp "$PROG" plain && cp "$PROG" "$FORMULA" && cp "$PROG" "$ESCNAME" || die "cannot copy the program"

rec() {  # rec TRACE PROGRAM FILE
    env $REC_ENV "$IORECORD" -o "$1" -- "./$2" "$3" >/dev/null 2>&1 || not_ok "recording $1 failed"
}
rec plain.zst plain d/plain.txt
rec latin.zst plain "$LATIN"
rec ctl.zst "$FORMULA" "$CTLFILE"
rec esc.zst "$ESCNAME" d/@x.txt
"$IOANALYZE" dump --format jsonl ctl.zst >ctl.jsonl || not_ok "dump --format jsonl"

# no_raw FILE WHAT: no C0 control but newline, no DEL, no C1 control, valid UTF-8.
no_raw() {
    if LC_ALL=C grep -qP '[\x00-\x09\x0b-\x1f\x7f]' "$1"; then
        not_ok "$2: raw control byte: $(LC_ALL=C grep -P '[\x00-\x09\x0b-\x1f\x7f]' "$1" | head -n 1 | od -c | head -n 2)"
    fi
    LC_ALL=C grep -qP '\xc2[\x80-\x9f]' "$1" && not_ok "$2: raw C1 control"
    iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1 || not_ok "$2: not valid UTF-8"
}
# csv_ok FILE WHAT: parses as CSV, no cell begins with a formula character.
csv_ok() {
    no_raw "$1" "$2"
    python3 - "$1" "$2" <<'PY' || not_ok "$2: a formula cell"
import csv, sys
bad = [c for r in csv.reader(open(sys.argv[1], encoding="utf-8", newline="")) for c in r
       if c[:1] in ("=", "+", "-", "@", "\t", "\r")]
if bad:
    print("%s: formula cells %r" % (sys.argv[2], bad[:3]))
    sys.exit(1)
PY
}

A="--min-severity low --set leak.min_count=1 --no-symbolize"
for t in plain.zst latin.zst ctl.zst esc.zst ctl.jsonl; do
    # shellcheck disable=SC2086
    "$IOANALYZE" $A --format json "$t" >"$t.json" 2>/dev/null || not_ok "$t: analyze exit $?"
    python3 - "$t.json" "$work" "$t" <<'PY' || not_ok "$t: issues"
import json, sys
issues, work, t = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
rules = sorted(i["rule"] for i in issues)
assert rules == ["leak", "repeat_open", "repeat_read", "small_buffer", "sync_storm"], (t, rules)
want = {"plain.zst": b"d/plain.txt", "latin.zst": b"d/caf\xe9.txt",
        "ctl.zst": b"d/e\x1b[2Jv\x07il\r\n=x.txt", "ctl.jsonl": b"d/e\x1b[2Jv\x07il\r\n=x.txt",
        "esc.zst": b"d/@x.txt"}[t]
want = work.encode() + b"/" + want
for i in issues:
    raw = bytes.fromhex(i["path_hex"]) if "path_hex" in i else i["path"].encode()
    assert raw == want, (t, i["rule"], raw, want)
    assert ("path_hex" in i) == (t == "latin.zst"), (t, i.get("path_hex"))
PY
    # shellcheck disable=SC2086
    "$IOANALYZE" $A --format text --csv "$t.csv2" "$t" >"$t.text" 2>"$t.err" ||
        not_ok "$t: --format text exit $?"
    no_raw "$t.text" "$t: --format text"
    no_raw "$t.err" "$t: summary on stderr"
    csv_ok "$t.csv2" "$t: --csv"
    "$IOANALYZE" profile "$t" >"$t.csv" 2>/dev/null || not_ok "$t: profile exit $?"
    csv_ok "$t.csv" "$t: profile"
    cmp -s "$t.csv" "$t.csv2" || not_ok "$t: profile and --csv differ"
    "$IOANALYZE" info "$t" >"$t.info" 2>&1 || not_ok "$t: info exit $?"
    no_raw "$t.info" "$t: info"
    "$IOANALYZE" dump --format text "$t" >"$t.dump" 2>&1 || not_ok "$t: dump exit $?"
    no_raw "$t.dump" "$t: dump --format text"
    "$IOANALYZE" diff --min-severity low --format text plain.zst.json "$t.json" >"$t.diff" 2>&1
    [ $? -le 1 ] || not_ok "$t: diff failed"
    no_raw "$t.diff" "$t: diff --format text"
done

# the names, escaped as text output shows them, in the CSV and the text
grep -qF 'caf\xe9.txt' latin.zst.csv || not_ok "profile: the latin-1 name is not shown as \\xe9"
grep -qF 'caf\xe9.txt' latin.zst.text || not_ok "text report: no caf\\xe9.txt"
for t in ctl.zst ctl.jsonl; do
    grep -qF 'd/e\e[2Jv\x07il\r\n=x.txt' "$t.csv" || not_ok "$t profile: the control name is not escaped"
    grep -qF "'=cmd|' -C calc'!A0" "$t.csv" || not_ok "$t profile: the formula process is not guarded"
    grep -qF 'd/e\e[2Jv\x07il\r\n=x.txt' "$t.text" || not_ok "$t text: the control name is not escaped"
    grep -qF 'd/e\e[2Jv\x07il\r\n=x.txt' "$t.dump" || not_ok "$t dump: the control name is not escaped"
done
grep -qF 'p\e[2J\x07' esc.zst.csv || not_ok "profile: the ESC/BEL process is not escaped"
grep -qF 'p\e[2J\x07' esc.zst.info || not_ok "info: the ESC/BEL process is not escaped"
grep -qF "'@x.txt" esc.zst.csv && not_ok "profile: a cell guarded that does not begin with @"

# the fleet (Python): the same rules for its CSV and its text
if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import distributed' 2>/dev/null &&
    [ -x "$BUILD/lib/fleet/ioanalyze-fleet" ]; then
    mkdir fl && cp plain.zst latin.zst ctl.zst esc.zst fl/
    for f in csv text; do
        "$IOANALYZE" fleet --format $f fl >"fleet.$f" 2>"fleet.$f.err" || not_ok "fleet $f exit $?"
        no_raw "fleet.$f.err" "fleet $f: stderr"
    done
    csv_ok fleet.csv "fleet csv"
    no_raw fleet.text "fleet text"
    grep -qF "'=cmd|' -C calc'!A0 opened" fleet.csv || not_ok "fleet csv: the formula message is not guarded"
    grep -qF "p\\e[2J\\x07 opened" fleet.csv || not_ok "fleet csv: the ESC/BEL process is not escaped"
    grep -qF "p\\e[2J\\x07 opened" fleet.text || not_ok "fleet text: the ESC/BEL process is not escaped"
else
    echo "SKIP fleet: /usr/bin/python3 cannot import distributed (Debian: python3-distributed)"
fi
exit $fail
