/*
 * input.h - every INPUT of a command as one time-ordered sequence of events.
 *
 * Opens each INPUT ("-" = standard input, a directory = every regular file
 * below it, at any depth, that is a trace, JSONL event file or strace log, in
 * path order, each once however many symlinks lead to it),
 * detects its kind from its content, reads all native traces through one
 * reader (so their processes merge) and merges every source by time.
 */
#ifndef INPUT_H
#define INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "iotrace.h"
#include "strace.h"

enum input_kind { INPUT_NATIVE, INPUT_JSONL, INPUT_STRACE };

struct input;

/* What an input held, for `info` and warnings. */
struct input_file_info {
    const char *name;
    enum input_kind kind;
    uint64_t bytes;          /* file size (a pipe's: what was read of it) */
    uint64_t lines, unknown_lines;   /* JSONL/strace */
    uint64_t bad_lines;      /* JSONL: malformed lines skipped */
    uint64_t unknown_at[STRACE_LINES_NAMED];  /* strace: the first lines not understood */
    uint64_t unfinished;     /* strace: calls left unfinished and never resumed */
    int has_durations;       /* strace: -T */
};

/*
 * Open the inputs. Prints "ioanalyze: ..." messages itself and returns NULL
 * on an unreadable or unrecognisable input. st receives every string.
 */
struct input *input_open(const char *const *paths, size_t n, struct iot_strtab *st);
/*
 * The files the INPUT paths stand for, each to be read on its own
 * (`analyze --each`): a directory's files that input_open takes from it, in
 * the same order; any other path as given. NULL after reporting an error
 * (a directory that cannot be read or holds no input; out of memory).
 */
char **input_list_files(const char *const *paths, size_t n, size_t *nfiles);
void input_list_free(char **files, size_t n);

/* 1 event, 0 end, -1 error (already reported). */
int input_next(struct input *in, struct iot_event *ev);
/*
 * The same without a copy: *ev is valid until the next call and must not be
 * modified. The fast way to read a native trace.
 */
int input_next_ref(struct input *in, const struct iot_event **ev);
/*
 * The native reader when it is the only source, else NULL: a caller that
 * wants no layer between it and the reader calls iot_trace_next_batch itself
 * (reporting its errors as "ioanalyze: ERRBUF", as input_next_ref does).
 */
struct iot_trace *input_lone_native(struct input *in);
/*
 * After the last event: warn about damaged native traces (naming each file's
 * recovery), malformed JSONL lines and strace lines not understood (the
 * first few by number, then a count), and strace calls never resumed.
 * Returns 1 when something was damaged (calls never resumed are not
 * damage: a killed task leaves one), else 0.
 */
int input_report_damage(struct input *in);
/* Native reader statistics (zeroes when there is no native input). */
void input_native_stats(const struct input *in, struct iot_trace_stats *out);
size_t input_files(const struct input *in, const struct input_file_info **files);
/*
 * Progress through the inputs: *done of *total bytes read (a native trace's
 * compressed bytes, iot_trace_stats' bytes_read). Returns 0 when the total
 * is unknown (an input is a pipe: only *done is set), else 1.
 */
int input_progress(const struct input *in, uint64_t *done, uint64_t *total);
void input_close(struct input *in);

#endif /* INPUT_H */
