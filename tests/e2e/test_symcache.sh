#!/bin/sh
# Symbols by build-id, from the cache and from debuginfod. small_writes is
# copied to a directory of the test's own and recorded from there; its
# issue's stack starts at the write in log_record (the line of
# "write(fd, rec, RECORD_BYTES)" in samples/small_writes.c), inlined into
# logger. Then, with XDG_CACHE_HOME the test's own:
#  1. analysed with the binary in place: that stack, and a cache file for
#     the binary's build-id naming log_record at that line;
#  2. the binary moved away: the same issues, byte for byte, from the cache;
#  3. the cache file damaged: not believed (the frame is small_writes+0x...)
#     and rewritten as a good file;
#  4. a real `debuginfod -F` serving the moved binary, asked over loopback
#     through DEBUGINFOD_URLS, an empty cache: the same issues as in 1, with
#     another program at the recorded path (a rebuild: its build-id
#     differs) and with nothing there;
#  5. the server stopped and its client's download cache removed: the same
#     issues again, from the symbol cache that step 4 filled.
# e2e: slow (debuginfod's start and first scan, a few seconds here)
. "$(dirname "$0")/lib.sh"
need_built "$IORECORD" "$IOANALYZE" "$LIBIORECORD" "$BUILD/bin/samples/small_writes"
have debuginfod || skip "no debuginfod (Debian: debuginfod)"
have readelf || skip "no readelf (binutils)"
PY=python3
have $PY || skip "no python3"
work_dir symcache
server=""
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
    rm -rf "$work"
}
unset IOSCOPE_SYMCACHE DEBUGINFOD_URLS
XDG_CACHE_HOME=$work/cache
export XDG_CACHE_HOME
REC_ENV=$(asan_env "$LIBIORECORD")

line=$(grep -n 'write(fd, rec, RECORD_BYTES)' "$TOP/samples/small_writes.c" | cut -d: -f1)
[ -n "$line" ] || die "samples/small_writes.c has no write(fd, rec, RECORD_BYTES)"
want="log_record (small_writes.c:$line) [inlined]"
mkdir "$work/bin" "$work/served" "$work/data"
cp "$BUILD/bin/samples/small_writes" "$work/bin/"
id=$(readelf -n "$work/bin/small_writes" | sed -n 's/.*Build ID: //p')
[ -n "$id" ] || skip "the sample has no build-id"
cfile=$XDG_CACHE_HOME/ioscope/symbols/$(echo "$id" | cut -c1-2)/$id
env $REC_ENV "$IORECORD" -o "$work/t.zst" -- "$work/bin/small_writes" "$work/data" \
    >/dev/null 2>"$work/err" || die "recording failed: $(cat "$work/err")"

# first_frame FILE: the first line of the first small_buffer issue's stack,
# the program's own
first_frame() {
    $PY -c '
import json, sys
issues = [i for i in json.load(open(sys.argv[1])) if i["rule"] == "small_buffer"]
# a sanitizer build writes through the sanitizer interceptor:
# the first frame of the program itself is the one below it
frames = [f for f in issues[0]["stack"].split("\n")
          if not f.startswith("__interceptor_") and "sanitizer_common" not in f
          and "libasan" not in f] if issues else []
print(frames[0] if frames else "(no small_buffer issue)")' "$1"
}
analyse() {
    "$IOANALYZE" --format json "$work/t.zst" >"$work/$1.json" 2>"$work/$1.err" ||
        die "analysing ($1) failed: $(cat "$work/$1.err")"
}

# 1. the binary in place
analyse present
[ "$(first_frame "$work/present.json")" = "$want" ] ||
    die "with the binary in place the stack starts at '$(first_frame "$work/present.json")', not '$want'"
[ -f "$cfile" ] || die "no cache file $cfile"
grep -q "^f	1	$line		log_record	" "$cfile" ||
    not_ok "the cache file does not name log_record at line $line: $(head -c 600 "$cfile")"
[ "$(tail -n 1 "$cfile" | cut -c1-4)" = "end " ] || not_ok "the cache file has no end line"

# 2. the binary gone: the cache answers
mv "$work/bin/small_writes" "$work/served/"
analyse cached
cmp -s "$work/present.json" "$work/cached.json" ||
    not_ok "with the binary gone the issues differ from the cache's: $(diff "$work/present.json" "$work/cached.json" | head -5)"

# 3. a damaged cache file: not believed, rewritten
sed -i "s/log_record/log_recorX/" "$cfile"
analyse damaged
got=$(first_frame "$work/damaged.json")
case $got in
    small_writes+0x*) ;;
    *) not_ok "a damaged cache file was believed: the stack starts at '$got'" ;;
esac
grep -q log_recorX "$cfile" && not_ok "the damaged cache file was not rewritten"
head -n 2 "$cfile" | tr '\n' ' ' | grep -q "^ioscope-symbols 1 id $id " ||
    not_ok "the rewritten cache file is not one: $(head -c 300 "$cfile")"

# 4. debuginfod serving the binary: an empty cache, resolved through it
rm -rf "$XDG_CACHE_HOME"
port=$($PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
debuginfod -F -d "$work/debuginfod.sqlite" -p "$port" -t 0 -g 0 "$work/served" \
    >"$work/debuginfod.log" 2>&1 &
server=$!
# ready once it has scanned the file: it then serves the build-id
$PY - "$port" "$id" <<'PY' || die "debuginfod did not serve $id in 60 s: $(tail -n 3 "$work/debuginfod.log")"
import sys, time, urllib.request
url = "http://127.0.0.1:%s/buildid/%s/debuginfo" % (sys.argv[1], sys.argv[2])
for _ in range(600):
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            if r.status == 200:
                sys.exit(0)
    except Exception:
        pass
    time.sleep(0.1)
sys.exit(1)
PY
cp "$BUILD/bin/samples/clean" "$work/bin/small_writes"
DEBUGINFOD_URLS=http://127.0.0.1:$port analyse rebuilt
cmp -s "$work/present.json" "$work/rebuilt.json" ||
    not_ok "another build at the path, resolved through debuginfod, the issues differ: $(diff "$work/present.json" "$work/rebuilt.json" | head -5)"
rm -rf "$XDG_CACHE_HOME" "$work/bin/small_writes"
DEBUGINFOD_URLS=http://127.0.0.1:$port analyse served
cmp -s "$work/present.json" "$work/served.json" ||
    not_ok "resolved through debuginfod the issues differ: $(diff "$work/present.json" "$work/served.json" | head -5)"
[ -f "$cfile" ] || not_ok "what debuginfod served was not cached ($cfile)"

# 5. the server gone, its downloads gone: the symbol cache still has them
kill "$server"
wait "$server" 2>/dev/null
server=""
rm -rf "$XDG_CACHE_HOME/debuginfod_client"
DEBUGINFOD_URLS=http://127.0.0.1:$port analyse after
cmp -s "$work/present.json" "$work/after.json" ||
    not_ok "after debuginfod stopped the issues differ: $(diff "$work/present.json" "$work/after.json" | head -5)"

# and without the cache or a server the frame stays an address
rm -rf "$XDG_CACHE_HOME"
analyse none
case $(first_frame "$work/none.json") in
    small_writes+0x*) ;;
    *) not_ok "with neither the binary, the cache nor debuginfod the stack starts at '$(first_frame "$work/none.json")'" ;;
esac
exit $fail
