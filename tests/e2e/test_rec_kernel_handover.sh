#!/bin/sh
# Nothing after a privilege drop goes unseen: as root, `iorecord setpriv
# --reuid=65534 ... sh -c 'cat /etc/hostname'` 10 runs in 10: the preload
# lets setpriv go before its credential change and the kernel path records
# the rest (the launcher waits for the asker's request, so a handover is
# never taken for a plain follow): sh's and cat's processes are in the
# trace with cat's open of /etc/hostname and the copy or read of it, no
# process is said to be followed by the kernel path with 0 calls, and
# ioanalyze reports no `unobserved` issue; the output is the native one.
# A helper with file capabilities run after the drop (ping, cap_net_raw,
# secure-exec: no preload) is recorded by the kernel path: its process and
# calls are in the trace, and nothing is unobserved.
# Needs root, setpriv and the kernel path; ping (iputils-ping with its file
# capability) for its part.
set -u
. "$(dirname "$0")/lib.sh"
need_built "$IORECORD" "$IOANALYZE" "$LIBIORECORD"
REC_ENV=$(asan_env "$LIBIORECORD")
[ -z "$REC_ENV" ] || export $REC_ENV
[ "$(id -u)" = 0 ] || skip "needs root to drop privileges"
have setpriv || skip "setpriv (util-linux) is not installed"
work_dir kernel-handover
cd "$work" || exit 1
chmod 755 "$work"
"$IORECORD" --capture kernel -o probe.zst true 2> probe.err ||
    skip "kernel capture unavailable: $(sed 's/^iorecord: //' probe.err | head -n 1)"
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

# took_hostname JSONL: cat opened /etc/hostname and read or copied from that fd
took_hostname() {
    fd=$(grep '"process":"cat"' "$1" | grep '"op":"open"' | grep '"path":"/etc/hostname"' |
         sed -n 's/.*"ret":\([0-9]*\),.*/\1/p' | head -n 1)
    [ -n "$fd" ] || return 1
    grep '"process":"cat"' "$1" | grep -q -e "\"op\":\"read\",.*\"fd\":$fd," \
        -e "\"op\":\"\(copy_file_range\|sendfile\|splice\)\".*\"in_fd\":$fd,"
}

nobody sh -c 'cat /etc/hostname' > native.out
good=0
for i in 1 2 3 4 5 6 7 8 9 10; do
    "$IORECORD" -o d$i.zst -- setpriv --reuid=65534 --regid=65534 --clear-groups \
        sh -c 'cat /etc/hostname' > d$i.out 2> d$i.err
    rc=$?
    [ $rc -eq 0 ] || { not_ok "run $i: exit $rc: $(cat d$i.err)"; continue; }
    cmp -s native.out d$i.out || { not_ok "run $i: output differs"; continue; }
    "$IOANALYZE" dump --format jsonl d$i.zst > d$i.jsonl 2>/dev/null
    "$IOANALYZE" info d$i.zst > d$i.info 2>&1
    "$IOANALYZE" --format json d$i.zst > d$i.json 2>/dev/null
    if ! took_hostname d$i.jsonl; then
        not_ok "run $i: cat's open and read of /etc/hostname are not in the trace: $(grep -A3 '^processes' d$i.info | tr '\n' ' ')"
    elif grep -q "the kernel saw 0 file syscalls\|: 0 file calls recorded by the kernel" d$i.info; then
        not_ok "run $i: a process followed by the kernel path with no calls: $(grep -A3 coverage d$i.info | tr '\n' ' ')"
    elif grep -q '"rule": "unobserved"' d$i.json; then
        not_ok "run $i: an unobserved issue"
    else
        good=$((good + 1))
    fi
done
[ $good -eq 10 ] || not_ok "the calls after the drop recorded in $good runs of 10"

if have ping && have getcap && getcap "$(command -v ping)" | grep -q cap_net_raw; then
    "$IORECORD" -o p.zst -- setpriv --reuid=65534 --regid=65534 --clear-groups \
        sh -c 'ping -c1 -W1 127.0.0.1 > /dev/null 2>&1; echo $?' > p.out 2> p.err
    nobody sh -c 'ping -c1 -W1 127.0.0.1 > /dev/null 2>&1; echo $?' > pn.out
    cmp -s p.out pn.out || not_ok "ping: output $(cat p.out), natively $(cat pn.out)"
    "$IOANALYZE" info p.zst > p.info 2>&1
    n=$(grep "/usr/bin/ping \[ping" p.info | sed -n 's/.*\] \([0-9]*\) calls.*/\1/p')
    [ "${n:-0}" -gt 0 ] || not_ok "ping: its process or calls are not in the trace: $(grep -A3 '^processes' p.info | tr '\n' ' ')"
    "$IOANALYZE" --format json p.zst 2>/dev/null | grep -q '"rule": "unobserved"' &&
        not_ok "ping: an unobserved issue though the kernel path recorded it"
else
    echo "SKIP ping: ping with cap_net_raw not found (iputils-ping, libcap2-bin)"
fi
exit $fail
