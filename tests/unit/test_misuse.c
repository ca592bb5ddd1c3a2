/* test_misuse — what loom does when it is used wrongly or runs out of range: NULL contexts and
 * arrays, arrays of another context, short read buffers, bad shapes and dtypes, scopes and
 * refcounts, the sticky first error, nil propagation, and asking for CUDA without a GPU. Never a
 * crash: a status on the context and a message naming the values. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <malloc.h>
#include <string.h>

#include "../support/check.h"

static void test_misuse_null_ctx(void **state) {
    (void)state;
    int64_t n = 4;
    float buf[4] = {0};
    assert_true(loom_array_is_nil(loom_zeros(NULL, LOOM_DTYPE_F32, 1, &n)));
    assert_true(loom_array_is_nil(loom_from_host(NULL, LOOM_DTYPE_F32, 1, &n, buf)));
    assert_true(loom_array_is_nil(loom_add(NULL, NULL, NULL)));
    assert_true(loom_array_is_nil(loom_sqrt(NULL, NULL)));
    assert_true(loom_array_is_nil(loom_add_f(NULL, NULL, 1.0)));
    assert_true(loom_array_is_nil(loom_weak_int(NULL, 1)));
    assert_int_not_equal(loom_read(NULL, NULL, buf, sizeof buf), LOOM_STATUS_OK);
    assert_int_not_equal(loom_eval(NULL, 0, NULL), LOOM_STATUS_OK);
    loom_scope_begin(NULL);
    loom_scope_end(NULL);
    loom_ctx_destroy(NULL);
    loom_array_release(NULL);
    assert_true(loom_array_is_nil(loom_array_retain(NULL)));
    assert_true(loom_array_is_nil(NULL));
    assert_int_equal(loom_array_size(NULL), 0);
    assert_int_equal((int)loom_array_nbytes(NULL), 0);
    assert_int_equal(loom_array_dim(NULL, 0), 0);
}

static void test_misuse_null_array(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t n = 4;
    loom_array_t *a = loom_ones(ctx, LOOM_DTYPE_F32, 1, &n);
    loom_array_t *r = loom_add(ctx, a, NULL);
    assert_true(loom_array_is_nil(r));
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_INVALID_ARGUMENT);
    assert_true(strlen(loom_ctx_message(ctx)) > 0);
    loom_ctx_clear_error(ctx);
    assert_true(loom_array_is_nil(loom_negative(ctx, NULL)));
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_INVALID_ARGUMENT);
    loom_ctx_clear_error(ctx);
    assert_true(loom_array_is_nil(loom_where(ctx, NULL, a, a)));
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_INVALID_ARGUMENT);
    loom_ctx_clear_error(ctx);
    float out[4];
    assert_int_equal(loom_read(ctx, NULL, out, sizeof out), LOOM_STATUS_INVALID_ARGUMENT);
    loom_ctx_clear_error(ctx);
    /* from_host with data NULL for a non-empty array. */
    assert_true(loom_array_is_nil(loom_from_host(ctx, LOOM_DTYPE_F32, 1, &n, NULL)));
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_INVALID_ARGUMENT);
    loom_ctx_destroy(ctx);
}

static void test_misuse_wrong_ctx(void **state) {
    (void)state;
    loom_ctx_t *c1 = check_cpu_ctx(), *c2 = check_cpu_ctx();
    int64_t n = 4;
    loom_array_t *a1 = loom_ones(c1, LOOM_DTYPE_F32, 1, &n);
    loom_array_t *a2 = loom_ones(c2, LOOM_DTYPE_F32, 1, &n);
    assert_true(loom_array_is_nil(loom_add(c1, a1, a2)));
    assert_int_equal(loom_ctx_status(c1), LOOM_STATUS_WRONG_CTX);
    assert_int_equal(loom_ctx_status(c2), LOOM_STATUS_OK);
    loom_ctx_clear_error(c1);
    assert_true(loom_array_is_nil(loom_sqrt(c1, a2)));
    assert_int_equal(loom_ctx_status(c1), LOOM_STATUS_WRONG_CTX);
    loom_ctx_clear_error(c1);
    float out[4] = {9, 9, 9, 9};
    assert_int_equal(loom_read(c1, a2, out, sizeof out), LOOM_STATUS_WRONG_CTX);
    assert_true(out[0] == 9.0f);
    loom_ctx_clear_error(c1);
    assert_int_equal(loom_eval(c1, 1, &a2), LOOM_STATUS_WRONG_CTX);
    loom_ctx_clear_error(c1);
    /* Both contexts still work. */
    assert_int_equal(loom_read(c2, a2, out, sizeof out), LOOM_STATUS_OK);
    assert_true(out[3] == 1.0f);
    assert_int_equal(loom_read(c1, a1, out, sizeof out), LOOM_STATUS_OK);
    loom_ctx_destroy(c2);
    loom_ctx_destroy(c1);
}

static void test_misuse_read_buffer_too_small(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t n = 4;
    loom_array_t *a = loom_full(ctx, LOOM_DTYPE_F64, 1, &n, 2.0);
    unsigned char buf[64];
    memset(buf, 0xA5, sizeof buf);
    assert_int_equal((int)loom_array_nbytes(a), 32);
    assert_int_equal(loom_read(ctx, a, buf, 31), LOOM_STATUS_BUFFER_TOO_SMALL);
    for (size_t i = 0; i < sizeof buf; i++) assert_int_equal(buf[i], 0xA5);
    loom_ctx_clear_error(ctx);
    assert_int_equal(loom_read(ctx, a, buf, 0), LOOM_STATUS_BUFFER_TOO_SMALL);
    loom_ctx_clear_error(ctx);
    /* Exactly enough is fine, and nothing past it is written. */
    assert_int_equal(loom_read(ctx, a, buf, 32), LOOM_STATUS_OK);
    double d;
    memcpy(&d, buf + 24, 8);
    assert_true(d == 2.0);
    assert_int_equal(buf[32], 0xA5);
    loom_ctx_destroy(ctx);
}

static void test_misuse_bad_shapes(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t big[2] = {INT64_C(1) << 40, INT64_C(1) << 40};
    assert_true(loom_array_is_nil(loom_zeros(ctx, LOOM_DTYPE_F32, 2, big)));
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_OVERFLOW);
    assert_true(check_has_word(loom_ctx_message(ctx), "1099511627776"));
    loom_ctx_clear_error(ctx);
    int64_t huge[3] = {INT64_MAX, 2, 2};
    assert_true(loom_array_is_nil(loom_ones(ctx, LOOM_DTYPE_U8, 3, huge)));
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_OVERFLOW);
    loom_ctx_clear_error(ctx);
    int64_t neg[2] = {3, -1};
    assert_true(loom_array_is_nil(loom_zeros(ctx, LOOM_DTYPE_F32, 2, neg)));
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_INVALID_ARGUMENT);
    assert_true(check_has_word(loom_ctx_message(ctx), "-1") ||
                strstr(loom_ctx_message(ctx), "-1") != NULL);
    loom_ctx_clear_error(ctx);
    int64_t many[LOOM_MAX_DIMS + 1];
    for (int i = 0; i <= LOOM_MAX_DIMS; i++) many[i] = 1;
    assert_true(loom_array_is_nil(loom_zeros(ctx, LOOM_DTYPE_F32, LOOM_MAX_DIMS + 1, many)));
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_INVALID_ARGUMENT);
    loom_ctx_clear_error(ctx);
    assert_true(loom_array_is_nil(loom_zeros(ctx, LOOM_DTYPE_F32, -1, many)));
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_INVALID_ARGUMENT);
    loom_ctx_clear_error(ctx);
    /* LOOM_MAX_DIMS axes is allowed. */
    loom_array_t *m = loom_zeros(ctx, LOOM_DTYPE_F32, LOOM_MAX_DIMS, many);
    assert_false(loom_array_is_nil(m));
    assert_int_equal(loom_array_ndim(m), LOOM_MAX_DIMS);
    assert_int_equal(loom_array_dim(m, LOOM_MAX_DIMS), 0); /* bad axis */
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_OK);
    loom_ctx_destroy(ctx);
}

static void test_misuse_bad_dtype(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t n = 2;
    loom_dtype_t bad = (loom_dtype_t)99;
    assert_true(loom_array_is_nil(loom_zeros(ctx, bad, 1, &n)));
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_INVALID_ARGUMENT);
    loom_ctx_clear_error(ctx);
    assert_true(loom_array_is_nil(loom_zeros(ctx, (loom_dtype_t)-1, 1, &n)));
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_INVALID_ARGUMENT);
    loom_ctx_clear_error(ctx);
    loom_array_t *a = loom_ones(ctx, LOOM_DTYPE_I32, 1, &n);
    assert_true(loom_array_is_nil(loom_astype(ctx, a, bad)));
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_INVALID_ARGUMENT);
    loom_ctx_clear_error(ctx);
    assert_true(loom_array_is_nil(loom_arange(ctx, 0, 4, 1, bad)));
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_INVALID_ARGUMENT);
    loom_ctx_clear_error(ctx);
    assert_string_equal(loom_dtype_name(bad), "invalid");
    assert_int_equal((int)loom_dtype_size(bad), 0);
    assert_int_equal(loom_dtype_promote(bad, LOOM_DTYPE_F32), -1);
    assert_int_equal(loom_dtype_from_name(NULL), -1);
    for (int s = 0; s <= LOOM_STATUS_COUNT; s++)
        assert_non_null(loom_status_string((loom_status_t)s));
    assert_non_null(loom_status_string((loom_status_t)-5));
    loom_ctx_destroy(ctx);
}

static size_t heap_in_use(void) {
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks;
}

static void test_misuse_scopes_free_results(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t n = 256;
    size_t after_warmup = 0;
    for (int it = 0; it < 3000; it++) {
        loom_scope_begin(ctx);
        loom_array_t *a = loom_arange(ctx, 0, 256, 1, LOOM_DTYPE_F32);
        loom_array_t *b = loom_ones(ctx, LOOM_DTYPE_F32, 1, &n);
        loom_array_t *r = loom_sqrt(ctx, loom_add(ctx, loom_multiply(ctx, a, a), b));
        assert_int_equal(loom_eval(ctx, 1, &r), LOOM_STATUS_OK);
        loom_scope_end(ctx);
        if (it == 499) after_warmup = heap_in_use();
    }
    size_t end = heap_in_use();
    /* Ending each scope frees its arrays: 2500 more iterations must not grow the heap. */
    assert_true(end <= after_warmup + 64 * 1024);
    loom_ctx_destroy(ctx);
}

static void test_misuse_retained_array_survives_scope(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    loom_scope_begin(ctx);
    loom_array_t *a = loom_arange(ctx, 0, 4, 1, LOOM_DTYPE_I32);
    loom_array_t *kept = loom_array_retain(loom_multiply_i(ctx, a, 3));
    loom_scope_begin(ctx); /* nested */
    loom_array_t *inner = loom_array_retain(loom_add_i(ctx, kept, 1));
    loom_scope_end(ctx);
    loom_scope_end(ctx);
    int32_t out[4];
    assert_int_equal(loom_read(ctx, kept, out, sizeof out), LOOM_STATUS_OK);
    for (int i = 0; i < 4; i++) assert_int_equal(out[i], 3 * i);
    assert_int_equal(loom_read(ctx, inner, out, sizeof out), LOOM_STATUS_OK);
    for (int i = 0; i < 4; i++) assert_int_equal(out[i], 3 * i + 1);
    loom_array_release(inner);
    loom_array_release(kept);
    /* Retained and never released: loom_ctx_destroy frees it (ASan would see a leak). */
    loom_array_retain(loom_ones(ctx, LOOM_DTYPE_F64, 0, NULL));
    loom_ctx_destroy(ctx);
}

static void test_misuse_first_error_wins(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t s3 = 3, s5 = 5;
    loom_array_t *a = loom_ones(ctx, LOOM_DTYPE_F32, 1, &s3);
    loom_array_t *b = loom_ones(ctx, LOOM_DTYPE_F32, 1, &s5);
    assert_true(loom_array_is_nil(loom_add(ctx, a, b)));
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_SHAPE_MISMATCH);
    char first[512];
    strncpy(first, loom_ctx_message(ctx), sizeof first - 1);
    first[sizeof first - 1] = '\0';
    assert_true(strlen(first) > 0);
    /* A second, different error does not replace the first. */
    assert_true(loom_array_is_nil(loom_bitwise_and(ctx, a, a)));
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_SHAPE_MISMATCH);
    assert_string_equal(loom_ctx_message(ctx), first);
    loom_ctx_clear_error(ctx);
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_OK);
    assert_string_equal(loom_ctx_message(ctx), "");
    /* The context works again after clearing. */
    float out[3];
    assert_int_equal(loom_read(ctx, loom_add(ctx, a, a), out, sizeof out), LOOM_STATUS_OK);
    assert_true(out[2] == 2.0f);
    loom_ctx_destroy(ctx);
}

static void test_misuse_nil_propagates(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t n = 4;
    loom_array_t *a = loom_ones(ctx, LOOM_DTYPE_F32, 1, &n);
    loom_array_t *bad = loom_bitwise_or(ctx, a, a); /* no float loop: DTYPE_ERROR */
    assert_true(loom_array_is_nil(bad));
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_DTYPE_ERROR);
    loom_array_t *r =
        loom_where(ctx, loom_less(ctx, a, a), loom_exp(ctx, loom_add(ctx, loom_sqrt(ctx, bad), a)),
                   loom_astype(ctx, bad, LOOM_DTYPE_F64));
    assert_true(loom_array_is_nil(r));
    assert_true(loom_array_is_nil(loom_add_f(ctx, bad, 1.0)));
    assert_true(loom_array_is_nil(loom_clip(ctx, a, bad, a)));
    assert_int_equal(loom_array_size(r), 0);
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_DTYPE_ERROR);
    float out[4] = {5, 5, 5, 5};
    assert_int_equal(loom_read(ctx, r, out, sizeof out), LOOM_STATUS_DTYPE_ERROR);
    assert_true(out[0] == 5.0f);
    loom_array_t *both[2] = {a, r};
    assert_int_equal(loom_eval(ctx, 2, both), LOOM_STATUS_DTYPE_ERROR);
    /* Releasing a nil is harmless. */
    loom_array_release(loom_array_retain(r));
    loom_ctx_destroy(ctx);
}

static void test_misuse_cuda_without_gpu(void **state) {
    (void)state;
    loom_options_t o = {0};
    o.device = LOOM_DEVICE_CUDA;
    loom_ctx_t *ctx = (loom_ctx_t *)(uintptr_t)1;
    loom_status_t st = loom_ctx_create(&o, &ctx);
    if (st == LOOM_STATUS_OK) { /* a machine with a GPU */
        assert_non_null(ctx);
        assert_int_equal(loom_ctx_device(ctx), LOOM_DEVICE_CUDA);
        loom_ctx_destroy(ctx);
        return;
    }
    assert_null(ctx);
    assert_true(st == LOOM_STATUS_NOT_AVAILABLE || st == LOOM_STATUS_NO_DRIVER ||
                st == LOOM_STATUS_NO_DEVICE || st == LOOM_STATUS_DRIVER_TOO_OLD);
    assert_non_null(loom_last_create_message());
    assert_true(strlen(loom_last_create_message()) > 0);
    /* The CPU device still works, and AUTO falls back to it. */
    loom_ctx_t *cpu = check_cpu_ctx();
    assert_int_equal(loom_ctx_device(cpu), LOOM_DEVICE_CPU);
    assert_non_null(loom_ctx_device_name(cpu));
    loom_ctx_destroy(cpu);
    loom_ctx_t *aut = NULL;
    o.device = LOOM_DEVICE_AUTO;
    assert_int_equal(loom_ctx_create(&o, &aut), LOOM_STATUS_OK);
    assert_int_equal(loom_ctx_device(aut), LOOM_DEVICE_CPU);
    loom_ctx_destroy(aut);
}

/* An empty array evaluates at once whatever its other extents: eye(2**59, 0) has no element,
 * and its evaluation once looped over the 2**59 rows. */
static void test_misuse_empty_with_huge_extent(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t huge = INT64_C(1) << 59, shape[2] = {huge, 0};
    loom_array_t *empties[3] = {
        loom_eye(ctx, huge, 0, 0, LOOM_DTYPE_F32),
        loom_eye(ctx, 0, huge, 1, LOOM_DTYPE_I8),
        loom_add_f(ctx, loom_random_uniform(ctx, 7, LOOM_DTYPE_F32, 2, shape, 0, 1), 1.0),
    };
    char buf[8];
    for (int i = 0; i < 3; i++) {
        assert_int_equal(loom_array_size(empties[i]), 0);
        assert_int_equal(loom_read(ctx, empties[i], buf, sizeof buf), LOOM_STATUS_OK);
    }
    loom_ctx_destroy(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_misuse_null_ctx),
        cmocka_unit_test(test_misuse_null_array),
        cmocka_unit_test(test_misuse_wrong_ctx),
        cmocka_unit_test(test_misuse_read_buffer_too_small),
        cmocka_unit_test(test_misuse_bad_shapes),
        cmocka_unit_test(test_misuse_bad_dtype),
        cmocka_unit_test(test_misuse_scopes_free_results),
        cmocka_unit_test(test_misuse_retained_array_survives_scope),
        cmocka_unit_test(test_misuse_first_error_wins),
        cmocka_unit_test(test_misuse_nil_propagates),
        cmocka_unit_test(test_misuse_cuda_without_gpu),
        cmocka_unit_test(test_misuse_empty_with_huge_extent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
