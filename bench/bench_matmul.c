/* bench_matmul — matrix-product workloads on the CUDA device: float32 10000²
 * (TF32 off: float32 accumulation), float16 8192², and float16 8192² + bias + relu fused
 * into the cuBLASLt call. Timing as bench_elementwise: CUDA events on the ctx's stream around
 * `inner` evals, warm-up first, median of `reps` batches. Prints ms, TFLOP/s and the ratio to
 * cuBLAS's floor times (41 ms and 1.39 ms, short bursts on a cool GPU; bench/README.md).
 * Sustained tensor-core work runs slower (power and clocks), so compare with
 * bench/peers_matmul.py, which repeats this program's order, counts and input ranges with CuPy
 * and PyTorch, run right after it. */
#include <string.h>

#include "bench_util.h"

static loom_ctx_t *ctx;

typedef struct work {
    loom_array_t *a, *b, *bias;
    bool relu;
} work_t;

static void once(void *arg) {
    const work_t *w = arg;
    loom_scope_begin(ctx);
    loom_array_t *r = loom_matmul(ctx, w->a, w->b);
    if (w->bias) r = loom_add(ctx, r, w->bias);
    if (w->relu) r = loom_maximum_f(ctx, r, 0.0);
    loom_eval(ctx, 1, &r);
    loom_scope_end(ctx);
}

static double report(const char *name, double n, double ms, double cupy_ms) {
    printf("%-32s %9.3f ms  %7.1f TFLOP/s", name, ms, 2 * n * n * n / (ms * 1e-3) / 1e12);
    if (cupy_ms > 0) printf("  %.3fx the cuBLAS floor %.2f ms", cupy_ms / ms, cupy_ms);
    printf("\n");
    fflush(stdout);
    return ms;
}

int main(int argc, char **argv) {
    /* "pos": inputs in [0, 1) as CuPy's cupy.random.rand (default [-1, 1)) */
    double lo = argc > 1 && !strcmp(argv[1], "pos") ? 0 : -1;
    if (!(ctx = bench_cuda_ctx())) return 77;
    int64_t s32[2] = {10000, 10000}, s16[2] = {8192, 8192}, sb[1] = {8192};
    work_t w32 = {bench_rand(ctx, 1, LOOM_DTYPE_F32, 2, s32, lo, 1),
                  bench_rand(ctx, 2, LOOM_DTYPE_F32, 2, s32, lo, 1), NULL, false};
    report("matmul f32 10000^2", 10000, bench_time_ms(ctx, once, &w32, 7, 3, NULL), 41.0);
    loom_array_release(w32.a);
    loom_array_release(w32.b);
    work_t w16 = {bench_rand(ctx, 3, LOOM_DTYPE_F16, 2, s16, lo, 1),
                  bench_rand(ctx, 4, LOOM_DTYPE_F16, 2, s16, lo, 1), NULL, false};
    double plain =
        report("matmul f16 8192^2", 8192, bench_time_ms(ctx, once, &w16, 9, 10, NULL), 1.39);
    w16.bias = bench_rand(ctx, 5, LOOM_DTYPE_F16, 1, sb, lo, 1);
    w16.relu = true;
    double fused = report("matmul f16 8192^2 + bias + relu", 8192,
                          bench_time_ms(ctx, once, &w16, 9, 10, NULL), 1.39);
    printf("%-32s %9.3fx the plain matmul (goal <= 1.03x)\n", "epilogue overhead", fused / plain);
    loom_array_release(w16.a);
    loom_array_release(w16.b);
    loom_array_release(w16.bias);
    loom_ctx_destroy(ctx);
    return 0;
}
