#!/bin/sh
# ioanalyze's command line: subcommands, --help and --version on each, option
# parsing (abbreviations, --opt=value, short options, '--'), exit statuses and
# error messages, output formats, inputs from stdin and directories, dump of
# a damaged trace.
# e2e: slow (about 6 s CPU here: every command and option)
. "$(dirname "$0")/lib.sh"
FX=$TOP/tests/fixtures/rules
need_built "$IOANALYZE"
have python3 || skip "python3 is needed"
work_dir an-cli
# the same events as another process (pid 200) of another program, to combine
# with pid 100's (a program that closes handles opened at a site manages that
# site's handles in all its processes, leak.c)
sed "s/:100,/:200,/g; s|/usr/bin/app|/usr/bin/loader|; s|\"app\"|\"loader\"|" \
    "$FX/leak_grouped_by_stack.jsonl" >"$work/leak200.jsonl"

# expect STATUS CMD...: run, compare the exit status
expect() {
    want=$1; shift
    "$@" >"$work/out" 2>"$work/err"
    got=$?
    [ "$got" -eq "$want" ] || not_ok "'$*' exited $got, expected $want: $(cat "$work/err")"
}

# one version string (common/version.h), printed alike by every command
version=$(sed -n 's/^#define IOSCOPE_VERSION "\(.*\)"$/\1/p' "$TOP/common/version.h")
[ -n "$version" ] || not_ok "no IOSCOPE_VERSION in common/version.h"
expect 0 "$IOANALYZE" --version
grep -qx "ioanalyze $version (trace format [0-9]*)" "$work/out" || not_ok "--version output: $(cat "$work/out")"
cp "$work/out" "$work/version"
expect 0 "$IOANALYZE" --help
for c in analyze profile dump info diff rules; do
    expect 0 "$IOANALYZE" $c --help
    grep -q "^usage: ioanalyze .*$c" "$work/out" || not_ok "$c --help has no usage line"
    grep -q -- "--version" "$work/out" || not_ok "$c --help does not list --version"
    expect 0 "$IOANALYZE" $c -h
    expect 0 "$IOANALYZE" $c --version
    cmp -s "$work/out" "$work/version" || not_ok "'$c --version' differs from 'ioanalyze --version'"
done
expect 2 "$IOANALYZE"
expect 2 "$IOANALYZE" analyze
grep -qx "ioanalyze: no input given; see 'ioanalyze analyze --help'" "$work/err" || not_ok "no input message: $(cat "$work/err")"
expect 2 "$IOANALYZE" analyze --bogus "$FX/leak_fires.jsonl"
grep -qx "ioanalyze: unknown option '--bogus'; see 'ioanalyze analyze --help'" "$work/err" || not_ok "unknown option message: $(cat "$work/err")"
for c in profile dump info diff rules; do
    expect 2 "$IOANALYZE" $c --bogus
    grep -qx "ioanalyze: unknown option '--bogus'; see 'ioanalyze $c --help'" "$work/err" || not_ok "$c: unknown option message: $(cat "$work/err")"
done

# getopt_long: abbreviations, --opt=value, short options, options after
# inputs, '--', and the usage errors, each exit 2 with one line
expect 1 "$IOANALYZE" --fail --set=small_buffer.min_ops=19 "$FX/small_buffer_20_ops.jsonl"
expect 1 "$IOANALYZE" "$FX/small_buffer_20_ops.jsonl" --fail-on-issues --se small_buffer.min_ops=19
expect 0 "$IOANALYZE" -f jsonl "$FX/small_buffer_fires.jsonl"
[ "$(wc -l <"$work/out")" -eq 1 ] || not_ok "-f jsonl: one issue per line"
expect 0 "$IOANALYZE" -fjsonl --form=jsonl "$FX/small_buffer_fires.jsonl"
[ "$(wc -l <"$work/out")" -eq 1 ] || not_ok "-fjsonl --form=jsonl: one issue per line"
expect 2 "$IOANALYZE" --f jsonl "$FX/small_buffer_fires.jsonl"
grep -qx "ioanalyze: option '--f' is ambiguous (--format, --fail-on-issues); see 'ioanalyze analyze --help'" "$work/err" ||
    not_ok "ambiguous option message: $(cat "$work/err")"
expect 2 "$IOANALYZE" "$FX/small_buffer_fires.jsonl" --config
grep -qx "ioanalyze: option '--config' needs a value; see 'ioanalyze analyze --help'" "$work/err" || not_ok "missing value message: $(cat "$work/err")"
expect 2 "$IOANALYZE" "$FX/small_buffer_fires.jsonl" -c
grep -qx "ioanalyze: option '-c' needs a value; see 'ioanalyze analyze --help'" "$work/err" || not_ok "missing value message (-c): $(cat "$work/err")"
expect 2 "$IOANALYZE" --strict=yes "$FX/small_buffer_fires.jsonl"
grep -qx "ioanalyze: option '--strict' takes no value; see 'ioanalyze analyze --help'" "$work/err" || not_ok "flag with a value message: $(cat "$work/err")"
expect 2 "$IOANALYZE" -x "$FX/small_buffer_fires.jsonl"
grep -qx "ioanalyze: unknown option '-x'; see 'ioanalyze analyze --help'" "$work/err" || not_ok "unknown short option message: $(cat "$work/err")"
expect 2 "$IOANALYZE" -f xml "$FX/small_buffer_fires.jsonl"
grep -qx "ioanalyze: --format: expected json, jsonl, sarif, codequality, text or html, not 'xml'; see 'ioanalyze analyze --help'" "$work/err" || not_ok "refused value message: $(cat "$work/err")"
cp "$FX/small_buffer_fires.jsonl" "$work/-dash.jsonl"
(cd "$work" && "$IOANALYZE" --fail-on-issues -- -dash.jsonl >/dev/null 2>&1)
[ $? -eq 1 ] || not_ok "'--' must make '-dash.jsonl' an input"
expect 2 "$IOANALYZE" rules extra
grep -qx "ioanalyze: unexpected argument 'extra'; see 'ioanalyze rules --help'" "$work/err" || not_ok "rules argument message: $(cat "$work/err")"

# unreadable and unrecognisable inputs
expect 2 "$IOANALYZE" "$work/missing.zst"
grep -qx "ioanalyze: cannot open trace '$work/missing.zst': No such file or directory" "$work/err" || not_ok "missing file message: $(cat "$work/err")"
echo "hello world" >"$work/x.txt"
expect 2 "$IOANALYZE" "$work/x.txt"
grep -qx "ioanalyze: '$work/x.txt': not a trace, JSONL event file or strace log" "$work/err" || not_ok "bad input message: $(cat "$work/err")"
printf '{"ev":"call","t":1}\n{"ev":"call",\n' >"$work/bad.jsonl"
expect 2 "$IOANALYZE" "$work/bad.jsonl"
grep -q "^ioanalyze: '$work/bad.jsonl': line [12]: " "$work/err" || not_ok "malformed JSONL must name the line: $(cat "$work/err")"

# default command, summary on stderr, JSON on stdout
expect 0 "$IOANALYZE" "$FX/small_buffer_fires.jsonl"
python3 -c "import json,sys; d=json.load(open('$work/out')); assert len(d)==1 and d[0]['type']==2" || not_ok "analyze output"
# medium: 21 small writes are modelled at 21 us (the 21 ms they took is evidence)
grep -qx "ioanalyze: 1 issue (1 medium; small_buffer 1) in 26 events from 1 process" "$work/err" || not_ok "summary: $(cat "$work/err")"
expect 0 "$IOANALYZE" analyze "$FX/small_buffer_20_ops.jsonl"
[ "$(cat "$work/out")" = "[]" ] || not_ok "no issues must print []"

# --fail-on-issues, --rules, --disable, --set, --config
expect 1 "$IOANALYZE" --fail-on-issues "$FX/small_buffer_fires.jsonl"
expect 0 "$IOANALYZE" --fail-on-issues "$FX/small_buffer_20_ops.jsonl"
expect 0 "$IOANALYZE" --fail-on-issues --disable small_buffer "$FX/small_buffer_fires.jsonl"
expect 0 "$IOANALYZE" --fail-on-issues --rules leak,main_thread "$FX/small_buffer_fires.jsonl"
expect 1 "$IOANALYZE" --fail-on-issues --set small_buffer.min_ops=19 "$FX/small_buffer_20_ops.jsonl"
expect 2 "$IOANALYZE" --set small_buffer.min_opps=19 "$FX/small_buffer_20_ops.jsonl"
grep -q "small_buffer has no parameter 'min_opps'" "$work/err" || not_ok "--set error: $(cat "$work/err")"
expect 2 "$IOANALYZE" --rules nope "$FX/small_buffer_20_ops.jsonl"
echo '{"rules": {"small_buffer": {"min_ops": 19}}}' >"$work/c.json"
expect 1 "$IOANALYZE" --fail-on-issues --config "$work/c.json" "$FX/small_buffer_20_ops.jsonl"
expect 1 "$IOANALYZE" --fail-on-issues -c "$work/c.json" "$FX/small_buffer_20_ops.jsonl"
expect 1 "$IOANALYZE" --fail-on-issues "-c$work/c.json" "$FX/small_buffer_20_ops.jsonl"
expect 1 "$IOANALYZE" --fail-on-issues "--conf=$work/c.json" "$FX/small_buffer_20_ops.jsonl"
echo '{"rules": {"small_buffer": {"min_ops": 19, "colour": 1}}}' >"$work/c.json"
expect 2 "$IOANALYZE" --config "$work/c.json" "$FX/small_buffer_20_ops.jsonl"
grep -q "rules.small_buffer.colour: unknown parameter" "$work/err" || not_ok "config error: $(cat "$work/err")"
expect 2 "$IOANALYZE" --config "$work/nope.json" "$FX/small_buffer_20_ops.jsonl"

# formats
expect 0 "$IOANALYZE" --format jsonl "$FX/small_buffer_fires.jsonl" "$work/leak200.jsonl"
[ "$(wc -l <"$work/out")" -eq 2 ] || not_ok "--format jsonl: one issue per line"
python3 -c "
import json
for l in open('$work/out'): json.loads(l)" || not_ok "--format jsonl lines must be JSON"
expect 2 "$IOANALYZE" --format xml "$FX/small_buffer_fires.jsonl"
expect 0 "$IOANALYZE" --format sarif "$FX/small_buffer_fires.jsonl"
python3 -c "import json; d=json.load(open('$work/out')); assert d['version']=='2.1.0'" || not_ok "--format sarif"
# each rule's name differs from its id, case aside (the SARIF multitool's SARIF1001)
python3 -c "
import json; rules=json.load(open('$work/out'))['runs'][0]['tool']['driver']['rules']
names={r['id']: r['name'] for r in rules}
assert len(names) >= 11 and names['leak']=='FileHandleLeak', names
assert all(n.lower()!=i.lower() for i, n in names.items()), names
assert len(set(names.values()))==len(names), names" || not_ok "--format sarif: rule names"

# several inputs merge; stdin; directories
mkdir "$work/dir"
cp "$FX/small_buffer_fires.jsonl" "$work/dir/"
cp "$work/leak200.jsonl" "$work/dir/leak200.jsonl"
echo "not an input" >"$work/dir/README"
expect 0 "$IOANALYZE" "$work/dir"
python3 -c "import json; d=json.load(open('$work/out')); assert sorted(i['rule'] for i in d)==['leak','small_buffer'], d" || not_ok "directory input"
expect 0 "$IOANALYZE" - <"$FX/leak_grouped_by_stack.jsonl"
python3 -c "import json; d=json.load(open('$work/out')); assert [i['rule'] for i in d]==['leak']" || not_ok "stdin input"

# baseline: known fingerprints are dropped
"$IOANALYZE" "$FX/small_buffer_fires.jsonl" >"$work/base.json" 2>/dev/null
expect 0 "$IOANALYZE" --fail-on-issues --baseline "$work/base.json" "$FX/small_buffer_fires.jsonl"
grep -q "1 known issue suppressed by the baseline" "$work/err" || not_ok "baseline summary: $(cat "$work/err")"

# rules lists every parameter with its default
expect 0 "$IOANALYZE" rules
# (main_thread's and small_buffer's time limits are modelled costs now:
# docs/analyzer.md, "The cost model")
for p in "main_thread.max_once_ms *= 1" "main_thread.max_continual_ms *= 500" \
         "small_buffer.buffer_bytes *= 4096" "small_buffer.min_ops *= 20" \
         "small_buffer.min_continual_ms *= 0" "repeat_read.threshold *= 5" \
         "repeat_read.window_ms *= 17" "leak.min_count *= 3" "random_write.min_writes *= 20" \
         "random_write.min_random_ratio *= 0.2" "random_read.min_reads *= 20"; do
    grep -q "$p" "$work/out" || not_ok "rules output lacks '$p'"
done
grep -q "^small_buffer (type 2)" "$work/out" || not_ok "rules output lacks the type"

# dump: JSONL that reads back, text with one line per event
expect 0 "$IOANALYZE" dump "$FX/leak_fires.jsonl"
[ "$(wc -l <"$work/out")" -eq "$(wc -l <"$FX/leak_fires.jsonl")" ] || not_ok "dump jsonl line count"
expect 0 "$IOANALYZE" dump --format text "$FX/leak_fires.jsonl"
[ "$(wc -l <"$work/out")" -eq "$(wc -l <"$FX/leak_fires.jsonl")" ] || not_ok "dump text line count"
cp "$work/out" "$work/dump.text"
expect 0 "$IOANALYZE" dump "$FX/leak_fires.jsonl" -ftext
cmp -s "$work/out" "$work/dump.text" || not_ok "dump -ftext differs from --format text"
expect 2 "$IOANALYZE" dump --format xml "$FX/leak_fires.jsonl"
grep -qx "ioanalyze: dump --format: expected jsonl, text or perfetto, not 'xml'; see 'ioanalyze dump --help'" "$work/err" || not_ok "dump --format message: $(cat "$work/err")"

# dump of a damaged trace (SPEC): what can be read, a warning naming the
# file, exit 0; --strict makes it 2
if [ -x "$IORECORD" ] && [ -e "$LIBIORECORD" ] && [ -x "$BUILD/bin/samples/repeat_read" ]; then
    # a sanitized library needs its runtime loaded first (lib.sh)
    (cd "$work" && env $(asan_env "$LIBIORECORD") "$IORECORD" -o "$work/rec.zst" \
        "$BUILD/bin/samples/repeat_read" >/dev/null 2>&1) ||
        not_ok "cannot record a sample"
    head -c $(($(wc -c <"$work/rec.zst") / 2)) "$work/rec.zst" >"$work/cut.zst"
    expect 0 "$IOANALYZE" dump "$work/cut.zst"
    [ -s "$work/out" ] || not_ok "dump of a damaged trace must write what it recovered"
    grep -q "^ioanalyze: warning: '$work/cut.zst': damaged trace (truncated): recovered [0-9]* events" "$work/err" ||
        not_ok "dump: no damage warning naming the file: $(cat "$work/err")"
    expect 2 "$IOANALYZE" dump --strict "$work/cut.zst"
    grep -q "^ioanalyze: warning: '$work/cut.zst': damaged trace" "$work/err" || not_ok "dump --strict: no damage warning"
    grep -qx "ioanalyze: --strict: refusing a damaged input" "$work/err" || not_ok "dump --strict message: $(cat "$work/err")"
    expect 0 "$IOANALYZE" dump --strict "$work/rec.zst"
else
    echo "note: iorecord or the samples are not built; dump of a damaged trace not checked"
fi
expect 0 "$IOANALYZE" info "$FX/leak_inherited_not_leak.jsonl"
grep -q "pid 101 ppid 100 /usr/bin/child" "$work/out" || not_ok "info processes: $(cat "$work/out")"
grep -q "processes: 2" "$work/out" || not_ok "info process count"

exit $fail
