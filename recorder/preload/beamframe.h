/*
 * beamframe.h - the Erlang frames of a stack taken in a BEAM dirty NIF.
 *
 * BEAM runs its file calls (prim_file's NIFs) as dirty NIFs on dirty I/O
 * scheduler threads: the Erlang code that made the call is not on that
 * thread's native stack, which shows only efile_open, the NIF and
 * erts_call_dirty_nif. The caller is on the Erlang process's own stack,
 * which the process keeps while the NIF runs: from Process.stop up to
 * Process.hend, its continuation pointers (return addresses into the JIT's
 * code, the words whose two low bits are 0) innermost first. The process
 * is the dirty scheduler's current_process, found through the scheduler
 * data BEAM exports a getter for (erts_get_scheduler_data).
 *
 * Those return addresses are put in front of the native frames, as frames
 * outside every module ("[jit:PID]+0xADDR"), and the runtime's perf map
 * (erl +JPperf true) names them "$module:function/arity" (perfmap.c).
 *
 * Memory is only ever read with process_vm_readv on this process; every
 * structure is checked before it is trusted (the thread is the scheduler's,
 * the process's heap and stack bounds agree with its heap size). A stack
 * through erts_call_dirty_nif whose Erlang frames cannot be read that way
 * keeps its native frames and is counted, as a `lost` stack_no_beam_frames.
 */
#ifndef REC_BEAMFRAME_H
#define REC_BEAMFRAME_H

#include <stdint.h>

#pragma GCC visibility push(hidden)

/* At most this many Erlang frames go in front of a stack's native ones. */
#define REC_BEAM_FRAMES 16

/*
 * pcs[0..n) the native return addresses of the calling thread's stack,
 * innermost first, room for max: when they pass through a dirty NIF call,
 * the Erlang frames of the process it runs for go in front of them (the
 * outermost native frames make room). The new count. Any thread, no lock;
 * errno is kept.
 */
int rec_beam_frames(uintptr_t *pcs, int n, int max);

#pragma GCC visibility pop

#endif
