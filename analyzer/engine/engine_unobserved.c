/*
 * engine_unobserved.c - what nothing could see, kept to the end of the run
 * and handed to the rules that judge it (on_unobserved: rule unobserved).
 *
 * The recorder writes an `unrecorded` record when the process exec's a
 * program the preload cannot enter (static, setuid, fcaps: the record's
 * pid runs that program from then on), when it stops recording itself
 * (creds), makes a child by a raw clone, or makes its file calls past libc
 * (go, liburing). A kernel capture may record that process's calls after
 * all (a coverage record: engine_unobserved_covered): then it was seen and
 * is not handed on.
 * Nor is a static program in whose pid the preload was entered after it: it
 * ran a program the preload recorded in its place. valgrind's tool (static)
 * runs its guest in the same process with LD_PRELOAD, as ld.so run as a
 * command does; saying that the program the user named went unseen would be
 * false. What the static program did itself before that (valgrind reading
 * the guest's debug info; a static shell's own redirections before its
 * exec) is not in the trace and not said: a trace does not tell a loader
 * from a program that exec'd.
 * Kept in time order, and at most UNOBSERVED_MAX of them, so that a trace
 * of a shell running a static program a million times stays bounded: the
 * rule reports one issue per program and reason, and the first ones name
 * every program there is in practice.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"
#include "grow.h"
#include "path.h"

#define UNOBSERVED_MAX 4096

/* An exec'd program the preload could not enter: the pid runs it now. */
static int is_exec_why(const char *why)
{
    return strcmp(why, "static") == 0 || strcmp(why, "setuid") == 0 ||
           strcmp(why, "fcaps") == 0;
}

void engine_unobserved_note(struct engine *e, struct engine_proc *p, const struct iot_event *ev)
{
    const char *why = (ev->has & IOT_HAS_MODE) && ev->mode && *ev->mode ? ev->mode : "unknown";
    const char *path = (ev->has & IOT_HAS_PATH) && ev->path && *ev->path ? ev->path : NULL;
    struct engine_unobserved *u;

    if (e->nunobs >= UNOBSERVED_MAX ||
        (e->nunobs == e->capunobs &&
         iot_grow(&e->unobs, &e->capunobs, e->nunobs + 1, sizeof(*e->unobs)) < 0))
        return;
    if (!path)
        path = p && p->exe ? p->exe : e->empty;
    u = &e->unobs[e->nunobs++];
    *u = (struct engine_unobserved){
        .pid = ev->pid,
        .path = path,
        .why = why,
        .process = is_exec_why(why) && *path ? iot_path_base(path)
                                              : p && p->name ? p->name : "unknown",
        .t = ev->t,
        .unix_ms = p ? engine_proc_unix_ms(p, ev->t) : 0,
    };
}

void engine_unobserved_covered(struct engine *e, const struct engine_proc *p)
{
    const char *base = p->exe ? iot_path_base(p->exe) : NULL;

    for (size_t i = 0; i < e->nunobs; i++)
        if (e->unobs[i].pid == p->pid)
            e->unobs[i].covered = 1;
    /* A program spawned (vfork, posix_spawn) is said unrecorded by its
       parent, under the parent's pid: the first such of the same program
       is the one this process ran. */
    for (size_t i = 0; base && i < e->nunobs; i++) {
        struct engine_unobserved *u = &e->unobs[i];

        if (!u->covered && u->pid == p->ppid && is_exec_why(u->why) &&
            strcmp(iot_path_base(u->path), base) == 0) {
            u->covered = 1;
            break;
        }
    }
}

void engine_unobserved_entered(struct engine *e, const struct engine_proc *p, int exec)
{
    const char *base = p->exe ? iot_path_base(p->exe) : NULL;

    for (size_t i = 0; i < e->nunobs; i++) {
        struct engine_unobserved *u = &e->unobs[i];

        if (u->covered || strcmp(u->why, "static") != 0)
            continue;
        if (exec && u->pid == p->pid && u->t >= p->start_t) {
            u->covered = 1;     /* exec'd in p since its last image */
        } else if (!exec && u->pid == p->ppid && base &&
                   strcmp(iot_path_base(u->path), base) == 0) {
            /* spawned by its parent, which said so (as in covered above),
               and p runs that very program: it loaded the preload itself */
            u->covered = 1;
            break;
        }
    }
}

/*
 * The summary's "ran unrecorded" names what no path saw: a program the
 * kernel path recorded after all is left out of its count and names.
 */
static void unrecorded_stats(struct engine *e)
{
    struct engine_stats *st = &e->st;
    uint64_t covered = 0, named = 0;

    for (size_t k = 0; k < e->nunobs; k++) {
        const struct engine_unobserved *u = &e->unobs[k];

        if (u->covered) {
            covered++;
            continue;
        }
        if (named < ENGINE_UNSEEN_NAMED) {
            snprintf(st->unrecorded_path[named], sizeof(st->unrecorded_path[0]), "%s", u->path);
            snprintf(st->unrecorded_why[named], sizeof(st->unrecorded_why[0]), "%s", u->why);
            named++;
        }
    }
    st->unrecorded = st->unrecorded > covered ? st->unrecorded - covered : 0;
}

void engine_unobserved_report(struct engine *e)
{
    unrecorded_stats(e);
    for (size_t k = 0; k < e->nunobs; k++) {
        const struct engine_unobserved *u = &e->unobs[k];
        struct rule_unobserved ru = {
            .size = sizeof(ru), .path = u->path, .why = u->why, .process = u->process,
            .pid = u->pid, .t = u->t, .unix_ms = u->unix_ms, .missed = -1,
        };

        if (u->covered || engine_path_ignored(e, u->path))
            continue;
        for (size_t i = 0; i < e->nslots; i++) {
            struct rule_slot *rs = &e->slots[i];

            if (rs->rule->on_unobserved) {
                rs->ctx.timing = e->st.calls_no_dur == 0;
                rs->rule->on_unobserved(rs->state, &rs->ctx, &ru);
            }
        }
    }
}

void engine_unobserved_free(struct engine *e)
{
    free(e->unobs);
    e->unobs = NULL;
    e->nunobs = e->capunobs = 0;
}
