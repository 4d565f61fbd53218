#!/bin/sh
# An input cut at its head (a log rotated by size, a copy taken with
# tail -c) is read from its first whole line or chunk: for every cut in the
# first 300 bytes of a JSONL event file, an strace log and a native trace,
# the events that follow the cut are read, exactly, with one warning that
# names what was skipped, and none when the cut falls on a line or chunk
# boundary. A line of an unknown shape inside a valid strace log
# (newfstatat()=0) is skipped with one warning naming it, and every other
# line is kept.
# e2e: slow (about 80 s here: 900 cut files, each read by ioanalyze)
. "$(dirname "$0")/lib.sh"
PROG=$BUILD/bin/progs/an_hostile
need_built "$IORECORD" "$IOANALYZE" "$PROG"
# a sanitizer build's recorded runs put its runtime first
REC_ENV=$(asan_env "$LIBIORECORD")
have python3 || skip "python3 is needed"
work_dir damaged_cut
cd "$work" || exit 1

# a JSONL event file: a process, 30 one-byte writes, its exit
python3 - <<'PY'
import json
ev = [dict(ev="process", t=0, pid=7, ppid=1, exe="/bin/w", cmdline=["w"], start_unix_ns=0),
      dict(ev="call", t=10, pid=7, tid=7, op="open", dur=5, ret=3, path="/tmp/x", flags=0o101)]
for i in range(30):
    ev.append(dict(ev="call", t=100 + 10 * i, pid=7, tid=7, op="write", dur=2, ret=1, fd=3, size=1))
ev.append(dict(ev="exit", t=1000, pid=7, status=0))
open("w.jsonl", "w").write("".join(json.dumps(e) + "\n" for e in ev))
PY
# an strace -f -tt -T -y log of the same (pid 7: one digit, so that no cut
# inside a line leaves a line that reads whole)
{
    echo '7 11:00:00.000000 execve("/bin/w", ["w"], 0x7ffc /* 2 vars */) = 0 <0.000100>'
    echo '7 11:00:00.000200 openat(AT_FDCWD</tmp>, "x", O_WRONLY|O_CREAT, 0644) = 3</tmp/x> <0.000010>'
    i=0
    while [ $i -lt 30 ]; do
        printf '7 11:00:00.%06d write(3</tmp/x>, "x", 1) = 1 <0.000002>\n' $((1000 + 10 * i))
        i=$((i + 1))
    done
    echo '7 11:00:00.900000 exit_group(0)                = ?'
    echo '7 11:00:00.900100 +++ exited with 0 +++'
} >w.strace
# a native trace of several chunks (a process each), the first of 5 KB
env $REC_ENV "$IORECORD" -o w.zst -- sh -c "'$PROG' w1.dat; '$PROG' w2.dat" >/dev/null 2>&1 ||
    die "recording failed"

# Every cut: the events read and the warnings, against what follows the cut
# (for a native trace: the events of the file from its next chunk on, read
# as an undamaged trace).
python3 - "$IOANALYZE" <<'PY' || not_ok "cuts"
import re, subprocess, sys
IOA = sys.argv[1]
bad = []

def read(path):
    """(events, warnings) of ioanalyze on path (its JSONL dump: a line per
    event), or None when refused."""
    r = subprocess.run([IOA, "dump", "--format", "jsonl", path], capture_output=True)
    if r.returncode != 0:
        return None
    return r.stdout.count(b"\n"), [l for l in r.stderr.splitlines() if b"warning" in l]

for name in ("w.jsonl", "w.strace"):
    data = open(name, "rb").read()
    starts = [0] + [i + 1 for i, c in enumerate(data) if c == 10][:-1]
    whole = read(name)
    assert whole and not whole[1], (name, whole)
    for k in range(1, 301):
        open("cut", "wb").write(data[k:])
        got = read("cut")
        after = [s for s in starts if s >= k]          # lines whole after the cut
        frag = data[k:data.index(b"\n", k)]            # the piece of a line before them
        if name == "w.jsonl":
            want_events = len(after)
        else:
            # the process record (the first call makes it without the
            # execve), then per whole line: openat a cwd call (its -y
            # AT_FDCWD</tmp>) and the open, a write one, exit_group
            # ("= ?") none, "+++ exited" the exit record
            def weight(s):
                line = data[s:data.index(b"\n", s)]
                return 2 if b"openat" in line else 1 if b"write" in line or b"+++" in line else 0
            want_events = 1 + sum(weight(s) for s in after)
        want_warn = 1 if k not in starts and frag.strip() else 0
        if got is None:
            bad.append((name, k, "refused"))
        elif got[0] != want_events or len(got[1]) != want_warn:
            bad.append((name, k, got[0], want_events, got[1]))
        elif want_warn and b"line 1:" not in got[1][0]:
            bad.append((name, k, "warning does not name line 1", got[1]))

data = open("w.zst", "rb").read()
frame = re.compile(re.escape(bytes.fromhex("5e2a4d18") + (48).to_bytes(4, "little") + b"IOSC"))
chunks = [m.start() for m in frame.finditer(data)]
assert chunks[0] == 0 and len(chunks) >= 2 and chunks[1] > 300, chunks
open("cut", "wb").write(data[chunks[1]:])
rest = read("cut")
assert rest and not rest[1], rest
everything = read("w.zst")
for k in range(1, 301):
    open("cut", "wb").write(data[k:])
    got = read("cut")
    # a cut inside the first index frame (8 + 48 bytes) leaves its data
    # frame whole: the reader reads that chunk's header from it (at 56 the
    # file starts with that data frame: nothing is damaged)
    want = everything[0] if k <= 56 else rest[0]
    want_warn = 0 if k == 56 else 1
    if got is None or got[0] != want or len(got[1]) != want_warn or \
            (want_warn and b"damaged" not in got[1][0]):
        bad.append(("w.zst", k, got, want))
# the cut at 55 again, its one byte of the index frame a letter: "a(" and
# the binary after it are no strace line (the byte is the trace's own)
open("cut", "wb").write(b"a" + data[56:])
got = read("cut")
if got is None or got[0] != everything[0] or len(got[1]) != 1 or b"damaged" not in got[1][0]:
    bad.append(("w.zst", "a(", got, everything))
for b in bad[:10]:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY

# One line of an unknown shape inside a valid log: every other line kept.
{ head -n 5 w.strace; echo 'newfstatat()=0'; tail -n +6 w.strace; } >u.strace
"$IOANALYZE" info w.strace >w.info 2>&1 || not_ok "info w.strace"
"$IOANALYZE" info u.strace >u.info 2>&1 || not_ok "info u.strace: $(cat u.info)"
grep -q '^events: 34 (32 calls, 1 process records, 0 thread records, 1 exit records)' w.info ||
    not_ok "w.strace: $(grep '^events' w.info)"
grep -q '^events: 34 (32 calls, 1 process records, 0 thread records, 1 exit records)' u.info ||
    not_ok "u.strace: $(grep '^events' u.info)"
grep -q '35 lines, 1 not understood' u.info || not_ok "u.strace: $(grep 'not understood' u.info)"
"$IOANALYZE" --format json u.strace >/dev/null 2>u.err || not_ok "analyze u.strace exit $?"
[ "$(grep -c warning u.err)" = 1 ] || not_ok "u.strace: warnings: $(cat u.err)"
grep -qF "'u.strace': line 6: " u.err || not_ok "u.strace: the warning does not name line 6: $(cat u.err)"
grep -q 'out of memory' u.err && not_ok "u.strace: out of memory"
exit $fail
