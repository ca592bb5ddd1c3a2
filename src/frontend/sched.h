/* sched.h — the CUDA device's schedule of one eval: steps over buffer slots.
 *
 * The scheduler (sched.c) cuts the flat IR into steps. Each step has its own small step graph
 * whose leaves are INPUT nodes reading slots (eval inputs, or buffers earlier steps wrote)
 * through element strides, and CONST / generator nodes whose values are refreshed from the
 * eval graph on every run, so that a schedule is built once per structure and reused (the
 * dispatch fast path). cuda.c runs schedules. */
#ifndef LOOM_SCHED_H
#define LOOM_SCHED_H

#include "../codegen/cg.h"
#include "fe.h"

typedef enum fe_step_kind {
    FE_STEP_ELEM,   /* one fused elementwise kernel, outputs of one iteration space */
    FE_STEP_REDUCE, /* reductions with their prologue, stages and epilogue (cg_reduce) */
    FE_STEP_SCAN,   /* cumsum / cumprod (cg_scan) */
    FE_STEP_GEMM,   /* a matrix product and its absorbed epilogue (gemm.c, cuBLAS) */
    FE_STEP_CONCAT  /* strided 2-D copies of contiguous operands into one buffer */
} fe_step_kind_t;

/* A slot: one buffer of the schedule. Slots 0 .. n_inputs-1 are the eval's inputs. */
typedef struct fe_slot {
    size_t bytes;       /* temps and outputs: bytes to allocate (C-contiguous) */
    uint32_t producer;  /* step writing it (UINT32_MAX for eval inputs) */
    uint32_t last_use;  /* last step reading it (frees temps after it) */
    bool output;        /* handed to an eval result: not freed */
    bool batched;       /* holds the results of a batch: each result a piece of it */
} fe_slot_t;

/* A horizontal batch: n members (requested results of the same expression over different
 * inputs of one shape) computed by one kernel into one slot. The schedule holds only while
 * the members' scalars agree and their inputs lie at one stride from each other, which
 * cuda.c checks on every run (else it schedules the eval again without batching). */
typedef struct fe_batch {
    uint32_t n, n_leaves;
    uint32_t *leaf;       /* n x n_leaves eval nodes: INPUT or CONST leaves, member-major */
    int64_t *stride;      /* per leaf position: bytes between members' inputs (INPUT) */
} fe_batch_t;

/* A leaf of a step graph whose params come from eval-graph node `origin` on every run. */
typedef struct fe_leaf_ref {
    uint32_t node, origin;
} fe_leaf_ref_t;

typedef struct fe_step {
    fe_step_kind_t kind;
    ir_graph_t sg;          /* the step graph (plan arena) */
    uint32_t *in_slot;      /* per sg input: the slot it reads */
    int64_t *in_delta;      /* per sg input: element offset added to the slot's own offset */
    uint32_t *out_slot;     /* per sg output: the slot it writes */
    fe_leaf_ref_t *leaves;  /* CONST and generator leaves to refresh */
    uint32_t n_leaves;
    /* codegen, by kind */
    cg_kernel_t k;          /* ELEM */
    cg_reduce_t *red;       /* REDUCE */
    cg_scan_t *scan;        /* SCAN */
    rt_kernel_t **kerns;    /* ELEM: 1, REDUCE: cg_reduce_n_kernels, SCAN: 1 */
    uint32_t n_kerns;
    int concat_axis;        /* CONCAT: the axis */
    uint32_t *free_after;   /* temps nothing reads after this step: freed once it is queued */
    uint32_t n_free;
} fe_step_t;

typedef struct fe_plan {
    base_hash128_t key;
    base_arena_t arena;     /* everything below */
    fe_step_t *steps;
    uint32_t n_steps;
    fe_slot_t *slots;
    uint32_t n_slots, n_inputs;
    uint32_t n_outputs;
    uint32_t *out_slot;     /* per eval output */
    uint64_t *out_off;      /* per eval output: byte offset in its slot (batches), else 0 */
    uint64_t *out_bytes;    /* per eval output: its bytes */
    uint32_t *out_first;    /* per eval output: the first output of the same node */
    fe_batch_t *batches;
    uint32_t n_batches;
} fe_plan_t;

/* Builds the schedule of g (inputs at in_addr, for alignment choices) and compiles its
 * kernels. NULL with the error recorded. */
fe_plan_t *fe_sched_build(loom_ctx_t *ctx, const ir_graph_t *g, const uint64_t *in_addr,
                          base_hash128_t key, bool batch);
/* Whether p's batches hold for this eval (scalars agree, inputs one stride apart). */
bool fe_sched_batches_hold(const fe_plan_t *p, const ir_graph_t *g, const uint64_t *in_addr);
void fe_sched_free(loom_ctx_t *ctx, fe_plan_t *p);
/* The schedule as text (LOOM_DUMP's schedule_N.txt, and tests). */
void fe_sched_print(const fe_plan_t *p, const ir_graph_t *g, base_str_t *out);

#endif
