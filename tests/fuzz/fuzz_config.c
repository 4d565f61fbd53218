/*
 * fuzz_config.c - the JSON configuration loader, then every use of it.
 * An input starting with '=' is instead a list of --set assignments
 * ("RULE.PARAM=VALUE"), one per line.
 */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fuzz.h"
#include "iotrace.h"

void fuzz_config(const uint8_t *data, size_t size)
{
    static const char *const paths[] = {
        "/proc/self/stat", "/tmp/abc/def", "/data/user/0/app/cache/x.db", "", "relative",
        /* one that a nested repeat ("^/data/(a+)+$") almost matches: it must
           meet the PCRE2 match limit, not run for minutes */
        "/data/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/f0!",
    };
    char err[IOT_ERRBUF_SIZE];
    struct config cfg;
    char *text = malloc(size + 1);

    if (!text)
        return;
    /* the loader takes a C string: an embedded NUL simply ends the text */
    memcpy(text, data, size);
    text[size] = '\0';
    if (config_init(&cfg) < 0) {
        free(text);
        return;
    }
    if (text[0] == '=') {
        for (char *line = text + 1, *nl; line; line = nl) {
            nl = strchr(line, '\n');
            if (nl)
                *nl++ = '\0';
            config_set(&cfg, line, err);
        }
    } else if (config_load_string(&cfg, text, "fuzz.json", err) == 0) {
        /* a config that loads must be usable on any path and thread name */
        for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
            free(config_normalize(&cfg, paths[i]));
            config_ignored(&cfg, paths[i]);
            config_main_name(&cfg, paths[i]);
        }
    }
    config_release(&cfg);
    free(text);
}

FUZZ_ENTRY(fuzz_config)
