/* bits.c — np.packbits and np.unpackbits as elementwise work along an axis: packing is a
 * shift of each of 8 bits and their sum (a reduction over a split axis), unpacking a shift and
 * mask per bit and a merge of the new axis; no kernel of their own. */
#include "fe.h"

/* The 8 shifts of one byte (most significant bit first, or least), int64 shaped to lie along
 * axis `at` of an nd-axis array. */
static loom_array_t *bit_shifts(loom_ctx_t *ctx, int32_t nd, int32_t at, int little) {
    loom_array_t *k = loom_arange_int(ctx, 0, 8, 1, LOOM_DTYPE_I64);
    if (!little) k = loom_subtract(ctx, fe_i64(ctx, 7), k);
    int64_t shape[LOOM_MAX_DIMS];
    for (int32_t i = 0; i < nd; i++) shape[i] = i == at ? 8 : 1;
    return loom_reshape(ctx, k, nd, shape);
}

/* a, or a flattened when axis is LOOM_AXIS_NONE or a is 0-d; *ax the axis to work along. */
static loom_array_t *along(loom_ctx_t *ctx, const char *fn, loom_array_t *a, int32_t axis,
                           int32_t *ax) {
    if (axis == LOOM_AXIS_NONE || a->ndim == 0) {
        /* (NumPy takes a 0-d array as 1-d: its axis must be 0 or -1) */
        if (axis != LOOM_AXIS_NONE && !fe_axis(ctx, fn, axis, 1, ax)) return &ctx->nil;
        int64_t n = fe_size(a);
        *ax = 0;
        return loom_reshape(ctx, a, 1, &n);
    }
    if (!fe_axis(ctx, fn, axis, a->ndim, ax)) return &ctx->nil;
    if (a->ndim == LOOM_MAX_DIMS) { /* the split axis needs one more */
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: at most %d dimensions (%d)", fn,
                 LOOM_MAX_DIMS - 1, a->ndim);
        return &ctx->nil;
    }
    return a;
}

LOOM_API loom_array_t *loom_packbits(loom_ctx_t *ctx, loom_array_t *a, int32_t axis, int little) {
    const char *fn = "packbits";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a)) return &ctx->nil;
    loom_dtype_t d = (loom_dtype_t)a->dtype;
    if (!ir_is_int(d) && d != LOOM_DTYPE_BOOL) {
        fe_error(ctx, LOOM_STATUS_DTYPE_ERROR,
                 "%s: Expected an input array of integer or boolean data type (got %s)", fn,
                 ir_dtypes[d].name);
        return &ctx->nil;
    }
    int32_t ax;
    a = along(ctx, fn, a, axis, &ax);
    if (a->flags & FE_NIL) return a;
    int32_t nd = a->ndim;
    int64_t n = a->shape[ax], m = n / 8 + (n % 8 != 0), widths[2 * LOOM_MAX_DIMS] = {0};
    widths[2 * ax + 1] = 8 * m - n; /* zero bits to a whole byte */
    loom_array_t *bits = loom_astype(ctx, loom_not_equal(ctx, a, loom_weak_int(ctx, 0)),
                                     LOOM_DTYPE_U8);
    bits = loom_pad(ctx, bits, widths, LOOM_PAD_CONSTANT, 0);
    int64_t split[LOOM_MAX_DIMS];
    for (int32_t i = 0, j = 0; i < nd; i++) {
        split[j++] = i == ax ? m : a->shape[i];
        if (i == ax) split[j++] = 8;
    }
    bits = loom_reshape(ctx, bits, nd + 1, split);
    loom_array_t *w = loom_left_shift(ctx, loom_astype(ctx, fe_i64(ctx, 1), LOOM_DTYPE_U8),
                                      loom_astype(ctx, bit_shifts(ctx, nd + 1, ax + 1, little),
                                                  LOOM_DTYPE_U8));
    int32_t byte_axis = ax + 1;
    return loom_astype(ctx, loom_sum(ctx, loom_multiply(ctx, bits, w), 1, &byte_axis, 0),
                       LOOM_DTYPE_U8);
}

LOOM_API loom_array_t *loom_unpackbits(loom_ctx_t *ctx, loom_array_t *a, int32_t axis,
                                       int64_t count, int little) {
    const char *fn = "unpackbits";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a)) return &ctx->nil;
    if (a->dtype != LOOM_DTYPE_U8) {
        fe_error(ctx, LOOM_STATUS_DTYPE_ERROR,
                 "%s: Expected an input array of unsigned byte data type (got %s)", fn,
                 ir_dtypes[a->dtype].name);
        return &ctx->nil;
    }
    int32_t ax;
    a = along(ctx, fn, a, axis, &ax);
    if (a->flags & FE_NIL) return a;
    int32_t nd = a->ndim, at = ax + 1;
    int64_t n = a->shape[ax], bits_n = 8 * n, keep = bits_n;
    if (count != LOOM_NONE) {
        if (count < 0 && -count > bits_n) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                     "%s: -count larger than number of elements (%lld, %lld bits)", fn,
                     (long long)count, (long long)bits_n);
            return &ctx->nil;
        }
        keep = count < 0 ? bits_n + count : count;
    }
    loom_array_t *x = loom_expand_dims(ctx, a, 1, &at);
    loom_array_t *s = loom_astype(ctx, bit_shifts(ctx, nd + 1, at, little), LOOM_DTYPE_U8);
    loom_array_t *bits = loom_bitwise_and(ctx, loom_right_shift(ctx, x, s), loom_weak_int(ctx, 1));
    int64_t shape[LOOM_MAX_DIMS];
    for (int32_t i = 0; i < nd; i++) shape[i] = i == ax ? bits_n : a->shape[i];
    bits = loom_reshape(ctx, bits, nd, shape);
    if (keep <= bits_n) return fe_slice_axis(ctx, bits, ax, 0, keep, 1);
    int64_t widths[2 * LOOM_MAX_DIMS] = {0};
    widths[2 * ax + 1] = keep - bits_n; /* more bits than there are: zeros, NumPy's */
    return loom_pad(ctx, bits, widths, LOOM_PAD_CONSTANT, 0);
}
