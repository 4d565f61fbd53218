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
BUILD=${BUILD:-build}
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$TOP" || exit 1
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
PROG=$BUILD/bin/progs/fault_io
IORECORD=$BUILD/bin/iorecord
IOANALYZE=$BUILD/bin/ioanalyze
LIB=$BUILD/lib/libiorecord.so
CALLS=20000
for f in "$PROG" "$IORECORD" "$IOANALYZE" "$LIB"; do
    [ -e "$f" ] || { echo "skip: '$f' is not built"; exit 77; }
done

. "$TOP/tests/e2e/lib.sh"

T=$(mktemp -d "${TMPDIR:-/tmp}/ioscope-fault.XXXXXX") || exit 1
MNT=
cleanup() {
    [ -n "$MNT" ] && umount "$MNT" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
failed=0
bad() {
    echo "FAIL [$what]: $*"
    failed=1
}

# The reference: no recorder.
mkdir "$T/ref"
FAULT_NOWAIT=1 "$PROG" "$T/ref" 3 $CALLS >"$T/ref.out" 2>"$T/ref.err"
ref_rc=$?
[ $ref_rc -eq 0 ] || { cat "$T/ref.out" "$T/ref.err"; echo "FAIL: fault_io fails on its own"; exit 1; }
# every run from here on is recorded
asan_preload "$LIB"

# check CASE RC OUT ERR: same output and status, exactly one warning line.
check_run() {
    [ "$2" -eq $ref_rc ] || bad "exit status $2, $ref_rc without the recorder"
    cmp -s "$T/ref.out" "$3" || { bad "output differs from a run without the recorder"; diff "$T/ref.out" "$3" | head -n 5; }
    lines=$(wc -l <"$4")
    [ "$lines" -eq 1 ] || { bad "$lines lines on stderr, expected exactly one warning:"; sed 's/^/    /' "$4" | head -n 5; }
    grep -q '^iorecord: ' "$4" || bad "the warning does not start with 'iorecord: '"
}

# check_trace CASE TRACE MIN_CALLS: reads, and holds at least MIN_CALLS calls.
check_trace() {
    [ -s "$2" ] || { bad "no trace left in '$2'"; return; }
    if ! "$IOANALYZE" info "$2" >"$T/info" 2>"$T/info.err"; then
        bad "ioanalyze info cannot read what was written: $(cat "$T/info.err")"
        return
    fi
    calls=$(sed -n 's/^events: [0-9]* (\([0-9]*\) calls.*/\1/p' "$T/info")
    [ "${calls:-0}" -ge "$3" ] || bad "the trace holds ${calls:-0} calls, expected at least $3"
    echo "  [$what] trace $(wc -c <"$2") bytes, ${calls:-0} calls read back; $(grep '^damage:' "$T/info")"
}

# --- fsize: the trace passes RLIMIT_FSIZE (never SIGXFSZ for the program)
what="fsize"
mkdir "$T/fsize"
# 256 blocks: 128 KiB in dash's 512-byte units, 256 KiB in bash's 1 KiB;
# the program's own files stay under 4 KiB either way.
(ulimit -f 256 && FAULT_NOWAIT=1 "$IORECORD" -o "$T/fsize/trace.zst" -- "$PROG" "$T/fsize" 3 $CALLS \
    >"$T/fsize.out" 2>"$T/fsize.err")
check_run fsize $? "$T/fsize.out" "$T/fsize.err"
check_trace fsize "$T/fsize/trace.zst" 1

# --- tmpfs: the disk holding the trace fills up
what="tmpfs"
mkdir "$T/tmpfs" "$T/mnt"
if mount -t tmpfs -o size=128k ioscope-test "$T/mnt" 2>/dev/null; then
    MNT=$T/mnt
    FAULT_NOWAIT=1 "$IORECORD" -o "$T/mnt/trace.zst" -- "$PROG" "$T/tmpfs" 3 $CALLS \
        >"$T/tmpfs.out" 2>"$T/tmpfs.err"
    check_run tmpfs $? "$T/tmpfs.out" "$T/tmpfs.err"
    check_trace tmpfs "$T/mnt/trace.zst" 1
    umount "$MNT" && MNT=
else
    echo "  [tmpfs] skipped: cannot mount a tmpfs here (not root?)"
fi

# --- rmdir: the output directory disappears between phase 1 and phase 2
what="rmdir"
mkdir "$T/rmdir" "$T/out"
"$IORECORD" -o "$T/out/trace.zst" -- "$PROG" "$T/rmdir" 3 $CALLS >"$T/rmdir.out" 2>"$T/rmdir.err" &
pid=$!
i=0
while [ ! -e "$T/rmdir/ready.1" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
# What reached the file before the fault: wait until an idle second has
# passed (the recorder writes chunks out within a second), then keep a copy.
sleep 2.5
cp "$T/out/trace.zst" "$T/before.zst" 2>/dev/null
rm -rf "$T/out"
touch "$T/rmdir/go.1" "$T/rmdir/go.2"
wait $pid
check_run rmdir $? "$T/rmdir.out" "$T/rmdir.err"
# phase 1: the program's pwrite+pread pairs and its child's
check_trace rmdir "$T/before.zst" $((CALLS * 4))

# --- badpath: the trace cannot be created at all
what="badpath-launcher"
mkdir "$T/badpath"
: >"$T/notadir"
"$IORECORD" -o "$T/notadir/trace.zst" -- "$PROG" "$T/badpath" 1 10 >"$T/bad1.out" 2>"$T/bad1.err"
rc=$?
# SPEC: the launcher refuses with a one-line error and a non-zero exit.
[ $rc -ne 0 ] || bad "iorecord accepted an output path it cannot create"
[ "$(wc -l <"$T/bad1.err")" -eq 1 ] || { bad "expected one error line:"; cat "$T/bad1.err"; }
what="badpath-preload"
FAULT_NOWAIT=1 LD_PRELOAD=${LD_PRELOAD:+$LD_PRELOAD:}$LIB IORECORD_OUTPUT=$T/notadir/trace.zst "$PROG" "$T/badpath" 3 $CALLS \
    >"$T/bad2.out" 2>"$T/bad2.err"
check_run badpath-preload $? "$T/bad2.out" "$T/bad2.err"

[ $failed -eq 0 ] && echo "ok: fsize, tmpfs, rmdir, badpath: programs unaffected, one warning, traces readable"
exit $failed
