#!/bin/sh
# Records every sample program with iorecord, analyzes each trace on its own
# with the default configuration, and compares the issues (run-dependent
# fields masked by samples/check_issues.py) with samples/expected/NAME.json.
# Every samples/*.c must have an expected file.
#
# The main_thread rule is checked only on the two samples about threads
# (slow_main_read, worker_io); the others are analyzed with --disable
# main_thread. Any main-thread call that a busy machine (make -j, a benchmark
# next door) deschedules for more than 13 ms is reported, rightly, and would
# say nothing about the sample. (For the same reason the samples with
# 100000-call loops run them on worker threads, so that `make demo` shows the
# same issues on a busy machine.)
#
# The expected files are ioscope's own output (UPDATE=1 writes them), so
# their call counts are also checked against a witness that is not: each
# sample run again under strace -f -y, whose count of the reads or writes
# on the issue's file must be the issue's (samples/check_counts.py), in
# both modes. Without strace that half is skipped, and said so.
#
# To refresh the expected files after a deliberate change of a rule:
#   UPDATE=1 BUILD=build sh tests/e2e/test_samples.sh
# then review `git diff samples/expected`.
# e2e: slow (about 5 s here: records and analyzes every sample program)
. "$(dirname "$0")/lib.sh"
need_built "$IORECORD" "$IOANALYZE" "$LIBIORECORD"
have python3 || skip "python3 is needed to mask the issues"

# A sanitized recorder (make asan) needs the sanitizer runtime loaded first
# in the recorded programs; ioanalyze itself keeps the full ASAN_OPTIONS.
REC_ENV=$(asan_env "$LIBIORECORD")

work_dir samples
check="python3 $TOP/samples/check_issues.py"
fail=0 checked=0
MAIN_THREAD_SAMPLES=" slow_main_read worker_io "
witness=1
if ! have strace; then
    skip_part "strace counts" "strace is not installed"; witness=0
elif ! strace -f -o /dev/null true 2>/dev/null; then
    skip_part "strace counts" "strace cannot trace here (ptrace denied)"; witness=0
fi

for src in "$TOP"/samples/*.c; do
    name=$(basename "$src" .c)
    expected=$TOP/samples/expected/$name.json
    prog=$BUILD/bin/samples/$name
    if [ ! -f "$expected" ] && [ -z "$UPDATE" ]; then
        echo "FAIL $name: no expected issues in samples/expected/$name.json"
        fail=1
        continue
    fi
    if [ ! -x "$prog" ]; then
        echo "FAIL $name: $prog is not built"
        fail=1
        continue
    fi
    out=$work/$name
    if ! env $REC_ENV "$IORECORD" -o "$work/$name.zst" -- "$prog" "$out" >"$work/$name.log" 2>&1; then
        echo "FAIL $name: recording failed:"
        sed 's/^/    /' "$work/$name.log"
        fail=1
        continue
    fi
    case $MAIN_THREAD_SAMPLES in
    *" $name "*) rules_opt="" ;;
    *) rules_opt="--disable main_thread" ;;
    esac
    # shellcheck disable=SC2086 # rules_opt is two words or none
    # every severity: a sample's findings are judged by their figures here,
    # and the severity of a cheap one (random_read's 0.14 ms of cached
    # reads) follows the machine's load, as the masked times do
    if ! "$IOANALYZE" --min-severity low $rules_opt "$work/$name.zst" >"$work/$name.json" 2>"$work/$name.err"; then
        echo "FAIL $name: ioanalyze failed:"
        sed 's/^/    /' "$work/$name.err"
        fail=1
        continue
    fi
    if [ -n "$UPDATE" ]; then
        mkdir -p "$TOP/samples/expected"
        $check mask "$work/$name.json" "$out" >"$expected" || fail=1
        echo "updated samples/expected/$name.json"
    fi
    if [ $witness = 1 ]; then
        mkdir -p "$out.strace"
        strace -f -y -qq -e signal=none -o "$work/$name.strace.log" \
            -e trace=read,write,pread64,pwrite64,readv,writev,preadv,pwritev,preadv2,pwritev2 \
            "$prog" "$out.strace" >/dev/null 2>&1 || { echo "FAIL $name: did not run under strace"; fail=1; }
        python3 "$TOP/samples/check_counts.py" "$work/$name.strace.log" "$out.strace" "$expected" \
            >"$work/$name.counts" 2>&1 || fail=1
        sed "s/^/    $name: /" "$work/$name.counts"
    fi
    [ -z "$UPDATE" ] || continue
    if $check compare "$work/$name.json" "$out" "$expected"; then
        echo "ok $name: $(grep -c '"rule"' "$expected") issue(s) as expected"
    else
        echo "FAIL $name: issues differ from samples/expected/$name.json (diff above)"
        fail=1
    fi
    checked=$((checked + 1))
done

[ $fail -eq 0 ] && echo "samples: $checked checked"
exit $fail
