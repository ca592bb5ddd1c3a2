/* test_threads — several contexts on several threads of one process, as loom documents it
 * (docs/guide.md, "Threads"): each thread makes contexts of its own and runs elementwise
 * chains, reductions, a scan, int32 and float32 products, a join, random numbers, .npy files
 * and the parser on them many times, checking every value (CPU and CUDA devices) or every
 * status and the kernel cache counters (the compile-only device, which computes no values). On
 * the nvrtc and cuda devices every context shares one disk kernel cache, fresh for the run:
 * kernels one thread compiled are loaded by the others, and each context after a thread's
 * first finds all of its kernels on disk. Also: one context handed between two threads under
 * a mutex, and the per-thread message of a failed loom_ctx_create.
 *
 * The device: argv[1] or LOOM_TEST_THREADS_DEVICE, "cpu" (default), "nvrtc" or "cuda"; exit 77
 * when it is not available. tools/test.sh runs the cpu and nvrtc variants under
 * ThreadSanitizer. Worker threads never call cmocka (its failures jump to the test's frame):
 * each records its first failed check, and the test asserts on them after joining. */
#define _GNU_SOURCE /* nftw */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <loom.h>

#include "../support/tmpdir.h"

#define N_THREADS 4
#define ROUNDS    3 /* contexts per thread, one after another */
#define ITERS     6 /* workload passes per context */
#define N         512
#define R         16 /* matrices: R x C, and C x K for the product */
#define C         24
#define K         8

/* Set by main and the tests before any worker starts; read-only in the workers. */
static struct {
    loom_device_kind_t device;
    bool values;  /* the device computes values (not the compile-only device) */
    bool kernels; /* the device compiles kernels through the disk cache */
    char root[128];
    char cache[512];  /* the disk kernel cache every context shares */
    char npy_in[160]; /* a .npy file every thread loads */
    float uniform[N]; /* loom_random_uniform(seed 1234, float32, [-1, 1)) on the CPU device */
} cfg;

typedef struct worker {
    int id;
    loom_stats_t stats[ROUNDS];
    pthread_mutex_t *shared_mu; /* the serialised test: guards shared_ctx */
    loom_ctx_t *shared_ctx;
    char failure[600]; /* the first failed check, "" if none */
} worker_t;

static bool failf(worker_t *w, int line, const char *fmt, ...) {
    if (w->failure[0]) return false;
    int n = snprintf(w->failure, sizeof w->failure, "thread %d, line %d: ", w->id, line);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->failure + n, sizeof w->failure - (size_t)n, fmt, ap);
    va_end(ap);
    return false;
}

/* In a worker: records the first failure and returns false from the calling function. */
#define EXPECT(w, cond, ...)                                                                       \
    do {                                                                                           \
        if (!(cond)) return failf(w, __LINE__, __VA_ARGS__);                                       \
    } while (0)
#define EXPECT_OK(w, ctx, st, what)                                                                \
    EXPECT(w, (st) == LOOM_STATUS_OK, "%s: %s (%s)", what, loom_status_string(st),                 \
           loom_ctx_message(ctx))

static loom_ctx_t *new_ctx(loom_device_kind_t device, const char *cache) {
    loom_options_t o = {0};
    o.device = device;
    o.cache_dir = cache;
    o.disable_disk_cache = cache == NULL;
    loom_ctx_t *ctx = NULL;
    return loom_ctx_create(&o, &ctx) == LOOM_STATUS_OK ? ctx : NULL;
}

/* Evaluates a and, on a device that computes values, reads it into dst. */
static loom_status_t fetch(loom_ctx_t *ctx, loom_array_t *a, void *dst, size_t bytes) {
    if (!cfg.values) return loom_eval(ctx, 1, &a);
    return loom_read(ctx, a, dst, bytes);
}

/* The same for n arrays evaluated together (loom_read_many): their kernels are shared. */
static loom_status_t fetch_many(loom_ctx_t *ctx, int32_t n, loom_array_t *const *a,
                                void *const *dst, const size_t *bytes) {
    if (!cfg.values) return loom_eval(ctx, n, a);
    return loom_read_many(ctx, n, a, dst, bytes);
}

static bool near(double got, double want, double rel) {
    return fabs(got - want) <= rel * (fabs(want) > 1 ? fabs(want) : 1);
}

/* ---- the workload: one pass, every value checked ---- */

/* sqrt(x*x + 1) * 0.5 - x / 4 in float32 (one fused kernel on a GPU), and its value. */
static loom_array_t *chain(loom_ctx_t *ctx, loom_array_t *xa) {
    loom_array_t *h =
        loom_multiply_f(ctx, loom_sqrt(ctx, loom_add_f(ctx, loom_square(ctx, xa), 1)), 0.5);
    return loom_subtract(ctx, h, loom_true_divide_f(ctx, xa, 4));
}

static float chain_value(float x) { return sqrtf(x * x + 1.0f) * 0.5f - x / 4.0f; }

static bool work_elementwise(worker_t *w, loom_ctx_t *ctx, int off, loom_array_t **x_out, float *x,
                             float *y) {
    int64_t n = N;
    for (int i = 0; i < N; i++) x[i] = (float)(i % 97) * 0.25f + (float)off;
    loom_array_t *xa = loom_from_host(ctx, LOOM_DTYPE_F32, 1, &n, x);
    EXPECT_OK(w, ctx, fetch(ctx, chain(ctx, xa), y, sizeof(float) * N), "elementwise chain");
    for (int i = 0; i < N && cfg.values; i++)
        EXPECT(w, near(y[i], chain_value(x[i]), 1e-6), "chain[%d] = %.9g, want %.9g", i, y[i],
               chain_value(x[i]));
    *x_out = xa;
    return true;
}

/* where(a % 3 == 0, a // 3, -a) and cumsum(a) on an int32 range. */
static bool work_integers(worker_t *w, loom_ctx_t *ctx, int off) {
    loom_array_t *a = loom_arange_int(ctx, off, off + N, 1, LOOM_DTYPE_I32);
    loom_array_t *r = loom_where(ctx, loom_equal_i(ctx, loom_remainder_i(ctx, a, 3), 0),
                                 loom_floor_divide_i(ctx, a, 3), loom_negative(ctx, a));
    loom_array_t *cs = loom_cumsum(ctx, a, 0);
    int32_t got[N];
    int64_t sums[N];
    loom_array_t *outs[2] = {r, cs};
    void *dsts[2] = {got, sums};
    size_t sizes[2] = {sizeof got, sizeof sums};
    EXPECT_OK(w, ctx, fetch_many(ctx, 2, outs, dsts, sizes), "where/floor_divide, cumsum");
    EXPECT(w, loom_array_dtype(cs) == LOOM_DTYPE_I64, "cumsum dtype %s",
           loom_dtype_name(loom_array_dtype(cs)));
    int64_t acc = 0;
    for (int i = 0; i < N && cfg.values; i++) {
        int32_t v = off + i;
        acc += v;
        EXPECT(w, got[i] == (v % 3 == 0 ? v / 3 : -v), "where[%d] = %d (a = %d)", i, got[i], v);
        EXPECT(w, sums[i] == acc, "cumsum[%d] = %lld, want %lld", i, (long long)sums[i],
               (long long)acc);
    }
    return true;
}

/* Row sums, column maxima, argmax of rows and the mean of an int64 matrix. */
static bool work_reductions(worker_t *w, loom_ctx_t *ctx, int off, int64_t *m,
                            loom_array_t **m_out) {
    int64_t shape[2] = {R, C};
    for (int i = 0; i < R * C; i++) m[i] = (i + off) % 11 - 5;
    loom_array_t *ma = loom_from_host(ctx, LOOM_DTYPE_I64, 2, shape, m);
    int32_t ax1 = 1, ax0 = 0;
    loom_array_t *rows = loom_sum(ctx, ma, 1, &ax1, 0);
    loom_array_t *cols = loom_max(ctx, ma, 1, &ax0, 0);
    loom_array_t *arg = loom_argmax(ctx, ma, 1, &ax1, 0);
    loom_array_t *mean = loom_mean(ctx, ma, -1, NULL, 0);
    int64_t rs[R], cm[C], am[R];
    double mv = 0;
    loom_array_t *outs[4] = {rows, cols, arg, mean};
    void *dsts[4] = {rs, cm, am, &mv};
    size_t sizes[4] = {sizeof rs, sizeof cm, sizeof am, sizeof mv};
    EXPECT_OK(w, ctx, fetch_many(ctx, 4, outs, dsts, sizes), "sum, max, argmax, mean");
    *m_out = ma;
    if (!cfg.values) return true;
    int64_t total = 0;
    for (int i = 0; i < R; i++) {
        int64_t s = 0;
        int best = 0;
        for (int j = 0; j < C; j++) {
            s += m[i * C + j];
            if (m[i * C + j] > m[i * C + best]) best = j;
        }
        total += s;
        EXPECT(w, rs[i] == s, "row sum %d = %lld, want %lld", i, (long long)rs[i], (long long)s);
        EXPECT(w, am[i] == best, "argmax %d = %lld, want %d", i, (long long)am[i], best);
    }
    for (int j = 0; j < C; j++) {
        int64_t mx = m[j];
        for (int i = 1; i < R; i++) mx = m[i * C + j] > mx ? m[i * C + j] : mx;
        EXPECT(w, cm[j] == mx, "column max %d = %lld, want %lld", j, (long long)cm[j],
               (long long)mx);
    }
    EXPECT(w, near(mv, (double)total / (R * C), 1e-12), "mean %.17g, want %.17g", mv,
           (double)total / (R * C));
    return true;
}

/* Products in int32 (a generated kernel on a GPU) and float32 (cuBLASLt on a GPU; nothing to
 * compile on the compile-only device) of small integers, exact either way, and a join along
 * the columns, plus one. */
static bool work_matmul_concat(worker_t *w, loom_ctx_t *ctx, int off) {
    int32_t a[R * C], b[C * K], p[R * K], j[R * 2 * C];
    float af[R * C], bf[C * K], pf[R * K];
    for (int i = 0; i < R * C; i++) af[i] = (float)(a[i] = (i / C + 2 * (i % C) + off) % 7 - 3);
    for (int i = 0; i < C * K; i++) bf[i] = (float)(b[i] = (3 * (i / K) + i % K) % 5 - 2);
    int64_t sa[2] = {R, C}, sb[2] = {C, K};
    loom_array_t *aa = loom_from_host(ctx, LOOM_DTYPE_I32, 2, sa, a);
    loom_array_t *ba = loom_from_host(ctx, LOOM_DTYPE_I32, 2, sb, b);
    loom_array_t *prod = loom_matmul(ctx, aa, ba);
    loom_array_t *prodf = loom_matmul(ctx, loom_from_host(ctx, LOOM_DTYPE_F32, 2, sa, af),
                                      loom_from_host(ctx, LOOM_DTYPE_F32, 2, sb, bf));
    loom_array_t *parts[2] = {aa, loom_multiply_i(ctx, aa, 2)};
    loom_array_t *joined = loom_add_i(ctx, loom_concatenate(ctx, 2, parts, 1), 1);
    loom_array_t *outs[3] = {prod, prodf, joined};
    void *dsts[3] = {p, pf, j};
    size_t sizes[3] = {sizeof p, sizeof pf, sizeof j};
    EXPECT_OK(w, ctx, fetch_many(ctx, 3, outs, dsts, sizes), "matmul, concatenate");
    for (int i = 0; i < R && cfg.values; i++) {
        for (int l = 0; l < K; l++) {
            int32_t s = 0;
            for (int k = 0; k < C; k++) s += a[i * C + k] * b[k * K + l];
            EXPECT(w, p[i * K + l] == s && pf[i * K + l] == (float)s,
                   "matmul[%d][%d] = %d (float32 %g), want %d", i, l, p[i * K + l], pf[i * K + l],
                   s);
        }
        for (int k = 0; k < 2 * C; k++) {
            int32_t want = (k < C ? a[i * C + k] : 2 * a[i * C + k - C]) + 1;
            EXPECT(w, j[i * 2 * C + k] == want, "concatenate[%d][%d] = %d, want %d", i, k,
                   j[i * 2 * C + k], want);
        }
    }
    return true;
}

/* The same seed gives the main thread's values bit for bit; another seed per thread. */
static bool work_random(worker_t *w, loom_ctx_t *ctx) {
    int64_t n = N;
    float u[N];
    double g[N];
    loom_array_t *ua = loom_random_uniform(ctx, 1234, LOOM_DTYPE_F32, 1, &n, -1, 1);
    loom_array_t *ga = loom_random_normal(ctx, 1000 + (uint64_t)w->id, LOOM_DTYPE_F64, 1, &n, 0, 1);
    loom_array_t *outs[2] = {ua, ga};
    void *dsts[2] = {u, g};
    size_t sizes[2] = {sizeof u, sizeof g};
    EXPECT_OK(w, ctx, fetch_many(ctx, 2, outs, dsts, sizes), "random_uniform, random_normal");
    if (!cfg.values) return true;
    EXPECT(w, !memcmp(u, cfg.uniform, sizeof u), "random_uniform differs from the main thread's");
    double mean = 0;
    for (int i = 0; i < N; i++) {
        EXPECT(w, isfinite(g[i]), "random_normal[%d] = %g", i, g[i]);
        mean += g[i] / N;
    }
    EXPECT(w, fabs(mean) < 0.3, "random_normal mean %g", mean);
    return true;
}

/* Saves y to a file of this thread and loads it back; loads the file every thread reads. */
static bool work_npy(worker_t *w, loom_ctx_t *ctx, const float *y) {
    char path[200];
    int64_t n = N;
    snprintf(path, sizeof path, "%s/thread%d.npy", cfg.root, w->id);
    loom_status_t st = loom_npy_save(ctx, loom_from_host(ctx, LOOM_DTYPE_F32, 1, &n, y), path);
    if (!cfg.values) { /* nothing to write: the compile-only device computes no values */
        EXPECT(w, st == LOOM_STATUS_NOT_AVAILABLE, "npy_save on nvrtc: %s", loom_status_string(st));
        loom_ctx_clear_error(ctx);
    } else {
        EXPECT_OK(w, ctx, st, "npy_save");
        float back[N];
        EXPECT_OK(w, ctx, loom_read(ctx, loom_npy_load(ctx, path), back, sizeof back), "npy_load");
        EXPECT(w, !memcmp(back, y, sizeof back), "%s does not read back as written", path);
    }
    double in[N];
    EXPECT_OK(w, ctx, fetch(ctx, loom_npy_load(ctx, cfg.npy_in), in, sizeof in), "npy_load");
    for (int i = 0; i < N && cfg.values; i++)
        EXPECT(w, in[i] == i, "%s [%d] = %g", cfg.npy_in, i, in[i]);
    return true;
}

/* loom_expr and loom_parse: the chain and two of the reductions again, as text (the same
 * kernels), checked against the builders' results. */
static bool work_parse(worker_t *w, loom_ctx_t *ctx, loom_array_t *xa, const float *y,
                       loom_array_t *ma, const int64_t *m) {
    const char *names[2] = {"x", "m"};
    loom_array_t *bound[2] = {xa, ma};
    float parsed[N];
    loom_array_t *e = loom_expr(ctx, "sqrt(square(x) + 1.0) * 0.5 - x / 4.0", 2, names, bound);
    EXPECT_OK(w, ctx, fetch(ctx, e, parsed, sizeof parsed), "loom_expr");
    loom_array_t *outs[2];
    const char *out_names[2] = {"rows", NULL};
    loom_status_t st =
        loom_parse(ctx, "rows = m.sum(axis=1)\nm.max(axis=0)", 2, names, bound, 2, out_names, outs);
    EXPECT_OK(w, ctx, st, "loom_parse");
    int64_t rows[R], cols[C];
    void *dsts[2] = {rows, cols};
    size_t sizes[2] = {sizeof rows, sizeof cols};
    EXPECT_OK(w, ctx, fetch_many(ctx, 2, outs, dsts, sizes), "parsed sum, max");
    if (!cfg.values) return true;
    EXPECT(w, !memcmp(parsed, y, sizeof parsed), "the parsed chain differs from the built one");
    for (int i = 0; i < R; i++) {
        int64_t s = 0;
        for (int j = 0; j < C; j++) s += m[i * C + j];
        EXPECT(w, rows[i] == s, "parsed row sum %d = %lld, want %lld", i, (long long)rows[i],
               (long long)s);
    }
    for (int j = 0; j < C; j++) {
        int64_t mx = m[j];
        for (int i = 1; i < R; i++) mx = m[i * C + j] > mx ? m[i * C + j] : mx;
        EXPECT(w, cols[j] == mx, "parsed column max %d = %lld, want %lld", j, (long long)cols[j],
               (long long)mx);
    }
    return true;
}

/* The chain over 1 MiB: on a GPU, transfers large enough for the context's copy threads. */
static bool work_large(worker_t *w, loom_ctx_t *ctx, int off) {
    enum { BIG = 1 << 18 };
    float *in = malloc(sizeof(float) * BIG), *out = malloc(sizeof(float) * BIG);
    bool ok = in && out;
    if (ok) {
        int64_t n = BIG;
        for (int i = 0; i < BIG; i++) in[i] = (float)(i % 1000 + off);
        loom_array_t *a = chain(ctx, loom_from_host(ctx, LOOM_DTYPE_F32, 1, &n, in));
        loom_status_t st = fetch(ctx, a, out, sizeof(float) * BIG);
        if (st)
            ok =
                failf(w, __LINE__, "1 MiB: %s (%s)", loom_status_string(st), loom_ctx_message(ctx));
        for (int i = 0; i < BIG && cfg.values && ok; i++)
            if (!near(out[i], chain_value(in[i]), 1e-6))
                ok = failf(w, __LINE__, "1 MiB chain [%d] = %.9g, want %.9g", i, out[i],
                           chain_value(in[i]));
    }
    free(in);
    free(out);
    return ok;
}

static bool workload(worker_t *w, loom_ctx_t *ctx, int iter) {
    int off = w->id * 5 + iter % 4; /* other data per thread and pass; the same kernels */
    float x[N], y[N];
    int64_t m[R * C];
    loom_array_t *xa = NULL, *ma = NULL;
    loom_scope_begin(ctx);
    bool ok = work_elementwise(w, ctx, off, &xa, x, y) && work_integers(w, ctx, off) &&
              work_reductions(w, ctx, off, m, &ma) && work_matmul_concat(w, ctx, off) &&
              work_random(w, ctx) && work_npy(w, ctx, y) && work_parse(w, ctx, xa, y, ma, m) &&
              (iter > 0 || work_large(w, ctx, off));
    loom_scope_end(ctx);
    return ok;
}

/* ---- threads ---- */

typedef void *(*thread_fn)(void *);

static void run_threads(int n, worker_t *w, thread_fn fn) {
    pthread_t th[N_THREADS];
    assert_true(n <= N_THREADS);
    for (int i = 0; i < n; i++) {
        w[i].id = i;
        assert_int_equal(pthread_create(&th[i], NULL, fn, &w[i]), 0);
    }
    for (int i = 0; i < n; i++) assert_int_equal(pthread_join(th[i], NULL), 0);
    int failed = 0;
    for (int i = 0; i < n; i++) {
        if (!w[i].failure[0]) continue;
        print_error("%s\n", w[i].failure);
        failed++;
    }
    assert_int_equal(failed, 0);
}

static bool check_cache_dir(worker_t *w, loom_ctx_t *ctx) {
    loom_info_t info;
    loom_ctx_info(ctx, &info);
    EXPECT(w, !strcmp(info.cache_dir, cfg.cache), "kernel cache folder \"%s\", want %s",
           info.cache_dir, cfg.cache);
    return true;
}

static bool rounds_of_workload(worker_t *w) {
    for (int r = 0; r < ROUNDS; r++) {
        loom_ctx_t *ctx = new_ctx(cfg.device, cfg.kernels ? cfg.cache : NULL);
        EXPECT(w, ctx, "round %d: loom_ctx_create: %s", r, loom_last_create_message());
        bool ok = !cfg.kernels || check_cache_dir(w, ctx);
        for (int i = 0; i < ITERS && ok; i++) ok = workload(w, ctx, i);
        loom_ctx_stats(ctx, &w->stats[r]);
        loom_ctx_destroy(ctx);
        if (!ok) return false;
    }
    return true;
}

static void *workload_main(void *arg) {
    rounds_of_workload(arg);
    return NULL;
}

/* Four threads at once, each with three contexts in turn on the shared cache: the first
 * contexts race to compile and store the same kernels; every later context of a thread finds
 * all of its kernels on disk (its thread's first context stored or loaded each). Every
 * context builds the same kernels, compiled or loaded. */
static void test_threads_contexts_in_parallel(void **state) {
    (void)state;
    worker_t w[N_THREADS] = {0};
    run_threads(N_THREADS, w, workload_main);
    if (!cfg.kernels) return;
    uint64_t built = w[0].stats[0].kernel_compiles + w[0].stats[0].kernel_disk_hits;
    assert_true(built > 0);
    for (int i = 0; i < N_THREADS; i++) {
        for (int r = 0; r < ROUNDS; r++) {
            const loom_stats_t *s = &w[i].stats[r];
            if (s->kernel_compiles + s->kernel_disk_hits != built || (r > 0 && s->kernel_compiles))
                print_error("thread %d context %d: %llu compiled, %llu from disk (want %llu "
                            "built%s)\n",
                            i, r, (unsigned long long)s->kernel_compiles,
                            (unsigned long long)s->kernel_disk_hits, (unsigned long long)built,
                            r > 0 ? ", all from disk" : "");
            assert_int_equal(s->kernel_compiles + s->kernel_disk_hits, built);
            if (r > 0) assert_int_equal(s->kernel_compiles, 0);
            assert_true(s->plan_hits > 0); /* later passes of a context reuse its plans */
        }
    }
    /* A context of the main thread afterwards loads every kernel the threads stored. */
    worker_t last = {.id = N_THREADS};
    loom_ctx_t *ctx = new_ctx(cfg.device, cfg.cache);
    assert_non_null(ctx);
    bool ok = workload(&last, ctx, 0);
    loom_stats_t s;
    loom_ctx_stats(ctx, &s);
    loom_ctx_destroy(ctx);
    if (!ok) print_error("%s\n", last.failure);
    assert_true(ok);
    assert_int_equal(s.kernel_compiles, 0);
    assert_int_equal(s.kernel_disk_hits, built);
}

static void *handoff_main(void *arg) {
    worker_t *w = arg;
    loom_ctx_t *ctx = new_ctx(cfg.device, cfg.cache);
    if (!ctx) {
        failf(w, __LINE__, "loom_ctx_create: %s", loom_last_create_message());
        return NULL;
    }
    if (check_cache_dir(w, ctx)) { /* a few kernels of the workload: compiles cost time */
        float x[N], y[N];
        loom_array_t *xa;
        loom_scope_begin(ctx);
        if (work_elementwise(w, ctx, w->id, &xa, x, y)) work_random(w, ctx);
        loom_scope_end(ctx);
    }
    loom_ctx_stats(ctx, &w->stats[0]);
    loom_ctx_destroy(ctx);
    return NULL;
}

/* Kernels one thread's context compiled are found on disk by another thread's context. */
static void test_threads_kernels_found_by_another_thread(void **state) {
    (void)state;
    if (!cfg.kernels) skip();
    char shared[sizeof cfg.cache];
    memcpy(shared, cfg.cache, sizeof shared);
    snprintf(cfg.cache, sizeof cfg.cache, "%s/handoff", cfg.root); /* a folder of its own */
    worker_t first = {0}, second = {0};
    run_threads(1, &first, handoff_main);
    run_threads(1, &second, handoff_main);
    memcpy(cfg.cache, shared, sizeof shared);
    assert_true(first.stats[0].kernel_compiles > 0);
    assert_int_equal(first.stats[0].kernel_disk_hits, 0);
    assert_int_equal(second.stats[0].kernel_compiles, 0);
    assert_int_equal(second.stats[0].kernel_disk_hits, first.stats[0].kernel_compiles);
}

static void *serialised_main(void *arg) {
    worker_t *w = arg;
    for (int i = 0; i < ITERS && !w->failure[0]; i++) {
        pthread_mutex_lock(w->shared_mu);
        workload(w, w->shared_ctx, i);
        pthread_mutex_unlock(w->shared_mu);
    }
    return NULL;
}

/* The documented rule for one context on several threads: allowed when the caller serialises
 * the calls (here a mutex); the context, made on the main thread, moves between threads. */
static void test_threads_one_context_serialised(void **state) {
    (void)state;
    pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    loom_ctx_t *ctx = new_ctx(cfg.device, cfg.kernels ? cfg.cache : NULL);
    assert_non_null(ctx);
    worker_t w[2] = {{.shared_mu = &mu, .shared_ctx = ctx}, {.shared_mu = &mu, .shared_ctx = ctx}};
    run_threads(2, w, serialised_main);
    assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_OK);
    loom_ctx_destroy(ctx);
}

/* loom_last_create_message is per thread: a failure on one thread does not replace the
 * message another thread is about to read. */
static pthread_barrier_t create_barrier;

static void *failed_create_main(void *arg) {
    worker_t *w = arg;
    loom_options_t o = {0};
    o.device = (loom_device_kind_t)(90 + w->id); /* "unknown device kind 9X" */
    char want[64];
    snprintf(want, sizeof want, "unknown device kind %d", 90 + w->id);
    loom_ctx_t *ctx = NULL;
    for (int turn = 0; turn < 2; turn++) { /* thread 0 fails first, then thread 1 */
        if (turn == w->id && loom_ctx_create(&o, &ctx) != LOOM_STATUS_INVALID_ARGUMENT)
            failf(w, __LINE__, "loom_ctx_create accepted device kind %d", 90 + w->id);
        pthread_barrier_wait(&create_barrier);
    }
    if (!strstr(loom_last_create_message(), want))
        failf(w, __LINE__, "message \"%s\", want \"%s\"", loom_last_create_message(), want);
    return NULL;
}

static void test_threads_create_message_per_thread(void **state) {
    (void)state;
    worker_t w[2] = {0};
    assert_int_equal(pthread_barrier_init(&create_barrier, NULL, 2), 0);
    run_threads(2, w, failed_create_main);
    pthread_barrier_destroy(&create_barrier);
}

/* ---- setup ---- */

/* The temp folder, the .npy every thread loads and the CPU device's random reference. */
static int setup(void **state) {
    (void)state;
    const char *tmp = getenv("TMPDIR");
    snprintf(cfg.root, sizeof cfg.root, "%s/loom-threads-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(cfg.root)) return -1;
    snprintf(cfg.npy_in, sizeof cfg.npy_in, "%s/in.npy", cfg.root);
    /* Fresh in root; or a folder of LOOM_TEST_KERNEL_CACHE, which tools/test.sh makes fresh
     * for a whole run and shares between its builds (the sanitizer builds then load kernels
     * instead of compiling them behind the sanitizer's allocator). The counts checked hold
     * either way. */
    const char *shared = getenv("LOOM_TEST_KERNEL_CACHE");
    if ((size_t)snprintf(cfg.cache, sizeof cfg.cache, "%s/%s",
                         shared && *shared ? shared : cfg.root,
                         shared && *shared ? "threads" : "cache") >= sizeof cfg.cache)
        return -1;
    loom_ctx_t *ctx = new_ctx(LOOM_DEVICE_CPU, NULL);
    if (!ctx) return -1;
    int64_t n = N;
    loom_status_t st = loom_npy_save(ctx, loom_arange(ctx, 0, N, 1, LOOM_DTYPE_F64), cfg.npy_in);
    if (!st)
        st = loom_read(ctx, loom_random_uniform(ctx, 1234, LOOM_DTYPE_F32, 1, &n, -1, 1),
                       cfg.uniform, sizeof cfg.uniform);
    if (st) print_error("setup: %s\n", loom_ctx_message(ctx));
    loom_ctx_destroy(ctx);
    return st ? -1 : 0;
}

static int teardown(void **state) {
    (void)state;
    tmpdir_remove(cfg.root);
    return 0;
}

int main(int argc, char **argv) {
    const char *env = getenv("LOOM_TEST_THREADS_DEVICE");
    const char *name = argc > 1 ? argv[1] : env && *env ? env : "cpu";
    int kind = loom_device_from_name(name, NULL);
    if (kind != LOOM_DEVICE_CPU && kind != LOOM_DEVICE_NVRTC && kind != LOOM_DEVICE_CUDA) {
        fprintf(stderr, "test_threads: device \"%s\" is not cpu, nvrtc or cuda\n", name);
        return 2;
    }
    cfg.device = (loom_device_kind_t)kind;
    cfg.values = kind != LOOM_DEVICE_NVRTC;
    cfg.kernels = kind != LOOM_DEVICE_CPU;
    loom_options_t o = {.device = cfg.device, .disable_disk_cache = 1};
    loom_ctx_t *probe = NULL;
    loom_status_t st = loom_ctx_create(&o, &probe);
    if (st != LOOM_STATUS_OK) {
        fprintf(stderr, "test_threads: no %s device: %s\n", name, loom_last_create_message());
        return st == LOOM_STATUS_NOT_AVAILABLE || st == LOOM_STATUS_NO_DRIVER ||
                       st == LOOM_STATUS_NO_DEVICE
                   ? 77
                   : 1;
    }
    loom_ctx_destroy(probe);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_contexts_in_parallel),
        cmocka_unit_test(test_threads_kernels_found_by_another_thread),
        cmocka_unit_test(test_threads_one_context_serialised),
        cmocka_unit_test(test_threads_create_message_per_thread),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
