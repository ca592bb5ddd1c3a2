/* frontend — the public API: contexts, scopes, arrays (the lazy DAG's nodes), argument checks,
 * shape inference, NumPy 2 dtype promotion, and eval, which drives the passes below.
 *
 * A loom_array is a DAG node. Until evaluated it holds its op, operands (retained) and params;
 * evaluation realises it in place: it gets a buffer and drops its operands, so intermediates
 * can be freed. */
#ifndef LOOM_FE_H
#define LOOM_FE_H

#include "../ir/ir.h"

#if LOOM_HAVE_CUDA
#include "../runtime/rt.h"
#endif

typedef struct fe_devblock fe_devblock_t; /* a device block shared by packed uploads */

/* Storage shared by realised arrays (and, later, views of them). */
typedef struct fe_buffer {
    int32_t refcount;
    bool on_device;
    bool borrowed;     /* host memory owned by the caller */
    void *host;        /* host bytes (owned unless borrowed) */
    uint64_t dev;      /* device address, from the pool (the caller's when borrowed) */
    size_t bytes;      /* borrowed: the extent the array's strides reach, from host/dev */
    void (*release)(void *); /* external memory (dlpack.c): called once, on the last release */
    void *release_user;
    fe_devblock_t *block; /* host data: the shared block dev lies in (transfer.c), or NULL */
    uint64_t host_hash;   /* borrowed host data: its contents when uploaded (debug checks) */
    bool queued;          /* transfer.c: already in this eval's upload list */
    struct fe_buffer *next_free; /* on the ctx's free list (array.c) */
} fe_buffer_t;

enum fe_flags {
    FE_NIL = 1u << 0,      /* a failed builder's result */
    FE_WEAK = 1u << 1,     /* a NEP 50 weak scalar (0-d) */
    FE_REALISED = 1u << 2, /* buf holds the value */
    FE_MARK = 1u << 3,     /* transient: listed once already (eval's root dedupe) */
};

typedef enum fe_weak_kind { FE_WEAK_BOOL, FE_WEAK_INT, FE_WEAK_UINT, FE_WEAK_FLOAT } fe_weak_kind_t;

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
    union { int64_t i; uint64_t u; double f; } weak; /* the weak scalar's Python-level value */
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

#define FE_TRAIL 16 /* buffers whose last traversal direction the ctx remembers */

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
    loom_stats_t stats;
    char *cache_dir, *dump_dir, *arch;
    bool disable_disk_cache;
#if LOOM_HAVE_CUDA
    rt_device_t *rt;
    int cuda_ordinal;       /* rt's device index (DLPack's device_id) */
    struct fe_plans *plans; /* the dispatch fast path's schedules (cuda.c) */
    struct fe_gemm *gemm;   /* cuBLASLt state, created on the first matmul (gemm.c) */
    /* The direction (1 forward, -1 reverse) the latest kernels took over each buffer they
     * touched, by base address, the least recent replaced (cuda.c, "Traversal order"). */
    struct {
        uint64_t addr, seq;
        int dir;
    } trail[FE_TRAIL];
    uint64_t trail_seq;
#endif
    bool allow_tf32;        /* options.allow_tf32: float32 matmuls may use TF32 */
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
/* Checks that a builder argument is a live array of ctx; records the error otherwise. */
bool fe_check_arg(loom_ctx_t *ctx, const char *fn, const loom_array_t *a);
/* A node of op over n operands (retained) with params p (NULL: none),
 * in the current scope, or nil; its structural hash covers params that shape the computation. */
loom_array_t *fe_shaped(loom_ctx_t *ctx, ir_op_t op, loom_dtype_t dtype, int32_t ndim,
                        const int64_t *shape, int n, loom_array_t *const *srcs,
                        const ir_params_t *p);
/* A CONST node (every element = bits, in dtype's representation). */
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

#if LOOM_HAVE_CUDA
/* ---- cuda.c: the CUDA device's eval ---- */
loom_status_t fe_cuda_eval(loom_ctx_t *ctx, ir_graph_t *g, fe_buffer_t **results);
void fe_plans_destroy(loom_ctx_t *ctx);
/* ---- gemm.c ---- */
/* Runs a matmul step on ctx's stream. sg is a step graph built by the scheduler: INPUT nodes
 * (any element strides and offset; in_addr[i] is the device address of sg input i, i.e. of
 * element 0 before offset), CONST nodes, exactly one MATMUL node whose two operands are INPUT
 * nodes, and the epilogue nodes (fe_gemm_epilogue_nodes, copied from g, their other operands
 * turned into INPUT or CONST nodes of sg); sg->outputs[0] is the step's result (the MATMUL
 * node, or the epilogue's last node), written C-contiguous at out_addr (allocated by the
 * caller: result elements x dtype size). Float products go to cuBLASLt (operand layouts as op
 * flags and leading dimensions; a layout with neither of its last two axes unit-stride is
 * gathered into a contiguous temporary first); ints, bool and k == 0 to a generated kernel.
 * On the compile-only device, compiles any generated kernel and launches nothing. Returns
 * the status (errors through fe_error). */
loom_status_t fe_gemm_run(loom_ctx_t *ctx, const ir_graph_t *sg, const uint64_t *in_addr,
                          uint64_t out_addr);
/* Frees ctx's cuBLAS state (called from ctx destroy; NULL-safe). */
void fe_gemm_destroy(loom_ctx_t *ctx);
/* ---- transfer.c ---- */
/* Device address of each input of g (addr[i]), uploading host data where needed (all small
 * inputs in one block and one staged copy; uploads are kept on their buffers for later evals);
 * temp[i] says the upload is for this eval only (rt_free it after). False with the error
 * recorded. */
bool fe_place_inputs(loom_ctx_t *ctx, const ir_graph_t *g, uint64_t *addr, bool *temp);
/* Drops one piece's reference to a packed upload block; the last frees the device memory. */
void fe_devblock_release(loom_ctx_t *ctx, fe_devblock_t *blk);
/* A block owning pool memory dev, shared by refs buffers (batched results, cuda.c). */
fe_devblock_t *fe_devblock_new(loom_ctx_t *ctx, uint64_t dev, int32_t refs);
void fe_devblock_retain(fe_devblock_t *blk);
#endif
/* ---- transfer.c: statistics of one API call (eval, read) ---- */
typedef struct fe_transfer_mark {
    uint64_t h2d_copies, h2d_bytes, d2h_copies, d2h_bytes;
} fe_transfer_mark_t;
/* Notes the counters before a call; after it, end stores the difference as the stats'
 * last_eval_* fields and logs it (INFO) under `what`. */
void fe_transfer_begin(loom_ctx_t *ctx, fe_transfer_mark_t *m);
void fe_transfer_end(loom_ctx_t *ctx, const fe_transfer_mark_t *m, const char *what);

/* ---- gemm.c: matmul epilogues (pure IR; fe_gemm_run above runs them) ----
 * The last node of the epilogue that the matmul step at node `mm` of eval graph g absorbs (mm
 * itself when none). n_users[i] = number of operand references to node i from other nodes of
 * g, plus one for each time i is listed in g->outputs. Only float16/bfloat16/float32 matmuls
 * (mode matmul or dot, result of 2 or more axes, b of 2 or more axes) absorb anything, and
 * only nodes of the matmul's dtype and shape. The chain, each part optional, in this order
 * (x is the chain so far; ADD and MULTIPLY operands in either order):
 *   1. MULTIPLY(x, CONST s)          scale (cuBLASLt's alpha)
 *   2. ADD(x, bias)                  bias: not CONST, the matmul's dtype, shape (N,), (1, N),
 *                                    (1, 1, N)...: broadcast along the last axis only
 *   3. MULTIPLY(x, CONST s)          scale after the bias (only after a bias)
 *   4. MAXIMUM(x, CONST 0)           relu, or
 *      gelu, tanh form (cuBLASLt's GELU), exactly as loom builds
 *        MULTIPLY(MULTIPLY(x, 0.5), ADD(TANH(MULTIPLY(ADD(x, MULTIPLY(cube, 0.044715)),
 *                 0.7978845608)), 1))
 *      with cube = MULTIPLY(MULTIPLY(x, x), x), MULTIPLY(SQUARE(x), x) or POWER(x, 3)
 *      (constants compared after rounding to the dtype, within 1e-6 relative).
 * Every absorbed node but the last has all its users inside the epilogue: n_users == 1 for
 * the chain nodes and gelu's inner nodes, and x's references all from the gelu pattern. */
#define FE_GEMM_MAX_EPILOGUE 16
uint32_t fe_gemm_epilogue(const ir_graph_t *g, uint32_t mm, const uint32_t *n_users);
/* The nodes the step absorbs (those fe_gemm_epilogue's result depends on that depend on mm,
 * mm excluded), in increasing index order, into nodes (FE_GEMM_MAX_EPILOGUE entries); returns
 * how many (0 when none). For relu/bias/scale they form a chain; gelu's form a small DAG. */
uint32_t fe_gemm_epilogue_nodes(const ir_graph_t *g, uint32_t mm, const uint32_t *n_users,
                                uint32_t *nodes);

/* ---- gemm.c: a matmul plan as cuBLAS calls (pure; fe_gemm_run issues them) ----
 * Column-major terms, C^T = B^T A^T: cuBLAS's A is the right operand b, its B the left
 * operand a, its D (m x n, leading dimension ldd) the transposed result. One call per index of
 * the loop axes (outermost first; sa/sb/sc: element strides in a, b and the result), each a
 * strided batch of `batch` products (stride_a in b, stride_b in a, stride_d in the result). */
typedef struct fe_gemm_layout {
    bool trans_a, trans_b;
    int64_t m, n, k, lda, ldb, ldd;
    int64_t batch, stride_a, stride_b, stride_d;
    int n_loop;
    ir_matmul_axis_t loop[2 * LOOM_MAX_DIMS];
    bool gather_a, gather_b; /* on false: copy that operand into C order and plan again */
} fe_gemm_layout_t;
/* Fills l from plan p (whose outer contracted axes it folds into k where the strides allow);
 * false when an operand must be gathered first (gather_a/gather_b say which) or, with neither
 * set, when the result's layout is not one cuBLAS can write (not C-ordered). */
bool fe_gemm_layout(ir_matmul_plan_t *p, fe_gemm_layout_t *l);

/* ---- movement.c: views and joins (issue 4) ---- */
/* Normalises axis (negative from the end) against ndim; records NumPy's AxisError text. */
bool fe_axis(loom_ctx_t *ctx, const char *fn, int32_t axis, int32_t ndim, int32_t *out);

/* ---- eval.c ---- */
/* Marks a node realised with a fresh C-contiguous buffer; drops its operands. */
void fe_realise(loom_ctx_t *ctx, loom_array_t *a, fe_buffer_t *buf);

#endif
