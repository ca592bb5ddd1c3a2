/* numeric.c — NumPy's numeric functions that are compositions of loom's ops: frexp, modf and
 * divmod (two results each), ldexp, float_power, round with decimals, fix, isposinf and
 * isneginf; unstack; interp, digitize, trapezoid, polyval, vander, select, vdot; gradient,
 * unwrap, the window functions and the legacy np.poly* functions. Each result is a lazy array
 * like any other, so the pieces fuse with their producers and consumers. */
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
    /* a Python int exponent takes the loops' C int (NumPy refuses one past int32), or beside
     * a bool array their C long (NumPy's bool mantissa takes the int64 loop) */
    bool long_loop = !(x->flags & FE_WEAK) && x->dtype == LOOM_DTYPE_BOOL;
    if ((n->flags & FE_WEAK) &&
        (n->weak_kind == FE_WEAK_UINT || (n->weak_kind == FE_WEAK_INT && !long_loop &&
                                          (n->weak.i < INT32_MIN || n->weak.i > INT32_MAX)))) {
        if (n->weak_kind == FE_WEAK_UINT)
            fe_error(ctx, LOOM_STATUS_OVERFLOW, "ldexp: Python integer %llu out of bounds for %s",
                     (unsigned long long)n->weak.u, long_loop ? "int64" : "int32");
        else
            fe_error(ctx, LOOM_STATUS_OVERFLOW,
                     "ldexp: Python integer %lld out of bounds for int32", (long long)n->weak.i);
        return &ctx->nil;
    }
    if ((x->flags & FE_WEAK) && x->weak_kind == FE_WEAK_COMPLEX) { /* (else cast to float64) */
        fe_error(ctx, LOOM_STATUS_DTYPE_ERROR,
                 "ldexp: ufunc 'ldexp' not supported for the input types (complex, %s)",
                 ir_dtypes[n->dtype].name);
        return &ctx->nil;
    }
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

/* ---- gradient, unwrap, window functions, the legacy np.poly* functions ---- */

/* Whether a is a Python int, float or bool (NEP 50's weak scalars), and its value. */
static bool weak_real(const loom_array_t *a) {
    return (a->flags & FE_WEAK) && a->weak_kind != FE_WEAK_COMPLEX;
}
static double weak_value(const loom_array_t *a) {
    return a->weak_kind == FE_WEAK_FLOAT  ? a->weak.f
           : a->weak_kind == FE_WEAK_UINT ? (double)a->weak.u
                                          : (double)a->weak.i;
}

/* c / h for a uniform spacing h: a Python float when h is a Python number (NumPy computes it
 * in Python, and it stays weak next to f), else an array. */
static loom_array_t *over(loom_ctx_t *ctx, double c, loom_array_t *h) {
    if (weak_real(h)) return loom_weak_float(ctx, c / weak_value(h));
    return loom_true_divide(ctx, loom_weak_float(ctx, c), h);
}

/* a * x + b * y + c * z, in NumPy's order. */
static loom_array_t *comb3(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *x, loom_array_t *b,
                           loom_array_t *y, loom_array_t *c, loom_array_t *z) {
    return loom_add(ctx, loom_add(ctx, loom_multiply(ctx, a, x), loom_multiply(ctx, b, y)),
                    loom_multiply(ctx, c, z));
}

/* One axis of np.gradient in NumPy's formulas: the uniform spacing h (0-d), or else the
 * differences dx of the coordinates (1-D); edges of order 1 or 2; the result in otype. */
static loom_array_t *grad_axis(loom_ctx_t *ctx, loom_array_t *f, int32_t ax, loom_array_t *h,
                               loom_array_t *dx, int32_t order, loom_dtype_t otype) {
    int64_t n = f->shape[ax], m = n - 1;
    loom_array_t *lo = fe_slice_axis(ctx, f, ax, 0, n - 2, LOOM_NONE);
    loom_array_t *mid = fe_slice_axis(ctx, f, ax, 1, n - 1, LOOM_NONE);
    loom_array_t *hi = fe_slice_axis(ctx, f, ax, 2, n, LOOM_NONE);
    loom_array_t *in, *first, *last;
    if (h) {
        loom_array_t *h2 = weak_real(h) ? loom_weak_float(ctx, 2. * weak_value(h))
                                        : loom_multiply(ctx, loom_weak_float(ctx, 2.), h);
        in = loom_true_divide(ctx, loom_subtract(ctx, hi, lo), h2);
    } else {
        loom_array_t *d1 = fe_slice_axis(ctx, dx, 0, 0, m - 1, LOOM_NONE);
        loom_array_t *d2 = fe_slice_axis(ctx, dx, 0, 1, m, LOOM_NONE);
        loom_array_t *sum = loom_add(ctx, d1, d2);
        loom_array_t *abc[3] = {
            loom_true_divide(ctx, loom_negative(ctx, d2), loom_multiply(ctx, d1, sum)),
            loom_true_divide(ctx, loom_subtract(ctx, d2, d1), loom_multiply(ctx, d1, d2)),
            loom_true_divide(ctx, d1, loom_multiply(ctx, d2, sum))};
        int64_t shape[LOOM_MAX_DIMS];
        for (int32_t i = 0; i < f->ndim; i++) shape[i] = i == ax ? -1 : 1;
        for (int i = 0; i < 3; i++) abc[i] = loom_reshape(ctx, abc[i], f->ndim, shape);
        in = comb3(ctx, abc[0], lo, abc[1], mid, abc[2], hi);
    }
    if (order == 1) {
        loom_array_t *d0 = h ? h : fe_index_axis(ctx, dx, 0, 0);
        loom_array_t *dn = h ? h : fe_index_axis(ctx, dx, 0, m - 1);
        first = loom_true_divide(ctx,
                                 loom_subtract(ctx, fe_slice_axis(ctx, f, ax, 1, 2, LOOM_NONE),
                                               fe_slice_axis(ctx, f, ax, 0, 1, LOOM_NONE)),
                                 d0);
        last = loom_true_divide(ctx,
                                loom_subtract(ctx, fe_slice_axis(ctx, f, ax, n - 1, n, LOOM_NONE),
                                              fe_slice_axis(ctx, f, ax, n - 2, n - 1, LOOM_NONE)),
                                dn);
    } else {
        loom_array_t *c0[3], *c1[3];
        if (h) {
            c0[0] = over(ctx, -1.5, h), c0[1] = over(ctx, 2., h), c0[2] = over(ctx, -0.5, h);
            c1[0] = over(ctx, 0.5, h), c1[1] = over(ctx, -2., h), c1[2] = over(ctx, 1.5, h);
        } else {
            loom_array_t *two = loom_weak_float(ctx, 2.);
            loom_array_t *a1 = fe_index_axis(ctx, dx, 0, 0), *a2 = fe_index_axis(ctx, dx, 0, 1);
            loom_array_t *s = loom_add(ctx, a1, a2), *p = loom_multiply(ctx, a1, a2);
            c0[0] = loom_true_divide(
                ctx, loom_negative(ctx, loom_add(ctx, loom_multiply(ctx, two, a1), a2)),
                loom_multiply(ctx, a1, s));
            c0[1] = loom_true_divide(ctx, s, p);
            c0[2] = loom_true_divide(ctx, loom_negative(ctx, a1), loom_multiply(ctx, a2, s));
            a1 = fe_index_axis(ctx, dx, 0, m - 2), a2 = fe_index_axis(ctx, dx, 0, m - 1);
            s = loom_add(ctx, a1, a2), p = loom_multiply(ctx, a1, a2);
            c1[0] = loom_true_divide(ctx, a2, loom_multiply(ctx, a1, s));
            c1[1] = loom_true_divide(ctx, loom_negative(ctx, loom_add(ctx, a2, a1)), p);
            c1[2] = loom_true_divide(ctx, loom_add(ctx, loom_multiply(ctx, two, a2), a1),
                                     loom_multiply(ctx, a2, s));
        }
        first = comb3(ctx, c0[0], fe_slice_axis(ctx, f, ax, 0, 1, LOOM_NONE), c0[1],
                      fe_slice_axis(ctx, f, ax, 1, 2, LOOM_NONE), c0[2],
                      fe_slice_axis(ctx, f, ax, 2, 3, LOOM_NONE));
        last = comb3(ctx, c1[0], fe_slice_axis(ctx, f, ax, n - 3, n - 2, LOOM_NONE), c1[1],
                     fe_slice_axis(ctx, f, ax, n - 2, n - 1, LOOM_NONE), c1[2],
                     fe_slice_axis(ctx, f, ax, n - 1, n, LOOM_NONE));
    }
    /* NumPy writes each piece into an empty array of otype */
    loom_array_t *parts[3] = {loom_astype(ctx, first, otype), loom_astype(ctx, in, otype),
                              loom_astype(ctx, last, otype)};
    return loom_concatenate(ctx, 3, parts, ax);
}

LOOM_API loom_status_t loom_gradient(loom_ctx_t *ctx, loom_array_t *f, int32_t n_spacing,
                                     loom_array_t *const *spacing, int32_t naxes,
                                     const int32_t *axes, int32_t edge_order, loom_array_t **outs) {
    const char *fn = "gradient";
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    if (!fe_check_input(ctx, fn, f)) return ctx->err.status;
    if (n_spacing < 0 || (n_spacing > 0 && !spacing) || !outs) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: spacing or outs is NULL", fn);
        return ctx->err.status;
    }
    for (int32_t i = 0; i < n_spacing; i++)
        if (!fe_check_input(ctx, fn, spacing[i])) return ctx->err.status;
    int32_t nd = f->ndim, ax[LOOM_MAX_DIMS];
    if (naxes < 0 || !axes) {
        naxes = nd;
        for (int32_t i = 0; i < nd; i++) ax[i] = i;
    } else {
        uint32_t seen = 0; /* (distinct axes, so never more than nd of them are stored) */
        for (int32_t i = 0; i < naxes; i++) {
            int32_t a;
            if (!fe_axis(ctx, fn, axes[i], nd, &a)) return ctx->err.status;
            if (seen & (1u << a)) {
                fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: repeated axis (%d)", fn,
                         (int)axes[i]);
                return ctx->err.status;
            }
            seen |= 1u << a;
            ax[i] = a;
        }
    }
    /* NumPy: no spacing (1.0), one scalar for every axis, or one scalar or 1-D coordinates
     * for each axis */
    loom_array_t *h[LOOM_MAX_DIMS], *coords[LOOM_MAX_DIMS];
    bool one = n_spacing == 1 && spacing[0]->ndim == 0;
    if (n_spacing != 0 && !one && n_spacing != naxes) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: invalid number of arguments (%d spacings for %d axes)", fn, (int)n_spacing,
                 (int)naxes);
        return ctx->err.status;
    }
    for (int32_t i = 0; i < naxes; i++) {
        loom_array_t *s = n_spacing == 0 ? loom_weak_float(ctx, 1.0) : spacing[one ? 0 : i];
        h[i] = s->ndim == 0 ? s : NULL;
        coords[i] = s->ndim == 0 ? NULL : s;
        if (!s->ndim) continue;
        if (s->ndim != 1) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                     "%s: distances must be either scalars or 1d", fn);
            return ctx->err.status;
        }
        if (s->shape[0] != f->shape[ax[i]]) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                     "%s: when 1d, distances must match the length of the corresponding "
                     "dimension (%lld coordinates for axis %d of extent %lld)",
                     fn, (long long)s->shape[0], (int)ax[i], (long long)f->shape[ax[i]]);
            return ctx->err.status;
        }
        if (s->shape[0] < 2) { /* NumPy reads diffx[0] */
            fe_error(ctx, LOOM_STATUS_INDEX_ERROR,
                     "%s: index 0 is out of bounds for axis 0 with size 0", fn);
            return ctx->err.status;
        }
    }
    if (edge_order > 2) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: 'edge_order' greater than 2 not supported",
                 fn);
        return ctx->err.status;
    }
    loom_dtype_t ot = (loom_dtype_t)f->dtype;
    if (!ir_is_float(ot) && !ir_is_complex(ot)) { /* integers in float64; bool stays (and fails) */
        if (ot != LOOM_DTYPE_BOOL) f = loom_astype(ctx, f, LOOM_DTYPE_F64);
        ot = LOOM_DTYPE_F64;
    }
    int32_t order = edge_order == 1 ? 1 : 2; /* NumPy: anything but 1 takes the second order */
    for (int32_t i = 0; i < naxes; i++) {
        int64_t n = f->shape[ax[i]];
        if (n < (int64_t)edge_order + 1) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                     "%s: Shape of array too small to calculate a numerical gradient, at least "
                     "(edge_order + 1) elements are required (axis %d has %lld, edge_order %d).",
                     fn, (int)ax[i], (long long)n, (int)edge_order);
            return ctx->err.status;
        }
        if (n < 3 && order == 2) { /* edge_order < 1: NumPy reads f[2] */
            fe_error(ctx, LOOM_STATUS_INDEX_ERROR,
                     "%s: index 2 is out of bounds for axis %d with size %lld", fn, (int)ax[i],
                     (long long)n);
            return ctx->err.status;
        }
        if (h[i]) {
            outs[i] = grad_axis(ctx, f, ax[i], h[i], NULL, order, ot);
            continue;
        }
        /* NumPy takes equally spaced coordinates as the uniform spacing diffx[0] (the formulas
         * round differently): both are built, and the coordinates' values choose */
        loom_array_t *c = coords[i];
        if (ir_is_int((loom_dtype_t)c->dtype)) c = loom_astype(ctx, c, LOOM_DTYPE_F64);
        loom_array_t *dx = loom_diff(ctx, c, 1, 0);
        loom_array_t *d0 = fe_index_axis(ctx, dx, 0, 0);
        loom_array_t *same = loom_all(ctx, loom_equal(ctx, dx, d0), -1, NULL, 0);
        outs[i] = loom_where(ctx, same, grad_axis(ctx, f, ax[i], d0, NULL, order, ot),
                             grad_axis(ctx, f, ax[i], NULL, dx, order, ot));
    }
    for (int32_t i = 0; i < naxes; i++)
        if (outs[i]->flags & FE_NIL) {
            for (int32_t j = 0; j < naxes; j++) outs[j] = &ctx->nil;
            return ctx->err.status ? ctx->err.status : LOOM_STATUS_INTERNAL;
        }
    return ctx->err.status;
}

LOOM_API loom_array_t *loom_unwrap(loom_ctx_t *ctx, loom_array_t *p, loom_array_t *discont,
                                   int32_t axis, loom_array_t *period) {
    const char *fn = "unwrap";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, p) || (discont && !fe_check_arg(ctx, fn, discont)) ||
        (period && !fe_check_arg(ctx, fn, period)))
        return &ctx->nil;
    if (p->ndim == 0) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: diff requires input that is at least one dimensional", fn);
        return &ctx->nil;
    }
    int32_t ax;
    if (!fe_axis(ctx, fn, axis, p->ndim, &ax)) return &ctx->nil;
    if (!period) period = loom_weak_float(ctx, 2 * M_PI);
    loom_array_t *dd = loom_diff(ctx, p, 1, ax);
    loom_array_t *ops[2] = {dd, period};
    int dt = fe_result_type(ctx, fn, 2, ops);
    if (dt < 0) return &ctx->nil;
    /* NumPy computes the interval's bounds in Python when period is a Python number */
    bool weak = weak_real(period);
    loom_array_t *hi, *lo, *amb = NULL; /* amb: whether +-period/2 is ambiguous (NULL: always) */
    bool fix = true;
    if (ir_is_int((loom_dtype_t)dt) && weak) { /* divmod(period, 2) of Python ints */
        if (period->weak_kind == FE_WEAK_UINT) {
            hi = loom_weak_uint(ctx, period->weak.u / 2);
            lo = loom_weak_int(ctx, -(int64_t)(period->weak.u / 2));
            fix = period->weak.u % 2 == 0;
        } else {
            int64_t v = period->weak.i, q = v / 2 - (v % 2 != 0 && v < 0);
            hi = loom_weak_int(ctx, q);
            lo = loom_weak_int(ctx, -q);
            fix = v - 2 * q == 0;
        }
    } else if (ir_is_int((loom_dtype_t)dt)) {
        hi = loom_floor_divide_i(ctx, period, 2);
        lo = loom_negative(ctx, hi);
        amb = loom_equal_i(ctx, loom_remainder_i(ctx, period, 2), 0);
    } else if (weak) {
        hi = loom_weak_float(ctx, weak_value(period) / 2);
        lo = loom_weak_float(ctx, -(weak_value(period) / 2));
    } else {
        hi = loom_true_divide_f(ctx, period, 2);
        lo = loom_negative(ctx, hi);
    }
    loom_array_t *ddmod =
        loom_add(ctx, loom_remainder(ctx, loom_subtract(ctx, dd, lo), period), lo);
    if (ddmod->flags & FE_NIL) return &ctx->nil;
    loom_dtype_t md = (loom_dtype_t)ddmod->dtype;
    if (fix) { /* +-period/2 keeps the sign of dd (NumPy's copyto into ddmod) */
        loom_array_t *at = loom_logical_and(ctx, loom_equal(ctx, ddmod, lo),
                                            loom_greater(ctx, dd, loom_weak_int(ctx, 0)));
        if (amb) at = loom_logical_and(ctx, at, amb);
        ddmod = loom_astype(ctx, loom_where(ctx, at, hi, ddmod), md);
    }
    loom_array_t *ph = loom_subtract(ctx, ddmod, dd);
    if (!discont)
        discont = weak ? loom_weak_float(ctx, weak_value(period) / 2)
                       : loom_true_divide_f(ctx, period, 2);
    ph = loom_where(ctx, loom_less(ctx, loom_abs(ctx, dd), discont), loom_weak_int(ctx, 0), ph);
    if (ph->flags & FE_NIL) return &ctx->nil;
    ph = loom_astype(ctx, ph, md);
    /* up = p in dtype; up[1:] = p[1:] + cumsum(ph_correct) */
    loom_array_t *parts[2] = {
        loom_astype(ctx, fe_slice_axis(ctx, p, ax, 0, 1, LOOM_NONE), (loom_dtype_t)dt),
        loom_astype(ctx,
                    loom_add(ctx, fe_slice_axis(ctx, p, ax, 1, LOOM_NONE, LOOM_NONE),
                             loom_cumsum(ctx, ph, ax)),
                    (loom_dtype_t)dt)};
    return loom_concatenate(ctx, 2, parts, ax);
}

/* NumPy's window functions take M as a float64 (np.array([0.0, M])). */
static bool window_m(loom_ctx_t *ctx, const char *fn, double m) {
    if (m != m || isinf(m)) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: arange: cannot compute length (M = %g)",
                 fn, m);
        return false;
    }
    return true;
}

/* bartlett, blackman, hamming, hanning: NumPy's formulas over n = arange(1 - M, M, 2). */
static loom_array_t *cos_window(loom_ctx_t *ctx, const char *fn, double m) {
    if (!ctx) return NULL;
    if (!window_m(ctx, fn, m)) return &ctx->nil;
    if (m < 1) return loom_zeros(ctx, LOOM_DTYPE_F64, 1, (int64_t[]){0});
    if (m == 1) return loom_ones(ctx, LOOM_DTYPE_F64, 1, (int64_t[]){1});
    loom_array_t *n = loom_arange(ctx, 1 - m, m, 2, LOOM_DTYPE_F64);
    if (fn[0] == 'b' && fn[1] == 'a') { /* bartlett */
        loom_array_t *t = loom_true_divide_f(ctx, n, m - 1);
        return loom_where(ctx, loom_less_equal_i(ctx, n, 0),
                          loom_add(ctx, loom_weak_float(ctx, 1), t),
                          loom_subtract(ctx, loom_weak_float(ctx, 1), t));
    }
    /* cos(pi * n / (M - 1)), and blackman's cos(2.0 * pi * n / (M - 1)) */
    loom_array_t *c1 = loom_cos(ctx, loom_true_divide_f(ctx, loom_multiply_f(ctx, n, M_PI), m - 1));
    if (fn[0] == 'b') {
        loom_array_t *c2 =
            loom_cos(ctx, loom_true_divide_f(ctx, loom_multiply_f(ctx, n, 2.0 * M_PI), m - 1));
        return loom_add(ctx,
                        loom_add(ctx, loom_weak_float(ctx, 0.42), loom_multiply_f(ctx, c1, 0.5)),
                        loom_multiply_f(ctx, c2, 0.08));
    }
    double a = fn[2] == 'm' ? 0.54 : 0.5, b = fn[2] == 'm' ? 0.46 : 0.5; /* hamming, hanning */
    return loom_add(ctx, loom_weak_float(ctx, a), loom_multiply_f(ctx, c1, b));
}

LOOM_API loom_array_t *loom_bartlett(loom_ctx_t *ctx, double m) {
    return cos_window(ctx, "bartlett", m);
}

LOOM_API loom_array_t *loom_blackman(loom_ctx_t *ctx, double m) {
    return cos_window(ctx, "blackman", m);
}

LOOM_API loom_array_t *loom_hamming(loom_ctx_t *ctx, double m) {
    return cos_window(ctx, "hamming", m);
}

LOOM_API loom_array_t *loom_hanning(loom_ctx_t *ctx, double m) {
    return cos_window(ctx, "hanning", m);
}

LOOM_API loom_array_t *loom_kaiser(loom_ctx_t *ctx, double m, double beta) {
    const char *fn = "kaiser";
    if (!ctx) return NULL;
    if (!window_m(ctx, fn, m)) return &ctx->nil;
    if (m == 1) return loom_ones(ctx, LOOM_DTYPE_F64, 1, (int64_t[]){1});
    /* NumPy: i0(beta * sqrt(1 - ((n - alpha) / alpha)**2.0)) / i0(beta), n = arange(0, M) */
    loom_array_t *n = loom_arange(ctx, 0, m > 0 ? m : 0, 1, LOOM_DTYPE_F64);
    double alpha = (m - 1) / 2.0;
    loom_array_t *t =
        loom_square(ctx, loom_true_divide_f(ctx, loom_subtract_f(ctx, n, alpha), alpha));
    loom_array_t *b = loom_full(ctx, LOOM_DTYPE_F64, 0, NULL, beta);
    loom_array_t *s = loom_sqrt(ctx, loom_subtract(ctx, loom_weak_float(ctx, 1), t));
    return loom_true_divide(ctx, loom_i0(ctx, loom_multiply(ctx, b, s)), loom_i0(ctx, b));
}

/* np.atleast_1d of a coefficient argument; a Python number becomes an array of its default
 * dtype, as np.asarray makes it. */
static loom_array_t *coeffs(loom_ctx_t *ctx, loom_array_t *a) {
    if (a->flags & FE_WEAK) a = loom_astype(ctx, a, (loom_dtype_t)a->dtype);
    return a->ndim == 0 ? loom_reshape(ctx, a, 1, (int64_t[]){1}) : a;
}

static bool coeffs_1d(loom_ctx_t *ctx, const char *fn, const char *what, loom_array_t *a) {
    if (a->ndim == 1) return true;
    fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
             "%s: %s must be a 1-D array of coefficients (%d dimensions)", fn, what, (int)a->ndim);
    return false;
}

/* The most coefficients the polynomial functions that build one step per coefficient take (as
 * loom_polyval). */
#define POLY_MAX_STEPS 4096

static bool steps_ok(loom_ctx_t *ctx, const char *fn, const char *what, int64_t n) {
    if (n <= POLY_MAX_STEPS) return true;
    fe_error(ctx, LOOM_STATUS_NOT_AVAILABLE, "%s: at most %d %s (%lld)", fn, POLY_MAX_STEPS, what,
             (long long)n);
    return false;
}

LOOM_API loom_array_t *loom_polyder(loom_ctx_t *ctx, loom_array_t *p, int64_t m) {
    const char *fn = "polyder";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, p)) return &ctx->nil;
    if (m < 0) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: Order of derivative must be positive (see polyint) (m = %lld)", fn,
                 (long long)m);
        return &ctx->nil;
    }
    if (!coeffs_1d(ctx, fn, "p", p)) return &ctx->nil;
    if (m == 0) return fe_scope_adopt(ctx, p); /* p itself, held by the scope as a result */
    /* NumPy: y = p[:-1] * arange(n, 0, -1) m times; once empty, y changes no more */
    loom_array_t *y = p;
    for (int64_t i = 0; i < m && !(y->flags & FE_NIL); i++) {
        int64_t n = y->shape[0] - 1;
        y = loom_multiply(ctx, fe_slice_axis(ctx, y, 0, 0, n > 0 ? n : 0, LOOM_NONE),
                          loom_arange_int(ctx, n, 0, -1, LOOM_DTYPE_I64));
        if (n <= 0) break;
    }
    return y;
}

LOOM_API loom_array_t *loom_polyint(loom_ctx_t *ctx, loom_array_t *p, int64_t m, loom_array_t *k) {
    const char *fn = "polyint";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, p) || (k && !fe_check_arg(ctx, fn, k))) return &ctx->nil;
    if (m < 0) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: Order of integral must be positive (see polyder) (m = %lld)", fn,
                 (long long)m);
        return &ctx->nil;
    }
    if (!steps_ok(ctx, fn, "integrations", m)) return &ctx->nil;
    loom_array_t *kk = k ? coeffs(ctx, k) : loom_zeros(ctx, LOOM_DTYPE_F64, 1, (int64_t[]){m});
    if (kk->flags & FE_NIL) return &ctx->nil;
    if (kk->ndim == 1 && kk->shape[0] == 1 && m > 1) /* NumPy: k[0] * ones(m, float) */
        kk = loom_multiply(ctx, fe_index_axis(ctx, kk, 0, 0),
                           loom_ones(ctx, LOOM_DTYPE_F64, 1, (int64_t[]){m}));
    if (kk->ndim != 1 || kk->shape[0] < m) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: k must be a scalar or a rank-1 array of length 1 or >m. (m = %lld)", fn,
                 (long long)m);
        return &ctx->nil;
    }
    if (!coeffs_1d(ctx, fn, "p", p)) return &ctx->nil;
    if (m == 0) return fe_scope_adopt(ctx, p);
    /* NumPy: y = concatenate((y / arange(len(y), 0, -1), [k[i]])) m times */
    loom_array_t *y = p;
    for (int64_t i = 0; i < m && !(y->flags & FE_NIL); i++) {
        loom_array_t *parts[2] = {
            loom_true_divide(ctx, y, loom_arange_int(ctx, y->shape[0], 0, -1, LOOM_DTYPE_I64)),
            fe_slice_axis(ctx, kk, 0, i, i + 1, LOOM_NONE)};
        y = loom_concatenate(ctx, 2, parts, 0);
    }
    return y;
}

/* np.polyadd, np.polysub: the shorter operand padded with leading zeros of its dtype. */
static loom_array_t *poly_addsub(loom_ctx_t *ctx, const char *fn, loom_array_t *a1,
                                 loom_array_t *a2, bool sub) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a1) || !fe_check_arg(ctx, fn, a2)) return &ctx->nil;
    a1 = coeffs(ctx, a1), a2 = coeffs(ctx, a2);
    if ((a1->flags | a2->flags) & FE_NIL) return &ctx->nil;
    int64_t diff = a2->shape[0] - a1->shape[0];
    loom_array_t **shorter = diff > 0 ? &a1 : &a2;
    if (diff != 0) {
        loom_array_t *parts[2] = {loom_zeros(ctx, (loom_dtype_t)(*shorter)->dtype, 1,
                                             (int64_t[]){diff > 0 ? diff : -diff}),
                                  *shorter};
        *shorter = loom_concatenate(ctx, 2, parts, 0);
    }
    return sub ? loom_subtract(ctx, a1, a2) : loom_add(ctx, a1, a2);
}

LOOM_API loom_array_t *loom_polyadd(loom_ctx_t *ctx, loom_array_t *a1, loom_array_t *a2) {
    return poly_addsub(ctx, "polyadd", a1, a2, false);
}

LOOM_API loom_array_t *loom_polysub(loom_ctx_t *ctx, loom_array_t *a1, loom_array_t *a2) {
    return poly_addsub(ctx, "polysub", a1, a2, true);
}

/* For each of the n 1-D arrays, how many of its leading elements `lead` marks (a bool array of
 * the same length), at most cap[i]: evaluated and read back together (one sync). */
static bool leading_counts(loom_ctx_t *ctx, int n, loom_array_t *const *lead, const int64_t *cap,
                           int64_t *out) {
    loom_array_t *cnt[3];
    loom_scope_begin(ctx);
    for (int i = 0; i < n; i++) {
        int64_t len = lead[i]->shape[0];
        if (len == 0) {
            cnt[i] = fe_i64(ctx, 0);
            continue;
        }
        loom_array_t *other = loom_logical_not(ctx, lead[i]);
        loom_array_t *c = loom_where(ctx, loom_any(ctx, other, -1, NULL, 0),
                                     loom_argmax(ctx, other, -1, NULL, 0), fe_i64(ctx, len));
        cnt[i] = loom_minimum(ctx, c, fe_i64(ctx, cap[i]));
    }
    loom_status_t st = loom_eval(ctx, n, cnt);
    for (int i = 0; i < n && st == LOOM_STATUS_OK; i++)
        st = loom_read(ctx, cnt[i], &out[i], sizeof out[i]);
    loom_scope_end(ctx);
    return st == LOOM_STATUS_OK;
}

LOOM_API loom_array_t *loom_polymul(loom_ctx_t *ctx, loom_array_t *a1, loom_array_t *a2) {
    const char *fn = "polymul";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a1) || !fe_check_arg(ctx, fn, a2)) return &ctx->nil;
    loom_array_t *a[2] = {coeffs(ctx, a1), coeffs(ctx, a2)}, *lead[2];
    for (int i = 0; i < 2; i++) {
        if (a[i]->flags & FE_NIL) return &ctx->nil;
        if (a[i]->ndim != 1) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: Polynomial must be 1d only.", fn);
            return &ctx->nil;
        }
        lead[i] = loom_equal_i(ctx, a[i], 0);
    }
    /* NumPy makes each a poly1d, which trims the leading zeros (data-dependent: one sync) */
    int64_t cap[2] = {a[0]->shape[0], a[1]->shape[0]}, cut[2];
    if (!leading_counts(ctx, 2, lead, cap, cut)) return &ctx->nil;
    for (int i = 0; i < 2; i++) {
        a[i] = fe_slice_axis(ctx, a[i], 0, cut[i], LOOM_NONE, LOOM_NONE);
        if (cut[i] == cap[i]) /* all zeros: poly1d([0]) */
            a[i] = loom_zeros(ctx, (loom_dtype_t)a[i]->dtype, 1, (int64_t[]){1});
    }
    return loom_convolve(ctx, a[0], a[1], LOOM_CONV_FULL);
}

LOOM_API loom_status_t loom_polydiv(loom_ctx_t *ctx, loom_array_t *u, loom_array_t *v,
                                    loom_array_t **q, loom_array_t **r) {
    const char *fn = "polydiv";
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    if (!fe_check_input(ctx, fn, u) || !fe_check_input(ctx, fn, v) || !outs_ok(ctx, fn, q, r))
        return ctx->err.status;
    u = loom_add_f(ctx, coeffs(ctx, u), 0.0), v = loom_add_f(ctx, coeffs(ctx, v), 0.0);
    if ((u->flags | v->flags) & FE_NIL) return ctx->err.status;
    if (u->ndim != 1 || v->ndim != 1) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: u and v must be 1-D arrays of coefficients", fn);
        return ctx->err.status;
    }
    if (u->shape[0] == 0 || v->shape[0] == 0) {
        fe_error(ctx, LOOM_STATUS_INDEX_ERROR,
                 "%s: index 0 is out of bounds for axis 0 with size 0", fn);
        return ctx->err.status;
    }
    int w = fe_promote(ctx, fn, (loom_dtype_t)u->dtype, (loom_dtype_t)v->dtype);
    if (w < 0) return ctx->err.status;
    int64_t m = u->shape[0] - 1, n = v->shape[0] - 1, steps = m - n + 1;
    if (!steps_ok(ctx, fn, "quotient coefficients", steps)) return ctx->err.status;
    /* NumPy's long division: d = scale * r[k]; q[k] = d; r[k:k + n + 1] -= d * v */
    loom_array_t *scale =
        loom_true_divide(ctx, loom_weak_float(ctx, 1.), fe_index_axis(ctx, v, 0, 0));
    loom_array_t *rr = loom_astype(ctx, u, (loom_dtype_t)w), *qq;
    loom_array_t **ds = steps > 0 ? base_malloc(&ctx->al, (size_t)steps, sizeof *ds) : NULL;
    if (steps > 0 && !ds) {
        fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "%s: out of memory", fn);
        return ctx->err.status;
    }
    for (int64_t k = 0; k < steps; k++) {
        ds[k] = loom_multiply(ctx, scale, fe_index_axis(ctx, rr, 0, k));
        loom_array_t *win = fe_slice_axis(ctx, rr, 0, k, k + n + 1, LOOM_NONE);
        loom_array_t *parts[3] = {fe_slice_axis(ctx, rr, 0, 0, k, LOOM_NONE),
                                  loom_subtract(ctx, win, loom_multiply(ctx, ds[k], v)),
                                  fe_slice_axis(ctx, rr, 0, k + n + 1, LOOM_NONE, LOOM_NONE)};
        rr = loom_concatenate(ctx, 3, parts, 0);
    }
    qq = steps > 0 ? loom_stack(ctx, (int32_t)steps, ds, 0)
                   : loom_zeros(ctx, (loom_dtype_t)w, 1, (int64_t[]){1});
    base_free(&ctx->al, ds);
    if ((qq->flags | rr->flags) & FE_NIL) return ctx->err.status;
    /* NumPy then drops r's leading elements while allclose(r[0], 0) and more than one is left
     * (data-dependent: one sync, which computes q and r too) */
    loom_array_t *both[2] = {qq, rr};
    if (loom_eval(ctx, 2, both) != LOOM_STATUS_OK) return ctx->err.status;
    int64_t cap = rr->shape[0] - 1, cut;
    loom_array_t *near0 = loom_less_equal_f(ctx, loom_abs(ctx, rr), 1e-8);
    if (!leading_counts(ctx, 1, &near0, &cap, &cut)) return ctx->err.status;
    return two_out(ctx, qq, fe_slice_axis(ctx, rr, 0, cut, LOOM_NONE, LOOM_NONE), q, r);
}

LOOM_API loom_array_t *loom_roots(loom_ctx_t *ctx, loom_array_t *p) {
    const char *fn = "roots";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, p)) return &ctx->nil;
    p = coeffs(ctx, p);
    if (p->flags & FE_NIL) return &ctx->nil;
    if (p->ndim != 1) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: Input must be a rank-1 array.", fn);
        return &ctx->nil;
    }
    /* NumPy strips the leading zeros and counts the trailing ones, roots at 0 (one sync) */
    int64_t len = p->shape[0], cap[2] = {len, len}, cut[2] = {len, len};
    if (len > 0) {
        loom_array_t *zero[2] = {loom_equal_i(ctx, p, 0), NULL};
        zero[1] = loom_flip(ctx, zero[0], 1, (int32_t[]){0});
        if (!leading_counts(ctx, 2, zero, cap, cut)) return &ctx->nil;
    }
    if (cut[0] == len) return loom_zeros(ctx, LOOM_DTYPE_F64, 1, (int64_t[]){0});
    int64_t n = len - cut[0] - cut[1];
    p = fe_slice_axis(ctx, p, 0, cut[0], len - cut[1], LOOM_NONE);
    loom_dtype_t d = (loom_dtype_t)p->dtype;
    if (!ir_is_float(d) && !ir_is_complex(d)) p = loom_astype(ctx, p, d = LOOM_DTYPE_F64);
    loom_array_t *r = loom_zeros(ctx, LOOM_DTYPE_F64, 1, (int64_t[]){0});
    if (n > 1) { /* the eigenvalues of the companion matrix */
        loom_array_t *row =
            loom_true_divide(ctx, loom_negative(ctx, fe_slice_axis(ctx, p, 0, 1, n, LOOM_NONE)),
                             fe_index_axis(ctx, p, 0, 0));
        loom_array_t *rows[2] = {loom_reshape(ctx, row, 2, (int64_t[]){1, n - 1}),
                                 loom_eye(ctx, n - 2, n - 1, 0, d)};
        r = loom_eigvals(ctx, loom_concatenate(ctx, 2, rows, 0));
    }
    if (cut[1] > 0 && !(r->flags & FE_NIL)) {
        loom_array_t *parts[2] = {r,
                                  loom_zeros(ctx, (loom_dtype_t)r->dtype, 1, (int64_t[]){cut[1]})};
        r = loom_concatenate(ctx, 2, parts, 0);
    }
    return r;
}

LOOM_API loom_array_t *loom_poly(loom_ctx_t *ctx, loom_array_t *seq_of_zeros) {
    const char *fn = "poly";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, seq_of_zeros)) return &ctx->nil;
    loom_array_t *z = coeffs(ctx, seq_of_zeros);
    if (z->flags & FE_NIL) return &ctx->nil;
    bool real_matrix = false;
    if (z->ndim == 2 && z->shape[0] == z->shape[1] && z->shape[0] != 0) {
        real_matrix = !ir_is_complex((loom_dtype_t)z->dtype);
        z = loom_eigvals(ctx, z);
    } else if (z->ndim == 1) { /* NumPy's mintypecode: float32, float64, complex64, complex128 */
        loom_dtype_t d = (loom_dtype_t)z->dtype;
        bool kept = d == LOOM_DTYPE_F32 || d == LOOM_DTYPE_F64 || ir_is_complex(d);
        z = loom_astype(ctx, z, kept ? d : LOOM_DTYPE_F64);
    } else {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: input must be 1d or non-empty square 2d array.", fn);
        return &ctx->nil;
    }
    if (z->flags & FE_NIL) return &ctx->nil;
    int64_t n = z->shape[0];
    if (n == 0) return loom_full(ctx, LOOM_DTYPE_F64, 0, NULL, 1.0); /* NumPy's 1.0 */
    if (!steps_ok(ctx, fn, "zeros", n)) return &ctx->nil;
    /* NumPy: a = convolve(a, [1, -zero]) for each zero, from a = [1] */
    loom_dtype_t d = (loom_dtype_t)z->dtype;
    loom_array_t *one = loom_ones(ctx, d, 1, (int64_t[]){1}), *a = one;
    for (int64_t i = 0; i < n && !(a->flags & FE_NIL); i++) {
        loom_array_t *v[2] = {
            one,
            loom_reshape(ctx, loom_negative(ctx, fe_index_axis(ctx, z, 0, i)), 1, (int64_t[]){1})};
        a = loom_convolve(ctx, a, loom_concatenate(ctx, 2, v, 0), LOOM_CONV_FULL);
    }
    /* a real matrix's eigenvalues come in conjugate pairs: NumPy keeps the real part */
    return real_matrix ? loom_real(ctx, a) : a;
}

/* np.polyfit's least-squares fit: fills four (coefficients, residuals, rank, singular values),
 * and where wanted the scaled design matrix, the column scales and rcond. */
static bool polyfit_run(loom_ctx_t *ctx, loom_array_t *x, loom_array_t *y, int64_t deg,
                        double rcond, loom_array_t *w, loom_array_t **four, loom_array_t **lhs_out,
                        loom_array_t **scale_out, double *rcond_out) {
    const char *fn = "polyfit";
    if (!fe_check_input(ctx, fn, x) || !fe_check_input(ctx, fn, y) ||
        (w && !fe_check_input(ctx, fn, w)))
        return false;
    const char *bad = NULL;
    x = loom_add_f(ctx, x, 0.0), y = loom_add_f(ctx, y, 0.0);
    if ((x->flags | y->flags) & FE_NIL) return false;
    if (deg < 0)
        bad = "expected deg >= 0";
    else if (deg >= INT32_MAX) /* (deg + 1 columns) */
        bad = "deg is too large";
    else if (x->ndim != 1)
        bad = "expected 1D vector for x";
    else if (x->shape[0] == 0)
        bad = "expected non-empty vector for x";
    else if (y->ndim < 1 || y->ndim > 2)
        bad = "expected 1D or 2D array for y";
    else if (x->shape[0] != y->shape[0])
        bad = "expected x and y to have same length";
    if (bad) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: %s", fn, bad);
        return false;
    }
    int64_t len = x->shape[0];
    if (isnan(rcond)) { /* NumPy: len(x) * eps of x's dtype */
        loom_finfo_t fi = {0};
        loom_finfo((loom_dtype_t)x->dtype, &fi);
        rcond = (double)len * fi.eps;
    }
    loom_array_t *lhs = loom_vander(ctx, x, deg + 1, 0), *rhs = y;
    if (lhs->flags & FE_NIL) return false;
    loom_dtype_t ld = (loom_dtype_t)lhs->dtype;
    if (w) { /* NumPy's lhs *= w[:, newaxis] and rhs *= w, in place (their dtypes kept) */
        w = loom_add_f(ctx, w, 0.0);
        if (w->flags & FE_NIL) return false;
        if (w->ndim != 1 || w->shape[0] != len) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: %s", fn,
                     w->ndim != 1 ? "expected a 1-d array for weights"
                                  : "expected w and y to have the same length");
            return false;
        }
        loom_array_t *wc = loom_reshape(ctx, w, 2, (int64_t[]){len, 1});
        lhs = loom_astype(ctx, loom_multiply(ctx, lhs, wc), ld);
        rhs = loom_astype(ctx, loom_multiply(ctx, rhs, y->ndim == 2 ? wc : w),
                          (loom_dtype_t)y->dtype);
    }
    /* the columns scaled to unit norm to improve the condition number */
    loom_array_t *scale =
        loom_sqrt(ctx, loom_sum(ctx, loom_multiply(ctx, lhs, lhs), 1, (int32_t[]){0}, 0));
    lhs = loom_astype(ctx, loom_true_divide(ctx, lhs, scale), ld);
    if (loom_lstsq(ctx, lhs, rhs, rcond, &four[0], &four[1], &four[2], &four[3]) != LOOM_STATUS_OK)
        return false;
    four[0] = loom_true_divide(
        ctx, four[0],
        four[0]->ndim == 1 ? scale : loom_reshape(ctx, scale, 2, (int64_t[]){deg + 1, 1}));
    if (lhs_out) *lhs_out = lhs;
    if (scale_out) *scale_out = scale;
    if (rcond_out) *rcond_out = rcond;
    return !(four[0]->flags & FE_NIL);
}

LOOM_API loom_array_t *loom_polyfit(loom_ctx_t *ctx, loom_array_t *x, loom_array_t *y, int64_t deg,
                                    double rcond, loom_array_t *w) {
    if (!ctx) return NULL;
    loom_array_t *four[4];
    if (!polyfit_run(ctx, x, y, deg, rcond, w, four, NULL, NULL, NULL)) return &ctx->nil;
    return four[0];
}

LOOM_API loom_status_t loom_polyfit_full(loom_ctx_t *ctx, loom_array_t *x, loom_array_t *y,
                                         int64_t deg, double rcond, loom_array_t *w,
                                         loom_array_t **out) {
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    if (!out) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "polyfit: out is NULL");
        return ctx->err.status;
    }
    loom_array_t *four[4];
    double rc;
    if (!polyfit_run(ctx, x, y, deg, rcond, w, four, NULL, NULL, &rc))
        return ctx->err.status ? ctx->err.status : LOOM_STATUS_INTERNAL;
    for (int i = 0; i < 4; i++) out[i] = four[i];
    out[4] = loom_full(ctx, LOOM_DTYPE_F64, 0, NULL, rc);
    return ctx->err.status;
}

LOOM_API loom_status_t loom_polyfit_cov(loom_ctx_t *ctx, loom_array_t *x, loom_array_t *y,
                                        int64_t deg, double rcond, loom_array_t *w, int unscaled,
                                        loom_array_t **coef, loom_array_t **cov) {
    const char *fn = "polyfit";
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    if (!outs_ok(ctx, fn, coef, cov)) return ctx->err.status;
    loom_array_t *four[4], *lhs, *scale;
    if (!polyfit_run(ctx, x, y, deg, rcond, w, four, &lhs, &scale, NULL))
        return ctx->err.status ? ctx->err.status : LOOM_STATUS_INTERNAL;
    /* NumPy: inv(lhs.T @ lhs) / outer(scale, scale), times resids / (len(x) - order) */
    loom_array_t *vb = loom_inv(ctx, loom_matmul(ctx, loom_matrix_transpose(ctx, lhs), lhs));
    if (vb->flags & FE_NIL) return ctx->err.status;
    vb = loom_astype(ctx, loom_true_divide(ctx, vb, loom_outer(ctx, scale, scale)),
                     (loom_dtype_t)vb->dtype);
    loom_array_t *fac = loom_weak_int(ctx, 1);
    int64_t len = loom_array_dim(x, 0);
    if (!unscaled) {
        if (len <= deg + 1) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                     "%s: the number of data points must exceed order to scale the covariance "
                     "matrix (%lld points, order %lld)",
                     fn, (long long)len, (long long)(deg + 1));
            return ctx->err.status;
        }
        fac = loom_true_divide_i(ctx, four[1], len - (deg + 1));
    }
    if (four[0]->ndim == 2) vb = loom_expand_dims(ctx, vb, 1, (int32_t[]){-1});
    return two_out(ctx, four[0], loom_multiply(ctx, vb, fac), coef, cov);
}
