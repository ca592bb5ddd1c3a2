/* bench_indexing — gathers, masks, sorts and sets on the CUDA device: a sort of 2^28 float32, a
 * sort of 2^28 (uint32 key, int32 value) pairs as NumPy code writes it (v[argsort(k)]), an
 * argsort of 8192² float32 rows, unique of 2^26 int32 (values in [0, 2^20)) alone and with its
 * counts, the row
 * logsumexp of 8192² float32 and the fused cross-entropy style
 * `logsumexp(x) - take_along_axis(x, labels)` over the same rows, a
 * row gather x[idx] of 8192² float32 (8192 random rows), and x[x > 0] of 2^28 float32 (half
 * true), the mask computed in the kernel or stored before (mask_stored). Timing as
 * bench_reduce (CUDA events around evals after warm-up, median of batches); each line: µs per
 * call, the ratio to the copy floor of the bytes that must move (read once, write once, at
 * this card's copy rate, measured first: bench_copy_tbps) and kernels per call.
 * bench_indexing [NAME]: only the workloads whose names contain NAME. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"

static double copy_tbps = 4.17; /* this card's, measured first (bench_copy_tbps) */

static loom_ctx_t *ctx;

typedef struct work {
    loom_array_t *x, *i;
    int kind;
} work_t;

enum {
    W_SORT,
    W_PAIRS,
    W_ARGSORT_ROWS,
    W_UNIQUE,
    W_UNIQUE_COUNTS,
    W_LSE,
    W_XENT,
    W_ROWS,
    W_MASK,
    W_MASK_STORED
};

static void once(void *arg) {
    const work_t *w = arg;
    loom_scope_begin(ctx);
    int32_t ax = 1;
    loom_array_t *r = NULL;
    switch (w->kind) {
        case W_SORT:
            r = loom_sort(ctx, w->x, 0);
            break;
        case W_PAIRS: /* x: the keys, i: the values */
            r = loom_take(ctx, w->i, loom_argsort(ctx, w->x, 0), 0, LOOM_TAKE_RAISE);
            break;
        case W_ARGSORT_ROWS:
            r = loom_argsort(ctx, w->x, 1);
            break;
        case W_UNIQUE:
            loom_unique(ctx, w->x, 1, &r, NULL, NULL, NULL);
            break;
        case W_UNIQUE_COUNTS: {
            loom_array_t *c = NULL;
            loom_unique(ctx, w->x, 1, &r, NULL, NULL, &c);
            loom_array_t *both[2] = {r, c};
            loom_eval(ctx, 2, both);
            break;
        }
        case W_LSE:
        case W_XENT: {
            loom_array_t *m = loom_max(ctx, w->x, 1, &ax, 1);
            loom_array_t *s = loom_sum(ctx, loom_exp(ctx, loom_subtract(ctx, w->x, m)), 1, &ax, 1);
            r = loom_add(ctx, m, loom_log(ctx, s));
            if (w->kind == W_XENT)
                r = loom_subtract(ctx, r, loom_take_along_axis(ctx, w->x, w->i, 1));
            break;
        }
        case W_ROWS:
            r = loom_take(ctx, w->x, w->i, 0, LOOM_TAKE_RAISE);
            break;
        case W_MASK_STORED: /* i: a bool mask computed before */
            r = loom_boolean_index(ctx, w->x, w->i, 0);
            break;
        default:
            r = loom_boolean_index(ctx, w->x, loom_greater(ctx, w->x, loom_full(ctx, LOOM_DTYPE_F32, 0, NULL, 0.0)), 0);
            break;
    }
    loom_eval(ctx, 1, &r);
    loom_scope_end(ctx);
}

static const char *only;

static void bench(const char *name, work_t *w, double bytes, int reps, int inner) {
    if (only && !strstr(name, only)) return;
    double k, us = bench_time_ms(ctx, once, w, reps, inner, &k) * 1e3;
    double floor_us = bytes / (copy_tbps * 1e12) * 1e6;
    printf("%-28s %10.1f us  %6.2fx floor  %.0f kernel%s\n", name, us, us / floor_us, k,
           k == 1 ? "" : "s");
    fflush(stdout);
}

/* Random int64 in [0, hi) of shape, realised and retained. */
static loom_array_t *rand_idx(uint64_t seed, int32_t nd, const int64_t *shape, double hi) {
    loom_array_t *u = loom_random_uniform(ctx, seed, LOOM_DTYPE_F32, nd, shape, 0, hi);
    loom_array_t *a = loom_astype(ctx, loom_floor(ctx, u), LOOM_DTYPE_I64);
    a = loom_minimum(ctx, a, loom_full_int(ctx, LOOM_DTYPE_I64, 0, NULL, (int64_t)hi - 1));
    loom_array_retain(a);
    loom_eval(ctx, 1, &a);
    return a;
}

int main(int argc, char **argv) {
    only = argc > 1 ? argv[1] : NULL;
    char cache[32];
    if (!(ctx = bench_cuda_ctx_cold(cache))) return 77;
    copy_tbps = bench_copy_tbps(ctx);
    printf("loom %s on %s (floor: bytes moved at %.2f TB/s, this card's copy rate)\n",
           LOOM_VERSION_STRING, loom_ctx_device_name(ctx), copy_tbps);
    int64_t n28 = INT64_C(1) << 28, n26 = INT64_C(1) << 26, sq[2] = {8192, 8192};
    int64_t lab[2] = {8192, 1}, rows = 8192;
    work_t w = {0};
    if (!only || strstr("sort_f32_2^28", only)) {
        w = (work_t){bench_rand(ctx, 1, LOOM_DTYPE_F32, 1, &n28, -1, 1), NULL, W_SORT};
        bench("sort_f32_2^28", &w, 8.0 * (double)n28, 5, 2);
        /* both zeros (0.1 % of the elements): the keys lose the zero's sign, so the passes
         * carry the elements as payloads */
        const char *nm = "x";
        loom_array_t *z = loom_expr(ctx, "x * (abs(x) > 0.001)", 1, &nm, &w.x);
        loom_array_release(w.x);
        loom_eval(ctx, 1, &z);
        w.x = z;
        bench("sort_f32_2^28_both_zeros", &w, 8.0 * (double)n28, 5, 2);
        loom_array_release(w.x);
    }
    if (!only || strstr("sort_pairs_u32_i32_2^28", only)) {
        /* uint32 keys over their whole range (uniform float64, floored), int32 values; the
         * floor: four 8-bit passes of 8-byte pairs, each read and written */
        loom_array_t *k = loom_random_uniform(ctx, 7, LOOM_DTYPE_F64, 1, &n28, 0, 4294967296.0);
        loom_array_t *v = loom_random_uniform(ctx, 8, LOOM_DTYPE_F64, 1, &n28, -2147483648.0,
                                              2147483648.0);
        w = (work_t){loom_astype(ctx, loom_floor(ctx, k), LOOM_DTYPE_U32),
                     loom_astype(ctx, loom_floor(ctx, v), LOOM_DTYPE_I32), W_PAIRS};
        loom_array_retain(w.x);
        loom_array_retain(w.i);
        loom_array_t *kv[2] = {w.x, w.i};
        loom_eval(ctx, 2, kv);
        bench("sort_pairs_u32_i32_2^28", &w, 4 * 16.0 * (double)n28, 5, 2);
        loom_array_release(w.x);
        loom_array_release(w.i);
    }
    w = (work_t){bench_rand(ctx, 2, LOOM_DTYPE_F32, 2, sq, -1, 1), NULL, W_ARGSORT_ROWS};
    bench("argsort_rows_8192x8192", &w, 12.0 * 8192 * 8192, 5, 2);
    /* the plain row logsumexp: the reference the fused gather below is measured against */
    w.kind = W_LSE;
    bench("lse_8192x8192", &w, 4.0 * 8192 * 8192, 9, 10);
    w.kind = W_XENT;
    w.i = rand_idx(3, 2, lab, 8192);
    bench("xent_gather_8192x8192", &w, 4.0 * 8192 * 8192, 9, 10);
    loom_array_release(w.i);
    w.kind = W_ROWS;
    w.i = rand_idx(4, 1, &rows, 8192);
    bench("take_rows_8192x8192", &w, 8.0 * 8192 * 8192, 9, 10);
    loom_array_release(w.i);
    loom_array_release(w.x);
    w = (work_t){loom_astype(ctx, loom_floor(ctx, loom_random_uniform(ctx, 5, LOOM_DTYPE_F32, 1,
                                                                       &n26, 0, 1 << 20)),
                             LOOM_DTYPE_I32),
                 NULL, W_UNIQUE};
    loom_array_retain(w.x);
    loom_eval(ctx, 1, &w.x);
    bench("unique_i32_2^26", &w, 4.0 * (double)n26, 5, 2);
    w.kind = W_UNIQUE_COUNTS;
    bench("unique_counts_i32_2^26", &w, 4.0 * (double)n26, 5, 2);
    loom_array_release(w.x);
    w = (work_t){bench_rand(ctx, 6, LOOM_DTYPE_F32, 1, &n28, -1, 1), NULL, W_MASK};
    bench("mask_f32_2^28", &w, 4.0 * (double)n28 + 2.0 * (double)n28, 5, 2);
    /* the mask stored, as the floor counts it: read x and the mask, write half */
    w.kind = W_MASK_STORED;
    w.i = loom_greater(ctx, w.x, loom_full(ctx, LOOM_DTYPE_F32, 0, NULL, 0.0));
    loom_array_retain(w.i);
    loom_eval(ctx, 1, &w.i);
    bench("mask_stored_f32_2^28", &w, 4.0 * (double)n28 + 1.0 * (double)n28 + 2.0 * (double)n28, 5,
          2);
    loom_array_release(w.i);
    loom_array_release(w.x);
    loom_ctx_destroy(ctx);
    return 0;
}
