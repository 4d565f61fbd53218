#!/bin/sh
# The output's owner rule holds without the launcher too: as root, with
# plain `LD_PRELOAD=libiorecord.so IORECORD_OUTPUT=...`, in a sticky
# world-writable directory, a FIFO of uid 65534 with its reader waiting
# gets nothing (before, root's whole trace flowed to that reader), a
# regular file of uid 65534 is left as it was, a symbolic link is not
# followed. Each time the program (a shell running cat, ls and wc) prints
# what it prints natively and exits with its own status, and stderr holds
# its own line and one line of ours naming the output and why. Root's own
# new file there is recorded as before (4 processes: sh, cat, ls, wc).
# A setuid-root program run by uid 65534 with the library preloaded (from
# the loader's trusted directory, setuid, as secure-exec requires) creates
# no file in a directory only root may write, writes nothing into the
# once-per-run flag file IORECORD_ONCE names there, and says so once.
# Needs root (to make files of another user).
set -u
. "$(dirname "$0")/lib.sh"
need_built "$IOANALYZE" "$LIBIORECORD"
[ "$(id -u)" = 0 ] || skip "needs root to make files of another user"
have setpriv || skip "setpriv (util-linux) is not installed"
[ -z "$(asan_runtime "$LIBIORECORD")" ] ||
    skip "a sanitized library loads only after its runtime, which secure-exec refuses"
work_dir preload_owner
trusted="" reader=""
cleanup() {
    [ -n "$reader" ] && kill $reader 2>/dev/null
    [ -n "$trusted" ] && rm -f "$trusted"
    rm -rf "$work"
}
cd "$work" || exit 1
chmod 755 "$work"
mkdir -m 1777 pub
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
prog='cat /etc/hostname; ls / | wc -l; echo to-stderr >&2; exit 3'

sh -c "$prog" > native.out 2> native.err
native_st=$?
[ $native_st -eq 3 ] || die "native run: exit $native_st"

# recorded OUTPUT: prog under plain LD_PRELOAD, writing to OUTPUT
recorded() {
    LD_PRELOAD=$LIBIORECORD IORECORD_OUTPUT=$1 sh -c "$prog" > rec.out 2> rec.err
}

# refused WHAT OUTPUT WHY: native output and status, one line of ours
refused() {
    recorded "$2"
    st=$?
    [ $st -eq $native_st ] || not_ok "$1: exit $st, not $native_st"
    cmp -s rec.out native.out || not_ok "$1: stdout differs from native: $(cat rec.out)"
    { echo "iorecord: '$work/$2' $3"; cat native.err; } > want.err
    cmp -s rec.err want.err || not_ok "$1: stderr: $(cat rec.err)"
}

# nobody's FIFO, its reader waiting: refused before it is opened. The
# reader opens it read-write, so that it is there before the program starts
# and never sees an end; after the program its owner writes END, and the
# reader has had everything once END is out (a FIFO keeps its order).
nobody mkfifo -m 622 pub/fifo.zst
nobody sh -c 'echo $$ > pub/reader.pid; exec cat <> pub/fifo.zst > pub/stolen' 2>/dev/null &
tries=0
until [ -s pub/reader.pid ] && reader=$(cat pub/reader.pid) &&
      [ "$(readlink /proc/$reader/fd/0)" = "$work/pub/fifo.zst" ]; do
    tries=$((tries + 1))
    [ $tries -lt 600 ] || die "nobody's FIFO: its reader did not start"
    sleep 0.1
done
refused "nobody's FIFO" pub/fifo.zst \
    "is a FIFO of another user (uid 65534): not writing the trace there"
nobody sh -c 'echo END > pub/fifo.zst'
until tail -c 4 pub/stolen | grep -q END; do
    tries=$((tries + 1))
    [ $tries -lt 600 ] || break
    sleep 0.1
done
kill $reader 2>/dev/null
reader=""
[ "$(cat pub/stolen)" = END ] ||
    not_ok "nobody's FIFO: its reader got $(($(wc -c < pub/stolen) - 4)) bytes of the trace"

# nobody's regular file: refused, unchanged
nobody sh -c 'echo theirs > pub/file.zst'
refused "nobody's file" pub/file.zst \
    "belongs to another user (uid 65534) in a sticky world-writable directory: not writing the trace there"
[ "$(cat pub/file.zst)" = theirs ] || not_ok "nobody's file: changed"

# a link (nobody's, to root's file elsewhere): not followed
echo roots > target
nobody ln -s "$work/target" pub/link.zst
refused "a link" pub/link.zst "is a symbolic link: not writing the trace through it"
[ "$(cat target)" = roots ] || not_ok "a link: its target changed"

# root's own new file: recorded, the program's output unchanged
recorded pub/new.zst
st=$?
[ $st -eq $native_st ] || not_ok "a new file: exit $st, not $native_st"
cmp -s rec.out native.out || not_ok "a new file: stdout differs from native"
cmp -s rec.err native.err || not_ok "a new file: stderr: $(cat rec.err)"
[ "$(stat -c '%u %a' pub/new.zst)" = "0 600" ] || not_ok "a new file: $(stat -c '%u %a' pub/new.zst)"
"$IOANALYZE" info pub/new.zst 2>&1 | grep -q "^processes: 4" ||
    not_ok "a new file: $("$IOANALYZE" info pub/new.zst 2>&1 | grep processes)"

# secure-exec: a setuid-root program run by nobody creates nothing
libdir=$(ldd /bin/sh | awk '/libc\.so/ { print $3 }')
libdir=${libdir%/*}
mkdir -m 700 rootonly
cp /bin/true suidtrue && chmod 4755 suidtrue
if [ -d "$libdir" ] && cp "$LIBIORECORD" "$libdir/libiorecord-e2e-$$.so"; then
    trusted=$libdir/libiorecord-e2e-$$.so
    chmod 4755 "$trusted"
    echo 0 > rootonly/once
    nobody env LD_PRELOAD="${trusted##*/}" IORECORD_OUTPUT="$work/rootonly/t.zst" \
        IORECORD_ONCE="$work/rootonly/once" ./suidtrue > out.txt 2> err.txt
    st=$?
    [ $st -eq 0 ] || not_ok "setuid program: exit $st"
    [ -s out.txt ] && not_ok "setuid program: stdout: $(cat out.txt)"
    [ -e rootonly/t.zst ] && not_ok "setuid program: created $(ls -l rootonly/t.zst)"
    [ "$(cat rootonly/once)" = 0 ] || not_ok "setuid program: wrote the once-flag file it was named"
    [ "$(cat err.txt)" = "iorecord: '$work/rootonly/t.zst' not opened by a setuid, setgid or file-capability program (it could write where its caller could not): the program runs unrecorded" ] ||
        not_ok "setuid program: stderr: $(cat err.txt)"
else
    skip_part "setuid program" "cannot put the library in the loader's trusted directory '$libdir'"
fi
exit $fail
