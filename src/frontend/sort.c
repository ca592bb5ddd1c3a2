/* sort.c — sorting and what is built on it: sort, argsort (stable, NumPy's order: NaN last,
 * -0.0 equal to 0.0), searchsorted, and unique with its counts, first indices and inverse.
 * SORT and ARGSORT are IR nodes; the rest is composed from them, gathers, scans and the
 * data-dependent NONZERO node (mask.c). */
#include <string.h>

#include "fe.h"

static loom_array_t *sort_node(loom_ctx_t *ctx, const char *fn, ir_op_t op, loom_array_t *a,
                               int32_t axis) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a)) return &ctx->nil;
    int32_t ax;
    if (!fe_axis_or_flat(ctx, fn, &a, axis, &ax)) return &ctx->nil;
    ir_params_t p = {0};
    p.axis = ax;
    loom_dtype_t d = op == IR_OP_SORT ? (loom_dtype_t)a->dtype : LOOM_DTYPE_I64;
    return fe_shaped(ctx, op, d, a->ndim, a->shape, 1, &a, &p);
}

LOOM_API loom_array_t *loom_sort(loom_ctx_t *ctx, loom_array_t *a, int32_t axis) {
    return sort_node(ctx, "sort", IR_OP_SORT, a, axis);
}

LOOM_API loom_array_t *loom_argsort(loom_ctx_t *ctx, loom_array_t *a, int32_t axis) {
    return sort_node(ctx, "argsort", IR_OP_ARGSORT, a, axis);
}

LOOM_API loom_array_t *loom_searchsorted(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *v,
                                         int right, loom_array_t *sorter) {
    const char *fn = "searchsorted";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a) || !fe_check_arg(ctx, fn, v)) return &ctx->nil;
    if (a->ndim != 1) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: the sorted array must be 1-d, not %d-d",
                 fn, a->ndim);
        return &ctx->nil;
    }
    if (sorter) {
        if (!fe_check_arg(ctx, fn, sorter)) return &ctx->nil;
        if (sorter->ndim != 1 || sorter->shape[0] != a->shape[0]) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                     "%s: sorter.size must equal a.size (%lld and %lld)", fn,
                     (long long)fe_size(sorter), (long long)a->shape[0]);
            return &ctx->nil;
        }
        a = loom_take(ctx, a, sorter, 0, LOOM_TAKE_RAISE);
        if (a->flags & FE_NIL) return a;
    }
    int d = fe_promote(ctx, fn, (loom_dtype_t)a->dtype, (loom_dtype_t)v->dtype);
    if (d < 0) return &ctx->nil;
    loom_array_t *srcs[2] = {loom_astype(ctx, a, (loom_dtype_t)d),
                             loom_astype(ctx, v, (loom_dtype_t)d)};
    if ((srcs[0]->flags & FE_NIL) || (srcs[1]->flags & FE_NIL)) return &ctx->nil;
    ir_params_t p = {0};
    p.k = right != 0;
    return fe_shaped(ctx, IR_OP_SEARCHSORTED, LOOM_DTYPE_I64, v->ndim, v->shape, 2, srcs, &p);
}

static loom_array_t *const_i64(loom_ctx_t *ctx, int64_t v) {
    return loom_full_int(ctx, LOOM_DTYPE_I64, 0, NULL, v);
}

static loom_array_t *slice1(loom_ctx_t *ctx, loom_array_t *a, int64_t start, int64_t stop) {
    return loom_slice(ctx, a, 1, &start, &stop, NULL);
}

LOOM_API loom_status_t loom_unique(loom_ctx_t *ctx, loom_array_t *a, int equal_nan,
                                   loom_array_t **values, loom_array_t **index,
                                   loom_array_t **inverse, loom_array_t **counts) {
    const char *fn = "unique";
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    if (!fe_check_arg(ctx, fn, a)) return ctx->err.status;
    int64_t minus1 = -1, n = fe_size(a);
    loom_array_t *flat = loom_reshape(ctx, a, 1, &minus1);
    if (n == 0) { /* every result empty (the inverse in a's shape) */
        int64_t zero = 0;
        if (values) *values = flat;
        if (index) *index = loom_zeros(ctx, LOOM_DTYPE_I64, 1, &zero);
        if (inverse) *inverse = loom_zeros(ctx, LOOM_DTYPE_I64, a->ndim, a->shape);
        if (counts) *counts = loom_zeros(ctx, LOOM_DTYPE_I64, 1, &zero);
        return ctx->err.status;
    }
    bool need_perm = index || inverse;
    loom_array_t *perm = need_perm ? loom_argsort(ctx, flat, 0) : NULL;
    loom_array_t *s =
        perm ? loom_take(ctx, flat, perm, 0, LOOM_TAKE_RAISE) : loom_sort(ctx, flat, 0);
    /* a group starts where an element differs from the one before it (NaNs equal when
     * equal_nan, as NumPy's default) */
    loom_array_t *hi = slice1(ctx, s, 1, LOOM_NONE), *lo = slice1(ctx, s, 0, -1);
    loom_array_t *starts = loom_not_equal(ctx, hi, lo);
    if (equal_nan && ir_is_float((loom_dtype_t)a->dtype))
        starts = loom_logical_and(
            ctx, starts,
            loom_logical_not(ctx, loom_logical_and(ctx, loom_isnan(ctx, hi), loom_isnan(ctx, lo))));
    int64_t one = 1;
    loom_array_t *parts[2] = {loom_ones(ctx, LOOM_DTYPE_BOOL, 1, &one), starts};
    loom_array_t *flags = loom_concatenate(ctx, 2, parts, 0);
    loom_array_t *first = loom_flatnonzero(ctx, flags); /* the sync: the number of groups */
    if (first->flags & FE_NIL) return ctx->err.status;
    if (values) *values = loom_take(ctx, s, first, 0, LOOM_TAKE_RAISE);
    if (index) *index = loom_take(ctx, perm, first, 0, LOOM_TAKE_RAISE);
    if (counts) {
        int64_t g = first->shape[0];
        loom_array_t *ends[2] = {slice1(ctx, first, 1, LOOM_NONE), const_i64(ctx, n)};
        ends[1] = loom_reshape(ctx, ends[1], 1, &one);
        *counts = loom_subtract(ctx, loom_concatenate(ctx, 2, ends, 0), first);
        (void)g;
    }
    if (inverse) { /* group of each sorted element, put back in the original order */
        loom_array_t *group = loom_subtract(
            ctx, loom_cumsum(ctx, loom_astype(ctx, flags, LOOM_DTYPE_I64), 0), const_i64(ctx, 1));
        loom_array_t *back = loom_take(ctx, group, loom_argsort(ctx, perm, 0), 0, LOOM_TAKE_RAISE);
        *inverse = loom_reshape(ctx, back, a->ndim, a->shape);
    }
    return ctx->err.status;
}

LOOM_API loom_array_t *loom_isin(loom_ctx_t *ctx, loom_array_t *element,
                                 loom_array_t *test_elements, int invert) {
    const char *fn = "isin";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, element) || !fe_check_arg(ctx, fn, test_elements)) return &ctx->nil;
    int64_t minus1 = -1, m = fe_size(test_elements);
    loom_array_t *r;
    if (m == 0) {
        r = loom_zeros(ctx, LOOM_DTYPE_BOOL, element->ndim, element->shape);
    } else {
        loom_array_t *t = loom_sort(ctx, loom_reshape(ctx, test_elements, 1, &minus1), 0);
        loom_array_t *at = loom_searchsorted(ctx, t, element, 0, NULL);
        loom_array_t *in = loom_less(ctx, at, const_i64(ctx, m));
        loom_array_t *hit = loom_take(ctx, t, at, 0, LOOM_TAKE_CLIP);
        r = loom_logical_and(ctx, in, loom_equal(ctx, hit, element));
    }
    return invert ? loom_logical_not(ctx, r) : r;
}

/* The unique values of a (1-D, sorted); nil on failure. */
static loom_array_t *unique_values(loom_ctx_t *ctx, loom_array_t *a) {
    loom_array_t *u = NULL;
    loom_unique(ctx, a, 1, &u, NULL, NULL, NULL);
    return u && !ctx->err.status ? u : &ctx->nil;
}

LOOM_API loom_array_t *loom_intersect1d(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "intersect1d", a) || !fe_check_arg(ctx, "intersect1d", b))
        return &ctx->nil;
    int d = fe_promote(ctx, "intersect1d", (loom_dtype_t)a->dtype, (loom_dtype_t)b->dtype);
    if (d < 0) return &ctx->nil;
    loom_array_t *ua = unique_values(ctx, loom_astype(ctx, a, (loom_dtype_t)d));
    if (ua->flags & FE_NIL) return ua;
    return loom_boolean_index(ctx, ua, loom_isin(ctx, ua, b, 0), 0);
}

LOOM_API loom_array_t *loom_setdiff1d(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b) {
    if (!ctx) return NULL;
    loom_array_t *ua = unique_values(ctx, a);
    if (ua->flags & FE_NIL) return ua;
    return loom_boolean_index(ctx, ua, loom_isin(ctx, ua, b, 1), 0);
}

LOOM_API loom_array_t *loom_union1d(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "union1d", a) || !fe_check_arg(ctx, "union1d", b)) return &ctx->nil;
    loom_array_t *both[2] = {a, b};
    return unique_values(ctx, loom_concatenate(ctx, 2, both, LOOM_AXIS_NONE));
}
