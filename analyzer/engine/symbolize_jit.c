/*
 * symbolize_jit.c - JIT symbol records and perf map names (symbolize_jit.h).
 *
 * The recorder writes a record only for the map lines that cover a frame it
 * stored, so a process holds few: each process's entries are one array,
 * searched from its newest entry back (code freed and its addresses reused
 * gets a newer line, which wins).
 */
#include <stdio.h>
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
    /* the rows of runtimes[] (below) whose stack flag the process was
       started with */
    uint32_t given;
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

/* pid's entry, made when new; NULL on out of memory */
static struct jit_proc *proc_of(struct jit_table *t, int32_t pid)
{
    struct jit_proc *p = hmap_get(&t->procs, pid_key(pid));

    if (!p) {
        if (!(p = calloc(1, sizeof(*p))))
            return NULL;
        if (hmap_put(&t->procs, pid_key(pid), p) < 0) {
            free(p);
            return NULL;
        }
    }
    return p;
}

int jit_table_add(struct jit_table *t, int32_t pid, uint64_t start, uint64_t size,
                  const char *name)
{
    struct jit_proc *p;

    if (!name || !*name || size == 0)
        return 0;
    if (!(p = proc_of(t, pid)))
        return -1;
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
 * The runtimes that show more of their stacks when asked. A perf map names
 * their JIT code (map_flag). The JVM's compiled code keeps no frame
 * pointer unless told to, so a Java caller compiled without
 * -XX:+PreserveFramePointer is not on the stack even when the map names
 * the frames that are; node runs an interpreted function in its
 * interpreter's trampoline, which stands for it, unless told to give it a
 * frame of its own (stack_flag).
 */
static const struct runtime {
    const char *module;     /* a module their frames run in (a base name) */
    const char *runtime;
    const char *map_flag, *map_what;        /* the flags that write the map; what it gives */
    /* the flag that keeps frames the map cannot name on the stack, its
       negation and what it gives (NULL: none) */
    const char *stack_flag, *stack_off, *stack_what;
    /* the runtime's own function whose frame stands for a script's
       function that stack_flag would name (NULL: its evidence is any JIT
       frame) */
    const char *stands_in;
    /* 1: it compiles a function anew as the function grows hot (the JVM's
       interpreter, then its compilers' tiers, inlining callers; V8's), so
       which JIT frames one call shows depends on how far the run had
       warmed up when it made the call; 0: each function's code is made
       once (BEAM compiles a module as it loads) */
    int tiers;
} runtimes[] = {
#define JVM "java", "-XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit", "names its JIT frames", \
        "-XX:+PreserveFramePointer", "-XX:-PreserveFramePointer", \
        "keeps its compiled callers on the stack", NULL, 1
#define NODE "node", "--perf-basic-prof", "names its JIT frames", \
        "--interpreted-frames-native-stack", "--no-interpreted-frames-native-stack", \
        "names its interpreted frames", "Builtins_InterpreterEntryTrampoline", 1
    { "libjvm.so", JVM },
    /* the JDK's native code, which a Java program's I/O calls from the
       JIT's frames: on the stack above them, where a chain that breaks in
       compiled code (no -XX:+PreserveFramePointer) cannot lose it */
    { "libjava.so", JVM },
    { "libnio.so", JVM },
    { "beam.smp", "erl", "+JPperf true", "names its JIT frames", NULL, NULL, NULL, NULL, 0 },
    { "node", NODE },
    { "libnode.so", NODE },
#undef JVM
#undef NODE
};
#define NRUNTIMES (sizeof(runtimes) / sizeof(runtimes[0]))
_Static_assert(NRUNTIMES <= 32, "a row's bit in struct jit_proc's given");

static int runtime_of(const char *module)
{
    for (size_t i = 0; module && i < sizeof(runtimes) / sizeof(runtimes[0]); i++)
        if (strcmp(module, runtimes[i].module) == 0)
            return (int)i;
    return -1;
}

int jit_table_option(struct jit_table *t, int32_t pid, const char *word, size_t len, int reset)
{
    struct jit_proc *p = hmap_get(&t->procs, pid_key(pid));
    uint32_t on = 0, off = 0;

    if (reset) {
        if (p)
            p->given = 0;
        return 0;
    }
    /* most words are no runtime's flag: no entry is made for them */
    for (size_t i = 0; len > 2 && i < NRUNTIMES; i++) {
        const char *yes = runtimes[i].stack_flag, *no = runtimes[i].stack_off;

        if (yes && strlen(yes) == len && memcmp(word, yes, len) == 0)
            on |= 1u << i;
        else if (no && strlen(no) == len && memcmp(word, no, len) == 0)
            off |= 1u << i;
    }
    if (!on && !off)
        return 0;
    if (!p && !(p = proc_of(t, pid)))
        return -1;
    p->given = (p->given | on) & ~off;
    return 0;
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

/* What a stack of a runtime showed, the evidence of a missing flag. */
enum {
    SHOWED_UNNAMED = 1,     /* a JIT frame no record named */
    SHOWED_STOOD_IN = 2,    /* the runtime's frame that stands for a script's function */
    SHOWED_JIT = 4,         /* a JIT frame */
};

static unsigned showed_of(const struct sym_stack *st, int r)
{
    unsigned showed = (st->unnamed_jit ? SHOWED_UNNAMED : 0) | (st->jit_frames ? SHOWED_JIT : 0);

    for (size_t i = 0; runtimes[r].stands_in && i < st->n; i++)
        if (st->frames[i].function && strcmp(st->frames[i].function, runtimes[r].stands_in) == 0)
            return showed | SHOWED_STOOD_IN;
    return showed;
}

/*
 * The flags process pid's runtime (row r) lacks, by what its stacks
 * showed: the map's when it wrote none and a frame went unnamed or stood
 * in, and the stack flag, unless given, with the map's or on its own
 * evidence. "what when run with flags" into buf when what, else the flags
 * alone; its length, 0 for none.
 */
static size_t missing_flags(const struct symbolizer *s, int32_t pid, int r, unsigned showed,
                            int what, char *buf, size_t cap)
{
    const struct runtime *rt = &runtimes[r];
    const struct jit_proc *p = hmap_get(&s->jit->procs, pid_key(pid));
    int map = !(p && p->n) && (showed & (SHOWED_UNNAMED | SHOWED_STOOD_IN));
    int stack = rt->stack_flag && !(p && (p->given >> r & 1)) &&
                (map || (showed & (rt->stands_in ? SHOWED_STOOD_IN : SHOWED_JIT)));
    int w;

    if (!map && !stack)
        return 0;
    if (what)
        w = snprintf(buf, cap, "%s %s%s%s when run with %s%s%s", rt->runtime,
                     map ? rt->map_what : "", map && stack ? " and " : "",
                     stack ? rt->stack_what : "", map ? rt->map_flag : "",
                     map && stack ? " " : "", stack ? rt->stack_flag : "");
    else
        w = snprintf(buf, cap, "%s%s%s", map ? rt->map_flag : "", map && stack ? " " : "",
                     stack ? rt->stack_flag : "");
    return w > 0 && (size_t)w < cap ? (size_t)w : 0;
}

size_t symbolizer_hint(const struct symbolizer *s, int32_t pid, const struct sym_stack *st,
                       char *buf, size_t cap)
{
    int r = sym_stack_runtime(st);

    return r < 0 ? 0 : missing_flags(s, pid, r, showed_of(st, r), 1, buf, cap);
}

void sym_note_hint(struct symbolizer *s, int32_t pid, const struct sym_stack *st)
{
    int r = sym_stack_runtime(st);
    size_t i = 0;

    if (r < 0)
        return;
    while (i < s->nhints && s->hints[i].pid != pid)
        i++;
    if (i == SYM_HINTS)
        return;
    if (i == s->nhints) {
        s->hints[i].pid = pid;
        s->hints[i].runtime = r;
        s->hints[i].showed = 0;
        s->nhints++;
    }
    s->hints[i].showed |= showed_of(st, r);
}

size_t symbolizer_jit_hints(const struct symbolizer *s, char *buf, size_t cap)
{
    size_t len = 0, n = 0;

    if (cap)
        buf[0] = '\0';
    for (size_t i = 0; i < s->nhints && len < cap; i++) {
        char flags[256];
        int w;

        /* judged at the end: the JVM's map is read at its exit, after its stacks */
        if (!missing_flags(s, s->hints[i].pid, s->hints[i].runtime, s->hints[i].showed, 0,
                           flags, sizeof(flags)))
            continue;
        w = snprintf(buf + len, cap - len, "%s%s (pid %d): %s", n ? ", " : "",
                     runtimes[s->hints[i].runtime].runtime, (int)s->hints[i].pid, flags);
        if (w < 0 || (size_t)w >= cap - len)
            break;
        len += (size_t)w;
        n++;
    }
    return n;
}

void symbolizer_process_args(struct symbolizer *s, int32_t pid, const char *const *argv, int argc)
{
    jit_table_option(s->jit, pid, NULL, 0, 1);
    /* out of memory: the flags stay unknown, and the hint may name one given */
    for (int i = 1; i < argc && argv[i]; i++)
        if (jit_table_option(s->jit, pid, argv[i], strlen(argv[i]), 0) < 0)
            return;
}

void symbolizer_runtime_env(struct symbolizer *s, int32_t pid, const char *options)
{
    for (const char *p = options; p && *p;) {
        size_t skip = strspn(p, " \t\n"), len = strcspn(p + skip, " \t\n");

        if (len && jit_table_option(s->jit, pid, p + skip, len, 0) < 0)
            return;
        p += skip + len;
    }
}
