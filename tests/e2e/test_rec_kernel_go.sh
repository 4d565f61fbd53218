#!/bin/sh
# A Go program through the kernel path (--capture kernel) names its own
# code: the leak its writeRecords makes carries a stack taken by frame
# pointers in BPF and symbolized from the binary's .gopclntab, whose frame
# reads "main.writeRecords (main.go:N)" in the JSON, text and SARIF
# reports, stripped (-s -w) or not; a second run gives the same
# fingerprint; the program's output and exit status are its own. A static
# C program built without frame pointers gets no stack (not a wrong one),
# said once by a lost record "stack_no_frame_pointers". --no-stacks takes
# none.
# Needs root, the kernel path and golang-go; skipped otherwise.
# e2e: slow (builds a Go program: several seconds under load)
set -u
. "$(dirname "$0")/lib.sh"
need_built "$IORECORD" "$IOANALYZE"
work_dir kernel_go
cd "$work" || exit 1

[ "$(id -u)" = 0 ] || skip "the kernel capture path needs root"
"$IORECORD" --capture kernel -o probe.zst true 2> probe.err ||
    skip "kernel capture unavailable: $(sed 's/^iorecord: //' probe.err | head -n 1)"
have go || skip "no Go toolchain (golang-go)"

mkdir gorec out
cat > gorec/main.go <<'GO'
package main

import (
	"fmt"
	"os"
	"path/filepath"
)

var kept []*os.File

// writeRecords opens a file per record and never closes it.
func writeRecords(dir string, n int) int {
	for i := 0; i < n; i++ {
		f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("rec%d.log", i)), os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			panic(err)
		}
		f.Write([]byte("x"))
		kept = append(kept, f)
	}
	return len(kept)
}

func main() {
	fmt.Println("records", writeRecords(os.Args[1], 40))
}
GO
printf 'module gorec\ngo 1.17\n' > gorec/go.mod
# the line of the call into the os package, which the frame must name
line=$(grep -n 'os.OpenFile(' gorec/main.go | cut -d: -f1)
export GOCACHE="$work/gocache" GOFLAGS=-mod=mod CGO_ENABLED=0
(cd gorec && go build -o ../gorec_full . && go build -ldflags='-s -w' -o ../gorec_stripped .) ||
    skip "go build failed"

# issue_field TRACE FIELD: the leak issue's FIELD (JSON)
issue_field() {
    "$IOANALYZE" --rules leak "$1" 2>/dev/null |
        python3 -c 'import json,sys; i=[i for i in json.load(sys.stdin) if i["rule"]=="leak"]; print(i[0][sys.argv[1]] if len(i)==1 else "count %d" % len(i))' "$2"
}

for bin in gorec_full gorec_stripped; do
    rm -rf out; mkdir out
    ./$bin out > native.out; native_rc=$?
    for run in 1 2; do
        rm -rf out; mkdir out
        "$IORECORD" --capture kernel -o $bin.$run.zst ./$bin out > rec.out; rc=$?
        [ $rc = $native_rc ] || not_ok "$bin: exit status $rc, $native_rc without the recorder"
        cmp -s native.out rec.out || not_ok "$bin: stdout differs with the recorder"
    done
    stack=$(issue_field $bin.1.zst stack)
    echo "$stack" | grep -qx "main.writeRecords (main.go:$line)" ||
        not_ok "$bin: the leak's stack has no 'main.writeRecords (main.go:$line)': $stack"
    echo "$stack" | grep -qx 'main.main (main.go:[0-9]*)' || not_ok "$bin: no main.main frame: $stack"
    fp1=$(issue_field $bin.1.zst fingerprint)
    fp2=$(issue_field $bin.2.zst fingerprint)
    [ -n "$fp1" ] && [ "$fp1" = "$fp2" ] || not_ok "$bin: fingerprints differ: $fp1, $fp2"
    "$IOANALYZE" --rules leak --format text $bin.1.zst 2>/dev/null |
        grep -q "^ *main.writeRecords (main.go:$line)$" || not_ok "$bin: text report lacks the frame"
    "$IOANALYZE" --rules leak --format sarif $bin.1.zst 2>/dev/null | grep -q "main.writeRecords" ||
        not_ok "$bin: SARIF lacks main.writeRecords"
done
fp_full=$(issue_field gorec_full.1.zst fingerprint)

# --no-stacks: no stack, no module record
rm -rf out; mkdir out
"$IORECORD" --capture kernel --no-stacks -o nostack.zst ./gorec_full out > /dev/null
"$IOANALYZE" dump --format jsonl nostack.zst | grep -q '"stack":"' && not_ok "--no-stacks: a stack"
"$IOANALYZE" dump --format jsonl nostack.zst | grep -q '"ev":"module"' && not_ok "--no-stacks: a module record"

# a static C program without frame pointers: no stack, said once
cat > nofp.c <<'C'
#include <fcntl.h>
#include <stdio.h>
static int __attribute__((noinline)) open_all(const char *dir, int n)
{
    char p[256];
    int k = 0;

    for (int i = 0; i < n; i++) {
        snprintf(p, sizeof(p), "%s/s%d", dir, i);
        k += open(p, O_CREAT | O_WRONLY, 0644) >= 0;
    }
    return k;
}
int main(int argc, char **argv)
{
    (void)argc;
    printf("%d\n", open_all(argv[1], 20));
    return 0;
}
C
if ${CC:-cc} -O2 -fomit-frame-pointer -static -o nofp nofp.c 2>/dev/null; then
    rm -rf out; mkdir out
    "$IORECORD" --capture kernel -o nofp.zst ./nofp out > /dev/null
    "$IOANALYZE" dump --format jsonl nofp.zst | grep '"path":"'"$work"'/out/s' | grep -q '"stack":"' &&
        not_ok "no frame pointers: a stack"
    n=$("$IOANALYZE" dump --format jsonl nofp.zst | grep -c '"op":"lost".*"mode":"stack_no_frame_pointers"')
    [ "$n" = 1 ] || not_ok "no frame pointers: $n lost records, not 1"
else
    echo "SKIP static C without frame pointers: no static libc to build with"
fi
[ -n "$fp_full" ] || not_ok "no fingerprint"
exit $fail
