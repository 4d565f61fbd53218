#!/bin/sh
# Progress (analyzer/cli/progress.h): with stderr on a terminal (a pseudo-
# terminal here), every command that reads whole inputs - analyze, profile,
# dump in each format, info, diff - draws "LABEL: N events, P% of SIZE" and
# erases it before anything else is written; a JSONL input from a pipe
# (size unknown) shows events only; a message in the middle of reading
# erases the line first; dump to the terminal itself draws none; with
# stderr a file, nothing of it appears. IOANALYZE_PROGRESS_DELAY=0 draws the
# line at the first events, so no assertion depends on timing.
# e2e: slow (about 12 s here: every command on a pseudo-terminal)
. "$(dirname "$0")/lib.sh"
need_built "$IOANALYZE" "$IORECORD" "$LIBIORECORD" "$BUILD/bin/samples/line_reader"
have python3 || skip "python3 is needed"
python3 -c 'import pty' 2>/dev/null || skip "python3 has no pty module"
work_dir progress
export IOANALYZE_PROGRESS_DELAY=0

# a native trace of about 3000 calls (a sample: dd, say, fails under the
# sanitized recorder of make asan), and its JSONL
mkdir "$work/files"
env $(asan_env "$LIBIORECORD") "$IORECORD" -o "$work/t.zst" -- \
    "$BUILD/bin/samples/line_reader" "$work/files" >"$work/rec.log" 2>&1 ||
    { echo "FAIL: iorecord line_reader: $(cat "$work/rec.log")"; exit 1; }
"$IOANALYZE" dump "$work/t.zst" >"$work/t.jsonl" 2>/dev/null || { echo "FAIL: dump"; exit 1; }
{ cat "$work/t.jsonl"; echo '{"ev":"call", not json'; } >"$work/bad.jsonl"

# on_tty OUT [STDOUT] -- COMMAND...: run COMMAND with stderr on a pseudo-
# terminal, whatever it writes there into OUT; its stdout into the file
# STDOUT, or the terminal too when STDOUT is "tty". Prints the exit status.
on_tty() {
    python3 - "$@" <<'PY'
import os, pty, subprocess, sys
out, stdout, cmd = sys.argv[1], sys.argv[2], sys.argv[4:]
m, s = pty.openpty()
so = s if stdout == "tty" else open(stdout, "wb")
p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=so, stderr=s)
os.close(s)
got = b""
while True:
    try:
        d = os.read(m, 65536)
    except OSError:          # EIO: every holder of the terminal's other side is gone
        break
    if not d:
        break
    got += d
open(out, "wb").write(got)
print(p.wait())
PY
}

# check OUT LABEL [nopercent]: OUT holds at least one progress line of
# LABEL (with a percentage unless nopercent), and after the last one an
# erase before anything else
check() {
    python3 - "$@" <<'PY' || not_ok "$2: $(od -c "$1" | head -n 8)"
import re, sys
out, label = open(sys.argv[1], "rb").read(), sys.argv[2].encode()
pct = len(sys.argv) < 4
line = re.compile(rb"\r" + re.escape(label) + rb": [0-9.]+ (M )?events?" +
                  (rb", [0-9]{1,3}% of [0-9.]+ (B|KiB|MiB|GiB)" if pct else rb"") + rb"\x1b\[K")
lines = list(line.finditer(out))
assert lines, "no progress line"
if not pct:
    assert b"%" not in out, "a percentage without a known size"
rest = out[lines[-1].end():]
assert rest.startswith(b"\r\x1b[K"), "the last progress line is not erased"
assert label + b":" not in rest, "progress after the erase"
PY
}

T=$work/t.zst J=$work/t.jsonl
for c in "analyze:$T" "analyze:$J" "profile:$T" "info:$T" "info:$J" "diff:$T $J" \
         "dump --format jsonl:$T" "dump --format text:$T" "dump --format perfetto:$T" "dump --format text:$J"; do
    cmd=${c%%:*} args=${c#*:}
    rc=$(on_tty "$work/tty" "$work/stdout" -- "$IOANALYZE" $cmd $args)
    [ "$rc" = 0 ] || not_ok "ioanalyze $cmd $args on a terminal: exit $rc: $(cat "$work/tty")"
    check "$work/tty" "ioanalyze ${cmd%% *}"
    # not a terminal: nothing of it
    "$IOANALYZE" $cmd $args >/dev/null 2>"$work/err" || not_ok "ioanalyze $cmd $args: $(cat "$work/err")"
    if grep -q "ioanalyze ${cmd%% *}:\|$(printf '\r')" "$work/err"; then
        not_ok "ioanalyze $cmd $args drew progress into a file: $(od -c "$work/err" | head -n 4)"
    fi
done

# from a pipe the size is unknown: events only
rc=$(on_tty "$work/tty" "$work/stdout" -- sh -c "cat '$J' | '$IOANALYZE' info -")
[ "$rc" = 0 ] || not_ok "info - on a terminal: exit $rc"
check "$work/tty" "ioanalyze info" nopercent

# a warning in the middle of reading (a malformed line, skipped): the line
# is erased before it
rc=$(on_tty "$work/tty" "$work/stdout" -- "$IOANALYZE" info "$work/bad.jsonl")
[ "$rc" = 0 ] || not_ok "info of a JSONL with a malformed line: exit $rc, expected 0"
grep -q "$(printf '\r\033\\[K')ioanalyze: warning: '$work/bad.jsonl': line [0-9]*: " "$work/tty" ||
    not_ok "the warning does not start on an erased line: $(od -c "$work/tty" | tail -n 6)"

# dump to the terminal: the dump is the progress
rc=$(on_tty "$work/tty" tty -- "$IOANALYZE" dump --format text "$T")
[ "$rc" = 0 ] || not_ok "dump to a terminal: exit $rc"
grep -q "ioanalyze dump:" "$work/tty" && not_ok "dump to a terminal drew a progress line into it"
exit $fail
