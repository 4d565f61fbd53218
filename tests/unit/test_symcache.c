/*
 * The symbol cache by build-id (symcache.h): what one process stores is what
 * the next reads; a file that does not check out is ignored, never
 * believed, and rewritten; the files stay under their bound.
 */
#include <CUnit/CUnit.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symcache.h"
#include "unit.h"

#define ID_A "0123456789abcdef0123456789abcdef01234567"
#define ID_B "fedcba9876543210fedcba9876543210fedcba98"

/* An address inlined twice: two inlined calls, then the function. */
static const struct sym_frame chain[] = {
    { .function = "put_u32", .file = "/src/enc.h", .line = 12, .inlined = 1 },
    { .function = "log_record", .file = "/src/small writes.c", .line = 38, .inlined = 1 },
    { .function = "logger", .file = "/src/small writes.c", .line = 52 },
};
/* A symbol-only frame: no file, an offset into its function. */
static const struct sym_frame bare = { .function = "_start", .fn_offset = 0x21, .has_fn_offset = 1 };

static const char *cache_dir(const char *name)
{
    static char dir[256];

    snprintf(dir, sizeof(dir), "%s", unit_tmp_path(name));
    mkdir(dir, 0700);
    return dir;
}

static void file_of(const char *dir, const char *id, char *buf, size_t size)
{
    snprintf(buf, size, "%s/symbols/%.2s/%s", dir, id, id);
}

static void frames_equal(const struct sym_frame *got, const struct sym_frame *want, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (want[i].function) {
            CU_ASSERT_STRING_EQUAL(got[i].function, want[i].function);
        } else {
            CU_ASSERT_PTR_NULL(got[i].function);
        }
        if (want[i].file) {
            CU_ASSERT_STRING_EQUAL(got[i].file, want[i].file);
        } else {
            CU_ASSERT_PTR_NULL(got[i].file);
        }
        CU_ASSERT_EQUAL(got[i].line, want[i].line);
        CU_ASSERT_EQUAL(got[i].inlined, want[i].inlined);
        CU_ASSERT_EQUAL(got[i].has_fn_offset, want[i].has_fn_offset);
        CU_ASSERT_EQUAL(got[i].fn_offset, want[i].fn_offset);
    }
}

/* A cache under dir holding ID_A's two addresses, written to disk. */
static void store_two(const char *dir)
{
    struct symcache *c = symcache_create(dir);

    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    symcache_put(c, ID_A, 0x12fa, chain, 3, 1);
    symcache_put(c, ID_A, 0x1131, &bare, 1, 1);
    CU_ASSERT_EQUAL(symcache_flush(c), 0);
    symcache_free(c);
}

static void test_round_trip(void)
{
    const char *dir = cache_dir("symcache-trip");
    struct sym_frame out[16];
    struct symcache *c;
    int dwarf = 0;

    store_two(dir);
    c = symcache_create(dir);
    CU_ASSERT_EQUAL_FATAL(symcache_get(c, ID_A, 0x12fa, out, 16, &dwarf), 3);
    frames_equal(out, chain, 3);
    CU_ASSERT_EQUAL(dwarf, 1);
    CU_ASSERT_EQUAL_FATAL(symcache_get(c, ID_A, 0x1131, out, 16, NULL), 1);
    frames_equal(out, &bare, 1);
    CU_ASSERT_EQUAL(symcache_get(c, ID_A, 0x1132, out, 16, NULL), 0);
    CU_ASSERT_EQUAL(symcache_get(c, ID_B, 0x12fa, out, 16, NULL), 0);
    /* at most max frames are given */
    CU_ASSERT_EQUAL(symcache_get(c, ID_A, 0x12fa, out, 2, NULL), 2);
    symcache_free(c);
}

/* Overwrite the file of ID_A with text, or cut it to len bytes (text NULL). */
static void damage(const char *dir, const char *text, long cut, long flip)
{
    char path[512];
    FILE *f;

    file_of(dir, ID_A, path, sizeof(path));
    if (text) {
        f = fopen(path, "w");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        fputs(text, f);
        fclose(f);
    } else if (cut >= 0) {
        CU_ASSERT_EQUAL_FATAL(truncate(path, cut), 0);
    } else {
        int c;

        f = fopen(path, "r+");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        fseek(f, flip, SEEK_SET);
        c = fgetc(f);
        fseek(f, flip, SEEK_SET);
        fputc(c ^ 0x01, f);
        fclose(f);
    }
}

/* Each damage: nothing of the file is believed; the next flush writes a good file. */
static void test_corrupt_ignored(void)
{
    static const char *texts[] = {
        "",
        "garbage\n",
        "ioscope-symbols 1\nid " ID_A "\ndwarf 1\nentries 1\na\t12fa\t1\nf\t0\t38\t\tlog\t\nend 0\n",
    };
    const char *dir = cache_dir("symcache-bad");
    struct sym_frame out[16];
    char path[512];

    file_of(dir, ID_A, path, sizeof(path));
    for (int k = 0; k < 7; k++) {
        struct symcache *c;
        struct stat st;

        store_two(dir);
        CU_ASSERT_FATAL(stat(path, &st) == 0);
        if (k < 3)
            damage(dir, texts[k], -1, 0);
        else if (k == 3)
            damage(dir, NULL, st.st_size - 5, 0);          /* the end line cut */
        else if (k == 4)
            damage(dir, NULL, -1, 70);                     /* a byte of a name flipped */
        else if (k == 5)
            damage(dir, NULL, -1, st.st_size - 3);         /* the checksum itself */
        else {
            /* another build-id's good file put in its place */
            char other[512], cmd[1100];
            struct symcache *o = symcache_create(dir);

            symcache_put(o, ID_B, 0x12fa, chain, 3, 1);
            symcache_flush(o);
            symcache_free(o);
            file_of(dir, ID_B, other, sizeof(other));
            snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", other, path);
            CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
        }
        c = symcache_create(dir);
        CU_ASSERT_EQUAL(symcache_get(c, ID_A, 0x12fa, out, 16, NULL), 0);
        CU_ASSERT_EQUAL(symcache_get(c, ID_A, 0x1131, out, 16, NULL), 0);
        /* rewritten at the next flush, whole: what this process knows */
        symcache_put(c, ID_A, 0x1131, &bare, 1, 0);
        CU_ASSERT_EQUAL(symcache_flush(c), 0);
        symcache_free(c);
        c = symcache_create(dir);
        CU_ASSERT_EQUAL(symcache_get(c, ID_A, 0x1131, out, 16, NULL), 1);
        frames_equal(out, &bare, 1);
        CU_ASSERT_EQUAL(symcache_get(c, ID_A, 0x12fa, out, 16, NULL), 0);
        symcache_free(c);
        unlink(path);
    }
}

/* A flush keeps what another process wrote meanwhile; names that cannot be
   stored are served from memory only; a module found missing is not stored. */
static void test_merge_and_memory_only(void)
{
    const char *dir = cache_dir("symcache-merge");
    struct symcache *a = symcache_create(dir), *b = symcache_create(dir), *c;
    struct sym_frame odd = { .function = "evil\n\x1b[31mname", .line = 3 };
    struct sym_frame out[16];

    symcache_put(a, ID_A, 0x10, &bare, 1, 1);
    symcache_put(b, ID_A, 0x20, chain, 3, 1);
    symcache_put(b, ID_A, 0x30, &odd, 1, 1);
    CU_ASSERT_EQUAL(symcache_get(b, ID_A, 0x30, out, 16, NULL), 1);
    CU_ASSERT_STRING_EQUAL(out[0].function, odd.function);
    symcache_set_missing(b, ID_B);
    CU_ASSERT_EQUAL(symcache_missing(b, ID_B), 1);
    CU_ASSERT_EQUAL(symcache_flush(a), 0);
    CU_ASSERT_EQUAL(symcache_flush(b), 0);
    symcache_free(a);
    symcache_free(b);
    c = symcache_create(dir);
    CU_ASSERT_EQUAL(symcache_get(c, ID_A, 0x10, out, 16, NULL), 1);
    CU_ASSERT_EQUAL(symcache_get(c, ID_A, 0x20, out, 16, NULL), 3);
    CU_ASSERT_EQUAL(symcache_get(c, ID_A, 0x30, out, 16, NULL), 0);
    CU_ASSERT_EQUAL(symcache_missing(c, ID_B), 0);
    /* ids that are no build-id are neither stored nor made into paths */
    symcache_put(c, "../../etc", 0x10, &bare, 1, 1);
    symcache_put(c, "ABCDEF01", 0x10, &bare, 1, 1);
    CU_ASSERT_EQUAL(symcache_get(c, "../../etc", 0x10, out, 16, NULL), 0);
    CU_ASSERT_EQUAL(symcache_id_ok("ABCDEF01"), 0);
    CU_ASSERT_EQUAL(symcache_id_ok("abc"), 0);
    CU_ASSERT_EQUAL(symcache_id_ok(ID_A), 1);
    symcache_free(c);
}

/* Bytes in the cache files under dir/symbols. */
static long long cache_bytes(const char *dir)
{
    char top[512], sub[800], file[1200];
    long long total = 0;
    DIR *d, *s;
    struct dirent *e, *f;

    snprintf(top, sizeof(top), "%s/symbols", dir);
    d = opendir(top);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(sub, sizeof(sub), "%s/%s", top, e->d_name);
        if (!(s = opendir(sub)))
            continue;
        while ((f = readdir(s))) {
            struct stat st;

            snprintf(file, sizeof(file), "%s/%s", sub, f->d_name);
            if (f->d_name[0] != '.' && stat(file, &st) == 0)
                total += st.st_size;
        }
        closedir(s);
    }
    closedir(d);
    return total;
}

/* IOSCOPE_SYMCACHE_MAX_MB=1: 2.5 MB of symbols leave at most 1 MiB of files. */
static void test_bounded(void)
{
    const char *dir = cache_dir("symcache-bound");
    char name[200], id[41];
    struct symcache *c;
    long long total;

    setenv("IOSCOPE_SYMCACHE_MAX_MB", "1", 1);
    c = symcache_create(dir);
    unsetenv("IOSCOPE_SYMCACHE_MAX_MB");
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    memset(name, 'n', sizeof(name) - 1);
    name[sizeof(name) - 1] = '\0';
    for (int m = 0; m < 25; m++) {
        snprintf(id, sizeof(id), "%040x", m + 1);
        for (int a = 0; a < 500; a++) {
            struct sym_frame f = { .function = name, .file = "/src/x.c", .line = a + 1 };

            symcache_put(c, id, (uint64_t)a * 16, &f, 1, 1);
        }
    }
    CU_ASSERT_EQUAL(symcache_flush(c), 0);
    symcache_free(c);
    total = cache_bytes(dir);
    CU_ASSERT(total > 0);
    CU_ASSERT(total <= 1 << 20);
}

void symcache_suite(void)
{
    CU_pSuite s = CU_add_suite("symcache", NULL, NULL);

    CU_add_test(s, "what is stored is read back, inline chains and offsets", test_round_trip);
    CU_add_test(s, "a damaged or foreign cache file is ignored and rewritten", test_corrupt_ignored);
    CU_add_test(s, "flushes merge; unstorable names and missing modules stay in memory",
                test_merge_and_memory_only);
    CU_add_test(s, "the files stay under IOSCOPE_SYMCACHE_MAX_MB", test_bounded);
}
