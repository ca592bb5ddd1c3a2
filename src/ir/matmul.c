/* matmul.c — contractions: NumPy's shape rules for matmul, dot and tensordot, and the CPU
 * reference device's blocked GEMM that computes them.
 *
 * Every contraction becomes one plan: batch axes (each with a stride in a, b and the result),
 * outer contracted axes (accumulated), and one GEMM of m x k by k x n with arbitrary element
 * strides. Blocks of the operands are packed (converted to the accumulator type on the way)
 * into panels, so transposed, broadcast and sliced views cost nothing extra. Each result
 * element is accumulated in one tile, in increasing k order, and rounded once at the store:
 * float16/bfloat16/float32 accumulate in float32 (as BLAS does: error ~ k * eps32 relative to
 * sum |a||b|), float64 in float64, ints and bool in uint64 (wraparound is exact modulo 2^bits;
 * bool stores "sum != 0", i.e. NumPy's or-of-ands). */
#include <assert.h>
#include <string.h>

#include "ir.h"
#include "prelude.h"

/* ---- Shapes and plans ---- */

typedef ir_matmul_axis_t axis3_t; /* ir.h: the plan is shared with the CUDA device */
typedef ir_matmul_plan_t plan_t;

static bool refuse(ir_matmul_why_t *why, ir_matmul_fault_t f, int operand, int a_axis, int b_axis) {
    why->fault = f;
    why->operand = operand;
    why->a_axis = a_axis;
    why->b_axis = b_axis;
    return false;
}

/* C-order strides of a result shape. ir_matmul_shape plans shapes the frontend then refuses
 * as too large, so the product may pass INT64_MAX: the strides stop there (at 0), unused. */
static void contiguous(int nd, const int64_t *shape, int64_t *st) {
    int64_t s = 1;
    for (int ax = nd - 1; ax >= 0; ax--) {
        st[ax] = s;
        if (!base_mul_i64(s, shape[ax] ? shape[ax] : 1, &s)) s = 0;
    }
}

static bool plan_matmul(int an, const int64_t *ash, const int64_t *ast, int bn, const int64_t *bsh,
                        const int64_t *bst, int *ond, int64_t *osh, plan_t *p,
                        ir_matmul_why_t *why) {
    if (an < 1) return refuse(why, IR_MATMUL_NDIM, 0, 0, 0);
    if (bn < 1) return refuse(why, IR_MATMUL_NDIM, 1, 0, 0);
    bool a1 = an == 1, b1 = bn == 1; /* 1-D: promoted, the added axis removed */
    int bk = b1 ? 0 : bn - 2;
    if (ash[an - 1] != bsh[bk]) return refuse(why, IR_MATMUL_CORE, 1, an - 1, bk);
    int na = a1 ? 0 : an - 2, nb = b1 ? 0 : bn - 2, nbat = na > nb ? na : nb;
    int nd = 0;
    for (int ax = 0; ax < nbat; ax++) {
        int ja = ax - (nbat - na), jb = ax - (nbat - nb);
        int64_t ea = ja < 0 ? 1 : ash[ja], eb = jb < 0 ? 1 : bsh[jb];
        if (ea != eb && ea != 1 && eb != 1) return refuse(why, IR_MATMUL_BATCH, 0, 0, 0);
        osh[nd++] = ea == 1 ? eb : ea;
    }
    if (!a1) osh[nd++] = ash[an - 2];
    if (!b1) osh[nd++] = bsh[bn - 1];
    *ond = nd;
    int64_t oc[LOOM_MAX_DIMS] = {0}; /* zero: gcc -O3 cannot see contiguous() fills it */
    contiguous(nd, osh, oc);
    for (int ax = 0; ax < nbat; ax++) {
        int ja = ax - (nbat - na), jb = ax - (nbat - nb);
        axis3_t *x = &p->batch[p->n_batch++];
        x->n = osh[ax];
        x->sa = ja < 0 || ash[ja] == 1 ? 0 : ast[ja];
        x->sb = jb < 0 || bsh[jb] == 1 ? 0 : bst[jb];
        x->sc = oc[ax];
    }
    p->k = ash[an - 1];
    p->sak = ast[an - 1];
    p->sbk = bst[bk];
    p->m = a1 ? 1 : ash[an - 2];
    p->sam = a1 ? 0 : ast[an - 2];
    p->scm = a1 ? 0 : oc[nbat];
    p->n = b1 ? 1 : bsh[bn - 1];
    p->sbn = b1 ? 0 : bst[bn - 1];
    p->scn = b1 ? 0 : oc[nd - 1];
    return true;
}

/* np.dot for operands of 2 or more axes: result a[:-1] + b[:-2] + b[-1:]. */
static bool plan_dot(int an, const int64_t *ash, const int64_t *ast, int bn, const int64_t *bsh,
                     const int64_t *bst, int *ond, int64_t *osh, plan_t *p, ir_matmul_why_t *why) {
    if (an < 2) return refuse(why, IR_MATMUL_NDIM, 0, 0, 0);
    if (bn < 2) return refuse(why, IR_MATMUL_NDIM, 1, 0, 0);
    if (ash[an - 1] != bsh[bn - 2]) return refuse(why, IR_MATMUL_CORE, 1, an - 1, bn - 2);
    int nd = an - 1 + bn - 1;
    if (nd > LOOM_MAX_DIMS) return refuse(why, IR_MATMUL_TOO_MANY, 0, 0, 0);
    for (int i = 0; i < an - 1; i++) osh[i] = ash[i];
    for (int j = 0; j < bn - 2; j++) osh[an - 1 + j] = bsh[j];
    osh[nd - 1] = bsh[bn - 1];
    *ond = nd;
    int64_t oc[LOOM_MAX_DIMS] = {0}; /* zero: gcc -O3 cannot see contiguous() fills it */
    contiguous(nd, osh, oc);
    for (int i = 0; i < an - 2; i++) p->batch[p->n_batch++] = (axis3_t){ash[i], ast[i], 0, oc[i]};
    for (int j = 0; j < bn - 2; j++)
        p->batch[p->n_batch++] = (axis3_t){bsh[j], 0, bst[j], oc[an - 1 + j]};
    p->m = ash[an - 2], p->sam = ast[an - 2], p->scm = oc[an - 2];
    p->k = ash[an - 1], p->sak = ast[an - 1], p->sbk = bst[bn - 2];
    p->n = bsh[bn - 1], p->sbn = bst[bn - 1], p->scn = oc[nd - 1];
    return true;
}

/* np.tensordot(a, b, n): result a[:-n] + b[n:]. */
static bool plan_tensordot(int n, int an, const int64_t *ash, const int64_t *ast, int bn,
                           const int64_t *bsh, const int64_t *bst, int *ond, int64_t *osh,
                           plan_t *p, ir_matmul_why_t *why) {
    if (an < n) return refuse(why, IR_MATMUL_NDIM, 0, 0, 0);
    if (bn < n) return refuse(why, IR_MATMUL_NDIM, 1, 0, 0);
    for (int i = 0; i < n; i++)
        if (ash[an - n + i] != bsh[i]) return refuse(why, IR_MATMUL_CORE, 1, an - n + i, i);
    int fa = an - n, fb = bn - n, nd = fa + fb;
    if (nd > LOOM_MAX_DIMS) return refuse(why, IR_MATMUL_TOO_MANY, 0, 0, 0);
    for (int i = 0; i < fa; i++) osh[i] = ash[i];
    for (int j = 0; j < fb; j++) osh[fa + j] = bsh[n + j];
    *ond = nd;
    int64_t oc[LOOM_MAX_DIMS] = {0}; /* zero: gcc -O3 cannot see contiguous() fills it */
    contiguous(nd, osh, oc);
    for (int i = 0; i < fa - 1; i++) p->batch[p->n_batch++] = (axis3_t){ash[i], ast[i], 0, oc[i]};
    for (int j = 0; j < fb - 1; j++)
        p->batch[p->n_batch++] = (axis3_t){bsh[n + j], 0, bst[n + j], oc[fa + j]};
    for (int i = 0; i + 1 < n; i++)
        p->kout[p->n_kout++] = (axis3_t){ash[fa + i], ast[fa + i], bst[i], 0};
    p->m = fa ? ash[fa - 1] : 1, p->sam = fa ? ast[fa - 1] : 0, p->scm = fa ? oc[fa - 1] : 0;
    p->n = fb ? bsh[bn - 1] : 1, p->sbn = fb ? bst[bn - 1] : 0, p->scn = fb ? oc[nd - 1] : 0;
    p->k = n ? ash[an - 1] : 1, p->sak = n ? ast[an - 1] : 0, p->sbk = n ? bst[n - 1] : 0;
    return true;
}

static bool plan_build(int64_t mode, int an, const int64_t *ash, const int64_t *ast, int bn,
                       const int64_t *bsh, const int64_t *bst, int *ond, int64_t *osh, plan_t *p,
                       ir_matmul_why_t *why) {
    static const int64_t zeros[LOOM_MAX_DIMS];
    memset(p, 0, sizeof *p);
    why->fault = IR_MATMUL_OK;
    if (an < 0 || an > LOOM_MAX_DIMS || bn < 0 || bn > LOOM_MAX_DIMS)
        return refuse(why, IR_MATMUL_TOO_MANY, 0, 0, 0);
    if (!ast) ast = zeros;
    if (!bst) bst = zeros;
    if (mode == IR_MATMUL_MATMUL) return plan_matmul(an, ash, ast, bn, bsh, bst, ond, osh, p, why);
    if (mode == IR_MATMUL_DOT) return plan_dot(an, ash, ast, bn, bsh, bst, ond, osh, p, why);
    if (mode >= IR_MATMUL_TENSORDOT && mode - IR_MATMUL_TENSORDOT <= LOOM_MAX_DIMS)
        return plan_tensordot((int)(mode - IR_MATMUL_TENSORDOT), an, ash, ast, bn, bsh, bst, ond,
                              osh, p, why);
    return refuse(why, IR_MATMUL_MODE, 0, 0, 0);
}

bool ir_matmul_shape(int64_t mode, int a_ndim, const int64_t *a_shape, int b_ndim,
                     const int64_t *b_shape, int *out_ndim, int64_t *out_shape,
                     ir_matmul_why_t *why) {
    plan_t p;
    return plan_build(mode, a_ndim, a_shape, NULL, b_ndim, b_shape, NULL, out_ndim, out_shape, &p,
                      why);
}

bool ir_matmul_plan(const ir_node_t *n, const ir_node_t *a_node, const int64_t *a_strides,
                    const ir_node_t *b_node, const int64_t *b_strides, ir_matmul_plan_t *out) {
    ir_matmul_why_t why;
    int nd;
    int64_t shape[LOOM_MAX_DIMS];
    return plan_build(n->p.k, a_node->ndim, a_node->shape, a_strides, b_node->ndim,
                      b_node->shape, b_strides, &nd, shape, out, &why) &&
           nd == n->ndim;
}

/* ---- The kernel ----
 * Accumulator families: float (float16, bfloat16, float32), double (float64), uint64 (bool and
 * ints). A block of an operand (outer x depth) is packed into panels of W outer elements,
 * depth-major, zero-padded; the micro-kernel keeps an MR x NR tile of sums in registers. */
enum { MR = 4, NR = 8, MC = 64, NC = 256, KC = 256 };

typedef void (*pack_fn)(const char *src, int64_t outer, int64_t depth, int64_t so, int64_t sd,
                        int w, void *dst);
typedef void (*micro_fn)(int64_t kc, const void *ap, const void *bp, void *c, int64_t ldc);
typedef void (*store_fn)(const void *acc, int64_t ldacc, int64_t mc, int64_t nc, char *dst,
                         int64_t scm, int64_t scn);

#define DEF_PACK(s, ST, AT, LOAD)                                                                  \
    static void pack_##s(const char *src, int64_t outer, int64_t depth, int64_t so, int64_t sd,    \
                         int w, void *dst) {                                                       \
        const ST *x = (const ST *)(const void *)src;                                               \
        AT *y = dst;                                                                               \
        for (int64_t o0 = 0; o0 < outer; o0 += w)                                                  \
            for (int64_t d = 0; d < depth; d++)                                                    \
                for (int i = 0; i < w; i++) {                                                      \
                    int64_t o = o0 + i;                                                            \
                    *y++ = o < outer ? (AT)LOAD(x[o * so + d * sd]) : (AT)0;                       \
                }                                                                                  \
    }
#define ID(x)       (x)
#define F16_F32(x)  lm_cast_f16_f32(x)
#define BF16_F32(x) lm_cast_bf16_f32(x)
DEF_PACK(b, lm_b, uint64_t, ID)
DEF_PACK(i8, int8_t, uint64_t, ID)
DEF_PACK(i16, int16_t, uint64_t, ID)
DEF_PACK(i32, int32_t, uint64_t, ID)
DEF_PACK(i64, int64_t, uint64_t, ID)
DEF_PACK(u8, uint8_t, uint64_t, ID)
DEF_PACK(u16, uint16_t, uint64_t, ID)
DEF_PACK(u32, uint32_t, uint64_t, ID)
DEF_PACK(u64, uint64_t, uint64_t, ID)
DEF_PACK(f16, lm_f16, float, F16_F32)
DEF_PACK(bf16, lm_bf16, float, BF16_F32)
DEF_PACK(f32, float, float, ID)
DEF_PACK(f64, double, double, ID)
DEF_PACK(c64, float _Complex, float _Complex, ID)
DEF_PACK(c128, double _Complex, double _Complex, ID)

#define DEF_MICRO(s, AT)                                                                           \
    static void micro_##s(int64_t kc, const void *apv, const void *bpv, void *cv, int64_t ldc) {   \
        const AT *restrict ap = apv, *restrict bp = bpv;                                           \
        AT *restrict c = cv;                                                                       \
        AT acc[MR][NR];                                                                            \
        for (int i = 0; i < MR; i++)                                                               \
            for (int j = 0; j < NR; j++) acc[i][j] = c[i * ldc + j];                               \
        for (int64_t p = 0; p < kc; p++, ap += MR, bp += NR)                                       \
            for (int i = 0; i < MR; i++) {                                                         \
                AT ai = ap[i];                                                                     \
                for (int j = 0; j < NR; j++) acc[i][j] += ai * bp[j];                              \
            }                                                                                      \
        for (int i = 0; i < MR; i++)                                                               \
            for (int j = 0; j < NR; j++) c[i * ldc + j] = acc[i][j];                               \
    }
DEF_MICRO(f32, float)
DEF_MICRO(f64, double)
DEF_MICRO(u64, uint64_t)
DEF_MICRO(c64, float _Complex)
DEF_MICRO(c128, double _Complex)

#define DEF_STORE(s, AT, OT, CONV)                                                                 \
    static void store_##s(const void *accv, int64_t ld, int64_t mc, int64_t nc, char *dst,         \
                          int64_t scm, int64_t scn) {                                              \
        const AT *acc = accv;                                                                      \
        OT *y = (OT *)(void *)dst;                                                                 \
        for (int64_t i = 0; i < mc; i++)                                                           \
            for (int64_t j = 0; j < nc; j++) y[i * scm + j * scn] = (OT)CONV(acc[i * ld + j]);     \
    }
#define NONZERO(x)  ((x) != 0)
#define F32_F16(x)  lm_cast_f32_f16(x)
#define F32_BF16(x) lm_cast_f32_bf16(x)
DEF_STORE(b, uint64_t, lm_b, NONZERO)
DEF_STORE(i8, uint64_t, int8_t, ID) /* modular: the low bits, as the wrapping sum would be */
DEF_STORE(i16, uint64_t, int16_t, ID)
DEF_STORE(i32, uint64_t, int32_t, ID)
DEF_STORE(i64, uint64_t, int64_t, ID)
DEF_STORE(u8, uint64_t, uint8_t, ID)
DEF_STORE(u16, uint64_t, uint16_t, ID)
DEF_STORE(u32, uint64_t, uint32_t, ID)
DEF_STORE(u64, uint64_t, uint64_t, ID)
DEF_STORE(f16, float, lm_f16, F32_F16)
DEF_STORE(bf16, float, lm_bf16, F32_BF16)
DEF_STORE(f32, float, float, ID)
DEF_STORE(f64, double, double, ID)
DEF_STORE(c64, float _Complex, float _Complex, ID)
DEF_STORE(c128, double _Complex, double _Complex, ID)

typedef struct kernel {
    pack_fn pack;
    micro_fn micro;
    store_fn store;
    size_t acc_size;
} kernel_t;

static const kernel_t kernels[LOOM_DTYPE_COUNT] = {
    [LOOM_DTYPE_BOOL] = {pack_b, micro_u64, store_b, 8},
    [LOOM_DTYPE_I8] = {pack_i8, micro_u64, store_i8, 8},
    [LOOM_DTYPE_I16] = {pack_i16, micro_u64, store_i16, 8},
    [LOOM_DTYPE_I32] = {pack_i32, micro_u64, store_i32, 8},
    [LOOM_DTYPE_I64] = {pack_i64, micro_u64, store_i64, 8},
    [LOOM_DTYPE_U8] = {pack_u8, micro_u64, store_u8, 8},
    [LOOM_DTYPE_U16] = {pack_u16, micro_u64, store_u16, 8},
    [LOOM_DTYPE_U32] = {pack_u32, micro_u64, store_u32, 8},
    [LOOM_DTYPE_U64] = {pack_u64, micro_u64, store_u64, 8},
    [LOOM_DTYPE_F16] = {pack_f16, micro_f32, store_f16, 4},
    [LOOM_DTYPE_BF16] = {pack_bf16, micro_f32, store_bf16, 4},
    [LOOM_DTYPE_F32] = {pack_f32, micro_f32, store_f32, 4},
    [LOOM_DTYPE_F64] = {pack_f64, micro_f64, store_f64, 8},
    [LOOM_DTYPE_C64] = {pack_c64, micro_c64, store_c64, 8},
    [LOOM_DTYPE_C128] = {pack_c128, micro_c128, store_c128, 16},
};

/* One batch element: c (m x n, strides scm, scn) = sum over the kout axes of a x b. */
static void gemm(const kernel_t *kn, const plan_t *p, size_t esz, const char *a, const char *b,
                 char *c, char *apack, char *bpack, char *tile) {
    const int64_t ldt = NC; /* tile row length, in accumulator elements */
    for (int64_t ic = 0; ic < p->m; ic += MC) {
        int64_t mc = p->m - ic < MC ? p->m - ic : MC;
        for (int64_t jc = 0; jc < p->n; jc += NC) {
            int64_t nc = p->n - jc < NC ? p->n - jc : NC;
            memset(tile, 0, (size_t)(MC * NC) * kn->acc_size);
            int64_t idx[LOOM_MAX_DIMS] = {0};
            bool empty = p->k == 0; /* an empty contracted axis: an empty sum, zero */
            for (int i = 0; i < p->n_kout; i++) empty = empty || p->kout[i].n == 0;
            while (!empty) {
                int64_t oa = ic * p->sam, ob = jc * p->sbn;
                for (int i = 0; i < p->n_kout; i++) {
                    oa += idx[i] * p->kout[i].sa;
                    ob += idx[i] * p->kout[i].sb;
                }
                for (int64_t pc = 0; pc < p->k; pc += KC) {
                    int64_t kc = p->k - pc < KC ? p->k - pc : KC;
                    kn->pack(a + (oa + pc * p->sak) * (int64_t)esz, mc, kc, p->sam, p->sak, MR,
                             apack);
                    kn->pack(b + (ob + pc * p->sbk) * (int64_t)esz, nc, kc, p->sbn, p->sbk, NR,
                             bpack);
                    for (int64_t ir = 0; ir < mc; ir += MR)
                        for (int64_t jr = 0; jr < nc; jr += NR)
                            kn->micro(kc, apack + (size_t)(ir * kc) * kn->acc_size,
                                      bpack + (size_t)(jr * kc) * kn->acc_size,
                                      tile + (size_t)(ir * ldt + jr) * kn->acc_size, ldt);
                }
                int i = p->n_kout - 1; /* odometer over the outer contracted axes */
                for (; i >= 0; i--) {
                    if (++idx[i] < p->kout[i].n) break;
                    idx[i] = 0;
                }
                if (i < 0) break;
            }
            kn->store(tile, ldt, mc, nc, c + (ic * p->scm + jc * p->scn) * (int64_t)esz, p->scm,
                      p->scn);
        }
    }
}

bool ir_ref_matmul(const ir_node_t *n, const ir_node_t *a_node, const void *a,
                   const int64_t *a_strides, const ir_node_t *b_node, const void *b,
                   const int64_t *b_strides, void *out, base_alloc_t *al) {
    plan_t p;
    ir_matmul_why_t why;
    int nd;
    int64_t shape[LOOM_MAX_DIMS];
    bool ok = plan_build(n->p.k, a_node->ndim, a_node->shape, a_strides, b_node->ndim,
                         b_node->shape, b_strides, &nd, shape, &p, &why);
    (void)ok;
    assert(ok && nd == n->ndim); /* the verifier checked the shapes */
    if (ir_node_size(n) == 0) return true;
    const kernel_t *kn = &kernels[n->dtype];
    size_t esz = ir_dtypes[n->dtype].size;
    char *apack = base_malloc(al, (size_t)MC * KC, kn->acc_size);
    char *bpack = base_malloc(al, (size_t)NC * KC, kn->acc_size);
    char *tile = base_malloc(al, (size_t)MC * NC, kn->acc_size);
    bool done = apack && bpack && tile;
    int64_t idx[2 * LOOM_MAX_DIMS] = {0};
    while (done) {
        int64_t oa = 0, ob = 0, oc = 0;
        for (int i = 0; i < p.n_batch; i++) {
            oa += idx[i] * p.batch[i].sa;
            ob += idx[i] * p.batch[i].sb;
            oc += idx[i] * p.batch[i].sc;
        }
        gemm(kn, &p, esz, (const char *)a + oa * (int64_t)esz, (const char *)b + ob * (int64_t)esz,
             (char *)out + oc * (int64_t)esz, apack, bpack, tile);
        int i = p.n_batch - 1; /* odometer over the batch axes */
        for (; i >= 0; i--) {
            if (++idx[i] < p.batch[i].n) break;
            idx[i] = 0;
        }
        if (i < 0) break;
    }
    base_free(al, apack);
    base_free(al, bpack);
    base_free(al, tile);
    return done;
}
