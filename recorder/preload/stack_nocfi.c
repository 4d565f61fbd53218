/*
 * stack_nocfi.c - the unwinder's step over code without CFI (stack_nocfi.h).
 *
 * JIT code keeps rbp as a frame pointer (V8's frames, CPython 3.13's
 * trampolines), so the return address is at rbp+8 and the caller's rbp at
 * rbp; a few known stubs keep none and are recognised by their code. Nothing
 * vouches for the rbp or the stack words it leads to, so every word is read
 * only where it is known to be mapped, or by the kernel, and the chain must
 * climb the stack: the recorder never faults on a stack it does not
 * understand, it stops walking it.
 */
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "rec.h"
#include "sandbox.h"
#include "stack_nocfi.h"

/*
 * The main thread's stack is mapped from sp up to __libc_stack_end (the
 * kernel grows it down, and puts nothing else within 128 MiB below its
 * top), so there a bound does; elsewhere (other threads' stacks, whose
 * bounds would cost glibc a malloc to learn) the kernel copies the words,
 * and an unmapped address fails the copy instead of faulting.
 */
extern void *__libc_stack_end;
#define MAIN_STACK_SPAN ((uintptr_t)1 << 27)

int rec_stack_read(uintptr_t addr, uintptr_t sp, uintptr_t *out, unsigned nwords)
{
    uintptr_t top = (uintptr_t)__libc_stack_end;
    size_t len = nwords * sizeof(uintptr_t);
    struct iovec local = { out, len };
    struct iovec remote = { (void *)addr, len };

    if (addr < sp || (addr & 7) || addr - sp > MAIN_STACK_SPAN)
        return -1;
    if (sp <= top && top - sp < MAIN_STACK_SPAN) {
        if (addr + len > top)
            return -1;
        memcpy(out, (const void *)addr, len);
        return 0;
    }
    if (rec_filter_may_stand())
        return -1;
    return syscall(SYS_process_vm_readv, (long)rec_pid, &local, 1UL, &remote, 1UL, 0UL) ==
                   (long)len ? 0 : -1;
}

/*
 * Stubs without CFI that keep no frame pointer, known by the instructions
 * that end at their return address: the caller's frame is at sp + cfa
 * (the return address at cfa - 8, rbp unchanged). CPython 3.12's perf
 * trampoline (Python/asm_trampoline.S: sub $8,%rsp; call *%rcx; add
 * $8,%rsp; ret) is one; one copy of it per Python function is what
 * `-X perf` names in the perf map.
 */
static const struct {
    uint8_t len, code[6];
    uint8_t cfa;
} frameless_stubs[] = {
    { 6, { 0x48, 0x83, 0xec, 0x08, 0xff, 0xd1 }, 16 },
};

unsigned rec_stack_nocfi_stub(uintptr_t pc)
{
    if (rec_filter_may_stand())
        return 0;
    for (size_t i = 0; i < sizeof(frameless_stubs) / sizeof(frameless_stubs[0]); i++) {
        size_t len = frameless_stubs[i].len;
        uint8_t code[sizeof(frameless_stubs[i].code)];
        struct iovec local = { code, len }, remote = { (void *)(pc - len), len };

        /* by the kernel: a return address read off an unknown frame may
           point anywhere */
        if (syscall(SYS_process_vm_readv, (long)rec_pid, &local, 1UL, &remote, 1UL, 0UL) ==
                (long)len &&
            memcmp(code, frameless_stubs[i].code, len) == 0)
            return frameless_stubs[i].cfa;
    }
    return 0;
}

int rec_stack_nocfi_step(uintptr_t *pc, uintptr_t *sp, uintptr_t *bp, unsigned stub)
{
    uintptr_t two[2];

    if (stub) {
        if (rec_stack_read(*sp + stub - 2 * sizeof(uintptr_t), *sp, two, 2) < 0)
            return -1;
        *pc = two[1];
        *sp += stub;
        return 0;
    }
    /* the caller's rbp and the return address */
    if (rec_stack_read(*bp, *sp, two, 2) < 0)
        return -1;
    *pc = two[1];
    *sp = *bp + 2 * sizeof(uintptr_t);
    *bp = two[0];
    return 0;
}
