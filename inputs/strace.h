/*
 * strace.h - strace text logs as an event source.
 *
 * Reads logs written by `strace -f -tt -T -y -o LOG CMD` and its variants
 * (-ttt, -yy, without -y, without -T, without -f, one file of -ff) and yields
 * the same sequence of struct iot_event a native trace would, so every rule works
 * on field logs. The mapping from syscalls to ops and what is synthesised
 * (process, thread and exit events) is described in docs/ci.md, "strace logs".
 *
 * Lines the parser does not understand are counted (strace_info) and skipped;
 * they are never an error. strace_next fails only on a read error.
 */
#ifndef STRACE_H
#define STRACE_H

#include <stdint.h>
#include <stdio.h>

#include "iotrace.h"

struct strace_src;

/* 1 when buf (the first bytes of a file) looks like an strace log. */
int strace_detect(const char *buf, size_t len);

/*
 * Start reading the log in f (not closed by strace_close). name is used in
 * messages and, for -ff logs named LOG.PID, to learn the pid of a log written
 * without -f. Strings are interned in st (owned by the caller, freed after
 * the source). NULL with a message in errbuf (IOT_ERRBUF_SIZE) on failure.
 */
struct strace_src *strace_open(FILE *f, const char *name, struct iot_strtab *st,
                               char *errbuf);

/*
 * Read several logs as one: the per-process files of `strace -ff -o LOG`
 * (LOG.PID each), whose lines are merged by time so that a clone in the
 * parent's file makes the child's file a thread or a child process. Each
 * file is read through the caller's infile (infile.h: however many logs
 * there are, a bounded number is open), named names[i] in messages; a log
 * read to its end is infile_done. Prefer this over one strace_open per file
 * whenever several inputs are strace logs of the same run.
 */
struct infile;
struct strace_src *strace_open_files(struct infile *const *files, const char *const *names,
                                     size_t n, struct iot_strtab *st, char *errbuf);

/*
 * The next event in time order: 1 event, 0 end, -1 read error (message in
 * errbuf). Call times count from the first timestamp of the log(s); a
 * PROCESS event carries start_unix_ns (see docs/ci.md for logs written with
 * -tt). Events come in time order (file order, except that a call left
 * <unfinished ...> takes the place of its start).
 */
int strace_next(struct strace_src *s, struct iot_event *ev, char *errbuf);

/* Lines not understood that strace_info names by number; the rest are counted. */
#define STRACE_LINES_NAMED 3

struct strace_info {
    uint64_t lines;          /* lines read */
    uint64_t events;         /* events yielded */
    uint64_t unknown_lines;  /* lines not understood (skipped) */
    uint64_t unknown_at[STRACE_LINES_NAMED];  /* the first of them: line numbers (per file) */
    uint64_t unfinished;     /* calls left <unfinished ...> and never resumed: their
                                task ended or started another call, or the log
                                ended (no event for them; counted once the
                                log is read to its end) */
    int has_durations;       /* the log was written with -T */
    int has_paths;           /* the log was written with -y or -yy */
};
void strace_info(const struct strace_src *s, struct strace_info *out);
/* The share of the i-th file of strace_open_paths (events: those its lines
 * produced, counted when produced). */
void strace_file_info(const struct strace_src *s, size_t i, struct strace_info *out);

void strace_close(struct strace_src *s);

#endif /* STRACE_H */
