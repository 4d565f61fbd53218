/* One issue as a typed record (issue_rec.h). */
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "issue.h"
#include "issue_rec.h"

/* Reals with 15 significant digits, as the JSON writers dump them. */
#define REALS JSON_REAL_PRECISION(15)

void issue_frames_release(struct issue_frames *fr)
{
    for (size_t i = 0; i < fr->n; i++) {
        free(fr->v[i].function);
        free(fr->v[i].file);
        free(fr->v[i].module);
        free(fr->v[i].build_id);
    }
    free(fr->v);
    fr->v = NULL;
    fr->n = 0;
}

void issue_free(struct issue *is)
{
    if (!is)
        return;
    free(is->process);
    free(is->exe);
    free(is->hint);
    free(is->path);
    free(is->thread);
    free(is->stack);
    free(is->rule);
    free(is->fingerprint);
    free(is->message);
    free(is->group);
    issue_detail_free(is->detail);
    free(is->path_hex);
    issue_frames_release(&is->frames);
    free(is->fix);
    free(is->open_stack);
    issue_frames_release(&is->open_frames);
    issue_detail_free(is->labels);
    json_decref(is->raw);
    free(is);
}

/* ---- reading ---- */

static char *str_of(const json_t *o, const char *k)
{
    const json_t *j = json_object_get(o, k);

    return json_is_string(j) ? strndup(json_string_value(j), json_string_length(j)) : NULL;
}

static int64_t int_of(const json_t *o, const char *k)
{
    return (int64_t)json_integer_value(json_object_get(o, k));
}

static void frames_from_json(const json_t *a, struct issue_frames *fr)
{
    size_t i, n = json_array_size(a);
    const json_t *f;

    if (!n || !(fr->v = calloc(n, sizeof(*fr->v))))
        return;
    json_array_foreach(a, i, f) {
        struct issue_frame *o = &fr->v[fr->n++];
        const json_t *off = json_object_get(f, "offset");

        o->function = str_of(f, "function");
        o->file = str_of(f, "file");
        o->module = str_of(f, "module");
        o->build_id = str_of(f, "build_id");
        o->line = int_of(f, "line");
        o->has_offset = json_is_integer(off);
        o->offset = (uint64_t)json_integer_value(off);
        o->inlined = json_is_true(json_object_get(f, "inlined"));
    }
}

/* impact's members, declared once: key, bit, where an integer goes */
static const struct {
    const char *key;
    unsigned bit;
    size_t at;               /* offsetof the int64_t member; 0 for the reals */
} impact_ints[] = {
    {"excess_bytes", ISSUE_IMPACT_EXCESS_BYTES, offsetof(struct issue_impact, excess_bytes)},
    {"excess_syncs", ISSUE_IMPACT_EXCESS_SYNCS, offsetof(struct issue_impact, excess_syncs)},
    {"excess_opens", ISSUE_IMPACT_EXCESS_OPENS, offsetof(struct issue_impact, excess_opens)},
    {"excess_calls", ISSUE_IMPACT_EXCESS_CALLS, offsetof(struct issue_impact, excess_calls)},
    {"handles", ISSUE_IMPACT_HANDLES, offsetof(struct issue_impact, handles)},
};
#define NIMPACT_INTS (sizeof(impact_ints) / sizeof(impact_ints[0]))

static int64_t *impact_int(struct issue_impact *im, size_t i)
{
    return (int64_t *)((char *)im + impact_ints[i].at);
}

static void impact_from_json(const json_t *o, struct issue_impact *im)
{
    const json_t *t = json_object_get(o, "time_ms");

    if (t) {
        im->has |= ISSUE_IMPACT_TIME;
        im->time_known = json_is_number(t);
        im->time_ms = json_number_value(t);
    }
    if (json_object_get(o, "model_ms")) {
        im->has |= ISSUE_IMPACT_MODEL;
        im->model_ms = json_number_value(json_object_get(o, "model_ms"));
    }
    if (json_object_get(o, "io_share")) {
        im->has |= ISSUE_IMPACT_SHARE;
        im->io_share = json_number_value(json_object_get(o, "io_share"));
    }
    for (size_t i = 0; i < NIMPACT_INTS; i++)
        if (json_object_get(o, impact_ints[i].key)) {
            im->has |= impact_ints[i].bit;
            *impact_int(im, i) = int_of(o, impact_ints[i].key);
        }
}

/* Whether the record writes j back byte for byte. */
static int writes_back(const struct issue *is, const json_t *j)
{
    json_t *back = issue_to_json(is);
    char *a = json_dumps(j, JSON_COMPACT | REALS), *b = back ? json_dumps(back, JSON_COMPACT | REALS) : NULL;
    int same = a && b && strcmp(a, b) == 0;

    free(a);
    free(b);
    json_decref(back);
    return same;
}

struct issue *issue_from_json(const json_t *j)
{
    struct issue *is;
    const json_t *v;

    if (!json_is_object(j) || !(is = calloc(1, sizeof(*is))))
        return NULL;
    is->type = (int)int_of(j, "type");
    is->process = str_of(j, "process");
    is->time = int_of(j, "time");
    is->path = str_of(j, "path");
    is->size = int_of(j, "size");
    is->op = int_of(j, "op");
    is->buffer = int_of(j, "buffer");
    is->cost = int_of(j, "cost");
    is->op_type = (int)int_of(j, "opType");
    is->op_size = int_of(j, "opSize");
    is->thread = str_of(j, "thread");
    is->stack = str_of(j, "stack");
    is->repeat = int_of(j, "repeat");
    is->rule = str_of(j, "rule");
    is->pid = (int32_t)int_of(j, "pid");
    is->tid = (int32_t)int_of(j, "tid");
    is->fingerprint = str_of(j, "fingerprint");
    is->message = str_of(j, "message");
    v = json_object_get(j, "detail");
    is->detail = json_is_object(v) ? issue_detail_from_json(v) : issue_detail_new();
    if ((is->path_hex = str_of(j, "path_hex")) != NULL)
        is->has |= ISSUE_HAS_PATH_HEX;
    if ((v = json_object_get(j, "frames")) != NULL) {
        is->has |= ISSUE_HAS_FRAMES;
        frames_from_json(v, &is->frames);
    }
    if ((is->fix = str_of(j, "fix")) != NULL)
        is->has |= ISSUE_HAS_FIX;
    if ((is->open_stack = str_of(j, "open_stack")) != NULL)
        is->has |= ISSUE_HAS_OPEN_SITE;
    frames_from_json(json_object_get(j, "open_frames"), &is->open_frames);
    if ((v = json_object_get(j, "impact")) != NULL) {
        is->has |= ISSUE_HAS_IMPACT;
        impact_from_json(v, &is->impact);
    }
    is->severity = ISSUE_MEDIUM;
    if ((v = json_object_get(j, "severity")) != NULL) {
        int sev = issue_severity_parse(json_string_value(v));

        is->has |= ISSUE_HAS_SEVERITY;
        if (sev >= 0)
            is->severity = sev;
    }
    if ((v = json_object_get(j, "labels")) != NULL) {
        is->has |= ISSUE_HAS_LABELS;
        is->labels = issue_detail_from_json(v);
    }
    if ((is->group = str_of(j, "group")) != NULL)
        is->has |= ISSUE_HAS_GROUP;
    if ((is->hint = str_of(j, "hint")) != NULL)
        is->has |= ISSUE_HAS_HINT;
    if ((is->exe = str_of(j, "exe")) != NULL)
        is->has |= ISSUE_HAS_EXE;
    if (!is->detail) {
        issue_free(is);
        return NULL;
    }
    if (!writes_back(is, j))
        is->raw = json_deep_copy(j);
    return is;
}

/* ---- writing ---- */

static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *frames_to_json(const struct issue_frames *fr)
{
    json_t *a = json_array();

    for (size_t i = 0; a && i < fr->n; i++) {
        const struct issue_frame *f = &fr->v[i];

        json_array_append_new(a, json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:b}",
                                           "function", str_or_null(f->function),
                                           "file", str_or_null(f->file),
                                           "line", f->line ? json_integer(f->line) : json_null(),
                                           "module", str_or_null(f->module),
                                           "build_id", str_or_null(f->build_id),
                                           "offset", f->has_offset ? json_integer((json_int_t)f->offset)
                                                                   : json_null(),
                                           "inlined", f->inlined));
    }
    return a;
}

static json_t *impact_to_json(const struct issue_impact *im)
{
    json_t *o = json_object();

    if (!o)
        return NULL;
    if (im->has & ISSUE_IMPACT_TIME)
        json_object_set_new(o, "time_ms", im->time_known ? json_real(im->time_ms) : json_null());
    if (im->has & ISSUE_IMPACT_MODEL)
        json_object_set_new(o, "model_ms", json_real(im->model_ms));
    if (im->has & ISSUE_IMPACT_SHARE)
        json_object_set_new(o, "io_share", json_real(im->io_share));
    for (size_t i = 0; i < NIMPACT_INTS; i++)
        if (im->has & impact_ints[i].bit)
            json_object_set_new(o, impact_ints[i].key,
                                json_integer(*impact_int((struct issue_impact *)im, i)));
    return o;
}

json_t *issue_to_json(const struct issue *is)
{
    json_t *o;

    if (is->raw)
        return json_incref(is->raw);
    o = json_pack("{s:s,s:i,s:o,s:I,s:o,s:I,s:I,s:I,s:I,s:i,s:I,s:o,s:o,s:I,"
                  "s:o,s:i,s:i,s:o,s:o,s:o}",
                  "tag", "io",
                  "type", is->type,
                  "process", str_or_null(is->process),
                  "time", (json_int_t)is->time,
                  "path", str_or_null(is->path),
                  "size", (json_int_t)is->size,
                  "op", (json_int_t)is->op,
                  "buffer", (json_int_t)is->buffer,
                  "cost", (json_int_t)is->cost,
                  "opType", is->op_type,
                  "opSize", (json_int_t)is->op_size,
                  "thread", str_or_null(is->thread),
                  "stack", str_or_null(is->stack),
                  "repeat", (json_int_t)is->repeat,
                  "rule", str_or_null(is->rule),
                  "pid", (int)is->pid,
                  "tid", (int)is->tid,
                  "fingerprint", str_or_null(is->fingerprint),
                  "message", str_or_null(is->message),
                  "detail", issue_detail_to_json(is->detail));
    if (!o)
        return NULL;
    if (is->has & ISSUE_HAS_PATH_HEX)
        json_object_set_new(o, "path_hex", json_string(is->path_hex));
    if (is->has & ISSUE_HAS_FRAMES)
        json_object_set_new(o, "frames", frames_to_json(&is->frames));
    if (is->has & ISSUE_HAS_FIX)
        json_object_set_new(o, "fix", json_string(is->fix));
    if (is->has & ISSUE_HAS_OPEN_SITE) {
        json_object_set_new(o, "open_stack", json_string(is->open_stack));
        json_object_set_new(o, "open_frames", frames_to_json(&is->open_frames));
    }
    if (is->has & ISSUE_HAS_IMPACT)
        json_object_set_new(o, "impact", impact_to_json(&is->impact));
    if (is->has & ISSUE_HAS_SEVERITY)
        json_object_set_new(o, "severity", json_string(issue_severity_name(is->severity)));
    if (is->has & ISSUE_HAS_LABELS)
        json_object_set_new(o, "labels", issue_detail_to_json(is->labels));
    if (is->has & ISSUE_HAS_GROUP)
        json_object_set_new(o, "group", json_string(is->group));
    if (is->has & ISSUE_HAS_EXE)
        json_object_set_new(o, "exe", json_string(is->exe));
    if (is->has & ISSUE_HAS_HINT)
        json_object_set_new(o, "hint", json_string(is->hint));
    return o;
}

/* ---- lists ---- */

int issue_list_add(struct issue_list *list, struct issue *is)
{
    if (iot_grow(&list->v, &list->cap, list->n + 1, sizeof(*list->v)) < 0) {
        issue_free(is);
        return -1;
    }
    list->v[list->n++] = is;
    return 0;
}

int issue_list_from_json(struct issue_list *list, const json_t *a)
{
    size_t i;
    const json_t *j;

    json_array_foreach(a, i, j) {
        struct issue *is;

        if (!json_is_object(j))
            continue;
        if (!(is = issue_from_json(j)) || issue_list_add(list, is) < 0)
            return -1;
    }
    return 0;
}

json_t *issue_list_to_json(const struct issue_list *list)
{
    json_t *a = json_array();

    for (size_t i = 0; a && list && i < list->n; i++)
        json_array_append_new(a, issue_to_json(list->v[i]));
    return a;
}

void issue_list_release(struct issue_list *list)
{
    for (size_t i = 0; i < list->n; i++)
        issue_free(list->v[i]);
    free(list->v);
    *list = (struct issue_list){0};
}

int64_t issue_occurrences(const struct issue *is)
{
    return issue_detail_int(is->detail, "occurrences", 1);
}

_Static_assert(3 + NIMPACT_INTS == ISSUE_IMPACT_NFIGURES, "an impact figure without room");

size_t issue_impact_figures(const struct issue_impact *im, struct issue_figure *out)
{
    size_t n = 0;

    if (im->has & ISSUE_IMPACT_TIME)
        out[n++] = (struct issue_figure){"time_ms", {.type = im->time_known ? ISSUE_V_DOUBLE
                                                                            : ISSUE_V_NULL,
                                                     .d = im->time_ms}};
    if (im->has & ISSUE_IMPACT_MODEL)
        out[n++] = (struct issue_figure){"model_ms", {.type = ISSUE_V_DOUBLE, .d = im->model_ms}};
    if (im->has & ISSUE_IMPACT_SHARE)
        out[n++] = (struct issue_figure){"io_share", {.type = ISSUE_V_DOUBLE, .d = im->io_share}};
    for (size_t i = 0; i < NIMPACT_INTS; i++)
        if (im->has & impact_ints[i].bit)
            out[n++] = (struct issue_figure){impact_ints[i].key,
                                             {.type = ISSUE_V_INT,
                                              .i = *impact_int((struct issue_impact *)im, i)}};
    return n;
}
