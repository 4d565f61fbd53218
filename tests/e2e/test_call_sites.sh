#!/bin/sh
# The stack where the harm is done: a program that opens its files in one
# function and writes and syncs them in others (tests/fixtures/stacks/
# stk_site.c). The sync_storm issue names the syncing function and the
# small_buffer one the writing loop, each with the opener as open_stack /
# open_frames, "opened at:" in the text report and a SARIF related
# location. A 1M-write loop adds ~20 stacked calls of its site, not 1M, and
# the trace grows by a few KB at most over one recorded without stacks
# (decompressed, less the bytes of the calls' times, which vary with the
# runs' timings);
# with IORECORD_STACKS=0 no call carries one. The program's output files
# and exit status are the same recorded or not.
# e2e: slow (about 60 s here: three runs of a loop of 1M writes to disk, two dumps)
. "$(dirname "$0")/lib.sh"
need_built "$IORECORD" "$IOANALYZE" "$LIBIORECORD"
have cc || skip "no C compiler"
have python3 || skip "no python3"
work_dir call-sites
REC_ENV=$(asan_env "$LIBIORECORD")
SRC=$TOP/tests/fixtures/stacks
N=1000000
line() { grep -n "@$1 \*/" "$SRC/stk_site.c" | cut -d: -f1; }

mkdir "$work/src" "$work/native" "$work/rec" "$work/nostack"
cp "$SRC/stk_site.c" "$work/src/"
cc -g -O1 -o "$work/src/app" "$work/src/stk_site.c" || die "compiling stk_site.c"

"$work/src/app" "$work/native" $N; native=$?
env $REC_ENV "$IORECORD" -o "$work/t.zst" -- "$work/src/app" "$work/rec" $N; recorded=$?
env $REC_ENV IORECORD_STACKS=0 "$IORECORD" -o "$work/nostack.zst" -- "$work/src/app" \
    "$work/nostack" $N || not_ok "recording without stacks"
[ "$native" = 0 ] && [ "$recorded" = 0 ] || not_ok "exit status: native $native, recorded $recorded"
for f in journal bulk; do
    cmp -s "$work/native/$f" "$work/rec/$f" || not_ok "$f differs recorded"
done

# the calls per op, and the records that carry a stack (most carry none)
"$IOANALYZE" info "$work/t.zst" > "$work/info" || die "info"
# One pass over each trace's events: the calls that carry a stack (to
# STACKED), and the bytes the calls' times take in the trace (printed): each
# call's gap from its thread's previous call's end and its duration, two
# varints (docs/trace-format.md), which the runs' timings make longer or
# shorter; a chunk's first call counts its gap from that call, a few bytes
# off per chunk.
cat > "$work/scan.py" <<'PY'
import json, sys

def vlen(v):
    n = 1
    while v >= 0x80:
        v >>= 7
        n += 1
    return n

stacked = open(sys.argv[1], "w")
prev_end, timing = {}, 0
for line in sys.stdin:
    e = json.loads(line)
    if e["ev"] != "call":
        continue
    if e["stack"] is not None:
        stacked.write(line)
    t, d = e["t"], e["dur"] or 0
    gap = t - prev_end.get(e["tid"], t)
    timing += vlen(2 * gap if gap >= 0 else -2 * gap - 1) + vlen(d)
    prev_end[e["tid"]] = t + d
print(timing)
PY
"$IOANALYZE" dump --format jsonl "$work/t.zst" | python3 "$work/scan.py" "$work/stacked.jsonl" > "$work/t.timing" ||
    die "dump"
"$IOANALYZE" dump --format jsonl "$work/nostack.zst" | python3 "$work/scan.py" "$work/nostack.jsonl" \
    > "$work/nostack.timing" || die "dump (no stacks)"
wc -l < "$work/nostack.jsonl" > "$work/nostack.count"
"$IOANALYZE" "$work/t.zst" > "$work/i.json" 2>/dev/null || die "analyze"
"$IOANALYZE" "$work/nostack.zst" > "$work/nostack.json" 2>/dev/null || die "analyze (no stacks)"
"$IOANALYZE" --format text "$work/t.zst" > "$work/report.txt" 2>/dev/null || die "analyze --format text"
"$IOANALYZE" --format sarif --source-root "$work/src" "$work/t.zst" > "$work/s.sarif" 2>/dev/null ||
    die "analyze --format sarif"

# the bytes of the trace's records before compression
raw_bytes() { "$IOANALYZE" info "$1" | sed -n 's/.* \([0-9]*\) decompressed bytes.*/\1/p'; }
# less the bytes of the calls' times
python3 - "$work" $N $(($(raw_bytes "$work/t.zst") - $(cat "$work/t.timing"))) \
    $(($(raw_bytes "$work/nostack.zst") - $(cat "$work/nostack.timing"))) \
    "${REC_ENV:+asan}" "$(line open_journal)" "$(line append_record)" "$(line commit_record)" "$(line write_bulk)" <<'PY' ||
import collections, json, sys
work, n, size, size0 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
asan = sys.argv[5] == "asan"
l_open, l_append, l_commit, l_bulk = map(int, sys.argv[6:10])
app = work + "/src/app"

def own(stack):
    """The stack without a sanitizer interceptor's leading frames."""
    frames = stack.split("\n")
    while frames and "libasan" in frames[0].split("+")[0]:
        frames = frames[1:]
    return frames

by_op = {}
for l in open(work + "/info"):
    w = l.split()
    if len(w) == 2 and w[1].isdigit():
        by_op[w[0]] = int(w[1])
assert by_op["write"] == 200 + n and by_op["fdatasync"] == 200, by_op
evs = [json.loads(l) for l in open(work + "/stacked.jsonl")]
stacked = collections.Counter((e["op"], own(e["stack"])[0]) for e in evs if e["ev"] == "call")
# one site per loop: 200 writes and syncs from append_record and
# commit_record, n from write_bulk; each stacked at its session's first
# call and at its 1st, 2nd, 4th ... call: 8 of 200, 20 of 1M
sites = collections.defaultdict(list)
for (op, top), k in stacked.items():
    assert top.startswith(app + "+0x"), top
    sites[op].append(k)
if asan:
    # the sanitizer's interceptor is the return address of every write:
    # one site whose count the two loops share, each session's first
    # stacked all the same
    assert len(sites["write"]) == 2 and sum(sites["write"]) <= 8 + n.bit_length(), stacked
else:
    assert sorted(sites["write"]) == [8, n.bit_length()], stacked
    assert sites["fdatasync"] == [8], stacked
    assert sites["open"] == [2], stacked
    assert sum(stacked.values()) == 8 + 8 + 2 + n.bit_length(), stacked
# the stacks cost the trace a few KB, not a byte per call, once the bytes of
# the calls' times are left out of both (the two runs' timings move those by
# tens of KB on a loaded machine, 134 KB seen with both cores busy)
assert size - size0 < 16384, (size, size0)
assert open(work + "/nostack.count").read().strip() == "0", "a stack with IORECORD_STACKS=0"

def fn(frames):
    return [(f["function"], f["line"]) for f in frames if not (f.get("module") or "").rsplit("/", 1)[-1].startswith("libasan")][:2]

issues = {(i["rule"], i["path"].rsplit("/", 1)[1]): i for i in json.load(open(work + "/i.json"))}
sync, small = issues[("sync_storm", "journal")], issues[("small_buffer", "bulk")]
assert fn(sync["frames"])[0] == ("commit_record", l_commit), sync["frames"]
assert fn(sync["open_frames"])[0] == ("open_journal", l_open), sync["open_frames"]
assert own(sync["stack"])[0] == "commit_record (stk_site.c:%d)" % l_commit, sync["stack"]
assert own(sync["open_stack"])[0] == "open_journal (stk_site.c:%d)" % l_open, sync["open_stack"]
assert fn(small["frames"])[0] == ("write_bulk", l_bulk), small["frames"]
assert fn(small["open_frames"])[0] == ("open_journal", l_open), small["open_frames"]
# without stacks: the same issues, neither stack nor open_stack
plain = {(i["rule"], i["path"].rsplit("/", 1)[1]): i for i in json.load(open(work + "/nostack.json"))}
assert set(plain) == set(issues), (set(plain), set(issues))
for i in plain.values():
    assert i["stack"] == "" and "open_stack" not in i and i["frames"] == [], i
assert [i["fingerprint"] for i in plain.values()] != [issues[k]["fingerprint"] for k in plain]

# the text report: the site under "stack:", the opener's top frames under "opened at:"
text = open(work + "/report.txt").read()
block = text[text.index("/journal\n"):]
block = block[:block.index("\n\n")]
stack_at, open_at = block.index("    stack:\n"), block.index("    opened at:\n")
assert stack_at < open_at and "commit_record (stk_site.c:%d)" % l_commit in block[stack_at:open_at], block
opened = block[open_at:].split("\n")[1:]
assert len(opened) == 3 and "open_journal (stk_site.c:%d)" % l_open in "\n".join(opened), block

# SARIF: the result on the syncing line, the open among the related locations
run, = json.load(open(work + "/s.sarif"))["runs"]
res = {(r["ruleId"], r["properties"]["path"].rsplit("/", 1)[1]): r for r in run["results"]}
r = res[("sync_storm", "journal")]
assert r["locations"][0]["physicalLocation"]["region"]["startLine"] == l_commit, r["locations"]
rel = [x for x in r["relatedLocations"] if x["message"]["text"].startswith("the file was opened here")]
assert rel and rel[0]["physicalLocation"]["region"]["startLine"] == l_open, r["relatedLocations"]
assert len({x["id"] for x in r["relatedLocations"]}) == len(r["relatedLocations"])
PY
    not_ok "call-site stacks"
exit $fail
