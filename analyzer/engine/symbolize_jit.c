/*
 * symbolize_jit.c - JIT symbol records and perf map names (symbolize_jit.h).
 *
 * The recorder writes a record only for the map lines that cover a frame it
 * stored, so a process holds few: each process's entries are one array,
 * searched from its newest entry back (code freed and its addresses reused
 * gets a newer line, which wins).
 */
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "hmap.h"
#include "symbolize_int.h"
#include "symbolize_jit.h"

struct jit_entry {
    uint64_t start, size;
    const char *name;       /* points into the reader's string table */
};

struct jit_proc {
    struct jit_entry *e;
    size_t n, cap;
};

struct jit_table {
    struct hmap procs;      /* pid -> struct jit_proc */
};

struct jit_table *jit_table_create(void)
{
    return calloc(1, sizeof(struct jit_table));
}

void jit_table_free(struct jit_table *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->procs.cap; i++)
        if (t->procs.used && t->procs.used[i]) {
            struct jit_proc *p = t->procs.vals[i];

            free(p->e);
            free(p);
        }
    hmap_release(&t->procs);
    free(t);
}

/* pid's key: a pid is positive, and 0 stands for an empty slot in some maps */
static uint64_t pid_key(int32_t pid)
{
    return (uint64_t)(uint32_t)pid + 1;
}

int jit_table_add(struct jit_table *t, int32_t pid, uint64_t start, uint64_t size,
                  const char *name)
{
    struct jit_proc *p = hmap_get(&t->procs, pid_key(pid));

    if (!name || !*name || size == 0)
        return 0;
    if (!p) {
        if (!(p = calloc(1, sizeof(*p))))
            return -1;
        if (hmap_put(&t->procs, pid_key(pid), p) < 0) {
            free(p);
            return -1;
        }
    }
    if (iot_grow(&p->e, &p->cap, p->n + 1, sizeof(*p->e)) < 0)
        return -1;
    p->e[p->n++] = (struct jit_entry){ start, size, name };
    return 0;
}

int jit_table_has(const struct jit_table *t, int32_t pid)
{
    const struct jit_proc *p = hmap_get(&t->procs, pid_key(pid));

    return p && p->n > 0;
}

const char *jit_table_find(const struct jit_table *t, int32_t pid, uint64_t addr)
{
    const struct jit_proc *p = hmap_get(&t->procs, pid_key(pid));

    for (size_t i = p ? p->n : 0; i-- > 0;)
        if (addr >= p->e[i].start && addr - p->e[i].start < p->e[i].size)
            return p->e[i].name;
    return NULL;
}

/* The number that ends s[0..*len) after a ':', taken off *len; 0 when none. */
static int take_number(const char *s, size_t *len)
{
    size_t i = *len;
    int v = 0, scale = 1;

    while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9' && scale <= 100000000) {
        v += (s[i - 1] - '0') * scale;
        scale *= 10;
        i--;
    }
    if (i == *len || i < 2 || s[i - 1] != ':')
        return 0;
    *len = i - 1;
    return v;
}

void jit_name_parse(const char *name, struct jit_name *out)
{
    const char *sp, *colon;

    memset(out, 0, sizeof(*out));
    out->function = name;
    out->function_len = strlen(name);
    if (strncmp(name, "JS:", 3) == 0) {
        /* "JS:" tier-mark? function " " file ":" line ":" column */
        const char *f = name + 3;
        size_t flen;

        if (*f == '~' || *f == '^' || *f == '+' || *f == '*')
            f++;
        sp = strrchr(f, ' ');
        flen = sp ? (size_t)(sp - f) : strlen(f);
        out->function = flen ? f : "(anonymous)";
        out->function_len = flen ? flen : strlen("(anonymous)");
        if (sp && sp[1]) {
            size_t len = strlen(sp + 1);
            int col = take_number(sp + 1, &len), line = take_number(sp + 1, &len);

            /* "file:line:col"; a name with one number is "file:line" */
            if (!line && col)
                line = col;
            out->file = sp + 1;
            out->file_len = len;
            out->line = line;
        }
    } else if (strncmp(name, "py::", 4) == 0 && (colon = strchr(name + 4, ':')) != NULL) {
        /* "py::" qualified name ":" file */
        out->function = name + 4;
        out->function_len = (size_t)(colon - (name + 4));
        if (colon[1]) {
            out->file = colon + 1;
            out->file_len = strlen(colon + 1);
        }
    } else if (name[0] == '$' && strchr(name, ':') && strchr(name, '/')) {
        /* BEAM's "$module:function/arity" */
        out->function = name + 1;
        out->function_len = strlen(name + 1);
    } else if (out->function_len && (colon = strchr(name, '(')) != NULL &&
               name[out->function_len - 1] == ')' &&
               (sp = memchr(name, ' ', (size_t)(colon - name))) != NULL) {
        /* the JVM's "void pkg.Class.method(java.lang.String, int)": the
           method, without its return type and arguments (the name stays
           the same across runs) */
        const char *start = colon;

        while (start > name && start[-1] != ' ')
            start--;
        if (colon > start) {
            out->function = start;
            out->function_len = (size_t)(colon - start);
        }
    }
}

/*
 * The runtimes that name their JIT code in a perf map when asked. The
 * JVM's compiled code keeps no frame pointer unless told to, so a Java
 * caller compiled without -XX:+PreserveFramePointer is not on the stack
 * even when the map names the frames that are.
 */
static const struct {
    const char *module;     /* a module their frames run in (a base name) */
    const char *runtime, *flag;
    const char *what;       /* what the flag gives */
    /* the runtime's own function whose frame stands for a script's
       function that the flag would name (NULL: none) */
    const char *stands_in;
    /* 1: it compiles a function anew as the function grows hot (the JVM's
       interpreter, then its compilers' tiers, inlining callers; V8's), so
       which JIT frames one call shows depends on how far the run had
       warmed up when it made the call; 0: each function's code is made
       once (BEAM compiles a module as it loads) */
    int tiers;
} runtimes[] = {
#define JVM_FLAGS "-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit -XX:+PreserveFramePointer", \
        "names its JIT frames and keeps its compiled callers on the stack"
    { "libjvm.so", "java", JVM_FLAGS, NULL, 1 },
    /* the JDK's native code, which a Java program's I/O calls from the
       JIT's frames: on the stack above them, where a chain that breaks in
       compiled code (no -XX:+PreserveFramePointer) cannot lose it */
    { "libjava.so", "java", JVM_FLAGS, NULL, 1 },
    { "libnio.so", "java", JVM_FLAGS, NULL, 1 },
    { "beam.smp", "erl", "+JPperf true", "names its JIT frames", NULL, 0 },
    /* interpreted functions run in the trampoline's frame without the second */
    { "node", "node", "--perf-basic-prof --interpreted-frames-native-stack",
      "names its JIT and interpreted frames", "Builtins_InterpreterEntryTrampoline", 1 },
    { "libnode.so", "node", "--perf-basic-prof --interpreted-frames-native-stack",
      "names its JIT and interpreted frames", "Builtins_InterpreterEntryTrampoline", 1 },
#undef JVM_FLAGS
};

static int runtime_of(const char *module)
{
    for (size_t i = 0; module && i < sizeof(runtimes) / sizeof(runtimes[0]); i++)
        if (strcmp(module, runtimes[i].module) == 0)
            return (int)i;
    return -1;
}

const char *jit_runtime_flag(const char *module, const char **runtime)
{
    int i = runtime_of(module);

    if (i < 0)
        return NULL;
    *runtime = runtimes[i].runtime;
    return runtimes[i].flag;
}

int sym_stack_runtime(const struct sym_stack *st)
{
    int r = -1;

    for (size_t i = 0; st && i < st->n && r < 0; i++)
        r = runtime_of(sym_base_name(st->frames[i].module));
    return r;
}

/* The runtime a raw frame's module is (runtime_of), from
   "/usr/lib/.../libjvm.so+0x8282d2" or, as symbolized text,
   "handleOpen+0x3a (/usr/lib/.../libjava.so)"; -1 for none. */
static int runtime_of_raw(const char *frame, size_t len)
{
    size_t base = len, m;
    const char *plus;
    char mod[64];

    while (base > 0 && frame[base - 1] != '/')
        base--;
    plus = memmem(frame + base, len - base, "+0x", 3);
    m = (plus ? (size_t)(plus - frame) : len) - base;
    if (!plus && m > 0 && frame[base + m - 1] == ')')
        m--;
    if (m >= sizeof(mod))
        return -1;
    memcpy(mod, frame + base, m);
    mod[m] = '\0';
    return runtime_of(mod);
}

size_t sym_site_len(const char *stack)
{
    size_t jit = SIZE_MAX;
    int r = -1;   /* the first runtime's, as sym_stack_runtime() takes it */
    const char *p = stack;

    while (*p) {
        size_t n = strcspn(p, "\n");

        if (jit == SIZE_MAX && strncmp(p, "[jit:", 5) == 0)
            jit = (size_t)(p - stack);
        if (r < 0)
            r = runtime_of_raw(p, n);
        p += n;
        if (*p == '\n')
            p++;
    }
    return jit != SIZE_MAX && r >= 0 && runtimes[r].tiers ? jit : (size_t)(p - stack);
}

int sym_frames_tier(const struct sym_frame *f, size_t n)
{
    int r = sym_stack_runtime(&(struct sym_stack){ .frames = f, .n = n });

    return r >= 0 && runtimes[r].tiers;
}

size_t symbolizer_hint(const struct symbolizer *s, int32_t pid, const struct sym_stack *st,
                       char *buf, size_t cap)
{
    int r = sym_stack_runtime(st), w, stood_in = 0;

    /* a map was read for the process: its flag was given */
    if (r < 0 || cap == 0 || jit_table_has(s->jit, pid))
        return 0;
    for (size_t i = 0; runtimes[r].stands_in && i < st->n && !stood_in; i++)
        stood_in = st->frames[i].function &&
                   strcmp(st->frames[i].function, runtimes[r].stands_in) == 0;
    if (!st->unnamed_jit && !stood_in)
        return 0;
    w = snprintf(buf, cap, "%s %s when run with %s", runtimes[r].runtime, runtimes[r].what,
                 runtimes[r].flag);
    return w > 0 && (size_t)w < cap ? (size_t)w : 0;
}
