/*
 * cwd.c - the working directory, kept where getcwd may not be made.
 *
 * Where a seccomp filter may stand (sandbox.h) the recorder makes no
 * getcwd of its own, yet a relative path is worth recording absolute. So
 * the cwd is read once, just before the program installs its filter (when
 * the syscall is still allowed: sandbox_calls.c), and then followed through
 * chdir (wrap_cwd.c). fchdir makes it
 * unknown (naming the fd would take a readlink); so does a filter the
 * process was started under. `..` is resolved by name, as a shell's cd
 * does, not through symbolic links.
 */
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rec.h"
#include "sandbox.h"

/*
 * The cached cwd and its length (0: unknown), guarded by the lock, which
 * is only ever tried (a signal handler may chdir, or record a path, while
 * its thread holds it): a reader that finds it taken for long takes the
 * cwd for unknown, a writer makes it unknown.
 */
static char cwd[PATH_MAX];
static size_t cwd_len;
static pthread_mutex_t cwd_lock = PTHREAD_MUTEX_INITIALIZER;
static int cwd_stale;      /* a change was missed: unknown from now on */

/*
 * Try the lock for a while: another thread holds it for a copy of a path
 * at most; this thread, interrupted by a handler, would hold it for ever.
 */
static int cwd_try(void)
{
    for (int i = 0; i < 1000; i++) {
        if (pthread_mutex_trylock(&cwd_lock) == 0)
            return 1;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
    return 0;
}

/* Take the lock to change the cwd: 1; or, when it stays taken, make the
   cwd unknown (as soon as the holder lets go) and return 0. */
static int cwd_take(void)
{
    if (cwd_try())
        return 1;
    __atomic_store_n(&cwd_stale, 1, __ATOMIC_RELEASE);
    return 0;
}

/* path (absolute) with its ".", ".." and empty components resolved by name. */
static size_t normalize(char *path)
{
    char *out = path, *in = path;

    while (*in) {
        char *end;
        size_t n;

        while (*in == '/')
            in++;
        end = strchrnul(in, '/');
        n = (size_t)(end - in);
        if (n == 0 || (n == 1 && in[0] == '.')) {
            /* nothing */
        } else if (n == 2 && in[0] == '.' && in[1] == '.') {
            while (out > path && *--out != '/')
                ;
        } else {
            *out++ = '/';
            memmove(out, in, n);
            out += n;
        }
        in = end;
    }
    if (out == path)
        *out++ = '/';
    *out = '\0';
    return (size_t)(out - path);
}

void rec_cwd_remember(void)
{
    char buf[PATH_MAX];
    int saved = errno;
    long r = syscall(SYS_getcwd, buf, sizeof(buf));

    if (!cwd_take())
        return;
    cwd_len = r > 0 && buf[0] == '/' ? strlen(buf) : 0;
    memcpy(cwd, buf, cwd_len + 1);
    __atomic_store_n(&cwd_stale, 0, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&cwd_lock);
    errno = saved;
}

size_t rec_cwd_cached(char *buf, size_t cap)
{
    size_t n;

    if (!cwd_try())
        return 0;
    if (__atomic_load_n(&cwd_stale, __ATOMIC_ACQUIRE))
        cwd_len = 0;
    n = cwd_len < cap ? cwd_len : 0;
    memcpy(buf, cwd, n);
    buf[n] = '\0';
    pthread_mutex_unlock(&cwd_lock);
    return n;
}

/* The cwd for a record into buf (PATH_MAX): getcwd, or where a filter may
   stand the cached one. Its length, 0 when unknown. */
size_t rec_cwd_now(char *buf, size_t cap)
{
    long r;

    /* getcwd is not the program's to make where a filter may stand */
    if (rec_filter_may_stand())
        return rec_cwd_cached(buf, cap);
    r = syscall(SYS_getcwd, buf, cap);
    return r > 0 && buf[0] == '/' ? strlen(buf) : 0;
}

/* A chdir to path succeeded: follow it, by name. */
void rec_cwd_moved(const char *path)
{
    char next[PATH_MAX + 1];
    size_t n = 0;

    if (!cwd_take())
        return;
    if (path[0] == '/') {
        n = strnlen(path, PATH_MAX);
        memcpy(next, path, n);
        next[n] = '\0';
    } else if (cwd_len) {
        memcpy(next, cwd, cwd_len);
        n = iot_path_join(next, sizeof(next), cwd_len, path);
    }
    cwd_len = n && n < PATH_MAX ? normalize(next) : 0;
    memcpy(cwd, next, cwd_len);
    cwd[cwd_len] = '\0';
    pthread_mutex_unlock(&cwd_lock);
}


/* fchdir succeeded: the cwd is unknown (naming the fd would take a readlink). */
void rec_cwd_forget(void)
{
    if (!cwd_take())
        return;
    cwd_len = 0;
    pthread_mutex_unlock(&cwd_lock);
}
