/*
 * engine_rig.c - the engine's unit tests' rig (engine_rig.h): an engine
 * where only a capture rule runs, and events made one call at a time.
 */
#include <CUnit/CUnit.h>
#include <string.h>

#include "engine_rig.h"

struct rule_session got[MAXS];
size_t ngot;

static void capture(void *state, const struct rule_ctx *ctx, const struct rule_session *s)
{
    (void)state;
    (void)ctx;
    if (ngot < MAXS)
        got[ngot++] = *s;
}

static const struct rule capture_rule = {
    .abi = RULE_ABI_VERSION, .name = "capture", .type = 100, .on_session = capture,
};
static const struct rule *const capture_rules[] = {&capture_rule};

void rig_init(struct rig *r)
{
    memset(r, 0, sizeof(*r));
    ngot = 0;
    CU_ASSERT_EQUAL_FATAL(config_init(&r->cfg), 0);
    /* only the capture rule runs */
    r->saved = r->cfg.rules;
    r->nsaved = r->cfg.nrules;
    r->cfg.rules = capture_rules;
    r->cfg.nrules = 1;
    r->cfg.enabled[0] = 1;
    r->is = issues_create(&r->cfg);
    r->e = engine_create(&r->cfg, r->is, NULL);
    r->st = iot_strtab_create();
    CU_ASSERT_PTR_NOT_NULL_FATAL(r->e);
}

void rig_free(struct rig *r)
{
    engine_free(r->e);
    issues_free(r->is);
    r->cfg.rules = r->saved;
    r->cfg.nrules = r->nsaved;
    config_release(&r->cfg);
    iot_strtab_free(r->st);
}

const char *S(struct rig *r, const char *s)
{
    return iot_intern(r->st, s, strlen(s));
}

void proc(struct rig *r, int pid, int ppid, const char *exe)
{
    struct iot_event ev = {.kind = IOT_EV_PROCESS, .pid = pid, .tid = pid, .ppid = ppid,
                           .t = r->t, .exe = S(r, exe), .start_unix_ns = 1000000000000};

    engine_event(r->e, &ev);
}

void exit_ev(struct rig *r, int pid, int sig)
{
    struct iot_event ev = {.kind = IOT_EV_EXIT, .pid = pid, .t = r->t += 1000};

    if (sig) {
        ev.has = IOT_HAS_SIGNAL;
        ev.signal = sig;
        ev.status = 128 + sig;
    }
    engine_event(r->e, &ev);
}

int unmarked;
int as_records;
size_t nrecords;

/* ev as a struct engine_call, when one can hold it (engine.h) */
static int as_record(const struct iot_event *ev, struct engine_call *c)
{
    const uint32_t fits = IOT_HAS_FD | IOT_HAS_SIZE | IOT_HAS_OFFSET | IOT_HAS_WHENCE;

    if (ev->plain != 1 || (ev->has & ~fits) || ev->bufmode || (uint32_t)ev->whence > UINT8_MAX)
        return 0;
    *c = (struct engine_call){.pid = ev->pid, .tid = ev->tid, .t = ev->t, .dur = ev->dur,
                              .ret = ev->ret, .size = ev->size, .offset = ev->offset,
                              .fd = ev->fd, .op = ev->op, .whence = (uint8_t)ev->whence,
                              .has = (uint16_t)ev->has};
    return 1;
}

void call(struct rig *r, int pid, int tid, unsigned op, int64_t ret, int64_t dur,
                 struct iot_event ev)
{
    ev.kind = IOT_EV_CALL;
    ev.op = (uint8_t)op;
    ev.pid = pid;
    ev.tid = tid;
    ev.ret = ret;
    ev.t = r->t += 1000;
    ev.dur = dur;
    ev.plain = !unmarked && iot_event_plain(&ev);
    r->t += dur;
    if (as_records) {
        struct engine_call c;

        if (as_record(&ev, &c)) {
            nrecords++;
            engine_calls(r->e, &c, 1);
            return;
        }
    }
    engine_event(r->e, &ev);
}

void open_(struct rig *r, int pid, int fd, const char *path, int64_t flags)
{
    call(r, pid, pid, IOT_OP_OPEN, fd, 1000,
         (struct iot_event){.has = IOT_HAS_PATH | IOT_HAS_FLAGS, .path = S(r, path), .flags = flags});
}
