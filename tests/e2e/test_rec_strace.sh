#!/bin/sh
# Programs we did not write, recorded by iorecord and traced by strace -f:
# the counts and bytes of the calls the recorder wraps must be equal, and the
# programs' output identical (the recorder is transparent).
#   gzip -c          read(0) / write(1)
#   sqlite3          pread64 / pwrite64 / fdatasync on the database and journal
#   cp               copy_file_range
#   tar -cf -        write(1)
# and, for sort and sed with temp files, tar -cz and -xz (with gzip), cp -r, a
# printf-heavy C program, python3 writing a file, git init/add/commit/status
# and make -j2 of a small C project, the bytes written to the files under
# each run's directory (stdio included), and per thread, file and call the
# counts and bytes of the data syscalls the program made itself.
# Calls no preload can see (the dynamic loader's reads, stdio's internal
# refills, NSS) are excluded by looking only at the descriptors and syscalls
# above, and for sqlite only after it opened its database.
set -u
# e2e: slow (about 13 s here: real programs under iorecord and strace)
. "$(dirname "$0")/lib.sh"
need_built "$IORECORD" "$IOANALYZE"
need_strace
if [ -n "${LD_PRELOAD:-}" ] || ldd "$LIBIORECORD" | grep -q libasan; then
    skip "sanitizer build: comparing against strace is for plain builds"
fi

work_dir strace

# strace_sum FILE SYSCALL FD AFTER: "calls bytes" of SYSCALL (on FD unless
# empty) in an strace -f log, counting from the first line containing AFTER.
# AFTER ends a path as strace quotes it ('db1"'): a bare db1 also matched
# the hex addresses of earlier lines (0x7ffdb1...) about one run in eight,
# which counted the dynamic loader's two preads.
strace_sum() {
    awk -v sc="$2" -v fd="$3" -v after="$4" '
        BEGIN { started = (after == "") }
        {
            line = $0
            sub(/^[0-9]+ +/, "", line)
            if (!started) { if (index(line, after)) started = 1; next }
            if (index(line, sc "(") != 1) next
            if (line ~ /unfinished|resumed/) next
            args = substr(line, length(sc) + 2)
            split(args, a, ",")
            if (fd != "" && a[1] != fd) next
            r = line
            sub(/.*\) += /, "", r)
            sub(/ .*/, "", r)
            n++
            if (r + 0 > 0) b += r
        }
        END { print n + 0, b + 0 }' "$1"
}

# trace_sum JSONL OP FD: "calls bytes" of OP (on FD unless empty).
trace_sum() {
    awk -v op="$2" -v fd="$3" '
        index($0, "\"ev\":\"call\"") && index($0, "\"op\":\"" op "\"") {
            if (fd != "" && !index($0, "\"fd\":" fd ",") &&
                !index($0, "\"fd\":" fd "}")) next
            r = $0
            sub(/.*"ret":/, "", r)
            sub(/[,}].*/, "", r)
            n++
            if (r + 0 > 0) b += r
        }
        END { print n + 0, b + 0 }' "$1"
}

same() {  # WHAT STRACE_RESULT TRACE_RESULT
    if [ "$2" = "$3" ]; then
        echo "ok   $1: strace $2, trace $3 (calls bytes)"
    else
        echo "FAIL $1: strace $2, trace $3 (calls bytes)"; fail=1
    fi
}

record() {  # TRACE CMD... (stdin/stdout as given)
    t=$1; shift
    "$IORECORD" -o "$t" -- "$@"
}

dump() { "$IOANALYZE" dump --format jsonl "$1" > "$1.jsonl" || { echo "FAIL dump $1"; fail=1; }; }

# Input: a few MB that compress a little.
seq 1 400000 | sed 's/$/ some text to compress/' > "$work/in.txt"

# --- gzip
if command -v gzip >/dev/null 2>&1; then
    strace -f -s 0 -o "$work/gz.st" gzip -c < "$work/in.txt" > "$work/gz1.gz"
    record "$work/gz.zst" gzip -c < "$work/in.txt" > "$work/gz2.gz"
    cmp -s "$work/gz1.gz" "$work/gz2.gz" || { echo "FAIL gzip output differs"; fail=1; }
    dump "$work/gz.zst"
    same "gzip read(0)" "$(strace_sum "$work/gz.st" read 0 '')" \
        "$(trace_sum "$work/gz.zst.jsonl" read 0)"
    same "gzip write(1)" "$(strace_sum "$work/gz.st" write 1 '')" \
        "$(trace_sum "$work/gz.zst.jsonl" write 1)"
fi

# --- sqlite3
if command -v sqlite3 >/dev/null 2>&1; then
    { echo 'create table t(a, b);'
      i=0
      while [ $i -lt 300 ]; do
          echo "begin; insert into t values($i, 'row $i'); commit;"
          i=$((i + 1))
      done
      echo 'select count(*) from t;'; } > "$work/s.sql"
    strace -f -s 0 -o "$work/sq.st" sqlite3 "$work/db1" < "$work/s.sql" > "$work/sq1.out"
    record "$work/sq.zst" sqlite3 "$work/db2" < "$work/s.sql" > "$work/sq2.out"
    cmp -s "$work/sq1.out" "$work/sq2.out" || { echo "FAIL sqlite3 output differs"; fail=1; }
    dump "$work/sq.zst"
    same "sqlite3 pwrite64" "$(strace_sum "$work/sq.st" pwrite64 '' 'db1"')" \
        "$(trace_sum "$work/sq.zst.jsonl" pwrite '')"
    same "sqlite3 pread64" "$(strace_sum "$work/sq.st" pread64 '' 'db1"')" \
        "$(trace_sum "$work/sq.zst.jsonl" pread '')"
    same "sqlite3 fdatasync" "$(strace_sum "$work/sq.st" fdatasync '' 'db1"')" \
        "$(trace_sum "$work/sq.zst.jsonl" fdatasync '')"
fi

# --- cp (coreutils copies with copy_file_range)
strace -f -s 0 -o "$work/cp.st" cp "$work/in.txt" "$work/cp1"
record "$work/cp.zst" cp "$work/in.txt" "$work/cp2"
cmp -s "$work/cp1" "$work/cp2" || { echo "FAIL cp output differs"; fail=1; }
dump "$work/cp.zst"
same "cp copy_file_range" "$(strace_sum "$work/cp.st" copy_file_range '' '')" \
    "$(trace_sum "$work/cp.zst.jsonl" copy_file_range '')"

# --- tar
if command -v tar >/dev/null 2>&1; then
    mkdir -p "$work/dir"
    for f in a b c d e; do head -c 70000 "$work/in.txt" > "$work/dir/$f"; done
    strace -f -s 0 -o "$work/tar.st" tar --mtime=@0 --owner=0 --group=0 --numeric-owner \
        -cf - -C "$work/dir" . > "$work/t1.tar"
    record "$work/tar.zst" tar --mtime=@0 --owner=0 --group=0 --numeric-owner \
        -cf - -C "$work/dir" . > "$work/t2.tar"
    cmp -s "$work/t1.tar" "$work/t2.tar" || { echo "FAIL tar output differs"; fail=1; }
    dump "$work/tar.zst"
    same "tar write(1)" "$(strace_sum "$work/tar.st" write 1 '')" \
        "$(trace_sum "$work/tar.zst.jsonl" write 1)"
fi

# --- issue 17: every byte credited to the file it reached. For programs
# that write through stdio (sort's and sed's temp files, tar x's files,
# a C program's printf), the bytes the trace has for the files under a
# directory equal the bytes strace -f -y sees written to them.

# strace_dir_bytes LOG DIR: bytes written by write/pwrite64/writev and
# copied by copy_file_range/sendfile to fds naming paths under DIR. LOG is
# the concatenation of strace -ff's per-process files (no line of one
# process is split by another's).
strace_dir_bytes() {
    awk -v dir="<$2/" '
        { line = $0 }
        line ~ /^(write|pwrite64|writev|copy_file_range|sendfile)\(/ && index(line, dir) {
            r = line; sub(/.*\) += /, "", r); sub(/ .*/, "", r); if (r + 0 > 0) b += r
        }
        END { print b + 0 }' "$1"
}

# trace_dir_bytes TRACE DIR: write_bytes of the profile rows of paths under DIR.
trace_dir_bytes() {
    "$IOANALYZE" profile "$1" 2>/dev/null | awk -F, -v dir="$2/" '
        NR == 1 { for (i = 1; i <= NF; i++) if ($i == "write_bytes") c = i; next }
        index($2, dir) == 1 { b += $c }
        END { print b + 0 }'
}

# counts_equal NAME: per thread, file and call, the calls and bytes of the
# fd-level data syscalls the program made itself (read, write, pread64,
# pwrite64, readv, writev; copy_file_range and sendfile by the file they
# write) on the files under the run's work directory,
# from strace -ff -y (one log per thread) and from the trace. Left out,
# since no preload sees them: a thread's calls on a file it also used
# through stdio (libc's own refills and flushes), and files outside the
# work directory (the dynamic loader's, libc's NSS and locale files, the
# recorder's /proc reads).
counts_equal() {
    have python3 || return 0
    "$IOANALYZE" dump --format jsonl "$work/$1.zst" > "$work/$1.jsonl" 2>/dev/null
    python3 - "$work" "$1" <<'PY' || fail=1
import glob, json, re, sys
from collections import Counter
work, name = sys.argv[1], sys.argv[2]
ops = {"read": "read", "write": "write", "pread64": "pread", "pwrite64": "pwrite",
       "readv": "readv", "writev": "writev", "copy_file_range": "copy_file_range",
       "sendfile": "sendfile"}
fd_re = r"\d+<([^>]*)>"
line_re = {sc: re.compile(r"^%s\(%s%s.*\) += (-?\d+)" % (
               sc, r"\d+<[^>]*>, [^,]+, " if sc == "copy_file_range" else "", fd_re))
           for sc in ops}
call_re = re.compile(r"^(\w+)\(")
traced, trace, stdio, threads = Counter(), Counter(), set(), set()
for l in open(work + "/" + name + ".jsonl"):
    e = json.loads(l)
    if e["ev"] != "call":
        continue
    threads.add(e["tid"])
    path = e.get("path") or ""
    if not path.startswith(work + "/"):
        continue
    if e.get("stream") is not None or e["op"].startswith("inline_"):
        stdio.add((e["tid"], path))
    if e["op"] in ops.values():
        trace[(e["tid"], path, e["op"])] += 1
        trace[(e["tid"], path, e["op"] + " bytes")] += max(e["ret"], 0)
for f in glob.glob(work + "/" + name + ".st.log.*"):
    tid = int(f.rsplit(".", 1)[1])
    if tid not in threads:
        continue        # iorecord, its collector, an unrecorded program
    for l in open(f, errors="replace"):
        c = call_re.match(l)
        m = c and c.group(1) in ops and line_re[c.group(1)].match(l)
        if not m or not m.group(1).startswith(work + "/"):
            continue
        op = ops[c.group(1)]
        traced[(tid, m.group(1), op)] += 1
        traced[(tid, m.group(1), op + " bytes")] += max(int(m.group(2)), 0)
keys = {k for k in traced.keys() | trace.keys() if (k[0], k[1]) not in stdio}
bad = sorted(k for k in keys if traced[k] != trace[k])
calls = sum(traced[k] for k in keys if not k[2].endswith(" bytes"))
for k in bad[:10]:
    print("FAIL %s: tid %d %s %s: strace %d, trace %d" % (name, k[0], k[1], k[2], traced[k], trace[k]))
if not bad:
    print("ok   %s: per thread, file and call: %d calls on %d files, as strace counts them"
          % (name, calls, len({k[1] for k in keys})))
sys.exit(1 if bad else 0)
PY
}

# both NAME CMD: CMD (@ stands for its directory) recorded and, in the same
# run, traced by strace -ff -y: the same work seen both ways, so programs
# whose output varies from run to run (git) compare too. The recorder's
# own writes go to the trace, outside the directory.
both() {
    mkdir -p "$work/$1.d"
    _c=$(echo "$2" | sed "s|@|$work/$1.d|g")
    strace -ff -y -s 0 -o "$work/$1.st.log" "$IORECORD" -o "$work/$1.zst" -- sh -c "$_c" \
        > /dev/null 2>&1 || { echo "FAIL $1 did not succeed"; fail=1; }
    cat "$work/$1.st.log".* > "$work/$1.log"
    _a=$(strace_dir_bytes "$work/$1.log" "$work/$1.d")
    _b=$(trace_dir_bytes "$work/$1.zst" "$work/$1.d")
    if [ "$_a" = "$_b" ] && [ "$_a" -gt 0 ]; then
        echo "ok   $1: bytes written to the files of its directory: strace $_a, trace $_b"
    else
        echo "FAIL $1: bytes written to the files of its directory: strace $_a, trace $_b"; fail=1
    fi
    counts_equal "$1"
}

head -c 3000000 "$work/in.txt" > "$work/sortin.txt"
both sort "cd @ && sort -r -S 1M -T @ -o @/sorted.txt '$work/sortin.txt'"
both sed "cd @ && head -c 2000000 '$work/in.txt' > big.txt && sed -i 's/text/TEXT/' big.txt"
both tarc "tar -czf @/dir.tgz -C '$work' dir"
tar -czf "$work/dir.tgz" -C "$work" dir 2>/dev/null &&
    both tarx "tar -xzf '$work/dir.tgz' -C @"
both cpr "cp -r '$work/dir' @/copy"
both printf "cd @ && '$BUILD/bin/progs/rec_cases' pf 20000 > pf.out && '$BUILD/bin/progs/rec_cases' pc 100000 > pc.out"
if have python3; then
    printf 'f = open("p.txt", "w")\nfor i in range(20000):\n    f.write("line %%d\\n" %% i)\nf.close()\n' > "$work/w.py"
    both python3 "cd @ && python3 '$work/w.py'"
fi
if have git; then
    both git "cd @ && git init -q . && seq 1 5000 > a.txt && git add a.txt &&
        GIT_AUTHOR_DATE=2000-01-01T00:00:00Z GIT_COMMITTER_DATE=2000-01-01T00:00:00Z git -c user.email=t@t -c user.name=t commit -qm m &&
        git status --short"
fi
if have make && have cc; then
    mkdir -p "$work/proj"
    for n in 1 2 3 4; do printf 'int f%d(int x) { return x * %d; }\n' $n $n > "$work/proj/f$n.c"; done
    printf 'all: f1.o f2.o f3.o f4.o\n%%.o: %s/%%.c\n\tcc -O1 -c -o $@ $<\n' "$work/proj" > "$work/proj/Makefile"
    both make "cd @ && make -s -j2 -f '$work/proj/Makefile'"
fi

exit $fail
