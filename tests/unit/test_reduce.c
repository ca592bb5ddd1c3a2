/* test_reduce — reductions and scans on the CPU reference device against NumPy 2
 * (tests/data/numpy_reduce.h, from tools/gen_numpy_reduce_tables.py): every reduction x dtype x
 * axis choice, read contiguous and through views (transposed, sliced with negative steps, views
 * of views), NaN inputs, empty inputs; result dtypes and shapes exactly, ints exactly, floats
 * within a tolerance per dtype (see tol()); and the error messages. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../data/numpy_reduce.h"
#include "../support/check.h"

/* Float tolerance: relative and absolute. float16/bfloat16 accumulate in float32 here (NumPy
 * rounds float16 at each step off the contiguous axis, and bfloat16 expectations are float32
 * results), float32/float64 sums may add in another order than NumPy's. */
static void tol(loom_dtype_t d, double *rel, double *abs_) {
    switch (d) {
        case LOOM_DTYPE_F16:
        case LOOM_DTYPE_BF16:
            *rel = 2e-2, *abs_ = 2e-2;
            break;
        case LOOM_DTYPE_F32:
            *rel = 1e-5, *abs_ = 1e-5;
            break;
        default:
            *rel = 1e-12, *abs_ = 1e-12;
    }
}

typedef loom_array_t *(*reduce_fn)(loom_ctx_t *, loom_array_t *, int32_t, const int32_t *, int);

static loom_array_t *build(loom_ctx_t *ctx, const np_red_case_t *c, loom_array_t *x) {
    static const struct {
        const char *name;
        reduce_fn fn;
    } fns[] = {{"sum", loom_sum},       {"prod", loom_prod},     {"mean", loom_mean},
               {"max", loom_max},       {"min", loom_min},       {"argmax", loom_argmax},
               {"argmin", loom_argmin}, {"any", loom_any},       {"all", loom_all}};
    const int32_t *axes = c->naxes < 0 ? NULL : c->axes;
    if (!strcmp(c->op, "var"))
        return loom_var(ctx, x, c->naxes, axes, c->keepdims, c->ddof);
    if (!strcmp(c->op, "std"))
        return loom_std(ctx, x, c->naxes, axes, c->keepdims, c->ddof);
    if (!strcmp(c->op, "cumsum"))
        return loom_cumsum(ctx, x, c->naxes < 0 ? LOOM_AXIS_NONE : c->axes[0]);
    if (!strcmp(c->op, "cumprod"))
        return loom_cumprod(ctx, x, c->naxes < 0 ? LOOM_AXIS_NONE : c->axes[0]);
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
        if (!strcmp(c->op, fns[i].name)) return fns[i].fn(ctx, x, c->naxes, axes, c->keepdims);
    fail_msg("unknown op %s", c->op);
    return NULL;
}

/* The input read through view c->view (see numpy_reduce.h). */
static loom_array_t *viewed(loom_ctx_t *ctx, loom_array_t *x, int view) {
    static const int32_t t1[3] = {2, 0, 1}, t3[3] = {1, 2, 0}, one = 1;
    static const int64_t st[3] = {LOOM_NONE, 1, LOOM_NONE}, sp[3] = {-1, 1, -2};
    switch (view) {
        case 1:
            return loom_transpose(ctx, x, 3, t1);
        case 2:
            return loom_slice(ctx, x, 3, st, NULL, sp);
        case 3:
            return loom_transpose(ctx, loom_flip(ctx, x, 1, &one), 3, t3);
        default:
            return x;
    }
}

static int check_case(loom_ctx_t *ctx, size_t k, int lazy) {
    const np_red_case_t *c = &np_red_cases[k];
    const np_red_input_t *in = &np_red_inputs[c->input];
    char what[160];
    snprintf(what, sizeof what, "case %zu: %s(%s input %d view %d naxes %d [%d %d] keep %d)%s", k,
             c->op, loom_dtype_name(in->dtype), c->input, c->view, c->naxes, c->axes[0],
             c->axes[1], c->keepdims, lazy ? " lazy" : "");
    loom_scope_begin(ctx);
    loom_array_t *x = check_from_bits(ctx, in->dtype, in->ndim, in->shape, in->bits, in->n);
    if (lazy) /* a computed operand, not a realised buffer */
        x = loom_where(ctx, loom_ones(ctx, LOOM_DTYPE_BOOL, 0, NULL), x, x);
    loom_array_t *r = build(ctx, c, viewed(ctx, x, c->view));
    int bad = 0;
    if (c->error) {
        if (!loom_array_is_nil(r) || loom_ctx_status(ctx) == LOOM_STATUS_OK) {
            print_message("%s: NumPy raises, loom does not\n", what);
            bad = 1;
        }
        loom_ctx_clear_error(ctx);
        loom_scope_end(ctx);
        return bad;
    }
    if (loom_array_is_nil(r)) {
        print_message("%s: loom fails: %s\n", what, loom_ctx_message(ctx));
        loom_ctx_clear_error(ctx);
        loom_scope_end(ctx);
        return 1;
    }
    if (loom_array_dtype(r) != c->out || loom_array_ndim(r) != c->ndim) {
        print_message("%s: dtype %s ndim %d, NumPy %s ndim %d\n", what,
                      loom_dtype_name(loom_array_dtype(r)), (int)loom_array_ndim(r),
                      loom_dtype_name(c->out), (int)c->ndim);
        loom_scope_end(ctx);
        return 1;
    }
    for (int i = 0; i < c->ndim; i++)
        if (loom_array_dim(r, i) != c->shape[i]) {
            print_message("%s: axis %d extent %lld, NumPy %lld\n", what, i,
                          (long long)loom_array_dim(r, i), (long long)c->shape[i]);
            bad = 1;
        }
    uint64_t got[64];
    assert_true(c->n <= 64);
    if (!bad && check_read_bits(ctx, r, got, c->n) != LOOM_STATUS_OK) {
        print_message("%s: read fails: %s\n", what, loom_ctx_message(ctx));
        bad = 1;
    }
    for (int64_t i = 0; !bad && i < c->n; i++) {
        if (!c->f) {
            if (got[i] != c->u[i]) {
                print_message("%s: [%lld] = 0x%llx, NumPy 0x%llx\n", what, (long long)i,
                              (unsigned long long)got[i], (unsigned long long)c->u[i]);
                bad = 1;
            }
            continue;
        }
        double g = check_bits_to_double(c->out, got[i]), e = c->f[i], rel, abs_;
        tol(c->out, &rel, &abs_);
        int ok = isnan(e) ? isnan(g) : isinf(e) ? g == e : fabs(g - e) <= abs_ + rel * fabs(e);
        if (!ok) {
            print_message("%s: [%lld] = %.17g, NumPy %.17g\n", what, (long long)i, g, e);
            bad = 1;
        }
    }
    loom_ctx_clear_error(ctx);
    loom_scope_end(ctx);
    return bad;
}

static void test_reduce_numpy_table(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int bad = 0;
    for (size_t k = 0; k < NP_N_RED_CASES; k++) bad += check_case(ctx, k, 0);
    loom_ctx_destroy(ctx);
    if (bad) fail_msg("%d of %zu cases differ from NumPy", bad, NP_N_RED_CASES);
}

static void test_reduce_numpy_table_lazy_operand(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int bad = 0;
    for (size_t k = 0; k < NP_N_RED_CASES; k++) bad += check_case(ctx, k, 1);
    loom_ctx_destroy(ctx);
    if (bad) fail_msg("%d of %zu cases differ from NumPy", bad, NP_N_RED_CASES);
}

/* A refusal: nil, the status, and a message containing each of the words. */
static void expect_error(loom_ctx_t *ctx, loom_array_t *r, loom_status_t st, const char *text) {
    assert_true(loom_array_is_nil(r));
    assert_int_equal(loom_ctx_status(ctx), st);
    if (!strstr(loom_ctx_message(ctx), text))
        fail_msg("message \"%s\" lacks \"%s\"", loom_ctx_message(ctx), text);
    loom_ctx_clear_error(ctx);
}

static void test_reduce_errors(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t s23[2] = {2, 3}, s03[2] = {0, 3};
    loom_array_t *x = loom_zeros(ctx, LOOM_DTYPE_F32, 2, s23);
    loom_array_t *e = loom_zeros(ctx, LOOM_DTYPE_F32, 2, s03);
    int32_t ax3 = 3, axm3 = -3, dup[2] = {0, -2}, both[2] = {0, 1}, ax0 = 0, ax1 = 1;
    expect_error(ctx, loom_sum(ctx, x, 1, &ax3, 0), LOOM_STATUS_INVALID_ARGUMENT,
                 "sum: axis 3 is out of bounds for array of dimension 2");
    expect_error(ctx, loom_mean(ctx, x, 1, &axm3, 0), LOOM_STATUS_INVALID_ARGUMENT,
                 "axis -3 is out of bounds for array of dimension 2");
    expect_error(ctx, loom_prod(ctx, x, 2, dup, 0), LOOM_STATUS_INVALID_ARGUMENT,
                 "duplicate value in 'axis'");
    expect_error(ctx, loom_argmax(ctx, x, 2, both, 0), LOOM_STATUS_INVALID_ARGUMENT,
                 "argmax: takes one axis");
    expect_error(ctx, loom_max(ctx, e, -1, NULL, 0), LOOM_STATUS_INVALID_ARGUMENT,
                 "zero-size array to reduction operation maximum which has no identity");
    expect_error(ctx, loom_min(ctx, e, 1, &ax0, 0), LOOM_STATUS_INVALID_ARGUMENT,
                 "reduction operation minimum");
    expect_error(ctx, loom_argmin(ctx, e, -1, NULL, 0), LOOM_STATUS_INVALID_ARGUMENT,
                 "attempt to get argmin of an empty sequence");
    expect_error(ctx, loom_cumsum(ctx, x, 2), LOOM_STATUS_INVALID_ARGUMENT,
                 "cumsum: axis 2 is out of bounds");
    /* Along the non-empty axis the result is merely empty. */
    loom_array_t *ok = loom_max(ctx, e, 1, &ax1, 0);
    assert_false(loom_array_is_nil(ok));
    assert_int_equal(loom_array_size(ok), 0);
    assert_int_equal(loom_eval(ctx, 1, &ok), LOOM_STATUS_OK);
    /* A nil operand gives nil without a new error. */
    loom_array_t *nil = loom_sum(ctx, x, 1, &ax3, 0);
    loom_ctx_clear_error(ctx);
    assert_true(loom_array_is_nil(loom_sum(ctx, nil, -1, NULL, 0)));
    loom_ctx_destroy(ctx);
}

/* A float32 sum long enough for pairwise summation to matter: NumPy's blocking is reproduced
 * on the contiguous axis, so the result is bit-exact (1-D: NumPy's pairwise algorithm). */
static void test_reduce_sum_pairwise_float32(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    enum { N = 1000 };
    static float v[N];
    for (int i = 0; i < N; i++) v[i] = 1.0f / (float)(i + 1);
    int64_t n = N;
    loom_array_t *s = loom_sum(ctx, loom_from_host(ctx, LOOM_DTYPE_F32, 1, &n, v), -1, NULL, 0);
    float got;
    assert_int_equal(loom_read(ctx, s, &got, sizeof got), LOOM_STATUS_OK);
    /* np.sum(np.float32(1) / np.arange(1, 1001, dtype=np.float32)) is 7.4854717f, bits
     * 0x40ef88fc, exactly; adding in order would give 7.4854784f. */
    uint32_t bits;
    memcpy(&bits, &got, sizeof bits);
    assert_int_equal(bits, 0x40ef88fcu);
    loom_ctx_destroy(ctx);
}

/* softmax and mean/var built from the pieces, checked against closed forms. */
static void test_reduce_compose_softmax(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    double v[6] = {1, 2, 3, 0, 0, 0}, got[6];
    int64_t s[2] = {2, 3};
    int32_t ax = -1;
    loom_array_t *x = loom_from_host(ctx, LOOM_DTYPE_F64, 2, s, v);
    loom_array_t *ex = loom_exp(ctx, loom_subtract(ctx, x, loom_max(ctx, x, 1, &ax, 1)));
    loom_array_t *sm = loom_true_divide(ctx, ex, loom_sum(ctx, ex, 1, &ax, 1));
    assert_int_equal(loom_read(ctx, sm, got, sizeof got), LOOM_STATUS_OK);
    double z = exp(-2.0) + exp(-1.0) + 1.0;
    assert_true(fabs(got[0] - exp(-2.0) / z) < 1e-15 && fabs(got[2] - 1.0 / z) < 1e-15);
    assert_true(fabs(got[3] - 1.0 / 3) < 1e-15);
    loom_ctx_destroy(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reduce_numpy_table),
        cmocka_unit_test(test_reduce_numpy_table_lazy_operand),
        cmocka_unit_test(test_reduce_errors),
        cmocka_unit_test(test_reduce_sum_pairwise_float32),
        cmocka_unit_test(test_reduce_compose_softmax),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
