/*
 * path_probe - a plugin loader that searches a long path for every plugin,
 * and a settings file stat'ed before every read.
 *
 * What it does wrong: find_plugin() stats NAME in each of 20 search
 * directories in order, and only the last one holds plugins: 60 plugins
 * make 1140 lookups of paths that do not exist, each a path walk in the
 * kernel (a round trip on a network file system). And settings_changed()
 * stats the settings file before each of 100 reads, to see whether it
 * changed.
 *
 * Fix: list the plugin directory once (or put it first in the search
 * path, or drop the directories that hold none); watch the settings file
 * with inotify, or read it once.
 *
 * Expected: two metadata_storm issues (type 12): "missing" on the first
 * search directory (search/d00), repeat = 1140 calls of 1140 paths that do
 * not exist in 19 directories; "repeated" on settings.ini, repeat = 100.
 */
#include "sample.h"

#define DIRS    20
#define PLUGINS 60
#define READS   100

/* The mistake: every lookup walks the whole search path. */
static int find_plugin(const char *dir, const char *name, char *out, size_t n)
{
    struct stat st;

    for (int d = 0; d < DIRS; d++) {
        char sub[4096];

        snprintf(sub, sizeof sub, "search/d%02d/%s", d, name);
        sample_path(out, n, dir, sub);
        if (stat(out, &st) == 0)
            return 0;
    }
    return -1;
}

/* The other mistake: asking whether the file changed before every read. */
static int settings_changed(const char *path, struct timespec *seen)
{
    struct stat st;

    if (stat(path, &st) < 0)
        sample_die("cannot stat", path);
    if (st.st_mtim.tv_sec == seen->tv_sec && st.st_mtim.tv_nsec == seen->tv_nsec)
        return 0;
    *seen = st.st_mtim;
    return 1;
}

int main(int argc, char **argv)
{
    const char *dir = sample_dir(argc, argv, "path_probe");
    char path[4096], settings[4096], buf[256];
    struct timespec seen = { 0, 0 };
    int found = 0, loads = 0;
    FILE *f;

    /* The search path: 20 directories, the plugins in the last. */
    sample_path(path, sizeof path, dir, "search");
    mkdir(path, 0755);
    for (int d = 0; d < DIRS; d++) {
        char sub[64];

        snprintf(sub, sizeof sub, "search/d%02d", d);
        sample_path(path, sizeof path, dir, sub);
        if (mkdir(path, 0755) < 0 && errno != EEXIST)
            sample_die("cannot create directory", path);
    }
    for (int i = 0; i < PLUGINS; i++) {
        char sub[64];
        int fd;

        snprintf(sub, sizeof sub, "search/d%02d/plugin%02d.so", DIRS - 1, i);
        sample_path(path, sizeof path, dir, sub);
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0)
            sample_die("cannot create", path);
        close(fd);
    }
    for (int i = 0; i < PLUGINS; i++) {
        char name[32];

        snprintf(name, sizeof name, "plugin%02d.so", i);
        found += find_plugin(dir, name, path, sizeof path) == 0;
    }

    sample_path(settings, sizeof settings, dir, "settings.ini");
    f = fopen(settings, "w");
    if (!f)
        sample_die("cannot create", settings);
    fputs("level = 3\n", f);
    fclose(f);
    for (int i = 0; i < READS; i++) {
        if (!settings_changed(settings, &seen))
            continue;
        f = fopen(settings, "r");
        if (!f)
            sample_die("cannot open", settings);
        loads += fgets(buf, sizeof buf, f) != NULL;
        fclose(f);
    }
    printf("path_probe: %d plugins found, settings loaded %d times in %d checks\n", found,
           loads, READS);
    return 0;
}
