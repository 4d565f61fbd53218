#!/bin/sh
# Inputs that arrive through pipes and FIFOs, and inputs by the thousand:
# - a pipe or FIFO of every kind reads exactly as the file it carries (the
#   bytes read to detect its kind are not lost, and it is opened once: a
#   FIFO whose writer has gone does not hang);
# - a native trace from a pipe is copied to an unnamed file, capped by
#   IOSCOPE_SPOOL_MAX (exit 2 naming it), which never shows in TMPDIR, also
#   when ioanalyze is killed while copying;
# - standard input that is no input fails at once (`yes | ioanalyze -`);
# - diff's sides may be pipes and FIFOs too;
# - 20,000 JSONL files and 20,000 strace -ff files need no more than
#   `ulimit -n 256` descriptors, and every event of them is read.
# e2e: slow (about 9 s here: inputs by the thousand)
. "$(dirname "$0")/lib.sh"
FX=$TOP/tests/fixtures
need_built "$IOANALYZE" "$IORECORD" "$LIBIORECORD"
have mkfifo || skip "mkfifo is needed"
work_dir an-streams
spool=$work/tmp
mkdir "$spool"

# run NAME CMD...: ioanalyze CMD with a time limit and a TMPDIR of its own,
# output in $work/NAME.*
run() {
    name=$1; shift
    TMPDIR=$spool timeout 60 "$IOANALYZE" "$@" >"$work/$name.out" 2>"$work/$name.err"
    rc=$?
    [ $rc -ne 124 ] || not_ok "'ioanalyze $*' hung"
    return $rc
}

# same NAME FILE CMD: CMD on FILE and on a pipe of it print the same, the
# input's name and size aside; CMD's exit status is $rc
same() {
    case_=$1 file=$2; shift 2
    run "$case_.file" "$@" "$file"; frc=$rc
    cat "$file" | run "$case_.pipe" "$@" -; rc=$?   # a pipeline's run is a subshell
    [ $rc -eq $frc ] || not_ok "$case_: exit $rc from a pipe, $frc from the file"
    sed 's/^  [^ ]*: /  INPUT: /' "$work/$case_.file.out" >"$work/$case_.want"
    sed 's/^  [^ ]*: /  INPUT: /' "$work/$case_.pipe.out" >"$work/$case_.got"
    cmp -s "$work/$case_.want" "$work/$case_.got" ||
        not_ok "$case_: a pipe reads differently: $(diff "$work/$case_.want" "$work/$case_.got" | cut -c1-200 | head -5)"
    [ -s "$work/$case_.got" ] || not_ok "$case_: no output"
}

# a native trace, recorded here
printf 'one\ntwo\n' >"$work/data"
env $(asan_env "$LIBIORECORD") "$IORECORD" -o "$work/t.zst" -- \
    sh -c "cat '$work/data' '$work/data' >/dev/null" || not_ok "iorecord failed"
# a JSONL file whose first line is longer than what detection peeks at
long=$(head -c 6000 /dev/zero | tr '\0' a)
printf '{"ev":"process","t":0,"pid":7,"ppid":1,"exe":"/bin/x","cmdline":["x","%s"]}\n' "$long" \
    >"$work/long.jsonl"
sed 1d "$FX/rules/leak_fires.jsonl" | sed 's/"pid":[0-9]*/"pid":7/' >>"$work/long.jsonl"

# a -tt strace log is dated by its file's mtime, and a pipe's by the time it
# is read: a fresh copy's mtime is now, so both fall on the same day whatever
# the time of day the checkout was made
cp "$FX/strace/ci_v1.log" "$work/ci_v1.log"
for cmd in info dump analyze; do
    same "native.$cmd" "$work/t.zst" $cmd
    same "strace.$cmd" "$work/ci_v1.log" $cmd
    same "jsonl.$cmd" "$FX/rules/leak_fires.jsonl" $cmd
    same "long.$cmd" "$work/long.jsonl" $cmd
done
# 30, and the cwd the strace importer reads from AT_FDCWD's annotation
grep -q '^events: 31 ' "$work/strace.info.got" || not_ok "strace log from a pipe: $(grep events "$work/strace.info.got")"
# the size of a pipe is what was read of it
sz=$(wc -c <"$FX/strace/ci_v1.log")
grep -q "^  -: strace log, $sz bytes" "$work/strace.info.pipe.out" ||
    not_ok "pipe size: $(head -2 "$work/strace.info.pipe.out")"
# a pipe given as a path, as bash's <(...) gives one
cat "$FX/rules/leak_fires.jsonl" | run subst info /dev/stdin ||
    not_ok "a pipe as a path exited $rc: $(cat "$work/subst.err")"
grep -q '^events: 5 ' "$work/subst.out" || not_ok "a pipe as a path: $(grep events "$work/subst.out")"

# a FIFO whose writer wrote one line and went: read once, no hang
mkfifo "$work/ff"
head -1 "$FX/rules/leak_fires.jsonl" >"$work/ff" &
run fifo info "$work/ff" || not_ok "FIFO exited $rc: $(cat "$work/fifo.err")"
wait
grep -q '^events: 1 ' "$work/fifo.out" || not_ok "FIFO: $(grep events "$work/fifo.out")"

# diff reads a side twice (what is it? then load or analyse it): a FIFO and
# a pipe read like the files they carry
run base "$FX/rules/leak_grouped_by_stack.jsonl"; [ $rc -eq 0 ] || not_ok "analyze exited $rc"
mkfifo "$work/basef"
cat "$work/base.out" >"$work/basef" &
cat "$FX/rules/small_buffer_fires.jsonl" | run diffp diff "$work/basef" /dev/stdin; rc=$?
wait
[ $rc -eq 1 ] || not_ok "diff of a FIFO and a pipe exited $rc: $(cat "$work/diffp.err")"
grep -qx 'diff: 1 new, 1 fixed, 0 unchanged (new: small_buffer 1)' "$work/diffp.err" ||
    not_ok "diff of a FIFO and a pipe: $(cat "$work/diffp.err")"

# not an input: an error at once, nothing spooled
yes | run yes -; rc=$?
[ $rc -eq 2 ] || not_ok "'yes | ioanalyze -' exited $rc"
grep -qx "ioanalyze: '-': not a trace, JSONL event file or strace log" "$work/yes.err" ||
    not_ok "yes: $(cat "$work/yes.err")"

# a native trace over the cap
[ "$(wc -c <"$work/t.zst")" -gt 512 ] || not_ok "the trace is too small to pass the cap"
cat "$work/t.zst" | (IOSCOPE_SPOOL_MAX=512; export IOSCOPE_SPOOL_MAX; run cap -); rc=$?
[ $rc -eq 2 ] || not_ok "over IOSCOPE_SPOOL_MAX exited $rc"
grep -qx "ioanalyze: '-': a trace read from a pipe is copied to a temporary file first, and this one is larger than 512 bytes (IOSCOPE_SPOOL_MAX): give it as a file" \
    "$work/cap.err" || not_ok "cap: $(cat "$work/cap.err")"
[ "$(ls -A "$spool")" = "" ] || not_ok "spool files left: $(ls -A "$spool")"

# killed while copying: the copy never had a name
mkfifo "$work/slow"
(cat "$work/t.zst"; exec sleep 30) >"$work/slow" &
wpid=$!
TMPDIR=$spool "$IOANALYZE" info "$work/slow" >/dev/null 2>&1 &
apid=$!
i=0
while [ $i -lt 100 ] && ! ls -l "/proc/$apid/fd" 2>/dev/null | grep -q "$spool/"; do
    sleep 0.1
    i=$((i + 1))
done
ls -l "/proc/$apid/fd" 2>/dev/null | grep -q "$spool/" || not_ok "no copy open in $spool"
[ "$(ls -A "$spool")" = "" ] || not_ok "a named spool file while copying: $(ls -A "$spool")"
kill -TERM $apid
wait $apid 2>/dev/null
kill $wpid 2>/dev/null
[ "$(ls -A "$spool")" = "" ] || not_ok "spool files left after SIGTERM: $(ls -A "$spool")"

# thousands of files under a small descriptor limit
mkdir "$work/jsonl" "$work/strace_ff"
python3 - "$work" "$FX/rules/leak_fires.jsonl" <<'PY' || not_ok "making the files failed"
import sys
work, fixture = sys.argv[1], sys.argv[2]
line = open(fixture).readline()
for i in range(20000):
    with open("%s/jsonl/f%05d.jsonl" % (work, i), "w") as f:
        f.write(line)
    with open("%s/strace_ff/log.%d" % (work, 1000 + i), "w") as f:
        f.write('1700000000.%06d openat(AT_FDCWD, "/etc/f%d", O_RDONLY) = 3 <0.000010>\n' % (i * 10, i))
        f.write('1700000000.%06d read(3, "abc", 4096) = 3 <0.000010>\n' % (i * 10 + 1))
        f.write('1700000000.%06d close(3) = 0 <0.000010>\n' % (i * 10 + 2))
PY
(ulimit -n 256 && run manyj info "$work/jsonl") || not_ok "20,000 JSONL files, ulimit -n 256: $(tail -1 "$work/manyj.err")"
grep -q '^events: 20000 ' "$work/manyj.out" || not_ok "20,000 JSONL files: $(grep events "$work/manyj.out")"
(ulimit -n 256 && run manyf info "$work/strace_ff") || not_ok "20,000 strace files, ulimit -n 256: $(tail -1 "$work/manyf.err")"
grep -q '^events: 80000 (60000 calls, 20000 process' "$work/manyf.out" ||
    not_ok "20,000 strace files: $(grep events "$work/manyf.out")"
exit $fail
