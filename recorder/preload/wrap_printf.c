/*
 * wrap_printf.c - formatted and wide-character stdio: the printf and scanf
 * families with their __*_chk (fortified) and __isoc99_ forms, dprintf,
 * and the wide-character calls (a program printing to a redirected
 * stdout must not record nothing).
 *
 * A variadic function calls its v-form's real function with its va_list,
 * as glibc itself does; each v-form calls its own. Recorded as the stdio
 * op of the family: printf -> fprintf (size = ret = bytes written; for the
 * wide forms, characters), scanf -> fscanf (ret = items assigned), the
 * wide character calls -> fgetc/fputc/fgets/fputs. dprintf writes to an
 * fd through no stream of the program's: recorded as the write it is.
 */
#include <stdarg.h>
#include <stdio.h>
#include <wchar.h>

#include "real.h"
#include "rec.h"
#include "wrap.h"

/* Formatted output on f returned r. */
static void rec_printf(FILE *f, int r, uint64_t s0, uint64_t s1)
{
    rec_stdio(IOT_OP_FPRINTF, f, IOT_HAS_SIZE, r > 0 ? r : 0, r,
              r < 0 ? (errno ? errno : EIO) : 0, s0, s1);
}

/* Formatted input on f returned r (items assigned, or EOF). */
static void rec_scanf(FILE *f, int r, uint64_t s0, uint64_t s1)
{
    rec_stdio(IOT_OP_FSCANF, f, 0, 0, r, rec_stream_err(f, r == EOF),
              s0, s1);
}

/*
 * The two shapes of every function here. `sym` is the exported name
 * (stdio.h renames some, e.g. scanf to __isoc99_scanf, so the symbol is
 * named explicitly); `subj` what the call works on (its stream, or
 * dprintf's fd); `enter(subj, &held)` what is done and recorded before the
 * call, returning the call's first stamp (sv_enter: rec_stdio_enter;
 * fd_enter: the fd's name); `rec(subj, r, s0, s1)` the record;
 * `leave(subj, held)` what undoes enter after the record (the stream's
 * lock).
 *
 * A v-form calls its own real function with its arguments (...).
 */
#define WRAP_VFORM(cname, sym, params, subj, enter, rec, leave, real, ...)    \
    int cname params __asm__(sym);                                             \
    int cname params                                                           \
    {                                                                          \
        uint64_t s0, s1;                                                       \
        int r, held;                                                           \
        if (!rec_active)                                                       \
            return CALL_REAL(-1, real, __VA_ARGS__);                           \
        s0 = enter(subj, &held);                                               \
        r = CALL_REAL(-1, real, __VA_ARGS__);                                  \
        s1 = rec_stamp();                                                      \
        rec(subj, r, s0, s1);                                                  \
        leave(subj, held);                                                     \
        return r;                                                              \
    }

/* A variadic form calls the real v-form `vreal` with its arguments (...)
   and the va_list that follows `last`, as glibc does. */
#define WRAP_VARIADIC(cname, sym, params, last, subj, enter, rec, leave,       \
                      vreal, ...)                                              \
    int cname params __asm__(sym);                                             \
    int cname params                                                           \
    {                                                                          \
        va_list ap;                                                            \
        uint64_t s0, s1;                                                       \
        int r, held = 0;                                                       \
        s0 = rec_active ? enter(subj, &held) : 0;                              \
        va_start(ap, last);                                                    \
        r = CALL_REAL(-1, vreal, __VA_ARGS__, ap);                             \
        s1 = rec_stamp();                                                      \
        va_end(ap);                                                            \
        if (rec_active)                                                        \
            rec(subj, r, s0, s1);                                              \
        leave(subj, held);                                                     \
        return r;                                                              \
    }

/* The stdio forms: they all take their stream's lock. */
static inline uint64_t sv_enter(FILE *f, int *held)
{
    return rec_stdio_enter(1, f, held);
}

static inline void sv_leave(FILE *f, int held)
{
    rec_stream_release(f, held);
}

#define WRAP_SV(cname, sym, params, f, rec, real, ...)                         \
    WRAP_VFORM(cname, sym, params, f, sv_enter, rec, sv_leave, real,           \
               __VA_ARGS__)
#define WRAP_SVAR(cname, sym, params, last, f, rec, vreal, ...)                \
    WRAP_VARIADIC(cname, sym, params, last, f, sv_enter, rec, sv_leave, vreal, \
                  __VA_ARGS__)

REAL_HERE(int, vprintf, (const char *, va_list));
REAL_HERE(int, __vprintf_chk, (int, const char *, va_list));
REAL_HERE(int, vscanf, (const char *, va_list));
REAL_HERE(int, __isoc99_vscanf, (const char *, va_list));
REAL_HERE(int, vfwprintf, (FILE *, const wchar_t *, va_list));
REAL_HERE(int, vwprintf, (const wchar_t *, va_list));
REAL_HERE(int, __vfwprintf_chk, (FILE *, int, const wchar_t *, va_list));
REAL_HERE(int, __vwprintf_chk, (int, const wchar_t *, va_list));
REAL_HERE(int, vfwscanf, (FILE *, const wchar_t *, va_list));
REAL_HERE(int, __isoc99_vfwscanf, (FILE *, const wchar_t *, va_list));
REAL_HERE(int, vwscanf, (const wchar_t *, va_list));
REAL_HERE(int, __isoc99_vwscanf, (const wchar_t *, va_list));

/* --------------------------------------------------------------- printf */

WRAP_SV(rec_vfprintf, "vfprintf", (FILE *f, const char *fmt, va_list ap),
           f, rec_printf, vfprintf, f, fmt, ap)
WRAP_SV(rec_vprintf, "vprintf", (const char *fmt, va_list ap),
           stdout, rec_printf, vprintf, fmt, ap)
WRAP_SV(rec_vfprintf_chk, "__vfprintf_chk",
           (FILE *f, int fl, const char *fmt, va_list ap),
           f, rec_printf, __vfprintf_chk, f, fl, fmt, ap)
WRAP_SV(rec_vprintf_chk, "__vprintf_chk",
           (int fl, const char *fmt, va_list ap),
           stdout, rec_printf, __vprintf_chk, fl, fmt, ap)
WRAP_SVAR(rec_fprintf, "fprintf", (FILE *f, const char *fmt, ...), fmt,
              f, rec_printf, vfprintf, f, fmt)
WRAP_SVAR(rec_printf_, "printf", (const char *fmt, ...), fmt,
              stdout, rec_printf, vfprintf, stdout, fmt)
WRAP_SVAR(rec_fprintf_chk, "__fprintf_chk",
              (FILE *f, int fl, const char *fmt, ...), fmt,
              f, rec_printf, __vfprintf_chk, f, fl, fmt)
WRAP_SVAR(rec_printf_chk, "__printf_chk", (int fl, const char *fmt, ...),
              fmt, stdout, rec_printf, __vfprintf_chk, stdout, fl, fmt)

/* ----------------------------------------------------------------- scanf */

WRAP_SV(rec_vfscanf, "vfscanf", (FILE *f, const char *fmt, va_list ap),
           f, rec_scanf, vfscanf, f, fmt, ap)
WRAP_SV(rec_vfscanf_c99, "__isoc99_vfscanf",
           (FILE *f, const char *fmt, va_list ap),
           f, rec_scanf, __isoc99_vfscanf, f, fmt, ap)
WRAP_SV(rec_vscanf, "vscanf", (const char *fmt, va_list ap),
           stdin, rec_scanf, vscanf, fmt, ap)
WRAP_SV(rec_vscanf_c99, "__isoc99_vscanf", (const char *fmt, va_list ap),
           stdin, rec_scanf, __isoc99_vscanf, fmt, ap)
WRAP_SVAR(rec_fscanf, "fscanf", (FILE *f, const char *fmt, ...), fmt,
              f, rec_scanf, vfscanf, f, fmt)
WRAP_SVAR(rec_fscanf_c99, "__isoc99_fscanf",
              (FILE *f, const char *fmt, ...), fmt,
              f, rec_scanf, __isoc99_vfscanf, f, fmt)
WRAP_SVAR(rec_scanf_, "scanf", (const char *fmt, ...), fmt,
              stdin, rec_scanf, vfscanf, stdin, fmt)
WRAP_SVAR(rec_scanf_c99, "__isoc99_scanf", (const char *fmt, ...), fmt,
              stdin, rec_scanf, __isoc99_vfscanf, stdin, fmt)

/* ------------------------------------------------------ wide printf, scanf */

WRAP_SV(rec_vfwprintf, "vfwprintf",
           (FILE *f, const wchar_t *fmt, va_list ap),
           f, rec_printf, vfwprintf, f, fmt, ap)
WRAP_SV(rec_vwprintf, "vwprintf", (const wchar_t *fmt, va_list ap),
           stdout, rec_printf, vwprintf, fmt, ap)
WRAP_SV(rec_vfwprintf_chk, "__vfwprintf_chk",
           (FILE *f, int fl, const wchar_t *fmt, va_list ap),
           f, rec_printf, __vfwprintf_chk, f, fl, fmt, ap)
WRAP_SV(rec_vwprintf_chk, "__vwprintf_chk",
           (int fl, const wchar_t *fmt, va_list ap),
           stdout, rec_printf, __vwprintf_chk, fl, fmt, ap)
WRAP_SVAR(rec_fwprintf, "fwprintf", (FILE *f, const wchar_t *fmt, ...),
              fmt, f, rec_printf, vfwprintf, f, fmt)
WRAP_SVAR(rec_wprintf, "wprintf", (const wchar_t *fmt, ...), fmt,
              stdout, rec_printf, vfwprintf, stdout, fmt)
WRAP_SVAR(rec_fwprintf_chk, "__fwprintf_chk",
              (FILE *f, int fl, const wchar_t *fmt, ...), fmt,
              f, rec_printf, __vfwprintf_chk, f, fl, fmt)
WRAP_SVAR(rec_wprintf_chk, "__wprintf_chk",
              (int fl, const wchar_t *fmt, ...), fmt,
              stdout, rec_printf, __vfwprintf_chk, stdout, fl, fmt)

WRAP_SV(rec_vfwscanf, "vfwscanf", (FILE *f, const wchar_t *fmt, va_list ap),
           f, rec_scanf, vfwscanf, f, fmt, ap)
WRAP_SV(rec_vfwscanf_c99, "__isoc99_vfwscanf",
           (FILE *f, const wchar_t *fmt, va_list ap),
           f, rec_scanf, __isoc99_vfwscanf, f, fmt, ap)
WRAP_SV(rec_vwscanf, "vwscanf", (const wchar_t *fmt, va_list ap),
           stdin, rec_scanf, vwscanf, fmt, ap)
WRAP_SV(rec_vwscanf_c99, "__isoc99_vwscanf", (const wchar_t *fmt, va_list ap),
           stdin, rec_scanf, __isoc99_vwscanf, fmt, ap)
WRAP_SVAR(rec_fwscanf, "fwscanf", (FILE *f, const wchar_t *fmt, ...), fmt,
              f, rec_scanf, vfwscanf, f, fmt)
WRAP_SVAR(rec_fwscanf_c99, "__isoc99_fwscanf",
              (FILE *f, const wchar_t *fmt, ...), fmt,
              f, rec_scanf, __isoc99_vfwscanf, f, fmt)
WRAP_SVAR(rec_wscanf, "wscanf", (const wchar_t *fmt, ...), fmt,
              stdin, rec_scanf, vfwscanf, stdin, fmt)
WRAP_SVAR(rec_wscanf_c99, "__isoc99_wscanf", (const wchar_t *fmt, ...),
              fmt, stdin, rec_scanf, __isoc99_vfwscanf, stdin, fmt)

/* ------------------------------------------------------------- dprintf */

REAL_HERE(int, vdprintf, (int, const char *, va_list));
REAL_HERE(int, __vdprintf_chk, (int, int, const char *, va_list));

static void rec_dprintf(int fd, int r, uint64_t s0, uint64_t s1)
{
    rec_io(IOT_OP_WRITE, fd, r > 0 ? r : 0, r, ERR_OF(r), s0, s1);
}

/*
 * dprintf: fd named first if new, before the call's first stamp; no lock.
 * On one of the recorder's fds, which it cannot refuse (libc writes inside
 * it), ours moves away first, as for a dup2 onto it: the call then finds
 * the number not open, as natively. Not in a vfork child (guard set): its
 * memory is its parent's.
 */
static inline uint64_t fd_enter(int fd, int *held)
{
    if (REC_UNLIKELY(rec_fd_check(fd)) && !rec_guard)
        rec_own_fd_move(fd);
    *held = 0;
    return rec_stamp();
}

static inline void fd_leave(int fd, int held)
{
    (void)fd;
    (void)held;
}

WRAP_VFORM(rec_vdprintf, "vdprintf", (int fd, const char *fmt, va_list ap),
           fd, fd_enter, rec_dprintf, fd_leave, vdprintf, fd, fmt, ap)
WRAP_VFORM(rec_vdprintf_chk, "__vdprintf_chk",
           (int fd, int fl, const char *fmt, va_list ap),
           fd, fd_enter, rec_dprintf, fd_leave, __vdprintf_chk, fd, fl, fmt,
           ap)
WRAP_VARIADIC(rec_dprintf_, "dprintf", (int fd, const char *fmt, ...), fmt,
              fd, fd_enter, rec_dprintf, fd_leave, vdprintf, fd, fmt)
WRAP_VARIADIC(rec_dprintf_chk, "__dprintf_chk",
              (int fd, int fl, const char *fmt, ...), fmt,
              fd, fd_enter, rec_dprintf, fd_leave, __vdprintf_chk, fd, fl,
              fmt)

/* ------------------------------------------------- wide character calls */

REAL_HERE(wint_t, fgetwc, (FILE *));
REAL_HERE(wint_t, getwc, (FILE *));
REAL_HERE(wint_t, fgetwc_unlocked, (FILE *));
REAL_HERE(wint_t, getwc_unlocked, (FILE *));
REAL_HERE(wint_t, getwchar, (void));
REAL_HERE(wint_t, getwchar_unlocked, (void));
REAL_HERE(wint_t, fputwc, (wchar_t, FILE *));
REAL_HERE(wint_t, putwc, (wchar_t, FILE *));
REAL_HERE(wint_t, fputwc_unlocked, (wchar_t, FILE *));
REAL_HERE(wint_t, putwc_unlocked, (wchar_t, FILE *));
REAL_HERE(wint_t, putwchar, (wchar_t));
REAL_HERE(wint_t, putwchar_unlocked, (wchar_t));
REAL_HERE(wchar_t *, fgetws, (wchar_t *, int, FILE *));
REAL_HERE(wchar_t *, fgetws_unlocked, (wchar_t *, int, FILE *));
REAL_HERE(int, fputws, (const wchar_t *, FILE *));
REAL_HERE(int, fputws_unlocked, (const wchar_t *, FILE *));

/* One character in (op fgetc) or out (fputc), as their narrow forms. */
#define WRAP_WCHAR(name, locks, params, op, f, ...)                            \
    wint_t name params                                                         \
    {                                                                          \
        STDIO_BODY(locks, wint_t, WEOF, name, f,                               \
                   rec_stdio(op, f, IOT_HAS_SIZE, 1,                           \
                             r == WEOF ? (op == IOT_OP_FPUTC ? -1 : 0) : 1,    \
                             r == WEOF ? (op == IOT_OP_FPUTC                   \
                                              ? (errno ? errno : EIO)          \
                                              : rec_stream_err(f, 1))   \
                                       : 0,                                    \
                             s0, s1),                                          \
                   __VA_ARGS__);                                               \
    }

WRAP_WCHAR(fgetwc, 1, (FILE *f), IOT_OP_FGETC, f, f)
WRAP_WCHAR(getwc, 1, (FILE *f), IOT_OP_FGETC, f, f)
WRAP_WCHAR(fgetwc_unlocked, 0, (FILE *f), IOT_OP_FGETC, f, f)
WRAP_WCHAR(getwc_unlocked, 0, (FILE *f), IOT_OP_FGETC, f, f)
WRAP_WCHAR(getwchar, 1, (void), IOT_OP_FGETC, stdin, )
WRAP_WCHAR(getwchar_unlocked, 0, (void), IOT_OP_FGETC, stdin, )
WRAP_WCHAR(fputwc, 1, (wchar_t c, FILE *f), IOT_OP_FPUTC, f, c, f)
WRAP_WCHAR(putwc, 1, (wchar_t c, FILE *f), IOT_OP_FPUTC, f, c, f)
WRAP_WCHAR(fputwc_unlocked, 0, (wchar_t c, FILE *f), IOT_OP_FPUTC, f, c, f)
WRAP_WCHAR(putwc_unlocked, 0, (wchar_t c, FILE *f), IOT_OP_FPUTC, f, c, f)
WRAP_WCHAR(putwchar, 1, (wchar_t c), IOT_OP_FPUTC, stdout, c)
WRAP_WCHAR(putwchar_unlocked, 0, (wchar_t c), IOT_OP_FPUTC, stdout, c)

/* A line in (size = buffer in characters, ret = characters read). */
#define WRAP_FGETWS(name, locks)                                               \
    wchar_t *name(wchar_t *s, int n, FILE *f)                                  \
    {                                                                          \
        STDIO_BODY(locks, wchar_t *, NULL, name, f,                            \
                   rec_stdio(IOT_OP_FGETS, f, IOT_HAS_SIZE, n,                 \
                             r ? (int64_t)wcslen(r) : 0,                       \
                             rec_stream_err(f, !r), s0, s1),            \
                   s, n, f);                                                   \
    }

#define WRAP_FPUTWS(name, locks)                                               \
    int name(const wchar_t *s, FILE *f)                                        \
    {                                                                          \
        STDIO_BODY(locks, int, -1, name, f,                                    \
                   rec_stdio(IOT_OP_FPUTS, f, IOT_HAS_SIZE,                    \
                             (int64_t)wcslen(s),                               \
                             r < 0 ? -1 : (int64_t)wcslen(s),                  \
                             r < 0 ? (errno ? errno : EIO) : 0, s0, s1),       \
                   s, f);                                                      \
    }

WRAP_FGETWS(fgetws, 1)
WRAP_FGETWS(fgetws_unlocked, 0)
WRAP_FPUTWS(fputws, 1)
WRAP_FPUTWS(fputws_unlocked, 0)
