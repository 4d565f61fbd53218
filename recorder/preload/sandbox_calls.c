/*
 * sandbox_calls.c - the program's prctl and seccomp calls that change what
 * the process may do (sandbox.h: rec_sandbox_before, rec_sandbox_after):
 * a filter about to stand, strict mode (everything recorded so far is
 * flushed first), the TSC given up or back. What the process forbids is
 * sandbox.c's to know.
 */
#include <linux/seccomp.h>
#include <sys/prctl.h>

#include "internal.h"
#include "sandbox.h"

/* ------------------------------------------------ prctl and seccomp calls */

/* before()'s tokens: what to undo if the call fails. */
#define TOKEN_NONE         0u
#define TOKEN_FILTER       1u   /* the filter bit was set by this call */
#define TOKEN_TSC_OFF      4u   /* the TSC was given up for this call */
#define TOKEN_TSC_ON       8u   /* the TSC may be read again after it */
#define TOKEN_STRICT_BIT  16u   /* the strict bit was set by this call */

/*
 * Strict mode: everything so far goes to the trace now, while the syscalls
 * that takes are allowed (and libzstd is loaded, by a process that writes
 * its own frames). From then on recording needs none but write: records go
 * into the chunk in memory, a full chunk to the collector's queue (it is
 * not woken: it looks by itself) or compressed and written by the process,
 * and the exit (syscall(SYS_exit), the only one allowed) is recorded by
 * the syscall() wrapper.
 */
static void enter_strict(void)
{
    rec_flush_all();
}

unsigned rec_sandbox_before(int seccomp, long op, unsigned long arg)
{
    unsigned token = TOKEN_NONE, had = rec_sandbox;
    int strict, filter;

    if (seccomp) {
        strict = op == SECCOMP_SET_MODE_STRICT;
        filter = op == SECCOMP_SET_MODE_FILTER;
    } else if (op == PR_SET_SECCOMP) {
        strict = arg == SECCOMP_MODE_STRICT;
        filter = arg == SECCOMP_MODE_FILTER;
    } else if (op == PR_SET_NO_NEW_PRIVS) {
        strict = 0;
        filter = arg == 1;
    } else if (op == PR_SET_TSC) {
        if (arg == PR_TSC_SIGSEGV && !(had & REC_SANDBOX_NOTSC)) {
            __atomic_or_fetch(&rec_sandbox, REC_SANDBOX_NOTSC, __ATOMIC_RELAXED);
            rec_clock_tsc_off();
            return TOKEN_TSC_OFF;
        }
        return arg == PR_TSC_ENABLE && (had & REC_SANDBOX_NOTSC) &&
                       !(had & REC_SANDBOX_STRICT) ? TOKEN_TSC_ON : TOKEN_NONE;
    } else {
        return TOKEN_NONE;
    }
    if (filter && !(had & REC_SANDBOX_FILTER)) {
        rec_cwd_remember();   /* the last getcwd of ours: no filter yet */
        __atomic_or_fetch(&rec_sandbox, REC_SANDBOX_FILTER, __ATOMIC_RELAXED);
        token |= TOKEN_FILTER;
    }
    if (strict && !(had & REC_SANDBOX_STRICT)) {
        if (rec_active)
            enter_strict();
        __atomic_or_fetch(&rec_sandbox, REC_SANDBOX_STRICT, __ATOMIC_RELAXED);
        token |= TOKEN_STRICT_BIT;
        if (!(had & REC_SANDBOX_NOTSC)) {
            __atomic_or_fetch(&rec_sandbox, REC_SANDBOX_NOTSC, __ATOMIC_RELAXED);
            rec_clock_tsc_off();
            token |= TOKEN_TSC_OFF;
        }
    }
    return token;
}

void rec_sandbox_after(unsigned token, long r)
{
    if (token == TOKEN_NONE)
        return;
    if (r == 0) {
        if (token & TOKEN_TSC_ON) {
            __atomic_and_fetch(&rec_sandbox, ~REC_SANDBOX_NOTSC, __ATOMIC_RELAXED);
            rec_clock_tsc_on();
        }
        return;
    }
    /* The call failed: nothing changed, the recorder goes back to its ways. */
    if (token & TOKEN_FILTER)
        __atomic_and_fetch(&rec_sandbox, ~REC_SANDBOX_FILTER, __ATOMIC_RELAXED);
    if (token & TOKEN_TSC_OFF) {
        __atomic_and_fetch(&rec_sandbox, ~REC_SANDBOX_NOTSC, __ATOMIC_RELAXED);
        rec_clock_tsc_on();
    }
    if (token & TOKEN_STRICT_BIT)
        __atomic_and_fetch(&rec_sandbox, ~REC_SANDBOX_STRICT, __ATOMIC_RELAXED);
}
