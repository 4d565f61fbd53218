/*
 * chain.c - each recorded thread's chain of chunks: its id, the begin of a
 * chunk in a buffer, closing a chunk into the queue, and the switch to the
 * next chunk when one is full or a second old. The thread's life around
 * its chain (start, end, fork) is thread.c's.
 *
 * The thread brackets a chunk switch with its slot's gen (odd while
 * switching), so a snapshot never pairs one chunk's buffer with another's
 * length; the slot's pub is 0 whenever its buf changes (segment.h).
 */
#include <errno.h>
#include <string.h>
#include <sys/auxv.h>

#include "internal.h"

static uint64_t chain_salt;
static uint64_t chain_counter;

/* ----------------------------------------------------------- chain ids */

void rec_chain_ids_init(void)
{
    const uint8_t *rnd = (const uint8_t *)getauxval(AT_RANDOM);

    if (rnd)
        memcpy(&chain_salt, rnd + 8, sizeof(chain_salt));
    chain_salt ^= (uint64_t)rec_pid << 32 ^ (uint64_t)rec_now_ns();
}

/* splitmix64's finaliser: every input bit reaches every output bit. */
static uint64_t mix64(uint64_t x)
{
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/*
 * A forked child inherits the salt and the counter. Its pid alone does not
 * set it apart: in a pid namespace, or once pid_max wraps, the parent's
 * next child with the same pid would get the same ids, and the reader would
 * take the two processes' chunks for one chain's snapshots. The instant of
 * the fork does: a pid is free again only after its last holder has died,
 * so two processes with the same pid never fork at the same nanosecond.
 */
void rec_chain_ids_fork_child(void)
{
    chain_salt = mix64(chain_salt ^ mix64((uint64_t)(uint32_t)rec_pid ^
                                          mix64((uint64_t)rec_now_ns())));
}

uint64_t rec_chain_id_new(void)
{
    return chain_salt ^ (__atomic_add_fetch(&chain_counter, 1,
                                             __ATOMIC_RELAXED) *
                          0x9e3779b97f4a7c15ULL);
}

/* -------------------------------------------------------------- chunks */

uint32_t rec_slot_number(const struct rec_thread *t)
{
    return (uint32_t)(t->ps - rec_seg_slot_at(rec_seg, 0)) + 1;
}

/* internal.h; pub is 0 here, so buf may change. */
void rec_chain_begin(struct rec_thread *t, uint32_t bi, int64_t now)
{
    struct rec_seg_slot *ps = t->ps;

    __atomic_store_n(&ps->gen, ps->gen + 1, __ATOMIC_RELEASE);
    __atomic_store_n(&ps->buf, bi, __ATOMIC_RELEASE);
    if (bi)
        iot_enc_begin(&t->enc, rec_buf_data(bi), REC_CHUNK_CAP, now);
    else
        iot_enc_begin(&t->enc, NULL, 0, now);   /* every append fails */
    __atomic_store_n(&ps->base_t, now, __ATOMIC_RELAXED);
    __atomic_store_n(&ps->gen, ps->gen + 1, __ATOMIC_RELEASE);
}

/*
 * Keeps the buffer when the chunk is empty. The chunk is queued before the
 * slot lets go of it: a process killed in between leaves the chunk to the
 * queue, its buffer marked queued, never lost nor written twice.
 */
int rec_chunk_close(struct rec_thread *t, uint32_t flags)
{
    struct rec_seg_slot *ps = t->ps;
    uint32_t bi = ps->buf;
    struct iot_chunk_hdr *h;

    if (!bi || t->enc.nrec == 0)
        return 0;
    h = &rec_seg_meta(rec_seg, bi)->hdr;
    memset(h, 0, sizeof(*h));
    h->version = IOT_FORMAT_VERSION;
    h->flags = flags;
    h->pid = rec_pid;
    h->tid = t->tid;
    h->chain_id = ps->chain_id;
    h->seq = ps->seq;
    h->nrec = t->enc.nrec;
    h->base_t = t->enc.base_t;
    h->bytes = (uint32_t)t->enc.len;
    __atomic_store_n(&ps->gen, ps->gen + 1, __ATOMIC_RELEASE);
    rec_queue_push(bi);
    __atomic_store_n(&ps->pub, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&ps->buf, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&ps->seq, ps->seq + 1, __ATOMIC_RELAXED);
    __atomic_store_n(&ps->gen, ps->gen + 1, __ATOMIC_RELEASE);
    __atomic_or_fetch(&t->due, REC_DUE_FLUSH, __ATOMIC_RELAXED);
    return 1;
}

void rec_chunk_switch(struct rec_thread *t, int64_t now)
{
    int saved = errno;
    uint32_t bi = t->ps->buf;

    if (rec_collected) {
        rec_collect_fds_check();
        if (!__atomic_load_n(&rec_active, __ATOMIC_ACQUIRE)) {
            /* the collector has taken our buffers back: queue nothing,
               and let every append fail from now on */
            iot_enc_begin(&t->enc, NULL, 0, now);
            errno = saved;
            return;
        }
    }
    if (rec_chunk_close(t, 0) || !bi)
        bi = rec_buf_get(rec_slot_number(t));
    rec_chain_begin(t, bi, now);
    rec_clock_tick(now);
    errno = saved;
}
