/* numeric.c — NumPy's numeric functions that are compositions of loom's ops: frexp, modf and
 * divmod (two results each), ldexp, float_power, round with decimals, fix, isposinf and
 * isneginf; unstack; interp, digitize, trapezoid, polyval, vander, select, vdot. Each result is
 * a lazy array like any other, so the pieces fuse with their producers and consumers. */
#include <math.h>
#include <string.h>

#include "fe.h"

/* The float dtype NumPy's float-only ufuncs compute an operand of dtype d in: d itself, or the
 * first float loop d casts to safely (int8 -> float16, int16 -> float32, int32 -> float64). */
static loom_dtype_t float_loop(loom_dtype_t d) {
    static const loom_dtype_t order[] = {LOOM_DTYPE_F16, LOOM_DTYPE_BF16, LOOM_DTYPE_F32,
                                         LOOM_DTYPE_F64};
    if (ir_is_float(d) || ir_is_complex(d)) return d; /* complex: the op refuses it */
    for (size_t i = 0; i < BASE_ARRAY_LEN(order); i++)
        if (ir_can_cast_safe(d, order[i])) return order[i];
    return LOOM_DTYPE_F64;
}

/* Hands out two results (both or neither: nil ones are released). */
static loom_status_t two_out(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b,
                             loom_array_t **out_a, loom_array_t **out_b) {
    if ((a->flags | b->flags) & FE_NIL)
        return ctx->err.status ? ctx->err.status : LOOM_STATUS_INTERNAL;
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
    if (ir_is_float(nd) || ir_is_complex(nd) || nd == LOOM_DTYPE_U64) {
        fe_error(ctx, LOOM_STATUS_DTYPE_ERROR,
                 "ldexp: ufunc 'ldexp' not supported for the input types (%s, %s): the exponent "
                 "must be an integer array that casts safely to int64",
                 ir_dtypes[x->dtype].name, ir_dtypes[nd].name);
        return &ctx->nil;
    }
    /* NumPy's loops are (e, i/l), (f, i/l), (d, i/l): a Python int or bool x beside an integer
     * array yields to it and takes float16's (NEP 50); a Python float x is float64. */
    bool weak_int = (x->flags & FE_WEAK) && x->weak_kind != FE_WEAK_FLOAT;
    /* (a bool exponent array gives the Python int no integer to yield to: int64, float64) */
    bool int_n = !(n->flags & FE_WEAK) && n->dtype != LOOM_DTYPE_BOOL;
    bool weak_bool = (x->flags & FE_WEAK) && x->weak_kind == FE_WEAK_BOOL; /* np.bool_: 'e' */
    loom_dtype_t d = !(x->flags & FE_WEAK)       ? float_loop((loom_dtype_t)x->dtype)
                     : weak_bool                 ? LOOM_DTYPE_F16
                     : weak_int && int_n         ? LOOM_DTYPE_F16
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
        ctx,
        loom_where(ctx, loom_isinf(ctx, xf), loom_weak_float(ctx, 0), loom_subtract(ctx, xf, ip)),
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
    /* NumPy's loops are float64 and complex128 */
    loom_dtype_t d = ir_is_complex((loom_dtype_t)a->dtype) || ir_is_complex((loom_dtype_t)b->dtype)
                         ? LOOM_DTYPE_C128
                         : LOOM_DTYPE_F64;
    return loom_power(ctx, loom_astype(ctx, a, d), loom_astype(ctx, b, d));
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
    if (ir_is_complex(d)) /* each part on its own, as NumPy's */
        return loom_complex(ctx, loom_round(ctx, loom_real(ctx, a), decimals),
                            loom_round(ctx, loom_imag(ctx, a), decimals));
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
    for (int64_t i = 0; i < a->shape[ax]; i++) out[i] = fe_index_axis(ctx, a, ax, i);
    return ctx->err.status;
}

/* ---- interp, digitize, trapezoid, polyval, vander, select, vdot ---- */

/* x as float64, for the functions NumPy computes in double. */
static loom_array_t *f64(loom_ctx_t *ctx, loom_array_t *x) {
    return loom_astype(ctx, x, LOOM_DTYPE_F64);
}

LOOM_API loom_array_t *loom_interp(loom_ctx_t *ctx, loom_array_t *x, loom_array_t *xp,
                                   loom_array_t *fp, loom_array_t *left, loom_array_t *right,
                                   double period) {
    const char *fn = "interp";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, x) || !fe_check_arg(ctx, fn, xp) || !fe_check_arg(ctx, fn, fp) ||
        (left && !fe_check_arg(ctx, fn, left)) || (right && !fe_check_arg(ctx, fn, right)))
        return &ctx->nil;
    if (xp->ndim != 1 || fp->ndim != 1 || xp->shape[0] != fp->shape[0]) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: fp and xp are not of the same length (1-D, %lld and %lld)", fn,
                 (long long)(fp->ndim ? fp->shape[0] : 1),
                 (long long)(xp->ndim ? xp->shape[0] : 1));
        return &ctx->nil;
    }
    int64_t n = xp->shape[0];
    if (n == 0) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: array of sample points is empty", fn);
        return &ctx->nil;
    }
    if (ir_is_complex((loom_dtype_t)x->dtype) || ir_is_complex((loom_dtype_t)xp->dtype)) {
        fe_error(ctx, LOOM_STATUS_DTYPE_ERROR, "%s: Cannot cast %s to float64 (x and xp are real)",
                 fn, ir_dtypes[ir_is_complex((loom_dtype_t)x->dtype) ? x->dtype : xp->dtype].name);
        return &ctx->nil;
    }
    if (ir_is_complex((loom_dtype_t)fp->dtype)) { /* NumPy interpolates both parts */
        loom_array_t *l[2] = {left, right}, *li[2] = {left, right};
        for (int k = 0; k < 2; k++)
            if (l[k]) l[k] = loom_real(ctx, l[k]), li[k] = loom_imag(ctx, li[k]);
        return loom_complex(ctx, loom_interp(ctx, x, xp, loom_real(ctx, fp), l[0], l[1], period),
                            loom_interp(ctx, x, xp, loom_imag(ctx, fp), li[0], li[1], period));
    }
    loom_array_t *xd = f64(ctx, x), *xpd = f64(ctx, xp), *fpd = f64(ctx, fp);
    if (period == period) { /* NumPy: x and xp modulo the period, xp sorted, one period padded */
        if (period == 0) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: period must be a non-zero value", fn);
            return &ctx->nil;
        }
        period = period < 0 ? -period : period;
        xd = loom_remainder_f(ctx, xd, period);
        xpd = loom_remainder_f(ctx, xpd, period);
        loom_array_t *order = loom_argsort(ctx, xpd, 0);
        xpd = loom_take(ctx, xpd, order, 0, LOOM_TAKE_RAISE);
        fpd = loom_take(ctx, fpd, order, 0, LOOM_TAKE_RAISE);
        int64_t a0[1] = {n - 1}, b0[1] = {n}, a1[1] = {0}, b1[1] = {1};
        loom_array_t *xs[3] = {loom_subtract_f(ctx, loom_slice(ctx, xpd, 1, a0, b0, NULL), period),
                               xpd, loom_add_f(ctx, loom_slice(ctx, xpd, 1, a1, b1, NULL), period)};
        loom_array_t *fs[3] = {loom_slice(ctx, fpd, 1, a0, b0, NULL), fpd,
                               loom_slice(ctx, fpd, 1, a1, b1, NULL)};
        xpd = loom_concatenate(ctx, 3, xs, 0);
        fpd = loom_concatenate(ctx, 3, fs, 0);
        n += 2;
        left = right = NULL;
    }
    loom_array_t *first = fe_index_axis(ctx, fpd, 0, 0), *last = fe_index_axis(ctx, fpd, 0, n - 1);
    loom_array_t *lval = left ? f64(ctx, left) : first, *rval = right ? f64(ctx, right) : last;
    loom_array_t *x0 = fe_index_axis(ctx, xpd, 0, 0), *xl = fe_index_axis(ctx, xpd, 0, n - 1), *r;
    if (n == 1) {
        r = first;
    } else {
        /* j: the last sample point <= x, clipped to an interval [j, j + 1] */
        loom_array_t *j = loom_subtract_i(ctx, loom_searchsorted(ctx, xpd, xd, 1, NULL), 1);
        loom_array_t *jc = loom_clip(ctx, j, loom_weak_int(ctx, 0), loom_weak_int(ctx, n - 2));
        loom_array_t *j1 = loom_add_i(ctx, jc, 1);
        loom_array_t *xa = loom_take(ctx, xpd, jc, 0, LOOM_TAKE_CLIP),
                     *xb = loom_take(ctx, xpd, j1, 0, LOOM_TAKE_CLIP);
        loom_array_t *ya = loom_take(ctx, fpd, jc, 0, LOOM_TAKE_CLIP),
                     *yb = loom_take(ctx, fpd, j1, 0, LOOM_TAKE_CLIP);
        loom_array_t *slope =
            loom_true_divide(ctx, loom_subtract(ctx, yb, ya), loom_subtract(ctx, xb, xa));
        /* NumPy: slope * (x - xp[j]) + fp[j]; on NaN from the other end; then fp[j] if flat */
        r = loom_add(ctx, loom_multiply(ctx, slope, loom_subtract(ctx, xd, xa)), ya);
        loom_array_t *r2 = loom_add(ctx, loom_multiply(ctx, slope, loom_subtract(ctx, xd, xb)), yb);
        r = loom_where(ctx, loom_isnan(ctx, r), r2, r);
        r = loom_where(ctx, loom_logical_and(ctx, loom_isnan(ctx, r), loom_equal(ctx, ya, yb)), ya,
                       r);
        r = loom_where(ctx, loom_equal(ctx, xa, xd), ya, r); /* at a sample point: its value */
        r = loom_where(ctx, loom_equal_i(ctx, j, n - 1), last, r);
    }
    r = loom_where(ctx, loom_greater(ctx, xd, xl), rval, r);
    r = loom_where(ctx, loom_less(ctx, xd, x0), lval, r);
    if (n > 1) /* NumPy's one-point case has no NaN rule: a NaN x gives fp[0] */
        r = loom_where(ctx, loom_isnan(ctx, xd), xd, r);
    return ctx->err.status ? &ctx->nil : r; /* float64 throughout */
}

LOOM_API loom_array_t *loom_digitize(loom_ctx_t *ctx, loom_array_t *x, loom_array_t *bins,
                                     int right) {
    const char *fn = "digitize";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, x) || !fe_check_arg(ctx, fn, bins)) return &ctx->nil;
    if (bins->ndim != 1) {
        fe_error(
            ctx, LOOM_STATUS_INVALID_ARGUMENT,
            "%s: object of too small depth for desired array (bins must be 1-D, %d dimensions)", fn,
            (int)bins->ndim);
        return &ctx->nil;
    }
    int64_t n = bins->shape[0];
    /* NumPy's check_array_monotonic (read now: one sync): past the run of values equal to
     * bins[0], the first pair decides the direction (bins[0] < bins[i]: increasing, else
     * decreasing, NaN included), and no later pair may go the other way (NaN never does) */
    uint8_t mono[2] = {1, 0}; /* increasing, decreasing */
    if (n > 1) {
        int64_t a0[1] = {0}, a1[1] = {1}, b0[1] = {n - 1}, b1[1] = {n};
        loom_array_t *lo = loom_slice(ctx, bins, 1, a0, b0, NULL),
                     *hi = loom_slice(ctx, bins, 1, a1, b1, NULL);
        loom_scope_begin(ctx);
        loom_array_t *first = fe_index_axis(ctx, bins, 0, 0);
        loom_array_t *neq = loom_not_equal(ctx, hi, first);
        loom_array_t *at = loom_add_i(ctx, loom_argmax(ctx, neq, -1, NULL, 0), 1);
        loom_array_t *m[4] = {loom_any(ctx, neq, -1, NULL, 0),
                              loom_less(ctx, first, loom_take(ctx, bins, at, 0, LOOM_TAKE_CLIP)),
                              loom_any(ctx, loom_greater(ctx, lo, hi), -1, NULL, 0),
                              loom_any(ctx, loom_less(ctx, lo, hi), -1, NULL, 0)};
        uint8_t v[4] = {0, 0, 0, 0};
        loom_status_t st = loom_eval(ctx, 4, m);
        for (int k = 0; k < 4 && st == LOOM_STATUS_OK; k++) st = loom_read(ctx, m[k], &v[k], 1);
        loom_scope_end(ctx);
        if (st != LOOM_STATUS_OK) return &ctx->nil;
        if (v[0]) { /* not all equal: increasing */
            mono[0] = v[1] && !v[2];
            mono[1] = !v[1] && !v[3];
        }
    }
    if (!mono[0] && !mono[1]) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: bins must be monotonically increasing or decreasing", fn);
        return &ctx->nil;
    }
    if (mono[0]) return loom_searchsorted(ctx, bins, x, !right, NULL);
    /* decreasing: len(bins) - searchsorted(bins[::-1], x) */
    loom_array_t *s = loom_searchsorted(ctx, loom_flip(ctx, bins, 0, NULL), x, !right, NULL);
    return loom_subtract(ctx, loom_astype(ctx, loom_weak_int(ctx, n), LOOM_DTYPE_I64), s);
}

LOOM_API loom_array_t *loom_trapezoid(loom_ctx_t *ctx, loom_array_t *y, loom_array_t *x, double dx,
                                      int32_t axis) {
    const char *fn = "trapezoid";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, y) || (x && !fe_check_arg(ctx, fn, x))) return &ctx->nil;
    int32_t ax;
    if (y->ndim == 0) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: y must be at least 1-D", fn);
        return &ctx->nil;
    }
    if (!fe_axis(ctx, fn, axis, y->ndim, &ax)) return &ctx->nil;
    loom_array_t *d;
    if (!x) {
        d = loom_weak_float(ctx, dx);
    } else if (x->ndim == 1) { /* diff(x), along the axis of y */
        d = loom_diff(ctx, x, 1, 0);
        int64_t shape[LOOM_MAX_DIMS];
        for (int32_t i = 0; i < y->ndim; i++) shape[i] = 1;
        shape[ax] = d->flags & FE_NIL ? 1 : d->shape[0];
        d = loom_reshape(ctx, d, y->ndim, shape);
    } else {
        d = loom_diff(ctx, x, 1, ax);
    }
    int64_t n = y->shape[ax], st1[LOOM_MAX_DIMS], sp1[LOOM_MAX_DIMS], st2[LOOM_MAX_DIMS],
            sp2[LOOM_MAX_DIMS];
    for (int32_t i = 0; i < y->ndim; i++) st1[i] = sp1[i] = st2[i] = sp2[i] = LOOM_NONE;
    st1[ax] = 1, sp2[ax] = n > 0 ? n - 1 : 0;
    /* NumPy: (d * (y[1:] + y[:-1]) / 2.0).sum(axis) */
    loom_array_t *s = loom_add(ctx, loom_slice(ctx, y, y->ndim, st1, sp1, NULL),
                               loom_slice(ctx, y, y->ndim, st2, sp2, NULL));
    loom_array_t *t = loom_true_divide_f(ctx, loom_multiply(ctx, d, s), 2.0);
    return loom_sum(ctx, t, 1, &ax, 0);
}

LOOM_API loom_array_t *loom_polyval(loom_ctx_t *ctx, loom_array_t *p, loom_array_t *x) {
    const char *fn = "polyval";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, p) || !fe_check_arg(ctx, fn, x)) return &ctx->nil;
    if (p->ndim != 1 || p->shape[0] > 4096) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: p must be 1-D with at most 4096 coefficients", fn);
        return &ctx->nil;
    }
    /* NumPy: y = zeros_like(x); for pv in p: y = y * x + pv (Horner, one fused expression) */
    loom_array_t *y = loom_full_like(ctx, x, 0, -1);
    for (int64_t i = 0; i < p->shape[0]; i++)
        y = loom_add(ctx, loom_multiply(ctx, y, x), fe_index_axis(ctx, p, 0, i));
    return y;
}

LOOM_API loom_array_t *loom_vander(loom_ctx_t *ctx, loom_array_t *x, int64_t n, int increasing) {
    const char *fn = "vander";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, x)) return &ctx->nil;
    if (x->ndim != 1) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: x must be a one-dimensional array or sequence.", fn);
        return &ctx->nil;
    }
    int64_t m = x->shape[0];
    if (n < 0) n = m;
    int d = loom_dtype_promote((loom_dtype_t)x->dtype, LOOM_DTYPE_I64);
    if (d < 0) {
        fe_error(ctx, LOOM_STATUS_DTYPE_ERROR, "%s: no dtype for %s", fn, ir_dtypes[x->dtype].name);
        return &ctx->nil;
    }
    int64_t col[2] = {m, 1}, full[2] = {m, n > 1 ? n - 1 : 0};
    loom_array_t *ones = loom_ones(ctx, (loom_dtype_t)d, 2, col), *v = ones;
    if (n == 0)
        return loom_reshape(ctx, loom_slice(ctx, ones, 2, NULL, (int64_t[]){m, 0}, NULL), 2,
                            (int64_t[]){m, 0});
    if (n > 1) { /* NumPy: a column of ones, then the running products of x */
        loom_array_t *xs = loom_broadcast_to(
            ctx, loom_reshape(ctx, loom_astype(ctx, x, (loom_dtype_t)d), 2, col), 2, full);
        loom_array_t *both[2] = {ones, loom_cumprod(ctx, xs, 1)};
        v = loom_concatenate(ctx, 2, both, 1);
    }
    if (!increasing) {
        int32_t one = 1;
        v = loom_flip(ctx, v, 1, &one);
    }
    return v;
}

LOOM_API loom_array_t *loom_select(loom_ctx_t *ctx, int32_t n, loom_array_t *const *conds,
                                   loom_array_t *const *choices, loom_array_t *dflt) {
    const char *fn = "select";
    if (!ctx) return NULL;
    if (n < 1 || n > 256 || !conds || !choices) {
        fe_error(
            ctx, LOOM_STATUS_INVALID_ARGUMENT,
            "%s: select with an empty condition list is not possible (1 to 256 conditions; %d)", fn,
            (int)n);
        return &ctx->nil;
    }
    loom_array_t *vals[257];
    for (int32_t i = 0; i < n; i++) {
        if (!fe_check_arg(ctx, fn, conds[i]) || !fe_check_arg(ctx, fn, choices[i]))
            return &ctx->nil;
        if (conds[i]->dtype != LOOM_DTYPE_BOOL) {
            fe_error(ctx, LOOM_STATUS_DTYPE_ERROR,
                     "%s: invalid entry %d in condlist: should be boolean ndarray", fn, (int)i);
            return &ctx->nil;
        }
        vals[i] = choices[i];
    }
    loom_array_t *d = dflt ? dflt : loom_weak_int(ctx, 0);
    if (!fe_check_arg(ctx, fn, d)) return &ctx->nil;
    vals[n] = d;
    /* NumPy: result_type with a Python-number default weak, which is then cast unsafely (so
     * -1 for uint16 is 65535), as np.where's value operands */
    int dt = fe_value_dtype(ctx, fn, n + 1, vals);
    if (dt < 0) return &ctx->nil;
    /* the first true condition wins: the last choice is applied first */
    loom_array_t *r = d;
    for (int32_t i = n - 1; i >= 0; i--)
        r = loom_where(ctx, conds[i], loom_astype(ctx, choices[i], (loom_dtype_t)dt), r);
    return loom_astype(ctx, r, (loom_dtype_t)dt);
}

LOOM_API loom_array_t *loom_vdot(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "vdot", a) || !fe_check_arg(ctx, "vdot", b)) return &ctx->nil;
    if (fe_size(a) != fe_size(b)) {
        fe_error(ctx, LOOM_STATUS_SHAPE_MISMATCH,
                 "vdot: vectors have different lengths (%lld and %lld)", (long long)fe_size(a),
                 (long long)fe_size(b));
        return &ctx->nil;
    }
    int64_t na = fe_size(a), nb = fe_size(b); /* np.vdot conjugates a complex a */
    return loom_dot(ctx, loom_reshape(ctx, fe_conj(ctx, a), 1, &na), loom_reshape(ctx, b, 1, &nb));
}
