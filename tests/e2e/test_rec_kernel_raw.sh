#!/bin/sh
# What no preload sees, recorded by the kernel path as root with a plain
# `iorecord CMD`: a static Go program and a cgo Go program (whose writes are
# Go's own syscalls) doing 1000 one-byte writes and 200 reopens give the
# same issues as their C twin under the preload, with each call once, also
# as children of a shell (which asks for the kernel path only then); a
# liburing program's 1000 writes are counted, once, and so are those of a
# program that drives its ring through syscall() (the preload asks at
# io_uring_setup). Needs root, a kernel
# with BTF, a build with the kernel path, and golang-go / liburing-dev for
# their parts (each skipped with its reason when missing).
set -u
. "$(dirname "$0")/lib.sh"
need_built "$IORECORD" "$IOANALYZE" "$BUILD/bin/progs/rec_smallio"
REC_ENV=$(asan_env "$LIBIORECORD")
[ -z "$REC_ENV" ] || export $REC_ENV
work_dir kernel-raw
cd "$work" || exit 1

[ "$(id -u)" = 0 ] || skip "the kernel capture path needs root"
"$IORECORD" --capture kernel -o probe.zst true 2> probe.err
if [ $? != 0 ]; then
    grep -q 'kernel capture' probe.err || die "--capture kernel: $(cat probe.err)"
    skip "kernel capture unavailable: $(sed 's/^iorecord: //' probe.err | head -n 1)"
fi

# calls TRACE OP PATH: the calls of OP on PATH in TRACE
calls() {
    "$IOANALYZE" dump --format jsonl "$1" | grep -c "\"op\":\"$2\".*\"path\":\"$3\""
}
# issues TRACE: its rules, sorted (every severity; repeat_read judges by
# time windows of 13 and 17 ms, by how fast the run went rather than by its
# calls, and is left out)
issues() {
    "$IOANALYZE" analyze --min-severity low --disable repeat_read --format json "$1" 2>/dev/null |
        sed -n 's/.*"rule": *"\([a-z_]*\)".*/\1/p' | sort | tr '\n' ' '
}

# the C twin under the preload
"$IORECORD" -o c.zst "$BUILD/bin/progs/rec_smallio" c.dat || die "the C twin's run failed"
c_issues=$(issues c.zst)
[ -n "$c_issues" ] || die "the C twin has issues"

# twin NAME PROGRAM: PROGRAM recorded as the C twin is, and checked against it
twin() {
    "./$2" n.dat; native_rc=$?
    "$IORECORD" -o "$1.zst" "./$2" "$1.dat"; rc=$?
    [ $rc = $native_rc ] || not_ok "$1: exit $rc, $native_rc without the recorder"
    [ "$(calls "$1.zst" write "$work/$1.dat")" = 1000 ] ||
        not_ok "$1: $(calls "$1.zst" write "$work/$1.dat") writes, not 1000"
    [ "$(calls "$1.zst" open "$work/$1.dat")" = 201 ] ||
        not_ok "$1: $(calls "$1.zst" open "$work/$1.dat") opens, not 201"
    [ "$(calls "$1.zst" close "$work/$1.dat")" = 201 ] ||
        not_ok "$1: $(calls "$1.zst" close "$work/$1.dat") closes, not 201"
    [ "$(issues "$1.zst")" = "$c_issues" ] ||
        not_ok "$1: issues '$(issues "$1.zst")', the C twin's '$c_issues'"
}

if have go; then
    export GOCACHE="$work/gocache" GOPATH="$work/gopath" GOFLAGS=-mod=mod GOPROXY=off
    cp -r "$TOP/tests/go/smallio" gosrc
    (cd gosrc && CGO_ENABLED=0 go build -o ../go_static .) || die "go build (static) failed"
    twin go_static go_static
    # 1607: its file calls, and the two fds the Go runtime's netpoller
    # makes (epoll_create1, pipe2), which the kernel path follows as fds
    "$IOANALYZE" info go_static.zst | grep -q '^  pid [0-9]*: 1607 file calls recorded by the kernel path$' ||
        not_ok "go_static: info's coverage line"
    if (cd gosrc && CGO_ENABLED=1 go build -o ../go_cgo .) 2> cgo.err; then
        twin go_cgo go_cgo
        # the preload recorded the process; the kernel its Go syscalls
        "$IOANALYZE" dump --format jsonl go_cgo.zst | grep -q '"op":"pthread_create"' ||
            not_ok "go_cgo: the preload recorded it too"
        "$IOANALYZE" info go_cgo.zst |
            grep -q '^  pid [0-9]*: recorded by the preload; the kernel saw 1607 file syscalls it did not' ||
            not_ok "go_cgo: info's coverage line: $("$IOANALYZE" info go_cgo.zst | grep -A2 coverage:)"
        # a shell (which loads no BPF program) running both: each asks for
        # the kernel path, and each call is there once, none unobserved
        "$IORECORD" -o tree.zst sh -c "./go_cgo t1.dat; ./go_static t2.dat; echo hi > t3.dat" ||
            not_ok "tree: the run failed"
        for f in t1 t2; do
            for op in write open close; do
                n=$(calls tree.zst $op "$work/$f.dat")
                case $op in write) want=1000 ;; *) want=201 ;; esac
                [ "$n" = $want ] || not_ok "tree: $f.dat: $n ${op}s, not $want"
            done
        done
        [ "$(calls tree.zst write "$work/t3.dat")" = 1 ] || not_ok "tree: the shell's write"
        "$IOANALYZE" analyze --min-severity low --format json tree.zst 2>/dev/null |
            grep -q '"rule": "unobserved"' && not_ok "tree: a Go child is said unobserved"
    else
        echo "(skipped the cgo program: $(tail -n 1 cgo.err))"
    fi
else
    echo "(skipped the Go programs: golang-go is not installed)"
fi

if [ -e /usr/include/liburing.h ] && ${CC:-cc} -O1 -o uring_write "$TOP/tests/uring/uring_write.c" -luring 2>/dev/null; then
    "$IORECORD" -o u.zst ./uring_write u.dat || not_ok "liburing: the run failed"
    [ "$(calls u.zst pwrite "$work/u.dat")" = 1000 ] ||
        not_ok "liburing: $(calls u.zst pwrite "$work/u.dat") writes, not 1000"
    [ "$(calls u.zst open "$work/u.dat")" = 1 ] || not_ok "liburing: the open once"
    [ "$(calls u.zst close "$work/u.dat")" = 1 ] || not_ok "liburing: the close once"
else
    echo "(skipped the liburing program: liburing-dev is not installed)"
fi

# io_uring set up and entered by libc's syscall(), as fio's engine does: the
# preload asks for the kernel path at io_uring_setup, which then records the
# ring's 1000 writes; the summary counts them and no unanalysed async I/O
if [ -e /usr/include/linux/io_uring.h ] &&
   ${CC:-cc} -O1 -o uring_raw "$TOP/tests/uring/uring_raw.c" 2>/dev/null; then
    "$IORECORD" -o ur.zst ./uring_raw ur.dat || not_ok "raw io_uring: the run failed"
    [ "$(calls ur.zst pwrite "$work/ur.dat")" = 1000 ] ||
        not_ok "raw io_uring: $(calls ur.zst pwrite "$work/ur.dat") writes, not 1000"
    "$IOANALYZE" analyze ur.zst > /dev/null 2> ur.err
    grep -q 'from 1 process;' ur.err || not_ok "raw io_uring: $(cat ur.err)"
    grep -q 'not analysed' ur.err && not_ok "raw io_uring: its covered ring said unanalysed: $(cat ur.err)"
    "$IORECORD" --capture preload -o up.zst ./uring_raw up.dat || not_ok "raw io_uring: the preload run failed"
    "$IOANALYZE" analyze up.zst > /dev/null 2> up.err
    grep -q 'async I/O (io_uring, aio) on 1 fd not analysed (1001 calls)' up.err ||
        not_ok "raw io_uring, preload alone: the gap is not said: $(cat up.err)"
else
    echo "(skipped the raw io_uring program: no linux/io_uring.h)"
fi

exit $fail
