/* plan.c — describes one elementwise kernel: which IR nodes it computes, its iteration space
 * (axes of extent 1 dropped, adjacent axes merged where every operand's strides allow), each
 * operand's layout class, the vector width and the index width. */
#include <string.h>

#include "cg.h"

static bool is_memory_or_leaf(const ir_node_t *n) {
    return ir_ops[n->op].kind == IR_KIND_LEAF && n->op != IR_OP_CONST;
}

/* Strides (elements) of leaf/input node n read in a space of rank nd and shape `shape`. */
static void space_strides(const ir_graph_t *g, const ir_node_t *n, int nd, const int64_t *shape,
                          int64_t *out) {
    int64_t own[LOOM_MAX_DIMS];
    if (n->op == IR_OP_INPUT) {
        memcpy(own, g->inputs[n->input].strides, sizeof own);
    } else {
        int64_t s = 1;
        for (int ax = n->ndim - 1; ax >= 0; ax--) {
            own[ax] = s;
            s *= n->shape[ax] ? n->shape[ax] : 1;
        }
    }
    int lead = nd - n->ndim;
    for (int ax = 0; ax < nd; ax++) {
        int j = ax - lead;
        out[ax] = (j < 0 || (n->shape[j] == 1 && shape[ax] != 1)) ? 0 : own[j];
    }
}

bool cg_kernel_init(cg_kernel_t *k, const ir_graph_t *g, base_arena_t *ar, const uint32_t *outs,
                    uint32_t n_outs, const uint64_t *input_addr) {
    memset(k, 0, sizeof *k);
    k->g = g;
    bool *mark = base_arena_alloc(ar, g->n_nodes, sizeof *mark);
    k->outs = base_arena_alloc(ar, n_outs, sizeof *k->outs);
    if (!mark || !k->outs) return false;
    memcpy(k->outs, outs, n_outs * sizeof *outs);
    k->n_outs = n_outs;
    for (uint32_t i = 0; i < n_outs; i++) mark[outs[i]] = true;
    for (uint32_t i = g->n_nodes; i-- > 0;)
        if (mark[i])
            for (int s = 0; s < ir_ops[g->nodes[i].op].arity; s++) mark[g->nodes[i].src[s]] = true;
    for (uint32_t i = 0; i < g->n_nodes; i++) k->n_nodes += mark[i];
    k->nodes = base_arena_alloc(ar, k->n_nodes, sizeof *k->nodes);
    k->layout = base_arena_alloc(ar, k->n_nodes, sizeof *k->layout);
    k->strides = base_arena_alloc(ar, k->n_nodes, sizeof *k->strides);
    if (!k->nodes || !k->layout || !k->strides) return false;
    for (uint32_t i = 0, j = 0; i < g->n_nodes; i++)
        if (mark[i]) k->nodes[j++] = i;

    /* The space: the outputs' shape without extent-1 axes. */
    const ir_node_t *o = &g->nodes[outs[0]];
    int nd = 0;
    int64_t shape[LOOM_MAX_DIMS];
    int keep[LOOM_MAX_DIMS];
    k->size = ir_node_size(o);
    for (int ax = 0; ax < o->ndim; ax++)
        if (o->shape[ax] != 1 || k->size == 0) {
            keep[nd] = ax;
            shape[nd++] = o->shape[ax];
        }
    for (uint32_t j = 0; j < k->n_nodes; j++) {
        const ir_node_t *n = &g->nodes[k->nodes[j]];
        if (!is_memory_or_leaf(n)) continue;
        int64_t full[LOOM_MAX_DIMS];
        space_strides(g, n, o->ndim, o->shape, full);
        for (int ax = 0; ax < nd; ax++) k->strides[j][ax] = full[keep[ax]];
    }
    /* Merge axis ax into ax+1 where every operand is contiguous across the pair. */
    for (int ax = nd - 2; ax >= 0; ax--) {
        bool ok = true;
        for (uint32_t j = 0; j < k->n_nodes && ok; j++) {
            if (!is_memory_or_leaf(&g->nodes[k->nodes[j]])) continue;
            ok = k->strides[j][ax] == k->strides[j][ax + 1] * shape[ax + 1];
        }
        if (!ok) continue;
        shape[ax] *= shape[ax + 1];
        for (int b = ax + 1; b < nd - 1; b++) shape[b] = shape[b + 1];
        for (uint32_t j = 0; j < k->n_nodes; j++) {
            k->strides[j][ax] = k->strides[j][ax + 1];
            for (int b = ax + 1; b < nd - 1; b++) k->strides[j][b] = k->strides[j][b + 1];
        }
        nd--;
    }
    k->ndim = nd;
    memcpy(k->shape, shape, sizeof shape);

    /* Layout classes, vector width, index width. */
    int64_t contig[LOOM_MAX_DIMS];
    int64_t s = 1;
    for (int ax = nd - 1; ax >= 0; ax--) {
        contig[ax] = s;
        s *= shape[ax];
    }
    k->flat = true;
    /* 32-bit indices need headroom: a thread's index runs up to size + grid * block * vec
     * before the loop test, and must not overflow on the way. */
    const int64_t lim = INT32_MAX - (INT64_C(1) << 24);
    bool big = k->size > lim;
    size_t widest = 1;
    bool aligned = true;
    for (uint32_t j = 0; j < k->n_nodes; j++) {
        const ir_node_t *n = &g->nodes[k->nodes[j]];
        size_t sz = ir_dtypes[n->dtype].size;
        if (!is_memory_or_leaf(n)) {
            k->layout[j] = CG_SCALAR;
            continue;
        }
        bool zero = true, full = true;
        int64_t reach = 0;
        for (int ax = 0; ax < nd; ax++) {
            zero = zero && k->strides[j][ax] == 0;
            full = full && k->strides[j][ax] == contig[ax];
            int64_t st = k->strides[j][ax] < 0 ? -k->strides[j][ax] : k->strides[j][ax];
            reach += (shape[ax] - 1) * st;
        }
        k->layout[j] = zero ? CG_SCALAR : full ? CG_FULL : CG_STRIDED;
        if (k->layout[j] == CG_STRIDED) k->flat = false;
        if (reach > lim) big = true;
        if (n->op == IR_OP_INPUT && k->layout[j] == CG_FULL) {
            if (sz > widest) widest = sz;
            uint64_t addr = input_addr ? input_addr[n->input] : 0;
            addr += (uint64_t)(g->inputs[n->input].offset * (int64_t)sz);
            if (addr % 16) aligned = false;
        }
    }
    for (uint32_t i = 0; i < n_outs; i++) {
        size_t sz = ir_dtypes[g->nodes[outs[i]].dtype].size;
        if (sz > widest) widest = sz;
    }
    k->idx64 = big;
    /* Vector width: 16 bytes of the widest element per thread step. Flat kernels handle a
     * partial last step; strided ones need the innermost extent to be a multiple, so that a
     * step never crosses a row and the output stores stay aligned. */
    k->vec = 1;
    int v = (int)(16 / widest);
    v = v > 8 ? 8 : v;
    if (aligned && (k->flat || (nd > 0 && shape[nd - 1] % v == 0))) k->vec = v;
    /* Keyed like the index width: most sizes are multiples of vec, and their kernels then
     * carry no second copy of the body for NVRTC to compile. */
    k->tail = k->vec > 1 && k->flat && k->size % k->vec != 0;
    for (uint32_t j = 0; j < k->n_nodes && k->vec > 1 && !k->flat; j++) {
        const ir_node_t *n = &g->nodes[k->nodes[j]];
        if (k->layout[j] == CG_STRIDED && k->strides[j][nd - 1] == 0) {
            k->layout[j] = CG_STRIDED_B;
            continue;
        }
        if (n->op != IR_OP_INPUT || k->layout[j] != CG_STRIDED || k->strides[j][nd - 1] != 1)
            continue;
        bool ok = true;
        for (int ax = 0; ax < nd - 1; ax++) ok = ok && k->strides[j][ax] % k->vec == 0;
        uint64_t addr = input_addr ? input_addr[n->input] : 0;
        addr += (uint64_t)(g->inputs[n->input].offset * (int64_t)ir_dtypes[n->dtype].size);
        if (ok && addr % ((uint64_t)k->vec * ir_dtypes[n->dtype].size) == 0)
            k->layout[j] = CG_STRIDED_V;
    }
    return true;
}
