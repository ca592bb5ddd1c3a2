/* reduce_emit.c — turns a reduction step's description (reduce.h) into kernels: the scratch
 * layout, structural keys, parameter words, launch shapes and the CUDA C text of each kernel
 * (K_MAIN, or the split kernels K_PARTIAL / K_COMBINE / K_FINAL, or K_FUSED). */
#include <stdio.h>
#include <string.h>

#include "reduce.h"

uint32_t cg_reduce_n_kernels(const cg_reduce_t *r) { return r->chunks > 1 && !r->fused ? 2 : 1; }

/* Scratch: per REDUCE node, chunks × n_out partial accumulators (ARG: values, then int64
 * indices), each region 16-byte aligned; fused steps add n_out for the combined results. */
static size_t region_bytes(const cg_reduce_t *r, size_t elem) {
    size_t b = (size_t)(r->chunks + r->fused) * (size_t)r->n_out * elem;
    return (b + 15) & ~(size_t)15;
}

/* Fused steps: the ticket counter and per output the count of its chunks done, after the
 * partial results; zero before every launch. */
static size_t counter_bytes(const cg_reduce_t *r) {
    return r->fused ? ((size_t)r->n_out + 1) * 4 * CTR_WORDS : 0;
}

size_t cg_reduce_scratch_bytes(const cg_reduce_t *r) {
    if (r->chunks <= 1) return 0;
    size_t total = counter_bytes(r);
    for (uint32_t j = 0; j < r->n_nodes; j++) {
        const ir_node_t *n = node(r, j);
        if (!is_reduce(n)) continue;
        if (is_arg(n)) {
            total += region_bytes(r, ir_dtypes[r->g->nodes[n->src[0]].dtype].size);
            total += region_bytes(r, 8);
        } else {
            total += region_bytes(r, ir_dtypes[acc_dtype(r->g, n)].size);
        }
    }
    return total;
}

bool cg_reduce_zeroed(const cg_reduce_t *r, size_t *offset, size_t *bytes) {
    *bytes = counter_bytes(r);
    *offset = cg_reduce_scratch_bytes(r) - *bytes;
    return *bytes > 0;
}

base_hash128_t cg_reduce_key(const cg_reduce_t *r, uint32_t i) {
    cg__key_t k;
    cg__key_init(&k, 0x6c6f7237); /* format of this generator; bump when the text changes */
    cg__key_put(&k, i);
    cg__key_put(&k, (uint32_t)r->nd | r->red << 8 | (uint32_t)r->idx64 << 24 |
                        (uint32_t)(r->chunks > 1) << 25 | (uint32_t)r->online << 26 |
                        (uint32_t)r->fused << 27 | (uint32_t)r->stash << 28);
    cg__key_put(&k, (uint32_t)r->lag | (uint32_t)r->lean << 16 | (uint32_t)r->stream << 17 |
                       (uint32_t)r->reread << 18);
    if (r->stash) cg__key_put(&k, (uint32_t)r->clen); /* the shared arrays' length */
    cg__key_put(&k, (uint32_t)r->group);
    cg__key_put(&k, (uint32_t)r->block);
    cg__key_put(&k, (uint32_t)r->vec | (uint32_t)r->items << 8);
    cg__key_put(&k, (uint32_t)r->group2);
    cg__key_put(&k, (uint32_t)r->n_stages | (uint32_t)r->n_passes << 8);
    cg__key_put(&k, r->n_nodes);
    cg__key_put(&k, r->n_outs);
    for (uint32_t j = 0; j < r->n_nodes; j++) {
        const ir_node_t *n = node(r, j);
        cg__key_put(&k, n->op | (uint32_t)n->dtype << 16 | (uint32_t)r->space[j] << 24);
        cg__key_put(&k, (uint32_t)r->stage[j] | (uint32_t)r->cached[j] << 8);
        for (int s = 0; s < ir_ops[n->op].arity; s++) cg__key_put(&k, pos(r, n->src[s]));
        for (int p = 0; p < r->n_passes; p++) cg__key_put(&k, r->need[(size_t)p * r->n_nodes + j]);
    }
    for (uint32_t o = 0; o < r->n_outs; o++)
        cg__key_put(&k, pos(r, r->outs[o]) | (uint32_t)r->xout[o] << 31);
    return cg__key_done(&k);
}

/* ---- Parameters ---- */

static uint32_t n_regions(const cg_reduce_t *r) {
    uint32_t w = 0;
    if (r->chunks > 1)
        for (uint32_t j = 0; j < r->n_nodes; j++)
            if (is_reduce(node(r, j))) w += is_arg(node(r, j)) ? 2 : 1;
    return w;
}

uint32_t cg_reduce_n_params(const cg_reduce_t *r, uint32_t i) {
    (void)i; /* every kernel of the step takes the same words */
    uint32_t w = 4 + 2 * (uint32_t)r->nd;
    for (uint32_t j = 0; j < r->n_nodes; j++) {
        const ir_node_t *n = node(r, j);
        if (n->op == IR_OP_INPUT) w += 1 + (uint32_t)r->nd;
        if (n->op == IR_OP_CONST) w += 1;
        if (n->op != IR_OP_INPUT && cg__strided(n)) w += cg__leaf_n_words(n) + (uint32_t)r->nd;
    }
    return w + r->n_outs + n_regions(r) + r->fused + (r->chunks <= 1);
}

bool cg_reduce_reversible(const cg_reduce_t *r) {
    /* One kernel, whose grid has a block per output block (launch shape: at most 2^30). Threads
     * past the last output leave the grid-stride loop (break in emit_task): in reverse order
     * the partial last block comes first, so with fewer blocks than output blocks they would
     * skip the output blocks still to come. */
    int64_t rows = r->block / r->group;
    return r->chunks <= 1 && (r->n_out + rows - 1) / rows <= MAX_GRID;
}

void cg_reduce_params(const cg_reduce_t *r, uint32_t i, const uint64_t *input_addr,
                      const uint64_t *out_addr, uint64_t scratch, bool reverse, uint64_t *w) {
    (void)i;
    uint32_t n = 0;
    w[n++] = (uint64_t)r->n_out;
    w[n++] = (uint64_t)r->count;
    w[n++] = (uint64_t)r->clen;
    w[n++] = (uint64_t)r->chunks;
    for (int ax = 0; ax < r->nd; ax++) w[n++] = (uint64_t)r->shape[ax];
    for (int ax = 0; ax < r->nd; ax++) w[n++] = (uint64_t)r->xstr[ax];
    for (uint32_t j = 0; j < r->n_nodes; j++) {
        const ir_node_t *nd = node(r, j);
        if (nd->op == IR_OP_INPUT) {
            const ir_input_t *in = &r->g->inputs[nd->input];
            w[n++] =
                input_addr[nd->input] + (uint64_t)(in->offset * (int64_t)ir_dtypes[nd->dtype].size);
            for (int ax = 0; ax < r->nd; ax++) w[n++] = (uint64_t)r->strides[j][ax];
        } else if (nd->op == IR_OP_CONST) {
            w[n++] = nd->p.bits;
        } else if (cg__strided(nd)) { /* generators */
            n += cg__leaf_words(nd, w + n);
            for (int ax = 0; ax < r->nd; ax++) w[n++] = (uint64_t)r->strides[j][ax];
        }
    }
    for (uint32_t o = 0; o < r->n_outs; o++) w[n++] = out_addr[o];
    if (r->chunks > 1) {
        uint64_t at = scratch;
        for (uint32_t j = 0; j < r->n_nodes; j++) {
            const ir_node_t *nd = node(r, j);
            if (!is_reduce(nd)) continue;
            if (is_arg(nd)) {
                w[n++] = at;
                at += region_bytes(r, ir_dtypes[r->g->nodes[nd->src[0]].dtype].size);
                w[n++] = at;
                at += region_bytes(r, 8);
            } else {
                w[n++] = at;
                at += region_bytes(r, ir_dtypes[acc_dtype(r->g, nd)].size);
            }
        }
        if (r->fused) w[n++] = at; /* the counters */
    }
    if (r->chunks <= 1) w[n++] = reverse;
}

uint32_t cg_reduce_block_threads(const cg_reduce_t *r, uint32_t i) {
    return i == 0 || r->online ? (uint32_t)r->block : COMBINE_BLOCK;
}

void cg_reduce_launch_shape(const cg_reduce_t *r, uint32_t i, int sm_count, int blocks_per_sm,
                            uint32_t grid[3], uint32_t block[3], uint32_t *smem) {
    int g = i == 0 || r->online ? r->group : r->group2;
    int b = (int)cg_reduce_block_threads(r, i);
    int64_t rows = b / g; /* outputs per block */
    int64_t blocks = (r->n_out + rows - 1) / rows;
    grid[0] = (uint32_t)(blocks < 1 ? 1 : blocks > MAX_GRID ? MAX_GRID : blocks);
    grid[1] = r->chunks > 1 && (i == 0 || online_xouts(r)) ? (uint32_t)r->chunks : 1;
    if (r->fused) { /* resident blocks taking tickets: every chunk twice (stash: once) */
        int64_t want = (int64_t)FUSED_BLOCKS * cg__sms(sm_count), all = 2 * r->n_out * r->chunks;
        if (r->stash) { /* resident blocks only: a task waits for its row's other chunks */
            want = (int64_t)(blocks_per_sm > 0 ? blocks_per_sm : STASH_BLOCKS) * cg__sms(sm_count);
            all = r->n_out * r->chunks;
        }
        grid[0] = (uint32_t)(want < all ? want : all);
        grid[1] = 1;
    }
    grid[2] = 1;
    block[0] = (uint32_t)b;
    block[1] = block[2] = 1;
    *smem = 0; /* the cross-warp slots are static shared memory */
}

/* ---- Source ---- */

static const char *ty(loom_dtype_t d) { return ir_dtypes[d].ctype; }
static const char *sfx(loom_dtype_t d) { return ir_dtypes[d].sfx; }
static loom_dtype_t dt(const ir_node_t *n) { return (loom_dtype_t)n->dtype; }

/* The lowest (MAX) or highest (MIN) value of d: the identity of maximum / minimum. */
static const char *extreme(loom_dtype_t d, bool lowest) {
    switch (d) {
        case LOOM_DTYPE_BOOL:
            return lowest ? "(lm_b)0" : "(lm_b)1";
        case LOOM_DTYPE_I8:
            return lowest ? "(lm_i8)-128" : "(lm_i8)127";
        case LOOM_DTYPE_I16:
            return lowest ? "(lm_i16)-32768" : "(lm_i16)32767";
        case LOOM_DTYPE_I32:
            return lowest ? "(lm_i32)(-2147483647 - 1)" : "(lm_i32)2147483647";
        case LOOM_DTYPE_I64:
            return lowest ? "(lm_i64)(-9223372036854775807ll - 1)"
                          : "(lm_i64)9223372036854775807ll";
        case LOOM_DTYPE_U8:
            return lowest ? "(lm_u8)0" : "(lm_u8)255";
        case LOOM_DTYPE_U16:
            return lowest ? "(lm_u16)0" : "(lm_u16)65535";
        case LOOM_DTYPE_U32:
            return lowest ? "(lm_u32)0" : "(lm_u32)0xffffffffu";
        case LOOM_DTYPE_U64:
            return lowest ? "(lm_u64)0" : "(lm_u64)0xffffffffffffffffull";
        case LOOM_DTYPE_F16:
            return lowest ? "(lm_f16)0xfc00u" : "(lm_f16)0x7c00u";
        case LOOM_DTYPE_BF16:
            return lowest ? "(lm_bf16)0xff80u" : "(lm_bf16)0x7f80u";
        case LOOM_DTYPE_F32:
            return lowest ? "__uint_as_float(0xff800000u)" : "__uint_as_float(0x7f800000u)";
        default:
            return lowest ? "__longlong_as_double((long long)0xfff0000000000000ull)"
                          : "__longlong_as_double(0x7ff0000000000000ll)";
    }
}

/* The identity a REDUCE node's accumulator starts from. */
static void emit_identity(const cg_reduce_t *r, const ir_node_t *n, base_str_t *o) {
    loom_dtype_t a = acc_dtype(r->g, n);
    if (ir_is_complex(a)) { /* sum, prod, and the lexicographic max and min */
        if (n->op == IR_OP_MAX || n->op == IR_OP_MIN)
            base_str_printf(o, "lm__mk_%s(%s, %s)", sfx(a),
                            extreme(ir_real_dtype(a), n->op == IR_OP_MAX),
                            extreme(ir_real_dtype(a), n->op == IR_OP_MAX));
        else
            base_str_printf(o, "lm__mk_%s(%d, 0)", sfx(a), n->op == IR_OP_PROD);
        return;
    }
    switch (n->op) {
        case IR_OP_SUM:
        case IR_OP_ANY:
            base_str_printf(o, "(%s)0", ty(a));
            break;
        case IR_OP_PROD:
        case IR_OP_ALL:
            base_str_printf(o, "(%s)1", ty(a));
            break;
        case IR_OP_MAX:
            base_str_cat(o, extreme(a, true));
            break;
        case IR_OP_MIN:
            base_str_cat(o, extreme(a, false));
            break;
        default:
            base_str_printf(o, "(%s)0", ty(a));
            break;
    }
}

/* acc = combine(acc, x) for accumulator `acc` of node n; x in the accumulator dtype (ARG:
 * value x, index xi). */
static void emit_combine(const cg_reduce_t *r, const ir_node_t *n, const char *acc, const char *x,
                         const char *xi, base_str_t *o, const char *ind) {
    loom_dtype_t a = acc_dtype(r->g, n);
    const char *fn = n->op == IR_OP_SUM    ? "add"
                     : n->op == IR_OP_PROD ? "multiply"
                     : n->op == IR_OP_MAX  ? "maximum"
                     : n->op == IR_OP_MIN  ? "minimum"
                     : n->op == IR_OP_ANY  ? "logical_or"
                     : n->op == IR_OP_ALL  ? "logical_and"
                                           : NULL;
    if (fn)
        base_str_printf(o, "%s%s = lm_%s_%s(%s, %s);\n", ind, acc, fn, sfx(a), acc, x);
    else
        base_str_printf(o, "%slmr_%s_%s(%sv, %si, %s, %s);\n", ind, ir_ops[n->op].name, sfx(a), acc,
                        acc, x, xi);
}

/* Shuffles, and the arg step of every ARG node's dtype (once each). */
static void emit_helpers(const cg_reduce_t *r, base_str_t *o) {
    if (r->fused) /* partial results other blocks wrote: from L2, not a stale L1 line */
        base_str_cat(o, "template <typename T> static __device__ __forceinline__ T lmr_cg(const T *p) {\n"
                        "    return *(const volatile T *)p;\n"
                        "}\n");
    if (r->fused || r->stream) { /* evict-first loads and stores of whole vectors */
        base_str_cat(o,
                     "template <typename V> static __device__ __forceinline__ V lmr_ldcs(const V *p) {\n"
                     "    V v;\n"
                     "    if constexpr (sizeof(V) == 16) *(uint4 *)&v = __ldcs((const uint4 *)p);\n"
                     "    else if constexpr (sizeof(V) == 8) *(uint2 *)&v = __ldcs((const uint2 *)p);\n"
                     "    else if constexpr (sizeof(V) == 4) *(unsigned *)&v = __ldcs((const unsigned *)p);\n"
                     "    else v = *p;\n"
                     "    return v;\n"
                     "}\n"
                     "template <typename V> static __device__ __forceinline__ void lmr_stcs(V *p, const V &v) {\n"
                     "    if constexpr (sizeof(V) == 16) __stcs((uint4 *)p, *(const uint4 *)&v);\n"
                     "    else if constexpr (sizeof(V) == 8) __stcs((uint2 *)p, *(const uint2 *)&v);\n"
                     "    else if constexpr (sizeof(V) == 4) __stcs((unsigned *)p, *(const unsigned *)&v);\n"
                     "    else *p = v;\n"
                     "}\n");
    }
    /* a load that keeps its line in L2 (evict_last) for the row's next pass (whole vectors of
     * 4-byte elements: 8 or 16 bytes) */
    if (r->reread)
        base_str_cat(
            o, "template <typename V>\n"
               "static __device__ __forceinline__ V lmr_ldkeep(const V *p, lm_u64 pol) {\n"
               "#if __CUDA_ARCH__ >= 800\n"
               "    if constexpr (sizeof(V) == 16) {\n"
               "        uint4 u;\n"
               "        asm volatile(\"ld.global.L2::cache_hint.v4.u32 \"\n"
               "                     \"{%0, %1, %2, %3}, [%4], %5;\"\n"
               "                     : \"=r\"(u.x), \"=r\"(u.y), \"=r\"(u.z), \"=r\"(u.w)\n"
               "                     : \"l\"(p), \"l\"(pol));\n"
               "        return *(const V *)&u;\n"
               "    }\n"
               "    if constexpr (sizeof(V) == 8) {\n"
               "        uint2 u;\n"
               "        asm volatile(\"ld.global.L2::cache_hint.v2.u32 {%0, %1}, [%2], %3;\"\n"
               "                     : \"=r\"(u.x), \"=r\"(u.y) : \"l\"(p), \"l\"(pol));\n"
               "        return *(const V *)&u;\n"
               "    }\n"
               "#endif\n"
               "    (void)pol;\n"
               "    return *p;\n"
               "}\n");
    /* __shfl_*_sync has overloads for every 4- and 8-byte type; narrower ones widen. */
    base_str_cat(
        o, "template <typename T> static __device__ __forceinline__ T lmr_down(T v, int m, "
           "int w) {\n"
           "    if constexpr (sizeof(T) >= 4) return __shfl_down_sync(0xffffffffu, v, m, w);\n"
           "    else return (T)__shfl_down_sync(0xffffffffu, (int)v, m, w);\n"
           "}\n"
           "template <typename T> static __device__ __forceinline__ T lmr_xor(T v, int m, int w) {\n"
           "    if constexpr (sizeof(T) >= 4) return __shfl_xor_sync(0xffffffffu, v, m, w);\n"
           "    else return (T)__shfl_xor_sync(0xffffffffu, (int)v, m, w);\n"
           "}\n"
           "template <typename T> static __device__ __forceinline__ T lmr_first(T v, int w) {\n"
           "    if constexpr (sizeof(T) >= 4) return __shfl_sync(0xffffffffu, v, 0, w);\n"
           "    else return (T)__shfl_sync(0xffffffffu, (int)v, 0, w);\n"
           "}\n");
    /* complex accumulators: each part on its own */
    for (loom_dtype_t c = LOOM_DTYPE_C64; c <= LOOM_DTYPE_C128; c++) {
        bool used = false;
        for (uint32_t j = 0; j < r->n_nodes; j++)
            used = used || (ir_ops[node(r, j)->op].kind == IR_KIND_REDUCE &&
                            acc_dtype(r->g, node(r, j)) == c);
        if (!used) continue;
        const char *t = ty(c), *s = sfx(c);
        base_str_printf(o,
                        "static __device__ __forceinline__ %s lmr_down(%s v, int m, int w) {\n"
                        "    return lm__mk_%s(__shfl_down_sync(0xffffffffu, v.re, m, w),\n"
                        "                     __shfl_down_sync(0xffffffffu, v.im, m, w));\n"
                        "}\n"
                        "static __device__ __forceinline__ %s lmr_xor(%s v, int m, int w) {\n"
                        "    return lm__mk_%s(__shfl_xor_sync(0xffffffffu, v.re, m, w),\n"
                        "                     __shfl_xor_sync(0xffffffffu, v.im, m, w));\n"
                        "}\n"
                        "static __device__ __forceinline__ %s lmr_first(%s v, int w) {\n"
                        "    return lm__mk_%s(__shfl_sync(0xffffffffu, v.re, 0, w),\n"
                        "                     __shfl_sync(0xffffffffu, v.im, 0, w));\n"
                        "}\n",
                        t, t, s, t, t, s, t, t, s);
    }
    bool done[2][LOOM_DTYPE_COUNT] = {{false}};
    for (uint32_t j = 0; j < r->n_nodes; j++) {
        const ir_node_t *n = node(r, j);
        if (!is_arg(n)) continue;
        loom_dtype_t d = dt(&r->g->nodes[n->src[0]]);
        int mx = n->op == IR_OP_ARGMAX;
        if (done[mx][d]) continue;
        done[mx][d] = true;
        const char *better = mx ? "greater" : "less";
        /* The better of two candidates (value, flat index; index < 0: none): NaN first, then
         * the better value, then the smaller index, so the order of combining is free. */
        base_str_printf(
            o,
            "static __device__ __forceinline__ void lmr_%s_%s(%s &av, lm_i64 &ai, %s v, "
            "lm_i64 i) {\n"
            "    if (i < 0) return;\n"
            "    bool take;\n"
            "    const bool na = lm_isnan_%s(av), nb = lm_isnan_%s(v);\n"
            "    if (ai < 0) take = true;\n"
            "    else if (na || nb) take = nb && (!na || i < ai);\n"
            "    else if (lm_%s_%s(v, av)) take = true;\n"
            "    else if (lm_%s_%s(av, v)) take = false;\n"
            "    else take = i < ai;\n"
            "    if (take) {\n"
            "        av = v;\n"
            "        ai = i;\n"
            "    }\n"
            "}\n",
            ir_ops[n->op].name, sfx(d), ty(d), ty(d), sfx(d), sfx(d), better, sfx(d), better,
            sfx(d));
    }
    bool odone[LOOM_DTYPE_COUNT] = {false};
    for (uint32_t k = 0; k < r->n_nodes; k++) {
        uint32_t j = online_sum(r, k);
        if (j == NO_NODE) continue;
        loom_dtype_t d = dt(node(r, k)), a = acc_dtype(r->g, node(r, j));
        if (odone[d]) continue;
        odone[d] = true;
        char fi[48], fm[48];
        if (a == d) {
            snprintf(fi, sizeof fi, "mi");
            snprintf(fm, sizeof fm, "m");
        } else {
            snprintf(fi, sizeof fi, "lm_cast_%s_%s(mi)", sfx(d), sfx(a));
            snprintf(fm, sizeof fm, "lm_cast_%s_%s(m)", sfx(d), sfx(a));
        }
        /* s, a sum of exp(x - mi), as a sum of exp(x - m) for m = max(mi, ...): s itself
         * where m = mi (so a max of +-inf keeps its sum), else s * exp(mi - m) (0 for mi =
         * -inf, whose sum is 0 anyway). A NaN max never compares equal, so it makes the sum
         * NaN, as the reference's exp(x - NaN) does. */
        base_str_printf(o,
                        "static __device__ __forceinline__ %s lmr_oterm_%s(%s s, %s mi, %s m) {\n"
                        "    const %s fi = %s, fm = %s;\n"
                        "    if (fi == fm) return s;\n"
                        "    return lm_multiply_%s(s, lm_exp_%s(lm_subtract_%s(fi, fm)));\n"
                        "}\n",
                        ty(a), sfx(d), ty(a), ty(d), ty(d), ty(a), fi, fm, sfx(a), sfx(a), sfx(a));
        /* Kernel 0's element loop, without a branch (one there would keep the compiler
         * from issuing the next vector loads before this step's arithmetic): s rescaled
         * from max mi to m >= mi; under the max -inf the sum is 0 (its terms are taken as
         * exp(-inf - 0), lmr_oeff), so exp(-inf - m) = 0 rescales it right. */
        base_str_printf(o,
                        "static __device__ __forceinline__ %s lmr_oscale_%s(%s s, %s mi, %s m) {\n"
                        "    const %s fi = %s, fm = %s;\n"
                        "    return lm_multiply_%s(s, lm_exp_%s(fi == fm ? (%s)0 : "
                        "lm_subtract_%s(fi, fm)));\n"
                        "}\n",
                        ty(a), sfx(d), ty(a), ty(d), ty(d), ty(a), fi, fm, sfx(a), sfx(a), ty(a),
                        sfx(a));
        /* The max the terms exp(x - m) read: 0 for -inf, so that a chunk of -inf sums to 0
         * (the NaN of an all -inf row comes back in lmr_ofin). */
        base_str_printf(o,
                        "static __device__ __forceinline__ %s lmr_oeff_%s(%s m) {\n"
                        "    return %s == %s ? (%s)0 : m;\n"
                        "}\n",
                        ty(d), sfx(d), ty(d), a == d ? "m" : fm, extreme(a, true), ty(d));
        /* The row's sum: NaN where the max is -inf (every element -inf: the reference's
         * exp(-inf - -inf) terms), else s. */
        base_str_printf(o,
                        "static __device__ __forceinline__ %s lmr_ofin_%s(%s s, %s m) {\n"
                        "    return %s == %s ? %s : s;\n"
                        "}\n",
                        ty(a), sfx(d), ty(a), ty(d), a == d ? "m" : fm, extreme(a, true),
                        a == LOOM_DTYPE_F64 ? "__longlong_as_double(0x7ff8000000000000ll)"
                                            : "__uint_as_float(0x7fc00000u)");
        /* (m, s) combined with (m2, s2): the larger max, both sums rescaled to it. */
        base_str_printf(o,
                        "static __device__ __forceinline__ void lmr_opair_%s(%s &m, %s &s, %s m2, "
                        "%s s2) {\n"
                        "    const %s n = lm_maximum_%s(m, m2);\n"
                        "    s = lm_add_%s(lmr_oterm_%s(s, m, n), lmr_oterm_%s(s2, m2, n));\n"
                        "    m = n;\n"
                        "}\n",
                        sfx(d), ty(d), ty(a), ty(d), ty(a), ty(d), sfx(d), sfx(a), sfx(d), sfx(d));
    }
}

static void emit_params(const cg_reduce_t *r, base_str_t *o) {
    uint32_t w = 4;
    base_str_cat(o, "    const LM_I n_out = (LM_I)P.w[0];\n");
    base_str_cat(o, "    const LM_I count = (LM_I)P.w[1];\n");
    base_str_cat(o, "    const LM_I clen = (LM_I)P.w[2];\n");
    base_str_cat(o, "    const LM_I nch = (LM_I)P.w[3];\n");
    base_str_cat(o, "    (void)count, (void)clen, (void)nch;\n");
    for (int ax = 0; ax < r->nd; ax++)
        base_str_printf(o, "    const LM_I e%d = (LM_I)P.w[%u];\n", ax, w++);
    for (int ax = 0; ax < r->nd; ax++)
        base_str_printf(o, "    const LM_I xs%d = (LM_I)P.w[%u];\n", ax, w++);
    for (int ax = 0; ax < r->nd; ax++) base_str_printf(o, "    (void)e%d, (void)xs%d;\n", ax, ax);
    for (uint32_t j = 0; j < r->n_nodes; j++) {
        const ir_node_t *n = node(r, j);
        if (n->op == IR_OP_INPUT) {
            base_str_printf(o, "    const %s *__restrict__ in%u = (const %s *)P.w[%u];\n",
                            ty(dt(n)), j, ty(dt(n)), w++);
            for (int ax = 0; ax < r->nd; ax++)
                base_str_printf(o, "    const LM_I t%u_%d = (LM_I)(lm_i64)P.w[%u];\n", j, ax, w++);
        } else if (n->op == IR_OP_CONST) {
            base_str_printf(o, "    const %s v%u = lm_word_%s(P.w[%u]);\n", ty(dt(n)), j,
                            sfx(dt(n)), w++);
        } else if (cg__strided(n)) { /* generators */
            cg__emit_leaf_decls(o, n, j, &w);
            for (int ax = 0; ax < r->nd; ax++)
                base_str_printf(o, "    const LM_I t%u_%d = (LM_I)(lm_i64)P.w[%u];\n", j, ax, w++);
        }
    }
    for (uint32_t i = 0; i < r->n_outs; i++) {
        const ir_node_t *n = &r->g->nodes[r->outs[i]];
        base_str_printf(o, "    %s *__restrict__ out%u = (%s *)P.w[%u];\n", ty(dt(n)), i, ty(dt(n)),
                        w++);
    }
    if (r->chunks > 1)
        for (uint32_t j = 0; j < r->n_nodes; j++) {
            const ir_node_t *n = node(r, j);
            if (!is_reduce(n)) continue;
            if (is_arg(n)) {
                loom_dtype_t d = dt(&r->g->nodes[n->src[0]]);
                base_str_printf(o, "    %s *__restrict__ p%uv = (%s *)P.w[%u];\n", ty(d), j, ty(d),
                                w++);
                base_str_printf(o, "    lm_i64 *__restrict__ p%ui = (lm_i64 *)P.w[%u];\n", j, w++);
            } else {
                loom_dtype_t a = acc_dtype(r->g, n);
                base_str_printf(o, "    %s *__restrict__ p%u = (%s *)P.w[%u];\n", ty(a), j, ty(a),
                                w++);
            }
        }
    if (r->fused) base_str_printf(o, "    unsigned *__restrict__ lmf_ctr = (unsigned *)P.w[%u];\n", w++);
    if (r->chunks <= 1) /* the blocks take their outputs in reverse order */
        base_str_printf(o, "    const bool lm_rev = P.w[%u] != 0;\n", w++);
}

/* Sum over the axes in `set` of coordinate <c><ax> times stride <s><ax>, or "0". */
static void emit_offset(const cg_reduce_t *r, uint32_t set, const char *c, const char *s,
                        base_str_t *o) {
    bool any = false;
    for (int ax = 0; ax < r->nd; ax++)
        if ((set >> ax) & 1u) {
            base_str_printf(o, "%s%s%d * %s%d", any ? " + " : "", c, ax, s, ax);
            any = true;
        }
    if (!any) base_str_cat(o, "0");
}

/* Coordinates <c><ax> of flat index `flat` over the axes in `set` (C order). */
static void emit_coords(const cg_reduce_t *r, uint32_t set, const char *flat, const char *c,
                        base_str_t *o, const char *ind) {
    int last = -1, first = -1;
    for (int ax = 0; ax < r->nd; ax++)
        if ((set >> ax) & 1u) {
            if (first < 0) first = ax;
            last = ax;
        }
    if (first < 0) return;
    if (first == last) {
        base_str_printf(o, "%sconst LM_I %s%d = %s;\n", ind, c, first, flat);
        return;
    }
    base_str_printf(o, "%sLM_I q%s = %s;\n", ind, c, flat);
    for (int ax = last; ax > first; ax--)
        if ((set >> ax) & 1u)
            base_str_printf(o, "%sconst LM_I %s%d = q%s %% e%d; q%s /= e%d;\n", ind, c, ax, c, ax,
                            c, ax);
    base_str_printf(o, "%sconst LM_I %s%d = q%s;\n", ind, c, first, c);
}

/* Y-space nodes of stage `st` (row level: every thread of the group computes them). */
static void emit_y_nodes(const cg_reduce_t *r, int st, base_str_t *o, const char *ind) {
    for (uint32_t j = 0; j < r->n_nodes; j++) {
        const ir_node_t *n = node(r, j);
        if (r->space[j] != SP_Y || r->stage[j] != st || is_reduce(n) || n->op == IR_OP_CONST)
            continue;
        base_str_printf(o, "%sconst %s v%u = ", ind, ty(dt(n)), j);
        if (n->op == IR_OP_INPUT) {
            base_str_printf(o, "in%u[k%u]", j, j);
        } else if (n->op == IR_OP_LOAD) {
            base_str_printf(o, "in%u[(lm_i64)k%u + v%u]", pos(r, n->src[0]), pos(r, n->src[0]),
                            pos(r, n->src[1]));
        } else if (cg__strided(n)) {
            char ix[16];
            snprintf(ix, sizeof ix, "k%u", j);
            cg__emit_leaf_value(o, n, j, ix);
        } else {
            cg__emit_elem(o, r->g, n, pos(r, n->src[0]), pos(r, n->src[1]), pos(r, n->src[2]));
        }
        base_str_cat(o, ";\n");
    }
}

/* The accumulators of the REDUCE nodes finished by pass p. */
static void emit_acc_decls(const cg_reduce_t *r, int p, base_str_t *o, const char *ind) {
    for (uint32_t j = 0; j < r->n_nodes; j++) {
        const ir_node_t *n = node(r, j);
        if (!is_reduce(n) || fin(r, j) != p) continue;
        if (is_arg(n)) {
            loom_dtype_t d = dt(&r->g->nodes[n->src[0]]);
            if (ir_is_complex(d)) /* (the value is unread while the index is -1) */
                base_str_printf(o, "%s%s a%uv = lm__mk_%s(0, 0);\n", ind, ty(d), j, sfx(d));
            else
                base_str_printf(o, "%s%s a%uv = (%s)0;\n", ind, ty(d), j, ty(d));
            base_str_printf(o, "%slm_i64 a%ui = -1;\n", ind, j);
        } else {
            base_str_printf(o, "%s%s a%u = ", ind, ty(acc_dtype(r->g, n)), j);
            emit_identity(r, n, o);
            base_str_cat(o, ";\n");
        }
    }
}

/* The element index of strided node j (INPUT or generator) at reduced element r: its row's
 * k<j> plus the reduced coordinates times its strides. */
static void emit_x_index(const cg_reduce_t *r, uint32_t j, bool paren, base_str_t *o) {
    uint32_t red = r->red;
    base_str_printf(o, "%sk%u + ", paren ? "(" : "", j);
    if (__builtin_popcount(red) > 1) {
        char s[16];
        snprintf(s, sizeof s, "t%u_", j);
        base_str_cat(o, "(");
        emit_offset(r, red, "rc", s, o);
        base_str_cat(o, ")");
    } else if (red) {
        base_str_printf(o, "r * t%u_%d", j, __builtin_ctz(red));
    } else {
        base_str_cat(o, "0");
    }
    if (paren) base_str_cat(o, ")");
}

/* The X-space nodes pass p needs of stages lo..hi, in order (element r of vec step t). */
static void emit_x_nodes(const cg_reduce_t *r, int p, base_str_t *o, const char *in2,
                         const char *it, uint8_t lo, uint8_t hi) {
    const uint8_t *need = r->need + (size_t)p * r->n_nodes;
    int V = r->vec;
    for (uint32_t j = 0; j < r->n_nodes; j++) {
        const ir_node_t *n = node(r, j);
        if (!need[j] || r->space[j] != SP_X || r->stage[j] < lo || r->stage[j] > hi) continue;
        base_str_printf(o, "%sconst %s v%u = ", in2, ty(dt(n)), j);
        if (need[j] == 2) {
            base_str_printf(o, "c%u[%s].v[e]", j, it);
        } else if (n->op == IR_OP_INPUT && V > 1) {
            base_str_printf(o, "l%u.v[e]", j);
        } else if (n->op == IR_OP_INPUT) {
            base_str_printf(o, "in%u[", j);
            emit_x_index(r, j, false, o);
            base_str_cat(o, "]");
        } else if (n->op == IR_OP_LOAD) { /* (vector_width: 1 with any in X) */
            uint32_t d = pos(r, n->src[0]);
            base_str_printf(o, "in%u[(lm_i64)", d);
            emit_x_index(r, d, true, o);
            base_str_printf(o, " + v%u]", pos(r, n->src[1]));
        } else if (cg__strided(n)) {
            base_str_t ix;
            base_str_init(&ix, o->al);
            emit_x_index(r, j, true, &ix);
            cg__emit_leaf_value(o, n, j, base_str_get(&ix));
            o->failed = o->failed || ix.failed;
            base_str_fini(&ix);
        } else {
            cg__emit_elem(o, r->g, n, pos(r, n->src[0]), pos(r, n->src[1]), pos(r, n->src[2]));
        }
        base_str_cat(o, ";\n");
        if (r->cached[j] == p + 1) base_str_printf(o, "%sc%u[%s].v[e] = v%u;\n", in2, j, it, j);
    }
}

/* Accumulates the element into the REDUCE nodes finished by pass p (the online sums alone,
 * or all but them). */
static void emit_accumulate(const cg_reduce_t *r, int p, base_str_t *o, const char *in2,
                            bool online_sums) {
    for (uint32_t j = 0; j < r->n_nodes; j++) {
        const ir_node_t *n = node(r, j);
        if (!is_reduce(n) || fin(r, j) != p || (online_max(r, j) != NO_NODE) != online_sums)
            continue;
        uint32_t s = pos(r, n->src[0]);
        loom_dtype_t d = dt(node(r, s)), a = acc_dtype(r->g, n);
        char acc[24], x[64];
        snprintf(acc, sizeof acc, "a%u", j);
        if (a == d)
            snprintf(x, sizeof x, "v%u", s);
        else
            snprintf(x, sizeof x, "lm_cast_%s_%s(v%u)", sfx(d), sfx(a), s);
        emit_combine(r, n, acc, x, "(lm_i64)r", o, in2);
    }
}

/* Stores the element of the X outputs pass p writes. */
static void emit_x_outputs(const cg_reduce_t *r, int p, base_str_t *o, const char *in2) {
    uint32_t red = r->red;
    for (uint32_t i = 0; i < r->n_outs; i++) { /* X outputs of this pass */
        uint32_t j = pos(r, r->outs[i]);
        if (!r->xout[i] || xpass(r, i) != p) continue;
        if (r->vec > 1) {
            base_str_printf(o, "%sw%u.v[e] = v%u;\n", in2, i, j);
        } else {
            base_str_printf(o, "%sif (live) out%u[kx + ", in2, i);
            if (__builtin_popcount(red) > 1) {
                base_str_cat(o, "(");
                emit_offset(r, red, "rc", "xs", o);
                base_str_cat(o, ")");
            } else if (red) {
                base_str_printf(o, "r * xs%d", __builtin_ctz(red));
            } else {
                base_str_cat(o, "0");
            }
            base_str_printf(o, "] = v%u;\n", j);
        }
    }
}

/* One pass's element loop body (element r = t * VEC + e of vec step t). */
static void emit_elements(const cg_reduce_t *r, int p, base_str_t *o, const char *ind,
                          const char *it) {
    const uint8_t *need = r->need + (size_t)p * r->n_nodes;
    uint32_t red = r->red;
    int V = r->vec;
    /* fused steps' output pass: the last read of its chunk and a store nothing re-reads
     * (evict first, so L2 keeps the chunks still to be re-read) */
    bool last = r->fused && p == r->n_passes - 1;
    bool ef_store = last || r->stream; /* evict-first stores */
    char in2[64];
    snprintf(in2, sizeof in2, "%s    ", ind);
    for (uint32_t j = 0; j < r->n_nodes; j++) { /* vector loads */
        const ir_node_t *n = node(r, j);
        if (!(V > 1 && n->op == IR_OP_INPUT && r->space[j] == SP_X && need[j] == 1)) continue;
        bool kept = r->stash && stashed(r, j); /* stash: loaded once, by the chunk pass */
        if (kept && p == r->n_passes - 1) {
            base_str_printf(o, "%sconst lm_vec<%s, %d> l%u = lmx%u[t - tb];\n", ind, ty(dt(n)), V,
                            j, j);
            continue;
        }
        /* re-read rows: the input stays in L2 from its first read to its last */
        int final = -1;
        for (int q = 0; q < r->n_passes && r->reread; q++)
            if (r->need[(size_t)q * r->n_nodes + j] == 1) final = q;
        bool keep = r->reread && p < final;
        /* evict-first: read once, or for the last time */
        bool ef = last || kept || (r->stream && r->cached[j]) || (r->reread && p == final);
        const char *ld = keep ? "lmr_ldkeep(" : ef ? "lmr_ldcs(" : "*";
        base_str_printf(o, "%sconst lm_vec<%s, %d> l%u = %s(const lm_vec<%s, %d> *)(in%u + k%u + "
                           "t * %d)%s;\n",
                        ind, ty(dt(n)), V, j, ld, ty(dt(n)), V, j, j, V,
                        keep ? ", lm_keep)" : ef ? ")" : "");
        if (kept) base_str_printf(o, "%slmx%u[t - tb] = l%u;\n", ind, j, j);
    }
    for (uint32_t i = 0; i < r->n_outs; i++)
        if (V > 1 && r->xout[i] && xpass(r, i) == p)
            base_str_printf(o, "%slm_vec<%s, %d> w%u;\n", ind, ty(dt(&r->g->nodes[r->outs[i]])), V,
                            i);
    for (uint32_t j = 0; j < r->n_nodes && r->online && p == 0; j++)
        if (online_sum(r, j) != NO_NODE)
            base_str_printf(o, "%sconst %s om%u = a%u;\n", ind, ty(dt(node(r, j))), j, j);
    base_str_printf(o, "%s#pragma unroll\n%sfor (int e = 0; e < %d; e++) {\n", ind, ind, V);
    base_str_printf(o, "%sconst LM_I r = t * %d + e;\n%s(void)r;\n", in2, V, in2);
    if (__builtin_popcount(red) > 1) emit_coords(r, red, "r", "rc", o, in2);
    if (r->online && p == 0) {
        /* Online: the first stage's nodes and reductions over the vector step (so the
         * maxes take the step's values); each online sum rescaled once to its max's new
         * value, which the sums' operands (exp(a - m)) then read, over the step again. */
        emit_x_nodes(r, p, o, in2, it, 0, 0);
        emit_accumulate(r, p, o, in2, false);
        emit_x_outputs(r, p, o, in2);
        base_str_printf(o, "%s}\n", ind);
        for (uint32_t j = 0; j < r->n_nodes; j++) {
            uint32_t sj = online_sum(r, j);
            if (sj == NO_NODE) continue;
            base_str_printf(o, "%sa%u = lmr_oscale_%s(a%u, om%u, a%u);\n", ind, sj,
                            sfx(dt(node(r, j))), sj, j, j);
            base_str_printf(o, "%sconst %s v%u = lmr_oeff_%s(a%u);\n", ind, ty(dt(node(r, j))), j,
                            sfx(dt(node(r, j))), j);
        }
        base_str_printf(o, "%s#pragma unroll\n%sfor (int e = 0; e < %d; e++) {\n", ind, ind, V);
        base_str_printf(o, "%sconst LM_I r = t * %d + e;\n%s(void)r;\n", in2, V, in2);
        if (__builtin_popcount(red) > 1) emit_coords(r, red, "r", "rc", o, in2);
        emit_x_nodes(r, p, o, in2, it, 0, UINT8_MAX);
        emit_accumulate(r, p, o, in2, true);
    } else {
        emit_x_nodes(r, p, o, in2, it, 0, UINT8_MAX);
        emit_accumulate(r, p, o, in2, false);
        emit_x_outputs(r, p, o, in2);
    }
    base_str_printf(o, "%s}\n", ind);
    for (uint32_t i = 0; i < r->n_outs; i++)
        if (V > 1 && r->xout[i] && xpass(r, i) == p)
            base_str_printf(o,
                            ef_store ? "%sif (live) lmr_stcs((lm_vec<%s, %d> *)(out%u + kx + t * "
                                       "%d), w%u);\n"
                                     : "%sif (live) *(lm_vec<%s, %d> *)(out%u + kx + t * %d) = w%u;\n",
                            ind,
                            ty(dt(&r->g->nodes[r->outs[i]])), V, i, V, i);
}

/* An online pair (max a<k>, sum a<j>) across w lanes: the max by butterfly (every lane has
 * it), each lane's sum rescaled to it once (lmr_oterm: itself where its max is the group's),
 * then the sums added down to the first lane. One exp per lane per level, instead of one
 * per shuffle step of a pairwise tree. */
static void emit_online_pair_reduce(const cg_reduce_t *r, uint32_t k, uint32_t j, int w,
                                    base_str_t *o, const char *ind) {
    loom_dtype_t d = dt(node(r, k)), a = acc_dtype(r->g, node(r, j));
    base_str_printf(o, "%s{\n%s    const %s om = a%u;\n", ind, ind, ty(d), k);
    base_str_printf(o, "%s    for (int m = %d; m > 0; m >>= 1) a%u = lm_maximum_%s(a%u, lmr_xor(a%u, m, %d));\n",
                    ind, w / 2, k, sfx(d), k, k, w);
    base_str_printf(o, "%s    a%u = lmr_oterm_%s(a%u, om, a%u);\n", ind, j, sfx(d), j, k);
    base_str_printf(o, "%s    for (int m = %d; m > 0; m >>= 1) a%u = lm_add_%s(a%u, lmr_down(a%u, m, %d));\n",
                    ind, w / 2, j, sfx(a), j, j, w);
    base_str_printf(o, "%s}\n", ind);
}

/* REDUCE node j (not an online pair) across w lanes by shuffling down: lane 0 has it. */
static void emit_tree(const cg_reduce_t *r, const ir_node_t *n, uint32_t j, int w, base_str_t *o,
                      const char *ind) {
    char acc[24], x[40], xi[40];
    snprintf(acc, sizeof acc, "a%u", j);
    base_str_printf(o, "%sfor (int m = %d; m > 0; m >>= 1) {\n", ind, w / 2);
    if (is_arg(n)) {
        base_str_printf(o, "%s    const auto ov = lmr_down(a%uv, m, %d);\n", ind, j, w);
        base_str_printf(o, "%s    const lm_i64 oi = lmr_down(a%ui, m, %d);\n", ind, j, w);
        snprintf(x, sizeof x, "ov");
        snprintf(xi, sizeof xi, "oi");
    } else {
        base_str_printf(o, "%s    const auto ov = lmr_down(a%u, m, %d);\n", ind, j, w);
        snprintf(x, sizeof x, "ov");
        xi[0] = 0;
    }
    char in2[64];
    snprintf(in2, sizeof in2, "%s    ", ind);
    emit_combine(r, n, acc, x, xi, o, in2);
    base_str_printf(o, "%s}\n", ind);
}

/* Combines the accumulators of pass p across the group and leaves the result in every
 * thread of it (G threads: 1, part of a warp, a warp, or the block). An online sum travels
 * with its max (their pair combines as one); its own turn is skipped. */
static void emit_group_reduce(const cg_reduce_t *r, int p, int G, int block, base_str_t *o,
                              const char *ind) {
    if (G == 1) return;
    int nw = block / 32, w = G < 32 ? G : 32;
    bool any = false;
    for (uint32_t j = 0; j < r->n_nodes; j++) {
        const ir_node_t *n = node(r, j);
        if (!is_reduce(n) || fin(r, j) != p || online_max(r, j) != NO_NODE) continue;
        any = true;
        uint32_t sj = online_sum(r, j);
        if (sj != NO_NODE)
            emit_online_pair_reduce(r, j, sj, w, o, ind);
        else
            emit_tree(r, n, j, w, o, ind);
        if (G <= 32) { /* the group's first lane has it: broadcast */
            if (is_arg(n))
                base_str_printf(o, "%sa%uv = lmr_first(a%uv, %d);\n%sa%ui = lmr_first(a%ui, %d);\n",
                                ind, j, j, w, ind, j, j, w);
            else
                base_str_printf(o, "%sa%u = lmr_first(a%u, %d);\n", ind, j, j, w);
            if (sj != NO_NODE) base_str_printf(o, "%sa%u = lmr_first(a%u, %d);\n", ind, sj, sj, w);
        } else if (is_arg(n)) {
            base_str_printf(
                o,
                "%sif ((threadIdx.x & 31) == 0) {\n%s    s%uv[threadIdx.x >> 5] = a%uv;\n"
                "%s    s%ui[threadIdx.x >> 5] = a%ui;\n%s}\n",
                ind, ind, j, j, ind, j, j, ind);
        } else if (sj != NO_NODE) {
            base_str_printf(o,
                            "%sif ((threadIdx.x & 31) == 0) {\n%s    s%u[threadIdx.x >> 5] = a%u;\n"
                            "%s    s%u[threadIdx.x >> 5] = a%u;\n%s}\n",
                            ind, ind, j, j, ind, sj, sj, ind);
        } else {
            base_str_printf(o, "%sif ((threadIdx.x & 31) == 0) s%u[threadIdx.x >> 5] = a%u;\n", ind,
                            j, j);
        }
    }
    if (G <= 32 || !any) return;
    /* Across warps: after one barrier every warp combines the slots in order (the same tree
     * in every warp, so all get the same bits) and broadcasts its lane 0's result. The slots
     * are next written by the following row, after the barrier that ends each row. */
    base_str_printf(o, "%s__syncthreads();\n", ind);
    char in3[72];
    snprintf(in3, sizeof in3, "%s    ", ind);
    for (uint32_t j = 0; j < r->n_nodes; j++) {
        const ir_node_t *n = node(r, j);
        if (!is_reduce(n) || fin(r, j) != p || online_max(r, j) != NO_NODE) continue;
        uint32_t sj = online_sum(r, j);
        char acc[24];
        snprintf(acc, sizeof acc, "a%u", j);
        if (is_arg(n)) {
            base_str_printf(o, "%sa%uv = s%uv[(threadIdx.x & 31) < %d ? (threadIdx.x & 31) : 0];\n",
                            ind, j, j, nw);
            base_str_printf(o, "%sa%ui = (threadIdx.x & 31) < %d ? s%ui[threadIdx.x & 31] : -1;\n",
                            ind, j, nw, j);
        } else {
            base_str_printf(o, "%sa%u = (threadIdx.x & 31) < %d ? s%u[threadIdx.x & 31] : ", ind, j,
                            nw, j);
            emit_identity(r, n, o);
            base_str_cat(o, ";\n");
            if (sj != NO_NODE) {
                base_str_printf(o, "%sa%u = (threadIdx.x & 31) < %d ? s%u[threadIdx.x & 31] : ",
                                ind, sj, nw, sj);
                emit_identity(r, node(r, sj), o);
                base_str_cat(o, ";\n");
            }
        }
        base_str_printf(o, "%sfor (int m = 16; m > 0; m >>= 1) {\n", ind);
        if (is_arg(n)) {
            base_str_printf(o, "%sconst auto ov = lmr_down(a%uv, m, 32);\n", in3, j);
            base_str_printf(o, "%sconst lm_i64 oi = lmr_down(a%ui, m, 32);\n", in3, j);
            emit_combine(r, n, acc, "ov", "oi", o, in3);
            base_str_printf(o, "%s}\n%sa%uv = lmr_first(a%uv, 32);\n%sa%ui = lmr_first(a%ui, 32);\n",
                            ind, ind, j, j, ind, j, j);
        } else if (sj != NO_NODE) {
            base_str_printf(o, "%s}\n", ind); /* (an empty loop: the pair's own tree below) */
            emit_online_pair_reduce(r, j, sj, 32, o, ind);
            base_str_printf(o, "%sa%u = lmr_first(a%u, 32);\n%sa%u = lmr_first(a%u, 32);\n", ind,
                            j, j, ind, sj, sj);
        } else {
            base_str_printf(o, "%sconst auto ov = lmr_down(a%u, m, 32);\n", in3, j);
            emit_combine(r, n, acc, "ov", "", o, in3);
            base_str_printf(o, "%s}\n%sa%u = lmr_first(a%u, 32);\n", ind, ind, j, j);
        }
    }
}

/* The results v<j> of the REDUCE nodes of pass p, in their dtype. */
static void emit_finish(const cg_reduce_t *r, int p, base_str_t *o, const char *ind) {
    for (uint32_t j = 0; j < r->n_nodes; j++) {
        const ir_node_t *n = node(r, j);
        if (!is_reduce(n) || fin(r, j) != p) continue;
        loom_dtype_t a = acc_dtype(r->g, n), d = dt(n);
        uint32_t mk = online_max(r, j);
        if (mk != NO_NODE) {
            char fin_s[64];
            snprintf(fin_s, sizeof fin_s, "lmr_ofin_%s(a%u, a%u)", sfx(dt(node(r, mk))), j, mk);
            if (a == d)
                base_str_printf(o, "%sconst %s v%u = %s;\n", ind, ty(d), j, fin_s);
            else
                base_str_printf(o, "%sconst %s v%u = lm_cast_%s_%s(%s);\n", ind, ty(d), j, sfx(a),
                                sfx(d), fin_s);
        } else if (is_arg(n))
            base_str_printf(o, "%sconst %s v%u = (%s)a%ui;\n", ind, ty(d), j, ty(d), j);
        else if (a == d)
            base_str_printf(o, "%sconst %s v%u = a%u;\n", ind, ty(d), j, j);
        else
            base_str_printf(o, "%sconst %s v%u = lm_cast_%s_%s(a%u);\n", ind, ty(d), j, sfx(a),
                            sfx(d), j);
    }
}

/* Chunk t's partial result of REDUCE node j (suffix: "v"/"i" for an ARG's value/index). */
static void partial_at(char *buf, size_t size, bool fused, uint32_t j, const char *suffix) {
    if (fused)
        snprintf(buf, size, "lmr_cg(p%u%s + (o * nch + t))", j, suffix);
    else
        snprintf(buf, size, "p%u%s[t * n_out + o]", j, suffix);
}

/* The partial results of every chunk, in chunk order per thread, then the group (every
 * block of the output the same, so they agree to the bit): the accumulators a<j>. */
static void emit_combine_partials(const cg_reduce_t *r, bool fused, int G, int B, base_str_t *o,
                                  const char *ind) {
    emit_acc_decls(r, 0, o, ind);
    base_str_printf(o, "%sfor (LM_I t = lane; t < nch; t += %d) {\n", ind, G);
    char in2[64];
    snprintf(in2, sizeof in2, "%s    ", ind);
    for (uint32_t j = 0; j < r->n_nodes; j++) {
        const ir_node_t *n = node(r, j);
        if (!is_reduce(n) || online_max(r, j) != NO_NODE) continue;
        uint32_t sj = online_sum(r, j);
        char x[48], xi[48], xs[48];
        partial_at(x, sizeof x, fused, j, is_arg(n) ? "v" : "");
        partial_at(xi, sizeof xi, fused, j, "i");
        if (!is_arg(n)) xi[0] = 0;
        if (sj != NO_NODE) {
            partial_at(xs, sizeof xs, fused, sj, "");
            base_str_printf(o, "%slmr_opair_%s(a%u, a%u, %s, %s);\n", in2, sfx(dt(n)), j, sj, x,
                            xs);
            continue;
        }
        char acc[24];
        snprintf(acc, sizeof acc, "a%u", j);
        emit_combine(r, n, acc, x, xi, o, in2);
    }
    base_str_printf(o, "%s}\n", ind);
    emit_group_reduce(r, 0, G, B, o, ind);
}

/* Fused steps: output o's combined accumulators, stored after the chunks' partial results
 * (store) or read back from there past L1. */
static void emit_row_results(const cg_reduce_t *r, bool store, base_str_t *o, const char *ind) {
    for (uint32_t j = 0; j < r->n_nodes; j++) {
        const ir_node_t *n = node(r, j);
        if (!is_reduce(n)) continue;
        for (int h = 0; h < (is_arg(n) ? 2 : 1); h++) {
            const char *x = is_arg(n) ? h ? "i" : "v" : "";
            if (store)
                base_str_printf(o, "%sp%u%s[n_out * nch + o] = a%u%s;\n", ind, j, x, j, x);
            else
                base_str_printf(o, "%sa%u%s = lmr_cg(p%u%s + (n_out * nch + o));\n", ind, j, x, j,
                                x);
        }
    }
}

/* One output's (or one task's) work inside the kernel: output o = ob, or a row of outputs
 * from ob. Fused tasks (K_FUSED's two halves, kind K_PARTIAL or K_FINAL) take chunk cy of
 * output ob, keep the partial results per output in chunk order (read back past L1) and
 * count the chunks done. */
static void emit_task(const cg_reduce_t *r, int kind, bool fused, int G, int B, base_str_t *o) {
    int rows = B / G;
    const char *ind = "        ";
    const char *cy = fused ? "cy" : "(LM_I)blockIdx.y";
    if (rows > 1 && G > 1 && G < 32) {
        /* Groups past the last output compute it again without storing, so that every
         * warp's shuffles keep all their lanes. */
        base_str_printf(o, "        const LM_I o_ = ob * %d + (LM_I)(threadIdx.x / %d);\n", rows,
                        G);
        base_str_cat(o, "        const bool live = o_ < n_out;\n");
        base_str_cat(o, "        const LM_I o = live ? o_ : n_out - 1;\n");
    } else if (rows > 1) {
        base_str_printf(o, "        const LM_I o = ob * %d + (LM_I)(threadIdx.x / %d);\n", rows, G);
        /* (break: this block's last output; cg_reduce_reversible) */
        base_str_cat(o, "        if (o >= n_out) break;\n        const bool live = true;\n");
    } else {
        base_str_cat(o, "        const LM_I o = ob;\n        const bool live = true;\n");
    }
    uint32_t kept = ((1u << r->nd) - 1) & ~r->red;
    emit_coords(r, kept, "o", "kc", o, ind);
    for (uint32_t j = 0; j < r->n_nodes; j++)
        if (cg__strided(node(r, j))) { /* INPUT or generator */
            char s[16];
            snprintf(s, sizeof s, "t%u_", j);
            base_str_printf(o, "        const LM_I k%u = ", j);
            emit_offset(r, kept, "kc", s, o);
            base_str_printf(o, ";\n        (void)k%u;\n", j);
        }
    base_str_cat(o, "        const LM_I kx = ");
    emit_offset(r, kept, "kc", "xs", o);
    base_str_cat(o, ";\n        (void)kx;\n");
    emit_y_nodes(r, 0, o, ind);
    if (kind == K_COMBINE || kind == K_FINAL) {
        if (fused) { /* the output's results, combined once by its last chunk task */
            emit_acc_decls(r, 0, o, ind);
            emit_row_results(r, false, o, ind);
        } else {
            emit_combine_partials(r, false, G, B, o, ind);
        }
        emit_finish(r, 0, o, ind);
        for (int st = 1; st <= r->n_stages; st++) emit_y_nodes(r, st, o, ind);
        if (kind == K_FINAL && online_xouts(r)) {
            /* The final pass over this block's chunk; two kernels: the last chunks first
             * (kernel 0 read them last, so part of them is still in L2). */
            int p = r->n_passes - 1;
            if (fused)
                base_str_cat(o, "        const LM_I tb = cy * clen;\n");
            else
                base_str_cat(o, "        const LM_I tb = (nch - 1 - (LM_I)blockIdx.y) * clen;\n");
            base_str_cat(o, "        const LM_I te = tb + clen < nvec ? tb + clen : nvec;\n");
            base_str_printf(
                o, "#pragma unroll 4\n        for (LM_I t = tb + lane; t < te; t += %d) {\n", G);
            emit_elements(r, p, o, "            ", "0");
            base_str_cat(o, "        }\n");
        }
    } else {
        for (uint32_t j = 0; j < r->n_nodes; j++)
            if (r->cached[j])
                base_str_printf(o, "        lm_vec<%s, %d> c%u[%d];\n", ty(dt(node(r, j))), r->vec,
                                j, r->items);
        if (kind == K_PARTIAL) { /* this block's chunk of the reduced elements */
            base_str_printf(o, "        const LM_I tb = %s * clen;\n", cy);
            base_str_cat(o, "        const LM_I te = tb + clen < nvec ? tb + clen : nvec;\n");
        } else if (!r->items) {
            base_str_cat(o, "        const LM_I tb = 0, te = nvec;\n");
        }
        for (int p = 0; p < r->n_passes; p++) {
            emit_acc_decls(r, p, o, ind);
            if (r->items) {
                base_str_printf(o, "#pragma unroll\n        for (int it = 0; it < %d; it++) {\n",
                                r->items);
                base_str_printf(o, "            const LM_I t = lane + (LM_I)it * %d;\n", G);
                base_str_cat(o, "            if (t < nvec) {\n");
                emit_elements(r, p, o, "                ", "it");
                base_str_cat(o, "            }\n        }\n");
            } else {
                base_str_printf(
                    o, "#pragma unroll 4\n        for (LM_I t = tb + lane; t < te; t += %d) {\n",
                    G);
                emit_elements(r, p, o, "            ", "0");
                base_str_cat(o, "        }\n");
            }
            if (kind == K_PARTIAL) {
                emit_group_reduce(r, p, G, B, o, ind);
                char at[40];
                if (fused)
                    snprintf(at, sizeof at, "o * nch + cy");
                else
                    snprintf(at, sizeof at, "(LM_I)blockIdx.y * n_out + o");
                base_str_cat(o, "        if (lane == 0 && live) {\n");
                for (uint32_t j = 0; j < r->n_nodes; j++) {
                    const ir_node_t *n = node(r, j);
                    if (!is_reduce(n)) continue;
                    if (is_arg(n))
                        base_str_printf(o,
                                        "            p%uv[%s] = a%uv;\n"
                                        "            p%ui[%s] = a%ui;\n",
                                        j, at, j, j, at, j);
                    else
                        base_str_printf(o, "            p%u[%s] = a%u;\n", j, at, j);
                }
                /* the results, then the count that publishes them (fence, then the atomic);
                 * the task that counts last reads every chunk's results: the atomic, then a
                 * fence, then (after the barrier) the reads, so that the PTX memory model
                 * orders them after the other tasks' writes (fence-fence synchronisation) */
                if (fused)
                    base_str_printf(o, "            __threadfence();\n"
                                       "            lmf_last = atomicAdd(lmf_ctr + %d * (1 + o), 1u) == "
                                       "(unsigned)nch - 1;\n"
                                       "            if (lmf_last) __threadfence();\n",
                                    CTR_WORDS);
                base_str_cat(o, "        }\n");
                if (fused) {
                    /* The output's last chunk task combines every chunk once, for all its
                     * output tasks, and publishes the result with one more count. */
                    base_str_cat(o, "        __syncthreads();\n        if (lmf_last) {\n");
                    emit_combine_partials(r, true, G, B, o, "            ");
                    base_str_cat(o, "            if (lane == 0) {\n");
                    emit_row_results(r, true, o, "                ");
                    base_str_printf(o, "                __threadfence();\n"
                                       "                atomicAdd(lmf_ctr + %d * (1 + o), 1u);\n"
                                       "            }\n        }\n",
                                    CTR_WORDS);
                }
                break;
            }
            if (p < r->n_stages) {
                emit_group_reduce(r, p, G, B, o, ind);
                emit_finish(r, p, o, ind);
                emit_y_nodes(r, p + 1, o, ind);
            }
        }
    }
    if (kind != K_PARTIAL) {
        bool any = false;
        for (uint32_t i = 0; i < r->n_outs; i++) any = any || !r->xout[i];
        if (any) {
            base_str_printf(o, "        if (lane == 0 && live%s) {\n",
                            kind == K_FINAL ? fused ? " && cy == 0" : " && blockIdx.y == 0" : "");
            for (uint32_t i = 0; i < r->n_outs; i++)
                if (!r->xout[i])
                    base_str_printf(o, "            out%u[o] = v%u;\n", i, pos(r, r->outs[i]));
            base_str_cat(o, "        }\n");
        }
    }
    if (G > 32) /* the cross-warp slots are rewritten by the next row */
        base_str_cat(o, "        __syncthreads();\n");
}

/* Fused steps: the block waits until output ob's chunks are combined (count nch + 1). */
static void emit_row_wait(base_str_t *o) {
    base_str_printf(o,
                    "        if (threadIdx.x == 0) { /* the chunks combined (count nch + 1) */\n"
                    "            while (*(volatile unsigned *)(lmf_ctr + %d * (1 + ob)) <= (unsigned)nch) {\n"
                    "            }\n"
                    "            __threadfence();\n"
                    "        }\n"
                    "        __syncthreads();\n",
                    CTR_WORDS);
}

/* Stashing fused steps: lmx<j>, the slot of each kept input this task writes (the chunk task)
 * or reads (the output task of the previous ticket: the other slot). */
static void emit_slot_ptrs(const cg_reduce_t *r, bool other, base_str_t *o) {
    for (uint32_t j = 0; j < r->n_nodes; j++)
        if (stashed(r, j))
            base_str_printf(o, "        %slm_vec<%s, %d> *const lmx%u = lmx%u_s + %s * clen;\n",
                            other ? "const " : "", ty(dt(node(r, j))), r->vec, j, j,
                            other ? "(slot ^ 1)" : "slot");
}

static void emit_kernel(const cg_reduce_t *r, int kind, base_str_t *o, const char *name) {
    int G = kind == K_COMBINE ? r->group2 : r->group;
    int B = kind == K_COMBINE ? COMBINE_BLOCK : r->block;
    int rows = B / G;
    cg__emit_kernel_open(o, name, r->idx64, cg_reduce_n_params(r, 0));
    emit_helpers(r, o);
    /* At least 1024 resident threads per multiprocessor (64 registers a thread at most):
     * the loads of one row or column alone do not hide the memory latency. */
    int minb = B < 1024 ? 1024 / B : 1;
    /* Lean rows: 3 blocks (40 registers; 8192-element float32 rows keep 16 of them; layernorm
     * at 2 blocks took 54); re-read rows keep none: 4 blocks (at most 32 registers) */
    if (r->lean) minb = r->reread ? 4 : 3;
    if (r->stash) minb = STASH_BLOCKS; /* (40 registers a thread: 4 blocks ran 207-210 us) */
    base_str_printf(o,
                    "extern \"C\" __global__ void __launch_bounds__(%d, %d) %s(const lm_params_%s "
                    "P) {\n",
                    B, minb, name, name);
    emit_params(r, o);
    base_str_printf(o, "    const LM_I nvec = count / %d;\n    (void)nvec;\n", r->vec);
    if (r->reread) /* the L2 policy of the reads a later pass repeats */
        base_str_cat(o, "    lm_u64 lm_keep = 0;\n"
                        "#if __CUDA_ARCH__ >= 800\n"
                        "    asm volatile(\"createpolicy.fractional.L2::evict_last.b64 %0, 1.0;\"\n"
                        "                 : \"=l\"(lm_keep));\n"
                        "#endif\n"
                        "    (void)lm_keep;\n");
    if (G == 1)
        base_str_cat(o, "    const LM_I lane = 0;\n");
    else if (G == B)
        base_str_cat(o, "    const LM_I lane = (LM_I)threadIdx.x;\n");
    else
        base_str_printf(o, "    const LM_I lane = (LM_I)(threadIdx.x %% %d);\n", G);
    base_str_cat(o, "    (void)lane;\n");
    if (G == B && B > 32) /* cross-warp slots */
        for (uint32_t j = 0; j < r->n_nodes; j++) {
            const ir_node_t *n = node(r, j);
            if (!is_reduce(n)) continue;
            if (is_arg(n)) {
                loom_dtype_t d = dt(&r->g->nodes[n->src[0]]);
                base_str_printf(o, "    __shared__ %s s%uv[%d];\n    __shared__ lm_i64 s%ui[%d];\n",
                                ty(d), j, B / 32, j, B / 32);
            } else {
                base_str_printf(o, "    __shared__ %s s%u[%d];\n", ty(acc_dtype(r->g, n)), j,
                                B / 32);
            }
        }
    if (kind != K_FUSED) {
        base_str_printf(o, "    const LM_I nob = (n_out + %d) / %d;\n", rows - 1, rows);
        if (kind == K_MAIN) /* in either order (lm_rev) */
            base_str_cat(o, "    for (LM_I ob_ = blockIdx.x; ob_ < nob; ob_ += gridDim.x) {\n"
                            "        const LM_I ob = lm_rev ? nob - 1 - ob_ : ob_;\n");
        else
            base_str_cat(o, "    for (LM_I ob = blockIdx.x; ob < nob; ob += gridDim.x) {\n");
        emit_task(r, kind, false, G, B, o);
        base_str_cat(o, "    }\n}\n");
        return;
    }
    /* Tickets taken in a loop by a resident grid, in order: first chunk tasks alone, then
     * chunk and output tasks in turn, then the last output tasks. Output task i comes 2 * lag
     * tickets after the last chunk task of its row (d >= nch), so it waits only on tickets
     * taken before it, whose chunk tasks never wait: no deadlock however few blocks are
     * resident, and by then the chunk it re-reads was read about a resident wave ago (still
     * in L2). Partial results are per (output, chunk), combined in chunk order: the same bits
     * as two kernels, for any grid. */
    base_str_cat(o, "    __shared__ unsigned lmf_tk;\n"
                    "    __shared__ bool lmf_last;\n");
    if (r->stash) {
        /* One ticket per chunk, in row order, and two slots of shared memory per block:
         * ticket k's chunk task keeps its vectors in one slot (each thread re-reads only
         * what it wrote) and publishes its pair; then the output task of the block's previous
         * ticket waits for that row's combined pair and runs from the other slot. A block
         * waits only once every chunk it holds is published, so blocks all waiting would
         * hold two chunks each of one row: with nch <= 2 * multiprocessors that needs fewer
         * resident blocks than one per multiprocessor, which always fits. */
        for (uint32_t j = 0; j < r->n_nodes; j++)
            if (stashed(r, j))
                base_str_printf(o, "    __shared__ lm_vec<%s, %d> lmx%u_s[%lld];\n",
                                ty(dt(node(r, j))), r->vec, j, 2 * (long long)r->clen);
        base_str_cat(o, "    const LM_I tasks = n_out * nch;\n"
                        "    LM_I pend = -1;\n"
                        "    int slot = 0;\n"
                        "    for (;;) {\n"
                        "    if (threadIdx.x == 0) lmf_tk = atomicAdd(lmf_ctr, 1u);\n"
                        "    __syncthreads();\n"
                        "    const LM_I k = (LM_I)lmf_tk;\n"
                        "    if (k < tasks) {\n"
                        "        const LM_I ob = k / nch, cy = k - ob * nch;\n");
        emit_slot_ptrs(r, false, o);
        emit_task(r, K_PARTIAL, true, G, B, o);
        base_str_cat(o, "    }\n"
                        "    if (pend >= 0) {\n"
                        "        const LM_I ob = pend / nch, cy = pend - ob * nch;\n");
        emit_slot_ptrs(r, true, o);
        emit_row_wait(o);
        emit_task(r, K_FINAL, true, G, B, o);
        base_str_cat(o, "    }\n"
                        "    if (k >= tasks) break;\n"
                        "    pend = k;\n"
                        "    slot ^= 1;\n"
                        "    }\n}\n");
        return;
    }
    base_str_printf(o, "    const LM_I tasks = n_out * nch, lag = nch + %d;\n", r->lag);
    base_str_cat(o, "    const LM_I d = tasks < lag ? tasks : lag;\n"
                    "    for (;;) {\n"
                    "    if (threadIdx.x == 0) lmf_tk = atomicAdd(lmf_ctr, 1u);\n"
                    "    __syncthreads();\n"
                    "    const LM_I k = (LM_I)lmf_tk, rel = k - d;\n"
                    "    if (k >= 2 * tasks) break;\n"
                    "    const bool out_pass = k >= d && (k >= 2 * tasks - d || (rel & 1));\n"
                    "    const LM_I task = k < d ? k : k >= 2 * tasks - d ? k - tasks\n"
                    "                    : (rel & 1) ? rel >> 1 : d + (rel >> 1);\n"
                    "    const LM_I ob = task / nch, cy = task - ob * nch;\n"
                    "    if (!out_pass) {\n");
    emit_task(r, K_PARTIAL, true, G, B, o);
    base_str_cat(o, "    } else {\n");
    emit_row_wait(o);
    emit_task(r, K_FINAL, true, G, B, o);
    base_str_cat(o, "    }\n    }\n}\n");
}

void cg_reduce_source(const cg_reduce_t *r, uint32_t i, base_str_t *out, char *name) {
    base_hash128_t key = cg_reduce_key(r, i);
    snprintf(name, 40, "loom_rd_%016llx", (unsigned long long)key.lo);
    base_str_t body;
    base_str_init(&body, out->al);
    int kind = r->chunks <= 1 ? K_MAIN
               : r->fused     ? K_FUSED
               : i == 0       ? K_PARTIAL
               : r->online    ? K_FINAL
                              : K_COMBINE;
    emit_kernel(r, kind, &body, name);
    cg__emit_finish(out, &body);
}
