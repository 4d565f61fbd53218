/*
 * kstack.h - the user stacks the kernel path takes (capture_stack.bpf.h),
 * turned into the trace's stack strings, with the module records that let
 * ioanalyze symbolize them (docs/trace-format.md 5.10, 5.11), as the
 * preload writes them.
 */
#ifndef REC_KSTACK_H
#define REC_KSTACK_H

#include <stdint.h>

#define KELF_SEGS 8

/* What a module file tells of its code (kelf.c). */
struct kelf {
    struct { uint64_t vaddr, offset, filesz; int exec; } seg[KELF_SEGS];
    unsigned nseg;
    uint8_t build_id[64];
    uint8_t id_len;
    int go;               /* a Go binary (.gopclntab) */
    int frame_pointers;   /* its code keeps them: Go, or most functions set one up */
    int fd;               /* open on the file (for kelf_after_call), -1 once closed */
};

/* Read the file at path; 0, or -1 when it is not a 64-bit ELF file. */
int kelf_read(const char *path, struct kelf *m);
void kelf_close(struct kelf *m);
/* The load bias of a mapping at start of the file from file_off; 0, or -1. */
int kelf_bias(const struct kelf *m, uint64_t start, uint64_t file_off, uint64_t *bias);
/* Whether the instruction before vaddr (a return address) is a call. */
int kelf_after_call(const struct kelf *m, uint64_t vaddr);

#endif
