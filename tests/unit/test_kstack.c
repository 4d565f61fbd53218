/*
 * test_kstack.c - the kernel path's stacks (recorder/kernel/kelf.c,
 * kstack.c) without BPF: what a module file tells, and a stack whose frame
 * pointers cannot be trusted written as none, said once.
 */
#include <CUnit/CUnit.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <linux/types.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iotrace.h"
#include "kconvert.h"
#include "kevent.h"
#include "kstack.h"
#include "unit.h"

#define PID 2000000003

static uintptr_t exe_bias;

static int first_module(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    exe_bias = info->dlpi_addr;
    return 1;
}

/* A return address in this program: the instruction before it is a call. */
static __attribute__((noinline)) uintptr_t return_address(void)
{
    return (uintptr_t)__builtin_extract_return_addr(__builtin_return_address(0));
}

static void test_elf(void)
{
    char exe[PATH_MAX];
    struct kelf m;
    uint64_t bias = 0;
    uintptr_t ra = return_address();

    CU_ASSERT_PTR_NOT_NULL_FATAL(realpath("/proc/self/exe", exe));
    dl_iterate_phdr(first_module, NULL);
    CU_ASSERT_EQUAL_FATAL(kelf_read(exe, &m), 0);
    CU_ASSERT_TRUE(m.nseg > 0);
    CU_ASSERT_FALSE(m.go);
    CU_ASSERT_TRUE(kelf_after_call(&m, ra - exe_bias));
    /* its first load segment maps from file offset 0 at the bias */
    CU_ASSERT_EQUAL(kelf_bias(&m, exe_bias + (m.seg[0].vaddr & ~0xfffull), 0, &bias), 0);
    CU_ASSERT_EQUAL(bias, exe_bias);
    /* no executable segment holds address 0 */
    CU_ASSERT_FALSE(kelf_after_call(&m, 0));
    kelf_close(&m);
    CU_ASSERT_EQUAL(kelf_read("/proc/self/status", &m), -1);
    CU_ASSERT_EQUAL(kelf_read("/nonexistent/prog", &m), -1);
}

/* The stack every lookup gives: two of this program's addresses. */
static uintptr_t stack_ips[2];

static int lookup(void *ctx, uint32_t id, uint64_t *ips, int cap)
{
    (void)ctx;
    (void)id;
    if (cap < 2)
        return -1;
    ips[0] = stack_ips[0];
    ips[1] = stack_ips[1];
    return 2;
}

/*
 * This program, built without frame pointers (-O2): its stacks are none,
 * not wrong ones, and its end says so once, with how many calls.
 */
static void test_untrusted_stack(void)
{
    const char *path = unit_tmp_path("kstack.zst");
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0600);
    struct kconv *k = kconv_create(fd, NULL, NULL, NULL);
    char exe[PATH_MAX], err[IOT_ERRBUF_SIZE];
    struct iot_strtab *st;
    struct iot_trace *tr;
    struct iot_event ev;
    struct kev e;
    struct kelf m;
    uint64_t text = UINT64_MAX;
    int stacks = 0, lost = 0, writes = 0;
    int64_t lost_size = 0;

    CU_ASSERT_PTR_NOT_NULL_FATAL(k);
    CU_ASSERT_PTR_NOT_NULL_FATAL(realpath("/proc/self/exe", exe));
    dl_iterate_phdr(first_module, NULL);
    CU_ASSERT_EQUAL_FATAL(kelf_read(exe, &m), 0);
    for (unsigned i = 0; i < m.nseg; i++)
        if (m.seg[i].exec && m.seg[i].vaddr < text)
            text = m.seg[i].vaddr;
    if (m.frame_pointers) {
        kelf_close(&m);
        kconv_finish(k);
        close(fd);
        return;     /* built with frame pointers: nothing to refuse */
    }
    stack_ips[0] = (uintptr_t)test_untrusted_stack + 4;
    stack_ips[1] = return_address();
    kconv_stacks(k, lookup, NULL);
    memset(&e, 0, sizeof(e));
    e.kind = KEV_EXEC;
    e.pid = e.tid = PID;
    e.t = 1000;
    e.npaths = 1;
    strcpy(e.path, exe);
    e.a0 = exe_bias + text;
    e.a3 = exe_bias + text + 0x100000;
    kconv_event(k, &e, sizeof(e));
    for (int i = 0; i < 3; i++) {
        memset(&e, 0, sizeof(e));
        e.kind = KEV_SYSCALL;
        e.nr = 1;   /* write */
        e.pid = e.tid = PID;
        e.t = 2000 + i;
        e.ret = 1;
        e.a0 = 1;
        e.a2 = 1;
        e.stack = 1 + (uint32_t)(i & 1);
        kconv_event(k, &e, sizeof(e));
    }
    CU_ASSERT_EQUAL(kconv_finish(k), 0);
    close(fd);
    kelf_close(&m);
    st = iot_strtab_create();
    tr = iot_trace_open(&path, 1, st, err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tr);
    while (iot_trace_next(tr, &ev, err) == 1) {
        if (ev.kind != IOT_EV_CALL)
            continue;
        stacks += (ev.has & IOT_HAS_STACK) != 0;
        writes += ev.op == IOT_OP_WRITE;
        if (ev.op == IOT_OP_LOST && strcmp(ev.mode, "stack_no_frame_pointers") == 0) {
            lost++;
            lost_size = ev.size;
        }
    }
    iot_trace_close(tr);
    iot_strtab_free(st);
    CU_ASSERT_EQUAL(writes, 3);
    CU_ASSERT_EQUAL(stacks, 0);
    CU_ASSERT_EQUAL(lost, 1);
    CU_ASSERT_EQUAL(lost_size, 3);
}

void kstack_suite(void)
{
    CU_pSuite s = CU_add_suite("kstack", NULL, NULL);

    CU_add_test(s, "a module file's segments, build-id, calls", test_elf);
    CU_add_test(s, "a stack past code without frame pointers: none, said once", test_untrusted_stack);
}
