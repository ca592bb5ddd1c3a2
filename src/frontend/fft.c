/* fft.c - numpy.fft's transforms: one FFT node per transformed axis (the complex transform
 * along that axis, unscaled), with NumPy's padding and cropping (n, s), its real transforms
 * (rfft keeps the first n // 2 + 1 outputs; irfft extends its input to the Hermitian spectrum
 * and keeps the real part) and its norms as one multiplication that fuses with what follows. */
#include <math.h>

#include "fe.h"

/* NumPy's dtype: float16, bfloat16 and float32 transform in complex64, the rest in
 * complex128 (a complex input keeps its dtype). */
static loom_array_t *as_complex(loom_ctx_t *ctx, loom_array_t *a) {
    loom_dtype_t d = (loom_dtype_t)a->dtype;
    if (ir_is_complex(d)) return a;
    loom_dtype_t c = ir_is_float(d) && d != LOOM_DTYPE_F64 ? LOOM_DTYPE_C64 : LOOM_DTYPE_C128;
    return loom_astype(ctx, a, c);
}

/* NumPy's error for a transform of fewer than one point. */
static loom_array_t *bad_points(loom_ctx_t *ctx, const char *fn, int64_t n) {
    fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
             "%s: Invalid number of FFT data points (%lld) specified.", fn, (long long)n);
    return &ctx->nil;
}

/* a cropped or zero-padded to n along axis ax (n LOOM_NONE: as it is). */
static loom_array_t *resize(loom_ctx_t *ctx, const char *fn, loom_array_t *a, int32_t ax,
                            int64_t n) {
    if (a->flags & FE_NIL) return a;
    int64_t len = a->shape[ax];
    if (n == LOOM_NONE || n == len) return a;
    if (n < 1) return bad_points(ctx, fn, n);
    if (n < len) return fe_slice_axis(ctx, a, ax, 0, n, LOOM_NONE);
    int64_t shape[LOOM_MAX_DIMS];
    for (int i = 0; i < a->ndim; i++) shape[i] = a->shape[i];
    shape[ax] = n - len;
    loom_array_t *parts[2] = {a, loom_zeros(ctx, (loom_dtype_t)a->dtype, a->ndim, shape)};
    return loom_concatenate(ctx, 2, parts, ax);
}

/* The unscaled complex transform of a (complex) along ax. */
static loom_array_t *c2c(loom_ctx_t *ctx, loom_array_t *a, int32_t ax, bool inverse) {
    if (a->flags & FE_NIL) return a;
    ir_params_t p = {0};
    p.axis = ax;
    p.k = inverse;
    return fe_shaped(ctx, IR_OP_FFT, (loom_dtype_t)a->dtype, a->ndim, a->shape, 1, &a, &p);
}

/* x times NumPy's normalisation for a transform of n points. */
static loom_array_t *normed(loom_ctx_t *ctx, loom_array_t *x, loom_fft_norm_t norm, bool inverse,
                            int64_t n) {
    double f = 1.0;
    if (norm == LOOM_FFT_ORTHO)
        f = 1.0 / sqrt((double)n);
    else if ((norm == LOOM_FFT_FORWARD) != inverse)
        f = 1.0 / (double)n;
    return f == 1.0 ? x : loom_multiply_f(ctx, x, f);
}

static loom_fft_norm_t swapped(loom_fft_norm_t norm) {
    return norm == LOOM_FFT_BACKWARD  ? LOOM_FFT_FORWARD
           : norm == LOOM_FFT_FORWARD ? LOOM_FFT_BACKWARD
                                      : norm;
}

/* Checks the common arguments; the axis in *ax. */
static bool args_ok(loom_ctx_t *ctx, const char *fn, loom_array_t *a, int32_t axis,
                    loom_fft_norm_t norm, int32_t *ax) {
    if (!fe_check_arg(ctx, fn, a)) return false;
    if ((unsigned)norm > LOOM_FFT_FORWARD) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: Invalid norm value %d; should be \"backward\", \"ortho\" or \"forward\".", fn,
                 (int)norm);
        return false;
    }
    if (a->ndim == 0) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: the array must have at least one axis",
                 fn);
        return false;
    }
    return fe_axis(ctx, fn, axis, a->ndim, ax);
}

static loom_array_t *complex_fft(loom_ctx_t *ctx, const char *fn, loom_array_t *a, int64_t n,
                                 int32_t axis, loom_fft_norm_t norm, bool inverse) {
    int32_t ax;
    if (!ctx) return NULL;
    if (!args_ok(ctx, fn, a, axis, norm, &ax)) return &ctx->nil;
    loom_array_t *x = resize(ctx, fn, as_complex(ctx, a), ax, n);
    if (x->flags & FE_NIL) return x;
    return normed(ctx, c2c(ctx, x, ax, inverse), norm, inverse, x->shape[ax]);
}

LOOM_API loom_array_t *loom_fft(loom_ctx_t *ctx, loom_array_t *a, int64_t n, int32_t axis,
                                loom_fft_norm_t norm) {
    return complex_fft(ctx, "fft", a, n, axis, norm, false);
}

LOOM_API loom_array_t *loom_ifft(loom_ctx_t *ctx, loom_array_t *a, int64_t n, int32_t axis,
                                 loom_fft_norm_t norm) {
    return complex_fft(ctx, "ifft", a, n, axis, norm, true);
}

LOOM_API loom_array_t *loom_rfft(loom_ctx_t *ctx, loom_array_t *a, int64_t n, int32_t axis,
                                 loom_fft_norm_t norm) {
    const char *fn = "rfft";
    int32_t ax;
    if (!ctx) return NULL;
    if (!args_ok(ctx, fn, a, axis, norm, &ax)) return &ctx->nil;
    if (ir_is_complex((loom_dtype_t)a->dtype)) {
        fe_error(ctx, LOOM_STATUS_DTYPE_ERROR, "%s: the input must be real, not %s", fn,
                 ir_dtypes[a->dtype].name);
        return &ctx->nil;
    }
    loom_array_t *x = resize(ctx, fn, as_complex(ctx, a), ax, n);
    if (x->flags & FE_NIL) return x;
    int64_t len = x->shape[ax];
    loom_array_t *y = fe_slice_axis(ctx, c2c(ctx, x, ax, false), ax, 0, len / 2 + 1, LOOM_NONE);
    return normed(ctx, y, norm, false, len);
}

LOOM_API loom_array_t *loom_irfft(loom_ctx_t *ctx, loom_array_t *a, int64_t n, int32_t axis,
                                  loom_fft_norm_t norm) {
    const char *fn = "irfft";
    int32_t ax;
    if (!ctx) return NULL;
    if (!args_ok(ctx, fn, a, axis, norm, &ax)) return &ctx->nil;
    if (n == LOOM_NONE) n = 2 * (a->shape[ax] - 1);
    if (n < 1) return bad_points(ctx, fn, n);
    /* the first n // 2 + 1 inputs, then the Hermitian rest: X[n - k] = conj(X[k]) */
    loom_array_t *h = resize(ctx, fn, as_complex(ctx, a), ax, n / 2 + 1);
    if (h->flags & FE_NIL) return h;
    loom_array_t *x = h;
    if ((n + 1) / 2 > 1) {
        loom_array_t *parts[2] = {
            h, loom_conj(ctx, fe_slice_axis(ctx, h, ax, (n + 1) / 2 - 1, 0, -1))};
        x = loom_concatenate(ctx, 2, parts, ax);
    }
    return normed(ctx, loom_real(ctx, c2c(ctx, x, ax, true)), norm, true, n);
}

LOOM_API loom_array_t *loom_hfft(loom_ctx_t *ctx, loom_array_t *a, int64_t n, int32_t axis,
                                 loom_fft_norm_t norm) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "hfft", a)) return &ctx->nil;
    return loom_irfft(ctx, loom_conj(ctx, as_complex(ctx, a)), n, axis, swapped(norm));
}

LOOM_API loom_array_t *loom_ihfft(loom_ctx_t *ctx, loom_array_t *a, int64_t n, int32_t axis,
                                  loom_fft_norm_t norm) {
    if (!ctx) return NULL;
    return loom_conj(ctx, loom_rfft(ctx, a, n, axis, swapped(norm)));
}

/* NumPy's _cook_nd_args: the axes (given, or the last len(s), or all) and each one's n
 * (given, or the axis's extent; irfftn's last: 2 (m - 1)). */
static bool cook(loom_ctx_t *ctx, const char *fn, loom_array_t *a, int32_t naxes, const int64_t *s,
                 const int32_t *axes, bool invreal, int32_t *m, int32_t *ax, int64_t *ns) {
    if (!fe_check_arg(ctx, fn, a)) return false;
    int32_t k = axes || s ? naxes : a->ndim;
    if (k < 0 || k > a->ndim) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: %d axes for a %d-d array", fn, (int)k,
                 (int)a->ndim);
        return false;
    }
    uint32_t seen = 0;
    for (int32_t i = 0; i < k; i++) {
        int32_t given = axes ? axes[i] : a->ndim - k + i;
        if (!fe_axis(ctx, fn, given, a->ndim, &ax[i])) return false;
        if (seen & (1u << ax[i])) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: repeated axis %d", fn, (int)given);
            return false;
        }
        seen |= 1u << ax[i];
        ns[i] = s ? s[i] : a->shape[ax[i]];
    }
    if (invreal && k > 0 && !s) ns[k - 1] = 2 * (a->shape[ax[k - 1]] - 1);
    *m = k;
    return true;
}

static loom_array_t *nd(loom_ctx_t *ctx, const char *fn, int kind, loom_array_t *a, int32_t naxes,
                        const int64_t *s, const int32_t *axes, loom_fft_norm_t norm) {
    if (!ctx) return NULL;
    int32_t m, ax[LOOM_MAX_DIMS];
    int64_t ns[LOOM_MAX_DIMS];
    if (!cook(ctx, fn, a, naxes, s, axes, kind == 3, &m, ax, ns)) return &ctx->nil;
    loom_array_t *x = a;
    switch (kind) {
        case 0: /* fftn, ifftn: the last axis first, as NumPy */
        case 1:
            if (m == 0) return as_complex(ctx, a);
            for (int32_t i = m - 1; i >= 0; i--)
                x = complex_fft(ctx, fn, x, ns[i], ax[i], norm, kind == 1);
            return x;
        case 2: /* rfftn: rfft over the last axis, then fft over the others */
            if (m == 0) return loom_rfft(ctx, a, LOOM_NONE, -1, norm);
            x = loom_rfft(ctx, x, ns[m - 1], ax[m - 1], norm);
            for (int32_t i = m - 2; i >= 0; i--) x = loom_fft(ctx, x, ns[i], ax[i], norm);
            return x;
        default: /* irfftn: ifft over all but the last axis, then irfft over it */
            if (m == 0) return loom_irfft(ctx, a, LOOM_NONE, -1, norm);
            for (int32_t i = 0; i < m - 1; i++) x = loom_ifft(ctx, x, ns[i], ax[i], norm);
            return loom_irfft(ctx, x, ns[m - 1], ax[m - 1], norm);
    }
}

LOOM_API loom_array_t *loom_fftn(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes, const int64_t *s,
                                 const int32_t *axes, loom_fft_norm_t norm) {
    return nd(ctx, "fftn", 0, a, naxes, s, axes, norm);
}

LOOM_API loom_array_t *loom_ifftn(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes, const int64_t *s,
                                  const int32_t *axes, loom_fft_norm_t norm) {
    return nd(ctx, "ifftn", 1, a, naxes, s, axes, norm);
}

LOOM_API loom_array_t *loom_rfftn(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes, const int64_t *s,
                                  const int32_t *axes, loom_fft_norm_t norm) {
    return nd(ctx, "rfftn", 2, a, naxes, s, axes, norm);
}

LOOM_API loom_array_t *loom_irfftn(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                   const int64_t *s, const int32_t *axes, loom_fft_norm_t norm) {
    return nd(ctx, "irfftn", 3, a, naxes, s, axes, norm);
}
