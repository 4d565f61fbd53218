#!/bin/sh
# The bash completions (analyzer/cli/ioanalyze.bash-completion,
# recorder/launcher/iorecord.bash-completion), sourced from the tree and
# asked as bash asks them (COMP_WORDS, COMP_CWORD), never offer a word
# twice: not a command that is both a builtin and in several PATH
# directories ("echo echo echo"), not a command word that is also a file.
. "$(dirname "$0")/lib.sh"
need_built "$IOANALYZE" "$IORECORD"
have bash || skip "bash is not installed"
work_dir completion
mkdir "$work/here" && : >"$work/here/dump" && : >"$work/here/info.zst" && mkdir "$work/here/x.so"

# complete FILE FUNCTION WORD...: the completions of the last word, one a line
complete_words() {
    (cd "$work/here" && PATH="/usr/bin:/bin:$PATH" bash -c 'f=$1 fn=$2; shift 2; . "$f"
        COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); $fn; printf "%s\n" "${COMPREPLY[@]}"' \
        sh "$@")
}

# once WHAT WANT FILE FUNCTION WORD...: no word twice, and WANT among them
once() {
    what=$1 want=$2; shift 2
    complete_words "$@" >"$work/got"
    [ -z "$(sort "$work/got" | uniq -d)" ] ||
        not_ok "$what offers a word twice: $(sort "$work/got" | uniq -d | tr '\n' ' ')"
    [ -z "$want" ] || grep -qx -- "$want" "$work/got" || not_ok "$what does not offer '$want': $(tr '\n' ' ' <"$work/got")"
    checked=$((checked + 1))
}

A=$TOP/analyzer/cli/ioanalyze.bash-completion
R=$TOP/recorder/launcher/iorecord.bash-completion
checked=0
once "iorecord's command" echo "$R" _iorecord "$IORECORD" ec
once "iorecord's command after -o" echo "$R" _iorecord "$IORECORD" -o t.zst ec
once "iorecord's command after --" echo "$R" _iorecord "$IORECORD" -- ec
once "iorecord's options" --output "$R" _iorecord "$IORECORD" --
once "ioanalyze's first word" dump "$A" _ioanalyze "$IOANALYZE" d
once "ioanalyze's first word" info "$A" _ioanalyze "$IOANALYZE" i
once "ioanalyze's first word" "" "$A" _ioanalyze "$IOANALYZE" ""
once "ioanalyze's options" --format "$A" _ioanalyze "$IOANALYZE" --
once "ioanalyze dump --format" text "$A" _ioanalyze "$IOANALYZE" dump --format ""
once "ioanalyze --plugin" x.so "$A" _ioanalyze "$IOANALYZE" --plugin ""
once "ioanalyze --rules" leak "$A" _ioanalyze "$IOANALYZE" --rules ""
[ "$(complete_words "$R" _iorecord "$IORECORD" ech | grep -cx echo)" = 1 ] || not_ok "iorecord ech: echo not offered once"
# each file registers its function for its program
for p in "ioanalyze $A" "iorecord $R"; do
    got=$(bash -c '. "$1"; complete -p "$2"' sh "${p#* }" "${p%% *}")
    [ "$got" = "complete -o default -F _${p%% *} ${p%% *}" ] || not_ok "complete -p ${p%% *}: $got"
done
[ $fail = 0 ] && echo "ok   $checked command lines completed, no word offered twice"
exit $fail
