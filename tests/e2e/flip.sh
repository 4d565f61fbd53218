# Sourced by tests/e2e/test_ci_flip.sh and tests/flip20.sh (after lib.sh):
# one workload recorded twice while a busy loop runs on every core, and
# what `ioanalyze diff` makes of the two runs with and without --ci.
#
# The workload: tests/progs/ci_flip (a FIFO read in small records whose
# time in read() sits near small_buffer's 13 ms, plus counted findings),
# and the samples repeat_read and small_writes. Every path it makes is
# under a directory of its own per run; flip_config normalises those.
#
# flip_busy_start / flip_busy_stop: the busy loops (their pids in
# $flip_busy); flip_pair LABEL: prints "LABEL plain NEW FIXED ci NEW FIXED".
# Needs $work (work_dir) and the built programs.

flip_busy=""

flip_busy_start() {
    _n=$(nproc 2>/dev/null || echo 2)
    [ "$_n" -ge 2 ] || _n=2
    while [ "$_n" -gt 0 ]; do
        sh -c 'while :; do :; done' &
        flip_busy="$flip_busy $!"
        _n=$((_n - 1))
    done
}

flip_busy_stop() {
    for _p in $flip_busy; do
        kill "$_p" 2>/dev/null
        wait "$_p" 2>/dev/null
    done
    flip_busy=""
}

# The run directories and the samples' mkdtemp directories, normalised;
# the counted findings shown at min_count/min_opens the workload reaches.
flip_config() {
    cat >"$work/flip.json" <<'CONF'
{ "normalize": [ {"pattern": "/run[0-9]+/", "replace": "/run/"},
                 {"pattern": "^(/tmp/ioscope-[a-z_]+)-[A-Za-z0-9]{6}/", "replace": "$1-X/"} ],
  "rules": { "leak": {"min_count": 1}, "repeat_open": {"min_opens": 20} } }
CONF
}

# flip_record N: the workload under iorecord into $work/runN.zst
flip_record() {
    rm -rf "$work/run$1"
    mkdir -p "$work/run$1" || return 1
    (cd "$work/run$1" &&
        env $(asan_env "$LIBIORECORD") "$IORECORD" -o "$work/run$1.zst" -- sh -c \
            '"$1" . && "$2" && "$3"' sh "$BUILD/bin/progs/ci_flip" \
            "$BUILD/bin/samples/repeat_read" "$BUILD/bin/samples/small_writes" >/dev/null)
}

# flip_diff A B [--ci]: "NEW FIXED" of diff A B, analysed at every severity
flip_diff() {
    "$IOANALYZE" diff -c "$work/flip.json" --min-severity low $3 "$1" "$2" 2>/dev/null |
        python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d["new"]), len(d["fixed"]))'
}

flip_pair() {
    [ -f "$work/flip.json" ] || flip_config
    flip_busy_start
    flip_record 1 && flip_record 2
    _rc=$?
    flip_busy_stop
    [ $_rc -eq 0 ] || { echo "$1 record failed"; return 1; }
    echo "$1 plain $(flip_diff "$work/run1.zst" "$work/run2.zst") ci $(flip_diff "$work/run1.zst" "$work/run2.zst" --ci)"
}
