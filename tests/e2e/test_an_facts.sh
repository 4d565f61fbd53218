#!/bin/sh
# Facts an issue states hold whatever recorded the program (issue 41, part 4):
# - a trace and its own JSONL dump give the same issues: a sync named by its
#   session's path and call site, however the event names its file;
# - a stdio stream whose every syscall but the last wrote a full buffer (the
#   fwrite sequence libpng makes) is not "emptied early", and the model's
#   syscalls are strace's;
# - a directory listed again and again (os.listdir) is no repeat_read;
# - one cause, one group: PHP's session file opened per request at one site
#   and rewritten at another (a repeat_open and a write_amplification).
# e2e: slow (about 5 s CPU here: recordings of timed syncs)
. "$(dirname "$0")/lib.sh"
need_built "$IOANALYZE" "$IORECORD" "$LIBIORECORD"
have cc || skip "cc is needed"
work_dir an-facts
cd "$work" || exit 1

# issues FILE ARGS...: one line per issue of FILE: rule, path, op, stack
issues() {
    f=$1; shift
    "$IOANALYZE" --format json "$@" "$f" 2>/dev/null | python3 -c '
import json, sys
for i in json.load(sys.stdin):
    print(i["rule"], i["path"], i["op"], json.dumps(i["stack"]))'
}

# --- a trace and its dump: the syncs of a.aof are one group, named by a.aof
cat >sync.c <<'C'
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>
static void *w(void *a) { return a; }
static void manifest(void) { int fd = open("m.tmp", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    write(fd, "x", 1); fdatasync(fd); close(fd); }
int main(void) {
    pthread_t t; pthread_create(&t, 0, w, 0); pthread_join(t, 0);
    int fd = open("a.aof", O_WRONLY | O_CREAT | O_APPEND, 0644);
    manifest();
    for (int i = 0; i < 300; i++) { write(fd, "0123456789", 10); fdatasync(fd); }
    close(fd); return 0; }
C
cc -O1 -g -o sync sync.c -lpthread || die "cc sync.c"
env $(asan_env "$LIBIORECORD") "$IORECORD" -o s.zst -- ./sync || die "iorecord ./sync"
"$IOANALYZE" dump --format jsonl s.zst >s.jsonl || die "dump s.zst"
# every call over 1 ms is reported: the 300 syncs of a.aof, when some took
# that long here (a disk; tmpfs syncs take microseconds), are one group of 300
set -- --rules main_thread --set main_thread.scope=all --set main_thread.max_once_ms=1 \
    --min-severity low
issues s.zst "$@" >trace.issues
issues s.jsonl "$@" >dump.issues
cmp -s trace.issues dump.issues ||
    not_ok "the dump's issues differ from the trace's: $(diff trace.issues dump.issues | head -6)"
slow=$(python3 -c '
import json, sys
print(sum(1 for l in open(sys.argv[1]) for e in [json.loads(l)]
          if e.get("op") == "fdatasync" and (e.get("path") or "").endswith("/a.aof")
          and (e.get("dur") or 0) > 1000000))' s.jsonl)
if [ "$slow" -gt 0 ]; then
    grep -q "^main_thread $work/a.aof 300 " trace.issues ||
        not_ok "no main_thread issue naming a.aof's 300 syncs: $(cat trace.issues)"
    [ "$(grep -c "a.aof" trace.issues)" = 1 ] || not_ok "a.aof's syncs in more than one group"
else
    echo "SKIP the syncs' group: no fdatasync took over 1 ms here"
fi

# --- full stdio buffers are not emptied early
cat >pngish.c <<'C'
#include <stdio.h>
#include <stdlib.h>
static char buf[8192];
static void chunk(FILE *f, int len) { fwrite(buf, 1, 8, f); if (len) fwrite(buf, 1, len, f);
    fwrite(buf, 1, 4, f); }
int main(int argc, char **argv) {
    int n = atoi(argv[2]), tail = atoi(argv[3]);
    FILE *f = fopen(argv[1], "wb");
    fwrite(buf, 1, 8, f); chunk(f, 13); chunk(f, 9); chunk(f, 9);
    for (int i = 0; i < n; i++) chunk(f, 8192);
    chunk(f, tail); chunk(f, 0);
    fclose(f); return 0; }
C
cc -O1 -g -o pngish pngish.c || die "cc pngish.c"
env $(asan_env "$LIBIORECORD") "$IORECORD" -o p.zst -- ./pngish out.png 38 5824 ||
    die "iorecord ./pngish"
issues p.zst --ci --min-severity low >png.issues
[ ! -s png.issues ] || not_ok "full 4 KiB stdio writes reported: $(cat png.issues)"

# --- a directory listed ten times is not read again
if have python3; then
    env $(asan_env "$LIBIORECORD") "$IORECORD" -o l.zst -- \
        python3 -c "import os; [os.listdir('/usr/share') for _ in range(10)]" ||
        die "iorecord python3"
    issues l.zst --ci --min-severity low --rules repeat_read >ls.issues
    [ ! -s ls.issues ] || not_ok "a listed directory is a repeat_read: $(cat ls.issues)"
else
    echo "SKIP directory listing: python3 is not installed"
fi
# --- one file opened by one site: its issues are one group
"$IOANALYZE" --format json --min-severity low --rules repeat_open,write_amplification \
    "$TOP/tests/fixtures/rules/facts_session_file.jsonl" >sess.json 2>/dev/null ||
    die "ioanalyze facts_session_file.jsonl"
groups=$(python3 -c '
import json, sys
v = json.load(open(sys.argv[1]))
print(len(v), len(set(i["group"] for i in v)))' sess.json)
[ "$groups" = "2 1" ] || not_ok "the session file's 2 issues in one group: got (issues groups) $groups"
# --- an event loop's fdatasync calls, found by main_thread at their site and
#     by sync_storm on the file: the same syncs, one group
"$IOANALYZE" --format json --rules main_thread,sync_storm \
    "$TOP/tests/fixtures/rules/facts_event_loop_syncs_twice.jsonl" >aof.json 2>/dev/null ||
    die "ioanalyze facts_event_loop_syncs_twice.jsonl"
groups=$(python3 -c '
import json, sys
v = json.load(open(sys.argv[1]))
print(" ".join(sorted(i["rule"] for i in v)), len(set(i["group"] for i in v)))' aof.json)
[ "$groups" = "main_thread sync_storm 1" ] ||
    not_ok "an event loop's syncs and their sync_storm in one group: got (rules groups) $groups"
exit $fail
