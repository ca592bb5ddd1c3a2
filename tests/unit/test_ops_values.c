/* test_ops_values — every elementwise op's values on edge inputs (NaN, infinities, signed
 * zeros, subnormals, integer extremes, division by zero, out-of-range shifts and casts) against
 * NumPy's, from tests/data/numpy_ops.h. Exact ops must match bit for bit (any NaN matches any
 * NaN); libm-style functions within a few ULPs, with infinities and signed zeros exact. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../data/numpy_ops.h"
#include "../support/check.h"

#define MAX_SHOWN 4 /* mismatching elements printed per case */

static const char *const exact_unary[] = {
    "negative", "positive", "abs",  "sign",  "sqrt",  "square",   "reciprocal",  "floor",
    "ceil",     "trunc",    "rint", "isnan", "isinf", "isfinite", "logical_not", "invert"};
static const char *const inexact_binary[] = {"power", "arctan2", "hypot", "logaddexp",
                                             "logaddexp2"};

static int in_list(const char *name, const char *const *list, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!strcmp(name, list[i])) return 1;
    return 0;
}

/* ULPs allowed for a libm-style function whose result has dtype d. float16 and bfloat16 are
 * computed in float32 and rounded, so one ULP covers a float32 difference. */
static int libm_ulps(loom_dtype_t d) { return d == LOOM_DTYPE_F16 || d == LOOM_DTYPE_BF16 ? 1 : 4; }
/* float64 lgamma (the math library's) and digamma lose relative accuracy to cancellation
 * near their roots; docs/guide.md gives the bound. */
static int unary_ulps(const char *name, loom_dtype_t d) {
    if (d == LOOM_DTYPE_F64 && (!strcmp(name, "lgamma") || !strcmp(name, "digamma"))) return 32;
    return libm_ulps(d);
}

static const char *dn(int d) { return loom_dtype_name((loom_dtype_t)d); }

/* Compares n results; prints the first mismatches with their inputs (described by describe_in).
 * Returns the number of mismatching elements. */
typedef void (*describe_fn)(const void *c, int64_t i, char *buf, size_t cap);

/* Whether both are zeros of a float dtype, whatever their signs. */
static int both_zero(loom_dtype_t d, uint64_t a, uint64_t b) {
    return check_is_float(d) && check_bits_to_double(d, a) == 0.0 &&
           check_bits_to_double(d, b) == 0.0;
}

static int compare(const char *what, loom_dtype_t out, const uint64_t *expected,
                   const uint64_t *got, int64_t n, int ulps, const uint8_t *unspec,
                   int zero_sign_free, describe_fn describe, const void *c) {
    int bad = 0;
    for (int64_t i = 0; i < n; i++) {
        if (unspec && unspec[i]) continue;
        if (check_bits_match(out, expected[i], got[i], ulps)) continue;
        if (zero_sign_free && both_zero(out, expected[i], got[i])) continue;
        if (bad < MAX_SHOWN) {
            char in[160], e[64], g[64];
            describe(c, i, in, sizeof in);
            check_format_bits(out, expected[i], e, sizeof e);
            check_format_bits(out, got[i], g, sizeof g);
            print_message("%s %s -> %s: NumPy %s, loom %s\n", what, in, dn(out), e, g);
        }
        bad++;
    }
    if (bad > MAX_SHOWN) print_message("%s: %d mismatches in all\n", what, bad);
    return bad;
}

/* Runs a built result: checks dtype, reads it, compares. Returns mismatches (or 1). */
static int finish(loom_ctx_t *ctx, const char *what, loom_array_t *r, loom_dtype_t out,
                  const uint64_t *expected, int64_t n, int ulps, const uint8_t *unspec,
                  int zero_sign_free, describe_fn describe, const void *c) {
    int bad = 0;
    if (loom_array_is_nil(r)) {
        print_message("%s: loom fails where NumPy computes: %s\n", what, loom_ctx_message(ctx));
        bad = 1;
    } else if (loom_array_dtype(r) != out) {
        print_message("%s: dtype %s, NumPy %s\n", what, dn(loom_array_dtype(r)), dn(out));
        bad = 1;
    } else {
        uint64_t *got = calloc((size_t)n + 1, sizeof *got);
        assert_non_null(got);
        loom_status_t st = check_read_bits(ctx, r, got, n);
        if (st != LOOM_STATUS_OK) {
            print_message("%s: read failed (%s): %s\n", what, loom_status_string(st),
                          loom_ctx_message(ctx));
            bad = 1;
        } else {
            bad = compare(what, out, expected, got, n, ulps, unspec, zero_sign_free, describe, c);
        }
        free(got);
    }
    loom_ctx_clear_error(ctx);
    return bad;
}

static void describe_unary(const void *cv, int64_t i, char *buf, size_t cap) {
    const np_unary_case_t *c = cv;
    char x[64];
    check_format_bits((loom_dtype_t)c->in, c->x[i], x, sizeof x);
    snprintf(buf, cap, "x=%s", x);
}

static void test_ops_values_unary(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int bad = 0;
    for (size_t k = 0; k < NP_N_UNARY_CASES; k++) {
        const np_unary_case_t *c = &np_unary_cases[k];
        const char *name = check_unary_names[c->op];
        char what[64];
        snprintf(what, sizeof what, "%s(%s)", name, dn(c->in));
        int ulps = in_list(name, exact_unary, sizeof exact_unary / sizeof *exact_unary)
                       ? 0
                       : unary_ulps(name, (loom_dtype_t)c->out);
        loom_scope_begin(ctx);
        loom_array_t *x = check_from_bits(ctx, (loom_dtype_t)c->in, -1, NULL, c->x, c->n);
        loom_array_t *r = check_unary_fns[c->op](ctx, x);
        bad += finish(ctx, what, r, (loom_dtype_t)c->out, c->y, c->n, ulps, NULL, 0, describe_unary,
                      c);
        loom_scope_end(ctx);
    }
    loom_ctx_destroy(ctx);
    if (bad) print_message("unary: %d mismatching elements\n", bad);
    assert_int_equal(bad, 0);
}

static void describe_binary(const void *cv, int64_t i, char *buf, size_t cap) {
    const np_binary_case_t *c = cv;
    char a[64], b[64];
    check_format_bits((loom_dtype_t)c->in, c->a[i / c->nb], a, sizeof a);
    check_format_bits((loom_dtype_t)c->in, c->b[i % c->nb], b, sizeof b);
    snprintf(buf, cap, "a=%s b=%s", a, b);
}

static void test_ops_values_binary(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int bad = 0;
    for (size_t k = 0; k < NP_N_BINARY_CASES; k++) {
        const np_binary_case_t *c = &np_binary_cases[k];
        const char *name = check_binary_names[c->op];
        int64_t n = (int64_t)c->na * c->nb;
        uint64_t *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
        assert_non_null(a);
        assert_non_null(b);
        for (int64_t i = 0; i < n; i++) {
            a[i] = c->a[i / c->nb];
            b[i] = c->b[i % c->nb];
        }
        char what[64];
        snprintf(what, sizeof what, "%s(%s, %s)", name, dn(c->in), dn(c->in));
        int ulps = in_list(name, inexact_binary, sizeof inexact_binary / sizeof *inexact_binary)
                       ? libm_ulps((loom_dtype_t)c->out)
                       : 0;
        loom_scope_begin(ctx);
        loom_array_t *r =
            check_binary_fns[c->op](ctx, check_from_bits(ctx, (loom_dtype_t)c->in, -1, NULL, a, n),
                                    check_from_bits(ctx, (loom_dtype_t)c->in, -1, NULL, b, n));
        /* fmax/fmin of +0 and -0: NumPy's own answer depends on the array length (its SIMD
         * and scalar paths differ), so either zero is accepted. maximum/minimum are consistent
         * in NumPy and checked exactly. */
        int zero_free = !strcmp(name, "fmax") || !strcmp(name, "fmin");
        bad += finish(ctx, what, r, (loom_dtype_t)c->out, c->y, n, ulps, NULL, zero_free,
                      describe_binary, c);
        loom_scope_end(ctx);
        free(a);
        free(b);
    }
    loom_ctx_destroy(ctx);
    if (bad) print_message("binary: %d mismatching elements\n", bad);
    assert_int_equal(bad, 0);
}

static void describe_cast(const void *cv, int64_t i, char *buf, size_t cap) {
    const np_cast_case_t *c = cv;
    char x[64];
    check_format_bits((loom_dtype_t)c->from, c->x[i], x, sizeof x);
    snprintf(buf, cap, "x=%s", x);
}

static void test_ops_values_astype(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int bad = 0;
    for (size_t k = 0; k < NP_N_CAST_CASES; k++) {
        const np_cast_case_t *c = &np_cast_cases[k];
        char what[64];
        snprintf(what, sizeof what, "astype(%s -> %s)", dn(c->from), dn(c->to));
        loom_scope_begin(ctx);
        loom_array_t *x = check_from_bits(ctx, (loom_dtype_t)c->from, -1, NULL, c->x, c->n);
        loom_array_t *r = loom_astype(ctx, x, (loom_dtype_t)c->to);
        bad += finish(ctx, what, r, (loom_dtype_t)c->to, c->y, c->n, 0, c->unspec, 0, describe_cast,
                      c);
        loom_scope_end(ctx);
    }
    loom_ctx_destroy(ctx);
    if (bad) print_message("astype: %d mismatching elements\n", bad);
    assert_int_equal(bad, 0);
}

static void describe_clip(const void *cv, int64_t i, char *buf, size_t cap) {
    const np_clip_case_t *c = cv;
    char a[64], lo[64], hi[64];
    check_format_bits((loom_dtype_t)c->dtype, c->a[i], a, sizeof a);
    check_format_bits((loom_dtype_t)c->dtype, c->lo[i], lo, sizeof lo);
    check_format_bits((loom_dtype_t)c->dtype, c->hi[i], hi, sizeof hi);
    snprintf(buf, cap, "a=%s lo=%s hi=%s", a, lo, hi);
}

static void test_ops_values_clip(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int bad = 0;
    for (size_t k = 0; k < NP_N_CLIP_CASES; k++) {
        const np_clip_case_t *c = &np_clip_cases[k];
        loom_dtype_t d = (loom_dtype_t)c->dtype;
        char what[64];
        snprintf(what, sizeof what, "clip(%s)", dn(d));
        loom_scope_begin(ctx);
        loom_array_t *r = loom_clip(ctx, check_from_bits(ctx, d, -1, NULL, c->a, c->n),
                                    check_from_bits(ctx, d, -1, NULL, c->lo, c->n),
                                    check_from_bits(ctx, d, -1, NULL, c->hi, c->n));
        bad += finish(ctx, what, r, (loom_dtype_t)c->out, c->y, c->n, 0, NULL, 0, describe_clip, c);
        loom_scope_end(ctx);
    }
    loom_ctx_destroy(ctx);
    assert_int_equal(bad, 0);
}

static void describe_where(const void *cv, int64_t i, char *buf, size_t cap) {
    const np_where_case_t *c = cv;
    char cs[64], x[64], y[64];
    check_format_bits((loom_dtype_t)c->cond, c->c[i], cs, sizeof cs);
    check_format_bits((loom_dtype_t)c->xd, c->x[i], x, sizeof x);
    check_format_bits((loom_dtype_t)c->yd, c->y[i], y, sizeof y);
    snprintf(buf, cap, "cond=%s x=%s y=%s", cs, x, y);
}

static void test_ops_values_where(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int bad = 0;
    for (size_t k = 0; k < NP_N_WHERE_CASES; k++) {
        const np_where_case_t *c = &np_where_cases[k];
        char what[80];
        snprintf(what, sizeof what, "where(%s, %s, %s)", dn(c->cond), dn(c->xd), dn(c->yd));
        loom_scope_begin(ctx);
        loom_array_t *r =
            loom_where(ctx, check_from_bits(ctx, (loom_dtype_t)c->cond, -1, NULL, c->c, c->n),
                       check_from_bits(ctx, (loom_dtype_t)c->xd, -1, NULL, c->x, c->n),
                       check_from_bits(ctx, (loom_dtype_t)c->yd, -1, NULL, c->y, c->n));
        bad +=
            finish(ctx, what, r, (loom_dtype_t)c->out, c->r, c->n, 0, NULL, 0, describe_where, c);
        loom_scope_end(ctx);
    }
    loom_ctx_destroy(ctx);
    assert_int_equal(bad, 0);
}

/* The same op through broadcasting, a 0-d operand and a fused chain gives the same values as
 * the table (a fused evaluation must not change results). */
static void test_ops_values_fused_chain_matches(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    float x[5] = {0.5f, -2.5f, 3.0f, 1e-5f, 100.0f}, out[5];
    int64_t n = 5;
    loom_array_t *a = loom_from_host(ctx, LOOM_DTYPE_F32, 1, &n, x);
    loom_array_t *two = loom_full(ctx, LOOM_DTYPE_F32, 0, NULL, 2.0);
    loom_array_t *r = loom_subtract(ctx, loom_multiply(ctx, loom_add(ctx, a, two), two), two);
    assert_int_equal(loom_read(ctx, r, out, sizeof out), LOOM_STATUS_OK);
    for (int i = 0; i < 5; i++) {
        float e = (x[i] + 2.0f) * 2.0f - 2.0f;
        assert_memory_equal(&out[i], &e, sizeof e);
    }
    loom_ctx_destroy(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ops_values_unary),
        cmocka_unit_test(test_ops_values_binary),
        cmocka_unit_test(test_ops_values_astype),
        cmocka_unit_test(test_ops_values_clip),
        cmocka_unit_test(test_ops_values_where),
        cmocka_unit_test(test_ops_values_fused_chain_matches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
