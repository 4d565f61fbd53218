#!/bin/sh
# read() stays a cancellation point under the recorder, which makes a
# single-threaded process's read, write, pread and pwrite itself where libc
# would make them without cancellation handling: a process that cancelled
# itself is cancelled at its read, and a thread blocked in read() by
# pthread_cancel, as natively (same output, same exit status).
# e2e: fast
set -u
. "$(dirname "$0")/lib.sh"
PROG=$BUILD/bin/progs/rec_cancel
need_built "$IORECORD" "$PROG"
REC_ENV=$(asan_env "$LIBIORECORD")
[ -z "$REC_ENV" ] || export $REC_ENV
work_dir cancel
cd "$work" || exit 1

for mode in self thread; do
    timeout 20 "$PROG" $mode > native.txt; nrc=$?
    timeout 20 "$IORECORD" -o $mode.zst -- "$PROG" $mode > rec.txt; rrc=$?
    [ $nrc = $rrc ] || not_ok "$mode: exit $rrc recorded, $nrc natively"
    cmp -s native.txt rec.txt || not_ok "$mode: recorded '$(cat rec.txt)', natively '$(cat native.txt)'"
done
# what natively happens, so that the comparison above compares something
[ "$(timeout 20 "$PROG" self)" = "" ] || not_ok "self: natively not cancelled at read"
[ "$(timeout 20 "$PROG" thread)" = cancelled ] || not_ok "thread: natively not cancelled"
[ $fail = 0 ] && echo "ok   read() is a cancellation point recorded as natively (self and thread)"
exit $fail
