/* elementwise.c — CUDA C for one fused elementwise kernel: a grid-stride loop over the
 * iteration space; a flat variant (index i, 16-byte vector loads and stores) when no operand
 * needs coordinates, a strided variant (coordinates from the collapsed extents) otherwise.
 * Deterministic text: names come from kernel positions, values never appear. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"

#define BLOCK CG_BLOCK

static const ir_node_t *node(const cg_kernel_t *k, uint32_t j) { return &k->g->nodes[k->nodes[j]]; }

/* Position in k->nodes of IR node index `ir` (operands always precede, so search below j). */
static uint32_t pos(const cg_kernel_t *k, uint32_t ir, uint32_t below) {
    for (uint32_t j = below; j-- > 0;)
        if (k->nodes[j] == ir) return j;
    return 0;
}

base_hash128_t cg_kernel_key(const cg_kernel_t *k) {
    cg__key_t ka;
    cg__key_init(&ka, 0x6c6f6f71); /* format of this generator; bump when the text changes */
    cg__key_put(&ka, (uint32_t)k->ndim | (uint32_t)k->flat << 8 | (uint32_t)k->vec << 9 |
                         (uint32_t)k->idx64 << 13 | (uint32_t)k->tail << 14);
    cg__key_put(&ka, k->n_nodes);
    cg__key_put(&ka, k->n_outs);
    for (uint32_t j = 0; j < k->n_nodes; j++) {
        const ir_node_t *nd = node(k, j);
        uint32_t w[6] = {nd->op, nd->dtype, k->layout[j], 0, 0, 0};
        for (int s = 0; s < ir_ops[nd->op].arity; s++) w[3 + s] = pos(k, nd->src[s], j);
        if (nd->op == IR_OP_LINSPACE) w[5] = nd->p.k >= 0;
        for (int i = 0; i < 6; i++) cg__key_put(&ka, w[i]);
    }
    for (uint32_t i = 0; i < k->n_outs; i++) cg__key_put(&ka, pos(k, k->outs[i], k->n_nodes));
    return cg__key_done(&ka);
}

uint32_t cg_kernel_n_params(const cg_kernel_t *k) {
    uint32_t w = 1 + (k->flat ? 0 : (uint32_t)k->ndim);
    for (uint32_t j = 0; j < k->n_nodes; j++) {
        const ir_node_t *n = node(k, j);
        uint32_t strided = k->layout[j] >= CG_STRIDED ? (uint32_t)k->ndim : 0;
        if (n->op == IR_OP_INPUT)
            w += 1 + strided;
        else if (n->op == IR_OP_CONST)
            w += 1;
        else if (cg__strided(n))
            w += cg__leaf_n_words(n) + strided;
    }
    return w + k->n_outs;
}

uint32_t cg_fastdiv_magic(uint32_t d) {
    if (d < 2) return 0; /* the kernel selects the dividend itself for d == 1 */
    int log2_up = 0;
    while ((UINT64_C(1) << log2_up) < d) log2_up++;
    int p = 31 + log2_up;
    return (uint32_t)(((UINT64_C(1) << p) + d - 1) / d);
}

void cg_kernel_params(const cg_kernel_t *k, const uint64_t *input_addr, const uint64_t *out_addr,
                      uint64_t *w) {
    uint32_t n = 0;
    w[n++] = (uint64_t)k->size;
    if (!k->flat)
        for (int ax = 0; ax < k->ndim; ax++) {
            w[n] = (uint64_t)k->shape[ax];
            if (!k->idx64 && ax > 0) w[n] |= (uint64_t)cg_fastdiv_magic((uint32_t)k->shape[ax]) << 32;
            n++;
        }
    for (uint32_t j = 0; j < k->n_nodes; j++) {
        const ir_node_t *nd = node(k, j);
        switch (nd->op) {
            case IR_OP_INPUT: {
                const ir_input_t *in = &k->g->inputs[nd->input];
                w[n++] = input_addr[nd->input] +
                         (uint64_t)(in->offset * (int64_t)ir_dtypes[nd->dtype].size);
                break;
            }
            case IR_OP_CONST:
                w[n++] = nd->p.bits;
                break;
            default:
                n += cg__leaf_words(nd, w + n);
        }
        if (k->layout[j] >= CG_STRIDED)
            for (int ax = 0; ax < k->ndim; ax++) w[n++] = (uint64_t)k->strides[j][ax];
    }
    for (uint32_t i = 0; i < k->n_outs; i++) w[n++] = out_addr[i];
}

void cg_kernel_launch_shape(const cg_kernel_t *k, int sm_count, int blocks_per_sm, uint32_t *grid,
                            uint32_t *block) {
    int64_t work = (k->size + k->vec - 1) / k->vec;
    if (work < 1) work = 1;
    int64_t blocks = (work + BLOCK - 1) / BLOCK;
    /* Flat kernels get a block per BLOCK steps (one step per thread: 7-10 % faster than a
     * resident wave looping on hypot and gelu 64M, bench_elementwise on the H200); strided ones
     * at most a resident wave (one step per thread was 24 % slower on the outer broadcast, two
     * or four waves 1-3 % slower). */
    int64_t cap = cg__wave(sm_count, blocks_per_sm);
    if (!k->flat && blocks > cap) blocks = cap;
    if (!k->idx64) { /* a thread's index reaches size + grid * BLOCK * vec: keep it in int */
        int64_t room = ((int64_t)INT32_MAX - k->size) / ((int64_t)BLOCK * k->vec);
        if (blocks > room) blocks = room;
    }
    *grid = (uint32_t)blocks;
    *block = BLOCK;
}

static const char *ty(const ir_node_t *n) { return ir_dtypes[n->dtype].ctype; }
static const char *sfx(loom_dtype_t d) { return ir_dtypes[d].sfx; }

/* Declarations before the loop: pointers, scalars, leaf parameters, strides. */
static void emit_params(const cg_kernel_t *k, base_str_t *o) {
    uint32_t w = 1;
    base_str_cat(o, "    const LM_I n = (LM_I)P.w[0];\n");
    if (!k->flat)
        for (int ax = 0; ax < k->ndim; ax++) {
            base_str_printf(o, "    const LM_I e%d = (LM_I)P.w[%u];\n", ax, w);
            if (!k->idx64 && ax > 0) { /* the divisor's magic number rides in the high word */
                base_str_printf(o, "    const unsigned m%d = (unsigned)(P.w[%u] >> 32);\n", ax, w);
                base_str_printf(o,
                                "    const unsigned s%d = e%d > 1 ? 31 - __clz(e%d - 1) : 0;\n",
                                ax, ax, ax);
            }
            w++;
        }
    for (uint32_t j = 0; j < k->n_nodes; j++) {
        const ir_node_t *n = node(k, j);
        switch (n->op) {
            case IR_OP_INPUT:
                base_str_printf(o, "    const %s *__restrict__ in%u = (const %s *)P.w[%u];\n",
                                ty(n), j, ty(n), w++);
                break;
            case IR_OP_CONST:
                base_str_printf(o, "    const %s v%u = lm_word_%s(P.w[%u]);\n", ty(n), j,
                                sfx((loom_dtype_t)n->dtype), w++);
                break;
            default:
                cg__emit_leaf_decls(o, n, j, &w);
        }
        if (k->layout[j] >= CG_STRIDED)
            for (int ax = 0; ax < k->ndim; ax++)
                base_str_printf(o, "    const LM_I t%u_%d = (LM_I)(lm_i64)P.w[%u];\n", j, ax, w++);
    }
    for (uint32_t i = 0; i < k->n_outs; i++) {
        const ir_node_t *n = &k->g->nodes[k->outs[i]];
        base_str_printf(o, "    %s *__restrict__ out%u = (%s *)P.w[%u];\n", ty(n), i, ty(n), w++);
    }
}

/* The index of node j's own element: i (FULL), 0 (SCALAR) or from the coordinates (in a
 * vector step the innermost coordinate advances by e). */
static void emit_index_e(const cg_kernel_t *k, uint32_t j, base_str_t *o, bool with_e) {
    if (k->layout[j] == CG_FULL) {
        base_str_cat(o, "i");
    } else if (k->layout[j] == CG_SCALAR) {
        base_str_cat(o, "0");
    } else {
        base_str_cat(o, "(");
        for (int ax = 0; ax < k->ndim; ax++) {
            bool inner = ax == k->ndim - 1 && k->vec > 1 && with_e && k->layout[j] != CG_STRIDED_B;
            base_str_printf(o, "%s%sc%d%s * t%u_%d", ax ? " + " : "", inner ? "(" : "", ax,
                            inner ? " + e)" : "", j, ax);
        }
        base_str_cat(o, ")");
    }
}

static void emit_index(const cg_kernel_t *k, uint32_t j, base_str_t *o) {
    emit_index_e(k, j, o, true);
}

/* The body computing every node for element i; `vec` loads come from l<j>.v[e]. */
static void emit_body(const cg_kernel_t *k, base_str_t *o, const char *ind, bool vec) {
    for (uint32_t j = 0; j < k->n_nodes; j++) {
        const ir_node_t *n = node(k, j);
        if (n->op == IR_OP_CONST) continue; /* declared before the loop */
        base_str_printf(o, "%sconst %s v%u = ", ind, ty(n), j);
        uint32_t a = n->src[0], b = n->src[1], c = n->src[2];
        switch (n->op) {
            case IR_OP_INPUT:
                if (vec && (k->layout[j] == CG_FULL || k->layout[j] == CG_STRIDED_V)) {
                    base_str_printf(o, "l%u.v[e]", j);
                } else {
                    base_str_printf(o, "in%u[", j);
                    emit_index(k, j, o);
                    base_str_cat(o, "]");
                }
                break;
            case IR_OP_LOAD: /* the data operand at its own element plus the offset */
                base_str_printf(o, "in%u[(lm_i64)", pos(k, a, j));
                emit_index(k, pos(k, a, j), o);
                base_str_printf(o, " + v%u]", pos(k, b, j));
                break;
            case IR_OP_ARANGE:
            case IR_OP_LINSPACE:
            case IR_OP_EYE:
            case IR_OP_RAND_UNIFORM:
            case IR_OP_RAND_NORMAL: {
                base_str_t ix;
                base_str_init(&ix, o->al);
                emit_index(k, j, &ix);
                cg__emit_leaf_value(o, n, j, base_str_get(&ix));
                o->failed = o->failed || ix.failed;
                base_str_fini(&ix);
                break;
            }
            default: /* CAST, WHERE and the ops */
                cg__emit_elem(o, k->g, n, pos(k, a, j), pos(k, b, j), pos(k, c, j));
        }
        base_str_cat(o, ";\n");
    }
}

static void emit_coords(const cg_kernel_t *k, base_str_t *o, const char *first) {
    base_str_printf(o, "        LM_I r = %s;\n", first);
    for (int ax = k->ndim - 1; ax > 0; ax--) {
        if (k->idx64) {
            base_str_printf(o, "        const LM_I c%d = r %% e%d; r /= e%d;\n", ax, ax, ax);
            continue;
        }
        /* r / e by multiply-high and shift (exact for r < 2^31), r % e from the quotient */
        base_str_printf(o,
                        "        const LM_I q%d = e%d == 1 ? r : (LM_I)(__umulhi((unsigned)r, m%d) "
                        ">> s%d);\n",
                        ax, ax, ax, ax);
        base_str_printf(o, "        const LM_I c%d = r - q%d * e%d; r = q%d;\n", ax, ax, ax, ax);
    }
    if (k->ndim > 0) base_str_cat(o, "        const LM_I c0 = r;\n");
}

static void emit_stores(const cg_kernel_t *k, base_str_t *o, const char *ind, bool vec) {
    for (uint32_t i = 0; i < k->n_outs; i++) {
        uint32_t j = pos(k, k->outs[i], k->n_nodes);
        if (vec)
            base_str_printf(o, "%so%u.v[e] = v%u;\n", ind, i, j);
        else
            base_str_printf(o, "%sout%u[i] = v%u;\n", ind, i, j);
    }
}


void cg_kernel_source(const cg_kernel_t *k, base_str_t *out, char *name) {
    base_hash128_t key = cg_kernel_key(k);
    snprintf(name, 40, "loom_ew_%016llx", (unsigned long long)key.lo);
    base_str_t body;
    base_str_init(&body, out->al);
    base_str_t *o = &body;
    cg__emit_kernel_open(o, name, k->idx64, cg_kernel_n_params(k));
    base_str_printf(
        o, "extern \"C\" __global__ void __launch_bounds__(%d) %s(const lm_params_%s P) {\n", BLOCK,
        name, name);
    emit_params(k, o);
    base_str_cat(o, "    const LM_I step = (LM_I)gridDim.x * (LM_I)blockDim.x;\n");
    base_str_cat(o,
                 "    const LM_I tid = (LM_I)blockIdx.x * (LM_I)blockDim.x + (LM_I)threadIdx.x;\n");
    if (k->vec > 1) {
        /* One body per whole step of vec elements, with 16-byte loads and stores; when the
         * size is not a multiple of vec (k->tail, flat kernels only: a strided kernel
         * vectorises only when the inner extent is a multiple), the last n % vec elements
         * take one thread each after the loop.
         * unroll 1 keeps the loop as it was when every step tested for a partial one: NVVM
         * would otherwise unroll the now branch-free loop 4 times, doubling the code NVVM
         * and ptxas optimise (about a fifth of the compile of a small kernel). */
        int v = k->vec;
        base_str_printf(o, "    const LM_I nv = n / %d;\n", v);
        base_str_cat(o, "#pragma unroll 1\n    for (LM_I t = tid; t < nv; t += step) {\n");
        base_str_printf(o, "        const LM_I i0 = t * %d;\n", v);
        if (!k->flat) emit_coords(k, o, "i0");
        for (uint32_t j = 0; j < k->n_nodes; j++) {
            const ir_node_t *n = node(k, j);
            if (n->op != IR_OP_INPUT || (k->layout[j] != CG_FULL && k->layout[j] != CG_STRIDED_V))
                continue;
            base_str_printf(o,
                            "        const lm_vec<%s, %d> l%u = *(const lm_vec<%s, %d> *)(in%u + ",
                            ty(n), v, j, ty(n), v, j);
            if (k->layout[j] == CG_FULL)
                base_str_cat(o, "i0");
            else
                emit_index_e(k, j, o, false);
            base_str_cat(o, ");\n");
        }
        for (uint32_t i = 0; i < k->n_outs; i++)
            base_str_printf(o, "        lm_vec<%s, %d> o%u;\n", ty(&k->g->nodes[k->outs[i]]), v, i);
        base_str_printf(o, "#pragma unroll\n        for (int e = 0; e < %d; e++) {\n", v);
        base_str_cat(o, "            const LM_I i = i0 + e;\n            (void)i;\n");
        emit_body(k, o, "            ", true);
        emit_stores(k, o, "            ", true);
        base_str_cat(o, "        }\n");
        for (uint32_t i = 0; i < k->n_outs; i++)
            base_str_printf(o, "        *(lm_vec<%s, %d> *)(out%u + i0) = o%u;\n",
                            ty(&k->g->nodes[k->outs[i]]), v, i, i);
        base_str_cat(o, "    }\n");
        if (k->tail) {
            base_str_printf(o, "    if (tid < n - nv * %d) {\n", v);
            base_str_printf(o, "        const LM_I i = nv * %d + tid;\n", v);
            emit_body(k, o, "        ", false);
            emit_stores(k, o, "        ", false);
            base_str_cat(o, "    }\n");
        }
        base_str_cat(o, "}\n");
        goto done;
    }
    base_str_cat(o, "    for (LM_I i = tid; i < n; i += step) {\n");
    if (!k->flat) emit_coords(k, o, "i");
    emit_body(k, o, "        ", false);
    emit_stores(k, o, "        ", false);
    base_str_cat(o, "    }\n}\n");
done:
    cg__emit_finish(out, &body);
}
