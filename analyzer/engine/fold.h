/*
 * fold.h - the parts of a path that differ between two runs of the same
 * program, folded so that its fingerprint (issue.c) does not: names made
 * from a template (mkstemp, mkdtemp, Python's tempfile) get their X's back,
 * and components of random shape (UUIDs, long hex and base32/64-like ids)
 * become a placeholder. The working directory and $HOME are issue.c's
 * (fingerprint_path). docs/analyzer.md, "Fingerprints", states the rules.
 */
#ifndef FOLD_H
#define FOLD_H

#include <stddef.h>

#include "iotrace.h"

/* The names a trace's processes made from templates. */
struct fold_made;

struct fold_made *fold_made_create(void);
void fold_made_free(struct fold_made *m);

/*
 * path (absolute) was made from a template whose X's became its bytes
 * [at, at + n). Kept up to a bound (FOLD_MADE_MAX names); a relative path,
 * an empty or out-of-range span is not kept.
 */
void fold_made_add(struct fold_made *m, const char *path, size_t at, size_t n);

/*
 * path in place: every made name that is path itself or one of its
 * directories has its random bytes turned back to 'X' (the length does
 * not change, so offsets into path still hold).
 */
void fold_made_apply(const struct fold_made *m, char *path);

/*
 * Whether the call ev, which succeeded, made a fresh name the way Python's
 * tempfile does (an exclusive create: open with O_CREAT|O_EXCL, or mkdir
 * with mode 0700, of an absolute path whose last component ends in eight
 * characters of [a-z0-9_] after "tmp" or after a '-', '_' or '.'); then 1
 * with the eight characters' place in *at and *n.
 */
int fold_made_by_call(const struct iot_event *ev, size_t *at, size_t *n);

/*
 * path in place: each component's random-shaped parts folded (the result
 * is never longer): a UUID to "<uuid>", a run of 16 or more hex digits to
 * "<hex>" (and a 2-4 hex-digit fan-out directory right above one to
 * "<hex>"), a base32/64-like token to "<id>".
 */
void fold_random(char *path);

/*
 * path (a NUL-terminated string in a buffer of cap bytes) in place: each
 * whole run of decimal digits that is pid, the process that made the
 * call, becomes "<pid>" (postgres's "pg_wal/xlogtemp.22667", a lock file
 * "app.lock.31337"): the name a process makes from its own pid is another
 * name in every run. pids under 100 are left alone ("log.7" in a container
 * whose program is pid 7 stays), and so is a fold that would not fit cap.
 */
void fold_pid(char *path, size_t cap, int32_t pid);

#endif /* FOLD_H */
