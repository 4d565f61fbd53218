/*
 * modules.h - the loaded modules (executable, shared objects) of this
 * process, for the unwinder (stack.c) and for the module records that let
 * ioanalyze symbolize raw addresses offline.
 *
 * Everything here but rec_stack_modules_unloaded() runs under stack.c's lock.
 */
#ifndef REC_MODULES_H
#define REC_MODULES_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

#define REC_BUILD_ID_MAX 64

struct rec_module {
    uintptr_t lo, hi;           /* extent of its PT_LOAD segments */
    uintptr_t bias;             /* load address minus ELF virtual address */
    const uint8_t *eh_hdr;      /* its .eh_frame_hdr in memory, or NULL */
    const char *path;           /* full path (arena) */
    uint8_t build_id[REC_BUILD_ID_MAX];
    uint8_t id_len;
    uint8_t recorded;           /* this process wrote its module record */
};

/* Read the loaded modules again (dl_iterate_phdr); 0, or -1 out of memory. */
int rec_modules_scan(void);
/*
 * The module whose segments hold addr, or NULL; a miss rescans once when a
 * module was loaded since the last scan (dlopen).
 */
const struct rec_module *rec_module_at(uintptr_t addr);
/* Whether some module has no record in this process yet. */
extern int rec_modules_unrecorded;
/* Write the missing module records into the calling thread's chunk. */
void rec_modules_record(void);
/* In a forked child: no module has a record in this process yet. */
void rec_modules_forked(void);

/*
 * A module was unloaded (dlclose): the unwinder's rules and cached stacks
 * are worked out again, and the modules read again, before they are used.
 * Any thread, no lock.
 */
void rec_stack_modules_unloaded(void);

#pragma GCC visibility pop

#endif
