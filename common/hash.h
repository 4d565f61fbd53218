/*
 * hash.h - FNV-1a, the one hash of ioscope (string interning, the encoder's
 * string cache, the recorder's stack cache, issue fingerprints, the chunk
 * header's check field), and iot_mix64, the mixer of integer keys of
 * in-memory hash tables. Inline: the recorder calls it on its hot path.
 *
 * Fingerprints and the check field are part of stored data (docs/ci.md,
 * docs/trace-format.md 2.1): these constants never change.
 */
#ifndef IOT_HASH_H
#define IOT_HASH_H

#include <stddef.h>
#include <stdint.h>

#define IOT_FNV64_INIT  0xcbf29ce484222325ULL
#define IOT_FNV64_PRIME 0x100000001b3ULL
#define IOT_FNV32_INIT  0x811c9dc5u
#define IOT_FNV32_PRIME 0x01000193u

/* h extended by the bytes p[0..n): start from IOT_FNV64_INIT. */
static inline uint64_t iot_fnv64_add(uint64_t h, const void *p, size_t n)
{
    const uint8_t *c = p;

    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * IOT_FNV64_PRIME;
    return h;
}

/* h extended by one 64-bit word at once (the recorder's return addresses). */
static inline uint64_t iot_fnv64_word(uint64_t h, uint64_t w)
{
    return (h ^ w) * IOT_FNV64_PRIME;
}

static inline uint64_t iot_fnv64(const void *p, size_t n)
{
    return iot_fnv64_add(IOT_FNV64_INIT, p, n);
}

/*
 * A key for in-memory caches only, never stored: FNV-1a's step over 8 bytes
 * at a time, so a long string (a stack of full module paths) costs an eighth
 * of the multiplies. Not FNV-1a's value.
 */
static inline uint64_t iot_hash_words(const void *p, size_t n)
{
    const uint8_t *c = p;
    uint64_t h = IOT_FNV64_INIT ^ n, w;

    for (; n >= 8; c += 8, n -= 8) {
        __builtin_memcpy(&w, c, 8);
        h = (h ^ w) * IOT_FNV64_PRIME;
        h ^= h >> 29;
    }
    w = 0;
    __builtin_memcpy(&w, c, n);
    h = (h ^ w) * IOT_FNV64_PRIME;
    return h ^ (h >> 32);
}

/*
 * The mixer of the in-memory hash tables keyed by integers or pointers
 * (pids, tids, fds, interned path pointers): MurmurHash3's 64-bit
 * finaliser, under which each key bit changes every output bit with
 * probability near 1/2. A table takes the LOW bits of it as its slot, so
 * keys that differ only in high bits (a pid shifted up beside a path
 * pointer) still land apart; a hand-made multiply-and-shift does not. (The
 * recorder's return-address caches, stack.c and wrap_meta.c, multiply and
 * take the HIGH bits instead, which a multiply does mix.)
 */
static inline uint64_t iot_mix64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}

/* Two keys as one (a (pid, path) pair): every bit of both reaches the result. */
static inline uint64_t iot_mix64_pair(uint64_t a, uint64_t b)
{
    return iot_mix64(a ^ iot_mix64(b + IOT_FNV64_INIT));
}

static inline uint32_t iot_fnv32(const void *p, size_t n)
{
    const uint8_t *c = p;
    uint32_t h = IOT_FNV32_INIT;

    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * IOT_FNV32_PRIME;
    return h;
}

#endif /* IOT_HASH_H */
