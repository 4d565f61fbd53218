/*
 * iotrace.h - the ioscope event model and trace format library.
 *
 * The interface recorder/ and analyzer/ share for events and traces (the
 * other formats/ headers they include are single helpers: msg.h, grow.h,
 * hash.h, path.h, spool.h, version.h, and enc_io.h for the recorder's
 * inline encoding). It defines:
 *   - the event model (struct iot_event) shared by every input kind,
 *   - the op table (IOT_OPS, schema.h), declared once,
 *   - the chunk encoder used on the recorder's hot path (struct iot_enc),
 *   - chunk compression (struct iot_chunker),
 *   - a simple writer of whole events for tools and tests (struct iot_writer),
 *   - the native trace reader, which reads a trace front to back without
 *     holding it whole (struct iot_trace),
 *   - string interning (struct iot_strtab),
 *   - JSONL parsing and formatting of events.
 * The byte layout is specified in docs/trace-format.md.
 *
 * Library code never prints and never exits: functions return an error and,
 * where an error buffer is given, a one-line message without a trailing newline.
 */
#ifndef IOTRACE_H
#define IOTRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "schema.h"

#ifdef __cplusplus
extern "C" {
#endif

#define IOT_FORMAT_VERSION 1      /* chunk format version written and read */
#define IOT_ERRBUF_SIZE    256    /* size of error message buffers */

/* ------------------------------------------------------------------ ops */

enum iot_op {
#define IOT_OP_ENUM_(e, name, dir, pos, cls, api, role, fields) IOT_OP_##e,
    IOT_OPS(IOT_OP_ENUM_)
#undef IOT_OP_ENUM_
    IOT_OP_COUNT
};

/* Per-op facts from IOT_OPS, for dispatch without a switch on the op. */
struct iot_op_info {
    const char *name;     /* JSONL and text name */
    uint8_t dir;          /* enum iot_dir */
    uint8_t positional;   /* the call says where; the file position is untouched */
    uint8_t cls;          /* enum iot_class */
    uint8_t api;          /* enum iot_api */
    uint8_t role;         /* enum iot_role */
    uint32_t fields;      /* IOT_HAS_* bits a successful call carries */
};
/* iot_ops[op] for op < IOT_OP_COUNT. */
extern const struct iot_op_info iot_ops[IOT_OP_COUNT];

/* "read" for IOT_OP_READ; NULL for an op out of range. */
const char *iot_op_name(unsigned op);
/* The op whose JSON name is `name`, or -1. */
int iot_op_from_name(const char *name, size_t len);
/*
 * Whether op is a note the recorder writes, not a call the program made:
 * what an fd it first saw in use names (fdpath), the working directory
 * (cwd). Tables of calls per op leave notes out.
 */
static inline int iot_op_is_note(unsigned op)
{
    return op == IOT_OP_FDPATH || op == IOT_OP_CWD;
}

/* --------------------------------------------------------------- events */

enum iot_kind {
#define IOT_KIND_ENUM_(NAME, name, t) IOT_EV_##NAME,
    IOT_KINDS(IOT_KIND_ENUM_)
#undef IOT_KIND_ENUM_
    IOT_KIND_COUNT
};
/* "process" for IOT_EV_PROCESS; NULL for a kind out of range. */
const char *iot_kind_name(unsigned kind);

/* Optional fields of a call (IOT_FIELDS): bit set in iot_event.has when present. */
enum iot_has {
#define IOT_HAS_ENUM_(name, bit, member, type, key) IOT_HAS_##name = 1u << bit,
    IOT_FIELDS(IOT_HAS_ENUM_)
#undef IOT_HAS_ENUM_
};
/* Every field this reader knows. */
#define IOT_HAS_ALL (0u IOT_FIELDS(IOT_HAS_ALL_))
#define IOT_HAS_ALL_(name, bit, member, type, key) | IOT_HAS_##name
/* Exit events only */
#define IOT_HAS_SIGNAL     (1u << 15)  /* the process was killed by `signal` */
/* Call events from sources without durations (strace without -T) */
#define IOT_HAS_NO_DUR     (1u << 16)

/* The bound on a plain event's quantities (struct iot_event, plain). */
#define IOT_PLAIN_LIMIT    ((int64_t)1 << 49)

enum iot_bufmode { IOT_BUF_FULL = 0, IOT_BUF_LINE = 1, IOT_BUF_NONE = 2 };

/*
 * One event. Which members are meaningful depends on `kind` (and for calls on
 * `has`). Times are nanoseconds on the trace's clock: `t` counts from the
 * trace's time origin (see iot_trace_origin()).
 *
 * String members: readers set them to interned strings (struct iot_strtab)
 * that live as long as the reader's string table, so equal strings have equal
 * pointers. `argv` lives only until the next event is read.
 * Writers (iot_enc_call) use the *_id members instead of the pointers.
 */
struct iot_event {
    uint8_t  kind;       /* enum iot_kind */
    uint8_t  op;         /* enum iot_op (calls) */
    uint8_t  bufmode;    /* enum iot_bufmode (setvbuf, fopen, fdopen) */
    /*
     * A hint from the reader: 1 says iot_event_plain() holds, 0 that it may
     * not. The readers of this library set it (the native decoder works it
     * out from a record's encoding, for REPEATs at no cost); an event built
     * otherwise may leave it 0. The analyzer takes plain calls in its stride
     * without checking each of these conditions again. Not part of an
     * event's value: writers and iot_event_equal() ignore it.
     */
    uint8_t  plain;
    uint32_t has;        /* IOT_HAS_* */
    int32_t  pid;
    int32_t  tid;        /* calls and threads */
    int64_t  t;          /* start of the call; exit: time of exit; process: start */
    int64_t  dur;        /* call duration */
    int64_t  ret;        /* return value as the SPEC defines it */
    int32_t  err;        /* errno when has & IOT_HAS_ERRNO */
    int32_t  fd;
    int32_t  newfd;
    int32_t  whence;
    int32_t  in_fd;
    int32_t  last_fd;
    int64_t  flags;      /* open flags */
    int64_t  size;       /* requested bytes (vectored: the sum) */
    int64_t  offset;
    int64_t  file_size;
    uint64_t stream;     /* stdio stream id */
    const char *path;
    const char *mode;    /* fopen mode string */
    const char *stack;   /* frames separated by '\n', innermost first */
    uint32_t path_id, mode_id, stack_id;  /* writer side: ids from iot_enc_str */
    const char *newpath; /* rename, link, symlink: the second name */
    uint32_t newpath_id;

    /* IOT_EV_PROCESS */
    int32_t  ppid;
    int64_t  start_unix_ns;
    const char *exe;
    int      argc;
    const char *const *argv;

    /* IOT_EV_THREAD */
    const char *name;

    /*
     * IOT_EV_MODULE: `path` is the module's file, `bias` its load bias (the
     * address minus the ELF virtual address), `build_id` its GNU build-id in
     * lower-case hex ("" when it has none).
     */
    uint64_t bias;
    const char *build_id;

    /*
     * IOT_EV_JIT_SYMBOL: the code at [bias, bias + code_size) in the
     * process's memory, which no module covers (JIT code, interpreter
     * trampolines), is `symbol` as its runtime's perf map wrote it
     * ("JS:~main /app/x.js:3:1", "py::main:/app/x.py"); `bias` is its
     * start address.
     */
    uint64_t code_size;
    const char *symbol;

    /*
     * IOT_EV_LABEL: one KEY=VALUE the recording was given (iorecord
     * --label, IORECORD_LABELS), recorded once per process after its
     * process record. IOT_EV_RUNTIME_ENV: one variable of the process's
     * environment at its start that a runtime reads its options from
     * (JAVA_TOOL_OPTIONS, NODE_OPTIONS...), key its name, value its value.
     */
    const char *label_key;
    const char *label_value;

    /*
     * IOT_EV_HOME: `path` is the process's $HOME as its environment gave it
     * at the start (absolute). IOT_EV_TEMPLATE: the process made `path`
     * (absolute) from a template (mkstemp, mkdtemp): the random_len bytes
     * at random_at are those the template's X's became.
     */
    int64_t random_at;
    int64_t random_len;

    /*
     * IOT_EV_PY_CODE: in the process, the Python code object at address
     * `bias` (what its "[py:PID]+0xCODE+0xOFF" frames name) is `symbol`
     * (the qualified name) in file `py_file`, from line `first_line`;
     * `py_lines` its line table as text, "OFF:LINE" pairs separated by
     * spaces: from code byte OFF on (until the next pair's) the line is
     * LINE, 0 for none. bias 0: the process is a Python interpreter whose
     * frames were not walked, `symbol` says why.
     */
    int64_t first_line;
    const char *py_file;
    const char *py_lines;

    /*
     * IOT_EV_WAITS: thread tid waited for events (epoll_wait, poll, select
     * and their variants) `waits` times by t; recorded at its first wait,
     * so that from t on it is known as a thread others wait on (an event
     * loop). Recorded once per thread, not per call.
     */
    int64_t  waits;

    /* IOT_EV_EXIT */
    int32_t  status;     /* exit status (0..255); when killed, 128 + signal */
    int32_t  signal;     /* killing signal when has & IOT_HAS_SIGNAL */
};

/*
 * The fields at run time, for code that is not on a hot path and treats
 * them alike (the text dump, tests): iot_fields[0..IOT_FIELD_COUNT) in bit
 * order. The hot paths expand IOT_FIELDS instead.
 */
enum iot_ftype { IOT_FT_I32, IOT_FT_U32, IOT_FT_I64, IOT_FT_OCT, IOT_FT_HEX, IOT_FT_STR, IOT_FT_BUFMODE };
enum {
#define IOT_FIELD_IDX_(name, bit, member, type, key) IOT_FIELD_IDX_##name,
    IOT_FIELDS(IOT_FIELD_IDX_)
#undef IOT_FIELD_IDX_
    IOT_FIELD_COUNT
};
struct iot_field_info {
    const char *key;      /* JSONL and text key */
    uint32_t bit;         /* IOT_HAS_* */
    uint8_t type;         /* enum iot_ftype */
};
extern const struct iot_field_info iot_fields[IOT_FIELD_COUNT];
/* The field whose key is `key`, or -1. */
int iot_field_from_key(const char *key, size_t len);
/* Field i of ev: integer types (a stream id as its bits) ... */
int64_t iot_field_int(const struct iot_event *ev, unsigned i);
/* ... and IOT_FT_STR. */
const char *iot_field_str(const struct iot_event *ev, unsigned i);
/* "full", "line", "none"; NULL for another value. */
const char *iot_bufmode_name(unsigned bufmode);

/* Two events equal in every meaningful member (strings compared by content). */
int iot_event_equal(const struct iot_event *a, const struct iot_event *b);

/*
 * A plain call: one that succeeded (no errno, 0 <= ret < IOT_PLAIN_LIMIT),
 * is timed (no IOT_HAS_NO_DUR, 0 <= dur < IOT_PLAIN_LIMIT), has tid >= 0,
 * and whose size, offset and file_size lie within +-IOT_PLAIN_LIMIT.
 */
int iot_event_plain(const struct iot_event *ev);

/*
 * A process's two clocks: its process event gives its start as trace time
 * (start_t, the event's t) and as Unix time (start_unix_ns, 0 when not
 * known), and the trace clock runs at the Unix clock's rate from there.
 * Trace time t of the process as Unix ns: 1 and *unix_ns, or 0 (nothing
 * stored) when the start's Unix time is not known or the result does not
 * fit an int64_t.
 */
int iot_unix_ns_of(int64_t start_t, int64_t start_unix_ns, int64_t t, int64_t *unix_ns);
/* The inverse, from Unix ms: 1 and the trace time in *t, or 0 as above. */
int iot_trace_t_of(int64_t start_t, int64_t start_unix_ns, int64_t unix_ms, int64_t *t);

/* --------------------------------------------------------- string table */

/* An interning table: one copy of each distinct string, stable pointers. */
struct iot_strtab;
struct iot_strtab *iot_strtab_create(void);
void iot_strtab_free(struct iot_strtab *st);
/* From now on st is interned into from more than one thread (under a lock);
   the strings read stay lock-free: their addresses never change. */
void iot_strtab_share(struct iot_strtab *st);
/*
 * The interned copy of s[0..len) (NUL-terminated); NULL when out of memory,
 * or when the table already holds IOT_STRTAB_MAX_BYTES (hostile input: a few
 * MB of zstd can carry gigabytes of distinct stacks). iot_strtab_full() then
 * returns 1, so callers can say why.
 */
#define IOT_STRTAB_MAX_BYTES ((size_t)1 << 30)
const char *iot_intern(struct iot_strtab *st, const char *s, size_t len);
int iot_strtab_full(const struct iot_strtab *st);
/* Number of strings and bytes held. */
size_t iot_strtab_count(const struct iot_strtab *st);
size_t iot_strtab_bytes(const struct iot_strtab *st);

/* -------------------------------------------------------- chunk encoder */

/*
 * A chunk is a self-contained run of one thread's records. The encoder writes
 * records into a caller-owned buffer: it never allocates, locks or makes a
 * system call, so the recorder can use it on any thread and in signal
 * handlers (with its own re-entrancy guard).
 *
 * Every append function returns 0, or -1 when the record does not fit in the
 * remaining space; the buffer is then unchanged and the caller starts a new
 * chunk and appends again.
 */
#define IOT_ENC_STRCACHE 64  /* strings remembered per chunk for de-duplication */

struct iot_enc {
    uint8_t *buf;          /* records start here */
    size_t   cap;
    size_t   len;          /* bytes of complete records */
    uint32_t nrec;         /* complete records */
    int64_t  base_t;       /* absolute time of the chunk start */
    int64_t  prev_end;     /* end (t + dur) of the previous call, absolute */
    int      have_prev;    /* a previous call record exists in this chunk */
    struct iot_event prev; /* the previous call's fields, for REPEAT records */
    uint32_t next_str_id;
    struct { uint64_t hash; uint32_t id; uint32_t len; } strcache[IOT_ENC_STRCACHE];
};

/* Start a chunk in buf[0..cap); base_t is the absolute time of its start. */
void iot_enc_begin(struct iot_enc *e, void *buf, size_t cap, int64_t base_t);

/*
 * Define a string in this chunk and return its id in *id (>= 1). A string
 * already defined in the chunk (content equal) returns the same id without
 * writing it again.
 */
int iot_enc_str(struct iot_enc *e, const char *s, size_t len, uint32_t *id);
/*
 * iot_enc_str with the string's cache key given: a 64-bit hash of it that
 * the caller keeps (a stack's, of its return addresses), so that a long
 * string met again is neither measured nor hashed. One string must always
 * come with the same key; a string given both ways may be defined twice.
 */
int iot_enc_str_keyed(struct iot_enc *e, const char *s, size_t len, uint64_t key, uint32_t *id);

/* Append a call. ev->t is absolute; path/mode/stack are given as *_id. */
int iot_enc_call(struct iot_enc *e, const struct iot_event *ev);

/*
 * Fast path for the common fd call (read, write and their kin): has =
 * FD|SIZE (+ERRNO when err != 0). Same encoding as iot_enc_call.
 */
int iot_enc_io(struct iot_enc *e, unsigned op, int32_t fd, int64_t size,
               int64_t ret, int32_t err, int64_t t, int64_t dur);

/* Metadata records. t values are absolute. argv may be NULL when argc is 0. */
int iot_enc_process(struct iot_enc *e, int32_t ppid, int64_t t,
                    int64_t start_unix_ns, const char *exe, int argc,
                    const char *const *argv);
int iot_enc_thread(struct iot_enc *e, int64_t t, const char *name);
int iot_enc_exit(struct iot_enc *e, int64_t t, int32_t status, int32_t sig);
/* A module record (IOT_EV_MODULE): build_id is raw bytes, id_len of them. */
int iot_enc_module(struct iot_enc *e, int64_t t, const char *path, uint64_t bias,
                   const void *build_id, size_t id_len);
/* A JIT symbol record (IOT_EV_JIT_SYMBOL): code at [start, start + size) is name. */
int iot_enc_jit_symbol(struct iot_enc *e, int64_t t, uint64_t start, uint64_t size,
                       const char *name, size_t name_len);

/*
 * A Python code record (IOT_EV_PY_CODE): lines is the record's line table,
 * llen bytes (docs/trace-format.md, 5.18); iot_py_lines_parse makes it
 * from the event's text form into out (cap bytes): its length, or -1.
 */
int iot_enc_py_code(struct iot_enc *e, int64_t t, uint64_t code, const char *file, size_t flen,
                    const char *qualname, size_t qlen, uint64_t first_line, const void *lines,
                    size_t llen);
long iot_py_lines_parse(const char *text, int64_t first_line, uint8_t *out, size_t cap);

/*
 * Labels (KEY=VALUE) given to a recording: a key of [A-Za-z0-9_.-], 1 to
 * IOT_LABEL_MAX_KEY bytes; a value of printable ASCII but ',', at most
 * IOT_LABEL_MAX_VALUE bytes; at most IOT_LABEL_MAX_COUNT of them.
 */
#define IOT_LABEL_MAX_COUNT 32
#define IOT_LABEL_MAX_KEY   64
#define IOT_LABEL_MAX_VALUE 256
/* 0 when key[0..klen) = value[0..vlen) is a valid label; else -1 and why in errbuf (may be NULL). */
int iot_label_check(const char *key, size_t klen, const char *value, size_t vlen, char *errbuf);
typedef void iot_label_fn(void *arg, const char *key, size_t klen, const char *value, size_t vlen);
/*
 * The labels of list ("k=v,k2=v2"; NULL or "" holds none), each given to
 * each (may be NULL) in order: their number, or -1 and why in errbuf at the
 * first invalid one (those before it were given: check with each NULL first).
 */
int iot_labels_parse(const char *list, iot_label_fn *each, void *arg, char *errbuf);

/* A label record (IOT_EV_LABEL): key[0..klen) and value[0..vlen), neither
   NULL (as iot_labels_parse hands them, not NUL-terminated). */
/* A waits record (5.16): the chunk's thread waited for events `waits` times by t. */
int iot_enc_waits(struct iot_enc *e, int64_t t, uint64_t waits);
int iot_enc_label(struct iot_enc *e, int64_t t, const char *key, size_t klen, const char *value,
                  size_t vlen);

/* A home record (IOT_EV_HOME): path[0..len) is the process's $HOME. */
int iot_enc_home(struct iot_enc *e, int64_t t, const char *path, size_t len);
/*
 * The length of NAME when entry, "NAME=VALUE" as environ holds it, is a
 * variable a runtime reads its options from (JAVA_TOOL_OPTIONS,
 * NODE_OPTIONS, ERL_FLAGS...: docs/trace-format.md 5.17); else 0.
 */
size_t iot_runtime_env_name(const char *entry);
/* A runtime environment record (IOT_EV_RUNTIME_ENV): the variable
   name[0..nlen) had the value value[0..vlen) at the process's start. */
int iot_enc_runtime_env(struct iot_enc *e, int64_t t, const char *name, size_t nlen,
                        const char *value, size_t vlen);
/* A template record (IOT_EV_TEMPLATE): path[0..len) was made from a template
   whose X's became its bytes [at, at + n). */
int iot_enc_template(struct iot_enc *e, int64_t t, const char *path, size_t len, size_t at,
                     size_t n);

/* ------------------------------------------------------ chunk framing */

/* The header every chunk begins with (docs/trace-format.md, "Chunk header"). */
#define IOT_CHUNK_HDR_SIZE 48
struct iot_chunk_hdr {
    uint32_t version;    /* IOT_FORMAT_VERSION */
    uint32_t flags;      /* IOT_CHUNK_* */
    int32_t  pid;
    int32_t  tid;
    uint64_t chain_id;   /* unique per thread life (tid reuse, exec) */
    uint32_t seq;        /* chunk number within the thread chain, from 0 */
    uint32_t nrec;       /* records in the chunk */
    int64_t  base_t;     /* absolute time of the chunk start */
    uint32_t bytes;      /* bytes of records after the header */
};
#define IOT_CHUNK_PARTIAL 0x1u  /* a snapshot; a later chunk with the same seq supersedes it */
#define IOT_CHUNK_LAST    0x2u  /* the thread chain ended (thread exit) */

/*
 * A chunk of one record, the exit of process pid killed by signal sig at
 * (absolute) time t, in its own thread chain: for whoever saw a process die that
 * could not write its own (the recorder for a child, the launcher for the
 * command). The records go to buf[0..cap) and the header to *h. 0, or -1
 * when cap is too small.
 */
int iot_enc_kill_chunk(void *buf, size_t cap, int32_t pid, int sig, int64_t t,
                       uint64_t chain_id, struct iot_chunk_hdr *h);

/* Serialise h into out[0..IOT_CHUNK_HDR_SIZE). */
void iot_chunk_hdr_put(uint8_t *out, const struct iot_chunk_hdr *h);
/* Parse; 0 ok, -1 bad magic or short, -2 unsupported version (h->version set). */
int iot_chunk_hdr_get(const uint8_t *in, size_t len, struct iot_chunk_hdr *h);

/*
 * The longest run of whole records from the start of records[0..bytes) that
 * is at most budget bytes: its length, and its number of records in *nrec.
 * Cut there, a chunk is still a valid chunk (with h.bytes and h.nrec set to
 * these), for a writer that has room for only part of one.
 */
size_t iot_records_prefix(const void *records, size_t bytes, size_t budget, uint32_t *nrec);

/* Compresses chunks into zstd frames (one frame per chunk). */
struct iot_chunker;
struct iot_chunker *iot_chunker_create(int level);
void iot_chunker_free(struct iot_chunker *c);
/*
 * A chunker that never allocates, for code that may compress inside a
 * signal handler (the recorder): it lives in mem[0..size), 64-byte aligned
 * and at least iot_chunker_static_size() bytes for chunks of up to
 * max_bytes record bytes. NULL when mem is too small. Not to be freed with
 * iot_chunker_free (the caller owns mem).
 */
size_t iot_chunker_static_size(int level, size_t max_bytes);
struct iot_chunker *iot_chunker_init_static(void *mem, size_t size, int level);
/* Upper bound of the frame size for `bytes` bytes of records. */
size_t iot_chunk_bound(size_t bytes);
/*
 * Compress header + records into one zstd frame in dst. Returns the frame
 * size, or 0 on error (dst too small).
 */
size_t iot_chunk_compress(struct iot_chunker *c, const struct iot_chunk_hdr *h,
                          const void *records, void *dst, size_t cap);

/* ------------------------------------------------------- simple writer */

/*
 * A convenience writer for tools and tests (not the recorder's hot path):
 * takes whole events with string pointers, keeps one chunk per (pid, tid)
 * and writes each full chunk as a frame to a file. Event times given to it
 * are absolute (the reader's origin becomes the earliest chunk start).
 */
struct iot_writer;
/* chunk_bytes: record bytes per chunk (0 = 64 KiB). NULL + errbuf on error. */
struct iot_writer *iot_writer_open(const char *path, size_t chunk_bytes, char *errbuf);
/* Append one event (any kind); 0 or -1 (write error, message in errbuf). */
int iot_writer_event(struct iot_writer *w, const struct iot_event *ev, char *errbuf);
/* Write out every open chunk (as full chunks); 0 or -1. */
int iot_writer_flush(struct iot_writer *w, char *errbuf);
/* Flush, close and free; 0 or -1. */
int iot_writer_close(struct iot_writer *w, char *errbuf);

/* ------------------------------------------------------- native reader */

/* What a reader found in its inputs; damaged input is reported, not fatal. */
struct iot_trace_stats {
    uint64_t file_bytes;        /* compressed bytes in the inputs */
    uint64_t chunks;            /* intact chunks */
    uint64_t chunks_superseded; /* partial snapshots replaced by a later chunk */
    uint64_t chunks_damaged;    /* frames that failed to decode or parse */
    uint64_t bytes_skipped;     /* compressed bytes not used (damage, truncation) */
    uint64_t truncated;         /* 1 when an input ends inside a frame */
    uint64_t events;            /* events read so far */
    uint64_t raw_bytes;         /* decompressed bytes of intact chunks */
    uint32_t max_version;       /* highest chunk version seen */
    /*
     * What a newer writer added that this reader does not know; skipped
     * exactly, everything else intact (docs/trace-format.md, "Compatibility").
     */
    uint64_t calls_unknown;     /* calls of ops this reader does not know */
    uint64_t fields_unknown;    /* call records carrying fields it does not know */
    uint64_t records_unknown;   /* extension records of kinds it does not know */
    /*
     * Progress: of file_bytes, those behind the events handed out so far.
     * What will never be decoded (index frames, superseded snapshots,
     * damage) counts from the start, and each chunk's frame once read, so it
     * reaches file_bytes when the last chunk has been read.
     */
    uint64_t bytes_read;
};

/*
 * A streaming reader over one or more native trace files. Events come in time
 * order across all processes and threads of all inputs (per-thread order is
 * always exact). Memory grows with the number of threads and chunks, and with
 * distinct strings, never with the number of events.
 */
struct iot_trace;

/*
 * Open paths[0..n). "-" reads standard input (copied to an unnamed temporary
 * file, at most iot_spool_max() bytes: spool.h).
 * st: strings are interned there (the caller owns it and frees it after the
 * reader). Returns NULL with a message in errbuf when an input cannot be
 * opened or holds no readable chunk (e.g. "'x.zst': not an ioscope trace",
 * "'x.zst': trace version 2 is newer than this reader (1)").
 */
struct iot_trace *iot_trace_open(const char *const *paths, size_t n,
                                 struct iot_strtab *st, char *errbuf);
/*
 * How many input files a reader keeps open at once: 64, or a quarter of
 * RLIMIT_NOFILE when that is lower (the first inputs stay open from pass 1
 * to pass 2; the others are opened per frame). Other readers of many files
 * keep to the same budget.
 */
size_t iot_trace_keep_open_max(void);
/*
 * The same over files the caller has opened: where fds[i] >= 0 it is read
 * instead of opening paths[i], which then only names it in messages. The
 * reader takes each such descriptor over (it closes them, also when the
 * open fails); it may be an unlinked file (iot_spool), never reopened.
 */
struct iot_trace *iot_trace_open_fds(const char *const *paths, const int *fds, size_t n,
                                     struct iot_strtab *st, char *errbuf);
/* 1: *ev filled; 0: end; -1: error (message in errbuf). */
int iot_trace_next(struct iot_trace *tr, struct iot_event *ev, char *errbuf);
/*
 * The same without a copy: *ev points at the reader's own event, valid until
 * the next call. The fastest way to read; the caller must not modify it.
 */
int iot_trace_next_ref(struct iot_trace *tr, const struct iot_event **ev, char *errbuf);
/*
 * Several at a time: (*evs)[0..n) are the next n >= 1 events in time order
 * (n <= IOT_TRACE_BATCH_MAX), valid until the next call of any of the three.
 * Returns n, 0 at the end, -1 error. Saves a call per event in a hot loop.
 */
#define IOT_TRACE_BATCH_MAX 256
int iot_trace_next_batch(struct iot_trace *tr, const struct iot_event *const **evs, char *errbuf);
/*
 * Decompression ahead: from this call on (before the first event is read),
 * a thread of the reader's own reads and decompresses the chunks it will
 * load next, while the calling thread decodes and merges. The events are the
 * same, in the same order. 0, or -1 when the thread cannot start (reading
 * goes on without it). The thread ends in iot_trace_close.
 */
int iot_trace_ahead(struct iot_trace *tr);
/*
 * The same work without a thread of the reader's own: the caller's threads
 * do it a chunk at a time (iot_trace_ahead_step) when they have time, so
 * that where CPUs are few no third thread takes the scheduler's turns of
 * milliseconds. 0, or -1 out of memory (reading goes on without it).
 */
int iot_trace_ahead_stepped(struct iot_trace *tr);
/*
 * Decompress the next chunk ahead on the calling thread, the reading one
 * or another: 1 done, 0 nothing to do now (no room until the reader takes
 * chunks done before, or two other threads are stepping), -1 nothing left
 * to do, or not stepped.
 */
int iot_trace_ahead_step(struct iot_trace *tr);
/* Absolute time (trace clock) that event times count from. */
int64_t iot_trace_origin(const struct iot_trace *tr);
void iot_trace_stats(const struct iot_trace *tr, struct iot_trace_stats *out);
void iot_trace_close(struct iot_trace *tr);

/*
 * 1 when buf (the first bytes of a file) starts like a native trace: a chunk's
 * index frame, or a zstd frame.
 */
int iot_is_native_trace(const void *buf, size_t len);
/*
 * Where in buf (the first bytes of a file that iot_is_native_trace refused)
 * a chunk's index frame begins, or -1: a trace whose start is damaged
 * (bytes flipped or zeroed, garbage before it) is still a trace, which the
 * reader reads from that frame on (docs/trace-format.md, section 6).
 */
long iot_native_trace_resync(const void *buf, size_t len);

/* ---------------------------------------------------------------- JSONL */

/*
 * Parse one JSONL line (SPEC "JSONL events") into *ev, interning strings in st.
 * argv points into storage owned by `scratch` (reused by the next call).
 * Returns 1 event, 0 blank line, -1 malformed (message in errbuf, without the
 * line number: the caller knows it), or IOT_JSONL_UNKNOWN: a well-formed
 * event of an op or kind this reader does not know (a newer writer's; errbuf
 * names it), which the caller skips and counts, as the native reader does.
 */
#define IOT_JSONL_UNKNOWN 2
struct iot_jsonl_scratch;
struct iot_jsonl_scratch *iot_jsonl_scratch_create(void);
void iot_jsonl_scratch_free(struct iot_jsonl_scratch *s);
int iot_jsonl_parse(const char *line, size_t len, struct iot_event *ev,
                    struct iot_strtab *st, struct iot_jsonl_scratch *s,
                    char *errbuf);

/*
 * Write ev as one JSONL line (with '\n') to f: the keys it has. Strings are
 * escaped per JSON; bytes that are not UTF-8 become U+FFFD. Returns 0, or -1
 * on write error or a kind this writer does not know.
 */
int iot_jsonl_write(FILE *f, const struct iot_event *ev);

/*
 * What `ioanalyze dump --format jsonl` adds to a line, which then has every
 * key of every kind, null where it does not apply (docs/analyzer.md, "JSONL
 * for data tools"): unix_ms, the process's name and the path column (the
 * file a call touched, a module's path), each NULL or absent as null.
 */
struct iot_jsonl_extra {
    int have_unix_ms;
    int64_t unix_ms;
    const char *process;
    const char *path;
};
/* iot_jsonl_write, or with x the dump's line. */
int iot_jsonl_write_line(FILE *f, const struct iot_event *ev, const struct iot_jsonl_extra *x);

/* What a column of the dump's lines holds, null aside (STRINGS: an array of strings). */
enum iot_jsonl_type {
    IOT_JSONL_STRING, IOT_JSONL_INT32, IOT_JSONL_INT64, IOT_JSONL_UINT64, IOT_JSONL_STRINGS
};
struct iot_jsonl_column {
    char name[40];
    enum iot_jsonl_type type;
};
/* The dump line's columns in order into out[0..cap); returns how many there are. */
size_t iot_jsonl_dump_columns(struct iot_jsonl_column *out, size_t cap);

/* ----------------------------------------------------- small utilities */

/* Write a JSON string literal (with quotes) of s[0..len) to f. */
void iot_json_write_string(FILE *f, const char *s, size_t len);

/* The UTF-8 check and the safe showing of trace strings: common/text.h. */

#ifdef __cplusplus
}
#endif
#endif /* IOTRACE_H */
