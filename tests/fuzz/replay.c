/*
 * replay.c - runs every fuzz target over its committed corpus, so `make
 * test` replays what the fuzzers found without needing libFuzzer.
 * Usage: fuzz_replay CORPUS_DIR  (reads every file in CORPUS_DIR/<target>/)
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

/* Present in sanitizer builds (make asan): where their reports go. */
extern void __sanitizer_set_report_fd(void *fd) __attribute__((weak));

/*
 * The targets run the analyzer on garbage, which says so on stderr for
 * nearly every input: send that to /dev/null (FUZZ_REPLAY_VERBOSE=1 keeps
 * it), while this driver's own messages and any sanitizer report still reach
 * the real stderr. Returns the stream for the driver's messages.
 */
static FILE *quiet_stderr(void)
{
    int keep, null;
    FILE *err;

    if (getenv("FUZZ_REPLAY_VERBOSE") || (keep = dup(2)) < 0)
        return stderr;
    err = fdopen(keep, "w");
    null = open("/dev/null", O_WRONLY);
    if (!err || null < 0) {
        if (err)
            fclose(err);
        else
            close(keep);
        if (null >= 0)
            close(null);
        return stderr;
    }
    if (__sanitizer_set_report_fd)
        __sanitizer_set_report_fd((void *)(intptr_t)keep);
    setvbuf(err, NULL, _IOLBF, 0);
    dup2(null, 2);
    close(null);
    return err;
}

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
    FILE *err = quiet_stderr();
    int failed = 0;

    /* hostile traces' symbols are kept in memory, never in the user's cache */
    setenv("IOSCOPE_SYMCACHE", "0", 1);

    for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
        char sub[4096], path[8192];
        struct dirent *de;
        DIR *d;
        int n = 0;

        snprintf(sub, sizeof(sub), "%s/%s", dir, targets[i].name);
        d = opendir(sub);
        if (!d) {
            fprintf(err, "fuzz_replay: no corpus for '%s' in '%s'\n", targets[i].name, dir);
            failed = 1;
            continue;
        }
        while ((de = readdir(d))) {
            if (de->d_name[0] == '.')
                continue;
            snprintf(path, sizeof(path), "%s/%s", sub, de->d_name);
            if (replay_file(targets[i].fn, path) < 0) {
                fprintf(err, "fuzz_replay: cannot read '%s'\n", path);
                failed = 1;
            }
            n++;
        }
        closedir(d);
        printf("fuzz_replay: %s: %d inputs replayed\n", targets[i].name, n);
    }
    return failed;
}
