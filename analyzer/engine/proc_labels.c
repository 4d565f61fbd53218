/* The labels of each recorded process (proc_labels.h). */
#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "iotrace.h"
#include "proc_labels.h"

struct proc_labels {
    struct hmap by_pid;     /* pid -> json_t object */
    json_t *first;          /* the first process's labels */
    json_t *none;           /* {} */
    int shared_known;       /* shared was judged since the last record */
    const json_t *shared;   /* what every labelled process had, or none */
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
    pl->none = json_object();
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
            json_decref(pl->by_pid.vals[i]);
    hmap_release(&pl->by_pid);
    json_decref(pl->none);
    free(pl);
}

void proc_labels_add(struct proc_labels *pl, int32_t pid, const char *key, const char *value)
{
    json_t *l = hmap_get(&pl->by_pid, pid_key(pid));

    /* a trace from elsewhere may carry anything: only valid labels, a bounded number */
    if (iot_label_check(key, strlen(key), value, strlen(value), NULL) < 0)
        return;
    if (!l) {
        l = json_object();
        if (!l || hmap_put(&pl->by_pid, pid_key(pid), l) < 0) {
            json_decref(l);
            return;
        }
        if (!pl->first)
            pl->first = l;
    }
    if (json_object_get(l, key) || json_object_size(l) >= IOT_LABEL_MAX_COUNT)
        return;
    json_object_set_new(l, key, json_string(value));
    pl->shared_known = 0;
}

const json_t *proc_labels_of(struct proc_labels *pl, int32_t pid)
{
    const json_t *l = hmap_get(&pl->by_pid, pid_key(pid));

    if (l)
        return l;
    if (!pl->shared_known) {
        pl->shared_known = 1;
        pl->shared = pl->first;
        for (size_t i = 0; pl->shared && i < pl->by_pid.cap; i++)
            if (pl->by_pid.used[i] && !json_equal(pl->by_pid.vals[i], pl->first))
                pl->shared = NULL;
    }
    return pl->shared ? pl->shared : pl->none;
}

const json_t *proc_labels_first(const struct proc_labels *pl)
{
    return pl->first ? pl->first : pl->none;
}
