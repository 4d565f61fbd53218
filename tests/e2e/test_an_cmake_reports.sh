#!/bin/sh
# The events of `cmake -S . -B build` (tests/fixtures/reports): a call on the
# empty path (cmake's mkdir("")) ties on time with other files in the text
# report's per-file table, whose sort once called strcmp(NULL). Every output
# format runs over it (outputs.sh); the text report's key lines are exact.
# e2e: slow (about 6 s CPU here: reports of a CMake-built program)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/outputs.sh"
need_built "$IOANALYZE"
have zstd || skip "zstd is not installed (to unpack the fixture)"
have python3 || skip "python3 is needed to check the outputs"
work_dir cmake_reports
zstd -dcq "$TOP/tests/fixtures/reports/cmake_text_segv.jsonl.zst" >"$work/cmake.jsonl" ||
    die "cannot unpack the fixture"

# the lines as wide as they are (the wrapping is test_an_report_width.sh's)
COLUMNS=1000 "$IOANALYZE" --format text "$work/cmake.jsonl" >"$work/text" 2>"$work/text.err"
rc=$?
[ $rc -eq 0 ] || not_ok "--format text: exit $rc ($(tail -n 1 "$work/text.err"))"
want() {  # PATTERN WHAT
    grep -Eq "$1" "$work/text" || not_ok "text report: no $2"
}
want '^ioscope report: 3 issues \(3 medium\) as 3 findings in 22741 events from 54 processes, 54 threads; 176\.8 ms of I/O calls$' \
    "summary line"
# ld's three output files: small writes, and the blocks glibc reads back at
# each fseek on a stream opened for reading and writing (docs/analyzer.md)
[ "$(grep -c '^== [0-9]*\. medium: small_buffer (type 2)$' "$work/text")" = 3 ] ||
    not_ok "text report: not ld's 3 small_buffer issues"
want '^ +12351 cmake +107\.1 ms +2934 +482\.3 KiB +161\.3 KiB$' "top process row"
want '^ +8\.4 ms +200 +2 +190 +540 B +539 B  /tmp/ccZLiRwn\.s$' "top file row"
want '^\(620 more\)$' "count of the files left out"
want '^ +33\.66 +0\.059516 +96 +614 +9 +519007 read$' "read row of the calls by op"

check_outputs "$work/cmake.jsonl" cmake
exit $fail
