#!/bin/sh
# Stacks from raw addresses to source lines (issue 18): a -g -O1 program with
# an open inlined into its caller and one in a stripped shared library whose
# debug info is found by build-id (--debug-dir). Checks the exact frames
# (function, file, line, inlined, module, build-id) in JSON, the stack text,
# SARIF's locations, strace -k's address-only frames through the same
# symbolizer, a plugin loaded where a closed one was, C++ names demangled
# (where g++ is installed), and that fingerprints survive a rebuild with code
# inserted before the opening function.
. "$(dirname "$0")/lib.sh"
need_built "$IORECORD" "$IOANALYZE" "$LIBIORECORD"
have cc || skip "no C compiler"
have objcopy && have readelf && have strip || skip "no binutils (objcopy, readelf, strip)"
have python3 || skip "no python3"
work=$(mktemp -d "${TMPDIR:-/tmp}/ioscope-stacks.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT INT TERM

# A sanitized recorder (make asan) needs the sanitizer runtime loaded first
# in the recorded program; its interceptor is then a frame of its own, which
# the checks below step over.
REC_ENV=$(asan_env "$LIBIORECORD")
SRC=$TOP/tests/fixtures/stacks
# The programs leak one file per open site, which leak's default min_count
# (2) leaves out; the leaks' stacks are what is checked here.
LEAK1="--set leak.min_count=1"
# line MARKER FILE: the line number of "@MARKER */" in FILE
line() { grep -n "@$1 \*/" "$2" | cut -d: -f1; }
build_id() { readelf -n "$1" | sed -n 's/.*Build ID: //p'; }

mkdir "$work/src" "$work/src2" "$work/data" "$work/debug"
cp "$SRC/stk_app.c" "$SRC/stk_lib.c" "$work/src/"
touch "$work/data/data" "$work/data/settings"
cd "$work/src" || exit 1

# the library: its debug info apart, under .build-id/, and the file stripped
cc -g -O1 -fPIC -shared -Wl,--build-id -o libstk.so stk_lib.c || exit 1
lid=$(build_id libstk.so)
[ -n "$lid" ] || skip "the linker writes no build-id"
mkdir -p "$work/debug/.build-id/$(echo "$lid" | cut -c1-2)"
objcopy --only-keep-debug libstk.so "$work/debug/.build-id/$(echo "$lid" | cut -c1-2)/$(echo "$lid" | cut -c3-).debug"
strip --strip-all libstk.so
cc -g -O1 -Wl,--build-id -o app stk_app.c -L. -lstk -Wl,-rpath,"$work/src" || exit 1
aid=$(build_id app)

env $REC_ENV "$IORECORD" -o "$work/t.zst" -- ./app "$work/data" || not_ok "recording"
"$IOANALYZE" dump --format jsonl "$work/t.zst" > "$work/t.jsonl"
"$IOANALYZE" $LEAK1 --debug-dir "$work/debug" "$work/t.zst" > "$work/i.json" 2> "$work/err" || not_ok "analyze"
"$IOANALYZE" $LEAK1 "$work/t.zst" > "$work/nodebug.json" 2> "$work/err.nodebug" || not_ok "analyze without --debug-dir"
"$IOANALYZE" $LEAK1 --format sarif --source-root "$work/src" --debug-dir "$work/debug" "$work/t.zst" \
    > "$work/s.sarif" 2>/dev/null || not_ok "analyze --format sarif"

python3 - "$work" "$aid" "$lid" \
    "$(line open_data stk_app.c)" "$(line load_all stk_app.c)" "$(line load_all_lib stk_app.c)" \
    "$(line main stk_app.c)" "$(line read_settings stk_lib.c)" "$(line lib_open_config stk_lib.c)" <<'PY' || not_ok "frames"
import json, sys
work, aid, lid = sys.argv[1:4]
l_open, l_load, l_load_lib, l_main, l_read, l_cfg = map(int, sys.argv[4:10])
src, app, lib = work + "/src", work + "/src/app", work + "/src/libstk.so"

# the recorder wrote each module once, with its build-id
mods = [json.loads(l) for l in open(work + "/t.jsonl") if '"ev":"module"' in l]
ids = {m["path"]: m["build_id"] for m in mods}
assert ids.get(app) == aid and ids.get(lib) == lid, ids
assert len(mods) == len(ids), "a module recorded twice"

def asan(f):
    return (f.get("module") or "").rsplit("/", 1)[-1].startswith("libasan")

def own(issue):
    """The issue without a sanitizer interceptor's leading frames."""
    issue = dict(issue)
    while issue["frames"] and asan(issue["frames"][0]):
        issue["frames"] = issue["frames"][1:]
        issue["stack"] = issue["stack"].split("\n", 1)[1]
    return issue
# raw frames only: module path + offset, nothing symbolized
opens = [json.loads(l) for l in open(work + "/t.jsonl") if '"op":"open"' in l]
for o in opens:
    for f in o["stack"].split("\n"):
        assert f.startswith("/") and "+0x" in f and " " not in f, f

def frame(fn, path, ln, mod, bid, inl):
    return {"function": fn, "file": path, "line": ln, "module": mod, "build_id": bid, "inlined": inl}

def head(issue, n):
    return [{k: f[k] for k in ("function", "file", "line", "module", "build_id", "inlined")}
            for f in issue["frames"][:n]]

issues = json.load(open(work + "/i.json"))
by_path = {i["path"].rsplit("/", 1)[1]: own(i) for i in issues}
assert sorted(by_path) == ["data", "settings"], sorted(by_path)
d, s = by_path["data"], by_path["settings"]
want = [frame("open_data", src + "/stk_app.c", l_open, app, aid, True),
        frame("load_all", src + "/stk_app.c", l_load, app, aid, False),
        frame("main", src + "/stk_app.c", l_main, app, aid, False)]
assert head(d, 3) == want, (head(d, 3), want)
assert d["stack"].startswith("open_data (stk_app.c:%d) [inlined]\nload_all (stk_app.c:%d)\n"
                             "main (stk_app.c:%d)\n" % (l_open, l_load, l_main)), d["stack"]
assert all(isinstance(f["offset"], int) and f["offset"] > 0 for f in d["frames"])
# the stripped library: its static function from the debug file found by build-id
want = [frame("read_settings", src + "/stk_lib.c", l_read, lib, lid, False),
        frame("lib_open_config", src + "/stk_lib.c", l_cfg, lib, lid, False),
        frame("load_all", src + "/stk_app.c", l_load_lib, app, aid, False),
        frame("main", src + "/stk_app.c", l_main, app, aid, False)]
assert head(s, 4) == want, (head(s, 4), want)
assert s["stack"].startswith("read_settings (stk_lib.c:%d)\nlib_open_config (stk_lib.c:%d)\n"
                             % (l_read, l_cfg)), s["stack"]

# without the debug file: module+offset for the static function, the
# exported one by its dynamic symbol, and the summary counts what is missing
nd = {i["path"].rsplit("/", 1)[1]: own(i) for i in json.load(open(work + "/nodebug.json"))}
f0, f1 = nd["settings"]["frames"][:2]
assert f0["function"] is None and f0["file"] is None and f0["module"] == lib, f0
first = nd["settings"]["stack"].split("\n")
assert first[0] == "libstk.so+0x%x" % f0["offset"], first
assert first[1].startswith("lib_open_config+0x") and first[1].endswith(" (libstk.so)"), first
assert nd["data"]["fingerprint"] == d["fingerprint"]

# SARIF: the first frame in the user's code, relative to SRCROOT
log = json.load(open(work + "/s.sarif"))
run, = log["runs"]
assert run["originalUriBaseIds"]["SRCROOT"]["uri"] == "file://" + src + "/"
assert run["tool"]["driver"]["informationUri"].startswith("https://")
for r in run["tool"]["driver"]["rules"]:
    assert r["helpUri"].startswith("https://") and "How to fix" in r["help"]["markdown"], r
res = {r["properties"]["path"].rsplit("/", 1)[1]: r for r in run["results"]}
for name, uri, ln in (("data", "stk_app.c", l_open), ("settings", "stk_lib.c", l_read)):
    r = res[name]
    pl = r["locations"][0]["physicalLocation"]
    assert pl == {"artifactLocation": {"uri": uri, "uriBaseId": "SRCROOT"},
                  "region": {"startLine": ln}}, pl
    assert r["partialFingerprints"]["ioscope/v1"] == by_path[name]["fingerprint"]
    flow = r["codeFlows"][0]["threadFlows"][0]["locations"]
    assert len(flow) >= len(by_path[name]["frames"])
    assert len(r["relatedLocations"]) >= 2 and by_path[name]["path"] in r["message"]["text"]
def uris(o):
    if isinstance(o, dict):
        for k, v in o.items():
            if k == "uri":
                yield v
            elif k != "originalUriBaseIds":
                yield from uris(v)
    elif isinstance(o, list):
        for v in o:
            yield from uris(v)
for u in uris(run):
    assert not u.startswith("/") and "://" not in u or u.startswith("https://"), u
PY
# the summary: without the debug file, one frame more stays unresolved (none
# with it, unless a sanitizer runtime brings frames of its own)
unresolved() { sed -n 's/.*; \([0-9]*\) of [0-9]* stack frames unresolved.*/\1/p' "$1"; }
u=$(unresolved "$work/err") nu=$(unresolved "$work/err.nodebug")
[ -n "$u" ] && [ -n "$nu" ] && [ $((u + 1)) -eq "$nu" ] ||
    not_ok "summaries: $(cat "$work/err" "$work/err.nodebug")"
[ -n "$REC_ENV" ] || [ "$u" = 0 ] || not_ok "summary with debug info: $(cat "$work/err")"

# The SARIF log against the SARIF 2.1.0 schema and GitHub's ingestion rules,
# with Microsoft's multitool: SARIF_MULTITOOL names its binary, else the one
# on PATH, else the one npm installs once under the build tree when
# IOSCOPE_NPM=1 (see npm_package): no error. Its schema, shipped beside it,
# through python3's jsonschema when that is installed.
mt=${SARIF_MULTITOOL:-$(command -v sarif-multitool)}
mtdir=$BUILD/npm-sarif
if [ -z "$mt" ] && ! have node; then
    skip_part "SARIF multitool" "none on PATH, SARIF_MULTITOOL unset and node not installed to fetch it"
elif [ -z "$mt" ] && npm_package "$mtdir" @microsoft/sarif-multitool 300; then
    # npm may leave the package's postinstall (a chmod of the binary) unrun
    chmod u+x "$mtdir"/node_modules/@microsoft/sarif-multitool-linux*/Sarif.Multitool 2>/dev/null
    mt=$mtdir/node_modules/.bin/sarif-multitool
fi
if [ -n "$mt" ] && [ -x "$mt" ]; then
    DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 "$mt" validate "$work/s.sarif" --rule-kind "Gh;Sarif" \
        -o "$work/validation.sarif" --log ForceOverwrite > "$work/mt.out" 2>&1
    grep -q ": error " "$work/mt.out" && not_ok "sarif-multitool: $(grep ': error ' "$work/mt.out")"
    grep -q "Analysis completed successfully" "$work/mt.out" || not_ok "sarif-multitool: $(cat "$work/mt.out")"
    schema=$(find "$(dirname "$(readlink -f "$mt")")" -maxdepth 1 -name 'sarif-2.1.0.json' | head -n 1)
    if [ -n "$schema" ] && python3 -c 'import jsonschema' 2>/dev/null; then
        python3 -c '
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))' \
            "$work/s.sarif" "$schema" || not_ok "SARIF schema"
    elif [ -z "$schema" ]; then
        skip_part "SARIF schema" "no sarif-2.1.0.json beside $mt"
    else
        skip_part "SARIF schema" "python3 cannot import jsonschema (Debian: python3-jsonschema)"
    fi
elif [ -n "$mt" ]; then
    skip_part "SARIF multitool" "'$mt' is not an executable"
fi

# strace -k: its frame without a symbol goes through the same symbolizer
if have strace && strace -f -k -o "$work/k.log" ./app "$work/data" 2>/dev/null &&
    grep -q 'libstk.so() \[' "$work/k.log"; then
    "$IOANALYZE" $LEAK1 --debug-dir "$work/debug" "$work/k.log" > "$work/k.json" 2>/dev/null || not_ok "analyze strace -k"
    python3 - "$work/k.json" "$(line read_settings stk_lib.c)" <<'PY' || not_ok "strace -k frames"
import json, sys
i = {x["path"].rsplit("/", 1)[1]: x for x in json.load(open(sys.argv[1]))}
f = i["settings"]["frames"][0]
assert (f["function"], f["file"].rsplit("/", 1)[1], f["line"]) == ("read_settings", "stk_lib.c", int(sys.argv[2])), f
PY
fi

# dlopen, dlclose, dlopen: the second plugin, likely where the first was,
# gets its own module record and its own frames
cd "$work/src" || exit 1
cp "$SRC/stk_plug.c" "$SRC/stk_dl.c" .
cc -g -O1 -fPIC -shared -DPLUG=a -o libplugA.so stk_plug.c &&
    cc -g -O1 -fPIC -shared -DPLUG=b -o libplugB.so stk_plug.c &&
    cc -g -O1 -o dl stk_dl.c -ldl || exit 1
env $REC_ENV "$IORECORD" -o "$work/dl.zst" -- ./dl "$work/data" "$work/src/libplugA.so" \
    "$work/src/libplugB.so" || not_ok "recording dl"
"$IOANALYZE" dump --format jsonl "$work/dl.zst" > "$work/dl.jsonl"
"$IOANALYZE" $LEAK1 "$work/dl.zst" > "$work/dl.json" 2>/dev/null || not_ok "analyze dl"
python3 - "$work" "$(build_id libplugA.so)" "$(build_id libplugB.so)" "$(line plug_open stk_plug.c)" <<'PY' || not_ok "dlclose"
import json, sys
work, ida, idb, ln = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
mods = {m["path"]: m["build_id"] for m in (json.loads(l) for l in open(work + "/dl.jsonl"))
        if m["ev"] == "module"}
a, b = work + "/src/libplugA.so", work + "/src/libplugB.so"
assert mods.get(a) == ida and mods.get(b) == idb, mods
got = []
for i in json.load(open(work + "/dl.json")):
    f = [f for f in i["frames"] if "libplug" in (f["module"] or "")][0]
    got.append((f["function"], f["module"], f["line"]))
assert sorted(got) == [("open_in_a", a, ln), ("open_in_b", b, ln)], got
PY

# C++: a member function and one inlined into it, as C++ names
if have g++; then
    cd "$work/src" || exit 1
    g++ -g -O1 -o cxx "$SRC/stk_cxx.cpp" || not_ok "building the C++ program"
    env $REC_ENV "$IORECORD" -o "$work/cxx.zst" -- ./cxx "$work/data" || not_ok "recording cxx"
    "$IOANALYZE" $LEAK1 "$work/cxx.zst" > "$work/cxx.json" 2>/dev/null || not_ok "analyze cxx"
    python3 - "$work/cxx.json" "$(line cxx_open "$SRC/stk_cxx.cpp")" "$(line cxx_load "$SRC/stk_cxx.cpp")" <<'PY' || not_ok "C++ frames"
import json, sys
issues = [i for i in json.load(open(sys.argv[1])) if i["type"] == 4]
assert len(issues) == 1, issues
f = issues[0]["frames"]
got = [(x["function"], x["line"], x["inlined"]) for x in f[:2]]
assert got == [("store::Cache::open_entry(char const*)", int(sys.argv[2]), True),
               ("store::Cache::load(char const*)", int(sys.argv[3]), False)], got
assert issues[0]["stack"].startswith("store::Cache::open_entry(char const*) (stk_cxx.cpp:%s) [inlined]\n"
                                     "store::Cache::load(char const*) (stk_cxx.cpp:%s)" % (sys.argv[2], sys.argv[3])), issues[0]["stack"]
PY
else
    echo "(no g++: C++ names not checked)"
fi

# a rebuild with code before the opening function: other addresses and
# lines, the same fingerprints
cp "$work/src/libstk.so" "$work/src/stk_lib.c" "$work/src2/"
sed 's|^/\* @insert \*/$|/* @insert */\
__attribute__((noinline)) int inserted(int x)\
{\
    int s = 0;\
\
    for (int i = 0; i < x; i++)\
        s += i * 7 % 13;\
    return s;\
}|' "$work/src/stk_app.c" > "$work/src2/stk_app.c"
cd "$work/src2" || exit 1
cc -g -O1 -o app stk_app.c -L. -lstk -Wl,-rpath,"$work/src2" || exit 1
env $REC_ENV "$IORECORD" -o "$work/t2.zst" -- ./app "$work/data" || not_ok "recording the rebuild"
"$IOANALYZE" $LEAK1 --debug-dir "$work/debug" "$work/t2.zst" > "$work/i2.json" 2>/dev/null || not_ok "analyze the rebuild"
python3 - "$work/i.json" "$work/i2.json" <<'PY' || not_ok "fingerprints after the rebuild"
import json, sys
a, b = (sorted(json.load(open(p)), key=lambda i: i["path"]) for p in sys.argv[1:3])
assert len(a) == len(b) == 2
for x, y in zip(a, b):
    assert x["fingerprint"] == y["fingerprint"], (x["stack"], y["stack"])
# the app's frames moved: 8 lines down, to other offsets
for x, y in zip(a, b):
    app = [(f, g) for f, g in zip(x["frames"], y["frames"])
           if f["module"].endswith("/app") and f["line"]]
    assert len(app) >= 2 and all(g["line"] == f["line"] + 8 and g["offset"] != f["offset"]
                                 for f, g in app), app
PY
exit $fail
