#!/bin/sh
# A failing output stops recording with one warning and the program carries
# on: a full device (ENOSPC) and a file size limit (EFBIG, where the kernel
# would otherwise kill the program with SIGXFSZ). What was written before
# the failure still reads.
set -u
. "$(dirname "$0")/lib.sh"
PROG=$BUILD/bin/progs/rec_threads
need_built "$IORECORD" "$PROG" "$IOANALYZE"
# A sanitized recorder needs the sanitizer runtime loaded first (make asan):
# exported, so that the run under `sh -c` has it too.
REC_ENV=$(asan_env "$LIBIORECORD")
[ -z "$REC_ENV" ] || export $REC_ENV
work_dir failure

if [ -w /dev/full ]; then
    "$IORECORD" -o /dev/full "$PROG" 20000 > "$work/out" 2> "$work/err"; rc=$?
    [ $rc = 0 ] || { echo "FAIL /dev/full: exit $rc"; fail=1; }
    [ "$(wc -l < "$work/err")" = 1 ] || { echo "FAIL /dev/full: stderr: $(cat "$work/err")"; fail=1; }
    grep -q "cannot write trace '/dev/full': No space left on device; recording stopped" "$work/err" \
        || { echo "FAIL /dev/full message: $(cat "$work/err")"; fail=1; }
    [ -s "$work/out" ] && { echo "FAIL /dev/full: stdout not empty"; fail=1; }
else
    skip_part "disk full (ENOSPC)" "/dev/full is not writable here"
fi

# 64 blocks of 512 bytes (POSIX sh counts ulimit -f in 512-byte units).
sh -c "ulimit -f 64 && exec \"$IORECORD\" -o \"$work/big.zst\" \"$PROG\"" 2> "$work/err"; rc=$?
[ $rc = 0 ] || { echo "FAIL file size limit: exit $rc (SIGXFSZ is 153)"; fail=1; }
[ "$(wc -l < "$work/err")" = 1 ] || { echo "FAIL file size limit: stderr: $(cat "$work/err")"; fail=1; }
grep -q "File too large; recording stopped" "$work/err" || { echo "FAIL EFBIG message: $(cat "$work/err")"; fail=1; }
size=$(stat -c %s "$work/big.zst")
[ "$size" -le 32768 ] || { echo "FAIL trace passed the limit: $size bytes"; fail=1; }
"$IOANALYZE" info "$work/big.zst" > "$work/info" 2>&1 || { echo "FAIL truncated trace unreadable"; fail=1; }
grep -q 'damage: none' "$work/info" || { echo "FAIL whole frames only: $(cat "$work/info")"; fail=1; }
grep -q '^events: [1-9]' "$work/info" || { echo "FAIL nothing kept: $(cat "$work/info")"; fail=1; }

# A limit below one chunk's frame (2 KiB: a full chunk of this program's
# calls compresses to 20 KB or more): the chunk is cut to what fits, so the
# trace still holds the first calls rather than nothing.
sh -c "ulimit -f 4 && exec \"$IORECORD\" -o \"$work/small.zst\" \"$PROG\"" 2> "$work/err"; rc=$?
[ $rc = 0 ] || { echo "FAIL small limit: exit $rc"; fail=1; }
grep -q "File too large; recording stopped" "$work/err" || { echo "FAIL small limit message: $(cat "$work/err")"; fail=1; }
size=$(stat -c %s "$work/small.zst")
[ "$size" -le 2048 ] || { echo "FAIL small limit: trace passed it: $size bytes"; fail=1; }
"$IOANALYZE" info "$work/small.zst" > "$work/info" 2>&1 || { echo "FAIL small limit: unreadable: $(cat "$work/info")"; fail=1; }
grep -q 'damage: none' "$work/info" || { echo "FAIL small limit, whole frames only: $(cat "$work/info")"; fail=1; }
grep -q '^events: [1-9]' "$work/info" || { echo "FAIL small limit, nothing kept: $(cat "$work/info")"; fail=1; }
[ $fail = 0 ] && echo "ok   ENOSPC and EFBIG stop recording, the program carries on"
exit $fail
