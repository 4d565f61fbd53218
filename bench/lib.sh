# Shell helpers the bench scripts share (sourced, after they set $work).

now() { date +%s.%N; }

# run CMD...: print "seconds peakKiB" of one run of CMD, its output
# discarded; the peak RSS is "?" without /usr/bin/time (Debian: time).
run() {
    s=$(now)
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -f %M -o "$work/rss" "$@" >/dev/null 2>&1
    else
        "$@" >/dev/null 2>&1; echo "?" >"$work/rss"
    fi
    e=$(now)
    echo "$s $e $(cat "$work/rss")" | awk '{printf "%.2f %s", $2 - $1, $3}'
}
