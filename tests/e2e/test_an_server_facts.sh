#!/bin/sh
# True facts on servers: names, places, fingerprints and what a sync is.
#  - a program run through a symbolic link named redis-server is reported as
#    redis-server, its executable in detail.exe;
#  - it writes config.txt once and re-opens it 100 times elsewhere: the
#    repeat_open issue (and its SARIF line) is at the re-open;
#  - it chdirs into a data directory given as argument, as a database
#    server does: recorded in d1 and in d2, the issues diff to nothing new;
#    a real change (another file name) is new;
#  - a checkpointer shaped like pgbench's (a sync_file_range per page, one
#    fsync per file): the profile counts 1 fsync and the hints apart;
#  - rsync copying 2000 files: its sender's O_PATH|O_DIRECTORY probes fail
#    with ENOTDIR on files that exist and are no missing paths (the counts
#    checked against strace -f where strace is installed).
# e2e: slow (about 8 s CPU here: server-like programs recorded)
. "$(dirname "$0")/lib.sh"
need_built "$IORECORD" "$IOANALYZE" "$LIBIORECORD"
have cc || skip "no C compiler"
have python3 || skip "no python3"
work_dir server-facts
REC_ENV=$(asan_env "$LIBIORECORD")
# line MARKER FILE: the line number of "@MARKER */" in FILE
line() { grep -n "@$1 \*/" "$2" | cut -d: -f1; }

cat >"$work/app.c" <<'EOF'
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((noinline)) static void write_config(const char *name)
{
    int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644); /* @write_open */

    if (fd < 0 || write(fd, "key = value\n", 12) != 12)
        exit(3);
    close(fd);
}

__attribute__((noinline)) static void read_config(const char *name)
{
    char buf[64];
    int fd = open(name, O_RDONLY); /* @reopen */

    if (fd < 0 || read(fd, buf, sizeof(buf)) != 12)
        exit(4);
    close(fd);
}

int main(int argc, char **argv)
{
    const char *name = argc > 2 ? argv[2] : "config.txt";

    if (argc < 2 || chdir(argv[1]) != 0)
        return 2;
    write_config(name);
    for (int i = 0; i < 100; i++)
        read_config(name);
    return 0;
}
EOF
cd "$work" || exit 1
cc -g -O1 -o app app.c || die "cc"
ln -s app redis-server
mkdir d1 d2
# record NAME DIR [FILE]: the program run as ./redis-server from $work
record() {
    env $REC_ENV "$IORECORD" -o "$work/$1.zst" -- ./redis-server "$2" $3 || not_ok "recording $1"
    "$IOANALYZE" --rules repeat_open "$work/$1.zst" >"$work/$1.json" 2>"$work/$1.err" ||
        not_ok "analyze $1"
}
record t1 d1
record t2 d2
record t3 d2 settings.txt
"$IOANALYZE" --rules repeat_open --format sarif --source-root "$work" "$work/t1.zst" \
    >"$work/t1.sarif" 2>/dev/null || not_ok "analyze --format sarif"
"$IOANALYZE" dump --format jsonl "$work/t1.zst" >"$work/t1.jsonl" || not_ok "dump"

python3 - "$work" "$(line reopen app.c)" "$(line write_open app.c)" <<'PY' || not_ok "names, places, cwd"
import json, sys
work, l_reopen, l_write = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
issues = json.load(open(work + "/t1.json"))
assert len(issues) == 1, issues
i, = issues
# named as invoked, the executable kept
assert i["process"] == "redis-server", i["process"]
assert i["message"].startswith("redis-server opened and closed this file 101 times"), i["message"]
assert i["detail"]["exe"] == work + "/app", i["detail"]
# placed at the open that repeats, the other listed
assert i["path"] == work + "/d1/config.txt", i["path"]
assert i["frames"][0]["function"] == "read_config" and i["frames"][0]["line"] == l_reopen, i["frames"][0]
sites = i["detail"]["open_sites"]
assert [s["sessions"] for s in sites] == [100, 1], sites
assert sites[0]["stack"].startswith("read_config") and sites[1]["stack"].startswith("write_config"), sites
res, = json.load(open(work + "/t1.sarif"))["runs"][0]["results"]
region = res["locations"][0]["physicalLocation"]["region"]
assert region == {"startLine": l_reopen}, (region, l_reopen, l_write)
# the working directory: where it started, then the data directory
cwds = [json.loads(l)["path"] for l in open(work + "/t1.jsonl") if '"op":"cwd"' in l]
assert cwds == [work, work + "/d1"], cwds
PY

# the same workload in another data directory: nothing new; another file is
"$IOANALYZE" diff "$work/t1.json" "$work/t2.json" >"$work/d12.json" ||
    not_ok "diff d1 d2: exit $? (the data directory made the issues new)"
"$IOANALYZE" diff "$work/t1.json" "$work/t3.json" >"$work/d13.json"
[ $? -eq 1 ] || not_ok "diff d1 d2/settings.txt: a changed file is not new"
python3 - "$work" <<'PY' || not_ok "diff figures"
import json, sys
work = sys.argv[1]
same, changed = (json.load(open(work + f)) for f in ("/d12.json", "/d13.json"))
assert same["new"] == [] and same["fixed"] == [] and same["unchanged"] == 1, same
assert len(changed["new"]) == 1 and len(changed["fixed"]) == 1, changed
assert changed["new"][0]["path"].endswith("/d2/settings.txt"), changed["new"]
PY

# a checkpointer: one fsync per file, the writeback hints counted apart
"$IOANALYZE" profile "$TOP/tests/fixtures/rules/sync_storm_sync_file_range_hints.jsonl" \
    >"$work/ckpt.csv" || not_ok "profile"
python3 - "$work/ckpt.csv" <<'PY' || not_ok "profile: syncs and hints"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r["path"] for r in rows] == ["/data/base/1/16384", "/data/base/1/16390"], rows
for r in rows:
    assert (r["fsyncs"], r["sync_time_us"]) == ("1", "1000.000"), r
    # 388 sync_file_range and one posix_fadvise of 1 us each
    assert (r["hints"], r["hint_time_us"]) == ("389", "389.000"), r
PY

# rsync: the sender's probes of files that exist are not missing paths
if have rsync; then
    mkdir "$work/rs" "$work/rs/src" && cd "$work/rs" || exit 1
    i=0
    while [ $i -lt 2000 ]; do
        i=$((i + 1))
        echo "file $i" >"src/f$i.txt"
    done
    env $REC_ENV "$IORECORD" -o "$work/rs.zst" -- rsync -a src/ dst/ || not_ok "recording rsync"
    cmp -s src/f2000.txt dst/f2000.txt || not_ok "rsync did not copy under the recorder"
    "$IOANALYZE" --rules metadata_storm "$work/rs.zst" >"$work/rs.json" 2>/dev/null ||
        not_ok "analyze rsync"
    "$IOANALYZE" dump --format jsonl "$work/rs.zst" >"$work/rs.jsonl" || not_ok "dump rsync"
    strace_log=
    if have strace; then
        rm -rf dst
        strace -f -y -o "$work/rs.strace" rsync -a src/ dst/ && strace_log=$work/rs.strace
    fi
    python3 - "$work" "$strace_log" <<'PY' || not_ok "rsync: missing paths"
import collections, json, re, sys
work, strace_log = sys.argv[1], sys.argv[2]
enotdir = collections.Counter()
for l in open(work + "/rs.jsonl"):
    e = json.loads(l)
    if e["ev"] == "call" and e.get("errno") == 20:
        enotdir[e["pid"]] += 1
sender, n = enotdir.most_common(1)[0]
assert n == 2000, enotdir
for i in json.load(open(work + "/rs.json")):
    # the generator's lookups in the empty destination are real ENOENTs
    assert i["pid"] != sender, i["message"]
    assert "/src" not in i["path"], i
if strace_log:
    st = collections.Counter(l.split()[0] for l in open(strace_log)
                             if re.search(r" = -1 ENOTDIR", l))
    assert sorted(st.values()) == [2000], st
PY
else
    skip_part rsync "rsync is not installed"
fi
exit $fail
