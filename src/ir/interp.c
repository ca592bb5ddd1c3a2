/* interp.c — the CPU reference device: runs the flat IR node by node on the host with the
 * prelude's op functions (the same ones the CUDA kernels call), so its results are NumPy's.
 * Each value is a strided view: realised inputs are read in place, constants are one element
 * with zero strides, computed nodes own a C-contiguous buffer freed after its last use. */
#include <string.h>

#include "ir.h"

typedef struct view {
    char *base;
    int64_t strides[LOOM_MAX_DIMS]; /* elements */
    bool owned;
    bool handed_out;
    bool alias; /* a view node reading its operand's buffer */
    uint32_t owner; /* alias: the node that owns the buffer (the end of its chain of views) */
} view_t;

static void contiguous_strides(const ir_node_t *n, int64_t *st) {
    int64_t s = 1;
    for (int ax = n->ndim - 1; ax >= 0; ax--) {
        st[ax] = s;
        s *= n->shape[ax] ? n->shape[ax] : 1;
    }
}

/* Strides of operand o (view v) read in the iteration space of n (broadcast: stride 0). */
static void operand_strides(const ir_node_t *n, const ir_node_t *o, const view_t *v, int64_t *st) {
    int lead = n->ndim - o->ndim;
    for (int ax = 0; ax < n->ndim; ax++) {
        int j = ax - lead;
        st[ax] = (j < 0 || (o->shape[j] == 1 && n->shape[ax] != 1)) ? 0 : v->strides[j];
    }
}

/* Runs fn over the iteration space of n: innermost axis as one strided call per row. */
static void run(const ir_node_t *n, ir_ref_fn fn, char *out, const int64_t *ost, int k,
                char *const *in, int64_t (*ist)[LOOM_MAX_DIMS], const size_t *isz, size_t osz) {
    int64_t total = ir_node_size(n);
    if (total == 0) return;
    int nd = n->ndim;
    int64_t inner = nd ? n->shape[nd - 1] : 1;
    int64_t idx[LOOM_MAX_DIMS] = {0};
    int64_t rows = total / (inner ? inner : 1);
    for (int64_t r = 0; r < rows; r++) {
        int64_t ooff = 0, ioff[3] = {0, 0, 0};
        for (int ax = 0; ax < nd - 1; ax++) {
            ooff += idx[ax] * ost[ax];
            for (int s = 0; s < k; s++) ioff[s] += idx[ax] * ist[s][ax];
        }
        const void *p[3] = {NULL, NULL, NULL};
        int64_t s_in[3] = {0, 0, 0};
        for (int s = 0; s < k; s++) {
            p[s] = in[s] + ioff[s] * (int64_t)isz[s];
            s_in[s] = nd ? ist[s][nd - 1] : 0;
        }
        (void)ost;
        fn(inner, out + ooff * (int64_t)osz, p[0], s_in[0], p[1], s_in[1], p[2], s_in[2]);
        for (int ax = nd - 2; ax >= 0; ax--) { /* odometer over the outer axes */
            if (++idx[ax] < n->shape[ax]) break;
            idx[ax] = 0;
        }
    }
}

void ir_copy_strided(loom_dtype_t dtype, int32_t ndim, const int64_t *shape, const void *src,
                     const int64_t *strides, void *dst) {
    ir_node_t n = {.dtype = (uint8_t)dtype, .ndim = (uint8_t)ndim};
    memcpy(n.shape, shape, (size_t)ndim * sizeof *shape);
    size_t sz = ir_dtypes[dtype].size;
    int64_t ost[LOOM_MAX_DIMS], ist[1][LOOM_MAX_DIMS];
    contiguous_strides(&n, ost);
    memcpy(ist[0], strides, (size_t)ndim * sizeof *strides);
    char *in[1] = {(char *)(uintptr_t)src};
    run(&n, ir_ref_cast[dtype][dtype], dst, ost, 1, in, ist, &sz, sz);
}

/* Whether any element of operand `in` (element size sz, strides st in n's iteration space) is
 * negative: the check of a node that raises (IR_RAISE_NEG_POWER), made before it runs. */
static bool any_negative(const ir_node_t *n, const char *in, const int64_t *st, size_t sz) {
    int64_t total = ir_node_size(n), idx[LOOM_MAX_DIMS] = {0};
    for (int64_t e = 0; e < total; e++) {
        int64_t off = 0;
        for (int ax = 0; ax < n->ndim; ax++) off += idx[ax] * st[ax];
        const char *p = in + off * (int64_t)sz;
        int64_t v = sz == 1 ? *(const int8_t *)p
                    : sz == 2 ? *(const int16_t *)p
                    : sz == 4 ? *(const int32_t *)p
                              : *(const int64_t *)p;
        if (v < 0) return true;
        for (int ax = n->ndim - 1; ax >= 0; ax--) {
            if (++idx[ax] < n->shape[ax]) break;
            idx[ax] = 0;
        }
    }
    return false;
}

/* For an INDEX node: the first index (operand a, strides sa in n's space) outside
 * [-extent, extent) of its extent (operand b, strides sb) is reported as NumPy does; false
 * then. The frontend passes int64; other integer dtypes are read as int64 (an unsigned index
 * past INT64_MAX counts as negative, and out of range). */
static bool indices_in_range(const ir_graph_t *g, const ir_node_t *n, const char *a,
                             const int64_t *sa, const char *b, const int64_t *sb) {
    int64_t total = ir_node_size(n), idx[LOOM_MAX_DIMS] = {0};
    loom_dtype_t d = (loom_dtype_t)n->dtype;
    int64_t sz = ir_dtypes[d].size;
    bool uns = ir_dtypes[d].kind == IR_DKIND_UINT;
    for (int64_t e = 0; e < total; e++) {
        int64_t oa = 0, ob = 0;
        for (int ax = 0; ax < n->ndim; ax++) {
            oa += idx[ax] * sa[ax];
            ob += idx[ax] * sb[ax];
        }
        int64_t v, ext;
        ir_cast_element(LOOM_DTYPE_I64, &v, d, a + oa * sz);
        ir_cast_element(LOOM_DTYPE_I64, &ext, d, b + ob * sz);
        if ((uns && v < 0) || v < -ext || v >= ext) {
            ir_index_error(g->err, v, n->p.axis, ext);
            return false;
        }
        for (int ax = n->ndim - 1; ax >= 0; ax--) {
            if (++idx[ax] < n->shape[ax]) break;
            idx[ax] = 0;
        }
    }
    return true;
}

/* A contiguous copy of view v of node n (for results that are not owned buffers). */
static void *gather(const ir_node_t *n, const view_t *v, base_alloc_t *al) {
    int64_t count = ir_node_size(n);
    char *out = base_malloc(al, (size_t)(count ? count : 1), ir_dtypes[n->dtype].size);
    if (out) ir_copy_strided((loom_dtype_t)n->dtype, n->ndim, n->shape, v->base, v->strides, out);
    return out;
}

static void release(view_t *v, bool last_use, base_alloc_t *al) {
    if (last_use && v->owned) {
        base_free(al, v->base);
        v->base = NULL;
        v->owned = false;
    }
}

/* Frees the buffers node i used for the last time: its operands', and those its view operands
 * read through (the owner at the end of a chain of views, whose last use covers the views':
 * one step, so that a chain of n views is released in O(n), not O(n^2)). */
static void release_operands(const ir_graph_t *g, view_t *views, const uint32_t *last, uint32_t i,
                             base_alloc_t *al) {
    const ir_node_t *n = &g->nodes[i];
    for (int s = 0; s < ir_ops[n->op].arity; s++) {
        uint32_t o = n->src[s];
        release(&views[o], last[o] == i, al);
        if (views[o].alias) release(&views[views[o].owner], last[views[o].owner] == i, al);
    }
}

/* Runs node i when it is a view, concatenation, reduction, scan or gather; returns false for
 * the other ops. *st: OUT_OF_MEMORY (recorded) or OK. */
static bool shaped_op(const ir_graph_t *g, view_t *views, uint32_t i, base_alloc_t *al,
                      loom_status_t *st) {
    const ir_node_t *n = &g->nodes[i];
    ir_op_kind_t kind = ir_ops[n->op].kind;
    if (kind != IR_KIND_VIEW && kind != IR_KIND_CONCAT && kind != IR_KIND_REDUCE &&
        kind != IR_KIND_SCAN && kind != IR_KIND_GATHER && kind != IR_KIND_NONZERO &&
        kind != IR_KIND_SORT && kind != IR_KIND_SEARCH && kind != IR_KIND_SCATTER &&
        kind != IR_KIND_FFT)
        return false;
    *st = LOOM_STATUS_OK;
    view_t *v = &views[i];
    const ir_node_t *o = &g->nodes[n->src[0]];
    view_t *ov = &views[n->src[0]];
    size_t sz = ir_dtypes[n->dtype].size;
    if (kind == IR_KIND_VIEW) {
        int64_t off;
        if (ir_ref_view(n, o, ov->strides, &off, v->strides)) {
            v->base = ov->base + off * (int64_t)sz;
            v->alias = true;
            v->owner = ov->alias ? ov->owner : n->src[0];
            return true;
        }
        v->base = gather(o, ov, al); /* a reshape strides cannot express: copy */
        if (!v->base) goto oom;
        v->owned = true;
        contiguous_strides(n, v->strides);
        return true;
    }
    int64_t count = ir_node_size(n);
    v->base = base_malloc(al, (size_t)(count ? count : 1), sz);
    if (!v->base) goto oom;
    v->owned = true;
    contiguous_strides(n, v->strides);
    if (kind == IR_KIND_CONCAT) {
        const ir_node_t *b = &g->nodes[n->src[1]];
        const view_t *bv = &views[n->src[1]];
        ir_ref_concat(n, o, ov->base, ov->strides, b, bv->base, bv->strides, v->base);
    } else if (kind == IR_KIND_SCAN) {
        ir_ref_scan(n, o, ov->base, ov->strides, v->base);
    } else if (kind == IR_KIND_FFT) {
        if (!ir_ref_fft(n, o, ov->base, ov->strides, v->base, al)) goto oom;
    } else if (kind == IR_KIND_SCATTER) {
        const view_t *xv = &views[n->src[1]], *vv = &views[n->src[2]];
        ir_ref_scatter(n, o, ov->base, ov->strides, &g->nodes[n->src[1]], xv->base, xv->strides,
                       &g->nodes[n->src[2]], vv->base, vv->strides, v->base);
    } else if (n->op == IR_OP_CORRELATE) {
        const view_t *vv = &views[n->src[1]];
        ir_ref_correlate(n, o, ov->base, ov->strides, &g->nodes[n->src[1]], vv->base, vv->strides,
                         v->base);
    } else if (kind == IR_KIND_SEARCH) {
        const view_t *vv = &views[n->src[1]];
        ir_ref_searchsorted(n, o, ov->base, ov->strides, &g->nodes[n->src[1]], vv->base,
                            vv->strides, v->base);
    } else if (kind == IR_KIND_SORT) {
        if (!ir_ref_sort(n, o, ov->base, ov->strides, v->base, al)) goto oom;
    } else if (n->op == IR_OP_COMPRESS) {
        const view_t *vv = &views[n->src[1]];
        ir_ref_compress(n, o, ov->base, ov->strides, vv->base, vv->strides, v->base);
    } else if (kind == IR_KIND_NONZERO) {
        ir_ref_nonzero(n, o, ov->base, ov->strides, v->base);
    } else if (kind == IR_KIND_GATHER) {
        const view_t *xv = &views[n->src[1]];
        int64_t xst[LOOM_MAX_DIMS];
        operand_strides(n, &g->nodes[n->src[1]], xv, xst);
        ir_ref_gather(n, o, ov->base, ov->strides, (const int64_t *)(const void *)xv->base, xst,
                      v->base);
    } else if (!ir_ref_reduce(n, o, ov->base, ov->strides, v->base, al)) {
        goto oom;
    }
    return true;
oom:
    *st = base_error_set(g->err, LOOM_STATUS_OUT_OF_MEMORY, "reference device: out of memory");
    return true;
}

/* What an empty input borrowed or wrapped from NULL is read through, so that it and its views
 * offset a real address, as other empty arrays do (arithmetic on NULL is undefined). */
static const unsigned char empty_input[8];

loom_status_t ir_interp(const ir_graph_t *g, base_alloc_t *al, void **results) {
    uint32_t nn = g->n_nodes;
    view_t *views = base_calloc(al, nn ? nn : 1, sizeof *views);
    uint32_t *last = base_calloc(al, nn ? nn : 1, sizeof *last);
    bool *live = base_calloc(al, nn ? nn : 1, sizeof *live);
    loom_status_t st = LOOM_STATUS_OK;
    if (!views || !last || !live) {
        st = base_error_set(g->err, LOOM_STATUS_OUT_OF_MEMORY, "reference device: out of memory");
        goto done;
    }
    /* Liveness: only nodes the outputs need run; each buffer is freed after its last use. */
    for (uint32_t i = 0; i < g->n_outputs; i++) {
        live[g->outputs[i]] = true;
        last[g->outputs[i]] = UINT32_MAX;
    }
    for (uint32_t i = nn; i-- > 0;) {
        if (!live[i]) continue;
        /* A view may read its operand's buffer: the operand lives as long as the view. */
        uint32_t use = ir_ops[g->nodes[i].op].kind == IR_KIND_VIEW ? last[i] : i;
        for (int s = 0; s < ir_ops[g->nodes[i].op].arity; s++) {
            uint32_t o = g->nodes[i].src[s];
            live[o] = true;
            if (last[o] < use) last[o] = use;
        }
    }
    for (uint32_t i = 0; i < nn; i++) {
        if (!live[i]) continue;
        const ir_node_t *n = &g->nodes[i];
        view_t *v = &views[i];
        size_t sz = ir_dtypes[n->dtype].size;
        if (n->op == IR_OP_INPUT) {
            const ir_input_t *in = &g->inputs[n->input];
            const void *host = in->host ? in->host : empty_input;
            v->base = (char *)(uintptr_t)host + in->offset * (int64_t)sz;
            memcpy(v->strides, in->strides, sizeof v->strides);
            continue;
        }
        if (n->op == IR_OP_CONST) { /* one element, read with zero strides */
            v->base = base_malloc(al, 1, 8);
            if (!v->base) goto oom;
            memcpy(v->base, &n->p.bits, 8);
            v->owned = true;
            continue;
        }
        if (shaped_op(g, views, i, al, &st)) {
            if (st != LOOM_STATUS_OK) goto done;
            release_operands(g, views, last, i, al);
            continue;
        }
        int64_t count = ir_node_size(n);
        v->base = base_malloc(al, (size_t)(count ? count : 1), sz);
        if (!v->base) goto oom;
        v->owned = true;
        contiguous_strides(n, v->strides);
        if (ir_ops[n->op].kind == IR_KIND_LEAF) {
            ir_ref_leaf(n, v->base);
        } else if (ir_ops[n->op].kind == IR_KIND_MATMUL) {
            uint32_t a = n->src[0], b = n->src[1];
            if (!ir_ref_matmul(n, &g->nodes[a], views[a].base, views[a].strides, &g->nodes[b],
                               views[b].base, views[b].strides, v->base, al))
                goto oom;
        } else if (ir_ops[n->op].kind == IR_KIND_LINALG) {
            void *ops[2] = {NULL, NULL}; /* C-contiguous copies: LAPACK works in place */
            int k = ir_ops[n->op].arity;
            for (int s = 0; s < k; s++)
                if (!(ops[s] = gather(&g->nodes[n->src[s]], &views[n->src[s]], al))) {
                    base_free(al, ops[0]);
                    goto oom;
                }
            st = ir_ref_linalg(n, &g->nodes[n->src[0]], ops[0], k > 1 ? &g->nodes[n->src[1]] : NULL,
                               ops[1], v->base, al, g->err);
            base_free(al, ops[0]);
            base_free(al, ops[1]);
            if (st != LOOM_STATUS_OK) goto done;
        } else {
            int k = ir_ops[n->op].arity;
            char *in[3];
            int64_t ist[3][LOOM_MAX_DIMS];
            size_t isz[3];
            for (int s = 0; s < k; s++) {
                const ir_node_t *o = &g->nodes[n->src[s]];
                in[s] = views[n->src[s]].base;
                isz[s] = ir_dtypes[o->dtype].size;
                operand_strides(n, o, &views[n->src[s]], ist[s]);
            }
            ir_ref_fn fn = n->op == IR_OP_CAST    ? ir_ref_cast[g->nodes[n->src[0]].dtype][n->dtype]
                           : n->op == IR_OP_WHERE ? ir_ref_elem[IR_OP_WHERE][n->dtype]
                                                  : ir_ref_elem[n->op][g->nodes[n->src[0]].dtype];
            if (!fn) {
                st = base_error_set(g->err, LOOM_STATUS_INTERNAL,
                                    "reference device: no kernel for %s on %s", ir_ops[n->op].name,
                                    ir_dtypes[g->nodes[n->src[0]].dtype].name);
                goto done;
            }
            if (n->op == IR_OP_INDEX) {
                if (!indices_in_range(g, n, in[0], ist[0], in[1], ist[1])) {
                    st = g->err->status;
                    goto done;
                }
            } else if (ir_node_raises(g, n) && any_negative(n, in[1], ist[1], isz[1])) {
                st = base_error_set(g->err, LOOM_STATUS_INVALID_ARGUMENT, "%s",
                                    ir_raise_message(IR_RAISE_NEG_POWER));
                goto done;
            }
            run(n, fn, v->base, v->strides, k, in, ist, isz, sz);
        }
        release_operands(g, views, last, i, al);
    }
    for (uint32_t i = 0; i < g->n_outputs; i++) {
        uint32_t o = g->outputs[i];
        view_t *v = &views[o];
        const ir_node_t *n = &g->nodes[o];
        if (v->owned && !v->handed_out && n->op != IR_OP_CONST) {
            results[i] = v->base; /* already C-contiguous: hand it over */
            v->handed_out = true;
        } else {
            if (n->op == IR_OP_CONST) memset(v->strides, 0, sizeof v->strides);
            results[i] = gather(n, v, al);
            if (!results[i]) goto oom;
        }
    }
    goto done;
oom:
    st = base_error_set(g->err, LOOM_STATUS_OUT_OF_MEMORY, "reference device: out of memory");
    for (uint32_t i = 0; i < g->n_outputs; i++) { /* results given so far go back too */
        base_free(al, results[i]);
        results[i] = NULL;
    }
done:
    if (views)
        for (uint32_t i = 0; i < nn; i++)
            if (views[i].owned && !views[i].handed_out) base_free(al, views[i].base);
    base_free(al, views);
    base_free(al, last);
    base_free(al, live);
    return st;
}
