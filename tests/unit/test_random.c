/* test_random — NumPy's Generator methods on loom's Philox stream (src/frontend/random.c) on
 * the CPU reference device: the key derivation's published values, determinism and
 * independence of streams, ranges, moments of 1e5 draws under fixed seeds (deterministic, so
 * never flaky), permutations and choices, NumPy's errors, and random.NAME in the language. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "loom.h"
#include "../support/check.h"

#define N_MOMENTS 100000

/* a's n elements as doubles (a cast to float64 first). */
static double *read_f64(loom_ctx_t *ctx, loom_array_t *a, int64_t n) {
    double *out = malloc((size_t)(n ? n : 1) * sizeof *out);
    assert_non_null(out);
    assert_int_equal(loom_array_size(a), n);
    assert_int_equal(loom_read(ctx, loom_astype(ctx, a, LOOM_DTYPE_F64), out, (size_t)n * 8),
                     LOOM_STATUS_OK);
    return out;
}

static int64_t *read_i64(loom_ctx_t *ctx, loom_array_t *a, int64_t n) {
    int64_t *out = malloc((size_t)(n ? n : 1) * sizeof *out);
    assert_non_null(out);
    assert_int_equal(loom_array_size(a), n);
    assert_int_equal(loom_read(ctx, loom_astype(ctx, a, LOOM_DTYPE_I64), out, (size_t)n * 8),
                     LOOM_STATUS_OK);
    return out;
}

/* Whether a and b (same shape) hold the same bits. */
static bool same_bits(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b) {
    int64_t n = loom_array_size(a);
    size_t bytes = (size_t)n * loom_dtype_size(loom_array_dtype(a));
    unsigned char *x = malloc(bytes + 1), *y = malloc(bytes + 1);
    assert_true(x && y);
    assert_int_equal(loom_read(ctx, a, x, bytes), LOOM_STATUS_OK);
    assert_int_equal(loom_read(ctx, b, y, bytes), LOOM_STATUS_OK);
    bool same = !memcmp(x, y, bytes);
    free(x);
    free(y);
    return same;
}

/* The sample mean and (population) variance of x[0..n) are within 5 standard errors of mean
 * and var; kurt is the distribution's fourth central moment over var^2 (the variance's
 * standard error is sqrt((kurt - 1) / n) var). */
static void expect_moments(const double *x, int64_t n, double mean, double var, double kurt) {
    double s = 0, ss = 0;
    for (int64_t i = 0; i < n; i++) s += x[i];
    double m = s / (double)n;
    for (int64_t i = 0; i < n; i++) ss += (x[i] - m) * (x[i] - m);
    double v = ss / (double)n;
    assert_true(fabs(m - mean) < 5 * sqrt(var / (double)n));
    assert_true(fabs(v - var) < 5 * sqrt((kurt - 1) / (double)n) * var);
}

/* SplitMix64's published first outputs from state 0; the streams of a seed are distinct. */
static void test_random_key_values(void **state) {
    (void)state;
    assert_true(loom_random_key(0, 0) == UINT64_C(0xE220A8397B1DCDAF));
    assert_true(loom_random_key(0, 1) == UINT64_C(0x6E789E6AA1B965F4));
    assert_true(loom_random_key(0, 2) == UINT64_C(0x06C45D188009454F));
    assert_true(loom_random_key(42, 0) == UINT64_C(0xBDD732262FEB6E95));
    uint64_t keys[300];
    for (int i = 0; i < 300; i++) keys[i] = loom_random_key(7, (uint64_t)i);
    for (int i = 0; i < 300; i++)
        for (int j = 0; j < i; j++) assert_true(keys[i] != keys[j]);
    assert_true(loom_random_key(7, 0) != loom_random_key(8, 0));
}

/* docs/random.md's Philox answer (key 0, counter 0) as the first float64 uniform, and the
 * Generator's uniform as the stream under the derived key. */
static void test_random_philox_anchor(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t n = 4;
    double u[4];
    assert_int_equal(loom_read(ctx, loom_random_uniform(ctx, 0, LOOM_DTYPE_F64, 1, &n, 0, 1), u,
                               sizeof u),
                     LOOM_STATUS_OK);
    uint64_t r0 = 0x6627e8d5u, r1 = 0xe169c58du;
    assert_true(u[0] == (double)((r0 << 21) | (r1 >> 11)) * 0x1p-53);
    for (uint64_t k = 0; k < 3; k++)
        assert_true(same_bits(
            ctx, loom_rng_uniform(ctx, 11, k, -2, 3, LOOM_DTYPE_F32, 1, &n),
            loom_random_uniform(ctx, loom_random_key(11, k), LOOM_DTYPE_F32, 1, &n, -2, 3)));
    assert_true(
        same_bits(ctx, loom_rng_normal(ctx, 11, 5, 1, 2, LOOM_DTYPE_F64, 1, &n),
                  loom_random_normal(ctx, loom_random_key(11, 5), LOOM_DTYPE_F64, 1, &n, 1, 2)));
    loom_ctx_destroy(ctx);
}

/* Same (seed, stream): the same bits; another stream or seed: other numbers. */
static void test_random_streams_deterministic(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t s[2] = {3, 50};
    loom_array_t *a = loom_rng_integers(ctx, 1, 0, 0, 1000000, 0, LOOM_DTYPE_I64, 2, s);
    assert_true(same_bits(ctx, a, loom_rng_integers(ctx, 1, 0, 0, 1000000, 0, LOOM_DTYPE_I64, 2,
                                                    s)));
    assert_false(same_bits(ctx, a, loom_rng_integers(ctx, 1, 1, 0, 1000000, 0, LOOM_DTYPE_I64, 2,
                                                     s)));
    assert_false(same_bits(ctx, a, loom_rng_integers(ctx, 2, 0, 0, 1000000, 0, LOOM_DTYPE_I64, 2,
                                                     s)));
    loom_array_t *pop = loom_arange_int(ctx, 0, 40, 1, LOOM_DTYPE_I64);
    loom_array_t *c = loom_rng_choice(ctx, 9, 4, pop, 2, s, 1, NULL, 0);
    assert_true(same_bits(ctx, c, loom_rng_choice(ctx, 9, 4, pop, 2, s, 1, NULL, 0)));
    assert_false(same_bits(ctx, c, loom_rng_choice(ctx, 9, 5, pop, 2, s, 1, NULL, 0)));
    loom_ctx_destroy(ctx);
}

/* Integers stay in [low, high) (or [low, high] with endpoint) and hit every value of a small
 * range; uniforms stay in [low, high); the extreme ranges of int8 and int64. */
static void test_random_ranges(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t n = 10000;
    for (int endpoint = 0; endpoint < 2; endpoint++) {
        int64_t *v = read_i64(ctx, loom_rng_integers(ctx, 5, 0, -3, 4, endpoint, LOOM_DTYPE_I16,
                                                      1, &n),
                              n);
        int hits[8] = {0};
        for (int64_t i = 0; i < n; i++) {
            assert_true(v[i] >= -3 && v[i] <= (endpoint ? 4 : 3));
            hits[v[i] + 3]++;
        }
        for (int k = 0; k < 7 + endpoint; k++) assert_true(hits[k] > 0);
        free(v);
    }
    int64_t *w = read_i64(ctx, loom_rng_integers(ctx, 5, 1, -128, 127, 1, LOOM_DTYPE_I8, 1, &n),
                          n);
    bool lo = false, hi = false;
    for (int64_t i = 0; i < n; i++) {
        lo |= w[i] == -128;
        hi |= w[i] == 127;
    }
    assert_true(lo && hi);
    free(w);
    int64_t big[64];
    int64_t m = 64;
    assert_int_equal(loom_read(ctx, loom_rng_integers(ctx, 5, 2, INT64_MIN, INT64_MAX, 1,
                                                      LOOM_DTYPE_I64, 1, &m),
                               big, sizeof big),
                     LOOM_STATUS_OK);
    int neg = 0;
    for (int i = 0; i < 64; i++) neg += big[i] < 0;
    assert_true(neg > 10 && neg < 54);
    for (int d = 0; d < 2; d++) {
        loom_dtype_t dt = d ? LOOM_DTYPE_F32 : LOOM_DTYPE_F64;
        double *u = read_f64(ctx, loom_rng_uniform(ctx, 5, 3, 2, 5, dt, 1, &n), n);
        for (int64_t i = 0; i < n; i++) assert_true(u[i] >= 2 && u[i] < 5);
        free(u);
    }
    int64_t *b = read_i64(ctx, loom_rng_integers(ctx, 5, 4, 0, 2, 0, LOOM_DTYPE_BOOL, 1, &n), n);
    int64_t ones = 0;
    for (int64_t i = 0; i < n; i++) ones += b[i];
    assert_true(ones > 4500 && ones < 5500);
    free(b);
    loom_ctx_destroy(ctx);
}

/* Means and variances of 1e5 draws under a fixed seed, within 5 standard errors. */
static void test_random_moments(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t n = N_MOMENTS;
    double *x = read_f64(ctx, loom_rng_uniform(ctx, 2024, 0, -1, 3, LOOM_DTYPE_F64, 1, &n), n);
    expect_moments(x, n, 1, 16.0 / 12, 1.8);
    free(x);
    x = read_f64(ctx, loom_rng_normal(ctx, 2024, 1, 2, 3, LOOM_DTYPE_F64, 1, &n), n);
    expect_moments(x, n, 2, 9, 3);
    free(x);
    x = read_f64(ctx, loom_rng_normal(ctx, 2024, 2, 0, 1, LOOM_DTYPE_F32, 1, &n), n);
    expect_moments(x, n, 0, 1, 3);
    free(x);
    x = read_f64(ctx, loom_rng_exponential(ctx, 2024, 3, 2, LOOM_DTYPE_F64, 1, &n), n);
    expect_moments(x, n, 2, 4, 9);
    for (int64_t i = 0; i < n; i++) assert_true(x[i] >= 0);
    free(x);
    x = read_f64(ctx, loom_rng_integers(ctx, 2024, 4, 0, 10, 0, LOOM_DTYPE_I64, 1, &n), n);
    expect_moments(x, n, 4.5, 8.25, 1.7787878787878788);
    free(x);
    loom_ctx_destroy(ctx);
}

/* A permutation holds every entry once; along axis 1 the columns move whole. */
static void test_random_permutation(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t n = 1000;
    loom_array_t *p = loom_rng_permutation(ctx, 3, 0, loom_arange_int(ctx, 0, n, 1,
                                                                      LOOM_DTYPE_I64), 0);
    int64_t *v = read_i64(ctx, p, n);
    bool *seen = calloc((size_t)n, 1);
    int64_t fixed = 0;
    for (int64_t i = 0; i < n; i++) {
        assert_true(v[i] >= 0 && v[i] < n && !seen[v[i]]);
        seen[v[i]] = true;
        fixed += v[i] == i;
    }
    assert_true(fixed < 10); /* about 1 expected */
    free(seen);
    free(v);
    int64_t s[2] = {2, 5};
    loom_array_t *m = loom_reshape(ctx, loom_arange_int(ctx, 0, 10, 1, LOOM_DTYPE_I64), 2, s);
    int64_t *c = read_i64(ctx, loom_rng_permutation(ctx, 3, 1, m, 1), 10);
    for (int j = 0; j < 5; j++) assert_int_equal(c[5 + j], c[j] + 5);
    free(c);
    loom_ctx_destroy(ctx);
}

/* Without replacement no entry repeats; p's zero entries are never chosen; with p, the
 * frequencies follow p. */
static void test_random_choice(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t n = 100, k = 60;
    loom_array_t *pop = loom_arange_int(ctx, 0, n, 1, LOOM_DTYPE_I64);
    int64_t *v = read_i64(ctx, loom_rng_choice(ctx, 4, 0, pop, 1, &k, 0, NULL, 0), k);
    bool seen[100] = {false};
    for (int64_t i = 0; i < k; i++) {
        assert_false(seen[v[i]]);
        seen[v[i]] = true;
    }
    free(v);
    double pv[5] = {0.5, 0, 0.2, 0, 0.3};
    int64_t five = 5, m = N_MOMENTS, three = 3;
    loom_array_t *p = loom_from_host(ctx, LOOM_DTYPE_F64, 1, &five, pv);
    loom_array_t *pop5 = loom_arange_int(ctx, 0, 5, 1, LOOM_DTYPE_I64);
    v = read_i64(ctx, loom_rng_choice(ctx, 4, 1, pop5, 1, &m, 1, p, 0), m);
    int64_t hits[5] = {0};
    for (int64_t i = 0; i < m; i++) hits[v[i]]++;
    free(v);
    assert_int_equal(hits[1], 0);
    assert_int_equal(hits[3], 0);
    for (int j = 0; j < 5; j++)
        assert_true(fabs((double)hits[j] / (double)m - pv[j]) <
                    5 * sqrt(pv[j] * (1 - pv[j]) / (double)m) + 1e-12);
    for (uint64_t s = 0; s < 20; s++) { /* without replacement: the three nonzero entries */
        int64_t *w = read_i64(ctx, loom_rng_choice(ctx, 4, 10 + s, pop5, 1, &three, 0, p, 0), 3);
        assert_true(w[0] != w[1] && w[1] != w[2] && w[0] != w[2]);
        for (int i = 0; i < 3; i++) assert_true(w[i] == 0 || w[i] == 2 || w[i] == 4);
        free(w);
    }
    /* first draws without replacement follow p (successive sampling) */
    int64_t first[5] = {0}, one = 1;
    for (uint64_t s = 0; s < 2000; s++) {
        int64_t w;
        assert_int_equal(loom_read(ctx, loom_rng_choice(ctx, 8, s, pop5, 1, &one, 0, p, 0), &w,
                                   sizeof w),
                         LOOM_STATUS_OK);
        first[w]++;
    }
    assert_true(fabs(first[0] / 2000.0 - 0.5) < 5 * sqrt(0.25 / 2000));
    /* a 2-D population along axis 1; size () gives one entry */
    int64_t s2[2] = {2, 3}, two = 2;
    loom_array_t *a2 = loom_reshape(ctx, loom_arange_int(ctx, 0, 6, 1, LOOM_DTYPE_I64), 2, s2);
    loom_array_t *c = loom_rng_choice(ctx, 4, 2, a2, 1, &two, 1, NULL, 1);
    assert_int_equal(loom_array_dim(c, 0), 2);
    assert_int_equal(loom_array_dim(c, 1), 2);
    int64_t *cv = read_i64(ctx, c, 4);
    assert_int_equal(cv[2], cv[0] + 3);
    free(cv);
    assert_int_equal(loom_array_ndim(loom_rng_choice(ctx, 4, 3, pop5, 0, NULL, 1, NULL, 0)), 0);
    loom_ctx_destroy(ctx);
}

/* NumPy's errors, with its messages. */
static void test_random_errors(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t n = 3, five = 5, six = 6, neg = -1;
    check_expect_error(ctx, loom_rng_integers(ctx, 0, 0, 5, 5, 0, LOOM_DTYPE_I64, 1, &n),
                       LOOM_STATUS_INVALID_ARGUMENT, "low >= high");
    check_expect_error(ctx, loom_rng_integers(ctx, 0, 0, 5, 4, 1, LOOM_DTYPE_I64, 1, &n),
                       LOOM_STATUS_INVALID_ARGUMENT, "low > high");
    check_expect_error(ctx, loom_rng_integers(ctx, 0, 0, 0, 300, 0, LOOM_DTYPE_I8, 1, &n),
                       LOOM_STATUS_INVALID_ARGUMENT, "high is out of bounds for int8");
    check_expect_error(ctx, loom_rng_integers(ctx, 0, 0, -1, 3, 0, LOOM_DTYPE_U8, 1, &n),
                       LOOM_STATUS_INVALID_ARGUMENT, "low is out of bounds for uint8");
    check_expect_error(ctx, loom_rng_integers(ctx, 0, 0, 0, 3, 0, LOOM_DTYPE_F64, 1, &n),
                       LOOM_STATUS_DTYPE_ERROR, "unsupported dtype float64");
    check_expect_error(ctx, loom_rng_integers(ctx, 0, 0, 0, 3, 0, LOOM_DTYPE_I64, 1, &neg),
                       LOOM_STATUS_INVALID_ARGUMENT, "negative");
    check_expect_error(ctx, loom_rng_uniform(ctx, 0, 0, 3, 1, LOOM_DTYPE_F64, 1, &n),
                       LOOM_STATUS_INVALID_ARGUMENT, "high - low < 0");
    check_expect_error(ctx, loom_rng_uniform(ctx, 0, 0, -1e308, 1e308, LOOM_DTYPE_F64, 1, &n),
                       LOOM_STATUS_OVERFLOW, "high - low range exceeds valid bounds");
    check_expect_error(ctx, loom_rng_uniform(ctx, 0, 0, 0, 1, LOOM_DTYPE_I32, 1, &n),
                       LOOM_STATUS_DTYPE_ERROR, "unsupported dtype int32");
    check_expect_error(ctx, loom_rng_normal(ctx, 0, 0, 0, -1, LOOM_DTYPE_F64, 1, &n),
                       LOOM_STATUS_INVALID_ARGUMENT, "scale < 0");
    check_expect_error(ctx, loom_rng_exponential(ctx, 0, 0, -1, LOOM_DTYPE_F64, 1, &n),
                       LOOM_STATUS_INVALID_ARGUMENT, "scale < 0");
    loom_array_t *pop = loom_arange_int(ctx, 0, 5, 1, LOOM_DTYPE_I64);
    double bad_sum[5] = {0.5, 0.5, 0, 0, 0.1}, bad_neg[5] = {1.5, -0.5, 0, 0, 0},
           bad_nan[5] = {NAN, 0.5, 0, 0, 0}, two[5] = {0.5, 0.5, 0, 0, 0};
    check_expect_error(ctx,
                       loom_rng_choice(ctx, 0, 0, pop, 1, &n, 1,
                                       loom_from_host(ctx, LOOM_DTYPE_F64, 1, &five, bad_sum), 0),
                       LOOM_STATUS_INVALID_ARGUMENT, "Probabilities do not sum to 1");
    check_expect_error(ctx,
                       loom_rng_choice(ctx, 0, 0, pop, 1, &n, 1,
                                       loom_from_host(ctx, LOOM_DTYPE_F64, 1, &five, bad_neg), 0),
                       LOOM_STATUS_INVALID_ARGUMENT, "Probabilities are not non-negative");
    check_expect_error(ctx,
                       loom_rng_choice(ctx, 0, 0, pop, 1, &n, 1,
                                       loom_from_host(ctx, LOOM_DTYPE_F64, 1, &five, bad_nan), 0),
                       LOOM_STATUS_INVALID_ARGUMENT, "Probabilities contain NaN");
    check_expect_error(ctx,
                       loom_rng_choice(ctx, 0, 0, pop, 1, &n, 0,
                                       loom_from_host(ctx, LOOM_DTYPE_F64, 1, &five, two), 0),
                       LOOM_STATUS_INVALID_ARGUMENT, "Fewer non-zero entries in p than size");
    check_expect_error(ctx, loom_rng_choice(ctx, 0, 0, pop, 1, &six, 0, NULL, 0),
                       LOOM_STATUS_INVALID_ARGUMENT,
                       "Cannot take a larger sample than population when replace is False");
    check_expect_error(ctx,
                       loom_rng_choice(ctx, 0, 0, pop, 1, &n, 1,
                                       loom_from_host(ctx, LOOM_DTYPE_F64, 1, &n, two), 0),
                       LOOM_STATUS_INVALID_ARGUMENT, "a and p must have same size");
    check_expect_error(ctx,
                       loom_rng_choice(ctx, 0, 0, loom_arange_int(ctx, 0, 0, 1, LOOM_DTYPE_I64),
                                       1, &n, 1, NULL, 0),
                       LOOM_STATUS_INVALID_ARGUMENT, "a cannot be empty");
    check_expect_error(ctx, loom_rng_permutation(ctx, 0, 0, loom_weak_int(ctx, 3), 0),
                       LOOM_STATUS_INVALID_ARGUMENT, "axis 0 is out of bounds");
    assert_null(loom_rng_uniform(NULL, 0, 0, 0, 1, LOOM_DTYPE_F64, 1, &n));
    loom_ctx_destroy(ctx);
}

/* random.NAME: seed= and stream= pick the key; stream counts the program's random calls. */
static void test_random_language(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t n = 4;
    loom_array_t *a = loom_expr(ctx, "random.uniform(-1, 2, size=4, seed=5, stream=2)", 0, NULL,
                                NULL);
    assert_true(same_bits(ctx, a, loom_rng_uniform(ctx, 5, 2, -1, 2, LOOM_DTYPE_F64, 1, &n)));
    a = loom_expr(ctx, "np.random.random(4, seed=9)", 0, NULL, NULL);
    assert_true(same_bits(ctx, a, loom_rng_uniform(ctx, 9, 0, 0, 1, LOOM_DTYPE_F64, 1, &n)));
    /* the second call of a program draws stream 1 */
    a = loom_expr(ctx, "(random.random(4, seed=9), random.standard_normal(4, seed=9))[1]", 0,
                  NULL, NULL);
    assert_true(same_bits(ctx, a, loom_rng_normal(ctx, 9, 1, 0, 1, LOOM_DTYPE_F64, 1, &n)));
    a = loom_expr(ctx, "random.integers(3, 9, size=4, dtype='int16', seed=1, stream=7)", 0, NULL,
                  NULL);
    assert_true(same_bits(ctx, a, loom_rng_integers(ctx, 1, 7, 3, 9, 0, LOOM_DTYPE_I16, 1, &n)));
    a = loom_expr(ctx, "sort(random.permutation(arange(4) * 2, seed=3))", 0, NULL, NULL);
    int64_t *v = read_i64(ctx, a, 4);
    for (int i = 0; i < 4; i++) assert_int_equal(v[i], 2 * i);
    free(v);
    a = loom_expr(ctx, "random.choice(5, (2, 2), p=[0, 0, 1.0, 0, 0])", 0, NULL, NULL);
    v = read_i64(ctx, a, 4);
    for (int i = 0; i < 4; i++) assert_int_equal(v[i], 2);
    free(v);
    check_expr_error(ctx, "random.integers(0)", "high <= 0");
    check_expr_error(ctx, "random.integers(-1, endpoint=True)", "high < 0");
    check_expr_error(ctx, "random.choice(0, 3)", "a must be a positive integer");
    check_expr_error(ctx, "random.random(3, seed=-1)", "'seed' must be an integer in [0, 2**64)");
    check_expr_error(ctx, "random.normal(scale=-2.0)", "scale < 0");
    check_expr_error(ctx, "uniform(0, 1)", "unknown function 'uniform'");
    check_expr_error(ctx, "random.uniform + 1", "'random.uniform' is a function");
    loom_ctx_destroy(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_key_values),
        cmocka_unit_test(test_random_philox_anchor),
        cmocka_unit_test(test_random_streams_deterministic),
        cmocka_unit_test(test_random_ranges),
        cmocka_unit_test(test_random_moments),
        cmocka_unit_test(test_random_permutation),
        cmocka_unit_test(test_random_choice),
        cmocka_unit_test(test_random_errors),
        cmocka_unit_test(test_random_language),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
