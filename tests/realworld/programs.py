"""The programs `make realworld` records, declared once.

Each row: name, kind, the Debian package(s) that hold it, the commands it
needs on PATH, and shell snippets run with `sh -c` in the run's directory:
setup (not recorded), workload (recorded), teardown (not recorded). A server
row has `server` (recorded, started first), `client` (the load, not
recorded) and `stop` (the signal that ends the server); `comm` names the
server's process so that the driver can find it under the recorder or
strace. `spread` is 0 where the program does the same work on every run;
where its work depends on time (group commit, autosave, a load client's
batching) it is the share by which a count may differ between runs (0.5:
half): figures are compared within it, not exactly.

Every snippet sees RUN (the run's directory, also its cwd), HOME (a fresh
directory of its own), PORT (the row's port), DATA (a fixed read-only tree)
and PY (Debian's python3, which sees Debian's modules).
"""

DATA = "/usr/include/linux"

_SQL = r"""
{ echo 'create table t(a integer primary key, b text);'
  i=0; while [ $i -lt 200 ]; do echo "insert into t(b) values('row $i');"; i=$((i+1)); done
  echo 'select count(*) from t;'; } > ins.sql
"""

_GIT = r"""
git config --global user.email rw@example.org && git config --global user.name rw &&
git init -q repo && cd repo && i=0 &&
while [ $i -lt 60 ]; do echo "line $i" > f$i.txt; i=$((i+1)); done &&
git add . && git commit -qm first && i=0 &&
while [ $i -lt 30 ]; do echo "more $i" >> f$i.txt; git commit -qam "c$i"; i=$((i+1)); done
"""

_MAKE = r"""
mkdir -p src && i=0 &&
while [ $i -lt 12 ]; do
  printf '#include <stdio.h>\n#include "common.h"\nint f%d(int x) { return x * %d + K; }\n' $i $i > src/f$i.c
  i=$((i+1)); done &&
printf '#define K 3\n' > src/common.h &&
printf 'int main(void){return 0;}\n' > src/main.c &&
printf 'SRC := $(wildcard src/*.c)\nOBJ := $(SRC:.c=.o)\nprog: $(OBJ)\n\tgcc -o $@ $^\nsrc/%%.o: src/%%.c src/common.h\n\tgcc -O1 -c -o $@ $<\n' > Makefile
"""

_HG = r"""
hg init repo && cd repo && i=0 &&
while [ $i -lt 40 ]; do echo "line $i" > f$i.txt; i=$((i+1)); done
"""
_HG_WORK = r"""
cd repo && hg add -q . && i=0 &&
while [ $i -lt 4 ]; do echo "more $i" >> f$i.txt; hg commit -q -u rw -m "c$i"; i=$((i+1)); done
"""

_PYTEST = r"""
mkdir -p tests && cat > tests/test_rw.py <<'PYEOF'
import json
import pytest

@pytest.mark.parametrize("n", range(40))
def test_roundtrip(tmp_path, n):
    p = tmp_path / "v.json"
    p.write_text(json.dumps({"n": n}))
    assert json.loads(p.read_text())["n"] == n

def test_fails_once():
    assert True
PYEOF
"""

_JAVA = r"""
mkdir -p src out && i=0 &&
while [ $i -lt 8 ]; do
  printf 'public class C%d { public static int f(int x) { return x + %d; } }\n' $i $i > src/C$i.java
  i=$((i+1)); done &&
cat > src/Main.java <<'JEOF'
import java.io.*;
public class Main {
  public static void main(String[] a) throws IOException {
    try (PrintWriter w = new PrintWriter(new BufferedWriter(new FileWriter("out.txt")))) {
      for (int i = 0; i < 5000; i++) w.println("line " + C0.f(i) + " " + C7.f(i));
    }
    try (BufferedReader r = new BufferedReader(new FileReader("out.txt"))) {
      int n = 0; while (r.readLine() != null) n++; System.out.println(n);
    }
  }
}
JEOF
"""

_PHP = r"""
mkdir -p sess && cat > s.php <<'PEOF'
<?php
for ($i = 0; $i < 100; $i++) {
    session_id("rwsession");
    session_start();
    $_SESSION["n"] = ($_SESSION["n"] ?? 0) + 1;
    $_SESSION["data"] = str_repeat("x", 200);
    session_write_close();
    file_put_contents("visits.log", "visit $i\n", FILE_APPEND);
}
echo $_SESSION["n"] ?? 0, "\n";
PEOF
"""

_HUGO = r"""
hugo new site site -q >/dev/null 2>&1 || hugo new site site >/dev/null && mkdir -p site/content/posts site/layouts/_default && i=0 &&
while [ $i -lt 40 ]; do
  printf -- '---\ntitle: "Post %d"\ndate: 2024-01-01\n---\n\nBody of post %d with *some* text.\n' $i $i > site/content/posts/p$i.md
  i=$((i+1)); done &&
printf '<html><body>{{ .Content }}</body></html>\n' > site/layouts/_default/single.html &&
printf '<html><body>{{ range .Pages }}{{ .Title }} {{ end }}</body></html>\n' > site/layouts/_default/list.html
"""

_REDIS = r"""
printf 'port %s\nbind 127.0.0.1\nappendonly yes\nappendfsync always\ndir %s\nsave ""\nlogfile %s/redis.log\n' "$PORT" "$RUN" "$RUN" > redis.conf
"""

_NGINX = r"""
mkdir -p html logs tmp && i=0 && while [ $i -lt 20 ]; do printf 'page %d\n' $i > html/f$i.html; i=$((i+1)); done &&
cat > nginx.conf <<NEOF
worker_processes 1;
pid $RUN/nginx.pid;
error_log $RUN/logs/error.log;
events { worker_connections 64; }
http {
  access_log $RUN/logs/access.log;
  client_body_temp_path $RUN/tmp/body;
  proxy_temp_path $RUN/tmp/proxy;
  fastcgi_temp_path $RUN/tmp/fcgi;
  uwsgi_temp_path $RUN/tmp/uwsgi;
  scgi_temp_path $RUN/tmp/scgi;
  server { listen 127.0.0.1:$PORT; root $RUN/html; }
}
NEOF
i=0; while [ $i -lt 300 ]; do printf 'url = "http://127.0.0.1:%s/f%d.html"\noutput = "/dev/null"\n' "$PORT" $((i % 25)) ; i=$((i+1)); done > urls
"""

_REBAR = r"""
rebar3 new lib rwlib >/dev/null && i=0 &&
while [ $i -lt 20 ]; do
  printf -- '-module(m%d).\n-export([f/1]).\nf(X) -> X + %d.\n' $i $i > rwlib/src/m$i.erl
  i=$((i+1)); done
"""

_PG_BIN = "/usr/lib/postgresql/15/bin"
_PG = _PG_BIN + r"""/initdb -D pgdata -A trust -U postgres >/dev/null && mkdir -p sock"""

_MEMCACHED_CLIENT = r"""
$PY - "$PORT" <<'PYEOF'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
f = s.makefile("rb")
for i in range(2000):
    v = b"value-%d" % i
    s.sendall(b"set k%d 0 0 %d\r\n%s\r\n" % (i % 100, len(v), v)); f.readline()
    s.sendall(b"get k%d\r\n" % (i % 100))
    while f.readline() != b"END\r\n":
        pass
PYEOF
"""

_BEANSTALK_CLIENT = r"""
$PY - "$PORT" <<'PYEOF'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
f = s.makefile("rb")
for i in range(200):
    body = b"job-%04d" % i
    s.sendall(b"put 0 0 60 %d\r\n%s\r\n" % (len(body), body)); f.readline()
for i in range(100):
    s.sendall(b"reserve-with-timeout 0\r\n"); line = f.readline()
    if line.startswith(b"RESERVED"):
        f.readline(); s.sendall(b"delete %s\r\n" % line.split()[1]); f.readline()
PYEOF
"""

_MOSQUITTO = r"""
printf 'listener %s 127.0.0.1\nallow_anonymous true\nuser root\npersistence true\npersistence_location %s/\nlog_dest file %s/mosquitto.log\n' "$PORT" "$RUN" "$RUN" > mosquitto.conf &&
i=0; while [ $i -lt 200 ]; do echo "message $i"; i=$((i+1)); done > msgs
"""


def row(name, kind, package, needs, workload="", setup="", teardown="",
        server="", client="", stop="TERM", comm="", port=0, spread=0.0,
        user=""):
    return dict(name=name, kind=kind, package=package, needs=needs,
                setup=setup, workload=workload, teardown=teardown,
                server=server, client=client, stop=stop, comm=comm,
                port=port, spread=spread, user=user)


PROGRAMS = [
    # servers, each under a load client
    row("redis", "server", "redis-server redis-tools", ["redis-server", "redis-benchmark"],
        setup=_REDIS, server="redis-server ./redis.conf", comm="redis-server",
        # one client: a command per event-loop turn, so one AOF write and sync
        # each, however loaded the machine (four clients' commands are
        # batched into fewer writes the quieter it is)
        client="redis-benchmark -p $PORT -n 400 -c 1 -t set,lpush -q >/dev/null",
        port=23791),
    row("nginx", "server", "nginx-light curl", ["nginx", "curl"],
        setup=_NGINX, server="nginx -p $RUN -c $RUN/nginx.conf -e $RUN/logs/error.log -g 'daemon off;'",
        comm="nginx", client="curl -s -K urls", stop="QUIT", port=23792),
    row("postgresql", "server", "postgresql postgresql-contrib", [_PG_BIN + "/postgres", "pgbench"],
        setup=_PG, server=_PG_BIN + "/postgres -D pgdata -k $RUN/sock -p $PORT -c listen_addresses=127.0.0.1",
        comm="postgres", client="pgbench -q -h 127.0.0.1 -p $PORT -U postgres -i -s 1 postgres >/dev/null 2>&1 && "
        "pgbench -h 127.0.0.1 -p $PORT -U postgres -c 2 -t 150 postgres >/dev/null 2>&1",
        stop="INT", port=23793, spread=0.5, user="postgres"),
    row("memcached", "server", "memcached", ["memcached"],
        server="memcached -l 127.0.0.1 -p $PORT -U 0 -u root -m 16", comm="memcached",
        client=_MEMCACHED_CLIENT, port=23794),
    row("mosquitto", "broker", "mosquitto mosquitto-clients", ["mosquitto", "mosquitto_pub"],
        setup=_MOSQUITTO, server="mosquitto -c mosquitto.conf", comm="mosquitto",
        client="mosquitto_pub -p $PORT -t rw/t -q 1 -r -l < msgs && mosquitto_pub -p $PORT -t rw/u -q 1 -r -m last",
        port=23795, spread=0.5),
    row("beanstalkd", "broker", "beanstalkd", ["beanstalkd"],
        setup="mkdir -p wal", server="beanstalkd -l 127.0.0.1 -p $PORT -b $RUN/wal -f 0",
        comm="beanstalkd", client=_BEANSTALK_CLIENT, port=23796),
    # databases and C tools
    row("sqlite3", "database", "sqlite3", ["sqlite3"], setup=_SQL, workload="sqlite3 db.sqlite < ins.sql >/dev/null"),
    row("git-gc", "build", "git", ["git"], setup=_GIT, workload="cd repo && git gc -q && git status --short >/dev/null"),
    row("make-gcc", "build", "make gcc", ["make", "gcc"], setup=_MAKE, workload="make -s -j2"),
    row("tar-gzip", "archive", "tar gzip", ["tar", "gzip"],
        workload="tar czf data.tgz -C $DATA . && mkdir x && tar xzf data.tgz -C x"),
    row("rsync", "archive", "rsync", ["rsync"], workload="rsync -a $DATA/ copy/"),
    row("zstd", "archive", "zstd tar", ["zstd", "tar"], setup="tar cf data.tar -C $DATA .",
        workload="zstd -q -12 -T1 data.tar -o data.tar.zst && zstd -q -d -c data.tar.zst > back.tar"),
    row("sort", "text", "coreutils", ["sort"], setup="mkdir tmp && find $DATA -type f | xargs cat > big.txt",
        workload="sort -S 256K -T tmp big.txt > sorted.txt"),
    # Rust
    row("ripgrep", "rust", "ripgrep", ["rg"], workload="rg -n --no-heading define $DATA > hits.txt"),
    row("fd-find", "rust", "fd-find", ["fdfind"], workload="fdfind -e h . $DATA > found.txt"),
    row("bat", "rust", "bat", ["batcat"], workload="batcat --paging=never --color=always --style=full $DATA/bpf.h > bat.txt"),
    row("exa", "rust", "exa", ["exa"], workload="exa -l --git $DATA > exa.txt"),
    # Python
    row("mercurial", "python", "mercurial", ["hg"], setup=_HG, workload=_HG_WORK),
    row("borgbackup", "python", "borgbackup", ["borg"],
        setup="BORG_PASSPHRASE= borg init -e none repo",
        workload="BORG_UNKNOWN_UNENCRYPTED_REPO_ACCESS_IS_OK=yes borg create repo::a $DATA"),
    row("pytest", "python", "python3-pytest", ["pytest-3"], setup=_PYTEST,
        workload="$PY -m pytest -q tests >/dev/null"),
    # Java, PHP
    row("java", "java", "default-jdk-headless", ["javac", "jar", "java"], setup=_JAVA,
        workload="javac -d out src/*.java && jar cf app.jar -C out . && java -cp app.jar Main >/dev/null",
        spread=0.5),
    row("php-session", "php", "php-cli", ["php"], setup=_PHP,
        workload="php -d session.save_path=$RUN/sess -d session.use_cookies=0 -d session.gc_probability=0 s.php >/dev/null"),
    # BEAM (Erlang): rebar3 is an escript, its compiler runs in the VM
    row("rebar3", "beam", "rebar3", ["rebar3"], setup=_REBAR, workload="cd rwlib && rebar3 compile >/dev/null"),
    # media
    row("imagemagick", "media", "imagemagick", ["/usr/bin/convert"],
        workload="/usr/bin/convert -size 1000x700 gradient:red-blue -swirl 90 out.png && /usr/bin/convert out.png -blur 0x2 -quality 85 out.jpg"),
    row("ffmpeg", "media", "ffmpeg", ["ffmpeg"],
        workload="ffmpeg -nostdin -loglevel error -f lavfi -i testsrc=duration=2:size=320x240:rate=25 -c:v mpeg4 -threads 1 out.mp4"),
    # Go
    row("restic", "go", "restic", ["restic"], setup="RESTIC_PASSWORD=rw restic init -q -r repo",
        workload="RESTIC_PASSWORD=rw restic -q -r repo backup $DATA"),
    row("hugo", "go", "hugo", ["hugo"], setup=_HUGO, workload="cd site && hugo --quiet"),
]

DEPS_APT = sorted({p for r in PROGRAMS for p in r["package"].split()} | {"strace"})
