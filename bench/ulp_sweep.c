/* ulp_sweep — the accuracy of loom's float32 special functions over their whole domain: every
 * `stride`-th float32 bit pattern (default 1: all 2^32, both signs, subnormals to infinities
 * and NaNs) evaluated on the CUDA device and on the CPU reference device (one CPU context per
 * thread). For each function it prints how many results differ between the devices and by how
 * many ulps at most, and, for erf, erfc and lgamma, the largest distance of each device from
 * the correctly rounded value (glibc's long double functions, rounded to float32). Not a test:
 * a measurement for docs/guide.md.
 *
 *     ulp_sweep [stride [threads [function]]]        (needs a GPU; all functions by default) */
#define _GNU_SOURCE /* lgammal_r: lgammal writes the global signgam, and threads share it */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loom.h"

typedef loom_array_t *(*unary_fn)(loom_ctx_t *, loom_array_t *);

static long double lgamma_ld(long double x) {
    int sign;
    return lgammal_r(x, &sign);
}

static const struct {
    const char *name;
    unary_fn fn;
    long double (*ref)(long double); /* correctly rounded reference, where glibc has one */
} fns[] = {
    {"erf", loom_erf, erfl},
    {"erfc", loom_erfc, erfcl},
    {"erfinv", loom_erfinv, NULL},
    {"erfcinv", loom_erfcinv, NULL},
    {"lgamma", loom_lgamma, lgamma_ld},
    {"digamma", loom_digamma, NULL},
    {"i0", loom_i0, NULL},
    {"sinc", loom_sinc, NULL},
};

#define CHUNK ((int64_t)1 << 26) /* inputs per GPU evaluation */

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

static void evaluate(loom_ctx_t *ctx, unary_fn fn, const float *in, int64_t n, float *out) {
    loom_scope_begin(ctx);
    loom_array_t *x = loom_from_host(ctx, LOOM_DTYPE_F32, 1, &n, in);
    loom_array_t *y = fn(ctx, x);
    if (loom_read(ctx, y, out, (size_t)n * 4) != LOOM_STATUS_OK) {
        fprintf(stderr, "error: %s\n", loom_ctx_message(ctx));
        exit(1);
    }
    loom_scope_end(ctx);
}

/* One thread's share of a chunk: the CPU device's values, compared with the GPU's. */
typedef struct work {
    loom_ctx_t *cpu;
    size_t f;
    const float *in, *gpu;
    float *cpu_out;
    int64_t n;
    int64_t differ;
    uint64_t worst, cr_cpu, cr_gpu;
    float worst_x;
} work_t;

static void *compare(void *arg) {
    work_t *w = arg;
    evaluate(w->cpu, fns[w->f].fn, w->in, w->n, w->cpu_out);
    for (int64_t i = 0; i < w->n; i++) {
        uint64_t d = ulp_dist(w->gpu[i], w->cpu_out[i]);
        if (d) w->differ++;
        if (d > w->worst) w->worst = d, w->worst_x = w->in[i];
        if (fns[w->f].ref && !isnan(w->in[i])) {
            float r = (float)fns[w->f].ref((long double)w->in[i]);
            uint64_t dc = ulp_dist(w->cpu_out[i], r), dg = ulp_dist(w->gpu[i], r);
            if (dc > w->cr_cpu) w->cr_cpu = dc;
            if (dg > w->cr_gpu) w->cr_gpu = dg;
        }
    }
    return NULL;
}

int main(int argc, char **argv) {
    int64_t stride = argc > 1 ? atoll(argv[1]) : 1;
    int nt = argc > 2 ? atoi(argv[2]) : 16;
    if (stride < 1) stride = 1;
    if (nt < 1 || nt > 256) nt = 16;
    const char *only = argc > 3 ? argv[3] : NULL;
    loom_options_t og = {.device = LOOM_DEVICE_CUDA}, oc = {.device = LOOM_DEVICE_CPU};
    loom_ctx_t *gpu, *cpu[256];
    if (loom_ctx_create(&og, &gpu) != LOOM_STATUS_OK) {
        fprintf(stderr, "ulp_sweep: no CUDA device\n");
        return 77;
    }
    for (int t = 0; t < nt; t++) loom_ctx_create(&oc, &cpu[t]);
    int64_t total = (int64_t)((1ull << 32) / (uint64_t)stride);
    float *in = malloc((size_t)CHUNK * 4), *g = malloc((size_t)CHUNK * 4),
          *c = malloc((size_t)CHUNK * 4);
    printf("%-8s %11s %9s %9s %11s %11s %11s\n", "function", "inputs", "differ", "max_ulp",
           "worst_x", "cpu_vs_cr", "gpu_vs_cr");
    for (size_t f = 0; f < sizeof fns / sizeof *fns; f++) {
        if (only && strcmp(only, fns[f].name) != 0) continue;
        work_t sum = {.f = f};
        for (int64_t at = 0; at < total; at += CHUNK) {
            int64_t n = total - at < CHUNK ? total - at : CHUNK;
            for (int64_t i = 0; i < n; i++) {
                uint32_t u = (uint32_t)((uint64_t)(at + i) * (uint64_t)stride);
                memcpy(&in[i], &u, 4);
            }
            evaluate(gpu, fns[f].fn, in, n, g);
            work_t w[256];
            pthread_t th[256];
            for (int t = 0; t < nt; t++) {
                int64_t lo = n * t / nt, hi = n * (t + 1) / nt;
                w[t] = (work_t){.cpu = cpu[t],
                                .f = f,
                                .in = in + lo,
                                .gpu = g + lo,
                                .cpu_out = c + lo,
                                .n = hi - lo};
                pthread_create(&th[t], NULL, compare, &w[t]);
            }
            for (int t = 0; t < nt; t++) {
                pthread_join(th[t], NULL);
                sum.differ += w[t].differ;
                if (w[t].worst > sum.worst) sum.worst = w[t].worst, sum.worst_x = w[t].worst_x;
                if (w[t].cr_cpu > sum.cr_cpu) sum.cr_cpu = w[t].cr_cpu;
                if (w[t].cr_gpu > sum.cr_gpu) sum.cr_gpu = w[t].cr_gpu;
            }
        }
        char a[16] = "-", b[16] = "-";
        if (fns[f].ref) {
            snprintf(a, sizeof a, "%llu", (unsigned long long)sum.cr_cpu);
            snprintf(b, sizeof b, "%llu", (unsigned long long)sum.cr_gpu);
        }
        printf("%-8s %11lld %9lld %9llu %11.4g %11s %11s\n", fns[f].name, (long long)total,
               (long long)sum.differ, (unsigned long long)sum.worst, sum.worst_x, a, b);
        fflush(stdout);
    }
    free(in);
    free(g);
    free(c);
    for (int t = 0; t < nt; t++) loom_ctx_destroy(cpu[t]);
    loom_ctx_destroy(gpu);
    return 0;
}
