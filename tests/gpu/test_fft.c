/* test_fft (gpu) — numpy.fft on the CUDA device (cuFFT) against the CPU device (a double
 * reference FFT): complex64 and complex128 lines of many lengths (powers of two, smooth,
 * prime, 2^20) in one context, so that its kept plans are replaced; every axis of a 3-D array
 * (cuFFT's three layouts); and the fusion around the call: x * 2 + 1 before and |.|^2 after
 * are one kernel each; real transforms (R2C, C2R) and rank-2 plans. Errors within
 * 16 eps log2(n) of the largest magnitude. Exit 77 without a GPU. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "loom.h"

typedef struct {
    loom_ctx_t *gpu, *cpu;
} ctxs_t;

static int setup(void **state) {
    ctxs_t *c = calloc(1, sizeof *c);
    loom_options_t g = {.device = LOOM_DEVICE_CUDA}, h = {.device = LOOM_DEVICE_CPU};
    if (!c || loom_ctx_create(&g, &c->gpu) != LOOM_STATUS_OK ||
        loom_ctx_create(&h, &c->cpu) != LOOM_STATUS_OK)
        return -1;
    *state = c;
    return 0;
}

static int teardown(void **state) {
    ctxs_t *c = *state;
    loom_ctx_destroy(c->gpu);
    loom_ctx_destroy(c->cpu);
    free(c);
    return 0;
}

/* Deterministic values in [-1, 1). */
static double value(size_t k, unsigned seed) {
    uint64_t x = (k + 1) * 0x9E3779B97F4A7C15ull ^ (uint64_t)seed * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 31;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 29;
    return (double)(x >> 11) / 4503599627370496.0 - 1.0;
}

/* fn over the same complex data (dtype c64 or c128, ndim/shape) on both devices, along axis;
 * the results compared as complex128. */
typedef loom_array_t *fft_fn(loom_ctx_t *, loom_array_t *, int64_t, int32_t, loom_fft_norm_t);

static void compare(ctxs_t *c, fft_fn *fn, loom_dtype_t dtype, int ndim, const int64_t *shape,
                    int axis, unsigned seed) {
    size_t n = 1;
    for (int i = 0; i < ndim; i++) n *= (size_t)shape[i];
    double complex *data = malloc(n * sizeof *data), *got = malloc(n * sizeof *got),
                   *want = malloc(n * sizeof *want);
    float complex *data32 = malloc(n * sizeof *data32);
    for (size_t k = 0; k < n; k++) {
        data[k] = value(2 * k, seed) + I * value(2 * k + 1, seed);
        data32[k] = (float complex)data[k];
    }
    const void *src = dtype == LOOM_DTYPE_C64 ? (const void *)data32 : (const void *)data;
    loom_ctx_t *ctx[2] = {c->gpu, c->cpu};
    double complex *out[2] = {got, want};
    for (int d = 0; d < 2; d++) {
        loom_scope_begin(ctx[d]);
        loom_array_t *x = loom_from_host(ctx[d], dtype, ndim, shape, src);
        loom_array_t *y = loom_astype(ctx[d], fn(ctx[d], x, LOOM_NONE, axis, LOOM_FFT_BACKWARD),
                                      LOOM_DTYPE_C128);
        loom_status_t st = loom_read(ctx[d], y, out[d], n * sizeof *got);
        if (st != LOOM_STATUS_OK) fprintf(stderr, "%s\n", loom_ctx_message(ctx[d]));
        assert_int_equal(st, LOOM_STATUS_OK);
        loom_scope_end(ctx[d]);
    }
    double big = 0, worst = 0;
    size_t at = 0;
    for (size_t k = 0; k < n; k++) big = fmax(big, cabs(want[k]));
    for (size_t k = 0; k < n; k++)
        if (cabs(got[k] - want[k]) > worst) worst = cabs(got[k] - want[k]), at = k;
    double eps = dtype == LOOM_DTYPE_C64 ? 1.1920928955078125e-07 : 2.220446049250313e-16;
    double tol = 16 * eps * fmax(1.0, log2((double)shape[axis])) * (big > 0 ? big : 1);
    if (worst > tol) {
        fprintf(stderr, "%s n=%lld axis %d: element %zu differs by %.3g (tolerance %.3g)\n",
                dtype == LOOM_DTYPE_C64 ? "complex64" : "complex128", (long long)shape[axis],
                axis, at, worst, tol);
        fail();
    }
    free(data);
    free(data32);
    free(got);
    free(want);
}

/* More lengths than the context keeps plans for, both directions and dtypes. */
static void test_lengths(void **state) {
    static const int64_t lens[] = {1,  2,   3,   5,   8,    12,   16,   17,   64,      97,
                                   100, 127, 243, 360, 1000, 1024, 4096, 4099, 1 << 20, 30030};
    for (size_t i = 0; i < sizeof lens / sizeof *lens; i++)
        for (int d = 0; d < 2; d++) {
            int64_t shape[2] = {3, lens[i]};
            loom_dtype_t dt = d ? LOOM_DTYPE_C128 : LOOM_DTYPE_C64;
            compare(*state, (i & 1) ? loom_ifft : loom_fft, dt, 2, shape, 1, (unsigned)i);
        }
}

/* Every axis of 3-D arrays whose outer and inner extents order both ways. */
static void test_axes(void **state) {
    static const int64_t shapes[][3] = {{6, 40, 3}, {2, 40, 9}, {33, 7, 50}, {1, 256, 1}};
    for (int s = 0; s < 4; s++)
        for (int ax = 0; ax < 3; ax++)
            for (int d = 0; d < 2; d++)
                compare(*state, ax == 1 ? loom_ifft : loom_fft,
                        d ? LOOM_DTYPE_C128 : LOOM_DTYPE_C64, 3, shapes[s], ax,
                        (unsigned)(s * 3 + ax));
}

/* |fft(x * 2 + 1)|^2 of a float32 host array: one kernel writes the transform's complex64
 * operand, one reads its result; and ifft(fft(x)) gives x back. */
static void test_fused(void **state) {
    ctxs_t *c = *state;
    enum { N = 1 << 16 };
    float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    for (int k = 0; k < N; k++) x[k] = (float)value((size_t)k, 7);
    int64_t shape[1] = {N};
    loom_scope_begin(c->gpu);
    loom_array_t *a = loom_from_host(c->gpu, LOOM_DTYPE_F32, 1, shape, x);
    loom_array_t *f = loom_fft(c->gpu, loom_add_f(c->gpu, loom_multiply_f(c->gpu, a, 2), 1),
                               LOOM_NONE, 0, LOOM_FFT_BACKWARD);
    loom_array_t *p = loom_real(c->gpu, loom_multiply(c->gpu, f, loom_conj(c->gpu, f)));
    loom_stats_t s0, s1;
    loom_ctx_stats(c->gpu, &s0);
    assert_int_equal(loom_read(c->gpu, p, y, N * sizeof *y), LOOM_STATUS_OK);
    loom_ctx_stats(c->gpu, &s1);
    assert_int_equal(s1.kernels_launched - s0.kernels_launched, 2);
    double dc = 0; /* the zero-frequency term: (sum of 2x + 1)^2 */
    for (int k = 0; k < N; k++) dc += 2.0 * x[k] + 1.0;
    assert_true(fabs(y[0] - dc * dc) <= 1e-4 * dc * dc);
    loom_array_t *back = loom_real(c->gpu, loom_ifft(c->gpu, loom_fft(c->gpu, a, LOOM_NONE, 0,
                                                                      LOOM_FFT_BACKWARD),
                                                     LOOM_NONE, 0, LOOM_FFT_BACKWARD));
    assert_int_equal(loom_read(c->gpu, back, y, N * sizeof *y), LOOM_STATUS_OK);
    for (int k = 0; k < N; k++) assert_true(fabsf(y[k] - x[k]) <= 1e-5f);
    loom_scope_end(c->gpu);
    free(x);
    free(y);
}

/* The filter irfft(rfft(x) * h) of a float32 host array through R2C and C2R: the product, the
 * norm and C2R's clean-up of X[0] and X[n / 2] are one kernel, nothing after the call; the
 * result agrees with the CPU device; a realised spectrum survives C2R (which overwrites its
 * input) and a second transform of it gives the same bits. Then rfft2 / irfft2 of a 2-D
 * array (a rank-2 R2C plan; C2C over the rows and a C2R back) against the CPU device. */
static loom_array_t *filtered(loom_ctx_t *ctx, const float *x, const float *h, int64_t n) {
    int64_t shape[1] = {n}, hshape[1] = {n / 2 + 1};
    loom_array_t *a = loom_from_host(ctx, LOOM_DTYPE_F32, 1, shape, x);
    loom_array_t *g = loom_from_host(ctx, LOOM_DTYPE_F32, 1, hshape, h);
    loom_array_t *f = loom_rfft(ctx, a, LOOM_NONE, 0, LOOM_FFT_BACKWARD);
    return loom_irfft(ctx, loom_multiply(ctx, f, g), n, 0, LOOM_FFT_BACKWARD);
}

static void test_real(void **state) {
    ctxs_t *c = *state;
    enum { N = (1 << 18) + 6 };
    float *x = malloc(N * sizeof *x), *h = malloc(N * sizeof *h), *y = malloc(N * sizeof *y),
          *w = malloc(N * sizeof *w);
    for (int k = 0; k < N; k++) x[k] = (float)value((size_t)k, 3), h[k] = 1.0f / (1.0f + k);
    loom_scope_begin(c->gpu);
    loom_scope_begin(c->cpu);
    loom_array_t *gy = filtered(c->gpu, x, h, N);
    loom_stats_t s0, s1;
    loom_ctx_stats(c->gpu, &s0);
    assert_int_equal(loom_read(c->gpu, gy, y, N * sizeof *y), LOOM_STATUS_OK);
    loom_ctx_stats(c->gpu, &s1);
    assert_int_equal(s1.kernels_launched - s0.kernels_launched, 1);
    assert_int_equal(loom_read(c->cpu, filtered(c->cpu, x, h, N), w, N * sizeof *w),
                     LOOM_STATUS_OK);
    double big = 0, err = 0;
    for (int k = 0; k < N; k++) {
        big = fmax(big, fabs(w[k]));
        err = fmax(err, fabs((double)y[k] - w[k]));
    }
    assert_true(err <= 16 * 1.2e-7 * 19 * fmax(big, 1.0));
    /* a realised spectrum, transformed twice */
    int64_t shape[1] = {N};
    loom_array_t *z = loom_rfft(c->gpu, loom_from_host(c->gpu, LOOM_DTYPE_F32, 1, shape, x),
                                LOOM_NONE, 0, LOOM_FFT_BACKWARD);
    assert_int_equal(loom_eval(c->gpu, 1, &z), LOOM_STATUS_OK);
    float complex *z0 = malloc((N / 2 + 1) * sizeof *z0), *z1 = malloc((N / 2 + 1) * sizeof *z1);
    assert_int_equal(loom_read(c->gpu, z, z0, (N / 2 + 1) * sizeof *z0), LOOM_STATUS_OK);
    assert_int_equal(loom_read(c->gpu, loom_irfft(c->gpu, z, N, 0, LOOM_FFT_BACKWARD), y,
                               N * sizeof *y),
                     LOOM_STATUS_OK);
    assert_int_equal(loom_read(c->gpu, loom_irfft(c->gpu, z, N, 0, LOOM_FFT_BACKWARD), w,
                               N * sizeof *w),
                     LOOM_STATUS_OK);
    assert_memory_equal(y, w, N * sizeof *y);
    assert_int_equal(loom_read(c->gpu, z, z1, (N / 2 + 1) * sizeof *z1), LOOM_STATUS_OK);
    assert_memory_equal(z0, z1, (N / 2 + 1) * sizeof *z0);
    for (int k = 0; k < N; k++) assert_true(fabsf(y[k] - x[k]) <= 1e-5f);
    /* 2-D real transforms, both dtypes */
    for (int d = 0; d < 2; d++) {
        int64_t s2[2] = {300, 514};
        loom_dtype_t dt = d ? LOOM_DTYPE_F64 : LOOM_DTYPE_F32;
        double r[2][3];
        for (int dev = 0; dev < 2; dev++) {
            loom_ctx_t *ctx = dev ? c->cpu : c->gpu;
            loom_array_t *a = loom_astype(ctx, loom_from_host(ctx, LOOM_DTYPE_F32, 2, s2, x), dt);
            loom_array_t *f = loom_rfftn(ctx, a, 2, NULL, NULL, LOOM_FFT_BACKWARD);
            loom_array_t *back = loom_irfftn(ctx, f, 2, s2, NULL, LOOM_FFT_BACKWARD);
            loom_array_t *v[3] = {
                loom_sum(ctx, loom_abs(ctx, f), 0, NULL, 0),
                loom_max(ctx, loom_abs(ctx, f), 0, NULL, 0),
                loom_max(ctx, loom_abs(ctx, loom_subtract(ctx, back, a)), 0, NULL, 0)};
            for (int q = 0; q < 3; q++) {
                loom_array_t *e = loom_astype(ctx, v[q], LOOM_DTYPE_F64);
                assert_int_equal(loom_read(ctx, e, &r[dev][q], sizeof r[dev][q]), LOOM_STATUS_OK);
            }
        }
        double tol = d ? 1e-12 : 2e-5;
        assert_true(fabs(r[0][0] - r[1][0]) <= tol * r[1][0]);
        assert_true(fabs(r[0][1] - r[1][1]) <= tol * r[1][1]);
        assert_true(r[0][2] <= (d ? 1e-13 : 1e-5) && r[1][2] <= (d ? 1e-13 : 1e-5));
    }
    loom_scope_end(c->cpu);
    loom_scope_end(c->gpu);
    free(z0);
    free(z1);
    free(x);
    free(h);
    free(y);
    free(w);
}

int main(void) {
    loom_options_t g = {.device = LOOM_DEVICE_CUDA};
    loom_ctx_t *probe = NULL;
    if (loom_ctx_create(&g, &probe) != LOOM_STATUS_OK) {
        fprintf(stderr, "no CUDA device: skipped\n");
        return 77;
    }
    loom_ctx_destroy(probe);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_lengths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_axes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_real, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
