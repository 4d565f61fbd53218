#!/bin/sh
# A trace goes only where its owner can read it: as root, in a sticky
# world-writable directory, `iorecord -o` refuses (exit 2, one line naming
# the path and why, the command not run) a FIFO of uid 65534 (a reader
# there would get root's command lines) and a regular file of uid 65534;
# it writes root's own file there, a new file there, /dev/null; /dev/full
# gets the one-line ENOSPC error and the command's own status, never a
# silent success. A FIFO of root's own is written (its reader gets a trace
# that reads).
# Needs root (to make files of another user).
set -u
. "$(dirname "$0")/lib.sh"
need_built "$IORECORD" "$IOANALYZE" "$LIBIORECORD"
[ "$(id -u)" = 0 ] || skip "needs root to make files of another user"
have setpriv || skip "setpriv (util-linux) is not installed"
work_dir output_owner
cd "$work" || exit 1
chmod 755 "$work"
mkdir -m 1777 pub
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
rec() {  # OUTPUT: a recorded command that leaves a mark when it runs
    (asan_preload "$LIBIORECORD"; exec "$IORECORD" -o "$1" -- sh -c 'echo SECRET > ran; exit 3')
}

# refused: rec OUTPUT must exit 2 with the one line, and not run the command
refused() {  # WHAT OUTPUT MESSAGE
    rm -f ran
    rec "$2" > out.txt 2> err.txt
    st=$?
    [ $st -eq 2 ] || not_ok "$1: exit $st, not 2"
    [ "$(cat err.txt)" = "$3" ] || not_ok "$1: stderr: $(cat err.txt)"
    [ -e ran ] && not_ok "$1: the command ran"
}
nobody mkfifo -m 622 pub/fifo.zst
refused "nobody's FIFO" pub/fifo.zst \
    "iorecord: 'pub/fifo.zst' is a FIFO of another user (uid 65534): not writing the trace there"
nobody sh -c 'echo theirs > pub/file.zst'
refused "nobody's file" pub/file.zst \
    "iorecord: 'pub/file.zst' belongs to another user (uid 65534) in a sticky world-writable directory: not writing the trace there"
[ "$(cat pub/file.zst)" = theirs ] || not_ok "nobody's file: changed"

# allowed: the command runs (status 3 kept), no message
allowed() {  # WHAT OUTPUT
    rm -f ran
    rec "$2" > out.txt 2> err.txt
    st=$?
    [ $st -eq 3 ] || not_ok "$1: exit $st, not the command's 3"
    [ -s err.txt ] && not_ok "$1: stderr: $(cat err.txt)"
    [ -e ran ] || not_ok "$1: the command did not run"
}
echo > pub/mine.zst
allowed "root's own file" pub/mine.zst
"$IOANALYZE" info pub/mine.zst 2>&1 | grep -q "^processes: 1" || not_ok "root's own file: no trace"
allowed "a new file" pub/new.zst
[ "$(stat -c '%u %a' pub/new.zst)" = "0 600" ] || not_ok "a new file: $(stat -c '%u %a' pub/new.zst)"
"$IOANALYZE" info pub/new.zst 2>&1 | grep -q "^processes: 1" || not_ok "a new file: no trace"
allowed "/dev/null" /dev/null

# /dev/full: the command runs and keeps its status; the trace's loss is said
rm -f ran
rec /dev/full > out.txt 2> err.txt
st=$?
[ $st -eq 3 ] || not_ok "/dev/full: exit $st, not the command's 3"
[ -e ran ] || not_ok "/dev/full: the command did not run"
[ "$(wc -l < err.txt)" -eq 1 ] &&
    grep -q "^iorecord: cannot write trace '/dev/full': No space left on device" err.txt ||
    not_ok "/dev/full: stderr: $(cat err.txt)"

# root's own FIFO: written, its reader gets the trace
mkfifo -m 600 pub/mine.fifo
cat pub/mine.fifo > fromfifo.zst &
reader=$!
allowed "root's own FIFO" pub/mine.fifo
wait $reader
"$IOANALYZE" info fromfifo.zst 2>&1 | grep -q "^processes: 1" ||
    not_ok "root's own FIFO: the reader got no trace"
exit $fail
