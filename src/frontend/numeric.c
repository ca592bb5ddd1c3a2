/* numeric.c — NumPy's numeric functions that are compositions of loom's ops: frexp, modf and
 * divmod (two results each), ldexp, float_power, round with decimals, fix, isposinf and
 * isneginf; nanargmax and nanargmin; unstack. Each result is a lazy array like any other, so
 * the pieces fuse with their producers and consumers. */
#include <math.h>
#include <string.h>

#include "fe.h"

/* The float dtype NumPy's float-only ufuncs compute an operand of dtype d in: d itself, or the
 * first float loop d casts to safely (int8 -> float16, int16 -> float32, int32 -> float64). */
static loom_dtype_t float_loop(loom_dtype_t d) {
    static const loom_dtype_t order[] = {LOOM_DTYPE_F16, LOOM_DTYPE_BF16, LOOM_DTYPE_F32,
                                         LOOM_DTYPE_F64};
    if (ir_is_float(d)) return d;
    for (size_t i = 0; i < BASE_ARRAY_LEN(order); i++)
        if (ir_can_cast_safe(d, order[i])) return order[i];
    return LOOM_DTYPE_F64;
}

/* Hands out two results (both or neither: nil ones are released). */
static loom_status_t two_out(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b,
                             loom_array_t **out_a, loom_array_t **out_b) {
    if ((a->flags | b->flags) & FE_NIL) return ctx->err.status ? ctx->err.status : LOOM_STATUS_INTERNAL;
    *out_a = a;
    *out_b = b;
    return ctx->err.status; /* an earlier error stays the context's status */
}

static bool outs_ok(loom_ctx_t *ctx, const char *fn, loom_array_t **a, loom_array_t **b) {
    if (a && b) return true;
    fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: both result pointers are required", fn);
    return false;
}

/* ldexp over a float operand and an exponent already clamped to +-2200 (int64), in the float
 * dtype d; bfloat16 computes in float32, as ml_dtypes does, since it cannot hold every such
 * exponent exactly. */
static loom_array_t *ldexp_in(loom_ctx_t *ctx, loom_array_t *x, loom_array_t *n, loom_dtype_t d) {
    loom_dtype_t c = d == LOOM_DTYPE_BF16 ? LOOM_DTYPE_F32 : d;
    loom_array_t *ops[2] = {loom_astype(ctx, x, c), loom_astype(ctx, n, c)};
    loom_array_t *r = fe_elementwise(ctx, IR_OP_LDEXP, 2, ops);
    return c == d ? r : loom_astype(ctx, r, d);
}

LOOM_API loom_array_t *loom_ldexp(loom_ctx_t *ctx, loom_array_t *x, loom_array_t *n) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "ldexp", x) || !fe_check_arg(ctx, "ldexp", n)) return &ctx->nil;
    loom_dtype_t nd = (loom_dtype_t)n->dtype;
    if (ir_is_float(nd) || nd == LOOM_DTYPE_U64) {
        fe_error(ctx, LOOM_STATUS_DTYPE_ERROR,
                 "ldexp: ufunc 'ldexp' not supported for the input types (%s, %s): the exponent "
                 "must be an integer array that casts safely to int64",
                 ir_dtypes[x->dtype].name, ir_dtypes[nd].name);
        return &ctx->nil;
    }
    /* NumPy's loops are (e, i/l), (f, i/l), (d, i/l): a Python int or bool x beside an integer
     * array yields to it and takes float16's (NEP 50); a Python float x is float64. */
    bool weak_int = (x->flags & FE_WEAK) && x->weak_kind != FE_WEAK_FLOAT;
    loom_dtype_t d = !(x->flags & FE_WEAK)            ? float_loop((loom_dtype_t)x->dtype)
                     : weak_int && !(n->flags & FE_WEAK) ? LOOM_DTYPE_F16
                                                        : LOOM_DTYPE_F64;
    loom_array_t *lim[3] = {loom_astype(ctx, n, LOOM_DTYPE_I64), loom_weak_int(ctx, -2200),
                            loom_weak_int(ctx, 2200)};
    loom_array_t *k = loom_clip(ctx, lim[0], lim[1], lim[2]);
    return ldexp_in(ctx, x, k, d);
}

LOOM_API loom_status_t loom_frexp(loom_ctx_t *ctx, loom_array_t *x, loom_array_t **mantissa,
                                  loom_array_t **exponent) {
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    if (!fe_check_input(ctx, "frexp", x) || !outs_ok(ctx, "frexp", mantissa, exponent))
        return ctx->err.status;
    loom_array_t *e = fe_elementwise(ctx, IR_OP_FREXP_EXPONENT, 1, &x);
    if (e->flags & FE_NIL) return ctx->err.status;
    loom_dtype_t d = (loom_dtype_t)e->dtype;
    loom_array_t *m = ldexp_in(ctx, x, loom_negative(ctx, loom_astype(ctx, e, LOOM_DTYPE_I64)), d);
    return two_out(ctx, m, loom_astype(ctx, e, LOOM_DTYPE_I32), mantissa, exponent);
}

LOOM_API loom_status_t loom_modf(loom_ctx_t *ctx, loom_array_t *x, loom_array_t **fractional,
                                 loom_array_t **integral) {
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    if (!fe_check_input(ctx, "modf", x) || !outs_ok(ctx, "modf", fractional, integral))
        return ctx->err.status;
    loom_array_t *xf = loom_astype(ctx, x, float_loop((loom_dtype_t)x->dtype));
    loom_array_t *ip = loom_trunc(ctx, xf);
    /* x - trunc(x) is exact; infinities have fraction 0; the fraction keeps x's sign */
    loom_array_t *fp = loom_copysign(
        ctx, loom_where(ctx, loom_isinf(ctx, xf), loom_weak_float(ctx, 0), loom_subtract(ctx, xf, ip)),
        xf);
    return two_out(ctx, fp, ip, fractional, integral);
}

LOOM_API loom_status_t loom_divmod(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b,
                                   loom_array_t **quotient, loom_array_t **remainder) {
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    if (!fe_check_input(ctx, "divmod", a) || !fe_check_input(ctx, "divmod", b) ||
        !outs_ok(ctx, "divmod", quotient, remainder))
        return ctx->err.status;
    return two_out(ctx, loom_floor_divide(ctx, a, b), loom_remainder(ctx, a, b), quotient,
                   remainder);
}

LOOM_API loom_array_t *loom_float_power(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "float_power", a) || !fe_check_arg(ctx, "float_power", b))
        return &ctx->nil;
    return loom_power(ctx, loom_astype(ctx, a, LOOM_DTYPE_F64), loom_astype(ctx, b, LOOM_DTYPE_F64));
}

/* NumPy's power_of_ten: exact table to 1e8, then repeated multiplication by 10 (so 1e23 and
 * above carry NumPy's rounding, not pow's). */
static double power_of_ten(int n) {
    static const double p10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8};
    if (n < 9) return p10[n];
    double r = 1e9;
    while (n-- > 9) r *= 10.;
    return r;
}

LOOM_API loom_array_t *loom_round(loom_ctx_t *ctx, loom_array_t *a, int32_t decimals) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "round", a)) return &ctx->nil;
    loom_dtype_t d = (loom_dtype_t)a->dtype;
    bool flt = ir_is_float(d);
    if (decimals == 0 && (flt || d == LOOM_DTYPE_BOOL)) return loom_rint(ctx, a); /* bool: f16 */
    if (d == LOOM_DTYPE_BOOL) {
        fe_error(ctx, LOOM_STATUS_DTYPE_ERROR,
                 "round: not supported for bool with decimals=%d (NumPy cannot cast the "
                 "float64 quotient back to bool)",
                 (int)decimals);
        return &ctx->nil;
    }
    if (decimals >= 0 && !flt) return loom_astype(ctx, a, d); /* integers: already round */
    int64_t mag = decimals < 0 ? -(int64_t)decimals : decimals;
    double f = power_of_ten(mag > 400 ? 400 : (int)mag); /* 1e309 and up: inf, as NumPy's */
    loom_array_t *r;
    if (decimals > 0)
        r = loom_true_divide_f(ctx, loom_rint(ctx, loom_multiply_f(ctx, a, f)), f);
    else
        r = loom_multiply_f(ctx, loom_rint(ctx, loom_true_divide_f(ctx, a, f)), f);
    return flt ? r : loom_astype(ctx, r, d); /* integers: through float64, cast back */
}

LOOM_API loom_array_t *loom_fix(loom_ctx_t *ctx, loom_array_t *a) { return loom_trunc(ctx, a); }

static loom_array_t *is_signed_inf(loom_ctx_t *ctx, const char *fn, loom_array_t *a, bool neg) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a)) return &ctx->nil;
    loom_array_t *s = loom_signbit(ctx, a);
    return loom_logical_and(ctx, loom_isinf(ctx, a), neg ? s : loom_logical_not(ctx, s));
}

LOOM_API loom_array_t *loom_isposinf(loom_ctx_t *ctx, loom_array_t *a) {
    return is_signed_inf(ctx, "isposinf", a, false);
}

LOOM_API loom_array_t *loom_isneginf(loom_ctx_t *ctx, loom_array_t *a) {
    return is_signed_inf(ctx, "isneginf", a, true);
}

/* nanargmax / nanargmin: NaN elements become -inf / +inf, then argmax / argmin; a slice that is
 * all NaN is NumPy's ValueError, found by evaluating that condition now (a sync, as NumPy's
 * check is). Integer and bool arrays have no NaN: the plain functions. */
static loom_array_t *nan_arg(loom_ctx_t *ctx, const char *fn, bool max, loom_array_t *a,
                             int32_t naxes, const int32_t *axes, int keepdims) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a)) return &ctx->nil;
    loom_array_t *(*arg)(loom_ctx_t *, loom_array_t *, int32_t, const int32_t *, int) =
        max ? loom_argmax : loom_argmin;
    if (!ir_is_float((loom_dtype_t)a->dtype) || fe_size(a) == 0)
        return arg(ctx, a, naxes, axes, keepdims);
    loom_array_t *nan = loom_isnan(ctx, a);
    uint8_t bad = 0;
    loom_scope_begin(ctx);
    loom_array_t *any = loom_any(ctx, loom_all(ctx, nan, naxes, axes, 0), -1, NULL, 0);
    loom_status_t st = loom_eval(ctx, 1, &any);
    if (st == LOOM_STATUS_OK) st = loom_read(ctx, any, &bad, 1);
    loom_scope_end(ctx);
    if (st != LOOM_STATUS_OK) return &ctx->nil;
    if (bad) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: All-NaN slice encountered", fn);
        return &ctx->nil;
    }
    loom_array_t *fill = loom_astype(ctx, loom_weak_float(ctx, max ? -INFINITY : INFINITY),
                                     (loom_dtype_t)a->dtype);
    return arg(ctx, loom_where(ctx, nan, fill, a), naxes, axes, keepdims);
}

LOOM_API loom_array_t *loom_nanargmax(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                      const int32_t *axes, int keepdims) {
    return nan_arg(ctx, "nanargmax", true, a, naxes, axes, keepdims);
}

LOOM_API loom_array_t *loom_nanargmin(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                      const int32_t *axes, int keepdims) {
    return nan_arg(ctx, "nanargmin", false, a, naxes, axes, keepdims);
}

LOOM_API loom_status_t loom_unstack(loom_ctx_t *ctx, loom_array_t *a, int32_t axis,
                                    loom_array_t **out) {
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    if (!fe_check_input(ctx, "unstack", a)) return ctx->err.status;
    int32_t ax;
    if (a->ndim == 0) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "unstack: Input must be at least 1-d.");
        return ctx->err.status;
    }
    if (!fe_axis(ctx, "unstack", axis, a->ndim, &ax)) return ctx->err.status;
    if (!out) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "unstack: out is NULL");
        return ctx->err.status;
    }
    int64_t n = a->shape[ax], starts[LOOM_MAX_DIMS], stops[LOOM_MAX_DIMS];
    for (int32_t i = 0; i < a->ndim; i++) starts[i] = stops[i] = LOOM_NONE;
    for (int64_t i = 0; i < n; i++) {
        starts[ax] = i;
        stops[ax] = i + 1;
        out[i] = loom_squeeze(ctx, loom_slice(ctx, a, a->ndim, starts, stops, NULL), 1, &ax);
    }
    return ctx->err.status;
}
