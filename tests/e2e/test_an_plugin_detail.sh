#!/bin/sh
# The detail builder of rules/rule.h and the plugin ABI it kept: one plugin
# source (tests/fixtures/plugin_abi/detail_rule.c) states a detail of every
# kind (integers, an unsigned figure, a real, strings, a boolean, a list of
# integers, a list of objects). Built against rule_v1.h, the rule.h of
# RULE_ABI_VERSION 3 as it was before the builder (a jansson json_t detail,
# a smaller struct rule_report), it is the binary an old plugin is: it must
# still load and give issues byte-identical, in every format, to the same
# rule built against today's rule.h with the builder. The old header is
# kept as a file, and the plugin compiled from it here, so the old binary
# is what that header makes with this machine's compiler.
# e2e: slow (about 3 s here: builds two plugins with the C compiler)
. "$(dirname "$0")/lib.sh"
need_built "$IOANALYZE"
CC=${CC:-cc}
have "$CC" || skip "no C compiler"
have python3 || skip "python3 is needed"
pkg-config --exists jansson 2>/dev/null || [ -f /usr/include/jansson.h ] || skip "no jansson headers for the old plugin"
work_dir an-plugin-detail
FXD=$TOP/tests/fixtures/plugin_abi
SRC=$FXD/detail_rule.c

# the old plugin: rule_v1.h and jansson; the new one: rule.h and no jansson
$CC -shared -fPIC -DRULE_V1 -I"$FXD" $(pkg-config --cflags jansson 2>/dev/null) \
    -o "$work/v1.so" "$SRC" || not_ok "cannot build the plugin against rule_v1.h"
$CC -shared -fPIC -Wall -Wextra -Werror -I"$TOP/rules" -o "$work/v2.so" "$SRC" ||
    not_ok "cannot build the plugin against rule.h with the detail builder"
[ $fail -eq 0 ] || exit $fail
# rule.h no longer needs jansson: the new plugin does not link it
if have nm; then
    nm -D --undefined-only "$work/v2.so" | grep -q json_ && not_ok "the builder's plugin still calls jansson"
    nm -D --undefined-only "$work/v2.so" | grep -q rule_detail_int || not_ok "the new plugin calls no builder"
fi

n=0
for fx in small_buffer_fires.jsonl small_buffer_again.jsonl sync_storm_65535_per_sync.jsonl \
          small_buffer_stdio_flushed.jsonl write_amplification_factor_4.jsonl; do
    in=$TOP/tests/fixtures/rules/$fx
    [ -f "$in" ] || { not_ok "fixture $fx is gone"; continue; }
    for fmt in json sarif text; do
        for v in v1 v2; do
            "$IOANALYZE" analyze --plugin "$work/$v.so" --rules detail_rule --min-severity low \
                --format $fmt "$in" >"$work/$v.$fmt" 2>"$work/$v.err" ||
                not_ok "$v plugin on $fx ($fmt): $(head -2 "$work/$v.err")"
        done
        cmp -s "$work/v1.$fmt" "$work/v2.$fmt" ||
            not_ok "$fx: the old plugin's $fmt differs from the builder's: $(diff "$work/v1.$fmt" "$work/v2.$fmt" | head -5)"
    done
    # the issues' figures are what the plugin stated, with their types
    python3 - "$work/v2.json" <<'PY' || not_ok "$fx: the builder's detail"
import json, sys
d = json.load(open(sys.argv[1]))
assert d, "no issue"
for i in d:
    det = i["detail"]
    assert i["rule"] == "detail_rule" and i["type"] == 97, i
    assert list(det)[:9] == ["layer", "writes", "ops", "avg_bytes", "stdio", "sizes",
                             "open_sites", "path", "occurrences"], list(det)
    assert det["layer"] in ("stdio", "syscall") and det["stdio"] == (det["layer"] == "stdio")
    assert type(det["writes"]) is int and det["writes"] == i["repeat"]
    assert type(det["ops"]) is int and det["ops"] == i["op"]
    assert type(det["avg_bytes"]) is float and abs(det["avg_bytes"] - i["opSize"] / i["op"]) < 1e-9
    assert det["sizes"] == [i["opSize"], i["buffer"], -1], det["sizes"]
    assert [s["sessions"] for s in det["open_sites"]] == [1, 0] and det["open_sites"][1]["stack"] == ""
    assert det["path"] == i["path"]
print(len(d))
PY
    n=$((n + 1))
done
[ $n -eq 5 ] || not_ok "compared $n fixtures, not 5"
exit $fail
