/* bench_linalg — factorisations on the CUDA device against the peers' figures of the same
 * workloads (bench/peers_linalg.py runs them with PyTorch and CuPy right after this program):
 * solve 8192^2 float32 and float64 (one right-hand side), 100,000 separate 8 x 8 float32 solves
 * and Cholesky factorisations (one stacked call each: loom's thread-per-matrix kernels),
 * 10,000 solves of 8 x 8 float32 systems built one call at a time from rows of two arrays and
 * evaluated together (timed from the first call to the results: loom stacks them into one
 * step; the peers make 10,000 calls),
 * cholesky 8192^2 float32, eigh 4096^2 float32 (values and vectors) and svdvals 4096^2
 * float32. Usage: bench_linalg [NAME] (only the workloads whose names contain NAME). Inputs
 * are realised on the device first (diagonally dominant, symmetric positive definite or
 * symmetric as each needs); each timed call is one eval of the whole function (the copies
 * cuSOLVER works in, the info words read back). Timing as the other benches: CUDA events,
 * warm-up, median of batches. */
#include <string.h>

#include "bench_util.h"

static loom_ctx_t *ctx;

typedef enum { SOLVE, CHOLESKY, EIGH, SVDVALS, SEPARATE } what_t;

#define SEPARATE_N 10000
typedef struct work {
    what_t what;
    loom_array_t *a, *b;
} work_t;

/* SEPARATE_N solves built one at a time, from rows of a (N, 8, 8) and b (N, 8, 1), and
 * evaluated together (one batched step). */
static void separate(const work_t *w) {
    static loom_array_t *r[SEPARATE_N];
    for (int64_t i = 0; i < SEPARATE_N; i++) {
        int64_t at = i, end = i + 1;
        r[i] = loom_solve(ctx, loom_slice(ctx, w->a, 1, &at, &end, NULL),
                          loom_slice(ctx, w->b, 1, &at, &end, NULL));
    }
    loom_eval(ctx, SEPARATE_N, r);
}

static void once(void *arg) {
    const work_t *w = arg;
    loom_scope_begin(ctx);
    if (w->what == SEPARATE) {
        separate(w);
        loom_scope_end(ctx);
        return;
    }
    loom_array_t *r[2] = {NULL, NULL};
    int n = 1;
    switch (w->what) {
        case SOLVE:
            r[0] = loom_solve(ctx, w->a, w->b);
            break;
        case CHOLESKY:
            r[0] = loom_cholesky(ctx, w->a, 0);
            break;
        case EIGH:
            loom_eigh(ctx, w->a, 0, &r[0], &r[1]);
            n = 2;
            break;
        case SVDVALS:
            r[0] = loom_svdvals(ctx, w->a);
            break;
        case SEPARATE:
            break;
    }
    loom_eval(ctx, n, r);
    loom_scope_end(ctx);
}

/* A realised (.., n, n) matrix of dtype d: uniform [-1, 1) plus `diag` on the diagonal, made
 * symmetric (a + a^T) when sym, or a a^T / n + I when spd. */
static loom_array_t *matrix(uint64_t seed, loom_dtype_t d, int nd, const int64_t *shape,
                            double diag, bool sym, bool spd) {
    int64_t n = shape[nd - 1];
    loom_array_t *a = loom_random_uniform(ctx, seed, d, nd, shape, -1, 1);
    if (spd)
        a = loom_add(
            ctx,
            loom_true_divide_f(ctx, loom_matmul(ctx, a, loom_matrix_transpose(ctx, a)), (double)n),
            loom_eye(ctx, n, n, 0, d));
    if (sym) a = loom_add(ctx, a, loom_matrix_transpose(ctx, a));
    if (diag) a = loom_add(ctx, a, loom_multiply_f(ctx, loom_eye(ctx, n, n, 0, d), diag));
    loom_array_retain(a);
    loom_eval(ctx, 1, &a);
    return a;
}

static const char *only; /* run only the workloads whose names contain it */

static bool wanted(const char *name) { return !only || strstr(name, only); }

static void report(const char *name, double ms, double floor_ms, const char *floor_name) {
    printf("%-36s %9.3f ms", name, ms);
    if (floor_ms > 0) printf("   %.2fx %s %.3f ms", floor_ms / ms, floor_name, floor_ms);
    printf("\n");
    fflush(stdout);
}

/* n solves of 8 x 8 float32 systems, rows of a realised (n, 8, 8) and (n, 8, 1), timed as
 * `what` (SOLVE: one stacked call, SEPARATE: built one call at a time); floor_ms: torch's. */
static void small_solves(const char *name, what_t what, int64_t n, uint64_t seed, int reps,
                         int inner, double floor_ms) {
    if (!wanted(name)) return;
    int64_t sa[3] = {n, 8, 8}, sb[3] = {n, 8, 1};
    work_t w = {what, matrix(seed, LOOM_DTYPE_F32, 3, sa, 8, false, false), NULL};
    w.b = loom_random_uniform(ctx, seed + 1, LOOM_DTYPE_F32, 3, sb, -1, 1);
    loom_array_retain(w.b);
    loom_eval(ctx, 1, &w.b);
    double kern;
    report(name, bench_time_ms(ctx, once, &w, reps, inner, &kern), floor_ms, "torch's");
    printf("  kernels per call: %.0f\n", kern);
    loom_array_release(w.a);
    loom_array_release(w.b);
}

int main(int argc, char **argv) {
    only = argc > 1 ? argv[1] : NULL;
    if (!(ctx = bench_cuda_ctx())) return 77;
    int64_t big[2] = {8192, 8192}, rhs[1] = {8192}, mid[2] = {4096, 4096};
    int64_t many[3] = {100000, 8, 8};
    static const loom_dtype_t ds[2] = {LOOM_DTYPE_F32, LOOM_DTYPE_F64};
    static const double torch_solve[2] = {34.4, 37.9};
    for (int i = 0; i < 2 && wanted("solve f32 8192^2 solve f64 8192^2"); i++) {
        work_t w = {SOLVE, matrix(1, ds[i], 2, big, 8192, false, false), NULL};
        w.b = loom_random_uniform(ctx, 2, ds[i], 1, rhs, -1, 1);
        loom_array_retain(w.b);
        loom_eval(ctx, 1, &w.b);
        report(i ? "solve f64 8192^2" : "solve f32 8192^2",
               bench_time_ms(ctx, once, &w, 5, 1, NULL), torch_solve[i], "torch's");
        loom_array_release(w.a);
        loom_array_release(w.b);
    }
    small_solves("solve f32 100000 x 8^2 (stacked)", SOLVE, 100000, 3, 15, 10, 0.283);
    small_solves("solve f32 10000 x 8^2 (separate calls)", SEPARATE, SEPARATE_N, 8, 5, 1, 0);
    double kern;
    if (wanted("cholesky f32 100000 x 8^2 (stacked)")) {
        work_t wm = {CHOLESKY, matrix(7, LOOM_DTYPE_F32, 3, many, 0, false, true), NULL};
        report("cholesky f32 100000 x 8^2 (stacked)",
               bench_time_ms(ctx, once, &wm, 15, 10, &kern), 0, "");
        printf("  kernels per call: %.0f\n", kern);
        loom_array_release(wm.a);
    }
    if (wanted("cholesky f32 8192^2")) {
        work_t wc = {CHOLESKY, matrix(5, LOOM_DTYPE_F32, 2, big, 0, false, true), NULL};
        report("cholesky f32 8192^2", bench_time_ms(ctx, once, &wc, 5, 1, NULL), 8.9, "torch's");
        loom_array_release(wc.a);
    }
    if (wanted("eigh f32 4096^2 svdvals f32 4096^2")) {
        work_t we = {EIGH, matrix(6, LOOM_DTYPE_F32, 2, mid, 0, true, false), NULL};
        report("eigh f32 4096^2", bench_time_ms(ctx, once, &we, 3, 1, NULL), 89, "torch's");
        work_t wv = {SVDVALS, we.a, NULL};
        report("svdvals f32 4096^2", bench_time_ms(ctx, once, &wv, 3, 1, NULL), 621, "CuPy's");
        loom_array_release(we.a);
    }
    loom_ctx_destroy(ctx);
    return 0;
}
