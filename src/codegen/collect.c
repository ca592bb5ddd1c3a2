/* collect.c — what every kernel description starts from: the kernel's nodes, gathered from its
 * outputs operands first, and its iteration space collapsed (extent-1 axes dropped, adjacent
 * axes merged where every operand's strides allow). Used by plan.c, reduce_plan.c and scan.c;
 * each says which axes must stay apart. */
#include <string.h>

#include "cg.h"

uint32_t *cg__collect(const ir_graph_t *g, base_arena_t *ar, const uint32_t *outs, uint32_t n_outs,
                      uint32_t *n_nodes) {
    bool *mark = base_arena_alloc(ar, g->n_nodes, sizeof *mark);
    if (!mark) return NULL;
    for (uint32_t i = 0; i < n_outs; i++) mark[outs[i]] = true;
    /* Operands come before their users in the graph, so one backward sweep marks them all. */
    for (uint32_t i = g->n_nodes; i-- > 0;)
        if (mark[i])
            for (int s = 0; s < ir_ops[g->nodes[i].op].arity; s++) mark[g->nodes[i].src[s]] = true;
    uint32_t n = 0;
    for (uint32_t i = 0; i < g->n_nodes; i++) n += mark[i];
    uint32_t *nodes = base_arena_alloc(ar, n, sizeof *nodes);
    if (!nodes) return NULL;
    for (uint32_t i = 0, j = 0; i < g->n_nodes; i++)
        if (mark[i]) nodes[j++] = i;
    *n_nodes = n;
    return nodes;
}

bool cg__strided(const ir_node_t *n) {
    return ir_ops[n->op].kind == IR_KIND_LEAF && n->op != IR_OP_CONST;
}

void cg__leaf_strides(const ir_graph_t *g, const ir_node_t *n, int nd, const int64_t *shape,
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

int cg__collapse(const ir_graph_t *g, const uint32_t *nodes, uint32_t n_nodes, const ir_node_t *x,
                 uint32_t pinned, uint32_t *classes, int64_t *shape,
                 int64_t (*strides)[LOOM_MAX_DIMS]) {
    /* Extent-1 axes dropped (all kept in an empty space, whose extents then say it is empty). */
    int ndim = x->ndim;
    const int64_t *x_shape = x->shape;
    int64_t size = ir_node_size(x);
    int nd = 0, keep[LOOM_MAX_DIMS];
    uint32_t cls = 0;
    for (int ax = 0; ax < ndim; ax++)
        if (x_shape[ax] != 1 || size == 0 || ((pinned >> ax) & 1u)) {
            keep[nd] = ax;
            shape[nd] = x_shape[ax];
            if ((*classes >> ax) & 1u) cls |= 1u << nd;
            nd++;
        }
    for (uint32_t j = 0; j < n_nodes; j++) {
        const ir_node_t *n = &g->nodes[nodes[j]];
        if (!cg__strided(n)) continue;
        int64_t full[LOOM_MAX_DIMS];
        cg__leaf_strides(g, n, ndim, x_shape, full);
        for (int ax = 0; ax < nd; ax++) strides[j][ax] = full[keep[ax]];
    }
    /* Merge axis ax into ax+1 where both are of one class and every operand is contiguous
     * across the pair. */
    for (int ax = nd - 2; ax >= 0; ax--) {
        bool ok = ((cls >> ax) & 1u) == ((cls >> (ax + 1)) & 1u);
        for (uint32_t j = 0; j < n_nodes && ok; j++)
            if (cg__strided(&g->nodes[nodes[j]]))
                ok = strides[j][ax] == strides[j][ax + 1] * shape[ax + 1];
        if (!ok) continue;
        shape[ax] *= shape[ax + 1];
        for (int b = ax + 1; b < nd - 1; b++) shape[b] = shape[b + 1];
        for (uint32_t j = 0; j < n_nodes; j++) {
            strides[j][ax] = strides[j][ax + 1];
            for (int b = ax + 1; b < nd - 1; b++) strides[j][b] = strides[j][b + 1];
        }
        uint32_t low = cls & ((1u << (ax + 1)) - 1), high = cls >> (ax + 2);
        cls = low | high << (ax + 1);
        nd--;
    }
    *classes = cls;
    return nd;
}

int64_t cg__reach(const int64_t *strides, const int64_t *shape, int nd) {
    int64_t reach = 0;
    for (int ax = 0; ax < nd; ax++) {
        int64_t st = strides[ax] < 0 ? -strides[ax] : strides[ax];
        reach += (shape[ax] - 1) * st;
    }
    return reach;
}
