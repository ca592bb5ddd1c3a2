/* frontend — the public API: contexts, scopes, arrays (the lazy DAG's nodes), argument checks,
 * shape inference, NumPy 2 dtype promotion, and eval, which drives the passes below.
 *
 * A loom_array is a DAG node. Until evaluated it holds its op, operands (retained) and params;
 * evaluation realises it in place: it gets a buffer and drops its operands, so intermediates
 * can be freed. */
#ifndef LOOM_FE_H
#define LOOM_FE_H

#include "../engine/engine.h"

/* Storage shared by realised arrays and their views. Where its bytes are (host and/or device)
 * is the engine's en_mem_t; host bytes are owned unless borrowed, device ones come from the
 * pool unless borrowed (imported device memory). */
typedef struct fe_buffer {
    int32_t refcount;
    en_mem_t m;
    void (*release)(void *); /* external memory (dlpack.c): called once, on the last release */
    void *release_user;
    struct fe_buffer *next_free; /* on the ctx's free list (array.c) */
} fe_buffer_t;

enum fe_flags {
    FE_NIL = 1u << 0,      /* a failed builder's result */
    FE_WEAK = 1u << 1,     /* a NEP 50 weak scalar (0-d) */
    FE_REALISED = 1u << 2, /* buf holds the value */
    FE_MARK = 1u << 3,     /* transient: listed once already (eval's root dedupe) */
};

typedef enum fe_weak_kind {
    FE_WEAK_BOOL, FE_WEAK_INT, FE_WEAK_UINT, FE_WEAK_FLOAT, FE_WEAK_COMPLEX
} fe_weak_kind_t;

struct loom_array {
    loom_ctx_t *ctx;
    int32_t refcount;
    uint16_t op;          /* ir_op_t; INPUT once realised */
    uint8_t dtype;
    uint8_t ndim;
    uint8_t flags;
    uint8_t weak_kind;    /* fe_weak_kind_t when FE_WEAK */
    int64_t shape[LOOM_MAX_DIMS];
    loom_array_t *src[3];
    ir_params_t p;
    union {
        int64_t i;
        uint64_t u;
        double f;
        struct { double re, im; } c;
    } weak; /* the weak scalar's Python-level value */
    fe_buffer_t *buf;     /* when realised */
    int64_t strides[LOOM_MAX_DIMS]; /* elements */
    int64_t offset;       /* elements */
    uint64_t hash;        /* structural: op, dtype, shape, operands; not values */
    loom_array_t *next_free;
    uint64_t lowered;     /* the ctx's lower_epoch when lowered_idx was set (eval.c) */
    uint32_t lowered_idx; /* the IR node of this array in that lowering */
};

/* A block from loom_host_alloc (host.c). */
typedef struct fe_host_block {
    void *p;
    size_t bytes;
    bool pinned; /* from rt_host_alloc; else from the ctx allocator */
} fe_host_block_t;

#define FE_SCOPE_CONSTS 4
typedef struct fe_scope {
    loom_array_t **items;
    uint32_t n, cap;
    /* The latest 0-d constants made from weak scalar operands in this scope (ops.c), shared
     * by the elementwise ops that need the same one: a loop building x * 2 + 1 makes one
     * CONST 2 and one CONST 1, not one of each per call. The scope holds their creation
     * reference, so they live as long as the scope; a new scope starts with none. */
    loom_array_t *consts[FE_SCOPE_CONSTS];
    uint32_t next_const;
} fe_scope_t;

struct loom_ctx {
    base_alloc_t al;
    base_error_t err;
    base_log_t log;
    loom_device_kind_t device;
    char device_name[128];
    loom_array_t nil;      /* the context's nil array (immortal) */
    fe_scope_t *scopes;
    uint32_t n_scopes, cap_scopes;
    loom_array_t *free_nodes; /* slab free list */
    struct fe_slab *slabs;
    fe_buffer_t *free_bufs;   /* buffers: their own slabs and free list */
    struct fe_buf_slab *buf_slabs;
    uint64_t n_live_nodes;
    uint64_t lower_epoch; /* one per lowering: marks which arrays it has lowered (eval.c) */
    uint64_t eval_calls;  /* loom_eval calls (reads too): a run that made one depends on values */
    uint32_t lowered_last; /* IR nodes of the latest lowering: the next one's size hint */
    loom_stats_t stats;
    char *cache_dir, *dump_dir, *arch;
    bool disable_disk_cache;
#if LOOM_HAVE_CUDA
    rt_device_t *rt;
    int cuda_ordinal;       /* rt's device index (DLPack's device_id) */
#endif
    en_engine_t *engine;    /* with rt: plans, schedules and runs evals on it */
    fe_host_block_t *host_blocks; /* loom_host_alloc's live blocks (unordered) */
    uint32_t n_host_blocks, cap_host_blocks;
};

/* ---- ctx.c ---- */
/* Records an error on the ctx (first wins) and returns the status. */
loom_status_t fe_error(loom_ctx_t *ctx, loom_status_t status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- host.c ---- */
/* Frees every block loom_host_alloc handed out and the caller did not free (ctx destroy, before
 * the device). */
void fe_host_free_all(loom_ctx_t *ctx);

/* ---- array.c ---- */
/* A new node owned by the current scope (refcount 1), or the nil array on failure. */
loom_array_t *fe_node_new(loom_ctx_t *ctx, ir_op_t op, loom_dtype_t dtype, int32_t ndim,
                          const int64_t *shape);
/* Validates a shape (ndim range, non-negative, product overflow); records and returns false. */
bool fe_check_shape(loom_ctx_t *ctx, const char *fn, int32_t ndim, const int64_t *shape,
                    int64_t *size_out);
/* A prepared program's evaluated run kept for replays (eval.c). fe_eval_record is loom_eval
 * of a run's items that also records, into *keep, the run's graph when it can be replayed
 * (NULL otherwise); fe_replay evaluates it again for the arrays bound under names when they
 * match what it was recorded with, giving the items as the run would (true), or does nothing
 * (false). */
typedef struct fe_replay fe_replay_t;
typedef struct fe_record {
    int32_t n_items;
    loom_array_t *const *items;
    int is_tuple;
    int32_t n_bound;
    const char *const *names;
    loom_array_t *const *bound;
    fe_replay_t **keep;
} fe_record_t;
loom_status_t fe_eval_record(loom_ctx_t *ctx, const fe_record_t *rec);
bool fe_replay(loom_ctx_t *ctx, const fe_replay_t *r, int32_t n_bound, const char *const *names,
               loom_array_t *const *bound, int32_t cap, loom_array_t **outs, int32_t *n_items,
               int *is_tuple);
void fe_replay_free(loom_ctx_t *ctx, fe_replay_t *r);
/* A reference to the live array a held by the current scope, as a builder's result is (for
 * a result that is an existing array: loom_parse's bound names), or nil when out of memory. */
loom_array_t *fe_scope_adopt(loom_ctx_t *ctx, loom_array_t *a);
/* Checks that a builder argument is a live array of ctx; records the error otherwise. */
bool fe_check_arg(loom_ctx_t *ctx, const char *fn, const loom_array_t *a);
/* fftconvolve's cost rule (signal.c): whether inputs of n1 and n2 elements go through the
 * transforms. The direct form up to FE_CONV_DIRECT_MAX elements in the shorter input, and
 * while n1 n2 products cost less than the transforms: FE_CONV_FFT_NLOGN N log2 N of the padded
 * length N plus a fixed FE_CONV_FFT_FIXED (docs/design-notes.md, "Fourier transforms": fitted
 * to bench_fft's conv_1M_K rows on the H200). */
#define FE_CONV_DIRECT_MAX 64
#define FE_CONV_FFT_NLOGN  20.0
#define FE_CONV_FFT_FIXED  1.0e8
bool fe_fftconvolve_uses_fft(int64_t n1, int64_t n2);
/* fe_check_arg for actions (calls that return a status and hand out results): a nil array
 * is an error even when none is pending (its own was cleared), so that OK always comes with
 * results. */
bool fe_check_input(loom_ctx_t *ctx, const char *fn, const loom_array_t *a);
/* A node of op over n operands (retained) with params p (NULL: none),
 * in the current scope, or nil; its structural hash covers params that shape the computation. */
loom_array_t *fe_shaped(loom_ctx_t *ctx, ir_op_t op, loom_dtype_t dtype, int32_t ndim,
                        const int64_t *shape, int n, loom_array_t *const *srcs,
                        const ir_params_t *p);
/* A 0-d int64 CONST of value v (index arithmetic of the gather, mask and sort builders). */
loom_array_t *fe_i64(loom_ctx_t *ctx, int64_t v);
/* Whether any element of bool array c is true, read back (one sync; the work in a scope of its
 * own) into *out; false, the error recorded, where the evaluation fails. */
bool fe_any_true(loom_ctx_t *ctx, loom_array_t *c, bool *out);
/* A CONST node (every element = bits, in dtype's representation). */
/* The complex conjugate of a complex a; any other a itself (loom_conj gives NumPy's int8 for
 * bool, which the products that conjugate their operand must not take). */
static inline loom_array_t *fe_conj(loom_ctx_t *ctx, loom_array_t *a) {
    return ir_is_complex((loom_dtype_t)a->dtype) ? loom_conj(ctx, a) : a;
}
/* |x|^2 as NumPy forms it: the real part of x * conj(x) for complex x, else x * x. */
static inline loom_array_t *fe_abs2(loom_ctx_t *ctx, loom_array_t *x) {
    return ir_is_complex((loom_dtype_t)x->dtype)
               ? loom_real(ctx, loom_multiply(ctx, x, loom_conj(ctx, x)))
               : loom_multiply(ctx, x, x);
}
/* A constant complex64 or complex128 array of value re + im j. */
loom_array_t *fe_complex_const(loom_ctx_t *ctx, loom_dtype_t dtype, int32_t ndim,
                               const int64_t *shape, double re, double im);
loom_array_t *fe_const(loom_ctx_t *ctx, loom_dtype_t dtype, int32_t ndim, const int64_t *shape,
                       uint64_t bits);
/* A zeroed buffer (refcount 0) from the ctx's buffer slabs, or NULL when out of memory (the
 * caller records the error). fe_buffer_free returns one that holds nothing; release drops a
 * reference and frees what the buffer owns with the last one. */
fe_buffer_t *fe_buffer_new(loom_ctx_t *ctx);
void fe_buffer_free(loom_ctx_t *ctx, fe_buffer_t *b);
void fe_buffer_release(loom_ctx_t *ctx, fe_buffer_t *b);
void fe_node_free_all(loom_ctx_t *ctx);
int64_t fe_size(const loom_array_t *a);
/* Formats a shape as NumPy does: "(3, 4)", "(5,)", "()". */
void fe_format_shape(char *out, size_t cap, int32_t ndim, const int64_t *shape);

/* ---- ops.c ---- */
/* np.result_type of two strong dtypes; -1 with "fn: no common dtype for a and b" recorded. */
int fe_promote(loom_ctx_t *ctx, const char *fn, loom_dtype_t a, loom_dtype_t b);
/* np.result_type of n operands under NEP 50 (weak scalars yield to strong dtypes; all weak:
 * the default dtype of the highest kind); -1 with the error recorded. */
int fe_result_type(loom_ctx_t *ctx, const char *fn, int n, loom_array_t *const *ops);
/* The dtype np.where and np.choose give their n value operands: NEP 50, a weak Python int
 * resolved as 0 (cast unsafely afterwards, so one out of range wraps, as NumPy's does). -1
 * with the error recorded. */
int fe_value_dtype(loom_ctx_t *ctx, const char *fn, int n, loom_array_t *const *ops);

/* The elementwise op over n operands (1 to 3) with NumPy's loop resolution, weak scalars,
 * casts and broadcasting; nil with the error recorded. */
loom_array_t *fe_elementwise(loom_ctx_t *ctx, ir_op_t op, int n, loom_array_t **ops);

/* NumPy's broadcast of the n arrays' shapes into ndim/shape; false (nothing recorded) when
 * they do not broadcast. */
bool fe_broadcast_shapes(int n, loom_array_t *const *ops, int32_t *ndim, int64_t *shape);

/* ---- movement.c: views and joins ---- */
/* Normalises axis (negative from the end) against ndim; records NumPy's AxisError text. */
bool fe_axis(loom_ctx_t *ctx, const char *fn, int32_t axis, int32_t ndim, int32_t *out);
/* fe_axis for functions whose axis may be NumPy's None (LOOM_AXIS_NONE): then *a becomes the
 * flattened a and *out 0. False (recorded) on a bad axis or a failed reshape. */
bool fe_axis_or_flat(loom_ctx_t *ctx, const char *fn, loom_array_t **a, int32_t axis,
                     int32_t *out);
/* a with the n axes given (normalised; a repeated one refused) moved last, in a's order, and
 * merged into one: NumPy's one-axis statistics given a tuple (median, quantile). n 0 appends
 * an axis of extent 1. keep_shape (NULL: not wanted) gets a's shape with those axes 1, the
 * keepdims form. Nil with the error recorded. */
loom_array_t *fe_merge_axes(loom_ctx_t *ctx, const char *fn, loom_array_t *a, int32_t n,
                            const int32_t *axes, int64_t *keep_shape);
/* The view a[..., k, ...] of index k on axis ax (already normalised; the axis removed). */
loom_array_t *fe_index_axis(loom_ctx_t *ctx, loom_array_t *a, int32_t ax, int64_t k);
/* a[..., start:stop:step, ...] on axis ax alone (LOOM_NONE: omitted, as in loom_slice). */
loom_array_t *fe_slice_axis(loom_ctx_t *ctx, loom_array_t *a, int32_t ax, int64_t start,
                            int64_t stop, int64_t step);

/* ---- index.c ---- */
/* int64 indices x into an axis of extent n made in range as take's mode says: raise (an INDEX
 * node: out-of-range values fail the eval, negative ones count from the end), wrap, clip. */
loom_array_t *fe_index_mode(loom_ctx_t *ctx, loom_array_t *x, int64_t n, int32_t axis,
                            loom_take_mode_t mode);

/* ---- scatter.c ---- */
/* The flat C-order position of every element of a, in a's shape (int64; what a scatter writes
 * through the same indexing that reads a). */
loom_array_t *fe_positions(loom_ctx_t *ctx, const loom_array_t *a);
/* A copy of a with the elements at the int64 flat positions f (any shape; values broadcast to
 * it and cast to a's dtype) set to or combined with values (op), in C order of f. */
loom_array_t *fe_scatter(loom_ctx_t *ctx, const char *fn, loom_array_t *a, loom_array_t *f,
                         loom_array_t *values, loom_at_op_t op);

/* ---- eval.c ---- */
/* Marks a node realised with a fresh C-contiguous buffer; drops its operands. */
void fe_realise(loom_ctx_t *ctx, loom_array_t *a, fe_buffer_t *buf);

#endif
