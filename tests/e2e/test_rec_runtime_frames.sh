#!/bin/sh
# Node and BEAM frames. A node script whose writeRecords leaks a handle per
# record: run with --perf-basic-prof --interpreted-frames-native-stack the
# leak's stack names "writeRecords (app.js:N)" (N: the line
# that declares it, as node's perf map gives it) and the summary asks for no
# flag, with the same fingerprint in a second run; run without, the summary
# names the flags once for the process. An Erlang program run with
# +JPperf true: its output is its own, its leak is found, and the leak's
# stack names rec:write_records/2 above efile_open (the file calls run in
# dirty NIF threads; the recorder reads the Erlang caller's frames from the
# process, test_rec_beam_frames.sh). The program's output and exit status
# are its own.
# A runtime that is not installed is skipped.
# e2e: slow (four runtime starts under the recorder)
set -u
. "$(dirname "$0")/lib.sh"
need_built "$IORECORD" "$IOANALYZE" "$LIBIORECORD"
REC_ENV=$(asan_env "$LIBIORECORD")
[ -z "$REC_ENV" ] || export $REC_ENV
work_dir runtime_frames
cd "$work" || exit 1
tested=

# leak TRACE FIELD: the field of the leak issue with the most handles
leak() {
    "$IOANALYZE" --rules leak "$1" 2>/dev/null |
        python3 -c 'import json,sys; i=sorted((i for i in json.load(sys.stdin) if i["rule"]=="leak"), key=lambda i: -i["detail"]["leaked"]); print(i[0][sys.argv[1]] if i else "none")' "$2"
}
# same NATIVE_OUT NATIVE_RC TRACE: the recorded run's output and status are the native ones
same() {
    cmp -s "$1" "$3.stdout" || not_ok "$3: stdout differs with the recorder"
    [ "$2" = "$(cat "$3.rc")" ] || not_ok "$3: exit status $(cat "$3.rc"), $2 without"
}

# hints TRACE FLAGS...: the issues' hint fields, checked: none when FLAGS is
# "-" (the run had them), else exactly one per process (its first issue),
# naming each of FLAGS, in the JSON, the SARIF message and the text report
hints() {
    trace=$1
    shift
    "$IOANALYZE" --rules leak "$trace" > hints.json 2> /dev/null &&
        "$IOANALYZE" --rules leak -f sarif "$trace" > hints.sarif 2> /dev/null &&
        COLUMNS=400 "$IOANALYZE" --rules leak -f text "$trace" > hints.txt 2> /dev/null || {
        not_ok "$trace: ioanalyze failed"
        return
    }
    python3 - "$@" <<'PY' || not_ok "$trace: hint fields"
import json, sys
flags = sys.argv[1:]
issues = json.load(open("hints.json"))
assert issues, "no issue"
with_hint = [i for i in issues if "hint" in i]
text = open("hints.txt").read()
sarif = [r["message"]["text"] for r in json.load(open("hints.sarif"))["runs"][0]["results"]]
if flags == ["-"]:
    assert not with_hint and "frames missing:" not in text, with_hint
    assert not any("Frames missing" in m for m in sarif), sarif
    sys.exit(0)
pids = sorted({i["pid"] for i in issues})
assert sorted(i["pid"] for i in with_hint) == pids, (pids, with_hint)
for i in with_hint:
    assert next(x for x in issues if x["pid"] == i["pid"]) is i, ("not the first", i)
    for f in flags:
        assert f in i["hint"].split(), (f, i["hint"])
    assert ("frames missing: " + i["hint"]) in text, text
    assert sum(m.endswith("Frames missing: " + i["hint"]) for m in sarif) == 1, sarif
PY
}

if have node; then
    cat > app.js <<'JS'
const fs = require('fs');
const kept = [];
function writeRecords(dir, n) {
    for (let i = 0; i < n; i++) {
        const fd = fs.openSync(dir + '/records.log', 'a');
        fs.writeSync(fd, 'x');
        kept.push(fd);
    }
}
writeRecords(process.argv[2], 3000);
console.log('records', kept.length);
JS
    # node's perf map gives a function's own line, where it is declared
    line=$(grep -n '^function writeRecords' app.js | cut -d: -f1)
    # node writes its isolate-*-v8.log into the working directory
    mkdir -p n && cd n || exit 1
    rm -rf o && mkdir o && node ../app.js o > ../node.out; node_rc=$?
    for t in f1 f2 plain; do
        rm -rf o && mkdir o
        if [ $t = plain ]; then
            "$IORECORD" -o ../$t.zst -- node ../app.js o > ../$t.zst.stdout; echo $? > ../$t.zst.rc
        else
            "$IORECORD" -o ../$t.zst -- node --perf-basic-prof --interpreted-frames-native-stack \
                ../app.js o > ../$t.zst.stdout; echo $? > ../$t.zst.rc
        fi
    done
    cd .. || exit 1
    for t in f1 f2 plain; do same node.out $node_rc $t.zst; done
    stack=$(leak f1.zst stack)
    echo "$stack" | grep -q "^writeRecords (app.js:$line)$" ||
        not_ok "node with the flags: no 'writeRecords (app.js:$line)' frame: $stack"
    [ "$(leak f1.zst fingerprint)" = "$(leak f2.zst fingerprint)" ] || not_ok "node: fingerprints differ"
    "$IOANALYZE" --rules leak f1.zst 2>&1 >/dev/null | grep -q 'perf-basic-prof' &&
        not_ok "node with the flags: the summary still asks for them"
    "$IOANALYZE" --rules leak plain.zst 2>sum.err >/dev/null
    n=$(grep -o 'node (pid [0-9]*): --perf-basic-prof --interpreted-frames-native-stack' sum.err | wc -l)
    [ "$n" = 1 ] || not_ok "node without the flags: the summary names them $n times: $(cat sum.err)"
    hints f1.zst -
    hints plain.zst --perf-basic-prof --interpreted-frames-native-stack
    tested="$tested node"
else
    echo "SKIP node: node is not installed"
fi

if have erl && have erlc; then
    cat > rec.erl <<'ERL'
-module(rec).
-export([main/1]).

%% opens the log again for each record and never closes it
write_records(_Dir, 0) -> ok;
write_records(Dir, N) ->
    {ok, F} = file:open(filename:join(Dir, "records.log"), [append, raw]),
    ok = file:write(F, <<"x">>),
    put(N, F),
    write_records(Dir, N - 1).

main([Dir]) ->
    write_records(Dir, 500),
    io:format("records done~n"),
    halt(0).
ERL
    erlc rec.erl || die "erlc failed"
    rm -rf o && mkdir o && erl +JPperf true -noshell -pa "$work" -run rec main o > erl.out; erl_rc=$?
    rm -rf o && mkdir o
    "$IORECORD" -o e.zst -- erl +JPperf true -noshell -pa "$work" -run rec main o > e.zst.stdout
    echo $? > e.zst.rc
    same erl.out $erl_rc e.zst
    [ "$(leak e.zst detail | python3 -c 'import ast,sys; print(ast.literal_eval(sys.stdin.read())["leaked"])')" = 500 ] ||
        not_ok "erl: the leak of 500 handles is not found"
    stack=$(leak e.zst stack)
    printf '%s\n' "$stack" |
        awk '/^rec:write_records\/2 \(\[jit\]\)$/ { w = NR } /^efile_open/ && !e { e = NR }
             END { exit !(w && e && w < e) }' ||
        not_ok "erl: the leak's stack does not name rec:write_records/2 above efile_open: $stack"
    tested="$tested erl"
else
    echo "SKIP erl: erlang is not installed"
fi
[ -n "$tested" ] || skip "neither node nor erlang is installed"
exit $fail
