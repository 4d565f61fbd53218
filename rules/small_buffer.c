/*
 * small_buffer (type 2): many small reads/writes, Matrix's detector
 * (op > min_ops and opSize/op < buffer_bytes) judged by the work done: the
 * calls are reported when their modelled cost (the cost model,
 * docs/analyzer.md) reaches min_total_ms (or min_continual_ms, the same
 * figure under Matrix's name), or there were at least min_ops_alone of
 * them. Neither moves with the machine's load: two runs of one workload
 * make the same calls. What they took here is shown as evidence.
 *
 * A session's last call may move only what is left (the end of the data):
 * when the calls before it average buffer_bytes or more, the buffer was
 * big enough and nothing is reported (a cache file written in 4 KiB
 * chunks, then its tail).
 *
 * Stdio sessions are judged by the syscalls their buffer turns the calls
 * into (a buffered 10-byte fwrite is not a syscall); unbuffered streams'
 * calls are syscalls.
 *
 * A file most of whose writes each came right after a call of the same
 * thread failed is the record of those failures, an error log: nginx
 * writes a line to error.log after each open() of a missing file, whole
 * and at once, so that the log is complete when the process dies (its
 * error_log has no buffer, by design). What costs there is the failing
 * calls, not the buffer: it is not judged.
 *
 * When some of the session's I/O was not seen (io_uring, AIO, a shared map),
 * the calls seen are still small; the detail says the rest was not seen.
 */
#include <stdio.h>
#include <string.h>

#include "rule.h"

enum { P_BUFFER, P_MIN_OPS, P_MIN_CONTINUAL, P_MIN_TOTAL, P_MIN_OPS_ALONE };

static const struct rule_param small_buffer_params[] = {
    [P_BUFFER]       = {"buffer_bytes", RULE_P_INT, 4096,
                        "report when the average request is smaller than this"},
    [P_MIN_OPS]      = {"min_ops", RULE_P_INT, 20,
                        "... and there are more calls than this"},
    /* 0 by default: the count decides (more than min_ops calls), and the
       severity, from the calls' modelled cost against their process's,
       leaves a handful of them low */
    [P_MIN_CONTINUAL] = {"min_continual_ms", RULE_P_DOUBLE, 0,
                        "... and their modelled cost is at least this (Matrix's name)"},
    [P_MIN_TOTAL]    = {"min_total_ms", RULE_P_DOUBLE, 0,
                        "... or at least this (either reached is enough)"},
    [P_MIN_OPS_ALONE] = {"min_ops_alone", RULE_P_INT, 1000,
                        "... or there were at least this many, however long they took"},
};

/*
 * The fix in the program's own terms. A language runtime reads and writes
 * files with its own buffer over raw syscalls, not through stdio, so
 * small syscalls from one mean its buffer was turned off or flushed per
 * item; the runtime is told by the process's name or executable
 * (python3.12, node, java), and the advice names its API.
 */
static const struct {
    const char *prefix;   /* of the process's or executable's base name */
    const char *read_fix, *write_fix;
} runtime_fixes[] = {
    {"python",
     "In Python, read in large blocks: `f.read(65536)` on a file opened with a buffer "
     "(`open(path, 'rb', buffering=65536)`), not small reads on an unbuffered one.",
     "In Python, open the file with a buffer, `open(path, 'ab', buffering=65536)`, and do not "
     "`flush()` per record: `buffering=0` (or `1`, line buffering of a text file) makes each "
     "write a syscall."},
    {"node",
     "In Node.js, read with a stream, `fs.createReadStream(path, {highWaterMark: 65536})`, or "
     "`fs.readFile` once, not `fs.readSync` of a few bytes at a time.",
     "In Node.js, write through a stream, `fs.createWriteStream(path, {highWaterMark: 65536})`, "
     "which gathers the writes, not `fs.writeSync`/`fs.appendFileSync` per item."},
    {"java",
     "In Java, wrap the stream: `new BufferedInputStream(new FileInputStream(path), 65536)` "
     "(`BufferedReader` for text).",
     "In Java, wrap the stream: `new BufferedOutputStream(new FileOutputStream(path), 65536)` "
     "(`BufferedWriter` for text), and flush it once per batch, not per item."},
};

static const char *base_name(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;

    return slash ? slash + 1 : path ? path : "";
}

static const char *runtime_fix(const struct rule_session *s, int write)
{
    const char *exe = RULE_HAS(struct rule_session, s, exe) ? base_name(s->exe) : "";
    const char *proc = base_name(s->process);

    for (size_t i = 0; i < sizeof(runtime_fixes) / sizeof(runtime_fixes[0]); i++) {
        size_t n = strlen(runtime_fixes[i].prefix);

        if (strncmp(proc, runtime_fixes[i].prefix, n) == 0 ||
            strncmp(exe, runtime_fixes[i].prefix, n) == 0)
            return write ? runtime_fixes[i].write_fix : runtime_fixes[i].read_fix;
    }
    return NULL;
}

/* The fixes of C programs: raw syscalls, and each shape of stdio stream. */
#define FIX_RAW "Read and write in blocks of 64 KiB: gather small writes in a buffer of your " \
                "own, or use a stdio stream (`fopen` buffers)."
#define FIX_STDIO_LINE "Buffer the stream fully: `setvbuf(f, NULL, _IOFBF, 65536)` before its " \
                       "first use (line buffering writes every line)."
#define FIX_STDIO_EARLY "Flush less often: `fflush` (and `fseek`) empty the buffer, so one " \
                        "per record makes each record a syscall."
#define FIX_SEEK_READS "Seek less: on a stream opened for reading too (\"r+\", \"w+\"), " \
                       "each `fseek` writes what is pending and reads back the block below " \
                       "the place sought; open it write-only (\"w\") when it is not read, " \
                       "or put the fields written at scattered places together in memory " \
                       "and write them once."
#define FIX_STDIO_SMALL "Give the stream a larger buffer of your own: `static char " \
                        "buf[65536]; setvbuf(f, buf, _IOFBF, sizeof buf)` (glibc ignores " \
                        "the size when buf is NULL)."
#define FIX_BEFORE_REPLY "Each write is a record made before the replies it holds, once a turn of " \
                         "the request loop: buffering across turns would reply before the " \
                         "record is written. The writes grow with the requests a turn gathers " \
                         "(clients pipelining, or batching commands)."
#define FIX_STDIO_NONE "Make the stream buffered: `setvbuf(f, NULL, _IOFBF, 65536)` (it was " \
                       "set unbuffered, or is stderr)."

/*
 * "N fputs calls" for a stream's n calls (an unbuffered stream's: ops),
 * the op it used named; "N stdio calls (M fputc)" when it used others too
 * (pdflatex's fprintf and 8,811 fputc are not "8817 fprintf calls").
 */
static void stdio_calls(char *out, size_t cap, const struct rule_session *s, const char *call,
                        uint64_t ops)
{
    uint64_t n = s->bufmode == RULE_BUF_NONE || s->stream_buffer <= 0 ? ops : s->op;

    if (RULE_HAS(struct rule_session, s, data_op_calls) && s->data_op &&
        s->data_op_calls < s->op)
        snprintf(out, cap, "%llu stdio calls (%llu %s)", (unsigned long long)n,
                 (unsigned long long)s->data_op_calls, call);
    else
        snprintf(out, cap, "%llu %s calls", (unsigned long long)n, call);
}

/* " on the main thread" when a main thread made most of the calls (a Go
   server's tid = pid may have made 1 of 3,007), else nothing */
static const char *on_main(const struct rule_session *s)
{
    return s->main_ops * 2 > s->op ? " on the main thread" : "";
}

/* Most of the session's writes were followed by a reply on a socket: an
   event loop's write-ahead record, made once a turn before the replies. */
static int before_reply(const struct rule_session *s)
{
    return s->op_type == RULE_OP_WRITE && RULE_HAS(struct rule_session, s, writes_before_reply) &&
           s->writes_before_reply * 2 > s->writes;
}

static void small_buffer_check(void *state, const struct rule_ctx *ctx,
                               const struct rule_session *s)
{
    uint64_t ops = s->op;
    int64_t bytes = s->op_size, avg, judged;
    int stdio = s->layer == RULE_LAYER_STDIO, direct;
    char msg[400], calls[96], sys[120];
    uint64_t seek_reads;
    const char *what = s->op_type == RULE_OP_WRITE ? "write" : "read";
    /* the program's own call (fputs is not fwrite), "fwrite" when not known */
    const char *call = s->data_op ? s->data_op : s->op_type == RULE_OP_WRITE ? "fwrite" : "fread";
    struct rule_detail *detail;
    struct rule_report cost;
    int64_t need, model, moved;

    (void)state;
    if (stdio) {
        ops = s->eff_ops;
        bytes = s->eff_bytes;
    }
    if (ops <= (uint64_t)ctx->p[P_MIN_OPS] || ops == 0)
        return;
    if (s->op_type == RULE_OP_WRITE && RULE_HAS(struct rule_session, s, writes_after_failure) &&
        s->writes_after_failure * 2 > s->writes)
        return;
    avg = bytes / (int64_t)ops;
    /*
     * A buffered stream's last syscall may move only what is left (the
     * final flush, the read that meets the end): when it moved less than
     * the buffer, it is left out of the average that judges the buffer (a
     * 4 KiB buffer's syscalls are 4 KiB each but that one, and 4 KiB is not
     * small). A full last syscall stays in: 30 syscalls of a 4000-byte
     * buffer average 4000 bytes, a buffer of 4000 bytes.
     */
    judged = avg;
    /* most of a stdio session's syscalls are the program's own, not the
       stream's: they are judged as on a plain fd, every one counted */
    direct = stdio && s->direct_ops * 2 >= ops;
    if (stdio && !direct && ops > 1 && s->stream_buffer > 0 && s->eff_last_bytes < s->stream_buffer &&
        s->eff_last_bytes <= bytes)
        judged = (bytes - s->eff_last_bytes) / (int64_t)(ops - 1);
    /* a raw session's calls but its last one moved the buffer size or more
       on average: the last moved what was left */
    if (!stdio && ops > 1 && RULE_HAS(struct rule_session, s, last_bytes) &&
        !__builtin_add_overflow(s->read_bytes, s->write_bytes, &moved) &&
        (moved - s->last_bytes) / (int64_t)(ops - 1) >= (int64_t)ctx->p[P_BUFFER])
        return;
    if (judged >= (int64_t)ctx->p[P_BUFFER])
        return;
    model = RULE_HAS(struct rule_session, s, sync_model_ns) ? s->model_ns - s->sync_model_ns : 0;
    /* either threshold reached is enough: both are modelled costs now */
    if (ops < (uint64_t)ctx->p[P_MIN_OPS_ALONE] &&
        model < RULE_NS_FROM_MS(ctx->p[P_MIN_CONTINUAL]) &&
        model < RULE_NS_FROM_MS(ctx->p[P_MIN_TOTAL]))
        return;
    /* the cost: the small calls' time, and the calls beyond the ones a
       buffer of the size asked for would have made */
    need = ctx->p[P_BUFFER] >= 1 ? (bytes + (int64_t)ctx->p[P_BUFFER] - 1) /
                                       (int64_t)ctx->p[P_BUFFER] : (int64_t)ops;
    cost = (struct rule_report){.s = s, .time_ns = s->cost_ns, .model_ns = model,
                                /* where the small calls are made */
                                .stack = s->op_type == RULE_OP_WRITE ? RULE_SITE(s, write_stack)
                                                                     : RULE_SITE(s, read_stack),
                                .excess_calls = (int64_t)ops - (need > 0 ? need : 1)};
    if (rule_again_cost(ctx, &cost))
        return;
    if (stdio)
        stdio_calls(calls, sizeof(calls), s, call, ops);
    /* the syscalls named: "write() syscalls", or with fseek's reads
       among them, both */
    seek_reads = stdio && RULE_HAS(struct rule_session, s, eff_seek_reads)
                     ? s->eff_seek_reads : 0;
    if (seek_reads)
        snprintf(sys, sizeof(sys), "syscalls (%llu of them reads that fseek made back on a "
                                   "stream opened for reading too)",
                 (unsigned long long)seek_reads);
    else
        snprintf(sys, sizeof(sys), "%s() syscalls", what);
    if (!stdio && before_reply(s)) {
        /* a record the process wrote before replying: its size is the turn's */
        cost.fix = FIX_BEFORE_REPLY;
        snprintf(msg, sizeof(msg),
                 "%lld-byte writes: %llu write() calls%s, %llu of them each written before the "
                 "process replied on a socket: a record per turn of its request loop, as large "
                 "as the requests the turn gathered",
                 (long long)avg, (unsigned long long)ops,
                 on_main(s),
                 (unsigned long long)s->writes_before_reply);
    } else if (!stdio || direct) {
        cost.fix = runtime_fix(s, s->op_type == RULE_OP_WRITE);
        if (!cost.fix)
            cost.fix = FIX_RAW;
        snprintf(msg, sizeof(msg),
                 "%lld-byte %ss: %llu %s() calls%s; use a buffer of at least %lld bytes",
                 (long long)avg, what, (unsigned long long)(direct ? s->direct_ops : ops),
                 what, on_main(s),
                 (long long)ctx->p[P_BUFFER]);
    } else if (s->stream_buffer > 0 && s->bufmode == RULE_BUF_LINE) {
        cost.fix = FIX_STDIO_LINE;
        snprintf(msg, sizeof(msg),
                 "line-buffered stdio stream: %s became about %llu %s "
                 "of %lld bytes on average; buffer it fully (setvbuf _IOFBF, at least %lld "
                 "bytes) or write whole blocks",
                 calls, (unsigned long long)ops, sys,
                 (long long)avg, (long long)ctx->p[P_BUFFER]);
    } else if (s->stream_buffer >= ctx->p[P_BUFFER]) {
        /* the buffer is big enough: what empties it early is the program */
        cost.fix = seek_reads ? FIX_SEEK_READS : FIX_STDIO_EARLY;
        snprintf(msg, sizeof(msg),
                 "%lld-byte stdio buffer emptied early: %s became about %llu "
                 "%s of %lld bytes on average; flush less often (fflush and "
                 "fseek empty the buffer)",
                 (long long)s->stream_buffer, calls,
                 (unsigned long long)ops, sys, (long long)avg);
    } else if (s->stream_buffer > 0) {
        cost.fix = FIX_STDIO_SMALL;
        snprintf(msg, sizeof(msg),
                 "%lld-byte stdio buffer: %s became about %llu %s "
                 "of %lld bytes on average; give the stream a buffer of at least %lld bytes (setvbuf)",
                 (long long)s->stream_buffer, calls,
                 (unsigned long long)ops, sys, (long long)avg, (long long)ctx->p[P_BUFFER]);
    } else {
        cost.fix = FIX_STDIO_NONE;
        snprintf(msg, sizeof(msg),
                 "unbuffered stdio stream: %s of %lld bytes on average, each a syscall; "
                 "make the stream buffered (setvbuf with at least %lld bytes)",
                 calls, (long long)avg, (long long)ctx->p[P_BUFFER]);
    }
    detail = rule_detail_new(ctx);
    rule_detail_string(detail, "layer", stdio ? "stdio" : "syscall");
    rule_detail_int(detail, "avg_bytes", (int64_t)avg);
    rule_detail_int(detail, "syscalls", (int64_t)ops);
    rule_detail_int(detail, "max_continual_us", (int64_t)(s->max_continual_ns / 1000));
    rule_detail_int(detail, "max_once_us", (int64_t)(s->max_once_ns / 1000));
    if (stdio) {
        rule_detail_int(detail, "stream_buffer", s->stream_buffer);
        if (seek_reads)
            rule_detail_int(detail, "seek_reads", (int64_t)seek_reads);
        if (s->direct_ops)
            rule_detail_int(detail, "direct_syscalls", (int64_t)s->direct_ops);
    }
    if (!stdio && before_reply(s))
        rule_detail_int(detail, "writes_before_reply", (int64_t)s->writes_before_reply);
    if (RULE_HAS(struct rule_session, s, unseen_io) && s->unseen_io)
        rule_detail_string(detail, "unseen_io",
                           "some of its I/O went through io_uring, AIO or a shared "
                           "map, which the trace does not see");
    rule_detail_int(detail, "model_us", (int64_t)(model / 1000));
    cost.message = msg;
    cost.fields = detail;
    rule_report(ctx, &cost);
}

const struct rule rule_small_buffer = {
    RULE_ABI_HEADER,
    .name = "small_buffer",
    .type = 2,
    .summary = "many reads/writes with a small buffer",
    .params = small_buffer_params,
    .nparams = sizeof(small_buffer_params) / sizeof(small_buffer_params[0]),
    .on_session = small_buffer_check,
    .flags = RULE_F_STATES_COST,      /* the cost is in every report */
    .fix = "Read and write in blocks of 4 KiB or more (64 KiB is better), or keep "
           "stdio buffering on with a buffer of your own: `static char buf[65536]; "
           "setvbuf(f, buf, _IOFBF, sizeof buf)` (glibc ignores the size when buf is NULL).",
};
