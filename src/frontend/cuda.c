/* cuda.c — evaluation on the CUDA device (and the compile-only NVRTC device):
 *
 *   flat IR ──► plan key (structure, shapes, input layouts; not values, not addresses)
 *           ──► plan cache hit: the schedule (steps, their kernels, buffer slots), ready
 *               miss: sched.c cuts the IR into steps (fused elementwise kernels, reduce
 *               steps with prologue/epilogue, scans, matrix products, joins), codegen
 *               describes each, structural keys ──► kernel cache ──► (miss) source ──► NVRTC
 *           ──► H2D transfer of each host input once (transfer.c)
 *           ──► per step: slots from the pool, scalars refreshed from this eval's graph,
 *               launch (or cuBLAS, or a 2-D copy) on the ctx's stream; temps freed after
 *               their last reader (stream-ordered pool: no waiting)
 *
 * The plan cache is the dispatch fast path: evaluating a graph of the same structure again
 * (new data, new scalars) does no scheduling, planning, key hashing or codegen. */
#include <stdio.h>
#include <string.h>

#include "sched.h"

struct fe_plans {
    fe_plan_t **slots; /* open addressing by key */
    uint32_t cap, n;
};

#define MAX_PLANS 4096

void fe_plans_destroy(loom_ctx_t *ctx) {
    struct fe_plans *ps = ctx->plans;
    if (!ps) return;
    for (uint32_t i = 0; i < ps->cap; i++) fe_sched_free(ctx, ps->slots[i]);
    base_free(&ctx->al, ps->slots);
    base_free(&ctx->al, ps);
    ctx->plans = NULL;
}

/* The plan key: every node's structure in order, and each input's strides and alignment
 * (vector loads depend on it). Values and addresses are not part of it. The words are laid
 * out in the eval's arena and hashed once (one call instead of two per node). False with
 * the error recorded when the arena is out of memory. */
static bool plan_key(loom_ctx_t *ctx, const ir_graph_t *g, const uint64_t *in_addr,
                     base_hash128_t *key) {
    enum { NODE_WORDS = 4, INPUT_WORDS = LOOM_MAX_DIMS + 1 };
    size_t n_words = (size_t)g->n_nodes * NODE_WORDS + (size_t)g->n_inputs * INPUT_WORDS +
                     g->n_outputs + 1;
    uint64_t *w = base_arena_alloc_raw(g->arena, n_words, sizeof *w), *at = w;
    if (!w) {
        fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory keying %u IR nodes",
                 g->n_nodes);
        return false;
    }
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const ir_node_t *n = &g->nodes[i];
        *at++ = n->hash;
        *at++ = (uint64_t)n->src[0] | (uint64_t)n->src[1] << 32;
        *at++ = (uint64_t)n->src[2] | (uint64_t)(uint32_t)n->input << 32;
        *at++ = n->op;
    }
    for (uint32_t j = 0; j < g->n_nodes; j++) { /* each input through its INPUT node */
        const ir_node_t *n = &g->nodes[j];
        if (n->op != IR_OP_INPUT) continue;
        const ir_input_t *in = &g->inputs[n->input];
        uint64_t addr =
            in_addr[n->input] + (uint64_t)(in->offset * (int64_t)ir_dtypes[n->dtype].size);
        memcpy(at, in->strides, sizeof in->strides);
        at += LOOM_MAX_DIMS;
        *at++ = addr % 64; /* alignment up to 64 bytes: vector steps can need 16, 32 or 64 */
    }
    for (uint32_t q = 0; q < g->n_outputs; q++) *at++ = g->outputs[q];
    *at++ = g->n_nodes;
    *key = base_hash128(w, (size_t)(at - w) * sizeof *w);
    return true;
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
            fe_sched_free(ctx, p);
            fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory caching a plan");
            return;
        }
        ps->slots = slots;
        ps->cap = 2 * MAX_PLANS;
        ctx->plans = ps;
    }
    fe_plan_t **slot = plan_slot(ps, p->key);
    if (*slot) {
        fe_sched_free(ctx, p);
        return;
    }
    *slot = p;
    ps->n++;
}

/* ---- Traversal order ----
 * A kernel streaming a buffer larger than L2 leaves the lines it read (or wrote) last in L2;
 * loom's row kernels even ask L2 to keep their reads (an evict_last policy). A later kernel
 * over the same buffer that starts where that one ended finds them there, where one starting
 * from the other end finds them evicted by the time it gets to them. So a one-kernel reduction
 * takes its outputs in reverse order when the latest kernel over its largest input that the
 * ctx remembers went forward, and forward after a reverse one (every output is computed the
 * same way in either order: the same bits). H200, layernorm of 8192 x 8192 float32 called
 * again and again on one input: 125.1 us alternating, 129.1 always forward, 128.9 forward on
 * two inputs in turn (bench/experiments/loomk/alternate.cu); after an elementwise kernel or a
 * matrix product that wrote the input, the reduction starts on the lines they wrote last.
 * Every other kernel goes forward. */
static int trail_at(const loom_ctx_t *ctx, uint64_t addr) {
    for (int i = 0; i < FE_TRAIL; i++)
        if (ctx->trail[i].seq && ctx->trail[i].addr == addr) return i;
    return -1;
}

static void trail_note(loom_ctx_t *ctx, uint64_t addr, int dir) {
    if (!addr) return;
    int i = trail_at(ctx, addr);
    if (i < 0) { /* a free entry, else the least recent */
        i = 0;
        for (int k = 1; k < FE_TRAIL; k++)
            if (ctx->trail[k].seq < ctx->trail[i].seq) i = k;
    }
    ctx->trail[i].addr = addr;
    ctx->trail[i].dir = dir;
    ctx->trail[i].seq = ++ctx->trail_seq;
}

/* Step graph sg's buffers (inputs in, outputs out) traversed in direction dir. */
static void trail_step(loom_ctx_t *ctx, const ir_graph_t *sg, const uint64_t *in,
                       const uint64_t *out, int dir) {
    for (uint32_t k = 0; k < sg->n_inputs; k++) trail_note(ctx, in[k], dir);
    for (uint32_t k = 0; k < sg->n_outputs; k++) trail_note(ctx, out[k], dir);
}

/* Whether a reversible reduction over step graph sg goes in reverse: its largest input with a
 * remembered traversal was last traversed forward. Largest: the bytes its strides span (a
 * broadcast operand, stride 0 along the axes it is repeated over, spans its own bytes). */
static bool trail_reverse(const loom_ctx_t *ctx, const ir_graph_t *sg, const uint64_t *in) {
    int64_t best = -1;
    bool rev = false;
    for (uint32_t j = 0; j < sg->n_nodes; j++) {
        const ir_node_t *n = &sg->nodes[j];
        if (n->op != IR_OP_INPUT) continue;
        int i = trail_at(ctx, in[n->input]);
        if (i < 0) continue;
        const int64_t *st = sg->inputs[n->input].strides;
        int64_t span = ir_node_size(n) > 0;
        for (int ax = 0; ax < n->ndim && span; ax++)
            span += (n->shape[ax] - 1) * (st[ax] < 0 ? -st[ax] : st[ax]);
        int64_t bytes = span * (int64_t)ir_dtypes[n->dtype].size;
        if (bytes > best) {
            best = bytes;
            rev = ctx->trail[i].dir > 0;
        }
    }
    return rev;
}

/* Runs step st: its graph's scalars and input offsets refreshed from this eval's graph g. */
static void run_step(loom_ctx_t *ctx, const ir_graph_t *g, const fe_plan_t *p, fe_step_t *st,
                     const uint64_t *slot_addr) {
    ir_graph_t *sg = &st->sg;
    for (uint32_t k = 0; k < st->n_leaves; k++) {
        ir_node_t *n = &sg->nodes[st->leaves[k].node];
        int64_t tag = n->p.axis;
        n->p = g->nodes[st->leaves[k].origin].p;
        n->p.axis = tag;
    }
    uint64_t *in = base_arena_alloc(g->arena, sg->n_inputs + 1, sizeof *in);
    uint64_t *out = base_arena_alloc(g->arena, sg->n_outputs + 1, sizeof *out);
    if (!in || !out) {
        fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory launching a kernel");
        return;
    }
    for (uint32_t k = 0; k < sg->n_inputs; k++) {
        uint32_t slot = st->in_slot[k];
        sg->inputs[k].offset = st->in_delta[k] + (slot < p->n_inputs ? g->inputs[slot].offset : 0);
        in[k] = slot_addr[slot];
    }
    for (uint32_t k = 0; k < sg->n_outputs; k++) out[k] = slot_addr[st->out_slot[k]];
    rt_device_t *rt = ctx->rt;
    int sm = rt_device_sm_count(rt);
    switch (st->kind) {
        case FE_STEP_ELEM: {
            cg_kernel_t k = st->k;
            k.g = sg;
            if (k.size == 0) return;
            uint32_t nw = cg_kernel_n_params(&k);
            uint64_t *words = base_arena_alloc(g->arena, nw + 1, sizeof *words);
            if (!words) break;
            cg_kernel_params(&k, in, out, words);
            uint32_t grid, block;
            cg_kernel_launch_shape(&k, sm, rt_kernel_blocks_per_sm(rt, st->kerns[0], CG_BLOCK),
                                   &grid, &block);
            void *params[1] = {words};
            rt_launch(rt, st->kerns[0], grid, block, params);
            trail_step(ctx, sg, in, out, 1);
            return;
        }
        case FE_STEP_REDUCE: {
            cg_reduce_set_graph(st->red, sg);
            size_t sb = cg_reduce_scratch_bytes(st->red);
            uint64_t scratch = 0;
            if (sb && rt_alloc(rt, sb, &scratch) != LOOM_STATUS_OK) return;
            size_t zoff, zbytes;
            if (cg_reduce_zeroed(st->red, &zoff, &zbytes) &&
                rt_memset(rt, scratch + zoff, 0, zbytes) != LOOM_STATUS_OK) {
                rt_free(rt, scratch);
                return;
            }
            bool rev = cg_reduce_reversible(st->red) && trail_reverse(ctx, sg, in);
            ctx->stats.kernels_reversed += rev;
            for (uint32_t i = 0; i < st->n_kerns && !ctx->err.status; i++) {
                uint32_t nw = cg_reduce_n_params(st->red, i);
                uint64_t *words = base_arena_alloc(g->arena, nw + 1, sizeof *words);
                if (!words) { /* (a break alone would skip the launch without an error) */
                    fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY,
                             "eval: out of memory launching a kernel");
                    break;
                }
                cg_reduce_params(st->red, i, in, out, scratch, rev, words);
                uint32_t grid[3], block[3], smem;
                int bps = rt_kernel_blocks_per_sm(rt, st->kerns[i],
                                                  cg_reduce_block_threads(st->red, i));
                cg_reduce_launch_shape(st->red, i, sm, bps, grid, block, &smem);
                if (!grid[0] || !grid[1] || !grid[2]) continue;
                void *params[1] = {words};
                rt_launch_ex(rt, st->kerns[i], grid, block, smem, params);
            }
            if (scratch) rt_free(rt, scratch);
            trail_step(ctx, sg, in, out, rev ? -1 : 1);
            return;
        }
        case FE_STEP_SCAN: {
            cg_scan_set_graph(st->scan, sg);
            uint32_t nw = cg_scan_n_params(st->scan);
            uint64_t *words = base_arena_alloc(g->arena, nw + 1, sizeof *words);
            if (!words) break;
            cg_scan_params(st->scan, in, out[0], words);
            uint32_t grid[3], block[3], smem;
            cg_scan_launch_shape(st->scan, sm, grid, block, &smem);
            if (!grid[0] || !grid[1] || !grid[2]) return;
            void *params[1] = {words};
            rt_launch_ex(rt, st->kerns[0], grid, block, smem, params);
            trail_step(ctx, sg, in, out, 1);
            return;
        }
        case FE_STEP_GEMM:
            fe_gemm_run(ctx, sg, in, out[0]);
            trail_step(ctx, sg, in, out, 1);
            return;
        case FE_STEP_CONCAT: {
            const ir_node_t *n = &sg->nodes[sg->outputs[0]];
            size_t es = ir_dtypes[n->dtype].size;
            size_t outer = 1;
            for (int ax = 0; ax < st->concat_axis; ax++) outer *= (size_t)n->shape[ax];
            size_t pitch = outer ? (size_t)ir_node_size(n) * es / (outer ? outer : 1) : 0;
            size_t at = 0;
            for (int k = 0; k < 2 && !ctx->err.status; k++) {
                const ir_node_t *a = &sg->nodes[n->src[k]];
                size_t w = outer ? (size_t)ir_node_size(a) * es / outer : 0;
                uint64_t src = in[a->input] + (uint64_t)(sg->inputs[a->input].offset * (int64_t)es);
                rt_d2d_2d(rt, out[0] + at, pitch, src, w, w, outer);
                at += w;
            }
            trail_step(ctx, sg, in, out, 1);
            return;
        }
    }
    fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory launching a kernel");
}

/* Runs plan p: slots allocated as steps need them, results handed to the eval's roots. */
static void run_plan(loom_ctx_t *ctx, const ir_graph_t *g, fe_plan_t *p, const uint64_t *in_addr,
                     fe_buffer_t **results) {
    uint64_t *addr = base_arena_alloc(g->arena, p->n_slots + 1, sizeof *addr);
    fe_buffer_t **obuf = base_arena_alloc(g->arena, p->n_slots + 1, sizeof *obuf);
    if (!addr || !obuf) {
        fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory running a schedule");
        return;
    }
    for (uint32_t k = 0; k < p->n_inputs; k++) addr[k] = in_addr[k];
    for (uint32_t i = 0; i < p->n_steps && !ctx->err.status; i++) {
        fe_step_t *st = &p->steps[i];
        for (uint32_t k = 0; k < st->sg.n_outputs && !ctx->err.status; k++) {
            uint32_t slot = st->out_slot[k];
            const fe_slot_t *sl = &p->slots[slot];
            if (sl->output) {
                fe_buffer_t *b = fe_buffer_new(ctx);
                if (!b) {
                    fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory");
                    break;
                }
                obuf[slot] = b;
                b->on_device = true;
                b->bytes = sl->bytes;
                if (rt_alloc(ctx->rt, sl->bytes ? sl->bytes : 1, &b->dev) != LOOM_STATUS_OK) break;
                addr[slot] = b->dev;
            } else if (rt_alloc(ctx->rt, sl->bytes ? sl->bytes : 1, &addr[slot]) != LOOM_STATUS_OK) {
                break;
            }
        }
        if (ctx->err.status) break;
        run_step(ctx, g, p, st, addr);
        for (uint32_t k = 0; k < st->n_free; k++) { /* temps nobody reads later */
            uint32_t s = st->free_after[k];
            if (addr[s]) rt_free(ctx->rt, addr[s]);
            addr[s] = 0;
        }
    }
    for (uint32_t s = p->n_inputs; s < p->n_slots; s++) /* on failure: temps not yet freed */
        if (!p->slots[s].output && addr[s]) rt_free(ctx->rt, addr[s]);
    if (!ctx->err.status)
        for (uint32_t q = 0; q < p->n_outputs; q++) {
            uint32_t slot = p->out_slot[q];
            if (!p->slots[slot].batched) {
                results[q] = obuf[slot];
                if (results[q]) results[q]->refcount++;
                continue;
            }
            if (p->out_first[q] != q) results[q] = results[p->out_first[q]]; /* asked twice */
            if (results[q]) {
                results[q]->refcount++;
                continue;
            }
            /* a piece of the batch's buffer, which the pieces own together */
            fe_buffer_t *b = fe_buffer_new(ctx);
            if (!b) {
                fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory");
                break;
            }
            b->refcount = 1;
            b->on_device = true;
            b->dev = obuf[slot]->dev + p->out_off[q];
            b->bytes = p->out_bytes[q];
            b->block = obuf[slot]->block;
            obuf[slot]->block = NULL;
            if (!b->block) b->block = fe_devblock_new(ctx, obuf[slot]->dev, 0);
            if (!b->block) {
                fe_buffer_free(ctx, b);
                break;
            }
            fe_devblock_retain(b->block);
            obuf[slot]->block = b->block; /* later pieces find it here */
            results[q] = b;
        }
    for (uint32_t s = p->n_inputs; s < p->n_slots; s++) /* batch buffers: owned by the pieces */
        if (obuf[s] && p->slots[s].batched) {
            if (!obuf[s]->block) rt_free(ctx->rt, obuf[s]->dev); /* no piece was made */
            fe_buffer_free(ctx, obuf[s]);
            obuf[s] = NULL;
        }
    for (uint32_t s = p->n_inputs; s < p->n_slots; s++)
        if (obuf[s] && obuf[s]->refcount == 0) { /* no root took it */
            obuf[s]->refcount = 1;
            fe_buffer_release(ctx, obuf[s]);
        }
}

static void dump_schedule(loom_ctx_t *ctx, const fe_plan_t *p, const ir_graph_t *g) {
    base_str_t s;
    base_str_init(&s, &ctx->al);
    fe_sched_print(p, g, &s);
    if (!s.failed) {
        base_log(&ctx->log, LOOM_LOG_DEBUG, "%s", base_str_get(&s));
        if (ctx->dump_dir) {
            char path[4096];
            snprintf(path, sizeof path, "%s/schedule_%06llu.txt", ctx->dump_dir,
                     (unsigned long long)ctx->stats.evals + 1);
            FILE *f = fopen(path, "w");
            if (f) {
                fputs(base_str_get(&s), f);
                fclose(f);
            }
        }
    }
    base_str_fini(&s);
}

loom_status_t fe_cuda_eval(loom_ctx_t *ctx, ir_graph_t *g, fe_buffer_t **results) {
    uint64_t *in_addr = base_arena_alloc(g->arena, g->n_inputs + 1, sizeof *in_addr);
    bool *temp = base_arena_alloc(g->arena, g->n_inputs + 1, sizeof *temp);
    if (!in_addr || !temp)
        return fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory scheduling");
    base_hash128_t key;
    if (fe_place_inputs(ctx, g, in_addr, temp) && plan_key(ctx, g, in_addr, &key)) {
        fe_plan_t *p = plan_find(ctx, key);
        bool batch = true;
        if (p && !fe_sched_batches_hold(p, g, in_addr)) { /* the variant without batches */
            key.hi ^= 0x6e6f6261746368;
            p = plan_find(ctx, key);
            batch = false;
        }
        if (p) {
            ctx->stats.plan_hits++;
            base_log(&ctx->log, LOOM_LOG_DEBUG, "plan hit: %u steps, %u IR nodes", p->n_steps,
                     g->n_nodes);
        } else {
            ctx->stats.plan_misses++;
            base_log(&ctx->log, LOOM_LOG_INFO, "plan miss: scheduling %u IR nodes", g->n_nodes);
            p = fe_sched_build(ctx, g, in_addr, key, batch);
            if (p) {
                dump_schedule(ctx, p, g);
                plan_insert(ctx, p);
            }
            p = plan_find(ctx, key);
        }
        if (p && ctx->device == LOOM_DEVICE_CUDA) run_plan(ctx, g, p, in_addr, results);
    }
    for (uint32_t i = 0; i < g->n_inputs; i++)
        if (temp[i]) rt_free(ctx->rt, in_addr[i]);
    return ctx->err.status;
}
