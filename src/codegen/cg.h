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
 * step reads it with one 16-byte load; STRIDED_B: innermost stride 0, one load per vector
 * step. */
enum { CG_FULL, CG_SCALAR, CG_STRIDED, CG_STRIDED_V, CG_STRIDED_B };

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
    bool tail;        /* flat, vec > 1 and size % vec != 0: a scalar tail after the loop */
    bool idx64;       /* 64-bit index arithmetic */
} cg_kernel_t;

/* ---- collect.c: what every kernel description starts from (internal to codegen) ---- */
/* The nodes computing outs in g, operands first (leaves included), in graph order: an arena
 * array of *n_nodes entries; NULL on out of memory. */
uint32_t *cg__collect(const ir_graph_t *g, base_arena_t *ar, const uint32_t *outs,
                      uint32_t n_outs, uint32_t *n_nodes);
/* Whether node n is read through strides: an INPUT or a generator leaf (not a CONST). The
 * step graphs of reductions and scans hold no generators: there it means INPUT. */
bool cg__strided(const ir_node_t *n);
/* Element strides of strided node n read over a space of rank nd and shape `shape`
 * (trailing-aligned): an INPUT's own, a generator's contiguous in its own shape; axes that n
 * broadcasts along read stride 0. */
void cg__leaf_strides(const ir_graph_t *g, const ir_node_t *n, int nd, const int64_t *shape,
                      int64_t *out);
/* Collapses the iteration space of shape x over kernel nodes `nodes`: extent-1 axes dropped
 * (but those in `pinned`, and none where the space is empty), then adjacent axes merged where
 * both are of one class (in *classes or both not) and every strided node's strides allow.
 * Writes the collapsed extents to shape and each strided node's strides in that space to
 * strides[j] (nodes parallel; other rows only shifted); returns the collapsed rank and sets
 * *classes to the classes of the collapsed axes. Merging never crosses a class boundary:
 * reductions pass their reduced axes, scans their scanned axis (pinned too). */
int cg__collapse(const ir_graph_t *g, const uint32_t *nodes, uint32_t n_nodes,
                 const ir_node_t *x, uint32_t pinned, uint32_t *classes, int64_t *shape,
                 int64_t (*strides)[LOOM_MAX_DIMS]);
/* 32-bit index arithmetic needs headroom: a thread's index runs up to the size plus one grid
 * step (grid × block × vec) before the loop test, and must not overflow on the way. Spaces
 * whose size or any operand's reach exceeds this take 64-bit indices. */
#define CG__IDX32_MAX (INT32_MAX - (INT64_C(1) << 24))
/* The furthest element offset from the first that strides reach over shape (rank nd). */
int64_t cg__reach(const int64_t *strides, const int64_t *shape, int nd);

/* ---- plan.c: builds a kernel description for outputs of one shape ----
 * nodes/outs are arena arrays; input_aligned(i) says whether input i's device address is
 * aligned to `bytes` (for the vector variant). */
bool cg_kernel_init(cg_kernel_t *k, const ir_graph_t *g, base_arena_t *ar, const uint32_t *outs,
                    uint32_t n_outs, const uint64_t *input_addr);

/* ---- elementwise.c ---- */
/* The structural key: ops, dtypes, layout classes, rank, vec, tail, index width. Not values,
 * not extents, not addresses. Computed without generating source. */
base_hash128_t cg_kernel_key(const cg_kernel_t *k);
/* The kernel's CUDA C source and its extern "C" name (name: 40 bytes). */
void cg_kernel_source(const cg_kernel_t *k, base_str_t *out, char *name);
/* Number of 64-bit parameter words the kernel takes. */
uint32_t cg_kernel_n_params(const cg_kernel_t *k);
/* Magic number m of the divisor d (1 <= d < 2^31) such that, for 0 <= r < 2^31,
 * r / d == __umulhi(r, m) >> (ceil(log2 d) - 1) when d >= 2 (0 for d == 1, which the kernel
 * handles by selecting r). Packed into the high word of a strided kernel's extent param. */
uint32_t cg_fastdiv_magic(uint32_t d);
/* Fills the parameter words: extents, input and output addresses, strides, scalars. */
void cg_kernel_params(const cg_kernel_t *k, const uint64_t *input_addr, const uint64_t *out_addr,
                      uint64_t *words);
/* Threads per block of every elementwise kernel. */
#define CG_BLOCK 256
/* Launch shape: a thread per step of the work for flat kernels; at most one resident wave
 * (sm_count × blocks_per_sm; 0 = unknown, then 8 per multiprocessor) for strided ones, whose
 * loops are grid-stride; 32-bit kernels keep size + grid × block × vec below 2^31. */
void cg_kernel_launch_shape(const cg_kernel_t *k, int sm_count, int blocks_per_sm, uint32_t *grid,
                            uint32_t *block);

/* ---- reduce_plan.c, reduce_emit.c: a reduction step ----
 * The scheduler (engine/schedule.c) hands the code generator a self-contained step graph g:
 *  - leaves are INPUT (any element strides and offset; input i's device address is
 *    input_addr[i]) and CONST only (the scheduler materialises generators first);
 *  - REDUCE nodes all have keepdims = 1, the same operand shape X and the same axis set A;
 *    a REDUCE's operand may depend on other REDUCE nodes of the step (staged: softmax's sum
 *    reads max broadcast back into X), but only when cg_reduce_can_stage said yes, or when
 *    cg_reduce_can_online says yes and the dependent reductions are online sums
 *    (cg_reduce_online_max): a split softmax, two kernels;
 *  - ELEM nodes have shapes that broadcast (NumPy, trailing-aligned) to X;
 *  - outs are nodes of shape X (written over the whole space, e.g. softmax's result) or of
 *    shape Y = X with the A axes at extent 1 (reduction results and their epilogues).
 * Outputs are written C-contiguous in their own shape. The step may need several launches
 * (split reductions: partial results in scratch, then a combining pass); the scheduler runs
 * kernels 0..n_kernels-1 in order on one stream, with `scratch` bytes of device memory. */
typedef struct cg_reduce cg_reduce_t;
/* Whether a step over operand shape X reducing axes A can hold reductions that depend on
 * other reductions of the same step (true for the one-CTA-per-row and one-thread-per-column
 * strategies; false when the strategy splits one reduction across blocks). */
bool cg_reduce_can_stage(int ndim, const int64_t *x_shape, uint32_t axes, int sm_count);
/* Whether such a step, split across blocks over rows, can still hold online sums: for a max
 * m = max(a) of the step, the sum of exp(a - m) (kernel 0 keeps per chunk the running max
 * and the sum rescaled to it; kernel 1 combines them and runs the final pass; with X outputs
 * both are tasks of one kernel, the output pass re-reading chunks while they are in L2). */
bool cg_reduce_can_online(int ndim, const int64_t *x_shape, uint32_t axes, int sm_count);
/* If node `sum` of g is SUM(EXP(SUBTRACT(a, m))) with m = MAX(a) (keepdims, the same axes)
 * and a of a float dtype (every node of it in that dtype), the node m; else UINT32_MAX.
 * Holds in the eval graph and in the step graph the scheduler builds from it alike. */
uint32_t cg_reduce_online_max(const ir_graph_t *g, uint32_t sum);
/* Describes the step (arena memory for everything it points to); false on out of memory. */
cg_reduce_t *cg_reduce_init(const ir_graph_t *g, base_arena_t *ar, const uint32_t *outs,
                            uint32_t n_outs, const uint64_t *input_addr, int sm_count);
/* A heap copy (through al) that outlives the arena, for the plan cache; and its release. */
cg_reduce_t *cg_reduce_keep(const cg_reduce_t *r, base_alloc_t *al);
void cg_reduce_free(cg_reduce_t *r, base_alloc_t *al);
/* The step graph a kept description reads its scalars from (set per eval by the scheduler,
 * which refreshes the CONST values of its own copy of the step graph). */
void cg_reduce_set_graph(cg_reduce_t *r, const ir_graph_t *g);
uint32_t cg_reduce_n_kernels(const cg_reduce_t *r);
size_t cg_reduce_scratch_bytes(const cg_reduce_t *r);
/* Whether bytes of the scratch from offset must be zero before the step's first kernel (the
 * counters of a one-kernel online split: its blocks take tickets and wait on chunk counts). */
bool cg_reduce_zeroed(const cg_reduce_t *r, size_t *offset, size_t *bytes);
base_hash128_t cg_reduce_key(const cg_reduce_t *r, uint32_t i);
void cg_reduce_source(const cg_reduce_t *r, uint32_t i, base_str_t *out, char *name);
uint32_t cg_reduce_n_params(const cg_reduce_t *r, uint32_t i);
/* Whether the step's kernel can take its outputs in either order (one kernel, no split, a
 * block per output block): the `reverse` of cg_reduce_params, the same results in both. */
bool cg_reduce_reversible(const cg_reduce_t *r);
void cg_reduce_params(const cg_reduce_t *r, uint32_t i, const uint64_t *input_addr,
                      const uint64_t *out_addr, uint64_t scratch, bool reverse, uint64_t *words);
/* grid/block are 3-D; smem: dynamic shared memory bytes. blocks_per_sm as for elementwise. */
void cg_reduce_launch_shape(const cg_reduce_t *r, uint32_t i, int sm_count, int blocks_per_sm,
                            uint32_t grid[3], uint32_t block[3], uint32_t *smem);
/* Threads per block kernel i is launched with (for the occupancy query before launching). */
uint32_t cg_reduce_block_threads(const cg_reduce_t *r, uint32_t i);

/* ---- scan.c: a scan step (cumsum, cumprod) or a compaction (COMPRESS) ----
 * Step graph: INPUT/CONST leaves, ELEM prologue nodes of shape X (or broadcasting to it), one
 * SCAN node over X along p.axis, or one COMPRESS node of a 1-D mask and values X; outs = {that
 * node}, written C-contiguous. The same functions as for reductions, with the same meanings. */
typedef struct cg_scan cg_scan_t;
cg_scan_t *cg_scan_init(const ir_graph_t *g, base_arena_t *ar, uint32_t out,
                        const uint64_t *input_addr, int sm_count, int l2_bytes);
cg_scan_t *cg_scan_keep(const cg_scan_t *s, base_alloc_t *al);
void cg_scan_free(cg_scan_t *s, base_alloc_t *al);
void cg_scan_set_graph(cg_scan_t *s, const ir_graph_t *g);
base_hash128_t cg_scan_key(const cg_scan_t *s);
void cg_scan_source(const cg_scan_t *s, base_str_t *out, char *name);
uint32_t cg_scan_n_params(const cg_scan_t *s);
/* Device scratch the kernel needs (0: none), of which the first *zeroed bytes must be zero
 * at launch. */
size_t cg_scan_scratch_bytes(const cg_scan_t *s, size_t *zeroed);
void cg_scan_params(const cg_scan_t *s, const uint64_t *input_addr, uint64_t out_addr,
                    uint64_t scratch, uint64_t *words);
/* The kernel's grid and block (every form's grid follows from its work: a block a tile, or a
 * group of lines). */
void cg_scan_launch_shape(const cg_scan_t *s, uint32_t grid[3], uint32_t block[3], uint32_t *smem);

/* ---- gemm.c: the kernels of matrix-product steps ----
 * The gather (a strided view, optionally times a CONST's bits, into C order) and the generic
 * tiled GEMM with its epilogue nodes. Signatures are zeroed before they are filled: they are
 * hashed whole into the key. Parameters are one struct, laid out as the kernel text declares. */
#define CG_GEMM_MAX_EPILOGUE 16 /* epilogue nodes a product step can absorb */
#define CG_GEMM_MAX_IN       4  /* epilogue operands read from memory */
#define CG_GEMM_MAX_CONST    16 /* epilogue constants */
typedef struct cg_gather_params {
    int64_t size, ndim;
    int64_t shape[LOOM_MAX_DIMS], strides[LOOM_MAX_DIMS];
    uint64_t src, dst, scale;
} cg_gather_params_t;

typedef struct cg_gather_sig {
    uint32_t kind; /* 'g' */
    uint32_t dtype;
    uint32_t scaled;
} cg_gather_sig_t;
typedef struct cg_gemm_params {
    int64_t m, n, k, sam, sak, sbk, sbn, scm, scn;
    int64_t nb, nbt;
    int64_t be[2 * LOOM_MAX_DIMS], ba[2 * LOOM_MAX_DIMS], bb[2 * LOOM_MAX_DIMS],
        bc[2 * LOOM_MAX_DIMS];
    int64_t nk, nkt;
    int64_t ke[LOOM_MAX_DIMS], ka[LOOM_MAX_DIMS], kb[LOOM_MAX_DIMS];
    uint64_t a, b, c;
    uint64_t ein[CG_GEMM_MAX_IN];
    int64_t estr[CG_GEMM_MAX_IN];
    uint64_t cst[CG_GEMM_MAX_CONST];
} cg_gemm_params_t;

/* The kernel's structure: dtype, and the epilogue's nodes (op and each operand's kind: the
 * product, an earlier epilogue node, a constant slot or an input slot). */
typedef struct cg_gemm_sig {
    uint32_t kind; /* 'm' */
    uint32_t dtype;
    uint32_t n_epi;
    struct {
        uint32_t op, dtype;
        uint32_t src[2]; /* 0: the product; 1 + j: epilogue node j; 0x100 + c: constant c;
                          * 0x200 + i: input i */
    } epi[CG_GEMM_MAX_EPILOGUE];
} cg_gemm_sig_t;
base_hash128_t cg_gather_key(const cg_gather_sig_t *s);
/* Source and extern "C" name (name: 48 bytes) of the kernel of s. */
void cg_gather_source(const cg_gather_sig_t *s, base_str_t *out, char *name);
/* A grid-stride launch over size elements (the resident-wave cap of cg__grid_stride_blocks). */
void cg_gather_launch_shape(int64_t size, int sm_count, uint32_t *grid, uint32_t *block);
base_hash128_t cg_gemm_key(const cg_gemm_sig_t *s);
void cg_gemm_source(const cg_gemm_sig_t *s, base_str_t *out, char *name);
/* 16 x 16 threads per 16 x 16 tile of the result; the kernel loops over tiles and batches past
 * the grid's 65535 limit per axis. */
void cg_gemm_launch_shape(const cg_gemm_params_t *p, uint32_t grid[3], uint32_t block[3]);

/* ---- sort.c: sorts, searchsorted, flatnonzero and scatters (fixed kernels) ----
 * A step of one SORT, ARGSORT, SEARCHSORTED, NONZERO or SCATTER node whose operands are
 * C-contiguous buffers. A sort runs PREP once (the keys, their payloads where needed, and the
 * digit counts of every pass), PAYS for a float sort (the payloads, only where the keys lose
 * bits: see cg_sort_t.keys_only), then per pass of 8 bits SCATTER (one decoupled look-back
 * pass over tiles, ping-ponging two key and two payload arrays; SCATTER_SEG takes the digit
 * of the line number for the passes after the key's); the last pass writes the result. A
 * scatter runs PREP (targets and positions), HIST (the digit counts), the passes, and FINAL
 * (the combination of each run of one target). Scatters that add, or take the minimum or
 * maximum, into 32- and 64-bit integers (exact in any order) are one ATOMIC kernel instead.
 * Searchsorted is one SEARCH kernel; flatnonzero NZ_COUNT, SCAN (of nb counts) and NZ_WRITE
 * into a result filled with -1 first. A select (order statistics) is one SELECT kernel. The
 * engine (engine/sort.c) lays out the scratch and the parameter words, documented at each
 * kernel's text. */
enum {
    CG_SK_PREP,
    CG_SK_HIST,
    CG_SK_SCATTER,
    CG_SK_FINAL,
    CG_SK_SCATTER_SEG,
    CG_SK_SEARCH,
    CG_SK_NZ_COUNT,
    CG_SK_SCAN,
    CG_SK_NZ_WRITE,
    CG_SK_ATOMIC,
    CG_SK_CORR,
    CG_SK_PAYS,
    CG_SK_SELECT,
    CG_SK_ROWS
};
/* SELECT's kernel: a block a line, at most this many threads (256 for lines up to 4096). */
#define CG_SELECT_THREADS 512
/* CORRELATE's kernel: threads of a block, outputs a thread computes, and so a block's tile. */
#define CG_CORR_THREADS 256
#define CG_CORR_PER 9
#define CG_CORR_TILE (CG_CORR_THREADS * CG_CORR_PER)
#define CG_SORT_THREADS 256 /* a SCATTER block: 8 warps, one thread a digit */
#define CG_SORT_FLAGS   3   /* u64 words after the counts: what the keys of a float sort lose */
typedef struct cg_sort {
    int op, mode;           /* the IR op; p.k (searchsorted's side, a scatter's combination) */
    loom_dtype_t dtype;     /* of the sorted, searched or scattered elements */
    int64_t n;              /* elements sorted (scatters: indices; flatnonzero: the mask's) */
    int64_t len, inner;     /* sorts: the axis's extent and the elements after it in C order;
                             * scatters: targets; searchsorted: the sorted array's length;
                             * flatnonzero: the result's extent */
    int kbytes, pbytes;     /* key and payload widths (payloads of sort: the element's) */
    bool seg;               /* line numbers from payload / len, sorted by the last passes */
    bool atomic;            /* a scatter by atomics (integers: any order gives the same) */
    bool one_value;         /* a scatter's values: one element (stride 0) for every index */
    int key_passes, seg_passes;
    bool keys_only;         /* a sort whose keys hold the elements: payloads only where they
                             * do not (both zeros, or NaNs of two bit patterns, in a float sort) */
    bool rows;              /* lines of at most a tile, contiguous: a block sorts each in shared
                             * memory (CG_SK_ROWS), every pass there */
    int ipt;                /* keys a SCATTER thread ranks; its tile: CG_SORT_THREADS * ipt */
    int64_t tile;
    bool wide;              /* 64-bit look-back words (n of 2^30 or more), else 32-bit */
    int nk, kinds[4];       /* the kernels the step compiles, in order, and their kinds */
    int64_t nb, per;        /* blocks over contiguous ranges of per elements */
    int64_t taps, offset;   /* correlate: v's length, and the a index of output 0's tap 0 */
    bool flip;              /* correlate: the taps reversed (convolve) */
    int m;                  /* select: the ranks (1..8), and the ranks */
    int64_t ranks[LOOM_MAX_DIMS];
} cg_sort_t;
/* Describes the step of node `node` of g (its operands' shapes and dtypes). smem_per_sm:
 * shared memory bytes of the device's multiprocessor (0: not known, taken as an H200's); it
 * sets the tile of 8-byte keys and payloads. smem_block: the bytes a block may opt in to (0:
 * not known, taken as enough); rows sorted in shared memory need their tile's. */
void cg_sort_init(cg_sort_t *s, const ir_graph_t *g, uint32_t node, int sm_count, int smem_per_sm,
                  int smem_block);
/* The rows kernel's static shared memory: the per-warp digit counts and the warps' sums. */
#define CG_SORT_ROWS_STATIC (8 * 256 * 4 + 8 * 4)
/* Shared memory a block of 32 keys a thread takes: the 64 KiB tile and the static counts. */
#define CG_SORT_BIG_TILE_SMEM (76 * 1024)
/* Kernels the step compiles (indices 0 .. n-1, each a kind above); the index of a kind
 * (-1: the step has none). */
uint32_t cg_sort_n_kernels(const cg_sort_t *s);
int cg_sort_index(const cg_sort_t *s, int kind);
/* Dynamic shared memory bytes of a SCATTER pass's block (its tile's keys and payloads). */
uint32_t cg_sort_scatter_smem(const cg_sort_t *s);
base_hash128_t cg_sort_key(const cg_sort_t *s, uint32_t i);
void cg_sort_source(const cg_sort_t *s, uint32_t i, base_str_t *out, char *name);

#endif
