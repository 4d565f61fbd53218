/* An issue's detail (issue_detail.h), and rule.h's detail builder on it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "issue_detail.h"
#include "rule.h"
#include "text.h"

struct rule_detail *issue_detail_new(void)
{
    return calloc(1, sizeof(struct rule_detail));
}

static void list_free(struct issue_values *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++)
        issue_value_free(&l->v[i]);
    free(l->v);
    free(l);
}

void issue_value_free(struct issue_value *v)
{
    if (v->type == ISSUE_V_STRING)
        free(v->s);
    else if (v->type == ISSUE_V_LIST)
        list_free(v->list);
    else if (v->type == ISSUE_V_OBJECT)
        issue_detail_free(v->obj);
    v->type = ISSUE_V_NULL;
}

void issue_detail_free(struct rule_detail *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->n; i++) {
        free(d->v[i].key);
        issue_value_free(&d->v[i].v);
    }
    free(d->v);
    free(d);
}

static struct issue_field *field(const struct rule_detail *d, const char *key)
{
    for (size_t i = 0; d && i < d->n; i++)
        if (strcmp(d->v[i].key, key) == 0)
            return &d->v[i];
    return NULL;
}

const struct issue_value *issue_detail_get(const struct rule_detail *d, const char *key)
{
    const struct issue_field *f = field(d, key);

    return f ? &f->v : NULL;
}

int64_t issue_detail_int(const struct rule_detail *d, const char *key, int64_t def)
{
    const struct issue_value *v = issue_detail_get(d, key);

    if (!v)
        return def;
    switch (v->type) {
    case ISSUE_V_INT: return v->i;
    case ISSUE_V_UINT: return (int64_t)v->u;
    case ISSUE_V_DOUBLE: return (int64_t)v->d;
    default: return def;
    }
}

const char *issue_detail_str(const struct rule_detail *d, const char *key)
{
    const struct issue_value *v = issue_detail_get(d, key);

    return v && v->type == ISSUE_V_STRING ? v->s : NULL;
}

int issue_detail_set(struct rule_detail *d, const char *key, struct issue_value v)
{
    struct issue_field *f;
    char *k;

    if (!d) {
        issue_value_free(&v);
        return -1;
    }
    if ((f = field(d, key)) != NULL) {
        issue_value_free(&f->v);
        f->v = v;
        return 0;
    }
    if (!(k = strdup(key)) || iot_grow(&d->v, &d->cap, d->n + 1, sizeof(*d->v)) < 0) {
        free(k);
        issue_value_free(&v);
        d->oom = 1;
        return -1;
    }
    d->v[d->n].key = k;
    d->v[d->n++].v = v;
    return 0;
}

int issue_detail_set_int(struct rule_detail *d, const char *key, int64_t v)
{
    return issue_detail_set(d, key, (struct issue_value){.type = ISSUE_V_INT, .i = v});
}

/* A string value: NULL is null. */
static struct issue_value str_value(const char *s)
{
    struct issue_value v = {.type = ISSUE_V_NULL};

    if (s && (v.s = strdup(s)) != NULL)
        v.type = ISSUE_V_STRING;
    return v;
}

int issue_detail_set_str(struct rule_detail *d, const char *key, const char *s)
{
    return issue_detail_set(d, key, str_value(s));
}

int issue_detail_append(struct rule_detail *d, const char *key, struct issue_value v)
{
    struct issue_field *f = field(d, key);
    struct issue_values *l;

    if (!f) {
        struct issue_value lv = {.type = ISSUE_V_LIST, .list = calloc(1, sizeof(*lv.list))};

        if (!lv.list || issue_detail_set(d, key, lv) < 0 || !(f = field(d, key))) {
            issue_value_free(&v);
            return -1;
        }
    }
    if (f->v.type != ISSUE_V_LIST) {
        issue_value_free(&v);
        return -1;
    }
    l = f->v.list;
    if (iot_grow(&l->v, &l->cap, l->n + 1, sizeof(*l->v)) < 0) {
        issue_value_free(&v);
        d->oom = 1;
        return -1;
    }
    l->v[l->n++] = v;
    return 0;
}

void issue_detail_del(struct rule_detail *d, const char *key)
{
    struct issue_field *f = field(d, key);

    if (!f)
        return;
    free(f->key);
    issue_value_free(&f->v);
    memmove(f, f + 1, (size_t)(d->v + d->n - (f + 1)) * sizeof(*f));
    d->n--;
}

static int value_from_json(const json_t *j, struct issue_value *v)
{
    size_t i;
    const json_t *e;

    switch (json_typeof(j)) {
    case JSON_INTEGER: *v = (struct issue_value){.type = ISSUE_V_INT, .i = json_integer_value(j)}; break;
    case JSON_REAL: *v = (struct issue_value){.type = ISSUE_V_DOUBLE, .d = json_real_value(j)}; break;
    case JSON_TRUE: *v = (struct issue_value){.type = ISSUE_V_BOOL, .b = 1}; break;
    case JSON_FALSE: *v = (struct issue_value){.type = ISSUE_V_BOOL, .b = 0}; break;
    case JSON_NULL: *v = (struct issue_value){.type = ISSUE_V_NULL}; break;
    case JSON_STRING:
        *v = (struct issue_value){.type = ISSUE_V_STRING,
                                  .s = strndup(json_string_value(j), json_string_length(j))};
        return v->s ? 0 : -1;
    case JSON_OBJECT:
        *v = (struct issue_value){.type = ISSUE_V_OBJECT, .obj = issue_detail_from_json(j)};
        return v->obj ? 0 : -1;
    case JSON_ARRAY:
        *v = (struct issue_value){.type = ISSUE_V_LIST, .list = calloc(1, sizeof(*v->list))};
        if (!v->list)
            return -1;
        json_array_foreach(j, i, e) {
            struct issue_value ev;

            if (value_from_json(e, &ev) < 0 ||
                iot_grow(&v->list->v, &v->list->cap, v->list->n + 1, sizeof(ev)) < 0) {
                issue_value_free(&ev);
                issue_value_free(v);
                return -1;
            }
            v->list->v[v->list->n++] = ev;
        }
        break;
    }
    return 0;
}

struct rule_detail *issue_detail_from_json(const json_t *j)
{
    struct rule_detail *d;
    const char *key;
    const json_t *e;

    if (!json_is_object(j) || !(d = issue_detail_new()))
        return NULL;
    json_object_foreach((json_t *)j, key, e) {
        struct issue_value v;

        if (value_from_json(e, &v) < 0 || issue_detail_set(d, key, v) < 0) {
            issue_detail_free(d);
            return NULL;
        }
    }
    return d;
}

/* A string as JSON: bytes that are not UTF-8 (a trace's name) show as U+FFFD. */
static json_t *str_json(const char *s)
{
    json_t *j = json_string(s);
    char *fixed;

    if (j)
        return j;
    fixed = iot_utf8_repaired(s);
    j = fixed ? json_string(fixed) : NULL;
    free(fixed);
    return j;
}

static json_t *value_to_json(const struct issue_value *v)
{
    json_t *a;

    switch (v->type) {
    case ISSUE_V_INT: return json_integer(v->i);
    case ISSUE_V_UINT:
        return v->u <= INT64_MAX ? json_integer((json_int_t)v->u) : json_real((double)v->u);
    case ISSUE_V_DOUBLE: return isfinite(v->d) ? json_real(v->d) : json_null();
    case ISSUE_V_STRING: return str_json(v->s);
    case ISSUE_V_BOOL: return json_boolean(v->b);
    case ISSUE_V_OBJECT: return issue_detail_to_json(v->obj);
    case ISSUE_V_LIST:
        a = json_array();
        for (size_t i = 0; a && i < v->list->n; i++)
            json_array_append_new(a, value_to_json(&v->list->v[i]));
        return a;
    case ISSUE_V_NULL: break;
    }
    return json_null();
}

json_t *issue_detail_to_json(const struct rule_detail *d)
{
    json_t *o = json_object();

    for (size_t i = 0; o && d && i < d->n; i++)
        json_object_set_new(o, d->v[i].key, value_to_json(&d->v[i].v));
    return o;
}

json_t *issue_value_to_json(const struct issue_value *v)
{
    return value_to_json(v);
}

/* rule.h's builder: NULL-safe, so that a rule need not test each step. */

struct rule_detail *rule_detail_new(const struct rule_ctx *ctx)
{
    (void)ctx;
    return issue_detail_new();
}

void rule_detail_free(struct rule_detail *d)
{
    issue_detail_free(d);
}

void rule_detail_int(struct rule_detail *d, const char *key, int64_t v)
{
    if (d)
        issue_detail_set(d, key, (struct issue_value){.type = ISSUE_V_INT, .i = v});
}

void rule_detail_uint(struct rule_detail *d, const char *key, uint64_t v)
{
    if (d)
        issue_detail_set(d, key, (struct issue_value){.type = ISSUE_V_UINT, .u = v});
}

void rule_detail_double(struct rule_detail *d, const char *key, double v)
{
    if (d)
        issue_detail_set(d, key, (struct issue_value){.type = ISSUE_V_DOUBLE, .d = v});
}

void rule_detail_string(struct rule_detail *d, const char *key, const char *v)
{
    if (d)
        issue_detail_set(d, key, str_value(v));
}

void rule_detail_bool(struct rule_detail *d, const char *key, int v)
{
    if (d)
        issue_detail_set(d, key, (struct issue_value){.type = ISSUE_V_BOOL, .b = v != 0});
}

void rule_detail_ints(struct rule_detail *d, const char *key, const int64_t *v, size_t n)
{
    struct issue_value lv = {.type = ISSUE_V_LIST};

    if (!d || !(lv.list = calloc(1, sizeof(*lv.list))))
        return;
    if (n && iot_grow(&lv.list->v, &lv.list->cap, n, sizeof(*lv.list->v)) < 0) {
        issue_value_free(&lv);
        return;
    }
    for (size_t i = 0; i < n; i++)
        lv.list->v[lv.list->n++] = (struct issue_value){.type = ISSUE_V_INT, .i = v[i]};
    issue_detail_set(d, key, lv);
}

struct rule_detail *rule_detail_add_object(struct rule_detail *d, const char *key)
{
    struct issue_value v = {.type = ISSUE_V_OBJECT, .obj = d ? issue_detail_new() : NULL};
    struct rule_detail *o = v.obj;

    if (!o || issue_detail_append(d, key, v) < 0)
        return NULL;
    return o;
}

/* ---- copies, equality and merging ---- */

static int value_copy(const struct issue_value *v, struct issue_value *out)
{
    *out = *v;
    switch (v->type) {
    case ISSUE_V_STRING:
        return (out->s = strdup(v->s)) != NULL ? 0 : (out->type = ISSUE_V_NULL, -1);
    case ISSUE_V_OBJECT:
        return (out->obj = issue_detail_copy(v->obj)) != NULL ? 0 : (out->type = ISSUE_V_NULL, -1);
    case ISSUE_V_LIST:
        if (!(out->list = calloc(1, sizeof(*out->list))))
            return out->type = ISSUE_V_NULL, -1;
        for (size_t i = 0; i < v->list->n; i++) {
            struct issue_value e;

            if (value_copy(&v->list->v[i], &e) < 0 ||
                iot_grow(&out->list->v, &out->list->cap, out->list->n + 1, sizeof(e)) < 0) {
                issue_value_free(&e);
                issue_value_free(out);
                return -1;
            }
            out->list->v[out->list->n++] = e;
        }
        return 0;
    default:
        return 0;
    }
}

struct rule_detail *issue_detail_copy(const struct rule_detail *d)
{
    struct rule_detail *c = issue_detail_new();

    for (size_t i = 0; c && d && i < d->n; i++) {
        struct issue_value v;

        if (value_copy(&d->v[i].v, &v) < 0 || issue_detail_set(c, d->v[i].key, v) < 0) {
            issue_detail_free(c);
            return NULL;
        }
    }
    return c;
}

static int value_equal(const struct issue_value *a, const struct issue_value *b)
{
    if (a->type != b->type)
        return 0;
    switch (a->type) {
    case ISSUE_V_NULL: return 1;
    case ISSUE_V_INT: return a->i == b->i;
    case ISSUE_V_UINT: return a->u == b->u;
    case ISSUE_V_DOUBLE: return a->d == b->d;
    case ISSUE_V_STRING: return strcmp(a->s, b->s) == 0;
    case ISSUE_V_BOOL: return a->b == b->b;
    case ISSUE_V_OBJECT: return issue_detail_equal(a->obj, b->obj);
    case ISSUE_V_LIST:
        if (a->list->n != b->list->n)
            return 0;
        for (size_t i = 0; i < a->list->n; i++)
            if (!value_equal(&a->list->v[i], &b->list->v[i]))
                return 0;
        return 1;
    }
    return 0;
}

int issue_detail_equal(const struct rule_detail *a, const struct rule_detail *b)
{
    size_t na = a ? a->n : 0, nb = b ? b->n : 0;

    if (na != nb)
        return 0;
    for (size_t i = 0; i < na; i++) {
        const struct issue_value *v = issue_detail_get(b, a->v[i].key);

        if (!v || !value_equal(&a->v[i].v, v))
            return 0;
    }
    return 1;
}

static int as_json(struct issue_value *v);

/* d's fields as JSON holds them (issue_detail_update); keys that are not
   UTF-8 removed. */
static int detail_as_json(struct rule_detail *d)
{
    size_t i = 0;

    while (i < d->n) {
        if (!iot_utf8_valid(d->v[i].key, strlen(d->v[i].key))) {
            issue_detail_del(d, d->v[i].key);
            continue;
        }
        if (as_json(&d->v[i++].v) < 0)
            return -1;
    }
    return 0;
}

static int as_json(struct issue_value *v)
{
    char *fixed;

    switch (v->type) {
    case ISSUE_V_UINT:
        if (v->u <= INT64_MAX)
            *v = (struct issue_value){.type = ISSUE_V_INT, .i = (int64_t)v->u};
        else
            *v = (struct issue_value){.type = ISSUE_V_DOUBLE, .d = (double)v->u};
        return 0;
    case ISSUE_V_DOUBLE:
        if (!isfinite(v->d))
            v->type = ISSUE_V_NULL;
        return 0;
    case ISSUE_V_STRING:
        if (iot_utf8_valid(v->s, strlen(v->s)))
            return 0;
        if (!(fixed = iot_utf8_repaired(v->s)))
            return -1;
        free(v->s);
        v->s = fixed;
        return 0;
    case ISSUE_V_OBJECT:
        return detail_as_json(v->obj);
    case ISSUE_V_LIST:
        for (size_t i = 0; i < v->list->n; i++)
            if (as_json(&v->list->v[i]) < 0)
                return -1;
        return 0;
    default:
        return 0;
    }
}

int issue_detail_update(struct rule_detail *d, struct rule_detail *src)
{
    int rc = 0;

    if (!src)
        return 0;
    if (detail_as_json(src) < 0)
        rc = -1;
    for (size_t i = 0; i < src->n; i++) {
        if (issue_detail_set(d, src->v[i].key, src->v[i].v) < 0)
            rc = -1;
        src->v[i].v.type = ISSUE_V_NULL;  /* d has it now, or it was freed */
    }
    issue_detail_free(src);
    return rc;
}
