/*
 * bpf_floor - loads bench/empty.bpf.c's object (built beside the capture
 * path's), attaches its programs whose names start with PREFIX (all when
 * none is given), says "attached" on stdout and waits to be killed: the
 * floors under the kernel capture path's costs (bench/bench_floors.sh).
 *
 *   bpf_floor OBJECT.bpf.o [PREFIX]
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifdef BENCH_BPF
#include <bpf/libbpf.h>

int main(int argc, char **argv)
{
    const char *prefix = argc == 3 ? argv[2] : "";
    struct bpf_object *obj;
    struct bpf_program *p;

    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: bpf_floor OBJECT.bpf.o [PREFIX]\n");
        return 2;
    }
    obj = bpf_object__open_file(argv[1], NULL);
    if (!obj) {
        fprintf(stderr, "bpf_floor: cannot open %s\n", argv[1]);
        return 1;
    }
    bpf_object__for_each_program(p, obj)
        bpf_program__set_autoload(p, strncmp(bpf_program__name(p), prefix, strlen(prefix)) == 0);
    if (bpf_object__load(obj) != 0) {
        fprintf(stderr, "bpf_floor: cannot load %s\n", argv[1]);
        return 1;
    }
    bpf_object__for_each_program(p, obj) {
        if (!bpf_program__autoload(p))
            continue;
        if (!bpf_program__attach(p)) {
            fprintf(stderr, "bpf_floor: cannot attach %s\n", bpf_program__name(p));
            return 1;
        }
    }
    printf("attached\n");
    fflush(stdout);
    for (;;)
        pause();
}
#else
int main(void)
{
    fprintf(stderr, "bpf_floor: built without libbpf (the kernel capture path is not built)\n");
    return 1;
}
#endif
