/* Linear probing with backward-shift deletion (no tombstones). */
#include <stdlib.h>

#include "hash.h"
#include "hmap.h"

/* Every key bit counts (iot_mix64): keys made of a pid above a fd, or of
   pointers that share their low bits, still spread over the slots. */
static size_t slot_of(uint64_t key, size_t cap)
{
    return (size_t)iot_mix64(key) & (cap - 1);
}

void *hmap_get(const struct hmap *m, uint64_t key)
{
    if (!m->cap)
        return NULL;
    for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (!m->used[i])
            return NULL;
        if (m->keys[i] == key)
            return m->vals[i];
    }
}

static int grow(struct hmap *m)
{
    size_t ncap = m->cap ? m->cap * 2 : 16;
    struct hmap nm = {calloc(ncap, sizeof(uint64_t)), calloc(ncap, sizeof(void *)),
                      calloc(ncap, 1), ncap, 0};

    if (!nm.keys || !nm.vals || !nm.used) {
        hmap_release(&nm);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++)
        if (m->used[i])
            hmap_put(&nm, m->keys[i], m->vals[i]);
    hmap_release(m);
    *m = nm;
    return 0;
}

int hmap_put(struct hmap *m, uint64_t key, void *val)
{
    size_t i;

    if ((m->n + 1) * 4 > m->cap * 3 && grow(m) < 0)
        return -1;
    for (i = slot_of(key, m->cap); m->used[i]; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == key) {
            m->vals[i] = val;
            return 0;
        }
    }
    m->used[i] = 1;
    m->keys[i] = key;
    m->vals[i] = val;
    m->n++;
    return 0;
}

void *hmap_del(struct hmap *m, uint64_t key)
{
    size_t i, j, mask = m->cap - 1;
    void *val;

    if (!m->cap)
        return NULL;
    for (i = slot_of(key, m->cap);; i = (i + 1) & mask) {
        if (!m->used[i])
            return NULL;
        if (m->keys[i] == key)
            break;
    }
    val = m->vals[i];
    m->used[i] = 0;
    m->n--;
    /* Shift back later entries of the cluster that would no longer be found. */
    for (j = (i + 1) & mask; m->used[j]; j = (j + 1) & mask) {
        size_t home = slot_of(m->keys[j], m->cap);

        if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
            m->keys[i] = m->keys[j];
            m->vals[i] = m->vals[j];
            m->used[i] = 1;
            m->used[j] = 0;
            i = j;
        }
    }
    return val;
}

void hmap_release(struct hmap *m)
{
    free(m->keys);
    free(m->vals);
    free(m->used);
    m->keys = NULL;
    m->vals = NULL;
    m->used = NULL;
    m->cap = m->n = 0;
}

size_t hmap_max_probe(const struct hmap *m)
{
    size_t worst = 0;

    for (size_t i = 0; i < m->cap; i++) {
        size_t d = m->used[i] ? (i - slot_of(m->keys[i], m->cap)) & (m->cap - 1) : 0;

        if (d > worst)
            worst = d;
    }
    return worst;
}
