/* reduce_plan.c — describes a reduction step (reduce.h): from the step graph and the shape
 * alone, which nodes run in which pass and space, how outputs map to threads and blocks,
 * whether and how reductions split, what stays in registers, the vector and index widths.
 * Deterministic: the same graph, shapes and alignments give the same description. */
#include <string.h>

#include "reduce.h"

/* exp ... arctanh, power, arctan2, hypot, cbrt: evaluated by multi-instruction sequences */
static bool transcendental(ir_op_t op) {
    return (op >= IR_OP_EXP && op <= IR_OP_ARCTANH) || op == IR_OP_POWER ||
           op == IR_OP_ARCTAN2 || op == IR_OP_HYPOT || op == IR_OP_CBRT;
}

uint32_t cg_reduce_online_max(const ir_graph_t *g, uint32_t sum) {
    const ir_node_t *sn = &g->nodes[sum];
    if (sn->op != IR_OP_SUM) return NO_NODE;
    const ir_node_t *e = &g->nodes[sn->src[0]];
    if (e->op != IR_OP_EXP) return NO_NODE;
    const ir_node_t *d = &g->nodes[e->src[0]];
    if (d->op != IR_OP_SUBTRACT) return NO_NODE;
    uint32_t mx = d->src[1];
    const ir_node_t *m = &g->nodes[mx];
    if (m->op != IR_OP_MAX || !m->p.keepdims || m->p.axes != sn->p.axes || m->src[0] != d->src[0])
        return NO_NODE;
    uint8_t t = g->nodes[d->src[0]].dtype;
    if (t != LOOM_DTYPE_F16 && t != LOOM_DTYPE_BF16 && t != LOOM_DTYPE_F32 && t != LOOM_DTYPE_F64)
        return NO_NODE;
    if (m->dtype != t || d->dtype != t || e->dtype != t || sn->dtype != t) return NO_NODE;
    return mx;
}

/* ---- Strategy from the shape alone ---- */

/* Whether a step of n_out outputs reducing count elements each splits across blocks. */
static bool splits(int64_t n_out, int64_t count, bool inner_kept, int sm_count) {
    if (n_out == 0 || count == 0) return false;
    if (inner_kept) return count >= SPLIT_COL_MIN && n_out < (int64_t)cg__sms(sm_count) * 1024;
    return count >= SPLIT_ROW_MIN && n_out < 2 * (int64_t)cg__sms(sm_count);
}

/* Outputs, reduced count and whether the innermost non-unit axis is kept, of X over axes. */
static void shape_class(int ndim, const int64_t *x_shape, uint32_t axes, int64_t *n_out_,
                        int64_t *count_, bool *inner_kept_) {
    int64_t n_out = 1, count = 1;
    bool inner_kept = false, seen = false;
    for (int ax = ndim - 1; ax >= 0; ax--) {
        bool red = (axes >> ax) & 1u;
        if (red)
            count *= x_shape[ax];
        else
            n_out *= x_shape[ax];
        if (!seen && x_shape[ax] != 1) {
            inner_kept = !red;
            seen = true;
        }
    }
    *n_out_ = n_out;
    *count_ = count;
    *inner_kept_ = inner_kept;
}

bool cg_reduce_can_stage(int ndim, const int64_t *x_shape, uint32_t axes, int sm_count) {
    int64_t n_out, count;
    bool inner_kept;
    shape_class(ndim, x_shape, axes, &n_out, &count, &inner_kept);
    return !splits(n_out, count, inner_kept, sm_count);
}

bool cg_reduce_can_online(int ndim, const int64_t *x_shape, uint32_t axes, int sm_count) {
    int64_t n_out, count;
    bool inner_kept;
    shape_class(ndim, x_shape, axes, &n_out, &count, &inner_kept);
    return !inner_kept && splits(n_out, count, inner_kept, sm_count);
}

/* Which nodes each pass computes, and which it reads back from registers (cache set). */
static void plan_passes(cg_reduce_t *r, const uint8_t *cand) {
    uint32_t nn = r->n_nodes;
    memset(r->need, 0, (size_t)r->n_passes * nn);
    for (int p = 0; p < r->n_passes; p++) {
        uint8_t *need = r->need + (size_t)p * nn;
        for (uint32_t j = 0; j < nn; j++)
            if (is_reduce(node(r, j)) && fin(r, j) == p) need[pos(r, node(r, j)->src[0])] = 1;
        for (uint32_t i = 0; i < r->n_outs; i++)
            if (r->xout[i] && xpass(r, i) == p) need[pos(r, r->outs[i])] = 1;
        for (uint32_t j = nn; j-- > 0;) {
            const ir_node_t *n = node(r, j);
            if (!need[j] || r->space[j] != SP_X || is_reduce(n)) continue;
            bool earlier = false;
            for (int q = 0; q < p && cand; q++) earlier = earlier || r->need[(size_t)q * nn + j];
            if (cand && cand[j] && earlier) {
                need[j] = 2;
                continue;
            }
            for (int s = 0; s < ir_ops[n->op].arity; s++) {
                uint32_t o = pos(r, n->src[s]);
                if (r->space[o] == SP_X && !need[o]) need[o] = 1;
            }
        }
    }
    memset(r->cached, 0, nn);
    for (uint32_t j = 0; j < nn; j++)
        for (int p = 0; p < r->n_passes; p++)
            if (r->need[(size_t)p * nn + j] == 2)
                for (int q = 0; q < p; q++)
                    if (r->need[(size_t)q * nn + j] == 1 && !r->cached[j])
                        r->cached[j] = (uint8_t)(q + 1);
}

/* Registers (4-byte) that the values plan_passes caches from candidates cand take per thread
 * at `items` vector steps each; INT32_MAX where it caches none. */
static int cached_regs(cg_reduce_t *r, const uint8_t *cand, int items) {
    plan_passes(r, cand);
    int regs = 0, n = 0;
    for (uint32_t j = 0; j < r->n_nodes; j++)
        if (r->cached[j]) {
            n++;
            regs += items * r->vec * (int)((ir_dtypes[node(r, j)->dtype].size + 3) / 4);
        }
    return n ? regs : INT32_MAX;
}

/* ---- cg_reduce_init's phases, in the order it runs them ---- */

/* The step's outputs and kernel nodes, and the per-node arrays the later phases fill in. */
static bool collect_nodes(cg_reduce_t *r, const ir_graph_t *g, base_arena_t *ar,
                          const uint32_t *outs, uint32_t n_outs) {
    r->g = g;
    r->outs = base_arena_alloc(ar, n_outs, sizeof *r->outs);
    r->xout = base_arena_alloc(ar, n_outs, 1);
    if (!r->outs || !r->xout) return false;
    memcpy(r->outs, outs, n_outs * sizeof *outs);
    r->n_outs = n_outs;
    r->nodes = cg__collect(g, ar, outs, n_outs, &r->n_nodes);
    if (!r->nodes) return false;
    uint32_t nn = r->n_nodes;
    r->space = base_arena_alloc(ar, nn, 1);
    r->stage = base_arena_alloc(ar, nn, 1);
    r->cached = base_arena_alloc(ar, nn, 1);
    r->strides = base_arena_alloc(ar, nn, sizeof *r->strides);
    return r->space && r->stage && r->cached && r->strides;
}

/* X (the reductions' operand) and the reduced axes: from the first REDUCE node (all share
 * them). */
static const ir_node_t *reduced_operand(const cg_reduce_t *r, uint32_t *axes) {
    const ir_node_t *x = &r->g->nodes[r->outs[0]];
    *axes = 0;
    for (uint32_t j = 0; j < r->n_nodes; j++)
        if (is_reduce(node(r, j))) {
            x = &r->g->nodes[node(r, j)->src[0]];
            *axes = node(r, j)->p.axes;
            break;
        }
    return x;
}

/* Each node's space (per element of X, or per output) and stage; which outputs are written
 * over X; the number of passes. */
static void classify_nodes(cg_reduce_t *r, const ir_node_t *x, uint32_t axes) {
    const ir_graph_t *g = r->g;
    int xnd = x->ndim;
    const int64_t *xs = x->shape;
    int64_t count = 1;
    for (int ax = 0; ax < xnd; ax++)
        if ((axes >> ax) & 1u) count *= xs[ax];
    int64_t full[LOOM_MAX_DIMS];
    for (uint32_t j = 0; j < r->n_nodes; j++) {
        const ir_node_t *n = node(r, j);
        uint8_t sp = SP_Y, st = 0;
        if (cg__strided(n)) { /* INPUT or generator */
            cg__leaf_strides(g, n, xnd, xs, full);
            for (int ax = 0; ax < xnd; ax++)
                if (((axes >> ax) & 1u) && xs[ax] != 1 && full[ax] != 0) sp = SP_X;
        }
        for (int s = 0; s < ir_ops[n->op].arity; s++) {
            uint32_t o = pos(r, n->src[s]);
            if (r->space[o] == SP_X && !is_reduce(n)) sp = SP_X;
            if (r->stage[o] > st) st = r->stage[o];
        }
        if (is_reduce(n)) {
            sp = SP_Y;
            st++;
            if (st > r->n_stages) r->n_stages = st;
        }
        r->space[j] = sp;
        r->stage[j] = st;
    }
    bool final_pass = false;
    for (uint32_t i = 0; i < r->n_outs; i++) {
        const ir_node_t *o = &g->nodes[r->outs[i]];
        bool same = o->ndim == xnd && !memcmp(o->shape, xs, (size_t)xnd * sizeof *xs);
        r->xout[i] = same && count != 1;
        uint32_t j = pos(r, r->outs[i]);
        if (r->xout[i] && r->stage[j] == r->n_stages) final_pass = true;
    }
    r->n_passes = r->n_stages + final_pass;
}

/* The collapsed space: reduced and kept axes never merged together (outputs are
 * contiguous); its contiguous strides, the outputs and the elements each reduces. */
static void collapse_space(cg_reduce_t *r, const ir_node_t *x, uint32_t axes) {
    r->red = axes;
    r->nd = cg__collapse(r->g, r->nodes, r->n_nodes, x, 0, &r->red, r->shape, r->strides);
    r->n_out = 1;
    r->count = 1;
    int64_t s = 1;
    for (int ax = r->nd - 1; ax >= 0; ax--) {
        r->xstr[ax] = s;
        s *= r->shape[ax];
        if ((r->red >> ax) & 1u)
            r->count *= r->shape[ax];
        else
            r->n_out *= r->shape[ax];
    }
}

/* Whether the step splits its reductions across blocks; an online split (softmax) where it
 * can. */
static bool choose_split(cg_reduce_t *r, int sm_count) {
    int nd = r->nd;
    bool inner_kept = nd > 0 && !((r->red >> (nd - 1)) & 1u);
    bool late_xout = false; /* an X output that needs a reduction: no split */
    for (uint32_t i = 0; i < r->n_outs; i++)
        if (r->xout[i] && r->stage[pos(r, r->outs[i])] > 0) late_xout = true;
    bool split = splits(r->n_out, r->count, inner_kept, sm_count) && r->n_stages == 1 && !late_xout;
    /* A split softmax runs online: two stages, every second-stage reduction the sum of
     * exp(a - m) for a max m = max(a) of the first stage (at most one sum per max). */
    if (!inner_kept && nd > 0 && r->n_stages == 2 &&
        splits(r->n_out, r->count, inner_kept, sm_count)) {
        r->online = true;
        bool ok = true;
        for (uint32_t j = 0; j < r->n_nodes; j++) {
            if (!is_reduce(node(r, j)) || r->stage[j] != 2) continue;
            uint32_t m = online_max(r, j);
            ok = ok && m != NO_NODE && r->stage[m] == 1 && online_sum(r, m) == j;
        }
        r->online = ok;
        if (ok) {
            split = true;
            r->n_passes = 3; /* pass 0: kernel 0; pass 1: empty; pass 2: kernel 1's X outputs */
        }
    }
    return split;
}

/* The vector width: 16-byte vectors along a single innermost reduced axis, where every
 * per-element input is contiguous and aligned along it and rows start aligned; else 1. */
static int vector_width(const cg_reduce_t *r, const uint64_t *input_addr) {
    int nd = r->nd;
    if (r->group <= 1 || __builtin_popcount(r->red) != 1 || !((r->red >> (nd - 1)) & 1u)) return 1;
    size_t widest = 1;
    bool ok = true, any = false;
    for (uint32_t j = 0; j < r->n_nodes; j++) {
        const ir_node_t *n = node(r, j);
        if (n->op == IR_OP_LOAD && r->space[j] == SP_X) return 1; /* gathers read elements */
        if (n->op != IR_OP_INPUT || r->space[j] != SP_X) continue;
        size_t sz = ir_dtypes[n->dtype].size;
        uint64_t addr = (input_addr ? input_addr[n->input] : 0) +
                        (uint64_t)(r->g->inputs[n->input].offset * (int64_t)sz);
        ok = ok && r->strides[j][nd - 1] == 1 && addr % 16 == 0;
        for (int ax = 0; ax < nd - 1; ax++) ok = ok && (r->strides[j][ax] * (int64_t)sz) % 16 == 0;
        if (sz > widest) widest = sz;
        any = true;
    }
    for (uint32_t i = 0; i < r->n_outs; i++)
        if (r->xout[i]) {
            size_t sz = ir_dtypes[r->g->nodes[r->outs[i]].dtype].size;
            if (sz > widest) widest = sz;
        }
    int v = (int)(16 / widest);
    while (v > 1 && r->count % v) v /= 2; /* narrower vectors where rows are not a multiple */
    return ok && any && v > 1 ? v : 1;
}

/* Threads per output (group) and per block, and the vector width. */
static void choose_threads(cg_reduce_t *r, bool split, const uint64_t *input_addr) {
    int nd = r->nd;
    bool inner_kept = nd > 0 && !((r->red >> (nd - 1)) & 1u);
    r->chunks = 1;
    if (r->n_out == 0 || r->count == 0 || inner_kept || nd == 0) {
        r->group = 1;
        r->block = r->n_out < 256 && split ? (int)((r->n_out + 31) / 32 * 32) : 256;
    } else if (r->count <= WARP_ROW_MAX && (r->n_passes < 2 || r->count <= 256)) {
        /* (staged rows over 256 take a block, whose threads hold few enough values each to
         * keep them in registers between passes) */
        r->group = 32;
        r->block = 256;
    } else {
        r->block = r->count <= 4096 ? 256 : r->count <= 8192 ? 512 : 1024;
        /* online splits stream their chunks: 256 threads (4 blocks per multiprocessor) ran
         * 64 x 1M softmax in 222 us, 512 in 225, 1024 in 256-354 (H200, bench_reduce) */
        if (r->online) r->block = ONLINE_BLOCK;
        r->group = r->block;
    }
    r->vec = vector_width(r, input_addr);
    int64_t nvec = r->count / r->vec;
    if (r->group == 32) /* short rows: the smallest group with a vector step per thread */
        while (r->group > 1 && r->group / 2 >= nvec) r->group /= 2;
}

/* Split steps: chunks per output and their length; fused online splits (one kernel of
 * tickets) where the final pass writes X outputs. */
static void lay_out_chunks(cg_reduce_t *r, int sm_count) {
    int64_t nvec = r->count / r->vec;
    int64_t want, cap;
    if (r->group == 1) {
        want = ((int64_t)cg__sms(sm_count) * 2048 + r->n_out - 1) / r->n_out;
        cap = r->count / SPLIT_COL_CHUNK;
    } else {
        want = (4 * (int64_t)cg__sms(sm_count) + r->n_out - 1) / r->n_out;
        cap = r->count / SPLIT_ROW_CHUNK;
    }
    if (r->online) /* both kernels stream the row: many blocks, few waves' tail */
        want = ((int64_t)SPLIT_ONLINE_BLOCKS * cg__sms(sm_count) + r->n_out - 1) / r->n_out;
    r->chunks = want < cap ? want : cap;
    if (r->chunks > MAX_CHUNKS) r->chunks = MAX_CHUNKS;
    if (r->chunks < 2) r->chunks = 2;
    r->clen = (nvec + r->chunks - 1) / r->chunks;
    if (r->online && r->clen > r->group) /* whole block steps: no ragged last step */
        r->clen = (r->clen + r->group - 1) / r->group * r->group;
    r->chunks = (nvec + r->clen - 1) / r->clen; /* no empty chunk */
    r->group2 = r->chunks > 64 ? COMBINE_BLOCK : 32;
    if (r->online && online_xouts(r)) {
        /* One kernel: small chunks, each read a second time for the output pass a few
         * waves after it was first read, while it is still in L2 (K_FUSED). */
        r->fused = true;
        r->lag = FUSED_LAG * cg__sms(sm_count);
        r->clen = (int64_t)FUSED_STEPS * r->group;
        while ((nvec + r->clen - 1) / r->clen > MAX_CHUNKS) r->clen *= 2;
        r->chunks = (nvec + r->clen - 1) / r->clen;
    }
}

/* What each pass computes and what it keeps in registers for later passes (short staged
 * rows), whether block rows go lean, stream or re-read their row from L2. */
static bool plan_registers(cg_reduce_t *r, base_arena_t *ar) {
    uint32_t nn = r->n_nodes;
    r->need = base_arena_alloc(ar, (size_t)(r->n_passes ? r->n_passes : 1) * nn, 1);
    uint8_t *cand = base_arena_alloc(ar, nn, 1), *cand_in = base_arena_alloc(ar, nn, 1);
    if (!r->need || !cand || !cand_in) return false;
    int64_t nvec = r->count / r->vec;
    r->items = 0;
    if (r->group > 1 && r->chunks == 1 && r->n_passes >= 2 && r->count <= ITEMS_ROW_MAX) {
        plan_passes(r, NULL);
        int items = (int)((nvec + r->group - 1) / r->group);
        for (uint32_t j = 0; j < nn; j++) {
            int uses = 0;
            for (int p = 0; p < r->n_passes; p++) uses += r->need[(size_t)p * nn + j] != 0;
            cand[j] = uses >= 2 && r->space[j] == SP_X;
        }
        /* Where the values fit the budget, a block per row keeps only the loaded inputs
         * (if they fit too), recomputing what derives from them: fewer registers, more
         * resident blocks (H200, softmax 8192^2: 54 -> 40 registers, 3 blocks of 512 per
         * multiprocessor, 138 -> 133-134 us; layernorm unchanged). Warps per row keep their
         * derived values too (softmax 65536 x 64: 10.3 us, 11.4 without), as do block rows
         * with several inputs under one derived value. (The budget is judged on every value
         * read by several passes: float64 8192-element rows keeping x alone would fit it but
         * spill 112-440 bytes at 64 registers, so they keep nothing.) */
        if (cached_regs(r, cand, items) <= ITEMS_REGS) {
            r->items = items;
            if (r->group == r->block) {
                for (uint32_t j = 0; j < nn; j++)
                    cand_in[j] = cand[j] && node(r, j)->op == IR_OP_INPUT;
                if (cached_regs(r, cand_in, items) <= ITEMS_REGS) {
                    memcpy(cand, cand_in, nn);
                    /* lean (measured so: float32, 512 threads; float16 rows spill 8-16 bytes
                     * at 40 registers) */
                    r->lean = r->block == 512;
                    for (uint32_t j = 0; j < nn; j++)
                        if (cand[j] && ir_dtypes[node(r, j)->dtype].size != 4) r->lean = false;
                }
            }
        }
    }
    /* Lean block rows without transcendental ops load and store evict-first (H200, 8192^2
     * float32 layernorm with launch bounds for 3 blocks: 134.6-135.4 -> 132.3-134.3 us, with
     * gamma and beta 142.6 -> 136.4-138.1). Softmax's rows, whose exp is evaluated twice, ran
     * 165-170 us so, against 132-133 with plain loads and stores; loads alone or stores alone
     * did not help layernorm either (141 / 134 us). */
    r->stream = r->lean;
    for (uint32_t j = 0; j < nn && r->stream; j++) r->stream = !transcendental(node(r, j)->op);
    /* Where every vector input is read by several passes, such rows of up to 8192 elements keep
     * nothing in registers: each pass reads the row again, from L2 after the first read, which
     * keeps it there (an evict_last policy); the last read is evict-first; 4 blocks of 512 per
     * multiprocessor (28-32 registers). H200, 8192^2 float32 layernorm, standalone
     * (bench/experiments/layernorm_l2.cu, loomk/forms.py): 128.4-128.9 us (cudaMemcpy
     * 126.7-127.2), against 131.1-131.4 keeping x in registers; without the policy 132.4-132.8; at
     * 8 blocks of 256 the rows in flight (34 MB) crowd L2: 146 us, so longer rows (528 of 64 KB at
     * 16384 elements) keep their registers. The lines are not reset to normal priority after the
     * last read (applypriority): that cost 1.8 us, and an affine layernorm run right after took
     * the same time either way (142.3-142.9 us, loomk/reset.py). Inputs read by one pass
     * (layernorm's gamma and beta) would take registers for their loads and spill 8-68 bytes at 32
     * or 40, so those rows keep theirs too. */
    r->reread = r->stream && r->vec > 1 && r->count <= 8192;
    for (uint32_t j = 0; j < nn && r->reread; j++)
        if (node(r, j)->op == IR_OP_INPUT && r->space[j] == SP_X && !cand[j]) r->reread = false;
    if (r->reread) r->items = 0;
    plan_passes(r, r->items ? cand : NULL);
    return true;
}

/* Fused vector steps: whether each ticket is one chunk kept in shared memory (the stash). */
static void choose_stash(cg_reduce_t *r, int sm_count) {
    int64_t nvec = r->count / r->vec;
    uint32_t nn = r->n_nodes;
    /* Stash where two slots of a chunk fit and a row has at most two chunks per
     * multiprocessor: one resident block per multiprocessor (what always fits) then
     * cannot stall (emit_kernel, reduce_emit.c), and the chunk is read once. */
    int64_t clen = (int64_t)STASH_STEPS * r->group, nch = (nvec + clen - 1) / clen;
    size_t b = 0;
    for (uint32_t j = 0; j < nn; j++)
        if (stashed(r, j))
            b += 2 * (size_t)clen * (size_t)r->vec * ir_dtypes[node(r, j)->dtype].size;
    if (b > 0 && b <= STASH_BYTES && nch <= 2 * (int64_t)cg__sms(sm_count)) {
        r->stash = true;
        r->lag = 0;
        r->clen = clen;
        r->chunks = nch;
    }
}

/* The index width: 64-bit where the space, the output chunks or an input's reach leave 32-bit
 * indices too little headroom. */
static bool needs_idx64(const cg_reduce_t *r, const ir_node_t *x) {
    bool big = ir_node_size(x) > CG__IDX32_MAX || r->n_out * r->chunks > CG__IDX32_MAX;
    for (uint32_t j = 0; j < r->n_nodes; j++)
        if (cg__strided(node(r, j)) && cg__reach(r->strides[j], r->shape, r->nd) > CG__IDX32_MAX)
            big = true;
    return big;
}

/* The phases in a straight line, each reading only what those before it set. */
cg_reduce_t *cg_reduce_init(const ir_graph_t *g, base_arena_t *ar, const uint32_t *outs,
                            uint32_t n_outs, const uint64_t *input_addr, int sm_count) {
    cg_reduce_t *r = base_arena_alloc(ar, 1, sizeof *r);
    if (!r || !collect_nodes(r, g, ar, outs, n_outs)) return NULL;
    uint32_t axes;
    const ir_node_t *x = reduced_operand(r, &axes);
    classify_nodes(r, x, axes);
    collapse_space(r, x, axes);
    bool split = choose_split(r, sm_count);
    choose_threads(r, split, input_addr);
    if (split) lay_out_chunks(r, sm_count);
    if (!plan_registers(r, ar)) return NULL;
    if (r->fused && r->vec > 1) choose_stash(r, sm_count);
    r->idx64 = needs_idx64(r, x);
    return r;
}

/* ---- Copies for the plan cache ---- */

static void *dup(base_alloc_t *al, const void *src, size_t n, size_t size, bool *ok) {
    void *p = base_malloc(al, n ? n : 1, size);
    if (!p)
        *ok = false;
    else if (n)
        memcpy(p, src, n * size);
    return p;
}

cg_reduce_t *cg_reduce_keep(const cg_reduce_t *r, base_alloc_t *al) {
    cg_reduce_t *k = base_malloc(al, 1, sizeof *k);
    if (!k) return NULL;
    *k = *r;
    bool ok = true;
    uint32_t nn = r->n_nodes;
    k->nodes = dup(al, r->nodes, nn, sizeof *r->nodes, &ok);
    k->outs = dup(al, r->outs, r->n_outs, sizeof *r->outs, &ok);
    k->space = dup(al, r->space, nn, 1, &ok);
    k->stage = dup(al, r->stage, nn, 1, &ok);
    k->cached = dup(al, r->cached, nn, 1, &ok);
    k->need = dup(al, r->need, (size_t)(r->n_passes ? r->n_passes : 1) * nn, 1, &ok);
    k->xout = dup(al, r->xout, r->n_outs, 1, &ok);
    k->strides = dup(al, r->strides, nn, sizeof *r->strides, &ok);
    if (!ok) {
        cg_reduce_free(k, al);
        return NULL;
    }
    return k;
}

void cg_reduce_free(cg_reduce_t *r, base_alloc_t *al) {
    if (!r) return;
    base_free(al, r->nodes);
    base_free(al, r->outs);
    base_free(al, r->space);
    base_free(al, r->stage);
    base_free(al, r->cached);
    base_free(al, r->need);
    base_free(al, r->xout);
    base_free(al, r->strides);
    base_free(al, r);
}

void cg_reduce_set_graph(cg_reduce_t *r, const ir_graph_t *g) { r->g = g; }
