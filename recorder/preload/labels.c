/*
 * labels.c - the labels of the recording (IORECORD_LABELS="k=v,k2=v2",
 * which iorecord --label sets): read once at start, written after each
 * process record so that every process of the trace, and every trace cut
 * from it, says which recording it belongs to.
 *
 * An invalid list records no label: the launcher refuses one with a
 * message, and the preload must print nothing of its own on the
 * program's streams.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "rec.h"

/* the list as the environment gave it, checked; "" for none */
static char labels[IOT_LABEL_MAX_COUNT * (IOT_LABEL_MAX_KEY + IOT_LABEL_MAX_VALUE + 2)];

void rec_labels_init(void)
{
    const char *env = getenv("IORECORD_LABELS");

    labels[0] = '\0';
    if (!env || strlen(env) >= sizeof(labels) || iot_labels_parse(env, NULL, NULL, NULL) <= 0)
        return;
    strcpy(labels, env);
}

struct label_out {
    struct rec_thread *t;
    int64_t now;
};

static void label_one(void *arg, const char *key, size_t klen, const char *value, size_t vlen)
{
    struct label_out *o = arg;

    if (iot_enc_label(&o->t->enc, o->now, key, klen, value, vlen) != 0) {
        rec_chunk_switch(o->t, o->now);
        iot_enc_label(&o->t->enc, o->now, key, klen, value, vlen);
    }
}

void rec_labels_record(struct rec_thread *t, int64_t now)
{
    struct label_out o = {t, now};

    if (labels[0])
        iot_labels_parse(labels, label_one, &o, NULL);
}
