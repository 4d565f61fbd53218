#!/bin/sh
# iorecord's collector (issue 16): the process that writes the trace for every
# recorded process of the run.
#   daemon     a double-forked daemon outlives iorecord: it is recorded into
#              the same trace until it ends, when the collector ends
#   launcher   iorecord killed -9 mid-run: the collector finishes the trace
#              and puts it at the output once the program ends
#   collector  the collector killed -9: the program runs on unharmed, iorecord
#              exits with its status, and the chunks written before read
#   fault      the output fails while the program's stderr is /dev/null: one
#              warning, on iorecord's own stderr
. "$(dirname "$0")/lib.sh"
need_built "$IOANALYZE" "$IORECORD" "$BUILD/bin/progs/rec_bytewriter"
have setsid || skip "setsid (util-linux) is not installed"
work_dir collector
asan=$(asan_env "$LIBIORECORD")
# The collector's own cases: as root iorecord would first load its kernel
# path (0.1 s and more), which the launcher case's kill -9 would hit
# instead of a run under way
IORECORD_CAPTURE=preload
export IORECORD_CAPTURE

# wait_for FILE PATTERN: until `ioanalyze info FILE` matches (10 s at most)
wait_for() {
    _i=0
    until "$IOANALYZE" info "$1" 2>/dev/null | grep -q "$2"; do
        _i=$((_i + 1))
        [ $_i -lt 500 ] || return 1
        sleep 0.02
    done
}

# --- daemon: setsid + fork, stdio closed, then work after iorecord has
# returned (the test says when, with the file go). A pipeline on iorecord's
# stderr ends with iorecord, not with the daemon.
( env $asan "$IORECORD" -o "$work/daemon.zst" -- sh -c \
    "setsid sh -c 'exec </dev/null >/dev/null 2>&1; while [ ! -e \"$work/go\" ]; do sleep 0.05; done; cat /etc/hostname > \"$work/daemon.out\"' &" \
    2>&1 | cat >"$work/daemon.log"
  : >"$work/daemon.piped" ) &
i=0
until [ -e "$work/daemon.piped" ]; do
    i=$((i + 1))
    [ $i -lt 500 ] || break
    sleep 0.02
done
[ -e "$work/daemon.piped" ] || not_ok "daemon: a pipeline on iorecord's stderr waits for the daemon"
[ ! -s "$work/daemon.log" ] || not_ok "daemon: iorecord said: $(cat "$work/daemon.log")"
: > "$work/go"
wait_for "$work/daemon.zst" '/usr/bin/cat \[cat /etc/hostname\].*exit status 0' ||
    not_ok "daemon: its cat never reached the trace: $("$IOANALYZE" info "$work/daemon.zst" 2>&1)"
"$IOANALYZE" info "$work/daemon.zst" >"$work/daemon.info" 2>&1
grep -q '^damage: none' "$work/daemon.info" || not_ok "daemon: $(grep damage "$work/daemon.info")"
# every process of the run has its exit: sh, the daemon (setsid's sh), its
# sleeps, cat
grep -q '\[sh -c exec .*exit status 0$' "$work/daemon.info" ||
    not_ok "daemon: the daemon's own exit is not in the trace: $(cat "$work/daemon.info")"
nproc=$(sed -n 's/^processes: //p' "$work/daemon.info")
[ "$(grep -c 'exit status 0$' "$work/daemon.info")" -eq "$nproc" ] ||
    not_ok "daemon: not every process ended in the trace: $(cat "$work/daemon.info")"

# --- launcher: kill -9 iorecord; the program goes on and ends
env $asan "$IORECORD" -o "$work/launcher.zst" -- sh -c \
    'i=0; while [ $i -lt 40 ]; do cat /etc/hostname >/dev/null; sleep 0.01; i=$((i+1)); done' &
launcher=$!
sleep 0.1
kill -9 $launcher
wait $launcher 2>/dev/null
wait_for "$work/launcher.zst" '^  pid .*/usr/bin/dash.*exit status 0' ||
    not_ok "launcher: the trace never reached the output: $(ls -a "$work")"
"$IOANALYZE" info "$work/launcher.zst" >"$work/launcher.info" 2>&1
grep -q '^damage: none' "$work/launcher.info" || not_ok "launcher: $(grep damage "$work/launcher.info")"
n=$(grep -c '/usr/bin/cat \[cat /etc/hostname\].*exit status 0' "$work/launcher.info")
[ "$n" -eq 40 ] || not_ok "launcher: $n of 40 cat processes in the trace"
ls -a "$work" | grep -q iorecord- && not_ok "launcher: a spool file was left: $(ls -a "$work")"

# --- collector: kill -9 the collector (iorecord's other child)
mkdir "$work/c"
env $asan "$IORECORD" -o "$work/collector.zst" -- "$BUILD/bin/progs/rec_bytewriter" "$work/c" 2 \
    >"$work/collector.out" 2>"$work/collector.err" &
launcher=$!
i=0
until grep -q ready "$work/collector.out" 2>/dev/null; do
    i=$((i + 1)); [ $i -lt 500 ] || break; sleep 0.01
done
collector=$(ps -o pid=,comm= --ppid $launcher | awk '$2 == "iorecord" { print $1 }')
victim=$(ps -o pid=,comm= --ppid $launcher | awk '$2 == "rec_bytewriter" { print $1 }')
if [ -z "$collector" ] || [ -z "$victim" ]; then
    not_ok "collector: no collector ($collector) or program ($victim) among iorecord's children"
    kill $launcher
else
    sleep 0.3
    kill -9 "$collector"
    # the program writes on: 256 MiB of buffers fill, then it stops recording
    sleep 1
    kill -0 "$victim" 2>/dev/null || not_ok "collector: the program died with the collector"
    kill -TERM "$victim"
    wait $launcher
    rc=$?
    [ $rc -eq 143 ] || not_ok "collector: iorecord exited $rc, not 143 (the program's SIGTERM)"
    "$IOANALYZE" info "$work/collector.zst" >"$work/collector.info" 2>&1 ||
        not_ok "collector: the trace does not read: $(cat "$work/collector.info")"
    # a kill -9 that lands inside the collector's write of a frame leaves
    # that frame cut short (a write to a file stops at a page once the
    # writer has a fatal signal): the reader skips it as one damaged chunk
    # and reads the rest; more than that one is damage the kill did not do
    grep -Eq '^damage: (none|1 damaged chunks?,)' "$work/collector.info" ||
        not_ok "collector: $(grep damage "$work/collector.info")"
    grep -q '^events: [1-9]' "$work/collector.info" || not_ok "collector: nothing kept: $(cat "$work/collector.info")"
fi

# --- fault: the trace's disk is full, the program's stderr is /dev/null
if [ -w /dev/full ]; then
    env $asan "$IORECORD" -o /dev/full -- sh -c \
        'dd if=/dev/zero of=/dev/null bs=1 count=200000 2>/dev/null; echo done' \
        >"$work/fault.out" 2>"$work/fault.err"
    rc=$?
    [ $rc -eq 0 ] || not_ok "fault: iorecord exited $rc"
    [ "$(cat "$work/fault.out")" = done ] || not_ok "fault: stdout: $(cat "$work/fault.out")"
    [ "$(wc -l <"$work/fault.err")" -eq 1 ] || not_ok "fault: stderr: $(cat "$work/fault.err")"
    grep -qx "iorecord: cannot write trace '/dev/full': No space left on device; recording stopped" \
        "$work/fault.err" || not_ok "fault: message: $(cat "$work/fault.err")"
fi
[ $fail -eq 0 ] && echo "ok: daemon, killed launcher, killed collector, output fault"
exit $fail
