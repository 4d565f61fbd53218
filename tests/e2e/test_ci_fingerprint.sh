#!/bin/sh
# Fingerprints across runs: the same program run twice, in different
# randomly named temporary directories (mktemp, Python tempfile, mkdtemp
# "build.XXXXXX" styles) and with other pids and load addresses, gives the
# same fingerprints, so `ioanalyze diff` reports nothing new; different
# problems in one file (another rule, another open stack) give different
# ones. Recorded with iorecord (stacks on) and with strace, whichever exist.
# e2e: slow (about 12 s CPU here: recordings of a program built twice)
. "$(dirname "$0")/lib.sh"
need_built "$IOANALYZE"
have python3 || skip "python3 is needed"
have_rec=0 have_strace=0
[ -x "$IORECORD" ] && [ -e "$LIBIORECORD" ] && have_rec=1
have strace && strace -o /dev/null true 2>/dev/null && have_strace=1
[ $have_rec = 1 ] || [ $have_strace = 1 ] || skip "neither iorecord nor strace can record here"
work_dir ci-fp
# newdir makes directories outside $work, in the default places, and lists
# them in $work/dirs (it runs in $(...), so a variable would not come back)
cleanup() {
    [ -f "$work/dirs" ] && xargs rm -rf <"$work/dirs"
    rm -rf "$work"
}
# A sanitized recorder needs the sanitizer runtime loaded first (make asan).
REC_ENV=$(asan_env "$LIBIORECORD")

# Two problems on data.bin (small writes, then random writes) and one file
# leaked from two different functions (exported with -rdynamic so that their
# frames have names: a fingerprint drops the offsets of frames).
cat >"$work/twoproblems.c" <<'EOF'
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char path[4096], leaked[4096];

__attribute__((noinline)) int open_for_config(void)
{
    return open(leaked, O_RDONLY);
}

__attribute__((noinline)) int open_for_plugins(void)
{
    return open(leaked, O_RDONLY);
}

int main(int argc, char **argv)
{
    char buf[64];
    int fd;

    if (argc < 2)
        return 2;
    snprintf(path, sizeof(path), "%s/data.bin", argv[1]);
    snprintf(leaked, sizeof(leaked), "%s/leaked.txt", argv[1]);
    memset(buf, 'x', sizeof(buf));
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return 1;
    for (int i = 0; i < 200; i++)
        if (write(fd, buf, 16) != 16)
            return 1;
    /* last slot first: each write jumps back before the previous one */
    for (int i = 0; i < 60; i++)
        if (pwrite(fd, buf, 64, (off_t)(59 - i) * 64) != 64)
            return 1;
    close(fd);
    fd = open(leaked, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    close(fd);
    if (open_for_config() < 0 || open_for_plugins() < 0)
        return 1;
    return 0;
}
EOF
${CC:-cc} -O1 -g -rdynamic -o "$work/twoproblems" "$work/twoproblems.c" || { echo "skip: cannot compile the test program"; exit 77; }

# A fresh temporary directory in one of the styles of the default patterns.
newdir() {
    case $1 in
        mktemp) d=$(mktemp -d) ;;                                         # /tmp/tmp.Xa81QzP2kL
        python) d=$(python3 -c 'import tempfile; print(tempfile.mkdtemp())') ;;  # /tmp/tmpk3j2_x9a
        build)  d=$(mktemp -d /tmp/build.XXXXXX) ;;                       # /tmp/build.Xa81Qz
    esac
    echo "$d" >>"$work/dirs"
    echo "$d"
}

# record TOOL OUT DIR
record() {
    case $1 in
        iorecord) env $REC_ENV "$IORECORD" -o "$2" "$work/twoproblems" "$3" >/dev/null 2>&1 ;;
        strace) strace -f -tt -T -y -o "$2" "$work/twoproblems" "$3" >/dev/null 2>&1 ;;
    esac || not_ok "$1 run in $3 failed"
}

# fps TRACE: "rule fingerprint" lines, sorted
fps() {
    "$IOANALYZE" --set small_buffer.min_continual_ms=0 --set leak.min_count=1 \
        --set random_write.min_bytes=0 --set random_write.min_extent=0 \
        --rules small_buffer,random_write,leak "$1" 2>/dev/null |
        python3 -c 'import json,sys; [print(i["rule"], i["fingerprint"]) for i in sorted(json.load(sys.stdin), key=lambda i: (i["rule"], i["fingerprint"]))]'
}

tools=""
[ $have_rec = 1 ] && tools="$tools iorecord"
[ $have_strace = 1 ] && tools="$tools strace"
for tool in $tools; do
    for style in mktemp python build; do
        d1=$(newdir $style) d2=$(newdir $style)
        [ "$d1" != "$d2" ] || not_ok "$style: the same directory twice"
        record $tool "$work/$tool-$style-1" "$d1"
        record $tool "$work/$tool-$style-2" "$d2"
        fps "$work/$tool-$style-1" >"$work/fp1"
        fps "$work/$tool-$style-2" >"$work/fp2"
        cmp -s "$work/fp1" "$work/fp2" ||
            not_ok "$tool, $style dirs $d1 and $d2: fingerprints differ: $(diff "$work/fp1" "$work/fp2")"
        # main_thread off: a busy machine can stall any main-thread call past 13 ms
        "$IOANALYZE" diff --set small_buffer.min_continual_ms=0 --set main_thread.enabled=false \
            "$work/$tool-$style-1" "$work/$tool-$style-2" \
            >/dev/null 2>"$work/err"
        [ $? -eq 0 ] || not_ok "$tool, $style: diff of two runs is not clean: $(cat "$work/err")"
    done
    # different problems in one file: different fingerprints
    cut -d' ' -f1 "$work/fp1" | tr '\n' ' ' >"$work/rules"
    case $tool in
        iorecord) want="leak leak random_write small_buffer " ;;  # two open stacks: two leaks
        strace) want="leak random_write small_buffer " ;;          # no stacks: one group by path
    esac
    [ "$(cat "$work/rules")" = "$want" ] || not_ok "$tool: issues '$(cat "$work/rules")', expected '$want'"
    [ "$(cut -d' ' -f2 "$work/fp1" | sort -u | wc -l)" -eq "$(wc -l <"$work/fp1")" ] ||
        not_ok "$tool: two different problems share a fingerprint: $(cat "$work/fp1")"
done
exit $fail
