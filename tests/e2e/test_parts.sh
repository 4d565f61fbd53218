#!/bin/sh
# The boundaries of parts.mk hold (docs/architecture.md): every include and
# every call between the built objects goes where the table allows, no
# files of one part call each other round in a circle, and every file of the
# tree the docs name is there.
. "$(dirname "$0")/lib.sh"

have nm || skip "nm (binutils) is not installed"
have ldd || skip "ldd is not installed"
need_built "$IOANALYZE" "$IORECORD" "$LIBIORECORD"

out=$(python3 "$TOP/tests/check_parts.py" "$TOP" "$BUILD/obj") ||
    not_ok "parts.mk's boundaries are crossed:
$out"

# the check itself: an include across a boundary it forbids is caught
work_dir parts
mkdir -p "$work/top"
(cd "$TOP" && tar cf - parts.mk common formats inputs rules analyzer recorder docs) | (cd "$work/top" && tar xf -)
printf '#include "engine.h"\n' >>"$work/top/formats/writer.c"
out=$(python3 "$TOP/tests/check_parts.py" --no-calls "$work/top" "$BUILD/obj") &&
    not_ok "an include of the engine from formats/ was not caught"
case $out in
*"formats/writer.c:"*"includes analyzer/engine/engine.h, but formats does not use engine"*) ;;
*) not_ok "the breach was reported as: $out" ;;
esac

# and a doc naming a file that is not there (a stale name after a rename)
printf 'The catalogue is `formats/syscall_table.h`.\n' >>"$work/top/docs/architecture.md"
out=$(python3 "$TOP/tests/check_parts.py" --no-calls "$work/top" "$BUILD/obj") &&
    not_ok "a stale name in docs/architecture.md was not caught"
case $out in
*"docs/architecture.md:"*"names formats/syscall_table.h, which is not in the tree"*) ;;
*) not_ok "the stale name was reported as: $out" ;;
esac

exit $fail
