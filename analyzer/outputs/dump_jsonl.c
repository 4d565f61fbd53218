/*
 * `ioanalyze dump --format jsonl`: the SPEC's JSONL events, written through
 * the replay engine so that every line also says which file and process it
 * belongs to, and with one schema for every line, so that pandas and
 * DuckDB read it with their default settings (docs/analyzer.md, "JSONL
 * for data tools"):
 *
 *  - every line has every key of the schema, in the same order, null where
 *    it does not apply: DuckDB's read_json infers the columns from the first
 *    lines it samples, and drops keys it meets only later (stdio's `stream`,
 *    `mode`, `bufmode` in a trace whose stdio calls come late);
 *  - every call has `path` (the fd's file when the call has no path of its
 *    own) and `process`, so GROUP BY path needs no join;
 *  - `unix_ms` (every line) and `start_unix_ms` (process lines) are
 *    integers below 2^53: a double holds them exactly, where
 *    `start_unix_ns` (kept, exact for JSON readers with 64-bit integers) is
 *    rounded by jq 1.6 and by pandas once the column holds a null.
 *
 * ioanalyze's own JSONL reader takes null as absent, so the dump reads back
 * as the same events.
 */
#include <inttypes.h>
#include <string.h>

#include "dump_jsonl.h"
#include "path.h"

/* Every line is some 30 keys, most of them null: the unlocked stdio calls
   and a hand-made integer keep the writing about as fast as the reading. */
static void put(FILE *f, const char *s)
{
    fputs_unlocked(s, f);
}

static void str(FILE *f, const char *s)
{
    if (s)
        iot_json_write_string(f, s, strlen(s));
    else
        put(f, "null");
}

static void key(FILE *f, const char *k)
{
    put(f, ",\"");
    put(f, k);
    put(f, "\":");
}

static void put_i64(FILE *f, int64_t v)
{
    char buf[24], *p = buf + sizeof(buf);
    uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

    *--p = 0;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--p = '-';
    put(f, p);
}

static void key_i64(FILE *f, const char *k, int have, int64_t v)
{
    key(f, k);
    if (have)
        put_i64(f, v);
    else
        put(f, "null");
}

static void key_str(FILE *f, const char *k, const char *s)
{
    key(f, k);
    str(f, s);
}

static const char *const kind_names[] = {
    [IOT_EV_CALL] = "call", [IOT_EV_PROCESS] = "process", [IOT_EV_THREAD] = "thread",
    [IOT_EV_EXIT] = "exit", [IOT_EV_MODULE] = "module",
};

/* The fields of a call (IOT_FIELDS, in their order): the value, or null. The
   path of a call without one of its own is the fd's (engine_call_path). */
static void call_fields(FILE *f, const struct iot_event *ev, const char *path)
{
    uint32_t has = ev->kind == IOT_EV_CALL ? ev->has : 0;

#define JF_I32(k, v)     key_i64(f, k, 1, (int64_t)(v))
#define JF_U32(k, v)     key_i64(f, k, 1, (int64_t)(v))
#define JF_I64(k, v)     key_i64(f, k, 1, (int64_t)(v))
#define JF_OCT(k, v)     key_i64(f, k, 1, (int64_t)(v))
#define JF_HEX(k, v)     (key(f, k), fprintf(f, "%" PRIu64, (uint64_t)(v)))
#define JF_STR(k, v)     key_str(f, k, v)
#define JF_BUFMODE(k, v) key_str(f, k, iot_bufmode_name(v) ? iot_bufmode_name(v) : "full")
#define JF_FIELD_(name, bit, member, type, k)                          \
    if (IOT_HAS_##name == IOT_HAS_PATH)                                 \
        key_str(f, k, path);                                            \
    else if (has & IOT_HAS_##name)                                      \
        JF_##type(k, ev->member);                                       \
    else                                                                \
        key_str(f, k, NULL);
    IOT_FIELDS(JF_FIELD_)
#undef JF_FIELD_
}

void dump_jsonl_observe(void *arg, struct engine *e, const struct iot_event *const *evs, size_t n)
{
    FILE *f = arg;

    for (size_t i = 0; i < n; i++) {
        const struct iot_event *ev = evs[i];
        int call = ev->kind == IOT_EV_CALL, proc = ev->kind == IOT_EV_PROCESS;
        int exit = ev->kind == IOT_EV_EXIT;
        int64_t ms = 0;
        /* a process line names its new image: the engine has not seen it yet */
        const char *process = proc ? engine_image_name(ev) : engine_proc_name_of(e, ev->pid);
        const char *path = call ? engine_call_path(e, ev)
                           : ev->kind == IOT_EV_MODULE ? ev->path : NULL;
        int have_ms = proc ? ev->start_unix_ns != 0 : engine_unix_ms(e, ev->pid, ev->t, &ms);

        if (ev->kind >= sizeof(kind_names) / sizeof(kind_names[0]) || !kind_names[ev->kind])
            continue;
        if (proc)
            ms = ev->start_unix_ns / 1000000;
        put(f, "{\"ev\":\"");
        put(f, kind_names[ev->kind]);
        put(f, "\",\"t\":");
        put_i64(f, ev->t);
        key_i64(f, "unix_ms", have_ms, ms);
        key_i64(f, "pid", 1, ev->pid);
        key_i64(f, "tid", 1, ev->tid ? ev->tid : ev->pid);
        key_str(f, "process", process);
        key_str(f, "op", call ? iot_op_name(ev->op) : NULL);
        key_i64(f, "dur", call && !(ev->has & IOT_HAS_NO_DUR), ev->dur);
        key_i64(f, "ret", call, ev->ret);
        call_fields(f, ev, path);
        key_i64(f, "ppid", proc, ev->ppid);
        key_str(f, "exe", proc ? ev->exe : NULL);
        key(f, "cmdline");
        if (proc) {
            put(f, "[");
            for (int a = 0; a < ev->argc; a++) {
                if (a)
                    put(f, ",");
                str(f, ev->argv[a]);
            }
            put(f, "]");
        } else {
            put(f, "null");
        }
        key_i64(f, "start_unix_ns", proc, ev->start_unix_ns);
        key_i64(f, "start_unix_ms", proc, ev->start_unix_ns / 1000000);
        key_str(f, "name", ev->kind == IOT_EV_THREAD ? ev->name : NULL);
        key_i64(f, "status", exit, ev->status);
        key_i64(f, "signal", exit && (ev->has & IOT_HAS_SIGNAL), ev->signal);
        key_i64(f, "bias", ev->kind == IOT_EV_MODULE, (int64_t)ev->bias);
        key_str(f, "build_id", ev->kind == IOT_EV_MODULE ? (ev->build_id ? ev->build_id : "") : NULL);
        put(f, "}\n");
    }
}
