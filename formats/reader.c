/*
 * reader.c - the streaming native trace reader: its life from open to close.
 *
 * Pass 1 (open, reader_index.c): map every input (reader_input.c), walk its
 * zstd frames, verify each frame (decompression checks its checksum) and
 * note each chunk's thread chain (chain_id: the chunk sequence of one
 * thread life), sequence number and start time. Damaged frames
 * are skipped to the next frame magic; an input that ends inside a frame is
 * truncated. Of several versions of one (chain, seq) - partial snapshots -
 * the largest is kept.
 *
 * Pass 2 (next, reader_merge.c): a k-way merge over the thread chains by event
 * time. Each chain decodes one chunk at a time, so memory grows with the
 * number of chains that overlap in time, never with the number of events.
 *
 * reader_int.h has what the parts share.
 */
#include <stdlib.h>
#include <unistd.h>

#include "reader_int.h"

struct iot_trace *iot_trace_open(const char *const *paths, size_t n,
                                 struct iot_strtab *st, char *errbuf)
{
    return iot_trace_open_fds(paths, NULL, n, st, errbuf);
}

struct iot_trace *iot_trace_open_fds(const char *const *paths, const int *fds, size_t n,
                                     struct iot_strtab *st, char *errbuf)
{
    struct iot_trace *tr = calloc(1, sizeof(*tr));
    uint8_t *scratch = NULL;
    size_t scratch_cap = 0, keep_open = iot_trace_keep_open_max();

    if (!tr || !(tr->inputs = calloc(n ? n : 1, sizeof(*tr->inputs))) ||
        !(tr->dctx = ZSTD_createDCtx())) {
        trace_set_err(errbuf, "cannot read trace%s: %s", "", "out of memory");
        goto fail;
    }
    tr->spill_fd = -1;
    tr->st = st;
    tr->origin = INT64_MAX;
    for (size_t i = 0; i < n; i++) {
        int fd = fds ? fds[i] : -1;

        tr->ninputs++;
        if (trace_input_open(&tr->inputs[i], paths[i], fd, i < keep_open, errbuf) < 0 ||
            trace_index_input(tr, (uint32_t)i, &scratch, &scratch_cap, errbuf) < 0)
            goto fail;
        tr->stats.file_bytes += tr->inputs[i].size;
    }
    free(scratch);
    scratch = NULL;
    /* pass 1's index of the chains is done with */
    free(tr->chain_slots);
    tr->chain_slots = NULL;
    tr->chain_slots_cap = 0;
    /* pass 2 reads the frames instead */
    for (size_t i = 0; i < tr->ninputs; i++)
        trace_input_unmap(&tr->inputs[i]);
    tr->stats.bytes_read = tr->stats.file_bytes;
    for (size_t i = 0; i < tr->nchains; i++) {
        if (trace_chain_settle(tr, &tr->chains[i]) < 0) {
            trace_set_err(errbuf, "cannot read trace%s: %s", "", "out of memory");
            goto fail;
        }
        tr->stats.bytes_read -= tr->chains[i].csize_kept;
    }
    if (trace_merge_start(tr) < 0) {
        trace_set_err(errbuf, "cannot read trace%s: %s", "", "out of memory");
        goto fail;
    }
    tr->stats.chunks -= tr->stats.chunks_superseded;
    return tr;
fail:
    /* the descriptors of the inputs not reached are the reader's too */
    for (size_t i = tr ? tr->ninputs : 0; fds && i < n; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    free(scratch);
    iot_trace_close(tr);
    return NULL;
}

int64_t iot_trace_origin(const struct iot_trace *tr)
{
    return tr->origin;
}

void iot_trace_stats(const struct iot_trace *tr, struct iot_trace_stats *out)
{
    *out = tr->stats;
    /* each chain's decoder counts what it skipped, so the merge never does */
    for (size_t i = 0; i < tr->nchains; i++) {
        const struct iot_dec *d = &tr->chains[i].dec;

        out->calls_unknown += d->calls_unknown;
        out->fields_unknown += d->fields_unknown;
        out->records_unknown += d->records_unknown;
    }
}

void iot_trace_close(struct iot_trace *tr)
{
    if (!tr)
        return;
    trace_ahead_stop(tr);
    for (size_t i = 0; i < tr->nchains; i++) {
        trace_chain_release(&tr->chains[i]);
        trace_chain_refs_free(&tr->chains[i]);
    }
    if (tr->spill_open)
        close(tr->spill_fd);
    for (size_t i = 0; i < tr->ninputs; i++)
        trace_input_close(&tr->inputs[i]);
    ZSTD_freeDCtx(tr->dctx);
    free(tr->inputs);
    free(tr->chains);
    free(tr->chain_slots);
    free(tr->heap);
    free(tr->out);
    free(tr->argv);
    free(tr->cbuf);
    free(tr);
}
