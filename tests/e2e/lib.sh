# lib.sh - shared by the e2e tests (sourced, never run on its own). Each test
# starts with
#     . "$(dirname "$0")/lib.sh"
# which sets what every test starts from:
#   TOP          the source tree: run.sh exports it, and a test run on its own
#                (BUILD=build sh tests/e2e/test_x.sh) finds it from $0
#   BUILD        the build tree, made absolute (a relative one is under TOP)
#                so that a test can cd into its work directory and still
#                find the programs
#   IOANALYZE, IORECORD, LIBIORECORD
#                what the build makes; a test names what it needs with
#                need_built, since a partial build skips rather than fails
# and the helpers below. A test exits 0 (pass), 77 (skipped, with the reason
# as its last line, which run.sh shows) or anything else (fail); a part of
# it that cannot run here is named with skip_part.

TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
IOANALYZE=$BUILD/bin/ioanalyze
IORECORD=$BUILD/bin/iorecord
LIBIORECORD=$BUILD/lib/libiorecord.so
# The symbol cache (analyzer/engine/symcache.h) stays in memory: no test
# reads symbols another test, or an earlier run, left on disk. A test of the
# disk cache sets XDG_CACHE_HOME to its own directory and unsets this.
IOSCOPE_SYMCACHE=0
export IOSCOPE_SYMCACHE

# skip REASON: end the test as skipped.
skip() {
    echo "skip: $*"
    exit 77
}

# skip_part PART REASON: a part of the test is not run here. One line,
# "SKIP PART: REASON", which run.sh counts and lists in its summary: a test
# that passes while a part of it did not run says so.
skip_part() {
    _part=$1
    shift
    echo "SKIP $_part: $*"
}

# need_built FILE...: skip unless every FILE has been built.
need_built() {
    for _f in "$@"; do
        [ -e "$_f" ] || skip "'$_f' is not built"
    done
}

# have COMMAND: whether COMMAND is installed.
have() {
    command -v "$1" >/dev/null 2>&1
}

# need_strace: skip unless strace is installed and may trace here (a
# container may deny ptrace).
need_strace() {
    have strace || skip "strace is not installed"
    strace -f -o /dev/null true 2>/dev/null || skip "strace cannot trace here (ptrace denied)"
}

# npm_package DIR PACKAGE SECONDS: whether npm's PACKAGE is installed under
# DIR. The tests fetch nothing from the network unless asked: npm installs it
# there (within SECONDS) only when IOSCOPE_NPM=1; otherwise, or when that
# fails, a skip_part line names the part that needs it and why. Uses $work
# (work_dir) for npm's log.
npm_package() {
    [ -d "$1/node_modules/$2" ] && return 0
    if [ "${IOSCOPE_NPM:-0}" != 1 ]; then
        skip_part "$2" "IOSCOPE_NPM=1 lets npm fetch it"
        return 1
    fi
    have npm || { skip_part "$2" "npm is not installed"; return 1; }
    mkdir -p "$1" &&
        timeout "$3" npm install --prefix "$1" --no-audit --no-fund "$2" >"$work/npm.log" 2>&1 &&
        return 0
    skip_part "$2" "npm install failed: $(tail -n 1 "$work/npm.log")"
    return 1
}

# work_dir NAME: $work, a new directory for the test's files, removed however
# the test ends. INT and TERM exit so that the EXIT trap runs: a trap on them
# that only removed the directory would let the test carry on without it.
work_dir() {
    work=$(mktemp -d "${TMPDIR:-/tmp}/ioscope-$1.XXXXXX") || exit 1
    trap cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
}

# What the EXIT trap runs; a test with more to undo defines its own.
cleanup() {
    rm -rf "$work"
}

# The two ways a check fails, named as git's test library names them.
#
# not_ok MESSAGE: report a failed check and go on, so that one run shows
# every failure; a test that uses it ends with `exit $fail`.
fail=0
not_ok() {
    echo "FAIL: $*"
    fail=1
}

# die MESSAGE: report a failed check and stop the test there, for checks
# that the later ones build on.
die() {
    echo "FAIL: $*"
    exit 1
}

# hang_report PID: what PID and every process under it are doing, for a
# test about to give up on a run that did not end: each thread's state and
# kernel wait channel and, where gdb is installed, the first processes'
# stacks. Printed with the failure, so that a hang seen once (on CI, say)
# can be understood from its log.
hang_report() {
    # the tree from /proc (ps may not be installed): "pid ppid" per process
    _tree=$(awk '{ pid = $1; sub(/^.*\) /, ""); print pid, $2 }' /proc/[0-9]*/stat 2>/dev/null)
    _all=$1
    _level=$1
    while [ -n "$_level" ]; do
        _level=$(echo "$_tree" | awk -v l=" $_level " 'index(l, " " $2 " ") { print $1 }')
        _level=$(echo $_level)
        _all="$_all $_level"
    done
    # every process first (quick), then the stacks (gdb takes seconds each)
    for _p in $_all; do
        [ -d "/proc/$_p" ] || continue
        echo "== pid $_p: $(tr '\0' ' ' <"/proc/$_p/cmdline" 2>/dev/null | cut -c1-160)"
        for _t in /proc/$_p/task/*; do
            echo "   tid ${_t##*/} state $(sed 's/.*) //' "$_t/stat" 2>/dev/null | cut -d' ' -f1) wchan $(cat "$_t/wchan" 2>/dev/null)"
        done
    done
    have gdb || return 0
    _n=0
    for _p in $_all; do
        [ -d "/proc/$_p" ] && [ $_n -lt 8 ] || continue
        _n=$((_n + 1))
        echo "== stacks of pid $_p"
        timeout 30 gdb -p "$_p" -batch -nx -iex 'set debuginfod enabled off' \
            -ex 'thread apply all bt 16' 2>/dev/null | grep -E '^(Thread |#)' | head -n 400
    done
}

# wait_watched PID LIMIT FILE: wait for PID (a run under `timeout LIMIT`)
# and return its status; when it still runs 30 s before LIMIT, a watcher
# writes hang_report PID to FILE for the failure to print. The watcher
# sleeps meanwhile, and goes with its sleep when the run ends first.
wait_watched() {
    (trap 'kill $_sleep 2>/dev/null; exit 0' TERM
     sleep $(($2 - 30)) &
     _sleep=$!
     wait $_sleep
     kill -0 "$1" 2>/dev/null && hang_report "$1" >"$3" 2>&1) >/dev/null 2>&1 &
    _watcher=$!
    wait "$1"
    _rc=$?
    kill "$_watcher" 2>/dev/null
    wait "$_watcher" 2>/dev/null
    return $_rc
}

# A preload library built with AddressSanitizer (make asan) only loads after
# the ASan runtime, so recorded runs put that runtime first. Leak checks are
# the traced program's business, not ours, so they are off there.

# The ASan runtime the library $1 needs loaded first; nothing for a plain build.
asan_runtime() {
    ldd "$1" 2>/dev/null | awk '/libasan/ { print $3 }'
}

# Export LD_PRELOAD and ASAN_OPTIONS for a sanitized library $1 (no-op otherwise).
asan_preload() {
    ASAN_RT=$(asan_runtime "$1")
    if [ -n "$ASAN_RT" ]; then
        LD_PRELOAD=$ASAN_RT${LD_PRELOAD:+:$LD_PRELOAD}
        # last: ASan takes the last value of an option (make asan sets detect_leaks=1)
        ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
        export LD_PRELOAD ASAN_OPTIONS
    fi
}

# The same as words for `env`: "LD_PRELOAD=... ASAN_OPTIONS=detect_leaks=0",
# or nothing for a plain build.
asan_env() {
    ASAN_RT=$(asan_runtime "$1")
    if [ -n "$ASAN_RT" ]; then
        echo "LD_PRELOAD=$ASAN_RT ASAN_OPTIONS=detect_leaks=0"
    fi
}
