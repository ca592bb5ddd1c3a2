/* run.c — evaluation on the CUDA device (and the compile-only NVRTC device): the plan cache,
 * the step runner and the traversal order.
 *
 *   flat IR ──► plan key (structure, shapes, input layouts; not values, not addresses)
 *           ──► plan cache hit: the schedule (steps, their kernels, buffer slots), ready
 *               miss: schedule.c cuts the IR into steps (fused elementwise kernels, reduce
 *               steps with prologue/epilogue, scans, matrix products, joins), codegen
 *               describes each, structural keys ──► kernel cache ──► (miss) source ──► NVRTC
 *           ──► H2D transfer of each host input once (transfer.c)
 *           ──► per step: slots from the pool, scalars refreshed from this eval's graph,
 *               launch (or cuBLAS, or a 2-D copy) on the device's stream; temps freed after
 *               their last reader (stream-ordered pool: no waiting)
 *
 * The plan cache is the dispatch fast path: evaluating a graph of the same structure again
 * (new data, new scalars) does no scheduling, planning, key hashing or codegen. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

struct en_plans {
    en_plan_t **slots; /* open addressing by key */
    uint32_t cap, n;
};

#define MAX_PLANS 4096

/* Frees every cached plan (and the table). */
void en_plans_clear(en_engine_t *e) {
    struct en_plans *ps = e->plans;
    if (!ps) return;
    for (uint32_t i = 0; i < ps->cap; i++) en_schedule_free(e, ps->slots[i]);
    base_free(e->al, ps->slots);
    base_free(e->al, ps);
    e->plans = NULL;
}

/* The plan key: every node's structure in order, and each input's strides and alignment
 * (vector loads depend on it). Values and addresses are not part of it. The words are laid
 * out in the eval's arena and hashed once (one call instead of two per node). False with
 * the error recorded when the arena is out of memory. */
static bool plan_key(en_engine_t *e, const ir_graph_t *g, const uint64_t *in_addr,
                     base_hash128_t *key) {
    enum { NODE_WORDS = 4, INPUT_WORDS = LOOM_MAX_DIMS + 1 };
    size_t n_words = (size_t)g->n_nodes * NODE_WORDS + (size_t)g->n_inputs * INPUT_WORDS +
                     g->n_outputs + 1;
    uint64_t *w = base_arena_alloc_raw(g->arena, n_words, sizeof *w), *at = w;
    if (!w) {
        en_error(e, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory keying %u IR nodes",
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

static en_plan_t **plan_slot(struct en_plans *ps, base_hash128_t key) {
    uint32_t j = (uint32_t)key.lo & (ps->cap - 1);
    while (ps->slots[j] && (ps->slots[j]->key.lo != key.lo || ps->slots[j]->key.hi != key.hi))
        j = (j + 1) & (ps->cap - 1);
    return &ps->slots[j];
}

static en_plan_t *plan_find(en_engine_t *e, base_hash128_t key) {
    struct en_plans *ps = e->plans;
    return ps ? *plan_slot(ps, key) : NULL;
}

/* Remembers p (the cache owns it from here, even on failure, when it is freed). */
static void plan_insert(en_engine_t *e, en_plan_t *p) {
    struct en_plans *ps = e->plans;
    if (ps && ps->n >= MAX_PLANS) { /* bounded: start over rather than grow without limit */
        en_plans_clear(e);
        ps = NULL;
    }
    if (!ps) {
        ps = base_calloc(e->al, 1, sizeof *ps);
        en_plan_t **slots = base_calloc(e->al, 2 * MAX_PLANS, sizeof *slots);
        if (!ps || !slots) {
            base_free(e->al, ps);
            base_free(e->al, slots);
            en_schedule_free(e, p);
            en_error(e, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory caching a plan");
            return;
        }
        ps->slots = slots;
        ps->cap = 2 * MAX_PLANS;
        e->plans = ps;
    }
    en_plan_t **slot = plan_slot(ps, p->key);
    if (*slot) {
        en_schedule_free(e, p);
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
 * engine remembers went forward, and forward after a reverse one (every output is computed the
 * same way in either order: the same bits). H200, layernorm of 8192 x 8192 float32 called
 * again and again on one input: 125.1 us alternating, 129.1 always forward, 128.9 forward on
 * two inputs in turn (a standalone harness: git tag lab-notebook); after an elementwise kernel or a
 * matrix product that wrote the input, the reduction starts on the lines they wrote last.
 * Every other kernel goes forward. */
static int trail_at(const en_engine_t *e, uint64_t addr) {
    for (int i = 0; i < EN_TRAIL; i++)
        if (e->trail[i].seq && e->trail[i].addr == addr) return i;
    return -1;
}

static void trail_note(en_engine_t *e, uint64_t addr, int dir) {
    if (!addr) return;
    int i = trail_at(e, addr);
    if (i < 0) { /* a free entry, else the least recent */
        i = 0;
        for (int k = 1; k < EN_TRAIL; k++)
            if (e->trail[k].seq < e->trail[i].seq) i = k;
    }
    e->trail[i].addr = addr;
    e->trail[i].dir = dir;
    e->trail[i].seq = ++e->trail_seq;
}

/* Step graph sg's buffers (inputs in, outputs out) traversed in direction dir. */
static void trail_step(en_engine_t *e, const ir_graph_t *sg, const uint64_t *in,
                       const uint64_t *out, int dir) {
    for (uint32_t k = 0; k < sg->n_inputs; k++) trail_note(e, in[k], dir);
    for (uint32_t k = 0; k < sg->n_outputs; k++) trail_note(e, out[k], dir);
}

/* Whether a reversible reduction over step graph sg goes in reverse: its largest input with a
 * remembered traversal was last traversed forward. Largest: the bytes its strides span (a
 * broadcast operand, stride 0 along the axes it is repeated over, spans its own bytes). */
static bool trail_reverse(const en_engine_t *e, const ir_graph_t *sg, const uint64_t *in) {
    int64_t best = -1;
    bool rev = false;
    for (uint32_t j = 0; j < sg->n_nodes; j++) {
        const ir_node_t *n = &sg->nodes[j];
        if (n->op != IR_OP_INPUT) continue;
        int i = trail_at(e, in[n->input]);
        if (i < 0) continue;
        const int64_t *st = sg->inputs[n->input].strides;
        int64_t span = ir_node_size(n) > 0;
        for (int ax = 0; ax < n->ndim && span; ax++)
            span += (n->shape[ax] - 1) * (st[ax] < 0 ? -st[ax] : st[ax]);
        int64_t bytes = span * (int64_t)ir_dtypes[n->dtype].size;
        if (bytes > best) {
            best = bytes;
            rev = e->trail[i].dir > 0;
        }
    }
    return rev;
}

/* Runs step st: its graph's scalars and input offsets refreshed from this eval's graph g. */
static void run_step(en_engine_t *e, const ir_graph_t *g, const en_plan_t *p, en_step_t *st,
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
        en_error(e, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory launching a kernel");
        return;
    }
    for (uint32_t k = 0; k < sg->n_inputs; k++) {
        uint32_t slot = st->in_slot[k];
        sg->inputs[k].offset = st->in_delta[k] + (slot < p->n_inputs ? g->inputs[slot].offset : 0);
        in[k] = slot_addr[slot];
    }
    for (uint32_t k = 0; k < sg->n_outputs; k++) out[k] = slot_addr[st->out_slot[k]];
    rt_device_t *rt = e->rt;
    int sm = rt_device_sm_count(rt);
    switch (st->kind) {
        case EN_STEP_ELEM: {
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
            trail_step(e, sg, in, out, 1);
            return;
        }
        case EN_STEP_REDUCE: {
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
            bool rev = cg_reduce_reversible(st->red) && trail_reverse(e, sg, in);
            e->stats->kernels_reversed += rev;
            for (uint32_t i = 0; i < st->n_kerns && !e->err->status; i++) {
                uint32_t nw = cg_reduce_n_params(st->red, i);
                uint64_t *words = base_arena_alloc(g->arena, nw + 1, sizeof *words);
                if (!words) { /* (a break alone would skip the launch without an error) */
                    en_error(e, LOOM_STATUS_OUT_OF_MEMORY,
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
            trail_step(e, sg, in, out, rev ? -1 : 1);
            return;
        }
        case EN_STEP_SCAN: {
            cg_scan_set_graph(st->scan, sg);
            uint32_t nw = cg_scan_n_params(st->scan);
            uint64_t *words = base_arena_alloc(g->arena, nw + 1, sizeof *words);
            if (!words) break;
            size_t zeroed = 0, sbytes = cg_scan_scratch_bytes(st->scan, &zeroed);
            uint64_t scratch = 0;
            if (sbytes && (rt_alloc(rt, sbytes, &scratch) || rt_memset(rt, scratch, 0, zeroed)))
                return;
            cg_scan_params(st->scan, in, out[0], scratch, words);
            uint32_t grid[3], block[3], smem;
            cg_scan_launch_shape(st->scan, grid, block, &smem);
            void *params[1] = {words};
            if (grid[0] && grid[1] && grid[2])
                rt_launch_ex(rt, st->kerns[0], grid, block, smem, params);
            if (scratch) rt_free(rt, scratch);
            trail_step(e, sg, in, out, 1);
            return;
        }
        case EN_STEP_SORT:
            en_sort_run(e, st, in, out[0]);
            trail_step(e, sg, in, out, 1);
            return;
        case EN_STEP_LINALG:
            en_linalg_run(e, st, in, out[0]);
            trail_step(e, sg, in, out, 1);
            return;
        case EN_STEP_FFT:
            en_fft_run(e, st, in, out[0]);
            trail_step(e, sg, in, out, 1);
            return;
        case EN_STEP_GEMM:
            en_matmul_run(e, sg, in, out[0]);
            trail_step(e, sg, in, out, 1);
            return;
        case EN_STEP_CONCAT: {
            const ir_node_t *n = &sg->nodes[sg->outputs[0]];
            size_t es = ir_dtypes[n->dtype].size;
            size_t outer = 1;
            for (int ax = 0; ax < st->concat_axis; ax++) outer *= (size_t)n->shape[ax];
            size_t pitch = outer ? (size_t)ir_node_size(n) * es / (outer ? outer : 1) : 0;
            size_t at = 0;
            for (int k = 0; k < 2 && !e->err->status; k++) {
                const ir_node_t *a = &sg->nodes[n->src[k]];
                size_t w = outer ? (size_t)ir_node_size(a) * es / outer : 0;
                uint64_t src = in[a->input] + (uint64_t)(sg->inputs[a->input].offset * (int64_t)es);
                rt_d2d_2d(rt, out[0] + at, pitch, src, w, w, outer);
                at += w;
            }
            trail_step(e, sg, in, out, 1);
            return;
        }
    }
    en_error(e, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory launching a kernel");
}

/* Hands slot allocations to the eval's outputs (see en_eval): a plain slot to the first output
 * that is it, a batch's slot in pieces that share it through a block. False (nothing handed
 * out: results zeroed) when out of memory. */
static bool hand_out(en_engine_t *e, const en_plan_t *p, const uint64_t *addr, uint32_t *taken,
                     en_devblock_t **blk, en_mem_t *results, uint32_t *same_as) {
    for (uint32_t q = 0; q < p->n_outputs; q++) {
        uint32_t slot = p->out_slot[q];
        same_as[q] = q;
        if (!p->slots[slot].batched) {
            if (taken[slot] != UINT32_MAX) { /* two requested arrays that are one node */
                same_as[q] = taken[slot];
                continue;
            }
            taken[slot] = q;
            results[q] = (en_mem_t){.dev = addr[slot], .bytes = p->slots[slot].bytes, .on_device = true};
            continue;
        }
        if (p->out_first[q] != q) { /* asked twice */
            same_as[q] = p->out_first[q];
            continue;
        }
        if (!blk[slot] && !(blk[slot] = en_devblock_new(e, addr[slot], 0))) break;
        en_devblock_retain(blk[slot]);
        results[q] = (en_mem_t){.dev = addr[slot] + p->out_off[q], .bytes = p->out_bytes[q],
                                .on_device = true, .block = blk[slot]};
    }
    if (!e->err->status) return true;
    for (uint32_t q = 0; q < p->n_outputs; q++) { /* undo: the caller gets nothing */
        if (same_as[q] == q && results[q].block) en_mem_drop(e, &results[q]);
        results[q] = (en_mem_t){0};
        same_as[q] = q;
    }
    for (uint32_t s = 0; s < p->n_slots; s++) taken[s] = UINT32_MAX;
    return false;
}

/* ---- Errors after the eval ----
 * A kernel that can raise (an index out of bounds, an integer to a negative power) ORs the
 * error's bit into its module's status word. The eval does not wait to read it: waiting would
 * stop the host from queuing the next eval while the device runs this one (a gather's eval
 * took 25-30 µs longer, the host's whole turn exposed). The words of the kernels that have run
 * since the last check are read by en_check, which the frontend calls where it waits for the
 * device anyway. Until then every result of those evals, and of later evals that read one,
 * carries its eval's serial (taint); when the check finds a bit set, the evals from the
 * window's first to the check are recorded as raised, and their results give the error
 * wherever they are read or used again: no value computed from a clamped index or a
 * substituted power can be read. */

/* The raised range holding serial t, or NULL. */
static const struct en_raised *raised_at(const en_engine_t *e, uint64_t t) {
    for (uint32_t i = 0; i < e->n_raised; i++)
        if (e->raised[i].from <= t && t <= e->raised[i].to) return &e->raised[i];
    return NULL;
}

/* The error of status word w (RT_STATUS_WORD's layout), as the CPU device words it. */
static loom_status_t raised_error(en_engine_t *e, const uint64_t w[4], const char *when) {
    uint32_t bits = (uint32_t)w[0];
    if ((bits & IR_RAISE_NEG_POWER) || !(bits & IR_RAISE_INDEX))
        return en_error(e, ir_raise_status(bits), "%s (%s)", ir_raise_message(bits), when);
    return en_error(e, LOOM_STATUS_INDEX_ERROR, IR_INDEX_MESSAGE " (%s)", (long long)w[1],
                    (long long)(int32_t)w[3], (long long)w[2], when);
}

/* Adds plan p's status words to the unchecked ones (once each), with room for the raised
 * range a check may record (so that a check never needs memory to mark one). False when out of
 * memory. */
static bool note_words(en_engine_t *e, const en_plan_t *p) {
    if (e->n_raised == e->cap_raised) {
        uint32_t cap = e->cap_raised ? 2 * e->cap_raised : 4;
        struct en_raised *r = base_realloc(e->al, e->raised, cap, sizeof *r);
        if (!r) return false;
        e->raised = r;
        e->cap_raised = cap;
    }
    for (uint32_t i = 0; i < p->n_status; i++) {
        bool seen = false;
        for (uint32_t j = 0; j < e->n_words && !seen; j++) seen = e->words[j] == p->status[i];
        if (seen) continue;
        if (e->n_words == e->cap_words) {
            uint32_t cap = e->cap_words ? 2 * e->cap_words : 16;
            uint64_t *w = base_realloc(e->al, e->words, cap, sizeof *w);
            if (!w) return false;
            e->words = w;
            e->cap_words = cap;
        }
        e->words[e->n_words++] = p->status[i];
    }
    if (!e->unchecked_from) e->unchecked_from = e->serial;
    return true;
}

loom_status_t en_check(en_engine_t *e) {
    if (!e || !e->n_words || e->err->status) return e ? e->err->status : LOOM_STATUS_OK;
    uint32_t n = e->n_words;
    uint64_t(*words)[4] = base_malloc(e->al, n, sizeof *words);
    void **dst = base_malloc(e->al, n, sizeof *dst);
    size_t *bytes = base_malloc(e->al, n, sizeof *bytes);
    loom_status_t st = LOOM_STATUS_OK;
    if (!words || !dst || !bytes)
        st = en_error(e, LOOM_STATUS_OUT_OF_MEMORY, "check: out of memory reading kernel statuses");
    for (uint32_t i = 0; i < n && !st; i++) {
        dst[i] = words[i];
        bytes[i] = RT_STATUS_BYTES;
    }
    if (!st) st = rt_d2h_batch(e->rt, n, dst, e->words, bytes);
    struct en_raised r = {e->unchecked_from, e->serial, {0}};
    for (uint32_t i = 0; i < n && !st; i++) {
        if (!words[i][0]) continue;
        uint64_t bits = r.word[0] | words[i][0];
        if (!r.word[0] || ((words[i][0] & IR_RAISE_INDEX) && !(r.word[0] & IR_RAISE_INDEX)))
            memcpy(r.word, words[i], sizeof r.word); /* an index's details, when there are */
        r.word[0] = bits;
        rt_memset(e->rt, e->words[i], 0, RT_STATUS_BYTES); /* for the next run */
    }
    if (r.word[0] && !st) {
        e->raised[e->n_raised++] = r; /* (note_words made room) */
        st = raised_error(e, r.word, "raised on the device by an eval since the last wait for it");
    }
    if (!st || r.word[0]) {
        e->n_words = 0;
        e->unchecked_from = 0;
    }
    base_free(e->al, words);
    base_free(e->al, dst);
    base_free(e->al, bytes);
    return st;
}

loom_status_t en_mem_check(en_engine_t *e, const en_mem_t *m) {
    const struct en_raised *r = e && m && m->taint ? raised_at(e, m->taint) : NULL;
    return r ? raised_error(e, r->word, "raised on the device by the eval that computed this data")
             : LOOM_STATUS_OK;
}

/* Runs plan p: slots allocated as steps need them, results handed to the eval's outputs. */
static void run_plan(en_engine_t *e, const ir_graph_t *g, en_plan_t *p, const uint64_t *in_addr,
                     en_mem_t *results, uint32_t *same_as) {
    uint64_t *addr = base_arena_alloc(g->arena, p->n_slots + 1, sizeof *addr);
    uint32_t *taken = base_arena_alloc(g->arena, p->n_slots + 1, sizeof *taken);
    en_devblock_t **blk = base_arena_alloc(g->arena, p->n_slots + 1, sizeof *blk);
    if (!addr || !taken || !blk) {
        en_error(e, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory running a schedule");
        return;
    }
    for (uint32_t k = 0; k < p->n_inputs; k++) addr[k] = in_addr[k];
    for (uint32_t s = 0; s < p->n_slots; s++) taken[s] = UINT32_MAX;
    for (uint32_t i = 0; i < p->n_steps && !e->err->status; i++) {
        en_step_t *st = &p->steps[i];
        for (uint32_t k = 0; k < st->sg.n_outputs && !e->err->status; k++) {
            const en_slot_t *sl = &p->slots[st->out_slot[k]];
            if (rt_alloc(e->rt, sl->bytes ? sl->bytes : 1, &addr[st->out_slot[k]]) != LOOM_STATUS_OK)
                break;
        }
        if (e->err->status) break;
        run_step(e, g, p, st, addr);
        for (uint32_t k = 0; k < st->n_free; k++) { /* temps nobody reads later */
            uint32_t s = st->free_after[k];
            if (addr[s]) rt_free(e->rt, addr[s]);
            addr[s] = 0;
        }
    }
    /* (also after an error: a kernel that ran may have raised, and its word must be cleared) */
    if (p->n_status && !note_words(e, p))
        en_error(e, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory noting kernel statuses");
    if (!e->err->status) hand_out(e, p, addr, taken, blk, results, same_as);
    for (uint32_t s = p->n_inputs; s < p->n_slots; s++) { /* what no output took */
        bool kept = p->slots[s].batched ? blk[s] != NULL : taken[s] != UINT32_MAX;
        if (addr[s] && !kept) rt_free(e->rt, addr[s]);
    }
}

/* The schedule to the log and, with a dump folder, to schedule_<eval>.txt there. */
static void dump_schedule(en_engine_t *e, const en_plan_t *p, const ir_graph_t *g) {
    base_str_t s;
    base_str_init(&s, e->al);
    en_schedule_print(p, g, &s);
    if (!s.failed) {
        base_log(e->log, LOOM_LOG_DEBUG, "%s", base_str_get(&s));
        if (e->dump_dir) {
            char name[32];
            unsigned long long serial = e->stats->evals + 1;
            snprintf(name, sizeof name, "schedule_%06llu", serial);
            base_file_dump(e->al, e->log, e->dump_dir, name, "txt", base_str_get(&s), s.len);
        }
    }
    base_str_fini(&s);
}

loom_status_t en_eval(en_engine_t *e, ir_graph_t *g, en_mem_t *results, uint32_t *same_as) {
    uint64_t *in_addr = base_arena_alloc(g->arena, g->n_inputs + 1, sizeof *in_addr);
    if (!in_addr) return en_error(e, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory scheduling");
    for (uint32_t q = 0; q < g->n_outputs; q++) same_as[q] = q;
    uint64_t serial = ++e->serial;
    bool tainted = false; /* an input was computed by an eval whose raises are unchecked */
    for (uint32_t i = 0; i < g->n_inputs; i++) {
        const en_mem_t *m = g->inputs[i].owner;
        if (!m || !m->taint) continue;
        if (en_mem_check(e, m)) return e->err->status;
        tainted |= e->unchecked_from && m->taint >= e->unchecked_from;
    }
    base_hash128_t key;
    if (en_place_inputs(e, g, in_addr) && plan_key(e, g, in_addr, &key)) {
        en_plan_t *p = plan_find(e, key);
        bool batch = true;
        if (p && !en_schedule_batches_hold(p, g, in_addr)) { /* the variant without batches */
            key.hi ^= 0x6e6f6261746368;
            p = plan_find(e, key);
            batch = false;
        }
        if (p) {
            e->stats->plan_hits++;
            base_log(e->log, LOOM_LOG_DEBUG, "plan hit: %u steps, %u IR nodes", p->n_steps,
                     g->n_nodes);
        } else {
            e->stats->plan_misses++;
            base_log(e->log, LOOM_LOG_INFO, "plan miss: scheduling %u IR nodes", g->n_nodes);
            p = en_schedule(e, g, in_addr, key, batch);
            if (p) {
                dump_schedule(e, p, g);
                plan_insert(e, p);
            }
            p = plan_find(e, key);
        }
        if (p && !e->compile_only) run_plan(e, g, p, in_addr, results, same_as);
        if (p && !e->compile_only && (tainted || p->n_status))
            for (uint32_t q = 0; q < g->n_outputs; q++) results[q].taint = serial;
    }
    return e->err->status;
}
