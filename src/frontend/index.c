/* index.c — gathers: np.take and np.take_along_axis, built from two IR nodes. INDEX turns an
 * index array into in-range int64 indices (raising for the rest, where the values are), and
 * GATHER reads its data operand at those indices along one axis: a load, which a consumer's
 * kernel can hold. Wrap and clip modes are elementwise arithmetic instead of INDEX. */
#include <string.h>

#include "fe.h"

/* Indices as int64 (bool and every integer dtype; a float one is refused as NumPy refuses it). */
static loom_array_t *as_index(loom_ctx_t *ctx, const char *fn, loom_array_t *x) {
    if (ir_is_float((loom_dtype_t)x->dtype) || ir_is_complex((loom_dtype_t)x->dtype)) {
        fe_error(ctx, LOOM_STATUS_DTYPE_ERROR,
                 "%s: indices must be integers; cannot cast %s to int64 (same_kind)", fn,
                 ir_dtypes[x->dtype].name);
        return &ctx->nil;
    }
    return loom_astype(ctx, x, LOOM_DTYPE_I64);
}

/* n > 0, or x empty. */
loom_array_t *fe_index_mode(loom_ctx_t *ctx, loom_array_t *x, int64_t n, int32_t axis,
                            loom_take_mode_t mode) {
    if (mode == LOOM_TAKE_WRAP) return loom_remainder(ctx, x, fe_i64(ctx, n > 0 ? n : 1));
    if (mode == LOOM_TAKE_CLIP)
        return loom_minimum(ctx, loom_maximum(ctx, x, fe_i64(ctx, 0)),
                            fe_i64(ctx, n > 0 ? n - 1 : 0));
    loom_array_t *srcs[2] = {x, fe_i64(ctx, n)};
    if ((srcs[1]->flags & FE_NIL)) return srcs[1];
    ir_params_t p = {0};
    p.axis = axis;
    return fe_shaped(ctx, IR_OP_INDEX, LOOM_DTYPE_I64, x->ndim, x->shape, 2, srcs, &p);
}

/* The GATHER of a (axis ax of extent n) at in-range int64 indices f of any shape B: the result
 * is a.shape[:ax] + B + a.shape[ax+1:]. a gains extent-1 axes for B's leading ones and is
 * broadcast to the result off the gathered axis (views); f is placed at B's axes. */
static loom_array_t *gather_axis(loom_ctx_t *ctx, const char *fn, loom_array_t *a, int32_t ax,
                                 loom_array_t *f) {
    if (f->flags & FE_NIL) return f;
    int32_t k = f->ndim;
    if (k == 0) { /* one index: gather with B = (1,), then drop that axis */
        int64_t one = 1;
        loom_array_t *r = gather_axis(ctx, fn, a, ax, loom_reshape(ctx, f, 1, &one));
        int32_t sq = ax;
        return r->flags & FE_NIL ? r : loom_squeeze(ctx, r, 1, &sq);
    }
    int32_t nd = a->ndim - 1 + k;
    if (nd > LOOM_MAX_DIMS) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: the result would have %d axes, more than %d", fn, nd, LOOM_MAX_DIMS);
        return &ctx->nil;
    }
    int64_t res[LOOM_MAX_DIMS], dshape[LOOM_MAX_DIMS], fshape[LOOM_MAX_DIMS];
    int32_t gax = ax + k - 1, j = 0;
    for (int32_t i = 0; i < ax; i++) res[j++] = a->shape[i];
    for (int32_t i = 0; i < k; i++) res[j++] = f->shape[i];
    for (int32_t i = ax + 1; i < a->ndim; i++) res[j++] = a->shape[i];
    for (int32_t i = 0; i < nd; i++) {
        bool in_b = i >= ax && i < ax + k;
        dshape[i] = i == gax ? a->shape[ax] : in_b ? 1 : res[i];
        fshape[i] = in_b ? res[i] : 1;
    }
    loom_array_t *d = loom_reshape(ctx, a, nd, dshape);
    dshape[gax] = a->shape[ax];
    for (int32_t i = ax; i < gax; i++) dshape[i] = res[i];
    d = loom_broadcast_to(ctx, d, nd, dshape);
    loom_array_t *x = loom_reshape(ctx, f, nd, fshape);
    if ((d->flags & FE_NIL) || (x->flags & FE_NIL)) return &ctx->nil;
    loom_array_t *srcs[2] = {d, x};
    ir_params_t p = {0};
    p.axis = gax;
    return fe_shaped(ctx, IR_OP_GATHER, (loom_dtype_t)a->dtype, nd, res, 2, srcs, &p);
}

static bool empty_axis(loom_ctx_t *ctx, const char *fn, int64_t n, const loom_array_t *x) {
    if (n == 0 && fe_size(x) != 0) {
        fe_error(ctx, LOOM_STATUS_INDEX_ERROR, "%s: cannot do a non-empty take from an empty axis",
                 fn);
        return true;
    }
    return false;
}

static loom_array_t *flat(loom_ctx_t *ctx, loom_array_t *a) {
    int64_t minus1 = -1;
    return loom_reshape(ctx, a, 1, &minus1);
}

LOOM_API loom_array_t *loom_take(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *indices,
                                 int32_t axis, loom_take_mode_t mode) {
    const char *fn = "take";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a) || !fe_check_arg(ctx, fn, indices)) return &ctx->nil;
    if (mode != LOOM_TAKE_RAISE && mode != LOOM_TAKE_WRAP && mode != LOOM_TAKE_CLIP) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: mode %d is not raise, wrap or clip", fn,
                 (int)mode);
        return &ctx->nil;
    }
    int32_t ax;
    if (!fe_axis_or_flat(ctx, fn, &a, axis, &ax)) return &ctx->nil;
    int64_t n = a->shape[ax];
    if (empty_axis(ctx, fn, n, indices)) return &ctx->nil;
    loom_array_t *x = as_index(ctx, fn, indices);
    if (x->flags & FE_NIL) return x;
    return gather_axis(ctx, fn, a, ax, fe_index_mode(ctx, x, n, ax, mode));
}

LOOM_API loom_array_t *loom_take_along_axis(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *indices,
                                            int32_t axis) {
    const char *fn = "take_along_axis";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a) || !fe_check_arg(ctx, fn, indices)) return &ctx->nil;
    if (axis == LOOM_AXIS_NONE) {
        if (indices->ndim != 1) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                     "%s: when axis=None, `indices` must have a single dimension", fn);
            return &ctx->nil;
        }
        a = flat(ctx, a);
        axis = 0;
        if (a->flags & FE_NIL) return a;
    }
    if (indices->ndim != a->ndim) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: `indices` and `arr` must have the same number of dimensions (%d and %d)", fn,
                 indices->ndim, a->ndim);
        return &ctx->nil;
    }
    int32_t ax;
    if (!fe_axis(ctx, fn, axis, a->ndim, &ax)) return &ctx->nil;
    int64_t res[LOOM_MAX_DIMS], dshape[LOOM_MAX_DIMS];
    for (int32_t i = 0; i < a->ndim; i++) {
        int64_t e = a->shape[i], x = indices->shape[i];
        if (i != ax && e != x && e != 1 && x != 1) {
            char sa[256], sx[256];
            fe_format_shape(sa, sizeof sa, a->ndim, a->shape);
            fe_format_shape(sx, sizeof sx, indices->ndim, indices->shape);
            fe_error(ctx, LOOM_STATUS_SHAPE_MISMATCH,
                     "%s: shape mismatch: arr %s and indices %s do not broadcast off axis %d", fn,
                     sa, sx, ax);
            return &ctx->nil;
        }
        res[i] = i == ax ? x : (e == 1 ? x : e);
        dshape[i] = i == ax ? e : res[i];
    }
    int64_t n = a->shape[ax];
    if (fe_size(indices) != 0 && empty_axis(ctx, fn, n, indices)) return &ctx->nil;
    loom_array_t *x = as_index(ctx, fn, indices);
    if (x->flags & FE_NIL) return x;
    x = fe_index_mode(ctx, x, n, ax, LOOM_TAKE_RAISE);
    loom_array_t *d = loom_broadcast_to(ctx, a, a->ndim, dshape);
    if ((x->flags & FE_NIL) || (d->flags & FE_NIL)) return &ctx->nil;
    /* the result is empty when a broadcast extent is 0 */
    loom_array_t *srcs[2] = {d, x};
    ir_params_t p = {0};
    p.axis = ax;
    return fe_shaped(ctx, IR_OP_GATHER, (loom_dtype_t)a->dtype, a->ndim, res, 2, srcs, &p);
}

LOOM_API loom_array_t *loom_gather(loom_ctx_t *ctx, loom_array_t *a, int32_t n, const int32_t *axes,
                                   loom_array_t *const *indices, int32_t dest) {
    const char *fn = "gather";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a)) return &ctx->nil;
    if (n < 1 || n > a->ndim || !axes || !indices) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: %d index arrays for an array of dimension %d (axes %p, indices %p)", fn, n,
                 a->ndim, (const void *)axes, (const void *)indices);
        return &ctx->nil;
    }
    int32_t ax[LOOM_MAX_DIMS];
    uint32_t seen = 0;
    int32_t bnd = 0;
    int64_t b[LOOM_MAX_DIMS];
    for (int32_t t = 0; t < n; t++) {
        if (!fe_check_arg(ctx, fn, indices[t]) || !fe_axis(ctx, fn, axes[t], a->ndim, &ax[t]))
            return &ctx->nil;
        if (seen & (1u << ax[t])) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: axis %d is given twice", fn, axes[t]);
            return &ctx->nil;
        }
        seen |= 1u << ax[t];
    }
    if (!fe_broadcast_shapes(n, indices, &bnd, b)) { /* NumPy's broadcast of the index arrays */
        char s0[256], s1[256];
        fe_format_shape(s0, sizeof s0, indices[0]->ndim, indices[0]->shape);
        fe_format_shape(s1, sizeof s1, indices[1]->ndim, indices[1]->shape);
        fe_error(ctx, LOOM_STATUS_SHAPE_MISMATCH,
                 "%s: shape mismatch: indexing arrays could not be broadcast together with "
                 "shapes %s %s%s",
                 fn, s0, s1, n > 2 ? " ..." : "");
        return &ctx->nil;
    }
    int32_t rest = a->ndim - n;
    if (dest < 0 || dest > rest) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: destination %d is outside [0, %d] (the axes not indexed)", fn, dest, rest);
        return &ctx->nil;
    }
    int64_t bsize = 1;
    for (int32_t i = 0; i < bnd; i++) bsize *= b[i];
    /* the flat index over the indexed axes, in the order given: sum of index * stride */
    loom_array_t *f = NULL;
    int64_t stride = 1;
    for (int32_t t = n; t-- > 0;) {
        int64_t e = a->shape[ax[t]];
        if (e == 0 && bsize != 0) {
            fe_error(ctx, LOOM_STATUS_INDEX_ERROR,
                     "%s: cannot do a non-empty take from an empty axis (axis %d)", fn, ax[t]);
            return &ctx->nil;
        }
        loom_array_t *x = as_index(ctx, fn, indices[t]);
        if (x->flags & FE_NIL) return x;
        /* an empty broadcast reads nothing: NumPy checks no index then (x[[], [5]]) */
        if (bsize == 0) x = loom_broadcast_to(ctx, x, bnd, b);
        x = fe_index_mode(ctx, x, e, ax[t], LOOM_TAKE_RAISE);
        if (stride != 1) x = loom_multiply(ctx, x, fe_i64(ctx, stride));
        f = f ? loom_add(ctx, f, x) : x;
        stride *= e ? e : 1;
    }
    if (f->ndim != bnd) f = loom_broadcast_to(ctx, f, bnd, b);
    /* the indexed axes, in order, moved to dest and merged into one */
    int32_t perm[LOOM_MAX_DIMS], k = 0;
    for (int32_t i = 0, r = 0; i <= a->ndim; i++) {
        if (r == dest && k == dest) /* once, after dest of the other axes */
            for (int32_t t = 0; t < n; t++) perm[k++] = ax[t];
        if (i < a->ndim && !(seen & (1u << i))) {
            perm[k++] = i;
            r++;
        }
    }
    loom_array_t *v = loom_transpose(ctx, a, a->ndim, perm);
    int64_t shape[LOOM_MAX_DIMS], merged = 1;
    for (int32_t t = 0; t < n; t++) merged *= a->shape[ax[t]];
    int32_t j = 0;
    for (int32_t i = 0; i < a->ndim; i++) {
        if (i > dest && i < dest + n) continue;
        shape[j++] = i == dest ? merged : v->shape[i];
    }
    v = loom_reshape(ctx, v, j, shape);
    if ((v->flags & FE_NIL) || (f->flags & FE_NIL)) return &ctx->nil;
    return gather_axis(ctx, fn, v, dest, f);
}
