/* cuda.c — evaluation on the CUDA device (and the compile-only NVRTC device):
 *
 *   flat IR ──► group outputs by iteration space (one fused kernel each; elementwise
 *               intermediates are recomputed inside the kernel, never materialised)
 *           ──► H2D transfer of each host input once (copied host arrays keep their device
 *               copy for later evals; borrowed ones are uploaded per eval)
 *           ──► per kernel: structural key ──► memory cache ──► (miss) source ──► disk/NVRTC
 *           ──► output buffers from the pool ──► launch on the context's stream
 */
#include <string.h>

#include "../codegen/cg.h"
#include "fe.h"

static bool same_shape(const ir_node_t *a, const ir_node_t *b) {
    return a->ndim == b->ndim && !memcmp(a->shape, b->shape, sizeof(int64_t) * a->ndim);
}

/* Device addresses of the inputs, uploading host data where needed. */
static bool place_inputs(loom_ctx_t *ctx, const ir_graph_t *g, uint64_t *addr, bool *temp) {
    for (uint32_t i = 0; i < g->n_inputs; i++) {
        loom_array_t *a = g->inputs[i].owner;
        fe_buffer_t *b = a->buf;
        temp[i] = false;
        if (b->dev) {
            addr[i] = b->dev;
            continue;
        }
        if (ctx->device == LOOM_DEVICE_NVRTC) {
            addr[i] = 0;
            continue;
        }
        uint64_t d;
        if (rt_alloc(ctx->rt, b->bytes ? b->bytes : 1, &d) != LOOM_STATUS_OK) return false;
        if (b->bytes && rt_h2d(ctx->rt, d, b->host, b->bytes) != LOOM_STATUS_OK) {
            rt_free(ctx->rt, d);
            return false;
        }
        addr[i] = d;
        if (b->borrowed)
            temp[i] = true; /* the caller may change it before the next eval */
        else
            b->dev = d;     /* copied host data is immutable: keep the upload */
    }
    return true;
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

loom_status_t fe_cuda_eval(loom_ctx_t *ctx, ir_graph_t *g, fe_buffer_t **results) {
    base_arena_t *ar = g->arena;
    uint32_t no = g->n_outputs;
    uint64_t *in_addr = base_arena_alloc(ar, g->n_inputs + 1, sizeof *in_addr);
    bool *temp = base_arena_alloc(ar, g->n_inputs + 1, sizeof *temp);
    bool *done = base_arena_alloc(ar, no, sizeof *done);
    uint32_t *group = base_arena_alloc(ar, no, sizeof *group);
    uint32_t *slot = base_arena_alloc(ar, no, sizeof *slot);
    uint64_t *out_addr = base_arena_alloc(ar, no, sizeof *out_addr);
    if (!in_addr || !temp || !done || !group || !slot || !out_addr)
        return fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory scheduling");
    if (!place_inputs(ctx, g, in_addr, temp)) goto out;
    bool launch = ctx->device == LOOM_DEVICE_CUDA;
    for (uint32_t r = 0; r < no && !ctx->err.status; r++) {
        if (done[r]) continue;
        /* One kernel for every pending output of this iteration space (distinct nodes). */
        uint32_t n_group = 0;
        const ir_node_t *space = &g->nodes[g->outputs[r]];
        for (uint32_t q = r; q < no; q++) {
            if (done[q] || !same_shape(&g->nodes[g->outputs[q]], space)) continue;
            done[q] = true;
            uint32_t s = n_group;
            for (uint32_t t = 0; t < n_group; t++)
                if (group[t] == g->outputs[q]) s = t;
            if (s == n_group) group[n_group++] = g->outputs[q];
            slot[q] = s;
        }
        cg_kernel_t k;
        if (!cg_kernel_init(&k, g, ar, group, n_group, in_addr)) {
            fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory planning a kernel");
            break;
        }
        rt_kernel_t *kern = get_kernel(ctx, &k);
        if (!kern || !launch) continue;
        uint64_t *gaddr = base_arena_alloc(ar, n_group, sizeof *gaddr);
        fe_buffer_t **gbuf = base_arena_alloc(ar, n_group, sizeof *gbuf);
        if (!gaddr || !gbuf) {
            fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory");
            break;
        }
        for (uint32_t s = 0; s < n_group && !ctx->err.status; s++) {
            size_t nb = (size_t)k.size * ir_dtypes[g->nodes[group[s]].dtype].size;
            gbuf[s] = base_calloc(&ctx->al, 1, sizeof *gbuf[s]);
            if (!gbuf[s]) {
                fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory");
                break;
            }
            gbuf[s]->refcount = 0;
            gbuf[s]->on_device = true;
            gbuf[s]->bytes = nb;
            if (rt_alloc(ctx->rt, nb ? nb : 1, &gbuf[s]->dev) != LOOM_STATUS_OK) break;
            gaddr[s] = gbuf[s]->dev;
        }
        /* Hand each root its buffer (roots on the same node share it). */
        for (uint32_t q = r; q < no; q++) {
            if (results[q] || !done[q]) continue;
            for (uint32_t s = 0; s < n_group; s++)
                if (group[s] == g->outputs[q] && gbuf[s]) {
                    results[q] = gbuf[s];
                    gbuf[s]->refcount++;
                }
        }
        if (ctx->err.status) {
            for (uint32_t s = 0; s < n_group; s++) /* buffers no root took */
                if (gbuf[s] && gbuf[s]->refcount == 0) {
                    gbuf[s]->refcount = 1;
                    fe_buffer_release(ctx, gbuf[s]);
                }
            break;
        }
        if (k.size == 0) continue;
        uint32_t nw = cg_kernel_n_params(&k);
        uint64_t *words = base_arena_alloc(ar, nw, sizeof *words);
        if (!words) {
            fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "eval: out of memory");
            break;
        }
        cg_kernel_params(&k, in_addr, gaddr, words);
        uint32_t grid, block;
        cg_kernel_launch_shape(&k, rt_device_sm_count(ctx->rt),
                               rt_kernel_blocks_per_sm(ctx->rt, kern, CG_BLOCK), &grid, &block);
        void *params[1] = {words};
        rt_launch(ctx->rt, kern, grid, block, params);
    }
out:
    for (uint32_t i = 0; i < g->n_inputs; i++)
        if (temp[i]) rt_free(ctx->rt, in_addr[i]);
    return ctx->err.status;
}
