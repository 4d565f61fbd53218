/*
 * stack_cfi.h - the unwind rule of a return address, worked out from its
 * module's .eh_frame (stack_cfi.c) for the walk in stack.c.
 */
#ifndef REC_STACK_CFI_H
#define REC_STACK_CFI_H

#include <stdint.h>

#pragma GCC visibility push(hidden)

/*
 * The unwind rule of one return address, packed: 0 is "not known yet".
 * Bits 0-31 the CFA's offset, 32 CFA from rbp (else rsp), 33-40 the return
 * address's offset from the CFA + 128, 41 rbp saved, 42-49 its offset from
 * the CFA + 128, 50-59 the module generation it was worked out in (a rule
 * of an older one is worked out again: the code at its address may be
 * another module's since a dlclose); bits 60-61 the kind; bit 62 (with
 * RULE_STOP) says no FDE covers the address: walk by frame pointer, or,
 * when bits 0-7 are not 0, as a frameless stub whose CFA is sp plus them
 * (stack_nocfi.c).
 */
#define RULE_WALK   (1ull << 60)     /* a frame the walk goes through */
#define RULE_END    (2ull << 60)     /* the outermost frame */
#define RULE_STOP   (3ull << 60)     /* no usable rule: stop here */
#define RULE_KIND(r) ((r) & (3ull << 60))
#define RULE_NO_CFI (1ull << 62)
#define RULE_CFA_BP (1ull << 32)
#define RULE_BP_SAVED (1ull << 41)
#define RULE_GEN_SHIFT 50
#define RULE_GEN_MASK  0x3ffull
#define RULE_GEN(r)   (((r) >> RULE_GEN_SHIFT) & RULE_GEN_MASK)

/*
 * The rule for return address pc, from the CFI of the module it is in
 * (modules.c's table, which the caller keeps from changing), without the
 * generation bits; RULE_STOP with RULE_NO_CFI where no FDE covers it.
 */
uint64_t rec_cfi_rule(uintptr_t pc);

#pragma GCC visibility pop

#endif
