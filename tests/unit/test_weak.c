/* test_weak — NEP 50 weak scalars (tests/data/numpy_weak.h): for every dtype, binary op and
 * Python-style scalar (ints in and out of each dtype's range, floats, bools), on either side,
 * loom must give NumPy 2's dtype and value, or its error (OverflowError -> LOOM_STATUS_OVERFLOW,
 * TypeError -> LOOM_STATUS_DTYPE_ERROR). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "../data/numpy_weak.h"
#include "../support/check.h"

static const char *dname(int d) { return d < 0 ? "error" : loom_dtype_name((loom_dtype_t)d); }

static loom_array_t *weak_scalar(loom_ctx_t *ctx, const np_weak_case_t *c) {
    switch (c->kind) {
        case NP_WEAK_INT:
            return loom_weak_int(ctx, (int64_t)c->payload);
        case NP_WEAK_UINT:
            return loom_weak_uint(ctx, c->payload);
        case NP_WEAK_FLOAT: {
            double v;
            memcpy(&v, &c->payload, sizeof v);
            return loom_weak_float(ctx, v);
        }
        default:
            return loom_weak_bool(ctx, (int)c->payload);
    }
}

static void describe(const np_weak_case_t *c, char *buf, size_t cap) {
    char sv[48];
    double f;
    switch (c->kind) {
        case NP_WEAK_INT:
            snprintf(sv, sizeof sv, "%lld", (long long)(int64_t)c->payload);
            break;
        case NP_WEAK_UINT:
            snprintf(sv, sizeof sv, "%llu", (unsigned long long)c->payload);
            break;
        case NP_WEAK_FLOAT:
            memcpy(&f, &c->payload, 8);
            snprintf(sv, sizeof sv, "%.17g", f);
            break;
        default:
            snprintf(sv, sizeof sv, "%s", c->payload ? "True" : "False");
            break;
    }
    char av[48];
    check_format_bits((loom_dtype_t)c->dtype, np_weak_array_value[c->dtype], av, sizeof av);
    if (c->scalar_first)
        snprintf(buf, cap, "%s(%s, %s array [%s])", check_binary_names[c->op], sv,
                 loom_dtype_name((loom_dtype_t)c->dtype), av);
    else
        snprintf(buf, cap, "%s(%s array [%s], %s)", check_binary_names[c->op],
                 loom_dtype_name((loom_dtype_t)c->dtype), av, sv);
}

/* Ops whose float results come from libm-style functions, compared within a few ULPs. */
static int inexact_op(const char *name) {
    return !strcmp(name, "power") || !strcmp(name, "arctan2") || !strcmp(name, "hypot");
}

/* Checks r (built by `how`) against the case; returns 1 and prints if it differs. */
static int check_case(loom_ctx_t *ctx, const np_weak_case_t *c, loom_array_t *r, const char *how) {
    char what[160];
    describe(c, what, sizeof what);
    int bad = 0;
    if (c->status != LOOM_STATUS_OK) {
        if (!loom_array_is_nil(r) || loom_ctx_status(ctx) != (loom_status_t)c->status) {
            print_message("%s [%s]: NumPy raises (%s), loom gives %s, status \"%s\"\n", what, how,
                          loom_status_string((loom_status_t)c->status),
                          loom_array_is_nil(r) ? "nil" : dname((int)loom_array_dtype(r)),
                          loom_status_string(loom_ctx_status(ctx)));
            bad = 1;
        }
    } else if (loom_array_is_nil(r) && !c->has_value && loom_ctx_status(ctx) != LOOM_STATUS_OK) {
        /* NumPy resolves the dtype, then raises ValueError on the value (an integer to a
         * negative integer power): loom may refuse it up front or compute it. */
    } else if (loom_array_is_nil(r)) {
        print_message("%s [%s]: NumPy gives %s, loom fails: %s\n", what, how, dname(c->result),
                      loom_ctx_message(ctx));
        bad = 1;
    } else if ((int)loom_array_dtype(r) != c->result) {
        print_message("%s [%s]: NumPy gives dtype %s, loom %s\n", what, how, dname(c->result),
                      dname((int)loom_array_dtype(r)));
        bad = 1;
    } else if (c->has_value) {
        uint64_t got = 0;
        loom_status_t st = check_read_bits(ctx, r, &got, 1);
        int ulps = inexact_op(check_binary_names[c->op]) ? 4 : 0;
        if (st != LOOM_STATUS_OK) {
            print_message("%s [%s]: loom_read failed: %s\n", what, how, loom_ctx_message(ctx));
            bad = 1;
        } else if (!check_bits_match((loom_dtype_t)c->result, c->value, got, ulps)) {
            char e[64], g[64];
            check_format_bits((loom_dtype_t)c->result, c->value, e, sizeof e);
            check_format_bits((loom_dtype_t)c->result, got, g, sizeof g);
            print_message("%s [%s]: NumPy %s, loom %s (%s)\n", what, how, e, g, dname(c->result));
            bad = 1;
        }
    }
    loom_ctx_clear_error(ctx);
    return bad;
}

static void test_weak_numpy_table(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int bad = 0;
    for (size_t i = 0; i < NP_N_WEAK_CASES; i++) {
        const np_weak_case_t *c = &np_weak_cases[i];
        loom_scope_begin(ctx);
        loom_array_t *a = check_from_bits(ctx, (loom_dtype_t)c->dtype, -1, NULL,
                                          &np_weak_array_value[c->dtype], 1);
        assert_false(loom_array_is_nil(a));
        loom_array_t *s = weak_scalar(ctx, c);
        assert_false(loom_array_is_nil(s));
        loom_array_t *r = c->scalar_first ? check_binary_fns[c->op](ctx, s, a)
                                          : check_binary_fns[c->op](ctx, a, s);
        bad += check_case(ctx, c, r, "weak array");
        /* The scalar shortcuts must agree: loom_<op>_i and loom_<op>_f. */
        if (!c->scalar_first && c->kind == NP_WEAK_INT)
            bad += check_case(ctx, c, check_binary_i_fns[c->op](ctx, a, (int64_t)c->payload), "_i");
        if (!c->scalar_first && c->kind == NP_WEAK_FLOAT) {
            double v;
            memcpy(&v, &c->payload, 8);
            bad += check_case(ctx, c, check_binary_f_fns[c->op](ctx, a, v), "_f");
        }
        loom_scope_end(ctx);
    }
    loom_ctx_destroy(ctx);
    if (bad) print_message("%d weak-scalar mismatches against NumPy\n", bad);
    assert_int_equal(bad, 0);
}

static void test_weak_uint8_plus_300_overflows(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t n = 3;
    loom_array_t *a = loom_ones(ctx, LOOM_DTYPE_U8, 1, &n);
    loom_array_t *r = loom_add_i(ctx, a, 300);
    assert_true(loom_array_is_nil(r));
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_OVERFLOW);
    const char *msg = loom_ctx_message(ctx);
    assert_true(check_has_word(msg, "300"));
    assert_true(check_has_word(msg, "uint8"));
    /* Nil propagates; the first error stays. */
    loom_array_t *r2 = loom_multiply(ctx, r, a);
    assert_true(loom_array_is_nil(r2));
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_OVERFLOW);
    uint8_t out[3] = {7, 7, 7};
    assert_int_equal(loom_read(ctx, r2, out, sizeof out), LOOM_STATUS_OVERFLOW);
    assert_int_equal(out[0], 7);
    loom_ctx_destroy(ctx);
}

static void test_weak_examples_from_design(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t n = 2;
    assert_int_equal(loom_array_dtype(loom_add_f(ctx, loom_ones(ctx, LOOM_DTYPE_F32, 1, &n), 2.5)),
                     LOOM_DTYPE_F32);
    assert_int_equal(loom_array_dtype(loom_add_i(ctx, loom_ones(ctx, LOOM_DTYPE_I32, 1, &n), 2)),
                     LOOM_DTYPE_I32);
    assert_int_equal(loom_array_dtype(loom_add_f(ctx, loom_ones(ctx, LOOM_DTYPE_I32, 1, &n), 2.5)),
                     LOOM_DTYPE_F64);
    assert_int_equal(loom_array_dtype(loom_add_i(ctx, loom_ones(ctx, LOOM_DTYPE_I8, 1, &n), 1)),
                     LOOM_DTYPE_I8);
    /* bfloat16 is a float: weak floats and ints keep it. */
    assert_int_equal(loom_array_dtype(loom_add_f(ctx, loom_ones(ctx, LOOM_DTYPE_BF16, 1, &n), 2.5)),
                     LOOM_DTYPE_BF16);
    assert_int_equal(loom_array_dtype(loom_add_i(ctx, loom_ones(ctx, LOOM_DTYPE_BF16, 1, &n), 3)),
                     LOOM_DTYPE_BF16);
    /* Alone, weak scalars are int64 / float64 / bool 0-d arrays. */
    assert_int_equal(loom_array_dtype(loom_weak_int(ctx, 1)), LOOM_DTYPE_I64);
    assert_int_equal(loom_array_dtype(loom_weak_float(ctx, 1)), LOOM_DTYPE_F64);
    assert_int_equal(loom_array_dtype(loom_weak_bool(ctx, 1)), LOOM_DTYPE_BOOL);
    assert_int_equal(loom_array_ndim(loom_weak_int(ctx, 1)), 0);
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_OK);
    /* int8 + 128 overflows; -1 with an unsigned array too. */
    assert_true(loom_array_is_nil(loom_add_i(ctx, loom_ones(ctx, LOOM_DTYPE_I8, 1, &n), 128)));
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_OVERFLOW);
    loom_ctx_clear_error(ctx);
    assert_true(loom_array_is_nil(loom_subtract_i(ctx, loom_ones(ctx, LOOM_DTYPE_U32, 1, &n), -1)));
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_OVERFLOW);
    loom_ctx_clear_error(ctx);
    /* Comparisons with an out-of-range int are answered, not errors (NumPy 2). */
    loom_array_t *lt = loom_less_i(ctx, loom_ones(ctx, LOOM_DTYPE_U8, 1, &n), 300);
    assert_false(loom_array_is_nil(lt));
    uint8_t out[2] = {0, 0};
    assert_int_equal(loom_read(ctx, lt, out, sizeof out), LOOM_STATUS_OK);
    assert_int_equal(out[0], 1);
    assert_int_equal(out[1], 1);
    loom_ctx_destroy(ctx);
}

/* Evaluating a weak scalar (loom_eval, loom_read) keeps it weak: what is built from it after
 * the eval has the dtype and value of what was built before (int8 + 1 stays int8, not int64;
 * float32 * 0.5 stays float32). */
static void test_weak_evaluated_stays_weak(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t n = 2;
    int8_t x[2] = {1, -3};
    loom_array_t *a = loom_from_host(ctx, LOOM_DTYPE_I8, 1, &n, x);
    loom_array_t *w = loom_weak_int(ctx, 1);
    loom_array_t *f = loom_weak_float(ctx, 0.5);
    loom_array_t *before = loom_add(ctx, a, w);
    assert_int_equal(loom_array_dtype(before), LOOM_DTYPE_I8);
    loom_array_t *both[2] = {w, f};
    assert_int_equal(loom_eval(ctx, 2, both), LOOM_STATUS_OK);
    loom_array_t *after = loom_add(ctx, a, w);
    assert_int_equal(loom_array_dtype(after), LOOM_DTYPE_I8);
    int8_t got[2];
    assert_int_equal(loom_read(ctx, after, got, sizeof got), LOOM_STATUS_OK);
    assert_int_equal(got[0], 2);
    assert_int_equal(got[1], -2);
    loom_array_t *h = loom_multiply(ctx, loom_astype(ctx, a, LOOM_DTYPE_F32), f);
    assert_int_equal(loom_array_dtype(h), LOOM_DTYPE_F32);
    int64_t v;
    assert_int_equal(loom_read(ctx, w, &v, sizeof v), LOOM_STATUS_OK); /* alone: int64 */
    assert_int_equal(v, 1);
    assert_int_equal(loom_array_dtype(loom_add_i(ctx, w, 2)), LOOM_DTYPE_I64);
    loom_ctx_destroy(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_weak_numpy_table),
        cmocka_unit_test(test_weak_uint8_plus_300_overflows),
        cmocka_unit_test(test_weak_examples_from_design),
        cmocka_unit_test(test_weak_evaluated_stays_weak),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
