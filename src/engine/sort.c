/* sort.c — runs the steps of fixed kernels codegen/sort.c writes: radix sorts and argsorts,
 * order statistics, searchsorted, flatnonzero and the deterministic scatters. Scratch (two
 * key and two payload arrays, the digit counts) comes from the pool for the step and goes
 * back after it; the kernels queue on the device's stream like every other step. */
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

/* Scratch words after the keys and payloads: the digit counts (passes x 256), PREP's words,
 * a tile counter per pass (all zeroed here), then each pass's look-back words (a tile's
 * counts and prefixes; zeroed too). */
typedef struct {
    uint64_t tiles; /* of a pass */
    uint64_t counts, flags, ctr, status, status_bytes, bytes;
} work_t;

/* The layout from base (8-aligned), or with base 0 the offsets and the size. */
static work_t work_layout(const cg_sort_t *s, uint64_t base) {
    int np = s->key_passes + s->seg_passes;
    work_t w;
    w.tiles = ((uint64_t)s->n + (uint64_t)s->tile - 1) / (uint64_t)s->tile;
    w.counts = base;
    w.flags = w.counts + (uint64_t)np * 256 * 8;
    w.ctr = w.flags + CG_SORT_FLAGS * 8;
    w.status = w.ctr + ((uint64_t)np * 4 + 7) / 8 * 8;
    w.status_bytes = w.tiles * 256 * (s->wide ? 8 : 4);
    w.bytes = w.status + (uint64_t)np * w.status_bytes - base;
    return w;
}

/* The passes of 8 bits over n (key, payload) pairs from k[0], p[0] (ping-ponging with k[1],
 * p[1]); the counts are in w. out: where the last pass writes a sort's result (0: into the
 * arrays; *cur then names the side holding it); x: the sorted elements. */
static loom_status_t radix(en_engine_t *e, const en_step_t *st, uint64_t k[2], uint64_t p[2],
                           const work_t *wk, uint64_t out, uint64_t x, int *cur) {
    const cg_sort_t *s = st->sort;
    int np = s->key_passes + s->seg_passes;
    int c = 0;
    for (int pass = 0; pass < np && !e->err->status; pass++) {
        bool seg = pass >= s->key_passes;
        uint64_t shift = 8 * (uint64_t)(seg ? pass - s->key_passes : pass);
        uint64_t w[14] = {(uint64_t)s->n,
                          k[c],
                          p[c],
                          k[1 - c],
                          p[1 - c],
                          wk->counts + (uint64_t)pass * 256 * 8,
                          wk->status + (uint64_t)pass * wk->status_bytes,
                          wk->ctr + (uint64_t)pass * 4,
                          shift,
                          (uint64_t)s->len,
                          (uint64_t)s->inner,
                          wk->flags,
                          pass == np - 1 ? out : 0,
                          x};
        int kind = seg ? CG_SK_SCATTER_SEG : CG_SK_SCATTER;
        void *params[1] = {w};
        uint32_t grid[3] = {(uint32_t)wk->tiles, 1, 1}, block[3] = {CG_SORT_THREADS, 1, 1};
        rt_launch_ex(e->rt, st->kerns[cg_sort_index(s, kind)], grid, block, cg_sort_scatter_smem(s),
                     params);
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
    if (s->op == IR_OP_SELECT) {
        int64_t lines = s->len ? s->n / s->len : 0;
        if (!lines) return LOOM_STATUS_OK;
        uint64_t w[6 + LOOM_MAX_DIMS] = {
            (uint64_t)lines, en_operand(sg, nd, 0, in), (uint64_t)s->len, (uint64_t)s->inner, out,
            (uint64_t)s->m};
        for (int r = 0; r < s->m; r++) w[6 + r] = (uint64_t)s->ranks[r];
        uint32_t grid = lines < (INT64_C(1) << 30) ? (uint32_t)lines : UINT32_C(1) << 30;
        return launch(e, st->kerns[0], grid, s->len > 4096 ? CG_SELECT_THREADS : 256, w);
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
    if (s->rows) { /* a block a line, every pass in its shared memory */
        int64_t lines = s->n / s->len, cap = INT64_C(1) << 30;
        uint64_t w[4] = {en_operand(sg, nd, 0, in), out, (uint64_t)s->len, (uint64_t)lines};
        void *params[1] = {w};
        uint32_t grid[3] = {(uint32_t)(lines < cap ? lines : cap), 1, 1};
        uint32_t block[3] = {CG_SORT_THREADS, 1, 1};
        rt_launch_ex(rt, st->kerns[0], grid, block, cg_sort_scatter_smem(s), params);
        return e->err->status;
    }
    size_t kb = (size_t)s->n * (size_t)s->kbytes, pb = (size_t)s->n * (size_t)s->pbytes;
    work_t wk = work_layout(s, 0);
    if (wk.tiles > UINT32_MAX)
        return en_error(e, LOOM_STATUS_OVERFLOW, "sort: %lld elements are too many",
                        (long long)s->n);
    size_t at = (2 * kb + 2 * pb + 7) / 8 * 8; /* the words after the arrays, 8-aligned */
    uint64_t base;
    if (rt_alloc(rt, at + (size_t)wk.bytes, &base) != LOOM_STATUS_OK) return e->err->status;
    /* (the pool aligns blocks to 256; each array stays 8-aligned) */
    uint64_t k[2] = {base, base + kb}, p[2] = {base + 2 * kb, base + 2 * kb + pb};
    wk = work_layout(s, base + at);
    if (rt_memset(rt, wk.counts, 0, (size_t)wk.bytes) != LOOM_STATUS_OK) {
        rt_free(rt, base);
        return e->err->status;
    }
    uint32_t grid = en_stride_grid(e->rt, s->n);
    uint64_t np = (uint64_t)(s->key_passes + s->seg_passes);
    int c = 0;
    if (scatter) {
        uint64_t w[5] = {(uint64_t)s->n, en_operand(sg, nd, 1, in), k[0], p[0], (uint64_t)s->len};
        launch(e, st->kerns[cg_sort_index(s, CG_SK_PREP)], grid, 256, w);
        uint64_t wh[7] = {(uint64_t)s->n, k[0], p[0], wk.counts, np, 0, (uint64_t)s->len};
        launch(e, st->kerns[cg_sort_index(s, CG_SK_HIST)], grid, 256, wh);
        radix(e, st, k, p, &wk, 0, 0, &c);
        uint64_t w2[7] = {
            (uint64_t)s->n,      k[c], p[c], en_operand(sg, nd, 2, in), out, (uint64_t)s->len,
            s->one_value ? 0 : 1};
        launch(e, st->kerns[cg_sort_index(s, CG_SK_FINAL)], grid, 256, w2);
    } else {
        uint64_t x = en_operand(sg, nd, 0, in);
        uint64_t w[10] = {(uint64_t)s->n,
                          x,
                          k[0],
                          p[0],
                          (uint64_t)s->len,
                          (uint64_t)s->inner,
                          wk.counts,
                          wk.flags,
                          (uint64_t)s->key_passes,
                          (uint64_t)s->seg_passes};
        launch(e, st->kerns[cg_sort_index(s, CG_SK_PREP)], grid, 256, w);
        int pays = cg_sort_index(s, CG_SK_PAYS);
        if (pays >= 0) {
            uint64_t w1[6] = {(uint64_t)s->n,     x,       p[0], (uint64_t)s->len,
                              (uint64_t)s->inner, wk.flags};
            launch(e, st->kerns[pays], grid, 256, w1);
        }
        radix(e, st, k, p, &wk, out, x, &c);
    }
    rt_free(rt, base);
    return e->err->status;
}
