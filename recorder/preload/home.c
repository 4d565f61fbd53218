/*
 * home.c - the process's $HOME, for the analyzer's fingerprints
 * (docs/trace-format.md 5.17): read once at start, written in a home record
 * after each process record, as the labels are (labels.c).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "rec.h"

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
