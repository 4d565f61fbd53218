#!/bin/sh
# A failing output stops recording with one warning and the program carries
# on: a full device (ENOSPC) and a file size limit (EFBIG, where the kernel
# would otherwise kill the program with SIGXFSZ). What was written before
# the failure still reads.
set -u
BUILD=${BUILD:-build}
case $BUILD in /*) B=$BUILD ;; *) B=$TOP/$BUILD ;; esac
IOREC=$B/bin/iorecord
IOA=$B/bin/ioanalyze
PROG=$B/bin/progs/rec_threads
[ -x "$IOREC" ] && [ -x "$PROG" ] || { echo "recorder not built"; exit 77; }
[ -x "$IOA" ] || { echo "ioanalyze not built"; exit 77; }
if ldd "$B/lib/libiorecord.so" | grep -q libasan; then
    asan=$(ldd "$B/lib/libiorecord.so" | awk '/libasan/ { print $3 }')
    export LD_PRELOAD="$asan" ASAN_OPTIONS=detect_leaks=0
fi
tmp=$(mktemp -d /tmp/ioscope-e2e-failure.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0

if [ -w /dev/full ]; then
    "$IOREC" -o /dev/full "$PROG" 20000 > "$tmp/out" 2> "$tmp/err"; rc=$?
    [ $rc = 0 ] || { echo "FAIL /dev/full: exit $rc"; fail=1; }
    [ "$(wc -l < "$tmp/err")" = 1 ] || { echo "FAIL /dev/full: stderr: $(cat "$tmp/err")"; fail=1; }
    grep -q "cannot write trace '/dev/full': No space left on device; recording stopped" "$tmp/err" \
        || { echo "FAIL /dev/full message: $(cat "$tmp/err")"; fail=1; }
    [ -s "$tmp/out" ] && { echo "FAIL /dev/full: stdout not empty"; fail=1; }
fi

# 64 blocks of 512 bytes (POSIX sh counts ulimit -f in 512-byte units).
sh -c "ulimit -f 64 && exec \"$IOREC\" -o \"$tmp/big.zst\" \"$PROG\"" 2> "$tmp/err"; rc=$?
[ $rc = 0 ] || { echo "FAIL file size limit: exit $rc (SIGXFSZ is 153)"; fail=1; }
[ "$(wc -l < "$tmp/err")" = 1 ] || { echo "FAIL file size limit: stderr: $(cat "$tmp/err")"; fail=1; }
grep -q "File too large; recording stopped" "$tmp/err" || { echo "FAIL EFBIG message: $(cat "$tmp/err")"; fail=1; }
size=$(stat -c %s "$tmp/big.zst")
[ "$size" -le 32768 ] || { echo "FAIL trace passed the limit: $size bytes"; fail=1; }
"$IOA" info "$tmp/big.zst" > "$tmp/info" 2>&1 || { echo "FAIL truncated trace unreadable"; fail=1; }
grep -q 'damage: none' "$tmp/info" || { echo "FAIL whole frames only: $(cat "$tmp/info")"; fail=1; }
[ $fail = 0 ] && echo "ok   ENOSPC and EFBIG stop recording, the program carries on"
exit $fail
