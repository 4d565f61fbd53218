#!/bin/sh
# Precision on servers and databases: the server-shaped half of the
# precision corpus (test_precision.sh has the command-line tools). Each
# workload is recorded with iorecord twice, in $work/d1 and in $work/d2
# (different paths, the same shape), from the Debian packages CI installs:
#  pg_initdb  PostgreSQL's initdb (and the bootstrap postgres it runs);
#  pg_server  a postgres server (run as the postgres user, its socket in the
#             work directory, no TCP) through pgbench -i -s 1, a CHECKPOINT
#             and pgbench -c 4 -t 300, stopped with pg_ctl -m fast;
#  redis      redis-server --appendonly yes --appendfsync always --save ''
#             on a unix socket, driven by redis-benchmark -n 2000 -t set;
#  rsync      rsync -a of 2000 small files into an empty directory;
#  git_gc     git gc of a repository of 60 commits.
# Then, for each workload:
#  - the issues of d1 are the ones EXPECT lists for it: every "want" row is
#    there, no "never" row is (the false or negligible findings each of
#    these programs used to get), and nothing outside the "want" and
#    "maybe" rows is reported;
#  - `ioanalyze diff` of d1's issues against d2's finds nothing new and
#    nothing fixed: fingerprints do not hold the data directory, a pid or a
#    temp name, and no judgement flips between two identical runs;
#  - every output format runs over the d1 trace (tests/e2e/outputs.sh).
# A workload whose package (or, for PostgreSQL, user) is missing is skipped
# with its reason; the test is skipped when none can run.
#
# Severity near the low line follows the load (a finding's time does), so
# findings that are true and negligible are allowed either way here
# ("maybe" rows) and their cost judgement is tested on fixtures; the diff
# of d1 against d2 takes every issue, low ones too.
# e2e: slow (about 45 s here: starts PostgreSQL and redis, each workload recorded twice)
. "$(dirname "$0")/lib.sh"
need_built "$IORECORD" "$IOANALYZE" "$LIBIORECORD"
have python3 || skip "python3 is needed to check the issues"
REC_ENV=$(asan_env "$LIBIORECORD")

work_dir precision-servers
# PostgreSQL runs as the postgres user: it must reach its directories.
chmod 755 "$work" || exit 1
# A test that stops half-way leaves no server behind: a postgres still
# running is stopped (immediate), then whatever launched a server is killed.
servers=""
cleanup() {
    for _pid in "$work"/d*/pg/data/postmaster.pid; do
        [ -f "$_pid" ] && as_pg "'$PGBIN/pg_ctl' -D '${_pid%/postmaster.pid}' -m immediate stop" \
            >/dev/null 2>&1
    done
    for _p in $servers; do
        kill "$_p" 2>/dev/null
    done
    rm -rf "$work"
}

# What each workload must report, besides the timing rules small_buffer and
# repeat_read: "WORKLOAD KIND RULE PROCESS FILE [KEY=VALUE]". KIND is want
# (at least one such issue), never (none: a false or negligible finding) or
# maybe (allowed either way: a judgement that hangs on this machine's disk
# or load). FILE is a Python regular expression matched against the whole
# base name of the issue's path; KEY=VALUE must equal detail[KEY]. Any
# issue that no want or maybe row matches is a failure. Why each is right
# is in docs/analyzer.md ("Precision on servers").
cat >"$work/expect" <<'EOF'
# initdb: one-time bootstrap, every finding negligible: nothing. The
# catalogs' repeat_open (pg_class opened 593 times, about 2 ms, 1.3% of the
# bootstrap's I/O time) and random_read on pg_proc are true and low; how
# near the low line they sit follows the machine's load (a busy run here
# made one medium), so they are allowed; the negligible-cost judgement is
# tested on fixtures of their shape (gen_impact.py)
pg_initdb maybe repeat_open postgres [0-9]{1,10}(_fsm|_vm|_init)?(\.[0-9]+)?
# initdb's choice of a time zone (TZ unset) calls localtime() about 5200
# times, and glibc stats /etc/localtime at each: true, about 35 ms here, and
# gone with TZ set; its severity follows the load. No other lookup storm.
pg_initdb maybe metadata_storm initdb localtime
pg_initdb never metadata_storm .* (?!localtime$).*
pg_initdb never leak .* .*
pg_initdb maybe random_read postgres [0-9]{1,10}(_fsm|_vm|_init)?(\.[0-9]+)?
# the server: 1200 one-row transactions, each commit an fdatasync of the
# WAL segment (group commit joins a few): the client's commit pattern, as
# with sqlite3 without a transaction
pg_server want sync_storm postgres [0-9A-F]{24}
# the checkpointer: a sync_file_range per range written back (a hint)
# and one fsync per relation file: no storm
pg_server never sync_storm .* [0-9]{1,10}(_fsm|_vm|_init)?(\.[0-9]+)?
# the backends' and the checkpointer's fd caches of relation files, held
# until they exit
pg_server never leak .* .*
# the benchmark's random keys read an index in random order: true, about
# 70 reads and a millisecond, low unless the load stretches them
pg_server maybe random_read .* [0-9]{1,10}(_fsm|_vm|_init)?(\.[0-9]+)?
# the WAL is appended in order by all the backends, each backend's writes
# stepping over the others'; the checkpointer writes dirty pages in block
# order, the gaps being pages nobody dirtied: neither is scattered
pg_server never random_write .* [0-9A-F]{24}
# a new WAL segment is filled under xlogtemp.PID and renamed to its name:
# each a new file, not one file written again
pg_server never write_amplification .* xlogtemp\.[0-9]+
pg_server never random_write .* [0-9]{1,10}(_fsm|_vm|_init)?(\.[0-9]+)?
# appendfsync always: an fdatasync of the AOF per event-loop turn
redis want sync_storm redis-server appendonly\.aof\.[0-9]+\.incr\.aof
redis never .* redis-check-rdb .*
# with main_thread.max_once_ms=0 every main-thread call site is reported:
# the AOF's fdatasync (made in flushAppendOnlyFile) must be among them
redis_mt0 want main_thread redis-server appendonly\.aof\.[0-9]+\.incr\.aof call=fdatasync
redis_mt0 maybe main_thread redis-server .*
# the sender's O_PATH|O_DIRECTORY probes fail with ENOTDIR on files that
# exist; the generator checks each destination of a copy into an empty
# directory: neither is a missing path
rsync never metadata_storm rsync .*
# a tree copied into an empty one asks in each new directory once for
# names all directories share (copyright): not a search path
rsync_tree never metadata_storm rsync .*
git_gc never .* .* .*
EOF

# as_pg COMMAND: COMMAND run by /bin/sh as the postgres user.
as_pg() {
    if have runuser; then
        runuser -u postgres -- /bin/sh -c "$1"
    else
        su postgres -s /bin/sh -c "$1"
    fi
}

# wait_for TRIES COMMAND...: COMMAND until it succeeds, 0.1 s apart.
wait_for() {
    _n=$1
    shift
    until "$@" >/dev/null 2>&1; do
        _n=$((_n - 1))
        [ $_n -gt 0 ] || return 1
        sleep 0.1
    done
}

# PostgreSQL's own programs (Debian puts them under /usr/lib/postgresql/N/bin,
# its /usr/bin ones are wrappers that pick a cluster).
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -z "$PGBIN" ] || [ ! -x "$PGBIN/postgres" ] || [ ! -x "$PGBIN/pgbench" ] || [ ! -x "$PGBIN/psql" ]; then
    pg_skip="PostgreSQL is not installed (Debian: postgresql, postgresql-contrib for pgbench on old releases)"
elif [ "$(id -u)" -ne 0 ] || ! id postgres >/dev/null 2>&1; then
    pg_skip="PostgreSQL needs root and a postgres user to run its server"
elif ! as_pg "test -x '$IORECORD' && test -r '$LIBIORECORD' && test -x '$work'"; then
    pg_skip="the postgres user cannot reach the build or $work"
elif [ -n "$REC_ENV" ] && ! timeout 10 env $REC_ENV "$PGBIN/postgres" -V >/dev/null 2>&1; then
    # postgres waits forever in bindtextdomain with the ASan runtime
    # preloaded, without the recorder as well
    pg_skip="postgres -V does not finish with the ASan runtime preloaded (make asan)"
fi
# Without TCP (listen_addresses='') the port only names the socket in the
# workload's own directory, so any port is free there.
PGPORT=5433

# pg RUN: initdb and the server recorded in $work/RUN/pg.
pg() {
    _d=$work/$1/pg
    mkdir -p "$_d" && chown postgres "$_d" || return 1
    as_pg "cd '$_d' && exec env $REC_ENV '$IORECORD' -o '$_d/initdb.zst' -- \
        '$PGBIN/initdb' -D '$_d/data' -A trust -U postgres" >"$_d/initdb.log" 2>&1 ||
        { not_ok "pg_initdb $1: initdb failed under the recorder: $(tail -n 3 "$_d/initdb.log")"; return 1; }
    as_pg "cd '$_d' && exec env $REC_ENV '$IORECORD' -o '$_d/server.zst' -- \
        '$PGBIN/postgres' -D '$_d/data' -k '$_d' -p $PGPORT -c listen_addresses=" \
        >"$_d/server.log" 2>&1 &
    _srv=$!
    servers="$servers $_srv"
    if wait_for 300 "$PGBIN/pg_isready" -q -h "$_d" -p $PGPORT; then
        "$PGBIN/pgbench" -i -s 1 -h "$_d" -p $PGPORT -U postgres postgres >"$_d/init.log" 2>&1 ||
            not_ok "pgbench -i: $(tail -n 2 "$_d/init.log")"
        # the bulk load checkpointed now, so that the shutdown checkpoint
        # writes back the pages pgbench's random updates dirtied: a
        # sync_file_range per scattered range, then one fsync per file
        "$PGBIN/psql" -q -h "$_d" -p $PGPORT -U postgres -c CHECKPOINT postgres >>"$_d/init.log" 2>&1 ||
            not_ok "psql CHECKPOINT: $(tail -n 2 "$_d/init.log")"
        "$PGBIN/pgbench" -c 4 -t 300 -h "$_d" -p $PGPORT -U postgres postgres >"$_d/bench.log" 2>&1 ||
            not_ok "pgbench: $(tail -n 2 "$_d/bench.log")"
    else
        not_ok "pg_server $1: postgres did not start: $(tail -n 3 "$_d/server.log")"
    fi
    as_pg "'$PGBIN/pg_ctl' -D '$_d/data' -m fast -w stop" >/dev/null 2>&1 ||
        { kill "$_srv" 2>/dev/null; not_ok "pg_ctl stop failed"; }
    wait "$_srv" || not_ok "pg_server $1: the recorded server exited $?: $(tail -n 3 "$_d/server.log")"
    mv "$_d/initdb.zst" "$work/$1/pg_initdb.zst" && mv "$_d/server.zst" "$work/$1/pg_server.zst"
}

# redis RUN: the server recorded in $work/RUN/redis.
redis() {
    _d=$work/$1/redis
    mkdir -p "$_d" || return 1
    (cd "$_d" && exec env $REC_ENV "$IORECORD" -o "$work/$1/redis.zst" -- redis-server \
        --appendonly yes --appendfsync always --save '' --port 0 --unixsocket "$_d/r.sock" \
        --dir "$_d") >"$_d/server.log" 2>&1 </dev/null &
    _srv=$!
    servers="$servers $_srv"
    if wait_for 100 redis-cli -s "$_d/r.sock" ping; then
        redis-benchmark -s "$_d/r.sock" -n 2000 -t set -q >"$_d/bench.log" 2>&1 ||
            not_ok "redis-benchmark: $(tail -n 2 "$_d/bench.log")"
        redis-cli -s "$_d/r.sock" shutdown nosave >/dev/null 2>&1
    else
        kill "$_srv" 2>/dev/null
        not_ok "redis $1: redis-server did not start: $(tail -n 3 "$_d/server.log")"
    fi
    wait "$_srv" || not_ok "redis $1: the recorded server exited $?: $(tail -n 3 "$_d/server.log")"
}

# rsync RUN: 2000 small files copied into an empty directory.
rsync_copy() {
    _d=$work/$1/rsync
    mkdir -p "$_d/src" || return 1
    for _i in $(seq 2000); do echo "file $_i" >"$_d/src/f$_i.txt"; done
    (cd "$_d" && env $REC_ENV "$IORECORD" -o "$work/$1/rsync.zst" -- rsync -a src/ dst/) \
        >"$_d/rsync.log" 2>&1 </dev/null || not_ok "rsync $1: $(tail -n 3 "$_d/rsync.log")"
    [ "$(ls "$_d/dst" | wc -l)" -eq 2000 ] || not_ok "rsync $1: not 2000 files copied"
    # a tree of 600 package directories, each with a copyright and a
    # changelog (/usr/share/doc's shape), copied into an empty one
    for _i in $(seq 600); do
        mkdir -p "$_d/tree/pkg$_i" && echo "c $_i" >"$_d/tree/pkg$_i/copyright" &&
            echo "l $_i" >"$_d/tree/pkg$_i/changelog.Debian.gz" || return 1
    done
    (cd "$_d" && env $REC_ENV "$IORECORD" -o "$work/$1/rsync_tree.zst" -- rsync -a tree/ tree_dst/) \
        >"$_d/rsync_tree.log" 2>&1 </dev/null || not_ok "rsync tree $1: $(tail -n 3 "$_d/rsync_tree.log")"
    [ "$(find "$_d/tree_dst" -type f | wc -l)" -eq 1200 ] || not_ok "rsync tree $1: not 1200 files copied"
}

# git_gc RUN: a repository of 60 commits (the same dates in both runs),
# then git gc recorded.
git_gc() {
    _d=$work/$1/git
    mkdir -p "$_d" && git init -q "$_d" || return 1
    (
        cd "$_d" || exit 1
        export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t \
            GIT_COMMITTER_EMAIL=t@example.com
        for _i in $(seq 60); do
            echo "line $_i" >>a.txt
            echo "$_i" >"f$((_i % 7)).txt"
            git add -A &&
                GIT_AUTHOR_DATE="@$((1700000000 + _i)) +0000" GIT_COMMITTER_DATE="@$((1700000000 + _i)) +0000" \
                    git commit -qm "c$_i" || exit 1
        done
    ) || { not_ok "git $1: making the repository failed"; return 1; }
    (cd "$_d" && env $REC_ENV "$IORECORD" -o "$work/$1/git_gc.zst" -- git gc -q) \
        >"$_d/gc.log" 2>&1 </dev/null || not_ok "git gc $1: $(tail -n 3 "$_d/gc.log")"
}

ran="" skipped=""
for run in d1 d2; do
    mkdir -p "$work/$run" && chmod 755 "$work/$run" || exit 1
    if [ -z "$pg_skip" ]; then pg $run; fi
    if have redis-server && have redis-cli && have redis-benchmark; then redis $run; fi
    if have rsync; then rsync_copy $run; fi
    if have git; then git_gc $run; fi
done
[ -z "$pg_skip" ] && ran="$ran pg_initdb pg_server" || skipped="$skipped; $pg_skip"
have redis-server && have redis-cli && have redis-benchmark && ran="$ran redis" ||
    skipped="$skipped; redis-server is not installed (Debian: redis-server, redis-tools)"
have rsync && ran="$ran rsync rsync_tree" || skipped="$skipped; rsync is not installed (Debian: rsync)"
have git && ran="$ran git_gc" || skipped="$skipped; git is not installed (Debian: git)"
[ -n "$ran" ] || skip "no workload can run${skipped}"
[ -z "$skipped" ] || echo "(skipped${skipped#;})"

# analyze_args LABEL: the options the issues of workload LABEL are judged with.
analyze_args() {
    case $1 in
        redis | git_gc) echo "--disable main_thread" ;;
        redis_mt0) echo "--rules main_thread --set main_thread.max_once_ms=0" ;;
        *) echo "" ;;
    esac
}
# redis's main_thread is judged apart (redis_mt0), with every main-thread
# call site reported (max_once_ms=0): at 13 ms, whether an fdatasync is
# reported hangs on the disk's load at that moment (0.25-0.6 ms on an idle
# disk here, 680 ms on a busy one), in one run and not in the next. git gc's
# main thread fsyncs its pack the same way (58 ms in one run here, under
# 13 ms in the next): main_thread is left out of its judgement.
labels=""
for name in $ran; do
    labels="$labels $name"
    [ "$name" = redis ] && labels="$labels redis_mt0"
done
for label in $labels; do
    name=${label%_mt0}
    t1=$work/d1/$name.zst t2=$work/d2/$name.zst
    [ -s "$t1" ] && [ -s "$t2" ] || { not_ok "$label: no trace recorded"; continue; }
    args=$(analyze_args "$label")
    # shellcheck disable=SC2086
    "$IOANALYZE" $args "$t1" >"$work/$label.d1.json" 2>"$work/$label.err" &&
        "$IOANALYZE" $args "$t2" >"$work/$label.d2.json" 2>>"$work/$label.err" ||
        { not_ok "$label: ioanalyze failed: $(cat "$work/$label.err")"; continue; }
    python3 - "$work/expect" "$label" "$work/$label.d1.json" <<'EOF' || fail=1
import json, os, re, sys
TIMING = {"small_buffer", "repeat_read"}
label, issues = sys.argv[2], json.load(open(sys.argv[3]))
rows = []
for line in open(sys.argv[1]):
    f = line.split()
    if not f or f[0].startswith("#") or f[0] != label:
        continue
    detail = dict(kv.split("=", 1) for kv in f[5:])
    rows.append((f[1], re.compile(f[2]), re.compile(f[3]), re.compile(f[4]), detail))
def matches(row, i):
    _, rule, proc, path, detail = row
    return (rule.fullmatch(i["rule"]) and proc.fullmatch(i.get("process", ""))
            and path.fullmatch(os.path.basename(i.get("path") or ""))
            and all(str(i["detail"].get(k)) == v for k, v in detail.items()))
def show(i):
    return "%s %s %s: %s" % (i["rule"], i.get("process"), os.path.basename(i.get("path") or ""),
                             i["message"])
bad = []
for row in rows:
    if row[0] == "want" and not [i for i in issues if matches(row, i)]:
        bad.append("missing %s %s %s %s" % (row[1].pattern, row[2].pattern, row[3].pattern,
                                            " ".join("%s=%s" % kv for kv in row[4].items())))
for i in issues:
    if i["rule"] in TIMING:
        continue
    if [r for r in rows if r[0] == "never" and matches(r, i)]:
        bad.append("false or negligible: " + show(i))
    elif not [r for r in rows if r[0] in ("want", "maybe") and matches(r, i)]:
        bad.append("unexpected: " + show(i))
for b in bad:
    print("FAIL: %s: %s" % (label, b))
sys.exit(1 if bad else 0)
EOF
    # the diff takes every issue, low ones too (the CI recipe's way): what
    # two runs must agree on is what was found and its fingerprint; a
    # finding's time, and so its severity near a line, follows the load.
    # redis at main_thread 0 ms is left out: every main-thread call site is
    # reported, and whether redis rewrote its AOF (a temp manifest) during
    # the run is the workload's own timing
    [ "$label" = redis_mt0 ] && continue
    # shellcheck disable=SC2086
    "$IOANALYZE" $args --min-severity low "$t1" >"$work/$label.d1.all.json" 2>>"$work/$label.err" &&
        "$IOANALYZE" $args --min-severity low "$t2" >"$work/$label.d2.all.json" 2>>"$work/$label.err" ||
        { not_ok "$label: ioanalyze --min-severity low failed: $(cat "$work/$label.err")"; continue; }
    "$IOANALYZE" diff --min-severity low "$work/$label.d1.all.json" "$work/$label.d2.all.json" \
        >"$work/$label.diff" 2>"$work/$label.differr"
    rc=$?
    python3 - "$work/$label.diff" "$label" "$rc" <<'EOF' || fail=1
import json, os, sys
label, rc = sys.argv[2], int(sys.argv[3])
try:
    d = json.load(open(sys.argv[1]))
except ValueError:
    print("FAIL: %s: ioanalyze diff exit %d, no JSON" % (label, rc))
    sys.exit(1)
where = {"new": "in d2 only", "fixed": "in d1 only"}
bad = ["%s: %s %s %s" % (where[k], i["rule"], i.get("process"), os.path.basename(i.get("path") or ""))
       for k in ("new", "fixed") for i in d.get(k, [])]
if rc != 0 and not bad:
    bad.append("ioanalyze diff exit %d" % rc)
for b in bad:
    print("FAIL: %s: d1 against d2: %s" % (label, b))
sys.exit(1 if bad else 0)
EOF
done

. "$(dirname "$0")/outputs.sh"
for name in $ran; do
    [ -s "$work/d1/$name.zst" ] && check_outputs "$work/d1/$name.zst" "$name"
done

[ $fail -eq 0 ] && echo "ok:$ran as expected, d1 and d2 diff to nothing new or fixed"
exit $fail
