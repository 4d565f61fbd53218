#!/bin/sh
# The recorder under stress (tests/progs/stress_io.c): 16 threads of mixed
# I/O, signals with I/O-doing handlers, short-lived threads, children that
# fork, exec and spawn, for STRESS_SECONDS (default 20) under iorecord.
# Checks that
#   - the program's output and exit status are those of a run without the
#     recorder (it verifies its own files against an in-memory model),
#   - nothing deadlocks (a timeout),
#   - the trace reads without damage, and every call the program counted
#     (per process and op: the main process with its threads and handlers,
#     each exec'd, spawned and forked child) is in it, exactly.
BUILD=${BUILD:-build}
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$TOP" || exit 1
PROG=$BUILD/bin/progs/stress_io
IORECORD=$BUILD/bin/iorecord
IOANALYZE=$BUILD/bin/ioanalyze
SECS=${STRESS_SECONDS:-20}
for f in "$PROG" "$IORECORD" "$IOANALYZE" "$BUILD/lib/libiorecord.so"; do
    [ -e "$f" ] || { echo "skip: '$f' is not built"; exit 77; }
done
command -v timeout >/dev/null 2>&1 || { echo "skip: no timeout(1)"; exit 77; }

. "$TOP/tests/e2e/lib.sh"

T=$(mktemp -d "${TMPDIR:-/tmp}/ioscope-stress.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
fail() {
    echo "FAIL: $*"
    exit 1
}
mkdir "$T/plain" "$T/rec"

# Without the recorder: the reference output (its length does not depend on
# how long the run is, so a short run is enough).
STRESS_SECONDS=2 "$PROG" "$T/plain" >"$T/plain.out" 2>"$T/plain.err"
plain_rc=$?

# With it. A deadlock shows as the timeout's 124 (or 137 after KILL).
(asan_preload "$BUILD/lib/libiorecord.so"
 STRESS_SECONDS=$SECS STRESS_COUNTS=$T/counts \
    exec timeout -k 10 $((SECS * 3 + 60)) "$IORECORD" -o "$T/trace.zst" -- "$PROG" "$T/rec" \
    >"$T/rec.out" 2>"$T/rec.err")
rec_rc=$?
[ $rec_rc -eq 124 ] || [ $rec_rc -eq 137 ] && fail "no exit within $((SECS * 3 + 60)) s under the recorder (deadlock?)"
[ $rec_rc -eq "$plain_rc" ] || { cat "$T/rec.err"; fail "exit status $rec_rc under the recorder, $plain_rc without"; }
cmp -s "$T/plain.out" "$T/rec.out" || { diff "$T/plain.out" "$T/rec.out"; fail "output differs under the recorder"; }
[ "$plain_rc" -eq 0 ] || { cat "$T/plain.out"; fail "the program itself failed (exit $plain_rc)"; }
[ -s "$T/rec.err" ] && { cat "$T/rec.err"; fail "unexpected messages on stderr under the recorder"; }

"$IOANALYZE" info "$T/trace.zst" >"$T/info" 2>"$T/info.err" || fail "ioanalyze info failed: $(cat "$T/info.err")"
grep -q '^damage: none' "$T/info" || { cat "$T/info"; fail "the trace is damaged"; }

# Calls per (pid, op) in the trace.
"$IOANALYZE" dump --format jsonl "$T/trace.zst" 2>"$T/dump.err" |
    awk -F'"pid":' '/^\{"ev":"call"/ {
        split($2, a, ","); match($0, /"op":"[a-z_]+"/)
        n[a[1] " " substr($0, RSTART + 6, RLENGTH - 7)]++
    } END { for (k in n) print k, n[k] }' | sort >"$T/trace.counts"
[ -s "$T/dump.err" ] && fail "ioanalyze dump: $(cat "$T/dump.err")"

# What the program says it did: the main process's own counts, and for each
# child the fixed I/O of its kind (see stress_io.c: child_main, fork_child).
main_pid=$(awk '$1 == "call" { print $2; exit }' "$T/counts")
awk '$1 == "call" && $4 > 0 { print $2, $3, $4 }
     $1 == "child" && ($3 == "exec" || $3 == "spawn") {
        print $2, "open 1"; print $2, "write 4"; print $2, "pread 4"; print $2, "close 1"
        print $2, "fopen 1"; print $2, "fwrite 1"; print $2, "fclose 1" }
     $1 == "child" && $3 == "fork" { print $2, "open 1"; print $2, "write 3"; print $2, "close 1" }' \
    "$T/counts" | sort >"$T/expected.counts"
# /bin/sh children do I/O of their own: only their presence is checked.
awk '$1 == "child" && $3 == "sh" { print $2 }' "$T/counts" >"$T/sh.pids"
awk 'FILENAME == ARGV[1] { sh[$1] = 1; next } !($1 in sh)' "$T/sh.pids" "$T/trace.counts" \
    >"$T/trace.checked"
if ! cmp -s "$T/expected.counts" "$T/trace.checked"; then
    echo "calls per pid and op: < counted by the program, > in the trace"
    diff "$T/expected.counts" "$T/trace.checked" | head -n 40
    fail "the trace does not hold exactly the calls the program made"
fi
for pid in $(cat "$T/sh.pids"); do
    grep -q "^  pid $pid ppid $main_pid .*exit status 5" "$T/info" ||
        fail "child /bin/sh $pid missing from the trace or without its exit status"
done
total=$(awk '{ s += $3 } END { print s }' "$T/expected.counts")
children=$(grep -c '^child ' "$T/counts")
echo "ok: ${SECS}s, $total calls in $((children + 1)) processes counted exactly; output and exit status as without the recorder"
