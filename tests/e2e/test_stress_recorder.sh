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
#     each exec'd, spawned and forked child) is in it, exactly (the
#     recorder's `fdpath` records name fds it saw used first: not calls).
# e2e: slow (about 82 s here: 20 s of stress under iorecord)
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1
PROG=$BUILD/bin/progs/stress_io
SECS=${STRESS_SECONDS:-20}
need_built "$PROG" "$IORECORD" "$IOANALYZE" "$LIBIORECORD"
have timeout || skip "no timeout(1)"

work_dir stress
mkdir "$work/plain" "$work/rec"

# Without the recorder: the reference output (its length does not depend on
# how long the run is, so a short run is enough).
STRESS_SECONDS=2 "$PROG" "$work/plain" >"$work/plain.out" 2>"$work/plain.err"
plain_rc=$?

# With it. A deadlock shows as the timeout's 124 (or 137 after KILL); half
# a minute before the timeout, what every process is doing is noted.
# The run takes SECS and a second here; the limit leaves room for a
# machine several times slower, since a deadlock is caught at any limit.
limit=$((SECS * 5 + 100))
(asan_preload "$LIBIORECORD"
 STRESS_SECONDS=$SECS STRESS_COUNTS=$work/counts \
    exec timeout -k 10 $limit "$IORECORD" -o "$work/trace.zst" -- "$PROG" "$work/rec" \
    >"$work/rec.out" 2>"$work/rec.err") &
wait_watched $! $limit "$work/hang"
rec_rc=$?
if [ $rec_rc -eq 124 ] || [ $rec_rc -eq 137 ]; then
    cat "$work/hang" 2>/dev/null
    die "no exit within $limit s under the recorder (deadlock?)"
fi
[ $rec_rc -eq "$plain_rc" ] || { cat "$work/rec.err"; die "exit status $rec_rc under the recorder, $plain_rc without"; }
cmp -s "$work/plain.out" "$work/rec.out" || { diff "$work/plain.out" "$work/rec.out"; die "output differs under the recorder"; }
[ "$plain_rc" -eq 0 ] || { cat "$work/plain.out"; die "the program itself failed (exit $plain_rc)"; }
[ -s "$work/rec.err" ] && { cat "$work/rec.err"; die "unexpected messages on stderr under the recorder"; }

"$IOANALYZE" info "$work/trace.zst" >"$work/info" 2>"$work/info.err" || die "ioanalyze info failed: $(cat "$work/info.err")"
grep -q '^damage: none' "$work/info" || { cat "$work/info"; die "the trace is damaged"; }

# Calls per (pid, op) in the trace; fdpath and cwd are the recorder's notes
# of an fd and of the working directory, not the program's calls.
"$IOANALYZE" dump --format jsonl "$work/trace.zst" 2>"$work/dump.err" |
    awk -F'"pid":' '/^\{"ev":"call"/ && !/"op":"(fdpath|cwd)"/ {
        split($2, a, ","); match($0, /"op":"[a-z_]+"/)
        n[a[1] " " substr($0, RSTART + 6, RLENGTH - 7)]++
    } END { for (k in n) print k, n[k] }' | sort >"$work/trace.counts"
[ -s "$work/dump.err" ] && die "ioanalyze dump: $(cat "$work/dump.err")"

# What the program says it did: the main process's own counts, and for each
# child the fixed I/O of its kind (see stress_io.c: child_main, fork_child).
main_pid=$(awk '$1 == "call" { print $2; exit }' "$work/counts")
awk '$1 == "call" && $4 > 0 { print $2, $3, $4 }
     $1 == "child" && ($3 == "exec" || $3 == "spawn") {
        print $2, "open 1"; print $2, "write 4"; print $2, "pread 4"; print $2, "close 1"
        print $2, "fopen 1"; print $2, "fwrite 1"; print $2, "fclose 1"; print $2, "unlink 1" }
     $1 == "child" && $3 == "fork" {
        print $2, "open 1"; print $2, "write 3"; print $2, "close 1"; print $2, "unlink 1" }' \
    "$work/counts" | sort >"$work/expected.counts"
# /bin/sh children do I/O of their own: only their presence is checked.
awk '$1 == "child" && $3 == "sh" { print $2 }' "$work/counts" >"$work/sh.pids"
awk 'FILENAME == ARGV[1] { sh[$1] = 1; next } !($1 in sh)' "$work/sh.pids" "$work/trace.counts" \
    >"$work/trace.checked"
if ! cmp -s "$work/expected.counts" "$work/trace.checked"; then
    echo "calls per pid and op: < counted by the program, > in the trace"
    diff "$work/expected.counts" "$work/trace.checked" | head -n 40
    die "the trace does not hold exactly the calls the program made"
fi
for pid in $(cat "$work/sh.pids"); do
    grep -q "^  pid $pid ppid $main_pid .*exit status 5" "$work/info" ||
        die "child /bin/sh $pid missing from the trace or without its exit status"
done
total=$(awk '{ s += $3 } END { print s }' "$work/expected.counts")
children=$(grep -c '^child ' "$work/counts")
echo "ok: ${SECS}s, $total calls in $((children + 1)) processes counted exactly; output and exit status as without the recorder"
