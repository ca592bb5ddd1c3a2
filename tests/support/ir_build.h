/* ir_build — hand-built flat IR graphs for tests that reach src/ (header-only helpers):
 * inputs, constants and operator nodes by shape, and the n_users counts the scheduler gives
 * en_matmul_epilogue. */
#ifndef LOOM_TESTS_IR_BUILD_H
#define LOOM_TESTS_IR_BUILD_H

#include <string.h>

#include "engine/internal.h"
#include "frontend/fe.h"

typedef struct tb {
    base_alloc_t al;
    base_arena_t ar;
    base_error_t err;
    ir_graph_t g;
} tb_t;

static inline void tb_init(tb_t *t) {
    memset(t, 0, sizeof *t);
    t->al.fail_after = -1;
    base_arena_init(&t->ar, &t->al);
    ir_graph_init(&t->g, &t->ar, &t->err);
}

static inline void tb_fini(tb_t *t) { base_arena_fini(&t->ar); }

/* A C-contiguous input (strides given: NULL for C order) at offset 0. */
static inline uint32_t tb_input(tb_t *t, loom_dtype_t d, int nd, const int64_t *shape,
                                const int64_t *strides) {
    ir_input_t in;
    memset(&in, 0, sizeof in);
    int64_t s = 1;
    for (int ax = nd - 1; ax >= 0; ax--) {
        in.strides[ax] = strides ? strides[ax] : s;
        s *= shape[ax] ? shape[ax] : 1;
    }
    in.dev = 0x1000;
    in.owner = (void *)(uintptr_t)(t->g.n_inputs + 1); /* inputs are told apart by owner */
    ir_node_t n;
    memset(&n, 0, sizeof n);
    n.op = IR_OP_INPUT;
    n.dtype = (uint8_t)d;
    n.ndim = (uint8_t)nd;
    memcpy(n.shape, shape, sizeof(int64_t) * (size_t)nd);
    n.input = (int32_t)ir_add_input(&t->g, &in);
    return ir_emit(&t->g, &n);
}

static inline uint32_t tb_const(tb_t *t, loom_dtype_t d, double v) {
    ir_node_t n;
    memset(&n, 0, sizeof n);
    n.op = IR_OP_CONST;
    n.dtype = (uint8_t)d;
    n.input = -1;
    n.p.bits = ir_bits_from_double(d, v);
    return ir_emit(&t->g, &n);
}

/* An elementwise node shaped like node `like`. */
static inline uint32_t tb_op(tb_t *t, ir_op_t op, uint32_t like, uint32_t a, uint32_t b) {
    ir_node_t n;
    memset(&n, 0, sizeof n);
    const ir_node_t *l = &t->g.nodes[like];
    n.op = (uint16_t)op;
    n.dtype = l->dtype;
    n.ndim = l->ndim;
    memcpy(n.shape, l->shape, sizeof n.shape);
    n.input = -1;
    n.src[0] = a;
    n.src[1] = ir_ops[op].arity > 1 ? b : 0;
    return ir_emit(&t->g, &n);
}

static inline uint32_t tb_matmul(tb_t *t, uint32_t a, uint32_t b) {
    ir_node_t n;
    memset(&n, 0, sizeof n);
    const ir_node_t *an = &t->g.nodes[a], *bn = &t->g.nodes[b];
    int nd;
    ir_matmul_why_t why;
    if (!ir_matmul_shape(IR_MATMUL_MATMUL, an->ndim, an->shape, bn->ndim, bn->shape, &nd,
                         n.shape, &why))
        return UINT32_MAX;
    n.op = IR_OP_MATMUL;
    n.dtype = an->dtype;
    n.ndim = (uint8_t)nd;
    n.input = -1;
    n.src[0] = a;
    n.src[1] = b;
    return ir_emit(&t->g, &n);
}

/* n_users as the scheduler counts them (operand references plus output listings). */
static inline void tb_users(const tb_t *t, uint32_t *nu) {
    memset(nu, 0, sizeof *nu * t->g.n_nodes);
    for (uint32_t i = 0; i < t->g.n_nodes; i++)
        for (int s = 0; s < ir_ops[t->g.nodes[i].op].arity; s++) nu[t->g.nodes[i].src[s]]++;
    for (uint32_t o = 0; o < t->g.n_outputs; o++) nu[t->g.outputs[o]]++;
}

/* gelu(x) in tanh form, built in loom's order (bench_elementwise's gelu_once). */
static inline uint32_t tb_gelu(tb_t *t, uint32_t x) {
    loom_dtype_t d = (loom_dtype_t)t->g.nodes[x].dtype;
    uint32_t cube = tb_op(t, IR_OP_MULTIPLY, x, tb_op(t, IR_OP_MULTIPLY, x, x, x), x);
    uint32_t inner = tb_op(t, IR_OP_MULTIPLY, x,
                           tb_op(t, IR_OP_ADD, x, x,
                                 tb_op(t, IR_OP_MULTIPLY, x, cube, tb_const(t, d, 0.044715))),
                           tb_const(t, d, 0.7978845608));
    uint32_t half = tb_op(t, IR_OP_MULTIPLY, x, x, tb_const(t, d, 0.5));
    return tb_op(t, IR_OP_MULTIPLY, x, half,
                 tb_op(t, IR_OP_ADD, x, tb_op(t, IR_OP_TANH, x, inner, 0), tb_const(t, d, 1.0)));
}

#endif
