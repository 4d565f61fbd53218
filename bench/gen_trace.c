/*
 * gen_trace - writes a synthetic native trace for benchmarks and fuzz seeds.
 *
 *   gen_trace [--tight|--mixed] [--interleave] [--threads N] [--chunk BYTES] N OUT.zst
 *
 * --tight: N identical 1-byte reads on one fd with machine-like jitter (the
 * SPEC's compactness case). --mixed (default): per thread, files opened,
 * read sequentially and at random, written, seeked and closed: the shape of
 * a real program. Threads are generated in bursts (32 calls on average), but
 * their calls overlap in time as concurrent threads' do, so in time order
 * the thread changes about every other call (measured: 2.06 calls per run
 * with 4 threads); --interleave switches thread at every generated call.
 * Prints the encode rate and bytes/event on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "iotrace.h"

static uint64_t rng = 88172645463325252ULL;

static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

struct thr {
    int32_t tid;
    int64_t t;
    int fd;           /* open fd or -1 */
    int left;         /* calls left in this session */
    int kind;         /* what the session does */
    int64_t off;
};

static int64_t clock_now = 1000001000;

static int emit(struct iot_writer *w, struct iot_event *ev, uint64_t *n)
{
    char err[IOT_ERRBUF_SIZE];

    if (iot_writer_event(w, ev, err) < 0) {
        fprintf(stderr, "gen_trace: %s\n", err);
        return -1;
    }
    (*n)++;
    return 0;
}

static int call(struct iot_writer *w, struct thr *th, int32_t pid, unsigned op,
                uint32_t has, int64_t ret, int64_t dur, struct iot_event *ev, uint64_t *n)
{
    ev->kind = IOT_EV_CALL;
    ev->pid = pid;
    ev->tid = th->tid;
    ev->op = (uint8_t)op;
    ev->has = has;
    ev->ret = ret;
    /*
     * One clock for all threads, as on a real machine: a burst of one
     * thread's calls is a burst in time too, and the threads' calls overlap
     * (each starts a little after the previous call of any thread).
     */
    clock_now += 30 + (int64_t)(rnd() % 400);
    ev->t = clock_now;
    ev->dur = dur;
    clock_now += dur / 4;
    if (ev->t < th->t)  /* a thread's own calls never overlap */
        ev->t = th->t;
    th->t = ev->t + dur;
    return emit(w, ev, n);
}

int main(int argc, char **argv)
{
    int tight = 0, nthreads = 4, interleave = 0;
    size_t chunk = 0;
    uint64_t target, n = 0;
    const char *out;
    char err[IOT_ERRBUF_SIZE];
    struct iot_writer *w;
    struct iot_event ev;
    const int32_t pid = 4242;
    const char *args[] = { "app", "--work" };
    int i = 1;
    double t0;

    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--tight")) tight = 1;
        else if (!strcmp(argv[i], "--mixed")) tight = 0;
        else if (!strcmp(argv[i], "--interleave")) interleave = 1;
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc) nthreads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--chunk") && i + 1 < argc) chunk = (size_t)atol(argv[++i]);
        else break;
    }
    if (argc - i != 2 || nthreads < 1 || nthreads > 1024) {
        fprintf(stderr, "usage: gen_trace [--tight|--mixed] [--interleave] [--threads N] [--chunk BYTES] N OUT.zst\n");
        return 2;
    }
    target = strtoull(argv[i], NULL, 0);
    out = argv[i + 1];
    w = iot_writer_open(out, chunk, err);
    if (!w) {
        fprintf(stderr, "gen_trace: %s\n", err);
        return 1;
    }
    t0 = now();
    memset(&ev, 0, sizeof(ev));
    ev.kind = IOT_EV_PROCESS;
    ev.pid = ev.tid = pid;
    ev.ppid = 1;
    ev.t = 1000000000;
    ev.start_unix_ns = 1763800000000000000LL;
    ev.exe = "/usr/bin/app";
    ev.argc = 2;
    ev.argv = args;
    if (emit(w, &ev, &n) < 0)
        return 1;

    if (tight) {
        struct thr th = { pid, 1000001000, 3, 0, 0, 0 };

        memset(&ev, 0, sizeof(ev));
        ev.fd = 3;
        ev.size = 1;
        while (n < target) {
            /* a real loop: ~250 ns calls, ~30 ns apart, a few ns of jitter */
            ev.kind = IOT_EV_CALL;
            ev.pid = pid;
            ev.tid = pid;
            ev.op = IOT_OP_READ;
            ev.has = IOT_HAS_FD | IOT_HAS_SIZE;
            ev.ret = 1;
            th.t += 25 + (int64_t)(rnd() % 8);
            ev.t = th.t;
            ev.dur = 230 + (int64_t)(rnd() % 24);
            th.t += ev.dur;
            if (emit(w, &ev, &n) < 0)
                return 1;
        }
    } else {
        struct thr *ths = calloc((size_t)nthreads, sizeof(*ths));
        static const char *const paths[] = {
            "/var/lib/app/db.sqlite", "/etc/app.conf", "/tmp/app-cache/blob.bin",
            "/home/user/.config/app/state.json", "/var/log/app.log", "/usr/share/app/icons.dat",
        };
        static const char *const stack =
            "load_config+0x4c (app)\nmain+0x1a2 (app)\n__libc_start_call_main+0x7a (libc.so.6)";

        for (int k = 0; k < nthreads; k++) {
            ths[k].tid = pid + k;
            ths[k].t = 1000001000 + k * 7;
            ths[k].fd = -1;
        }
        struct thr *th = ths;

        while (n < target) {
            if (interleave || rnd() % 32 == 0)
                th = &ths[rnd() % (uint64_t)nthreads];

            memset(&ev, 0, sizeof(ev));
            if (th->fd < 0) {
                th->fd = 3 + (int)(th - ths);
                th->left = 50 + (int)(rnd() % 2000);
                th->kind = (int)(rnd() % 4);
                th->off = 0;
                ev.fd = th->fd;
                ev.path = paths[rnd() % 6];
                ev.flags = th->kind == 1 ? 01101 : 0;
                ev.stack = stack;
                if (call(w, th, pid, IOT_OP_OPEN, IOT_HAS_FD | IOT_HAS_PATH | IOT_HAS_FLAGS | IOT_HAS_STACK,
                         th->fd, 2000 + (int64_t)(rnd() % 3000), &ev, &n) < 0)
                    return 1;
                continue;
            }
            ev.fd = th->fd;
            if (--th->left <= 0) {
                ev.file_size = th->off;
                if (call(w, th, pid, IOT_OP_CLOSE, IOT_HAS_FD | IOT_HAS_FILE_SIZE, 0, 900, &ev, &n) < 0)
                    return 1;
                th->fd = -1;
                continue;
            }
            switch (th->kind) {
            case 0:  /* sequential 4 KiB reads */
                ev.size = 4096;
                if (call(w, th, pid, IOT_OP_READ, IOT_HAS_FD | IOT_HAS_SIZE, 4096,
                         800 + (int64_t)(rnd() % 900), &ev, &n) < 0)
                    return 1;
                break;
            case 1:  /* small appends */
                ev.size = 64;
                if (call(w, th, pid, IOT_OP_WRITE, IOT_HAS_FD | IOT_HAS_SIZE, 64,
                         600 + (int64_t)(rnd() % 500), &ev, &n) < 0)
                    return 1;
                break;
            case 2:  /* page-sized random pwrites */
                ev.size = 4096;
                ev.offset = (int64_t)(rnd() % 256) * 4096;
                if (call(w, th, pid, IOT_OP_PWRITE, IOT_HAS_FD | IOT_HAS_SIZE | IOT_HAS_OFFSET, 4096,
                         3000 + (int64_t)(rnd() % 4000), &ev, &n) < 0)
                    return 1;
                break;
            default: /* seek + read */
                if (rnd() % 2) {
                    ev.offset = (int64_t)(rnd() % 1024) * 512;
                    ev.whence = 0;
                    if (call(w, th, pid, IOT_OP_LSEEK, IOT_HAS_FD | IOT_HAS_OFFSET | IOT_HAS_WHENCE,
                             ev.offset, 150, &ev, &n) < 0)
                        return 1;
                } else {
                    ev.size = 512;
                    if (call(w, th, pid, IOT_OP_READ, IOT_HAS_FD | IOT_HAS_SIZE, 512,
                             700 + (int64_t)(rnd() % 300), &ev, &n) < 0)
                        return 1;
                }
            }
        }
        free(ths);
    }
    memset(&ev, 0, sizeof(ev));
    ev.kind = IOT_EV_EXIT;
    ev.pid = ev.tid = pid;
    ev.t = 1000000000 + 1000000000000LL;
    if (emit(w, &ev, &n) < 0 || iot_writer_close(w, err) < 0) {
        fprintf(stderr, "gen_trace: %s\n", err);
        return 1;
    }
    double secs = now() - t0;
    FILE *f = fopen(out, "rb");
    long size = 0;
    if (f) {
        fseek(f, 0, SEEK_END);
        size = ftell(f);
        fclose(f);
    }
    fprintf(stderr, "gen_trace: %llu events, %.2f bytes/event, encode %.1f M events/s\n",
            (unsigned long long)n, (double)size / (double)n, (double)n / secs / 1e6);
    return 0;
}
