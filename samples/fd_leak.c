/*
 * fd_leak - file descriptors leaked in a loop.
 *
 * What it does wrong: load_plugin() opens each plugin's manifest, reads its
 * header and, on the success path, returns without closing the descriptor
 * (only the error path closes it). Called for 8 plugins, it leaks 8 fds; a
 * long-running program doing this per request runs out of descriptors
 * (EMFILE) and keeps deleted files' space allocated on disk.
 *
 * Fix: close on every path, e.g. one exit label that closes the fd, or read
 * what is needed into memory and close right away.
 *
 * Expected: one leak issue (type 4) for the open in load_plugin(), repeat = 8
 * (all leaks from one open stack are one group). The manifests are created
 * by write_manifest(), which closes properly, so nothing else is reported.
 */
#include <fcntl.h>
#include <unistd.h>

#include "sample.h"

#define PLUGINS 8

struct plugin {
    int  fd;           /* kept "for later" and never closed: the bug */
    char header[16];
};

static void write_manifest(const char *path, int i)
{
    char text[64];
    int len = snprintf(text, sizeof text, "PLUGIN %02d\nname=plugin%02d\n", i, i);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

    if (fd < 0)
        sample_die("cannot open", path);
    if (write(fd, text, (size_t)len) != len)
        sample_die("cannot write", path);
    close(fd);
}

/* Returns 0 when the manifest looks right. */
static int load_plugin(const char *path, struct plugin *pl)
{
    ssize_t n;

    pl->fd = open(path, O_RDONLY);
    if (pl->fd < 0)
        return -1;
    n = read(pl->fd, pl->header, sizeof pl->header - 1);
    if (n < 7 || memcmp(pl->header, "PLUGIN ", 7) != 0) {
        close(pl->fd);  /* the error path remembers to close... */
        return -1;
    }
    pl->header[n] = '\0';
    return 0;           /* ...the success path does not */
}

int main(int argc, char **argv)
{
    const char *dir = sample_dir(argc, argv, "fd_leak");
    struct plugin plugins[PLUGINS];
    char path[4096], name[32];
    int loaded = 0;

    for (int i = 0; i < PLUGINS; i++) {
        snprintf(name, sizeof name, "plugin%02d.manifest", i);
        sample_path(path, sizeof path, dir, name);
        write_manifest(path, i);
    }
    for (int i = 0; i < PLUGINS; i++) {
        snprintf(name, sizeof name, "plugin%02d.manifest", i);
        sample_path(path, sizeof path, dir, name);
        if (load_plugin(path, &plugins[i]) == 0)
            loaded++;
    }
    printf("fd_leak: %d plugins loaded, %d descriptors never closed\n", loaded, loaded);
    return loaded == PLUGINS ? 0 : 1;
}
