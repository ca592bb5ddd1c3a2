/* cuda.c — evaluation on the CUDA device (and the compile-only NVRTC device):
 *
 *   flat IR ──► plan key (structure, shapes, input layouts; not values, not addresses)
 *           ──► plan cache hit: the kernels and their descriptions, ready to launch
 *               miss: group outputs by iteration space (one fused kernel each; elementwise
 *               intermediates are recomputed inside the kernel, never materialised), describe
 *               each kernel, structural key ──► kernel cache ──► (miss) source ──► disk/NVRTC
 *           ──► H2D transfer of each host input once (copied host arrays keep their device
 *               copy for later evals; borrowed ones are uploaded per eval)
 *           ──► output buffers from the pool ──► parameters ──► launch on the ctx's stream
 *
 * The plan cache is the dispatch fast path: evaluating a graph of the same structure again
 * (new data, new scalars) does no grouping, planning, key hashing or codegen. */
#include <string.h>

#include "../codegen/cg.h"
#include "fe.h"

typedef struct plan_kernel {
    rt_kernel_t *kern;
    cg_kernel_t k; /* arrays owned by the plan; k.g is set per eval */
} plan_kernel_t;

typedef struct fe_plan {
    base_hash128_t key;
    uint32_t n_kernels;
    plan_kernel_t *kernels;
    uint32_t n_outputs;
    uint32_t *out_kernel; /* for each output of the eval: its kernel ... */
    uint32_t *out_slot;   /* ... and its slot among that kernel's outputs */
} fe_plan_t;

struct fe_plans {
    fe_plan_t **slots; /* open addressing by key */
    uint32_t cap, n;
};

#define MAX_PLANS 4096

static void plan_free(loom_ctx_t *ctx, fe_plan_t *p) {
    if (!p) return;
    for (uint32_t i = 0; i < p->n_kernels; i++) {
        cg_kernel_t *k = &p->kernels[i].k;
        base_free(&ctx->al, k->nodes);
        base_free(&ctx->al, k->outs);
        base_free(&ctx->al, k->layout);
        base_free(&ctx->al, k->strides);
    }
    base_free(&ctx->al, p->kernels);
    base_free(&ctx->al, p->out_kernel);
    base_free(&ctx->al, p->out_slot);
    base_free(&ctx->al, p);
}

void fe_plans_destroy(loom_ctx_t *ctx) {
    struct fe_plans *ps = ctx->plans;
    if (!ps) return;
    for (uint32_t i = 0; i < ps->cap; i++) plan_free(ctx, ps->slots[i]);
    base_free(&ctx->al, ps->slots);
    base_free(&ctx->al, ps);
    ctx->plans = NULL;
}

/* The plan key: every node's structure in order, and each input's strides and alignment
 * (vector loads depend on it). Values and addresses are not part of it. */
static base_hash128_t plan_key(const ir_graph_t *g, const uint64_t *in_addr) {
    /* Two independently seeded 64-bit chains over the same words: a 128-bit key. */
    uint64_t lo = 0x706c616e, hi = 0x6b657931;
    uint64_t h[4];
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const ir_node_t *n = &g->nodes[i];
        h[0] = n->hash;
        h[1] = (uint64_t)n->src[0] | (uint64_t)n->src[1] << 32;
        h[2] = (uint64_t)n->src[2] | (uint64_t)(uint32_t)n->input << 32;
        h[3] = n->op;
        lo = base_hash64(h, sizeof h, lo);
        hi = base_hash64(h, sizeof h, hi);
    }
    for (uint32_t j = 0; j < g->n_nodes; j++) { /* each input through its INPUT node */
        const ir_node_t *n = &g->nodes[j];
        if (n->op != IR_OP_INPUT) continue;
        const ir_input_t *in = &g->inputs[n->input];
        uint64_t addr =
            in_addr[n->input] + (uint64_t)(in->offset * (int64_t)ir_dtypes[n->dtype].size);
        /* alignment up to 64 bytes: vector steps can need 16, 32 or 64 */
        h[0] = base_hash64(in->strides, sizeof in->strides, addr % 64);
        lo = base_hash64(h, sizeof h[0], lo);
        hi = base_hash64(h, sizeof h[0], hi);
    }
    lo = base_hash64(g->outputs, g->n_outputs * sizeof *g->outputs, lo);
    hi = base_hash64(g->outputs, g->n_outputs * sizeof *g->outputs, hi);
    return (base_hash128_t){lo, hi ^ g->n_nodes};
}

static fe_plan_t **plan_slot(struct fe_plans *ps, base_hash128_t key) {
    uint32_t j = (uint32_t)key.lo & (ps->cap - 1);
    while (ps->slots[j] && (ps->slots[j]->key.lo != key.lo || ps->slots[j]->key.hi != key.hi))
        j = (j + 1) & (ps->cap - 1);
    return &ps->slots[j];
}

static fe_plan_t *plan_find(loom_ctx_t *ctx, base_hash128_t key) {
    struct fe_plans *ps = ctx->plans;
    return ps ? *plan_slot(ps, key) : NULL;
}

/* Remembers p (the cache owns it from here, even on failure, when it is freed). */
static void plan_insert(loom_ctx_t *ctx, fe_plan_t *p) {
    struct fe_plans *ps = ctx->plans;
    if (ps && ps->n >= MAX_PLANS) { /* bounded: start over rather than grow without limit */
        fe_plans_destroy(ctx);
        ps = NULL;
    }
    if (!ps) {
        ps = base_calloc(&ctx->al, 1, sizeof *ps);
        fe_plan_t **slots = base_calloc(&ctx->al, 2 * MAX_PLANS, sizeof *slots);
        if (!ps || !slots) {
            base_free(&ctx->al, ps);
            base_free(&ctx->al, slots);
            plan_free(ctx, p);
            fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory caching a plan");
            return;
        }
        ps->slots = slots;
        ps->cap = 2 * MAX_PLANS;
        ctx->plans = ps;
    }
    fe_plan_t **slot = plan_slot(ps, p->key);
    if (*slot) {
        plan_free(ctx, p);
        return;
    }
    *slot = p;
    ps->n++;
}

static bool same_shape(const ir_node_t *a, const ir_node_t *b) {
    return a->ndim == b->ndim && !memcmp(a->shape, b->shape, sizeof(int64_t) * a->ndim);
}

static rt_kernel_t *get_kernel(loom_ctx_t *ctx, const cg_kernel_t *k) {
    base_hash128_t key = cg_kernel_key(k);
    rt_kernel_t *kern = rt_kernel_find(ctx->rt, key);
    if (kern) return kern;
    base_str_t src;
    base_str_init(&src, &ctx->al);
    char name[40];
    cg_kernel_source(k, &src, name);
    if (src.failed)
        fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "codegen: out of memory generating %s", name);
    else
        rt_kernel_build(ctx->rt, key, name, base_str_get(&src), &kern);
    base_str_fini(&src);
    return ctx->err.status ? NULL : kern;
}

/* A heap copy of an arena kernel description, for the plan. */
static bool keep_kernel(loom_ctx_t *ctx, cg_kernel_t *dst, const cg_kernel_t *src) {
    *dst = *src;
    dst->nodes = base_malloc(&ctx->al, src->n_nodes, sizeof *dst->nodes);
    dst->outs = base_malloc(&ctx->al, src->n_outs, sizeof *dst->outs);
    dst->layout = base_malloc(&ctx->al, src->n_nodes, sizeof *dst->layout);
    dst->strides = base_malloc(&ctx->al, src->n_nodes, sizeof *dst->strides);
    if (!dst->nodes || !dst->outs || !dst->layout || !dst->strides) return false;
    memcpy(dst->nodes, src->nodes, src->n_nodes * sizeof *dst->nodes);
    memcpy(dst->outs, src->outs, src->n_outs * sizeof *dst->outs);
    memcpy(dst->layout, src->layout, src->n_nodes * sizeof *dst->layout);
    memcpy(dst->strides, src->strides, src->n_nodes * sizeof *dst->strides);
    return true;
}

/* Groups the outputs by iteration space and builds (or finds) each group's kernel. */
static fe_plan_t *plan_build(loom_ctx_t *ctx, const ir_graph_t *g, const uint64_t *in_addr,
                             base_hash128_t key) {
    uint32_t no = g->n_outputs;
    fe_plan_t *p = base_calloc(&ctx->al, 1, sizeof *p);
    if (!p) goto oom;
    p->key = key;
    p->n_outputs = no;
    p->out_kernel = base_calloc(&ctx->al, no, sizeof *p->out_kernel);
    p->out_slot = base_calloc(&ctx->al, no, sizeof *p->out_slot);
    p->kernels = base_calloc(&ctx->al, no, sizeof *p->kernels); /* at most one per output */
    uint32_t *group = base_arena_alloc(g->arena, no, sizeof *group);
    bool *done = base_arena_alloc(g->arena, no, sizeof *done);
    if (!p->out_kernel || !p->out_slot || !p->kernels || !group || !done) goto oom;
    for (uint32_t r = 0; r < no; r++) {
        if (done[r]) continue;
        uint32_t n_group = 0, kidx = p->n_kernels;
        const ir_node_t *space = &g->nodes[g->outputs[r]];
        for (uint32_t q = r; q < no; q++) {
            if (done[q] || !same_shape(&g->nodes[g->outputs[q]], space)) continue;
            done[q] = true;
            uint32_t s = n_group;
            for (uint32_t t = 0; t < n_group; t++)
                if (group[t] == g->outputs[q]) s = t; /* the same node twice: one buffer */
            if (s == n_group) group[n_group++] = g->outputs[q];
            p->out_kernel[q] = kidx;
            p->out_slot[q] = s;
        }
        cg_kernel_t k;
        if (!cg_kernel_init(&k, g, g->arena, group, n_group, in_addr)) goto oom;
        rt_kernel_t *kern = get_kernel(ctx, &k);
        if (!kern) {
            plan_free(ctx, p);
            return NULL;
        }
        p->kernels[kidx].kern = kern;
        p->n_kernels++;
        if (!keep_kernel(ctx, &p->kernels[kidx].k, &k)) goto oom;
    }
    return p;
oom:
    plan_free(ctx, p);
    fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory planning kernels");
    return NULL;
}

/* Allocates a group's output buffers, launches its kernel, hands each root its buffer. */
static void run_kernel(loom_ctx_t *ctx, const ir_graph_t *g, const fe_plan_t *p, uint32_t ki,
                       const uint64_t *in_addr, fe_buffer_t **results) {
    const plan_kernel_t *pk = &p->kernels[ki];
    cg_kernel_t k = pk->k;
    k.g = g;
    uint64_t *addr = base_arena_alloc(g->arena, k.n_outs, sizeof *addr);
    fe_buffer_t **buf = base_arena_alloc(g->arena, k.n_outs, sizeof *buf);
    uint32_t nw = cg_kernel_n_params(&k);
    uint64_t *words = base_arena_alloc(g->arena, nw, sizeof *words);
    if (!addr || !buf || !words) {
        fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory launching a kernel");
        return;
    }
    for (uint32_t s = 0; s < k.n_outs && !ctx->err.status; s++) {
        size_t nb = (size_t)k.size * ir_dtypes[g->nodes[k.outs[s]].dtype].size;
        buf[s] = base_calloc(&ctx->al, 1, sizeof *buf[s]);
        if (!buf[s]) {
            fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory");
            break;
        }
        buf[s]->on_device = true;
        buf[s]->bytes = nb;
        if (rt_alloc(ctx->rt, nb ? nb : 1, &buf[s]->dev) != LOOM_STATUS_OK) break;
        addr[s] = buf[s]->dev;
    }
    for (uint32_t q = 0; q < p->n_outputs; q++) /* roots on the same node share a buffer */
        if (p->out_kernel[q] == ki && buf[p->out_slot[q]]) {
            results[q] = buf[p->out_slot[q]];
            results[q]->refcount++;
        }
    if (ctx->err.status) {
        for (uint32_t s = 0; s < k.n_outs; s++)
            if (buf[s] && buf[s]->refcount == 0) { /* no root took it */
                buf[s]->refcount = 1;
                fe_buffer_release(ctx, buf[s]);
            }
        return;
    }
    if (k.size == 0) return;
    cg_kernel_params(&k, in_addr, addr, words);
    uint32_t grid, block;
    cg_kernel_launch_shape(&k, rt_device_sm_count(ctx->rt),
                           rt_kernel_blocks_per_sm(ctx->rt, pk->kern, CG_BLOCK), &grid, &block);
    void *params[1] = {words};
    rt_launch(ctx->rt, pk->kern, grid, block, params);
}

loom_status_t fe_cuda_eval(loom_ctx_t *ctx, ir_graph_t *g, fe_buffer_t **results) {
    for (uint32_t i = 0; i < g->n_nodes; i++) { /* what the code generator knows today */
        ir_op_kind_t kind = ir_ops[g->nodes[i].op].kind;
        if (kind != IR_KIND_LEAF && kind != IR_KIND_ELEM)
            return fe_error(ctx, LOOM_STATUS_NOT_AVAILABLE,
                            "%s: not implemented on the CUDA device yet (the CPU reference "
                            "device, LOOM_DEVICE_CPU, computes it)",
                            ir_ops[g->nodes[i].op].name);
    }
    uint64_t *in_addr = base_arena_alloc(g->arena, g->n_inputs + 1, sizeof *in_addr);
    bool *temp = base_arena_alloc(g->arena, g->n_inputs + 1, sizeof *temp);
    if (!in_addr || !temp)
        return fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory scheduling");
    if (fe_place_inputs(ctx, g, in_addr, temp)) {
        base_hash128_t key = plan_key(g, in_addr);
        fe_plan_t *p = plan_find(ctx, key);
        if (p) {
            ctx->stats.plan_hits++;
            base_log(&ctx->log, LOOM_LOG_DEBUG, "plan hit: %u kernels, %u IR nodes", p->n_kernels,
                     g->n_nodes);
        } else {
            ctx->stats.plan_misses++;
            base_log(&ctx->log, LOOM_LOG_INFO, "plan miss: scheduling %u IR nodes", g->n_nodes);
            p = plan_build(ctx, g, in_addr, key);
            if (p) plan_insert(ctx, p);
            p = plan_find(ctx, key);
        }
        if (p && ctx->device == LOOM_DEVICE_CUDA)
            for (uint32_t ki = 0; ki < p->n_kernels && !ctx->err.status; ki++)
                run_kernel(ctx, g, p, ki, in_addr, results);
    }
    for (uint32_t i = 0; i < g->n_inputs; i++)
        if (temp[i]) rt_free(ctx->rt, in_addr[i]);
    return ctx->err.status;
}
