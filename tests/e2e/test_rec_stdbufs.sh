#!/bin/sh
# stdio buffers as glibc sets them, recorded and judged (tests/progs/rec_stdbufs.c).
# strace counts the program's write syscalls natively; the recorded trace's
# buffer model must agree, and small_buffer judge accordingly:
#   stderr        60,000 fprintf(stderr) lines: 60,000 writes (stderr is
#                 unbuffered), small_buffer "unbuffered stdio stream"
#   stderr_write  the same lines by write(2): small_buffer too
#   buf0          setvbuf(f, buf, _IOFBF, 0): glibc makes it unbuffered, one
#                 write per fwrite: small_buffer "unbuffered stdio stream"
#   null0/null64k setvbuf(f, NULL, _IOFBF, N): glibc ignores N and keeps its
#                 st_blksize buffer: 25 writes for 1,000 100-byte fwrites, no
#                 issue, and the trace's setvbuf says size 0 (glibc's own)
# small_buffer runs with min_continual_ms=0: the verdicts, not the timing.
# e2e: slow (about 12 s CPU here: every stdio buffering mode recorded)
set -u
. "$(dirname "$0")/lib.sh"
PROG=$BUILD/bin/progs/rec_stdbufs
need_built "$IORECORD" "$IOANALYZE" "$PROG"
have python3 || skip "python3 is not installed"
work_dir stdbufs
cd "$work" || exit 1

# field FIELD of the small_buffer issue on PATH in JSON, "none" without one
issue_field() {  # JSON PATH FIELD
    python3 -c 'import json, sys
issues = [i for i in json.load(open(sys.argv[1])) if i["rule"] == "small_buffer" and i["path"] == sys.argv[2]]
print(len(issues) and (issues[0]["detail"] | issues[0])[sys.argv[3]] or "none")' "$@"
}

# native write syscalls on fd FD (strace), "-" when strace cannot run here
native_writes() {  # FD CMD...
    _fd=$1; shift
    if have strace && strace -f -o /dev/null true 2>/dev/null; then
        strace -o native.st -e trace=write "$@" 2>/dev/null
        grep -c "^write($_fd," native.st
    else
        echo -
    fi
}

check() {  # CASE N FD WANT_SYSCALLS WANT_MESSAGE_START
    _case=$1 _n=$2 _fd=$3 _want=$4 _msg=$5
    _out=$work/$_case.out
    nat=$(native_writes "$_fd" "$PROG" "$_case" "$_n" "$_out" 2>"$work/$_case.err")
    [ "$nat" = - ] || [ "$nat" = "$_want" ] ||
        not_ok "$_case: glibc made $nat writes natively, the test expects $_want"
    (asan_preload "$LIBIORECORD"; exec "$IORECORD" -o "$_case.zst" -- "$PROG" "$_case" "$_n" "$_out") \
        2>"$work/$_case.err" || { not_ok "$_case: recorded run failed"; return; }
    "$IOANALYZE" --set small_buffer.min_continual_ms=0 "$_case.zst" >"$_case.json" 2>/dev/null ||
        { not_ok "$_case: ioanalyze failed"; return; }
    _path=$_out
    case $_case in stderr*) _path=$work/$_case.err ;; esac
    got=$(issue_field "$_case.json" "$_path" syscalls)
    if [ "$_msg" = none ]; then
        [ "$got" = none ] || not_ok "$_case: small_buffer issue with $got syscalls, expected none"
        return
    fi
    [ "$got" = "$_want" ] || not_ok "$_case: small_buffer syscalls $got, expected $_want"
    msg=$(issue_field "$_case.json" "$_path" message)
    case $msg in "$_msg"*) ;; *) not_ok "$_case: message '$msg', expected '$_msg...'" ;; esac
}

check stderr 60000 2 60000 "unbuffered stdio stream: 60000 fprintf calls"
check stderr_write 60000 2 60000 "10-byte writes: 60000 write() calls"
check buf0 1000 3 1000 "unbuffered stdio stream: 1000 fwrite calls"
check null0 1000 3 25 none
check null64k 1000 3 25 none
for c in null0 null64k; do
    "$IOANALYZE" dump --format jsonl "$c.zst" | grep '"op":"setvbuf"' | grep -q '"size":0,' ||
        not_ok "$c: the trace's setvbuf does not say glibc's own size (0)"
done
exit $fail
