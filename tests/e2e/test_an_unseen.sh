#!/bin/sh
# Figures the trace cannot know, on a real program (python3): a file
# written through a shared writable map and made durable with fsync after
# each change. The stores are no calls the recorder sees: the mmap record
# says the map writes the file (flags 3: IOT_MAP_WRITE | IOT_MAP_SHARED),
# and sync_storm stays silent rather than report "0 bytes written per
# sync". Beside it, the same changes written with pwrite (sync_storm, 4096
# bytes per sync: true) and through a private map (flags 1: the stores
# never reach the file, so 0 bytes per sync is true and reported).
# The program's output and exit status are the same with and without the
# recorder. Under strace (when installed) the importer gives the same.
# And a circular redo log (python3, lseek and write) is not write
# amplification, while the same bytes rewritten in place are.
# e2e: slow (about 18 s CPU here: programs recorded by both capture paths and under strace)
set -u
. "$(dirname "$0")/lib.sh"
need_built "$IORECORD" "$IOANALYZE"
have python3 || skip "python3 is not installed"
work_dir unseen
cd "$work" || exit 1

cat > changes.py <<'PY'
import mmap, os, sys, zlib
how, path = sys.argv[1], sys.argv[2]
f = open(path, "w+b")
f.truncate(1 << 20)
fd = f.fileno()
m = None
if how != "pwrite":
    m = mmap.mmap(fd, 1 << 20, access=mmap.ACCESS_WRITE if how == "shared" else mmap.ACCESS_COPY)
for i in range(30):
    block = bytes([65 + i % 26]) * 4096
    if m is None:
        os.pwrite(fd, block, i * 4096)
    else:
        m[i * 4096:(i + 1) * 4096] = block
    os.fsync(fd)
data = m[:] if m is not None else os.pread(fd, 1 << 20, 0)
print(how, zlib.crc32(data))
PY

expect_eq() {  # WHAT GOT WANT
    if [ "$2" = "$3" ]; then echo "ok   $1: $2"; else not_ok "$1: got '$2', want '$3'"; fi
}

# issues of RULE in JSON: "rule:path-basename:message-start" per issue
issues() {  # JSON
    python3 -c 'import json,sys
print(" ".join(sorted(i["rule"] + ":" + i["path"].split("/")[-1] + ":" + i["message"].split(",")[1].strip()
                      for i in json.load(open(sys.argv[1])))))' "$1" 2>&1
}

for how in shared pwrite private; do
    native=$(python3 changes.py "$how" "native.$how"; echo "exit $?")
    recorded=$( (asan_preload "$LIBIORECORD"; exec "$IORECORD" -o "$how.zst" -- \
        python3 changes.py "$how" "rec.$how") 2>/dev/null; echo "exit $?")
    expect_eq "$how: output and exit status recorded as native" "$recorded" "$native"
    "$IOANALYZE" dump --format jsonl "$how.zst" > "$how.jsonl" 2>/dev/null
    expect_eq "$how: fsyncs recorded" "$(grep -c '"op":"fsync"' "$how.jsonl")" 30
    "$IOANALYZE" --min-severity low --rules sync_storm "$how.zst" > "$how.json" 2>/dev/null
done

expect_eq "shared map: flags write and shared" \
    "$(grep '"op":"mmap"' shared.jsonl | grep -c '"flags":3,')" 1
expect_eq "shared map: no sync_storm (its writes are stores)" "$(issues shared.json)" ""
expect_eq "pwrite: sync_storm, 4096 bytes per sync" "$(issues pwrite.json)" \
    "sync_storm:rec.pwrite:4096 bytes written per sync"
expect_eq "private map: flags write only" \
    "$(grep '"op":"mmap"' private.jsonl | grep -c '"flags":1,')" 1
expect_eq "private map: sync_storm, 0 bytes per sync (nothing reaches the file)" \
    "$(issues private.json)" "sync_storm:rec.private:0 bytes written per sync"

# A redo log: 1 MiB written in order in 4 KiB records, round 7 times (lseek
# back to 0 at the end): new data each round, no write_amplification. The
# same records written back to offset 0 each time (state_rewrite's shape,
# 256 records a round for the same byte count) are a rewrite in place.
cat > redo.py <<'PY'
import os, sys
how, path = sys.argv[1], sys.argv[2]
fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
for r in range(7):
    os.lseek(fd, 0, os.SEEK_SET)
    for i in range(256):
        if how == "inplace":
            os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, bytes([65 + (r + i) % 26]) * 4096)
os.close(fd)
print(how, os.path.getsize(path))
PY
# "rule:repeat" per issue
repeats() {  # JSON
    python3 -c 'import json,sys
print(" ".join(i["rule"] + ":" + str(i["repeat"]) for i in json.load(open(sys.argv[1]))))' "$1" 2>&1
}

for how in redo inplace; do
    native=$(python3 redo.py "$how" "native.$how"; echo "exit $?")
    recorded=$( (asan_preload "$LIBIORECORD"; exec "$IORECORD" -o "$how.zst" -- \
        python3 redo.py "$how" "rec.$how") 2>/dev/null; echo "exit $?")
    expect_eq "$how: output and exit status recorded as native" "$recorded" "$native"
    "$IOANALYZE" --min-severity low --rules write_amplification "$how.zst" > "$how.json" 2>/dev/null
done
expect_eq "circular redo log: no write_amplification" "$(repeats redo.json)" ""
expect_eq "rewrite in place: write_amplification" "$(repeats inplace.json)" \
    "write_amplification:1792"

# the same from strace's view: the importer reads PROT_WRITE and MAP_SHARED
if have strace && strace -f -o /dev/null true 2>/dev/null; then
    strace -f -y -T -tt -o shared.strace python3 changes.py shared strace.shared >/dev/null 2>&1 ||
        not_ok "shared under strace"
    "$IOANALYZE" --min-severity low --rules sync_storm shared.strace > shared-strace.json 2>/dev/null
    expect_eq "strace, shared map: no sync_storm" "$(issues shared-strace.json)" ""
    strace -f -y -T -tt -o private.strace python3 changes.py private strace.private >/dev/null 2>&1 ||
        not_ok "private under strace"
    "$IOANALYZE" --min-severity low --rules sync_storm private.strace > private-strace.json 2>/dev/null
    expect_eq "strace, private map: sync_storm, 0 bytes per sync" "$(issues private-strace.json)" \
        "sync_storm:strace.private:0 bytes written per sync"
else
    skip_part "strace half" "strace is not installed or cannot trace here"
fi

exit $fail
