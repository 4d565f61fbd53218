/*
 * kchain.c - the conversion's processes and the chains of their threads:
 * calls appended to a thread's chain, each full chunk written to the trace
 * in one write through the collector's framer (frame.h).
 */
#include <stdlib.h>
#include <string.h>

#include "kconv_int.h"

void write_chunk(struct kconv *k, int32_t pid, struct kchain *c, uint32_t flags)
{
    struct iot_chunk_hdr h;
    int err;

    /* after a failed write nothing more: the run's warning is said once */
    if ((c->enc.nrec == 0 && !(flags & IOT_CHUNK_LAST)) || k->err) {
        iot_enc_begin(&c->enc, c->buf, sizeof(c->buf), c->enc.prev_end);
        return;
    }
    memset(&h, 0, sizeof(h));
    h.version = IOT_FORMAT_VERSION;
    h.flags = flags;
    h.pid = pid;
    h.tid = c->tid;
    h.chain_id = c->chain_id;
    h.seq = c->seq++;
    h.nrec = c->enc.nrec;
    h.base_t = c->enc.base_t;
    h.bytes = (uint32_t)c->enc.len;
    err = rec_frame_write(&k->framer, k->fd, &h, c->enc.buf);
    if (err && !k->err)
        k->err = err;
    iot_enc_begin(&c->enc, c->buf, sizeof(c->buf), c->enc.prev_end);
}

static struct kproc **proc_slot(struct kconv *k, int32_t pid)
{
    struct kproc **p = &k->procs[(uint32_t)pid % PROC_BUCKETS];

    while (*p && (*p)->pid != pid)
        p = &(*p)->next;
    return p;
}

struct kproc *proc_get(struct kconv *k, int32_t pid)
{
    struct kproc **slot = proc_slot(k, pid);

    if (!*slot) {
        *slot = calloc(1, sizeof(**slot));
        if (*slot) {
            (*slot)->pid = pid;
            (*slot)->comm_fd = -1;
        }
    }
    return *slot;
}

struct kchain *chain_get(struct kconv *k, struct kproc *p, int32_t tid, int64_t t)
{
    struct kchain *c;

    for (c = p->chains; c; c = c->next)
        if (c->tid == tid)
            return c;
    c = malloc(sizeof(*c));
    if (!c)
        return NULL;
    c->tid = tid;
    c->chain_id = k->next_chain++;
    c->seq = 0;
    c->named = 0;
    c->name[0] = '\0';
    iot_enc_begin(&c->enc, c->buf, sizeof(c->buf), t);
    c->next = p->chains;
    p->chains = c;
    return c;
}

/* End every chain of p: their last chunks go out marked LAST. */
void chains_end(struct kconv *k, struct kproc *p)
{
    while (p->chains) {
        struct kchain *c = p->chains;

        p->chains = c->next;
        write_chunk(k, p->pid, c, IOT_CHUNK_LAST);
        free(c);
    }
}

/*
 * Append one call to its thread's chain, with its path strings; a chunk
 * that is full goes out and the call starts the next one.
 */
void put_call(struct kconv *k, struct kproc *p, struct iot_event *ev,
              const char *path, const char *newpath, const char *mode)
{
    struct kchain *c = chain_get(k, p, ev->tid, ev->t);

    if (!c)
        return;
    /* a chain's first call follows its thread's name, as the preload's
       (a new thread starts with the name of the one that made it) */
    if (!c->named) {
        char name[KNAME];

        proc_comm(p->pid, c->tid, name);
        put_thread(k, p, c, ev->t, name[0] ? name : p->comm);
    }
    for (int tries = 0; tries < 2; tries++) {
        size_t len = c->enc.len;
        uint32_t nrec = c->enc.nrec;

        if ((!path || iot_enc_str(&c->enc, path, strlen(path), &ev->path_id) == 0) &&
            (!newpath || iot_enc_str(&c->enc, newpath, strlen(newpath), &ev->newpath_id) == 0) &&
            (!mode || iot_enc_str(&c->enc, mode, strlen(mode), &ev->mode_id) == 0) &&
            (!ev->stack || iot_enc_str(&c->enc, ev->stack, strlen(ev->stack), &ev->stack_id) == 0) &&
            iot_enc_call(&c->enc, ev) == 0)
            return;
        /* undo a string defined for a call that did not fit */
        c->enc.len = len;
        c->enc.nrec = nrec;
        memset(c->enc.strcache, 0, sizeof(c->enc.strcache));
        write_chunk(k, p->pid, c, 0);
    }
}

void proc_free(struct kconv *k, struct kproc *p)
{
    struct kproc **slot = proc_slot(k, p->pid);

    chains_end(k, p);
    *slot = p->next;
    free(p);
}

void put_thread(struct kconv *k, struct kproc *p, struct kchain *c, int64_t t,
                const char *name)
{
    c->named = 1;
    name_copy(c->name, name);
    if (!c->name[0])
        return;
    if (iot_enc_thread(&c->enc, t, c->name) != 0) {
        write_chunk(k, p->pid, c, 0);
        iot_enc_thread(&c->enc, t, c->name);
    }
}
