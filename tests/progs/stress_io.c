/*
 * stress_io.c - a hostile host for the recorder: worker threads doing mixed
 * I/O (syscalls and stdio, failing calls included) while the main thread
 * signals them, signals itself and forks children that exec programs, with
 * signal handlers that do I/O themselves, and short-lived threads that
 * come and go (so thread slots and tids are reused while all this runs).
 *
 *   stress_io DIR            the stress run; scratch files go in DIR
 *   stress_io --child DIR    what an exec'd child does (fixed I/O, exit 3)
 *
 * Environment: STRESS_SECONDS (default 20), STRESS_THREADS (default 16),
 * STRESS_COUNTS (a file to write the counts to, see below).
 *
 * Standard output depends on nothing but the thread count, so it is the same
 * with and without the recorder however fast either run is: one line per
 * worker saying whether its file reads back as its model says, and lines for
 * the children and the signals. Exit status 0 when everything held, 1 when
 * not (the output says what).
 *
 * STRESS_COUNTS gets what the program itself did, to compare with a trace:
 *   call PID OP N     calls of op OP this process made (every thread,
 *                     handlers included), for each op it uses
 *   child PID KIND    a child and what it ran: "exec" (this program with
 *                     --child), "spawn" (the same through posix_spawn),
 *                     "fork" (no exec; FORK_* calls below), "sh" (/bin/sh)
 * This is plain POSIX code with no ioscope header: the recorder must cope
 * with it as it is.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* The ops counted, named as the trace names them. */
#define OPS(X) \
    X(OPEN, "open") X(CLOSE, "close") X(READ, "read") X(WRITE, "write")   \
    X(PREAD, "pread") X(PWRITE, "pwrite") X(READV, "readv")              \
    X(WRITEV, "writev") X(LSEEK, "lseek") X(DUP, "dup")                  \
    X(FDATASYNC, "fdatasync") X(FOPEN, "fopen") X(FCLOSE, "fclose")      \
    X(FREAD, "fread") X(FWRITE, "fwrite") X(FGETS, "fgets")              \
    X(FPUTS, "fputs") X(FFLUSH, "fflush") X(FSEEK, "fseek")              \
    X(FORK, "fork") X(PTHREAD_CREATE, "pthread_create") X(UNLINK, "unlink")  \
    X(READLINK, "readlink")

enum op {
#define OP_ENUM_(e, s) OP_##e,
    OPS(OP_ENUM_)
#undef OP_ENUM_
    OP_COUNT
};

static const char *const op_names[] = {
#define OP_NAME_(e, s) s,
    OPS(OP_NAME_)
#undef OP_NAME_
};

/* Shared by threads and handlers: lock-free and async-signal-safe. */
static atomic_ulong counts[OP_COUNT];
#define COUNT(op) atomic_fetch_add_explicit(&counts[OP_##op], 1, memory_order_relaxed)

/* What a fork-only child and an exec'd child do (the test checks these). */
#define CHILD_READS  4
#define CHILD_WRITES 4
#define FORK_WRITES  3

#define FILE_SIZE (64 * 1024)
#define MAX_THREADS 64
#define MAX_CHILDREN 100000

static const char *dir;
static atomic_int stop;
static atomic_ulong sig_usr1, sig_usr2, sig_chld;
static int sig_fd = -1;
static char self_exe[4096];

static void die(const char *what)
{
    char msg[512];
    int n = snprintf(msg, sizeof(msg), "stress_io: %s: %s\n", what, strerror(errno));

    if (n > 0)
        (void)!write(2, msg, (size_t)n);
    exit(2);
}

/* ------------------------------------------------------------- handlers */

/* Every handler does I/O, so the recorder sees calls inside handlers too. */
static void on_signal(int sig)
{
    int saved = errno;
    char line[2] = {sig == SIGUSR1 ? '1' : sig == SIGUSR2 ? '2' : 'c', '\n'};

    /* a failing write is a call too: counted either way */
    (void)!write(sig_fd, line, 2);
    COUNT(WRITE);
    if (sig == SIGUSR1)
        atomic_fetch_add(&sig_usr1, 1);
    else if (sig == SIGUSR2)
        atomic_fetch_add(&sig_usr2, 1);
    else
        atomic_fetch_add(&sig_chld, 1);
    errno = saved;
}

/* -------------------------------------------------------------- workers */

struct worker {
    pthread_t thread;
    int id;
    unsigned char model[FILE_SIZE];  /* what the file must hold */
    char path[4096];
    uint64_t rng;
    int bad;                          /* first problem seen, as a code */
    char why[160];
};

static uint64_t next_rand(uint64_t *s)
{
    /* splitmix64: fast, and each worker has its own sequence */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Keep the first problem: what failed, where (offset) and how much. */
static void fail(struct worker *w, const char *what, long off, long n)
{
    if (!w->bad) {
        w->bad = 1;
        snprintf(w->why, sizeof(w->why), "%s (offset %ld, %ld bytes)", what, off, n);
    }
}

/* Fill buf with letters (never '\n', so fgets reads whole blocks). */
static void pattern(struct worker *w, unsigned char *buf, size_t n)
{
    uint64_t r = next_rand(&w->rng);

    for (size_t i = 0; i < n; i++)
        buf[i] = (unsigned char)('a' + (r + i * 7) % 26);
}

static void check(struct worker *w, const unsigned char *got, size_t off, size_t n, const char *what)
{
    if (memcmp(got, w->model + off, n) != 0)
        fail(w, what, (long)off, (long)n);
}

static void step(struct worker *w, int fd)
{
    unsigned char buf[4096], buf2[4096];
    uint64_t r = next_rand(&w->rng);
    size_t n = 1 + (size_t)(r >> 8) % sizeof(buf);
    size_t off = (size_t)(r >> 24) % (FILE_SIZE - n);
    ssize_t got;

    switch (r % 12) {
    case 0:
        pattern(w, buf, n);
        COUNT(PWRITE);
        if (pwrite(fd, buf, n, (off_t)off) != (ssize_t)n)
            fail(w, "pwrite failed", (long)off, (long)n);
        memcpy(w->model + off, buf, n);
        break;
    case 1:
        COUNT(PREAD);
        if (pread(fd, buf, n, (off_t)off) != (ssize_t)n)
            fail(w, "pread short", (long)off, (long)n);
        check(w, buf, off, n, "pread");
        break;
    case 2:
        pattern(w, buf, n);
        COUNT(LSEEK);
        if (lseek(fd, (off_t)off, SEEK_SET) != (off_t)off)
            fail(w, "lseek failed", (long)off, 0);
        COUNT(WRITE);
        if (write(fd, buf, n) != (ssize_t)n)
            fail(w, "write failed", (long)off, (long)n);
        memcpy(w->model + off, buf, n);
        break;
    case 3:
        COUNT(LSEEK);
        lseek(fd, (off_t)off, SEEK_SET);
        COUNT(READ);
        if ((got = read(fd, buf, n)) != (ssize_t)n)
            fail(w, "read short", (long)off, (long)got);
        check(w, buf, off, n, "read");
        break;
    case 4: {
        struct iovec iov[2] = {{buf, n / 2}, {buf2, n - n / 2}};

        pattern(w, buf, n / 2);
        pattern(w, buf2, n - n / 2);
        COUNT(LSEEK);
        lseek(fd, (off_t)off, SEEK_SET);
        COUNT(WRITEV);
        if (writev(fd, iov, 2) != (ssize_t)n)
            fail(w, "writev failed", (long)off, (long)n);
        memcpy(w->model + off, buf, n / 2);
        memcpy(w->model + off + n / 2, buf2, n - n / 2);
        break;
    }
    case 5: {
        struct iovec iov[2] = {{buf, n / 2}, {buf2, n - n / 2}};

        COUNT(LSEEK);
        lseek(fd, (off_t)off, SEEK_SET);
        COUNT(READV);
        if (readv(fd, iov, 2) != (ssize_t)n)
            fail(w, "readv short", (long)off, (long)n);
        check(w, buf, off, n / 2, "readv");
        check(w, buf2, off + n / 2, n - n / 2, "readv");
        break;
    }
    case 6: {
        /* a second description of the same file, read from its start */
        int fd2;

        COUNT(OPEN);
        fd2 = open(w->path, O_RDONLY | O_CLOEXEC);
        if (fd2 < 0) {
            fail(w, "open for reading failed", 0, 0);
            break;
        }
        COUNT(READ);
        if (read(fd2, buf, n) != (ssize_t)n)
            fail(w, "read of a fresh fd short", 0, (long)n);
        check(w, buf, 0, n, "read");
        COUNT(CLOSE);
        close(fd2);
        break;
    }
    case 7: {
        FILE *f;

        COUNT(FOPEN);
        f = fopen(w->path, "r+");
        if (!f) {
            fail(w, "fopen r+ failed", 0, 0);
            break;
        }
        pattern(w, buf, n);
        COUNT(FSEEK);
        fseek(f, (long)off, SEEK_SET);
        COUNT(FWRITE);
        if (fwrite(buf, 1, n, f) != n)
            fail(w, "fwrite failed", (long)off, (long)n);
        memcpy(w->model + off, buf, n);
        COUNT(FFLUSH);
        fflush(f);
        COUNT(FSEEK);
        fseek(f, (long)off, SEEK_SET);
        COUNT(FREAD);
        if (fread(buf2, 1, n, f) != n)
            fail(w, "fread short", (long)off, (long)n);
        check(w, buf2, off, n, "fread");
        COUNT(FCLOSE);
        fclose(f);
        break;
    }
    case 8: {
        FILE *f;
        char s[256];
        size_t len = 1 + n % (sizeof(s) - 1);

        COUNT(FOPEN);
        f = fopen(w->path, "r+");
        if (!f) {
            fail(w, "fopen r+ failed", 0, 0);
            break;
        }
        pattern(w, (unsigned char *)s, len);
        s[len] = '\0';
        COUNT(FSEEK);
        fseek(f, (long)off, SEEK_SET);
        COUNT(FPUTS);
        if (fputs(s, f) == EOF)
            fail(w, "fputs failed", (long)off, 0);
        memcpy(w->model + off, s, len);
        COUNT(FSEEK);
        fseek(f, (long)off, SEEK_SET);
        COUNT(FGETS);
        if (!fgets(s, (int)len + 1, f) || strlen(s) != len)
            fail(w, "fgets short", (long)off, (long)len);
        check(w, (unsigned char *)s, off, len, "fgets");
        COUNT(FCLOSE);
        fclose(f);
        break;
    }
    case 9: {
        int d;

        COUNT(DUP);
        d = dup(fd);
        if (d < 0) {
            fail(w, "dup failed", 0, 0);
            break;
        }
        COUNT(PREAD);
        if (pread(d, buf, n, (off_t)off) != (ssize_t)n)
            fail(w, "pread on a dup short", (long)off, 0);
        check(w, buf, off, n, "pread");
        COUNT(CLOSE);
        close(d);
        break;
    }
    case 10: {
        /* failing calls: the program must still see its own errno */
        char missing[4200];

        COUNT(READ);
        errno = 0;
        if (read(-1, buf, 1) != -1 || errno != EBADF)
            fail(w, "read(-1) did not fail with EBADF (errno as offset)", (long)errno, 0);
        snprintf(missing, sizeof(missing), "%s.missing", w->path);
        COUNT(OPEN);
        errno = 0;
        if (open(missing, O_RDONLY) != -1 || errno != ENOENT)
            fail(w, "open of a missing file did not fail with ENOENT (errno as offset)", (long)errno, 0);
        break;
    }
    default:
        if (r % 64 == 11) {
            COUNT(FDATASYNC);
            fdatasync(fd);
        }
        break;
    }
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    unsigned char buf[FILE_SIZE];
    int fd;

    COUNT(OPEN);
    fd = open(w->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        fail(w, "cannot create its file", 0, 0);
        return NULL;
    }
    pattern(w, w->model, FILE_SIZE);
    COUNT(WRITE);
    if (write(fd, w->model, FILE_SIZE) != FILE_SIZE)
        fail(w, "initial write short", 0, 0);
    while (!atomic_load_explicit(&stop, memory_order_relaxed))
        step(w, fd);
    /* the file as a whole must be what the model says */
    COUNT(PREAD);
    if (pread(fd, buf, FILE_SIZE, 0) != FILE_SIZE)
        fail(w, "final read short", 0, 0);
    else if (memcmp(buf, w->model, FILE_SIZE) != 0)
        fail(w, "final contents differ from the model", 0, 0);
    COUNT(CLOSE);
    close(fd);
    return NULL;
}

/* A thread that lives for a few calls: open, SHORT_WRITES writes, close. */
#define SHORT_WRITES 8

static void *short_main(void *arg)
{
    char path[4200];
    int fd;

    snprintf(path, sizeof(path), "%s/short.%lu", dir, (unsigned long)(uintptr_t)arg);
    COUNT(OPEN);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    for (int i = 0; i < SHORT_WRITES; i++) {
        COUNT(WRITE);
        (void)!write(fd, "short\n", 6);
    }
    COUNT(CLOSE);
    close(fd);
    COUNT(UNLINK);
    unlink(path);
    return NULL;
}

/* ------------------------------------------------------------- children */

/* The --child mode: a fixed amount of I/O, then exit status 3. */
static int child_main(const char *d)
{
    char path[4200], buf[512];
    int fd;
    FILE *f;

    snprintf(path, sizeof(path), "%s/child.%d", d, (int)getpid());
    fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return 2;
    memset(buf, 'x', sizeof(buf));
    for (int i = 0; i < CHILD_WRITES; i++)
        (void)!write(fd, buf, sizeof(buf));
    for (int i = 0; i < CHILD_READS; i++)
        (void)!pread(fd, buf, sizeof(buf), (off_t)i * 512);
    close(fd);
    f = fopen(path, "a");
    if (!f)
        return 2;
    /* fwrite, not fputs: a compiler turns fputs of a literal into fwrite */
    fwrite("child\n", 1, 6, f);
    fclose(f);
    unlink(path);
    return 3;
}

/*
 * A fork without exec: FORK_WRITES writes in a file of its own, then _exit:
 * a fork of a threaded program may only make async-signal-safe calls, and
 * exit() would flush the workers' stdio buffers it inherited into their
 * files a second time.
 */
static void fork_child(void)
{
    char path[4200];
    int fd;

    snprintf(path, sizeof(path), "%s/fork.%d", dir, (int)getpid());
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    for (int i = 0; i < FORK_WRITES; i++)
        (void)!write(fd, "fork\n", 5);
    close(fd);
    unlink(path);
    _exit(4);
}

struct child_log {
    char *buf;
    size_t len, cap;
};

static void log_child(struct child_log *l, pid_t pid, const char *kind)
{
    char line[64];
    int n = snprintf(line, sizeof(line), "child %d %s\n", (int)pid, kind);

    if (l->len + (size_t)n + 1 > l->cap) {
        l->cap = l->cap ? l->cap * 2 : 4096;
        l->buf = realloc(l->buf, l->cap);
        if (!l->buf)
            die("out of memory");
    }
    memcpy(l->buf + l->len, line, (size_t)n);
    l->len += (size_t)n;
}

/* Start one child of kind k; its expected exit status in *want. */
static pid_t start_child(int k, int *want, const char **kind)
{
    char *cargv[] = {self_exe, "--child", (char *)dir, NULL};
    char *shargv[] = {"sh", "-c", "echo sh > /dev/null; exit 5", NULL};
    pid_t pid;

    if (k == 1) {
        *kind = "spawn";
        *want = 3;
        if (posix_spawn(&pid, self_exe, NULL, NULL, cargv, environ) != 0)
            die("posix_spawn");
        return pid;
    }
    COUNT(FORK);
    pid = fork();
    if (pid < 0)
        die("fork");
    if (pid == 0) {
        if (k == 0)
            execve(self_exe, cargv, environ);
        else if (k == 2)
            fork_child();
        else
            execve("/bin/sh", shargv, environ);
        _exit(127);
    }
    *kind = k == 0 ? "exec" : k == 2 ? "fork" : "sh";
    *want = k == 0 ? 3 : k == 2 ? 4 : 5;
    return pid;
}

/* ------------------------------------------------------------------ main */

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

    /* signals interrupt the sleep; it is only pacing, so never resumed */
    nanosleep(&ts, NULL);
}

static void out(const char *s)
{
    size_t len = strlen(s);

    COUNT(WRITE);
    if (write(1, s, len) != (ssize_t)len)
        exit(2);
}

static int write_counts(const char *path, const struct child_log *cl)
{
    char *buf = malloc(cl->len + OP_COUNT * 64 + 1);
    size_t len = 0;
    int fd;

    if (!buf)
        return -1;
    /* this function's own open, write and close are part of the counts */
    COUNT(OPEN);
    COUNT(WRITE);
    COUNT(CLOSE);
    for (int i = 0; i < OP_COUNT; i++)
        len += (size_t)sprintf(buf + len, "call %d %s %lu\n", (int)getpid(), op_names[i],
                               atomic_load(&counts[i]));
    memcpy(buf + len, cl->buf, cl->len);
    len += cl->len;
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, buf, len) != (ssize_t)len) {
        free(buf);
        return -1;
    }
    close(fd);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    static struct worker workers[MAX_THREADS];
    const char *env_s = getenv("STRESS_SECONDS"), *env_t = getenv("STRESS_THREADS");
    const char *counts_path = getenv("STRESS_COUNTS");
    double seconds = env_s ? atof(env_s) : 20, end;
    int nthreads = env_t ? atoi(env_t) : 16, status = 0;
    unsigned long nchildren = 0, bad_children = 0, kills = 0, nshort = 0;
    struct child_log cl = {0};
    struct sigaction sa;
    char path[4200], line[512];
    ssize_t n;

    if (argc == 3 && strcmp(argv[1], "--child") == 0)
        return child_main(argv[2]);
    if (argc != 2) {
        fprintf(stderr, "usage: stress_io DIR | stress_io --child DIR\n");
        return 2;
    }
    dir = argv[1];
    if (nthreads < 1 || nthreads > MAX_THREADS)
        nthreads = 16;
    COUNT(READLINK);
    n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
    if (n < 0)
        die("readlink /proc/self/exe");
    self_exe[n] = '\0';

    snprintf(path, sizeof(path), "%s/signals.log", dir);
    COUNT(OPEN);
    sig_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (sig_fd < 0)
        die(path);

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    sigaction(SIGUSR2, &sa, NULL);
    sigaction(SIGCHLD, &sa, NULL);

    for (int i = 0; i < nthreads; i++) {
        struct worker *w = &workers[i];

        w->id = i;
        w->rng = 0x1234567ULL * (uint64_t)(i + 1);
        snprintf(w->path, sizeof(w->path), "%s/worker.%02d", dir, i);
        if (pthread_create(&w->thread, NULL, worker_main, w) != 0)
            die("pthread_create");
        COUNT(PTHREAD_CREATE);
    }

    end = now_s() + seconds;
    for (unsigned long tick = 0; now_s() < end; tick++) {
        /* a signal every 2 ms to a worker and to the process; a child every 50 ms */
        if (pthread_kill(workers[tick % (unsigned)nthreads].thread, SIGUSR1) == 0)
            kills++;
        if (tick % 4 == 0 && kill(getpid(), SIGUSR2) == 0)
            kills++;
        if (tick % 5 == 0) {
            pthread_t th;

            /* joined at once: every one of them exits normally */
            if (pthread_create(&th, NULL, short_main, (void *)(uintptr_t)(tick % 8)) == 0) {
                COUNT(PTHREAD_CREATE);
                pthread_join(th, NULL);
                nshort++;
            }
        }
        if (tick % 25 == 0 && nchildren < MAX_CHILDREN) {
            int want, st;
            const char *kind;
            pid_t pid = start_child((int)(nchildren % 4), &want, &kind);
            pid_t r;

            while ((r = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
                ;
            if (r != pid || !WIFEXITED(st) || WEXITSTATUS(st) != want) {
                bad_children++;
                snprintf(line, sizeof(line), "stress_io: child %d (%s) ended with status 0x%x, "
                         "expected exit %d\n", (int)pid, kind, st, want);
                COUNT(FPUTS);
                fputs(line, stderr);
            }
            log_child(&cl, pid, kind);
            nchildren++;
        }
        sleep_ms(2);
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < nthreads; i++)
        pthread_join(workers[i].thread, NULL);
    /* main is the only thread left: blocking here means no handler runs
       after the counts are taken */
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGUSR1);
    sigaddset(&sa.sa_mask, SIGUSR2);
    sigaddset(&sa.sa_mask, SIGCHLD);
    sigprocmask(SIG_BLOCK, &sa.sa_mask, NULL);

    for (int i = 0; i < nthreads; i++) {
        struct worker *w = &workers[i];

        if (w->bad) {
            snprintf(line, sizeof(line), "worker %02d: FAILED: %s\n", i, w->why);
            status = 1;
        } else {
            snprintf(line, sizeof(line), "worker %02d: ok\n", i);
        }
        out(line);
    }
    out(bad_children ? "children: FAILED\n" : "children: ok\n");
    out(nshort ? "short threads: ok\n" : "short threads: FAILED (none ran)\n");
    if (!nshort)
        status = 1;
    if (bad_children)
        status = 1;
    /* at least one of each kind arrived (the counts vary with speed) */
    if (atomic_load(&sig_usr1) && atomic_load(&sig_usr2) && atomic_load(&sig_chld)) {
        out("signals: ok\n");
    } else {
        out("signals: FAILED (a kind never arrived)\n");
        status = 1;
    }
    COUNT(CLOSE);
    close(sig_fd);
    if (counts_path && write_counts(counts_path, &cl) < 0)
        die(counts_path);
    free(cl.buf);
    (void)kills;
    return status;
}
