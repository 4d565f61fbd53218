/*
 * kproc_record.c - the process records the kernel path writes: at exec and
 * fork from what the kernel gave (or /proc), at attach from /proc, with the
 * fds a process attached to already holds.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kconv_int.h"

int64_t mono_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

struct label_out {
    struct kconv *k;
    struct kproc *p;
    struct kchain *c;
    int64_t t;
};

static void put_label(void *arg, const char *key, size_t klen, const char *value, size_t vlen)
{
    struct label_out *o = arg;

    if (iot_enc_label(&o->c->enc, o->t, key, klen, value, vlen) != 0) {
        write_chunk(o->k, o->p->pid, o->c, 0);
        iot_enc_label(&o->c->enc, o->t, key, klen, value, vlen);
    }
}

/*
 * The recording's labels after a process record, as the preload writes
 * them after its own (labels.c there): every process of the trace says
 * which recording it belongs to, whichever path recorded it.
 */
static void put_labels(struct kconv *k, struct kproc *p, struct kchain *c, int64_t t)
{
    struct label_out o = { k, p, c, t };

    if (k->labels[0])
        iot_labels_parse(k->labels, put_label, &o, NULL);
}

/*
 * The process's $HOME and the variables a runtime takes its options from,
 * after its process record, as the preload writes them (startenv.c there):
 * from /proc/PID/environ, the environment the image started with; $HOME
 * when it names an absolute one. One read per process record; a process
 * already gone gets none, and one whose environment is larger than the
 * buffer gets those that fit whole before its end.
 */
static void put_startenv(struct kconv *k, struct kproc *p, struct kchain *c, int64_t t)
{
    static char env[65536];
    ssize_t n = proc_read(p->pid, "environ", env, sizeof(env) - 1);
    int home = 0;

    if (n > 0)
        env[n] = '\0';
    for (ssize_t i = 0; n > 0 && i < n; i += (ssize_t)strlen(env + i) + 1) {
        size_t len = strlen(env + i), name;

        /* cut short by the buffer (no NUL of its own): not the whole value */
        if (i + (ssize_t)len >= n)
            return;
        if (!home && strncmp(env + i, "HOME=/", 6) == 0 && len - 5 < PATH_MAX) {
            home = 1;
            if (iot_enc_home(&c->enc, t, env + i + 5, len - 5) != 0) {
                write_chunk(k, p->pid, c, 0);
                iot_enc_home(&c->enc, t, env + i + 5, len - 5);
            }
        } else if ((name = iot_runtime_env_name(env + i)) != 0) {
            const char *v = env + i + name + 1;

            if (iot_enc_runtime_env(&c->enc, t, env + i, name, v, len - name - 1) != 0) {
                write_chunk(k, p->pid, c, 0);
                iot_enc_runtime_env(&c->enc, t, env + i, name, v, len - name - 1);
            }
        }
    }
}

/*
 * The process record of p at t: exe as the kernel named it (or from /proc
 * when empty), argv from /proc now (the process may be gone: then none),
 * then the labels, its $HOME and runtime variables, its working directory and its main thread's
 * name.
 */
void put_process(struct kconv *k, struct kproc *p, int64_t t, const char *exe,
                        const char *args, size_t args_len)
{
    static char cmdline[8192];
    const char *argv[ARGV_MAX];
    char exe_buf[PATH_MAX];
    struct timespec rt;
    struct kchain *c = chain_get(k, p, p->pid, t);
    ssize_t n = -1;
    int argc = 0;
    int64_t unix_ns;

    if (!c)
        return;
    /* the words the kernel path read at exec, else /proc's now */
    if (args && args_len > 0 && args_len < sizeof(cmdline)) {
        memcpy(cmdline, args, args_len);
        cmdline[args_len] = '\0';
        n = (ssize_t)args_len;
    } else {
        n = proc_read(p->pid, "cmdline", cmdline, sizeof(cmdline));
    }
    if (!exe || !*exe) {
        proc_link(p->pid, "exe", exe_buf, sizeof(exe_buf));
        exe = exe_buf;
    }
    for (ssize_t i = 0; i < n && argc < ARGV_MAX; argc++) {
        argv[argc] = cmdline + i;
        i += (ssize_t)strlen(cmdline + i) + 1;
    }
    clock_gettime(CLOCK_REALTIME, &rt);
    unix_ns = (int64_t)rt.tv_sec * 1000000000LL + rt.tv_nsec - (mono_ns() - t);
    if (iot_enc_process(&c->enc, p->ppid, t, unix_ns, exe, argc, argv) != 0) {
        write_chunk(k, p->pid, c, 0);
        iot_enc_process(&c->enc, p->ppid, t, unix_ns, exe, argc < 8 ? argc : 8, argv);
    }
    put_labels(k, p, c, t);
    put_startenv(k, p, c, t);
    /* then its cwd and its main thread's name, in the preload's order */
    c->named = 1;
    if (p->cwd[0] == '/') {
        struct iot_event ev = { .kind = IOT_EV_CALL, .op = IOT_OP_CWD, .pid = p->pid,
                                .tid = p->pid, .t = t, .has = IOT_HAS_PATH };

        put_call(k, p, &ev, p->cwd, NULL, NULL);
    } else {
        p->cwd[0] = '\0';
    }
    if (!p->comm[0])
        proc_comm(p->pid, p->pid, p->comm);
    put_thread(k, p, c, t, p->comm);
}

void kconv_expect_exec(struct kconv *k, pid_t pid)
{
    struct kproc *p = proc_get(k, pid);

    if (!p)
        return;
    p->before_exec = 1;
    /* the launcher's child starts in the launcher's directory */
    if (!getcwd(p->cwd, sizeof(p->cwd)))
        p->cwd[0] = '\0';
}

void kconv_adopt(struct kconv *k, pid_t pid, int let_go)
{
    struct kproc *p = proc_get(k, pid);

    if (!p)
        return;
    p->asked = 1;
    if (let_go)
        p->awaiting_let_go = 1;
    if (p->ppid)
        return;     /* followed already, as a child of a followed process */
    p->preload = 1;
    p->ppid = proc_ppid(pid);
    proc_link(pid, "cwd", p->cwd, sizeof(p->cwd));
    if (p->cwd[0] != '/')
        p->cwd[0] = '\0';
}

/* The open flags of fd from /proc/PID/fdinfo/FD ("flags:\t0100002", octal). */
static void fd_info(int32_t pid, const char *fd, int64_t *flags, int64_t *pos)
{
    char file[300], buf[512], *s;

    snprintf(file, sizeof(file), "fdinfo/%s", fd);
    *flags = 0;
    *pos = 0;
    if (proc_read(pid, file, buf, sizeof(buf)) < 0)
        return;
    if ((s = strstr(buf, "pos:")))
        *pos = strtoll(s + 4, NULL, 10);
    if ((s = strstr(buf, "flags:")))
        *flags = strtoll(s + 6, NULL, 8);
}

void kconv_attach(struct kconv *k, pid_t pid)
{
    struct kproc *p = proc_get(k, pid);
    int64_t t = mono_ns();
    char dir[64];
    struct dirent *de;
    DIR *d;

    if (!p)
        return;
    p->ppid = proc_ppid(pid);
    proc_comm(pid, pid, p->comm);
    proc_link(pid, "cwd", p->cwd, sizeof(p->cwd));
    if (p->cwd[0] != '/')
        p->cwd[0] = '\0';
    put_process(k, p, t, NULL, NULL, 0);
    snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
    d = opendir(dir);
    if (!d)
        return;
    while ((de = readdir(d)) != NULL) {
        char target[PATH_MAX], link[64 + 256];
        struct iot_event ev = { .kind = IOT_EV_CALL, .op = IOT_OP_FDPATH, .pid = pid,
                                .tid = pid, .t = t,
                                .has = IOT_HAS_FD | IOT_HAS_PATH | IOT_HAS_FLAGS | IOT_HAS_OFFSET };
        ssize_t n;

        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        snprintf(link, sizeof(link), "%s/%s", dir, de->d_name);
        n = readlink(link, target, sizeof(target) - 1);
        if (n <= 0)
            continue;
        target[n] = '\0';
        ev.fd = atoi(de->d_name);
        ev.ret = ev.fd;
        fd_info(pid, de->d_name, &ev.flags, &ev.offset);
        put_call(k, p, &ev, target, NULL, NULL);
    }
    closedir(d);
}
