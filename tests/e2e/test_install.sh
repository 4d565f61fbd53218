#!/bin/sh
# make install into a DESTDIR, with a PREFIX, LIBDIR and MANDIR of its own,
# as a package build does: it builds only the programs (no CUnit: pkg-config
# here pretends it is missing), puts each file where the variables say, the
# preload library in LIBDIR/ioscope and nowhere else; the staged iorecord
# preloads that library (seen in the recorded program's /proc/self/maps)
# even with another libiorecord.so in LIBDIR, and the staged ioanalyze reads
# its trace; the example of rules/TEMPLATE.md builds with the page's command
# line from the installed rule.h and ioscope.pc alone (PKG_CONFIG_PATH and
# PKG_CONFIG_SYSROOT_DIR into the DESTDIR) and runs as a plugin; the bash
# completion offers what the installed programs say; make uninstall leaves
# nothing behind.
#
# It builds in a tree of its own (a few seconds), so that the build tree the
# other tests use is never rebuilt for another PREFIX or without the
# sanitizers of make asan.
# e2e: slow (about 40 s here: a build and make install of its own)
. "$(dirname "$0")/lib.sh"
have make || skip "make is not installed"
have pkg-config || skip "pkg-config is not installed"
CC=${CC:-cc}
have "$CC" || skip "no C compiler"
have python3 || skip "python3 is needed"
work_dir install

D=$work/stage
PREFIX=/opt/io-pkg-test
LIBDIR=$PREFIX/lib64
MANDIR=$PREFIX/man
P=$D$PREFIX
# make's own variables from a `make test` above would reach this make
unset MAKEFLAGS MFLAGS MAKELEVEL

# pkg-config, but CUnit is not installed
mkdir "$work/shim"
real_pkg_config=$(command -v pkg-config)
cat >"$work/shim/pkg-config" <<SH
#!/bin/sh
for a; do [ "\$a" = cunit ] && exit 1; done
exec "$real_pkg_config" "\$@"
SH
chmod +x "$work/shim/pkg-config"
mk() {
    (cd "$TOP" && PATH=$work/shim:$PATH make --no-print-directory -j2 BUILD="$work/build" \
        DESTDIR="$D" PREFIX=$PREFIX LIBDIR=$LIBDIR MANDIR=$MANDIR "$@") >"$work/make.log" 2>&1
}
mk install || { tail -n 20 "$work/make.log"; not_ok "make install failed"; exit 1; }
[ -e "$work/build/bin/unit_tests" ] && not_ok "make install built the unit tests"

# the tree: every file where the variables put it, and nothing else
(cd "$D" && find . \( -type f -o -type l \) | sed 's|^\./|/|' | sort) >"$work/tree"
{
    printf '%s\n' $PREFIX/bin/ioanalyze $PREFIX/bin/iorecord $LIBDIR/ioscope/libiorecord.so \
        $PREFIX/include/ioscope/rule.h $PREFIX/include/ioscope/hash.h \
        $PREFIX/include/ioscope/grow.h $PREFIX/include/ioscope/hmap.h $LIBDIR/pkgconfig/ioscope.pc \
        $PREFIX/share/bash-completion/completions/ioanalyze \
        $PREFIX/share/bash-completion/completions/iorecord \
        $PREFIX/share/doc/ioscope/README.md $PREFIX/share/doc/ioscope/rules/TEMPLATE.md \
        $LIBDIR/ioscope/fleet/ioanalyze-fleet $LIBDIR/ioscope/fleet/fleet_reduce.py \
        $LIBDIR/ioscope/fleet/fleet_report.py $LIBDIR/ioscope/fleet/fleet_task.py
    for f in "$TOP"/man/*.1; do echo "$MANDIR/man1/${f##*/}"; done
    for f in "$TOP"/docs/*.md "$TOP"/docs/*.png; do
        [ -e "$f" ] && echo "$PREFIX/share/doc/ioscope/docs/${f##*/}"
    done
} | sort >"$work/want"
diff "$work/want" "$work/tree" >"$work/tree.diff" || not_ok "installed files differ from the expected (< expected, > installed):
$(cat "$work/tree.diff")"
[ -x "$P/bin/iorecord" ] && [ -x "$P/bin/ioanalyze" ] || not_ok "the programs are not executable"
# ioanalyze fleet runs the staged fleet program (its --help needs no Dask)
if [ -x /usr/bin/python3 ]; then
    "$P/bin/ioanalyze" fleet --help >"$work/fleet.help" 2>&1 &&
        grep -q '^usage: ioanalyze fleet' "$work/fleet.help" ||
        not_ok "the staged ioanalyze fleet: $(head -3 "$work/fleet.help")"
fi

# the installed headers need nothing of the source tree: each header an
# installed header includes with quotes is installed beside it
for h in "$P"/include/ioscope/*.h; do
    for inc in $(sed -n 's/^#include "\(.*\)"/\1/p' "$h"); do
        [ -e "$P/include/ioscope/$inc" ] || not_ok "${h##*/} includes \"$inc\", which is not installed"
    done
done

# the staged iorecord preloads the staged library, not a libiorecord.so in
# LIBDIR (an older install's place) nor the build tree's
mkdir -p "$P/lib" && printf 'not a library\n' >"$P/lib/libiorecord.so"
(cd "$work" && "$P/bin/iorecord" -o "$work/maps.zst" -- cat /proc/self/maps) >"$work/maps" 2>"$work/rec.err" ||
    not_ok "the staged iorecord failed: $(cat "$work/rec.err")"
grep -q " $D$LIBDIR/ioscope/libiorecord.so\$" "$work/maps" ||
    not_ok "the recorded program did not map $D$LIBDIR/ioscope/libiorecord.so: $(grep -i iorecord "$work/maps")"
grep -q "libiorecord" "$work/rec.err" && not_ok "iorecord or the loader complained: $(cat "$work/rec.err")"
rm -r "$P/lib"
"$P/bin/ioanalyze" info "$work/maps.zst" >"$work/info" 2>&1 || not_ok "the staged ioanalyze info: $(cat "$work/info")"
grep -q "cat \[cat /proc/self/maps\]" "$work/info" || not_ok "info does not show the recorded cat: $(cat "$work/info")"
"$P/bin/ioanalyze" dump "$work/maps.zst" >"$work/maps.jsonl" 2>"$work/err" || not_ok "the staged ioanalyze dump: $(cat "$work/err")"
grep -q '"op":"open".*"path":"/proc/self/maps"' "$work/maps.jsonl" || not_ok "the trace has no open of /proc/self/maps"
"$P/bin/ioanalyze" "$work/maps.zst" >"$work/issues" 2>"$work/err" || not_ok "the staged ioanalyze: $(cat "$work/err")"
[ "$(head -c 1 "$work/issues")" = "[" ] || not_ok "the staged ioanalyze wrote no JSON array: $(head -c 200 "$work/issues")"

# the TEMPLATE's example, built with the page's command line from the
# installed files only, in a directory outside the source tree
mkdir "$work/plugin"
awk '/^## /{sec=$0} /^```c$/{on=1; next} /^```$/{on=0} on && (sec ~ /^## Example/ || sec ~ /^## As a plugin/)' \
    "$P/share/doc/ioscope/rules/TEMPLATE.md" >"$work/plugin/slow_file.c"
line=$(grep '^cc .*pkg-config --cflags ioscope' "$P/share/doc/ioscope/rules/TEMPLATE.md")
[ -n "$line" ] || not_ok "rules/TEMPLATE.md shows no build line with 'pkg-config --cflags ioscope'"
PKG_CONFIG_PATH=$P/lib64/pkgconfig PKG_CONFIG_SYSROOT_DIR=$D
export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
cflags=$(pkg-config --cflags ioscope) || not_ok "pkg-config does not find the installed ioscope.pc"
case $cflags in *"$TOP"*) not_ok "ioscope.pc's flags point into the source tree: $cflags" ;; esac
[ "$(pkg-config --variable=preload ioscope)" = "$D$LIBDIR/ioscope/libiorecord.so" ] ||
    not_ok "ioscope.pc's preload: $(pkg-config --variable=preload ioscope)"
(cd "$work/plugin" && $CC -M $cflags slow_file.c) >"$work/deps" 2>&1 || not_ok "dependencies: $(cat "$work/deps")"
grep -q "$P/include/ioscope/rule.h" "$work/deps" || not_ok "the plugin does not include the installed rule.h"
grep -q "$TOP" "$work/deps" && not_ok "the plugin includes files of the source tree"
(cd "$work/plugin" && CC=$CC sh -c "\$CC${line#cc}") >"$work/cc.log" 2>&1 ||
    not_ok "the TEMPLATE's plugin does not build against the installed files: $(cat "$work/cc.log")"
unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
FX=$TOP/tests/fixtures/rules/small_buffer_fires.jsonl   # 21 writes of 1 ms in one session
"$P/bin/ioanalyze" --plugin "$work/plugin/slow_file.so" --rules slow_file --set slow_file.max_cost_ms=20 "$FX" \
    >"$work/out" 2>"$work/err" || not_ok "the staged ioanalyze with the plugin: $(cat "$work/err")"
python3 -c "
import json; d=json.load(open('$work/out'))
assert len(d)==1 and d[0]['rule']=='slow_file' and d[0]['type']==100 and d[0]['detail']['calls']==21, d" ||
    not_ok "the plugin's issue: $(cat "$work/out")"

# bash completion offers what the installed programs say (it asks them)
if have bash; then
    complete_words() {   # FILE FUNCTION WORD...: the completions of the last word
        bash -c 'f=$1 fn=$2; shift 2; . "$f"; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
                 $fn 2>/dev/null; printf "%s\n" "${COMPREPLY[@]}"' sh "$@" | sort
    }
    C=$P/share/bash-completion/completions
    "$P/bin/ioanalyze" rules | sed -n 's/^\([a-z_]*\) (type [0-9]*).*/\1/p' | sort >"$work/rules"
    [ -s "$work/rules" ] || not_ok "ioanalyze rules lists no rule"
    complete_words "$C/ioanalyze" _ioanalyze "$P/bin/ioanalyze" --rules "" >"$work/got"
    cmp -s "$work/rules" "$work/got" || not_ok "completion of --rules: $(cat "$work/got")"
    complete_words "$C/ioanalyze" _ioanalyze "$P/bin/ioanalyze" --plugin "$work/plugin/slow_file.so" \
        --disable slow >"$work/got"
    [ "$(cat "$work/got")" = slow_file ] || not_ok "completion of a plugin's rule: $(cat "$work/got")"
    # --format offers exactly the rows of the table of output formats
    for c in ANALYZE DUMP; do
        sed -n "s/^ *{OUTPUT_$c, \"\([^\"]*\)\".*/\1/p" "$TOP/analyzer/outputs/output_format.c" |
            sort >"$work/formats"
        [ -s "$work/formats" ] || not_ok "no OUTPUT_$c row in analyzer/outputs/output_format.c"
        [ $c = DUMP ] && set -- dump || set --
        complete_words "$C/ioanalyze" _ioanalyze "$P/bin/ioanalyze" "$@" --format "" >"$work/got"
        cmp -s "$work/formats" "$work/got" ||
            not_ok "completion of $* --format: $(tr '\n' ' ' <"$work/got")/ table: $(tr '\n' ' ' <"$work/formats")"
    done
    [ "$(complete_words "$C/ioanalyze" _ioanalyze "$P/bin/ioanalyze" --set small_buffer.buffer_b)" = \
        "small_buffer.buffer_bytes=" ] || not_ok "completion of --set"
    complete_words "$C/ioanalyze" _ioanalyze "$P/bin/ioanalyze" "" >"$work/got"
    for c in analyze profile dump info diff rules fleet; do
        grep -qx "$c" "$work/got" || not_ok "completion of the command: no $c"
    done
    [ "$(complete_words "$C/ioanalyze" _ioanalyze "$P/bin/ioanalyze" info -- | tr '\n' ' ')" = \
        "--help --version " ] || not_ok "completion of info's options"
    [ "$(complete_words "$C/iorecord" _iorecord "$P/bin/iorecord" -- | tr '\n' ' ')" = \
        "--capture --duration --help --label --no-stacks --output --pid --stacks --version " ] ||
        not_ok "completion of iorecord's options"
    complete_words "$C/iorecord" _iorecord "$P/bin/iorecord" -o t.zst -- ioanal >"$work/got"
    complete_words "$C/iorecord" _iorecord "$P/bin/iorecord" -o t.zst ioanal >>"$work/got"
    [ -z "$(grep -v '^ioanal' "$work/got")" ] || not_ok "completion of iorecord's command: $(cat "$work/got")"
fi

if have man; then
    for page in "$TOP"/man/*.1; do
        name=${page##*/}
        MANPATH=$P/man man -w "${name%.1}" 2>/dev/null | grep -q "^$P/man/man1/$name" ||
            not_ok "man does not find the installed ${name%.1} through MANPATH"
    done
fi

mk uninstall || { tail -n 20 "$work/make.log"; not_ok "make uninstall failed"; }
left=$(cd "$D" && find . \( -type f -o -type l -o -name '*ioscope*' \) -print)
[ -z "$left" ] || not_ok "make uninstall left: $left"
exit $fail
