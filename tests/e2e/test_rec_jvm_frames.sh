#!/bin/sh
# A Java program whose writeRecords is hot enough to be compiled opens its
# log once per record and never closes it. Run with -XX:+UnlockDiagnosticVMOptions
# -XX:+DumpPerfMapAtExit, the JVM writes its perf map only as it exits: the
# recorder reads it at the process's end and the leak's stack names the
# Java frames ("java.io.FileOutputStream.open0 ([jit])"), and the trace
# names writeRecords' compiled code. Its compiled code keeps no frame
# pointer, so writeRecords itself is not on the stack: the summary and the
# issue's hint ask for -XX:+PreserveFramePointer alone. Given that flag too,
# on the command line or in JAVA_TOOL_OPTIONS (which the trace's runtime
# environment record carries), the stack shows "Leak.writeRecords ([jit])"
# and nothing is asked. Each run has one leak issue of 6000 handles with
# one fingerprint: the interpreter's opens, then the compiled tiers', are
# one site (which tier made how many moves with the machine's load; a
# sanitizer build's runs split 128/400/5,400 one time and 128/160/11/5,600
# the next). Run without any flag, the summary names the three, once for
# the process, and so does the hint field of the process's first issue
# (JSON, SARIF message, text). The program's output and exit status are
# its own. The recorder never adds a flag itself.
# Needs java and javac (default-jdk-headless); skipped otherwise.
# e2e: slow (five JVM runs under the recorder)
set -u
. "$(dirname "$0")/lib.sh"
need_built "$IORECORD" "$IOANALYZE" "$LIBIORECORD"
REC_ENV=$(asan_env "$LIBIORECORD")
[ -z "$REC_ENV" ] || export $REC_ENV
have java && have javac || skip "no JDK (default-jdk-headless)"
work_dir jvm_frames
cd "$work" || exit 1

cat > Leak.java <<'JAVA'
import java.io.FileOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

public class Leak {
    static final List<FileOutputStream> kept = new ArrayList<>();

    // opens the log again for each record and never closes it
    static void writeRecords(String dir, int i) throws IOException {
        FileOutputStream f = new FileOutputStream(dir + "/records.log", true);
        f.write('x');
        kept.add(f);
    }

    public static void main(String[] args) throws IOException {
        for (int i = 0; i < 6000; i++)
            writeRecords(args[0], i);
        System.out.println("records " + kept.size());
    }
}
JAVA
javac Leak.java 2>javac.err || skip "javac failed: $(head -n 1 javac.err)"
ulimit -n 20000 2>/dev/null || skip "cannot raise the fd limit to 20000 for 6000 open files"
FLAG="-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit"

# run OUT ARGS...: the program under the recorder into OUT, its output kept
run() {
    out=$1
    shift
    rm -rf recs && mkdir recs
    "$IORECORD" -o "$out" -- java "$@" -cp "$work" Leak recs > "$out.stdout"; echo $? > "$out.rc"
}
# leak TRACE FIELD: the field of the leak issue with the most handles (the
# open site of the compiled code; the interpreter's first opens are others)
leak() {
    "$IOANALYZE" --rules leak "$1" 2>/dev/null |
        python3 -c 'import json,sys; i=sorted((i for i in json.load(sys.stdin) if i["rule"]=="leak"), key=lambda i: -i["detail"]["leaked"]); print(i[0][sys.argv[1]] if i else "none")' "$2"
}

# hints TRACE FLAGS...: the issues' hint fields, checked: none when FLAGS is
# "-" (the run had them), else exactly one per process (its first issue),
# naming FLAGS and no other, in the JSON, the SARIF message and the text report
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
    assert i["hint"].split(" when run with ")[1].split() == flags, (flags, i["hint"])
    assert ("frames missing: " + i["hint"]) in text, text
    assert sum(m.endswith("Frames missing: " + i["hint"]) for m in sarif) == 1, sarif
PY
}

rm -rf recs && mkdir recs
java $FLAG -cp "$work" Leak recs > native.out; echo $? > native.rc
run f1.zst $FLAG
run f2.zst $FLAG
run n.zst
run p.zst $FLAG -XX:+PreserveFramePointer
# the JVM says "Picked up JAVA_TOOL_OPTIONS" on stderr
(export JAVA_TOOL_OPTIONS=-XX:+PreserveFramePointer; run e.zst $FLAG 2>/dev/null)
ALL="f1.zst f2.zst n.zst p.zst e.zst"
for t in $ALL; do
    cmp -s native.out $t.stdout || not_ok "$t: stdout differs with the recorder"
    cmp -s native.rc $t.rc || not_ok "$t: exit status $(cat $t.rc), $(cat native.rc) without"
done
stack=$(leak f1.zst stack)
echo "$stack" | grep -qx 'java.io.FileOutputStream.open0 (\[jit\])' ||
    not_ok "with the flag: no named Java frame in the leak's stack: $stack"
"$IOANALYZE" dump --format jsonl f1.zst | grep -q '"ev":"jit_symbol".*"symbol":"void Leak.writeRecords(java.lang.String, int)"' ||
    not_ok "with the flag: writeRecords' compiled code is not named in the trace"
for t in p.zst e.zst; do
    stack=$(leak $t stack)
    echo "$stack" | grep -qx 'Leak.writeRecords (\[jit\])' ||
        not_ok "$t, with -XX:+PreserveFramePointer: writeRecords is not on the leak's stack: $stack"
done
"$IOANALYZE" dump --format jsonl e.zst | grep -q '"ev":"runtime_env".*"variable":"JAVA_TOOL_OPTIONS","options":"-XX:+PreserveFramePointer"' ||
    not_ok "e.zst: no runtime environment record of JAVA_TOOL_OPTIONS"
for t in $ALL; do
    got=$("$IOANALYZE" --rules leak "$t" 2>/dev/null |
        python3 -c 'import json,sys; print(" ".join("%s:%s:%s" % (i["fingerprint"], i["detail"]["leaked"], i["path"].rsplit("/", 1)[-1]) for i in json.load(sys.stdin) if i["rule"] == "leak"))')
    case $got in
    *" "* | "") not_ok "$t: not one leak issue: $got" ;;
    *:6000:records.log) ;;
    *) not_ok "$t: the leak is not records.log's 6000 handles: $got" ;;
    esac
done
fp=$(leak f1.zst fingerprint)
for t in $ALL; do
    [ "$fp" = "$(leak $t fingerprint)" ] || not_ok "fingerprints differ: $fp (f1.zst), $(leak $t fingerprint) ($t)"
done
"$IOANALYZE" --rules leak f1.zst 2>&1 >/dev/null | grep -q 'DumpPerfMapAtExit' &&
    not_ok "with the flag: the summary still asks for it"
"$IOANALYZE" --rules leak n.zst 2>sum.err >/dev/null
n=$(grep -o 'java (pid [0-9]*): -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit' sum.err | wc -l)
[ "$n" = 1 ] || not_ok "without the flag: the summary names it $n times: $(cat sum.err)"
grep -q 'java (pid [0-9]*): .*-XX:+PreserveFramePointer' sum.err ||
    not_ok "without the flag: the summary does not name -XX:+PreserveFramePointer: $(cat sum.err)"
"$IOANALYZE" --rules leak f1.zst 2>&1 >/dev/null | grep -q 'java (pid [0-9]*): -XX:+PreserveFramePointer$' ||
    not_ok "with the map's flag: the summary does not ask for -XX:+PreserveFramePointer alone"
hints f1.zst -XX:+PreserveFramePointer
hints p.zst -
hints e.zst -
hints n.zst -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit -XX:+PreserveFramePointer
exit $fail
