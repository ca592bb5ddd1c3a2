/* test_fft_ref — the reference device's DFT (src/ir/ref_fft.c) against a direct transform in
 * long double: every length 0..130 (mixed radix and Bluestein alike), primes past the radix
 * bound, large composite and prime lengths, forward and backward, round trips, allocation
 * failures in planning, and no leaks. Reaches src/ir. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "ir/ir.h"

/* The largest |fft - direct| over the output, relative to the largest |direct| element. */
static double max_rel_error(int64_t n, int sign, uint32_t seed) {
    base_alloc_t al = {.fail_after = -1};
    ir_fft_plan_t *p = ir_fft_plan_new(n, &al);
    assert_non_null(p);
    double *x = calloc((size_t)(2 * n + 2), sizeof *x), *y = calloc((size_t)(2 * n + 2), sizeof *y);
    double *sc = calloc(ir_fft_scratch_doubles(p), sizeof *sc);
    uint32_t s = seed * 2654435761u + 7;
    for (int64_t k = 0; k < 2 * n; k++) {
        s = s * 1664525u + 1013904223u;
        x[k] = y[k] = (double)(s >> 8) / 16777216.0 - 0.5;
    }
    ir_fft_exec(p, y, sign, sc);
    long double big = 0, err = 0;
    const long double tau = 6.283185307179586476925286766559005768L;
    for (int64_t k = 0; k < n; k++) {
        long double re = 0, im = 0;
        for (int64_t j = 0; j < n; j++) {
            long double a = sign * tau * (long double)((j * k) % n) / (long double)n;
            long double c = cosl(a), sn = sinl(a);
            re += x[2 * j] * c - x[2 * j + 1] * sn;
            im += x[2 * j] * sn + x[2 * j + 1] * c;
        }
        long double m = sqrtl(re * re + im * im);
        if (m > big) big = m;
        long double dr = y[2 * k] - re, di = y[2 * k + 1] - im;
        long double e = sqrtl(dr * dr + di * di);
        if (e > err) err = e;
    }
    ir_fft_plan_free(p);
    assert_int_equal(al.n_live, 0);
    free(x), free(y), free(sc);
    return big > 0 ? (double)(err / big) : (double)err;
}

static void test_every_small_length(void **state) {
    (void)state;
    for (int64_t n = 0; n <= 130; n++)
        for (int sign = -1; sign <= 1; sign += 2) {
            double e = max_rel_error(n, sign, (uint32_t)n);
            if (e > 1e-14)
                fprintf(stderr, "n %lld sign %d: relative error %g\n", (long long)n, sign, e);
            assert_true(e <= 1e-14);
        }
}

static void test_large_lengths(void **state) {
    (void)state;
    /* powers of two and three, a 7 * 11 * 13 product, primes (Bluestein), a prime square */
    static const int64_t ns[] = {1024, 2187, 1001, 1009, 2039, 17 * 17, 3 * 331};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
        double e = max_rel_error(ns[i], -1, (uint32_t)i + 100);
        if (e > 1e-13) fprintf(stderr, "n %lld: relative error %g\n", (long long)ns[i], e);
        assert_true(e <= 1e-13);
    }
}

/* backward(forward(x)) / n == x for lengths too long for the direct transform */
static void test_round_trip(void **state) {
    (void)state;
    static const int64_t ns[] = {1 << 16, 100003, 3 * 5 * 7 * 11 * 13 * 16, 65537};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
        int64_t n = ns[i];
        base_alloc_t al = {.fail_after = -1};
        ir_fft_plan_t *p = ir_fft_plan_new(n, &al);
        assert_non_null(p);
        double *x = malloc((size_t)(2 * n) * sizeof *x), *y = malloc((size_t)(2 * n) * sizeof *y);
        double *sc = malloc(ir_fft_scratch_doubles(p) * sizeof *sc);
        for (int64_t k = 0; k < 2 * n; k++) x[k] = y[k] = sin((double)k * 0.37) + (double)(k % 7);
        ir_fft_exec(p, y, -1, sc);
        ir_fft_exec(p, y, 1, sc);
        double err = 0;
        for (int64_t k = 0; k < 2 * n; k++) err = fmax(err, fabs(y[k] / (double)n - x[k]));
        if (err > 1e-11) fprintf(stderr, "n %lld: round trip error %g\n", (long long)n, err);
        assert_true(err <= 1e-11);
        ir_fft_plan_free(p);
        assert_int_equal(al.n_live, 0);
        free(x), free(y), free(sc);
    }
}

/* every allocation of a Bluestein plan failing in turn: NULL, and nothing leaked */
static void test_plan_allocation_failures(void **state) {
    (void)state;
    for (int64_t k = 0;; k++) {
        base_alloc_t al = {.fail_after = k, .fail_once = true};
        ir_fft_plan_t *p = ir_fft_plan_new(1009, &al);
        if (p) {
            ir_fft_plan_free(p);
            assert_int_equal(al.n_live, 0);
            assert_true(k > 3);
            break;
        }
        assert_int_equal(al.n_live, 0);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_small_length),
        cmocka_unit_test(test_large_lengths),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_plan_allocation_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
