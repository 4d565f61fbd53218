#!/bin/sh
# The text report fits the terminal: in a pipe no line of any fixture's
# report passes 80 columns (and without the wrap some would: the sweep is
# not vacuous); COLUMNS=120 gives lines up to 120 and no more; a path longer
# than the width is broken after a '/', its pieces indented under it and
# joining back into the path; on a terminal (a pty of 70 columns, COLUMNS
# unset) the report in color fits 70 columns, color codes taking none.
# e2e: slow (about 2 min here: the report of each of some 250 fixtures)
. "$(dirname "$0")/lib.sh"
need_built "$IOANALYZE"
have python3 || skip "python3 is needed"
work_dir report-width

# A trace with a path of 190 bytes (nine directories deep) written in
# small pieces, and a stack whose frames name long source paths.
python3 - "$work/long.jsonl" <<'PY'
import json, sys
path = "/srv/" + "/".join("directory-number-%02d-of-the-tree" % i for i in range(6)) + "/output.log"
stack = "\n".join("handler_%d+0x1c (%s/lib/libhandler.so)" % (i, path.rsplit("/", 1)[0])
                  for i in range(3))
ev = [{"ev": "process", "t": 0, "pid": 7, "ppid": 1, "exe": "/usr/bin/app", "cmdline": ["app"],
       "start_unix_ns": 1763800000000000000},
      {"ev": "thread", "t": 0, "pid": 7, "tid": 7, "name": "main"},
      {"ev": "call", "t": 1000, "pid": 7, "tid": 7, "op": "open", "dur": 2000, "ret": 3,
       "path": path, "flags": 577, "stack": stack}]
for i in range(2000):
    ev.append({"ev": "call", "t": 10000 + i * 1000, "pid": 7, "tid": 7, "op": "write",
               "dur": 500, "ret": 16, "fd": 3, "size": 16, "stack": stack})
with open(sys.argv[1], "w") as f:
    for e in ev:
        f.write(json.dumps(e) + "\n")
PY
long=$(sed -n '3s/.*"path": "\([^"]*\)".*/\1/p' "$work/long.jsonl")
[ ${#long} -gt 160 ] || not_ok "the long path is ${#long} bytes"

python3 - "$IOANALYZE" "$TOP/tests/fixtures" "$work/long.jsonl" "$long" <<'PY' || not_ok "widths"
import os, pty, subprocess, sys, fcntl, re, struct, termios
ioanalyze, fixtures, long_trace, long_path = sys.argv[1:5]

def report(path, columns=None):
    env = dict(os.environ)
    env.pop("COLUMNS", None)
    if columns:
        env["COLUMNS"] = str(columns)
    p = subprocess.run([ioanalyze, "-f", "text", "--min-severity", "low", path], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return p.stdout.decode("utf-8", "replace").split("\n")

inputs = sorted(os.path.join(d, f) for d, _, fs in os.walk(fixtures) for f in fs
                if f.endswith((".jsonl", ".log", ".zst")))
assert len(inputs) > 100, len(inputs)
wider, failed = 0, []
for path in inputs + [long_trace]:
    lines = report(path)
    worst = max(len(l) for l in lines)
    if worst > 80:
        failed.append("%s: %d columns" % (path, worst))
    if path == long_trace or path == inputs[0]:
        wider += max(len(l) for l in report(path, 1000)) > 80
assert not failed, failed[:10]
# the long trace is wider than 80 unwrapped: the sweep shows wrapping works
assert wider >= 1, "no report is wider than 80 columns even at COLUMNS=1000"

wide = report(long_trace, 120)
assert 80 < max(len(l) for l in wide) <= 120, max(len(l) for l in wide)

# the path, broken after '/' with the rest indented below its start
lines = report(long_trace)
i = next(k for k, l in enumerate(lines) if l.strip().startswith(long_path[:40]))
indent = len(lines[i]) - len(lines[i].lstrip())
pieces, k = [lines[i].strip()], i + 1
while not "".join(pieces).startswith(long_path) or len("".join(pieces)) < len(long_path):
    assert lines[k].startswith(" " * (indent + 2)), (lines[k], indent)
    pieces.append(lines[k].strip())
    k += 1
assert "".join(pieces) == long_path, pieces
assert all(p.endswith("/") for p in pieces[:-1]), pieces

# a terminal of 70 columns, COLUMNS unset: the colored report fits it
pid, fd = pty.fork()
if pid == 0:
    os.environ.pop("COLUMNS", None)
    os.environ.pop("NO_COLOR", None)
    fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 70, 0, 0))
    os.execv(ioanalyze, [ioanalyze, "-f", "text", long_trace])
out = b""
while True:
    try:
        b = os.read(fd, 65536)
    except OSError:
        break
    if not b:
        break
    out += b
os.waitpid(pid, 0)
text = out.decode("utf-8", "replace")
assert "\x1b[" in text, "no color on a terminal"
plain = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", text).replace("\r", "").split("\n")
report_lines = [l for l in plain if not l.startswith("ioanalyze:")]
assert max(len(l) for l in report_lines) <= 70, max(report_lines, key=len)
assert max(len(l) for l in report_lines) > 60
PY
[ $fail = 0 ] && echo "ok   the text report fits 80 columns in a pipe, COLUMNS and a terminal's width"
exit $fail
