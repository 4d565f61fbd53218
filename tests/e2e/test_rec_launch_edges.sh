#!/bin/sh
# The launcher's edge cases: each ends with what the user asked for, or
# with one line saying why not; never a hang, a lost trace or a line on the
# program's stderr.
#   fifo     -o FIFO that nobody reads: exit 2 and one line within the 5 s
#            wait (not a hang); the library alone with IORECORD_OUTPUT
#            naming it: the program runs (exit 0, its output), one line;
#            with a reader, the trace comes through it
#   nested   iorecord -o outer iorecord -o inner cat: the inner trace holds
#            cat, the outer one the inner iorecord; the inner command holds
#            one memfd (the inner run's), not two; the library alone with a
#            relative IORECORD_OUTPUT is not taken for another run
#   concurrent  a second run on the output of a running one: exit 2 and one
#            line; the first ends with status 0 and its whole trace
#   asan     a program built with -fsanitize=address, run by iorecord and
#            by a recorded shell: same output and exit status as natively
#            (it exited 1: "ASan runtime does not come first"), its process
#            in the trace, and the shell itself without the runtime
#   chroot   chroot into a root without the library: stdout and stderr as
#            natively (no ld.so line), the exec listed unrecorded (no_library)
#   ulimit   ulimit -Sn 64: rec_emfile opens as many fds, up to the same
#            last fd, as natively; with the hard limit 64 too, the trace
#            says so (lost: fds_in_range, 2)
# asan needs gcc and libasan (skipped otherwise); chroot needs root.
set -u
# e2e: slow (about 8 s here: waits on the launcher's edge cases)
. "$(dirname "$0")/lib.sh"
EMFILE=$BUILD/bin/progs/rec_emfile
need_built "$IORECORD" "$IOANALYZE" "$EMFILE"
work_dir launch-edges
cd "$work" || exit 1

rec() {  # TRACE CMD...
    _t=$1; shift
    (asan_preload "$LIBIORECORD"; exec "$IORECORD" -o "$_t" -- "$@")
}
pids_of() {  # TRACE: the process lines of `ioanalyze info`
    "$IOANALYZE" info "$1" 2>&1 | grep ' ppid '
}

# --- fifo
mkfifo nobody.fifo
timeout 30 "$IORECORD" -o nobody.fifo -- true > fifo.out 2> fifo.err
st=$?
[ $st -eq 2 ] || not_ok "fifo: no reader: exit $st, not 2 (124: it hung)"
[ "$(wc -l < fifo.err)" -eq 1 ] && grep -q "nobody read the FIFO" fifo.err ||
    not_ok "fifo: message: $(cat fifo.err)"
(asan_preload "$LIBIORECORD"; LD_PRELOAD=${LD_PRELOAD:+$LD_PRELOAD:}$LIBIORECORD \
    IORECORD_OUTPUT=nobody.fifo exec timeout 30 cat /etc/hostname) > fifo.lib.out 2> fifo.lib.err
st=$?
[ $st -eq 0 ] || not_ok "fifo: the library alone: exit $st, not 0 (124: it hung)"
cmp -s /etc/hostname fifo.lib.out || not_ok "fifo: the library alone: cat's output differs"
[ "$(wc -l < fifo.lib.err)" -eq 1 ] && grep -q "nobody reads" fifo.lib.err ||
    not_ok "fifo: the library alone: message: $(cat fifo.lib.err)"
mkfifo read.fifo
cat read.fifo > through.zst &
reader=$!
rec read.fifo cat /etc/hostname > /dev/null 2>&1 || not_ok "fifo: with a reader: failed"
wait $reader
pids_of through.zst | grep -q "/cat \[cat /etc/hostname\]" ||
    not_ok "fifo: the trace read through the FIFO lacks cat"

# --- nested
rec outer.zst "$IORECORD" -o inner.zst -- sh -c \
    'ls -l /proc/self/fd/ | grep -c memfd' > nested.out 2> nested.err
[ $? -eq 0 ] || not_ok "nested: failed: $(cat nested.err)"
[ "$(cat nested.out)" = 1 ] || not_ok "nested: the inner command holds $(cat nested.out) memfds"
pids_of inner.zst | grep -q "/ls \[ls -l /proc/self/fd/\]" || not_ok "nested: the inner trace lacks ls"
pids_of outer.zst | grep -q "iorecord \[.*iorecord -o inner.zst" ||
    not_ok "nested: the outer trace lacks the inner iorecord"

# not another run: the library alone with a relative IORECORD_OUTPUT; a
# child that changed directory still writes the one trace
mkdir sub
(asan_preload "$LIBIORECORD"; LD_PRELOAD=${LD_PRELOAD:+$LD_PRELOAD:}$LIBIORECORD \
    IORECORD_OUTPUT=rel.zst exec sh -c 'cd sub && cat /etc/hostname') > /dev/null
[ -e sub/rel.zst ] && not_ok "nested: a relative IORECORD_OUTPUT was taken for another run's"
pids_of rel.zst | grep -q "/cat \[cat /etc/hostname\]" || not_ok "nested: cat is not in rel.zst"

# --- concurrent
rec same.zst sh -c 'sleep 2; echo one' > first.out 2> first.err &
first=$!
i=0
while [ $i -lt 100 ] && ! ls -a | grep -q '^\.same\.zst\.iorecord-'; do
    sleep 0.05; i=$((i + 1))
done
rec same.zst echo two > second.out 2> second.err
st=$?
[ $st -eq 2 ] || not_ok "concurrent: the second run exits $st, not 2"
[ "$(wc -l < second.err)" -eq 1 ] && grep -q "another iorecord run" second.err ||
    not_ok "concurrent: message: $(cat second.err)"
[ -s second.out ] && not_ok "concurrent: the second command ran"
wait $first
st=$?
[ $st -eq 0 ] && [ "$(cat first.out)" = one ] || not_ok "concurrent: the first run: $st $(cat first.out)"
pids_of same.zst | grep -q "sleep 2; echo one" || not_ok "concurrent: the first trace is not in place"

# --- asan
printf '%s\n' '#include <stdio.h>' '#include <stdlib.h>' \
    'int main(void) { char b[64]; FILE *f = fopen("/etc/hostname", "r");' \
    '  char *p = malloc(16); if (!f || !fgets(b, sizeof b, f)) return 3;' \
    '  fputs(b, stdout); fclose(f); free(p); return 0; }' > asan.c
if have gcc && gcc -fsanitize=address -o asanprog asan.c 2>/dev/null && ./asanprog > asan.native 2>&1; then
    rec asan.zst ./asanprog > asan.rec 2>&1
    st=$?
    [ $st -eq 0 ] || not_ok "asan: exit $st: $(head -c 300 asan.rec)"
    cmp -s asan.native asan.rec || not_ok "asan: output differs: $(head -c 300 asan.rec)"
    pids_of asan.zst | grep -q "asanprog .*exit status 0" || not_ok "asan: the process is not in the trace"
    rec asansh.zst sh -c './asanprog; env | grep -c "^IORECORD_ASAN="' > asansh.rec 2>&1
    printf '%s\n0\n' "$(cat asan.native)" > asansh.native
    cmp -s asansh.native asansh.rec ||
        not_ok "asan: run by a recorded shell: $(head -c 300 asansh.rec)"
    pids_of asansh.zst | grep -q "asanprog .*exit status 0" ||
        not_ok "asan: run by a recorded shell: not in the trace"
else
    echo "note: gcc with libasan not usable: asan case not run"
fi

# --- chroot
if [ -n "$(asan_runtime "$LIBIORECORD")" ]; then
    # the ASan runtime it preloads is not in the chroot either, and there it
    # speaks on stderr (no /proc): nothing to compare with native
    echo "note: an ASan build of the library: chroot case not run"
elif [ "$(id -u)" = 0 ] && have chroot; then
    mkdir croot
    cp /bin/cat croot/cat
    for l in $(ldd /bin/cat | grep -o '/[^ ]*'); do cp --parents "$l" croot/; done
    echo hello > croot/hello
    chroot croot /cat /hello > chroot.native.out 2> chroot.native.err
    rec chroot.zst chroot croot /cat /hello > chroot.out 2> chroot.err
    [ $? -eq 0 ] || not_ok "chroot: failed"
    cmp -s chroot.native.out chroot.out || not_ok "chroot: stdout differs"
    cmp -s chroot.native.err chroot.err || not_ok "chroot: stderr: $(cat chroot.err)"
    "$IOANALYZE" info chroot.zst 2>&1 | grep -q "exec'd /cat unrecorded (no_library)" ||
        not_ok "chroot: the exec is not listed unrecorded (no_library)"
else
    echo "note: not root: chroot case not run"
fi

# --- ulimit
(ulimit -Sn 64 && exec "$EMFILE") > ulimit.native
(ulimit -Sn 64 && rec ulimit.zst "$EMFILE") > ulimit.rec
cmp -s ulimit.native ulimit.rec ||
    not_ok "ulimit: native '$(cat ulimit.native)', recorded '$(cat ulimit.rec)'"
(ulimit -n 64 && rec hard.zst "$EMFILE") > /dev/null
"$IOANALYZE" info hard.zst 2>&1 | grep -q "lost: fds_in_range, 2" ||
    not_ok "ulimit: with the hard limit at 64 the trace does not say fds_in_range"
exit $fail
