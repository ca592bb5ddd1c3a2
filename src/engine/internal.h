/* internal.h — the engine's private header: its state, the schedule of one eval (steps over
 * buffer slots), and what its files call of each other. Only src/engine includes it (and tests
 * that reach internals).
 *
 * The scheduler (schedule.c) cuts the flat IR into steps. Each step has its own small step graph
 * whose leaves are INPUT nodes reading slots (eval inputs, or buffers earlier steps wrote)
 * through element strides, and CONST / generator nodes whose values are refreshed from the
 * eval graph on every run, so that a schedule is built once per structure and reused (the
 * dispatch fast path). run.c runs schedules. */
#ifndef LOOM_ENGINE_INTERNAL_H
#define LOOM_ENGINE_INTERNAL_H

#include "../codegen/cg.h"
#include "engine.h"

#define EN_TRAIL 16 /* buffers whose last traversal direction the engine remembers */

/* Evals from..to (serials) a check found a raise in: what it read, in RT_STATUS_WORD's layout
 * (the bits of all the words ORed; the index details of the first word with the index bit). */
struct en_raised {
    uint64_t from, to;
    uint64_t word[4];
};

struct en_engine {
    rt_device_t *rt;
    base_alloc_t *al;
    base_error_t *err;
    base_log_t *log;
    loom_stats_t *stats;
    const char *dump_dir;
    bool compile_only, allow_tf32;
    struct en_plans *plans; /* the dispatch fast path's schedules (run.c) */
    rt_blas_t *blas;        /* cuBLASLt, created on the first float product (matmul.c) */
    rt_solver_t *solver;    /* cuSOLVER, created on the first factorisation (linalg.c) */
    rt_fft_t *fft;          /* cuFFT and its plans, created on the first transform (fft.c) */
    /* The direction (1 forward, -1 reverse) the latest kernels took over each buffer they
     * touched, by base address, the least recent replaced (run.c, "Traversal order"). */
    struct {
        uint64_t addr, seq;
        int dir;
    } trail[EN_TRAIL];
    uint64_t trail_seq;
    /* Errors after the eval (run.c): the evals so far; the first eval whose kernels' raises
     * are unchecked (0: none), and the status words of those kernels; the ranges of evals a
     * check found a raise in, with its bits. */
    uint64_t serial, unchecked_from;
    uint64_t *words;
    uint32_t n_words, cap_words;
    struct en_raised *raised;
    uint32_t n_raised, cap_raised;
};

/* ---- engine.c ---- */
/* Records an error on the ctx's sticky error (first wins), logs it, returns the status. */
loom_status_t en_error(en_engine_t *e, loom_status_t status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The one find-or-build path of every generated kernel: the kernel of key from the kernel
 * cache (memory, then disk), or, on a miss, source(obj, idx, text, name) generated and compiled
 * by NVRTC. NULL with the error recorded. */
typedef void en_source_fn(const void *obj, uint32_t idx, base_str_t *text, char *name);
rt_kernel_t *en_kernel(en_engine_t *e, base_hash128_t key, en_source_fn *source, const void *obj,
                       uint32_t idx);

typedef enum en_step_kind {
    EN_STEP_ELEM,   /* one fused elementwise kernel, outputs of one iteration space */
    EN_STEP_REDUCE, /* reductions with their prologue, stages and epilogue (cg_reduce) */
    EN_STEP_SCAN,   /* cumsum / cumprod (cg_scan) */
    EN_STEP_GEMM,   /* a matrix product and its absorbed epilogue (matmul.c, cuBLAS) */
    EN_STEP_CONCAT, /* strided 2-D copies of contiguous operands into one buffer */
    EN_STEP_SORT,   /* a sort, searchsorted, flatnonzero or scatter (cg_sort, sort.c) */
    EN_STEP_LINALG, /* a factorisation through cuSOLVER (linalg.c) */
    EN_STEP_FFT     /* a complex transform along one axis through cuFFT (fft.c) */
} en_step_kind_t;

/* A slot: one buffer of the schedule. Slots 0 .. n_inputs-1 are the eval's inputs. */
typedef struct en_slot {
    size_t bytes;       /* temps and outputs: bytes to allocate (C-contiguous) */
    uint32_t producer;  /* step writing it (UINT32_MAX for eval inputs) */
    uint32_t last_use;  /* last step reading it (frees temps after it) */
    bool output;        /* handed to an eval result: not freed */
    bool batched;       /* holds the results of a batch: each result a piece of it */
} en_slot_t;

/* A horizontal batch: n members (requested results of the same expression over different
 * inputs of one shape) computed by one kernel into one slot. The schedule holds only while
 * the members' scalars agree and their inputs lie at one stride from each other, which
 * run.c checks on every run (else it schedules the eval again without batching). */
typedef struct en_batch {
    uint32_t n, n_leaves;
    uint32_t *leaf;       /* n x n_leaves eval nodes: INPUT or CONST leaves, member-major */
    int64_t *stride;      /* per leaf position: bytes between members' inputs (INPUT) */
} en_batch_t;

/* A leaf of a step graph whose params come from eval-graph node `origin` on every run. */
typedef struct en_leaf_ref {
    uint32_t node, origin;
} en_leaf_ref_t;

typedef struct en_step {
    en_step_kind_t kind;
    ir_graph_t sg;          /* the step graph (plan arena) */
    uint32_t *in_slot;      /* per sg input: the slot it reads */
    int64_t *in_delta;      /* per sg input: element offset added to the slot's own offset */
    uint32_t *out_slot;     /* per sg output: the slot it writes */
    en_leaf_ref_t *leaves;  /* CONST and generator leaves to refresh */
    uint32_t n_leaves;
    /* codegen, by kind */
    cg_kernel_t k;          /* ELEM */
    cg_reduce_t *red;       /* REDUCE */
    cg_scan_t *scan;        /* SCAN */
    cg_sort_t *sort;        /* SORT */
    rt_kernel_t **kerns;    /* ELEM: 1, REDUCE: cg_reduce_n_kernels, SCAN: 1 */
    uint32_t n_kerns;
    int concat_axis;        /* CONCAT: the axis */
    uint32_t la_members;    /* LINALG: separate factorisations stacked into this one (0: one) */
    uint32_t *free_after;   /* temps nothing reads after this step: freed once it is queued */
    uint32_t n_free;
} en_step_t;

typedef struct en_plan {
    base_hash128_t key;
    base_arena_t arena;     /* everything below */
    en_step_t *steps;
    uint32_t n_steps;
    en_slot_t *slots;
    uint32_t n_slots, n_inputs;
    uint32_t n_outputs;
    uint32_t *out_slot;     /* per eval output */
    uint64_t *out_off;      /* per eval output: byte offset in its slot (batches), else 0 */
    uint64_t *out_bytes;    /* per eval output: its bytes */
    uint32_t *out_first;    /* per eval output: the first output of the same node */
    en_batch_t *batches;
    uint32_t n_batches;
    uint64_t *status;       /* the status words of its kernels that raise (rt_kernel_status) */
    uint32_t n_status;
} en_plan_t;

/* ---- schedule.c ---- */
/* Builds the schedule of g (inputs at in_addr, for alignment choices) and compiles its
 * kernels. NULL with the error recorded. */
en_plan_t *en_schedule(en_engine_t *e, const ir_graph_t *g, const uint64_t *in_addr,
                          base_hash128_t key, bool batch);
/* Whether p's batches hold for this eval (scalars agree, inputs one stride apart). */
bool en_schedule_batches_hold(const en_plan_t *p, const ir_graph_t *g, const uint64_t *in_addr);
void en_schedule_free(en_engine_t *e, en_plan_t *p);
/* The schedule as text (LOOM_DUMP's schedule_N.txt, and tests). */
void en_schedule_print(const en_plan_t *p, const ir_graph_t *g, base_str_t *out);

/* ---- matmul.c ---- */
/* Runs a matmul step on the device's stream. sg is a step graph built by the scheduler: INPUT nodes
 * (any element strides and offset; in_addr[i] is the device address of sg input i, i.e. of
 * element 0 before offset), CONST nodes, exactly one MATMUL node whose two operands are INPUT
 * nodes, and the epilogue nodes (en_matmul_epilogue_nodes, copied from g, their other operands
 * turned into INPUT or CONST nodes of sg); sg->outputs[0] is the step's result (the MATMUL
 * node, or the epilogue's last node), written C-contiguous at out_addr (allocated by the
 * caller: result elements x dtype size). Float products go to cuBLASLt (operand layouts as op
 * flags and leading dimensions; a layout with neither of its last two axes unit-stride is
 * gathered into a contiguous temporary first); ints, bool and k == 0 to a generated kernel.
 * On the compile-only device, compiles any generated kernel and launches nothing. Returns
 * the status (errors through en_error). */
loom_status_t en_matmul_run(en_engine_t *e, const ir_graph_t *sg, const uint64_t *in_addr,
                            uint64_t out_addr);
/* ---- sort.c ---- */
/* The device address of element 0 of step-graph INPUT operand k of node nd (in[]: the step's
 * input addresses, before their offsets). */
uint64_t en_operand(const ir_graph_t *sg, const ir_node_t *nd, int k, const uint64_t *in);
/* Blocks of 256 for a grid-stride kernel over n elements (n > 0): at most 8 per
 * multiprocessor. */
uint32_t en_stride_grid(rt_device_t *rt, int64_t n);
/* Runs a SORT step (st->sort over st->sg, whose node sg->outputs[0] reads C-contiguous INPUT
 * operands at in[], result at out) on the device's stream, with scratch from the pool.
 * Returns the status (errors through en_error). */
loom_status_t en_sort_run(en_engine_t *e, const en_step_t *st, const uint64_t *in, uint64_t out);

/* ---- fft.c ---- */
/* Runs an FFT step (its node sg->outputs[0] over a C-contiguous INPUT operand at in[], result at
 * out) as one cuFFT job on the device's stream. Nothing on a compile-only device. */
loom_status_t en_fft_run(en_engine_t *e, const en_step_t *st, const uint64_t *in, uint64_t out);

/* ---- linalg.c ---- */
/* Runs a LINALG step (its node sg->outputs[0] over C-contiguous INPUT operands at in[], result
 * at out): the cuSOLVER job or the small-system kernel (st->kerns[0]), LU's pivots kernel
 * (st->kerns[0]), EIG's check (st->kerns[0]) or CHOLESKY's transposing copy (st->kerns[0]), then
 * the first failing info word found by the last kernel and read back (a sync); LINALG_ERROR naming
 * the matrix when one fails. Nothing on a compile-only device. */
loom_status_t en_linalg_run(en_engine_t *e, const en_step_t *st, const uint64_t *in, uint64_t out);
/* Stacks of real SOLVE systems and CHOLESKY matrices up to this size run one thread per
 * matrix (en_linalg_small_source; idx = n * 2 + float64, plus EN_SMALL_CHOLESKY, plus
 * EN_SMALL_TRANSPOSED when the operand is A itself: CHOLESKY's p.k 1). */
#define EN_SMALL_SOLVE 16
#define EN_SMALL_CHOLESKY 64u
#define EN_SMALL_TRANSPOSED 128u
static inline bool en_linalg_small(ir_op_t op, int64_t n, loom_dtype_t d) {
    return (op == IR_OP_SOLVE || op == IR_OP_CHOLESKY) && n >= 1 && n <= EN_SMALL_SOLVE &&
           !ir_is_complex(d);
}
void en_linalg_small_source(const void *obj, uint32_t idx, base_str_t *t, char *name);
base_hash128_t en_linalg_small_key(loom_dtype_t d, uint32_t idx);
/* Its threads per block (shared memory holds the block's matrices: 32 KiB). */
uint32_t en_linalg_small_tpb(int64_t n, size_t es);
/* The first failing info word's kernel (every LINALG step's last) and its cache key. */
void en_linalg_first_bad_source(const void *obj, uint32_t idx, base_str_t *t, char *name);
base_hash128_t en_linalg_first_bad_key(void);
/* LU's pivots kernel (idx bit 0 float64 parts, bit 1 complex) and its cache key. */
void en_linalg_pivots_source(const void *obj, uint32_t idx, base_str_t *t, char *name);
base_hash128_t en_linalg_pivots_key(loom_dtype_t d);
/* The batched transposing copy of square matrices of idx-byte elements (4, 8 or 16): CHOLESKY's
 * p.k 1 copies A^T into the buffer cuSOLVER factors (st->kerns[0]), and its cache key. */
void en_linalg_transpose_source(const void *obj, uint32_t idx, base_str_t *t, char *name);
base_hash128_t en_linalg_transpose_key(uint32_t es);
/* EIG's check for infs and NaNs (st->kerns[0]; idx 0 complex64, 1 complex128) and its key. */
void en_linalg_nonfinite_source(const void *obj, uint32_t idx, base_str_t *t, char *name);
base_hash128_t en_linalg_nonfinite_key(loom_dtype_t d);

/* ---- run.c ---- */
/* Frees every cached plan (engine destroy). */
void en_plans_clear(en_engine_t *e);

/* ---- matmul_plan.c: matmul epilogues (pure IR; en_matmul_run runs them) ----
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
uint32_t en_matmul_epilogue(const ir_graph_t *g, uint32_t mm, const uint32_t *n_users);
/* What en_matmul_epilogue found, as cuBLASLt applies it. */
enum { EN_ACT_NONE, EN_ACT_RELU, EN_ACT_GELU }; /* rt_gemm_act_t's values */
typedef struct en_matmul_epi {
    uint32_t last;       /* the last absorbed node (mm when none) */
    uint32_t bias;       /* the bias operand, or UINT32_MAX */
    double pre, post;    /* scales before and after the bias (1 when absent) */
    uint32_t post_const; /* the CONST of the scale after the bias, or UINT32_MAX */
    int act;
    uint32_t nodes[CG_GEMM_MAX_EPILOGUE]; /* absorbed nodes, in match order */
    uint32_t n_nodes;
} en_matmul_epi_t;
/* The epilogue of mm as en_matmul_epilogue defines it, described in *ep; returns its last node. */
uint32_t en_matmul_match(const ir_graph_t *g, uint32_t mm, const uint32_t *n_users,
                         en_matmul_epi_t *ep);
/* The nodes the step absorbs (those en_matmul_epilogue's result depends on that depend on mm,
 * mm excluded), in increasing index order, into nodes (CG_GEMM_MAX_EPILOGUE entries); returns
 * how many (0 when none). For relu/bias/scale they form a chain; gelu's form a small DAG. */
uint32_t en_matmul_epilogue_nodes(const ir_graph_t *g, uint32_t mm, const uint32_t *n_users,
                                  uint32_t *nodes);

/* ---- matmul_plan.c: a matmul plan as cuBLAS calls (pure; en_matmul_run issues them) ----
 * Column-major terms, C^T = B^T A^T: cuBLAS's A is the right operand b, its B the left
 * operand a, its D (m x n, leading dimension ldd) the transposed result. One call per index of
 * the loop axes (outermost first; sa/sb/sc: element strides in a, b and the result), each a
 * strided batch of `batch` products (stride_a in b, stride_b in a, stride_d in the result). */
typedef struct en_matmul_layout {
    bool trans_a, trans_b;
    int64_t m, n, k, lda, ldb, ldd;
    int64_t batch, stride_a, stride_b, stride_d;
    int n_loop;
    ir_matmul_axis_t loop[2 * LOOM_MAX_DIMS];
    bool gather_a, gather_b; /* on false: copy that operand into C order and plan again */
} en_matmul_layout_t;
/* Fills l from plan p (whose outer contracted axes it folds into k where the strides allow);
 * false when an operand must be gathered first (gather_a/gather_b say which) or, with neither
 * set, when the result's layout is not one cuBLAS can write (not C-ordered). */
bool en_matmul_layout(ir_matmul_plan_t *p, en_matmul_layout_t *l);

/* ---- transfer.c ---- */
/* Device address of each input of g (addr[i]), uploading host data where needed (all small
 * inputs in one block and one staged copy; uploads are kept on their en_mem_t for later evals).
 * False with the error recorded. */
bool en_place_inputs(en_engine_t *e, const ir_graph_t *g, uint64_t *addr);
/* A block owning pool memory dev, shared by refs pieces (batched results, run.c). */
en_devblock_t *en_devblock_new(en_engine_t *e, uint64_t dev, int32_t refs);
void en_devblock_retain(en_devblock_t *blk);

#endif
