/* test_matmul — loom_matmul, loom_dot and loom_tensordot on the CPU reference device against
 * NumPy 2 (tests/data/numpy_matmul.h: result dtypes of every dtype pair, shapes of NumPy's rules,
 * 0-size operands, wrapping ints, random floats within a tolerance scaled by k, NumPy's error
 * messages); the kernel on strided operands (transposed, broadcast, reversed) against a naive
 * loop; fused consumers; the IR dump; the speed of a 512 x 512 float32 product. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../data/numpy_matmul.h"
#include "../support/check.h"
#include "ir/ir.h"

static const char *const fn_names[] = {"matmul", "dot", "tensordot"};

static loom_array_t *run_case(loom_ctx_t *ctx, const np_mm_case_t *c) {
    int64_t na = 1, nb = 1;
    for (int i = 0; i < c->a.ndim; i++) na *= c->a.dims[i];
    for (int i = 0; i < c->b.ndim; i++) nb *= c->b.dims[i];
    loom_array_t *a =
        check_from_bits(ctx, c->a_dtype, c->a.ndim, c->a.dims, np_mm_bits + c->a_off, na);
    loom_array_t *b =
        check_from_bits(ctx, c->b_dtype, c->b.ndim, c->b.dims, np_mm_bits + c->b_off, nb);
    switch (c->fn) {
        case 0:
            return loom_matmul(ctx, a, b);
        case 1:
            return loom_dot(ctx, a, b);
        default:
            return loom_tensordot(ctx, a, b, c->naxes);
    }
}

/* 0 if case i matches NumPy, else 1 (with a message). */
static int check_case(loom_ctx_t *ctx, size_t i) {
    const np_mm_case_t *c = &np_mm_cases[i];
    char what[160];
    snprintf(what, sizeof what, "case %zu: %s(%s, %s)", i, fn_names[c->fn],
             loom_dtype_name(c->a_dtype), loom_dtype_name(c->b_dtype));
    loom_array_t *r = run_case(ctx, c);
    if (c->out.ndim < 0) {
        int bad = !loom_array_is_nil(r) || loom_ctx_status(ctx) != LOOM_STATUS_SHAPE_MISMATCH;
        /* matmul and dot give NumPy's message; tensordot's (an IndexError or "shape-mismatch
         * for sum") is replaced by one naming the shapes. */
        if (!bad && c->fn != 2) bad = strstr(loom_ctx_message(ctx), c->error) == NULL;
        if (bad)
            print_message("%s: NumPy raises \"%s\"; loom: %s \"%s\"\n", what, c->error,
                          loom_status_string(loom_ctx_status(ctx)), loom_ctx_message(ctx));
        loom_ctx_clear_error(ctx);
        return bad;
    }
    if (loom_array_is_nil(r)) {
        print_message("%s: loom fails: %s\n", what, loom_ctx_message(ctx));
        loom_ctx_clear_error(ctx);
        return 1;
    }
    int same = loom_array_dtype(r) == c->out_dtype && loom_array_ndim(r) == c->out.ndim;
    for (int ax = 0; same && ax < c->out.ndim; ax++)
        same = loom_array_dim(r, ax) == c->out.dims[ax];
    if (!same) {
        print_message("%s: NumPy gives %s of %d axes, loom %s of %d\n", what,
                      loom_dtype_name(c->out_dtype), c->out.ndim,
                      loom_dtype_name(loom_array_dtype(r)), loom_array_ndim(r));
        return 1;
    }
    int64_t n = loom_array_size(r);
    uint64_t *got = malloc(sizeof *got * (size_t)(n ? n : 1));
    assert_non_null(got);
    if (check_read_bits(ctx, r, got, n) != LOOM_STATUS_OK) {
        print_message("%s: eval fails: %s\n", what, loom_ctx_message(ctx));
        free(got);
        loom_ctx_clear_error(ctx);
        return 1;
    }
    int bad = 0;
    for (int64_t j = 0; j < n && !bad; j++) {
        uint64_t e = np_mm_bits[c->out_off + j];
        if (c->tol == 0)
            bad = !check_bits_match(c->out_dtype, e, got[j], 0);
        else
            bad = !(fabs(check_bits_to_double(c->out_dtype, e) -
                         check_bits_to_double(c->out_dtype, got[j])) <= c->tol);
        if (bad) {
            char es[64], gs[64];
            check_format_bits(c->out_dtype, e, es, sizeof es);
            check_format_bits(c->out_dtype, got[j], gs, sizeof gs);
            print_message("%s: element %lld: NumPy %s, loom %s (tolerance %g)\n", what,
                          (long long)j, es, gs, c->tol);
        }
    }
    free(got);
    return bad;
}

static void test_matmul_numpy_tables(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int bad = 0;
    for (size_t i = 0; i < sizeof np_mm_cases / sizeof np_mm_cases[0]; i++) {
        loom_scope_begin(ctx);
        bad += check_case(ctx, i);
        loom_scope_end(ctx);
    }
    loom_ctx_destroy(ctx);
    assert_int_equal(bad, 0);
}

/* NumPy raises for matmul with a Python number (a 0-d operand); dot multiplies by it, with the
 * number as a strong int64/float64 (np.dot(2, int8 array) is int64). */
static void test_matmul_scalars(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t n = 3;
    int8_t x[3] = {1, 2, 3};
    loom_array_t *a = loom_from_host(ctx, LOOM_DTYPE_I8, 1, &n, x);
    assert_true(loom_array_is_nil(loom_matmul(ctx, a, loom_weak_float(ctx, 2.0))));
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_SHAPE_MISMATCH);
    assert_non_null(
        strstr(loom_ctx_message(ctx), "Input operand 1 does not have enough dimensions"));
    loom_ctx_clear_error(ctx);
    assert_true(loom_array_is_nil(loom_matmul(ctx, loom_weak_int(ctx, 2), a)));
    assert_non_null(
        strstr(loom_ctx_message(ctx), "Input operand 0 does not have enough dimensions"));
    loom_ctx_clear_error(ctx);
    loom_array_t *d = loom_dot(ctx, loom_weak_int(ctx, 2), a);
    assert_int_equal(loom_array_dtype(d), LOOM_DTYPE_I64);
    int64_t y[3];
    assert_int_equal(loom_read(ctx, d, y, sizeof y), LOOM_STATUS_OK);
    assert_true(y[0] == 2 && y[1] == 4 && y[2] == 6);
    assert_int_equal(loom_array_dtype(loom_dot(ctx, a, loom_weak_float(ctx, 0.5))), LOOM_DTYPE_F64);
    /* nil in, nil out; the first error is kept */
    assert_true(loom_array_is_nil(loom_tensordot(ctx, a, a, -1)));
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_INVALID_ARGUMENT);
    assert_true(loom_array_is_nil(loom_matmul(ctx, &*loom_tensordot(ctx, a, a, -1), a)));
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_INVALID_ARGUMENT);
    loom_ctx_destroy(ctx);
}

/* A product whose result would have more elements than loom allows is an OVERFLOW error, its
 * operands lazy and within bounds (planning it once overflowed int64 computing its strides). */
static void test_matmul_result_too_large(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t big = INT64_C(1) << 40, col[2] = {big, 1}, row[2] = {1, big};
    loom_array_t *v = loom_zeros(ctx, LOOM_DTYPE_F32, 1, &big);
    loom_array_t *c = loom_zeros(ctx, LOOM_DTYPE_F32, 2, col);
    loom_array_t *r = loom_zeros(ctx, LOOM_DTYPE_F32, 2, row);
    for (int i = 0; i < 3; i++) {
        loom_array_t *p = i == 0   ? loom_tensordot(ctx, v, v, 0)
                          : i == 1 ? loom_matmul(ctx, c, r)
                                   : loom_dot(ctx, c, r);
        assert_true(loom_array_is_nil(p));
        assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_OVERFLOW);
        assert_non_null(strstr(loom_ctx_message(ctx), "too many elements"));
        loom_ctx_clear_error(ctx);
    }
    loom_ctx_destroy(ctx);
}

/* A contraction with an empty axis is an empty sum, whatever its other contracted axes: zero at
 * once. The reference product looped over the outer contracted axes doing nothing when only
 * the innermost was empty (axes of 2**31 and 5 over an empty one: 10**10 idle steps, about
 * half an hour under the fuzzing build's sanitizers). */
static void test_matmul_empty_contraction(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t one[3] = {1, 1, 0}, wide[3] = {INT64_C(1) << 31, 5, 0};
    loom_array_t *x = loom_broadcast_to(ctx, loom_ones(ctx, LOOM_DTYPE_I8, 3, one), 3, wide);
    int8_t got = 1;
    assert_int_equal(loom_read(ctx, loom_tensordot(ctx, x, x, 3), &got, 1), LOOM_STATUS_OK);
    assert_int_equal(got, 0);
    int64_t rows[3] = {3, INT64_C(1) << 31, 0}, cols[3] = {INT64_C(1) << 31, 0, 2};
    loom_array_t *a = loom_broadcast_to(ctx, loom_ones(ctx, LOOM_DTYPE_F32, 3, one), 3, rows);
    loom_array_t *b =
        loom_broadcast_to(ctx, loom_ones(ctx, LOOM_DTYPE_F32, 3, (int64_t[]){1, 0, 1}), 3, cols);
    float r[6] = {1, 1, 1, 1, 1, 1};
    assert_int_equal(loom_read(ctx, loom_tensordot(ctx, a, b, 2), r, sizeof r), LOOM_STATUS_OK);
    for (int i = 0; i < 6; i++) assert_true(r[i] == 0);
    loom_ctx_destroy(ctx);
}

/* relu(a @ b + bias) evaluated as one graph equals the same steps evaluated one by one, and a
 * double-precision loop (small integer values: exact). */
static void test_matmul_fused_consumers(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    enum { M = 37, K = 70, N = 29 };
    static float a[M * K], b[K * N], bias[N], fused[M * N], steps[M * N];
    for (int i = 0; i < M * K; i++) a[i] = (float)(i * 7 % 11) - 5;
    for (int i = 0; i < K * N; i++) b[i] = (float)(i * 5 % 9) - 4;
    for (int i = 0; i < N; i++) bias[i] = (float)(i % 13) * 3 - 20;
    int64_t sa[2] = {M, K}, sb[2] = {K, N}, sn = N;
    loom_array_t *A = loom_from_host(ctx, LOOM_DTYPE_F32, 2, sa, a);
    loom_array_t *B = loom_from_host(ctx, LOOM_DTYPE_F32, 2, sb, b);
    loom_array_t *bias_a = loom_from_host(ctx, LOOM_DTYPE_F32, 1, &sn, bias);
    loom_array_t *y = loom_maximum_f(ctx, loom_add(ctx, loom_matmul(ctx, A, B), bias_a), 0);
    assert_int_equal(loom_read(ctx, y, fused, sizeof fused), LOOM_STATUS_OK);
    loom_array_t *p = loom_matmul(ctx, A, B);
    assert_int_equal(loom_eval(ctx, 1, &p), LOOM_STATUS_OK);
    loom_array_t *q = loom_add(ctx, p, bias_a);
    assert_int_equal(loom_eval(ctx, 1, &q), LOOM_STATUS_OK);
    assert_int_equal(loom_read(ctx, loom_maximum_f(ctx, q, 0), steps, sizeof steps),
                     LOOM_STATUS_OK);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = 0;
            for (int k = 0; k < K; k++) s += (double)a[i * K + k] * b[k * N + j];
            s += bias[j];
            assert_true(fused[i * N + j] == steps[i * N + j]);
            assert_true(fused[i * N + j] == (float)(s > 0 ? s : 0));
        }
    loom_ctx_destroy(ctx);
}

/* The kernel reads operands through any strides: a transposed, b reversed along k, and a
 * batch axis broadcast with stride 0; checked against a naive loop, for float32 and int16. */
static void test_matmul_strided_operands(void **state) {
    (void)state;
    enum { BATCH = 3, M = 70, K = 300, N = 260 };
    float *at = malloc(sizeof(float) * K * M); /* a stored transposed: at[k][m] */
    float *bs = malloc(sizeof(float) * BATCH * K * N);
    float *out = malloc(sizeof(float) * BATCH * M * N);
    int16_t *ai = malloc(sizeof(int16_t) * K * M), *bi = malloc(sizeof(int16_t) * BATCH * K * N),
            *oi = malloc(sizeof(int16_t) * BATCH * M * N);
    assert_true(at && bs && out && ai && bi && oi);
    for (int i = 0; i < K * M; i++) {
        at[i] = (float)(i % 7) - 3;
        ai[i] = (int16_t)(i * 31 % 2001 - 1000);
    }
    for (int i = 0; i < BATCH * K * N; i++) {
        bs[i] = (float)(i % 5) - 2;
        bi[i] = (int16_t)(i * 17 % 1999 - 999);
    }
    for (int t = 0; t < 2; t++) {
        loom_dtype_t d = t ? LOOM_DTYPE_I16 : LOOM_DTYPE_F32;
        ir_node_t an = {0}, bn = {0}, n = {0};
        an.dtype = bn.dtype = n.dtype = (uint8_t)d;
        an.ndim = 3, an.shape[0] = 1, an.shape[1] = M, an.shape[2] = K;
        bn.ndim = 3, bn.shape[0] = BATCH, bn.shape[1] = K, bn.shape[2] = N;
        n.op = IR_OP_MATMUL, n.ndim = 3, n.shape[0] = BATCH, n.shape[1] = M, n.shape[2] = N;
        int64_t ast[3] = {12345, 1, M};  /* transposed; batch broadcast */
        int64_t bst[3] = {K * N, -N, 1}; /* k reversed */
        const char *bbase = t ? (const char *)(bi + (K - 1) * N) : (const char *)(bs + (K - 1) * N);
        base_alloc_t al = {.fail_after = -1};
        const void *ab = t ? (const void *)ai : (const void *)at;
        void *ob = t ? (void *)oi : (void *)out;
        assert_true(ir_ref_matmul(&n, &an, ab, ast, &bn, bbase, bst, ob, &al));
        for (int p = 0; p < BATCH; p++)
            for (int i = 0; i < M; i++)
                for (int j = 0; j < N; j += 7) {
                    double s = 0;
                    uint64_t si = 0;
                    for (int k = 0; k < K; k++) {
                        size_t bk = (size_t)p * K * N + (size_t)(K - 1 - k) * N + (size_t)j;
                        s += (double)at[k * M + i] * bs[bk];
                        si += (uint64_t)(int64_t)ai[k * M + i] * (uint64_t)(int64_t)bi[bk];
                    }
                    size_t o = ((size_t)p * M + (size_t)i) * N + (size_t)j;
                    if (t)
                        assert_int_equal(oi[o], (int16_t)(uint16_t)si);
                    else
                        assert_true(out[o] == (float)s);
                }
    }
    free(at), free(bs), free(out), free(ai), free(bi), free(oi);
}

/* Views from the public API feed the product without copies: transpose(A)[:, ::-2] @ B[::-2]
 * (strides (1, -2M) and (-2N, 1)) against a naive loop on small integer values (exact). */
static void test_matmul_views(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    enum { K = 9, M = 6, N = 5, T = 5 }; /* T = the 5 contracted indices */
    float a[K * M], b[2 * T * N], c[M * N];
    for (int i = 0; i < K * M; i++) a[i] = (float)(i % 7) - 3;
    for (int i = 0; i < 2 * T * N; i++) b[i] = (float)(i % 5) - 2;
    int64_t sa[2] = {K, M}, sb[2] = {2 * T, N};
    loom_array_t *A = loom_from_host(ctx, LOOM_DTYPE_F32, 2, sa, a);
    loom_array_t *B = loom_from_host(ctx, LOOM_DTYPE_F32, 2, sb, b);
    int64_t none2[2] = {LOOM_NONE, LOOM_NONE}, step_a[2] = {1, -2}, step_b[1] = {-2};
    loom_array_t *av = loom_slice(ctx, loom_transpose(ctx, A, 2, NULL), 2, none2, none2, step_a);
    loom_array_t *bv = loom_slice(ctx, B, 1, none2, none2, step_b);
    loom_array_t *r = loom_matmul(ctx, av, bv);
    if (loom_read(ctx, r, c, sizeof c) != LOOM_STATUS_OK) fail_msg("%s", loom_ctx_message(ctx));
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float s = 0;
            for (int t = 0; t < T; t++)
                s += a[(K - 1 - 2 * t) * M + i] * b[(2 * T - 1 - 2 * t) * N + j];
            assert_true(c[i * N + j] == s);
        }
    loom_ctx_destroy(ctx);
}

static void test_matmul_dump(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t s3[3] = {2, 3, 4}, s3b[3] = {5, 4, 6};
    loom_array_t *a = loom_zeros(ctx, LOOM_DTYPE_F32, 3, s3);
    loom_array_t *b = loom_ones(ctx, LOOM_DTYPE_F16, 3, s3b);
    loom_array_t *r[2] = {loom_dot(ctx, a, b), loom_tensordot(ctx, a, a, 3)};
    char buf[2048];
    assert_true(loom_dump_ir(ctx, 2, r, buf, sizeof buf) > 0);
    assert_non_null(strstr(buf, "matmul float32(2, 3, 5, 6)"));
    assert_non_null(strstr(buf, " dot\n"));
    assert_non_null(strstr(buf, "matmul float32() %0 %0 tensordot=3\n"));
    assert_int_equal(loom_eval(ctx, 2, r), LOOM_STATUS_OK);
    loom_ctx_destroy(ctx);
}

/* 512 x 512 float32 in well under a second (reported; the bound is loose for sanitizers). */
static void test_matmul_speed(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t s[2] = {512, 512};
    loom_array_t *a = loom_random_uniform(ctx, 1, LOOM_DTYPE_F32, 2, s, -1, 1);
    loom_array_t *b = loom_random_uniform(ctx, 2, LOOM_DTYPE_F32, 2, s, -1, 1);
    loom_array_t *in[2] = {a, b};
    assert_int_equal(loom_eval(ctx, 2, in), LOOM_STATUS_OK);
    loom_array_t *c = loom_matmul(ctx, a, b);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(loom_eval(ctx, 1, &c), LOOM_STATUS_OK);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    print_message("512x512x512 float32 on the reference device: %.1f ms (%.2f GFLOP/s)\n", ms,
                  2.0 * 512 * 512 * 512 / (ms * 1e6));
    assert_true(ms < 10000);
    loom_ctx_destroy(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matmul_numpy_tables),
        cmocka_unit_test(test_matmul_scalars),
        cmocka_unit_test(test_matmul_result_too_large),
        cmocka_unit_test(test_matmul_empty_contraction),
        cmocka_unit_test(test_matmul_fused_consumers),
        cmocka_unit_test(test_matmul_strided_operands),
        cmocka_unit_test(test_matmul_views),
        cmocka_unit_test(test_matmul_dump),
        cmocka_unit_test(test_matmul_speed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
