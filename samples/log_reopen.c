/*
 * log_reopen - a log opened, appended to and closed for every line.
 *
 * What it does wrong: log_line() does fopen(path, "a"), one fputs() and
 * fclose(), 2000 times. Each open walks the path, checks permissions and
 * allocates a file description and a stdio buffer, to move 20 bytes.
 *
 * Fix: open the log once and keep the stream (flush it where the lines
 * must be visible: fflush, or line buffering with setvbuf).
 *
 * Expected: one repeat_open issue (type 10) on app.log, repeat = 2000 (the
 * opens), 20 bytes per open.
 */
#include "sample.h"

#define LINES 2000

/* The mistake: open and close around every line. */
static void log_line(const char *path, int i)
{
    FILE *f = fopen(path, "a");
    char line[32];

    if (!f)
        sample_die("cannot open", path);
    snprintf(line, sizeof line, "event %08d done\n", i);
    fputs(line, f);
    fclose(f);
}

int main(int argc, char **argv)
{
    const char *dir = sample_dir(argc, argv, "log_reopen");
    char path[4096];

    sample_path(path, sizeof path, dir, "app.log");
    for (int i = 0; i < LINES; i++)
        log_line(path, i);
    printf("log_reopen: %d lines, %d opens\n", LINES, LINES);
    return 0;
}
