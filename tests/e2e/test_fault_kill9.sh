#!/bin/sh
# kill -9 loses at most the call in flight (issue 16): threads write one byte
# per write() to files of their own (tests/progs/rec_bytewriter.c) and the
# program is killed at a random moment. Every record a thread published is
# in the collector's shared memory, which outlives the program: for each
# file, the trace's write count equals the file's size, or is one less (the
# write that returned as the kill came, before its record was whole).
. "$(dirname "$0")/lib.sh"
need_built "$IOANALYZE" "$IORECORD" "$BUILD/bin/progs/rec_bytewriter"
work_dir kill9
prog=$BUILD/bin/progs/rec_bytewriter
asan=$(asan_env "$LIBIORECORD")

seed=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
echo "  random seed $seed"
n=0
for threads in 1 4 1 4; do
    n=$((n + 1))
    d=$work/run$n
    mkdir "$d"
    env $asan "$IORECORD" -o "$d/t.zst" -- "$prog" "$d" $threads >"$d/out" 2>"$d/err" &
    launcher=$!
    i=0
    until grep -q ready "$d/out" 2>/dev/null; do
        i=$((i + 1))
        [ $i -lt 1000 ] || { not_ok "run $n: the program never got ready: $(cat "$d/err")"; exit 1; }
        sleep 0.01
    done
    # 50 to 500 ms of writing, differently each run
    pause=$(awk -v s=$((seed + n)) 'BEGIN { srand(s); printf "%.3f", 0.05 + rand() * 0.45 }')
    sleep "$pause"
    victim=$(ps -o pid=,comm= --ppid $launcher | awk '$2 == "rec_bytewriter" { print $1 }')
    [ -n "$victim" ] || { not_ok "run $n: no program to kill"; exit 1; }
    kill -9 $victim
    wait $launcher
    rc=$?
    [ $rc -eq 137 ] || not_ok "run $n: iorecord exited $rc, not 137 (killed by 9)"
    "$IOANALYZE" profile "$d/t.zst" >"$d/profile.csv" 2>"$d/an.err" ||
        { not_ok "run $n: profile failed: $(cat "$d/an.err")"; continue; }
    t=0
    while [ $t -lt $threads ]; do
        f=$d/w$t
        size=$(stat -c %s "$f")
        writes=$(awk -F, -v p="$f" '$2 == p { print $10 }' "$d/profile.csv")
        [ -n "$writes" ] || { not_ok "run $n: no row for $f in the profile"; writes=-9; }
        gap=$((size - writes))
        [ $gap -eq 0 ] || [ $gap -eq 1 ] ||
            not_ok "run $n ($threads threads, killed after ${pause}s): $f has $size bytes, the trace $writes writes"
        echo "  run $n: $threads threads, killed after ${pause}s: $f $size bytes, $writes writes recorded"
        t=$((t + 1))
    done
done
[ $fail -eq 0 ] && echo "ok: kill -9 at a random moment: every write but the one in flight is in the trace"
exit $fail
