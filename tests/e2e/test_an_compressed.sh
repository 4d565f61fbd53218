#!/bin/sh
# Compressed inputs (docs/analyzer.md, "Inputs"): an strace log and a JSONL
# file compressed with gzip or zstd are read as they are, told by their
# magic and not their name, from a file, a pipe or a directory (where more of
# them than may stay open are parked and resumed); a cut or corrupt one is
# read as far as it decodes, with one warning naming the file (exit 0, 2
# with --strict).
# e2e: slow (about 9 s CPU here: every compressed form of the traces)
. "$(dirname "$0")/lib.sh"
need_built "$IOANALYZE"
have gzip || skip "gzip is not installed"
have zstd || skip "zstd is not installed"
work_dir compressed
cd "$work" || exit 1


# An strace log of 20000 small appends to one file: enough for several of
# the decoder's reads, and issues to compare.
awk 'BEGIN {
    print "2000  10:00:00.000000 execve(\"/usr/bin/app\", [\"app\"], 0x7ffd /* 5 vars */) = 0 <0.000100>"
    print "2000  10:00:00.001000 openat(AT_FDCWD</srv>, \"app.log\", O_WRONLY|O_CREAT|O_APPEND, 0644) = 4</srv/app.log> <0.000050>"
    for (i = 0; i < 20000; i++)
        printf "2000  10:00:%02d.%06d write(4</srv/app.log>, \"request %05d ok\\n\", 17) = 17 <0.000020>\n", 1 + int(i / 1000), (i % 1000) * 1000, i
    print "2000  10:00:30.000000 close(4</srv/app.log>)          = 0 <0.000020>"
    print "2000  10:00:30.001000 exit_group(0)                   = ?"
    print "2000  10:00:30.002000 +++ exited with 0 +++"
}' >app.log
gzip -c app.log >app.log.gz
zstd -q -c app.log >app.log.zst
cp app.log.gz app-gz-named.data     # told by magic, not name
"$IOANALYZE" app.log >plain.json 2>plain.err || die "analyze of the plain log: $(cat plain.err)"
n=$(grep -c '"rule"' plain.json)
[ "$n" -ge 1 ] || die "the plain log gives no issue to compare"
for f in app.log.gz app.log.zst app-gz-named.data; do
    "$IOANALYZE" "$f" >got.json 2>got.err || not_ok "$f: exit $?: $(cat got.err)"
    cmp -s plain.json got.json || not_ok "$f: issues differ from the plain log's"
    grep -q warning got.err && not_ok "$f: a warning: $(cat got.err)"
done
gzip -dc app.log.gz | "$IOANALYZE" - >/dev/null 2>&1   # keeps the shell quiet
"$IOANALYZE" - <app.log.zst >got.json 2>/dev/null || not_ok "zstd log from standard input"
cmp -s plain.json got.json || not_ok "zstd log from standard input: issues differ"
cat app.log.gz | "$IOANALYZE" - >got.json 2>/dev/null || not_ok "gzip log from a pipe"
cmp -s plain.json got.json || not_ok "gzip log from a pipe: issues differ"

# strace -ff logs compressed one by one: each file's pid is still its
# name's, before the suffix (LOG.PID.gz), so the processes stay apart. A
# -tt log's date is its file's (its mtime's day): the copies keep the
# fixtures' mtimes, or the two dumps differ by a day whenever the clock
# passes the logs' time of day between the checkout and this test.
mkdir ff
for f in "$TOP"/tests/fixtures/strace/ff/*; do
    gzip -c "$f" >"ff/$(basename "$f").gz"
    touch -r "$f" "ff/$(basename "$f").gz"
done
"$IOANALYZE" dump "$TOP/tests/fixtures/strace/ff" >ff_plain.jsonl 2>/dev/null || die "dump of the -ff logs"
"$IOANALYZE" dump ff >ff_gz.jsonl 2>/dev/null || not_ok "dump of the compressed -ff logs"
cmp -s ff_plain.jsonl ff_gz.jsonl || not_ok "compressed -ff logs: not the plain logs' events"

# JSONL: the dump of the log, compressed both ways, gives the same issues
# and dumps back to the same lines.
"$IOANALYZE" dump app.log >app.jsonl 2>/dev/null || die "dump of the log"
gzip -c app.jsonl >app.jsonl.gz
zstd -q -c app.jsonl >app.jsonl.zst
for f in app.jsonl.gz app.jsonl.zst; do
    "$IOANALYZE" "$f" >got.json 2>got.err || not_ok "$f: exit $?: $(cat got.err)"
    cmp -s plain.json got.json || not_ok "$f: issues differ from the plain log's"
    "$IOANALYZE" dump "$f" >got.jsonl 2>/dev/null || not_ok "dump of $f"
    cmp -s app.jsonl got.jsonl || not_ok "dump of $f differs from the dump of the log"
done

# A directory of eight compressed JSONL files (eight processes) while only
# six may stay open (a quarter of the limit on descriptors): the others are
# parked and resume where they stopped.
mkdir plain gz
for p in 1 2 3 4 5 6 7 8; do
    sed "s/\"pid\":2000,/\"pid\":$p,/; s/\"tid\":2000,/\"tid\":$p,/" app.jsonl >plain/p$p.jsonl
    gzip -c plain/p$p.jsonl >gz/p$p.jsonl.gz
done
"$IOANALYZE" plain >dir_plain.json 2>/dev/null || die "analyze of the plain directory"
(ulimit -n 24 && "$IOANALYZE" gz >dir_gz.json 2>dir_gz.err) || not_ok "directory of .gz: $(cat dir_gz.err)"
grep -q '"rule"' dir_plain.json || die "the directory gives no issue to compare"
grep -q '"occurrences": 8' dir_plain.json || die "the directory's issue: not in all eight processes"
cmp -s dir_plain.json dir_gz.json || not_ok "directory of .gz: issues differ from the plain files'"

# Cut short: the whole lines before the cut are read, one warning says where.
size=$(wc -c <app.log.gz)
head -c $((size / 2)) app.log.gz >cut.gz
whole=$(gzip -dc cut.gz 2>/dev/null | wc -l)
head -n "$whole" app.log >cut.log
"$IOANALYZE" dump cut.log >cut_plain.jsonl 2>/dev/null || die "dump of the cut log's whole lines"
"$IOANALYZE" dump cut.gz >cut_gz.jsonl 2>cut.err || not_ok "dump of a cut .gz: exit $?"
cmp -s cut_plain.jsonl cut_gz.jsonl || not_ok "a cut .gz: not its whole lines' events"
[ "$(wc -l <cut_gz.jsonl)" -gt 1000 ] || not_ok "a cut .gz: $(wc -l <cut_gz.jsonl) events"
[ "$(wc -l <cut.err)" = 1 ] || not_ok "a cut .gz: not one line on stderr: $(cat cut.err)"
grep -q "^ioanalyze: warning: 'cut.gz': the gzip stream is cut short (it ends after $((size / 2)) compressed bytes" cut.err ||
    not_ok "a cut .gz: the warning: $(cat cut.err)"
"$IOANALYZE" --strict cut.gz >/dev/null 2>&1
[ $? = 2 ] || not_ok "a cut .gz with --strict: not exit 2"

# Two zstd frames or gzip members (files compressed apart, then joined)
# are one stream; a
# corrupt second frame: the first frame's lines are read, the damage said
# once, where it is. (Damage inside a frame can decode to garbage before
# the decoder sees it: those lines would be skipped as malformed.)
head -n 10000 app.jsonl | zstd -q -c >p1.zst
tail -n +10001 app.jsonl | zstd -q -c >p2.zst
cat p1.zst p2.zst >two.zst
"$IOANALYZE" dump two.zst >two.jsonl 2>/dev/null || not_ok "dump of two zstd frames"
cmp -s app.jsonl two.jsonl || not_ok "two zstd frames: not the whole dump"
head -n 10000 app.jsonl | gzip -c >p1.gz
tail -n +10001 app.jsonl | gzip -c >p2.gz
cat p1.gz p2.gz >two.gz
"$IOANALYZE" dump two.gz >two.jsonl 2>/dev/null || not_ok "dump of two gzip members"
cmp -s app.jsonl two.jsonl || not_ok "two gzip members: not the whole dump"
{ cat p1.zst; printf 'X'; tail -c +2 p2.zst; } >bad.zst
"$IOANALYZE" dump bad.zst >bad.jsonl 2>bad.err || not_ok "dump of a corrupt .zst: exit $?"
[ "$(cat bad.err)" = "ioanalyze: warning: 'bad.zst': damaged zstd data at byte $(wc -c <p1.zst): Unknown frame descriptor: what it held up to there is read" ] ||
    not_ok "a corrupt .zst: the warning: $(cat bad.err)"
head -n 10000 app.jsonl | cmp -s - bad.jsonl || not_ok "a corrupt .zst: not the first frame's lines"
exit $fail
