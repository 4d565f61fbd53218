#!/bin/sh
# The recorder's output sabotaged while the program runs
# (tests/progs/fault_io.c, which also execs a child per phase):
#   fsize   a file size limit (ulimit -f) the trace passes
#   tmpfs   the trace on a small tmpfs that fills up (needs mount: else skipped)
#   rmdir   the output directory removed between two phases
#   badpath an output path that cannot be created, through the launcher and
#           through LD_PRELOAD alone
# In each: the program's output and exit status are those of a run without
# the recorder, stderr holds exactly one warning line, and what was written
# before the fault reads (ioanalyze info exits 0 and counts the calls).
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1
PROG=$BUILD/bin/progs/fault_io
CALLS=20000
need_built "$PROG" "$IORECORD" "$IOANALYZE" "$LIBIORECORD"

work_dir fault
# the tmpfs case mounts a tmpfs at $MNT, inside $work: unmounted first
MNT=
cleanup() {
    [ -n "$MNT" ] && umount "$MNT" 2>/dev/null
    rm -rf "$work"
}
failed=0
bad() {
    echo "FAIL [$what]: $*"
    failed=1
}

# The reference: no recorder.
mkdir "$work/ref"
FAULT_NOWAIT=1 "$PROG" "$work/ref" 3 $CALLS >"$work/ref.out" 2>"$work/ref.err"
ref_rc=$?
[ $ref_rc -eq 0 ] || { cat "$work/ref.out" "$work/ref.err"; echo "FAIL: fault_io fails on its own"; exit 1; }
# every run from here on is recorded
asan_preload "$LIBIORECORD"

# check CASE RC OUT ERR: same output and status, exactly one warning line.
check_run() {
    [ "$2" -eq $ref_rc ] || bad "exit status $2, $ref_rc without the recorder"
    cmp -s "$work/ref.out" "$3" || { bad "output differs from a run without the recorder"; diff "$work/ref.out" "$3" | head -n 5; }
    lines=$(wc -l <"$4")
    [ "$lines" -eq 1 ] || { bad "$lines lines on stderr, expected exactly one warning:"; sed 's/^/    /' "$4" | head -n 5; }
    grep -q '^iorecord: ' "$4" || bad "the warning does not start with 'iorecord: '"
}

# check_trace CASE TRACE MIN_CALLS: reads, and holds at least MIN_CALLS calls.
check_trace() {
    [ -s "$2" ] || { bad "no trace left in '$2'"; return; }
    if ! "$IOANALYZE" info "$2" >"$work/info" 2>"$work/info.err"; then
        bad "ioanalyze info cannot read what was written: $(cat "$work/info.err")"
        return
    fi
    calls=$(sed -n 's/^events: [0-9]* (\([0-9]*\) calls.*/\1/p' "$work/info")
    [ "${calls:-0}" -ge "$3" ] || bad "the trace holds ${calls:-0} calls, expected at least $3"
    echo "  [$what] trace $(wc -c <"$2") bytes, ${calls:-0} calls read back; $(grep '^damage:' "$work/info")"
}

# --- fsize: the trace passes RLIMIT_FSIZE (never SIGXFSZ for the program)
what="fsize"
mkdir "$work/fsize"
# 256 blocks: 128 KiB in dash's 512-byte units, 256 KiB in bash's 1 KiB;
# the program's own files stay under 4 KiB either way.
(ulimit -f 256 && FAULT_NOWAIT=1 "$IORECORD" -o "$work/fsize/trace.zst" -- "$PROG" "$work/fsize" 3 $CALLS \
    >"$work/fsize.out" 2>"$work/fsize.err")
check_run fsize $? "$work/fsize.out" "$work/fsize.err"
check_trace fsize "$work/fsize/trace.zst" 1

# --- tmpfs: the disk holding the trace fills up
what="tmpfs"
mkdir "$work/tmpfs" "$work/mnt"
if mount -t tmpfs -o size=128k ioscope-test "$work/mnt" 2>/dev/null; then
    MNT=$work/mnt
    FAULT_NOWAIT=1 "$IORECORD" -o "$work/mnt/trace.zst" -- "$PROG" "$work/tmpfs" 3 $CALLS \
        >"$work/tmpfs.out" 2>"$work/tmpfs.err"
    check_run tmpfs $? "$work/tmpfs.out" "$work/tmpfs.err"
    check_trace tmpfs "$work/mnt/trace.zst" 1
    umount "$MNT" && MNT=
else
    skip_part tmpfs "cannot mount a tmpfs here (not root?)"
fi

# --- rmdir: the output directory disappears between phase 1 and phase 2
what="rmdir"
mkdir "$work/rmdir" "$work/out"
"$IORECORD" -o "$work/out/trace.zst" -- "$PROG" "$work/rmdir" 3 $CALLS >"$work/rmdir.out" 2>"$work/rmdir.err" &
pid=$!
i=0
while [ ! -e "$work/rmdir/ready.1" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
# What reached the file before the fault: the child's calls (it has exited)
# and the parent's full chunks. The parent's open chunk is written at its
# next call, which fails: the recorder has no thread of its own to write it
# while the program is idle (docs/recorder.md, "Limits"). iorecord writes
# to a spool beside the trace and renames it at the end.
sleep 1
cp "$work/out"/.trace.zst.iorecord-* "$work/before.zst" 2>/dev/null
rm -rf "$work/out"
touch "$work/rmdir/go.1" "$work/rmdir/go.2"
wait $pid
check_run rmdir $? "$work/rmdir.out" "$work/rmdir.err"
# phase 1: the child's pwrite+pread pairs, and some of the program's
check_trace rmdir "$work/before.zst" $((CALLS * 2 + 1))

# --- badpath: the trace cannot be created at all
what="badpath-launcher"
mkdir "$work/badpath"
: >"$work/notadir"
"$IORECORD" -o "$work/notadir/trace.zst" -- "$PROG" "$work/badpath" 1 10 >"$work/bad1.out" 2>"$work/bad1.err"
rc=$?
# SPEC: the launcher refuses with a one-line error and a non-zero exit.
[ $rc -ne 0 ] || bad "iorecord accepted an output path it cannot create"
[ "$(wc -l <"$work/bad1.err")" -eq 1 ] || { bad "expected one error line:"; cat "$work/bad1.err"; }
what="badpath-preload"
FAULT_NOWAIT=1 LD_PRELOAD=${LD_PRELOAD:+$LD_PRELOAD:}$LIBIORECORD IORECORD_OUTPUT=$work/notadir/trace.zst "$PROG" "$work/badpath" 3 $CALLS \
    >"$work/bad2.out" 2>"$work/bad2.err"
check_run badpath-preload $? "$work/bad2.out" "$work/bad2.err"

[ $failed -eq 0 ] && echo "ok: fsize, tmpfs, rmdir, badpath: programs unaffected, one warning, traces readable"
exit $failed
