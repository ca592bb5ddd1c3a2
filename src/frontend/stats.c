/* stats.c — NumPy's NaN-ignoring reductions and ptp, built from loom's reductions and
 * elementwise ops (so each fuses into one reduction step where the reductions share their
 * operand): NaN elements become the reduction's identity (0 for sums, 1 for products, -inf /
 * +inf for max / min), counts of the others divide the means, and an all-NaN slice gives NaN
 * as NumPy's does (without its warning). Integer and bool arrays have no NaN: their NaN
 * functions are the plain ones. */
#include <math.h>

#include "fe.h"

/* a with its NaN elements replaced by the scalar fill (a's dtype). */
static loom_array_t *nan_to(loom_ctx_t *ctx, loom_array_t *a, double fill) {
    loom_array_t *f = loom_astype(ctx, loom_full(ctx, LOOM_DTYPE_F64, 0, NULL, fill),
                                  (loom_dtype_t)a->dtype);
    return loom_where(ctx, loom_isnan(ctx, a), f, a);
}

static bool has_nan(const loom_array_t *a) { return ir_is_float((loom_dtype_t)a->dtype); }

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
    loom_array_t *nan = loom_astype(ctx, loom_full(ctx, LOOM_DTYPE_F64, 0, NULL, NAN),
                                    (loom_dtype_t)a->dtype);
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

/* The sum of the non-NaN elements (in the mean's accumulation dtype) and their count, both
 * float64, for nanmean/nanvar. */
static void sum_count(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes, const int32_t *axes,
                      int keepdims, loom_array_t **sum, loom_array_t **count) {
    loom_dtype_t acc = a->dtype == LOOM_DTYPE_F16 || a->dtype == LOOM_DTYPE_BF16
                           ? LOOM_DTYPE_F32
                           : (loom_dtype_t)a->dtype;
    *sum = loom_astype(ctx, loom_sum(ctx, loom_astype(ctx, nan_to(ctx, a, 0), acc), naxes, axes,
                                     keepdims),
                       LOOM_DTYPE_F64);
    *count = loom_astype(ctx, loom_count_nonzero(ctx, loom_logical_not(ctx, loom_isnan(ctx, a)),
                                                 naxes, axes, keepdims),
                         LOOM_DTYPE_F64);
}

LOOM_API loom_array_t *loom_nanmean(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                    const int32_t *axes, int keepdims) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "nanmean", a)) return &ctx->nil;
    if (!has_nan(a)) return loom_mean(ctx, a, naxes, axes, keepdims);
    loom_array_t *s, *n;
    sum_count(ctx, a, naxes, axes, keepdims, &s, &n);
    return loom_astype(ctx, loom_true_divide(ctx, s, n), (loom_dtype_t)a->dtype); /* 0/0: NaN */
}

/* nanvar / nanstd: the mean of the others, their squared deviations summed over count - ddof
 * (NaN where that is not positive, as NumPy's). */
static loom_array_t *nan_moment(loom_ctx_t *ctx, const char *fn, bool root, loom_array_t *a,
                                int32_t naxes, const int32_t *axes, int keepdims, double ddof) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a)) return &ctx->nil;
    if (!has_nan(a)) return (root ? loom_std : loom_var)(ctx, a, naxes, axes, keepdims, ddof);
    loom_array_t *s, *n, *s2, *n2;
    sum_count(ctx, a, naxes, axes, 1, &s, &n);         /* the mean, broadcast back */
    sum_count(ctx, a, naxes, axes, keepdims, &s2, &n2); /* the count, in the result's shape */
    (void)s2;
    loom_array_t *x = loom_astype(ctx, a, LOOM_DTYPE_F64);
    loom_array_t *d = loom_subtract(ctx, x, loom_true_divide(ctx, s, n));
    loom_array_t *sq = nan_to(ctx, loom_multiply(ctx, d, d), 0);
    loom_array_t *ss = loom_sum(ctx, sq, naxes, axes, keepdims);
    loom_array_t *dof = loom_subtract(ctx, n2, loom_full(ctx, LOOM_DTYPE_F64, 0, NULL, ddof));
    loom_array_t *v = loom_true_divide(ctx, ss, dof);
    loom_array_t *bad = loom_less_equal(ctx, dof, loom_full(ctx, LOOM_DTYPE_F64, 0, NULL, 0));
    v = loom_where(ctx, bad, loom_full(ctx, LOOM_DTYPE_F64, 0, NULL, NAN), v);
    if (root) v = loom_sqrt(ctx, v);
    return loom_astype(ctx, v, (loom_dtype_t)a->dtype);
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
