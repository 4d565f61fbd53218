#!/bin/sh
# A program run with a sanitizer's runtime (here gcc's libasan, preloaded
# as a sanitized build loads it) calls read and write through the
# runtime's interceptors, which then call the C library, and so the
# recorder: the recorded stack's top frame is the interceptor's. The issue
# must still be placed at the program's own code, and fingerprinted as
# the same program's issue without the runtime: same fingerprint, same
# frames, for the sample random_write recorded both ways in one directory.
. "$(dirname "$0")/lib.sh"
need_built "$IOANALYZE" "$IORECORD" "$LIBIORECORD" "$BUILD/bin/samples/random_write"
have python3 || skip "python3 is needed"
ASAN_SO=$(${CC:-cc} -print-file-name=libasan.so 2>/dev/null)
case $ASAN_SO in /*) [ -e "$ASAN_SO" ] ;; *) false ;; esac ||
    skip "no libasan.so from '${CC:-cc}' (Debian: libasan8)"
work_dir sanitizer_frames
mkdir "$work/d" || exit 1

# run NAME [RUNTIME]: random_write recorded in $work/d (with RUNTIME
# preloaded), each issue's rule, fingerprint and stack as a line of
# $work/NAME.issues
run() {
    rm -rf "$work/d" && mkdir "$work/d"
    # a sanitized build preloads the runtime in both runs (asan_preload)
    (asan_preload "$LIBIORECORD"
     if [ -n "$2" ] && [ -z "$ASAN_RT" ]; then
         LD_PRELOAD=$2 ASAN_OPTIONS=detect_leaks=0
         export LD_PRELOAD ASAN_OPTIONS
     fi
     "$IORECORD" -o "$work/$1.zst" -- "$BUILD/bin/samples/random_write" "$work/d") \
        >"$work/$1.out" 2>"$work/$1.err" || die "$1: the recorded run failed: $(cat "$work/$1.err")"
    "$IOANALYZE" "$work/$1.zst" 2>"$work/$1.an" |
        python3 -c 'import json, sys
for i in json.load(sys.stdin):
    print(i["rule"], i["fingerprint"], i["stack"].replace("\n", " | "))' >"$work/$1.issues" ||
        die "$1: ioanalyze failed: $(cat "$work/$1.an")"
}

run plain
run intercepted "$ASAN_SO"
grep -q 'libasan' "$work/intercepted.issues" &&
    not_ok "a frame of libasan is in the issue's stack: $(cat "$work/intercepted.issues")"
grep -q '^random_write [0-9a-f]* pwrite_all (random_write\.c:[0-9]*)' "$work/plain.issues" ||
    not_ok "without the runtime, the issue is not at random_write.c's pwrite_all: $(cat "$work/plain.issues")"
cmp -s "$work/plain.issues" "$work/intercepted.issues" || {
    diff "$work/plain.issues" "$work/intercepted.issues"
    not_ok "the issue differs when the sanitizer's runtime intercepts the calls"
}
[ $fail = 0 ] && echo "ok   $(wc -l <"$work/plain.issues") issue, the same fingerprint and frames with libasan's interceptors in front"
exit $fail
