#!/bin/sh
# The man pages render with `man -l` without warnings, have the sections a
# reader looks for, and document every option the tools' --help texts show
# (for ioanalyze, also every subcommand's --help).
. "$(dirname "$0")/lib.sh"

have man || skip "man is not installed (apt-get install man-db)"
work_dir man
fail=0

# Plain text of a page: wide enough that no option is broken across lines,
# without overstrike (man adds none when not writing to a terminal, but
# MAN_KEEP_FORMATTING may be set), with typographic hyphens and minus signs
# turned back into '-'.
render() {
    MANWIDTH=1000 MAN_KEEP_FORMATTING= LC_ALL=C.UTF-8 man -l "$1" 2>/dev/null |
        sed 's/.\x08//g; s/\xe2\x80\x90/-/g; s/\xe2\x88\x92/-/g'
}

# Options (-x, --long-name) mentioned in a --help text, one per line.
options_of() {
    grep -oE '(^|[^A-Za-z0-9_-])--?[A-Za-z][A-Za-z0-9-]*' | sed 's/^[^-]*//' | sort -u
}

for tool in iorecord ioanalyze; do
    page=$TOP/man/$tool.1
    if [ ! -f "$page" ]; then
        echo "FAIL $tool: no man page at man/$tool.1"
        fail=1
        continue
    fi
    render "$page" >"$work/$tool.txt"
    if [ ! -s "$work/$tool.txt" ]; then
        echo "FAIL $tool: man -l renders nothing"
        fail=1
        continue
    fi
    if MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null | grep -q .; then
        echo "FAIL $tool: groff warnings:"
        MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null | sed 's/^/    /'
        fail=1
    fi
    for section in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" EXAMPLES "SEE ALSO"; do
        if ! grep -q "^$section\$" "$work/$tool.txt"; then
            echo "FAIL $tool: no $section section"
            fail=1
        fi
    done

    bin=$BUILD/bin/$tool
    if [ ! -x "$bin" ]; then
        echo "note: $bin is not built; --help not compared"
        continue
    fi
    if ! "$bin" --help >"$work/$tool.help" 2>&1; then
        echo "FAIL $tool: '$tool --help' exits non-zero"
        fail=1
    fi
    if [ "$tool" = ioanalyze ]; then
        for cmd in analyze profile dump info diff rules; do
            "$bin" "$cmd" --help >>"$work/$tool.help" 2>&1 || true
        done
    fi
    missing=""
    for opt in $(options_of <"$work/$tool.help"); do
        # -- on its own (end of options) is matched as a word.
        if ! grep -qe "\(^\|[^A-Za-z0-9-]\)$opt\([^A-Za-z0-9-]\|\$\)" "$work/$tool.txt"; then
            missing="$missing $opt"
        fi
    done
    if [ -n "$missing" ]; then
        echo "FAIL $tool: options in --help but not in man/$tool.1:$missing"
        fail=1
    else
        echo "ok $tool: $(options_of <"$work/$tool.help" | wc -l) options of --help documented"
    fi
done
exit $fail
