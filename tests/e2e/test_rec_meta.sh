#!/bin/sh
# The metadata calls (issue 17 item 3), recorded and traced by strace -f -y:
# for each program, the calls that name a path (stat family, access,
# readlink, unlink, rmdir, rename, mkdir, link, symlink, chmod, chown,
# utimes, truncate) under the program's directory, per op and how many
# failed with ENOENT, must be equal; so must the directory entries read
# (recorded: one readdir record per pass with its entries; strace: the
# entries of each getdents64) for programs that read each directory to its
# end.
#   tests/progs/rec_meta   each call once, with relative names and failures;
#                          also its exact recorded counts
#   ls -lR, find, du -s, tar c   a tree walked (statx, fts's fstatat, getdents)
#   cp -r, cp -a, mkdir -p, rm -r   names made, owners, times, names removed
#   python3 -c 'import json, email, http.client'   the import path probing
#                          under /usr/lib/python3 (the classic metadata storm)
#   git status             a repository's stats and lstats
# Not compared, as no preload can see them (docs/recorder.md, "Metadata
# calls"): calls on an fd (fstat: glibc's fopen and opendir fstat inside
# libc), and paths outside the program's directory (the loader's access of
# /etc/ld.so.preload, realpath's readlinks inside libc). rm -r reads fewer
# entries than getdents64 returns (it stops at the first real one when it
# checks that a directory is empty), so its entries are not compared.
set -u
. "$(dirname "$0")/lib.sh"
need_built "$IORECORD" "$IOANALYZE" "$BUILD/bin/progs/rec_meta"
need_strace
if [ -n "${LD_PRELOAD:-}" ] || ldd "$LIBIORECORD" | grep -q libasan; then
    skip "sanitizer build: comparing against strace is for plain builds"
fi

work_dir meta
fail=0

# meta_counts JSONL PREFIX: "op calls" of the calls naming a path under
# PREFIX (or a relative one: strace cannot join a name to a cwd it does not
# print), "op_enoent N" of those that failed with ENOENT, and
# "readdir_entries N" of the directories under PREFIX.
meta_counts() {
    awk -v pre="$2" '
        index($0, "\"ev\":\"call\"") {
            op = $0; sub(/.*"op":"/, "", op); sub(/".*/, "", op)
            p = ""
            if (index($0, "\"path\":\"")) { p = $0; sub(/.*"path":"/, "", p); sub(/".*/, "", p) }
            if (op == "readdir") {
                if (index(p, pre) != 1) next
                s = $0; sub(/.*"size":/, "", s); sub(/[,}].*/, "", s)
                n["readdir_entries"] += s
                next
            }
            if (op !~ /^(stat|access|readlink|unlink|rmdir|rename|mkdir|link|symlink|chmod|chown|utimes|truncate)$/)
                next
            if (index($0, "\"fd\":") && !index($0, "\"fd\":null")) next
            if (!(index(p, pre) == 1 || (p != "" && substr(p, 1, 1) != "/"))) next
            n[op]++
            if (index($0, "\"errno\":2,")) n[op "_enoent"]++
        }
        END { for (k in n) print k, n[k] }' "$1" | sort
}

# compare NAME PREFIX NO_ENTRIES GAP CMD...: record, then strace, the same
# command (in $work, after `prep` restored the files it needs), and compare;
# GAP is what strace sees beyond the recording, as "op n op n" (calls made
# inside libc), or "".
compare() {
    name=$1 pre=$2 noent=$3 gap=$4
    shift 4
    prep
    (cd "$work" && "$IORECORD" -o "$work/$name.zst" -- "$@" > /dev/null 2>&1) ||
        { echo "FAIL $name: recorded run failed"; fail=1; return; }
    prep
    (cd "$work" && strace -f -y -T -o "$work/$name.log" "$@" > /dev/null 2>&1) ||
        { echo "FAIL $name: traced run failed"; fail=1; return; }
    "$IOANALYZE" dump --format jsonl "$work/$name.zst" > "$work/$name.r.jsonl" &&
        "$IOANALYZE" dump --format jsonl "$work/$name.log" > "$work/$name.s.jsonl" ||
        { echo "FAIL $name: dump"; fail=1; return; }
    meta_counts "$work/$name.r.jsonl" "$pre" |
        awk -v gap="$gap" 'BEGIN { n = split(gap, g, " "); for (i = 1; i < n; i += 2) d[g[i]] = g[i + 1] }
                           { print $1, $2 + d[$1] }' > "$work/$name.rc"
    meta_counts "$work/$name.s.jsonl" "$pre" > "$work/$name.sc"
    if [ "$noent" = 1 ]; then
        grep -v '^readdir_entries' "$work/$name.rc" > "$work/$name.x" && mv "$work/$name.x" "$work/$name.rc"
        grep -v '^readdir_entries' "$work/$name.sc" > "$work/$name.x" && mv "$work/$name.x" "$work/$name.sc"
    fi
    if [ ! -s "$work/$name.rc" ]; then
        echo "FAIL $name: no metadata call recorded under $pre"; fail=1
    elif cmp -s "$work/$name.rc" "$work/$name.sc"; then
        echo "ok   $name: $(tr '\n' ' ' < "$work/$name.rc")"
    else
        echo "FAIL $name: recorded | strace"
        paste "$work/$name.rc" "$work/$name.sc"
        fail=1
    fi
}

# A small tree and a git repository, made afresh before each run.
prep() {
    rm -rf "$work/t" "$work/copy" "$work/mk" "$work/run" "$work/repo"
    mkdir -p "$work/t/a/b/c" "$work/run" "$work/repo"
    for i in 1 2 3; do
        echo "$i" > "$work/t/f$i"; echo "$i" > "$work/t/a/g$i"; echo "$i" > "$work/t/a/b/h$i"
    done
    # x a minute old: an index written in the same second as a file it
    # lists is "racily clean", and whether a later `git status` rewrites it
    # (index.lock, rename) would depend on how soon it runs
    if have git; then
        (cd "$work/repo" && git init -q && echo x > x && touch -d '1 minute ago' x && git add x &&
         git -c user.name=t -c user.email=t@t commit -qm x && echo y > y) > /dev/null 2>&1
    fi
}

# The test program: each call once. Its exact recorded counts first.
prep
"$IORECORD" -o "$work/prog.zst" -- "$BUILD/bin/progs/rec_meta" "$work/run" > /dev/null ||
    { echo "FAIL rec_meta: recorded run failed"; exit 1; }
"$IOANALYZE" dump --format jsonl "$work/prog.zst" > "$work/prog.jsonl"
meta_counts "$work/prog.jsonl" "$work/run" | grep -v '^readdir_entries' | tr '\n' ' ' > "$work/prog.c"
want="access 5 access_enoent 1 chmod 2 chown 3 chown_enoent 1 link 2 mkdir 3 readlink 3 rename 3 rmdir 3 rmdir_enoent 1 stat 13 stat_enoent 2 symlink 2 truncate 2 truncate_enoent 1 unlink 5 unlink_enoent 1 utimes 4 "
if [ "$(cat "$work/prog.c")" = "$want" ]; then
    echo "ok   rec_meta counts: $want"
else
    echo "FAIL rec_meta counts: $(cat "$work/prog.c") (want $want)"; fail=1
fi
# A pass left unfinished (2 entries after rewinddir) reads fewer entries
# than getdents64 returns. glibc's euidaccess(R_OK|W_OK) stats the file
# inside libc before its access, and eaccess(F_OK) only stats it: strace
# sees 2 more stats and 1 access fewer.
compare rec_meta "$work/run" 1 "stat 2 access -1" "$BUILD/bin/progs/rec_meta" "$work/run"

compare ls "$work/t" 0 "" ls -lR t
compare find "$work/t" 0 "" find t -name 'h*'
compare du "$work/t" 0 "" du -s t
compare tar "$work/t" 0 "" tar cf /dev/null t
compare cp "$work/copy" 0 "" cp -r t copy
compare cp_a "$work/copy" 0 "" cp -a t copy
compare mkdir_p "$work/mk" 0 "" mkdir -p mk/x/y/z
compare rm_r "$work/t" 1 "" rm -r t
if [ -x /usr/bin/python3 ] && [ -d /usr/lib/python3 ]; then
    compare python3 /usr/lib/python3 0 "" /usr/bin/python3 -c 'import json, email, http.client'
fi
if have git; then
    compare git "$work/repo" 0 "" git -C repo status --porcelain
fi
exit $fail
