/* signal.c — numpy.fft's helper functions (fftfreq, rfftfreq, fftshift, ifftshift: generators
 * and index arithmetic that fuse into their consumers), np.convolve / np.correlate in the
 * direct form: out[t] = sum_i a[s + t + i] * v[i] (0 off the ends of a): for float32 and
 * float64 one CORRELATE node (a kernel of its own, register-blocked), for other dtypes a gather
 * whose indices are generator arithmetic, multiplied and summed in one reduction kernel; and
 * SciPy's fftconvolve, the direct form or the product of transforms by a cost rule. */
#include <math.h>
#include <string.h>

#include "fe.h"

LOOM_API loom_array_t *loom_fftfreq(loom_ctx_t *ctx, int64_t n, double d) {
    if (!ctx) return NULL;
    if (n < 1) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "fftfreq: n must be positive (%lld)",
                 (long long)n);
        return &ctx->nil;
    }
    /* NumPy: [0, 1, ..., (n-1)//2, -(n//2), ..., -1] * (1 / (n * d)) */
    int64_t half = (n - 1) / 2 + 1;
    loom_array_t *parts[2] = {loom_arange_int(ctx, 0, half, 1, LOOM_DTYPE_I64),
                              loom_arange_int(ctx, -(n / 2), 0, 1, LOOM_DTYPE_I64)};
    loom_array_t *k = n / 2 ? loom_concatenate(ctx, 2, parts, 0) : parts[0];
    return loom_multiply_f(ctx, k, 1.0 / ((double)n * d));
}

LOOM_API loom_array_t *loom_rfftfreq(loom_ctx_t *ctx, int64_t n, double d) {
    if (!ctx) return NULL;
    if (n < 1) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "rfftfreq: n must be positive (%lld)",
                 (long long)n);
        return &ctx->nil;
    }
    return loom_multiply_f(ctx, loom_arange_int(ctx, 0, n / 2 + 1, 1, LOOM_DTYPE_I64),
                           1.0 / ((double)n * d));
}

/* fftshift (inverse 0) / ifftshift (1): a roll by half of each given axis (all: naxes -1). */
static loom_array_t *shift(loom_ctx_t *ctx, const char *fn, loom_array_t *x, int32_t naxes,
                           const int32_t *axes, int inverse) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, x)) return &ctx->nil;
    int32_t all[LOOM_MAX_DIMS];
    if (x->ndim == 0) { /* NumPy's roll gets no shifts and raises */
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: a 0-d array has no axes to shift", fn);
        return &ctx->nil;
    }
    if (naxes < 0 || !axes) {
        for (int32_t i = 0; i < x->ndim; i++) all[i] = i;
        naxes = x->ndim;
        axes = all;
    }
    if (naxes > LOOM_MAX_DIMS) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: %d axes", fn, (int)naxes);
        return &ctx->nil;
    }
    loom_array_t *r = x;
    for (int32_t i = 0; i < naxes; i++) {
        int32_t ax;
        if (!fe_axis(ctx, fn, axes[i], x->ndim, &ax)) return &ctx->nil;
        int64_t h = x->shape[ax] / 2;
        r = loom_roll(ctx, r, inverse ? -h : h, ax);
    }
    return r == x ? loom_astype(ctx, x, (loom_dtype_t)x->dtype) : r;
}

LOOM_API loom_array_t *loom_fftshift(loom_ctx_t *ctx, loom_array_t *x, int32_t naxes,
                                     const int32_t *axes) {
    return shift(ctx, "fftshift", x, naxes, axes, 0);
}

LOOM_API loom_array_t *loom_ifftshift(loom_ctx_t *ctx, loom_array_t *x, int32_t naxes,
                                      const int32_t *axes) {
    return shift(ctx, "ifftshift", x, naxes, axes, 1);
}

/* NumPy's _pyarray_correlate of a (n1) and v (n2 <= n1; reversed when flip: convolve's
 * taps): lags from the mode's start. */
static loom_array_t *correlate_core(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *v, bool flip,
                                    loom_conv_mode_t mode, loom_dtype_t d) {
    int64_t n1 = a->shape[0], n2 = v->shape[0];
    int64_t start = mode == LOOM_CONV_FULL   ? 0
                    : mode == LOOM_CONV_SAME ? (n2 - 1) - n2 / 2
                                             : n2 - 1;
    int64_t len = mode == LOOM_CONV_FULL ? n1 + n2 - 1 : mode == LOOM_CONV_SAME ? n1 : n1 - n2 + 1;
    /* apad[s + t + i] = a[j], j = s + t + i - (n2 - 1), and 0 off the ends of a */
    int64_t col[2] = {len, 1}, row[2] = {1, n2}, off = start - (n2 - 1);
    if (d == LOOM_DTYPE_F32 || d == LOOM_DTYPE_F64) {
        loom_array_t *ops[2] = {loom_astype(ctx, a, d), loom_astype(ctx, v, d)};
        if ((ops[0]->flags & FE_NIL) || (ops[1]->flags & FE_NIL)) return &ctx->nil;
        ir_params_t p = {0};
        p.k = off;
        p.axis = flip;
        return fe_shaped(ctx, IR_OP_CORRELATE, d, 1, &len, 2, ops, &p);
    }
    if (flip) v = loom_flip(ctx, v, 0, NULL);
    loom_array_t *t =
        loom_reshape(ctx, loom_arange_int(ctx, off, off + len, 1, LOOM_DTYPE_I64), 2, col);
    loom_array_t *i = loom_reshape(ctx, loom_arange_int(ctx, 0, n2, 1, LOOM_DTYPE_I64), 2, row);
    loom_array_t *j = loom_add(ctx, t, i);
    loom_array_t *in =
        loom_logical_and(ctx, loom_greater_equal_i(ctx, j, 0), loom_less_i(ctx, j, n1));
    /* products off the ends are 0, not a[clipped] * v (which could be inf * 0) */
    loom_array_t *prod = loom_multiply(
        ctx, loom_take(ctx, loom_astype(ctx, a, d), j, 0, LOOM_TAKE_CLIP), loom_astype(ctx, v, d));
    int32_t last = 1;
    loom_array_t *s = loom_sum(ctx, loom_where(ctx, in, prod, loom_weak_int(ctx, 0)), 1, &last, 0);
    return loom_astype(ctx, s, d);
}

static bool conv_args(loom_ctx_t *ctx, const char *fn, loom_array_t **a, loom_array_t **v,
                      loom_conv_mode_t mode, loom_dtype_t *d) {
    if (!fe_check_arg(ctx, fn, *a) || !fe_check_arg(ctx, fn, *v)) return false;
    if ((unsigned)mode > LOOM_CONV_FULL) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: mode must be 'valid', 'same' or 'full' (%d)", fn, (int)mode);
        return false;
    }
    for (int k = 0; k < 2; k++) {
        loom_array_t **x = k ? v : a;
        if ((*x)->ndim > 1) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                     "%s: object too deep for desired array (%d dimensions)", fn, (int)(*x)->ndim);
            return false;
        }
        if ((*x)->ndim == 0) *x = loom_reshape(ctx, *x, 1, (int64_t[]){1});
        if ((*x)->flags & FE_NIL) return false;
        if ((*x)->shape[0] == 0) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: %s cannot be empty", fn,
                     k ? "v" : "a");
            return false;
        }
    }
    loom_array_t *both[2] = {*a, *v};
    int r = fe_result_type(ctx, fn, 2, both);
    if (r < 0) return false;
    *d = (loom_dtype_t)r;
    return true;
}

LOOM_API loom_array_t *loom_correlate(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *v,
                                      loom_conv_mode_t mode) {
    if (!ctx) return NULL;
    loom_dtype_t d;
    if (!conv_args(ctx, "correlate", &a, &v, mode, &d)) return &ctx->nil;
    /* NumPy's correlate2 conjugates the second operand */
    if (a->shape[0] >= v->shape[0])
        return correlate_core(ctx, a, fe_conj(ctx, v), false, mode, d);
    /* NumPy swaps the operands and reverses (and conjugates) the result */
    return fe_conj(ctx,
                   loom_flip(ctx, correlate_core(ctx, v, fe_conj(ctx, a), false, mode, d), 0, NULL));
}

LOOM_API loom_array_t *loom_convolve(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *v,
                                     loom_conv_mode_t mode) {
    if (!ctx) return NULL;
    loom_dtype_t d;
    if (!conv_args(ctx, "convolve", &a, &v, mode, &d)) return &ctx->nil;
    if (v->shape[0] > a->shape[0]) {
        loom_array_t *t = a;
        a = v;
        v = t;
    }
    return correlate_core(ctx, a, v, true, mode, d);
}

/* The smallest 2^a 3^b 5^c 7^d >= n: a length cuFFT (and the CPU device's mixed radix)
 * transform without Bluestein's padding. */
static int64_t fast_len(int64_t n) {
    int64_t best = INT64_MAX;
    for (int64_t p7 = 1; p7 < best; p7 *= 7)
        for (int64_t p5 = p7; p5 < best; p5 *= 5)
            for (int64_t p3 = p5; p3 < best; p3 *= 3) {
                int64_t v = p3;
                while (v < n) v *= 2;
                if (v < best) best = v;
                if (p3 > INT64_MAX / 3) break;
            }
    return best;
}

bool fe_fftconvolve_uses_fft(int64_t n1, int64_t n2) {
    /* Direct: one multiply-add per pair of elements. FFT: three transforms of the padded
     * length, FE_CONV_FFT_NLOGN products' worth per N log2 N, and a fixed cost of its six
     * steps (transforms, products, casts) worth FE_CONV_FFT_FIXED products. */
    int64_t small = n1 < n2 ? n1 : n2;
    if (small <= FE_CONV_DIRECT_MAX) return false;
    double n = (double)fast_len(n1 + n2 - 1);
    double direct = (double)n1 * (double)n2;
    double fft = FE_CONV_FFT_FIXED + FE_CONV_FFT_NLOGN * n * log2(n);
    return fft < direct;
}

LOOM_API loom_array_t *loom_fftconvolve(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *v,
                                        loom_conv_mode_t mode) {
    if (!ctx) return NULL;
    loom_dtype_t d;
    if (!conv_args(ctx, "fftconvolve", &a, &v, mode, &d)) return &ctx->nil;
    /* SciPy's dtypes: integers and bool in float64, float16 in float32 */
    if (!ir_is_float(d) && !ir_is_complex(d))
        d = LOOM_DTYPE_F64;
    else if (d == LOOM_DTYPE_F16 || d == LOOM_DTYPE_BF16)
        d = LOOM_DTYPE_F32;
    int64_t n1 = a->shape[0], n2 = v->shape[0], full = n1 + n2 - 1;
    loom_array_t *r;
    if (!fe_fftconvolve_uses_fft(n1, n2)) {
        r = n1 >= n2 ? correlate_core(ctx, a, v, true, LOOM_CONV_FULL, d)
                     : correlate_core(ctx, v, a, true, LOOM_CONV_FULL, d);
    } else {
        int64_t n = fast_len(full);
        a = loom_astype(ctx, a, d);
        v = loom_astype(ctx, v, d);
        if (ir_is_complex(d)) {
            loom_array_t *p = loom_multiply(ctx, loom_fft(ctx, a, n, 0, LOOM_FFT_BACKWARD),
                                            loom_fft(ctx, v, n, 0, LOOM_FFT_BACKWARD));
            r = loom_ifft(ctx, p, n, 0, LOOM_FFT_BACKWARD);
        } else {
            loom_array_t *p = loom_multiply(ctx, loom_rfft(ctx, a, n, 0, LOOM_FFT_BACKWARD),
                                            loom_rfft(ctx, v, n, 0, LOOM_FFT_BACKWARD));
            r = loom_irfft(ctx, p, n, 0, LOOM_FFT_BACKWARD);
        }
        r = loom_astype(ctx, fe_slice_axis(ctx, r, 0, 0, full, LOOM_NONE), d);
    }
    /* SciPy's modes: 'same' is a's length, centred; 'valid' the lags where one covers the other */
    int64_t start = 0, len = full;
    if (mode == LOOM_CONV_SAME) {
        start = (full - n1) / 2;
        len = n1;
    } else if (mode == LOOM_CONV_VALID) {
        int64_t lo = n1 < n2 ? n1 : n2, hi = n1 < n2 ? n2 : n1;
        start = lo - 1;
        len = hi - lo + 1;
    }
    return len == full ? r : fe_slice_axis(ctx, r, 0, start, start + len, LOOM_NONE);
}
