#!/bin/sh
# Programs we did not write, recorded by iorecord and traced by strace -f:
# the counts and bytes of the calls the recorder wraps must be equal, and the
# programs' output identical (the recorder is transparent).
#   gzip -c          read(0) / write(1)
#   sqlite3          pread64 / pwrite64 / fdatasync on the database and journal
#   cp               copy_file_range
#   tar -cf -        write(1)
# Calls no preload can see (the dynamic loader's reads, stdio's internal
# refills, NSS) are excluded by looking only at the descriptors and syscalls
# above, and for sqlite only after it opened its database.
set -u
BUILD=${BUILD:-build}
case $BUILD in /*) B=$BUILD ;; *) B=$TOP/$BUILD ;; esac
IOREC=$B/bin/iorecord
IOA=$B/bin/ioanalyze
[ -x "$IOREC" ] || { echo "iorecord not built"; exit 77; }
[ -x "$IOA" ] || { echo "ioanalyze not built"; exit 77; }
command -v strace >/dev/null 2>&1 || { echo "strace not installed"; exit 77; }
strace -f -o /dev/null true 2>/dev/null || { echo "strace cannot trace here"; exit 77; }
if [ -n "${LD_PRELOAD:-}" ] || ldd "$B/lib/libiorecord.so" | grep -q libasan; then
    echo "sanitizer build: comparing against strace is for plain builds"; exit 77
fi

tmp=$(mktemp -d /tmp/ioscope-e2e-strace.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0

# strace_sum FILE SYSCALL FD AFTER: "calls bytes" of SYSCALL (on FD unless
# empty) in an strace -f log, counting from the first line containing AFTER.
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
    "$IOREC" -o "$t" -- "$@"
}

dump() { "$IOA" dump --format jsonl "$1" > "$1.jsonl" || { echo "FAIL dump $1"; fail=1; }; }

# Input: a few MB that compress a little.
seq 1 400000 | sed 's/$/ some text to compress/' > "$tmp/in.txt"

# --- gzip
if command -v gzip >/dev/null 2>&1; then
    strace -f -s 0 -o "$tmp/gz.st" gzip -c < "$tmp/in.txt" > "$tmp/gz1.gz"
    record "$tmp/gz.zst" gzip -c < "$tmp/in.txt" > "$tmp/gz2.gz"
    cmp -s "$tmp/gz1.gz" "$tmp/gz2.gz" || { echo "FAIL gzip output differs"; fail=1; }
    dump "$tmp/gz.zst"
    same "gzip read(0)" "$(strace_sum "$tmp/gz.st" read 0 '')" \
        "$(trace_sum "$tmp/gz.zst.jsonl" read 0)"
    same "gzip write(1)" "$(strace_sum "$tmp/gz.st" write 1 '')" \
        "$(trace_sum "$tmp/gz.zst.jsonl" write 1)"
fi

# --- sqlite3
if command -v sqlite3 >/dev/null 2>&1; then
    { echo 'create table t(a, b);'
      i=0
      while [ $i -lt 300 ]; do
          echo "begin; insert into t values($i, 'row $i'); commit;"
          i=$((i + 1))
      done
      echo 'select count(*) from t;'; } > "$tmp/s.sql"
    strace -f -s 0 -o "$tmp/sq.st" sqlite3 "$tmp/db1" < "$tmp/s.sql" > "$tmp/sq1.out"
    record "$tmp/sq.zst" sqlite3 "$tmp/db2" < "$tmp/s.sql" > "$tmp/sq2.out"
    cmp -s "$tmp/sq1.out" "$tmp/sq2.out" || { echo "FAIL sqlite3 output differs"; fail=1; }
    dump "$tmp/sq.zst"
    same "sqlite3 pwrite64" "$(strace_sum "$tmp/sq.st" pwrite64 '' db1)" \
        "$(trace_sum "$tmp/sq.zst.jsonl" pwrite '')"
    same "sqlite3 pread64" "$(strace_sum "$tmp/sq.st" pread64 '' db1)" \
        "$(trace_sum "$tmp/sq.zst.jsonl" pread '')"
    same "sqlite3 fdatasync" "$(strace_sum "$tmp/sq.st" fdatasync '' db1)" \
        "$(trace_sum "$tmp/sq.zst.jsonl" fdatasync '')"
fi

# --- cp (coreutils copies with copy_file_range)
strace -f -s 0 -o "$tmp/cp.st" cp "$tmp/in.txt" "$tmp/cp1"
record "$tmp/cp.zst" cp "$tmp/in.txt" "$tmp/cp2"
cmp -s "$tmp/cp1" "$tmp/cp2" || { echo "FAIL cp output differs"; fail=1; }
dump "$tmp/cp.zst"
same "cp copy_file_range" "$(strace_sum "$tmp/cp.st" copy_file_range '' '')" \
    "$(trace_sum "$tmp/cp.zst.jsonl" copy_file_range '')"

# --- tar
if command -v tar >/dev/null 2>&1; then
    mkdir -p "$tmp/dir"
    for f in a b c d e; do head -c 70000 "$tmp/in.txt" > "$tmp/dir/$f"; done
    strace -f -s 0 -o "$tmp/tar.st" tar --mtime=@0 --owner=0 --group=0 --numeric-owner \
        -cf - -C "$tmp/dir" . > "$tmp/t1.tar"
    record "$tmp/tar.zst" tar --mtime=@0 --owner=0 --group=0 --numeric-owner \
        -cf - -C "$tmp/dir" . > "$tmp/t2.tar"
    cmp -s "$tmp/t1.tar" "$tmp/t2.tar" || { echo "FAIL tar output differs"; fail=1; }
    dump "$tmp/tar.zst"
    same "tar write(1)" "$(strace_sum "$tmp/tar.st" write 1 '')" \
        "$(trace_sum "$tmp/tar.zst.jsonl" write 1)"
fi

exit $fail
