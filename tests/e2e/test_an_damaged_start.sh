#!/bin/sh
# A native trace whose start is damaged is still read: its first bytes
# flipped, zeroed, or garbage before it. Every intact chunk's events are
# analysed, one warning names the file and the bytes skipped, the exit is
# 0 (the SPEC's status for a damaged input) and 2 under --strict.
. "$(dirname "$0")/lib.sh"
GEN=$BUILD/bin/bench/gen_trace
need_built "$IOANALYZE"
work_dir damaged_start

if [ -x "$GEN" ]; then
    "$GEN" --chunk 2000 3000 "$work/t.zst" 2>/dev/null || die "gen_trace failed"
elif [ -x "$IORECORD" ]; then
    # many short processes: one chunk each at least
    (cd "$work" && env $(asan_env "$LIBIORECORD") "$IORECORD" -o "$work/t.zst" \
        sh -c 'for i in 1 2 3 4 5 6 7 8; do cat /etc/hostname; done' >/dev/null 2>&1) ||
        die "iorecord failed"
else
    skip "neither bench/gen_trace nor iorecord is built"
fi

# events N FILE: the event count info reports
events() {
    "$IOANALYZE" info "$1" 2>/dev/null | sed -n 's/^events: \([0-9]*\).*/\1/p'
}
# the offset of the second chunk's index frame: the first chunk ends there
second=$(LC_ALL=C grep -obUaP '\x5e\x2a\x4d\x18\x30\x00\x00\x00IOSC' "$work/t.zst" |
         sed -n '2s/:.*//p')
[ -n "$second" ] || die "the trace has a single chunk"
all=$(events "$work/t.zst")
tail -c +$((second + 1)) "$work/t.zst" >"$work/rest.zst"
rest=$(events "$work/rest.zst")
[ -n "$all" ] && [ -n "$rest" ] && [ "$rest" -lt "$all" ] || die "events: all '$all', rest '$rest'"

# garbage before the trace: nothing lost, the 23 bytes skipped
{ printf 'this is not a trace...\n'; cat "$work/t.zst"; } >"$work/prefixed.zst"
# its first four bytes (the index frame's magic) flipped: the data frame is read without it
cp "$work/t.zst" "$work/flipped.zst"
printf '\241\325\262\347' | dd of="$work/flipped.zst" bs=1 seek=0 conv=notrunc 2>/dev/null
# its first 64 bytes zeroed: the first chunk is lost, the rest read
cp "$work/t.zst" "$work/zeroed.zst"
dd if=/dev/zero of="$work/zeroed.zst" bs=1 count=64 seek=0 conv=notrunc 2>/dev/null

for case in prefixed:$all:23 flipped:$all: zeroed:$rest:$second; do
    name=${case%%:*}; want=${case#*:}; skipped=${want#*:}; want=${want%%:*}
    f=$work/$name.zst
    "$IOANALYZE" --format json "$f" >"$work/$name.json" 2>"$work/$name.err"
    rc=$?
    [ $rc -eq 0 ] || not_ok "$name: exit $rc, not 0: $(cat "$work/$name.err")"
    got=$(events "$f")
    [ "$got" = "$want" ] || not_ok "$name: $got events, not $want"
    n=$(grep -c 'warning: ' "$work/$name.err")
    [ "$n" -eq 1 ] || not_ok "$name: $n warnings, not one: $(cat "$work/$name.err")"
    grep -q "warning: '$f': damaged trace" "$work/$name.err" || not_ok "$name: the warning does not name the file"
    if [ -n "$skipped" ]; then
        grep -q " $skipped bytes skipped" "$work/$name.err" ||
            not_ok "$name: not '$skipped bytes skipped': $(cat "$work/$name.err")"
    fi
    "$IOANALYZE" --strict --format json "$f" >/dev/null 2>&1
    rc=$?
    [ $rc -eq 2 ] || not_ok "$name: --strict exit $rc, not 2"
done
exit $fail
