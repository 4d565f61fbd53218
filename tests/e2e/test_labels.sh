#!/bin/sh
# Labels (iorecord --label KEY=VALUE, IORECORD_LABELS for plain preload):
# stored in the trace once per process, shown by `ioanalyze info`, carried
# into every issue as "labels" (JSON, SARIF properties), kept through a
# JSONL dump; invalid ones refused with one line, before COMMAND runs, and
# the traced program's output and status are those of a run without them.
# e2e: slow (about 6 s CPU here: labelled recordings)
set -u
. "$(dirname "$0")/lib.sh"
need_built "$IORECORD" "$IOANALYZE" "$BUILD/bin/samples/small_writes"
have python3 || skip "python3 is not installed"
work_dir labels
cd "$work" || exit 1
asan_preload "$LIBIORECORD"
sample=$BUILD/bin/samples/small_writes

# the sample's output and status natively; it names a fresh temporary
# directory, masked in every comparison
mask() { sed "s|${TMPDIR:-/tmp}/ioscope-small_writes-[A-Za-z0-9]*|TMP|g" "$1"; }
"$sample" >native.raw 2>native.err; native_rc=$?
mask native.raw >native.out

"$IORECORD" -o l.zst --label version=1.2 --label host=dev7 -- "$sample" >rec.raw 2>rec.err
rc=$?
mask rec.raw >rec.out
[ $rc -eq $native_rc ] || not_ok "exit status $rc recorded, $native_rc native"
cmp -s native.out rec.out || not_ok "the sample's stdout differs when recorded with labels"
"$IOANALYZE" info l.zst >info.txt || die "ioanalyze info failed"
sed -n '/^labels:/,/^processes:/p' info.txt >labels.txt
printf 'labels: 2\n  version=1.2\n  host=dev7\nprocesses: 1\n' >expected.txt
cmp -s expected.txt labels.txt || not_ok "info's labels: $(cat labels.txt)"

# every issue carries the labels; the sample has exactly one (small_buffer)
"$IOANALYZE" --format json --min-severity low l.zst >issues.json 2>/dev/null
python3 - issues.json <<'PY' || not_ok "labels in the issues (above)"
import json, sys
issues = json.load(open(sys.argv[1]))
rules = sorted(i["rule"] for i in issues)
assert rules == ["small_buffer"], rules
for i in issues:
    assert i["labels"] == {"version": "1.2", "host": "dev7"}, i["labels"]
    assert list(i["labels"]) == ["version", "host"], "order as given"
PY
"$IOANALYZE" --format sarif --min-severity low l.zst >issues.sarif 2>/dev/null
python3 - issues.sarif <<'PY' || not_ok "labels in the SARIF properties (above)"
import json, sys
log = json.load(open(sys.argv[1]))
res = log["runs"][0]["results"]
assert len(res) == 1, len(res)
assert res[0]["properties"]["labels"] == {"version": "1.2", "host": "dev7"}, res[0]["properties"]
PY

# a JSONL dump keeps them: one label event per label per process
"$IOANALYZE" dump l.zst >l.jsonl || die "dump failed"
n=$(grep -c '"ev":"label"' l.jsonl)
[ "$n" -eq 2 ] || not_ok "$n label events in the dump, 2 expected"
"$IOANALYZE" info l.jsonl | sed -n '/^labels:/,/^processes:/p' >labels2.txt
cmp -s expected.txt labels2.txt || not_ok "labels read back from JSONL: $(cat labels2.txt)"

# each process of the recording says them: sh and the cat it forks
"$IORECORD" -o f.zst --label run=7 -- sh -c 'cat /dev/null; exit 3' >/dev/null 2>&1
rc=$?
[ $rc -eq 3 ] || not_ok "exit status $rc, 3 expected"
procs=$("$IOANALYZE" dump f.zst | grep -c '"ev":"process"')
n=$("$IOANALYZE" dump f.zst | grep '"ev":"label"' | grep -c '"key":"run","value":"7"[,}]')
[ "$procs" -ge 2 ] && [ "$n" -eq "$procs" ] ||
    not_ok "$n label records for $procs process records"

# plain preload: IORECORD_LABELS
IORECORD_OUTPUT=p.zst IORECORD_LABELS="device=pi,build=a-7.x" \
    LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$LIBIORECORD" "$sample" >pre.raw 2>pre.err
rc=$?
mask pre.raw >pre.out
[ $rc -eq $native_rc ] || not_ok "exit status $rc under preload, $native_rc native"
cmp -s native.out pre.out || not_ok "the sample's stdout differs under preload with labels"
"$IOANALYZE" info p.zst | sed -n '/^labels:/,/^processes:/p' >labels3.txt
printf 'labels: 2\n  device=pi\n  build=a-7.x\nprocesses: 1\n' >expected3.txt
cmp -s expected3.txt labels3.txt || not_ok "IORECORD_LABELS: $(cat labels3.txt)"

# an invalid IORECORD_LABELS under plain preload: no label, nothing said, same run
IORECORD_OUTPUT=q.zst IORECORD_LABELS="device=pi,oops" \
    LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$LIBIORECORD" "$sample" >q.raw 2>q.err
rc=$?
mask q.raw >q.out
[ $rc -eq $native_rc ] || not_ok "exit status $rc with bad labels, $native_rc native"
cmp -s native.out q.out || not_ok "stdout differs with bad IORECORD_LABELS"
cmp -s native.err q.err || not_ok "stderr differs with bad IORECORD_LABELS: $(cat q.err)"
"$IOANALYZE" info q.zst | grep -q '^labels:' && not_ok "an invalid list was recorded"

# no labels: every issue has an empty object
"$IORECORD" -o n.zst -- "$sample" >/dev/null 2>&1
"$IOANALYZE" --format json --min-severity low n.zst 2>/dev/null |
    python3 -c 'import json,sys; d=json.load(sys.stdin); assert len(d)==1 and all(i["labels"]=={} for i in d), d' ||
    not_ok "issues of a trace without labels"
"$IOANALYZE" info n.zst | grep -q '^labels:' && not_ok "info shows labels of a trace without any"

# invalid labels: one line, exit 2, COMMAND not run
check_refused() {   # expected-message args... (the message of a bad argument ends in "see --help")
    want=$1; shift
    rm -f ran
    "$IORECORD" -o bad.zst "$@" -- sh -c 'touch ran' >bad.out 2>bad.err
    rc=$?
    [ $rc -eq 2 ] || not_ok "iorecord $*: exit $rc, 2 expected"
    [ ! -e ran ] || not_ok "iorecord $*: the command ran"
    printf "%s; see 'iorecord --help'\n" "$want" | cmp -s - bad.err ||
        not_ok "iorecord $*: said '$(cat bad.err)'"
}
# the environment's list is no argument: its message says so and no more
check_refused_env() {
    rm -f ran
    "$IORECORD" -o bad.zst -- sh -c 'touch ran' >bad.out 2>bad.err
    rc=$?
    [ $rc -eq 2 ] || not_ok "iorecord with IORECORD_LABELS: exit $rc, 2 expected"
    [ ! -e ran ] || not_ok "iorecord with IORECORD_LABELS: the command ran"
    printf '%s\n' "$1" | cmp -s - bad.err || not_ok "iorecord with IORECORD_LABELS: said '$(cat bad.err)'"
}
check_refused "iorecord: label 'bad key': a key not of [A-Za-z0-9_.-]" --label 'bad key=1'
check_refused "iorecord: label 'k': a value with a character that is not printable ASCII, or a ','" --label 'k=a,b'
check_refused "iorecord: label 'novalue': not KEY=VALUE" --label novalue
check_refused "iorecord: label '': an empty key" --label =v
long=$(printf '%0257d' 0)
check_refused "iorecord: label 'k': a value longer than 256 bytes" --label "k=$long"
set --
for i in $(seq 1 33); do set -- "$@" --label "k$i=v"; done
check_refused "iorecord: more than 32 labels" "$@"
IORECORD_LABELS=x check_refused_env "iorecord: IORECORD_LABELS: label 'x': not KEY=VALUE"
exit $fail
