/*
 * finish.c - the ends of a recording: the synchronous flush before exec, the
 * process's exit status, its exit record and final flush (from the library
 * destructor, after the program's atexit handlers, or from _exit), and the
 * exit record of a child killed by a signal, which its parent's wait sees.
 *
 * Nothing is recorded after the exit record: rec_active goes to 0 and the
 * finishing thread's guard to REC_GUARD_OFF.
 */
#include <string.h>

#include "internal.h"
#include "sandbox.h"
#include "real.h"

int rec_finished;
static int exit_status;

/* ----------------------------------------------------------- exit status */

/*
 * The exit status recorded is exit()'s argument, or main's return value,
 * caught on its way out through the __libc_start_main hook.
 */
void rec_note_status(int status)
{
    __atomic_store_n(&exit_status, status & 0xff, __ATOMIC_RELAXED);
}

static int (*program_main)(int, char **, char **);

static int main_hook(int argc, char **argv, char **envp)
{
    int r = program_main(argc, argv, envp);

    rec_note_status(r);
    return r;
}

int __libc_start_main(int (*main)(int, char **, char **), int argc,
                      char **argv, void (*init)(void), void (*fini)(void),
                      void (*rtld_fini)(void), void *stack_end)
{
    program_main = main;
    return REAL(__libc_start_main)(main_hook, argc, argv, init, fini,
                                   rtld_fini, stack_end);
}

/* ------------------------------------------------------------- flushing */

/* Append the counts skipped since the last report as `lost` records. */
static void skipped_report(void)
{
    for (int i = 0; i < REC_SKIP_N; i++) {
        const char *why;
        uint64_t n = rec_skipped_take((enum rec_skip)i, &why);

        if (n)
            rec_lost(why, n);
    }
}

void rec_flush_all(void)
{
    struct rec_thread *t = rec_self;
    int saved = errno, g = rec_guard;

    if (!rec_active || !rec_started)
        return;
    if (g == 0)
        skipped_report();
    rec_guard = REC_GUARD_IN;
    if (t)
        rec_chunk_switch(t, rec_now_ns());
    rec_flush_now();
    if (g == 0)
        rec_leave();
    else
        rec_guard = g;
    errno = saved;
}

/* --------------------------------------------------------- exit records */

void rec_finish(int status, int sig)
{
    struct rec_thread *t;
    int saved = errno;
    int64_t now;

    if (rec_collected && !rec_guard)
        rec_collect_fds_check();   /* may stop recording: then no exit record */
    if (!rec_active || rec_finished)
        return;
    if (rec_guard == 0) {
        skipped_report();
        if (rec_stacks)
            rec_stack_finish();
    }
    if (__atomic_exchange_n(&rec_finished, 1, __ATOMIC_ACQ_REL))
        return;
    rec_guard = REC_GUARD_IN;
    t = rec_self;
    now = rec_now_ns();
    if (!t) {
        rec_finished = 0;
        t = rec_thread_init(0, now);
        rec_finished = 1;
    }
    if (t) {
        if (iot_enc_exit(&t->enc, now, status, sig) != 0) {
            rec_chunk_switch(t, now);
            iot_enc_exit(&t->enc, now, status, sig);
        }
        rec_publish(t);
        rec_chunk_close(t, IOT_CHUNK_LAST);
    }
    rec_flush_now();
    __atomic_store_n(&rec_active, 0, __ATOMIC_RELEASE);
    errno = saved;
    /* Nothing after the exit record is recorded. */
    rec_guard = REC_GUARD_OFF;
}

void rec_child_killed(pid_t pid, int sig)
{
    uint32_t bi;

    if (!rec_active || pid <= 0)
        return;
    bi = rec_buf_get(REC_BUF_FREE);     /* mapped, when not 0 */
    if (!bi)
        return;
    /* A one-record chunk in the child's name: it could not write it itself. */
    if (iot_enc_kill_chunk(rec_buf_data(bi), REC_CHUNK_CAP, pid, sig, rec_now_ns(),
                           rec_chain_id_new(), &rec_seg_meta(rec_seg, bi)->hdr) < 0) {
        rec_buf_put(bi);
        return;
    }
    rec_queue_push(bi);
    if (rec_self)
        __atomic_or_fetch(&rec_self->due, REC_DUE_FLUSH, __ATOMIC_RELAXED);
    else
        rec_trace_flush();
}

/* main returned or exit() ran: the status they gave is the one recorded. */
__attribute__((destructor)) static void rec_fini(void)
{
    rec_finish(__atomic_load_n(&exit_status, __ATOMIC_RELAXED), 0);
}
