/*
 * gen.c - seeded random events for the round-trip tests: every op, every
 * optional field, several processes and threads, strictly increasing times so
 * the reader's time-ordered merge must give back exactly the generated order.
 */
#include <string.h>

#include "gen.h"

static const char *const pool[] = {
    "/etc/passwd", "/tmp/x,y \"quoted\"\nline", "/var/lib/app/data.db",
    "r", "w+", "a", "main+0x1a (app)\nlibc_start+0x80 (libc.so.6)",
    "\xc3\xa9t\xc3\xa9/caf\xc3\xa9", "", "worker-1",
};

static const char *rand_str(struct gen *g)
{
    uint64_t r = unit_rand(&g->rng);

    if (r % 3)
        return pool[(r >> 8) % (sizeof(pool) / sizeof(pool[0]))];
    /* a fresh string of printable ASCII */
    size_t n = (r >> 16) % 40, slot = g->nstr++ % GEN_STRINGS;
    for (size_t i = 0; i < n; i++)
        g->strs[slot][i] = (char)(' ' + unit_rand(&g->rng) % 95);
    g->strs[slot][n] = '\0';
    return g->strs[slot];
}

static int64_t rand_val(struct gen *g)
{
    uint64_t r = unit_rand(&g->rng);

    switch (r % 4) {
    case 0: return (int64_t)(r >> 60);                 /* tiny */
    case 1: return -(int64_t)((r >> 40) & 0xffff);     /* negative */
    case 2: return (int64_t)(r >> 20);                 /* large */
    default: return (int64_t)r;                        /* anything */
    }
}

void gen_init(struct gen *g, uint64_t seed, int nproc, int nthreads)
{
    memset(g, 0, sizeof(*g));
    g->rng = seed ? seed : 1;
    g->t = 1000000000000LL;
    g->nproc = nproc;
    g->nthreads = nthreads;
}

void gen_event(struct gen *g, struct iot_event *ev, int valid_utf8)
{
    uint64_t r = unit_rand(&g->rng);
    int pidx = (int)(r % (uint64_t)g->nproc);
    int32_t pid = 1000 + pidx * 100;
    int32_t tid = pid + (int32_t)((r >> 8) % (uint64_t)g->nthreads);

    (void)valid_utf8;
    g->t += 1 + (int64_t)(unit_rand(&g->rng) % 5000);
    /* sometimes repeat the previous call exactly but for its times */
    if (g->have_last && (r >> 16) % 4 == 0) {
        *ev = g->last;
        ev->t = g->t;
        ev->dur = (int64_t)(unit_rand(&g->rng) % 100000);
        g->t += ev->dur;
        return;
    }
    memset(ev, 0, sizeof(*ev));
    ev->pid = pid;
    ev->tid = tid;
    ev->t = g->t;
    switch ((r >> 24) % 16) {
    case 0:
        ev->kind = IOT_EV_PROCESS;
        ev->tid = pid;
        ev->ppid = (int32_t)(unit_rand(&g->rng) % 5000);
        ev->start_unix_ns = 1763800000000000000LL + rand_val(g) % 1000000;
        ev->exe = rand_str(g);
        ev->argc = (int)(unit_rand(&g->rng) % GEN_ARGS);
        for (int i = 0; i < ev->argc; i++)
            g->argv[i] = rand_str(g);
        ev->argv = g->argv;
        return;
    case 1:
        ev->kind = IOT_EV_THREAD;
        ev->name = rand_str(g);
        return;
    case 2:
        ev->kind = IOT_EV_EXIT;
        ev->tid = pid;
        ev->status = (int32_t)(unit_rand(&g->rng) % 256);
        if (unit_rand(&g->rng) % 2) {
            ev->has = IOT_HAS_SIGNAL;
            ev->signal = 1 + (int32_t)(unit_rand(&g->rng) % 31);
        }
        return;
    }
    ev->kind = IOT_EV_CALL;
    ev->op = (uint8_t)(unit_rand(&g->rng) % IOT_OP_COUNT);
    ev->has = (uint32_t)(unit_rand(&g->rng) & (IOT_HAS_ALL | IOT_HAS_NO_DUR));
    ev->dur = (int64_t)(unit_rand(&g->rng) % 1000000);
    if (ev->has & IOT_HAS_NO_DUR)
        ev->dur = 0;
    ev->ret = rand_val(g);
    /* every field a value of its type, whether present or not (IOT_FIELDS) */
#define GEN_I32(m)     (ev->m = (int32_t)rand_val(g))
#define GEN_U32(m)     (ev->m = (int32_t)(unit_rand(&g->rng) % 140))
#define GEN_I64(m)     (ev->m = rand_val(g))
#define GEN_OCT(m)     (ev->m = (int64_t)(unit_rand(&g->rng) & 0x7fffffff))
    /* JSON integers are signed: keep stream ids within int64 */
#define GEN_HEX(m)     (ev->m = unit_rand(&g->rng) >> 1)
#define GEN_STR(m)     (ev->m = rand_str(g))
#define GEN_BUFMODE(m) (ev->m = (uint8_t)(unit_rand(&g->rng) % 3))
#define GEN_FIELD_(name, bit, member, type, key) GEN_##type(member);
    IOT_FIELDS(GEN_FIELD_)
#undef GEN_FIELD_
    g->t += ev->dur;
    g->last = *ev;
    g->have_last = 1;
}
