/* scatter.c — scatters as values (arrays stay immutable): loom_at (NumPy's x[idx] = v and
 * ufunc.at, JAX's x.at[idx].set/add/min/max), put, put_along_axis, place, bincount and
 * histogram. One IR node, SCATTER, writes a copy of its base at flat element indices in C order
 * of the index array: "set" keeps the last write of a duplicated index, "add", "min" and "max"
 * combine every duplicate in that order, so float sums are the same on every run. The flat
 * indices come from the gathers of index.c applied to the base's own positions (an arange), so
 * every form of NumPy's indexing selects the same elements here as it reads there. */
#include <math.h>
#include <string.h>

#include "fe.h"

loom_array_t *fe_positions(loom_ctx_t *ctx, const loom_array_t *a) {
    loom_array_t *r = loom_arange_int(ctx, 0, fe_size(a), 1, LOOM_DTYPE_I64);
    return loom_reshape(ctx, r, a->ndim, a->shape);
}

/* NumPy's same_kind rule for a ufunc.at's values: bool < unsigned/signed ints < floats <
 * complex. */
static bool same_kind(loom_dtype_t from, loom_dtype_t to) {
    ir_dkind_t f = ir_dtypes[from].kind, t = ir_dtypes[to].kind;
    if (f == t || f == IR_DKIND_BOOL || t == IR_DKIND_COMPLEX) return true;
    if (t == IR_DKIND_FLOAT) return f != IR_DKIND_COMPLEX;
    return f == IR_DKIND_UINT && t == IR_DKIND_INT;
}

/* The flat a (n elements) with one more element after it, and the last write of v (1-D) at
 * positions f (1-D) where keep holds, in reverse order: the first such v of each position, in
 * C order of f, or a's own element where there is none (a's extra element takes the rest). */
static loom_array_t *first_write(loom_ctx_t *ctx, const char *fn, loom_array_t *a, loom_array_t *f,
                                 loom_array_t *v, loom_array_t *keep) {
    int64_t n = fe_size(a), m = f->shape[0], one = 1, minus1 = -1;
    loom_array_t *parts[2] = {loom_reshape(ctx, a, 1, &minus1),
                              loom_zeros(ctx, (loom_dtype_t)a->dtype, 1, &one)};
    loom_array_t *ext = loom_concatenate(ctx, 2, parts, 0);
    loom_array_t *to = loom_where(ctx, keep, f, loom_full_int(ctx, LOOM_DTYPE_I64, 0, NULL, n));
    loom_array_t *rf = fe_slice_axis(ctx, to, 0, m - 1, LOOM_NONE, -1);
    loom_array_t *rv = fe_slice_axis(ctx, v, 0, m - 1, LOOM_NONE, -1);
    loom_array_t *w = fe_scatter(ctx, fn, ext, rf, rv, LOOM_AT_SET);
    return loom_reshape(ctx, fe_slice_axis(ctx, w, 0, 0, n, 1), a->ndim, a->shape);
}

/* minimum.at / maximum.at of complex numbers, NumPy's sequential result: each position keeps
 * the first of its element and its values (C order) that is least (most) in NumPy's
 * lexicographic order, and a NaN when any of them is one (its own element's, else the first
 * NaN value). Built from real scatters: the least real parts, the least imaginary parts among
 * the elements with that real part, then one ordered write of the first value equal to both
 * (so equal values keep the earlier one's bits, the sign of a zero included) or, where there
 * is one, the first NaN. */
static loom_array_t *complex_extreme_at(loom_ctx_t *ctx, const char *fn, loom_array_t *a,
                                        loom_array_t *f, loom_array_t *v, loom_at_op_t op) {
    int64_t minus1 = -1;
    double far = op == LOOM_AT_MIN ? INFINITY : -INFINITY;
    f = loom_reshape(ctx, f, 1, &minus1);
    v = loom_reshape(ctx, v, 1, &minus1);
    if ((f->flags & FE_NIL) || (v->flags & FE_NIL) || f->shape[0] == 0) return a;
    loom_array_t *an = loom_logical_or(ctx, loom_isnan(ctx, loom_real(ctx, a)),
                                       loom_isnan(ctx, loom_imag(ctx, a)));
    loom_array_t *vn = loom_logical_or(ctx, loom_isnan(ctx, loom_real(ctx, v)),
                                       loom_isnan(ctx, loom_imag(ctx, v)));
    /* NaNs out of the way of the order: the far end */
    loom_array_t *ar = loom_where(ctx, an, loom_weak_float(ctx, far), loom_real(ctx, a));
    loom_array_t *ai = loom_where(ctx, an, loom_weak_float(ctx, far), loom_imag(ctx, a));
    loom_array_t *vr = loom_where(ctx, vn, loom_weak_float(ctx, far), loom_real(ctx, v));
    loom_array_t *vi = loom_where(ctx, vn, loom_weak_float(ctx, far), loom_imag(ctx, v));
    loom_array_t *mr = fe_scatter(ctx, fn, ar, f, vr, op);
    loom_array_t *at_r = loom_take(ctx, mr, f, LOOM_AXIS_NONE, LOOM_TAKE_RAISE);
    loom_array_t *far_ai = loom_full(ctx, (loom_dtype_t)ai->dtype, 0, NULL, far);
    loom_array_t *mi = fe_scatter(ctx, fn, loom_where(ctx, loom_equal(ctx, ar, mr), ai, far_ai), f,
                                  loom_where(ctx, loom_equal(ctx, vr, at_r), vi, far_ai), op);
    loom_array_t *at_i = loom_take(ctx, mi, f, LOOM_AXIS_NONE, LOOM_TAKE_RAISE);
    loom_array_t *a_wins = loom_logical_and(ctx, loom_equal(ctx, ar, mr), loom_equal(ctx, ai, mi));
    loom_array_t *v_ties = loom_logical_and(
        ctx, loom_logical_not(ctx, vn),
        loom_logical_and(ctx, loom_equal(ctx, vr, at_r), loom_equal(ctx, vi, at_i)));
    /* one ordered write of the values that win: the first NaN where a position has one, else
     * the first value equal to the extreme; the element's own NaN or tie comes before both */
    loom_array_t *zero = loom_zeros(ctx, LOOM_DTYPE_I8, 0, NULL);
    loom_array_t *any_vn =
        loom_greater(ctx,
                     fe_scatter(ctx, fn, loom_astype(ctx, an, LOOM_DTYPE_I8), f,
                                loom_astype(ctx, vn, LOOM_DTYPE_I8), LOOM_AT_MAX),
                     zero);
    loom_array_t *keep =
        loom_where(ctx, loom_take(ctx, any_vn, f, LOOM_AXIS_NONE, LOOM_TAKE_RAISE), vn, v_ties);
    loom_array_t *w = first_write(ctx, fn, a, f, v, keep);
    return loom_where(
        ctx, loom_logical_or(ctx, an, loom_logical_and(ctx, a_wins, loom_logical_not(ctx, any_vn))),
        a, w);
}

loom_array_t *fe_scatter(loom_ctx_t *ctx, const char *fn, loom_array_t *a, loom_array_t *f,
                         loom_array_t *values, loom_at_op_t op) {
    if ((f->flags & FE_NIL) || (values->flags & FE_NIL)) return &ctx->nil;
    if (op != LOOM_AT_SET && !same_kind((loom_dtype_t)values->dtype, (loom_dtype_t)a->dtype)) {
        fe_error(ctx, LOOM_STATUS_DTYPE_ERROR,
                 "%s: cannot cast the values from %s to %s with casting rule 'same_kind'", fn,
                 ir_dtypes[values->dtype].name, ir_dtypes[a->dtype].name);
        return &ctx->nil;
    }
    loom_array_t *v =
        loom_broadcast_to(ctx, loom_astype(ctx, values, (loom_dtype_t)a->dtype), f->ndim, f->shape);
    if (v->flags & FE_NIL) return v;
    if (ir_is_complex((loom_dtype_t)a->dtype)) {
        /* min and max order complex numbers as a whole; set and add go part by part (the
         * same writes win, each part's sum is the complex sum's) */
        if (op == LOOM_AT_MIN || op == LOOM_AT_MAX) return complex_extreme_at(ctx, fn, a, f, v, op);
        loom_array_t *re = fe_scatter(ctx, fn, loom_real(ctx, a), f, loom_real(ctx, v), op);
        loom_array_t *im = fe_scatter(ctx, fn, loom_imag(ctx, a), f, loom_imag(ctx, v), op);
        return loom_complex(ctx, re, im);
    }
    loom_array_t *srcs[3] = {a, f, v};
    ir_params_t p = {0};
    p.k = op;
    return fe_shaped(ctx, IR_OP_SCATTER, (loom_dtype_t)a->dtype, a->ndim, a->shape, 3, srcs, &p);
}

LOOM_API loom_array_t *loom_at(loom_ctx_t *ctx, loom_array_t *a, int32_t n, const int32_t *axes,
                               loom_array_t *const *indices, loom_array_t *values,
                               loom_at_op_t op) {
    const char *fn = "at";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a) || !fe_check_arg(ctx, fn, values)) return &ctx->nil;
    if (op < LOOM_AT_SET || op > LOOM_AT_MAX) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: op %d is not set, add, min or max", fn,
                 (int)op);
        return &ctx->nil;
    }
    if (n < 1 || n > a->ndim || !axes) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: %d index arrays for an array of dimension %d", fn, n, a->ndim);
        return &ctx->nil;
    }
    /* NumPy's placement: where the first indexed axis is when the axes are adjacent, else
     * first (what x[...] with these arrays selects) */
    bool adjacent = true;
    for (int32_t t = 1; t < n; t++) {
        int32_t p0 = axes[t - 1] < 0 ? axes[t - 1] + a->ndim : axes[t - 1];
        int32_t p1 = axes[t] < 0 ? axes[t] + a->ndim : axes[t];
        adjacent = adjacent && p1 == p0 + 1;
    }
    int32_t first = axes[0] < 0 ? axes[0] + a->ndim : axes[0];
    loom_array_t *f =
        loom_gather(ctx, fe_positions(ctx, a), n, axes, indices, adjacent ? first : 0);
    return fe_scatter(ctx, fn, a, f, values, op);
}

/* values, flattened and repeated (NumPy's put and place) to length n; NULL when values is
 * empty. */
static loom_array_t *cycled(loom_ctx_t *ctx, loom_array_t *values, int64_t n) {
    int64_t minus1 = -1, m = fe_size(values);
    if (m == 0) return NULL;
    loom_array_t *flat = loom_reshape(ctx, values, 1, &minus1);
    if (m == n) return flat;
    loom_array_t *i =
        loom_remainder(ctx, loom_arange_int(ctx, 0, n, 1, LOOM_DTYPE_I64), fe_i64(ctx, m));
    return loom_take(ctx, flat, i, 0, LOOM_TAKE_RAISE);
}

LOOM_API loom_array_t *loom_put(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *indices,
                                loom_array_t *values, loom_take_mode_t mode) {
    const char *fn = "put";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a) || !fe_check_arg(ctx, fn, indices) ||
        !fe_check_arg(ctx, fn, values))
        return &ctx->nil;
    int64_t minus1 = -1, n = fe_size(indices);
    loom_array_t *flat_idx = loom_reshape(ctx, indices, 1, &minus1);
    /* the flat positions the indices name (take's modes and checks), as take reads them */
    loom_array_t *f =
        loom_take(ctx, loom_reshape(ctx, fe_positions(ctx, a), 1, &minus1), flat_idx, 0, mode);
    loom_array_t *v = cycled(ctx, values, n);
    if (!v) return f->flags & FE_NIL ? f : a; /* nothing to put: NumPy leaves a as it is */
    return fe_scatter(ctx, fn, a, f, v, LOOM_AT_SET);
}

LOOM_API loom_array_t *loom_put_along_axis(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *indices,
                                           loom_array_t *values, int32_t axis) {
    const char *fn = "put_along_axis";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a) || !fe_check_arg(ctx, fn, values)) return &ctx->nil;
    loom_array_t *f = loom_take_along_axis(ctx, fe_positions(ctx, a), indices, axis);
    return fe_scatter(ctx, fn, a, f, values, LOOM_AT_SET);
}

LOOM_API loom_array_t *loom_place(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *mask,
                                  loom_array_t *values) {
    const char *fn = "place";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a) || !fe_check_arg(ctx, fn, mask) || !fe_check_arg(ctx, fn, values))
        return &ctx->nil;
    if (fe_size(mask) != fe_size(a)) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: mask and data must be the same size (%lld and %lld)", fn,
                 (long long)fe_size(mask), (long long)fe_size(a));
        return &ctx->nil;
    }
    loom_array_t *f = loom_flatnonzero(ctx, mask);
    if (f->flags & FE_NIL) return f;
    if (f->shape[0] == 0) return a;
    loom_array_t *v = cycled(ctx, values, f->shape[0]);
    if (!v) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: cannot insert from an empty array", fn);
        return &ctx->nil;
    }
    return fe_scatter(ctx, fn, a, f, v, LOOM_AT_SET);
}

/* Reads the int64 values of 0-d arrays now (a sync). */
static bool read_now(loom_ctx_t *ctx, int n, loom_array_t **arrays, int64_t *out) {
    loom_status_t st = loom_eval(ctx, n, arrays);
    for (int i = 0; i < n && st == LOOM_STATUS_OK; i++)
        st = loom_read(ctx, arrays[i], &out[i], sizeof out[i]);
    return st == LOOM_STATUS_OK;
}

LOOM_API loom_array_t *loom_bincount(loom_ctx_t *ctx, loom_array_t *x, loom_array_t *weights,
                                     int64_t minlength) {
    const char *fn = "bincount";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, x) || (weights && !fe_check_arg(ctx, fn, weights))) return &ctx->nil;
    if (x->ndim != 1 || !ir_is_int((loom_dtype_t)x->dtype) || x->dtype == LOOM_DTYPE_BOOL) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: x must be a 1-d array of integers (it is %d-d %s)", fn, x->ndim,
                 ir_dtypes[x->dtype].name);
        return &ctx->nil;
    }
    if (minlength < 0) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: minlength must be non-negative, not %lld",
                 fn, (long long)minlength);
        return &ctx->nil;
    }
    if (weights && ir_is_complex((loom_dtype_t)weights->dtype)) {
        fe_error(ctx, LOOM_STATUS_NOT_AVAILABLE, "%s: %s weights are not supported yet", fn,
                 ir_dtypes[weights->dtype].name);
        return &ctx->nil;
    }
    if (weights && (weights->ndim != 1 || weights->shape[0] != x->shape[0])) {
        fe_error(ctx, LOOM_STATUS_SHAPE_MISMATCH,
                 "%s: the weights and x must have the same length (%lld and %lld)", fn,
                 (long long)fe_size(weights), (long long)x->shape[0]);
        return &ctx->nil;
    }
    loom_array_t *xi = loom_astype(ctx, x, LOOM_DTYPE_I64);
    int64_t len = minlength;
    if (x->shape[0] > 0) { /* the length depends on the values: one sync */
        int64_t mm[2];
        loom_scope_begin(ctx);
        loom_array_t *r[2] = {loom_min(ctx, xi, -1, NULL, 0), loom_max(ctx, xi, -1, NULL, 0)};
        bool ok = read_now(ctx, 2, r, mm);
        loom_scope_end(ctx);
        if (!ok) return &ctx->nil;
        if (mm[0] < 0) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                     "%s: x must have no negative elements (it holds %lld)", fn, (long long)mm[0]);
            return &ctx->nil;
        }
        if (mm[1] + 1 > len) len = mm[1] + 1;
    }
    loom_dtype_t d = weights ? LOOM_DTYPE_F64 : LOOM_DTYPE_I64;
    loom_array_t *v = weights ? weights : loom_ones(ctx, LOOM_DTYPE_I64, 1, x->shape);
    return fe_scatter(ctx, fn, loom_zeros(ctx, d, 1, &len), xi, v, LOOM_AT_ADD);
}

LOOM_API loom_status_t loom_histogram(loom_ctx_t *ctx, loom_array_t *a, int64_t bins,
                                      loom_array_t *edges, double lo, double hi,
                                      loom_array_t *weights, loom_array_t **hist,
                                      loom_array_t **bin_edges) {
    const char *fn = "histogram";
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    if (!fe_check_input(ctx, fn, a) || (edges && !fe_check_input(ctx, fn, edges)) ||
        (weights && !fe_check_input(ctx, fn, weights)))
        return ctx->err.status;
    if (!hist) return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: hist must not be NULL", fn);
    loom_array_t *const checked[3] = {a, edges, weights};
    for (int i = 0; i < 3; i++)
        if (checked[i] && ir_is_complex((loom_dtype_t)checked[i]->dtype))
            return fe_error(ctx, LOOM_STATUS_NOT_AVAILABLE, "%s: %s operands are not supported yet",
                            fn, ir_dtypes[checked[i]->dtype].name);
    int64_t minus1 = -1;
    loom_array_t *x = loom_reshape(ctx, a, 1, &minus1), *w = NULL;
    if (weights) {
        if (fe_size(weights) != fe_size(a))
            return fe_error(ctx, LOOM_STATUS_SHAPE_MISMATCH,
                            "%s: weights should have the same shape as a", fn);
        w = loom_reshape(ctx, weights, 1, &minus1);
    }
    loom_dtype_t ed = ir_is_float((loom_dtype_t)a->dtype) ? (loom_dtype_t)a->dtype : LOOM_DTYPE_F64;
    loom_array_t *e, *bin;
    if (edges) {
        if (edges->ndim != 1 || edges->shape[0] < 2)
            return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                            "%s: bins must be a 1-d array of at least 2 edges", fn);
        e = edges;
        bins = edges->shape[0] - 1;
        /* the bin is the last edge at or below the value; the last bin holds its right edge */
        bin = loom_subtract(ctx, loom_searchsorted(ctx, e, x, 1, NULL), fe_i64(ctx, 1));
        loom_array_t *last = loom_take(ctx, e, fe_i64(ctx, bins), 0, LOOM_TAKE_RAISE);
        bin = loom_where(ctx, loom_equal(ctx, x, last), fe_i64(ctx, bins - 1), bin);
    } else {
        if (bins < 1)
            return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                            "%s: bins must be positive, not %lld", fn, (long long)bins);
        if (lo != lo || hi != hi) { /* the range of the data: one sync */
            if (fe_size(a) == 0) {
                lo = 0, hi = 1;
            } else {
                double mm[2];
                loom_scope_begin(ctx);
                loom_array_t *r[2] = {
                    loom_astype(ctx, loom_min(ctx, x, -1, NULL, 0), LOOM_DTYPE_F64),
                    loom_astype(ctx, loom_max(ctx, x, -1, NULL, 0), LOOM_DTYPE_F64)};
                loom_status_t st = loom_eval(ctx, 2, r);
                for (int i = 0; i < 2 && st == LOOM_STATUS_OK; i++)
                    st = loom_read(ctx, r[i], &mm[i], sizeof mm[i]);
                loom_scope_end(ctx);
                if (st != LOOM_STATUS_OK) return ctx->err.status ? ctx->err.status : st;
                lo = mm[0], hi = mm[1];
            }
        }
        if (!(lo <= hi) || lo - lo != 0 || hi - hi != 0)
            return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                            "%s: max must be larger than min in range parameter (%g, %g)", fn, lo,
                            hi);
        if (lo == hi) lo -= 0.5, hi += 0.5;
        e = loom_linspace(ctx, lo, hi, bins + 1, 1, ed);
        /* NumPy's fast path: the scaled offset, then a correction by the edges themselves */
        loom_array_t *xf = loom_astype(ctx, x, ed);
        loom_array_t *lo_a = loom_full(ctx, ed, 0, NULL, lo);
        loom_array_t *norm = loom_full(ctx, ed, 0, NULL, (double)bins / (hi - lo));
        bin = loom_astype(ctx, loom_multiply(ctx, loom_subtract(ctx, xf, lo_a), norm),
                          LOOM_DTYPE_I64);
        bin = loom_minimum(ctx, loom_maximum(ctx, bin, fe_i64(ctx, 0)), fe_i64(ctx, bins - 1));
        loom_array_t *left = loom_take(ctx, e, bin, 0, LOOM_TAKE_CLIP);
        bin =
            loom_where(ctx, loom_less(ctx, xf, left), loom_subtract(ctx, bin, fe_i64(ctx, 1)), bin);
        loom_array_t *right =
            loom_take(ctx, e, loom_add(ctx, bin, fe_i64(ctx, 1)), 0, LOOM_TAKE_CLIP);
        loom_array_t *up = loom_logical_and(ctx, loom_greater_equal(ctx, xf, right),
                                            loom_not_equal(ctx, bin, fe_i64(ctx, bins - 1)));
        bin = loom_where(ctx, up, loom_add(ctx, bin, fe_i64(ctx, 1)), bin);
        /* outside [lo, hi]: not counted */
        loom_array_t *keep =
            loom_logical_and(ctx, loom_greater_equal(ctx, xf, lo_a),
                             loom_less_equal(ctx, xf, loom_full(ctx, ed, 0, NULL, hi)));
        bin = loom_where(ctx, keep, bin, fe_i64(ctx, -1));
    }
    if (edges) { /* outside the edges: not counted */
        loom_array_t *keep = loom_logical_and(ctx, loom_greater_equal(ctx, bin, fe_i64(ctx, 0)),
                                              loom_less(ctx, bin, fe_i64(ctx, bins)));
        bin = loom_where(ctx, keep, bin, fe_i64(ctx, -1));
    }
    loom_dtype_t hd =
        w ? (ir_is_float((loom_dtype_t)w->dtype) ? (loom_dtype_t)w->dtype : LOOM_DTYPE_I64)
          : LOOM_DTYPE_I64;
    loom_array_t *v = w ? w : loom_ones(ctx, LOOM_DTYPE_I64, 1, x->shape);
    *hist = fe_scatter(ctx, fn, loom_zeros(ctx, hd, 1, &bins), bin, v, LOOM_AT_ADD);
    if (bin_edges) *bin_edges = e;
    return ctx->err.status;
}
