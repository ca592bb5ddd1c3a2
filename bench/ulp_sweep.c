/* ulp_sweep — the accuracy of loom's float32 special functions over their whole domain: every
 * `stride`-th float32 bit pattern (default 64: 2^26 inputs, both signs, subnormals to
 * infinities) evaluated on the CUDA device and on the CPU reference device. For each function
 * it prints how many results differ between the devices and by how many ulps at most, and,
 * for erf, erfc and lgamma, the largest distance of each device from the correctly rounded
 * value (glibc's long double functions, rounded to float32). Not a test: a measurement for
 * docs/guide.md.
 *
 *     ulp_sweep [stride]        (needs a GPU) */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loom.h"

typedef loom_array_t *(*unary_fn)(loom_ctx_t *, loom_array_t *);

static const struct {
    const char *name;
    unary_fn fn;
    long double (*ref)(long double); /* correctly rounded reference, where glibc has one */
} fns[] = {
    {"erf", loom_erf, erfl},         {"erfc", loom_erfc, erfcl},     {"erfinv", loom_erfinv, NULL},
    {"erfcinv", loom_erfcinv, NULL}, {"lgamma", loom_lgamma, lgammal}, {"digamma", loom_digamma, NULL},
    {"i0", loom_i0, NULL},           {"sinc", loom_sinc, NULL},
};

static uint32_t fbits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* Distance in ulps between two float32 values (NaN to NaN: 0; NaN to a number: UINT32_MAX). */
static uint64_t ulp_dist(float a, float b) {
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b) ? 0 : UINT32_MAX;
    uint32_t x = fbits(a), y = fbits(b);
    int64_t kx = x >> 31 ? -(int64_t)(x & 0x7fffffff) : (int64_t)x;
    int64_t ky = y >> 31 ? -(int64_t)(y & 0x7fffffff) : (int64_t)y;
    return (uint64_t)(kx > ky ? kx - ky : ky - kx);
}

static float *run(loom_ctx_t *ctx, unary_fn fn, const float *in, int64_t n) {
    loom_scope_begin(ctx);
    loom_array_t *x = loom_from_host(ctx, LOOM_DTYPE_F32, 1, &n, in);
    loom_array_t *y = fn(ctx, x);
    float *out = malloc((size_t)n * 4);
    if (!out || loom_read(ctx, y, out, (size_t)n * 4) != LOOM_STATUS_OK) {
        fprintf(stderr, "error: %s\n", loom_ctx_message(ctx));
        exit(1);
    }
    loom_scope_end(ctx);
    return out;
}

int main(int argc, char **argv) {
    int64_t stride = argc > 1 ? atoll(argv[1]) : 64;
    if (stride < 1) stride = 1;
    loom_options_t og = {.device = LOOM_DEVICE_CUDA}, oc = {.device = LOOM_DEVICE_CPU};
    loom_ctx_t *gpu, *cpu;
    if (loom_ctx_create(&og, &gpu) != LOOM_STATUS_OK) {
        fprintf(stderr, "ulp_sweep: no CUDA device\n");
        return 77;
    }
    loom_ctx_create(&oc, &cpu);
    int64_t n = (int64_t)((1ull << 32) / (uint64_t)stride);
    float *in = malloc((size_t)n * 4);
    for (int64_t i = 0; i < n; i++) {
        uint32_t u = (uint32_t)((uint64_t)i * (uint64_t)stride);
        memcpy(&in[i], &u, 4);
    }
    printf("%-8s %11s %9s %9s %9s %11s %11s\n", "function", "inputs", "differ", "max_ulp", "worst_x",
           "cpu_vs_cr", "gpu_vs_cr");
    for (size_t f = 0; f < sizeof fns / sizeof *fns; f++) {
        float *g = run(gpu, fns[f].fn, in, n), *c = run(cpu, fns[f].fn, in, n);
        int64_t differ = 0;
        uint64_t worst = 0, cr_cpu = 0, cr_gpu = 0;
        float worst_x = 0;
        for (int64_t i = 0; i < n; i++) {
            uint64_t d = ulp_dist(g[i], c[i]);
            if (d) differ++;
            if (d > worst) worst = d, worst_x = in[i];
            if (fns[f].ref && !isnan(in[i])) {
                float r = (float)fns[f].ref((long double)in[i]);
                uint64_t dc = ulp_dist(c[i], r), dg = ulp_dist(g[i], r);
                if (dc > cr_cpu) cr_cpu = dc;
                if (dg > cr_gpu) cr_gpu = dg;
            }
        }
        char a[16] = "-", b[16] = "-";
        if (fns[f].ref) {
            snprintf(a, sizeof a, "%llu", (unsigned long long)cr_cpu);
            snprintf(b, sizeof b, "%llu", (unsigned long long)cr_gpu);
        }
        printf("%-8s %11lld %9lld %9llu %9.3g %11s %11s\n", fns[f].name, (long long)n,
               (long long)differ, (unsigned long long)worst, worst_x, a, b);
        fflush(stdout);
        free(g);
        free(c);
    }
    free(in);
    loom_ctx_destroy(cpu);
    loom_ctx_destroy(gpu);
    return 0;
}
