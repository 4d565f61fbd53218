/*
 * symbolize.c - raw stack frames to functions and source lines (symbolize.h).
 *
 * One Dwfl session per module file, with the module placed at its ELF
 * virtual addresses, so a frame's offset is its address. The file is the
 * path the trace names when its build-id is the recorded one (or nothing was
 * recorded); otherwise, or when the file is gone, the separate debug file
 * with that build-id stands in for it: it has the same addresses, the
 * symbols and the DWARF. A stripped file's own debug info is found by
 * libdwfl's standard search, which looks in the same directories. When
 * neither is at hand and DEBUGINFOD_URLS names servers, debuginfod is
 * asked for the debug info (or the executable) with that build-id.
 *
 * What an address of a module with a build-id resolves to is kept in the
 * symbol cache (symcache.h), which outlives this symbolizer: a module is
 * opened only for addresses no earlier trace (or run) looked up.
 */
#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grow.h"
#include "hash.h"
#include "hmap.h"
#include "iotrace.h"
#include "symbolize.h"
#include "symbolize_go.h"
#include "symcache.h"
#include "symbolize_jit.h"
#include "symbolize_python.h"

#include "symbolize_int.h"

struct symbolizer *symbolizer_create(const char *const *dirs, size_t ndirs)
{
    struct symbolizer *s = calloc(1, sizeof(*s));
    size_t len = 64;
    char *p;

    if (!s)
        return NULL;
    for (size_t i = 0; i < ndirs; i++)
        len += strlen(dirs[i]) + 1;
    s->strs = iot_strtab_create();
    s->debuginfo_path = malloc(len);
    s->dirs_path = malloc(len);
    s->jit = jit_table_create();
    s->py = s->strs ? py_table_create(s->strs) : NULL;
    s->go = go_tables_create();
    if (!s->strs || !s->debuginfo_path || !s->dirs_path || !s->jit || !s->py || !s->go ||
        !(s->jit_module = sym_intern(s, "[jit]")) || !(s->py_module = sym_intern(s, "[py]"))) {
        symbolizer_free(s);
        return NULL;
    }
    /* the given directories first, then the distribution's */
    p = s->dirs_path;
    for (size_t i = 0; i < ndirs; i++)
        p += sprintf(p, "%s:", dirs[i]);
    strcpy(p, "/usr/lib/debug");
    sprintf(s->debuginfo_path, ":.debug:%s", s->dirs_path);
    s->cb.find_elf = dwfl_build_id_find_elf;
    s->cb.find_debuginfo = dwfl_standard_find_debuginfo;
    s->cb.section_address = dwfl_offline_section_address;
    s->cb.debuginfo_path = &s->debuginfo_path;
    return s;
}

void symbolizer_free(struct symbolizer *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->mods.cap; i++)
        if (s->mods.used && s->mods.used[i]) {
            struct smod *m = s->mods.vals[i];

            if (m->dwfl)
                dwfl_end(m->dwfl);
            free(m);
        }
    for (size_t i = 0; i < s->addrs.cap; i++)
        if (s->addrs.used && s->addrs.used[i]) {
            for (struct saddr *a = s->addrs.vals[i], *next; a; a = next) {
                next = a->next;
                free(a->f);
                free(a);
            }
        }
    for (size_t i = 0; i < s->stacks.cap; i++)
        if (s->stacks.used && s->stacks.used[i]) {
            struct sstack *k = s->stacks.vals[i];

            free(k->f);
            free((char *)k->st.text);
            free((char *)k->st.key);
            free(k);
        }
    for (struct sstack *k = s->retired, *next; k; k = next) {
        next = k->retired;
        free(k->f);
        free((char *)k->st.text);
        free((char *)k->st.key);
        free(k);
    }
    hmap_release(&s->mods);
    hmap_release(&s->addrs);
    hmap_release(&s->stacks);
    if (s->dbgd)
        debuginfod_end(s->dbgd);
    jit_table_free(s->jit);
    py_table_free(s->py);
    go_tables_free(s->go);
    iot_strtab_free(s->strs);
    free(s->debuginfo_path);
    free(s->dirs_path);
    free(s);
}

static struct smod *module_of(struct symbolizer *s, const char *path)
{
    const char *p = sym_intern(s, path);
    struct smod *m;

    if (!p)
        return NULL;
    m = hmap_get(&s->mods, hmap_ptr_key(p));
    if (m)
        return m;
    m = calloc(1, sizeof(*m));
    if (!m)
        return NULL;
    m->path = p;
    if (hmap_put(&s->mods, hmap_ptr_key(p), m) < 0) {
        free(m);
        return NULL;
    }
    return m;
}

void symbolizer_use_process_cache(struct symbolizer *s)
{
    s->cache = symcache_process();
}

void symbolizer_flush_cache(struct symbolizer *s)
{
    symcache_flush(s->cache);
}

void symbolizer_module(struct symbolizer *s, const char *path, const char *build_id)
{
    struct smod *m = path && *path ? module_of(s, path) : NULL;

    /* the first record wins: a path rebuilt between two traces keeps the first */
    if (m && !m->build_id && build_id && *build_id)
        m->build_id = sym_intern(s, build_id);
}

/*
 * offset's frames in m from the symbol cache into out, or 0. Answers given
 * without DWARF are dropped once debug info for the module has appeared.
 */
static size_t cached(struct symbolizer *s, struct smod *m, uint64_t off, struct sym_frame *out)
{
    int dwarf = 1;
    size_t n = symcache_get(s->cache, m->build_id, off, out, MAX_INLINE, &dwarf);

    if (n && !dwarf && !m->cache_checked) {
        m->cache_checked = 1;
        if (sym_debug_file(s, NULL, m->build_id)) {
            symcache_forget(s->cache, m->build_id);
            return 0;
        }
    }
    for (size_t i = 0; i < n; i++) {
        out[i].module = m->path;
        out[i].build_id = m->build_id;
        out[i].offset = off;
        out[i].has_offset = 1;
    }
    return n;
}

static const char *die_name(Dwarf_Die *die)
{
    Dwarf_Attribute a;

    if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
        dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a) ||
        dwarf_attr_integrate(die, DW_AT_name, &a))
        return dwarf_formstring(&a);
    return NULL;
}

/* A source file as an absolute path when the CU's directory makes it one. */
static const char *source_path(struct symbolizer *s, Dwarf_Die *cu, const char *file)
{
    Dwarf_Attribute a;
    const char *dir;
    char buf[4096];

    if (!file || file[0] == '/' || !(dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a))) ||
        snprintf(buf, sizeof(buf), "%s/%s", dir, file) >= (int)sizeof(buf))
        return sym_intern(s, file);
    return sym_intern(s, buf);
}

typedef char *(*cxa_demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

/*
 * A C++ name as people read it ("store::Cache::load(int)" for
 * "_ZN5store5Cache4loadEi"), interned; any other name as it is. The
 * demangler is libstdc++'s, looked up at the first C++ name: ioanalyze is
 * C and does not link the C++ runtime, and where it is missing names stay
 * mangled (and so do the fingerprints made from them).
 */
static const char *demangled(struct symbolizer *s, const char *name)
{
    static cxa_demangle_fn demangle;
    static int tried;
    char *d;
    int status = -1;

    if (!name || strncmp(name, "_Z", 2) != 0)
        return name;
    if (!tried) {
        void *lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);

        tried = 1;
        if (lib)
            *(void **)&demangle = dlsym(lib, "__cxa_demangle");
    }
    if (!demangle || !(d = demangle(name, NULL, NULL, &status)) || status != 0)
        return name;
    name = sym_intern(s, d);
    free(d);
    return name;
}

/* A symbol without its version ("__libc_start_main@@GLIBC_2.34"), demangled. */
static const char *symbol_name(struct symbolizer *s, const char *name)
{
    const char *at = name ? strchr(name, '@') : NULL;

    return demangled(s, at && at > name ? iot_intern(s->strs, name, (size_t)(at - name))
                                        : sym_intern(s, name));
}

/* The frames of one return address: inlined calls first. */
static size_t resolve(struct symbolizer *s, struct smod *m, uint64_t off, struct sym_frame *out)
{
    Dwarf_Addr addr = off ? off - 1 : 0, bias;
    const char *sname, *file = NULL;
    GElf_Off so = 0;
    GElf_Sym sym;
    Dwarf_Die *cu, *scopes = NULL;
    Dwarf_Files *files = NULL;
    size_t n = 0, nfiles = 0;
    int line = 0, ns;

    sname = symbol_name(s, dwfl_module_addrinfo(m->mod, addr, &so, &sym, NULL, NULL, NULL));
    cu = dwfl_module_addrdie(m->mod, addr, &bias);
    if (cu && (ns = dwarf_getscopes(cu, addr - bias, &scopes)) > 0) {
        Dwfl_Line *ln = dwfl_module_getsrc(m->mod, addr);

        if (ln)
            file = dwfl_lineinfo(ln, NULL, &line, NULL, NULL, NULL);
        dwarf_getsrcfiles(cu, &files, &nfiles);
        for (int i = 0; i < ns && n < MAX_INLINE; i++) {
            int tag = dwarf_tag(&scopes[i]);
            Dwarf_Attribute a;
            Dwarf_Word v;
            const char *name;

            if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
                continue;
            /* a function's symbol, as nm names it, whether or not its DWARF
               is at hand (fingerprints take the name); DWARF's for an
               inlined call, which has no symbol */
            name = tag == DW_TAG_subprogram && sname ? sname : die_name(&scopes[i]);
            out[n] = (struct sym_frame){
                .function = demangled(s, sym_intern(s, name)),
                .file = source_path(s, cu, file),
                .line = file ? line : 0,
                .inlined = tag == DW_TAG_inlined_subroutine,
            };
            n++;
            if (tag == DW_TAG_subprogram)
                break;
            /* the inlined call's site is the location in the scope around it */
            file = NULL;
            line = 0;
            if (files && dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &a), &v) == 0 &&
                v < nfiles)
                file = dwarf_filesrc(files, v, NULL, NULL);
            if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &a), &v) == 0)
                line = (int)v;
        }
        /* the function an inline chain ends in may not be among the scopes:
           its symbol, at the last call site */
        if (n && out[n - 1].inlined && n < MAX_INLINE)
            out[n++] = (struct sym_frame){ .function = sname, .file = source_path(s, cu, file),
                                           .line = file ? line : 0 };
    }
    free(scopes);
    /* a Go binary: its own line table where its DWARF cannot be searched */
    if (n == 0) {
        const char *file_of = NULL, *gfn, *gfile;
        int gline;

        dwfl_module_info(m->mod, NULL, NULL, NULL, NULL, NULL, &file_of, NULL);
        if (go_lookup(s->go, file_of, addr, &gfn, &gfile, &gline)) {
            out[0] = (struct sym_frame){ .function = sym_intern(s, gfn), .file = sym_intern(s, gfile),
                                         .line = gline };
            n = 1;
        }
    }
    if (n == 0) {
        out[0] = (struct sym_frame){ .function = sym_intern(s, sname) };
        n = 1;
    }
    for (size_t i = 0; i < n; i++) {
        out[i].module = m->path;
        out[i].build_id = m->found_id ? m->found_id : m->build_id;
        out[i].offset = off;
        out[i].has_offset = 1;
        if (!out[i].file && sname && out[i].function && strcmp(out[i].function, sname) == 0) {
            out[i].fn_offset = so + 1;
            out[i].has_fn_offset = 1;
        }
    }
    return n;
}

/* The frames of "MODULE+0xOFF" (cached), or 0 when it is not one. */
static size_t raw_frame(struct symbolizer *s, const char *text, size_t len,
                        const struct sym_frame **out)
{
    char path[4096];
    const char *plus = NULL;
    struct sym_frame tmp[MAX_INLINE];
    struct saddr *a;
    struct smod *m;
    uint64_t off = 0, key;

    for (size_t i = 0; i < len; i++)
        if (text[i] == '+')
            plus = text + i;
    if (text[0] != '/' || !plus || plus + 3 > text + len || memcmp(plus, "+0x", 3) != 0 ||
        memchr(text, ' ', len) || (size_t)(plus - text) >= sizeof(path))
        return 0;
    for (const char *p = plus + 3; p < text + len; p++) {
        int d = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;

        if (d < 0 || off >> 60)
            return 0;
        off = off << 4 | (uint64_t)d;
    }
    memcpy(path, text, (size_t)(plus - text));
    path[plus - text] = '\0';
    m = module_of(s, path);
    if (!m)
        return 0;
    key = iot_fnv64_word(iot_fnv64_word(IOT_FNV64_INIT, hmap_ptr_key(m->path)), off);
    for (a = hmap_get(&s->addrs, key); a; a = a->next)
        if (a->module == m->path && a->offset == off) {
            *out = a->f;
            return a->n;
        }
    a = calloc(1, sizeof(*a));
    if (!a)
        return 0;
    a->module = m->path;
    a->offset = off;
    a->n = m->build_id ? cached(s, m, off, tmp) : 0;
    if (!a->n && !m->tried)
        sym_open_module(s, m);
    if (a->n) {
        /* answered by the cache */
    } else if (m->mod) {
        a->n = resolve(s, m, off, tmp);
        symcache_put(s->cache, m->build_id ? m->build_id : m->found_id, off, tmp, a->n,
                     m->dwarf);
    } else {
        tmp[0] = (struct sym_frame){ .module = m->path, .build_id = m->build_id, .offset = off,
                                     .has_offset = 1 };
        a->n = 1;
    }
    a->f = malloc(a->n * sizeof(*a->f));
    a->next = hmap_get(&s->addrs, key);
    if (!a->f || hmap_put(&s->addrs, key, a) < 0) {
        free(a->f);
        free(a);
        return 0;
    }
    memcpy(a->f, tmp, a->n * sizeof(*a->f));
    s->nframes++;
    s->nunresolved += !a->f[0].function;
    *out = a->f;
    return a->n;
}

void symbolizer_jit_symbol(struct symbolizer *s, int32_t pid, uint64_t start, uint64_t size,
                           const char *name)
{
    /* out of memory: the frames it names stay unnamed */
    if (jit_table_add(s->jit, pid, start, size, sym_intern(s, name)) == 0)
        s->jit_gen++;
}

/*
 * A frame in code no module covers, "[jit:PID]+0xADDR" (ADDR a return
 * address): 1 and *out when it is one. Named by the process's JIT symbol
 * records: the script function, and its file (and line, where the runtime
 * gives one) as the frame's file and module, so that a fingerprint takes
 * the function and the script's name, not an address. Without a record it
 * stays "[jit]+0xADDR".
 */
static int jit_frame(struct symbolizer *s, const char *text, size_t len, struct sym_frame *out)
{
    static const char prefix[] = "[jit:";
    const size_t plen = sizeof(prefix) - 1;
    const char *p = text + plen, *end = text + len, *name;
    uint64_t addr = 0;
    int64_t pid = 0;
    struct jit_name jn;

    if (len <= plen || memcmp(text, prefix, plen) != 0)
        return 0;
    for (; p < end && *p >= '0' && *p <= '9' && pid <= INT32_MAX; p++)
        pid = pid * 10 + (*p - '0');
    if (p == text + plen || pid > INT32_MAX || end - p < 5 || memcmp(p, "]+0x", 4) != 0)
        return 0;
    for (p += 4; p < end; p++) {
        int d = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;

        if (d < 0 || addr >> 60)
            return 0;
        addr = addr << 4 | (uint64_t)d;
    }
    s->nframes++;
    /* a return address: the call is the byte before it */
    name = addr ? jit_table_find(s->jit, (int32_t)pid, addr - 1) : NULL;
    s->jit_pid = (int32_t)pid;
    if (!name) {
        s->nunresolved++;
        *out = (struct sym_frame){ .module = s->jit_module, .offset = addr, .has_offset = 1 };
        return 1;
    }
    jit_name_parse(name, &jn);
    *out = (struct sym_frame){
        .function = iot_intern(s->strs, jn.function, jn.function_len),
        .file = jn.file ? iot_intern(s->strs, jn.file, jn.file_len) : NULL,
        .line = jn.line,
    };
    /* a name without a file (the JVM's, BEAM's): "function ([jit])" */
    out->module = out->file ? out->file : s->jit_module;
    return 1;
}

void symbolizer_py_code(struct symbolizer *s, int32_t pid, uint64_t code, const char *file,
                        const char *qualname, int64_t first_line, const char *lines)
{
    /* out of memory or a damaged table: the frames it names stay unnamed */
    (void)py_table_add(s->py, pid, code, file, qualname, first_line, lines);
}

/*
 * A Python frame, "[py:PID]+0xCODE+0xOFF": 1 and *out when it is one. Named
 * like a script's JIT frame (its file is its module, so the fingerprint
 * takes the function and the script's name); without a record it stays
 * "[py]+0xOFF".
 */
static int py_frame(struct symbolizer *s, const char *text, size_t len, struct sym_frame *out)
{
    struct py_frame pf;

    if (!py_frame_of(s->py, text, len, &pf))
        return 0;
    s->nframes++;
    s->nunresolved += !pf.function;
    *out = pf.function ? (struct sym_frame){ .function = pf.function, .file = pf.file,
                                             .line = pf.line, .module = pf.file }
                       : (struct sym_frame){ .module = s->py_module, .offset = pf.offset,
                                             .has_offset = 1 };
    return 1;
}

/* An older frame: "function+0xOFF (module)", "module+0xOFF" or anything else. */
static struct sym_frame text_frame(struct symbolizer *s, const char *text, size_t len)
{
    char buf[1024];
    struct sym_frame f = {0};
    char *paren, *plus;

    if (len >= sizeof(buf))
        len = sizeof(buf) - 1;
    memcpy(buf, text, len);
    buf[len] = '\0';
    paren = strstr(buf, " (");
    if (paren && buf[len - 1] == ')') {
        buf[len - 1] = '\0';
        f.module = sym_intern(s, paren + 2);
        *paren = '\0';
    }
    plus = strstr(buf, "+0x");
    if (plus) {
        uint64_t v = strtoull(plus + 3, NULL, 16);

        *plus = '\0';
        if (paren) {
            f.fn_offset = v;
            f.has_fn_offset = 1;
        } else {
            f.offset = v;
            f.has_offset = 1;
            f.module = sym_intern(s, buf);
            return f;
        }
    }
    f.function = demangled(s, sym_intern(s, buf));
    return f;
}

/* A growing string (a stack's text and keys are built a frame at a time;
   open_memstream was half of a warm stack's cost). failed: out of memory,
   everything after is dropped and the stack is not made. */
struct sbuf {
    char *s;
    size_t len, cap;
    int failed;
};

static void sb_add(struct sbuf *b, const char *p, size_t n)
{
    if (b->failed || iot_grow(&b->s, &b->cap, b->len + n + 1, 1) < 0) {
        b->failed = 1;
        return;
    }
    memcpy(b->s + b->len, p, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void sb_puts(struct sbuf *b, const char *p)
{
    sb_add(b, p, strlen(p));
}

__attribute__((format(printf, 2, 3))) static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = 1;
        return;
    }
    if ((size_t)n < sizeof(small)) {
        sb_add(b, small, (size_t)n);
        return;
    }
    if (b->failed || iot_grow(&b->s, &b->cap, b->len + (size_t)n + 1, 1) < 0) {
        b->failed = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* One frame's text in the stack, and its part of the fingerprint key. */
static void frame_text(struct sbuf *t, struct sbuf *k, const struct sym_frame *f, const char *orig,
                       size_t len, int jit)
{
    const char *mod = sym_base_name(f->module);

    if (!t)
        ;   /* the key alone */
    else if (f->function && f->file && f->line)
        sb_printf(t, "%s (%s:%d)%s", f->function, sym_base_name(f->file), f->line,
                  f->inlined ? " [inlined]" : "");
    else if (f->function && f->file && f->file == f->module)
        sb_printf(t, "%s (%s)", f->function, sym_base_name(f->file));   /* a script's, no line */
    else if (f->function && f->has_fn_offset && mod)
        sb_printf(t, "%s+0x%llx (%s)", f->function, (unsigned long long)f->fn_offset, mod);
    else if (f->function && mod)
        sb_printf(t, "%s (%s)", f->function, mod);
    else if (f->has_offset && mod)
        sb_printf(t, "%s+0x%llx", mod, (unsigned long long)f->offset);
    else
        sb_add(t, orig, len);
    if (f->function)
        sb_printf(k, "%s (%s)", f->function, mod ? mod : "?");
    else if (jit)
        sb_puts(k, mod);   /* an unnamed JIT or Python frame: its address changes every run */
    else if (f->has_offset && mod)
        sb_printf(k, "%s+0x%llx", mod, (unsigned long long)f->offset);
    else
        sb_add(k, orig, len);
}

/*
 * A stack that enters a tiering runtime's JIT code (sym_frames_tier) is
 * its site as far as its first JIT frame, named or not (its line starts
 * at jit_at in the key kf; SIZE_MAX: none), which the key shows as
 * "[jit]": below it, the frames one call shows are the interpreter's,
 * then a compiled tier's, then a caller's that inlined it, as the run
 * warms up, and a fingerprint made of them would differ between two runs
 * of the same program, or split one site into several. sym_site_len()
 * cuts a raw stack at the same place.
 */
static void key_stops_at_jit(struct sbuf *kf, size_t jit_at, const struct sym_frame *f, size_t n)
{
    if (jit_at > kf->len || kf->failed || !sym_frames_tier(f, n))
        return;
    kf->len = jit_at;
    sb_puts(kf, "[jit]");
}

/*
 * The sanitizers' runtimes, by their file names' start: their interceptors
 * stand between the program and the C library (and so the recorder) for
 * read, write and the like, whenever the program is built with one or the
 * runtime is preloaded. Such a frame on top of a stack is not where the
 * program does its I/O, and it comes and goes with the build's flags: a
 * stack starts past them, so that a sanitized build's issues are placed,
 * and fingerprinted, as a plain build's.
 */
static const char *const interposer_runtimes[] = {
    "libasan.so", "libtsan.so", "libubsan.so", "liblsan.so", "libhwasan.so", "libclang_rt.",
};

static int in_interposer(const struct sym_frame *f)
{
    const char *base = sym_base_name(f->module);

    for (size_t i = 0; base && i < sizeof(interposer_runtimes) / sizeof(*interposer_runtimes); i++)
        if (strncmp(base, interposer_runtimes[i], strlen(interposer_runtimes[i])) == 0)
            return 1;
    return 0;
}

const struct sym_stack *symbolizer_stack(struct symbolizer *s, const char *stack)
{
    const char *key = sym_intern(s, stack ? stack : "");
    struct sstack *k, *stale;
    struct sym_frame *f = NULL;
    size_t n = 0, cap = 0, npy = 0, unnamed = 0, njit = 0, jit_at = SIZE_MAX;
    size_t frames0 = s->nframes, unresolved0 = s->nunresolved;
    struct sbuf t = {0}, kf = {0}, pyk = {0};

    if (!key)
        return NULL;
    stale = k = hmap_get(&s->stacks, hmap_ptr_key(key));
    if (k && (!k->st.unnamed_jit || k->jit_gen == s->jit_gen))
        return &k->st;
    if (stale) {
        /* made again: its frames are counted once */
        frames0 = s->nframes -= stale->frames;
        unresolved0 = s->nunresolved -= stale->unresolved;
    }
    s->jit_pid = -1;
    for (const char *p = key; *p;) {
        size_t len = strcspn(p, "\n"), m;
        const struct sym_frame *got;
        struct sym_frame one;
        int raw;

        if (n >= MAX_STACK_FRAMES) {
            sb_add(&t, "\n", 1);
            sb_puts(&t, p);
            break;
        }
        m = py_frame(s, p, len, &one);
        if (m) {
            /* a script's frames are its site: the interpreter's own are
               the same for every call the script makes */
            if (npy++)
                sb_add(&pyk, "\n", 1);
            frame_text(NULL, &pyk, &one, p, len, one.module == s->py_module);
        } else {
            m = jit_frame(s, p, len, &one);
            unnamed += m && !one.function;
            njit += m > 0;
            if (m && jit_at == SIZE_MAX)
                jit_at = kf.len + (n > 0);   /* after the "\n" that ends the last line */
        }
        if (m)
            got = &one;
        else
            m = raw_frame(s, p, len, &got);
        raw = m > 0;
        if (!raw) {
            one = text_frame(s, p, len);
            got = &one;
            m = 1;
        }
        /* an interceptor on top, with the program's frames below it */
        if (n == 0 && p[len] == '\n' && in_interposer(&got[0])) {
            p += len + 1;
            continue;
        }
        if (iot_grow(&f, &cap, n + m, sizeof(*f)) < 0)
            goto fail;
        for (size_t i = 0; i < m; i++) {
            if (n) {
                sb_add(&t, "\n", 1);
                sb_add(&kf, "\n", 1);
            }
            if (raw) {
                frame_text(&t, &kf, &got[i], p, len,
                           got[i].module == s->jit_module || got[i].module == s->py_module);
            } else {
                /* a frame of another shape is shown, and fingerprinted, as given */
                sb_add(&t, p, len);
                sb_add(&kf, p, len);
            }
            f[n++] = got[i];
        }
        p += len;
        if (*p == '\n')
            p++;
    }
    if (!npy)
        key_stops_at_jit(&kf, jit_at, f, n);
    /* an empty stack is "" (and every string ends in its NUL) */
    sb_add(&t, "", 0);
    sb_add(&kf, "", 0);
    sb_add(&pyk, "", 0);
    if (t.failed || kf.failed || pyk.failed)
        goto fail;
    if (npy) {
        free(kf.s);
        kf = pyk;
        pyk = (struct sbuf){0};
    }
    free(pyk.s);
    pyk.s = NULL;
    k = calloc(1, sizeof(*k));
    if (!k || hmap_put(&s->stacks, hmap_ptr_key(key), k) < 0) {
        free(k);
        goto fail;
    }
    k->f = f;
    k->st = (struct sym_stack){ f, n, t.s, kf.s, unnamed, njit };
    k->jit_gen = s->jit_gen;
    k->frames = s->nframes - frames0;
    k->unresolved = s->nunresolved - unresolved0;
    if (stale) {
        /* a caller may still hold the stale stack: it lives on */
        stale->retired = s->retired;
        s->retired = stale;
    }
    if (s->jit_pid >= 0)
        sym_note_hint(s, s->jit_pid, &k->st);
    return &k->st;
fail:
    free(t.s);
    free(kf.s);
    free(pyk.s);
    free(f);
    return NULL;
}

void symbolizer_counts(const struct symbolizer *s, size_t *frames, size_t *unresolved)
{
    *frames = s->nframes;
    *unresolved = s->nunresolved;
}
