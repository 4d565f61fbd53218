/*
 * rec_jiterrno: reads on an empty non-blocking pipe, called through a stub
 * in anonymous executable memory as a JIT's code calls libc; prints the
 * errno each read left ("11 11 ..." natively: EAGAIN). The first read is
 * the first of its site, so the recorder walks its stack there, through
 * the stub, and looks for /tmp/perf-PID.map (absent here): whatever that
 * look does, the program must see EAGAIN. Erlang's runtime aborts on
 * anything else ("Failed to read on wakeup pipe").
 *
 * Exits 3 where writable executable memory is refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define READS 8

static int fds[2], got[READS];

static __attribute__((noinline)) void reads(void)
{
    for (int i = 0; i < READS; i++) {
        char b[8];

        errno = 0;
        got[i] = read(fds[0], b, sizeof(b)) < 0 ? errno : 0;
    }
}

int main(void)
{
    /* push %rbp; mov %rsp,%rbp; call *%rdi; pop %rbp; ret */
    static const unsigned char code[] = { 0x55, 0x48, 0x89, 0xe5, 0xff, 0xd7, 0x5d, 0xc3 };
    void *m;

    if (pipe2(fds, O_NONBLOCK) != 0)
        return 1;
    m = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return 3;
    memcpy(m, code, sizeof(code));
    ((void (*)(void (*)(void)))m)(reads);
    for (int i = 0; i < READS; i++)
        printf("%d%s", got[i], i + 1 < READS ? " " : "\n");
    return 0;
}
