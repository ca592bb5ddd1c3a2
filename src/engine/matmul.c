/* matmul.c — running a matrix-product step on the device's stream:
 *
 *   step graph ──► plan (ir_matmul_plan: batch axes, outer contracted axes, m x k by k x n)
 *     float16/bfloat16/float32/float64, k > 0 ──► operand layouts as cuBLAS op flags and
 *         leading dimensions (en_matmul_layout; a layout neither of whose last two axes is
 *         unit-stride is gathered into a contiguous temporary first) ──► batch axes collapsed
 *         into one strided batch where the strides allow, else one call per outer batch index
 *         ──► one cublasLtMatmul with alpha = the scales, the bias and relu/gelu epilogue
 *     ints, bool, k == 0, or no cuBLASLt algorithm ──► the generic kernel (codegen/gemm.c),
 *         epilogue nodes applied exactly as the unfused graph would
 *
 * Generated kernels (the gather and the generic GEMM) come through en_kernel like every other. */
#include <string.h>

#include "internal.h"

/* The cuBLASLt handle, created on the first float product. */
static rt_blas_t *blas_of(en_engine_t *e) {
    if (!e->blas) rt_blas_create(e->rt, &e->blas);
    return e->blas;
}

static void gather_source(const void *sig, uint32_t i, base_str_t *text, char *name) {
    (void)i;
    cg_gather_source(sig, text, name);
}

static void gemm_source(const void *sig, uint32_t i, base_str_t *text, char *name) {
    (void)i;
    cg_gemm_source(sig, text, name);
}

/* Copies the view (ndim, shape, strides in elements, address of element 0) into a new
 * C-contiguous pool buffer *out, multiplied by the CONST bits `scale` when scaled. On the
 * compile-only device, compiles the kernel and sets *out = 0. */
static bool gather(en_engine_t *e, loom_dtype_t d, int ndim, const int64_t *shape,
                   const int64_t *strides, uint64_t src, bool scaled, uint64_t scale,
                   uint64_t *out) {
    *out = 0;
    cg_gather_sig_t sig = {'g', d, scaled};
    rt_kernel_t *k = en_kernel(e, cg_gather_key(&sig), gather_source, &sig, 0);
    if (!k || e->compile_only) return k != NULL;
    cg_gather_params_t p = {0};
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
    if (rt_alloc(e->rt, bytes ? bytes : 1, out) != LOOM_STATUS_OK) return false;
    p.dst = *out;
    if (p.size) {
        uint32_t grid, block;
        cg_gather_launch_shape(p.size, rt_device_sm_count(e->rt), &grid, &block);
        void *pp[1] = {&p};
        rt_launch(e->rt, k, grid, block, pp);
    }
    return !e->err->status;
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
static bool make_contiguous(en_engine_t *e, view_t *v, uint64_t *temp) {
    if (!gather(e, (loom_dtype_t)v->node->dtype, v->node->ndim, v->node->shape, v->strides,
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
static loom_status_t run_generic(en_engine_t *e, const ir_graph_t *sg, uint32_t mm,
                                 const en_matmul_epi_t *ep, const ir_matmul_plan_t *p, const view_t *a,
                                 const view_t *b, const uint64_t *in_addr, uint64_t out) {
    const ir_node_t *m = &sg->nodes[mm];
    cg_gemm_sig_t sig;
    cg_gemm_params_t gp;
    memset(&sig, 0, sizeof sig);
    memset(&gp, 0, sizeof gp);
    sig.kind = 'm';
    sig.dtype = m->dtype;
    uint32_t n_in = 0, n_cst = 0;
    uint32_t nodes[CG_GEMM_MAX_EPILOGUE];
    uint32_t n_nodes = 0;
    for (uint32_t i = 0; i < ep->n_nodes; i++) { /* operands first */
        uint32_t v = ep->nodes[i], j = n_nodes++;
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
            if (ref == UINT32_MAX && sn->op == IR_OP_CONST && n_cst < CG_GEMM_MAX_CONST) {
                gp.cst[n_cst] = sn->p.bits;
                ref = 0x100 + n_cst++;
            } else if (ref == UINT32_MAX && sn->op == IR_OP_INPUT && n_in < CG_GEMM_MAX_IN) {
                view_t v = view_of(sg, src, in_addr);
                gp.ein[n_in] = v.addr;
                gp.estr[n_in] = v.strides[sn->ndim - 1];
                ref = 0x200 + n_in++;
            }
            if (ref == UINT32_MAX)
                return en_error(e, LOOM_STATUS_INTERNAL,
                                "matmul: epilogue node %u of the step has an operand (node %u, "
                                "%s) the kernel cannot read",
                                nodes[q], src, ir_ops[sn->op].name);
            sig.epi[q].src[s] = ref;
        }
    }
    sig.n_epi = n_nodes;
    rt_kernel_t *k = en_kernel(e, cg_gemm_key(&sig), gemm_source, &sig, 0);
    if (!k || e->compile_only) return e->err->status;
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
    if (p->k == 0) gp.nkt = 0; /* an empty sum: no pass over the outer contracted axes */
    gp.a = a->addr, gp.b = b->addr, gp.c = out;
    uint32_t grid[3], block[3];
    cg_gemm_launch_shape(&gp, grid, block);
    void *pp[1] = {&gp};
    return rt_launch_ex(e->rt, k, grid, block, 0, pp);
}

/* The generated kernel where cuBLASLt cannot take a product; complex products have no
 * generated kernel, so for them that is an error naming the product. */
static loom_status_t generic_or_refuse(en_engine_t *e, const ir_graph_t *sg, uint32_t mm,
                                       const en_matmul_epi_t *ep, ir_matmul_plan_t *p, view_t *a,
                                       view_t *b, const uint64_t *in_addr, uint64_t out) {
    loom_dtype_t d = (loom_dtype_t)sg->nodes[mm].dtype;
    if (ir_is_complex(d))
        return en_error(e, LOOM_STATUS_NOT_AVAILABLE,
                        "matmul: cuBLASLt has no algorithm for this %s product (%lld x %lld x "
                        "%lld), and loom has no generated complex kernel",
                        ir_dtypes[d].name, (long long)p->m, (long long)p->n, (long long)p->k);
    return run_generic(e, sg, mm, ep, p, a, b, in_addr, out);
}

static loom_status_t run_blas(en_engine_t *e, const ir_graph_t *sg, uint32_t mm, const en_matmul_epi_t *ep,
                              ir_matmul_plan_t *p, view_t *a, view_t *b, const uint64_t *in_addr,
                              uint64_t out, uint64_t *temps, int *n_temps) {
    const ir_node_t *m = &sg->nodes[mm];
    loom_dtype_t d = (loom_dtype_t)m->dtype;
    en_matmul_layout_t l;
    /* Operands cuBLAS cannot take as they are are gathered into C order and re-planned. */
    for (int round = 0; round < 2; round++) {
        if (en_matmul_layout(p, &l)) break;
        if (!l.gather_a && !l.gather_b) /* the result's layout: never, as plans go */
            return generic_or_refuse(e, sg, mm, ep, p, a, b, in_addr, out);
        if (round == 1)
            return en_error(e, LOOM_STATUS_INTERNAL, "matmul: contiguous operands not BLAS-able");
        if (l.gather_a && !make_contiguous(e, a, &temps[(*n_temps)++])) return e->err->status;
        if (l.gather_b && !make_contiguous(e, b, &temps[(*n_temps)++])) return e->err->status;
        if (e->compile_only) return e->err->status;
        if (!ir_matmul_plan(m, a->node, a->strides, b->node, b->strides, p))
            return en_error(e, LOOM_STATUS_INTERNAL, "matmul: operand shapes do not fit");
    }
    /* The bias: packed, and pre-multiplied by the scale that follows it. A contiguous bias
     * without that scale (the common case) is passed as it is: no copy on the hot path. */
    uint64_t bias = 0;
    if (ep->bias != UINT32_MAX) {
        view_t bv = view_of(sg, ep->bias, in_addr);
        int nd = bv.node->ndim;
        bool packed = bv.node->shape[nd - 1] == 1 || bv.strides[nd - 1] == 1;
        bool scaled = ep->post_const != UINT32_MAX;
        if (!packed || scaled) {
            uint64_t bits = scaled ? sg->nodes[ep->post_const].p.bits : 0;
            if (!gather(e, d, 1, &bv.node->shape[nd - 1], &bv.strides[nd - 1], bv.addr, scaled,
                        bits, &temps[(*n_temps)++]))
                return e->err->status;
            bv.addr = temps[*n_temps - 1];
        }
        bias = bv.addr;
    }
    if (e->compile_only) return e->err->status;
    rt_blas_t *blas = blas_of(e);
    if (!blas) return e->err->status;
    size_t esz = ir_dtypes[d].size;
    rt_gemm_t g = {
        .dtype = d,
        .tf32 = e->allow_tf32,
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
        .alpha = ep->pre * ep->post,
        .bias = bias,
        .act = (rt_gemm_act_t)ep->act,
    };
    if (!rt_blas_supported(e->rt, blas, &g)) {
        base_log(e->log, LOOM_LOG_INFO,
                 "matmul: cuBLASLt has no algorithm for this %s product; using the generated "
                 "kernel", ir_dtypes[d].name);
        return generic_or_refuse(e, sg, mm, ep, p, a, b, in_addr, out);
    }
    int64_t idx[2 * LOOM_MAX_DIMS] = {0};
    for (;;) {
        int64_t oa = 0, ob = 0, oc = 0;
        for (int i = 0; i < l.n_loop; i++)
            oa += idx[i] * l.loop[i].sa, ob += idx[i] * l.loop[i].sb, oc += idx[i] * l.loop[i].sc;
        g.a = b->addr + (uint64_t)(ob * (int64_t)esz);
        g.b = a->addr + (uint64_t)(oa * (int64_t)esz);
        g.d = out + (uint64_t)(oc * (int64_t)esz);
        if (rt_blas_gemm(e->rt, blas, &g) != LOOM_STATUS_OK) return e->err->status;
        int i = l.n_loop - 1; /* odometer over the batch axes that did not fold */
        for (; i >= 0; i--) {
            if (++idx[i] < l.loop[i].n) break;
            idx[i] = 0;
        }
        if (i < 0) break;
    }
    return e->err->status;
}

loom_status_t en_matmul_run(en_engine_t *e, const ir_graph_t *sg, const uint64_t *in_addr,
                          uint64_t out_addr) {
    uint32_t mm = UINT32_MAX;
    for (uint32_t i = 0; i < sg->n_nodes; i++)
        if (sg->nodes[i].op == IR_OP_MATMUL) mm = i;
    if (mm == UINT32_MAX || sg->n_outputs < 1)
        return en_error(e, LOOM_STATUS_INTERNAL, "matmul: the step graph has no MATMUL node");
    const ir_node_t *m = &sg->nodes[mm];
    if (sg->nodes[m->src[0]].op != IR_OP_INPUT || sg->nodes[m->src[1]].op != IR_OP_INPUT)
        return en_error(e, LOOM_STATUS_INTERNAL, "matmul: the step's operands are not inputs");
    uint32_t *nu = base_arena_alloc(sg->arena, sg->n_nodes, sizeof *nu);
    if (!nu) return en_error(e, LOOM_STATUS_OUT_OF_MEMORY, "matmul: out of memory");
    memset(nu, 0, sg->n_nodes * sizeof *nu);
    for (uint32_t i = 0; i < sg->n_nodes; i++)
        for (int s = 0; s < ir_ops[sg->nodes[i].op].arity; s++) nu[sg->nodes[i].src[s]]++;
    for (uint32_t o = 0; o < sg->n_outputs; o++) nu[sg->outputs[o]]++;
    en_matmul_epi_t ep;
    uint32_t last = en_matmul_match(sg, mm, nu, &ep);
    if (sg->outputs[0] == mm) { /* the scheduler chose not to fuse */
        ep.n_nodes = 0, ep.bias = ep.post_const = UINT32_MAX, ep.pre = ep.post = 1, ep.act = EN_ACT_NONE;
    } else if (last != sg->outputs[0]) {
        return en_error(e, LOOM_STATUS_INTERNAL,
                        "matmul: the step's result (node %u) is not the end of an epilogue "
                        "en_matmul_epilogue accepts (node %u)",
                        sg->outputs[0], last);
    }
    if (ir_node_size(&sg->nodes[sg->outputs[0]]) == 0) return LOOM_STATUS_OK;
    view_t a = view_of(sg, m->src[0], in_addr), b = view_of(sg, m->src[1], in_addr);
    ir_matmul_plan_t p;
    if (!ir_matmul_plan(m, a.node, a.strides, b.node, b.strides, &p))
        return en_error(e, LOOM_STATUS_INTERNAL, "matmul: operand shapes do not fit the node");
    bool cplx = ir_is_complex((loom_dtype_t)m->dtype);
    if (cplx && p.k == 0) { /* an empty sum: zeros (no epilogue fuses into a complex product) */
        if (e->compile_only) return LOOM_STATUS_OK;
        size_t bytes = (size_t)ir_node_size(m) * ir_dtypes[m->dtype].size;
        loom_status_t st = rt_memset(e->rt, out_addr, 0, bytes);
        return st == LOOM_STATUS_OK ? st : en_error(e, st, "matmul: zeroing an empty product");
    }
    if ((!ir_is_float((loom_dtype_t)m->dtype) && !cplx) || p.k == 0)
        return run_generic(e, sg, mm, &ep, &p, &a, &b, in_addr, out_addr);
    uint64_t temps[4] = {0};
    int n_temps = 0;
    run_blas(e, sg, mm, &ep, &p, &a, &b, in_addr, out_addr, temps, &n_temps);
    for (int i = 0; i < n_temps; i++) /* stream-ordered: the pool reuses them after the call */
        if (temps[i]) rt_free(e->rt, temps[i]);
    return e->err->status;
}
