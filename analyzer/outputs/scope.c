/* Own-code scope (scope.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "scope.h"

int issue_scope_parse(const char *name)
{
    if (strcmp(name, "own") == 0)
        return SCOPE_OWN;
    if (strcmp(name, "all") == 0)
        return SCOPE_ALL;
    return -1;
}

int path_under(const char *path, const char *root)
{
    size_t n = root ? strlen(root) : 0;

    while (n > 1 && root[n - 1] == '/')
        n--;
    if (!path || !n || path[0] != '/' || strncmp(path, root, n) != 0)
        return 0;
    return path[n] == '\0' || path[n] == '/' || (n == 1 && root[0] == '/');
}

const char *path_below(const char *path, const char *root)
{
    size_t n = root ? strlen(root) : 0;

    while (n > 1 && root[n - 1] == '/')
        n--;
    if (!path || !n || strncmp(path, root, n) != 0 || path[n] != '/' || !path[n + 1])
        return NULL;
    return path + n + 1;
}

static int frames_under(const struct issue_frames *frames, const char *root)
{
    for (size_t i = 0; i < frames->n; i++)
        if (path_under(frames->v[i].file, root) || path_under(frames->v[i].module, root))
            return 1;
    return 0;
}

int issue_is_own(const struct issue *issue, const char *root)
{
    return path_under(issue->exe, root) ||
           path_under(issue_detail_str(issue->detail, "exe"), root) ||
           frames_under(&issue->frames, root) || frames_under(&issue->open_frames, root);
}

/* One process name left out and how many of its findings. */
struct outside_name {
    const char *name;   /* allocated: the issue it came from may go first */
    size_t n;
};

static int by_count(const void *a, const void *b)
{
    const struct outside_name *x = a, *y = b;

    if (x->n != y->n)
        return x->n > y->n ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* The names of v[0..n), most findings first, joined by ", " into out->names;
   a name that would not fit ends the list with "...". */
static void outside_names(struct outside_name *v, size_t n, struct scope_outside *out)
{
    size_t len = 0;

    qsort(v, n, sizeof(*v), by_count);
    out->names[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        size_t need = strlen(v[i].name) + (i ? 2 : 0);

        if (len + need + 4 >= sizeof(out->names)) {
            snprintf(out->names + len, sizeof(out->names) - len, "%s...", i ? ", " : "");
            return;
        }
        len += (size_t)snprintf(out->names + len, sizeof(out->names) - len, "%s%s",
                                i ? ", " : "", v[i].name);
    }
}

int issues_keep_own(struct issue_list *issues, const char *root, struct scope_outside *out)
{
    size_t n = issues->n, kept = 0, nnames = 0;
    struct outside_name *names = calloc(n ? n : 1, sizeof(*names));

    out->n = 0;
    out->names[0] = '\0';
    if (!names)
        return -1;
    for (size_t i = 0; i < n; i++) {
        struct issue *is = issues->v[i];
        const char *proc;
        size_t k;

        if (issue_is_own(is, root)) {
            issues->v[kept++] = is;
            continue;
        }
        out->n++;
        proc = is->process;
        if (!proc || !*proc)
            proc = "unknown";
        for (k = 0; k < nnames && strcmp(names[k].name, proc) != 0; k++)
            ;
        if (k == nnames && !(names[nnames++].name = strdup(proc)))
            nnames--;
        else
            names[k].n++;
        issue_free(is);
    }
    issues->n = kept;
    outside_names(names, nnames, out);
    for (size_t k = 0; k < nnames; k++)
        free((char *)names[k].name);
    free(names);
    return 0;
}

const char *scope_outside_line(const struct scope_outside *out, char *buf, size_t size)
{
    if (!out->n)
        snprintf(buf, size, "%s", "");
    else
        snprintf(buf, size, "%zu finding%s in programs outside the project: %s", out->n,
                 out->n == 1 ? "" : "s", out->names);
    return buf;
}

void issues_note_exe(json_t *issues, struct engine *e)
{
    json_t *is;
    size_t i;

    json_array_foreach(issues, i, is) {
        const char *exe = engine_proc_exe_of(e, (int32_t)json_integer_value(
                                                        json_object_get(is, "pid")));

        if (exe && *exe && !json_object_get(is, "exe"))
            json_object_set_new(is, "exe", json_string(exe));
    }
}
