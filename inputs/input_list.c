/*
 * input_list.c - the files INPUT paths stand for (input_list_files(), input.h):
 * what `analyze --each` reads one at a time.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "grow.h"
#include "infile.h"
#include "input.h"
#include "input_int.h"
#include "msg.h"

/* What input_list_files() gathers. */
struct file_list {
    struct infiles *pool;
    char **files;
    size_t n, cap;
};

static int list_add(struct file_list *l, const char *path)
{
    char *copy = strdup(path);

    if (!copy || iot_grow(&l->files, &l->cap, l->n + 1, sizeof(*l->files)) < 0) {
        free(copy);
        return -1;
    }
    l->files[l->n++] = copy;
    return 0;
}

/* A file found below a directory INPUT, listed when input_open would take it. */
static enum input_dir_took list_dir_file(void *ctx, const char *path)
{
    struct file_list *l = ctx;
    char peek[INFILE_PEEK];
    size_t npeek;
    struct infile *inf = infile_open(l->pool, path, peek, &npeek);
    int kind = inf ? input_detect_file(inf, peek, npeek) : -1;

    if (inf)
        infile_done(inf);
    if (kind == -2)
        return INPUT_DIR_NO_MEMORY;
    if (kind >= 0)
        return list_add(l, path) < 0 ? INPUT_DIR_NO_MEMORY : INPUT_DIR_TAKEN;
    return inf ? INPUT_DIR_NOT_INPUT : INPUT_DIR_UNREADABLE;
}

char **input_list_files(const char *const *paths, size_t n, size_t *nfiles)
{
    struct file_list l = {0};
    int rc = 0;

    *nfiles = 0;
    if (!(l.pool = infiles_create())) {
        iot_error("out of memory");
        return NULL;
    }
    for (size_t i = 0; i < n && rc == 0; i++) {
        struct stat sb;

        if (strcmp(paths[i], "-") != 0 && stat(paths[i], &sb) == 0 && S_ISDIR(sb.st_mode))
            rc = input_dir_walk(paths[i], list_dir_file, &l);
        else if ((rc = list_add(&l, paths[i])) < 0)
            iot_error("out of memory");
    }
    infiles_free(l.pool);
    if (rc < 0 || !l.n) {
        input_list_free(l.files, l.n);
        return NULL;
    }
    *nfiles = l.n;
    return l.files;
}

void input_list_free(char **files, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(files[i]);
    free(files);
}
