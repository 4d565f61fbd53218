#!/bin/sh
# The JVM writes its perf map (-XX:+DumpPerfMapAtExit) only as it exits, so
# the trace's JIT symbol records come after the issues found while the
# program ran. A Java program reopens its log for each record and writes
# it a byte at a time: small_buffer is found at a close and repeat_open at
# the opens, long before the exit map. Every JIT frame of every issue must
# still be named by the records the trace holds (no "[jit]+0x..." left in
# any issue's stack, frames or detail's stacks), the issues must hold named
# Java frames, a second run must give the same fingerprints, and the
# program's output and exit status are its own.
# Needs java and javac (default-jdk-headless); skipped otherwise.
# e2e: slow (about 19 s CPU here: three JVM runs, two under the recorder)
set -u
. "$(dirname "$0")/lib.sh"
need_built "$IORECORD" "$IOANALYZE" "$LIBIORECORD"
REC_ENV=$(asan_env "$LIBIORECORD")
[ -z "$REC_ENV" ] || export $REC_ENV
have java && have javac || skip "no JDK (default-jdk-headless)"
work_dir jvm_late_names
cd "$work" || exit 1

cat > Chatty.java <<'JAVA'
import java.io.FileOutputStream;
import java.io.IOException;

public class Chatty {
    // reopens the log for each record and writes it a byte at a time
    static void writeRecord(String path) throws IOException {
        try (FileOutputStream f = new FileOutputStream(path, true)) {
            for (int k = 0; k < 64; k++)
                f.write('x');
        }
    }

    public static void main(String[] args) throws IOException {
        for (int i = 0; i < 4000; i++)
            writeRecord(args[0] + "/records.log");
        System.out.println("records written");
    }
}
JAVA
javac Chatty.java 2>javac.err || skip "javac failed: $(head -n 1 javac.err)"
FLAG="-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit"

rm -rf recs && mkdir recs
java $FLAG -cp "$work" Chatty recs > native.out; echo $? > native.rc
for t in r1 r2; do
    rm -rf recs && mkdir recs
    "$IORECORD" -o $t.zst -- java $FLAG -cp "$work" Chatty recs > $t.out; echo $? > $t.rc
    cmp -s native.out $t.out || not_ok "$t: stdout differs with the recorder"
    cmp -s native.rc $t.rc || not_ok "$t: exit status $(cat $t.rc), $(cat native.rc) without"
    "$IOANALYZE" $t.zst > $t.json 2> /dev/null || not_ok "$t: ioanalyze failed"
    "$IOANALYZE" dump --format jsonl $t.zst > $t.jsonl 2> /dev/null || not_ok "$t: dump failed"
done

# the issues found before the map, each JIT frame named; their fingerprints
python3 - r1.json r1.jsonl "$work/recs/records.log" > fp1 <<'PY' || not_ok "r1: late names"
import json, sys
issues, dump, log = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
evs = [json.loads(l) for l in open(dump)]
first_close = next(i for i, e in enumerate(evs) if e["ev"] == "call" and e["op"] == "close"
                   and e.get("path") == log)
first_jit = next(i for i, e in enumerate(evs) if e["ev"] == "jit_symbol")
assert first_close < first_jit, ("the map came before the first close", first_close, first_jit)
rules = sorted(i["rule"] for i in issues if i["path"] == log)
assert rules == ["repeat_open", "small_buffer"], rules
for i in issues:
    stacks = [i["stack"], i.get("open_stack") or ""] + \
        [s["stack"] for s in i["detail"].get("open_sites", [])] + \
        [(i["detail"].get("opened_by") or {}).get("stack", "")]
    assert not any("[jit]+0x" in s for s in stacks), (i["rule"], stacks)
    for f in i["frames"] + i.get("open_frames", []):
        assert f["module"] != "[jit]" or f["function"], (i["rule"], f)
opens = next(i for i in issues if i["rule"] == "repeat_open")
assert "java.io.FileOutputStream.open0 ([jit])" in opens["stack"].split("\n"), opens["stack"]
for i in sorted(issues, key=lambda i: i["rule"]):
    print(i["rule"], i["fingerprint"])
PY
python3 -c '
import json, sys
for i in sorted(json.load(open(sys.argv[1])), key=lambda i: i["rule"]):
    print(i["rule"], i["fingerprint"])' r2.json > fp2
cmp -s fp1 fp2 || not_ok "fingerprints differ between two runs: $(cat fp1) / $(cat fp2)"
[ $fail = 0 ] && echo "ok: issues found before the JVM's exit map name their JIT frames: $(tr '\n' ' ' < fp1)"
exit $fail
