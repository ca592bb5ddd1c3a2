/* schedule.c — the scheduler, where fusion happens: cuts an eval's flat IR into steps for the CUDA device.
 *
 * Walking the nodes in order, each node gets a value form:
 *   BUF     a slot read through element strides and an offset (eval inputs, step results,
 *           and views of those: a view of a buffer is an index rewrite, never a copy);
 *   LAZY    an elementwise expression (or CONST / generator leaf), computed inside whichever
 *           step reads it: elementwise intermediates are recomputed, never materialised;
 *   VIEW    a view of a lazy expression, pushed down to the leaves when a step emits it
 *           (view(f(a, b)) = f(view(a'), view(b')), a' = a broadcast to f's shape);
 *   INSTEP  a reduction of the reduce step being assembled.
 *
 * Fusion rules (what becomes one step):
 *   - Reductions over the same operand shape and axes share a step. A reduction whose
 *     operand reads earlier reductions of the step joins it too (staged: softmax's sum of
 *     exp(x - max)) when the code generator can stage that shape (one CTA per row or one
 *     thread per column), and its prologue is recomputed from the step's inputs.
 *   - Requested results whose expression reads the step's reductions are written by the
 *     step: in the reduced shape (epilogues: mean = sum * 1/n) and, for stageable shapes,
 *     in the operand's shape (softmax's result). So row softmax and layernorm are one step.
 *     Rows split across blocks cannot stage, but the sum of exp(a - m) for a max m = max(a)
 *     of the step still joins it (online, cg_reduce_online_max), and the step writes the
 *     operand-shaped results too: split row softmax is one step of two kernels.
 *   - A matrix product absorbs the epilogue chain matmul_plan.c accepts (bias, scale, relu, gelu).
 *   - Everything else requested is grouped by shape into fused elementwise kernels.
 * A reduction's value is materialised (its own small buffer) whenever a later step reads it.
 * Values are materialised (copied to a C-contiguous temp) only where an index rewrite cannot
 * express the read: a reshape that strides cannot express, a view of a generator, operands
 * of matrix products and joins that are expressions. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define NONE UINT32_MAX

/* memcpy of n elements where the source may be NULL when n is 0 (growing empty arrays). */
#define COPY_N(dst, src, n) ((n) ? (void)memcpy((dst), (src), (size_t)(n) * sizeof *(dst)) : (void)0)

enum { V_NONE, V_LAZY, V_BUF, V_VIEW, V_INSTEP, V_ABSORBED };

typedef struct chain {
    const ir_node_t **op; /* view templates (op, shape, params), applied in order */
    uint32_t n;
} chain_t;

typedef struct val {
    uint8_t kind;
    bool yk;          /* LAZY: in the reduced shape of open step yk_serial (reads a keepdims=0
                       * reduction of it) */
    uint32_t yk_serial;
    uint32_t slot;    /* BUF */
    int64_t delta;    /* BUF: elements past the slot's own offset */
    int64_t st[LOOM_MAX_DIMS];
    uint32_t base;    /* VIEW: the non-view node under the chain */
    chain_t chain;    /* VIEW */
} val_t;

typedef struct memo_e {
    uint32_t gen, node, val;
    const void *chain;
} memo_e_t;

typedef struct sched {
    en_engine_t *e;
    const ir_graph_t *g;
    const uint64_t *in_addr;
    en_plan_t *p;
    base_arena_t *ar;  /* the plan's arena */
    base_arena_t *tmp; /* the eval's arena: scratch */
    val_t *val;
    uint32_t *n_users;
    uint32_t *gemm_at; /* last node of a matmul's epilogue -> the matmul node */
    uint32_t **gemm_ep; /* matmul node -> its epilogue nodes (en_matmul_epilogue_nodes) */
    uint32_t *gemm_n;
    uint32_t cap_steps, cap_slots;
    uint32_t cap_leaves, cap_in, cap_out; /* of the step being built (s->cur) */
    int sm;
    int smem; /* shared memory bytes of a multiprocessor (0: not known) */
    int l2;   /* the L2 cache's bytes (0: not known) */
    int smem_block; /* shared memory bytes a block may opt in to (0: not known) */
    /* the reduce step being assembled */
    struct {
        bool on, stage;
        bool online;     /* holds an online sum (split softmax): writes X-shaped results */
        uint32_t serial; /* counts the steps opened */
        uint32_t *reds, n, cap;
        const ir_node_t *x; /* operand of its first reduction (shape X) */
        uint32_t axes;
        int ndim_y;
        int64_t y[LOOM_MAX_DIMS]; /* keepdims = 0 shape */
        int64_t yk[LOOM_MAX_DIMS]; /* keepdims = 1 shape */
    } open;
    /* emission */
    en_step_t *cur;      /* step whose graph receives nodes */
    bool in_reduce;      /* the open reduce step's context: INSTEP readable, no generators */
    bool no_generators;
    bool no_gathers;     /* scan steps: their code generator reads INPUT and CONST leaves */
    bool used_instep;
    memo_e_t *memo;
    uint32_t cap_memo, gen, gen_top; /* gen: the memo in use; fresh ones are ++gen_top */
    uint32_t *red_sg;    /* INSTEP node -> its node in the step graph being emitted */
    /* horizontal batching */
    bool batch;
    uint32_t *pos_gen, *pos_val, pgen; /* node -> position in the canonical walk */
    uint32_t cap_batches;
} sched_t;

static bool oom(sched_t *s) {
    en_error(s->e, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory scheduling kernels");
    return false;
}

/* Room for element n of the arena array *arr (capacity *cap, doubling); false on OOM. */
static bool grow(sched_t *s, base_arena_t *ar, void **arr, uint32_t *cap, uint32_t n,
                 size_t size) {
    if (n < *cap) return true;
    uint32_t nc = *cap ? 2 * *cap : 8;
    void *na = base_arena_alloc(ar, nc, size);
    if (!na) return oom(s);
    if (n) memcpy(na, *arr, (size_t)n * size);
    *arr = na;
    *cap = nc;
    return true;
}

static bool same_shape_v(int na, const int64_t *a, int nb, const int64_t *b) {
    return na == nb && !memcmp(a, b, sizeof(int64_t) * (size_t)na);
}

static void contig_strides(int nd, const int64_t *shape, int64_t *st) {
    int64_t s = 1;
    memset(st, 0, sizeof(int64_t) * LOOM_MAX_DIMS);
    for (int ax = nd - 1; ax >= 0; ax--) {
        st[ax] = s;
        s *= shape[ax] ? shape[ax] : 1;
    }
}

static bool is_contig(int nd, const int64_t *shape, const int64_t *st) {
    int64_t s = 1, size = 1;
    for (int ax = 0; ax < nd; ax++) size *= shape[ax];
    if (size == 0) return true;
    for (int ax = nd - 1; ax >= 0; ax--) {
        if (shape[ax] != 1 && st[ax] != s) return false;
        s *= shape[ax];
    }
    return true;
}

/* ---- chains of view templates ---- */

static const ir_node_t *chain_shape(const chain_t c, const ir_node_t *n) {
    return c.n ? c.op[c.n - 1] : n;
}

/* [head] ++ c (head may be NULL: c itself). */
static bool chain_push_front(sched_t *s, const ir_node_t *head, chain_t c, chain_t *out) {
    if (!head) {
        *out = c;
        return true;
    }
    out->op = base_arena_alloc(s->tmp, c.n + 1, sizeof *out->op);
    if (!out->op) return oom(s);
    out->op[0] = head;
    COPY_N(out->op + 1, c.op, c.n);
    out->n = c.n + 1;
    return true;
}

static bool chain_cat(sched_t *s, chain_t a, chain_t b, chain_t *out) {
    out->op = base_arena_alloc(s->tmp, a.n + b.n + 1, sizeof *out->op);
    if (!out->op) return oom(s);
    COPY_N(out->op, a.op, a.n);
    COPY_N(out->op + a.n, b.op, b.n);
    out->n = a.n + b.n;
    return true;
}

/* A view template: op over shape (ndim, shape). */
static const ir_node_t *templ(sched_t *s, ir_op_t op, int ndim, const int64_t *shape) {
    ir_node_t *t = base_arena_alloc(s->tmp, 1, sizeof *t);
    if (!t) return oom(s), NULL;
    t->op = (uint16_t)op;
    t->ndim = (uint8_t)ndim;
    memcpy(t->shape, shape, sizeof(int64_t) * (size_t)ndim);
    return t;
}

/* The broadcast of node o to shape n (NULL when o already has it). */
static const ir_node_t *expand_to(sched_t *s, const ir_node_t *o, const ir_node_t *n, bool *fail) {
    if (same_shape_v(o->ndim, o->shape, n->ndim, n->shape)) return NULL;
    const ir_node_t *t = templ(s, IR_OP_EXPAND, n->ndim, n->shape);
    if (!t) *fail = true;
    return t;
}

/* Strides and offset of a buffer of shape n0 (strides st0) read through chain c. */
static bool chain_strides(const ir_node_t *n0, const int64_t *st0, int64_t d0, chain_t c,
                          int64_t *st, int64_t *delta) {
    int64_t cur[LOOM_MAX_DIMS];
    memcpy(cur, st0, sizeof cur);
    *delta = d0;
    const ir_node_t *o = n0;
    for (uint32_t k = 0; k < c.n; k++) {
        int64_t off, nst[LOOM_MAX_DIMS];
        if (!ir_ref_view(c.op[k], o, cur, &off, nst)) return false;
        *delta += off;
        memcpy(cur, nst, sizeof cur);
        o = c.op[k];
    }
    memcpy(st, cur, sizeof cur);
    return true;
}

/* ---- memo of emitted (node, chain) pairs, per step graph and per dry run ---- */

static uint32_t *memo_find(sched_t *s, uint32_t node, const void *chain, bool *fresh) {
    uint32_t h = (node * 0x9E3779B1u) ^ (uint32_t)((uintptr_t)chain >> 4) * 0x85EBCA6Bu;
    for (uint32_t k = 0; k < 32; k++) {
        memo_e_t *e = &s->memo[(h + k) & (s->cap_memo - 1)];
        if (e->gen != s->gen) {
            e->gen = s->gen;
            e->node = node;
            e->chain = chain;
            *fresh = true;
            return &e->val;
        }
        if (e->node == node && e->chain == chain) {
            *fresh = false;
            return &e->val;
        }
    }
    *fresh = true;
    return NULL; /* crowded: no memo (still correct) */
}

/* ---- emitting eval nodes into a step graph ---- */

/* Whether v lives in the reduced shape of the reduce step now being assembled. */
static bool is_yk(const sched_t *s, const val_t *v) {
    return v->kind == V_LAZY && v->yk && s->open.on && s->in_reduce && v->yk_serial == s->open.serial;
}

static uint32_t emit(sched_t *s, uint32_t i, chain_t c, bool dry);

static uint32_t add_leaf_ref(sched_t *s, uint32_t node, uint32_t origin) {
    en_step_t *st = s->cur;
    if (!grow(s, s->ar, (void **)&st->leaves, &s->cap_leaves, st->n_leaves, sizeof *st->leaves))
        return NONE;
    st->leaves[st->n_leaves++] = (en_leaf_ref_t){node, origin};
    return node;
}

/* An INPUT node of the step graph reading slot through strides st, offset delta. */
static uint32_t emit_input(sched_t *s, uint32_t slot, int64_t delta, const int64_t *st,
                           loom_dtype_t dtype, int ndim, const int64_t *shape) {
    en_step_t *stp = s->cur;
    ir_graph_t *sg = &stp->sg;
    for (uint32_t j = 0; j < sg->n_nodes; j++) { /* the same read already there */
        const ir_node_t *n = &sg->nodes[j];
        if (n->op != IR_OP_INPUT || n->dtype != dtype || !same_shape_v(n->ndim, n->shape, ndim, shape))
            continue;
        if (stp->in_slot[n->input] == slot && stp->in_delta[n->input] == delta &&
            !memcmp(sg->inputs[n->input].strides, st, sizeof(int64_t) * LOOM_MAX_DIMS))
            return j;
    }
    ir_input_t in = {0};
    memcpy(in.strides, st, sizeof in.strides);
    in.offset = delta + (slot < s->p->n_inputs ? s->g->inputs[slot].offset : 0);
    in.owner = NULL; /* the slot is in in_slot */
    uint32_t k = ir_add_input(sg, &in);
    if (k == NONE) return NONE;
    uint32_t cap = s->cap_in; /* in_slot and in_delta grow together */
    if (!grow(s, s->ar, (void **)&stp->in_slot, &cap, k, sizeof *stp->in_slot) ||
        !grow(s, s->ar, (void **)&stp->in_delta, &s->cap_in, k, sizeof *stp->in_delta))
        return NONE;
    stp->in_slot[k] = slot;
    stp->in_delta[k] = delta;
    if (s->p->slots[slot].last_use == NONE || s->p->slots[slot].last_use < s->p->n_steps - 1)
        s->p->slots[slot].last_use = s->p->n_steps - 1;
    ir_node_t n = {0};
    n.op = IR_OP_INPUT;
    n.dtype = (uint8_t)dtype;
    n.ndim = (uint8_t)ndim;
    memcpy(n.shape, shape, sizeof(int64_t) * (size_t)ndim);
    n.input = (int32_t)k;
    return ir_emit(sg, &n);
}

/* A copy of eval node n with operands src and shape of template sh, into the step graph. */
static uint32_t emit_copy(sched_t *s, const ir_node_t *n, const uint32_t *src, const ir_node_t *sh) {
    ir_node_t m = *n;
    if (ir_ops[n->op].kind == IR_KIND_LEAF) /* tagged with its eval node: no CSE of two leaves */
        m.p.axis = (int64_t)(n - s->g->nodes) + 1; /* whose values may differ next time */
    m.ndim = sh->ndim;
    memcpy(m.shape, sh->shape, sizeof m.shape);
    for (int k = 0; k < 3; k++) m.src[k] = k < ir_ops[n->op].arity ? src[k] : 0;
    m.input = -1;
    return ir_emit(&s->cur->sg, &m);
}

/* A node in the open step's reduced shape (keepdims = 0 form Y), emitted in the keepdims = 1
 * form, so that it broadcasts against the step's operand shape like the reductions do. */
static uint32_t emit_y(sched_t *s, uint32_t i, bool dry) {
    const ir_graph_t *g = s->g;
    const ir_node_t *n = &g->nodes[i];
    const val_t *v = &s->val[i];
    if (v->kind == V_INSTEP) {
        if (n->p.keepdims) return NONE;
        s->used_instep = true;
        return dry ? 0 : s->red_sg[i];
    }
    bool fresh;
    uint32_t *m = memo_find(s, i, (const void *)(uintptr_t)1, &fresh);
    if (m && !fresh) return *m;
    uint32_t r = NONE;
    if (is_yk(s, v) && ir_ops[n->op].kind == IR_KIND_ELEM) {
        uint32_t src[3] = {0};
        r = 0;
        for (int k = 0; k < ir_ops[n->op].arity && r != NONE; k++) {
            uint32_t o = n->src[k];
            const val_t *ov = &s->val[o];
            if (ov->kind == V_INSTEP || is_yk(s, ov)) {
                src[k] = emit_y(s, o, dry);
            } else { /* broadcast to Y, then insert the reduced axes */
                bool fail = false;
                const ir_node_t *e = expand_to(s, &g->nodes[o], n, &fail);
                const ir_node_t *rs = templ(s, IR_OP_RESHAPE, s->open.x->ndim, s->open.yk);
                chain_t c0 = {0}, c1;
                if (fail || !rs || !chain_push_front(s, rs, c0, &c1)) return NONE;
                chain_t c2;
                if (!chain_push_front(s, e, c1, &c2)) return NONE;
                src[k] = emit(s, o, c2, dry);
            }
            if (src[k] == NONE) r = NONE;
        }
        if (r != NONE && !dry) {
            const ir_node_t *sh = templ(s, IR_OP_RESHAPE, s->open.x->ndim, s->open.yk);
            r = sh ? emit_copy(s, n, src, sh) : NONE;
        }
    }
    if (m) *m = r;
    return r;
}

/* An int64 scalar of the step graph whose value is fixed by the schedule (a gather's stride
 * and bound): no leaf reference, so runs never refresh it. */
static uint32_t emit_i64(sched_t *s, int64_t v) {
    ir_node_t m = {0};
    m.op = IR_OP_CONST;
    m.dtype = LOOM_DTYPE_I64;
    m.p.bits = (uint64_t)v;
    return ir_emit(&s->cur->sg, &m);
}

static uint32_t emit_i64_op(sched_t *s, ir_op_t op, uint32_t a, uint32_t b, const ir_node_t *sh) {
    if (a == NONE || b == NONE) return NONE;
    ir_node_t m = {0};
    m.op = (uint16_t)op;
    m.dtype = LOOM_DTYPE_I64;
    m.ndim = sh->ndim;
    memcpy(m.shape, sh->shape, sizeof m.shape);
    m.src[0] = a;
    m.src[1] = b;
    m.input = -1;
    return ir_emit(&s->cur->sg, &m);
}

/* GATHER node n (its data operand a buffer) read through chain c, as a LOAD: the data
 * buffer read through strides without the gathered axis, in the gather's own shape (so
 * that any view of the gather is a view of that read too), plus the index times the axis
 * stride. The index is clamped to the axis once more (INDEX nodes already raised on any
 * outside it), so no index reads outside the buffer. */
static uint32_t emit_gather(sched_t *s, const ir_node_t *n, chain_t c, bool dry) {
    const ir_graph_t *g = s->g;
    const ir_node_t *sh = chain_shape(c, n);
    const val_t *dv = &s->val[n->src[0]];
    if (dv->kind != V_BUF || s->no_gathers) return NONE;
    int ax = (int)n->p.axis;
    int64_t st0[LOOM_MAX_DIMS], st[LOOM_MAX_DIMS], delta;
    memcpy(st0, dv->st, sizeof st0);
    st0[ax] = 0;
    if (!chain_strides(n, st0, dv->delta, c, st, &delta)) return NONE;
    bool fail = false;
    const ir_node_t *e = expand_to(s, &g->nodes[n->src[1]], n, &fail);
    chain_t ci;
    if (fail || !chain_push_front(s, e, c, &ci)) return NONE;
    uint32_t x = emit(s, n->src[1], ci, dry);
    if (x == NONE || dry) return x;
    int64_t ext = g->nodes[n->src[0]].shape[ax];
    if (ext == 0) { /* nothing to read: the result is empty, or an INDEX node raised */
        ir_node_t z = {0};
        z.op = IR_OP_CONST;
        z.dtype = n->dtype;
        return ir_emit(&s->cur->sg, &z);
    }
    uint32_t in = emit_input(s, dv->slot, delta, st, (loom_dtype_t)n->dtype, sh->ndim, sh->shape);
    x = emit_i64_op(s, IR_OP_MAXIMUM, x, emit_i64(s, 0), sh);
    x = emit_i64_op(s, IR_OP_MINIMUM, x, emit_i64(s, ext - 1), sh);
    x = emit_i64_op(s, IR_OP_MULTIPLY, x, emit_i64(s, dv->st[ax]), sh);
    if (in == NONE || x == NONE) return NONE;
    ir_node_t m = {0};
    m.op = IR_OP_LOAD;
    m.dtype = n->dtype;
    m.ndim = sh->ndim;
    memcpy(m.shape, sh->shape, sizeof m.shape);
    m.src[0] = in;
    m.src[1] = x;
    m.input = -1;
    return ir_emit(&s->cur->sg, &m);
}

/* Whether reshape r of node n only adds or removes extent-1 axes (the flat index of every
 * element stays the same). */
static bool unit_reshape(const ir_node_t *n, const ir_node_t *r) {
    int a = 0, b = 0;
    for (;;) {
        while (a < n->ndim && n->shape[a] == 1) a++;
        while (b < r->ndim && r->shape[b] == 1) b++;
        if (a == n->ndim || b == r->ndim) return a == n->ndim && b == r->ndim;
        if (n->shape[a++] != r->shape[b++]) return false;
    }
}

/* Emits eval node i read through chain c into the current step graph, or with dry only
 * checks that it can be. The step graph node, or NONE where this step cannot express it. */
static uint32_t emit(sched_t *s, uint32_t i, chain_t c, bool dry) {
    const ir_graph_t *g = s->g;
    const ir_node_t *n = &g->nodes[i];
    const val_t *v = &s->val[i];
    const ir_node_t *sh = chain_shape(c, n);
    switch (v->kind) {
        case V_BUF: {
            int64_t st[LOOM_MAX_DIMS], delta;
            if (!chain_strides(n, v->st, v->delta, c, st, &delta)) return NONE;
            if (dry) return 0;
            return emit_input(s, v->slot, delta, st, (loom_dtype_t)n->dtype, sh->ndim, sh->shape);
        }
        case V_VIEW: {
            chain_t c2;
            if (!chain_cat(s, v->chain, c, &c2)) return NONE;
            return emit(s, v->base, c2, dry);
        }
        case V_INSTEP: {
            if (!s->in_reduce) return NONE;
            bool lead = true; /* reduced axes all leading: keepdims = 0 broadcasts the same */
            for (int ax = 0; ax < s->open.x->ndim; ax++)
                if (s->open.axes >> ax & 1) lead = lead && (ax == 0 || (s->open.axes >> (ax - 1) & 1));
            bool ok = c.n == 0 ? n->p.keepdims
                               : c.n == 1 && c.op[0]->op == IR_OP_EXPAND && (n->p.keepdims || lead);
            if (!ok) return NONE;
            s->used_instep = true;
            return dry ? 0 : s->red_sg[i];
        }
        case V_LAZY:
            break;
        default:
            return NONE;
    }
    bool fresh;
    uint32_t *m = memo_find(s, i, c.n ? (const void *)c.op : NULL, &fresh);
    if (m && !fresh) return *m;
    uint32_t r = NONE;
    if (is_yk(s, v)) {
        r = c.n == 0 ? emit_y(s, i, dry) : NONE;
    } else if (n->op == IR_OP_CONST) {
        r = dry ? 0 : emit_copy(s, n, NULL, sh);
        if (!dry && r != NONE) r = add_leaf_ref(s, r, i);
    } else if (ir_ops[n->op].kind == IR_KIND_LEAF) { /* generators: read by own index */
        /* A 1-D generator reshaped with unit axes added (arange(n)[:, None]) keeps its flat
         * index: it is the same generator in that shape. */
        const ir_node_t *own = n;
        uint32_t k0 = 0;
        if (c.n && c.op[0]->op == IR_OP_RESHAPE && n->op != IR_OP_EYE && unit_reshape(n, c.op[0]))
            own = c.op[0], k0 = 1;
        bool bcast = true; /* broadcasting alone: the kernel reads the generator broadcast */
        for (uint32_t k = k0; k < c.n; k++) bcast = bcast && c.op[k]->op == IR_OP_EXPAND;
        if (bcast && !s->no_generators) {
            r = dry ? 0 : emit_copy(s, n, NULL, own);
            if (!dry && r != NONE) r = add_leaf_ref(s, r, i);
        }
    } else if (ir_ops[n->op].kind == IR_KIND_ELEM) {
        uint32_t src[3] = {0};
        r = 0;
        for (int k = 0; k < ir_ops[n->op].arity && r != NONE; k++) {
            bool fail = false;
            const ir_node_t *e = expand_to(s, &g->nodes[n->src[k]], n, &fail);
            chain_t c2;
            if (fail || !chain_push_front(s, e, c, &c2)) return NONE;
            src[k] = emit(s, n->src[k], c2, dry);
            if (src[k] == NONE) r = NONE;
        }
        if (r != NONE && !dry) r = emit_copy(s, n, src, sh);
    } else if (ir_ops[n->op].kind == IR_KIND_GATHER) {
        r = emit_gather(s, n, c, dry);
    }
    if (m) *m = r;
    return r;
}

/* Whether node i can be emitted in the given context (no side effects). */
static bool can_emit(sched_t *s, uint32_t i, bool in_reduce, bool *used_instep) {
    s->gen = ++s->gen_top;
    s->in_reduce = in_reduce;
    s->no_generators = s->no_gathers = false;
    s->used_instep = false;
    chain_t c0 = {0};
    bool ok = emit(s, i, c0, true) != NONE;
    if (used_instep) *used_instep = s->used_instep;
    return ok;
}

/* ---- steps and slots ---- */

static uint32_t new_slot(sched_t *s, size_t bytes, uint32_t producer) {
    en_plan_t *p = s->p;
    if (!grow(s, s->ar, (void **)&p->slots, &s->cap_slots, p->n_slots, sizeof *p->slots))
        return NONE;
    p->slots[p->n_slots] = (en_slot_t){bytes, producer, NONE, false, false};
    return p->n_slots++;
}

static en_step_t *new_step(sched_t *s, en_step_kind_t kind) {
    en_plan_t *p = s->p;
    /* step graphs point into their own arrays, not into en_step: moving steps is fine */
    if (!grow(s, s->ar, (void **)&p->steps, &s->cap_steps, p->n_steps, sizeof *p->steps))
        return NULL;
    en_step_t *st = &p->steps[p->n_steps++];
    memset(st, 0, sizeof *st);
    st->kind = kind;
    ir_graph_init(&st->sg, s->ar, s->e->err);
    s->cur = st;
    s->cap_leaves = s->cap_in = s->cap_out = 0;
    s->gen = ++s->gen_top; /* a fresh memo for the new step graph */
    return st;
}

/* Adds sg node j as the step's next output, writing a new slot; the slot. */
static uint32_t step_output(sched_t *s, uint32_t j, const ir_node_t *shape_of) {
    en_step_t *st = s->cur;
    ir_graph_t *sg = &st->sg;
    if (j == NONE || !ir_add_output(sg, j)) return NONE;
    size_t bytes = (size_t)ir_node_size(shape_of) * ir_dtypes[shape_of->dtype].size;
    uint32_t slot = new_slot(s, bytes, s->p->n_steps - 1);
    if (slot == NONE ||
        !grow(s, s->ar, (void **)&st->out_slot, &s->cap_out, sg->n_outputs - 1, sizeof *st->out_slot))
        return NONE;
    st->out_slot[sg->n_outputs - 1] = slot;
    return slot;
}

static void set_buf(sched_t *s, uint32_t i, uint32_t slot) {
    val_t *v = &s->val[i];
    const ir_node_t *n = &s->g->nodes[i];
    v->kind = V_BUF;
    v->yk = false;
    v->slot = slot;
    v->delta = 0;
    contig_strides(n->ndim, n->shape, v->st);
}

/* Device addresses of the step graph's inputs at planning time (alignment choices): eval
 * inputs' real addresses, temps a 256-aligned stand-in (the pool aligns to 256). */
static uint64_t *plan_addrs(sched_t *s, const en_step_t *st) {
    uint64_t *a = base_arena_alloc(s->tmp, st->sg.n_inputs + 1, sizeof *a);
    if (!a) return oom(s), NULL;
    for (uint32_t k = 0; k < st->sg.n_inputs; k++)
        a[k] = st->in_slot[k] < s->p->n_inputs ? s->in_addr[st->in_slot[k]] : (uint64_t)1 << 20;
    return a;
}

static void src_elem(const void *o, uint32_t i, base_str_t *t, char *name) {
    (void)i;
    cg_kernel_source(o, t, name);
}
static void src_reduce(const void *o, uint32_t i, base_str_t *t, char *name) {
    cg_reduce_source(o, i, t, name);
}
static void src_scan(const void *o, uint32_t i, base_str_t *t, char *name) {
    (void)i;
    cg_scan_source(o, t, name);
}

static bool alloc_kerns(sched_t *s, en_step_t *st, uint32_t n) {
    st->kerns = base_arena_alloc(s->ar, n, sizeof *st->kerns);
    st->n_kerns = n;
    return st->kerns || oom(s);
}

/* The kernel of an elementwise step whose graph is complete. */
static bool finish_elem(sched_t *s, en_step_t *st) {
    uint64_t *addr = plan_addrs(s, st);
    if (!addr || !cg_kernel_init(&st->k, &st->sg, s->ar, st->sg.outputs, st->sg.n_outputs, addr))
        return oom(s);
    if (!alloc_kerns(s, st, 1)) return false;
    st->kerns[0] = en_kernel(s->e, cg_kernel_key(&st->k), src_elem, &st->k, 0);
    return st->kerns[0] != NULL;
}

/* One fused elementwise kernel writing eval nodes outs[0..n) (one shape), each to a slot. */
static bool elem_step(sched_t *s, const uint32_t *outs, uint32_t n, uint32_t *slots) {
    en_step_t *st = new_step(s, EN_STEP_ELEM);
    if (!st) return false;
    s->in_reduce = false;
    s->no_generators = s->no_gathers = false;
    chain_t c0 = {0};
    for (uint32_t k = 0; k < n; k++) {
        uint32_t j = emit(s, outs[k], c0, false);
        if (j == NONE) {
            if (!s->e->err->status)
                en_error(s->e, LOOM_STATUS_INTERNAL, "schedule: cannot emit node %u", outs[k]);
            return false;
        }
        const ir_node_t *want = &s->g->nodes[outs[k]], *got = &st->sg.nodes[j];
        if (got->ndim != want->ndim ||
            memcmp(got->shape, want->shape, (size_t)want->ndim * sizeof *want->shape)) {
            /* a generator read broadcast keeps its own shape (emit): the step writes it copied
             * over the whole result, not its own few elements */
            ir_node_t c = {0};
            c.op = IR_OP_CAST;
            c.dtype = want->dtype;
            uint32_t src[3] = {j, 0, 0};
            if ((j = emit_copy(s, &c, src, want)) == NONE) return false;
        }
        slots[k] = step_output(s, j, want);
        if (slots[k] == NONE) return false;
    }
    return finish_elem(s, st);
}

static bool close_open(sched_t *s);

/* Computes node i into a C-contiguous temp: its value becomes that buffer. */
static bool materialise(sched_t *s, uint32_t i) {
    if (!close_open(s)) return false;
    uint32_t slot;
    if (!elem_step(s, &i, 1, &slot)) return false;
    set_buf(s, i, slot);
    return true;
}

/* ---- reductions ---- */

static void reduced_shapes(sched_t *s, const ir_node_t *r) {
    const ir_node_t *x = &s->g->nodes[r->src[0]];
    s->open.x = x;
    s->open.axes = r->p.axes;
    s->open.ndim_y = 0;
    for (int ax = 0; ax < x->ndim; ax++) {
        bool red = r->p.axes >> ax & 1;
        s->open.yk[ax] = red ? 1 : x->shape[ax];
        if (!red) s->open.y[s->open.ndim_y++] = x->shape[ax];
    }
}

/* Whether anything after the open step reads its reduction r: a node that depends on r
 * (through any chain of nodes) and is not computed inside the step, that is a requested
 * result the step does not write (wr[0..nw)), a node of another kind than elementwise or view
 * (a reduction or scan of a later step, a matrix product, a join), or an elementwise node a
 * matrix product absorbs. Elementwise and view nodes are recomputed by whichever step reads
 * them, so they only pass the dependence on. Another reduction of the same step does not:
 * whatever reads it after the step reads its own buffer. dep: n_nodes flags of scratch. */
static bool read_later(sched_t *s, uint32_t r, const uint32_t *wr, uint32_t nw, bool *dep) {
    const ir_graph_t *g = s->g;
    for (uint32_t q = 0; q < g->n_outputs; q++)
        if (g->outputs[q] == r) return true;
    memset(dep, 0, g->n_nodes * sizeof *dep);
    dep[r] = true;
    for (uint32_t u = r + 1; u < g->n_nodes; u++) {
        const ir_node_t *n = &g->nodes[u];
        bool d = false;
        for (int k = 0; k < ir_ops[n->op].arity && !d; k++) d = dep[n->src[k]];
        dep[u] = d;
        if (!d) continue;
        bool own = false; /* a reduction of this step: it has its own buffer if read later */
        for (uint32_t k = 0; k < s->open.n && !own; k++) own = s->open.reds[k] == u;
        if (own) {
            dep[u] = false;
            continue;
        }
        ir_op_kind_t kind = ir_ops[n->op].kind;
        if ((kind != IR_KIND_ELEM && kind != IR_KIND_VIEW) || s->val[u].kind == V_ABSORBED)
            return true;
        for (uint32_t q = 0; q < g->n_outputs; q++) {
            if (g->outputs[q] != u) continue;
            bool written = false;
            for (uint32_t k = 0; k < nw && !written; k++) written = wr[k] == u;
            if (!written) return true;
        }
    }
    return false;
}

/* Finishes the reduce step being assembled: its graph, the requested results it can also
 * write, its kernels; its reductions become buffers. */
static bool close_open(sched_t *s) {
    if (!s->open.on) return true;
    const ir_graph_t *g = s->g;
    s->open.on = false;
    en_step_t *st = new_step(s, EN_STEP_REDUCE);
    if (!st) return false;
    s->in_reduce = true;
    s->no_generators = s->no_gathers = false;
    s->open.on = true; /* INSTEP values stay readable while the graph is emitted */
    chain_t c0 = {0};
    uint32_t *slots = base_arena_alloc(s->tmp, s->open.n + g->n_outputs, sizeof *slots);
    uint32_t *nodes = base_arena_alloc(s->tmp, s->open.n + g->n_outputs, sizeof *nodes);
    if (!slots || !nodes) return oom(s);
    uint32_t nout = 0, nw = 0;
    uint32_t *red_j = base_arena_alloc(s->tmp, s->open.n, sizeof *red_j);
    uint32_t *wr = base_arena_alloc(s->tmp, g->n_outputs + 1, sizeof *wr);
    if (!red_j || !wr) return oom(s);
    for (uint32_t k = 0; k < s->open.n; k++) {
        uint32_t r = s->open.reds[k];
        const ir_node_t *rn = &g->nodes[r];
        uint32_t src[3] = {emit(s, rn->src[0], c0, false)};
        if (src[0] == NONE) goto internal;
        ir_node_t keep = *rn;
        keep.ndim = s->open.x->ndim;
        memcpy(keep.shape, s->open.yk, sizeof keep.shape);
        keep.p.keepdims = 1;
        uint32_t j = emit_copy(s, &keep, src, &keep);
        if (j == NONE) return false;
        s->red_sg[r] = j;
        red_j[k] = j;
    }
    /* requested results that read the step's reductions and nothing later */
    uint32_t first = s->open.reds[0];
    for (uint32_t q = 0; q < g->n_outputs; q++) {
        uint32_t o = g->outputs[q];
        const val_t *v = &s->val[o];
        if (o <= first || (v->kind != V_LAZY && v->kind != V_VIEW)) continue;
        bool dup = false;
        for (uint32_t k = 0; k < nw; k++) dup = dup || wr[k] == o;
        if (dup) continue;
        const ir_node_t *on = &g->nodes[o];
        bool x_space = same_shape_v(on->ndim, on->shape, s->open.x->ndim, s->open.x->shape);
        bool y_space = is_yk(s, v) || same_shape_v(on->ndim, on->shape, s->open.x->ndim, s->open.yk);
        if (!x_space && !y_space) continue;
        if (x_space && !s->open.stage && !s->open.online) continue;
        /* only nodes scheduled so far (in order: o's operands come before o) */
        if (s->val[o].kind == V_NONE) continue;
        uint32_t gen = s->gen;
        s->used_instep = false;
        s->gen = ++s->gen_top;
        bool ok = emit(s, o, c0, true) != NONE && s->used_instep;
        s->gen = gen; /* back to the step graph's memo */
        if (ok) wr[nw++] = o;
    }
    /* The step's outputs: first its reductions that anything after it reads, then the
     * results it writes. A reduction that only this step's own results read (layernorm's
     * mean and variance) gets no buffer and no store. */
    bool *dead = base_arena_alloc(s->tmp, s->open.n, sizeof *dead);
    bool *dep = base_arena_alloc(s->tmp, g->n_nodes, sizeof *dep);
    if (!dead || !dep) return oom(s);
    for (uint32_t k = 0; k < s->open.n; k++) {
        uint32_t r = s->open.reds[k];
        dead[k] = !read_later(s, r, wr, nw, dep);
        if (dead[k]) continue;
        nodes[nout] = r;
        slots[nout] = step_output(s, red_j[k], &g->nodes[r]);
        if (slots[nout++] == NONE) return false;
    }
    for (uint32_t k = 0; k < nw; k++) {
        uint32_t o = wr[k];
        uint32_t j = emit(s, o, c0, false);
        if (j == NONE) goto internal;
        nodes[nout] = o;
        slots[nout] = step_output(s, j, &g->nodes[o]);
        if (slots[nout++] == NONE) return false;
    }
    for (uint32_t k = 0; k < s->open.n; k++) /* nothing may read these: emit fails loudly */
        if (dead[k]) s->val[s->open.reds[k]].kind = V_NONE;
    s->open.on = false;
    uint64_t *addr = plan_addrs(s, st);
    if (!addr) return false;
    st->red = cg_reduce_init(&st->sg, s->ar, st->sg.outputs, st->sg.n_outputs, addr, s->sm);
    if (!st->red) return oom(s);
    if (!alloc_kerns(s, st, cg_reduce_n_kernels(st->red))) return false;
    for (uint32_t k = 0; k < st->n_kerns; k++) {
        st->kerns[k] = en_kernel(s->e, cg_reduce_key(st->red, k), src_reduce, st->red, k);
        if (!st->kerns[k]) return false;
    }
    for (uint32_t k = 0; k < nout; k++) set_buf(s, nodes[k], slots[k]);
    s->open.n = 0;
    return true;
internal:
    s->open.on = false;
    if (!s->e->err->status)
        en_error(s->e, LOOM_STATUS_INTERNAL, "schedule: reduce step emission failed");
    return false;
}

static bool open_push(sched_t *s, uint32_t r) {
    if (!grow(s, s->tmp, (void **)&s->open.reds, &s->open.cap, s->open.n, sizeof *s->open.reds))
        return false;
    s->open.reds[s->open.n++] = r;
    s->val[r].kind = V_INSTEP;
    return true;
}

/* Whether reduction i, reading the open step's reductions, joins the split step as an
 * online sum: the sum of exp(a - m) for a max m = max(a) of the step (split softmax). */
static bool online_joins(sched_t *s, uint32_t i) {
    const ir_node_t *x = s->open.x;
    if (!cg_reduce_can_online(x->ndim, x->shape, s->open.axes, s->sm)) return false;
    uint32_t m = cg_reduce_online_max(s->g, i);
    return m != NONE && s->val[m].kind == V_INSTEP;
}

static bool sched_reduce(sched_t *s, uint32_t i) {
    const ir_node_t *r = &s->g->nodes[i];
    const ir_node_t *x = &s->g->nodes[r->src[0]];
    if (s->open.on && r->p.axes == s->open.axes &&
        same_shape_v(x->ndim, x->shape, s->open.x->ndim, s->open.x->shape)) {
        bool staged, ok = can_emit(s, r->src[0], true, &staged);
        if (ok && (!staged || s->open.stage)) return open_push(s, i);
        if (ok && staged && !s->open.stage && online_joins(s, i)) {
            s->open.online = true;
            return open_push(s, i);
        }
    }
    if (!close_open(s)) return false;
    if (!can_emit(s, r->src[0], true, NULL) && !materialise(s, r->src[0])) return false;
    s->open.on = true;
    s->open.online = false;
    s->open.n = 0;
    s->open.serial++;
    reduced_shapes(s, r);
    s->open.stage = cg_reduce_can_stage(x->ndim, x->shape, r->p.axes, s->sm);
    return open_push(s, i);
}

/* ---- scans, matrix products, joins, views ---- */

static bool sched_scan(sched_t *s, uint32_t i) {
    const ir_node_t *n = &s->g->nodes[i];
    int arity = ir_ops[n->op].arity; /* COMPRESS: the mask and the values, in one kernel */
    if (!close_open(s)) return false;
    for (int k = 0; k < arity; k++) {
        bool ok = can_emit(s, n->src[k], true, NULL);
        s->gen = ++s->gen_top; /* the scan's code generator reads INPUT and CONST leaves only */
        s->no_generators = s->no_gathers = true;
        ok = ok && emit(s, n->src[k], (chain_t){0}, true) != NONE;
        if (!ok && !materialise(s, n->src[k])) return false;
    }
    en_step_t *st = new_step(s, EN_STEP_SCAN);
    if (!st) return false;
    s->in_reduce = true;
    s->no_generators = s->no_gathers = true;
    chain_t c0 = {0};
    uint32_t src[3] = {0};
    for (int k = 0; k < arity; k++)
        if ((src[k] = emit(s, n->src[k], c0, false)) == NONE)
            return en_error(s->e, LOOM_STATUS_INTERNAL, "schedule: scan operand"), false;
    uint32_t j = emit_copy(s, n, src, n);
    uint32_t slot = step_output(s, j, n);
    if (slot == NONE) return false;
    uint64_t *addr = plan_addrs(s, st);
    if (!addr) return false;
    st->scan = cg_scan_init(&st->sg, s->ar, j, addr, s->sm, s->l2);
    if (!st->scan) return oom(s);
    if (!alloc_kerns(s, st, 1)) return false;
    st->kerns[0] = en_kernel(s->e, cg_scan_key(st->scan), src_scan, st->scan, 0);
    if (!st->kerns[0]) return false;
    set_buf(s, i, slot);
    return true;
}

static void src_sort(const void *o, uint32_t i, base_str_t *t, char *name) {
    cg_sort_source(o, i, t, name);
}

/* Makes node o a C-contiguous buffer (a copy where it is anything else). */
static bool as_contig(sched_t *s, uint32_t o) {
    const ir_node_t *on = &s->g->nodes[o];
    if (s->val[o].kind == V_INSTEP && !close_open(s)) return false;
    const val_t *v = &s->val[o];
    if (v->kind == V_BUF && is_contig(on->ndim, on->shape, v->st)) return true;
    return materialise(s, o);
}

/* A step of `kind` over node i, whose operands are buffers by now: its step graph (their INPUT
 * nodes and a copy of i, *j) and its output slot (NONE on failure). */
static uint32_t fixed_step(sched_t *s, uint32_t i, en_step_kind_t kind, en_step_t **st,
                           uint32_t *j) {
    const ir_node_t *n = &s->g->nodes[i];
    if (!(*st = new_step(s, kind))) return NONE;
    s->in_reduce = false;
    s->no_generators = s->no_gathers = true;
    chain_t c0 = {0};
    uint32_t src[3] = {0};
    for (int k = 0; k < ir_ops[n->op].arity; k++)
        if ((src[k] = emit(s, n->src[k], c0, false)) == NONE) {
            en_error(s->e, LOOM_STATUS_INTERNAL, "schedule: %s operand", ir_ops[n->op].name);
            return NONE;
        }
    *j = emit_copy(s, n, src, n);
    return step_output(s, *j, n);
}

/* A sort, argsort, searchsorted, flatnonzero or scatter: one step of fixed kernels over
 * C-contiguous operands (a scatter's values may also be one element broadcast). */
static bool sched_sort(sched_t *s, uint32_t i) {
    const ir_graph_t *g = s->g;
    const ir_node_t *n = &g->nodes[i];
    if (!close_open(s)) return false;
    for (int k = 0; k < ir_ops[n->op].arity; k++) {
        uint32_t o = n->src[k];
        const val_t *v = &s->val[o];
        bool one = true; /* a scatter's values: one element read through stride 0 */
        for (int ax = 0; ax < LOOM_MAX_DIMS; ax++) one = one && v->st[ax] == 0;
        if (n->op == IR_OP_SCATTER && k == 2 && v->kind == V_BUF && one) continue;
        if (!as_contig(s, o)) return false;
    }
    en_step_t *st;
    uint32_t j = 0, slot = fixed_step(s, i, EN_STEP_SORT, &st, &j);
    if (slot == NONE) return false;
    st->sort = base_arena_alloc(s->ar, 1, sizeof *st->sort);
    if (!st->sort) return oom(s);
    cg_sort_init(st->sort, &st->sg, j, s->sm, s->smem, s->smem_block);
    if (!alloc_kerns(s, st, cg_sort_n_kernels(st->sort))) return false;
    for (uint32_t k = 0; k < st->n_kerns; k++)
        if (!(st->kerns[k] = en_kernel(s->e, cg_sort_key(st->sort, k), src_sort, st->sort, k)))
            return false;
    set_buf(s, i, slot);
    return true;
}

/* The kernels of factorisation step st (node n as its step graph holds it: a copy of the eval
 * node, or a stack of several). */
static bool linalg_kernels(sched_t *s, en_step_t *st, const ir_node_t *n, const ir_node_t *a0) {
    int64_t rows = a0->shape[a0->ndim - 1];
    loom_dtype_t dt = (loom_dtype_t)a0->dtype;
    bool cplx = ir_is_complex(dt);
    bool small = en_linalg_small(n->op, rows, dt);
    bool trans = n->op == IR_OP_CHOLESKY && n->p.k == 1; /* the operand is A, not A^T */
    uint32_t nk = small || trans || n->op == IR_OP_LU || n->op == IR_OP_EIG ? 2 : 1;
    if (!alloc_kerns(s, st, nk)) return false;
    uint32_t f64 = ir_real_dtype(dt) == LOOM_DTYPE_F64;
    if (small) { /* a thread a matrix */
        uint32_t idx = (uint32_t)rows * 2 + f64 +
                       (n->op == IR_OP_CHOLESKY ? EN_SMALL_CHOLESKY : 0) +
                       (trans ? EN_SMALL_TRANSPOSED : 0);
        st->kerns[0] =
            en_kernel(s->e, en_linalg_small_key(dt, idx), en_linalg_small_source, NULL, idx);
    } else if (trans) {
        uint32_t es = (uint32_t)ir_dtypes[dt].size;
        st->kerns[0] =
            en_kernel(s->e, en_linalg_transpose_key(es), en_linalg_transpose_source, NULL, es);
    }
    if (n->op == IR_OP_LU)
        st->kerns[0] = en_kernel(s->e, en_linalg_pivots_key(dt), en_linalg_pivots_source,
                                 NULL, f64 | (cplx ? 2u : 0u));
    if (n->op == IR_OP_EIG)
        st->kerns[0] = en_kernel(s->e, en_linalg_nonfinite_key(dt), en_linalg_nonfinite_source,
                                 NULL, f64);
    st->kerns[nk - 1] = en_kernel(s->e, en_linalg_first_bad_key(),
                                     en_linalg_first_bad_source, NULL, 0);
    for (uint32_t k = 0; k < nk; k++)
        if (!st->kerns[k]) return false;
    return true;
}

/* A factorisation: one step over C-contiguous operands (cuSOLVER works on copies of them). */
static bool sched_linalg(sched_t *s, uint32_t i) {
    const ir_graph_t *g = s->g;
    const ir_node_t *n = &g->nodes[i];
    if (!close_open(s)) return false;
    for (int k = 0; k < ir_ops[n->op].arity; k++)
        if (!as_contig(s, n->src[k])) return false;
    en_step_t *st;
    uint32_t j = 0, slot = fixed_step(s, i, EN_STEP_LINALG, &st, &j);
    if (slot == NONE || !linalg_kernels(s, st, n, &g->nodes[n->src[0]])) return false;
    set_buf(s, i, slot);
    return true;
}

/* A transform (FFT node): one cuFFT step over a C-contiguous operand. */
static bool sched_fft(sched_t *s, uint32_t i) {
    const ir_node_t *n = &s->g->nodes[i];
    uint32_t o = n->src[0];
    if (!close_open(s) || !as_contig(s, o)) return false;
    /* cuFFT's C2R overwrites its input: a temp this node alone reads, else a copy */
    const val_t *v = &s->val[o];
    ir_op_kind_t ok = ir_ops[s->g->nodes[o].op].kind;
    bool copy = n->p.k == IR_FFT_C2R && (v->slot < s->p->n_inputs || v->delta != 0 ||
                                         s->n_users[o] != 1 || ok == IR_KIND_VIEW ||
                                         ok == IR_KIND_LEAF);
    val_t keep = s->val[o]; /* the copy is the step's alone: later readers keep o's own */
    if (copy && !materialise(s, o)) return false;
    en_step_t *st;
    uint32_t j = 0, slot = fixed_step(s, i, EN_STEP_FFT, &st, &j);
    if (slot == NONE) return false;
    if (copy) s->val[o] = keep;
    set_buf(s, i, slot);
    return true;
}

/* Makes node o readable by a library call: a buffer (materialised when an expression). */
static bool as_buffer(sched_t *s, uint32_t o) {
    return s->val[o].kind == V_BUF || materialise(s, o);
}

/* The matrix product mm and the epilogue nodes matmul_plan.c absorbs (ep[0..n), increasing, the
 * last one the step's result): one step. */
static bool sched_gemm(sched_t *s, uint32_t mm, const uint32_t *ep, uint32_t n) {
    const ir_graph_t *g = s->g;
    if (!close_open(s)) return false;
    uint32_t last = n ? ep[n - 1] : mm;
    for (uint32_t c = 0; c <= n; c++) { /* operands outside the step: buffers or CONST */
        const ir_node_t *nd = &g->nodes[c ? ep[c - 1] : mm];
        for (int k = 0; k < ir_ops[nd->op].arity; k++) {
            uint32_t o = nd->src[k];
            if (s->val[o].kind == V_ABSORBED) continue;
            if (c && g->nodes[o].op == IR_OP_CONST && s->val[o].kind == V_LAZY) continue;
            if (!as_buffer(s, o)) return false;
        }
    }
    en_step_t *st = new_step(s, EN_STEP_GEMM);
    if (!st) return false;
    s->in_reduce = false;
    s->no_generators = s->no_gathers = true;
    chain_t c0 = {0};
    uint32_t *map = base_arena_alloc(s->tmp, n + 1, sizeof *map); /* sg node of mm, ep[k] */
    if (!map) return oom(s);
    for (uint32_t c = 0; c <= n; c++) {
        const ir_node_t *nd = &g->nodes[c ? ep[c - 1] : mm];
        uint32_t src[3] = {0};
        for (int k = 0; k < ir_ops[nd->op].arity; k++) {
            uint32_t o = nd->src[k];
            src[k] = NONE;
            if (o == mm) src[k] = map[0];
            for (uint32_t e = 0; e + 1 < c; e++)
                if (ep[e] == o) src[k] = map[e + 1];
            if (src[k] == NONE) src[k] = emit(s, o, c0, false);
            if (src[k] == NONE)
                return en_error(s->e, LOOM_STATUS_INTERNAL, "schedule: matmul operand"), false;
        }
        map[c] = emit_copy(s, nd, src, nd);
        if (map[c] == NONE) return false;
    }
    uint32_t slot = step_output(s, map[n], &g->nodes[last]);
    if (slot == NONE) return false;
    set_buf(s, last, slot);
    return true;
}

static bool sched_concat(sched_t *s, uint32_t i) {
    const ir_graph_t *g = s->g;
    const ir_node_t *n = &g->nodes[i];
    if (!close_open(s)) return false;
    for (int k = 0; k < 2; k++) {
        uint32_t o = n->src[k];
        const ir_node_t *on = &g->nodes[o];
        if (s->val[o].kind == V_BUF && is_contig(on->ndim, on->shape, s->val[o].st)) continue;
        if (!materialise(s, o)) return false;
    }
    en_step_t *st = new_step(s, EN_STEP_CONCAT);
    if (!st) return false;
    st->concat_axis = (int)n->p.axis;
    chain_t c0 = {0};
    s->in_reduce = false;
    uint32_t src[3] = {emit(s, n->src[0], c0, false), emit(s, n->src[1], c0, false)};
    if (src[0] == NONE || src[1] == NONE) return false;
    uint32_t j = emit_copy(s, n, src, n);
    uint32_t slot = step_output(s, j, n);
    if (slot == NONE) return false;
    set_buf(s, i, slot);
    return true;
}

static bool sched_view(sched_t *s, uint32_t i) {
    const ir_graph_t *g = s->g;
    const ir_node_t *n = &g->nodes[i];
    uint32_t o = n->src[0];
    if (s->val[o].kind == V_INSTEP && !close_open(s)) return false;
    for (int attempt = 0; attempt < 3; attempt++) {
        val_t *ov = &s->val[o];
        chain_t one = {(const ir_node_t **)&g->nodes, 0};
        const ir_node_t **op1 = base_arena_alloc(s->tmp, 1, sizeof *op1);
        if (!op1) return oom(s);
        op1[0] = n;
        one.op = op1;
        one.n = 1;
        if (ov->kind == V_BUF) {
            val_t nv = *ov;
            if (chain_strides(&g->nodes[o], ov->st, ov->delta, one, nv.st, &nv.delta)) {
                s->val[i] = nv;
                return true;
            }
        } else if (ov->kind == V_LAZY || ov->kind == V_VIEW) {
            val_t nv = {0};
            nv.kind = V_VIEW;
            nv.base = ov->kind == V_VIEW ? ov->base : o;
            chain_t pre = ov->kind == V_VIEW ? ov->chain : (chain_t){0};
            /* a reshape to the operand's own shape reads it as it is */
            bool same = n->op == IR_OP_RESHAPE &&
                        same_shape_v(n->ndim, n->shape, g->nodes[o].ndim, g->nodes[o].shape);
            if (!chain_cat(s, pre, same ? (chain_t){0} : one, &nv.chain)) return false;
            s->val[i] = nv;
            if (can_emit(s, i, false, NULL)) return true;
            s->val[i].kind = V_NONE;
            if (s->open.on) {
                if (!close_open(s)) return false;
                continue;
            }
        }
        if (!materialise(s, o)) return false; /* a contiguous copy takes any view */
    }
    return en_error(s->e, LOOM_STATUS_INTERNAL, "schedule: view of node %u", o), false;
}


/* ---- horizontal batching ----
 * Requested results of one shape computed by the same expression over different inputs
 * (1000 images, each `x * 2 + 1`) become one kernel over a batch axis, when the inputs lie
 * at one stride from each other (the packed upload of transfer.c puts same-sized host
 * inputs so) and the scalars agree. Their results are pieces of one buffer, so that reading
 * them back is one copy too. */
#define BATCH_MIN 4
#define BATCH_MAX_NODES 256

/* The expression under o in post-order, each node once; false when o is not batchable
 * (views, generators, reductions, anything but elementwise ops over eval inputs and CONST). */
static bool canon_rec(sched_t *s, uint32_t i, uint32_t *list, uint32_t *n) {
    if (s->pos_gen[i] == s->pgen) return true;
    const ir_node_t *nd = &s->g->nodes[i];
    const val_t *v = &s->val[i];
    if (v->kind == V_BUF) {
        if (nd->op != IR_OP_INPUT || v->slot >= s->p->n_inputs || v->delta) return false;
    } else if (v->kind == V_LAZY && ir_ops[nd->op].kind == IR_KIND_ELEM) {
        for (int k = 0; k < ir_ops[nd->op].arity; k++)
            if (!canon_rec(s, nd->src[k], list, n)) return false;
    } else if (!(v->kind == V_LAZY && nd->op == IR_OP_CONST)) {
        return false;
    }
    if (*n == BATCH_MAX_NODES) return false;
    s->pos_gen[i] = s->pgen;
    s->pos_val[i] = *n;
    list[(*n)++] = i;
    return true;
}

static bool canon(sched_t *s, uint32_t o, uint32_t *list, uint32_t *n) {
    s->pgen++;
    *n = 0;
    return canon_rec(s, o, list, n);
}

/* Words describing the canonical walk: equal words = the same expression up to which inputs. */
static uint32_t signature(sched_t *s, const uint32_t *list, uint32_t n, uint64_t *w) {
    uint32_t m = 0;
    for (uint32_t p = 0; p < n; p++) {
        const ir_node_t *nd = &s->g->nodes[list[p]];
        w[m++] = (uint64_t)nd->op | (uint64_t)nd->dtype << 16 | (uint64_t)nd->ndim << 24;
        for (int ax = 0; ax < nd->ndim; ax++) w[m++] = (uint64_t)nd->shape[ax];
        if (nd->op == IR_OP_INPUT)
            for (int ax = 0; ax < nd->ndim; ax++) w[m++] = (uint64_t)s->g->inputs[nd->input].strides[ax];
        else if (nd->op == IR_OP_CONST)
            w[m++] = nd->p.bits;
        else
            for (int k = 0; k < ir_ops[nd->op].arity; k++) w[m++] = s->pos_val[nd->src[k]];
    }
    return m;
}

#define SIG_MAX (BATCH_MAX_NODES * (2 + 2 * LOOM_MAX_DIMS))

static uint64_t input_addr_of(const sched_t *s, uint32_t node) {
    const ir_node_t *nd = &s->g->nodes[node];
    const ir_input_t *in = &s->g->inputs[nd->input];
    return s->in_addr[nd->input] + (uint64_t)(in->offset * (int64_t)ir_dtypes[nd->dtype].size);
}

/* Registers batch b's condition (its members' inputs at one stride), which run.c checks on
 * every reuse of the plan. */
static bool add_batch(sched_t *s, en_batch_t b) {
    en_plan_t *p = s->p;
    if (!grow(s, s->ar, (void **)&p->batches, &s->cap_batches, p->n_batches, sizeof *p->batches))
        return false;
    p->batches[p->n_batches++] = b;
    return true;
}

/* One kernel for members[0..nm) (their canonical walks lists[k], len nodes each). */
static bool batch_step(sched_t *s, uint32_t **lists, uint32_t nm, uint32_t len, uint32_t *slot) {
    const ir_graph_t *g = s->g;
    en_plan_t *p = s->p;
    const ir_node_t *out = &g->nodes[lists[0][len - 1]];
    int R = out->ndim;
    if (R + 1 > LOOM_MAX_DIMS) return true; /* no room for the batch axis: not batched */
    uint32_t nl = 0;
    for (uint32_t q = 0; q < len; q++) nl += ir_ops[g->nodes[lists[0][q]].op].kind == IR_KIND_LEAF;
    int64_t *stride = base_arena_alloc(s->ar, nl + 1, sizeof *stride);
    uint32_t *leaf = base_arena_alloc(s->ar, (size_t)nm * nl + 1, sizeof *leaf);
    uint32_t *map = base_arena_alloc(s->tmp, len, sizeof *map);
    if (!stride || !leaf || !map) return oom(s);
    for (uint32_t q = 0, j = 0; q < len; q++) { /* inputs one stride apart? */
        const ir_node_t *nd = &g->nodes[lists[0][q]];
        if (ir_ops[nd->op].kind != IR_KIND_LEAF) continue;
        stride[j] = 0;
        if (nd->op == IR_OP_INPUT) {
            int64_t es = (int64_t)ir_dtypes[nd->dtype].size;
            uint64_t a0 = input_addr_of(s, lists[0][q]);
            stride[j] = (int64_t)(input_addr_of(s, lists[1][q]) - a0);
            if (stride[j] % es) return true;
            for (uint32_t k = 2; k < nm; k++)
                if (input_addr_of(s, lists[k][q]) != a0 + (uint64_t)((int64_t)k * stride[j]))
                    return true;
        }
        for (uint32_t k = 0; k < nm; k++) leaf[(size_t)k * nl + j] = lists[k][q];
        j++;
    }
    en_step_t *st = new_step(s, EN_STEP_ELEM);
    if (!st) return false;
    canon(s, lists[0][len - 1], lists[0], &len); /* member 0's positions, for operands */
    for (uint32_t q = 0, j = 0; q < len; q++) {
        uint32_t i0 = lists[0][q];
        const ir_node_t *nd = &g->nodes[i0];
        ir_node_t sh = *nd; /* batch axis first, the member's axes padded to R */
        sh.ndim = (uint8_t)(R + 1);
        sh.shape[0] = nm;
        for (int ax = 0; ax < R; ax++)
            sh.shape[1 + ax] = ax < R - nd->ndim ? 1 : nd->shape[ax - (R - nd->ndim)];
        if (nd->op == IR_OP_INPUT) {
            int64_t bst[LOOM_MAX_DIMS] = {0};
            bst[0] = stride[j++] / (int64_t)ir_dtypes[nd->dtype].size;
            for (int ax = 0; ax < nd->ndim; ax++)
                bst[1 + R - nd->ndim + ax] = g->inputs[nd->input].strides[ax];
            map[q] = emit_input(s, (uint32_t)nd->input, 0, bst, (loom_dtype_t)nd->dtype, R + 1,
                                sh.shape);
        } else if (nd->op == IR_OP_CONST) {
            j++;
            map[q] = emit_copy(s, nd, NULL, nd);
            if (map[q] != NONE) map[q] = add_leaf_ref(s, map[q], i0);
        } else {
            uint32_t src[3] = {0};
            for (int k = 0; k < ir_ops[nd->op].arity; k++) src[k] = map[s->pos_val[nd->src[k]]];
            map[q] = emit_copy(s, nd, src, &sh);
        }
        if (map[q] == NONE) return false;
    }
    ir_node_t whole = *out;
    whole.ndim = 1;
    whole.shape[0] = (int64_t)nm * ir_node_size(out);
    *slot = step_output(s, map[len - 1], &whole);
    if (*slot == NONE || !finish_elem(s, st)) return false;
    p->slots[*slot].output = p->slots[*slot].batched = true;
    return add_batch(s, (en_batch_t){nm, nl, leaf, stride});
}

/* Batches the pending results that share an expression; marks them done. */
static bool batch_outputs(sched_t *s, bool *done) {
    const ir_graph_t *g = s->g;
    en_plan_t *p = s->p;
    uint32_t no = g->n_outputs;
    if (no < BATCH_MIN) return true;
    uint32_t **lists = base_arena_alloc(s->tmp, no, sizeof *lists);
    uint32_t *len = base_arena_alloc(s->tmp, no, sizeof *len);
    uint64_t **sig = base_arena_alloc(s->tmp, no, sizeof *sig);
    uint32_t *nsig = base_arena_alloc(s->tmp, no, sizeof *nsig);
    uint32_t *mem = base_arena_alloc(s->tmp, no, sizeof *mem);
    uint32_t **mlists = base_arena_alloc(s->tmp, no, sizeof *mlists);
    uint64_t *w = base_arena_alloc(s->tmp, SIG_MAX, sizeof *w);
    if (!lists || !len || !sig || !nsig || !mem || !mlists || !w) return oom(s);
    for (uint32_t q = 0; q < no; q++) {
        if (done[q]) continue;
        bool first = p->out_first[q] == q; /* a node requested twice: once */
        lists[q] = base_arena_alloc(s->tmp, BATCH_MAX_NODES, sizeof *lists[q]);
        if (!lists[q]) return oom(s);
        if (!first || !canon(s, g->outputs[q], lists[q], &len[q])) continue;
        nsig[q] = signature(s, lists[q], len[q], w);
        sig[q] = base_arena_alloc(s->tmp, nsig[q], sizeof *sig[q]);
        if (!sig[q]) return oom(s);
        memcpy(sig[q], w, nsig[q] * sizeof *w);
    }
    for (uint32_t q = 0; q < no; q++) {
        if (done[q] || !sig[q]) continue;
        uint32_t nm = 0;
        for (uint32_t r = q; r < no; r++)
            if (!done[r] && sig[r] && nsig[r] == nsig[q] &&
                !memcmp(sig[r], sig[q], nsig[q] * sizeof *sig[q])) {
                mem[nm] = r;
                mlists[nm++] = lists[r];
            }
        if (nm < BATCH_MIN) continue;
        uint32_t nb = p->n_batches, slot = NONE;
        if (!batch_step(s, mlists, nm, len[q], &slot)) return false;
        if (p->n_batches == nb) continue; /* inputs not one stride apart */
        const ir_node_t *on = &g->nodes[g->outputs[q]];
        uint64_t bytes = (uint64_t)ir_node_size(on) * ir_dtypes[on->dtype].size;
        for (uint32_t k = 0; k < nm; k++) {
            p->out_slot[mem[k]] = slot;
            p->out_off[mem[k]] = k * bytes;
            done[mem[k]] = true;
        }
        for (uint32_t r = 0; r < no; r++) /* the same nodes asked again */
            if (!done[r] && done[p->out_first[r]] && p->slots[p->out_slot[p->out_first[r]]].batched) {
                p->out_slot[r] = p->out_slot[p->out_first[r]];
                p->out_off[r] = p->out_off[p->out_first[r]];
                done[r] = true;
            }
    }
    return true;
}

/* ---- batched factorisations ----
 * Separate factorisations of one kind and shape whose operands are views of eval inputs
 * (10,000 solves of 8 x 8 systems built in a loop) become one step over their stack, when
 * each operand's members lie at one stride from each other (the packed upload puts
 * same-sized host inputs so; rows of one array are so). A stack is read where it lies when it
 * is rows of one buffer in order, else one copy kernel gathers it. Each node's result is a
 * piece of the step's buffer, handed out without a copy when it is read as it lies. The steps
 * come first in the plan: their operands are eval inputs, ready from the start. */

#define LA_OPERANDS 2
#define LA_VIEWS    32

typedef struct la_cand {
    uint64_t sig;
    uint32_t node;
    uint32_t leaf[LA_OPERANDS]; /* the INPUT node under each operand */
    int64_t delta[LA_OPERANDS]; /* elements from that input's own offset to the operand */
    int64_t st[LA_OPERANDS][LOOM_MAX_DIMS];
} la_cand_t;

/* Operand o of a factorisation as a view of an eval input (*leaf, the INPUT node): its offset
 * past the input's own and its strides. False when o is anything else. */
static bool la_operand(const ir_graph_t *g, uint32_t o, uint32_t *leaf, int64_t *delta,
                       int64_t *st) {
    const ir_node_t *views[LA_VIEWS];
    uint32_t n = 0;
    for (; ir_ops[g->nodes[o].op].kind == IR_KIND_VIEW; o = g->nodes[o].src[0]) {
        if (n == LA_VIEWS) return false;
        views[n++] = &g->nodes[o];
    }
    const ir_node_t *in = &g->nodes[o];
    if (in->op != IR_OP_INPUT) return false;
    for (uint32_t k = 0; k < n / 2; k++) { /* applied from the input outwards */
        const ir_node_t *t = views[k];
        views[k] = views[n - 1 - k];
        views[n - 1 - k] = t;
    }
    *leaf = o;
    return chain_strides(in, g->inputs[in->input].strides, 0, (chain_t){views, n}, st, delta);
}

/* Whether factorisations a and b are alike: kind, shapes and operand layouts. */
static bool la_same(const ir_graph_t *g, const la_cand_t *a, const la_cand_t *b) {
    const ir_node_t *na = &g->nodes[a->node], *nb = &g->nodes[b->node];
    if (na->op != nb->op || na->dtype != nb->dtype || na->p.k != nb->p.k ||
        !same_shape_v(na->ndim, na->shape, nb->ndim, nb->shape))
        return false;
    for (int k = 0; k < ir_ops[na->op].arity; k++) {
        const ir_node_t *oa = &g->nodes[na->src[k]], *ob = &g->nodes[nb->src[k]];
        if (oa->dtype != ob->dtype || !same_shape_v(oa->ndim, oa->shape, ob->ndim, ob->shape) ||
            memcmp(a->st[k], b->st[k], sizeof a->st[k]))
            return false;
    }
    return true;
}

static uint64_t la_sig(const ir_graph_t *g, const la_cand_t *c) {
    const ir_node_t *n = &g->nodes[c->node];
    uint64_t h = base_hash_mix(0x6c61, n->op | (uint64_t)n->dtype << 16 | (uint64_t)n->ndim << 24);
    h = base_hash_mix(h, (uint64_t)n->p.k);
    for (int ax = 0; ax < n->ndim; ax++) h = base_hash_mix(h, (uint64_t)n->shape[ax]);
    for (int k = 0; k < ir_ops[n->op].arity; k++) {
        const ir_node_t *o = &g->nodes[n->src[k]];
        h = base_hash_mix(h, o->dtype | (uint64_t)o->ndim << 8);
        for (int ax = 0; ax < o->ndim; ax++)
            h = base_hash_mix(base_hash_mix(h, (uint64_t)o->shape[ax]), (uint64_t)c->st[k][ax]);
    }
    return h;
}

static int la_order(const void *pa, const void *pb) {
    const la_cand_t *a = pa, *b = pb;
    if (a->sig != b->sig) return a->sig < b->sig ? -1 : 1;
    return a->node < b->node ? -1 : a->node > b->node;
}

/* One step for the nm alike factorisations m[0..nm) (in graph order), when their operands lie
 * at one stride each; nothing when they do not. */
static bool la_batch(sched_t *s, const la_cand_t *m, uint32_t nm) {
    const ir_graph_t *g = s->g;
    en_plan_t *p = s->p;
    const ir_node_t *n0 = &g->nodes[m[0].node];
    int arity = ir_ops[n0->op].arity;
    int64_t lstride[LA_OPERANDS], dstride[LA_OPERANDS];
    for (uint32_t q = 1; q < nm; q++)
        if (!la_same(g, &m[0], &m[q])) return true; /* a hash collision: left alone */
    for (int k = 0; k < arity; k++) {
        int64_t es = (int64_t)ir_dtypes[g->nodes[n0->src[k]].dtype].size;
        uint64_t a0 = input_addr_of(s, m[0].leaf[k]);
        lstride[k] = (int64_t)(input_addr_of(s, m[1].leaf[k]) - a0);
        dstride[k] = m[1].delta[k] - m[0].delta[k];
        if (lstride[k] % es) return true;
        for (uint32_t q = 2; q < nm; q++)
            if (input_addr_of(s, m[q].leaf[k]) != a0 + (uint64_t)((int64_t)q * lstride[k]) ||
                m[q].delta[k] != m[0].delta[k] + (int64_t)q * dstride[k])
                return true;
    }
    uint32_t slot[LA_OPERANDS];
    int64_t delta[LA_OPERANDS], st[LA_OPERANDS][LOOM_MAX_DIMS];
    ir_node_t stack[LA_OPERANDS]; /* each operand's stack: the member axis first */
    for (int k = 0; k < arity; k++) {
        const ir_node_t *o = &g->nodes[n0->src[k]];
        int64_t es = (int64_t)ir_dtypes[o->dtype].size;
        stack[k] = *o;
        stack[k].ndim = (uint8_t)(o->ndim + 1);
        stack[k].shape[0] = nm;
        memcpy(stack[k].shape + 1, o->shape, sizeof(int64_t) * o->ndim);
        memset(st[k], 0, sizeof st[k]);
        st[k][0] = lstride[k] / es + dstride[k];
        memcpy(st[k] + 1, m[0].st[k], sizeof(int64_t) * o->ndim);
        slot[k] = (uint32_t)g->nodes[m[0].leaf[k]].input;
        delta[k] = m[0].delta[k];
        /* a stack that lies in order in one buffer is read as it is, else one copy gathers
         * it (a library call's copy of a stack must not span two allocations) */
        bool one = true;
        for (uint32_t q = 1; q < nm && one; q++) one = m[q].leaf[k] == m[0].leaf[k];
        if (one && st[k][0] == ir_node_size(o) && is_contig(o->ndim, o->shape, m[0].st[k]))
            continue;
        en_step_t *gs = new_step(s, EN_STEP_ELEM);
        if (!gs) return false;
        s->in_reduce = false;
        s->no_generators = s->no_gathers = false;
        uint32_t j = emit_input(s, slot[k], delta[k], st[k], (loom_dtype_t)o->dtype, stack[k].ndim,
                                stack[k].shape);
        if ((slot[k] = step_output(s, j, &stack[k])) == NONE || !finish_elem(s, gs)) return false;
        delta[k] = 0;
        contig_strides(stack[k].ndim, stack[k].shape, st[k]);
    }
    en_step_t *ls = new_step(s, EN_STEP_LINALG);
    if (!ls) return false;
    s->in_reduce = false;
    s->no_generators = s->no_gathers = true;
    uint32_t src[3] = {0};
    for (int k = 0; k < arity; k++)
        if ((src[k] = emit_input(s, slot[k], delta[k], st[k], (loom_dtype_t)stack[k].dtype,
                                 stack[k].ndim, stack[k].shape)) == NONE)
            return false;
    ir_node_t all = *n0;
    all.ndim = (uint8_t)(n0->ndim + 1);
    all.shape[0] = nm;
    memcpy(all.shape + 1, n0->shape, sizeof(int64_t) * n0->ndim);
    uint32_t out = step_output(s, emit_copy(s, n0, src, &all), &all);
    if (out == NONE || !linalg_kernels(s, ls, &all, &stack[0])) return false;
    ls->la_members = nm;
    p->slots[out].batched = true;
    for (uint32_t q = 0; q < nm; q++) {
        set_buf(s, m[q].node, out);
        s->val[m[q].node].delta = (int64_t)q * ir_node_size(n0);
    }
    /* run.c checks on every run that the inputs still lie so (the views' offsets are the
     * plan's own) */
    uint32_t *leaf = base_arena_alloc(s->ar, (size_t)nm * (size_t)arity, sizeof *leaf);
    int64_t *stride = base_arena_alloc(s->ar, (size_t)arity, sizeof *stride);
    if (!leaf || !stride) return oom(s);
    for (uint32_t q = 0; q < nm; q++)
        for (int k = 0; k < arity; k++) leaf[(size_t)q * (size_t)arity + (size_t)k] = m[q].leaf[k];
    memcpy(stride, lstride, sizeof(int64_t) * (size_t)arity);
    return add_batch(s, (en_batch_t){nm, (uint32_t)arity, leaf, stride});
}

/* Finds the factorisations that batch (la_batch) and schedules their steps. */
static bool batch_linalg(sched_t *s) {
    const ir_graph_t *g = s->g;
    uint32_t nc = 0;
    for (uint32_t i = 0; i < g->n_nodes; i++) nc += ir_ops[g->nodes[i].op].kind == IR_KIND_LINALG;
    if (nc < BATCH_MIN) return true;
    la_cand_t *c = base_arena_alloc(s->tmp, nc, sizeof *c);
    if (!c) return oom(s);
    nc = 0;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const ir_node_t *n = &g->nodes[i];
        if (ir_ops[n->op].kind != IR_KIND_LINALG || ir_ops[n->op].arity > LA_OPERANDS ||
            n->ndim + 1 > LOOM_MAX_DIMS || ir_node_size(n) == 0)
            continue;
        la_cand_t *m = &c[nc];
        bool ok = true;
        m->node = i;
        memset(m->st, 0, sizeof m->st);
        for (int k = 0; k < ir_ops[n->op].arity && ok; k++)
            ok = ir_node_size(&g->nodes[n->src[k]]) > 0 &&
                 la_operand(g, n->src[k], &m->leaf[k], &m->delta[k], m->st[k]);
        if (!ok) continue;
        m->sig = la_sig(g, m);
        nc++;
    }
    qsort(c, nc, sizeof *c, la_order);
    for (uint32_t a = 0, b; a < nc; a = b) {
        for (b = a + 1; b < nc && c[b].sig == c[a].sig; b++) {
        }
        if (b - a >= BATCH_MIN && !la_batch(s, c + a, b - a)) return false;
    }
    return true;
}

/* ---- the schedule ---- */

/* Results one elementwise kernel writes at most: more would make kernels whose source,
 * parameters and compile time grow without bound (1000 unbatchable results: 63 kernels). */
#define ELEM_MAX_OUTPUTS 16

static bool final_outputs(sched_t *s) {
    const ir_graph_t *g = s->g;
    en_plan_t *p = s->p;
    uint32_t no = g->n_outputs;
    bool *done = base_arena_alloc(s->tmp, no, sizeof *done);
    uint32_t *group = base_arena_alloc(s->tmp, no, sizeof *group);
    uint32_t *gslot = base_arena_alloc(s->tmp, no, sizeof *gslot);
    p->out_slot = base_arena_alloc(s->ar, no + 1, sizeof *p->out_slot);
    p->out_off = base_arena_alloc(s->ar, no + 1, sizeof *p->out_off);
    p->out_bytes = base_arena_alloc(s->ar, no + 1, sizeof *p->out_bytes);
    if (!done || !group || !gslot || !p->out_slot || !p->out_off || !p->out_bytes) return oom(s);
    p->out_first = base_arena_alloc(s->ar, no + 1, sizeof *p->out_first);
    if (!p->out_first) return oom(s);
    s->pgen++; /* first output of each node, through the position map */
    for (uint32_t q = 0; q < no; q++) {
        uint32_t o = g->outputs[q];
        const ir_node_t *on = &g->nodes[o];
        p->out_bytes[q] = (uint64_t)ir_node_size(on) * ir_dtypes[on->dtype].size;
        if (s->pos_gen[o] != s->pgen) {
            s->pos_gen[o] = s->pgen;
            s->pos_val[o] = q;
        }
        p->out_first[q] = s->pos_val[o];
    }
    for (uint32_t q = 0; q < no; q++) { /* results a step wrote whole: no copy */
        uint32_t o = g->outputs[q];
        const val_t *v = &s->val[o];
        const ir_node_t *on = &g->nodes[o];
        if (v->kind == V_BUF && v->slot >= p->n_inputs && v->delta == 0 &&
            is_contig(on->ndim, on->shape, v->st) &&
            p->slots[v->slot].bytes == (size_t)ir_node_size(on) * ir_dtypes[on->dtype].size) {
            p->out_slot[q] = v->slot;
            p->slots[v->slot].output = true;
            done[q] = true;
        }
    }
    for (uint32_t q = 0; q < no; q++) { /* pieces of a batched factorisation's buffer */
        uint32_t o = g->outputs[q];
        const val_t *v = &s->val[o];
        const ir_node_t *on = &g->nodes[o];
        if (!done[q] && v->kind == V_BUF && v->slot >= p->n_inputs && p->slots[v->slot].batched &&
            is_contig(on->ndim, on->shape, v->st)) {
            p->out_slot[q] = v->slot;
            p->out_off[q] = (uint64_t)v->delta * ir_dtypes[on->dtype].size;
            p->slots[v->slot].output = true;
            done[q] = true;
        }
    }
    if (s->batch && !batch_outputs(s, done)) return false;
    for (uint32_t r = 0; r < no; r++) { /* the rest: fused kernels, one per shape */
        if (done[r]) continue;
        const ir_node_t *space = &g->nodes[g->outputs[r]];
        uint32_t n = 0;
        for (uint32_t q = r; q < no && n < ELEM_MAX_OUTPUTS; q++) {
            const ir_node_t *qn = &g->nodes[g->outputs[q]];
            if (done[q] || p->out_first[q] != q ||
                !same_shape_v(qn->ndim, qn->shape, space->ndim, space->shape))
                continue;
            group[n++] = g->outputs[q];
        }
        if (!elem_step(s, group, n, gslot)) return false;
        for (uint32_t q = r; q < no; q++) { /* members, and the same nodes asked again */
            if (done[q]) continue;
            uint32_t o = g->outputs[q];
            for (uint32_t t = 0; t < n; t++)
                if (group[t] == o) {
                    p->out_slot[q] = gslot[t];
                    p->slots[gslot[t]].output = true;
                    done[q] = true;
                    break;
                }
        }
    }
    return true;
}

static bool schedule(sched_t *s) {
    const ir_graph_t *g = s->g;
    if (s->batch && !batch_linalg(s)) return false;
    for (uint32_t i = 0; i < g->n_nodes && !s->e->err->status; i++) {
        const ir_node_t *n = &g->nodes[i];
        val_t *v = &s->val[i];
        if (s->gemm_at[i] != NONE) {
            uint32_t mm = s->gemm_at[i];
            if (!sched_gemm(s, mm, s->gemm_ep[mm], s->gemm_n[mm])) return false;
            continue;
        }
        if (v->kind == V_ABSORBED) continue;
        switch (ir_ops[n->op].kind) {
            case IR_KIND_LEAF:
                if (n->op == IR_OP_INPUT) {
                    v->kind = V_BUF;
                    v->slot = (uint32_t)n->input;
                    memcpy(v->st, g->inputs[n->input].strides, sizeof v->st);
                } else {
                    v->kind = V_LAZY;
                }
                break;
            case IR_KIND_ELEM:
                v->kind = V_LAZY;
                if (s->open.on) { /* in the open step's reduced shape? */
                    bool reads_y = false;
                    for (int k = 0; k < ir_ops[n->op].arity; k++) {
                        const val_t *ov = &s->val[n->src[k]];
                        const ir_node_t *on = &g->nodes[n->src[k]];
                        reads_y = reads_y || (ov->kind == V_INSTEP && !on->p.keepdims) ||
                                  (ov->kind == V_LAZY && ov->yk && ov->yk_serial == s->open.serial);
                    }
                    v->yk = reads_y && same_shape_v(n->ndim, n->shape, s->open.ndim_y, s->open.y);
                    v->yk_serial = s->open.serial;
                }
                break;
            case IR_KIND_VIEW:
                if (!sched_view(s, i)) return false;
                break;
            case IR_KIND_REDUCE:
                if (!sched_reduce(s, i)) return false;
                break;
            case IR_KIND_SCAN:
                if (!sched_scan(s, i)) return false;
                break;
            case IR_KIND_CONCAT:
                if (!sched_concat(s, i)) return false;
                break;
            case IR_KIND_SORT:
            case IR_KIND_SEARCH:
            case IR_KIND_SCATTER:
            case IR_KIND_NONZERO:
                if (n->op == IR_OP_COMPRESS ? !sched_scan(s, i) : !sched_sort(s, i)) return false;
                break;
            case IR_KIND_LINALG: /* a batched one has its buffer already */
                if (v->kind != V_BUF && !sched_linalg(s, i)) return false;
                break;
            case IR_KIND_FFT:
                if (!sched_fft(s, i)) return false;
                break;
            case IR_KIND_GATHER: /* a load inside whichever step reads it */
                if (s->val[n->src[0]].kind == V_INSTEP && !close_open(s)) return false;
                if (!as_buffer(s, n->src[0])) return false;
                v->kind = V_LAZY;
                break;
            case IR_KIND_MATMUL: {
                uint32_t *ep = base_arena_alloc(s->tmp, CG_GEMM_MAX_EPILOGUE + 1, sizeof *ep);
                if (!ep) return oom(s);
                uint32_t n_ep = 0;
                if (en_matmul_epilogue(g, i, s->n_users) != i)
                    n_ep = en_matmul_epilogue_nodes(g, i, s->n_users, ep);
                if (n_ep == 0) {
                    if (!sched_gemm(s, i, NULL, 0)) return false;
                    break;
                }
                /* the step runs when its last node comes up (other operands ready by then) */
                s->val[i].kind = V_ABSORBED;
                for (uint32_t k = 0; k + 1 < n_ep; k++) s->val[ep[k]].kind = V_ABSORBED;
                s->gemm_at[ep[n_ep - 1]] = i;
                s->gemm_ep[i] = ep;
                s->gemm_n[i] = n_ep;
                break;
            }
        }
    }
    if (s->e->err->status) return false;
    return close_open(s) && final_outputs(s);
}

/* Each step's list of temps to free after it: those it is the last to read, or writes
 * without anyone reading them. Computed once per plan, not per run. */
static bool free_lists(sched_t *s) {
    en_plan_t *p = s->p;
    uint32_t *at = base_arena_alloc(s->tmp, p->n_slots + 1, sizeof *at);
    if (!at) return oom(s);
    for (uint32_t k = p->n_inputs; k < p->n_slots; k++) {
        const en_slot_t *sl = &p->slots[k];
        at[k] = sl->output ? NONE : sl->last_use != NONE ? sl->last_use : sl->producer;
        if (at[k] != NONE) p->steps[at[k]].n_free++;
    }
    for (uint32_t i = 0; i < p->n_steps; i++) {
        en_step_t *st = &p->steps[i];
        if (!st->n_free) continue;
        st->free_after = base_arena_alloc(s->ar, st->n_free, sizeof *st->free_after);
        if (!st->free_after) return oom(s);
        st->n_free = 0;
    }
    for (uint32_t k = p->n_inputs; k < p->n_slots; k++)
        if (at[k] != NONE) p->steps[at[k]].free_after[p->steps[at[k]].n_free++] = k;
    return true;
}

/* The plan's status words: one per distinct kernel that can raise (run.c reads them). */
static bool status_words(sched_t *s) {
    en_plan_t *p = s->p;
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->n_steps; i++) n += p->steps[i].n_kerns;
    if (!n) return true;
    if (!(p->status = base_arena_alloc(s->ar, n, sizeof *p->status))) return oom(s);
    for (uint32_t i = 0; i < p->n_steps; i++)
        for (uint32_t k = 0; k < p->steps[i].n_kerns; k++) {
            uint64_t w = p->steps[i].kerns[k] ? rt_kernel_status(p->steps[i].kerns[k]) : 0;
            bool seen = !w;
            for (uint32_t j = 0; j < p->n_status && !seen; j++) seen = p->status[j] == w;
            if (!seen) p->status[p->n_status++] = w;
        }
    return true;
}

en_plan_t *en_schedule(en_engine_t *e, const ir_graph_t *g, const uint64_t *in_addr,
                       base_hash128_t key, bool batch) {
    en_plan_t *p = base_calloc(e->al, 1, sizeof *p);
    if (!p) {
        en_error(e, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory scheduling kernels");
        return NULL;
    }
    base_arena_init(&p->arena, e->al);
    p->key = key;
    p->n_outputs = g->n_outputs;
    sched_t s = {0};
    s.e = e;
    s.g = g;
    s.in_addr = in_addr;
    s.p = p;
    s.ar = &p->arena;
    s.tmp = g->arena;
    s.sm = rt_device_sm_count(e->rt);
    s.smem = rt_device_smem_per_sm(e->rt);
    s.l2 = rt_device_l2_bytes(e->rt);
    s.smem_block = rt_device_smem_per_block(e->rt);
    s.val = base_arena_alloc(s.tmp, g->n_nodes + 1, sizeof *s.val);
    s.n_users = base_arena_alloc(s.tmp, g->n_nodes + 1, sizeof *s.n_users);
    s.gemm_at = base_arena_alloc(s.tmp, g->n_nodes + 1, sizeof *s.gemm_at);
    s.red_sg = base_arena_alloc(s.tmp, g->n_nodes + 1, sizeof *s.red_sg);
    s.gemm_ep = base_arena_alloc(s.tmp, g->n_nodes + 1, sizeof *s.gemm_ep);
    s.gemm_n = base_arena_alloc(s.tmp, g->n_nodes + 1, sizeof *s.gemm_n);
    s.batch = batch && !e->compile_only; /* addresses decide it */
    s.pos_gen = base_arena_alloc(s.tmp, g->n_nodes + 1, sizeof *s.pos_gen);
    s.pos_val = base_arena_alloc(s.tmp, g->n_nodes + 1, sizeof *s.pos_val);
    s.cap_memo = 64;
    while (s.cap_memo < 4 * g->n_nodes) s.cap_memo *= 2;
    s.memo = base_arena_alloc(s.tmp, s.cap_memo, sizeof *s.memo);
    if (!s.val || !s.n_users || !s.gemm_at || !s.red_sg || !s.memo || !s.gemm_ep || !s.gemm_n ||
        !s.pos_gen || !s.pos_val) {
        oom(&s);
        en_schedule_free(e, p);
        return NULL;
    }
    s.gen = s.gen_top = 1;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        s.gemm_at[i] = NONE;
        for (int k = 0; k < ir_ops[g->nodes[i].op].arity; k++) s.n_users[g->nodes[i].src[k]]++;
    }
    for (uint32_t q = 0; q < g->n_outputs; q++) s.n_users[g->outputs[q]]++;
    p->n_inputs = g->n_inputs;
    for (uint32_t k = 0; k < g->n_inputs; k++)
        if (new_slot(&s, 0, NONE) == NONE) break;
    if (e->err->status || !schedule(&s) || !free_lists(&s) || !status_words(&s)) {
        en_schedule_free(e, p);
        return NULL;
    }
    return p;
}

bool en_schedule_batches_hold(const en_plan_t *p, const ir_graph_t *g, const uint64_t *in_addr) {
    for (uint32_t b = 0; b < p->n_batches; b++) {
        const en_batch_t *bt = &p->batches[b];
        for (uint32_t j = 0; j < bt->n_leaves; j++) {
            const ir_node_t *n0 = &g->nodes[bt->leaf[j]];
            uint64_t a0 = 0;
            if (n0->op == IR_OP_INPUT)
                a0 = in_addr[n0->input] +
                     (uint64_t)(g->inputs[n0->input].offset * (int64_t)ir_dtypes[n0->dtype].size);
            for (uint32_t k = 1; k < bt->n; k++) {
                const ir_node_t *nk = &g->nodes[bt->leaf[(size_t)k * bt->n_leaves + j]];
                if (nk->op == IR_OP_CONST) {
                    if (nk->p.bits != n0->p.bits) return false;
                } else {
                    uint64_t ak = in_addr[nk->input] + (uint64_t)(g->inputs[nk->input].offset *
                                                                  (int64_t)ir_dtypes[nk->dtype].size);
                    if (ak != a0 + (uint64_t)((int64_t)k * bt->stride[j])) return false;
                }
            }
        }
    }
    return true;
}

void en_schedule_free(en_engine_t *e, en_plan_t *p) {
    if (!p) return;
    base_arena_fini(&p->arena);
    base_free(e->al, p);
}

static const char *const kind_names[] = {"elementwise", "reduce", "scan", "matmul", "concat",
                                         "sort",        "linalg",  "fft"};

void en_schedule_print(const en_plan_t *p, const ir_graph_t *g, base_str_t *out) {
    uint32_t host = 0;
    for (uint32_t k = 0; k < p->n_inputs; k++)
        if (g->inputs[k].host) host++;
    base_str_printf(out, "schedule: %u steps, %u slots (%u eval inputs, %u from the host)\n",
                     p->n_steps, p->n_slots, p->n_inputs, host);
    for (uint32_t k = 0; k < p->n_inputs; k++)
        if (g->inputs[k].host)
            base_str_printf(out, "  h2d  slot %u\n", k);
    for (uint32_t i = 0; i < p->n_steps; i++) {
        const en_step_t *st = &p->steps[i];
        base_str_printf(out, "  step %u %s:", i, kind_names[st->kind]);
        for (uint32_t k = 0; k < st->n_kerns; k++)
            base_str_printf(out, " %s", st->kerns[k] ? rt_kernel_name(st->kerns[k]) : "?");
        base_str_printf(out, "\n    reads");
        for (uint32_t k = 0; k < st->sg.n_inputs; k++) base_str_printf(out, " slot %u", st->in_slot[k]);
        base_str_printf(out, "\n    writes");
        for (uint32_t k = 0; k < st->sg.n_outputs; k++)
            base_str_printf(out, " slot %u (%zu bytes)", st->out_slot[k], p->slots[st->out_slot[k]].bytes);
        base_str_printf(out, "\n");
    }
    for (uint32_t b = 0; b < p->n_batches; b++)
        base_str_printf(out, "  batch %u: %u members in one step\n", b, p->batches[b].n);
    for (uint32_t q = 0; q < p->n_outputs; q++)
        base_str_printf(out, "  result %u = slot %u + %llu bytes\n", q, p->out_slot[q],
                        (unsigned long long)p->out_off[q]);
}
