/*
 * strace_source.c - strace text logs as an event source (see strace.h): the
 * API, the patterns of the line grammar and the dispatch of each line.
 *
 * A line is "[PID] [TIME] BODY". PCRE2 patterns split the prefix, classify
 * the body (call, <unfinished ...>, <... resumed>, +++ exit +++, --- signal
 * ---) and take the return value, errno and -T duration apart; a small
 * scanner splits the argument list (strace_args.c), because arguments nest
 * quotes, brackets, braces and -y annotations that a regular expression
 * cannot balance.
 *
 * Events leave in time order: a call that was <unfinished ...> is emitted
 * when it resumes but carries its start time, so events wait in a small heap
 * until no earlier event can still arrive (strace_heap.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "strace_int.h"

/* ------------------------------------------------------------- patterns */

/* Everything before the body: "[pid N] " or "N ", then the time of -t, -tt
 * (groups 3-6) or -ttt, -r (7-8), then the "[ip]" of -i. */
static const char PAT_PREFIX[] =
    "^\\s*(?:\\[pid\\s+(\\d+)\\]\\s+|(\\d+)\\s+)?"
    "(?:(\\d{1,2}):(\\d\\d):(\\d\\d)(?:\\.(\\d{1,9}))?\\s+|(\\d+)\\.(\\d{1,9})\\s+)?"
    "(?:\\[\\s*[0-9a-f?]+\\]\\s+)?";
static const char PAT_EXIT[] = "^\\+\\+\\+ exited with (\\d+) \\+\\+\\+";
static const char PAT_KILLED[] = "^\\+\\+\\+ killed by (SIG[A-Z0-9_+]+)(?: \\(core dumped\\))? \\+\\+\\+";
static const char PAT_RESUMED[] = "^<\\.\\.\\. ([A-Za-z0-9_]+) resumed>";
static const char PAT_CALL[] = "^([a-z_][a-z0-9_]*)\\(";
static const char PAT_UNFINISHED[] = "\\s*<unfinished \\.\\.\\.>\\s*$";
static const char PAT_RET[] = "^\\s*=\\s*(\\?|0x[0-9a-fA-F]+|-?\\d+)";
/* A -k stack frame: "> /lib/libc.so.6(__open64+0x51) [0xf8011]" */
static const char PAT_FRAME[] = "^> (.*)\\(([^()]*)\\) \\[(0x[0-9a-fA-F]+)\\]\\s*$";
/* The errno name after the return value; the "<0.000012>" duration is found
   from the end of the line by strace_parse_ret instead: a forward pattern
   for it backtracks quadratically on a long run of blanks. */
static const char PAT_TAIL[] = "^\\s++(E[A-Z0-9_]*)\\s++\\(";

/* The detection test: a prefix as PAT_PREFIX reads it, then the start of a
 * body the dispatch knows, or a message of strace's own. */
static const char PAT_DETECT[] =
    "^\\s*(?:\\[pid\\s+\\d+\\]\\s+|\\d+\\s+)?"
    "(?:\\d{1,2}:\\d\\d:\\d\\d(?:\\.\\d+)?\\s+|\\d+\\.\\d+\\s+)?"
    "(?:[a-z_][a-z0-9_]*\\(|<\\.\\.\\. [A-Za-z0-9_]+ resumed>|\\+\\+\\+ |--- )"
    "|^strace: ";

static pcre2_code *re_compile(const char *pat)
{
    int err;
    PCRE2_SIZE off;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, 0, &err, &off, NULL);

    /* JIT makes the per-line matching about three times faster; without
     * it (unsupported platform) the interpreter gives the same results. */
    if (re)
        pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
    return re;
}

static int compile_all(struct strace_src *s)
{
    s->re_prefix = re_compile(PAT_PREFIX);
    s->re_exit = re_compile(PAT_EXIT);
    s->re_killed = re_compile(PAT_KILLED);
    s->re_resumed = re_compile(PAT_RESUMED);
    s->re_call = re_compile(PAT_CALL);
    s->re_unfinished = re_compile(PAT_UNFINISHED);
    s->re_ret = re_compile(PAT_RET);
    s->re_tail = re_compile(PAT_TAIL);
    s->re_frame = re_compile(PAT_FRAME);
    if (!s->re_prefix || !s->re_exit || !s->re_killed || !s->re_resumed || !s->re_call ||
        !s->re_unfinished || !s->re_ret || !s->re_tail || !s->re_frame)
        return -1;
    s->md = pcre2_match_data_create(20, NULL);
    return s->md ? 0 : -1;
}

int strace_detect(const char *buf, size_t len)
{
    pcre2_code *re;
    pcre2_match_data *md;
    size_t i = 0, end;
    int rc;

    while (i < len && (buf[i] == '\n' || buf[i] == '\r' || buf[i] == ' '))
        i++;
    for (end = i; end < len && buf[end] != '\n'; end++)
        /* strace escapes what is not printable: a control byte in the
           line is binary, such as a native trace cut just before a frame
           ("a(" and zstd's magic look like a call's start) */
        if ((unsigned char)buf[end] < 0x20 && buf[end] != '\t' && buf[end] != '\r')
            return 0;
    if (end == i)
        return 0;
    re = re_compile(PAT_DETECT);
    if (!re)
        return 0;
    md = pcre2_match_data_create_from_pattern(re, NULL);
    rc = md ? pcre2_match(re, (PCRE2_SPTR)buf + i, end - i, 0, 0, md, NULL) : -1;
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    return rc > 0;
}

/* ------------------------------------------------------------ one line */

/* Buffer for joining an unfinished call's text with its resumption. */
static char *scratch_join(struct strace_src *s, const char *a, size_t an, const char *b, size_t bn)
{
    if (iot_grow(&s->scratch, &s->scratch_cap, an + bn + 1, 1) < 0)
        return NULL;
    memcpy(s->scratch, a, an);
    memcpy(s->scratch + an, b, bn);
    s->scratch[an + bn] = '\0';
    return s->scratch;
}

/* "+++ exited with N +++" or "+++ killed by SIG +++" of task tid at t. */
static int exit_line(struct strace_src *s, int32_t tid, int64_t t, const char *body, size_t n)
{
    const char *g = NULL;
    struct strace_task *k;
    int status, sig = 0;
    long gl;

    if (strace_re_match(s, s->re_exit, body, n) > 0) {
        gl = strace_re_group(s, 1, body, &g);
        status = (int)(strace_num(g, gl) & 0xff);  /* an exit status is 8 bits */
    } else if (strace_re_match(s, s->re_killed, body, n) > 0) {
        gl = strace_re_group(s, 1, body, &g);
        sig = strace_signal_number(g, (size_t)gl);
        status = 128 + sig;
    } else {
        return 0;  /* "+++ superseded by execve +++" and the like */
    }
    if (!(k = strace_task_of(s, tid, t)))
        return -1;
    return strace_task_exit(s, k, t, status, sig);
}

/*
 * "<... name resumed> rest" of task tid: the call it left unfinished, whole
 * at last, at the time it started. 1 handled, 0 not a resumption of
 * anything (an unknown line), -1 out of memory.
 */
static int resumed_line(struct strace_src *s, int32_t tid, const char *body, size_t n)
{
    const char *g = NULL;
    struct strace_task *k;
    char *joined, *name;
    size_t start;
    long gl;
    int64_t t;
    int rc;

    if (strace_re_match(s, s->re_resumed, body, n) <= 0)
        return 0;
    start = strace_re_end(s);
    gl = strace_re_group(s, 1, body, &g);
    if (!(k = strace_pend_find(s, tid, g, (size_t)gl)))
        return 0;
    if (!(joined = scratch_join(s, k->pend_args, strlen(k->pend_args), body + start, n - start)))
        return -1;
    name = k->pend_name;
    k->pend_name = NULL;
    t = k->pend_t;
    strace_pend_end(s, k);
    rc = strace_call(s, k, name, strlen(name), joined, strlen(joined), t);
    free(name);
    return rc < 0 ? -1 : 1;
}

/*
 * "name(args) = ret" of task tid at t, or its first part "name(args
 * <unfinished ...>", which waits for the rest. 1 handled, 0 no call (an
 * unknown line), -1 out of memory.
 */
static int call_line(struct strace_src *s, int32_t tid, int64_t t, const char *body, size_t n)
{
    const char *name = NULL;
    struct strace_task *k;
    size_t start;
    long nlen;
    int rc;

    if (strace_re_match(s, s->re_call, body, n) <= 0)
        return 0;
    start = strace_re_end(s);
    nlen = strace_re_group(s, 1, body, &name);
    if (!(k = strace_task_of(s, tid, t)))
        return -1;
    if (strace_re_match(s, s->re_unfinished, body + start, n - start) > 0) {
        size_t cut = start + strace_re_start(s);
        rc = strace_pend_start(s, k, name, (size_t)nlen, body + start, cut - start,
                               strace_syscall_forks(name, (size_t)nlen), t);
    } else {
        rc = strace_call(s, k, name, (size_t)nlen, body + start, n - start, t);
    }
    return rc < 0 ? -1 : 1;
}

/* Process the line ahead of log l. */
static int process_line(struct strace_src *s, struct strace_log *l)
{
    const char *body = l->line + l->body;
    size_t n = l->len - l->body;
    int32_t tid = l->pid ? l->pid : l->default_pid;
    int64_t t = l->abs - s->origin;
    int rc;

    if (n > 1 && body[0] == '>' && body[1] == ' ')
        return strace_stack_frame(s, l, body, n);  /* -k: the stack of the call above */
    if (strace_stack_end(s, l) < 0)
        return -1;
    if (n == 0)
        return 0;
    if (body[0] == '-' || (n > 7 && memcmp(body, "strace:", 7) == 0))
        return 0;  /* signals, strace's own messages */
    if (body[0] == '+')
        return exit_line(s, tid, t, body, n);
    rc = body[0] == '<' ? resumed_line(s, tid, body, n) : call_line(s, tid, t, body, n);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    strace_unknown_line(s, l);
    return 0;
}

/* ------------------------------------------------------------- open/next */

/* files[i] or, where files is NULL, ins[i]: the logs named names[i]. */
static struct strace_src *open_many(FILE *const *files, struct infile *const *ins,
                                   const char *const *names, size_t n,
                                   struct iot_strtab *st, char *errbuf)
{
    struct strace_src *s = calloc(1, sizeof(*s));
    int have_origin = 0;

    if (!s || compile_all(s) < 0 || !(s->logs = calloc(n ? n : 1, sizeof(*s->logs))) ||
        !(s->logq[LOGQ_LINE].a = calloc(n ? n : 1, sizeof(*s->logq[0].a))) ||
        !(s->logq[LOGQ_HELD].a = calloc(n ? n : 1, sizeof(*s->logq[0].a)))) {
        snprintf(errbuf, IOT_ERRBUF_SIZE, "out of memory");
        strace_close(s);
        return NULL;
    }
    s->st = st;
    s->nlogs = n;
    s->logq[LOGQ_HELD].which = LOGQ_HELD;
    s->cur = s->logs;
    for (size_t i = 0; i < n; i++)
        strace_log_init(&s->logs[i], files ? files[i] : NULL, files ? NULL : ins[i], names[i]);
    for (size_t i = 0; i < n; i++) {
        struct strace_log *l = &s->logs[i];

        if (strace_log_start(s, l) < 0) {
            snprintf(errbuf, IOT_ERRBUF_SIZE, "cannot read '%s': %s", l->name,
                     strerror(l->err));
            strace_close(s);
            return NULL;
        }
        if (l->have && (!have_origin || l->abs < s->origin)) {
            s->origin = l->abs;
            have_origin = 1;
        }
    }
    if (n && (s->logs[0].tk == TK_TOD || s->logs[0].tk == TK_EPOCH))
        s->unix_origin = s->origin;
    else if (n)
        s->unix_origin = s->logs[0].mtime_ns;
    return s;
}

struct strace_src *strace_open(FILE *f, const char *name, struct iot_strtab *st, char *errbuf)
{
    return open_many(&f, NULL, &name, 1, st, errbuf);
}

struct strace_src *strace_open_files(struct infile *const *files, const char *const *names,
                                     size_t n, struct iot_strtab *st, char *errbuf)
{
    return open_many(NULL, files, names, n, st, errbuf);
}

int strace_next(struct strace_src *s, struct iot_event *ev, char *errbuf)
{
    for (;;) {
        struct strace_log *l = strace_log_earliest(s);

        if (strace_pop(s, l, strace_pend_oldest(s), ev)) {
            ev->plain = (uint8_t)iot_event_plain(ev);
            s->info.events++;
            return 1;
        }
        if (!l) {
            /* the logs are over: what is still unfinished never resumes */
            while (s->npend)
                strace_pend_lost(s, s->pend[0]);
            return 0;
        }
        s->cur = l;
        if (process_line(s, l) < 0) {
            snprintf(errbuf, IOT_ERRBUF_SIZE, "'%s': out of memory", l->name);
            return -1;
        }
        if (strace_log_advance(s, l) < 0) {
            snprintf(errbuf, IOT_ERRBUF_SIZE, "cannot read '%s': %s", l->name, strerror(l->err));
            return -1;
        }
        if (!l->have && strace_flush_held(s, l) < 0) {
            snprintf(errbuf, IOT_ERRBUF_SIZE, "'%s': out of memory", l->name);
            return -1;
        }
    }
}

void strace_info(const struct strace_src *s, struct strace_info *out)
{
    *out = s->info;
}

void strace_file_info(const struct strace_src *s, size_t i, struct strace_info *out)
{
    if (i < s->nlogs)
        *out = s->logs[i].info;
    else
        memset(out, 0, sizeof(*out));
}

void strace_close(struct strace_src *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nlogs; i++)
        strace_log_release(&s->logs[i]);
    free(s->logs);
    free(s->logq[LOGQ_LINE].a);
    free(s->logq[LOGQ_HELD].a);
    strace_tasks_release(s);
    free(s->heap);
    free(s->scratch);
    free(s->sbuf);
    pcre2_code_free(s->re_prefix);
    pcre2_code_free(s->re_exit);
    pcre2_code_free(s->re_killed);
    pcre2_code_free(s->re_resumed);
    pcre2_code_free(s->re_call);
    pcre2_code_free(s->re_unfinished);
    pcre2_code_free(s->re_ret);
    pcre2_code_free(s->re_tail);
    pcre2_code_free(s->re_frame);
    pcre2_match_data_free(s->md);
    free(s);
}
