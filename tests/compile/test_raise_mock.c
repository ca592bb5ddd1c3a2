/* test_raise_mock.c — errors found by kernels (an index out of bounds, an integer to a negative
 * power) without a GPU: a loom context on the mock driver, whose kernels compile with NVRTC and
 * launch as no-ops, and whose every module has a status word (mock_status) that the test sets
 * where a kernel would have raised. Asserts that an eval does not wait to read the word,
 * that the next wait reports the error in NumPy's words and clears the word, that every result
 * computed from the raising evals keeps reporting it (reads, device pointers, evals using one)
 * while independent arrays stay readable, and that a wait with nothing raised reports
 * nothing. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/internal.h"
#include "frontend/fe.h"
#include "runtime/driver.h"

#include "../support/mock_driver.h"

#define R 6
#define C 5

typedef struct fx {
    loom_ctx_t *ctx;
    loom_array_t *x, *j; /* R x C float32; C int64 indices */
    float out[R * C];
} fx_t;

static int setup(void **state) {
    fx_t *f = calloc(1, sizeof *f);
    if (!f || !(f->ctx = mock_ctx())) return -1;
    float x[R * C];
    int64_t j[C] = {0, 4, 2, 1, 3}, xs[2] = {R, C}, js = C;
    for (int i = 0; i < R * C; i++) x[i] = (float)i;
    f->x = loom_array_retain(loom_from_host(f->ctx, LOOM_DTYPE_F32, 2, xs, x));
    f->j = loom_array_retain(loom_from_host(f->ctx, LOOM_DTYPE_I64, 1, &js, j));
    loom_array_t *in[2] = {f->x, f->j};
    if (loom_eval(f->ctx, 2, in) != LOOM_STATUS_OK) return -1;
    memset(mock_status, 0, sizeof mock_status);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fx_t *f = *state;
    loom_array_release(f->x);
    loom_array_release(f->j);
    loom_ctx_destroy(f->ctx);
    free(f);
    return 0;
}

/* The status word of the kernel the latest eval noted (mock device memory is host memory). */
static unsigned long long *last_word(loom_ctx_t *c) {
    assert_true(c->engine->n_words > 0);
    return (unsigned long long *)(uintptr_t)c->engine->words[c->engine->n_words - 1];
}

/* What a kernel's lm_raise_index leaves in its module's word. */
static void raise_index(loom_ctx_t *c, long long v, long long n, int axis) {
    unsigned long long *w = last_word(c);
    w[0] |= 2u;
    w[1] = (unsigned long long)v;
    w[2] = (unsigned long long)n;
    w[3] = (unsigned long long)axis;
}

/* The gather in raise mode, x[:, j], evaluated (queued: nothing read back). */
static loom_array_t *queued_take(fx_t *f) {
    loom_array_t *a = loom_take(f->ctx, f->x, f->j, 1, LOOM_TAKE_RAISE);
    assert_int_equal(loom_eval(f->ctx, 1, &a), LOOM_STATUS_OK);
    return a;
}

static loom_status_t read_one(fx_t *f, loom_array_t *a) {
    return loom_read(f->ctx, a, f->out, sizeof f->out);
}

static void expect_index_error(fx_t *f, loom_status_t st) {
    assert_int_equal(st, LOOM_STATUS_INDEX_ERROR);
    assert_non_null(
        strstr(loom_ctx_message(f->ctx),
               "index 9 is out of bounds for axis 1 with size 5 (raised on the device"));
    loom_ctx_clear_error(f->ctx);
}

static void test_raise_reported_at_the_next_wait(void **state) {
    fx_t *f = *state;
    loom_ctx_t *c = f->ctx;
    loom_scope_begin(c);
    loom_array_t *bad = queued_take(f);
    loom_stats_t s;
    loom_ctx_stats(c, &s);
    assert_int_equal(s.last_eval_d2h_copies, 0); /* the eval did not read the word */
    raise_index(c, 9, C, 1);
    unsigned long long *w = last_word(c);
    loom_array_t *clean = loom_multiply(c, f->x, loom_weak_float(c, 2.0));
    assert_int_equal(loom_eval(c, 1, &clean), LOOM_STATUS_OK);
    loom_array_t *later = loom_add(c, bad, loom_weak_float(c, 1.0));
    assert_int_equal(loom_eval(c, 1, &later), LOOM_STATUS_OK);
    expect_index_error(f, loom_sync(c));
    assert_true(w[0] == 0);                         /* cleared for the next run */
    assert_int_equal(loom_sync(c), LOOM_STATUS_OK); /* reported once */
    assert_int_equal(read_one(f, clean), LOOM_STATUS_OK);
    expect_index_error(f, read_one(f, bad));
    expect_index_error(f, read_one(f, later));
    expect_index_error(f, read_one(f, loom_multiply(c, later, later))); /* an eval using one */
    assert_int_equal(loom_array_device_ptr(c, later), 0);
    expect_index_error(f, loom_ctx_status(c));
    loom_array_t *pair[2] = {clean, bad};
    float other[R * C];
    void *dsts[2] = {other, f->out};
    size_t sizes[2] = {sizeof other, sizeof f->out};
    expect_index_error(f, loom_read_many(c, 2, pair, dsts, sizes));
    /* the same kernel again, nothing raised: its results read */
    assert_int_equal(read_one(f, queued_take(f)), LOOM_STATUS_OK);
    loom_scope_end(c);
}

static void test_raise_found_by_a_read_straight_after(void **state) {
    fx_t *f = *state;
    loom_ctx_t *c = f->ctx;
    loom_scope_begin(c);
    loom_array_t *bad = queued_take(f);
    raise_index(c, 9, C, 1);
    expect_index_error(f, read_one(f, bad));
    /* a read of an array from before the raising eval fails too: the wait found the error */
    loom_array_t *d = loom_multiply(c, f->x, loom_weak_float(c, 3.0));
    assert_int_equal(loom_eval(c, 1, &d), LOOM_STATUS_OK);
    bad = queued_take(f);
    raise_index(c, 9, C, 1);
    expect_index_error(f, read_one(f, d));
    assert_int_equal(read_one(f, d), LOOM_STATUS_OK); /* which is not marked */
    loom_scope_end(c);
}

static void test_negative_power_deferred(void **state) {
    fx_t *f = *state;
    loom_ctx_t *c = f->ctx;
    loom_scope_begin(c);
    loom_array_t *p =
        loom_power(c, loom_astype(c, f->j, LOOM_DTYPE_I32), loom_astype(c, f->j, LOOM_DTYPE_I32));
    assert_int_equal(loom_eval(c, 1, &p), LOOM_STATUS_OK);
    *last_word(c) |= 1u;
    int32_t v[C];
    assert_int_equal(loom_read(c, p, v, sizeof v), LOOM_STATUS_INVALID_ARGUMENT);
    assert_non_null(strstr(loom_ctx_message(c), "negative integer powers"));
    loom_ctx_clear_error(c);
    assert_int_equal(loom_read(c, p, v, sizeof v), LOOM_STATUS_INVALID_ARGUMENT);
    loom_ctx_clear_error(c);
    loom_scope_end(c);
}

/* Two kernels raise in one window, in words of their own: the wait reports the power's error,
 * which comes first, whichever word was noted first, and clears both. */
static void test_two_words_raised(void **state) {
    fx_t *f = *state;
    loom_ctx_t *c = f->ctx;
    for (int power_first = 0; power_first < 2; power_first++) {
        loom_scope_begin(c);
        loom_array_t *j32 = loom_astype(c, f->j, LOOM_DTYPE_I32);
        loom_array_t *ev[2] = {loom_take(c, f->x, f->j, 1, LOOM_TAKE_RAISE),
                               loom_power(c, j32, loom_negative(c, j32))};
        unsigned long long *w[2];
        for (int k = 0; k < 2; k++) {
            int e = power_first ? 1 - k : k;
            assert_int_equal(loom_eval(c, 1, &ev[e]), LOOM_STATUS_OK);
            w[e] = last_word(c);
        }
        assert_true(w[0] != w[1]);
        w[1][0] |= 1u;
        w[0][0] |= 2u, w[0][1] = 9, w[0][2] = C, w[0][3] = 1;
        assert_int_equal(loom_sync(c), LOOM_STATUS_INVALID_ARGUMENT);
        assert_non_null(strstr(loom_ctx_message(c), "negative integer powers"));
        loom_ctx_clear_error(c);
        assert_true(w[0][0] == 0 && w[1][0] == 0);
        assert_int_equal(loom_read(c, ev[0], f->out, sizeof f->out), LOOM_STATUS_INVALID_ARGUMENT);
        loom_ctx_clear_error(c);
        loom_scope_end(c);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_raise_reported_at_the_next_wait),
        cmocka_unit_test(test_raise_found_by_a_read_straight_after),
        cmocka_unit_test(test_negative_power_deferred),
        cmocka_unit_test(test_two_words_raised),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
