/* The labels of each recorded process (proc_labels.h). */
#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "iotrace.h"
#include "proc_labels.h"

struct proc_labels {
    struct hmap by_pid;     /* pid -> struct rule_detail, string values */
    struct rule_detail *first;  /* the first process's labels */
    struct rule_detail *none;   /* empty */
    int shared_known;       /* shared was judged since the last record */
    const struct rule_detail *shared;  /* what every labelled process had, or none */
};

static uint64_t pid_key(int32_t pid)
{
    return (uint64_t)(uint32_t)pid;
}

struct proc_labels *proc_labels_create(void)
{
    struct proc_labels *pl = calloc(1, sizeof(*pl));

    if (!pl)
        return NULL;
    pl->none = issue_detail_new();
    if (!pl->none) {
        free(pl);
        return NULL;
    }
    return pl;
}

void proc_labels_free(struct proc_labels *pl)
{
    if (!pl)
        return;
    for (size_t i = 0; i < pl->by_pid.cap; i++)
        if (pl->by_pid.used && pl->by_pid.used[i])
            issue_detail_free(pl->by_pid.vals[i]);
    hmap_release(&pl->by_pid);
    issue_detail_free(pl->none);
    free(pl);
}

void proc_labels_add(struct proc_labels *pl, int32_t pid, const char *key, const char *value)
{
    struct rule_detail *l = hmap_get(&pl->by_pid, pid_key(pid));

    /* a trace from elsewhere may carry anything: only valid labels, a bounded number */
    if (iot_label_check(key, strlen(key), value, strlen(value), NULL) < 0)
        return;
    if (!l) {
        l = issue_detail_new();
        if (!l || hmap_put(&pl->by_pid, pid_key(pid), l) < 0) {
            issue_detail_free(l);
            return;
        }
        if (!pl->first)
            pl->first = l;
    }
    if (issue_detail_get(l, key) || l->n >= IOT_LABEL_MAX_COUNT)
        return;
    issue_detail_set_str(l, key, value);
    pl->shared_known = 0;
}

const struct rule_detail *proc_labels_of(struct proc_labels *pl, int32_t pid)
{
    const struct rule_detail *l = hmap_get(&pl->by_pid, pid_key(pid));

    if (l)
        return l;
    if (!pl->shared_known) {
        pl->shared_known = 1;
        pl->shared = pl->first;
        for (size_t i = 0; pl->shared && i < pl->by_pid.cap; i++)
            if (pl->by_pid.used[i] && !issue_detail_equal(pl->by_pid.vals[i], pl->first))
                pl->shared = NULL;
    }
    return pl->shared ? pl->shared : pl->none;
}

const struct rule_detail *proc_labels_first(const struct proc_labels *pl)
{
    return pl->first ? pl->first : pl->none;
}
