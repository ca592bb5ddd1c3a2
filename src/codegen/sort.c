/* sort.c — CUDA C for the data-dependent ops: stable sorts and argsorts, order statistics
 * (radix select, emit_select), searchsorted, flatnonzero's compaction and the deterministic
 * scatters. Unlike the fused kernels, their text depends only on dtypes and modes; sizes,
 * addresses and the pass's digit are parameters.
 *
 * Sorts are least-significant-digit radix sorts, 8 bits a pass, of keys with payloads where
 * needed. A key is the element's bits made to order as unsigned integers in NumPy's order
 * (floats: sign folded, -0.0 made +0.0, every NaN the largest key; signed integers: sign bit
 * flipped), with the element's line number above them where both fit in 64 bits, so that one
 * sort orders every line along the axis at once. The payload is what the result needs: the
 * element's position along the line (argsort); for sort, nothing where the key gives the
 * element back, which it does unless a float sort meets both zeros or two NaN bit patterns
 * (the first kernel records which zero and which NaN it met; the passes read those words and
 * carry the element's bits as payload only then, so no host sync decides); where line and key
 * do not fit in 64 bits, the element's position in line order, whose line number the last
 * passes sort by. The first kernel also counts the digits of every pass; then a pass is one
 * kernel (onesweep): each block takes the next tile by an atomic ticket, counts its digits
 * per warp and publishes the tile's counts at once (decoupled look-back), ranks its keys
 * stably (warp-striped, peers of one digit found with 8 ballots, one shared atomic per group),
 * places them in shared memory, looks back over the tiles before it for each digit's place,
 * and writes runs of equal digits; the last pass writes the result. Stability makes every
 * pass, and so the result, the reference's: equal keys keep their order.
 *
 * Scatters sort (target, position) pairs by target the same way, then one thread per run of
 * equal targets combines the run's values in the order of their positions: the reference's
 * order, so float sums have its bits on every run. */
#include <stdio.h>
#include <string.h>

#include "emit.h"

static int bits_of(uint64_t v) {
    int b = 0;
    while (b < 64 && (v >> b)) b++;
    return b;
}

/* A sort's or select's lines: operand x's dtype, elements, extent along the axis and the
 * elements after that axis in C order. */
static void lines_of(cg_sort_t *s, const ir_node_t *x, int axis) {
    s->dtype = (loom_dtype_t)x->dtype;
    s->n = ir_node_size(x);
    s->len = x->shape[axis];
    s->inner = 1;
    for (int ax = axis + 1; ax < x->ndim; ax++) s->inner *= x->shape[ax];
}

void cg_sort_init(cg_sort_t *s, const ir_graph_t *g, uint32_t node, int sm_count, int smem_per_sm,
                  int smem_block) {
    const ir_node_t *n = &g->nodes[node];
    memset(s, 0, sizeof *s);
    s->op = n->op;
    s->mode = (int)n->p.k;
    switch (n->op) {
        case IR_OP_SORT:
        case IR_OP_ARGSORT: {
            lines_of(s, &g->nodes[n->src[0]], (int)n->p.axis);
            int w = 8 * (int)ir_dtypes[s->dtype].size;
            int64_t lines = s->len ? s->n / s->len : 0;
            int lb = lines > 1 ? bits_of((uint64_t)(lines - 1)) : 0;
            s->seg = w + lb > 64;
            s->kbytes = s->seg || w + lb > 32 ? 8 : 4;
            if (s->seg)
                s->pbytes = 8;
            else if (n->op == IR_OP_ARGSORT)
                s->pbytes = (uint64_t)s->len > UINT32_MAX ? 8 : 4;
            else
                s->pbytes = (int)ir_dtypes[s->dtype].size;
            s->keys_only = n->op == IR_OP_SORT && !s->seg;
            s->key_passes = s->seg ? w / 8 : (w + lb + 7) / 8;
            s->seg_passes = s->seg ? (lb + 7) / 8 : 0;
            break;
        }
        case IR_OP_SCATTER: {
            s->dtype = (loom_dtype_t)n->dtype;
            s->n = ir_node_size(&g->nodes[n->src[1]]);
            s->len = ir_node_size(n); /* targets: size is the key of a skipped index */
            int kb = bits_of((uint64_t)s->len);
            s->kbytes = kb > 32 ? 8 : 4;
            s->pbytes = (uint64_t)s->n > UINT32_MAX ? 8 : 4;
            s->key_passes = (kb + 7) / 8;
            const ir_node_t *v = &g->nodes[n->src[2]]; /* one value for every index? */
            s->one_value = v->op == IR_OP_INPUT;
            for (int ax = 0; ax < LOOM_MAX_DIMS && s->one_value; ax++)
                s->one_value = g->inputs[v->input].strides[ax] == 0;
            s->atomic = s->mode > 0 && s->mode < 4 &&
                        (s->dtype == LOOM_DTYPE_I32 || s->dtype == LOOM_DTYPE_I64 ||
                         s->dtype == LOOM_DTYPE_U32 || s->dtype == LOOM_DTYPE_U64);
            break;
        }
        case IR_OP_SELECT: {
            lines_of(s, &g->nodes[n->src[0]], (int)n->p.axis);
            s->m = (int)n->shape[n->p.axis];
            memcpy(s->ranks, n->p.ax, sizeof s->ranks);
            break;
        }
        case IR_OP_SEARCHSORTED:
            s->dtype = (loom_dtype_t)g->nodes[n->src[0]].dtype;
            s->n = ir_node_size(n);
            s->len = g->nodes[n->src[0]].shape[0];
            break;
        case IR_OP_CORRELATE:
            s->dtype = (loom_dtype_t)n->dtype;
            s->n = n->shape[0];
            s->len = g->nodes[n->src[0]].shape[0];
            s->taps = g->nodes[n->src[1]].shape[0];
            s->offset = n->p.k;
            s->flip = n->p.axis != 0;
            break;
        default: /* NONZERO */
            s->dtype = LOOM_DTYPE_BOOL;
            s->n = ir_node_size(&g->nodes[n->src[0]]);
            s->len = n->shape[0];
            break;
    }
    /* blocks over contiguous ranges: enough to fill the device a few times, ranges of whole
     * tiles, and few enough that the counts' scan stays one block's work */
    int64_t tiles = (s->n + 2047) / 2048, cap = 8 * (int64_t)cg__sms(sm_count);
    s->nb = tiles < cap ? tiles : cap;
    if (s->nb < 1) s->nb = 1;
    s->per = (tiles + s->nb - 1) / s->nb * 2048;
    s->nb = s->per ? (s->n + s->per - 1) / s->per : 1;
    if (s->nb < 1) s->nb = 1;
    /* a pass's tile: 16 keys a thread where key and payload take 8 bytes, 12 where 12, 8
     * where 16 (the tile's keys and payloads in at most 32 KiB of shared memory); 32 where 8
     * on a multiprocessor that holds two blocks of a 64 KiB tile (H100, H200, A100): fewer,
     * longer tiles halve the look-back and the bins' scatter per key. Sorts of lines that
     * pass their line numbers along (rows of 8192 float32: 1 % slower) keep 16. */
    int per_key = s->kbytes + s->pbytes;
    s->ipt = per_key <= 8 ? 16 : per_key <= 12 ? 12 : 8;
    if (per_key <= 8 && !s->seg && (smem_per_sm == 0 || smem_per_sm >= 2 * CG_SORT_BIG_TILE_SMEM))
        s->ipt = 32;
    s->tile = (int64_t)CG_SORT_THREADS * s->ipt;
    s->wide = s->n >= ((int64_t)1 << 30);
    /* contiguous lines of 256 to 8192 elements of at most 4 bytes, enough of them to fill
     * the device: a block a line, its keys and their positions in shared memory, every pass
     * there; no line numbers in the keys. The tile is the line's length rounded up to a
     * power of two (IPT keys a thread); a block takes its keys and 2-byte positions and the
     * static counts (CG_SORT_ROWS_STATIC), which must fit what a block may opt in to. */
    int rows_ipt = 1;
    while ((int64_t)CG_SORT_THREADS * rows_ipt < s->len) rows_ipt *= 2;
    int64_t rows_smem =
        (int64_t)CG_SORT_THREADS * rows_ipt * (int64_t)(ir_dtypes[s->dtype].size + 2) +
        CG_SORT_ROWS_STATIC;
    if ((n->op == IR_OP_SORT || n->op == IR_OP_ARGSORT) && s->inner == 1 &&
        s->len >= CG_SORT_THREADS && s->len <= (int64_t)CG_SORT_THREADS * 32 &&
        ir_dtypes[s->dtype].size <= 4 && s->n / s->len >= cg__sms(sm_count) &&
        (smem_block == 0 || smem_block >= rows_smem)) {
        s->rows = true;
        s->seg = false;
        s->kbytes = (int)ir_dtypes[s->dtype].size;
        s->pbytes = 2;
        s->key_passes = (int)ir_dtypes[s->dtype].size;
        s->seg_passes = 0;
        s->keys_only = false;
        s->ipt = rows_ipt;
        s->tile = (int64_t)CG_SORT_THREADS * s->ipt;
    }
    int *k = s->kinds;
    switch (n->op) {
        case IR_OP_SORT:
        case IR_OP_ARGSORT:
            if (s->rows) {
                k[s->nk++] = CG_SK_ROWS;
                break;
            }
            k[s->nk++] = CG_SK_PREP;
            if (s->keys_only && ir_dtypes[s->dtype].kind == IR_DKIND_FLOAT) k[s->nk++] = CG_SK_PAYS;
            k[s->nk++] = CG_SK_SCATTER;
            if (s->seg) k[s->nk++] = CG_SK_SCATTER_SEG;
            break;
        case IR_OP_SCATTER:
            if (s->atomic) {
                k[s->nk++] = CG_SK_ATOMIC;
                break;
            }
            k[s->nk++] = CG_SK_PREP;
            k[s->nk++] = CG_SK_HIST;
            k[s->nk++] = CG_SK_SCATTER;
            k[s->nk++] = CG_SK_FINAL;
            break;
        case IR_OP_SEARCHSORTED:
            k[s->nk++] = CG_SK_SEARCH;
            break;
        case IR_OP_CORRELATE:
            k[s->nk++] = CG_SK_CORR;
            break;
        case IR_OP_SELECT:
            k[s->nk++] = CG_SK_SELECT;
            break;
        default:
            k[s->nk++] = CG_SK_NZ_COUNT;
            k[s->nk++] = CG_SK_SCAN;
            k[s->nk++] = CG_SK_NZ_WRITE;
            break;
    }
}

uint32_t cg_sort_n_kernels(const cg_sort_t *s) { return (uint32_t)s->nk; }

uint32_t cg_sort_scatter_smem(const cg_sort_t *s) {
    return (uint32_t)s->tile * (uint32_t)(s->kbytes + s->pbytes);
}

int cg_sort_index(const cg_sort_t *s, int kind) {
    for (int i = 0; i < s->nk; i++)
        if (s->kinds[i] == kind) return i;
    return -1;
}

base_hash128_t cg_sort_key(const cg_sort_t *s, uint32_t i) {
    cg__key_t k;
    cg__key_init(&k, 0x6c6f7339); /* format of this generator; bump when the text changes */
    cg__key_put(&k, (uint32_t)s->kinds[i]);
    cg__key_put(&k, s->op | (uint32_t)s->dtype << 16 | (uint32_t)s->mode << 24);
    cg__key_put(&k, (uint32_t)s->kbytes | (uint32_t)s->pbytes << 8 | (uint32_t)s->seg << 16 |
                        (uint32_t)(s->inner == 1) << 17 |
                        (uint32_t)(s->key_passes + s->seg_passes) << 18 |
                        (uint32_t)s->atomic << 24 | (uint32_t)s->keys_only << 25 |
                        (uint32_t)s->wide << 26 | (uint32_t)s->rows << 27);
    cg__key_put(&k, (uint32_t)s->ipt);
    return cg__key_done(&k);
}

static const char *utype(int bytes) {
    return bytes == 1 ? "lm_u8" : bytes == 2 ? "lm_u16" : bytes == 4 ? "lm_u32" : "lm_u64";
}

/* lm_sk(b): the unsigned key of element bits b (type UT, W bits) in NumPy's order; lm_usk(k,
 * fl) the element back from its key, where fl (PREP's words) names the zero and the NaN met;
 * LM_NAN(b), LM_ZERO(b) (floats): b is a NaN, b is a zero of either sign. */
static void emit_twiddle(const cg_sort_t *s, base_str_t *o) {
    const ir_dtype_info_t *d = &ir_dtypes[s->dtype];
    int w = 8 * (int)d->size;
    const char *ut = utype((int)d->size);
    base_str_printf(o, "typedef %s UT;\n#define W %d\n", ut, w);
    base_str_cat(o, "static __device__ __forceinline__ UT lm_sk(UT b) {\n");
    if (d->kind == IR_DKIND_FLOAT) {
        uint64_t inf = s->dtype == LOOM_DTYPE_F16    ? 0x7C00u
                       : s->dtype == LOOM_DTYPE_BF16 ? 0x7F80u
                       : s->dtype == LOOM_DTYPE_F32  ? 0x7F800000u
                                                     : UINT64_C(0x7FF0000000000000);
        base_str_printf(o,
                        "    const UT S = (UT)((UT)1 << (W - 1)), a = (UT)(b & (UT)~S);\n"
                        "    if (a > (UT)%lluull) return (UT)~(UT)0; /* NaN: last */\n"
                        "    if (a == 0) return S;                    /* -0.0 == 0.0 */\n"
                        "    return (b & S) ? (UT)~b : (UT)(b | S);\n}\n"
                        "#define LM_NAN(b) ((UT)((b) & (UT)~((UT)1 << (W - 1))) > (UT)%lluull)\n"
                        "#define LM_ZERO(b) ((UT)((b) & (UT)~((UT)1 << (W - 1))) == 0)\n",
                        (unsigned long long)inf, (unsigned long long)inf);
        base_str_cat(o, "static __device__ __forceinline__ UT lm_usk(UT k, const lm_u64 *fl) {\n"
                        "    const UT S = (UT)((UT)1 << (W - 1));\n"
                        "    if (k == (UT)~(UT)0) return (UT)fl[1];\n"
                        "    if (k == S) return fl[2] == 2 ? S : (UT)0;\n"
                        "    return (k & S) ? (UT)(k & (UT)~S) : (UT)~k;\n}\n");
    } else if (d->kind == IR_DKIND_INT) {
        base_str_cat(o, "    return (UT)(b ^ (UT)((UT)1 << (W - 1)));\n}\n"
                        "static __device__ __forceinline__ UT lm_usk(UT k, const lm_u64 *) {\n"
                        "    return (UT)(k ^ (UT)((UT)1 << (W - 1)));\n}\n");
    } else {
        base_str_cat(o, "    return b;\n}\n"
                        "static __device__ __forceinline__ UT lm_usk(UT k, const lm_u64 *) "
                        "{ return k; }\n");
    }
}

/* min_blocks: blocks per multiprocessor the compiler must leave registers for (0: none). */
static void open_kernel_min(base_str_t *o, const char *name, uint32_t n_params, int threads,
                            int min_blocks) {
    cg__emit_kernel_open(o, name, true, n_params);
    if (min_blocks)
        base_str_printf(
            o,
            "extern \"C\" __global__ void __launch_bounds__(%d, %d) %s(const lm_params_%s P) {\n",
            threads, min_blocks, name, name);
    else
        base_str_printf(
            o, "extern \"C\" __global__ void __launch_bounds__(%d) %s(const lm_params_%s P) {\n",
            threads, name, name);
}

static void open_kernel(base_str_t *o, const char *name, uint32_t n_params, int threads) {
    open_kernel_min(o, name, n_params, threads, 0);
}

static const char grid_loop[] =
    "    const lm_u64 step = (lm_u64)gridDim.x * blockDim.x;\n"
    "    for (lm_u64 t = (lm_u64)blockIdx.x * blockDim.x + threadIdx.x; t < n; t += step) {\n";

/* The line l of line-order position t and its element j; `at` the C-order offset of (l, j). */
static void emit_line_pos(const cg_sort_t *s, base_str_t *o, const char *t, const char *j,
                          const char *at) {
    base_str_printf(o, "        const lm_u64 l = %s / len, %s = %s - l * len;\n", t, j, t);
    if (s->inner == 1)
        base_str_printf(o, "        const lm_u64 %s = l * len + %s;\n", at, j);
    else
        base_str_printf(o,
                        "        const lm_u64 lo_ = l / inner, li_ = l - lo_ * inner;\n"
                        "        const lm_u64 %s = (lo_ * len + %s) * inner + li_;\n",
                        at, j);
}

/* The digit counts of every pass, as the sorts' PREP and the scatters' HIST count them: each
 * block into shared counters (hist_open: np passes), every element's key k (hist_key) and
 * line number l (hist_line), then added up over the blocks (hist_flush closes the kernel). */
static void emit_hist_open(base_str_t *o, int np) {
    base_str_printf(o,
                    "    __shared__ unsigned h[%d][256];\n"
                    "    for (int p = 0; p < kp + sp; p++) h[p][threadIdx.x] = 0;\n"
                    "    __syncthreads();\n",
                    np > 0 ? np : 1);
}
static const char hist_key[] =
    "        for (int p = 0; p < kp; p++) atomicAdd(&h[p][(unsigned)(k >> (8 * p)) & 255u], 1u);\n";
static const char hist_line[] =
    "        for (int p = 0; p < sp; p++) atomicAdd(&h[kp + p][(unsigned)(l "
    ">> (8 * p)) & 255u], 1u);\n";
static const char hist_flush[] =
    "    __syncthreads();\n"
    "    for (int p = 0; p < kp + sp; p++)\n"
    "        if (h[p][threadIdx.x]) atomicAdd(counts + p * 256 + threadIdx.x, "
    "(lm_u64)h[p][threadIdx.x]);\n"
    "}\n";

/* The digits of all passes at once (one read of the keys): counts[pass][256], added up over
 * the blocks with atomics. Line digits (seg) come from the payload / len. */
static void emit_hist(const cg_sort_t *s, base_str_t *o, const char *name) {
    /* words: n, keys, pays, counts (u64, zeroed), key passes, line passes, len */
    open_kernel(o, name, 7, 256);
    base_str_printf(o,
                    "    typedef %s KT;\n    typedef %s PT;\n"
                    "    const lm_u64 n = P.w[0], len = P.w[6];\n"
                    "    const KT *keys = (const KT *)P.w[1];\n"
                    "    const PT *pays = (const PT *)P.w[2];\n"
                    "    lm_u64 *counts = (lm_u64 *)P.w[3];\n"
                    "    const int kp = (int)P.w[4], sp = (int)P.w[5];\n"
                    "    (void)pays, (void)len, (void)sp;\n",
                    utype(s->kbytes), utype(s->pbytes));
    emit_hist_open(o, s->key_passes + s->seg_passes);
    base_str_cat(o,
                 "    const lm_u64 step = (lm_u64)gridDim.x * blockDim.x;\n"
                 "    for (lm_u64 i = (lm_u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += "
                 "step) {\n"
                 "        const KT k = keys[i];\n");
    base_str_cat(o, hist_key);
    if (s->seg) {
        base_str_cat(o, "        const lm_u64 l = (lm_u64)pays[i] / len;\n");
        base_str_cat(o, hist_line);
    }
    base_str_cat(o, "    }\n");
    base_str_cat(o, hist_flush);
}

static void emit_scan(base_str_t *o, const char *name) {
    /* words: m, counts (scanned in place, exclusive) */
    open_kernel(o, name, 2, 1024);
    base_str_cat(o, "    const lm_u64 m = P.w[0];\n"
                    "    lm_u64 *c = (lm_u64 *)P.w[1];\n"
                    "    __shared__ lm_u64 part[1024];\n"
                    "    const unsigned t = threadIdx.x;\n"
                    "    const lm_u64 chunk = (m + 1023) / 1024, lo = t * chunk;\n"
                    "    const lm_u64 hi = lo + chunk < m ? lo + chunk : m;\n"
                    "    lm_u64 s = 0;\n"
                    "    for (lm_u64 i = lo; i < hi; i++) s += c[i];\n"
                    "    part[t] = s;\n"
                    "    __syncthreads();\n"
                    "    for (unsigned off = 1; off < 1024; off *= 2) {\n"
                    "        const lm_u64 v = t >= off ? part[t - off] : 0;\n"
                    "        __syncthreads();\n"
                    "        part[t] += v;\n"
                    "        __syncthreads();\n"
                    "    }\n"
                    "    lm_u64 run = t ? part[t - 1] : 0;\n"
                    "    for (lm_u64 i = lo; i < hi; i++) {\n"
                    "        const lm_u64 v = c[i];\n"
                    "        c[i] = run;\n"
                    "        run += v;\n"
                    "    }\n}\n");
}

/* A float sort's payload test: the keys lost bits (PREP met both zeros, or two NaNs). */
static const char lossy[] = "(fl[0] != 0 || fl[2] == 3)";

/* The digit of key u in registers: of the key, or of the line number (payload / len). */
static const char dig_key[] = "(unsigned)((key[u] >> shift) & 255u)";
static const char dig_seg[] = "(unsigned)(((lm_u64)pay[u] / len >> shift) & 255u)";

/* text, each line but preprocessor ones indented by 4 more spaces. */
static void cat_indented(base_str_t *o, const char *text) {
    for (const char *l = text; *l;) {
        const char *e = strchr(l, '\n');
        size_t n = e ? (size_t)(e - l + 1) : strlen(l);
        if (*l != '#' && *l != '\n') base_str_cat(o, "    ");
        base_str_catn(o, l, n);
        l += n;
    }
}

/* A pass's loads of its tile's keys (and payloads) into registers and the per-warp digit
 * counts; full: a tile without the bounds tests (all but the last). */
static void emit_tile_load(bool seg, bool full, base_str_t *o) {
    const char *valid = full ? "true" : "idx < cnt";
    base_str_printf(o,
                    "#pragma unroll\n"
                    "    for (int u = 0; u < IPT; u++) {\n"
                    "        const unsigned idx = w0 + u * 32 + lane;\n"
                    "        key[u] = %s ? keys_in[tb + idx] : (KT)0;\n"
                    "        pay[u] = wp && %s ? pays_in[tb + idx] : (PT)0;\n"
                    "    }\n"
                    "#pragma unroll\n"
                    "    for (int u = 0; u < IPT; u++)\n",
                    valid, valid);
    if (full)
        base_str_printf(o, "        atomicAdd(&wh[warp][%s], 1u);\n", seg ? dig_seg : dig_key);
    else
        base_str_printf(o, "        if (w0 + u * 32 + lane < cnt) atomicAdd(&wh[warp][%s], 1u);\n",
                        seg ? dig_seg : dig_key);
}

/* The ranking: peers of one digit by 8 ballots (in PTX: the compiler's select took 5
 * instructions a bit, and the pass is bound by integer issue); the highest lane of a group
 * takes its places, and each key goes to its place in shared memory. */
static void emit_tile_rank(bool seg, bool full, base_str_t *o) {
    base_str_printf(
        o,
        "#pragma unroll\n"
        "    for (int u = 0; u < IPT; u++) {\n"
        "        const bool valid = %s;\n"
        "        const unsigned d = valid ? %s : 0u;\n"
        "        unsigned peers = __ballot_sync(0xffffffffu, valid), neg = 0;\n"
        "#pragma unroll\n"
        "        for (int b = 0; b < 8; b++) /* one vote and two predicated ops a bit */\n"
        "            asm(\"{\\n .reg .pred p;\\n .reg .b32 t, m;\\n and.b32 t, %%2, %%3;\\n\"\n"
        "                \" setp.ne.u32 p, t, 0;\\n vote.sync.ballot.b32 m, p, 0xffffffff;\\n\"\n"
        "                \" @p and.b32 %%0, %%0, m;\\n @!p or.b32 %%1, %%1, m;\\n}\"\n"
        "                : \"+r\"(peers), \"+r\"(neg) : \"r\"(d), \"r\"(1u << b));\n"
        "        peers &= ~neg;\n"
        "        const int leader = peers ? 31 - __clz(peers) : (int)lane;\n"
        "        unsigned at = 0;\n"
        "        if (valid && (int)lane == leader) at = atomicAdd(&wh[warp][d], __popc(peers));\n"
        "        at = __shfl_sync(0xffffffffu, at, leader) + __popc(peers & ((1u << lane) - 1u));\n"
        "        if (valid) {\n"
        "            sk[at] = key[u];\n"
        "            if (wp) sp[at] = pay[u];\n"
        "        }\n"
        "    }\n",
        full ? "true" : "w0 + u * 32 + lane < cnt", seg ? dig_seg : dig_key);
}

/* Both copies of a tile section: full tiles, then the last. */
static void emit_tile_both(bool seg, base_str_t *o, void (*emit)(bool, bool, base_str_t *)) {
    base_str_t t;
    base_str_init(&t, o->al);
    base_str_cat(o, "    if (cnt == TILE) {\n");
    emit(seg, true, &t);
    cat_indented(o, base_str_get(&t));
    base_str_reset(&t);
    base_str_cat(o, "    } else {\n");
    emit(seg, false, &t);
    cat_indented(o, base_str_get(&t));
    base_str_cat(o, "    }\n");
    if (t.failed) o->failed = true;
    base_str_fini(&t);
}

/* A pass's digit counts per warp (wh[warp][digit]) made exclusive over the warps, thread t
 * taking digit t; run: the tile's count of digit t. */
static const char warp_runs[] = "    unsigned run = 0;\n"
                                "    for (int w = 0; w < 8; w++) {\n"
                                "        const unsigned c = wh[w][t];\n"
                                "        wh[w][t] = run;\n"
                                "        run += c;\n"
                                "    }\n";

/* One pass (onesweep; see the file's comment). Warp w ranks the tile's elements
 * [w * 32 * IPT, (w + 1) * 32 * IPT), lane by lane in rounds of 32 (warp-striped, so that
 * the loads coalesce and the order of rounds, lanes and warps is the elements'). The tile's
 * counts are published before the ranking, so later tiles' look-backs do not wait on it. */
static void emit_scatter(const cg_sort_t *s, bool seg, base_str_t *o, const char *name) {
    /* words: n, keys, pays, keys out, pays out, counts (the pass's 256), status (the pass's,
     * zeroed), tile counter (the pass's, zeroed), shift, len, inner, PREP's words (a float
     * sort), the result (the last pass; else 0), x (a line-digit sort's elements) */
    bool sort = s->op == IR_OP_SORT, arg = s->op == IR_OP_ARGSORT;
    bool res = sort || arg;
    if (res) emit_twiddle(s, o);
    /* 2 blocks a multiprocessor for 32 keys a thread (their shared memory), 3 for 16 (76
     * registers, no spills), 4 for fewer */
    open_kernel_min(o, name, 14, CG_SORT_THREADS, s->ipt > 16 ? 2 : s->ipt == 16 ? 3 : 4);
    const char *wp = !s->keys_only                                ? "true"
                     : ir_dtypes[s->dtype].kind == IR_DKIND_FLOAT ? lossy
                                                                  : "false";
    base_str_printf(o,
                    "    typedef %s KT;\n    typedef %s PT;\n    typedef %s ST;\n"
                    "    enum { IPT = %d, TILE = %d * IPT, FSH = %d };\n"
                    "    const lm_u64 n = P.w[0], len = P.w[9], inner = P.w[10];\n"
                    "    const KT *keys_in = (const KT *)P.w[1];\n"
                    "    const PT *pays_in = (const PT *)P.w[2];\n"
                    "    KT *keys_out = (KT *)P.w[3];\n"
                    "    PT *pays_out = (PT *)P.w[4];\n"
                    "    const lm_u64 *counts = (const lm_u64 *)P.w[5];\n"
                    "    volatile ST *status = (volatile ST *)P.w[6];\n"
                    "    unsigned *tiles = (unsigned *)P.w[7];\n"
                    "    const unsigned shift = (unsigned)P.w[8];\n"
                    "%s"
                    "    const bool wp = %s; /* payloads carried */\n"
                    "    (void)len, (void)inner;\n",
                    utype(s->kbytes), utype(s->pbytes), s->wide ? "lm_u64" : "lm_u32", s->ipt,
                    CG_SORT_THREADS, s->wide ? 62 : 30,
                    s->keys_only ? "    const lm_u64 *fl = (const lm_u64 *)P.w[11];\n" : "", wp);
    if (res)
        base_str_printf(o, "    %s *out = (%s *)P.w[12];\n", arg ? "lm_i64" : "UT",
                        arg ? "lm_i64" : "UT");
    if (sort && s->seg) base_str_cat(o, "    const UT *x = (const UT *)P.w[13];\n");
    const char *dig_sh = seg ? "(unsigned)(((lm_u64)sp[p] / len >> shift) & 255u)"
                             : "(unsigned)((k >> shift) & 255u)";
    base_str_cat(
        o,
        "    __shared__ unsigned wh[8][256], wsum[8], tile_s;\n"
        "    __shared__ lm_u64 gb[256], gsum[8];\n"
        "    extern __shared__ __align__(16) unsigned char lm_dsm[]; /* the tile's keys, pays */\n"
        "    KT *const sk = (KT *)lm_dsm;\n"
        "    PT *const sp = (PT *)(lm_dsm + TILE * sizeof(KT));\n"
        "    const unsigned t = threadIdx.x, warp = t / 32, lane = t % 32;\n"
        "    const ST F1 = (ST)1 << FSH, F2 = (ST)2 << FSH, VAL = F1 - 1;\n"
        "    if (t == 0) tile_s = atomicAdd(tiles, 1u); /* tiles in the order blocks start */\n"
        "    for (unsigned k = lane; k < 256; k += 32) wh[warp][k] = 0;\n"
        "    __syncthreads();\n"
        "    const lm_u64 tile = tile_s, tb = tile * TILE;\n"
        "    const unsigned cnt = (unsigned)(n - tb < TILE ? n - tb : TILE);\n"
        "    const unsigned w0 = warp * 32 * IPT;\n"
        "    KT key[IPT];\n"
        "    PT pay[IPT];\n");
    /* the tile's keys, their digits counted; then ranked. Full tiles (all but the last) run
     * a copy without the bounds tests: the pass is bound by integer issue */
    emit_tile_both(seg, o, emit_tile_load);
    base_str_cat(o, "    __syncthreads();\n"
                    "    /* thread t: digit t. Its count before each warp, the tile's count "
                    "published */\n");
    base_str_cat(o, warp_runs);
    base_str_cat(
        o, "    status[tile * 256 + t] = (tile == 0 ? F2 : F1) | (ST)run;\n"
           "    unsigned x_ = run; /* the tile's digits before t; all tiles' (counts) before t */\n"
           "    lm_u64 g = counts[t];\n"
           "    for (int d = 1; d < 32; d *= 2) {\n"
           "        const unsigned y = __shfl_up_sync(0xffffffffu, x_, d);\n"
           "        const lm_u64 h = __shfl_up_sync(0xffffffffu, g, d);\n"
           "        if (lane >= (unsigned)d) x_ += y, g += h;\n"
           "    }\n"
           "    if (lane == 31) { wsum[warp] = x_; gsum[warp] = g; }\n"
           "    __syncthreads();\n"
           "    for (unsigned w = 0; w < warp; w++) { x_ += wsum[w]; g += gsum[w]; }\n"
           "    const unsigned ts = x_ - run;\n"
           "    const lm_u64 gx = g - counts[t];\n"
           "    for (int w = 0; w < 8; w++) wh[w][t] += ts;\n"
           "    __syncthreads();\n");
    emit_tile_both(seg, o, emit_tile_rank);
    base_str_printf(o,
                    "    /* the tiles before this one: their counts of digit t */\n"
                    "    lm_u64 excl = 0;\n"
                    "    for (lm_u64 b = tile; b > 0;) {\n"
                    "        const ST w = status[(b - 1) * 256 + t], f = w & (ST)~VAL;\n"
                    "        if (f == F1) { excl += w & VAL; b--; }\n"
                    "        else if (f == F2) { excl += w & VAL; break; }\n"
                    "    }\n"
                    "    if (tile > 0) status[tile * 256 + t] = F2 | (ST)(excl + run);\n"
                    "    gb[t] = gx + excl - ts;\n"
                    "    __syncthreads();\n"
                    "    for (unsigned p = t; p < cnt; p += %d) {\n"
                    "        const KT k = sk[p];\n"
                    "        const lm_u64 at = gb[%s] + p;\n",
                    CG_SORT_THREADS, dig_sh);
    if (res) {
        base_str_cat(o, "        if (out) {\n");
        if (s->inner == 1)
            base_str_cat(o, "            const lm_u64 dst = at;\n");
        else
            emit_line_pos(s, o, "at", "j", "dst");
        if (arg) /* (a sort by line digits: positions in line order) */
            base_str_printf(o, "            out[dst] = (lm_i64)%s;\n",
                            s->seg ? "((lm_u64)sp[p] % len)" : "sp[p]");
        else if (!s->seg)
            base_str_cat(o, "            out[dst] = wp ? (UT)sp[p] : lm_usk((UT)k, fl);\n");
        else if (s->inner == 1) /* sp[p]: the element's position in line order, its line */
            base_str_cat(o, "            out[dst] = x[sp[p]];\n");
        else
            base_str_cat(
                o, "            out[dst] = x[(lo_ * len + (lm_u64)sp[p] % len) * inner + li_];\n");
        base_str_cat(o, "            continue;\n        }\n");
    }
    base_str_cat(o, "        keys_out[at] = k;\n"
                    "        if (wp) pays_out[at] = sp[p];\n"
                    "    }\n}\n");
}

/* ROWS: a block a line of at most TILE contiguous elements (grid-stride over lines). The
 * line's keys and positions go to shared memory; each 8-bit pass ranks them as a SCATTER
 * tile does (per-warp digit counts, their scan over the tile, peers by ballots) and places
 * them back in shared memory, a stable counting sort of the line; the last pass's order is
 * written out: the positions (argsort) or the elements at them (sort: their own bits, so
 * both zeros and every NaN keep theirs). */
static void emit_rows(const cg_sort_t *s, base_str_t *o, const char *name) {
    /* words: x, out, len, lines */
    bool arg = s->op == IR_OP_ARGSORT;
    emit_twiddle(s, o);
    open_kernel_min(o, name, 4, CG_SORT_THREADS, s->ipt >= 32 ? 2 : s->ipt >= 16 ? 3 : 4);
    base_str_printf(o,
                    "    typedef UT KT;\n    typedef lm_u16 PT;\n"
                    "    enum { IPT = %d, TILE = %d * IPT };\n"
                    "    const UT *x = (const UT *)P.w[0];\n"
                    "    %s *out = (%s *)P.w[1];\n"
                    "    const lm_u64 len = P.w[2], lines = P.w[3];\n"
                    "    __shared__ unsigned wh[8][256], wsum[8];\n"
                    "    extern __shared__ __align__(16) unsigned char lm_dsm[]; /* keys, pays */\n"
                    "    KT *const sk = (KT *)lm_dsm;\n"
                    "    PT *const sp = (PT *)(lm_dsm + TILE * sizeof(KT));\n"
                    "    const KT *const keys_in = sk;\n"
                    "    const PT *const pays_in = sp;\n"
                    "    const unsigned t = threadIdx.x, warp = t / 32, lane = t %% 32;\n"
                    "    const unsigned cnt = (unsigned)len, w0 = warp * 32 * IPT, tb = 0;\n"
                    "    const bool wp = true; /* payloads carried */\n"
                    "    KT key[IPT];\n"
                    "    PT pay[IPT];\n"
                    "    for (lm_u64 l = blockIdx.x; l < lines; l += gridDim.x) {\n"
                    "        const UT *xl = x + l * len;\n"
                    "        for (unsigned i = t; i < cnt; i += %d) {\n"
                    "            sk[i] = lm_sk(xl[i]);\n"
                    "            sp[i] = (PT)i;\n"
                    "        }\n"
                    "        for (unsigned shift = 0; shift < W; shift += 8) {\n"
                    "            for (unsigned k = lane; k < 256; k += 32) wh[warp][k] = 0;\n"
                    "            __syncthreads();\n",
                    s->ipt, CG_SORT_THREADS, arg ? "lm_i64" : "UT", arg ? "lm_i64" : "UT",
                    CG_SORT_THREADS);
    base_str_t t;
    base_str_init(&t, o->al);
    emit_tile_both(false, &t, emit_tile_load);
    base_str_cat(&t, "    __syncthreads();\n"
                     "    /* thread t: digit t. Its count before each warp, then before the digit "
                     "*/\n");
    base_str_cat(&t, warp_runs);
    base_str_cat(&t, "    unsigned x_ = run;\n"
                     "    for (int d = 1; d < 32; d *= 2) {\n"
                     "        const unsigned y = __shfl_up_sync(0xffffffffu, x_, d);\n"
                     "        if (lane >= (unsigned)d) x_ += y;\n"
                     "    }\n"
                     "    if (lane == 31) wsum[warp] = x_;\n"
                     "    __syncthreads();\n"
                     "    for (unsigned w = 0; w < warp; w++) x_ += wsum[w];\n"
                     "    const unsigned ts = x_ - run;\n"
                     "    for (int w = 0; w < 8; w++) wh[w][t] += ts;\n"
                     "    __syncthreads();\n");
    emit_tile_both(false, &t, emit_tile_rank);
    base_str_cat(&t, "    __syncthreads();\n");
    /* (two levels in: the line loop and the pass loop) */
    base_str_t t2;
    base_str_init(&t2, o->al);
    cat_indented(&t2, base_str_get(&t));
    cat_indented(o, base_str_get(&t2));
    if (t.failed || t2.failed) o->failed = true;
    base_str_fini(&t);
    base_str_fini(&t2);
    base_str_printf(o,
                    "        }\n"
                    "        for (unsigned p = t; p < cnt; p += %d) out[l * len + p] = %s;\n"
                    "        __syncthreads();\n"
                    "    }\n}\n",
                    CG_SORT_THREADS, arg ? "(lm_i64)sp[p]" : "xl[sp[p]]");
}

/* A sort's keys (and payloads unless keys_only), the digit counts of every pass, and for a
 * float sort the words that say what the keys lose: [0] two NaN bit patterns met, [1] the
 * NaN's bits, [2] zeros met (1: +0.0, 2: -0.0; 3: both). */
static void emit_sort_prep(const cg_sort_t *s, base_str_t *o, const char *name) {
    /* words: n, x, keys, pays, len, inner, counts (u64, zeroed), PREP's words (zeroed), key
     * passes, line passes */
    bool fl = s->keys_only && ir_dtypes[s->dtype].kind == IR_DKIND_FLOAT;
    int np = s->key_passes + s->seg_passes;
    emit_twiddle(s, o);
    open_kernel(o, name, 10, 256);
    bool pays = !s->keys_only;
    base_str_printf(o,
                    "    typedef %s KT;\n"
                    "    const lm_u64 n = P.w[0], len = P.w[4], inner = P.w[5];\n"
                    "    const UT *x = (const UT *)P.w[1];\n"
                    "    KT *keys = (KT *)P.w[2];\n"
                    "    lm_u64 *counts = (lm_u64 *)P.w[6];\n"
                    "    const int kp = (int)P.w[8], sp = (int)P.w[9];\n"
                    "    (void)inner, (void)sp;\n",
                    utype(s->kbytes));
    emit_hist_open(o, np);
    if (pays)
        base_str_printf(o, "    typedef %s PT;\n    PT *pays = (PT *)P.w[3];\n", utype(s->pbytes));
    if (fl)
        base_str_cat(o, "    lm_u64 *fl = (lm_u64 *)P.w[7];\n"
                        "    UT nb = 0;               /* the NaN met */\n"
                        "    unsigned zc = 0, nc = 0; /* zeros met; two NaNs */\n");
    base_str_cat(o, grid_loop);
    emit_line_pos(s, o, "t", "j", "src");
    base_str_cat(o, "        const UT b = x[src];\n");
    if (s->seg)
        base_str_cat(o, "        const KT k = (KT)lm_sk(b);\n        pays[t] = (PT)t;\n");
    else
        base_str_cat(o, "        const KT k = (KT)lm_sk(b) | (W < 64 ? (KT)((lm_u64)l << (W % "
                        "64)) : (KT)0);\n");
    base_str_cat(o, "        keys[t] = k;\n");
    if (s->op == IR_OP_ARGSORT && !s->seg) base_str_cat(o, "        pays[t] = (PT)j;\n");
    if (fl)
        base_str_cat(o, "        if (LM_NAN(b)) {\n"
                        "            if (nb == 0) nb = b;\n"
                        "            else if (nb != b) nc = 1;\n"
                        "        } else if (LM_ZERO(b)) {\n"
                        "            zc |= b ? 2u : 1u;\n"
                        "        }\n");
    base_str_cat(o, hist_key);
    if (s->seg) base_str_cat(o, hist_line);
    base_str_cat(o, "    }\n");
    if (fl)
        base_str_cat(
            o,
            "    /* a warp's zeros and NaNs, then one atomic each */\n"
            "    for (int d = 16; d > 0; d /= 2) zc |= __shfl_xor_sync(0xffffffffu, zc, d);\n"
            "    const unsigned hv = __ballot_sync(0xffffffffu, nb != 0);\n"
            "    if (hv) {\n"
            "        const UT v = (UT)__shfl_sync(0xffffffffu, (lm_u64)nb, __ffs(hv) - 1);\n"
            "        const unsigned two = __ballot_sync(0xffffffffu, nc || (nb != 0 && nb != v));\n"
            "        if (threadIdx.x % 32 == 0) {\n"
            "            if (two) fl[0] = 1;\n"
            "            else {\n"
            "                const lm_u64 old = atomicCAS((unsigned long long *)fl + 1, 0ull, "
            "(unsigned long long)v);\n"
            "                if (old != 0 && old != (lm_u64)v) fl[0] = 1;\n"
            "            }\n"
            "        }\n"
            "    }\n"
            "    if (threadIdx.x % 32 == 0 && zc) atomicOr((unsigned long long *)fl + 2, "
            "(unsigned long long)zc);\n");
    base_str_cat(o, hist_flush);
}

/* A float sort's payloads (the element's bits), written only where PREP found that the keys
 * lose bits. */
static void emit_sort_pays(const cg_sort_t *s, base_str_t *o, const char *name) {
    /* words: n, x, pays, len, inner, PREP's words */
    emit_twiddle(s, o);
    open_kernel(o, name, 6, 256);
    base_str_printf(o,
                    "    typedef %s PT;\n"
                    "    const lm_u64 n = P.w[0], len = P.w[3], inner = P.w[4];\n"
                    "    const UT *x = (const UT *)P.w[1];\n"
                    "    PT *pays = (PT *)P.w[2];\n"
                    "    const lm_u64 *fl = (const lm_u64 *)P.w[5];\n"
                    "    (void)inner;\n"
                    "    if (!%s) return;\n",
                    utype(s->pbytes), lossy);
    base_str_cat(o, grid_loop);
    emit_line_pos(s, o, "t", "j", "src");
    base_str_cat(o, "        pays[t] = (PT)x[src];\n    }\n}\n");
}

static void emit_search(const cg_sort_t *s, base_str_t *o, const char *name) {
    /* words: n, sorted, len, values, out */
    emit_twiddle(s, o);
    open_kernel(o, name, 5, 256);
    base_str_cat(o, "    const lm_u64 n = P.w[0], len = P.w[2];\n"
                    "    const UT *a = (const UT *)P.w[1];\n"
                    "    const UT *v = (const UT *)P.w[3];\n"
                    "    lm_i64 *out = (lm_i64 *)P.w[4];\n");
    base_str_cat(o, grid_loop);
    base_str_printf(o,
                    "        const UT key = lm_sk(v[t]);\n"
                    "        lm_u64 lo = 0, hi = len; /* the first element that goes after key */\n"
                    "        while (lo < hi) {\n"
                    "            const lm_u64 mid = lo + (hi - lo) / 2;\n"
                    "            const UT at = lm_sk(a[mid]);\n"
                    "            if (%s) hi = mid; else lo = mid + 1;\n"
                    "        }\n"
                    "        out[t] = (lm_i64)lo;\n    }\n}\n",
                    s->mode ? "key < at" : "!(at < key)");
}

/* CORRELATE: a block computes CG_CORR_TILE consecutive outputs, CG_CORR_PER consecutive ones a
 * thread, over chunks of up to KC taps: the chunk's stretch of a (zeros off its ends) and its
 * taps staged in shared memory, each thread's window of a in registers, sliding by
 * CG_CORR_PER taps a step (one shared load per output and step instead of one per product;
 * threads' windows CG_CORR_PER apart, odd, so their loads hit different banks). A block whose
 * stretch lies inside a runs the unguarded loop; one at an end skips the terms outside a, as
 * the reference does (0 * inf would be NaN). Each output adds its terms in order of i. */
static void emit_correlate(const cg_sort_t *s, base_str_t *o, const char *name) {
    /* words: out, a, v, n1, n2, len, offset, flip */
    open_kernel(o, name, 8, CG_CORR_THREADS);
    base_str_printf(
        o,
        "    typedef %s T;\n"
        "    enum { R = %d, TPB = %d, TILE = %d, KC = %d };\n"
        "    T *out = (T *)P.w[0];\n"
        "    const T *a = (const T *)P.w[1], *v = (const T *)P.w[2];\n"
        "    const long long n1 = (long long)P.w[3], n2 = (long long)P.w[4];\n"
        "    const long long len = (long long)P.w[5], off = (long long)P.w[6];\n"
        "    const bool flip = P.w[7] != 0;\n"
        "    __shared__ T xs[TILE + KC];\n"
        "    __shared__ T vs[KC];\n"
        "    const long long t0 = (long long)blockIdx.x * TILE;\n"
        "    const int tid = threadIdx.x;\n"
        "    const bool inside = off + t0 >= 0 && off + t0 + TILE + n2 <= n1;\n"
        "    T acc[R];\n"
        "#pragma unroll\n"
        "    for (int r = 0; r < R; r++) acc[r] = (T)0;\n"
        "    for (long long c0 = 0; c0 < n2; c0 += KC) {\n"
        "        const int kc = n2 - c0 < KC ? (int)(n2 - c0) : KC;\n"
        "        for (int q = tid; q < TILE + kc; q += TPB) {\n"
        "            const long long j = off + t0 + c0 + q;\n"
        "            xs[q] = j >= 0 && j < n1 ? a[j] : (T)0;\n"
        "        }\n"
        "        for (int q = tid; q < kc; q += TPB) vs[q] = v[flip ? n2 - 1 - (c0 + q) : c0 + q];\n"
        "        __syncthreads();\n"
        "        const T *xp = xs + tid * R;\n"
        "        if (inside) {\n"
        "            T w[R];\n"
        "#pragma unroll\n"
        "            for (int r = 0; r < R; r++) w[r] = xp[r];\n"
        "            int i = 0;\n"
        "            for (; i + R <= kc; i += R) {\n"
        "                T nx[R];\n"
        "#pragma unroll\n"
        "                for (int q = 0; q < R; q++) nx[q] = xp[i + R + q];\n"
        "#pragma unroll\n"
        "                for (int q = 0; q < R; q++) {\n"
        "                    const T vi = vs[i + q];\n"
        "#pragma unroll\n"
        "                    for (int r = 0; r < R; r++)\n"
        "                        acc[r] = acc[r] + (r + q < R ? w[r + q] : nx[r + q - R]) * vi;\n"
        "                }\n"
        "#pragma unroll\n"
        "                for (int r = 0; r < R; r++) w[r] = nx[r];\n"
        "            }\n"
        "            for (; i < kc; i++) {\n"
        "                const T vi = vs[i];\n"
        "#pragma unroll\n"
        "                for (int r = 0; r < R; r++) acc[r] = acc[r] + xp[r + i] * vi;\n"
        "            }\n"
        "        } else {\n"
        "            const long long j0 = off + t0 + (long long)tid * R + c0;\n"
        "            for (int i = 0; i < kc; i++) {\n"
        "                const T vi = vs[i];\n"
        "#pragma unroll\n"
        "                for (int r = 0; r < R; r++)\n"
        "                    if (j0 + r + i >= 0 && j0 + r + i < n1) acc[r] = acc[r] + xp[r + i] * vi;\n"
        "            }\n"
        "        }\n"
        "        __syncthreads();\n"
        "    }\n"
        "#pragma unroll\n"
        "    for (int r = 0; r < R; r++) {\n"
        "        const long long t = t0 + (long long)tid * R + r;\n"
        "        if (t < len) out[t] = acc[r];\n"
        "    }\n"
        "}\n",
        s->dtype == LOOM_DTYPE_F64 ? "double" : "float", CG_CORR_PER, CG_CORR_THREADS,
        CG_CORR_TILE, s->dtype == LOOM_DTYPE_F64 ? 512 : 1024);
}

/* SELECT: a block a line (a grid-stride loop over lines). The ranks' keys are found a byte at
 * a time from the top (radix select). A line of up to 32 KiB is read once, into shared memory
 * as keys, its loads all in flight together; a longer one is read again each pass (the later
 * passes mostly from L2). Each pass counts, in shared memory, the digit of every key that
 * agrees with a rank's prefix so far, once for ranks that share a prefix (the neighbours of a
 * median do until the last passes), lanes with one digit adding once (__match_any_sync: the
 * first pass meets few distinct digits); then one warp scans each rank's 256 counts for the
 * digit holding the rank and keeps the rank's place among the keys with that digit. After
 * the last pass a rank's key is known and, but for the keys of float zeros and NaNs, gives
 * the element; for those the block counts the matching elements in line order to the rank's
 * place among them and writes that element's bits, as the stable sort would. */
static void emit_select(const cg_sort_t *s, base_str_t *o, const char *name) {
    /* words: lines, x, len, inner, out, m, ranks[8] */
    bool fl = ir_dtypes[s->dtype].kind == IR_DKIND_FLOAT;
    emit_twiddle(s, o);
    open_kernel(o, name, 6 + LOOM_MAX_DIMS, CG_SELECT_THREADS);
    base_str_cat(
        o,
        "    const lm_u64 lines = P.w[0], len = P.w[2], inner = P.w[3];\n"
        "    const UT *x = (const UT *)P.w[1];\n"
        "    UT *out = (UT *)P.w[4];\n"
        "    const int m = (int)P.w[5];\n"
        "    enum { CAP = 32768 / sizeof(UT) };\n"
        "    __shared__ UT ks[CAP];\n"
        "    __shared__ unsigned hist[8][256];\n"
        "    __shared__ UT pre[8];\n"
        "    __shared__ lm_u64 rem[8];\n"
        "    __shared__ int grp[8];\n"
        "    __shared__ unsigned wc[32];\n"
        "    const int tid = threadIdx.x, T = blockDim.x, lane = tid & 31, warp = tid >> 5;\n"
        "    const bool staged = len <= CAP;\n"
        "    for (lm_u64 l = blockIdx.x; l < lines; l += gridDim.x) {\n"
        "        const UT *xl = x + (l / inner) * len * inner + l % inner;\n"
        "        __syncthreads();\n"
        "        if (tid < m) {\n"
        "            pre[tid] = 0;\n"
        "            rem[tid] = P.w[6 + tid];\n"
        "        }\n"
        "        if (staged) {\n"
        "#pragma unroll 8\n"
        "            for (lm_u64 j = tid; j < len; j += T) ks[j] = lm_sk(xl[j * inner]);\n"
        "        }\n"
        "        for (int pass = W / 8 - 1; pass >= 0; pass--) {\n"
        "            const int shift = pass * 8;\n"
        "            const UT hi = pass == W / 8 - 1 ? (UT)0 : (UT)((UT)~(UT)0 << (shift + 8));\n"
        "            for (int q = tid; q < m * 256; q += T) hist[q >> 8][q & 255] = 0;\n"
        "            if (tid < m) { /* the first rank with this prefix counts for all */\n"
        "                int g = tid;\n"
        "                for (int r = 0; r < tid; r++)\n"
        "                    if (pre[r] == pre[tid]) {\n"
        "                        g = r;\n"
        "                        break;\n"
        "                    }\n"
        "                grp[tid] = g;\n"
        "            }\n"
        "            __syncthreads();\n"
        "            UT pr[8];\n"
        "            bool own[8];\n"
        "#pragma unroll\n"
        "            for (int r = 0; r < 8; r++) {\n"
        "                pr[r] = r < m ? pre[r] : (UT)0;\n"
        "                own[r] = r < m && grp[r] == r;\n"
        "            }\n"
        "#pragma unroll 4\n"
        "            for (lm_u64 j0 = 0; j0 < len; j0 += T) {\n"
        "                const lm_u64 j = j0 + tid;\n"
        "                const bool in = j < len;\n"
        "                const UT k = !in ? (UT)0 : staged ? ks[j] : lm_sk(xl[j * inner]);\n"
        "                const unsigned d = (unsigned)(k >> shift) & 255u;\n"
        "#pragma unroll\n"
        "                for (int r = 0; r < 8; r++) {\n"
        "                    if (!own[r]) continue;\n"
        "                    const bool want = in && ((k ^ pr[r]) & hi) == 0;\n"
        "                    if (!__any_sync(0xffffffffu, want)) continue;\n"
        "                    const unsigned g =\n"
        "                        __match_any_sync(0xffffffffu, want ? d : 256u + lane);\n"
        "                    if (want && lane == __ffs(g) - 1)\n"
        "                        atomicAdd(&hist[r][d], (unsigned)__popc(g));\n"
        "                }\n"
        "            }\n"
        "            __syncthreads();\n"
        "            if (warp == 0)\n"
        "                for (int r = 0; r < m; r++) {\n"
        "                    const unsigned *h = hist[grp[r]];\n"
        "                    unsigned c[8], sum = 0;\n"
        "#pragma unroll\n"
        "                    for (int b = 0; b < 8; b++) sum += (c[b] = h[lane * 8 + b]);\n"
        "                    unsigned inc = sum;\n"
        "#pragma unroll\n"
        "                    for (int off = 1; off < 32; off <<= 1) {\n"
        "                        const unsigned v = __shfl_up_sync(0xffffffffu, inc, off);\n"
        "                        if (lane >= off) inc += v;\n"
        "                    }\n"
        "                    lm_u64 below = inc - sum;\n"
        "                    const lm_u64 want = rem[r];\n"
        "                    __syncwarp();\n"
        "                    if (want >= below && want < below + sum) {\n"
        "                        int b = 0;\n"
        "                        while (want >= below + c[b]) below += c[b++];\n"
        "                        pre[r] = (UT)(pre[r] | (UT)((UT)(lane * 8 + b) << shift));\n"
        "                        rem[r] = want - below;\n"
        "                    }\n"
        "                    __syncwarp();\n"
        "                }\n"
        "            __syncthreads();\n"
        "        }\n"
        "        UT *ol = out + (l / inner) * (lm_u64)m * inner + l % inner;\n"
        "        for (int r = 0; r < m; r++) {\n"
        "            const UT key = pre[r];\n");
    if (fl)
        base_str_cat(
            o, "            if (key == (UT)~(UT)0 || key == (UT)((UT)1 << (W - 1))) {\n"
               "                /* a zero or a NaN: the element of that class at the rank's place\n"
               "                 * among them, counted in line order */\n"
               "                const bool nan = key == (UT)~(UT)0;\n"
               "                const lm_u64 want = rem[r];\n"
               "                lm_u64 seen = 0;\n"
               "                for (lm_u64 j0 = 0; j0 < len && seen <= want; j0 += T) {\n"
               "                    const lm_u64 j = j0 + tid;\n"
               "                    const UT b = j < len ? xl[j * inner] : (UT)0;\n"
               "                    const bool hit = j < len && (nan ? LM_NAN(b) : LM_ZERO(b));\n"
               "                    const unsigned bal = __ballot_sync(0xffffffffu, hit);\n"
               "                    if (lane == 0) wc[warp] = (unsigned)__popc(bal);\n"
               "                    __syncthreads();\n"
               "                    lm_u64 all = 0, before = seen;\n"
               "                    before += __popc(bal & ((1u << lane) - 1u));\n"
               "                    for (int w = 0; w < T / 32; w++) {\n"
               "                        if (w < warp) before += wc[w];\n"
               "                        all += wc[w];\n"
               "                    }\n"
               "                    if (hit && before == want) ol[(lm_u64)r * inner] = b;\n"
               "                    seen += all;\n"
               "                    __syncthreads();\n"
               "                }\n"
               "                continue;\n"
               "            }\n");
    base_str_cat(o, "            if (tid == 0) {\n"
                    "                const lm_u64 fl[3] = {0, 0, 0};\n"
                    "                ol[(lm_u64)r * inner] = lm_usk(key, fl);\n"
                    "            }\n"
                    "        }\n"
                    "    }\n"
                    "}\n");
}

/* flatnonzero's passes: each block counts, then writes, its contiguous range of
 * the mask, 16 consecutive elements a thread per round (4096 a block), so that a round keeps
 * 16 loads in flight per thread and pays its two barriers once per 4096 elements. */
static void emit_nz_count(base_str_t *o, const char *name) {
    /* words: n, x, counts, per */
    open_kernel(o, name, 4, 256);
    base_str_cat(
        o, "    const lm_u64 n = P.w[0], per = P.w[3];\n"
           "    const lm_u8 *x = (const lm_u8 *)P.w[1];\n"
           "    lm_u64 *counts = (lm_u64 *)P.w[2];\n"
           "    const lm_u64 lo = (lm_u64)blockIdx.x * per, hi = lo + per < n ? lo + per : n;\n"
           "    unsigned c = 0;\n"
           "    for (lm_u64 i0 = lo + threadIdx.x * 16; i0 < hi; i0 += 256 * 16) {\n"
           "        if (i0 + 16 <= hi) {\n"
           "#pragma unroll\n"
           "            for (int j = 0; j < 16; j++) c += x[i0 + j] != 0;\n"
           "        } else {\n"
           "            for (lm_u64 i = i0; i < hi; i++) c += x[i] != 0;\n"
           "        }\n"
           "    }\n"
           "    for (int d = 16; d > 0; d /= 2) c += __shfl_down_sync(0xffffffffu, c, d);\n"
           "    __shared__ unsigned ws[8];\n"
           "    if (threadIdx.x % 32 == 0) ws[threadIdx.x / 32] = c;\n"
           "    __syncthreads();\n"
           "    if (threadIdx.x == 0) {\n"
           "        lm_u64 s = 0;\n"
           "        for (int w = 0; w < 8; w++) s += ws[w];\n"
           "        counts[blockIdx.x] = s;\n"
           "    }\n}\n");
}

/* flatnonzero: each true element's position. A tile is R rounds of 256 consecutive elements,
 * one a thread (coalesced loads); the warps' ballots and one scan of their counts place the
 * kept ones in shared memory in order, and the block writes them out contiguously. The last
 * block fills what no true element reached. */
static void emit_nz_write(base_str_t *o, const char *name) {
    /* words: n, x, offsets, per, out, len (the result's extent: elements past it dropped) */
    open_kernel(o, name, 6, 256);
    base_str_cat(o, "    typedef lm_i64 VT;\n");
    base_str_printf(
        o,
        "    enum { R = %d, E = R * 8 / 32 };\n"
        "    const lm_u64 n = P.w[0], per = P.w[3], len = P.w[5];\n"
        "    const lm_u8 *x = (const lm_u8 *)P.w[1];\n"
        "    const lm_u64 *offs = (const lm_u64 *)P.w[2];\n"
        "    VT *out = (VT *)P.w[4];\n"
        "    __shared__ VT buf[256 * R];\n"
        "    __shared__ unsigned wc[R * 8 + 1]; /* the warps' counts, round by round */\n"
        "    const unsigned t = threadIdx.x, warp = t / 32, lane = t %% 32;\n"
        "    const unsigned below = (1u << lane) - 1u;\n"
        "    lm_u64 base = offs[blockIdx.x];\n"
        "    const lm_u64 lo = (lm_u64)blockIdx.x * per, hi = lo + per < n ? lo + per : n;\n"
        "    for (lm_u64 i0 = lo; i0 < hi && base < len; i0 += 256 * R) {\n"
        "        unsigned b[R];\n"
        "#pragma unroll\n"
        "        for (int r = 0; r < R; r++) {\n"
        "            const lm_u64 i = i0 + (lm_u64)r * 256 + t;\n"
        "            b[r] = __ballot_sync(0xffffffffu, i < hi && x[i] != 0);\n"
        "            if (lane == 0) wc[r * 8 + warp] = __popc(b[r]);\n"
        "        }\n"
        "        __syncthreads();\n"
        "        if (warp == 0) { /* exclusive scan of the counts, E a lane; the total last */\n"
        "            unsigned v[E], sum = 0;\n"
        "#pragma unroll\n"
        "            for (int e = 0; e < E; e++) sum += v[e] = wc[lane * E + e];\n"
        "            unsigned inc = sum;\n"
        "#pragma unroll\n"
        "            for (int d = 1; d < 32; d *= 2) {\n"
        "                const unsigned u = __shfl_up_sync(0xffffffffu, inc, d);\n"
        "                if (lane >= (unsigned)d) inc += u;\n"
        "            }\n"
        "            unsigned ex = inc - sum;\n"
        "#pragma unroll\n"
        "            for (int e = 0; e < E; e++) wc[lane * E + e] = ex, ex += v[e];\n"
        "            if (lane == 31) wc[R * 8] = inc;\n"
        "        }\n"
        "        __syncthreads();\n"
        "        const unsigned total = wc[R * 8];\n"
        "#pragma unroll\n"
        "        for (int r = 0; r < R; r++)\n"
        "            if ((b[r] >> lane) & 1u) {\n"
        "                const lm_u64 i = i0 + (lm_u64)r * 256 + t;\n"
        "                buf[wc[r * 8 + warp] + __popc(b[r] & below)] = (lm_i64)i;\n"
        "            }\n"
        "        __syncthreads();\n"
        "        for (unsigned q = t; q < total && base + q < len; q += 256) out[base + q] = "
        "buf[q];\n"
        "        base += total;\n"
        "        __syncthreads();\n"
        "    }\n"
        "    if (blockIdx.x == gridDim.x - 1)\n"
        "        for (lm_u64 q = base + t; q < len; q += 256) out[q] = -1;\n"
        "}\n",
        16);
}

static void emit_scatter_prep(const cg_sort_t *s, base_str_t *o, const char *name) {
    /* words: n, indices, keys, pays, size */
    open_kernel(o, name, 5, 256);
    base_str_printf(o,
                    "    typedef %s KT;\n    typedef %s PT;\n"
                    "    const lm_u64 n = P.w[0], size = P.w[4];\n"
                    "    const lm_i64 *idx = (const lm_i64 *)P.w[1];\n"
                    "    KT *keys = (KT *)P.w[2];\n"
                    "    PT *pays = (PT *)P.w[3];\n",
                    utype(s->kbytes), utype(s->pbytes));
    base_str_cat(o, grid_loop);
    base_str_cat(o, "        const lm_i64 k = idx[t]; /* outside: skipped, sorted last */\n"
                    "        keys[t] = (KT)(k >= 0 && (lm_u64)k < size ? (lm_u64)k : size);\n"
                    "        pays[t] = (PT)t;\n    }\n}\n");
}

static void emit_scatter_apply(const cg_sort_t *s, base_str_t *o, const char *name) {
    /* words: n, keys, pays, values, out, size, the values' stride (1, or 0: one value) */
    const char *ty = ir_dtypes[s->dtype].ctype, *sf = ir_dtypes[s->dtype].sfx;
    open_kernel(o, name, 7, 256);
    base_str_printf(o,
                    "    typedef %s KT;\n    typedef %s PT;\n"
                    "    const lm_u64 n = P.w[0], size = P.w[5], vs = P.w[6];\n"
                    "    const KT *keys = (const KT *)P.w[1];\n"
                    "    const PT *pays = (const PT *)P.w[2];\n"
                    "    const %s *v = (const %s *)P.w[3];\n"
                    "    %s *out = (%s *)P.w[4];\n",
                    utype(s->kbytes), utype(s->pbytes), ty, ty, ty, ty);
    base_str_cat(o, grid_loop);
    base_str_printf(o,
                    "        const KT k = keys[t]; /* a run of one target starts here */\n"
                    "        if ((lm_u64)k == size || (t > 0 && keys[t - 1] == k)) continue;\n"
                    "        %s acc = out[k];\n"
                    "        for (lm_u64 r = t; r < n && keys[r] == k; r++) {\n",
                    ty);
    static const char *const comb[4] = {NULL, "add", "minimum", "maximum"};
    if (s->mode > 0 && s->mode < 4)
        base_str_printf(o, "            acc = lm_%s_%s(acc, v[pays[r] * vs]);\n", comb[s->mode],
                        sf);
    else
        base_str_cat(o, "            acc = v[pays[r] * vs]; /* the last write wins */\n");
    base_str_cat(o, "        }\n        out[k] = acc;\n    }\n}\n");
}

static void emit_scatter_atomic(const cg_sort_t *s, base_str_t *o, const char *name) {
    /* words: n, indices, values, out, size, the values' stride (1, or 0: one value) */
    static const char *const fn[4] = {NULL, "atomicAdd", "atomicMin", "atomicMax"};
    const char *ty = ir_dtypes[s->dtype].ctype;
    const char *cu = s->dtype == LOOM_DTYPE_I32                   ? "int"
                     : s->dtype == LOOM_DTYPE_U32                 ? "unsigned"
                     : s->dtype == LOOM_DTYPE_I64 && s->mode != 1 ? "long long"
                                                                  : "unsigned long long";
    open_kernel(o, name, 6, 256);
    base_str_printf(o,
                    "    const lm_u64 n = P.w[0], size = P.w[4], vs = P.w[5];\n"
                    "    const lm_i64 *idx = (const lm_i64 *)P.w[1];\n"
                    "    const %s *v = (const %s *)P.w[2];\n"
                    "    %s *out = (%s *)P.w[3];\n",
                    ty, ty, ty, ty);
    base_str_cat(o, grid_loop);
    base_str_printf(o,
                    "        const lm_i64 k = idx[t]; /* outside: skipped */\n"
                    "        if (k >= 0 && (lm_u64)k < size) %s((%s *)(out + k), (%s)v[t * vs]);\n"
                    "    }\n}\n",
                    fn[s->mode], cu, cu);
}

void cg_sort_source(const cg_sort_t *s, uint32_t i, base_str_t *out, char *name) {
    base_hash128_t key = cg_sort_key(s, i);
    snprintf(name, 40, "loom_st_%016llx", (unsigned long long)key.lo);
    base_str_t body;
    base_str_init(&body, out->al);
    bool scatter = s->op == IR_OP_SCATTER;
    switch (s->kinds[i]) {
        case CG_SK_PREP:
            if (scatter)
                emit_scatter_prep(s, &body, name);
            else
                emit_sort_prep(s, &body, name);
            break;
        case CG_SK_HIST:
            emit_hist(s, &body, name);
            break;
        case CG_SK_SCAN:
            emit_scan(&body, name);
            break;
        case CG_SK_SCATTER:
        case CG_SK_SCATTER_SEG:
            emit_scatter(s, s->kinds[i] == CG_SK_SCATTER_SEG, &body, name);
            break;
        case CG_SK_PAYS:
            emit_sort_pays(s, &body, name);
            break;
        case CG_SK_FINAL:
            emit_scatter_apply(s, &body, name);
            break;
        case CG_SK_SEARCH:
            emit_search(s, &body, name);
            break;
        case CG_SK_NZ_COUNT:
            emit_nz_count(&body, name);
            break;
        case CG_SK_CORR:
            emit_correlate(s, &body, name);
            break;
        case CG_SK_ATOMIC:
            emit_scatter_atomic(s, &body, name);
            break;
        case CG_SK_SELECT:
            emit_select(s, &body, name);
            break;
        case CG_SK_ROWS:
            emit_rows(s, &body, name);
            break;
        default:
            emit_nz_write(&body, name);
            break;
    }
    cg__emit_finish(out, &body); /* the prelude the text uses, then the text */
}
