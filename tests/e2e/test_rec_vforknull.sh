#!/bin/sh
# A child whose stdout is replaced before its exec (a vfork child's dup2,
# posix_spawn's dup2 file action) writes where the child's fd 1 goes, not
# where its parent's goes: ls's writes are on /dev/null in the dump, none
# is on the parent's stdout file, and the parent's own writes after the
# child (its fd table untouched by the child's dup2) stay on that file.
# Output and exit status as in a plain run.
set -u
. "$(dirname "$0")/lib.sh"
PROG=$BUILD/bin/progs/rec_vforknull
need_built "$IORECORD" "$IOANALYZE" "$PROG"
LS=$(command -v ls) || skip "no ls"
REC_ENV=$(asan_env "$LIBIORECORD")
[ -z "$REC_ENV" ] || export $REC_ENV
work_dir vforknull
cd "$work" || exit 1
mkdir d
for i in $(seq 1 40); do : > "d/file$i"; done

# count PATTERN FILE: lines of FILE matching the extended regex PATTERN
count() { grep -Ec "$1" "$2"; }

for how in vfork spawn; do
    "$PROG" $how "$LS" d > plain.txt; prc=$?
    "$IORECORD" -o $how.zst -- "$PROG" $how "$LS" d > out.txt; rc=$?
    [ $rc = $prc ] || not_ok "$how: exit $rc recorded, $prc plain"
    cmp -s plain.txt out.txt || not_ok "$how: output differs: $(cat out.txt)"
    [ "$(cat out.txt)" = "$(printf 'starting\nchild done')" ] || not_ok "$how: output $(cat out.txt)"
    "$IOANALYZE" dump --format jsonl $how.zst > $how.jsonl || { not_ok "$how: dump failed"; continue; }
    # ls's data calls on fd 1 (fwrite, or write), by where they land
    lsw='"process":"ls","op":"(fwrite|write|fputs|fputc|fprintf)"'
    on_null=$(count "$lsw.*\"fd\":1,\"path\":\"/dev/null\"" $how.jsonl)
    on_out=$(count "$lsw.*\"path\":\"$work/out.txt\"" $how.jsonl)
    all=$(count "$lsw.*\"fd\":1," $how.jsonl)
    [ "$all" -gt 0 ] || not_ok "$how: no write of ls's recorded"
    [ "$on_null" = "$all" ] || not_ok "$how: $on_null of ls's $all writes on /dev/null"
    [ "$on_out" = 0 ] || not_ok "$how: $on_out of ls's writes on the parent's out.txt"
    # the parent: "starting" before the child and "child done" after it,
    # both on out.txt
    pw='"process":"rec_vforknull","op":"(fputs|fwrite|write|fprintf|fflush)"'
    par=$(count "$pw.*\"fd\":1,\"path\":\"$work/out.txt\"" $how.jsonl)
    parall=$(count "$pw.*\"fd\":1," $how.jsonl)
    [ "$parall" -ge 2 ] && [ "$par" = "$parall" ] ||
        not_ok "$how: $par of the parent's $parall stdout calls on out.txt"
    # "child done", written after the child's dup2 and exec
    after=$(count "\"process\":\"rec_vforknull\",\"op\":\"fputs\".*\"fd\":1,\"path\":\"$work/out.txt\".*\"size\":11," $how.jsonl)
    [ "$after" = 1 ] || not_ok "$how: the parent's write after the child is not on out.txt"
    echo "$how: ls $all writes on fd 1, $on_null on /dev/null, $on_out on out.txt; parent $par of $parall on out.txt"
done
[ $fail = 0 ] && echo "ok   a vfork or spawned child's redirected stdout is the child's"
exit $fail
