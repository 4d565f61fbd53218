/* The strace unit tests' reading of fixture logs (strace_evs.h). */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strace_evs.h"

struct strace_src *evs_open_logs(struct infiles *pool, const char *const *paths, size_t n,
                                 struct iot_strtab *st, char *err)
{
    struct infile *files[8];
    char peek[INFILE_PEEK];
    size_t npeek;

    for (size_t i = 0; i < n && i < 8; i++) {
        files[i] = infile_open(pool, paths[i], peek, &npeek);
        if (!files[i]) {
            snprintf(err, IOT_ERRBUF_SIZE, "cannot open '%s'", paths[i]);
            return NULL;
        }
    }
    return strace_open_files(files, paths, n, st, err);
}

int evs_load(struct evs *e, const char *const *names, size_t n)
{
    char err[IOT_ERRBUF_SIZE], paths[8][256];
    const char *pp[8];
    size_t cap = 0;
    struct iot_event ev;
    int rc;

    memset(e, 0, sizeof(*e));
    for (size_t i = 0; i < n && i < 8; i++) {
        snprintf(paths[i], sizeof(paths[i]), FIXTURES "%s", names[i]);
        pp[i] = paths[i];
    }
    e->st = iot_strtab_create();
    e->pool = infiles_create();
    e->src = evs_open_logs(e->pool, pp, n, e->st, err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e->src);
    while ((rc = strace_next(e->src, &ev, err)) == 1) {
        if (ev.kind == IOT_EV_CALL && ev.op == IOT_OP_CWD) {
            if (e->ncwd < sizeof(e->cwd) / sizeof(e->cwd[0])) {
                e->cwd[e->ncwd].pid = ev.pid;
                e->cwd[e->ncwd].path = ev.path;
            }
            e->ncwd++;
            continue;
        }
        if (e->n == cap) {
            cap = cap ? cap * 2 : 64;
            e->ev = realloc(e->ev, cap * sizeof(*e->ev));
        }
        e->ev[e->n++] = ev;
    }
    strace_info(e->src, &e->info);
    return rc;
}

int evs_load1(struct evs *e, const char *name)
{
    return evs_load(e, &name, 1);
}

void evs_release(struct evs *e)
{
    strace_close(e->src);
    infiles_free(e->pool);
    iot_strtab_free(e->st);
    free(e->ev);
}

size_t evs_count_op(const struct evs *e, int op)
{
    size_t c = 0;

    for (size_t i = 0; i < e->n; i++)
        c += e->ev[i].kind == IOT_EV_CALL && e->ev[i].op == op;
    return c;
}

size_t evs_count_kind(const struct evs *e, int kind)
{
    size_t c = 0;

    for (size_t i = 0; i < e->n; i++)
        c += e->ev[i].kind == kind;
    return c;
}

int evs_ordered(const struct evs *e)
{
    for (size_t i = 1; i < e->n; i++)
        if (e->ev[i].t < e->ev[i - 1].t)
            return 0;
    return 1;
}
