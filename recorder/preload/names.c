/*
 * names.c - what the names a process uses mean, for the analyzer's
 * fingerprints (docs/trace-format.md 5.17): the process's $HOME, read once
 * at start and written after each process record, and the names the
 * program had made from a template (mkstemp, mkdtemp: wrap_names.c),
 * written after the call that made them, with where the template's X's
 * were.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "rec.h"
#include "wrap.h"

/* $HOME as the environment gave it at start, when absolute; "" else */
static char home[PATH_MAX];

void rec_home_init(void)
{
    const char *env = getenv("HOME");

    home[0] = '\0';
    if (env && env[0] == '/' && strlen(env) < sizeof(home))
        strcpy(home, env);
}

void rec_home_record(struct rec_thread *t, int64_t now)
{
    size_t len = strlen(home);

    if (!len)
        return;
    if (iot_enc_home(&t->enc, now, home, len) != 0) {
        rec_chunk_switch(t, now);
        iot_enc_home(&t->enc, now, home, len);
    }
}

void rec_template_record(const char *path, size_t at, size_t n, uint64_t s)
{
    struct rec_thread *t;
    size_t len;
    int64_t now;

    if (!path || path[0] != '/' || !(t = rec_enter(s)))
        return;     /* relative (the cwd unknown), or a handler inside the recorder */
    len = strlen(path);
    now = rec_ns_with(__atomic_load_n(&rec_clock_cur, __ATOMIC_ACQUIRE), s);
    if (iot_enc_template(&t->enc, now, path, len, at, n) != 0) {
        rec_chunk_switch(t, now);
        iot_enc_template(&t->enc, now, path, len, at, n);
    }
    rec_publish(t);
    rec_leave();
}
