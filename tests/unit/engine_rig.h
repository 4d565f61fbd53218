/*
 * engine_rig.h - the engine's unit tests' rig (test_engine.c,
 * test_engine_figures.c): an engine with the default configuration where
 * only a capture rule runs, recording every session the engine hands to
 * rules, and the events fed to it one at a time.
 */
#ifndef ENGINE_RIG_H
#define ENGINE_RIG_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "engine.h"
#include "issue.h"

#define MAXS 64
/* The sessions the capture rule was handed since rig_init, the first MAXS. */
extern struct rule_session got[MAXS];
extern size_t ngot;
/* Calls are marked plain as a reader would, unless this says not to. */
extern int unmarked;
/* When set, a marked call that a struct engine_call can hold goes to
   engine_calls as one (as -j2's engine thread takes it), counted here. */
extern int as_records;
extern size_t nrecords;

struct rig {
    struct config cfg;
    const struct rule *const *saved;
    size_t nsaved;
    struct issues *is;
    struct engine *e;
    struct iot_strtab *st;
    int64_t t;
};

void rig_init(struct rig *r);
void rig_free(struct rig *r);
/* s interned in the rig's string table, as a reader hands strings on. */
const char *S(struct rig *r, const char *s);
/* A process record of pid (parent ppid) running exe, at the rig's time. */
void proc(struct rig *r, int pid, int ppid, const char *exe);
/* pid's exit, 1 ms on, killed by sig when not 0. */
void exit_ev(struct rig *r, int pid, int sig);
/* A call: t advances by 1 us before it; dur given. */
void call(struct rig *r, int pid, int tid, unsigned op, int64_t ret, int64_t dur,
          struct iot_event ev);
/* pid's open of path as fd, with flags. */
void open_(struct rig *r, int pid, int fd, const char *path, int64_t flags);

/* An event's fd (with a size): call(..., (struct iot_event){FD(3), .size = 100}). */
#define FD(n) .has = IOT_HAS_FD | IOT_HAS_SIZE, .fd = (n)

#endif
