/* test_indexing (gpu) — gathers, masks, sorts, sets and scatters on a real GPU, each compared
 * with the CPU reference device bit for bit (a float reduction around a gather: within a
 * tolerance scaled by the reduced extent). Gathers are loads inside their consumer's kernel
 * (kernel counts), generators fuse into reductions, sorts cover every dtype and the lengths
 * around warp, tile and block edges, scatters give the reference's float sums. Exit 77
 * without a GPU. */
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

#include "loom.h"

#define R 300
#define C 257
#define K 100
#define NB 5000
#define VMAX ((1 << 20) + 1)

typedef struct fx {
    loom_ctx_t *cpu, *gpu;
    float *x, *v, *w, *u;
    int64_t *j, *jr, *k, *jb, *ib;
} fx_t;

/* The named inputs of every expression, built in ctx; vlen: elements of v. */
#define N_IN 9
static const char *const names[N_IN] = {"x", "v", "j", "jr", "k", "jb", "ib", "w", "u"};

static void inputs(const fx_t *f, loom_ctx_t *ctx, int64_t vlen, loom_array_t **in) {
    int64_t xs[2] = {R, C}, ks[2] = {R, 1}, kk = K, nb = NB;
    in[0] = loom_from_host(ctx, LOOM_DTYPE_F32, 2, xs, f->x);
    in[1] = loom_from_host(ctx, LOOM_DTYPE_F32, 1, &vlen, f->v);
    in[2] = loom_from_host(ctx, LOOM_DTYPE_I64, 1, &kk, f->j);
    in[3] = loom_from_host(ctx, LOOM_DTYPE_I64, 1, &kk, f->jr);
    in[4] = loom_from_host(ctx, LOOM_DTYPE_I64, 2, ks, f->k);
    in[5] = loom_from_host(ctx, LOOM_DTYPE_I64, 1, &kk, f->jb);
    in[6] = loom_from_host(ctx, LOOM_DTYPE_I64, 1, &nb, f->ib);
    in[7] = loom_from_host(ctx, LOOM_DTYPE_F32, 1, &nb, f->w);
    in[8] = loom_from_host(ctx, LOOM_DTYPE_F32, 1, &nb, f->u);
}

typedef loom_array_t *build_fn(loom_ctx_t *ctx, loom_array_t **in, const void *arg);

static loom_array_t *by_expr(loom_ctx_t *ctx, loom_array_t **in, const void *arg) {
    return loom_expr(ctx, arg, N_IN, names, in);
}

/* Builds the result on both devices and compares: bytes, or float32 within rel_tol. Checks
 * that the GPU launched at most max_kernels kernels (< 0: not checked). */
static void both(fx_t *f, const char *what, build_fn *build, const void *arg, int64_t vlen,
                 double rel_tol, int max_kernels) {
    loom_ctx_t *cx[2] = {f->cpu, f->gpu};
    void *out[2] = {NULL, NULL};
    size_t nbytes[2] = {0, 0};
    loom_dtype_t dt = LOOM_DTYPE_F32;
    uint64_t kernels = 0;
    loom_ctx_clear_error(f->cpu);
    loom_ctx_clear_error(f->gpu);
    for (int d = 0; d < 2; d++) {
        loom_ctx_t *ctx = cx[d];
        loom_scope_begin(ctx);
        loom_array_t *in[N_IN];
        inputs(f, ctx, vlen, in);
        loom_eval(ctx, N_IN, in);
        loom_stats_t s0, s1;
        loom_ctx_stats(ctx, &s0);
        loom_array_t *r = build(ctx, in, arg);
        nbytes[d] = loom_array_nbytes(r);
        out[d] = malloc(nbytes[d] + 1);
        if (loom_read(ctx, r, out[d], nbytes[d]) != LOOM_STATUS_OK)
            fprintf(stderr, "%s (%lld) on %s: %s\n", what, (long long)vlen, d ? "cuda" : "cpu",
                    loom_ctx_message(ctx));
        assert_int_equal(loom_ctx_status(ctx), LOOM_STATUS_OK);
        loom_ctx_stats(ctx, &s1);
        if (d) kernels = s1.kernels_launched - s0.kernels_launched;
        dt = loom_array_dtype(r);
        loom_scope_end(ctx);
    }
    assert_int_equal(nbytes[0], nbytes[1]);
    int bad = 0;
    if (dt == LOOM_DTYPE_F32 && rel_tol > 0) {
        for (size_t i = 0; i < nbytes[0] / 4; i++) {
            float a = ((float *)out[0])[i], b = ((float *)out[1])[i];
            bool ok = (isnan(a) && isnan(b)) || fabs(a - b) <= rel_tol * (fabs(a) + 0.1);
            if (!ok && bad++ < 3) fprintf(stderr, "%s [%zu]: cpu %.9g gpu %.9g\n", what, i, a, b);
        }
    } else if (dt == LOOM_DTYPE_F32) { /* the bits; any NaN matches any (payloads differ) */
        for (size_t i = 0; i < nbytes[0] / 4; i++) {
            float a = ((float *)out[0])[i], b = ((float *)out[1])[i];
            if (!(isnan(a) && isnan(b)) && memcmp(&a, &b, 4) && bad++ < 3)
                fprintf(stderr, "%s [%zu]: cpu %.9g gpu %.9g\n", what, i, a, b);
        }
    } else {
        for (size_t i = 0; i < nbytes[0]; i++)
            if (((unsigned char *)out[0])[i] != ((unsigned char *)out[1])[i]) {
                if (bad++ == 0)
                    fprintf(stderr, "%s (%lld elements of v): byte %zu differs (%u vs %u)\n", what,
                            (long long)vlen, i, ((unsigned char *)out[0])[i],
                            ((unsigned char *)out[1])[i]);
            }
    }
    if (max_kernels >= 0 && (int)kernels > max_kernels)
        fprintf(stderr, "%s: %llu kernels, at most %d expected\n", what,
                (unsigned long long)kernels, max_kernels);
    assert_int_equal(bad, 0);
    if (max_kernels >= 0) assert_true((int)kernels <= max_kernels);
    free(out[0]);
    free(out[1]);
}

static void expr(fx_t *f, const char *e, double tol, int max_kernels) {
    both(f, e, by_expr, e, 1000, tol, max_kernels);
}

/* expr over all of v (VMAX elements), exact. */
static void expr_all(fx_t *f, const char *e, int max_kernels) {
    both(f, e, by_expr, e, VMAX, 0, max_kernels);
}

static void test_gathers_fuse(void **state) {
    fx_t *f = *state;
    expr(f, "take(x, j, axis=1)", 0, 1);
    expr(f, "x[:, j] * 2 + 1", 0, 1);
    expr(f, "x[jr]", 0, 1);
    expr(f, "x[jr, j]", 0, 1);
    expr(f, "x[jr[:, None], j] - x[jr[:, None], 0:1]", 0, 1);
    expr(f, "take(x, jb, axis=1, mode='wrap')", 0, 1);
    expr(f, "take(x, jb, axis=0, mode='clip')", 0, 1);
    expr(f, "take(x, j, axis=1).T + 1", 0, 1);
    expr(f, "take_along_axis(x, k, axis=1)", 0, 1);
    expr(f, "take(x * 2, j, axis=1)", 0, 2); /* the operand is computed first */
    /* in a reduction's prologue and epilogue: one kernel */
    expr(f, "sum(take(x, j, axis=1), axis=1)", 1e-5, 1);
    expr(f, "m = max(x, axis=1, keepdims=True);"
            "m + log(sum(exp(x - m), axis=1, keepdims=True)) - take_along_axis(x, k, axis=1)",
         1e-5, 1);
    /* generators are index arithmetic inside the reduction */
    expr(f, "sum(x * arange(257), axis=1)", 1e-5, 1);
    expr(f, "sum(x * linspace(0, 1, 257), axis=1) + max(x + eye(300, 257), axis=1)", 1e-5, 1);
}

/* Whether the context's message names one of the n indices in idx (+ shift) that is outside
 * an axis of C along axis 1, as NumPy's IndexError words it. */
static bool names_bad_index(loom_ctx_t *g, const int64_t *idx, int n, int64_t shift) {
    long long v = 0, size = 0;
    int axis = -1;
    const char *m = strstr(loom_ctx_message(g), "index ");
    if (!m || sscanf(m, "index %lld is out of bounds for axis %d with size %lld", &v, &axis,
                     &size) != 3) {
        fprintf(stderr, "unexpected message: %s\n", loom_ctx_message(g));
        return false;
    }
    bool found = false;
    for (int i = 0; i < n && !found; i++) found = idx[i] + shift == v;
    return found && axis == 1 && size == C && (v >= C || v < -C);
}

/* An out-of-range index raises on the device. The eval that meets it does not wait for the
 * device (no copy back: the host goes on queuing); the next call that waits reports it, and
 * every array computed from the raising eval's results keeps reporting it, while arrays that
 * do not depend on it stay readable, and the kernel's status word is cleared for the next
 * run. */
static void test_index_errors(void **state) {
    fx_t *f = *state;
    loom_ctx_t *g = f->gpu;
    float out[R * K];
    loom_ctx_clear_error(g);
    loom_scope_begin(g);
    loom_array_t *in[N_IN];
    inputs(f, g, 1000, in);
    loom_eval(g, N_IN, in);
    loom_array_t *bad = loom_expr(g, "take(x, jb, axis=1)", N_IN, names, in);
    loom_array_t *clean = loom_expr(g, "x * 2", N_IN, names, in);
    assert_int_equal(loom_eval(g, 1, &bad), LOOM_STATUS_OK);
    loom_stats_t s;
    loom_ctx_stats(g, &s);
    assert_int_equal(s.last_eval_d2h_copies, 0);
    assert_int_equal(loom_eval(g, 1, &clean), LOOM_STATUS_OK); /* after it, independent */
    loom_array_t *later = loom_add(g, bad, loom_weak_float(g, 1.0));
    assert_int_equal(loom_eval(g, 1, &later), LOOM_STATUS_OK);
    assert_int_equal(loom_sync(g), LOOM_STATUS_INDEX_ERROR);
    assert_true(names_bad_index(g, f->jb, K, 0));
    loom_ctx_clear_error(g);
    assert_int_equal(loom_sync(g), LOOM_STATUS_OK); /* reported once */
    float *ref = malloc(sizeof(float) * R * C);
    assert_int_equal(loom_read(g, clean, ref, sizeof(float) * R * C), LOOM_STATUS_OK);
    for (int i = 0; i < R * C; i++) assert_true(ref[i] == f->x[i] * 2);
    free(ref);
    loom_array_t *poisoned[3] = {bad, later, loom_multiply(g, later, later)};
    for (int i = 0; i < 3; i++) {
        loom_status_t st = loom_read(g, poisoned[i], out, sizeof out);
        assert_int_equal(st, LOOM_STATUS_INDEX_ERROR);
        assert_true(names_bad_index(g, f->jb, K, 0));
        loom_ctx_clear_error(g);
    }
    /* nor through a device pointer, or with a clean array in one read */
    assert_int_equal(loom_array_device_ptr(g, later), 0);
    assert_int_equal(loom_ctx_status(g), LOOM_STATUS_INDEX_ERROR);
    loom_ctx_clear_error(g);
    loom_array_t *pair[2] = {clean, bad};
    void *dsts[2] = {malloc(sizeof(float) * R * C), out};
    size_t sizes[2] = {sizeof(float) * R * C, sizeof out};
    assert_int_equal(loom_read_many(g, 2, pair, dsts, sizes), LOOM_STATUS_INDEX_ERROR);
    free(dsts[0]);
    loom_ctx_clear_error(g);
    loom_scope_end(g);
    /* read straight after the eval, and in a reduction's fused epilogue */
    loom_scope_begin(g);
    inputs(f, g, 1000, in);
    loom_array_t *r = loom_expr(g, "take(x, jb, axis=1)", N_IN, names, in);
    assert_int_equal(loom_read(g, r, out, sizeof out), LOOM_STATUS_INDEX_ERROR);
    assert_true(names_bad_index(g, f->jb, K, 0));
    loom_ctx_clear_error(g);
    r = loom_expr(g, "m = max(x, axis=1, keepdims=True); m - take_along_axis(x, k + 1000, axis=1)",
                  N_IN, names, in);
    assert_int_equal(loom_read(g, r, out, sizeof(float) * R), LOOM_STATUS_INDEX_ERROR);
    assert_true(names_bad_index(g, f->k, R, 1000));
    loom_scope_end(g);
    loom_ctx_clear_error(g);
    expr(f, "take(x, j, axis=1)", 0, 1); /* the context goes on: the word was cleared */
    expr(f, "m = max(x, axis=1, keepdims=True); m - take_along_axis(x, k, axis=1)", 0, 1);
}

static const char *const dtypes[] = {"float32", "float64", "float16", "bfloat16", "int8",
                                     "int16",   "int32",   "int64",   "uint8",    "uint16",
                                     "uint32",  "uint64",  "bool"};

/* Expression e over v of every length around warp, tile and block edges; the longest only
 * where long_too. */
static void each_len(fx_t *f, const char *e, bool long_too) {
    static const int64_t lens[] = {1, 2, 31, 32, 33, 1023, 1024, 1025, 4097, VMAX};
    for (size_t l = 0; l < sizeof lens / sizeof *lens; l++)
        if (lens[l] != VMAX || long_too) both(f, e, by_expr, e, lens[l], 0, -1);
}

static void test_sorts(void **state) {
    fx_t *f = *state;
    char e[200];
    for (size_t d = 0; d < sizeof dtypes / sizeof *dtypes; d++) {
        bool long_too = d <= 1 || d == 6; /* the long one: 3 dtypes */
        snprintf(e, sizeof e, "sort(astype(v, '%s'))", dtypes[d]);
        each_len(f, e, long_too);
        snprintf(e, sizeof e, "argsort(astype(v, '%s'))", dtypes[d]);
        each_len(f, e, long_too);
        snprintf(e, sizeof e, "argsort(astype(x, '%s'), axis=0)", dtypes[d]);
        expr(f, e, 0, -1);
        snprintf(e, sizeof e, "sort(astype(x, '%s'), axis=1)", dtypes[d]);
        expr(f, e, 0, -1);
        snprintf(e, sizeof e, "sort(astype(x.T, '%s'), axis=0)[:, ::3]", dtypes[d]);
        expr(f, e, 0, -1);
    }
    /* Floats whose keys give the elements back (one zero, one NaN bit pattern): no payloads.
     * (where, not abs or negation: their NaN bits differ between the devices.) v's own (both
     * zeros) carry the elements' bits. */
    for (size_t d = 0; d < 4; d++) {
        snprintf(e, sizeof e, "sort(astype(where(v <= 0, 1, v), '%s'))", dtypes[d]);
        each_len(f, e, true);
        snprintf(e, sizeof e, "sort(astype(where(v == 0, -0.0, v), '%s'))", dtypes[d]);
        each_len(f, e, true);
        snprintf(e, sizeof e, "sort(astype(where(x == 0, 0, x), '%s'), axis=1)", dtypes[d]);
        expr(f, e, 0, -1);
        snprintf(e, sizeof e, "sort(astype(where(x.T == 0, -0.0, x.T), '%s'), axis=0)[:, ::3]",
                 dtypes[d]);
        expr(f, e, 0, -1);
    }
    /* Rows of at most 8192 contiguous elements, enough of them to fill the GPU: a block a
     * row, every pass in its shared memory (one kernel, after at most the reshaped view's
     * copy and, for dtypes other than float32, the cast: three in all; the device-wide sort
     * takes five or more). Full rows of 8192 and 4096, every dtype of at most 4 bytes (wider
     * ones take the device-wide sort); NaNs and both zeros in line order. */
    expr_all(f, "argsort(reshape(v[:1048576], (256, 4096)), axis=1)", 2);
    for (size_t d = 0; d < sizeof dtypes / sizeof *dtypes; d++) {
        snprintf(e, sizeof e,
                 "argsort(astype(reshape(tile(v[:655360], 4), (320, 8192)), '%s'), "
                 "axis=1)",
                 dtypes[d]);
        expr_all(f, e, strstr(dtypes[d], "64") ? -1 : 3);
        snprintf(e, sizeof e, "sort(astype(reshape(v[:1048576], (256, 4096)), '%s'), axis=1)",
                 dtypes[d]);
        expr_all(f, e, strstr(dtypes[d], "64") ? -1 : 3);
    }
    /* rows of other lengths: the tile is the next power of two, the rest of it empty */
    expr_all(f, "argsort(reshape(v[:1000000], (200, 5000)), axis=1)", 2);
    expr_all(f, "argsort(reshape(v[:263168], (1024, 257)), axis=1)", 2);
    expr_all(f, "sort(astype(reshape(v[:75000] * 100, (250, 300)), 'int16'), axis=1)", 2);
    expr_all(f,
             "sort(where(reshape(v[:1048576], (256, 4096)) > 1.5, nan, "
             "where(reshape(v[:1048576], (256, 4096)) < 0.2, -0.0, reshape(v[:1048576], (256, "
             "4096)))), axis=1)",
             -1);
    /* Order statistics of lines of 256 or more: a radix select, no sort. Every dtype along
     * rows and columns; floats with both zeros around the rank (the zero at the rank's place
     * among them, in line order), and single lines of every length (NaN-free: a NaN makes the
     * median NaN). */
    for (size_t d = 0; d < sizeof dtypes / sizeof *dtypes; d++) {
        snprintf(e, sizeof e, "median(astype(x, '%s'), axis=1)", dtypes[d]);
        expr(f, e, 0, -1);
        snprintf(e, sizeof e, "median(astype(x, '%s'), axis=0)", dtypes[d]);
        expr(f, e, 0, -1);
        snprintf(e, sizeof e, "quantile(astype(x, '%s'), 0.3, axis=1, method='lower')", dtypes[d]);
        expr(f, e, 0, -1);
        if (d >= 4) continue;
        snprintf(e, sizeof e,
                 "quantile(astype(where(x < 0.25, where(x < -0.25, x, x * 0), x), '%s'), 0.5, "
                 "axis=1, method='lower')",
                 dtypes[d]);
        expr(f, e, 0, -1);
        snprintf(e, sizeof e,
                 "quantile(astype(where(v != v, -0.0, v), '%s'), 0.37, method='nearest')",
                 dtypes[d]);
        each_len(f, e, d < 2);
        snprintf(e, sizeof e, "median(astype(where(v != v, 0, v), '%s'))", dtypes[d]);
        each_len(f, e, d < 2);
    }
    expr(f, "median(x)", 0, -1);                              /* one line of 77100 */
    expr(f, "median(where(x > 1.5, nan, x), axis=1)", 0, -1); /* NaN rows */
    /* u: one zero, NaNs of three bit patterns, compared bit for bit as float64: payloads */
    both(f, "sort(astype(u, 'float64'))", by_expr, "sort(astype(u, 'float64'))", 1000, 0, -1);
    both(f, "sort(astype(where(u != u, 1, u), 'float64'))", by_expr,
         "sort(astype(where(u != u, 1, u), 'float64'))", 1000, 0, -1); /* no NaN */
    expr(f, "sort(x * 0)", 0, -1); /* all equal, signed zeros kept in order */
    expr(f, "argsort(sort(v))", 0, -1);
    expr(f, "argsort(-sort(v))", 0, -1);
    expr(f, "searchsorted(sort(v), x)", 0, -1);
    expr(f, "searchsorted(sort(v), x, side='right')", 0, -1);
    expr(f, "searchsorted(sort(astype(v, 'int16')), astype(x * 100, 'int16'))", 0, -1);
}

/* JAX's size= form: positions past the size dropped, the rest filled (by the write kernel's
 * last block). */
static loom_array_t *sized_build(loom_ctx_t *ctx, loom_array_t **in, const void *arg) {
    const int64_t *size = arg;
    return loom_flatnonzero_sized(ctx, loom_expr(ctx, "x > 0", N_IN, names, in), *size, -7);
}

/* x[mask] over enough tiles that a persistent block takes several: a (v tiled 9 times,
 * 2304 tiles of 4096) evaluated first, so that the compaction reads it as an input. */
static loom_array_t *long_mask_build(loom_ctx_t *ctx, loom_array_t **in, const void *arg) {
    loom_array_t *a = loom_expr(ctx, "tile(v, 9)", N_IN, names, in), *m = loom_greater_f(ctx, a, 0);
    loom_array_t *d = loom_astype(ctx, a, LOOM_DTYPE_F64);
    loom_array_t *ev[3] = {a, m, d};
    loom_eval(ctx, 3, ev);
    const char *nm[3] = {"a", "m", "d"};
    return loom_expr(ctx, arg, 3, nm, ev);
}

/* x[m] with the mask m = (v > 0) evaluated first, so that it is an input of the compaction;
 * arg: the values' expression. */
static loom_array_t *stored_mask_build(loom_ctx_t *ctx, loom_array_t **in, const void *arg) {
    loom_array_t *ev[2] = {loom_expr(ctx, arg, N_IN, names, in),
                           loom_expr(ctx, "v > 0", N_IN, names, in)};
    loom_eval(ctx, 2, ev);
    return loom_boolean_index(ctx, ev[0], ev[1], 0);
}

static void test_masks_and_sets(void **state) {
    fx_t *f = *state;
    char e[200];
    expr(f, "x[x > 0.5]", 0, 1); /* one kernel: the mask computed in the compaction */
    /* a mask over every element: the kept values copied directly, every payload width */
    for (size_t d = 0; d < sizeof dtypes / sizeof *dtypes; d++) {
        snprintf(e, sizeof e, "astype(x * 4, '%s')[x > 0.5]", dtypes[d]);
        expr(f, e, 0, -1);
    }
    expr(f, "astype(x, 'complex128')[x > 0]", 0, -1);
    expr(f, "astype(x, 'complex64')[x < 0]", 0, -1);
    expr(f, "extract(x > 0, x * 2)", 0, -1);
    expr(f, "x.T[x.T > 0]", 0, -1);
    expr(f, "x[x > 1e30]", 0, -1); /* nothing kept */
    for (size_t l = 0; l < 4; l++) { /* empty, one, a tile and one, 257 tiles */
        static const int64_t lens[] = {0, 1, 4097, VMAX};
        both(f, "v[v > 0]", by_expr, "v[v > 0]", lens[l], 0, 1);
        both(f, "v[abs(v) >= 0]", by_expr, "v[abs(v) >= 0]", lens[l], 0, 1);       /* all kept */
        both(f, "(v * 2)[v > 1e30]", by_expr, "(v * 2)[v > 1e30]", lens[l], 0, 1); /* none */
        both(f, "v[m], m stored", stored_mask_build, "v", lens[l], 0, -1);
        both(f, "(v * 2)[m], m stored", stored_mask_build, "v * 2", lens[l], 0, -1);
    }
    both(f, "a[a > 0]", long_mask_build, "a[a > 0]", VMAX, 0, -1);
    both(f, "a[m]", long_mask_build, "a[m]", VMAX, 0, -1);
    both(f, "d[m]", long_mask_build, "d[m]", VMAX, 0, -1);
    expr(f, "flatnonzero(x > 0)", 0, -1);
    static const int64_t sizes[] = {0, 5, 4097, R * C, 100000};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
        both(f, "flatnonzero(x > 0, size)", sized_build, &sizes[k], 1000, 0, -1);
    expr(f, "argwhere(x < -1)", 0, -1);
    expr(f, "x[:, x[0] > 0]", 0, -1);
    expr(f, "unique(v)", 0, -1);
    expr(f, "unique_counts(v)[1]", 0, -1);
    expr(f, "unique_inverse(v)[1]", 0, -1);
    expr(f, "isin(x, v)", 0, -1);
    expr(f, "intersect1d(v, x)", 0, -1);
    expr(f, "count_nonzero(x > 0, axis=0)", 0, -1);
}

static loom_array_t *at_build(loom_ctx_t *ctx, loom_array_t **in, const void *arg) {
    const loom_at_op_t *op = arg;
    int32_t ax = 0;
    int64_t n = 1000;
    loom_array_t *base = loom_reshape(ctx, in[1], 1, &n); /* v */
    loom_array_t *idx = loom_remainder(ctx, in[6], loom_full_int(ctx, LOOM_DTYPE_I64, 0, NULL, 1000));
    return loom_at(ctx, base, 1, &ax, &idx, in[7], *op);
}

/* The same into int32 (atomics: exact in any order) and uint64 (sorted runs for set). */
static loom_array_t *at_int_build(loom_ctx_t *ctx, loom_array_t **in, const void *arg) {
    const loom_at_op_t *op = arg;
    int32_t ax = 0;
    int64_t n = 1000;
    loom_dtype_t d = *op == LOOM_AT_SET ? LOOM_DTYPE_U64 : LOOM_DTYPE_I32;
    loom_array_t *base = loom_astype(ctx, loom_reshape(ctx, in[1], 1, &n), d);
    loom_array_t *idx = loom_remainder(ctx, in[6], loom_full_int(ctx, LOOM_DTYPE_I64, 0, NULL, 1000));
    return loom_at(ctx, base, 1, &ax, &idx, loom_astype(ctx, in[7], d), *op);
}

static loom_array_t *bincount_build(loom_ctx_t *ctx, loom_array_t **in, const void *arg) {
    (void)arg;
    return loom_bincount(ctx, loom_remainder(ctx, in[6], loom_full_int(ctx, LOOM_DTYPE_I64, 0,
                                                                          NULL, 97)),
                         in[7], 0);
}

static void test_scatters(void **state) {
    fx_t *f = *state;
    static const loom_at_op_t ops[4] = {LOOM_AT_SET, LOOM_AT_ADD, LOOM_AT_MIN, LOOM_AT_MAX};
    static const char *const opn[4] = {"at set", "at add", "at min", "at max"};
    for (int k = 0; k < 4; k++) both(f, opn[k], at_build, &ops[k], 1000, 0, -1);
    /* integer add, min, max: one atomic kernel after copies of the operands (a sort: 8+) */
    for (int k = 0; k < 4; k++) both(f, opn[k], at_int_build, &ops[k], 1000, 0, k ? 5 : -1);
    /* 5000 float weights into 97 bins: the reference's sums, bit for bit */
    both(f, "bincount(weights)", bincount_build, NULL, 1000, 0, -1);
    expr(f, "bincount(ib)", 0, -1);
    /* complex minimum.at / maximum.at: compositions of the real scatters (NaNs, both zeros,
     * infinities and many ties among the parts), bit for bit */
    expr(f,
         "y = complex(v[:1000], x.ravel()[:1000]); np.minimum.at(y, ib % 1000, complex(round(w "
         "/ 300), where(isnan(v[ib % 1000]), v[ib % 1000], round(w / 100)))); y",
         0, -1);
    expr(f,
         "y = complex(x.ravel()[:1000], v[:1000]); np.maximum.at(y, ib % 1000, complex(where("
         "isnan(v[ib % 1000]), v[ib % 1000], round(w / 300)), round(w / 100))); y",
         0, -1);
    expr(f, "y = x; y[jr] = 0.5; y", 0, -1);
    expr(f, "y = x * 1; y[x > 1] = 0; y", 0, -1);
}

static int setup(void **state) {
    fx_t *f = calloc(1, sizeof *f);
    loom_options_t o = {0};
    o.device = LOOM_DEVICE_CUDA;
    if (loom_ctx_create(&o, &f->gpu) != LOOM_STATUS_OK) {
        loom_ctx_destroy(f->gpu);
        free(f);
        exit(77);
    }
    o.device = LOOM_DEVICE_CPU;
    assert_int_equal(loom_ctx_create(&o, &f->cpu), LOOM_STATUS_OK);
    f->x = malloc(sizeof(float) * R * C);
    f->v = malloc(sizeof(float) * VMAX);
    f->w = malloc(sizeof(float) * NB);
    f->u = malloc(sizeof(float) * NB);
    f->j = malloc(sizeof(int64_t) * K);
    f->jr = malloc(sizeof(int64_t) * K);
    f->jb = malloc(sizeof(int64_t) * K);
    f->k = malloc(sizeof(int64_t) * R);
    f->ib = malloc(sizeof(int64_t) * NB);
    srand(7);
    /* values with many duplicates, both zeros, NaN and infinities */
    for (int i = 0; i < R * C; i++) f->x[i] = (float)(rand() % 401 - 200) / 100.0f;
    for (int i = 0; i < VMAX; i++) f->v[i] = (float)(rand() % 4001 - 2000) / 10.0f;
    for (int i = 0; i < VMAX; i += 97) f->v[i] = -0.0f;
    for (int i = 5; i < VMAX; i += 331) f->v[i] = NAN;
    for (int i = 7; i < VMAX; i += 1001) f->v[i] = (i & 1) ? INFINITY : -INFINITY;
    for (int i = 3; i < R * C; i += 53) f->x[i] = -0.0f;
    for (int i = 0; i < NB; i++) f->w[i] = (float)rand() / (float)RAND_MAX * 1000.0f - 300.0f;
    for (int i = 0; i < K; i++) {
        f->j[i] = rand() % (2 * C) - C;
        f->jr[i] = rand() % (2 * R) - R;
        f->jb[i] = rand() % (6 * C) - 3 * C;
    }
    for (int i = 0; i < R; i++) f->k[i] = rand() % C;
    for (int i = 0; i < NB; i++) f->ib[i] = rand() % 1000;
    static const uint32_t nans[3] = {0x7fc00000u, 0xffc00000u, 0x7fc00001u};
    for (int i = 0; i < NB; i++) {
        f->u[i] = (float)(rand() % 41 - 20);
        if (i % 7 == 3) memcpy(&f->u[i], &nans[i % 3], 4);
    }
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fx_t *f = *state;
    loom_ctx_destroy(f->cpu);
    loom_ctx_destroy(f->gpu);
    free(f->x);
    free(f->v);
    free(f->w);
    free(f->u);
    free(f->j);
    free(f->jr);
    free(f->jb);
    free(f->k);
    free(f->ib);
    free(f);
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gathers_fuse),   cmocka_unit_test(test_index_errors),
        cmocka_unit_test(test_sorts),          cmocka_unit_test(test_masks_and_sets),
        cmocka_unit_test(test_scatters),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
