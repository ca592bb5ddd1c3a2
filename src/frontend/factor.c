/* factor.c — numpy.linalg's factorisations and what is built on them. Each factorisation is one
 * LINALG node (ir.h: LU, SOLVE, CHOLESKY, EIGH, SVD, QR) whose layout is the one LAPACK and
 * cuSOLVER read and write without transposing (ref_linalg.c); the transposes, triangles, slices
 * and reductions around it are ordinary views and fused elementwise work here. */
#include <math.h>
#include <string.h>

#include "fe.h"

/* linalg's dtype rule for one operand (NumPy's _commonType): float32, float64, complex64 and
 * complex128 stay, bool and integers become float64; float16 and bfloat16 are DTYPE_ERROR
 * (-1), as NumPy refuses float16. */
static int lin_dtype(loom_ctx_t *ctx, const char *fn, loom_dtype_t d) {
    if (d == LOOM_DTYPE_F16 || d == LOOM_DTYPE_BF16) {
        fe_error(ctx, LOOM_STATUS_DTYPE_ERROR, "linalg.%s: array type %s is unsupported in linalg",
                 fn, ir_dtypes[d].name);
        return -1;
    }
    return ir_is_float(d) || ir_is_complex(d) ? (int)d : LOOM_DTYPE_F64;
}

/* The conjugate transpose of x's last two axes (the transpose for real x). */
static loom_array_t *ctrans(loom_ctx_t *ctx, loom_array_t *x) {
    loom_array_t *t = loom_matrix_transpose(ctx, x);
    return ir_is_complex((loom_dtype_t)x->dtype) ? loom_conj(ctx, t) : t;
}

static loom_array_t *lin_input(loom_ctx_t *ctx, const char *fn, loom_array_t *a, bool square) {
    if (!fe_check_arg(ctx, fn, a)) return NULL;
    if (a->ndim < 2) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "linalg.%s: %d-dimensional array given. Array must be at least two-dimensional",
                 fn, a->ndim);
        return NULL;
    }
    if (square && a->shape[a->ndim - 1] != a->shape[a->ndim - 2]) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "linalg.%s: Last 2 dimensions of the array must be square (they are %lld x %lld)",
                 fn, (long long)a->shape[a->ndim - 2], (long long)a->shape[a->ndim - 1]);
        return NULL;
    }
    int d = lin_dtype(ctx, fn, (loom_dtype_t)a->dtype);
    if (d < 0) return NULL;
    loom_array_t *r = loom_astype(ctx, a, (loom_dtype_t)d);
    return (r->flags & FE_NIL) ? NULL : r;
}

/* The LINALG node op (mode) of a (and b). */
static loom_array_t *lin_node(loom_ctx_t *ctx, ir_op_t op, int64_t mode, loom_array_t *a,
                              loom_array_t *b) {
    if (!a || (a->flags & FE_NIL) || (b && (b->flags & FE_NIL))) return &ctx->nil;
    ir_node_t an = {0}, bn = {0};
    an.ndim = (uint8_t)a->ndim;
    memcpy(an.shape, a->shape, (size_t)a->ndim * sizeof *a->shape);
    if (b) {
        bn.ndim = (uint8_t)b->ndim;
        memcpy(bn.shape, b->shape, (size_t)b->ndim * sizeof *b->shape);
    }
    int nd;
    int64_t shape[LOOM_MAX_DIMS];
    if (!ir_linalg_shape(op, mode, &an, b ? &bn : NULL, &nd, shape)) { /* checked before */
        fe_error(ctx, LOOM_STATUS_OVERFLOW, "linalg.%s: matrices of %lld x %lld are too large",
                 ir_ops[op].name, (long long)a->shape[a->ndim - 2],
                 (long long)a->shape[a->ndim - 1]);
        return &ctx->nil;
    }
    ir_params_t p = {0};
    p.k = mode;
    loom_array_t *srcs[2] = {a, b};
    return fe_shaped(ctx, op, ir_linalg_dtype(op, mode, (loom_dtype_t)a->dtype), nd, shape,
                     b ? 2 : 1, srcs, &p);
}

/* x[start:stop] along axis nd - back (back 1: the last axis), the others whole. */
static loom_array_t *span(loom_ctx_t *ctx, loom_array_t *x, int back, int64_t start, int64_t stop) {
    return fe_slice_axis(ctx, x, x->ndim - back, start, stop, LOOM_NONE);
}

/* x[..., start:start + rows * cols] reshaped to (..., rows, cols). */
static loom_array_t *unpack(loom_ctx_t *ctx, loom_array_t *x, int64_t start, int64_t rows,
                            int64_t cols) {
    int64_t shape[LOOM_MAX_DIMS];
    memcpy(shape, x->shape, (size_t)x->ndim * sizeof *shape);
    shape[x->ndim - 1] = rows;
    shape[x->ndim] = cols;
    return loom_reshape(ctx, span(ctx, x, 1, start, start + rows * cols), x->ndim + 1, shape);
}

/* A several-result function that failed (or got a nil operand): every result nil. */
static loom_status_t nil_outs(loom_ctx_t *ctx, int n, loom_array_t ***dst) {
    for (int i = 0; i < n; i++)
        if (dst[i]) *dst[i] = &ctx->nil;
    return ctx->err.status;
}

static loom_status_t outs(loom_ctx_t *ctx, int n, loom_array_t **vals, loom_array_t ***dst) {
    for (int i = 0; i < n; i++)
        if (vals[i] && (vals[i]->flags & FE_NIL)) return nil_outs(ctx, n, dst);
    for (int i = 0; i < n; i++)
        if (dst[i]) *dst[i] = vals[i];
    return ctx->err.status;
}

static bool need(loom_ctx_t *ctx, const char *fn, int n, loom_array_t ***dst) {
    for (int i = 0; i < n; i++)
        if (!dst[i]) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "linalg.%s: result pointer %d is NULL", fn,
                     i);
            return false;
        }
    return true;
}

/* A solve of a (.., n, n) for right-hand sides bt (.., k, n) (B^T), batch axes broadcast, the
 * common float dtype; X (.., n, k). */
static loom_array_t *solve_t(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *bt) {
    int d = fe_promote(ctx, "solve", (loom_dtype_t)a->dtype, (loom_dtype_t)bt->dtype);
    if (d < 0) return &ctx->nil;
    a = loom_astype(ctx, a, (loom_dtype_t)d);
    bt = loom_astype(ctx, bt, (loom_dtype_t)d);
    /* broadcast the batch axes */
    int nb = (a->ndim > bt->ndim ? a->ndim : bt->ndim) - 2;
    int64_t batch[LOOM_MAX_DIMS], shape[LOOM_MAX_DIMS];
    for (int i = 0; i < nb; i++) {
        int ia = i - (nb - (a->ndim - 2)), ib = i - (nb - (bt->ndim - 2));
        int64_t ea = ia >= 0 ? a->shape[ia] : 1, eb = ib >= 0 ? bt->shape[ib] : 1;
        if (ea != eb && ea != 1 && eb != 1) {
            fe_error(ctx, LOOM_STATUS_SHAPE_MISMATCH,
                     "linalg.solve: the stack axes of a and b do not broadcast (%lld and %lld)",
                     (long long)ea, (long long)eb);
            return &ctx->nil;
        }
        batch[i] = ea == 1 ? eb : ea;
    }
    memcpy(shape, batch, (size_t)nb * sizeof *batch);
    shape[nb] = a->shape[a->ndim - 2];
    shape[nb + 1] = a->shape[a->ndim - 1];
    loom_array_t *ab = loom_broadcast_to(ctx, a, nb + 2, shape);
    shape[nb] = bt->shape[bt->ndim - 2];
    shape[nb + 1] = bt->shape[bt->ndim - 1];
    loom_array_t *bb = loom_broadcast_to(ctx, bt, nb + 2, shape);
    return loom_matrix_transpose(ctx, lin_node(ctx, IR_OP_SOLVE, 0, ab, bb));
}

LOOM_API loom_array_t *loom_solve(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b) {
    if (!ctx) return NULL;
    a = lin_input(ctx, "solve", a, true);
    if (!a || !fe_check_arg(ctx, "solve", b)) return &ctx->nil;
    int64_t n = a->shape[a->ndim - 1];
    int bd = lin_dtype(ctx, "solve", (loom_dtype_t)b->dtype);
    if (bd < 0) return &ctx->nil;
    b = loom_astype(ctx, b, (loom_dtype_t)bd);
    if (b->flags & FE_NIL) return &ctx->nil;
    bool vector = b->ndim == 1; /* NumPy 2: b is a vector only when it is 1-D */
    if (b->ndim == 0 || b->shape[vector ? 0 : b->ndim - 2] != n) {
        char s[64];
        fe_format_shape(s, sizeof s, b->ndim, b->shape);
        fe_error(ctx, LOOM_STATUS_SHAPE_MISMATCH,
                 "linalg.solve: b %s must have shape (..., %lld) or (..., %lld, K) for a of "
                 "%lld x %lld matrices",
                 s, (long long)n, (long long)n, (long long)n, (long long)n);
        return &ctx->nil;
    }
    loom_array_t *bt;
    if (vector) {
        int64_t shape[2] = {1, n};
        bt = loom_reshape(ctx, b, 2, shape);
    } else {
        bt = loom_matrix_transpose(ctx, b);
    }
    loom_array_t *x = solve_t(ctx, a, bt);
    if (!vector || (x->flags & FE_NIL)) return x;
    return fe_index_axis(ctx, x, x->ndim - 1, 0);
}

/* inv(a) = solve(a, I) (NumPy's gesv with the identity), one identity B^T shared by the stack
 * (not broadcast: a copy per matrix is the solver's). mode 1 raises for a singular matrix, 2
 * (cond's) gives NaN or inf. */
static loom_array_t *inv_of(loom_ctx_t *ctx, loom_array_t *a, int64_t mode) {
    int64_t n = a->shape[a->ndim - 1];
    loom_array_t *eye = loom_eye(ctx, n, n, 0, (loom_dtype_t)a->dtype);
    return loom_matrix_transpose(ctx, lin_node(ctx, IR_OP_SOLVE, mode, a, eye));
}

LOOM_API loom_array_t *loom_inv(loom_ctx_t *ctx, loom_array_t *a) {
    if (!ctx) return NULL;
    a = lin_input(ctx, "inv", a, true);
    if (!a) return &ctx->nil;
    return inv_of(ctx, a, 1);
}

LOOM_API loom_array_t *loom_cholesky(loom_ctx_t *ctx, loom_array_t *a, int upper) {
    if (!ctx) return NULL;
    a = lin_input(ctx, "cholesky", a, true);
    if (!a) return &ctx->nil;
    /* The node reads its operand's transpose's lower triangle (mode 0) and gives L^T. NumPy's
     * upper form reads a's upper triangle, which is a^T's lower: a itself goes in, U = L^T
     * comes out. The lower form reads a's lower triangle: mode 1 takes a and transposes it
     * as the step copies it (one pass, where a materialised a^T and the copy made two). */
    loom_array_t *lt = lin_node(ctx, IR_OP_CHOLESKY, upper ? 0 : 1, a, NULL);
    /* the triangle masked on the transposed read: one fused kernel writes L (a mask under a
     * transpose made the scheduler write U first, then copy it transposed) */
    return upper ? loom_triu(ctx, lt, 0) : loom_tril(ctx, loom_matrix_transpose(ctx, lt), 0);
}

LOOM_API loom_status_t loom_slogdet(loom_ctx_t *ctx, loom_array_t *a, loom_array_t **sign,
                                    loom_array_t **logabsdet) {
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    loom_array_t **dst[2] = {sign, logabsdet};
    if (!need(ctx, "slogdet", 2, dst)) return nil_outs(ctx, 2, dst);
    a = lin_input(ctx, "slogdet", a, true);
    if (!a) return nil_outs(ctx, 2, dst);
    int64_t n = a->shape[a->ndim - 1];
    int nd = a->ndim;
    loom_array_t *lu = lin_node(ctx, IR_OP_LU, 0, a, NULL);
    if (lu->flags & FE_NIL) return nil_outs(ctx, 2, dst);
    loom_array_t *diag = loom_diagonal(ctx, span(ctx, lu, 2, 0, n), 0, nd - 2, nd - 1);
    bool cplx = ir_is_complex((loom_dtype_t)a->dtype);
    loom_dtype_t rd = ir_real_dtype((loom_dtype_t)a->dtype);
    loom_array_t *piv = fe_index_axis(ctx, lu, nd - 2, n);
    if (cplx) piv = loom_real(ctx, piv);
    loom_array_t *pos = loom_arange(ctx, 1, (double)n + 1, 1, rd);
    /* NumPy's sign: flipped by each row swap and each negative pivot (a NaN one leaves it),
     * 0 when a pivot is zero; complex: the product of the pivots' phases d / |d| instead */
    loom_array_t *zero = loom_weak_int(ctx, 0);
    loom_array_t *flips = loom_astype(ctx, loom_not_equal(ctx, piv, pos), LOOM_DTYPE_I64);
    if (!cplx)
        flips = loom_add(ctx, flips, loom_astype(ctx, loom_less(ctx, diag, zero), LOOM_DTYPE_I64));
    loom_array_t *odd =
        loom_remainder(ctx, loom_sum(ctx, flips, 1, (int32_t[]){-1}, 0), loom_weak_int(ctx, 2));
    loom_array_t *nonzero = loom_all(ctx, loom_not_equal(ctx, diag, zero), 1, (int32_t[]){-1}, 0);
    loom_array_t *s = loom_astype(
        ctx,
        loom_multiply(ctx, loom_subtract(ctx, loom_weak_int(ctx, 1), loom_multiply_i(ctx, odd, 2)),
                      loom_astype(ctx, nonzero, LOOM_DTYPE_I64)),
        (loom_dtype_t)a->dtype);
    if (cplx) {
        loom_array_t *phase = loom_prod(ctx, loom_true_divide(ctx, diag, loom_abs(ctx, diag)), 1,
                                        (int32_t[]){-1}, 0);
        s = loom_where(ctx, nonzero, loom_multiply(ctx, s, phase), loom_weak_int(ctx, 0));
    }
    /* -inf for a zero pivot whatever else the diagonal holds (NaN or inf would make the sum
     * NaN), as NumPy sets it when getrf reports one */
    loom_array_t *l = loom_where(
        ctx, nonzero, loom_sum(ctx, loom_log(ctx, loom_abs(ctx, diag)), 1, (int32_t[]){-1}, 0),
        loom_weak_float(ctx, -INFINITY));
    /* A NaN anywhere in a makes logabsdet NaN. The factors alone cannot say so: cuSOLVER's pivot
     * search treats NaN differently from LAPACK's and may report a zero pivot. The sign then
     * follows the device's pivot order, as NumPy's follows its BLAS's. */
    loom_array_t *had = loom_any(ctx, loom_isnan(ctx, a), 2, (int32_t[]){-2, -1}, 0);
    l = loom_where(ctx, had, loom_weak_float(ctx, NAN), l);
    loom_array_t *vals[2] = {s, l};
    return outs(ctx, 2, vals, dst);
}

/* NumPy's det: sign * exp(logabsdet) of the LU factors' diagonal. */
LOOM_API loom_array_t *loom_det(loom_ctx_t *ctx, loom_array_t *a) {
    if (!ctx) return NULL;
    loom_array_t *s, *l;
    loom_slogdet(ctx, a, &s, &l); /* nil results on failure, which propagate */
    return loom_multiply(ctx, s, loom_exp(ctx, l));
}

LOOM_API loom_status_t loom_eigh(loom_ctx_t *ctx, loom_array_t *a, int upper,
                                 loom_array_t **eigenvalues, loom_array_t **eigenvectors) {
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    loom_array_t **dst[2] = {eigenvalues, eigenvectors};
    if (!need(ctx, "eigh", 2, dst)) return nil_outs(ctx, 2, dst);
    a = lin_input(ctx, "eigh", a, true);
    if (!a) return nil_outs(ctx, 2, dst);
    int64_t n = a->shape[a->ndim - 1];
    loom_array_t *p = lin_node(ctx, IR_OP_EIGH, upper ? 1 : 0, a, NULL);
    if (p->flags & FE_NIL) return nil_outs(ctx, 2, dst);
    /* complex: the node's eigenvectors are those of conj(a) (ref_linalg.c), conjugated back */
    loom_array_t *vals[2] = {loom_real(ctx, fe_index_axis(ctx, p, p->ndim - 2, 0)),
                             ctrans(ctx, span(ctx, p, 2, 1, n + 1))};
    return outs(ctx, 2, vals, dst);
}

LOOM_API loom_array_t *loom_eigvalsh(loom_ctx_t *ctx, loom_array_t *a, int upper) {
    if (!ctx) return NULL;
    a = lin_input(ctx, "eigvalsh", a, true);
    if (!a) return &ctx->nil;
    return lin_node(ctx, IR_OP_EIGH, 2 | (upper ? 1 : 0), a, NULL);
}

/* a as eig's input: a complex square stack (real matrices through complex ones, as ir.h's EIG
 * says). */
static loom_array_t *eig_input(loom_ctx_t *ctx, const char *fn, loom_array_t *a) {
    a = lin_input(ctx, fn, a, true);
    if (!a) return NULL;
    a = loom_astype(ctx, a, ir_complex_dtype((loom_dtype_t)a->dtype));
    return (a->flags & FE_NIL) ? NULL : a;
}

LOOM_API loom_status_t loom_eig(loom_ctx_t *ctx, loom_array_t *a, loom_array_t **eigenvalues,
                                loom_array_t **eigenvectors) {
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    loom_array_t **dst[2] = {eigenvalues, eigenvectors};
    if (!need(ctx, "eig", 2, dst)) return nil_outs(ctx, 2, dst);
    a = eig_input(ctx, "eig", a);
    if (!a) return nil_outs(ctx, 2, dst);
    int64_t n = a->shape[a->ndim - 1];
    /* the node factors its operand's transpose: a itself, column-major */
    loom_array_t *p = lin_node(ctx, IR_OP_EIG, 1, loom_matrix_transpose(ctx, a), NULL);
    if (p->flags & FE_NIL) return nil_outs(ctx, 2, dst);
    loom_array_t *vals[2] = {fe_index_axis(ctx, p, p->ndim - 2, 0),
                             loom_matrix_transpose(ctx, span(ctx, p, 2, 1, n + 1))};
    return outs(ctx, 2, vals, dst);
}

LOOM_API loom_array_t *loom_eigvals(loom_ctx_t *ctx, loom_array_t *a) {
    if (!ctx) return NULL;
    a = eig_input(ctx, "eigvals", a);
    if (!a) return &ctx->nil;
    return lin_node(ctx, IR_OP_EIG, 0, loom_matrix_transpose(ctx, a), NULL);
}

/* The singular values of a, descending (a tall matrix through its transpose). */
static loom_array_t *svdvals(loom_ctx_t *ctx, loom_array_t *a) {
    bool tall = a->shape[a->ndim - 2] > a->shape[a->ndim - 1];
    return lin_node(ctx, IR_OP_SVD, 0, tall ? loom_matrix_transpose(ctx, a) : a, NULL);
}

LOOM_API loom_array_t *loom_svdvals(loom_ctx_t *ctx, loom_array_t *a) {
    if (!ctx) return NULL;
    a = lin_input(ctx, "svdvals", a, false);
    return a ? svdvals(ctx, a) : &ctx->nil;
}

LOOM_API loom_status_t loom_svd(loom_ctx_t *ctx, loom_array_t *a, int full_matrices,
                                loom_array_t **u, loom_array_t **s, loom_array_t **vh) {
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    loom_array_t **dst[3] = {u, s, vh};
    if (!need(ctx, "svd", 3, dst)) return nil_outs(ctx, 3, dst);
    a = lin_input(ctx, "svd", a, false);
    if (!a) return nil_outs(ctx, 3, dst);
    bool tall = a->shape[a->ndim - 2] > a->shape[a->ndim - 1];
    loom_array_t *w = tall ? loom_matrix_transpose(ctx, a) : a; /* m <= n */
    int64_t m = w->shape[w->ndim - 2], n = w->shape[w->ndim - 1], r = full_matrices ? n : m;
    loom_array_t *p = lin_node(ctx, IR_OP_SVD, full_matrices ? 2 : 1, w, NULL);
    if (p->flags & FE_NIL) return nil_outs(ctx, 3, dst);
    loom_array_t *pu = unpack(ctx, p, 0, m, m), *pv = unpack(ctx, p, m * m + m, r, n);
    loom_array_t *ps = loom_real(ctx, span(ctx, p, 1, m * m, m * m + m));
    /* a = (U S Vh)^T = Vh^T S U^T when it was transposed */
    loom_array_t *vals[3] = {tall ? loom_matrix_transpose(ctx, pv) : pu, ps,
                             tall ? loom_matrix_transpose(ctx, pu) : pv};
    return outs(ctx, 3, vals, dst);
}

LOOM_API loom_status_t loom_qr(loom_ctx_t *ctx, loom_array_t *a, loom_qr_mode_t mode,
                               loom_array_t **q, loom_array_t **r) {
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    loom_array_t **dst[2] = {q, r};
    if (mode != LOOM_QR_REDUCED && mode != LOOM_QR_COMPLETE && mode != LOOM_QR_R) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "linalg.qr: unknown mode %d", (int)mode);
        return nil_outs(ctx, 2, dst);
    }
    if (!need(ctx, "qr", mode == LOOM_QR_R ? 1 : 2, mode == LOOM_QR_R ? dst + 1 : dst))
        return nil_outs(ctx, 2, dst);
    a = lin_input(ctx, "qr", a, false);
    if (!a) return nil_outs(ctx, 2, dst);
    int64_t m = a->shape[a->ndim - 2], n = a->shape[a->ndim - 1], k = m < n ? m : n;
    int64_t qc = mode == LOOM_QR_COMPLETE ? m : k;
    int64_t pmode = mode == LOOM_QR_R ? 2 : mode == LOOM_QR_COMPLETE ? 1 : 0;
    loom_array_t *p = lin_node(ctx, IR_OP_QR, pmode, loom_matrix_transpose(ctx, a), NULL);
    if (p->flags & FE_NIL) return nil_outs(ctx, 2, dst);
    loom_array_t *rt = mode == LOOM_QR_R ? p : unpack(ctx, p, qc * m, n, k);
    loom_array_t *rr = loom_triu(ctx, loom_matrix_transpose(ctx, rt), 0); /* k x n */
    if (mode == LOOM_QR_COMPLETE && m > k) { /* R is m x n: zero rows below */
        int64_t shape[LOOM_MAX_DIMS];
        memcpy(shape, rr->shape, (size_t)rr->ndim * sizeof *shape);
        shape[rr->ndim - 2] = m - k;
        loom_array_t *z = loom_zeros(ctx, (loom_dtype_t)a->dtype, rr->ndim, shape);
        loom_array_t *parts[2] = {rr, z};
        rr = loom_concatenate(ctx, 2, parts, rr->ndim - 2);
    }
    loom_array_t *vals[2] = {
        mode == LOOM_QR_R ? NULL : loom_matrix_transpose(ctx, unpack(ctx, p, 0, qc, m)), rr};
    return outs(ctx, 2, vals, dst);
}

/* The singular values' cutoff of pinv, matrix_rank and lstsq: s > rtol * max(s). */
static loom_array_t *keep_mask(loom_ctx_t *ctx, loom_array_t *s, loom_array_t *rtol) {
    loom_array_t *mx = loom_max(ctx, s, 1, (int32_t[]){-1}, 1);
    return loom_greater(ctx, s, loom_multiply(ctx, rtol, mx));
}

/* pinv with the cutoff factor rtol, broadcast against the singular values' max of each
 * matrix (the stack's shape, 1). */
static loom_array_t *pinv(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *rtol) {
    a = lin_input(ctx, "pinv", a, false);
    if (!a) return &ctx->nil;
    int nd = a->ndim;
    int64_t m = a->shape[nd - 2], n = a->shape[nd - 1];
    if (m == 0 || n == 0) { /* NumPy: the (.., n, m) empty result */
        int64_t shape[LOOM_MAX_DIMS];
        memcpy(shape, a->shape, (size_t)nd * sizeof *shape);
        shape[nd - 2] = n;
        shape[nd - 1] = m;
        return loom_zeros(ctx, (loom_dtype_t)a->dtype, nd, shape);
    }
    loom_array_t *u, *s, *vh;
    loom_svd(ctx, a, 0, &u, &s, &vh);
    if (u->flags & FE_NIL) return u; /* (an earlier, kept error is not this call's) */
    loom_array_t *keep = keep_mask(ctx, s, rtol);
    loom_array_t *sinv = loom_where(ctx, keep, loom_reciprocal(ctx, s), loom_weak_float(ctx, 0));
    loom_array_t *us =
        loom_multiply(ctx, ctrans(ctx, u), loom_expand_dims(ctx, sinv, 1, (int32_t[]){-1}));
    return loom_matmul(ctx, ctrans(ctx, vh), us);
}

LOOM_API loom_array_t *loom_pinv(loom_ctx_t *ctx, loom_array_t *a, double rcond) {
    if (!ctx) return NULL;
    return pinv(ctx, a, loom_weak_float(ctx, rcond));
}

LOOM_API loom_array_t *loom_pinv_tol(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *rcond) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "pinv", rcond)) return &ctx->nil;
    /* one tolerance for each matrix at most: rcond broadcasts to a's stack, not beyond it (a
     * itself is checked by pinv) */
    bool stack = a && !(a->flags & FE_NIL) && a->ndim >= 2, fits = true;
    int32_t st = stack ? a->ndim - 2 : 0;
    for (int32_t i = 1; stack && fits && i <= rcond->ndim; i++)
        fits = i <= st && (rcond->shape[rcond->ndim - i] == 1 ||
                           rcond->shape[rcond->ndim - i] == a->shape[st - i]);
    if (!fits) {
        char sr[64], sa[64];
        fe_format_shape(sr, sizeof sr, rcond->ndim, rcond->shape);
        fe_format_shape(sa, sizeof sa, a->ndim, a->shape);
        fe_error(ctx, LOOM_STATUS_SHAPE_MISMATCH,
                 "pinv: the tolerances %s do not broadcast to the stack of matrices %s", sr, sa);
        return &ctx->nil;
    }
    /* (.., 1): against each matrix's max(s), which keeps its last axis */
    return pinv(ctx, a, loom_expand_dims(ctx, rcond, 1, (int32_t[]){-1}));
}

/* matrix_rank with tol (absolute) or rtol (relative to each matrix's largest singular value)
 * as arrays of the stack's shape (.., 1), or neither (NULL: NumPy's max(M, N) * eps). */
static loom_array_t *matrix_rank(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *tol,
                                 loom_array_t *rtol) {
    if (!fe_check_arg(ctx, "matrix_rank", a)) return &ctx->nil;
    if (a->ndim < 2) /* NumPy: int(not all(a == 0)) */
        return loom_astype(
            ctx, loom_any(ctx, loom_not_equal(ctx, a, loom_weak_int(ctx, 0)), -1, NULL, 0),
            LOOM_DTYPE_I64);
    a = lin_input(ctx, "matrix_rank", a, false);
    if (!a) return &ctx->nil;
    int64_t m = a->shape[a->ndim - 2], n = a->shape[a->ndim - 1];
    loom_array_t *s = svdvals(ctx, a);
    if (s->flags & FE_NIL) return s;
    loom_array_t *keep;
    if (s->shape[s->ndim - 1] == 0) { /* no singular values: rank 0 (NumPy's max initial=0), in
                                       * the shape the stack and the tolerances broadcast to */
        keep = loom_greater(ctx, s, tol ? tol : rtol ? rtol : loom_weak_float(ctx, 0));
        return loom_count_nonzero(ctx, keep, 1, (int32_t[]){-1}, 0);
    }
    if (!tol) { /* S.max() * rtol, NumPy's rtol max(M, N) * eps */
        loom_finfo_t fi;
        loom_finfo((loom_dtype_t)a->dtype, &fi);
        keep =
            keep_mask(ctx, s, rtol ? rtol : loom_weak_float(ctx, (double)(m > n ? m : n) * fi.eps));
    } else {
        keep = loom_greater(ctx, s, tol);
    }
    return loom_count_nonzero(ctx, keep, 1, (int32_t[]){-1}, 0);
}

LOOM_API loom_array_t *loom_matrix_rank(loom_ctx_t *ctx, loom_array_t *a, double tol, double rtol) {
    if (!ctx) return NULL;
    return matrix_rank(ctx, a, isnan(tol) ? NULL : loom_weak_float(ctx, tol),
                       isnan(rtol) ? NULL : loom_weak_float(ctx, rtol));
}

LOOM_API loom_array_t *loom_matrix_rank_tol(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *tol,
                                            loom_array_t *rtol) {
    if (!ctx) return NULL;
    if (tol && rtol) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "matrix_rank: `tol` and `rtol` can't be both set.");
        return &ctx->nil;
    }
    loom_array_t *t = tol ? tol : rtol;
    if (t && !fe_check_arg(ctx, "matrix_rank", t)) return &ctx->nil;
    if (t) t = loom_expand_dims(ctx, t, 1, (int32_t[]){-1}); /* (.., 1): per matrix */
    if (t && (t->flags & FE_NIL)) return t; /* (its error: already at the most axes) */
    return matrix_rank(ctx, a, tol ? t : NULL, rtol ? t : NULL);
}

LOOM_API loom_status_t loom_lstsq(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b, double rcond,
                                  loom_array_t **x, loom_array_t **residuals, loom_array_t **rank,
                                  loom_array_t **sv) {
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    loom_array_t **dst[4] = {x, residuals, rank, sv};
    if (!need(ctx, "lstsq", 4, dst)) return nil_outs(ctx, 4, dst);
    a = lin_input(ctx, "lstsq", a, false);
    if (!a || !fe_check_arg(ctx, "lstsq", b)) return nil_outs(ctx, 4, dst);
    if (a->ndim != 2 || (b->ndim != 1 && b->ndim != 2) || b->shape[0] != a->shape[0]) {
        char sa[64], sb[64];
        fe_format_shape(sa, sizeof sa, a->ndim, a->shape);
        fe_format_shape(sb, sizeof sb, b->ndim, b->shape);
        fe_error(ctx, LOOM_STATUS_SHAPE_MISMATCH,
                 "linalg.lstsq: a %s must be 2-d and b %s 1-d or 2-d with as many rows", sa, sb);
        return nil_outs(ctx, 4, dst);
    }
    /* NumPy's _commonType: a non-float operand counts as float64 */
    if (lin_dtype(ctx, "lstsq", (loom_dtype_t)b->dtype) < 0) return nil_outs(ctx, 4, dst);
    loom_dtype_t bd = (loom_dtype_t)lin_dtype(ctx, "lstsq", (loom_dtype_t)b->dtype);
    int d = fe_promote(ctx, "lstsq", (loom_dtype_t)a->dtype, bd);
    if (d < 0) return nil_outs(ctx, 4, dst);
    if (d == LOOM_DTYPE_F16 || d == LOOM_DTYPE_BF16) {
        fe_error(ctx, LOOM_STATUS_DTYPE_ERROR,
                 "linalg.lstsq: array type %s is unsupported in "
                 "linalg",
                 ir_dtypes[d].name);
        return nil_outs(ctx, 4, dst);
    }
    a = loom_astype(ctx, a, (loom_dtype_t)d);
    loom_array_t *bm = b->ndim == 1 ? loom_expand_dims(ctx, b, 1, (int32_t[]){1}) : b;
    bm = loom_astype(ctx, bm, (loom_dtype_t)d);
    int64_t m = a->shape[0], n = a->shape[1], k = bm->shape[1];
    loom_finfo_t fi;
    loom_finfo((loom_dtype_t)d, &fi);
    if (isnan(rcond)) /* NumPy's default: eps * max(M, N) (of the dtype loom computes in) */
        rcond = fi.eps * (double)(m > n ? m : n);
    else if (rcond < 0) /* LAPACK's gelsd: machine precision */
        rcond = fi.eps;
    loom_array_t *xs, *s, *rk;
    if (m == 0 || n == 0) {
        xs = loom_zeros(ctx, (loom_dtype_t)d, 2, (int64_t[]){n, k});
        s = loom_zeros(ctx, ir_real_dtype((loom_dtype_t)d), 1, (int64_t[]){0});
        rk = fe_i64(ctx, 0);
    } else {
        loom_array_t *u, *vh;
        loom_svd(ctx, a, 0, &u, &s, &vh);
        if (u->flags & FE_NIL) return nil_outs(ctx, 4, dst);
        loom_array_t *keep = keep_mask(ctx, s, loom_weak_float(ctx, rcond));
        loom_array_t *sinv =
            loom_where(ctx, keep, loom_reciprocal(ctx, s), loom_weak_float(ctx, 0));
        loom_array_t *utb = loom_matmul(ctx, ctrans(ctx, u), bm);
        xs = loom_matmul(ctx, ctrans(ctx, vh),
                         loom_multiply(ctx, loom_expand_dims(ctx, sinv, 1, (int32_t[]){-1}), utb));
        rk = loom_count_nonzero(ctx, keep, -1, NULL, 0);
    }
    /* residuals: the squared 2-norms of b - a x per column when a has full column rank and
     * more rows than columns; else empty (NumPy's rule, which needs the rank now: one sync) */
    int64_t r = 0;
    loom_scope_begin(ctx);
    loom_array_t *both[2] = {rk, xs};
    loom_status_t st = loom_eval(ctx, 2, both);
    if (st == LOOM_STATUS_OK) st = loom_read(ctx, rk, &r, sizeof r);
    loom_scope_end(ctx);
    if (st != LOOM_STATUS_OK) return nil_outs(ctx, 4, dst);
    loom_array_t *res;
    if (r == n && m > n) {
        loom_array_t *e = loom_subtract(ctx, bm, loom_matmul(ctx, a, xs));
        if (ir_is_complex((loom_dtype_t)d)) e = loom_abs(ctx, e); /* |e|^2, real */
        res = loom_sum(ctx, loom_square(ctx, e), 1, (int32_t[]){0}, 0);
    } else {
        res = loom_zeros(ctx, ir_real_dtype((loom_dtype_t)d), 1, (int64_t[]){0});
    }
    loom_array_t *vals[4] = {b->ndim == 1 ? fe_index_axis(ctx, xs, 1, 0) : xs, res,
                             loom_astype(ctx, rk, LOOM_DTYPE_I32), s}; /* LAPACK's int */
    return outs(ctx, 4, vals, dst);
}

/* NumPy's cond: a NaN (a singular matrix's inverse) becomes inf, unless x held a NaN. */
static loom_array_t *nan_to_inf(loom_ctx_t *ctx, loom_array_t *r, loom_array_t *x) {
    int32_t last2[2] = {-2, -1};
    loom_array_t *had = loom_any(ctx, loom_isnan(ctx, x), 2, last2, 0);
    loom_array_t *fix = loom_logical_and(ctx, loom_isnan(ctx, r), loom_logical_not(ctx, had));
    return loom_where(ctx, fix, loom_weak_float(ctx, INFINITY), r);
}

LOOM_API loom_array_t *loom_cond(loom_ctx_t *ctx, loom_array_t *x, loom_norm_t kind, double ord) {
    if (!ctx) return NULL;
    x = lin_input(ctx, "cond", x, false);
    if (!x) return &ctx->nil;
    if (kind == LOOM_NORM_DEFAULT || (kind == LOOM_NORM_ORD && fabs(ord) == 2)) {
        loom_array_t *s = svdvals(ctx, x);
        if (s->flags & FE_NIL) return s;
        int64_t k = s->shape[s->ndim - 1];
        if (k == 0) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "linalg.cond: empty matrices");
            return &ctx->nil;
        }
        loom_array_t *hi = fe_index_axis(ctx, s, s->ndim - 1, 0);
        loom_array_t *lo = fe_index_axis(ctx, s, s->ndim - 1, k - 1);
        return nan_to_inf(ctx,
                          kind == LOOM_NORM_ORD && ord < 0 ? loom_true_divide(ctx, lo, hi)
                                                           : loom_true_divide(ctx, hi, lo),
                          x);
    }
    if (x->shape[x->ndim - 1] != x->shape[x->ndim - 2]) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "linalg.cond: Last 2 dimensions of the array must be square");
        return &ctx->nil;
    }
    /* NumPy's inv under errstate(all='ignore'): a singular matrix gives NaN, not an error */
    loom_array_t *inv = inv_of(ctx, x, 2);
    return nan_to_inf(ctx,
                      loom_multiply(ctx, loom_matrix_norm(ctx, x, 0, kind, ord),
                                    loom_matrix_norm(ctx, inv, 0, kind, ord)),
                      x);
}

LOOM_API loom_array_t *loom_tensorinv(loom_ctx_t *ctx, loom_array_t *a, int32_t ind) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "tensorinv", a)) return &ctx->nil;
    if (ind <= 0 || ind > a->ndim) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "linalg.tensorinv: ind %d must be in 1..%d",
                 ind, a->ndim);
        return &ctx->nil;
    }
    int64_t rows = 1, cols = 1, shape[LOOM_MAX_DIMS];
    int nd = 0;
    for (int ax = ind; ax < a->ndim; ax++) cols *= (shape[nd++] = a->shape[ax]);
    for (int ax = 0; ax < ind; ax++) rows *= (shape[nd++] = a->shape[ax]);
    loom_array_t *ia = loom_inv(ctx, loom_reshape(ctx, a, 2, (int64_t[]){rows, cols}));
    return loom_reshape(ctx, ia, nd, shape);
}

LOOM_API loom_array_t *loom_tensorsolve(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "tensorsolve", a) || !fe_check_arg(ctx, "tensorsolve", b))
        return &ctx->nil;
    if (b->ndim > a->ndim) {
        fe_error(ctx, LOOM_STATUS_SHAPE_MISMATCH,
                 "linalg.tensorsolve: b has more axes (%d) than a (%d)", b->ndim, a->ndim);
        return &ctx->nil;
    }
    int64_t rows = 1, cols = 1, shape[LOOM_MAX_DIMS];
    int nd = 0;
    for (int ax = 0; ax < b->ndim; ax++) rows *= b->shape[ax];
    for (int ax = b->ndim; ax < a->ndim; ax++) cols *= (shape[nd++] = a->shape[ax]);
    if (rows != cols) {
        fe_error(ctx, LOOM_STATUS_SHAPE_MISMATCH,
                 "linalg.tensorsolve: prod(a.shape[b.ndim:]) (%lld) must equal b.size (%lld)",
                 (long long)cols, (long long)rows);
        return &ctx->nil;
    }
    loom_array_t *x = loom_solve(ctx, loom_reshape(ctx, a, 2, (int64_t[]){rows, cols}),
                                 loom_reshape(ctx, b, 1, &rows));
    return loom_reshape(ctx, x, nd, shape);
}
