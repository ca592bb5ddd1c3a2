/* test_promotion — loom's result dtypes against NumPy's, from tests/data/numpy_promotion.h:
 * np.result_type for every pair of the 12 NumPy dtypes, and the dtype (or the TypeError) of
 * every unary and binary op for every input dtype, on 1-element arrays. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "../data/numpy_promotion.h"
#include "../support/check.h"

static const char *dname(int d) { return d < 0 ? "error" : loom_dtype_name((loom_dtype_t)d); }

static void test_promotion_op_lists_match_tables(void **state) {
    (void)state;
    assert_int_equal(check_n_unary, NP_N_UNARY);
    assert_int_equal(check_n_binary, NP_N_BINARY);
    for (int i = 0; i < NP_N_UNARY; i++)
        assert_string_equal(check_unary_names[i], np_unary_names[i]);
    for (int i = 0; i < NP_N_BINARY; i++)
        assert_string_equal(check_binary_names[i], np_binary_names[i]);
}

static void test_promotion_dtype_names(void **state) {
    (void)state;
    for (int d = 0; d < LOOM_DTYPE_COUNT; d++)
        assert_int_equal(loom_dtype_from_name(loom_dtype_name((loom_dtype_t)d)), d);
    assert_string_equal(loom_dtype_name(LOOM_DTYPE_F32), "float32");
    assert_string_equal(loom_dtype_name(LOOM_DTYPE_BF16), "bfloat16");
    assert_int_equal(loom_dtype_from_name("float128"), -1);
    assert_int_equal((int)loom_dtype_size(LOOM_DTYPE_BF16), 2);
    assert_int_equal((int)loom_dtype_size((loom_dtype_t)LOOM_DTYPE_COUNT), 0);
}

static void test_promotion_result_type_table(void **state) {
    (void)state;
    int bad = 0;
    for (int i = 0; i < NP_N_DTYPES; i++)
        for (int j = 0; j < NP_N_DTYPES; j++) {
            int got = loom_dtype_promote((loom_dtype_t)np_dtypes[i], (loom_dtype_t)np_dtypes[j]);
            if (got != np_result_type[i][j]) {
                print_message("loom_dtype_promote(%s, %s) = %s, NumPy: %s\n", dname(np_dtypes[i]),
                              dname(np_dtypes[j]), dname(got), dname(np_result_type[i][j]));
                bad++;
            }
        }
    assert_int_equal(bad, 0);
}

/* bfloat16 is not a NumPy dtype; loom promotes it like JAX (docs/guide.md). */
static void test_promotion_bfloat16(void **state) {
    (void)state;
    assert_int_equal(loom_dtype_promote(LOOM_DTYPE_BF16, LOOM_DTYPE_BF16), LOOM_DTYPE_BF16);
    assert_int_equal(loom_dtype_promote(LOOM_DTYPE_BF16, LOOM_DTYPE_F16), LOOM_DTYPE_F32);
    assert_int_equal(loom_dtype_promote(LOOM_DTYPE_F16, LOOM_DTYPE_BF16), LOOM_DTYPE_F32);
    assert_int_equal(loom_dtype_promote(LOOM_DTYPE_BF16, LOOM_DTYPE_F32), LOOM_DTYPE_F32);
    assert_int_equal(loom_dtype_promote(LOOM_DTYPE_BF16, LOOM_DTYPE_F64), LOOM_DTYPE_F64);
    assert_int_equal(loom_dtype_promote(LOOM_DTYPE_BOOL, LOOM_DTYPE_BF16), LOOM_DTYPE_BF16);
    assert_int_equal(loom_dtype_promote(LOOM_DTYPE_I8, LOOM_DTYPE_BF16), LOOM_DTYPE_BF16);
    assert_int_equal(loom_dtype_promote(LOOM_DTYPE_U8, LOOM_DTYPE_BF16), LOOM_DTYPE_BF16);
}

/* Builds a 1-element array of dtype d holding one. */
static loom_array_t *one(loom_ctx_t *ctx, loom_dtype_t d) {
    int64_t n = 1;
    return loom_ones(ctx, d, 1, &n);
}

/* Checks the outcome of one op against NumPy's answer; returns 1 if it differs. */
static int check_outcome(loom_ctx_t *ctx, loom_array_t *r, int expected, const char *what,
                         const char *n1, const char *n2) {
    int bad = 0;
    if (expected < 0) {
        const char *msg = loom_ctx_message(ctx);
        if (!loom_array_is_nil(r) || loom_ctx_status(ctx) != LOOM_STATUS_DTYPE_ERROR) {
            print_message("%s: NumPy raises TypeError, loom gives %s (status %s)\n", what,
                          loom_array_is_nil(r) ? "nil" : dname((int)loom_array_dtype(r)),
                          loom_status_string(loom_ctx_status(ctx)));
            bad = 1;
        } else if (!check_has_word(msg, n1) || (n2 && !check_has_word(msg, n2))) {
            print_message("%s: DTYPE_ERROR message does not name the dtypes: \"%s\"\n", what, msg);
            bad = 1;
        }
    } else if (loom_array_is_nil(r)) {
        print_message("%s: NumPy gives %s, loom fails: %s\n", what, dname(expected),
                      loom_ctx_message(ctx));
        bad = 1;
    } else if ((int)loom_array_dtype(r) != expected) {
        print_message("%s: NumPy gives %s, loom %s\n", what, dname(expected),
                      dname((int)loom_array_dtype(r)));
        bad = 1;
    }
    loom_ctx_clear_error(ctx);
    return bad;
}

static void test_promotion_unary_ops(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int bad = 0;
    for (int op = 0; op < NP_N_UNARY; op++)
        for (int i = 0; i < NP_N_DTYPES; i++) {
            loom_scope_begin(ctx);
            loom_dtype_t d = (loom_dtype_t)np_dtypes[i];
            loom_array_t *r = check_unary_fns[op](ctx, one(ctx, d));
            char what[96];
            snprintf(what, sizeof what, "%s(%s)", np_unary_names[op], loom_dtype_name(d));
            bad += check_outcome(ctx, r, np_unary_result[op][i], what, loom_dtype_name(d), NULL);
            loom_scope_end(ctx);
        }
    loom_ctx_destroy(ctx);
    assert_int_equal(bad, 0);
}

static void test_promotion_binary_ops(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int bad = 0;
    for (int op = 0; op < NP_N_BINARY; op++)
        for (int i = 0; i < NP_N_DTYPES; i++)
            for (int j = 0; j < NP_N_DTYPES; j++) {
                loom_scope_begin(ctx);
                loom_dtype_t a = (loom_dtype_t)np_dtypes[i], b = (loom_dtype_t)np_dtypes[j];
                loom_array_t *r = check_binary_fns[op](ctx, one(ctx, a), one(ctx, b));
                char what[96];
                snprintf(what, sizeof what, "%s(%s, %s)", np_binary_names[op], loom_dtype_name(a),
                         loom_dtype_name(b));
                bad += check_outcome(ctx, r, np_binary_result[op][i][j], what, loom_dtype_name(a),
                                     loom_dtype_name(b));
                loom_scope_end(ctx);
            }
    loom_ctx_destroy(ctx);
    assert_int_equal(bad, 0);
}

static void test_promotion_where_and_clip(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int bad = 0;
    for (int i = 0; i < NP_N_DTYPES; i++)
        for (int j = 0; j < NP_N_DTYPES; j++) {
            loom_scope_begin(ctx);
            loom_dtype_t a = (loom_dtype_t)np_dtypes[i], b = (loom_dtype_t)np_dtypes[j];
            char what[96];
            snprintf(what, sizeof what, "where(bool, %s, %s)", loom_dtype_name(a),
                     loom_dtype_name(b));
            loom_array_t *w = loom_where(ctx, one(ctx, LOOM_DTYPE_BOOL), one(ctx, a), one(ctx, b));
            bad += check_outcome(ctx, w, np_where_result[i][j], what, loom_dtype_name(a),
                                 loom_dtype_name(b));
            snprintf(what, sizeof what, "clip(%s, %s, %s)", loom_dtype_name(a), loom_dtype_name(b),
                     loom_dtype_name(b));
            loom_array_t *c = loom_clip(ctx, one(ctx, a), one(ctx, b), one(ctx, b));
            bad += check_outcome(ctx, c, np_clip_result[i][j], what, loom_dtype_name(a),
                                 loom_dtype_name(b));
            loom_scope_end(ctx);
        }
    loom_ctx_destroy(ctx);
    assert_int_equal(bad, 0);
}

/* A 0-d array is strong: it promotes like any array, unlike a weak scalar. */
static void test_promotion_zero_d_is_strong(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t n = 4;
    loom_array_t *a = loom_zeros(ctx, LOOM_DTYPE_I8, 1, &n);
    loom_array_t *s = loom_full(ctx, LOOM_DTYPE_I64, 0, NULL, 3.0);
    assert_false(loom_array_is_nil(s));
    assert_int_equal(loom_array_ndim(s), 0);
    loom_array_t *r = loom_add(ctx, a, s);
    assert_int_equal(loom_array_dtype(r), LOOM_DTYPE_I64);
    assert_int_equal(loom_array_ndim(r), 1);
    loom_array_t *f = loom_add(ctx, loom_zeros(ctx, LOOM_DTYPE_F32, 1, &n),
                               loom_full(ctx, LOOM_DTYPE_F64, 0, NULL, 1.0));
    assert_int_equal(loom_array_dtype(f), LOOM_DTYPE_F64);
    loom_ctx_destroy(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_promotion_op_lists_match_tables),
        cmocka_unit_test(test_promotion_dtype_names),
        cmocka_unit_test(test_promotion_result_type_table),
        cmocka_unit_test(test_promotion_bfloat16),
        cmocka_unit_test(test_promotion_unary_ops),
        cmocka_unit_test(test_promotion_binary_ops),
        cmocka_unit_test(test_promotion_where_and_clip),
        cmocka_unit_test(test_promotion_zero_d_is_strong),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
