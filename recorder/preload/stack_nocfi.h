/*
 * stack_nocfi.h - one step of the unwinder (stack.c) over a frame of code
 * that no FDE covers: JIT code, interpreter trampolines, a runtime's
 * hand-made code.
 */
#ifndef REC_STACK_NOCFI_H
#define REC_STACK_NOCFI_H

#include <stdint.h>

#pragma GCC visibility push(hidden)

/*
 * The CFA offset (from sp) of a known stub that keeps no frame pointer and
 * returns to pc, or 0 when the code before pc is none (or cannot be read).
 * A syscall: its answer is worth keeping with the address's rule.
 */
unsigned rec_stack_nocfi_stub(uintptr_t pc);

/*
 * *pc is a return address into such code, *sp the stack pointer and *bp
 * the rbp it had there, stub what rec_stack_nocfi_stub said of *pc: the
 * caller's three, and 0; -1 when the frame cannot be stepped over safely
 * (the walk ends there).
 */
int rec_stack_nocfi_step(uintptr_t *pc, uintptr_t *sp, uintptr_t *bp, unsigned stub);

/*
 * nwords words of this thread's stack at addr into out: 0, or -1 when addr
 * is below sp (sp: the stack pointer of the frame being walked), not
 * aligned, far above it, or not mapped. Never faults.
 */
int rec_stack_read(uintptr_t addr, uintptr_t sp, uintptr_t *out, unsigned nwords);

#pragma GCC visibility pop

#endif
