/* array.c — DAG nodes: the slab they live in, refcounts and scopes, facts, and the
 * constructors (host data, fills, ranges, eye, random, weak scalars). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fe.h"

__extension__ typedef __int128 i128; /* arange_int: Python-int arithmetic on int64 bounds */
__extension__ typedef unsigned __int128 u128;

#define SLAB_NODES 256

typedef struct fe_slab {
    struct fe_slab *next;
    loom_array_t nodes[SLAB_NODES];
} fe_slab_t;

/* Buffers live as long as the arrays that share them, and come and go with them (a host
 * array's copy, each result of an eval): slabs and a free list too, not one malloc each. */
typedef struct fe_buf_slab {
    struct fe_buf_slab *next;
    fe_buffer_t bufs[SLAB_NODES];
} fe_buf_slab_t;

void fe_format_shape(char *out, size_t cap, int32_t ndim, const int64_t *shape) {
    size_t n = 0;
    n += (size_t)snprintf(out + n, cap - n, "(");
    for (int32_t i = 0; i < ndim && n < cap; i++)
        n += (size_t)snprintf(out + n, cap - n, i ? ", %lld" : "%lld", (long long)shape[i]);
    if (n < cap) snprintf(out + n, cap - n, ndim == 1 ? ",)" : ")");
}

int64_t fe_size(const loom_array_t *a) {
    int64_t n = 1;
    for (int i = 0; i < a->ndim; i++) n *= a->shape[i];
    return n;
}

bool fe_check_shape(loom_ctx_t *ctx, const char *fn, int32_t ndim, const int64_t *shape,
                    int64_t *size_out) {
    if (ndim < 0 || ndim > LOOM_MAX_DIMS) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: ndim %d is outside 0..%d", fn, ndim,
                 LOOM_MAX_DIMS);
        return false;
    }
    if (ndim > 0 && !shape) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: shape is NULL with ndim %d", fn, ndim);
        return false;
    }
    int64_t n = 1;
    for (int32_t i = 0; i < ndim; i++) {
        if (shape[i] < 0) {
            fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: negative extent %lld on axis %d", fn,
                     (long long)shape[i], i);
            return false;
        }
    }
    int64_t nonzero = 1; /* extents stay bounded even when another one is 0 */
    for (int32_t i = 0; i < ndim; i++) {
        if (!base_mul_i64(n, shape[i], &n) ||
            !base_mul_i64(nonzero, shape[i] ? shape[i] : 1, &nonzero) ||
            nonzero >= (INT64_C(1) << 60)) { /* below 2^60: 16-byte elements fit size_t */
            char s[256];
            fe_format_shape(s, sizeof s, ndim, shape);
            fe_error(ctx, LOOM_STATUS_OVERFLOW, "%s: shape %s has too many elements", fn, s);
            return false;
        }
    }
    if (size_out) *size_out = n;
    return true;
}

bool fe_check_arg(loom_ctx_t *ctx, const char *fn, const loom_array_t *a) {
    if (!a) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: array argument is NULL", fn);
        return false;
    }
    if (a->ctx != ctx) {
        fe_error(ctx, LOOM_STATUS_WRONG_CTX, "%s: array belongs to another context", fn);
        return false;
    }
    if (a->flags & FE_NIL) return false; /* the error is already recorded */
    if (a->refcount <= 0) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: array was already released", fn);
        return false;
    }
    return true;
}

bool fe_check_input(loom_ctx_t *ctx, const char *fn, const loom_array_t *a) {
    if (fe_check_arg(ctx, fn, a)) return true;
    if (!ctx->err.status) /* a nil kept after its error was cleared */
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: the array is nil", fn);
    return false;
}

static bool scope_push(loom_ctx_t *ctx, loom_array_t *a) {
    fe_scope_t *s = &ctx->scopes[ctx->n_scopes - 1];
    if (s->n == s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 64;
        loom_array_t **items = base_realloc(&ctx->al, s->items, cap, sizeof *items);
        if (!items) return false;
        s->items = items;
        s->cap = cap;
    }
    s->items[s->n++] = a;
    return true;
}

loom_array_t *fe_scope_adopt(loom_ctx_t *ctx, loom_array_t *a) {
    if (a->flags & FE_NIL) return a;
    if (!scope_push(ctx, a)) {
        fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "out of memory recording an array in its scope");
        return &ctx->nil;
    }
    a->refcount++;
    return a;
}

/* The structural hash: op, dtype, shape, the operands' hashes, and the params of ops whose
 * params shape the computation (axes, permutations, matmul mode) but not leaf values.
 * Elementwise ops have no params (fe_shaped gets NULL for them): nothing to hash. */
static uint64_t node_hash(const loom_array_t *a) {
    uint64_t h = base_hash_mix(0x6c6f6f6d, a->op);
    h = base_hash_mix(h, a->dtype);
    h = base_hash_mix(h, a->ndim);
    for (int i = 0; i < a->ndim; i++) h = base_hash_mix(h, (uint64_t)a->shape[i]);
    for (int i = 0; i < 3 && a->src[i]; i++) h = base_hash_mix(h, a->src[i]->hash);
    ir_op_kind_t kind = ir_ops[a->op].kind;
    if (kind != IR_KIND_LEAF && kind != IR_KIND_ELEM)
        h = base_hash_mix(h, base_hash64(&a->p, sizeof a->p, 0));
    return h;
}

loom_array_t *fe_node_new(loom_ctx_t *ctx, ir_op_t op, loom_dtype_t dtype, int32_t ndim,
                          const int64_t *shape) {
    if (!ctx->free_nodes) {
        fe_slab_t *slab = base_calloc(&ctx->al, 1, sizeof *slab);
        if (!slab) {
            fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "out of memory allocating array nodes");
            return &ctx->nil;
        }
        slab->next = ctx->slabs;
        ctx->slabs = slab;
        for (int i = SLAB_NODES - 1; i >= 0; i--) {
            slab->nodes[i].next_free = ctx->free_nodes;
            ctx->free_nodes = &slab->nodes[i];
        }
    }
    loom_array_t *a = ctx->free_nodes;
    ctx->free_nodes = a->next_free;
    memset(a, 0, sizeof *a);
    a->ctx = ctx;
    a->refcount = 1;
    a->op = (uint16_t)op;
    a->dtype = (uint8_t)dtype;
    a->ndim = (uint8_t)ndim;
    for (int i = 0; i < ndim; i++) a->shape[i] = shape[i];
    if (!scope_push(ctx, a)) {
        a->refcount = 0;
        a->next_free = ctx->free_nodes;
        ctx->free_nodes = a;
        fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "out of memory recording an array in its scope");
        return &ctx->nil;
    }
    ctx->n_live_nodes++;
    return a;
}

/* Computes the structural hash once the operands are set. */
static loom_array_t *finish(loom_array_t *a) {
    if (!(a->flags & FE_NIL)) a->hash = node_hash(a);
    return a;
}

/* Ops with no complex kernels yet (orderings, scatters, factorisations). */
static bool complex_refused(ir_op_t op) {
    switch (ir_ops[op].kind) {
        case IR_KIND_REDUCE:
            return op != IR_OP_SUM && op != IR_OP_PROD && op != IR_OP_ANY && op != IR_OP_ALL &&
                   op != IR_OP_MAX && op != IR_OP_MIN && op != IR_OP_ARGMAX && op != IR_OP_ARGMIN;
        case IR_KIND_SORT:
        case IR_KIND_SEARCH:
        case IR_KIND_SCATTER:
            return true;
        default:
            return false;
    }
}

loom_array_t *fe_shaped(loom_ctx_t *ctx, ir_op_t op, loom_dtype_t dtype, int32_t ndim,
                        const int64_t *shape, int n, loom_array_t *const *srcs,
                        const ir_params_t *p) {
    for (int i = 0; i < n; i++)
        if (ir_is_complex((loom_dtype_t)srcs[i]->dtype) && complex_refused(op)) {
            fe_error(ctx, LOOM_STATUS_NOT_AVAILABLE, "%s: %s operands are not supported yet",
                     ir_ops[op].name, ir_dtypes[srcs[i]->dtype].name);
            return &ctx->nil;
        }
    /* (a gather's result joins its operands' extents: their product may not fit) */
    if (!fe_check_shape(ctx, ir_ops[op].name, ndim, shape, NULL)) return &ctx->nil;
    loom_array_t *r = fe_node_new(ctx, op, dtype, ndim, shape);
    if (r->flags & FE_NIL) return r;
    for (int i = 0; i < n; i++) r->src[i] = loom_array_retain(srcs[i]);
    if (p) r->p = *p;
    return finish(r);
}

fe_buffer_t *fe_buffer_new(loom_ctx_t *ctx) {
    if (!ctx->free_bufs) {
        fe_buf_slab_t *slab = base_malloc(&ctx->al, 1, sizeof *slab);
        if (!slab) return NULL;
        slab->next = ctx->buf_slabs;
        ctx->buf_slabs = slab;
        for (int i = SLAB_NODES - 1; i >= 0; i--) {
            slab->bufs[i].next_free = ctx->free_bufs;
            ctx->free_bufs = &slab->bufs[i];
        }
    }
    fe_buffer_t *b = ctx->free_bufs;
    ctx->free_bufs = b->next_free;
    memset(b, 0, sizeof *b);
    return b;
}

void fe_buffer_free(loom_ctx_t *ctx, fe_buffer_t *b) {
    if (!b) return;
    b->next_free = ctx->free_bufs;
    ctx->free_bufs = b;
}

void fe_buffer_release(loom_ctx_t *ctx, fe_buffer_t *b) {
    if (!b || --b->refcount > 0) return;
#if LOOM_HAVE_CUDA
    en_mem_drop(ctx->engine, &b->m); /* a result, or a host array's upload */
#endif
    if (!b->m.borrowed) base_free(&ctx->al, b->m.host);
#if LOOM_HAVE_CUDA
    /* External device memory goes back to its owner only after queued kernels stop reading */
    if (b->release && b->m.on_device && ctx->rt && ctx->device == LOOM_DEVICE_CUDA) rt_sync(ctx->rt);
#endif
    if (b->release) b->release(b->release_user);
    fe_buffer_free(ctx, b);
}

LOOM_API loom_status_t loom_array_host_changed(loom_ctx_t *ctx, loom_array_t *a) {
    static const char fn[] = "loom_array_host_changed";
    if (!ctx) return LOOM_STATUS_INVALID_ARGUMENT;
    if (ctx->err.status) return ctx->err.status;
    if (!fe_check_arg(ctx, fn, a)) {
        if (!ctx->err.status) fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: array is nil", fn);
        return ctx->err.status;
    }
    fe_buffer_t *b = a->flags & FE_REALISED ? a->buf : NULL;
    if (!b || !b->m.borrowed || b->m.on_device)
        return fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                        "%s: the array is not borrowed host memory (only arrays from "
                        "loom_borrow_host, loom_wrap_host or a host DLPack import can change; "
                        "loom_from_host copies are immutable)",
                        fn);
#if LOOM_HAVE_CUDA
    en_mem_drop(ctx->engine, &b->m); /* the next eval uploads it again */
#endif
    return LOOM_STATUS_OK;
}

LOOM_API loom_array_t *loom_array_retain(loom_array_t *a) {
    if (a && !(a->flags & FE_NIL) && a->refcount > 0) a->refcount++;
    return a;
}

/* Frees a node whose count reached zero, and every operand whose count reaches zero with
 * it, with a worklist threaded through next_free: graphs can be far deeper than the C stack. */
LOOM_API void loom_array_release(loom_array_t *a) {
    if (!a || (a->flags & FE_NIL) || a->refcount <= 0) return;
    if (--a->refcount > 0) return;
    loom_ctx_t *ctx = a->ctx;
    a->next_free = NULL;
    loom_array_t *work = a;
    while (work) {
        loom_array_t *n = work;
        work = n->next_free;
        for (int i = 0; i < 3; i++) {
            loom_array_t *s = n->src[i];
            n->src[i] = NULL;
            if (s && !(s->flags & FE_NIL) && s->refcount > 0 && --s->refcount == 0) {
                s->next_free = work;
                work = s;
            }
        }
        fe_buffer_release(ctx, n->buf);
        n->buf = NULL;
        n->next_free = ctx->free_nodes;
        ctx->free_nodes = n;
        ctx->n_live_nodes--;
    }
}

void fe_node_free_all(loom_ctx_t *ctx) {
    /* Arrays the caller retained and never released: drop their buffers, then the slabs. */
    for (fe_slab_t *s = ctx->slabs; s; s = s->next)
        for (int i = 0; i < SLAB_NODES; i++)
            if (s->nodes[i].refcount > 0) {
                fe_buffer_release(ctx, s->nodes[i].buf);
                s->nodes[i].buf = NULL;
                s->nodes[i].refcount = 0;
            }
    fe_slab_t *s = ctx->slabs;
    while (s) {
        fe_slab_t *next = s->next;
        base_free(&ctx->al, s);
        s = next;
    }
    ctx->slabs = NULL;
    ctx->free_nodes = NULL;
    fe_buf_slab_t *bs = ctx->buf_slabs; /* every buffer was released with its last array */
    while (bs) {
        fe_buf_slab_t *next = bs->next;
        base_free(&ctx->al, bs);
        bs = next;
    }
    ctx->buf_slabs = NULL;
    ctx->free_bufs = NULL;
}

/* ---- facts ---- */

LOOM_API int loom_array_is_nil(const loom_array_t *a) { return !a || (a->flags & FE_NIL); }

LOOM_API loom_dtype_t loom_array_dtype(const loom_array_t *a) {
    return a && !(a->flags & FE_NIL) ? (loom_dtype_t)a->dtype : LOOM_DTYPE_COUNT;
}

LOOM_API int32_t loom_array_ndim(const loom_array_t *a) {
    return a && !(a->flags & FE_NIL) ? a->ndim : 0;
}

LOOM_API int64_t loom_array_dim(const loom_array_t *a, int32_t axis) {
    if (!a || (a->flags & FE_NIL)) return 0;
    if (axis < 0) axis += a->ndim;
    return axis >= 0 && axis < a->ndim ? a->shape[axis] : 0;
}

LOOM_API int64_t loom_array_size(const loom_array_t *a) {
    return a && !(a->flags & FE_NIL) ? fe_size(a) : 0;
}

LOOM_API size_t loom_array_nbytes(const loom_array_t *a) {
    return a && !(a->flags & FE_NIL) ? (size_t)fe_size(a) * ir_dtypes[a->dtype].size : 0;
}

/* ---- constructors ---- */

static bool check_dtype(loom_ctx_t *ctx, const char *fn, loom_dtype_t dtype) {
    if ((unsigned)dtype < LOOM_DTYPE_COUNT) return true;
    fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: invalid dtype %d", fn, (int)dtype);
    return false;
}

static loom_array_t *host_array(loom_ctx_t *ctx, const char *fn, loom_dtype_t dtype, int32_t ndim,
                                const int64_t *shape, const void *data, bool borrow) {
    if (!ctx) return NULL;
    int64_t n;
    if (!check_dtype(ctx, fn, dtype) || !fe_check_shape(ctx, fn, ndim, shape, &n)) return &ctx->nil;
    size_t bytes = (size_t)n * ir_dtypes[dtype].size;
    if (!data && bytes > 0) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "%s: data is NULL for %zu bytes", fn, bytes);
        return &ctx->nil;
    }
    fe_buffer_t *b = fe_buffer_new(ctx);
    void *copy = NULL;
    if (b && !borrow) {
        copy = base_malloc(&ctx->al, bytes ? bytes : 1, 1);
        if (copy && bytes) memcpy(copy, data, bytes);
    }
    if (!b || (!borrow && !copy)) {
        fe_buffer_free(ctx, b);
        fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "%s: out of memory copying %zu bytes", fn, bytes);
        return &ctx->nil;
    }
    b->refcount = 1;
    b->m.borrowed = borrow;
    b->m.host = borrow ? (void *)(uintptr_t)data : copy;
    b->m.bytes = bytes;
    loom_array_t *a = fe_node_new(ctx, IR_OP_INPUT, dtype, ndim, shape);
    if (a->flags & FE_NIL) {
        fe_buffer_release(ctx, b);
        return a;
    }
    fe_realise(ctx, a, b);
    return finish(a);
}

LOOM_API loom_array_t *loom_from_host(loom_ctx_t *ctx, loom_dtype_t dtype, int32_t ndim,
                                      const int64_t *shape, const void *data) {
    return host_array(ctx, "loom_from_host", dtype, ndim, shape, data, false);
}

LOOM_API loom_array_t *loom_borrow_host(loom_ctx_t *ctx, loom_dtype_t dtype, int32_t ndim,
                                        const int64_t *shape, const void *data) {
    return host_array(ctx, "loom_borrow_host", dtype, ndim, shape, data, true);
}

static loom_array_t *leaf(loom_ctx_t *ctx, const char *fn, ir_op_t op, loom_dtype_t dtype,
                          int32_t ndim, const int64_t *shape) {
    if (!check_dtype(ctx, fn, dtype) || !fe_check_shape(ctx, fn, ndim, shape, NULL))
        return &ctx->nil;
    return fe_node_new(ctx, op, dtype, ndim, shape);
}

static loom_array_t *full_bits(loom_ctx_t *ctx, const char *fn, loom_dtype_t dtype, int32_t ndim,
                               const int64_t *shape, uint64_t bits) {
    if (dtype == LOOM_DTYPE_C128) { /* bits: the real part's (ir_bits_from_double) */
        loom_array_t *re = full_bits(ctx, fn, LOOM_DTYPE_F64, ndim, shape, bits);
        if (re->flags & FE_NIL) return re;
        return fe_shaped(ctx, IR_OP_CAST, dtype, ndim, shape, 1, &re, NULL);
    }
    loom_array_t *a = leaf(ctx, fn, IR_OP_CONST, dtype, ndim, shape);
    if (!(a->flags & FE_NIL)) a->p.bits = bits;
    return finish(a);
}

loom_array_t *fe_const(loom_ctx_t *ctx, loom_dtype_t dtype, int32_t ndim, const int64_t *shape,
                       uint64_t bits) {
    return full_bits(ctx, "constant", dtype, ndim, shape, bits);
}

loom_array_t *fe_complex_const(loom_ctx_t *ctx, loom_dtype_t dtype, int32_t ndim,
                               const int64_t *shape, double re, double im) {
    uint64_t rb = ir_bits_from_double(dtype, re), ib = ir_bits_from_double(dtype, im);
    if (dtype == LOOM_DTYPE_C64) /* both parts in one word, the real part's in the low half */
        return full_bits(ctx, "constant", dtype, ndim, shape, (rb & 0xffffffffu) | (ib << 32));
    if (ib == 0) return full_bits(ctx, "constant", dtype, ndim, shape, rb); /* +0.0 */
    loom_array_t *parts[2] = {full_bits(ctx, "constant", dtype, ndim, shape, rb),
                              full_bits(ctx, "constant", dtype, ndim, shape, ib)};
    if ((parts[0]->flags | parts[1]->flags) & FE_NIL) return &ctx->nil;
    return fe_shaped(ctx, IR_OP_COMPLEX, dtype, ndim, shape, 2, parts, NULL);
}

loom_array_t *fe_i64(loom_ctx_t *ctx, int64_t v) {
    return full_bits(ctx, "constant", LOOM_DTYPE_I64, 0, NULL, (uint64_t)v);
}

bool fe_any_true(loom_ctx_t *ctx, loom_array_t *c, bool *out) {
    uint8_t any = 0;
    loom_scope_begin(ctx);
    loom_status_t st = loom_read(ctx, loom_any(ctx, c, -1, NULL, 0), &any, 1);
    loom_scope_end(ctx);
    *out = any != 0;
    return st == LOOM_STATUS_OK;
}

LOOM_API loom_array_t *loom_full(loom_ctx_t *ctx, loom_dtype_t dtype, int32_t ndim,
                                 const int64_t *shape, double value) {
    if (!ctx) return NULL;
    if (!check_dtype(ctx, "loom_full", dtype)) return &ctx->nil;
    return full_bits(ctx, "loom_full", dtype, ndim, shape, ir_bits_from_double(dtype, value));
}

LOOM_API loom_array_t *loom_full_int(loom_ctx_t *ctx, loom_dtype_t dtype, int32_t ndim,
                                     const int64_t *shape, int64_t value) {
    if (!ctx) return NULL;
    if (!check_dtype(ctx, "loom_full_int", dtype)) return &ctx->nil;
    return full_bits(ctx, "loom_full_int", dtype, ndim, shape, ir_bits_from_i64(dtype, value));
}

LOOM_API loom_array_t *loom_zeros(loom_ctx_t *ctx, loom_dtype_t dtype, int32_t ndim,
                                  const int64_t *shape) {
    return loom_full_int(ctx, dtype, ndim, shape, 0);
}

LOOM_API loom_array_t *loom_ones(loom_ctx_t *ctx, loom_dtype_t dtype, int32_t ndim,
                                 const int64_t *shape) {
    return loom_full_int(ctx, dtype, ndim, shape, 1);
}

/* An element of bool or an integer dtype d, given as zero-extended bits, as an int64 (signed
 * dtypes sign-extend; only the value mod 2**64 matters to lm_arange_*). */
static int64_t elem_i64(loom_dtype_t d, uint64_t bits) {
    unsigned width = 8u * ir_dtypes[d].size;
    if (ir_dtypes[d].kind == IR_DKIND_INT && width < 64 && (bits >> (width - 1)) & 1u)
        bits |= ~UINT64_C(0) << width;
    return (int64_t)bits;
}

/* Sets an ARANGE node's parameters from its first two elements, v0 and v1, as NumPy stores
 * them in the dtype: integers (v0, v1 - v0) for bool and integer dtypes, doubles for floats. */
static void arange_params(loom_array_t *a, uint64_t v0_bits, uint64_t v1_bits, double start,
                          double step) {
    loom_dtype_t d = (loom_dtype_t)a->dtype;
    if (ir_is_float(d) || ir_is_complex(d)) { /* complex: the real parts, imaginary 0 */
        a->p.a = start;
        a->p.b = step;
        return;
    }
    int64_t v0 = elem_i64(d, v0_bits), v1 = elem_i64(d, v1_bits);
    a->p.i0 = v0;
    a->p.di = (int64_t)((uint64_t)v1 - (uint64_t)v0);
}

LOOM_API loom_array_t *loom_arange(loom_ctx_t *ctx, double start, double stop, double step,
                                   loom_dtype_t dtype) {
    if (!ctx) return NULL;
    if (step == 0 || !isfinite(start) || !isfinite(stop) || !isfinite(step)) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "loom_arange: start %g, stop %g, step %g must be finite and step nonzero", start,
                 stop, step);
        return &ctx->nil;
    }
    double len = ceil((stop - start) / step);
    if (len > 9.2e18) {
        fe_error(ctx, LOOM_STATUS_OVERFLOW, "loom_arange: %g elements is too many", len);
        return &ctx->nil;
    }
    int64_t n = len > 0 ? (int64_t)len : 0;
    loom_array_t *a = leaf(ctx, "loom_arange", IR_OP_ARANGE, dtype, 1, &n);
    if (!(a->flags & FE_NIL))
        arange_params(a, ir_bits_from_double(dtype, start),
                      ir_bits_from_double(dtype, start + step), start, step);
    return finish(a);
}

/* NumPy's length of an integer arange: ceil of (stop - start) / step, the exact quotient of
 * Python ints rounded to a double first (so arange(0, 2**62, 2**62 - 1) has one element).
 * Returns false when the length does not fit an int64. */
static bool arange_int_len(int64_t start, int64_t stop, int64_t step, int64_t *n) {
    i128 diff = (i128)stop - start;
    *n = 0;
    if (diff == 0 || (diff > 0) != (step > 0)) return true; /* the quotient is <= 0 */
    u128 num = (u128)(diff < 0 ? -diff : diff);
    u128 den = (u128)(step < 0 ? -(i128)step : (i128)step);
    u128 q = num / den, r = num % den;
    if (q >= (u128)INT64_MAX) return false;
    bool up = r != 0; /* whether the rounded quotient is above q */
    if (r != 0 && q != 0 && q < ((u128)1 << 53)) {
        /* q + r/den rounds to q unless r/den exceeds half of q's ulp, 2**(e - 53) with
         * e = floor(log2 q); a tie goes to the even significand, q's only when e == 52. */
        int e = 63 - __builtin_clzll((unsigned long long)q);
        u128 scaled = r << (53 - e);
        up = scaled > den || (scaled == den && e == 52 && (q & 1u));
    }
    *n = (int64_t)q + up;
    return true;
}

/* Whether the Python int v fits integer dtype d. */
static bool int_fits(i128 v, loom_dtype_t d) {
    unsigned width = 8u * ir_dtypes[d].size;
    if (ir_dtypes[d].kind == IR_DKIND_UINT) return v >= 0 && v < ((i128)1 << width);
    return v >= -((i128)1 << (width - 1)) && v < ((i128)1 << (width - 1));
}

LOOM_API loom_array_t *loom_arange_int(loom_ctx_t *ctx, int64_t start, int64_t stop, int64_t step,
                                       loom_dtype_t dtype) {
    static const char fn[] = "loom_arange_int";
    if (!ctx) return NULL;
    int64_t n;
    if (step == 0) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "%s: step is zero (start %lld, stop %lld)", fn, (long long)start,
                 (long long)stop);
        return &ctx->nil;
    }
    if (!arange_int_len(start, stop, step, &n)) {
        fe_error(ctx, LOOM_STATUS_OVERFLOW,
                 "%s: start %lld, stop %lld, step %lld give too many elements", fn,
                 (long long)start, (long long)stop, (long long)step);
        return &ctx->nil;
    }
    loom_array_t *a = leaf(ctx, fn, IR_OP_ARANGE, dtype, 1, &n);
    if (a->flags & FE_NIL) return finish(a);
    /* NumPy stores start and start + step (exact Python ints) in the dtype, refusing values
     * out of an integer dtype's range, and only the elements the result has. */
    i128 v1 = (i128)start + step;
    if (ir_is_int(dtype)) {
        i128 bad = n >= 1 && !int_fits(start, dtype) ? start
                       : n >= 2 && !int_fits(v1, dtype)  ? v1
                                                         : 0;
        if (bad != 0) {
            fe_error(ctx, LOOM_STATUS_OVERFLOW, "%s: Python integer %lld out of bounds for %s",
                     fn, (long long)bad, ir_dtypes[dtype].name);
            return &ctx->nil;
        }
    }
    /* v1 lies between start and stop when n >= 2, so it fits an int64 then. */
    int64_t v1_64 = n >= 2 ? (int64_t)v1 : start;
    arange_params(a, ir_bits_from_i64(dtype, start), ir_bits_from_i64(dtype, v1_64),
                  (double)start, (double)v1_64 - (double)start);
    return finish(a);
}

LOOM_API loom_array_t *loom_linspace(loom_ctx_t *ctx, double start, double stop, int64_t num,
                                     int endpoint, loom_dtype_t dtype) {
    if (!ctx) return NULL;
    if (num < 0) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT, "loom_linspace: num %lld is negative",
                 (long long)num);
        return &ctx->nil;
    }
    loom_array_t *a = leaf(ctx, "loom_linspace", IR_OP_LINSPACE, dtype, 1, &num);
    if (!(a->flags & FE_NIL)) {
        int64_t div = endpoint ? num - 1 : num;
        a->p.a = start;
        /* one element with the endpoint (no step): NumPy's 0 * (stop - start) + start */
        a->p.b = div > 0 ? (stop - start) / (double)div : stop - start;
        a->p.c = stop;
        a->p.k = endpoint && num > 1 ? num - 1 : -1;
    }
    return finish(a);
}

/* np.logspace: base ** linspace(start, stop), float64, then cast to dtype. */
LOOM_API loom_array_t *loom_logspace(loom_ctx_t *ctx, double start, double stop, int64_t num,
                                     int endpoint, double base, loom_dtype_t dtype) {
    if (!ctx) return NULL;
    if (!check_dtype(ctx, "logspace", dtype)) return &ctx->nil;
    loom_array_t *y = loom_linspace(ctx, start, stop, num, endpoint, LOOM_DTYPE_F64);
    return loom_astype(ctx, loom_power(ctx, loom_weak_float(ctx, base), y), dtype);
}

/* np.geomspace, NumPy's way: the magnitudes from log10 of start and stop divided by start's
 * sign, the ends set exactly, the sign put back. Opposite signs give NaN inside, as NumPy's
 * real geomspace does. */
LOOM_API loom_array_t *loom_geomspace(loom_ctx_t *ctx, double start, double stop, int64_t num,
                                      int endpoint, loom_dtype_t dtype) {
    if (!ctx) return NULL;
    if (!check_dtype(ctx, "geomspace", dtype)) return &ctx->nil;
    if (start == 0 || stop == 0) {
        fe_error(ctx, LOOM_STATUS_INVALID_ARGUMENT,
                 "geomspace: Geometric sequence cannot include zero (start %g, stop %g)", start,
                 stop);
        return &ctx->nil;
    }
    double sign = start < 0 ? -1.0 : 1.0, lo = start / sign, hi = stop / sign;
    loom_array_t *r = loom_logspace(ctx, log10(lo), log10(hi), num, endpoint, 10.0, LOOM_DTYPE_F64);
    loom_array_t *i = loom_arange_int(ctx, 0, num, 1, LOOM_DTYPE_I64);
    r = loom_where(ctx, loom_equal(ctx, i, fe_i64(ctx, 0)), loom_weak_float(ctx, lo), r);
    if (endpoint && num > 1)
        r = loom_where(ctx, loom_equal(ctx, i, fe_i64(ctx, num - 1)), loom_weak_float(ctx, hi), r);
    return loom_astype(ctx, loom_multiply(ctx, r, loom_weak_float(ctx, sign)), dtype);
}

LOOM_API loom_array_t *loom_eye(loom_ctx_t *ctx, int64_t n, int64_t m, int64_t k,
                                loom_dtype_t dtype) {
    if (!ctx) return NULL;
    int64_t shape[2] = {n, m};
    loom_array_t *a = leaf(ctx, "loom_eye", IR_OP_EYE, dtype, 2, shape);
    if (!(a->flags & FE_NIL)) a->p.k = k;
    return finish(a);
}

static loom_array_t *random_leaf(loom_ctx_t *ctx, const char *fn, ir_op_t op, uint64_t seed,
                                 loom_dtype_t dtype, int32_t ndim, const int64_t *shape, double a_,
                                 double b_) {
    if (!ctx) return NULL;
    if (!check_dtype(ctx, fn, dtype)) return &ctx->nil;
    if (!ir_is_float(dtype)) {
        fe_error(ctx, LOOM_STATUS_DTYPE_ERROR, "%s: dtype %s is not a float dtype", fn,
                 ir_dtypes[dtype].name);
        return &ctx->nil;
    }
    loom_array_t *a = leaf(ctx, fn, op, dtype, ndim, shape);
    if (!(a->flags & FE_NIL)) {
        a->p.seed = seed;
        a->p.a = a_;
        a->p.b = b_;
    }
    return finish(a);
}

LOOM_API loom_array_t *loom_random_uniform(loom_ctx_t *ctx, uint64_t seed, loom_dtype_t dtype,
                                           int32_t ndim, const int64_t *shape, double low,
                                           double high) {
    return random_leaf(ctx, "loom_random_uniform", IR_OP_RAND_UNIFORM, seed, dtype, ndim, shape,
                       low, high);
}

LOOM_API loom_array_t *loom_random_normal(loom_ctx_t *ctx, uint64_t seed, loom_dtype_t dtype,
                                          int32_t ndim, const int64_t *shape, double mean,
                                          double std) {
    return random_leaf(ctx, "loom_random_normal", IR_OP_RAND_NORMAL, seed, dtype, ndim, shape, mean,
                       std);
}

/* Weak scalars are 0-d CONST nodes of the default dtype, flagged weak with their value. */
static loom_array_t *weak(loom_ctx_t *ctx, fe_weak_kind_t kind, loom_dtype_t dtype, uint64_t bits) {
    if (!ctx) return NULL;
    loom_array_t *a = full_bits(ctx, "weak scalar", dtype, 0, NULL, bits);
    if (!(a->flags & FE_NIL)) {
        a->flags |= FE_WEAK;
        a->weak_kind = (uint8_t)kind;
    }
    return a;
}

LOOM_API loom_array_t *loom_weak_int(loom_ctx_t *ctx, int64_t value) {
    loom_array_t *a = weak(ctx, FE_WEAK_INT, LOOM_DTYPE_I64, (uint64_t)value);
    if (a && !(a->flags & FE_NIL)) a->weak.i = value;
    return a;
}

LOOM_API loom_array_t *loom_weak_uint(loom_ctx_t *ctx, uint64_t value) {
    if (value <= (uint64_t)INT64_MAX) return loom_weak_int(ctx, (int64_t)value);
    loom_array_t *a = weak(ctx, FE_WEAK_UINT, LOOM_DTYPE_U64, value);
    if (a && !(a->flags & FE_NIL)) a->weak.u = value;
    return a;
}

LOOM_API loom_array_t *loom_weak_float(loom_ctx_t *ctx, double value) {
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    loom_array_t *a = weak(ctx, FE_WEAK_FLOAT, LOOM_DTYPE_F64, bits);
    if (a && !(a->flags & FE_NIL)) a->weak.f = value;
    return a;
}

LOOM_API loom_array_t *loom_weak_complex(loom_ctx_t *ctx, double re, double im) {
    if (!ctx) return NULL;
    loom_array_t *a = fe_complex_const(ctx, LOOM_DTYPE_C128, 0, NULL, re, im);
    if (!(a->flags & FE_NIL)) {
        a->flags |= FE_WEAK;
        a->weak_kind = FE_WEAK_COMPLEX;
        a->weak.c.re = re;
        a->weak.c.im = im;
    }
    return a;
}

LOOM_API loom_array_t *loom_full_complex(loom_ctx_t *ctx, loom_dtype_t dtype, int32_t ndim,
                                         const int64_t *shape, double re, double im) {
    if (!ctx) return NULL;
    if (!check_dtype(ctx, "loom_full_complex", dtype)) return &ctx->nil;
    if (!ir_is_complex(dtype)) {
        fe_error(ctx, LOOM_STATUS_DTYPE_ERROR, "loom_full_complex: %s is not a complex dtype",
                 ir_dtypes[dtype].name);
        return &ctx->nil;
    }
    if (!fe_check_shape(ctx, "loom_full_complex", ndim, shape, NULL)) return &ctx->nil;
    return fe_complex_const(ctx, dtype, ndim, shape, re, im);
}

LOOM_API loom_array_t *loom_weak_bool(loom_ctx_t *ctx, int value) {
    loom_array_t *a = weak(ctx, FE_WEAK_BOOL, LOOM_DTYPE_BOOL, value != 0);
    if (a && !(a->flags & FE_NIL)) a->weak.i = value != 0;
    return a;
}
