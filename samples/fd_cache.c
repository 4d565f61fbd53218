/*
 * fd_cache - a server that keeps its files open on purpose.
 *
 * What it does: serves 800 requests from 8 clients. Each client has its
 * own journal file, opened at the client's first request and kept in a
 * table of descriptors for every later one; each request appends one 8 KiB
 * record, built in memory, with a single write(). The descriptors are never
 * closed: the process holds its 8 journals until it exits and the kernel
 * closes them, as a database keeps its relation files and a logger its log.
 *
 * Nothing is wrong here: a set of files that stops growing once the program
 * has what it needs, each used again and again, is a cache, not a leak.
 * Compare fd_leak, whose handles are each left behind once the next is
 * opened.
 *
 * Expected: no issue.
 */
#include <fcntl.h>
#include <unistd.h>

#include "sample.h"

#define CLIENTS  8
#define REQUESTS 800
#define RECORD   8192

static int journal_fd[CLIENTS];   /* 0: not open yet (fd 0 is stdin's) */
static char record[RECORD];

/* The client's journal, opened on first use and then kept. */
static int journal(const char *dir, int client)
{
    char path[4096], name[32];

    if (journal_fd[client])
        return journal_fd[client];
    snprintf(name, sizeof name, "client%d.journal", client);
    sample_path(path, sizeof path, dir, name);
    journal_fd[client] = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
    if (journal_fd[client] < 0)
        sample_die("cannot open", path);
    return journal_fd[client];
}

int main(int argc, char **argv)
{
    const char *dir = sample_dir(argc, argv, "fd_cache");
    unsigned next = 12345;

    for (int i = 0; i < REQUESTS; i++) {
        /* every client once first, then in the order they call */
        int client = i < CLIENTS ? i : (int)((next = next * 1103515245u + 12345u) >> 16) % CLIENTS;
        int n = snprintf(record, sizeof record, "request %d from client %d\n", i, client);

        memset(record + n, ' ', sizeof record - (size_t)n - 1);
        record[sizeof record - 1] = '\n';
        if (write(journal(dir, client), record, sizeof record) != (ssize_t)sizeof record)
            sample_die("cannot write", "journal");
    }
    printf("fd_cache: served %d requests from %d clients\n", REQUESTS, CLIENTS);
    return 0;
}
