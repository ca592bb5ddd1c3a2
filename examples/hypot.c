/* hypot — the classic migration check: the same expression, sqrt(x*x + y*y) over 20M float32,
 * on the GPU (one fused kernel) and on the CPU reference device; prints the time on each and
 * the largest difference. Without a GPU it says so and runs the reference alone.
 *
 *   hypot [--n N] [--dump DIR]     (--dump writes the generated kernel and graph to DIR) */
#include <loom.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* Builds and reads back hypot(x, y) on ctx; returns the milliseconds of the best of 3 runs. */
static double run(loom_ctx_t *ctx, int64_t n, const float *x, const float *y, float *z) {
    double best = 1e30;
    for (int rep = 0; rep < 3; rep++) {
        double t0 = now_ms();
        loom_scope_begin(ctx);
        loom_array_t *a = loom_borrow_host(ctx, LOOM_DTYPE_F32, 1, &n, x);
        loom_array_t *b = loom_borrow_host(ctx, LOOM_DTYPE_F32, 1, &n, y);
        loom_array_t *h =
            loom_sqrt(ctx, loom_add(ctx, loom_multiply(ctx, a, a), loom_multiply(ctx, b, b)));
        loom_read(ctx, h, z, (size_t)n * sizeof *z);
        loom_scope_end(ctx);
        double t = now_ms() - t0;
        if (t < best) best = t;
        if (loom_ctx_status(ctx) != LOOM_STATUS_OK) return -1;
    }
    return best;
}

int main(int argc, char **argv) {
    int64_t n = 20 * 1000 * 1000;
    const char *dump = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--n") && i + 1 < argc)
            n = atoll(argv[++i]);
        else if (!strcmp(argv[i], "--dump") && i + 1 < argc)
            dump = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--n N] [--dump DIR]\n", argv[0]);
            return 2;
        }
    }
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    float *zg = malloc(n * sizeof *zg), *zc = malloc(n * sizeof *zc);
    if (!x || !y || !zg || !zc) {
        fprintf(stderr, "out of memory for %lld elements\n", (long long)n);
        return 1;
    }
    uint32_t s = 12345;
    for (int64_t i = 0; i < n; i++) { /* deterministic data in [-100, 100) */
        s = s * 1664525u + 1013904223u;
        x[i] = (float)(s >> 8) / 16777216.0f * 200.0f - 100.0f;
        s = s * 1664525u + 1013904223u;
        y[i] = (float)(s >> 8) / 16777216.0f * 200.0f - 100.0f;
    }

    loom_ctx_t *cpu, *gpu = NULL;
    loom_options_t o = {0};
    o.device = LOOM_DEVICE_CPU;
    if (loom_ctx_create(&o, &cpu) != LOOM_STATUS_OK) {
        fprintf(stderr, "cannot create the CPU device: %s\n", loom_last_create_message());
        return 1;
    }
    o.device = LOOM_DEVICE_CUDA;
    o.dump_dir = dump;
    if (loom_ctx_create(&o, &gpu) != LOOM_STATUS_OK) {
        printf("notice: no GPU available (%s); running on the CPU reference device only\n",
               loom_last_create_message());
        gpu = NULL;
    }
    printf("hypot of %lld float32 elements\n", (long long)n);
    double tc = run(cpu, n, x, y, zc);
    if (tc < 0) {
        fprintf(stderr, "CPU reference failed: %s\n", loom_ctx_message(cpu));
        return 1;
    }
    printf("  %-28s %10.2f ms\n", loom_ctx_device_name(cpu), tc);
    int rc = 0;
    if (gpu) {
        double tg = run(gpu, n, x, y, zg);
        if (tg < 0) {
            fprintf(stderr, "GPU failed: %s\n", loom_ctx_message(gpu));
            return 1;
        }
        double err = 0;
        for (int64_t i = 0; i < n; i++) err = fmax(err, fabs((double)zg[i] - (double)zc[i]));
        printf("  %-28s %10.2f ms (host arrays in and out, best of 3)\n", loom_ctx_device_name(gpu),
               tg);
        printf("  max abs difference GPU vs CPU reference: %.3g\n", err);
        if (dump) printf("  generated kernels and graphs written to %s\n", dump);
        rc = err <= 1e-4 ? 0 : 1;
        loom_ctx_destroy(gpu);
    }
    double worst = 0;
    for (int64_t i = 0; i < n; i++) /* the reference against the C library */
        worst = fmax(worst, fabs((double)zc[i] - (double)hypotf(x[i], y[i])));
    printf("  max abs difference CPU reference vs C hypotf: %.3g\n", worst);
    if (worst > 1e-4) rc = 1;
    loom_ctx_destroy(cpu);
    free(x);
    free(y);
    free(zg);
    free(zc);
    return rc;
}
