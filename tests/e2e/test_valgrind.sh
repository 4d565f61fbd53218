#!/bin/sh
# Valgrind memcheck of ioanalyze: every subcommand on the samples' traces (recorded
# here), a damaged trace, a real strace log and a JSONL event file. Any memcheck
# error, and any leak of any kind (definite, indirect, possible or still
# reachable), fails. Skipped without valgrind.
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1
have valgrind || skip "valgrind is not installed"
need_built "$IORECORD" "$IOANALYZE" "$LIBIORECORD"
# ASan builds cannot run under valgrind.
if nm "$IOANALYZE" 2>/dev/null | grep -q __asan_init; then
    echo "skip: '$IOANALYZE' is built with AddressSanitizer"
    exit 77
fi

work_dir vg
mkdir "$work/traces" "$work/files"
n=0
for prog in "$BUILD"/bin/samples/*; do
    [ -x "$prog" ] || continue
    name=$(basename "$prog")
    "$IORECORD" -o "$work/traces/$name.zst" -- "$prog" "$work/files/$name" >/dev/null 2>&1 ||
        { echo "FAIL: cannot record sample $name"; exit 1; }
    n=$((n + 1))
done
[ $n -gt 0 ] || { echo "skip: no samples built"; exit 77; }
# a trace cut in the middle of a frame: the damaged-input path
head -c $(($(wc -c <"$work/traces/repeat_read.zst") / 2)) "$work/traces/repeat_read.zst" >"$work/cut.zst"
# PCRE2's JIT code reads 16 bytes at a time past the end of subject strings
# (safe, by design) and memcheck cannot see its origin: run PCRE2's
# interpreter instead, by failing pcre2_jit_compile (ioanalyze then matches
# without JIT), so any report left is about ioanalyze's own memory.
CC=${CC:-cc}
printf 'int pcre2_jit_compile_8(void *code, unsigned opts) { (void)code; (void)opts; return -45; }\n' >"$work/nojit.c"
$CC -shared -fPIC -o "$work/nojit.so" "$work/nojit.c" || { echo "skip: cannot build the no-JIT shim with '$CC'"; exit 77; }
STRACE=tests/fixtures/strace/real_zstd_threads.log
JSONL=tests/fixtures/rules/random_write_dup_shared.jsonl
printf '{"rules":{"small_buffer":{"min_ops":10}},"normalize":[{"pattern":"/tmp/[^/]+","replace":"/tmp/*"}]}\n' >"$work/config.json"

failed=0
runs=0
# vg NAME ARGS...: ioanalyze under memcheck; exit statuses 0-2 are the
# program's own (2 is right for the damaged input with --strict), 99 is memcheck's.
vg() {
    name=$1
    shift
    LD_PRELOAD=$work/nojit.so valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=all \
        --errors-for-leak-kinds=all --log-file="$work/vg.$name.log" \
        "$IOANALYZE" "$@" >"$work/out.$name" 2>"$work/err.$name"
    rc=$?
    runs=$((runs + 1))
    if [ $rc -eq 99 ] || [ -s "$work/vg.$name.log" ]; then
        echo "FAIL: memcheck reports for: ioanalyze $*"
        head -n 40 "$work/vg.$name.log"
        failed=1
    elif [ $rc -gt 2 ]; then
        echo "FAIL: ioanalyze $* exited $rc"
        cat "$work/err.$name"
        failed=1
    fi
}

vg analyze --csv "$work/profile.csv" --config "$work/config.json" "$work/traces"
cp "$work/out.analyze" "$work/issues.json"
vg analyze-sarif --format sarif "$work/traces"
vg analyze-jsonl --format jsonl --baseline "$work/issues.json" "$work/traces"
vg profile profile "$work/traces" "$STRACE" "$JSONL"
vg dump dump --format jsonl "$work/traces/stdio_unbuf.zst"
vg dump-text dump --format text "$work/traces/worker_io.zst"
vg info info "$work/traces" "$STRACE"
vg strace "$STRACE"
vg jsonl "$JSONL"
vg cut "$work/cut.zst"
vg cut-strict --strict "$work/cut.zst"
vg diff diff "$work/issues.json" "$work/traces/clean.zst"
vg rules rules
vg bad-input "$work/config.json"

[ $failed -eq 0 ] && echo "ok: $runs ioanalyze runs under memcheck ($n sample traces, a cut trace, strace, JSONL): no errors, no leaks"
exit $failed
