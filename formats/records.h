/*
 * records.h - record tags and chunk constants shared by the encoder and the
 * decoder (internal to formats/). docs/trace-format.md is the normative text.
 */
#ifndef IOT_RECORDS_H
#define IOT_RECORDS_H

#define IOT_CHUNK_MAGIC "IOSC"
/* The zstd skippable frame that carries a copy of each chunk's header. */
#define IOT_INDEX_FRAME_MAGIC 0x184D2A5Eu

/* Tags 0x00..0x3e are calls: the tag is the op. */
#define IOT_TAG_CALL_MAX  0x3f
#define IOT_TAG_CALL_EXT  0x3f  /* a call of op >= 0x3f: the op follows as a varint */
#define IOT_TAG_STR       0x40  /* id, len, bytes */
#define IOT_TAG_PROCESS   0x41  /* t, ppid, start_unix_ns, exe, argc, args */
#define IOT_TAG_THREAD    0x42  /* t, name */
#define IOT_TAG_EXIT      0x43  /* t, status, signal */
/*
 * Tags 0x44..0x7f: records a later version adds, each a varint length and
 * that many bytes, so that a reader that does not know one skips it.
 */
#define IOT_TAG_EXT_FIRST 0x44
#define IOT_TAG_MODULE    0x44  /* length, then t, path, bias, build-id (5.10) */
/* length (0 so far): the previous call again, untimed (5.12) */
#define IOT_TAG_REPEAT_UNTIMED 0x45
/* length, then t, start, size, name: a runtime's name for code with no ELF file (5.13) */
#define IOT_TAG_JIT_SYMBOL 0x46
#define IOT_TAG_LABEL     0x47  /* length, then t, key, value (5.14) */
/* length, then t, waits: the thread waits for events (epoll, poll, select) from t on (5.16) */
#define IOT_TAG_WAITS     0x49
/* length, then t, what, path[, random_at, random_len]: what a name means (5.17) */
#define IOT_TAG_NAME      0x4a
/* length, then t, code, file, qualname, first_line, lines: a Python code object (5.18) */
#define IOT_TAG_PY_CODE   0x4b
#define IOT_TAG_EXT_LAST  0x7f
#define IOT_TAG_REPEAT    0x80  /* gap, dur: otherwise the previous call again */
/* Tags 0x81..0xff are invalid: the chunk is damaged from there on. */

/* Limits a reader enforces so hostile input cannot make it allocate without bound. */
#define IOT_MAX_CHUNK_BYTES  (64u << 20)   /* decompressed chunk */
#define IOT_MAX_STRING       (1u << 20)    /* one string (path, stack, argument) */
#define IOT_MAX_ARGS         65536
/*
 * Decompressed chunks a reader holds at once (one per thread that overlaps
 * in time). The recorder's chunks are 64 KiB, so real traces stay far below;
 * a few KiB of zstd frames inflating to this much is a decompression bomb.
 */
#define IOT_MAX_INFLATED     ((size_t)1 << 30)
/*
 * Times (absolute, relative and durations) a reader accepts: within +-2^62 ns
 * (146 years), so that t - origin and t + dur never overflow in the reader or
 * in its callers. A record or chunk outside is damaged.
 */
#define IOT_MAX_TIME         ((int64_t)1 << 62)

/* has-bits a call record may carry that this version knows. */
#define IOT_CALL_HAS_MASK (IOT_HAS_ALL | IOT_HAS_NO_DUR)
/* Ops a chunk may name (the escape's varint): more is damage, not a newer op. */
#define IOT_MAX_OP 0xffff

#endif
