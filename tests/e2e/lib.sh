# lib.sh - shared by the e2e tests (sourced, never run on its own).
#
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
        ASAN_OPTIONS=detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}
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
