#!/bin/sh
# Builds every fuzz target with libFuzzer (clang) and runs each for
# FUZZ_SECONDS (default 60) on a copy of its corpus; new crashes are left in
# build/fuzz/<target>/ as crash-* files. Usage: tests/fuzz/run.sh [SECONDS]
set -e
BUILD=${BUILD:-build}
SECONDS_EACH=${1:-${FUZZ_SECONDS:-60}}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
CC=${FUZZ_CC:-clang}
FLAGS="-std=c11 -O1 -g -D_GNU_SOURCE -DFUZZ_LIBFUZZER -fsanitize=fuzzer,address,undefined -Iformats -Ianalyzer -Irules -Itests/fuzz"
LIBS="$(pkg-config --libs jansson libzstd libpcre2-8) -ldl -lpthread -lm"
OUT=$BUILD/fuzz
mkdir -p "$OUT"
# Everything but the programs' main()s, so targets can reach any parser.
SRC="formats/*.c rules/*.c tests/fuzz/fuzz_util.c $(ls analyzer/*.c | grep -v '/main\.c$')"
for t in tests/fuzz/fuzz_*.c; do
    name=$(basename "$t" .c); name=${name#fuzz_}
    [ "$name" = util ] && continue
    echo "== fuzz $name (${SECONDS_EACH}s)"
    # shellcheck disable=SC2086
    $CC $FLAGS -o "$OUT/fuzz_$name" $t $SRC $LIBS
    mkdir -p "$OUT/$name/corpus"
    cp tests/fuzz/corpus/$name/* "$OUT/$name/corpus/" 2>/dev/null || true
    (cd "$OUT/$name" && ASAN_OPTIONS=detect_leaks=1 ./../fuzz_$name -max_total_time="$SECONDS_EACH" \
        -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 corpus 2>&1 | tail -n 25)
done
