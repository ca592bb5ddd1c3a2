/* print.c — the IR as deterministic text: one line per node, operands by index, values
 * printed exactly (shortest round-trip decimal), nothing depending on addresses. */
#include <stdio.h>
#include <string.h>

#include "ir.h"

void ir_print_scalar(loom_dtype_t dtype, uint64_t bits, base_str_t *out) {
    const ir_dtype_info_t *d = &ir_dtypes[dtype];
    if (d->kind == IR_DKIND_BOOL) {
        base_str_cat(out, bits ? "True" : "False");
    } else if (d->kind == IR_DKIND_UINT) {
        base_str_printf(out, "%llu", (unsigned long long)bits);
    } else if (d->kind == IR_DKIND_INT) {
        unsigned w = 8u * d->size;
        int64_t v =
            w == 64 ? (int64_t)bits : (int64_t)(bits << (64 - w)) >> (64 - w); /* sign-extend */
        base_str_printf(out, "%lld", (long long)v);
    } else if (d->kind == IR_DKIND_COMPLEX) { /* complex64 (complex128 has no CONST) */
        uint32_t re = (uint32_t)bits, im = (uint32_t)(bits >> 32);
        ir_print_scalar(LOOM_DTYPE_F32, re, out);
        base_str_cat(out, (im >> 31) ? "" : "+");
        ir_print_scalar(LOOM_DTYPE_F32, im, out);
        base_str_cat(out, "j");
    } else {
        double v = ir_bits_to_double(dtype, bits);
        char buf[40];
        for (int prec = 1; prec <= 17; prec++) { /* shortest text that reads back exactly */
            snprintf(buf, sizeof buf, "%.*g", prec, v);
            double back;
            sscanf(buf, "%lf", &back);
            if (back == v || v != v) break;
        }
        base_str_cat(out, buf);
    }
}

static void shape(const ir_node_t *n, base_str_t *out) {
    base_str_cat(out, "(");
    for (int i = 0; i < n->ndim; i++)
        base_str_printf(out, i ? ", %lld" : "%lld", (long long)n->shape[i]);
    base_str_cat(out, n->ndim == 1 ? ",)" : ")");
}

/* "(0, 2, 1)": axes, starts, steps. */
static void print_list(const int64_t *v, int n, base_str_t *out) {
    base_str_cat(out, "(");
    for (int i = 0; i < n; i++) base_str_printf(out, i ? ", %lld" : "%lld", (long long)v[i]);
    base_str_cat(out, n == 1 ? ",)" : ")");
}

void ir_print(const ir_graph_t *g, base_str_t *out) {
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const ir_node_t *n = &g->nodes[i];
        base_str_printf(out, "%%%u = %s %s", i, ir_ops[n->op].name, ir_dtypes[n->dtype].name);
        shape(n, out);
        for (int s = 0; s < ir_ops[n->op].arity; s++) base_str_printf(out, " %%%u", n->src[s]);
        switch (n->op) {
            case IR_OP_INPUT:
                base_str_printf(out, " #%d", n->input);
                break;
            case IR_OP_CONST:
                base_str_cat(out, " ");
                ir_print_scalar((loom_dtype_t)n->dtype, n->p.bits, out);
                break;
            case IR_OP_ARANGE:
                if (!ir_is_float((loom_dtype_t)n->dtype))
                    base_str_printf(out, " start=%lld step=%lld", (long long)n->p.i0,
                                    (long long)n->p.di);
                else
                    base_str_printf(out, " start=%.17g step=%.17g", n->p.a, n->p.b);
                break;
            case IR_OP_LINSPACE:
                base_str_printf(out, " start=%.17g step=%.17g stop=%.17g end=%lld", n->p.a, n->p.b,
                                n->p.c, (long long)n->p.k);
                break;
            case IR_OP_EYE:
                base_str_printf(out, " k=%lld", (long long)n->p.k);
                break;
            case IR_OP_MATMUL:
                if (n->p.k == IR_MATMUL_DOT)
                    base_str_cat(out, " dot");
                else if (n->p.k >= IR_MATMUL_TENSORDOT)
                    base_str_printf(out, " tensordot=%lld",
                                    (long long)(n->p.k - IR_MATMUL_TENSORDOT));
                break;
            case IR_OP_RAND_UNIFORM:
            case IR_OP_RAND_NORMAL:
                base_str_printf(out, " seed=%llu a=%.17g b=%.17g", (unsigned long long)n->p.seed,
                                n->p.a, n->p.b);
                break;
            case IR_OP_PERMUTE:
                base_str_cat(out, " axes=");
                print_list(n->p.ax, n->ndim, out);
                break;
            case IR_OP_SLICE:
                base_str_cat(out, " start=");
                print_list(n->p.ax, n->ndim, out);
                base_str_cat(out, " step=");
                print_list(n->p.step, n->ndim, out);
                break;
            case IR_OP_CONCAT:
            case IR_OP_GATHER:
            case IR_OP_INDEX:
            case IR_OP_SORT:
            case IR_OP_ARGSORT:
            case IR_OP_CUMSUM:
            case IR_OP_CUMPROD:
                base_str_printf(out, " axis=%lld", (long long)n->p.axis);
                break;
            case IR_OP_SELECT:
                base_str_printf(out, " axis=%lld ranks=", (long long)n->p.axis);
                print_list(n->p.ax, (int)n->shape[n->p.axis], out);
                break;
            case IR_OP_CORRELATE:
                base_str_printf(out, " offset=%lld%s", (long long)n->p.k,
                                n->p.axis ? " reversed" : "");
                break;
            case IR_OP_EIGH:
            case IR_OP_SVD:
            case IR_OP_QR:
            case IR_OP_EIG:
                base_str_printf(out, " mode=%lld", (long long)n->p.k);
                break;
            case IR_OP_SUM:
            case IR_OP_PROD:
            case IR_OP_MAX:
            case IR_OP_MIN:
            case IR_OP_ARGMAX:
            case IR_OP_ARGMIN:
            case IR_OP_ANY:
            case IR_OP_ALL: {
                int64_t axes[32];
                int k = 0;
                for (int ax = 0; ax < 32; ax++)
                    if ((n->p.axes >> ax) & 1u) axes[k++] = ax;
                base_str_cat(out, " axes=");
                print_list(axes, k, out);
                if (n->p.keepdims) base_str_cat(out, " keepdims");
                break;
            }
            default:
                break;
        }
        base_str_cat(out, "\n");
    }
    for (uint32_t i = 0; i < g->n_outputs; i++) base_str_printf(out, "out %%%u\n", g->outputs[i]);
}

void ir_print_dot(const ir_graph_t *g, base_str_t *out) {
    base_str_cat(out, "digraph loom {\n  rankdir=BT;\n  node [shape=box, fontname=monospace];\n");
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const ir_node_t *n = &g->nodes[i];
        base_str_printf(out, "  n%u [label=\"%%%u %s\\n%s", i, i, ir_ops[n->op].name,
                        ir_dtypes[n->dtype].name);
        shape(n, out);
        if (n->op == IR_OP_CONST) {
            base_str_cat(out, " = ");
            ir_print_scalar((loom_dtype_t)n->dtype, n->p.bits, out);
        }
        base_str_printf(out, "\"%s];\n",
                        n->op == IR_OP_INPUT ? ", style=filled, fillcolor=lightblue" : "");
        for (int s = 0; s < ir_ops[n->op].arity; s++)
            base_str_printf(out, "  n%u -> n%u;\n", n->src[s], i);
    }
    for (uint32_t i = 0; i < g->n_outputs; i++)
        base_str_printf(out, "  out%u [shape=ellipse, label=\"out %u\"];\n  n%u -> out%u;\n", i, i,
                        g->outputs[i], i);
    base_str_cat(out, "}\n");
}
