/* matmul_plan.c — planning a matrix-product step, pure IR (no CUDA): which elementwise epilogue
 * a MATMUL absorbs (en_matmul_epilogue: bias, scales, relu or gelu, as cuBLASLt applies them),
 * and how a product's operands and batch axes map onto cuBLAS's column-major calls
 * (en_matmul_layout: C = A B computed as C^T = B^T A^T). matmul.c runs what these decide. */
#include <math.h>
#include <string.h>

#include "internal.h"

/* ---- Epilogue matching (no CUDA needed) ---- */

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

/* The tanh-form gelu of x ending at node gi (see internal.h for the exact pattern); adds its nodes
 * to e on success. */
static bool match_gelu(const ir_graph_t *g, uint32_t gi, uint32_t x, const uint32_t *nu,
                       const ir_node_t *mm, en_matmul_epi_t *e) {
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
    if (e->n_nodes + n_inner + 1 > CG_GEMM_MAX_EPILOGUE) return false;
    for (uint32_t i = 0; i < n_inner; i++) e->nodes[e->n_nodes++] = inner[i];
    e->nodes[e->n_nodes++] = gi;
    return true;
}

uint32_t en_matmul_match(const ir_graph_t *g, uint32_t mm, const uint32_t *nu, en_matmul_epi_t *e) {
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
        e->act = EN_ACT_RELU;
        e->nodes[e->n_nodes++] = cur = u;
    } else if (nu[cur] >= 3) { /* gelu reads x three to five times */
        for (uint32_t j = cur + 1; j < g->n_nodes; j++)
            if (match_gelu(g, j, cur, nu, m, e)) {
                e->act = EN_ACT_GELU;
                cur = j;
                break;
            }
    }
    e->last = cur;
    return cur;
}

uint32_t en_matmul_epilogue(const ir_graph_t *g, uint32_t mm, const uint32_t *n_users) {
    en_matmul_epi_t e;
    return en_matmul_match(g, mm, n_users, &e);
}

uint32_t en_matmul_epilogue_nodes(const ir_graph_t *g, uint32_t mm, const uint32_t *n_users,
                                uint32_t *nodes) {
    en_matmul_epi_t e;
    en_matmul_match(g, mm, n_users, &e);
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

/* The plan as cuBLAS column-major calls (see internal.h). cuBLAS computes C^T = B^T A^T: its A is
 * our b (n x k, element (i, j) at i*sbn + j*sbk), its B our a^T (k x m), its D our result^T
 * (n x m: unit row stride, the result's row stride scm as leading dimension). */
bool en_matmul_layout(ir_matmul_plan_t *p, en_matmul_layout_t *l) {
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
