/* linalg.c — numpy.linalg's functions that are compositions of loom's own operations: the
 * vector and matrix norms (reductions, so they fuse with their producers), cross, multi_dot
 * (the cheapest order of matrix products) and matrix_power (repeated squaring). The norms that
 * need singular values, and everything that needs a factorisation, are not here. */
#include <math.h>
#include <string.h>

#include "fe.h"

/* NumPy's norms compute in the array's float or complex dtype; integers and bool as float64. */
static loom_array_t *inexact(loom_ctx_t *ctx, loom_array_t *x) {
    loom_dtype_t d = (loom_dtype_t)x->dtype;
    return ir_is_float(d) || ir_is_complex(d) ? x : loom_astype(ctx, x, LOOM_DTYPE_F64);
}

/* sum(x * x) over the axes, then sqrt: the 2-norm and the Frobenius norm (complex x: the
 * real part of x * conj(x), |x|^2). */
static loom_array_t *root_sum_squares(loom_ctx_t *ctx, loom_array_t *x, int32_t naxes,
                                      const int32_t *axes, int keepdims) {
    return loom_sqrt(ctx, loom_sum(ctx, fe_abs2(ctx, x), naxes, axes, keepdims));
}

static loom_array_t *vector_norm(loom_ctx_t *ctx, loom_array_t *x, int32_t naxes,
                                 const int32_t *axes, int keepdims, double p) {
    x = inexact(ctx, x);
    if (isnan(p)) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "vector_norm: the order is NaN");
        return &ctx->nil;
    }
    if (p == INFINITY) return loom_max(ctx, loom_abs(ctx, x), naxes, axes, keepdims);
    if (p == -INFINITY) return loom_min(ctx, loom_abs(ctx, x), naxes, axes, keepdims);
    if (p == 0)
        return loom_sum(ctx,
                        loom_astype(ctx, loom_not_equal_i(ctx, x, 0),
                                    ir_real_dtype((loom_dtype_t)x->dtype)),
                        naxes, axes, keepdims);
    if (p == 1) return loom_sum(ctx, loom_abs(ctx, x), naxes, axes, keepdims);
    if (p == 2) return root_sum_squares(ctx, x, naxes, axes, keepdims);
    /* NumPy: abs(x) ** ord, summed, ** reciprocal(ord) in the sum's dtype */
    loom_array_t *s = loom_sum(ctx, loom_power_f(ctx, loom_abs(ctx, x), p), naxes, axes, keepdims);
    return loom_power_f(ctx, s, 1.0 / p);
}

LOOM_API loom_array_t *loom_vector_norm(loom_ctx_t *ctx, loom_array_t *x, int32_t naxes,
                                        const int32_t *axes, int keepdims, double ord) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "vector_norm", x)) return &ctx->nil;
    return vector_norm(ctx, x, naxes, axes, keepdims, ord);
}

/* The matrix norms over axes r (rows) and c (columns), both already normalised. */
static loom_array_t *matrix_norm(loom_ctx_t *ctx, const char *fn, loom_array_t *x, int32_t r,
                                 int32_t c, int keepdims, loom_norm_t kind, double p) {
    if (r == c) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: Duplicate axes given.", fn);
        return &ctx->nil;
    }
    x = inexact(ctx, x);
    loom_array_t *ret;
    int32_t both[2] = {r, c};
    if (kind == LOOM_NORM_NUC || (kind == LOOM_NORM_ORD && (p == 2 || p == -2))) {
        /* NumPy's _multi_svd_norm: the singular values of x with axes r, c moved last */
        int32_t perm[LOOM_MAX_DIMS], k = 0, nd = x->ndim;
        for (int32_t ax = 0; ax < nd; ax++)
            if (ax != r && ax != c) perm[k++] = ax;
        perm[k++] = r;
        perm[k] = c;
        loom_array_t *sv = loom_svdvals(ctx, loom_transpose(ctx, x, nd, perm));
        int32_t last = -1;
        ret = kind == LOOM_NORM_NUC ? loom_sum(ctx, sv, 1, &last, 0)
              : p > 0               ? loom_max(ctx, sv, 1, &last, 0)
                                    : loom_min(ctx, sv, 1, &last, 0);
        if (!keepdims || (ret->flags & FE_NIL)) return ret;
        int64_t shape[LOOM_MAX_DIMS];
        memcpy(shape, x->shape, (size_t)nd * sizeof *shape);
        shape[r] = shape[c] = 1;
        return loom_reshape(ctx, ret, nd, shape);
    } else if (kind != LOOM_NORM_ORD) { /* Frobenius (the default) */
        return root_sum_squares(ctx, x, 2, both, keepdims);
    } else if (p == 1 || p == -1 || p == INFINITY || p == -INFINITY) {
        /* 1: the largest column sum (sum over rows, extreme over columns); inf: rows */
        bool cols = p == 1 || p == -1;
        int32_t sum_ax = cols ? r : c, ext_ax = cols ? c : r;
        loom_array_t *s = loom_sum(ctx, loom_abs(ctx, x), 1, &sum_ax, 1);
        ret = (p > 0 ? loom_max : loom_min)(ctx, s, 1, &ext_ax, 1);
        return keepdims ? ret : loom_squeeze(ctx, ret, 2, both);
    }
    fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: Invalid norm order %g for matrices.", fn, p);
    return &ctx->nil;
}

LOOM_API loom_array_t *loom_matrix_norm(loom_ctx_t *ctx, loom_array_t *x, int keepdims,
                                        loom_norm_t kind, double ord) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "matrix_norm", x)) return &ctx->nil;
    if (x->ndim < 2) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "matrix_norm: the array has %d dimensions; at least 2 are required", (int)x->ndim);
        return &ctx->nil;
    }
    return matrix_norm(ctx, "matrix_norm", x, x->ndim - 2, x->ndim - 1, keepdims, kind, ord);
}

LOOM_API loom_array_t *loom_norm(loom_ctx_t *ctx, loom_array_t *x, loom_norm_t kind, double ord,
                                 int32_t naxes, const int32_t *axes, int keepdims) {
    const char *fn = "norm";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, x)) return &ctx->nil;
    if ((unsigned)kind > LOOM_NORM_NUC) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: invalid norm kind %d", fn, (int)kind);
        return &ctx->nil;
    }
    int32_t ax[2];
    if (naxes < 0 || !axes) {
        if (kind == LOOM_NORM_DEFAULT) { /* the 2-norm of the flattened array, any ndim */
            loom_array_t *r = root_sum_squares(ctx, inexact(ctx, x), -1, NULL, 0);
            if (!keepdims || x->ndim == 0) return r;
            int64_t ones[LOOM_MAX_DIMS];
            for (int32_t i = 0; i < x->ndim; i++) ones[i] = 1;
            return loom_reshape(ctx, r, x->ndim, ones);
        }
        if (x->ndim != 1 && x->ndim != 2) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                     "%s: Improper number of dimensions to norm (%d with an order and no axis)", fn,
                     (int)x->ndim);
            return &ctx->nil;
        }
        naxes = x->ndim;
        ax[0] = 0, ax[1] = 1;
    } else if (naxes == 1 || naxes == 2) {
        for (int32_t i = 0; i < naxes; i++)
            if (!fe_axis(ctx, fn, axes[i], x->ndim, &ax[i])) return &ctx->nil;
    } else {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: Improper number of dimensions to norm (%d axes)", fn, (int)naxes);
        return &ctx->nil;
    }
    if (naxes == 1) {
        if (kind == LOOM_NORM_FRO || kind == LOOM_NORM_NUC) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: Invalid norm order '%s' for vectors",
                     fn, kind == LOOM_NORM_FRO ? "fro" : "nuc");
            return &ctx->nil;
        }
        return vector_norm(ctx, x, 1, ax, keepdims, kind == LOOM_NORM_DEFAULT ? 2 : ord);
    }
    return matrix_norm(ctx, fn, x, ax[0], ax[1], keepdims, kind, ord);
}

/* ---- cross, multi_dot, matrix_power ---- */

LOOM_API loom_array_t *loom_cross(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b, int32_t axis) {
    const char *fn = "cross";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a) || !fe_check_arg(ctx, fn, b)) return &ctx->nil;
    int32_t aa, ab;
    if (a->ndim == 0 || b->ndim == 0) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: the operands must be at least 1-D", fn);
        return &ctx->nil;
    }
    if (!fe_axis(ctx, fn, axis, a->ndim, &aa) || !fe_axis(ctx, fn, axis, b->ndim, &ab))
        return &ctx->nil;
    int64_t na = a->shape[aa], nb = b->shape[ab];
    if ((na != 2 && na != 3) || (nb != 2 && nb != 3)) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: incompatible dimensions for cross product (dimension must be 2 or 3; "
                 "%lld and %lld)",
                 fn, (long long)na, (long long)nb);
        return &ctx->nil;
    }
    loom_array_t *x[3], *y[3];
    for (int k = 0; k < 3; k++) {
        x[k] = k < na ? fe_index_axis(ctx, a, aa, k) : NULL;
        y[k] = k < nb ? fe_index_axis(ctx, b, ab, k) : NULL;
    }
    /* c = a x b, with a missing third component taken as 0 (NumPy's 2-vectors) */
    loom_array_t *z =
        loom_subtract(ctx, loom_multiply(ctx, x[0], y[1]), loom_multiply(ctx, x[1], y[0]));
    if (na == 2 && nb == 2) return z;
    loom_array_t *c0, *c1;
    if (na == 3 && nb == 3) {
        c0 = loom_subtract(ctx, loom_multiply(ctx, x[1], y[2]), loom_multiply(ctx, x[2], y[1]));
        c1 = loom_subtract(ctx, loom_multiply(ctx, x[2], y[0]), loom_multiply(ctx, x[0], y[2]));
    } else if (na == 3) { /* b's third component is 0 */
        c0 = loom_negative(ctx, loom_multiply(ctx, x[2], y[1]));
        c1 = loom_multiply(ctx, x[2], y[0]);
    } else { /* a's third component is 0 */
        c0 = loom_multiply(ctx, x[1], y[2]);
        c1 = loom_negative(ctx, loom_multiply(ctx, x[0], y[2]));
    }
    loom_array_t *parts[3] = {c0, c1, z};
    /* NumPy puts the vector axis at axisc = axis of the broadcast result */
    loom_array_t *r = loom_stack(ctx, 3, parts, -1);
    if (r->flags & FE_NIL) return r;
    int32_t last = r->ndim - 1, dest;
    if (!fe_axis(ctx, fn, axis, r->ndim, &dest)) return &ctx->nil;
    return dest == last ? r : loom_moveaxis(ctx, r, 1, &last, &dest);
}

/* The product of m[i..j] in the order split gives (depth at most 64). */
static loom_array_t *chain(loom_ctx_t *ctx, loom_array_t *const *m, int split[64][64], int32_t i,
                           int32_t j) {
    if (i == j) return m[i];
    int32_t k = split[i][j];
    return loom_matmul(ctx, chain(ctx, m, split, i, k), chain(ctx, m, split, k + 1, j));
}

LOOM_API loom_array_t *loom_multi_dot(loom_ctx_t *ctx, int32_t n, loom_array_t *const *arrays) {
    const char *fn = "multi_dot";
    if (!ctx) return NULL;
    if (n < 2 || n > 64 || !arrays) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: Expecting at least two arrays (and at most 64; %d given)", fn, (int)n);
        return &ctx->nil;
    }
    for (int32_t i = 0; i < n; i++)
        if (!fe_check_arg(ctx, fn, arrays[i])) return &ctx->nil;
    if (n == 2) return loom_dot(ctx, arrays[0], arrays[1]); /* NumPy: dot, whatever the shapes */
    loom_array_t *m[64];
    for (int32_t i = 0; i < n; i++) {
        m[i] = arrays[i];
        int32_t nd = m[i]->ndim;
        bool end = i == 0 || i == n - 1;
        if (nd != 2 && !(end && nd == 1)) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                     "%s: array %d has %d dimensions; it must be two-dimensional (the first and "
                     "last may be one-dimensional)",
                     fn, (int)i, (int)nd);
            return &ctx->nil;
        }
    }
    bool first_1d = m[0]->ndim == 1, last_1d = m[n - 1]->ndim == 1;
    if (first_1d) m[0] = loom_reshape(ctx, m[0], 2, (int64_t[]){1, m[0]->shape[0]});
    if (last_1d) m[n - 1] = loom_reshape(ctx, m[n - 1], 2, (int64_t[]){m[n - 1]->shape[0], 1});
    if (ctx->err.status) return &ctx->nil;
    /* the matrix chain order (dynamic programming over the dimensions p0 .. pn) */
    double p[65], cost[64][64];
    int split[64][64];
    for (int32_t i = 0; i < n; i++) p[i] = (double)m[i]->shape[0];
    p[n] = (double)m[n - 1]->shape[1];
    for (int32_t i = 0; i < n; i++) cost[i][i] = 0;
    for (int32_t len = 1; len < n; len++)
        for (int32_t i = 0; i + len < n; i++) {
            int32_t j = i + len;
            cost[i][j] = INFINITY;
            for (int32_t k = i; k < j; k++) {
                double c = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1];
                if (c < cost[i][j]) cost[i][j] = c, split[i][j] = k;
            }
        }
    loom_array_t *r = chain(ctx, m, split, 0, n - 1);
    if (r->flags & FE_NIL) return r;
    if (first_1d && last_1d) return loom_reshape(ctx, r, 0, NULL);
    if (first_1d) return loom_reshape(ctx, r, 1, &r->shape[1]);
    if (last_1d) return loom_reshape(ctx, r, 1, &r->shape[0]);
    return r;
}

LOOM_API loom_array_t *loom_matrix_power(loom_ctx_t *ctx, loom_array_t *a, int64_t n) {
    const char *fn = "matrix_power";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a)) return &ctx->nil;
    if (a->ndim < 2 || a->shape[a->ndim - 1] != a->shape[a->ndim - 2]) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: Last 2 dimensions of the array must be square", fn);
        return &ctx->nil;
    }
    if (n == INT64_MIN) {
        fe_error(ctx, LOOM_STATUS_OVERFLOW, "%s: exponent %lld out of range", fn, (long long)n);
        return &ctx->nil;
    }
    if (n < 0) { /* NumPy: the powers of inv(a) */
        a = loom_inv(ctx, a);
        if (a->flags & FE_NIL) return a;
        n = -n;
    }
    if (n == 0) { /* the identity, broadcast to a's shape */
        int64_t k = a->shape[a->ndim - 1];
        return loom_broadcast_to(ctx, loom_eye(ctx, k, k, 0, (loom_dtype_t)a->dtype), a->ndim,
                                 a->shape);
    }
    /* NumPy's order: z = a, a^2, a^4, ...; result = the product of the z whose bit is set */
    loom_array_t *z = NULL, *result = NULL;
    while (n > 0) {
        z = z ? loom_matmul(ctx, z, z) : a;
        if (n & 1) result = result ? loom_matmul(ctx, result, z) : z;
        n >>= 1;
    }
    return result == a ? loom_astype(ctx, a, (loom_dtype_t)a->dtype) : result;
}
