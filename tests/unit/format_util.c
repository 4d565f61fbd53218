/*
 * format_util.c - what the format tests share (format_util.h): generated
 * traces with their expected events, reading a trace whole, one chunk alone
 * in a file.
 */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>

#include "format_util.h"
#include "gen.h"
#include "unit.h"

#define tmp_path unit_tmp_path
#define spill unit_spill

static const char *keep(struct iot_strtab *st, const char *s)
{
    return s ? iot_intern(st, s, strlen(s)) : NULL;
}

void expect_add(struct expect *x, const struct iot_event *ev)
{
    struct iot_event *c = &x->ev[x->n++];

    *c = *ev;
    c->path = keep(x->st, ev->path);
    c->mode = keep(x->st, ev->mode);
    c->stack = keep(x->st, ev->stack);
    c->newpath = keep(x->st, ev->newpath);
    c->exe = keep(x->st, ev->exe);
    c->name = keep(x->st, ev->name);
    if (ev->kind == IOT_EV_PROCESS) {
        const char **argv = calloc((size_t)ev->argc + 1, sizeof(*argv));
        for (int i = 0; i < ev->argc; i++)
            argv[i] = keep(x->st, ev->argv[i]);
        c->argv = argv;
    } else {
        c->argv = NULL;
    }
}

void expect_free(struct expect *x)
{
    for (size_t i = 0; i < x->n; i++)
        if (x->ev[i].kind == IOT_EV_PROCESS)
            free((void *)x->ev[i].argv);
    free(x->ev);
    iot_strtab_free(x->st);
}

/*
 * Write n generated events of nproc processes x nthreads threads to path;
 * the expected events (t relative) in x.
 */
void write_random_of(const char *path, uint64_t seed, size_t n, size_t chunk,
                     int nproc, int nthreads, struct expect *x)
{
    char err[IOT_ERRBUF_SIZE];
    struct iot_writer *w = iot_writer_open(path, chunk, err);
    struct gen g;
    struct iot_event ev;
    int64_t origin = 0;

    CU_ASSERT_FATAL(w != NULL);
    x->ev = calloc(n, sizeof(*x->ev));
    x->n = 0;
    x->st = iot_strtab_create();
    gen_init(&g, seed, nproc, nthreads);
    for (size_t i = 0; i < n; i++) {
        gen_event(&g, &ev, 0);
        if (i == 0)
            origin = ev.t;
        CU_ASSERT_FATAL(iot_writer_event(w, &ev, err) == 0);
        ev.t -= origin;
        expect_add(x, &ev);
    }
    CU_ASSERT_FATAL(iot_writer_close(w, err) == 0);
}

void write_random(const char *path, uint64_t seed, size_t n, size_t chunk, struct expect *x)
{
    write_random_of(path, seed, n, chunk, 3, 4, x);
}

/* Read every event of path; returns how many, or -1 when open fails. */
long read_all(const char *path, struct iot_event **out, struct iot_strtab *st,
              struct iot_trace_stats *stats, char *err)
{
    struct iot_trace *tr = iot_trace_open(&path, 1, st, err);
    size_t cap = 0, n = 0;
    struct iot_event ev;
    int r;

    if (!tr)
        return -1;
    while ((r = iot_trace_next(tr, &ev, err)) == 1) {
        if (out) {
            if (n == cap) {
                cap = cap ? cap * 2 : 256;
                *out = realloc(*out, cap * sizeof(**out));
            }
            /* argv is only valid until the next event: not compared here */
            if (ev.kind == IOT_EV_PROCESS) {
                ev.argv = NULL;
                ev.argc = 0;
            }
            (*out)[n] = ev;
        }
        n++;
    }
    CU_ASSERT(r == 0);
    if (stats)
        iot_trace_stats(tr, stats);
    iot_trace_close(tr);
    return (long)n;
}

/* One chunk of records rec[0..len) of thread 7, alone in path. */
void spill_chunk(const char *path, const uint8_t *rec, size_t len, uint32_t nrec, int64_t base_t)
{
    struct iot_chunker *c = iot_chunker_create(1);
    struct iot_chunk_hdr h = { .version = IOT_FORMAT_VERSION, .pid = 7, .tid = 7,
                               .chain_id = 1, .nrec = nrec, .base_t = base_t,
                               .bytes = (uint32_t)len };
    static unsigned char frame[8192];
    size_t n = iot_chunk_compress(c, &h, rec, frame, sizeof(frame));

    CU_ASSERT_FATAL(n > 0);
    spill(path, frame, n);
    iot_chunker_free(c);
}
