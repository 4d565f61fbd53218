#!/bin/sh
# Own-code scope on a small C project built with make under the gate
# (`gate.sh run make check`, as docs/ci.md's shell recipe does): the
# compiler, assembler and linker run under the recorder, and so does a
# program of another project that the test suite calls (small_writes, a
# known finding). The gate keeps the findings of the project's program
# (built from its tree) and counts the rest in one line naming them; --scope
# all lists them. Every SARIF result lands on a file of the project or has
# no physical location, with or without the scope. The GitLab Code Quality
# report is GitLab's format, each entry on a file of the project with the
# line of the harmful call, its fingerprints the issues'. The GitLab
# template publishes it and JUnit under IOSCOPE_OUT, the JUnit names
# relative to the project.
# e2e: slow (about 10 s here: a C build and three analyses under the gate)
. "$(dirname "$0")/lib.sh"
S=$BUILD/bin/samples
need_built "$IOANALYZE" "$IORECORD" "$S/small_writes"
have python3 || skip "python3 is needed"
have cc || skip "no C compiler"
have make || skip "make is not installed"
python3 -c 'import yaml' 2>/dev/null || skip "python3 has no yaml module (Debian: python3-yaml)"
work_dir ci-scope
REC_ENV=$(asan_env "$LIBIORECORD")
PATH=$BUILD/bin:$PATH
export PATH

P=$work/project
mkdir -p "$P/src" "$P/data" || exit 1
cat >"$P/src/logger.c" <<'C'
#include <fcntl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int fd = open(argc > 1 ? argv[1] : "log.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);

    if (fd < 0)
        return 1;
    for (int i = 0; i < 50000; i++)
        if (write(fd, "0123456789abcdef0123456789abcdef", 32) != 32) /* HARMFUL */
            return 1;
    return close(fd) != 0;
}
C
line=$(grep -n 'HARMFUL' "$P/src/logger.c" | cut -d: -f1)
cat >"$P/Makefile" <<MAKE
logger: src/logger.c
	\$(CC) -O1 -g -o \$@ src/logger.c
check: logger
	./logger \$(CURDIR)/data/app.log
	$S/small_writes $work/other >/dev/null
.PHONY: check
MAKE
mkdir -p "$work/other"

# 1. the gate: the project's finding kept, the others counted
(cd "$P" && env $REC_ENV sh "$TOP/ci/gate.sh" run make check) >"$work/out" 2>"$work/err"
[ $? = 0 ] || not_ok "gate run make check failed: $(cat "$work/err")"
out=$P/ioscope-out
"$IOANALYZE" --scope all --source-root "$P" --min-severity low "$out/tests.zst" >"$work/all.json" 2>/dev/null ||
    not_ok "analyze --scope all failed"
python3 - "$out/issues.json" "$work/all.json" "$work/err" "$P" "$line" <<'PY' || not_ok "scope: $(cat "$work/err")"
import json, os, re, sys
own, every = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
err, root, line = open(sys.argv[3]).read(), sys.argv[4], int(sys.argv[5])
def under(p):
    return bool(p) and (p == root or p.startswith(root + "/"))
def is_own(i):
    return under(i.get("exe")) or any(under(f.get("file")) or under(f.get("module"))
                                       for f in i.get("frames", []))
assert [i["rule"] for i in own] == ["small_buffer"], own
assert own[0]["process"] == "logger" and own[0]["exe"] == root + "/logger", own[0]
assert all(is_own(i) for i in own)
outside = [i for i in every if not is_own(i)]
assert len(every) == len(own) + len(outside), (len(every), len(own))
assert set(i["fingerprint"] for i in every if is_own(i)) == set(i["fingerprint"] for i in own)
# small_writes, another project's program, is outside, and so are the toolchain's
assert "small_writes" in [i["process"] for i in outside], [i["process"] for i in outside]
names = {}
for i in outside:
    names[i["process"]] = names.get(i["process"], 0) + 1
order = ", ".join(sorted(names, key=lambda n: (-names[n], n)))
want = "ioanalyze: %d finding%s in programs outside the project: %s (--scope all lists them)" % (
    len(outside), "" if len(outside) == 1 else "s", order)
assert want in err.split("\n"), (want, err)
PY

# 2. SARIF: a source file of the project, or no physical location
"$IOANALYZE" --scope all --source-root "$P" --min-severity low -f sarif "$out/tests.zst" \
    >"$work/all.sarif" 2>/dev/null || not_ok "sarif --scope all failed"
python3 - "$out/ioscope.sarif" "$work/all.sarif" "$P" "$line" <<'PY' || not_ok "SARIF locations"
import json, os, sys
from urllib.parse import unquote
root, line = sys.argv[3], int(sys.argv[4])
for f in sys.argv[1:3]:
    for r in json.load(open(f))["runs"][0]["results"]:
        for loc in r["locations"]:
            pl = loc.get("physicalLocation")
            if pl is None:
                assert loc["logicalLocations"][0]["name"], loc
                continue
            uri = unquote(pl["artifactLocation"]["uri"])
            assert pl["artifactLocation"]["uriBaseId"] == "SRCROOT"
            assert os.path.isfile(os.path.join(root, uri)), (f, uri)
            # a source file, never a binary built under the root
            assert os.path.splitext(uri)[1] in (".c", ".h"), (f, uri)
res = json.load(open(sys.argv[1]))["runs"][0]["results"]
pl = res[0]["locations"][0]["physicalLocation"]
assert (pl["artifactLocation"]["uri"], pl["region"]["startLine"]) == ("src/logger.c", line), pl
PY

# 3. Code Quality: GitLab's fields, on the project's files
python3 - "$out/codequality.json" "$out/issues.json" "$P" "$line" <<'PY' || not_ok "Code Quality report"
import json, os, sys
cq, issues, root, line = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3], int(sys.argv[4])
assert isinstance(cq, list) and len(cq) == len(issues) == 1, cq
for e, i in zip(cq, issues):
    assert set(e) == {"description", "check_name", "fingerprint", "severity", "location"}, e
    assert e["check_name"] == i["rule"] and e["fingerprint"] == i["fingerprint"]
    assert e["severity"] in ("info", "minor", "major", "critical", "blocker")
    assert e["severity"] == {"low": "minor", "medium": "major", "high": "critical"}[i["severity"]]
    assert e["description"].startswith(i["message"]) and i["path"] in e["description"]
    assert set(e["location"]) == {"path", "lines"} and set(e["location"]["lines"]) == {"begin"}
    assert not e["location"]["path"].startswith("/")
    assert os.path.isfile(os.path.join(root, e["location"]["path"])), e
assert (cq[0]["location"]["path"], cq[0]["location"]["lines"]["begin"]) == ("src/logger.c", line)
assert len(set(e["fingerprint"] for e in cq)) == len(cq)
PY
"$IOANALYZE" diff --format codequality --source-root "$P" "$work/all.json" "$work/all.json" \
    >"$work/none.json" 2>/dev/null
[ "$(cat "$work/none.json")" = "[]" ] || not_ok "diff codequality of a set with itself: $(cat "$work/none.json")"

# 4. diff --scope own: a baseline holding the toolchain's findings (an
# --scope all one) has nothing fixed or new against the own-scope run
"$IOANALYZE" diff --scope own --source-root "$P" "$work/all.json" "$out/issues.json" \
    >"$work/diff.json" 2>"$work/diff.err"
[ $? = 0 ] || not_ok "diff --scope own: $(cat "$work/diff.err")"
grep -q '^diff: 0 new, 0 fixed, 1 unchanged$' "$work/diff.err" || not_ok "diff --scope own: $(cat "$work/diff.err")"
"$IOANALYZE" diff --scope all "$work/all.json" "$out/issues.json" >/dev/null 2>"$work/diff.err"
grep -q '^diff: 0 new, [1-9][0-9]* fixed, 1 unchanged$' "$work/diff.err" ||
    not_ok "diff --scope all sees the outside findings as fixed: $(cat "$work/diff.err")"
"$IOANALYZE" diff --scope every "$work/all.json" "$out/issues.json" >/dev/null 2>"$work/diff.err"
[ $? = 2 ] && grep -q "^ioanalyze: --scope: expected own or all, not 'every'" "$work/diff.err" ||
    not_ok "a bad --scope: $(cat "$work/diff.err")"

# 5. the GitLab template: the script as written, IOSCOPE_OUT given as a
# job's variables would give it; its artifacts found where it says
python3 - "$TOP/ci/gitlab/ioscope.gitlab-ci.yml" >"$work/gitlab.sh" <<'PY' || not_ok "cannot read the GitLab template"
import sys, yaml
job = yaml.safe_load(open(sys.argv[1]))[".ioscope"]
v = dict(job["variables"], IOSCOPE_OUT="gl-out", IOSCOPE_DIR="third_party/ioscope")
for k, val in v.items():
    if k != "IOSCOPE_COMMAND":
        print("%s='%s'; export %s" % (k, val, k))
print("\n".join(job["script"]))
a = job["artifacts"]
print("# paths " + " ".join(a["paths"] + [a["reports"]["junit"], a["reports"]["codequality"]]))
PY
mkdir -p "$P/third_party" && ln -s "$TOP" "$P/third_party/ioscope"
cp "$out/issues.json" "$P/.ioscope-baseline.json"
touch "$P/src/logger.c"
(cd "$P" && env $REC_ENV IOSCOPE_COMMAND="make check" sh -c ". '$work/gitlab.sh'") >"$work/gl.out" 2>&1 ||
    not_ok "the GitLab script failed: $(cat "$work/gl.out")"
for p in $(sed -n 's/^# paths //p' "$work/gitlab.sh"); do
    p=$(echo "$p" | sed 's/\$IOSCOPE_OUT/gl-out/')
    [ -e "$P/$p" ] || not_ok "the template publishes $p, which the gate did not write"
done
grep -q 'codequality: \$IOSCOPE_OUT/codequality.json' "$TOP/ci/gitlab/ioscope.gitlab-ci.yml" ||
    not_ok "the template does not publish the Code Quality report"
python3 - "$P/gl-out/diff.junit.xml" <<'PY' || not_ok "JUnit names: $(cat "$P/gl-out/diff.junit.xml")"
import sys, xml.etree.ElementTree as ET
cases = ET.parse(sys.argv[1]).findall(".//testcase")
assert [c.get("name").split(" [")[0] for c in cases] == ["data/app.log"], [c.get("name") for c in cases]
PY
[ $fail = 0 ] && echo "ok   the gate on a make-built C project keeps its own finding; the toolchain's are counted"
exit $fail
