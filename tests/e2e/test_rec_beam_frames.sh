#!/bin/sh
# BEAM's Erlang frames above a dirty NIF's native ones, with Erlang: a
# module whose write_records/1 makes 3000 small raw-file writes, run with
# +JPperf true twice and once without it. The small_buffer issue's stack
# names recs:write_records/1 above the native frames (efile_writev), with
# the same fingerprint in both flagged runs and nothing lost; without the
# flag the same number of Erlang frames is there, unnamed, and the summary
# names the flag once. The program's output and exit status are its own in
# every run. The recorder's checks on a stand-in: test_rec_beam_stand_in.sh.
# e2e: slow (about 7 s CPU here: four Erlang runtime starts, three under the recorder)
set -u
. "$(dirname "$0")/lib.sh"
need_built "$IORECORD" "$IOANALYZE" "$LIBIORECORD"
have erl && have erlc || skip "erlang is not installed"
REC_ENV=$(asan_env "$LIBIORECORD")
[ -z "$REC_ENV" ] || export $REC_ENV
work_dir beam_frames
cd "$work" || exit 1

cat > recs.erl <<'ERL'
-module(recs).
-export([main/1]).

%% one small raw write per record
write_records(Path) ->
    {ok, F} = file:open(Path, [write, raw, binary]),
    lists:foreach(fun(N) -> ok = file:write(F, [integer_to_binary(N), $\n]) end,
                  lists:seq(1, 3000)),
    ok = file:close(F).

main([Dir]) ->
    write_records(filename:join(Dir, "records.log")),
    io:format("records written~n"),
    halt(0).
ERL
erlc recs.erl || die "erlc failed"
rm -rf o && mkdir o && erl +JPperf true -noshell -pa "$work" -run recs main o > erl.out; echo $? >> erl.out
for t in f1 f2 plain; do
    rm -rf o && mkdir o
    if [ $t = plain ]; then
        "$IORECORD" -o $t.zst -- erl -noshell -pa "$work" -run recs main o > $t.out
    else
        "$IORECORD" -o $t.zst -- erl +JPperf true -noshell -pa "$work" -run recs main o > $t.out
    fi
    echo $? >> $t.out
    cmp -s erl.out $t.out || not_ok "erl $t: output or exit status differs with the recorder: $(cat $t.out)"
    "$IOANALYZE" --rules small_buffer $t.zst > $t.json 2> $t.err || not_ok "erl $t: analyze"
    "$IOANALYZE" info $t.zst > $t.info 2>&1 || not_ok "erl $t: info"
done
python3 - "$work" <<'PY' || not_ok "erl: frames"
import json, re, sys
work = sys.argv[1]

def issue(t):
    """The small_buffer issue of records.log: its frames, fingerprint."""
    got = [i for i in json.load(open("%s/%s.json" % (work, t)))
           if i["rule"] == "small_buffer" and i["path"] == work + "/o/records.log"]
    assert len(got) == 1, (t, got)
    assert got[0]["detail"]["syscalls"] == 3000, (t, got[0]["detail"])
    return got[0]["frames"], got[0]["fingerprint"]

def erlang_part(frames):
    """The JIT frames above the native ones, and the first native one of
    beam.smp (below a sanitizer interceptor's frames)."""
    k = next(k for k, f in enumerate(frames) if f["module"] != "[jit]")
    native = [f for f in frames[k:]
              if not (f["module"] or "").rsplit("/", 1)[-1].startswith("libasan")]
    return frames[:k], native[0]["function"] if native else None

f1, fp1 = issue("f1")
f2, fp2 = issue("f2")
plain, _ = issue("plain")
erl1, first_native = erlang_part(f1)
names = [f["function"] for f in erl1]
assert "recs:write_records/1" in names, names
assert names[0].startswith("prim_file:"), names
assert first_native == "efile_writev", first_native
assert fp1 == fp2, (fp1, fp2)
assert [f["function"] for f in erlang_part(f2)[0]] == names
# without the flag: the same Erlang frames, unnamed
erl_plain, _ = erlang_part(plain)
assert len(erl_plain) == len(erl1) and all(f["function"] is None for f in erl_plain), erl_plain
for t in ("f1", "f2", "plain"):
    assert "stack_no_beam_frames" not in open("%s/%s.info" % (work, t)).read(), t
flagged = open(work + "/f1.err").read() + open(work + "/f2.err").read()
assert "+JPperf" not in flagged, flagged
hint = re.findall(r"erl \(pid \d+\): \+JPperf true", open(work + "/plain.err").read())
assert len(hint) == 1, open(work + "/plain.err").read()
print("ok   erl: %s" % " <- ".join(names[:6]))
PY
exit $fail
