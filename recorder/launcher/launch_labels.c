/*
 * launch_labels.c - iorecord's --label values: each checked as it is
 * parsed, then handed to every recorded process as IORECORD_LABELS, which
 * the preload stores in the trace once per process.
 */
#include <stdlib.h>
#include <string.h>

#include "iotrace.h"
#include "launch.h"
#include "msg.h"
#include "opt_parse.h"

/* One --label: KEY=VALUE, valid (iot_label_check). */
int launch_label_check(const char *kv)
{
    const char *eq = strchr(kv, '=');
    char errbuf[IOT_ERRBUF_SIZE];

    if (!eq) {
        iot_error("label '%s': not KEY=VALUE", kv);
        return 2;
    }
    if (iot_label_check(kv, (size_t)(eq - kv), eq + 1, strlen(eq + 1), errbuf) < 0) {
        iot_error("%s", errbuf);
        return 2;
    }
    return 0;
}

/*
 * The labels reach every process as IORECORD_LABELS (labels.c in the
 * preload): the --label values joined by ',', or else the environment's
 * own list, which must be valid too. 0; 2 after saying why not; -1 for
 * more --label values than a trace keeps.
 */
int launch_labels_env(const struct opt_list *labels)
{
    char list[IOT_LABEL_MAX_COUNT * (IOT_LABEL_MAX_KEY + IOT_LABEL_MAX_VALUE + 2)];
    char errbuf[IOT_ERRBUF_SIZE];
    size_t len = 0;

    if (labels->n == 0) {
        if (iot_labels_parse(getenv("IORECORD_LABELS"), NULL, NULL, errbuf) < 0) {
            iot_error("IORECORD_LABELS: %s", errbuf);
            return 2;
        }
        return 0;
    }
    if (labels->n > IOT_LABEL_MAX_COUNT) {
        return -1;   /* a bad argument: main says so */
    }
    for (size_t i = 0; i < labels->n; i++) {
        size_t n = strlen(labels->v[i]);

        if (i)
            list[len++] = ',';
        memcpy(list + len, labels->v[i], n);   /* bounded by check_label */
        len += n;
    }
    list[len] = '\0';
    setenv("IORECORD_LABELS", list, 1);
    return 0;
}
