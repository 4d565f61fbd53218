#!/bin/sh
# Strings from a trace never act on the reader's terminal or spreadsheet.
# A path holding ESC[2J, OSC 8, BEL, CR, DEL and bytes that are not UTF-8,
# a process named with ESC and a thread name with a C1 control: every text
# output (analyze --format text, dump --format text, info, the summary on
# stderr, error messages) shows them as visible escapes and holds no raw
# control byte; CSV cells that begin = + - @ get a leading ', TAB and CR
# are escaped as in text.
. "$(dirname "$0")/lib.sh"
# the text report's lines as wide as they are (its wrapping to the
# terminal's width is tests/e2e/test_an_report_width.sh's)
COLUMNS=1000
export COLUMNS
need_built "$IOANALYZE"
work_dir safe_output

# no_raw FILE WHAT: FILE holds no C0 control but newline, no DEL, no C1
# control (as UTF-8) and only valid UTF-8.
no_raw() {
    if LC_ALL=C grep -nP '[\x00-\x09\x0b-\x1f\x7f]' "$1" >/dev/null; then
        not_ok "$2: raw control byte: $(LC_ALL=C grep -nP '[\x00-\x09\x0b-\x1f\x7f]' "$1" | head -n 2 | od -c | head -n 4)"
    fi
    if LC_ALL=C grep -nP '\xc2[\x80-\x9f]' "$1" >/dev/null; then
        not_ok "$2: raw C1 control"
    fi
    if ! iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1; then
        not_ok "$2: not valid UTF-8"
    fi
}

# JSONL: the controls as JSON escapes (JSON text itself must be UTF-8).
printf '%s\n' \
'{"ev":"process","t":0,"pid":7,"ppid":1,"exe":"/bin/\u001b[2Jx","cmdline":["=HYPERLINK(\"x\")","\u0007"],"start_unix_ns":1763800000000000000}' \
'{"ev":"thread","t":0,"pid":7,"tid":8,"name":"w\r\u009bk"}' \
'{"ev":"call","t":10,"pid":7,"tid":8,"op":"open","dur":5,"ret":3,"path":"/d/\u001b]8;;http://e\u0007L\u001b]8;;\u0007\r\u001b[2J\u007f","flags":0,"stack":"f\u001b[31m+0x1 (/a)\nmain+0x2 (/a)"}' \
'{"ev":"exit","t":30,"pid":7,"status":0}' >"$work/h.jsonl"

# strace: bytes that are not UTF-8 (\377\376) and the same controls.
cat >"$work/h.log" <<'LOG'
900   11:00:00.000000 execve("/bin/\33[2Jx", ["=HYPERLINK(\"x\")"], 0x1 /* 0 vars */) = 0 <0.000010>
900   11:00:00.000100 openat(AT_FDCWD, "/s/\33]8;;http://e\7L\33]8;;\7\r\33[2J\177\377\376", O_RDONLY) = 3 <0.000010>
900   11:00:00.000200 read(3, "a", 1) = 1 <0.000010>
900   11:00:00.000400 +++ exited with 0 +++
LOG

want='/d/\e]8;;http://e\x07L\e]8;;\x07\r\e[2J\x7f'
wants='/s/\e]8;;http://e\x07L\e]8;;\x07\r\e[2J\x7f\xff\xfe'
for in in h.jsonl h.log; do
    case $in in *.log) w=$wants ;; *) w=$want ;; esac
    "$IOANALYZE" --format text --no-symbolize --set leak.min_count=1 "$work/$in" \
        >"$work/$in.text" 2>"$work/$in.err" || not_ok "$in: analyze exit $?"
    no_raw "$work/$in.text" "$in: --format text"
    no_raw "$work/$in.err" "$in: summary on stderr"
    grep -qF "  $w" "$work/$in.text" || not_ok "$in: --format text does not show the path escaped"
    grep -qF '\e[2Jx' "$work/$in.text" || not_ok "$in: --format text does not show the process escaped"
    "$IOANALYZE" dump --format text "$work/$in" >"$work/$in.dump" 2>&1 || not_ok "$in: dump exit $?"
    no_raw "$work/$in.dump" "$in: dump --format text"
    grep -qF " $w" "$work/$in.dump" || not_ok "$in: dump does not show the path escaped"
    "$IOANALYZE" info "$work/$in" >"$work/$in.info" 2>&1 || not_ok "$in: info exit $?"
    no_raw "$work/$in.info" "$in: info"
    grep -qF '/bin/\e[2Jx' "$work/$in.info" || not_ok "$in: info does not show the exe escaped"
done
grep -qF 'w\r\u009bk' "$work/h.jsonl.dump" || not_ok "thread name not escaped in dump"
grep -qF 'tid 8 (pid 7) w\r\u009bk' "$work/h.jsonl.info" || not_ok "thread name not escaped in info"
grep -qF '      f\e[31m+0x1 (/a)' "$work/h.jsonl.text" || not_ok "stack frame not escaped in the report"

# HTML: a path that closes the script element and opens another stays data.
printf '%s\n' \
'{"ev":"process","t":0,"pid":9,"ppid":1,"exe":"/bin/x","cmdline":["x"],"start_unix_ns":1763800000000000000}' \
'{"ev":"call","t":10,"pid":9,"tid":9,"op":"open","dur":5,"ret":3,"path":"/h/</script><script>alert(\"&'"'"'\")</script>","flags":0}' >"$work/html.jsonl"
"$IOANALYZE" --format html "$work/html.jsonl" >"$work/out.html" 2>/dev/null || not_ok "html: exit $?"
[ "$(grep -c '</script>' "$work/out.html")" -eq 2 ] ||
    not_ok "html: a path closed a script element: $(grep -o '.\{20\}</script>.\{20\}' "$work/out.html" | head -n 3)"
grep -q '<script>alert' "$work/out.html" && not_ok "html: the path's script tag is in the page"
grep -qF '/h/\u003c/script>\u003cscript>alert(\"&'"'"'\")\u003c/script>' "$work/out.html" ||
    not_ok "html: the path is not in the page's data as JSON with < escaped"

# diff's summary on stderr names the new issues' rules, from an issue file.
echo '[]' >"$work/base.json"
printf '%s\n' '[{"tag":"io","type":1,"rule":"x\u001b[2J\u0007","fingerprint":"00000000000000aa","path":"/p","pid":1,"tid":1,"time":1}]' >"$work/new.json"
"$IOANALYZE" diff "$work/base.json" "$work/new.json" >/dev/null 2>"$work/diff.err"
no_raw "$work/diff.err" "diff summary"
grep -qF '(new: x\e[2J\x07 1)' "$work/diff.err" || not_ok "diff summary: $(cat "$work/diff.err")"

# An error message naming a string from an input: shown escaped on stderr.
printf '{"ev":"call","t":1,"pid":1,"tid":1,"op":"open","path":"\\u001b[2J"\n' >"$work/bad.jsonl"
"$IOANALYZE" --format json "$work/bad.jsonl" >/dev/null 2>"$work/bad.err"
no_raw "$work/bad.err" "error message"

# CSV: cells that a spreadsheet would run as formulas get a leading '.
printf '%s\n' \
'{"ev":"process","t":0,"pid":5,"ppid":1,"exe":"=HYPERLINK(\"x\")","cmdline":["=HYPERLINK(\"x\")"],"start_unix_ns":1763800000000000000}' >"$work/csv.jsonl"
n=0
for p in '=1+1' '+1' '-1' '@SUM(A1)' '\tx' '\rx'; do
    n=$((n + 1))
    printf '{"ev":"call","t":%d0,"pid":5,"tid":5,"op":"open","dur":5,"ret":%d,"path":"%s","flags":0}\n' \
        $n $((n + 2)) "$p" >>"$work/csv.jsonl"
done
"$IOANALYZE" profile "$work/csv.jsonl" >"$work/out.csv" 2>"$work/csv.err" || not_ok "profile exit $?"
# tab and CR are control characters: escaped as text output does (\t, \r)
for cell in "'=1+1" "'+1" "'-1" "'@SUM(A1)" '\tx' '\rx'; do
    grep -qF "5,$cell," "$work/out.csv" || not_ok "no neutralised cell $cell: $(cat "$work/out.csv")"
done
grep -qF "'=HYPERLINK(\"\"x\"\")" "$work/out.csv" || not_ok "process cell not neutralised"
if LC_ALL=C grep -qP '(^|,)"?[=+@\t\r-]' "$work/out.csv"; then
    not_ok "a cell begins with a formula character: $(LC_ALL=C grep -P '(^|,)"?[=+@\t\r-]' "$work/out.csv")"
fi
exit $fail
