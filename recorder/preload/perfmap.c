/*
 * perfmap.c - JIT symbol records from the runtime's perf map (perfmap.h).
 *
 * The map is "START SIZE name" lines, both numbers in hex, appended by the
 * runtime as it makes code; a later line for an address is newer code. It
 * may be megabytes (node names every function it compiles) and gone by the
 * time the trace is analysed, so the recorder copies into the trace only the
 * lines that cover a frame it stored, at the first stack that holds the
 * frame: the runtime writes a line before it runs the code, so the line
 * there then is the one for the code that made the call.
 *
 * Bounded: at most MAX_PCS addresses are looked up per process, each at
 * most MAX_TRIES times (a line the runtime has not flushed yet is looked
 * for again at the next new stack that holds the frame), and the map is
 * read (or its open fails, when the runtime writes none) at most MAX_READS
 * times; after that frames stay unnamed. Nothing is read where a seccomp
 * filter may stand: the recorder makes no syscall of its own there.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"
#include "modules.h"
#include "perfmap.h"
#include "rec.h"
#include "sandbox.h"

#define MAX_PCS    256
#define MAX_TRIES  3
#define MAX_READS  64
#define NAME_MAX_  512           /* a longer name is cut */

struct jit_pc {
    uintptr_t pc;               /* a return address; 0: free slot */
    uintptr_t start, size;      /* the covering line's, size 0 when none yet */
    uint8_t tries;
    uint8_t done;               /* recorded, or given up */
    uint8_t recorded;           /* its line is in the trace */
    char name[NAME_MAX_];
};

static struct jit_pc slots[MAX_PCS];
static unsigned nslots, nreads;

static struct jit_pc *slot_of(uintptr_t pc)
{
    for (unsigned i = 0; i < nslots; i++)
        if (slots[i].pc == pc)
            return &slots[i];
    if (nslots == MAX_PCS)
        return NULL;
    slots[nslots].pc = pc;
    return &slots[nslots++];
}

static int hexval(const char **p, const char *end, uintptr_t *out)
{
    uintptr_t v = 0;
    const char *s = *p;

    if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        s += 2;
    for (; s < end; s++) {
        int d = *s >= '0' && *s <= '9' ? *s - '0'
              : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10
              : *s >= 'A' && *s <= 'F' ? *s - 'A' + 10 : -1;

        if (d < 0)
            break;
        if (v >> (sizeof(v) * 8 - 4))
            return -1;
        v = v << 4 | (uintptr_t)d;
    }
    if (s == *p || s == end || *s != ' ')
        return -1;
    *p = s + 1;
    *out = v;
    return 0;
}

/* One map line (without its '\n'): the wanted slots it covers take it. */
static void take_line(const char *line, const char *end, struct jit_pc **want, unsigned nwant)
{
    const char *p = line;
    uintptr_t start, size;
    size_t len;

    if (hexval(&p, end, &start) < 0 || hexval(&p, end, &size) < 0 || size == 0 || p == end)
        return;
    len = (size_t)(end - p);
    if (len >= NAME_MAX_)
        len = NAME_MAX_ - 1;
    for (unsigned i = 0; i < nwant; i++) {
        struct jit_pc *s = want[i];

        /* a return address: the call is the byte before it */
        if (s->pc - 1 >= start && s->pc - 1 - start < size) {
            s->start = start;
            s->size = size;
            memcpy(s->name, p, len);
            s->name[len] = '\0';
        }
    }
}

static void read_map(struct jit_pc **want, unsigned nwant)
{
    char path[64], buf[16384];
    size_t have = 0;
    int fd;

    snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)rec_pid);
    fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    for (;;) {
        ssize_t r = syscall(SYS_read, fd, buf + have, sizeof(buf) - have);
        char *p = buf, *nl, *end;

        if (r <= 0)
            break;
        end = buf + have + (size_t)r;
        while ((nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
            take_line(p, nl, want, nwant);
            p = nl + 1;
        }
        have = (size_t)(end - p);
        if (have == sizeof(buf))
            have = 0;   /* a line longer than the buffer: dropped */
        else
            memmove(buf, p, have);
    }
    /* a last line with no '\n' yet is being written: not taken */
    syscall(SYS_close, fd);
}

static void record(struct rec_thread *t, struct jit_pc *s, int64_t now)
{
    size_t len = strlen(s->name);

    if (iot_enc_jit_symbol(&t->enc, now, s->start, s->size, s->name, len) != 0) {
        rec_chunk_switch(t, now);
        if (iot_enc_jit_symbol(&t->enc, now, s->start, s->size, s->name, len) != 0)
            return;
    }
    rec_publish(t);
}

/* s, which the map named, is recorded unless a frame recorded before is in
   the same function (two frames in one function: one record); s is done. */
static void record_named(struct rec_thread *t, struct jit_pc *s, int64_t now)
{
    int dup = 0;

    for (unsigned j = 0; j < nslots && !dup; j++)
        dup = slots[j].recorded && slots[j].start == s->start && slots[j].size == s->size &&
              strcmp(slots[j].name, s->name) == 0;
    if (!dup)
        record(t, s, now);
    s->recorded = !dup;
    s->done = 1;
}

/* Read the map, giving each wanted slot the last line that covers it. */
void rec_perfmap_name(const uintptr_t *pcs, int n)
{
    struct jit_pc *want[64];
    unsigned nwant = 0;
    struct rec_thread *t = rec_self;
    int64_t now;

    if (!t || rec_filter_may_stand())
        return;
    for (int i = 0; i < n && nwant < 64; i++) {
        struct jit_pc *s;
        unsigned k = 0;

        if (rec_module_at(pcs[i] - 1) || !(s = slot_of(pcs[i])) || s->done)
            continue;
        /* a recursive function's frame comes more than once */
        while (k < nwant && want[k] != s)
            k++;
        if (k == nwant)
            want[nwant++] = s;
    }
    if (nwant == 0 || nreads >= MAX_READS)
        return;
    nreads++;
    read_map(want, nwant);
    now = rec_ns_with(__atomic_load_n(&rec_clock_cur, __ATOMIC_ACQUIRE), rec_stamp());
    for (unsigned i = 0; i < nwant; i++) {
        struct jit_pc *s = want[i];

        if (!s->size) {
            s->done = ++s->tries >= MAX_TRIES;
            continue;
        }
        record_named(t, s, now);
    }
}

/*
 * The process ends: the frames still unnamed are looked for once more, in
 * the map as the runtime left it. The JVM writes its map only at exit
 * (-XX:+DumpPerfMapAtExit), before the C library's exit handlers run the
 * recorder's end; their records go before the exit record.
 */
void rec_perfmap_finish(void)
{
    struct jit_pc *want[MAX_PCS];
    unsigned nwant = 0;
    struct rec_thread *t = rec_self;
    int64_t now;

    if (!t || rec_filter_may_stand())
        return;
    for (unsigned i = 0; i < nslots; i++)
        if (!slots[i].recorded && !slots[i].size)
            want[nwant++] = &slots[i];
    if (nwant == 0)
        return;
    read_map(want, nwant);
    now = rec_ns_with(__atomic_load_n(&rec_clock_cur, __ATOMIC_ACQUIRE), rec_stamp());
    for (unsigned i = 0; i < nwant; i++) {
        struct jit_pc *s = want[i];

        if (!s->size)
            continue;
        record_named(t, s, now);
    }
}

void rec_perfmap_forked(void)
{
    memset(slots, 0, nslots * sizeof(*slots));
    nslots = 0;
    nreads = 0;
}
