/*
 * fold_names - small writes (small_buffer: one issue per file) into files
 * whose names differ on every run: under mkdtemp("/tmp/names-XXXXXX"), made
 * by mkstemp("/tmp/data-XXXXXX") and mkstemps("/tmp/rep-XXXXXX.csv", 4),
 * under a UUID run directory, under a 64-hex repository id with a fan-out
 * directory of its first two digits, under $HOME/.cache and under ./work.
 * Each file gets WRITES writes of 16 bytes (the first argument; 200 when
 * none). Prints the names it made in /tmp, one a line, for the caller to
 * remove.
 * Used by tests/e2e/test_ci_fold.sh and test_fleet_fold.sh.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static long writes = 200;

/* writes of 16 bytes: small_buffer, one issue per file */
__attribute__((noinline)) static void small_writes(int fd, const char *what)
{
    char buf[16];

    memset(buf, 'x', sizeof(buf));
    for (long i = 0; i < writes; i++)
        if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
            perror(what);
            exit(1);
        }
    close(fd);
}

static void write_file(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

    if (fd < 0) {
        perror(path);
        exit(1);
    }
    small_writes(fd, path);
}

static void random_hex(char *out, size_t n)
{
    unsigned char b[64];
    int fd = open("/dev/urandom", O_RDONLY);

    if (fd < 0 || read(fd, b, n / 2) != (ssize_t)(n / 2))
        exit(1);
    close(fd);
    for (size_t i = 0; i < n / 2; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
}

int main(int argc, char **argv)
{
    char dir[] = "/tmp/names-XXXXXX", file[] = "/tmp/data-XXXXXX";
    char rep[] = "/tmp/rep-XXXXXX.csv", p[4096], hex[65], uuid[37];
    const char *home = getenv("HOME");
    int fd;

    if (argc > 1)
        writes = atol(argv[1]);
    if (!home || writes < 1 || !mkdtemp(dir))
        return 1;
    printf("%s\n", dir);
    snprintf(p, sizeof(p), "%s/log.txt", dir);
    write_file(p);
    if ((fd = mkstemp(file)) < 0)
        return 1;
    printf("%s\n", file);
    small_writes(fd, file);
    if ((fd = mkstemps(rep, 4)) < 0)
        return 1;
    printf("%s\n", rep);
    small_writes(fd, rep);
    /* a UUID run directory, and a repository named by a 64-hex id in it */
    random_hex(hex, 32);
    snprintf(uuid, sizeof(uuid), "%.8s-%.4s-4%.3s-a%.3s-%.12s", hex, hex + 8, hex + 12,
             hex + 15, hex + 18);
    snprintf(p, sizeof(p), "/tmp/run-%s", uuid);
    printf("%s\n", p);
    if (mkdir(p, 0755) < 0)
        return 1;
    snprintf(p, sizeof(p), "/tmp/run-%s/out.bin", uuid);
    write_file(p);
    random_hex(hex, 64);
    snprintf(p, sizeof(p), "/tmp/run-%s/%s", uuid, hex);
    mkdir(p, 0755);
    snprintf(p, sizeof(p), "/tmp/run-%s/%s/%.2s", uuid, hex, hex);
    mkdir(p, 0755);
    snprintf(p, sizeof(p), "/tmp/run-%s/%s/%.2s/%s", uuid, hex, hex, hex);
    write_file(p);
    snprintf(p, sizeof(p), "%s/.cache", home);
    mkdir(p, 0755);
    snprintf(p, sizeof(p), "%s/.cache/state.db", home);
    write_file(p);
    mkdir("work", 0755);
    write_file("work/out.txt");
    return 0;
}
