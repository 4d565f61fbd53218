/*
 * writer.c - a whole-event trace writer for tools and tests. The recorder has
 * its own lock-free buffering; this one favours simplicity: one chunk buffer
 * per (pid, tid), written out when full.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "iotrace.h"

struct wchain {
    int32_t pid, tid;
    uint32_t seq;
    uint8_t *buf;
    struct iot_enc enc;
    int started;
};

struct iot_writer {
    FILE *f;
    char *path;
    size_t chunk_bytes;
    struct iot_chunker *chunker;
    uint8_t *frame;
    size_t frame_cap;
    struct wchain *chains;
    size_t n, cap;
};

struct iot_writer *iot_writer_open(const char *path, size_t chunk_bytes, char *errbuf)
{
    struct iot_writer *w = calloc(1, sizeof(*w));

    if (!w)
        goto oom;
    w->chunk_bytes = chunk_bytes ? chunk_bytes : 64u << 10;
    w->frame_cap = iot_chunk_bound(w->chunk_bytes);
    w->frame = malloc(w->frame_cap);
    w->chunker = iot_chunker_create(1);
    w->path = strdup(path);
    if (!w->frame || !w->chunker || !w->path)
        goto oom;
    w->f = fopen(path, "wb");
    if (!w->f) {
        snprintf(errbuf, IOT_ERRBUF_SIZE, "cannot create trace '%s': %s", path, strerror(errno));
        goto fail;
    }
    return w;
oom:
    snprintf(errbuf, IOT_ERRBUF_SIZE, "cannot create trace '%s': out of memory", path);
fail:
    if (w) {
        free(w->frame);
        free(w->path);
        iot_chunker_free(w->chunker);
        free(w);
    }
    return NULL;
}

static int write_chunk(struct iot_writer *w, struct wchain *s, char *errbuf)
{
    struct iot_chunk_hdr h = {
        .version = IOT_FORMAT_VERSION, .pid = s->pid, .tid = s->tid,
        .chain_id = ((uint64_t)(uint32_t)s->pid << 32) | (uint32_t)s->tid,
        .seq = s->seq, .nrec = s->enc.nrec, .base_t = s->enc.base_t,
        .bytes = (uint32_t)s->enc.len,
    };
    size_t n;

    if (!s->started || s->enc.nrec == 0)
        return 0;
    n = iot_chunk_compress(w->chunker, &h, s->enc.buf, w->frame, w->frame_cap);
    if (!n || fwrite(w->frame, 1, n, w->f) != n) {
        snprintf(errbuf, IOT_ERRBUF_SIZE, "cannot write trace '%s': %s", w->path,
                 n ? strerror(errno) : "compression failed");
        return -1;
    }
    s->seq++;
    s->started = 0;
    return 0;
}

static struct wchain *find_chain(struct iot_writer *w, int32_t pid, int32_t tid)
{
    for (size_t i = 0; i < w->n; i++)
        if (w->chains[i].pid == pid && w->chains[i].tid == tid)
            return &w->chains[i];
    if (iot_grow(&w->chains, &w->cap, w->n + 1, sizeof(*w->chains)) < 0)
        return NULL;
    struct wchain *s = &w->chains[w->n];
    memset(s, 0, sizeof(*s));
    s->pid = pid;
    s->tid = tid;
    s->buf = malloc(w->chunk_bytes);
    if (!s->buf)
        return NULL;
    w->n++;
    return s;
}

/* Encode ev into s's chunk; -1 when it does not fit. */
static int encode(struct wchain *s, const struct iot_event *ev)
{
    struct iot_event c;

    switch (ev->kind) {
    case IOT_EV_CALL:
        c = *ev;
        if (((c.has & IOT_HAS_PATH) && iot_enc_str(&s->enc, c.path, strlen(c.path), &c.path_id) < 0) ||
            ((c.has & IOT_HAS_MODE) && iot_enc_str(&s->enc, c.mode, strlen(c.mode), &c.mode_id) < 0) ||
            ((c.has & IOT_HAS_STACK) && iot_enc_str(&s->enc, c.stack, strlen(c.stack), &c.stack_id) < 0) ||
            ((c.has & IOT_HAS_NEWPATH) &&
             iot_enc_str(&s->enc, c.newpath, strlen(c.newpath), &c.newpath_id) < 0))
            return -1;
        return iot_enc_call(&s->enc, &c);
    case IOT_EV_PROCESS:
        return iot_enc_process(&s->enc, ev->ppid, ev->t, ev->start_unix_ns, ev->exe,
                               ev->argc, ev->argv);
    case IOT_EV_THREAD:
        return iot_enc_thread(&s->enc, ev->t, ev->name);
    case IOT_EV_EXIT:
        return iot_enc_exit(&s->enc, ev->t, ev->status,
                            (ev->has & IOT_HAS_SIGNAL) ? ev->signal : 0);
    case IOT_EV_JIT_SYMBOL:
        return ev->code_size > 0 && ev->symbol
                   ? iot_enc_jit_symbol(&s->enc, ev->t, ev->bias, ev->code_size, ev->symbol,
                                        strlen(ev->symbol))
                   : -1;
    case IOT_EV_PY_CODE: {
        /* a pair's text is at least 3 bytes, its bytes at most 10 */
        size_t cap = 4 * strlen(ev->py_lines ? ev->py_lines : "") + 20;
        uint8_t *lines = malloc(cap);
        long n = lines ? iot_py_lines_parse(ev->py_lines, ev->first_line, lines, cap) : -1;
        int r = n >= 0 && ev->first_line >= 0 && ev->py_file && ev->symbol
                    ? iot_enc_py_code(&s->enc, ev->t, ev->bias, ev->py_file, strlen(ev->py_file),
                                      ev->symbol, strlen(ev->symbol), (uint64_t)ev->first_line,
                                      lines, (size_t)n)
                    : -1;

        free(lines);
        return r;
    }
    case IOT_EV_WAITS:
        return iot_enc_waits(&s->enc, ev->t, (uint64_t)(ev->waits > 0 ? ev->waits : 0));
    case IOT_EV_LABEL:
        return iot_enc_label(&s->enc, ev->t, ev->label_key, strlen(ev->label_key),
                             ev->label_value, strlen(ev->label_value));
    case IOT_EV_HOME:
        return iot_enc_home(&s->enc, ev->t, ev->path, strlen(ev->path));
    case IOT_EV_RUNTIME_ENV:
        return iot_enc_runtime_env(&s->enc, ev->t, ev->label_key, strlen(ev->label_key),
                                   ev->label_value, strlen(ev->label_value));
    case IOT_EV_TEMPLATE:
        return ev->random_at >= 0 && ev->random_len >= 0
                   ? iot_enc_template(&s->enc, ev->t, ev->path, strlen(ev->path),
                                      (size_t)ev->random_at, (size_t)ev->random_len)
                   : -1;
    }
    return -1;
}

int iot_writer_event(struct iot_writer *w, const struct iot_event *ev, char *errbuf)
{
    struct wchain *s = find_chain(w, ev->pid, ev->kind == IOT_EV_CALL ||
                                    ev->kind == IOT_EV_THREAD ? ev->tid : ev->pid);
    size_t len_before;
    uint32_t nrec_before;

    if (!s) {
        snprintf(errbuf, IOT_ERRBUF_SIZE, "cannot write trace '%s': out of memory", w->path);
        return -1;
    }
    for (int attempt = 0; attempt < 2; attempt++) {
        if (!s->started) {
            iot_enc_begin(&s->enc, s->buf, w->chunk_bytes, ev->t);
            s->started = 1;
        }
        len_before = s->enc.len;
        nrec_before = s->enc.nrec;
        if (encode(s, ev) == 0)
            return 0;
        /* string definitions of a record that did not fit are dropped too */
        s->enc.len = len_before;
        s->enc.nrec = nrec_before;
        if (attempt == 0 && write_chunk(w, s, errbuf) < 0)
            return -1;
        s->started = 0;
    }
    snprintf(errbuf, IOT_ERRBUF_SIZE, "cannot write trace '%s': event larger than a chunk", w->path);
    return -1;
}

int iot_writer_flush(struct iot_writer *w, char *errbuf)
{
    for (size_t i = 0; i < w->n; i++)
        if (write_chunk(w, &w->chains[i], errbuf) < 0)
            return -1;
    if (fflush(w->f) != 0) {
        snprintf(errbuf, IOT_ERRBUF_SIZE, "cannot write trace '%s': %s", w->path, strerror(errno));
        return -1;
    }
    return 0;
}

int iot_writer_close(struct iot_writer *w, char *errbuf)
{
    int ret;

    if (!w)
        return 0;
    ret = iot_writer_flush(w, errbuf);
    if (fclose(w->f) != 0 && ret == 0) {
        snprintf(errbuf, IOT_ERRBUF_SIZE, "cannot write trace '%s': %s", w->path, strerror(errno));
        ret = -1;
    }
    for (size_t i = 0; i < w->n; i++)
        free(w->chains[i].buf);
    free(w->chains);
    free(w->frame);
    free(w->path);
    iot_chunker_free(w->chunker);
    free(w);
    return ret;
}
