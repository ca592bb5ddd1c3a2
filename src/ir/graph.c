/* graph.c — the flat per-eval IR: nodes by 32-bit index in one arena array, with CSE on emit
 * (an identical node, operands and params included, is returned instead of added). */
#include <stddef.h>
#include <string.h>

#include "ir.h"

void ir_graph_init(ir_graph_t *g, base_arena_t *arena, base_error_t *err) {
    memset(g, 0, sizeof *g);
    g->arena = arena;
    g->err = err;
}

int64_t ir_node_size(const ir_node_t *n) {
    int64_t s = 1;
    for (int i = 0; i < n->ndim; i++) s *= n->shape[i];
    return s;
}

/* Makes room for element n of *arr, and for at least `want` elements in all. The new room
 * is not zeroed: every element is written before it is read. */
static bool grow_to(ir_graph_t *g, void **arr, uint32_t *cap, uint32_t n, uint32_t want,
                    size_t size) {
    if (n < *cap && want <= *cap) return true;
    uint32_t nc = *cap ? *cap * 2 : 64;
    if (nc < want) nc = want;
    void *p = base_arena_alloc_raw(g->arena, nc, size);
    if (!p) {
        base_error_set(g->err, LOOM_STATUS_OUT_OF_MEMORY,
                       "out of memory building the IR (%u nodes)", n);
        return false;
    }
    if (*arr) memcpy(p, *arr, (size_t)n * size);
    *arr = p;
    *cap = nc;
    return true;
}

static bool grow(ir_graph_t *g, void **arr, uint32_t *cap, uint32_t n, size_t size) {
    return grow_to(g, arr, cap, n, 0, size);
}

/* Hash of what makes two nodes the same computation (values included). `same` compares
 * every field, so the hash may leave out params an op never sets: elementwise ops have
 * none, leaves and matmul only the scalar ones before the axis arrays. */
static uint64_t cse_hash(const ir_node_t *n) {
    uint64_t h = base_hash_mix(n->op, n->dtype);
    h = base_hash_mix(h, n->ndim);
    for (int i = 0; i < n->ndim; i++) h = base_hash_mix(h, (uint64_t)n->shape[i]);
    for (int i = 0; i < 3; i++) h = base_hash_mix(h, n->src[i]);
    h = base_hash_mix(h, (uint64_t)(int64_t)n->input);
    switch (ir_ops[n->op].kind) {
        case IR_KIND_ELEM:
            return h;
        case IR_KIND_LEAF:
        case IR_KIND_MATMUL:
            return base_hash_mix(h, base_hash64(&n->p, offsetof(ir_params_t, ax), 0));
        default:
            return base_hash_mix(h, base_hash64(&n->p, sizeof n->p, 0));
    }
}

static bool same(const ir_node_t *a, const ir_node_t *b) {
    return a->op == b->op && a->dtype == b->dtype && a->ndim == b->ndim && a->input == b->input &&
           !memcmp(a->shape, b->shape, sizeof a->shape) && !memcmp(a->src, b->src, sizeof a->src) &&
           !memcmp(&a->p, &b->p, sizeof a->p);
}

static bool rehash(ir_graph_t *g, uint32_t cap) {
    uint32_t *t = base_arena_alloc(g->arena, cap, sizeof *t);
    if (!t) return false;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        uint32_t j = (uint32_t)cse_hash(&g->nodes[i]) & (cap - 1);
        while (t[j]) j = (j + 1) & (cap - 1);
        t[j] = i + 1;
    }
    g->cse = t;
    g->cap_cse = cap;
    return true;
}

uint64_t ir_node_hash(const ir_graph_t *g, const ir_node_t *n) {
    uint64_t h = base_hash_mix(0x697220, n->op);
    h = base_hash_mix(h, n->dtype);
    h = base_hash_mix(h, n->ndim);
    for (int i = 0; i < n->ndim; i++) h = base_hash_mix(h, (uint64_t)n->shape[i]);
    for (int i = 0; i < ir_ops[n->op].arity; i++) h = base_hash_mix(h, g->nodes[n->src[i]].hash);
    if (n->op == IR_OP_LINSPACE) h = base_hash_mix(h, n->p.k >= 0); /* endpoint or not */
    ir_op_kind_t kind = ir_ops[n->op].kind;
    if (kind == IR_KIND_VIEW || kind == IR_KIND_CONCAT || kind == IR_KIND_REDUCE ||
        kind == IR_KIND_SCAN || kind == IR_KIND_GATHER || kind == IR_KIND_SORT ||
        kind == IR_KIND_SEARCH || kind == IR_KIND_FFT) { /* axes, slices, sides */
        h = base_hash_mix(h, base_hash64(n->p.ax, sizeof n->p.ax, 0));
        h = base_hash_mix(h, base_hash64(n->p.step, sizeof n->p.step, 0));
        h = base_hash_mix(h, n->p.axes | (uint64_t)n->p.keepdims << 32);
        h = base_hash_mix(h, (uint64_t)n->p.axis);
    }
    if (n->op == IR_OP_MATMUL || n->op == IR_OP_SEARCHSORTED || n->op == IR_OP_SCATTER ||
        n->op == IR_OP_CORRELATE ||
        kind == IR_KIND_LINALG || kind == IR_KIND_FFT)
        /* which contraction, side, combination */
        h = base_hash_mix(h, (uint64_t)n->p.k);
    return h;
}

bool ir_graph_reserve(ir_graph_t *g, uint32_t n_nodes) {
    if (n_nodes < 64) return true;
    if (!grow_to(g, (void **)&g->nodes, &g->cap_nodes, g->n_nodes, n_nodes, sizeof *g->nodes))
        return false;
    uint32_t cap = 256;
    while (cap <= 2 * n_nodes) cap *= 2;
    if (cap > g->cap_cse && !rehash(g, cap)) {
        base_error_set(g->err, LOOM_STATUS_OUT_OF_MEMORY, "out of memory building the IR");
        return false;
    }
    return true;
}

uint32_t ir_emit(ir_graph_t *g, const ir_node_t *node) {
    ir_node_t n = *node;
    for (int i = ir_ops[n.op].arity; i < 3; i++) n.src[i] = 0;
    if (n.op != IR_OP_INPUT) n.input = -1;
    if (g->n_nodes * 2 >= g->cap_cse && !rehash(g, g->cap_cse ? g->cap_cse * 2 : 256)) {
        base_error_set(g->err, LOOM_STATUS_OUT_OF_MEMORY, "out of memory building the IR");
        return UINT32_MAX;
    }
    uint32_t j = (uint32_t)cse_hash(&n) & (g->cap_cse - 1);
    while (g->cse[j]) {
        if (same(&g->nodes[g->cse[j] - 1], &n)) return g->cse[j] - 1;
        j = (j + 1) & (g->cap_cse - 1);
    }
    if (!grow(g, (void **)&g->nodes, &g->cap_nodes, g->n_nodes, sizeof n)) return UINT32_MAX;
    n.hash = ir_node_hash(g, &n);
    g->nodes[g->n_nodes] = n;
    g->cse[j] = g->n_nodes + 1;
    return g->n_nodes++;
}

uint32_t ir_add_input(ir_graph_t *g, const ir_input_t *in) {
    if (!grow(g, (void **)&g->inputs, &g->cap_inputs, g->n_inputs, sizeof *in)) return UINT32_MAX;
    g->inputs[g->n_inputs] = *in;
    return g->n_inputs++;
}

bool ir_add_output(ir_graph_t *g, uint32_t node) {
    if (!grow(g, (void **)&g->outputs, &g->cap_outputs, g->n_outputs, sizeof node)) return false;
    g->outputs[g->n_outputs++] = node;
    return true;
}
