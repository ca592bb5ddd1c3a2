/* sort.c — runs the steps of fixed kernels codegen/sort.c writes: radix sorts and argsorts,
 * searchsorted, flatnonzero and the deterministic scatters. Scratch (two key and two payload
 * arrays, the digit counts) comes from the pool for the step and goes back after it; the
 * kernels queue on the device's stream like every other step. */
#include "internal.h"

uint64_t en_operand(const ir_graph_t *sg, const ir_node_t *nd, int k, const uint64_t *in) {
    const ir_node_t *o = &sg->nodes[nd->src[k]];
    const ir_input_t *inp = &sg->inputs[o->input];
    return in[o->input] + (uint64_t)(inp->offset * (int64_t)ir_dtypes[o->dtype].size);
}

static loom_status_t launch(en_engine_t *e, rt_kernel_t *k, uint32_t grid, uint32_t block,
                            uint64_t *words) {
    void *params[1] = {words};
    return rt_launch(e->rt, k, grid, block, params);
}

uint32_t en_stride_grid(rt_device_t *rt, int64_t n) {
    int sm = rt_device_sm_count(rt);
    int64_t blocks = (n + 255) / 256, cap = 8 * (int64_t)(sm > 0 ? sm : 132);
    return (uint32_t)(blocks < 1 ? 1 : blocks < cap ? blocks : cap);
}

/* The passes of 8 bits over n (key, payload) pairs from k[0], p[0] (ping-ponging with k[1],
 * p[1]): the digit counts of every pass, then one kernel a pass. work: the counts (passes x
 * 256 words), the tiles' status words (a tile's counts and prefixes, tagged with the pass,
 * so zeroed once) and a tile counter per pass, zeroed here. *cur: the side holding the
 * result. */
static loom_status_t radix(en_engine_t *e, const en_step_t *st, uint64_t k[2], uint64_t p[2],
                           uint64_t work, int *cur) {
    const cg_sort_t *s = st->sort;
    int np = s->key_passes + s->seg_passes;
    uint64_t tiles = ((uint64_t)s->n + CG_SORT_TILE - 1) / CG_SORT_TILE;
    uint64_t counts = work, status = work + (uint64_t)np * 256 * 8;
    uint64_t ctr = status + tiles * 256 * 8;
    *cur = 0;
    if (!np) return LOOM_STATUS_OK;
    if (rt_memset(e->rt, work, 0, (size_t)(ctr - work) + (size_t)np * 4) != LOOM_STATUS_OK)
        return e->err->status;
    uint64_t wh[7] = {
        (uint64_t)s->n,  k[0], p[0], counts, (uint64_t)s->key_passes, (uint64_t)s->seg_passes,
        (uint64_t)s->len};
    launch(e, st->kerns[CG_SK_HIST], en_stride_grid(e->rt, s->n), 256, wh);
    int c = 0;
    for (int pass = 0; pass < np && !e->err->status; pass++) {
        bool seg = pass >= s->key_passes;
        uint64_t shift = 8 * (uint64_t)(seg ? pass - s->key_passes : pass);
        uint64_t w[11] = {(uint64_t)s->n, k[c], p[c],  k[1 - c],         p[1 - c],      counts,
                          status,         ctr,  shift, (uint64_t)s->len, (uint64_t)pass};
        launch(e, st->kerns[seg ? CG_SK_SCATTER_SEG : CG_SK_SCATTER], (uint32_t)tiles, 256, w);
        c = 1 - c;
    }
    *cur = c;
    return e->err->status;
}

loom_status_t en_sort_run(en_engine_t *e, const en_step_t *st, const uint64_t *in, uint64_t out) {
    const cg_sort_t *s = st->sort;
    const ir_graph_t *sg = &st->sg;
    const ir_node_t *nd = &sg->nodes[sg->outputs[0]];
    rt_device_t *rt = e->rt;
    if (s->op == IR_OP_SEARCHSORTED) {
        if (!s->n) return LOOM_STATUS_OK;
        uint64_t w[5] = {(uint64_t)s->n, en_operand(sg, nd, 0, in), (uint64_t)s->len,
                         en_operand(sg, nd, 1, in), out};
        return launch(e, st->kerns[0], en_stride_grid(e->rt, s->n), 256, w);
    }
    if (s->op == IR_OP_CORRELATE) {
        if (!s->n) return LOOM_STATUS_OK;
        uint64_t w[8] = {out,
                         en_operand(sg, nd, 0, in),
                         en_operand(sg, nd, 1, in),
                         (uint64_t)s->len,
                         (uint64_t)s->taps,
                         (uint64_t)s->n,
                         (uint64_t)s->offset,
                         s->flip};
        int64_t blocks = (s->n + CG_CORR_TILE - 1) / CG_CORR_TILE;
        if (blocks > INT32_MAX)
            return en_error(e, LOOM_STATUS_OVERFLOW, "correlate: %lld outputs are too many",
                            (long long)s->n);
        return launch(e, st->kerns[0], (uint32_t)blocks, CG_CORR_THREADS, w);
    }
    if (s->op == IR_OP_NONZERO) {
        if (!s->len) return LOOM_STATUS_OK;
        /* all padding (else the write kernel's last block fills it): -1 positions */
        if (!s->n) return rt_memset(rt, out, 0xFF, (size_t)s->len * 8);
        uint64_t counts;
        if (rt_alloc(rt, (size_t)s->nb * 8, &counts) != LOOM_STATUS_OK) return e->err->status;
        uint64_t x = en_operand(sg, nd, 0, in);
        uint64_t w0[4] = {(uint64_t)s->n, x, counts, (uint64_t)s->per};
        launch(e, st->kerns[0], (uint32_t)s->nb, 256, w0);
        uint64_t w1[2] = {(uint64_t)s->nb, counts};
        launch(e, st->kerns[1], 1, 1024, w1);
        uint64_t w2[6] = {(uint64_t)s->n, x, counts, (uint64_t)s->per, out, (uint64_t)s->len};
        launch(e, st->kerns[2], (uint32_t)s->nb, 256, w2);
        rt_free(rt, counts);
        return e->err->status;
    }
    bool scatter = s->op == IR_OP_SCATTER;
    if (scatter) { /* the base first: the runs then combine into it */
        size_t bytes = (size_t)s->len * ir_dtypes[s->dtype].size;
        if (bytes && rt_d2d(rt, out, en_operand(sg, nd, 0, in), bytes) != LOOM_STATUS_OK)
            return e->err->status;
    }
    if (!s->n) return LOOM_STATUS_OK;
    if (scatter && s->atomic) {
        uint64_t w[6] = {
            (uint64_t)s->n,   en_operand(sg, nd, 1, in), en_operand(sg, nd, 2, in), out,
            (uint64_t)s->len, s->one_value ? 0 : 1};
        return launch(e, st->kerns[0], en_stride_grid(e->rt, s->n), 256, w);
    }
    size_t kb = (size_t)s->n * (size_t)s->kbytes, pb = (size_t)s->n * (size_t)s->pbytes;
    size_t tiles = ((size_t)s->n + CG_SORT_TILE - 1) / CG_SORT_TILE;
    size_t wb = (size_t)(s->key_passes + s->seg_passes) * (256 * 8 + 4) + tiles * 256 * 8;
    uint64_t base;
    if (rt_alloc(rt, 2 * kb + 2 * pb + wb, &base) != LOOM_STATUS_OK) return e->err->status;
    /* (the pool aligns blocks to 256; each array stays 8-aligned) */
    uint64_t k[2] = {base, base + kb}, p[2] = {base + 2 * kb, base + 2 * kb + pb};
    uint64_t work = base + 2 * kb + 2 * pb;
    uint32_t grid = en_stride_grid(e->rt, s->n);
    if (scatter) {
        uint64_t w[5] = {(uint64_t)s->n, en_operand(sg, nd, 1, in), k[0], p[0], (uint64_t)s->len};
        launch(e, st->kerns[CG_SK_PREP], grid, 256, w);
    } else {
        uint64_t w[6] = {(uint64_t)s->n, en_operand(sg, nd, 0, in), k[0],
                         p[0],           (uint64_t)s->len,          (uint64_t)s->inner};
        launch(e, st->kerns[CG_SK_PREP], grid, 256, w);
    }
    int c = 0;
    radix(e, st, k, p, work, &c);
    if (scatter) {
        uint64_t w[7] = {
            (uint64_t)s->n,      k[c], p[c], en_operand(sg, nd, 2, in), out, (uint64_t)s->len,
            s->one_value ? 0 : 1};
        launch(e, st->kerns[CG_SK_FINAL], grid, 256, w);
    } else {
        uint64_t w[6] = {(uint64_t)s->n,           p[c], out, (uint64_t)s->len, (uint64_t)s->inner,
                         en_operand(sg, nd, 0, in)};
        launch(e, st->kerns[CG_SK_FINAL], grid, 256, w);
    }
    rt_free(rt, base);
    return e->err->status;
}
