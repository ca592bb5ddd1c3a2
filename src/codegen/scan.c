/* scan.c — CUDA C for a scan step (cumsum, cumprod) in the result dtype. Six forms, by the
 * line length and whether the scanned axis is innermost:
 *
 *   LINES  short lines: one thread per line, in NumPy's sequential order (y0 = x0,
 *          yi = y(i-1) op xi). Threads take consecutive lines, so reads along an outer axis
 *          are coalesced.
 *   TILE   short innermost lines: a warp per 32 lines through a shared-memory tile, each lane
 *          still scanning its own line in order.
 *   LB     innermost lines of LB_MIN elements and more: tiles of LB_BLOCK x items elements,
 *          a block's each, in block order (blocks start in index order, as CUB's single-pass
 *          scan also relies on, so a tile waits only on running ones). A thread folds its
 *          items in order, the block combines the threads' totals (a fixed shuffle scan
 *          per warp, the warps' totals folded in order) and a tile gets its line prefix by
 *          decoupled look-back over the earlier tiles' published aggregates and inclusive
 *          prefixes, the whole block reading LB_BLOCK of them at once. The look-back folds
 *          from the nearest inclusive prefix forward, so every tile's prefix is the left
 *          fold of the earlier tiles' aggregates, whatever the timing: results are
 *          deterministic.
 *   LBP    LB's lines whose inputs lie along the line with unit stride: tiles (of LBP_ITEMS
 *          times LB's items a thread when the line is longer than LB's tile), a block's each
 *          in block order, copied into shared memory (cp.async) and scanned from there, each
 *          thread's items read with 16-byte reads; the look-back is LB's, by the last warp
 *          alone (32 earlier tiles a step) while the others wait. Larger tiles mean fewer
 *          look-backs, and a row of one tile none (deterministic, but with other brackets,
 *          so other bits, than LB's tiles of the same line).
 *   COLS   lines along an outer axis of at least COLS_MIN elements, the innermost extent 32
 *          or more: a block takes 32 adjacent lines (lanes) x COLS_G groups of items
 *          consecutive elements; the groups' totals fold in order in shared memory (float32
 *          products: a scan in four shuffle steps), and the block walks its lines tile by
 *          tile with a carry.
 *   SEL    COMPRESS, a compaction in one pass (CUB's select): blocks take tiles of SEL_BLOCK x
 *          items elements by ticket, compute the mask and the values (the prologue), count
 *          the kept ones by warp ballots, get the count before the tile by decoupled
 *          look-back (integer sums: any order gives the same), and store the kept values
 *          from registers, each warp's round to consecutive places. The last tile writes the
 *          total after the node's n elements.
 *   SELP   SEL over one axis that every input reads with unit stride: tiles of twice the items,
 *          a block each in block order, copied into shared memory (cp.async, as LBP) and read
 *          from there, so that registers do not bound the tiles in flight. The mask's inputs
 *          come first, in their own copy group, so that the count and the look-back overlap
 *          the other inputs' copies; each block prefetches into L2 the tile that starts
 *          SELP_L2_PART's share of the L2 later.
 *
 * LB and COLS reorder the operations, so float products other than float32's and 2-byte float
 * sums keep the in-order forms (cg_scan_init says why). Other sums, integer products and
 * float32 products (as lm_mx pairs, emit_mx) use them: y = ((prefix op thread prefix) op item
 * scan), with fixed brackets (deterministic, but not NumPy's sequential rounding; docs/guide.md
 * says how far float results move). A float32 product's results in LBP and COLS instead run
 * from (prefix op thread prefix) one element a step, so a tile's last result is not exactly
 * the next one's prefix; there the running mantissa is renormalized every few elements and
 * the look-back's fold every window, not every step (emit_mx: the same bits). Its LB tiles
 * take 4 items a thread (the 24-byte accumulator's shared memory). The elementwise prologue is
 * computed per element. Names come from node positions; extents, strides, addresses and scalars are
 * parameters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"

#define SCAN_BLOCK   256
#define TILE_BLOCK   128 /* 4 warps of 32 lines each */
#define TILE_MIN_LEN 16  /* innermost lines from this long go through the tile */
#define LB_BLOCK     256
#define LB_MIN       512 /* innermost lines from this long: decoupled look-back */
#define LB_WIN       512 /* earlier tiles' values a look-back holds before it starts over */
#define LB_RESIDENT  5   /* LB: blocks a multiprocessor holds (caps the registers a thread) */
#define COLS_G       16  /* COLS: groups (warps) per block */
#define COLS_MIN     64  /* outer-axis lines from this long: COLS */
_Static_assert(COLS_G == 16, "float32 products' column scan: two lines a warp, a lane a group");

#define SEL_BLOCK    256
#define SEL_RESIDENT 4 /* SEL: blocks a multiprocessor holds (caps the registers a thread) */
#define SEL_AHEAD    4 /* SEL: a block prefetches the tile this many waves of SMs on into L2 */

#define SELP_SMEM    (40 * 1024)  /* SELP: a tile's staged bytes, at most */
#define SELP_SM_SMEM (220 * 1024) /* SELP: a multiprocessor's shared memory, what blocks take */
#define SELP_L2_PART 6 /* SELP: the tiles a block prefetches ahead fill this part of L2, 1/N */

#define LBP_SMEM  (46 * 1024) /* LBP: shared memory a block may take (static, under 48 KiB) */
#define LBP_ITEMS    2 /* LBP: LB's items a thread times this, in lines longer than LB's tile */
#define LBP_RESIDENT 5 /* LBP: blocks a multiprocessor holds (caps the registers a thread) */
#define LBP_PF_TILES 32 /* LBP: lines of this many tiles and more prefetch a tile ahead */

enum { M_LINES, M_TILE, M_LB, M_COLS, M_LBP, M_SEL, M_SELP };

struct cg_scan {
    const ir_graph_t *g;
    uint32_t *nodes; /* kernel nodes, operands first; the SCAN node last */
    uint32_t n_nodes;
    int64_t (*strides)[LOOM_MAX_DIMS]; /* per kernel node (INPUT): collapsed strides */
    int nd, axis;                      /* collapsed axes and the scanned one */
    int64_t shape[LOOM_MAX_DIMS], ostr[LOOM_MAX_DIMS];
    int64_t lines, len;
    bool idx64;
    int mode;      /* M_LINES .. M_SELP */
    int items;     /* LB, COLS: consecutive elements per thread; SEL: elements per thread */
    int64_t ahead; /* LB, LBP: how many tiles on (block order) a block prefetches; 0 none */
    uint32_t stage; /* LBP, SELP: bytes of one stage (every input's part of a tile) */
    uint32_t res;   /* LBP: bytes of the results' buffer (0: in place over the input's stage) */
    bool mx;        /* LB, LBP, COLS: a float32 product with an unbounded exponent (lm_mx) */
};

static const ir_node_t *node(const cg_scan_t *s, uint32_t j) { return &s->g->nodes[s->nodes[j]]; }

/* The reordered forms' accumulator: the result dtype, or for a float32 product lm_mx (a
 * mantissa, an integer exponent and the running product's largest magnitude; emit_mx). */
static const char *acc_ty(const cg_scan_t *s) {
    return s->mx ? "lm_mx" : ir_dtypes[node(s, s->n_nodes - 1)->dtype].ctype;
}
static const char *acc_sfx(const cg_scan_t *s) {
    return s->mx ? "mx" : ir_dtypes[node(s, s->n_nodes - 1)->dtype].sfx;
}
static size_t acc_size(const cg_scan_t *s) {
    return s->mx ? 24 : ir_dtypes[node(s, s->n_nodes - 1)->dtype].size;
}
/* Earlier tiles' values a look-back holds (lm_mx's 24 bytes: half, so that LBP's stage and
 * window stay in 48 KiB). */
static int lb_win(const cg_scan_t *s) { return s->mx ? LB_WIN / 2 : LB_WIN; }
/* The result of an accumulator's value: lm_mx_val's rounding, or the value itself. */
static const char *acc_out(const cg_scan_t *s) { return s->mx ? "lm_mx_val" : ""; }

/* LB and LBP: tiles with decoupled look-back (one scratch layout and parameter list). */
static bool lb_like(const cg_scan_t *s) { return s->mode == M_LB || s->mode == M_LBP; }

/* LB's and LBP's status of a tile, lb_words 64-bit words: for results of at most 4 bytes one,
 * the flag (1: aggregate, 2: inclusive prefix) above the value's bits, so that one load reads
 * both and no fence orders them; for wider results a 16-byte word per 8 bytes of the value,
 * each its 8 bytes and the flag, read at once. */
static bool lb_packed(const cg_scan_t *s) { return acc_size(s) <= 4; }
static int lb_words(const cg_scan_t *s) {
    return lb_packed(s) ? 1 : 2 * (int)((acc_size(s) + 7) / 8);
}

/* SEL and SELP: compactions (one scratch layout and parameter list). */
static bool sel_like(const cg_scan_t *s) { return s->mode == M_SEL || s->mode == M_SELP; }

/* Forms that take scratch (and the parameters after `out`). */
static bool has_scratch(const cg_scan_t *s) { return lb_like(s) || sel_like(s); }

/* SEL's tiles (at least one: the first writes the count of an empty mask). */
static int64_t sel_tiles(const cg_scan_t *s) {
    int64_t t = (int64_t)SEL_BLOCK * s->items;
    return s->len ? (s->len + t - 1) / t : 1;
}

static uint32_t pos(const cg_scan_t *s, uint32_t ir) {
    for (uint32_t j = 0; j < s->n_nodes; j++)
        if (s->nodes[j] == ir) return j;
    return 0;
}

/* LB's tiles: LB_BLOCK x items elements of a line. */
static int64_t lb_tiles(const cg_scan_t *s) {
    int64_t t = (int64_t)LB_BLOCK * s->items;
    return (s->len + t - 1) / t;
}

/* LBP's layout of a tile's bytes in shared memory: 16 bytes of padding after every 128, so
 * that a thread's 16-byte reads of its own consecutive items meet no bank twice in a
 * quarter warp. */
static uint32_t lbp_pad(uint32_t b) { return b + 16 * (b >> 7); }

/* LB becomes LBP (a block a tile, staged in shared memory) when every input is read along the
 * scanned axis with unit stride and the stage fits in shared memory. */
static void lbp_plan(cg_scan_t *s) {
    int items = lb_tiles(s) > 1 ? s->items * LBP_ITEMS : s->items;
    uint32_t tile = LB_BLOCK * (uint32_t)items, stage = 0, n_in = 0, es_in = 0;
    uint32_t es = (uint32_t)ir_dtypes[node(s, s->n_nodes - 1)->dtype].size;
    for (uint32_t j = 0; j < s->n_nodes; j++) {
        if (node(s, j)->op != IR_OP_INPUT) continue;
        if (s->strides[j][s->axis] != 1) return;
        es_in = (uint32_t)ir_dtypes[node(s, j)->dtype].size;
        stage += lbp_pad(tile * es_in);
        n_in++;
    }
    if (!n_in) return;
    uint32_t res = n_in == 1 && es_in == es ? 0 : lbp_pad(tile * es);
    uint32_t fold = s->mx ? (uint32_t)(lb_win(s) + 1) * 8 : 0; /* (lm_mx_fold's mk) */
    if (stage + res + (uint32_t)(lb_win(s) + 16) * (uint32_t)acc_size(s) + fold + 64 > LBP_SMEM)
        return;
    s->mode = M_LBP;
    s->items = items;
    s->stage = stage;
    s->res = res;
}

/* SEL becomes SELP (tiles staged in shared memory) when the space is one axis that every input
 * reads with unit stride and a tile's inputs fit in SELP_SMEM: twice SEL's items a thread,
 * halved (to 4 at least) until they do. */
static void selp_plan(cg_scan_t *s) {
    if (s->nd != 1) return;
    uint32_t bytes = 0; /* every input's bytes of an element */
    for (uint32_t j = 0; j < s->n_nodes; j++) {
        if (node(s, j)->op != IR_OP_INPUT) continue;
        if (s->strides[j][0] != 1) return;
        bytes += (uint32_t)ir_dtypes[node(s, j)->dtype].size;
    }
    if (!bytes) return;
    int it = 2 * s->items; /* 32 items of 4 bytes and less, 16 of 8, 8 of 16 */
    while (it > 4 && SEL_BLOCK * (uint32_t)it * bytes > SELP_SMEM) it /= 2;
    if (SEL_BLOCK * (uint32_t)it * bytes > SELP_SMEM) return;
    if (s->len / (SEL_BLOCK * it) >= INT64_C(1) << 30) return; /* a block a tile: the grid */
    s->mode = M_SELP;
    s->items = it;
    s->stage = SEL_BLOCK * (uint32_t)it * bytes;
}

/* SELP's blocks a multiprocessor, by their shared memory (the launch bound caps the
 * registers to match). */
static int selp_resident(const cg_scan_t *s) {
    int r = (int)(SELP_SM_SMEM / (s->stage + 2048)), most = 2048 / SEL_BLOCK;
    return r < 1 ? 1 : r > most ? most : r;
}

cg_scan_t *cg_scan_init(const ir_graph_t *g, base_arena_t *ar, uint32_t out,
                        const uint64_t *input_addr, int sm_count, int l2_bytes) {
    (void)input_addr;
    cg_scan_t *s = base_arena_alloc(ar, 1, sizeof *s);
    if (!s) return NULL;
    s->g = g;
    s->mx = false;
    s->nodes = cg__collect(g, ar, &out, 1, &s->n_nodes);
    if (!s->nodes) return NULL;
    s->strides = base_arena_alloc(ar, s->n_nodes, sizeof *s->strides);
    if (!s->strides) return NULL;

    /* The space: the scan's shape collapsed, the scanned axis kept (even at extent 1) and
     * never merged with another; a compaction's the mask's (1-D). */
    bool sel = g->nodes[out].op == IR_OP_COMPRESS;
    const ir_node_t *x = sel ? &g->nodes[g->nodes[out].src[0]] : &g->nodes[out];
    int64_t size = ir_node_size(x);
    uint32_t scanned = sel ? 1u : x->p.axis >= 0 && x->p.axis < x->ndim ? 1u << x->p.axis : 0;
    int nd = cg__collapse(g, s->nodes, s->n_nodes, x, scanned, &scanned, s->shape, s->strides);
    s->axis = scanned ? __builtin_ctz(scanned) : 0;
    s->nd = nd;
    int64_t st = 1;
    for (int ax = nd - 1; ax >= 0; ax--) {
        s->ostr[ax] = st;
        st *= s->shape[ax];
    }
    s->len = nd ? s->shape[s->axis] : 1;
    s->lines = s->len ? size / s->len : 0;
    bool big = ir_node_size(&g->nodes[out]) > CG__IDX32_MAX;
    for (uint32_t j = 0; j < s->n_nodes; j++)
        if (node(s, j)->op == IR_OP_INPUT && cg__reach(s->strides[j], s->shape, nd) > CG__IDX32_MAX)
            big = true;
    s->idx64 = big;
    size_t es = ir_dtypes[node(s, s->n_nodes - 1)->dtype].size;
    const int64_t sms = sm_count > 0 ? sm_count : 132; /* (an H100's, where not known) */
    if (sel) { /* 16 values a thread of 4 bytes and less, 8 of 8, 4 of 16 */
        s->mode = M_SEL;
        s->len = size;
        s->lines = 1;
        s->items = es <= 4 ? 16 : (int)(64 / es);
        s->ahead = SEL_AHEAD * sms;
        selp_plan(s);
        if (s->mode == M_SELP) /* (0: no prefetch, where the L2's size is not known) */
            s->ahead = l2_bytes > 0 ? (int64_t)l2_bytes / SELP_L2_PART / s->stage : 0;
        return s;
    }
    s->items = es >= 4 ? (int)(64 / es) : 16;
    s->ahead = 8 * sms; /* about twice the resident */
    /* Reordered forms for sums, integer products and float32 products. A float product
     * reordered in its own dtype could overflow a partial product that a zero met first in
     * order (0 * inf: NaN where NumPy has 0): float32's multiplies lm_mx pairs (emit_mx),
     * whose exponent does not overflow; float64 and complex products stay in order, as do
     * 2-byte float sums (NumPy's order stalls where a reordered one does not: results far
     * apart). */
    loom_dtype_t d = (loom_dtype_t)node(s, s->n_nodes - 1)->dtype;
    bool fl = ir_is_float(d) || ir_is_complex(d);
    bool mx = node(s, s->n_nodes - 1)->op == IR_OP_CUMPROD && d == LOOM_DTYPE_F32;
    bool any_order = mx || (node(s, s->n_nodes - 1)->op == IR_OP_CUMSUM && !(fl && es < 4)) || !fl;
    if (any_order && s->axis == nd - 1 && s->len >= LB_MIN)
        s->mode = M_LB;
    else if (s->axis == nd - 1 && s->len >= TILE_MIN_LEN && es <= 8)
        s->mode = M_TILE; /* (a 16-byte element's tile would pass 48 KiB of shared memory) */
    else if (any_order && s->axis < nd - 1 && s->len >= COLS_MIN && s->shape[nd - 1] >= 32)
        s->mode = M_COLS;
    else
        s->mode = M_LINES;
    s->mx = mx && (s->mode == M_LB || s->mode == M_COLS);
    if (s->mode == M_LB) lbp_plan(s);
    /* LBP: a block starts by prefetching into L2 the tile a multiprocessor count on, where a
     * line spans LBP_PF_TILES tiles or more (the look-back sets their pace, and the tile's
     * copy then finds its lines in L2); not in shorter lines, whose blocks keep the memory
     * busy without it (8192² cumsum rows: 195 -> 202 us with it) */
    if (s->mode == M_LBP) s->ahead = lb_tiles(s) >= LBP_PF_TILES ? sms : 0;
    if (s->mx && s->mode == M_LB) s->items = 4; /* (LB's tile of lm_mx in 48 KiB) */
    return s;
}

cg_scan_t *cg_scan_keep(const cg_scan_t *s, base_alloc_t *al) {
    cg_scan_t *k = base_malloc(al, 1, sizeof *k);
    if (!k) return NULL;
    *k = *s;
    k->nodes = base_malloc(al, s->n_nodes, sizeof *s->nodes);
    k->strides = base_malloc(al, s->n_nodes, sizeof *s->strides);
    if (!k->nodes || !k->strides) {
        cg_scan_free(k, al);
        return NULL;
    }
    memcpy(k->nodes, s->nodes, s->n_nodes * sizeof *s->nodes);
    memcpy(k->strides, s->strides, s->n_nodes * sizeof *s->strides);
    return k;
}

void cg_scan_free(cg_scan_t *s, base_alloc_t *al) {
    if (!s) return;
    base_free(al, s->nodes);
    base_free(al, s->strides);
    base_free(al, s);
}

void cg_scan_set_graph(cg_scan_t *s, const ir_graph_t *g) { s->g = g; }

base_hash128_t cg_scan_key(const cg_scan_t *s) {
    cg__key_t k;
    cg__key_init(&k, 0x6c6f735b); /* format of this generator; bump when the text changes */
    cg__key_put(&k, (uint32_t)s->nd | (uint32_t)s->axis << 8 | (uint32_t)s->idx64 << 16 |
                        (uint32_t)s->mode << 17);
    cg__key_put(&k, (uint32_t)s->items); /* (LBP's depend on the line's length) */
    cg__key_put(&k, s->n_nodes);
    for (uint32_t j = 0; j < s->n_nodes; j++) {
        const ir_node_t *n = node(s, j);
        cg__key_put(&k, n->op | (uint32_t)n->dtype << 16);
        for (int a = 0; a < ir_ops[n->op].arity; a++) cg__key_put(&k, pos(s, n->src[a]));
    }
    return cg__key_done(&k);
}

uint32_t cg_scan_n_params(const cg_scan_t *s) {
    uint32_t w = 2 + 2 * (uint32_t)s->nd;
    for (uint32_t j = 0; j < s->n_nodes; j++) {
        const ir_node_t *n = node(s, j);
        if (n->op == IR_OP_INPUT) w += 1 + (uint32_t)s->nd;
        if (n->op == IR_OP_CONST) w += 1;
    }
    return w + 1 + 2 * has_scratch(s);
}

/* LB's scratch: 16 bytes, then each tile's status (lb_packed), all zeroed. */
size_t cg_scan_scratch_bytes(const cg_scan_t *s, size_t *zeroed) {
    *zeroed = 0;
    if (sel_like(s)) /* the ticket, then a status word per tile */
        return *zeroed = 16 + (size_t)sel_tiles(s) * 8;
    if (!lb_like(s) || s->lines == 0) return 0;
    int64_t units = s->lines * lb_tiles(s);
    return *zeroed = 16 + (size_t)units * 8 * (size_t)lb_words(s);
}

void cg_scan_params(const cg_scan_t *s, const uint64_t *input_addr, uint64_t out_addr,
                    uint64_t scratch, uint64_t *w) {
    uint32_t n = 0;
    w[n++] = (uint64_t)s->lines;
    w[n++] = (uint64_t)s->len;
    for (int ax = 0; ax < s->nd; ax++) w[n++] = (uint64_t)s->shape[ax];
    for (int ax = 0; ax < s->nd; ax++) w[n++] = (uint64_t)s->ostr[ax];
    for (uint32_t j = 0; j < s->n_nodes; j++) {
        const ir_node_t *nd = node(s, j);
        if (nd->op == IR_OP_INPUT) {
            const ir_input_t *in = &s->g->inputs[nd->input];
            w[n++] =
                input_addr[nd->input] + (uint64_t)(in->offset * (int64_t)ir_dtypes[nd->dtype].size);
            for (int ax = 0; ax < s->nd; ax++) w[n++] = (uint64_t)s->strides[j][ax];
        } else if (nd->op == IR_OP_CONST) {
            w[n++] = nd->p.bits;
        }
    }
    w[n++] = out_addr;
    if (has_scratch(s)) {
        w[n++] = scratch;
        w[n++] = (uint64_t)s->ahead;
    }
}

/* Threads a block (all of them, whatever the block's shape): the launch bound's. */
static uint32_t block_threads(const cg_scan_t *s) {
    return sel_like(s)         ? SEL_BLOCK
           : lb_like(s)        ? LB_BLOCK
           : s->mode == M_COLS ? 32 * COLS_G
           : s->mode == M_TILE ? TILE_BLOCK
                               : SCAN_BLOCK;
}

void cg_scan_launch_shape(const cg_scan_t *s, uint32_t grid[3], uint32_t block[3], uint32_t *smem) {
    const int64_t cap = INT64_C(1) << 30; /* the kernels loop over further lines or tiles */
    int64_t blocks;
    block[1] = block[2] = 1;
    if (sel_like(s)) {
        blocks = sel_tiles(s);
        block[0] = SEL_BLOCK;
    } else if (lb_like(s)) {
        blocks = s->lines * lb_tiles(s);
        block[0] = LB_BLOCK;
    } else if (s->mode == M_COLS) {
        blocks = (s->lines + 31) / 32;
        block[0] = 32;
        block[1] = COLS_G;
    } else {
        int b = s->mode == M_TILE ? TILE_BLOCK : SCAN_BLOCK;
        blocks = (s->lines + b - 1) / b;
        block[0] = (uint32_t)b;
    }
    /* no lines, no launch */
    grid[0] = s->lines == 0 ? 0 : (uint32_t)(blocks < 1 ? 1 : blocks > cap ? cap : blocks);
    grid[1] = grid[2] = 1;
    *smem = 0;
}

static const char *ty(const ir_node_t *n) { return ir_dtypes[n->dtype].ctype; }
static const char *sfx(loom_dtype_t d) { return ir_dtypes[d].sfx; }

/* Coordinates of line `l` over the unscanned axes, the output's line offset ko and each
 * input's line offset k<j>. */
static void emit_offsets(const cg_scan_t *s, base_str_t *o, const char *ind, const char *l,
                         const char *p) {
    base_str_printf(o, "%sLM_I %sq = %s;\n", ind, p, l);
    for (int ax = s->nd - 1; ax >= 0; ax--) {
        if (ax == s->axis) continue;
        base_str_printf(o, "%sconst LM_I %sc%d = %sq %% e%d; %sq /= e%d;\n", ind, p, ax, p, ax, p,
                        ax);
    }
    base_str_printf(o, "%s(void)%sq;\n%sconst LM_I %sko = 0", ind, p, ind, p);
    for (int ax = 0; ax < s->nd; ax++)
        if (ax != s->axis) base_str_printf(o, " + %sc%d * os%d", p, ax, ax);
    base_str_printf(o, ";\n%s(void)%sko;\n", ind, p);
    for (uint32_t j = 0; j < s->n_nodes; j++) {
        if (node(s, j)->op != IR_OP_INPUT) continue;
        base_str_printf(o, "%sconst LM_I %sk%u = 0", ind, p, j);
        for (int ax = 0; ax < s->nd; ax++)
            if (ax != s->axis) base_str_printf(o, " + %sc%d * t%u_%d", p, ax, j, ax);
        base_str_cat(o, ";\n");
    }
}

static void emit_line_offsets(const cg_scan_t *s, base_str_t *o, const char *ind, const char *l) {
    emit_offsets(s, o, ind, l, "");
}

/* The prologue for element i of the line whose input offsets are <k><j>, ending in x (the
 * scan's operand in the result dtype); with k NULL, the inputs' values are item k of the
 * arrays lx<j>, LX apart (LBP, SELP). */
static void emit_prologue_of(const cg_scan_t *s, base_str_t *o, const char *ind, const char *k,
                             const bool *only) {
    for (uint32_t j = 0; j + 1 < s->n_nodes; j++) {
        const ir_node_t *n = node(s, j);
        if (n->op == IR_OP_CONST || (only && !only[j])) continue;
        base_str_printf(o, "%sconst %s v%u = ", ind, ty(n), j);
        if (n->op == IR_OP_INPUT && !k)
            base_str_printf(o, "lx%u[k * LX]", j); /* item k of the thread's staged items */
        else if (n->op == IR_OP_INPUT)
            base_str_printf(o, "in%u[%s%u + i * t%u_%d]", j, k, j, j, s->axis);
        else
            cg__emit_elem(o, s->g, n, pos(s, n->src[0]), pos(s, n->src[1]), pos(s, n->src[2]));
        base_str_cat(o, ";\n");
    }
}

static void emit_prologue_nodes(const cg_scan_t *s, base_str_t *o, const char *ind, const char *k) {
    emit_prologue_of(s, o, ind, k, NULL);
}

/* Node j (position) and its operands, transitively, marked by position (the caller frees);
 * NULL when out of memory. */
static bool *nodes_under(const cg_scan_t *s, uint32_t j) {
    bool *under = calloc(s->n_nodes, sizeof *under);
    if (!under) return NULL;
    under[j] = true;
    for (uint32_t q = s->n_nodes; q-- > 0;)
        if (under[q])
            for (int k = 0; k < ir_ops[node(s, q)->op].arity; k++)
                under[pos(s, node(s, q)->src[k])] = true;
    return under;
}

static void emit_prologue(const cg_scan_t *s, base_str_t *o, const char *ind, const char *k) {
    const ir_node_t *sn = node(s, s->n_nodes - 1);
    uint32_t src = pos(s, sn->src[0]);
    loom_dtype_t d = (loom_dtype_t)sn->dtype, sd = (loom_dtype_t)node(s, src)->dtype;
    emit_prologue_nodes(s, o, ind, k);
    if (s->mx && s->mode == M_LB)
        base_str_printf(o, "%sconst lm_mx x = lm_mx_of(v%u);\n", ind, src); /* (float32 in) */
    else if (s->mx)
        base_str_printf(o, "%sconst float x = v%u;\n", ind, src); /* (lm_mx_mul's, lm_mx_out's) */
    else if (sd == d)
        base_str_printf(o, "%sconst %s x = v%u;\n", ind, ty(sn), src);
    else
        base_str_printf(o, "%sconst %s x = lm_cast_%s_%s(v%u);\n", ind, ty(sn), sfx(sd), sfx(d),
                        src);
}

/* The accumulator's declaration (its start value is never read: element 0 replaces it). */
static void emit_acc(const ir_node_t *sn, base_str_t *o, const char *ind) {
    loom_dtype_t d = (loom_dtype_t)sn->dtype;
    if (ir_is_complex(d))
        base_str_printf(o, "%s%s acc = lm__mk_%s(0, 0);\n", ind, ty(sn), sfx(d));
    else
        base_str_printf(o, "%s%s acc = (%s)0;\n", ind, ty(sn), ty(sn));
}

static const char *scan_fn(const cg_scan_t *s) {
    return node(s, s->n_nodes - 1)->op == IR_OP_CUMSUM ? "add" : "multiply";
}

/* One thread per line. */
static void emit_lines(const cg_scan_t *s, base_str_t *o) {
    const ir_node_t *sn = node(s, s->n_nodes - 1);
    loom_dtype_t d = (loom_dtype_t)sn->dtype;
    base_str_cat(o, "    const LM_I step = (LM_I)gridDim.x * (LM_I)blockDim.x;\n");
    base_str_cat(o, "    for (LM_I l = (LM_I)blockIdx.x * (LM_I)blockDim.x + (LM_I)threadIdx.x; "
                    "l < lines; l += step) {\n");
    emit_line_offsets(s, o, "        ", "l");
    emit_acc(sn, o, "        ");
    base_str_cat(o, "        for (LM_I i = 0; i < len; i++) {\n");
    emit_prologue(s, o, "            ", "k");
    base_str_printf(o, "            acc = i == 0 ? x : lm_%s_%s(acc, x);\n", scan_fn(s), sfx(d));
    base_str_printf(o, "            out[ko + i * os%d] = acc;\n", s->axis);
    base_str_cat(o, "        }\n    }\n");
}

/* A warp per 32 lines, through a 32 x 33 tile per warp: for each chunk of 32 elements the
 * warp loads the chunk of every line (lane = element), each lane scans its own line's row of
 * the tile in order, and the warp stores the tile as it loaded it. */
static void emit_tiled(const cg_scan_t *s, base_str_t *o) {
    const ir_node_t *sn = node(s, s->n_nodes - 1);
    loom_dtype_t d = (loom_dtype_t)sn->dtype;
    const char *T = ty(sn);
    int warps = TILE_BLOCK / 32;
    base_str_printf(o, "    __shared__ %s tile[%d][32][33];\n", T, warps);
    base_str_cat(o, "    const int lane = threadIdx.x & 31, wp = threadIdx.x >> 5;\n");
    base_str_printf(o, "    const LM_I step = (LM_I)gridDim.x * %d;\n", TILE_BLOCK);
    base_str_printf(o,
                    "    for (LM_I lb = ((LM_I)blockIdx.x * %d + wp) * 32; lb < lines; lb += "
                    "step) {\n",
                    warps);
    /* lanes past the last line take it again (unstored), so that shuffles stay whole */
    base_str_cat(o, "        const LM_I l = lb + lane < lines ? lb + lane : lines - 1;\n");
    emit_line_offsets(s, o, "        ", "l");
    base_str_cat(o, "        const int nl = lines - lb < 32 ? (int)(lines - lb) : 32;\n");
    emit_acc(sn, o, "        ");
    base_str_cat(o, "        for (LM_I cb = 0; cb < len; cb += 32) {\n");
    base_str_cat(o, "            const LM_I i = cb + lane;\n");
    base_str_cat(o, "            for (int y = 0; y < 32; y++) {\n");
    for (uint32_t j = 0; j < s->n_nodes; j++)
        if (node(s, j)->op == IR_OP_INPUT)
            base_str_printf(
                o, "                const LM_I ky%u = __shfl_sync(0xffffffffu, k%u, y);\n", j, j);
    base_str_cat(o, "                if (y < nl && i < len) {\n");
    emit_prologue(s, o, "                    ", "ky");
    base_str_cat(o,
                 "                    tile[wp][y][lane] = x;\n                }\n            }\n");
    base_str_cat(o, "            __syncwarp();\n");
    base_str_cat(o, "            const int nc = len - cb < 32 ? (int)(len - cb) : 32;\n");
    base_str_cat(o, "            for (int j = 0; j < nc; j++) {\n");
    base_str_printf(o, "                const %s x = tile[wp][lane][j];\n", T);
    base_str_printf(o, "                acc = cb + j == 0 ? x : lm_%s_%s(acc, x);\n", scan_fn(s),
                    sfx(d));
    base_str_cat(o, "                tile[wp][lane][j] = acc;\n            }\n");
    base_str_cat(o, "            __syncwarp();\n");
    base_str_cat(o, "            for (int y = 0; y < nl; y++) {\n");
    base_str_cat(o, "                const LM_I koy = __shfl_sync(0xffffffffu, ko, y);\n");
    base_str_printf(o, "                if (i < len) out[koy + i * os%d] = tile[wp][y][lane];\n",
                    s->axis);
    base_str_cat(o, "            }\n            __syncwarp();\n        }\n    }\n");
}

/* The identity of the scan's operation in T (what pads a line's last tile). */
static void emit_identity(const cg_scan_t *s, base_str_t *o) {
    const ir_node_t *sn = node(s, s->n_nodes - 1);
    loom_dtype_t d = (loom_dtype_t)sn->dtype;
    int one = sn->op != IR_OP_CUMSUM;
    if (s->mx)
        base_str_cat(o, "    const lm_mx ident = lm_mx_of(1.0f);\n");
    else if (ir_is_complex(d))
        base_str_printf(o, "    const %s ident = lm__mk_%s(%d, 0);\n", ty(sn), sfx(d), one);
    else
        base_str_printf(o, "    const %s ident = (%s)%d;\n", ty(sn), ty(sn), one);
}

/* The reordered float32 product's accumulator: m * 2^e is the product (m a double in [0.5, 1),
 * or 0, inf or NaN with e 0), so that no partial product overflows or underflows; e saturates
 * at +2^30, and a product below 2^-(2^30) becomes 0 (NumPy's is 0 long before). mm * 2^em is
 * the largest magnitude the running product reached before its first 0, inf or NaN factor
 * (em LM_MX_NONE: none yet). From the first place that magnitude rounds to float32's inf,
 * NumPy's running product is infinite (NaN once a 0 or NaN follows), which lm_mx_val
 * reproduces; otherwise each result is the product rounded once. A product of two is
 * associative but for the mantissas' rounding, whatever the brackets. */
static void emit_mx(const cg_scan_t *s, base_str_t *o) {
    base_str_printf(o, "#define LM_MX_WIN %d\n", lb_win(s)); /* (lm_mx_fold's mk) */
    base_str_cat(
        o,
        "#define LM_MX_NONE (-(1 << 30) - 2)\n"
        "struct __align__(8) lm_mx { double m, mm; int e, em; };\n"
        "/* m's exponent field x, and m scaled into [0.5, 1) (the sign kept): times 2^(1022 -\n"
        " * x), exact for x in [1, 2044], every caller's (a multiply, not a splice of m's\n"
        " * words: docs/design-notes.md, Scans) */\n"
        "__device__ __forceinline__ int lm_mx_x(double m) { return (__double2hiint(m) >> 20) & "
        "2047; }\n"
        "__device__ __forceinline__ double lm_mx_scl(double m, int x) {\n"
        "    return m * __longlong_as_double((long long)(2045 - x) << 52);\n}\n"
        "__device__ __forceinline__ double lm_mx_set(double m) { return lm_mx_scl(m, lm_mx_x(m)); "
        "}\n"
        "__device__ __forceinline__ int lm_mx_sat(int a, int b) {\n"
        "    const long long e = (long long)a + b;\n"
        "    return e > (1 << 30) ? (1 << 30) : e < -(1 << 30) ? -(1 << 30) : (int)e;\n}\n"
        "/* a float32 element: exactly, its exponent apart (a subnormal's too) */\n"
        "__device__ __forceinline__ lm_mx lm_mx_of(float x) {\n"
        "    lm_mx r;\n"
        "    const double d = (double)x;\n"
        "    const int xb = lm_mx_x(d);\n"
        "    if (x == 0.0f || xb == 2047) { r.m = d; r.e = 0; r.mm = 0.0; r.em = LM_MX_NONE; "
        "return r; }\n"
        "    r.m = lm_mx_set(d);\n"
        "    r.e = xb - 1022;\n"
        "    r.mm = fabs(r.m);\n"
        "    r.em = r.e;\n"
        "    return r;\n}\n"
        "/* a, then b: the product (mantissas of [0.5, 1) make a normal one, or 0, inf, NaN), and\n"
        " * the larger of a's largest magnitude and a's product times b's (unless a holds a 0,\n"
        " * inf or NaN factor) */\n"
        "__device__ __forceinline__ bool lm_mx_near(int e) { return (unsigned)(e + (1 << 28)) <= "
        "(1u << 29); }\n"
        "__device__ __forceinline__ lm_mx lm_multiply_mx(lm_mx a, lm_mx b) {\n"
        "    lm_mx r;\n"
        "    const double m = a.m * b.m;\n"
        "    const int xb = lm_mx_x(m), xa = lm_mx_x(a.m);\n"
        "    r.mm = a.mm;\n"
        "    r.em = a.em;\n"
        "    /* the steps below without their branches, where none is taken: every value finite\n"
        "     * and nonzero, no exponent near saturation */\n"
        "    if (xb - 1u < 2046u && xa - 1u < 2046u && lm_mx_near(a.e) && lm_mx_near(b.e) && "
        "lm_mx_near(b.em)) {\n"
        "        r.m = lm_mx_scl(m, xb);\n"
        "        r.e = a.e + b.e + xb - 1022;\n"
        "        const double c = fabs(a.m) * b.mm;\n"
        "        const int xc = lm_mx_x(c), ce = a.e + b.em + xc - 1022;\n"
        "        const double cm = lm_mx_scl(c, xc);\n"
        "        if (ce > r.em || (ce == r.em && cm > r.mm)) { r.mm = cm; r.em = ce; }\n"
        "        return r;\n"
        "    }\n"
        "    if (xb == 0 || xb == 2047) { r.m = m; r.e = 0; }\n"
        "    else { r.m = lm_mx_set(m); r.e = lm_mx_sat(a.e, b.e + xb - 1022); }\n"
        "    if (r.e == -(1 << 30)) { r.m = copysign(0.0, r.m); r.e = 0; } /* below 2^-(2^30): 0 "
        "*/\n"
        "    if (xa != 0 && xa != 2047 && b.em != LM_MX_NONE) {\n"
        "        const double c = fabs(a.m) * b.mm;\n"
        "        const int ce = lm_mx_sat(a.e, b.em + lm_mx_x(c) - 1022);\n"
        "        const double cm = lm_mx_set(c);\n"
        "        if (ce > r.em || (ce == r.em && cm > r.mm)) { r.mm = cm; r.em = ce; }\n"
        "    }\n"
        "    return r;\n}\n");
    base_str_cat(
        o,
        "/* A thread's run of elements, one a step, with lm_multiply_mx's results: the\n"
        " * mantissa's product m is left unnormalized for LM_MX_G float32 factors at most (a\n"
        " * normal double then, so the same rounding), g the largest finite |m| since; lm_mx_norm\n"
        " * folds g into the largest magnitude and normalizes m. lm_mx_one(): no element yet. */\n"
        "#define LM_MX_G 6\n"
        "__device__ __forceinline__ lm_mx lm_mx_one() {\n"
        "    lm_mx r;\n"
        "    r.m = 1.0; r.e = 0; r.mm = 0.0; r.em = LM_MX_NONE;\n"
        "    return r;\n}\n"
        "__device__ __forceinline__ void lm_mx_mul(lm_mx &a, double &g, float y) {\n"
        "    a.m *= (double)y;\n"
        "    const double am = fabs(a.m);\n"
        "    g = am < __longlong_as_double(0x7ff0000000000000ll) && am > g ? am : g;\n}\n"
        "__device__ __forceinline__ void lm_mx_renorm(lm_mx &a) {\n"
        "    const int xb = lm_mx_x(a.m);\n"
        "    if (xb == 0 || xb == 2047) { a.e = 0; return; }\n"
        "    a.m = lm_mx_set(a.m);\n"
        "    a.e = lm_mx_sat(a.e, xb - 1022);\n"
        "    if (a.e == -(1 << 30)) { a.m = copysign(0.0, a.m); a.e = 0; }\n}\n"
        "__device__ __forceinline__ void lm_mx_norm(lm_mx &a, double &g) {\n"
        "    if (g > 0.0) {\n"
        "        const int ce = lm_mx_sat(a.e, lm_mx_x(g) - 1022);\n"
        "        const double cm = lm_mx_set(g);\n"
        "        if (ce > a.em || (ce == a.em && cm > a.mm)) { a.mm = cm; a.em = ce; }\n"
        "        g = 0.0;\n"
        "    }\n"
        "    lm_mx_renorm(a);\n}\n"
        "/* Results from a prefix a on (lm_mx_out, one element a step, renormalizing a.m every\n"
        " * LM_MX_G): m * sc rounded once, where sc is 2^e within [2^-1000, 2^1000] (beyond,\n"
        " * every result is 0 or, big being set, inf); big: NumPy's running product is infinite\n"
        " * (lm_mx_val's rule, then any result that rounds to inf) */\n"
        "__device__ __forceinline__ bool lm_mx_big(lm_mx a) {\n"
        "    return a.em > 128 || (a.em == 128 && a.mm >= 1.0 - 0x1p-25);\n}\n"
        "__device__ __forceinline__ double lm_mx_scale(int e) {\n"
        "    const int k = e < -1000 ? -1000 : e > 1000 ? 1000 : e;\n"
        "    return __longlong_as_double((long long)(k + 1023) << 52);\n}\n"
        "__device__ __forceinline__ float lm_mx_out(double &m, float y, double sc, bool &big) {\n"
        "    m *= (double)y;\n"
        "    const float f = (float)(m * sc);\n"
        "    big = big || fabsf(f) == __int_as_float(0x7f800000);\n"
        "    return !big ? f : m == 0.0 || m != m ? __int_as_float(0x7fffffff)\n"
        "                                         : copysignf(__int_as_float(0x7f800000), "
        "f);\n}\n"
        "/* The same steps where every factor and the start are finite and nonzero and no\n"
        " * exponent nears saturation (lm_mx_fine after the run says so; otherwise the caller\n"
        " * runs the exact steps again): no branches, |m| folded into g by a maximum,\n"
        " * renormalized without the zero, infinity and saturation cases. A 0, inf or NaN\n"
        " * factor leaves m 0, inf or NaN to the end of the run, through these steps too. */\n"
        "__device__ __forceinline__ bool lm_mx_fine(double m) {\n"
        "    const int x = lm_mx_x(m);\n"
        "    return x != 0 && x != 2047;\n}\n"
        "__device__ __forceinline__ void lm_mx_mulf(lm_mx &a, double &g, float y) {\n"
        "    a.m *= (double)y;\n"
        "    g = fabs(a.m) > fabs(g) ? a.m : g; /* (|g| is the largest) */\n}\n"
        "__device__ __forceinline__ void lm_mx_renormf(lm_mx &a) {\n"
        "    const int xb = lm_mx_x(a.m);\n"
        "    a.m = lm_mx_scl(a.m, xb);\n"
        "    a.e += xb - 1022;\n}\n"
        "__device__ __forceinline__ void lm_mx_normf(lm_mx &a, double &g) {\n"
        "    const int xg = lm_mx_x(g), ce = a.e + xg - 1022;\n"
        "    const double cm = lm_mx_scl(fabs(g), xg);\n"
        "    if (ce > a.em || (ce == a.em && cm > a.mm)) { a.mm = cm; a.em = ce; }\n"
        "    g = 0.0;\n"
        "    lm_mx_renormf(a);\n}\n");
    base_str_cat(
        o,
        "/* The look-back's fold w[found] op w[found - 1] op ... op w[0] (lm_multiply_mx's\n"
        " * results), by one warp: lane 0 runs the mantissas' product, left unnormalized (at\n"
        " * most 2^-(found + 1)), one multiply a step, into mk (m before each step, then the\n"
        " * product); then each lane takes a run of steps for the exponents (summed in 64 bits,\n"
        " * a warp scan) and the largest magnitude (a maximum: the same whatever the order).\n"
        " * Where an exponent on the way might come within 2^11 of saturating or making the\n"
        " * product 0 (a lane's bound: its start, its exponents' and largest magnitudes'\n"
        " * exponents in absolute value, 2^11 for a mantissa's), the chain itself, whose bits\n"
        " * are these wherever no exponent saturates, so that the result is the same whatever\n"
        " * the window */\n"
        "__device__ lm_mx lm_mx_fold(const lm_mx *w, int found) {\n"
        "    __shared__ double mk[LM_MX_WIN + 1];\n"
        "    const int lane = threadIdx.x & 31;\n"
        "    if (lane == 0) { /* (8 factors loaded before their stores: mk might alias w) */\n"
        "        double m = w[found].m;\n"
        "        int i = 0;\n"
        "        for (; i + 8 <= found; i += 8) {\n"
        "            double b[8];\n"
        "#pragma unroll\n"
        "            for (int k = 0; k < 8; k++) b[k] = w[found - 1 - i - k].m;\n"
        "#pragma unroll\n"
        "            for (int k = 0; k < 8; k++) {\n"
        "                mk[i + k] = m;\n"
        "                m *= b[k];\n"
        "            }\n"
        "        }\n"
        "        for (; i < found; i++) {\n"
        "            mk[i] = m;\n"
        "            m *= w[found - 1 - i].m;\n"
        "        }\n"
        "        mk[found] = m;\n"
        "    }\n"
        "    __syncwarp();\n"
        "    const int per = (found + 31) >> 5, a = min(lane * per, found), b = min(a + per, "
        "found);\n"
        "    long long run = 0, bnd = 0;\n"
        "    for (int i = a; i < b; i++) {\n"
        "        const lm_mx q = w[found - 1 - i];\n"
        "        run += q.e;\n"
        "        bnd += llabs((long long)q.e) + (q.em != LM_MX_NONE ? llabs((long long)q.em) : "
        "0);\n"
        "    }\n"
        "    long long inc = run;\n"
        "#pragma unroll\n"
        "    for (int d = 1; d < 32; d <<= 1) {\n"
        "        const long long y = __shfl_up_sync(0xffffffffu, inc, d);\n"
        "        if (lane >= d) inc += y;\n"
        "    }\n"
        "    long long e = w[found].e + inc - run, em = LM_MX_NONE;\n"
        "    double mm = 0.0;\n"
        "    lm_mx r = w[found];\n"
        "    if (__any_sync(0xffffffffu, llabs(e) + bnd + 2048 >= (1 << 30))) {\n"
        "        for (int i = found - 1; i >= 0; i--) r = lm_multiply_mx(r, w[i]);\n"
        "        return r;\n"
        "    }\n"
        "    for (int i = a; i < b; i++) {\n"
        "        const lm_mx q = w[found - 1 - i];\n"
        "        const double m = mk[i];\n"
        "        const int xa = lm_mx_x(m);\n"
        "        if (xa != 0 && xa != 2047 && q.em != LM_MX_NONE) {\n"
        "            const double c = fabs(m) * q.mm;\n"
        "            const long long ce = e + q.em + lm_mx_x(c) - 1022;\n"
        "            const double cm = lm_mx_set(c);\n"
        "            if (ce > em || (ce == em && cm > mm)) { mm = cm; em = ce; }\n"
        "        }\n"
        "        e += q.e;\n"
        "    }\n"
        "#pragma unroll\n"
        "    for (int d = 16; d > 0; d >>= 1) {\n"
        "        const long long em2 = __shfl_xor_sync(0xffffffffu, em, d);\n"
        "        const double mm2 = __shfl_xor_sync(0xffffffffu, mm, d);\n"
        "        if (em2 > em || (em2 == em && mm2 > mm)) { mm = mm2; em = em2; }\n"
        "    }\n"
        "    if (em > r.em || (em == r.em && mm > r.mm)) { r.mm = mm; r.em = (int)em; }\n"
        "    r.m = mk[found];\n"
        "    r.e = (int)(w[found].e + __shfl_sync(0xffffffffu, inc, 31));\n"
        "    lm_mx_renorm(r);\n"
        "    return r;\n}\n"
        "/* The float32 result: NumPy's inf (NaN after a 0 or NaN) once the largest magnitude\n"
        " * rounds to inf (from 2^128 (1 - 2^-25)); else m 2^e (e <= 128 then: the magnitude is "
        "at\n"
        " * most the largest) as a double, exactly, rounded once */\n"
        "__device__ __forceinline__ float lm_mx_val(lm_mx y) {\n"
        "    if (y.em > 128 || (y.em == 128 && y.mm >= 1.0 - 0x1p-25))\n"
        "        return y.m == 0.0 || y.m != y.m ? __int_as_float(0x7fffffff)\n"
        "                                                    : "
        "copysignf(__int_as_float(0x7f800000), "
        "(float)y.m);\n"
        "    const int xb = lm_mx_x(y.m);\n"
        "    if (xb == 0 || xb == 2047) return (float)y.m;\n"
        "    if (y.e < -1000) return copysignf(0.0f, (float)y.m);\n"
        "    return (float)(y.m * lm_mx_scale(y.e));\n}\n");
}

/* A 64-bit status word's relaxed load and store at GPU scope: the look-backs' (LB's packed
 * status, SEL's counts), whose flag and value share the word, so no fence orders them. */
static void emit_relaxed_u64(base_str_t *o) {
    base_str_cat(o,
                 "__device__ __forceinline__ unsigned long long lm_ld_relaxed(const unsigned long "
                 "long *p) {\n"
                 "    unsigned long long v;\n"
                 "    asm volatile(\"ld.relaxed.gpu.global.u64 %0, [%1];\" : \"=l\"(v) : "
                 "\"l\"(p) : \"memory\");\n"
                 "    return v;\n}\n"
                 "__device__ __forceinline__ void lm_st_relaxed(unsigned long long *p, unsigned "
                 "long long v) {\n"
                 "    asm volatile(\"st.relaxed.gpu.global.u64 [%0], %1;\" :: \"l\"(p), "
                 "\"l\"(v) : \"memory\");\n}\n");
}

/* LB's device helpers: loads through L2 only (another block's published values; L1 is not
 * coherent), a flag's acquire load (what it publishes is seen after it, no fence), and warp
 * shuffles of any result type, word by word. */
static void emit_lb_helpers(base_str_t *o) {
    emit_relaxed_u64(o);
    base_str_cat(
        o,
        "/* wider values: a 16-byte word per 8 bytes of the value, each holding the flag beside\n"
        " * its 8 bytes (one access reads both: CUB's status words of 16 bytes rely on the\n"
        " * same), all read at once; words whose flags differ are a publication in progress */\n"
        "__device__ __forceinline__ void lm_st_relaxed2(unsigned long long *p, unsigned long "
        "long a, unsigned long long b) {\n"
        "    asm volatile(\"st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};\" :: \"l\"(p), "
        "\"l\"(a), \"l\"(b) : \"memory\");\n}\n"
        "__device__ __forceinline__ void lm_ld_relaxed2(const unsigned long long *p, unsigned "
        "long long &a, unsigned long long &b) {\n"
        "    asm volatile(\"ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];\" : \"=l\"(a), "
        "\"=l\"(b) : \"l\"(p) : \"memory\");\n}\n"
        "template <typename T> __device__ __forceinline__ void lm_lb_pubw(unsigned long long "
        "*p, unsigned f, T v) {\n"
        "    constexpr int n = (int)((sizeof(T) + 7) / 8);\n"
        "    union { T v; unsigned long long w[n]; } b;\n"
        "    b.w[n - 1] = 0ull;\n"
        "    b.v = v;\n"
        "#pragma unroll\n"
        "    for (int i = 0; i < n; i++) lm_st_relaxed2(p + 2 * i, b.w[i], f);\n}\n"
        "template <typename T> __device__ __forceinline__ unsigned lm_lb_getw(const unsigned "
        "long long *p, T *v) {\n"
        "    constexpr int n = (int)((sizeof(T) + 7) / 8);\n"
        "    union { T v; unsigned long long w[n]; } b;\n"
        "    unsigned long long f[n];\n"
        "#pragma unroll\n"
        "    for (int i = 0; i < n; i++) lm_ld_relaxed2(p + 2 * i, b.w[i], f[i]);\n"
        "#pragma unroll\n"
        "    for (int i = 1; i < n; i++)\n"
        "        if (f[i] != f[0]) return 0u;\n"
        "    *v = b.v;\n"
        "    return (unsigned)f[0];\n}\n"
        "template <typename T> __device__ __forceinline__ void lm_lb_pub(unsigned long long *p, "
        "unsigned f, T v) {\n"
        "    union { T v; unsigned w; } b;\n"
        "    b.w = 0u;\n"
        "    b.v = v;\n"
        "    lm_st_relaxed(p, (unsigned long long)f << 32 | b.w);\n}\n"
        "template <typename T> __device__ __forceinline__ unsigned lm_lb_get(const unsigned "
        "long long *p, T *v) {\n"
        "    const unsigned long long w = lm_ld_relaxed(p);\n"
        "    union { T v; unsigned w; } b;\n"
        "    b.w = (unsigned)w;\n"
        "    *v = b.v;\n"
        "    return (unsigned)(w >> 32);\n}\n"
        "template <typename T, bool UP> __device__ __forceinline__ T lm_sc_shfl(T v, "
        "int k) {\n"
        "    constexpr int n = sizeof(T) < 4 ? 1 : (int)(sizeof(T) / 4);\n"
        "    union {\n        T v;\n        unsigned w[n];\n    } b;\n"
        "    b.w[0] = 0u;\n"
        "    b.v = v;\n"
        "#pragma unroll\n"
        "    for (int i = 0; i < n; i++) b.w[i] = UP ? __shfl_up_sync(0xffffffffu, b.w[i], "
        "k) : __shfl_sync(0xffffffffu, b.w[i], k);\n"
        "    return b.v;\n}\n");
}

/* LB's and LBP's scan of the threads' totals `a` within a tile: a scan across each warp's
 * lanes (fixed shuffle steps), then the earlier warps' totals folded in order. A thread's
 * prefix in the tile (pre; hp: whether it has one) is (its warp's prefix op its lane's
 * prefix); its items' tile-local prefixes are that op its own items in order, the last
 * thread's last one the tile's aggregate. */
static void emit_lb_block_scan(const cg_scan_t *s, base_str_t *o) {
    const char *T = acc_ty(s), *op = scan_fn(s), *x = acc_sfx(s);
    base_str_printf(o,
                    "        bool hp = wp > 0;\n"
                    "        %s pre = ident;\n"
                    "        {\n"
                    "            %s v = a;\n"
                    "#pragma unroll\n"
                    "            for (int d = 1; d < 32; d <<= 1) {\n"
                    "                const %s y = lm_sc_shfl<%s, true>(v, d);\n"
                    "                if (lane >= d) v = lm_%s_%s(y, v);\n"
                    "            }\n"
                    "            if (lane == 31) wtot[wp] = v;\n"
                    "            const %s lp = lm_sc_shfl<%s, true>(v, 1);\n"
                    "            __syncthreads();\n"
                    "            if (hp) pre = wtot[0];\n"
                    "            for (int j = 1; j < wp; j++) pre = lm_%s_%s(pre, wtot[j]);\n"
                    "            if (lane > 0) { pre = hp ? lm_%s_%s(pre, lp) : lp; hp = true; }\n"
                    "        }\n",
                    T, T, T, T, op, x, T, T, op, x, op, x);
}

/* LB's and LBP's status (see lb_packed): the kernel's pointer to it, a tile u's
 * publication of value v with flag f, and the wait for tile `idx`'s into `dst`. */
static void emit_lb_status_decl(base_str_t *o) {
    base_str_cat(o, "    unsigned long long *lbst = (unsigned long long *)(scr + 16);\n");
}

static void emit_lb_pub(const cg_scan_t *s, base_str_t *o, const char *ind, const char *f,
                        const char *v) {
    if (lb_packed(s))
        base_str_printf(o, "%slm_lb_pub(&lbst[u], %s, %s);\n", ind, f, v);
    else
        base_str_printf(o, "%slm_lb_pubw(&lbst[u * %d], %s, %s);\n", ind, lb_words(s), f, v);
}

/* (A wide word's poller sleeps 32 ns before it reads again, which leaves the issue slots and
 * the L2 to the warps at work.) */
static void emit_lb_wait(const cg_scan_t *s, base_str_t *o, const char *ind, const char *idx,
                         const char *dst) {
    char at[64]; /* the status's first word */
    const char *get = "lm_lb_get", *idle = "{ }";
    if (lb_packed(s)) {
        snprintf(at, sizeof at, "%s", idx);
    } else {
        snprintf(at, sizeof at, "(%s) * %d", idx, lb_words(s));
        get = "lm_lb_getw";
        idle = "__nanosleep(32);";
    }
    base_str_printf(o,
                    "%s%s v_;\n"
                    "%swhile ((f = %s(&lbst[%s], &v_)) == 0u) %s\n"
                    "%s%s = v_;\n",
                    ind, acc_ty(s), ind, get, at, idle, ind, dst);
}

/* LB's and LBP's block scan, then the tile's aggregate g published by its last thread (s_agg;
 * as the inclusive prefix for a line's first tile, else as the aggregate). */
static void emit_lb_aggregate(const cg_scan_t *s, base_str_t *o) {
    emit_lb_block_scan(s, o);
    base_str_printf(o,
                    "        if (t == %d) {\n"
                    "            const %s g = hp ? lm_%s_%s(pre, a) : a;\n"
                    "            s_agg = g;\n",
                    LB_BLOCK - 1, acc_ty(s), scan_fn(s), acc_sfx(s));
    emit_lb_pub(s, o, "            ", "(tl == 0 ? 2u : 1u)", "g");
    base_str_cat(o, "        }\n");
}

/* LB's and LBP's fold of the look-back's window from the nearest inclusive prefix (win[found])
 * forward in order, 32 values a shuffle round (the same brackets as one thread folding them;
 * float32 products: lm_mx_fold, the mantissas' chain on one lane, the rest across the warp),
 * by one warp; the thread `who` then publishes the tile's inclusive prefix: its prefix op its
 * aggregate (s_agg, which that thread wrote), its last result exactly (but for float32
 * products: see the top). */
static void emit_lb_fold(const cg_scan_t *s, base_str_t *o, const char *ind, const char *who) {
    const char *T = acc_ty(s), *op = scan_fn(s), *x = acc_sfx(s);
    if (s->mx)
        base_str_printf(o, "%slm_mx p = lm_mx_fold(win, found);\n%sif (%s) {\n%s    s_pre = p;\n",
                        ind, ind, who, ind);
    else
        base_str_printf(o,
                        "%s%s p = win[found];\n"
                        "%sfor (int c = found >> 5; c >= 0; c--) {\n"
                        "%s    const %s w = win[c * 32 + lane];\n"
                        "%s    const int e = found - c * 32;\n"
                        "#pragma unroll\n"
                        "%s    for (int k = 31; k >= 0; k--) {\n"
                        "%s        const %s y = lm_sc_shfl<%s, false>(w, k);\n"
                        "%s        if (k < e) p = lm_%s_%s(p, y);\n"
                        "%s    }\n"
                        "%s}\n"
                        "%sif (%s) {\n"
                        "%s    s_pre = p;\n",
                        ind, T, ind, ind, T, ind, ind, ind, T, T, ind, op, x, ind, ind, ind, who,
                        ind);
    char in2[40], v[40];
    snprintf(in2, sizeof in2, "%s    ", ind);
    snprintf(v, sizeof v, "lm_%s_%s(p, s_agg)", op, x);
    emit_lb_pub(s, o, in2, "2u", v);
    base_str_printf(o, "%s}\n", ind);
}

/* LB's tile prefix: the block scan, the tile's aggregate published (its inclusive prefix for
 * a line's first tile), and the look-back over the line's earlier tiles for the tile's prefix
 * (s_pre). Ends at a barrier. */
static void emit_lb_prefix(const cg_scan_t *s, base_str_t *o) {
    emit_lb_aggregate(s, o);
    /* the look-back: the block reads LB_BLOCK earlier tiles at a time, nearest first, until
     * one has its inclusive prefix (a thread each, waiting for its tile's flag; the warps'
     * ballots meet in shared memory); past LB_WIN values it starts over. Warp 0 then folds
     * from the nearest inclusive prefix forward in order, 32 values a shuffle round (the
     * same brackets as one thread folding them). The tile's inclusive prefix is its prefix
     * op its aggregate: its last result, exactly (float32 products aside). */
    base_str_printf(o, "        if (tl > 0) {\n"
                       "            const LM_I base = l * tiles;\n"
                       "            LM_I tt = tl;\n"
                       "            int n = 0, found = -1;\n"
                       "            for (;;) {\n"
                       "                const LM_I j = tt - 1 - t;\n"
                       "                unsigned f = 0;\n"
                       "                if (j >= 0) {\n");
    emit_lb_wait(s, o, "                    ", "base + j", "win[n + t]");
    base_str_printf(
        o,
        "                }\n"
        "                const unsigned m = __ballot_sync(0xffffffffu, j >= 0 && f == 2u);\n"
        "                if (lane == 0) s_mask[wp] = m;\n"
        "                __syncthreads();\n"
        "#pragma unroll\n"
        "                for (int w = %d; w >= 0; w--)\n"
        "                    if (s_mask[w]) found = n + w * 32 + __ffs(s_mask[w]) - 1;\n"
        "                if (found >= 0) break;\n"
        "                __syncthreads();\n"
        "                n += %d;\n"
        "                tt -= %d;\n"
        "                if (n == %d) { n = 0; tt = tl; __nanosleep(256); }\n"
        "            }\n"
        "            if (wp == 0) {\n",
        LB_BLOCK / 32 - 1, LB_BLOCK, LB_BLOCK, lb_win(s));
    emit_lb_fold(s, o, "                ", "t == 0");
    base_str_cat(o, "            }\n"
                    "        }\n"
                    "        __syncthreads();\n");
}

/* LBP's tile prefix: the block scan; the tile's aggregate published (its inclusive prefix for
 * a line's first tile) by the last thread, whose warp alone then looks back as LB's block does
 * (32 earlier tiles a step, nearest first, into the window until one has its inclusive prefix,
 * starting over past LB_WIN values), folds forward from there with LB's brackets and
 * publishes the tile's inclusive prefix. The other warps wait at the barrier it ends at. */
static void emit_lbp_prefix(const cg_scan_t *s, base_str_t *o) {
    emit_lb_aggregate(s, o);
    base_str_printf(o,
                    "        if (wp == %d && tl > 0) {\n"
                    "            const LM_I base = l * tiles;\n"
                    "            LM_I tt = tl;\n"
                    "            int n = 0, found = 0;\n"
                    "            for (;;) {\n"
                    "                const LM_I j = tt - 1 - lane;\n"
                    "                unsigned f = 0;\n"
                    "                if (j >= 0) {\n",
                    LB_BLOCK / 32 - 1);
    emit_lb_wait(s, o, "                    ", "base + j", "win[n + lane]");
    base_str_printf(
        o,
        "                }\n"
        "                const unsigned m = __ballot_sync(0xffffffffu, j >= 0 && f == 2u);\n"
        "                if (m) { found = n + __ffs(m) - 1; break; }\n"
        "                n += 32;\n"
        "                tt -= 32;\n"
        "                if (n == %d) { n = 0; tt = tl; __nanosleep(256); }\n"
        "            }\n"
        "            __syncwarp();\n",
        lb_win(s));
    emit_lb_fold(s, o, "            ", "lane == 31"); /* (the last thread) */
    base_str_cat(o, "        }\n"
                    "        __syncthreads();\n");
}

/* LB: a block per tile of a line (block order), decoupled look-back between tiles. */
static void emit_lb(const cg_scan_t *s, base_str_t *o) {
    const char *T = acc_ty(s), *op = scan_fn(s), *x = acc_sfx(s);
    int it = s->items, tile = LB_BLOCK * it;
    emit_identity(s, o);
    base_str_printf(o,
                    "    __shared__ %s sm[%d];\n"
                    "    __shared__ %s wtot[%d], win[%d];\n"
                    "    __shared__ %s s_agg, s_pre;\n"
                    "    __shared__ unsigned s_mask[%d];\n",
                    T, tile + tile / 32, T, LB_BLOCK / 32, lb_win(s), T, LB_BLOCK / 32);
    base_str_printf(o, "    const LM_I tiles = (len + %d - 1) / %d, units = lines * tiles;\n", tile,
                    tile);
    emit_lb_status_decl(o);
    base_str_cat(o, "    const int t = threadIdx.x, lane = t & 31, wp = t >> 5;\n");
    base_str_printf(o,
                    "    for (LM_I u = blockIdx.x; u < units; u += gridDim.x) {\n"
                    "        const LM_I l = u / tiles, tl = u - l * tiles, tb = tl * %d;\n",
                    tile);
    emit_line_offsets(s, o, "        ", "l");
    /* the operands of the tile `ahead` tiles on into L2 (no registers held): it starts
     * when this one's look-back and stores run, and finds its loads near */
    base_str_cat(o, "        if (u + ahead < units) {\n"
                    "            const LM_I pu = u + ahead, pl = pu / tiles;\n");
    base_str_printf(o, "            const LM_I ptb = (pu - pl * tiles) * %d;\n", tile);
    emit_offsets(s, o, "            ", "pl", "p");
    base_str_printf(o,
                    "#pragma unroll\n"
                    "            for (int k = 0; k < %d; k++) {\n"
                    "                const LM_I i = ptb + k * %d + t;\n"
                    "                if (i < len) {\n",
                    it, LB_BLOCK);
    for (uint32_t j = 0; j < s->n_nodes; j++)
        if (node(s, j)->op == IR_OP_INPUT)
            base_str_printf(o,
                            "                    asm volatile(\"prefetch.global.L2 [%%0];\" :: "
                            "\"l\"(in%u + pk%u + i * t%u_%d));\n",
                            j, j, j, s->axis);
    base_str_cat(o, "                }\n            }\n        }\n");
    /* coalesced loads of the tile (the prologue per element) into shared memory; a whole
     * tile's loads all issue before the first store */
    base_str_printf(o,
                    "        if (tb + %d <= len) {\n"
                    "            %s xs[%d];\n"
                    "#pragma unroll\n"
                    "            for (int k = 0; k < %d; k++) {\n"
                    "                const LM_I i = tb + k * %d + t;\n",
                    tile, T, it, it, LB_BLOCK);
    emit_prologue(s, o, "                ", "k");
    base_str_printf(o,
                    "                xs[k] = x;\n"
                    "            }\n"
                    "#pragma unroll\n"
                    "            for (int k = 0; k < %d; k++) {\n"
                    "                const int e = k * %d + t;\n"
                    "                sm[e + e / 32] = xs[k];\n"
                    "            }\n"
                    "        } else {\n"
                    "#pragma unroll\n"
                    "            for (int k = 0; k < %d; k++) {\n"
                    "                const int e = k * %d + t;\n"
                    "                const LM_I i = tb + e;\n"
                    "                if (i < len) {\n",
                    it, LB_BLOCK, it, LB_BLOCK);
    emit_prologue(s, o, "                    ", "k");
    base_str_cat(o, "                    sm[e + e / 32] = x;\n"
                    "                } else {\n"
                    "                    sm[e + e / 32] = ident;\n"
                    "                }\n"
                    "            }\n"
                    "        }\n"
                    "        __syncthreads();\n");
    /* each thread's items folded in order: its total (the items' prefixes are folded again
     * from shared memory at the end, the same brackets, so that none is held in registers
     * across the look-back) */
    base_str_printf(o,
                    "        %s a = sm[t * %d + t * %d / 32];\n"
                    "#pragma unroll\n"
                    "        for (int k = 1; k < %d; k++) {\n"
                    "            const int e = t * %d + k;\n"
                    "            a = lm_%s_%s(a, sm[e + e / 32]);\n"
                    "        }\n",
                    T, it, it, it, it, op, x);
    emit_lb_prefix(s, o);
    base_str_printf(
        o,
        "#pragma unroll\n"
        "        for (int k = 0; k < %d; k++) {\n"
        "            const int e = t * %d + k;\n"
        "            a = k == 0 ? sm[e + e / 32] : lm_%s_%s(a, sm[e + e / 32]);\n"
        "            const %s y = hp ? lm_%s_%s(pre, a) : a;\n"
        "            sm[e + e / 32] = tl > 0 ? lm_%s_%s(s_pre, y) : y;\n"
        "        }\n"
        "        __syncthreads();\n"
        "#pragma unroll\n"
        "        for (int k = 0; k < %d; k++) {\n"
        "            const int e = k * %d + t;\n"
        "            if (tb + e < len) out[ko + (tb + e) * os%d] = %s(sm[e + e / 32]);\n"
        "        }\n"
        "        __syncthreads();\n"
        "    }\n",
        it, it, op, x, T, op, x, op, x, it, LB_BLOCK, s->axis, acc_out(s));
}

/* LBP's device helpers: the byte offset of a tile's byte b in a stage (lbp_pad), asynchronous
 * copies into shared memory (cp.async from compute capability 8.0; plain copies before it,
 * and for elements under 4 bytes or not aligned to their size), their groups' commit and
 * wait. */
static void emit_lbp_helpers(base_str_t *o) {
    base_str_cat(
        o, "__device__ __forceinline__ unsigned lm_so(unsigned b) { return b + 16u * (b >> 7); }\n"
           "template <int N> __device__ __forceinline__ void lm_cpa(unsigned char *s, const void "
           "*g) {\n"
           "#if __CUDA_ARCH__ >= 800\n"
           "    const unsigned a = (unsigned)__cvta_generic_to_shared(s);\n"
           "    if constexpr (N == 16) asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16;\" "
           ":: \"r\"(a), \"l\"(g) : \"memory\");\n"
           "    else asm volatile(\"cp.async.ca.shared.global [%0], [%1], %2;\" :: \"r\"(a), "
           "\"l\"(g), \"n\"(N) : \"memory\");\n"
           "#else\n"
           "    if constexpr (N == 16) *(uint4 *)s = *(const uint4 *)g;\n"
           "    else if constexpr (N == 8) *(uint2 *)s = *(const uint2 *)g;\n"
           "    else *(unsigned *)s = *(const unsigned *)g;\n"
           "#endif\n"
           "}\n"
           "template <typename T> __device__ __forceinline__ void lm_cpe(unsigned char *s, const "
           "T *g) {\n"
           "    if constexpr (sizeof(T) >= 4) {\n"
           "        if (((unsigned long long)g & (sizeof(T) - 1)) == 0) { lm_cpa<sizeof(T)>(s, g); "
           "return; }\n"
           "    }\n"
           "    *(T *)s = *g;\n"
           "}\n"
           "__device__ __forceinline__ void lm_cp_commit() {\n"
           "#if __CUDA_ARCH__ >= 800\n"
           "    asm volatile(\"cp.async.commit_group;\" ::: \"memory\");\n"
           "#endif\n"
           "}\n"
           "template <int N> __device__ __forceinline__ void lm_cp_wait() {\n"
           "#if __CUDA_ARCH__ >= 800\n"
           "    asm volatile(\"cp.async.wait_group %0;\" :: \"n\"(N) : \"memory\");\n"
           "#endif\n"
           "}\n");
}

/* The register type of a chunk of cs bytes (4, 8 or 16). */
static const char *chunk_type(uint32_t cs) {
    return cs >= 16 ? "uint4" : cs == 8 ? "uint2" : "unsigned";
}

/* LBP's tile u in a lambda: its line pl, its first element tb, with nv the elements it has,
 * and its inputs' offsets of the line pk<j>. */
static void emit_lbp_tile_at(const cg_scan_t *s, base_str_t *o, int tile, bool nv) {
    base_str_printf(o, "        const LM_I pl = u / tiles, tb = (u - pl * tiles) * %d;\n", tile);
    if (nv)
        base_str_printf(o, "        const LM_I nv = len - tb < %d ? len - tb : %d;\n", tile, tile);
    emit_offsets(s, o, "        ", "pl", "p");
}

/* LBP's and SELP's prefetch into L2 of every input's `tile` elements (a number, or the kernel's
 * TILE) from element tb of the line (the line offsets pk<j> added with line), a 128-byte line
 * a thread a step, none past len. */
static void emit_l2_lines(const cg_scan_t *s, base_str_t *o, const char *tb, const char *tile,
                          int threads, bool line) {
    for (uint32_t j = 0; j < s->n_nodes; j++) {
        if (node(s, j)->op != IR_OP_INPUT) continue;
        int per = 128 / (int)ir_dtypes[node(s, j)->dtype].size; /* elements a line */
        char off[24] = "";
        if (line) snprintf(off, sizeof off, " + pk%u", j);
        base_str_printf(o,
                        "        for (int c = t; c < %s / %d; c += %d)\n"
                        "            if (%s + c * %d < len) asm volatile(\"prefetch.global.L2 "
                        "[%%0];\" :: \"l\"(in%u%s + %s + c * %d));\n",
                        tile, per, threads, tb, per, j, off, tb, per);
    }
}

/* LBP's and SELP's copy of input j's part of a tile into the stage sb at byte `at`: 16-byte
 * cp.async copies when the tile (`tile` elements from tb, nv of them in the line) is whole and
 * aligned, element copies otherwise. With line (LBP), the input's offset of the line pk<j> is
 * added and the bytes go to lm_so's padded places. */
static void emit_stage_copy(const cg_scan_t *s, base_str_t *o, const char *ind, uint32_t j,
                            uint32_t at, int tile, int threads, bool line) {
    const ir_node_t *n = node(s, j);
    uint32_t ej = (uint32_t)ir_dtypes[n->dtype].size;
    char off[24] = "";
    if (line) snprintf(off, sizeof off, " + pk%u", j);
    char el[40]; /* element e's place in the stage, and chunk c's */
    snprintf(el, sizeof el, line ? "lm_so((unsigned)e * %uu)" : "e * %u", ej);
    const char *ch = line ? "lm_so(16u * c)" : "16u * c";
    base_str_printf(o,
                    "%s{\n"
                    "%s    const %s *src = in%u%s + tb;\n"
                    "%s    unsigned char *dst = sb + %u;\n"
                    "%s    if (nv == %d && ((unsigned long long)src & 15) == 0) {\n"
                    "#pragma unroll\n"
                    "%s        for (int c = t; c < %u; c += %d) lm_cpa<16>(dst + %s, "
                    "(const unsigned char *)src + 16 * c);\n"
                    "%s    } else {\n"
                    "%s        for (int e = t; e < nv; e += %d) lm_cpe(dst + %s, src + e);\n"
                    "%s    }\n"
                    "%s}\n",
                    ind, ind, ty(n), j, off, ind, at, ind, tile, ind, (uint32_t)tile * ej / 16,
                    threads, ch, ind, ind, threads, el, ind, ind);
}

/* LBP: the threads' own items (t * items + k) of one array in a stage at byte offset `at`,
 * read in chunks of up to 16 bytes into r<name>, seen as T through <name>. */
static void emit_lbp_items(base_str_t *o, const char *name, const char *T, uint32_t es, int it,
                           const char *at, bool load) {
    uint32_t b = (uint32_t)it * es, cs = b < 16 ? b : 16;
    base_str_printf(o, "            %s r%s[%u];\n", chunk_type(cs), name, b / cs);
    if (load)
        base_str_printf(o,
                        "#pragma unroll\n"
                        "            for (int h = 0; h < %u; h++) r%s[h] = *(const %s *)(%s + "
                        "lm_so((unsigned)t * %uu + (unsigned)h * %uu));\n",
                        b / cs, name, chunk_type(cs), at, b, cs);
    base_str_printf(o, "            %s%s *%s = (%s%s *)r%s;\n", load ? "const " : "", T, name,
                    load ? "const " : "", T, name);
}

/* LBP: the thread's own items of every input (emit_lbp_items) from the stage sb. */
static void emit_lbp_inputs(const cg_scan_t *s, base_str_t *o, int tile) {
    uint32_t at = 0;
    for (uint32_t j = 0; j < s->n_nodes; j++) {
        const ir_node_t *n = node(s, j);
        if (n->op != IR_OP_INPUT) continue;
        char nm[16], where[48];
        snprintf(nm, sizeof nm, "lx%u", j);
        snprintf(where, sizeof where, "(sb + %u)", at);
        emit_lbp_items(o, nm, ty(n), (uint32_t)ir_dtypes[n->dtype].size, s->items, where, true);
        at += lbp_pad((uint32_t)tile * (uint32_t)ir_dtypes[n->dtype].size);
    }
}

/* LBP's float32 product: a thread's items, in order, from the stage (the prologue per item),
 * at indent `ind`: pass 0 folds them into its total a (lm_mx_mul), pass 1 takes its results
 * from its prefix c on (lm_mx_out; other brackets than the published prefixes', deterministic
 * too); fast: the branch-free steps (lm_mx_mulf, lm_mx_fine says whether they hold). */
static void emit_lbp_mx_loop(const cg_scan_t *s, base_str_t *o, int pass, bool fast,
                             const char *ind) {
    char in1[40], in2[40];
    snprintf(in1, sizeof in1, "%s    ", ind);
    snprintf(in2, sizeof in2, "%s        ", ind);
    base_str_printf(o,
                    "#pragma unroll\n"
                    "%sfor (int k = 0; k < %d; k++) {\n",
                    ind, s->items);
    if (fast) {
        emit_prologue(s, o, in1, NULL);
        base_str_printf(o, "%s    const float y = x;\n", ind);
    } else {
        base_str_printf(o, "%s    float y = 1.0f;\n%s    if (k < kn) {\n", ind, ind);
        emit_prologue(s, o, in2, NULL);
        base_str_printf(o, "%s        y = x;\n%s    }\n", ind, ind);
    }
    if (pass == 0)
        base_str_printf(o,
                        "%s    lm_mx_mul%s(a, g, y);\n"
                        "%s    if (k %% LM_MX_G == LM_MX_G - 1 || k == %d) lm_mx_norm%s(a, g);\n",
                        ind, fast ? "f" : "", ind, s->items - 1, fast ? "f" : "");
    else if (fast)
        base_str_printf(o,
                        "%s    c.m *= (double)y;\n"
                        "%s    const float f = (float)(c.m * sc);\n"
                        "%s    ry[k] = f;\n"
                        "%s    hi = fmaxf(hi, fabsf(f));\n"
                        "%s    if (k %% LM_MX_G == LM_MX_G - 1) { lm_mx_renormf(c); sc = "
                        "lm_mx_scale(c.e); }\n",
                        ind, ind, ind, ind, ind);
    else
        base_str_printf(o,
                        "%s    ry[k] = lm_mx_out(c.m, y, sc, big);\n"
                        "%s    if (k %% LM_MX_G == LM_MX_G - 1) { lm_mx_renorm(c); sc = "
                        "lm_mx_scale(c.e); }\n",
                        ind, ind);
    /* a 16-byte chunk of results (4 float32; items are 16 or 32), once whole, to its place
     * in the layout emit_lbp stores from */
    if (pass == 1)
        base_str_printf(o,
                        "%s    if (k %% 4 == 3) *(uint4 *)(%s + lm_so((unsigned)t * %uu + "
                        "(unsigned)(k / 4) * 16u)) = rry[k / 4];\n",
                        ind, s->res ? "rsb" : "sb", (uint32_t)s->items * 4u);
    base_str_printf(o, "%s}\n", ind);
}

/* LBP's float32 product, pass 0 or 1 (emit_lbp_mx_loop): the fast steps where the thread's
 * items are all in the line, then the exact ones again from the same start where they are
 * not, a factor or the start is 0, inf or NaN, the prefix is already past float32's range or
 * its exponent near saturation, or a result rounds to inf (the same bits either way: the fast
 * steps are the exact ones wherever they are kept). */
static void emit_lbp_mx(const cg_scan_t *s, base_str_t *o, int pass, int tile) {
    base_str_printf(o,
                    "            const int kn = nv - t * %d;\n"
                    "            bool fine = kn >= %d;\n",
                    s->items, s->items);
    if (pass == 1)
        base_str_cat(
            o,
            "            lm_mx c = tl > 0 ? (hp ? lm_multiply_mx(s_pre, pre) : s_pre)\n"
            "                             : hp ? pre : lm_mx_one();\n"
            "            win[t] = c; /* (the window is free until the next tile's look-back) */\n"
            "            double sc = lm_mx_scale(c.e);\n"
            "            fine = fine && !lm_mx_big(c) && lm_mx_fine(c.m) && c.e >= -(1 << 29) && "
            "c.e <= (1 << 29);\n");
    emit_lbp_inputs(s, o, tile);
    base_str_cat(o, "            if (fine) {\n");
    if (pass == 1) base_str_cat(o, "                float hi = 0.0f;\n");
    emit_lbp_mx_loop(s, o, pass, true, "                ");
    if (pass == 0)
        base_str_cat(o, "                fine = lm_mx_fine(a.m);\n"
                        "            }\n"
                        "            if (!fine) {\n"
                        "                a = lm_mx_one();\n"
                        "                g = 0.0;\n");
    else
        base_str_cat(o, "                fine = hi < __int_as_float(0x7f800000) && "
                        "lm_mx_fine(c.m);\n"
                        "            }\n"
                        "            if (!fine) {\n"
                        "                c = win[t];\n"
                        "                bool big = lm_mx_big(c);\n"
                        "                sc = lm_mx_scale(c.e);\n");
    emit_lbp_mx_loop(s, o, pass, false, "                ");
    base_str_cat(o, "            }\n");
}

/* LBP: a block a tile, in block order (the grid loops past its cap). The block copies the
 * tile's inputs into shared memory (cp.async), each thread reads its items with 16-byte reads,
 * computes the prologue per item, and writes its results in the same layout (over the input's
 * stage when one input of the result's width is all it reads), from which the block stores
 * coalesced. */
static void emit_lbp(const cg_scan_t *s, base_str_t *o) {
    const ir_node_t *sn = node(s, s->n_nodes - 1);
    loom_dtype_t d = (loom_dtype_t)sn->dtype;
    const char *T = acc_ty(s), *R = ty(sn), *op = scan_fn(s), *x = acc_sfx(s);
    int it = s->items, tile = LB_BLOCK * it;
    uint32_t es = (uint32_t)ir_dtypes[d].size;
    emit_identity(s, o);
    base_str_printf(o,
                    "    (void)os%d;\n"
                    "    enum { LX = 1 };\n"
                    "    __shared__ __align__(16) unsigned char stg[%u];\n",
                    s->axis, s->stage);
    if (s->res) base_str_printf(o, "    __shared__ __align__(16) unsigned char rsb[%u];\n", s->res);
    base_str_printf(o, "    __shared__ %s wtot[%d];\n", T, LB_BLOCK / 32);
    base_str_printf(o, "    __shared__ %s win[%d], s_agg, s_pre;\n", T, lb_win(s));
    base_str_printf(o, "    const LM_I tiles = (len + %d - 1) / %d, units = lines * tiles;\n", tile,
                    tile);
    emit_lb_status_decl(o);
    base_str_cat(o, "    const int t = threadIdx.x, lane = t & 31, wp = t >> 5;\n");
    /* the copy of tile u's inputs into stage sb */
    base_str_cat(o, "    auto issue = [&](LM_I u, unsigned char *sb) {\n");
    emit_lbp_tile_at(s, o, tile, true);
    uint32_t at = 0;
    for (uint32_t j = 0; j < s->n_nodes; j++) {
        if (node(s, j)->op != IR_OP_INPUT) continue;
        emit_stage_copy(s, o, "        ", j, at, tile, LB_BLOCK, true);
        at += lbp_pad((uint32_t)tile * (uint32_t)ir_dtypes[node(s, j)->dtype].size);
    }
    base_str_cat(o, "    };\n");
    /* tile u's inputs into L2 (prefetches: no registers held) */
    base_str_cat(o, "    auto pref = [&](LM_I u) {\n");
    emit_lbp_tile_at(s, o, tile, false);
    char tl[16];
    snprintf(tl, sizeof tl, "%d", tile);
    emit_l2_lines(s, o, "tb", tl, LB_BLOCK, true);
    base_str_cat(o, "    };\n");
    base_str_printf(o,
                    "    unsigned char *const sb = stg;\n"
                    "    if (ahead > 0 && blockIdx.x + ahead < units) pref(blockIdx.x + ahead);\n"
                    "    for (LM_I u = blockIdx.x; u < units; u += gridDim.x) {\n"
                    "        issue(u, sb);\n"
                    "        lm_cp_commit();\n"
                    "        lm_cp_wait<0>();\n"
                    "        __syncthreads();\n"
                    "        const LM_I l = u / tiles, tl = u - l * tiles, tb = tl * %d;\n"
                    "        const LM_I nv = len - tb < %d ? len - tb : %d;\n",
                    tile, tile, tile);
    emit_line_offsets(s, o, "        ", "l");
    for (uint32_t j = 0; j < s->n_nodes; j++)
        if (node(s, j)->op == IR_OP_INPUT) base_str_printf(o, "        (void)k%u;\n", j);
    /* a thread's items, in order, from the stage (the prologue per item): its total a, then,
     * with the tile's prefix, its results */
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 0 && s->mx)
            base_str_cat(o, "        lm_mx a = lm_mx_one();\n"
                            "        double g = 0.0;\n");
        else if (pass == 0)
            base_str_printf(o, "        %s a = ident;\n", T);
        base_str_cat(o, "        {\n");
        if (s->mx) {
            if (pass == 1) emit_lbp_items(o, "ry", R, es, it, NULL, false);
            emit_lbp_mx(s, o, pass, tile);
        } else {
            emit_lbp_inputs(s, o, tile);
            if (pass == 1) emit_lbp_items(o, "ry", R, es, it, NULL, false);
            base_str_printf(o,
                            "#pragma unroll\n"
                            "            for (int k = 0; k < %d; k++) {\n"
                            "                %s y = ident;\n"
                            "                if (t * %d + k < nv) {\n",
                            it, T, it);
            emit_prologue(s, o, "                    ", NULL);
            base_str_cat(o, "                    y = x;\n"
                            "                }\n");
            base_str_printf(o, "                a = k == 0 ? y : lm_%s_%s(a, y);\n", op, x);
            if (pass == 1)
                base_str_printf(o,
                                "                const %s z = hp ? lm_%s_%s(pre, a) : a;\n"
                                "                ry[k] = %s(tl > 0 ? lm_%s_%s(s_pre, z) : z);\n",
                                T, op, x, acc_out(s), op, x);
            base_str_cat(o, "            }\n");
        }
        if (pass == 1 && !s->mx) {
            uint32_t b = (uint32_t)it * es, cs = b < 16 ? b : 16;
            base_str_printf(o,
                            "#pragma unroll\n"
                            "            for (int h = 0; h < %u; h++) *(%s *)(%s + "
                            "lm_so((unsigned)t * %uu + (unsigned)h * %uu)) = rry[h];\n",
                            b / cs, chunk_type(cs), s->res ? "rsb" : "sb", b, cs);
        }
        base_str_cat(o, "        }\n");
        if (pass == 0) emit_lbp_prefix(s, o);
    }
    /* the block's coalesced stores of the tile's results */
    base_str_printf(o,
                    "        __syncthreads();\n"
                    "        {\n"
                    "            const unsigned char *rs = %s;\n"
                    "            %s *dst = out + ko + tb;\n"
                    "            if (nv == %d && ((unsigned long long)dst & 15) == 0) {\n"
                    "#pragma unroll\n"
                    "                for (int c = t; c < %u; c += %d) *(uint4 *)((unsigned char "
                    "*)dst + 16 * c) = *(const uint4 *)(rs + lm_so(16u * c));\n"
                    "            } else {\n"
                    "                for (int e = t; e < nv; e += %d) dst[e] = *(const %s *)(rs + "
                    "lm_so((unsigned)e * %uu));\n"
                    "            }\n"
                    "        }\n",
                    s->res ? "rsb" : "sb", R, tile, (uint32_t)tile * es / 16, LB_BLOCK, LB_BLOCK, R,
                    es);
    base_str_cat(o, "        __syncthreads();\n" /* the stage is the next tile's */
                    "    }\n");
}

/* COLS: a group's items of input node pin into pf: the first tile's (before the tile loop),
 * or the next tile's (inside it). */
static void emit_cols_fetch(const cg_scan_t *s, base_str_t *o, int pin, bool next) {
    const char *ind = next ? "            " : "        ";
    base_str_printf(o,
                    "#pragma unroll\n%sfor (int k = 0; k < %d; k++) {\n%s    const LM_I i = ", ind,
                    s->items, ind);
    if (next) base_str_printf(o, "tb + %d + ", COLS_G * s->items);
    base_str_printf(o,
                    "g * %d + k;\n"
                    "%s    if (i < len) pf[k] = in%d[k%d + i * t%d_%d];\n"
                    "%s}\n",
                    s->items, ind, pin, pin, pin, s->axis, ind);
}

/* COLS: 32 adjacent lines x COLS_G groups per block, tile by tile with a carry. Each result is
 * (the group's prefix op the thread's items in order); the group's prefix is the carry folded
 * with the earlier groups' totals in order, so a group's last result is the next one's prefix
 * and the tile's last the next tile's carry, exactly (float32 products: their results run
 * from the group's prefix one element a step). */
static void emit_cols(const cg_scan_t *s, base_str_t *o) {
    const char *T = acc_ty(s), *op = scan_fn(s), *x = acc_sfx(s);
    int it = s->items;
    /* float32 products of one input: the next tile's inputs are loaded while this tile's
     * groups fold and write (pf, registers), this tile's kept in shared memory for its
     * results (rs; a thread reads back only what it wrote) */
    int pin = -1, n_in = 0;
    for (uint32_t j = 0; j + 1 < s->n_nodes; j++)
        if (node(s, j)->op == IR_OP_INPUT) pin = (int)j, n_in++;
    const bool pf = s->mx && n_in == 1;
    emit_identity(s, o);
    if (pf)
        base_str_printf(o,
                        "    __shared__ float rs[%d][%d][32];\n"
                        "    enum { LX = 1 };\n",
                        it, COLS_G);
    base_str_printf(o,
                    "    __shared__ %s tot[%d][33], cw[32];\n"
                    "    const int lane = threadIdx.x, g = threadIdx.y;\n"
                    "    for (LM_I lb = (LM_I)blockIdx.x * 32; lb < lines; lb += (LM_I)gridDim.x * "
                    "32) {\n"
                    "        const bool valid = lb + lane < lines;\n"
                    "        const LM_I l = valid ? lb + lane : lines - 1;\n",
                    T, COLS_G);
    emit_line_offsets(s, o, "        ", "l");
    base_str_printf(o,
                    "        %s carry = ident;\n"
                    "        bool hc = false;\n",
                    T);
    if (pf) {
        const ir_node_t *in = node(s, (uint32_t)pin);
        base_str_printf(o,
                        "        %s pf[%d];\n"
                        "        const %s *const lx%d = pf;\n",
                        ty(in), it, ty(in), pin);
        emit_cols_fetch(s, o, pin, false);
    }
    base_str_printf(o, "        for (LM_I tb = 0; tb < len; tb += %d) {\n", COLS_G * it);
    if (pf)
        base_str_cat(o, "            lm_mx a = lm_mx_one();\n"
                        "            double gm = 0.0;\n");
    else if (s->mx)
        base_str_printf(o,
                        "            float r[%d];\n"
                        "            lm_mx a = lm_mx_one();\n"
                        "            double gm = 0.0;\n",
                        it);
    else
        base_str_printf(o, "            %s r[%d], a = ident;\n", T, it);
    base_str_printf(o,
                    "#pragma unroll\n"
                    "            for (int k = 0; k < %d; k++) {\n"
                    "                const LM_I i = tb + g * %d + k;\n"
                    "                %s y = %s;\n"
                    "                if (i < len) {\n",
                    it, it, s->mx ? "float" : T, s->mx ? "1.0f" : "ident");
    emit_prologue(s, o, "                    ", pf ? NULL : "k");
    /* r[k]: the group's prefixes in order; for float32 products the elements themselves, the
     * results then taken one element a step from the group's prefix (lm_mx_out) */
    base_str_cat(o, "                    y = x;\n"
                    "                }\n");
    if (pf)
        base_str_printf(o,
                        "                rs[k][g][lane] = y;\n"
                        "                lm_mx_mul(a, gm, y);\n"
                        "                if (k %% LM_MX_G == LM_MX_G - 1 || k == %d) lm_mx_norm(a, "
                        "gm);\n",
                        it - 1);
    else if (s->mx) /* (every load before the first product, whose renormalizing branches
                     * would otherwise hold the later loads back a memory latency) */
        base_str_printf(o,
                        "                r[k] = y;\n"
                        "            }\n"
                        "#pragma unroll\n"
                        "            for (int k = 0; k < %d; k++) {\n"
                        "                lm_mx_mul(a, gm, r[k]);\n"
                        "                if (k %% LM_MX_G == LM_MX_G - 1 || k == %d) lm_mx_norm(a, "
                        "gm);\n",
                        it, it - 1);
    else
        base_str_printf(o,
                        "                r[k] = k == 0 ? y : lm_%s_%s(r[k - 1], y);\n"
                        "                a = r[k];\n",
                        op, x);
    base_str_cat(o, "            }\n"
                    "            tot[g][lane] = a;\n"
                    "            __syncthreads();\n");
    if (pf) emit_cols_fetch(s, o, pin, true);
    /* float32 products: the groups' totals scanned in place (warp g takes lines 2g and 2g + 1,
     * a lane a group: four shuffle steps, fixed brackets), a group's prefix then the carry op
     * the earlier groups' scanned total, and the next carry the carry op the last one's. A
     * group's chain over every earlier total cost a third of the kernel's instructions. */
    if (s->mx)
        base_str_cat(o, "            {\n"
                        "                const int q = lane & 15, c2 = 2 * g + (lane >> 4);\n"
                        "                lm_mx v = tot[q][c2];\n"
                        "#pragma unroll\n"
                        "                for (int d = 1; d < 16; d <<= 1) {\n"
                        "                    lm_mx y;\n"
                        "                    y.m = __shfl_up_sync(0xffffffffu, v.m, d, 16);\n"
                        "                    y.mm = __shfl_up_sync(0xffffffffu, v.mm, d, 16);\n"
                        "                    y.e = __shfl_up_sync(0xffffffffu, v.e, d, 16);\n"
                        "                    y.em = __shfl_up_sync(0xffffffffu, v.em, d, 16);\n"
                        "                    if (q >= d) v = lm_multiply_mx(y, v);\n"
                        "                }\n"
                        "                tot[q][c2] = v;\n"
                        "            }\n"
                        "            __syncthreads();\n");
    base_str_printf(o,
                    "            %s pre = carry;\n"
                    "            bool hp = hc;\n",
                    T);
    /* the groups' prefixes (other types: each left-folds the earlier groups' totals, the same
     * brackets in every group), the last group's inclusive one the next tile's carry */
    if (s->mx)
        base_str_printf(
            o,
            "            if (g > 0) {\n"
            "                pre = hp ? lm_multiply_mx(carry, tot[g - 1][lane]) : tot[g - "
            "1][lane];\n"
            "                hp = true;\n"
            "            }\n"
            "            if (g == %d) cw[lane] = hc ? lm_multiply_mx(carry, tot[g][lane]) : "
            "tot[g][lane];\n",
            COLS_G - 1);
    else
        base_str_printf(o,
                        "            for (int j = 0; j < g; j++) { pre = hp ? lm_%s_%s(pre, "
                        "tot[j][lane]) : tot[j][lane]; hp = true; }\n"
                        "            if (g == %d) cw[lane] = hp ? lm_%s_%s(pre, tot[g][lane]) : "
                        "tot[g][lane];\n",
                        op, x, COLS_G - 1, op, x);
    base_str_printf(o, "            %s c = pre;\n", T);
    if (s->mx)
        base_str_cat(o, "            if (!hp) c = lm_mx_one();\n"
                        "            bool big = lm_mx_big(c);\n"
                        "            double sc = lm_mx_scale(c.e);\n");
    base_str_printf(o,
                    "#pragma unroll\n"
                    "            for (int k = 0; k < %d; k++) {\n"
                    "                const LM_I i = tb + g * %d + k;\n",
                    it, it);
    if (s->mx)
        base_str_printf(o,
                        "                const float v = lm_mx_out(c.m, %s, sc, big);\n"
                        "                if (valid && i < len) out[ko + i * os%d] = v;\n"
                        "                if (k %% LM_MX_G == LM_MX_G - 1) { lm_mx_renorm(c); sc = "
                        "lm_mx_scale(c.e); }\n",
                        pf ? "rs[k][g][lane]" : "r[k]", s->axis);
    else
        base_str_printf(o,
                        "                c = hp ? lm_%s_%s(pre, r[k]) : r[k];\n"
                        "                if (valid && i < len) out[ko + i * os%d] = c;\n",
                        op, x, s->axis);
    base_str_cat(o, "            }\n"
                    "            __syncthreads();\n"
                    "            carry = cw[lane];\n"
                    "            hc = true;\n"
                    "        }\n"
                    "    }\n");
}

/* SEL's and SELP's tile from the kept flags ms[k] and the values (`value`: SEL's registers or
 * SELP's staged input): the warps' counts round by round (their ballots kept in shared
 * memory); warp 0 scans them (E a lane) and publishes the tile's count, then looks back 32
 * tiles at a time (a lane each, nearest first) and sums the counts up to the nearest inclusive
 * one while the other warps wait at the barrier (a block-wide look-back of 256 tiles a step
 * kept every warp spinning: slower); the last tile writes the total; the kept values are
 * stored from their places, each warp's round to consecutive ones. Status words: the tile's
 * kept count with AGG (its own) or INC (all up to it) in the top bits, one 64-bit word, so no
 * fence orders a value and its flag. */
static void emit_sel_tile(const cg_scan_t *s, base_str_t *o, const char *before_store,
                          const char *at_store, const char *value) {
    const ir_node_t *sn = node(s, s->n_nodes - 1);
    int w = SEL_BLOCK / 32, e = s->items * w / 32;
    bool bits = sn->dtype == LOOM_DTYPE_BOOL; /* the count a bool per bit (ir_compress_tail) */
    base_str_printf(
        o,
        "#pragma unroll\n"
        "        for (int k = 0; k < IT; k++) {\n"
        "            const unsigned b = __ballot_sync(0xffffffffu, ms[k]);\n"
        "            if (lane == 0) wc[k * %d + wp] = __popc(b), wb[k * %d + wp] = b;\n"
        "        }\n"
        "        __syncthreads();\n"
        "        if (wp == 0) {\n"
        "            unsigned cv[%d], sum = 0;\n"
        "#pragma unroll\n"
        "            for (int q = 0; q < %d; q++) sum += cv[q] = wc[lane * %d + q];\n"
        "            unsigned inc = sum;\n"
        "#pragma unroll\n"
        "            for (int d = 1; d < 32; d <<= 1) {\n"
        "                const unsigned y = __shfl_up_sync(0xffffffffu, inc, d);\n"
        "                if (lane >= d) inc += y;\n"
        "            }\n"
        "            unsigned ex = inc - sum;\n"
        "#pragma unroll\n"
        "            for (int q = 0; q < %d; q++) wc[lane * %d + q] = ex, ex += cv[q];\n"
        "            if (lane == 31) {\n"
        "                s_tot = inc;\n"
        "                lm_st_relaxed(&stat[u], (u == 0 ? INC : AGG) | inc);\n"
        "            }\n"
        "        }\n"
        "        __syncthreads();\n"
        "        const unsigned long long total = s_tot;\n"
        "        unsigned long long pre = 0;\n"
        "        if (u > 0) {\n"
        "            if (wp == 0) {\n"
        "                unsigned long long acc = 0;\n"
        "                for (LM_I w = u;; w -= 32) {\n"
        "                    const LM_I j = w - 1 - lane;\n"
        "                    unsigned long long f = 0;\n"
        "                    if (j >= 0)\n"
        "                        while (((f = lm_ld_relaxed(&stat[j])) >> 62) == 0u) { }\n"
        "                    const unsigned m = __ballot_sync(0xffffffffu, (f >> 62) == 2u);\n"
        "                    const int stop = m ? __ffs(m) - 1 : 31;\n"
        "                    unsigned long long c = lane <= stop ? f & VAL : 0;\n"
        "#pragma unroll\n"
        "                    for (int d = 16; d > 0; d >>= 1) c += __shfl_xor_sync(0xffffffffu, c, "
        "d);\n"
        "                    acc += c;\n"
        "                    if (m) break;\n"
        "                }\n"
        "                if (lane == 0) { s_pre = acc; lm_st_relaxed(&stat[u], INC | (acc + "
        "total)); "
        "}\n"
        "            }\n"
        "            __syncthreads();\n"
        "            pre = s_pre;\n"
        "        }\n"
        "        if (t == 0 && u == tiles - 1) { /* the count after the n elements "
        "(ir_compress_tail) */\n"
        "            unsigned char *cb = (unsigned char *)(out + len);\n"
        "#pragma unroll\n"
        "            for (int b = 0; b < %d; b++) cb[b] = (unsigned char)((pre + total) >> (%d * "
        "b)%s);\n"
        "        }\n"
        "%s"
        "#pragma unroll\n"
        "        for (int k = 0; k < IT; k++) {\n"
        "            const unsigned b = wb[k * %d + wp];\n"
        "            if ((b >> lane) & 1u) {\n"
        "%s"
        "                out[pre + wc[k * %d + wp] + __popc(b & below)] = %s;\n"
        "            }\n"
        "        }\n",
        w, w, e, e, e, e, e, bits ? 64 : 8, bits ? 1 : 8, bits ? " & 1u" : "", before_store, w,
        at_store, w, value);
}

/* SEL's and SELP's declarations. */
static void emit_sel_open(const cg_scan_t *s, base_str_t *o) {
    int w = SEL_BLOCK / 32;
    base_str_printf(o,
                    "    enum { IT = %d, TILE = %d * IT };\n"
                    "    const unsigned long long AGG = 1ull << 62, INC = 2ull << 62, VAL = AGG - "
                    "1;\n"
                    "    const LM_I tiles = len > 0 ? (len + TILE - 1) / TILE : 1;\n"
                    "    unsigned long long *stat = (unsigned long long *)(scr + 16);\n"
                    "    __shared__ unsigned wc[IT * %d], wb[IT * %d];\n"
                    "    __shared__ unsigned long long s_tot, s_pre;\n"
                    "    const int t = threadIdx.x, lane = t & 31, wp = t >> 5;\n"
                    "    const unsigned below = (1u << lane) - 1u;\n"
                    "    (void)lines;\n", /* one line */
                    s->items, SEL_BLOCK, w, w);
    for (int ax = 0; ax < s->nd; ax++) base_str_printf(o, "    (void)os%d;\n", ax);
}

/* SEL: a tile per ticket, until none is left; a block first prefetches into L2 the tile `ahead`
 * tickets on (SEL_AHEAD waves of one block an SM: it is about to be taken when its lines
 * arrive), loads its tile's operands into registers and computes the flags and values. */
static void emit_sel(const cg_scan_t *s, base_str_t *o) {
    const ir_node_t *sn = node(s, s->n_nodes - 1);
    uint32_t mk = pos(s, sn->src[0]), vl = pos(s, sn->src[1]);
    emit_sel_open(s, o);
    base_str_cat(o, "    unsigned long long *tick = (unsigned long long *)scr;\n"
                    "    __shared__ LM_I s_u;\n");
    for (uint32_t j = 0; j < s->n_nodes; j++) /* the inputs' offsets: the line starts at 0 */
        if (node(s, j)->op == IR_OP_INPUT) base_str_printf(o, "    const LM_I k%u = 0;\n", j);
    base_str_t pf; /* the prefetches of each input */
    base_str_init(&pf, o->al);
    for (uint32_t j = 0; j < s->n_nodes; j++)
        if (node(s, j)->op == IR_OP_INPUT)
            base_str_printf(&pf,
                            "                    asm volatile(\"prefetch.global.L2 [%%0];\" :: "
                            "\"l\"(in%u + k%u + i * t%u_0));\n",
                            j, j, j);
    base_str_printf(o,
                    "    for (;;) {\n"
                    "        if (t == 0) s_u = (LM_I)atomicAdd(tick, 1ull);\n"
                    "        __syncthreads();\n"
                    "        const LM_I u = s_u, tb = u * TILE;\n"
                    "        if (u >= tiles) break;\n"
                    "        if (u + ahead < tiles) { /* tile u + ahead's operands into L2 */\n"
                    "            const LM_I pb = (u + ahead) * TILE;\n"
                    "#pragma unroll\n"
                    "            for (int k = 0; k < IT; k++) {\n"
                    "                const LM_I i = pb + k * %d + t;\n"
                    "                if (i < len) {\n"
                    "%s"
                    "                }\n"
                    "            }\n"
                    "        }\n"
                    "        %s xs[IT];\n"
                    "        bool ms[IT];\n"
                    "        if (tb + TILE <= len) {\n"
                    "#pragma unroll\n"
                    "            for (int k = 0; k < IT; k++) {\n"
                    "                const LM_I i = tb + k * %d + t;\n",
                    SEL_BLOCK, base_str_get(&pf), ty(sn), SEL_BLOCK);
    base_str_fini(&pf);
    emit_prologue_nodes(s, o, "                ", "k");
    base_str_printf(o,
                    "                ms[k] = v%u != 0;\n"
                    "                xs[k] = v%u;\n"
                    "            }\n"
                    "        } else {\n"
                    "#pragma unroll\n"
                    "            for (int k = 0; k < IT; k++) {\n"
                    "                const LM_I i = tb + k * %d + t;\n"
                    "                ms[k] = false;\n"
                    "                if (i < len) {\n",
                    mk, vl, SEL_BLOCK);
    emit_prologue_nodes(s, o, "                    ", "k");
    base_str_printf(o,
                    "                    ms[k] = v%u != 0;\n"
                    "                    xs[k] = v%u;\n"
                    "                }\n"
                    "            }\n"
                    "        }\n",
                    mk, vl);
    emit_sel_tile(s, o, "", "", "xs[k]");
    base_str_cat(o, "        __syncthreads();\n"
                    "    }\n");
}

/* SELP's byte offset of input j's part of a stage. */
static uint32_t selp_at(const cg_scan_t *s, uint32_t upto) {
    uint32_t at = 0;
    for (uint32_t j = 0; j < upto; j++)
        if (node(s, j)->op == IR_OP_INPUT)
            at += (uint32_t)(SEL_BLOCK * s->items) * (uint32_t)ir_dtypes[node(s, j)->dtype].size;
    return at;
}

/* SELP: SEL's tiles, a block each in block order (as LB's; no ticket, so the copies start at
 * once), whose inputs the block copies into shared memory (cp.async, as LBP) and reads from
 * there: a block holds no operands in registers, so a multiprocessor holds six blocks of
 * twice SEL's tile (8192 elements of 4 bytes) where SEL's registers allow four, and while some
 * wait on their predecessors the others' copies are in flight. Thread t's item k is element
 * k * SEL_BLOCK + t of the tile, as in SEL. The tile `ahead` on (a sixth of the L2's bytes
 * ahead: further, the prefetched lines are evicted before their block reads them) goes into
 * L2 while this one's copies are in flight, so that DRAM stays busy through the blocks'
 * look-backs and stores. */
static void emit_selp(const cg_scan_t *s, base_str_t *o) {
    const ir_node_t *sn = node(s, s->n_nodes - 1);
    uint32_t mk = pos(s, sn->src[0]), vl = pos(s, sn->src[1]);
    emit_sel_open(s, o);
    base_str_printf(o,
                    "    enum { LX = %d };\n"
                    "    __shared__ __align__(16) unsigned char sb[%u];\n"
                    "    const LM_I u = (LM_I)blockIdx.x, tb = u * TILE;\n"
                    "    const LM_I nv = len - tb < TILE ? len - tb : TILE;\n",
                    SEL_BLOCK, s->stage);
    /* The mask's inputs are copied first, in a group of their own: the tile's count needs
     * only them, so it is published (and the look-back runs) while the other inputs are
     * still on their way. A mask computed from the values (`x[x > 0]`) has no other group. */
    bool *m_under = nodes_under(s, mk), split = false;
    for (int grp = 0; grp < 2; grp++) {
        for (uint32_t j = 0; j < s->n_nodes; j++)
            if (node(s, j)->op == IR_OP_INPUT && (!m_under || m_under[j]) == !grp) {
                emit_stage_copy(s, o, "    ", j, selp_at(s, j), SEL_BLOCK * s->items, SEL_BLOCK,
                                false);
                split |= grp == 1;
            }
        if (grp == 0 || split) base_str_cat(o, "    lm_cp_commit();\n");
    }
    free(m_under);
    /* the tile `ahead` blocks on into L2 */
    base_str_cat(o, "    if (ahead > 0 && u + ahead < tiles) {\n"
                    "        const LM_I pb = (u + ahead) * TILE;\n");
    emit_l2_lines(s, o, "pb", "TILE", SEL_BLOCK, false);
    base_str_cat(o, "    }\n");
    base_str_printf(o,
                    "    lm_cp_wait<%d>();\n"
                    "    __syncthreads();\n"
                    "    {\n",
                    split ? 1 : 0);
    for (uint32_t j = 0; j < s->n_nodes; j++)
        if (node(s, j)->op == IR_OP_INPUT)
            base_str_printf(o, "        const %s *lx%u = (const %s *)(sb + %u) + t;\n",
                            ty(node(s, j)), j, ty(node(s, j)), selp_at(s, j));
    /* The value is computed again from the stage where it is stored: held in registers from
     * the count to the store, 32 computed values a thread spilled. */
    bool from_stage = node(s, vl)->op == IR_OP_INPUT && node(s, vl)->dtype == sn->dtype;
    base_str_cat(o, "        bool ms[IT];\n"
                    "#pragma unroll\n"
                    "        for (int k = 0; k < IT; k++) {\n"
                    "            ms[k] = false;\n"
                    "            if (tb + k * LX + t < len) {\n");
    /* the mask's nodes alone (NULL, out of memory: every node, the rest left unused) */
    bool *under = nodes_under(s, mk);
    emit_prologue_of(s, o, "                ", NULL, under);
    free(under);
    base_str_printf(o, "                ms[k] = v%u != 0;\n", mk);
    base_str_cat(o, "            }\n"
                    "        }\n");
    base_str_t at;
    base_str_init(&at, o->al);
    if (!from_stage) { /* the value's nodes alone */
        under = nodes_under(s, vl);
        emit_prologue_of(s, &at, "                ", NULL, under);
        free(under);
    }
    char value[32];
    snprintf(value, sizeof value, from_stage ? "lx%u[k * LX]" : "v%u", vl);
    emit_sel_tile(s, o, split ? "        lm_cp_wait<0>();\n        __syncthreads();\n" : "",
                  base_str_get(&at), value);
    base_str_fini(&at);
    base_str_cat(o, "    }\n");
}

void cg_scan_source(const cg_scan_t *s, base_str_t *out, char *name) {
    base_hash128_t key = cg_scan_key(s);
    snprintf(name, 40, "loom_sc_%016llx", (unsigned long long)key.lo);
    base_str_t body;
    base_str_init(&body, out->al);
    base_str_t *o = &body;
    cg__emit_kernel_open(o, name, s->idx64, cg_scan_n_params(s));
    if (s->mx) emit_mx(s, o);
    if (lb_like(s)) emit_lb_helpers(o);
    if (s->mode == M_LBP || s->mode == M_SELP) emit_lbp_helpers(o);
    if (sel_like(s)) emit_relaxed_u64(o);
    int threads = (int)block_threads(s);
    int resident = s->mode == M_LBP             ? (s->mx ? LBP_RESIDENT - 1 : LBP_RESIDENT)
                   : lb_like(s)                 ? LB_RESIDENT
                   : s->mode == M_SEL           ? SEL_RESIDENT
                   : s->mode == M_SELP          ? selp_resident(s)
                   : s->mode == M_COLS && s->mx ? 2 /* (as the sums' 56 registers allow) */
                                                : 1;
    base_str_printf(o,
                    "extern \"C\" __global__ void __launch_bounds__(%d, %d) %s(const lm_params_%s "
                    "P) {\n",
                    threads, resident, name, name);
    uint32_t w = 2;
    base_str_cat(o, "    const LM_I lines = (LM_I)P.w[0];\n    const LM_I len = (LM_I)P.w[1];\n");
    for (int ax = 0; ax < s->nd; ax++)
        base_str_printf(o, "    const LM_I e%d = (LM_I)P.w[%u];\n    (void)e%d;\n", ax, w++, ax);
    for (int ax = 0; ax < s->nd; ax++)
        base_str_printf(o, "    const LM_I os%d = (LM_I)P.w[%u];\n", ax, w++);
    for (uint32_t j = 0; j < s->n_nodes; j++) {
        const ir_node_t *n = node(s, j);
        if (n->op == IR_OP_INPUT) {
            base_str_printf(o, "    const %s *__restrict__ in%u = (const %s *)P.w[%u];\n", ty(n), j,
                            ty(n), w++);
            for (int ax = 0; ax < s->nd; ax++)
                base_str_printf(o, "    const LM_I t%u_%d = (LM_I)(lm_i64)P.w[%u];\n", j, ax, w++);
        } else if (n->op == IR_OP_CONST) {
            base_str_printf(o, "    const %s v%u = lm_word_%s(P.w[%u]);\n", ty(n), j,
                            sfx((loom_dtype_t)n->dtype), w++);
        }
    }
    const ir_node_t *sn = node(s, s->n_nodes - 1);
    base_str_printf(o, "    %s *__restrict__ out = (%s *)P.w[%u];\n", ty(sn), ty(sn), w++);
    if (has_scratch(s))
        base_str_printf(o,
                        "    unsigned char *__restrict__ scr = (unsigned char *)P.w[%u];\n"
                        "    const LM_I ahead = (LM_I)P.w[%u];\n",
                        w, w + 1);
    switch (s->mode) {
        case M_LB:
            emit_lb(s, o);
            break;
        case M_LBP:
            emit_lbp(s, o);
            break;
        case M_COLS:
            emit_cols(s, o);
            break;
        case M_SEL:
            emit_sel(s, o);
            break;
        case M_SELP:
            emit_selp(s, o);
            break;
        case M_TILE:
            emit_tiled(s, o);
            break;
        default:
            emit_lines(s, o);
    }
    base_str_cat(o, "}\n");
    cg__emit_finish(out, &body);
}
