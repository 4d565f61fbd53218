/*
 * input_dir.c - a directory INPUT: every trace, JSONL event file and strace
 * log below it (input_int.h). What a file is, input.c's callback judges.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grow.h"
#include "hmap.h"
#include "input_int.h"
#include "msg.h"

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A regular file found below a directory INPUT, or a symlink to a directory. */
struct found {
    char *path;
    dev_t dev;
    ino_t ino;
    int linked;         /* reached through a symlink: another path may be its own */
};

/* A directory walked. */
struct dir_id {
    dev_t dev;
    ino_t ino;
    size_t next;        /* index + 1 of the previous one with the same inode number, 0 none */
    int open;           /* on the current path: reaching it again is a loop */
};

struct walk {
    struct found *files;
    size_t nfiles, capfiles;
    struct dir_id *dirs;            /* indices, not pointers: it grows while walking */
    size_t ndirs, capdirs;
    struct hmap by_ino;             /* inode number -> index + 1 of the newest dir_id */
    struct found *links;            /* symlinks to directories, walked after the tree */
    size_t nlinks, caplinks;
    size_t skipped;
    char *first_skip;               /* "'path': why" of the first entry skipped */
};

/* Index + 1 of the directory dev:ino when it has been walked, else 0. */
static size_t dir_find(const struct walk *w, dev_t dev, ino_t ino)
{
    size_t k = (size_t)(uintptr_t)hmap_get(&w->by_ino, (uint64_t)ino);

    while (k && w->dirs[k - 1].dev != dev)
        k = w->dirs[k - 1].next;
    return k;
}

/* Record dev:ino as walked and on the current path; its index + 1, or 0 out of memory. */
static size_t dir_add(struct walk *w, dev_t dev, ino_t ino)
{
    size_t k;

    if (iot_grow(&w->dirs, &w->capdirs, w->ndirs + 1, sizeof(*w->dirs)) < 0)
        return 0;
    k = w->ndirs++;
    w->dirs[k].dev = dev;
    w->dirs[k].ino = ino;
    w->dirs[k].next = (size_t)(uintptr_t)hmap_get(&w->by_ino, (uint64_t)ino);
    w->dirs[k].open = 1;
    if (hmap_put(&w->by_ino, (uint64_t)ino, (void *)(uintptr_t)(k + 1)) < 0)
        return 0;
    return k + 1;
}

/* Count an entry that is not walked. Only the first is named: a tree may hold
   thousands of sockets or device nodes, and stderr stays one line. */
static int skip(struct walk *w, const char *path, const char *why)
{
    if (!w->skipped++ && asprintf(&w->first_skip, "'%s': %s", path, why) < 0) {
        w->first_skip = NULL;
        return -1;
    }
    return 0;
}

static const char *special_kind(mode_t mode)
{
    if (S_ISFIFO(mode))
        return "FIFO";
    if (S_ISSOCK(mode))
        return "socket";
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return "device";
    return "not a regular file";
}

static int walk_dir(struct walk *w, const char *dir, int linked);

/* Append path, dev:ino to a list of found entries (files or links). */
static int push_found(struct found **list, size_t *n, size_t *cap, char **path,
                      const struct stat *sb, int linked)
{
    if (iot_grow(list, cap, *n + 1, sizeof(**list)) < 0)
        return -1;
    (*list)[*n].path = *path;
    (*list)[*n].dev = sb->st_dev;
    (*list)[*n].ino = sb->st_ino;
    (*list)[*n].linked = linked;
    (*n)++;
    *path = NULL;
    return 0;
}

/* Walk the directory dev:ino at path, not walked yet. */
static int walk_new_dir(struct walk *w, const char *path, dev_t dev, ino_t ino, int linked)
{
    size_t k = dir_add(w, dev, ino);
    int rc;

    if (!k)
        return -1;
    rc = walk_dir(w, path, linked);
    w->dirs[k - 1].open = 0;
    return rc;
}

/*
 * One entry of a directory; linked when the directory was reached through a
 * symlink. A symlink to a file is found as that file (add_dir keeps one path
 * per file, a path without links first). A symlink to a directory is a loop
 * when that directory is on the current path; else it waits until the whole
 * tree has been walked, so that a directory inside the tree is walked, and
 * its files named, where it is, and nothing is walked twice. Takes *path
 * (sets it to NULL) when it keeps it. 0, or -1 out of memory.
 */
static int walk_entry(struct walk *w, char **path, int linked)
{
    struct stat sb;
    size_t k;
    int link = 0;

    if (lstat(*path, &sb) != 0)
        return skip(w, *path, strerror(errno));
    if (S_ISLNK(sb.st_mode)) {
        link = 1;
        if (stat(*path, &sb) != 0)
            return skip(w, *path, errno == ELOOP ? "symlink loop" : strerror(errno));
    }
    if (S_ISREG(sb.st_mode))
        return push_found(&w->files, &w->nfiles, &w->capfiles, path, &sb, linked || link);
    if (!S_ISDIR(sb.st_mode))
        return skip(w, *path, special_kind(sb.st_mode));
    /* a directory walked already: a loop when on the current path (a link, or
       a bind mount, of an ancestor), else its files are in w already */
    k = dir_find(w, sb.st_dev, sb.st_ino);
    if (k)
        return w->dirs[k - 1].open ? skip(w, *path, "symlink loop") : 0;
    if (link)
        return push_found(&w->links, &w->nlinks, &w->caplinks, path, &sb, 1);
    return walk_new_dir(w, *path, sb.st_dev, sb.st_ino, linked);
}

/*
 * Add the regular files below dir to w, depth first. The entries are listed
 * and the directory closed before going down, so the depth of the tree costs
 * no descriptors. 0, or -1 out of memory.
 */
static int walk_dir(struct walk *w, const char *dir, int linked)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;

    if (!d)
        return skip(w, dir, strerror(errno));
    while ((de = readdir(d)) != NULL) {
        char *p;

        /* ".", ".." and hidden entries (.git, editors' files), as at the top */
        if (de->d_name[0] == '.')
            continue;
        if (iot_grow(&names, &cap, n + 1, sizeof(*names)) < 0 ||
            asprintf(&p, "%s/%s", dir, de->d_name) < 0) {
            rc = -1;
            break;
        }
        names[n++] = p;
    }
    closedir(d);
    /* in name order so that which of two links to a directory is walked,
       and the first skipped entry named, are the same every run */
    if (n)
        qsort(names, n, sizeof(*names), name_cmp);
    for (size_t i = 0; i < n; i++) {
        if (!rc)
            rc = walk_entry(w, &names[i], linked);
        free(names[i]);
    }
    free(names);
    return rc;
}

static int found_path_cmp(const void *a, const void *b)
{
    const struct found *x = a, *y = b;

    return strcmp(x->path, y->path);
}

static int found_inode_cmp(const void *a, const void *b)
{
    const struct found *x = a, *y = b;

    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    if (x->ino != y->ino)
        return x->ino < y->ino ? -1 : 1;
    if (x->linked != y->linked)
        return x->linked - y->linked;
    return strcmp(x->path, y->path);
}

/*
 * Every regular file below dir, at any depth, in path order (so two runs
 * read the same files in the same order), each file once however many links
 * lead to it. Special files, symlink loops, broken links and unreadable
 * subdirectories are skipped with one warning for them all.
 */
int input_dir_walk(const char *dir, input_dir_take_fn take, void *ctx)
{
    struct walk w = {0};
    struct stat sb;
    DIR *d = opendir(dir);
    size_t n = 0, found = 0;
    int rc = 0;

    /* the top one is an error when unreadable, as a file INPUT is */
    if (!d) {
        iot_error("cannot open directory '%s': %s", dir, strerror(errno));
        return -1;
    }
    closedir(d);
    w.by_ino = (struct hmap)HMAP_INIT;
    if (stat(dir, &sb) != 0 || !dir_add(&w, sb.st_dev, sb.st_ino) || walk_dir(&w, dir, 0) < 0)
        rc = -1;
    /* then the directories linked to that were not in the tree (the list
       grows while it is walked; each directory is walked once at most) */
    for (size_t i = 0; i < w.nlinks; i++) {
        if (!rc && !dir_find(&w, w.links[i].dev, w.links[i].ino))
            rc = walk_new_dir(&w, w.links[i].path, w.links[i].dev, w.links[i].ino, 1);
        free(w.links[i].path);
    }
    /* the same file reached twice: keep one path, one without links when
       there is one, else the first in order */
    if (w.nfiles)
        qsort(w.files, w.nfiles, sizeof(*w.files), found_inode_cmp);
    for (size_t i = 0; i < w.nfiles; i++) {
        if (n && w.files[n - 1].dev == w.files[i].dev && w.files[n - 1].ino == w.files[i].ino)
            free(w.files[i].path);
        else
            w.files[n++] = w.files[i];
    }
    if (n)
        qsort(w.files, n, sizeof(*w.files), found_path_cmp);
    for (size_t i = 0; i < n; i++) {
        int took = rc ? INPUT_DIR_NOT_INPUT : take(ctx, w.files[i].path);

        /* a directory may hold other files (READMEs, issue files): skip them,
           and those that cannot be read, as the walk does */
        if (took == INPUT_DIR_TAKEN || took == INPUT_DIR_NO_MEMORY) {
            if (took == INPUT_DIR_NO_MEMORY)
                rc = -1;
            found++;
        } else if (took == INPUT_DIR_UNREADABLE && skip(&w, w.files[i].path, strerror(errno)) < 0) {
            rc = -1;
        }
        free(w.files[i].path);
    }
    if (rc)
        iot_error("out of memory");
    else if (w.skipped == 1)
        iot_warn("'%s': skipped %s", dir, w.first_skip);
    else if (w.skipped)
        iot_warn("'%s': skipped %zu entries that are not regular files or directories "
                 "that can be read, the first %s", dir, w.skipped, w.first_skip);
    if (!rc && !found) {
        iot_error("'%s': no trace, JSONL event file or strace log in this directory", dir);
        rc = -1;
    }
    free(w.files);
    free(w.links);
    free(w.dirs);
    free(w.first_skip);
    hmap_release(&w.by_ino);
    return rc;
}
