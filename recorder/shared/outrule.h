/*
 * outrule.h - whether an existing file may receive a trace: one owner rule
 * for the launcher (which refuses the output before the command runs) and
 * for the library (which, preloaded without the launcher, opens the output
 * itself and runs the program unrecorded when it is refused).
 */
#ifndef REC_OUTRULE_H
#define REC_OUTRULE_H

#include <stddef.h>
#include <sys/stat.h>

/*
 * A trace holds the caller's command lines and paths: it goes only where
 * the caller alone can read it. Refused, for st (the lstat of path, or the
 * fstat of an fd opened on it without following a link):
 *   - a symbolic link;
 *   - a FIFO or socket of another user (its reader would get the trace);
 *   - in a sticky world-writable directory such as /tmp, any file owned by
 *     neither the caller nor the directory's owner: the rule the kernel's
 *     fs.protected_fifos and protected_regular apply to O_CREAT opens
 *     there, whatever those are set to on this machine.
 * The caller is the effective uid. A file of the caller's and devices
 * (/dev/null) pass. Returns why (text for "'PATH' WHY", in why[cap] or
 * static), or NULL when allowed. Raw syscalls, no allocation: the library
 * runs it wherever it reopens its trace.
 */
__attribute__((visibility("hidden")))
const char *rec_output_refusal(const char *path, const struct stat *st, char *why, size_t cap);

#endif
