#!/bin/sh
# What a 1-byte read() costs under each way of watching it, beside the
# floor each way is measured against, in one run, interleaved:
#   native      the loop alone (bench_rec_loop read1)
#   preload     iorecord --capture preload (libiorecord.so records it)
#   pairs       bench_rec_loop read1pair, natively and under the preload:
#               read() less the same read by the syscall instruction (which
#               no wrapper sees), in turns in one process, so that the
#               drift of the syscall's own cost between runs (on some VMs
#               larger than the recorder's whole cost) falls on both alike
#   clock floor two back-to-back reads of the recorder's clock, no call
#               (bench_rec_loop clock2): what timing a call costs at least
#   kernel      iorecord --capture kernel (the BPF path records it)
#   bpftrace    bpftrace counting sys_enter_read per pid (where installed)
#   untraced    the loop, not traced, while the kernel path runs for
#               another process (its programs are the machine's)
#   empty BPF   the loop while empty programs sit on the kernel path's
#               attach points (bench/empty.bpf.c): an untraced process's floor
#   timed BPF   the loop while programs that only read the clock sit on
#               sys_enter and sys_exit (bench/empty.bpf.c): the floor of any
#               BPF recorder that gives each call its time and duration
#   strace      strace -f -o /dev/null (1/100 of the calls)
# Each round runs every setup once, in turn, so that the machine's drift
# and load fall on all alike; the figures are the medians over the rounds
# of each run's median batch (wall ns per call) and of its thread CPU.
# Where the kernel counts BPF run time (root: kernel.bpf_stats_enabled is
# set for the run and put back after), the BPF programs' own time per run
# is printed beside: ours under the untraced loop, the empty programs',
# bpftrace's and ours recording the loop. It is CPU time inside the
# programs, which the machine's load moves far less than a whole call's.
# Goals: preload's added thread CPU within the clock floor + 15 ns; an
# untraced process's within the empty programs' + 10 ns; the kernel path's
# below bpftrace's (which the timed floor bounds from below: where that
# floor alone costs more than bpftrace's count, the goal is out of reach
# for a recorder that times calls). Figures only: never pass/fail on time.
# BENCH_CALLS (default 2000000) calls per run, BENCH_ROUNDS (default 5).
BUILD=${BUILD:-build}
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
LOOP=$BUILD/bin/bench/bench_rec_loop
REC=$BUILD/bin/iorecord
FLOOR=$BUILD/bin/bench/bpf_floor
EMPTY=$BUILD/gen/bpf/empty.bpf.o
N=${BENCH_CALLS:-2000000}
ROUNDS=${BENCH_ROUNDS:-5}
for f in "$LOOP" "$REC"; do
    [ -x "$f" ] || { echo "bench_floors: $f is not built (make bench builds it)"; exit 0; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/ioscope-bench-floors.XXXXXX") || exit 1
bg=""
stats_was=""
tracefs_mounted=""
trap '[ -n "$bg" ] && kill $bg 2>/dev/null; [ -n "$stats_was" ] && sysctl -qw kernel.bpf_stats_enabled=$stats_was
      [ -n "$tracefs_mounted" ] && umount /sys/kernel/tracing; rm -rf "$work"' EXIT
# a signal ends the run (through the EXIT trap), never leaves it going without its files
trap 'exit 130' INT TERM

have_kernel=0
"$REC" --capture kernel -o "$work/probe.zst" true 2>/dev/null && have_kernel=1
have_floor=0
[ $have_kernel = 1 ] && [ -x "$FLOOR" ] && [ -f "$EMPTY" ] && have_floor=1
# bpftrace's syscall tracepoints need tracefs: mounted for the run where it
# is not (and unmounted after). Where raising RLIMIT_MEMLOCK is refused (no
# CAP_SYS_RESOURCE), which bpftrace 0.17 treats as fatal, it runs with
# memlock_shim.so: BPF memory is charged to the memory cgroup since Linux
# 5.11, so the refusal changes nothing it does or costs.
have_bpftrace=0
bpftrace_env=""
if command -v bpftrace >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    if [ ! -d /sys/kernel/tracing/events ] && mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; then
        tracefs_mounted=1
    fi
    SHIM=$BUILD/lib/bench/memlock_shim.so
    if ! (ulimit -l unlimited) 2>/dev/null && [ -f "$SHIM" ]; then
        bpftrace_env="LD_PRELOAD=$SHIM"
        echo "bench_floors: bpftrace runs with $SHIM (RLIMIT_MEMLOCK cannot be raised here)"
    fi
    if timeout 120 env $bpftrace_env bpftrace -e 'BEGIN { exit(); } tracepoint:syscalls:sys_enter_read { }' \
        >"$work/bpftrace.out" 2>&1; then
        have_bpftrace=1
    else
        echo "bench_floors: no bpftrace row: $(grep ERROR "$work/bpftrace.out" | head -n 1)"
    fi
fi
have_strace=0
command -v strace >/dev/null 2>&1 && strace -f -o /dev/null true 2>/dev/null && have_strace=1

# start_bg READY_TEST CMD...: run CMD in the background ($bg) until
# READY_TEST (a shell condition on $bg and $work/bg.out) holds, 10 s at most
start_bg() {
    ready=$1
    shift
    "$@" >"$work/bg.out" 2>&1 &
    bg=$!
    i=0
    while ! eval "$ready" && [ $i -lt 200 ]; do
        sleep 0.05
        i=$((i + 1))
    done
}
stop_bg() {
    kill -0 $bg 2>/dev/null || alive=0
    kill $bg 2>/dev/null
    wait $bg 2>/dev/null
    bg=""
}
bpf_fds() { ls -l /proc/$bg/fd 2>/dev/null | grep -c anon_inode:bpf; }

# BPF run time: "run_time_ns run_cnt" summed over process PID's programs
# named NAME... (their ids from its fds), or nothing
prog_stats() {
    p=$1
    shift
    [ -n "$stats_was" ] || return 0
    ids=$(grep -h '^prog_id:' /proc/$p/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -u)
    [ -n "$ids" ] || return 0
    for id in $ids; do bpftool prog show id "$id" 2>/dev/null | head -n 1; done |
        awk -v names="$*" 'BEGIN { n = split(names, w, " "); for (i = 1; i <= n; i++) want[w[i]] = 1 }
            { for (i = 1; i < NF; i++) { if ($i == "name") nm = $(i + 1);
                                         if ($i == "run_time_ns") t = $(i + 1);
                                         if ($i == "run_cnt") c = $(i + 1) }
              if (nm in want) { T += t; C += c } }
            END { if (C > 0) print T, C }'
}
# bpf_delta SETUP BEFORE AFTER: the programs' ns per run over the loop, appended to $work/SETUP.bpf
bpf_delta() {
    [ -n "$2" ] && [ -n "$3" ] || return 0
    echo "$2 $3" | awk '{ if ($4 > $2) printf "%.1f\n", ($3 - $1) / ($4 - $2) }' >>"$work/$1.bpf"
}

# one SETUP: one run of it, "wall thread" ns per call appended to $work/SETUP
one() {
    s=$1
    alive=1
    case $s in
    native) r=$("$LOOP" read1 "$N" x) ;;
    clock) r=$("$LOOP" clock2 "$N" x) ;;
    preload) r=$("$REC" --capture preload -o "$work/t.zst" -- "$LOOP" read1 "$N" x) ;;
    pair_native) r=$("$LOOP" read1pair "$N" x) ;;
    pair_preload) r=$("$REC" --capture preload -o "$work/t.zst" -- "$LOOP" read1pair "$N" x) ;;
    kernel)
        # in the background, so that its programs' run time can be read
        # while they are loaded: the last reading before the loop ends
        "$REC" --capture kernel -o "$work/t.zst" -- "$LOOP" read1 "$N" x >"$work/k.out" &
        kb=$!
        last=""
        while kill -0 $kb 2>/dev/null; do
            cur=$(prog_stats $kb on_enter on_exit)
            [ -n "$cur" ] && last=$cur
            sleep 0.1
        done
        wait $kb
        r=$(cat "$work/k.out")
        bpf_delta kernel "0 0" "$last" ;;
    untraced)
        start_bg '[ "$(bpf_fds)" != 0 ]' "$REC" --capture kernel -o "$work/bg.zst" -- sleep 600
        sleep 0.5  # loaded is not yet attached
        kp=$(pgrep -n -P $bg -x iorecord || echo $bg)
        b0=$(prog_stats $kp on_enter on_exit)
        r=$("$LOOP" read1 "$N" x)
        bpf_delta untraced "$b0" "$(prog_stats $kp on_enter on_exit)"
        stop_bg ;;
    empty | timed)
        # bench/empty.bpf.c's programs named ${s}_*: empty, or reading the clock
        start_bg 'grep -q attached "$work/bg.out"' "$FLOOR" "$EMPTY" ${s}_
        b0=$(prog_stats $bg ${s}_enter ${s}_exit)
        r=$("$LOOP" read1 "$N" x)
        bpf_delta $s "$b0" "$(prog_stats $bg ${s}_enter ${s}_exit)"
        stop_bg ;;
    bpftrace)
        # BEGIN runs once every probe is attached ("Attaching" comes before)
        start_bg 'grep -q ready "$work/bg.out"' \
            env $bpftrace_env bpftrace -e 'BEGIN { printf("ready\n"); }
                         tracepoint:syscalls:sys_enter_read { @reads[pid] = count(); }'
        b0=$(prog_stats $bg sys_enter_read)
        r=$("$LOOP" read1 "$N" x)
        bpf_delta bpftrace "$b0" "$(prog_stats $bg sys_enter_read)"
        stop_bg ;;
    strace) r=$(strace -f -o /dev/null "$LOOP" read1 $((N / 100)) x) ;;
    esac
    rm -f "$work/t.zst"
    # a background watcher that died before the loop ended measured nothing
    [ "$alive" = 0 ] && return
    set -- $r
    # three figures a run (read1pair's: two)
    [ $# -ge 2 ] && echo "$1 $2" >>"$work/$s"
}

# BPF run time: root, a kernel that counts it, bpftool to read it
if [ "$(id -u)" = 0 ] && command -v bpftool >/dev/null 2>&1 &&
   [ -r /proc/sys/kernel/bpf_stats_enabled ]; then
    stats_was=$(cat /proc/sys/kernel/bpf_stats_enabled)
    sysctl -qw kernel.bpf_stats_enabled=1 2>/dev/null || stats_was=""
fi

setups="native preload clock"
have_pairs=0
"$LOOP" read1pair 1000 x >/dev/null 2>&1 && have_pairs=1
[ $have_pairs = 1 ] && setups="$setups pair_native pair_preload"
[ $have_kernel = 1 ] && setups="$setups kernel untraced"
[ $have_floor = 1 ] && setups="$setups empty timed"
[ $have_bpftrace = 1 ] && setups="$setups bpftrace"
[ $have_strace = 1 ] && setups="$setups strace"
for i in $(seq "$ROUNDS"); do
    for s in $setups; do
        one $s
    done
done

# median COLUMN FILE
median() {
    cut -d' ' -f"$1" "$2" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
nw=$(median 1 "$work/native") nt=$(median 2 "$work/native")
echo "read1 (1-byte read of /dev/zero), $N calls per run ($((N / 100)) under strace), median of $ROUNDS interleaved rounds"
printf '%-34s %9s %9s %11s %11s\n' setup wall_ns thread_ns added_wall added_thread
for s in $setups; do
    case $s in pair_*) continue ;; esac
    [ -s "$work/$s" ] || { printf '%-34s %9s\n' "$s" "failed"; continue; }
    w=$(median 1 "$work/$s") t=$(median 2 "$work/$s")
    case $s in
    native) label="native" ;;
    preload) label="--capture preload" ;;
    clock) label="clock floor (2 clock reads, no call)" ;;
    kernel) label="--capture kernel" ;;
    untraced) label="untraced, kernel path running" ;;
    empty) label="untraced, empty BPF on its points" ;;
    timed) label="timed BPF floor (2 clock reads)" ;;
    bpftrace) label="bpftrace sys_enter_read count" ;;
    strace) label="strace -f" ;;
    esac
    if [ $s = clock ]; then
        printf '%-34s %9s %9s %11s %11s\n' "$label" "$w" "$t" - -
    else
        printf '%-34s %9s %9s %+11d %+11d\n' "$label" "$w" "$t" $((w - nw)) $((t - nt))
    fi
    eval "w_$s=$w t_$s=$t"
done
bpf_med() { [ -s "$work/$1.bpf" ] && sort -n "$work/$1.bpf" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
if [ -n "$stats_was" ]; then
    echo "BPF programs' own time per run (kernel.bpf_stats_enabled; enter and exit runs averaged, median of rounds; each run also pays the kernel's two clock reads for the count):"
    for s in untraced empty timed kernel bpftrace; do
        v=$(bpf_med $s) || continue
        case $s in
        untraced) label="ours, the loop untraced" ;;
        empty) label="empty programs" ;;
        timed) label="programs reading the clock" ;;
        kernel) label="ours, recording the loop" ;;
        bpftrace) label="bpftrace's sys_enter_read count" ;;
        esac
        printf '  %-34s %9s ns/run\n' "$label" "$v"
        eval "b_$s=$v"
    done
    # per read: two runs of ours, of the empty and of the timed programs
    # (enter and exit), one of bpftrace's (enter only)
    if [ -n "$b_untraced" ] && [ -n "$b_empty" ]; then
        awk -v o="$b_untraced" -v e="$b_empty" 'BEGIN {
            printf "untraced process, BPF time per read: ours %.1f ns, empty programs %.1f: %+.1f ns (goal <= +10)\n", 2 * o, 2 * e, 2 * (o - e) }'
    fi
    if [ -n "$b_kernel" ] && [ -n "$b_bpftrace" ]; then
        awk -v k="$b_kernel" -v b="$b_bpftrace" -v t="${b_timed:-}" 'BEGIN {
            printf "kernel path, BPF time per read: ours recording %.1f ns, bpftrace counting %.1f", 2 * k, b
            if (t != "")
                printf ", the timed floor %.1f (%s bpftrace)", 2 * t, (2 * t >= b) ? "at or above" : "below"
            printf " (goal: ours below bpftrace)\n" }'
    fi
fi
if [ -n "$t_preload" ] && [ -n "$t_clock" ]; then
    echo "preload: added $((t_preload - nt)) ns thread CPU ($((w_preload - nw)) wall) against a floor of $t_clock ($w_clock wall): $((t_preload - nt - t_clock)) ns over it (goal <= 15)"
fi
if [ $have_pairs = 1 ] && [ -s "$work/pair_native" ] && [ -s "$work/pair_preload" ] && [ -n "$t_clock" ]; then
    awk -v nw="$(median 1 "$work/pair_native")" -v nt="$(median 2 "$work/pair_native")" \
        -v pw="$(median 1 "$work/pair_preload")" -v pt="$(median 2 "$work/pair_preload")" -v f="$t_clock" 'BEGIN {
        printf "preload, in one process (read() less the syscall instruction'"'"'s read, in turns): %.1f ns thread CPU natively, %.1f recorded:", nt, pt
        printf " added %.1f (%.1f wall) against a floor of %d: %.1f ns over it (goal <= 15)\n", pt - nt, pw - nw, f, pt - nt - f }'
fi
if [ -n "$t_untraced" ] && [ -n "$t_empty" ]; then
    echo "untraced process: added $((t_untraced - nt)) ns thread CPU against empty programs' $((t_empty - nt)): $((t_untraced - t_empty)) ns over them (goal <= 10)"
fi
if [ -n "$t_kernel" ] && [ -n "$t_bpftrace" ]; then
    echo "kernel path: added $((t_kernel - nt)) ns thread CPU, bpftrace's count $((t_bpftrace - nt)) (goal: below)"
fi
