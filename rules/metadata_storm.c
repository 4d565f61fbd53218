/*
 * metadata_storm (type 12): a process that asks the file system about
 * paths far more than its work needs. Each stat, access or failed open is
 * a path walk in the kernel (a syscall, dentry lookups, for a network or
 * FUSE file system a round trip), and two patterns make thousands of them:
 *
 *  - missing: a search path probed for every name. A shell looks a
 *    command up in each PATH entry before the one that has it, a compiler
 *    each header in each -I directory, an interpreter each module in each
 *    directory of its search path: most lookups find nothing (ENOENT).
 *    Judged per process: at least min_missing distinct paths that did not
 *    exist, looked up with stat, access, readlink or an open (open, fopen,
 *    opendir) that failed with ENOENT, each a name the process also looked
 *    for in another directory: that is what makes it a search. Names each
 *    looked up in one directory only are a check whether a file is there
 *    (rsync's generator asks for each file of a copy into an empty
 *    directory before it creates it), the program's job, not a search.
 *    And a search comes back: it probes the same few directories for name
 *    after name, so most of its missing paths are in a directory probed
 *    before, with other directories between (search_returns, at least a
 *    quarter of the searched paths). A copy of a tree into an empty one
 *    asks in each directory once, for names many directories share
 *    (copyright, README, Makefile): never back in a directory it left, no
 *    search. Any other failure found something:
 *    ENOTDIR and ELOOP a file where a directory was asked for (rsync's
 *    sender probes every file it sends with O_PATH|O_DIRECTORY|O_NOFOLLOW
 *    and gets ENOTDIR), EACCES a path it may not enter. Fix: put the
 *    directory that holds the files first, drop the directories that hold
 *    none, or remember what was found.
 *
 *  - repeated: one path looked up again and again, found or not (a stat
 *    before every open of a file, a config file polled for changes,
 *    sqlite checking its journal at every transaction, a shell without a
 *    command hash searching PATH for the same command). Judged per process
 *    and path: at least min_repeats lookups of one path. A directory the
 *    process lists, or under which it looks other paths up, is not
 *    counted: that is a search (Python lists each sys.path directory once
 *    and stats it at every import to see whether it changed), whose cost
 *    shows as missing paths, not a repeat the program could drop. Fix:
 *    remember the answer, watch the file (inotify), or do the work that
 *    asks in one batch (one transaction for many statements).
 *
 * A tree walk (ls -lR, find, du, tar, cp -r) looks each path up once or
 * twice and finds it: neither pattern. Thresholds are call counts, not
 * times, so that two identical runs report the same (a count does not
 * jitter); the time the calls took is in the message and in cost.
 *
 * One issue per process and pattern: its path is the directory with the
 * most missing lookups, or the path looked up most; its stack is the first
 * stack the calls counted under that path carry (the recorder samples
 * stacks of metadata calls per call site), so the stack names a call that
 * made the figures, its time the end of the group's last call.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "hmap.h"
#include "rule.h"

enum { P_MIN_MISSING, P_MIN_REPEATS };

static const struct rule_param metadata_storm_params[] = {
    [P_MIN_MISSING] = {"min_missing", RULE_P_INT, 1000,
                       "report a process that looked up at least this many distinct paths that "
                       "do not exist (stat, access, readlink, open)"},
    [P_MIN_REPEATS] = {"min_repeats", RULE_P_INT, 50,
                       "report a process that looked one path up at least this many times, "
                       "found or not (not a directory it searches)"},
};

/* Where a group's calls were made: the first call, then the first that carries a stack. */
struct ms_site {
    const char *stack, *thread;
    int32_t tid;
    int set;             /* 1: a call without a stack; 2: with one */
};

struct ms_path {
    const char *path;
    uint64_t opens;      /* sessions of it ended after its first lookup */
    uint64_t lookups;    /* lookups of it, found or not */
    uint64_t missing;    /* ... that found nothing */
    int64_t ns;
    int64_t model_ns;    /* the lookups' modelled cost */
    int64_t last_ms;
    struct ms_site site;
};

struct ms_dir {
    const char *example; /* a missing path in it: the directory is its dirname */
    uint64_t missing;    /* distinct missing paths in it */
    struct ms_site site; /* where its missing lookups were made */
};

/* A name (a path's last component) that some lookup found missing. */
struct ms_name {
    uint64_t dir;        /* dir_key of the first directory it was missing in */
    uint64_t paths;      /* distinct missing paths of that name */
    int searched;        /* missing in more than one directory */
};

struct ms_proc {
    int32_t pid;
    const char *process;
    struct hmap paths;   /* path pointer -> struct ms_path */
    struct hmap dirs;    /* hash of a missing path's directory -> struct ms_dir */
    struct hmap parents; /* hash of a directory searched (listed, or the directory of a
                            path looked up) -> (void *)1 */
    struct hmap names;   /* hash of a missing path's name -> struct ms_name */
    uint64_t missing;    /* distinct paths that were missing */
    uint64_t searched;   /* ... whose name was missing in another directory too */
    uint64_t search_returns; /* ... in a directory probed before, others since */
    uint64_t last_dir;   /* dir_key of the newest distinct missing path */
    uint64_t missing_calls;
    int64_t missing_ns, missing_last_ms;
    int64_t missing_model_ns;
};

struct metadata_storm_state {
    struct hmap procs;   /* hash of (pid, process) -> struct ms_proc */
};

/* ---------------------------------------------------------------- keys */

/* The length of path's directory ("/a/b" of "/a/b/c", "/" of "/c"), 0 for a bare name. */
static size_t dir_len(const char *path)
{
    const char *slash = strrchr(path, '/');

    if (!slash)
        return 0;
    return slash == path ? 1 : (size_t)(slash - path);
}

static uint64_t dir_key(const char *path)
{
    return iot_fnv64_add(IOT_FNV64_INIT, path, dir_len(path));
}

/* A directory's own key, as dir_key gives it for the paths in it. */
static uint64_t path_key(const char *path)
{
    size_t n = strlen(path);

    while (n > 1 && path[n - 1] == '/')
        n--;
    return iot_fnv64_add(IOT_FNV64_INIT, path, n);
}

/* A path's last component. */
static uint64_t name_key(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;

    return iot_fnv64_add(IOT_FNV64_INIT, name, strlen(name));
}

/* A call's modelled cost, 0 from an ioanalyze without it. */
static int64_t path_call_model(const struct rule_path_call *c)
{
    return RULE_HAS(struct rule_path_call, c, model_ns) ? c->model_ns : 0;
}

/* A process image: its pid and the name it runs under (an exec changes the name). */
static uint64_t proc_key(int32_t pid, const char *process)
{
    uint64_t h = iot_fnv64_add(IOT_FNV64_INIT, &pid, sizeof(pid));

    return iot_fnv64_add(h, &process, sizeof(process));
}

/* ---------------------------------------------------------------- state */

static void *get_or_new(struct hmap *m, uint64_t key, size_t size)
{
    void *v = hmap_get(m, key);

    if (v)
        return v;
    v = calloc(1, size);
    if (v && hmap_put(m, key, v) != 0) {
        free(v);
        v = NULL;
    }
    return v;
}

static void site_note(struct ms_site *s, const struct rule_path_call *c)
{
    int with_stack = c->stack && c->stack[0];

    if (s->set == 2 || (s->set == 1 && !with_stack))
        return;
    s->stack = c->stack;
    s->thread = c->thread;
    s->tid = c->tid;
    s->set = with_stack ? 2 : 1;
}

/* A distinct missing path: counted as searched once its name was missing
   in two directories (the first path of the name then too). Returns
   whether its name was missing in another directory before. */
static int note_name(struct ms_proc *p, const char *path)
{
    struct ms_name *n = get_or_new(&p->names, name_key(path), sizeof(*n));
    uint64_t dir = dir_key(path);

    if (!n)
        return 0;
    if (n->paths++ == 0) {
        n->dir = dir;
        return 0;
    }
    if (n->searched)
        p->searched++;
    else if (dir != n->dir) {
        n->searched = 1;
        p->searched += n->paths;
    }
    return n->searched;
}

static void metadata_storm_call(void *state, const struct rule_ctx *ctx,
                                const struct rule_path_call *c)
{
    struct metadata_storm_state *st = state;
    struct ms_proc *p;
    struct ms_path *f;
    struct ms_dir *d;
    int missing = c->err == ENOENT;

    (void)ctx;
    p = get_or_new(&st->procs, proc_key(c->pid, c->process), sizeof(*p));
    if (!p)
        return;
    p->pid = c->pid;
    p->process = c->process;
    if (c->kind == RULE_PATH_DIR_OPENED) {
        hmap_put(&p->parents, path_key(c->path), (void *)1);
        return;
    }
    if (c->kind == RULE_PATH_LOOKUP)
        hmap_put(&p->parents, dir_key(c->path), (void *)1);
    if (!missing && (c->kind != RULE_PATH_LOOKUP || c->err))
        return;   /* an open that failed otherwise (EACCES, ...), a lookup that did */
    f = get_or_new(&p->paths, hmap_ptr_key(c->path), sizeof(*f));
    if (!f)
        return;
    f->path = c->path;
    f->lookups++;
    f->ns += c->dur;
    f->model_ns += path_call_model(c);
    f->last_ms = c->unix_ms;
    site_note(&f->site, c);
    if (!missing)
        return;
    d = get_or_new(&p->dirs, dir_key(c->path), sizeof(*d));
    if (f->missing++ == 0) {
        uint64_t dir = dir_key(c->path);
        /* back in a directory it left: d had a missing path before */
        int back = d && d->missing > 0 && dir != p->last_dir;

        if (d) {
            if (!d->example)
                d->example = c->path;
            d->missing++;
        }
        p->missing++;
        if (note_name(p, c->path) && back)
            p->search_returns++;
        p->last_dir = dir;
    }
    if (d)
        site_note(&d->site, c);
    p->missing_calls++;
    p->missing_ns += c->dur;
    p->missing_model_ns += path_call_model(c);
    p->missing_last_ms = c->unix_ms;
}

/* A session of a path looked up before: a stat before each open shows as
   as many opens as lookups. Paths never looked up are not kept. */
static void metadata_storm_session(void *state, const struct rule_ctx *ctx,
                                   const struct rule_session *s)
{
    struct metadata_storm_state *st = state;
    struct ms_proc *p = hmap_get(&st->procs, proc_key(s->pid, s->process));
    struct ms_path *f = p ? hmap_get(&p->paths, hmap_ptr_key(s->path)) : NULL;

    (void)ctx;
    if (f)
        f->opens++;
}

/* --------------------------------------------------------------- advice */

/*
 * What a search looked for, told by a missing path's name and directory
 * (search_kind), and for a process by most of its missing paths
 * (search_kind_of): the search path named in the advice only when the
 * names look like it.
 */
enum ms_search { MS_PATH, MS_INCLUDE, MS_PYTHON, MS_BEAM, MS_LIBRARY, MS_OTHER, MS_KINDS };

static const struct {
    const char *what;   /* the message's "a search path probed for every name (WHAT)" */
    const char *fix;
} ms_searches[] = {
    [MS_PATH] = {" (a command in each PATH directory)",
                 "Put the directory that holds the command first in `PATH`, or run it by its "
                 "full path; a shell that forgets its command hash searches again."},
    [MS_INCLUDE] = {" (a header in each -I directory)",
                    "Put the `-I` directory that holds most headers first and drop those that "
                    "hold none; give a directory of the project's own headers, included with "
                    "quotes, as `-iquote` (an `#include <...>` does not search it), or use a "
                    "precompiled header."},
    [MS_PYTHON] = {" (a module in each sys.path directory)",
                   "Shorten `sys.path` (`PYTHONPATH`, `.pth` files) and put the directory that "
                   "holds most modules first; `python -X importtime` shows what is imported."},
    [MS_BEAM] = {" (a module in each code path directory)",
                 "Put the directories that hold most modules first in the code path (`-pa`, "
                 "`code:add_patha/1`) and drop those that hold none; a release booted in "
                 "embedded mode (`-mode embedded`) loads its modules at start and searches "
                 "nothing."},
    /* a program's own plugin search looks alike: the fix fits both */
    [MS_LIBRARY] = {" (a library or plugin in each directory of a search list)",
                    "Put the directory that holds the libraries first in the search list and "
                    "drop those that hold none (for the dynamic linker: `RPATH`/`RUNPATH`, "
                    "`LD_LIBRARY_PATH`)."},
    [MS_OTHER] = {"",
                  "Look in the directory that holds the files first, drop the directories that "
                  "hold none, or remember what was found."},
};

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);

    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static enum ms_search search_kind(const char *example)
{
    const char *slash = strrchr(example, '/'), *name = slash ? slash + 1 : example;
    size_t dl = dir_len(example);

    if ((dl >= 4 && strncmp(example + dl - 4, "/bin", 4) == 0) || !strchr(name, '.'))
        return dl >= 4 && strncmp(example + dl - 4, "/bin", 4) == 0 ? MS_PATH : MS_OTHER;
    if (has_suffix(name, ".h") || has_suffix(name, ".hpp") || has_suffix(name, ".hh") ||
        has_suffix(name, ".inc"))
        return MS_INCLUDE;
    if (has_suffix(name, ".py") || has_suffix(name, ".pyc") || strstr(name, ".cpython-") ||
        strstr(example, "site-packages") || strstr(example, "/python3"))
        return MS_PYTHON;
    if (has_suffix(name, ".beam"))
        return MS_BEAM;
    if (strstr(name, ".so"))
        return MS_LIBRARY;
    return MS_OTHER;
}

/* What most of p's missing paths look like (ties: the first kind listed). */
static enum ms_search search_kind_of(const struct ms_proc *p)
{
    uint64_t n[MS_KINDS] = { 0 };
    enum ms_search best = MS_OTHER;

    for (size_t i = 0; i < p->paths.cap; i++) {
        const struct ms_path *f;

        if (!p->paths.used || !p->paths.used[i])
            continue;
        f = p->paths.vals[i];
        if (f->missing)
            n[search_kind(f->path)]++;
    }
    for (int k = MS_KINDS - 1; k >= 0; k--)
        if (n[k] >= n[best])
            best = (enum ms_search)k;
    return best;
}

/* What made one path's lookups repeat (report_repeated). */
enum ms_repeat { MR_TIMEZONE, MR_DATABASE, MR_STAT_OPEN, MR_POLL_MISSING, MR_REPEATED };

static const struct {
    const char *advice;  /* the message's end */
    const char *fix;
} ms_repeats[] = {
    /* glibc's TZDEFAULT, which it stats at every tzset (the op tzset) */
    [MR_TIMEZONE] = {"glibc checks the time zone file at every tzset(), localtime(), mktime() or "
                     "ctime() while TZ is unset: set TZ (TZ=:/etc/localtime) and it reads the "
                     "file once",
                     "Set the `TZ` environment variable (`TZ=:/etc/localtime`, or the zone's "
                     "name): glibc then reads the time zone file once instead of checking it "
                     "at every local time conversion. In C, `localtime_r` does not check it "
                     "again either."},
    [MR_DATABASE] = {"the database checks it and its journal at every transaction: run many "
                     "statements per transaction",
                     "Each transaction looks the database and its journal up again: put many "
                     "statements in one transaction (BEGIN ... COMMIT)."},
    [MR_STAT_OPEN] = {"a lookup before each open: open it and handle the error, or `fstat` the "
                      "open descriptor, instead of asking first",
                      "Open the file and handle ENOENT, or `fstat` the descriptor you have, "
                      "instead of a `stat`/`access` before every open."},
    [MR_POLL_MISSING] = {"polled for a path that is not there: watch its directory (inotify) "
                         "instead of asking again",
                         "Watch the directory with inotify (or ask less often) instead of "
                         "polling for the file."},
    [MR_REPEATED] = {"remember the answer or watch the file (inotify) instead of asking again",
                     "Remember what `stat`/`access` answered, or watch the file with inotify, "
                     "instead of asking again."},
};

/* Whether p looked up path followed by one of a database journal's suffixes. */
static int journal_looked_up(const struct ms_proc *p, const char *path)
{
    static const char *const suffixes[] = {"-journal", "-wal"};
    size_t n = strlen(path);

    for (size_t i = 0; i < p->paths.cap; i++) {
        const struct ms_path *f;

        if (!p->paths.used || !p->paths.used[i])
            continue;
        f = p->paths.vals[i];
        if (strncmp(f->path, path, n) != 0)
            continue;
        for (size_t k = 0; k < sizeof(suffixes) / sizeof(suffixes[0]); k++)
            if (strcmp(f->path + n, suffixes[k]) == 0)
                return 1;
    }
    return 0;
}

static enum ms_repeat repeat_kind(const struct ms_proc *p, const struct ms_path *f)
{
    if (strcmp(f->path, "/etc/localtime") == 0)
        return MR_TIMEZONE;
    if (journal_looked_up(p, f->path))
        return MR_DATABASE;
    if (f->opens * 2 >= f->lookups)
        return MR_STAT_OPEN;
    if (f->missing == f->lookups)
        return MR_POLL_MISSING;
    return MR_REPEATED;
}

/* --------------------------------------------------------------- report */

/* The evidence as a session: Matrix's keys for a group of path calls. */
static struct rule_session group_session(const struct ms_proc *p, const char *path,
                                         const struct ms_site *site, uint64_t calls, int64_t ns,
                                         int64_t last_ms)
{
    return (struct rule_session){
        .path = path,
        .process = p->process,
        .thread = site->thread ? site->thread : p->process,
        .stack = site->stack ? site->stack : "",
        .pid = p->pid,
        .tid = site->set ? site->tid : p->pid,
        .end_unix_ms = last_ms,
        .op = calls,
        .cost_ns = ns,
        .op_type = RULE_OP_INIT,
        .file_size = -1,
    };
}

/* The directory with the most missing lookups (ties: the first by name). */
static const struct ms_dir *top_dir(const struct ms_proc *p)
{
    const struct ms_dir *best = NULL;

    for (size_t i = 0; i < p->dirs.cap; i++) {
        const struct ms_dir *d;

        if (!p->dirs.used || !p->dirs.used[i])
            continue;
        d = p->dirs.vals[i];
        if (!best || d->missing > best->missing ||
            (d->missing == best->missing && strcmp(d->example, best->example) < 0))
            best = d;
    }
    return best;
}

static void report_missing(const struct rule_ctx *ctx, const struct ms_proc *p)
{
    const struct ms_dir *d = top_dir(p);
    char dir[4096], msg[sizeof(dir) + 1024];
    size_t n;
    struct rule_session s;
    enum ms_search kind;

    if (!d)
        return;
    n = dir_len(d->example);
    if (n == 0)
        snprintf(dir, sizeof(dir), ".");
    else
        snprintf(dir, sizeof(dir), "%.*s", (int)n, d->example);
    s = group_session(p, dir, &d->site, p->missing_calls, p->missing_ns,
                      p->missing_last_ms);
    /* the cost: the failed lookups' time; none of them was needed */
    if (rule_again_cost(ctx, &(struct rule_report){.s = &s, .repeat = (int64_t)p->missing_calls,
                                                   .time_ns = p->missing_ns,
                                                   .model_ns = p->missing_model_ns,
                                                   .excess_calls = (int64_t)p->missing_calls}))
        return;
    kind = search_kind_of(p);
    snprintf(msg, sizeof(msg),
             "%s looked up %llu paths that do not exist (%llu calls, %.2f ms, in %zu "
             "directories; %llu in %s): a search path probed for every name%s; put the "
             "directory that holds the files first, drop the directories that hold none, or "
             "remember what was found",
             p->process, (unsigned long long)p->missing, (unsigned long long)p->missing_calls,
             RULE_MS(p->missing_ns), p->dirs.n, (unsigned long long)d->missing, dir,
             ms_searches[kind].what);
    struct rule_detail *figures = rule_detail_new(ctx);

    rule_detail_string(figures, "pattern", "missing");
    rule_detail_int(figures, "missing_paths", (int64_t)p->missing);
    rule_detail_int(figures, "calls", (int64_t)p->missing_calls);
    rule_detail_int(figures, "directories", (int64_t)p->dirs.n);
    rule_detail_string(figures, "top_directory", dir);
    rule_detail_int(figures, "top_directory_missing", (int64_t)d->missing);
    rule_detail_string(figures, "example", d->example);
    rule_detail_int(figures, "cost_us", (int64_t)(p->missing_ns / 1000));
    rule_report(ctx, &(struct rule_report){
        .s = &s, .repeat = (int64_t)p->missing_calls, .message = msg,
        .fix = ms_searches[kind].fix,
        .time_ns = p->missing_ns, .model_ns = p->missing_model_ns, .excess_calls = (int64_t)p->missing_calls,
        .fields = figures});
}

static void report_repeated(const struct rule_ctx *ctx, const struct ms_proc *p)
{
    const struct ms_path *best = NULL;
    uint64_t min = (uint64_t)ctx->p[P_MIN_REPEATS], paths = 0, lookups = 0;
    char msg[1200], none[64];
    struct rule_session s;
    enum ms_repeat kind;

    for (size_t i = 0; i < p->paths.cap; i++) {
        const struct ms_path *f;

        if (!p->paths.used || !p->paths.used[i])
            continue;
        f = p->paths.vals[i];
        /* a directory the process searches: the search, not a repeat */
        if (f->lookups < min || hmap_get(&p->parents, path_key(f->path)))
            continue;
        paths++;
        lookups += f->lookups;
        if (!best || f->lookups > best->lookups ||
            (f->lookups == best->lookups && strcmp(f->path, best->path) < 0))
            best = f;
    }
    if (!best)
        return;
    s = group_session(p, best->path, &best->site, best->lookups, best->ns, best->last_ms);
    /* the cost: the path's lookups' time, and every lookup but the first */
    if (rule_again_cost(ctx, &(struct rule_report){.s = &s, .repeat = (int64_t)best->lookups,
                                                   .time_ns = best->ns,
                                                   .model_ns = best->model_ns,
                                                   .excess_calls = (int64_t)best->lookups - 1}))
        return;
    snprintf(none, sizeof(none), " (%llu found nothing)", (unsigned long long)best->missing);
    kind = repeat_kind(p, best);
    snprintf(msg, sizeof(msg),
             "%s looked this path up %llu times%s, %.2f ms; %llu path%s looked up at least "
             "%llu times each, %llu lookups in all: %s",
             p->process, (unsigned long long)best->lookups, best->missing ? none : "",
             RULE_MS(best->ns), (unsigned long long)paths, paths == 1 ? " was" : "s were",
             (unsigned long long)min, (unsigned long long)lookups, ms_repeats[kind].advice);
    struct rule_detail *figures = rule_detail_new(ctx);

    rule_detail_string(figures, "pattern", "repeated");
    rule_detail_int(figures, "lookups", (int64_t)best->lookups);
    rule_detail_int(figures, "missing", (int64_t)best->missing);
    rule_detail_int(figures, "paths", (int64_t)paths);
    rule_detail_int(figures, "all_lookups", (int64_t)lookups);
    rule_detail_int(figures, "cost_us", (int64_t)(best->ns / 1000));
    rule_report(ctx, &(struct rule_report){
        .s = &s, .repeat = (int64_t)best->lookups, .message = msg,
        .fix = ms_repeats[kind].fix,
        .time_ns = best->ns, .model_ns = best->model_ns, .excess_calls = (int64_t)best->lookups - 1,
        .fields = figures});
}

static void metadata_storm_report(void *state, const struct rule_ctx *ctx)
{
    struct metadata_storm_state *st = state;

    for (size_t i = 0; i < st->procs.cap; i++) {
        const struct ms_proc *p;

        if (!st->procs.used || !st->procs.used[i])
            continue;
        p = st->procs.vals[i];
        if (p->searched >= (uint64_t)ctx->p[P_MIN_MISSING] &&
            p->search_returns * 4 >= p->searched)
            report_missing(ctx, p);
        report_repeated(ctx, p);
    }
}

static void free_vals(struct hmap *m)
{
    for (size_t i = 0; i < m->cap; i++)
        if (m->used && m->used[i])
            free(m->vals[i]);
    hmap_release(m);
}

static void metadata_storm_fini(void *state)
{
    struct metadata_storm_state *st = state;

    for (size_t i = 0; i < st->procs.cap; i++) {
        struct ms_proc *p;

        if (!st->procs.used || !st->procs.used[i])
            continue;
        p = st->procs.vals[i];
        free_vals(&p->paths);
        free_vals(&p->dirs);
        free_vals(&p->names);
        hmap_release(&p->parents);
        free(p);
    }
    hmap_release(&st->procs);
}

const struct rule rule_metadata_storm = {
    RULE_ABI_HEADER,
    .name = "metadata_storm",
    .type = 12,
    .summary = "many stat/access/open calls that find nothing or repeat on the same paths",
    .params = metadata_storm_params,
    .nparams = sizeof(metadata_storm_params) / sizeof(metadata_storm_params[0]),
    .state_size = sizeof(struct metadata_storm_state),
    .on_end = metadata_storm_report,
    .fini = metadata_storm_fini,
    .on_path_call = metadata_storm_call,
    .on_session = metadata_storm_session,
    .flags = RULE_F_STATES_COST,      /* the cost is in every report */
    /* each issue's own fix follows its pattern (ms_searches, ms_repeats) */
    .fix = "Put the search directory that holds the files first and drop the "
           "ones that hold none; remember what `stat`/`access` answered (or watch "
           "the file with inotify) instead of asking again.",
};
