/*
 * issue_detail.h - an issue's detail: the figures its rule stated, as a
 * typed list of (key, value) in the order they were stated. It is what
 * rule.h's detail builder fills (struct rule_detail is this type, opaque to
 * rules), what an old plugin's jansson detail is read into, what the JSON
 * writer writes as the issue's "detail" object and what an issue file's
 * "detail" is parsed back into. Setting a key that is there replaces its
 * value in place, as a JSON object keeps its first place for a key.
 */
#ifndef ISSUE_DETAIL_H
#define ISSUE_DETAIL_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

enum issue_vtype {
    ISSUE_V_NULL = 0,
    ISSUE_V_INT,         /* i */
    ISSUE_V_UINT,        /* u: written as an integer */
    ISSUE_V_DOUBLE,      /* d */
    ISSUE_V_STRING,      /* s, owned */
    ISSUE_V_BOOL,        /* b, 0 or 1 */
    ISSUE_V_LIST,        /* list: values in order */
    ISSUE_V_OBJECT       /* obj: a nested detail (one of open_sites, opened_by) */
};

struct rule_detail;
struct issue_values;

struct issue_value {
    enum issue_vtype type;
    union {
        int64_t i;
        uint64_t u;
        double d;
        char *s;
        int b;
        struct issue_values *list;
        struct rule_detail *obj;
    };
};

struct issue_field {
    char *key;
    struct issue_value v;
};

/* The detail: fields in the order their keys were first set. */
struct rule_detail {
    struct issue_field *v;
    size_t n, cap;
    int oom;                 /* a field was lost for want of memory */
};

struct issue_values {
    struct issue_value *v;
    size_t n, cap;
};

struct rule_detail *issue_detail_new(void);
void issue_detail_free(struct rule_detail *d);
/* The value of key, NULL when d has none (or d is NULL). */
const struct issue_value *issue_detail_get(const struct rule_detail *d, const char *key);
/* key's integer (an int, uint, or a double's integer part), def when none. */
int64_t issue_detail_int(const struct rule_detail *d, const char *key, int64_t def);
/* key's string, NULL when none or not a string. */
const char *issue_detail_str(const struct rule_detail *d, const char *key);

/* Sets key to v (taken: its string, list or object now belong to d);
   replaces an earlier value of key in its place. -1 out of memory (v freed). */
int issue_detail_set(struct rule_detail *d, const char *key, struct issue_value v);
int issue_detail_set_int(struct rule_detail *d, const char *key, int64_t v);
int issue_detail_set_str(struct rule_detail *d, const char *key, const char *s);
/* Appends v to the list at key (made when key has none). */
int issue_detail_append(struct rule_detail *d, const char *key, struct issue_value v);
/* Removes key; nothing when d has none. */
void issue_detail_del(struct rule_detail *d, const char *key);

void issue_value_free(struct issue_value *v);

/* A deep copy of d (NULL out of memory; an empty detail for NULL). */
struct rule_detail *issue_detail_copy(const struct rule_detail *d);
/* Whether a and b hold the same keys with equal values, in any order (as
   two JSON objects are equal). */
int issue_detail_equal(const struct rule_detail *a, const struct rule_detail *b);
/*
 * Sets each of src's fields in d, in src's order (a key d has keeps its
 * place), each value as a JSON issue holds it, so that the detail is the
 * one its issue file parses back into: an unsigned past INT64_MAX becomes
 * a real, a real that is not finite null, a string that is not UTF-8 has
 * U+FFFD for its bad bytes, and a key that is not UTF-8 is left out. src
 * is freed. -1 out of memory (d keeps what was set).
 */
int issue_detail_update(struct rule_detail *d, struct rule_detail *src);

/* JSON: an object read whole (a value jansson holds that the detail has no
   type for, none today, is skipped); NULL when j is not an object or out
   of memory. */
struct rule_detail *issue_detail_from_json(const json_t *j);
/* The detail as a JSON object (a new reference; NULL out of memory). */
json_t *issue_detail_to_json(const struct rule_detail *d);
/* One value as JSON, as issue_detail_to_json writes it (a new reference). */
json_t *issue_value_to_json(const struct issue_value *v);

#endif /* ISSUE_DETAIL_H */
