/*
 * kstack.c - a kernel-path call's user stack as the trace's stack string,
 * "MODULE+0xOFF" frames innermost first (docs/trace-format.md 5.11), and
 * the module records (5.10) of the modules it names, before the call.
 *
 * The BPF side walks frame pointers; a frame is kept only where that walk
 * can be trusted, so a stack is cut rather than wrong:
 *  - the first frame is the syscall instruction's address, always true;
 *  - each further frame was read through the frame pointer of the frame
 *    below it: kept only when that frame's code keeps frame pointers (a Go
 *    binary; a module most of whose functions set one up; JIT code), and
 *    when it is a return address (the bytes before it are a call) in a
 *    module, or one in anonymous executable memory (JIT code);
 *  - a stack of fewer than two kept frames is none. A process that had
 *    such calls gets one `lost` record (`stack_no_frame_pointers`) at its
 *    end: its stacks are missing, not wrong.
 *
 * Modules: the executable from what the kernel said at exec (its path and
 * where its code was mapped), so a process gone before user space looked
 * still has it; the rest from /proc/PID/maps at the first stack that
 * needs one, read again (at most KSCAN_MAX times) for a frame none holds.
 */
#include <inttypes.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kconv_int.h"
#include "kevent.h"
#include "kstack.h"

#define KMODS      64
#define KANON      32
#define KCACHE     128
#define KSCAN_MAX  4

struct kmod {
    char *path;
    uint64_t lo, hi, bias;
    struct kelf elf;
    int recorded;          /* its module record is in the trace */
};

struct kstacks {
    struct kmod mods[KMODS];
    unsigned nmods;
    struct { uint64_t lo, hi; } anon[KANON];    /* anonymous executable memory */
    unsigned nanon;
    unsigned scans;
    uint64_t refused;      /* calls whose stack could not be trusted */
    struct { uint32_t id; char *s; } cache[KCACHE];
};

static struct kstacks *stacks_of(struct kproc *p)
{
    if (!p->stk)
        p->stk = calloc(1, sizeof(*p->stk));
    return p->stk;
}

static struct kmod *mod_add(struct kstacks *s, const char *path, uint64_t lo, uint64_t hi)
{
    struct kmod *m;

    for (unsigned i = 0; i < s->nmods; i++)
        if (strcmp(s->mods[i].path, path) == 0) {
            m = &s->mods[i];
            if (lo < m->lo)
                m->lo = lo;
            if (hi > m->hi)
                m->hi = hi;
            return NULL;   /* known: its bias from its first mapping */
        }
    if (s->nmods == KMODS)
        return NULL;
    m = &s->mods[s->nmods];
    memset(m, 0, sizeof(*m));
    m->path = strdup(path);
    if (!m->path || kelf_read(path, &m->elf) != 0) {
        free(m->path);
        return NULL;
    }
    m->lo = lo;
    m->hi = hi;
    s->nmods++;
    return m;
}

void kstack_exec(struct kproc *p, const char *exe, uint64_t start_code, uint64_t end_code)
{
    struct kstacks *s;
    struct kmod *m;
    uint64_t text = UINT64_MAX;

    kstack_free(p);
    if (!exe || exe[0] != '/' || !start_code || end_code <= start_code || !(s = stacks_of(p)))
        return;
    m = mod_add(s, exe, start_code, end_code);
    if (!m)
        return;
    /* the kernel put its lowest executable segment's vaddr at start_code */
    for (unsigned i = 0; i < m->elf.nseg; i++)
        if (m->elf.seg[i].exec && m->elf.seg[i].vaddr < text)
            text = m->elf.seg[i].vaddr;
    m->bias = text == UINT64_MAX ? 0 : start_code - text;
}

/* /proc/PID/maps: the file mappings with code, and anonymous executable memory. */
static void scan_maps(struct kproc *p, struct kstacks *s)
{
    char file[64], line[PATH_MAX + 128];
    FILE *f;

    s->scans++;
    snprintf(file, sizeof(file), "/proc/%d/maps", (int)p->pid);
    f = fopen(file, "re");
    if (!f)
        return;
    while (fgets(line, sizeof(line), f)) {
        uint64_t lo, hi, off;
        char perms[8];
        int at = 0;
        const char *path;
        struct kmod *m;

        if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %n", &lo, &hi, perms,
                   &off, &at) < 4 || !at || perms[2] != 'x')
            continue;
        path = line + at;
        line[strcspn(line, "\n")] = '\0';
        if (path[0] == '/') {
            if ((m = mod_add(s, path, lo, hi)) != NULL && kelf_bias(&m->elf, lo, off, &m->bias) < 0)
                m->bias = lo - off;
        } else if ((!path[0] || strncmp(path, "[anon", 5) == 0) && s->nanon < KANON) {
            s->anon[s->nanon].lo = lo;
            s->anon[s->nanon].hi = hi;
            s->nanon++;
        }
    }
    fclose(f);
}

/* The module holding address ip, NULL when none; *anon when JIT memory holds it. */
static struct kmod *mod_at(struct kproc *p, struct kstacks *s, uint64_t ip, int *anon)
{
    *anon = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (unsigned i = 0; i < s->nmods; i++)
            if (ip >= s->mods[i].lo && ip < s->mods[i].hi)
                return &s->mods[i];
        for (unsigned i = 0; i < s->nanon; i++)
            if (ip >= s->anon[i].lo && ip < s->anon[i].hi) {
                *anon = 1;
                return NULL;
            }
        if (pass || s->scans >= KSCAN_MAX)
            break;
        scan_maps(p, s);
    }
    return NULL;
}

static void put_module(struct kconv *k, struct kproc *p, struct kchain *c, int64_t t,
                       struct kmod *m)
{
    if (m->recorded)
        return;
    m->recorded = 1;
    if (iot_enc_module(&c->enc, t, m->path, m->bias, m->elf.build_id, m->elf.id_len) != 0) {
        write_chunk(k, p->pid, c, 0);
        iot_enc_module(&c->enc, t, m->path, m->bias, m->elf.build_id, m->elf.id_len);
    }
}

/* The frames of ips that can be trusted (above), as text; NULL when fewer than two. */
static char *stack_text(struct kconv *k, struct kproc *p, struct kstacks *s, struct kchain *c,
                        int64_t t, const uint64_t *ips, int n)
{
    char buf[KEV_STACK_DEPTH * 256];
    size_t len = 0;
    int kept = 0, below_fp = 1;
    struct kmod *used[KEV_STACK_DEPTH];

    for (int i = 0; i < n && ips[i]; i++) {
        int anon, w;
        struct kmod *m = mod_at(p, s, ips[i], &anon);

        if ((!m && !anon) || !below_fp || (i > 0 && m && !kelf_after_call(&m->elf, ips[i] - m->bias)))
            break;
        if (m)
            w = snprintf(buf + len, sizeof(buf) - len, "%s%s+0x%" PRIx64, len ? "\n" : "", m->path,
                         ips[i] - m->bias);
        else
            w = snprintf(buf + len, sizeof(buf) - len, "%s[jit:%d]+0x%" PRIx64, len ? "\n" : "",
                         (int)p->pid, ips[i]);
        if (w < 0 || (size_t)w >= sizeof(buf) - len)
            break;
        len += (size_t)w;
        used[kept++] = m;
        below_fp = anon || m->elf.frame_pointers;
    }
    if (kept < 2)
        return NULL;
    for (int i = 0; i < kept; i++)
        if (used[i])
            put_module(k, p, c, t, used[i]);
    return strdup(buf);
}

const char *kstack_of(struct kconv *k, struct kproc *p, int32_t tid, int64_t t, uint32_t stack)
{
    uint64_t ips[KEV_STACK_DEPTH];
    struct kstacks *s;
    struct kchain *c;
    unsigned slot;
    char *text;
    int n;

    if (!stack || !k->lookup || !(s = stacks_of(p)))
        return NULL;
    slot = (stack * 2654435761u) % KCACHE;
    if (s->cache[slot].id == stack) {
        s->refused += !s->cache[slot].s;
        return s->cache[slot].s;
    }
    n = k->lookup(k->lookup_ctx, stack - 1, ips, KEV_STACK_DEPTH);
    if (n <= 0 || !(c = chain_get(k, p, tid, t)))
        return NULL;
    text = stack_text(k, p, s, c, t, ips, n);
    s->refused += !text;
    free(s->cache[slot].s);
    s->cache[slot].id = stack;
    s->cache[slot].s = text;
    return text;
}

void kstack_note(struct kconv *k, struct kproc *p, int64_t t)
{
    struct iot_event ev = { .kind = IOT_EV_CALL, .op = IOT_OP_LOST, .pid = p->pid,
                            .tid = p->pid, .t = t, .has = IOT_HAS_MODE | IOT_HAS_SIZE };

    if (!p->stk || !p->stk->refused)
        return;
    ev.size = (int64_t)p->stk->refused;
    p->stk->refused = 0;
    put_call(k, p, &ev, NULL, NULL, "stack_no_frame_pointers");
}

void kstack_fork(struct kproc *child, const struct kproc *parent)
{
    const struct kmod *exe = parent->stk && parent->stk->nmods ? &parent->stk->mods[0] : NULL;
    struct kstacks *s;
    struct kmod *m;

    if (!exe || !(s = stacks_of(child)) || !(m = mod_add(s, exe->path, exe->lo, exe->hi)))
        return;
    m->bias = exe->bias;
}

void kstack_free(struct kproc *p)
{
    struct kstacks *s = p->stk;

    if (!s)
        return;
    for (unsigned i = 0; i < s->nmods; i++) {
        kelf_close(&s->mods[i].elf);
        free(s->mods[i].path);
    }
    for (unsigned i = 0; i < KCACHE; i++)
        free(s->cache[i].s);
    free(s);
    p->stk = NULL;
}
