/* test_ir — the flat IR through the public API and its internals: CSE on emit, constant
 * folding, the deterministic text dump, the verifier catching a broken graph, and every
 * allocation failing in turn during build + eval (a status, never a crash or a leak). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "frontend/fe.h"

static loom_ctx_t *cpu_ctx(void) {
    loom_options_t o = {0};
    o.device = LOOM_DEVICE_CPU;
    loom_ctx_t *ctx = NULL;
    assert_int_equal(loom_ctx_create(&o, &ctx), LOOM_STATUS_OK);
    return ctx;
}

static int count(const char *text, const char *word) {
    int n = 0;
    for (const char *p = text; (p = strstr(p, word)); p++) n++;
    return n;
}

static void test_ir_cse_fold_and_dump(void **state) {
    (void)state;
    loom_ctx_t *ctx = cpu_ctx();
    int64_t n = 3;
    float x[3] = {1, 2, 3};
    loom_array_t *a = loom_from_host(ctx, LOOM_DTYPE_F32, 1, &n, x);
    /* (a*2 + 1) built twice: CSE leaves one multiply and one add */
    loom_array_t *u = loom_add_f(ctx, loom_multiply_f(ctx, a, 2), 1);
    loom_array_t *v = loom_add_f(ctx, loom_multiply_f(ctx, a, 2), 1);
    /* full(2) * full(3) folds to one constant 6 */
    loom_array_t *c = loom_multiply(ctx, loom_full(ctx, LOOM_DTYPE_F32, 1, &n, 2),
                                    loom_full(ctx, LOOM_DTYPE_F32, 1, &n, 3));
    loom_array_t *r = loom_add(ctx, loom_subtract(ctx, u, v), c);
    char text[2048];
    int64_t len = loom_dump_ir(ctx, 1, &r, text, sizeof text);
    assert_true(len > 0 && len < (int64_t)sizeof text);
    assert_int_equal(count(text, "= multiply"), 1);
    assert_int_equal(count(text, "= add"), 2); /* a*2+1 once, then (u-v)+c */
    assert_non_null(strstr(text, "const float32(3,) 6\n"));
    /* deterministic: the same graph prints the same text */
    char again[2048];
    assert_int_equal(loom_dump_ir(ctx, 1, &r, again, sizeof again), len);
    assert_string_equal(text, again);
    /* and the values: (u - v) + 6 = 6 */
    float out[3];
    assert_int_equal(loom_read(ctx, r, out, sizeof out), LOOM_STATUS_OK);
    for (int i = 0; i < 3; i++) assert_true(out[i] == 6.0f);
    loom_ctx_destroy(ctx);
}

static void test_ir_dump_exact_text(void **state) {
    (void)state;
    loom_ctx_t *ctx = cpu_ctx();
    int64_t n = 4;
    loom_array_t *a = loom_arange(ctx, 0, 4, 1, LOOM_DTYPE_I32);
    loom_array_t *r =
        loom_less(ctx, loom_astype(ctx, a, LOOM_DTYPE_F64), loom_weak_float(ctx, 1.5));
    (void)n;
    char text[1024];
    assert_true(loom_dump_ir(ctx, 1, &r, text, sizeof text) > 0);
    assert_string_equal(text, "%0 = arange int32(4,) start=0 step=1\n"
                              "%1 = astype float64(4,) %0\n"
                              "%2 = const float64() 1.5\n"
                              "%3 = less bool(4,) %1 %2\n"
                              "out %3\n");
    loom_ctx_destroy(ctx);
}

static void test_ir_verifier_catches_broken_graph(void **state) {
    (void)state;
    base_alloc_t al = {.fail_after = -1};
    base_error_t err = {0};
    base_arena_t ar;
    base_arena_init(&ar, &al);
    ir_graph_t g;
    ir_graph_init(&g, &ar, &err);
    ir_node_t c = {.op = IR_OP_CONST, .dtype = LOOM_DTYPE_F32, .ndim = 1, .shape = {4}};
    uint32_t i0 = ir_emit(&g, &c);
    ir_node_t add = {
        .op = IR_OP_ADD, .dtype = LOOM_DTYPE_F32, .ndim = 1, .shape = {4}, .src = {i0, i0}};
    uint32_t i1 = ir_emit(&g, &add);
    assert_true(ir_add_output(&g, i1));
    assert_true(ir_verify(&g));
    g.nodes[i1].dtype = LOOM_DTYPE_F64; /* result no longer follows the loop */
    assert_false(ir_verify(&g));
    assert_int_equal(err.status, LOOM_STATUS_INTERNAL);
    assert_non_null(strstr(err.message, "add"));
    base_error_clear(&err);
    g.nodes[i1].dtype = LOOM_DTYPE_F32;
    g.nodes[i1].src[0] = i1; /* an operand after its user */
    assert_false(ir_verify(&g));
    assert_non_null(strstr(err.message, "before its user"));
    base_arena_fini(&ar);
    assert_int_equal(al.n_live, 0);
}

/* Each allocation of a whole build + eval fails in turn: a status, no crash, and (under the
 * sanitizer build) no leak. */
static void test_ir_every_allocation_may_fail(void **state) {
    (void)state;
    int saw_oom = 0, saw_ok = 0;
    for (int64_t fail = 0; fail < 400 && !saw_ok; fail++) {
        loom_ctx_t *ctx = cpu_ctx();
        ctx->al.fail_after = fail;
        int64_t shape[2] = {5, 7};
        float x[35];
        for (int i = 0; i < 35; i++) x[i] = (float)i;
        loom_scope_begin(ctx);
        loom_array_t *a = loom_from_host(ctx, LOOM_DTYPE_F32, 2, shape, x);
        loom_array_t *r =
            loom_sqrt(ctx, loom_add(ctx, loom_multiply(ctx, a, a), loom_weak_float(ctx, 1)));
        float out[35];
        loom_status_t st = loom_read(ctx, r, out, sizeof out);
        loom_scope_end(ctx);
        if (st == LOOM_STATUS_OK) {
            saw_ok = 1;
            for (int i = 0; i < 35; i++) assert_true(out[i] == sqrtf((float)(i * i) + 1));
        } else {
            assert_int_equal(st, LOOM_STATUS_OUT_OF_MEMORY);
            saw_oom = 1;
        }
        loom_ctx_destroy(ctx);
    }
    assert_true(saw_oom && saw_ok);
}

/* Releasing a very deep graph must not recurse (found by review: 200k nodes overflowed the
 * C stack in loom_array_release). */
static void test_ir_deep_graph_release(void **state) {
    (void)state;
    loom_ctx_t *ctx = cpu_ctx();
    int64_t n = 2;
    loom_scope_begin(ctx);
    loom_array_t *a = loom_zeros(ctx, LOOM_DTYPE_F32, 1, &n);
    for (int i = 0; i < 300000; i++) a = loom_add_f(ctx, a, 1.0);
    loom_array_retain(a);
    loom_scope_end(ctx);   /* the chain now hangs from a alone */
    loom_array_release(a); /* frees 600k nodes without recursion */
    assert_int_equal(ctx->n_live_nodes, 0);
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_OK);
    loom_ctx_destroy(ctx);
}

/* A zero extent must not let the others grow without bound (found by review: (0, 2^62, 4)
 * overflowed the stride arithmetic). */
static void test_ir_zero_extent_shape_bound(void **state) {
    (void)state;
    loom_ctx_t *ctx = cpu_ctx();
    int64_t shape[3] = {0, INT64_C(1) << 62, 4};
    loom_array_t *z = loom_zeros(ctx, LOOM_DTYPE_F32, 3, shape);
    assert_true(loom_array_is_nil(z));
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_OVERFLOW);
    loom_ctx_destroy(ctx);
}

/* Views and joins keep extents bounded too (found by review: concatenate's extent and a
 * size-0 reshape overflowed; a huge slice step overflowed the stride product). */
static void test_ir_view_extent_bounds(void **state) {
    (void)state;
    loom_ctx_t *ctx = cpu_ctx();
    int64_t big = INT64_C(1) << 59;
    loom_array_t *x = loom_broadcast_to(ctx, loom_weak_float(ctx, 1.0), 1, &big);
    loom_array_t *parts[8] = {x, x, x, x, x, x, x, x};
    assert_true(loom_array_is_nil(loom_concatenate(ctx, 8, parts, 0)));
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_OVERFLOW);
    loom_ctx_clear_error(ctx);
    int64_t zero = 0, huge[3] = {0, INT64_C(1) << 62, INT64_C(1) << 62};
    assert_true(
        loom_array_is_nil(loom_reshape(ctx, loom_zeros(ctx, LOOM_DTYPE_F32, 1, &zero), 3, huge)));
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_OVERFLOW);
    loom_ctx_clear_error(ctx);
    int64_t shape[2] = {2, 12}, start[2] = {LOOM_NONE, LOOM_NONE}, stop[2] = {LOOM_NONE, LOOM_NONE};
    int64_t step[2] = {INT64_MAX, 1}; /* a[::2**63-1, :] of a (2, 12) array: stride 12 */
    loom_array_t *a = loom_reshape(ctx, loom_arange(ctx, 5, 29, 1, LOOM_DTYPE_I32), 2, shape);
    loom_array_t *s = loom_slice(ctx, a, 2, start, stop, step);
    int32_t v[12] = {0};
    assert_int_equal(loom_array_size(s), 12);
    assert_int_equal(loom_read(ctx, s, v, sizeof v), LOOM_STATUS_OK);
    for (int i = 0; i < 12; i++) assert_int_equal(v[i], 5 + i);
    loom_ctx_destroy(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ir_cse_fold_and_dump),
        cmocka_unit_test(test_ir_dump_exact_text),
        cmocka_unit_test(test_ir_verifier_catches_broken_graph),
        cmocka_unit_test(test_ir_every_allocation_may_fail),
        cmocka_unit_test(test_ir_deep_graph_release),
        cmocka_unit_test(test_ir_zero_extent_shape_bound),
        cmocka_unit_test(test_ir_view_extent_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
