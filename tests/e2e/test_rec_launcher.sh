#!/bin/sh
# iorecord, the launcher: refusals (missing, static, setuid command, unusable
# output), exit status and signals passed through, nothing added to the
# program's output, the library without the launcher, IORECORD_DISABLE and
# --no-stacks.
set -u
. "$(dirname "$0")/lib.sh"
need_built "$IORECORD" "$IOANALYZE"
# A sanitized recorder needs the sanitizer runtime loaded first (make asan):
# exported, for the runs of the library without the launcher too (they add
# it after $LD_PRELOAD), and the launcher keeps it first.
REC_ENV=$(asan_env "$LIBIORECORD")
[ -z "$REC_ENV" ] || export $REC_ENV

work_dir launcher
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
check() {  # WHAT EXPECTED ACTUAL
    if [ "$2" = "$3" ]; then ok "$1"; else bad "$1: expected '$2', got '$3'"; fi
}

"$IORECORD" --help > "$work/help" 2>&1; check "--help exits 0" 0 $?
grep -qx 'usage: iorecord \[-o TRACE\] \[--stacks|--no-stacks\] \[--label KEY=VALUE\]\.\.\. \[--capture MODE\]' "$work/help" ||
    bad "--help shows usage"
grep -qx '       iorecord \[-o TRACE\] -p PID \[-d SECONDS\]' "$work/help" || bad "--help shows the attach usage"
# the help lists every option the parser takes, ioanalyze's way (common/opt_parse.c)
for o in '-o, --output TRACE' '--stacks' '--no-stacks' '--capture MODE' '-p, --pid PID' \
         '-d, --duration SECONDS' '-h, --help' '--version'; do
    grep -q -- "^ *$o  " "$work/help" || bad "--help lists '$o'"
done
# one version line, shaped as ioanalyze's
version=$(sed -n 's/^#define IOSCOPE_VERSION "\(.*\)"$/\1/p' "$TOP/common/version.h")
"$IORECORD" --version > "$work/version" 2>&1; check "--version exits 0" 0 $?
grep -qx "iorecord $version (trace format [0-9]*)" "$work/version" ||
    bad "--version output: $(cat "$work/version")"
"$IORECORD" --vers > "$work/out" 2>&1; check "--vers (abbreviated) exits 0" 0 $?
cmp -s "$work/out" "$work/version" || bad "--vers prints the version"
"$IORECORD" > /dev/null 2> "$work/err"; check "no command: exit 2" 2 $?
grep -qx "iorecord: no command given; see 'iorecord --help'" "$work/err" || bad "no command message: $(cat "$work/err")"
"$IORECORD" --bogus true > /dev/null 2> "$work/err"; check "unknown option: exit 2" 2 $?
grep -qx "iorecord: unknown option '--bogus'; see 'iorecord --help'" "$work/err" ||
    bad "unknown option message: $(cat "$work/err")"
"$IORECORD" -o > /dev/null 2> "$work/err"; check "-o without its trace: exit 2" 2 $?
grep -qx "iorecord: option '-o' needs a value; see 'iorecord --help'" "$work/err" || bad "-o message: $(cat "$work/err")"
# options end at COMMAND: its own options stay its own
"$IORECORD" -o "$work/first.zst" --no-stacks sh -c 'echo "$0" "$1"' --help -o > "$work/out" 2>&1
check "options end at COMMAND: exit 0" 0 $?
check "options end at COMMAND: its arguments" "--help -o" "$(cat "$work/out")"
[ -s "$work/first.zst" ] || bad "options end at COMMAND: the trace is written"

# Refusals: a one-line error, non-zero, and no trace left behind.
"$IORECORD" -o "$work/m.zst" no-such-command-xyz 2> "$work/err"; rc=$?
check "missing command: exit 127" 127 $rc
check "missing command: one line" 1 "$(wc -l < "$work/err")"
grep -q "command not found: 'no-such-command-xyz'" "$work/err" || bad "missing command message: $(cat "$work/err")"
[ ! -e "$work/m.zst" ] || bad "missing command: no trace created"

"$IORECORD" -o /nonexistent-dir/t.zst true 2> "$work/err"; rc=$?
check "unusable output: exit 2" 2 $rc
grep -q "cannot open trace '/nonexistent-dir/t.zst': No such file or directory" "$work/err" \
    || bad "unusable output message: $(cat "$work/err")"

printf 'int main(void) { return 0; }\n' > "$work/s.c"
if ${CC:-cc} -static -o "$work/static" "$work/s.c" 2>/dev/null; then
    # (as root the kernel path records it instead: test_rec_kernel.sh)
    "$IORECORD" --capture preload -o "$work/s.zst" "$work/static" 2> "$work/err"; rc=$?
    check "static command: exit 126" 126 $rc
    grep -q "statically linked" "$work/err" || bad "static message: $(cat "$work/err")"
    [ ! -e "$work/s.zst" ] || bad "static command: no trace created"
else
    echo "skip static command (no static libc)"
fi

if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
    cp /bin/true "$work/suid" && chown nobody "$work/suid" && chmod 4755 "$work/suid"
    "$IORECORD" --capture preload -o "$work/u.zst" "$work/suid" 2> "$work/err"; rc=$?
    check "setuid command: exit 126" 126 $rc
    grep -q "setuid" "$work/err" || bad "setuid message: $(cat "$work/err")"
else
    echo "skip setuid command (needs root)"
fi

# Status and signals.
"$IORECORD" -o "$work/x.zst" sh -c 'exit 7' 2>/dev/null; check "exit status passed on" 7 $?
"$IORECORD" -o "$work/k.zst" sh -c 'kill -TERM $$' 2>/dev/null; check "killed by SIGTERM: 143" 143 $?
"$IOANALYZE" dump --format jsonl "$work/k.zst" > "$work/k.jsonl"
grep -q '"ev":"exit".*"status":143,"signal":15' "$work/k.jsonl" || bad "SIGTERM death recorded"
"$IORECORD" -o "$work/f.zst" sleep 30 & lp=$!
sleep 0.5
kill -TERM $lp
wait $lp; check "SIGTERM to iorecord reaches the command" 143 $?

# Nothing added to the program's stdout or stderr.
"$IORECORD" -o "$work/e.zst" sh -c 'echo out; echo err >&2' > "$work/o" 2> "$work/e"
check "stdout untouched" out "$(cat "$work/o")"
check "stderr untouched" err "$(cat "$work/e")"

# The library alone; IORECORD_DISABLE; stacks on and off.
echo hello > "$work/in"
LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$LIBIORECORD" IORECORD_OUTPUT="$work/l.zst" cat "$work/in" > /dev/null
"$IOANALYZE" dump --format jsonl "$work/l.zst" > "$work/l.jsonl" 2>/dev/null
grep -q "\"op\":\"open\".*\"path\":\"$work/in\"" "$work/l.jsonl" || bad "library without the launcher"
# (a sanitizer runtime's interceptor is a frame of its own before the caller)
grep "\"path\":\"$work/in\"" "$work/l.jsonl" | sed 's/"stack":"[^"\\]*libasan[^\\]*\\n/"stack":"/' |
    grep -q '"stack":"/[^"\\]*/cat+0x' \
    || bad "stack starts at the caller: $(grep "\"path\":\"$work/in\"" "$work/l.jsonl")"
grep -q '"stack":"[^"]*libiorecord' "$work/l.jsonl" && bad "recorder frames in stacks"
LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$LIBIORECORD" IORECORD_OUTPUT="$work/d.zst" IORECORD_DISABLE=1 \
    cat "$work/in" > /dev/null
[ ! -e "$work/d.zst" ] || bad "IORECORD_DISABLE=1 writes nothing"
"$IORECORD" --no-stacks -o "$work/n.zst" cat "$work/in" > /dev/null
"$IOANALYZE" dump --format jsonl "$work/n.zst" > "$work/n.jsonl"
grep -q '"op":"open"' "$work/n.jsonl" || bad "--no-stacks still records opens"
grep -q '"stack":"' "$work/n.jsonl" && bad "--no-stacks records no stacks"
# A parallel build: one trace holding every process, each with its exit.
if command -v make >/dev/null 2>&1; then
    mkdir -p "$work/mk"
    printf 'all: a b c\na:\n\tcat %s > a\nb:\n\tsh -c "cat %s | wc -l > b"\nc:\n\tgzip -c %s > c\n' \
        "$work/in" "$work/in" "$work/in" > "$work/mk/Makefile"
    (cd "$work/mk" && "$IORECORD" -o "$work/mk.zst" make -s -j2 > /dev/null); rc=$?
    check "make -j2 status" 0 $rc
    "$IOANALYZE" info "$work/mk.zst" > "$work/mk.info" 2>&1
    procs=$(sed -n 's/^processes: //p' "$work/mk.info")
    exits=$(grep -c 'exit status 0' "$work/mk.info")
    [ "${procs:-0}" -ge 7 ] || bad "make -j2: $procs processes in the trace, expected >= 7"
    check "make -j2: every process has its exit" "$procs" "$exits"
    for p in make cat wc gzip; do
        grep -q "^  pid .*/$p " "$work/mk.info" || bad "make -j2: no $p process"
    done
fi
[ $fail = 0 ] && ok "launcher"
exit $fail
