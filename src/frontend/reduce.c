/* reduce.c — reductions (sum, prod, max, min, argmax, argmin, any, all), the ones composed from
 * them (mean, var, std) and scans (cumsum, cumprod), with NumPy 2's axis rules, result dtypes
 * and empty-reduction errors. The operand is cast to the dtype the IR op computes in first
 * (sum of int8 → CAST to int64 → SUM), so every REDUCE/SCAN node's operand has its dtype. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fe.h"

/* The axes a reduction names, as a bit set over a's axes. */
static bool reduce_axes(loom_ctx_t *ctx, const char *fn, const loom_array_t *a, int32_t naxes,
                        const int32_t *axes, uint32_t *set) {
    if (naxes < 0 || !axes) {
        *set = a->ndim ? (uint32_t)((1ull << a->ndim) - 1) : 0;
        return true;
    }
    if (naxes > LOOM_MAX_DIMS) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: %d axes is more than %d", fn, naxes,
                 LOOM_MAX_DIMS);
        return false;
    }
    *set = 0;
    for (int32_t i = 0; i < naxes; i++) {
        int32_t ax;
        if (!fe_axis(ctx, fn, axes[i], a->ndim, &ax)) return false;
        if (*set & (1u << ax)) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                     "%s: duplicate value in 'axis' (axis %d is given twice)", fn, axes[i]);
            return false;
        }
        *set |= 1u << ax;
    }
    return true;
}

/* How many elements each output of a reduction over set combines. */
static int64_t reduced_count(const loom_array_t *a, uint32_t set) {
    int64_t n = 1;
    for (int ax = 0; ax < a->ndim; ax++)
        if ((set >> ax) & 1u) n *= a->shape[ax];
    return n;
}

/* NumPy's sum/prod/cumsum dtype: bool and small ints widen to the platform integer. */
static loom_dtype_t sum_dtype(loom_dtype_t d) {
    switch (ir_dtypes[d].kind) {
        case IR_DKIND_BOOL:
        case IR_DKIND_INT:
            return LOOM_DTYPE_I64;
        case IR_DKIND_UINT:
            return LOOM_DTYPE_U64;
        default:
            return d;
    }
}

/* The REDUCE node op over set of x (already in the computing dtype), result dtype out. */
static loom_array_t *reduce_node(loom_ctx_t *ctx, ir_op_t op, loom_array_t *x, uint32_t set,
                                 bool keepdims, loom_dtype_t out) {
    if (x->flags & FE_NIL) return &ctx->nil;
    int64_t shape[LOOM_MAX_DIMS];
    int32_t nd = 0;
    for (int ax = 0; ax < x->ndim; ax++) {
        bool red = (set >> ax) & 1u;
        if (red && !keepdims) continue;
        shape[nd++] = red ? 1 : x->shape[ax];
    }
    ir_params_t p = {0};
    p.axes = set;
    p.keepdims = keepdims;
    return fe_shaped(ctx, op, out, nd, shape, 1, &x, &p);
}

/* Checks a and its axes; false (error recorded, or a nil argument) otherwise. */
static bool prepare(loom_ctx_t *ctx, const char *fn, loom_array_t *a, int32_t naxes,
                    const int32_t *axes, uint32_t *set) {
    return fe_check_arg(ctx, fn, a) && reduce_axes(ctx, fn, a, naxes, axes, set);
}

/* prepare for NumPy's ufunc reductions, argmax and argmin, which take axis 0 or -1 of a 0-d
 * array as the whole array (mean, var and std do not). The C API cannot tell axis=0 from
 * axis=(0,), which NumPy refuses; the expression language refuses that tuple itself. */
static bool prepare_ufunc(loom_ctx_t *ctx, const char *fn, loom_array_t *a, int32_t naxes,
                          const int32_t *axes, uint32_t *set) {
    if (!fe_check_arg(ctx, fn, a)) return false;
    if (a->ndim == 0 && naxes == 1 && axes && (axes[0] == 0 || axes[0] == -1)) naxes = 0;
    return reduce_axes(ctx, fn, a, naxes, axes, set);
}

static loom_array_t *sum_like(loom_ctx_t *ctx, const char *fn, ir_op_t op, loom_array_t *a,
                              int32_t naxes, const int32_t *axes, int keepdims) {
    if (!ctx) return NULL;
    uint32_t set;
    if (!prepare_ufunc(ctx, fn, a, naxes, axes, &set)) return &ctx->nil;
    loom_dtype_t d = sum_dtype((loom_dtype_t)a->dtype);
    return reduce_node(ctx, op, loom_astype(ctx, a, d), set, keepdims != 0, d);
}

LOOM_API loom_array_t *loom_sum(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                const int32_t *axes, int keepdims) {
    return sum_like(ctx, "sum", IR_OP_SUM, a, naxes, axes, keepdims);
}

LOOM_API loom_array_t *loom_prod(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                 const int32_t *axes, int keepdims) {
    return sum_like(ctx, "prod", IR_OP_PROD, a, naxes, axes, keepdims);
}

/* max, min, argmax, argmin: no identity, so an empty reduction is NumPy's ValueError. */
static loom_array_t *extreme(loom_ctx_t *ctx, const char *fn, ir_op_t op, loom_array_t *a,
                             int32_t naxes, const int32_t *axes, int keepdims) {
    if (!ctx) return NULL;
    uint32_t set;
    if (!prepare_ufunc(ctx, fn, a, naxes, axes, &set)) return &ctx->nil;
    bool arg = op == IR_OP_ARGMAX || op == IR_OP_ARGMIN;
    if (arg && axes && naxes > 1) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: takes one axis or all of them (NumPy's axis=None), not %d axes", fn, naxes);
        return &ctx->nil;
    }
    if (reduced_count(a, set) == 0) {
        if (arg)
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                     "%s: attempt to get %s of an empty sequence", fn, fn);
        else
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                     "%s: zero-size array to reduction operation %s which has no identity", fn,
                     op == IR_OP_MAX ? "maximum" : "minimum");
        return &ctx->nil;
    }
    return reduce_node(ctx, op, a, set, keepdims != 0,
                       arg ? LOOM_DTYPE_I64 : (loom_dtype_t)a->dtype);
}

LOOM_API loom_array_t *loom_max(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                const int32_t *axes, int keepdims) {
    return extreme(ctx, "max", IR_OP_MAX, a, naxes, axes, keepdims);
}

LOOM_API loom_array_t *loom_min(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                const int32_t *axes, int keepdims) {
    return extreme(ctx, "min", IR_OP_MIN, a, naxes, axes, keepdims);
}

LOOM_API loom_array_t *loom_argmax(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                   const int32_t *axes, int keepdims) {
    return extreme(ctx, "argmax", IR_OP_ARGMAX, a, naxes, axes, keepdims);
}

LOOM_API loom_array_t *loom_argmin(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                   const int32_t *axes, int keepdims) {
    return extreme(ctx, "argmin", IR_OP_ARGMIN, a, naxes, axes, keepdims);
}

static loom_array_t *logical(loom_ctx_t *ctx, const char *fn, ir_op_t op, loom_array_t *a,
                             int32_t naxes, const int32_t *axes, int keepdims) {
    if (!ctx) return NULL;
    uint32_t set;
    if (!prepare_ufunc(ctx, fn, a, naxes, axes, &set)) return &ctx->nil;
    return reduce_node(ctx, op, loom_astype(ctx, a, LOOM_DTYPE_BOOL), set, keepdims != 0,
                       LOOM_DTYPE_BOOL);
}

LOOM_API loom_array_t *loom_any(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                const int32_t *axes, int keepdims) {
    return logical(ctx, "any", IR_OP_ANY, a, naxes, axes, keepdims);
}

LOOM_API loom_array_t *loom_all(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                const int32_t *axes, int keepdims) {
    return logical(ctx, "all", IR_OP_ALL, a, naxes, axes, keepdims);
}

/* mean/var/std: the dtype they accumulate in (NumPy: float64 for ints and bool, float32 for
 * float16; bfloat16 like float16) and the dtype of their result. */
static loom_dtype_t mean_acc(loom_dtype_t d) {
    if (ir_is_complex(d)) return d;
    if (!ir_is_float(d)) return LOOM_DTYPE_F64;
    return d == LOOM_DTYPE_F16 || d == LOOM_DTYPE_BF16 ? LOOM_DTYPE_F32 : d;
}
static loom_dtype_t mean_out(loom_dtype_t d) {
    return ir_is_float(d) || ir_is_complex(d) ? d : LOOM_DTYPE_F64;
}

/* sum(x) / divisor, divided in float64 or complex128 (as NumPy's true_divide of the sum by
 * the intp count) and cast to dtype out. */
static loom_array_t *sum_over(loom_ctx_t *ctx, loom_array_t *x, uint32_t set, bool keepdims,
                              double divisor, loom_dtype_t out) {
    loom_array_t *s = reduce_node(ctx, IR_OP_SUM, x, set, keepdims, (loom_dtype_t)x->dtype);
    loom_dtype_t wide = ir_is_complex((loom_dtype_t)x->dtype) ? LOOM_DTYPE_C128 : LOOM_DTYPE_F64;
    loom_array_t *q = loom_true_divide_f(ctx, loom_astype(ctx, s, wide), divisor);
    return loom_astype(ctx, q, out);
}

LOOM_API loom_array_t *loom_mean(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                 const int32_t *axes, int keepdims) {
    if (!ctx) return NULL;
    uint32_t set;
    if (!prepare(ctx, "mean", a, naxes, axes, &set)) return &ctx->nil;
    loom_dtype_t d = (loom_dtype_t)a->dtype;
    loom_array_t *x = loom_astype(ctx, a, mean_acc(d));
    return sum_over(ctx, x, set, keepdims != 0, (double)reduced_count(a, set), mean_out(d));
}

static loom_array_t *variance(loom_ctx_t *ctx, const char *fn, loom_array_t *a, int32_t naxes,
                              const int32_t *axes, int keepdims, double ddof, bool root) {
    if (!ctx) return NULL;
    uint32_t set;
    if (!prepare(ctx, fn, a, naxes, axes, &set)) return &ctx->nil;
    if (isnan(ddof)) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: ddof is NaN", fn);
        return &ctx->nil;
    }
    loom_dtype_t d = (loom_dtype_t)a->dtype, acc = mean_acc(d);
    double n = (double)reduced_count(a, set);
    loom_array_t *x = loom_astype(ctx, a, acc);
    loom_array_t *m = sum_over(ctx, x, set, true, n, acc); /* the mean, broadcastable */
    loom_array_t *dev = loom_subtract(ctx, x, m);
    double div = n - ddof > 0 ? n - ddof : 0;
    loom_array_t *v =
        sum_over(ctx, fe_abs2(ctx, dev), set, keepdims != 0, div, ir_real_dtype(mean_out(d)));
    return root ? loom_sqrt(ctx, v) : v;
}

LOOM_API loom_array_t *loom_var(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                const int32_t *axes, int keepdims, double ddof) {
    return variance(ctx, "var", a, naxes, axes, keepdims, ddof, false);
}

LOOM_API loom_array_t *loom_std(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                const int32_t *axes, int keepdims, double ddof) {
    return variance(ctx, "std", a, naxes, axes, keepdims, ddof, true);
}

static loom_array_t *scan(loom_ctx_t *ctx, const char *fn, ir_op_t op, loom_array_t *a,
                          int32_t axis) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a)) return &ctx->nil;
    int32_t ax;
    if (a->ndim == 0 && (axis == 0 || axis == -1)) axis = LOOM_AXIS_NONE; /* NumPy: shape (1,) */
    if (!fe_axis_or_flat(ctx, fn, &a, axis, &ax)) return &ctx->nil;
    loom_dtype_t d = sum_dtype((loom_dtype_t)a->dtype);
    loom_array_t *x = loom_astype(ctx, a, d);
    if (x->flags & FE_NIL) return x;
    ir_params_t p = {0};
    p.axis = ax;
    return fe_shaped(ctx, op, d, x->ndim, x->shape, 1, &x, &p);
}

LOOM_API loom_array_t *loom_cumsum(loom_ctx_t *ctx, loom_array_t *a, int32_t axis) {
    return scan(ctx, "cumsum", IR_OP_CUMSUM, a, axis);
}

LOOM_API loom_array_t *loom_cumprod(loom_ctx_t *ctx, loom_array_t *a, int32_t axis) {
    return scan(ctx, "cumprod", IR_OP_CUMPROD, a, axis);
}
