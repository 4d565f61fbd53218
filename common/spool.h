/*
 * spool.h - a piped input (pipe, FIFO, terminal) copied to a temporary
 * file, for a reader that needs to read its input twice (the native
 * reader's pass 1 and pass 2).
 *
 * The copy never has a name that outlives the process: it is an O_TMPFILE
 * file, or, where the file system has none, a mkstemp file unlinked at once.
 * So it is gone on every exit path, kill -9 included. Its size is capped
 * (iot_spool_max) so that an endless or huge input fails with a message
 * instead of filling the disk.
 */
#ifndef IOT_SPOOL_H
#define IOT_SPOOL_H

#include <stddef.h>
#include <stdint.h>

/* The environment variable that sets the cap, and the cap without it. */
#define IOT_SPOOL_MAX_ENV "IOSCOPE_SPOOL_MAX"
#define IOT_SPOOL_MAX_DEFAULT ((uint64_t)4 << 30)

/*
 * The cap in bytes: IOSCOPE_SPOOL_MAX (a number of bytes, or with a K, M or G
 * suffix), else 4 GiB. A value that is not a size gives the default.
 */
uint64_t iot_spool_max(void);

/*
 * Copy head[0..nhead) and then everything src yields until its end into a
 * new temporary file in $TMPDIR (else /tmp). Returns the file's descriptor,
 * or -1 with errno set: EFBIG when the input passed cap bytes (the copy is
 * dropped), else the error of the read, the create or the write.
 */
int iot_spool(int src, const void *head, size_t nhead, uint64_t cap);

/* A new empty temporary file of the same kind (no name, in $TMPDIR, else
   /tmp), open for reading and writing; -1 with errno set. */
int iot_spool_file(void);

/* "4 GiB", "512 MiB", "1000 bytes": a cap as a user wrote it, for messages. */
void iot_spool_size_str(uint64_t bytes, char *buf, size_t size);

/*
 * The one message for a piped input past the cap: "'NAME': WHAT is copied to a
 * temporary file first, and this one is larger than CAP (IOSCOPE_SPOOL_MAX):
 * give it as a file", into buf.
 */
void iot_spool_too_big(char *buf, size_t size, const char *name, const char *what);

#endif /* IOT_SPOOL_H */
