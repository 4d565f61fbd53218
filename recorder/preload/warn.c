/*
 * warn.c - output failures. When the trace cannot be written (full disk,
 * file size limit, no memory for buffers) recording stops for good in this
 * process and the program runs on untouched, with one line on stderr.
 *
 * Once per run, not per process: a full disk is met by every process of a
 * `make -j`. The launcher creates an empty flag file (IORECORD_ONCE); the
 * first process to fail marks it under flock and is the only one to speak.
 * Without the launcher, IORECORD_WARNED=1 passed to exec'd children keeps
 * them quiet after their ancestor spoke.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/file.h>

#include "internal.h"

int rec_stopped;
static char once_path[PATH_MAX];
static int warned;                 /* this process, or an ancestor, warned */

void rec_warn_init(int warned_before, const char *once)
{
    warned = warned_before;
    if (once && strlen(once) < sizeof(once_path))
        strcpy(once_path, once);
}

int rec_warned(void)
{
    return __atomic_load_n(&warned, __ATOMIC_ACQUIRE);
}

const char *rec_once_path(void)
{
    return once_path[0] ? once_path : NULL;
}

/* Whether this process is the run's first to warn. */
static int first_to_warn(void)
{
    char c = 0;
    int fd, first = 1;

    /* A secure process (setuid...) writes no file its caller named: the
       flag file's path comes from the environment. */
    if (!once_path[0] || getauxval(AT_SECURE))
        return 1;
    fd = (int)syscall(SYS_openat, AT_FDCWD, once_path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return 1;   /* the launcher is gone: better said twice than never */
    syscall(SYS_flock, fd, LOCK_EX);
    if (syscall(SYS_pread64, fd, &c, 1, 0) == 1 && c == '1')
        first = 0;
    else
        syscall(SYS_pwrite64, fd, "1", 1, 0);
    syscall(SYS_flock, fd, LOCK_UN);
    syscall(SYS_close, fd);
    return first;
}

/* One line on stderr, once per run; the program's own output is untouched. */
static void warn_line(const char *line)
{
    if (__atomic_exchange_n(&warned, 1, __ATOMIC_ACQ_REL) || !first_to_warn())
        return;
    rec_sys_write_all(2, line, strlen(line));
}

void rec_warn(const char *msg, int err)
{
    char line[PATH_MAX + 256];

    if (rec_warned())
        return;   /* said already: not even the formatting */
    snprintf(line, sizeof(line), "iorecord: %s '%s': %s; recording stopped\n",
             msg, rec_out_path, strerror(err));
    warn_line(line);
}

void rec_warn_refuse(const char *why)
{
    char line[PATH_MAX + 256];

    if (rec_warned())
        return;
    snprintf(line, sizeof(line), "iorecord: '%s' %s\n", rec_out_path, why);
    warn_line(line);
}

void rec_stop(const char *msg, int err)
{
    if (__atomic_exchange_n(&rec_stopped, 1, __ATOMIC_ACQ_REL))
        return;
    __atomic_store_n(&rec_active, 0, __ATOMIC_RELEASE);
    rec_warn(msg, err);
}
