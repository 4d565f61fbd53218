/*
 * runtime_env.c - the environment variables a runtime takes its options
 * from, which the recorder copies into runtime environment records (5.17):
 * with them the analyzer knows a flag given there (JAVA_TOOL_OPTIONS=
 * -XX:+PreserveFramePointer) as well as one on the command line.
 */
#include <string.h>

#include "iotrace.h"

static const char *const runtime_env_names[] = {
    "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS",   /* the JVM */
    "NODE_OPTIONS",                                             /* node */
    "ERL_AFLAGS", "ERL_FLAGS", "ERL_ZFLAGS",                    /* BEAM */
};

size_t iot_runtime_env_name(const char *entry)
{
    for (size_t i = 0; i < sizeof(runtime_env_names) / sizeof(runtime_env_names[0]); i++) {
        size_t n = strlen(runtime_env_names[i]);

        if (strncmp(entry, runtime_env_names[i], n) == 0 && entry[n] == '=')
            return n;
    }
    return 0;
}
