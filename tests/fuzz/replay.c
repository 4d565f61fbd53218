/*
 * replay.c - runs every fuzz target over its committed corpus, so `make
 * test` replays what the fuzzers found without needing libFuzzer.
 * Usage: fuzz_replay CORPUS_DIR  (reads every file in CORPUS_DIR/<target>/)
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static const struct {
    const char *name;
    void (*fn)(const uint8_t *, size_t);
} targets[] = {
#define FUZZ_ROW_(name) { #name, fuzz_##name },
    FUZZ_TARGETS(FUZZ_ROW_)
#undef FUZZ_ROW_
};

static int replay_file(void (*fn)(const uint8_t *, size_t), const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf;
    long len;

    if (!f)
        return -1;
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    rewind(f);
    buf = malloc(len > 0 ? (size_t)len : 1);
    if (!buf || fread(buf, 1, (size_t)len, f) != (size_t)len) {
        free(buf);
        fclose(f);
        return -1;
    }
    fclose(f);
    fn(buf, (size_t)len);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "tests/fuzz/corpus";
    int failed = 0;

    for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
        char sub[4096], path[8192];
        struct dirent *de;
        DIR *d;
        int n = 0;

        snprintf(sub, sizeof(sub), "%s/%s", dir, targets[i].name);
        d = opendir(sub);
        if (!d) {
            fprintf(stderr, "fuzz_replay: no corpus for '%s' in '%s'\n", targets[i].name, dir);
            failed = 1;
            continue;
        }
        while ((de = readdir(d))) {
            if (de->d_name[0] == '.')
                continue;
            snprintf(path, sizeof(path), "%s/%s", sub, de->d_name);
            if (replay_file(targets[i].fn, path) < 0) {
                fprintf(stderr, "fuzz_replay: cannot read '%s'\n", path);
                failed = 1;
            }
            n++;
        }
        closedir(d);
        printf("fuzz_replay: %s: %d inputs replayed\n", targets[i].name, n);
    }
    return failed;
}
