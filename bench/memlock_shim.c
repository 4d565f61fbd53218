/*
 * memlock_shim.c - preloaded into bpftrace by bench_floors where the
 * machine refuses to raise RLIMIT_MEMLOCK (a container without
 * CAP_SYS_RESOURCE), which bpftrace 0.17 treats as fatal before loading
 * anything.
 *
 * Since Linux 5.11 BPF maps and programs are charged to the memory cgroup,
 * not to RLIMIT_MEMLOCK, so the refused raise changes nothing bpftrace then
 * does or costs: this reports success for that one refusal (EPERM on
 * RLIMIT_MEMLOCK) and passes every other call, and every other failure,
 * through unchanged.
 */
#include <dlfcn.h>
#include <errno.h>
#include <sys/resource.h>

typedef int setrlimit_fn(__rlimit_resource_t, const struct rlimit *);

int setrlimit(__rlimit_resource_t resource, const struct rlimit *limit)
{
    static setrlimit_fn *real;
    int r;

    if (!real)
        real = (setrlimit_fn *)dlsym(RTLD_NEXT, "setrlimit");
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    r = real(resource, limit);
    if (r != 0 && errno == EPERM && resource == RLIMIT_MEMLOCK)
        return 0;
    return r;
}
