/*
 * hmap.h - a small open-addressing hash map from 64-bit keys to pointers,
 * for the engine's per-event lookups (pids, tids, stdio stream ids, paths).
 */
#ifndef HMAP_H
#define HMAP_H

#include <stddef.h>
#include <stdint.h>

struct hmap {
    uint64_t *keys;
    void **vals;
    uint8_t *used;
    size_t cap, n;
};

#define HMAP_INIT {0}

/* The value stored under key, or NULL. */
void *hmap_get(const struct hmap *m, uint64_t key);
/* Store val under key (replacing). 0, or -1 out of memory. */
int hmap_put(struct hmap *m, uint64_t key, void *val);
/* Remove key; returns its value or NULL. */
void *hmap_del(struct hmap *m, uint64_t key);
void hmap_release(struct hmap *m);
/* The farthest any key sits from its home slot (a check on the hash, for
   tests: small however the keys are made). */
size_t hmap_max_probe(const struct hmap *m);

/* Iterate: for (size_t i = 0; i < m.cap; i++) if (m.used && m.used[i]) ... m.vals[i] */

static inline uint64_t hmap_ptr_key(const void *p) { return (uint64_t)(uintptr_t)p; }

#endif /* HMAP_H */
