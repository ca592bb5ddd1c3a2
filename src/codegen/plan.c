/* plan.c — describes one elementwise kernel: which IR nodes it computes, its iteration space
 * (axes of extent 1 dropped, adjacent axes merged where every operand's strides allow), each
 * operand's layout class, the vector width and the index width. */
#include <string.h>

#include "cg.h"

bool cg_kernel_init(cg_kernel_t *k, const ir_graph_t *g, base_arena_t *ar, const uint32_t *outs,
                    uint32_t n_outs, const uint64_t *input_addr) {
    memset(k, 0, sizeof *k);
    k->g = g;
    k->outs = base_arena_alloc(ar, n_outs, sizeof *k->outs);
    if (!k->outs) return false;
    memcpy(k->outs, outs, n_outs * sizeof *outs);
    k->n_outs = n_outs;
    k->nodes = cg__collect(g, ar, outs, n_outs, &k->n_nodes);
    if (!k->nodes) return false;
    k->layout = base_arena_alloc(ar, k->n_nodes, sizeof *k->layout);
    k->strides = base_arena_alloc(ar, k->n_nodes, sizeof *k->strides);
    if (!k->layout || !k->strides) return false;

    /* The space: the outputs' shape, collapsed. */
    const ir_node_t *o = &g->nodes[outs[0]];
    uint32_t classes = 0;
    k->size = ir_node_size(o);
    int nd = cg__collapse(g, k->nodes, k->n_nodes, o, 0, &classes, k->shape, k->strides);
    k->ndim = nd;
    const int64_t *shape = k->shape;

    /* Layout classes, vector width, index width. */
    int64_t contig[LOOM_MAX_DIMS];
    int64_t s = 1;
    for (int ax = nd - 1; ax >= 0; ax--) {
        contig[ax] = s;
        s *= shape[ax];
    }
    k->flat = true;
    bool big = k->size > CG__IDX32_MAX;
    size_t widest = 1;
    bool aligned = true;
    for (uint32_t j = 0; j < k->n_nodes; j++) {
        const ir_node_t *n = &g->nodes[k->nodes[j]];
        size_t sz = ir_dtypes[n->dtype].size;
        if (!cg__strided(n)) {
            k->layout[j] = CG_SCALAR;
            continue;
        }
        bool zero = true, full = true;
        for (int ax = 0; ax < nd; ax++) {
            zero = zero && k->strides[j][ax] == 0;
            full = full && k->strides[j][ax] == contig[ax];
        }
        k->layout[j] = zero ? CG_SCALAR : full ? CG_FULL : CG_STRIDED;
        if (k->layout[j] == CG_STRIDED) k->flat = false;
        if (cg__reach(k->strides[j], shape, nd) > CG__IDX32_MAX) big = true;
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
