/*
 * exejudge.h - whether the preload can enter a program, judged from its
 * file: one judge for the launcher (which refuses what it cannot enter)
 * and for the library's exec and spawn wrappers (which record it as
 * unrecorded).
 */
#ifndef REC_EXEJUDGE_H
#define REC_EXEJUDGE_H

#include <stddef.h>

#define REC_EXE_NAME 64     /* an ASan runtime's name, as DT_NEEDED gives it */
#define REC_EXE_FILE 512    /* a "#!" line's interpreter */

struct rec_exe_verdict {
    /* why the preload cannot enter it, or NULL (it can, or the file cannot
       be read: exec will say what is wrong):
         static  no PT_INTERP: no dynamic loader reads LD_PRELOAD
         setuid  setuid/setgid to another user: secure-exec drops LD_PRELOAD
         fcaps   file capabilities for a user other than root: secure-exec */
    const char *why;
    /* the file why is about: the program, or a script's interpreter */
    char file[REC_EXE_FILE];
    /* for a program it can enter, the ASan runtime it lists as DT_NEEDED,
       which must come first in LD_PRELOAD ("" when none) */
    char asan[REC_EXE_NAME];
};

/*
 * Judge the program at path; a "#!" script is judged by its interpreter.
 * Raw syscalls only, no allocation: the exec wrappers run it in vfork
 * children.
 */
__attribute__((visibility("hidden")))
void rec_exe_judge(const char *path, struct rec_exe_verdict *v);

#endif
