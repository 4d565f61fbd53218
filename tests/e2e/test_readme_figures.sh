#!/bin/sh
# README.md's figures come from samples/readme_figures.sh (`make
# readme-figures`): run here, the script's count of the quick start's
# issues (low-impact ones included) is the one README.md quotes, and each
# figure it measures has its marker in README.md. Times and sizes depend on
# the machine and are not compared.
# e2e: slow (about 12 s here: runs the quick start's 300 sqlite3 commits and the demo)
. "$(dirname "$0")/lib.sh"
need_built "$IOANALYZE" "$IORECORD" "$LIBIORECORD"
have sqlite3 || skip "sqlite3 is not installed (Debian: apt-get install sqlite3)"
have perl || skip "perl is not installed"
[ -z "$(asan_runtime "$LIBIORECORD")" ] || skip "the README's figures are those of a plain build"
work_dir readme-figures

BUILD=$BUILD TMPDIR=$work sh "$TOP/samples/readme_figures.sh" >"$work/figures" 2>"$work/err" ||
    die "readme_figures.sh failed: $(cat "$work/err")"
for name in quick_summary quick_issues quick_report quick_profile quick_info demo_seconds \
    demo_transcript demo_events html_size; do
    grep -q "^$name	" "$work/figures" || not_ok "the script measured no $name: $(cat "$work/figures")"
    grep -q "<!-- figure $name -->" "$TOP/README.md" || not_ok "README.md has no marker for $name"
done
measured=$(sed -n 's/^quick_issues	//p' "$work/figures")
quoted=$(sed -n 's/.*<!-- figure quick_issues -->\([0-9]*\)<!-- \/figure -->.*/\1/p' "$TOP/README.md")
[ -n "$measured" ] && [ "$measured" = "$quoted" ] ||
    not_ok "README.md quotes $quoted quick start issues, the quick start makes $measured here ('make readme-figures WRITE=1' updates it)"
# the summary line quoted says as many, shown and low-impact
summary=$(sed -n '/<!-- figure quick_summary -->/,/<!-- \/figure -->/s/^ioanalyze: //p' "$TOP/README.md")
shown=$(echo "$summary" | sed -n 's/^\([0-9]*\) issues\{0,1\} .*/\1/p')
low=$(echo "$summary" | sed -n 's/.*; \([0-9]*\) low-impact issues\{0,1\} not shown.*/\1/p')
[ $((shown + ${low:-0})) = "$quoted" ] ||
    not_ok "README.md's summary line ($shown shown, ${low:-0} low-impact) disagrees with its count $quoted"
# the report quoted is of the run the summary line is: as many issues
head=$(sed -n '/<!-- figure quick_report -->/,/<!-- \/figure -->/s/^ioscope report: \([0-9]*\) issues\{0,1\} .*/\1/p' "$TOP/README.md")
[ "$head" = "$shown" ] ||
    not_ok "README.md's quick start report has ${head:-no} issues, its summary line $shown"
# and the demo's transcript's report the demo's events
dev=$(sed -n 's/.*<!-- figure demo_events -->\([0-9,]*\)<!-- \/figure -->.*/\1/p' "$TOP/README.md" | tr -d ,)
grep -q "^ioscope report: .* in $dev events" "$TOP/README.md" ||
    not_ok "README.md's demo transcript is not of the run of $dev events it quotes"
[ $fail = 0 ] && echo "ok   README.md quotes the $measured issues of the quick start measured here"
exit $fail
