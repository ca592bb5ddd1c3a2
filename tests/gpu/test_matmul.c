/* test_matmul — matrix products on the CUDA device against the CPU reference device: NumPy's
 * shapes (1-D x 1-D, 1-D x 2-D, 2-D x 1-D, batched with broadcasting, 0-size, k = 0), every
 * float dtype through cuBLASLt with tolerances scaled by the inner size, ints and bool through
 * the generated kernel (exact), transposed and permuted views, TF32 off (float32-exact
 * accumulation) and on, dot and tensordot, and the fused epilogues (bias + relu, scales, gelu)
 * against the same math unfused on the CPU; the fused bias + relu launches no elementwise
 * kernel. Exit 77 without a GPU. */
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

#include <loom.h>

static loom_ctx_t *gpu, *gpu_tf32, *cpu;

/* The same pseudo-random array on a ctx (random streams are bit-identical across devices):
 * floats uniform in [-1, 1); ints in [-8, 8); bool half true. */
static loom_array_t *rnd(loom_ctx_t *ctx, uint64_t seed, loom_dtype_t d, int nd,
                         const int64_t *shape) {
    loom_array_t *u = loom_random_uniform(ctx, seed, LOOM_DTYPE_F32, nd, shape, -1, 1);
    if (d == LOOM_DTYPE_BOOL) return loom_greater_f(ctx, u, 0.0);
    if (d == LOOM_DTYPE_F16 || d == LOOM_DTYPE_BF16 || d == LOOM_DTYPE_F32 ||
        d == LOOM_DTYPE_F64)
        return loom_astype(ctx, u, d);
    return loom_astype(ctx, loom_floor(ctx, loom_multiply_f(ctx, u, 8)), d);
}

/* Unit roundoff of the float32 accumulator (TF32: 10 mantissa bits), and of the result. */
static double acc_eps(loom_dtype_t d, bool tf32) {
    if (d == LOOM_DTYPE_F64) return ldexp(1, -52);
    return tf32 ? ldexp(1, -10) : ldexp(1, -23);
}
static double out_eps(loom_dtype_t d) {
    switch (d) {
        case LOOM_DTYPE_F16: return ldexp(1, -10);
        case LOOM_DTYPE_BF16: return ldexp(1, -7);
        case LOOM_DTYPE_F32: return ldexp(1, -23);
        case LOOM_DTYPE_F64: return ldexp(1, -52);
        default: return 0;
    }
}

/* Evaluates g (on gctx) and c (on cpu) and compares: ints and bool exactly; floats within
 * 4 k eps_acc (operands in [-1, 1], so sum |a||b| <= k) plus two roundings of the result. */
static void compare(loom_ctx_t *gctx, loom_array_t *g, loom_array_t *c, int64_t k,
                    const char *what) {
    if (loom_array_is_nil(g) || loom_array_is_nil(c))
        print_error("%s: gpu %s / cpu %s\n", what, loom_ctx_message(gctx), loom_ctx_message(cpu));
    assert_false(loom_array_is_nil(g));
    assert_false(loom_array_is_nil(c));
    loom_dtype_t d = loom_array_dtype(c);
    assert_int_equal(loom_array_dtype(g), d);
    assert_int_equal(loom_array_ndim(g), loom_array_ndim(c));
    int64_t n = loom_array_size(c);
    assert_int_equal(loom_array_size(g), n);
    double *eg = malloc(sizeof(double) * (size_t)(n + 1)), *ec = malloc(sizeof(double) * (size_t)(n + 1));
    loom_array_t *g64 = loom_astype(gctx, g, LOOM_DTYPE_F64), *c64 = loom_astype(cpu, c, LOOM_DTYPE_F64);
    loom_status_t sg = loom_read(gctx, g64, eg, sizeof(double) * (size_t)n);
    if (sg) print_error("%s: gpu eval: %s\n", what, loom_ctx_message(gctx));
    assert_int_equal(sg, LOOM_STATUS_OK);
    assert_int_equal(loom_read(cpu, c64, ec, sizeof(double) * (size_t)n), LOOM_STATUS_OK);
    bool tf32 = gctx == gpu_tf32 && d == LOOM_DTYPE_F32;
    double tol = 4.0 * (double)(k > 0 ? k : 1) * acc_eps(d, tf32);
    int bad = 0;
    for (int64_t i = 0; i < n; i++) {
        double t = tol + 2 * out_eps(d) * fabs(ec[i]);
        bool ok = out_eps(d) == 0 ? eg[i] == ec[i] : fabs(eg[i] - ec[i]) <= t;
        if (!ok && bad++ < 3)
            print_error("%s %s [%lld]: cpu %.9g gpu %.9g (tolerance %.3g)\n", what,
                        loom_dtype_name(d), (long long)i, ec[i], eg[i], t);
    }
    free(eg);
    free(ec);
    assert_int_equal(bad, 0);
}

typedef loom_array_t *(*contract_fn)(loom_ctx_t *, loom_array_t *, loom_array_t *);

/* op(a, b) of the given shapes on both devices; transpose_a/b: build the operand transposed
 * (its last two axes swapped in storage) and pass a transposed view. */
static void check(loom_ctx_t *gctx, contract_fn op, loom_dtype_t d, int an, const int64_t *ash,
                  int bn, const int64_t *bsh, bool ta, bool tb, int64_t k, const char *what) {
    loom_scope_begin(gctx);
    loom_scope_begin(cpu);
    loom_array_t *x[2][2];
    loom_ctx_t *ctxs[2] = {gctx, cpu};
    for (int c = 0; c < 2; c++)
        for (int o = 0; o < 2; o++) {
            int nd = o ? bn : an;
            const int64_t *sh = o ? bsh : ash;
            bool t = o ? tb : ta;
            int64_t s[8];
            memcpy(s, sh, sizeof(int64_t) * (size_t)nd);
            if (t && nd >= 2) {
                s[nd - 2] = sh[nd - 1];
                s[nd - 1] = sh[nd - 2];
            }
            loom_array_t *v = rnd(ctxs[c], 11 + (uint64_t)o, d, nd, s);
            if (t && nd >= 2) {
                int32_t perm[8];
                for (int i = 0; i < nd; i++) perm[i] = i;
                perm[nd - 2] = nd - 1;
                perm[nd - 1] = nd - 2;
                v = loom_transpose(ctxs[c], v, nd, perm);
            }
            x[c][o] = v;
        }
    compare(gctx, op(gctx, x[0][0], x[0][1]), op(cpu, x[1][0], x[1][1]), k, what);
    loom_scope_end(gctx);
    loom_scope_end(cpu);
}

static const loom_dtype_t floats[] = {LOOM_DTYPE_F16, LOOM_DTYPE_BF16, LOOM_DTYPE_F32,
                                      LOOM_DTYPE_F64};

static void test_matmul_numpy_shapes_floats(void **state) {
    (void)state;
    static const struct {
        int an, bn;
        int64_t a[4], b[4], k;
    } cases[] = {
        {1, 1, {7}, {7}, 7},                         /* dot product */
        {1, 2, {5}, {5, 3}, 5},                      /* vector @ matrix */
        {2, 1, {4, 5}, {5}, 5},                      /* matrix @ vector */
        {2, 2, {4, 5}, {5, 6}, 5},
        {2, 2, {130, 70}, {70, 33}, 70},             /* several tiles, odd sizes */
        {2, 2, {1, 300}, {300, 1}, 300},
        {4, 3, {2, 1, 4, 5}, {3, 5, 6}, 5},          /* batched, broadcast */
        {3, 2, {3, 4, 5}, {5, 6}, 5},                /* batch against a matrix */
        {2, 3, {4, 5}, {3, 5, 6}, 5},
        {3, 1, {3, 4, 5}, {5}, 5},
        {2, 2, {0, 5}, {5, 3}, 5},                   /* 0-size */
        {2, 2, {4, 0}, {0, 3}, 0},                   /* k = 0: zeros */
        {3, 3, {0, 4, 5}, {1, 5, 6}, 5},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int di = 0; di < 4; di++) {
            char what[64];
            snprintf(what, sizeof what, "matmul case %zu", i);
            check(gpu, loom_matmul, floats[di], cases[i].an, cases[i].a, cases[i].bn, cases[i].b,
                  false, false, cases[i].k, what);
        }
}

static void test_matmul_transposed_views(void **state) {
    (void)state;
    int64_t a[3] = {3, 40, 24}, b[3] = {3, 24, 36};
    for (int di = 0; di < 4; di++)
        for (int t = 0; t < 4; t++) {
            check(gpu, loom_matmul, floats[di], 2, a + 1, 2, b + 1, t & 1, t & 2, 24, "2-D T");
            check(gpu, loom_matmul, floats[di], 3, a, 3, b, t & 1, t & 2, 24, "batched T");
        }
}

/* A view with neither of its last two axes unit-stride (every second column): gathered. */
static void test_matmul_strided_slices(void **state) {
    (void)state;
    for (int di = 0; di < 4; di++) {
        loom_scope_begin(gpu);
        loom_scope_begin(cpu);
        int64_t sa[2] = {16, 40}, sb[2] = {20, 12};
        loom_array_t *r[2];
        loom_ctx_t *ctxs[2] = {gpu, cpu};
        for (int c = 0; c < 2; c++) {
            loom_array_t *a = rnd(ctxs[c], 3, floats[di], 2, sa);
            int64_t start[2] = {0, 0}, stop[2] = {16, 40}, step[2] = {1, 2};
            a = loom_slice(ctxs[c], a, 2, start, stop, step); /* (16, 20), strides (40, 2) */
            r[c] = loom_matmul(ctxs[c], a, rnd(ctxs[c], 4, floats[di], 2, sb));
        }
        compare(gpu, r[0], r[1], 20, "strided slice");
        loom_scope_end(gpu);
        loom_scope_end(cpu);
    }
}

static void test_matmul_ints_and_bool_exact(void **state) {
    (void)state;
    static const loom_dtype_t ds[] = {LOOM_DTYPE_BOOL, LOOM_DTYPE_I8, LOOM_DTYPE_I32,
                                      LOOM_DTYPE_I64, LOOM_DTYPE_U8, LOOM_DTYPE_U16};
    int64_t a[3] = {2, 37, 50}, b[3] = {2, 50, 19}, v[1] = {50};
    for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++) {
        check(gpu, loom_matmul, ds[i], 3, a, 3, b, false, true, 0, "int batched");
        check(gpu, loom_matmul, ds[i], 2, a + 1, 1, v, true, false, 0, "int matrix @ vector");
        check(gpu, loom_matmul, ds[i], 1, v, 1, v, false, false, 0, "int dot");
    }
}

/* An empty contracted axis under huge broadcast outer contracted axes: zeros at once (the
 * generic kernel looped over the 2**31 x 5 outer indices with nothing to add). */
static void test_matmul_empty_contraction(void **state) {
    (void)state;
    int64_t one[3] = {1, 1, 0}, wide[3] = {INT64_C(1) << 31, 5, 0};
    loom_ctx_t *ctxs[2] = {gpu, cpu};
    loom_array_t *r[2];
    for (int c = 0; c < 2; c++) {
        loom_array_t *x = loom_broadcast_to(ctxs[c], loom_ones(ctxs[c], LOOM_DTYPE_I32, 3, one),
                                            3, wide);
        r[c] = loom_tensordot(ctxs[c], x, x, 3);
    }
    compare(gpu, r[0], r[1], 0, "empty contraction");
}

static void test_matmul_tf32(void **state) {
    (void)state;
    int64_t a[2] = {64, 512}, b[2] = {512, 48};
    check(gpu, loom_matmul, LOOM_DTYPE_F32, 2, a, 2, b, false, false, 512, "tf32 off");
    check(gpu_tf32, loom_matmul, LOOM_DTYPE_F32, 2, a, 2, b, false, false, 512, "tf32 on");
}

static loom_array_t *tensordot2(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b) {
    return loom_tensordot(ctx, a, b, 2);
}

static void test_matmul_dot_and_tensordot(void **state) {
    (void)state;
    int64_t a[3] = {3, 4, 5}, b[3] = {2, 5, 6}, c[3] = {4, 5, 7};
    for (int di = 0; di < 4; di++) {
        check(gpu, loom_dot, floats[di], 3, a, 3, b, false, false, 5, "dot N-D");
        check(gpu, tensordot2, floats[di], 3, a, 3, c, false, false, 20, "tensordot 2");
    }
}

/* ---- epilogues ---- */

typedef enum { EPI_BIAS_RELU, EPI_SCALE_BIAS, EPI_BIAS_SCALE_RELU, EPI_BIAS_GELU } epi_t;

static loom_array_t *gelu(loom_ctx_t *ctx, loom_array_t *x) {
    loom_array_t *inner = loom_multiply_f(
        ctx,
        loom_add(ctx, x,
                 loom_multiply_f(ctx, loom_multiply(ctx, loom_multiply(ctx, x, x), x), 0.044715)),
        0.7978845608);
    return loom_multiply(ctx, loom_multiply_f(ctx, x, 0.5),
                         loom_add_f(ctx, loom_tanh(ctx, inner), 1.0));
}

static loom_array_t *epilogue(loom_ctx_t *ctx, epi_t e, loom_array_t *mm, loom_array_t *bias) {
    switch (e) {
        case EPI_BIAS_RELU: return loom_maximum_f(ctx, loom_add(ctx, mm, bias), 0.0);
        case EPI_SCALE_BIAS: return loom_add(ctx, loom_multiply_f(ctx, mm, 0.25), bias);
        case EPI_BIAS_SCALE_RELU:
            return loom_maximum_f(ctx, loom_multiply_f(ctx, loom_add(ctx, bias, mm), 2.0), 0.0);
        default: return gelu(ctx, loom_add(ctx, mm, bias));
    }
}

static void test_matmul_epilogues_fused(void **state) {
    (void)state;
    static const loom_dtype_t ds[] = {LOOM_DTYPE_F16, LOOM_DTYPE_BF16, LOOM_DTYPE_F32};
    int64_t a[2] = {96, 64}, b[2] = {64, 80}, bias1[1] = {80}, bias2[2] = {1, 80};
    for (int di = 0; di < 3; di++)
        for (int e = 0; e < 4; e++) {
            loom_scope_begin(gpu);
            loom_scope_begin(cpu);
            loom_ctx_t *ctxs[2] = {gpu, cpu};
            loom_array_t *in[2][3], *r[2];
            for (int c = 0; c < 2; c++) {
                in[c][0] = rnd(ctxs[c], 21, ds[di], 2, a);
                in[c][1] = rnd(ctxs[c], 22, ds[di], 2, b);
                in[c][2] = rnd(ctxs[c], 23, ds[di], e & 1 ? 2 : 1, e & 1 ? bias2 : bias1);
                assert_int_equal(loom_eval(ctxs[c], 3, in[c]), LOOM_STATUS_OK);
            }
            loom_stats_t s0, s1;
            loom_ctx_stats(gpu, &s0);
            for (int c = 0; c < 2; c++)
                r[c] = epilogue(ctxs[c], (epi_t)e, loom_matmul(ctxs[c], in[c][0], in[c][1]),
                                in[c][2]);
            assert_int_equal(loom_eval(gpu, 1, &r[0]), LOOM_STATUS_OK);
            loom_ctx_stats(gpu, &s1);
            if (e == EPI_BIAS_RELU) /* one cuBLASLt call, no elementwise kernel */
                assert_int_equal(s1.kernels_launched - s0.kernels_launched, 0);
            char what[64];
            snprintf(what, sizeof what, "epilogue %d", e);
            /* fused: one extra rounding of the 16-bit intermediate is allowed for */
            compare(gpu, r[0], r[1], 64 * (ds[di] == LOOM_DTYPE_F32 ? 1 : 8192), what);
            loom_scope_end(gpu);
            loom_scope_end(cpu);
        }
}

int main(void) {
    loom_options_t o = {0};
    o.device = LOOM_DEVICE_CUDA;
    if (loom_ctx_create(&o, &gpu) != LOOM_STATUS_OK) {
        fprintf(stderr, "no CUDA device: %s (skipped)\n", loom_last_create_message());
        return 77;
    }
    o.allow_tf32 = 1;
    if (loom_ctx_create(&o, &gpu_tf32) != LOOM_STATUS_OK) return 1;
    o.allow_tf32 = 0;
    o.device = LOOM_DEVICE_CPU;
    if (loom_ctx_create(&o, &cpu) != LOOM_STATUS_OK) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matmul_numpy_shapes_floats),
        cmocka_unit_test(test_matmul_transposed_views),
        cmocka_unit_test(test_matmul_strided_slices),
        cmocka_unit_test(test_matmul_ints_and_bool_exact),
        cmocka_unit_test(test_matmul_empty_contraction),
        cmocka_unit_test(test_matmul_tf32),
        cmocka_unit_test(test_matmul_dot_and_tensordot),
        cmocka_unit_test(test_matmul_epilogues_fused),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    loom_ctx_destroy(gpu);
    loom_ctx_destroy(gpu_tf32);
    loom_ctx_destroy(cpu);
    return rc;
}
