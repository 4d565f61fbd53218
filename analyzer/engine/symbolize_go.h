/*
 * symbolize_go.h - functions and source lines of Go binaries from their
 * .gopclntab, for the frames libdw cannot place (symbolize.c).
 */
#ifndef SYMBOLIZE_GO_H
#define SYMBOLIZE_GO_H

#include <stdint.h>

struct go_tables;

/* NULL on out of memory. */
struct go_tables *go_tables_create(void);
void go_tables_free(struct go_tables *g);

/*
 * 1 when the ELF file at path is a Go binary whose table holds address
 * addr (an ELF virtual address inside a call): its function, and its
 * source file and line (*file NULL, *line 0 when the table has none). The
 * strings live as long as g. 0 otherwise.
 */
int go_lookup(struct go_tables *g, const char *path, uint64_t addr, const char **function,
              const char **file, int *line);

#endif /* SYMBOLIZE_GO_H */
