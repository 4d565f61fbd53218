/*
 * path.h - the one place where a traced program's path is made absolute:
 * the recorder joins a relative path to its directory (without allocating:
 * it runs inside the traced program), and the strace importer does the
 * same for *at() calls, so both name a file alike and its sessions match.
 * (Paths of ioscope's own, such as a directory input's entries, are joined
 * where they are made.)
 */
#ifndef IOT_PATH_H
#define IOT_PATH_H

#include <stddef.h>

/*
 * buf[0..dirlen) holds an absolute directory; appends "/" rel to it, with
 * rel's leading "./" removed ("." alone names the directory itself), and
 * NUL-terminates. Returns the length of the result, or 0 when it does not
 * fit in cap bytes (buf then holds the directory unchanged up to dirlen).
 */
size_t iot_path_join(char *buf, size_t cap, size_t dirlen, const char *rel);

/* rel past its leading "./" (each of them): what iot_path_join appends, and
   what a path too long to join is recorded as. */
const char *iot_path_skip_dot(const char *rel);

/* The last component of p ("unknown" for NULL). */
const char *iot_path_base(const char *p);

#endif /* IOT_PATH_H */
