/* bench_reduce — reduction workloads on the CUDA device: a full sum of 256M float32,
 * row softmax and row layernorm of 8192², column sums of 8192², 65536 × 64 and 64 × 1M, row
 * softmax of 65536 × 64 and 64 × 1M, row variances of 8192² and 1024 × 65536, row 2-norms of
 * 8192² (bench/peers_norm.py runs the peers'), row medians of 8192² (bench/peers_numerics.py
 * runs the peers'), cumsum along rows and columns of 8192² and of one line of 2^28, cumprod
 * along rows and columns of 8192² and of one line of 2^28, of factors in [0.99, 1.01) (bench/peers_scan.py runs the
 * peers' scans). Timing as bench_elementwise:
 * CUDA events around `inner` evals after warm-up, median of `reps` batches. Each line: µs per
 * call, TB/s of the bytes that must move (read once, write once), the ratio to the copy floor
 * (those bytes at this card's device-to-device copy rate, measured first: bench_copy_tbps;
 * FLOORS.md's 4.17 TB/s on the H200) and kernels per
 * call. Targets: softmax and layernorm of 8192² within 1.25× of the floor (~129 µs).
 * bench_reduce [NAME]: only the workloads whose names contain NAME. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"

static double copy_tbps = 4.17; /* this card's, measured first (bench_copy_tbps) */

static loom_ctx_t *ctx;

typedef struct work {
    loom_array_t *x, *g, *b;
    int32_t axis;
    int kind;
} work_t;

enum {
    W_SUM,
    W_SOFTMAX,
    W_LAYERNORM,
    W_LAYERNORM_AFFINE,
    W_VAR,
    W_NORM,
    W_MEDIAN,
    W_CUMSUM,
    W_CUMPROD
};

static loom_array_t *build(const work_t *w) {
    loom_array_t *x = w->x;
    int32_t ax = w->axis;
    switch (w->kind) {
        case W_SUM:
            return ax == INT32_MIN ? loom_sum(ctx, x, -1, NULL, 0) : loom_sum(ctx, x, 1, &ax, 0);
        case W_SOFTMAX: {
            loom_array_t *e = loom_exp(ctx, loom_subtract(ctx, x, loom_max(ctx, x, 1, &ax, 1)));
            return loom_true_divide(ctx, e, loom_sum(ctx, e, 1, &ax, 1));
        }
        case W_LAYERNORM:
        case W_LAYERNORM_AFFINE: { /* without affine: the peers' (x - mu) / sqrt(var + 1e-5) */
            loom_array_t *m = loom_mean(ctx, x, 1, &ax, 1), *v = loom_var(ctx, x, 1, &ax, 1, 0);
            loom_array_t *y = loom_true_divide(ctx, loom_subtract(ctx, x, m),
                                               loom_sqrt(ctx, loom_add_f(ctx, v, 1e-5)));
            if (w->kind == W_LAYERNORM) return y;
            return loom_add(ctx, loom_multiply(ctx, y, w->g), w->b);
        }
        case W_VAR:
            return loom_var(ctx, x, 1, &ax, 0, 0);
        case W_NORM:
            return loom_vector_norm(ctx, x, 1, &ax, 0, 2.0);
        case W_MEDIAN:
            return loom_median(ctx, x, ax, 0);
        case W_CUMPROD:
            return loom_cumprod(ctx, x, ax);
        default:
            return loom_cumsum(ctx, x, ax);
    }
}

static void once(void *arg) {
    const work_t *w = arg;
    loom_scope_begin(ctx);
    loom_array_t *a = build(w);
    loom_eval(ctx, 1, &a);
    loom_scope_end(ctx);
}

/* One workload over x of shape rows × cols; bytes: what must move at the least. */
static const char *only; /* argv[1]: run the workloads whose names contain it */
static double lo = -1, hi = 1; /* the operands' range */

static void bench(const char *name, int kind, int64_t rows, int64_t cols, int32_t axis,
                  double bytes) {
    if (only && !strstr(name, only)) return;
    int64_t shape[2] = {rows, cols};
    work_t w = {bench_rand(ctx, 1, LOOM_DTYPE_F32, 2, shape, lo, hi), NULL, NULL, axis, kind};
    if (kind == W_LAYERNORM_AFFINE) {
        w.g = bench_rand(ctx, 2, LOOM_DTYPE_F32, 1, &cols, -1, 1);
        w.b = bench_rand(ctx, 3, LOOM_DTYPE_F32, 1, &cols, -1, 1);
    }
    double k, us = bench_time_ms(ctx, once, &w, 9, 10, &k) * 1e3;
    double floor_us = bytes / (copy_tbps * 1e12) * 1e6;
    printf("%-28s %10.1f us  %6.3f TB/s  %5.1f%% of copy  %5.2fx floor  %.0f kernel%s\n", name, us,
           bytes / (us * 1e-6) / 1e12, 100.0 * floor_us / us, us / floor_us, k, k == 1 ? "" : "s");
    fflush(stdout);
    loom_array_release(w.x);
    if (w.g) loom_array_release(w.g);
    if (w.b) loom_array_release(w.b);
}

int main(int argc, char **argv) {
    only = argc > 1 ? argv[1] : NULL;
    char cache[32];
    if (!(ctx = bench_cuda_ctx_cold(cache))) return 77;
    copy_tbps = bench_copy_tbps(ctx);
    printf("loom %s on %s (floor: bytes moved at %.2f TB/s, this card's copy rate)\n",
           LOOM_VERSION_STRING, loom_ctx_device_name(ctx), copy_tbps);
    const double f = 4.0;
    const int64_t m = 1 << 20;
    bench("sum_256M", W_SUM, 1, 256 * m, INT32_MIN, f * 256 * m);
    bench("softmax_rows_8192x8192", W_SOFTMAX, 8192, 8192, 1, 2 * f * 8192 * 8192);
    bench("layernorm_rows_8192x8192", W_LAYERNORM, 8192, 8192, 1, 2 * f * 8192 * 8192);
    bench("layernorm_affine_8192x8192", W_LAYERNORM_AFFINE, 8192, 8192, 1, 2 * f * 8192 * 8192);
    bench("var_rows_8192x8192", W_VAR, 8192, 8192, 1, f * 8192 * 8192);
    bench("var_rows_1024x65536", W_VAR, 1024, 64 * 1024, 1, f * 1024 * 64 * 1024);
    bench("sum_rows_8192x8192", W_SUM, 8192, 8192, 1, f * 8192 * 8192);
    bench("norm_rows_8192x8192", W_NORM, 8192, 8192, 1, f * 8192 * 8192);
    /* a sort of each row and a gather of its middle pair: the floor is one read */
    bench("median_rows_8192x8192", W_MEDIAN, 8192, 8192, 1, f * 8192 * 8192);
    bench("sum_cols_8192x8192", W_SUM, 8192, 8192, 0, f * 8192 * 8192);
    bench("sum_cols_65536x64", W_SUM, 65536, 64, 0, f * 65536 * 64);
    bench("softmax_rows_65536x64", W_SOFTMAX, 65536, 64, 1, 2 * f * 65536 * 64);
    bench("sum_cols_64x1M", W_SUM, 64, m, 0, f * 64 * m);
    bench("sum_rows_64x1M", W_SUM, 64, m, 1, f * 64 * m);
    bench("softmax_rows_64x1M", W_SOFTMAX, 64, m, 1, 2 * f * 64 * m);
    bench("cumsum_rows_8192x8192", W_CUMSUM, 8192, 8192, 1, 2 * f * 8192 * 8192);
    bench("cumsum_cols_8192x8192", W_CUMSUM, 8192, 8192, 0, 2 * f * 8192 * 8192);
    bench("cumsum_1d_256M", W_CUMSUM, 1, 256 * m, 1, 2 * f * 256 * m);
    /* factors in [0.99, 1.01), as growth rates are: products that stay in range for rows and
     * columns and drift out of it along the line */
    lo = 0.99, hi = 1.01;
    bench("cumprod_rows_8192x8192", W_CUMPROD, 8192, 8192, 1, 2 * f * 8192 * 8192);
    bench("cumprod_cols_8192x8192", W_CUMPROD, 8192, 8192, 0, 2 * f * 8192 * 8192);
    bench("cumprod_1d_256M", W_CUMPROD, 1, 256 * m, 1, 2 * f * 256 * m);
    loom_ctx_destroy(ctx);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf %s", cache);
    return system(cmd) == 0 ? 0 : 1;
}
