/*
 * strace_lines.c - the line reader of the strace importer: each log's next
 * line, its prefix (pid, time) and its time on one scale shared by all the
 * logs of a run, so that the lines of `strace -ff -o LOG` files can be taken
 * in time order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "heap.h"
#include "strace_int.h"

/* Pid of a log that has no pid column and no LOG.PID name. */
#define DEFAULT_PID 1

int64_t strace_sec_ns(int64_t sec, int64_t frac)
{
    if (sec > MAX_SEC)
        sec = MAX_SEC;
    if (sec < -MAX_SEC)
        sec = -MAX_SEC;
    return sec * NS_PER_S + frac;
}

int64_t strace_frac_ns(const char *p, long n)
{
    int64_t v = strace_num(p, n);

    for (long i = n; i < 9; i++)
        v *= 10;
    return v;
}

/* Unix ns of local midnight of the day holding unix second `sec`. */
static int64_t local_midnight(time_t sec)
{
    struct tm tm;

    if (!localtime_r(&sec, &tm))
        return 0;
    tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
    tm.tm_isdst = -1;
    return strace_sec_ns((int64_t)mktime(&tm), 0);
}

/* The columns before a line's body, as a number two lines compare by: its
 * pid column (none, "[pid N]", "N"), its time (none, -t/-tt, -ttt/-r) and
 * the digits of that time's hour and fraction; 0 for a line that says
 * nothing of its log's columns (blank, strace's messages, -k frames). */
enum { SHAPE_BODY = 1, SHAPE_PID_BRACKET = 2, SHAPE_PID = 4, SHAPE_TOD = 8, SHAPE_SECS = 16,
       SHAPE_KNOWN = 1u << 16 /* the body starts as strace writes one */ };

static unsigned prefix_shape(struct strace_src *s, const char *line, size_t len)
{
    const char *p, *b;
    unsigned shape = SHAPE_BODY;
    size_t bn;
    long gl;

    if (strace_re_match(s, s->re_prefix, line, len) <= 0)
        return 0;
    b = line + strace_re_end(s);
    bn = len - strace_re_end(s);
    if (bn == 0 || (bn > 7 && !memcmp(b, "strace:", 7)))
        return 0;
    if (bn > 1 && b[0] == '>' && b[1] == ' ')  /* a -k frame, or the end of a line cut */
        return strace_re_match(s, s->re_frame, b, bn) > 0 ? 0 : SHAPE_BODY;
    if ((bn > 4 && (!memcmp(b, "<... ", 5) || !memcmp(b, "+++ ", 4) || !memcmp(b, "--- ", 4))) ||
        strace_re_match(s, s->re_call, b, bn) > 0)
        shape |= SHAPE_KNOWN;
    strace_re_match(s, s->re_prefix, line, len);  /* its groups, again */
    if (strace_re_group(s, 1, line, &p) > 0)
        shape |= SHAPE_PID_BRACKET;
    else if (strace_re_group(s, 2, line, &p) > 0)
        shape |= SHAPE_PID;
    if ((gl = strace_re_group(s, 3, line, &p)) > 0) {
        shape |= SHAPE_TOD | (unsigned)gl << 5;
        gl = strace_re_group(s, 6, line, &p);
        shape |= (unsigned)(gl > 0 ? gl : 0) << 8;
    } else if (strace_re_group(s, 7, line, &p) > 0) {
        gl = strace_re_group(s, 8, line, &p);
        shape |= SHAPE_SECS | (unsigned)(gl > 0 ? gl : 0) << 8;
    }
    return shape;
}

/*
 * Whether a file's first line, of prefix shape first, is the tail of a line
 * cut off (a log rotated by size, a copy taken with tail -c) where its second
 * line has shape second: strace writes the same columns on every line, each
 * hour in two digits, so a first line with another time, or without the
 * pid column the next line has, is a piece. A piece that still reads as a
 * whole line ("3787 09:15:47.727269 execve(...)" of pid 23787) cannot be
 * told from one, and is read as one; a second line that strace did not write
 * tells nothing. A log without a pid column on its first
 * line and "[pid N]" on its second is strace -f writing to its stderr: whole.
 */
static int first_line_cut(unsigned first, unsigned second)
{
    unsigned pids = SHAPE_PID_BRACKET | SHAPE_PID;

    if (!first || !(second & SHAPE_KNOWN))
        return 0;  /* a second line strace did not write says nothing */
    first &= ~SHAPE_KNOWN;
    second &= ~SHAPE_KNOWN;
    if ((first & ~pids) != (second & ~pids))
        return 1;
    return (first & pids) != (second & pids) &&
           ((first & SHAPE_PID) || (second & SHAPE_PID));
}

/* The next physical line of l into l->line; its length, or -1 at the end. */
static ssize_t next_raw(struct strace_log *l, FILE *f)
{
    ssize_t n;

    if (l->second_len >= 0) {
        char *t = l->line;
        size_t c = l->cap;

        l->line = l->second;
        l->cap = l->second_cap;
        l->second = t;
        l->second_cap = c;
        n = l->second_len;
        l->second_len = -1;
        return n;
    }
    n = f ? getline(&l->line, &l->cap, f) : -1;
    while (n > 0 && (l->line[n - 1] == '\n' || l->line[n - 1] == '\r'))
        l->line[--n] = '\0';
    return n;
}

/*
 * The first line of l, read with its second to tell whether it is a piece
 * of a line cut off; a piece is counted as a line not understood (named in
 * a warning) and the second line comes first instead.
 */
static ssize_t first_raw(struct strace_src *s, struct strace_log *l, FILE *f)
{
    ssize_t n = next_raw(l, f), n2;
    unsigned shape;

    if (n < 0)
        return n;
    shape = prefix_shape(s, l->line, (size_t)n);
    {
        char *t = l->line;
        size_t c = l->cap;

        l->line = l->second;   /* the second line is read into the spare buffer */
        l->cap = l->second_cap;
        n2 = next_raw(l, f);
        l->second = l->line;
        l->second_cap = l->cap;
        l->line = t;
        l->cap = c;
    }
    if (n2 < 0)
        return n;
    l->second_len = n2;
    if (first_line_cut(shape, prefix_shape(s, l->second, (size_t)n2))) {
        s->info.lines++;
        l->info.lines++;
        strace_unknown_line(s, l);
        n = next_raw(l, f);
    }
    return n;
}

/*
 * Read the next line of l and parse its prefix. The common time scale is
 * unix ns for -ttt and -tt (the date of a -tt log comes from the file's
 * mtime: the log was last written on the day its last line was, so the first
 * line is on that day, or the day before when its time of day is later than
 * the mtime's), and an artificial clock otherwise.
 * Returns 1 line, 0 end of file, -1 read error.
 */
static int read_line(struct strace_src *s, struct strace_log *l)
{
    ssize_t n;
    FILE *f;
    const char *p;
    long gl;
    int64_t tod;

    l->have = 0;
    if (l->eof)
        return 0;
    errno = 0;
    f = l->in ? infile_file(l->in) : l->f;
    n = l->info.lines == 0 ? first_raw(s, l, f) : next_raw(l, f);
    if (n < 0) {
        l->eof = 1;
        if (!f || ferror(f)) {
            l->err = errno ? errno : EIO;
            return -1;
        }
        if (l->in)
            infile_done(l->in);  /* its descriptor is free for the next log */
        return 0;
    }
    l->len = (size_t)n;
    l->have = 1;
    s->info.lines++;
    l->info.lines++;

    l->pid = 0;
    l->body = 0;
    if (strace_re_match(s, s->re_prefix, l->line, l->len) <= 0)
        return 1;  /* cannot happen: every part of the prefix is optional */
    l->body = strace_re_end(s);
    if ((gl = strace_re_group(s, 1, l->line, &p)) > 0 ||
        (gl = strace_re_group(s, 2, l->line, &p)) > 0)
        l->pid = gl <= 9 ? (int32_t)strace_num(p, gl) : 0;  /* longer: no pid */

    if ((gl = strace_re_group(s, 3, l->line, &p)) > 0) {
        int64_t h = strace_num(p, gl), frac = 0;
        strace_re_group(s, 4, l->line, &p);
        int64_t m = strace_num(p, 2);
        strace_re_group(s, 5, l->line, &p);
        int64_t sec = strace_num(p, 2);
        if ((gl = strace_re_group(s, 6, l->line, &p)) > 0)
            frac = strace_frac_ns(p, gl);
        tod = ((h * 60 + m) * 60 + sec) * NS_PER_S + frac;
        if (l->tk == TK_UNSET) {
            l->tk = TK_TOD;
            l->day_base = local_midnight((time_t)(l->mtime_ns / NS_PER_S));
            if (l->day_base + tod > l->mtime_ns + NS_PER_S)
                l->day_base -= 86400 * NS_PER_S;
            l->last_tod = tod;
        }
        /* a jump back of more than 12 hours is midnight passing */
        if (tod + 12 * 3600 * NS_PER_S < l->last_tod && l->day_base < MAX_SEC * NS_PER_S)
            l->day_base += 86400 * NS_PER_S;
        l->last_tod = tod;
        l->abs = l->day_base + tod;
    } else if ((gl = strace_re_group(s, 7, l->line, &p)) > 0) {
        int64_t sec = strace_num(p, gl), frac = 0;
        if ((gl = strace_re_group(s, 8, l->line, &p)) > 0)
            frac = strace_frac_ns(p, gl);
        if (l->tk == TK_UNSET)
            l->tk = sec < 100000000 ? TK_REL : TK_EPOCH;  /* -r: since the previous line */
        if (l->tk == TK_REL) {
            if (l->clock < MAX_SEC * NS_PER_S)
                l->clock += strace_sec_ns(sec, frac);
            l->abs = l->clock;
        } else {
            l->abs = strace_sec_ns(sec, frac);
        }
    } else {
        const char *b = l->line + l->body;
        size_t bn = l->len - l->body;
        /* strace's messages and -k frames carry no time in any log */
        int bare = bn == 0 || (bn > 1 && b[0] == '>' && b[1] == ' ') ||
                   (bn > 7 && memcmp(b, "strace:", 7) == 0);
        if (l->tk == TK_UNSET && !bare)
            l->tk = TK_NONE;
        if (l->tk == TK_NONE || l->tk == TK_UNSET)
            l->abs = l->clock;
        /* else: a line without a time in a timed log keeps the time of
         * the line before it */
    }
    return 1;
}

int strace_log_advance(struct strace_src *s, struct strace_log *l)
{
    /* Decided before the read: the line that finds the log untimed keeps
     * the clock (0), each line after it ticks. */
    int untimed = l->tk == TK_NONE;
    int rc = read_line(s, l);

    if (rc == 1 && untimed) {
        /* no timestamps: each line starts when the previous one ended,
         * whatever a stray time in it says */
        l->clock += 1;
        l->abs = l->clock;
    }
    strace_logq_update(&s->logq[LOGQ_LINE], l, l->have);
    return rc;
}

/* The pid in a -ff log name "LOG.PID", or 0; a log compressed after (gzip
   or zstd: decompress.h) keeps its pid before the suffix, "LOG.PID.gz". */
static int32_t pid_from_name(const char *name)
{
    static const char *const suffixes[] = {".gz", ".zst"};
    size_t n = name ? strlen(name) : 0;
    const char *dot;
    long v = 0;

    for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
        size_t k = strlen(suffixes[i]);

        if (n > k && strcmp(name + n - k, suffixes[i]) == 0) {
            n -= k;
            break;
        }
    }
    dot = n ? memrchr(name, '.', n) : NULL;
    if (!dot || dot + 1 == name + n)
        return 0;
    for (const char *p = dot + 1; p < name + n; p++) {
        if (*p < '0' || *p > '9' || v > INT32_MAX / 10)
            return 0;
        v = v * 10 + (*p - '0');
    }
    return (int32_t)v;
}

void strace_log_init(struct strace_log *l, FILE *f, struct infile *in, const char *name)
{
    struct stat sb;

    l->f = f;
    l->in = in;
    l->name = name;
    l->second_len = -1;
    l->default_pid = pid_from_name(name);
    if (!l->default_pid)
        l->default_pid = DEFAULT_PID;
    /* the date of a -tt log (read_line) */
    if (in)
        sb = *infile_stat(in);
    if ((in || fstat(fileno(f), &sb) == 0) && S_ISREG(sb.st_mode))
        l->mtime_ns = strace_sec_ns((int64_t)sb.st_mtim.tv_sec, sb.st_mtim.tv_nsec);
    else
        l->mtime_ns = strace_sec_ns((int64_t)time(NULL), 0);
}

int strace_log_start(struct strace_src *s, struct strace_log *l)
{
    /* leading strace messages tell no time: the first real line does */
    do {
        if (strace_log_advance(s, l) < 0)
            return -1;
    } while (l->have && l->tk == TK_UNSET);
    return 0;
}

struct strace_log *strace_log_earliest(struct strace_src *s)
{
    return s->logq[LOGQ_LINE].n ? s->logq[LOGQ_LINE].a[0] : NULL;
}

/* Earlier time first; equal times in input order (the logs are one array). */
static int logq_before(const struct strace_logq *q, const struct strace_log *a,
                       const struct strace_log *b)
{
    int64_t ta = q->which == LOGQ_HELD ? a->held.ev.t : a->abs;
    int64_t tb = q->which == LOGQ_HELD ? b->held.ev.t : b->abs;

    return ta < tb || (ta == tb && a < b);
}

#define LOGQ_BEFORE(q, x, y) logq_before(q, *(x), *(y))
#define LOGQ_PLACED(q, a, i) ((a)[i]->qpos[(q)->which] = (i) + 1)
IOT_HEAP_DEFINE(logq_heap, struct strace_log *, const struct strace_logq *,
                LOGQ_BEFORE, LOGQ_PLACED)

void strace_logq_update(struct strace_logq *q, struct strace_log *l, int in)
{
    size_t pos = l->qpos[q->which];

    if (pos && in) {
        logq_heap_fix(q, q->a, q->n, pos - 1);
    } else if (pos) {
        struct strace_log *last = q->a[--q->n];

        l->qpos[q->which] = 0;
        if (last != l) {
            q->a[pos - 1] = last;
            logq_heap_fix(q, q->a, q->n, pos - 1);
        }
    } else if (in) {
        q->a[q->n++] = l;
        logq_heap_fix(q, q->a, q->n, q->n - 1);
    }
}

void strace_unknown_line(struct strace_src *s, struct strace_log *l)
{
    if (l->info.unknown_lines < STRACE_LINES_NAMED)
        l->info.unknown_at[l->info.unknown_lines] = l->info.lines;
    s->info.unknown_lines++;
    l->info.unknown_lines++;
}

void strace_log_release(struct strace_log *l)
{
    if (l->in)
        infile_done(l->in);
    free(l->line);
    free(l->second);
    free(l->held.stk);
}
