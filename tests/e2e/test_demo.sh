#!/bin/sh
# Runs samples/demo.sh (what `make demo` runs) into a temporary directory and
# checks what it promises: it exits 0, writes issues.json and profile.csv,
# reports every sample's expected issues (the sum over samples/expected/),
# names both output files, and lists the samples that must stay quiet.
. "$(dirname "$0")/lib.sh"
need_built "$IORECORD" "$IOANALYZE" "$LIBIORECORD"
have python3 || skip "python3 is needed to count the issues"

work_dir demo
die() {
    echo "FAIL: $*"
    sed 's/^/    /' "$work/out"
    exit 1
}

BUILD=$BUILD DEMO=$work/demo sh "$TOP/samples/demo.sh" >"$work/out" 2>&1 ||
    die "demo.sh exited with $?"

for f in issues.json profile.csv; do
    [ -s "$work/demo/$f" ] || die "$f was not written"
    grep -q "$work/demo/$f" "$work/out" || die "the output does not say where $f is"
done
head -n 1 "$work/demo/profile.csv" | grep -q '^pid,path,opens,reads,' ||
    die "profile.csv does not start with the SPEC's header"

# The traces analysed together give the union of the per-sample issues,
# less the low-impact ones the default output leaves out and the summary
# counts (which of the cheap findings are low follows the machine's
# timing: test_samples.sh). main_thread may report more than expected: the
# demo runs every rule on every sample, and on a busy machine a call of the
# samples that are not about threads can be descheduled past 13 ms.
hidden=$(sed -n 's/.*; \([0-9]*\) low-impact issues\{0,1\} not shown.*/\1/p' "$work/out" | head -n 1)
counts=$(python3 - "$work/demo/issues.json" "${hidden:-0}" "$TOP"/samples/expected/*.json <<'EOF'
import json, sys
from collections import Counter
got = Counter(i["rule"] for i in json.load(open(sys.argv[1])))
hidden = int(sys.argv[2])
want = Counter()
for path in sys.argv[3:]:
    want.update(i["rule"] for i in json.load(open(path)))
print(sum(got.values()))
for rule in sorted(set(got) | set(want)):
    ok = got[rule] >= want[rule] if rule == "main_thread" else got[rule] <= want[rule]
    if not ok:
        print("%s: %d reported, %d expected" % (rule, got[rule], want[rule]))
extra = got["main_thread"] - want["main_thread"]
if sum(got.values()) - extra + hidden != sum(want.values()):
    print("%d shown + %d low-impact not shown, %d expected"
          % (sum(got.values()) - extra, hidden, sum(want.values())))
EOF
)
total=$(echo "$counts" | head -n 1)
[ "$(echo "$counts" | wc -l)" -eq 1 ] ||
    die "issue counts differ: $(echo "$counts" | tail -n +2 | tr '\n' ';')"
grep -q "ioanalyze: $total issues (" "$work/out" || die "no summary line with $total issues"

for rule in $(python3 -c '
import json, sys
print(" ".join(sorted({i["rule"] for i in json.load(open(sys.argv[1]))})))
' "$work/demo/issues.json"); do
    # a finding of its own, or a symptom of another of the same cause
    grep -Eq "^== [0-9]+\. (high|medium|low): $rule \(type [0-9]+\)$|^      (high|medium|low) +$rule on " \
        "$work/out" || die "no finding or symptom for rule $rule"
done
# the samples that must stay quiet are among the quiet ones (a sample whose
# finding came out low-impact on this machine is listed there too)
quiet=$(sed -n 's/^Samples with no issue (as intended): //p' "$work/out")
for s in clean fd_cache worker_io; do
    case ", $quiet," in *", $s,"*) ;; *) die "$s is not listed as quiet: '$quiet'" ;; esac
done
echo "demo: $total issues, every rule shown as a finding or a symptom"
