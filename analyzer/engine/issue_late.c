/*
 * issue_late.c - an issue's raw stacks, named again at the end
 * (issue_late.h).
 */
#include <stdlib.h>
#include <string.h>

#include "issue_detail.h"
#include "issue_late.h"
#include "issue_text.h"
#include "symbolize.h"

/* detail.open_sites, when it is the list per_file.h makes; else NULL */
static const struct issue_values *open_sites(const struct rule_detail *detail)
{
    const struct issue_value *v = issue_detail_get(detail, "open_sites");

    return v && v->type == ISSUE_V_LIST ? v->list : NULL;
}

struct late_stacks *late_stacks_new(const char *rule, const char *fpath, const char *site,
                                    const char *open, const struct rule_detail *detail)
{
    const struct issue_values *sites = open_sites(detail);
    struct late_stacks *l = calloc(1, sizeof(*l));

    if (!l)
        return NULL;
    l->rule = strdup(rule);
    l->fpath = strdup(fpath ? fpath : "");
    l->site = strdup(site ? site : "");
    l->open = strdup(open ? open : "");
    if (!l->rule || !l->fpath || !l->site || !l->open)
        goto fail;
    if (sites && sites->n && !(l->sites = calloc(sites->n, sizeof(*l->sites))))
        goto fail;
    for (size_t i = 0; sites && i < sites->n; i++) {
        const char *st = sites->v[i].type == ISSUE_V_OBJECT
                             ? issue_detail_str(sites->v[i].obj, "stack") : NULL;

        if (!(l->sites[i] = strdup(st ? st : "")))
            goto fail;
        l->nsites++;
    }
    return l;
fail:
    late_stacks_free(l);
    return NULL;
}

void late_stacks_free(struct late_stacks *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->nsites; i++)
        free(l->sites[i]);
    free(l->sites);
    free(l->rule);
    free(l->fpath);
    free(l->site);
    free(l->open);
    free(l);
}

static const struct sym_stack *named(struct symbolizer *sym, const char *stack)
{
    return sym && *stack ? symbolizer_stack(sym, stack) : NULL;
}

static int pending(struct symbolizer *sym, const char *stack)
{
    const struct sym_stack *st = named(sym, stack);

    return st && (st->unnamed_jit || sym_stack_runtime(st) >= 0);
}

int late_stacks_pending(const struct late_stacks *l, struct symbolizer *sym)
{
    if (pending(sym, l->site) || pending(sym, l->open))
        return 1;
    for (size_t i = 0; i < l->nsites; i++)
        if (pending(sym, l->sites[i]))
            return 1;
    return 0;
}

/* obj's "stack" shown as sym names raw now (kept when it cannot be) */
static void rename_one(struct symbolizer *sym, struct rule_detail *obj, const char *raw)
{
    const struct sym_stack *st = named(sym, raw);

    if (obj && st && issue_utf8_or_null(st->text))
        issue_detail_set_str(obj, "stack", st->text);
}

void late_stacks_rename_detail(const struct late_stacks *l, struct symbolizer *sym,
                               struct rule_detail *detail)
{
    const struct issue_values *sites = open_sites(detail);
    const struct issue_value *by = issue_detail_get(detail, "opened_by");

    for (size_t i = 0; sites && i < sites->n && i < l->nsites; i++)
        if (sites->v[i].type == ISSUE_V_OBJECT)
            rename_one(sym, sites->v[i].obj, l->sites[i]);
    if (by && by->type == ISSUE_V_OBJECT)
        rename_one(sym, by->obj, l->open);
}
