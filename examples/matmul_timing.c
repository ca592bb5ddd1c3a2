/* matmul_timing — a matrix-product speed check: an N x N float32 product (default
 * N = 512) timed on each device loom has, compared with a plain C triple loop for the values.
 * On the CUDA device the product runs on cuBLASLt; a device this machine lacks is reported
 * instead of timed.
 *
 *   matmul_timing [N] */
#include <loom.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* Times c = a @ b on ctx (best of 3); fills c; returns ms, or -1 with the reason printed. */
static double time_matmul(loom_ctx_t *ctx, int64_t n, const float *a, const float *b, float *c) {
    int64_t shape[2] = {n, n};
    double best = -1;
    for (int rep = 0; rep < 3; rep++) {
        loom_scope_begin(ctx);
        double t0 = now_ms();
        loom_array_t *p = loom_matmul(ctx, loom_borrow_host(ctx, LOOM_DTYPE_F32, 2, shape, a),
                                      loom_borrow_host(ctx, LOOM_DTYPE_F32, 2, shape, b));
        loom_status_t st = loom_read(ctx, p, c, (size_t)(n * n) * sizeof *c);
        double t = now_ms() - t0;
        loom_scope_end(ctx);
        if (st != LOOM_STATUS_OK) {
            printf("  %-24s %s\n", loom_ctx_device_name(ctx), loom_ctx_message(ctx));
            return -1;
        }
        if (best < 0 || t < best) best = t;
    }
    return best;
}

int main(int argc, char **argv) {
    int64_t n = argc > 1 ? atoll(argv[1]) : 512;
    if (n <= 0 || n > 20000) {
        fprintf(stderr, "usage: %s [N (1..20000)]\n", argv[0]);
        return 2;
    }
    float *a = malloc((size_t)(n * n) * sizeof *a), *b = malloc((size_t)(n * n) * sizeof *b);
    float *c = malloc((size_t)(n * n) * sizeof *c);
    if (!a || !b || !c) return 1;
    for (int64_t i = 0; i < n * n; i++) {
        a[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
        b[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
    }
    printf("float32 matmul %lld x %lld (%.2f GFLOP)\n", (long long)n, (long long)n,
           2.0 * n * n * n / 1e9);
    int rc = 0;
    loom_device_kind_t kinds[2] = {LOOM_DEVICE_CPU, LOOM_DEVICE_CUDA};
    for (int k = 0; k < 2; k++) {
        loom_options_t o = {0};
        o.device = kinds[k];
        loom_ctx_t *ctx;
        if (loom_ctx_create(&o, &ctx) != LOOM_STATUS_OK) {
            printf("  %-24s not available: %s\n", k ? "CUDA" : "CPU", loom_last_create_message());
            continue;
        }
        double ms = time_matmul(ctx, n, a, b, c);
        if (ms >= 0) {
            double err = 0; /* a few rows against the plain loop */
            for (int64_t i = 0; i < n; i += n / 7 + 1)
                for (int64_t j = 0; j < n; j++) {
                    double s = 0;
                    for (int64_t q = 0; q < n; q++) s += (double)a[i * n + q] * b[q * n + j];
                    err = fmax(err, fabs(s - c[i * n + j]));
                }
            printf("  %-24s %9.2f ms  %7.1f GFLOP/s  max abs error %.2g\n",
                   loom_ctx_device_name(ctx), ms, 2.0 * n * n * n / (ms * 1e6), err);
            if (err > 1e-3 * n) rc = 1;
        }
        loom_ctx_destroy(ctx);
    }
    free(a);
    free(b);
    free(c);
    return rc;
}
