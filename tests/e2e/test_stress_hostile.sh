#!/bin/sh
# Hostile but well-formed inputs must not make ioanalyze allocate without
# bound (tests/fuzz/hostile_gen.c writes the native ones):
#   bomb   32 threads whose 60 MiB chunks compress to 190 KB in all: fails
#          with a clear message (the reader holds at most 1 GiB of chunks)
#   strings 1200 distinct 0.9 MiB stacks in 320 KB of trace: fails with a
#          clear message (at most 1 GiB of distinct strings are kept)
#   paths  a million distinct paths: analysed within 1 GiB of address space
#   stack  a JSONL open whose stack has a million frames: same
# Address space is capped with ulimit -v (not under AddressSanitizer, which
# reserves terabytes of it).
BUILD=${BUILD:-build}
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$TOP" || exit 1
IOANALYZE=$BUILD/bin/ioanalyze
LIBIOTRACE=$BUILD/lib/libiotrace.a
CC=${CC:-cc}
for f in "$IOANALYZE" "$LIBIOTRACE"; do
    [ -e "$f" ] || { echo "skip: '$f' is not built"; exit 77; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/ioscope-hostile.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT

SAN=
LIMIT="ulimit -v"
if nm "$IOANALYZE" 2>/dev/null | grep -q __asan_init; then
    SAN="-fsanitize=address,undefined"
    LIMIT=:
fi
# shellcheck disable=SC2086
$CC -std=c11 -O2 -D_GNU_SOURCE $SAN -Iformats -o "$T/gen" tests/fuzz/hostile_gen.c "$LIBIOTRACE" \
    $(pkg-config --libs libzstd 2>/dev/null || echo -lzstd) ||
    { echo "skip: cannot build tests/fuzz/hostile_gen.c with '$CC'"; exit 77; }

failed=0
bad() {
    echo "FAIL [$1]: $2"
    failed=1
}

# --- decompression bomb
"$T/gen" bomb 32 60 "$T/bomb.zst" 2>/dev/null || { echo "FAIL: cannot generate the bomb"; exit 1; }
($LIMIT 3145728; "$IOANALYZE" "$T/bomb.zst" >"$T/bomb.out" 2>"$T/bomb.err")
rc=$?
[ $rc -eq 2 ] || bad bomb "exit status $rc, expected 2 (refused)"
grep -q "^ioanalyze: cannot read trace '.*bomb.zst': .*decompression bomb" "$T/bomb.err" ||
    { bad bomb "no clear message:"; cat "$T/bomb.err"; }
echo "  [bomb] $(wc -c <"$T/bomb.zst") bytes that inflate to 1.9 GiB: exit $rc, $(head -c 160 "$T/bomb.err")"

# --- a string bomb: distinct stacks that compress 1000:1
"$T/gen" stack 87000 1200 "$T/strings.zst" || { echo "FAIL: cannot generate the stacks trace"; exit 1; }
($LIMIT 3145728; "$IOANALYZE" "$T/strings.zst" >"$T/strings.out" 2>"$T/strings.err")
rc=$?
[ $rc -eq 2 ] || bad strings "exit status $rc, expected 2 (refused)"
grep -q "^ioanalyze: cannot read trace '.*strings.zst': more than 1024 MiB of distinct strings" "$T/strings.err" ||
    { bad strings "no clear message:"; cat "$T/strings.err"; }
echo "  [strings] $(wc -c <"$T/strings.zst") bytes carrying 1.1 GB of distinct stacks: exit $rc"

# --- a million distinct paths
"$T/gen" paths 1000000 "$T/paths.zst" || { echo "FAIL: cannot generate the paths trace"; exit 1; }
($LIMIT 1048576; "$IOANALYZE" --csv "$T/paths.csv" "$T/paths.zst" >"$T/paths.out" 2>"$T/paths.err")
rc=$?
[ $rc -eq 0 ] || { bad paths "exit status $rc within 1 GiB:"; cat "$T/paths.err"; }
rows=$(($(wc -l <"$T/paths.csv") - 1))
[ "$rows" -eq 1000000 ] || bad paths "$rows profile rows, expected 1000000"
echo "  [paths] 1000000 distinct paths: exit $rc, $rows profile rows"

# --- a stack of a million frames (JSONL: no format cap on string length)
awk 'BEGIN {
    printf "{\"ev\":\"process\",\"pid\":1,\"ppid\":0,\"exe\":\"/x\",\"cmdline\":[\"x\"],\"start_unix_ns\":1763800000000000000}\n"
    printf "{\"ev\":\"call\",\"t\":0,\"pid\":1,\"tid\":1,\"op\":\"open\",\"dur\":10,\"ret\":3,\"fd\":3,\"path\":\"/a\",\"flags\":0,\"stack\":\"f0+0x1 (m)"
    for (i = 1; i < 1000000; i++) printf "\\nf%d+0x10 (/usr/lib/libx.so)", i
    printf "\"}\n"
    printf "{\"ev\":\"exit\",\"t\":100,\"pid\":1,\"status\":0}\n"
}' >"$T/stack.jsonl"
($LIMIT 1048576; "$IOANALYZE" "$T/stack.jsonl" >"$T/stack.out" 2>"$T/stack.err")
rc=$?
[ $rc -eq 0 ] || { bad stack "exit status $rc within 1 GiB:"; cat "$T/stack.err"; }
# the open is never closed: a leak issue whose stack is that stack
grep -q '"rule": "leak"' "$T/stack.out" || bad stack "the leaked open was not reported"
echo "  [stack] a $(wc -c <"$T/stack.jsonl")-byte line, a million frames: exit $rc"

[ $failed -eq 0 ] && echo "ok: decompression and string bombs refused with a message; a million paths and a million-frame stack within 1 GiB"
exit $failed
