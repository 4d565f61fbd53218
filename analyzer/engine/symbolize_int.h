/*
 * symbolize_int.h - the symbolizer's state, shared by symbolize.c (frames
 * and stacks) and symbolize_module.c (finding a module's file: the path
 * recorded, a debug file by build-id, debuginfod; and the names both
 * intern). Not a public header.
 */
#ifndef IOSCOPE_SYMBOLIZE_INT_H
#define IOSCOPE_SYMBOLIZE_INT_H

#include <elfutils/debuginfod.h>
#include <elfutils/libdwfl.h>

#include "hmap.h"
#include "iotrace.h"
#include "symbolize.h"

#define MAX_INLINE 16
/*
 * Frames of one stack that are symbolized; the rest of a deeper one (a
 * hostile input's million frames) is shown as given. The recorder keeps 24.
 */
#define MAX_STACK_FRAMES 256
#define SYM_HINTS 8

struct smod {
    const char *path;
    const char *build_id;       /* as recorded, or NULL */
    const char *found_id;       /* of the file opened */
    Dwfl *dwfl;
    Dwfl_Module *mod;
    int tried;
    int dwarf;                  /* the opened module has DWARF */
    int cache_checked;          /* the cache's answers for it were judged */
};

/* One address's frames (an inline chain). */
struct saddr {
    struct saddr *next;         /* another address with the same hash */
    const char *module;
    uint64_t offset;
    struct sym_frame *f;
    size_t n;
};

struct sstack {
    struct sym_stack st;
    struct sym_frame *f;
    unsigned jit_gen;           /* the symbolizer's jit_gen when it was made */
    size_t frames, unresolved;  /* what it added to the symbolizer's counts */
    struct sstack *retired;     /* the next stack made again since */
};

struct symbolizer {
    struct iot_strtab *strs;
    char *debuginfo_path;
    char *dirs_path;            /* the same list for the build-id lookup */
    Dwfl_Callbacks cb;
    struct hmap mods;           /* interned path -> struct smod */
    struct hmap addrs;          /* hash of (path, offset) -> struct saddr */
    struct hmap stacks;         /* interned stack -> struct sstack */
    struct symcache *cache;     /* NULL: none */
    debuginfod_client *dbgd;    /* made at the first module asked for */
    struct jit_table *jit;      /* the JIT symbol records */
    struct go_tables *go;       /* Go binaries' line tables, read at their first frame */
    const char *jit_module;     /* "[jit]": the module of a JIT frame with no name */
    struct py_table *py;        /* the Python code records */
    const char *py_module;      /* "[py]": the module of a Python frame with no record */
    size_t nframes, nunresolved;
    int32_t jit_pid;            /* the last stack's JIT frames' process, or -1 */
    /* counts the JIT symbol records: a stack with unnamed JIT frames made
       before the latest is made again (the JVM writes its map at exit) */
    unsigned jit_gen;
    struct sstack *retired;     /* stacks so replaced, freed with the symbolizer */
    /* processes with JIT frames of a runtime that shows more when asked:
       its row in symbolize_jit.c's table, what their stacks showed (SHOWED_*
       there, or'ed) */
    struct { int32_t pid; int runtime; unsigned showed; } hints[SYM_HINTS];
    size_t nhints;
};

/* A stack of st's frames, with JIT frames of process pid, was made:
   kept for symbolizer_jit_hints() when of a runtime it knows. */
void sym_note_hint(struct symbolizer *s, int32_t pid, const struct sym_stack *st);
const char *sym_intern(struct symbolizer *s, const char *str);
const char *sym_base_name(const char *path);
/* Opens m's file once (m->tried): the path, else by build-id. */
void sym_open_module(struct symbolizer *s, struct smod *m);
/*
 * The separate debug file of build-id id under the debug directories:
 * opened as m when m, 1 when it exists otherwise, 0 when there is none.
 */
int sym_debug_file(struct symbolizer *s, struct smod *m, const char *id);

#endif
