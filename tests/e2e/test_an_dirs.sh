#!/bin/sh
# A directory INPUT is walked at every depth: every regular file below it that
# is an input, in path order, each once however many symlinks lead to it;
# symlink loops and special files are skipped with one warning line, and
# nothing hangs (a FIFO is never opened, a loop never followed).
. "$(dirname "$0")/lib.sh"
FX=$TOP/tests/fixtures
need_built "$IOANALYZE"
have mkfifo || skip "mkfifo is needed"
work_dir an-dirs
tree=$work/fleet
mkdir -p "$tree/node1/logs/deep" "$tree/node2" "$tree/.hidden" "$tree/many" "$work/outside"

# the inputs, at several depths
cp "$FX/rules/leak_fires.jsonl" "$tree/top.jsonl"
cp "$FX/rules/small_buffer_fires.jsonl" "$tree/node1/app.jsonl"
cp "$FX/strace/ops.log" "$tree/node1/logs/deep/ops.log"
cp "$FX/strace/pipes.log" "$tree/node1/logs/pipes.log"
cp "$FX/rules/repeat_read_fires.jsonl" "$tree/node2/rr.jsonl"
cp "$FX/rules/random_write_fires.jsonl" "$work/outside/rw.jsonl"
inputs="$tree/node1/app.jsonl $tree/node1/logs/deep/ops.log $tree/node1/logs/pipes.log
$tree/node1/outside/rw.jsonl $tree/node2/rr.jsonl $tree/top.jsonl"
# skipped without a word, as before: files of no known kind, hidden entries
echo "notes, not an input" >"$tree/node2/README"
cp "$FX/rules/leak_fires.jsonl" "$tree/.hidden/h.jsonl"
# what must not be read twice: a link to a file in the tree, a link to a
# directory in the tree (not an ancestor), a directory outside the tree
# linked to twice
ln -s ../node2/rr.jsonl "$tree/node1/link.jsonl"
ln -s ../node2 "$tree/node1/up"
ln -s ../../outside "$tree/node1/outside"
ln -s ../../outside "$tree/node2/outside2"
# what is skipped with the warning: a loop to an ancestor, a link to itself,
# a FIFO
ln -s .. "$tree/node2/loop"
ln -s self "$tree/node2/self"
mkfifo "$tree/node2/fifo" || skip "cannot make a FIFO here"

# run NAME CMD...: run ioanalyze CMD with a time limit, output in $work/NAME.*
run() {
    name=$1; shift
    timeout 60 "$IOANALYZE" "$@" >"$work/$name.out" 2>"$work/$name.err"
    rc=$?
    [ $rc -ne 124 ] || not_ok "'ioanalyze $*' hung"
    return $rc
}

# exactly the inputs, each once, in path order
run info info "$tree" || not_ok "info on the tree exited $rc: $(cat "$work/info.err")"
sed -n 's/^  \(.*\): [a-zA-Z]* [a-z]*, [0-9]* bytes.*/\1/p' "$work/info.out" >"$work/listed"
printf '%s\n' $inputs >"$work/want"
cmp -s "$work/listed" "$work/want" || not_ok "inputs listed: $(cat "$work/listed")"

# the events are those of the files given one by one
sum=0
for f in $inputs; do
    n=$(timeout 60 "$IOANALYZE" info "$f" | sed -n 's/^events: \([0-9]*\) .*/\1/p')
    [ -n "$n" ] || not_ok "no event count for '$f'"
    sum=$((sum + ${n:-0}))
done
got=$(sed -n 's/^events: \([0-9]*\) .*/\1/p' "$work/info.out")
[ "$got" = "$sum" ] || not_ok "events in the tree: '$got', the files one by one: $sum"
[ "$sum" -gt 0 ] || not_ok "no events counted"
run given info $inputs || not_ok "info on the files exited $rc"
grep -v '^  ' "$work/given.out" >"$work/given.rest"
grep -v '^  ' "$work/info.out" >"$work/info.rest"
cmp -s "$work/given.rest" "$work/info.rest" || not_ok "the tree and its files given one by one differ"

# one warning line for the skipped entries, naming the first in path order
[ "$(wc -l <"$work/info.err")" -eq 1 ] || not_ok "stderr: $(cat "$work/info.err")"
grep -qx "ioanalyze: warning: '$tree': skipped 3 entries that are not regular files or directories that can be read, the first '$tree/node2/fifo': FIFO" \
    "$work/info.err" || not_ok "skip warning: $(cat "$work/info.err")"

# the same output, every command, over two runs
for c in analyze profile dump info; do
    run ${c}1 $c "$tree" || [ $rc -eq 1 ] || not_ok "$c exited $rc: $(cat "$work/${c}1.err")"
    run ${c}2 $c "$tree" || [ $rc -eq 1 ] || not_ok "$c exited $rc (second run)"
    cmp -s "$work/${c}1.out" "$work/${c}2.out" || not_ok "$c: two runs differ"
    cmp -s "$work/${c}1.err" "$work/${c}2.err" || not_ok "$c: two runs warn differently"
done
[ -s "$work/analyze1.out" ] || not_ok "analyze wrote nothing"

# thousands of special files: still one line
i=0
while [ $i -lt 300 ]; do
    mkfifo "$tree/many/f$i"
    i=$((i + 1))
done
run many info "$tree" || not_ok "info with many FIFOs exited $rc"
[ "$(wc -l <"$work/many.err")" -eq 1 ] || not_ok "many FIFOs: $(wc -l <"$work/many.err") lines on stderr"
grep -q "skipped 303 entries" "$work/many.err" || not_ok "many FIFOs: $(cat "$work/many.err")"

# a lone loop, and a tree with nothing to read (only below the top)
mkdir -p "$work/empty/a/b"
ln -s ../.. "$work/empty/a/b/loop"
echo "notes" >"$work/empty/a/README"
run empty info "$work/empty"
[ $rc -eq 2 ] || not_ok "a tree with no input exited $rc"
grep -qx "ioanalyze: warning: '$work/empty': skipped '$work/empty/a/b/loop': symlink loop" "$work/empty.err" ||
    not_ok "lone loop warning: $(cat "$work/empty.err")"
grep -qx "ioanalyze: '$work/empty': no trace, JSONL event file or strace log in this directory" "$work/empty.err" ||
    not_ok "empty tree message: $(cat "$work/empty.err")"
exit $fail
