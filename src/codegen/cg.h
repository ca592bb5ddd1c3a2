/* codegen — turns one scheduled kernel into CUDA C text, its structural cache key, and its
 * parameter words. It never calls CUDA.
 *
 * A kernel computes a set of IR nodes over one iteration space (the outputs' shape, with
 * adjacent axes collapsed where every operand allows). Every operand that is read from memory
 * (INPUT) or generated from its index (ARANGE, EYE, RAND...) has a layout class: FULL
 * (contiguous over the whole space: index i), SCALAR (one element), or STRIDED (index from the
 * coordinates). Scalars (CONST) are parameters, never text, so a loop that changes them
 * compiles once. All parameters travel as one struct of 64-bit words. */
#ifndef LOOM_CG_H
#define LOOM_CG_H

#include "../ir/ir.h"

/* STRIDED_V: strided, but contiguous and aligned along the innermost axis, so that a vector
 * step reads it with one 16-byte load. */
enum { CG_FULL, CG_SCALAR, CG_STRIDED, CG_STRIDED_V };

typedef struct cg_kernel {
    const ir_graph_t *g;
    uint32_t *nodes;  /* kernel nodes, operands first (INPUT, CONST and leaves included) */
    uint32_t n_nodes;
    uint32_t *outs;   /* nodes stored to output buffers, in output order */
    uint32_t n_outs;
    int ndim;         /* collapsed iteration space */
    int64_t shape[LOOM_MAX_DIMS];
    int64_t size;
    /* per kernel node (parallel to nodes): layout class and strides in the collapsed space */
    uint8_t *layout;
    int64_t (*strides)[LOOM_MAX_DIMS];
    bool flat;        /* no operand is STRIDED: no index decomposition */
    int vec;          /* elements per thread step in the flat loop (1, 2, 4, 8) */
    bool idx64;       /* 64-bit index arithmetic */
} cg_kernel_t;

/* ---- plan.c: builds a kernel description for outputs of one shape ----
 * nodes/outs are arena arrays; input_aligned(i) says whether input i's device address is
 * aligned to `bytes` (for the vector variant). */
bool cg_kernel_init(cg_kernel_t *k, const ir_graph_t *g, base_arena_t *ar, const uint32_t *outs,
                    uint32_t n_outs, const uint64_t *input_addr);

/* ---- elementwise.c ---- */
/* The structural key: ops, dtypes, layout classes, rank, vec, index width. Not values,
 * not extents, not addresses. Computed without generating source. */
base_hash128_t cg_kernel_key(const cg_kernel_t *k);
/* The kernel's CUDA C source and its extern "C" name (name: 40 bytes). */
void cg_kernel_source(const cg_kernel_t *k, base_str_t *out, char *name);
/* Number of 64-bit parameter words the kernel takes. */
uint32_t cg_kernel_n_params(const cg_kernel_t *k);
/* Fills the parameter words: extents, input and output addresses, strides, scalars. */
void cg_kernel_params(const cg_kernel_t *k, const uint64_t *input_addr, const uint64_t *out_addr,
                      uint64_t *words);
/* Threads per block of every elementwise kernel. */
#define CG_BLOCK 256
/* Launch shape: enough blocks for the work, at most one resident wave (sm_count ×
 * blocks_per_sm; 0 = unknown, then 8 per multiprocessor), since the loops are grid-stride. */
void cg_kernel_launch_shape(const cg_kernel_t *k, int sm_count, int blocks_per_sm, uint32_t *grid,
                            uint32_t *block);

/* The prelude (op semantics shared with the CPU interpreter) as NVRTC reads it, split at
 * build time by shake.py into declarations emitted always and functions emitted on use. */
typedef struct cg_prelude_fn {
    const char *name;
    uint32_t pos;               /* position in the prelude (definitions precede uses) */
    uint32_t off, len;          /* its text in cg_prelude_text */
    uint32_t dep_start, n_deps; /* positions of the prelude functions it calls */
} cg_prelude_fn_t;
extern const char cg_prelude_preamble[];
extern const char cg_prelude_text[];
extern const uint32_t cg_prelude_deps[];
extern const cg_prelude_fn_t cg_prelude_fns[]; /* sorted by name */
extern const uint32_t cg_prelude_by_pos[];     /* position -> index in cg_prelude_fns */
extern const uint32_t cg_prelude_n_fns;

#endif
