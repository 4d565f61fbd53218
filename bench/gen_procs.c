/*
 * gen_procs - writes a native trace of many short processes, for the
 * analyzer's many-processes bench (bench/bench_many_procs.sh).
 *
 *   gen_procs N OUT.zst
 *
 * Each of the N processes, one after the other, starts a worker thread,
 * opens the one shared path, reads it on its main thread in one 20 ms call
 * (main_thread), closes it, opens two more files it never closes (leak) and
 * exits: 8 events per process, touching every per-process and per-(process,
 * path) table of the engine and the rules.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iotrace.h"

static int emit(struct iot_writer *w, const struct iot_event *ev)
{
    char err[IOT_ERRBUF_SIZE];

    if (iot_writer_event(w, ev, err) < 0) {
        fprintf(stderr, "gen_procs: %s\n", err);
        return -1;
    }
    return 0;
}

/* A call of process pid on its main thread at t. */
static int call(struct iot_writer *w, int32_t pid, int64_t t, unsigned op, int32_t fd,
                const char *path, int64_t dur, int64_t ret)
{
    struct iot_event ev = {.kind = IOT_EV_CALL, .pid = pid, .tid = pid, .t = t, .op = (uint8_t)op,
                           .fd = fd, .dur = dur, .ret = ret, .has = IOT_HAS_FD};

    if (path) {
        ev.path = path;
        ev.has |= IOT_HAS_PATH | IOT_HAS_FLAGS;
    }
    if (op == IOT_OP_READ) {
        ev.size = 4096;
        ev.has |= IOT_HAS_SIZE;
    }
    return emit(w, &ev);
}

int main(int argc, char **argv)
{
    static const char *const args[] = {"w"};
    char err[IOT_ERRBUF_SIZE];
    struct iot_writer *w;
    long n;

    if (argc != 3 || (n = atol(argv[1])) < 1) {
        fprintf(stderr, "usage: gen_procs N OUT.zst\n");
        return 2;
    }
    w = iot_writer_open(argv[2], 0, err);
    if (!w) {
        fprintf(stderr, "gen_procs: %s\n", err);
        return 1;
    }
    for (long i = 0; i < n; i++) {
        int32_t pid = (int32_t)(1000 + i);
        int64_t t = 1000000000 + (int64_t)i * 100000000;
        struct iot_event ev = {.kind = IOT_EV_PROCESS, .pid = pid, .tid = pid, .ppid = 1, .t = t,
                               .start_unix_ns = 1763800000000000000LL, .exe = "/bin/w",
                               .argc = 1, .argv = args};

        if (emit(w, &ev) < 0)
            return 1;
        ev = (struct iot_event){.kind = IOT_EV_THREAD, .pid = pid, .tid = pid + 100000, .t = t,
                                .name = "worker"};
        if (emit(w, &ev) < 0 ||
            call(w, pid, t + 10, IOT_OP_OPEN, 3, "/data/shared.conf", 1000, 3) < 0 ||
            call(w, pid, t + 20000, IOT_OP_READ, 3, NULL, 20000000, 100) < 0 ||
            call(w, pid, t + 30000000, IOT_OP_CLOSE, 3, NULL, 1000, 0) < 0 ||
            call(w, pid, t + 30000010, IOT_OP_OPEN, 4, "/data/kept.1", 1000, 4) < 0 ||
            call(w, pid, t + 30000020, IOT_OP_OPEN, 5, "/data/kept.2", 1000, 5) < 0)
            return 1;
        ev = (struct iot_event){.kind = IOT_EV_EXIT, .pid = pid, .tid = pid, .t = t + 50000000};
        if (emit(w, &ev) < 0)
            return 1;
    }
    if (iot_writer_close(w, err) < 0) {
        fprintf(stderr, "gen_procs: %s\n", err);
        return 1;
    }
    return 0;
}
