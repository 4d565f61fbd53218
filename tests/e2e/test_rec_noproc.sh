#!/bin/sh
# iorecord in a sandbox without /proc (bwrap --ro-bind / / --dev /dev, a
# tmpfs on /proc): it finds its library from the path it was run by
# (AT_EXECFN), found on PATH or given, and records: cat's output and exit
# status as outside, its open of /etc/hostname in the trace. A copy of
# iorecord with no library near it says, in one line and exit 2, to set
# IORECORD_LIB; with IORECORD_LIB it records.
set -u
. "$(dirname "$0")/lib.sh"
need_built "$IORECORD" "$IOANALYZE" "$LIBIORECORD"
have bwrap || skip "bubblewrap (bwrap) is not installed"
work_dir noproc
cd "$work" || exit 1
chmod 755 "$work"
[ -n "$(asan_runtime "$LIBIORECORD")" ] && skip "a sanitized build needs /proc for its runtime"
box() {  # COMMAND...: in the sandbox, without /proc, $work writable
    bwrap --ro-bind / / --dev /dev --tmpfs /proc --bind "$work" "$work" --chdir "$work" "$@"
}
box true 2>/dev/null || skip "bwrap cannot make a sandbox here"
box sh -c 'test ! -e /proc/self/exe' || die "the sandbox has /proc"
cat /etc/hostname > native.out

check_trace() {  # WHAT TRACE
    "$IOANALYZE" dump --format jsonl "$2" > "$1.jsonl" 2>/dev/null ||
        { not_ok "$1: the trace does not read"; return; }
    grep '"op":"open"' "$1.jsonl" | grep -q '"path":"/etc/hostname"' ||
        not_ok "$1: cat's open of /etc/hostname is not in the trace"
}

# by its path
box "$IORECORD" -o "$work/a.zst" -- cat /etc/hostname > a.out 2> a.err
st=$?
[ $st -eq 0 ] || not_ok "by path: exit $st: $(cat a.err)"
cmp -s native.out a.out || not_ok "by path: output differs"
check_trace "by path" a.zst

# found on PATH
box env PATH="$BUILD/bin:$PATH" iorecord -o b.zst -- cat /etc/hostname > b.out 2> b.err
st=$?
[ $st -eq 0 ] || not_ok "on PATH: exit $st: $(cat b.err)"
cmp -s native.out b.out || not_ok "on PATH: output differs"
check_trace "on PATH" b.zst

# a copy far from its library: told how to point it at it
cp "$IORECORD" ./iorecord-copy
box ./iorecord-copy -o c.zst -- cat /etc/hostname > c.out 2> c.err
st=$?
[ $st -eq 2 ] || not_ok "copy: exit $st, not 2"
[ "$(wc -l < c.err)" -eq 1 ] && grep -q "set IORECORD_LIB" c.err ||
    not_ok "copy: stderr: $(cat c.err)"
[ -s c.out ] && not_ok "copy: the command ran"
box env IORECORD_LIB="$LIBIORECORD" ./iorecord-copy -o d.zst -- cat /etc/hostname > d.out 2> d.err
st=$?
[ $st -eq 0 ] || not_ok "IORECORD_LIB: exit $st: $(cat d.err)"
cmp -s native.out d.out || not_ok "IORECORD_LIB: output differs"
check_trace "IORECORD_LIB" d.zst
exit $fail
