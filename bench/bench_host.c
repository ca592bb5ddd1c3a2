/* bench_host — loom's host-side cost per eval, without a GPU: the CUDA path (lowering, plan
 * cache, scheduler run, uploads through staging, result buffers) on a mock driver whose
 * kernels do not run and whose device memory is host memory (tests/support/mock_driver.h).
 * Two workloads: dispatch of a cached 15-op chain on 1024 floats, and 1000 separate
 * 32x32 images through `x * 2 + 1` read back with loom_read_many (its copies are
 * memcpys here, so that part reads as host memcpy time). Median of 7 runs. Run it on the
 * machine whose host you want to know; the GPU figures add the driver's own costs. */
#include <time.h>

#include "../tests/support/mock_driver.h"
#include "bench_util.h"

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

int main(void) {
    loom_ctx_t *ctx = mock_ctx();
    if (!ctx) {
        fprintf(stderr, "bench_host: cannot create a context on the mock driver\n");
        return 1;
    }
    static float h[1024];
    int64_t n = 1024;
    loom_array_t *x = loom_from_host(ctx, LOOM_DTYPE_F32, 1, &n, h);
    loom_array_retain(x);
    loom_eval(ctx, 1, &x);
    double t[7];
    for (int r = -1; r < 7; r++) { /* run -1 compiles */
        double t0 = now_us();
        for (int k = 0; k < 5000; k++) {
            loom_scope_begin(ctx);
            loom_array_t *a = x;
            for (int i = 0; i < 5; i++)
                a = loom_add_f(ctx, loom_multiply_f(ctx, loom_sin(ctx, a), 1.5), 0.25);
            loom_eval(ctx, 1, &a);
            loom_scope_end(ctx);
        }
        if (r >= 0) t[r] = (now_us() - t0) / 5000;
    }
    printf("%-44s %8.2f us per eval\n", "dispatch, cached 15-op chain (host)", bench_median(t, 7));

    enum { IMAGES = 1000 };
    float *in = calloc((size_t)IMAGES * 1024, sizeof *in), *out = calloc((size_t)IMAGES * 1024, 4);
    static loom_array_t *y[IMAGES];
    static void *dst[IMAGES];
    static size_t bytes[IMAGES];
    double tb[7], te[7], tr[7];
    int64_t shape[2] = {32, 32};
    for (int r = -1; r < 7; r++) {
        double t0 = now_us();
        loom_scope_begin(ctx);
        for (int i = 0; i < IMAGES; i++) {
            loom_array_t *a = loom_from_host(ctx, LOOM_DTYPE_F32, 2, shape, in + i * 1024);
            y[i] = loom_add_f(ctx, loom_multiply_f(ctx, a, 2.0), 1.0);
            dst[i] = out + i * 1024;
            bytes[i] = 1024 * sizeof *out;
        }
        double t1 = now_us();
        loom_eval(ctx, IMAGES, y);
        double t2 = now_us();
        loom_read_many(ctx, IMAGES, y, dst, bytes);
        loom_scope_end(ctx);
        double t3 = now_us();
        if (r >= 0) tb[r] = t1 - t0, te[r] = t2 - t1, tr[r] = t3 - t2;
    }
    printf("%-44s %8.0f us build, %.0f us eval, %.0f us read + release\n",
           "1000 images 32x32, 1000 arrays (host)", bench_median(tb, 7), bench_median(te, 7),
           bench_median(tr, 7));
    if (loom_ctx_status(ctx)) {
        fprintf(stderr, "bench_host: %s\n", loom_ctx_message(ctx));
        return 1;
    }
    loom_array_release(x);
    loom_ctx_destroy(ctx);
    free(in);
    free(out);
    return 0;
}
