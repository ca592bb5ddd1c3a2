/* test_reduce — reductions and scans on the CUDA device against the CPU reference device,
 * through the public API: every reduction × dtype × axis set (all, none, negative, mixed),
 * non-contiguous operands (transposed, sliced, flipped), row lengths around warp and block
 * sizes up to 1M, the split shapes (65536 × 64, 64 × 1M, full reductions), softmax and
 * layernorm written with loom ops (and how many kernels they take), softmax over rows split
 * across blocks (online max and sum: two kernels; -inf, NaN, +inf, large and ascending rows,
 * every float dtype; bit-identical repeats), mean/var and
 * sum((x - y)**2) in one kernel, empty reductions, scans, and bit-identical repeated sums.
 * Float sums may add in another order than the CPU's: they compare within a tolerance
 * scaled by the magnitude of what was summed. Exit 77 without a GPU. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../support/check.h"
#include "../support/gpu_ref.h"

static gpu_ref_t ref;         /* LOOM_TEST_SELF_CHECK=1: ref.gpu is a second CPU context */
static loom_ctx_t *gpu, *cpu; /* ref.gpu and ref.cpu */

static const loom_dtype_t dtypes[] = {LOOM_DTYPE_BOOL, LOOM_DTYPE_I8,  LOOM_DTYPE_I32,
                                      LOOM_DTYPE_I64,  LOOM_DTYPE_U64, LOOM_DTYPE_F16,
                                      LOOM_DTYPE_BF16, LOOM_DTYPE_F32, LOOM_DTYPE_F64};
#define N_DTYPES ((int)(sizeof dtypes / sizeof dtypes[0]))

/* Deterministic test values of dtype d: a few edge values (NaN at index 12 when `nan`),
 * then a spread in [-10, 10) (small ints). */
static void fill(loom_dtype_t d, uint64_t *bits, int64_t n, uint32_t seed, bool nan) {
    static const double edges[] = {0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 1e-5,
                                   9.0, -7.0, 2.0, -3.0, NAN, 4.0,  1.5, -1.5};
    uint32_t s = seed * 2654435761u + 1;
    for (int64_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        if (check_is_float(d)) {
            double v = i < 16 && (nan || i != 12) ? edges[i]
                                                  : ((double)(s >> 8) / 16777216.0 - 0.5) * 20.0;
            bits[i] = check_float_bits(d, v);
        } else if (d == LOOM_DTYPE_BOOL) {
            bits[i] = (s >> 16) % 5 != 0; /* mostly true, so all() varies too */
        } else {
            size_t sz = loom_dtype_size(d);
            uint64_t v = (uint64_t)((int64_t)((s >> 8) % 21) - 10);
            if (i == 5) v = (uint64_t)1 << (sz * 8 - 1); /* the most negative / large value */
            bits[i] = sz == 8 ? v : v & ((UINT64_C(1) << (sz * 8)) - 1);
        }
    }
}

/* Float results within a tolerance scaled by the magnitude of what was summed
 * (GPU_REF_SCALED: rtol(d) * max(|expected|, scale)); ints and bools exactly. Products (names
 * starting "prod") may also turn 0, inf and NaN into one another (order_specials). */
static gpu_ref_tol_t scaled(double scale, const char *what) {
    gpu_ref_tol_t tol = gpu_ref_scaled(scale);
    tol.order_specials = !strncmp(what, "prod", 4);
    return tol;
}

static void compare_scaled(loom_array_t *g, loom_array_t *c, const char *what, double scale) {
    gpu_ref_compare(&ref, g, c, scaled(scale, what), what);
}

/* Pairs of results built on both devices, evaluated in one batch per side, then compared. */
#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static void
pairs_add(gpu_ref_batch_t *p, loom_array_t *g, loom_array_t *c, double scale, const char *fmt,
          ...) {
    char what[sizeof p->what[0]];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    gpu_ref_batch_add(&ref, p, g, c, scaled(scale, what), "%s", what);
}

static void pairs_check(gpu_ref_batch_t *p) { gpu_ref_batch_check(&ref, p); }

typedef loom_array_t *(*reduce_fn)(loom_ctx_t *, loom_array_t *, int32_t, const int32_t *, int);
static const reduce_fn reduce_fns[] = {loom_sum,    loom_prod, loom_max, loom_min, loom_argmax,
                                       loom_argmin, loom_any,  loom_all, loom_mean};
static const char *const reduce_names[] = {"sum",    "prod", "max", "min", "argmax",
                                           "argmin", "any",  "all", "mean"};
#define N_REDUCE ((int)(sizeof reduce_fns / sizeof reduce_fns[0]))

/* Axis sets on a 3-D operand: all (NULL), each axis, negative, pairs, none. */
static const struct {
    int32_t n;
    int32_t axes[3];
} axis_sets[] = {{-1, {0}},   {1, {0}},    {1, {1}},     {1, {2}}, {1, {-1}},
                 {2, {0, 2}}, {2, {0, 1}}, {2, {-1, 1}}, {0, {0}}};

static void test_ops_dtypes_axes(void **state) {
    (void)state;
    int64_t shape[3] = {6, 33, 17}, n = 6 * 33 * 17;
    uint64_t *bits = calloc((size_t)n, 8);
    static gpu_ref_batch_t p;
    for (int t = 0; t < N_DTYPES; t++) {
        loom_dtype_t d = dtypes[t];
        for (int nan = 0; nan < 2; nan++) {
            if (nan && !check_is_float(d)) continue;
            fill(d, bits, n, (uint32_t)t, nan);
            loom_scope_begin(gpu);
            loom_scope_begin(cpu);
            loom_array_t *xg = check_from_bits(gpu, d, 3, shape, bits, n);
            loom_array_t *xc = check_from_bits(cpu, d, 3, shape, bits, n);
            for (size_t a = 0; a < sizeof axis_sets / sizeof axis_sets[0]; a++)
                for (int op = 0; op < N_REDUCE; op++)
                    for (int keep = 0; keep < 2; keep++) {
                        const int32_t *ax = axis_sets[a].n < 0 ? NULL : axis_sets[a].axes;
                        pairs_add(&p, reduce_fns[op](gpu, xg, axis_sets[a].n, ax, keep),
                                  reduce_fns[op](cpu, xc, axis_sets[a].n, ax, keep), 10.0 * 33,
                                  "%s axes#%zu keep %d nan %d", reduce_names[op], a, keep, nan);
                    }
            for (size_t a = 0; a < 5; a++) { /* var, std with ddof */
                const int32_t *ax = axis_sets[a].n < 0 ? NULL : axis_sets[a].axes;
                pairs_add(&p, loom_var(gpu, xg, axis_sets[a].n, ax, 0, 0),
                          loom_var(cpu, xc, axis_sets[a].n, ax, 0, 0), 100.0, "var axes#%zu", a);
                pairs_add(&p, loom_std(gpu, xg, axis_sets[a].n, ax, 1, 1),
                          loom_std(cpu, xc, axis_sets[a].n, ax, 1, 1), 10.0, "std axes#%zu", a);
            }
            pairs_check(&p);
            loom_scope_end(gpu);
            loom_scope_end(cpu);
        }
    }
    free(bits);
}

/* Transposed, sliced (step 2, offset) and flipped operands, each axis and all. */
static void test_noncontiguous(void **state) {
    (void)state;
    int64_t shape[2] = {300, 130}, n = 300 * 130;
    uint64_t *bits = calloc((size_t)n, 8);
    static gpu_ref_batch_t p;
    loom_dtype_t ds[] = {LOOM_DTYPE_F32, LOOM_DTYPE_I32, LOOM_DTYPE_F16, LOOM_DTYPE_F64};
    for (size_t t = 0; t < 4; t++) {
        fill(ds[t], bits, n, 3, false);
        loom_scope_begin(gpu);
        loom_scope_begin(cpu);
        loom_array_t *xg = check_from_bits(gpu, ds[t], 2, shape, bits, n);
        loom_array_t *xc = check_from_bits(cpu, ds[t], 2, shape, bits, n);
        int64_t st[2] = {1, 3}, sp[2] = {LOOM_NONE, LOOM_NONE}, step[2] = {2, 2};
        loom_array_t *views_g[3] = {loom_transpose(gpu, xg, 2, NULL),
                                    loom_slice(gpu, xg, 2, st, sp, step),
                                    loom_flip(gpu, xg, 1, (int32_t[]){1})};
        loom_array_t *views_c[3] = {loom_transpose(cpu, xc, 2, NULL),
                                    loom_slice(cpu, xc, 2, st, sp, step),
                                    loom_flip(cpu, xc, 1, (int32_t[]){1})};
        for (int v = 0; v < 3; v++)
            for (int a = -1; a < 2; a++)
                for (int op = 0; op < N_REDUCE; op++) {
                    int32_t ax = a;
                    pairs_add(&p, reduce_fns[op](gpu, views_g[v], a < 0 ? -1 : 1, &ax, 0),
                              reduce_fns[op](cpu, views_c[v], a < 0 ? -1 : 1, &ax, 0), 1e3,
                              "%s view %d axis %d", reduce_names[op], v, a);
                }
        pairs_check(&p);
        loom_scope_end(gpu);
        loom_scope_end(cpu);
    }
    free(bits);
}

/* Uniform random float32 on both devices (the streams are bit-identical). */
static void rand_pair(int nd, const int64_t *shape, uint64_t seed, loom_array_t **g,
                      loom_array_t **c) {
    *g = loom_random_uniform(gpu, seed, LOOM_DTYPE_F32, nd, shape, -1, 1);
    *c = loom_random_uniform(cpu, seed, LOOM_DTYPE_F32, nd, shape, -1, 1);
    assert_int_equal(loom_eval(gpu, 1, g), LOOM_STATUS_OK);
    assert_int_equal(loom_eval(cpu, 1, c), LOOM_STATUS_OK);
}

/* Rows around warp and block sizes, and the long and split shapes. */
static void test_row_lengths_and_splits(void **state) {
    (void)state;
    static const int64_t shapes[][2] = {{67, 1},     {67, 31},     {67, 32},     {67, 33},
                                        {67, 1023},  {67, 1024},   {67, 1025},   {40, 8192},
                                        {20, 16385}, {4, 1 << 20}, {1, 1 << 20}, {65536, 64},
                                        {64, 65536}, {3, 100000},  {1000, 4096}, {300, 300}};
    static gpu_ref_batch_t p;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        loom_scope_begin(gpu);
        loom_scope_begin(cpu);
        loom_array_t *xg, *xc;
        rand_pair(2, shapes[s], 7 + s, &xg, &xc);
        for (int32_t ax = -1; ax < 2; ax++)
            for (int op = 0; op < N_REDUCE; op++) {
                if (op == 6 || op == 7) continue; /* any/all: the dtype tests cover them */
                double scale = sqrt((double)shapes[s][0] * (double)shapes[s][1]) + 1;
                pairs_add(&p, reduce_fns[op](gpu, xg, ax < 0 ? -1 : 1, &ax, 0),
                          reduce_fns[op](cpu, xc, ax < 0 ? -1 : 1, &ax, 0), scale,
                          "%s %lldx%lld axis %d", reduce_names[op], (long long)shapes[s][0],
                          (long long)shapes[s][1], ax);
            }
        pairs_check(&p);
        loom_scope_end(gpu);
        loom_scope_end(cpu);
    }
    /* 64 x 1M: row sums and a column sum */
    loom_scope_begin(gpu);
    loom_scope_begin(cpu);
    int64_t big[2] = {64, 1 << 20};
    loom_array_t *xg, *xc;
    rand_pair(2, big, 99, &xg, &xc);
    int32_t one = 1, zero = 0;
    pairs_add(&p, loom_sum(gpu, xg, 1, &one, 0), loom_sum(cpu, xc, 1, &one, 0), 1024, "64x1M rows");
    pairs_add(&p, loom_max(gpu, xg, 1, &one, 0), loom_max(cpu, xc, 1, &one, 0), 1, "64x1M max");
    pairs_add(&p, loom_argmin(gpu, xg, 1, &one, 0), loom_argmin(cpu, xc, 1, &one, 0), 1,
              "64x1M argmin");
    pairs_add(&p, loom_sum(gpu, xg, 1, &zero, 0), loom_sum(cpu, xc, 1, &zero, 0), 8, "64x1M cols");
    pairs_check(&p);
    loom_scope_end(gpu);
    loom_scope_end(cpu);
}

static uint64_t launched(loom_ctx_t *c) {
    loom_stats_t s;
    loom_ctx_stats(c, &s);
    return s.kernels_launched;
}

/* Evaluates g on the GPU (counting kernels) and c on the CPU, then compares. */
static uint64_t eval_count(loom_array_t *g, loom_array_t *c, double scale, const char *what) {
    uint64_t k0 = launched(gpu);
    loom_status_t st = loom_eval(gpu, 1, &g);
    if (st) print_error("%s: %s\n", what, loom_ctx_message(gpu));
    assert_int_equal(st, LOOM_STATUS_OK);
    uint64_t k = launched(gpu) - k0;
    assert_int_equal(loom_eval(cpu, 1, &c), LOOM_STATUS_OK);
    compare_scaled(g, c, what, scale);
    return k;
}

static loom_array_t *softmax(loom_ctx_t *c, loom_array_t *x, int32_t axis) {
    loom_array_t *e = loom_exp(c, loom_subtract(c, x, loom_max(c, x, 1, &axis, 1)));
    return loom_true_divide(c, e, loom_sum(c, e, 1, &axis, 1));
}

/* Row layernorm; gm NULL: without gamma and beta (the peers' benchmark formula). */
static loom_array_t *layernorm(loom_ctx_t *c, loom_array_t *x, loom_array_t *gm, loom_array_t *bt) {
    int32_t ax = -1;
    loom_array_t *m = loom_mean(c, x, 1, &ax, 1), *v = loom_var(c, x, 1, &ax, 1, 0);
    loom_array_t *y =
        loom_true_divide(c, loom_subtract(c, x, m), loom_sqrt(c, loom_add_f(c, v, 1e-5)));
    return gm ? loom_add(c, loom_multiply(c, y, gm), bt) : y;
}

/* Layernorm without gamma and beta on the GPU against the CPU reference: one or two kernels. */
static void check_plain_layernorm(loom_array_t *xg, loom_array_t *xc, const char *what) {
    uint64_t k = eval_count(layernorm(gpu, xg, NULL, NULL), layernorm(cpu, xc, NULL, NULL), 1e-2, what);
    if (!ref.self_check) assert_true(k >= 1 && k <= 2);
}

static void test_softmax_layernorm(void **state) {
    (void)state;
    static const int64_t shapes[][2] = {{257, 1000}, {64, 8192},   {300, 16384},
                                        {100, 31},   {500, 20000}, {1024, 1024}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        loom_scope_begin(gpu);
        loom_scope_begin(cpu);
        loom_array_t *xg, *xc, *gg, *gc, *bg, *bc;
        rand_pair(2, shapes[s], 11 + s, &xg, &xc);
        rand_pair(1, &shapes[s][1], 21 + s, &gg, &gc);
        rand_pair(1, &shapes[s][1], 31 + s, &bg, &bc);
        char what[80];
        snprintf(what, sizeof what, "softmax %lldx%lld", (long long)shapes[s][0],
                 (long long)shapes[s][1]);
        uint64_t k = eval_count(softmax(gpu, xg, -1), softmax(cpu, xc, -1), 1e-3, what);
        if (!ref.self_check) assert_true(k >= 1 && k <= 2);
        snprintf(what, sizeof what, "layernorm %lldx%lld", (long long)shapes[s][0],
                 (long long)shapes[s][1]);
        k = eval_count(layernorm(gpu, xg, gg, bg), layernorm(cpu, xc, gc, bc), 1e-2, what);
        if (!ref.self_check) assert_true(k >= 1 && k <= 2);
        /* without gamma and beta (8192: rows re-read from L2, nothing kept in registers) */
        check_plain_layernorm(xg, xc, what);
        /* softmax over axis 0 (columns) */
        eval_count(softmax(gpu, xg, 0), softmax(cpu, xc, 0), 1e-3, "softmax axis 0");
        loom_scope_end(gpu);
        loom_scope_end(cpu);
    }
}

/* Layernorm without gamma and beta where float32 rows are re-read from L2: more rows than
 * resident blocks (1000 x 8192), rows that do not start on a 128-byte line (2000 x 5000), and
 * rows of a view 16 bytes into its buffer (x[4:] of a flat array, reshaped). */
static void test_layernorm_rows_reread(void **state) {
    (void)state;
    static const int64_t shapes[][2] = {{1000, 8192}, {2000, 5000}, {4000, 1000}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        loom_scope_begin(gpu);
        loom_scope_begin(cpu);
        loom_array_t *xg, *xc;
        rand_pair(2, shapes[s], 41 + s, &xg, &xc);
        char what[80];
        snprintf(what, sizeof what, "layernorm without gamma/beta %lldx%lld",
                 (long long)shapes[s][0], (long long)shapes[s][1]);
        check_plain_layernorm(xg, xc, what);
        loom_scope_end(gpu);
        loom_scope_end(cpu);
    }
    loom_scope_begin(gpu);
    loom_scope_begin(cpu);
    int64_t n = 1000 * 8192 + 4, start = 4, stop = n, step = 1, shape[2] = {1000, 8192};
    loom_array_t *fg, *fc;
    rand_pair(1, &n, 51, &fg, &fc);
    loom_array_t *xg = loom_reshape(gpu, loom_slice(gpu, fg, 1, &start, &stop, &step), 2, shape);
    loom_array_t *xc = loom_reshape(cpu, loom_slice(cpu, fc, 1, &start, &stop, &step), 2, shape);
    check_plain_layernorm(xg, xc, "layernorm without gamma/beta, rows 16 bytes into the buffer");
    loom_scope_end(gpu);
    loom_scope_end(cpu);
}

/* Rows of special cases for a split softmax (cols >= 40000, so the -inf prefix of row 2
 * covers whole chunks): 0 random with every 1000th element -inf; 1 all -inf (NaN, as in
 * NumPy: exp(-inf - -inf)); 2 a -inf prefix of 30000, then random; 3 one NaN; 4 one +inf
 * (NaN); 5 large values (exp overflows without the max); 6 ascending (a new max at every
 * element); 7 random with the max at the very end; further rows random. */
static void softmax_rows(loom_dtype_t d, uint64_t *bits, int64_t rows, int64_t cols,
                         uint32_t seed) {
    uint32_t s = seed * 2654435761u + 1;
    double big = d == LOOM_DTYPE_F16 ? 6000.0 : 1e4;
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) {
            s = s * 1664525u + 1013904223u;
            double u = ((double)(s >> 8) / 16777216.0 - 0.5) * 20.0, v = u;
            switch (i) {
                case 0: v = j % 1000 == 999 ? -INFINITY : u; break;
                case 1: v = -INFINITY; break;
                case 2: v = j < 30000 ? -INFINITY : u; break;
                case 3: v = j == cols / 2 + 7 ? NAN : u; break;
                case 4: v = j == 100 ? INFINITY : u; break;
                case 5: v = u * big / 10.0; break;
                case 6: v = (double)j * 1e-4; break;
                case 7: v = j == cols - 1 ? 50.0 : u; break;
                default: break;
            }
            bits[i * cols + j] = check_float_bits(d, v);
        }
}

/* Softmax over rows long enough to split across blocks: online max-and-sum chunk tasks and
 * output tasks of one kernel, against the CPU reference, with its max and sum, a log-softmax
 * and the sum alone (two kernels); every float dtype; then 64 x 1M (one kernel of chunk and
 * output tasks), twice, bit-identical, and 2 x 4M (rows too long to keep their chunks on chip). */
static void test_split_softmax(void **state) {
    (void)state;
    static const int64_t shapes[][2] = {{8, 200000}, {9, 65537}, {8, 40000}, {1, 300000}};
    static const loom_dtype_t fds[] = {LOOM_DTYPE_F32, LOOM_DTYPE_F16, LOOM_DTYPE_BF16,
                                       LOOM_DTYPE_F64};
    int32_t ax = 1;
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
        for (size_t t = 0; t < sizeof fds / sizeof fds[0]; t++) {
            if (k % 2 && t != 0) continue; /* odd rows (no vectors), one row: float32 only */
            loom_dtype_t d = fds[t];
            int64_t rows = shapes[k][0], cols = shapes[k][1], n = rows * cols;
            uint64_t *bits = calloc((size_t)n, 8);
            assert_non_null(bits);
            softmax_rows(d, bits, rows, cols, 40 + (uint32_t)(k * 4 + t));
            loom_scope_begin(gpu);
            loom_scope_begin(cpu);
            loom_array_t *xg = check_from_bits(gpu, d, 2, shapes[k], bits, n);
            loom_array_t *xc = check_from_bits(cpu, d, 2, shapes[k], bits, n);
            free(bits);
            assert_int_equal(loom_eval(gpu, 1, &xg), LOOM_STATUS_OK);
            char what[96];
            snprintf(what, sizeof what, "split softmax %lldx%lld", (long long)rows,
                     (long long)cols);
            uint64_t kn = eval_count(softmax(gpu, xg, 1), softmax(cpu, xc, 1), 1.0 / (double)cols,
                                     what);
            if (!ref.self_check) assert_int_equal(kn, 1);
            /* the max and the sum themselves, and the softmax, from one eval */
            loom_array_t *mg = loom_max(gpu, xg, 1, &ax, 1), *mc = loom_max(cpu, xc, 1, &ax, 1);
            loom_array_t *sg = loom_sum(gpu, loom_exp(gpu, loom_subtract(gpu, xg, mg)), 1, &ax, 1);
            loom_array_t *sc = loom_sum(cpu, loom_exp(cpu, loom_subtract(cpu, xc, mc)), 1, &ax, 1);
            loom_array_t *yg = loom_true_divide(gpu, loom_exp(gpu, loom_subtract(gpu, xg, mg)), sg);
            loom_array_t *yc = loom_true_divide(cpu, loom_exp(cpu, loom_subtract(cpu, xc, mc)), sc);
            static gpu_ref_batch_t p;
            pairs_add(&p, mg, mc, 1.0, "%s: max", what);
            pairs_add(&p, sg, sc, 1.0, "%s: sum", what);
            pairs_add(&p, yg, yc, 1.0 / (double)cols, "%s: softmax", what);
            uint64_t k0 = launched(gpu);
            pairs_check(&p);
            if (!ref.self_check) assert_int_equal(launched(gpu) - k0, 1);
            /* log-softmax: x - max - log(sum), from a max and sum not yet computed (the ones
             * above are realised now: reading them is one elementwise kernel) */
            mg = loom_max(gpu, xg, 1, &ax, 1);
            mc = loom_max(cpu, xc, 1, &ax, 1);
            sg = loom_sum(gpu, loom_exp(gpu, loom_subtract(gpu, xg, mg)), 1, &ax, 1);
            sc = loom_sum(cpu, loom_exp(cpu, loom_subtract(cpu, xc, mc)), 1, &ax, 1);
            loom_array_t *lg = loom_subtract(gpu, loom_subtract(gpu, xg, mg), loom_log(gpu, sg));
            loom_array_t *lc = loom_subtract(cpu, loom_subtract(cpu, xc, mc), loom_log(cpu, sc));
            snprintf(what + strlen(what), sizeof what - strlen(what), " log");
            kn = eval_count(lg, lc, 10.0, what);
            if (!ref.self_check) assert_int_equal(kn, 1);
            /* the sum alone (no X-shaped result): the chunks' kernel, then the combine */
            mg = loom_max(gpu, xg, 1, &ax, 1);
            mc = loom_max(cpu, xc, 1, &ax, 1);
            sg = loom_sum(gpu, loom_exp(gpu, loom_subtract(gpu, xg, mg)), 1, &ax, 0);
            sc = loom_sum(cpu, loom_exp(cpu, loom_subtract(cpu, xc, mc)), 1, &ax, 0);
            snprintf(what + strlen(what), sizeof what - strlen(what), " sum");
            kn = eval_count(sg, sc, 1.0, what);
            if (!ref.self_check) assert_int_equal(kn, 2);
            loom_scope_end(gpu);
            loom_scope_end(cpu);
        }
    /* 64 x 1M float32 over [-50, 50): one kernel (chunk and output tasks interleaved), the
     * same bits twice */
    int64_t big[2] = {64, 1 << 20}, n = big[0] * big[1];
    loom_scope_begin(gpu);
    loom_scope_begin(cpu);
    loom_array_t *xg, *xc;
    rand_pair(2, big, 77, &xg, &xc);
    xg = loom_multiply_f(gpu, xg, 50.0);
    xc = loom_multiply_f(cpu, xc, 50.0);
    assert_int_equal(loom_eval(gpu, 1, &xg), LOOM_STATUS_OK);
    assert_int_equal(loom_eval(cpu, 1, &xc), LOOM_STATUS_OK);
    uint64_t kn = eval_count(softmax(gpu, xg, 1), softmax(cpu, xc, 1), 1.0 / (double)big[1],
                             "split softmax 64x1M");
    if (!ref.self_check) assert_int_equal(kn, 1);
    float *first = malloc((size_t)n * 4), *again = malloc((size_t)n * 4);
    assert_true(first && again);
    for (int rep = 0; rep < 2; rep++) {
        loom_scope_begin(gpu);
        assert_int_equal(loom_read(gpu, softmax(gpu, xg, 1), rep ? again : first, (size_t)n * 4),
                         LOOM_STATUS_OK);
        loom_scope_end(gpu);
    }
    assert_memory_equal(first, again, (size_t)n * 4);
    free(first);
    free(again);
    /* 2 x 4M: rows too long for chunks kept in shared memory (more than two per
     * multiprocessor), so output tasks re-read theirs; still one kernel */
    int64_t longer[2] = {2, 1 << 22};
    rand_pair(2, longer, 78, &xg, &xc);
    xg = loom_multiply_f(gpu, xg, 50.0);
    xc = loom_multiply_f(cpu, xc, 50.0);
    assert_int_equal(loom_eval(gpu, 1, &xg), LOOM_STATUS_OK);
    assert_int_equal(loom_eval(cpu, 1, &xc), LOOM_STATUS_OK);
    kn = eval_count(softmax(gpu, xg, 1), softmax(cpu, xc, 1), 1.0 / (double)longer[1],
                    "split softmax 2x4M");
    if (!ref.self_check) assert_int_equal(kn, 1);
    loom_scope_end(gpu);
    loom_scope_end(cpu);
}

/* Row r's element i of the variance test: the kinds of row a two-pass variance handles and a
 * one-pass formula like E[x^2] - E[x]^2 does not (a mean `mean` times the spread, an outlier, a
 * constant row, huge values), and rows with inf or NaN (NaN results). */
static double var_value(int64_t r, int64_t i, int64_t n, double mean) {
    uint32_t h = (uint32_t)(r * 2654435761u) ^ (uint32_t)(i * 2246822519u);
    h ^= h >> 15;
    h *= 2654435761u;
    h ^= h >> 13;
    double u = (double)(h & 0xffffff) / 8388608.0 - 1.0; /* [-1, 1) */
    switch (r % 7) {
        case 0: return mean + u;
        case 1: return i == (r * 7) % n ? 1e6 : u * 1e-3; /* one outlier */
        case 2: return 0.1;                                  /* constant */
        case 3: return u;
        case 4: return i == (r * 5) % n ? INFINITY : u;      /* NaN variance */
        case 5: return i == (r * 3) % n ? NAN : u;
        default: return 1e17 * (10.0 + u);                   /* squares near 10^36 */
    }
}

/* var, std (ddof 1) and layernorm of hard rows (var_value) against the CPU reference's
 * NumPy formula: float32 and float64, vector and scalar steps (odd row lengths), rows kept in
 * L2 (8192), in registers and neither (40000). The variances take rows of mean 10^4 times
 * their spread; layernorm takes 16 times: its output moves by (error of the mean) / spread,
 * about 10^4 * 2^-24 * log2(n) for a float32 mean of such rows in either summation order
 * (1e-3 against the reference at 70 x 1025, a matter of conditioning, not of loom). */
static void test_var_rows(void **state) {
    (void)state;
    static const int64_t shapes[][2] = {{70, 1025}, {70, 4097}, {70, 8192}, {35, 16384},
                                        {300, 40000}};
    static const loom_dtype_t ds[] = {LOOM_DTYPE_F32, LOOM_DTYPE_F64};
    static gpu_ref_batch_t p;
    int32_t ax = 1;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (size_t t = 0; t < 2; t++) {
            if (t && s == 4) continue;
            int64_t n = shapes[s][0] * shapes[s][1];
            uint64_t *bits = calloc((size_t)n, 8);
            assert_non_null(bits);
            loom_scope_begin(gpu);
            loom_scope_begin(cpu);
            loom_array_t *xg[2], *xc[2];
            for (int h = 0; h < 2; h++) {
                for (int64_t k = 0; k < n; k++) {
                    double v = var_value(k / shapes[s][1], k % shapes[s][1], shapes[s][1],
                                         h ? 16.0 : 1e4);
                    bits[k] = check_float_bits(ds[t], v);
                }
                xg[h] = check_from_bits(gpu, ds[t], 2, shapes[s], bits, n);
                xc[h] = check_from_bits(cpu, ds[t], 2, shapes[s], bits, n);
            }
            free(bits);
            const char *dn = loom_dtype_name(ds[t]);
            long long rr = (long long)shapes[s][0], cc = (long long)shapes[s][1];
            pairs_add(&p, loom_var(gpu, xg[0], 1, &ax, 0, 0), loom_var(cpu, xc[0], 1, &ax, 0, 0),
                      1e-6, "hard rows: var %s %lldx%lld", dn, rr, cc);
            pairs_add(&p, loom_std(gpu, xg[0], 1, &ax, 1, 1), loom_std(cpu, xc[0], 1, &ax, 1, 1),
                      1e-3, "hard rows: std ddof 1 %s %lldx%lld", dn, rr, cc);
            pairs_add(&p, layernorm(gpu, xg[1], NULL, NULL), layernorm(cpu, xc[1], NULL, NULL), 1.0,
                      "hard rows: layernorm %s %lldx%lld", dn, rr, cc);
            pairs_check(&p);
            loom_scope_end(gpu);
            loom_scope_end(cpu);
        }
}

/* Reduction s of test_traversal_order: layernorm, softmax, row sums (a warp per row, the last
 * block partial) or column sums (a thread per column, the last block partial). */
static loom_array_t *traversal_op(loom_ctx_t *c, loom_array_t *x, size_t s) {
    int32_t ax = s == 4 ? 0 : 1;
    switch (s) {
        case 1: return softmax(c, x, 1);
        case 3:
        case 4: return loom_sum(c, x, 1, &ax, 0);
        default: return layernorm(c, x, NULL, NULL);
    }
}

/* A one-kernel reduction over an input that the latest kernel went forward over takes its
 * outputs in reverse order (cuda.c, "Traversal order"): x made by a forward elementwise kernel,
 * then three reductions over it in turn go in reverse, forward, reverse. The same bits each
 * time, the reference's values, and the stats count the two reversed launches. */
static void test_traversal_order(void **state) {
    (void)state;
    static const int64_t shapes[][2] = {{1000, 8192}, {65536, 64}, {300, 3000}, {1001, 1000},
                                        {100, 5003}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        loom_scope_begin(gpu);
        loom_scope_begin(cpu);
        loom_array_t *xg, *xc;
        rand_pair(2, shapes[s], 61 + s, &xg, &xc);
        uint64_t *bits[3];
        loom_stats_t a, b;
        loom_ctx_stats(gpu, &a);
        char what[80];
        snprintf(what, sizeof what, "traversal order: op %zu %lldx%lld", s,
                 (long long)shapes[s][0], (long long)shapes[s][1]);
        int64_t n = 0;
        for (int k = 0; k < 3; k++) {
            loom_array_t *yg = traversal_op(gpu, xg, s);
            assert_int_equal(loom_eval(gpu, 1, &yg), LOOM_STATUS_OK);
            n = loom_array_size(yg);
            bits[k] = calloc((size_t)n, 8);
            assert_non_null(bits[k]);
            assert_int_equal(check_read_bits(gpu, yg, bits[k], n), LOOM_STATUS_OK);
            if (k == 0) {
                loom_array_t *yc = traversal_op(cpu, xc, s);
                assert_int_equal(loom_eval(cpu, 1, &yc), LOOM_STATUS_OK);
                compare_scaled(yg, yc, what, 1.0);
            }
        }
        loom_ctx_stats(gpu, &b);
        if (!ref.self_check) assert_int_equal(b.kernels_reversed - a.kernels_reversed, 2);
        assert_memory_equal(bits[0], bits[1], (size_t)n * 8);
        assert_memory_equal(bits[0], bits[2], (size_t)n * 8);
        for (int k = 0; k < 3; k++) free(bits[k]);
        loom_scope_end(gpu);
        loom_scope_end(cpu);
    }
}

/* mean, var and sum((x - y)**2): one kernel each (var: at most two). */
static void test_fused_kernel_counts(void **state) {
    (void)state;
    int64_t shape[2] = {4096, 2048};
    int32_t ax = 1;
    loom_scope_begin(gpu);
    loom_scope_begin(cpu);
    loom_array_t *xg, *xc, *yg, *yc;
    rand_pair(2, shape, 41, &xg, &xc);
    rand_pair(2, shape, 42, &yg, &yc);
    uint64_t k =
        eval_count(loom_mean(gpu, xg, 1, &ax, 0), loom_mean(cpu, xc, 1, &ax, 0), 1e-2, "mean");
    if (!ref.self_check) assert_int_equal(k, 1);
    k = eval_count(loom_var(gpu, xg, 1, &ax, 0, 0), loom_var(cpu, xc, 1, &ax, 0, 0), 1e-2, "var");
    if (!ref.self_check) assert_true(k >= 1 && k <= 2);
    loom_array_t *dg = loom_subtract(gpu, xg, yg), *dc = loom_subtract(cpu, xc, yc);
    k = eval_count(loom_sum(gpu, loom_multiply(gpu, dg, dg), -1, NULL, 0),
                   loom_sum(cpu, loom_multiply(cpu, dc, dc), -1, NULL, 0), 1e3, "sum((x-y)**2)");
    if (!ref.self_check) assert_true(k >= 1 && k <= 2); /* a split full reduction: two launches */
    k = eval_count(loom_sum(gpu, loom_multiply(gpu, dg, dg), 1, &ax, 0),
                   loom_sum(cpu, loom_multiply(cpu, dc, dc), 1, &ax, 0), 1e2, "row sum((x-y)**2)");
    if (!ref.self_check) assert_int_equal(k, 1);
    loom_scope_end(gpu);
    loom_scope_end(cpu);
}

/* Empty reductions: the identities; empty outputs. */
static void test_empty(void **state) {
    (void)state;
    static gpu_ref_batch_t p;
    int64_t shapes[][2] = {{0, 5}, {5, 0}, {0, 20000}}; /* (the last: staged-tile lines) */
    for (int s = 0; s < 3; s++) {
        loom_scope_begin(gpu);
        loom_scope_begin(cpu);
        loom_array_t *xg = loom_zeros(gpu, LOOM_DTYPE_F32, 2, shapes[s]);
        loom_array_t *xc = loom_zeros(cpu, LOOM_DTYPE_F32, 2, shapes[s]);
        for (int32_t ax = -1; ax < 2; ax++) {
            int32_t a = ax;
            int na = ax < 0 ? -1 : 1;
            pairs_add(&p, loom_sum(gpu, xg, na, &a, 0), loom_sum(cpu, xc, na, &a, 0), 1, "sum");
            pairs_add(&p, loom_prod(gpu, xg, na, &a, 1), loom_prod(cpu, xc, na, &a, 1), 1, "prod");
            pairs_add(&p, loom_any(gpu, xg, na, &a, 0), loom_any(cpu, xc, na, &a, 0), 1, "any");
            pairs_add(&p, loom_all(gpu, xg, na, &a, 0), loom_all(cpu, xc, na, &a, 0), 1, "all");
            pairs_add(&p, loom_cumsum(gpu, xg, a), loom_cumsum(cpu, xc, a), 1, "cumsum");
        }
        pairs_check(&p);
        loom_scope_end(gpu);
        loom_scope_end(cpu);
    }
}

static void test_scans(void **state) {
    (void)state;
    int64_t shape[3] = {5, 300, 7}, n = 5 * 300 * 7;
    uint64_t *bits = calloc((size_t)n, 8);
    static gpu_ref_batch_t p;
    for (int t = 0; t < N_DTYPES; t++) {
        loom_dtype_t d = dtypes[t];
        fill(d, bits, n, (uint32_t)t + 5, false);
        loom_scope_begin(gpu);
        loom_scope_begin(cpu);
        loom_array_t *xg = check_from_bits(gpu, d, 3, shape, bits, n);
        loom_array_t *xc = check_from_bits(cpu, d, 3, shape, bits, n);
        int32_t axes[] = {0, 1, 2, -1, LOOM_AXIS_NONE};
        for (int a = 0; a < 5; a++) {
            /* sequential in the result dtype on both sides: exact but for float rounding of
             * the same operations, which the GPU reproduces */
            pairs_add(&p, loom_cumsum(gpu, xg, axes[a]), loom_cumsum(cpu, xc, axes[a]), 1e3,
                      "cumsum axis %d", axes[a]);
            pairs_add(&p, loom_cumprod(gpu, xg, axes[a]), loom_cumprod(cpu, xc, axes[a]), 1,
                      "cumprod axis %d", axes[a]);
        }
        loom_array_t *tg = loom_transpose(gpu, xg, 3, NULL), *tc = loom_transpose(cpu, xc, 3, NULL);
        pairs_add(&p, loom_cumsum(gpu, tg, 1), loom_cumsum(cpu, tc, 1), 1e3, "cumsum transposed");
        pairs_add(&p, loom_cumsum(gpu, loom_multiply_f(gpu, tg, 2), 2),
                  loom_cumsum(cpu, loom_multiply_f(cpu, tc, 2), 2), 1e3, "cumsum prologue");
        pairs_check(&p);
        loom_scope_end(gpu);
        loom_scope_end(cpu);
    }
    free(bits);
    /* long lines (staged tiles a block each, the second line's not 16-byte aligned) and many
     * short ones */
    int64_t lines[2][2] = {{2, 300001}, {100000, 3}};
    for (int s = 0; s < 2; s++) {
        loom_scope_begin(gpu);
        loom_scope_begin(cpu);
        loom_array_t *xg, *xc;
        rand_pair(2, lines[s], 50 + (uint64_t)s, &xg, &xc);
        pairs_add(&p, loom_cumsum(gpu, xg, 1), loom_cumsum(cpu, xc, 1), 600, "cumsum rows");
        pairs_add(&p, loom_cumsum(gpu, xg, 0), loom_cumsum(cpu, xc, 0), 600, "cumsum cols");
        pairs_check(&p);
        loom_scope_end(gpu);
        loom_scope_end(cpu);
    }
    /* the column-group form (700 x 1500 along 0) and look-back tiles (along 1 of it and of
     * 40 x 30001, whose lines of a few tiles are staged through shared memory, the rows
     * after the first not 16-byte aligned; 2^21 in one line: hundreds of tiles, a block
     * each), every dtype, sums and products, with a prologue */
    int64_t mid[2][2] = {{700, 1500}, {40, 30001}}, one = INT64_C(1) << 21;
    uint64_t *mb = calloc((size_t)one, 8);
    for (int t = 0; t < N_DTYPES; t++) {
        loom_dtype_t d = dtypes[t];
        for (int s = 0; s < 3; s++) {
            /* (a float16 line of 2^21 stalls once its sum's spacing passes the terms) */
            if (s == 2 && (d == LOOM_DTYPE_F16 || d == LOOM_DTYPE_BF16)) continue;
            int nd = s == 2 ? 1 : 2;
            int64_t *sh = s == 2 ? &one : mid[s], cnt = s == 2 ? one : sh[0] * sh[1];
            fill(d, mb, cnt, (uint32_t)t + 11, false);
            loom_scope_begin(gpu);
            loom_scope_begin(cpu);
            loom_array_t *xg = check_from_bits(gpu, d, nd, sh, mb, cnt);
            loom_array_t *xc = check_from_bits(cpu, d, nd, sh, mb, cnt);
            for (int32_t a = 0; a < nd; a++) {
                pairs_add(&p, loom_cumsum(gpu, xg, a), loom_cumsum(cpu, xc, a), 1e4,
                          "cumsum %s axis %d of %d-d", loom_dtype_name(d), a, nd);
                if (s < 2 || !check_is_float(d)) /* (a float line's product: 0 or inf) */
                    pairs_add(&p, loom_cumprod(gpu, xg, a), loom_cumprod(cpu, xc, a), 1,
                              "cumprod %s axis %d", loom_dtype_name(d), a);
            }
            if (check_is_float(d))
                pairs_add(&p, loom_cumsum(gpu, loom_multiply_f(gpu, xg, 0.5), nd - 1),
                          loom_cumsum(cpu, loom_multiply_f(cpu, xc, 0.5), nd - 1), 1e4,
                          "cumsum(x * 0.5) %s", loom_dtype_name(d));
            pairs_check(&p);
            loom_scope_end(gpu);
            loom_scope_end(cpu);
        }
    }
    /* staged tiles of two inputs narrower than the result: int8 x uint8 summed in int64,
     * exact */
    fill(LOOM_DTYPE_I8, mb, mid[1][0] * mid[1][1], 3, false);
    loom_scope_begin(gpu);
    loom_scope_begin(cpu);
    loom_array_t *ag = check_from_bits(gpu, LOOM_DTYPE_I8, 2, mid[1], mb, mid[1][0] * mid[1][1]);
    loom_array_t *ac = check_from_bits(cpu, LOOM_DTYPE_I8, 2, mid[1], mb, mid[1][0] * mid[1][1]);
    loom_array_t *bg = loom_astype(gpu, loom_negative(gpu, ag), LOOM_DTYPE_U8);
    loom_array_t *bc = loom_astype(cpu, loom_negative(cpu, ac), LOOM_DTYPE_U8);
    pairs_add(&p,
              loom_cumsum(gpu,
                          loom_multiply(gpu, loom_astype(gpu, ag, LOOM_DTYPE_I64),
                                        loom_astype(gpu, bg, LOOM_DTYPE_I64)),
                          1),
              loom_cumsum(cpu,
                          loom_multiply(cpu, loom_astype(cpu, ac, LOOM_DTYPE_I64),
                                        loom_astype(cpu, bc, LOOM_DTYPE_I64)),
                          1),
              1, "cumsum(int8 * uint8) in int64");
    pairs_check(&p);
    loom_scope_end(gpu);
    loom_scope_end(cpu);
    free(mb);
}

/* cumprod along axis of float32 bits (nd axes of shape) on both devices, every other element
 * along the last axis when strided, times 1.0001 first with a prologue, added to p. */
static void cumprod_pair(gpu_ref_batch_t *p, int nd, const int64_t *shape, const uint64_t *bits,
                         int32_t axis, bool strided, bool prologue, const char *what) {
    int64_t cnt = nd == 1 ? shape[0] : shape[0] * shape[1], step[2] = {1, 2};
    loom_array_t *xg = check_from_bits(gpu, LOOM_DTYPE_F32, nd, shape, bits, cnt);
    loom_array_t *xc = check_from_bits(cpu, LOOM_DTYPE_F32, nd, shape, bits, cnt);
    if (strided) {
        xg = loom_slice(gpu, xg, 2, NULL, NULL, step);
        xc = loom_slice(cpu, xc, 2, NULL, NULL, step);
    }
    if (prologue) {
        xg = loom_multiply_f(gpu, xg, 1.0001);
        xc = loom_multiply_f(cpu, xc, 1.0001);
    }
    pairs_add(p, loom_cumprod(gpu, xg, axis), loom_cumprod(cpu, xc, axis), 1, "cumprod float32 %s",
              what);
}

/* float32 cumprod in the reordered forms (a mantissa and an integer exponent a partial
 * product): rows of one staged tile, lines of many (look-back; 17 and 129 tiles, the last a
 * part), a strided line (the unstaged tiles), columns (the column groups, also strided and
 * with a prologue) and a prologue, with factors near 1 (the product stays in range: within
 * rounding of NumPy's order); then NumPy's infinities and NaNs where its running product
 * overflows (inf from there on, NaN once a 0 follows), and zeros that meet large partial
 * products ([0, 2, 2, ...]: 0, not 0 * inf). */
static void test_cumprod_float32(void **state) {
    (void)state;
    int64_t n = (INT64_C(1) << 17) + 3, rows[2] = {64, 8192}, wide[2] = {3, 60002},
            cols[2] = {700, 1500}, longer = (INT64_C(1) << 20) + 3;
    int64_t most = cols[0] * cols[1]; /* the largest case (every case reads from b's start) */
    uint64_t *b = calloc((size_t)most, 8);
    uint32_t r = 12345u;
    for (int64_t i = 0; i < most; i++) {
        r = r * 1664525u + 1013904223u;
        b[i] = check_float_bits(LOOM_DTYPE_F32, exp2(((double)(r >> 8) / 16777216.0 - 0.5) * 0.1));
    }
    static gpu_ref_batch_t p;
    loom_scope_begin(gpu);
    loom_scope_begin(cpu);
    struct {
        int nd;
        const int64_t *shape;
        int32_t axis;
        bool strided, prologue;
        const char *what;
    } cases[] = {{2, rows, 1, false, false, "rows"},
                 {1, &n, 0, false, false, "line"},
                 {1, &longer, 0, false, false, "line of 129 tiles"},
                 {2, wide, 1, true, false, "strided"},
                 {2, cols, 0, false, false, "columns"},
                 {2, rows, 1, false, true, "prologue"},
                 {1, &n, 0, false, true, "line prologue"},
                 {2, cols, 0, false, true, "columns prologue"},
                 {2, cols, 0, true, false, "strided columns"}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const int64_t *sh = cases[c].shape;
        assert_true((cases[c].nd == 1 ? sh[0] : sh[0] * sh[1]) <= most); /* (b's elements) */
        cumprod_pair(&p, cases[c].nd, cases[c].shape, b, cases[c].axis, cases[c].strided,
                     cases[c].prologue, cases[c].what);
    }
    pairs_check(&p);
    loom_scope_end(gpu);
    loom_scope_end(cpu);
    /* the specials in every form: 8 patterns of lines of 3000 as rows of staged tiles, the
     * same spread over every other element (the unstaged tiles, along a strided view) and as
     * columns of 3000 x 32 (the column groups, each pattern 4 times) */
    enum { LEN = 3000, PAT = 8 };
    static double pat[PAT][LEN];
    for (int q = 0; q < PAT; q++)
        for (int i = 0; i < LEN; i++) pat[q][i] = exp2((double)((i * 7 + q) % 11 - 5) / 22.0);
    pat[0][0] = pat[0][1] = 1e30, pat[0][1000] = 0.0; /* inf, then NaN after the 0 */
    pat[1][0] = 0.0, pat[1][777] = -2.0;              /* zeros, -0 after a negative */
    pat[2][0] = pat[2][1] = exp2(100);                /* inf, still after it comes back */
    for (int i = 2; i < 400; i++) pat[2][i] = 0.5;
    pat[3][0] = ldexp(1 + ldexp(1, -23), 64), pat[3][1] = ldexp(2 - ldexp(1, -22), 63);
    pat[3][2] = 0.5; /* rounds to inf at 1: stays inf */
    for (int i = 3; i < LEN; i++) pat[3][i] = 1.0;
    pat[4][5] = INFINITY, pat[4][50] = 0.0;                         /* inf factor, then NaN */
    pat[5][10] = NAN;                                               /* NaN from there */
    pat[6][0] = 1e-40, pat[6][1] = exp2(100), pat[6][2] = exp2(20); /* a subnormal */
    pat[7][0] = -3.0, pat[7][3] = -0.5, pat[7][9] = -1.25;          /* signs */
    int64_t srows[2] = {PAT, LEN}, spread[2] = {PAT, 2 * LEN}, scols[2] = {LEN, 4 * PAT};
    for (int q = 0; q < PAT; q++)
        for (int i = 0; i < LEN; i++) {
            uint64_t v = check_float_bits(LOOM_DTYPE_F32, pat[q][i]);
            b[q * LEN + i] = v;
            b[PAT * LEN + q * 2 * LEN + 2 * i] = v;
            b[PAT * LEN + q * 2 * LEN + 2 * i + 1] = check_float_bits(LOOM_DTYPE_F32, 1.0);
            for (int r4 = 0; r4 < 4; r4++) b[3 * PAT * LEN + i * 4 * PAT + r4 * PAT + q] = v;
        }
    loom_scope_begin(gpu);
    loom_scope_begin(cpu);
    cumprod_pair(&p, 2, srows, b, 1, false, false, "special rows");
    cumprod_pair(&p, 2, spread, b + PAT * LEN, 1, true, false, "special strided");
    cumprod_pair(&p, 2, scols, b + 3 * PAT * LEN, 0, false, false, "special columns");
    pairs_check(&p);
    loom_scope_end(gpu);
    loom_scope_end(cpu);
    /* the specials, in lines of n */
    for (int k = 0; k < 3; k++) {
        for (int64_t i = 0; i < n; i++)
            b[i] = check_float_bits(LOOM_DTYPE_F32, k == 1 ? 2.0 : 0.75);
        if (k == 0) { /* overflow at 1, then NaN from a 0 at 5000 */
            b[0] = b[1] = check_float_bits(LOOM_DTYPE_F32, 1e30);
            b[5000] = check_float_bits(LOOM_DTYPE_F32, 0.0);
        } else if (k == 1) { /* 0, then twos: zeros throughout, -0 after a negative factor */
            b[0] = check_float_bits(LOOM_DTYPE_F32, 0.0);
            b[777] = check_float_bits(LOOM_DTYPE_F32, -2.0);
        } else { /* 2^100 twice: inf, and still inf after the factors bring it back in range */
            b[0] = b[1] = check_float_bits(LOOM_DTYPE_F32, exp2(100));
            for (int64_t i = 2; i < 400; i++) b[i] = check_float_bits(LOOM_DTYPE_F32, 0.5);
        }
        loom_scope_begin(gpu);
        loom_scope_begin(cpu);
        char what[32];
        snprintf(what, sizeof what, "specials %d", k);
        cumprod_pair(&p, 1, &n, b, 0, false, false, what);
        pairs_check(&p);
        loom_scope_end(gpu);
        loom_scope_end(cpu);
    }
    free(b);
    /* A product that passes below 2^-(2^30) in a tile's first element (the subnormal at 880
     * tiles of 8192) is 0 from there, so the inf at the start of tile 882 makes NaN, as
     * NumPy's zero does: the look-back's fold gives that however far back it reaches (it
     * summed the exponents and kept a nonzero product, inf there, when it reached past tile
     * 880). */
    int64_t lz = INT64_C(7233536);
    uint64_t *z = malloc((size_t)lz * 8);
    assert_non_null(z);
    for (int64_t i = 0; i < lz; i++)
        z[i] = check_float_bits(LOOM_DTYPE_F32, i < INT64_C(7206320) ? 0x1p-149 : 1.0);
    z[7208960] = check_float_bits(LOOM_DTYPE_F32, 0x1p-149);
    z[7217152] = check_float_bits(LOOM_DTYPE_F32, 0x1p127);
    z[7225344] = check_float_bits(LOOM_DTYPE_F32, INFINITY);
    loom_scope_begin(gpu);
    loom_scope_begin(cpu);
    cumprod_pair(&p, 1, &lz, z, 0, false, false, "below 2^-(2^30), then inf");
    pairs_check(&p);
    loom_scope_end(gpu);
    loom_scope_end(cpu);
    free(z);
}

/* The same sum twice gives the same bits (fixed launch shapes and combining order). */
static void test_deterministic(void **state) {
    (void)state;
    int64_t n = 1 << 24, col[2] = {65536, 64};
    int32_t zero = 0;
    loom_scope_begin(gpu);
    loom_array_t *x = loom_random_uniform(gpu, 5, LOOM_DTYPE_F32, 1, &n, -1, 1);
    loom_array_t *c = loom_random_uniform(gpu, 6, LOOM_DTYPE_F32, 2, col, -1, 1);
    loom_array_t *in[2] = {x, c};
    assert_int_equal(loom_eval(gpu, 2, in), LOOM_STATUS_OK);
    float first = 0, again = 0, cf[64], ca[64];
    for (int rep = 0; rep < 3; rep++) {
        loom_scope_begin(gpu);
        float *dst = rep ? &again : &first, *cd = rep ? ca : cf;
        assert_int_equal(loom_read(gpu, loom_sum(gpu, x, -1, NULL, 0), dst, 4), LOOM_STATUS_OK);
        assert_int_equal(loom_read(gpu, loom_sum(gpu, c, 1, &zero, 0), cd, sizeof cf),
                         LOOM_STATUS_OK);
        loom_scope_end(gpu);
        if (rep) {
            assert_memory_equal(&first, &again, 4);
            assert_memory_equal(cf, ca, sizeof cf);
        }
    }
    /* scans, twice each, the same bits: look-back tiles over one line of 2^24 (staged, a
     * block a tile), column groups, rows of three staged tiles (the last a part), and LB's
     * register form (the same shape read through a strided view: every other column of a
     * wider array; its tiles are half the staged form's: other brackets, other bits); then
     * float32 products along the line (their look-back folds 24-byte values; factors in
     * [0.999, 1.001)) */
    int64_t staged[2] = {256, 20480}, wide[2] = {256, 2 * 20480}, step[2] = {1, 2};
    loom_array_t *r = loom_random_uniform(gpu, 7, LOOM_DTYPE_F32, 2, staged, -1, 1);
    loom_array_t *w = loom_random_uniform(gpu, 8, LOOM_DTYPE_F32, 2, wide, -1, 1);
    assert_int_equal(loom_eval(gpu, 1, &w), LOOM_STATUS_OK);
    loom_array_t *every2 = loom_slice(gpu, w, 2, NULL, NULL, step);
    loom_array_t *near1 = loom_add_f(gpu, loom_multiply_f(gpu, x, 1e-3), 1.0);
    struct {
        loom_array_t *x;
        int32_t axis;
        bool prod;
    } scans[5] = {
        {x, 0, false}, {c, 0, false}, {r, 1, false}, {every2, 1, false}, {near1, 0, true}};
    float *s1 = malloc(sizeof(float) << 24), *s2 = malloc(sizeof(float) << 24);
    for (int k = 0; k < 5; k++) {
        size_t bytes = sizeof(float) * (size_t)loom_array_size(scans[k].x);
        for (int rep = 0; rep < 2; rep++) {
            loom_scope_begin(gpu);
            loom_array_t *y =
                (scans[k].prod ? loom_cumprod : loom_cumsum)(gpu, scans[k].x, scans[k].axis);
            assert_int_equal(loom_read(gpu, y, rep ? s2 : s1, bytes), LOOM_STATUS_OK);
            loom_scope_end(gpu);
        }
        assert_memory_equal(s1, s2, bytes);
    }
    free(s1);
    free(s2);
    loom_scope_end(gpu);
}

int main(void) {
    int opened = gpu_ref_open(&ref);
    if (opened != 0) return opened; /* 77: no CUDA device (skipped) */
    gpu = ref.gpu;
    cpu = ref.cpu;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ops_dtypes_axes),
        cmocka_unit_test(test_noncontiguous),
        cmocka_unit_test(test_row_lengths_and_splits),
        cmocka_unit_test(test_softmax_layernorm),
        cmocka_unit_test(test_layernorm_rows_reread),
        cmocka_unit_test(test_var_rows),
        cmocka_unit_test(test_traversal_order),
        cmocka_unit_test(test_split_softmax),
        cmocka_unit_test(test_fused_kernel_counts),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_scans),
        cmocka_unit_test(test_cumprod_float32),
        cmocka_unit_test(test_deterministic),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    gpu_ref_close(&ref);
    return rc;
}
