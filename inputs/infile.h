/*
 * infile.h - the files an analysis reads, each opened once, and a bounded
 * number of descriptors however many files there are.
 *
 * infile_open() opens a path ("-": standard input) and reads its first bytes
 * for detection without taking them from the reader that follows:
 * - a regular file is peeked with pread. It stays open while fewer than
 *   iot_trace_keep_open_max() files are (the native reader's budget); beyond that the least recently read one is
 *   parked (closed, its position kept) and reopened where it stopped when it
 *   is read again, after checking that its path still names the same file;
 * - a piped input, "unseekable" here and in infile.c (pipe, FIFO, terminal,
 *   socket), can be read only once: it stays open, and its FILE gives the
 *   peeked bytes back before the rest. A reader that needs two passes
 *   copies it with infile_spool.
 * A file closes for good when its reader is done with it (infile_done), so a
 * directory of thousands of small logs holds one descriptor at a time.
 */
#ifndef INFILE_H
#define INFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

#include "decompress.h"

/* What detection reads of each file at most. */
#define INFILE_PEEK 4096

struct infiles;
struct infile;

struct infiles *infiles_create(void);
/* Closes every file still open. */
void infiles_free(struct infiles *p);

/*
 * Open path; peek receives its first bytes (*npeek of them, at most
 * INFILE_PEEK; an unseekable file is read until it ends, fills peek, or holds a whole
 * first line, so that a slow writer is not waited for). NULL with errno set.
 */
struct infile *infile_open(struct infiles *p, const char *path, char *peek, size_t *npeek);
/* The fstat of the file as opened. */
const struct stat *infile_stat(const struct infile *f);
int infile_is_unseekable(const struct infile *f);
/*
 * Bytes of a regular file at off, as pread, before its reader starts (the
 * detection of a trace whose first chunk is cut); -1 with errno ESPIPE for
 * an unseekable, parked or decompressed file.
 */
ssize_t infile_pread(struct infile *f, void *buf, size_t n, uint64_t off);
/* A regular file's size; what has been read of an unseekable one so far. */
uint64_t infile_bytes(const struct infile *f);
/*
 * How far the reader has got, for progress: the offset of its next byte in a
 * regular file (the whole size once done), what has been read of an unseekable one.
 */
uint64_t infile_pos(const struct infile *f);

/*
 * The FILE to read next, positioned just after what was read from it before.
 * NULL with errno set when a parked file cannot be reopened (ESTALE: its path
 * now names another file) or the file is done.
 */
FILE *infile_file(struct infile *f);
/*
 * From now on the file is read decompressed: infile_file gives the bytes the
 * kind's stream decodes to, from its start (the peek is not taken from it).
 * A parked file keeps its decoder and resumes in its compressed bytes.
 * 0, or -1 with errno set (ENOMEM; EINVAL once it has been read).
 */
int infile_decompress(struct infile *f, enum decomp_kind kind);
/* A compressed file's damage (decomp_damage), also once it is done; NULL when intact. */
const char *infile_damage(const struct infile *f);

/* Done reading: its descriptor is released for good. */
void infile_done(struct infile *f);

/*
 * The file's descriptor, positioned at its start, for a reader that takes it
 * over (and closes it): the open file itself, a duplicate of standard input,
 * or for an unseekable one an unnamed copy of at most cap bytes (errno EFBIG beyond:
 * iot_spool). -1 with errno 0 when the file is parked (the reader opens it by
 * its path), else -1 with errno set. The infile is done after this.
 */
int infile_take_fd(struct infile *f, uint64_t cap);

#endif /* INFILE_H */
