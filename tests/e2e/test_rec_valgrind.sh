#!/bin/sh
# Each call counted once under valgrind: as root, `iorecord valgrind -q
# rec_smallio` runs the program inside valgrind's static tool, which the
# preload cannot enter but which loads the preload into its guest; the
# kernel path follows the tool from valgrind's launcher on. The trace holds
# exactly the program's own calls on its file, as the native run's trace
# and strace count them (1000 writes, 201 opens, 200 reads, 201 closes), not
# twice, and none of valgrind's own reads; the output and exit status are
# the program's. Also with --capture both, and with --capture preload,
# where no kernel path follows the tool: the preload in its guest records
# the program, and nothing is said unrecorded (valgrind's tool is static,
# but it runs the program it loads with the preload). Needs valgrind (skipped
# without), root and the kernel path (where it cannot run, the preload in
# the guest is the one source anyway: the counts are checked all the same).
# e2e: slow (valgrind runs the program a few times, some seconds each)
set -u
. "$(dirname "$0")/lib.sh"
PROG=$BUILD/bin/progs/rec_smallio
need_built "$IORECORD" "$IOANALYZE" "$PROG"
have valgrind || skip "valgrind is not installed"
[ -n "$(asan_runtime "$LIBIORECORD")" ] && skip "valgrind does not run ASan builds"
work_dir valgrind
cd "$work" || exit 1
valgrind -q "$PROG" probe.dat > /dev/null 2>&1 || skip "valgrind cannot run here"

# calls TRACE OP FILE: the calls of OP on FILE in TRACE
calls() {
    "$IOANALYZE" dump --format jsonl --path "$work/$3" --op "$2" "$1" 2>/dev/null | grep -c '"ev":"call"'
}
# the native counts: strace's and the native trace's
if have strace && strace -f -o /dev/null true 2>/dev/null; then
    strace -f -e trace=openat,write,read,close -y -o st.txt "$PROG" s.dat > /dev/null
    st_w=$(grep -c "^[0-9]* *write([0-9]*</.*/s.dat>" st.txt)
    st_r=$(grep -c "^[0-9]* *read([0-9]*</.*/s.dat>" st.txt)
    [ "$st_w $st_r" = "1000 200" ] || die "strace counts $st_w writes, $st_r reads"
else
    echo "SKIP strace's count: strace cannot trace here"
fi
"$IORECORD" -o n.zst -- "$PROG" n.dat > n.out 2>&1
native_rc=$?
want="$(calls n.zst write n.dat) $(calls n.zst open n.dat) $(calls n.zst read n.dat) $(calls n.zst close n.dat)"
[ "$want" = "1000 201 200 201" ] || die "the native trace counts $want"

for mode in auto both preload; do
    rm -f v.dat
    "$IORECORD" --capture "$mode" -o "v_$mode.zst" -- valgrind -q "$PROG" v.dat > v.out 2> v.err
    rc=$?
    [ $rc -eq $native_rc ] || not_ok "$mode: exit $rc, $native_rc natively: $(cat v.err)"
    [ -s v.err ] && not_ok "$mode: stderr: $(cat v.err)"
    got="$(calls "v_$mode.zst" write v.dat) $(calls "v_$mode.zst" open v.dat) $(calls "v_$mode.zst" read v.dat) $(calls "v_$mode.zst" close v.dat)"
    [ "$got" = "$want" ] || not_ok "$mode: writes, opens, reads, closes $got, natively $want"
    # the tool's own reading (its files under /usr/lib*/valgrind, the
    # program's debug info) is none of the program's; the launcher's images
    # before it (the /usr/bin/valgrind script's shell, valgrind.bin, which
    # reads the program's ELF header) are recorded as any image is
    own=$("$IOANALYZE" dump --format jsonl --op read,pread "v_$mode.zst" 2>/dev/null |
          grep -v '"process":"valgrind.bin"' | grep -c -e '"path":"/usr/lib[^"]*/valgrind/' -e "\"path\":\"$PROG\"")
    [ "$own" = 0 ] || not_ok "$mode: $own reads of valgrind's or the program's files in the trace"
    "$IOANALYZE" --format json "v_$mode.zst" > v.json 2> v.sum
    grep -q '"rule": "unobserved"' v.json &&
        not_ok "$mode: an unobserved issue, though the program was recorded"
    grep -q 'ran unrecorded' v.sum && not_ok "$mode: summary: $(cat v.sum)"
done
exit $fail
