/* sort.c — sorting and what is built on it: sort, argsort (stable, NumPy's order: NaN last,
 * -0.0 equal to 0.0; complex numbers lexicographic, as two sorts of their parts),
 * searchsorted, and unique with its counts, first indices and inverse.
 * SORT and ARGSORT are IR nodes; the rest is composed from them, gathers, scans and the
 * data-dependent NONZERO node (mask.c). */
#include <string.h>

#include "fe.h"

static loom_array_t *sort_node(loom_ctx_t *ctx, const char *fn, ir_op_t op, loom_array_t *a,
                               int32_t axis) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a)) return &ctx->nil;
    int64_t one = 1;
    if (op == IR_OP_ARGSORT && a->ndim == 0) /* NumPy's argsort takes a 0-d array as (1,) */
        a = loom_reshape(ctx, a, 1, &one);
    int32_t ax;
    if (!fe_axis_or_flat(ctx, fn, &a, axis, &ax)) return &ctx->nil;
    if (ir_is_complex((loom_dtype_t)a->dtype)) {
        /* NumPy's order: the numbers without NaN parts lexicographically (real part, then
         * imaginary), then R + nanj by real part, nan + Rj by imaginary part, nan + nanj
         * (its four classes in that order): lexsort's keys, the class primary. Classes 2 and
         * 3 (a NaN real part) order by the imaginary part alone (NaN real parts sort equal). */
        loom_array_t *cls = loom_add(
            ctx, loom_astype(ctx, loom_isnan(ctx, loom_imag(ctx, a)), LOOM_DTYPE_I8),
            loom_multiply(ctx, loom_astype(ctx, loom_isnan(ctx, loom_real(ctx, a)), LOOM_DTYPE_I8),
                          loom_weak_int(ctx, 2)));
        loom_array_t *keys[3] = {loom_imag(ctx, a), loom_real(ctx, a), cls};
        loom_array_t *idx = loom_lexsort(ctx, 3, keys, ax);
        return op == IR_OP_SORT ? loom_take_along_axis(ctx, a, idx, ax) : idx;
    }
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

/* np.sort_complex: sorted along the last axis, as a complex dtype (int8/int16 and their
 * unsigned kinds: complex64; other reals: complex128, NumPy's choice). */
LOOM_API loom_array_t *loom_sort_complex(loom_ctx_t *ctx, loom_array_t *a) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "sort_complex", a)) return &ctx->nil;
    loom_array_t *s = loom_sort(ctx, a, -1);
    loom_dtype_t d = (loom_dtype_t)a->dtype;
    if (ir_is_complex(d)) return s;
    bool narrow =
        d == LOOM_DTYPE_I8 || d == LOOM_DTYPE_U8 || d == LOOM_DTYPE_I16 || d == LOOM_DTYPE_U16;
    return loom_astype(ctx, s, narrow ? LOOM_DTYPE_C64 : LOOM_DTYPE_C128);
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
    if (ir_is_complex((loom_dtype_t)d)) {
        /* by ranks in a merged sort: the values first ('left': before equal elements of a)
         * or last ('right'), stably sorted with a; each value's place minus the values before
         * it counts a's elements before it (a sorted, as NumPy requires) */
        int64_t n = a->shape[0], m = fe_size(v), minus1 = -1;
        if (m == 0) return loom_zeros(ctx, LOOM_DTYPE_I64, v->ndim, v->shape);
        loom_array_t *flat = loom_reshape(ctx, srcs[1], 1, &minus1);
        loom_array_t *parts[2] = {right ? srcs[0] : flat, right ? flat : srcs[0]};
        loom_array_t *perm = loom_argsort(ctx, loom_concatenate(ctx, 2, parts, 0), 0);
        loom_array_t *isv = right ? loom_greater_equal(ctx, perm, fe_i64(ctx, n))
                                  : loom_less(ctx, perm, fe_i64(ctx, m));
        loom_array_t *q = loom_flatnonzero_sized(ctx, isv, m, -1); /* exactly m: no sync */
        loom_array_t *before = loom_subtract(ctx, q, loom_arange_int(ctx, 0, m, 1, LOOM_DTYPE_I64));
        loom_array_t *iv = loom_take(ctx, perm, q, 0, LOOM_TAKE_RAISE);
        if (right) iv = loom_subtract(ctx, iv, fe_i64(ctx, n));
        loom_array_t *r = loom_take(ctx, before, loom_argsort(ctx, iv, 0), 0, LOOM_TAKE_RAISE);
        return loom_reshape(ctx, r, v->ndim, v->shape);
    }
    ir_params_t p = {0};
    p.k = right != 0;
    return fe_shaped(ctx, IR_OP_SEARCHSORTED, LOOM_DTYPE_I64, v->ndim, v->shape, 2, srcs, &p);
}

static loom_array_t *slice1(loom_ctx_t *ctx, loom_array_t *a, int64_t start, int64_t stop) {
    return loom_slice(ctx, a, 1, &start, &stop, NULL);
}

/* The groups of equal rows of the sorted s (n rows of m elements, 2-D; or 1-D, elements)
 * and the permutation perm that sorted them (NULL when not asked for): flags where a group
 * starts, one sync for their number, then the results unique_values/index/inverse/counts name
 * (values: the first row of each group, still 2-D or 1-D). */
static loom_status_t unique_groups(loom_ctx_t *ctx, loom_array_t *s, loom_array_t *perm,
                                   int64_t n, int equal_nan, loom_array_t **values,
                                   loom_array_t **index, loom_array_t **inverse,
                                   loom_array_t **counts) {
    /* a group starts where a row differs from the one before it (NaNs equal when equal_nan,
     * as NumPy's default) */
    loom_array_t *hi = slice1(ctx, s, 1, LOOM_NONE), *lo = slice1(ctx, s, 0, -1);
    loom_array_t *starts = loom_not_equal(ctx, hi, lo);
    if (equal_nan && ir_is_complex((loom_dtype_t)s->dtype) && s->ndim == 1 && n > 1) {
        /* NumPy's rule for complex numbers, whose NaNs do not sort together (1 + nanj comes
         * before 2 + 0j): when the last is NaN, the group starts before the first position
         * a binary search of isnan(s) finds, one group there, none after */
        loom_array_t *nan = loom_isnan(ctx, s);
        loom_array_t *k = loom_searchsorted(ctx, nan, loom_weak_bool(ctx, 1), 0, NULL);
        loom_array_t *pos = loom_arange_int(ctx, 1, n, 1, LOOM_DTYPE_I64);
        loom_array_t *last = fe_index_axis(ctx, nan, 0, n - 1);
        loom_array_t *cut = loom_where(ctx, loom_less(ctx, pos, k), starts, loom_equal(ctx, pos, k));
        starts = loom_where(ctx, last, cut, starts);
    } else if (equal_nan && ir_is_float((loom_dtype_t)s->dtype))
        starts = loom_logical_and(
            ctx, starts,
            loom_logical_not(ctx, loom_logical_and(ctx, loom_isnan(ctx, hi), loom_isnan(ctx, lo))));
    if (s->ndim == 2) {
        int32_t one_ax = 1;
        starts = loom_any(ctx, starts, 1, &one_ax, 0);
    }
    int64_t one = 1;
    loom_array_t *parts[2] = {loom_ones(ctx, LOOM_DTYPE_BOOL, 1, &one), starts};
    loom_array_t *flags = loom_concatenate(ctx, 2, parts, 0);
    /* the sort (and permutation) realised with the flags, so that what follows the count's
     * sync reads them instead of sorting again */
    loom_array_t *ev[3] = {flags, s, perm};
    if (loom_eval(ctx, perm ? 3 : 2, ev) != LOOM_STATUS_OK) return ctx->err.status;
    loom_array_t *first = loom_flatnonzero(ctx, flags); /* the sync: the number of groups */
    if (first->flags & FE_NIL) return ctx->err.status;
    if (values) *values = loom_take(ctx, s, first, 0, LOOM_TAKE_RAISE);
    if (index) *index = loom_take(ctx, perm, first, 0, LOOM_TAKE_RAISE);
    if (counts) {
        loom_array_t *ends[2] = {slice1(ctx, first, 1, LOOM_NONE), fe_i64(ctx, n)};
        ends[1] = loom_reshape(ctx, ends[1], 1, &one);
        *counts = loom_subtract(ctx, loom_concatenate(ctx, 2, ends, 0), first);
    }
    if (inverse) { /* group of each sorted row, put back in the original order */
        loom_array_t *group = loom_subtract(
            ctx, loom_cumsum(ctx, loom_astype(ctx, flags, LOOM_DTYPE_I64), 0), fe_i64(ctx, 1));
        *inverse = loom_take(ctx, group, loom_argsort(ctx, perm, 0), 0, LOOM_TAKE_RAISE);
    }
    return ctx->err.status;
}

LOOM_API loom_status_t loom_unique(loom_ctx_t *ctx, loom_array_t *a, int equal_nan,
                                   loom_array_t **values, loom_array_t **index,
                                   loom_array_t **inverse, loom_array_t **counts) {
    const char *fn = "unique";
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    if (!fe_check_input(ctx, fn, a)) return ctx->err.status;
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
    loom_array_t *inv = NULL;
    loom_status_t st = unique_groups(ctx, s, perm, n, equal_nan, values, index,
                                     inverse ? &inv : NULL, counts);
    if (inverse && !st) *inverse = loom_reshape(ctx, inv, a->ndim, a->shape);
    if (!st && equal_nan && ir_is_complex((loom_dtype_t)a->dtype) && values && !index &&
        !inverse && !counts) {
        /* NumPy's unique of values alone goes through a hash table, which keeps the first
         * NaN of the input for the NaN group (the last group); with index, inverse or counts
         * it sorts, and the group's first in sorted order stays, as here */
        loom_array_t *nan = loom_isnan(ctx, flat);
        loom_array_t *j = loom_argmax(ctx, nan, -1, NULL, 0), *any = loom_any(ctx, nan, -1, NULL, 0);
        int64_t k = (*values)->shape[0];
        loom_array_t *at_last = loom_logical_and(
            ctx, any,
            loom_equal(ctx, loom_arange_int(ctx, 0, k, 1, LOOM_DTYPE_I64), fe_i64(ctx, k - 1)));
        *values = loom_where(ctx, at_last, loom_take(ctx, flat, j, 0, LOOM_TAKE_RAISE), *values);
    }
    return st;
}

LOOM_API loom_status_t loom_unique_axis(loom_ctx_t *ctx, loom_array_t *a, int32_t axis,
                                        int equal_nan, loom_array_t **values,
                                        loom_array_t **index, loom_array_t **inverse,
                                        loom_array_t **counts) {
    const char *fn = "unique";
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    if (!fe_check_input(ctx, fn, a)) return ctx->err.status;
    if (axis == LOOM_AXIS_NONE) return loom_unique(ctx, a, equal_nan, values, index, inverse, counts);
    int32_t ax;
    if (!fe_axis(ctx, fn, axis, a->ndim, &ax)) return ctx->err.status;
    int32_t zero_ax = 0;
    loom_array_t *b = loom_moveaxis(ctx, a, 1, &ax, &zero_ax); /* the rows first */
    int64_t n = a->shape[ax], m = 1; /* n rows of m elements */
    for (int32_t k = 0; k < a->ndim; k++)
        if (k != ax) m *= a->shape[k];
    int64_t shape2[2] = {n, m};
    loom_array_t *rows = loom_reshape(ctx, b, 2, shape2);
    if (n == 0) {
        int64_t zero = 0;
        if (values) *values = a;
        if (index) *index = loom_zeros(ctx, LOOM_DTYPE_I64, 1, &zero);
        if (inverse) *inverse = loom_zeros(ctx, LOOM_DTYPE_I64, 1, &zero);
        if (counts) *counts = loom_zeros(ctx, LOOM_DTYPE_I64, 1, &zero);
        return ctx->err.status;
    }
    /* rows in lexicographic order: a stable sort by each column, the last column first */
    loom_array_t **keys = base_malloc(&ctx->al, (size_t)(m ? m : 1), sizeof *keys);
    if (!keys) return fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "%s: out of memory", fn), ctx->err.status;
    int64_t at[2] = {0, 0}, to[2] = {n, 0};
    for (int64_t j = 0; j < m; j++) { /* lexsort: the last key is the primary one */
        at[1] = m - 1 - j;
        to[1] = m - j;
        keys[j] = loom_reshape(ctx, loom_slice(ctx, rows, 2, at, to, NULL), 1, &n);
    }
    loom_array_t *perm = m ? loom_lexsort(ctx, (int32_t)m, keys, 0)
                           : loom_arange(ctx, 0, (double)n, 1, LOOM_DTYPE_I64);
    base_free(&ctx->al, keys);
    loom_array_t *s = loom_take(ctx, rows, perm, 0, LOOM_TAKE_RAISE), *v = NULL;
    loom_status_t st = unique_groups(ctx, s, perm, n, equal_nan, values ? &v : NULL, index,
                                     inverse, counts);
    if (st || !values) return st;
    int64_t vshape[LOOM_MAX_DIMS];
    vshape[0] = v->shape[0];
    for (int32_t k = 0, d = 1; k < a->ndim; k++)
        if (k != ax) vshape[d++] = a->shape[k];
    *values = loom_moveaxis(ctx, loom_reshape(ctx, v, a->ndim, vshape), 1, &zero_ax, &ax);
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
        loom_array_t *in = loom_less(ctx, at, fe_i64(ctx, m));
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

LOOM_API loom_array_t *loom_lexsort(loom_ctx_t *ctx, int32_t n, loom_array_t *const *keys,
                                    int32_t axis) {
    const char *fn = "lexsort";
    if (!ctx) return NULL;
    if (n < 1 || !keys) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: need sequence of keys with len > 0 in "
                 "lexsort (%d keys at %p)",
                 fn, n, (const void *)keys);
        return &ctx->nil;
    }
    for (int32_t k = 0; k < n; k++) {
        if (!fe_check_arg(ctx, fn, keys[k])) return &ctx->nil;
        if (keys[k]->ndim != keys[0]->ndim ||
            memcmp(keys[k]->shape, keys[0]->shape, sizeof(int64_t) * (size_t)keys[0]->ndim)) {
            fe_error(ctx, LOOM_STATUS_SHAPE_MISMATCH, "%s: all keys need to be the same shape", fn);
            return &ctx->nil;
        }
    }
    if (keys[0]->ndim == 0) { /* NumPy: 0 for 0-d keys, with axis 0 or -1 */
        if (axis != 0 && axis != -1 && axis != LOOM_AXIS_NONE) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                     "%s: axis %d is out of bounds for array of dimension 0", fn, axis);
            return &ctx->nil;
        }
        return fe_i64(ctx, 0);
    }
    /* the first key sorted first, each later key re-sorting stably: the last key is primary */
    loom_array_t *idx = loom_argsort(ctx, keys[0], axis);
    for (int32_t k = 1; k < n && !(idx->flags & FE_NIL); k++) {
        loom_array_t *now = loom_take_along_axis(ctx, keys[k], idx, axis);
        idx = loom_take_along_axis(ctx, idx, loom_argsort(ctx, now, axis), axis);
    }
    return idx;
}

/* kth checked against the axis as NumPy does. */
static bool kth_ok(loom_ctx_t *ctx, const char *fn, loom_array_t **a, int32_t axis, int64_t kth,
                   int32_t *ax) {
    if (!fe_check_arg(ctx, fn, *a) || !fe_axis_or_flat(ctx, fn, a, axis, ax)) return false;
    int64_t n = (*a)->shape[*ax];
    if ((kth < -n || kth >= n) && fe_size(*a) > 0) { /* (NumPy: any kth of an empty array) */
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: kth(=%lld) out of bounds (%lld)", fn,
                 (long long)kth, (long long)n);
        return false;
    }
    return true;
}

LOOM_API loom_array_t *loom_partition(loom_ctx_t *ctx, loom_array_t *a, int64_t kth, int32_t axis) {
    int32_t ax;
    if (!ctx) return NULL;
    if (!kth_ok(ctx, "partition", &a, axis, kth, &ax)) return &ctx->nil;
    return loom_sort(ctx, a, ax); /* sorted is one valid partition for every kth */
}

LOOM_API loom_array_t *loom_argpartition(loom_ctx_t *ctx, loom_array_t *a, int64_t kth,
                                         int32_t axis) {
    int32_t ax;
    if (!ctx) return NULL;
    if (!kth_ok(ctx, "argpartition", &a, axis, kth, &ax)) return &ctx->nil;
    return loom_argsort(ctx, a, ax);
}

LOOM_API loom_status_t loom_top_k(loom_ctx_t *ctx, loom_array_t *a, int64_t k, int32_t axis,
                                  loom_array_t **values, loom_array_t **indices) {
    const char *fn = "top_k";
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    int32_t ax;
    if (!fe_check_input(ctx, fn, a) || !fe_axis(ctx, fn, axis, a->ndim, &ax))
        return ctx->err.status;
    int64_t n = a->shape[ax];
    if (k < 0 || k > n)
        return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                        "%s: k = %lld is outside [0, %lld] (the axis)", fn, (long long)k,
                        (long long)n);
    /* descending, equal values by position: the stable ascending order of the reversed axis,
     * read backwards */
    loom_array_t *p = loom_argsort(ctx, loom_flip(ctx, a, 1, &ax), ax);
    int64_t start[LOOM_MAX_DIMS], stop[LOOM_MAX_DIMS], step[LOOM_MAX_DIMS];
    for (int32_t i = 0; i < a->ndim; i++) start[i] = stop[i] = LOOM_NONE, step[i] = 1;
    start[ax] = n - 1, stop[ax] = n - 1 - k, step[ax] = -1;
    if (k == n) stop[ax] = LOOM_NONE;
    loom_array_t *top = loom_slice(ctx, p, a->ndim, start, stop, step);
    loom_array_t *idx = loom_subtract(ctx, fe_i64(ctx, n - 1), top);
    if (indices) *indices = idx;
    if (values) *values = loom_take_along_axis(ctx, a, idx, ax);
    return ctx->err.status;
}

LOOM_API loom_array_t *loom_choose(loom_ctx_t *ctx, loom_array_t *a, int32_t n,
                                   loom_array_t *const *choices, loom_take_mode_t mode) {
    const char *fn = "choose";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a)) return &ctx->nil;
    if (n < 1 || !choices) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: %d choices at %p", fn, n,
                 (const void *)choices);
        return &ctx->nil;
    }
    loom_array_t **list = base_malloc(&ctx->al, (size_t)n + 1, sizeof *list);
    if (!list) {
        fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "%s: out of memory", fn);
        return &ctx->nil;
    }
    list[0] = a;
    for (int32_t c = 0; c < n; c++) list[c + 1] = choices[c];
    int32_t nd;
    int64_t b[LOOM_MAX_DIMS];
    for (int32_t c = 0; c < n; c++)
        if (!fe_check_arg(ctx, fn, choices[c])) goto fail;
    if (!fe_broadcast_shapes(n + 1, list, &nd, b)) { /* a and every choice together */
        fe_error(ctx, LOOM_STATUS_SHAPE_MISMATCH,
                 "%s: shape mismatch: objects cannot be broadcast to a single shape", fn);
        goto fail;
    }
    if (nd + 1 > LOOM_MAX_DIMS) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: %d axes is too many", fn, nd + 1);
        goto fail;
    }
    int d = fe_value_dtype(ctx, fn, n, choices); /* NumPy's: weak scalars take the arrays' */
    if (d < 0) goto fail;
    for (int32_t c = 0; c < n; c++)
        list[c] = loom_broadcast_to(ctx, loom_astype(ctx, choices[c], (loom_dtype_t)d), nd, b);
    loom_array_t *stacked = loom_stack(ctx, n, list, 0);
    base_free(&ctx->al, list);
    list = NULL;
    int32_t zero = 0;
    loom_array_t *idx = loom_expand_dims(ctx, loom_broadcast_to(ctx, a, nd, b), 1, &zero);
    if (mode == LOOM_TAKE_WRAP || mode == LOOM_TAKE_CLIP) { /* in range before the gather */
        idx = fe_index_mode(ctx, loom_astype(ctx, idx, LOOM_DTYPE_I64), n, 0, mode);
    } else if (mode == LOOM_TAKE_RAISE) { /* NumPy refuses negative entries here: push them
                                              out of range (reported as entry - n) */
        idx = loom_astype(ctx, idx, LOOM_DTYPE_I64);
        loom_array_t *nn = fe_i64(ctx, n);
        idx =
            loom_where(ctx, loom_less(ctx, idx, fe_i64(ctx, 0)), loom_subtract(ctx, idx, nn), idx);
    } else {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: mode %d is not raise, wrap or clip", fn,
                 (int)mode);
        return &ctx->nil;
    }
    /* stacked[a[i], i] for every i */
    return loom_squeeze(ctx, loom_take_along_axis(ctx, stacked, idx, 0), 1, &zero);
fail:
    base_free(&ctx->al, list);
    return &ctx->nil;
}
