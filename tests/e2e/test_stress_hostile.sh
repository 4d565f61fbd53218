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
# e2e: slow (about 24 s here: inputs that inflate to gigabytes)
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1
LIBIOTRACE=$BUILD/lib/libiotrace.a
CC=${CC:-cc}
need_built "$IOANALYZE" "$LIBIOTRACE"
work_dir hostile

SAN=
LIMIT="ulimit -v"
if nm "$IOANALYZE" 2>/dev/null | grep -q __asan_init; then
    SAN="-fsanitize=address,undefined"
    LIMIT=:
fi
# shellcheck disable=SC2086
$CC -std=c11 -O2 -D_GNU_SOURCE $SAN -Iformats -o "$work/gen" tests/fuzz/hostile_gen.c "$LIBIOTRACE" \
    $(pkg-config --libs libzstd 2>/dev/null || echo -lzstd) ||
    { echo "skip: cannot build tests/fuzz/hostile_gen.c with '$CC'"; exit 77; }

failed=0
bad() {
    echo "FAIL [$1]: $2"
    failed=1
}

# --- decompression bomb
"$work/gen" bomb 32 60 "$work/bomb.zst" 2>/dev/null || { echo "FAIL: cannot generate the bomb"; exit 1; }
($LIMIT 3145728; "$IOANALYZE" "$work/bomb.zst" >"$work/bomb.out" 2>"$work/bomb.err")
rc=$?
[ $rc -eq 2 ] || bad bomb "exit status $rc, expected 2 (refused)"
grep -q "^ioanalyze: cannot read trace '.*bomb.zst': .*decompression bomb" "$work/bomb.err" ||
    { bad bomb "no clear message:"; cat "$work/bomb.err"; }
echo "  [bomb] $(wc -c <"$work/bomb.zst") bytes that inflate to 1.9 GiB: exit $rc, $(head -c 160 "$work/bomb.err")"

# --- a string bomb: distinct stacks that compress 1000:1
"$work/gen" stack 87000 1200 "$work/strings.zst" || { echo "FAIL: cannot generate the stacks trace"; exit 1; }
($LIMIT 3145728; "$IOANALYZE" "$work/strings.zst" >"$work/strings.out" 2>"$work/strings.err")
rc=$?
[ $rc -eq 2 ] || bad strings "exit status $rc, expected 2 (refused)"
grep -q "^ioanalyze: cannot read trace '.*strings.zst': more than 1024 MiB of distinct strings" "$work/strings.err" ||
    { bad strings "no clear message:"; cat "$work/strings.err"; }
echo "  [strings] $(wc -c <"$work/strings.zst") bytes carrying 1.1 GB of distinct stacks: exit $rc"

# --- a million distinct paths
"$work/gen" paths 1000000 "$work/paths.zst" || { echo "FAIL: cannot generate the paths trace"; exit 1; }
($LIMIT 1048576; "$IOANALYZE" --csv "$work/paths.csv" "$work/paths.zst" >"$work/paths.out" 2>"$work/paths.err")
rc=$?
[ $rc -eq 0 ] || { bad paths "exit status $rc within 1 GiB:"; cat "$work/paths.err"; }
rows=$(($(wc -l <"$work/paths.csv") - 1))
[ "$rows" -eq 1000000 ] || bad paths "$rows profile rows, expected 1000000"
echo "  [paths] 1000000 distinct paths: exit $rc, $rows profile rows"

# --- a stack of a million frames (JSONL: no format cap on string length)
awk 'BEGIN {
    printf "{\"ev\":\"process\",\"pid\":1,\"ppid\":0,\"exe\":\"/x\",\"cmdline\":[\"x\"],\"start_unix_ns\":1763800000000000000}\n"
    printf "{\"ev\":\"call\",\"t\":0,\"pid\":1,\"tid\":1,\"op\":\"open\",\"dur\":10,\"ret\":3,\"fd\":3,\"path\":\"/a\",\"flags\":0,\"stack\":\"f0+0x1 (m)"
    for (i = 1; i < 1000000; i++) printf "\\nf%d+0x10 (/usr/lib/libx.so)", i
    printf "\"}\n"
    printf "{\"ev\":\"exit\",\"t\":100,\"pid\":1,\"status\":0}\n"
}' >"$work/stack.jsonl"
($LIMIT 1048576; "$IOANALYZE" --set leak.min_count=1 "$work/stack.jsonl" >"$work/stack.out" 2>"$work/stack.err")
rc=$?
[ $rc -eq 0 ] || { bad stack "exit status $rc within 1 GiB:"; cat "$work/stack.err"; }
# the open is never closed: a leak issue whose stack is that stack
grep -q '"rule": "leak"' "$work/stack.out" || bad stack "the leaked open was not reported"
echo "  [stack] a $(wc -c <"$work/stack.jsonl")-byte line, a million frames: exit $rc"

[ $failed -eq 0 ] && echo "ok: decompression and string bombs refused with a message; a million paths and a million-frame stack within 1 GiB"
exit $failed
