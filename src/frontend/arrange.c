/* arrange.c — NumPy's stacking, splitting and rearranging helpers built from loom's joins,
 * views and gathers: hstack/vstack/dstack/column_stack and block (concatenations of reshaped
 * views), hsplit/vsplit/dsplit, fliplr/flipud and rollaxis (views), append, insert and delete
 * (slices joined, or gathers over index arithmetic; a boolean or index-array delete is a
 * compress, one sync), resize (a cyclic gather), trim_zeros (one sync for the bounds), diagflat
 * and identity. */
#include <stdio.h>
#include <string.h>

#include "fe.h"

/* ---- stacking ---- */

/* The n arrays made at least `nd`-dimensional as the stacking function `fn` makes them,
 * concatenated along `axis` (-1: hstack's rule). */
static loom_array_t *stack_like(loom_ctx_t *ctx, const char *fn, int32_t n,
                                loom_array_t *const *arrays, int32_t nd, int32_t axis) {
    if (!ctx) return NULL;
    if (n < 1 || !arrays) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: need at least one array to concatenate",
                 fn);
        return &ctx->nil;
    }
    for (int32_t i = 0; i < n; i++)
        if (!fe_check_arg(ctx, fn, arrays[i])) return &ctx->nil;
    loom_array_t **parts = base_malloc(&ctx->al, (size_t)n, sizeof *parts);
    if (!parts) {
        fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "%s: out of memory", fn);
        return &ctx->nil;
    }
    bool ok = true;
    for (int32_t i = 0; i < n && ok; i++) {
        loom_array_t *a = arrays[i];
        if (nd > 0) {
            parts[i] = loom_atleast_nd(ctx, a, nd);
        } else if (a->ndim < 2) { /* column_stack: (N,) -> (N, 1), () -> (1, 1) */
            int64_t s[2] = {a->ndim ? a->shape[0] : 1, 1};
            parts[i] = loom_reshape(ctx, a, 2, s);
        } else {
            parts[i] = a;
        }
        ok = !(parts[i]->flags & FE_NIL);
    }
    if (axis < 0) axis = parts[0]->ndim == 1 ? 0 : 1; /* hstack: 1-D arrays join end to end */
    loom_array_t *r = ok ? loom_concatenate(ctx, n, parts, axis) : &ctx->nil;
    base_free(&ctx->al, parts);
    return r;
}

LOOM_API loom_array_t *loom_hstack(loom_ctx_t *ctx, int32_t n, loom_array_t *const *arrays) {
    return stack_like(ctx, "hstack", n, arrays, 1, -1);
}

LOOM_API loom_array_t *loom_vstack(loom_ctx_t *ctx, int32_t n, loom_array_t *const *arrays) {
    return stack_like(ctx, "vstack", n, arrays, 2, 0);
}

LOOM_API loom_array_t *loom_dstack(loom_ctx_t *ctx, int32_t n, loom_array_t *const *arrays) {
    return stack_like(ctx, "dstack", n, arrays, 3, 2);
}

LOOM_API loom_array_t *loom_column_stack(loom_ctx_t *ctx, int32_t n, loom_array_t *const *arrays) {
    return stack_like(ctx, "column_stack", n, arrays, 0, 1);
}

/* np.block's walk over the pre-order description of the nested lists. */
typedef struct block_walk {
    int32_t depth, ndim, nlists, n, li, ai;
    const int32_t *lens;
    loom_array_t *const *arrays;
    int32_t path[LOOM_MAX_DIMS];
} block_walk_t;

/* "arrays[0][1]": where the walk stands at `level`. */
static void block_path(const block_walk_t *w, int32_t level, char *out, size_t cap) {
    size_t k = (size_t)snprintf(out, cap, "arrays");
    for (int32_t i = 0; i < level && k < cap; i++)
        k += (size_t)snprintf(out + k, cap - k, "[%d]", (int)w->path[i]);
}

/* The list at `level` (0: the outermost) joined: its items along axis level - depth. */
static loom_array_t *block_level(loom_ctx_t *ctx, block_walk_t *w, int32_t level) {
    if (level == w->depth) { /* an array, with leading 1s up to the result's ndim */
        if (w->ai >= w->n) goto bad;
        loom_array_t *a = w->arrays[w->ai++];
        if (!fe_check_arg(ctx, "block", a)) return &ctx->nil;
        int64_t s[LOOM_MAX_DIMS];
        int32_t lead = w->ndim - a->ndim;
        for (int32_t i = 0; i < w->ndim; i++) s[i] = i < lead ? 1 : a->shape[i - lead];
        return loom_reshape(ctx, a, w->ndim, s);
    }
    /* (every list holds an array, empty ones being errors: none is longer than n) */
    if (w->li >= w->nlists || w->lens[w->li] < 0 || w->lens[w->li] > w->n) goto bad;
    int32_t m = w->lens[w->li++];
    if (m == 0) {
        char where[128];
        block_path(w, level, where, sizeof where);
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "block: List at %s cannot be empty", where);
        return &ctx->nil;
    }
    loom_array_t **items = base_malloc(&ctx->al, (size_t)m, sizeof *items);
    if (!items) {
        fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "block: out of memory");
        return &ctx->nil;
    }
    loom_array_t *r = &ctx->nil;
    bool ok = true;
    for (int32_t i = 0; i < m && ok; i++) {
        w->path[level] = i;
        items[i] = block_level(ctx, w, level + 1);
        ok = !(items[i]->flags & FE_NIL);
    }
    if (ok) r = m == 1 ? items[0] : loom_concatenate(ctx, m, items, level - w->depth);
    base_free(&ctx->al, items);
    return r;
bad:
    fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
             "block: the list lengths do not describe %d arrays at depth %d", (int)w->n,
             (int)w->depth);
    return &ctx->nil;
}

LOOM_API loom_array_t *loom_block(loom_ctx_t *ctx, int32_t depth, int32_t nlists,
                                  const int32_t *lens, int32_t n, loom_array_t *const *arrays) {
    const char *fn = "block";
    if (!ctx) return NULL;
    if (depth < 0 || depth > LOOM_MAX_DIMS || nlists < 0 || n < 0 || (nlists && !lens) ||
        (n && !arrays) || (depth == 0 && n != 1)) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: depth %d (at most %d), %d lists and %d arrays", fn, (int)depth, LOOM_MAX_DIMS,
                 (int)nlists, (int)n);
        return &ctx->nil;
    }
    block_walk_t w = {
        .depth = depth, .ndim = depth, .nlists = nlists, .n = n, .lens = lens, .arrays = arrays};
    for (int32_t i = 0; i < n; i++) {
        if (!fe_check_arg(ctx, fn, arrays[i])) return &ctx->nil;
        if (arrays[i]->ndim > w.ndim) w.ndim = arrays[i]->ndim;
    }
    if (depth == 0) return fe_scope_adopt(ctx, arrays[0]);
    loom_array_t *r = block_level(ctx, &w, 0);
    if (!(r->flags & FE_NIL) && (w.li != nlists || w.ai != n)) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: the list lengths describe %d lists and %d arrays, not %d and %d", fn,
                 (int)w.li, (int)w.ai, (int)nlists, (int)n);
        return &ctx->nil;
    }
    return r;
}

/* ---- splitting and views ---- */

static loom_status_t split_like(loom_ctx_t *ctx, const char *fn, loom_array_t *a, int32_t min_nd,
                                int32_t n, const int64_t *indices, loom_array_t **outs) {
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    if (!fe_check_input(ctx, fn, a)) return ctx->err.status;
    if (a->ndim < min_nd) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s only works on arrays of %d or more dimensions (it has %d)", fn, (int)min_nd,
                 (int)a->ndim);
        return ctx->err.status;
    }
    /* hsplit: axis 1, or 0 of a 1-D array; vsplit 0; dsplit 2 */
    int32_t axis = fn[0] == 'v' ? 0 : fn[0] == 'd' ? 2 : a->ndim > 1 ? 1 : 0;
    return indices ? loom_split_at(ctx, a, n, indices, axis, outs)
                   : loom_array_split(ctx, a, n, axis, 1, outs);
}

LOOM_API loom_status_t loom_hsplit(loom_ctx_t *ctx, loom_array_t *a, int32_t n,
                                   const int64_t *indices, loom_array_t **outs) {
    return split_like(ctx, "hsplit", a, 1, n, indices, outs);
}

LOOM_API loom_status_t loom_vsplit(loom_ctx_t *ctx, loom_array_t *a, int32_t n,
                                   const int64_t *indices, loom_array_t **outs) {
    return split_like(ctx, "vsplit", a, 2, n, indices, outs);
}

LOOM_API loom_status_t loom_dsplit(loom_ctx_t *ctx, loom_array_t *a, int32_t n,
                                   const int64_t *indices, loom_array_t **outs) {
    return split_like(ctx, "dsplit", a, 3, n, indices, outs);
}

static loom_array_t *flip_axis(loom_ctx_t *ctx, const char *fn, loom_array_t *a, int32_t axis) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a)) return &ctx->nil;
    if (a->ndim < axis + 1) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: Input must be >= %d-d.", fn,
                 (int)axis + 1);
        return &ctx->nil;
    }
    return loom_flip(ctx, a, 1, &axis);
}

LOOM_API loom_array_t *loom_fliplr(loom_ctx_t *ctx, loom_array_t *a) {
    return flip_axis(ctx, "fliplr", a, 1);
}

LOOM_API loom_array_t *loom_flipud(loom_ctx_t *ctx, loom_array_t *a) {
    return flip_axis(ctx, "flipud", a, 0);
}

LOOM_API loom_array_t *loom_rollaxis(loom_ctx_t *ctx, loom_array_t *a, int32_t axis,
                                     int32_t start) {
    const char *fn = "rollaxis";
    if (!ctx) return NULL;
    int32_t ax;
    if (!fe_check_arg(ctx, fn, a) || !fe_axis(ctx, fn, axis, a->ndim, &ax)) return &ctx->nil;
    int32_t n = a->ndim, st = start < 0 ? start + n : start;
    if (st < 0 || st > n) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: 'start' arg requires %d <= start < %d, but %d was passed in", fn, (int)-n,
                 (int)n + 1, (int)start);
        return &ctx->nil;
    }
    if (ax < st) st--;
    int32_t perm[LOOM_MAX_DIMS], k = 0; /* the axes without ax, ax put back at st */
    for (int32_t i = 0; i < n; i++) {
        if (k == st) perm[k++] = ax;
        if (i != ax) perm[k++] = i;
    }
    if (k == st) perm[k++] = ax;
    return loom_transpose(ctx, a, n, perm);
}

/* ---- append, insert, delete ---- */

/* NumPy's axis=None of append, insert and delete: a flattened a (unless 1-D already), axis 0. */
static bool flat_or_axis(loom_ctx_t *ctx, const char *fn, loom_array_t **a, int32_t axis,
                         int32_t *ax) {
    if (!fe_check_arg(ctx, fn, *a)) return false;
    if (axis != LOOM_AXIS_NONE) return fe_axis(ctx, fn, axis, (*a)->ndim, ax);
    int64_t minus1 = -1;
    if ((*a)->ndim != 1) *a = loom_reshape(ctx, *a, 1, &minus1);
    *ax = 0;
    return !((*a)->flags & FE_NIL);
}

LOOM_API loom_array_t *loom_append(loom_ctx_t *ctx, loom_array_t *arr, loom_array_t *values,
                                   int32_t axis) {
    const char *fn = "append";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, arr) || !fe_check_arg(ctx, fn, values)) return &ctx->nil;
    loom_array_t *parts[2] = {arr, values};
    if (axis == LOOM_AXIS_NONE) {
        int64_t minus1 = -1;
        for (int i = 0; i < 2; i++) parts[i] = loom_reshape(ctx, parts[i], 1, &minus1);
        axis = 0;
    }
    return loom_concatenate(ctx, 2, parts, axis);
}

/* The shape of a with axis ax of extent n. */
static void with_extent(const loom_array_t *a, int32_t ax, int64_t n, int64_t *shape) {
    for (int32_t i = 0; i < a->ndim; i++) shape[i] = i == ax ? n : a->shape[i];
}

/* A 1-D int64 index array along axis ax of nd axes, shaped to broadcast there: (1, .., n, ..). */
static loom_array_t *along(loom_ctx_t *ctx, loom_array_t *idx, int32_t nd, int32_t ax) {
    int64_t s[LOOM_MAX_DIMS];
    for (int32_t i = 0; i < nd; i++) s[i] = i == ax ? idx->shape[0] : 1;
    return loom_reshape(ctx, idx, nd, s);
}

static loom_array_t *insert_one(loom_ctx_t *ctx, loom_array_t *arr, int64_t index,
                                loom_array_t *values, int32_t axis, int scalar, bool listed) {
    const char *fn = "insert";
    if (!ctx) return NULL;
    int32_t ax;
    if (!fe_check_arg(ctx, fn, values) || !flat_or_axis(ctx, fn, &arr, axis, &ax)) return &ctx->nil;
    int64_t n = arr->shape[ax];
    if (index < -n || index > n) {
        fe_error(ctx, LOOM_STATUS_INDEX_ERROR,
                 "%s: index %s%lld%s is out of bounds for axis %d with size %lld", fn,
                 listed ? "[" : "", (long long)index, listed ? "]" : "", (int)ax, (long long)n);
        return &ctx->nil;
    }
    if (index < 0) index += n;
    /* NumPy: values as an array of arr's dtype with at least arr's ndim (leading 1s); a scalar
     * index moves the first axis to the insertion axis (a[:, i] = v becomes a[:, i:i+1]) */
    loom_array_t *v = loom_astype(ctx, values, (loom_dtype_t)arr->dtype);
    if (v->ndim < arr->ndim) {
        int64_t s[LOOM_MAX_DIMS];
        int32_t lead = arr->ndim - v->ndim;
        for (int32_t i = 0; i < arr->ndim; i++) s[i] = i < lead ? 1 : v->shape[i - lead];
        v = loom_reshape(ctx, v, arr->ndim, s);
    }
    if (scalar && ax != 0) {
        int32_t zero = 0;
        v = loom_moveaxis(ctx, v, 1, &zero, &ax);
    }
    if (v->flags & FE_NIL) return v;
    int64_t shape[LOOM_MAX_DIMS];
    with_extent(arr, ax, ax < v->ndim ? v->shape[ax] : 1, shape);
    v = loom_broadcast_to(ctx, v, arr->ndim, shape);
    loom_array_t *parts[3] = {fe_slice_axis(ctx, arr, ax, 0, index, 1), v,
                              fe_slice_axis(ctx, arr, ax, index, LOOM_NONE, 1)};
    return loom_concatenate(ctx, 3, parts, ax);
}

LOOM_API loom_array_t *loom_insert_index(loom_ctx_t *ctx, loom_array_t *arr, int64_t index,
                                         loom_array_t *values, int32_t axis) {
    return insert_one(ctx, arr, index, values, axis, 1, false);
}

/* The array form of insert: m >= 2 int64 indices (or none). Lazy: the positions of the new
 * elements (NumPy's: each index plus its rank in a stable sort), a scatter of which new element
 * each output position takes, and a gather from arr or values by position. */
static loom_array_t *insert_many(loom_ctx_t *ctx, loom_array_t *arr, loom_array_t *idx,
                                 loom_array_t *values, int32_t ax) {
    const char *fn = "insert";
    int64_t n = arr->shape[ax], m = idx->shape[0], total, shape[LOOM_MAX_DIMS];
    if (__builtin_add_overflow(n, m, &total)) {
        fe_error(ctx, LOOM_STATUS_OVERFLOW, "%s: the result is too long", fn);
        return &ctx->nil;
    }
    with_extent(arr, ax, m, shape);
    loom_array_t *v = loom_broadcast_to(ctx, loom_astype(ctx, values, (loom_dtype_t)arr->dtype),
                                        arr->ndim, shape);
    if (m == 0 || (v->flags & FE_NIL)) /* (values must fit even an empty selection) */
        return v->flags & FE_NIL ? v : fe_scope_adopt(ctx, arr);
    loom_array_t *zero = fe_i64(ctx, 0);
    idx = loom_where(ctx, loom_less(ctx, idx, zero), loom_add(ctx, idx, fe_i64(ctx, n)), idx);
    loom_array_t *rank = loom_argsort(ctx, loom_argsort(ctx, idx, 0), 0);
    /* the positions in the result, checked (and negative ones wrapped) as NumPy's mask does */
    loom_array_t *p = fe_index_mode(ctx, loom_add(ctx, idx, rank), total, 0, LOOM_TAKE_RAISE);
    loom_array_t *which = fe_scatter(ctx, fn, loom_full(ctx, LOOM_DTYPE_I64, 1, &total, -1.0), p,
                                     loom_arange_int(ctx, 0, m, 1, LOOM_DTYPE_I64), LOOM_AT_SET);
    if (which->flags & FE_NIL) return which;
    loom_array_t *is_new = loom_greater_equal(ctx, which, zero);
    loom_array_t *from_v = loom_take(ctx, v, loom_maximum(ctx, which, zero), ax, LOOM_TAKE_CLIP);
    if (n == 0) return from_v;
    /* the old element at a position: the number of old positions before it */
    loom_array_t *old = loom_astype(ctx, loom_logical_not(ctx, is_new), LOOM_DTYPE_I64);
    old = loom_subtract(ctx, loom_cumsum(ctx, old, 0), fe_i64(ctx, 1));
    loom_array_t *from_a = loom_take(ctx, arr, loom_maximum(ctx, old, zero), ax, LOOM_TAKE_CLIP);
    return loom_where(ctx, along(ctx, is_new, arr->ndim, ax), from_v, from_a);
}

LOOM_API loom_array_t *loom_insert(loom_ctx_t *ctx, loom_array_t *arr, loom_array_t *obj,
                                   loom_array_t *values, int32_t axis) {
    const char *fn = "insert";
    if (!ctx) return NULL;
    int32_t ax;
    if (!fe_check_arg(ctx, fn, obj) || !fe_check_arg(ctx, fn, values) ||
        !flat_or_axis(ctx, fn, &arr, axis, &ax))
        return &ctx->nil;
    int64_t minus1 = -1;
    loom_array_t *idx = obj;
    if (obj->dtype == LOOM_DTYPE_BOOL) { /* its true positions */
        if (obj->ndim != 1) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                     "%s: boolean array argument obj to insert must be one dimensional", fn);
            return &ctx->nil;
        }
        idx = loom_flatnonzero(ctx, obj);
    } else if (!ir_is_int((loom_dtype_t)obj->dtype) && fe_size(obj) > 0) {
        fe_error(ctx, LOOM_STATUS_INDEX_ERROR,
                 "%s: arrays used as indices must be of integer (or boolean) type, not %s", fn,
                 loom_dtype_name((loom_dtype_t)obj->dtype));
        return &ctx->nil;
    } else if (obj->ndim > 1) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: index array argument obj to insert must be one dimensional or scalar", fn);
        return &ctx->nil;
    }
    if (idx->flags & FE_NIL) return idx;
    if (fe_size(idx) == 1) { /* NumPy's one-index form: its value read back (one sync) */
        int64_t at = 0;
        loom_status_t st = loom_read(ctx, loom_astype(ctx, idx, LOOM_DTYPE_I64), &at, sizeof at);
        if (st != LOOM_STATUS_OK) return &ctx->nil;
        return insert_one(ctx, arr, at, values, ax, obj->ndim == 0, obj->ndim != 0);
    }
    idx = loom_reshape(ctx, loom_astype(ctx, idx, LOOM_DTYPE_I64), 1, &minus1);
    return insert_many(ctx, arr, idx, values, ax);
}

/* Python's slice.indices(n) and the count: *first and *step, the element count. */
static int64_t slice_range(int64_t n, int64_t start, int64_t stop, int64_t step, int64_t *first) {
    if (step == LOOM_NONE) step = 1;
    int64_t lo = step < 0 ? -1 : 0, hi = step < 0 ? n - 1 : n;
    int64_t b = start == LOOM_NONE ? (step < 0 ? hi : lo)
                : start < 0        ? (start + n < lo ? lo : start + n)
                                   : (start > hi ? hi : start);
    int64_t e = stop == LOOM_NONE ? (step < 0 ? lo : hi)
                : stop < 0        ? (stop + n < lo ? lo : stop + n)
                                  : (stop > hi ? hi : stop);
    *first = b;
    if (step > 0) return e > b ? (e - b - 1) / step + 1 : 0;
    return b > e ? (b - e - 1) / -step + 1 : 0;
}

LOOM_API loom_array_t *loom_insert_slice(loom_ctx_t *ctx, loom_array_t *arr, int64_t start,
                                         int64_t stop, int64_t step, loom_array_t *values,
                                         int32_t axis) {
    const char *fn = "insert";
    if (!ctx) return NULL;
    int32_t ax;
    if (!fe_check_arg(ctx, fn, values) || !flat_or_axis(ctx, fn, &arr, axis, &ax)) return &ctx->nil;
    if (step == 0) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: slice step cannot be zero", fn);
        return &ctx->nil;
    }
    int64_t first, st = step == LOOM_NONE ? 1 : step;
    int64_t m = slice_range(arr->shape[ax], start, stop, step, &first);
    loom_array_t *idx = loom_arange_int(ctx, first, first + m * st, st, LOOM_DTYPE_I64);
    /* (NumPy's arange of the slice: one index takes the one-index path, without moveaxis) */
    if (m == 1) return insert_one(ctx, arr, first, values, ax, 0, true);
    return insert_many(ctx, arr, idx, values, ax);
}

LOOM_API loom_array_t *loom_delete_index(loom_ctx_t *ctx, loom_array_t *arr, int64_t index,
                                         int32_t axis) {
    const char *fn = "delete";
    if (!ctx) return NULL;
    int32_t ax;
    if (!flat_or_axis(ctx, fn, &arr, axis, &ax)) return &ctx->nil;
    int64_t n = arr->shape[ax];
    if (index < -n || index >= n) {
        fe_error(ctx, LOOM_STATUS_INDEX_ERROR,
                 "%s: index %lld is out of bounds for axis %d with size %lld", fn, (long long)index,
                 (int)ax, (long long)n);
        return &ctx->nil;
    }
    if (index < 0) index += n;
    loom_array_t *parts[2] = {fe_slice_axis(ctx, arr, ax, 0, index, 1),
                              fe_slice_axis(ctx, arr, ax, index + 1, LOOM_NONE, 1)};
    return loom_concatenate(ctx, 2, parts, ax);
}

LOOM_API loom_array_t *loom_delete_slice(loom_ctx_t *ctx, loom_array_t *arr, int64_t start,
                                         int64_t stop, int64_t step, int32_t axis) {
    const char *fn = "delete";
    if (!ctx) return NULL;
    int32_t ax;
    if (!flat_or_axis(ctx, fn, &arr, axis, &ax)) return &ctx->nil;
    if (step == 0) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: slice step cannot be zero", fn);
        return &ctx->nil;
    }
    int64_t n = arr->shape[ax], first, st = step == LOOM_NONE ? 1 : step;
    int64_t m = slice_range(n, start, stop, step, &first);
    if (m == 0) return fe_scope_adopt(ctx, arr);
    /* the deleted positions lo, lo + s, ..., hi (s > 0); kept output j reads: j before lo,
     * lo + b s + 1 + o in the gaps (b = (j - lo) / (s - 1), o its remainder), j + m after */
    int64_t s = st < 0 ? -st : st, lo = st < 0 ? first + (m - 1) * st : first;
    int64_t gaps = (m - 1) * (s - 1), g = s > 1 ? s - 1 : 1;
    loom_array_t *j = loom_arange_int(ctx, 0, n - m, 1, LOOM_DTYPE_I64);
    loom_array_t *rel = loom_subtract(ctx, j, fe_i64(ctx, lo));
    loom_array_t *in_gap = loom_add(
        ctx,
        loom_add(ctx, fe_i64(ctx, lo + 1),
                 loom_multiply(ctx, loom_floor_divide(ctx, rel, fe_i64(ctx, g)), fe_i64(ctx, s))),
        loom_remainder(ctx, rel, fe_i64(ctx, g)));
    loom_array_t *src = loom_where(ctx, loom_less(ctx, rel, fe_i64(ctx, 0)), j,
                                   loom_where(ctx, loom_less(ctx, rel, fe_i64(ctx, gaps)), in_gap,
                                              loom_add(ctx, j, fe_i64(ctx, m))));
    return loom_take(ctx, arr, src, ax, LOOM_TAKE_CLIP);
}

LOOM_API loom_array_t *loom_delete(loom_ctx_t *ctx, loom_array_t *arr, loom_array_t *obj,
                                   int32_t axis) {
    const char *fn = "delete";
    if (!ctx) return NULL;
    int32_t ax;
    if (!fe_check_arg(ctx, fn, obj) || !flat_or_axis(ctx, fn, &arr, axis, &ax)) return &ctx->nil;
    int64_t n = arr->shape[ax], minus1 = -1;
    loom_array_t *keep;
    if (obj->dtype == LOOM_DTYPE_BOOL) {
        if (obj->ndim != 1 || obj->shape[0] != n) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                     "%s: boolean array argument obj to delete must be one dimensional and "
                     "match the axis length of %lld",
                     fn, (long long)n);
            return &ctx->nil;
        }
        keep = loom_logical_not(ctx, obj);
    } else if (!ir_is_int((loom_dtype_t)obj->dtype) && fe_size(obj) > 0) {
        fe_error(ctx, LOOM_STATUS_INDEX_ERROR,
                 "%s: arrays used as indices must be of integer (or boolean) type, not %s", fn,
                 loom_dtype_name((loom_dtype_t)obj->dtype));
        return &ctx->nil;
    } else if (fe_size(obj) == 0) {
        return fe_scope_adopt(ctx, arr);
    } else { /* NumPy's keep[obj] = False: indices checked, negative ones from the end */
        keep = loom_put(ctx, loom_full(ctx, LOOM_DTYPE_BOOL, 1, &n, 1.0),
                        loom_reshape(ctx, loom_astype(ctx, obj, LOOM_DTYPE_I64), 1, &minus1),
                        loom_zeros(ctx, LOOM_DTYPE_BOOL, 0, NULL), LOOM_TAKE_RAISE);
    }
    return loom_compress(ctx, keep, arr, ax);
}

/* ---- resize, trim_zeros, diagflat, identity ---- */

LOOM_API loom_array_t *loom_resize(loom_ctx_t *ctx, loom_array_t *a, int32_t ndim,
                                   const int64_t *shape) {
    const char *fn = "resize";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a)) return &ctx->nil;
    if (ndim < 0 || ndim > LOOM_MAX_DIMS || (ndim && !shape)) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: %d dimensions (at most %d)", fn, (int)ndim,
                 LOOM_MAX_DIMS);
        return &ctx->nil;
    }
    for (int32_t i = 0; i < ndim; i++)
        if (shape[i] < 0) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                     "%s: all elements of `new_shape` must be non-negative (%lld)", fn,
                     (long long)shape[i]);
            return &ctx->nil;
        }
    int64_t size, n = fe_size(a), minus1 = -1;
    if (!fe_check_shape(ctx, fn, ndim, shape, &size)) return &ctx->nil;
    if (n == 0 || size == 0) return loom_zeros(ctx, (loom_dtype_t)a->dtype, ndim, shape);
    /* the flattened a repeated cyclically: element i is a.flat[i % n] */
    loom_array_t *i = loom_arange_int(ctx, 0, size, 1, LOOM_DTYPE_I64);
    loom_array_t *flat = loom_reshape(ctx, a, 1, &minus1);
    loom_array_t *r =
        loom_take(ctx, flat, loom_remainder(ctx, i, fe_i64(ctx, n)), 0, LOOM_TAKE_CLIP);
    return loom_reshape(ctx, r, ndim, shape);
}

LOOM_API loom_array_t *loom_trim_zeros(loom_ctx_t *ctx, loom_array_t *a, int trim, int32_t naxes,
                                       const int32_t *axes) {
    const char *fn = "trim_zeros";
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, fn, a)) return &ctx->nil;
    if (trim & ~(LOOM_TRIM_FRONT | LOOM_TRIM_BACK) || (axes && naxes < 0) ||
        naxes > LOOM_MAX_DIMS) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: trim %d, %d axes", fn, trim, (int)naxes);
        return &ctx->nil;
    }
    int32_t nd = a->ndim;
    bool sel[LOOM_MAX_DIMS] = {false};
    for (int32_t i = 0; i < nd; i++) sel[i] = !axes;
    for (int32_t i = 0; axes && i < naxes; i++) {
        int32_t ax;
        if (!fe_axis(ctx, fn, axes[i], nd, &ax)) return &ctx->nil;
        if (sel[ax]) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: repeated axis in `axis` argument", fn);
            return &ctx->nil;
        }
        sel[ax] = true;
    }
    if (nd == 0 || (axes && naxes == 0)) return fe_scope_adopt(ctx, a);
    if (fe_size(a) == 0) { /* all zero: every trimmed axis becomes empty */
        int64_t st[LOOM_MAX_DIMS], sp[LOOM_MAX_DIMS];
        for (int32_t i = 0; i < nd; i++) st[i] = sp[i] = sel[i] ? 0 : LOOM_NONE;
        return loom_slice(ctx, a, nd, st, sp, NULL);
    }
    /* NumPy's bounding box of the nonzero elements: per axis, the first and last index where
     * any element is nonzero (argmax of the projection, forward and reversed), one eval */
    loom_array_t *nz = loom_astype(ctx, a, LOOM_DTYPE_BOOL);
    loom_array_t *facts[2 * LOOM_MAX_DIMS + 1];
    int64_t got[2 * LOOM_MAX_DIMS + 1];
    loom_scope_begin(ctx);
    for (int32_t ax = 0; ax < nd; ax++) {
        int32_t others[LOOM_MAX_DIMS], k = 0;
        for (int32_t i = 0; i < nd; i++)
            if (i != ax) others[k++] = i;
        loom_array_t *proj = k ? loom_any(ctx, nz, k, others, 0) : nz;
        int32_t zero = 0;
        facts[2 * ax] = loom_argmax(ctx, proj, 1, &zero, 0);
        facts[2 * ax + 1] = loom_argmax(ctx, loom_flip(ctx, proj, 1, &zero), 1, &zero, 0);
    }
    facts[2 * nd] = loom_any(ctx, nz, -1, NULL, 0);
    loom_status_t stat = loom_eval(ctx, 2 * nd + 1, facts);
    for (int32_t i = 0; i <= 2 * nd && stat == LOOM_STATUS_OK; i++) {
        loom_array_t *f = loom_astype(ctx, facts[i], LOOM_DTYPE_I64);
        stat = loom_read(ctx, f, &got[i], sizeof got[i]);
    }
    loom_scope_end(ctx);
    if (stat != LOOM_STATUS_OK) return &ctx->nil;
    int64_t st[LOOM_MAX_DIMS], sp[LOOM_MAX_DIMS];
    for (int32_t i = 0; i < nd; i++) {
        st[i] = sp[i] = LOOM_NONE;
        if (!sel[i]) continue;
        if (!got[2 * nd]) { /* all zero: empty on the trimmed axes (the bounds 0:0) */
            st[i] = sp[i] = 0;
            continue;
        }
        if (trim & LOOM_TRIM_FRONT) st[i] = got[2 * i];
        if (trim & LOOM_TRIM_BACK) sp[i] = a->shape[i] - got[2 * i + 1];
    }
    return loom_slice(ctx, a, nd, st, sp, NULL);
}

LOOM_API loom_array_t *loom_diagflat(loom_ctx_t *ctx, loom_array_t *v, int64_t k) {
    if (!ctx) return NULL;
    if (!fe_check_arg(ctx, "diagflat", v)) return &ctx->nil;
    int64_t minus1 = -1;
    return loom_diag(ctx, loom_reshape(ctx, v, 1, &minus1), k);
}

LOOM_API loom_array_t *loom_identity(loom_ctx_t *ctx, int64_t n, loom_dtype_t dtype) {
    if (!ctx) return NULL;
    return loom_eye(ctx, n, n, 0, dtype);
}
