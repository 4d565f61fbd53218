#!/bin/sh
# Builds every fuzz target with libFuzzer (clang, ASan + UBSan) and runs each
# for SECONDS (default $FUZZ_SECONDS, else 60) on a copy of its committed
# corpus, one target at a time.
#
#   tests/fuzz/run.sh [SECONDS [TARGET...]]      (make fuzz FUZZ_SECONDS=N)
#
# New crashes are left in $BUILD/fuzz/<target>/ as crash-*/leak-*/oom-*/
# timeout-* files: minimise them, add them to tests/fuzz/corpus/<target>/ and
# fix the bug (tests/fuzz/findings/<target>/ holds reproducers of bugs
# reported but not fixed yet; move them to the corpus when fixed). Each
# run's whole output is kept in $BUILD/fuzz/<target>.log and summed up here
# (last coverage line, findings, executions); the exit status is 1 when a
# target found something. Environment: FUZZ_CC (clang),
# FUZZ_RSS_MB (2048): a hostile input that needs more memory than that is a
# finding (an "oom-" file), since the analyzer must cap its allocations.
set -e
BUILD=${BUILD:-build}
SECONDS_EACH=${1:-${FUZZ_SECONDS:-60}}
[ $# -gt 0 ] && shift
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
CC=${FUZZ_CC:-clang}
RSS_MB=${FUZZ_RSS_MB:-2048}
command -v "$CC" >/dev/null 2>&1 || { echo "fuzz: '$CC' not found; libFuzzer needs clang" >&2; exit 2; }

# UB must stop the run like a crash does, or a finding scrolls by unnoticed.
# FUZZ_NO_SANITIZE=check,... turns checks off, to fuzz past a finding that
# is reported but not fixed yet (docs/reliability.md lists them).
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all${FUZZ_NO_SANITIZE:+ -fno-sanitize=$FUZZ_NO_SANITIZE}"
CFLAGS="-std=c11 -O1 -g -D_GNU_SOURCE -DFUZZ_LIBFUZZER -fno-omit-frame-pointer $SAN -Icommon -Iformats -Iinputs -Irules -Ianalyzer/engine -Ianalyzer/outputs -Ianalyzer/cli -Itests/fuzz"
LIBS="$(pkg-config --libs jansson libzstd libpcre2-8) -ldl -lpthread -lm"
OUT=$BUILD/fuzz
OBJ=$OUT/obj
mkdir -p "$OBJ"
# Objects built with other flags (another FUZZ_NO_SANITIZE) are rebuilt.
echo "$CC $CFLAGS" >"$OBJ/flags.new"
cmp -s "$OBJ/flags.new" "$OBJ/flags" 2>/dev/null || rm -f "$OBJ"/*.o
mv "$OBJ/flags.new" "$OBJ/flags"

# The shared code is compiled once, with coverage instrumentation only
# (fuzzer-no-link); each target then links it with libFuzzer's main().
# Everything but the programs' main()s, so targets can reach any parser.
SRC="common/*.c formats/*.c inputs/*.c rules/*.c analyzer/engine/*.c analyzer/outputs/*.c tests/fuzz/fuzz_util.c $(ls analyzer/cli/*.c | grep -v '/main\.c$')"
OBJS=
for s in $SRC; do
    o=$OBJ/$(echo "$s" | tr / _ | sed 's/\.c$/.o/')
    if [ ! -e "$o" ] || [ "$s" -nt "$o" ] || [ "$0" -nt "$o" ] || \
       [ -n "$(find common formats inputs analyzer rules tests/fuzz -name '*.h' -newer "$o" 2>/dev/null | head -n 1)" ]; then
        # shellcheck disable=SC2086
        $CC $CFLAGS -fsanitize=fuzzer-no-link -c "$s" -o "$o"
    fi
    OBJS="$OBJS $o"
done

if [ $# -gt 0 ]; then
    TARGETS=$*
else
    TARGETS=$(for t in tests/fuzz/fuzz_*.c; do n=$(basename "$t" .c); echo "${n#fuzz_}"; done | grep -vx util)
fi

found=0
for name in $TARGETS; do
    src=tests/fuzz/fuzz_$name.c
    [ -e "$src" ] || { echo "fuzz: no target '$name' ($src)" >&2; exit 2; }
    echo "== fuzz $name (${SECONDS_EACH}s)"
    # shellcheck disable=SC2086
    $CC $CFLAGS -fsanitize=fuzzer -o "$OUT/fuzz_$name" "$src" $OBJS $LIBS
    mkdir -p "$OUT/$name/corpus"
    cp tests/fuzz/corpus/"$name"/* "$OUT/$name/corpus/" 2>/dev/null || true
    # -close_fd_mask=2: the analyzer's own warnings on stderr are expected on
    # bad input; libFuzzer and the sanitizers still report on a dup of it.
    (cd "$OUT/$name" && ASAN_OPTIONS=detect_leaks=1 \
        UBSAN_OPTIONS=print_stacktrace=1 \
        ../fuzz_"$name" -max_total_time="$SECONDS_EACH" -rss_limit_mb="$RSS_MB" \
        -malloc_limit_mb="$RSS_MB" -timeout=25 -max_len=65536 -close_fd_mask=2 \
        -print_final_stats=1 corpus >../"$name".log 2>&1) || found=1
    # the last coverage line, any finding, and the totals
    grep -E '^#[0-9]+[[:space:]].*cov: ' "$OUT/$name.log" | tail -n 1
    grep -E 'ERROR|runtime error|SUMMARY|Test unit written|^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' \
        "$OUT/$name.log" | head -n 12
done
exit $found
