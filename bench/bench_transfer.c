/* bench_transfer — the host/device boundary on the CUDA device, with pageable host memory:
 * hypot over 64M float32 from two host arrays into a host array (CuPy: 170 ms; the pinned PCIe
 * floor is about 15 ms), 1000 images of 32x32 round trip (target <= 2 ms), and 256 MiB H2D
 * and D2H through loom_borrow_host + eval and loom_read (CuPy: 6.5 / 9.8 GB/s; pinned DMA about
 * 55 GB/s, measured here too). Each line is repeated for 1, 2, 4 and 8 copy threads (or only
 * the count given as argv[1]). Wall-clock ms, best of `reps`; host buffers touched first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "frontend/fe.h"
#include "runtime/driver.h"

static loom_ctx_t *ctx;

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static void check(void) {
    if (loom_ctx_status(ctx)) {
        fprintf(stderr, "error: %s\n", loom_ctx_message(ctx));
        exit(1);
    }
}

typedef void (*work_fn)(void *arg);

static double best_ms(work_fn fn, void *arg, int reps) {
    double best = 1e30;
    fn(arg); /* warm-up: kernels compiled, staging allocated */
    for (int r = 0; r < reps; r++) {
        loom_sync(ctx);
        double t0 = now_ms();
        fn(arg);
        double t = now_ms() - t0;
        if (t < best) best = t;
    }
    check();
    return best;
}

typedef struct {
    int64_t n;
    float *x, *y, *z;
    int64_t shape[3];
} work_t;

static void hypot_once(void *arg) {
    work_t *w = arg;
    loom_scope_begin(ctx);
    loom_array_t *a = loom_borrow_host(ctx, LOOM_DTYPE_F32, 1, &w->n, w->x);
    loom_array_t *b = loom_borrow_host(ctx, LOOM_DTYPE_F32, 1, &w->n, w->y);
    loom_read(ctx, loom_hypot(ctx, a, b), w->z, (size_t)w->n * 4);
    loom_scope_end(ctx);
}

static void images_once(void *arg) { /* one array per image, read back together */
    work_t *w = arg;
    int64_t shape[2] = {32, 32};
    static loom_array_t *y[1000];
    static void *dst[1000];
    static size_t bytes[1000];
    loom_scope_begin(ctx);
    for (int i = 0; i < 1000; i++) {
        loom_array_t *a = loom_from_host(ctx, LOOM_DTYPE_F32, 2, shape, w->x + i * 1024);
        y[i] = loom_add_f(ctx, loom_multiply_f(ctx, a, 2.0), 1.0);
        dst[i] = w->z + i * 1024;
        bytes[i] = 1024 * 4;
    }
    loom_read_many(ctx, 1000, y, dst, bytes);
    loom_scope_end(ctx);
}

static void h2d_once(void *arg) { /* the upload, plus a trivial kernel that needs it */
    work_t *w = arg;
    loom_scope_begin(ctx);
    int64_t one = 1;
    loom_array_t *a = loom_borrow_host(ctx, LOOM_DTYPE_F32, 1, &w->n, w->x);
    loom_array_t *s = loom_slice(ctx, a, 1, NULL, &one, NULL);
    loom_array_t *r = loom_negative(ctx, s);
    loom_eval(ctx, 1, &r);
    loom_sync(ctx);
    loom_scope_end(ctx);
}

static loom_array_t *dev_src;
static void d2h_once(void *arg) {
    work_t *w = arg;
    loom_read(ctx, dev_src, w->z, (size_t)w->n * 4);
}

int main(int argc, char **argv) {
    loom_options_t o = {.device = LOOM_DEVICE_CUDA};
    int64_t big = 64 << 20, img_n = 1000 * 32 * 32, mib256 = (256 << 20) / 4;
    float *x = malloc((size_t)big * 4), *y = malloc((size_t)big * 4), *z = malloc((size_t)big * 4);
    for (int64_t i = 0; i < big; i++) x[i] = (float)(i % 1000), y[i] = (float)(i % 777), z[i] = 0;
    int counts[] = {1, 2, 4, 8}, n_counts = 4;
    if (argc > 1) counts[0] = atoi(argv[1]), n_counts = 1;
    for (int c = 0; c < n_counts; c++) {
        if (loom_ctx_create(&o, &ctx) != LOOM_STATUS_OK) {
            fprintf(stderr, "no CUDA device: %s\n", loom_last_create_message());
            return 77;
        }
        ctx->rt->stage.threads = counts[c];
        printf("-- %s, %d copy thread%s, staging %u x %zu MiB\n", loom_ctx_device_name(ctx),
               counts[c], counts[c] > 1 ? "s" : "", ctx->rt->stage.n_slots,
               ctx->rt->stage.chunk >> 20);
        work_t w = {big, x, y, z, {0}};
        printf("%-44s %8.2f ms  (CuPy 170, floor ~15)\n", "hypot 64M f32 pageable -> pageable",
               best_ms(hypot_once, &w, 5));
        work_t im = {img_n, x, y, z, {1000, 32, 32}};
        printf("%-44s %8.3f ms  (target <= 2)\n", "1000 images 32x32 (1000 arrays) round trip",
               best_ms(images_once, &im, 20));
        loom_stats_t s;
        loom_ctx_stats(ctx, &s);
        printf("%-44s h2d %llu copies, d2h %llu copies\n", "  last round",
               (unsigned long long)s.last_eval_h2d_copies,
               (unsigned long long)s.last_eval_d2h_copies);
        work_t m = {mib256, x, y, z, {0}};
        double up = best_ms(h2d_once, &m, 5);
        printf("%-44s %8.2f GB/s (CuPy 6.5)\n", "H2D 256 MiB pageable (borrow + eval)",
               (double)mib256 * 4 / (up * 1e-3) / 1e9);
        dev_src = loom_array_retain(loom_random_uniform(ctx, 1, LOOM_DTYPE_F32, 1, &mib256, 0, 1));
        loom_eval(ctx, 1, &dev_src);
        double down = best_ms(d2h_once, &m, 5);
        printf("%-44s %8.2f GB/s (CuPy 9.8)\n", "D2H 256 MiB pageable (loom_read)",
               (double)mib256 * 4 / (down * 1e-3) / 1e9);
        if (c == 0) { /* pinned reference: direct DMA from rt_host_alloc memory */
            void *pin;
            uint64_t dev = dev_src->buf->m.dev;
            rt_host_alloc(ctx->rt, (size_t)mib256 * 4, &pin);
            double best = 1e30;
            for (int r = 0; r < 5; r++) {
                double t0 = now_ms();
                rt_h2d(ctx->rt, dev, pin, (size_t)mib256 * 4);
                rt_sync(ctx->rt);
                double t = now_ms() - t0;
                best = t < best ? t : best;
            }
            printf("%-44s %8.2f GB/s (~55)\n", "H2D 256 MiB pinned (reference)",
                   (double)mib256 * 4 / (best * 1e-3) / 1e9);
            rt_host_free(ctx->rt, pin);
        }
        check();
        loom_array_release(dev_src);
        loom_ctx_destroy(ctx);
    }
    free(x);
    free(y);
    free(z);
    return 0;
}
