/* scan.c — CUDA C for a scan step (cumsum, cumprod): one thread per scan line, walking it in
 * order with NumPy's sequential semantics in the result dtype (y0 = x0, yi = y(i-1) op xi).
 * Threads take consecutive lines, so when the scan axis is not innermost their reads and
 * writes are coalesced. When it is innermost (rows), a warp takes 32 lines and moves them
 * through a shared-memory tile 32 elements at a time: coalesced loads and stores, each lane
 * still scanning its own line in order. The elementwise prologue is computed per element.
 * Names come from node positions; extents, strides, addresses and scalars are parameters. */
#include <stdio.h>
#include <string.h>

#include "emit.h"

#define SCAN_BLOCK   256
#define TILE_BLOCK   128 /* 4 warps of 32 lines each */
#define TILE_MIN_LEN 16  /* innermost lines from this long go through the tile */

struct cg_scan {
    const ir_graph_t *g;
    uint32_t *nodes; /* kernel nodes, operands first; the SCAN node last */
    uint32_t n_nodes;
    int64_t (*strides)[LOOM_MAX_DIMS]; /* per kernel node (INPUT): collapsed strides */
    int nd, axis;                      /* collapsed axes and the scanned one */
    int64_t shape[LOOM_MAX_DIMS], ostr[LOOM_MAX_DIMS];
    int64_t lines, len;
    bool idx64;
    bool tile; /* innermost scan axis: the shared-memory tile variant */
};

static const ir_node_t *node(const cg_scan_t *s, uint32_t j) { return &s->g->nodes[s->nodes[j]]; }

static uint32_t pos(const cg_scan_t *s, uint32_t ir) {
    for (uint32_t j = 0; j < s->n_nodes; j++)
        if (s->nodes[j] == ir) return j;
    return 0;
}

cg_scan_t *cg_scan_init(const ir_graph_t *g, base_arena_t *ar, uint32_t out,
                        const uint64_t *input_addr, int sm_count) {
    (void)input_addr;
    (void)sm_count;
    cg_scan_t *s = base_arena_alloc(ar, 1, sizeof *s);
    if (!s) return NULL;
    s->g = g;
    s->nodes = cg__collect(g, ar, &out, 1, &s->n_nodes);
    if (!s->nodes) return NULL;
    s->strides = base_arena_alloc(ar, s->n_nodes, sizeof *s->strides);
    if (!s->strides) return NULL;

    /* The space: the scan's shape collapsed, the scanned axis kept (even at extent 1) and
     * never merged with another. */
    const ir_node_t *x = &g->nodes[out];
    int64_t size = ir_node_size(x);
    uint32_t scanned = x->p.axis >= 0 && x->p.axis < x->ndim ? 1u << x->p.axis : 0;
    int nd = cg__collapse(g, s->nodes, s->n_nodes, x, scanned, &scanned, s->shape, s->strides);
    s->axis = scanned ? __builtin_ctz(scanned) : 0;
    s->nd = nd;
    int64_t st = 1;
    for (int ax = nd - 1; ax >= 0; ax--) {
        s->ostr[ax] = st;
        st *= s->shape[ax];
    }
    s->len = nd ? s->shape[s->axis] : 1;
    s->lines = s->len ? size / s->len : 0;
    bool big = size > CG__IDX32_MAX;
    for (uint32_t j = 0; j < s->n_nodes; j++)
        if (node(s, j)->op == IR_OP_INPUT && cg__reach(s->strides[j], s->shape, nd) > CG__IDX32_MAX)
            big = true;
    s->idx64 = big;
    /* (a 16-byte element's tile would pass the 48 KiB of static shared memory) */
    s->tile = s->axis == nd - 1 && s->len >= TILE_MIN_LEN &&
              ir_dtypes[node(s, s->n_nodes - 1)->dtype].size <= 8;
    return s;
}

cg_scan_t *cg_scan_keep(const cg_scan_t *s, base_alloc_t *al) {
    cg_scan_t *k = base_malloc(al, 1, sizeof *k);
    if (!k) return NULL;
    *k = *s;
    k->nodes = base_malloc(al, s->n_nodes, sizeof *s->nodes);
    k->strides = base_malloc(al, s->n_nodes, sizeof *s->strides);
    if (!k->nodes || !k->strides) {
        cg_scan_free(k, al);
        return NULL;
    }
    memcpy(k->nodes, s->nodes, s->n_nodes * sizeof *s->nodes);
    memcpy(k->strides, s->strides, s->n_nodes * sizeof *s->strides);
    return k;
}

void cg_scan_free(cg_scan_t *s, base_alloc_t *al) {
    if (!s) return;
    base_free(al, s->nodes);
    base_free(al, s->strides);
    base_free(al, s);
}

void cg_scan_set_graph(cg_scan_t *s, const ir_graph_t *g) { s->g = g; }

base_hash128_t cg_scan_key(const cg_scan_t *s) {
    cg__key_t k;
    cg__key_init(&k, 0x6c6f7331); /* format of this generator; bump when the text changes */
    cg__key_put(&k, (uint32_t)s->nd | (uint32_t)s->axis << 8 | (uint32_t)s->idx64 << 16 |
                        (uint32_t)s->tile << 17);
    cg__key_put(&k, s->n_nodes);
    for (uint32_t j = 0; j < s->n_nodes; j++) {
        const ir_node_t *n = node(s, j);
        cg__key_put(&k, n->op | (uint32_t)n->dtype << 16);
        for (int a = 0; a < ir_ops[n->op].arity; a++) cg__key_put(&k, pos(s, n->src[a]));
    }
    return cg__key_done(&k);
}

uint32_t cg_scan_n_params(const cg_scan_t *s) {
    uint32_t w = 2 + 2 * (uint32_t)s->nd;
    for (uint32_t j = 0; j < s->n_nodes; j++) {
        const ir_node_t *n = node(s, j);
        if (n->op == IR_OP_INPUT) w += 1 + (uint32_t)s->nd;
        if (n->op == IR_OP_CONST) w += 1;
    }
    return w + 1;
}

void cg_scan_params(const cg_scan_t *s, const uint64_t *input_addr, uint64_t out_addr,
                    uint64_t *w) {
    uint32_t n = 0;
    w[n++] = (uint64_t)s->lines;
    w[n++] = (uint64_t)s->len;
    for (int ax = 0; ax < s->nd; ax++) w[n++] = (uint64_t)s->shape[ax];
    for (int ax = 0; ax < s->nd; ax++) w[n++] = (uint64_t)s->ostr[ax];
    for (uint32_t j = 0; j < s->n_nodes; j++) {
        const ir_node_t *nd = node(s, j);
        if (nd->op == IR_OP_INPUT) {
            const ir_input_t *in = &s->g->inputs[nd->input];
            w[n++] =
                input_addr[nd->input] + (uint64_t)(in->offset * (int64_t)ir_dtypes[nd->dtype].size);
            for (int ax = 0; ax < s->nd; ax++) w[n++] = (uint64_t)s->strides[j][ax];
        } else if (nd->op == IR_OP_CONST) {
            w[n++] = nd->p.bits;
        }
    }
    w[n++] = out_addr;
}

void cg_scan_launch_shape(const cg_scan_t *s, int sm_count, uint32_t grid[3], uint32_t block[3],
                          uint32_t *smem) {
    (void)sm_count;
    int b = s->tile ? TILE_BLOCK : SCAN_BLOCK;
    int64_t blocks = (s->lines + b - 1) / b;
    const int64_t cap = INT64_C(1) << 30; /* the kernel loops over further lines */
    grid[0] = (uint32_t)(blocks < 1 ? 1 : blocks > cap ? cap : blocks);
    grid[1] = grid[2] = 1;
    block[0] = (uint32_t)b;
    block[1] = block[2] = 1;
    *smem = 0;
}

static const char *ty(const ir_node_t *n) { return ir_dtypes[n->dtype].ctype; }
static const char *sfx(loom_dtype_t d) { return ir_dtypes[d].sfx; }

/* Coordinates of line `l` over the unscanned axes, the output's line offset ko and each
 * input's line offset k<j>. */
static void emit_line_offsets(const cg_scan_t *s, base_str_t *o, const char *ind, const char *l) {
    base_str_printf(o, "%sLM_I q = %s;\n", ind, l);
    for (int ax = s->nd - 1; ax >= 0; ax--) {
        if (ax == s->axis) continue;
        base_str_printf(o, "%sconst LM_I c%d = q %% e%d; q /= e%d;\n", ind, ax, ax, ax);
    }
    base_str_printf(o, "%s(void)q;\n%sconst LM_I ko = 0", ind, ind);
    for (int ax = 0; ax < s->nd; ax++)
        if (ax != s->axis) base_str_printf(o, " + c%d * os%d", ax, ax);
    base_str_cat(o, ";\n");
    for (uint32_t j = 0; j < s->n_nodes; j++) {
        if (node(s, j)->op != IR_OP_INPUT) continue;
        base_str_printf(o, "%sconst LM_I k%u = 0", ind, j);
        for (int ax = 0; ax < s->nd; ax++)
            if (ax != s->axis) base_str_printf(o, " + c%d * t%u_%d", ax, j, ax);
        base_str_cat(o, ";\n");
    }
}

/* The prologue for element i of the line whose input offsets are <k><j>, ending in x (the
 * scan's operand in the result dtype). */
static void emit_prologue(const cg_scan_t *s, base_str_t *o, const char *ind, const char *k) {
    const ir_node_t *sn = node(s, s->n_nodes - 1);
    uint32_t last = s->n_nodes - 1, src = pos(s, sn->src[0]);
    loom_dtype_t d = (loom_dtype_t)sn->dtype, sd = (loom_dtype_t)node(s, src)->dtype;
    for (uint32_t j = 0; j < last; j++) {
        const ir_node_t *n = node(s, j);
        if (n->op == IR_OP_CONST) continue;
        base_str_printf(o, "%sconst %s v%u = ", ind, ty(n), j);
        if (n->op == IR_OP_INPUT)
            base_str_printf(o, "in%u[%s%u + i * t%u_%d]", j, k, j, j, s->axis);
        else
            cg__emit_elem(o, s->g, n, pos(s, n->src[0]), pos(s, n->src[1]), pos(s, n->src[2]));
        base_str_cat(o, ";\n");
    }
    if (sd == d)
        base_str_printf(o, "%sconst %s x = v%u;\n", ind, ty(sn), src);
    else
        base_str_printf(o, "%sconst %s x = lm_cast_%s_%s(v%u);\n", ind, ty(sn), sfx(sd), sfx(d),
                        src);
}

/* The accumulator's declaration (its start value is never read: element 0 replaces it). */
static void emit_acc(const ir_node_t *sn, base_str_t *o, const char *ind) {
    loom_dtype_t d = (loom_dtype_t)sn->dtype;
    if (ir_is_complex(d))
        base_str_printf(o, "%s%s acc = lm__mk_%s(0, 0);\n", ind, ty(sn), sfx(d));
    else
        base_str_printf(o, "%s%s acc = (%s)0;\n", ind, ty(sn), ty(sn));
}

static const char *scan_fn(const cg_scan_t *s) {
    return node(s, s->n_nodes - 1)->op == IR_OP_CUMSUM ? "add" : "multiply";
}

/* One thread per line. */
static void emit_lines(const cg_scan_t *s, base_str_t *o) {
    const ir_node_t *sn = node(s, s->n_nodes - 1);
    loom_dtype_t d = (loom_dtype_t)sn->dtype;
    base_str_cat(o, "    const LM_I step = (LM_I)gridDim.x * (LM_I)blockDim.x;\n");
    base_str_cat(o, "    for (LM_I l = (LM_I)blockIdx.x * (LM_I)blockDim.x + (LM_I)threadIdx.x; "
                    "l < lines; l += step) {\n");
    emit_line_offsets(s, o, "        ", "l");
    emit_acc(sn, o, "        ");
    base_str_cat(o, "        for (LM_I i = 0; i < len; i++) {\n");
    emit_prologue(s, o, "            ", "k");
    base_str_printf(o, "            acc = i == 0 ? x : lm_%s_%s(acc, x);\n", scan_fn(s), sfx(d));
    base_str_printf(o, "            out[ko + i * os%d] = acc;\n", s->axis);
    base_str_cat(o, "        }\n    }\n");
}

/* A warp per 32 lines, through a 32 x 33 tile per warp: for each chunk of 32 elements the
 * warp loads the chunk of every line (lane = element), each lane scans its own line's row of
 * the tile in order, and the warp stores the tile as it loaded it. */
static void emit_tiled(const cg_scan_t *s, base_str_t *o) {
    const ir_node_t *sn = node(s, s->n_nodes - 1);
    loom_dtype_t d = (loom_dtype_t)sn->dtype;
    const char *T = ty(sn);
    int warps = TILE_BLOCK / 32;
    base_str_printf(o, "    __shared__ %s tile[%d][32][33];\n", T, warps);
    base_str_cat(o, "    const int lane = threadIdx.x & 31, wp = threadIdx.x >> 5;\n");
    base_str_printf(o, "    const LM_I step = (LM_I)gridDim.x * %d;\n", TILE_BLOCK);
    base_str_printf(o,
                    "    for (LM_I lb = ((LM_I)blockIdx.x * %d + wp) * 32; lb < lines; lb += "
                    "step) {\n",
                    warps);
    /* lanes past the last line take it again (unstored), so that shuffles stay whole */
    base_str_cat(o, "        const LM_I l = lb + lane < lines ? lb + lane : lines - 1;\n");
    emit_line_offsets(s, o, "        ", "l");
    base_str_cat(o, "        const int nl = lines - lb < 32 ? (int)(lines - lb) : 32;\n");
    emit_acc(sn, o, "        ");
    base_str_cat(o, "        for (LM_I cb = 0; cb < len; cb += 32) {\n");
    base_str_cat(o, "            const LM_I i = cb + lane;\n");
    base_str_cat(o, "            for (int y = 0; y < 32; y++) {\n");
    for (uint32_t j = 0; j < s->n_nodes; j++)
        if (node(s, j)->op == IR_OP_INPUT)
            base_str_printf(
                o, "                const LM_I ky%u = __shfl_sync(0xffffffffu, k%u, y);\n", j, j);
    base_str_cat(o, "                if (y < nl && i < len) {\n");
    emit_prologue(s, o, "                    ", "ky");
    base_str_cat(o,
                 "                    tile[wp][y][lane] = x;\n                }\n            }\n");
    base_str_cat(o, "            __syncwarp();\n");
    base_str_cat(o, "            const int nc = len - cb < 32 ? (int)(len - cb) : 32;\n");
    base_str_cat(o, "            for (int j = 0; j < nc; j++) {\n");
    base_str_printf(o, "                const %s x = tile[wp][lane][j];\n", T);
    base_str_printf(o, "                acc = cb + j == 0 ? x : lm_%s_%s(acc, x);\n", scan_fn(s),
                    sfx(d));
    base_str_cat(o, "                tile[wp][lane][j] = acc;\n            }\n");
    base_str_cat(o, "            __syncwarp();\n");
    base_str_cat(o, "            for (int y = 0; y < nl; y++) {\n");
    base_str_cat(o, "                const LM_I koy = __shfl_sync(0xffffffffu, ko, y);\n");
    base_str_printf(o, "                if (i < len) out[koy + i * os%d] = tile[wp][y][lane];\n",
                    s->axis);
    base_str_cat(o, "            }\n            __syncwarp();\n        }\n    }\n");
}

void cg_scan_source(const cg_scan_t *s, base_str_t *out, char *name) {
    base_hash128_t key = cg_scan_key(s);
    snprintf(name, 40, "loom_sc_%016llx", (unsigned long long)key.lo);
    base_str_t body;
    base_str_init(&body, out->al);
    base_str_t *o = &body;
    cg__emit_kernel_open(o, name, s->idx64, cg_scan_n_params(s));
    base_str_printf(o,
                    "extern \"C\" __global__ void __launch_bounds__(%d) %s(const lm_params_%s P) "
                    "{\n",
                    s->tile ? TILE_BLOCK : SCAN_BLOCK, name, name);
    uint32_t w = 2;
    base_str_cat(o, "    const LM_I lines = (LM_I)P.w[0];\n    const LM_I len = (LM_I)P.w[1];\n");
    for (int ax = 0; ax < s->nd; ax++)
        base_str_printf(o, "    const LM_I e%d = (LM_I)P.w[%u];\n    (void)e%d;\n", ax, w++, ax);
    for (int ax = 0; ax < s->nd; ax++)
        base_str_printf(o, "    const LM_I os%d = (LM_I)P.w[%u];\n", ax, w++);
    for (uint32_t j = 0; j < s->n_nodes; j++) {
        const ir_node_t *n = node(s, j);
        if (n->op == IR_OP_INPUT) {
            base_str_printf(o, "    const %s *__restrict__ in%u = (const %s *)P.w[%u];\n", ty(n), j,
                            ty(n), w++);
            for (int ax = 0; ax < s->nd; ax++)
                base_str_printf(o, "    const LM_I t%u_%d = (LM_I)(lm_i64)P.w[%u];\n", j, ax, w++);
        } else if (n->op == IR_OP_CONST) {
            base_str_printf(o, "    const %s v%u = lm_word_%s(P.w[%u]);\n", ty(n), j,
                            sfx((loom_dtype_t)n->dtype), w++);
        }
    }
    const ir_node_t *sn = node(s, s->n_nodes - 1);
    base_str_printf(o, "    %s *__restrict__ out = (%s *)P.w[%u];\n", ty(sn), ty(sn), w++);
    if (s->tile)
        emit_tiled(s, o);
    else
        emit_lines(s, o);
    base_str_cat(o, "}\n");
    cg__emit_finish(out, &body);
}
