/*
 * schema.h - the event schema, declared once: every optional field of a call
 * and every op, with every fact about each that more than one part of
 * ioscope needs, and the other kinds of event with their members. The
 * encoder, the decoder, event equality, the JSONL writer and reader, both
 * dumps, the analyzer's dispatch and the tests'
 * generators expand these lists; nothing else names the fields, the ops or
 * the kinds' members one by one. Included by iotrace.h.
 *
 * Growing the schema (docs/trace-format.md, "Compatibility"):
 *   - a new op is a new row at the END of IOT_OPS (its number is its
 *     position, and numbers are on disk);
 *   - a new field is a new row at the END of IOT_FIELDS, with the next free
 *     bit of the range its wire encoding belongs to (IOT_WIRE_*_BITS);
 * readers that predate either skip what they do not know, exactly.
 */
#ifndef IOT_SCHEMA_H
#define IOT_SCHEMA_H

/* ---------------------------------------------------------------- fields */

/*
 * X(NAME, bit, member, type, "key")
 *
 * NAME   the field: IOT_HAS_<NAME> is its presence bit in iot_event.has
 * bit    its presence bit; on the wire the fields of a call follow in bit
 *        order, and the bit's range fixes its wire encoding (below)
 * member the iot_event member holding it (string fields: also <member>_id
 *        on the writer side)
 * type   how it is stored, encoded and printed (enum iot_ftype; codec.h
 *        says what each means to the encoder and decoder):
 *        I32/I64 signed (zigzag varint), U32 unsigned varint, OCT open
 *        flags (varint, octal in text), HEX a stdio stream id (varint, unsigned
 *        in JSONL, hex in text), STR a string id, BUFMODE 0..2 named
 *        full/line/none
 * key    its JSONL key and its text-dump key
 *
 * NEWPATH (rename, link, symlink: the second name) has bit 20, the first of
 * the second varint range, since 15 is reserved and 16..19 carry no payload.
 *
 * The rows are in bit order. The four lists split them where the decoder
 * tests a group's bits once before its members (data calls carry none of
 * the open and the late fields): a grouping for speed, not meaning.
 */
#define IOT_FIELDS_EARLY(X)                             \
    X(ERRNO,     0,  err,       U32,     "errno")       \
    X(FD,        1,  fd,        I32,     "fd")
#define IOT_FIELDS_OPEN(X)                              \
    X(PATH,      2,  path,      STR,     "path")        \
    X(FLAGS,     3,  flags,     OCT,     "flags")       \
    X(MODE,      4,  mode,      STR,     "mode")
#define IOT_FIELDS_DATA(X)                              \
    X(SIZE,      5,  size,      I64,     "size")        \
    X(OFFSET,    6,  offset,    I64,     "offset")      \
    X(WHENCE,    7,  whence,    U32,     "whence")
#define IOT_FIELDS_LATE(X)                              \
    X(NEWFD,     8,  newfd,     I32,     "newfd")       \
    X(STREAM,    9,  stream,    HEX,     "stream")      \
    X(FILE_SIZE, 10, file_size, I64,     "file_size")   \
    X(STACK,     11, stack,     STR,     "stack")       \
    X(BUFMODE,   12, bufmode,   BUFMODE, "bufmode")     \
    X(IN_FD,     13, in_fd,     I32,     "in_fd")       \
    X(LAST_FD,   14, last_fd,   I32,     "last_fd")     \
    X(NEWPATH,   20, newpath,   STR,     "newpath")     \
    IOT_FIELDS_NEXT(X)

/*
 * Rows a test appends to build the encoder of a future version (the reader
 * must skip them): tests/unit/future_enc.c. Empty in every real build.
 */
#ifndef IOT_FIELDS_NEXT
#define IOT_FIELDS_NEXT(X)
#endif

#define IOT_FIELDS(X) IOT_FIELDS_EARLY(X) IOT_FIELDS_OPEN(X) IOT_FIELDS_DATA(X) IOT_FIELDS_LATE(X)

/*
 * The wire encoding of a presence bit is fixed by its range, so that a
 * reader can skip a field it does not know (docs/trace-format.md 5.2):
 *   0..14   one varint                16..19  no payload (a flag)
 *   20..27  one varint                28..31  bytes (varint length, then bytes)
 * Bit 15 and bits 32..63 are never set in a call record (the record is
 * damaged): 15 is the exit event's IOT_HAS_SIGNAL in memory, and keeping
 * the wire within 32 bits keeps iot_event.has one word.
 */
#define IOT_WIRE_VARINT_BITS 0x0ff07fffu
#define IOT_WIRE_FLAG_BITS   0x000f0000u
#define IOT_WIRE_BYTES_BITS  0xf0000000u
#define IOT_WIRE_VALID_BITS  (IOT_WIRE_VARINT_BITS | IOT_WIRE_FLAG_BITS | IOT_WIRE_BYTES_BITS)

/* ----------------------------------------------------------- event kinds */

/*
 * X(NAME, "name", t)
 *
 * The kinds of event: IOT_EV_<NAME> (its number is its row, and a reader's
 * callers switch on it), its JSONL "ev" and its text name, and whether a
 * JSONL line must have its time t (REQ) or may leave it 0 (OPT).
 */
#define IOT_KINDS(X)                                                                          \
    X(CALL,    "call",    REQ)  /* one libc call */                                           \
    X(PROCESS, "process", OPT)  /* a process (or an exec'd image) started */                  \
    X(THREAD,  "thread",  OPT)  /* a thread was seen first or renamed */                      \
    X(EXIT,    "exit",    REQ)  /* a process ended */                                         \
    X(MODULE,  "module",  OPT)  /* a module (executable, shared object) is loaded in a process */ \
    X(JIT_SYMBOL, "jit_symbol", OPT)  /* code with no ELF file (JIT, trampolines) named by its runtime */ \
    X(LABEL,   "label",   OPT)  /* a label (KEY=VALUE) the recording was given */          \
    X(WAITS,   "waits",   OPT)  /* a thread waits for events (epoll, poll, select) */       \
    X(HOME,    "home",    OPT)  /* the process's $HOME, read at its start */                 \
    X(TEMPLATE, "template", OPT) /* a name made from a template (mkstemp, mkdtemp) */ \
    X(PY_CODE, "py_code", OPT)   /* a Python code object the process's stacks name */        \
    X(RUNTIME_ENV, "runtime_env", OPT) /* a variable a runtime takes options from, at start */

/*
 * X(KIND, member, type, "key", "text key", need, "placeholder")
 *
 * The members of every kind of event but calls (a call's are t, pid, tid,
 * op, dur, ret and IOT_FIELDS), which JSONL reading and writing, both
 * dumps and event equality expand; every event also has t and pid. In the
 * order JSONL writes them.
 *
 * KIND         IOT_EV_<KIND>
 * member       the iot_event member (ARGV: argc and argv)
 * type         I32, I64, U64 (hex in text), UNIXNS (ns since the Unix
 *              epoch: the JSONL dump adds it in ms), STR, HEXID (a string
 *              of hex digits, "" for none, "-" in text), ARGV (an array of
 *              strings)
 * key          its JSONL key
 * text key     its text-dump key
 * need         REQ: a JSONL line must have it; OPT: absent reads as 0 or
 *              ""; TID: the thread of an event of the whole process, absent
 *              (or 0) reads as pid and written only when it differs, not in
 *              text;
 *              SIG: there when has & IOT_HAS_SIGNAL
 * placeholder  what text shows for a string that is NULL
 */
#define IOT_KIND_MEMBERS(X)                                                    \
    X(PROCESS, ppid,          I32,   "ppid",          "ppid",          OPT, "") \
    X(PROCESS, exe,           STR,   "exe",           "exe",           OPT, "?") \
    X(PROCESS, argv,          ARGV,  "cmdline",       "argv",          OPT, "?") \
    X(PROCESS, start_unix_ns, UNIXNS, "start_unix_ns", "start_unix_ns", OPT, "") \
    X(PROCESS, tid,           I32,   "tid",           "tid",           TID, "") \
    X(THREAD,  tid,           I32,   "tid",           "tid",           REQ, "") \
    X(THREAD,  name,          STR,   "name",          "name",          OPT, "") \
    X(EXIT,    tid,           I32,   "tid",           "tid",           TID, "") \
    X(EXIT,    status,        I32,   "status",        "status",        OPT, "") \
    X(EXIT,    signal,        I32,   "signal",        "signal",        SIG, "") \
    X(MODULE,  tid,           I32,   "tid",           "tid",           TID, "") \
    X(MODULE,  path,          STR,   "path",          "path",          REQ, "?") \
    X(MODULE,  bias,          U64,   "bias",          "bias",          OPT, "") \
    X(MODULE,  build_id,      HEXID, "build_id",      "build_id",      OPT, "-") \
    X(JIT_SYMBOL, tid,        I32,   "tid",           "tid",           TID, "") \
    X(JIT_SYMBOL, bias,       U64,   "start",         "start",         REQ, "") \
    X(JIT_SYMBOL, code_size,  U64,   "code_size",     "code_size",     REQ, "") \
    X(JIT_SYMBOL, symbol,     STR,   "symbol",        "symbol",        REQ, "?") \
    X(WAITS,   tid,           I32,   "tid",           "tid",           REQ, "")      \
    X(WAITS,   waits,         I64,   "waits",         "waits",         OPT, "")      \
    X(LABEL,   label_key,     STR,   "key",           "key",           REQ, "?") \
    X(LABEL,   label_value,   STR,   "value",         "value",         OPT, "") \
    X(HOME,    tid,           I32,   "tid",           "tid",           TID, "") \
    X(HOME,    path,          STR,   "path",          "path",          REQ, "?") \
    X(TEMPLATE, tid,          I32,   "tid",           "tid",           TID, "") \
    X(TEMPLATE, path,         STR,   "path",          "path",          REQ, "?") \
    X(TEMPLATE, random_at,    I64,   "random_at",     "random_at",     REQ, "") \
    X(TEMPLATE, random_len,   I64,   "random_len",    "random_len",    REQ, "") \
    X(PY_CODE, tid,           I32,   "tid",           "tid",           TID, "") \
    X(PY_CODE, bias,          U64,   "code",          "code",          REQ, "") \
    X(PY_CODE, py_file,       STR,   "file",          "file",          OPT, "") \
    X(PY_CODE, symbol,        STR,   "qualname",      "qualname",      OPT, "") \
    X(PY_CODE, first_line,    I64,   "first_line",    "first_line",    OPT, "") \
    X(PY_CODE, py_lines,      STR,   "lines",         "lines",         OPT, "")  \
    X(RUNTIME_ENV, tid,       I32,   "tid",           "tid",           TID, "") \
    X(RUNTIME_ENV, label_key, STR,   "variable",      "variable",      REQ, "?") \
    X(RUNTIME_ENV, label_value, STR, "options",       "options",       OPT, "")

/* ------------------------------------------------------------------- ops */

/* Which way an op moves data. */
enum iot_dir { IOT_DIR_NONE = 0, IOT_DIR_READ = 1, IOT_DIR_WRITE = 2 };

/* What an op does, for dispatch (docs/analyzer.md lists each class's effect). */
enum iot_class {
    IOT_CLASS_DATA,   /* moves bytes between the program and one file */
    IOT_CLASS_COPY,   /* moves bytes from one fd (in_fd) to another (fd) */
    IOT_CLASS_SEEK,   /* moves a file position */
    IOT_CLASS_SYNC,   /* forces data to storage (or out of a stdio buffer) */
    IOT_CLASS_META,   /* changes or asks about a file or a stdio stream, moves no data */
    IOT_CLASS_OPEN,   /* creates an fd or a stdio stream naming a file */
    IOT_CLASS_CLOSE,  /* ends fds or a stdio stream */
    IOT_CLASS_FD      /* changes the fd table otherwise (dup, pipe, socket, fcntl) */
};

/*
 * mmap's flags: what its stores do to the file (a map that is shared and
 * writable writes the file with no call the recorder sees). Absent in
 * traces made before they were recorded: unknown.
 */
#define IOT_MAP_WRITE  1u  /* PROT_WRITE */
#define IOT_MAP_SHARED 2u  /* MAP_SHARED or MAP_SHARED_VALIDATE */

/* Which interface a call belongs to: a STDIO call names its stdio stream. */
enum iot_api { IOT_API_POSIX = 0, IOT_API_STDIO = 1 };

/*
 * What an op does to storage, for the figures and the rules' judgement
 * (docs/analyzer.md, "What each op does", gives every op's role and why).
 * The class above says how the engine follows a call; the role says what
 * the call is worth: an fsync and a sync_file_range share a class (both
 * name an fd and move no bytes) but only the first makes data durable.
 */
enum iot_role {
    IOT_ROLE_READ,     /* moves bytes from a file to the program */
    IOT_ROLE_WRITE,    /* moves bytes from the program to a file */
    IOT_ROLE_COPY,     /* moves bytes between two fds inside the kernel */
    IOT_ROLE_SEEK,     /* moves or asks a file position, no I/O */
    IOT_ROLE_SYNC,     /* makes written data durable, waiting for the device */
    IOT_ROLE_FLUSH,    /* empties a stdio buffer into the kernel: not durable */
    IOT_ROLE_HINT,     /* advice on writeback or caching: starts or skips I/O, promises nothing */
    IOT_ROLE_OPEN,     /* makes an fd or a stream naming a file */
    IOT_ROLE_CLOSE,    /* ends fds or a stream */
    IOT_ROLE_LOOKUP,   /* asks about a path or an fd (a path walk), changes nothing */
    IOT_ROLE_CHANGE,   /* changes a file's name, size, space or attributes */
    IOT_ROLE_LIST,     /* reads a directory's entries */
    IOT_ROLE_MAP,      /* maps or unmaps a file in memory */
    IOT_ROLE_STREAM,   /* sets up a stdio stream (its buffer) */
    IOT_ROLE_FDTABLE,  /* changes the fd table without naming a file */
    IOT_ROLE_PROC,     /* makes a process or a thread */
    IOT_ROLE_UNSEEN    /* says what the recorder could not follow */
};

/*
 * X(NAME, "json name", dir, positional, class, api, role, fields)
 *
 * NAME, name  IOT_OP_<NAME>; its JSONL and text name
 * dir         IOT_DIR_<dir>
 * positional  1 when the call says where (pread, pwrite): it neither uses
 *             nor moves the file position
 * class       IOT_CLASS_<class>
 * api         IOT_API_<api>
 * role        IOT_ROLE_<role>: what the call does (enum iot_role)
 * fields      the IOT_HAS_* bits (IOT_F(NAME) for short) its records
 *             carry when it succeeds (errno and stack may come with any
 *             call)
 *
 * The syscalls recorded as each op, and how their arguments are read, are
 * the syscall catalogue's (syscalls.h), which the strace importer and the
 * kernel capture path both expand.
 *
 * The op number is the row's position and is part of the on-disk format:
 * append new ops at the end, never reorder.
 */
#define IOT_F(name) IOT_HAS_##name
#define IOT_OPS(X)                                                                                 \
    X(OPEN,            "open",            NONE,  0, OPEN,  POSIX, OPEN,                            \
      IOT_F(FD) | IOT_F(PATH) | IOT_F(FLAGS))                                                      \
    X(CLOSE,           "close",           NONE,  0, CLOSE, POSIX, CLOSE,                           \
      IOT_F(FD) | IOT_F(FILE_SIZE))                                                                \
    X(READ,            "read",            READ,  0, DATA,  POSIX, READ,                            \
      IOT_F(FD) | IOT_F(SIZE))                                                                     \
    X(WRITE,           "write",           WRITE, 0, DATA,  POSIX, WRITE,                           \
      IOT_F(FD) | IOT_F(SIZE))                                                                     \
    X(PREAD,           "pread",           READ,  1, DATA,  POSIX, READ,                            \
      IOT_F(FD) | IOT_F(SIZE) | IOT_F(OFFSET))                                                     \
    X(PWRITE,          "pwrite",          WRITE, 1, DATA,  POSIX, WRITE,                           \
      IOT_F(FD) | IOT_F(SIZE) | IOT_F(OFFSET))                                                     \
    X(READV,           "readv",           READ,  0, DATA,  POSIX, READ,                            \
      IOT_F(FD) | IOT_F(SIZE))                                                                     \
    X(WRITEV,          "writev",          WRITE, 0, DATA,  POSIX, WRITE,                           \
      IOT_F(FD) | IOT_F(SIZE))                                                                     \
    X(PREADV,          "preadv",          READ,  1, DATA,  POSIX, READ,                            \
      IOT_F(FD) | IOT_F(SIZE) | IOT_F(OFFSET))                                                     \
    X(PWRITEV,         "pwritev",         WRITE, 1, DATA,  POSIX, WRITE,                           \
      IOT_F(FD) | IOT_F(SIZE) | IOT_F(OFFSET))                                                     \
    X(LSEEK,           "lseek",           NONE,  0, SEEK,  POSIX, SEEK,                            \
      IOT_F(FD) | IOT_F(OFFSET) | IOT_F(WHENCE))                                                   \
    X(DUP,             "dup",             NONE,  0, FD,    POSIX, FDTABLE,                         \
      IOT_F(FD) | IOT_F(NEWFD) | IOT_F(FLAGS))                                                     \
    X(FSYNC,           "fsync",           NONE,  0, SYNC,  POSIX, SYNC,                            \
      IOT_F(FD))                                                                                   \
    X(FDATASYNC,       "fdatasync",       NONE,  0, SYNC,  POSIX, SYNC,                            \
      IOT_F(FD))                                                                                   \
    X(FTRUNCATE,       "ftruncate",       NONE,  0, META,  POSIX, CHANGE,                          \
      IOT_F(FD) | IOT_F(SIZE))                                                                     \
    X(MMAP,            "mmap",            NONE,  0, META,  POSIX, MAP,                             \
      IOT_F(FD) | IOT_F(SIZE) | IOT_F(OFFSET) | IOT_F(FLAGS))                                      \
    X(MUNMAP,          "munmap",          NONE,  0, META,  POSIX, MAP,                             \
      IOT_F(SIZE) | IOT_F(OFFSET))                                                                 \
    X(SENDFILE,        "sendfile",        WRITE, 0, COPY,  POSIX, COPY,                            \
      IOT_F(FD) | IOT_F(IN_FD) | IOT_F(SIZE) | IOT_F(OFFSET))                                      \
    X(COPY_FILE_RANGE, "copy_file_range", WRITE, 0, COPY,  POSIX, COPY,                            \
      IOT_F(FD) | IOT_F(IN_FD) | IOT_F(SIZE) | IOT_F(OFFSET))                                      \
    X(FOPEN,           "fopen",           NONE,  0, OPEN,  STDIO, OPEN,                            \
      IOT_F(FD) | IOT_F(PATH) | IOT_F(MODE) | IOT_F(STREAM) | IOT_F(SIZE) | IOT_F(BUFMODE))        \
    X(FDOPEN,          "fdopen",          NONE,  0, OPEN,  STDIO, OPEN,                            \
      IOT_F(FD) | IOT_F(MODE) | IOT_F(STREAM) | IOT_F(SIZE) | IOT_F(BUFMODE))                      \
    X(FCLOSE,          "fclose",          NONE,  0, CLOSE, STDIO, CLOSE,                           \
      IOT_F(FD) | IOT_F(STREAM) | IOT_F(FILE_SIZE))                                                \
    X(FREAD,           "fread",           READ,  0, DATA,  STDIO, READ,                            \
      IOT_F(FD) | IOT_F(STREAM) | IOT_F(SIZE))                                                     \
    X(FWRITE,          "fwrite",          WRITE, 0, DATA,  STDIO, WRITE,                           \
      IOT_F(FD) | IOT_F(STREAM) | IOT_F(SIZE))                                                     \
    X(FGETS,           "fgets",           READ,  0, DATA,  STDIO, READ,                            \
      IOT_F(FD) | IOT_F(STREAM) | IOT_F(SIZE))                                                     \
    X(FPUTS,           "fputs",           WRITE, 0, DATA,  STDIO, WRITE,                           \
      IOT_F(FD) | IOT_F(STREAM) | IOT_F(SIZE))                                                     \
    X(FFLUSH,          "fflush",          NONE,  0, SYNC,  STDIO, FLUSH,                           \
      IOT_F(FD) | IOT_F(STREAM))                                                                   \
    X(FSEEK,           "fseek",           NONE,  0, SEEK,  STDIO, SEEK,                            \
      IOT_F(FD) | IOT_F(STREAM) | IOT_F(OFFSET) | IOT_F(WHENCE))                                   \
    X(SETVBUF,         "setvbuf",         NONE,  0, META,  STDIO, STREAM,                          \
      IOT_F(FD) | IOT_F(STREAM) | IOT_F(SIZE) | IOT_F(BUFMODE))                                    \
    /* additions beyond the SPEC's list ("more may be added") */                                   \
    X(SPLICE,          "splice",          WRITE, 0, COPY,  POSIX, COPY,                            \
      IOT_F(FD) | IOT_F(IN_FD) | IOT_F(SIZE) | IOT_F(OFFSET))                                      \
    X(MSYNC,           "msync",           NONE,  0, SYNC,  POSIX, SYNC,                            \
      IOT_F(SIZE) | IOT_F(OFFSET))                                                                 \
    X(CLOSE_RANGE,     "close_range",     NONE,  0, CLOSE, POSIX, CLOSE,                           \
      IOT_F(FD) | IOT_F(LAST_FD) | IOT_F(FLAGS))                                                   \
    X(TMPFILE,         "tmpfile",         NONE,  0, OPEN,  STDIO, OPEN,                            \
      IOT_F(FD) | IOT_F(MODE) | IOT_F(STREAM) | IOT_F(SIZE) | IOT_F(BUFMODE))                      \
    X(FREOPEN,         "freopen",         NONE,  0, OPEN,  STDIO, OPEN,                            \
      IOT_F(FD) | IOT_F(PATH) | IOT_F(MODE) | IOT_F(STREAM) | IOT_F(SIZE) | IOT_F(BUFMODE))        \
    X(FTELL,           "ftell",           NONE,  0, META,  STDIO, SEEK,                            \
      IOT_F(FD) | IOT_F(STREAM))                                                                   \
    X(FGETC,           "fgetc",           READ,  0, DATA,  STDIO, READ,                            \
      IOT_F(FD) | IOT_F(STREAM) | IOT_F(SIZE))                                                     \
    X(FPUTC,           "fputc",           WRITE, 0, DATA,  STDIO, WRITE,                           \
      IOT_F(FD) | IOT_F(STREAM) | IOT_F(SIZE))                                                     \
    X(GETDELIM,        "getdelim",        READ,  0, DATA,  STDIO, READ,                            \
      IOT_F(FD) | IOT_F(STREAM) | IOT_F(SIZE))                                                     \
    X(FPRINTF,         "fprintf",         WRITE, 0, DATA,  STDIO, WRITE,                           \
      IOT_F(FD) | IOT_F(STREAM) | IOT_F(SIZE))                                                     \
    X(FSCANF,          "fscanf",          READ,  0, DATA,  STDIO, READ,                            \
      IOT_F(FD) | IOT_F(STREAM))                                                                   \
    /* fds that are not files: recorded so that a reused fd number ends the session of the file    \
       it last named */                                                                            \
    X(PIPE,            "pipe",            NONE,  0, FD,    POSIX, FDTABLE,                         \
      IOT_F(FD) | IOT_F(NEWFD))                                                                    \
    X(SOCKET,          "socket",          NONE,  0, FD,    POSIX, FDTABLE,                         \
      IOT_F(FD))                                                                                   \
    /* fcntl(F_SETFD) only: flags holds O_CLOEXEC when FD_CLOEXEC is set; strace's fcntl lines     \
       are read under DUP, whose F_DUPFD they mostly are */                                        \
    X(FCNTL,           "fcntl",           NONE,  0, FD,    POSIX, FDTABLE,                         \
      IOT_F(FD) | IOT_F(FLAGS))                                                                    \
    X(FALLOCATE,       "fallocate",       NONE,  0, META,  POSIX, CHANGE,                          \
      IOT_F(FD) | IOT_F(OFFSET) | IOT_F(SIZE))                                                     \
    X(FADVISE,         "fadvise",         NONE,  0, META,  POSIX, HINT,                            \
      IOT_F(FD) | IOT_F(OFFSET) | IOT_F(SIZE))                                                     \
    /* every descriptor named, every stdio byte seen, forks timed in the parent */                 \
    /* an fd the recorder saw used before it saw it made (inherited, or made by a call it does     \
       not wrap): its /proc/self/fd target, open flags and offset, recorded once per process */    \
    X(FDPATH,          "fdpath",          NONE,  0, OPEN,  POSIX, OPEN,                            \
      IOT_F(FD) | IOT_F(PATH) | IOT_F(FLAGS) | IOT_F(OFFSET))                                      \
    /* bytes the program moved through a stdio stream's buffer with inline getc/putc macros        \
       (glibc's *_unlocked), counted at the next __overflow/__uflow or stdio call on it */         \
    X(INLINE_PUT,      "inline_put",      WRITE, 0, DATA,  STDIO, WRITE,                           \
      IOT_F(FD) | IOT_F(STREAM) | IOT_F(SIZE))                                                     \
    X(INLINE_GET,      "inline_get",      READ,  0, DATA,  STDIO, READ,                            \
      IOT_F(FD) | IOT_F(STREAM) | IOT_F(SIZE))                                                     \
    /* mkstemp family: a new file whose name the call chose */                                     \
    X(MKSTEMP,         "mkstemp",         NONE,  0, OPEN,  POSIX, OPEN,                            \
      IOT_F(FD) | IOT_F(PATH) | IOT_F(FLAGS))                                                      \
    /* memfd_create: a file in memory; path is "memfd:NAME" */                                     \
    X(MEMFD,           "memfd",           NONE,  0, OPEN,  POSIX, OPEN,                            \
      IOT_F(FD) | IOT_F(PATH) | IOT_F(FLAGS))                                                      \
    /* new fds that are not files (eventfd, timerfd, signalfd, inotify, epoll), like pipe */       \
    X(ANONFD,          "anonfd",          NONE,  0, FD,    POSIX, FDTABLE,                         \
      IOT_F(FD))                                                                                   \
    /* fork/vfork in the parent, timed there: ret is the child's pid. The child's fd table is      \
       the parent's at this call (the child's own process record comes later) */                   \
    X(FORK,            "fork",            NONE,  0, META,  POSIX, PROC,                            \
      0)                                                                                           \
    /* I/O the recorder sees made but cannot follow: io_uring_setup/io_uring_enter and io_submit   \
       (through syscall()), the POSIX aio_* calls; mode names the call, fd/size/offset where known */\
    X(ASYNC,           "async",           NONE,  0, META,  POSIX, UNSEEN,                          \
      IOT_F(FD) | IOT_F(SIZE) | IOT_F(OFFSET) | IOT_F(MODE))                                       \
    /* an exec of a program the preload cannot enter: path, mode "static" or "setuid" */           \
    X(UNRECORDED,      "unrecorded",      NONE,  0, META,  POSIX, UNSEEN,                          \
      IOT_F(PATH) | IOT_F(MODE))                                                                   \
    /* pthread_create in the creating thread: the process runs another thread, file I/O or not     \
       (a thread is otherwise seen only at its first call). ret 0, or -1 with its error number */  \
    X(PTHREAD_CREATE,  "pthread_create",  NONE,  0, META,  POSIX, PROC,                            \
      0)                                                                                           \
    /* metadata calls. path is absolute as open's (relative names joined to the                   \
       cwd or the dirfd's path); a call on an fd (fstat, fchmod, ...) carries fd instead; flags   \
       holds the call's AT_* flags (stat family: lstat is AT_SYMLINK_NOFOLLOW), access mode     \
       (access) or permission bits (mkdir, chmod). How each syscall's are read: syscalls.h */      \
    X(STAT,            "stat",            NONE,  0, META,  POSIX, LOOKUP,                          \
      IOT_F(FD) | IOT_F(PATH) | IOT_F(FLAGS))                                                      \
    X(ACCESS,          "access",          NONE,  0, META,  POSIX, LOOKUP,                          \
      IOT_F(FD) | IOT_F(PATH) | IOT_F(FLAGS))                                                      \
    /* size: the buffer size; ret the bytes of the target */                                       \
    X(READLINK,        "readlink",        NONE,  0, META,  POSIX, LOOKUP,                          \
      IOT_F(FD) | IOT_F(PATH) | IOT_F(SIZE))                                                       \
    X(UNLINK,          "unlink",          NONE,  0, META,  POSIX, CHANGE,                          \
      IOT_F(PATH))                                                                                 \
    X(RMDIR,           "rmdir",           NONE,  0, META,  POSIX, CHANGE,                          \
      IOT_F(PATH))                                                                                 \
    /* path: the old name, newpath: the new one; flags: renameat2's RENAME_* */                   \
    X(RENAME,          "rename",          NONE,  0, META,  POSIX, CHANGE,                          \
      IOT_F(PATH) | IOT_F(NEWPATH) | IOT_F(FLAGS))                                                 \
    X(MKDIR,           "mkdir",           NONE,  0, META,  POSIX, CHANGE,                          \
      IOT_F(PATH) | IOT_F(FLAGS))                                                                  \
    /* path: the existing file, newpath: the new name */                                           \
    X(LINK,            "link",            NONE,  0, META,  POSIX, CHANGE,                          \
      IOT_F(PATH) | IOT_F(NEWPATH))                                                                \
    /* path: the link's target as given (its content, not resolved), newpath: the link made */    \
    X(SYMLINK,         "symlink",         NONE,  0, META,  POSIX, CHANGE,                          \
      IOT_F(PATH) | IOT_F(NEWPATH))                                                                \
    X(CHMOD,           "chmod",           NONE,  0, META,  POSIX, CHANGE,                          \
      IOT_F(FD) | IOT_F(PATH) | IOT_F(FLAGS))                                                      \
    X(CHOWN,           "chown",           NONE,  0, META,  POSIX, CHANGE,                          \
      IOT_F(FD) | IOT_F(PATH) | IOT_F(FLAGS))                                                      \
    /* utimensat, futimens, utimes, utime, futimes, lutimes */                                     \
    X(UTIMES,          "utimes",          NONE,  0, META,  POSIX, CHANGE,                          \
      IOT_F(FD) | IOT_F(PATH) | IOT_F(FLAGS))                                                      \
    /* truncate by name; size: the new length */                                                  \
    X(TRUNCATE,        "truncate",        NONE,  0, META,  POSIX, CHANGE,                          \
      IOT_F(PATH) | IOT_F(SIZE))                                                                   \
    /* opendir: the directory's fd, made inside libc (closedir records its close). strace sees    \
       the openat glibc makes, imported as open */                                                 \
    X(OPENDIR,         "opendir",         NONE,  0, OPEN,  POSIX, OPEN,                            \
      IOT_F(FD) | IOT_F(PATH) | IOT_F(FLAGS))                                                      \
    /* one record per pass over a directory stream, not per readdir call: size = entries         \
       returned (ret too), t = the pass's first call, dur = the calls' summed time; strace:       \
       one per getdents64, size = its "N entries" */                                              \
    X(READDIR,         "readdir",         NONE,  0, META,  POSIX, LIST,                            \
      IOT_F(FD) | IOT_F(SIZE))                                                                     \
    /* sync(): everything; syncfs(fd): fd's file system */                                         \
    X(SYNC,            "sync",            NONE,  0, META,  POSIX, SYNC,                            \
      IOT_F(FD))                                                                                   \
    X(SYNC_FILE_RANGE, "sync_file_range", NONE,  0, SYNC,  POSIX, HINT,                            \
      IOT_F(FD) | IOT_F(OFFSET) | IOT_F(SIZE))                                                     \
    /* what the recorder knows it could not record or had to skip in this process: mode = why    \
       (a word from docs/trace-format.md's list), size = how many calls or facts, 0 if unknown */  \
    X(LOST,            "lost",            NONE,  0, META,  POSIX, UNSEEN,                          \
      IOT_F(MODE) | IOT_F(SIZE))                                                                   \
    /* the process's working directory, absolute: recorded after its process record and after     \
       each chdir/fchdir that succeeded (none when it is unknown). strace: the -y annotation of    \
       AT_FDCWD, when it names another directory than the process's last */                       \
    X(CWD,             "cwd",             NONE,  0, META,  POSIX, PROC,                            \
      IOT_F(PATH))                                                                                 \
    /* which capture path recorded this process, at its end (and at an exec), when the kernel path \
       wrote calls of it: mode "kernel" (the                                                       \
       kernel path recorded its calls: size = how many) or "preload" (the preload did; size = the  \
       file syscalls the kernel saw that the preload did not, made outside the C library, which   \
       the kernel path recorded) */                                                                \
    X(COVERAGE,        "coverage",        NONE,  0, META,  POSIX, UNSEEN,                          \
      IOT_F(MODE) | IOT_F(SIZE))                                                                   \
    /* glibc's check of the time zone file inside tzset(), localtime(), mktime() and ctime()      \
       while TZ is unset: a stat of path (/etc/localtime) that no wrapper sees; ret 0, dur the    \
       whole call. strace sees the stat itself, imported as stat */                               \
    X(TZSET,           "tzset",           NONE,  0, META,  POSIX, LOOKUP,                          \
      IOT_F(PATH))                                                                                 \
    IOT_OPS_NEXT(X)

/* Rows a test appends for a future version's encoder (see IOT_FIELDS_NEXT). */
#ifndef IOT_OPS_NEXT
#define IOT_OPS_NEXT(X)
#endif

#endif /* IOT_SCHEMA_H */
