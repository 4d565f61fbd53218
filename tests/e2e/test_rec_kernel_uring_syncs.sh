#!/bin/sh
# io_uring syncs through the kernel path (as root): a program that writes a
# file in 4 KiB io_uring writes, fsyncs through the ring after each of its
# first 200 writes, fills it without syncs and reads it back gets one
# sync_storm issue on every run, whatever the syncs took here: 200 syncs,
# 4096 bytes written per sync (the bytes between syncs, not the file's
# bytes over 200), and no stack (the ring's requests carry none) rather
# than the open's. The program prints and exits the same recorded or not.
# Needs root, a kernel with BTF, a build with the kernel path and
# liburing-dev (each skipped with its reason when missing).
set -u
. "$(dirname "$0")/lib.sh"
need_built "$IORECORD" "$IOANALYZE"
# a sanitizer build's recorded runs put its runtime first
REC_ENV=$(asan_env "$LIBIORECORD")
have cc || skip "cc is needed"
[ -e /usr/include/liburing.h ] || skip "liburing-dev is not installed"
work_dir kernel-uring-syncs
cd "$work" || exit 1
[ "$(id -u)" = 0 ] || skip "the kernel capture path needs root"
env $REC_ENV "$IORECORD" --capture kernel -o probe.zst true 2> probe.err
if [ $? != 0 ]; then
    grep -q 'kernel capture' probe.err || die "--capture kernel: $(cat probe.err)"
    skip "kernel capture unavailable: $(sed 's/^iorecord: //' probe.err | head -n 1)"
fi

cat > uring.c <<'C'
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#define BS 4096
#define N 4096
static struct io_uring ring;
static int wait1(void) { struct io_uring_cqe *c; int r = io_uring_wait_cqe(&ring, &c);
    if (r < 0) { fprintf(stderr, "wait %d\n", r); exit(1); } r = c->res;
    io_uring_cqe_seen(&ring, c); return r; }
int main(int argc, char **argv) {
    int fd = open(argv[1], O_CREAT | O_RDWR | O_TRUNC, 0644);
    unsigned long sum = 0;
    char *buf = aligned_alloc(4096, BS);
    if (fd < 0 || io_uring_queue_init(64, &ring, 0) < 0) return 1;
    for (int i = 0; i < N; i++) {
        struct io_uring_sqe *s = io_uring_get_sqe(&ring);
        memset(buf, (char)i, BS);
        io_uring_prep_write(s, fd, buf, BS, (off_t)i * BS);
        io_uring_submit(&ring);
        if (wait1() != BS) return 1;
        if (i < 200) { s = io_uring_get_sqe(&ring); io_uring_prep_fsync(s, fd, 0);
            io_uring_submit(&ring); if (wait1() < 0) return 1; }
    }
    for (int i = 0; i < N; i++) {
        struct io_uring_sqe *s = io_uring_get_sqe(&ring);
        io_uring_prep_read(s, fd, buf, BS, (off_t)i * BS);
        io_uring_submit(&ring);
        if (wait1() != BS) return 1;
        sum += (unsigned char)buf[0];
    }
    close(fd); io_uring_queue_exit(&ring);
    printf("writes=%d fsyncs=200 reads=%d sum=%lu\n", N, N, sum);
    return 0; }
C
cc -O1 -g -o uring uring.c -luring || die "cc uring.c -luring"
./uring native.dat > native.out; native_rc=$?
env $REC_ENV "$IORECORD" -o u.zst -- ./uring rec.dat > rec.out; rc=$?
[ $rc = $native_rc ] || not_ok "exit $rc recorded, $native_rc without the recorder"
cmp -s native.out rec.out || not_ok "output differs: '$(cat rec.out)' vs '$(cat native.out)'"
"$IOANALYZE" dump --format jsonl u.zst > u.jsonl || die "dump u.zst"
got=$(grep -c "\"op\":\"fsync\".*\"path\":\"$work/rec.dat\"" u.jsonl)
[ "$got" = 200 ] || not_ok "$got fsyncs of rec.dat in the trace, not 200"
"$IOANALYZE" --format json --rules sync_storm --min-severity low u.zst > u.json 2> u.err ||
    die "ioanalyze u.zst: $(cat u.err)"
python3 - "$work/rec.dat" u.json <<'PY' || not_ok "the sync_storm issue's facts (above)"
import json, sys
path, issues = sys.argv[1], json.load(open(sys.argv[2]))
got = [i for i in issues if i["rule"] == "sync_storm" and i["path"] == path]
want = dict(repeat=200, op=200, opSize=200 * 4096, stack="")
if len(got) != 1:
    sys.exit(print("FAIL: %d sync_storm issues on %s, not 1: %s" % (len(got), path, issues)) or 1)
i = got[0]
bad = {k: i[k] for k in want if i[k] != want[k]}
d = i["detail"]
if d["bytes_per_sync"] != 4096 or d["syncs"] != 200 or d["writes"] != 200:
    bad["detail"] = d
if bad:
    sys.exit(print("FAIL: expected %s, got %s" % (want, bad)) or 1)
PY
exit $fail
