#!/bin/sh
# What a user reads names no document a user does not have: no "SPEC" (the
# project's internal interface contract) in the README, the manual pages,
# docs/, rules/TEMPLATE.md, or any --help text of iorecord and ioanalyze.
. "$(dirname "$0")/lib.sh"
need_built "$IOANALYZE" "$IORECORD"
work_dir user-words

"$IORECORD" --help >"$work/help.iorecord" 2>&1
"$IOANALYZE" --help >"$work/help.ioanalyze" 2>&1
for c in analyze profile dump info diff rules; do
    "$IOANALYZE" $c --help >"$work/help.ioanalyze-$c" 2>&1
done
ls "$TOP"/man/*.1 "$TOP"/docs/*.md >/dev/null 2>&1 || not_ok "no manual pages or docs found under $TOP"
for f in "$TOP/README.md" "$TOP"/man/*.1 "$TOP"/docs/*.md "$TOP/rules/TEMPLATE.md" "$work"/help.*; do
    grep -n -e '\bSPEC\b' -e "SPEC's" -i -e '\bthe spec\b' "$f" >"$work/hits" &&
        not_ok "${f#"$TOP"/} speaks of the SPEC: $(head -3 "$work/hits")"
done
[ $fail = 0 ] && echo "ok   no SPEC in the README, manual pages, docs, TEMPLATE or --help texts"
exit $fail
