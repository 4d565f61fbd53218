// SPDX-License-Identifier: GPL-2.0
/*
 * empty.bpf.c - programs that do nothing, on the attach points the kernel
 * capture path uses (recorder/kernel/capture.bpf.c): what any syscall of
 * any process pays once a BPF program is attached there, the floor that
 * bench/bench_floors.sh measures an untraced process's cost against.
 *
 * And timed_enter/timed_exit, which only read the clock: the floor of any
 * BPF recorder that gives a call its start and its duration, which needs
 * a program at the call's enter and one at its exit, each reading the
 * clock (bpf_floor loads one set or the other, by its names' prefix).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("tp_btf/sys_enter")
int BPF_PROG(empty_enter, struct pt_regs *regs, long nr)
{
    return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(empty_exit, struct pt_regs *regs, long ret)
{
    return 0;
}

/* The clock read is kept: the helper call is not dead code to the compiler. */
SEC("tp_btf/sys_enter")
int BPF_PROG(timed_enter, struct pt_regs *regs, long nr)
{
    return bpf_ktime_get_ns() == 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(timed_exit, struct pt_regs *regs, long ret)
{
    return bpf_ktime_get_ns() == 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(empty_fork, struct task_struct *parent, struct task_struct *child)
{
    return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(empty_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
    return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(empty_task_exit, struct task_struct *p, bool group_dead)
{
    return 0;
}

SEC("tp_btf/io_uring_submit_req")
int BPF_PROG(empty_uring_submit, struct io_kiocb *req)
{
    return 0;
}

SEC("tp_btf/io_uring_complete")
int BPF_PROG(empty_uring_complete, struct io_ring_ctx *ring, void *req, struct io_uring_cqe *cqe)
{
    return 0;
}
