/* test_transfer (gpu) — the host/device boundary on a real GPU: bit-exact round trips through
 * pinned staging (random sizes and offsets, unaligned host pointers, odd byte counts, every
 * dtype; single, packed and batched copies; 1, 2 and 4 copy threads), DMA counts of evals (three
 * small inputs in one copy, uploads kept across evals, the borrowed mark, read then reuse),
 * DLPack and loom_wrap_device without copies, a caller-supplied stream, and loom_host_alloc's
 * pinned blocks (one direct DMA each way; another ctx stages them). Exit 77 without a GPU. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/fe.h"
#include "runtime/driver.h"

static loom_ctx_t *gpu_ctx(int copy_threads) {
    loom_options_t o = {.device = LOOM_DEVICE_CUDA};
    loom_ctx_t *ctx = NULL;
    assert_int_equal(loom_ctx_create(&o, &ctx), LOOM_STATUS_OK);
    ctx->rt->stage.threads = copy_threads; /* the copier starts on first use */
    return ctx;
}

static loom_stats_t stats(loom_ctx_t *ctx) {
    loom_stats_t s;
    loom_ctx_stats(ctx, &s);
    return s;
}

static void fill(void *p, size_t n, uint32_t seed) {
    unsigned char *b = p;
    uint32_t s = seed * 2654435761u + 7;
    for (size_t i = 0; i < n; i++) b[i] = (unsigned char)((s = s * 1664525u + 1013904223u) >> 24);
}

static void test_transfer_rt_round_trips_bit_exact(void **state) {
    (void)state;
    int threads[] = {1, 2, 4};
    for (int t = 0; t < 3; t++) {
        loom_ctx_t *ctx = gpu_ctx(threads[t]);
        rt_device_t *d = ctx->rt;
        srand(11 + t);
        size_t sizes[] = {1, 3, 255, 4097, (8 << 20) - 1, 8 << 20, (8 << 20) + 1, (27 << 20) + 5};
        for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
            size_t n = sizes[k], o = (size_t)(rand() % 16);
            unsigned char *src = malloc(n + 16), *back = malloc(n + 16);
            fill(src + o, n, (uint32_t)k);
            uint64_t dev;
            assert_int_equal(rt_alloc(d, n, &dev), LOOM_STATUS_OK);
            assert_int_equal(rt_h2d(d, dev, src + o, n), LOOM_STATUS_OK);
            assert_int_equal(rt_d2h(d, back + 15 - o, dev, n), LOOM_STATUS_OK);
            assert_memory_equal(back + 15 - o, src + o, n);
            rt_free(d, dev);
            free(src);
            free(back);
        }
        /* Packed and batched: many pieces, random gaps, unaligned pointers. */
        uint32_t np = 300;
        size_t off[300], len[300], total = 0;
        const void *src[300];
        void *back[300];
        uint64_t from[300];
        unsigned char *host = malloc((size_t)64 << 20), *bh = malloc((size_t)64 << 20);
        for (uint32_t i = 0; i < np; i++) {
            len[i] = i % 50 == 7 ? (size_t)(rand() % (3 << 20)) : (size_t)(rand() % 3000);
            total += (size_t)(rand() % 5);
            off[i] = total;
            src[i] = host + off[i] + 1;
            back[i] = bh + off[i] + 3;
            total += len[i];
        }
        fill(host, total + 8, 99);
        uint64_t dev;
        assert_int_equal(rt_alloc(d, total + 8, &dev), LOOM_STATUS_OK);
        for (uint32_t i = 0; i < np; i++) from[i] = dev + off[i];
        assert_int_equal(rt_h2d_packed(d, dev, np, off, src, len), LOOM_STATUS_OK);
        assert_int_equal(rt_d2h_batch(d, np, back, from, len), LOOM_STATUS_OK);
        for (uint32_t i = 0; i < np; i++) assert_memory_equal(back[i], src[i], len[i]);
        assert_int_equal(rt_h2d_batch(d, np, from, src, len), LOOM_STATUS_OK);
        assert_int_equal(rt_d2h_batch(d, np, back, from, len), LOOM_STATUS_OK);
        for (uint32_t i = 0; i < np; i++) assert_memory_equal(back[i], src[i], len[i]);
        rt_free(d, dev);
        free(host);
        free(bh);
        assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_OK);
        loom_ctx_destroy(ctx);
    }
}

/* Replaces NaN bit patterns by zero (the other float bits must come back unchanged). */
static void no_nans(loom_dtype_t d, unsigned char *x, int64_t n) {
    uint64_t exp, man;
    switch (d) {
        case LOOM_DTYPE_F16: exp = 0x7c00, man = 0x3ff; break;
        case LOOM_DTYPE_BF16: exp = 0x7f80, man = 0x7f; break;
        case LOOM_DTYPE_F32: exp = 0x7f800000, man = 0x7fffff; break;
        case LOOM_DTYPE_F64: exp = 0x7ff0000000000000ull, man = 0xfffffffffffffull; break;
        default: return;
    }
    size_t sz = loom_dtype_size(d);
    for (int64_t i = 0; i < n; i++) {
        uint64_t b = 0;
        memcpy(&b, x + (size_t)i * sz, sz);
        if ((b & exp) == exp && (b & man)) memset(x + (size_t)i * sz, 0, sz);
    }
}

/* Every dtype through loom: host -> device -> where(true, a, a) -> host, bit for bit. */
static void test_transfer_all_dtypes_bit_exact(void **state) {
    (void)state;
    loom_ctx_t *ctx = gpu_ctx(2);
    for (int dt = 0; dt < LOOM_DTYPE_COUNT; dt++) {
        size_t sz = loom_dtype_size((loom_dtype_t)dt);
        int64_t n = 1 + rand() % 100003;
        unsigned char *raw = malloc((size_t)n * sz + 16), *back = malloc((size_t)n * sz + 16);
        unsigned char *x = raw + sz * (size_t)(rand() % 2); /* element-aligned, maybe odd */
        fill(x, (size_t)n * sz, (uint32_t)dt);
        if (dt == LOOM_DTYPE_BOOL)
            for (int64_t i = 0; i < n; i++) x[i] &= 1;
        no_nans((loom_dtype_t)dt, x, n); /* NaN payloads need not survive a float select */
        loom_scope_begin(ctx);
        loom_array_t *a = loom_from_host(ctx, (loom_dtype_t)dt, 1, &n, x);
        loom_array_t *t = loom_ones(ctx, LOOM_DTYPE_BOOL, 1, &n);
        loom_array_t *r = loom_where(ctx, t, a, a);
        assert_int_equal(loom_read(ctx, r, back + 1, (size_t)n * sz), LOOM_STATUS_OK);
        assert_memory_equal(back + 1, x, (size_t)n * sz);
        loom_scope_end(ctx);
        free(raw);
        free(back);
    }
    loom_ctx_destroy(ctx);
}

static void test_transfer_eval_copy_counts(void **state) {
    (void)state;
    loom_ctx_t *ctx = gpu_ctx(2);
    int64_t n = 1000;
    float x[3][1000], got[1000];
    for (int i = 0; i < 3; i++) fill(x[i], sizeof x[i], (uint32_t)i);
    loom_array_t *a[3];
    for (int i = 0; i < 3; i++) a[i] = loom_from_host(ctx, LOOM_DTYPE_F32, 1, &n, x[i]);
    loom_array_t *r = loom_add(ctx, loom_add(ctx, a[0], a[1]), a[2]);
    assert_int_equal(loom_eval(ctx, 1, &r), LOOM_STATUS_OK);
    assert_int_equal(stats(ctx).last_eval_h2d_copies, 1);
    assert_int_equal(stats(ctx).last_eval_h2d_bytes, 3 * sizeof x[0]);
    loom_array_t *q = loom_multiply(ctx, a[0], a[2]); /* copied inputs again: nothing moves */
    assert_int_equal(loom_eval(ctx, 1, &q), LOOM_STATUS_OK);
    assert_int_equal(stats(ctx).last_eval_h2d_copies, 0);
    /* Borrowed: once, again only after the mark. */
    loom_array_t *b = loom_borrow_host(ctx, LOOM_DTYPE_F32, 1, &n, x[1]);
    q = loom_negative(ctx, b);
    assert_int_equal(loom_eval(ctx, 1, &q), LOOM_STATUS_OK);
    assert_int_equal(stats(ctx).last_eval_h2d_copies, 1);
    q = loom_sqrt(ctx, b);
    assert_int_equal(loom_eval(ctx, 1, &q), LOOM_STATUS_OK);
    assert_int_equal(stats(ctx).last_eval_h2d_copies, 0);
    x[1][0] = 42;
    assert_int_equal(loom_array_host_changed(ctx, b), LOOM_STATUS_OK);
    q = loom_negative(ctx, b);
    assert_int_equal(loom_read(ctx, q, got, sizeof got), LOOM_STATUS_OK);
    assert_true(got[0] == -42);
    assert_int_equal(stats(ctx).last_eval_h2d_copies, 1);
    assert_int_equal(stats(ctx).last_eval_d2h_copies, 1);
    /* Read back, used again: no upload. */
    loom_array_t *z = loom_add_f(ctx, q, 1.0);
    assert_int_equal(loom_read(ctx, z, got, sizeof got), LOOM_STATUS_OK);
    assert_int_equal(stats(ctx).last_eval_h2d_copies, 0);
    assert_true(got[0] == -41);
    loom_ctx_destroy(ctx);
}

static void test_transfer_dlpack_and_wrap_without_copies(void **state) {
    (void)state;
    loom_ctx_t *ctx = gpu_ctx(2);
    int64_t n = 4096;
    loom_array_t *y = loom_random_uniform(ctx, 5, LOOM_DTYPE_F32, 1, &n, 0, 1);
    uint64_t p = loom_array_device_ptr(ctx, y);
    assert_true(p != 0);
    loom_stats_t s0 = stats(ctx);
    void *managed = NULL;
    assert_int_equal(loom_to_dlpack(ctx, y, 1, &managed), LOOM_STATUS_OK);
    loom_array_t *z = loom_from_dlpack(ctx, managed, 1); /* our own export, imported again */
    assert_false(loom_array_is_nil(z));
    assert_int_equal(loom_array_device_ptr(ctx, z), p);
    loom_array_t *w = loom_wrap_device(ctx, LOOM_DTYPE_F32, 1, &n, NULL, p, NULL, NULL);
    assert_int_equal(loom_array_device_ptr(ctx, w), p);
    loom_stats_t s1 = stats(ctx);
    assert_int_equal(s1.h2d_copies - s0.h2d_copies, 0);
    assert_int_equal(s1.d2h_copies - s0.d2h_copies, 0);
    float a[4096], b[4096];
    assert_int_equal(loom_read(ctx, y, a, sizeof a), LOOM_STATUS_OK);
    assert_int_equal(loom_read(ctx, loom_add(ctx, z, w), b, sizeof b), LOOM_STATUS_OK);
    for (int i = 0; i < 4096; i++) assert_true(b[i] == a[i] + a[i]);
    /* strided device memory read back as it is: a transposed wrap, every third of its rows
     * (strided, at an offset), the wrap's tail (contiguous, at an offset) */
    int64_t sh[2] = {64, 64}, st[2] = {1, 64}, one = 1, from = 65, step = 3, none = LOOM_NONE;
    loom_array_t *t = loom_wrap_device(ctx, LOOM_DTYPE_F32, 2, sh, st, p, NULL, NULL);
    loom_array_t *rows = loom_slice(ctx, t, 1, &one, &none, &step);
    loom_array_t *flat = loom_slice(ctx, w, 1, &from, &none, NULL);
    static float tr[4096], rs[21 * 64], fl[4096 - 65];
    loom_array_t *views[3] = {t, rows, flat};
    void *dst[3] = {tr, rs, fl};
    size_t cap[3] = {sizeof tr, sizeof rs, sizeof fl};
    assert_int_equal(loom_read_many(ctx, 3, views, dst, cap), LOOM_STATUS_OK);
    for (int i = 0; i < 64; i++)
        for (int j = 0; j < 64; j++) assert_true(tr[i * 64 + j] == a[j * 64 + i]);
    memset(rs, 0, sizeof rs);
    assert_int_equal(loom_read(ctx, rows, rs, sizeof rs), LOOM_STATUS_OK);
    for (int k = 0; k < 21; k++)
        for (int j = 0; j < 64; j++) assert_true(rs[k * 64 + j] == a[j * 64 + 1 + 3 * k]);
    for (int i = 0; i < 4096 - 65; i++) assert_true(fl[i] == a[65 + i]);
    loom_ctx_destroy(ctx);
}

static void test_transfer_caller_stream(void **state) {
    (void)state;
    loom_ctx_t *probe = gpu_ctx(1); /* makes the primary context current */
    void *cu = dlopen("libcuda.so.1", RTLD_NOW), *stream = NULL;
    int (*create)(void **, unsigned), (*destroy)(void *);
    *(void **)&create = dlsym(cu, "cuStreamCreate");
    *(void **)&destroy = dlsym(cu, "cuStreamDestroy_v2");
    assert_int_equal(create(&stream, 1), 0);
    loom_options_t o = {.device = LOOM_DEVICE_CUDA, .cuda_stream = stream};
    loom_ctx_t *ctx = NULL;
    assert_int_equal(loom_ctx_create(&o, &ctx), LOOM_STATUS_OK);
    assert_ptr_equal(rt_device_stream(ctx->rt), stream);
    int64_t n = 1 << 20;
    float *x = malloc((size_t)n * 4), *got = malloc((size_t)n * 4);
    for (int64_t i = 0; i < n; i++) x[i] = (float)i;
    loom_array_t *r = loom_add_f(ctx, loom_from_host(ctx, LOOM_DTYPE_F32, 1, &n, x), 1.0);
    assert_int_equal(loom_read(ctx, r, got, (size_t)n * 4), LOOM_STATUS_OK);
    for (int64_t i = 0; i < n; i++) assert_true(got[i] == (float)i + 1);
    loom_ctx_destroy(ctx);
    assert_int_equal(destroy(stream), 0); /* loom did not destroy the caller's stream */
    loom_ctx_destroy(probe);
    free(x);
    free(got);
}

static void test_transfer_host_alloc_pinned(void **state) {
    (void)state;
    loom_ctx_t *ctx = gpu_ctx(2), *other = gpu_ctx(2);
    int64_t n = 4 << 20; /* 16 MiB: two 8 MiB staging fills when pageable */
    size_t bytes = (size_t)n * sizeof(float);
    float *x = loom_host_alloc(ctx, bytes), *y = loom_host_alloc(ctx, bytes);
    assert_non_null(x);
    assert_non_null(y);
    assert_int_equal(ctx->n_host_blocks, 2);
    assert_true(ctx->host_blocks[0].pinned && ctx->host_blocks[1].pinned);
    assert_int_equal(ctx->rt->stage.n_pinned, 2);
    for (int64_t i = 0; i < n; i++) x[i] = (float)(i % 1000);
    loom_array_t *a = loom_borrow_host(ctx, LOOM_DTYPE_F32, 1, &n, x);
    assert_int_equal(loom_read(ctx, loom_add_f(ctx, a, 1.0), y, bytes), LOOM_STATUS_OK);
    assert_int_equal(stats(ctx).last_eval_h2d_copies, 1); /* direct DMA, no staging */
    assert_int_equal(stats(ctx).last_eval_d2h_copies, 1);
    for (int64_t i = 0; i < n; i++) assert_true(y[i] == (float)(i % 1000) + 1);
    /* Synchronised by the read: the caller may write it now, then marks the change. */
    x[7] = -5;
    assert_int_equal(loom_array_host_changed(ctx, a), LOOM_STATUS_OK);
    loom_array_t *r = loom_negative(ctx, a);
    assert_int_equal(loom_eval(ctx, 1, &r), LOOM_STATUS_OK);
    assert_int_equal(loom_sync(ctx), LOOM_STATUS_OK);
    assert_int_equal(loom_read(ctx, r, y, bytes), LOOM_STATUS_OK);
    assert_true(y[7] == 5 && y[8] == -8);
    /* Another ctx does not know the block: it stages it (two fills), with the same values. */
    loom_array_t *b = loom_borrow_host(other, LOOM_DTYPE_F32, 1, &n, x);
    assert_int_equal(loom_read(other, loom_add_f(other, b, 1.0), y, bytes), LOOM_STATUS_OK);
    assert_int_equal(stats(other).last_eval_h2d_copies, 2);
    assert_true(y[7] == -4 && y[8] == 9);
    loom_host_free(other, x); /* not its block: refused, nothing freed */
    assert_int_equal(loom_ctx_status(other), LOOM_STATUS_INVALID_ARGUMENT);
    loom_ctx_destroy(other);
    loom_host_free(ctx, y);
    assert_int_equal(ctx->rt->stage.n_pinned, 1);
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_OK);
    loom_ctx_destroy(ctx); /* frees x, still borrowed by a (released first) */
}

int main(void) {
    loom_options_t o = {.device = LOOM_DEVICE_CUDA};
    loom_ctx_t *probe;
    if (loom_ctx_create(&o, &probe) != LOOM_STATUS_OK) return 77;
    loom_ctx_destroy(probe);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_transfer_rt_round_trips_bit_exact),
        cmocka_unit_test(test_transfer_all_dtypes_bit_exact),
        cmocka_unit_test(test_transfer_eval_copy_counts),
        cmocka_unit_test(test_transfer_dlpack_and_wrap_without_copies),
        cmocka_unit_test(test_transfer_caller_stream),
        cmocka_unit_test(test_transfer_host_alloc_pinned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
