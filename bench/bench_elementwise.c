/* bench_elementwise — elementwise workloads on the CUDA device: fused elementwise bandwidth
 * (hypot 20M / 64M, gelu 64M in the tanh form and the erf form (bench/peers_numerics.py runs
 * the peers' erf form), outer exp(a+b)*a 8192², the complex64 chain
 * abs(exp(1j * x) * z + conj(z)) over 64M), dispatch cost of a cached 15-op chain
 * on 1024 floats, compile latencies (cold NVRTC, disk hit, memory hit) and the pool's peak.
 * Timing: CUDA events on the context's stream around `inner` evals, warm-up first, median of
 * `reps` batches. Prints one line per workload: µs per call and GB/s (bytes that must move). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"

static loom_ctx_t *ctx;

/* Median µs per call of fn (bench_time_ms). */
static double time_us(bench_fn fn, void *arg, int reps, int inner) {
    return bench_time_ms(ctx, fn, arg, reps, inner, NULL) * 1e3;
}

/* Realised device arrays of uniform random float32 in [0, 1). */
static loom_array_t *dev_rand(uint64_t seed, int32_t nd, const int64_t *shape) {
    return bench_rand(ctx, seed, LOOM_DTYPE_F32, nd, shape, 0, 1);
}

static void report(const char *work, double us, double bytes) {
    if (bytes > 0)
        printf("%-34s %10.1f us  %7.3f TB/s\n", work, us, bytes / (us * 1e-6) / 1e12);
    else
        printf("%-34s %10.2f us\n", work, us);
    fflush(stdout);
}

typedef struct {
    loom_array_t *x, *y;
} pair_t;

static void hypot_once(void *arg) {
    pair_t *p = arg;
    loom_scope_begin(ctx);
    loom_array_t *h = loom_sqrt(
        ctx, loom_add(ctx, loom_multiply(ctx, p->x, p->x), loom_multiply(ctx, p->y, p->y)));
    loom_eval(ctx, 1, &h);
    loom_scope_end(ctx);
}

static void gelu_once(void *arg) {
    pair_t *p = arg;
    loom_array_t *x = p->x;
    loom_scope_begin(ctx);
    loom_array_t *inner = loom_multiply_f(
        ctx,
        loom_add(ctx, x,
                 loom_multiply_f(ctx, loom_multiply(ctx, loom_multiply(ctx, x, x), x), 0.044715)),
        0.7978845608);
    loom_array_t *g = loom_multiply(ctx, loom_multiply_f(ctx, x, 0.5),
                                    loom_add_f(ctx, loom_tanh(ctx, inner), 1.0));
    loom_eval(ctx, 1, &g);
    loom_scope_end(ctx);
}

/* NumPy/PyTorch's exact gelu: 0.5 x (1 + erf(x / sqrt(2))). */
static void gelu_erf_once(void *arg) {
    pair_t *p = arg;
    loom_scope_begin(ctx);
    loom_array_t *e = loom_erf(ctx, loom_multiply_f(ctx, p->x, 0.7071067811865476));
    loom_array_t *g = loom_multiply(ctx, loom_multiply_f(ctx, p->x, 0.5), loom_add_f(ctx, e, 1.0));
    loom_eval(ctx, 1, &g);
    loom_scope_end(ctx);
}

static void outer_once(void *arg) {
    pair_t *p = arg;
    loom_scope_begin(ctx);
    loom_array_t *r = loom_multiply(ctx, loom_exp(ctx, loom_add(ctx, p->x, p->y)), p->x);
    loom_eval(ctx, 1, &r);
    loom_scope_end(ctx);
}

/* abs(exp(1j * x) * z + conj(z)): x float32, z complex64, a float32 result. */
static void complex_once(void *arg) {
    pair_t *p = arg;
    loom_scope_begin(ctx);
    loom_array_t *e = loom_exp(ctx, loom_multiply(ctx, loom_weak_complex(ctx, 0, 1), p->x));
    loom_array_t *r =
        loom_abs(ctx, loom_add(ctx, loom_multiply(ctx, e, p->y), loom_conj(ctx, p->y)));
    loom_eval(ctx, 1, &r);
    loom_scope_end(ctx);
}

typedef struct {
    loom_array_t *x;
    float *out;
    bool read;
    const float *host;
} chain_t;

static void chain_once(void *arg) {
    chain_t *c = arg;
    loom_scope_begin(ctx);
    int64_t n = 1024;
    loom_array_t *a = c->host ? loom_from_host(ctx, LOOM_DTYPE_F32, 1, &n, c->host) : c->x;
    for (int i = 0; i < 5; i++)
        a = loom_add_f(ctx, loom_multiply_f(ctx, loom_sin(ctx, a), 1.5), 0.25);
    if (c->read)
        loom_read(ctx, a, c->out, 1024 * sizeof(float));
    else
        loom_eval(ctx, 1, &a);
    loom_scope_end(ctx);
}

static void bench_hypot(int64_t n, const char *name) {
    pair_t p = {dev_rand(1, 1, &n), dev_rand(2, 1, &n)};
    report(name, time_us(hypot_once, &p, 9, 10), 3.0 * 4 * (double)n);
    loom_array_release(p.x);
    loom_array_release(p.y);
}

/* Median NVRTC ms of `count` distinct kernels made by build(k) (each a new structure). */
static double compile_ms(loom_array_t *(*build)(loom_array_t *x, int k), loom_array_t *x,
                         int count) {
    double med[16];
    for (int k = 0; k < count; k++) {
        loom_stats_t s0, s1;
        loom_ctx_stats(ctx, &s0);
        loom_scope_begin(ctx);
        loom_array_t *a = build(x, k);
        loom_eval(ctx, 1, &a);
        loom_scope_end(ctx);
        loom_ctx_stats(ctx, &s1);
        med[k] =
            (s1.compile_ms - s0.compile_ms) / (double)(s1.kernel_compiles - s0.kernel_compiles);
    }
    return bench_median(med, count);
}

/* Typical fused kernels: hypot of x and a derived y, plus k more cheap ops. */
static loom_array_t *typical(loom_array_t *x, int k) {
    loom_array_t *y = loom_add_f(ctx, x, 1.0);
    loom_array_t *a =
        loom_sqrt(ctx, loom_add(ctx, loom_multiply(ctx, x, x), loom_multiply(ctx, y, y)));
    for (int j = 0; j < k; j++) a = j % 2 ? loom_add_f(ctx, a, 0.5) : loom_multiply_f(ctx, a, 1.5);
    return a;
}

/* Heavier ones: chains of 3..10 cos, multiply and add. */
static loom_array_t *heavy(loom_array_t *x, int k) {
    loom_array_t *a = x;
    for (int j = 0; j <= k + 2; j++)
        a = loom_add_f(ctx, loom_multiply_f(ctx, loom_cos(ctx, a), 1.25), 0.5);
    return a;
}

static void bench_compile(void) {
    int64_t n = 1024;
    loom_array_t *x = dev_rand(3, 1, &n);
    printf("%-34s %10.2f ms (median of 9 distinct hypot-like kernels)\n", "compile_cold_typical",
           compile_ms(typical, x, 9));
    printf("%-34s %10.2f ms (median of 8 chains of 3..10 cos)\n", "compile_cold_cos_chains",
           compile_ms(heavy, x, 8));
    loom_array_release(x);
}

int main(int argc, char **argv) {
    char cache[32];
    if (!(ctx = bench_cuda_ctx_cold(cache))) return 77;
    printf("loom %s on %s\n", LOOM_VERSION_STRING, loom_ctx_device_name(ctx));
    bench_hypot(20000000, "hypot_20M");
    bench_hypot(INT64_C(1) << 26, "hypot_64M");
    {
        int64_t n = INT64_C(1) << 26;
        pair_t p = {dev_rand(4, 1, &n), NULL};
        report("gelu_64M", time_us(gelu_once, &p, 9, 10), 2.0 * 4 * (double)n);
        report("gelu_erf_64M", time_us(gelu_erf_once, &p, 9, 10), 2.0 * 4 * (double)n);
        loom_array_release(p.x);
    }
    {
        int64_t col[2] = {8192, 1}, row[2] = {1, 8192};
        pair_t p = {dev_rand(5, 2, col), dev_rand(6, 2, row)};
        report("outer_8192x8192", time_us(outer_once, &p, 9, 10), 4.0 * 8192 * 8192);
        loom_array_release(p.x);
        loom_array_release(p.y);
    }
    {
        int64_t n = INT64_C(1) << 26;
        pair_t p = {dev_rand(8, 1, &n), NULL};
        loom_array_t *re = dev_rand(9, 1, &n), *im = dev_rand(10, 1, &n);
        p.y = loom_complex(ctx, re, im);
        loom_eval(ctx, 1, &p.y);
        loom_array_retain(p.y);
        report("complex64_chain_64M", time_us(complex_once, &p, 9, 10), 16.0 * (double)n);
        loom_array_release(p.x);
        loom_array_release(p.y);
        loom_array_release(re);
        loom_array_release(im);
    }
    if (argc > 1 && !strcmp(argv[1], "bw")) { /* bandwidth workloads only */
        loom_ctx_destroy(ctx);
        return 0;
    }
    {
        int64_t n = 1024;
        static float out[1024], host[1024];
        for (int i = 0; i < 1024; i++) host[i] = (float)i / 1024;
        chain_t c = {dev_rand(7, 1, &n), out, false, NULL};
        report("dispatch_15op_1k (no read)", time_us(chain_once, &c, 9, 500), 0);
        c.read = true;
        report("dispatch_15op_1k (with read)", time_us(chain_once, &c, 9, 200), 0);
        c.read = false;
        c.host = host;
        report("dispatch_15op_1k (new host input)", time_us(chain_once, &c, 9, 500), 0);
        loom_array_release(c.x);
    }
    bench_compile();
    {
        /* disk hit and memory hit: a second context on the same cache folder */
        loom_ctx_t *first = ctx;
        ctx = bench_cuda_ctx_on(cache);
        int64_t n = 1024;
        loom_array_t *x = dev_rand(3, 1, &n);
        loom_stats_t s0, s1;
        loom_ctx_stats(ctx, &s0);
        double t0 = base_now_ms();
        loom_scope_begin(ctx);
        loom_array_t *a = typical(x, 0); /* compiled by the first context: on disk now */
        loom_eval(ctx, 1, &a);
        loom_scope_end(ctx);
        double t_disk = base_now_ms() - t0;
        loom_ctx_stats(ctx, &s1);
        printf("%-34s %10.3f ms (eval incl. disk load; disk hits %llu, compiles %llu)\n",
               "compile_disk_hit", t_disk,
               (unsigned long long)(s1.kernel_disk_hits - s0.kernel_disk_hits),
               (unsigned long long)(s1.kernel_compiles - s0.kernel_compiles));
        /* the memory-cache lookup on a hit (what every eval of a cached kernel pays) */
        base_hash128_t key = {0x6c6f6f6d, 42};
        rt_kernel_t *k = NULL;
        rt_kernel_build(ctx->rt, key, "k_hit",
                        "extern \"C\" __global__ void k_hit(float *p) { p[0] = 1; }\n", &k);
        t0 = base_now_ms();
        int hits = 0;
        for (int i = 0; i < 1000000; i++) hits += rt_kernel_find(ctx->rt, key) == k;
        printf("%-34s %10.4f us per lookup (%d hits)\n", "compile_memory_hit",
               (base_now_ms() - t0) * 1e3 / 1e6, hits);
        loom_array_release(x);
        loom_ctx_destroy(ctx);
        ctx = first;
    }
    {
        /* memory: hypot over 64M from a fresh pool peaks at two inputs + one output */
        loom_ctx_t *first = ctx;
        ctx = bench_cuda_ctx_on(cache);
        int64_t n = INT64_C(1) << 26;
        pair_t p = {dev_rand(1, 1, &n), dev_rand(2, 1, &n)};
        hypot_once(&p);
        loom_sync(ctx);
        loom_stats_t s;
        loom_ctx_stats(ctx, &s);
        printf("%-34s peak %.0f MiB in use (inputs+output = %.0f MiB), held %.0f MiB\n",
               "memory_hypot_64M", s.pool_peak_in_use / 1048576.0, 3.0 * 4 * n / 1048576.0,
               s.pool_bytes_held / 1048576.0);
        loom_array_release(p.x);
        loom_array_release(p.y);
        loom_ctx_destroy(ctx);
        ctx = first;
    }
    loom_ctx_destroy(ctx);
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf %s", cache);
    return system(cmd) == 0 ? 0 : 1;
}
