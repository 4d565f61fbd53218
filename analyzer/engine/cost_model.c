/*
 * The cost model (cost_model.h): one row per op class. The values are a
 * commodity SATA/NVMe SSD without power-loss protection under ext4, the
 * storage most programs are judged on; docs/analyzer.md ("The cost model")
 * gives each value's source: this machine's figures (a virtio disk, ext4,
 * measured with the calls themselves) beside public SSD and HDD figures.
 *
 * Why a model at all: a duration measured on a busy machine is the
 * machine's, not the program's (the same fsync took 2 ms quiet and 14 ms
 * under two busy loops), so a judgement made from it flips between two runs
 * of one workload. The counts and bytes the program made do not.
 */
#include <stddef.h>

#include "cost_model.h"
#include "iotrace.h"
#include "saturate.h"

/* A sync's fixed part: the device's cache flush and the journal's commit
   (what even a directory's or an unchanged file's sync waits for). */
#define SYNC_CALL_NS 2000000
/* ... and per byte it makes durable: the device's sequential write rate,
   500 MB/s (the written data leaves the page cache for the device). */
#define SYNC_BYTE_NS 2.0

static const struct cost_model_row rows[] = {
    /* data through the page cache: a syscall and a copy of the bytes
       (0.27-0.33 ns/byte measured here for 1 MiB calls) */
    [IOT_ROLE_READ]    = {"read", 1000, 0.3},
    [IOT_ROLE_WRITE]   = {"write", 1000, 0.3},
    [IOT_ROLE_COPY]    = {"copy (sendfile, splice, copy_file_range)", 1000, 0.3},
    [IOT_ROLE_SEEK]    = {"seek", 200, 0},
    [IOT_ROLE_SYNC]    = {"sync (fsync, fdatasync, msync, sync)", SYNC_CALL_NS, SYNC_BYTE_NS},
    [IOT_ROLE_FLUSH]   = {"stdio flush", 200, 0},
    [IOT_ROLE_HINT]    = {"hint (fadvise, sync_file_range)", 1000, 0},
    /* a path walk and an fd; a create's metadata is in its journal commit */
    [IOT_ROLE_OPEN]    = {"open", 5000, 0},
    [IOT_ROLE_CLOSE]   = {"close", 1000, 0},
    [IOT_ROLE_LOOKUP]  = {"lookup (stat, access, readlink)", 2000, 0},
    /* a directory entry or inode changed: journalled metadata */
    [IOT_ROLE_CHANGE]  = {"change (unlink, rename, mkdir, chmod, truncate)", 20000, 0},
    [IOT_ROLE_LIST]    = {"list (readdir)", 5000, 0},
    [IOT_ROLE_MAP]     = {"map (mmap, munmap)", 2000, 0},
    [IOT_ROLE_STREAM]  = {"stream set-up (setvbuf)", 50, 0},
    [IOT_ROLE_FDTABLE] = {"fd table (dup, pipe, socket, fcntl)", 500, 0},
    [IOT_ROLE_PROC]    = {"process or thread (fork, pthread_create)", 0, 0},
    [IOT_ROLE_UNSEEN]  = {"a note of what was not seen", 0, 0},
};

const struct cost_model_row *cost_model_row(unsigned role)
{
    static const struct cost_model_row none = {"", 0, 0};

    return role < sizeof(rows) / sizeof(rows[0]) && rows[role].what ? &rows[role] : &none;
}

int64_t cost_model_ns(unsigned role, uint64_t calls, int64_t bytes)
{
    const struct cost_model_row *r = cost_model_row(role);
    double ns = (double)calls * (double)r->call_ns + (bytes > 0 ? (double)bytes * r->byte_ns : 0);

    return ns >= (double)INT64_MAX / 2 ? INT64_MAX / 2 : (int64_t)ns;
}

int64_t cost_model_op_ns(unsigned op, int64_t bytes)
{
    if (op >= IOT_OP_COUNT)
        return 0;
    if (iot_ops[op].api == IOT_API_STDIO && (iot_ops[op].role == IOT_ROLE_READ ||
                                             iot_ops[op].role == IOT_ROLE_WRITE))
        /* the syscalls beneath are the session's modelled ones (eff_ops) */
        return COST_MODEL_STDIO_CALL_NS;
    return cost_model_ns(iot_ops[op].role, 1, bytes);
}

int64_t cost_model_sync_ns(int64_t durable_bytes)
{
    return cost_model_ns(IOT_ROLE_SYNC, 1, durable_bytes);
}
