#!/bin/sh
# make realworld's checks (tests/realworld/judge.py, strace_view.py) on
# made-up strace logs and issues whose answers are known: right figures pass,
# wrong ones, flips, moved fingerprints and --ci differences fail. The
# programs themselves are the slow tier's (make realworld), not this test's.
. "$(dirname "$0")/lib.sh"

[ -x /usr/bin/python3 ] || skip "/usr/bin/python3 is not installed"
out=$(/usr/bin/python3 "$TOP/tests/realworld/selftest.py" 2>&1) || not_ok "$out"
[ $fail = 0 ] && echo "$out"
exit $fail
