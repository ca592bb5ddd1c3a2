/* test_transfer_mock.c — the transfer schedule without a GPU: a loom context whose runtime runs
 * on a mock driver (device memory is host memory; copies are queued and run when an event or the
 * stream is synchronised, so early reuse of a staging buffer shows up as wrong bytes; kernels
 * compile with NVRTC and launch as no-ops). Asserts how many DMAs and bytes each eval moves, and
 * that the bytes arrive intact: packed small inputs, chunked large ones, uploads kept across
 * evals, the borrowed-memory mark, reads that do not re-upload, batched reads, and no DMA
 * spanning two allocations that lie side by side (the driver refuses one). */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/fe.h"
#include "runtime/driver.h"

#include "../support/mock_driver.h"

static loom_ctx_t *checked_mock_ctx(void) {
    loom_ctx_t *ctx = mock_ctx();
    assert_non_null(ctx);
    return ctx;
}

static loom_stats_t stats(loom_ctx_t *ctx) {
    loom_stats_t s;
    loom_ctx_stats(ctx, &s);
    return s;
}

static void fill(void *p, size_t n, unsigned seed) {
    unsigned char *b = p;
    for (size_t i = 0; i < n; i++) b[i] = (unsigned char)((i * 2654435761u >> 13) + seed * 77);
}

/* The device bytes of a realised host array's upload (device memory is host memory here). */
static const void *dev_bytes(loom_array_t *a) {
    assert_non_null(a->buf);
    assert_true(a->buf->m.dev != 0);
    return (const void *)(uintptr_t)a->buf->m.dev;
}

/* ---- evals ---- */

static void test_transfer_small_inputs_one_copy(void **state) {
    (void)state;
    loom_ctx_t *ctx = checked_mock_ctx();
    int64_t n[3] = {5, 1000, 33};
    float *x[3];
    loom_array_t *a[3];
    size_t bytes = 0;
    for (int i = 0; i < 3; i++) {
        x[i] = malloc((size_t)n[i] * 4 + 1);
        fill(x[i], (size_t)n[i] * 4, (unsigned)i);
        a[i] = loom_from_host(ctx, LOOM_DTYPE_F32, 1, &n[i], x[i]);
        bytes += (size_t)n[i] * 4;
    }
    loom_array_t *r[3] = {loom_add(ctx, a[0], a[0]), loom_multiply(ctx, a[1], a[1]),
                          loom_negative(ctx, a[2])};
    assert_int_equal(loom_eval(ctx, 3, r), LOOM_STATUS_OK);
    loom_stats_t s = stats(ctx);
    assert_int_equal(s.last_eval_h2d_copies, 1); /* three inputs, one block, one DMA */
    assert_int_equal(s.last_eval_h2d_bytes, bytes);
    assert_int_equal(s.h2d_copies, 1);
    assert_int_equal(s.last_eval_d2h_copies, 0);
    loom_sync(ctx);
    for (int i = 0; i < 3; i++) {
        assert_memory_equal(dev_bytes(a[i]), x[i], (size_t)n[i] * 4);
        assert_int_equal(a[i]->buf->m.dev % 256, 0);
    }
    /* The same copied inputs again: nothing moves. */
    loom_array_t *q = loom_add(ctx, loom_add(ctx, a[0], a[0]), loom_negative(ctx, a[0]));
    assert_int_equal(loom_eval(ctx, 1, &q), LOOM_STATUS_OK);
    s = stats(ctx);
    assert_int_equal(s.last_eval_h2d_copies, 0);
    assert_int_equal(s.h2d_copies, 1);
    loom_ctx_destroy(ctx);
    for (int i = 0; i < 3; i++) free(x[i]);
}

static void test_transfer_large_input_chunked(void **state) {
    (void)state;
    loom_ctx_t *ctx = checked_mock_ctx();
    int64_t n = (int64_t)(20 << 20) / 4 + 3; /* 20 MiB + 12 bytes: three 8 MiB fills */
    float *x = malloc((size_t)n * 4);
    fill(x, (size_t)n * 4, 9);
    int64_t k = 7;
    float y[7] = {1, 2, 3, 4, 5, 6, 7};
    loom_array_t *a = loom_borrow_host(ctx, LOOM_DTYPE_F32, 1, &n, x);
    loom_array_t *b = loom_from_host(ctx, LOOM_DTYPE_F32, 1, &k, y);
    loom_array_t *r[2] = {loom_sqrt(ctx, a), loom_sqrt(ctx, b)};
    assert_int_equal(loom_eval(ctx, 2, r), LOOM_STATUS_OK);
    loom_stats_t s = stats(ctx);
    assert_int_equal(s.last_eval_h2d_copies, 1 + 3);
    assert_int_equal(s.last_eval_h2d_bytes, (uint64_t)n * 4 + sizeof y);
    loom_sync(ctx);
    assert_memory_equal(dev_bytes(a), x, (size_t)n * 4);
    assert_memory_equal(dev_bytes(b), y, sizeof y);
    loom_ctx_destroy(ctx);
    free(x);
}

/* Separate small solves built in a loop run as one factorisation step: 16 systems uploaded as
 * separate host arrays (one packed DMA: each matrix and right-hand side on its own 256 bytes,
 * so each operand's members lie 512 bytes apart) launch 4 kernels (a gather of each operand,
 * the solver, the info check), not 16 x 2. Rows of one device array stack in place.
 * Inputs that do not lie at one stride get one step each. Values: tests/gpu/test_batch.c. */
#define SOLVES 16
static loom_array_t *row(loom_ctx_t *ctx, loom_array_t *a, int i) {
    char e[16];
    const char *name = "a";
    snprintf(e, sizeof e, "a[%d]", i);
    loom_array_t *r = loom_expr(ctx, e, 1, &name, &a);
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_OK);
    return r;
}

static uint64_t launches_of_solves(loom_ctx_t *ctx, loom_array_t **a, loom_array_t **b) {
    loom_array_t *x[SOLVES];
    uint64_t before = stats(ctx).kernels_launched;
    loom_scope_begin(ctx);
    for (int i = 0; i < SOLVES; i++) x[i] = loom_solve(ctx, a[i], b[i]);
    assert_int_equal(loom_eval(ctx, SOLVES, x), LOOM_STATUS_OK);
    loom_scope_end(ctx);
    return stats(ctx).kernels_launched - before;
}

static void test_transfer_separate_solves_one_step(void **state) {
    (void)state;
    loom_ctx_t *ctx = checked_mock_ctx();
    int64_t sa[2] = {8, 8}, sb = 8, st[3] = {SOLVES, 8, 8}, rows[2] = {SOLVES, 8};
    static float ha[SOLVES][8][8], hb[SOLVES][8];
    for (int i = 0; i < SOLVES; i++)
        for (int r = 0; r < 8; r++) {
            hb[i][r] = (float)(r + i);
            for (int c = 0; c < 8; c++) ha[i][r][c] = r == c ? 4.0f : 1.0f / (float)(1 + r + c);
        }
    loom_array_t *a[SOLVES], *b[SOLVES];
    for (int i = 0; i < SOLVES; i++) {
        a[i] = loom_from_host(ctx, LOOM_DTYPE_F32, 2, sa, ha[i]);
        b[i] = loom_from_host(ctx, LOOM_DTYPE_F32, 1, &sb, hb[i]);
    }
    assert_int_equal(launches_of_solves(ctx, a, b), 4);
    assert_int_equal(launches_of_solves(ctx, a, b), 4); /* the cached plan: the batch holds */
    /* Cholesky's operands are transposed reads (gathered), its results masked copies: 16 of
     * them in one kernel */
    loom_array_t *l[SOLVES];
    uint64_t before = stats(ctx).kernels_launched;
    for (int i = 0; i < SOLVES; i++) l[i] = loom_cholesky(ctx, a[i], 0);
    assert_int_equal(loom_eval(ctx, SOLVES, l), LOOM_STATUS_OK);
    assert_int_equal(stats(ctx).kernels_launched - before, 4);
    /* rows of two device arrays: both stacks lie in order, no gather */
    loom_array_t *da = loom_from_host(ctx, LOOM_DTYPE_F32, 3, st, ha);
    loom_array_t *db = loom_from_host(ctx, LOOM_DTYPE_F32, 2, rows, hb);
    assert_int_equal(loom_eval(ctx, 1, &da), LOOM_STATUS_OK);
    assert_int_equal(loom_eval(ctx, 1, &db), LOOM_STATUS_OK);
    loom_array_t *ra[SOLVES], *rb[SOLVES];
    for (int i = 0; i < SOLVES; i++) {
        ra[i] = row(ctx, da, i);
        rb[i] = row(ctx, db, i);
    }
    assert_int_equal(launches_of_solves(ctx, ra, rb), 2);
    /* rows 3 and 5 swapped: not one stride apart, a step each */
    ra[3] = row(ctx, da, 5);
    ra[5] = row(ctx, da, 3);
    assert_int_equal(launches_of_solves(ctx, ra, rb), 2 * SOLVES);
    loom_ctx_destroy(ctx);
}

static void test_transfer_borrowed_mark(void **state) {
    (void)state;
    loom_ctx_t *ctx = checked_mock_ctx();
    int64_t n = 64;
    int32_t x[64];
    fill(x, sizeof x, 3);
    loom_array_t *a = loom_borrow_host(ctx, LOOM_DTYPE_I32, 1, &n, x);
    loom_array_t *r = loom_add_i(ctx, a, 1);
    assert_int_equal(loom_eval(ctx, 1, &r), LOOM_STATUS_OK);
    assert_int_equal(stats(ctx).last_eval_h2d_copies, 1);
    r = loom_add_i(ctx, a, 2); /* unchanged: the upload is reused */
    assert_int_equal(loom_eval(ctx, 1, &r), LOOM_STATUS_OK);
    assert_int_equal(stats(ctx).last_eval_h2d_copies, 0);
    x[5] = 12345; /* changed and marked: uploaded again, with the new contents */
    assert_int_equal(loom_array_host_changed(ctx, a), LOOM_STATUS_OK);
    r = loom_add_i(ctx, a, 3);
    assert_int_equal(loom_eval(ctx, 1, &r), LOOM_STATUS_OK);
    assert_int_equal(stats(ctx).last_eval_h2d_copies, 1);
    assert_int_equal(stats(ctx).last_eval_h2d_bytes, sizeof x);
    loom_sync(ctx);
    assert_memory_equal(dev_bytes(a), x, sizeof x);
#ifndef NDEBUG
    x[6] = -1; /* changed without the mark: debug builds refuse the eval */
    r = loom_add_i(ctx, a, 4);
    assert_int_equal(loom_eval(ctx, 1, &r), LOOM_STATUS_INVALID_ARGUMENT);
    assert_non_null(strstr(loom_ctx_message(ctx), "loom_array_host_changed"));
    loom_ctx_clear_error(ctx);
#endif
    /* Copies are immutable: marking one is a misuse. */
    loom_array_t *c = loom_from_host(ctx, LOOM_DTYPE_I32, 1, &n, x);
    assert_int_equal(loom_array_host_changed(ctx, c), LOOM_STATUS_INVALID_ARGUMENT);
    loom_ctx_destroy(ctx);
}

static void test_transfer_read_then_reuse(void **state) {
    (void)state;
    loom_ctx_t *ctx = checked_mock_ctx();
    int64_t n = 1000;
    float x[1000], got[1000];
    fill(x, sizeof x, 4);
    loom_array_t *a = loom_from_host(ctx, LOOM_DTYPE_F32, 1, &n, x);
    loom_array_t *r = loom_add_f(ctx, a, 1.0);
    assert_int_equal(loom_eval(ctx, 1, &r), LOOM_STATUS_OK);
    loom_sync(ctx);
    fill((void *)(uintptr_t)r->buf->m.dev, sizeof got, 5); /* the "kernel's" result */
    assert_int_equal(loom_read(ctx, r, got, sizeof got), LOOM_STATUS_OK);
    loom_stats_t s = stats(ctx);
    assert_int_equal(s.last_eval_h2d_copies, 0);
    assert_int_equal(s.last_eval_d2h_copies, 1);
    assert_int_equal(s.last_eval_d2h_bytes, sizeof got);
    assert_memory_equal(got, (void *)(uintptr_t)r->buf->m.dev, sizeof got);
    loom_array_t *q = loom_multiply_f(ctx, r, 2.0); /* read back, used again: no upload */
    assert_int_equal(loom_eval(ctx, 1, &q), LOOM_STATUS_OK);
    assert_int_equal(stats(ctx).last_eval_h2d_copies, 0);
    assert_int_equal(stats(ctx).h2d_copies, 1);
    loom_ctx_destroy(ctx);
}

static void test_transfer_read_many(void **state) {
    (void)state;
    loom_ctx_t *ctx = checked_mock_ctx();
    int64_t n[3] = {3, 300, 77};
    double x[300];
    fill(x, sizeof x, 6);
    loom_array_t *r[3];
    for (int i = 0; i < 3; i++) {
        r[i] = loom_add_f(ctx, loom_from_host(ctx, LOOM_DTYPE_F64, 1, &n[i], x), (double)i);
        assert_int_equal(loom_eval(ctx, 1, &r[i]), LOOM_STATUS_OK);
    }
    loom_sync(ctx);
    size_t bytes[3], total = 0;
    void *dst[3];
    for (int i = 0; i < 3; i++) {
        bytes[i] = (size_t)n[i] * 8;
        total += bytes[i];
        dst[i] = malloc(bytes[i] + 1);
        fill((void *)(uintptr_t)r[i]->buf->m.dev, bytes[i], (unsigned)(10 + i));
    }
    void *odd[3] = {(char *)dst[0] + 1, dst[1], dst[2]}; /* an unaligned destination */
    assert_int_equal(loom_read_many(ctx, 3, r, odd, bytes), LOOM_STATUS_OK);
    loom_stats_t s = stats(ctx);
    assert_int_equal(s.last_eval_d2h_bytes, total);
    assert_int_equal(s.last_eval_d2h_copies, 3); /* three allocations: a DMA each, one wait */
    for (int i = 0; i < 3; i++)
        assert_memory_equal(odd[i], (void *)(uintptr_t)r[i]->buf->m.dev, bytes[i]);
    bytes[1] -= 1; /* one short buffer: nothing is read */
    assert_int_equal(loom_read_many(ctx, 3, r, odd, bytes), LOOM_STATUS_BUFFER_TOO_SMALL);
    assert_non_null(strstr(loom_ctx_message(ctx), "array 1"));
    loom_ctx_destroy(ctx);
    for (int i = 0; i < 3; i++) free(dst[i]);
}

/* ---- the runtime's batch copies ---- */

static void test_transfer_packed_and_batches_bit_exact(void **state) {
    (void)state;
    loom_ctx_t *ctx = checked_mock_ctx();
    rt_device_t *d = ctx->rt;
    srand(7);
    for (int round = 0; round < 6; round++) {
        uint32_t n = round == 5 ? 1000 : 1 + (uint32_t)(rand() % 40);
        size_t *off = malloc(n * sizeof *off), *len = malloc(n * sizeof *len), total = 0;
        const void **src = malloc(n * sizeof *src);
        unsigned char **own = malloc(n * sizeof *own);
        for (uint32_t i = 0; i < n; i++) {
            len[i] = round == 5 ? 4096 : (size_t)(rand() % (round < 3 ? 5000 : 3 << 20));
            if (i % 7 == 3) len[i] = 0;
            own[i] = malloc(len[i] + 8);
            src[i] = own[i] + (size_t)(rand() % 8); /* unaligned host pointers */
            fill((void *)src[i], len[i], i + (unsigned)round);
            total += (size_t)(rand() % 3) * 4; /* random gaps and odd offsets */
            off[i] = total;
            total += len[i];
        }
        uint64_t dev;
        assert_int_equal(rt_alloc(d, total + 1, &dev), LOOM_STATUS_OK);
        rt_stats_t s0, s1;
        rt_device_stats(d, &s0);
        assert_int_equal(rt_h2d_packed(d, dev, n, off, src, len), LOOM_STATUS_OK);
        rt_device_stats(d, &s1);
        size_t chunk = d->stage.chunk;
        assert_true(s1.h2d_copies - s0.h2d_copies <= (total + chunk - 1) / chunk);
        if (round == 5) assert_int_equal(s1.h2d_copies - s0.h2d_copies, 1);
        /* Back through a batched download into unaligned buffers. */
        void **back = malloc(n * sizeof *back);
        uint64_t *from = malloc(n * sizeof *from);
        unsigned char **bown = malloc(n * sizeof *bown);
        for (uint32_t i = 0; i < n; i++) {
            bown[i] = malloc(len[i] + 8);
            back[i] = bown[i] + 3;
            from[i] = dev + off[i];
        }
        assert_int_equal(rt_d2h_batch(d, n, back, from, len), LOOM_STATUS_OK);
        for (uint32_t i = 0; i < n; i++) {
            assert_memory_equal(back[i], src[i], len[i]);
            assert_memory_equal((void *)(uintptr_t)(dev + off[i]), src[i], len[i]);
        }
        /* rt_h2d_batch to scattered destinations: the bytes between them stay untouched. */
        memset((void *)(uintptr_t)dev, 0xAB, total + 1);
        uint64_t *to = malloc(n * sizeof *to);
        for (uint32_t i = 0; i < n; i++) to[i] = dev + off[i];
        assert_int_equal(rt_h2d_batch(d, n, to, src, len), LOOM_STATUS_OK);
        rt_sync(d);
        const unsigned char *db = (const unsigned char *)(uintptr_t)dev;
        for (uint32_t i = 0, pos = 0; i < n; i++) {
            for (; pos < off[i]; pos++) assert_int_equal(db[pos], 0xAB);
            assert_memory_equal(db + off[i], src[i], len[i]);
            pos = (uint32_t)(off[i] + len[i]);
        }
        assert_int_equal(db[total], 0xAB);
        rt_free(d, dev);
        for (uint32_t i = 0; i < n; i++) {
            free(own[i]);
            free(bown[i]);
        }
        free(off), free(len), free(src), free(own), free(back), free(from), free(bown), free(to);
    }
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_OK);
    loom_ctx_destroy(ctx);
}

/* ---- separate allocations side by side ----
 * The real driver places small allocations back to back and refuses a copy that spans two
 * (CUDA_ERROR_INVALID_VALUE). An arena allocator and range-checking copies model that. */

static struct {
    _Alignas(256) unsigned char bytes[1 << 20];
    size_t used;
    struct {
        uint64_t p;
        size_t n;
    } blocks[256];
    int n;
} arena;

static CUresult arena_alloc(CUdeviceptr *p, size_t n) {
    if (arena.used + n > sizeof arena.bytes || arena.n == 256) return CUDA_ERROR_OUT_OF_MEMORY;
    *p = (CUdeviceptr)(uintptr_t)(arena.bytes + arena.used);
    arena.blocks[arena.n].p = *p;
    arena.blocks[arena.n++].n = n;
    arena.used += (n + 255) / 256 * 256;
    return CUDA_SUCCESS;
}
static CUresult arena_free(CUdeviceptr p) { return (void)p, CUDA_SUCCESS; }

static bool in_one_allocation(uint64_t p, size_t n) {
    for (int i = 0; i < arena.n; i++)
        if (p >= arena.blocks[i].p && p + n <= arena.blocks[i].p + arena.blocks[i].n) return true;
    return false;
}
static CUresult checked_h2d(CUdeviceptr d, const void *s, size_t n, CUstream st) {
    return in_one_allocation(d, n) ? mH2D(d, s, n, st) : CUDA_ERROR_INVALID_VALUE;
}
static CUresult checked_d2h(void *d, CUdeviceptr s, size_t n, CUstream st) {
    return in_one_allocation(s, n) ? mD2H(d, s, n, st) : CUDA_ERROR_INVALID_VALUE;
}

static loom_ctx_t *arena_ctx(void) {
    loom_ctx_t *ctx = checked_mock_ctx();
    arena.used = 0;
    arena.n = 0;
    ctx->rt->drv.MemAlloc = arena_alloc;
    ctx->rt->drv.MemFree = arena_free;
    ctx->rt->drv.MemcpyHtoDAsync = checked_h2d;
    ctx->rt->drv.MemcpyDtoHAsync = checked_d2h;
    return ctx;
}

/* Batched copies to and from two adjacent allocations: a DMA each, never one across both. */
static void test_transfer_adjacent_allocations_copied_apart(void **state) {
    (void)state;
    loom_ctx_t *ctx = arena_ctx();
    rt_device_t *d = ctx->rt;
    uint64_t dev[2];
    assert_int_equal(rt_alloc(d, 2048, &dev[0]), LOOM_STATUS_OK);
    assert_int_equal(rt_alloc(d, 4096, &dev[1]), LOOM_STATUS_OK);
    assert_true(dev[1] == dev[0] + 2048); /* side by side */
    unsigned char src[6144], back[6144];
    fill(src, sizeof src, 3);
    const void *from[2] = {src, src + 2048};
    void *to[2] = {back, back + 2048};
    size_t len[2] = {2048, 4096};
    rt_stats_t s0, s1;
    rt_device_stats(d, &s0);
    assert_int_equal(rt_h2d_batch(d, 2, dev, from, len), LOOM_STATUS_OK);
    assert_int_equal(rt_d2h_batch(d, 2, to, dev, len), LOOM_STATUS_OK);
    rt_device_stats(d, &s1);
    assert_memory_equal(back, src, sizeof src);
    assert_int_equal(s1.h2d_copies - s0.h2d_copies, 2);
    assert_int_equal(s1.d2h_copies - s0.d2h_copies, 2);
    /* Pieces of one allocation still travel as one DMA. */
    uint64_t halves[2] = {dev[1], dev[1] + 2048};
    size_t half[2] = {2048, 2048};
    assert_int_equal(rt_d2h_batch(d, 2, to, halves, half), LOOM_STATUS_OK);
    rt_device_stats(d, &s0);
    assert_int_equal(s0.d2h_copies - s1.d2h_copies, 1);
    rt_free(d, dev[0]);
    rt_free(d, dev[1]);
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_OK);
    loom_ctx_destroy(ctx);
}

/* loom_read_many of two results that the pool placed side by side (a float32 result of 2 KiB,
 * then a float64 one): it failed with CUDA_ERROR_INVALID_VALUE when the two were one DMA. */
static void test_transfer_read_many_adjacent_results(void **state) {
    (void)state;
    loom_ctx_t *ctx = arena_ctx();
    int64_t n = 512;
    float x[512];
    double y[512];
    fill(x, sizeof x, 1);
    fill(y, sizeof y, 2);
    loom_array_t *r[2] = {
        loom_sqrt(ctx, loom_from_host(ctx, LOOM_DTYPE_F32, 1, &n, x)),
        loom_exp(ctx, loom_from_host(ctx, LOOM_DTYPE_F64, 1, &n, y)),
    };
    assert_int_equal(loom_eval(ctx, 2, r), LOOM_STATUS_OK);
    uint64_t a = r[0]->buf->m.dev, b = r[1]->buf->m.dev;
    if (b + 4096 == a) { /* read them in address order, so that they are adjacent pieces */
        loom_array_t *t = r[0];
        r[0] = r[1];
        r[1] = t;
    }
    assert_true(r[0]->buf->m.dev + loom_array_nbytes(r[0]) == r[1]->buf->m.dev);
    unsigned char out0[4096], out1[4096];
    void *dst[2] = {out0, out1};
    size_t bytes[2] = {loom_array_nbytes(r[0]), loom_array_nbytes(r[1])};
    assert_int_equal(loom_read_many(ctx, 2, r, dst, bytes), LOOM_STATUS_OK);
    assert_int_equal(stats(ctx).last_eval_d2h_copies, 2);
    loom_ctx_destroy(ctx);
}

/* A scan over no lines launches no kernel: the staged form's blocks would otherwise take a
 * ticket from scratch that an empty scan does not have. */
/* loom_program_eval's replays on the CUDA path: each call's new host arrays are uploaded
 * (the replayed graph's inputs are the new arrays' buffers), as many kernels launch as for
 * the run it replays, and the results are realised device buffers. */
static void test_program_replay_uploads(void **state) {
    (void)state;
    loom_ctx_t *ctx = checked_mock_ctx();
    loom_program_t *p = NULL;
    assert_int_equal(loom_program_create(ctx, "(x * 2 + y).sum() + x", &p), LOOM_STATUS_OK);
    const char *names[2] = {"x", "y"};
    int64_t n = 1000;
    float x[1000], y[1000];
    uint64_t kernels = 0;
    for (int call = 0; call < 3; call++) {
        fill(x, sizeof x, (unsigned)call);
        fill(y, sizeof y, (unsigned)call + 10);
        loom_scope_begin(ctx);
        loom_array_t *arrs[2] = {loom_from_host(ctx, LOOM_DTYPE_F32, 1, &n, x),
                                 loom_from_host(ctx, LOOM_DTYPE_F32, 1, &n, y)},
                     *item = NULL;
        int32_t k = 0;
        loom_stats_t s0 = stats(ctx);
        assert_int_equal(loom_program_eval(ctx, p, 2, names, arrs, 1, &item, &k, NULL),
                         LOOM_STATUS_OK);
        loom_stats_t s1 = stats(ctx);
        assert_int_equal(k, 1);
        assert_int_equal(s1.evals - s0.evals, 1);
        assert_int_equal(s1.last_eval_h2d_copies, 1);
        assert_int_equal(s1.last_eval_h2d_bytes, 2 * sizeof x);
        if (call == 0) kernels = s1.kernels_launched - s0.kernels_launched;
        assert_int_equal(s1.kernels_launched - s0.kernels_launched, kernels);
        loom_sync(ctx);
        assert_memory_equal(dev_bytes(arrs[0]), x, sizeof x);
        assert_memory_equal(dev_bytes(arrs[1]), y, sizeof y);
        assert_true(item->flags & FE_REALISED);
        assert_true(item->buf && item->buf->m.dev != 0);
        assert_int_equal(loom_array_size(item), n);
        loom_scope_end(ctx);
    }
    assert_true(kernels >= 1);
    loom_program_destroy(p);
    loom_ctx_destroy(ctx);
}

static void test_empty_scan_launches_nothing(void **state) {
    (void)state;
    loom_ctx_t *ctx = checked_mock_ctx();
    int64_t shape[2] = {0, 20000};
    loom_array_t *x = loom_zeros(ctx, LOOM_DTYPE_F32, 2, shape);
    assert_int_equal(loom_eval(ctx, 1, &x), LOOM_STATUS_OK);
    uint64_t before = stats(ctx).kernels_launched;
    loom_array_t *c = loom_cumsum(ctx, x, 1);
    assert_int_equal(loom_eval(ctx, 1, &c), LOOM_STATUS_OK);
    assert_int_equal(stats(ctx).kernels_launched - before, 0);
    loom_ctx_destroy(ctx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_transfer_small_inputs_one_copy),
        cmocka_unit_test(test_transfer_large_input_chunked),
        cmocka_unit_test(test_transfer_borrowed_mark),
        cmocka_unit_test(test_transfer_separate_solves_one_step),
        cmocka_unit_test(test_transfer_read_then_reuse),
        cmocka_unit_test(test_transfer_read_many),
        cmocka_unit_test(test_transfer_packed_and_batches_bit_exact),
        cmocka_unit_test(test_transfer_adjacent_allocations_copied_apart),
        cmocka_unit_test(test_transfer_read_many_adjacent_results),
        cmocka_unit_test(test_empty_scan_launches_nothing),
        cmocka_unit_test(test_program_replay_uploads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
