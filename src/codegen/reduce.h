/* reduce.h — a reduction step's description (struct cg_reduce), private to codegen:
 * reduce_plan.c chooses the strategy and fills it in, reduce_emit.c turns it into kernels
 * (CUDA C text, keys, parameters, launch shapes); the queries both ask of it live here.
 *
 * One template covers every strategy: a group of G threads computes one output (G = 1: a thread per
 * output, for columns; G <= 32: a warp, or a part of one, per short row; G = the block: a CTA per
 * long row), its threads striding over the reduced elements and combining with shuffles (and shared
 * memory across warps). Staged steps run their passes in sequence per output, each pass's results
 * broadcast to the whole group; short rows keep the values later passes re-read in registers. Few
 * outputs with long reductions split: kernel 0 writes partial results per chunk to scratch, kernel
 * 1 combines them in a fixed order and runs the epilogue. A split softmax (a max, then the sum of
 * exp(a - max) over the same operand a) runs online: kernel 0 keeps per chunk the running max m and
 * the sum s of exp(a - m), rescaling s whenever m grows; kernel 1 combines the chunks' (m, s) pairs
 * in a fixed order (every block of a row the same, so the same bits) and runs the final pass over
 * its chunk. With an X-shaped result both are tasks of one kernel (K_FUSED): resident blocks take
 * tickets; where a row has at most two chunks per multiprocessor, a ticket is one chunk, kept in
 * shared memory by its chunk task until the block's next ticket is done and the row's pair is
 * known, then written from there (every element read once); for longer rows, chunk tasks and, a
 * fixed lag later, output tasks re-reading the chunk while it is still in L2. The row's last chunk
 * task combines its pairs once. Chunk boundaries depend only on the shape and the multiprocessor
 * count, and partials combine in chunk order, so results are the same bits on every run.
 * Names come from node positions; extents, strides, addresses and scalars are parameters. */
#ifndef LOOM_CG_REDUCE_H
#define LOOM_CG_REDUCE_H

#include "emit.h"

enum { SP_Y, SP_X };                   /* per output (row level) or per element */
enum { K_MAIN, K_PARTIAL, K_COMBINE, K_FINAL, K_FUSED }; /* what a generated kernel does */

/* Strategy thresholds (elements of the reduced extent, counts of outputs). */
#define WARP_ROW_MAX    1024  /* rows up to this: a warp per row (less under 32 vector steps) */
#define ITEMS_ROW_MAX   16384 /* staged rows up to this keep re-read values in registers */
#define ITEMS_REGS      32    /* registers (4-byte) the cached values may take per thread */
#define SPLIT_ROW_MIN   32768 /* row splits need at least this long a reduction ... */
#define SPLIT_ROW_CHUNK 8192  /* ... and give every chunk at least this many elements */
#define SPLIT_COL_MIN   256   /* column splits: reduced extent at least this */
#define SPLIT_COL_CHUNK 64    /* ... and chunks of at least this many reduced elements */
#define MAX_CHUNKS      1024
#define SPLIT_ONLINE_BLOCKS 16 /* online splits: blocks per multiprocessor (each kernel) */
#define ONLINE_BLOCK        256 /* online splits: threads per block */
/* Fused online splits (H200, 64 x 1M float32 softmax, bench_reduce: 8/8/3 193-196 us; 4 steps
 * 220-226, 16 steps 208-215; lag 2 219, lag 4-5 215-218; 4 blocks 224): */
#define FUSED_STEPS  8 /* vector steps per thread in a chunk (32 KB of float32 per task) */
#define FUSED_BLOCKS 8 /* blocks per multiprocessor looping over tickets (occupancy: 6) */
#define FUSED_LAG    3 /* output tasks trail their row's last chunk task by this many tasks
                        * per multiprocessor (beyond nch), about half the resident blocks */
/* Fused online splits of at most 2 chunks per multiprocessor per row stash: a task keeps its
 * chunk's vectors in shared memory until its row's pair is known, so every element is read
 * from DRAM once (H200, 64 x 1M float32 softmax, bench_reduce: 182.7-185.3 us against
 * 193-194 re-reading from L2; one slot per block 188-189; cp.async copies 204; at most 4 or 5
 * blocks per multiprocessor 207-210 / 190-193; evict-normal chunk loads 184-185, within noise
 * of evict-first). */
#define STASH_STEPS  4     /* vector steps per thread in a chunk (16 KB of float32 per task) */
#define STASH_BYTES  32768 /* shared memory per block: two slots of a chunk (static, <= 48 KB) */
#define STASH_BLOCKS 6     /* blocks per multiprocessor: what the shared memory allows on sm_90 */
#define CTR_WORDS    32    /* fused counters 128 bytes apart (one line each; stash one slot: 199
                            * us with them adjacent, 189.5 padded; no change re-reading) */
#define MAX_GRID        (INT64_C(1) << 30) /* blocks of a launch; the kernels loop over more */
#define NO_NODE         UINT32_MAX
#define COMBINE_BLOCK   256

struct cg_reduce {
    const ir_graph_t *g;
    uint32_t *nodes; /* kernel nodes, operands first */
    uint32_t n_nodes;
    uint32_t *outs;
    uint32_t n_outs;
    uint8_t *space;  /* per kernel node: SP_X or SP_Y */
    uint8_t *stage;  /* per kernel node: 1 + the last pass whose results it needs (0: none) */
    uint8_t *cached; /* per kernel node: 0, or 1 + the pass storing it in registers */
    uint8_t *need;   /* [pass][node]: 0 unused, 1 computed, 2 read from registers */
    uint8_t *xout;   /* per out: written over X (1) or once per output (0) */
    int64_t (*strides)[LOOM_MAX_DIMS]; /* per kernel node (INPUT): collapsed strides */
    int nd; /* collapsed axes of X, with their extents and contiguous strides */
    int64_t shape[LOOM_MAX_DIMS], xstr[LOOM_MAX_DIMS];
    uint32_t red; /* collapsed axes reduced */
    int64_t n_out, count;
    int n_stages, n_passes;
    int group, block, vec, items;
    int64_t chunks, clen; /* split: chunks per output (1: no split), vec steps per chunk */
    int group2;           /* split: threads per output of the combining kernel */
    bool online;          /* split softmax: online (max, sum of exp) pairs; kernel 1 K_FINAL */
    bool fused;           /* online with X outputs: one kernel of tickets (K_FUSED) */
    int lag;              /* fused: the output tasks' lag behind the chunk tasks, in tasks */
    bool stash;           /* fused: one ticket per chunk, its vectors kept in shared memory */
    bool lean;            /* a block of 512 per row keeping only its 4-byte inputs in registers */
    bool stream;          /* lean, no transcendental op: evict-first loads and stores */
    bool reread;          /* stream, every input read by several passes: keeps nothing in
                           * registers, re-reads the row from L2 */
    bool idx64;
};

/* ---- Queries on a description, for planning and emission alike ---- */

/* The IR node at kernel position j; the kernel position of IR node ir. */
static inline const ir_node_t *node(const cg_reduce_t *r, uint32_t j) {
    return &r->g->nodes[r->nodes[j]];
}

static inline uint32_t pos(const cg_reduce_t *r, uint32_t ir) {
    for (uint32_t j = 0; j < r->n_nodes; j++)
        if (r->nodes[j] == ir) return j;
    return 0;
}

static inline bool is_reduce(const ir_node_t *n) { return ir_ops[n->op].kind == IR_KIND_REDUCE; }
static inline bool is_arg(const ir_node_t *n) {
    return n->op == IR_OP_ARGMAX || n->op == IR_OP_ARGMIN;
}

/* The dtype a reduction accumulates in (the reference's): float32 for 16-bit float sums
 * and products, bool for any/all, else the operand's. */
static inline loom_dtype_t acc_dtype(const ir_graph_t *g, const ir_node_t *n) {
    loom_dtype_t d = (loom_dtype_t)g->nodes[n->src[0]].dtype;
    if ((n->op == IR_OP_SUM || n->op == IR_OP_PROD) &&
        (d == LOOM_DTYPE_F16 || d == LOOM_DTYPE_BF16))
        return LOOM_DTYPE_F32;
    if (n->op == IR_OP_ANY || n->op == IR_OP_ALL) return LOOM_DTYPE_BOOL;
    return d;
}

/* Online steps: the kernel position of the MAX partnering online SUM j, or NO_NODE. */
static inline uint32_t online_max(const cg_reduce_t *r, uint32_t j) {
    if (!r->online || !is_reduce(node(r, j)) || r->stage[j] != 2) return NO_NODE;
    uint32_t m = cg_reduce_online_max(r->g, r->nodes[j]);
    return m == NO_NODE ? NO_NODE : pos(r, m);
}

/* Online steps: the kernel position of the online SUM partnering MAX k, or NO_NODE. */
static inline uint32_t online_sum(const cg_reduce_t *r, uint32_t k) {
    if (!r->online || node(r, k)->op != IR_OP_MAX) return NO_NODE;
    for (uint32_t j = k + 1; j < r->n_nodes; j++)
        if (online_max(r, j) == k) return j;
    return NO_NODE;
}

/* The pass in which REDUCE node j is finished: its stage's, but online sums finish with
 * their max in pass 0 (kernel 0 accumulates both). */
static inline int fin(const cg_reduce_t *r, uint32_t j) {
    return online_max(r, j) != NO_NODE ? 0 : r->stage[j] - 1;
}

/* The pass writing X output i: its stage's, but an online step writes every output that
 * needs a reduction in its final pass (kernel 1). */
static inline int xpass(const cg_reduce_t *r, uint32_t i) {
    int st = r->stage[pos(r, r->outs[i])];
    return r->online && st > 0 ? r->n_passes - 1 : st;
}

/* Online steps: whether the final pass writes X outputs (then it runs over every chunk). */
static inline bool online_xouts(const cg_reduce_t *r) {
    for (uint32_t i = 0; i < r->n_outs; i++)
        if (r->online && r->xout[i] && xpass(r, i) == r->n_passes - 1) return true;
    return false;
}

/* Stashing fused steps: whether INPUT j is read in vectors by both the chunk pass and the
 * output pass (the latter reads the chunk pass's copy in shared memory). */
static inline bool stashed(const cg_reduce_t *r, uint32_t j) {
    const uint8_t *first = r->need, *last = r->need + (size_t)(r->n_passes - 1) * r->n_nodes;
    return r->vec > 1 && r->n_passes >= 2 && node(r, j)->op == IR_OP_INPUT && r->space[j] == SP_X &&
           first[j] == 1 && last[j] == 1;
}

#endif
