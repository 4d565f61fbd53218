#!/bin/sh
# Record vs strace: each program runs once under `iorecord --no-stacks` and
# once under `strace -f -tt -T -y`, in the same directory. The syscall-level
# rules (small_buffer with min_continual_ms=0, random_write, random_read,
# leak) must report the same issues from both, with the same fingerprints
# and the same counts: a trace without stacks fingerprints exactly like a log.
# e2e: slow (about 8 s CPU here: the samples recorded and compared)
. "$(dirname "$0")/lib.sh"
S=$BUILD/bin/samples
need_built "$IOANALYZE" "$IORECORD" "$LIBIORECORD"
need_strace
have python3 || skip "python3 is needed"
work_dir ci-eq
# A sanitized recorder needs the sanitizer runtime loaded first (make asan).
REC_ENV=$(asan_env "$LIBIORECORD")
# The program leaks one file and moves a few KiB: below leak's min_count and
# the random rules' volume floor, which are not what this test is about.
# the same rule selection for diff, which runs every enabled rule
printf '%s\n' '{"rules": {"main_thread": {"enabled": false}, "repeat_read": {"enabled": false},' \
    '"small_buffer": {"min_continual_ms": 0}, "leak": {"min_count": 1},' \
    '"random_write": {"min_bytes": 0, "min_extent": 0}, "random_read": {"min_bytes": 0}}}' >"$work/syscall-rules.json"

# Small writes, then random writes and reads of one file, and a leak in a
# child process: every compared rule in one short program (the small_writes
# and repeat_read samples make 100000 calls: too slow under strace here).
cat >"$work/mixed.c" <<'EOF'
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    char path[4096], buf[64];
    int fd, status;
    pid_t child;

    if (argc < 2)
        return 2;
    snprintf(path, sizeof(path), "%s/mixed.dat", argv[1]);
    memset(buf, 'm', sizeof(buf));
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return 1;
    for (int i = 0; i < 100; i++)
        if (write(fd, buf, 16) != 16)
            return 1;
    /* last slot first: each write jumps back before the previous one */
    for (int i = 0; i < 60; i++)
        if (pwrite(fd, buf, 32, (off_t)(59 - i) * 32) != 32)
            return 1;
    for (int i = 0; i < 60; i++)
        if (pread(fd, buf, 32, (off_t)((i * 17) % 60) * 32) != 32)
            return 1;
    close(fd);
    child = fork();
    if (child == 0)  /* the child leaks the file and exits normally */
        _exit(open(path, O_RDONLY) < 0);
    waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
EOF
${CC:-cc} -O1 -o "$work/mixed" "$work/mixed.c" || { echo "skip: cannot compile the test program"; exit 77; }

# summary INPUT: one line per issue with what must agree. Every issue, low
# ones too: a finding's time (strace slows every call) decides its severity,
# not whether the two inputs found the same thing
summary() {
    "$IOANALYZE" --min-severity low --rules small_buffer,random_write,random_read,leak \
        --set small_buffer.min_continual_ms=0 \
        --set leak.min_count=1 --set random_write.min_bytes=0 --set random_write.min_extent=0 \
        --set random_read.min_bytes=0 \
        "$1" 2>/dev/null | python3 -c '
import json, sys
for i in sorted(json.load(sys.stdin), key=lambda i: (i["rule"], i["path"])):
    print(i["rule"], i["path"], i["fingerprint"], "repeat=%d" % i["repeat"], "op=%d" % i["op"],
          "opSize=%d" % i["opSize"])'
}

checked=0
for name in mixed fd_leak random_write random_read clean; do
    prog=$S/$name
    [ $name = mixed ] && prog=$work/mixed
    [ -x "$prog" ] || continue
    rm -rf "$work/run" && mkdir "$work/run"
    env $REC_ENV "$IORECORD" --no-stacks -o "$work/$name.zst" "$prog" "$work/run" >/dev/null 2>&1 || not_ok "iorecord $name failed"
    rm -rf "$work/run" && mkdir "$work/run"
    strace -f -tt -T -y -o "$work/$name.log" "$prog" "$work/run" >/dev/null 2>&1 || not_ok "strace $name failed"
    summary "$work/$name.zst" >"$work/$name.rec"
    summary "$work/$name.log" >"$work/$name.str"
    if ! cmp -s "$work/$name.rec" "$work/$name.str"; then
        not_ok "$name: iorecord and strace disagree:
$(diff "$work/$name.rec" "$work/$name.str")"
    fi
    # and diff agrees that nothing changed
    "$IOANALYZE" diff --min-severity low --config "$work/syscall-rules.json" "$work/$name.zst" "$work/$name.log" >/dev/null 2>"$work/err" ||
        not_ok "$name: diff of the trace and the log: $(cat "$work/err")"
    checked=$((checked + 1))
done
[ $checked -ge 4 ] || { echo "skip: the samples are not built"; exit 77; }
# the programs with problems had them found (a silent pair proves nothing)
for rule in small_buffer random_write random_read leak; do
    grep -q "^$rule $work/run/mixed.dat " "$work/mixed.rec" || not_ok "mixed: no $rule: $(cat "$work/mixed.rec")"
done
grep -q "^leak " "$work/fd_leak.rec" || not_ok "fd_leak: no leak: $(cat "$work/fd_leak.rec")"
grep -q "^random_write " "$work/random_write.rec" || not_ok "random_write: $(cat "$work/random_write.rec")"
grep -q "^random_read " "$work/random_read.rec" || not_ok "random_read: $(cat "$work/random_read.rec")"
exit $fail
