#!/bin/sh
# No silent blind spot: what the preload cannot see is an issue (rule
# unobserved) in every output, and a CI gate fails on it. A shell runs a
# static C program twice (one issue, two occurrences), a cgo Go program
# makes its 1000 writes through the Go runtime's raw system calls, and a
# liburing program writes 1000 bytes through its ring: each was "no issues"
# and exit 0 before. The programs' output and exit status are the same
# with and without the recorder. Recorded by the preload alone (as a user
# without the privilege for the kernel path records); where the kernel path
# runs, the same runs recorded by iorecord's default are seen, and no
# unobserved issue is left. Go and liburing halves skip (said once) when
# golang-go or liburing-dev is missing.
# e2e: slow (about 5 s CPU here: Go, liburing and kernel halves)
set -u
. "$(dirname "$0")/lib.sh"
# the text report's lines as wide as they are (its wrapping to the
# terminal's width is tests/e2e/test_an_report_width.sh's)
COLUMNS=1000
export COLUMNS
need_built "$IORECORD" "$IOANALYZE" "$LIBIORECORD"
have cc || skip "no C compiler"
work_dir unobserved
cd "$work" || exit 1

cat > small_writes.c <<'C'
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    int fd = open(argc > 1 ? argv[1] : "out.bin", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    for (int i = 0; i < 1000; i++)
        if (write(fd, "x", 1) != 1)
            return 1;
    close(fd);
    printf("wrote 1000\n");
    return 3;
}
C
cc -static -O2 -o static_writes small_writes.c 2>/dev/null || skip "cannot link a static program here"

# $1 file $2 rule: "why:occurrences" of each unobserved issue, in order
whys() {
    /usr/bin/python3 -c '
import json, sys
for i in json.load(open(sys.argv[1])):
    if i["rule"] == "unobserved":
        print("%s:%s:%s" % (i["detail"]["why"], i["detail"]["occurrences"], i["severity"]))' "$1"
}

# same output and status with and without the recorder, then every output names it
native=$(sh -c './static_writes a.bin; ./static_writes b.bin'; echo "status $?")
recorded=$( (asan_preload "$LIBIORECORD"
            exec "$IORECORD" --capture preload -o static.zst -- \
                sh -c './static_writes a.bin; ./static_writes b.bin' 2>/dev/null)
           echo "status $?")
[ "$native" = "$recorded" ] || not_ok "static: '$recorded' recorded, '$native' native"
"$IOANALYZE" static.zst > static.json 2>/dev/null
[ "$(whys static.json)" = "static:2:medium" ] || not_ok "static: issues $(whys static.json)"
"$IOANALYZE" --fail-on-issues static.zst > /dev/null 2>&1
[ $? -eq 1 ] || not_ok "static: --fail-on-issues does not fail"
"$IOANALYZE" --format text static.zst > static.txt 2>/dev/null
grep -q "a statically linked program the preload cannot enter" static.txt ||
    not_ok "static: the text report does not say so"
grep -q "No issues" static.txt && not_ok "static: the text report says No issues"
"$IOANALYZE" --format sarif static.zst > static.sarif 2>/dev/null
/usr/bin/python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]["results"]
sys.exit(0 if [x["ruleId"] for x in r] == ["unobserved"] else 1)' static.sarif ||
    not_ok "static: SARIF does not hold one unobserved result"
"$IOANALYZE" info static.zst > static.info 2>/dev/null
grep -q "exec'd ./static_writes unrecorded (static)" static.info || not_ok "static: info"

if have go; then
    mkdir gocgo && cat > gocgo/main.go <<'GO'
package main

/*
int twice(int x) { return 2 * x; }
*/
import "C"
import (
	"fmt"
	"os"
)

func main() {
	f, err := os.Create("go.bin")
	if err != nil {
		os.Exit(2)
	}
	for i := 0; i < 1000; i++ {
		f.Write([]byte("x"))
	}
	f.Close()
	fmt.Println(C.twice(21))
}
GO
    printf 'module gocgo\ngo 1.19\n' > gocgo/go.mod
    if (cd gocgo && HOME=$work GOCACHE=$work/gocache GOFLAGS=-mod=mod CGO_ENABLED=1 \
            go build -o ../cgo_writes . ) > go.log 2>&1; then
        native=$(./cgo_writes; echo "status $?")
        recorded=$( (asan_preload "$LIBIORECORD"
                    exec "$IORECORD" --capture preload -o go.zst -- ./cgo_writes 2>/dev/null)
                   echo "status $?")
        [ "$native" = "$recorded" ] || not_ok "go: '$recorded' recorded, '$native' native"
        "$IOANALYZE" go.zst > go.json 2>/dev/null
        [ "$(whys go.json)" = "go:1:medium" ] || not_ok "go: issues $(whys go.json)"
    else
        skip_part "Go half" "go build failed: $(tail -1 go.log)"
    fi
else
    skip_part "Go half" "golang-go is not installed"
fi

if [ -e /usr/include/liburing.h ]; then
    cat > uring.c <<'C'
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <unistd.h>
int main(void)
{
    struct io_uring ring;
    int fd = open("uring.bin", O_WRONLY | O_CREAT | O_TRUNC, 0644);

    if (fd < 0 || io_uring_queue_init(8, &ring, 0) < 0)
        return 1;
    for (int i = 0; i < 1000; i++) {
        struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
        struct io_uring_cqe *cqe;

        io_uring_prep_write(sqe, fd, "x", 1, (unsigned long long)i);
        io_uring_submit(&ring);
        if (io_uring_wait_cqe(&ring, &cqe) < 0 || cqe->res != 1)
            return 1;
        io_uring_cqe_seen(&ring, cqe);
    }
    io_uring_queue_exit(&ring);
    close(fd);
    printf("ring wrote 1000\n");
    return 0;
}
C
    cc -O2 -o uring_writes uring.c -luring || die "cannot build the liburing program"
    native=$(./uring_writes; echo "status $?")
    recorded=$( (asan_preload "$LIBIORECORD"
                exec "$IORECORD" --capture preload -o uring.zst -- ./uring_writes 2>/dev/null)
               echo "status $?")
    [ "$native" = "$recorded" ] || not_ok "liburing: '$recorded' recorded, '$native' native"
    "$IOANALYZE" uring.zst > uring.json 2>/dev/null
    [ "$(whys uring.json)" = "liburing:1:medium" ] || not_ok "liburing: issues $(whys uring.json)"
else
    skip_part "liburing half" "liburing-dev is not installed"
fi

# where the kernel path can run, it sees what the preload could not: the
# same programs recorded by the default give no unobserved issue, and the
# summary names no program as unrecorded
if (asan_preload "$LIBIORECORD"; exec "$IORECORD" --capture kernel -o probe.zst -- true) \
        >/dev/null 2>&1; then
    for prog in static_writes cgo_writes uring_writes; do
        [ -x "$prog" ] || continue
        (asan_preload "$LIBIORECORD"; exec "$IORECORD" -o "k_$prog.zst" -- sh -c "./$prog a.bin") \
            >/dev/null 2>&1
        "$IOANALYZE" --min-severity low "k_$prog.zst" > "k_$prog.json" 2>"k_$prog.err"
        [ -z "$(whys "k_$prog.json")" ] || not_ok "kernel path, $prog: $(whys "k_$prog.json")"
        grep -q "ran unrecorded" "k_$prog.err" && not_ok "kernel path, $prog: $(cat "k_$prog.err")"
    done
else
    skip_part "kernel half" "the kernel capture path cannot run here"
fi

exit $fail
