#!/bin/sh
# Every wrong argument of iorecord and of each ioanalyze command gets one
# line on stderr that says what was wrong and where help is ("PROG: WHAT;
# see 'PROG COMMAND --help'"), nothing on stdout, and exit status 2. The
# options are read from each command's --help, so an option added later is
# checked too: each option that takes a value given none, each flag given
# one, an unknown option, a refused value, no input, too many inputs, a
# misspelt command.
. "$(dirname "$0")/lib.sh"
FX=$TOP/tests/fixtures/rules
need_built "$IOANALYZE" "$IORECORD"
work_dir cli-errors
IN=$FX/small_buffer_fires.jsonl

# one_line WANT CMD...: exit 2, nothing on stdout, exactly the line WANT on stderr
one_line() {
    want=$1; shift
    "$@" >"$work/out" 2>"$work/err" </dev/null
    got=$?
    [ "$got" -eq 2 ] || not_ok "'$*' exited $got, expected 2"
    [ ! -s "$work/out" ] || not_ok "'$*' wrote on stdout: $(head -3 "$work/out")"
    [ "$(wc -l <"$work/err")" -eq 1 ] ||
        not_ok "'$*' wrote $(wc -l <"$work/err") lines on stderr, not one: $(head -3 "$work/err")"
    [ "$(cat "$work/err")" = "$want" ] || not_ok "'$*': expected \"$want\", got \"$(cat "$work/err")\""
}

# options HELPFILE: one line per option of a --help text: "NAME SHORT VALUE"
# (SHORT and VALUE "-" when there is none); help and version are left out
options() {
    sed -n 's/^  \(-\(.\), \|    \)--\([a-z-]*\)\( \([^ ]*\)\)\?  .*/\3|\2|\5/p' "$1" |
        awk -F'|' '$1 != "help" && $1 != "version" { print $1, ($2 == "" ? "-" : $2), ($3 == "" ? "-" : $3) }'
}

# check_options PROG CMD HELPNAME INPUT: every option of CMD's --help (that
# is HELPNAME's), wrongly given; a missing value is at the end, with no input
# after it, as iorecord's options end at its COMMAND
check_options() {
    prog=$1 cmd=$2 input=$4
    see="see '${3##*/} --help'"
    $3 --help >"$work/help" 2>&1 || not_ok "$3 --help failed"
    options "$work/help" >"$work/opts"
    [ -s "$work/opts" ] || [ "$cmd" = info ] || not_ok "$3 --help lists no options"
    while read -r name short value; do
        if [ "$value" = - ]; then
            one_line "${prog##*/}: option '--$name' takes no value; $see" $prog $cmd --$name=1 $input
        else
            one_line "${prog##*/}: option '--$name' needs a value; $see" $prog $cmd --$name
            [ "$short" = - ] ||
                one_line "${prog##*/}: option '-$short' needs a value; $see" $prog $cmd -$short
        fi
        checked=$((checked + 1))
    done <"$work/opts"
    one_line "${prog##*/}: unknown option '--no-such-option'; $see" $prog $cmd --no-such-option $input
    one_line "${prog##*/}: unknown option '-Q'; $see" $prog $cmd -Q $input
}

checked=0
for c in analyze profile dump info diff rules; do
    input=$IN
    [ $c = rules ] && input=
    [ $c = diff ] && input="$IN $IN"
    check_options "$IOANALYZE" $c "$IOANALYZE $c" "$input"
done
check_options "$IOANALYZE" "" "$IOANALYZE analyze" "$IN"
check_options "$IORECORD" "" "$IORECORD" true
[ $checked -ge 20 ] || not_ok "only $checked options found in the --help texts"

# missing input, too many inputs, a misspelt command
one_line "ioanalyze: no command or input given; see 'ioanalyze --help'" "$IOANALYZE"
for c in analyze profile dump info; do
    one_line "ioanalyze: no input given; see 'ioanalyze $c --help'" "$IOANALYZE" $c
done
one_line "ioanalyze: diff takes two sets, BASE and NEW: none is given; see 'ioanalyze diff --help'" \
    "$IOANALYZE" diff
one_line "ioanalyze: diff takes two sets, BASE and NEW: only 'one.zst' is given; see 'ioanalyze diff --help'" \
    "$IOANALYZE" diff one.zst
one_line "ioanalyze: diff takes two sets, BASE and NEW: 'c.json' is a third; see 'ioanalyze diff --help'" \
    "$IOANALYZE" diff "$IN" "$IN" c.json
one_line "ioanalyze: only one of BASE and NEW can be standard input; see 'ioanalyze diff --help'" \
    "$IOANALYZE" diff - -
one_line "ioanalyze: unexpected argument 'extra'; see 'ioanalyze rules --help'" "$IOANALYZE" rules extra
one_line "ioanalyze: unknown command 'frobnicate'; see 'ioanalyze --help'" "$IOANALYZE" frobnicate x.zst
one_line "ioanalyze: unknown command 'anlyze' (did you mean 'analyze'?); see 'ioanalyze --help'" \
    "$IOANALYZE" anlyze x.zst
one_line "ioanalyze: unknown command 'dif' (did you mean 'diff'?); see 'ioanalyze --help'" "$IOANALYZE" dif a b
one_line "iorecord: no command given; see 'iorecord --help'" "$IORECORD"
one_line "iorecord: option '--output' needs a file name, not ''; see 'iorecord --help'" "$IORECORD" -o "" true
# a word that names a file, or does not look like a command, is an input
(cd "$work" && cp "$IN" frobnicate && "$IOANALYZE" frobnicate >/dev/null 2>&1) ||
    not_ok "an input named like a command must be analysed"
one_line "ioanalyze: cannot open trace 'x.zst': No such file or directory" "$IOANALYZE" x.zst

# refused values: one line naming the option and what it takes
for a in "--format xml" "--min-severity severe"; do
    "$IOANALYZE" $a "$IN" >"$work/out" 2>"$work/err"
    [ $? -eq 2 ] && [ "$(wc -l <"$work/err")" -eq 1 ] &&
        grep -q "^ioanalyze: ${a%% *}: expected .*, not '${a#* }'; see 'ioanalyze analyze --help'$" "$work/err" ||
        not_ok "'$a': $(cat "$work/err")"
done
one_line "ioanalyze: --min-severity: expected low, medium or high, not 'x'; see 'ioanalyze diff --help'" \
    "$IOANALYZE" diff --min-severity x "$IN" "$IN"
one_line "ioanalyze: dump --format: expected jsonl, text or perfetto, not 'xml'; see 'ioanalyze dump --help'" \
    "$IOANALYZE" dump --format xml "$IN"

# values refused after parsing (files, rules, parameters): one line each
for a in "--config $work/nope.json" "--set x" "--rules nope" "--disable nope" "--baseline $work/nope" \
         "--csv $work/nope/x.csv" "-f sarif --source-root $work/nope" "--plugin $work/nope.so"; do
    "$IOANALYZE" $a "$IN" >"$work/out" 2>"$work/err"
    rc=$?
    [ $rc -eq 2 ] && [ "$(wc -l <"$work/err")" -eq 1 ] && grep -q "^ioanalyze: " "$work/err" ||
        not_ok "'$a': exit $rc, $(wc -l <"$work/err") lines: $(head -3 "$work/err")"
done
[ $fail = 0 ] && echo "ok   $checked options of iorecord and ioanalyze's commands: one line per error"
exit $fail
