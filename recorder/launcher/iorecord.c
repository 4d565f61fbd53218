/*
 * iorecord - run a command with libiorecord.so preloaded.
 *
 *   iorecord [-o TRACE] [--stacks|--no-stacks] [--capture MODE] [--] COMMAND [ARG...]
 *   iorecord [-o TRACE] -p PID [-d SECONDS]
 *
 * Checks everything that would make a silent empty trace before running:
 * the command exists, is dynamically linked (the preload needs the dynamic
 * loader) and not setuid/setgid to someone else nor given file
 * capabilities (secure-exec drops LD_PRELOAD), and the output can be created. Then it creates the spool file
 * the processes write the trace to, measures the TSC rate once for every
 * process of the run, runs the command, passes signals on, records the
 * command's death when a signal killed it (the victim could not), renames
 * the spool onto the output, and exits with the command's status (128+N
 * when killed by N).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "collector.h"
#include "exejudge.h"
#include "iotrace.h"
#include "kcapture.h"
#include "launch.h"
#include "msg.h"
#include "opt_parse.h"
#include "outrule.h"
#include "segment.h"

static pid_t child;

/*
 * The spool: DIR/.NAME.iorecord-XXXXXX beside the output DIR/NAME, new
 * (O_EXCL) and 0600 (a trace holds argv, which can hold secrets). The
 * processes write there and it is renamed onto the output once the command
 * has exited: an old trace at the output stays whole until then, and a link
 * planted at the output is replaced, never followed. A killed iorecord
 * leaves it behind, readable as far as it got. Empty when the output is a
 * device or FIFO, which is written in place.
 */
static char spool[PATH_MAX];
/*
 * Held open for the whole run: the spool (its flock tells another run with
 * the same output that this one is writing it), or the FIFO written in
 * place, opened once a reader was there (launch_output.c).
 */
static int spool_fd = -1, fifo_fd = -1;

/* The one fatal path: "iorecord: MESSAGE[: strerror(err)]", then exit(code). */
__attribute__((format(printf, 3, 4), noreturn))
static void die(int code, int err, const char *fmt, ...)
{
    char msg[PATH_MAX + 256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (err)
        iot_error("%s: %s", msg, strerror(err));
    else
        iot_error("%s", msg);
    exit(code);
}

/* out = a + sep + b (a is alen bytes); 0, or -1 when it does not fit. */
static int join(char *out, size_t cap, const char *a, size_t alen,
                const char *sep, const char *b)
{
    size_t sl = strlen(sep), bl = strlen(b);

    if (alen + sl + bl + 1 > cap)
        return -1;
    memmove(out, a, alen);
    memcpy(out + alen, sep, sl);
    memcpy(out + alen + sl, b, bl + 1);
    return 0;
}

/* Absolute form of path (its directory need not be canonical). */
static void absolutize(const char *path, char *out, size_t cap)
{
    char cwd[PATH_MAX];

    if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)) ||
        join(out, cap, cwd, strlen(cwd), "/", path) != 0)
        join(out, cap, path, strlen(path), "", "");
}

/* COMMAND as execvp would find it; exits 127 when it cannot be found. */
static void resolve_command(const char *cmd, char *out, size_t cap)
{
    const char *path = getenv("PATH");
    int saw_eacces = 0;

    if (strchr(cmd, '/')) {
        if (access(cmd, F_OK) != 0)
            die(127, errno, "cannot run '%s'", cmd);
        if (access(cmd, X_OK) != 0)
            die(126, errno, "cannot run '%s'", cmd);
        join(out, cap, cmd, strlen(cmd), "", "");
        return;
    }
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        size_t l = strcspn(path, ":");
        struct stat st;

        if (join(out, cap, path, l, l ? "/" : "", cmd) != 0) {
            out[0] = '\0';
        } else if (stat(out, &st) == 0 && S_ISREG(st.st_mode)) {
            if (access(out, X_OK) == 0)
                return;
            saw_eacces = 1;
        }
        path += l;
        if (*path)
            path++;
    }
    if (saw_eacces)
        die(126, EACCES, "cannot run '%s'", cmd);
    die(127, 0, "command not found: '%s'", cmd);
}

/*
 * Refuse what the preload cannot apply to (exejudge.c: static, set-id and
 * file-capability programs; a "#!" script is judged by its interpreter).
 * asan (REC_EXE_NAME bytes): the ASan runtime the program needs first in
 * LD_PRELOAD, or "".
 */
static void check_executable(const char *path, char *asan, const char *kernel_why)
{
    struct rec_exe_verdict v;
    struct stat st;
    const char *what = NULL;

    if (stat(path, &st) != 0)
        die(127, errno, "cannot run '%s'", path);
    rec_exe_judge(path, &v);
    if (!v.why && access(path, R_OK) != 0)
        die(126, errno, "cannot read '%s'", path);
    if (v.why && strcmp(v.why, "setuid") == 0)
        what = "is setuid/setgid";
    else if (v.why && strcmp(v.why, "fcaps") == 0)
        what = "has file capabilities";
    else if (v.why)
        what = "is statically linked";
    if (what && kernel_why)
        die(126, 0, "'%s' %s: the recorder cannot be preloaded into it, and %s",
            v.file[0] ? v.file : path, what, kernel_why);
    if (what)
        die(126, 0, "'%s' %s: the recorder cannot be preloaded into it", v.file[0] ? v.file : path,
            what);
    memcpy(asan, v.asan, sizeof(v.asan));
}

/* Whether the preload can enter the program at path (no message). */
static int preload_can_enter(const char *path)
{
    struct rec_exe_verdict v;

    rec_exe_judge(path, &v);
    return v.why == NULL;
}

static void set_env(const char *lib, const char *asan, const char *out, int stacks,
                    const struct collector *col)
{
    const char *old = getenv("LD_PRELOAD");
    char buf[3 * PATH_MAX + 2];
    char num[32];

    /* After any existing preload: a sanitizer runtime must stay first. */
    if (!old || !*old || join(buf, sizeof(buf), old, strlen(old), ":", lib))
        join(buf, sizeof(buf), lib, strlen(lib), "", "");
    /* A program built with ASan needs its runtime first (exejudge.c). */
    if (!(old && (strncmp(old, "libasan", 7) == 0 || strstr(old, "/libasan"))) && asan[0]) {
        char rest[sizeof(buf)];

        strcpy(rest, buf);
        join(buf, sizeof(buf), asan, strlen(asan), ":", rest);
        /* ours to take off again for its children (rec_env_fix) */
        setenv("IORECORD_ASAN", asan, 1);
    } else {
        unsetenv("IORECORD_ASAN");
    }
    setenv("LD_PRELOAD", buf, 1);
    setenv("IORECORD_OUTPUT", out, 1);
    /* Unset when writing in place: one from an outer recording is not ours. */
    if (spool[0])
        setenv("IORECORD_SPOOL", spool, 1);
    else
        unsetenv("IORECORD_SPOOL");
    if (stacks >= 0)
        setenv("IORECORD_STACKS", stacks ? "1" : "0", 1);
    snprintf(num, sizeof(num), "%llu", launch_tsc_mult());
    setenv("IORECORD_TSC", num, 1);
    setenv("IORECORD_SANDBOX", launch_sandbox_env(), 1);
    unsetenv("IORECORD_DISABLE");
    unsetenv("IORECORD_WARNED");
    unsetenv("IORECORD_PROC");
    if (col->pid > 0) {
        snprintf(num, sizeof(num), "%d,%d", col->seg_fd, col->live_fd);
        setenv("IORECORD_COLLECT", num, 1);
    } else {
        unsetenv("IORECORD_COLLECT");
    }
}

/*
 * The collector writes the trace for every process (collector.c). Should it
 * not start, each process writes its own frames, as under plain preload.
 */
static void start_collector(struct collector *col, const char *output,
                            const char *out)
{
    int fd = fifo_fd;

    fifo_fd = -1;   /* the collector's now, or closed */
    /* The spool's own open file, whose flock the collector then holds on
       too, should iorecord be killed while it writes. */
    if (fd < 0 && spool_fd >= 0) {
        fd = fcntl(spool_fd, F_DUPFD_CLOEXEC, 3);
        if (fd >= 0 && fcntl(fd, F_SETFL, O_APPEND) != 0) {
            close(fd);
            fd = -1;
        }
    }
    if (fd < 0)
        fd = open(spool[0] ? spool : out, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);

    if (fd < 0 || collector_start(col, fd, output, spool, out) != 0) {
        if (fd >= 0)
            close(fd);
        memset(col, 0, sizeof(*col));
        col->pid = -1;
    }
}

/* Signals sent to us by someone (not the terminal) go on to the command. */
static void forward(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    if (child > 0 && si->si_code != SI_KERNEL)
        kill(child, sig);
}

static void forward_signals(void)
{
    static const int sigs[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1,
                                SIGUSR2, SIGALRM, SIGWINCH, SIGCONT, SIGPIPE };
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = forward;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        sigaction(sigs[i], &sa, NULL);
}

/*
 * The command died by a signal: it could not write its own exit record.
 * path is where the trace is being written, output its name for the user.
 */
static void record_kill(const char *path, const char *output, pid_t pid, int sig)
{
    static uint8_t recs[256];
    struct iot_chunker *ch = iot_chunker_create(1);
    struct iot_chunk_hdr h;
    uint8_t frame[1024];
    int64_t t = rec_mono_ns();
    size_t n;
    int fd;

    if (!ch)
        return;
    if (iot_enc_kill_chunk(recs, sizeof(recs), pid, sig, t,
                           ((uint64_t)getpid() << 32) ^ (uint64_t)t ^ 0x10, &h) < 0) {
        iot_chunker_free(ch);
        return;
    }
    n = iot_chunk_compress(ch, &h, recs, frame, sizeof(frame));
    iot_chunker_free(ch);
    /* not waiting for a FIFO's reader to come back */
    fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (n == 0 || fd < 0)
        return;
    if (write(fd, frame, n) != (ssize_t)n)
        iot_error("cannot write trace '%s': %s", output, strerror(errno));
    close(fd);
}

/*
 * An empty file every recorded process of this run can see: the first one
 * whose output fails marks it and prints the run's only warning.
 */
static char once_path[PATH_MAX];

static void make_once_flag(void)
{
    const char *dirs[] = { "/dev/shm", getenv("TMPDIR"), "/tmp" };

    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
        int fd;

        if (!dirs[i] || !*dirs[i] ||
            join(once_path, sizeof(once_path), dirs[i], strlen(dirs[i]), "/",
                 "iorecord-once.XXXXXX") != 0)
            continue;
        fd = mkstemp(once_path);
        if (fd >= 0) {
            close(fd);
            setenv("IORECORD_ONCE", once_path, 1);
            return;
        }
    }
    once_path[0] = '\0';
}

/* Whether a recorded process has given the run's warning already. */
static int run_warned(void)
{
    char c = 0;
    int fd;

    if (!once_path[0])
        return 0;
    fd = open(once_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    if (pread(fd, &c, 1, 0) != 1)
        c = 0;
    close(fd);
    return c == '1';
}

/*
 * Where the processes will write: a symbolic link at the output is refused,
 * a device or FIFO is written in place, anything else gets a new spool
 * beside it (out is absolute, unless the working directory had no name).
 */
static void open_output(const char *output, const char *out)
{
    const char *slash = strrchr(out, '/'), *why;
    char whybuf[192];
    struct stat st;
    int exists = lstat(out, &st) == 0, fd, len;

    if (exists && (why = rec_output_refusal(out, &st, whybuf, sizeof(whybuf))) != NULL)
        die(2, 0, "'%s' %s", output, why);
    if (exists && S_ISFIFO(st.st_mode)) {
        fifo_fd = launch_fifo_open(out, &st);
        if (fifo_fd < 0 && errno == ENXIO)
            die(2, 0, "cannot open trace '%s': nobody read the FIFO for %d s",
                output, LAUNCH_FIFO_WAIT_MS / 1000);
        if (fifo_fd < 0 && errno == ESTALE)
            die(2, 0, "cannot open trace '%s': it was replaced while being opened", output);
        if (fifo_fd < 0)
            die(2, errno, "cannot open trace '%s'", output);
        return;
    }
    if (exists && !S_ISREG(st.st_mode)) {
        /* Not truncated: /dev/null, a device; a directory fails. */
        fd = open(out, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            die(2, errno, "cannot open trace '%s'", output);
        close(fd);
        return;
    }
    if (slash)
        len = snprintf(spool, sizeof(spool), "%.*s/.%s.iorecord-XXXXXX",
                       (int)(slash - out), out, slash + 1);
    else   /* out stayed relative: no working directory to name */
        len = snprintf(spool, sizeof(spool), ".%s.iorecord-XXXXXX", out);
    if (len < 0 || len >= (int)sizeof(spool))
        die(2, ENAMETOOLONG, "cannot open trace '%s'", output);
    fd = mkostemp(spool, O_CLOEXEC);
    if (fd < 0)
        die(2, errno, "cannot open trace '%s'", output);
    /* mkostemp's 0600 is cut by the umask: the processes must write it. */
    if (fchmod(fd, 0600) != 0) {
        int err = errno;

        unlink(spool);
        die(2, err, "cannot open trace '%s'", output);
    }
    if (launch_spool_claim(fd, spool) != 0) {
        unlink(spool);
        die(2, 0, "'%s' is being written by another iorecord run: not writing it too",
            output);
    }
    spool_fd = fd;
}

/*
 * The command has exited: the trace takes the output's place. When that
 * fails the trace stays in the spool, which the message names; when the
 * spool itself is gone (its directory removed), a process that found it
 * gone may have given the run's one warning already.
 */
static void close_output(const char *output, const char *out)
{
    int err;

    if (!spool[0] || rename(spool, out) == 0)
        return;
    err = errno;
    if (access(spool, F_OK) == 0)
        iot_error("cannot put trace '%s' in place: %s; it is in '%s'", output,
                  strerror(err), spool);
    else if (!run_warned())
        iot_error("cannot write trace '%s': %s", output, strerror(err));
}

/*
 * The options before COMMAND (opt_parse.h): options_first stops at the
 * first word that is not an option, so COMMAND's own options stay its own.
 */
static const char *output = "iorecord.zst";
static int stacks = -1;     /* -1: the library's default */
static struct opt_list labels;

static const char *capture, *attach_pid, *attach_seconds;

static const struct opt_spec iorecord_opts[] = {
    {"output", 'o', "TRACE", .value = &output, .help = "trace file (default: iorecord.zst)"},
    {"stacks", 0, NULL, .flag = &stacks, .help = "record call stacks at open/fopen (default)"},
    {"no-stacks", 0, NULL, .flag = &stacks, .clears = 1, .help = "do not record call stacks"},
    {"label", 'l', "KEY=VALUE", .list = &labels, .check = launch_label_check,
     .help = "store a label in the trace (repeatable: version, device, test)"},
    {"capture", 0, "MODE", .value = &capture,
     .help = "preload, kernel or both (default: preload, and the kernel path for the rest as root)"},
    {"pid", 'p', "PID", .value = &attach_pid,
     .help = "record the running process PID (kernel path) instead of a COMMAND"},
    {"duration", 'd', "SECONDS", .value = &attach_seconds,
     .help = "with -p: stop after SECONDS (default: at Ctrl-C, SIGTERM or its end)"},
};

static const struct opt_cmd iorecord_cmd = {
    .synopsis = "[-o TRACE] [--stacks|--no-stacks] [--label KEY=VALUE]... [--capture MODE]\n"
                "       [--] COMMAND [ARG...]\n"
                "       iorecord [-o TRACE] -p PID [-d SECONDS]",
    .about = "Run COMMAND with the ioscope recorder preloaded and write the I/O trace\n"
             "of COMMAND and every process it forks or execs to TRACE.",
    OPT_SPECS(iorecord_opts),
    .footer = "Exits with COMMAND's status, or 128+N when COMMAND is killed by signal N.",
    .options_first = 1,
};

/* The kernel path (launch_capture.c), appending to the FIFO or the spool. */
static struct kcap *start_kernel(const char *out, kconv_preload_judge judge, char *why,
                                 size_t cap)
{
    return launch_kernel_start(fifo_fd, spool[0] ? spool : out, judge, why, cap);
}

/* The kernel path on demand (launch_ask.c): see start_kernel and main's SIGXFSZ. */
static int demand_fifo_fd = -1;
static struct kcap *start_on_demand(void *out, char *why, size_t cap)
{
    struct kcap *kc = launch_kernel_start(demand_fifo_fd, spool[0] ? spool : out,
                                          launch_preload_enters, why, cap);

    if (kc)
        signal(SIGXFSZ, SIG_IGN);
    return kc;
}

/* Record pid and what it starts through the kernel path, saying so when it cannot. */
static void kernel_trace(struct kcap *kc, pid_t pid)
{
    if (kcap_trace(kc, pid) != 0)
        iot_warn("process %ld: the kernel capture path could not mark it traced (%s): "
                 "its calls may go unrecorded", (long)pid, strerror(errno));
}

/* Stop the kernel path: 0, or the errno its writes failed with. */
static int stop_kernel(struct kcap *kc)
{
    return kc && kcap_close(kc) != 0 ? errno : 0;
}

/*
 * The run's one warning about the trace (docs/reliability.md): the kernel
 * path's write error is said unless the collector has said its own, or a
 * recorded process the run's.
 */
static void say_kernel_error(int err, const struct collector *col, const char *output)
{
    if (!err || run_warned() ||
        (col->pid > 0 && col->seg && __atomic_load_n(&col->seg->stopped, __ATOMIC_ACQUIRE)))
        return;
    iot_error("cannot write trace '%s': %s", output, strerror(err));
}

/* -p: a signal ends the attach; the process goes on. */
static volatile sig_atomic_t attach_stop;

static void on_attach_signal(int sig)
{
    (void)sig;
    attach_stop = 1;
}

/*
 * iorecord -p PID [-d SECONDS]: record a running process, its threads and
 * the processes it starts from now on, through the kernel path, until a
 * signal, the duration, or its end. Exits 0, or 2 when it cannot attach.
 */
static int attach(const char *out)
{
    struct timespec tick = { 0, 2000000L };
    char why[256], *end;
    long pid = strtol(attach_pid, &end, 10);
    double seconds = 0;
    int64_t until = 0;
    struct sigaction sa;
    struct kcap *kc;
    int err;

    if (*end || pid <= 0 || pid > INT32_MAX)
        die(2, 0, "-p: '%s' is not a process id", attach_pid);
    if (attach_seconds) {
        seconds = strtod(attach_seconds, &end);
        if (*end || !(seconds > 0))
            die(2, 0, "-d: '%s' is not a number of seconds", attach_seconds);
        until = rec_mono_ns() + (int64_t)(seconds * 1e9);
    }
    if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
        die(2, 0, "-p: no process %ld", pid);
    open_output(output, out);
    kc = start_kernel(out, NULL, why, sizeof(why));
    if (!kc) {
        if (spool[0])
            unlink(spool);
        die(2, 0, "cannot attach to process %ld: %s", pid, why);
    }
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_attach_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    kernel_trace(kc, (pid_t)pid);
    kcap_attach(kc, (pid_t)pid);
    while (!attach_stop && !(until && rec_mono_ns() >= until) &&
           !(kill((pid_t)pid, 0) != 0 && errno == ESRCH)) {
        kcap_poll(kc);
        nanosleep(&tick, NULL);
    }
    if ((err = stop_kernel(kc)) != 0)
        iot_error("cannot write trace '%s': %s", output, strerror(err));
    close_output(output, out);
    return 0;
}

int main(int argc, char **argv)
{
    char out[PATH_MAX], lib[PATH_MAX], cmd[PATH_MAX], asan[REC_EXE_NAME];
    char kernel_why[256] = "", lib_why[2 * PATH_MAX];
    struct opt_list command = { 0 };
    struct collector col;
    struct kcap *kc = NULL;
    struct launch_ask ask = { .fd = -1, .pidfd = -1 };
    int parsed, i, status, mode, gate[2] = { -1, -1 }, cmd_preloaded = 1, kernel_err,
        on_demand = 0, empty;

    opt_program("iorecord", IOT_FORMAT_VERSION);
    parsed = opt_parse(&iorecord_cmd, argc, argv, &command);
    if (parsed >= 0) {
        free(command.v);
        return parsed;
    }
    /* IORECORD_CAPTURE: the default of --capture (a CI's, a test's) */
    if (!capture && getenv("IORECORD_CAPTURE") && *getenv("IORECORD_CAPTURE"))
        capture = getenv("IORECORD_CAPTURE");
    mode = launch_capture_mode(capture);
    if (mode < 0) {
        free(command.v);
        opt_usage_error(&iorecord_cmd, "--capture: expected preload, kernel or both, not '%s'",
                        capture);
        return 2;
    }
    if (!*output) {
        free(command.v);
        opt_usage_error(&iorecord_cmd, "option '--output' needs a file name, not ''");
        return 2;
    }
    switch (launch_labels_env(&labels)) {
    case 0:
        break;
    case -1:
        free(command.v);
        opt_usage_error(&iorecord_cmd, "more than %d labels", IOT_LABEL_MAX_COUNT);
        return 2;
    default:
        free(command.v);
        return 2;
    }
    /* the kernel path's stacks follow the preload's switch */
    if (stacks >= 0)
        kcap_stacks(stacks);
    else if (getenv("IORECORD_STACKS"))
        kcap_stacks(strcmp(getenv("IORECORD_STACKS"), "0") != 0);
    if (attach_pid) {
        size_t n = command.n;

        free(command.v);
        if (n) {
            opt_usage_error(&iorecord_cmd, "-p records a running process: no COMMAND with it");
            return 2;
        }
        absolutize(output, out, sizeof(out));
        return attach(out);
    }
    if (attach_seconds) {
        free(command.v);
        opt_usage_error(&iorecord_cmd, "-d goes with -p");
        return 2;
    }
    if (command.n == 0) {
        free(command.v);
        opt_usage_error(&iorecord_cmd, "no command given");
        return 2;
    }
    /* COMMAND and its arguments are the last command.n words of argv */
    i = argc - (int)command.n;
    free(command.v);
    if (mode != LAUNCH_CAPTURE_KERNEL && launch_find_library(lib, sizeof(lib), lib_why,
                                                             sizeof(lib_why)) != 0)
        die(2, 0, "%s", lib_why);
    resolve_command(argv[i], cmd, sizeof(cmd));
    if (mode == LAUNCH_CAPTURE_KERNEL) {
        cmd_preloaded = 0;
    } else if (mode == LAUNCH_CAPTURE_PRELOAD) {
        check_executable(cmd, asan, NULL);
    } else if (preload_can_enter(cmd)) {
        check_executable(cmd, asan, NULL);
    } else if (!kcap_built() || !launch_may_bpf()) {
        /* the same message as without the kernel path, and why it cannot help */
        start_kernel("", NULL, kernel_why, sizeof(kernel_why));
        check_executable(cmd, asan, kernel_why);
    } else {
        cmd_preloaded = 0;
    }
    absolutize(output, out, sizeof(out));
    open_output(output, out);
    /* by default only where it can run: a build without it, or a user
       without the privilege, gets the preload alone, as before; and for a
       command the preload enters, only once a process asks for it */
    if (mode == LAUNCH_CAPTURE_AUTO && cmd_preloaded && kcap_built() && launch_may_bpf()) {
        on_demand = 1;
        if (fifo_fd >= 0)
            demand_fifo_fd = fcntl(fifo_fd, F_DUPFD_CLOEXEC, 3);
    } else if (mode == LAUNCH_CAPTURE_KERNEL || mode == LAUNCH_CAPTURE_BOTH ||
        (mode == LAUNCH_CAPTURE_AUTO && kcap_built() && launch_may_bpf())) {
        kc = start_kernel(out, mode == LAUNCH_CAPTURE_KERNEL ? NULL : launch_preload_enters,
                          kernel_why, sizeof(kernel_why));
        if (!kc && (mode != LAUNCH_CAPTURE_AUTO || !cmd_preloaded)) {
            if (spool[0])
                unlink(spool);
            die(2, 0, "cannot start the kernel capture path: %s", kernel_why);
        }
        if (!kc)
            iot_warn("kernel capture path not started (%s): static and set-id programs and "
                     "raw syscalls (Go, io_uring) are not recorded", kernel_why);
    }
    if (mode != LAUNCH_CAPTURE_KERNEL) {
        start_collector(&col, output, out);
        set_env(lib, asan, out, stacks, &col);
        unsetenv("IORECORD_KERNEL");
        /* a process the preload lets go at a credential change asks too */
        if ((on_demand || kc) && launch_ask_open(&ask) == 0)
            setenv("IORECORD_KERNEL", ask.name, 1);
        else if (on_demand)     /* from the start, then, as in BOTH */
            kc = launch_kernel_start(demand_fifo_fd, spool[0] ? spool : out,
                                     launch_preload_enters, kernel_why, sizeof(kernel_why));
    } else {
        memset(&col, 0, sizeof(col));
        col.pid = -1;
    }
    make_once_flag();
    forward_signals();
    /* the command waits at the gate until the kernel path follows it */
    if (kc && pipe2(gate, O_CLOEXEC) != 0)
        die(2, errno, "cannot make a pipe");
    child = fork();
    if (child < 0) {
        int err = errno;

        if (spool[0])
            unlink(spool);
        die(2, err, "cannot fork");
    }
    if (child == 0) {
        int err;
        char c;

        if (gate[0] >= 0) {
            close(gate[1]);
            while (read(gate[0], &c, 1) < 0 && errno == EINTR)
                ;
        }
        execv(cmd, argv + i);
        err = errno;
        iot_error("cannot run '%s': %s", argv[i], strerror(err));
        _exit(err == ENOENT ? 127 : 126);
    }
    if (kc) {
        /* the kernel path writes the trace from here: past a file size
           limit its write fails (EFBIG) rather than kill iorecord; set
           after the fork, so the command keeps its own disposition */
        signal(SIGXFSZ, SIG_IGN);
        kernel_trace(kc, child);
        kcap_expect_exec(kc, child);
        close(gate[0]);
        close(gate[1]);
    }
    if (col.pid > 0)
        collector_command_started(&col);
    for (;;) {
        pid_t r = waitpid(child, &status, kc || ask.fd >= 0 ? WNOHANG : 0);
        struct timespec tick = { 0, 2000000L };

        if (r == child)
            break;
        if (r < 0 && errno != EINTR)
            die(2, errno, "cannot wait for the command");
        if (r != 0)
            continue;
        if (ask.fd >= 0)
            launch_ask_serve(&ask, child, kc ? 2 : -1, &kc, start_on_demand, out);
        else if (kc)
            nanosleep(&tick, NULL);
        if (kc)
            kcap_poll(kc);
    }
    launch_ask_close(&ask);
    kernel_err = stop_kernel(kc);
    /* the kernel path wrote the exit of a command it recorded */
    if (WIFSIGNALED(status) && (cmd_preloaded || !kc))
        record_kill(spool[0] ? spool : out, output, child, WTERMSIG(status));
    if (col.pid > 0)
        collector_flush(&col);
    say_kernel_error(kernel_err, &col, output);
    close_output(output, out);
    if (col.pid > 0)
        collector_end(&col);
    empty = launch_trace_empty(output, out, run_warned());
    if (once_path[0])
        unlink(once_path);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    status = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    return empty && status == 0 ? 1 : status;
}
