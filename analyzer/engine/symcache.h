/*
 * symcache.h - what a module's addresses symbolize to, by build-id, shared
 * by every trace a process analyses and kept on disk between runs.
 *
 * A build-id names one build of one module: the functions, files and lines
 * of its addresses never change, so they are looked up with libdw once and
 * then read back. In memory the cache lives as long as the process (a fleet
 * worker's `ioanalyze analyze --each` over a batch of traces shares it); on
 * disk it is one file per build-id under
 *
 *     $XDG_CACHE_HOME/ioscope/symbols/XX/BUILDID   (default ~/.cache/ioscope)
 *
 * written whole to a temporary file and renamed into place, so a reader
 * (another worker) sees an old file or a new one, never a torn one. A file
 * that does not check out (header, build-id, counts, checksum) is ignored
 * and rewritten. The files together are kept under IOSCOPE_SYMCACHE_MAX_MB
 * (default 256 MiB): past it the least recently used go. IOSCOPE_SYMCACHE=0
 * keeps the cache in memory only.
 *
 * What is not kept on disk: a module that could not be found (it may be
 * installed, or served by debuginfod, later; remembered for the process
 * only), and names with control characters (shown, never stored).
 */
#ifndef SYMCACHE_H
#define SYMCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "symbolize.h"

struct symcache;

/* The cache under dir (its "symbols" folder), or memory only when dir is
   NULL; NULL on out of memory. */
struct symcache *symcache_create(const char *dir);
void symcache_free(struct symcache *c);

/*
 * The process's cache, made at the first call from the environment
 * ($XDG_CACHE_HOME, $HOME, IOSCOPE_SYMCACHE); NULL on out of memory. It is
 * freed at exit, after a last symcache_flush().
 */
struct symcache *symcache_process(void);

/* 1 when id is a build-id the cache takes: lower-case hex, 4 to 128 digits. */
int symcache_id_ok(const char *id);

/*
 * The frames of offset in build-id id, inline chain first, into out[0..max)
 * (function, file, line, inlined, fn_offset: the caller fills module,
 * build_id and offset); their strings live as long as c. Returns how many,
 * or 0 when the address is not known. *dwarf (may be NULL) is set to
 * whether the known addresses of id were resolved with DWARF.
 */
size_t symcache_get(struct symcache *c, const char *id, uint64_t offset, struct sym_frame *out,
                    size_t max, int *dwarf);

/* Whether id is known to be a module nothing could be found for (in this process). */
int symcache_missing(struct symcache *c, const char *id);
void symcache_set_missing(struct symcache *c, const char *id);

/* Drop what is known of id, in memory and on disk (its debug info has
   since been installed: symbols-only answers would be worse). */
void symcache_forget(struct symcache *c, const char *id);

/* Record offset's n frames (n >= 1); dwarf: the module had DWARF. */
void symcache_put(struct symcache *c, const char *id, uint64_t offset,
                  const struct sym_frame *f, size_t n, int dwarf);

/* Write what was added since the last flush to disk; 0, or -1 when a file
   could not be written (the cache is only a cache: callers go on). */
int symcache_flush(struct symcache *c);

/* Addresses answered from the cache, and looked up for it, so far. */
void symcache_counts(const struct symcache *c, size_t *hits, size_t *misses);

#endif /* SYMCACHE_H */
