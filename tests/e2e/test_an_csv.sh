#!/bin/sh
# The CSV profile is RFC 4180: a path holding a comma, a quote and a newline
# parses back (the newline as \n, as text output shows it); the SPEC's columns come first, in order; the figures are exact.
# For data tools: LF line ends, an unknown file size empty (not -1), a
# process column, and a path that is not UTF-8 written with \xNN, so that
# pandas (where installed) reads the file with its defaults.
. "$(dirname "$0")/lib.sh"
need_built "$IOANALYZE"
have python3 || skip "python3 is needed"
work_dir an-csv

python3 - "$work/ev.jsonl" <<'PY'
import json, sys
P = '/data/a,b "c"\nd.txt'
ev = [dict(ev="process", t=0, pid=7, ppid=1, exe="/bin/p", cmdline=["p"], start_unix_ns=0)]
t = 1000
def call(op, dur, ret, **kw):
    global t
    e = dict(ev="call", t=t, pid=7, tid=7, op=op, dur=dur, ret=ret); e.update(kw); ev.append(e); t += dur + 1000
call("open", 1000, 3, path=P, flags=0o102)
for i in range(4):
    call("write", 2000, 100, fd=3, size=100)          # sequential: 0,100,200,300
call("lseek", 500, 0, fd=3, offset=0, whence=0)
call("read", 3000, 50, fd=3, size=64)                  # first read: sequential
call("pread", 1000, 10, fd=3, size=10, offset=300)     # not at 50: random
call("fsync", 9000, 0, fd=3)
call("close", 1000, 0, fd=3, file_size=400)
call("fopen", 1000, 0x99, path=P, mode="r", fd=4, size=4096, stream=0x99)
call("fread", 4000, 400, fd=4, stream=0x99, size=512)
call("fclose", 1000, 0, fd=4, stream=0x99)
ev.append(dict(ev="exit", t=t, pid=7, status=0))
open(sys.argv[1], "w").write("".join(json.dumps(e) + "\n" for e in ev))
PY

"$IOANALYZE" profile "$work/ev.jsonl" >"$work/p.csv" || { echo "FAIL: profile"; exit 1; }
"$IOANALYZE" --csv "$work/q.csv" "$work/ev.jsonl" >/dev/null 2>&1 || { echo "FAIL: analyze --csv"; exit 1; }
cmp -s "$work/p.csv" "$work/q.csv" || { echo "FAIL: profile and --csv differ"; exit 1; }

python3 - "$work/p.csv" <<'PY' || exit 1
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
# the newline in the path is a control character: escaped as text output does
spec = "pid,path,opens,reads,read_bytes,read_time_us,avg_read_bytes,avg_read_us,max_read_us,writes,write_bytes,write_time_us,avg_write_bytes,avg_write_us,max_write_us,seeks,seq_reads,random_reads,seq_writes,random_writes,fsyncs,main_thread_ops,first_open_s,last_close_s,file_size".split(",")
assert rows[0][:len(spec)] == spec, rows[0]
assert len(rows) == 3, rows
h = rows[0]
r = {k: v for k, v in zip(h, rows[1])}
s = {k: v for k, v in zip(h, rows[2])}
P = '/data/a,b "c"\\nd.txt'
want = dict(pid="7", path=P, opens="1", reads="2", read_bytes="60", read_time_us="4.000",
            max_read_us="3.000", writes="4", write_bytes="400", write_time_us="8.000",
            avg_write_bytes="100.0", seeks="1", seq_reads="1", random_reads="1", seq_writes="4",
            random_writes="0", fsyncs="1", main_thread_ops="6", file_size="400", layer="syscall")
for k, v in want.items():
    assert r[k] == v, (k, r[k], v)
assert s["path"] == P and s["layer"] == "stdio" and s["reads"] == "1" and s["read_bytes"] == "400", s
assert h[-5:] == ["layer", "sync_time_us", "process", "hints", "hint_time_us"], h
assert r["process"] == "p" and s["process"] == "p", (r, s)
assert s["file_size"] == "", s["file_size"]
assert b"\r" not in open(sys.argv[1], "rb").read(), "CR in the CSV"
PY

# A path that is not UTF-8 (strace prints the bytes; the importer keeps them).
printf '%s\n' 'execve("/bin/tool", ["tool"], 0x7ff /* 2 vars */) = 0 <0.000100>' \
    'openat(AT_FDCWD, "/tmp/bad\377name", O_RDONLY) = 3 <0.000010>' \
    'read(3, "abc", 10) = 3 <0.000010>' 'close(3) = 0 <0.000005>' \
    'openat(AT_FDCWD, "/tmp/good", O_RDONLY) = 3 <0.000010>' \
    'read(3, "abcdef", 10) = 6 <0.000010>' 'close(3) = 0 <0.000005>' \
    'exit_group(0) = ?' >"$work/bad.log"
"$IOANALYZE" profile "$work/bad.log" >"$work/bad.csv" || { echo "FAIL: profile of bad.log"; exit 1; }
python3 - "$work/bad.csv" <<'PY' || exit 1
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], encoding="utf-8", newline="")))
assert [(r["path"], r["process"], r["read_bytes"], r["file_size"]) for r in rows] == [
    ("/tmp/bad\\xffname", "tool", "3", ""), ("/tmp/good", "tool", "6", "")], rows
PY
for py in python3 /usr/bin/python3; do
    if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import pandas' 2>/dev/null; then
        "$py" - "$work/p.csv" "$work/bad.csv" <<'PY' || { echo "FAIL: pandas"; exit 1; }
import sys
import pandas as pd
p = pd.read_csv(sys.argv[1])
assert list(p["process"]) == ["p", "p"] and list(p["layer"]) == ["syscall", "stdio"]
assert p["file_size"].mean() == 400, p["file_size"]     # the unknown size does not count
b = pd.read_csv(sys.argv[2])
assert list(b["path"]) == ["/tmp/bad\\xffname", "/tmp/good"], b["path"]
PY
        break
    fi
done
echo "ok"
