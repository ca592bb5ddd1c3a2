/* test_broadcast — result shapes of binary ops and where() against np.broadcast_shapes
 * (tests/data/numpy_broadcast.h), including 0-d and 0-size shapes; incompatible shapes give
 * LOOM_STATUS_SHAPE_MISMATCH with a message naming both shapes; broadcast values. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "../data/numpy_broadcast.h"
#include "../support/check.h"

/* NumPy's spelling of a shape without spaces: "()", "(5,)", "(3,4)". */
static void shape_text(const np_shape_t *s, char *buf, size_t cap) {
    size_t k = (size_t)snprintf(buf, cap, "(");
    for (int i = 0; i < s->ndim && k < cap; i++)
        k += (size_t)snprintf(buf + k, cap - k, i + 1 < s->ndim ? "%lld," : "%lld",
                              (long long)s->dims[i]);
    if (k < cap) snprintf(buf + k, cap - k, s->ndim == 1 ? ",)" : ")");
}

static loom_array_t *zeros(loom_ctx_t *ctx, loom_dtype_t d, const np_shape_t *s) {
    return loom_zeros(ctx, d, s->ndim, s->ndim ? s->dims : NULL);
}

static int check_shape(loom_ctx_t *ctx, loom_array_t *r, const np_broadcast_case_t *c,
                       const char *what) {
    int bad = 0;
    if (c->out.ndim < 0) {
        char sa[64], sb[64];
        shape_text(&c->a, sa, sizeof sa);
        shape_text(&c->b, sb, sizeof sb);
        if (!loom_array_is_nil(r) || loom_ctx_status(ctx) != LOOM_STATUS_SHAPE_MISMATCH) {
            print_message("%s: NumPy raises, loom status %s\n", what,
                          loom_status_string(loom_ctx_status(ctx)));
            bad = 1;
        } else if (c->c.ndim == -2 && (!check_has_nospace(loom_ctx_message(ctx), sa) ||
                                       !check_has_nospace(loom_ctx_message(ctx), sb))) {
            print_message("%s: message should name %s and %s: \"%s\"\n", what, sa, sb,
                          loom_ctx_message(ctx));
            bad = 1;
        }
    } else if (loom_array_is_nil(r)) {
        print_message("%s: loom fails: %s\n", what, loom_ctx_message(ctx));
        bad = 1;
    } else {
        int same = loom_array_ndim(r) == c->out.ndim;
        for (int i = 0; same && i < c->out.ndim; i++) same = loom_array_dim(r, i) == c->out.dims[i];
        int64_t size = 1;
        for (int i = 0; i < c->out.ndim; i++) size *= c->out.dims[i];
        if (!same || loom_array_size(r) != size) {
            char e[64];
            shape_text(&c->out, e, sizeof e);
            print_message("%s: NumPy %s, loom ndim %d\n", what, e, (int)loom_array_ndim(r));
            bad = 1;
        }
    }
    loom_ctx_clear_error(ctx);
    return bad;
}

static void test_broadcast_shapes_table(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int bad = 0;
    for (size_t i = 0; i < NP_N_BROADCAST_CASES; i++) {
        const np_broadcast_case_t *c = &np_broadcast_cases[i];
        char sa[64], sb[64], sc[64], what[200];
        shape_text(&c->a, sa, sizeof sa);
        shape_text(&c->b, sb, sizeof sb);
        loom_scope_begin(ctx);
        if (c->c.ndim == -2) {
            snprintf(what, sizeof what, "add%s%s", sa, sb);
            bad += check_shape(
                ctx,
                loom_add(ctx, zeros(ctx, LOOM_DTYPE_F32, &c->a), zeros(ctx, LOOM_DTYPE_I32, &c->b)),
                c, what);
            /* Comparisons broadcast the same way. */
            snprintf(what, sizeof what, "less%s%s", sa, sb);
            bad += check_shape(
                ctx,
                loom_less(ctx, zeros(ctx, LOOM_DTYPE_U8, &c->a), zeros(ctx, LOOM_DTYPE_F64, &c->b)),
                c, what);
        } else {
            shape_text(&c->c, sc, sizeof sc);
            snprintf(what, sizeof what, "where%s%s%s", sa, sb, sc);
            bad += check_shape(ctx,
                               loom_where(ctx, zeros(ctx, LOOM_DTYPE_BOOL, &c->a),
                                          zeros(ctx, LOOM_DTYPE_F32, &c->b),
                                          zeros(ctx, LOOM_DTYPE_F32, &c->c)),
                               c, what);
        }
        loom_scope_end(ctx);
    }
    loom_ctx_destroy(ctx);
    assert_int_equal(bad, 0);
}

static void test_broadcast_mismatch_message(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t s34[2] = {3, 4}, s5[1] = {5};
    loom_array_t *r = loom_multiply(ctx, loom_ones(ctx, LOOM_DTYPE_F32, 2, s34),
                                    loom_ones(ctx, LOOM_DTYPE_F32, 1, s5));
    assert_true(loom_array_is_nil(r));
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_SHAPE_MISMATCH);
    const char *msg = loom_ctx_message(ctx);
    assert_true(check_has_nospace(msg, "(3,4)"));
    assert_true(check_has_nospace(msg, "(5,)"));
    loom_ctx_destroy(ctx);
}

static void test_broadcast_values(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int32_t col[3] = {10, 20, 30}, row[4] = {1, 2, 3, 4}, out[12];
    int64_t s31[2] = {3, 1}, s4[1] = {4};
    loom_array_t *r = loom_add(ctx, loom_from_host(ctx, LOOM_DTYPE_I32, 2, s31, col),
                               loom_from_host(ctx, LOOM_DTYPE_I32, 1, s4, row));
    assert_int_equal(loom_array_ndim(r), 2);
    assert_int_equal(loom_array_dim(r, 0), 3);
    assert_int_equal(loom_array_dim(r, -1), 4);
    assert_int_equal(loom_read(ctx, r, out, sizeof out), LOOM_STATUS_OK);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) assert_int_equal(out[i * 4 + j], col[i] + row[j]);
    /* 0-d with 1-d: the 0-d value reaches every element. */
    double three = 3.0, v[4] = {1, 2, 3, 4}, o[4];
    loom_array_t *z = loom_from_host(ctx, LOOM_DTYPE_F64, 0, NULL, &three);
    assert_int_equal(loom_array_ndim(z), 0);
    assert_int_equal(loom_array_size(z), 1);
    loom_array_t *p = loom_multiply(ctx, z, loom_from_host(ctx, LOOM_DTYPE_F64, 1, s4, v));
    assert_int_equal(loom_read(ctx, p, o, sizeof o), LOOM_STATUS_OK);
    for (int i = 0; i < 4; i++) assert_true(o[i] == 3.0 * v[i]);
    /* 0-d with 0-d stays 0-d. */
    loom_array_t *zz = loom_add(ctx, z, z);
    assert_int_equal(loom_array_ndim(zz), 0);
    double oz = 0;
    assert_int_equal(loom_read(ctx, zz, &oz, sizeof oz), LOOM_STATUS_OK);
    assert_true(oz == 6.0);
    loom_ctx_destroy(ctx);
}

static void test_broadcast_zero_size(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t s01[2] = {0, 1}, s4[1] = {4};
    loom_array_t *r = loom_add(ctx, loom_ones(ctx, LOOM_DTYPE_F32, 2, s01),
                               loom_ones(ctx, LOOM_DTYPE_F32, 1, s4));
    assert_false(loom_array_is_nil(r));
    assert_int_equal(loom_array_dim(r, 0), 0);
    assert_int_equal(loom_array_dim(r, 1), 4);
    assert_int_equal(loom_array_size(r), 0);
    assert_int_equal((int)loom_array_nbytes(r), 0);
    float canary = 42.0f;
    assert_int_equal(loom_read(ctx, r, &canary, 0), LOOM_STATUS_OK);
    assert_true(canary == 42.0f);
    assert_int_equal(loom_eval(ctx, 1, &r), LOOM_STATUS_OK);
    loom_ctx_destroy(ctx);
}

/* Operands that each fit can broadcast to a shape that does not: (2**40, 1) + (1, 2**40) is
 * an OVERFLOW error, as every other builder's too-large shape (it was built, with a size past
 * INT64_MAX). */
static void test_broadcast_result_too_large(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t big = INT64_C(1) << 40, col[2] = {big, 1}, row[2] = {1, big};
    loom_array_t *c = loom_zeros(ctx, LOOM_DTYPE_F32, 2, col);
    loom_array_t *r = loom_zeros(ctx, LOOM_DTYPE_BOOL, 2, row);
    for (int i = 0; i < 3; i++) {
        loom_array_t *x = i == 0   ? loom_add(ctx, c, r)
                          : i == 1 ? loom_where(ctx, r, c, c)
                                   : loom_clip(ctx, c, r, loom_weak_int(ctx, 1));
        assert_true(loom_array_is_nil(x));
        assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_OVERFLOW);
        assert_non_null(strstr(loom_ctx_message(ctx), "has too many elements"));
        loom_ctx_clear_error(ctx);
    }
    loom_ctx_destroy(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_broadcast_shapes_table),
        cmocka_unit_test(test_broadcast_mismatch_message),
        cmocka_unit_test(test_broadcast_values),
        cmocka_unit_test(test_broadcast_zero_size),
        cmocka_unit_test(test_broadcast_result_too_large),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
