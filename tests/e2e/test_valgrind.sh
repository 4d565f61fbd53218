#!/bin/sh
# Valgrind memcheck of ioanalyze: every subcommand on the samples' traces (recorded
# here), a damaged trace, a real strace log and a JSONL event file. Any memcheck
# error, and any leak of any kind (definite, indirect, possible or still
# reachable), fails. Skipped without valgrind.
BUILD=${BUILD:-build}
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$TOP" || exit 1
IORECORD=$BUILD/bin/iorecord
IOANALYZE=$BUILD/bin/ioanalyze
command -v valgrind >/dev/null 2>&1 || { echo "skip: valgrind is not installed"; exit 77; }
for f in "$IORECORD" "$IOANALYZE" "$BUILD/lib/libiorecord.so"; do
    [ -e "$f" ] || { echo "skip: '$f' is not built"; exit 77; }
done
# ASan builds cannot run under valgrind.
if nm "$IOANALYZE" 2>/dev/null | grep -q __asan_init; then
    echo "skip: '$IOANALYZE' is built with AddressSanitizer"
    exit 77
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/ioscope-vg.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
mkdir "$T/traces" "$T/files"
n=0
for prog in "$BUILD"/bin/samples/*; do
    [ -x "$prog" ] || continue
    name=$(basename "$prog")
    "$IORECORD" -o "$T/traces/$name.zst" -- "$prog" "$T/files/$name" >/dev/null 2>&1 ||
        { echo "FAIL: cannot record sample $name"; exit 1; }
    n=$((n + 1))
done
[ $n -gt 0 ] || { echo "skip: no samples built"; exit 77; }
# a trace cut in the middle of a frame: the damaged-input path
head -c $(($(wc -c <"$T/traces/repeat_read.zst") / 2)) "$T/traces/repeat_read.zst" >"$T/cut.zst"
# PCRE2's JIT code reads 16 bytes at a time past the end of subject strings
# (safe, by design) and memcheck cannot see its origin: run PCRE2's
# interpreter instead, by failing pcre2_jit_compile (ioanalyze then matches
# without JIT), so any report left is about ioanalyze's own memory.
CC=${CC:-cc}
printf 'int pcre2_jit_compile_8(void *code, unsigned opts) { (void)code; (void)opts; return -45; }\n' >"$T/nojit.c"
$CC -shared -fPIC -o "$T/nojit.so" "$T/nojit.c" || { echo "skip: cannot build the no-JIT shim with '$CC'"; exit 77; }
STRACE=tests/fixtures/strace/real_zstd_threads.log
JSONL=tests/fixtures/rules/random_write_dup_shared.jsonl
printf '{"rules":{"small_buffer":{"min_ops":10}},"normalize":[{"pattern":"/tmp/[^/]+","replace":"/tmp/*"}]}\n' >"$T/config.json"

failed=0
runs=0
# vg NAME ARGS...: ioanalyze under memcheck; exit statuses 0-2 are the
# program's own (2 is right for the damaged input with --strict), 99 is memcheck's.
vg() {
    name=$1
    shift
    LD_PRELOAD=$T/nojit.so valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=all \
        --errors-for-leak-kinds=all --log-file="$T/vg.$name.log" \
        "$IOANALYZE" "$@" >"$T/out.$name" 2>"$T/err.$name"
    rc=$?
    runs=$((runs + 1))
    if [ $rc -eq 99 ] || [ -s "$T/vg.$name.log" ]; then
        echo "FAIL: memcheck reports for: ioanalyze $*"
        head -n 40 "$T/vg.$name.log"
        failed=1
    elif [ $rc -gt 2 ]; then
        echo "FAIL: ioanalyze $* exited $rc"
        cat "$T/err.$name"
        failed=1
    fi
}

vg analyze --csv "$T/profile.csv" --config "$T/config.json" "$T/traces"
cp "$T/out.analyze" "$T/issues.json"
vg analyze-sarif --format sarif "$T/traces"
vg analyze-jsonl --format jsonl --baseline "$T/issues.json" "$T/traces"
vg profile profile "$T/traces" "$STRACE" "$JSONL"
vg dump dump --format jsonl "$T/traces/stdio_unbuf.zst"
vg dump-text dump --format text "$T/traces/worker_io.zst"
vg info info "$T/traces" "$STRACE"
vg strace "$STRACE"
vg jsonl "$JSONL"
vg cut "$T/cut.zst"
vg cut-strict --strict "$T/cut.zst"
vg diff diff "$T/issues.json" "$T/traces/clean.zst"
vg rules rules
vg bad-input "$T/config.json"

[ $failed -eq 0 ] && echo "ok: $runs ioanalyze runs under memcheck ($n sample traces, a cut trace, strace, JSONL): no errors, no leaks"
exit $failed
