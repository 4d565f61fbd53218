/*
 * engine_names.c - what the trace shows of names (engine_int.h): which
 * paths are directories, and what an open file is called now.
 *
 *  - A path is a directory once the trace shows it: made by mkdir, opened
 *    with O_DIRECTORY or by opendir, listed (readdir, getdents), or a
 *    directory renamed to it; rmdir ends that. Its sessions are directory
 *    sessions however they were opened (borg and sqlite open a directory
 *    O_RDONLY to sync it). A stat's mode is not in the trace.
 *  - A rename names the open sessions of the old path by the new one, and
 *    those under a renamed directory by the path under its new name (etcd
 *    writes its WAL in member/wal.tmp/ and renames it member/wal/): an
 *    issue names a file as it is when its session ends. A directory the
 *    trace does not show to be one is renamed alone (finding files under
 *    any renamed path would mean looking at every open file at every
 *    rename).
 *
 * Memory: one entry per directory path and per path with open sessions.
 */
#include <string.h>

#include "engine_int.h"

void engine_set_strtab(struct engine *e, struct iot_strtab *st)
{
    e->strtab = st;
}

void engine_paths_note_dir(struct engine *e, const char *path)
{
    if (path && *path && !engine_path_is_dir(e, path))
        hmap_put(&e->dirs, hmap_ptr_key(path), (void *)1);
}

void engine_names_opened(struct engine *e, const char *path, int delta)
{
    uintptr_t n = (uintptr_t)hmap_get(&e->open_paths, hmap_ptr_key(path));

    n += (uintptr_t)(intptr_t)delta;
    if (n)
        hmap_put(&e->open_paths, hmap_ptr_key(path), (void *)n);
    else
        hmap_del(&e->open_paths, hmap_ptr_key(path));
}

/* o's file is called path now. */
static void rename_session(struct engine *e, struct ofd *o, const char *path)
{
    engine_names_opened(e, o->s.path, -1);
    o->s.path = path;
    engine_names_opened(e, path, 1);
}

/*
 * The name under the new one of o's path, when it is under the directory
 * old (of length n): newpath + the rest; NULL when it is not under it or
 * the name cannot be made (no string table, out of memory).
 */
static const char *moved_name(struct engine *e, const char *path, const char *old, size_t n,
                              const char *newpath)
{
    char buf[8192];
    size_t k = strlen(newpath), rest;

    if (!e->strtab || strncmp(path, old, n) != 0 || path[n] != '/')
        return NULL;
    rest = strlen(path + n);
    if (k + rest >= sizeof(buf))
        return NULL;
    memcpy(buf, newpath, k);
    memcpy(buf + k, path + n, rest + 1);
    return iot_intern(e->strtab, buf, k + rest);
}

/* Every open session named old, or under old when it is a directory,
   is named after newpath. */
static void on_rename(struct engine *e, const char *old, const char *newpath)
{
    int dir = engine_path_is_dir(e, old);
    size_t n = strlen(old);

    if (old == newpath || (!dir && !hmap_get(&e->open_paths, hmap_ptr_key(old))))
        return;
    for (size_t i = 0; i < e->procs.cap; i++) {
        struct engine_proc *p;

        if (!e->procs.used[i])
            continue;
        p = e->procs.vals[i];
        for (int32_t fd = 0; fd < p->nfds; fd++) {
            struct ofd *o = p->fds[fd].o;
            const char *now;

            if (!o)
                continue;
            if (o->s.path == old)
                rename_session(e, o, newpath);
            else if (dir && (now = moved_name(e, o->s.path, old, n, newpath)))
                rename_session(e, o, now);
        }
    }
    if (dir) {
        hmap_del(&e->dirs, hmap_ptr_key(old));
        engine_paths_note_dir(e, newpath);
    }
}

void engine_paths_note(struct engine *e, struct engine_proc *p, const struct iot_event *ev,
                       int failed)
{
    const char *path = (ev->has & IOT_HAS_PATH) ? ev->path : NULL;
    struct ofd *o;

    if (failed)
        return;
    switch (ev->op) {
    case IOT_OP_MKDIR:
        engine_paths_note_dir(e, path);
        break;
    case IOT_OP_RMDIR:
        if (path && engine_path_is_dir(e, path))
            hmap_del(&e->dirs, hmap_ptr_key(path));
        break;
    case IOT_OP_RENAME:
        if (path && *path && (ev->has & IOT_HAS_NEWPATH) && ev->newpath && *ev->newpath)
            on_rename(e, path, ev->newpath);
        break;
    case IOT_OP_READDIR:
        /* listed: whatever it was opened with, the fd is a directory's */
        o = (ev->has & IOT_HAS_FD) ? engine_fd_ofd(p, ev->fd) : NULL;
        if (o) {
            o->s.directory = 1;
            engine_paths_note_dir(e, o->s.path);
        }
        break;
    default:
        break;
    }
}
