/*
 * startenv.c - what the analyzer needs of the process's environment as its
 * image started (docs/trace-format.md 5.17): $HOME, for its fingerprints,
 * and the variables a runtime takes its options from (JAVA_TOOL_OPTIONS...),
 * which decide what its stacks show. Read once at start, so a later setenv
 * is not seen; written after each process record, as the labels are
 * (labels.c).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "rec.h"

extern char **environ;

/* $HOME as the environment gave it at start, when absolute; "" else */
static char home[PATH_MAX];
/*
 * The runtime variables, "NAME=VALUE" one after the other, each ended by
 * its NUL; a variable that does not fit whole is left out (part of one
 * could drop the flag it gives).
 */
static char runtime_env[8192];
static size_t runtime_env_len;

void rec_startenv_init(void)
{
    const char *env = getenv("HOME");

    home[0] = '\0';
    if (env && env[0] == '/' && strlen(env) < sizeof(home))
        strcpy(home, env);
    runtime_env_len = 0;
    for (char **e = environ; e && *e; e++) {
        size_t n;

        if (!iot_runtime_env_name(*e))
            continue;
        n = strlen(*e) + 1;
        if (n <= sizeof(runtime_env) - runtime_env_len) {
            memcpy(runtime_env + runtime_env_len, *e, n);
            runtime_env_len += n;
        }
    }
}

void rec_startenv_record(struct rec_thread *t, int64_t now)
{
    size_t len = strlen(home);

    if (len && iot_enc_home(&t->enc, now, home, len) != 0) {
        rec_chunk_switch(t, now);
        iot_enc_home(&t->enc, now, home, len);
    }
    for (size_t at = 0; at < runtime_env_len;) {
        const char *v = runtime_env + at;
        size_t name = iot_runtime_env_name(v), n = strlen(v);

        if (iot_enc_runtime_env(&t->enc, now, v, name, v + name + 1, n - name - 1) != 0) {
            rec_chunk_switch(t, now);
            iot_enc_runtime_env(&t->enc, now, v, name, v + name + 1, n - name - 1);
        }
        at += n + 1;
    }
}
