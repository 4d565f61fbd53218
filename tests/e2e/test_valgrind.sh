#!/bin/sh
# Valgrind memcheck of ioanalyze: every subcommand on the samples' traces (recorded
# here), a damaged trace, a real strace log and a JSONL event file. Any memcheck
# error, and any leak of any kind (definite, indirect, possible or still
# reachable), fails. Then a corpus of damaged traces: one recorded trace with one
# byte flipped at each of a fixed set of places, read by `info` and `dump` under
# memcheck; a memcheck error, a crash, a hang or figures that cannot be true
# fail. Skipped without valgrind.
# e2e: slow (about 218 s here: memcheck of every subcommand)
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

# Flipped bytes. worker_io's trace is three chunks (three threads) in about
# 900 bytes: every 7th byte of the first 455 hits each part of the first
# chunk and the second's start (frame magics, sizes, headers, block headers,
# compressed data, checksums), and places counted from the end the second's
# end and the last chunk's index frame, data and checksum: about 75 traces,
# a minute of memcheck. Damage there was read as garbage once (pass 2
# subtracted an uninitialised header's size from the decompressed bytes).
# info and dump of each flip run side by side: two cores.
FLIP=$work/traces/worker_io.zst
fsize=$(wc -c <"$FLIP")
"$IOANALYZE" info "$FLIP" >"$work/info.orig" 2>&1 || { echo "FAIL: ioanalyze info $FLIP"; cat "$work/info.orig"; exit 1; }
# native: format version 1, C chunks (S partial snapshots superseded), R decompressed bytes
figures() {
    awk '/^native:/ { c = $5; s = $7; sub(/^\(/, "", s); r = $(NF - 2) }
         /^damage:/ { d = ($2 == "none") ? 0 : $2; e = ($2 == "none") ? -1 : $(NF - 1) }
         /^events:/ { ev = $2 }
         END { print c + 0, s + 0, (r == "" ? 0 : r), d + 0, e + 0, ev + 0 }' "$1"
}
set -- $(figures "$work/info.orig")
chunks0=$1 raw0=$3 events0=$6
[ "$chunks0" -ge 3 ] || { echo "FAIL: worker_io's trace has $chunks0 chunks, not the 3 this test aims at"; exit 1; }
# Each chunk's decompressed size, 48 + the bytes field of its header in its
# index frame (docs/trace-format.md 1.1, 2): the decompressed bytes of a
# damaged copy are the sum of some of them, each chunk counted whole or not.
sizes=$(od -An -tu1 -v "$FLIP" | awk '{ for (i = 1; i <= NF; i++) b[n++] = $i }
    END { for (p = 0; p + 56 <= n; p++)
              if (b[p] == 94 && b[p + 1] == 42 && b[p + 2] == 77 && b[p + 3] == 24 &&  # magic
                  b[p + 4] == 48 && b[p + 5] + b[p + 6] + b[p + 7] == 0 &&           # size 48
                  b[p + 8] == 73 && b[p + 9] == 79 && b[p + 10] == 83 && b[p + 11] == 67)  # IOSC
                  print 48 + b[p + 48] + 256 * (b[p + 49] + 256 * (b[p + 50] + 256 * b[p + 51])) }')
[ "$(echo "$sizes" | awk '{ t += $1 } END { print t + 0 }')" -eq "$raw0" ] ||
    { echo "FAIL: the index frames of $FLIP do not add up to its $raw0 decompressed bytes: $sizes"; exit 1; }
# subset_sum N: whether N is the sum of some of $sizes
subset_sum() {
    echo "$sizes" | awk -v want="$1" '{ s[k++] = $1 }
        END { for (m = 0; m < 2 ^ k; m++) {
                  t = 0; r = m
                  for (i = 0; i < k; i++) { if (r % 2) t += s[i]; r = int(r / 2) }
                  if (t == want) exit 0
              }
              exit 1 }'
}
# IOT_MAX_CHUNK_BYTES (formats/records.h): no chunk decompresses to more
CHUNK_MAX=$((64 * 1024 * 1024))
TIMEOUT=120
command -v timeout >/dev/null 2>&1 || TIMEOUT=""

# flip POS OUT: FLIP with the byte at POS inverted, as OUT
flip() {
    cp "$FLIP" "$2"
    _b=$(od -An -tu1 -j "$1" -N1 "$FLIP" | tr -d ' ')
    printf "$(printf '\\%03o' $((_b ^ 255)))" | dd of="$2" bs=1 seek="$1" conv=notrunc 2>/dev/null
}
# vgflip NAME ARGS...: like vg, for a run in the background: its exit status in rc.NAME
vgflip() {
    _name=$1
    shift
    LD_PRELOAD=$work/nojit.so ${TIMEOUT:+timeout $TIMEOUT} valgrind -q --error-exitcode=99 \
        --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=all \
        --log-file="$work/vg.$_name.log" "$IOANALYZE" "$@" >"$work/out.$_name" 2>"$work/err.$_name"
    echo $? >"$work/rc.$_name"
}
# flipcheck NAME: memcheck, exit status and output of one run
flipcheck() {
    _rc=$(cat "$work/rc.$1")
    runs=$((runs + 1))
    if [ "$_rc" -eq 99 ] || [ -s "$work/vg.$1.log" ]; then
        echo "FAIL: memcheck reports for ioanalyze $1 with byte $pos flipped"
        head -n 40 "$work/vg.$1.log"
        failed=1
    elif [ "$_rc" -eq 124 ] && [ -n "$TIMEOUT" ]; then
        echo "FAIL: ioanalyze $1 with byte $pos flipped did not end in $TIMEOUT s"
        failed=1
    elif [ "$_rc" -gt 2 ]; then
        echo "FAIL: ioanalyze $1 with byte $pos flipped exited $_rc"
        cat "$work/err.$1"
        failed=1
    elif [ "$_rc" -ne 0 ] && ! grep -q "^ioanalyze: " "$work/err.$1"; then
        echo "FAIL: ioanalyze $1 with byte $pos flipped exited $_rc without saying why"
        failed=1
    fi
    return "$_rc"
}

mkdir "$work/flip"
places=$(awk -v size="$fsize" 'BEGIN {
    for (p = 0; p < 455 && p < size; p += 7) print p
    split("1 4 9 33 77 150 250 330 400", back, " ")
    for (i = 1; i in back; i++) if (size - back[i] >= 455) print size - back[i]
}')
nflip=0
for pos in $places; do
    f=$work/flip/$pos.zst
    flip "$pos" "$f"
    vgflip info info "$f" &
    vgflip dump dump --format jsonl "$f" &
    wait
    nflip=$((nflip + 1))
    flipcheck info
    dump_rc=0
    flipcheck dump || dump_rc=$?
    # the figures, whenever info printed them (memcheck's status hides info's own)
    grep -q "^events: " "$work/out.info" || continue
    set -- $(figures "$work/out.info")
    chunks=$1 superseded=$2 raw=$3 recovered=$5 events=$6
    # what a flipped byte can never do: add chunks, events or decompressed bytes
    bad=""
    [ "$raw" -le $((CHUNK_MAX * (chunks + superseded))) ] ||
        bad="$bad; $raw decompressed bytes from $chunks chunks of at most $CHUNK_MAX"
    [ "$raw" -le "$raw0" ] || bad="$bad; $raw decompressed bytes, more than the intact trace's $raw0"
    subset_sum "$raw" || bad="$bad; $raw decompressed bytes, not the sum of some of its chunks' ($(echo $sizes))"
    [ "$chunks" -le "$chunks0" ] || bad="$bad; $chunks chunks, more than the intact trace's $chunks0"
    [ "$events" -le "$events0" ] || bad="$bad; $events events, more than the intact trace's $events0"
    [ "$recovered" -lt 0 ] || [ "$recovered" -eq "$events" ] ||
        bad="$bad; recovered $recovered events but counted $events"
    if [ "$dump_rc" -ne 0 ] && [ "$dump_rc" -ne 99 ]; then
        bad="$bad; info read it but dump exited $dump_rc"
    elif [ "$(wc -l <"$work/out.dump")" -ne "$events" ]; then
        bad="$bad; dump wrote $(wc -l <"$work/out.dump") events, info counted $events"
    fi
    if [ -n "$bad" ]; then
        echo "FAIL: byte $pos flipped:${bad#;}"
        sed 's/^/    /' "$work/out.info" | head -n 8
        failed=1
    fi
done

[ $failed -eq 0 ] && echo "ok: $runs ioanalyze runs under memcheck ($n sample traces, a cut trace, strace, JSONL, $nflip traces with a flipped byte): no errors, no leaks, sane figures"
exit $failed
