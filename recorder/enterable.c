/*
 * enterable.c - whether the preload can enter a program a recorded process
 * is about to exec or spawn, and what that child gets when it cannot.
 *
 * A program the preload cannot enter is recorded as `unrecorded` (by the
 * exec and spawn wrappers, wrap_proc.c) with a mode word saying why:
 *   static      no PT_INTERP: no dynamic loader reads LD_PRELOAD
 *   setuid      setuid/setgid to another user: secure-exec drops LD_PRELOAD
 *   fcaps       file capabilities (security.capability) for a user other
 *               than root: secure-exec too
 *   no_library  this library cannot be reached from the process's root
 *               (a chroot without it): the loader would print an error on
 *               the program's stderr, so the child gets no preload at all
 * Such a child does not inherit the recorder's fds either: they are
 * close-on-exec for that exec (and inheritable again if it fails), so a
 * setuid or capable program never holds the run's shared records.
 * Raw syscalls only: this runs in exec wrappers, perhaps in a vfork child.
 */
#include <elf.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"
#include "wrap.h"

/*
 * The ELF file fd (header eh) lists an AddressSanitizer runtime as
 * DT_NEEDED: its name into asan (REC_ASAN_NAME bytes). ASan's runtime
 * exits 1 unless it is the first object loaded, so the child's LD_PRELOAD
 * must start with it, before this library (rec_env_child).
 */
static void asan_needed(int fd, const Elf64_Ehdr *eh, char *asan)
{
    Elf64_Phdr ph, dyn = { 0 };
    Elf64_Dyn d[256];
    uint64_t strtab = 0;
    long n, str_off = -1;

    for (unsigned i = 0; i < eh->e_phnum && i < 256 && dyn.p_type != PT_DYNAMIC; i++)
        if (syscall(SYS_pread64, fd, &dyn, sizeof(dyn),
                    (long)(eh->e_phoff + (uint64_t)i * eh->e_phentsize)) != (long)sizeof(dyn))
            return;
    if (dyn.p_type != PT_DYNAMIC)
        return;
    n = syscall(SYS_pread64, fd, d, dyn.p_filesz < sizeof(d) ? dyn.p_filesz : sizeof(d),
                (long)dyn.p_offset);
    n = n > 0 ? n / (long)sizeof(d[0]) : 0;
    for (long i = 0; i < n && d[i].d_tag != DT_NULL; i++)
        if (d[i].d_tag == DT_STRTAB)
            strtab = d[i].d_un.d_ptr;
    for (unsigned i = 0; strtab && i < eh->e_phnum && i < 256 && str_off < 0; i++) {
        if (syscall(SYS_pread64, fd, &ph, sizeof(ph),
                    (long)(eh->e_phoff + (uint64_t)i * eh->e_phentsize)) != (long)sizeof(ph))
            return;
        if (ph.p_type == PT_LOAD && strtab >= ph.p_vaddr && strtab < ph.p_vaddr + ph.p_filesz)
            str_off = (long)(strtab - ph.p_vaddr + ph.p_offset);
    }
    for (long i = 0; str_off >= 0 && i < n && d[i].d_tag != DT_NULL; i++) {
        char lib[REC_ASAN_NAME];
        long got;

        if (d[i].d_tag != DT_NEEDED)
            continue;
        got = syscall(SYS_pread64, fd, lib, sizeof(lib) - 1, str_off + (long)d[i].d_un.d_val);
        if (got <= 0)
            continue;
        lib[got] = '\0';
        if (strncmp(lib, "libasan.so", 10) == 0) {
            memcpy(asan, lib, strlen(lib) + 1);
            return;
        }
    }
}

/* Whether path carries file capabilities. */
static int has_fcaps(const char *path)
{
    char v[64];

    return syscall(SYS_getxattr, path, "security.capability", v, sizeof(v)) > 0;
}

static const char *judge(const char *path, int depth, char *asan)
{
    unsigned char h[512];
    struct stat st;
    const char *why = NULL;
    long n;
    int fd;

    if (!path)
        return NULL;
    fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    if (syscall(SYS_fstat, fd, &st) != 0 || !S_ISREG(st.st_mode))
        goto out;
    if (((st.st_mode & S_ISUID) && st.st_uid != geteuid()) ||
        ((st.st_mode & S_ISGID) && st.st_gid != getegid())) {
        why = "setuid";
        goto out;
    }
    /* root (real uid 0) gains no secure-exec from file capabilities */
    if (getuid() != 0 && has_fcaps(path)) {
        why = "fcaps";
        goto out;
    }
    n = syscall(SYS_pread64, fd, h, sizeof(h) - 1, 0L);
    if (n >= 4 && h[0] == '#' && h[1] == '!' && depth == 0) {
        char interp[sizeof(h)];
        size_t i = 2, k = 0;

        h[n] = '\0';
        while (h[i] == ' ' || h[i] == '\t')
            i++;
        while (h[i] && h[i] != ' ' && h[i] != '\t' && h[i] != '\n')
            interp[k++] = (char)h[i++];
        interp[k] = '\0';
        why = k ? judge(interp, 1, asan) : NULL;
    } else if (n >= 64 && !memcmp(h, ELFMAG, SELFMAG) && h[EI_CLASS] == ELFCLASS64) {
        Elf64_Ehdr eh;
        Elf64_Phdr ph;

        memcpy(&eh, h, sizeof(eh));
        why = "static";
        for (unsigned i = 0; i < eh.e_phnum && i < 256; i++) {
            if (syscall(SYS_pread64, fd, &ph, sizeof(ph),
                        (long)(eh.e_phoff + (uint64_t)i * eh.e_phentsize)) != (long)sizeof(ph))
                break;
            if (ph.p_type == PT_INTERP) {
                why = NULL;
                break;
            }
        }
        if (!why)
            asan_needed(fd, &eh, asan);
    }
out:
    syscall(SYS_close, fd);
    return why;
}

const char *rec_unrecordable(const char *path, char *asan)
{
    const char *why;

    asan[0] = '\0';
    why = judge(path, 0, asan);

    if (!why && path && rec_lib_path[0] &&
        syscall(SYS_faccessat, AT_FDCWD, rec_lib_path, R_OK) != 0)
        why = "no_library";
    return why;
}

/* Whether the recorder's fds of a collector are gone from this fd table. */
static int own_fds_gone(void)
{
    int seg = rec_own_fd_get(REC_OWN_SEG);

    return rec_collected && seg >= 0 && syscall(SYS_fcntl, seg, F_GETFD) < 0;
}

/*
 * Whether envp was set up by another launcher for a run of its own (an
 * iorecord run under iorecord): its spool, or its trace, is not ours. Then
 * its variables stand, so the inner run writes the inner trace. A launcher
 * names both absolute; a relative IORECORD_OUTPUT is the one this process
 * started with (made absolute in rec_out_path), not another run's.
 */
static int another_run(char *const envp[])
{
    for (size_t i = 0; envp && envp[i]; i++) {
        const char *v = envp[i];

        if (strncmp(v, "IORECORD_OUTPUT=/", 17) == 0 && strcmp(v + 16, rec_out_path) != 0)
            return 1;
        if (strncmp(v, "IORECORD_SPOOL=", 15) == 0 && strcmp(v + 15, rec_spool_path) != 0)
            return 1;
    }
    return 0;
}

/* Whether the preload list the child gets starts with an ASan runtime. */
static int asan_first(char *const envp[])
{
    const char *pre = rec_preload_start;

    for (size_t i = 0; envp && envp[i]; i++)
        if (strncmp(envp[i], "LD_PRELOAD=", 11) == 0 && envp[i][11])
            pre = envp[i] + 11;
    return strncmp(pre, "libasan", 7) == 0 ||
           (strstr(pre, "/libasan") && strcspn(pre, ": ") > (size_t)(strstr(pre, "/libasan") - pre));
}

char **rec_env_child(char *const envp[], const char **why, const char *asan)
{
    if (envp && !rec_ptr_plausible(envp))
        return (char **)envp;   /* the kernel's EFAULT: not ours to read */
    if (another_run(envp)) {
        *why = "another_run";   /* not ours to record: our fds stay here */
        return (char **)envp;
    }
    if (rec_unpreloaded() || own_fds_gone() || (*why && strcmp(*why, "no_library") == 0))
        return rec_env_unpreload(envp);
    return rec_env_fix(envp, asan && asan[0] && !asan_first(envp) ? asan : NULL);
}

void rec_own_fds_inherit(int inherit)
{
    for (int k = REC_OWN_SEG; k <= REC_OWN_LIVE; k++) {
        int fd = rec_own_fd_get(k);

        if (fd >= 0)
            syscall(SYS_fcntl, fd, F_SETFD, inherit ? 0 : FD_CLOEXEC);
    }
}
