#!/bin/sh
# The copies between two fds, decoded by the kernel path: rec_copies makes
# 8 copy_file_range, 8 sendfile and 16 splice calls (with and without an
# input offset). Recorded with --capture kernel, the trace has as many of
# each as strace counts, and each call's fields (op, fd, in_fd, size,
# offset, ret) are the ones the preload records for the same run; the
# program's output and exit status are its own. Needs root and the kernel
# path; strace's count is skipped (said) where strace cannot trace.
set -u
. "$(dirname "$0")/lib.sh"
PROG=$BUILD/bin/progs/rec_copies
need_built "$IORECORD" "$IOANALYZE" "$PROG"
REC_ENV=$(asan_env "$LIBIORECORD")
[ -z "$REC_ENV" ] || export $REC_ENV
work_dir kernel-copies
cd "$work" || exit 1
[ "$(id -u)" = 0 ] || skip "the kernel capture path needs root"
"$IORECORD" --capture kernel -o probe.zst true 2> probe.err ||
    skip "kernel capture unavailable: $(sed 's/^iorecord: //' probe.err | head -n 1)"

"$PROG" n.dat > native.out
native_rc=$?
[ "$(cat native.out)" = "copy_file_range 8 sendfile 8 splice 16" ] ||
    die "rec_copies natively: exit $native_rc: $(cat native.out)"

# fields TRACE: the copies' fields, one line per call, in order
fields() {
    "$IOANALYZE" dump --format jsonl --op copy_file_range,sendfile,splice "$1" 2>/dev/null |
        sed -n 's/.*"op":"\([a-z_]*\)".*"ret":\([-0-9]*\),"errno":\([a-z0-9]*\),"fd":\([-0-9]*\).*"size":\([-0-9a-z]*\),"offset":\([-0-9a-z]*\).*"in_fd":\([-0-9a-z]*\).*/\1 ret=\2 errno=\3 fd=\4 size=\5 offset=\6 in_fd=\7/p'
}
count() {  # FIELDS OP
    grep -c "^$2 " "$1"
}

"$IORECORD" --capture kernel -o k.zst -- "$PROG" k.dat > k.out
rc=$?
[ $rc -eq $native_rc ] || not_ok "kernel: exit $rc, $native_rc natively"
cmp -s native.out k.out || not_ok "kernel: output $(cat k.out)"
fields k.zst > k.fields
"$IORECORD" --capture preload -o p.zst -- "$PROG" p.dat > p.out ||
    die "the preload's run failed"
fields p.zst > p.fields
[ "$(count p.fields copy_file_range) $(count p.fields sendfile) $(count p.fields splice)" = "8 8 16" ] ||
    die "the preload's trace: $(count p.fields copy_file_range) $(count p.fields sendfile) $(count p.fields splice)"
got="$(count k.fields copy_file_range) $(count k.fields sendfile) $(count k.fields splice)"
[ "$got" = "8 8 16" ] || not_ok "kernel: copy_file_range, sendfile, splice: $got, not 8 8 16"
cmp -s p.fields k.fields ||
    not_ok "kernel: fields differ from the preload's: $(diff p.fields k.fields | head -n 4 | tr '\n' ' ')"
grep -q "offset=16384" k.fields || not_ok "kernel: no copy has its offset"

if have strace && strace -f -o /dev/null true 2>/dev/null; then
    strace -f -e trace=copy_file_range,sendfile,splice -o st.txt "$PROG" s.dat > /dev/null
    st="$(grep -c ' copy_file_range(' st.txt) $(grep -c ' sendfile(' st.txt) $(grep -c ' splice(' st.txt)"
    [ "$st" = "$got" ] || not_ok "kernel counts $got, strace $st"
else
    echo "SKIP strace's count: strace cannot trace here"
fi
exit $fail
