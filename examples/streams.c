/* streams — pinned memory and two streams overlapping copies with compute: chunks of float32
 * (default 16 of 4M) in pinned memory (loom_host_alloc) go through y = sqrt(x*x + 1) * 0.5.
 * Two contexts, each with its own CUDA stream, take alternate chunks. Serialized: each chunk's
 * upload, kernel and download finish before the next starts. Overlapped: chunk k+1 is queued on
 * the other context before chunk k is read, so its upload and kernel run during k's download.
 * Prints both times and the largest difference from a host computation. On the CPU device it
 * runs smaller by default and says that overlap needs a GPU.
 *
 *   streams [--chunks N] [--n ELEMENTS_PER_CHUNK] */
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

static loom_array_t *expr(loom_ctx_t *ctx, loom_array_t *x) { /* one fused kernel */
    loom_array_t *s = loom_sqrt(ctx, loom_add_f(ctx, loom_multiply(ctx, x, x), 1.0));
    return loom_multiply_f(ctx, s, 0.5);
}

int main(int argc, char **argv) {
    int chunks = 16;
    int64_t n = 0;
    int bad = argc % 2 == 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--chunks"))
            chunks = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--n"))
            n = atoll(argv[i + 1]);
        else
            bad = 1;
    }
    if (bad || chunks < 1 || chunks > 1024 || n < 0) {
        fprintf(stderr, "usage: %s [--chunks N] [--n ELEMENTS_PER_CHUNK]\n", argv[0]);
        return 2;
    }
    loom_ctx_t *ctx[2];
    if (loom_ctx_create(NULL, &ctx[0]) != LOOM_STATUS_OK ||
        loom_ctx_create(NULL, &ctx[1]) != LOOM_STATUS_OK) { /* auto: the GPU, else the CPU */
        fprintf(stderr, "loom: %s\n", loom_last_create_message());
        return 1;
    }
    int gpu = loom_ctx_device(ctx[0]) == LOOM_DEVICE_CUDA;
    if (!gpu) /* still a correct run, at a smaller default size */
        printf("notice: running on %s; overlapping copies with compute needs a GPU\n",
               loom_ctx_device_name(ctx[0]));
    if (n == 0) n = gpu ? 4 << 20 : 1 << 16;
    size_t bytes = (size_t)n * sizeof(float);
    float *in[1024], *out[1024]; /* chunk k lives in pinned memory of the context that runs it */
    loom_array_t *x[1024];
    for (int k = 0; k < chunks; k++) {
        loom_ctx_t *c = ctx[k % 2];
        in[k] = loom_host_alloc(c, bytes);
        out[k] = loom_host_alloc(c, bytes);
        x[k] = loom_borrow_host(c, LOOM_DTYPE_F32, 1, &n, in[k]); /* no copy; lives with c */
        if (!in[k] || !out[k]) return fprintf(stderr, "loom: %s\n", loom_ctx_message(c)), 1;
    }
    printf("%d chunks of %lld float32 (%.0f MiB in, as much out) on %s\n", chunks, (long long)n,
           chunks * bytes / 1048576.0, loom_ctx_device_name(ctx[0]));
    const char *names[3] = {"warm-up", "serialized", "overlapped"};
    double worst = 0;
    for (int pass = 0; pass < 3; pass++) {
        /* New inputs: every earlier eval reading them was synchronised by its loom_read. */
        for (int k = 0; k < chunks; k++) {
            for (int64_t i = 0; i < n; i++) in[k][i] = (float)((i + k) % 1000) * 0.01f - 5 + pass;
            loom_array_host_changed(ctx[k % 2], x[k]); /* the next eval uploads it again */
        }
        double t0 = now_ms();
        loom_array_t *pending[2] = {NULL, NULL};
        for (int k = 0; k <= chunks; k++) {
            if (pass < 2 && k < chunks) { /* eval and read, one chunk at a time */
                loom_scope_begin(ctx[k % 2]);
                loom_read(ctx[k % 2], expr(ctx[k % 2], x[k]), out[k], bytes);
                loom_scope_end(ctx[k % 2]);
            } else if (pass == 2) {
                if (k < chunks) { /* queue chunk k (upload, kernel) without waiting */
                    loom_scope_begin(ctx[k % 2]);
                    pending[k % 2] = expr(ctx[k % 2], x[k]);
                    loom_eval(ctx[k % 2], 1, &pending[k % 2]);
                }
                if (k > 0) { /* then wait for chunk k-1 on the other context */
                    loom_read(ctx[(k - 1) % 2], pending[(k - 1) % 2], out[k - 1], bytes);
                    loom_scope_end(ctx[(k - 1) % 2]);
                }
            }
        }
        double ms = now_ms() - t0;
        for (int c = 0; c < 2; c++)
            if (loom_ctx_status(ctx[c]) != LOOM_STATUS_OK)
                return fprintf(stderr, "loom: %s\n", loom_ctx_message(ctx[c])), 1;
        for (int k = 0; k < chunks; k++)
            for (int64_t i = 0; i < n; i++)
                worst = fmax(worst, fabs(out[k][i] - sqrt((double)in[k][i] * in[k][i] + 1) * 0.5));
        if (pass > 0)
            printf("  %-10s %9.2f ms  %6.1f GB/s in+out\n", names[pass], ms,
                   2.0 * chunks * bytes / ms / 1e6);
    }
    printf("  max abs error vs host: %.3g\n", worst);
    loom_ctx_destroy(ctx[0]); /* frees the arrays and the pinned blocks */
    loom_ctx_destroy(ctx[1]);
    return worst <= 1e-5 ? 0 : 1;
}
