/* verify.c — checks the flat IR's invariants between passes: operands before users, known
 * ops with the right arity, operand dtypes matching the op's loop, shapes broadcastable (or, for
 * contractions, contracting to the node's shape). */
#include <string.h>

#include <string.h>

#include "ir.h"

static bool fail(const ir_graph_t *g, uint32_t i, const char *what) {
    base_error_set(g->err, LOOM_STATUS_INTERNAL, "IR verifier: node %u (%s): %s", i,
                   g->nodes[i].op < IR_OP_COUNT ? ir_ops[g->nodes[i].op].name : "?", what);
    return false;
}

/* A contraction: operands first, of the node's dtype, with shapes whose contraction (NumPy's
 * rules for the node's mode) has exactly the node's shape. */
static bool verify_matmul(const ir_graph_t *g, uint32_t i) {
    const ir_node_t *n = &g->nodes[i];
    if (n->src[0] >= i || n->src[1] >= i) return fail(g, i, "operand does not come before its user");
    const ir_node_t *a = &g->nodes[n->src[0]], *b = &g->nodes[n->src[1]];
    if (a->dtype != n->dtype || b->dtype != n->dtype)
        return fail(g, i, "operands differ from the result dtype");
    int nd;
    int64_t shape[LOOM_MAX_DIMS];
    ir_matmul_why_t why;
    if (!ir_matmul_shape(n->p.k, a->ndim, a->shape, b->ndim, b->shape, &nd, shape, &why))
        return fail(g, i, "operand shapes do not contract");
    if (nd != n->ndim || memcmp(shape, n->shape, (size_t)nd * sizeof *shape))
        return fail(g, i, "result shape is not the contraction's");
    return true;
}

/* Views, concatenation, reductions and scans: operand order, dtypes, params, shape. */
static bool verify_shaped(const ir_graph_t *g, uint32_t i) {
    const ir_node_t *n = &g->nodes[i];
    for (int s = 0; s < ir_ops[n->op].arity; s++)
        if (n->src[s] >= i) return fail(g, i, "operand does not come before its user");
    const ir_node_t *o = &g->nodes[n->src[0]];
    if (n->op == IR_OP_NONZERO) {
        if (o->dtype != LOOM_DTYPE_BOOL || n->dtype != LOOM_DTYPE_I64 || n->ndim != 1)
            return fail(g, i, "flatnonzero: a bool operand and a 1-D int64 result");
        return true;
    }
    if (n->op == IR_OP_COMPRESS) {
        const ir_node_t *v = &g->nodes[n->src[1]];
        if (o->dtype != LOOM_DTYPE_BOOL || o->ndim != 1 || v->ndim != 1 ||
            v->shape[0] != o->shape[0] || n->dtype != v->dtype || n->ndim != 1 ||
            n->shape[0] != o->shape[0] + ir_compress_tail((loom_dtype_t)n->dtype))
            return fail(g, i,
                        "compress: a 1-D bool mask, values of its extent, a 1-D result of that "
                        "extent and the count's tail");
        return true;
    }
    if (n->op == IR_OP_SCATTER) {
        const ir_node_t *x = &g->nodes[n->src[1]], *v = &g->nodes[n->src[2]];
        if (o->dtype != n->dtype || v->dtype != n->dtype || x->dtype != LOOM_DTYPE_I64 ||
            o->ndim != n->ndim || memcmp(o->shape, n->shape, (size_t)n->ndim * sizeof *n->shape) ||
            n->p.k < 0 || n->p.k > 3 || v->ndim > x->ndim)
            return fail(g, i, "scatter: operands, dtypes or mode");
        for (int ax = 0; ax < v->ndim; ax++) {
            int64_t e = v->shape[ax], r = x->shape[ax + x->ndim - v->ndim];
            if (e != r && e != 1) return fail(g, i, "scatter: values do not broadcast");
        }
        return true;
    }
    if (n->op == IR_OP_CORRELATE) {
        const ir_node_t *v = &g->nodes[n->src[1]];
        if (o->ndim != 1 || v->ndim != 1 || n->ndim != 1 || o->dtype != n->dtype ||
            v->dtype != n->dtype || (n->dtype != LOOM_DTYPE_F32 && n->dtype != LOOM_DTYPE_F64) ||
            (n->p.axis != 0 && n->p.axis != 1))
            return fail(g, i, "correlate: operands, result or flip");
        return true;
    }
    if (n->op == IR_OP_SEARCHSORTED) {
        const ir_node_t *v = &g->nodes[n->src[1]];
        if (o->ndim != 1 || v->dtype != o->dtype || n->dtype != LOOM_DTYPE_I64 ||
            n->ndim != v->ndim || memcmp(n->shape, v->shape, (size_t)n->ndim * sizeof *n->shape))
            return fail(g, i, "searchsorted: operands or result");
        return true;
    }
    if (n->op == IR_OP_SELECT) {
        int ax = (int)n->p.axis;
        bool ok = n->ndim == o->ndim && ax >= 0 && ax < n->ndim && n->dtype == o->dtype &&
                  !ir_is_complex((loom_dtype_t)o->dtype) && n->shape[ax] >= 1 &&
                  n->shape[ax] <= LOOM_MAX_DIMS;
        for (int k = 0; ok && k < n->ndim; k++) ok = k == ax || n->shape[k] == o->shape[k];
        for (int64_t r = 0; ok && r < n->shape[ax]; r++)
            ok = n->p.ax[r] >= 0 && n->p.ax[r] < o->shape[ax];
        return ok ? true : fail(g, i, "select: shape, axis, dtype or ranks");
    }
    if (n->op == IR_OP_SORT || n->op == IR_OP_ARGSORT) {
        if (n->ndim != o->ndim || n->p.axis < 0 || n->p.axis >= n->ndim ||
            memcmp(n->shape, o->shape, (size_t)n->ndim * sizeof *n->shape))
            return fail(g, i, "sort: shape or axis");
        if (n->dtype != (n->op == IR_OP_SORT ? o->dtype : LOOM_DTYPE_I64))
            return fail(g, i, "sort: result dtype");
        return true;
    }
    bool arg = n->op == IR_OP_ARGMAX || n->op == IR_OP_ARGMIN;
    bool logical = n->op == IR_OP_ANY || n->op == IR_OP_ALL;
    if (logical && (o->dtype != LOOM_DTYPE_BOOL || n->dtype != LOOM_DTYPE_BOOL))
        return fail(g, i, "any/all not on bool");
    if (arg && n->dtype != LOOM_DTYPE_I64) return fail(g, i, "arg index not int64");
    if (!arg && !logical && n->op != IR_OP_FFT && o->dtype != n->dtype)
        return fail(g, i, "operand dtype differs");
    switch (n->op) {
        case IR_OP_RESHAPE:
            if (ir_node_size(n) != ir_node_size(o)) return fail(g, i, "reshape changes the size");
            return true;
        case IR_OP_PERMUTE: {
            uint32_t seen = 0;
            if (n->ndim != o->ndim) return fail(g, i, "permutation changes ndim");
            for (int ax = 0; ax < n->ndim; ax++) {
                int64_t k = n->p.ax[ax];
                if (k < 0 || k >= o->ndim || (seen & (1u << k)) || n->shape[ax] != o->shape[k])
                    return fail(g, i, "not a permutation of the operand's axes");
                seen |= 1u << k;
            }
            return true;
        }
        case IR_OP_SLICE:
            if (n->ndim != o->ndim) return fail(g, i, "slice changes ndim");
            for (int ax = 0; ax < n->ndim; ax++) {
                int64_t st = n->p.ax[ax], step = n->p.step[ax], e = o->shape[ax];
                if (step == 0) return fail(g, i, "slice step 0");
                if (n->shape[ax] == 0) continue;
                int64_t end = st + (n->shape[ax] - 1) * step;
                if (st < 0 || st >= e || end < 0 || end >= e)
                    return fail(g, i, "slice reads outside the operand");
            }
            return true;
        case IR_OP_EXPAND:
            if (o->ndim > n->ndim) return fail(g, i, "broadcast_to drops axes");
            for (int ax = 0; ax < o->ndim; ax++) {
                int64_t e = o->shape[ax], r = n->shape[ax + n->ndim - o->ndim];
                if (e != r && e != 1) return fail(g, i, "operand shape does not broadcast");
            }
            return true;
        case IR_OP_CONCAT: {
            const ir_node_t *b = &g->nodes[n->src[1]];
            int64_t axis = n->p.axis;
            if (b->dtype != n->dtype) return fail(g, i, "operand dtype differs");
            if (o->ndim != n->ndim || b->ndim != n->ndim || axis < 0 || axis >= n->ndim)
                return fail(g, i, "concatenate: ndim or axis");
            for (int ax = 0; ax < n->ndim; ax++) {
                int64_t want = ax == axis ? o->shape[ax] + b->shape[ax] : o->shape[ax];
                if (n->shape[ax] != want || (ax != axis && b->shape[ax] != want))
                    return fail(g, i, "concatenate: shapes do not match");
            }
            return true;
        }
        case IR_OP_LOAD:
            return fail(g, i, "load outside a step graph");
        case IR_OP_GATHER: {
            const ir_node_t *x = &g->nodes[n->src[1]];
            int64_t axis = n->p.axis;
            if (x->dtype != LOOM_DTYPE_I64) return fail(g, i, "take: index not int64");
            if (o->ndim != n->ndim || axis < 0 || axis >= n->ndim)
                return fail(g, i, "take: ndim or axis");
            if (x->ndim > n->ndim) return fail(g, i, "take: index has more axes than the result");
            for (int ax = 0; ax < n->ndim; ax++) {
                if (ax != axis && o->shape[ax] != n->shape[ax])
                    return fail(g, i, "take: operand extent differs off the axis");
                if (ax == axis && o->shape[ax] == 0 && n->shape[ax] != 0 && ir_node_size(n) != 0)
                    return fail(g, i, "take: from an empty axis");
            }
            for (int ax = 0; ax < x->ndim; ax++) {
                int64_t e = x->shape[ax], r = n->shape[ax + n->ndim - x->ndim];
                if (e != r && e != 1) return fail(g, i, "take: index shape does not broadcast");
            }
            return true;
        }
        case IR_OP_CUMSUM:
        case IR_OP_CUMPROD:
            if (n->ndim != o->ndim || n->p.axis < 0 || n->p.axis >= n->ndim ||
                memcmp(n->shape, o->shape, (size_t)n->ndim * sizeof *n->shape))
                return fail(g, i, "scan: shape or axis");
            return true;
        case IR_OP_FFT: {
            if (n->ndim != o->ndim || n->p.axis < 0 || n->p.axis >= n->ndim || n->p.k < 0 ||
                n->p.k > IR_FFT_C2R)
                return fail(g, i, "fft: axis or kind");
            int last = (int)n->p.axis, first = ir_fft_first_axis(n);
            uint32_t run = (uint32_t)((2ull << last) - (1ull << first));
            if (n->p.axes != run || last - first >= IR_FFT_MAX_RANK ||
                (n->p.k == IR_FFT_C2R && first != last))
                return fail(g, i, "fft: axes");
            loom_dtype_t in = (loom_dtype_t)o->dtype, out = (loom_dtype_t)n->dtype;
            bool ok = n->p.k == IR_FFT_R2C   ? ir_is_float(in) && ir_complex_dtype(in) == out
                      : n->p.k == IR_FFT_C2R ? ir_is_float(out) && ir_complex_dtype(out) == in
                                             : ir_is_complex(in) && in == out;
            if (!ok || (in != LOOM_DTYPE_F32 && in != LOOM_DTYPE_F64 && in != LOOM_DTYPE_C64 &&
                        in != LOOM_DTYPE_C128))
                return fail(g, i, "fft: dtypes");
            for (int ax = 0; ax < n->ndim; ax++) {
                int64_t want = o->shape[ax];
                if (ax == last && n->p.k == IR_FFT_R2C) want = o->shape[ax] / 2 + 1;
                if (ax == last && n->p.k == IR_FFT_C2R && o->shape[ax] != n->shape[ax] / 2 + 1)
                    return fail(g, i, "fft: shape");
                if (ax == last && n->p.k == IR_FFT_C2R) continue;
                if (n->shape[ax] != want) return fail(g, i, "fft: shape");
            }
            return true;
        }
        default: { /* reductions */
            if (o->ndim < 32 && (n->p.axes >> o->ndim)) return fail(g, i, "reduced axis range");
            int k = 0;
            for (int ax = 0; ax < o->ndim; ax++) {
                bool red = (n->p.axes >> ax) & 1u;
                if (red && !n->p.keepdims) continue;
                if (k >= n->ndim || n->shape[k] != (red ? 1 : o->shape[ax]))
                    return fail(g, i, "reduction shape");
                k++;
            }
            if (k != n->ndim) return fail(g, i, "reduction shape");
            return true;
        }
    }
}

bool ir_verify(const ir_graph_t *g) {
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const ir_node_t *n = &g->nodes[i];
        if (n->op >= IR_OP_COUNT) return fail(g, i, "unknown op");
        if (n->dtype >= LOOM_DTYPE_COUNT) return fail(g, i, "unknown dtype");
        if (n->ndim > LOOM_MAX_DIMS) return fail(g, i, "too many axes");
        const ir_op_info_t *info = &ir_ops[n->op];
        if (n->op == IR_OP_INPUT && (n->input < 0 || (uint32_t)n->input >= g->n_inputs))
            return fail(g, i, "input index out of range");
        if (info->kind == IR_KIND_VIEW || info->kind == IR_KIND_CONCAT ||
            info->kind == IR_KIND_REDUCE || info->kind == IR_KIND_SCAN ||
            info->kind == IR_KIND_GATHER || info->kind == IR_KIND_NONZERO ||
            info->kind == IR_KIND_SORT || info->kind == IR_KIND_SEARCH ||
            info->kind == IR_KIND_SCATTER || info->kind == IR_KIND_FFT) {
            if (!verify_shaped(g, i)) return false;
            continue;
        }
        if (info->kind == IR_KIND_LINALG) {
            int nd;
            int64_t shape[LOOM_MAX_DIMS];
            loom_dtype_t od = (loom_dtype_t)g->nodes[n->src[0]].dtype;
            for (int k = 0; k < info->arity; k++) {
                if (n->src[k] >= i) return fail(g, i, "operand does not come before its user");
                if (g->nodes[n->src[k]].dtype != od) return fail(g, i, "operand dtypes differ");
            }
            loom_dtype_t rd = ir_real_dtype(od);
            if (!ir_op_has_loop((ir_op_t)n->op, od) ||
                (rd != LOOM_DTYPE_F32 && rd != LOOM_DTYPE_F64))
                return fail(g, i, "operand dtype not one the factorisation takes");
            if (n->dtype != ir_linalg_dtype((ir_op_t)n->op, n->p.k, od))
                return fail(g, i, "result dtype");
            if (!ir_linalg_shape((ir_op_t)n->op, n->p.k, &g->nodes[n->src[0]],
                                 info->arity > 1 ? &g->nodes[n->src[1]] : NULL, &nd, shape) ||
                nd != n->ndim || memcmp(shape, n->shape, (size_t)nd * sizeof *shape))
                return fail(g, i, "operand or result shape");
            continue;
        }
        if (info->kind == IR_KIND_MATMUL) {
            if (!verify_matmul(g, i)) return false;
            continue;
        }
        for (int s = 0; s < info->arity; s++) {
            if (n->src[s] >= i) return fail(g, i, "operand does not come before its user");
            const ir_node_t *o = &g->nodes[n->src[s]];
            if (o->ndim > n->ndim) return fail(g, i, "operand has more axes than the result");
            for (int ax = 0; ax < o->ndim; ax++) {
                int64_t e = o->shape[ax], r = n->shape[ax + n->ndim - o->ndim];
                if (e != r && e != 1) return fail(g, i, "operand shape does not broadcast");
            }
        }
        if (info->kind != IR_KIND_ELEM || n->op == IR_OP_CAST) continue;
        if (n->op == IR_OP_WHERE) {
            if (g->nodes[n->src[0]].dtype != LOOM_DTYPE_BOOL)
                return fail(g, i, "condition not bool");
            if (g->nodes[n->src[1]].dtype != n->dtype || g->nodes[n->src[2]].dtype != n->dtype)
                return fail(g, i, "branches differ from the result dtype");
            continue;
        }
        loom_dtype_t d = (loom_dtype_t)g->nodes[n->src[0]].dtype;
        for (int s = 1; s < info->arity; s++)
            if (g->nodes[n->src[s]].dtype != d) return fail(g, i, "operands differ in dtype");
        if (!ir_op_has_loop((ir_op_t)n->op, d)) return fail(g, i, "no loop for the operand dtype");
        loom_dtype_t want = ir_out_dtype((ir_op_t)n->op, d);
        if (n->dtype != want) return fail(g, i, "result dtype does not follow the loop");
    }
    for (uint32_t i = 0; i < g->n_outputs; i++)
        if (g->outputs[i] >= g->n_nodes) {
            base_error_set(g->err, LOOM_STATUS_INTERNAL, "IR verifier: output %u out of range", i);
            return false;
        }
    return true;
}
