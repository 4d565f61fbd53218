/*
 * strace_args.c - the lexer of the strace importer: a call's argument list,
 * the numbers, strings, -y annotations and flag words in it, and the
 * "= value [<path>] [ERRNO (text)] [<duration>]" after it.
 *
 * A log is not trusted input: numbers saturate or wrap, never overflow, and
 * every scan stops at the end of its text whatever the quotes and brackets
 * in it say.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grow.h"
#include "strace_int.h"

/* Skip a quoted string starting at p[i] == '"'; returns the index after it. */
static size_t skip_quoted(const char *p, size_t i, size_t n)
{
    for (i++; i < n; i++) {
        if (p[i] == '\\' && i + 1 < n)
            i++;
        else if (p[i] == '"')
            return i + 1;
    }
    return n;
}

/* Skip a -y annotation starting at p[i] == '<' (nested for -yy); a '>' of
 * "->" inside socket addresses does not close it. */
static size_t skip_angle(const char *p, size_t i, size_t n)
{
    int depth = 0, sq = 0;

    for (; i < n; i++) {
        char c = p[i];
        if (c == '\\' && i + 1 < n)
            i++;
        else if (c == '[')
            sq++;
        else if (c == ']' && sq)
            sq--;
        else if (c == '<' && !sq)
            depth++;
        else if (c == '>' && !sq && !(i > 0 && p[i - 1] == '-') && --depth == 0)
            return i + 1;
    }
    return n;
}

int strace_split_args(const char *p, size_t n, struct strace_arg *args, size_t *rest)
{
    size_t i = 0, start = 0;
    int depth = 0, nargs = 0;

    while (i < n) {
        char c = p[i];
        if (c == '"') {
            i = skip_quoted(p, i, n);
            continue;
        }
        if (c == '<') {
            i = skip_angle(p, i, n);
            continue;
        }
        if (c == '(' || c == '[' || c == '{') {
            depth++;
        } else if ((c == ']' || c == '}') && depth > 0) {
            depth--;
        } else if (c == ')' && depth > 0) {
            depth--;
        } else if ((c == ',' || c == ')') && depth == 0) {
            size_t a = start, b = i;
            while (a < b && p[a] == ' ')
                a++;
            while (b > a && p[b - 1] == ' ')
                b--;
            /* "f()" has no argument, "f(, x)" an empty first one */
            if (nargs < MAX_ARGS && (b > a || c == ',' || nargs > 0)) {
                args[nargs].p = p + a;
                args[nargs].n = b - a;
                nargs++;
            }
            start = i + 1;
            if (c == ')') {
                *rest = i + 1;
                return nargs;
            }
        }
        i++;
    }
    return -1;
}

int64_t strace_arg_int(struct strace_arg a, int *ok)
{
    char buf[32];
    char *end;
    size_t n = a.n < sizeof(buf) - 1 ? a.n : sizeof(buf) - 1;
    long long v;

    memcpy(buf, a.p, n);
    buf[n] = '\0';
    if (n >= 3 && buf[0] == '~' && buf[1] == '0') {
        if (ok)
            *ok = 1;
        return -1;
    }
    errno = 0;
    v = strtoll(buf, &end, 0);
    if (errno == ERANGE)  /* unsigned values beyond int64, e.g. addresses */
        v = (long long)strtoull(buf, &end, 0);
    if (ok)
        *ok = end != buf;
    return v;
}

int64_t strace_arg_bracket(struct strace_arg a)
{
    if (a.n > 1 && a.p[0] == '[') {
        struct strace_arg in = { a.p + 1, a.n - 1 };
        int ok;
        int64_t v = strace_arg_int(in, &ok);
        if (ok)
            return v;
    }
    return -1;
}

/* Append the C-unescaped text of p[0..n) to the string buffer at *len. */
static int unescape_into(struct strace_src *s, const char *p, size_t n, size_t *len)
{
    if (iot_grow(&s->sbuf, &s->sbuf_cap, *len + n + 1, 1) < 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (c != '\\' || i + 1 >= n) {
            s->sbuf[(*len)++] = c;
            continue;
        }
        c = p[++i];
        switch (c) {
        case 'n': s->sbuf[(*len)++] = '\n'; break;
        case 't': s->sbuf[(*len)++] = '\t'; break;
        case 'r': s->sbuf[(*len)++] = '\r'; break;
        case 'v': s->sbuf[(*len)++] = '\v'; break;
        case 'f': s->sbuf[(*len)++] = '\f'; break;
        case 'x': {
            unsigned v = 0, k = 0;
            while (k < 2 && i + 1 < n && strchr("0123456789abcdefABCDEF", p[i + 1]) && p[i + 1]) {
                char h = p[++i];
                v = v * 16 + (unsigned)(h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
                k++;
            }
            s->sbuf[(*len)++] = (char)v;
            break;
        }
        default:
            if (c >= '0' && c <= '7') {
                unsigned v = (unsigned)(c - '0'), k = 1;
                while (k < 3 && i + 1 < n && p[i + 1] >= '0' && p[i + 1] <= '7') {
                    v = v * 8 + (unsigned)(p[++i] - '0');
                    k++;
                }
                s->sbuf[(*len)++] = (char)v;
            } else {
                s->sbuf[(*len)++] = c;  /* \\ and \" */
            }
        }
    }
    s->sbuf[*len] = '\0';
    return 0;
}

const char *strace_arg_str(struct strace_src *s, struct strace_arg a)
{
    size_t end, len = 0;

    if (a.n < 2 || a.p[0] != '"')
        return NULL;
    end = skip_quoted(a.p, 0, a.n);
    if (unescape_into(s, a.p + 1, end - 2, &len) < 0)
        return NULL;
    return iot_intern(s->st, s->sbuf, len);
}

int strace_arg_strv(struct strace_src *s, struct strace_arg a, const char ***argvp, int *argcp,
                    int *first_cut)
{
    const char **argv = NULL;
    size_t cap = 0, i = 1;
    int argc = 0, cut = 0;

    if (a.n < 2 || a.p[0] != '[')
        return 0;
    while (i < a.n) {
        if (a.p[i] == '"') {
            size_t end = skip_quoted(a.p, i, a.n);
            struct strace_arg q = { a.p + i, end - i };
            const char *str = strace_arg_str(s, q);
            /* room for str and the NULL that ends the array */
            if (!str || iot_grow(&argv, &cap, (size_t)argc + 2, sizeof(*argv)) < 0) {
                free(argv);
                return -1;
            }
            if (argc == 0)
                cut = end + 3 <= a.n && memcmp(a.p + end, "...", 3) == 0;
            argv[argc++] = str;
            i = end;
        } else {
            i++;
        }
    }
    if (argv)
        argv[argc] = NULL;
    *argvp = argv;
    *argcp = argc;
    *first_cut = cut;
    return 1;
}

/*
 * The -yy suffix of devices ("</dev/null<char 1:3>>") and " (deleted)" are
 * dropped; sockets and pipes ("<socket:[7]>", "<pipe:[9]>") name no file.
 */
const char *strace_annotation_path(struct strace_src *s, const char *p, size_t n)
{
    size_t i = 0, end, len = 0;

    while (i < n && p[i] != '<')
        i++;
    if (i >= n)
        return NULL;
    s->info.has_paths = 1;
    s->cur->info.has_paths = 1;
    end = skip_angle(p, i, n);
    if (end <= i + 2 || p[end - 1] != '>' || p[i + 1] != '/')
        return NULL;
    end--;
    if (p[end - 1] == '>') {  /* -yy: drop the nested <...> */
        size_t j = end - 1;
        while (j > i + 1 && p[j] != '<')
            j--;
        if (j > i + 1)
            end = j;
    }
    if (end - (i + 1) > 10 && memcmp(p + end - 10, " (deleted)", 10) == 0)
        end -= 10;
    if (unescape_into(s, p + i + 1, end - (i + 1), &len) < 0)
        return NULL;
    return iot_intern(s->st, s->sbuf, len);
}

int strace_arg_is(struct strace_arg a, const char *word)
{
    size_t n = strlen(word);

    return a.n >= n && memcmp(a.p, word, n) == 0 && (a.n == n || !(a.p[n] == '_' ||
           (a.p[n] >= 'A' && a.p[n] <= 'Z') || (a.p[n] >= '0' && a.p[n] <= '9')));
}

struct flag_name { const char *name; int64_t val; };

static const struct flag_name open_flag_names[] = {
    { "O_RDONLY", O_RDONLY }, { "O_WRONLY", O_WRONLY }, { "O_RDWR", O_RDWR },
    { "O_CREAT", O_CREAT }, { "O_EXCL", O_EXCL }, { "O_NOCTTY", O_NOCTTY },
    { "O_TRUNC", O_TRUNC }, { "O_APPEND", O_APPEND }, { "O_NONBLOCK", O_NONBLOCK },
    { "O_NDELAY", O_NDELAY }, { "O_DSYNC", O_DSYNC }, { "O_SYNC", O_SYNC },
    { "O_RSYNC", O_RSYNC }, { "O_DIRECTORY", O_DIRECTORY }, { "O_NOFOLLOW", O_NOFOLLOW },
    { "O_CLOEXEC", O_CLOEXEC }, { "O_ASYNC", O_ASYNC }, { "FASYNC", O_ASYNC },
    { "O_DIRECT", O_DIRECT }, { "O_LARGEFILE", O_LARGEFILE }, { "O_NOATIME", O_NOATIME },
    { "O_PATH", O_PATH }, { "O_TMPFILE", O_TMPFILE },
    { NULL, 0 }
};

/* The flags of the metadata calls (stat family, access, unlinkat, renameat2). */
static const struct flag_name at_flag_names[] = {
    { "AT_SYMLINK_NOFOLLOW", AT_SYMLINK_NOFOLLOW }, { "AT_SYMLINK_FOLLOW", AT_SYMLINK_FOLLOW },
    { "AT_REMOVEDIR", AT_REMOVEDIR }, { "AT_EACCESS", AT_EACCESS },
    { "AT_EMPTY_PATH", AT_EMPTY_PATH }, { "AT_NO_AUTOMOUNT", AT_NO_AUTOMOUNT },
    { "AT_STATX_SYNC_AS_STAT", AT_STATX_SYNC_AS_STAT },
    { "AT_STATX_FORCE_SYNC", AT_STATX_FORCE_SYNC },
    { "AT_STATX_DONT_SYNC", AT_STATX_DONT_SYNC },
    { "F_OK", F_OK }, { "R_OK", R_OK }, { "W_OK", W_OK }, { "X_OK", X_OK },
    { "RENAME_NOREPLACE", RENAME_NOREPLACE }, { "RENAME_EXCHANGE", RENAME_EXCHANGE },
    { "RENAME_WHITEOUT", RENAME_WHITEOUT },
    { NULL, 0 }
};

/* "NAME|NAME|0x10" (or a number from -X raw) as the bits the table names. */
static int64_t flags_of(struct strace_arg a, const struct flag_name *names)
{
    int64_t flags = 0;
    size_t i = 0;

    while (i < a.n) {
        size_t j = i;
        while (j < a.n && a.p[j] != '|' && a.p[j] != ',' && a.p[j] != ' ' && a.p[j] != '}')
            j++;
        struct strace_arg w = { a.p + i, j - i };
        if (w.n && w.p[0] >= '0' && w.p[0] <= '9') {
            flags |= strace_arg_int(w, NULL);
        } else {
            for (const struct flag_name *k = names; k->name; k++)
                if (w.n == strlen(k->name) && memcmp(w.p, k->name, w.n) == 0) {
                    flags |= k->val;
                    break;
                }
        }
        if (j >= a.n || a.p[j] != '|')
            break;
        i = j + 1;
    }
    return flags;
}

int64_t strace_open_flags(struct strace_arg a)
{
    /* openat2's "{flags=..., ...}" */
    if (a.n > 6 && memcmp(a.p, "flags=", 6) == 0) {
        a.p += 6;
        a.n -= 6;
    }
    return flags_of(a, open_flag_names);
}

int64_t strace_at_flags(struct strace_arg a)
{
    return flags_of(a, at_flag_names);
}

int64_t strace_iov_sum(struct strace_arg a)
{
    int64_t sum = 0;

    for (size_t i = 0; i < a.n;) {
        if (a.p[i] == '"') {
            i = skip_quoted(a.p, i, a.n);
            continue;
        }
        if (a.n - i > 8 && memcmp(a.p + i, "iov_len=", 8) == 0) {
            struct strace_arg v = { a.p + i + 8, a.n - i - 8 };
            /* wraps, never UB */
            sum = (int64_t)((uint64_t)sum + (uint64_t)strace_arg_int(v, NULL));
            i += 8;
            continue;
        }
        i++;
    }
    return sum;
}

int strace_signal_number(const char *name, size_t n)
{
    if (n > 3 && memcmp(name, "SIG", 3) == 0) {
        name += 3;
        n -= 3;
    }
    for (int i = 1; i < 65; i++) {
        const char *abbr = sigabbrev_np(i);
        if (abbr && strlen(abbr) == n && memcmp(abbr, name, n) == 0)
            return i;
    }
    return 0;
}

static int errno_number(const char *name, size_t n)
{
    for (int i = 1; i < 200; i++) {
        const char *e = strerrorname_np(i);
        if (e && strlen(e) == n && memcmp(e, name, n) == 0)
            return i;
    }
    return 0;
}

/*
 * The "<SECONDS[.FRACTION]>" that -T appends, read from the end of the line
 * (trailing blanks skipped): linear whatever the line holds. 1 when found.
 */
static int tail_duration(const char *p, size_t n, int64_t *dur)
{
    size_t end = n, open, dot;

    while (end > 0 && (p[end - 1] == ' ' || p[end - 1] == '\t' || p[end - 1] == '\r' ||
                       p[end - 1] == '\n'))
        end--;
    if (end < 3 || p[end - 1] != '>')
        return 0;
    /* digits, at most one '.', then '<' */
    for (open = end - 1, dot = 0; open > 0; open--) {
        char c = p[open - 1];

        if (c == '<')
            break;
        if (c == '.' && !dot)
            dot = open - 1;
        else if (c < '0' || c > '9')
            return 0;
    }
    if (open == 0 || open == end - 1)
        return 0;  /* no '<', or "<>" */
    /* open is the first digit, p[open - 1] == '<' */
    if (!dot) {
        *dur = strace_sec_ns(strace_num(p + open, (long)(end - 1 - open)), 0);
        return 1;
    }
    if (dot == open || end - 1 - (dot + 1) > 9 || end - 1 == dot + 1)
        return 0;
    *dur = strace_sec_ns(strace_num(p + open, (long)(dot - open)),
                         strace_frac_ns(p + dot + 1, (long)(end - 1 - dot - 1)));
    return 1;
}

int strace_parse_ret(struct strace_src *s, const char *p, size_t n, struct strace_ret *r)
{
    const char *g = NULL;
    long gl;
    size_t i;

    memset(r, 0, sizeof(*r));
    if (strace_re_match(s, s->re_ret, p, n) <= 0)
        return -1;
    gl = strace_re_group(s, 1, p, &g);
    if (gl == 1 && g[0] == '?') {
        r->known = 0;
    } else {
        struct strace_arg a = { g, (size_t)gl };
        r->known = 1;
        r->val = strace_arg_int(a, NULL);
    }
    i = strace_re_end(s);
    if (i < n && p[i] == '<') {
        size_t end = skip_angle(p, i, n);
        r->path = strace_annotation_path(s, p + i, end - i);
        i = end;
    }
    if (strace_re_match(s, s->re_tail, p + i, n - i) > 0 &&
        (gl = strace_re_group(s, 1, p + i, &g)) > 0)
        r->err = errno_number(g, gl);
    if (tail_duration(p + i, n - i, &r->dur)) {
        r->has_dur = 1;
        s->info.has_durations = 1;
        s->cur->info.has_durations = 1;
    }
    return 0;
}
