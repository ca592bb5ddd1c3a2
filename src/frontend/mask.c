/* mask.c — masks and data-dependent shapes: count_nonzero, flatnonzero, nonzero, argwhere,
 * compress, extract. One IR node, NONZERO, lists the positions of the true elements of a bool
 * array with an extent fixed when it is built: either the count, which the builder evaluates
 * and reads back (one sync; the graph stays lazy after it), or a size the caller gives (JAX's
 * size= form: no sync, missing positions padded). Everything else is arithmetic on those
 * positions and gathers (index.c), except a mask over every element of an array (x[mask] of
 * x's shape, extract of as many elements): a COMPRESS node computes the mask and copies the
 * kept values in one pass, with no positions in between, and its count is read back after it
 * (the result is the first count elements of its buffer). */
#include <string.h>

#include "fe.h"

LOOM_API loom_array_t *loom_count_nonzero(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                          const int32_t *axes, int keepdims) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "count_nonzero", a)) return &ctx->nil;
    loom_array_t *t = loom_astype(ctx, loom_astype(ctx, a, LOOM_DTYPE_BOOL), LOOM_DTYPE_I64);
    return loom_sum(ctx, t, naxes, axes, keepdims);
}

/* The flattened truth of a (bool, 1-D). */
static loom_array_t *truth(loom_ctx_t *ctx, loom_array_t *a) {
    int64_t minus1 = -1;
    return loom_reshape(ctx, loom_astype(ctx, a, LOOM_DTYPE_BOOL), 1, &minus1);
}

/* NONZERO of t (truth()), `len` long. */
static loom_array_t *positions(loom_ctx_t *ctx, loom_array_t *t, int64_t len) {
    if (t->flags & FE_NIL) return t;
    return fe_shaped(ctx, IR_OP_NONZERO, LOOM_DTYPE_I64, 1, &len, 1, &t, NULL);
}

/* The number of true elements of t, evaluated now after t itself (the sync of a
 * data-dependent shape; t is then realised, so the positions do not compute it again, and
 * the count reads t's bytes rather than computing t a second time from its operands, as one
 * evaluation of both would). */
static bool count_now(loom_ctx_t *ctx, const char *fn, loom_array_t *t, int64_t *out) {
    if (t->flags & FE_NIL) return false;
    loom_scope_begin(ctx);
    loom_status_t st = loom_eval(ctx, 1, &t);
    if (st == LOOM_STATUS_OK)
        st = loom_read(ctx, loom_sum(ctx, loom_astype(ctx, t, LOOM_DTYPE_I64), -1, NULL, 0), out,
                       sizeof *out);
    loom_scope_end(ctx);
    if (st != LOOM_STATUS_OK && !ctx->err.status) fe_error(ctx, st, "%s: counting failed", fn);
    return st == LOOM_STATUS_OK;
}

static bool sized_ok(loom_ctx_t *ctx, const char *fn, int64_t size) {
    if (size < 0) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: size %lld is negative", fn,
                 (long long)size);
        return false;
    }
    return true;
}

LOOM_API loom_array_t *loom_flatnonzero(loom_ctx_t *ctx, loom_array_t *a) {
    const char *fn = "flatnonzero";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a)) return &ctx->nil;
    int64_t n;
    loom_array_t *t = truth(ctx, a);
    if (!count_now(ctx, fn, t, &n)) return &ctx->nil;
    return positions(ctx, t, n);
}

LOOM_API loom_array_t *loom_flatnonzero_sized(loom_ctx_t *ctx, loom_array_t *a, int64_t size,
                                              int64_t fill_value) {
    const char *fn = "flatnonzero";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a) || !sized_ok(ctx, fn, size)) return &ctx->nil;
    loom_array_t *f = positions(ctx, truth(ctx, a), size);
    if (f->flags & FE_NIL) return f;
    loom_array_t *zero = fe_i64(ctx, 0);
    return loom_where(ctx, loom_greater_equal(ctx, f, zero), f, fe_i64(ctx, fill_value));
}

/* The coordinates of flat positions f (padding -1 becomes fill) in a's shape: one array per
 * axis. */
static loom_status_t unravel(loom_ctx_t *ctx, const char *fn, loom_array_t *a, loom_array_t *f,
                             int64_t fill, int32_t n_out, loom_array_t **outs) {
    if (n_out < a->ndim || !outs) {
        return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                        "%s: room for %d results (outs %p), the array has %d axes", fn, n_out,
                        (void *)outs, a->ndim);
    }
    if (f->flags & FE_NIL) return ctx->err.status;
    loom_array_t *valid = loom_greater_equal(ctx, f, fe_i64(ctx, 0));
    loom_array_t *fillv = fe_i64(ctx, fill);
    int64_t stride = 1;
    for (int32_t d = a->ndim; d-- > 0;) {
        loom_array_t *c = loom_floor_divide(ctx, f, fe_i64(ctx, stride));
        if (d > 0) c = loom_remainder(ctx, c, fe_i64(ctx, a->shape[d]));
        outs[d] = loom_where(ctx, valid, c, fillv);
        stride *= a->shape[d] ? a->shape[d] : 1;
    }
    for (int32_t d = 0; d < a->ndim; d++)
        if (outs[d]->flags & FE_NIL)
            return ctx->err.status ? ctx->err.status : LOOM_STATUS_INTERNAL;
    return LOOM_STATUS_OK;
}

static bool not_0d(loom_ctx_t *ctx, const char *fn, const loom_array_t *a) {
    if (a->ndim == 0) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: calling nonzero on 0d arrays is not allowed; use atleast_1d(a) first", fn);
        return false;
    }
    return true;
}

LOOM_API loom_status_t loom_nonzero(loom_ctx_t *ctx, loom_array_t *a, int32_t n_out,
                                    loom_array_t **outs) {
    const char *fn = "nonzero";
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    if (!fe_check_input(ctx, fn, a) || !not_0d(ctx, fn, a)) return ctx->err.status;
    return unravel(ctx, fn, a, loom_flatnonzero(ctx, a), 0, n_out, outs);
}

LOOM_API loom_status_t loom_nonzero_sized(loom_ctx_t *ctx, loom_array_t *a, int64_t size,
                                          int64_t fill_value, int32_t n_out, loom_array_t **outs) {
    const char *fn = "nonzero";
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    if (!fe_check_input(ctx, fn, a) || !not_0d(ctx, fn, a) || !sized_ok(ctx, fn, size))
        return ctx->err.status;
    return unravel(ctx, fn, a, positions(ctx, truth(ctx, a), size), fill_value, n_out, outs);
}

LOOM_API loom_array_t *loom_argwhere(loom_ctx_t *ctx, loom_array_t *a) {
    const char *fn = "argwhere";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a)) return &ctx->nil;
    if (a->ndim == 0) { /* NumPy: shape (1, 0) or (0, 0) */
        int64_t n, shape[2] = {0, 0};
        if (!count_now(ctx, fn, truth(ctx, a), &n)) return &ctx->nil;
        shape[0] = n;
        return loom_zeros(ctx, LOOM_DTYPE_I64, 2, shape);
    }
    loom_array_t *outs[LOOM_MAX_DIMS];
    if (loom_nonzero(ctx, a, a->ndim, outs) != LOOM_STATUS_OK) return &ctx->nil;
    return loom_stack(ctx, a->ndim, outs, 1);
}

LOOM_API loom_array_t *loom_compress(loom_ctx_t *ctx, loom_array_t *condition, loom_array_t *a,
                                     int32_t axis) {
    const char *fn = "compress";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, condition) || !fe_check_arg(ctx, fn, a)) return &ctx->nil;
    if (condition->ndim != 1) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: condition must be a 1-d array, not %d-d",
                 fn, condition->ndim);
        return &ctx->nil;
    }
    int32_t ax;
    if (!fe_axis_or_flat(ctx, fn, &a, axis, &ax)) return &ctx->nil;
    /* NumPy reads a shorter condition as false past its end; a longer one must be false there */
    return loom_take(ctx, a, loom_flatnonzero(ctx, condition), ax, LOOM_TAKE_RAISE);
}

/* len elements of realised 1-D r from element `at` on, realised themselves: they share r's
 * buffer (a view node would be copied when evaluated or read). */
static loom_array_t *part_of(loom_ctx_t *ctx, loom_array_t *r, int64_t at, int64_t len) {
    if (!r->buf) {
        fe_error(ctx, LOOM_STATUS_INTERNAL, "compress: the selection was not computed");
        return &ctx->nil;
    }
    loom_array_t *a = fe_node_new(ctx, IR_OP_INPUT, (loom_dtype_t)r->dtype, 1, &len);
    if (a->flags & FE_NIL) return a;
    r->buf->refcount++;
    fe_realise(ctx, a, r->buf);
    a->offset = r->offset + at;
    return a;
}

/* The elements of a at the true elements of mask, both flattened and of one size: a COMPRESS
 * node evaluated now (one kernel that computes the mask and the values as it goes, the sync of
 * a data-dependent shape), its count read back from the tail, and its first `count` elements
 * as the result: an array over the node's buffer, which stays as large as a. */
static loom_array_t *compress_flat(loom_ctx_t *ctx, const char *fn, loom_array_t *mask,
                                   loom_array_t *a) {
    int64_t minus1 = -1, n = fe_size(a);
    int64_t tail = ir_compress_tail((loom_dtype_t)a->dtype), ext = n + tail;
    loom_array_t *ops[2] = {truth(ctx, mask), loom_reshape(ctx, a, 1, &minus1)};
    if (ops[0]->flags & FE_NIL) return ops[0];
    if (ops[1]->flags & FE_NIL) return ops[1];
    loom_array_t *r = fe_shaped(ctx, IR_OP_COMPRESS, (loom_dtype_t)a->dtype, 1, &ext, 2, ops, NULL);
    if (r->flags & FE_NIL) return r;
    unsigned char bytes[64] = {0};
    uint64_t count = 0;
    loom_scope_begin(ctx);
    loom_status_t st = loom_eval(ctx, 1, &r);
    if (st == LOOM_STATUS_OK && ctx->device == LOOM_DEVICE_NVRTC) /* compiled, not run */
        st = fe_error(ctx, LOOM_STATUS_NOT_AVAILABLE,
                      "%s: the compile-only device (nvrtc) computes no values, and the result's "
                      "size is the mask's count",
                      fn);
    else if (st == LOOM_STATUS_OK)
        st = loom_read(ctx, part_of(ctx, r, n, tail), bytes,
                       (size_t)tail * ir_dtypes[a->dtype].size);
    loom_scope_end(ctx);
    if (st != LOOM_STATUS_OK) {
        if (!ctx->err.status) fe_error(ctx, st, "%s: counting failed", fn);
        return &ctx->nil;
    }
    if (a->dtype == LOOM_DTYPE_BOOL)
        for (int b = 0; b < 64; b++) count |= (uint64_t)(bytes[b] & 1u) << b;
    else
        memcpy(&count, bytes, sizeof count);
    if (count > (uint64_t)n) {
        fe_error(ctx, LOOM_STATUS_INTERNAL, "%s: %llu kept of %lld elements", fn,
                 (unsigned long long)count, (long long)n);
        return &ctx->nil;
    }
    return part_of(ctx, r, 0, (int64_t)count);
}

LOOM_API loom_array_t *loom_extract(loom_ctx_t *ctx, loom_array_t *condition, loom_array_t *a) {
    const char *fn = "extract";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, condition) || !fe_check_arg(ctx, fn, a)) return &ctx->nil;
    if (fe_size(condition) == fe_size(a))
        return compress_flat(ctx, fn, condition, a);
    return loom_take(ctx, a, loom_flatnonzero(ctx, condition), LOOM_AXIS_NONE, LOOM_TAKE_RAISE);
}

LOOM_API loom_array_t *loom_boolean_index(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *mask,
                                          int32_t axis) {
    const char *fn = "boolean index";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a) || !fe_check_arg(ctx, fn, mask)) return &ctx->nil;
    int32_t k = mask->ndim;
    if (mask->dtype == LOOM_DTYPE_BOOL && k == 0 && axis == 0) {
        /* NumPy: a 0-d mask adds an axis of extent 1 (true) or 0 (false) */
        int32_t zero = 0;
        return loom_take(ctx, loom_expand_dims(ctx, a, 1, &zero), loom_flatnonzero(ctx, mask), 0,
                         LOOM_TAKE_RAISE);
    }
    if (mask->dtype != LOOM_DTYPE_BOOL) {
        fe_error(ctx, LOOM_STATUS_DTYPE_ERROR, "%s: the mask is %s, not bool", fn,
                 ir_dtypes[mask->dtype].name);
        return &ctx->nil;
    }
    if (k == 0 || axis < 0) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: a %d-d mask at axis %d of a %d-dimensional array", fn, k, axis, a->ndim);
        return &ctx->nil;
    }
    if (axis + k > a->ndim) { /* NumPy's IndexError */
        fe_error(ctx, LOOM_STATUS_INDEX_ERROR,
                 "%s: too many indices for array: array is %d-dimensional, but %d were indexed "
                 "(a %d-d mask at axis %d)",
                 fn, a->ndim, axis + k, k, axis);
        return &ctx->nil;
    }
    bool empty = false; /* an empty mask's axis matches any extent (NumPy's): nothing kept */
    for (int32_t i = 0; i < k; i++) {
        empty = empty || mask->shape[i] == 0;
        if (mask->shape[i] != a->shape[axis + i] && mask->shape[i] != 0) {
            char sm[256], sa[256];
            fe_format_shape(sm, sizeof sm, mask->ndim, mask->shape);
            fe_format_shape(sa, sizeof sa, a->ndim, a->shape);
            fe_error(ctx, LOOM_STATUS_INDEX_ERROR,
                     "%s: boolean index did not match indexed array along axis %d; size of axis "
                     "is %lld but size of corresponding boolean axis is %lld (mask %s, array %s)",
                     fn, axis + i, (long long)a->shape[axis + i], (long long)mask->shape[i], sm,
                     sa);
            return &ctx->nil;
        }
    }
    if (empty) { /* the masked axes become one of extent 0 */
        int64_t shape[LOOM_MAX_DIMS];
        int32_t j = 0;
        for (int32_t i = 0; i < a->ndim; i++)
            if (i < axis || i >= axis + k - 1) shape[j++] = i == axis + k - 1 ? 0 : a->shape[i];
        return loom_zeros(ctx, (loom_dtype_t)a->dtype, j, shape);
    }
    if (axis == 0 && k == a->ndim) /* every element masked: the kept values directly */
        return compress_flat(ctx, fn, mask, a);
    /* the k masked axes merged into one, then a take of the true positions */
    int64_t shape[LOOM_MAX_DIMS], merged = 1;
    int32_t j = 0;
    for (int32_t i = 0; i < a->ndim; i++) {
        if (i >= axis && i < axis + k) {
            merged *= a->shape[i];
            if (i == axis + k - 1) shape[j++] = merged;
        } else {
            shape[j++] = a->shape[i];
        }
    }
    loom_array_t *v = loom_reshape(ctx, a, j, shape);
    if (v->flags & FE_NIL) return v;
    return loom_take(ctx, v, loom_flatnonzero(ctx, mask), axis, LOOM_TAKE_RAISE);
}
