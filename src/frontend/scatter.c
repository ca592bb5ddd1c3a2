/* scatter.c — scatters as values (arrays stay immutable): loom_at (NumPy's x[idx] = v and
 * ufunc.at, JAX's x.at[idx].set/add/min/max), put, put_along_axis, place, putmask, copyto,
 * fill_diagonal, bincount and the histograms (histogram, its density and bin edges,
 * histogramdd); NumPy's index helpers (unravel_index, ravel_multi_index, tril/triu/diag
 * indices, ix_) and setxor1d, composed from the same builders. One IR node, SCATTER, writes a
 * copy of its base at flat element indices in C order of the index array: "set" keeps the
 * last write of a duplicated index, "add", "min" and "max" combine every duplicate in that
 * order, so float sums are the same on every run. The flat indices come from the gathers of
 * index.c applied to the base's own positions (an arange), so every form of NumPy's indexing
 * selects the same elements here as it reads there. */
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

/* NumPy's conversion of an update's values to a's dtype: a Python scalar by its value (into
 * bool its truth; a complex one into a real dtype refused, an integer that does not fit an
 * OverflowError), an array by the 'safe' rule where NumPy's place and putmask check it (put
 * casts any; a 0-d one is let through, as NumPy lets its scalars: np.float64(2.5) into int8).
 * NULL with the error. */
static loom_array_t *update_values(loom_ctx_t *ctx, const char *fn, loom_array_t *v,
                                   loom_dtype_t to, bool safe) {
    if ((v->flags & FE_WEAK) && to != LOOM_DTYPE_BOOL) {
        if (v->weak_kind == FE_WEAK_COMPLEX && !ir_is_complex(to)) {
            fe_error(ctx, LOOM_STATUS_DTYPE_ERROR, "%s: cannot convert a Python complex to %s", fn,
                     ir_dtypes[to].name);
            return NULL;
        }
        loom_array_t *r = loom_add(ctx, loom_zeros(ctx, to, 0, NULL), v); /* (its range check) */
        return r->flags & FE_NIL ? NULL : r;
    }
    if (safe && !(v->flags & FE_WEAK) && v->ndim > 0 && fe_size(v) > 0 && /* ([]: any) */
        loom_can_cast((loom_dtype_t)v->dtype, to, LOOM_CASTING_SAFE) != 1) {
        fe_error(ctx, LOOM_STATUS_DTYPE_ERROR,
                 "%s: Cannot cast array data from dtype('%s') to dtype('%s') according to the "
                 "rule 'safe'",
                 fn, ir_dtypes[v->dtype].name, ir_dtypes[to].name);
        return NULL;
    }
    return v;
}

LOOM_API loom_array_t *loom_put(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *indices,
                                loom_array_t *values, loom_take_mode_t mode) {
    const char *fn = "put";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a) || !fe_check_arg(ctx, fn, indices) ||
        !fe_check_arg(ctx, fn, values))
        return &ctx->nil;
    if (!(values = update_values(ctx, fn, values, (loom_dtype_t)a->dtype, false))) return &ctx->nil;
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
    if (!(values = update_values(ctx, fn, values, (loom_dtype_t)a->dtype, false))) return &ctx->nil;
    loom_array_t *f = loom_take_along_axis(ctx, fe_positions(ctx, a), indices, axis);
    return fe_scatter(ctx, fn, a, f, values, LOOM_AT_SET);
}

/* place's and putmask's operands: arrays, and a mask of a's size (any shape, as NumPy's). */
static bool mask_args(loom_ctx_t *ctx, const char *fn, loom_array_t *a, loom_array_t *mask,
                      loom_array_t *values) {
    if (!fe_check_arg(ctx, fn, a) || !fe_check_arg(ctx, fn, mask) || !fe_check_arg(ctx, fn, values))
        return false;
    if (fe_size(mask) == fe_size(a)) return true;
    fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
             "%s: mask and data must be the same size (%lld and %lld)", fn,
             (long long)fe_size(mask), (long long)fe_size(a));
    return false;
}

LOOM_API loom_array_t *loom_place(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *mask,
                                  loom_array_t *values) {
    const char *fn = "place";
    if (!ctx) return NULL;
    if (!mask_args(ctx, fn, a, mask, values)) return &ctx->nil;
    if (!(values = update_values(ctx, fn, values, (loom_dtype_t)a->dtype, true))) return &ctx->nil;
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

/* num edges from lo to hi as NumPy's linspace makes them from two scalars of a float dtype
 * (the data's min and max): in that dtype's arithmetic, (hi - lo) / div * i + lo, the last edge
 * hi itself. (loom_linspace computes in double: the same edges for float64.) */
static loom_array_t *edges_like_numpy(loom_ctx_t *ctx, double lo, double hi, int64_t num,
                                      loom_dtype_t dt) {
    if (dt == LOOM_DTYPE_F64 || num < 2) return loom_linspace(ctx, lo, hi, num, 1, dt);
    loom_array_t *l = loom_full(ctx, dt, 0, NULL, lo), *h = loom_full(ctx, dt, 0, NULL, hi);
    loom_array_t *step = loom_true_divide(ctx, loom_subtract(ctx, h, l),
                                          loom_full(ctx, dt, 0, NULL, (double)(num - 1)));
    loom_array_t *i = loom_arange_int(ctx, 0, num, 1, LOOM_DTYPE_I64);
    loom_array_t *y = loom_add(ctx, loom_multiply(ctx, loom_astype(ctx, i, dt), step), l);
    return loom_where(ctx, loom_equal(ctx, i, fe_i64(ctx, num - 1)), h, y);
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
        bool of_data = false;
        if (lo != lo || hi != hi) { /* the range of the data: one sync */
            of_data = fe_size(a) != 0;
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
        e = of_data ? edges_like_numpy(ctx, lo, hi, bins + 1, ed)
                    : loom_linspace(ctx, lo, hi, bins + 1, 1, ed);
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

/* ---- NumPy's in-place updates, as values ---------------------------------------------- */

LOOM_API loom_array_t *loom_putmask(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *mask,
                                    loom_array_t *values) {
    const char *fn = "putmask";
    if (!ctx) return NULL;
    if (!mask_args(ctx, fn, a, mask, values)) return &ctx->nil;
    if (!(values = update_values(ctx, fn, values, (loom_dtype_t)a->dtype, true))) return &ctx->nil;
    /* the values repeat over all of a's flat positions, not over the true ones */
    loom_array_t *v = cycled(ctx, values, fe_size(a));
    if (!v) return a; /* empty values: NumPy leaves a as it is */
    v = loom_reshape(ctx, loom_astype(ctx, v, (loom_dtype_t)a->dtype), a->ndim, a->shape);
    loom_array_t *m = loom_reshape(ctx, loom_astype(ctx, mask, LOOM_DTYPE_BOOL), a->ndim, a->shape);
    return loom_where(ctx, m, v, a);
}

/* Whether x broadcasts to dst's shape exactly (NumPy's rule for what copyto writes); if not,
 * NumPy's error, naming shown's shape (the argument as given). */
static bool broadcasts_into(loom_ctx_t *ctx, const char *fn, const char *what, loom_array_t *x,
                            const loom_array_t *shown, loom_array_t *dst) {
    int32_t nd;
    int64_t shape[LOOM_MAX_DIMS];
    loom_array_t *pair[2] = {dst, x};
    if (x->ndim <= dst->ndim && fe_broadcast_shapes(2, pair, &nd, shape) && nd == dst->ndim &&
        !memcmp(shape, dst->shape, sizeof *shape * (size_t)nd))
        return true;
    char s1[96], s2[96];
    fe_format_shape(s1, sizeof s1, shown->ndim, shown->shape);
    fe_format_shape(s2, sizeof s2, dst->ndim, dst->shape);
    fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
             "%s: could not broadcast %s from shape %s into shape %s", fn, what, s1, s2);
    return false;
}

LOOM_API loom_array_t *loom_copyto(loom_ctx_t *ctx, loom_array_t *dst, loom_array_t *src,
                                   loom_casting_t casting, loom_array_t *where) {
    const char *fn = "copyto";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, dst) || !fe_check_arg(ctx, fn, src) ||
        (where && !fe_check_arg(ctx, fn, where)))
        return &ctx->nil;
    if (casting < LOOM_CASTING_NO || casting > LOOM_CASTING_UNSAFE) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: casting must be one of 'no', 'equiv', 'safe', 'same_kind', 'unsafe' (got %d)",
                 fn, (int)casting);
        return &ctx->nil;
    }
    static const char *const rules[] = {"no", "equiv", "safe", "same_kind", "unsafe"};
    loom_dtype_t to = (loom_dtype_t)dst->dtype;
    if (src->flags & FE_WEAK) {
        /* a Python scalar: its kind against dst's under every rule (NEP 50; an int may go
         * into an unsigned dtype), then its value must fit. NumPy 2's two exceptions: 'no'
         * puts a bool only into bool, and 'equiv' wants the scalar's own dtype (bool, int64,
         * float64, complex128) */
        static const loom_dtype_t kind_dtype[] = {LOOM_DTYPE_BOOL, LOOM_DTYPE_I64, LOOM_DTYPE_U64,
                                                  LOOM_DTYPE_F64, LOOM_DTYPE_C128};
        loom_dtype_t from = kind_dtype[src->weak_kind];
        if (from == LOOM_DTYPE_U64) from = LOOM_DTYPE_I64; /* (the kind) */
        bool kind_ok = same_kind(from, to) || (ir_dtypes[from].kind == IR_DKIND_INT &&
                                               ir_dtypes[to].kind == IR_DKIND_UINT);
        if (casting == LOOM_CASTING_NO && from == LOOM_DTYPE_BOOL) kind_ok = to == from;
        if (casting == LOOM_CASTING_EQUIV) kind_ok = kind_dtype[src->weak_kind] == to;
        if (casting != LOOM_CASTING_UNSAFE && !kind_ok) {
            fe_error(ctx, LOOM_STATUS_DTYPE_ERROR,
                     "Cannot cast scalar from dtype('%s') to dtype('%s') according to the rule "
                     "'%s'",
                     ir_dtypes[from].name, ir_dtypes[to].name, rules[casting]);
            return &ctx->nil;
        }
    } else if (loom_can_cast((loom_dtype_t)src->dtype, to, casting) != 1) {
        fe_error(ctx, LOOM_STATUS_DTYPE_ERROR,
                 "Cannot cast array data from dtype('%s') to dtype('%s') according to the rule "
                 "'%s'",
                 ir_dtypes[src->dtype].name, ir_dtypes[to].name, rules[casting]);
        return &ctx->nil;
    }
    loom_array_t *v = src->flags & FE_WEAK ? loom_add(ctx, loom_zeros(ctx, to, 0, NULL), src)
                                           : loom_astype(ctx, src, to);
    if (v->flags & FE_NIL) return v;
    if (v->dtype != dst->dtype) v = loom_astype(ctx, v, to); /* (a weak bool + bool is int8) */
    if (!broadcasts_into(ctx, fn, "input array", v, src, dst)) return &ctx->nil;
    v = loom_broadcast_to(ctx, v, dst->ndim, dst->shape);
    if (!where) return v;
    if (where->dtype != LOOM_DTYPE_BOOL) {
        fe_error(ctx, LOOM_STATUS_DTYPE_ERROR,
                 "Cannot cast array data from dtype('%s') to dtype('bool') according to the rule "
                 "'safe'",
                 ir_dtypes[where->dtype].name);
        return &ctx->nil;
    }
    if (!broadcasts_into(ctx, fn, "where mask", where, where, dst)) return &ctx->nil;
    return loom_where(ctx, where, v, dst);
}

LOOM_API loom_array_t *loom_fill_diagonal(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *val,
                                          int wrap) {
    const char *fn = "fill_diagonal";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a) || !fe_check_arg(ctx, fn, val)) return &ctx->nil;
    if (a->ndim < 2) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: array must be at least 2-d (it is %d-d)",
                 fn, a->ndim);
        return &ctx->nil;
    }
    /* NumPy's flat stride of the diagonal, and where it stops */
    int64_t step, end = fe_size(a);
    if (a->ndim == 2) {
        step = a->shape[1] + 1;
        if (!wrap && a->shape[1] < a->shape[0]) end = a->shape[1] * a->shape[1];
    } else {
        int64_t c = 1;
        step = 1;
        for (int32_t d = 1; d < a->ndim; d++)
            if (a->shape[d] != a->shape[0]) {
                fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                         "%s: All dimensions of input must be of equal length", fn);
                return &ctx->nil;
            }
        for (int32_t d = 0; d < a->ndim - 1; d++) step += (c *= a->shape[d]);
    }
    if (end == 0) return a;
    return loom_put(ctx, a, loom_arange_int(ctx, 0, end, step, LOOM_DTYPE_I64), val,
                    LOOM_TAKE_RAISE);
}

/* ---- histograms ------------------------------------------------------------------------- */

LOOM_API loom_array_t *loom_histogram_density(loom_ctx_t *ctx, loom_array_t *hist,
                                              loom_array_t *bin_edges) {
    const char *fn = "histogram_density";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, hist) || !fe_check_arg(ctx, fn, bin_edges)) return &ctx->nil;
    if (hist->ndim != 1 || bin_edges->ndim != 1 || bin_edges->shape[0] != hist->shape[0] + 1) {
        fe_error(ctx, LOOM_STATUS_SHAPE_MISMATCH, "%s: %lld counts need %lld edges (1-d), not %lld",
                 fn, (long long)fe_size(hist), (long long)fe_size(hist) + 1,
                 (long long)fe_size(bin_edges));
        return &ctx->nil;
    }
    /* NumPy's order: hist / diff(edges) / sum(hist), in float64 */
    loom_array_t *db = loom_astype(ctx, loom_diff(ctx, bin_edges, 1, 0), LOOM_DTYPE_F64);
    return loom_true_divide(ctx, loom_true_divide(ctx, hist, db), loom_sum(ctx, hist, -1, NULL, 0));
}

LOOM_API loom_array_t *loom_histogram_bin_edges(loom_ctx_t *ctx, loom_array_t *a, int64_t bins,
                                                loom_array_t *edges, double lo, double hi,
                                                loom_array_t *weights) {
    if (!ctx) return NULL;
    loom_array_t *h, *e;
    if (loom_histogram(ctx, a, bins, edges, lo, hi, weights, &h, &e) != LOOM_STATUS_OK)
        return &ctx->nil;
    return e; /* (the counts stay unevaluated) */
}

LOOM_API loom_status_t loom_histogramdd(loom_ctx_t *ctx, loom_array_t *sample, int32_t d,
                                        const int64_t *bins, loom_array_t *const *edges,
                                        const double *lo, const double *hi, loom_array_t *weights,
                                        int density, loom_array_t **hist,
                                        loom_array_t **bin_edges) {
    const char *fn = "histogramdd";
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    if (!fe_check_input(ctx, fn, sample) || (weights && !fe_check_input(ctx, fn, weights)))
        return ctx->err.status;
    if (!hist) return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: hist must not be NULL", fn);
    if (sample->ndim != 2 || sample->shape[1] != d || d < 1 || d > LOOM_MAX_DIMS)
        return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                        "%s: sample must be (N, D) with D = %d (1 to %d); its shape has %d axes",
                        fn, d, LOOM_MAX_DIMS, sample->ndim);
    for (int32_t i = 0; i < d; i++)
        if (edges && edges[i] && !fe_check_input(ctx, fn, edges[i])) return ctx->err.status;
    if (ir_is_complex((loom_dtype_t)sample->dtype) ||
        (weights && ir_is_complex((loom_dtype_t)weights->dtype)))
        return fe_error(ctx, LOOM_STATUS_NOT_AVAILABLE,
                        "%s: complex operands are not supported yet", fn);
    int64_t n = sample->shape[0], minus1 = -1;
    if (weights && (weights->ndim != 1 || weights->shape[0] != n))
        return fe_error(ctx, LOOM_STATUS_SHAPE_MISMATCH,
                        "%s: weights must be 1-d with one weight per point (%lld points)", fn,
                        (long long)n);
    /* the equal-bin axes without a range take the data's (one sync for all of them) */
    double mm[2][LOOM_MAX_DIMS];
    bool need = false;
    for (int32_t i = 0; i < d; i++) {
        bool given = edges && edges[i];
        mm[0][i] = lo ? lo[i] : NAN, mm[1][i] = hi ? hi[i] : NAN;
        if (!given && bins[i] < 1)
            return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                            "%s: `bins[%d]` must be positive, when an integer", fn, (int)i);
        if (given && (edges[i]->ndim != 1 || edges[i]->shape[0] < 2))
            return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                            "%s: `bins[%d]` must be a 1-d array of at least 2 edges", fn, (int)i);
        if (!given && (mm[0][i] != mm[0][i] || mm[1][i] != mm[1][i])) {
            if (n == 0)
                mm[0][i] = 0, mm[1][i] = 1;
            else
                need = true;
        }
    }
    loom_array_t *xf = loom_astype(ctx, sample, LOOM_DTYPE_F64);
    if (need) {
        double got[2][LOOM_MAX_DIMS];
        int32_t ax0 = 0;
        loom_scope_begin(ctx);
        loom_array_t *r[2] = {loom_min(ctx, xf, 1, &ax0, 0), loom_max(ctx, xf, 1, &ax0, 0)};
        loom_status_t st = loom_eval(ctx, 2, r);
        for (int i = 0; i < 2 && st == LOOM_STATUS_OK; i++)
            st = loom_read(ctx, r[i], got[i], sizeof *got[i] * (size_t)d);
        loom_scope_end(ctx);
        if (st != LOOM_STATUS_OK) return ctx->err.status ? ctx->err.status : st;
        for (int32_t i = 0; i < d; i++)
            if (!(edges && edges[i]) && (mm[0][i] != mm[0][i] || mm[1][i] != mm[1][i]))
                mm[0][i] = got[0][i], mm[1][i] = got[1][i];
    }
    loom_array_t *e[LOOM_MAX_DIMS], *flat = fe_i64(ctx, 0);
    loom_array_t *keep = loom_ones(ctx, LOOM_DTYPE_BOOL, 1, &n);
    int64_t nb[LOOM_MAX_DIMS];
    for (int32_t i = 0; i < d; i++) {
        if (edges && edges[i]) {
            e[i] = edges[i];
            nb[i] = edges[i]->shape[0] - 1;
        } else {
            double l = mm[0][i], h = mm[1][i];
            if (!(l <= h) || l - l != 0 || h - h != 0)
                return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                                "%s: max must be larger than min in range parameter (%g, %g)", fn,
                                l, h);
            if (l == h) l -= 0.5, h += 0.5;
            /* NumPy: linspace of the data's min and max, so float data's edges are in its
             * dtype; a range's numbers give float64 */
            bool of_data = n > 0 && !(lo && lo[i] == lo[i] && hi && hi[i] == hi[i]);
            e[i] = of_data && ir_is_float((loom_dtype_t)sample->dtype)
                       ? edges_like_numpy(ctx, l, h, bins[i] + 1, (loom_dtype_t)sample->dtype)
                       : loom_linspace(ctx, l, h, bins[i] + 1, 1, LOOM_DTYPE_F64);
            nb[i] = bins[i];
        }
        /* NumPy's rule: the last edge at or below the value; the last edge itself goes in the
         * last bin; anything outside [first, last] is not counted */
        loom_array_t *x = fe_index_axis(ctx, xf, 1, i),
                     *ef = loom_astype(ctx, e[i], LOOM_DTYPE_F64);
        loom_array_t *c = loom_searchsorted(ctx, ef, x, 1, NULL);
        loom_array_t *last = loom_take(ctx, ef, fe_i64(ctx, nb[i]), 0, LOOM_TAKE_RAISE);
        c = loom_subtract(ctx, c, loom_astype(ctx, loom_equal(ctx, x, last), LOOM_DTYPE_I64));
        keep = loom_logical_and(ctx, keep,
                                loom_logical_and(ctx, loom_greater(ctx, c, fe_i64(ctx, 0)),
                                                 loom_less_equal(ctx, c, fe_i64(ctx, nb[i]))));
        flat = loom_add(ctx, loom_multiply(ctx, flat, fe_i64(ctx, nb[i])),
                        loom_subtract(ctx, c, fe_i64(ctx, 1)));
    }
    int64_t total = 1;
    for (int32_t i = 0; i < d; i++) total *= nb[i];
    flat = loom_where(ctx, keep, flat, fe_i64(ctx, -1)); /* (dropped by the scatter) */
    loom_array_t *v =
        weights ? loom_astype(ctx, weights, LOOM_DTYPE_F64) : loom_ones(ctx, LOOM_DTYPE_F64, 1, &n);
    loom_array_t *h = fe_scatter(ctx, fn, loom_zeros(ctx, LOOM_DTYPE_F64, 1, &total),
                                 loom_reshape(ctx, flat, 1, &minus1), v, LOOM_AT_ADD);
    h = loom_reshape(ctx, h, d, nb);
    if (density) { /* NumPy's order: each axis's widths in turn, then the total */
        loom_array_t *s = loom_sum(ctx, h, -1, NULL, 0);
        for (int32_t i = 0; i < d; i++) {
            int64_t shape[LOOM_MAX_DIMS];
            for (int32_t j = 0; j < d; j++) shape[j] = j == i ? nb[i] : 1;
            loom_array_t *db = loom_astype(ctx, loom_diff(ctx, e[i], 1, 0), LOOM_DTYPE_F64);
            h = loom_true_divide(ctx, h, loom_reshape(ctx, db, d, shape));
        }
        h = loom_true_divide(ctx, h, s);
    }
    *hist = h;
    if (bin_edges)
        for (int32_t i = 0; i < d; i++) bin_edges[i] = e[i];
    return ctx->err.status;
}

/* ---- Index helpers ---------------------------------------------------------------------- */

/* Whether x holds integers (bool counts as 0 and 1); records NumPy's TypeError otherwise. */
static bool int_indices(loom_ctx_t *ctx, const char *fn, const loom_array_t *x) {
    if (ir_is_int((loom_dtype_t)x->dtype) || x->dtype == LOOM_DTYPE_BOOL) return true;
    fe_error(ctx, LOOM_STATUS_DTYPE_ERROR, "%s: only int indices permitted (not %s)", fn,
             ir_dtypes[x->dtype].name);
    return false;
}

/* The elements' extent product of dims, or -1 (recorded) when a dim is negative or it
 * overflows. */
static int64_t dims_size(loom_ctx_t *ctx, const char *fn, int32_t n, const int64_t *dims) {
    int64_t size = 1;
    if (n < 0 || n > LOOM_MAX_DIMS || (n > 0 && !dims)) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: %d dimensions (loom allows 0 to %d)", fn,
                 n, LOOM_MAX_DIMS);
        return -1;
    }
    if (!fe_check_shape(ctx, fn, n, dims, &size)) return -1;
    return size;
}

LOOM_API loom_status_t loom_unravel_index(loom_ctx_t *ctx, loom_array_t *indices, int32_t n,
                                          const int64_t *dims, int order_f, loom_array_t **outs) {
    const char *fn = "unravel_index";
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    if (!fe_check_input(ctx, fn, indices)) return ctx->err.status;
    if (!outs) return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: outs must not be NULL", fn);
    int64_t size = dims_size(ctx, fn, n, dims);
    if (size < 0 || !int_indices(ctx, fn, indices)) return ctx->err.status;
    if (n == 0 && indices->ndim > 0)
        return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                        "%s: multiple indices are not supported for 0d arrays", fn);
    loom_array_t *x = loom_astype(ctx, indices, LOOM_DTYPE_I64);
    if (fe_size(x) > 0) { /* NumPy's bounds check, on the values: one sync */
        int64_t mm[2];
        loom_scope_begin(ctx);
        loom_array_t *r[2] = {loom_min(ctx, x, -1, NULL, 0), loom_max(ctx, x, -1, NULL, 0)};
        bool ok = read_now(ctx, 2, r, mm);
        loom_scope_end(ctx);
        if (!ok) return ctx->err.status;
        if (mm[0] < 0 || mm[1] >= size)
            return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                            "%s: index %lld is out of bounds for array with size %lld", fn,
                            (long long)(mm[0] < 0 ? mm[0] : mm[1]), (long long)size);
    }
    /* coordinate i is (x // stride_i) % dims[i]; the slowest axis needs no remainder */
    int64_t stride = 1;
    for (int32_t t = 0; t < n; t++) {
        int32_t i = order_f ? t : n - 1 - t;
        loom_array_t *q = stride == 1 ? x : loom_floor_divide(ctx, x, fe_i64(ctx, stride));
        outs[i] = t == n - 1 ? q : loom_remainder(ctx, q, fe_i64(ctx, dims[i] ? dims[i] : 1));
        stride *= dims[i] ? dims[i] : 1;
    }
    return ctx->err.status;
}

LOOM_API loom_array_t *loom_ravel_multi_index(loom_ctx_t *ctx, int32_t n,
                                              loom_array_t *const *multi_index, const int64_t *dims,
                                              const loom_take_mode_t *modes, int order_f) {
    const char *fn = "ravel_multi_index";
    if (!ctx) return NULL;
    if (n < 1 || !multi_index) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: parameter multi_index must be a sequence of length %d", fn, n);
        return &ctx->nil;
    }
    if (dims_size(ctx, fn, n, dims) < 0) return &ctx->nil;
    loom_array_t *c[LOOM_MAX_DIMS];
    for (int32_t i = 0; i < n; i++) {
        if (!fe_check_arg(ctx, fn, multi_index[i]) || !int_indices(ctx, fn, multi_index[i]))
            return &ctx->nil;
        if (modes && (modes[i] < LOOM_TAKE_RAISE || modes[i] > LOOM_TAKE_CLIP)) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                     "%s: clipmode %d is not raise, wrap or clip", fn, (int)modes[i]);
            return &ctx->nil;
        }
        c[i] = loom_astype(ctx, multi_index[i], LOOM_DTYPE_I64);
    }
    loom_status_t st = loom_broadcast_arrays(ctx, n, c, c);
    if (st != LOOM_STATUS_OK) return &ctx->nil;
    loom_array_t *bad = NULL;
    for (int32_t i = 0; i < n; i++) {
        loom_take_mode_t m = modes ? modes[i] : LOOM_TAKE_RAISE;
        loom_array_t *d = fe_i64(ctx, dims[i]);
        if (m == LOOM_TAKE_WRAP && dims[i] > 0) {
            c[i] = loom_remainder(ctx, c[i], d);
        } else if (m == LOOM_TAKE_CLIP && dims[i] > 0) {
            c[i] = loom_minimum(ctx, loom_maximum(ctx, c[i], fe_i64(ctx, 0)),
                                fe_i64(ctx, dims[i] - 1));
        } else { /* raise (and wrap or clip into an empty axis, which NumPy refuses too) */
            loom_array_t *out = loom_logical_or(ctx, loom_less(ctx, c[i], fe_i64(ctx, 0)),
                                                loom_greater_equal(ctx, c[i], d));
            bad = bad ? loom_logical_or(ctx, bad, out) : out;
        }
    }
    if (bad && fe_size(bad) > 0) { /* NumPy's check, on the values: one sync */
        bool any;
        if (!fe_any_true(ctx, bad, &any)) return &ctx->nil;
        if (any) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: invalid entry in coordinates array",
                     fn);
            return &ctx->nil;
        }
    }
    loom_array_t *r = NULL;
    for (int32_t t = 0; t < n; t++) { /* Horner's rule from the slowest axis */
        int32_t i = order_f ? n - 1 - t : t;
        r = r ? loom_add(ctx, loom_multiply(ctx, r, fe_i64(ctx, dims[i])), c[i]) : c[i];
    }
    return r;
}

/* The number of (i, j) in an n x m grid with j <= i + k (|k| at most n + m): row i holds
 * clamp(i + k + 1, 0, m), a run of growing rows (an arithmetic series) then full ones. */
static int64_t tri_count(int64_t n, int64_t m, int64_t k) {
    int64_t lo = k + 1 < 0 ? -(k + 1) : 0; /* the first row with anything */
    if (lo >= n) return 0;
    int64_t hi = m - k - 1 > lo ? m - k - 1 : lo; /* the first full row */
    if (hi > n) hi = n;
    return (hi - lo) * (lo + k + 1 + hi + k) / 2 + (n - hi) * m;
}

static loom_status_t tri_indices(loom_ctx_t *ctx, const char *fn, int64_t n, int64_t k, int64_t m,
                                 int upper, loom_array_t **outs) {
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    if (!outs) return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: outs must not be NULL", fn);
    if (m == LOOM_NONE) m = n;
    if (n < 0 || m < 0)
        return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                        "%s: negative dimensions are not allowed (%lld, %lld)", fn, (long long)n,
                        (long long)m);
    /* NumPy's nonzero(tri(n, m, k)) (upper: of its complement below k - 1), with the count
     * known from n, m and k: the sized nonzero needs no sync */
    if (upper && k == INT64_MIN) k = INT64_MIN + 1;
    int64_t kk = upper ? k - 1 : k;
    kk = kk < -n ? -n : kk > m ? m : kk; /* (far diagonals: all or nothing) */
    loom_array_t *t = loom_tri(ctx, n, m, kk, LOOM_DTYPE_BOOL);
    int64_t count = tri_count(n, m, kk);
    if (upper) {
        t = loom_logical_not(ctx, t);
        count = n * m - count;
    }
    return loom_nonzero_sized(ctx, t, count, 0, 2, outs);
}

LOOM_API loom_status_t loom_tril_indices(loom_ctx_t *ctx, int64_t n, int64_t k, int64_t m,
                                         loom_array_t **outs) {
    return tri_indices(ctx, "tril_indices", n, k, m, 0, outs);
}

LOOM_API loom_status_t loom_triu_indices(loom_ctx_t *ctx, int64_t n, int64_t k, int64_t m,
                                         loom_array_t **outs) {
    return tri_indices(ctx, "triu_indices", n, k, m, 1, outs);
}

LOOM_API loom_status_t loom_diag_indices(loom_ctx_t *ctx, int64_t n, int32_t ndim,
                                         loom_array_t **outs) {
    const char *fn = "diag_indices";
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    if (!outs || ndim < 0 || ndim > 64)
        return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: ndim %d (0 to 64, outs not NULL)",
                        fn, (int)ndim);
    if (n < 0)
        return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                        "%s: negative dimensions are not allowed (%lld)", fn, (long long)n);
    loom_array_t *r = loom_arange_int(ctx, 0, n, 1, LOOM_DTYPE_I64);
    for (int32_t i = 0; i < ndim; i++) outs[i] = r;
    return ctx->err.status;
}

LOOM_API loom_status_t loom_ix(loom_ctx_t *ctx, int32_t n, loom_array_t *const *arrays,
                               loom_array_t **outs) {
    const char *fn = "ix_";
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    if (n < 0 || n > LOOM_MAX_DIMS || (n > 0 && (!arrays || !outs)))
        return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: %d arrays (loom allows 0 to %d)",
                        fn, (int)n, LOOM_MAX_DIMS);
    for (int32_t k = 0; k < n; k++) {
        loom_array_t *a = arrays[k];
        if (!fe_check_input(ctx, fn, a)) return ctx->err.status;
        if (a->ndim != 1)
            return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                            "%s: Cross index must be 1 dimensional (argument %d is %d-d)", fn,
                            (int)k, a->ndim);
        if (a->dtype == LOOM_DTYPE_BOOL) a = loom_flatnonzero(ctx, a); /* one sync */
        if (a->shape[0] == 0) a = loom_astype(ctx, a, LOOM_DTYPE_I64); /* NumPy's ix_([]) */
        int64_t shape[LOOM_MAX_DIMS];
        for (int32_t j = 0; j < n; j++) shape[j] = j == k ? a->shape[0] : 1;
        outs[k] = loom_reshape(ctx, a, n, shape);
    }
    return ctx->err.status;
}

/* ---- Sets ------------------------------------------------------------------------------- */

LOOM_API loom_array_t *loom_setxor1d(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b,
                                     int assume_unique) {
    const char *fn = "setxor1d";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a) || !fe_check_arg(ctx, fn, b)) return &ctx->nil;
    loom_array_t *both[2] = {a, b};
    for (int i = 0; i < 2 && !assume_unique; i++)
        if (loom_unique(ctx, both[i], 1, &both[i], NULL, NULL, NULL) != LOOM_STATUS_OK)
            return &ctx->nil;
    /* NumPy's: the sorted values that differ from both neighbours */
    loom_array_t *aux = loom_sort(ctx, loom_concatenate(ctx, 2, both, LOOM_AXIS_NONE), 0);
    if ((aux->flags & FE_NIL) || aux->shape[0] == 0) return aux;
    int64_t one = 1, m = aux->shape[0];
    loom_array_t *edge = loom_ones(ctx, LOOM_DTYPE_BOOL, 1, &one);
    loom_array_t *parts[3] = {edge,
                              loom_not_equal(ctx, fe_slice_axis(ctx, aux, 0, 1, LOOM_NONE, 1),
                                             fe_slice_axis(ctx, aux, 0, 0, m - 1, 1)),
                              edge};
    loom_array_t *flag = loom_concatenate(ctx, 3, parts, 0);
    loom_array_t *keep = loom_logical_and(ctx, fe_slice_axis(ctx, flag, 0, 1, LOOM_NONE, 1),
                                          fe_slice_axis(ctx, flag, 0, 0, m, 1));
    return loom_boolean_index(ctx, aux, keep, 0);
}

/* ---- NumPy's bin estimators --------------------------------------------------------------- */

LOOM_API loom_status_t loom_histogram_bin_count(loom_ctx_t *ctx, loom_array_t *a,
                                                const char *estimator, double *lo, double *hi,
                                                int64_t *bins) {
    const char *fn = "histogram_bin_edges";
    static const char *const names[] = {"auto", "fd",      "doane", "scott",
                                        "rice", "sturges", "sqrt",  "stone"};
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    if (!fe_check_input(ctx, fn, a)) return ctx->err.status;
    if (!estimator || !lo || !hi || !bins)
        return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: NULL estimator or outputs", fn);
    int e = -1;
    for (int i = 0; i < 8; i++)
        if (!strcmp(estimator, names[i])) e = i;
    if (e < 0)
        return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                        "'%.40s' is not a valid estimator for `bins`", estimator);
    if (e == 7 || ir_is_complex((loom_dtype_t)a->dtype))
        return fe_error(ctx, LOOM_STATUS_NOT_AVAILABLE,
                        "%s: the estimator '%s' of %s data is not supported yet", fn, estimator,
                        ir_dtypes[a->dtype].name);
    /* NumPy's histograms take bool data as uint8: integers, so a width of at least 1 */
    if (a->dtype == LOOM_DTYPE_BOOL) a = loom_astype(ctx, a, LOOM_DTYPE_U8);
    int64_t minus1 = -1;
    loom_array_t *x = loom_reshape(ctx, a, 1, &minus1);
    bool ranged = *lo == *lo || *hi == *hi;
    if (ranged) { /* NumPy's _get_outer_edges, then the values inside (a sync for the count) */
        if (!(*lo <= *hi))
            return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                            "%s: max must be larger than min in range parameter.", fn);
        if (*lo - *lo != 0 || *hi - *hi != 0)
            return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                            "%s: supplied range of [%g, %g] is not finite", fn, *lo, *hi);
        if (*lo == *hi) *lo -= 0.5, *hi += 0.5; /* (NumPy's _get_outer_edges, before the cut) */
        loom_array_t *keep =
            loom_logical_and(ctx, loom_greater_equal(ctx, x, loom_weak_float(ctx, *lo)),
                             loom_less_equal(ctx, x, loom_weak_float(ctx, *hi)));
        x = loom_extract(ctx, keep, x);
        if (x->flags & FE_NIL) return ctx->err.status;
    }
    int64_t n = x->shape[0];
    double first = ranged ? *lo : 0, last = ranged ? *hi : 1, st[5] = {0, 0, 0, 0, 0};
    if (n > 0) { /* min, max, std, and what the estimator needs (one sync) */
        loom_scope_begin(ctx);
        int32_t k = 3;
        loom_array_t *r[5] = {loom_min(ctx, x, -1, NULL, 0), loom_max(ctx, x, -1, NULL, 0),
                              loom_std(ctx, x, -1, NULL, 0, 0), NULL, NULL};
        if (e <= 1) { /* auto, fd: the interquartile range */
            r[k++] = loom_quantile(ctx, x, 0.75, LOOM_AXIS_NONE, LOOM_QUANTILE_LINEAR, 0);
            r[k++] = loom_quantile(ctx, x, 0.25, LOOM_AXIS_NONE, LOOM_QUANTILE_LINEAR, 0);
        } else if (e == 2) { /* doane: the mean cube of the standardised values */
            loom_array_t *t =
                loom_true_divide(ctx, loom_subtract(ctx, x, loom_mean(ctx, x, -1, NULL, 0)), r[2]);
            r[k++] = loom_mean(ctx, loom_multiply(ctx, loom_multiply(ctx, t, t), t), -1, NULL, 0);
        }
        for (int32_t i = 0; i < k; i++) r[i] = loom_astype(ctx, r[i], LOOM_DTYPE_F64);
        loom_status_t s = loom_eval(ctx, k, r);
        for (int32_t i = 0; i < k && s == LOOM_STATUS_OK; i++)
            s = loom_read(ctx, r[i], &st[i], sizeof st[i]);
        loom_scope_end(ctx);
        if (s != LOOM_STATUS_OK) return ctx->err.status ? ctx->err.status : s;
        if (!ranged) {
            first = st[0], last = st[1];
            if (first - first != 0 || last - last != 0)
                return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                                "%s: autodetected range of [%g, %g] is not finite", fn, first,
                                last);
        }
    }
    if (first == last) first -= 0.5, last += 0.5;
    *lo = first, *hi = last, *bins = 1;
    if (n == 0) return ctx->err.status;
    /* NumPy's estimators of the bin width (_hist_bin_*), in double */
    double ptp = st[1] - st[0], nn = (double)n, w;
    double sturges = ptp / (log2(nn) + 1.0), sqrt_w = ptp / sqrt(nn);
    double fd = 2.0 * (st[3] - st[4]) * pow(nn, -1.0 / 3.0);
    switch (e) {
        case 0:
            w = fmin(fmax(fd, sqrt_w / 2), sturges);
            break;
        case 1:
            w = fd;
            break;
        case 2:
            w = 0;
            if (n > 2 && st[2] > 0.0) {
                double sg1 = sqrt(6.0 * (nn - 2) / ((nn + 1.0) * (nn + 3)));
                w = ptp / (1.0 + log2(nn) + log2(1.0 + fabs(st[3]) / sg1));
            }
            break;
        case 3:
            w = pow(24.0 * sqrt(M_PI) / nn, 1.0 / 3.0) * st[2];
            break;
        case 4:
            w = ptp / (2.0 * pow(nn, 1.0 / 3));
            break;
        case 5:
            w = sturges;
            break;
        default:
            w = sqrt_w;
            break;
    }
    if (w != 0) { /* (zero, as an IQR of 0 gives: one bin) */
        if (ir_is_int((loom_dtype_t)a->dtype) && w < 1) w = 1;
        double nb = ceil((last - first) / w);
        if (!(nb >= 1 && nb < 9.0e15))
            return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                            "%s: the estimator '%s' gives %g bins", fn, estimator, nb);
        *bins = (int64_t)nb;
    }
    return ctx->err.status;
}
