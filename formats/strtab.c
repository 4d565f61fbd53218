/*
 * strtab.c - string interning: one copy of each distinct string, with stable
 * addresses, so the analyzer compares paths and stacks by pointer.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "iotrace.h"

#define ARENA_BLOCK (64u << 10)

struct arena_block {
    struct arena_block *next;
    size_t used, cap;
    char data[];
};

struct slot {
    uint64_t hash;
    const char *s;
    size_t len;
};

struct iot_strtab {
    struct slot *slots;
    size_t mask;        /* slots - 1; a power of two */
    size_t count;
    size_t bytes;
    int full;           /* a string was refused: IOT_STRTAB_MAX_BYTES reached */
    struct arena_block *blocks;
    int shared;         /* iot_strtab_share: interning takes lock */
    pthread_mutex_t lock;
};

struct iot_strtab *iot_strtab_create(void)
{
    struct iot_strtab *st = calloc(1, sizeof(*st));

    if (!st)
        return NULL;
    st->mask = 255;
    st->slots = calloc(st->mask + 1, sizeof(*st->slots));
    if (!st->slots) {
        free(st);
        return NULL;
    }
    return st;
}

void iot_strtab_share(struct iot_strtab *st)
{
    if (!st->shared && pthread_mutex_init(&st->lock, NULL) == 0)
        st->shared = 1;
}

void iot_strtab_free(struct iot_strtab *st)
{
    struct arena_block *b, *next;

    if (!st)
        return;
    if (st->shared)
        pthread_mutex_destroy(&st->lock);
    for (b = st->blocks; b; b = next) {
        next = b->next;
        free(b);
    }
    free(st->slots);
    free(st);
}

static char *arena_alloc(struct iot_strtab *st, size_t n)
{
    struct arena_block *b = st->blocks;

    if (!b || b->cap - b->used < n) {
        size_t cap = n > ARENA_BLOCK ? n : ARENA_BLOCK;

        b = malloc(sizeof(*b) + cap);
        if (!b)
            return NULL;
        b->cap = cap;
        b->used = 0;
        /* A large string gets its own block behind the current one. */
        if (st->blocks && n > ARENA_BLOCK) {
            b->next = st->blocks->next;
            st->blocks->next = b;
        } else {
            b->next = st->blocks;
            st->blocks = b;
        }
    }
    b->used += n;
    return b->data + b->used - n;
}

/* Twice the slots; every string moves to its place in the new table (so not iot_grow). */
static int rehash(struct iot_strtab *st)
{
    size_t nmask = st->mask * 2 + 1;
    struct slot *ns = calloc(nmask + 1, sizeof(*ns));

    if (!ns)
        return -1;
    for (size_t i = 0; i <= st->mask; i++) {
        size_t j;

        if (!st->slots[i].s)
            continue;
        for (j = st->slots[i].hash & nmask; ns[j].s; j = (j + 1) & nmask)
            ;
        ns[j] = st->slots[i];
    }
    free(st->slots);
    st->slots = ns;
    st->mask = nmask;
    return 0;
}

static const char *intern(struct iot_strtab *st, const char *s, size_t len)
{
    uint64_t h = iot_fnv64(s, len);
    size_t i;
    char *copy;

    for (i = h & st->mask; st->slots[i].s; i = (i + 1) & st->mask)
        if (st->slots[i].hash == h && st->slots[i].len == len &&
            memcmp(st->slots[i].s, s, len) == 0)
            return st->slots[i].s;
    if (len >= IOT_STRTAB_MAX_BYTES - st->bytes) {
        st->full = 1;
        return NULL;
    }
    if ((st->count + 1) * 4 > (st->mask + 1) * 3) {
        if (rehash(st) < 0)
            return NULL;
        for (i = h & st->mask; st->slots[i].s; i = (i + 1) & st->mask)
            ;
    }
    copy = arena_alloc(st, len + 1);
    if (!copy)
        return NULL;
    memcpy(copy, s, len);
    copy[len] = '\0';
    st->slots[i].hash = h;
    st->slots[i].s = copy;
    st->slots[i].len = len;
    st->count++;
    st->bytes += len + 1;
    return copy;
}

const char *iot_intern(struct iot_strtab *st, const char *s, size_t len)
{
    const char *r;

    if (!st->shared)
        return intern(st, s, len);
    pthread_mutex_lock(&st->lock);
    r = intern(st, s, len);
    pthread_mutex_unlock(&st->lock);
    return r;
}

size_t iot_strtab_count(const struct iot_strtab *st)
{
    return st->count;
}

int iot_strtab_full(const struct iot_strtab *st)
{
    return st->full;
}

size_t iot_strtab_bytes(const struct iot_strtab *st)
{
    return st->bytes;
}
