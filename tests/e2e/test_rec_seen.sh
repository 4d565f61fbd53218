#!/bin/sh
# Issue 17, "every call seen, every descriptor named, every byte credited to
# the process that moved it": each case of the issue's first heading, with
# tests/progs/rec_cases.c and the shell.
#   pf     20,000 printf calls on an unbuffered, redirected stdout: recorded,
#          their bytes are the file's, small_buffer names the file and rec_cases
#   pc     100,000 fputs(stdout) to a redirected stdout: recorded, bytes
#          equal the file's; unbuffered, judged as the same loop on an
#          fopen'ed stream
#   wr     sh -c './wr > wr.out': the issue names process rec_cases and its
#          thread, and keeps the shell as detail.opened_by
#   forkpipe   the child's fd 3 is the pipe it inherited at the fork, not the
#          /etc/hostname the parent opened as fd 3 afterwards
#   cloexec    close_range(CLOSE_RANGE_CLOEXEC) closes nothing: the 100-byte
#          read after it counts on the file
#   mkstemp    the temp file has a profile row with its bytes
#   (small_buffer runs with min_continual_ms=0: the verdicts, not the timing)
#   unseen syscall(SYS_write/pread64/openat/close) recorded as the calls they
#          are; aio_write and io_uring_setup said in the summary and `info`;
#          a static and a setuid program run by a recorded shell named;
#          ld.so run as a command (static, but it loads the preload into
#          its program) not named, its program recorded;
#          8 reads through an io_uring: io_uring_enter counted as strace
#          counts it, the unseen bytes said; a write through Linux AIO by
#          syscall() as libaio makes it: io_submit recorded, the gap said
#   bash   2,000 `>>` appends, 2,000 `>` writes and 500 writes to an
#          `exec 3>>` fd: bytes per file as strace -f -y sees them
set -u
# e2e: slow (about 10 s here: every case under iorecord and strace)
. "$(dirname "$0")/lib.sh"
PROG=$BUILD/bin/progs/rec_cases
need_built "$IORECORD" "$IOANALYZE" "$PROG"
work_dir seen
cd "$work" || exit 1

# What the preload alone sees and says: as root iorecord would also run the
# kernel path, which records what this test finds missing
# (test_rec_kernel.sh, test_rec_kernel_raw.sh)
rec() {  # TRACE CMD...
    _t=$1; shift
    (asan_preload "$LIBIORECORD"; exec "$IORECORD" --capture preload -o "$_t" -- "$@")
}

# calls and bytes (sum of ret) of OP by process NAME on fd FD, from a JSONL dump
calls_of() {  # JSONL NAME OP FD
    awk -v name="$2" -v op="$3" -v fd="$4" '
        /"ev":"process"/ {
            p = $0; sub(/.*"pid":/, "", p); sub(/[,}].*/, "", p)
            e = $0; sub(/.*"exe":"/, "", e); sub(/".*/, "", e); sub(/.*\//, "", e)
            exe[p] = e
        }
        /"ev":"call"/ && index($0, "\"op\":\"" op "\"") && index($0, "\"fd\":" fd ",") {
            p = $0; sub(/.*"pid":/, "", p); sub(/[,}].*/, "", p)
            if (exe[p] != name) next
            r = $0; sub(/.*"ret":/, "", r); sub(/[,}].*/, "", r)
            n++; if (r + 0 > 0) b += r
        }
        END { print n + 0, b + 0 }' "$1"
}

# a column of the profile row of PATH (summed over its rows)
prof() {  # CSV PATH COLUMN
    awk -F, -v path="$2" -v col="$3" '
        NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
        $2 == path { s += $c }
        END { print s + 0 }' "$1"
}

expect_eq() {  # WHAT GOT WANT
    if [ "$2" = "$3" ]; then echo "ok   $1: $2"; else not_ok "$1: got '$2', want '$3'"; fi
}

# --- pf: printf on an unbuffered stdout
rec pf.zst sh -c "'$PROG' pf 20000 > pf.out" || not_ok "pf run"
"$IOANALYZE" dump --format jsonl pf.zst > pf.jsonl 2>/dev/null
expect_eq "pf printf calls and bytes" "$(calls_of pf.jsonl rec_cases fprintf 1)" \
    "20000 $(stat -c %s pf.out)"
"$IOANALYZE" --rules small_buffer --set small_buffer.min_continual_ms=0 pf.zst > pf.json 2>/dev/null
expect_eq "pf small_buffer issue" \
    "$(python3 -c 'import json,sys; print(" ".join(sorted(i["process"] + ":" + i["path"].split("/")[-1] for i in json.load(open(sys.argv[1])))))' pf.json 2>/dev/null)" \
    "rec_cases:pf.out"

# --- pc: fputs(stdout), and the same loop on an fopen'ed stream
rec pc.zst sh -c "'$PROG' pc 100000 > pc.out" || not_ok "pc run"
"$IOANALYZE" dump --format jsonl pc.zst > pc.jsonl 2>/dev/null
expect_eq "pc fputs calls and bytes" "$(calls_of pc.jsonl rec_cases fputs 1)" \
    "100000 $(stat -c %s pc.out)"
"$IOANALYZE" profile pc.zst > pc.csv 2>/dev/null
expect_eq "pc profile writes" "$(prof pc.csv "$work/pc.out" writes)" 100000
rec pcf.zst "$PROG" pcf 100000 "$work/pcf.out" || not_ok "pcf run"
rec pcu.zst sh -c "'$PROG' pcu 100000 > pcu.out" || not_ok "pcu run"
"$IOANALYZE" --rules small_buffer --set small_buffer.min_continual_ms=0 pcf.zst > pcf.json 2>/dev/null
"$IOANALYZE" --rules small_buffer --set small_buffer.min_continual_ms=0 pcu.zst > pcu.json 2>/dev/null
expect_eq "unbuffered fputs: the same verdict on stdout's file and an fopen'ed one" \
    "$(python3 -c 'import json,sys; print([(i["rule"], i["op"], i["opSize"]) for i in json.load(open(sys.argv[1]))])' pcu.json)" \
    "$(python3 -c 'import json,sys; print([(i["rule"], i["op"], i["opSize"]) for i in json.load(open(sys.argv[1]))])' pcf.json)"

# --- wr: a redirect made by the shell, judged as the writer's
rec wr.zst sh -c "'$PROG' wr 100000 > wr.out" || not_ok "wr run"
"$IOANALYZE" --rules small_buffer --set small_buffer.min_continual_ms=0 wr.zst > wr.json 2>/dev/null
expect_eq "wr small_buffer: process, thread, size of each write, opener" \
    "$(python3 -c '
import json, sys
for i in json.load(open(sys.argv[1])):
    ob = i["detail"].get("opened_by") or {}
    print(i["process"], i["thread"], i["op"], i["opSize"] // i["op"], ob.get("process") != i["process"] and ob.get("pid", 0) > 0)
' wr.json 2>/dev/null)" "rec_cases rec_cases 100000 11 True"

# --- forkpipe: the child's table is the parent's at the fork
rec fp.zst "$PROG" forkpipe || not_ok "forkpipe run"
"$IOANALYZE" profile fp.zst > fp.csv 2>/dev/null
expect_eq "forkpipe /etc/hostname reads" "$(prof fp.csv /etc/hostname reads)" 1
expect_eq "forkpipe /etc/hostname bytes" "$(prof fp.csv /etc/hostname read_bytes)" \
    "$(stat -c %s /etc/hostname)"

# --- cloexec: close_range(CLOSE_RANGE_CLOEXEC) then a 100-byte read
head -c 1000 /dev/zero > ce.dat
rec ce.zst "$PROG" cloexec "$work/ce.dat" || not_ok "cloexec run"
"$IOANALYZE" profile ce.zst > ce.csv 2>/dev/null
expect_eq "cloexec read after close_range" "$(prof ce.csv "$work/ce.dat" read_bytes)" 100

# --- mkstemp: the temp file is named
rec mk.zst "$PROG" mkstemp "$work" > mk.out || not_ok "mkstemp run"
"$IOANALYZE" profile mk.zst > mk.csv 2>/dev/null
expect_eq "mkstemp file bytes" "$(prof mk.csv "$(cat mk.out)" write_bytes)" 12288

# --- what no wrapper can follow is said: syscall(), aio, io_uring, static and setuid programs
rec sys.zst "$PROG" sysrw "$work/sys.dat" || not_ok "sysrw run"
"$IOANALYZE" profile sys.zst > sys.csv 2>/dev/null
expect_eq "syscall() I/O: opens, writes, write bytes, reads, read bytes" \
    "$(for c in opens writes write_bytes reads read_bytes; do prof sys.csv "$work/sys.dat" $c; done | tr '\n' ' ')" \
    "1 100 1000 10 100 "
rec as.zst "$PROG" async "$work/as.dat" || not_ok "async run"
"$IOANALYZE" as.zst > /dev/null 2> as.err
"$IOANALYZE" info as.zst > as.info 2>/dev/null
expect_eq "async I/O in the summary" \
    "$(grep -c 'async I/O (io_uring, aio) on [0-9]* fds\{0,1\} not analysed (2 calls)' as.err)" 1
expect_eq "info lists aio_write and io_uring_setup" \
    "$(grep -c -e ' aio_write: 1 call' -e ' io_uring_setup: 1 call' as.info)" 2
# Linux AIO through syscall(), as libaio makes it: io_submit recorded with
# its request (fd, size), the write's bytes not seen, the gap said
rec ka.zst "$PROG" kaio "$work/ka.dat"
case $? in
2) echo "(Linux AIO refused here: its gap not checked)" ;;
0)
    "$IOANALYZE" ka.zst > /dev/null 2> ka.err
    "$IOANALYZE" info ka.zst > ka.info 2>/dev/null
    "$IOANALYZE" profile ka.zst > ka.csv 2>/dev/null
    expect_eq "Linux AIO: the file holds the write" "$(wc -c < ka.dat)" 4096
    expect_eq "Linux AIO: io_submit recorded" "$(grep -c ' io_submit: 1 call' ka.info)" 1
    expect_eq "Linux AIO: the request's size" \
        "$("$IOANALYZE" dump --format jsonl ka.zst | grep -c '"op":"async".*"mode":"io_submit".*"size":4096')" 1
    expect_eq "Linux AIO: the gap, no write bytes in the profile" "$(prof ka.csv "$work/ka.dat" write_bytes)" 0
    expect_eq "Linux AIO: the gap said in the summary" \
        "$(grep -c 'async I/O (io_uring, aio) on 1 fd not analysed (1 call)' ka.err)" 1
    ;;
*) not_ok "kaio run" ;;
esac

# io_uring: the reads happen in the kernel, where no wrapper is; each
# io_uring_enter is recorded (strace -f counts the same) and the gap is said
head -c 40000 /dev/urandom > ur.dat
rec ur.zst "$PROG" uring "$work/ur.dat" 8 > ur.out
case $? in
2) echo "(io_uring refused here: its gap not checked)" ;;
0)
    "$IOANALYZE" ur.zst > /dev/null 2> ur.err
    "$IOANALYZE" info ur.zst > ur.info 2>/dev/null
    "$IOANALYZE" profile ur.zst > ur.csv 2>/dev/null
    expect_eq "io_uring: bytes the program read" "$(cat ur.out)" 32768
    expect_eq "io_uring: io_uring_enter calls recorded" "$(grep -c ' io_uring_enter: 8 calls' ur.info)" 1
    if command -v strace > /dev/null 2>&1 && strace -f -o ur.st "$PROG" uring "$work/ur.dat" 8 > /dev/null; then
        expect_eq "io_uring: io_uring_enter calls as strace -f counts them" \
            "$(grep -c 'io_uring_enter(' ur.st)" 8
    fi
    expect_eq "io_uring: the gap, no read bytes in the profile" "$(prof ur.csv "$work/ur.dat" read_bytes)" 0
    expect_eq "io_uring: the gap said in the summary" \
        "$(grep -c 'async I/O (io_uring, aio) on 1 fd not analysed (9 calls)' ur.err)" 1
    ;;
*) not_ok "uring run" ;;
esac
if [ -x /sbin/ldconfig ] && ! file -L /sbin/ldconfig 2>/dev/null | grep -q interpreter; then
    rec un.zst sh -c '/sbin/ldconfig -p > /dev/null' || not_ok "ldconfig run"
    "$IOANALYZE" un.zst > /dev/null 2> un.err
    expect_eq "a static program run by a recorded shell is named" \
        "$(grep -c '1 process ran unrecorded: /sbin/ldconfig (static)' un.err)" 1
    rec unx.zst sh -c 'exec /sbin/ldconfig -p > /dev/null' || not_ok "ldconfig exec"
    "$IOANALYZE" unx.zst > /dev/null 2> unx.err
    expect_eq "a static program exec'd by a recorded shell is named" \
        "$(grep -c '1 process ran unrecorded: /sbin/ldconfig (static)' unx.err)" 1
fi
# The dynamic loader run as a command is static too, but it loads the
# preload into the program it runs: that program is recorded (its reads of
# /etc/hostname as many as natively recorded) and nothing is said unseen,
# whether the shell spawned the loader or exec'd it.
ldso=$(file -L /bin/cat 2>/dev/null | sed -n 's/.*interpreter \([^,]*\),.*/\1/p')
if [ -x "$ldso" ] && [ -z "$(asan_runtime "$LIBIORECORD")" ]; then
    rec ld0.zst cat /etc/hostname > /dev/null || not_ok "cat run"
    host_reads() {
        "$IOANALYZE" dump --format jsonl --path /etc/hostname --op read "$1" 2>/dev/null |
            grep -c '"ev":"call"'
    }
    want=$(host_reads ld0.zst)
    for how in "" exec; do
        rec ld.zst sh -c "$how $ldso /bin/cat /etc/hostname > /dev/null" || not_ok "ld.so ${how:-spawn} run"
        "$IOANALYZE" ld.zst > ld.json 2> ld.err
        expect_eq "ld.so ${how:-spawned}: its program's reads recorded" "$(host_reads ld.zst)" "$want"
        expect_eq "ld.so ${how:-spawned}: nothing said unrecorded" \
            "$(grep -c -e 'ran unrecorded' -e '"rule": "unobserved"' ld.err ld.json | awk -F: '{ s += $2 } END { print s }')" 0
    done
else
    skip_part "ld.so as a command" "no dynamic loader named by /bin/cat's interpreter, or an ASan build"
fi
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 && [ -x /bin/true ]; then
    cp /bin/true suid_true && chown nobody suid_true && chmod u+s suid_true
    rec su.zst sh -c "'$work/suid_true'" || not_ok "setuid run"
    "$IOANALYZE" info su.zst > su.info 2>/dev/null
    expect_eq "a setuid program run by a recorded shell is named" \
        "$(grep -c "exec'd $work/suid_true unrecorded (setuid)" su.info)" 1
fi

# --- bash: >, >> and exec 3>>, against strace -f -y
if have bash && have strace && strace -f -o /dev/null true 2>/dev/null &&
   [ -z "$(asan_runtime "$LIBIORECORD")" ]; then
    cat > sh.bash <<'EOF'
cd "$1"
for i in $(seq 2000); do echo "append $i" >> app.txt; done
for i in $(seq 2000); do echo "over $i" > over.txt; done
exec 3>> fd3.txt
for i in $(seq 500); do echo "fd3 $i" >&3; done
EOF
    mkdir st rc
    strace -f -y -s 0 -o bash.st bash sh.bash "$work/st" || not_ok "bash under strace"
    rec bash.zst bash sh.bash "$work/rc" || not_ok "bash recorded"
    "$IOANALYZE" profile bash.zst > bash.csv 2>/dev/null
    for f in app.txt over.txt fd3.txt; do
        want=$(awk -v f="/st/$f>" '/^[0-9]+ +write\(/ && index($0, f) {
                   r = $0; sub(/.*\) += /, "", r); b += r } END { print b + 0 }' bash.st)
        expect_eq "bash bytes written to $f (strace: $want)" \
            "$(prof bash.csv "$work/rc/$f" write_bytes)" "$want"
    done
fi

exit $fail
