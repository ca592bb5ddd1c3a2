/* test_numerics — NumPy 2's numbers where loom's once differed: integer aranges past 2**53
 * (exact lengths and values), Python integers out of a dtype's range (OverflowError in NumPy),
 * clip's signed zeros, and integer arrays to negative integer powers (ValueError in NumPy).
 * Expected values are NumPy 2.4's, written out by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "../support/check.h"

/* Evaluates a (n int64 elements expected) and compares with want. */
static void expect_i64(loom_ctx_t *ctx, loom_array_t *a, const int64_t *want, int64_t n) {
    assert_false(loom_array_is_nil(a));
    assert_int_equal(loom_array_size(a), n);
    int64_t got[8] = {0};
    assert_true(n <= 8);
    if (n) assert_int_equal(loom_read(ctx, a, got, (size_t)n * sizeof *got), LOOM_STATUS_OK);
    for (int64_t i = 0; i < n; i++) assert_int_equal(got[i], want[i]);
}

#define P62 (INT64_C(1) << 62)
#define P53 (INT64_C(1) << 53)

/* np.arange(2**62, 2**62 + 3) was empty and np.arange(2**53 + 1, 2**53 + 4) repeated 2**53:
 * the bounds went through doubles. */
static void test_numerics_arange_int_exact(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    expect_i64(ctx, loom_arange_int(ctx, P62, P62 + 3, 1, LOOM_DTYPE_I64),
               (int64_t[]){P62, P62 + 1, P62 + 2}, 3);
    expect_i64(ctx, loom_arange_int(ctx, P53 + 1, P53 + 4, 1, LOOM_DTYPE_I64),
               (int64_t[]){P53 + 1, P53 + 2, P53 + 3}, 3);
    expect_i64(ctx, loom_arange_int(ctx, P62 + 10, P62, -3, LOOM_DTYPE_I64),
               (int64_t[]){P62 + 10, P62 + 7, P62 + 4, P62 + 1}, 4);
    expect_i64(ctx, loom_arange_int(ctx, INT64_MIN, INT64_MAX, P62, LOOM_DTYPE_I64),
               (int64_t[]){INT64_MIN, -P62, 0, P62}, 4);
    /* NumPy's length: the quotient of Python ints rounded to a double, then its ceiling. */
    expect_i64(ctx, loom_arange_int(ctx, 0, P62, P62 - 1, LOOM_DTYPE_I64), (int64_t[]){0}, 1);
    expect_i64(ctx, loom_arange_int(ctx, 0, P53 + 1, P53, LOOM_DTYPE_I64), (int64_t[]){0}, 1);
    expect_i64(ctx, loom_arange_int(ctx, 0, P53 + 2, P53, LOOM_DTYPE_I64), (int64_t[]){0, P53}, 2);
    expect_i64(ctx, loom_arange_int(ctx, 5, 0, 1, LOOM_DTYPE_I64), NULL, 0);
    /* The expression language's Python ints take the integer path. */
    expect_i64(ctx, loom_expr(ctx, "arange(2**62, 2**62 + 3)", 0, NULL, NULL),
               (int64_t[]){P62, P62 + 1, P62 + 2}, 3);
    expect_i64(ctx, loom_expr(ctx, "arange(2**53 + 1, 2**53 + 4)", 0, NULL, NULL),
               (int64_t[]){P53 + 1, P53 + 2, P53 + 3}, 3);
    expect_i64(ctx, loom_expr(ctx, "arange(3)", 0, NULL, NULL), (int64_t[]){0, 1, 2}, 3);
    loom_ctx_destroy(ctx);
}

/* Small integer dtypes: elements past start + step wrap (np.arange(0, 300, 100, dtype=int8)
 * is [0, 100, -56]); start or start + step out of range is NumPy's OverflowError. */
static void test_numerics_arange_int_small_dtypes(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int8_t i8[3];
    loom_array_t *a = loom_arange_int(ctx, 0, 300, 100, LOOM_DTYPE_I8);
    assert_int_equal(loom_read(ctx, a, i8, sizeof i8), LOOM_STATUS_OK);
    assert_true(i8[0] == 0 && i8[1] == 100 && i8[2] == -56);
    check_expect_error(ctx, loom_arange_int(ctx, 0, 300, 200, LOOM_DTYPE_I8), LOOM_STATUS_OVERFLOW,
                       "Python integer 200 out of bounds for int8");
    check_expect_error(ctx, loom_arange_int(ctx, -1, 3, 1, LOOM_DTYPE_U8), LOOM_STATUS_OVERFLOW,
                       "Python integer -1 out of bounds for uint8");
    check_expect_error(ctx, loom_expr(ctx, "arange(300, 305, dtype='int8')", 0, NULL, NULL),
                       LOOM_STATUS_OVERFLOW, "Python integer 300 out of bounds for int8");
    /* One element: start + step is never stored (np.arange(0, 2**53 + 1, 2**53, dtype=int8)). */
    a = loom_arange_int(ctx, 0, P53 + 1, P53, LOOM_DTYPE_I8);
    assert_int_equal(loom_read(ctx, a, i8, 1), LOOM_STATUS_OK);
    assert_int_equal(i8[0], 0);
    /* Float bounds keep NumPy's double formula: np.arange(0.5, 5, 1, dtype=int64), and
     * np.arange(-3, 3, 1.5, dtype=int8) == [-3, -1, 1, 3]. */
    expect_i64(ctx, loom_arange(ctx, 0.5, 5, 1, LOOM_DTYPE_I64), (int64_t[]){0, 1, 2, 3, 4}, 5);
    a = loom_arange(ctx, -3, 3, 1.5, LOOM_DTYPE_I8);
    int8_t i8b[4];
    assert_int_equal(loom_read(ctx, a, i8b, sizeof i8b), LOOM_STATUS_OK);
    assert_true(i8b[0] == -3 && i8b[1] == -1 && i8b[2] == 1 && i8b[3] == 3);
    double f[3];
    a = loom_arange_int(ctx, P62, P62 + 3, 1, LOOM_DTYPE_F64); /* all 2**62, as in NumPy */
    assert_int_equal(loom_read(ctx, a, f, sizeof f), LOOM_STATUS_OK);
    assert_true(f[0] == 0x1p62 && f[1] == 0x1p62 && f[2] == 0x1p62);
    check_expect_error(ctx, loom_arange_int(ctx, 0, 5, 0, LOOM_DTYPE_I64),
                       LOOM_STATUS_INVALID_ARGUMENT, "step is zero");
    /* The IR prints integer parameters as integers. */
    a = loom_arange_int(ctx, P53 + 1, P53 + 4, 1, LOOM_DTYPE_I64);
    char text[128];
    assert_true(loom_dump_ir(ctx, 1, &a, text, sizeof text) > 0);
    assert_non_null(strstr(text, "start=9007199254740993 step=1"));
    loom_ctx_destroy(ctx);
}

/* NumPy 2's scalar constructors refuse a Python int their dtype cannot hold (np.int8(300),
 * np.uint64(-1), np.int64(2**63): OverflowError); loom wrapped them. Arithmetic with an
 * out-of-range Python int raises too, comparisons compare exactly, and np.where casts it
 * unsafely (np.where(c, int8_array, 300) holds 44), as NumPy 2.4 does. */
static void test_numerics_python_int_out_of_bounds(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    static const struct {
        const char *expr, *phrase;
    } refused[] = {
        {"int8(300)", "Python integer 300 out of bounds for int8"},
        {"np.int8(-129)", "Python integer -129 out of bounds for int8"},
        {"uint64(-1)", "Python integer -1 out of bounds for uint64"},
        {"int64(2**63)", "Python integer 9223372036854775808 out of bounds for int64"},
        {"uint64(2**64)", "Python integer 18446744073709551616 out of bounds for uint64"},
        {"arange(3, dtype='int8') + 300", "Python integer 300 out of bounds for int8"},
        {"maximum(arange(3, dtype='uint8'), -1)", "Python integer -1 out of bounds for uint8"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        check_expect_error(ctx, loom_expr(ctx, refused[i].expr, 0, NULL, NULL),
                           LOOM_STATUS_OVERFLOW, refused[i].phrase);
    int64_t v;
    assert_int_equal(loom_read(ctx, loom_expr(ctx, "int64(-2**63)", 0, NULL, NULL), &v, sizeof v),
                     LOOM_STATUS_OK);
    assert_true(v == INT64_MIN);
    uint64_t u;
    assert_int_equal(
        loom_read(ctx, loom_expr(ctx, "uint64(2**64 - 1)", 0, NULL, NULL), &u, sizeof u),
        LOOM_STATUS_OK);
    assert_true(u == UINT64_MAX);
    bool eq[3];
    loom_array_t *x = loom_arange_int(ctx, 0, 3, 1, LOOM_DTYPE_I8);
    assert_int_equal(loom_read(ctx, loom_equal_i(ctx, x, 300), eq, sizeof eq), LOOM_STATUS_OK);
    assert_true(!eq[0] && !eq[1] && !eq[2]);
    int64_t two = 2;
    bool c[2] = {true, false};
    loom_array_t *cond = loom_from_host(ctx, LOOM_DTYPE_BOOL, 1, &two, c);
    int8_t w[2];
    loom_array_t *y = loom_slice(ctx, x, 1, (int64_t[]){1}, (int64_t[]){3}, NULL); /* [1, 2] */
    loom_array_t *r = loom_where(ctx, cond, y, loom_weak_int(ctx, 300));
    assert_int_equal(loom_array_dtype(r), LOOM_DTYPE_I8);
    assert_int_equal(loom_read(ctx, r, w, sizeof w), LOOM_STATUS_OK);
    assert_true(w[0] == 1 && w[1] == 44);
    r = loom_where(ctx, cond, loom_weak_int(ctx, -129), y);
    assert_int_equal(loom_read(ctx, r, w, sizeof w), LOOM_STATUS_OK);
    assert_true(w[0] == 127 && w[1] == 2);
    loom_ctx_destroy(ctx);
}

/* np.clip keeps a where it equals a bound, so signed zeros survive (np.clip(-0.0, 0.0, 1.0) is
 * -0.0; minimum(maximum(a, lo), hi) gave 0.0 for float32/64), takes hi where lo > hi, and
 * gives NaN when any operand is NaN; float16 too. One bound is np.maximum / np.minimum. */
static void test_numerics_clip_signed_zero(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    static const loom_dtype_t dts[] = {LOOM_DTYPE_F64, LOOM_DTYPE_F32, LOOM_DTYPE_F16,
                                       LOOM_DTYPE_BF16};
    static const struct {
        double a, lo, hi, want;
    } cases[] = {
        {-0.0, 0.0, 1.0, -0.0}, {0.0, -0.0, 1.0, 0.0},   {-0.0, -1.0, 0.0, -0.0},
        {0.0, -1.0, -0.0, 0.0}, {-1.0, -0.0, 1.0, -0.0}, {2.0, 0.0, -0.0, -0.0},
        {0.5, 1.0, 0.0, 0.0},   {NAN, 0.0, 1.0, NAN},    {0.5, NAN, 1.0, NAN},
        {0.5, 0.0, NAN, NAN},
    };
    for (size_t t = 0; t < sizeof dts / sizeof dts[0]; t++)
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            loom_dtype_t d = dts[t];
            loom_array_t *a = loom_full(ctx, d, 0, NULL, cases[i].a);
            loom_array_t *r = loom_clip(ctx, a, loom_full(ctx, d, 0, NULL, cases[i].lo),
                                        loom_full(ctx, d, 0, NULL, cases[i].hi));
            uint64_t got;
            assert_int_equal(check_read_bits(ctx, r, &got, 1), LOOM_STATUS_OK);
            uint64_t want = check_float_bits(d, cases[i].want);
            if (!check_bits_match(d, want, got, 0)) {
                char g[64], e[64];
                check_format_bits(d, got, g, sizeof g);
                check_format_bits(d, want, e, sizeof e);
                fail_msg("clip(%g, %g, %g) %s: NumPy %s, loom %s", cases[i].a, cases[i].lo,
                         cases[i].hi, loom_dtype_name(d), e, g);
            }
        }
    /* The expression language's clip with both bounds is loom_clip. */
    double got;
    assert_int_equal(
        loom_read(ctx, loom_expr(ctx, "clip(-0.0, 0.0, 1.0)", 0, NULL, NULL), &got, sizeof got),
        LOOM_STATUS_OK);
    assert_true(got == 0 && signbit(got));
    loom_ctx_destroy(ctx);
}

/* np.power(2, np.array([1, -1])) raises "Integers to negative integer powers are not allowed."
 * loom returned 0. The check is on the values, so the eval fails: for every signed dtype, in
 * a fused chain, in a reduction's operand and with both operands constant (not folded away);
 * the context works again after loom_ctx_clear_error, and unsigned, float and non-negative
 * exponents compute as before. */
static void test_numerics_power_negative_int_exponent(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    static const loom_dtype_t sints[] = {LOOM_DTYPE_I8, LOOM_DTYPE_I16, LOOM_DTYPE_I32,
                                         LOOM_DTYPE_I64};
    const char *msg = "integers to negative integer powers are not allowed";
    for (size_t t = 0; t < sizeof sints / sizeof sints[0]; t++) {
        loom_dtype_t d = sints[t];
        int64_t n = 5;
        loom_array_t *y = loom_arange_int(ctx, -1, 4, 1, d);
        loom_array_t *r = loom_power(ctx, loom_full(ctx, d, 1, &n, 2), y);
        int64_t got[5];
        assert_int_equal(loom_read(ctx, loom_astype(ctx, r, LOOM_DTYPE_I64), got, sizeof got),
                         LOOM_STATUS_INVALID_ARGUMENT);
        assert_non_null(strstr(loom_ctx_message(ctx), msg));
        loom_ctx_clear_error(ctx);
        /* in a reduction's operand */
        loom_array_t *s = loom_sum(ctx, loom_multiply(ctx, r, r), 0, NULL, 0);
        assert_int_equal(loom_eval(ctx, 1, &s), LOOM_STATUS_INVALID_ARGUMENT);
        loom_ctx_clear_error(ctx);
        /* the same structure with exponents >= 0 */
        loom_array_t *ok =
            loom_power(ctx, loom_full(ctx, d, 1, &n, 2), loom_arange_int(ctx, 0, 5, 1, d));
        expect_i64(ctx, loom_astype(ctx, ok, LOOM_DTYPE_I64), (int64_t[]){1, 2, 4, 8, 16}, 5);
    }
    /* 0-d constants on both sides: not folded into a silent 0 */
    loom_array_t *c = loom_power(ctx, loom_full(ctx, LOOM_DTYPE_I64, 0, NULL, 2),
                                 loom_full(ctx, LOOM_DTYPE_I64, 0, NULL, -2));
    int64_t v;
    assert_int_equal(loom_read(ctx, c, &v, sizeof v), LOOM_STATUS_INVALID_ARGUMENT);
    loom_ctx_clear_error(ctx);
    /* the expression language and a weak exponent (refused when the array is built) */
    int64_t shp = 3;
    loom_array_t *x = loom_arange_int(ctx, -1, 2, 1, LOOM_DTYPE_I32);
    int32_t w[3];
    assert_int_equal(
        loom_read(ctx, loom_expr(ctx, "2 ** x", 1, (const char *[]){"x"}, &x), w, sizeof w),
        LOOM_STATUS_INVALID_ARGUMENT);
    loom_ctx_clear_error(ctx);
    check_expect_error(ctx, loom_power(ctx, x, loom_weak_int(ctx, -1)),
                       LOOM_STATUS_INVALID_ARGUMENT, "negative integer powers");
    /* unsigned exponents cannot be negative; float powers of negative exponents are values */
    loom_array_t *u = loom_power(ctx, loom_full(ctx, LOOM_DTYPE_U8, 1, &shp, 3),
                                 loom_arange_int(ctx, 0, 3, 1, LOOM_DTYPE_U8));
    expect_i64(ctx, loom_astype(ctx, u, LOOM_DTYPE_I64), (int64_t[]){1, 3, 9}, 3);
    double f[3];
    loom_array_t *fl = loom_power(ctx, loom_full(ctx, LOOM_DTYPE_F64, 1, &shp, 2),
                                  loom_astype(ctx, x, LOOM_DTYPE_F64));
    assert_int_equal(loom_read(ctx, fl, f, sizeof f), LOOM_STATUS_OK);
    assert_true(f[0] == 0.5 && f[1] == 1 && f[2] == 2);
    loom_ctx_destroy(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numerics_arange_int_exact),
        cmocka_unit_test(test_numerics_arange_int_small_dtypes),
        cmocka_unit_test(test_numerics_python_int_out_of_bounds),
        cmocka_unit_test(test_numerics_clip_signed_zero),
        cmocka_unit_test(test_numerics_power_negative_int_exponent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
