/* ioanalyze info: what a trace holds. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "grow.h"
#include "hmap.h"
#include "input.h"
#include "opt_parse.h"
#include "progress.h"
#include "text.h"

struct pinfo {
    int32_t pid, ppid;
    const char *exe;
    char *argv;
    int exited, status, signal;
    uint64_t calls;
    /*
     * The coverage records (schema.h): the calls the kernel path recorded
     * in a process only it followed, and in one the preload recorded, the
     * file syscalls the kernel saw that the preload did not.
     */
    int has_coverage;
    uint64_t kernel_recorded, preload_missed;
};

struct tinfo {
    int32_t pid, tid;
    const char *name;
};

/* What the recorder could not see: an unrecorded exec, async I/O by call, or what it lost. */
struct unseen {
    int32_t pid;
    const char *what, *why;        /* path and reason, the async call's name, or lost_what */
    uint64_t calls;                /* async: calls of this name; lost: calls lost (their sizes) */
    int count_unknown;             /* lost: a record said it could not count */
};

/* The `what` of every lost record: compared by pointer, as the interned strings are. */
static const char lost_what[] = "lost";

#define INFO_UNSEEN 64             /* distinct ones listed */

struct info {
    struct pinfo *p; size_t np, capp;
    struct tinfo *t; size_t nt, capt;
    struct hmap pidx, tidx;        /* pid/tid -> index + 1 */
    struct unseen un[INFO_UNSEEN]; size_t nun;
    struct hmap async_fds;         /* pid << 32 | fd -> (void *)1 */
    uint64_t per_op[IOT_OP_COUNT], events, calls, kinds[IOT_KIND_COUNT], no_dur;
    int64_t first_t, last_t;
    /* the labels, each key once (its first value), interned by the input */
    struct { const char *key, *value; } labels[IOT_LABEL_MAX_COUNT];
    size_t nlabels;
};

static void info_label(struct info *in, const struct iot_event *ev)
{
    for (size_t i = 0; i < in->nlabels; i++)
        if (strcmp(in->labels[i].key, ev->label_key) == 0)
            return;
    if (in->nlabels < IOT_LABEL_MAX_COUNT) {
        in->labels[in->nlabels].key = ev->label_key;
        in->labels[in->nlabels++].value = ev->label_value;
    }
}

/*
 * The process of pid as the trace has it now. A process record for a pid
 * whose process has exited starts a new process (new_life): the pid was
 * reused, in a pid namespace or after pid_max wrapped.
 */
static struct pinfo *pinfo_get(struct info *in, int32_t pid, int new_life)
{
    void *v = hmap_get(&in->pidx, (uint64_t)(uint32_t)pid);

    if (v && !(new_life && in->p[(size_t)(uintptr_t)v - 1].exited == 1))
        return &in->p[(size_t)(uintptr_t)v - 1];
    if (iot_grow(&in->p, &in->capp, in->np + 1, sizeof(*in->p)) < 0)
        return NULL;
    memset(&in->p[in->np], 0, sizeof(in->p[0]));
    in->p[in->np].pid = pid;
    in->p[in->np].exited = -1;
    hmap_put(&in->pidx, (uint64_t)(uint32_t)pid, (void *)(uintptr_t)(in->np + 1));
    return &in->p[in->np++];
}

static void tinfo_set(struct info *in, int32_t pid, int32_t tid, const char *name)
{
    void *v = hmap_get(&in->tidx, (uint64_t)(uint32_t)tid);
    struct tinfo *t;

    if (v) {
        t = &in->t[(size_t)(uintptr_t)v - 1];
        if (t->pid == pid) {
            if (name)
                t->name = name;
            return;
        }
    }
    if (iot_grow(&in->t, &in->capt, in->nt + 1, sizeof(*in->t)) < 0)
        return;
    in->t[in->nt] = (struct tinfo){pid, tid, name};
    hmap_put(&in->tidx, (uint64_t)(uint32_t)tid, (void *)(uintptr_t)(in->nt + 1));
    in->nt++;
}

/*
 * One unrecorded record, worded by its mode: the process exec'd a program
 * the preload cannot enter (static, setuid, ...), went on unrecorded itself
 * from a credential change (creds), made a child by a raw clone that
 * cannot be recorded (raw_clone...: no path), or makes file calls past
 * libc (go, liburing: the program or the library).
 */
static void print_unrecorded(const struct unseen *u)
{
    char sa[IOT_TEXT_MAX], sb[256];
    const char *what = iot_text_safe(sa, sizeof(sa), u->what);
    const char *why = iot_text_safe(sb, sizeof(sb), u->why);

    if (strcmp(u->why, "creds") == 0)
        printf("  pid %d %s went on unrecorded from a credential change (%s)\n", (int)u->pid, what,
               why);
    else if (strcmp(u->why, "go") == 0 || strcmp(u->why, "liburing") == 0)
        printf("  pid %d makes file calls past libc through %s, unrecorded (%s)\n", (int)u->pid,
               what, why);
    else if (strncmp(u->why, "raw_clone", 9) == 0)
        printf("  pid %d made a child by a raw clone, unrecorded (%s)\n", (int)u->pid, why);
    else
        printf("  pid %d exec'd %s unrecorded (%s)\n", (int)u->pid, what, why);
}

static void info_unseen(struct info *in, const struct iot_event *ev)
{
    const char *mode = (ev->has & IOT_HAS_MODE) ? ev->mode : NULL;
    const char *what, *why;
    size_t i;

    switch (ev->op) {
    case IOT_OP_UNRECORDED:
        what = (ev->has & IOT_HAS_PATH) ? ev->path : "?";
        why = mode;
        break;
    case IOT_OP_LOST:
        what = lost_what;
        why = mode ? mode : "?";
        break;
    default:
        what = mode ? mode : "?";
        why = NULL;
        break;
    }
    if (ev->op == IOT_OP_ASYNC && (ev->has & IOT_HAS_FD))
        hmap_put(&in->async_fds, (uint64_t)(uint32_t)ev->pid << 32 | (uint32_t)ev->fd, (void *)1);
    for (i = 0; i < in->nun; i++)
        if (in->un[i].pid == ev->pid && in->un[i].what == what && in->un[i].why == why)
            break;
    if (i == in->nun) {
        if (in->nun == INFO_UNSEEN)
            return;
        in->un[in->nun++] = (struct unseen){ev->pid, what, why, 0, 0};
    }
    if (ev->op != IOT_OP_LOST)
        in->un[i].calls++;
    else if ((ev->has & IOT_HAS_SIZE) && ev->size > 0)
        in->un[i].calls += (uint64_t)ev->size;
    else
        in->un[i].count_unknown = 1;
}

static void info_coverage(struct pinfo *p, const struct iot_event *ev)
{
    uint64_t n = (ev->has & IOT_HAS_SIZE) && ev->size > 0 ? (uint64_t)ev->size : 0;

    if (ev->op != IOT_OP_COVERAGE)
        return;
    p->has_coverage = 1;
    if ((ev->has & IOT_HAS_MODE) && strcmp(ev->mode, "preload") == 0)
        p->preload_missed += n;
    else
        p->kernel_recorded += n;
}

/* Which capture path recorded each process the kernel path followed. */
static void print_coverage(const struct info *in)
{
    size_t n = 0;

    for (size_t i = 0; i < in->np; i++)
        n += in->p[i].has_coverage;
    if (!n)
        return;
    printf("coverage: %zu process%s followed by the kernel path\n", n, n == 1 ? "" : "es");
    for (size_t i = 0; i < in->np; i++) {
        const struct pinfo *p = &in->p[i];

        if (!p->has_coverage)
            continue;
        if (p->kernel_recorded)
            printf("  pid %d: %llu file call%s recorded by the kernel path\n", (int)p->pid,
                   (unsigned long long)p->kernel_recorded, p->kernel_recorded == 1 ? "" : "s");
        else
            printf("  pid %d: recorded by the preload; the kernel saw %llu file syscall%s it did "
                   "not (recorded from the kernel)\n", (int)p->pid,
                   (unsigned long long)p->preload_missed, p->preload_missed == 1 ? "" : "s");
    }
}

static void info_event(struct info *in, const struct iot_event *ev)
{
    struct pinfo *p;

    in->events++;
    if (ev->kind < IOT_KIND_COUNT)
        in->kinds[ev->kind]++;
    if (ev->kind != IOT_EV_THREAD) {
        if (ev->t < in->first_t)
            in->first_t = ev->t;
        if (ev->t > in->last_t)
            in->last_t = ev->t;
    }
    switch (ev->kind) {
    case IOT_EV_CALL:
        in->calls++;
        if (ev->op < IOT_OP_COUNT)
            in->per_op[ev->op]++;
        if (ev->op == IOT_OP_UNRECORDED || ev->op == IOT_OP_ASYNC || ev->op == IOT_OP_LOST)
            info_unseen(in, ev);
        if (ev->has & IOT_HAS_NO_DUR)
            in->no_dur++;
        if ((p = pinfo_get(in, ev->pid, 0)) != NULL) {
            if (!iot_op_is_note(ev->op))
                p->calls++;
            info_coverage(p, ev);
        }
        if (!hmap_get(&in->tidx, (uint64_t)(uint32_t)ev->tid))
            tinfo_set(in, ev->pid, ev->tid, NULL);
        break;
    case IOT_EV_PROCESS: {
        size_t len = 0;
        char *a;

        if (!(p = pinfo_get(in, ev->pid, 1)))
            break;
        p->ppid = ev->ppid;
        p->exe = ev->exe;
        for (int i = 0; i < ev->argc; i++)
            len += strlen(ev->argv[i]) + 1;
        a = malloc(len + 1);
        if (a) {
            a[0] = 0;
            for (int i = 0; i < ev->argc; i++) {
                if (i)
                    strcat(a, " ");
                strcat(a, ev->argv[i]);
            }
            free(p->argv);
            p->argv = a;
        }
        break;
    }
    case IOT_EV_THREAD:
        tinfo_set(in, ev->pid, ev->tid, ev->name);
        break;
    case IOT_EV_LABEL:
        info_label(in, ev);
        break;
    case IOT_EV_EXIT:
        if ((p = pinfo_get(in, ev->pid, 0)) != NULL) {
            p->exited = 1;
            p->status = ev->status;
            p->signal = (ev->has & IOT_HAS_SIGNAL) ? ev->signal : 0;
        }
        break;
    default:
        break;
    }
}

static void info_print(struct info *in, struct input *inp)
{
    const struct input_file_info *files;
    size_t nf = input_files(inp, &files);
    struct iot_trace_stats ts;
    uint64_t bytes = 0;
    static const char *kinds[] = {"native trace", "JSONL events", "strace log"};
    /* every string below came from an input: shown through iot_text_safe */
    char sa[IOT_TEXT_MAX], sb[IOT_TEXT_MAX];

    input_native_stats(inp, &ts);
    printf("inputs:\n");
    for (size_t i = 0; i < nf; i++) {
        bytes += files[i].bytes;
        printf("  %s: %s, %llu bytes", iot_text_safe(sa, sizeof(sa), files[i].name), kinds[files[i].kind],
               (unsigned long long)files[i].bytes);
        if (files[i].kind != INPUT_NATIVE)
            printf(", %llu lines", (unsigned long long)files[i].lines);
        if (files[i].kind == INPUT_JSONL && files[i].unknown_lines)
            printf(", %llu events of ops or kinds not known here (skipped)",
                   (unsigned long long)files[i].unknown_lines);
        if (files[i].kind == INPUT_JSONL && files[i].bad_lines)
            printf(", %llu malformed (skipped)", (unsigned long long)files[i].bad_lines);
        if (files[i].kind == INPUT_STRACE)
            printf(", %llu not understood, %llu calls unfinished and never resumed, %s",
                   (unsigned long long)files[i].unknown_lines,
                   (unsigned long long)files[i].unfinished,
                   files[i].has_durations ? "with durations (-T)" : "no durations (no -T)");
        printf("\n");
    }
    if (ts.chunks || ts.chunks_damaged) {
        printf("native: format version %u, %llu chunks (%llu partial snapshots superseded), "
               "%llu decompressed bytes\n", ts.max_version, (unsigned long long)ts.chunks,
               (unsigned long long)ts.chunks_superseded, (unsigned long long)ts.raw_bytes);
        if (ts.chunks_damaged || ts.truncated || ts.bytes_skipped)
            printf("damage: %llu damaged chunks, %llu bytes skipped%s; recovered %llu events\n",
                   (unsigned long long)ts.chunks_damaged, (unsigned long long)ts.bytes_skipped,
                   ts.truncated ? ", truncated" : "", (unsigned long long)ts.events);
        else
            printf("damage: none\n");
        if (ts.calls_unknown || ts.fields_unknown || ts.records_unknown)
            printf("newer recorder: skipped %llu calls of unknown ops, unknown fields of %llu "
                   "calls, %llu records of unknown kinds\n",
                   (unsigned long long)ts.calls_unknown, (unsigned long long)ts.fields_unknown,
                   (unsigned long long)ts.records_unknown);
    }
    /* records, not processes: a process is recorded at its start and again at
       each exec, a thread at its start and at each rename (the process and
       thread lists below count each once) */
    printf("events: %llu (%llu calls, %llu process records, %llu thread records, "
           "%llu exit records)\n",
           (unsigned long long)in->events, (unsigned long long)in->calls,
           (unsigned long long)in->kinds[IOT_EV_PROCESS], (unsigned long long)in->kinds[IOT_EV_THREAD],
           (unsigned long long)in->kinds[IOT_EV_EXIT]);
    if (in->events)
        printf("bytes/event: %.2f\n", (double)bytes / (double)in->events);
    if (in->first_t <= in->last_t)
        printf("time span: %.6f s (%.9f .. %.9f)\n", (in->last_t - in->first_t) / 1e9,
               in->first_t / 1e9, in->last_t / 1e9);
    if (in->no_dur)
        printf("durations: missing on %llu calls\n", (unsigned long long)in->no_dur);
    if (in->nlabels)
        printf("labels: %zu\n", in->nlabels);
    for (size_t i = 0; i < in->nlabels; i++)
        printf("  %s=%s\n", iot_text_safe(sa, sizeof(sa), in->labels[i].key),
               iot_text_safe(sb, sizeof(sb), in->labels[i].value));
    printf("processes: %zu\n", in->np);
    for (size_t i = 0; i < in->np; i++) {
        struct pinfo *p = &in->p[i];

        printf("  pid %d ppid %d %s [%s] %llu calls, ", (int)p->pid, (int)p->ppid,
               iot_text_safe(sa, sizeof(sa), p->exe), iot_text_safe(sb, sizeof(sb), p->argv ? p->argv : ""), (unsigned long long)p->calls);
        if (p->exited < 0)
            printf("no exit recorded\n");
        else if (p->signal)
            printf("killed by signal %d\n", p->signal);
        else
            printf("exit status %d\n", p->status);
    }
    print_coverage(in);
    printf("threads: %zu\n", in->nt);
    for (size_t i = 0; i < in->nt; i++)
        printf("  tid %d (pid %d) %s\n", (int)in->t[i].tid, (int)in->t[i].pid,
               iot_text_safe(sa, sizeof(sa), in->t[i].name ? in->t[i].name : ""));
    if (in->per_op[IOT_OP_UNRECORDED] || in->per_op[IOT_OP_ASYNC] || in->per_op[IOT_OP_LOST]) {
        printf("not seen: %llu program%s ran unrecorded, %llu async I/O call%s on %zu fd%s "
               "not analysed",
               (unsigned long long)in->per_op[IOT_OP_UNRECORDED],
               in->per_op[IOT_OP_UNRECORDED] == 1 ? "" : "s",
               (unsigned long long)in->per_op[IOT_OP_ASYNC],
               in->per_op[IOT_OP_ASYNC] == 1 ? "" : "s", in->async_fds.n,
               in->async_fds.n == 1 ? "" : "s");
        if (in->per_op[IOT_OP_LOST])
            printf(", %llu loss%s recorded", (unsigned long long)in->per_op[IOT_OP_LOST],
                   in->per_op[IOT_OP_LOST] == 1 ? "" : "es");
        putchar('\n');
        for (size_t i = 0; i < in->nun; i++)
            if (in->un[i].what == lost_what)
                if (in->un[i].count_unknown)
                    printf("  pid %d lost: %s, count unknown\n", (int)in->un[i].pid,
                           iot_text_safe(sb, sizeof(sb), in->un[i].why));
                else
                    printf("  pid %d lost: %s, %llu\n", (int)in->un[i].pid,
                           iot_text_safe(sb, sizeof(sb), in->un[i].why),
                           (unsigned long long)in->un[i].calls);
            else if (in->un[i].why)
                print_unrecorded(&in->un[i]);
            else
                printf("  pid %d %s: %llu call%s\n", (int)in->un[i].pid,
                       iot_text_safe(sa, sizeof(sa), in->un[i].what),
                       (unsigned long long)in->un[i].calls, in->un[i].calls == 1 ? "" : "s");
    }
    printf("calls per op:\n");
    for (unsigned op = 0; op < IOT_OP_COUNT; op++)
        if (in->per_op[op] && !iot_op_is_note(op))
            printf("  %-16s %llu\n", iot_op_name(op), (unsigned long long)in->per_op[op]);
    for (unsigned op = 0, n = 0; op < IOT_OP_COUNT; op++)
        if (in->per_op[op] && iot_op_is_note(op))
            printf("%s %s %llu", n++ ? "," : "the recorder's notes (not calls):", iot_op_name(op),
                   (unsigned long long)in->per_op[op]);
    for (unsigned op = 0; op < IOT_OP_COUNT; op++)
        if (in->per_op[op] && iot_op_is_note(op)) {
            putchar('\n');
            break;
        }
}

int cmd_info(int argc, char **argv)
{
    struct opt_list inputs = {0};
    int ret = 2, rc, parsed;
    struct iot_strtab *st = NULL;
    struct input *inp = NULL;
    const struct iot_event *ev;
    struct info in;
    struct progress progress_buf, *pr;
    const struct opt_cmd cmd = {
        .name = "info",
        .synopsis = "info INPUT...",
        .about = "Prints the inputs (kind, size, damage), processes (pid, ppid, exe, argv,\n"
                 "exit status), threads, event counts per op, time span and bytes/event.",
        .needs_input = 1,
    };

    memset(&in, 0, sizeof(in));
    in.first_t = INT64_MAX;
    in.last_t = INT64_MIN;
    parsed = opt_parse(&cmd, argc, argv, &inputs);
    if (parsed >= 0) {
        ret = parsed;
        goto out;
    }
    st = iot_strtab_create();
    if (!st || !(inp = input_open(inputs.v, inputs.n, st)))
        goto out;
    pr = progress_start(&progress_buf, "ioanalyze info", inp);
    while ((rc = input_next_ref(inp, &ev)) > 0) {
        info_event(&in, ev);
        progress_add(pr, 1);
    }
    progress_end(pr);
    if (rc < 0)
        goto out;
    info_print(&in, inp);
    ret = 0;
out:
    for (size_t i = 0; i < in.np; i++)
        free(in.p[i].argv);
    free(in.p);
    free(in.t);
    hmap_release(&in.pidx);
    hmap_release(&in.tidx);
    hmap_release(&in.async_fds);
    input_close(inp);
    iot_strtab_free(st);
    free(inputs.v);
    return ret;
}
