/* nvrtc_time.c - median NVRTC time of compiling .cu files (for example the ones LOOM_DUMP or
 * bench_compile --dump writes) with a set of options, to try options and source changes
 * without rebuilding loom. One compile of the first file comes first and is not counted
 * (NVRTC's one-time start-up).
 *
 *   gcc -O2 -std=gnu11 -I/usr/local/cuda/include tools/nvrtc_time.c \
 *       -L/usr/local/cuda/lib64 -lnvrtc -o /tmp/nvrtc_time
 *   /tmp/nvrtc_time [-n REPS] [-w] FILE.cu... [-- [+] OPTION... [-- [+] OPTION...]...]
 *
 * Each -- starts a set of options; + stands for loom's own (sm_90); no set: loom's alone. A
 * set with --gpu-architecture=compute_XY fetches PTX instead of a cubin. Files and sets are
 * compiled round-robin, so that other load on the machine hits them alike. Prints one line
 * per file and set: median ms, fastest ms, binary bytes. Times are CPU time of the process
 * (NVRTC compiles on the calling thread); -w: wall-clock. */
#define _POSIX_C_SOURCE 200809L
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "read_file.h"

/* CPU time of the process (NVRTC compiles on the calling thread): other load on the machine
 * stretches wall time much more than this. -w times wall-clock instead. */
static clockid_t clock_id = CLOCK_PROCESS_CPUTIME_ID;

static double now_ms(void) {
    struct timespec t;
    clock_gettime(clock_id, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* Compiles src once; returns the ms, or -1 with the log printed. *size gets the binary's. */
static double compile(const char *src, int n_opts, const char *const *opts, int ptx, size_t *size) {
    nvrtcProgram prog;
    double t0 = now_ms();
    if (nvrtcCreateProgram(&prog, src, "k.cu", 0, NULL, NULL) != NVRTC_SUCCESS) return -1;
    nvrtcResult r = nvrtcCompileProgram(prog, n_opts, (const char **)opts);
    if (r == NVRTC_SUCCESS) {
        r = ptx ? nvrtcGetPTXSize(prog, size) : nvrtcGetCUBINSize(prog, size);
        char *bin = malloc(*size);
        if (ptx)
            nvrtcGetPTX(prog, bin);
        else
            nvrtcGetCUBIN(prog, bin);
        free(bin);
    }
    double ms = now_ms() - t0;
    if (r != NVRTC_SUCCESS) {
        size_t n = 0;
        nvrtcGetProgramLogSize(prog, &n);
        char *log = malloc(n + 1);
        nvrtcGetProgramLog(prog, log);
        fprintf(stderr, "%s\n", log);
        free(log);
        ms = -1;
    }
    nvrtcDestroyProgram(&prog);
    return ms;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

enum { MAX_FILES = 32, MAX_SETS = 16, MAX_OPTS = 32 };

static const char *const loom_opts[] = {"--gpu-architecture=sm_90", "--std=c++17",
                                        "-default-device", "--fmad=false", "--minimal"};

typedef struct {
    const char *opts[MAX_OPTS];
    int n, ptx;
} optset_t;

int main(int argc, char **argv) {
    int reps = 15, n_files = 0, n_sets = 0;
    const char *files[MAX_FILES];
    optset_t sets[MAX_SETS];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "-w")) {
            clock_id = CLOCK_MONOTONIC;
        } else if (!strcmp(argv[i], "--")) {
            if (n_sets == MAX_SETS) return 2;
            optset_t *o = &sets[n_sets++];
            o->n = o->ptx = 0;
            for (i++; i < argc && strcmp(argv[i], "--"); i++) {
                if (o->n + 6 > MAX_OPTS) return 2;
                if (!strcmp(argv[i], "+")) /* loom's own options, then the rest */
                    for (size_t k = 0; k < sizeof loom_opts / sizeof *loom_opts; k++)
                        o->opts[o->n++] = loom_opts[k];
                else
                    o->opts[o->n++] = argv[i];
                o->ptx |= !strncmp(argv[i], "--gpu-architecture=compute_", 27);
            }
            i--;
        } else if (n_files < MAX_FILES) {
            files[n_files++] = argv[i];
        }
    }
    if (n_sets == 0) {
        sets[0].n = sets[0].ptx = 0;
        for (size_t k = 0; k < sizeof loom_opts / sizeof *loom_opts; k++)
            sets[0].opts[sets[0].n++] = loom_opts[k];
        n_sets = 1;
    }
    if (n_files == 0 || reps < 1 || reps > 1000) {
        fprintf(stderr, "usage: %s [-n REPS] [-w] FILE.cu... [-- [+] OPTION... [-- ...]]\n",
                argv[0]);
        return 2;
    }
    char *src[MAX_FILES];
    for (int f = 0; f < n_files; f++)
        if (!(src[f] = read_file(files[f]))) {
            fprintf(stderr, "cannot read %s\n", files[f]);
            return 1;
        }
    /* Round-robin over files and option sets, so that other load hits them alike. */
    int n_cases = n_files * n_sets;
    double *t = malloc((size_t)reps * (size_t)n_cases * sizeof *t);
    size_t size[MAX_FILES * MAX_SETS] = {0};
    if (compile(src[0], sets[0].n, sets[0].opts, sets[0].ptx, &size[0]) < 0) return 1;
    for (int r = 0; r < reps; r++)
        for (int c = 0; c < n_cases; c++) {
            const optset_t *o = &sets[c % n_sets];
            if ((t[c * reps + r] = compile(src[c / n_sets], o->n, o->opts, o->ptx, &size[c])) < 0)
                return 1;
        }
    for (int c = 0; c < n_cases; c++) {
        double *v = t + c * reps;
        qsort(v, (size_t)reps, sizeof *v, cmp);
        printf("%8.2f ms (min %6.2f) %7zu bytes  %s  [set %d]\n", v[reps / 2], v[0], size[c],
               files[c / n_sets], c % n_sets);
    }
    for (int f = 0; f < n_files; f++) free(src[f]);
    free(t);
    return 0;
}
