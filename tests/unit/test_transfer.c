/* test_transfer — the host/device boundary's API on the CPU reference device: transfer
 * statistics stay zero (nothing crosses), loom_read_many reads every array (values, sizes,
 * misuse), loom_array_host_changed accepts borrowed host memory and refuses everything else,
 * and loom_host_alloc / loom_host_free (plain aligned memory here; pinned on the GPU suite).
 * The schedule itself (DMA counts) is tested on a mock driver in tests/compile. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "../support/check.h"

static void test_transfer_cpu_stats_zero(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t n = 4;
    float x[4] = {1, 2, 3, 4}, got[4];
    loom_array_t *a = loom_from_host(ctx, LOOM_DTYPE_F32, 1, &n, x);
    assert_int_equal(loom_read(ctx, loom_add(ctx, a, a), got, sizeof got), LOOM_STATUS_OK);
    assert_true(got[3] == 8);
    loom_stats_t s;
    loom_ctx_stats(ctx, &s);
    assert_int_equal(s.evals, 1);
    assert_int_equal(s.h2d_copies + s.h2d_bytes + s.d2h_copies + s.d2h_bytes, 0);
    assert_int_equal(s.last_eval_h2d_copies + s.last_eval_h2d_bytes, 0);
    assert_int_equal(s.last_eval_d2h_copies + s.last_eval_d2h_bytes, 0);
    loom_ctx_destroy(ctx);
}

static void test_transfer_read_many_values(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t shape[2] = {2, 3};
    int32_t x[6] = {1, 2, 3, 4, 5, 6}, t[6] = {0}, y[5];
    double z[1];
    loom_array_t *m = loom_from_host(ctx, LOOM_DTYPE_I32, 2, shape, x);
    loom_array_t *arrays[3] = {loom_transpose(ctx, m, 2, NULL),
                               loom_arange(ctx, 0, 5, 1, LOOM_DTYPE_I32),
                               loom_weak_float(ctx, 2.5)};
    void *dsts[3] = {t, y, z};
    size_t bytes[3] = {sizeof t, sizeof y, sizeof z};
    assert_int_equal(loom_read_many(ctx, 3, arrays, dsts, bytes), LOOM_STATUS_OK);
    int32_t want_t[6] = {1, 4, 2, 5, 3, 6};
    assert_memory_equal(t, want_t, sizeof t);
    for (int i = 0; i < 5; i++) assert_int_equal(y[i], i);
    assert_true(z[0] == 2.5);
    /* Again, realised now: no eval, the same values. */
    assert_int_equal(loom_read_many(ctx, 3, arrays, dsts, bytes), LOOM_STATUS_OK);
    assert_int_equal(loom_read_many(ctx, 0, NULL, NULL, NULL), LOOM_STATUS_OK);
    loom_ctx_destroy(ctx);
}

static void test_transfer_read_many_misuse(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t n = 4;
    float a_out[4] = {-1, -1, -1, -1}, b_out[3];
    loom_array_t *arrays[2] = {loom_ones(ctx, LOOM_DTYPE_F32, 1, &n),
                               loom_ones(ctx, LOOM_DTYPE_F32, 1, &n)};
    void *dsts[2] = {a_out, b_out};
    size_t bytes[2] = {sizeof a_out, sizeof b_out};
    assert_int_equal(loom_read_many(ctx, 2, arrays, dsts, bytes), LOOM_STATUS_BUFFER_TOO_SMALL);
    assert_true(check_has_nospace(loom_ctx_message(ctx), "array1:16bytesneeded"));
    assert_true(a_out[0] == -1); /* nothing written before every size is checked */
    loom_ctx_clear_error(ctx);
    assert_int_equal(loom_read_many(ctx, 2, NULL, dsts, bytes), LOOM_STATUS_INVALID_ARGUMENT);
    loom_ctx_clear_error(ctx);
    assert_int_equal(loom_read_many(ctx, -1, arrays, dsts, bytes), LOOM_STATUS_INVALID_ARGUMENT);
    loom_ctx_clear_error(ctx);
    loom_array_t *with_nil[2] = {arrays[0], NULL};
    assert_int_equal(loom_read_many(ctx, 2, with_nil, dsts, bytes), LOOM_STATUS_INVALID_ARGUMENT);
    loom_ctx_clear_error(ctx);
    void *null_dst[2] = {a_out, NULL};
    size_t ok_bytes[2] = {16, 16};
    assert_int_equal(loom_read_many(ctx, 2, arrays, null_dst, ok_bytes),
                     LOOM_STATUS_INVALID_ARGUMENT);
    assert_non_null(strstr(loom_ctx_message(ctx), "dst is NULL"));
    loom_ctx_destroy(ctx);
    assert_int_equal(loom_read_many(NULL, 0, NULL, NULL, NULL), LOOM_STATUS_INVALID_ARGUMENT);
}

static void test_transfer_host_changed_contract(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t n = 3;
    float x[3] = {1, 2, 3}, got[3];
    loom_array_t *b = loom_borrow_host(ctx, LOOM_DTYPE_F32, 1, &n, x);
    assert_int_equal(loom_read(ctx, loom_negative(ctx, b), got, sizeof got), LOOM_STATUS_OK);
    x[1] = 20;
    assert_int_equal(loom_array_host_changed(ctx, b), LOOM_STATUS_OK);
    assert_int_equal(loom_read(ctx, loom_negative(ctx, b), got, sizeof got), LOOM_STATUS_OK);
    assert_true(got[1] == -20);
    loom_array_t *w = loom_wrap_host(ctx, LOOM_DTYPE_F32, 1, &n, NULL, x, NULL, NULL);
    assert_int_equal(loom_array_host_changed(ctx, w), LOOM_STATUS_OK);
    /* Not borrowed host memory: a copy, a lazy array, a computed result, nil, NULL. */
    loom_array_t *c = loom_from_host(ctx, LOOM_DTYPE_F32, 1, &n, x);
    assert_int_equal(loom_array_host_changed(ctx, c), LOOM_STATUS_INVALID_ARGUMENT);
    assert_non_null(strstr(loom_ctx_message(ctx), "immutable"));
    loom_ctx_clear_error(ctx);
    loom_array_t *lazy = loom_negative(ctx, b);
    assert_int_equal(loom_array_host_changed(ctx, lazy), LOOM_STATUS_INVALID_ARGUMENT);
    loom_ctx_clear_error(ctx);
    assert_int_equal(loom_eval(ctx, 1, &lazy), LOOM_STATUS_OK);
    assert_int_equal(loom_array_host_changed(ctx, lazy), LOOM_STATUS_INVALID_ARGUMENT);
    loom_ctx_clear_error(ctx);
    assert_int_equal(loom_array_host_changed(ctx, NULL), LOOM_STATUS_INVALID_ARGUMENT);
    loom_ctx_clear_error(ctx);
    assert_int_equal(loom_array_host_changed(NULL, b), LOOM_STATUS_INVALID_ARGUMENT);
    loom_ctx_destroy(ctx);
}

static void test_transfer_stream_option_on_cpu(void **state) {
    (void)state;
    /* A stream means nothing to the CPU device; it is accepted and unused. */
    loom_options_t o = {.device = LOOM_DEVICE_CPU, .cuda_stream = (void *)(uintptr_t)0x1234};
    loom_ctx_t *ctx = NULL;
    assert_int_equal(loom_ctx_create(&o, &ctx), LOOM_STATUS_OK);
    assert_int_equal(loom_sync(ctx), LOOM_STATUS_OK);
    loom_ctx_destroy(ctx);
}

static void test_transfer_host_alloc_round_trip(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t n = 1000;
    float *x = loom_host_alloc(ctx, (size_t)n * sizeof *x);
    float *y = loom_host_alloc(ctx, (size_t)n * sizeof *y);
    assert_non_null(x);
    assert_non_null(y);
    assert_true((uintptr_t)x % 4096 == 0 && (uintptr_t)y % 4096 == 0);
    for (int64_t i = 0; i < n; i++) x[i] = (float)i;
    loom_scope_begin(ctx);
    loom_array_t *a = loom_borrow_host(ctx, LOOM_DTYPE_F32, 1, &n, x);
    assert_int_equal(loom_read(ctx, loom_add_f(ctx, a, 1.0), y, (size_t)n * sizeof *y),
                     LOOM_STATUS_OK);
    loom_scope_end(ctx);
    for (int64_t i = 0; i < n; i++) assert_true(y[i] == (float)i + 1);
    loom_host_free(ctx, x);
    loom_host_free(ctx, y);
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_OK);
    /* Blocks still held at destroy are freed with the context (ASan's leak check sees it). */
    assert_non_null(loom_host_alloc(ctx, 100));
    assert_non_null(loom_host_alloc(ctx, 1 << 20));
    loom_ctx_destroy(ctx);
}

static void test_transfer_host_alloc_null_and_zero(void **state) {
    (void)state;
    assert_null(loom_host_alloc(NULL, 16));
    loom_ctx_t *ctx = check_cpu_ctx();
    int dummy;
    loom_host_free(NULL, &dummy); /* no ctx: nothing to check against, nothing done */
    loom_host_free(ctx, NULL);
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_OK);
    void *p = loom_host_alloc(ctx, 0), *q = loom_host_alloc(ctx, 0);
    assert_non_null(p);
    assert_non_null(q);
    assert_ptr_not_equal(p, q);
    loom_host_free(ctx, p);
    loom_host_free(ctx, q);
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_OK);
    /* Works on a ctx that already holds an error, which it leaves as it is. */
    loom_from_host(ctx, LOOM_DTYPE_F32, 1, (int64_t[]){-1}, &dummy);
    assert_int_not_equal(loom_ctx_status(ctx), LOOM_STATUS_OK);
    p = loom_host_alloc(ctx, 64);
    assert_non_null(p);
    loom_host_free(ctx, p);
    loom_ctx_destroy(ctx);
}

static void test_transfer_host_alloc_misuse(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx(), *other = check_cpu_ctx();
    char msg[64];
#ifndef __SANITIZE_ADDRESS__ /* ASan aborts on an impossible size instead of returning NULL */
    /* Out of memory: NULL, and the message names the bytes. */
    assert_null(loom_host_alloc(ctx, SIZE_MAX / 2));
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_OUT_OF_MEMORY);
    snprintf(msg, sizeof msg, "%zu", SIZE_MAX / 2);
    assert_non_null(strstr(loom_ctx_message(ctx), msg));
    loom_ctx_clear_error(ctx);
#else
    (void)msg;
#endif
    /* A pointer loom did not hand out, a double free, another context's block. */
    float stack[4];
    loom_host_free(ctx, stack);
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_INVALID_ARGUMENT);
    assert_non_null(strstr(loom_ctx_message(ctx), "loom_host_free"));
    loom_ctx_clear_error(ctx);
    void *p = loom_host_alloc(ctx, 256);
    loom_host_free(ctx, p);
    loom_host_free(ctx, p);
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_INVALID_ARGUMENT);
    assert_non_null(strstr(loom_ctx_message(ctx), "freed already"));
    loom_ctx_clear_error(ctx);
    void *o = loom_host_alloc(other, 256);
    loom_host_free(ctx, o); /* refused, and not freed: its owner still can */
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_INVALID_ARGUMENT);
    loom_host_free(other, o);
    assert_int_equal(loom_ctx_status(other), LOOM_STATUS_OK);
    /* An interior pointer is not a block. */
    char *b = loom_host_alloc(other, 256);
    loom_host_free(other, b + 16);
    assert_int_equal(loom_ctx_status(other), LOOM_STATUS_INVALID_ARGUMENT);
    loom_ctx_destroy(ctx);
    loom_ctx_destroy(other); /* frees b */
}

/* Empty host arrays may borrow or wrap NULL, and evaluate like any other empty array (the
 * reference device once offset the NULL pointer, undefined behaviour UBSan reports). */
static void test_transfer_empty_borrow_of_null(void **state) {
    (void)state;
    loom_ctx_t *ctx = check_cpu_ctx();
    int64_t shape[2] = {3, 0};
    loom_array_t *b = loom_borrow_host(ctx, LOOM_DTYPE_F32, 2, shape, NULL);
    loom_array_t *w = loom_wrap_host(ctx, LOOM_DTYPE_I16, 2, shape, NULL, NULL, NULL, NULL);
    assert_false(loom_array_is_nil(b));
    assert_false(loom_array_is_nil(w));
    int64_t start = 1;
    loom_array_t *r[2] = {loom_sqrt(ctx, loom_slice(ctx, b, 1, &start, NULL, NULL)),
                          loom_sum(ctx, loom_transpose(ctx, w, 2, NULL), -1, NULL, 0)};
    float f;
    int64_t s = -1;
    void *dsts[2] = {&f, &s};
    size_t caps[2] = {sizeof f, sizeof s};
    assert_int_equal(loom_read_many(ctx, 2, r, dsts, caps), LOOM_STATUS_OK);
    assert_int_equal(s, 0);
    loom_ctx_destroy(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_transfer_cpu_stats_zero),
        cmocka_unit_test(test_transfer_read_many_values),
        cmocka_unit_test(test_transfer_read_many_misuse),
        cmocka_unit_test(test_transfer_host_changed_contract),
        cmocka_unit_test(test_transfer_stream_option_on_cpu),
        cmocka_unit_test(test_transfer_host_alloc_round_trip),
        cmocka_unit_test(test_transfer_host_alloc_null_and_zero),
        cmocka_unit_test(test_transfer_host_alloc_misuse),
        cmocka_unit_test(test_transfer_empty_borrow_of_null),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
