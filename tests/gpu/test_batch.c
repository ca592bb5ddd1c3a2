/* test_batch (gpu) — horizontal batching: many small results of the same expression over
 * different same-shaped host inputs, evaluated together, run as one upload, one kernel and
 * (read back with loom_read_many) one download; results are exact. When the batch's
 * conditions fail on a later eval (different scalars, inputs not one stride apart) the eval
 * still gives the right values, through a schedule without the batch. Exit 77 without a GPU. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "loom.h"

#define IMAGES 1000
#define PIX (32 * 32)

static loom_stats_t stats(loom_ctx_t *ctx) {
    loom_stats_t s;
    loom_ctx_stats(ctx, &s);
    return s;
}

/* Uploads IMAGES host images, computes x * a + b on each, reads all back; checks values. */
static void round_trip(loom_ctx_t *ctx, const float *in, float *out, double a, double b,
                       loom_stats_t *delta) {
    int64_t shape[2] = {32, 32};
    loom_array_t **y = malloc(IMAGES * sizeof *y);
    void **dst = malloc(IMAGES * sizeof *dst);
    size_t *bytes = malloc(IMAGES * sizeof *bytes);
    loom_stats_t s0 = stats(ctx);
    loom_scope_begin(ctx);
    for (int i = 0; i < IMAGES; i++) {
        loom_array_t *x = loom_from_host(ctx, LOOM_DTYPE_F32, 2, shape, in + (size_t)i * PIX);
        y[i] = loom_add_f(ctx, loom_multiply_f(ctx, x, a), b);
        dst[i] = out + (size_t)i * PIX;
        bytes[i] = PIX * sizeof(float);
    }
    assert_int_equal(loom_read_many(ctx, IMAGES, y, dst, bytes), LOOM_STATUS_OK);
    loom_scope_end(ctx);
    loom_stats_t s1 = stats(ctx);
    delta->kernels_launched = s1.kernels_launched - s0.kernels_launched;
    delta->h2d_copies = s1.h2d_copies - s0.h2d_copies;
    delta->d2h_copies = s1.d2h_copies - s0.d2h_copies;
    for (size_t k = 0; k < (size_t)IMAGES * PIX; k++)
        if (out[k] != (float)((float)(in[k] * (float)a) + (float)b)) {
            fprintf(stderr, "element %zu: %g, expected %g\n", k, out[k],
                    (float)((float)(in[k] * (float)a) + (float)b));
            fail();
        }
    free(y);
    free(dst);
    free(bytes);
}

static void test_batch_images(void **state) {
    (void)state;
    loom_options_t o = {.device = LOOM_DEVICE_CUDA};
    loom_ctx_t *ctx = NULL;
    assert_int_equal(loom_ctx_create(&o, &ctx), LOOM_STATUS_OK);
    float *in = malloc((size_t)IMAGES * PIX * sizeof *in);
    float *out = malloc((size_t)IMAGES * PIX * sizeof *out);
    for (size_t k = 0; k < (size_t)IMAGES * PIX; k++) in[k] = (float)(k % 251) / 250.0f;
    loom_stats_t d;
    round_trip(ctx, in, out, 2.0, 1.0, &d);
    fprintf(stderr, "batched: %llu kernels, %llu h2d, %llu d2h copies\n",
            (unsigned long long)d.kernels_launched, (unsigned long long)d.h2d_copies,
            (unsigned long long)d.d2h_copies);
    assert_int_equal(d.kernels_launched, 1);
    assert_int_equal(d.h2d_copies, 1);
    assert_int_equal(d.d2h_copies, 1);
    round_trip(ctx, in, out, 2.0, 1.0, &d); /* the same again: the cached schedule */
    assert_int_equal(d.kernels_launched, 1);
    round_trip(ctx, in, out, 3.0, -1.0, &d); /* new scalars, all alike: still one kernel */
    assert_int_equal(d.kernels_launched, 1);
    loom_ctx_destroy(ctx);
    free(in);
    free(out);
}

/* Members whose scalars differ, or whose inputs do not lie one stride apart, are computed
 * right (without the batch). */
static void test_batch_conditions_fail_safely(void **state) {
    (void)state;
    loom_options_t o = {.device = LOOM_DEVICE_CUDA};
    loom_ctx_t *ctx = NULL;
    assert_int_equal(loom_ctx_create(&o, &ctx), LOOM_STATUS_OK);
    enum { N = 16 };
    int64_t n = 1000;
    float in[N][1000], out[N][1000];
    for (int i = 0; i < N; i++)
        for (int k = 0; k < 1000; k++) in[i][k] = (float)(i * 1000 + k);
    for (int round = 0; round < 3; round++) {
        loom_scope_begin(ctx);
        loom_array_t *x[N], *y[N];
        void *dst[N];
        size_t bytes[N];
        for (int i = 0; i < N; i++) {
            x[i] = loom_from_host(ctx, LOOM_DTYPE_F32, 1, &n, in[i]);
            if (round == 2) loom_eval(ctx, 1, &x[i]); /* inputs now separate allocations */
        }
        for (int i = 0; i < N; i++) {
            /* round 1: one member's scalar differs, after a schedule batched round 0 */
            double a = (round == 1 && i == 7) ? 5.0 : 2.0;
            y[i] = loom_multiply_f(ctx, x[round == 2 ? N - 1 - i : i], a);
            dst[i] = out[i];
            bytes[i] = sizeof out[i];
        }
        assert_int_equal(loom_read_many(ctx, N, y, dst, bytes), LOOM_STATUS_OK);
        for (int i = 0; i < N; i++) {
            double a = (round == 1 && i == 7) ? 5.0 : 2.0;
            int src = round == 2 ? N - 1 - i : i;
            for (int k = 0; k < 1000; k++) assert_true(out[i][k] == (float)(in[src][k] * (float)a));
        }
        loom_scope_end(ctx);
    }
    loom_ctx_destroy(ctx);
}

/* Separate factorisations built in a loop, evaluated together: one step over their stack
 * (run as 1000 solves of 8 x 8 systems, each from its own host arrays); the values are the
 * CPU reference device's (within float32 rounding: LAPACK and the GPU's kernel order their
 * operations differently). A singular member fails the eval as that call alone would, with
 * the reference device's message; the context goes on. */
#define SOLVES 1000
typedef loom_array_t *(*factor_fn)(loom_ctx_t *, loom_array_t *, loom_array_t *);

static loom_array_t *solve2(loom_ctx_t *c, loom_array_t *a, loom_array_t *b) {
    return loom_solve(c, a, b);
}
static loom_array_t *cholesky1(loom_ctx_t *c, loom_array_t *a, loom_array_t *b) {
    (void)b;
    return loom_cholesky(c, a, 0);
}

/* Each member's result (rlen floats) into out; the eval's status; its kernels in *kernels. */
static loom_status_t run_members(loom_ctx_t *ctx, factor_fn f, float (*a)[8][8], float (*b)[8],
                                 float *out, size_t rlen, uint64_t *kernels) {
    int64_t sa[2] = {8, 8}, sb = 8;
    loom_array_t **x = malloc(SOLVES * sizeof *x);
    void **dst = malloc(SOLVES * sizeof *dst);
    size_t *bytes = malloc(SOLVES * sizeof *bytes);
    loom_stats_t s0 = stats(ctx);
    loom_scope_begin(ctx);
    for (int i = 0; i < SOLVES; i++) {
        x[i] = f(ctx, loom_from_host(ctx, LOOM_DTYPE_F32, 2, sa, a[i]),
                 loom_from_host(ctx, LOOM_DTYPE_F32, 1, &sb, b[i]));
        dst[i] = out + (size_t)i * rlen;
        bytes[i] = rlen * sizeof(float);
    }
    loom_status_t st = loom_read_many(ctx, SOLVES, x, dst, bytes);
    loom_scope_end(ctx);
    if (kernels) *kernels = stats(ctx).kernels_launched - s0.kernels_launched;
    free(x);
    free(dst);
    free(bytes);
    return st;
}

static void test_batch_separate_factorisations(void **state) {
    (void)state;
    loom_options_t og = {.device = LOOM_DEVICE_CUDA}, oc = {.device = LOOM_DEVICE_CPU};
    loom_ctx_t *gpu = NULL, *cpu = NULL;
    assert_int_equal(loom_ctx_create(&og, &gpu), LOOM_STATUS_OK);
    assert_int_equal(loom_ctx_create(&oc, &cpu), LOOM_STATUS_OK);
    float(*a)[8][8] = malloc(SOLVES * sizeof *a);
    float(*b)[8] = malloc(SOLVES * sizeof *b);
    float *rg = malloc(SOLVES * 64 * sizeof *rg), *rc = malloc(SOLVES * 64 * sizeof *rc);
    unsigned seed = 7;
    for (int i = 0; i < SOLVES; i++)
        for (int r = 0; r < 8; r++) {
            for (int c = 0; c < 8; c++) {
                seed = seed * 1103515245u + 12345u;
                a[i][r][c] = (float)((seed >> 9) % 1000) / 1000.0f - 0.5f;
            }
            b[i][r] = (float)(r - i % 5);
        }
    for (int i = 0; i < SOLVES; i++) /* symmetric, diagonally dominant: Cholesky factors it */
        for (int r = 0; r < 8; r++) {
            for (int c = 0; c < r; c++) a[i][r][c] = a[i][c][r];
            a[i][r][r] = 8.0f + (float)(i % 3);
        }
    struct {
        factor_fn f;
        size_t rlen;
        const char *name;
    } cases[2] = {{solve2, 8, "solve"}, {cholesky1, 64, "cholesky"}};
    for (int c = 0; c < 2; c++) {
        uint64_t kernels = 0;
        assert_int_equal(run_members(gpu, cases[c].f, a, b, rg, cases[c].rlen, &kernels),
                         LOOM_STATUS_OK);
        assert_int_equal(run_members(cpu, cases[c].f, a, b, rc, cases[c].rlen, NULL),
                         LOOM_STATUS_OK);
        fprintf(stderr, "%d separate %s calls: %llu kernels\n", SOLVES, cases[c].name,
                (unsigned long long)kernels);
        /* each operand gathered, the factorisation, its info check; Cholesky's results are
         * masked copies (16 results a kernel) */
        assert_true(kernels <= (c == 0 ? 4u : 3u + SOLVES / 16 + 1));
        double worst = 0;
        for (size_t k = 0; k < SOLVES * cases[c].rlen; k++) {
            double d = fabs((double)rg[k] - (double)rc[k]) / (1.0 + fabs((double)rc[k]));
            worst = d > worst ? d : worst;
        }
        fprintf(stderr, "  largest difference from the CPU device: %.3g\n", worst);
        assert_true(worst < 1e-5);
    }
    /* member 617 singular for solve: row 2 all zeros, which every elimination order keeps
     * exactly zero (two equal rows did not: an H100's batched LU left a pivot of rounding
     * size where LAPACK's was 0) */
    memset(a[617][2], 0, sizeof a[617][2]);
    assert_int_equal(run_members(gpu, solve2, a, b, rg, 8, NULL), LOOM_STATUS_LINALG_ERROR);
    char msg[256];
    snprintf(msg, sizeof msg, "%s", loom_ctx_message(gpu));
    assert_int_equal(run_members(cpu, solve2, a, b, rc, 8, NULL), LOOM_STATUS_LINALG_ERROR);
    fprintf(stderr, "singular member: %s\n", msg);
    /* the same text up to the info word (the column LAPACK's recursive LU and the GPU's
     * kernel find the zero pivot in may differ) */
    const char *info = strstr(msg, " (info");
    assert_non_null(info);
    assert_int_equal(strncmp(msg, loom_ctx_message(cpu), (size_t)(info - msg)), 0);
    loom_ctx_clear_error(gpu);
    memcpy(a[617], a[616], sizeof a[617]);
    assert_int_equal(run_members(gpu, solve2, a, b, rg, 8, NULL), LOOM_STATUS_OK);
    loom_ctx_destroy(gpu);
    loom_ctx_destroy(cpu);
    free(a);
    free(b);
    free(rg);
    free(rc);
}

int main(void) {
    loom_ctx_t *probe = NULL;
    loom_options_t o = {.device = LOOM_DEVICE_CUDA};
    if (loom_ctx_create(&o, &probe) != LOOM_STATUS_OK) return 77;
    loom_ctx_destroy(probe);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batch_images),
        cmocka_unit_test(test_batch_conditions_fail_safely),
        cmocka_unit_test(test_batch_separate_factorisations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
