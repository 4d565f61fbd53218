/*
 * rawsys.h - a system call that no LD_PRELOAD wrapper sees (the syscall
 * instruction itself: the recorder records libc's syscall() like the calls
 * it makes), for the test programs' and test interposers' own output.
 */
#ifndef RAWSYS_H
#define RAWSYS_H

#include <unistd.h>

__attribute__((unused)) static long raw_sys(long n, long a, long b, long c, long d)
{
#if defined(__x86_64__)
    long r;
    register long r10 __asm__("r10") = d;

    __asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
                     : "rcx", "r11", "memory");
    return r;
#else
    return syscall(n, a, b, c, d);
#endif
}

#endif
