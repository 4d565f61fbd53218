/*
 * unobserved (type 14): a program, or a part of one, whose file calls
 * nothing recorded. A trace that holds none of a program's I/O is not a
 * clean trace: a report of "no issues" on it would be false, and a CI gate
 * would pass on a program it never saw. So what the recorder knew it could
 * not see is an issue like any other, found in every output and counted by
 * diff and --fail-on-issues.
 *
 * The engine hands over each program the recorder said it could not enter
 * (an exec of a static, setuid or file-capability program), and each
 * process whose calls bypass libc (the Go runtime's raw system calls,
 * liburing's ring), unless a kernel capture recorded that process's calls
 * itself. One issue per program and reason; the processes that ran it are
 * its occurrences.
 */
#include <stdio.h>
#include <string.h>

#include "rule.h"

/* What each of the recorder's reasons means, and what to do about it. */
static const struct unobserved_reason {
    const char *why;
    const char *verb;        /* "PROCESS (pid N) VERB PATH" */
    const char *what;        /* completes "... PATH, " */
    const char *unseen;      /* what is not in the trace */
    const char *instead;     /* how to see it */
} reasons[] = {
    {"static", "ran", "a statically linked program the preload cannot enter",
     "its file calls are", "record as root so that iorecord's kernel capture path sees "
     "it (--capture both), or build it dynamically linked"},
    {"setuid", "ran", "a setuid program, which the loader runs without the preload",
     "its file calls are", "record as root so that iorecord's kernel capture path sees "
     "it (--capture both)"},
    {"fcaps", "ran", "a program with file capabilities, which the loader runs without the preload",
     "its file calls are", "record as root so that iorecord's kernel capture path sees "
     "it (--capture both)"},
    {"creds", "ran", "a program that changed its credentials, after which the preload lets it go",
     "its file calls after the change are", "record as root so that iorecord's kernel capture "
     "path takes over at the change"},
    {"raw_clone", "ran", "a child made by a raw clone, which the preload cannot follow",
     "the child's file calls are", "record as root so that iorecord's kernel capture path sees "
     "them (--capture both)"},
    {"raw_clone_tls", "ran", "a child made by a raw clone sharing its thread-locals, which the preload "
     "cannot follow", "the child's file calls are", "record as root so that iorecord's kernel "
     "capture path sees them (--capture both)"},
    {"go", "ran", "a Go program, whose runtime makes its file calls as raw system calls past libc",
     "the Go runtime's file calls are", "record as root so that iorecord's kernel capture path "
     "sees them (--capture both)"},
    {"liburing", "uses", "io_uring through liburing, which submits file I/O past libc",
     "the ring's reads and writes are", "record as root so that iorecord's kernel capture path "
     "sees the ring's requests (--capture both)"},
};

static const struct unobserved_reason *reason_of(const char *why)
{
    for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
        if (strcmp(reasons[i].why, why) == 0)
            return &reasons[i];
    return NULL;
}

static void unobserved_check(void *state, const struct rule_ctx *ctx,
                             const struct rule_unobserved *u)
{
    const struct unobserved_reason *r = reason_of(u->why);
    struct rule_session s = {
        .size = sizeof(s), .path = u->path, .process = u->process, .thread = u->process,
        .stack = "", .pid = u->pid, .tid = u->pid, .open_t = u->t, .end_t = u->t,
        .end_unix_ms = u->unix_ms, .file_size = -1, .last_data_t = u->t,
    };
    char msg[600], missed[64] = "";

    (void)state;
    if (rule_again(ctx, &s, 1, 0))
        return;
    if (u->missed > 0)
        snprintf(missed, sizeof(missed), " (%lld file calls missed)", (long long)u->missed);
    if (r)
        snprintf(msg, sizeof(msg),
                 "%s (pid %d) %s %s, %s: %s not in the trace%s, so no rule judged them; %s",
                 u->process, (int)u->pid, r->verb, u->path, r->what, r->unseen, missed,
                 r->instead);
    else
        snprintf(msg, sizeof(msg),
                 "%s (pid %d) ran %s, which the recorder could not follow (%s): its file calls "
                 "are not in the trace%s, so no rule judged them",
                 u->process, (int)u->pid, u->path, u->why, missed);
    struct rule_detail *figures = rule_detail_new(ctx);

    rule_detail_string(figures, "why", u->why);
    rule_detail_int(figures, "missed_calls", (int64_t)u->missed);
    rule_report(ctx, &(struct rule_report){
        .s = &s, .repeat = 1, .message = msg,
        .fields = figures});
}

const struct rule rule_unobserved = {
    RULE_ABI_HEADER,
    .name = "unobserved",
    .type = 14,
    .summary = "a program whose file calls nothing recorded",
    .on_unobserved = unobserved_check,
    .fix = "Record as root (or with CAP_BPF and CAP_PERFMON) so that `iorecord` adds its kernel "
           "capture path for what the preload cannot enter.",
};
