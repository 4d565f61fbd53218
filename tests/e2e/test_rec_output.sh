#!/bin/sh
# The trace file (issue 16): a symbolic link at its path is refused with one
# line and never followed; a new trace is 0600 whatever the umask; iorecord
# leaves an old trace whole until the new one is complete, then renames it
# into place (when iorecord is killed, its collector does so once the
# program ends; the old trace is whole until then); the library
# without the launcher appends only to a trace, warning once otherwise.
set -u
. "$(dirname "$0")/lib.sh"
need_built "$IORECORD" "$IOANALYZE" "$LIBIORECORD"
work_dir output

# A sanitized recorder (make asan) needs its runtime loaded first, both
# under the launcher and preloaded alone.
REC_ENV=$(asan_env "$LIBIORECORD")
ASAN_RT=$(asan_runtime "$LIBIORECORD")
preload() {  # OUTPUT COMMAND...: COMMAND with the library alone
    _out=$1
    shift
    env LD_PRELOAD="${ASAN_RT:+$ASAN_RT:}$LIBIORECORD" ${ASAN_RT:+ASAN_OPTIONS=detect_leaks=0} \
        IORECORD_OUTPUT="$_out" "$@"
}
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
check() {  # WHAT EXPECTED ACTUAL
    if [ "$2" = "$3" ]; then ok "$1"; else bad "$1: expected '$2', got '$3'"; fi
}
# no_spool WHAT: no spool file left in $work.
no_spool() {
    left=$(ls -A "$work" | grep '\.iorecord-')
    [ -z "$left" ] || bad "$1: spool left behind: $left"
}
# wait_for FILE: until FILE exists (at most 30 s).
wait_for() {
    _i=0
    while [ ! -e "$1" ] && [ $_i -lt 300 ]; do sleep 0.1; _i=$((_i + 1)); done
    [ -e "$1" ] || bad "timed out waiting for '$1'"
}

echo "root-only secret" > "$work/target"
cp "$work/target" "$work/target.orig"

# --- the launcher: a symbolic link at -o is refused, its target untouched
ln -s "$work/target" "$work/link.zst"
env $REC_ENV "$IORECORD" -o "$work/link.zst" cat "$work/target" > /dev/null 2> "$work/err"; rc=$?
check "symlink: exit 2" 2 $rc
check "symlink: one line" 1 "$(wc -l < "$work/err")"
grep -qx "iorecord: '$work/link.zst' is a symbolic link: not writing the trace through it" "$work/err" \
    || bad "symlink message: $(cat "$work/err")"
cmp -s "$work/target" "$work/target.orig" || bad "symlink: the target was changed"
[ -L "$work/link.zst" ] || bad "symlink: the link was replaced"
no_spool "symlink"
# a dangling one too: nothing is created where it points
ln -s "$work/nowhere" "$work/dangling.zst"
env $REC_ENV "$IORECORD" -o "$work/dangling.zst" true 2> "$work/err"; rc=$?
check "dangling symlink: exit 2" 2 $rc
[ ! -e "$work/nowhere" ] || bad "dangling symlink: its target was created"

# --- a new trace is 0600: it holds argv
(umask 022 && env $REC_ENV "$IORECORD" -o "$work/new.zst" cat "$work/target" > /dev/null); rc=$?
check "new trace: exit 0" 0 $rc
check "new trace: mode under umask 022" 600 "$(stat -c %a "$work/new.zst")"
"$IOANALYZE" info "$work/new.zst" > /dev/null 2>&1 || bad "new trace: unreadable"
no_spool "new trace"

# --- an old trace stays whole while the command runs, then is replaced
cp "$work/new.zst" "$work/old.zst"
cp "$work/old.zst" "$work/old.orig"
env $REC_ENV "$IORECORD" -o "$work/old.zst" sh -c \
    ": > '$work/started'; while [ ! -e '$work/go' ]; do sleep 0.05; done; head -c 4 '$work/target'" \
    > /dev/null 2> "$work/err" &
lp=$!
wait_for "$work/started"
sleep 1.5   # time for the recorder to write chunks out, wherever it writes
cmp -s "$work/old.zst" "$work/old.orig" || bad "old trace changed while the command ran"
spool=$(ls -A "$work" | grep '^\.old\.zst\.iorecord-')
[ -n "$spool" ] || bad "no spool beside the trace while the command runs"
[ -z "$spool" ] || check "spool: mode" 600 "$(stat -c %a "$work/$spool")"
: > "$work/go"
wait $lp; rc=$?
check "replaced trace: exit 0" 0 $rc
check "replaced trace: stderr empty" "" "$(cat "$work/err")"
if "$IOANALYZE" info "$work/old.zst" > "$work/info" 2>&1; then
    grep -q '^  pid .*/head \[head -c 4' "$work/info" || bad "replaced trace: no head process: $(cat "$work/info")"
    grep -q '^  pid .*/cat ' "$work/info" && bad "replaced trace: still holds the old run"
else
    bad "replaced trace: unreadable: $(cat "$work/info")"
fi
no_spool "replaced trace"

# --- a device is written in place, as named
env $REC_ENV "$IORECORD" -o /dev/null true 2> "$work/err"; rc=$?
check "/dev/null: exit 0" 0 $rc
check "/dev/null: stderr empty" "" "$(cat "$work/err")"
[ -c /dev/null ] || bad "/dev/null is no longer a device"

# --- iorecord killed: the old trace stays whole while the program runs; the
# collector puts the new one in place when it ends
cp "$work/old.zst" "$work/kept.zst"
cp "$work/kept.zst" "$work/kept.orig"
rm -f "$work/started" "$work/go"
env $REC_ENV "$IORECORD" -o "$work/kept.zst" sh -c \
    ": > '$work/started'; while [ ! -e '$work/go' ]; do sleep 0.05; done; head -c 4 '$work/target'; : > '$work/done'" \
    > /dev/null 2>&1 &
lp=$!
wait_for "$work/started"
kill -KILL $lp
wait $lp 2>/dev/null
sleep 0.2
cmp -s "$work/kept.zst" "$work/kept.orig" || bad "killed iorecord: the old trace changed while the program ran"
: > "$work/go"
wait_for "$work/done"
i=0
while ls -A "$work" | grep -q '^\.kept\.zst\.iorecord-' && [ $i -lt 250 ]; do
    sleep 0.02; i=$((i + 1))
done
[ -z "$(ls -A "$work" | grep '^\.kept\.zst\.iorecord-')" ] || bad "killed iorecord: the spool was never put in place"
"$IOANALYZE" info "$work/kept.zst" > "$work/info" 2>&1 || bad "killed iorecord: the trace does not read: $(cat "$work/info")"
grep -q '^  pid .*/head .*exit status 0' "$work/info" || bad "killed iorecord: head is not in the trace: $(cat "$work/info")"

# --- the library alone: an existing file that is not a trace is left alone
printf 'my notes\n' > "$work/notes.txt"
cp "$work/notes.txt" "$work/notes.orig"
preload "$work/notes.txt" sh -c "cat '$work/target'; cat '$work/target'" > "$work/out" 2> "$work/err"; rc=$?
check "not a trace: exit 0" 0 $rc
check "not a trace: the program's output" "$(cat "$work/target" "$work/target")" "$(cat "$work/out")"
check "not a trace: one warning for every process" 1 "$(wc -l < "$work/err")"
grep -qx "iorecord: '$work/notes.txt' is not a trace: not appending to it" "$work/err" \
    || bad "not a trace message: $(cat "$work/err")"
cmp -s "$work/notes.txt" "$work/notes.orig" || bad "not a trace: the file was changed"

# --- the library alone: a new trace is 0600, a second run appends to it
(umask 022 && preload "$work/app.zst" cat "$work/target" > /dev/null); rc=$?
check "preload: exit 0" 0 $rc
check "preload: mode under umask 022" 600 "$(stat -c %a "$work/app.zst")"
preload "$work/app.zst" head -c 4 "$work/target" > /dev/null 2> "$work/err"
check "append: stderr empty" "" "$(cat "$work/err")"
if "$IOANALYZE" info "$work/app.zst" > "$work/info" 2>&1; then
    grep -q '^  pid .*/cat ' "$work/info" || bad "append: the first run is gone"
    grep -q '^  pid .*/head ' "$work/info" || bad "append: the second run is missing"
    grep -q '^damage: none' "$work/info" || bad "append: $(grep '^damage' "$work/info")"
else
    bad "append: unreadable: $(cat "$work/info")"
fi

# --- the library alone: a symbolic link is not followed
preload "$work/link.zst" cat "$work/target" > /dev/null 2> "$work/err"; rc=$?
check "preload symlink: exit 0" 0 $rc
check "preload symlink: one line" 1 "$(wc -l < "$work/err")"
grep -qx "iorecord: '$work/link.zst' is a symbolic link: not writing the trace through it" "$work/err" \
    || bad "preload symlink message: $(cat "$work/err")"
cmp -s "$work/target" "$work/target.orig" || bad "preload symlink: the target was changed"
preload "$work/dangling.zst" true 2> /dev/null
[ ! -e "$work/nowhere" ] || bad "preload dangling symlink: its target was created"

[ $fail = 0 ] && ok "output file"
exit $fail
