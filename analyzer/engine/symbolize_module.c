/*
 * symbolize_module.c - the file a module's frames are read from
 * (symbolize_int.h): the path the trace names when its build-id is the
 * recorded one (or none was recorded); else the separate debug file with
 * that build-id under the debug directories; else what the debuginfod
 * servers DEBUGINFOD_URLS names have for it. A build-id nothing answered
 * for is remembered in the symbol cache, so a later trace does not ask again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolize_int.h"
#include "symcache.h"

const char *sym_intern(struct symbolizer *s, const char *str)
{
    return str ? iot_intern(s->strs, str, strlen(str)) : NULL;
}

const char *sym_base_name(const char *path)
{
    const char *b = path ? strrchr(path, '/') : NULL;

    return b ? b + 1 : path;
}

/* The module's build-id in hex, or NULL. */
static const char *module_id(struct symbolizer *s, Dwfl_Module *mod)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *bits;
    GElf_Addr vaddr, bias;
    char buf[2 * 64 + 1];
    int n;

    dwfl_module_getelf(mod, &bias);
    n = dwfl_module_build_id(mod, &bits, &vaddr);
    if (n <= 0 || n > 64)
        return NULL;
    for (int i = 0; i < n; i++) {
        buf[2 * i] = hex[bits[i] >> 4];
        buf[2 * i + 1] = hex[bits[i] & 15];
    }
    buf[2 * n] = '\0';
    return sym_intern(s, buf);
}

/* Open file as m's ELF; 0 when it is the module that was recorded. */
static int try_file(struct symbolizer *s, struct smod *m, const char *file)
{
    Dwfl *d;
    Dwfl_Module *mod;

    if (access(file, R_OK) != 0)
        return -1;
    d = dwfl_begin(&s->cb);
    if (!d)
        return -1;
    dwfl_report_begin(d);
    mod = dwfl_report_elf(d, sym_base_name(m->path), file, -1, 0, true);
    dwfl_report_end(d, NULL, NULL);
    if (mod) {
        const char *id = module_id(s, mod);

        if (!m->build_id || (id && strcmp(id, m->build_id) == 0)) {
            Dwarf_Addr bias;

            m->dwfl = d;
            m->mod = mod;
            m->found_id = id;
            m->dwarf = dwfl_module_getdwarf(mod, &bias) != NULL;
            return 0;
        }
    }
    dwfl_end(d);
    return -1;
}

int sym_debug_file(struct symbolizer *s, struct smod *m, const char *id)
{
    const char *dir;
    char file[4096];
    size_t len;

    for (dir = s->dirs_path; *dir; dir += len + (dir[len] == ':')) {
        len = strcspn(dir, ":");
        if (!len || snprintf(file, sizeof(file), "%.*s/.build-id/%.2s/%s.debug", (int)len, dir,
                             id, id + 2) >= (int)sizeof(file))
            continue;
        if (m ? try_file(s, m, file) == 0 : access(file, R_OK) == 0)
            return 1;
    }
    return 0;
}

/* m's debug info, else its executable, from the servers DEBUGINFOD_URLS names. */
static int from_debuginfod(struct symbolizer *s, struct smod *m)
{
    const char *urls = getenv("DEBUGINFOD_URLS");
    char *file = NULL;
    int fd, rc = -1;

    if (!urls || !*urls || (!s->dbgd && !(s->dbgd = debuginfod_begin())))
        return -1;
    for (int exe = 0; exe < 2 && rc < 0; exe++) {
        const unsigned char *id = (const unsigned char *)m->build_id;

        /* a length of 0: the id is given in hex */
        fd = exe ? debuginfod_find_executable(s->dbgd, id, 0, &file)
                 : debuginfod_find_debuginfo(s->dbgd, id, 0, &file);
        if (fd < 0)
            continue;
        close(fd);
        rc = try_file(s, m, file);
        free(file);
        file = NULL;
    }
    return rc;
}

void sym_open_module(struct symbolizer *s, struct smod *m)
{
    m->tried = 1;
    if (m->path[0] == '/' && try_file(s, m, m->path) == 0)
        return;
    if (!symcache_id_ok(m->build_id) || symcache_missing(s->cache, m->build_id))
        return;
    /* not there, or rebuilt since: its debug file by build-id */
    if (sym_debug_file(s, m, m->build_id) || from_debuginfod(s, m) == 0)
        return;
    symcache_set_missing(s->cache, m->build_id);
}
