/*
 * decompress.h - a compressed input (gzip or zstd) read as the bytes it
 * holds, so that `gzip log` and `zstd log` give files every command reads
 * as they are. The compression is told by its magic, never by a name.
 *
 * A damaged stream (cut short, a corrupt block) is read as far as it
 * decodes: then the decoded bytes end, and decomp_damage() says what was
 * wrong, for the caller to report once the reading is done.
 */
#ifndef DECOMPRESS_H
#define DECOMPRESS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum decomp_kind { DECOMP_NONE, DECOMP_GZIP, DECOMP_ZSTD };

/* The compression whose magic buf[0..n) starts with; DECOMP_NONE for none. */
enum decomp_kind decomp_detect(const void *buf, size_t n);
/* "gzip", "zstd". */
const char *decomp_name(enum decomp_kind kind);

/*
 * What the compressed start raw[0..nraw) decodes to, at most cap bytes in
 * out (for detection: a start cut where the peek ended decodes as far as it
 * goes). The count, or -1 when raw is not of that compression at all.
 */
ssize_t decomp_peek(enum decomp_kind kind, const void *raw, size_t nraw, void *out, size_t cap);

/* The compressed bytes: up to size into buf; the count, 0 at the end, -1 with errno set. */
typedef ssize_t decomp_src_fn(void *ctx, void *buf, size_t size);

struct decomp;

/* A decoder reading the compressed stream from src(ctx); NULL out of memory. */
struct decomp *decomp_create(enum decomp_kind kind, decomp_src_fn *src, void *ctx);
/*
 * Up to size decoded bytes into out: the count, 0 at the end of the stream
 * (its damage included: decomp_damage), or -1 with errno set when src fails.
 */
ssize_t decomp_read(struct decomp *d, void *out, size_t size);
/* NULL while the stream is intact; else one line: what was wrong, where. */
const char *decomp_damage(const struct decomp *d);
void decomp_free(struct decomp *d);

#endif /* DECOMPRESS_H */
