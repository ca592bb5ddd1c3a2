/* test_views (gpu) — the scheduler on a real GPU: views read through strides (pushed through
 * elementwise ops, materialised only where strides cannot express them), joins, fused
 * reduction steps and the expressions around them, each compared with the CPU reference
 * device: bit for bit where no float reduction is involved, else within a tolerance scaled by
 * the reduced extent. Kernel counts for the fused patterns. Exit 77 without a GPU. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loom.h"

typedef struct fx {
    loom_ctx_t *cpu, *gpu;
    float *x, *y, *v;
} fx_t;

#define R 37
#define C 64

static void eval_both(fx_t *f, const char *expr, double rel_tol, int max_kernels) {
    int64_t shape[2] = {R, C}, vshape[1] = {C};
    const char *names[3] = {"x", "y", "v"};
    loom_ctx_t *cx[2] = {f->cpu, f->gpu};
    void *out[2] = {NULL, NULL};
    loom_dtype_t dt = LOOM_DTYPE_F32;
    int64_t n = 0;
    size_t nbytes = 0;
    uint64_t kernels = 0;
    loom_ctx_clear_error(f->cpu); /* a failed case before this one stays its own failure */
    loom_ctx_clear_error(f->gpu);
    for (int d = 0; d < 2; d++) {
        loom_ctx_t *ctx = cx[d];
        loom_scope_begin(ctx);
        loom_array_t *in[3] = {loom_from_host(ctx, LOOM_DTYPE_F32, 2, shape, f->x),
                               loom_from_host(ctx, LOOM_DTYPE_F32, 2, shape, f->y),
                               loom_from_host(ctx, LOOM_DTYPE_F32, 1, vshape, f->v)};
        loom_eval(ctx, 3, in);
        loom_stats_t s0, s1;
        loom_ctx_stats(ctx, &s0);
        loom_array_t *r = loom_expr(ctx, expr, 3, names, in);
        size_t nb = loom_array_nbytes(r);
        out[d] = malloc(nb + 1);
        if (loom_read(ctx, r, out[d], nb) != LOOM_STATUS_OK)
            fprintf(stderr, "%s on %s: %s\n", expr, d ? "cuda" : "cpu", loom_ctx_message(ctx));
        assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_OK);
        loom_ctx_stats(ctx, &s1);
        if (d) kernels = s1.kernels_launched - s0.kernels_launched;
        dt = loom_array_dtype(r);
        n = loom_array_size(r);
        nbytes = nb;
        loom_scope_end(ctx);
    }
    int bad = 0;
    for (int64_t i = 0; i < n && dt == LOOM_DTYPE_F32; i++) {
        float a = ((float *)out[0])[i], b = ((float *)out[1])[i];
        bool ok = rel_tol == 0 ? !memcmp(&a, &b, 4)
                               : (isnan(a) && isnan(b)) || fabs(a - b) <= rel_tol * (fabs(a) + 0.1);
        if (!ok && bad++ < 3) fprintf(stderr, "%s [%lld]: cpu %.9g gpu %.9g\n", expr, (long long)i, a, b);
    }
    if (dt != LOOM_DTYPE_F32) bad = memcmp(out[0], out[1], nbytes) != 0;
    if (max_kernels >= 0 && (int)kernels > max_kernels)
        fprintf(stderr, "%s: %llu kernels, at most %d expected\n", expr, (unsigned long long)kernels,
                max_kernels);
    assert_int_equal(bad, 0);
    if (max_kernels >= 0) assert_true((int)kernels <= max_kernels);
    free(out[0]);
    free(out[1]);
}

static void test_views(void **state) {
    fx_t *f = *state;
    eval_both(f, "flip(x, axis=0) - x", 0, 1);
    eval_both(f, "x.T + y.T", 0, 1);
    eval_both(f, "x[:36:2, 1:50:3] * y[1::2, :17]", 0, 1);
    eval_both(f, "x[::-3, ::-5] + 1", 0, 1);
    eval_both(f, "reshape(x + y, (64 * 37,))[5:900:7]", 0, 1);
    eval_both(f, "reshape((x + y).T, (37 * 64,)) * 2", 0, 2); /* strides cannot: one temp */
    eval_both(f, "reshape(x.T, (8, 8, 37)) + 1", 0, 2);
    eval_both(f, "expand_dims(v, 0) + x", 0, 1);
    eval_both(f, "broadcast_to(v, (3, 37, 64)) * x", 0, 1);
    eval_both(f, "moveaxis(reshape(x, (37, 8, 8)), 0, 2) - 1", 0, 1);
    eval_both(f, "squeeze(expand_dims(x, 1), 1) * y", 0, 1);
    eval_both(f, "x.T[3:9] + arange(37)", 0, 1);
    eval_both(f, "reshape(arange(64 * 37.0), (37, 64)).T * 2", 0, 2); /* a view of a generator */
    eval_both(f, "concatenate((x, y * 2), axis=0) + 1", 0, -1);
    eval_both(f, "concatenate((x, y.T[:37]), axis=1)", 0, -1);
    eval_both(f, "stack((x, y, x - y), axis=1)", 0, -1);
}

/* A generator broadcast as a whole result, or as the operand of a library step (which reads a
 * buffer): the step that materialises it writes every element, not the generator's own few. */
static void test_broadcast_generators(void **state) {
    fx_t *f = *state;
    eval_both(f, "broadcast_to(eye(64, dtype='float32'), (3, 64, 64))", 0, 1);
    eval_both(f, "broadcast_to(arange(64, dtype='float32'), (37, 64)) @ x.T", 1e-5, -1);
    eval_both(f, "sort(broadcast_to(linspace(1, 0, 64, dtype='float32'), (37, 64)), axis=0)", 0,
              -1);
    eval_both(f,
              "linalg.solve(stack((x[:, :37], y[:, :37])) + 40 * eye(37, dtype='float32'), "
              "broadcast_to(eye(37, dtype='float32'), (2, 37, 37)))",
              1e-4, -1);
}

static void test_fused_reductions(void **state) {
    fx_t *f = *state;
    const double t = 1e-5;
    eval_both(f, "m = max(x, axis=-1, keepdims=True); e = exp(x - m); e / sum(e, axis=-1, keepdims=True)",
              t, 1);
    eval_both(f, "mu = mean(x, axis=-1, keepdims=True); d = x - mu;"
                 "d / sqrt(mean(d * d, axis=-1, keepdims=True) + 1e-5) * v + v",
              1e-4, 1);
    eval_both(f, "mean(x, axis=1)", t, 1);
    eval_both(f, "var(x, axis=1) + std(x, axis=1)", 1e-4, 1);
    eval_both(f, "sum((x - y) ** 2)", 1e-4, 2);
    eval_both(f, "sum(x.T, axis=1)", t, 2);
    eval_both(f, "sum(x[:, ::2] * 2, axis=-1)", t, 2);
    eval_both(f, "x - mean(x, axis=0)", 1e-5, -1);
    eval_both(f, "max(flip(x, axis=1), axis=0) + min(x, axis=0)", 0, -1);
    eval_both(f, "cumsum(x * 2, axis=1)", 1e-5, -1);
    eval_both(f, "matmul(x, y.T) + 1", 1e-4, -1);
}

static int setup(void **state) {
    static fx_t f;
    loom_options_t o = {.device = LOOM_DEVICE_CPU};
    if (loom_ctx_create(&o, &f.cpu) != LOOM_STATUS_OK) return -1;
    o.device = LOOM_DEVICE_CUDA;
    if (loom_ctx_create(&o, &f.gpu) != LOOM_STATUS_OK) return -1;
    f.x = malloc(R * C * sizeof *f.x);
    f.y = malloc(R * C * sizeof *f.y);
    f.v = malloc(C * sizeof *f.v);
    uint32_t s = 12345;
    for (int i = 0; i < R * C; i++) {
        f.x[i] = (float)((s = s * 1664525u + 1013904223u) >> 8) / 16777216.0f * 4 - 2;
        f.y[i] = (float)((s = s * 1664525u + 1013904223u) >> 8) / 16777216.0f * 4 - 2;
    }
    for (int i = 0; i < C; i++) f.v[i] = (float)i / C;
    *state = &f;
    return 0;
}

static int teardown(void **state) {
    fx_t *f = *state;
    loom_ctx_destroy(f->cpu);
    loom_ctx_destroy(f->gpu);
    free(f->x);
    free(f->y);
    free(f->v);
    return 0;
}

int main(void) {
    loom_ctx_t *probe = NULL;
    loom_options_t o = {.device = LOOM_DEVICE_CUDA};
    if (loom_ctx_create(&o, &probe) != LOOM_STATUS_OK) return 77;
    loom_ctx_destroy(probe);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_views),
        cmocka_unit_test(test_broadcast_generators),
        cmocka_unit_test(test_fused_reductions),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
