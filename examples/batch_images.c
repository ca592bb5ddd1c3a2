/* batch_images — 1000 grayscale images of 32x32 float32 from ordinary (pageable) host memory,
 * each its own array, each computed as x * 2 + 1 and read back: the seed's batching lesson,
 * done by loom. The 1000 uploads become one copy, the 1000 expressions one kernel (horizontal
 * batching) and the 1000 reads one copy; the transfer statistics show it (copies are DMA
 * operations through pinned staging).
 *
 *     batch_images [--images N] [--reps R]      (LOOM_DEVICE=cpu|cuda to choose)
 */
#include <loom.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

int main(int argc, char **argv) {
    int64_t images = 1000;
    int reps = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--images")) images = atoll(argv[i + 1]);
        if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
    }
    int64_t shape[2] = {32, 32}, n = images * 32 * 32;
    float *in = malloc((size_t)n * sizeof *in), *out = malloc((size_t)n * sizeof *out);
    loom_array_t **y = malloc((size_t)images * sizeof *y);
    void **dst = malloc((size_t)images * sizeof *dst);
    size_t *bytes = malloc((size_t)images * sizeof *bytes);
    if (!in || !out || !y || !dst || !bytes) return 1;
    for (int64_t i = 0; i < n; i++) in[i] = (float)(i % 251) / 250.0f; /* pixel values */

    loom_ctx_t *ctx;
    if (loom_ctx_create(NULL, &ctx) != LOOM_STATUS_OK) {
        fprintf(stderr, "loom: %s\n", loom_last_create_message());
        return 1;
    }
    double best = 1e30;
    loom_stats_t s0 = {0}, s = {0};
    for (int r = 0; r < reps; r++) {
        loom_ctx_stats(ctx, &s0);
        double t0 = now_ms();
        loom_scope_begin(ctx);
        for (int64_t i = 0; i < images; i++) { /* one array per image, as a loader hands them */
            loom_array_t *x = loom_from_host(ctx, LOOM_DTYPE_F32, 2, shape, in + i * 1024);
            y[i] = loom_add_f(ctx, loom_multiply_f(ctx, x, 2.0), 1.0);
            dst[i] = out + i * 1024;
            bytes[i] = 1024 * sizeof *out;
        }
        loom_status_t st = loom_read_many(ctx, (int32_t)images, y, dst, bytes);
        loom_scope_end(ctx);
        double t = now_ms() - t0;
        if (st != LOOM_STATUS_OK) {
            fprintf(stderr, "loom: %s\n", loom_ctx_message(ctx));
            return 1;
        }
        if (t < best) best = t;
        loom_ctx_stats(ctx, &s);
    }
    for (int64_t i = 0; i < n; i++)
        if (out[i] != in[i] * 2.0f + 1.0f) {
            fprintf(stderr, "wrong value at %lld: %g\n", (long long)i, out[i]);
            return 1;
        }
    printf("%lld images 32x32 on %s: round trip %.3f ms (best of %d)\n", (long long)images,
           loom_ctx_device_name(ctx), best, reps);
    printf("last round: %llu kernels, h2d %llu copies %llu bytes, d2h %llu copies %llu bytes\n",
           (unsigned long long)(s.kernels_launched - s0.kernels_launched),
           (unsigned long long)(s.h2d_copies - s0.h2d_copies),
           (unsigned long long)(s.h2d_bytes - s0.h2d_bytes),
           (unsigned long long)(s.d2h_copies - s0.d2h_copies),
           (unsigned long long)(s.d2h_bytes - s0.d2h_bytes));
    loom_ctx_destroy(ctx);
    free(in);
    free(out);
    free(y);
    free(dst);
    free(bytes);
    return 0;
}
