// SPDX-License-Identifier: GPL-2.0
/*
 * empty.bpf.c - programs that do nothing, on the attach points the kernel
 * capture path uses (recorder/kernel/capture.bpf.c): what any syscall of
 * any process pays once a BPF program is attached there, the floor that
 * bench/bench_floors.sh measures an untraced process's cost against.
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
