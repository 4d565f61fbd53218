#!/bin/sh
# BEAM's Erlang frames above a dirty NIF's native ones, on every machine:
# tests/progs/rec_fakebeam.c stands in for beam.smp (OTP 25's JIT). Opens
# made under its erts_call_dirty_nif get the Erlang stack's callers in
# front of their native frames, named by the perf map (and not the
# process's exit at the stack's bottom); a process whose heap size
# disagrees with its bounds, or a release the recorder does not know,
# gives the native frames only and a `lost` stack_no_beam_frames count of
# exactly the stacks it left so; an open outside a dirty NIF is untouched.
# The program's output and exit status are its own. Erlang itself:
# test_rec_beam_frames.sh.
set -u
. "$(dirname "$0")/lib.sh"
FAKE=$BUILD/bin/progs/rec_fakebeam
need_built "$IORECORD" "$IOANALYZE" "$LIBIORECORD" "$FAKE"
REC_ENV=$(asan_env "$LIBIORECORD")
[ -z "$REC_ENV" ] || export $REC_ENV
work_dir beam_stand_in
cd "$work" || exit 1

for mode in good badheap release native; do
    mkdir -p "n.$mode" "r.$mode"
    "$FAKE" $mode "n.$mode" > "$mode.native" 2>&1; echo $? >> "$mode.native"
    "$IORECORD" -o "$mode.zst" -- "$FAKE" $mode "r.$mode" > "$mode.rec" 2>&1; echo $? >> "$mode.rec"
    "$IOANALYZE" --set leak.min_count=1 --min-severity low --rules leak "$mode.zst" \
        > "$mode.json" 2> "$mode.err" || not_ok "fakebeam $mode: analyze"
    "$IOANALYZE" info "$mode.zst" > "$mode.info" 2>&1 || not_ok "fakebeam $mode: info"
done
python3 - "$work" <<'PY' || not_ok "fakebeam: frames"
import json, re, sys
work = sys.argv[1]

def own(frames):
    """Without a sanitizer interceptor's leading frames."""
    while frames and (frames[0]["module"] or "").rsplit("/", 1)[-1].startswith("libasan"):
        frames = frames[1:]
    return frames

erlang = ["prim_file:open/2", "fake:write_records/1", "fake:main/1"]
for mode, want_erl, dirty, lost in [("good", erlang, True, None), ("badheap", [], True, 3),
                                    ("release", [], True, 3), ("native", [], False, None)]:
    native = open("%s/%s.native" % (work, mode)).read()
    assert native == "opened 3\n0\n", (mode, native)
    assert open("%s/%s.rec" % (work, mode)).read() == native, mode
    leaks = [i for i in json.load(open("%s/%s.json" % (work, mode))) if i["rule"] == "leak"]
    assert len(leaks) == 1 and leaks[0]["path"] == "%s/r.%s/%s" % (work, mode, mode), (mode, leaks)
    names = [f["function"] for f in own(leaks[0]["frames"])]
    c_frames = ["opener", "erts_call_dirty_nif", "main"] if dirty else ["opener", "main"]
    assert names[:len(want_erl) + len(c_frames)] == want_erl + c_frames, (mode, names)
    assert not any(n and "normal_exit" in n for n in names), (mode, names)
    info = open("%s/%s.info" % (work, mode)).read()
    got = re.findall(r"lost: stack_no_beam_frames, (\d+)", info)
    assert got == ([str(lost)] if lost else []), (mode, got)
PY

exit $fail
