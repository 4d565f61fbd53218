/*
 * stack_cfi.c - an x86-64 return address's unwind rule, read from its
 * module's CFI: .eh_frame_hdr's table finds the FDE (a binary search), the
 * CIE's and then the FDE's call frame instructions run up to the address,
 * and the state reached there is packed into one word (stack_cfi.h). Only
 * what ordinary compiled code uses is understood: a CFA of rsp or rbp plus
 * a constant, the return address and rbp saved at offsets from it; any
 * other rule stops the walk at that frame.
 */
#include <stdint.h>
#include <string.h>

#include "modules.h"
#include "stack_cfi.h"
#include "stack_nocfi.h"

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

uint64_t rec_cfi_rule(uintptr_t pc)
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

