/*
 * zstd_load.c - libzstd for a process that compresses its own trace.
 *
 * Only a process without a collector compresses (tracefile.c); under
 * iorecord, which every exec'd child of a recorded run is, the collector
 * does. Linking libzstd into the library would load and relocate it in
 * every recorded process all the same, at each exec. So the library
 * defines the few ZSTD_* functions the format library's compressor calls,
 * hidden, as calls through pointers that rec_zstd_load() fills from a
 * dlopen of libzstd, made at start-up only when this process will
 * compress (never lazily: a first chunk can close in a signal handler).
 *
 * Invariant: nothing calls these functions before rec_zstd_load() has
 * returned 0; rec_trace_open() loads first and is the only way to the
 * compressor (a fork child inherits the loaded library and the pointers).
 */
#include <dlfcn.h>

/* our definitions below are the library's own, never exported */
#define ZSTDLIB_VISIBLE __attribute__((visibility("hidden")))
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include "internal.h"

/* X(return type, name, (parameters), (arguments)): what chunk.c calls. */
#define REC_ZSTD_FUNCS(X)                                                      \
    X(ZSTD_CCtx *, ZSTD_createCCtx, (void), ())                                \
    X(size_t, ZSTD_freeCCtx, (ZSTD_CCtx * c), (c))                             \
    X(ZSTD_CCtx *, ZSTD_initStaticCCtx, (void *w, size_t n), (w, n))           \
    X(ZSTD_compressionParameters, ZSTD_getCParams,                             \
      (int l, unsigned long long s, size_t d), (l, s, d))                      \
    X(size_t, ZSTD_estimateCStreamSize_usingCParams,                           \
      (ZSTD_compressionParameters p), (p))                                     \
    X(size_t, ZSTD_CCtx_setParameter, (ZSTD_CCtx * c, ZSTD_cParameter p, int v), \
      (c, p, v))                                                               \
    X(size_t, ZSTD_CCtx_setPledgedSrcSize, (ZSTD_CCtx * c, unsigned long long s), \
      (c, s))                                                                  \
    X(size_t, ZSTD_CCtx_reset, (ZSTD_CCtx * c, ZSTD_ResetDirective r), (c, r)) \
    X(size_t, ZSTD_compressStream2,                                            \
      (ZSTD_CCtx * c, ZSTD_outBuffer *o, ZSTD_inBuffer *i,                     \
       ZSTD_EndDirective e),                                                   \
      (c, o, i, e))                                                            \
    X(size_t, ZSTD_compressBound, (size_t n), (n))                             \
    X(unsigned, ZSTD_isError, (size_t r), (r))

#define ZSTD_PTR_(ret, name, params, args) static ret(*p_##name) params;
REC_ZSTD_FUNCS(ZSTD_PTR_)
#undef ZSTD_PTR_

#define ZSTD_FWD_(ret, name, params, args)                                     \
    ret name params { return p_##name args; }
REC_ZSTD_FUNCS(ZSTD_FWD_)
#undef ZSTD_FWD_

int rec_zstd_load(void)
{
    static int loaded;
    void *h;

    if (loaded)
        return 0;
    /* RTLD_LOCAL: its symbols never stand in for a program's own */
    h = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return -1;
#define ZSTD_SYM_(ret, name, params, args)                                     \
    if (!(*(void **)&p_##name = dlsym(h, #name)))                              \
        return -1;
    REC_ZSTD_FUNCS(ZSTD_SYM_)
#undef ZSTD_SYM_
    loaded = 1;
    return 0;
}
