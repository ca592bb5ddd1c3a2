/* bench_compile — cold NVRTC time of three typical fused kernels (float32 hypot sqrt(x*x+y*y),
 * gelu in its tanh form, a row sum of a 1024x1024 matrix), on the compile-only device, so it
 * runs without a GPU. Each rep is a new context with the disk cache off, so every kernel is a
 * fresh NVRTC program; one compile comes first so that NVRTC's one-time start-up is not counted
 * (the target is <= 40 ms after the first NVRTC call of the process). Prints the median
 * NVRTC wall time (loom's compile_ms) and the median CPU time of the eval, which other load on
 * a shared machine stretches much less (NVRTC compiles on the calling thread), and the minor
 * page faults per compile (glibc trims the heap NVRTC grew, so each compile faults its memory
 * in again; faults cost more in a process with a CUDA context).
 *
 *   bench_compile [--reps N] [--arch sm_90] [--dump DIR]   (--dump writes the sources to DIR) */
#define _POSIX_C_SOURCE 200809L
#include <loom.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static int cmp_ms(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_ms);
    return v[n / 2];
}

enum { N_ROWS = 1024, N_COLS = 1024, MAX_REPS = 101 };

static float host_x[N_ROWS * N_COLS], host_y[N_ROWS * N_COLS];

static loom_array_t *hypot_kernel(loom_ctx_t *c) {
    int64_t n = N_ROWS * N_COLS;
    loom_array_t *x = loom_borrow_host(c, LOOM_DTYPE_F32, 1, &n, host_x);
    loom_array_t *y = loom_borrow_host(c, LOOM_DTYPE_F32, 1, &n, host_y);
    return loom_sqrt(c, loom_add(c, loom_multiply(c, x, x), loom_multiply(c, y, y)));
}

/* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
static loom_array_t *gelu_kernel(loom_ctx_t *c) {
    int64_t n = N_ROWS * N_COLS;
    loom_array_t *x = loom_borrow_host(c, LOOM_DTYPE_F32, 1, &n, host_x);
    loom_array_t *x3 = loom_multiply(c, loom_multiply(c, x, x), x);
    loom_array_t *in =
        loom_multiply_f(c, loom_add(c, x, loom_multiply_f(c, x3, 0.044715)), 0.7978845608028654);
    return loom_multiply(c, loom_multiply_f(c, x, 0.5), loom_add_f(c, loom_tanh(c, in), 1.0));
}

static loom_array_t *rowsum_kernel(loom_ctx_t *c) {
    int64_t shape[2] = {N_ROWS, N_COLS};
    int32_t axis = 1;
    loom_array_t *m = loom_borrow_host(c, LOOM_DTYPE_F32, 2, shape, host_x);
    return loom_sum(c, m, 1, &axis, 0);
}

static double cpu_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static double minor_faults(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_minflt;
}

/* NVRTC ms per kernel of one eval of build() on a new context, and per kernel in *cpu the
 * eval's CPU ms and in *faults its minor page faults; -1 on error. */
static double compile_once(loom_array_t *(*build)(loom_ctx_t *), const char *arch, const char *dump,
                           double *cpu, double *faults) {
    loom_options_t o = {
        .device = LOOM_DEVICE_NVRTC, .arch = arch, .disable_disk_cache = 1, .dump_dir = dump};
    loom_ctx_t *c = NULL;
    if (loom_ctx_create(&o, &c) != LOOM_STATUS_OK) {
        fprintf(stderr, "bench_compile: %s\n", loom_last_create_message());
        return -1;
    }
    loom_scope_begin(c);
    loom_array_t *a = build(c);
    double f0 = minor_faults(), t0 = cpu_ms();
    loom_status_t st = loom_eval(c, 1, &a);
    double t1 = cpu_ms(), f1 = minor_faults();
    loom_scope_end(c);
    loom_stats_t s;
    loom_ctx_stats(c, &s);
    if (st != LOOM_STATUS_OK || s.kernel_compiles == 0) {
        fprintf(stderr, "bench_compile: eval failed: %s\n", loom_ctx_message(c));
        loom_ctx_destroy(c);
        return -1;
    }
    double ms = s.compile_ms / (double)s.kernel_compiles;
    *cpu = (t1 - t0) / (double)s.kernel_compiles;
    *faults = (f1 - f0) / (double)s.kernel_compiles;
    loom_ctx_destroy(c);
    return ms;
}

int main(int argc, char **argv) {
    int reps = 15;
    const char *arch = "sm_90", *dump = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--arch") && i + 1 < argc)
            arch = argv[++i];
        else if (!strcmp(argv[i], "--dump") && i + 1 < argc)
            dump = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--reps N] [--arch sm_XY] [--dump DIR]\n", argv[0]);
            return 2;
        }
    }
    if (reps < 1 || reps > MAX_REPS) reps = 15;
    static const struct {
        const char *name;
        loom_array_t *(*build)(loom_ctx_t *);
    } kinds[] = {{"compile_cold_hypot_f32", hypot_kernel},
                 {"compile_cold_gelu_tanh_f32", gelu_kernel},
                 {"compile_cold_rowsum_f32", rowsum_kernel}};
    double cpu[MAX_REPS], faults[MAX_REPS];
    if (compile_once(hypot_kernel, arch, NULL, cpu, faults) < 0) return 1; /* first call */
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        double ms[MAX_REPS];
        for (int r = 0; r < reps; r++)
            if ((ms[r] = compile_once(kinds[k].build, arch, r == 0 ? dump : NULL, &cpu[r],
                                      &faults[r])) < 0)
                return 1;
        printf("%-34s %10.2f ms (median of %d cold compiles for %s; CPU %.2f ms, %.0f page "
               "faults)\n",
               kinds[k].name, median(ms, reps), reps, arch, median(cpu, reps),
               median(faults, reps));
    }
    return 0;
}
