#!/bin/sh
# The program gets every fd it gets natively under a soft fd limit, or the
# trace says why not. rec_emfile opens /dev/null until EMFILE:
#   1024:4096   the usual default: the recorder's fds sit above the soft
#               limit from the start; the same opens and the same last fd
#   64:4096     the same under a low soft limit
#   2048:4096   a soft limit above 1024: the recorder's fds sit below it
#               until the program meets it, then move above it and the
#               open is made again: the same number of opens
#   1024:1024   no room above the soft limit: k opens fewer, and the trace
#               says so (lost: fds_in_range, k)
# and the library preloaded alone (its trace fd) at 1024:4096 and 2048:4096.
set -u
. "$(dirname "$0")/lib.sh"
PROG=$BUILD/bin/progs/rec_emfile
need_built "$IORECORD" "$IOANALYZE" "$PROG"
have prlimit || skip "prlimit (util-linux) is not installed"
REC_ENV=$(asan_env "$LIBIORECORD")
[ -z "$REC_ENV" ] || export $REC_ENV
work_dir fdlimit
cd "$work" || exit 1

opens() { sed -n 's/^opens \([0-9]*\) .*/\1/p' "$1"; }

for lim in 1024:4096 64:4096 2048:4096 1024:1024; do
    prlimit --nofile=$lim "$PROG" > native.$lim || { not_ok "$lim: plain run failed"; continue; }
    prlimit --nofile=$lim "$IORECORD" -o t.$lim.zst -- "$PROG" > rec.$lim ||
        { not_ok "$lim: recorded run failed"; continue; }
    n=$(opens native.$lim); r=$(opens rec.$lim)
    lost=$("$IOANALYZE" info t.$lim.zst 2>&1 | sed -n 's/.*lost: fds_in_range, \([0-9]*\).*/\1/p')
    echo "$lim: $n opens plain, $r recorded, lost fds_in_range: ${lost:-none}"
    grep -q "then Too many open files" rec.$lim || not_ok "$lim: recorded run did not end at EMFILE: $(cat rec.$lim)"
    case $lim in
    1024:1024)
        [ -n "$lost" ] && [ $((r + lost)) = "$n" ] ||
            not_ok "$lim: $r recorded + ${lost:-no} lost record != $n plain"
        ;;
    2048:4096)
        [ "$r" = "$n" ] || not_ok "$lim: $r opens recorded, $n plain"
        [ -z "$lost" ] || not_ok "$lim: a lost record though every open succeeded"
        ;;
    *)
        cmp -s native.$lim rec.$lim || not_ok "$lim: plain '$(cat native.$lim)', recorded '$(cat rec.$lim)'"
        [ -z "$lost" ] || not_ok "$lim: a lost record though every open succeeded"
        ;;
    esac
done
# The library alone (its own trace fd, no launcher's): the same opens.
for lim in 1024:4096 2048:4096; do
    (LD_PRELOAD=${LD_PRELOAD:+$LD_PRELOAD:}$LIBIORECORD \
        IORECORD_OUTPUT=lib.$lim.zst exec prlimit --nofile=$lim "$PROG") > lib.$lim
    [ "$(opens lib.$lim)" = "$(opens native.$lim)" ] ||
        not_ok "$lim, the library alone: '$(cat lib.$lim)', plain '$(cat native.$lim)'"
done
[ $fail = 0 ] && echo "ok   every fd under a soft limit, or a lost record saying why"
exit $fail
