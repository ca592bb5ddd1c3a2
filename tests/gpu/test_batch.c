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

int main(void) {
    loom_ctx_t *probe = NULL;
    loom_options_t o = {.device = LOOM_DEVICE_CUDA};
    if (loom_ctx_create(&o, &probe) != LOOM_STATUS_OK) return 77;
    loom_ctx_destroy(probe);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batch_images),
        cmocka_unit_test(test_batch_conditions_fail_safely),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
