/*
 * meta.c - the records that describe rather than are I/O: the process
 * record (parent, executable, argv, wall clock) at the start of a process
 * and the thread records that name threads, first and after a rename.
 *
 * Names and argv are read from /proc with raw syscalls, never through a
 * wrapper. A thread's chunk is written by that thread alone, so a rename of
 * another thread only marks it; it writes its record at its next call.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/prctl.h>

#include "internal.h"
#include "sandbox.h"

/* Read a small file with raw syscalls (no wrapper, no stdio). */
static ssize_t read_small(const char *path, char *buf, size_t cap)
{
    int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
    ssize_t n = 0;

    if (fd < 0)
        return -1;
    while ((size_t)n < cap) {
        ssize_t r = syscall(SYS_read, fd, buf + n, cap - (size_t)n);

        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += r;
    }
    syscall(SYS_close, fd);
    return n;
}

/* ------------------------------------------------------------- process */

/*
 * The image's executable and argv, taken once: a fork child has its
 * parent's (these copies), which spares the /proc reads between its fork
 * and its exec. argv comes from the constructor when it has it (a copy, as
 * /proc/self/cmdline would give: the program may rewrite its argv later).
 */
static char cmdline[32768];
static char exe[PATH_MAX];
static ssize_t cmdline_len = -1;
static int exe_read;

void rec_image_args(int argc, char **argv)
{
    size_t n = 0;

    if (argc <= 0 || !argv)
        return;                 /* /proc/self/cmdline, then */
    for (int i = 0; i < argc && argv[i]; i++) {
        size_t len = strlen(argv[i]) + 1;

        if (n + len > sizeof(cmdline) - 1)
            break;
        memcpy(cmdline + n, argv[i], len);
        n += len;
    }
    cmdline[n] = '\0';
    cmdline_len = (ssize_t)n;
}

static void read_image(void)
{
    ssize_t n, len;

    if (!exe_read) {
        len = syscall(SYS_readlink, "/proc/self/exe", exe, sizeof(exe) - 1);
        exe[len > 0 ? len : 0] = '\0';
        exe_read = 1;
    }
    if (cmdline_len >= 0)
        return;
    n = read_small("/proc/self/cmdline", cmdline, sizeof(cmdline) - 1);
    if (n < 0)
        n = 0;
    cmdline[n] = '\0';
    cmdline_len = n;
}

const char *rec_image_exe(void)
{
    read_image();
    return exe;
}

void rec_process_record(struct rec_thread *t, int64_t now)
{
    const char *argv[1024];
    struct timespec rt;
    ssize_t n;
    int argc = 0;
    int32_t ppid;

    /* a fork child knows its parent: no getppid, which a filter may refuse */
    ppid = rec_parent_pid ? rec_parent_pid : (int32_t)getppid();
    read_image();
    n = cmdline_len;
    for (ssize_t i = 0; i < n && argc < 1024; argc++) {
        argv[argc] = cmdline + i;
        i += (ssize_t)strlen(cmdline + i) + 1;
    }
    clock_gettime(rec_wall_clock_id(), &rt);
    if (iot_enc_process(&t->enc, ppid, now,
                        (int64_t)rt.tv_sec * 1000000000LL + rt.tv_nsec, exe,
                        argc, argv) != 0)
        iot_enc_process(&t->enc, ppid, now,
                        (int64_t)rt.tv_sec * 1000000000LL + rt.tv_nsec, exe,
                        argc > 16 ? 16 : argc, argv);
    rec_labels_record(t, now);
    rec_startenv_record(t, now);
    rec_publish(t);
    rec_cwd_record(t);
}

/* The process's working directory as a cwd call, appended by t (which
   holds the guard) after its process record. */
void rec_cwd_record(struct rec_thread *t)
{
    char buf[PATH_MAX];
    struct iot_event ev = rec_event(IOT_OP_CWD, 0, 0);
    int saved = errno;
    uint64_t s;

    if (rec_active && rec_cwd_now(buf, sizeof(buf))) {
        s = rec_stamp();
        rec_call_in(t, &ev, buf, NULL, NULL, s, s);
    }
    errno = saved;
}

/* -------------------------------------------------------------- threads */

/* The calling thread's name (comm): every caller records its own. */
static void read_comm(char *name, size_t cap)
{
    static char last[17];   /* the last name read in this process */
    char buf[17] = "";   /* PR_GET_NAME writes at most 16 bytes */

    /*
     * Where prctl may be refused (a seccomp filter), the last name read:
     * a new thread or a fork child starts with its creator's name, and
     * that is usually the process's; else argv[0]'s last component.
     */
    if (rec_filter_may_stand()) {
        memcpy(buf, last, sizeof(buf));
        if (!buf[0] && cmdline_len > 0) {
            /* none read yet: the kernel names a new image after the file
               exec'd, which argv[0] names as a rule */
            const char *slash = strrchr(cmdline, '/');

            rec_copy_str(buf, sizeof(buf) - 1, slash ? slash + 1 : cmdline);
        }
    } else {
        syscall(SYS_prctl, PR_GET_NAME, buf, 0, 0, 0);
        memcpy(last, buf, sizeof(last));
    }
    buf[16] = '\0';
    rec_copy_str(name, cap, buf);   /* before exec too: see rec_copy_str */
}

void rec_thread_name_record(struct rec_thread *t, int64_t now)
{
    char name[64];

    read_comm(name, sizeof(name));
    if (iot_enc_thread(&t->enc, now, name) == 0)
        rec_publish(t);
}

void rec_renamed_here(struct rec_thread *t)
{
    int64_t now = rec_now_ns();
    char name[64];

    read_comm(name, sizeof(name));
    if (iot_enc_thread(&t->enc, now, name) != 0) {
        rec_chunk_switch(t, now);
        iot_enc_thread(&t->enc, now, name);
    }
    rec_publish(t);
}
