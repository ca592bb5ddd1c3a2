/* movement.c — views (reshape, transpose, slice, broadcast_to, expand_dims, squeeze, flip,
 * moveaxis) and joins (concatenate, stack): NumPy 2's argument rules and messages, then one IR
 * view node (RESHAPE, PERMUTE, SLICE, EXPAND) or a balanced tree of binary CONCAT nodes. Views
 * never copy at build time; the reference device reads them through strides. */
#include <stdio.h>
#include <string.h>

#include "fe.h"

bool fe_axis(loom_ctx_t *ctx, const char *fn, int32_t axis, int32_t ndim, int32_t *out) {
    if (axis < -ndim || axis >= ndim) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: axis %d is out of bounds for array of dimension %d", fn, axis, ndim);
        return false;
    }
    *out = axis < 0 ? axis + ndim : axis;
    return true;
}

bool fe_axis_or_flat(loom_ctx_t *ctx, const char *fn, loom_array_t **a, int32_t axis,
                     int32_t *out) {
    if (axis == LOOM_AXIS_NONE) {
        int64_t minus1 = -1;
        *a = loom_reshape(ctx, *a, 1, &minus1);
        *out = 0;
        return !((*a)->flags & FE_NIL);
    }
    return fe_axis(ctx, fn, axis, (*a)->ndim, out);
}

/* Normalises n axes against ndim into a bit set; a repeated axis is an error. */
static bool axis_set(loom_ctx_t *ctx, const char *fn, int32_t n, const int32_t *axes, int32_t ndim,
                     uint32_t *set) {
    *set = 0;
    for (int32_t i = 0; i < n; i++) {
        int32_t ax;
        if (!fe_axis(ctx, fn, axes[i], ndim, &ax)) return false;
        if (*set & (1u << ax)) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                     "%s: repeated axis (axis %d is given twice)", fn, axes[i]);
            return false;
        }
        *set |= 1u << ax;
    }
    return true;
}

loom_array_t *fe_merge_axes(loom_ctx_t *ctx, const char *fn, loom_array_t *a, int32_t n,
                            const int32_t *axes, int64_t *keep_shape) {
    uint32_t set;
    if (!axis_set(ctx, fn, n, axes, a->ndim, &set)) return &ctx->nil;
    int32_t perm[LOOM_MAX_DIMS], k = 0, nd = 0;
    int64_t shape[LOOM_MAX_DIMS], merged = 1;
    for (int32_t i = 0; i < a->ndim; i++)
        if (!(set & (1u << i))) perm[k++] = i, shape[nd++] = a->shape[i];
    for (int32_t i = 0; i < a->ndim; i++)
        if (set & (1u << i)) perm[k++] = i, merged *= a->shape[i];
    if (nd == LOOM_MAX_DIMS) { /* n 0 on an array of the most axes: no room for the new one */
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: axis=() on an array of %d dimensions needs one more (loom allows %d)", fn,
                 (int)a->ndim, LOOM_MAX_DIMS);
        return &ctx->nil;
    }
    shape[nd++] = merged;
    for (int32_t i = 0; keep_shape && i < a->ndim; i++)
        keep_shape[i] = set & (1u << i) ? 1 : a->shape[i];
    return loom_reshape(ctx, loom_transpose(ctx, a, a->ndim, perm), nd, shape);
}

static bool arg_ok(loom_ctx_t *ctx, const char *fn, loom_array_t *a) {
    return ctx && fe_check_arg(ctx, fn, a);
}

static bool list_ok(loom_ctx_t *ctx, const char *fn, int32_t n, const void *list,
                    const char *what) {
    if (n < 0 || n > LOOM_MAX_DIMS || (n > 0 && !list)) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: %d %s at %p", fn, n, what, list);
        return false;
    }
    return true;
}

static loom_array_t *view(loom_ctx_t *ctx, ir_op_t op, loom_array_t *a, int32_t ndim,
                          const int64_t *shape, const ir_params_t *p) {
    return fe_shaped(ctx, op, (loom_dtype_t)a->dtype, ndim, shape, 1, &a, p);
}

LOOM_API loom_array_t *loom_reshape(loom_ctx_t *ctx, loom_array_t *a, int32_t ndim,
                                    const int64_t *shape) {
    const char *fn = "reshape";
    if (!ctx) return NULL;
    if (!arg_ok(ctx, fn, a) || !list_ok(ctx, fn, ndim, shape, "extents")) return &ctx->nil;
    int64_t out[LOOM_MAX_DIMS], known = 1;
    int unknown = -1;
    for (int32_t i = 0; i < ndim; i++) {
        out[i] = shape[i];
        if (shape[i] == -1 && unknown < 0) {
            unknown = i;
            continue;
        }
        if (shape[i] < 0) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                     shape[i] == -1 ? "%s: can only specify one unknown dimension"
                                    : "%s: negative dimensions not allowed",
                     fn);
            return &ctx->nil;
        }
        if (!base_mul_i64(known, shape[i], &known)) known = -1;
    }
    int64_t size = fe_size(a);
    if (unknown >= 0 && known > 0 && size % known == 0) out[unknown] = size / known;
    if (known < 0 || (unknown >= 0 && (known == 0 || size % known)) ||
        (unknown < 0 && known != size)) {
        char s[256];
        fe_format_shape(s, sizeof s, ndim, shape);
        fe_error(ctx, LOOM_STATUS_SHAPE_MISMATCH,
                 "%s: cannot reshape array of size %lld into shape %s", fn, (long long)size, s);
        return &ctx->nil;
    }
    /* a size-0 array passes the size test with any other extents: bound them as well */
    if (!fe_check_shape(ctx, fn, ndim, out, NULL)) return &ctx->nil;
    return view(ctx, IR_OP_RESHAPE, a, ndim, out, NULL);
}

LOOM_API loom_array_t *loom_transpose(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                      const int32_t *axes) {
    const char *fn = "transpose";
    if (!ctx) return NULL;
    if (!arg_ok(ctx, fn, a)) return &ctx->nil;
    ir_params_t p = {0};
    int64_t shape[LOOM_MAX_DIMS];
    int32_t nd = a->ndim;
    if (axes && naxes != nd) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: axes don't match array (%d axes for an array of dimension %d)", fn, naxes,
                 nd);
        return &ctx->nil;
    }
    uint32_t set;
    if (axes && !axis_set(ctx, fn, naxes, axes, nd, &set)) return &ctx->nil;
    for (int32_t i = 0; i < nd; i++) {
        int32_t ax = axes ? (axes[i] < 0 ? axes[i] + nd : axes[i]) : nd - 1 - i;
        p.ax[i] = ax;
        shape[i] = a->shape[ax];
    }
    return view(ctx, IR_OP_PERMUTE, a, nd, shape, &p);
}

/* Python's slice.indices(): clipped start and the element count. */
static int64_t slice_count(int64_t len, int64_t start, int64_t stop, int64_t step, int64_t *first) {
    int64_t lo = step < 0 ? -1 : 0, hi = step < 0 ? len - 1 : len;
    if (start == LOOM_NONE) {
        start = step < 0 ? hi : lo;
    } else if (start < 0) {
        start = start + len < lo ? lo : start + len;
    } else if (start > hi) {
        start = hi;
    }
    if (stop == LOOM_NONE) {
        stop = step < 0 ? lo : hi;
    } else if (stop < 0) {
        stop = stop + len < lo ? lo : stop + len;
    } else if (stop > hi) {
        stop = hi;
    }
    int64_t n = 0;
    if (step > 0 && stop > start) n = (stop - start - 1) / step + 1;
    if (step < 0 && start > stop) n = (start - stop - 1) / -step + 1;
    *first = n ? start : 0;
    return n;
}

LOOM_API loom_array_t *loom_slice(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                  const int64_t *starts, const int64_t *stops,
                                  const int64_t *steps) {
    const char *fn = "slice";
    if (!ctx) return NULL;
    if (!arg_ok(ctx, fn, a)) return &ctx->nil;
    if (naxes < 0 || naxes > a->ndim) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: too many indices for array: array is %d-dimensional, but %d were indexed", fn,
                 a->ndim, naxes);
        return &ctx->nil;
    }
    ir_params_t p = {0};
    int64_t shape[LOOM_MAX_DIMS];
    for (int32_t i = 0; i < a->ndim; i++) {
        bool given = i < naxes;
        int64_t step = given && steps && steps[i] != LOOM_NONE ? steps[i] : 1;
        if (step == 0) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: slice step cannot be zero (axis %d)",
                     fn, i);
            return &ctx->nil;
        }
        shape[i] = slice_count(a->shape[i], given && starts ? starts[i] : LOOM_NONE,
                               given && stops ? stops[i] : LOOM_NONE, step, &p.ax[i]);
        p.step[i] = step;
    }
    return view(ctx, IR_OP_SLICE, a, a->ndim, shape, &p);
}

LOOM_API loom_array_t *loom_broadcast_to(loom_ctx_t *ctx, loom_array_t *a, int32_t ndim,
                                         const int64_t *shape) {
    const char *fn = "broadcast_to";
    if (!ctx) return NULL;
    if (!arg_ok(ctx, fn, a) || !fe_check_shape(ctx, fn, ndim, shape, NULL)) return &ctx->nil;
    bool ok = ndim >= a->ndim;
    for (int32_t i = 0; ok && i < a->ndim; i++) {
        int64_t e = a->shape[i], r = shape[i + ndim - a->ndim];
        ok = e == r || e == 1;
    }
    if (!ok) {
        char sa[256], sb[256];
        fe_format_shape(sa, sizeof sa, a->ndim, a->shape);
        fe_format_shape(sb, sizeof sb, ndim, shape);
        fe_error(ctx, LOOM_STATUS_SHAPE_MISMATCH,
                 "%s: cannot broadcast an array of shape %s to the requested shape %s", fn, sa, sb);
        return &ctx->nil;
    }
    return view(ctx, IR_OP_EXPAND, a, ndim, shape, NULL);
}

LOOM_API loom_array_t *loom_expand_dims(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                        const int32_t *axes) {
    const char *fn = "expand_dims";
    if (!ctx) return NULL;
    if (!arg_ok(ctx, fn, a) || !list_ok(ctx, fn, naxes, axes, "axes")) return &ctx->nil;
    int32_t nd = a->ndim + naxes;
    uint32_t set;
    if (nd > LOOM_MAX_DIMS) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: %d axes is more than %d", fn, nd,
                 LOOM_MAX_DIMS);
        return &ctx->nil;
    }
    if (!axis_set(ctx, fn, naxes, axes, nd, &set)) return &ctx->nil;
    int64_t shape[LOOM_MAX_DIMS];
    for (int32_t i = 0, k = 0; i < nd; i++) shape[i] = (set >> i) & 1u ? 1 : a->shape[k++];
    return view(ctx, IR_OP_RESHAPE, a, nd, shape, NULL);
}

LOOM_API loom_array_t *loom_squeeze(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                    const int32_t *axes) {
    const char *fn = "squeeze";
    if (!ctx) return NULL;
    if (!arg_ok(ctx, fn, a)) return &ctx->nil;
    uint32_t set = 0;
    if (axes) {
        if (!list_ok(ctx, fn, naxes, axes, "axes") ||
            !axis_set(ctx, fn, naxes, axes, a->ndim, &set))
            return &ctx->nil;
        for (int32_t i = 0; i < a->ndim; i++)
            if ((set >> i) & 1u && a->shape[i] != 1) {
                fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                         "%s: cannot select an axis to squeeze out which has size not equal to "
                         "one (axis %d has extent %lld)",
                         fn, i, (long long)a->shape[i]);
                return &ctx->nil;
            }
    } else {
        for (int32_t i = 0; i < a->ndim; i++)
            if (a->shape[i] == 1) set |= 1u << i;
    }
    int64_t shape[LOOM_MAX_DIMS];
    int32_t nd = 0;
    for (int32_t i = 0; i < a->ndim; i++)
        if (!((set >> i) & 1u)) shape[nd++] = a->shape[i];
    return view(ctx, IR_OP_RESHAPE, a, nd, shape, NULL);
}

LOOM_API loom_array_t *loom_flip(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                 const int32_t *axes) {
    const char *fn = "flip";
    if (!ctx) return NULL;
    if (!arg_ok(ctx, fn, a)) return &ctx->nil;
    uint32_t set = axes ? 0 : ~0u;
    if (axes &&
        (!list_ok(ctx, fn, naxes, axes, "axes") || !axis_set(ctx, fn, naxes, axes, a->ndim, &set)))
        return &ctx->nil;
    ir_params_t p = {0};
    for (int32_t i = 0; i < a->ndim; i++) {
        bool rev = (set >> i) & 1u && a->shape[i] > 0;
        p.ax[i] = rev ? a->shape[i] - 1 : 0;
        p.step[i] = rev ? -1 : 1;
    }
    return view(ctx, IR_OP_SLICE, a, a->ndim, a->shape, &p);
}

LOOM_API loom_array_t *loom_moveaxis(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                     const int32_t *source, const int32_t *destination) {
    const char *fn = "moveaxis";
    if (!ctx) return NULL;
    if (!arg_ok(ctx, fn, a) || !list_ok(ctx, fn, naxes, source, "source axes") ||
        !list_ok(ctx, fn, naxes, destination, "destination axes"))
        return &ctx->nil;
    int32_t nd = a->ndim, src[LOOM_MAX_DIMS], dst[LOOM_MAX_DIMS];
    uint32_t sset, dset;
    if (!axis_set(ctx, "moveaxis (source)", naxes, source, nd, &sset) ||
        !axis_set(ctx, "moveaxis (destination)", naxes, destination, nd, &dset))
        return &ctx->nil;
    for (int32_t i = 0; i < naxes; i++) {
        src[i] = source[i] < 0 ? source[i] + nd : source[i];
        dst[i] = destination[i] < 0 ? destination[i] + nd : destination[i];
    }
    /* NumPy: the unmoved axes in order, then each moved axis inserted at its destination in
     * increasing destination order; equivalently, fill destinations first, the rest in order. */
    int32_t order[LOOM_MAX_DIMS];
    for (int32_t i = 0; i < nd; i++) order[i] = -1;
    for (int32_t i = 0; i < naxes; i++) order[dst[i]] = src[i];
    for (int32_t i = 0, k = 0; i < nd; i++) {
        if (order[i] >= 0) continue;
        while ((sset >> k) & 1u) k++;
        order[i] = k++;
    }
    return loom_transpose(ctx, a, nd, order);
}

/* The dtype of a join: np.result_type of the arrays (their dtypes, weak or not). */
static int join_dtype(loom_ctx_t *ctx, const char *fn, int32_t n, loom_array_t *const *arrays) {
    int d = arrays[0]->dtype;
    for (int32_t i = 1; i < n; i++) {
        int p = fe_promote(ctx, fn, (loom_dtype_t)d, (loom_dtype_t)arrays[i]->dtype);
        if (p < 0) return -1;
        d = p;
    }
    return d;
}

static bool arrays_ok(loom_ctx_t *ctx, const char *fn, int32_t n, loom_array_t *const *arrays) {
    if (n < 1 || !arrays) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: need at least one array to %s", fn,
                 fn[0] == 's' ? "stack" : "concatenate");
        return false;
    }
    for (int32_t i = 0; i < n; i++)
        if (!fe_check_arg(ctx, fn, arrays[i])) return false;
    return true;
}

/* One binary CONCAT of a and b along axis; nil (with an error) when the joined extent does
 * not fit. */
static loom_array_t *concat2(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b, int32_t axis,
                             loom_dtype_t d) {
    ir_params_t p = {0};
    p.axis = axis;
    loom_array_t *ops[2] = {a, b};
    int64_t shape[LOOM_MAX_DIMS];
    memcpy(shape, a->shape, sizeof shape);
    if (__builtin_add_overflow(shape[axis], b->shape[axis], &shape[axis]) ||
        !fe_check_shape(ctx, "concatenate", a->ndim, shape, NULL)) {
        if (!ctx->err.status)
            fe_error(ctx, LOOM_STATUS_OVERFLOW, "concatenate: the joined extent overflows");
        return &ctx->nil;
    }
    return fe_shaped(ctx, IR_OP_CONCAT, d, a->ndim, shape, 2, ops, &p);
}

/* Joins along axis (already checked) arrays of one dtype and matching extents, as a balanced
 * tree of binary CONCATs: neighbours pair up level by level, so the tree is ceil(log2 n) deep
 * and evaluating it copies each element once per level, O(n log n) in all. (A chain, each
 * CONCAT appending one array to the previous result, copied O(n^2) elements and was n deep.) */
static loom_array_t *join(loom_ctx_t *ctx, int32_t n, loom_array_t *const *arrays, int32_t axis,
                          loom_dtype_t d) {
    loom_array_t **level = base_malloc(&ctx->al, (size_t)n, sizeof *level);
    if (!level) {
        fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "concatenate: out of memory");
        return &ctx->nil;
    }
    bool ok = true;
    for (int32_t i = 0; i < n && ok; i++) {
        level[i] = loom_astype(ctx, arrays[i], d);
        ok = !(level[i]->flags & FE_NIL);
    }
    for (int32_t m = n; ok && m > 1; m = (m + 1) / 2) {
        for (int32_t i = 0; i < m / 2 && ok; i++) {
            level[i] = concat2(ctx, level[2 * i], level[2 * i + 1], axis, d);
            ok = !(level[i]->flags & FE_NIL);
        }
        if (m % 2) level[m / 2] = level[m - 1];
    }
    loom_array_t *r = ok ? level[0] : &ctx->nil;
    base_free(&ctx->al, level);
    return r;
}

LOOM_API loom_array_t *loom_concatenate(loom_ctx_t *ctx, int32_t n, loom_array_t *const *arrays,
                                        int32_t axis) {
    const char *fn = "concatenate";
    if (!ctx) return NULL;
    if (!arrays_ok(ctx, fn, n, arrays)) return &ctx->nil;
    /* NEP 50, as np.where: a Python scalar yields to the arrays (NumPy 2's concatenate((f16,
     * 2.5)) is float16; an int out of range wraps). np.stack converts them first (strong). */
    int d = fe_value_dtype(ctx, fn, n, arrays);
    if (d < 0) return &ctx->nil;
    if (axis == LOOM_AXIS_NONE) {
        loom_array_t **flat = base_malloc(&ctx->al, (size_t)n, sizeof *flat);
        if (!flat) {
            fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "%s: out of memory", fn);
            return &ctx->nil;
        }
        int64_t minus1 = -1;
        bool ok = true;
        for (int32_t i = 0; i < n; i++) {
            flat[i] = loom_reshape(ctx, arrays[i], 1, &minus1);
            ok = ok && !(flat[i]->flags & FE_NIL);
        }
        loom_array_t *r = ok ? join(ctx, n, flat, 0, (loom_dtype_t)d) : &ctx->nil;
        base_free(&ctx->al, flat);
        return r;
    }
    const loom_array_t *a0 = arrays[0];
    if (a0->ndim == 0) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: zero-dimensional arrays cannot be concatenated", fn);
        return &ctx->nil;
    }
    int32_t ax;
    if (!fe_axis(ctx, fn, axis, a0->ndim, &ax)) return &ctx->nil;
    for (int32_t i = 1; i < n; i++) {
        const loom_array_t *b = arrays[i];
        if (b->ndim != a0->ndim) {
            fe_error(ctx, LOOM_STATUS_SHAPE_MISMATCH,
                     "%s: all the input arrays must have same number of dimensions, but the "
                     "array at index 0 has %d dimension(s) and the array at index %d has %d "
                     "dimension(s)",
                     fn, a0->ndim, i, b->ndim);
            return &ctx->nil;
        }
        for (int32_t k = 0; k < a0->ndim; k++)
            if (k != ax && b->shape[k] != a0->shape[k]) {
                fe_error(ctx, LOOM_STATUS_SHAPE_MISMATCH,
                         "%s: all the input array dimensions except for the concatenation axis "
                         "must match exactly, but along dimension %d, the array at index 0 has "
                         "size %lld and the array at index %d has size %lld",
                         fn, k, (long long)a0->shape[k], i, (long long)b->shape[k]);
                return &ctx->nil;
            }
    }
    return join(ctx, n, arrays, ax, (loom_dtype_t)d);
}

LOOM_API loom_array_t *loom_stack(loom_ctx_t *ctx, int32_t n, loom_array_t *const *arrays,
                                  int32_t axis) {
    const char *fn = "stack";
    if (!ctx) return NULL;
    if (!arrays_ok(ctx, fn, n, arrays)) return &ctx->nil;
    const loom_array_t *a0 = arrays[0];
    for (int32_t i = 1; i < n; i++)
        if (arrays[i]->ndim != a0->ndim ||
            memcmp(arrays[i]->shape, a0->shape, (size_t)a0->ndim * sizeof *a0->shape)) {
            char sa[256], sb[256];
            fe_format_shape(sa, sizeof sa, a0->ndim, a0->shape);
            fe_format_shape(sb, sizeof sb, arrays[i]->ndim, arrays[i]->shape);
            fe_error(ctx, LOOM_STATUS_SHAPE_MISMATCH,
                     "%s: all input arrays must have the same shape (array 0 is %s, array %d is "
                     "%s)",
                     fn, sa, i, sb);
            return &ctx->nil;
        }
    int32_t ax;
    if (!fe_axis(ctx, fn, axis, a0->ndim + 1, &ax)) return &ctx->nil;
    int d = join_dtype(ctx, fn, n, arrays);
    if (d < 0) return &ctx->nil;
    loom_array_t **ex = base_malloc(&ctx->al, (size_t)n, sizeof *ex);
    if (!ex) {
        fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "%s: out of memory", fn);
        return &ctx->nil;
    }
    bool ok = true;
    for (int32_t i = 0; i < n; i++) {
        ex[i] = loom_expand_dims(ctx, arrays[i], 1, &ax);
        ok = ok && !(ex[i]->flags & FE_NIL);
    }
    loom_array_t *r = ok ? join(ctx, n, ex, ax, (loom_dtype_t)d) : &ctx->nil;
    base_free(&ctx->al, ex);
    return r;
}

loom_array_t *fe_slice_axis(loom_ctx_t *ctx, loom_array_t *a, int32_t ax, int64_t start,
                            int64_t stop, int64_t step) {
    int64_t st[LOOM_MAX_DIMS], sp[LOOM_MAX_DIMS], sd[LOOM_MAX_DIMS];
    for (int32_t i = 0; i < a->ndim; i++) st[i] = sp[i] = sd[i] = LOOM_NONE;
    st[ax] = start;
    sp[ax] = stop;
    sd[ax] = step;
    return loom_slice(ctx, a, a->ndim, st, sp, sd);
}

loom_array_t *fe_index_axis(loom_ctx_t *ctx, loom_array_t *a, int32_t ax, int64_t k) {
    return loom_squeeze(ctx, fe_slice_axis(ctx, a, ax, k, k + 1, LOOM_NONE), 1, &ax);
}
