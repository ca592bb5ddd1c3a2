/* random.c — NumPy's Generator distributions on loom's Philox stream (docs/random.md).
 *
 * A call draws one array of the stream under its own key, loom_random_key(seed, stream), and
 * shapes it with existing builders (elementwise ops, sort, searchsorted, take), so it adds no
 * kernel of its own: the bits are those of the random leaves on every device. */
#include <math.h>

#include "fe.h"

/* SplitMix64 (Steele, Lea and Flood, 2014): the key is output number `stream` of the
 * generator seeded with `seed`. Its finaliser is a bijection, so the streams of one seed have
 * distinct keys. */
LOOM_API uint64_t loom_random_key(uint64_t seed, uint64_t stream) {
    uint64_t z = seed + (stream + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* ctx usable (not NULL, no pending error) and dtype a float dtype; records the error else. */
static bool float_dtype(loom_ctx_t *ctx, const char *fn, loom_dtype_t dtype) {
    if (ctx->err.status) return false;
    if ((unsigned)dtype >= LOOM_DTYPE_COUNT || !ir_is_float(dtype)) {
        fe_error(ctx, LOOM_STATUS_DTYPE_ERROR, "%s: unsupported dtype %s for %s", fn,
                 (unsigned)dtype < LOOM_DTYPE_COUNT ? ir_dtypes[dtype].name : "(invalid)", fn);
        return false;
    }
    return true;
}

/* The stream's float64 uniforms on [0, 1) in shape: 53 random bits each, exact. */
static loom_array_t *unit(loom_ctx_t *ctx, const char *fn, uint64_t seed, uint64_t stream,
                          int32_t ndim, const int64_t *shape) {
    if (!fe_check_shape(ctx, fn, ndim, shape, NULL)) return &ctx->nil;
    return loom_random_uniform(ctx, loom_random_key(seed, stream), LOOM_DTYPE_F64, ndim, shape, 0,
                               1);
}

/* floor(u * n) for uniforms u on [0, 1) in dtype (int64 or uint64), n 0 standing for 2^64.
 * u * n stays below n where n is exact as a double; past 2^53 the rounded n could reach it,
 * so the result is clamped to n - 1 in the integers. */
static loom_array_t *below(loom_ctx_t *ctx, loom_array_t *u, uint64_t n, loom_dtype_t dtype) {
    loom_array_t *x = loom_multiply(ctx, u, loom_weak_float(ctx, n ? (double)n : 0x1p64));
    loom_array_t *k = loom_astype(ctx, loom_floor(ctx, x), dtype);
    return loom_minimum(ctx, k, fe_const(ctx, dtype, 0, NULL, n - 1));
}

LOOM_API loom_array_t *loom_rng_uniform(loom_ctx_t *ctx, uint64_t seed, uint64_t stream, double low,
                                        double high, loom_dtype_t dtype, int32_t ndim,
                                        const int64_t *shape) {
    const char *fn = "uniform";
    if (!ctx) return NULL;
    if (!float_dtype(ctx, fn, dtype) || !fe_check_shape(ctx, fn, ndim, shape, NULL))
        return &ctx->nil;
    double range = high - low;
    if (isinf(range)) {
        fe_error(ctx, LOOM_STATUS_OVERFLOW, "%s: high - low range exceeds valid bounds", fn);
        return &ctx->nil;
    }
    if (!(range >= 0)) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: high - low < 0 (low %g, high %g)", fn, low,
                 high);
        return &ctx->nil;
    }
    return loom_random_uniform(ctx, loom_random_key(seed, stream), dtype, ndim, shape, low, high);
}

LOOM_API loom_array_t *loom_rng_normal(loom_ctx_t *ctx, uint64_t seed, uint64_t stream, double loc,
                                       double scale, loom_dtype_t dtype, int32_t ndim,
                                       const int64_t *shape) {
    const char *fn = "normal";
    if (!ctx) return NULL;
    if (!float_dtype(ctx, fn, dtype) || !fe_check_shape(ctx, fn, ndim, shape, NULL))
        return &ctx->nil;
    if (!(scale >= 0)) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: scale < 0 (scale %g)", fn, scale);
        return &ctx->nil;
    }
    return loom_random_normal(ctx, loom_random_key(seed, stream), dtype, ndim, shape, loc, scale);
}

LOOM_API loom_array_t *loom_rng_exponential(loom_ctx_t *ctx, uint64_t seed, uint64_t stream,
                                            double scale, loom_dtype_t dtype, int32_t ndim,
                                            const int64_t *shape) {
    const char *fn = "exponential";
    if (!ctx) return NULL;
    if (!float_dtype(ctx, fn, dtype)) return &ctx->nil;
    if (!(scale >= 0)) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: scale < 0 (scale %g)", fn, scale);
        return &ctx->nil;
    }
    /* inversion: -log(1 - u) is finite for u in [0, 1); log1p keeps small u accurate */
    loom_array_t *u = unit(ctx, fn, seed, stream, ndim, shape);
    loom_array_t *e = loom_negative(ctx, loom_log1p(ctx, loom_negative(ctx, u)));
    return loom_astype(ctx, loom_multiply(ctx, e, loom_weak_float(ctx, scale)), dtype);
}

/* Whether v fits integer dtype d (bool: 0 and 1). */
static bool fits(int64_t v, loom_dtype_t d) {
    if (d == LOOM_DTYPE_BOOL) return v == 0 || v == 1;
    int bits = (int)(8 * loom_dtype_size(d));
    if (ir_dtypes[d].kind == IR_DKIND_UINT) return v >= 0 && (bits == 64 || v < INT64_C(1) << bits);
    return bits == 64 || (v >= -(INT64_C(1) << (bits - 1)) && v < INT64_C(1) << (bits - 1));
}

LOOM_API loom_array_t *loom_rng_integers(loom_ctx_t *ctx, uint64_t seed, uint64_t stream,
                                         int64_t low, int64_t high, int endpoint,
                                         loom_dtype_t dtype, int32_t ndim, const int64_t *shape) {
    const char *fn = "integers";
    if (!ctx) return NULL;
    if (ctx->err.status) return &ctx->nil;
    if ((unsigned)dtype >= LOOM_DTYPE_COUNT || !(ir_is_int(dtype) || dtype == LOOM_DTYPE_BOOL)) {
        fe_error(ctx, LOOM_STATUS_DTYPE_ERROR, "%s: unsupported dtype %s for integers", fn,
                 (unsigned)dtype < LOOM_DTYPE_COUNT ? ir_dtypes[dtype].name : "(invalid)");
        return &ctx->nil;
    }
    if (endpoint ? low > high : low >= high) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: %s (low %lld, high %lld)", fn,
                 endpoint ? "low > high" : "low >= high", (long long)low, (long long)high);
        return &ctx->nil;
    }
    const char *bad = !fits(low, dtype) ? "low"
                      : !fits(endpoint ? high : high - 1, dtype) ? "high"
                                                                 : NULL;
    if (bad) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: %s is out of bounds for %s", fn, bad,
                 ir_dtypes[dtype].name);
        return &ctx->nil;
    }
    /* the count of values, 1..2^64 (2^64 wraps to 0) */
    uint64_t n = (uint64_t)high - (uint64_t)low + (endpoint ? 1u : 0u);
    loom_array_t *k = below(ctx, unit(ctx, fn, seed, stream, ndim, shape), n, LOOM_DTYPE_U64);
    /* low + k in uint64 wraps into the int64 value, in range by construction */
    loom_array_t *v = loom_add(ctx, k, fe_const(ctx, LOOM_DTYPE_U64, 0, NULL, (uint64_t)low));
    return loom_astype(ctx, loom_astype(ctx, v, LOOM_DTYPE_I64), dtype);
}

LOOM_API loom_array_t *loom_rng_permutation(loom_ctx_t *ctx, uint64_t seed, uint64_t stream,
                                            loom_array_t *x, int32_t axis) {
    const char *fn = "permutation";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, x)) return &ctx->nil;
    int32_t ax;
    if (!fe_axis(ctx, fn, axis, x->ndim, &ax)) return &ctx->nil;
    /* the order of independent uniforms is a uniform permutation (argsort is stable, so
     * even equal keys give a permutation) */
    int64_t n = x->shape[ax];
    loom_array_t *perm = loom_argsort(ctx, unit(ctx, fn, seed, stream, 1, &n), 0);
    return loom_take(ctx, x, perm, ax, LOOM_TAKE_CLIP);
}

/* p's facts for choice, evaluated now: whether it holds NaN or negatives, its sum and its count
 * of positive entries. False with the error recorded. */
static bool p_facts(loom_ctx_t *ctx, const char *fn, loom_array_t *p64, double *sum, int64_t *nan,
                    int64_t *neg, int64_t *pos) {
    loom_scope_begin(ctx);
    loom_array_t *zero = loom_weak_float(ctx, 0);
    loom_array_t *facts[4] = {loom_sum(ctx, p64, -1, NULL, 0),
                              loom_count_nonzero(ctx, loom_isnan(ctx, p64), -1, NULL, 0),
                              loom_count_nonzero(ctx, loom_less(ctx, p64, zero), -1, NULL, 0),
                              loom_count_nonzero(ctx, loom_greater(ctx, p64, zero), -1, NULL, 0)};
    loom_status_t st = loom_eval(ctx, 4, facts);
    if (st == LOOM_STATUS_OK) st = loom_read(ctx, facts[0], sum, sizeof *sum);
    if (st == LOOM_STATUS_OK) st = loom_read(ctx, facts[1], nan, sizeof *nan);
    if (st == LOOM_STATUS_OK) st = loom_read(ctx, facts[2], neg, sizeof *neg);
    if (st == LOOM_STATUS_OK) st = loom_read(ctx, facts[3], pos, sizeof *pos);
    loom_scope_end(ctx);
    if (st != LOOM_STATUS_OK && !ctx->err.status) fe_error(ctx, st, "%s: reading p failed", fn);
    return st == LOOM_STATUS_OK;
}

LOOM_API loom_array_t *loom_rng_choice(loom_ctx_t *ctx, uint64_t seed, uint64_t stream,
                                       loom_array_t *a, int32_t ndim, const int64_t *shape,
                                       int replace, loom_array_t *p, int32_t axis) {
    const char *fn = "choice";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a) || (p && !fe_check_arg(ctx, fn, p))) return &ctx->nil;
    int64_t k;
    if (!fe_check_shape(ctx, fn, ndim, shape, &k)) return &ctx->nil;
    if (a->ndim == 0) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: a must be at least 1-dimensional", fn);
        return &ctx->nil;
    }
    int32_t ax;
    if (!fe_axis(ctx, fn, axis, a->ndim, &ax)) return &ctx->nil;
    int64_t n = a->shape[ax];
    if (n == 0 && k > 0) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: a cannot be empty unless no samples are taken", fn);
        return &ctx->nil;
    }
    loom_array_t *p64 = NULL;
    int64_t positive = n;
    if (p) {
        if (p->ndim != 1) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: p must be 1-dimensional", fn);
            return &ctx->nil;
        }
        if (p->shape[0] != n) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                     "%s: a and p must have same size (%lld and %lld)", fn, (long long)n,
                     (long long)p->shape[0]);
            return &ctx->nil;
        }
        /* NumPy's tolerance: the square root of p's float epsilon, float64's at least */
        loom_dtype_t pd = (loom_dtype_t)p->dtype;
        double atol = 1.4901161193847656e-08;
        if (pd == LOOM_DTYPE_F32) atol = 3.4526698300124393e-04;
        if (pd == LOOM_DTYPE_F16) atol = 0.03125;
        if (pd == LOOM_DTYPE_BF16) atol = 0.088388347648318441;
        p64 = loom_astype(ctx, p, LOOM_DTYPE_F64);
        double sum = 0;
        int64_t nan = 0, neg = 0;
        if (loom_array_is_nil(p64) || !p_facts(ctx, fn, p64, &sum, &nan, &neg, &positive))
            return &ctx->nil;
        const char *why = nan                        ? "Probabilities contain NaN"
                          : neg                      ? "Probabilities are not non-negative"
                          : !(fabs(sum - 1) <= atol) ? "Probabilities do not sum to 1"
                                                     : NULL;
        if (why) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: %s", fn, why);
            return &ctx->nil;
        }
    }
    loom_array_t *idx;
    if (n == 0) { /* (no samples) */
        idx = loom_zeros(ctx, LOOM_DTYPE_I64, ndim, shape);
    } else if (replace && !p) {
        idx = below(ctx, unit(ctx, fn, seed, stream, ndim, shape), (uint64_t)n, LOOM_DTYPE_I64);
    } else if (replace) {
        /* inversion through the normalised running sum: an entry of p 0 owns an empty
         * interval of [0, 1), and the last step ends at 1 exactly */
        loom_array_t *cdf = loom_cumsum(ctx, p64, 0);
        cdf = loom_true_divide(ctx, cdf, fe_index_axis(ctx, cdf, 0, n - 1));
        idx = loom_searchsorted(ctx, cdf, unit(ctx, fn, seed, stream, ndim, shape), 1, NULL);
    } else {
        if (k > n) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                     "%s: Cannot take a larger sample than population when replace is False "
                     "(%lld of %lld)",
                     fn, (long long)k, (long long)n);
            return &ctx->nil;
        }
        if (k > positive) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: Fewer non-zero entries in p than size",
                     fn);
            return &ctx->nil;
        }
        /* the first k of a random order: uniform keys, or with p the exponential race
         * -log(1 - u) / p (Efraimidis and Spirakis), whose order is successive sampling in
         * proportion to p, as NumPy's draws without replacement; p 0 sorts last */
        loom_array_t *keys = unit(ctx, fn, seed, stream, 1, &n);
        if (p64) {
            loom_array_t *e = loom_negative(ctx, loom_log1p(ctx, loom_negative(ctx, keys)));
            loom_array_t *zero = loom_weak_float(ctx, 0);
            keys = loom_where(ctx, loom_greater(ctx, p64, zero), loom_true_divide(ctx, e, p64),
                              loom_weak_float(ctx, INFINITY));
        }
        int64_t start = 0;
        idx = loom_slice(ctx, loom_argsort(ctx, keys, 0), 1, &start, &k, NULL);
        idx = loom_reshape(ctx, idx, ndim, shape);
    }
    return loom_take(ctx, a, idx, ax, LOOM_TAKE_CLIP);
}
