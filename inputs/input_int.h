/*
 * input_int.h - what the files of the input layer share; input.h is its
 * public face. input.c opens and reads the inputs, input_dir.c walks a
 * directory INPUT for the files in it.
 */
#ifndef INPUT_INT_H
#define INPUT_INT_H

#include <stddef.h>

#include "infile.h"
#include "input.h"

/* The kind of a file from its first bytes buf[0..n); -1 when unrecognisable. */
int input_detect(const char *buf, size_t n);
/* The file opened at path (its name: "-" is standard input) is an input of
   that kind; 0, or -1 out of memory (not reported). */
int input_add_file(struct input *in, const char *path, enum input_kind kind, struct infile *inf);
/* The pool every input file is opened through. */
struct infiles *input_pool(struct input *in);
/*
 * Every regular file below dir, at any depth, in path order, that is an
 * input; 0, or -1 (reported).
 */
int input_add_dir(struct input *in, const char *dir);

#endif /* INPUT_INT_H */
