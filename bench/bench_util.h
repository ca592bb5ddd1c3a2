/* bench_util.h — what the benchmarks share: medians, the timing of a call with CUDA events on
 * the context's stream (3 warm-up calls, then `reps` batches of `inner` calls; the median
 * batch, per call), the card's copy rate, CUDA contexts, and realised uniform random device
 * arrays. Header-only: include it in one file of each benchmark. */
#ifndef LOOM_BENCH_UTIL_H
#define LOOM_BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/fe.h"

typedef void (*bench_fn)(void *arg);

static inline int bench_cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n) (sorts v). */
static inline double bench_median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, bench_cmp);
    return v[n / 2];
}

/* Median milliseconds per call of fn(arg) (reps ≤ 64); kernels (may be NULL) receives the
 * kernels launched per call in the timed batches. Exits with the message on a loom error. */
static inline double bench_time_ms(loom_ctx_t *ctx, bench_fn fn, void *arg, int reps, int inner,
                                   double *kernels) {
    rt_event_t *e0, *e1;
    rt_event_create(ctx->rt, &e0);
    rt_event_create(ctx->rt, &e1);
    for (int i = 0; i < 3; i++) fn(arg);
    loom_sync(ctx);
    loom_stats_t s0, s1;
    loom_ctx_stats(ctx, &s0);
    double t[64];
    for (int r = 0; r < reps; r++) {
        rt_event_record(ctx->rt, e0);
        for (int i = 0; i < inner; i++) fn(arg);
        rt_event_record(ctx->rt, e1);
        float ms = 0;
        rt_event_elapsed_ms(ctx->rt, e0, e1, &ms);
        t[r] = (double)ms / inner;
    }
    loom_ctx_stats(ctx, &s1);
    if (kernels) *kernels = (double)(s1.kernels_launched - s0.kernels_launched) / (reps * inner);
    rt_event_destroy(ctx->rt, e0);
    rt_event_destroy(ctx->rt, e1);
    if (loom_ctx_status(ctx)) {
        fprintf(stderr, "error: %s\n", loom_ctx_message(ctx));
        exit(1);
    }
    return bench_median(t, reps);
}

/* This card's device-to-device copy rate in TB/s (bytes read plus bytes written), measured as
 * FLOORS.md's 4.17 TB/s was: 1 GiB copied by the driver on the context's stream, 3 warm-up
 * copies, then the median of 9 batches of 10 (CUDA events). The floors of bench_reduce,
 * bench_indexing and bench_fft are bytes at this rate, so their ratios hold on any card;
 * 4.17 (the H200's) when the 2 GiB cannot be had. */
static inline double bench_copy_tbps(loom_ctx_t *ctx) {
    const size_t bytes = (size_t)1 << 30;
    uint64_t a = 0, b = 0;
    rt_event_t *e0 = NULL, *e1 = NULL;
    double t[9], tbps = 4.17;
    if (rt_alloc(ctx->rt, bytes, &a) || rt_alloc(ctx->rt, bytes, &b) ||
        rt_event_create(ctx->rt, &e0) || rt_event_create(ctx->rt, &e1))
        goto done;
    for (int i = 0; i < 3; i++) rt_d2d(ctx->rt, b, a, bytes);
    for (int r = 0; r < 9; r++) {
        rt_event_record(ctx->rt, e0);
        for (int i = 0; i < 10; i++) rt_d2d(ctx->rt, b, a, bytes);
        rt_event_record(ctx->rt, e1);
        float ms = 0;
        if (rt_event_elapsed_ms(ctx->rt, e0, e1, &ms) || ms <= 0) goto done;
        t[r] = (double)ms / 10;
    }
    tbps = 2.0 * (double)bytes / (bench_median(t, 9) * 1e-3) / 1e12;
done:
    if (e0) rt_event_destroy(ctx->rt, e0);
    if (e1) rt_event_destroy(ctx->rt, e1);
    if (a) rt_free(ctx->rt, a);
    if (b) rt_free(ctx->rt, b);
    rt_trim(ctx->rt); /* (the 2 GiB back to the driver, not held by the pool) */
    loom_ctx_clear_error(ctx);
    return tbps;
}

/* A context on the CUDA device whose kernel cache is the folder cache (NULL: the default);
 * NULL (after saying why) when there is none: the benchmark then exits 77. */
static inline loom_ctx_t *bench_cuda_ctx_on(const char *cache) {
    loom_options_t o = {0};
    o.device = LOOM_DEVICE_CUDA;
    o.cache_dir = cache;
    loom_ctx_t *c = NULL;
    if (loom_ctx_create(&o, &c) != LOOM_STATUS_OK) {
        fprintf(stderr, "no CUDA device: %s\n", loom_last_create_message());
        return NULL;
    }
    return c;
}

/* bench_cuda_ctx_on(NULL), its name printed ("device: ..."). */
static inline loom_ctx_t *bench_cuda_ctx(void) {
    loom_ctx_t *c = bench_cuda_ctx_on(NULL);
    if (c) printf("device: %s\n", loom_ctx_device_name(c));
    return c;
}

/* A context on the CUDA device whose kernel cache is a new folder under /tmp, so that the
 * first eval of each kernel compiles it (dir: 32 bytes at least, the folder's name). */
static inline loom_ctx_t *bench_cuda_ctx_cold(char *dir) {
    strcpy(dir, "/tmp/loom-bench-XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        exit(1);
    }
    return bench_cuda_ctx_on(dir);
}

/* A realised device array of uniform random values in [lo, hi) of dtype d (drawn in float32,
 * then cast), retained: the caller releases it. */
static inline loom_array_t *bench_rand(loom_ctx_t *ctx, uint64_t seed, loom_dtype_t d, int32_t nd,
                                       const int64_t *shape, double lo, double hi) {
    loom_array_t *a = loom_random_uniform(ctx, seed, LOOM_DTYPE_F32, nd, shape, lo, hi);
    if (d != LOOM_DTYPE_F32) a = loom_astype(ctx, a, d);
    loom_array_retain(a);
    loom_eval(ctx, 1, &a);
    return a;
}

#endif
