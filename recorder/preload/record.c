/*
 * record.c - encoding a call into the calling thread's open chunk, the
 * guard held: the general case (rec_call_in: strings, any fields), the data
 * fast path's slow side (rec_data, inline in rec.h, when its record did not
 * fit or the chunk has grown old), and a lost record (rec_lost_in). Entering
 * the recorder for a call is call.c's.
 *
 * A record is published (rec_publish) only once it is whole, so a
 * snapshot never sees half of one.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"
#include "sandbox.h"

int rec_active;

/*
 * A record that found no room even in a fresh chunk: with recording on, its
 * thread has no buffer only when none could be mapped (bufpool.c); the
 * call is counted for the process's `no_memory` lost record.
 */
static void note_unkept(const struct rec_thread *t)
{
    if (t->enc.cap == 0 && __atomic_load_n(&rec_active, __ATOMIC_RELAXED) &&
        !__atomic_load_n(&rec_stopped, __ATOMIC_RELAXED))
        rec_skipped(REC_SKIP_NO_MEMORY);
}

void rec_data_slow(struct rec_thread *t, int written, unsigned op, int32_t fd,
                   uint64_t stream, int64_t size, int64_t ret, int32_t err,
                   int64_t a, int64_t dur)
{
    if (written) {
        /* In, but the chunk is a second old: close it, start the next. */
        rec_publish(t);
        rec_chunk_switch(t, a + dur);
        return;
    }
    /* Full: a fresh chunk always has room for one fd record. */
    rec_chunk_switch(t, a);
    if (iot_enc_io_inline(&t->enc, op, fd, stream, size, ret, err, a, dur) == 0)
        rec_publish(t);
    else
        note_unkept(t);
}

/* Whether the chunk holds the record as last appended (ids are chunk-local). */
static int put_call(struct rec_thread *t, struct iot_event *ev,
                    const char *path, const char *mode, const char *stack)
{
    struct iot_enc *e = &t->enc;

    if (path && iot_enc_str(e, path, strlen(path), &ev->path_id) != 0)
        return -1;
    if (mode && iot_enc_str(e, mode, strlen(mode), &ev->mode_id) != 0)
        return -1;
    if (stack && iot_enc_str_keyed(e, stack, rec_stack_text_of(stack)->len,
                                   rec_stack_text_of(stack)->key, &ev->stack_id) != 0)
        return -1;
    return iot_enc_call(e, ev);
}

void rec_call_in(struct rec_thread *t, struct iot_event *ev, const char *path,
                 const char *mode, const char *stack, uint64_t s0, uint64_t s1)
{
    const struct rec_clock *c = __atomic_load_n(&rec_clock_cur,
                                                __ATOMIC_ACQUIRE);

    ev->kind = IOT_EV_CALL;
    ev->t = rec_ns_with(c, s0);
    ev->dur = rec_ns_between(c, s0, s1);
    if (path)
        ev->has |= IOT_HAS_PATH;
    if (mode)
        ev->has |= IOT_HAS_MODE;
    if (stack)
        ev->has |= IOT_HAS_STACK;
    if (put_call(t, ev, path, mode, stack) != 0) {
        rec_chunk_switch(t, ev->t);
        if (put_call(t, ev, path, mode, stack) != 0) {
            note_unkept(t);
            return;
        }
    }
    rec_publish(t);
    if (ev->t - t->enc.base_t >= REC_CHUNK_AGE)
        rec_chunk_switch(t, ev->t + ev->dur);
}

/* A lost record, appended by t, which holds the guard. */
void rec_lost_in(struct rec_thread *t, const char *why, uint64_t count)
{
    struct iot_event ev = rec_lost_event(count);
    int saved = errno;
    uint64_t s;

    if (!rec_active)
        return;
    s = rec_stamp();
    rec_call_in(t, &ev, NULL, why, NULL, s, s);
    errno = saved;
}
