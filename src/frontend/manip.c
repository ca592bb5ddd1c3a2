/* manip.c — NumPy's array manipulation functions built from loom's own ops, so that they run
 * and fuse wherever those do: swapaxes and atleast_nd (views), tril/triu and diag (a where over
 * index arithmetic), diagonal and trace (a gather of two index ranges: a load inside the
 * consumer's kernel), roll (two slices joined), repeat and tile (broadcasts), diff (slices
 * subtracted), rot90 (flips and a transpose), pad (a gather per axis; the statistic and ramp
 * modes a where with reductions or index arithmetic of the edge slices). */
#include "fe.h"

LOOM_API loom_array_t *loom_swapaxes(loom_ctx_t *ctx, loom_array_t *a, int32_t axis1,
                                     int32_t axis2) {
    const char *fn = "swapaxes";
    if (!ctx) return NULL;
    int32_t a1, a2;
    if (!fe_check_arg(ctx, fn, a) || !fe_axis(ctx, fn, axis1, a->ndim, &a1) ||
        !fe_axis(ctx, fn, axis2, a->ndim, &a2))
        return &ctx->nil;
    int32_t perm[LOOM_MAX_DIMS];
    for (int32_t i = 0; i < a->ndim; i++) perm[i] = i == a1 ? a2 : i == a2 ? a1 : i;
    return loom_transpose(ctx, a, a->ndim, perm);
}

LOOM_API loom_array_t *loom_matrix_transpose(loom_ctx_t *ctx, loom_array_t *a) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "matrix_transpose", a)) return &ctx->nil;
    if (a->ndim < 2) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "matrix_transpose: the array has %d dimensions; at least 2 are required",
                 (int)a->ndim);
        return &ctx->nil;
    }
    return loom_swapaxes(ctx, a, -1, -2);
}

LOOM_API loom_array_t *loom_atleast_nd(loom_ctx_t *ctx, loom_array_t *a, int32_t n) {
    const char *fn = "atleast_nd";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a)) return &ctx->nil;
    if (n < 1 || n > 3) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: n is %d, not 1, 2 or 3", fn, n);
        return &ctx->nil;
    }
    if (a->ndim >= n) return fe_scope_adopt(ctx, a);
    /* NumPy: 0-d -> (1,), (1, 1), (1, 1, 1); (N,) -> (1, N), (1, N, 1); (M, N) -> (M, N, 1) */
    int64_t shape[3];
    int32_t k = 0;
    if (n >= 2 && a->ndim <= 1) shape[k++] = 1;
    for (int32_t i = 0; i < a->ndim; i++) shape[k++] = a->shape[i];
    while (k < n) shape[k++] = 1;
    return loom_reshape(ctx, a, n, shape);
}

/* The int64 index ranges of the last two axes of shape (..., n, m): rows (n, 1), cols (1, m). */
static void grid(loom_ctx_t *ctx, int64_t n, int64_t m, loom_array_t **rows, loom_array_t **cols) {
    int64_t rs[2] = {n, 1}, cs[2] = {1, m};
    *rows = loom_reshape(ctx, loom_arange_int(ctx, 0, n, 1, LOOM_DTYPE_I64), 2, rs);
    *cols = loom_reshape(ctx, loom_arange_int(ctx, 0, m, 1, LOOM_DTYPE_I64), 2, cs);
}

static loom_array_t *triangle(loom_ctx_t *ctx, const char *fn, loom_array_t *a, int64_t k,
                              bool lower) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a)) return &ctx->nil;
    if (a->ndim < 1) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: input array must be at least 1-d", fn);
        return &ctx->nil;
    }
    /* NumPy's mask is tri(*shape[-2:]): a 1-D a is broadcast against a square one */
    loom_array_t *rows, *cols;
    int64_t m = a->shape[a->ndim - 1], n = a->ndim >= 2 ? a->shape[a->ndim - 2] : m;
    grid(ctx, n, m, &rows, &cols);
    loom_array_t *off = loom_subtract(ctx, cols, rows), *kk = fe_i64(ctx, k);
    /* tril keeps col - row <= k; triu keeps col - row >= k */
    loom_array_t *keep = lower ? loom_less_equal(ctx, off, kk) : loom_greater_equal(ctx, off, kk);
    return loom_where(ctx, keep, a, loom_zeros(ctx, (loom_dtype_t)a->dtype, 0, NULL));
}

LOOM_API loom_array_t *loom_tril(loom_ctx_t *ctx, loom_array_t *a, int64_t k) {
    return triangle(ctx, "tril", a, k, true);
}

LOOM_API loom_array_t *loom_triu(loom_ctx_t *ctx, loom_array_t *a, int64_t k) {
    return triangle(ctx, "triu", a, k, false);
}

LOOM_API loom_array_t *loom_diagonal(loom_ctx_t *ctx, loom_array_t *a, int64_t offset,
                                     int32_t axis1, int32_t axis2) {
    const char *fn = "diagonal";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a)) return &ctx->nil;
    if (a->ndim < 2) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: diag requires an array of at least two dimensions (it has %d)", fn, a->ndim);
        return &ctx->nil;
    }
    int32_t a1, a2;
    if (!fe_axis(ctx, fn, axis1, a->ndim, &a1) || !fe_axis(ctx, fn, axis2, a->ndim, &a2))
        return &ctx->nil;
    if (a1 == a2) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: axis1 and axis2 cannot be the same (%d)",
                 fn, axis1);
        return &ctx->nil;
    }
    int32_t nd = a->ndim, src[2] = {a1, a2}, dst[2] = {nd - 2, nd - 1};
    loom_array_t *b = loom_moveaxis(ctx, a, 2, src, dst);
    int64_t n = a->shape[a1], m = a->shape[a2];
    /* the diagonal (i + max(0, -offset), i + max(0, offset)) for i < len */
    int64_t r0 = offset < 0 ? (offset < -n ? n : -offset) : 0;
    int64_t c0 = offset > 0 ? (offset > m ? m : offset) : 0;
    int64_t len = n - r0 < m - c0 ? n - r0 : m - c0;
    if (len < 0) len = 0;
    loom_array_t *idx[2] = {loom_arange_int(ctx, r0, r0 + len, 1, LOOM_DTYPE_I64),
                            loom_arange_int(ctx, c0, c0 + len, 1, LOOM_DTYPE_I64)};
    int32_t axes[2] = {nd - 2, nd - 1};
    return loom_gather(ctx, b, 2, axes, idx, nd - 2);
}

LOOM_API loom_array_t *loom_trace(loom_ctx_t *ctx, loom_array_t *a, int64_t offset, int32_t axis1,
                                  int32_t axis2) {
    if (!ctx) return NULL;
    int32_t last = -1;
    return loom_sum(ctx, loom_diagonal(ctx, a, offset, axis1, axis2), 1, &last, 0);
}

LOOM_API loom_array_t *loom_diag(loom_ctx_t *ctx, loom_array_t *v, int64_t k) {
    const char *fn = "diag";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, v)) return &ctx->nil;
    if (v->ndim == 2) return loom_diagonal(ctx, v, k, 0, 1);
    if (v->ndim != 1) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: input must be 1-d or 2-d (it has %d dimensions)", fn, v->ndim);
        return &ctx->nil;
    }
    int64_t n = v->shape[0], ak = k < 0 ? -k : k, size = n + ak;
    if (k == INT64_MIN || ak > INT64_MAX - n) {
        fe_error(ctx, LOOM_STATUS_OVERFLOW, "%s: offset %lld is too large", fn, (long long)k);
        return &ctx->nil;
    }
    int64_t shape[2] = {size, size};
    if (!fe_check_shape(ctx, fn, 2, shape, NULL)) return &ctx->nil;
    if (n == 0) return loom_zeros(ctx, (loom_dtype_t)v->dtype, 2, shape);
    loom_array_t *rows, *cols;
    grid(ctx, size, size, &rows, &cols);
    /* (r, c) holds v[r] on the diagonal c - r = k >= 0, v[c] on c - r = k < 0 */
    loom_array_t *on = loom_equal(ctx, loom_subtract(ctx, cols, rows), fe_i64(ctx, k));
    loom_array_t *at = loom_broadcast_to(ctx, k >= 0 ? rows : cols, 2, shape);
    loom_array_t *val = loom_take(ctx, v, at, 0, LOOM_TAKE_CLIP);
    return loom_where(ctx, on, val, loom_zeros(ctx, (loom_dtype_t)v->dtype, 0, NULL));
}

LOOM_API loom_array_t *loom_roll(loom_ctx_t *ctx, loom_array_t *a, int64_t shift, int32_t axis) {
    const char *fn = "roll";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a)) return &ctx->nil;
    if (axis == LOOM_AXIS_NONE) { /* the flattened array, rolled, in a's shape */
        int64_t minus1 = -1;
        loom_array_t *r = loom_roll(ctx, loom_reshape(ctx, a, 1, &minus1), shift, 0);
        return loom_reshape(ctx, r, a->ndim, a->shape);
    }
    int32_t ax;
    if (!fe_axis(ctx, fn, axis, a->ndim, &ax)) return &ctx->nil;
    int64_t n = a->shape[ax];
    if (n == 0) return fe_scope_adopt(ctx, a);
    int64_t s = shift % n;
    if (s < 0) s += n;
    if (s == 0) return fe_scope_adopt(ctx, a);
    /* the last s elements first: a[n-s:], then a[:n-s] */
    int64_t st[LOOM_MAX_DIMS], sp[LOOM_MAX_DIMS];
    for (int32_t i = 0; i < a->ndim; i++) st[i] = sp[i] = LOOM_NONE;
    st[ax] = n - s;
    loom_array_t *parts[2];
    parts[0] = loom_slice(ctx, a, a->ndim, st, sp, NULL);
    st[ax] = LOOM_NONE;
    sp[ax] = n - s;
    parts[1] = loom_slice(ctx, a, a->ndim, st, sp, NULL);
    return loom_concatenate(ctx, 2, parts, ax);
}

LOOM_API loom_array_t *loom_repeat(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *repeats,
                                   int32_t axis) {
    const char *fn = "repeat";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a) || !fe_check_arg(ctx, fn, repeats)) return &ctx->nil;
    int64_t one = 1;
    if (a->ndim == 0) a = loom_reshape(ctx, a, 1, &one); /* NumPy: a 0-d a as (1,) */
    int32_t ax;
    if (!fe_axis_or_flat(ctx, fn, &a, axis, &ax)) return &ctx->nil;
    int64_t n = a->shape[ax];
    if (!ir_is_int((loom_dtype_t)repeats->dtype) && repeats->dtype != LOOM_DTYPE_BOOL) {
        fe_error(ctx, LOOM_STATUS_DTYPE_ERROR, "%s: repeats must be integers, not %s", fn,
                 loom_dtype_name((loom_dtype_t)repeats->dtype));
        return &ctx->nil;
    }
    if (repeats->ndim > 1 ||
        (repeats->ndim == 1 && repeats->shape[0] != 1 && repeats->shape[0] != n)) {
        fe_error(ctx, LOOM_STATUS_SHAPE_MISMATCH,
                 "%s: operands could not be broadcast together with shape (%lld,) (%lld,)", fn,
                 (long long)n, (long long)(repeats->ndim ? repeats->shape[0] : 1));
        return &ctx->nil;
    }
    /* each element's count (broadcast), checked and summed: the result's length (one sync) */
    loom_array_t *r = loom_astype(ctx, repeats, LOOM_DTYPE_I64);
    r = loom_broadcast_to(ctx, r, 1, &n);
    loom_array_t *ends = loom_cumsum(ctx, r, 0);
    int64_t total = 0, negative = 0;
    if (n > 0) {
        loom_scope_begin(ctx);
        loom_array_t *facts[2] = {
            loom_sum(ctx, r, -1, NULL, 0),
            loom_sum(ctx, loom_astype(ctx, loom_less(ctx, r, fe_i64(ctx, 0)), LOOM_DTYPE_I64), -1,
                     NULL, 0)};
        loom_status_t st = loom_eval(ctx, 2, facts);
        if (st == LOOM_STATUS_OK) st = loom_read(ctx, facts[0], &total, sizeof total);
        if (st == LOOM_STATUS_OK) st = loom_read(ctx, facts[1], &negative, sizeof negative);
        loom_scope_end(ctx);
        if (st != LOOM_STATUS_OK) return &ctx->nil;
        if (negative) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                     "%s: repeats may not contain negative values", fn);
            return &ctx->nil;
        }
    }
    /* element j of the result comes from the i whose range [ends[i-1], ends[i]) holds j */
    loom_array_t *j = loom_arange_int(ctx, 0, total, 1, LOOM_DTYPE_I64);
    loom_array_t *src = loom_searchsorted(ctx, ends, j, 1, NULL);
    return loom_take(ctx, a, src, ax, LOOM_TAKE_CLIP);
}

LOOM_API loom_array_t *loom_tile(loom_ctx_t *ctx, loom_array_t *a, int32_t n, const int64_t *reps) {
    const char *fn = "tile";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a)) return &ctx->nil;
    if (n < 0 || n > LOOM_MAX_DIMS || (n && !reps)) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: %d repetitions at %p", fn, n,
                 (const void *)reps);
        return &ctx->nil;
    }
    for (int32_t i = 0; i < n; i++)
        if (reps[i] < 0) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: negative repetition %lld", fn,
                     (long long)reps[i]);
            return &ctx->nil;
        }
    /* NumPy: a gets leading axes up to len(reps), reps leading 1s up to a.ndim */
    int32_t nd = a->ndim > n ? a->ndim : n;
    int64_t shape[LOOM_MAX_DIMS], rp[LOOM_MAX_DIMS];
    for (int32_t i = 0; i < nd; i++) {
        int32_t ia = i - (nd - a->ndim), ir = i - (nd - n);
        shape[i] = ia >= 0 ? a->shape[ia] : 1;
        rp[i] = ir >= 0 ? reps[ir] : 1;
    }
    loom_array_t *r = loom_reshape(ctx, a, nd, shape);
    for (int32_t ax = 0; ax < nd && !(r->flags & FE_NIL); ax++) {
        if (rp[ax] == 1) continue;
        if (nd + 1 > LOOM_MAX_DIMS) { /* no room for the repetition axis */
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: %d axes is too many to tile", fn, nd);
            return &ctx->nil;
        }
        int64_t b[LOOM_MAX_DIMS], merged[LOOM_MAX_DIMS];
        int32_t k = 0;
        for (int32_t i = 0; i < nd; i++) { /* (..., reps, extent, ...) then merged */
            if (i == ax) b[k++] = rp[ax];
            b[k++] = shape[i];
        }
        int32_t where = ax;
        r = loom_broadcast_to(ctx, loom_expand_dims(ctx, r, 1, &where), nd + 1, b);
        for (int32_t i = 0; i < nd; i++) merged[i] = shape[i];
        if (!base_mul_i64(rp[ax], shape[ax], &merged[ax])) {
            fe_error(ctx, LOOM_STATUS_OVERFLOW, "%s: the result has too many elements", fn);
            return &ctx->nil;
        }
        r = loom_reshape(ctx, r, nd, merged);
        shape[ax] = merged[ax];
    }
    return r;
}

LOOM_API loom_array_t *loom_diff(loom_ctx_t *ctx, loom_array_t *a, int32_t n, int32_t axis) {
    const char *fn = "diff";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a)) return &ctx->nil;
    if (n < 0) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: order must be non-negative but got %d", fn,
                 n);
        return &ctx->nil;
    }
    if (a->ndim == 0) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: requires input that is at least one dimensional", fn);
        return &ctx->nil;
    }
    int32_t ax;
    if (!fe_axis(ctx, fn, axis, a->ndim, &ax)) return &ctx->nil;
    loom_array_t *r = fe_scope_adopt(ctx, a);
    for (int32_t k = 0; k < n && !(r->flags & FE_NIL); k++) {
        int64_t st[LOOM_MAX_DIMS], sp[LOOM_MAX_DIMS];
        for (int32_t i = 0; i < a->ndim; i++) st[i] = sp[i] = LOOM_NONE;
        st[ax] = 1;
        loom_array_t *hi = loom_slice(ctx, r, a->ndim, st, sp, NULL);
        st[ax] = LOOM_NONE;
        sp[ax] = -1;
        if (r->shape[ax] == 0) sp[ax] = 0; /* a[:-1] of an empty axis is empty too */
        loom_array_t *lo = loom_slice(ctx, r, a->ndim, st, sp, NULL);
        r = r->dtype == LOOM_DTYPE_BOOL ? loom_not_equal(ctx, hi, lo) : loom_subtract(ctx, hi, lo);
    }
    return r;
}

LOOM_API loom_array_t *loom_rot90(loom_ctx_t *ctx, loom_array_t *a, int64_t k, int32_t axis1,
                                  int32_t axis2) {
    const char *fn = "rot90";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a)) return &ctx->nil;
    if (a->ndim < 2) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: axes must be different and the array at "
                 "least 2-d (it has %d dimensions)",
                 fn, a->ndim);
        return &ctx->nil;
    }
    int32_t a1, a2;
    if (!fe_axis(ctx, fn, axis1, a->ndim, &a1) || !fe_axis(ctx, fn, axis2, a->ndim, &a2))
        return &ctx->nil;
    if (a1 == a2) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: axes must be different (%d, %d)", fn,
                 axis1, axis2);
        return &ctx->nil;
    }
    k %= 4;
    if (k < 0) k += 4;
    if (k == 0) return fe_scope_adopt(ctx, a);
    if (k == 2) {
        int32_t both[2] = {a1, a2};
        return loom_flip(ctx, a, 2, both);
    }
    /* NumPy: k 1 is transpose(flip(a, axis2)), k 3 is flip(transpose(a), axis2), where the
     * transpose swaps the two axes */
    if (k == 1) return loom_swapaxes(ctx, loom_flip(ctx, a, 1, &a2), a1, a2);
    return loom_flip(ctx, loom_swapaxes(ctx, a, a1, a2), 1, &a2);
}

/* ---- creation from another array, products, splits ---- */

LOOM_API loom_array_t *loom_full_like(loom_ctx_t *ctx, loom_array_t *a, double value, int dtype) {
    const char *fn = "full_like";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a)) return &ctx->nil;
    loom_dtype_t d = dtype < 0 ? (loom_dtype_t)a->dtype : (loom_dtype_t)dtype;
    if ((unsigned)d >= LOOM_DTYPE_COUNT) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: dtype %d is not a dtype", fn, dtype);
        return &ctx->nil;
    }
    /* the value cast into d as np.full_like does (unsafely) */
    return loom_astype(ctx, loom_full(ctx, LOOM_DTYPE_F64, a->ndim, a->shape, value), d);
}

LOOM_API loom_array_t *loom_outer(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b) {
    const char *fn = "outer";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a) || !fe_check_arg(ctx, fn, b)) return &ctx->nil;
    int64_t col[2] = {-1, 1}, row[2] = {1, -1};
    return loom_multiply(ctx, loom_reshape(ctx, a, 2, col), loom_reshape(ctx, b, 2, row));
}

LOOM_API loom_array_t *loom_inner(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b) {
    const char *fn = "inner";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a) || !fe_check_arg(ctx, fn, b)) return &ctx->nil;
    if (a->ndim == 0 || b->ndim == 0) return loom_multiply(ctx, a, b);
    /* the last axes contracted: a's with b's moved first */
    int32_t last = b->ndim - 1, first = 0;
    return loom_tensordot(ctx, a, loom_moveaxis(ctx, b, 1, &last, &first), 1);
}

LOOM_API loom_array_t *loom_vecdot(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b,
                                   int32_t axis) {
    const char *fn = "vecdot";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a) || !fe_check_arg(ctx, fn, b)) return &ctx->nil;
    if (a->ndim == 0 || b->ndim == 0) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: operands must be at least 1-d", fn);
        return &ctx->nil;
    }
    int32_t a1, b1;
    if (!fe_axis(ctx, fn, axis, a->ndim, &a1) || !fe_axis(ctx, fn, axis, b->ndim, &b1))
        return &ctx->nil;
    if (a->shape[a1] != b->shape[b1]) {
        fe_error(ctx, LOOM_STATUS_SHAPE_MISMATCH,
                 "%s: the contracted axes differ in extent (%lld and %lld)", fn,
                 (long long)a->shape[a1], (long long)b->shape[b1]);
        return &ctx->nil;
    }
    /* the product's sum over the axis, after broadcasting the rest; complex a conjugated */
    int32_t last_a = a->ndim - 1, last_b = b->ndim - 1, m1 = -1;
    loom_array_t *p = loom_multiply(ctx, loom_moveaxis(ctx, fe_conj(ctx, a), 1, &a1, &last_a),
                                    loom_moveaxis(ctx, b, 1, &b1, &last_b));
    /* in the product's dtype, as the gufunc's (not sum's wider integer accumulator; the
     * same bits modulo the width) */
    return loom_astype(ctx, loom_sum(ctx, p, 1, &m1, 0), (loom_dtype_t)p->dtype);
}

LOOM_API loom_array_t *loom_kron(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b) {
    const char *fn = "kron";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a) || !fe_check_arg(ctx, fn, b)) return &ctx->nil;
    int32_t nd = a->ndim > b->ndim ? a->ndim : b->ndim;
    if (2 * nd > LOOM_MAX_DIMS) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: %d axes is too many (at most %d)", fn, nd,
                 LOOM_MAX_DIMS / 2);
        return &ctx->nil;
    }
    /* a's axes interleaved with b's: (a0, 1, a1, 1, ...) * (1, b0, 1, b1, ...), merged pairwise */
    int64_t sa[LOOM_MAX_DIMS], sb[LOOM_MAX_DIMS], out[LOOM_MAX_DIMS];
    for (int32_t i = 0; i < nd; i++) {
        int64_t ea = i < nd - a->ndim ? 1 : a->shape[i - (nd - a->ndim)];
        int64_t eb = i < nd - b->ndim ? 1 : b->shape[i - (nd - b->ndim)];
        sa[2 * i] = ea;
        sa[2 * i + 1] = 1;
        sb[2 * i] = 1;
        sb[2 * i + 1] = eb;
        if (!base_mul_i64(ea, eb, &out[i])) {
            fe_error(ctx, LOOM_STATUS_OVERFLOW, "%s: the result has too many elements", fn);
            return &ctx->nil;
        }
    }
    loom_array_t *p =
        loom_multiply(ctx, loom_reshape(ctx, a, 2 * nd, sa), loom_reshape(ctx, b, 2 * nd, sb));
    return loom_reshape(ctx, p, nd, out);
}

LOOM_API loom_status_t loom_meshgrid(loom_ctx_t *ctx, int32_t n, loom_array_t *const *xs, int ij,
                                     loom_array_t **outs) {
    const char *fn = "meshgrid";
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    if (n < 0 || n > LOOM_MAX_DIMS || (n && (!xs || !outs))) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: %d arrays (at most %d)", fn, n,
                 LOOM_MAX_DIMS);
        return ctx->err.status;
    }
    int64_t shape[LOOM_MAX_DIMS];
    for (int32_t i = 0; i < n; i++) {
        if (!fe_check_input(ctx, fn, xs[i])) return ctx->err.status;
        shape[i] = fe_size(xs[i]);
    }
    if (!ij && n >= 2) { /* 'xy': the first two axes swapped */
        int64_t t = shape[0];
        shape[0] = shape[1];
        shape[1] = t;
    }
    for (int32_t i = 0; i < n; i++) {
        int64_t s[LOOM_MAX_DIMS];
        int32_t at = !ij && n >= 2 && i < 2 ? 1 - i : i; /* the axis xs[i] runs along */
        for (int32_t k = 0; k < n; k++) s[k] = k == at ? shape[k] : 1;
        outs[i] = loom_broadcast_to(ctx, loom_reshape(ctx, xs[i], n, s), n, shape);
    }
    return ctx->err.status;
}

LOOM_API loom_status_t loom_array_split(loom_ctx_t *ctx, loom_array_t *a, int64_t sections,
                                        int32_t axis, int even, loom_array_t **outs) {
    const char *fn = even ? "split" : "array_split";
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    if (!fe_check_input(ctx, fn, a)) return ctx->err.status;
    int32_t ax;
    if (!fe_axis(ctx, fn, axis, a->ndim, &ax)) return ctx->err.status;
    int64_t n = a->shape[ax];
    if (sections <= 0 || !outs) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: number sections must be larger than 0 (%lld)", fn, (long long)sections);
        return ctx->err.status;
    }
    if (even && n % sections) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: array split does not result in an equal division (%lld into %lld)", fn,
                 (long long)n, (long long)sections);
        return ctx->err.status;
    }
    /* NumPy: the first n % sections parts one longer */
    int64_t each = n / sections, extra = n % sections, at = 0;
    for (int64_t k = 0; k < sections; k++) {
        int64_t len = each + (k < extra), st[LOOM_MAX_DIMS], sp[LOOM_MAX_DIMS];
        for (int32_t i = 0; i < a->ndim; i++) st[i] = sp[i] = LOOM_NONE;
        st[ax] = at;
        sp[ax] = at + len;
        outs[k] = loom_slice(ctx, a, a->ndim, st, sp, NULL);
        at += len;
    }
    return ctx->err.status;
}

LOOM_API loom_status_t loom_split_at(loom_ctx_t *ctx, loom_array_t *a, int32_t n,
                                     const int64_t *indices, int32_t axis, loom_array_t **outs) {
    const char *fn = "split";
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    if (!fe_check_input(ctx, fn, a)) return ctx->err.status;
    int32_t ax;
    if (!fe_axis(ctx, fn, axis, a->ndim, &ax)) return ctx->err.status;
    if (n < 0 || (n > 0 && !indices) || !outs) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: %d split points at %p", fn, (int)n,
                 (const void *)indices);
        return ctx->err.status;
    }
    /* NumPy: a[prev:idx] with Python's slice clipping, then a[last:] */
    for (int32_t k = 0; k <= n; k++) {
        int64_t st[LOOM_MAX_DIMS], sp[LOOM_MAX_DIMS];
        for (int32_t i = 0; i < a->ndim; i++) st[i] = sp[i] = LOOM_NONE;
        st[ax] = k ? indices[k - 1] : 0;
        sp[ax] = k < n ? indices[k] : LOOM_NONE;
        outs[k] = loom_slice(ctx, a, a->ndim, st, sp, NULL);
    }
    return ctx->err.status;
}

/* ---- padding: one gather per padded axis, its indices index arithmetic ---- */

LOOM_API loom_array_t *loom_pad(loom_ctx_t *ctx, loom_array_t *a, const int64_t *widths,
                                loom_pad_mode_t mode, double value) {
    if (!ctx) return NULL;
    double values[2 * LOOM_MAX_DIMS];
    for (int32_t i = 0; i < 2 * LOOM_MAX_DIMS; i++) values[i] = value;
    return loom_pad_ex(ctx, a, widths, mode, values, NULL, 0);
}

/* a's slice [lo, hi) along ax, reduced by mode's statistic with the axis kept; integer dtypes
 * (not bool) round a mean or median (NumPy's _round_if_needed) and every result is in a's dtype. */
static loom_array_t *pad_stat(loom_ctx_t *ctx, loom_array_t *a, int32_t ax, int64_t lo, int64_t hi,
                              loom_pad_mode_t mode) {
    loom_array_t *c = fe_slice_axis(ctx, a, ax, lo, hi, 1), *s;
    switch (mode) {
        case LOOM_PAD_MAXIMUM:
            s = loom_max(ctx, c, 1, &ax, 1);
            break;
        case LOOM_PAD_MINIMUM:
            s = loom_min(ctx, c, 1, &ax, 1);
            break;
        case LOOM_PAD_MEAN:
            s = loom_mean(ctx, c, 1, &ax, 1);
            break;
        default: /* (no elements: NumPy's NaN, as the mean gives it) */
            s = hi > lo ? loom_median(ctx, c, ax, 1) : loom_mean(ctx, c, 1, &ax, 1);
            break;
    }
    /* (not bool: NumPy rounds np.integer dtypes only, so a bool's mean 0.3 casts to True) */
    if (ir_is_int((loom_dtype_t)a->dtype) && ir_is_float((loom_dtype_t)s->dtype))
        s = loom_rint(ctx, s);
    return loom_astype(ctx, s, (loom_dtype_t)a->dtype);
}

/* linear_ramp's values at positions i of an axis of extent n (i < 0 before, i >= n after):
 * NumPy's linspace(end, edge, width, endpoint=False), the after one reversed, in the edge's
 * float dtype (float64 for integers and bool; floored for integer dtypes, as linspace's). */
static loom_array_t *pad_ramp(loom_ctx_t *ctx, loom_array_t *r, int32_t ax, loom_array_t *i,
                              int64_t before, int64_t after, double end_b, double end_a) {
    int64_t n = r->shape[ax];
    loom_dtype_t d = (loom_dtype_t)r->dtype;
    loom_dtype_t f = ir_is_float(d) || ir_is_complex(d) ? d : LOOM_DTYPE_F64;
    loom_array_t *first = loom_astype(ctx, fe_slice_axis(ctx, r, ax, 0, 1, 1), f);
    loom_array_t *last = loom_astype(ctx, fe_slice_axis(ctx, r, ax, n - 1, n, 1), f);
    loom_array_t *eb = loom_weak_float(ctx, end_b), *ea = loom_weak_float(ctx, end_a);
    /* before: k = i + before steps of (edge - end) / before from end; after: after - (i - n + 1)
     * steps. NumPy's linspace multiplies by the step, or divides first and multiplies by the
     * span when any step of the array is 0 (a different rounding): both, chosen by that any. */
    loom_array_t *kb = loom_astype(ctx, loom_add(ctx, i, fe_i64(ctx, before)), f);
    loom_array_t *ka = loom_astype(ctx, loom_subtract(ctx, fe_i64(ctx, after + n - 1), i), f);
    loom_array_t *ramp[2];
    for (int side = 0; side < 2; side++) {
        loom_array_t *end = side ? ea : eb, *k = side ? ka : kb;
        loom_array_t *span = loom_subtract(ctx, side ? last : first, end);
        int64_t width = side ? after : before;
        loom_array_t *div = loom_weak_float(ctx, (double)(width ? width : 1));
        loom_array_t *step = loom_true_divide(ctx, span, div);
        loom_array_t *zero =
            loom_any(ctx, loom_equal(ctx, step, loom_weak_float(ctx, 0)), -1, NULL, 0);
        loom_array_t *y =
            loom_where(ctx, zero, loom_multiply(ctx, loom_true_divide(ctx, k, div), span),
                       loom_multiply(ctx, k, step));
        ramp[side] = loom_add(ctx, y, end);
    }
    loom_array_t *v = loom_where(ctx, loom_less(ctx, i, fe_i64(ctx, 0)), ramp[0], ramp[1]);
    if (ir_is_int(d)) v = loom_floor(ctx, v); /* (bool: any nonzero is True) */
    return loom_astype(ctx, v, d);
}

LOOM_API loom_array_t *loom_pad_ex(loom_ctx_t *ctx, loom_array_t *a, const int64_t *widths,
                                   loom_pad_mode_t mode, const double *values,
                                   const int64_t *stat_length, int odd) {
    const char *fn = "pad";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a)) return &ctx->nil;
    if ((int)mode < 0 || mode > LOOM_PAD_EMPTY || (a->ndim && !widths)) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: mode %d, widths at %p", fn, (int)mode,
                 (const void *)widths);
        return &ctx->nil;
    }
    bool stat = mode >= LOOM_PAD_MAXIMUM && mode <= LOOM_PAD_MEDIAN;
    bool fills = mode == LOOM_PAD_CONSTANT || mode == LOOM_PAD_EMPTY; /* (empty: zeros) */
    loom_array_t *r = fe_scope_adopt(ctx, a);
    for (int32_t ax = 0; ax < a->ndim && !(r->flags & FE_NIL); ax++) {
        int64_t before = widths[2 * ax], after = widths[2 * ax + 1], n = a->shape[ax], len;
        if (before < 0 || after < 0) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                     "%s: index can't contain negative values "
                     "(%lld, %lld on axis %d)",
                     fn, (long long)before, (long long)after, ax);
            return &ctx->nil;
        }
        if (stat && stat_length && fe_size(a) > 0 &&
            (mode == LOOM_PAD_MAXIMUM || mode == LOOM_PAD_MINIMUM) &&
            (stat_length[2 * ax] == 0 || stat_length[2 * ax + 1] == 0)) { /* (even unpadded) */
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                     "%s: stat_length of 0 yields no value for padding", fn);
            return &ctx->nil;
        }
        if (!before && !after) continue;
        if (before > INT64_MAX / 4 - n || after > INT64_MAX / 4 - n - before) {
            fe_error(ctx, LOOM_STATUS_OVERFLOW, "%s: the padded axis %d is too long", fn, ax);
            return &ctx->nil;
        }
        len = before + n + after;
        if (n == 0 && !fills) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                     "%s: can't extend empty axis %d using modes other than 'constant' or "
                     "'empty'",
                     fn, ax);
            return &ctx->nil;
        }
        if (!fills && fe_size(r) == 0) { /* (stays empty: no statistic of nothing, as NumPy) */
            int64_t shape[LOOM_MAX_DIMS];
            for (int32_t k = 0; k < a->ndim; k++) shape[k] = k == ax ? len : r->shape[k];
            r = loom_zeros(ctx, (loom_dtype_t)a->dtype, a->ndim, shape);
            continue;
        }
        /* the source index of each padded position i - before */
        loom_array_t *i = loom_arange_int(ctx, -before, n + after, 1, LOOM_DTYPE_I64), *j;
        loom_array_t *odd_q = NULL, *odd_left = NULL; /* reflect_type='odd' (below) */
        switch (mode) {
            case LOOM_PAD_WRAP:
                j = loom_remainder(ctx, i, fe_i64(ctx, n));
                break;
            case LOOM_PAD_REFLECT:     /* period 2n - 2, the edges not repeated */
            case LOOM_PAD_SYMMETRIC: { /* period 2n, the edges repeated */
                int64_t period = mode == LOOM_PAD_REFLECT ? 2 * n - 2 : 2 * n;
                if (period == 0 || n == 1) { /* NumPy extends a single element as its edge */
                    j = loom_multiply(ctx, i, fe_i64(ctx, 0));
                    break;
                }
                loom_array_t *m = loom_remainder(ctx, i, fe_i64(ctx, period));
                loom_array_t *back =
                    loom_subtract(ctx, fe_i64(ctx, period - (mode == LOOM_PAD_SYMMETRIC)), m);
                loom_array_t *left = loom_less(ctx, m, fe_i64(ctx, n));
                j = loom_where(ctx, left, m, back);
                if (odd) {
                    odd_q = loom_floor_divide(ctx, i, fe_i64(ctx, period));
                    odd_left = left;
                }
                break;
            }
            default: /* edge, and the positions inside for the others */
                j = n ? loom_clip(ctx, i, fe_i64(ctx, 0), fe_i64(ctx, n - 1)) : i;
                break;
        }
        loom_array_t *g = n ? loom_take(ctx, r, j, ax, LOOM_TAKE_CLIP) : NULL;
        if (odd_q) {
            /* NumPy's repeated point reflections about the edges: within a period x[j], or
             * 2 x[n-1] - x[j] past the right edge, and each period on adds 2 (x[n-1] - x[0])
             * (bool arithmetic in int64, as NumPy's 2 * edge - chunk) */
            int64_t sh[LOOM_MAX_DIMS];
            for (int32_t k = 0; k < a->ndim; k++) sh[k] = k == ax ? len : 1;
            loom_dtype_t d = (loom_dtype_t)r->dtype, c = d == LOOM_DTYPE_BOOL ? LOOM_DTYPE_I64 : d;
            loom_array_t *x0 = loom_astype(ctx, fe_slice_axis(ctx, r, ax, 0, 1, 1), c);
            loom_array_t *x1 = loom_astype(ctx, fe_slice_axis(ctx, r, ax, n - 1, n, 1), c);
            loom_array_t *two = loom_weak_int(ctx, 2), *gc = loom_astype(ctx, g, c);
            loom_array_t *q = loom_reshape(ctx, loom_astype(ctx, odd_q, c), a->ndim, sh);
            loom_array_t *in_left = loom_reshape(ctx, odd_left, a->ndim, sh);
            loom_array_t *base =
                loom_where(ctx, in_left, gc, loom_subtract(ctx, loom_multiply(ctx, two, x1), gc));
            loom_array_t *shift =
                loom_multiply(ctx, q, loom_multiply(ctx, two, loom_subtract(ctx, x1, x0)));
            g = loom_astype(ctx, loom_add(ctx, base, shift), d);
        }
        if (fills || stat || mode == LOOM_PAD_LINEAR_RAMP) {
            int64_t shape[LOOM_MAX_DIMS], ishape[LOOM_MAX_DIMS];
            for (int32_t k = 0; k < a->ndim; k++) {
                shape[k] = k == ax ? len : r->shape[k];
                ishape[k] = k == ax ? len : 1;
            }
            loom_array_t *lo, *hi; /* what goes before and after */
            if (fills) {
                double vb = mode == LOOM_PAD_EMPTY || !values ? 0 : values[2 * ax];
                double va = mode == LOOM_PAD_EMPTY || !values ? 0 : values[2 * ax + 1];
                lo = loom_astype(ctx, loom_full(ctx, LOOM_DTYPE_F64, 0, NULL, vb),
                                 (loom_dtype_t)a->dtype);
                hi = loom_astype(ctx, loom_full(ctx, LOOM_DTYPE_F64, 0, NULL, va),
                                 (loom_dtype_t)a->dtype);
            } else if (stat) {
                /* NumPy's _get_stats: the first and last stat_length elements (all: -1) */
                int64_t lb = stat_length ? stat_length[2 * ax] : -1;
                int64_t la = stat_length ? stat_length[2 * ax + 1] : -1;
                if (lb < 0 || lb > n) lb = n;
                if (la < 0 || la > n) la = n;
                if ((lb == 0 || la == 0) && fe_size(a) > 0 &&
                    (mode == LOOM_PAD_MAXIMUM || mode == LOOM_PAD_MINIMUM)) {
                    fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                             "%s: stat_length of 0 yields no value for padding", fn);
                    return &ctx->nil;
                }
                lo = pad_stat(ctx, r, ax, 0, lb, mode);
                hi = la == lb && lb == n ? lo : pad_stat(ctx, r, ax, n - la, n, mode);
            } else {
                loom_array_t *ramp =
                    pad_ramp(ctx, r, ax, loom_reshape(ctx, i, a->ndim, ishape), before, after,
                             values ? values[2 * ax] : 0, values ? values[2 * ax + 1] : 0);
                lo = hi = ramp;
            }
            loom_array_t *ii = loom_reshape(ctx, i, a->ndim, ishape);
            loom_array_t *out = loom_where(ctx, loom_less(ctx, ii, fe_i64(ctx, 0)), lo, hi);
            if (!g) {
                r = loom_broadcast_to(ctx, out, a->ndim, shape);
                continue;
            }
            loom_array_t *inside = loom_logical_and(ctx, loom_greater_equal(ctx, i, fe_i64(ctx, 0)),
                                                    loom_less(ctx, i, fe_i64(ctx, n)));
            g = loom_where(ctx, loom_reshape(ctx, inside, a->ndim, ishape), g, out);
        }
        r = g;
    }
    return r;
}

/* ---- index grids ---- */

LOOM_API loom_array_t *loom_tri(loom_ctx_t *ctx, int64_t n, int64_t m, int64_t k,
                                loom_dtype_t dtype) {
    const char *fn = "tri";
    if (!ctx) return NULL;
    int64_t shape[2] = {n, m};
    if (!fe_check_shape(ctx, fn, 2, shape, NULL)) return &ctx->nil;
    if ((unsigned)dtype >= LOOM_DTYPE_COUNT) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: dtype %d is not a dtype", fn, (int)dtype);
        return &ctx->nil;
    }
    loom_array_t *rows, *cols;
    grid(ctx, n, m, &rows, &cols);
    return loom_astype(ctx, loom_less_equal(ctx, loom_subtract(ctx, cols, rows), fe_i64(ctx, k)),
                       dtype);
}

LOOM_API loom_array_t *loom_indices(loom_ctx_t *ctx, int32_t n, const int64_t *dims,
                                    loom_dtype_t dtype) {
    const char *fn = "indices";
    if (!ctx) return NULL;
    if (n < 0 || n + 1 > LOOM_MAX_DIMS || (n && !dims)) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: %d dimensions (at most %d)", fn, n,
                 LOOM_MAX_DIMS - 1);
        return &ctx->nil;
    }
    if (!fe_check_shape(ctx, fn, n, dims, NULL)) return &ctx->nil;
    if (n == 0) return loom_zeros(ctx, dtype, 1, (int64_t[1]){0});
    loom_array_t *parts[LOOM_MAX_DIMS];
    for (int32_t i = 0; i < n; i++) { /* axis i's coordinate, broadcast over the grid */
        int64_t s[LOOM_MAX_DIMS];
        for (int32_t k = 0; k < n; k++) s[k] = k == i ? dims[k] : 1;
        loom_array_t *c = loom_reshape(ctx, loom_arange_int(ctx, 0, dims[i], 1, dtype), n, s);
        parts[i] = loom_broadcast_to(ctx, c, n, dims);
    }
    return loom_stack(ctx, n, parts, 0);
}

LOOM_API loom_status_t loom_broadcast_arrays(loom_ctx_t *ctx, int32_t n, loom_array_t *const *in,
                                             loom_array_t **outs) {
    const char *fn = "broadcast_arrays";
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    if (n < 0 || (n && (!in || !outs))) { /* (none: nothing to broadcast, as NumPy's) */
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: %d arrays at %p", fn, n, (const void *)in);
        return ctx->err.status;
    }
    for (int32_t i = 0; i < n; i++)
        if (!fe_check_input(ctx, fn, in[i])) return ctx->err.status;
    int32_t nd;
    int64_t shape[LOOM_MAX_DIMS];
    if (!fe_broadcast_shapes(n, in, &nd, shape)) {
        fe_error(ctx, LOOM_STATUS_SHAPE_MISMATCH,
                 "%s: shape mismatch: objects cannot be broadcast to a single shape", fn);
        return ctx->err.status;
    }
    for (int32_t i = 0; i < n; i++) outs[i] = loom_broadcast_to(ctx, in[i], nd, shape);
    return ctx->err.status;
}

LOOM_API loom_array_t *loom_ediff1d(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *to_begin,
                                    loom_array_t *to_end) {
    const char *fn = "ediff1d";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a) || (to_begin && !fe_check_arg(ctx, fn, to_begin)) ||
        (to_end && !fe_check_arg(ctx, fn, to_end)))
        return &ctx->nil;
    /* NumPy casts the ends into a's dtype under same_kind: bool < uint < int < float */
    static const int rank[] = {
        [IR_DKIND_BOOL] = 0, [IR_DKIND_UINT] = 1, [IR_DKIND_INT] = 2, [IR_DKIND_FLOAT] = 3,
        [IR_DKIND_COMPLEX] = 4};
    loom_array_t *const ends[2] = {to_begin, to_end};
    for (int e = 0; e < 2; e++)
        if (ends[e] && rank[ir_dtypes[ends[e]->dtype].kind] > rank[ir_dtypes[a->dtype].kind]) {
            fe_error(ctx, LOOM_STATUS_DTYPE_ERROR,
                     "%s: dtype of `%s` (%s) must be compatible with input `ary` (%s) under the "
                     "`same_kind` rule",
                     fn, e ? "to_end" : "to_begin", loom_dtype_name((loom_dtype_t)ends[e]->dtype),
                     loom_dtype_name((loom_dtype_t)a->dtype));
            return &ctx->nil;
        }
    int64_t minus1 = -1, one = 1;
    loom_array_t *flat = loom_reshape(ctx, a, 1, &minus1);
    int64_t n = flat->shape[0], lo_stop = n ? n - 1 : 0;
    /* a subtraction, as NumPy's (bool arrays refused), not diff's not_equal */
    loom_array_t *d = loom_subtract(ctx, loom_slice(ctx, flat, 1, &one, NULL, NULL),
                                    loom_slice(ctx, flat, 1, NULL, &lo_stop, NULL));
    if (d->flags & FE_NIL) return d;
    loom_array_t *parts[3];
    int32_t k = 0;
    if (to_begin)
        parts[k++] =
            loom_astype(ctx, loom_reshape(ctx, to_begin, 1, &minus1), (loom_dtype_t)d->dtype);
    parts[k++] = d;
    if (to_end)
        parts[k++] =
            loom_astype(ctx, loom_reshape(ctx, to_end, 1, &minus1), (loom_dtype_t)d->dtype);
    return k == 1 ? d : loom_concatenate(ctx, k, parts, 0);
}
