#!/bin/sh
# The e2e library itself (lib.sh): not_ok reports a failed check and the
# test goes on, die reports and stops it, as git's test library names them;
# npm_package fetches nothing unless IOSCOPE_NPM=1 asks (a stand-in npm on
# PATH says whether it was run, and with what).
. "$(dirname "$0")/lib.sh"
work_dir lib
export TOP

# in_lib SCRIPT: SCRIPT's output and exit status, run after sourcing lib.sh
in_lib() {
    out=$(sh -c ". \"\$TOP/tests/e2e/lib.sh\"; work='$work'; $1" 2>&1)
    rc=$?
}

in_lib 'not_ok "first"; echo after; not_ok "second"; exit $fail'
[ "$rc" = 1 ] && [ "$out" = "FAIL: first
after
FAIL: second" ] || die "not_ok: exit $rc, output: $out"

in_lib 'not_ok "kept"; exit $fail'
[ "$rc" = 1 ] || die "not_ok: exit \$fail is $rc"
in_lib 'exit $fail'
[ "$rc" = 0 ] || die "no check failed: exit \$fail is $rc"

in_lib 'die "stop here"; echo after; exit 0'
[ "$rc" = 1 ] && [ "$out" = "FAIL: stop here" ] || die "die: exit $rc, output: $out"

# A stand-in npm: records its arguments and installs the package it is given.
mkdir -p "$work/bin"
cat >"$work/bin/npm" <<'NPM'
#!/bin/sh
echo "$*" >>"$NPM_CALLS"
for a; do pkg=$a; done
mkdir -p "$3/node_modules/$pkg"
NPM
chmod +x "$work/bin/npm"
export NPM_CALLS="$work/npm.calls"
run_npm_package() {
    in_lib "PATH=\"$work/bin:\$PATH\"; npm_package \"$work/$1\" @scope/pkg 10"
}

unset IOSCOPE_NPM
run_npm_package absent
[ "$rc" = 1 ] && [ "$out" = "SKIP @scope/pkg: IOSCOPE_NPM=1 lets npm fetch it" ] ||
    not_ok "without IOSCOPE_NPM: exit $rc, output: $out"
[ ! -e "$NPM_CALLS" ] || not_ok "without IOSCOPE_NPM npm was run: $(cat "$NPM_CALLS")"

IOSCOPE_NPM=0 run_npm_package absent
[ "$rc" = 1 ] && [ ! -e "$NPM_CALLS" ] || not_ok "IOSCOPE_NPM=0: exit $rc, npm run: $(cat "$NPM_CALLS" 2>/dev/null)"

export IOSCOPE_NPM=1
run_npm_package fetched
[ "$rc" = 0 ] && [ -z "$out" ] || not_ok "IOSCOPE_NPM=1: exit $rc, output: $out"
[ "$(cat "$NPM_CALLS" 2>/dev/null)" = "install --prefix $work/fetched --no-audit --no-fund @scope/pkg" ] ||
    not_ok "IOSCOPE_NPM=1: npm run as: $(cat "$NPM_CALLS" 2>/dev/null)"

# installed already: used as it is, nothing run, asked or not
rm -f "$NPM_CALLS"
unset IOSCOPE_NPM
run_npm_package fetched
[ "$rc" = 0 ] && [ -z "$out" ] && [ ! -e "$NPM_CALLS" ] ||
    not_ok "already installed: exit $rc, output: $out, npm run: $(cat "$NPM_CALLS" 2>/dev/null)"

[ $fail -eq 0 ] && echo "ok: not_ok goes on, die stops, npm runs only with IOSCOPE_NPM=1"
exit $fail
