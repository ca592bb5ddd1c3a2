/* stats.c — NumPy's NaN-ignoring reductions, arg-reductions and scans, ptp, median, quantiles, weighted
 * averages, isclose and nan_to_num, built from loom's reductions and
 * elementwise ops (so each fuses into one reduction step where the reductions share their
 * operand): NaN elements become the reduction's identity (0 for sums, 1 for products, -inf /
 * +inf for max / min), counts of the others divide the means, and an all-NaN slice gives NaN
 * as NumPy's does (without its warning). Integer and bool arrays have no NaN: their NaN
 * functions are the plain ones. */
#include <math.h>
#include <string.h>

#include "fe.h"

/* a with its NaN elements replaced by the scalar fill (a's dtype). */
static loom_array_t *nan_to(loom_ctx_t *ctx, loom_array_t *a, double fill) {
    loom_array_t *f =
        loom_astype(ctx, loom_full(ctx, LOOM_DTYPE_F64, 0, NULL, fill), (loom_dtype_t)a->dtype);
    return loom_where(ctx, loom_isnan(ctx, a), f, a);
}

static bool has_nan(const loom_array_t *a) {
    return ir_is_float((loom_dtype_t)a->dtype) || ir_is_complex((loom_dtype_t)a->dtype);
}

LOOM_API loom_array_t *loom_nansum(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                   const int32_t *axes, int keepdims) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "nansum", a)) return &ctx->nil;
    return loom_sum(ctx, has_nan(a) ? nan_to(ctx, a, 0) : a, naxes, axes, keepdims);
}

LOOM_API loom_array_t *loom_nanprod(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                    const int32_t *axes, int keepdims) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "nanprod", a)) return &ctx->nil;
    return loom_prod(ctx, has_nan(a) ? nan_to(ctx, a, 1) : a, naxes, axes, keepdims);
}

/* nanmax / nanmin: the extreme of the others, NaN where every element is NaN. */
static loom_array_t *nan_extreme(loom_ctx_t *ctx, const char *fn, bool max, loom_array_t *a,
                                 int32_t naxes, const int32_t *axes, int keepdims) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a)) return &ctx->nil;
    if (!has_nan(a)) return (max ? loom_max : loom_min)(ctx, a, naxes, axes, keepdims);
    loom_array_t *m = (max ? loom_max : loom_min)(ctx, nan_to(ctx, a, max ? -INFINITY : INFINITY),
                                                  naxes, axes, keepdims);
    loom_array_t *none = loom_all(ctx, loom_isnan(ctx, a), naxes, axes, keepdims);
    loom_array_t *nan =
        loom_astype(ctx, loom_full(ctx, LOOM_DTYPE_F64, 0, NULL, NAN), (loom_dtype_t)a->dtype);
    return loom_where(ctx, none, nan, m);
}

LOOM_API loom_array_t *loom_nanmax(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                   const int32_t *axes, int keepdims) {
    return nan_extreme(ctx, "nanmax", true, a, naxes, axes, keepdims);
}

LOOM_API loom_array_t *loom_nanmin(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                   const int32_t *axes, int keepdims) {
    return nan_extreme(ctx, "nanmin", false, a, naxes, axes, keepdims);
}

/* nanargmax / nanargmin: NaN elements become -inf / +inf (complex: -inf + 0j, as NumPy's),
 * then argmax / argmin; a slice that is
 * all NaN is NumPy's ValueError, found by evaluating that condition now (a sync, as NumPy's
 * check is). Integer and bool arrays have no NaN: the plain functions. */
static loom_array_t *nan_arg(loom_ctx_t *ctx, const char *fn, bool max, loom_array_t *a,
                             int32_t naxes, const int32_t *axes, int keepdims) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a)) return &ctx->nil;
    loom_array_t *(*arg)(loom_ctx_t *, loom_array_t *, int32_t, const int32_t *, int) =
        max ? loom_argmax : loom_argmin;
    if (!(ir_is_float((loom_dtype_t)a->dtype) || ir_is_complex((loom_dtype_t)a->dtype)) ||
        fe_size(a) == 0)
        return arg(ctx, a, naxes, axes, keepdims);
    loom_array_t *nan = loom_isnan(ctx, a);
    bool bad;
    if (!fe_any_true(ctx, loom_all(ctx, nan, naxes, axes, 0), &bad)) return &ctx->nil;
    if (bad) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: All-NaN slice encountered", fn);
        return &ctx->nil;
    }
    return arg(ctx, nan_to(ctx, a, max ? -INFINITY : INFINITY), naxes, axes, keepdims);
}

LOOM_API loom_array_t *loom_nanargmax(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                      const int32_t *axes, int keepdims) {
    return nan_arg(ctx, "nanargmax", true, a, naxes, axes, keepdims);
}

LOOM_API loom_array_t *loom_nanargmin(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                      const int32_t *axes, int keepdims) {
    return nan_arg(ctx, "nanargmin", false, a, naxes, axes, keepdims);
}

/* The wide dtype of a's mean: complex128 for complex a, else float64. */
static loom_dtype_t wide_of(const loom_array_t *a) {
    return ir_is_complex((loom_dtype_t)a->dtype) ? LOOM_DTYPE_C128 : LOOM_DTYPE_F64;
}

/* The sum of the non-NaN elements (in the mean's accumulation dtype), as float64 (complex:
 * complex128). */
static loom_array_t *nan_sum64(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes, const int32_t *axes,
                               int keepdims) {
    loom_dtype_t acc = a->dtype == LOOM_DTYPE_F16 || a->dtype == LOOM_DTYPE_BF16
                           ? LOOM_DTYPE_F32
                           : (loom_dtype_t)a->dtype;
    loom_array_t *s =
        loom_sum(ctx, loom_astype(ctx, nan_to(ctx, a, 0), acc), naxes, axes, keepdims);
    return loom_astype(ctx, s, wide_of(a));
}

/* The count of the non-NaN elements, as float64. */
static loom_array_t *nan_count64(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                 const int32_t *axes, int keepdims) {
    loom_array_t *c =
        loom_count_nonzero(ctx, loom_logical_not(ctx, loom_isnan(ctx, a)), naxes, axes, keepdims);
    return loom_astype(ctx, c, LOOM_DTYPE_F64);
}

LOOM_API loom_array_t *loom_nanmean(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                    const int32_t *axes, int keepdims) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "nanmean", a)) return &ctx->nil;
    if (!has_nan(a)) return loom_mean(ctx, a, naxes, axes, keepdims);
    loom_array_t *q = loom_true_divide(ctx, nan_sum64(ctx, a, naxes, axes, keepdims),
                                       nan_count64(ctx, a, naxes, axes, keepdims));
    return loom_astype(ctx, q, (loom_dtype_t)a->dtype); /* 0/0: NaN */
}

/* nanvar / nanstd: the mean of the others, their squared deviations summed over count - ddof
 * (NaN where that is not positive, as NumPy's). */
static loom_array_t *nan_moment(loom_ctx_t *ctx, const char *fn, bool root, loom_array_t *a,
                                int32_t naxes, const int32_t *axes, int keepdims, double ddof) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a)) return &ctx->nil;
    if (!has_nan(a)) return (root ? loom_std : loom_var)(ctx, a, naxes, axes, keepdims, ddof);
    loom_array_t *mean = loom_true_divide(ctx, nan_sum64(ctx, a, naxes, axes, 1),
                                          nan_count64(ctx, a, naxes, axes, 1)); /* broadcast back */
    loom_array_t *n2 = nan_count64(ctx, a, naxes, axes, keepdims); /* in the result's shape */
    loom_array_t *d = loom_subtract(ctx, loom_astype(ctx, a, wide_of(a)), mean);
    /* |d|^2; only the NaN elements of a count as 0 (inf - inf stays NaN, as NumPy's) */
    loom_array_t *sq = loom_where(ctx, loom_isnan(ctx, a),
                                  loom_full(ctx, LOOM_DTYPE_F64, 0, NULL, 0), fe_abs2(ctx, d));
    loom_array_t *ss = loom_sum(ctx, sq, naxes, axes, keepdims);
    loom_array_t *dof = loom_subtract(ctx, n2, loom_full(ctx, LOOM_DTYPE_F64, 0, NULL, ddof));
    loom_array_t *v = loom_true_divide(ctx, ss, dof);
    loom_array_t *bad = loom_less_equal(ctx, dof, loom_full(ctx, LOOM_DTYPE_F64, 0, NULL, 0));
    v = loom_where(ctx, bad, loom_full(ctx, LOOM_DTYPE_F64, 0, NULL, NAN), v);
    if (root) v = loom_sqrt(ctx, v);
    return loom_astype(ctx, v, ir_real_dtype((loom_dtype_t)a->dtype));
}

LOOM_API loom_array_t *loom_nanvar(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                   const int32_t *axes, int keepdims, double ddof) {
    return nan_moment(ctx, "nanvar", false, a, naxes, axes, keepdims, ddof);
}

LOOM_API loom_array_t *loom_nanstd(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                   const int32_t *axes, int keepdims, double ddof) {
    return nan_moment(ctx, "nanstd", true, a, naxes, axes, keepdims, ddof);
}

LOOM_API loom_array_t *loom_ptp(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                const int32_t *axes, int keepdims) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "ptp", a)) return &ctx->nil;
    return loom_subtract(ctx, loom_max(ctx, a, naxes, axes, keepdims),
                         loom_min(ctx, a, naxes, axes, keepdims));
}

/* ---- median and quantiles: the order statistics of each slice ---- */

/* NumPy's median, nanmedian and nanquantile of an empty array: the mean (nanmean) of a over
 * the axis, NaN of the reduced shape (NumPy's code returns exactly that, whatever q); NULL
 * where a holds elements. */
static loom_array_t *empty_stat(loom_ctx_t *ctx, loom_array_t *a, int32_t axis, int keepdims,
                                bool nan) {
    if (loom_array_size(a) != 0) return NULL;
    bool all = axis == LOOM_AXIS_NONE;
    return (nan ? loom_nanmean : loom_mean)(ctx, a, all ? -1 : 1, all ? NULL : &axis, keepdims);
}

/* a with axis ax moved last (LOOM_AXIS_NONE: flattened), and the length *n of that axis; nil
 * (the error recorded) where it is empty. */
static loom_array_t *line_last(loom_ctx_t *ctx, const char *fn, loom_array_t *a, int32_t axis,
                               int32_t *ax_out, int64_t *n) {
    int32_t ax;
    if (!fe_axis_or_flat(ctx, fn, &a, axis, &ax)) return &ctx->nil;
    *ax_out = ax;
    int32_t last = a->ndim - 1;
    a = loom_moveaxis(ctx, a, 1, &ax, &last);
    if (a->flags & FE_NIL) return a;
    *n = a->shape[a->ndim - 1];
    if (*n == 0) {
        fe_error(ctx, LOOM_STATUS_INDEX_ERROR, "%s: the slices are empty", fn);
        return &ctx->nil;
    }
    return a;
}

/* line_last's array sorted along the last axis (NaN last). */
static loom_array_t *sorted_last(loom_ctx_t *ctx, const char *fn, loom_array_t *a, int32_t axis,
                                 int32_t *ax_out, int64_t *n) {
    a = line_last(ctx, fn, a, axis, ax_out, n);
    return a->flags & FE_NIL ? a : loom_sort(ctx, a, -1);
}

/* Element i of the last axis (the axis dropped). */
static loom_array_t *order_stat(loom_ctx_t *ctx, loom_array_t *s, int64_t i) {
    return loom_take(ctx, s, fe_i64(ctx, i), s->ndim - 1, LOOM_TAKE_RAISE);
}

/* The elements at positions ranks[0 .. m) (m <= LOOM_MAX_DIMS) of each line along the last
 * axis of a as loom_sort orders it, along a last axis of m: a SELECT node (a radix select,
 * no sort) for real dtypes and lines of 256 elements up to 2^31; else the sort, gathered.
 * Shorter lines sort faster than a block a line selects. */
static loom_array_t *order_stats(loom_ctx_t *ctx, loom_array_t *a, int m, const int64_t *ranks) {
    int64_t n = a->shape[a->ndim - 1];
    if (!ir_is_complex((loom_dtype_t)a->dtype) && n >= 256 && n < (INT64_C(1) << 31)) {
        ir_params_t p = {0};
        p.axis = a->ndim - 1;
        memcpy(p.ax, ranks, (size_t)m * sizeof *ranks);
        int64_t shape[LOOM_MAX_DIMS];
        memcpy(shape, a->shape, (size_t)a->ndim * sizeof *shape);
        shape[a->ndim - 1] = m;
        return fe_shaped(ctx, IR_OP_SELECT, (loom_dtype_t)a->dtype, a->ndim, shape, 1, &a, &p);
    }
    loom_array_t *s = loom_sort(ctx, a, -1), *picked[LOOM_MAX_DIMS];
    for (int r = 0; r < m; r++)
        picked[r] = loom_take(ctx, s, fe_i64(ctx, ranks[r]), s->ndim - 1, LOOM_TAKE_RAISE);
    return loom_stack(ctx, m, picked, -1);
}

/* r, NaN where the slice holds a NaN (its largest element in sort order, last, is one), in
 * r's dtype. */
static loom_array_t *nan_slices(loom_ctx_t *ctx, loom_array_t *last, loom_array_t *r) {
    loom_array_t *nan =
        loom_astype(ctx, loom_full(ctx, LOOM_DTYPE_F64, 0, NULL, NAN), (loom_dtype_t)r->dtype);
    return loom_where(ctx, loom_isnan(ctx, last), nan, r);
}

/* The reduced result r in keepdims form: axis ax (or every axis: LOOM_AXIS_NONE) of a kept. */
static loom_array_t *keep_axes(loom_ctx_t *ctx, loom_array_t *r, const loom_array_t *a,
                               int32_t axis, int32_t ax) {
    int64_t shape[LOOM_MAX_DIMS];
    for (int32_t i = 0; i < a->ndim; i++)
        shape[i] = axis == LOOM_AXIS_NONE || i == ax ? 1 : a->shape[i];
    return loom_reshape(ctx, r, a->ndim, shape);
}

LOOM_API loom_array_t *loom_median(loom_ctx_t *ctx, loom_array_t *a, int32_t axis, int keepdims) {
    const char *fn = "median";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a)) return &ctx->nil;
    loom_array_t *e = empty_stat(ctx, a, axis, keepdims, false);
    if (e) return e;
    int32_t ax = 0;
    int64_t n = 0;
    loom_array_t *l = line_last(ctx, fn, a, axis, &ax, &n);
    if (l->flags & FE_NIL) return l;
    /* NumPy: the mean of the middle one or two elements; NaN where the slice holds one */
    bool fl = ir_is_float((loom_dtype_t)l->dtype);
    int64_t lo = (n - 1) / 2, hi = n / 2, ranks[3] = {lo, hi, n - 1};
    int mid = hi > lo ? 2 : 1;
    ranks[mid] = n - 1; /* the largest: NaN where the slice holds one */
    loom_array_t *s = order_stats(ctx, l, mid + fl, ranks);
    int32_t last = -1;
    loom_array_t *r = loom_mean(ctx, fe_slice_axis(ctx, s, s->ndim - 1, 0, mid, 1), 1, &last, 0);
    if (fl) r = nan_slices(ctx, order_stat(ctx, s, mid), r);
    return keepdims ? keep_axes(ctx, r, a, axis, ax) : r;
}

/* NumPy's (alpha, beta) of the continuous methods (H&F): index n q + alpha + q (1 - alpha -
 * beta) - 1. */
static double continuous_index(int64_t n, double q, double alpha, double beta) {
    return (double)n * q + (alpha + q * (1 - alpha - beta)) - 1;
}

LOOM_API loom_array_t *loom_quantile(loom_ctx_t *ctx, loom_array_t *a, double q, int32_t axis,
                                     loom_quantile_method_t method, int keepdims) {
    const char *fn = "quantile";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a)) return &ctx->nil;
    if (!(q >= 0 && q <= 1)) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: quantiles must be in the range [0, 1] (%g)", fn, q);
        return &ctx->nil;
    }
    if ((int)method < 0 || method > LOOM_QUANTILE_NEAREST) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: method %d is not a valid method", fn,
                 (int)method);
        return &ctx->nil;
    }
    int32_t ax = 0;
    int64_t n = 0;
    loom_array_t *l = line_last(ctx, fn, a, axis, &ax, &n);
    if (l->flags & FE_NIL) return l;
    bool fl = ir_is_float((loom_dtype_t)l->dtype);
    double nm1 = (double)(n - 1), vi = 0;
    int64_t pick = -1; /* discrete methods: the order statistic taken */
    switch (method) {
        case LOOM_QUANTILE_LOWER:
            pick = (int64_t)floor(nm1 * q);
            break;
        case LOOM_QUANTILE_HIGHER:
            pick = (int64_t)ceil(nm1 * q);
            break;
        case LOOM_QUANTILE_NEAREST:
            pick = (int64_t)nearbyint(nm1 * q); /* half to even, as np.around */
            break;
        case LOOM_QUANTILE_INVERTED_CDF:
        case LOOM_QUANTILE_CLOSEST_OBSERVATION: {
            bool inv = method == LOOM_QUANTILE_INVERTED_CDF;
            double index = (double)n * q - 1 - (inv ? 0 : 0.5), prev = floor(index);
            bool at_prev = index - prev == 0 && (inv || fmod(prev, 2) == 1 || fmod(prev, 2) == -1);
            pick = (int64_t)(at_prev ? prev : prev + 1);
            if (pick < 0) pick = 0;
            break;
        }
        case LOOM_QUANTILE_MIDPOINT:
            vi = 0.5 * (floor(nm1 * q) + ceil(nm1 * q));
            break;
        case LOOM_QUANTILE_AVERAGED_INVERTED_CDF:
            vi = (double)n * q - 1;
            break;
        case LOOM_QUANTILE_INTERPOLATED_INVERTED_CDF:
            vi = continuous_index(n, q, 0, 1);
            break;
        case LOOM_QUANTILE_HAZEN:
            vi = continuous_index(n, q, 0.5, 0.5);
            break;
        case LOOM_QUANTILE_WEIBULL:
            vi = continuous_index(n, q, 0, 0);
            break;
        case LOOM_QUANTILE_MEDIAN_UNBIASED:
            vi = continuous_index(n, q, 1 / 3.0, 1 / 3.0);
            break;
        case LOOM_QUANTILE_NORMAL_UNBIASED:
            vi = continuous_index(n, q, 3 / 8.0, 3 / 8.0);
            break;
        default: /* linear */
            vi = nm1 * q;
            break;
    }
    loom_array_t *r;
    if (pick >= 0) {
        int64_t ranks[2] = {pick > n - 1 ? n - 1 : pick, n - 1};
        loom_array_t *s = order_stats(ctx, l, 1 + fl, ranks);
        r = order_stat(ctx, s, 0);
        if (fl) r = nan_slices(ctx, order_stat(ctx, s, 1), r);
    } else {
        /* NumPy's neighbours: both the last where the index reaches it, both the first below
         * 0; gamma from the adjusted lower neighbour, then the method's correction */
        double prev = floor(vi);
        int64_t ip = (int64_t)prev, in = ip + 1;
        if (vi >= nm1) {
            prev = -1;
            ip = in = n - 1;
        } else if (vi < 0) {
            prev = 0;
            ip = in = 0;
        }
        double gamma = vi - prev;
        if (method == LOOM_QUANTILE_AVERAGED_INVERTED_CDF) gamma = gamma == 0 ? 0.5 : 1;
        if (method == LOOM_QUANTILE_MIDPOINT) gamma = fmod(vi, 1) == 0 ? 0 : 0.5;
        int64_t ranks[3] = {ip, in, n - 1};
        loom_array_t *s = order_stats(ctx, l, 2 + fl, ranks);
        loom_array_t *lo = order_stat(ctx, s, 0), *hi = order_stat(ctx, s, 1);
        /* _lerp: a + (b - a) t, or b - (b - a) (1 - t) where t >= 0.5, t a weak scalar */
        loom_array_t *d = loom_subtract(ctx, hi, lo);
        r = gamma >= 0.5
                ? loom_subtract(ctx, hi, loom_multiply(ctx, d, loom_weak_float(ctx, 1 - gamma)))
                : loom_add(ctx, lo, loom_multiply(ctx, d, loom_weak_float(ctx, gamma)));
        if (fl) r = nan_slices(ctx, order_stat(ctx, s, 2), r);
    }
    return keepdims ? keep_axes(ctx, r, a, axis, ax) : r;
}

/* ---- nanmedian and nanquantile: the same order statistics of each slice's non-NaN values,
 * which the sort puts first: the positions are arrays computed from each slice's count ---- */

/* s's elements at the per-slice positions idx (float64 or int64, clamped to the slice's count:
 * an all-NaN slice reads its first element, a NaN). */
static loom_array_t *stats_at(loom_ctx_t *ctx, loom_array_t *s, loom_array_t *idx,
                              loom_array_t *top) {
    loom_array_t *i = loom_astype(ctx, loom_clip(ctx, idx, loom_weak_int(ctx, 0), top), LOOM_DTYPE_I64);
    int32_t last = s->ndim - 1;
    loom_array_t *g = loom_take_along_axis(ctx, s, loom_expand_dims(ctx, i, 1, &last), last);
    return loom_squeeze(ctx, g, 1, &last);
}

static loom_array_t *nan_order(loom_ctx_t *ctx, const char *fn, loom_array_t *a, double q,
                               int32_t axis, loom_quantile_method_t method, int keepdims,
                               bool median) {
    int32_t ax = 0;
    int64_t len = 0;
    loom_array_t *s = sorted_last(ctx, fn, a, axis, &ax, &len);
    if (s->flags & FE_NIL) return s;
    int32_t last = s->ndim - 1;
    loom_array_t *c = loom_astype(
        ctx, loom_count_nonzero(ctx, loom_logical_not(ctx, loom_isnan(ctx, s)), 1, &last, 0),
        LOOM_DTYPE_F64);
    loom_array_t *nm1 = loom_subtract_f(ctx, c, 1.0), *top = loom_maximum_f(ctx, nm1, 0.0), *r;
    if (median) { /* NumPy: the middle element, or the mean of the middle two */
        loom_array_t *lo = stats_at(ctx, s, loom_floor(ctx, loom_true_divide_f(ctx, nm1, 2.0)), top);
        loom_array_t *hi = stats_at(ctx, s, loom_floor(ctx, loom_true_divide_f(ctx, c, 2.0)), top);
        loom_array_t *pair[2] = {lo, hi};
        int32_t end = -1;
        loom_array_t *mean = loom_mean(ctx, loom_stack(ctx, 2, pair, -1), 1, &end, 0);
        loom_array_t *odd = loom_not_equal_f(ctx, loom_remainder_f(ctx, c, 2.0), 0.0);
        r = loom_where(ctx, odd, loom_astype(ctx, lo, (loom_dtype_t)mean->dtype), mean);
    } else {
        loom_array_t *pick = NULL, *vi = NULL, *cq = loom_multiply_f(ctx, c, q);
        switch (method) {
            case LOOM_QUANTILE_LOWER:
                pick = loom_floor(ctx, loom_multiply_f(ctx, nm1, q));
                break;
            case LOOM_QUANTILE_HIGHER:
                pick = loom_ceil(ctx, loom_multiply_f(ctx, nm1, q));
                break;
            case LOOM_QUANTILE_NEAREST:
                pick = loom_rint(ctx, loom_multiply_f(ctx, nm1, q));
                break;
            case LOOM_QUANTILE_INVERTED_CDF:
            case LOOM_QUANTILE_CLOSEST_OBSERVATION: {
                bool inv = method == LOOM_QUANTILE_INVERTED_CDF;
                loom_array_t *index = loom_subtract_f(ctx, cq, inv ? 1.0 : 1.5);
                loom_array_t *prev = loom_floor(ctx, index);
                loom_array_t *at = loom_equal(ctx, index, prev);
                if (!inv) /* closest_observation: only an odd prev */
                    at = loom_logical_and(ctx, at, loom_not_equal_f(ctx, loom_remainder_f(ctx, prev, 2.0), 0.0));
                pick = loom_where(ctx, at, prev, loom_add_f(ctx, prev, 1.0));
                break;
            }
            case LOOM_QUANTILE_MIDPOINT: {
                loom_array_t *x = loom_multiply_f(ctx, nm1, q);
                vi = loom_multiply_f(ctx, loom_add(ctx, loom_floor(ctx, x), loom_ceil(ctx, x)), 0.5);
                break;
            }
            case LOOM_QUANTILE_AVERAGED_INVERTED_CDF:
            case LOOM_QUANTILE_INTERPOLATED_INVERTED_CDF:
                vi = loom_subtract_f(ctx, cq, 1.0);
                break;
            case LOOM_QUANTILE_HAZEN:
                vi = loom_add_f(ctx, cq, continuous_index(0, q, 0.5, 0.5));
                break;
            case LOOM_QUANTILE_WEIBULL:
                vi = loom_add_f(ctx, cq, continuous_index(0, q, 0, 0));
                break;
            case LOOM_QUANTILE_MEDIAN_UNBIASED:
                vi = loom_add_f(ctx, cq, continuous_index(0, q, 1 / 3.0, 1 / 3.0));
                break;
            case LOOM_QUANTILE_NORMAL_UNBIASED:
                vi = loom_add_f(ctx, cq, continuous_index(0, q, 3 / 8.0, 3 / 8.0));
                break;
            default: /* linear */
                vi = loom_multiply_f(ctx, nm1, q);
                break;
        }
        if (pick) {
            r = stats_at(ctx, s, pick, top);
        } else { /* the neighbours and gamma as loom_quantile forms them, per slice */
            loom_array_t *fl = loom_floor(ctx, vi), *zero = loom_weak_float(ctx, 0.0);
            loom_array_t *hi_cap = loom_greater_equal(ctx, vi, nm1), *lo_cap = loom_less_f(ctx, vi, 0.0);
            loom_array_t *prev = loom_where(ctx, hi_cap, loom_weak_float(ctx, -1.0),
                                            loom_where(ctx, lo_cap, zero, fl));
            loom_array_t *ip = loom_where(ctx, hi_cap, nm1, loom_where(ctx, lo_cap, zero, fl));
            loom_array_t *in = loom_where(ctx, hi_cap, nm1, loom_where(ctx, lo_cap, zero, loom_add_f(ctx, fl, 1.0)));
            loom_array_t *gamma = loom_subtract(ctx, vi, prev);
            if (method == LOOM_QUANTILE_AVERAGED_INVERTED_CDF)
                gamma = loom_where(ctx, loom_equal_f(ctx, gamma, 0.0), loom_weak_float(ctx, 0.5),
                                   loom_weak_float(ctx, 1.0));
            if (method == LOOM_QUANTILE_MIDPOINT)
                gamma = loom_where(ctx, loom_equal_f(ctx, loom_remainder_f(ctx, vi, 1.0), 0.0), zero,
                                   loom_weak_float(ctx, 0.5));
            loom_array_t *lo = stats_at(ctx, s, ip, top), *hi = stats_at(ctx, s, in, top);
            loom_array_t *t = loom_astype(ctx, gamma, (loom_dtype_t)s->dtype);
            loom_array_t *d = loom_subtract(ctx, hi, lo);
            loom_array_t *up = loom_subtract(ctx, hi, loom_multiply(ctx, d, loom_subtract(ctx, loom_astype(ctx, loom_weak_float(ctx, 1.0), (loom_dtype_t)s->dtype), t)));
            r = loom_where(ctx, loom_greater_equal_f(ctx, gamma, 0.5), up,
                           loom_add(ctx, lo, loom_multiply(ctx, d, t)));
        }
    }
    return keepdims ? keep_axes(ctx, r, a, axis, ax) : r;
}

LOOM_API loom_array_t *loom_nanmedian(loom_ctx_t *ctx, loom_array_t *a, int32_t axis,
                                      int keepdims) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "nanmedian", a)) return &ctx->nil;
    loom_array_t *e = empty_stat(ctx, a, axis, keepdims, true);
    if (e) return e;
    if (!has_nan(a)) return loom_median(ctx, a, axis, keepdims);
    return nan_order(ctx, "nanmedian", a, 0.5, axis, LOOM_QUANTILE_LINEAR, keepdims, true);
}

LOOM_API loom_array_t *loom_nanquantile(loom_ctx_t *ctx, loom_array_t *a, double q, int32_t axis,
                                        loom_quantile_method_t method, int keepdims) {
    const char *fn = "nanquantile";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a)) return &ctx->nil;
    loom_array_t *e = q >= 0 && q <= 1 ? empty_stat(ctx, a, axis, keepdims, true) : NULL;
    if (e) return e;
    if (!has_nan(a) || !(q >= 0 && q <= 1) || (int)method < 0 || method > LOOM_QUANTILE_NEAREST)
        return loom_quantile(ctx, a, q, axis, method, keepdims); /* its errors, or no NaN */
    return nan_order(ctx, fn, a, q, axis, method, keepdims, false);
}

/* ---- comparisons and cleanups ---- */

/* The float dtype np.isclose computes y in: np.result_type(y, 1.0). */
static loom_dtype_t float_of(loom_dtype_t d) {
    return ir_is_float(d) || ir_is_complex(d) ? d : LOOM_DTYPE_F64;
}

LOOM_API loom_array_t *loom_isclose(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b, double rtol,
                                    double atol, int equal_nan) {
    const char *fn = "isclose";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a) || !fe_check_arg(ctx, fn, b)) return &ctx->nil;
    /* NumPy 2: (|a - y| <= atol + rtol |y|) & isfinite(y) | (a == y), y = b as a float; with
     * equal_nan, NaN matches NaN */
    loom_array_t *y =
        b->flags & FE_WEAK ? b : loom_astype(ctx, b, float_of((loom_dtype_t)b->dtype));
    loom_array_t *ay = loom_abs(ctx, y);
    loom_array_t *tol = loom_add(ctx, loom_weak_float(ctx, atol),
                                 loom_multiply(ctx, loom_weak_float(ctx, rtol), ay));
    loom_array_t *close =
        loom_logical_and(ctx, loom_less_equal(ctx, loom_abs(ctx, loom_subtract(ctx, a, y)), tol),
                         loom_isfinite(ctx, y));
    loom_array_t *r = loom_logical_or(ctx, close, loom_equal(ctx, a, y));
    if (equal_nan)
        r = loom_logical_or(ctx, r, loom_logical_and(ctx, loom_isnan(ctx, a), loom_isnan(ctx, y)));
    return r;
}

/* A 0-d bool constant: array_equal's and array_equiv's answer for shapes that cannot match. */
static loom_array_t *bool_const(loom_ctx_t *ctx, bool v) {
    return fe_const(ctx, LOOM_DTYPE_BOOL, 0, NULL, v ? 1 : 0);
}

LOOM_API loom_array_t *loom_allclose(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b, double rtol,
                                     double atol, int equal_nan) {
    if (!ctx) return NULL;
    return loom_all(ctx, loom_isclose(ctx, a, b, rtol, atol, equal_nan), -1, NULL, 0);
}

/* NumPy's array_equal and array_equiv: False (not an error) for shapes that differ or do not
 * broadcast; equal_nan counts NaN == NaN (complex: NaN in either part, as NumPy's isnan). */
static loom_array_t *all_equal(loom_ctx_t *ctx, const char *fn, loom_array_t *a, loom_array_t *b,
                               bool same_shape, int equal_nan) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a) || !fe_check_arg(ctx, fn, b)) return &ctx->nil;
    loom_array_t *ops[2] = {a, b};
    int32_t nd;
    int64_t shape[LOOM_MAX_DIMS];
    bool same = a->ndim == b->ndim;
    for (int32_t i = 0; same && i < a->ndim; i++) same = a->shape[i] == b->shape[i];
    if (same_shape ? !same : !fe_broadcast_shapes(2, ops, &nd, shape))
        return bool_const(ctx, false);
    loom_array_t *eq = loom_equal(ctx, a, b);
    if (equal_nan)
        eq =
            loom_logical_or(ctx, eq, loom_logical_and(ctx, loom_isnan(ctx, a), loom_isnan(ctx, b)));
    return loom_all(ctx, eq, -1, NULL, 0);
}

LOOM_API loom_array_t *loom_array_equal(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b,
                                        int equal_nan) {
    return all_equal(ctx, "array_equal", a, b, true, equal_nan);
}

LOOM_API loom_array_t *loom_array_equiv(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b) {
    return all_equal(ctx, "array_equiv", a, b, false, 0);
}

/* The largest finite value of a float dtype (np.finfo(d).max). */
static double finite_max(loom_dtype_t d) {
    switch (d) {
        case LOOM_DTYPE_F16:
            return 65504.0;
        case LOOM_DTYPE_BF16:
            return 3.3895313892515355e38;
        case LOOM_DTYPE_F32:
            return 3.4028234663852886e38;
        default:
            return 1.7976931348623157e308;
    }
}

LOOM_API loom_array_t *loom_nan_to_num(loom_ctx_t *ctx, loom_array_t *a, double nan, double posinf,
                                       double neginf) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "nan_to_num", a)) return &ctx->nil;
    loom_dtype_t d = (loom_dtype_t)a->dtype;
    if (ir_is_complex(d)) /* each part on its own, as NumPy's */
        return loom_complex(ctx, loom_nan_to_num(ctx, loom_real(ctx, a), nan, posinf, neginf),
                            loom_nan_to_num(ctx, loom_imag(ctx, a), nan, posinf, neginf));
    if (!ir_is_float(d)) return fe_scope_adopt(ctx, a);
    /* NaN posinf/neginf: the dtype's largest and smallest finite values, as NumPy's None */
    double hi = isnan(posinf) ? finite_max(d) : posinf,
           lo = isnan(neginf) ? -finite_max(d) : neginf;
    loom_array_t *r = nan_to(ctx, a, nan);
    loom_array_t *inf = loom_astype(ctx, loom_full(ctx, LOOM_DTYPE_F64, 0, NULL, INFINITY), d);
    loom_array_t *c_hi = loom_astype(ctx, loom_full(ctx, LOOM_DTYPE_F64, 0, NULL, hi), d);
    loom_array_t *c_lo = loom_astype(ctx, loom_full(ctx, LOOM_DTYPE_F64, 0, NULL, lo), d);
    r = loom_where(ctx, loom_equal(ctx, a, inf), c_hi, r);
    return loom_where(ctx, loom_equal(ctx, a, loom_negative(ctx, inf)), c_lo, r);
}

/* ---- scans ---- */

static loom_array_t *cumulative(loom_ctx_t *ctx, const char *fn, bool prod, loom_array_t *a,
                                int32_t axis, int include_initial) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a)) return &ctx->nil;
    int64_t one = 1;
    if (a->ndim == 0) a = loom_reshape(ctx, a, 1, &one); /* NumPy: a 0-d array as (1,) */
    if (axis == LOOM_AXIS_NONE && a->ndim != 1) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: axis must be specified for multi-dimensional arrays (it has %d)", fn,
                 a->ndim);
        return &ctx->nil;
    }
    int32_t ax;
    if (!fe_axis(ctx, fn, axis == LOOM_AXIS_NONE ? 0 : axis, a->ndim, &ax)) return &ctx->nil;
    loom_array_t *r = (prod ? loom_cumprod : loom_cumsum)(ctx, a, ax);
    if (!include_initial || (r->flags & FE_NIL)) return r;
    int64_t shape[LOOM_MAX_DIMS]; /* the identity first: one slice of zeros or ones */
    for (int32_t i = 0; i < a->ndim; i++) shape[i] = i == ax ? 1 : a->shape[i];
    loom_array_t *parts[2] = {
        (prod ? loom_ones : loom_zeros)(ctx, (loom_dtype_t)r->dtype, a->ndim, shape), r};
    return loom_concatenate(ctx, 2, parts, ax);
}

LOOM_API loom_array_t *loom_cumulative_sum(loom_ctx_t *ctx, loom_array_t *a, int32_t axis,
                                           int include_initial) {
    return cumulative(ctx, "cumulative_sum", false, a, axis, include_initial);
}

LOOM_API loom_array_t *loom_cumulative_prod(loom_ctx_t *ctx, loom_array_t *a, int32_t axis,
                                            int include_initial) {
    return cumulative(ctx, "cumulative_prod", true, a, axis, include_initial);
}

LOOM_API loom_array_t *loom_nancumsum(loom_ctx_t *ctx, loom_array_t *a, int32_t axis) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "nancumsum", a)) return &ctx->nil;
    return loom_cumsum(ctx, has_nan(a) ? nan_to(ctx, a, 0) : a, axis);
}

LOOM_API loom_array_t *loom_nancumprod(loom_ctx_t *ctx, loom_array_t *a, int32_t axis) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "nancumprod", a)) return &ctx->nil;
    return loom_cumprod(ctx, has_nan(a) ? nan_to(ctx, a, 1) : a, axis);
}

/* ---- weighted means ---- */

LOOM_API loom_array_t *loom_average(loom_ctx_t *ctx, loom_array_t *a, int32_t axis,
                                    loom_array_t *weights, int keepdims,
                                    loom_array_t **sum_weights) {
    const char *fn = "average";
    if (!ctx) return NULL;
    if (sum_weights) *sum_weights = &ctx->nil;
    if (!fe_check_arg(ctx, fn, a) || (weights && !fe_check_arg(ctx, fn, weights))) return &ctx->nil;
    int32_t naxes = axis == LOOM_AXIS_NONE ? -1 : 1, axes[1] = {axis};
    if (!weights) {
        loom_array_t *r = loom_mean(ctx, a, naxes, axes, keepdims);
        if (sum_weights && !(r->flags & FE_NIL)) { /* the count, in the mean's dtype */
            loom_array_t *one = loom_ones(ctx, (loom_dtype_t)r->dtype, a->ndim, a->shape);
            *sum_weights = loom_sum(ctx, one, naxes, axes, keepdims);
        }
        return r;
    }
    loom_array_t *w = weights;
    if (w->ndim != a->ndim || memcmp(w->shape, a->shape, sizeof(int64_t) * (size_t)a->ndim)) {
        int32_t ax;
        if (axis == LOOM_AXIS_NONE) {
            fe_error(ctx, LOOM_STATUS_SHAPE_MISMATCH,
                     "%s: axis must be specified when shapes of a and weights differ", fn);
            return &ctx->nil;
        }
        if (!fe_axis(ctx, fn, axis, a->ndim, &ax)) return &ctx->nil;
        if (w->ndim != 1 || w->shape[0] != a->shape[ax]) {
            fe_error(ctx, LOOM_STATUS_SHAPE_MISMATCH,
                     "%s: weights of %d dimensions (%lld along the first) do not match a's axis "
                     "%d of extent %lld",
                     fn, w->ndim, (long long)(w->ndim ? w->shape[0] : 0), ax,
                     (long long)a->shape[ax]);
            return &ctx->nil;
        }
        int64_t shape[LOOM_MAX_DIMS]; /* along the axis, broadcast elsewhere */
        for (int32_t i = 0; i < a->ndim; i++) shape[i] = i == ax ? a->shape[ax] : 1;
        w = loom_reshape(ctx, w, a->ndim, shape);
    }
    /* NumPy: the result dtype of a and the weights (and float64 for integer a) */
    int d = loom_dtype_promote((loom_dtype_t)a->dtype, (loom_dtype_t)w->dtype);
    if (d < 0) {
        fe_error(ctx, LOOM_STATUS_DTYPE_ERROR, "%s: no common dtype of %s and %s", fn,
                 loom_dtype_name((loom_dtype_t)a->dtype), loom_dtype_name((loom_dtype_t)w->dtype));
        return &ctx->nil;
    }
    if (!ir_is_float((loom_dtype_t)a->dtype) && !ir_is_complex((loom_dtype_t)a->dtype))
        d = loom_dtype_promote((loom_dtype_t)d, LOOM_DTYPE_F64);
    loom_array_t *wd = loom_astype(ctx, w, (loom_dtype_t)d);
    loom_array_t *wb = loom_broadcast_to(ctx, wd, a->ndim, a->shape);
    loom_array_t *scl = loom_sum(ctx, wb, naxes, axes, keepdims);
    /* NumPy refuses weights that sum to zero (ZeroDivisionError): one sync to look */
    bool bad;
    if (!fe_any_true(ctx, loom_equal(ctx, scl, loom_weak_int(ctx, 0)), &bad)) return &ctx->nil;
    if (bad) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: weights sum to zero, can't be normalized",
                 fn);
        return &ctx->nil;
    }
    loom_array_t *num = loom_sum(ctx, loom_multiply(ctx, loom_astype(ctx, a, (loom_dtype_t)d), wd),
                                 naxes, axes, keepdims);
    if (sum_weights) *sum_weights = scl;
    return loom_true_divide(ctx, num, scl);
}

/* ---- covariance ---- */

LOOM_API loom_array_t *loom_cov(loom_ctx_t *ctx, loom_array_t *m, loom_array_t *y, int rowvar,
                                int bias, double ddof) {
    const char *fn = "cov";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, m) || (y && !fe_check_arg(ctx, fn, y))) return &ctx->nil;
    if (m->ndim > 2 || (y && y->ndim > 2)) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: m has more than 2 dimensions", fn);
        return &ctx->nil;
    }
    /* NumPy: variables in rows, observations in columns; float64 at least */
    int d = loom_dtype_promote((loom_dtype_t)m->dtype, LOOM_DTYPE_F64);
    if (y) d = loom_dtype_promote((loom_dtype_t)d, (loom_dtype_t)y->dtype);
    if (d < 0) {
        fe_error(ctx, LOOM_STATUS_DTYPE_ERROR, "%s: no common float dtype", fn);
        return &ctx->nil;
    }
    loom_array_t *x = loom_astype(ctx, loom_atleast_nd(ctx, m, 2), (loom_dtype_t)d);
    /* NumPy 2 transposes every m that is not 1-D (a (1, n) one too: n variables) */
    if (!rowvar && m->ndim != 1) x = loom_transpose(ctx, x, 2, NULL);
    if (y) {
        loom_array_t *yy = loom_astype(ctx, loom_atleast_nd(ctx, y, 2), (loom_dtype_t)d);
        if (!rowvar && yy->shape[0] != 1) yy = loom_transpose(ctx, yy, 2, NULL); /* NumPy's y rule */
        loom_array_t *both[2] = {x, yy};
        x = loom_concatenate(ctx, 2, both, 0);
    }
    if (x->flags & FE_NIL) return x;
    int64_t n = x->shape[1];
    double dof = (isnan(ddof) ? (bias ? 0 : 1) : ddof);
    int32_t one = 1;
    loom_array_t *c = loom_subtract(ctx, x, loom_mean(ctx, x, 1, &one, 1));
    loom_array_t *p = loom_matmul(ctx, c, fe_conj(ctx, loom_transpose(ctx, c, 2, NULL)));
    /* NumPy divides by max(n - ddof, 0) (a warning, then inf or NaN, at zero) */
    double fact = (double)n - dof > 0 ? (double)n - dof : 0;
    loom_array_t *r = loom_true_divide(
        ctx, p, loom_astype(ctx, loom_full(ctx, LOOM_DTYPE_F64, 0, NULL, fact), (loom_dtype_t)d));
    return loom_squeeze(ctx, r, 0, NULL);
}

LOOM_API loom_array_t *loom_corrcoef(loom_ctx_t *ctx, loom_array_t *m, loom_array_t *y,
                                     int rowvar) {
    if (!ctx) return NULL;
    loom_array_t *c = loom_cov(ctx, m, y, rowvar, 0, NAN);
    if ((c->flags & FE_NIL) || c->ndim == 0) /* one variable: c / c, as NumPy's */
        return (c->flags & FE_NIL) ? c : loom_true_divide(ctx, c, c);
    loom_array_t *dg = loom_sqrt(ctx, loom_real(ctx, loom_diagonal(ctx, c, 0, 0, 1)));
    int64_t col[2] = {-1, 1}, row[2] = {1, -1};
    loom_array_t *r = loom_true_divide(ctx, loom_true_divide(ctx, c, loom_reshape(ctx, dg, 2, col)),
                                       loom_reshape(ctx, dg, 2, row));
    /* NumPy clips the real part (and a complex one's imaginary part) into [-1, 1] */
    if (ir_is_complex((loom_dtype_t)r->dtype))
        return loom_complex(ctx, loom_clip(ctx, loom_real(ctx, r), loom_weak_int(ctx, -1), loom_weak_int(ctx, 1)),
                            loom_clip(ctx, loom_imag(ctx, r), loom_weak_int(ctx, -1), loom_weak_int(ctx, 1)));
    loom_array_t *one =
        loom_astype(ctx, loom_full(ctx, LOOM_DTYPE_F64, 0, NULL, 1), (loom_dtype_t)r->dtype);
    return loom_clip(ctx, r, loom_negative(ctx, one), one);
}
