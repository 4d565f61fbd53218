/*
 * rec_harness.h - what the recorder suites share: running a test program
 * from tests/progs under build/bin/iorecord (or preloaded) and reading the
 * trace back with iot_trace_open().
 */
#ifndef REC_HARNESS_H
#define REC_HARNESS_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "iotrace.h"

/* build/bin, and this run's temporary directory (rt_setup makes it) */
extern char rt_bindir[PATH_MAX];
extern char rt_tmpdir[PATH_MAX];

/* Whether the recorder can be tested here (built, and with the sanitizer
   runtime when built so); prints why not, once. */
int rt_setup(void);
/* Whether the programs run with the sanitizer runtime loaded first (a
   sanitizer build): its interceptors check the arguments of every call. */
int rt_sanitized(void);
/* A fresh empty directory under rt_tmpdir. */
void rt_fresh_dir(const char *name, char *out, size_t cap);
/*
 * Start argv with extra environment entries ("K=V", NULL-terminated), its
 * stdout going to `out` (NULL: /dev/null) and no inherited fd above 2.
 */
pid_t rt_start(char *const argv[], const char *const env[], const char *out);
/* Wait for pid; the wait status. */
int rt_finish(pid_t pid);
/* Run to the end; the wait status. */
int rt_run(char *const argv[], const char *const env[], const char *out);

/* Events of a trace, strings interned in `st`. */
struct evs {
    struct iot_event *v;
    size_t n, cap;
    struct iot_strtab *st;
    struct iot_trace_stats stats;
    /* the first process record's command line, its arguments joined by spaces */
    char cmdline[4096];
};

int rt_load(const char *path, struct evs *e);
void rt_unload(struct evs *e);
/* The whole file at path, NUL-terminated (malloc'ed), or NULL. */
char *rt_slurp(const char *path);
/* Paths of the launcher, the library and a test program (each PATH_MAX + 64). */
void rt_paths(const char *prog, char *iorec, char *lib, char *progpath);
/* The pid of the first process record whose exe ends in name. */
int32_t rt_pid_of(const struct evs *e, const char *name);
/* The suites' cleanup: removes rt_tmpdir unless IOSCOPE_KEEP is set. */
int rt_clean(void);

#endif
