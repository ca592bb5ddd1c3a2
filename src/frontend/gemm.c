/* gemm.c — the CUDA device's matrix-product step: which elementwise epilogue a MATMUL absorbs
 * (fe_gemm_epilogue, pure IR matching), and running one step graph (fe_gemm_run):
 *
 *   step graph ──► plan (ir_matmul_plan: batch axes, outer contracted axes, m x k by k x n)
 *     float16/bfloat16/float32/float64, k > 0 ──► operand layouts as cuBLAS op flags and
 *         leading dimensions (a layout neither of whose last two axes is unit-stride is
 *         gathered into a contiguous temporary first) ──► batch axes collapsed into one
 *         strided batch where the strides allow, else one call per outer batch index
 *         ──► one cublasLtMatmul with alpha = the scales, the bias and relu/gelu epilogue
 *     ints, bool, k == 0, or no cuBLASLt algorithm ──► one generated tiled kernel that reads
 *         any strides, accumulates as the CPU reference does (ints wrap in uint64, bool is
 *         or-of-ands, 16-bit floats in float32) and applies the epilogue nodes exactly as
 *         the unfused graph would (the prelude's op functions, in the node's dtype)
 *
 * Row-major results: cuBLAS is column-major, so C = A B is computed as C^T = B^T A^T. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../codegen/emit.h"
#include "fe.h"

/* ---- Epilogue matching (no CUDA needed) ---- */

enum { ACT_NONE, ACT_RELU, ACT_GELU }; /* rt_gemm_act_t's values */

typedef struct epi {
    uint32_t last;       /* the last absorbed node (mm when none) */
    uint32_t bias;       /* the bias operand, or UINT32_MAX */
    double pre, post;    /* scales before and after the bias (1 when absent) */
    uint32_t post_const; /* the CONST of the scale after the bias, or UINT32_MAX */
    int act;
    uint32_t nodes[FE_GEMM_MAX_EPILOGUE]; /* absorbed nodes, in match order */
    uint32_t n_nodes;
} epi_t;

static bool same_as(const ir_node_t *n, const ir_node_t *mm) {
    return n->dtype == mm->dtype && n->ndim == mm->ndim &&
           !memcmp(n->shape, mm->shape, sizeof(int64_t) * mm->ndim);
}

/* The one node reading i (i has one use, and it is not a graph output), or UINT32_MAX. */
static uint32_t only_user(const ir_graph_t *g, uint32_t i, const uint32_t *n_users) {
    if (n_users[i] != 1) return UINT32_MAX;
    for (uint32_t j = i + 1; j < g->n_nodes; j++) {
        const ir_node_t *n = &g->nodes[j];
        for (int s = 0; s < ir_ops[n->op].arity; s++)
            if (n->src[s] == i) return j;
    }
    return UINT32_MAX;
}

/* Whether node i is a CONST whose value is v (as v rounds to the CONST's dtype). */
static bool is_const(const ir_graph_t *g, uint32_t i, double v) {
    const ir_node_t *n = &g->nodes[i];
    if (n->op != IR_OP_CONST || !ir_is_float((loom_dtype_t)n->dtype)) return false;
    double x = ir_bits_to_double((loom_dtype_t)n->dtype, n->p.bits);
    double want = ir_bits_to_double((loom_dtype_t)n->dtype,
                                    ir_bits_from_double((loom_dtype_t)n->dtype, v));
    return fabs(x - want) <= 1e-6 * fabs(want); /* sqrt(2/pi) spelt with fewer digits */
}

/* Node i is op (shaped like mm) with x as one operand; *other = the other operand. */
static bool with_operand(const ir_graph_t *g, uint32_t i, ir_op_t op, uint32_t x,
                         const ir_node_t *mm, uint32_t *other) {
    const ir_node_t *n = &g->nodes[i];
    if (n->op != op || !same_as(n, mm)) return false;
    if (n->src[0] == x) *other = n->src[1];
    else if (n->src[1] == x) *other = n->src[0];
    else return false;
    return true;
}

/* Node i is op (shaped like mm) of a CONST equal to v and another operand *other. */
static bool with_const(const ir_graph_t *g, uint32_t i, ir_op_t op, double v, const ir_node_t *mm,
                       uint32_t *other) {
    const ir_node_t *n = &g->nodes[i];
    if (n->op != op || !same_as(n, mm)) return false;
    for (int s = 0; s < 2; s++)
        if (is_const(g, n->src[s], v) && g->nodes[n->src[1 - s]].op != IR_OP_CONST) {
            *other = n->src[1 - s];
            return true;
        }
    return false;
}

/* The scale of node i = MULTIPLY(x, CONST) (either order), shaped like mm. */
static bool scale_of(const ir_graph_t *g, uint32_t i, uint32_t x, const ir_node_t *mm,
                     double *s) {
    uint32_t c;
    if (!with_operand(g, i, IR_OP_MULTIPLY, x, mm, &c) || g->nodes[c].op != IR_OP_CONST ||
        g->nodes[c].dtype != mm->dtype)
        return false;
    *s = ir_bits_to_double((loom_dtype_t)mm->dtype, g->nodes[c].p.bits);
    return true;
}

/* Whether node b can be the bias of a result shaped like mm: not CONST, mm's dtype, extent N
 * on its last axis and 1 on every other (so it broadcasts along the last axis only). */
static bool bias_like(const ir_graph_t *g, uint32_t b, const ir_node_t *mm) {
    const ir_node_t *n = &g->nodes[b];
    if (n->op == IR_OP_CONST || n->dtype != mm->dtype || n->ndim < 1 || n->ndim > mm->ndim ||
        n->shape[n->ndim - 1] != mm->shape[mm->ndim - 1])
        return false;
    for (int ax = 0; ax + 1 < n->ndim; ax++)
        if (n->shape[ax] != 1) return false;
    return true;
}

/* The tanh-form gelu of x ending at node gi (see fe.h for the exact pattern); adds its nodes
 * to e on success. */
static bool match_gelu(const ir_graph_t *g, uint32_t gi, uint32_t x, const uint32_t *nu,
                       const ir_node_t *mm, epi_t *e) {
    const ir_node_t *gn = &g->nodes[gi];
    if (gn->op != IR_OP_MULTIPLY || !same_as(gn, mm)) return false;
    uint32_t half = UINT32_MAX, q = UINT32_MAX, t, u, v, w, cube, sq = UINT32_MAX, other;
    for (int s = 0; s < 2 && half == UINT32_MAX; s++)
        if (with_const(g, gn->src[s], IR_OP_MULTIPLY, 0.5, mm, &other) && other == x) {
            half = gn->src[s];
            q = gn->src[1 - s];
        }
    if (half == UINT32_MAX || !with_const(g, q, IR_OP_ADD, 1.0, mm, &t)) return false;
    if (g->nodes[t].op != IR_OP_TANH || !same_as(&g->nodes[t], mm)) return false;
    u = g->nodes[t].src[0];
    if (!with_const(g, u, IR_OP_MULTIPLY, 0.7978845608028654, mm, &v)) return false;
    if (!with_operand(g, v, IR_OP_ADD, x, mm, &w)) return false;
    if (!with_const(g, w, IR_OP_MULTIPLY, 0.044715, mm, &cube)) return false;
    uint32_t x_refs = 2; /* x * 0.5 and x + ... */
    const ir_node_t *cn = &g->nodes[cube];
    if (cn->op == IR_OP_POWER && same_as(cn, mm) && cn->src[0] == x && is_const(g, cn->src[1], 3))
        x_refs += 1;
    else if (with_operand(g, cube, IR_OP_MULTIPLY, x, mm, &sq) && sq != x) {
        const ir_node_t *sn = &g->nodes[sq];
        if (!same_as(sn, mm)) return false;
        if (sn->op == IR_OP_SQUARE && sn->src[0] == x) x_refs += 2;
        else if (sn->op == IR_OP_MULTIPLY && sn->src[0] == x && sn->src[1] == x) x_refs += 3;
        else return false;
    } else
        return false;
    uint32_t inner[8] = {half, q, t, u, v, w, cube, sq};
    uint32_t n_inner = sq == UINT32_MAX ? 7 : 8;
    for (uint32_t i = 0; i < n_inner; i++)
        if (nu[inner[i]] != 1) return false;
    if (nu[x] != x_refs) return false;
    if (e->n_nodes + n_inner + 1 > FE_GEMM_MAX_EPILOGUE) return false;
    for (uint32_t i = 0; i < n_inner; i++) e->nodes[e->n_nodes++] = inner[i];
    e->nodes[e->n_nodes++] = gi;
    return true;
}

static uint32_t match(const ir_graph_t *g, uint32_t mm, const uint32_t *nu, epi_t *e) {
    memset(e, 0, sizeof *e);
    e->last = mm;
    e->bias = e->post_const = UINT32_MAX;
    e->pre = e->post = 1;
    const ir_node_t *m = &g->nodes[mm];
    if (m->op != IR_OP_MATMUL) return mm;
    const ir_node_t *b = &g->nodes[m->src[1]];
    if ((m->dtype != LOOM_DTYPE_F16 && m->dtype != LOOM_DTYPE_BF16 &&
         m->dtype != LOOM_DTYPE_F32) ||
        (m->p.k != IR_MATMUL_MATMUL && m->p.k != IR_MATMUL_DOT) || m->ndim < 2 || b->ndim < 2)
        return mm;
    uint32_t cur = mm, u, other;
    double s;
    if ((u = only_user(g, cur, nu)) != UINT32_MAX && scale_of(g, u, cur, m, &s)) {
        e->pre = s;
        e->nodes[e->n_nodes++] = cur = u;
    }
    if ((u = only_user(g, cur, nu)) != UINT32_MAX && with_operand(g, u, IR_OP_ADD, cur, m, &other) &&
        bias_like(g, other, m)) {
        e->bias = other;
        e->nodes[e->n_nodes++] = cur = u;
        if ((u = only_user(g, cur, nu)) != UINT32_MAX && scale_of(g, u, cur, m, &s)) {
            e->post = s;
            e->post_const = g->nodes[u].src[g->nodes[u].src[0] == cur ? 1 : 0];
            e->nodes[e->n_nodes++] = cur = u;
        }
    }
    if ((u = only_user(g, cur, nu)) != UINT32_MAX && with_operand(g, u, IR_OP_MAXIMUM, cur, m, &other) &&
        is_const(g, other, 0.0)) {
        e->act = ACT_RELU;
        e->nodes[e->n_nodes++] = cur = u;
    } else if (nu[cur] >= 3) { /* gelu reads x three to five times */
        for (uint32_t j = cur + 1; j < g->n_nodes; j++)
            if (match_gelu(g, j, cur, nu, m, e)) {
                e->act = ACT_GELU;
                cur = j;
                break;
            }
    }
    e->last = cur;
    return cur;
}

uint32_t fe_gemm_epilogue(const ir_graph_t *g, uint32_t mm, const uint32_t *n_users) {
    epi_t e;
    return match(g, mm, n_users, &e);
}

uint32_t fe_gemm_epilogue_nodes(const ir_graph_t *g, uint32_t mm, const uint32_t *n_users,
                                uint32_t *nodes) {
    epi_t e;
    match(g, mm, n_users, &e);
    for (uint32_t i = 0; i < e.n_nodes; i++) { /* increasing index: operands first */
        uint32_t v = e.nodes[i], j = i;
        for (; j > 0 && nodes[j - 1] > v; j--) nodes[j] = nodes[j - 1];
        nodes[j] = v;
    }
    return e.n_nodes;
}

/* ---- Operand layouts for cuBLAS (no CUDA needed) ---- */

/* Column-major form of a rows x cols matrix whose element (i, j) is at i*sr + j*sc: plain
 * (unit row stride) or transposed (unit column stride), with its leading dimension. */
static bool col_form(int64_t rows, int64_t cols, int64_t sr, int64_t sc, bool *trans,
                     int64_t *ld) {
    if ((sr == 1 || rows == 1) && (cols == 1 || sc >= rows)) {
        *trans = false;
        *ld = cols == 1 ? rows : sc;
        return true;
    }
    if ((sc == 1 || cols == 1) && (rows == 1 || sr >= cols)) {
        *trans = true;
        *ld = rows == 1 ? cols : sr;
        return true;
    }
    return false;
}

/* Whether axes lo..hi-1 of (extents, strides) fold into one axis of the innermost stride. */
static bool folds(const int64_t *n, const int64_t *s, int lo, int hi) {
    for (int i = lo; i + 1 < hi; i++)
        if (s[i] != n[i + 1] * s[i + 1]) return false;
    return true;
}

/* The outer contracted axes folded into k, where both operands allow. */
static bool fold_kout(ir_matmul_plan_t *p) {
    if (!p->n_kout) return true;
    int64_t n[LOOM_MAX_DIMS + 1], sa[LOOM_MAX_DIMS + 1], sb[LOOM_MAX_DIMS + 1];
    int c = p->n_kout;
    for (int i = 0; i < c; i++) n[i] = p->kout[i].n, sa[i] = p->kout[i].sa, sb[i] = p->kout[i].sb;
    n[c] = p->k, sa[c] = p->sak, sb[c] = p->sbk;
    if (!folds(n, sa, 0, c + 1) || !folds(n, sb, 0, c + 1)) return false;
    for (int i = 0; i < c; i++) p->k *= n[i];
    p->n_kout = 0;
    return true;
}

/* The plan as cuBLAS column-major calls (see fe.h). cuBLAS computes C^T = B^T A^T: its A is
 * our b (n x k, element (i, j) at i*sbn + j*sbk), its B our a^T (k x m), its D our result^T
 * (n x m: unit row stride, the result's row stride scm as leading dimension). */
bool fe_gemm_layout(ir_matmul_plan_t *p, fe_gemm_layout_t *l) {
    memset(l, 0, sizeof *l);
    if (!fold_kout(p)) { /* gathered operands are C-ordered: their outer k axes fold */
        l->gather_a = l->gather_b = true;
        return false;
    }
    l->gather_a = !col_form(p->k, p->m, p->sak, p->sam, &l->trans_b, &l->ldb);
    l->gather_b = !col_form(p->n, p->k, p->sbn, p->sbk, &l->trans_a, &l->lda);
    if (l->gather_a || l->gather_b) return false;
    /* The result is C-ordered (ir_matmul_plan), so its last axis is unit-stride; its rows are
     * scm apart, which is not n when b's batch axes sit between m and n (np.dot, tensordot). */
    if (p->n > 1 && p->scn != 1) return false;
    l->m = p->n, l->n = p->m, l->k = p->k;
    l->ldd = p->m > 1 ? p->scm : p->n;
    if (l->ldd < l->m) return false;
    /* Batch axes: the longest suffix that folds into one strided batch whose results do not
     * interleave (cuBLASLt's batches are whole matrices); loop over the rest. */
    int nb = 0;
    int64_t bn[2 * LOOM_MAX_DIMS], bsa[2 * LOOM_MAX_DIMS], bsb[2 * LOOM_MAX_DIMS],
        bsc[2 * LOOM_MAX_DIMS];
    for (int i = 0; i < p->n_batch; i++)
        if (p->batch[i].n != 1) {
            bn[nb] = p->batch[i].n, bsa[nb] = p->batch[i].sa;
            bsb[nb] = p->batch[i].sb, bsc[nb] = p->batch[i].sc;
            nb++;
        }
    int lo = nb;
    int64_t count = 1;
    bool apart = nb > 0 && bsc[nb - 1] >= l->ldd * (l->n - 1) + l->m;
    while (apart && lo > 0 && folds(bn, bsa, lo - 1, nb) && folds(bn, bsb, lo - 1, nb) &&
           folds(bn, bsc, lo - 1, nb) && count * bn[lo - 1] <= INT32_MAX)
        count *= bn[--lo];
    l->batch = count;
    l->stride_a = lo < nb ? bsb[nb - 1] : 0;
    l->stride_b = lo < nb ? bsa[nb - 1] : 0;
    l->stride_d = lo < nb ? bsc[nb - 1] : 0;
    l->n_loop = lo;
    for (int i = 0; i < lo; i++) {
        l->loop[i].n = bn[i], l->loop[i].sa = bsa[i];
        l->loop[i].sb = bsb[i], l->loop[i].sc = bsc[i];
    }
    return true;
}

#if LOOM_HAVE_CUDA

/* ---- Per-ctx state ---- */

struct fe_gemm {
    rt_blas_t *blas;
};

void fe_gemm_destroy(loom_ctx_t *ctx) {
    if (!ctx || !ctx->gemm) return;
    if (ctx->gemm->blas) rt_blas_destroy(ctx->rt, ctx->gemm->blas);
    base_free(&ctx->al, ctx->gemm);
    ctx->gemm = NULL;
}

static rt_blas_t *blas_of(loom_ctx_t *ctx) {
    if (!ctx->gemm) {
        ctx->gemm = base_calloc(&ctx->al, 1, sizeof *ctx->gemm);
        if (!ctx->gemm) {
            fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "matmul: out of memory");
            return NULL;
        }
    }
    if (!ctx->gemm->blas) rt_blas_create(ctx->rt, &ctx->gemm->blas);
    return ctx->gemm->blas;
}

/* ---- Generated kernels: source assembly ---- */

/* The prelude functions body calls (with what they call), then body. */
static void with_prelude(const char *body, base_str_t *o, base_alloc_t *al) {
    cg__emit_prelude(body, o, al);
    base_str_cat(o, body);
}

/* Finds the kernel of key, generating its source with gen(arg) on a miss. */
static rt_kernel_t *get_kernel(loom_ctx_t *ctx, base_hash128_t key, const char *prefix,
                               void (*gen)(const void *arg, base_str_t *body), const void *arg) {
    rt_kernel_t *k = rt_kernel_find(ctx->rt, key);
    if (k) return k;
    char name[48];
    snprintf(name, sizeof name, "%s_%016llx", prefix, (unsigned long long)key.lo);
    base_str_t body, src;
    base_str_init(&body, &ctx->al);
    base_str_init(&src, &ctx->al);
    base_str_printf(&body, "#define KNAME %s\n", name);
    gen(arg, &body);
    if (!body.failed) with_prelude(base_str_get(&body), &src, &ctx->al);
    if (body.failed || src.failed)
        fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "matmul: out of memory generating %s", name);
    else
        rt_kernel_build(ctx->rt, key, name, base_str_get(&src), &k);
    base_str_fini(&body);
    base_str_fini(&src);
    return ctx->err.status ? NULL : k;
}

static base_hash128_t key_of(const void *words, size_t n) {
    return (base_hash128_t){base_hash64(words, n, 0x6c6f6f6d67656d6dull),
                            base_hash64(words, n, 0x6b65797332303234ull)};
}

/* The bits of a CONST as an expression of the dtype's storage type. */
static void const_expr(base_str_t *o, loom_dtype_t d, const char *word) {
    if (d == LOOM_DTYPE_F32)
        base_str_printf(o, "__int_as_float((int)(unsigned)%s)", word);
    else if (d == LOOM_DTYPE_F64)
        base_str_printf(o, "__longlong_as_double((long long)%s)", word);
    else
        base_str_printf(o, "((%s)%s)", ir_dtypes[d].ctype, word);
}

/* ---- The gather kernel: a strided view (optionally times a scalar) into C order ---- */

typedef struct gather_params {
    int64_t size, ndim;
    int64_t shape[LOOM_MAX_DIMS], strides[LOOM_MAX_DIMS];
    uint64_t src, dst, scale;
} gather_params_t;

typedef struct gather_sig {
    uint32_t kind; /* 'g' */
    uint32_t dtype;
    uint32_t scaled;
} gather_sig_t;

static void gen_gather(const void *arg, base_str_t *o) {
    const gather_sig_t *s = arg;
    loom_dtype_t d = (loom_dtype_t)s->dtype;
    const char *t = ir_dtypes[d].ctype;
    base_str_printf(o,
                    "struct P { long long size, ndim, shape[%d], strides[%d];\n"
                    "  unsigned long long src, dst, scale; };\n"
                    "extern \"C\" __global__ void KNAME(const P p) {\n"
                    "  const %s *x = (const %s *)p.src; %s *y = (%s *)p.dst;\n"
                    "  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
                    "       i < p.size; i += (long long)gridDim.x * blockDim.x) {\n"
                    "    long long r = i, off = 0;\n"
                    "    for (int ax = (int)p.ndim - 1; ax >= 0; ax--) {\n"
                    "      off += (r %% p.shape[ax]) * p.strides[ax]; r /= p.shape[ax]; }\n",
                    LOOM_MAX_DIMS, LOOM_MAX_DIMS, t, t, t, t);
    if (s->scaled) {
        base_str_printf(o, "    y[i] = lm_multiply_%s(x[off], ", ir_dtypes[d].sfx);
        const_expr(o, d, "p.scale");
        base_str_cat(o, ");\n");
    } else {
        base_str_cat(o, "    y[i] = x[off];\n");
    }
    base_str_cat(o, "  }\n}\n");
}

/* Launches a 1-D grid-stride kernel over size elements. */
static void launch_flat(loom_ctx_t *ctx, rt_kernel_t *k, int64_t size, void *params) {
    int64_t blocks = (size + 255) / 256, cap = (int64_t)rt_device_sm_count(ctx->rt) * 8;
    if (cap < 1) cap = 1024;
    uint32_t grid = (uint32_t)(blocks < cap ? blocks : cap);
    void *pp[1] = {params};
    rt_launch(ctx->rt, k, grid ? grid : 1, 256, pp);
}

/* Copies the view (ndim, shape, strides in elements, address of element 0) into a new
 * C-contiguous pool buffer *out, multiplied by the CONST bits `scale` when scaled. On the
 * compile-only device, compiles the kernel and sets *out = 0. */
static bool gather(loom_ctx_t *ctx, loom_dtype_t d, int ndim, const int64_t *shape,
                   const int64_t *strides, uint64_t src, bool scaled, uint64_t scale,
                   uint64_t *out) {
    *out = 0;
    gather_sig_t sig = {'g', d, scaled};
    rt_kernel_t *k = get_kernel(ctx, key_of(&sig, sizeof sig), "loom_gather", gen_gather, &sig);
    if (!k || ctx->device != LOOM_DEVICE_CUDA) return k != NULL;
    gather_params_t p = {0};
    p.size = 1;
    p.ndim = ndim;
    for (int ax = 0; ax < ndim; ax++) {
        p.shape[ax] = shape[ax];
        p.strides[ax] = strides[ax];
        p.size *= shape[ax];
    }
    p.src = src;
    p.scale = scale;
    size_t bytes = (size_t)p.size * ir_dtypes[d].size;
    if (rt_alloc(ctx->rt, bytes ? bytes : 1, out) != LOOM_STATUS_OK) return false;
    p.dst = *out;
    if (p.size) launch_flat(ctx, k, p.size, &p);
    return !ctx->err.status;
}

/* ---- The generic GEMM kernel ---- */

#define EPI_MAX_IN    4
#define EPI_MAX_CONST 16

typedef struct gemm_params {
    int64_t m, n, k, sam, sak, sbk, sbn, scm, scn;
    int64_t nb, nbt;
    int64_t be[2 * LOOM_MAX_DIMS], ba[2 * LOOM_MAX_DIMS], bb[2 * LOOM_MAX_DIMS],
        bc[2 * LOOM_MAX_DIMS];
    int64_t nk, nkt;
    int64_t ke[LOOM_MAX_DIMS], ka[LOOM_MAX_DIMS], kb[LOOM_MAX_DIMS];
    uint64_t a, b, c;
    uint64_t ein[EPI_MAX_IN];
    int64_t estr[EPI_MAX_IN];
    uint64_t cst[EPI_MAX_CONST];
} gemm_params_t;

/* The kernel's structure: dtype, and the epilogue's nodes (op and each operand's kind: the
 * product, an earlier epilogue node, a constant slot or an input slot). */
typedef struct gemm_sig {
    uint32_t kind; /* 'm' */
    uint32_t dtype;
    uint32_t n_epi;
    struct {
        uint32_t op, dtype;
        uint32_t src[2]; /* 0: the product; 1 + j: epilogue node j; 0x100 + c: constant c;
                          * 0x200 + i: input i */
    } epi[FE_GEMM_MAX_EPILOGUE];
} gemm_sig_t;

static void operand_expr(base_str_t *o, const gemm_sig_t *s, uint32_t ref) {
    if (ref == 0) {
        base_str_cat(o, "v0");
    } else if (ref < 0x100) {
        base_str_printf(o, "v%u", ref);
    } else if (ref < 0x200) {
        char w[32];
        snprintf(w, sizeof w, "p.cst[%u]", ref - 0x100);
        const_expr(o, (loom_dtype_t)s->dtype, w);
    } else {
        base_str_printf(o, "((const %s *)p.ein[%u])[j * p.estr[%u]]", ir_dtypes[s->dtype].ctype,
                        ref - 0x200, ref - 0x200);
    }
}

static void gen_gemm(const void *arg, base_str_t *o) {
    const gemm_sig_t *s = arg;
    loom_dtype_t d = (loom_dtype_t)s->dtype;
    const char *t = ir_dtypes[d].ctype, *acc, *ld, *st;
    switch (d) {
        case LOOM_DTYPE_F16: acc = "float", ld = "lm_cast_f16_f32", st = "lm_cast_f32_f16"; break;
        case LOOM_DTYPE_BF16: acc = "float", ld = "lm_cast_bf16_f32", st = "lm_cast_f32_bf16"; break;
        case LOOM_DTYPE_F32: acc = "float", ld = "", st = ""; break;
        case LOOM_DTYPE_F64: acc = "double", ld = "", st = ""; break;
        case LOOM_DTYPE_BOOL: acc = "unsigned long long", ld = "(unsigned long long)", st = "0 !="; break;
        default:
            acc = "unsigned long long";
            ld = ir_dtypes[d].kind == IR_DKIND_INT ? "(unsigned long long)(long long)"
                                                   : "(unsigned long long)";
            st = "";
    }
    base_str_printf(o,
        "#define TS 16\n"
        "struct P { long long m, n, k, sam, sak, sbk, sbn, scm, scn, nb, nbt;\n"
        "  long long be[%d], ba[%d], bb[%d], bc[%d], nk, nkt, ke[%d], ka[%d], kb[%d];\n"
        "  unsigned long long a, b, c, ein[%d]; long long estr[%d]; unsigned long long cst[%d]; };\n"
        "typedef %s A;\n"
        "extern \"C\" __global__ void __launch_bounds__(TS * TS) KNAME(const P p) {\n"
        "  __shared__ A as[TS][TS + 1], bs[TS][TS + 1];\n"
        "  const %s *a = (const %s *)p.a; const %s *b = (const %s *)p.b; %s *c = (%s *)p.c;\n"
        "  const int tx = threadIdx.x, ty = threadIdx.y;\n"
        "  const long long tm = (p.m + TS - 1) / TS, tn = (p.n + TS - 1) / TS;\n"
        "  for (long long z = blockIdx.z; z < p.nbt; z += gridDim.z) {\n"
        "    long long oa = 0, ob = 0, oc = 0, r = z;\n"
        "    for (int ax = (int)p.nb - 1; ax >= 0; ax--) {\n"
        "      const long long q = r %% p.be[ax]; r /= p.be[ax];\n"
        "      oa += q * p.ba[ax]; ob += q * p.bb[ax]; oc += q * p.bc[ax]; }\n"
        "    for (long long ti = blockIdx.y; ti < tm; ti += gridDim.y)\n"
        "    for (long long tj = blockIdx.x; tj < tn; tj += gridDim.x) {\n"
        "      const long long i = ti * TS + ty, j = tj * TS + tx;\n"
        "      A acc = 0;\n"
        "      for (long long ko = 0; ko < p.nkt; ko++) {\n"
        "        long long ka = oa, kb = ob, r2 = ko;\n"
        "        for (int ax = (int)p.nk - 1; ax >= 0; ax--) {\n"
        "          const long long q = r2 %% p.ke[ax]; r2 /= p.ke[ax];\n"
        "          ka += q * p.ka[ax]; kb += q * p.kb[ax]; }\n"
        "        for (long long p0 = 0; p0 < p.k; p0 += TS) {\n"
        "          as[ty][tx] = i < p.m && p0 + tx < p.k ? (A)%s(a[ka + i * p.sam + (p0 + tx) * p.sak]) : (A)0;\n"
        "          bs[ty][tx] = p0 + ty < p.k && j < p.n ? (A)%s(b[kb + (p0 + ty) * p.sbk + j * p.sbn]) : (A)0;\n"
        "          __syncthreads();\n"
        "          for (int q = 0; q < TS; q++) acc = acc + as[ty][q] * bs[q][tx];\n"
        "          __syncthreads();\n"
        "        }\n"
        "      }\n"
        "      if (i < p.m && j < p.n) {\n"
        "        const %s v0 = (%s)(%s(acc));\n",
        2 * LOOM_MAX_DIMS, 2 * LOOM_MAX_DIMS, 2 * LOOM_MAX_DIMS, 2 * LOOM_MAX_DIMS, LOOM_MAX_DIMS,
        LOOM_MAX_DIMS, LOOM_MAX_DIMS, EPI_MAX_IN, EPI_MAX_IN, EPI_MAX_CONST, acc, t, t, t, t, t, t,
        ld, ld, t, t, st);
    for (uint32_t e = 0; e < s->n_epi; e++) {
        loom_dtype_t ed = (loom_dtype_t)s->epi[e].dtype;
        int arity = ir_ops[s->epi[e].op].arity;
        base_str_printf(o, "        const %s v%u = lm_%s_%s(", ir_dtypes[ed].ctype, e + 1,
                        ir_ops[s->epi[e].op].name, ir_dtypes[ed].sfx);
        for (int k = 0; k < arity; k++) {
            if (k) base_str_cat(o, ", ");
            operand_expr(o, s, s->epi[e].src[k]);
        }
        base_str_cat(o, ");\n");
    }
    base_str_printf(o, "        c[oc + i * p.scm + j * p.scn] = v%u;\n      }\n    }\n  }\n}\n",
                    s->n_epi);
}

/* ---- The step ---- */

typedef struct view {
    const ir_node_t *node;
    uint64_t addr; /* element 0 (offset applied) */
    int64_t strides[LOOM_MAX_DIMS];
} view_t;

static view_t view_of(const ir_graph_t *sg, uint32_t i, const uint64_t *in_addr) {
    view_t v = {&sg->nodes[i], 0, {0}};
    const ir_input_t *in = &sg->inputs[sg->nodes[i].input];
    v.addr = in_addr[sg->nodes[i].input] +
             (uint64_t)(in->offset * (int64_t)ir_dtypes[v.node->dtype].size);
    memcpy(v.strides, in->strides, sizeof v.strides);
    return v;
}

/* Replaces v by a C-contiguous copy (temp receives the buffer to free). */
static bool make_contiguous(loom_ctx_t *ctx, view_t *v, uint64_t *temp) {
    if (!gather(ctx, (loom_dtype_t)v->node->dtype, v->node->ndim, v->node->shape, v->strides,
                v->addr, false, 0, temp))
        return false;
    v->addr = *temp;
    int64_t s = 1;
    for (int ax = v->node->ndim - 1; ax >= 0; ax--) {
        v->strides[ax] = s;
        s *= v->node->shape[ax] ? v->node->shape[ax] : 1;
    }
    return true;
}

/* Runs the step with the generic kernel (any dtype, any strides, the epilogue exactly). */
static loom_status_t run_generic(loom_ctx_t *ctx, const ir_graph_t *sg, uint32_t mm,
                                 const epi_t *e, const ir_matmul_plan_t *p, const view_t *a,
                                 const view_t *b, const uint64_t *in_addr, uint64_t out) {
    const ir_node_t *m = &sg->nodes[mm];
    gemm_sig_t sig;
    gemm_params_t gp;
    memset(&sig, 0, sizeof sig);
    memset(&gp, 0, sizeof gp);
    sig.kind = 'm';
    sig.dtype = m->dtype;
    uint32_t n_in = 0, n_cst = 0;
    uint32_t nodes[FE_GEMM_MAX_EPILOGUE];
    uint32_t n_nodes = 0;
    for (uint32_t i = 0; i < e->n_nodes; i++) { /* operands first */
        uint32_t v = e->nodes[i], j = n_nodes++;
        for (; j > 0 && nodes[j - 1] > v; j--) nodes[j] = nodes[j - 1];
        nodes[j] = v;
    }
    for (uint32_t q = 0; q < n_nodes; q++) {
        const ir_node_t *n = &sg->nodes[nodes[q]];
        sig.epi[q].op = n->op;
        sig.epi[q].dtype = n->dtype;
        for (int s = 0; s < ir_ops[n->op].arity && s < 2; s++) {
            uint32_t src = n->src[s], ref = UINT32_MAX;
            if (src == mm) ref = 0;
            for (uint32_t r = 0; r < q; r++)
                if (nodes[r] == src) ref = 1 + r;
            const ir_node_t *sn = &sg->nodes[src];
            if (ref == UINT32_MAX && sn->op == IR_OP_CONST && n_cst < EPI_MAX_CONST) {
                gp.cst[n_cst] = sn->p.bits;
                ref = 0x100 + n_cst++;
            } else if (ref == UINT32_MAX && sn->op == IR_OP_INPUT && n_in < EPI_MAX_IN) {
                view_t v = view_of(sg, src, in_addr);
                gp.ein[n_in] = v.addr;
                gp.estr[n_in] = v.strides[sn->ndim - 1];
                ref = 0x200 + n_in++;
            }
            if (ref == UINT32_MAX)
                return fe_error(ctx, LOOM_STATUS_INTERNAL,
                                "matmul: epilogue node %u of the step has an operand (node %u, "
                                "%s) the kernel cannot read",
                                nodes[q], src, ir_ops[sn->op].name);
            sig.epi[q].src[s] = ref;
        }
    }
    sig.n_epi = n_nodes;
    rt_kernel_t *k = get_kernel(ctx, key_of(&sig, sizeof sig), "loom_gemm", gen_gemm, &sig);
    if (!k || ctx->device != LOOM_DEVICE_CUDA) return ctx->err.status;
    gp.m = p->m, gp.n = p->n, gp.k = p->k;
    gp.sam = p->sam, gp.sak = p->sak, gp.sbk = p->sbk, gp.sbn = p->sbn;
    gp.scm = p->scm, gp.scn = p->scn;
    gp.nb = p->n_batch, gp.nbt = 1;
    for (int i = 0; i < p->n_batch; i++) {
        gp.be[i] = p->batch[i].n, gp.ba[i] = p->batch[i].sa;
        gp.bb[i] = p->batch[i].sb, gp.bc[i] = p->batch[i].sc;
        gp.nbt *= p->batch[i].n;
    }
    gp.nk = p->n_kout, gp.nkt = 1;
    for (int i = 0; i < p->n_kout; i++) {
        gp.ke[i] = p->kout[i].n, gp.ka[i] = p->kout[i].sa, gp.kb[i] = p->kout[i].sb;
        gp.nkt *= p->kout[i].n;
    }
    gp.a = a->addr, gp.b = b->addr, gp.c = out;
    int64_t tm = (p->m + 15) / 16, tn = (p->n + 15) / 16;
    uint32_t grid[3] = {(uint32_t)(tn < 65535 ? tn : 65535), (uint32_t)(tm < 65535 ? tm : 65535),
                        (uint32_t)(gp.nbt < 65535 ? gp.nbt : 65535)};
    uint32_t block[3] = {16, 16, 1};
    void *pp[1] = {&gp};
    return rt_launch_ex(ctx->rt, k, grid, block, 0, pp);
}

static loom_status_t run_blas(loom_ctx_t *ctx, const ir_graph_t *sg, uint32_t mm, const epi_t *e,
                              ir_matmul_plan_t *p, view_t *a, view_t *b, const uint64_t *in_addr,
                              uint64_t out, uint64_t *temps, int *n_temps) {
    const ir_node_t *m = &sg->nodes[mm];
    loom_dtype_t d = (loom_dtype_t)m->dtype;
    fe_gemm_layout_t l;
    /* Operands cuBLAS cannot take as they are are gathered into C order and re-planned. */
    for (int round = 0; round < 2; round++) {
        if (fe_gemm_layout(p, &l)) break;
        if (!l.gather_a && !l.gather_b) /* the result's layout: never, as plans go */
            return run_generic(ctx, sg, mm, e, p, a, b, in_addr, out);
        if (round == 1)
            return fe_error(ctx, LOOM_STATUS_INTERNAL, "matmul: contiguous operands not BLAS-able");
        if (l.gather_a && !make_contiguous(ctx, a, &temps[(*n_temps)++])) return ctx->err.status;
        if (l.gather_b && !make_contiguous(ctx, b, &temps[(*n_temps)++])) return ctx->err.status;
        if (ctx->device != LOOM_DEVICE_CUDA) return ctx->err.status;
        if (!ir_matmul_plan(m, a->node, a->strides, b->node, b->strides, p))
            return fe_error(ctx, LOOM_STATUS_INTERNAL, "matmul: operand shapes do not fit");
    }
    /* The bias: packed, and pre-multiplied by the scale that follows it. A contiguous bias
     * without that scale (the common case) is passed as it is: no copy on the hot path. */
    uint64_t bias = 0;
    if (e->bias != UINT32_MAX) {
        view_t bv = view_of(sg, e->bias, in_addr);
        int nd = bv.node->ndim;
        bool packed = bv.node->shape[nd - 1] == 1 || bv.strides[nd - 1] == 1;
        bool scaled = e->post_const != UINT32_MAX;
        if (!packed || scaled) {
            uint64_t bits = scaled ? sg->nodes[e->post_const].p.bits : 0;
            if (!gather(ctx, d, 1, &bv.node->shape[nd - 1], &bv.strides[nd - 1], bv.addr, scaled,
                        bits, &temps[(*n_temps)++]))
                return ctx->err.status;
            bv.addr = temps[*n_temps - 1];
        }
        bias = bv.addr;
    }
    if (ctx->device != LOOM_DEVICE_CUDA) return ctx->err.status;
    rt_blas_t *blas = blas_of(ctx);
    if (!blas) return ctx->err.status;
    size_t esz = ir_dtypes[d].size;
    rt_gemm_t g = {
        .dtype = d,
        .tf32 = ctx->allow_tf32,
        .a = b->addr,
        .b = a->addr,
        .d = out,
        .trans_a = l.trans_a,
        .trans_b = l.trans_b,
        .m = l.m,
        .n = l.n,
        .k = l.k,
        .lda = l.lda,
        .ldb = l.ldb,
        .ldd = l.ldd,
        .batch = l.batch,
        .stride_a = l.stride_a,
        .stride_b = l.stride_b,
        .stride_d = l.stride_d,
        .alpha = e->pre * e->post,
        .bias = bias,
        .act = (rt_gemm_act_t)e->act,
    };
    if (!rt_blas_supported(ctx->rt, blas, &g)) {
        base_log(&ctx->log, LOOM_LOG_INFO,
                 "matmul: cuBLASLt has no algorithm for this %s product; using the generated "
                 "kernel", ir_dtypes[d].name);
        return run_generic(ctx, sg, mm, e, p, a, b, in_addr, out);
    }
    int64_t idx[2 * LOOM_MAX_DIMS] = {0};
    for (;;) {
        int64_t oa = 0, ob = 0, oc = 0;
        for (int i = 0; i < l.n_loop; i++)
            oa += idx[i] * l.loop[i].sa, ob += idx[i] * l.loop[i].sb, oc += idx[i] * l.loop[i].sc;
        g.a = b->addr + (uint64_t)(ob * (int64_t)esz);
        g.b = a->addr + (uint64_t)(oa * (int64_t)esz);
        g.d = out + (uint64_t)(oc * (int64_t)esz);
        if (rt_blas_gemm(ctx->rt, blas, &g) != LOOM_STATUS_OK) return ctx->err.status;
        int i = l.n_loop - 1; /* odometer over the batch axes that did not fold */
        for (; i >= 0; i--) {
            if (++idx[i] < l.loop[i].n) break;
            idx[i] = 0;
        }
        if (i < 0) break;
    }
    return ctx->err.status;
}

loom_status_t fe_gemm_run(loom_ctx_t *ctx, const ir_graph_t *sg, const uint64_t *in_addr,
                          uint64_t out_addr) {
    uint32_t mm = UINT32_MAX;
    for (uint32_t i = 0; i < sg->n_nodes; i++)
        if (sg->nodes[i].op == IR_OP_MATMUL) mm = i;
    if (mm == UINT32_MAX || sg->n_outputs < 1)
        return fe_error(ctx, LOOM_STATUS_INTERNAL, "matmul: the step graph has no MATMUL node");
    const ir_node_t *m = &sg->nodes[mm];
    if (sg->nodes[m->src[0]].op != IR_OP_INPUT || sg->nodes[m->src[1]].op != IR_OP_INPUT)
        return fe_error(ctx, LOOM_STATUS_INTERNAL, "matmul: the step's operands are not inputs");
    uint32_t *nu = base_arena_alloc(sg->arena, sg->n_nodes, sizeof *nu);
    if (!nu) return fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "matmul: out of memory");
    memset(nu, 0, sg->n_nodes * sizeof *nu);
    for (uint32_t i = 0; i < sg->n_nodes; i++)
        for (int s = 0; s < ir_ops[sg->nodes[i].op].arity; s++) nu[sg->nodes[i].src[s]]++;
    for (uint32_t o = 0; o < sg->n_outputs; o++) nu[sg->outputs[o]]++;
    epi_t e;
    uint32_t last = match(sg, mm, nu, &e);
    if (sg->outputs[0] == mm) { /* the scheduler chose not to fuse */
        e.n_nodes = 0, e.bias = e.post_const = UINT32_MAX, e.pre = e.post = 1, e.act = ACT_NONE;
    } else if (last != sg->outputs[0]) {
        return fe_error(ctx, LOOM_STATUS_INTERNAL,
                        "matmul: the step's result (node %u) is not the end of an epilogue "
                        "fe_gemm_epilogue accepts (node %u)",
                        sg->outputs[0], last);
    }
    if (ir_node_size(&sg->nodes[sg->outputs[0]]) == 0) return LOOM_STATUS_OK;
    view_t a = view_of(sg, m->src[0], in_addr), b = view_of(sg, m->src[1], in_addr);
    ir_matmul_plan_t p;
    if (!ir_matmul_plan(m, a.node, a.strides, b.node, b.strides, &p))
        return fe_error(ctx, LOOM_STATUS_INTERNAL, "matmul: operand shapes do not fit the node");
    if (!ir_is_float((loom_dtype_t)m->dtype) || p.k == 0)
        return run_generic(ctx, sg, mm, &e, &p, &a, &b, in_addr, out_addr);
    uint64_t temps[4] = {0};
    int n_temps = 0;
    run_blas(ctx, sg, mm, &e, &p, &a, &b, in_addr, out_addr, temps, &n_temps);
    for (int i = 0; i < n_temps; i++) /* stream-ordered: the pool reuses them after the call */
        if (temps[i]) rt_free(ctx->rt, temps[i]);
    return ctx->err.status;
}

#endif
