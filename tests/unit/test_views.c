/* test_views — movement ops and joins on the CPU reference device against NumPy 2
 * (tests/data/numpy_reduce.h's view programs): reshape (views and the copies strides cannot
 * express), transpose, slices with Python clipping and negative steps, broadcast_to,
 * expand_dims, squeeze, flip, moveaxis, concatenate, stack; views of views, of realised and of
 * computed arrays; the IR dump; argument errors with NumPy's messages. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../data/numpy_reduce.h"
#include "../support/check.h"

static int32_t axes32(const int64_t *v, int32_t n, int32_t *out) {
    for (int32_t i = 0; i < n; i++) out[i] = (int32_t)v[i];
    return n;
}

static loom_array_t *step(loom_ctx_t *ctx, loom_array_t *x, const np_view_step_t *s) {
    int32_t a[8], b[8];
    axes32(s->a, s->na > 0 ? s->na : 0, a);
    axes32(s->b, s->nb > 0 ? s->nb : 0, b);
    switch (s->kind) {
        case NP_VIEW_RESHAPE:
            return loom_reshape(ctx, x, s->na, s->a);
        case NP_VIEW_TRANSPOSE:
            return loom_transpose(ctx, x, s->na, s->na < 0 ? NULL : a);
        case NP_VIEW_SLICE:
            return loom_slice(ctx, x, s->na, s->a, s->b, s->c);
        case NP_VIEW_BROADCAST:
            return loom_broadcast_to(ctx, x, s->na, s->a);
        case NP_VIEW_EXPAND:
            return loom_expand_dims(ctx, x, s->na, a);
        case NP_VIEW_SQUEEZE:
            return loom_squeeze(ctx, x, s->na, s->na < 0 ? NULL : a);
        case NP_VIEW_FLIP:
            return loom_flip(ctx, x, s->na, s->na < 0 ? NULL : a);
        case NP_VIEW_MOVEAXIS:
            return loom_moveaxis(ctx, x, s->na, a, b);
        case NP_VIEW_CONCAT_SELF: {
            loom_array_t *two[2] = {x, loom_flip(ctx, x, 1, a)};
            return loom_concatenate(ctx, 2, two, a[0]);
        }
        case NP_VIEW_STACK_SELF: {
            loom_array_t *two[2] = {x, loom_add_i(ctx, x, 1)};
            return loom_stack(ctx, 2, two, a[0]);
        }
        case NP_VIEW_ADD1:
            return loom_add_i(ctx, x, 1);
    }
    return NULL;
}

/* mode 0: the input realised (from_host); 1: computed (x + 0); 2: realised by an eval first. */
static int check_view_case(loom_ctx_t *ctx, size_t k, int mode) {
    const np_view_case_t *c = &np_view_cases[k];
    loom_scope_begin(ctx);
    int64_t n = 1;
    for (int i = 0; i < c->ndim; i++) n *= c->shape[i];
    int32_t data[120];
    for (int64_t i = 0; i < n; i++) data[i] = (int32_t)i;
    loom_array_t *x = loom_from_host(ctx, LOOM_DTYPE_I32, c->ndim, c->shape, data);
    if (mode >= 1) x = loom_add_i(ctx, x, 0);
    if (mode == 2) assert_int_equal(loom_eval(ctx, 1, &x), LOOM_STATUS_OK);
    for (int s = 0; s < c->nsteps; s++) x = step(ctx, x, &c->steps[s]);
    int bad = 0;
    if (loom_array_is_nil(x)) {
        print_message("view case %zu mode %d: loom fails: %s\n", k, mode, loom_ctx_message(ctx));
        bad = 1;
    } else if (loom_array_ndim(x) != c->out_ndim || loom_array_size(x) != c->n) {
        print_message("view case %zu mode %d: ndim %d size %lld, NumPy %d %lld\n", k, mode,
                      (int)loom_array_ndim(x), (long long)loom_array_size(x), (int)c->out_ndim,
                      (long long)c->n);
        bad = 1;
    } else {
        for (int i = 0; i < c->out_ndim; i++)
            bad |= loom_array_dim(x, i) != c->out_shape[i];
        int32_t got[128] = {0};
        assert_true(c->n <= 128);
        if (!bad && loom_read(ctx, x, got, sizeof got) != LOOM_STATUS_OK) bad = 1;
        for (int64_t i = 0; !bad && i < c->n; i++)
            if (got[i] != c->y[i]) {
                print_message("view case %zu mode %d: [%lld] = %d, NumPy %d\n", k, mode,
                              (long long)i, got[i], c->y[i]);
                bad = 1;
            }
        if (bad) print_message("view case %zu mode %d: %s\n", k, mode, loom_ctx_message(ctx));
    }
    loom_ctx_clear_error(ctx);
    loom_scope_end(ctx);
    return bad;
}

static void test_views_numpy_table(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int bad = 0;
    for (int mode = 0; mode < 3; mode++)
        for (size_t k = 0; k < NP_N_VIEW_CASES; k++) bad += check_view_case(ctx, k, mode);
    loom_ctx_destroy(ctx);
    if (bad) fail_msg("%d view cases differ from NumPy", bad);
}

/* A view of a borrowed (realised) buffer reads that buffer at eval time: no copy was taken. */
static void test_views_read_realised_buffer(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    float buf[6] = {0, 1, 2, 3, 4, 5}, got[6];
    int64_t s[2] = {2, 3};
    loom_array_t *x = loom_borrow_host(ctx, LOOM_DTYPE_F32, 2, s, buf);
    loom_array_t *t = loom_transpose(ctx, x, 2, NULL);
    buf[1] = 10; /* changed after the view was built */
    assert_int_equal(loom_read(ctx, t, got, sizeof got), LOOM_STATUS_OK);
    assert_true(got[0] == 0 && got[1] == 3 && got[2] == 10 && got[3] == 4);
    loom_ctx_destroy(ctx);
}

/* Slices clip like Python; LOOM_NONE omits; negative steps walk backwards. */
static void test_views_slice_clipping(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t n = 5;
    loom_array_t *x = loom_arange(ctx, 0, 5, 1, LOOM_DTYPE_I64);
    struct {
        int64_t start, stop, step, want_n, first;
    } cases[] = {
        {LOOM_NONE, LOOM_NONE, -1, 5, 4}, {-100, 100, 2, 3, 0}, {100, -100, -2, 3, 4},
        {3, 1, 1, 0, 0},                  {-2, LOOM_NONE, 1, 2, 3}, {LOOM_NONE, -6, -1, 5, 4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        loom_array_t *y = loom_slice(ctx, x, 1, &cases[i].start, &cases[i].stop, &cases[i].step);
        assert_int_equal(loom_array_size(y), cases[i].want_n);
        int64_t got[5];
        assert_int_equal(loom_read(ctx, y, got, sizeof got), LOOM_STATUS_OK);
        if (cases[i].want_n) assert_int_equal(got[0], cases[i].first);
    }
    (void)n;
    loom_ctx_destroy(ctx);
}

static void expect_error(loom_ctx_t *ctx, loom_array_t *r, loom_status_t st, const char *text) {
    assert_true(loom_array_is_nil(r));
    assert_int_equal(loom_ctx_status(ctx), st);
    if (!check_has_nospace(loom_ctx_message(ctx), text))
        fail_msg("message \"%s\" lacks \"%s\"", loom_ctx_message(ctx), text);
    loom_ctx_clear_error(ctx);
}

static void test_views_errors(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t s34[2] = {3, 4}, s53[2] = {5, 3}, s2m1[2] = {-1, -1}, s4[1] = {4}, step0 = 0;
    int32_t rep[2] = {0, 0}, one = 1, ax5 = 5;
    loom_array_t *x = loom_zeros(ctx, LOOM_DTYPE_F32, 2, s34);
    expect_error(ctx, loom_reshape(ctx, x, 2, s53), LOOM_STATUS_SHAPE_MISMATCH,
                 "reshape:cannotreshapearrayofsize12intoshape(5,3)");
    expect_error(ctx, loom_reshape(ctx, x, 2, s2m1), LOOM_STATUS_INVALID_ARGUMENT,
                 "canonlyspecifyoneunknowndimension");
    expect_error(ctx, loom_transpose(ctx, x, 2, rep), LOOM_STATUS_INVALID_ARGUMENT,
                 "repeatedaxis");
    expect_error(ctx, loom_transpose(ctx, x, 1, rep), LOOM_STATUS_INVALID_ARGUMENT,
                 "axesdon'tmatcharray");
    expect_error(ctx, loom_slice(ctx, x, 1, NULL, NULL, &step0), LOOM_STATUS_INVALID_ARGUMENT,
                 "slicestepcannotbezero");
    expect_error(ctx, loom_broadcast_to(ctx, x, 1, s4), LOOM_STATUS_SHAPE_MISMATCH,
                 "shape(3,4)totherequestedshape(4,)");
    expect_error(ctx, loom_squeeze(ctx, x, 1, &one), LOOM_STATUS_INVALID_ARGUMENT,
                 "cannotselectanaxistosqueezeout");
    expect_error(ctx, loom_expand_dims(ctx, x, 1, &ax5), LOOM_STATUS_INVALID_ARGUMENT,
                 "axis5isoutofboundsforarrayofdimension3");
    loom_array_t *v = loom_zeros(ctx, LOOM_DTYPE_F32, 1, s4);
    loom_array_t *two[2] = {x, v};
    expect_error(ctx, loom_concatenate(ctx, 2, two, 0), LOOM_STATUS_SHAPE_MISMATCH,
                 "thearrayatindex0has2dimension(s)andthearrayatindex1has1dimension(s)");
    loom_array_t *w = loom_zeros(ctx, LOOM_DTYPE_F32, 2, s53);
    loom_array_t *xw[2] = {x, w};
    expect_error(ctx, loom_concatenate(ctx, 2, xw, 0), LOOM_STATUS_SHAPE_MISMATCH,
                 "alongdimension1,thearrayatindex0hassize4andthearrayatindex1hassize3");
    expect_error(ctx, loom_stack(ctx, 2, xw, 0), LOOM_STATUS_SHAPE_MISMATCH,
                 "allinputarraysmusthavethesameshape");
    expect_error(ctx, loom_concatenate(ctx, 0, two, 0), LOOM_STATUS_INVALID_ARGUMENT,
                 "needatleastonearray");
    loom_ctx_destroy(ctx);
}

/* Joins promote like np.concatenate (int32 with float32 gives float64). */
static void test_views_concatenate_promotes(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t n = 2;
    int32_t a[2] = {1, 2};
    float b[2] = {0.5f, 1.5f};
    loom_array_t *two[2] = {loom_from_host(ctx, LOOM_DTYPE_I32, 1, &n, a),
                            loom_from_host(ctx, LOOM_DTYPE_F32, 1, &n, b)};
    loom_array_t *c = loom_concatenate(ctx, 2, two, LOOM_AXIS_NONE);
    assert_int_equal(loom_array_dtype(c), LOOM_DTYPE_F64);
    double got[4];
    assert_int_equal(loom_read(ctx, c, got, sizeof got), LOOM_STATUS_OK);
    assert_true(got[0] == 1 && got[1] == 2 && got[2] == 0.5 && got[3] == 1.5);
    loom_ctx_destroy(ctx);
}

/* Joining n arrays builds a balanced tree of binary CONCATs, ceil(log2 n) deep, not a chain n
 * deep (whose evaluation copied O(n^2) elements: 32,000 arrays took 4 s on the CPU device).
 * The depth is read from the IR dump, so the check does not depend on timing. */
static int64_t concat_depth(const char *dump, int32_t *n_concat) {
    enum { MAX_NODES = 4096 };
    static int64_t depth[MAX_NODES];
    int64_t deepest = 0;
    *n_concat = 0;
    for (const char *line = dump; *line;) {
        unsigned k, a, b;
        int op_end = 0;
        sscanf(line, "%%%u = concatenate %n", &k, &op_end);
        const char *shape_end = op_end ? strchr(line + op_end, ')') : NULL; /* dtype(shape) */
        if (shape_end && sscanf(shape_end, ") %%%u %%%u", &a, &b) == 2) {
            assert_true(k < MAX_NODES && a < k && b < k);
            depth[k] = 1 + (depth[a] > depth[b] ? depth[a] : depth[b]);
            if (depth[k] > deepest) deepest = depth[k];
            (*n_concat)++;
        } else if (sscanf(line, "%%%u =", &k) == 1) {
            assert_true(k < MAX_NODES);
            depth[k] = 0;
        }
        const char *nl = strchr(line, '\n');
        line = nl ? nl + 1 : line + strlen(line);
    }
    return deepest;
}

static void test_views_concatenate_balanced(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    enum { N = 1000 };
    static loom_array_t *parts[N];
    static int32_t vals[N][2];
    int64_t two = 2;
    for (int32_t i = 0; i < N; i++) {
        vals[i][0] = 2 * i;
        vals[i][1] = 2 * i + 1;
        parts[i] = loom_from_host(ctx, LOOM_DTYPE_I32, 1, &two, vals[i]);
    }
    loom_array_t *joined[2] = {loom_concatenate(ctx, N, parts, 0), loom_stack(ctx, N, parts, 1)};
    size_t cap = 1 << 20;
    char *dump = malloc(cap);
    assert_non_null(dump);
    for (int j = 0; j < 2; j++) {
        int64_t len = loom_dump_ir(ctx, 1, &joined[j], dump, cap);
        assert_true(len > 0 && (size_t)len < cap);
        int32_t n_concat;
        assert_int_equal(concat_depth(dump, &n_concat), 10); /* ceil(log2(1000)) */
        assert_int_equal(n_concat, N - 1);
    }
    free(dump);
    static int32_t got[2 * N];
    assert_int_equal(loom_read(ctx, joined[0], got, sizeof got), LOOM_STATUS_OK);
    for (int32_t i = 0; i < 2 * N; i++) assert_int_equal(got[i], i);
    assert_int_equal(loom_read(ctx, joined[1], got, sizeof got), LOOM_STATUS_OK); /* (2, N) */
    for (int32_t i = 0; i < N; i++) {
        assert_int_equal(got[i], 2 * i);
        assert_int_equal(got[N + i], 2 * i + 1);
    }
    loom_ctx_destroy(ctx);
}

/* The IR dump shows the view and reduction params, deterministically. */
static void test_views_ir_dump(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t s[2] = {2, 3}, st[2] = {1, LOOM_NONE}, sp[2] = {1, -1};
    int32_t ax = 1;
    loom_array_t *x = loom_zeros(ctx, LOOM_DTYPE_F32, 2, s);
    loom_array_t *y = loom_sum(ctx, loom_slice(ctx, loom_transpose(ctx, x, 2, NULL), 2, st, NULL,
                                               sp),
                               1, &ax, 1);
    char buf[1024];
    assert_true(loom_dump_ir(ctx, 1, &y, buf, sizeof buf) > 0);
    assert_non_null(strstr(buf, "transpose float32(3, 2) %0 axes=(1, 0)"));
    assert_non_null(strstr(buf, "slice float32(2, 2) %1 start=(1, 1) step=(1, -1)"));
    assert_non_null(strstr(buf, "sum float32(2, 1) %2 axes=(1,) keepdims"));
    loom_ctx_destroy(ctx);
}

/* A chain of 200,000 views (x[None][0] repeated) over a computed buffer, then an op: the
 * reference device released each node's operands by walking the whole chain of views below
 * it, quadratic in the chain (20,000 pairs took over 100 s; these 100,000 about 40 min). */
static void test_views_long_chain_linear(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t n = 3;
    loom_array_t *x = loom_add(ctx, loom_arange_int(ctx, 0, n, 1, LOOM_DTYPE_I32),
                               loom_weak_int(ctx, 1));
    int32_t ax = 0;
    loom_scope_begin(ctx);
    for (int i = 0; i < 100000; i++) {
        loom_array_t *y = loom_squeeze(ctx, loom_expand_dims(ctx, x, 1, &ax), 1, &ax);
        loom_array_retain(y);
        loom_scope_end(ctx);
        loom_scope_begin(ctx);
        loom_array_release(x);
        x = y;
    }
    loom_scope_end(ctx);
    int32_t got[3];
    assert_int_equal(loom_read(ctx, loom_multiply(ctx, x, x), got, sizeof got), LOOM_STATUS_OK);
    assert_true(got[0] == 1 && got[1] == 4 && got[2] == 9);
    loom_ctx_destroy(ctx);
}

/* Views, joins and a cast to the same dtype copy bfloat16 bit for bit, NaN payloads included,
 * as NumPy copies; they went through float64, which made every bfloat16 NaN 0x7fc0 (sign kept).
 * A NaN cast from float32 still becomes 0x7fc0, as ml_dtypes makes it. */
static void test_views_bfloat16_nan_bits(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t n = 4;
    uint16_t x[4] = {0xffff, 0x7f81, 0x3f80, 0xffc1};
    loom_array_t *a = loom_from_host(ctx, LOOM_DTYPE_BF16, 1, &n, x);
    int64_t start = 0, two = 2, shape[2] = {2, 2};
    loom_array_t *copies[5] = {
        loom_reshape(ctx, loom_reshape(ctx, a, 2, shape), 1, &n),
        loom_slice(ctx, a, 1, &start, NULL, NULL),
        loom_flip(ctx, loom_flip(ctx, a, -1, NULL), -1, NULL),
        loom_astype(ctx, a, LOOM_DTYPE_BF16),
        loom_concatenate(ctx, 2, (loom_array_t *[]){loom_slice(ctx, a, 1, NULL, &two, NULL),
                                                    loom_slice(ctx, a, 1, &two, NULL, NULL)},
                         0),
    };
    uint16_t y[4];
    for (int i = 0; i < 5; i++) {
        assert_int_equal(loom_read(ctx, copies[i], y, sizeof y), LOOM_STATUS_OK);
        assert_memory_equal(x, y, sizeof x);
    }
    float f = 0;
    uint32_t nan_bits = 0x7fa00001u;
    memcpy(&f, &nan_bits, sizeof f);
    int64_t one = 1;
    loom_array_t *from32 = loom_astype(ctx, loom_from_host(ctx, LOOM_DTYPE_F32, 1, &one, &f),
                                       LOOM_DTYPE_BF16);
    assert_int_equal(loom_read(ctx, from32, y, 2), LOOM_STATUS_OK);
    assert_int_equal(y[0], 0x7fc0);
    loom_ctx_destroy(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_views_numpy_table),
        cmocka_unit_test(test_views_read_realised_buffer),
        cmocka_unit_test(test_views_slice_clipping),
        cmocka_unit_test(test_views_errors),
        cmocka_unit_test(test_views_concatenate_promotes),
        cmocka_unit_test(test_views_ir_dump),
        cmocka_unit_test(test_views_concatenate_balanced),
        cmocka_unit_test(test_views_long_chain_linear),
        cmocka_unit_test(test_views_bfloat16_nan_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
