/* fft.c - numpy.fft's transforms as FFT nodes: the unscaled transform over a run of adjacent
 * axes (complex both ways, real to complex, complex to real), with NumPy's padding and cropping
 * (n, s), its axis order and its norms as one multiplication that fuses with what follows (or,
 * for a complex-to-real transform, with the kernel before it, which also clears the imaginary
 * parts NumPy ignores and gives cuFFT a buffer it may overwrite). */
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
    if (n == LOOM_NONE) n = len;
    if (n < 1) return bad_points(ctx, fn, n); /* an empty axis too, as NumPy */
    if (n == len) return a;
    if (n < len) return fe_slice_axis(ctx, a, ax, 0, n, LOOM_NONE);
    int64_t shape[LOOM_MAX_DIMS];
    for (int i = 0; i < a->ndim; i++) shape[i] = a->shape[i];
    shape[ax] = n - len;
    loom_array_t *parts[2] = {a, loom_zeros(ctx, (loom_dtype_t)a->dtype, a->ndim, shape)};
    return loom_concatenate(ctx, 2, parts, ax);
}

/* Whether a real transform over axes first..last of a must run over the last axes instead:
 * cuFFT's real side must start on a complex element's boundary, and a batch that has both
 * outer and inner axes is run as several calls, one element apart (CuPy copies the same way). */
static bool move_last(const loom_array_t *a, int32_t first, int32_t last) {
    int64_t outer = 1, inner = 1;
    for (int32_t i = 0; i < a->ndim; i++) {
        if (i < first) outer *= a->shape[i];
        if (i > last) inner *= a->shape[i];
    }
    return outer > 1 && inner > 1;
}

/* a with axes first..last moved to the end (back: the inverse move). */
static loom_array_t *to_last(loom_ctx_t *ctx, loom_array_t *a, int32_t first, int32_t last,
                             bool back) {
    int32_t k = last - first + 1, src[IR_FFT_MAX_RANK], dst[IR_FFT_MAX_RANK];
    for (int32_t i = 0; i < k; i++) src[i] = first + i, dst[i] = a->ndim - k + i;
    return back ? loom_moveaxis(ctx, a, k, dst, src) : loom_moveaxis(ctx, a, k, src, dst);
}

/* The unscaled transform of kind `kind` (IR_FFT_*) over axes first..last of a, one FFT node;
 * n: C2R's output points along last. */
static loom_array_t *transform(loom_ctx_t *ctx, loom_array_t *a, int32_t first, int32_t last,
                               int kind, int64_t n) {
    if (a->flags & FE_NIL) return a;
    if (kind == IR_FFT_R2C && move_last(a, first, last)) {
        int32_t k = last - first;
        loom_array_t *t = to_last(ctx, a, first, last, false);
        t = transform(ctx, t, a->ndim - 1 - k, a->ndim - 1, kind, n);
        return t->flags & FE_NIL ? t : to_last(ctx, t, first, last, true);
    }
    ir_params_t p = {0};
    p.axis = last;
    p.axes = (uint32_t)((2ull << last) - (1ull << first));
    p.k = kind;
    int64_t shape[LOOM_MAX_DIMS];
    for (int i = 0; i < a->ndim; i++) shape[i] = a->shape[i];
    loom_dtype_t d = (loom_dtype_t)a->dtype;
    if (kind == IR_FFT_R2C) shape[last] = shape[last] / 2 + 1, d = ir_complex_dtype(d);
    if (kind == IR_FFT_C2R) shape[last] = n, d = ir_real_dtype(d);
    return fe_shaped(ctx, IR_OP_FFT, d, a->ndim, shape, 1, &a, &p);
}

static loom_array_t *c2c(loom_ctx_t *ctx, loom_array_t *a, int32_t ax, bool inverse) {
    return transform(ctx, a, ax, ax, inverse ? IR_FFT_INVERSE : IR_FFT_FORWARD, 0);
}

/* NumPy's real dtype for rfft: float16, bfloat16 and float32 transform in float32, the rest
 * in float64. */
static loom_array_t *as_real(loom_ctx_t *ctx, loom_array_t *a) {
    loom_dtype_t d = (loom_dtype_t)a->dtype;
    loom_dtype_t r = ir_is_float(d) && d != LOOM_DTYPE_F64 ? LOOM_DTYPE_F32 : LOOM_DTYPE_F64;
    return d == r ? a : loom_astype(ctx, a, r);
}

/* The real transform of n points from the Hermitian half h (n / 2 + 1 along ax), times f:
 * the factor and the clearing of the imaginary parts of X[0] and X[n / 2] (NumPy ignores them;
 * cuFFT's C2R needs them zero) in one kernel before the call, whose output cuFFT may
 * overwrite. */
static loom_array_t *c2r(loom_ctx_t *ctx, loom_array_t *h, int32_t ax, int64_t n, double f) {
    if (h->flags & FE_NIL) return h;
    if (move_last(h, ax, ax)) { /* the kernel below writes the moved operand */
        loom_array_t *t = c2r(ctx, to_last(ctx, h, ax, ax, false), h->ndim - 1, n, f);
        return t->flags & FE_NIL ? t : to_last(ctx, t, ax, ax, true);
    }
    if (f != 1.0) h = loom_multiply_f(ctx, h, f);
    int64_t shape[LOOM_MAX_DIMS];
    for (int i = 0; i < h->ndim; i++) shape[i] = i == ax ? h->shape[ax] : 1;
    loom_array_t *idx = loom_reshape(
        ctx, loom_arange(ctx, 0, (double)h->shape[ax], 1, LOOM_DTYPE_I64), h->ndim, shape);
    loom_array_t *edge = loom_equal_i(ctx, loom_remainder_i(ctx, idx, n % 2 ? n : n / 2), 0);
    loom_array_t *zero = loom_zeros(ctx, ir_real_dtype((loom_dtype_t)h->dtype), 0, NULL);
    loom_array_t *re = loom_complex(ctx, loom_real(ctx, h), zero);
    return transform(ctx, loom_where(ctx, edge, re, h), ax, ax, IR_FFT_C2R, n);
}

/* NumPy's normalisation factor for a transform of n points. */
static double norm_factor(loom_fft_norm_t norm, bool inverse, int64_t n) {
    if (norm == LOOM_FFT_ORTHO) return 1.0 / sqrt((double)n);
    return (norm == LOOM_FFT_FORWARD) != inverse ? 1.0 / (double)n : 1.0;
}

/* x times NumPy's normalisation for a transform of n points. */
static loom_array_t *normed(loom_ctx_t *ctx, loom_array_t *x, loom_fft_norm_t norm, bool inverse,
                            int64_t n) {
    double f = norm_factor(norm, inverse, n);
    return f == 1.0 ? x : loom_multiply_f(ctx, x, f);
}

static loom_fft_norm_t swapped(loom_fft_norm_t norm) {
    return norm == LOOM_FFT_BACKWARD  ? LOOM_FFT_FORWARD
           : norm == LOOM_FFT_FORWARD ? LOOM_FFT_BACKWARD
                                      : norm;
}

/* Checks the common arguments; the axis in *ax. */
static bool norm_ok(loom_ctx_t *ctx, const char *fn, loom_fft_norm_t norm) {
    if ((unsigned)norm <= LOOM_FFT_FORWARD) return true;
    fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
             "%s: Invalid norm value %d; should be \"backward\", \"ortho\" or \"forward\".", fn,
             (int)norm);
    return false;
}

/* rfft's and rfftn's error for a complex input. */
static bool real_ok(loom_ctx_t *ctx, const char *fn, loom_array_t *a) {
    if (!ir_is_complex((loom_dtype_t)a->dtype)) return true;
    fe_error(ctx, LOOM_STATUS_DTYPE_ERROR, "%s: the input must be real, not %s", fn,
             ir_dtypes[a->dtype].name);
    return false;
}

static bool args_ok(loom_ctx_t *ctx, const char *fn, loom_array_t *a, int32_t axis,
                    loom_fft_norm_t norm, int32_t *ax) {
    if (!fe_check_arg(ctx, fn, a) || !norm_ok(ctx, fn, norm)) return false;
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
    if (!args_ok(ctx, fn, a, axis, norm, &ax) || !real_ok(ctx, fn, a)) return &ctx->nil;
    loom_array_t *x = resize(ctx, fn, as_real(ctx, a), ax, n);
    if (x->flags & FE_NIL) return x;
    return normed(ctx, transform(ctx, x, ax, ax, IR_FFT_R2C, 0), norm, false, x->shape[ax]);
}

LOOM_API loom_array_t *loom_irfft(loom_ctx_t *ctx, loom_array_t *a, int64_t n, int32_t axis,
                                  loom_fft_norm_t norm) {
    const char *fn = "irfft";
    int32_t ax;
    if (!ctx) return NULL;
    if (!args_ok(ctx, fn, a, axis, norm, &ax)) return &ctx->nil;
    if (n == LOOM_NONE) n = 2 * (a->shape[ax] - 1);
    if (n < 1) return bad_points(ctx, fn, n);
    loom_array_t *h = resize(ctx, fn, as_complex(ctx, a), ax, n / 2 + 1);
    return c2r(ctx, h, ax, n, norm_factor(norm, true, n));
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

/* The first axis of the run that ends at axis hi: hi and the adjacent axes of `set` below it
 * (bit i: axis i), at most IR_FFT_MAX_RANK in all. */
static int32_t run_start(uint32_t set, int32_t hi) {
    int32_t lo = hi;
    while (lo > 0 && ((set >> (lo - 1)) & 1u) && hi - lo + 1 < IR_FFT_MAX_RANK) lo--;
    return lo;
}

/* The complex transforms over the axes in `set`, one node per run of adjacent axes, the last
 * run first. */
static loom_array_t *runs(loom_ctx_t *ctx, loom_array_t *x, uint32_t set, bool inverse) {
    for (int32_t hi = x->ndim - 1; hi >= 0 && !(x->flags & FE_NIL); hi--) {
        if (!((set >> hi) & 1u)) continue;
        int32_t lo = run_start(set, hi);
        x = transform(ctx, x, lo, hi, inverse ? IR_FFT_INVERSE : IR_FFT_FORWARD, 0);
        hi = lo;
    }
    return x;
}

/* fftn, ifftn (kind 0, 1), rfftn (2: the real transform over the last given axis, with the
 * adjacent given axes below it in the same plan) and irfftn (3: the complex inverse over all
 * but the last given axis, then the real one over it), as NumPy composes them from 1-D
 * transforms; norms once, by the product of the points. */
static loom_array_t *nd(loom_ctx_t *ctx, const char *fn, int kind, loom_array_t *a, int32_t naxes,
                        const int64_t *s, const int32_t *axes, loom_fft_norm_t norm) {
    if (!ctx) return NULL;
    int32_t m, ax[LOOM_MAX_DIMS];
    int64_t ns[LOOM_MAX_DIMS];
    if (!cook(ctx, fn, a, naxes, s, axes, kind == 3, &m, ax, ns)) return &ctx->nil;
    if (!norm_ok(ctx, fn, norm) || (kind == 2 && !real_ok(ctx, fn, a))) return &ctx->nil;
    if (m == 0) {
        if (kind == 2) return loom_rfft(ctx, a, LOOM_NONE, -1, norm);
        if (kind == 3) return loom_irfft(ctx, a, LOOM_NONE, -1, norm);
        return as_complex(ctx, a);
    }
    bool real = kind >= 2, inverse = kind == 1 || kind == 3;
    loom_array_t *x = kind == 2 ? as_real(ctx, a) : as_complex(ctx, a);
    int32_t last = ax[m - 1];
    int64_t points = 1;
    uint32_t set = 0;
    for (int32_t i = 0; i < m; i++) {
        points *= ns[i];
        if (real && i == m - 1) break;
        x = resize(ctx, fn, x, ax[i], ns[i]);
        set |= 1u << ax[i];
    }
    if (real && ns[m - 1] < 1) return bad_points(ctx, fn, ns[m - 1]);
    if (kind == 2) {
        x = resize(ctx, fn, x, last, ns[m - 1]);
        int32_t lo = run_start(set, last);
        x = transform(ctx, x, lo, last, IR_FFT_R2C, 0);
        set &= ~(uint32_t)((1ull << last) - (1ull << lo));
    }
    x = runs(ctx, x, set, inverse);
    if (kind == 3)
        return c2r(ctx, resize(ctx, fn, x, last, ns[m - 1] / 2 + 1), last, ns[m - 1],
                   norm_factor(norm, true, points));
    return x->flags & FE_NIL ? x : normed(ctx, x, norm, inverse, points);
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
