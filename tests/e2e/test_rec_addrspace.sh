#!/bin/sh
# The recorder fits in the program's address space. A program that runs
# under RLIMIT_AS natively (prlimit --as=400000000, 200 MiB of malloc) runs
# recorded with the same output and exit status, and its trace holds every
# write of it and of its child; so with the limit around iorecord itself.
# Under limits too small for the recorder (4 to 32 MB around iorecord) a
# run never ends with exit 0 and an empty trace: either the trace reads, or
# iorecord says why in one line and exits non-zero. A recorded `sleep`
# takes a few MB more address space than a native one, not 256 MiB.
# e2e: slow (about 5 s CPU here: recordings under address-space limits)
set -u
. "$(dirname "$0")/lib.sh"
PROG=$BUILD/bin/progs/rec_aslimit
need_built "$IORECORD" "$IOANALYZE" "$PROG"
have prlimit || skip "prlimit is not installed"
case $(ldd "$LIBIORECORD" 2>/dev/null) in *libasan*) skip "ASan reserves terabytes of address space: no RLIMIT_AS here" ;; esac
work_dir addrspace
cd "$work" || exit 1

# counts TRACE NAME: the writes of the parent and the child must be exact
counts() {
    "$IOANALYZE" dump --format jsonl "$1" >"$work/$2.jsonl" || { not_ok "$2: the trace does not read"; return; }
    python3 - "$work/$2.jsonl" "$2" <<'PY' || not_ok "$2: counts"
import json, sys
evs = [json.loads(l) for l in open(sys.argv[1])]
procs = [e["pid"] for e in evs if e["ev"] == "process" and e["exe"].endswith("/rec_aslimit")]
assert len(procs) == 2, "%s: rec_aslimit processes %s" % (sys.argv[2], procs)
w = [sum(1 for e in evs if e["ev"] == "call" and e["op"] == "write" and e["pid"] == p) for p in procs]
assert sorted(w) == [100, 100], "%s: writes per process %s, want 100 and 100" % (sys.argv[2], w)
PY
}

native=$(prlimit --as=400000000 "$PROG" 200 100 "$work/n.out"); nrc=$?
[ "$nrc" = 0 ] && [ "$native" = "ok 100 child 0" ] || die "native run: exit $nrc, '$native'"

rec=$("$IORECORD" -o "$work/in.zst" -- prlimit --as=400000000 "$PROG" 200 100 "$work/in.out"); rc=$?
[ "$rc" = 0 ] && [ "$rec" = "$native" ] || not_ok "limit inside: exit $rc, '$rec' (natively 0, '$native')"
counts "$work/in.zst" inside

rec=$(prlimit --as=400000000 "$IORECORD" -o "$work/out.zst" -- "$PROG" 200 100 "$work/out.out"); rc=$?
[ "$rc" = 0 ] && [ "$rec" = "$native" ] || not_ok "limit around iorecord: exit $rc, '$rec' (natively 0, '$native')"
counts "$work/out.zst" around

# Too little for the recorder: a trace that reads, or one line and non-zero.
for mb in 4 6 8 12 16 24 32; do
    rm -f "$work/t.zst"
    prlimit --as=$((mb * 1000000)) "$IORECORD" -o "$work/t.zst" -- "$PROG" 0 10 "$work/t.out" \
        >"$work/t.stdout" 2>"$work/t.err"
    rc=$?
    if [ -s "$work/t.zst" ]; then
        "$IOANALYZE" info "$work/t.zst" >/dev/null 2>&1 || not_ok "$mb MB: the trace does not read"
    elif [ "$rc" = 0 ]; then
        not_ok "$mb MB: exit 0 with an empty trace"
    else
        # iorecord's line, or at the smallest limits the loader's (iorecord cannot load libc)
        lines=$(wc -l <"$work/t.err")
        [ "$lines" = 1 ] || not_ok "$mb MB: exit $rc, empty trace, $lines lines on stderr: $(cat "$work/t.err")"
    fi
done

# A recorded sleep's address space beside a native one's (VmSize, kB).
vmsize() {
    awk '/^VmSize:/ { print $2 }' "/proc/$1/status"
}
sleep 5 & n=$!
"$IORECORD" -o "$work/s.zst" -- sleep 5 & r=$!
tries=0
while :; do
    child=$(pgrep -P "$r" -x sleep | head -n 1)
    [ -n "$child" ] && grep -q libiorecord "/proc/$child/maps" 2>/dev/null && break
    tries=$((tries + 1))
    [ "$tries" -lt 200 ] || break
    sleep 0.02
done
if [ -n "$child" ]; then
    nv=$(vmsize "$n"); rv=$(vmsize "$child")
    echo "VmSize of sleep: native $nv kB, recorded $rv kB"
    [ $((rv - nv)) -lt 32768 ] || not_ok "a recorded sleep takes $((rv - nv)) kB more address space than a native one"
else
    not_ok "the recorded sleep was not found"
fi
kill "$n" "$r" ${child:+"$child"} 2>/dev/null
wait 2>/dev/null
exit $fail
