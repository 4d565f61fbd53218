/*
 * fuzz.h - fuzz targets. Each tests/fuzz/fuzz_<name>.c defines
 * `void fuzz_<name>(const uint8_t *data, size_t size)` and ends with
 * FUZZ_ENTRY(fuzz_<name>). Built with -DFUZZ_LIBFUZZER the entry becomes
 * libFuzzer's LLVMFuzzerTestOneInput (tests/fuzz/run.sh, `make fuzz`);
 * otherwise replay.c runs every target over its committed corpus
 * (tests/fuzz/corpus/<name>/) as an ordinary test in `make test`.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* Every target, declared once: X(name). */
#define FUZZ_TARGETS(X) \
    X(trace)            \
    X(records)          \
    X(jsonl)            \
    X(strace)           \
    X(config)           \
    X(issues)           \
    X(analyze)

#define FUZZ_DECL_(name) void fuzz_##name(const uint8_t *data, size_t size);
FUZZ_TARGETS(FUZZ_DECL_)
#undef FUZZ_DECL_

#ifdef FUZZ_LIBFUZZER
#define FUZZ_ENTRY(fn)                                                   \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)         \
    {                                                                    \
        fn(data, size);                                                  \
        return 0;                                                        \
    }
#else
#define FUZZ_ENTRY(fn)
#endif

/*
 * A path naming an in-memory copy of data (memfd), for parsers that take
 * file names; "" on failure. fuzz_file_close() releases it.
 */
const char *fuzz_file(const uint8_t *data, size_t size);
void fuzz_file_close(void);

#endif
