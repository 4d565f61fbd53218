#!/bin/sh
# Processes and fds made and taken behind libc's back, signal handlers
# that make many calls, and a SIGCHLD handler doing file I/O while its
# thread forks (tests/progs/rec_rawproc.c, rec_sigstorm.c,
# rec_forkstorm.c), under iorecord and preloaded without it. For each run:
#   - the program's output and exit status are those of a plain run,
#   - the trace reads without damage,
#   - every process's writes are in the trace exactly as many times as the
#     process counted them, under its own pid (those its signal handlers
#     made when the recorder had no room left for them counted in `lost`
#     records, handler_calls), and each process has its exit record;
#     a child that cannot be recorded (clone(CLONE_VM)) has none, and its
#     parent says so with an `unrecorded` record of mode raw_clone.
# The inline_* modes take the recorder's fds with syscall instructions no
# wrapper sees: the recorder takes them back (the collector's from its
# /proc entry, the trace by opening it again), and nothing is lost.
# e2e: slow (about 10 s here: signal storms, each run three ways)
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1
RAW=$BUILD/bin/progs/rec_rawproc
STORM=$BUILD/bin/progs/rec_sigstorm
FORKSTORM=$BUILD/bin/progs/rec_forkstorm
need_built "$RAW" "$STORM" "$FORKSTORM" "$IORECORD" "$IOANALYZE" "$LIBIORECORD"
have timeout || skip "no timeout(1)"
N=${RAWPROC_WRITES:-2000}
STORM_RUNS=${RAWPROC_STORM_RUNS:-3}

work_dir rawproc
[ -n "${RAWPROC_KEEP:-}" ] && trap - EXIT

# run_in HOW DIR PROG ARGS...: PROG recorded into DIR/trace.zst, through
# iorecord (HOW=collector) or preloaded alone (HOW=preload); DIR/rc, out,
# err, and hang (what every process did, when the run did not end).
LIMIT=120
run_in() {
    how=$1 d=$2
    shift 2
    mkdir -p "$d"
    # (the preload's records only: as root the kernel path would add the
    # counts the programs write with raw syscalls)
    if [ "$how" = collector ]; then
        (asan_preload "$LIBIORECORD"
         exec timeout -k 5 $LIMIT "$IORECORD" --capture preload -o "$d/trace.zst" -- "$@" >"$d/out" 2>"$d/err") &
    else
        (asan_preload "$LIBIORECORD"
         LD_PRELOAD=${LD_PRELOAD:+$LD_PRELOAD:}$LIBIORECORD IORECORD_OUTPUT=$d/trace.zst
         export LD_PRELOAD IORECORD_OUTPUT
         exec timeout -k 5 $LIMIT "$@" >"$d/out" 2>"$d/err") &
    fi
    wait_watched $! $LIMIT "$d/hang"
    echo $? >"$d/rc"
}

# check DIR LABEL [unrecorded]: the run in DIR against its own counts. With
# `unrecorded`, the processes other than the program's first (the last to
# note its count) are children that cannot be recorded, and the first says
# so with an `unrecorded` record (mode raw_clone).
check() {
    d=$1 label=$2 unrec=${3:-}
    case $(cat "$d/rc") in
    124 | 137) cat "$d/hang" 2>/dev/null
               not_ok "$label: no exit within $LIMIT s (deadlock?)"; return ;;
    esac
    [ "$(cat "$d/rc")" = 0 ] || { cat "$d/err"; not_ok "$label: exit status $(cat "$d/rc")"; return; }
    [ "$(cat "$d/out")" = ok ] || { not_ok "$label: output '$(cat "$d/out")'"; return; }
    [ -s "$d/err" ] && { cat "$d/err"; not_ok "$label: messages on stderr"; return; }
    "$IOANALYZE" info "$d/trace.zst" >"$d/info" 2>&1 || { cat "$d/info"; not_ok "$label: ioanalyze info failed"; return; }
    grep -q '^damage: none' "$d/info" || { grep '^damage' "$d/info"; not_ok "$label: the trace is damaged"; }
    "$IOANALYZE" dump --format jsonl "$d/trace.zst" >"$d/dump" 2>"$d/dump.err" ||
        { not_ok "$label: ioanalyze dump failed"; return; }
    # per pid: writes, exit records, unrecorded raw_clone
    awk -F'"pid":' '{ split($2, a, ","); pid = a[1] }
        /^\{"ev":"call"/ && /"op":"write"/ { w[pid]++ }
        /^\{"ev":"exit"/ { x[pid]++ }
        /^\{"ev":"call"/ && /"op":"unrecorded"/ && /"mode":"raw_clone"/ { u[pid]++ }
        /^\{"ev":"process"/ { pr[pid]++ }
        /^\{"ev":"call"/ && /"op":"lost"/ && /"mode":"handler_calls"/ {
            match($0, /"size":[0-9]+/); l[pid] += substr($0, RSTART + 7, RLENGTH - 7) }
        END { for (p in w) print "write", p, w[p]
              for (p in l) print "lost", p, l[p]
              for (p in x) print "exit", p, x[p]
              for (p in u) print "unrec", p, u[p]
              for (p in pr) print "process", p, pr[p] }' "$d/dump" >"$d/seen"
    root=$(awk 'END { print $1 }' "$d/counts")
    while read -r pid _ want; do
        # writes in the trace, and those of signal handlers counted lost
        got=$(awk -v p="$pid" '($1 == "write" || $1 == "lost") && $2 == p { n += $3 }
                               END { if (n) print n }' "$d/seen")
        exits=$(awk -v p="$pid" '$1 == "exit" && $2 == p { print $3 }' "$d/seen")
        if [ -n "$unrec" ] && [ "$pid" != "$root" ]; then
            [ -z "$got" ] || not_ok "$label: unrecordable child $pid has $got writes in the trace"
            continue
        fi
        [ "${got:-0}" = "$want" ] || not_ok "$label: pid $pid made $want writes, the trace has ${got:-0}"
        [ "${exits:-0}" = 1 ] || not_ok "$label: pid $pid has ${exits:-0} exit records"
        procs=$(awk -v p="$pid" '$1 == "process" && $2 == p { print $3 }' "$d/seen")
        # (a preloaded `timeout` forks the program, whose exec adds one)
        [ "${procs:-0}" -ge 1 ] || not_ok "$label: pid $pid has no process record"
    done <"$d/counts"
    # no writes under a pid that made none
    awk 'NR == FNR { made[$1] = 1; next } $1 == "write" && !($2 in made) { print $2 }' \
        "$d/counts" "$d/seen" | while read -r pid; do
        echo "FAIL: $label: writes under pid $pid, which made none"
    done | grep . && fail=1
    if [ -n "$unrec" ]; then
        n=$(awk -v p="$root" '$1 == "unrec" && $2 == p { print $3 }' "$d/seen")
        [ "${n:-0}" = 1 ] || not_ok "$label: ${n:-0} unrecorded raw_clone records in the parent"
    fi
}

for how in collector preload; do
    for mode in ${RAWPROC_MODES:-fork clone clone3 libclone libclone_vm close_range dup3 inline_close inline_dup3}; do
        d=$work/$how-$mode
        run_in "$how" "$d" "$RAW" "$mode" "$d" "$N"
        case $how-$mode in
        *-libclone_vm) check "$d" "$how $mode" unrecorded ;;
        *) check "$d" "$how $mode" ;;
        esac
    done
    i=0
    while [ $i -lt "$STORM_RUNS" ]; do
        d=$work/$how-storm$i
        run_in "$how" "$d" "$STORM" "$d" "${RAWPROC_STORM_WRITES:-2000}"
        check "$d" "$how signal storm run $i"
        i=$((i + 1))
    done
    # (the children write nothing: a handler's call under a child's pid
    # is the parent's, recorded twice)
    d=$work/$how-forkstorm
    run_in "$how" "$d" "$FORKSTORM" "$d" "${RAWPROC_FORKS:-2000}"
    check "$d" "$how fork storm"
done
exit $fail
