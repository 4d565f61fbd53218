#!/bin/sh
# iorecord, the launcher: refusals (missing, static, setuid command, unusable
# output), exit status and signals passed through, nothing added to the
# program's output, the library without the launcher, IORECORD_DISABLE and
# --no-stacks.
set -u
BUILD=${BUILD:-build}
case $BUILD in /*) B=$BUILD ;; *) B=$TOP/$BUILD ;; esac
IOREC=$B/bin/iorecord
IOA=$B/bin/ioanalyze
LIB=$B/lib/libiorecord.so
[ -x "$IOREC" ] || { echo "iorecord not built"; exit 77; }
[ -x "$IOA" ] || { echo "ioanalyze not built"; exit 77; }
if ldd "$LIB" | grep -q libasan; then
    # The preload needs the sanitizer runtime first; the launcher keeps it so.
    asan=$(ldd "$LIB" | awk '/libasan/ { print $3 }')
    export LD_PRELOAD="$asan" ASAN_OPTIONS=detect_leaks=0
fi

tmp=$(mktemp -d /tmp/ioscope-e2e-launcher.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
check() {  # WHAT EXPECTED ACTUAL
    if [ "$2" = "$3" ]; then ok "$1"; else bad "$1: expected '$2', got '$3'"; fi
}

"$IOREC" --help > "$tmp/help" 2>&1; check "--help exits 0" 0 $?
grep -q 'usage: iorecord' "$tmp/help" || bad "--help shows usage"
"$IOREC" --version > /dev/null 2>&1; check "--version exits 0" 0 $?
"$IOREC" > /dev/null 2>&1; check "no command: exit 2" 2 $?
"$IOREC" --bogus true > /dev/null 2>&1; check "unknown option: exit 2" 2 $?

# Refusals: a one-line error, non-zero, and no trace left behind.
"$IOREC" -o "$tmp/m.zst" no-such-command-xyz 2> "$tmp/err"; rc=$?
check "missing command: exit 127" 127 $rc
check "missing command: one line" 1 "$(wc -l < "$tmp/err")"
grep -q "command not found: 'no-such-command-xyz'" "$tmp/err" || bad "missing command message: $(cat "$tmp/err")"
[ ! -e "$tmp/m.zst" ] || bad "missing command: no trace created"

"$IOREC" -o /nonexistent-dir/t.zst true 2> "$tmp/err"; rc=$?
check "unusable output: exit 2" 2 $rc
grep -q "cannot open trace '/nonexistent-dir/t.zst': No such file or directory" "$tmp/err" \
    || bad "unusable output message: $(cat "$tmp/err")"

printf 'int main(void) { return 0; }\n' > "$tmp/s.c"
if ${CC:-cc} -static -o "$tmp/static" "$tmp/s.c" 2>/dev/null; then
    "$IOREC" -o "$tmp/s.zst" "$tmp/static" 2> "$tmp/err"; rc=$?
    check "static command: exit 126" 126 $rc
    grep -q "statically linked" "$tmp/err" || bad "static message: $(cat "$tmp/err")"
    [ ! -e "$tmp/s.zst" ] || bad "static command: no trace created"
else
    echo "skip static command (no static libc)"
fi

if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
    cp /bin/true "$tmp/suid" && chown nobody "$tmp/suid" && chmod 4755 "$tmp/suid"
    "$IOREC" -o "$tmp/u.zst" "$tmp/suid" 2> "$tmp/err"; rc=$?
    check "setuid command: exit 126" 126 $rc
    grep -q "setuid" "$tmp/err" || bad "setuid message: $(cat "$tmp/err")"
else
    echo "skip setuid command (needs root)"
fi

# Status and signals.
"$IOREC" -o "$tmp/x.zst" sh -c 'exit 7' 2>/dev/null; check "exit status passed on" 7 $?
"$IOREC" -o "$tmp/k.zst" sh -c 'kill -TERM $$' 2>/dev/null; check "killed by SIGTERM: 143" 143 $?
"$IOA" dump --format jsonl "$tmp/k.zst" > "$tmp/k.jsonl"
grep -q '"ev":"exit".*"status":143,"signal":15' "$tmp/k.jsonl" || bad "SIGTERM death recorded"
"$IOREC" -o "$tmp/f.zst" sleep 30 & lp=$!
sleep 0.5
kill -TERM $lp
wait $lp; check "SIGTERM to iorecord reaches the command" 143 $?

# Nothing added to the program's stdout or stderr.
"$IOREC" -o "$tmp/e.zst" sh -c 'echo out; echo err >&2' > "$tmp/o" 2> "$tmp/e"
check "stdout untouched" out "$(cat "$tmp/o")"
check "stderr untouched" err "$(cat "$tmp/e")"

# The library alone; IORECORD_DISABLE; stacks on and off.
echo hello > "$tmp/in"
LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$LIB" IORECORD_OUTPUT="$tmp/l.zst" cat "$tmp/in" > /dev/null
"$IOA" dump --format jsonl "$tmp/l.zst" > "$tmp/l.jsonl" 2>/dev/null
grep -q "\"op\":\"open\".*\"path\":\"$tmp/in\"" "$tmp/l.jsonl" || bad "library without the launcher"
# (a sanitizer runtime's interceptor is a frame of its own before the caller)
grep "\"path\":\"$tmp/in\"" "$tmp/l.jsonl" | sed 's/"stack":"libasan[^\\]*\\n/"stack":"/' |
    grep -q '"stack":"cat+0x' \
    || bad "stack starts at the caller: $(grep "\"path\":\"$tmp/in\"" "$tmp/l.jsonl")"
grep -q 'libiorecord' "$tmp/l.jsonl" && bad "recorder frames in stacks"
LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$LIB" IORECORD_OUTPUT="$tmp/d.zst" IORECORD_DISABLE=1 \
    cat "$tmp/in" > /dev/null
[ ! -e "$tmp/d.zst" ] || bad "IORECORD_DISABLE=1 writes nothing"
"$IOREC" --no-stacks -o "$tmp/n.zst" cat "$tmp/in" > /dev/null
"$IOA" dump --format jsonl "$tmp/n.zst" > "$tmp/n.jsonl"
grep -q '"op":"open"' "$tmp/n.jsonl" || bad "--no-stacks still records opens"
grep -q '"stack"' "$tmp/n.jsonl" && bad "--no-stacks records no stacks"
# A parallel build: one trace holding every process, each with its exit.
if command -v make >/dev/null 2>&1; then
    mkdir -p "$tmp/mk"
    printf 'all: a b c\na:\n\tcat %s > a\nb:\n\tsh -c "cat %s | wc -l > b"\nc:\n\tgzip -c %s > c\n' \
        "$tmp/in" "$tmp/in" "$tmp/in" > "$tmp/mk/Makefile"
    (cd "$tmp/mk" && "$IOREC" -o "$tmp/mk.zst" make -s -j2 > /dev/null); rc=$?
    check "make -j2 status" 0 $rc
    "$IOA" info "$tmp/mk.zst" > "$tmp/mk.info" 2>&1
    procs=$(sed -n 's/^processes: //p' "$tmp/mk.info")
    exits=$(grep -c 'exit status 0' "$tmp/mk.info")
    [ "${procs:-0}" -ge 7 ] || bad "make -j2: $procs processes in the trace, expected >= 7"
    check "make -j2: every process has its exit" "$procs" "$exits"
    for p in make cat wc gzip; do
        grep -q "^  pid .*/$p " "$tmp/mk.info" || bad "make -j2: no $p process"
    done
fi
[ $fail = 0 ] && ok "launcher"
exit $fail
