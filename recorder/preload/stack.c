/*
 * stack.c - call stacks at open/fopen: raw return addresses, walked from the
 * modules' .eh_frame with a rule cached per return address.
 *
 * Nothing is symbolized here. A stack is stored as the SPEC's frame text
 * with no symbol, "MODULE+0xOFF", where MODULE is the module's full path
 * and OFF the return address minus the module's load bias (the ELF virtual
 * address, what addr2line and libdw take); modules.c writes each module's
 * build-id once per process, and ioanalyze turns frames into functions and
 * source lines offline.
 *
 * The walk: on x86-64 the return address of a frame is at CFA-8, and the
 * CFA is rsp or rbp plus a constant at every call site of ordinary
 * compiled code; where rbp was saved is the other thing a caller's frame
 * needs. That rule is worked out once per return address from the FDE that
 * .eh_frame_hdr finds (a binary search), by running its CFI program up to
 * the address, and kept in a lock-free table, so a repeated stack costs a
 * table probe and two loads per frame. A CFA given by a DWARF expression
 * (signal trampolines) or an undefined return address (_start, thread
 * starts) ends the walk there.
 *
 * Code that no FDE covers - JIT code and interpreter trampolines in
 * anonymous memory, a runtime's hand-made code in its binary (V8's
 * builtins) - is stepped over by its frame pointer (stack_nocfi.c). Such
 * a frame outside every module is stored as "[jit:PID]+0xADDR", and
 * perfmap.c copies the runtime's name for it into the trace.
 *
 * The recorder's own frames (anything in this library) are dropped, so the
 * first frame is the caller of the libc function. Whole stack strings are
 * cached by their addresses. Memory comes from mmap'd arenas (arena.c) and
 * is never freed: the encoder refers to stack strings by pointer.
 */
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "arena.h"
#include "beamframe.h"
#include "hash.h"
#include "sandbox.h"
#include "modules.h"
#include "perfmap.h"
#include "pyframe.h"
#include "rec.h"
#include "stack_nocfi.h"

#define MAX_FRAMES   24
#define MAX_WALK     64            /* frames walked, the recorder's included */
#define MAX_FP_STEPS 32            /* of them, by frame pointer */
#define PC_SLOTS     8192
#define STACK_SLOTS  4096

static uintptr_t self_lo, self_hi;          /* this library's mapping */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

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
 * Bumped by every dlclose (wrap_dl.c): rules, cached stacks and the module
 * table of an earlier generation are not trusted.
 */
static unsigned modules_gen;
static unsigned scanned_gen;                /* under the lock */

/*
 * Written under the lock, read without it: a free slot gets its rule, then
 * its pc (release); a slot keeps its pc for good, and only its rule is
 * replaced, by a newer generation's for the same pc (one 64-bit store).
 */
static struct { uintptr_t pc; uint64_t rule; } pc_cache[PC_SLOTS];
/* Under the lock. */
static struct { uint64_t hash; const char *s; } stack_cache[STACK_SLOTS];

/* ------------------------------------------------------------ CFI reading */

#define DW_EH_PE_omit    0xff
#define DW_EH_PE_pcrel   0x10
#define DW_EH_PE_datarel 0x30
#define DW_EH_PE_indirect 0x80

#define REG_RBP 6
#define REG_RSP 7
#define REG_RA  16

struct cur {
    const uint8_t *p, *end;
};

static int uleb(struct cur *c, uint64_t *out)
{
    uint64_t v = 0;

    for (unsigned shift = 0; c->p < c->end && shift < 64; shift += 7) {
        uint8_t b = *c->p++;

        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return 0;
        }
    }
    return -1;
}

static int sleb(struct cur *c, int64_t *out)
{
    uint64_t v = 0;
    unsigned shift = 0;
    uint8_t b;

    do {
        if (c->p >= c->end || shift >= 64)
            return -1;
        b = *c->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        shift += 7;
    } while (b & 0x80);
    if (shift < 64 && (b & 0x40))
        v |= ~(uint64_t)0 << shift;
    *out = (int64_t)v;
    return 0;
}

/* A pointer in encoding enc (DW_EH_PE_*); datarel is the base for datarel. */
static int encoded(struct cur *c, uint8_t enc, uintptr_t datarel, uintptr_t *out)
{
    uintptr_t base = 0, v;
    const uint8_t *at = c->p;

    if (enc == DW_EH_PE_omit)
        return -1;
    switch (enc & 0x70) {
    case 0x00: break;
    case DW_EH_PE_pcrel: base = (uintptr_t)at; break;
    case DW_EH_PE_datarel: base = datarel; break;
    default: return -1;
    }
#define FIXED_(type)                                                           \
    do {                                                                       \
        type x_;                                                               \
        if ((size_t)(c->end - c->p) < sizeof(x_))                              \
            return -1;                                                         \
        memcpy(&x_, c->p, sizeof(x_));                                         \
        c->p += sizeof(x_);                                                    \
        v = (uintptr_t)x_;                                                     \
    } while (0)
    switch (enc & 0x0f) {
    case 0x00: FIXED_(uintptr_t); break;
    case 0x01: { uint64_t u; if (uleb(c, &u) < 0) return -1; v = (uintptr_t)u; break; }
    case 0x02: FIXED_(uint16_t); break;
    case 0x03: FIXED_(uint32_t); break;
    case 0x04: FIXED_(uint64_t); break;
    case 0x09: { int64_t s; if (sleb(c, &s) < 0) return -1; v = (uintptr_t)s; break; }
    case 0x0a: FIXED_(int16_t); break;
    case 0x0b: FIXED_(int32_t); break;
    case 0x0c: FIXED_(int64_t); break;
    default: return -1;
    }
#undef FIXED_
    v += base;
    if (enc & DW_EH_PE_indirect)
        v = *(const uintptr_t *)v;
    *out = v;
    return 0;
}

/* Where a register is: 0 unchanged, 1 saved at CFA + off, 2 undefined, 3 unusable. */
struct reg_rule {
    uint8_t how;
    int64_t off;
};

struct cfi_state {
    uint64_t cfa_reg;
    int64_t cfa_off;
    struct reg_rule bp, ra;
};

struct cie {
    uint64_t code_align;
    int64_t data_align;
    uint64_t ra_reg;
    uint8_t fde_enc;
    int has_aug;
    struct cur insns;
};

/* The record (CIE or FDE) at p: its body in *c; -1 when it is empty or bad. */
static int record(const uint8_t *p, struct cur *c)
{
    uint32_t len32;
    uint64_t len;

    memcpy(&len32, p, 4);
    p += 4;
    len = len32;
    if (len32 == 0xffffffffu) {
        memcpy(&len, p, 8);
        p += 8;
    }
    if (len == 0 || len > (1u << 24))
        return -1;
    c->p = p;
    c->end = p + len;
    return 0;
}

static int parse_cie(const uint8_t *at, struct cie *cie)
{
    struct cur c;
    const char *aug;
    uint32_t id;
    uint8_t version;
    uint64_t auglen;

    memset(cie, 0, sizeof(*cie));
    cie->fde_enc = 0;   /* absptr */
    if (record(at, &c) < 0 || c.end - c.p < 6)
        return -1;
    memcpy(&id, c.p, 4);
    c.p += 4;
    version = *c.p++;
    if (id != 0 || (version != 1 && version != 3))
        return -1;
    aug = (const char *)c.p;
    while (c.p < c.end && *c.p)
        c.p++;
    if (c.p++ >= c.end || strstr(aug, "eh"))
        return -1;
    if (uleb(&c, &cie->code_align) < 0 || sleb(&c, &cie->data_align) < 0)
        return -1;
    if (version == 1) {
        if (c.p >= c.end)
            return -1;
        cie->ra_reg = *c.p++;
    } else if (uleb(&c, &cie->ra_reg) < 0) {
        return -1;
    }
    if (aug[0] == 'z') {
        const uint8_t *augend;

        if (uleb(&c, &auglen) < 0 || auglen > (uint64_t)(c.end - c.p))
            return -1;
        augend = c.p + auglen;
        cie->has_aug = 1;
        for (const char *a = aug + 1; *a; a++) {
            uintptr_t skip;

            if (*a == 'R') {
                cie->fde_enc = *c.p++;
            } else if (*a == 'L') {
                c.p++;
            } else if (*a == 'P') {
                uint8_t enc = *c.p++;

                if (encoded(&c, enc & 0x7f, 0, &skip) < 0)
                    return -1;
            } else if (*a != 'S' && *a != 'B') {
                break;
            }
            if (c.p > augend)
                return -1;
        }
        c.p = augend;
    } else if (aug[0]) {
        return -1;
    }
    cie->insns = c;
    return 0;
}

static void set_rule(struct reg_rule *r, uint8_t how, int64_t off)
{
    r->how = how;
    r->off = off;
}

/* The rule of register reg, or NULL when the walk does not need it. */
static struct reg_rule *reg_of(struct cfi_state *st, uint64_t reg)
{
    return reg == REG_RBP ? &st->bp : reg == REG_RA ? &st->ra : NULL;
}

/*
 * Run CFI instructions from loc while the row they describe starts at or
 * before target. init: the state after the CIE's instructions (restore).
 * 0, or -1 on an instruction the walk cannot use.
 */
static int run_cfi(struct cur c, const struct cie *cie, uintptr_t loc, uintptr_t target,
                   struct cfi_state *st, const struct cfi_state *init)
{
    struct cfi_state saved[8];
    unsigned nsaved = 0;

    while (c.p < c.end) {
        uint8_t op = *c.p++;
        uint64_t reg, u, delta = 0;
        int64_t s;
        struct reg_rule *r;

        switch (op >> 6) {
        case 1:
            delta = op & 0x3f;
            goto advance;
        case 2:
            if (uleb(&c, &u) < 0)
                return -1;
            if ((r = reg_of(st, op & 0x3f)) != NULL)
                set_rule(r, 1, (int64_t)u * cie->data_align);
            continue;
        case 3:
            if (!init)
                return -1;
            if ((r = reg_of(st, op & 0x3f)) != NULL)
                *r = *reg_of((struct cfi_state *)init, op & 0x3f);
            continue;
        default:
            break;
        }
        switch (op) {
        case 0x00:  /* nop */
            continue;
        case 0x02: if (c.p + 1 > c.end) return -1; delta = c.p[0]; c.p += 1; goto advance;
        case 0x03: { uint16_t d; if (c.p + 2 > c.end) return -1; memcpy(&d, c.p, 2); c.p += 2; delta = d; goto advance; }
        case 0x04: { uint32_t d; if (c.p + 4 > c.end) return -1; memcpy(&d, c.p, 4); c.p += 4; delta = d; goto advance; }
        case 0x05:  /* offset_extended */
            if (uleb(&c, &reg) < 0 || uleb(&c, &u) < 0)
                return -1;
            if ((r = reg_of(st, reg)) != NULL)
                set_rule(r, 1, (int64_t)u * cie->data_align);
            continue;
        case 0x06:  /* restore_extended */
            if (uleb(&c, &reg) < 0 || !init)
                return -1;
            if ((r = reg_of(st, reg)) != NULL)
                *r = *reg_of((struct cfi_state *)init, reg);
            continue;
        case 0x07:  /* undefined */
        case 0x08:  /* same_value */
            if (uleb(&c, &reg) < 0)
                return -1;
            if ((r = reg_of(st, reg)) != NULL)
                set_rule(r, op == 0x07 ? 2 : 0, 0);
            continue;
        case 0x09:  /* register */
            if (uleb(&c, &reg) < 0 || uleb(&c, &u) < 0)
                return -1;
            if ((r = reg_of(st, reg)) != NULL)
                set_rule(r, 3, 0);
            continue;
        case 0x0a:  /* remember_state */
            if (nsaved == 8)
                return -1;
            saved[nsaved++] = *st;
            continue;
        case 0x0b:  /* restore_state */
            if (nsaved == 0)
                return -1;
            *st = saved[--nsaved];
            continue;
        case 0x0c:  /* def_cfa */
            if (uleb(&c, &st->cfa_reg) < 0 || uleb(&c, &u) < 0)
                return -1;
            st->cfa_off = (int64_t)u;
            continue;
        case 0x0d:  /* def_cfa_register */
            if (uleb(&c, &st->cfa_reg) < 0)
                return -1;
            continue;
        case 0x0e:  /* def_cfa_offset */
            if (uleb(&c, &u) < 0)
                return -1;
            st->cfa_off = (int64_t)u;
            continue;
        case 0x0f:  /* def_cfa_expression */
            if (uleb(&c, &u) < 0 || u > (uint64_t)(c.end - c.p))
                return -1;
            c.p += u;
            st->cfa_reg = UINT64_MAX;   /* unusable */
            continue;
        case 0x10:  /* expression */
        case 0x16:  /* val_expression */
            if (uleb(&c, &reg) < 0 || uleb(&c, &u) < 0 || u > (uint64_t)(c.end - c.p))
                return -1;
            c.p += u;
            if ((r = reg_of(st, reg)) != NULL)
                set_rule(r, 3, 0);
            continue;
        case 0x11:  /* offset_extended_sf */
            if (uleb(&c, &reg) < 0 || sleb(&c, &s) < 0)
                return -1;
            if ((r = reg_of(st, reg)) != NULL)
                set_rule(r, 1, s * cie->data_align);
            continue;
        case 0x12:  /* def_cfa_sf */
            if (uleb(&c, &st->cfa_reg) < 0 || sleb(&c, &s) < 0)
                return -1;
            st->cfa_off = s * cie->data_align;
            continue;
        case 0x13:  /* def_cfa_offset_sf */
            if (sleb(&c, &s) < 0)
                return -1;
            st->cfa_off = s * cie->data_align;
            continue;
        case 0x14:  /* val_offset */
        case 0x15:  /* val_offset_sf */
            if (uleb(&c, &reg) < 0 || (op == 0x14 ? uleb(&c, &u) : sleb(&c, &s)) < 0)
                return -1;
            if ((r = reg_of(st, reg)) != NULL)
                set_rule(r, 3, 0);
            continue;
        case 0x2e:  /* GNU_args_size */
            if (uleb(&c, &u) < 0)
                return -1;
            continue;
        case 0x2f:  /* GNU_negative_offset_extended */
            if (uleb(&c, &reg) < 0 || uleb(&c, &u) < 0)
                return -1;
            if ((r = reg_of(st, reg)) != NULL)
                set_rule(r, 1, -(int64_t)u * cie->data_align);
            continue;
        default:    /* set_loc and anything unknown */
            return -1;
        }
advance:
        if (loc + delta * cie->code_align > target)
            return 0;
        loc += delta * cie->code_align;
    }
    return 0;
}

/* The FDE for pc from a module's .eh_frame_hdr, or NULL. */
static const uint8_t *find_fde(const uint8_t *hdr, uintptr_t pc)
{
    struct cur c = { hdr + 4, hdr + 4 + 16 };
    uintptr_t eh_frame, count;
    const int32_t *table;
    size_t lo = 0, hi;

    /* version 1 and the sorted table GNU ld writes: datarel sdata4 pairs */
    if (hdr[0] != 1 || hdr[3] != (DW_EH_PE_datarel | 0x0b))
        return NULL;
    if (encoded(&c, hdr[1], (uintptr_t)hdr, &eh_frame) < 0 ||
        encoded(&c, hdr[2], (uintptr_t)hdr, &count) < 0 || count == 0)
        return NULL;
    table = (const int32_t *)c.p;
    hi = count;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;

        if ((uintptr_t)hdr + (intptr_t)table[2 * mid] <= pc)
            lo = mid;
        else
            hi = mid;
    }
    if ((uintptr_t)hdr + (intptr_t)table[2 * lo] > pc)
        return NULL;
    return hdr + (intptr_t)table[2 * lo + 1];
}

static uint64_t pack(const struct cfi_state *st)
{
    uint64_t r = RULE_WALK;

    if (st->ra.how == 2)
        return RULE_END;
    if ((st->cfa_reg != REG_RSP && st->cfa_reg != REG_RBP) || st->ra.how != 1 ||
        st->bp.how == 2 || st->bp.how == 3 ||
        st->cfa_off < INT32_MIN || st->cfa_off > INT32_MAX ||
        st->ra.off < -128 || st->ra.off > 127 || st->bp.off < -128 || st->bp.off > 127)
        return RULE_STOP;
    r |= (uint32_t)(int32_t)st->cfa_off;
    if (st->cfa_reg == REG_RBP)
        r |= RULE_CFA_BP;
    r |= (uint64_t)(st->ra.off + 128) << 33;
    if (st->bp.how == 1)
        r |= RULE_BP_SAVED | (uint64_t)(st->bp.off + 128) << 42;
    return r;
}

/* The rule for return address pc, from its module's CFI (lock held). */
static uint64_t work_out_rule(uintptr_t pc)
{
    const struct rec_module *m = rec_module_at(pc - 1);
    const uint8_t *fde;
    struct cur c;
    struct cie cie;
    struct cfi_state st, init;
    uintptr_t begin, range;
    int32_t cie_off;

    if (!m || !m->eh_hdr || (fde = find_fde(m->eh_hdr, pc - 1)) == NULL)
        return RULE_STOP | RULE_NO_CFI | (m ? 0 : rec_stack_nocfi_stub(pc));
    if (record(fde, &c) < 0)
        return RULE_STOP;
    memcpy(&cie_off, c.p, 4);
    if (cie_off <= 0 || parse_cie(c.p - cie_off, &cie) < 0 || cie.ra_reg != REG_RA)
        return RULE_STOP;
    c.p += 4;
    if (encoded(&c, cie.fde_enc, 0, &begin) < 0 ||
        encoded(&c, cie.fde_enc & 0x0f, 0, &range) < 0)
        return RULE_STOP;
    /* the nearest FDE ends before pc: code between functions' CFI */
    if (pc - 1 < begin || pc - 1 >= begin + range)
        return RULE_STOP | RULE_NO_CFI;
    if (cie.has_aug) {
        uint64_t n;

        if (uleb(&c, &n) < 0 || n > (uint64_t)(c.end - c.p))
            return RULE_STOP;
        c.p += n;
    }
    memset(&st, 0, sizeof(st));
    st.cfa_reg = UINT64_MAX;
    if (run_cfi(cie.insns, &cie, 0, UINTPTR_MAX, &st, NULL) < 0)
        return RULE_STOP;
    init = st;
    if (run_cfi(c, &cie, begin, pc - 1, &st, &init) < 0)
        return RULE_STOP;
    return pack(&st);
}

static inline unsigned pc_slot(uintptr_t pc)
{
    return (unsigned)((pc * 0x9e3779b97f4a7c15ull) >> 51) % PC_SLOTS;
}

/* Under the lock: read the modules again when one was unloaded since. */
static void modules_current(unsigned gen)
{
    if (scanned_gen != gen) {
        rec_modules_scan();
        scanned_gen = gen;
    }
}

static uint64_t rule_for(uintptr_t pc, unsigned gen)
{
    unsigned slot = pc_slot(pc);
    uint64_t r;

    for (unsigned i = 0; i < 8; i++) {
        unsigned k = (slot + i) % PC_SLOTS;
        uintptr_t key = __atomic_load_n(&pc_cache[k].pc, __ATOMIC_ACQUIRE);

        if (key == pc) {
            r = __atomic_load_n(&pc_cache[k].rule, __ATOMIC_RELAXED);
            if (RULE_GEN(r) == (gen & RULE_GEN_MASK))
                return r;
            break;
        }
        if (key == 0)
            break;
    }
    pthread_mutex_lock(&lock);
    modules_current(gen);
    r = work_out_rule(pc) | (uint64_t)(gen & RULE_GEN_MASK) << RULE_GEN_SHIFT;
    for (unsigned i = 0; i < 8; i++) {
        unsigned k = (slot + i) % PC_SLOTS;

        if (pc_cache[k].pc == pc) {
            __atomic_store_n(&pc_cache[k].rule, r, __ATOMIC_RELAXED);
            break;
        }
        if (pc_cache[k].pc == 0) {
            pc_cache[k].rule = r;
            __atomic_store_n(&pc_cache[k].pc, pc, __ATOMIC_RELEASE);
            break;
        }
    }
    pthread_mutex_unlock(&lock);
    return r;
}

void rec_stack_modules_unloaded(void)
{
    __atomic_add_fetch(&modules_gen, 1, __ATOMIC_RELEASE);
}

/*
 * The return addresses of the calling stack outside this library, innermost
 * first, into pcs[0..MAX_FRAMES). Never inlined: it starts from its own
 * frame, which __builtin_frame_address gives it with rbp as frame pointer.
 */
static __attribute__((noinline)) int walk(uintptr_t *pcs, unsigned gen)
{
#if !defined(__x86_64__)
    (void)pcs;
    (void)gen;
    return 0;   /* the rules above are x86-64's (rsp, rbp, CFA-8) */
#else
    const uintptr_t *fp = __builtin_frame_address(0);
    uintptr_t sp = (uintptr_t)(fp + 2), bp = fp[0], pc = fp[1];
    uintptr_t bottom = sp;
    int n = 0, fp_steps = 0;

    for (int i = 0; i < MAX_WALK && n < MAX_FRAMES && pc; i++) {
        uint64_t r;
        uintptr_t cfa, ra_at, bp_at;

        if (pc < self_lo || pc >= self_hi)
            pcs[n++] = pc;
        r = rule_for(pc, gen);
        if (RULE_KIND(r) != RULE_WALK) {
            /* code without CFI: stepped over by its frame pointer */
            if (!(r & RULE_NO_CFI) || ++fp_steps > MAX_FP_STEPS ||
                rec_stack_nocfi_step(&pc, &sp, &bp, (unsigned)(r & 0xff)) < 0)
                break;
            continue;
        }
        cfa = ((r & RULE_CFA_BP) ? bp : sp) + (uintptr_t)(intptr_t)(int32_t)(uint32_t)r;
        /* the stack grows down: a caller's frame lies above, and not far */
        if (cfa <= sp || (cfa & 7) || cfa - bottom > ((uintptr_t)1 << 28))
            break;
        ra_at = cfa + (intptr_t)((r >> 33) & 0xff) - 128;
        bp_at = cfa + (intptr_t)((r >> 42) & 0xff) - 128;
        /* past a frame without CFI, the rbp the CFA may come from is
           not vouched for: the loads are checked */
        if (REC_UNLIKELY(fp_steps)) {
            if (rec_stack_read(ra_at, sp, &pc, 1) < 0 ||
                ((r & RULE_BP_SAVED) && rec_stack_read(bp_at, sp, &bp, 1) < 0))
                break;
        } else {
            pc = *(const uintptr_t *)ra_at;
            if (r & RULE_BP_SAVED)
                bp = *(const uintptr_t *)bp_at;
        }
        sp = cfa;
    }
    return n;
#endif
}

/* ------------------------------------------------------------ stack text */

/*
 * The process ends: JIT frames its runtime named only at exit (the JVM's
 * -XX:+DumpPerfMapAtExit) get their records. A thread holding the lock
 * (a stack being taken as another thread exits) leaves them unnamed.
 */
void rec_stack_finish(void)
{
    if (pthread_mutex_trylock(&lock) != 0)
        return;
    rec_perfmap_finish();
    pthread_mutex_unlock(&lock);
}

void rec_stack_fork_prepare(void) { pthread_mutex_lock(&lock); }
void rec_stack_fork_parent(void) { pthread_mutex_unlock(&lock); }

void rec_stack_fork_child(void)
{
    pthread_mutex_init(&lock, NULL);
    rec_modules_forked();
    rec_perfmap_forked();
    rec_py_forked();
}

/*
 * The modules are not scanned here but at the first stack (rec_module_at
 * scans when it meets a module it has not seen): most processes a build
 * or a shell starts never open a file of their own, and the scan reads
 * every module's headers and notes. This library's own range, which the
 * walk skips, is its image as the linker bounds it.
 */
void rec_stack_init(void)
{
    rec_arena_init();
    pthread_atfork(rec_stack_fork_prepare, rec_stack_fork_parent,
                   rec_stack_fork_child);
    self_lo = (uintptr_t)__ehdr_start;
    self_hi = (uintptr_t)_end;
}

/*
 * One frame as "MODULE+0xOFF", or outside every module (JIT code) as
 * "[jit:PID]+0xADDR": the address means something only in this process.
 */
static int frame_text(char *buf, size_t cap, uintptr_t pc, int *jit)
{
    const struct rec_module *m = rec_module_at(pc - 1);

    if (m)
        return snprintf(buf, cap, "%s+0x%lx", m->path, (unsigned long)(pc - m->bias));
    *jit = 1;
    return snprintf(buf, cap, "[jit:%d]+0x%lx", (int)rec_pid, (unsigned long)pc);
}

const char *rec_stack_capture(void)
{
    uintptr_t pcs[MAX_FRAMES];
    struct rec_pyframe py[REC_PY_FRAMES];
    uint64_t h = IOT_FNV64_INIT;
    const char *result = NULL;
    char buf[MAX_FRAMES * (PATH_MAX / 4)];
    struct rec_stack_text *text;
    size_t len = 0;
    unsigned gen = __atomic_load_n(&modules_gen, __ATOMIC_ACQUIRE), slot;
    int n = walk(pcs, gen), jit = 0, npy = n ? rec_py_walk(py, REC_PY_FRAMES) : 0;

    /* a BEAM dirty NIF's: the Erlang caller's frames in front */
    n = rec_beam_frames(pcs, n, MAX_FRAMES);

    if (n == 0)
        return NULL;
    /* an interpreter's frames: the script's, innermost first, above its own */
    for (int i = 0; i < npy; i++)
        h = iot_fnv64_word(iot_fnv64_word(iot_fnv64_word(h, py[i].code), py[i].ident),
                           py[i].offset);
    /* a stack of an earlier generation may name an unloaded module */
    h = iot_fnv64_word(h, gen);
    for (int i = 0; i < n; i++)
        h = iot_fnv64_word(h, pcs[i]);
    h |= 1;   /* 0 marks an empty cache slot */
    slot = (unsigned)(h % STACK_SLOTS);
    pthread_mutex_lock(&lock);
    modules_current(gen);
    if (REC_UNLIKELY(rec_modules_unrecorded))
        rec_modules_record();
    for (unsigned i = 0; i < 8; i++) {
        unsigned k = (slot + i) % STACK_SLOTS;

        if (stack_cache[k].hash == h) {
            result = stack_cache[k].s;
            goto out;
        }
        if (stack_cache[k].hash == 0) {
            slot = k;
            break;
        }
    }
    for (int i = 0; i < npy + n; i++) {
        int w = i < npy ? rec_py_frame_text(buf + len, sizeof(buf) - len, &py[i])
                        : frame_text(buf + len, sizeof(buf) - len, pcs[i - npy], &jit);

        if (w == 0)
            continue;
        if (w < 0 || (size_t)w + 1 >= sizeof(buf) - len)
            break;
        len += (size_t)w;
        buf[len++] = '\n';
    }
    if (len == 0)
        goto out;
    buf[len - 1] = '\0';
    /* a frame in a module loaded just now: its record goes before the call */
    if (rec_modules_unrecorded)
        rec_modules_record();
    /* and so do the runtime's names for its JIT frames */
    if (jit)
        rec_perfmap_name(pcs, n);
    text = rec_arena_alloc(sizeof(*text) + len);
    if (!text)
        goto out;
    text->key = h;
    text->len = len - 1;
    memcpy(text->s, buf, len);
    if (stack_cache[slot].hash == 0) {
        stack_cache[slot].s = text->s;
        stack_cache[slot].hash = h;
    }
    result = text->s;
out:
    pthread_mutex_unlock(&lock);
    return result;
}
