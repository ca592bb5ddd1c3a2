/* fold.c — constant folding: an elementwise node whose operands are all CONST becomes a
 * CONST of its own dtype and shape, its value computed by the reference kernels (so a folded
 * value is exactly what the interpreter and the GPU would compute). Nodes that raise stay (the
 * eval reports their error). Structure-only: whether a node folds never depends on the values,
 * so the schedule of a graph is value-independent. */
#include <string.h>

#include "ir.h"

void ir_fold(ir_graph_t *g) {
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        ir_node_t *n = &g->nodes[i];
        const ir_op_info_t *info = &ir_ops[n->op];
        if (info->kind != IR_KIND_ELEM || ir_node_raises(g, n)) continue;
        if (ir_dtypes[n->dtype].size > sizeof n->p.bits) continue; /* complex128: no CONST */
        bool all_const = true;
        for (int s = 0; s < info->arity; s++)
            all_const = all_const && g->nodes[n->src[s]].op == IR_OP_CONST;
        if (!all_const) continue;
        uint64_t in[3] = {0}, out = 0;
        for (int s = 0; s < info->arity; s++) in[s] = g->nodes[n->src[s]].p.bits;
        ir_ref_fn fn;
        if (n->op == IR_OP_CAST)
            fn = ir_ref_cast[g->nodes[n->src[0]].dtype][n->dtype];
        else if (n->op == IR_OP_WHERE)
            fn = ir_ref_elem[IR_OP_WHERE][n->dtype];
        else
            fn = ir_ref_elem[n->op][g->nodes[n->src[0]].dtype];
        if (!fn) continue; /* the verifier reports it */
        fn(1, &out, &in[0], 0, &in[1], 0, &in[2], 0);
        memset(&n->p, 0, sizeof n->p);
        n->p.bits = out;
        n->op = IR_OP_CONST;
        memset(n->src, 0, sizeof n->src);
        n->hash = ir_node_hash(g, n);
    }
}
