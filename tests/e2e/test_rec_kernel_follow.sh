#!/bin/sh
# What the kernel capture path follows beyond the file calls, as the
# preload follows it: tests/progs/rec_kfollow.c (a file dup2'd onto fd 9
# and written there in small chunks, an fcntl(F_DUPFD_CLOEXEC) copy, a
# pipe, a socketpair and an eventfd written, chdir and relative paths
# after it, a thread that names itself, a memfd, a file mmap'd) built
# static and recorded with --capture kernel gives the same issues and the
# same calls (ops, fds, paths, thread names, labels) as its dynamic build
# recorded with --capture preload, in the same directory (kernel_twins.py
# says which fields are compared and why the others are not).
# Needs root (or CAP_BPF+CAP_PERFMON), a kernel with BTF, a build with
# clang, bpftool and libbpf-dev, a static libc and python3; skipped otherwise.
set -u
. "$(dirname "$0")/lib.sh"
PROG=$BUILD/bin/progs/rec_kfollow
need_built "$IORECORD" "$IOANALYZE" "$PROG"
have python3 || skip "python3 is needed to compare the traces"
REC_ENV=$(asan_env "$LIBIORECORD")
[ -z "$REC_ENV" ] || export $REC_ENV
work_dir kernel-follow
cd "$work" || exit 1

[ "$(id -u)" = 0 ] || skip "the kernel capture path needs root"
"$IORECORD" --capture kernel -o probe.zst true 2> probe.err
rc=$?
if [ $rc != 0 ]; then
    grep -q 'kernel capture' probe.err || die "--capture kernel: $(cat probe.err)"
    skip "kernel capture unavailable: $(sed 's/^iorecord: //' probe.err | head -n 1)"
fi
mkdir static run
printf '#include "%s"\n' "$TOP/tests/progs/rec_kfollow.c" > s.c
# the same base name as the dynamic build: the kernel names the thread after it
${CC:-cc} -O1 -D_GNU_SOURCE -static -pthread -o static/rec_kfollow s.c 2>/dev/null ||
    skip "no static libc to build with"

# one directory for the three runs, one after the other: the same paths
cd run || exit 1
"$PROG" > ../native.out; native_rc=$?
rm -rf w
"$IORECORD" --label suite=follow --capture preload -o ../p.zst "$PROG" > ../p.out; p_rc=$?
rm -rf w
"$IORECORD" --label suite=follow --capture kernel -o ../k.zst ../static/rec_kfollow > ../k.out
k_rc=$?
cd .. || exit 1
[ $native_rc = 0 ] || die "rec_kfollow failed without the recorder: exit $native_rc"
[ $p_rc = 0 ] || not_ok "--capture preload: exit $p_rc"
[ $k_rc = 0 ] || not_ok "--capture kernel: exit $k_rc, 0 without the recorder"
cmp -s native.out k.out || not_ok "stdout differs under the kernel path"

# judged by counts (--ci) and by the rules this program trips by counts:
# main_thread and repeat_read rest on the calls' timing, which a loaded
# machine moves in one run and not the other
for t in p k; do
    "$IOANALYZE" analyze --ci --rules repeat_open,small_buffer --min-severity low --format json \
        $t.zst > $t.json 2>/dev/null
    "$IOANALYZE" dump --format jsonl $t.zst > $t.jsonl
done
# the preload's judgement first: the program's issues, each on its file
rules_of() {
    python3 -c 'import json, sys; print(" ".join(sorted(i["rule"] + ":" + i["path"].split("/run/")[-1] + ":" + ",".join(k + "=" + v for k, v in i["labels"].items()) for i in json.load(open(sys.argv[1])))))' "$1"
}
want="repeat_open:w/a.dat:suite=follow small_buffer:w/a.dat:suite=follow"
want="$want small_buffer:w/b.dat:suite=follow small_buffer:w/t.dat:suite=follow"
[ "$(rules_of p.json)" = "$want" ] || not_ok "the preload's issues: $(rules_of p.json)"
# and the kernel path's: the same, labels included
[ "$(rules_of k.json)" = "$want" ] || not_ok "the kernel path's issues: $(rules_of k.json)"
diffs=$(python3 "$TOP/tests/e2e/kernel_twins.py" issues p.json k.json) ||
    not_ok "issues differ between the preload and the kernel path:
$diffs"
diffs=$(python3 "$TOP/tests/e2e/kernel_twins.py" calls p.jsonl k.jsonl) ||
    not_ok "calls differ between the preload and the kernel path:
$diffs"
exit $fail
