#!/bin/sh
# Postmortem on strace logs: the sample programs run under strace with each
# supported option set (-f -tt -T -y, -ttt -yy, no -y, no -T, no -f, -ff as a
# directory) and the analyzer finds the same problems in every log, with the
# same fingerprints; what needs durations is skipped without -T and the
# summary says so; info counts the lines it did not understand.
# e2e: slow (about 10 s CPU here: programs under iorecord and strace)
. "$(dirname "$0")/lib.sh"
S=$BUILD/bin/samples
need_built "$IOANALYZE" "$S/fd_leak" "$S/random_write"
need_strace
have python3 || skip "python3 is needed"
work_dir ci-strace

# issues LOG [ANALYZE OPTIONS]: "rule path fingerprint" lines, sorted
issues() {
    log=$1; shift
    "$IOANALYZE" "$@" "$log" 2>"$work/err" | python3 -c '
import json, sys
for i in sorted(json.load(sys.stdin), key=lambda i: (i["rule"], i["path"])):
    print(i["rule"], i["path"], i["repeat"], i["fingerprint"])'
}

# run NAME TAG STRACE-OPTIONS...: the sample NAME under strace, its files in
# $work/NAME (the same directory for every variant, so paths are equal)
run() {
    name=$1 tag=$2; shift 2
    rm -rf "$work/$name" && mkdir "$work/$name"
    strace "$@" -o "$work/$name.$tag" "$S/$name" "$work/$name" >/dev/null 2>&1 ||
        not_ok "strace $* $name failed"
}

for name in fd_leak random_write; do
    run $name full -f -tt -T -y
    run $name ttt -f -ttt -T -yy
    run $name noy -f -tt -T
    run $name noT -f -tt -y
    run $name nof -tt -T -y
    mkdir "$work/$name.ff" && run $name ff/log -ff -tt -T -y
    issues "$work/$name.full" >"$work/$name.expect"
    [ -s "$work/$name.expect" ] || not_ok "$name: no issues from the -f -tt -T -y log"
    for tag in ttt noy noT nof; do
        issues "$work/$name.$tag" >"$work/$name.got.$tag"
        cmp -s "$work/$name.expect" "$work/$name.got.$tag" ||
            not_ok "$name: -$tag log gives other issues: $(diff "$work/$name.expect" "$work/$name.got.$tag")"
    done
    # -ff: the directory of per-process files is the input
    issues "$work/$name.ff" >"$work/$name.got.ff"
    cmp -s "$work/$name.expect" "$work/$name.got.ff" ||
        not_ok "$name: -ff directory gives other issues: $(diff "$work/$name.expect" "$work/$name.got.ff")"
done

# what the samples promise (samples/*.c "Expected:")
# (without stacks the process is one open site: one issue for the 8 manifests)
[ "$(wc -l <"$work/fd_leak.expect")" -eq 1 ] &&
    grep -q "^leak $work/fd_leak/plugin00.manifest 8 " "$work/fd_leak.expect" ||
    not_ok "fd_leak: expected one leak issue of 8 manifests: $(cat "$work/fd_leak.expect")"
[ "$(cut -d' ' -f1,2 "$work/random_write.expect")" = "random_write $work/random_write/app.db" ] ||
    not_ok "random_write: $(cat "$work/random_write.expect")"

# without -T: the summary names what was skipped
"$IOANALYZE" "$work/random_write.noT" >/dev/null 2>"$work/err"
grep -q "no call durations (strace without -T)" "$work/err" || not_ok "no -T summary: $(cat "$work/err")"

# the log on standard input, detected from its content
"$IOANALYZE" - <"$work/random_write.full" 2>/dev/null | grep -q '"rule": "random_write"' || not_ok "log on stdin"

# info counts lines it does not understand; they are never fatal
cp "$work/fd_leak.full" "$work/garbled.log"
printf 'garbage that strace never wrote\n12345 also not a call\n' >>"$work/garbled.log"
"$IOANALYZE" info "$work/garbled.log" >"$work/info" 2>&1 || not_ok "info on a garbled log failed: $(cat "$work/info")"
grep -q "strace log, .* 2 not understood" "$work/info" || not_ok "info: $(cat "$work/info")"
issues "$work/garbled.log" >"$work/garbled.got"
cmp -s "$work/fd_leak.expect" "$work/garbled.got" || not_ok "garbled log gives other issues"
exit $fail
