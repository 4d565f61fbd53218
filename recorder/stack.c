/*
 * stack.c - call stacks at open/fopen, symbolized once per address.
 *
 * backtrace() gives return addresses; the recorder's own frames (anything in
 * this library's mapping) are dropped so the first frame is the caller of
 * the libc function. Each address becomes "function+0xOFF (module)" through
 * dladdr, or "module+0xOFF" without a symbol, and is cached; whole stacks are
 * cached by their addresses, so a repeated open costs one unwind and a
 * lookup. Memory comes from mmap'd arenas and is never freed: stacks of a
 * program are few and the encoder refers to them by pointer.
 */
#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hash.h"
#include "rec.h"

#define MAX_FRAMES   24
#define ADDR_SLOTS   8192
#define STACK_SLOTS  4096
#define ARENA_SIZE   (1u << 20)

static uintptr_t self_lo, self_hi;          /* this library's mapping */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *arena;
static size_t arena_used = ARENA_SIZE;
static char exe_name[256];

static struct { uintptr_t addr; const char *s; } addr_cache[ADDR_SLOTS];
static struct { uint64_t hash; const char *s; } stack_cache[STACK_SLOTS];

static void *arena_alloc(size_t n)
{
    void *p;

    if (n > ARENA_SIZE)
        return NULL;
    if (arena_used + n > ARENA_SIZE) {
        p = mmap(NULL, ARENA_SIZE, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return NULL;
        arena = p;
        arena_used = 0;
    }
    p = arena + arena_used;
    arena_used += (n + 7) & ~(size_t)7;
    return p;
}

static int find_self(struct dl_phdr_info *info, size_t size, void *data)
{
    uintptr_t me = (uintptr_t)data;

    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

        if (ph->p_type == PT_LOAD && me >= lo && me < lo + ph->p_memsz) {
            self_lo = UINTPTR_MAX;
            self_hi = 0;
            for (int j = 0; j < info->dlpi_phnum; j++) {
                const ElfW(Phdr) *q = &info->dlpi_phdr[j];

                if (q->p_type != PT_LOAD)
                    continue;
                if (info->dlpi_addr + q->p_vaddr < self_lo)
                    self_lo = info->dlpi_addr + q->p_vaddr;
                if (info->dlpi_addr + q->p_vaddr + q->p_memsz > self_hi)
                    self_hi = info->dlpi_addr + q->p_vaddr + q->p_memsz;
            }
            return 1;
        }
    }
    return 0;
}

static void fork_prepare(void) { pthread_mutex_lock(&lock); }
static void fork_parent(void) { pthread_mutex_unlock(&lock); }
static void fork_child(void) { pthread_mutex_init(&lock, NULL); }

void rec_stack_init(void)
{
    void *warm[4];
    char exe[PATH_MAX];
    ssize_t n;

    dl_iterate_phdr(find_self, (void *)(uintptr_t)rec_stack_init);
    pthread_atfork(fork_prepare, fork_parent, fork_child);
    /* The first backtrace() loads libgcc_s: never inside a signal handler. */
    backtrace(warm, 4);
    n = syscall(SYS_readlink, "/proc/self/exe", exe, sizeof(exe) - 1);
    if (n > 0) {
        const char *b;

        exe[n] = '\0';
        b = strrchr(exe, '/');
        b = b ? b + 1 : exe;
        if (strlen(b) < sizeof(exe_name))
            strcpy(exe_name, b);
    }
}

static const char *base_name(const char *path)
{
    const char *b;

    if (!path || !*path)
        return exe_name[0] ? exe_name : "?";
    b = strrchr(path, '/');
    return b ? b + 1 : path;
}

/* One frame as text; caller holds lock. */
static const char *frame_string(uintptr_t addr)
{
    unsigned slot = (unsigned)((addr >> 2) * 0x9e3779b1u) % ADDR_SLOTS;
    char buf[512];
    Dl_info info;
    char *s;
    int n;

    for (unsigned i = 0; i < 8; i++) {
        unsigned k = (slot + i) % ADDR_SLOTS;

        if (addr_cache[k].addr == addr)
            return addr_cache[k].s;
        if (addr_cache[k].addr == 0) {
            slot = k;
            break;
        }
    }
    /* addr - 1: a return address may already be past the caller's end. */
    if (dladdr((void *)(addr - 1), &info) && info.dli_fname) {
        if (info.dli_sname && info.dli_saddr)
            n = snprintf(buf, sizeof(buf), "%s+0x%lx (%s)", info.dli_sname,
                         (unsigned long)(addr - (uintptr_t)info.dli_saddr),
                         base_name(info.dli_fname));
        else
            n = snprintf(buf, sizeof(buf), "%s+0x%lx",
                         base_name(info.dli_fname),
                         (unsigned long)(addr - (uintptr_t)info.dli_fbase));
    } else {
        n = snprintf(buf, sizeof(buf), "0x%lx", (unsigned long)addr);
    }
    if (n < 0)
        return NULL;
    if ((size_t)n >= sizeof(buf))
        n = sizeof(buf) - 1;
    s = arena_alloc((size_t)n + 1);
    if (!s)
        return NULL;
    memcpy(s, buf, (size_t)n + 1);
    if (addr_cache[slot].addr == 0) {
        addr_cache[slot].s = s;
        addr_cache[slot].addr = addr;
    }
    return s;
}

const char *rec_stack_capture(void)
{
    void *raw[MAX_FRAMES + 16];
    uintptr_t fr[MAX_FRAMES];
    const char *parts[MAX_FRAMES];
    uint64_t h = IOT_FNV64_INIT;
    const char *result = NULL;
    size_t total = 0;
    int n, k = 0;
    unsigned slot;

    n = backtrace(raw, MAX_FRAMES + 16);
    for (int i = 0; i < n && k < MAX_FRAMES; i++) {
        uintptr_t a = (uintptr_t)raw[i];

        if (a >= self_lo && a < self_hi)
            continue;   /* the recorder's frames (wrappers, main hook) */
        fr[k++] = a;
        h = iot_fnv64_word(h, a);
    }
    if (k == 0)
        return NULL;
    h |= 1;   /* 0 marks an empty cache slot */
    slot = (unsigned)(h % STACK_SLOTS);
    pthread_mutex_lock(&lock);
    for (unsigned i = 0; i < 8; i++) {
        unsigned s = (slot + i) % STACK_SLOTS;

        if (stack_cache[s].hash == h) {
            result = stack_cache[s].s;
            goto out;
        }
        if (stack_cache[s].hash == 0) {
            slot = s;
            break;
        }
    }
    for (int i = 0; i < k; i++) {
        parts[i] = frame_string(fr[i]);
        if (!parts[i])
            goto out;
        total += strlen(parts[i]) + 1;
    }
    {
        char *s = arena_alloc(total), *p = s;

        if (!s)
            goto out;
        for (int i = 0; i < k; i++) {
            size_t l = strlen(parts[i]);

            memcpy(p, parts[i], l);
            p += l;
            *p++ = i + 1 < k ? '\n' : '\0';
        }
        if (stack_cache[slot].hash == 0) {
            stack_cache[slot].s = s;
            stack_cache[slot].hash = h;
        }
        result = s;
    }
out:
    pthread_mutex_unlock(&lock);
    return result;
}
