/* test_parse — loom_parse and loom_expr: Python's precedence and associativity (checked by
 * value, with Python numbers folded as Python folds them), literals, NEP 50 weak scalars next
 * to arrays, calls and keywords, statements and named outputs, and errors: a caret under the
 * column, unknown names listing the bound ones, reductions, views and indexing, and
 * constructs refused with "not supported yet"; programs nested past the limit or chained
 * hundreds of thousands deep, on a thread with a small stack. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../support/check.h"

/* Evaluates expr (no bound names) to a 0-d or 1-element result and returns it as a double. */
static double scalar(loom_ctx_t *ctx, const char *expr, loom_dtype_t want) {
    loom_array_t *r = loom_expr(ctx, expr, 0, NULL, NULL);
    if (loom_array_is_nil(r)) fail_msg("%s: %s", expr, loom_ctx_message(ctx));
    if (loom_array_dtype(r) != want)
        fail_msg("%s: dtype %s, expected %s", expr, loom_dtype_name(loom_array_dtype(r)),
                 loom_dtype_name(want));
    uint64_t bits;
    assert_int_equal(check_read_bits(ctx, r, &bits, 1), LOOM_STATUS_OK);
    return check_bits_to_double(want, bits);
}

static void test_parse_precedence_table(void **state) {
    (void)state;
    static const struct {
        const char *expr;
        double value;
    } ints[] = {
        {"-2**2", -4},
        {"2**3**2", 512},
        {"(-2)**2", 4},
        {"2+3*4", 14},
        {"(2+3)*4", 20},
        {"10-4-3", 3},
        {"2*3%4", 2},
        {"7//2*2", 6},
        {"1+2<<3", 24},
        {"1<<2+1", 8},
        {"1|2^3&4", 3},
        {"6&3|8", 10},
        {"5^3|1", 7},
        {"-7//2", -4},
        {"-7%3", 2},
        {"7%-3", -2},
        {"~5", -6},
        {"-~5", 6},
        {"--3", 3},
        {"2*-3", -6},
        {"+-+1", -1},
        {"0x1F", 31},
        {"0b101", 5},
        {"0o17", 15},
        {"1_000", 1000},
        {"True+True", 2},
        {"2**62*2-1", 9.223372036854775807e18},
        {"-2**63", -9.223372036854775808e18},
        {"64>>2>>1", 8},
        {"-9>>1", -5},
        {"3-2-1", 0},
        {"~-1", 0},
        {"2**2**0", 2},
        {"(2**2)**3", 64},
    };
    loom_ctx_t *ctx = check_cpu_ctx();
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        double got = scalar(ctx, ints[i].expr, LOOM_DTYPE_I64);
        if (got != ints[i].value)
            fail_msg("%s = %.17g, expected %.17g", ints[i].expr, got, ints[i].value);
    }
    static const struct {
        const char *expr;
        double value;
    } floats[] = {
        {"2**-1", 0.5},
        {"7/2", 3.5},
        {"1e3", 1000},
        {"1.5e-3", 0.0015},
        {".5", 0.5},
        {"5.", 5},
        {"-2.0**2", -4},
        {"7.5//2", 3},
        {"-7.5%2", 0.5},
        {"2**0.5", 1.4142135623730951},
        {"1/3*3", 1},
        {"1E+2", 100},
        {"pi", 3.141592653589793},
        {"-inf", -INFINITY},
        {"3 // 2.0", 1},
        {"6/4/2", 0.75},
    };
    for (size_t i = 0; i < sizeof floats / sizeof floats[0]; i++) {
        double got = scalar(ctx, floats[i].expr, LOOM_DTYPE_F64);
        if (got != floats[i].value)
            fail_msg("%s = %.17g, expected %.17g", floats[i].expr, got, floats[i].value);
    }
    static const struct {
        const char *expr;
        int value;
    } bools[] = {{"3 > 2", 1},           {"1+1 == 2", 1},     {"2 != 2.0", 0},
                 {"True & False", 0},    {"True | False", 1}, {"1 < 2 == True", -1},
                 {"(1 < 2) == True", 1}, {"1 & 3 == 3", 0},   {"(1 & 3) == 1", 1}};
    for (size_t i = 0; i < sizeof bools / sizeof bools[0]; i++) {
        if (bools[i].value < 0) {
            assert_true(loom_array_is_nil(loom_expr(ctx, bools[i].expr, 0, NULL, NULL)));
            loom_ctx_clear_error(ctx);
            continue;
        }
        double got = scalar(ctx, bools[i].expr, LOOM_DTYPE_BOOL);
        if (got != bools[i].value) fail_msg("%s = %g", bools[i].expr, got);
    }
    assert_true(isnan(scalar(ctx, "nan", LOOM_DTYPE_F64)));
    assert_true(isnan(scalar(ctx, "np.nan * 0", LOOM_DTYPE_F64)));
    loom_ctx_destroy(ctx);
}

static void test_parse_literals(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    assert_true(scalar(ctx, "9223372036854775807", LOOM_DTYPE_I64) == 9223372036854775807.0);
    assert_true(scalar(ctx, "18446744073709551615", LOOM_DTYPE_U64) == 18446744073709551615.0);
    assert_true(scalar(ctx, "2**64 - 1", LOOM_DTYPE_U64) == 18446744073709551615.0);
    assert_true(scalar(ctx, "2**100 // 2**98", LOOM_DTYPE_I64) == 4);
    assert_true(scalar(ctx, "True", LOOM_DTYPE_BOOL) == 1);
    assert_true(scalar(ctx, "False", LOOM_DTYPE_BOOL) == 0);
    /* Too large: the literal, the arithmetic, and a weak int next to an array. */
    static const char *const bad[] = {"170141183460469231731687303715884105728",
                                      "2**127",
                                      "2**64 + 0*zeros(1)",
                                      "1e400",
                                      "0x",
                                      "012",
                                      "1e",
                                      "1.5.2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_true(loom_array_is_nil(loom_expr(ctx, bad[i], 0, NULL, NULL)));
        assert_int_not_equal(loom_ctx_status(ctx), LOOM_STATUS_OK);
        assert_non_null(strchr(loom_ctx_message(ctx), '^'));
        loom_ctx_clear_error(ctx);
    }
    loom_ctx_destroy(ctx);
}

/* NEP 50: Python numbers are weak next to arrays; int8 + 1 stays int8, + 300 fails. */
static void test_parse_weak_scalars(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t n = 3;
    int8_t xi[3] = {1, -2, 3};
    float xf[3] = {1.5f, 2.5f, -3.0f};
    loom_array_t *arrs[2] = {loom_from_host(ctx, LOOM_DTYPE_I8, 1, &n, xi),
                             loom_from_host(ctx, LOOM_DTYPE_F32, 1, &n, xf)};
    const char *names[2] = {"x", "y"};
    static const struct {
        const char *expr;
        loom_dtype_t dtype;
    } cases[] = {
        {"x + 1", LOOM_DTYPE_I8},
        {"x * 2.5", LOOM_DTYPE_F64},
        {"y * 2.5", LOOM_DTYPE_F32},
        {"x + y", LOOM_DTYPE_F32},
        {"x / 2", LOOM_DTYPE_F64},
        {"x > 0", LOOM_DTYPE_BOOL},
        {"x + 2**3", LOOM_DTYPE_I8},
        {"-x", LOOM_DTYPE_I8},
        {"~x", LOOM_DTYPE_I8},
        {"x ** 2", LOOM_DTYPE_I8},
        {"y ** 2", LOOM_DTYPE_F32},
        {"x & 3", LOOM_DTYPE_I8},
        {"x + True", LOOM_DTYPE_I8},
        {"sqrt(x)", LOOM_DTYPE_F16},
        {"sqrt(2)", LOOM_DTYPE_F64},
        {"add(2, 3)", LOOM_DTYPE_I64},
        {"x.astype('float32') + 1", LOOM_DTYPE_F32},
        {"np.float32(x)", LOOM_DTYPE_F32},
        {"where(x > 0, x, 0)", LOOM_DTYPE_I8},
        {"clip(x, 0, 2)", LOOM_DTYPE_I8},
        {"clip(y, None, 2)", LOOM_DTYPE_F32},
        {"astype(y, dtype=int16)", LOOM_DTYPE_I16},
        {"maximum(x, y)", LOOM_DTYPE_F32},
        {"x < 300", LOOM_DTYPE_BOOL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        loom_array_t *r = loom_expr(ctx, cases[i].expr, 2, names, arrs);
        if (loom_array_is_nil(r)) fail_msg("%s: %s", cases[i].expr, loom_ctx_message(ctx));
        if (loom_array_dtype(r) != cases[i].dtype)
            fail_msg("%s: dtype %s, expected %s", cases[i].expr,
                     loom_dtype_name(loom_array_dtype(r)), loom_dtype_name(cases[i].dtype));
    }
    int8_t out[3];
    assert_int_equal(loom_read(ctx, loom_expr(ctx, "x * 3 - 1", 2, names, arrs), out, 3), 0);
    assert_int_equal(out[0], 2);
    assert_int_equal(out[1], -7);
    assert_int_equal(out[2], 8);
    assert_true(loom_array_is_nil(loom_expr(ctx, "x + 300", 2, names, arrs)));
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_OVERFLOW);
    assert_true(check_has_word(loom_ctx_message(ctx), "int8"));
    assert_non_null(strstr(loom_ctx_message(ctx), "\n  x + 300\n    ^"));
    loom_ctx_clear_error(ctx);
    loom_ctx_destroy(ctx);
}

/* NumPy 2's power at -0.0 and -inf, where sqrt and pow differ: `**` of a float array and a
 * Python number takes array_power's fast paths (int 2 square, int -1 reciprocal, float 0.5
 * sqrt) for every float dtype; np.power itself takes sqrt for a scalar 0.5 in its float32 and
 * float64 loops only, so float16 and an exponent array keep pow (NumPy 2.4.6:
 * power(float16 x, 0.5) = [0, inf], x ** 0.5 = [-0, nan], power(x, full(3, 0.5)) = [0, inf]). */
static void test_parse_power_fast_paths(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t n = 3;
    float xf[3] = {-0.0f, -INFINITY, 4.0f}, half[3] = {0.5f, 0.5f, 0.5f};
    loom_array_t *arrs[3] = {loom_from_host(ctx, LOOM_DTYPE_F32, 1, &n, xf),
                             loom_from_host(ctx, LOOM_DTYPE_F32, 1, &n, half), NULL};
    arrs[2] = loom_astype(ctx, arrs[0], LOOM_DTYPE_F16);
    const char *names[3] = {"x", "h", "x16"};
    static const struct {
        const char *expr;
        bool sqrt_like; /* -0.0 -> -0.0 and -inf -> NaN; else pow's +0.0 and +inf */
    } cases[] = {
        {"x ** 0.5", true},           {"power(x, 0.5)", true},     {"x16 ** 0.5", true},
        {"power(x16, 0.5)", false},   {"power(x, h)", false},      {"x ** h", false},
        {"(x * 1.0) ** 0.5", true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        loom_array_t *r = loom_astype(ctx, loom_expr(ctx, cases[i].expr, 3, names, arrs),
                                      LOOM_DTYPE_F32);
        float out[3];
        if (loom_read(ctx, r, out, sizeof out)) fail_msg("%s: %s", cases[i].expr, loom_ctx_message(ctx));
        bool sq = out[0] == 0.0f && signbit(out[0]) && isnan(out[1]);
        bool pw = out[0] == 0.0f && !signbit(out[0]) && out[1] == INFINITY;
        if (cases[i].sqrt_like ? !sq : !pw)
            fail_msg("%s: %g %g, expected %s", cases[i].expr, (double)out[0], (double)out[1],
                     cases[i].sqrt_like ? "-0 nan" : "0 inf");
        assert_true(out[2] == 2.0f);
    }
    float out[3];
    assert_int_equal(loom_read(ctx, loom_expr(ctx, "x ** 2", 3, names, arrs), out, sizeof out), 0);
    assert_true(out[0] == 0.0f && !signbit(out[0]) && out[1] == INFINITY && out[2] == 16.0f);
    assert_int_equal(loom_read(ctx, loom_expr(ctx, "x ** -1", 3, names, arrs), out, sizeof out), 0);
    assert_true(out[0] == -INFINITY && out[1] == 0.0f && signbit(out[1]) && out[2] == 0.25f);
    loom_ctx_destroy(ctx);
}

static void test_parse_calls_and_constructors(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    struct {
        const char *expr;
        loom_dtype_t dtype;
        int32_t ndim;
        int64_t d0;
        double first, last;
    } cases[] = {
        {"zeros((2, 3))", LOOM_DTYPE_F64, 2, 2, 0, 0},
        {"ones(4, dtype='int8')", LOOM_DTYPE_I8, 1, 4, 1, 1},
        {"np.ones([2], float32)", LOOM_DTYPE_F32, 1, 2, 1, 1},
        {"full((3,), 7)", LOOM_DTYPE_I64, 1, 3, 7, 7},
        {"full(3, 2.5)", LOOM_DTYPE_F64, 1, 3, 2.5, 2.5},
        {"full(3, True)", LOOM_DTYPE_BOOL, 1, 3, 1, 1},
        {"full(2, 7, dtype=uint8)", LOOM_DTYPE_U8, 1, 2, 7, 7},
        {"arange(5)", LOOM_DTYPE_I64, 1, 5, 0, 4},
        {"arange(1, 2, 0.25)", LOOM_DTYPE_F64, 1, 4, 1, 1.75},
        {"arange(10, 0, -3, dtype='int16')", LOOM_DTYPE_I16, 1, 4, 10, 1},
        {"linspace(0, 1, 5)", LOOM_DTYPE_F64, 1, 5, 0, 1},
        {"linspace(0, 1, num=4, endpoint=False)", LOOM_DTYPE_F64, 1, 4, 0, 0.75},
        {"eye(3, k=1, dtype='bool')", LOOM_DTYPE_BOOL, 2, 3, 0, 0},
        {"abs(-arange(3))", LOOM_DTYPE_I64, 1, 3, 0, 2},
        {"absolute(-2.5)", LOOM_DTYPE_F64, 0, 0, 2.5, 2.5},
        {"float16(1) + 1", LOOM_DTYPE_F16, 0, 0, 2, 2},
        {"int(2.7) + float(1)", LOOM_DTYPE_F64, 0, 0, 3, 3},
        {"arange(4).astype(bfloat16) * 2", LOOM_DTYPE_BF16, 1, 4, 0, 6},
        {"hypot(3.0, 4)", LOOM_DTYPE_F64, 0, 0, 5, 5},
        {"x = arange(3)\ny = x * x; y + 1", LOOM_DTYPE_I64, 1, 3, 1, 5},
        {"a = 2; a = a * a; a + 0.5  # comment", LOOM_DTYPE_F64, 0, 0, 4.5, 4.5},
        {"(1 +\n 2)", LOOM_DTYPE_I64, 0, 0, 3, 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        loom_array_t *r = loom_expr(ctx, cases[i].expr, 0, NULL, NULL);
        if (loom_array_is_nil(r)) fail_msg("%s: %s", cases[i].expr, loom_ctx_message(ctx));
        if (loom_array_dtype(r) != cases[i].dtype || loom_array_ndim(r) != cases[i].ndim ||
            (cases[i].ndim && loom_array_dim(r, 0) != cases[i].d0))
            fail_msg("%s: %s, ndim %d", cases[i].expr, loom_dtype_name(loom_array_dtype(r)),
                     loom_array_ndim(r));
        int64_t n = loom_array_size(r);
        uint64_t bits[16];
        assert_true(n <= 16);
        assert_int_equal(check_read_bits(ctx, r, bits, n), LOOM_STATUS_OK);
        double first = check_bits_to_double(cases[i].dtype, bits[0]);
        double last = check_bits_to_double(cases[i].dtype, bits[n - 1]);
        if (first != cases[i].first || last != cases[i].last)
            fail_msg("%s: first %g last %g", cases[i].expr, first, last);
    }
    loom_ctx_destroy(ctx);
}

static void test_parse_named_outputs(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t n = 2;
    double xv[2] = {1, 2};
    loom_array_t *x = loom_from_host(ctx, LOOM_DTYPE_F64, 1, &n, xv);
    const char *names[1] = {"x"};
    const char *outs_wanted[3] = {"b", NULL, "x"};
    loom_array_t *outs[3];
    assert_int_equal(
        loom_parse(ctx, "a = x + 1; b = a * 2; a - 1", 1, names, &x, 3, outs_wanted, outs),
        LOOM_STATUS_OK);
    assert_int_equal(loom_eval(ctx, 3, outs), LOOM_STATUS_OK);
    double v[2];
    assert_int_equal(loom_read(ctx, outs[0], v, sizeof v), LOOM_STATUS_OK);
    assert_true(v[0] == 4 && v[1] == 6);
    assert_int_equal(loom_read(ctx, outs[1], v, sizeof v), LOOM_STATUS_OK);
    assert_true(v[0] == 1 && v[1] == 2);
    assert_true(outs[2] == x);
    /* An assignment shadows a bound name; the last statement may be an assignment. */
    assert_int_equal(loom_parse(ctx, "x = x * 10", 1, names, &x, 1, NULL, outs), LOOM_STATUS_OK);
    assert_int_equal(loom_read(ctx, outs[0], v, sizeof v), LOOM_STATUS_OK);
    assert_true(v[0] == 10);
    /* A missing output lists the names. */
    const char *bad[1] = {"zz"};
    assert_int_equal(loom_parse(ctx, "a = x + 1", 1, names, &x, 1, bad, outs),
                     LOOM_STATUS_INVALID_ARGUMENT);
    assert_true(loom_array_is_nil(outs[0]));
    assert_non_null(strstr(loom_ctx_message(ctx), "'zz'"));
    assert_non_null(strstr(loom_ctx_message(ctx), "x, a"));
    loom_ctx_clear_error(ctx);
    loom_ctx_destroy(ctx);
}

/* A result that is a bound array (the program `x`, or a variable holding it) belongs to the
 * current scope like any other result: it outlives the caller's own reference to the array,
 * which once freed it under the result. */
static void test_parse_bound_result_belongs_to_scope(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    loom_scope_begin(ctx);
    loom_array_t *x = loom_array_retain(loom_arange(ctx, 0, 3, 1, LOOM_DTYPE_F32));
    loom_scope_end(ctx); /* x lives by the retain alone */
    const char *names[1] = {"x"}, *wanted[2] = {"x", NULL};
    loom_array_t *y = loom_expr(ctx, "x", 1, names, &x), *outs[2];
    assert_true(y == x);
    assert_int_equal(loom_parse(ctx, "z = x; z", 1, names, &x, 2, wanted, outs), LOOM_STATUS_OK);
    assert_true(outs[0] == x && outs[1] == x);
    loom_array_release(x);
    float v[3];
    for (int i = 0; i < 3; i++) {
        assert_int_equal(loom_read(ctx, i ? outs[i - 1] : y, v, sizeof v), LOOM_STATUS_OK);
        assert_true(v[0] == 0 && v[2] == 2);
    }
    loom_ctx_destroy(ctx);
}

/* The message must contain the line and a caret under column col (0-based). */
static void expect_caret(loom_ctx_t *ctx, const char *expr, loom_status_t st, const char *phrase,
                         int col) {
    int64_t n = 3;
    loom_array_t *arrs[2] = {loom_zeros(ctx, LOOM_DTYPE_F32, 1, &n),
                             loom_zeros(ctx, LOOM_DTYPE_I32, 1, &n)};
    const char *names[2] = {"x", "y"};
    assert_true(loom_array_is_nil(loom_expr(ctx, expr, 2, names, arrs)));
    const char *msg = loom_ctx_message(ctx);
    if (loom_ctx_status(ctx) != st)
        fail_msg("%s: status %s, expected %s (%s)", expr, loom_status_string(loom_ctx_status(ctx)),
                 loom_status_string(st), msg);
    if (!strstr(msg, phrase)) fail_msg("%s: \"%s\" lacks \"%s\"", expr, msg, phrase);
    const char *nl = strchr(msg, '\n');
    const char *line = nl ? strchr(nl + 1, '\n') : NULL;
    if (!line) fail_msg("%s: no caret line in \"%s\"", expr, msg);
    line++;
    int caret = (int)(strchr(line, '^') - line) - 2;
    if (caret != col) fail_msg("%s: caret at %d, expected %d:\n%s", expr, caret, col, msg);
    loom_ctx_clear_error(ctx);
}

static void test_parse_errors_with_carets(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    expect_caret(ctx, "x + * 2", LOOM_STATUS_INVALID_ARGUMENT, "unexpected '*'", 4);
    expect_caret(ctx, "3 +", LOOM_STATUS_INVALID_ARGUMENT, "unexpected end of input", 3);
    expect_caret(ctx, "(x + 1", LOOM_STATUS_INVALID_ARGUMENT, "expected ')'", 6);
    expect_caret(ctx, "x $ 1", LOOM_STATUS_INVALID_ARGUMENT, "unexpected character '$'", 2);
    expect_caret(ctx, "x + z", LOOM_STATUS_INVALID_ARGUMENT, "unknown name 'z' (bound names: x, y)",
                 4);
    expect_caret(ctx, "a = 1; x + a + b", LOOM_STATUS_INVALID_ARGUMENT, "bound names: x, y, a", 15);
    /* the variables in the order of assignment, a name called before it is assigned too */
    expect_caret(ctx, "c = sin(x); d = 1; sin = x; c + q", LOOM_STATUS_INVALID_ARGUMENT,
                 "bound names: x, y, c, d, sin", 32);
    expect_caret(ctx, "sqrt(x, y)", LOOM_STATUS_INVALID_ARGUMENT, "at most 1 positional", 8);
    expect_caret(ctx, "sqrt(x, out=y)", LOOM_STATUS_INVALID_ARGUMENT,
                 "unexpected keyword argument 'out'", 8);
    expect_caret(ctx, "where(x > 0, x)", LOOM_STATUS_INVALID_ARGUMENT, "both or neither of x and y",
                 0);
    expect_caret(ctx, "frobnicate(x)", LOOM_STATUS_INVALID_ARGUMENT, "unknown function", 0);
    expect_caret(ctx, "x.astype('complex32')", LOOM_STATUS_DTYPE_ERROR, "not understood", 9);
    expect_caret(ctx, "x + 2jx", LOOM_STATUS_INVALID_ARGUMENT, "invalid number literal", 6);
    expect_caret(ctx, "x.copy(order='X')", LOOM_STATUS_INVALID_ARGUMENT, "order must be", 13);
    expect_caret(ctx, "x and y", LOOM_STATUS_INVALID_ARGUMENT, "logical_and", 2);
    expect_caret(ctx, "x < y < 1", LOOM_STATUS_INVALID_ARGUMENT, "chained", 6);
    expect_caret(ctx, "x += 1", LOOM_STATUS_INVALID_ARGUMENT, "augmented", 2);
    expect_caret(ctx, "1 // 0", LOOM_STATUS_INVALID_ARGUMENT, "division by zero", 2);
    expect_caret(ctx, "x + 'a'", LOOM_STATUS_INVALID_ARGUMENT, "not a string", 4);
    expect_caret(ctx, "sqrt", LOOM_STATUS_INVALID_ARGUMENT, "is a function", 0);
    expect_caret(ctx, "x(1)", LOOM_STATUS_INVALID_ARGUMENT, "not a function", 0);
    expect_caret(ctx, "x.shape", LOOM_STATUS_INVALID_ARGUMENT, "attribute 'shape'", 2);
    /* The builders' own errors (shapes, dtypes) get the caret of the operator or call. */
    expect_caret(ctx, "x + arange(4)", LOOM_STATUS_SHAPE_MISMATCH, "(3,) (4,)", 2);
    expect_caret(ctx, "y << 1.5", LOOM_STATUS_DTYPE_ERROR, "left_shift", 2);
    expect_caret(ctx, "sin(x) & y", LOOM_STATUS_DTYPE_ERROR, "bitwise_and", 7);
    expect_caret(ctx, "negative(x > 0)", LOOM_STATUS_DTYPE_ERROR, "bool", 0);
    /* Multi-line programs name the line; the caret is under the column of that line. */
    expect_caret(ctx, "a = x\nb = a +\n", LOOM_STATUS_INVALID_ARGUMENT, "(line 2)", 7);
    expect_caret(ctx, "a = x\n\tb = ?", LOOM_STATUS_INVALID_ARGUMENT, "'?'", 5);
    loom_ctx_destroy(ctx);
}

/* ---- Deep and long programs ---------------------------------------------------------- */

/* The nesting limit docs/guide.md states for parentheses, brackets, calls and subscripts. */
#define NEST_LIMIT 256

/* One program: open n times, then mid, then close n times. want OK: the first element of
 * the result (as float64) is value; else the status, with phrase in the message. */
typedef struct deep_case {
    const char *open, *mid, *close;
    int n;
    loom_status_t want;
    double value;
    const char *phrase;
} deep_case_t;

typedef struct deep_run {
    const deep_case_t *cases;
    size_t n_cases;
    int failed;
} deep_run_t;

static char *deep_text(const deep_case_t *c) {
    size_t lo = strlen(c->open), lm = strlen(c->mid), lc = strlen(c->close);
    char *s = malloc((lo + lc) * (size_t)c->n + lm + 1), *p = s;
    if (!s) return NULL;
    for (int i = 0; i < c->n; i++, p += lo) memcpy(p, c->open, lo);
    memcpy(p, c->mid, lm);
    p += lm;
    for (int i = 0; i < c->n; i++, p += lc) memcpy(p, c->close, lc);
    *p = '\0';
    return s;
}

/* Runs each case on a fresh CPU context, over x = ones(2) float64 and y = ones(2) int64;
 * reports mismatches on stderr (no cmocka calls: this runs in a forked child's thread). */
static void *deep_thread(void *arg) {
    deep_run_t *run = arg;
    for (size_t i = 0; i < run->n_cases; i++) {
        const deep_case_t *c = &run->cases[i];
        loom_options_t o = {.device = LOOM_DEVICE_CPU};
        loom_ctx_t *ctx = NULL;
        char *text = deep_text(c);
        if (!text || loom_ctx_create(&o, &ctx) != LOOM_STATUS_OK) {
            fprintf(stderr, "case %zu: no context or no memory\n", i);
            run->failed++;
            free(text);
            continue;
        }
        int64_t two = 2;
        loom_array_t *in[2] = {loom_ones(ctx, LOOM_DTYPE_F64, 1, &two),
                               loom_ones(ctx, LOOM_DTYPE_I64, 1, &two)};
        const char *names[2] = {"x", "y"};
        loom_array_t *r = loom_astype(ctx, loom_expr(ctx, text, 2, names, in), LOOM_DTYPE_F64);
        double v[2] = {0, 0};
        size_t nb = loom_array_nbytes(r);
        loom_status_t st = loom_ctx_status(ctx);
        if (st == LOOM_STATUS_OK) st = loom_read(ctx, r, v, nb <= sizeof v ? nb : sizeof v);
        const char *msg = loom_ctx_message(ctx);
        bool ok = st == c->want && (st != LOOM_STATUS_OK ? strstr(msg, c->phrase) != NULL
                                                         : nb >= sizeof v[0] && v[0] == c->value);
        if (!ok) {
            fprintf(stderr, "case %zu (%s x %d, %s, %s x %d): %s, %g: %.300s\n", i, c->open, c->n,
                    c->mid, c->close, c->n, loom_status_string(st), v[0], msg);
            run->failed++;
        }
        loom_ctx_destroy(ctx);
        free(text);
    }
    return NULL;
}

/* Runs the cases in a forked child, on a thread of stack_kib KiB: a stack overflow kills the
 * child, not the test. */
static void run_deep(const deep_case_t *cases, size_t n, size_t stack_kib) {
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        deep_run_t run = {cases, n, 0};
        pthread_attr_t attr;
        pthread_t t;
        if (pthread_attr_init(&attr) || pthread_attr_setstacksize(&attr, stack_kib << 10) ||
            pthread_create(&t, &attr, deep_thread, &run) || pthread_join(t, NULL))
            _exit(3);
        _exit(run.failed ? 1 : 0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (WIFSIGNALED(status)) fail_msg("the child was killed by signal %d", WTERMSIG(status));
    if (WEXITSTATUS(status)) fail_msg("%d: cases failed (see stderr)", WEXITSTATUS(status));
}

#define DEPTH_ERR "nests deeper than 256 levels"

/* The programs that overflowed the stack: long chains work (loops, in the parser and the
 * evaluator), deep nesting stops at the limit, on a 1 MiB stack. */
static void test_parse_deep_programs_do_not_crash(void **state) {
    (void)state;
    static const deep_case_t cases[] = {
        {"(", "x", ")", 30000, LOOM_STATUS_INVALID_ARGUMENT, 0, DEPTH_ERR},
        {"-", "x", "", 40000, LOOM_STATUS_OK, 1, NULL},
        {"x+", "x", "", 39999, LOOM_STATUS_OK, 40000, NULL},
        {"", "x", "[0]", 20000, LOOM_STATUS_INDEX_ERROR, 0, "too many indices"},
        {"", "x", "[:]", 5000, LOOM_STATUS_OK, 1, NULL},
        {"", "x", "[None][0]", 1000, LOOM_STATUS_OK, 1, NULL},
        {"", "x", ".T", 5000, LOOM_STATUS_OK, 1, NULL},
        {"", "x", ".sum()", 20000, LOOM_STATUS_OK, 2, NULL},
        {"x**", "x", "", 40000, LOOM_STATUS_OK, 1, NULL},
        {"-x**-", "x", "", 40000, LOOM_STATUS_OK, -1, NULL},
        {"~", "y", "", 40001, LOOM_STATUS_OK, -2, NULL},
        {"1+", "0", "", 40000, LOOM_STATUS_OK, 40000, NULL},
        {"sqrt(", "x", ")", 30000, LOOM_STATUS_INVALID_ARGUMENT, 0, DEPTH_ERR},
        {"[", "x", "]", 30000, LOOM_STATUS_INVALID_ARGUMENT, 0, DEPTH_ERR},
        {"x[", "0", "]", 30000, LOOM_STATUS_INVALID_ARGUMENT, 0, DEPTH_ERR},
        {"x.sum(axis=", "0", ")", 30000, LOOM_STATUS_INVALID_ARGUMENT, 0, DEPTH_ERR},
        {"x+", "x", "", 199999, LOOM_STATUS_OK, 200000, NULL},
        {"-", "x", "", 200000, LOOM_STATUS_OK, 1, NULL},
        {"(", "x", ")", 200000, LOOM_STATUS_INVALID_ARGUMENT, 0, DEPTH_ERR},
        {"x*", "x", "+x", 20000, LOOM_STATUS_OK, 20001, NULL},
    };
    run_deep(cases, sizeof cases / sizeof cases[0], 1024);
}

/* Nesting up to the limit works, one more level is refused with the caret under it; the
 * deepest legal program, with every precedence level between its calls (the most stack per
 * level), fits in 512 KiB. */
static void test_parse_nesting_limit(void **state) {
    (void)state;
    static const deep_case_t cases[] = {
        {"(", "x", ")", 200, LOOM_STATUS_OK, 1, NULL},
        {"(", "x", ")", NEST_LIMIT, LOOM_STATUS_OK, 1, NULL},
        {"(", "x", ")", NEST_LIMIT + 1, LOOM_STATUS_INVALID_ARGUMENT, 0, DEPTH_ERR},
        {"sqrt(", "x", ")", 200, LOOM_STATUS_OK, 1, NULL},
        {"[", "x", "]", NEST_LIMIT, LOOM_STATUS_INVALID_ARGUMENT, 0, "more than 8"},
        {"x[", "0", "]", NEST_LIMIT, LOOM_STATUS_DTYPE_ERROR, 0, "indices must be integers"},
        {"clip(x, a_min=", "x", ")", NEST_LIMIT, LOOM_STATUS_OK, 1, NULL},
        {"y|y^y&y<<y+y*y**sum(", "y", ")", NEST_LIMIT, LOOM_STATUS_OK, 1, NULL},
        {"y|y^y&y<<y+y*-y**-(y//y%y)%sum(", "y", ")", NEST_LIMIT - 1, LOOM_STATUS_OK, 1, NULL},
        {"(y < -y.T[::-1]) | (", "y", ")", NEST_LIMIT - 1, LOOM_STATUS_OK, 1, NULL},
    };
    run_deep(cases, sizeof cases / sizeof cases[0], 512);

    /* The message names the limit; the caret is under the bracket that goes past it (a long
     * line shows a window around the column). */
    loom_ctx_t *ctx = check_cpu_ctx();
    deep_case_t over = {"(", "x", ")", NEST_LIMIT + 1, 0, 0, NULL};
    char *text = deep_text(&over);
    assert_non_null(text);
    text[NEST_LIMIT + 1] = '1'; /* a '1' right after the paren that goes too deep */
    assert_true(loom_array_is_nil(loom_expr(ctx, text, 0, NULL, NULL)));
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_INVALID_ARGUMENT);
    const char *msg = loom_ctx_message(ctx);
    if (!strstr(msg, "expression nests deeper than 256 levels (parentheses, brackets, calls, "
                     "subscripts)"))
        fail_msg("message: %s", msg);
    const char *src = strchr(msg, '\n'), *caret = src ? strchr(src + 1, '\n') : NULL;
    assert_non_null(caret);
    src += 1;
    caret += 1;
    const char *hat = strchr(caret, '^');
    assert_non_null(hat);
    assert_int_equal(src[hat - caret], '(');
    assert_int_equal(src[hat - caret + 1], '1');
    free(text);
    loom_ctx_destroy(ctx);
}

/* Reductions, views, joins and indexing against NumPy's answers, over
 * x = arange(24).reshape(2, 3, 4) (float64) and y = arange(5) (int32): shape, dtype and the
 * whole result in C order (at most 12 elements checked; results are written out exactly). */
static void test_parse_views_and_reductions(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    static const struct {
        const char *expr;
        loom_dtype_t dtype;
        int32_t ndim;
        int64_t shape[4];
        int n;
        double v[12];
    } cases[] = {
        {"sum(x)", LOOM_DTYPE_F64, 0, {0}, 1, {276}},
        {"x.sum(axis=(0, 2), keepdims=True)", LOOM_DTYPE_F64, 3, {1, 3, 1}, 3, {60, 92, 124}},
        {"np.sum(y, axis=-1)", LOOM_DTYPE_I64, 0, {0}, 1, {10}},
        {"prod(y[1:])", LOOM_DTYPE_I64, 0, {0}, 1, {24}},
        {"mean(y)", LOOM_DTYPE_F64, 0, {0}, 1, {2}},
        {"x.max(axis=1)[1]", LOOM_DTYPE_F64, 1, {4}, 4, {20, 21, 22, 23}},
        {"min(x, 2)", LOOM_DTYPE_F64, 2, {2, 3}, 6, {0, 4, 8, 12, 16, 20}},
        {"amax(y)", LOOM_DTYPE_I32, 0, {0}, 1, {4}},
        {"argmax(x, axis=1)[0]", LOOM_DTYPE_I64, 1, {4}, 4, {2, 2, 2, 2}},
        {"y.argmin()", LOOM_DTYPE_I64, 0, {0}, 1, {0}},
        {"any(y > 3)", LOOM_DTYPE_BOOL, 0, {0}, 1, {1}},
        {"all(y, keepdims=True)", LOOM_DTYPE_BOOL, 1, {1}, 1, {0}},
        {"var(y)", LOOM_DTYPE_F64, 0, {0}, 1, {2}},
        {"y.var(ddof=1)", LOOM_DTYPE_F64, 0, {0}, 1, {2.5}},
        {"std(y[:3], ddof=1.0)", LOOM_DTYPE_F64, 0, {0}, 1, {1}},
        {"cumsum(y)", LOOM_DTYPE_I64, 1, {5}, 5, {0, 1, 3, 6, 10}},
        {"cumprod(y[1:], axis=0)", LOOM_DTYPE_I64, 1, {4}, 4, {1, 2, 6, 24}},
        {"reshape(y[1:], (2, -1))", LOOM_DTYPE_I32, 2, {2, 2}, 4, {1, 2, 3, 4}},
        {"x.reshape(4, 6)[:, 5]", LOOM_DTYPE_F64, 1, {4}, 4, {5, 11, 17, 23}},
        {"x.T[:, 0, 1]", LOOM_DTYPE_F64, 1, {4}, 4, {12, 13, 14, 15}},
        {"x.transpose(2, 0, 1)[1, 1]", LOOM_DTYPE_F64, 1, {3}, 3, {13, 17, 21}},
        {"transpose(x, (1, 2, 0))[2, 3]", LOOM_DTYPE_F64, 1, {2}, 2, {11, 23}},
        {"x.mT[0, 3]", LOOM_DTYPE_F64, 1, {3}, 3, {3, 7, 11}},
        {"broadcast_to(y, (2, 5))[1]", LOOM_DTYPE_I32, 1, {5}, 5, {0, 1, 2, 3, 4}},
        {"expand_dims(y, (0, 2))", LOOM_DTYPE_I32, 3, {1, 5, 1}, 5, {0, 1, 2, 3, 4}},
        {"squeeze(x[:1, :, :1])", LOOM_DTYPE_F64, 1, {3}, 3, {0, 4, 8}},
        {"flip(y)", LOOM_DTYPE_I32, 1, {5}, 5, {4, 3, 2, 1, 0}},
        {"flip(x, axis=(0, 2))[0, 0]", LOOM_DTYPE_F64, 1, {4}, 4, {15, 14, 13, 12}},
        {"moveaxis(x, 0, -1)[2, 1]", LOOM_DTYPE_F64, 1, {2}, 2, {9, 21}},
        {"y.ravel()", LOOM_DTYPE_I32, 1, {5}, 5, {0, 1, 2, 3, 4}},
        {"concatenate((y, y[:2] * 1.5))", LOOM_DTYPE_F64, 1, {7}, 7, {0, 1, 2, 3, 4, 0, 1.5}},
        {"concatenate([x[0], x[1]], axis=None)[-2:]", LOOM_DTYPE_F64, 1, {2}, 2, {22, 23}},
        {"stack((y, y), axis=1)[3]", LOOM_DTYPE_I32, 1, {2}, 2, {3, 3}},
        {"y[-1]", LOOM_DTYPE_I32, 0, {0}, 1, {4}},
        {"y[1:10:2]", LOOM_DTYPE_I32, 1, {2}, 2, {1, 3}},
        {"y[::-2]", LOOM_DTYPE_I32, 1, {3}, 3, {4, 2, 0}},
        {"y[-2::-3]", LOOM_DTYPE_I32, 1, {2}, 2, {3, 0}},
        {"y[:, None]", LOOM_DTYPE_I32, 2, {5, 1}, 5, {0, 1, 2, 3, 4}},
        {"x[..., 0]", LOOM_DTYPE_F64, 2, {2, 3}, 6, {0, 4, 8, 12, 16, 20}},
        {"x[1, ..., None, -1]", LOOM_DTYPE_F64, 2, {3, 1}, 3, {15, 19, 23}},
        {"x[-1:, ::2, None, 1:3]", LOOM_DTYPE_F64, 4, {1, 2, 1, 2}, 4, {13, 14, 21, 22}},
        {"x[(0, 1)]", LOOM_DTYPE_F64, 1, {4}, 4, {4, 5, 6, 7}},
        {"y[7:]", LOOM_DTYPE_I32, 1, {0}, 0, {0}},
        {"y[...]", LOOM_DTYPE_I32, 1, {5}, 5, {0, 1, 2, 3, 4}},
        {"sum(x[0, 0]) + y[2]", LOOM_DTYPE_F64, 0, {0}, 1, {8}},
    };
    int64_t shape[3] = {2, 3, 4};
    loom_array_t *arrs[2] = {
        loom_reshape(ctx, loom_arange(ctx, 0, 24, 1, LOOM_DTYPE_F64), 3, shape),
        loom_arange(ctx, 0, 5, 1, LOOM_DTYPE_I32)};
    const char *names[2] = {"x", "y"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        loom_array_t *r = loom_expr(ctx, cases[i].expr, 2, names, arrs);
        if (loom_array_is_nil(r)) fail_msg("%s: %s", cases[i].expr, loom_ctx_message(ctx));
        if (loom_array_dtype(r) != cases[i].dtype || loom_array_ndim(r) != cases[i].ndim)
            fail_msg("%s: %s, ndim %d", cases[i].expr, loom_dtype_name(loom_array_dtype(r)),
                     loom_array_ndim(r));
        for (int32_t a = 0; a < cases[i].ndim; a++)
            if (loom_array_dim(r, a) != cases[i].shape[a])
                fail_msg("%s: axis %d has extent %lld", cases[i].expr, a,
                         (long long)loom_array_dim(r, a));
        assert_int_equal(loom_array_size(r), cases[i].n);
        uint64_t bits[12];
        if (cases[i].n == 0) continue;
        assert_int_equal(check_read_bits(ctx, r, bits, cases[i].n), LOOM_STATUS_OK);
        for (int k = 0; k < cases[i].n; k++) {
            double got = check_bits_to_double(cases[i].dtype, bits[k]);
            if (got != cases[i].v[k])
                fail_msg("%s: element %d is %.17g, expected %.17g", cases[i].expr, k, got,
                         cases[i].v[k]);
        }
    }
    loom_ctx_destroy(ctx);
}

/* Index, axis and argument errors: the caret under the offending item. */
/* NumPy's reductions, argmax/argmin and scans take axis 0 or -1 of a 0-d array as the whole
 * array (np.cumsum gives shape (1,)); mean/var/std and axis tuples do not. */
static void test_parse_zero_d_axis(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    static const struct {
        const char *expr;
        int32_t ndim;
        double value;
    } ok[] = {{"sum(array(3.0), axis=0)", 0, 3},           {"prod(array(3.0), axis=-1)", 0, 3},
              {"max(array(3.0), axis=0, keepdims=True)", 0, 3}, {"argmax(array(3.0), axis=-1)", 0, 0},
              {"count_nonzero(array(3.0), axis=0)", 0, 1}, {"cumsum(array(3.0), axis=0)", 1, 3},
              {"cumprod(array(3.0), axis=-1)", 1, 3},      {"sum(array(3.0), axis=())", 0, 3}};
    for (size_t k = 0; k < sizeof ok / sizeof *ok; k++) {
        loom_scope_begin(ctx);
        loom_array_t *r = loom_expr(ctx, ok[k].expr, 0, NULL, NULL);
        if (loom_array_is_nil(r)) fail_msg("%s: %s", ok[k].expr, loom_ctx_message(ctx));
        assert_int_equal(loom_array_ndim(r), ok[k].ndim);
        double v = -1;
        assert_int_equal(loom_read(ctx, loom_astype(ctx, r, LOOM_DTYPE_F64), &v, sizeof v),
                         LOOM_STATUS_OK);
        if (v != ok[k].value) fail_msg("%s: %g, NumPy %g", ok[k].expr, v, ok[k].value);
        loom_scope_end(ctx);
    }
    expect_caret(ctx, "mean(array(3.0), axis=0)", LOOM_STATUS_INVALID_ARGUMENT,
                 "axis 0 is out of bounds for array of dimension 0", 0);
    expect_caret(ctx, "sum(array(3.0), axis=(0,))", LOOM_STATUS_INVALID_ARGUMENT,
                 "axis 0 is out of bounds for array of dimension 0", 21);
    loom_ctx_destroy(ctx);
}

static void test_parse_index_errors(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    /* x is float32 (3,), y int32 (3,) (see expect_caret). */
    expect_caret(ctx, "x[3]", LOOM_STATUS_INDEX_ERROR,
                 "index 3 is out of bounds for axis 0 with size 3", 2);
    expect_caret(ctx, "x[:, -4]", LOOM_STATUS_INDEX_ERROR, "too many indices", 1);
    expect_caret(ctx, "x[None, -4]", LOOM_STATUS_INDEX_ERROR, "index -4 is out of bounds", 8);
    expect_caret(ctx, "1 + x[0, 1]", LOOM_STATUS_INDEX_ERROR,
                 "array is 1-dimensional, but 2 were indexed", 5);
    expect_caret(ctx, "x[..., ...]", LOOM_STATUS_INVALID_ARGUMENT, "single ellipsis", 7);
    expect_caret(ctx, "x[] + 1", LOOM_STATUS_INVALID_ARGUMENT, "empty subscript", 2);
    expect_caret(ctx, "x[::0]", LOOM_STATUS_INVALID_ARGUMENT, "step cannot be zero", 4);
    expect_caret(ctx, "x[1.5]", LOOM_STATUS_INVALID_ARGUMENT, "valid indices", 2);
    expect_caret(ctx, "x[:'a']", LOOM_STATUS_INVALID_ARGUMENT, "slice indices", 3);
    expect_caret(ctx, "x[x[None] > 0]", LOOM_STATUS_INDEX_ERROR,
                 "too many indices for array: array is 1-dimensional, but 2 were indexed", 10);
    expect_caret(ctx, "x[x]", LOOM_STATUS_DTYPE_ERROR, "indices must be integers", 2);
    expect_caret(ctx, "x[0, [1, 2]]", LOOM_STATUS_INDEX_ERROR, "too many indices", 1);
    expect_caret(ctx, "x[[1, [2]]]", LOOM_STATUS_INVALID_ARGUMENT, "rectangular list", 2);
    expect_caret(ctx, "[1, 2] * 2", LOOM_STATUS_NOT_AVAILABLE, "Python's repetition", 7);
    expect_caret(ctx, "np.multiply.at(x, [0], 2)", LOOM_STATUS_NOT_AVAILABLE, "'multiply.at'", 3);
    expect_caret(ctx, "z = arange(24).reshape(2, 3, 4); z[1, z[0, :2] > 0]", LOOM_STATUS_INDEX_ERROR,
                 "along axis 1; size of axis is 3 but size of corresponding boolean axis is 2", 47);
    expect_caret(ctx, "z = zeros(3, dtype='int8'); z[0] = 300; z", LOOM_STATUS_OVERFLOW,
                 "Python integer 300 out of bounds for int8", 29);
    expect_caret(ctx, "np.add.at(x + 1, [0], 2)", LOOM_STATUS_INVALID_ARGUMENT,
                 "rebinds the variable", 7);
    expect_caret(ctx, "array([[1], [2, 3]])", LOOM_STATUS_INVALID_ARGUMENT,
                 "inhomogeneous shape", 6);
    expect_caret(ctx, "array([x, ones(4)])", LOOM_STATUS_INVALID_ARGUMENT, "inhomogeneous shape",
                 6);
    expect_caret(ctx, "array([x, 'a'])", LOOM_STATUS_INVALID_ARGUMENT, "not a tuple", 6);
    expect_caret(ctx, "(1 + 2)[0]", LOOM_STATUS_INVALID_ARGUMENT, "an int cannot be indexed", 7);
    expect_caret(ctx, "x.sum(axis=1)", LOOM_STATUS_INVALID_ARGUMENT, "axis 1", 2);
    expect_caret(ctx, "sum(x, axis=1.0)", LOOM_STATUS_INVALID_ARGUMENT, "'axis' must be", 12);
    expect_caret(ctx, "argmax(x, axis=(0,))", LOOM_STATUS_INVALID_ARGUMENT,
                 "'axis' must be None, an integer, not a tuple", 15);
    expect_caret(ctx, "sum(x, dtype='float9')", LOOM_STATUS_DTYPE_ERROR,
                 "data type 'float9' not understood", 13);
    expect_caret(ctx, "x.mean(keepdims=True, out=x)", LOOM_STATUS_NOT_AVAILABLE, "'out='", 26);
    expect_caret(ctx, "x.reshape(2, 2)", LOOM_STATUS_SHAPE_MISMATCH, "size 3 into shape (2, 2)", 2);
    expect_caret(ctx, "reshape(x, (2, 'a'))", LOOM_STATUS_INVALID_ARGUMENT, "item 1", 11);
    expect_caret(ctx, "moveaxis(x, 0, (0, 1))", LOOM_STATUS_INVALID_ARGUMENT,
                 "same number of elements", 0);
    /* an array as the sequence: its entries, here 0-d (NumPy's error) */
    expect_caret(ctx, "concatenate(x)", LOOM_STATUS_INVALID_ARGUMENT,
                 "zero-dimensional arrays cannot be concatenated", 0);
    expect_caret(ctx, "stack(x.sum())", LOOM_STATUS_DTYPE_ERROR, "or an array of at least one",
                 8);
    expect_caret(ctx, "stack(())", LOOM_STATUS_INVALID_ARGUMENT, "need at least one array", 6);
    expect_caret(ctx, "x + (2).sum()", LOOM_STATUS_INVALID_ARGUMENT, "an int has no method 'sum'",
                 8);
    expect_caret(ctx, "x.mT", LOOM_STATUS_INVALID_ARGUMENT, "ndim < 2", 2);
    expect_caret(ctx, "x.view('int32')", LOOM_STATUS_NOT_AVAILABLE,
                 "'.view()' is not supported yet", 2);
    loom_ctx_destroy(ctx);
}

/* loom_parse_items: an array is one item, a tuple its entries; too many for the room is an
 * error. loom_expr_function and loom_expr_builder list the table (bindings generate from it). */
static void test_parse_items_and_table(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    loom_array_t *items[3];
    int32_t n = -1;
    int tuple = -1;
    assert_int_equal(loom_parse_items(ctx, "arange(4) * 2", 0, NULL, NULL, 3, items, &n, &tuple),
                     LOOM_STATUS_OK);
    assert_int_equal(n, 1);
    assert_int_equal(tuple, 0);
    assert_int_equal(loom_array_dim(items[0], 0), 4);
    assert_int_equal(loom_parse_items(ctx, "divmod(arange(5), 2)", 0, NULL, NULL, 3, items, &n,
                                      &tuple),
                     LOOM_STATUS_OK);
    assert_int_equal(n, 2);
    assert_int_equal(tuple, 1);
    int64_t q[5];
    assert_int_equal(loom_read(ctx, items[1], q, sizeof q), LOOM_STATUS_OK);
    assert_int_equal(q[3], 1);
    assert_int_equal(loom_parse_items(ctx, "(1, 2, 3, 4)", 0, NULL, NULL, 3, items, &n, &tuple),
                     LOOM_STATUS_INVALID_ARGUMENT);
    assert_int_equal(n, 0);
    assert_non_null(strstr(loom_ctx_message(ctx), "room for 3"));
    loom_ctx_clear_error(ctx);
    assert_int_equal(loom_parse_items(ctx, "1", 0, NULL, NULL, 0, items, &n, &tuple),
                     LOOM_STATUS_INVALID_ARGUMENT);
    loom_ctx_clear_error(ctx);
    bool seen_sin = false, seen_svd = false;
    for (int32_t i = 0;; i++) {
        const char *params = NULL;
        int method = -1, arity = -1;
        const char *name = loom_expr_function(i, &params, &method);
        if (!name) {
            assert_null(loom_expr_builder(i, &arity));
            assert_int_equal(arity, 0);
            break;
        }
        assert_non_null(params);
        loom_builder_fn f = loom_expr_builder(i, &arity);
        if (!strcmp(name, "sin")) {
            seen_sin = true;
            assert_int_equal(arity, 1);
            assert_true(f == (loom_builder_fn)loom_sin);
        }
        if (!strcmp(name, "svd")) {
            seen_svd = true;
            assert_null(f);
            assert_int_equal(arity, 0);
        }
    }
    assert_true(seen_sin && seen_svd);
    assert_null(loom_expr_function(-1, NULL, NULL));
    loom_ctx_destroy(ctx);
}

/* Items of expr on the CPU device: their count and each one's shape (n dims each, row-major in
 * shapes). */
static void expect_item_shapes(loom_ctx_t *ctx, const char *expr, int32_t want, const int *nds,
                               const int64_t *shapes) {
    loom_array_t *items[16];
    int32_t n = -1;
    int tuple = -1;
    assert_int_equal(loom_parse_items(ctx, expr, 0, NULL, NULL, 16, items, &n, &tuple),
                     LOOM_STATUS_OK);
    assert_int_equal(n, want);
    for (int32_t i = 0, at = 0; i < n; at += nds[i], i++) {
        assert_int_equal(loom_array_ndim(items[i]), nds[i]);
        for (int d = 0; d < nds[i]; d++)
            assert_int_equal(loom_array_dim(items[i], d), shapes[at + d]);
    }
}

static double eval_number(loom_ctx_t *ctx, const char *expr) {
    loom_array_t *r = loom_expr(ctx, expr, 0, NULL, NULL);
    double v = NAN;
    assert_int_equal(loom_read(ctx, loom_astype(ctx, r, LOOM_DTYPE_F64), &v, sizeof v),
                     LOOM_STATUS_OK);
    return v;
}

/* Functions as the Array API and NumPy 2 take them: variadic broadcast_arrays and meshgrid,
 * clip without bounds, take_along_axis's last axis by default, diff's prepend and append,
 * trace's dtype, array tolerances of pinv and matrix_rank, and masks with an empty axis. */
static void test_parse_array_api_forms(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int nd5[5] = {2, 2, 2, 2, 2};
    int64_t s5[10] = {3, 3, 3, 3, 3, 3, 3, 3, 3, 3};
    expect_item_shapes(ctx, "broadcast_arrays(arange(3), 1, arange(3)[:, None], arange(3), 2.5)", 5,
                       nd5, s5);
    int nd3[3] = {3, 3, 3};
    int64_t s3[9] = {2, 3, 4, 2, 3, 4, 2, 3, 4};
    expect_item_shapes(ctx, "meshgrid(arange(2), arange(3), arange(4), indexing='ij')", 3, nd3, s3);
    int64_t s3xy[9] = {3, 2, 4, 3, 2, 4, 3, 2, 4};
    expect_item_shapes(ctx, "meshgrid(arange(2), arange(3), arange(4))", 3, nd3, s3xy);
    expect_item_shapes(ctx, "meshgrid()", 0, NULL, NULL);
    /* the variadic parameter is positional only; a bad item's caret is under that item */
    expect_caret(ctx, "meshgrid(xi=arange(2))", LOOM_STATUS_INVALID_ARGUMENT,
                 "unexpected keyword argument 'xi'", 9);
    expect_caret(ctx, "broadcast_arrays(arange(2), 's', 2)", LOOM_STATUS_INVALID_ARGUMENT,
                 "an argument", 28);
    /* clip without bounds of a number: a strong int64 array, as np.clip(3) */
    loom_array_t *c3 = loom_expr(ctx, "clip(3) + ones(2, dtype='int8')", 0, NULL, NULL);
    assert_int_equal(loom_array_dtype(c3), LOOM_DTYPE_I64);
    /* diff(n=0) is a itself: nothing joined */
    int nd02[1] = {2};
    int64_t s02[2] = {2, 3};
    expect_item_shapes(ctx, "diff(ones((2, 3)), n=0, prepend=1)", 1, nd02, s02);
    expect_caret(ctx, "meshgrid(arange(2), indexing='xz')", LOOM_STATUS_INVALID_ARGUMENT,
                 "valid values for `indexing`", 29);
    assert_true(eval_number(ctx, "sum(clip(arange(5.0)))") == 10.0);
    assert_true(eval_number(ctx, "take_along_axis(arange(6).reshape(2, 3), "
                                 "array([[2], [0]]))[1, 0]") == 3.0);
    /* diff: prepend 10 -> [10, 0, 1, 2] -> [-10, 1, 1], append [5] -> [.., 3] */
    assert_true(eval_number(ctx, "sum(diff(arange(3), prepend=10, append=array([5])))") == -5.0);
    assert_true(eval_number(ctx, "sum(abs(diff(arange(6).reshape(2, 3), axis=0, prepend=0)))") ==
                12.0);
    /* trace(dtype=uint8): 40 + 200 + 360 wraps modulo 256 */
    assert_true(eval_number(ctx, "trace(array([[40, 0, 0], [0, 200, 0], [0, 0, 360]]), "
                                 "dtype='uint8')") == (double)((40 + 200 + 360) % 256));
    /* per-matrix tolerances: the second matrix's 0.5 relative cutoff drops its small value */
    assert_true(eval_number(ctx, "sum(linalg.matrix_rank(array([[[1.0, 0], [0, 0.1]], "
                                 "[[1.0, 0], [0, 0.1]]]), rtol=array([0.01, 0.5])))") == 3.0);
    assert_true(eval_number(ctx, "linalg.pinv(array([[[1.0, 0], [0, 0.1]], [[1.0, 0], [0, 0.1]]]), "
                                 "rtol=array([0.01, 0.5]))[1, 1, 1]") == 0.0);
    assert_true(eval_number(ctx, "linalg.pinv(array([[[1.0, 0], [0, 0.1]], [[1.0, 0], [0, 0.1]]]), "
                                 "rtol=array([0.01, 0.5]))[0, 1, 1]") == 10.0);
    expect_caret(ctx, "linalg.matrix_rank(ones((2, 2, 2)), tol=array([1.0, 2.0]), rtol=0.5)",
                 LOOM_STATUS_INVALID_ARGUMENT, "can't be both set", 64);
    /* a mask's empty axis matches any extent (NumPy's): nothing kept */
    int nd1[1] = {2};
    int64_t s1[2] = {0, 4};
    expect_item_shapes(ctx, "ones((3, 4))[zeros(0, dtype=bool)]", 1, nd1, s1);
    expect_caret(ctx, "ones((3, 4))[zeros(2, dtype=bool)]", LOOM_STATUS_INDEX_ERROR,
                 "boolean index did not match", 13);
    loom_ctx_destroy(ctx);
}

static void test_parse_misuse(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    loom_array_t *out;
    int64_t n = 1;
    loom_array_t *x = loom_ones(ctx, LOOM_DTYPE_F32, 1, &n);
    const char *dup[2] = {"x", "x"}, *bad[1] = {"2x"};
    loom_array_t *two[2] = {x, x};
    assert_int_equal(loom_parse(NULL, "1", 0, NULL, NULL, 1, NULL, &out),
                     LOOM_STATUS_INVALID_ARGUMENT);
    assert_int_equal(loom_parse(ctx, NULL, 0, NULL, NULL, 1, NULL, &out),
                     LOOM_STATUS_INVALID_ARGUMENT);
    loom_ctx_clear_error(ctx);
    assert_int_equal(loom_parse(ctx, "x", 2, dup, two, 1, NULL, &out),
                     LOOM_STATUS_INVALID_ARGUMENT);
    assert_non_null(strstr(loom_ctx_message(ctx), "bound twice"));
    loom_ctx_clear_error(ctx);
    assert_int_equal(loom_parse(ctx, "1", 1, bad, two, 1, NULL, &out),
                     LOOM_STATUS_INVALID_ARGUMENT);
    loom_ctx_clear_error(ctx);
    loom_array_t *nil_arr[1] = {NULL};
    const char *one[1] = {"x"};
    assert_int_equal(loom_parse(ctx, "x", 1, one, nil_arr, 1, NULL, &out),
                     LOOM_STATUS_INVALID_ARGUMENT);
    loom_ctx_clear_error(ctx);
    assert_int_equal(loom_parse(ctx, "  ;\n ", 0, NULL, NULL, 1, NULL, &out),
                     LOOM_STATUS_INVALID_ARGUMENT);
    assert_non_null(strstr(loom_ctx_message(ctx), "empty"));
    loom_ctx_clear_error(ctx);
    /* Sticky: a recorded error makes loom_parse return it with nil outputs. */
    assert_true(loom_array_is_nil(loom_expr(ctx, "nope", 0, NULL, NULL)));
    assert_true(loom_array_is_nil(loom_expr(ctx, "1 + 1", 0, NULL, NULL)));
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_INVALID_ARGUMENT);
    loom_ctx_clear_error(ctx);
    /* Zero outputs: the program is only checked and built. */
    assert_int_equal(loom_parse(ctx, "x + 1", 1, one, &x, 0, NULL, NULL), LOOM_STATUS_OK);
    loom_ctx_destroy(ctx);
}

/* A program of more names than the first name table holds (it grows), assigned in another
 * order than they appear, each reassigned: a prepared run and loom_parse agree, run after
 * run. */
static void test_program_many_names(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    char text[4096];
    size_t k = 0;
    for (int i = 39; i >= 0; i--) /* v39 = x + 39, ..., v0 = x + 0 */
        k += (size_t)snprintf(text + k, sizeof text - k, "v%d = x + %d\n", i, i);
    for (int i = 1; i < 40; i++) /* v1 = v0 + v1, ...: v39 = 40x + 780 */
        k += (size_t)snprintf(text + k, sizeof text - k, "v%d = v%d + v%d\n", i, i - 1, i);
    snprintf(text + k, sizeof text - k, "v39");
    loom_program_t *p = NULL;
    assert_int_equal(loom_program_create(ctx, text, &p), LOOM_STATUS_OK);
    const char *names[1] = {"x"};
    for (int run = 0; run < 3; run++) {
        int64_t n = 2;
        float xf[2] = {(float)run, (float)-run}, got[2];
        loom_array_t *x = loom_from_host(ctx, LOOM_DTYPE_F32, 1, &n, xf), *item = NULL;
        int32_t n_items = 0;
        assert_int_equal(loom_program_run(ctx, p, 1, names, &x, 1, &item, &n_items, NULL),
                         LOOM_STATUS_OK);
        assert_int_equal(loom_read(ctx, item, got, sizeof got), LOOM_STATUS_OK);
        for (int i = 0; i < 2; i++) assert_true(got[i] == 40 * xf[i] + 780);
        loom_array_t *r = loom_expr(ctx, text, 1, names, &x);
        assert_int_equal(loom_read(ctx, r, got, sizeof got), LOOM_STATUS_OK);
        for (int i = 0; i < 2; i++) assert_true(got[i] == 40 * xf[i] + 780);
    }
    loom_program_destroy(p);
    loom_ctx_destroy(ctx);
}

/* Counts the debug log's replays. */
static void count_replays(void *user, loom_log_level_t level, const char *line) {
    (void)level;
    if (strstr(line, "prepared program replayed")) ++*(int *)user;
}

/* Reads item k of a program_eval (float64) into got[0..n) and checks it against want. */
static void check_item(loom_ctx_t *ctx, loom_array_t *item, const double *want, int n) {
    double got[8];
    assert_true(n <= 8 && loom_array_size(item) == n);
    assert_int_equal(loom_read(ctx, item, got, sizeof(double) * (size_t)n), LOOM_STATUS_OK);
    for (int i = 0; i < n; i++) assert_true(fabs(got[i] - want[i]) <= 1e-12 * (1 + fabs(want[i])));
}

/* loom_program_eval replays its last run when the new arrays match it (realised, the same
 * names, dtypes, shapes, layouts and sharing): the same values as a run, one eval each call,
 * the bound array given back as it is, and every other case run again: a lazy array, a view,
 * a new shape, names in another order, one array under both names and then two; runs that
 * read values and weak scalars bound by name are never replayed; a replay's error. */
static void test_program_replay(void **state) {
    (void)state;
    int replays = 0;
    loom_options_t o = {0};
    o.device = LOOM_DEVICE_CPU;
    o.log_level = LOOM_LOG_DEBUG;
    o.log_fn = count_replays;
    o.log_user = &replays;
    loom_ctx_t *ctx = NULL;
    assert_int_equal(loom_ctx_create(&o, &ctx), LOOM_STATUS_OK);
    loom_program_t *p = NULL;
    assert_int_equal(loom_program_create(ctx, "t = x * 2 + y\n(t, t.sum(), y)", &p),
                     LOOM_STATUS_OK);
    const char *xy[2] = {"x", "y"}, *yx[2] = {"y", "x"};
    int64_t n4 = 4, n3 = 3;
    struct {
        int kind;    /* 0 plain, 1 lazy x, 2 view x, 3 3 elements, 4 y x order, 5 x under both */
        int replays; /* expected replays so far */
    } steps[] = {{0, 0}, {0, 1}, {0, 2}, {1, 2}, {0, 2}, {2, 2}, {3, 2},
                 {3, 3}, {4, 3}, {0, 3}, {0, 4}, {5, 4}, {5, 5}, {0, 5}};
    /* (a run that is not replayed keeps its own graph, or none: the step after it runs) */
    for (size_t s = 0; s < sizeof steps / sizeof *steps; s++) {
        int kind = steps[s].kind, n = kind == 3 ? 3 : 4;
        double xv[8], yv[8], t[4], sum = 0;
        for (int i = 0; i < 8; i++) xv[i] = (double)(i + s), yv[i] = 10.0 * (double)s - i;
        loom_scope_begin(ctx);
        loom_array_t *x = loom_from_host(ctx, LOOM_DTYPE_F64, 1, kind == 3 ? &n3 : &n4, xv);
        loom_array_t *y = loom_from_host(ctx, LOOM_DTYPE_F64, 1, kind == 3 ? &n3 : &n4, yv);
        if (kind == 2) { /* x: every other of 8, a view */
            int64_t n8 = 8, start = 0, stop = 8, step = 2;
            loom_array_t *x8 = loom_from_host(ctx, LOOM_DTYPE_F64, 1, &n8, xv);
            x = loom_slice(ctx, x8, 1, &start, &stop, &step);
            for (int i = 0; i < 4; i++) xv[i] = xv[2 * i];
        }
        if (kind == 1) x = loom_multiply_f(ctx, x, 1.0); /* lazy */
        if (kind == 5) y = x, memcpy(yv, xv, sizeof yv);
        loom_array_t *arrs[2] = {kind == 4 ? y : x, kind == 4 ? x : y}, *items[4];
        int32_t k = -1;
        int tuple = -1;
        loom_stats_t s0, s1;
        loom_ctx_stats(ctx, &s0);
        assert_int_equal(
            loom_program_eval(ctx, p, 2, kind == 4 ? yx : xy, arrs, 4, items, &k, &tuple),
            LOOM_STATUS_OK);
        loom_ctx_stats(ctx, &s1);
        assert_int_equal(s1.evals - s0.evals, 1);
        assert_int_equal(k, 3);
        assert_int_equal(tuple, 1);
        assert_int_equal(replays, steps[s].replays);
        for (int i = 0; i < n; i++) t[i] = xv[i] * 2 + yv[i], sum += t[i];
        check_item(ctx, items[0], t, n);
        check_item(ctx, items[1], &sum, 1);
        check_item(ctx, items[2], yv, n);
        assert_true(items[2] == y); /* y given back as it is */
        loom_scope_end(ctx);
    }
    loom_program_destroy(p);
    /* runs that read values are not kept: a 0-d mask's value, x[x > 0]'s count, repeat's
     * total (its graph reads only bound arrays: only the read tells) */
    static const char *const reads[3] = {"x[b] * 2", "x[x > 0] * 2", "repeat(x, r) * 2"};
    const char *xbr[3] = {"x", "b", "r"};
    for (int r = 0; r < 3; r++) {
        assert_int_equal(loom_program_create(ctx, reads[r], &p), LOOM_STATUS_OK);
        for (int call = 0; call < 4; call++) {
            loom_scope_begin(ctx);
            double xv[4] = {1, -2, 3, call % 2 ? 4 : -4};
            bool bv = call % 2 == 0;
            int64_t rv[4] = {1, call, 1, 1}; /* 3 + call repeats */
            loom_array_t *arrs[3] = {loom_from_host(ctx, LOOM_DTYPE_F64, 1, &n4, xv),
                                     loom_from_host(ctx, LOOM_DTYPE_BOOL, 0, NULL, &bv),
                                     loom_from_host(ctx, LOOM_DTYPE_I64, 1, &n4, rv)},
                         *item = NULL;
            int32_t k = 0;
            assert_int_equal(loom_program_eval(ctx, p, 3, xbr, arrs, 1, &item, &k, NULL),
                             LOOM_STATUS_OK);
            int64_t want[3] = {4 * bv, 2 + call % 2, 3 + call};
            assert_int_equal(loom_array_size(item), want[r]);
            loom_scope_end(ctx);
        }
        loom_program_destroy(p);
    }
    assert_int_equal(replays, 5);
    /* a weak scalar bound by name is not replayed (its value is read by the builders); a
     * replay's error is the run's status and message, with nil items; slots past the items
     * are nil, as a run leaves them */
    assert_int_equal(loom_program_create(ctx, "x * s", &p), LOOM_STATUS_OK);
    const char *xs[2] = {"x", "s"};
    double xv[3] = {1, 2, 3};
    for (int call = 0; call < 3; call++) {
        loom_scope_begin(ctx);
        loom_array_t *s = loom_weak_float(ctx, 2.0 + call), *items[3];
        loom_eval(ctx, 1, &s);
        loom_array_t *arrs[2] = {loom_from_host(ctx, LOOM_DTYPE_F64, 1, &n3, xv), s};
        int32_t k = 0;
        assert_int_equal(loom_program_eval(ctx, p, 2, xs, arrs, 3, items, &k, NULL),
                         LOOM_STATUS_OK);
        double want[3] = {2.0 + call, 2 * (2.0 + call), 3 * (2.0 + call)};
        check_item(ctx, items[0], want, 3);
        loom_scope_end(ctx);
    }
    loom_program_destroy(p);
    assert_int_equal(replays, 5);
    assert_int_equal(loom_program_create(ctx, "(x ** y, x + 1)", &p), LOOM_STATUS_OK);
    const char *xy2[2] = {"x", "y"};
    for (int call = 0; call < 3; call++) {
        loom_scope_begin(ctx);
        int64_t xi[2] = {2, 3}, yi[2] = {call == 1 ? -1 : 1, 0}, two = 2;
        loom_array_t *arrs[2] = {loom_from_host(ctx, LOOM_DTYPE_I64, 1, &two, xi),
                                 loom_from_host(ctx, LOOM_DTYPE_I64, 1, &two, yi)};
        loom_array_t *items[4] = {arrs[0], arrs[0], arrs[0], arrs[0]}; /* (not nil) */
        int32_t k = -1;
        loom_status_t st = loom_program_eval(ctx, p, 2, xy2, arrs, 4, items, &k, NULL);
        assert_int_equal(replays, 5 + call);
        if (call == 1) { /* replayed: the status and message, nil items */
            assert_int_equal(st, LOOM_STATUS_INVALID_ARGUMENT);
            assert_non_null(strstr(loom_ctx_message(ctx), "negative integer powers"));
            assert_int_equal(k, 0);
            for (int t = 0; t < 4; t++) assert_true(loom_array_is_nil(items[t]));
            loom_ctx_clear_error(ctx);
        } else {
            assert_int_equal(st, LOOM_STATUS_OK);
            assert_int_equal(k, 2);
            assert_true(loom_array_is_nil(items[2]) && loom_array_is_nil(items[3]));
        }
        loom_scope_end(ctx);
    }
    loom_program_destroy(p);
    loom_ctx_destroy(ctx);
}

/* loom_program: parsed once, run with new arrays each time (the same values as loom_parse, a
 * tuple as items, a second context's program refused), or run and evaluated in one call
 * (loom_program_eval: one eval, the same values); a syntax error is create's, an unknown
 * name the run's; the statements see the names bound for that run. */
static void test_program(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx(), *other = check_cpu_ctx();
    loom_program_t *p = NULL;
    assert_int_equal(loom_program_create(ctx, "t = sin(x) * 1.5 + y\n(t, t.sum())", &p),
                     LOOM_STATUS_OK);
    const char *names[2] = {"x", "y"};
    for (int run = 0; run < 3; run++) {
        int64_t n = 4;
        float xf[4], yf[4], got[4], sum;
        for (int i = 0; i < 4; i++) xf[i] = (float)(i + run), yf[i] = (float)(run * 10 - i);
        loom_array_t *arrs[2] = {loom_from_host(ctx, LOOM_DTYPE_F32, 1, &n, xf),
                                 loom_from_host(ctx, LOOM_DTYPE_F32, 1, &n, yf)};
        loom_array_t *items[4];
        int32_t k = -1;
        int tuple = -1;
        loom_stats_t s0, s1;
        loom_ctx_stats(ctx, &s0);
        if (run == 1) /* run and evaluated in one call */
            assert_int_equal(loom_program_eval(ctx, p, 2, names, arrs, 4, items, &k, &tuple),
                             LOOM_STATUS_OK);
        else
            assert_int_equal(loom_program_run(ctx, p, 2, names, arrs, 4, items, &k, &tuple),
                             LOOM_STATUS_OK);
        loom_ctx_stats(ctx, &s1);
        assert_int_equal(s1.evals - s0.evals, run == 1);
        assert_int_equal(k, 2);
        assert_int_equal(tuple, 1);
        assert_int_equal(loom_read(ctx, items[0], got, sizeof got), LOOM_STATUS_OK);
        assert_int_equal(loom_read(ctx, items[1], &sum, sizeof sum), LOOM_STATUS_OK);
        float want_sum = 0;
        for (int i = 0; i < 4; i++) {
            float want = sinf(xf[i]) * 1.5f + yf[i];
            assert_true(fabsf(got[i] - want) <= 1e-5f * (1 + fabsf(want)));
            want_sum += got[i];
        }
        assert_true(fabsf(sum - want_sum) <= 1e-4f * (1 + fabsf(want_sum)));
    }
    /* a name the run does not bind, and another context */
    loom_array_t *items[1];
    int32_t k = -1;
    assert_int_equal(loom_program_run(ctx, p, 0, NULL, NULL, 1, items, &k, NULL),
                     LOOM_STATUS_INVALID_ARGUMENT);
    assert_non_null(strstr(loom_ctx_message(ctx), "x"));
    assert_true(loom_array_is_nil(items[0]));
    loom_ctx_clear_error(ctx);
    assert_int_equal(loom_program_eval(ctx, p, 0, NULL, NULL, 1, items, &k, NULL),
                     LOOM_STATUS_INVALID_ARGUMENT);
    assert_true(loom_array_is_nil(items[0]) && k == 0);
    loom_ctx_clear_error(ctx);
    assert_int_equal(loom_program_run(other, p, 0, NULL, NULL, 1, items, &k, NULL),
                     LOOM_STATUS_INVALID_ARGUMENT);
    assert_non_null(strstr(loom_ctx_message(other), "another context"));
    loom_ctx_clear_error(other);
    loom_program_destroy(p);
    loom_program_t *bad = (loom_program_t *)1;
    assert_int_equal(loom_program_create(ctx, "sin(x", &bad), LOOM_STATUS_INVALID_ARGUMENT);
    assert_null(bad);
    loom_ctx_clear_error(ctx);
    loom_program_destroy(NULL);
    loom_ctx_destroy(other);
    loom_ctx_destroy(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_precedence_table),
        cmocka_unit_test(test_parse_literals),
        cmocka_unit_test(test_parse_weak_scalars),
        cmocka_unit_test(test_parse_power_fast_paths),
        cmocka_unit_test(test_parse_calls_and_constructors),
        cmocka_unit_test(test_parse_named_outputs),
        cmocka_unit_test(test_parse_bound_result_belongs_to_scope),
        cmocka_unit_test(test_parse_errors_with_carets),
        cmocka_unit_test(test_parse_views_and_reductions),
        cmocka_unit_test(test_parse_zero_d_axis),
        cmocka_unit_test(test_parse_index_errors),
        cmocka_unit_test(test_parse_misuse),
        cmocka_unit_test(test_parse_array_api_forms),
        cmocka_unit_test(test_parse_items_and_table),
        cmocka_unit_test(test_program),
        cmocka_unit_test(test_program_replay),
        cmocka_unit_test(test_program_many_names),
        cmocka_unit_test(test_parse_deep_programs_do_not_crash),
        cmocka_unit_test(test_parse_nesting_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
