/* test_numerics — NumPy 2's numbers where loom's once differed: integer aranges past 2**53
 * (exact lengths and values), Python integers out of a dtype's range (OverflowError in NumPy),
 * and clip's signed zeros. Expected values are NumPy 2.4's, written out by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

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

/* Expects a to be nil with status st and a message containing phrase; clears the error. */
static void expect_error(loom_ctx_t *ctx, loom_array_t *a, loom_status_t st, const char *phrase) {
    assert_true(loom_array_is_nil(a));
    assert_int_equal(loom_ctx_status(ctx), st);
    if (!strstr(loom_ctx_message(ctx), phrase))
        fail_msg("message \"%s\" lacks \"%s\"", loom_ctx_message(ctx), phrase);
    loom_ctx_clear_error(ctx);
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
    expect_i64(ctx, loom_arange_int(ctx, 0, P53 + 2, P53, LOOM_DTYPE_I64), (int64_t[]){0, P53},
               2);
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
    expect_error(ctx, loom_arange_int(ctx, 0, 300, 200, LOOM_DTYPE_I8), LOOM_STATUS_OVERFLOW,
                 "Python integer 200 out of bounds for int8");
    expect_error(ctx, loom_arange_int(ctx, -1, 3, 1, LOOM_DTYPE_U8), LOOM_STATUS_OVERFLOW,
                 "Python integer -1 out of bounds for uint8");
    expect_error(ctx, loom_expr(ctx, "arange(300, 305, dtype='int8')", 0, NULL, NULL),
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
    expect_error(ctx, loom_arange_int(ctx, 0, 5, 0, LOOM_DTYPE_I64),
                 LOOM_STATUS_INVALID_ARGUMENT, "step is zero");
    /* The IR prints integer parameters as integers. */
    a = loom_arange_int(ctx, P53 + 1, P53 + 4, 1, LOOM_DTYPE_I64);
    char text[128];
    assert_true(loom_dump_ir(ctx, 1, &a, text, sizeof text) > 0);
    assert_non_null(strstr(text, "start=9007199254740993 step=1"));
    loom_ctx_destroy(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numerics_arange_int_exact),
        cmocka_unit_test(test_numerics_arange_int_small_dtypes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
