/* The analysis configuration (config.h). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <math.h>
#include <pcre2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "config.h"
#include "registry.h"

struct config_re {
    pcre2_code *code;         /* owned unless shared (re_shared) */
    int shared;
    char *replace;            /* normalize only */
    char *pattern;            /* as written, for messages */
    char *where;              /* "config 'c.json': ignore_paths[0]" or "built-in normalize[2]" */
};

/*
 * The limits every pattern is matched under. Without them a pattern with a
 * nested repeat ("^/data/(a+)+$") backtracks exponentially in the length of
 * a path it almost matches: tens of milliseconds at 30 bytes
 * (docs/performance.md), more than a lifetime at PATH_MAX. Ordinary patterns stay far below them
 * over subjects of PATH_MAX (4096) bytes: the most any of the built-in
 * patterns or of typical ones ("\.tmp$", ".*\.tmp$", "^/data/(?:[^/]+/)*cache/",
 * "^(/[^/]*)*$", "(.*)/(.*)\.(.*)$") needed over 4095-byte paths made to
 * make them work hardest ("/x/x/...", "/aaa...", "/.tmp.tmp...") was a match
 * count of about 8,000 and a depth of about 6,200 (1.5 per byte, a group
 * repeated once per path component). So a limit is a pattern's fault, never
 * a long path's: the match limit is 125 times that, and reaching it costs
 * milliseconds (docs/performance.md).
 *
 * The match limit applies to JIT-compiled patterns too (counted in JIT's own
 * way); the depth limit does not: JIT runs on its 32 KiB stack and fails
 * with PCRE2_ERROR_JIT_STACKLIMIT instead, which "^(/[^/]*)*$" does on a
 * 4095-byte "/x/x/..." path. Such a match is run again by the interpreter,
 * where the depth limit holds; its heap use is about 100-200 bytes a level
 * for a pattern with few groups, so the depth limit also caps it near 20 MB.
 */
#define RE_MATCH_LIMIT 1000000
#define RE_DEPTH_LIMIT 100000

struct config_run {
    pcre2_match_context *mctx;
    char failure[512];        /* the first limit failure; "" while there is none */
};

/*
 * Applied before the config's own patterns, in this order: what differs
 * between two runs of the same program and must not change a fingerprint.
 */
const char *const config_default_normalize[][2] = {
    /* /proc/1234/fd -> /proc/<pid>/fd */
    {"/proc/[0-9]+(?=/|$)", "/proc/<pid>"},
    /* Python tempfile names: /tmp/tmpk3j2_x9a -> /tmp/tmp* */
    {"(?<=/)tmp[a-z0-9_]{8}(?=/|$)", "tmp*"},
    /* mkstemp/mkdtemp/mktemp suffixes: build.Xa81Qz, tmp.aB3dE5fG7h -> build.*
       (6-12 letters/digits with a digit or an upper-case letter in them) */
    {"\\.(?=[A-Za-z]*[0-9]|[a-z0-9]*[A-Z])[A-Za-z0-9]{6,12}(?=/|$)", ".*"},
    /* ... and right under a temp directory whatever the letters: a random
       suffix is all lower-case once in 180 (/tmp/build.neocgg), and a temp
       dir must not change a fingerprint (SPEC). Any directory named tmp,
       temp or _temp is one: /tmp, /var/tmp, a TMPDIR inside a project, a
       CI runner's _temp */
    {"(?:^|/)(?i:_?te?mp)/[^/]*\\K\\.[A-Za-z0-9]{6,12}(?=/|$)", ".*"},
    /* mktemp(1)'s own template, tmp.XXXXXXXXXX, in any directory */
    {"(?<=/)tmp\\K\\.[A-Za-z0-9]{10}(?=/|$)", ".*"},
    /* the temp names tools make with mkstemp("<prefix>XXXXXX"), in any
       directory: gcc's /tmp/ccAb3xYz.s (and .o, .res, .ld), sort -T's
       sortXy12Ab, sed -i's ./sedQ1w2E3; the six characters are random */
    {"(?<=/)(?:cc|sort|sed)\\K[A-Za-z0-9]{6}(?=\\.[A-Za-z0-9]{1,4}$|/|$)", "*"},
    /* ... and "tmp_<what>_XXXXXX": git's tmp_pack_pC7x3d, tmp_idx_, tmp_obj_ */
    {"(?<=/)tmp_[A-Za-z0-9]+_\\K[A-Za-z0-9]{6}(?=/|$)", "*"},
    /* a temp name with a pid or a counter in it: redis's
       temp-rewriteaof-27208.aof and temp-27208.rdb */
    {"(?<=/)(?i:te?mp)[-_](?:[A-Za-z0-9_-]*?[-_])?\\K[0-9]{2,10}(?=\\.|/|$)", "<n>"},
    /* stack frames: the offset into a named function ("read_conf+0x1c (app)")
       changes with every rebuild; a frame without a symbol ("app+0x2bf1a")
       keeps its offset into the module - the only thing that tells two
       functions apart, and the same in every run whatever the load address */
    {"\\+0x[0-9a-fA-F]+(?= \\()", ""},
    {"(?<!\\+)0x[0-9a-fA-F]{5,}", "0x*"},
};
const size_t config_ndefault_normalize =
    sizeof(config_default_normalize) / sizeof(config_default_normalize[0]);

/*
 * Kernel interfaces, and the symbol maps a JIT writes for profilers when
 * asked by a flag (perf's convention: the JVM's -XX:+DumpPerfMapAtExit,
 * node --perf-basic-prof, erl +JPperf true). The maps are the runtime's
 * answer to the flag the report suggests, written one line per compiled
 * function: judging them would blame the program for our own advice.
 */
const char *const config_default_ignore[] = {
    "^/proc/", "^/sys/", "^/dev/", "^/tmp/(?:perf-[0-9]+\\.map|jit-[0-9]+\\.dump)$",
};
const size_t config_ndefault_ignore = sizeof(config_default_ignore) / sizeof(config_default_ignore[0]);

/*
 * Compiled patterns shared by every configuration of the process, by their
 * text: `analyze --each` makes a configuration per trace, and compiling the
 * built-in patterns again (JIT included) was about a third of its CPU on a
 * small trace (docs/performance.md). A compiled pattern is not changed by
 * matching (each match has its own match data), so configurations, and
 * threads, share it. Entries live until the process exits, when they are
 * freed (so a leak checker finds nothing left); past RE_SHARED of them a
 * pattern is compiled for its configuration alone.
 */
#define RE_SHARED 64
static struct {
    char *pattern;
    pcre2_code *code;
} re_shared[RE_SHARED];
static size_t re_nshared;
static pthread_mutex_t re_shared_lock = PTHREAD_MUTEX_INITIALIZER;

/* At exit: no configuration is in use any more. */
static void re_shared_release(void)
{
    for (size_t i = 0; i < re_nshared; i++) {
        pcre2_code_free(re_shared[i].code);
        free(re_shared[i].pattern);
    }
    re_nshared = 0;
}

/* The compiled pattern, shared when it can be (*shared set); NULL with
   *err and *off on a bad pattern. */
static pcre2_code *re_code(const char *pattern, int *shared, int *err, PCRE2_SIZE *off)
{
    pcre2_code *code = NULL;

    pthread_mutex_lock(&re_shared_lock);
    for (size_t i = 0; i < re_nshared && !code; i++)
        if (!strcmp(re_shared[i].pattern, pattern))
            code = re_shared[i].code;
    *shared = code != NULL;
    if (!code) {
        code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, PCRE2_UTF, err, off,
                             NULL);
        if (code) {
            pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
            /* the first entry registers the release (atexit fails only
               when its table is full: the entries are then left to exit) */
            if (re_nshared == 0)
                (void)atexit(re_shared_release);
            if (re_nshared < RE_SHARED &&
                (re_shared[re_nshared].pattern = strdup(pattern)) != NULL) {
                re_shared[re_nshared++].code = code;
                *shared = 1;
            }
        }
    }
    pthread_mutex_unlock(&re_shared_lock);
    return code;
}

static void re_free_one(struct config_re *re)
{
    if (!re->shared)
        pcre2_code_free(re->code);
    free(re->replace);
    free(re->pattern);
    free(re->where);
}

/* origin: the config's name, NULL for a built-in pattern. */
static int re_compile(struct config_re *re, const char *pattern, const char *replace,
                      const char *key, const char *origin, char *errbuf)
{
    int err;
    PCRE2_SIZE off;
    char where[400];

    re->code = re_code(pattern, &re->shared, &err, &off);
    if (!re->code) {
        PCRE2_UCHAR msg[120];

        pcre2_get_error_message(err, msg, sizeof(msg));
        snprintf(errbuf, 256, "%s: bad pattern '%s' at offset %zu: %s", key, pattern,
                 (size_t)off, (char *)msg);
        return -1;
    }
    if (origin)
        snprintf(where, sizeof(where), "config '%.300s': %s", origin, key);
    else
        snprintf(where, sizeof(where), "built-in %s", key);
    re->replace = replace ? strdup(replace) : NULL;
    re->pattern = strdup(pattern);
    re->where = strdup(where);
    if ((replace && !re->replace) || !re->pattern || !re->where) {
        snprintf(errbuf, 256, "out of memory");
        return -1;
    }
    return 0;
}

static void re_free_list(struct config_re *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        re_free_one(&list[i]);
    free(list);
}

/* At most max bytes of s for a one-line message: control characters as
   '?', cut at a character boundary and marked with "..." when longer. */
static void shown(char *dst, size_t max, const char *s)
{
    size_t n = strlen(s), i;

    if (n > max) {
        n = max - 3;
        while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
            n--;
    }
    for (i = 0; i < n; i++)
        dst[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
    strcpy(dst + n, strlen(s) > max ? "..." : "");
}

/* rc from a match on s: when it is a limit, record it (the first one only:
   the user gets one message, about the pattern to fix). 1 when it was. */
static int re_limited(const struct config *c, const struct config_re *re, int rc, const char *s)
{
    char pat[124], text[84];

    if (rc != PCRE2_ERROR_MATCHLIMIT && rc != PCRE2_ERROR_DEPTHLIMIT)
        return 0;
    if (c->run->failure[0])
        return 1;
    shown(pat, 120, re->pattern);
    shown(text, 80, s);
    snprintf(c->run->failure, sizeof(c->run->failure),
             "%s: pattern '%s' exceeds the PCRE2 %s on '%s' (a nested repeat such as"
             " (a+)+ backtracks without end; rewrite the pattern)", re->where, pat,
             rc == PCRE2_ERROR_MATCHLIMIT ? "match limit" : "depth limit", text);
    return 1;
}

static int re_match(const struct config *c, const struct config_re *re, const char *s)
{
    pcre2_match_data *md;
    int rc;

    if (c->run->failure[0])     /* the run fails anyway: spend nothing more */
        return 0;
    md = pcre2_match_data_create_from_pattern(re->code, NULL);
    if (!md)
        return 0;
    rc = pcre2_match(re->code, (PCRE2_SPTR)s, PCRE2_ZERO_TERMINATED, 0, 0, md, c->run->mctx);
    if (rc == PCRE2_ERROR_JIT_STACKLIMIT)
        rc = pcre2_match(re->code, (PCRE2_SPTR)s, PCRE2_ZERO_TERMINATED, 0, PCRE2_NO_JIT, md,
                         c->run->mctx);
    pcre2_match_data_free(md);
    re_limited(c, re, rc, s);
    return rc >= 0;
}

int config_init(struct config *c)
{
    char errbuf[256];

    memset(c, 0, sizeof(*c));
    c->rules = rules_all(&c->nrules);
    c->enabled = calloc(c->nrules, sizeof(*c->enabled));
    c->params = calloc(c->nrules, sizeof(*c->params));
    c->normalize = calloc(config_ndefault_normalize, sizeof(*c->normalize));
    c->ignore = calloc(config_ndefault_ignore, sizeof(*c->ignore));
    c->run = calloc(1, sizeof(*c->run));
    if (!c->enabled || !c->params || !c->normalize || !c->ignore || !c->run)
        goto fail;
    c->run->mctx = pcre2_match_context_create(NULL);
    if (!c->run->mctx)
        goto fail;
    pcre2_set_match_limit(c->run->mctx, RE_MATCH_LIMIT);
    pcre2_set_depth_limit(c->run->mctx, RE_DEPTH_LIMIT);
    for (size_t i = 0; i < c->nrules; i++) {
        c->enabled[i] = 1;
        for (size_t j = 0; j < c->rules[i]->nparams; j++)
            c->params[i][j] = c->rules[i]->params[j].def;
    }
    c->gap_ns = 8000000;
    for (size_t i = 0; i < config_ndefault_normalize; i++, c->nnormalize++) {
        char key[32];

        snprintf(key, sizeof(key), "normalize[%zu]", i);
        if (re_compile(&c->normalize[i], config_default_normalize[i][0],
                       config_default_normalize[i][1], key, NULL, errbuf) < 0)
            goto fail;
    }
    c->ndefault_normalize = c->nnormalize;
    for (size_t i = 0; i < config_ndefault_ignore; i++, c->nignore++) {
        char key[32];

        snprintf(key, sizeof(key), "ignore_paths[%zu]", i);
        if (re_compile(&c->ignore[i], config_default_ignore[i], NULL, key, NULL, errbuf) < 0)
            goto fail;
    }
    return 0;
fail:
    config_release(c);
    return -1;
}

void config_release(struct config *c)
{
    free(c->enabled);
    free(c->params);
    re_free_list(c->main_names, c->nmain_names);
    re_free_list(c->ignore, c->nignore);
    re_free_list(c->normalize, c->nnormalize);
    if (c->run)
        pcre2_match_context_free(c->run->mctx);
    free(c->run);
    memset(c, 0, sizeof(*c));
}

int config_rule_index(const struct config *c, const char *name, size_t len)
{
    for (size_t i = 0; i < c->nrules; i++)
        if (strlen(c->rules[i]->name) == len && memcmp(c->rules[i]->name, name, len) == 0)
            return (int)i;
    return -1;
}

static int param_index(const struct rule *r, const char *name)
{
    for (size_t j = 0; j < r->nparams; j++)
        if (strcmp(r->params[j].name, name) == 0)
            return (int)j;
    return -1;
}

/* Check v against the param's type; 0 ok. */
static int param_value_ok(enum rule_ptype type, double v)
{
    /* bounded so that converting to ns or integers cannot overflow */
    if (isnan(v) || isinf(v) || v > 1e12)
        return 0;
    if (type == RULE_P_INT)
        return v == floor(v) && v >= 0;
    if (type == RULE_P_BOOL)
        return v == 0 || v == 1;
    if (type == RULE_P_CHOICE)
        return v == floor(v) && v >= 0;  /* an index config_choice made */
    return v >= 0;
}

int config_choice(const struct rule_param *p, const char *word, size_t len)
{
    const char *w = p->help, *end = strstr(p->help, ": ");
    int i = 0;

    if (!end)
        return -1;
    while (w < end) {
        const char *bar = memchr(w, '|', (size_t)(end - w));
        const char *stop = bar ? bar : end;

        if ((size_t)(stop - w) == len && memcmp(w, word, len) == 0)
            return i;
        w = stop + 1;
        i++;
    }
    return -1;
}

int config_choice_name(const struct rule_param *p, double v, const char **word)
{
    const char *w = p->help, *end = strstr(p->help, ": ");

    for (int i = 0; end && w < end; i++) {
        const char *bar = memchr(w, '|', (size_t)(end - w));
        const char *stop = bar ? bar : end;

        if (i == (int)v) {
            *word = w;
            return (int)(stop - w);
        }
        w = stop + 1;
    }
    *word = "?";
    return 1;
}

static const char *type_name(enum rule_ptype t)
{
    return t == RULE_P_INT ? "a non-negative integer" : t == RULE_P_BOOL ? "true or false"
           : t == RULE_P_CHOICE ? "one of the words its help lists (ioanalyze rules)"
                                : "a non-negative number";
}

/* Replace a pattern list from a JSON array of strings (or pattern objects). */
static int load_patterns(const json_t *arr, const char *key, int with_replace,
                         struct config_re **list, size_t *n, size_t keep, const char *name,
                         char *errbuf)
{
    size_t i, cnt;
    json_t *v;
    struct config_re *nl;

    if (!json_is_array(arr)) {
        snprintf(errbuf, 256, "%s: expected an array", key);
        return -1;
    }
    cnt = json_array_size(arr);
    nl = calloc(keep + cnt + 1, sizeof(*nl));
    if (!nl) {
        snprintf(errbuf, 256, "out of memory");
        return -1;
    }
    if (keep)
        memcpy(nl, *list, keep * sizeof(*nl));
    for (i = keep; i < *n; i++)
        re_free_one(&(*list)[i]);
    free(*list);
    *list = nl;
    *n = keep;
    json_array_foreach(arr, i, v) {
        const char *pat, *rep = NULL;
        char k[96];

        snprintf(k, sizeof(k), "%s[%zu]", key, i);
        if (with_replace) {
            json_t *p = json_object_get(v, "pattern"), *r = json_object_get(v, "replace");
            const char *extra;
            json_t *ev;

            if (!json_is_object(v) || !json_is_string(p) || (r && !json_is_string(r))) {
                snprintf(errbuf, 256, "%s: expected {\"pattern\": STRING, \"replace\": STRING}", k);
                return -1;
            }
            json_object_foreach(v, extra, ev) {
                if (strcmp(extra, "pattern") && strcmp(extra, "replace")) {
                    snprintf(errbuf, 256, "%s.%s: unknown key", k, extra);
                    return -1;
                }
            }
            pat = json_string_value(p);
            rep = r ? json_string_value(r) : "";
        } else {
            if (!json_is_string(v)) {
                snprintf(errbuf, 256, "%s: expected a string", k);
                return -1;
            }
            pat = json_string_value(v);
        }
        if (re_compile(&nl[*n], pat, rep, k, name, errbuf) < 0)
            return -1;
        (*n)++;
    }
    return 0;
}

static int load_rules(struct config *c, json_t *rules, char *errbuf)
{
    const char *rname, *pname;
    json_t *robj, *pv;

    if (!json_is_object(rules)) {
        snprintf(errbuf, 256, "rules: expected an object");
        return -1;
    }
    json_object_foreach(rules, rname, robj) {
        int ri = config_rule_index(c, rname, strlen(rname));
        const struct rule *r;

        if (ri < 0) {
            snprintf(errbuf, 256, "rules.%s: unknown rule", rname);
            return -1;
        }
        r = c->rules[ri];
        if (!json_is_object(robj)) {
            snprintf(errbuf, 256, "rules.%s: expected an object", rname);
            return -1;
        }
        json_object_foreach(robj, pname, pv) {
            int pi;
            double v;

            if (strcmp(pname, "enabled") == 0) {
                if (!json_is_boolean(pv)) {
                    snprintf(errbuf, 256, "rules.%s.enabled: expected true or false", rname);
                    return -1;
                }
                c->enabled[ri] = json_is_true(pv);
                continue;
            }
            pi = param_index(r, pname);
            if (pi < 0) {
                snprintf(errbuf, 256, "rules.%s.%s: unknown parameter", rname, pname);
                return -1;
            }
            if (r->params[pi].type == RULE_P_BOOL && json_is_boolean(pv))
                v = json_is_true(pv);
            else if (r->params[pi].type == RULE_P_CHOICE && json_is_string(pv))
                v = config_choice(&r->params[pi], json_string_value(pv), json_string_length(pv));
            else if (r->params[pi].type == RULE_P_CHOICE)
                v = NAN;
            else if (r->params[pi].type != RULE_P_BOOL && json_is_number(pv))
                v = json_number_value(pv);
            else
                v = NAN;
            if (!param_value_ok(r->params[pi].type, v)) {
                snprintf(errbuf, 256, "rules.%s.%s: expected %s", rname, pname,
                         type_name(r->params[pi].type));
                return -1;
            }
            c->params[ri][pi] = v;
        }
    }
    return 0;
}

/* name: the config's, for messages about its patterns later on. */
static int load_json(struct config *c, json_t *root, const char *name, char *errbuf)
{
    const char *key;
    json_t *v;

    if (!json_is_object(root)) {
        snprintf(errbuf, 256, "expected a JSON object");
        return -1;
    }
    json_object_foreach(root, key, v) {
        int rc;

        if (strcmp(key, "rules") == 0) {
            rc = load_rules(c, v, errbuf);
        } else if (strcmp(key, "continual_gap_ms") == 0) {
            if (!json_is_number(v) || json_number_value(v) < 0 || json_number_value(v) > 1e9) {
                snprintf(errbuf, 256, "continual_gap_ms: expected a non-negative number");
                return -1;
            }
            c->gap_ns = (int64_t)(json_number_value(v) * 1e6 + 0.5);
            rc = 0;
        } else if (strcmp(key, "main_thread_names") == 0) {
            rc = load_patterns(v, key, 0, &c->main_names, &c->nmain_names, 0, name, errbuf);
        } else if (strcmp(key, "ignore_paths") == 0) {
            rc = load_patterns(v, key, 0, &c->ignore, &c->nignore, 0, name, errbuf);
        } else if (strcmp(key, "normalize") == 0) {
            rc = load_patterns(v, key, 1, &c->normalize, &c->nnormalize,
                               c->ndefault_normalize, name, errbuf);
        } else {
            snprintf(errbuf, 256, "%s: unknown key", key);
            return -1;
        }
        if (rc < 0)
            return -1;
    }
    return 0;
}

int config_load_string(struct config *c, const char *text, const char *name, char *errbuf)
{
    json_error_t je;
    json_t *root = json_loads(text, 0, &je);
    char sub[256];
    int rc;

    if (!root) {
        snprintf(errbuf, 256, "config '%s': line %d: %s", name, je.line, je.text);
        return -1;
    }
    rc = load_json(c, root, name, sub);
    if (rc < 0)
        snprintf(errbuf, 256, "config '%s': %.200s", name, sub);
    json_decref(root);
    return rc;
}

int config_load_file(struct config *c, const char *path, char *errbuf)
{
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    char sub[256];
    int rc;

    if (!root) {
        FILE *f = fopen(path, "r");

        if (!f)
            snprintf(errbuf, 256, "cannot open config '%s': %s", path, strerror(errno));
        else
            snprintf(errbuf, 256, "config '%s': line %d: %s", path, je.line, je.text);
        if (f)
            fclose(f);
        return -1;
    }
    rc = load_json(c, root, path, sub);
    if (rc < 0)
        snprintf(errbuf, 256, "config '%s': %.200s", path, sub);
    json_decref(root);
    return rc;
}

int config_set(struct config *c, const char *a, char *errbuf)
{
    const char *dot = strchr(a, '.'), *eq = strchr(a, '=');
    int ri, pi;
    char pname[64], *end;
    const char *val;
    double v;
    const struct rule *r;

    if (!dot || !eq || eq < dot || (size_t)(eq - dot - 1) >= sizeof(pname)) {
        snprintf(errbuf, 256, "--set '%s': expected RULE.PARAM=VALUE", a);
        return -1;
    }
    ri = config_rule_index(c, a, (size_t)(dot - a));
    if (ri < 0) {
        snprintf(errbuf, 256, "--set '%s': unknown rule '%.*s'", a, (int)(dot - a), a);
        return -1;
    }
    r = c->rules[ri];
    memcpy(pname, dot + 1, (size_t)(eq - dot - 1));
    pname[eq - dot - 1] = 0;
    val = eq + 1;
    if (strcmp(pname, "enabled") == 0) {
        if (strcmp(val, "true") && strcmp(val, "false") && strcmp(val, "1") && strcmp(val, "0")) {
            snprintf(errbuf, 256, "--set '%s': %s.enabled: expected true or false", a, r->name);
            return -1;
        }
        c->enabled[ri] = !strcmp(val, "true") || !strcmp(val, "1");
        return 0;
    }
    pi = param_index(r, pname);
    if (pi < 0) {
        snprintf(errbuf, 256, "--set '%s': rule %s has no parameter '%s'", a, r->name, pname);
        return -1;
    }
    if (r->params[pi].type == RULE_P_BOOL && (!strcmp(val, "true") || !strcmp(val, "false"))) {
        v = !strcmp(val, "true");
    } else if (r->params[pi].type == RULE_P_CHOICE) {
        v = config_choice(&r->params[pi], val, strlen(val));
    } else {
        errno = 0;
        v = strtod(val, &end);
        if (end == val || *end || errno)
            v = NAN;
    }
    if (!param_value_ok(r->params[pi].type, v)) {
        snprintf(errbuf, 256, "--set '%s': %s.%s: expected %s", a, r->name, pname,
                 type_name(r->params[pi].type));
        return -1;
    }
    c->params[ri][pi] = v;
    return 0;
}

int config_select(struct config *c, const char *list, int only, char *errbuf)
{
    int *want = calloc(c->nrules, sizeof(*want));
    const char *p = list;

    if (!want) {
        snprintf(errbuf, 256, "out of memory");
        return -1;
    }
    while (*p) {
        size_t len = strcspn(p, ",");
        int ri = config_rule_index(c, p, len);

        if (len && ri < 0) {
            snprintf(errbuf, 256, "%s: unknown rule '%.*s' (see 'ioanalyze rules')",
                     only ? "--rules" : "--disable", (int)len, p);
            free(want);
            return -1;
        }
        if (len)
            want[ri] = 1;
        p += len;
        if (*p)
            p++;
    }
    for (size_t i = 0; i < c->nrules; i++) {
        if (only && !want[i])
            c->enabled[i] = 0;
        if (!only && want[i])
            c->enabled[i] = 0;
    }
    free(want);
    return 0;
}

int config_ignored(const struct config *c, const char *path)
{
    for (size_t i = 0; i < c->nignore; i++)
        if (re_match(c, &c->ignore[i], path))
            return 1;
    return 0;
}

int config_main_name(const struct config *c, const char *name)
{
    for (size_t i = 0; i < c->nmain_names; i++)
        if (re_match(c, &c->main_names[i], name))
            return 1;
    return 0;
}

char *config_normalize(const struct config *c, const char *s)
{
    char *cur = strdup(s);

    for (size_t i = 0; cur && i < c->nnormalize && !c->run->failure[0]; i++) {
        size_t cap = strlen(cur) * 2 + 64;
        uint32_t opts = PCRE2_SUBSTITUTE_GLOBAL | PCRE2_SUBSTITUTE_OVERFLOW_LENGTH;
        PCRE2_SIZE outlen;
        char *out;
        int rc;

        for (;;) {
            out = malloc(cap);
            if (!out) {
                free(cur);
                return NULL;
            }
            outlen = cap;
            rc = pcre2_substitute(c->normalize[i].code, (PCRE2_SPTR)cur, PCRE2_ZERO_TERMINATED, 0,
                                  opts, NULL, c->run->mctx, (PCRE2_SPTR)c->normalize[i].replace,
                                  PCRE2_ZERO_TERMINATED, (PCRE2_UCHAR *)out, &outlen);
            if (rc == PCRE2_ERROR_NOMEMORY) {
                cap = outlen + 1;
            } else if (rc == PCRE2_ERROR_JIT_STACKLIMIT && !(opts & PCRE2_NO_JIT)) {
                opts |= PCRE2_NO_JIT;   /* the interpreter, under the depth limit (above) */
            } else {
                break;
            }
            free(out);
        }
        if (re_limited(c, &c->normalize[i], rc, cur)) {
            /* the run fails: what is returned no longer matters, but it
               must not be half normalised by some patterns and not others */
            free(out);
            free(cur);
            return strdup(s);
        }
        if (rc < 0) {       /* a bad replacement string: leave the text as it is */
            free(out);
            continue;
        }
        free(cur);
        cur = out;
    }
    return cur;
}

const char *config_failure(const struct config *c)
{
    return c->run && c->run->failure[0] ? c->run->failure : NULL;
}
