/* matmul.c — the contraction builders: loom_matmul, loom_dot, loom_tensordot. NumPy 2's shape
 * rules (ir_matmul_shape in src/ir/matmul.c is the one source of them) and messages, the result
 * dtype by promotion of the two operands, and explicit casts so that a MATMUL node's operands
 * have its dtype. Where np.dot is np.matmul (an operand of at most one axis, or b of two), the
 * node is a plain matmul, so devices see as few modes as possible. */
#include <stdio.h>
#include <string.h>

#include "fe.h"

/* A shape as NumPy's dot and tensordot print it: "(2,3)", "(3,)", "()". */
static void compact_shape(char *out, size_t cap, int32_t ndim, const int64_t *shape) {
    size_t len = 0;
    len += (size_t)snprintf(out, cap, "(");
    for (int32_t i = 0; i < ndim && len < cap; i++)
        len += (size_t)snprintf(out + len, cap - len, i ? ",%lld" : "%lld", (long long)shape[i]);
    if (len < cap) snprintf(out + len, cap - len, ndim == 1 ? ",)" : ")");
}

/* np.matmul's message for batch axes that do not broadcast. */
static void batch_message(loom_ctx_t *ctx, const loom_array_t *a, const loom_array_t *b) {
    char s[2][200], r[2][400], core[64];
    const loom_array_t *ops[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        compact_shape(s[i], sizeof s[i], ops[i]->ndim, ops[i]->shape);
        size_t len = (size_t)snprintf(r[i], sizeof r[i], "(");
        int nb = ops[i]->ndim - 2;
        for (int ax = 0; ax < nb && len < sizeof r[i]; ax++)
            len += (size_t)snprintf(r[i] + len, sizeof r[i] - len, "%lld,",
                                    (long long)ops[i]->shape[ax]);
        if (len < sizeof r[i]) snprintf(r[i] + len, sizeof r[i] - len, "newaxis,newaxis)");
    }
    snprintf(core, sizeof core, "(%lld,%lld)", (long long)a->shape[a->ndim - 2],
             (long long)b->shape[b->ndim - 1]);
    fe_error(ctx, LOOM_STATUS_SHAPE_MISMATCH,
             "matmul: operands could not be broadcast together with remapped shapes "
             "[original->remapped]: %s->%s %s->%s  and requested shape %s",
             s[0], r[0], s[1], r[1], core);
}

/* Records NumPy's error for contraction `fn` of a and b refused for `why`. */
static void shape_error(loom_ctx_t *ctx, const char *fn, int64_t mode, const loom_array_t *a,
                        const loom_array_t *b, const ir_matmul_why_t *why) {
    static const char sig[] = "(n?,k),(k,m?)->(n?,m?)";
    char sa[200], sb[200];
    compact_shape(sa, sizeof sa, a->ndim, a->shape);
    compact_shape(sb, sizeof sb, b->ndim, b->shape);
    switch (why->fault) {
        case IR_MATMUL_NDIM:
            if (mode == IR_MATMUL_MATMUL)
                fe_error(ctx, LOOM_STATUS_SHAPE_MISMATCH,
                         "matmul: Input operand %d does not have enough dimensions (has 0, "
                         "gufunc core with signature %s requires 1)",
                         why->operand, sig);
            else
                fe_error(ctx, LOOM_STATUS_SHAPE_MISMATCH,
                         "%s: operand %d of shape %s has fewer than %lld axes", fn, why->operand,
                         why->operand ? sb : sa, (long long)(mode - IR_MATMUL_TENSORDOT));
            return;
        case IR_MATMUL_CORE:
            if (!strcmp(fn, "matmul"))
                fe_error(ctx, LOOM_STATUS_SHAPE_MISMATCH,
                         "matmul: Input operand 1 has a mismatch in its core dimension 0, with "
                         "gufunc signature %s (size %lld is different from %lld)",
                         sig, (long long)b->shape[why->b_axis], (long long)a->shape[why->a_axis]);
            else if (!strcmp(fn, "dot"))
                fe_error(ctx, LOOM_STATUS_SHAPE_MISMATCH,
                         "dot: shapes %s and %s not aligned: %lld (dim %d) != %lld (dim %d)", sa,
                         sb, (long long)a->shape[why->a_axis], why->a_axis,
                         (long long)b->shape[why->b_axis], why->b_axis);
            else
                fe_error(ctx, LOOM_STATUS_SHAPE_MISMATCH,
                         "tensordot: shape-mismatch for sum: shapes %s and %s, axis %d of a "
                         "(%lld) != axis %d of b (%lld)",
                         sa, sb, why->a_axis, (long long)a->shape[why->a_axis], why->b_axis,
                         (long long)b->shape[why->b_axis]);
            return;
        case IR_MATMUL_BATCH:
            batch_message(ctx, a, b);
            return;
        case IR_MATMUL_TOO_MANY:
            fe_error(ctx, LOOM_STATUS_SHAPE_MISMATCH,
                     "%s: the result of shapes %s and %s would have more than %d axes", fn, sa, sb,
                     LOOM_MAX_DIMS);
            return;
        default:
            fe_error(ctx, LOOM_STATUS_INTERNAL, "%s: unknown contraction mode %lld", fn,
                     (long long)mode);
    }
}

/* A weak scalar made strong, as np.dot and np.tensordot see a Python number (np.asarray). */
static loom_array_t *strong(loom_ctx_t *ctx, loom_array_t *a) {
    return (a->flags & FE_WEAK) ? loom_astype(ctx, a, (loom_dtype_t)a->dtype) : a;
}

/* The MATMUL node of mode for checked, strong a and b (fn names the API call in messages). */
static loom_array_t *contract(loom_ctx_t *ctx, const char *fn, int64_t mode, loom_array_t *a,
                              loom_array_t *b) {
    int nd;
    int64_t shape[LOOM_MAX_DIMS];
    ir_matmul_why_t why;
    if (!ir_matmul_shape(mode, a->ndim, a->shape, b->ndim, b->shape, &nd, shape, &why)) {
        shape_error(ctx, fn, mode, a, b, &why);
        return &ctx->nil;
    }
    int d = fe_promote(ctx, fn, (loom_dtype_t)a->dtype, (loom_dtype_t)b->dtype);
    if (d < 0) return &ctx->nil;
    if (!fe_check_shape(ctx, fn, nd, shape, NULL)) return &ctx->nil;
    loom_array_t *ops[2] = {a->dtype == d ? a : loom_astype(ctx, a, (loom_dtype_t)d),
                            b->dtype == d ? b : loom_astype(ctx, b, (loom_dtype_t)d)};
    if ((ops[0]->flags & FE_NIL) || (ops[1]->flags & FE_NIL)) return &ctx->nil;
    ir_params_t p = {0};
    p.k = mode; /* matmul, N-D dot or tensordot */
    return fe_shaped(ctx, IR_OP_MATMUL, (loom_dtype_t)d, nd, shape, 2, ops, &p);
}

LOOM_API loom_array_t *loom_matmul(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "matmul", a) || !fe_check_arg(ctx, "matmul", b)) return &ctx->nil;
    return contract(ctx, "matmul", IR_MATMUL_MATMUL, a, b); /* weak scalars are 0-d: refused */
}

/* np.matvec and np.vecmat (NumPy 2.2's gufuncs (m,n),(n)->(m) and (n),(n,m)->(m)): matmul with
 * the vector as a one-column (one-row) matrix; vecmat conjugates the vector, as vecdot does. */
static bool core_dims(loom_ctx_t *ctx, const char *fn, const char *sig, int op,
                      const loom_array_t *a, int32_t need) {
    if (a->ndim >= need) return true;
    fe_error(ctx, LOOM_STATUS_SHAPE_MISMATCH,
             "%s: Input operand %d does not have enough dimensions (has %d, gufunc core with "
             "signature %s requires %d)",
             fn, op, a->ndim, sig, need);
    return false;
}

LOOM_API loom_array_t *loom_matvec(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *v) {
    const char *fn = "matvec", *sig = "(m,n),(n)->(m)";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a) || !fe_check_arg(ctx, fn, v)) return &ctx->nil;
    if (!core_dims(ctx, fn, sig, 0, a, 2) || !core_dims(ctx, fn, sig, 1, v, 1)) return &ctx->nil;
    int32_t last = -1;
    return loom_squeeze(ctx, loom_matmul(ctx, a, loom_expand_dims(ctx, v, 1, &last)), 1, &last);
}

LOOM_API loom_array_t *loom_vecmat(loom_ctx_t *ctx, loom_array_t *v, loom_array_t *a) {
    const char *fn = "vecmat", *sig = "(n),(n,m)->(m)";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, v) || !fe_check_arg(ctx, fn, a)) return &ctx->nil;
    if (!core_dims(ctx, fn, sig, 0, v, 1) || !core_dims(ctx, fn, sig, 1, a, 2)) return &ctx->nil;
    int32_t row = -2;
    return loom_squeeze(ctx, loom_matmul(ctx, loom_expand_dims(ctx, fe_conj(ctx, v), 1, &row), a),
                        1, &row);
}

LOOM_API loom_array_t *loom_dot(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "dot", a) || !fe_check_arg(ctx, "dot", b)) return &ctx->nil;
    a = strong(ctx, a);
    b = strong(ctx, b);
    if ((a->flags & FE_NIL) || (b->flags & FE_NIL)) return &ctx->nil;
    if (a->ndim == 0 || b->ndim == 0) return loom_multiply(ctx, a, b);
    bool as_matmul = a->ndim == 1 || b->ndim <= 2;
    return contract(ctx, "dot", as_matmul ? IR_MATMUL_MATMUL : IR_MATMUL_DOT, a, b);
}

LOOM_API loom_array_t *loom_tensordot(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b,
                                      int32_t naxes) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "tensordot", a) || !fe_check_arg(ctx, "tensordot", b)) return &ctx->nil;
    if (naxes < 0 || naxes > LOOM_MAX_DIMS) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "tensordot: naxes %d out of range (0 to %d)",
                 naxes, LOOM_MAX_DIMS);
        return &ctx->nil;
    }
    a = strong(ctx, a);
    b = strong(ctx, b);
    if ((a->flags & FE_NIL) || (b->flags & FE_NIL)) return &ctx->nil;
    return contract(ctx, "tensordot", IR_MATMUL_TENSORDOT + naxes, a, b);
}

LOOM_API loom_array_t *loom_tensordot_axes(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b,
                                           int32_t naxes, const int32_t *axes_a,
                                           const int32_t *axes_b) {
    const char *fn = "tensordot";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a) || !fe_check_arg(ctx, fn, b)) return &ctx->nil;
    if (naxes < 0 || naxes > a->ndim || naxes > b->ndim || (naxes && (!axes_a || !axes_b))) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: %d axes for arrays of %d and %d dimensions",
                 fn, (int)naxes, (int)a->ndim, (int)b->ndim);
        return &ctx->nil;
    }
    /* a with its summed axes last (in the given order), b with them first: the plain form */
    int32_t pa[LOOM_MAX_DIMS], pb[LOOM_MAX_DIMS], na = 0, nb = naxes;
    bool used_a[LOOM_MAX_DIMS] = {false}, used_b[LOOM_MAX_DIMS] = {false};
    for (int32_t k = 0; k < naxes; k++) {
        int32_t x, y;
        if (!fe_axis(ctx, fn, axes_a[k], a->ndim, &x) || !fe_axis(ctx, fn, axes_b[k], b->ndim, &y))
            return &ctx->nil;
        if (used_a[x] || used_b[y]) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: repeated axis in the summed axes", fn);
            return &ctx->nil;
        }
        if (a->shape[x] != b->shape[y]) {
            fe_error(ctx, LOOM_STATUS_SHAPE_MISMATCH, "%s: shape-mismatch for sum (%lld and %lld)",
                     fn, (long long)a->shape[x], (long long)b->shape[y]);
            return &ctx->nil;
        }
        used_a[x] = used_b[y] = true;
        pa[a->ndim - naxes + k] = x;
        pb[k] = y;
    }
    for (int32_t i = 0; i < a->ndim; i++)
        if (!used_a[i]) pa[na++] = i;
    for (int32_t i = 0; i < b->ndim; i++)
        if (!used_b[i]) pb[nb++] = i;
    return loom_tensordot(ctx, loom_transpose(ctx, a, a->ndim, pa), loom_transpose(ctx, b, b->ndim, pb),
                          naxes);
}
