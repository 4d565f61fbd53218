/*
 * test_syscalls.c - the syscall catalogue (formats/syscalls.h) against
 * the facts it copies: its x86_64 numbers are the system headers'
 * (asm/unistd_64.h, read as text: the catalogue must also build for BPF,
 * which has no C library), and every row it gives the kernel path with an
 * op is decoded there into that op.
 */
#include <CUnit/CUnit.h>
#include <fcntl.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iotrace.h"
#include "kconv_int.h"
#include "kevent.h"
#include "syscalls.h"
#include "unit.h"

struct row { const char *name; int nr, op, shape, kernel; };

#define ROW_(name, nr, op, shape, fd, size, off, extra, who) \
    { #name, nr, IOT_OP_##op, IOT_SC_##shape, 0 IOT_SC_KERNEL_##who(+ 1) },
static const struct row rows[] = { IOT_SYSCALLS(ROW_) };
#undef ROW_
#define NROWS (sizeof(rows) / sizeof(rows[0]))

static const char *const headers[] = {
    "/usr/include/x86_64-linux-gnu/asm/unistd_64.h", "/usr/include/asm/unistd_64.h",
};

/* __NR_name's number in the system header f, -1 when it has none. */
static int header_nr(FILE *f, const char *name)
{
    char line[256], want[128];
    int nr;

    snprintf(want, sizeof(want), "#define __NR_%s ", name);
    rewind(f);
    while (fgets(line, sizeof(line), f))
        if (strncmp(line, want, strlen(want)) == 0 && sscanf(line + strlen(want), "%d", &nr) == 1)
            return nr;
    return -1;
}

static void test_numbers_are_the_headers(void)
{
    FILE *f = NULL;

    for (size_t i = 0; i < sizeof(headers) / sizeof(headers[0]) && !f; i++)
        f = fopen(headers[i], "r");
    if (!f) {
        printf("\n  SKIP numbers against asm/unistd_64.h: no such header here\n");
        return;
    }
    for (size_t i = 0; i < NROWS; i++) {
        int want = header_nr(f, rows[i].name);

        if (want != rows[i].nr)
            printf("\n  %s: catalogue %d, asm/unistd_64.h %d\n", rows[i].name, rows[i].nr, want);
        CU_ASSERT_EQUAL(rows[i].nr, want);
    }
    fclose(f);
}

/* Names are unique; numbers are unique among the rows that have one. */
static void test_rows_unique(void)
{
    for (size_t i = 0; i < NROWS; i++)
        for (size_t j = i + 1; j < NROWS; j++) {
            CU_ASSERT(strcmp(rows[i].name, rows[j].name) != 0);
            CU_ASSERT(rows[i].nr < 0 || rows[i].nr != rows[j].nr);
        }
}

/* A call of every row the kernel path records as an op comes out as it. */
static void test_kernel_decodes_its_rows(void)
{
    static struct kproc p;
    size_t checked = 0;

    strcpy(p.cwd, "/");
    for (size_t i = 0; i < NROWS; i++) {
        struct iot_event ev;
        const char *path, *newpath;
        char b1[256], b2[256];
        struct kev e;
        int want;

        if (!rows[i].kernel || rows[i].op == IOT_OP_NONE)
            continue;
        memset(&e, 0, sizeof(e));
        memset(&ev, 0, sizeof(ev));
        e.kind = KEV_SYSCALL;
        e.nr = (__u16)rows[i].nr;
        e.ret = 3;
        e.size = 3;                        /* mmap: the fd */
        e.a0 = rows[i].shape == IOT_SC_SIGNALFD ? (__u64)-1 : 4;
        e.a1 = rows[i].shape == IOT_SC_FCNTL ? F_DUPFD : 1;
        e.npaths = 1;
        strcpy(e.path, "/f");
        want = rows[i].op;
        if (rows[i].shape == IOT_SC_PIPE)
            e.ret = 0;
        if (call_of(&p, &e, &ev, &path, &newpath, b1, b2, sizeof(b1)) != 1 || ev.op != want)
            printf("\n  %s: not decoded as op %d by the kernel path\n", rows[i].name, want);
        CU_ASSERT_EQUAL(ev.op, want);
        checked++;
    }
    CU_ASSERT(checked >= 40);
}

void syscalls_suite(void)
{
    CU_pSuite s = CU_add_suite("syscalls", NULL, NULL);

    CU_add_test(s, "the catalogue's numbers are the system headers'", test_numbers_are_the_headers);
    CU_add_test(s, "names and numbers given once", test_rows_unique);
    CU_add_test(s, "the kernel path decodes every row it records", test_kernel_decodes_its_rows);
}
