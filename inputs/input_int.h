/*
 * input_int.h - what the files of the input layer share; input.h is its
 * public face. input.c opens and reads the inputs; input_dir.c, below it,
 * walks a directory INPUT and offers each file found to input.c's callback.
 */
#ifndef INPUT_INT_H
#define INPUT_INT_H

/* What an input_dir_take_fn made of the file it was offered. */
enum input_dir_took {
    INPUT_DIR_TAKEN,        /* an input: added */
    INPUT_DIR_NOT_INPUT,    /* read, but no input (a README, an issue file) */
    INPUT_DIR_UNREADABLE,   /* cannot be opened, errno says why: skipped with a warning */
    INPUT_DIR_NO_MEMORY     /* out of memory (not reported) */
};
typedef enum input_dir_took (*input_dir_take_fn)(void *ctx, const char *path);

/*
 * Offer take every regular file below dir, at any depth, in path order,
 * until it runs out of memory; 0, or -1 (reported: out of memory, or no
 * file taken).
 */
int input_dir_walk(const char *dir, input_dir_take_fn take, void *ctx);

/*
 * What the file inf is (enum input_kind) from its first n bytes peek:
 * -1 when unrecognisable, -2 out of memory (input.c).
 */
struct infile;
int input_detect_file(struct infile *inf, const char *peek, size_t n);

#endif /* INPUT_INT_H */
