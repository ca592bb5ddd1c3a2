/* shape_ref.c - the CPU reference device's movement ops, concatenation, reductions and scans.
 * Views are stride rewrites (no copy); reductions gather each output's elements in
 * C order into a scratch row of the accumulator dtype and combine them with the prelude's own
 * op functions (ir_ref_elem), so the arithmetic is the elementwise ops', element for element.
 *
 * Accumulation: float sums are pairwise, with NumPy's blocking (8 accumulators, blocks of 128),
 * starting from +0.0; float16/bfloat16 sums and products accumulate in float32 and round once;
 * integer sums and products wrap in the result dtype (order does not matter for wrapping
 * arithmetic); scans are sequential in the result dtype, as NumPy's accumulate. */
#include <assert.h>
#include <string.h>

#include "ir.h"

/* NumPy's _attempt_nocopy_reshape (C order): strides for the new shape over old strides, or
 * false when no strides express the reshape. */
static bool reshape_strides(int ond, const int64_t *odims, const int64_t *ost, int nnd,
                            const int64_t *ndims, int64_t *nst) {
    int64_t od[LOOM_MAX_DIMS], os[LOOM_MAX_DIMS];
    int oldnd = 0;
    for (int i = 0; i < ond; i++)
        if (odims[i] != 1) {
            od[oldnd] = odims[i];
            os[oldnd++] = ost[i];
        }
    int oi = 0, oj = 1, ni = 0, nj = 1;
    while (ni < nnd && oi < oldnd) {
        int64_t np = ndims[ni], op = od[oi];
        while (np != op) {
            if (np < op) {
                if (nj >= nnd) return false;
                np *= ndims[nj++];
            } else {
                if (oj >= oldnd) return false;
                op *= od[oj++];
            }
        }
        for (int ok = oi; ok < oj - 1; ok++)
            if (os[ok] != od[ok + 1] * os[ok + 1]) return false;
        nst[nj - 1] = os[oj - 1];
        for (int nk = nj - 1; nk > ni; nk--) nst[nk - 1] = nst[nk] * ndims[nk];
        ni = nj++;
        oi = oj++;
    }
    int64_t last = ni >= 1 ? nst[ni - 1] : 1;
    for (int nk = ni; nk < nnd; nk++) nst[nk] = last;
    return true;
}

bool ir_ref_view(const ir_node_t *n, const ir_node_t *o, const int64_t *ost, int64_t *offset,
                 int64_t *st) {
    *offset = 0;
    memset(st, 0, LOOM_MAX_DIMS * sizeof *st);
    if (ir_node_size(n) == 0) return true; /* nothing is read */
    switch (n->op) {
        case IR_OP_RESHAPE:
            return reshape_strides(o->ndim, o->shape, ost, n->ndim, n->shape, st);
        case IR_OP_PERMUTE:
            for (int i = 0; i < n->ndim; i++) st[i] = ost[n->p.ax[i]];
            return true;
        case IR_OP_SLICE:
            for (int i = 0; i < n->ndim; i++) {
                *offset += n->p.ax[i] * ost[i];
                st[i] = n->shape[i] > 1 ? ost[i] * n->p.step[i] : 0; /* huge steps: one element */
            }
            return true;
        case IR_OP_EXPAND: {
            int lead = n->ndim - o->ndim;
            for (int i = 0; i < n->ndim; i++) {
                int j = i - lead;
                st[i] = (j < 0 || (o->shape[j] == 1 && n->shape[i] != 1)) ? 0 : ost[j];
            }
            return true;
        }
        default:
            assert(!"ir_ref_view: not a view");
            return false;
    }
}

/* Copies the block of operand o (strides s) into out, whose C-contiguous layout has strides ost
 * (out may be a window of a larger array). */
static void copy_block(const ir_node_t *o, const char *p, const int64_t *s, char *out,
                       const int64_t *ost) {
    size_t sz = ir_dtypes[o->dtype].size;
    int64_t total = ir_node_size(o);
    if (total == 0) return;
    ir_ref_fn copy = ir_ref_cast[o->dtype][o->dtype];
    int nd = o->ndim;
    int64_t inner = nd ? o->shape[nd - 1] : 1, idx[LOOM_MAX_DIMS] = {0};
    int64_t s_in = nd ? s[nd - 1] : 0, s_out = nd ? ost[nd - 1] : 1;
    for (int64_t r = 0; r < total / inner; r++) {
        int64_t ioff = 0, ooff = 0;
        for (int ax = 0; ax < nd - 1; ax++) {
            ioff += idx[ax] * s[ax];
            ooff += idx[ax] * ost[ax];
        }
        if (s_out == 1) {
            copy(inner, out + ooff * (int64_t)sz, p + ioff * (int64_t)sz, s_in, NULL, 0, NULL, 0);
        } else {
            for (int64_t i = 0; i < inner; i++)
                copy(1, out + (ooff + i * s_out) * (int64_t)sz, p + (ioff + i * s_in) * (int64_t)sz,
                     0, NULL, 0, NULL, 0);
        }
        for (int ax = nd - 2; ax >= 0; ax--) {
            if (++idx[ax] < o->shape[ax]) break;
            idx[ax] = 0;
        }
    }
}

void ir_ref_concat(const ir_node_t *n, const ir_node_t *a, const char *pa, const int64_t *sa,
                   const ir_node_t *b, const char *pb, const int64_t *sb, void *out) {
    int64_t ost[LOOM_MAX_DIMS], s = 1;
    for (int ax = n->ndim - 1; ax >= 0; ax--) {
        ost[ax] = s;
        s *= n->shape[ax] ? n->shape[ax] : 1;
    }
    size_t sz = ir_dtypes[n->dtype].size;
    copy_block(a, pa, sa, out, ost);
    int64_t shift = a->shape[n->p.axis] * ost[n->p.axis];
    if (ir_node_size(b)) copy_block(b, pb, sb, (char *)out + shift * (int64_t)sz, ost);
}

/* ---- reductions ---- */

#define PW_BLOCK 128
#define DEF_PAIRWISE(T, name)                                                                      \
    static T name(const T *a, int64_t n) {                                                         \
        if (n < 8) {                                                                               \
            T res = 0;                                                                             \
            for (int64_t i = 0; i < n; i++) res += a[i];                                           \
            return res;                                                                            \
        }                                                                                          \
        if (n <= PW_BLOCK) {                                                                       \
            T r[8];                                                                                \
            for (int j = 0; j < 8; j++) r[j] = a[j];                                               \
            int64_t i;                                                                             \
            for (i = 8; i < n - (n % 8); i += 8)                                                   \
                for (int j = 0; j < 8; j++) r[j] += a[i + j];                                      \
            T res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));             \
            for (; i < n; i++) res += a[i];                                                        \
            return res;                                                                            \
        }                                                                                          \
        int64_t n2 = n / 2;                                                                        \
        n2 -= n2 % 8;                                                                              \
        return name(a, n2) + name(a + n2, n - n2);                                                 \
    }
DEF_PAIRWISE(float, pairwise_f32)
DEF_PAIRWISE(double, pairwise_f64)

/* NumPy's complex pairwise sum: a holds n parts (n / 2 complex numbers, interleaved), the real
 * and imaginary sums each with four accumulators per block of eight parts. */
#define DEF_CPAIRWISE(T, name)                                                                     \
    static void name(const T *a, int64_t n, T *rr, T *ri) {                                        \
        if (n < 8) {                                                                               \
            *rr = 0;                                                                               \
            *ri = 0;                                                                               \
            for (int64_t i = 0; i < n; i += 2) {                                                   \
                *rr += a[i];                                                                       \
                *ri += a[i + 1];                                                                   \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        if (n <= PW_BLOCK) {                                                                       \
            T r[8];                                                                                \
            for (int j = 0; j < 8; j++) r[j] = a[j];                                               \
            int64_t i;                                                                             \
            for (i = 8; i < n - (n % 8); i += 8)                                                   \
                for (int j = 0; j < 8; j++) r[j] += a[i + j];                                      \
            *rr = (r[0] + r[2]) + (r[4] + r[6]);                                                   \
            *ri = (r[1] + r[3]) + (r[5] + r[7]);                                                   \
            for (; i < n; i += 2) {                                                                \
                *rr += a[i];                                                                       \
                *ri += a[i + 1];                                                                   \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        T rr1, ri1, rr2, ri2;                                                                      \
        int64_t n2 = n / 2;                                                                        \
        n2 -= n2 % 8;                                                                              \
        name(a, n2, &rr1, &ri1);                                                                   \
        name(a + n2, n - n2, &rr2, &ri2);                                                          \
        *rr = rr1 + rr2;                                                                           \
        *ri = ri1 + ri2;                                                                           \
    }
DEF_CPAIRWISE(float, cpairwise_f32)
DEF_CPAIRWISE(double, cpairwise_f64)

/* The dtype a reduction of operand dtype d accumulates in. */
static loom_dtype_t acc_dtype(ir_op_t op, loom_dtype_t d) {
    if ((op == IR_OP_SUM || op == IR_OP_PROD) && (d == LOOM_DTYPE_F16 || d == LOOM_DTYPE_BF16))
        return LOOM_DTYPE_F32;
    return d;
}

/* Index of the first maximum (ARGMAX) or minimum of x[0..n) in dtype d; the first NaN wins. */
static int64_t arg_extreme(ir_op_t op, loom_dtype_t d, const char *x, int64_t n) {
    size_t sz = ir_dtypes[d].size;
    ir_ref_fn better = ir_ref_elem[op == IR_OP_ARGMAX ? IR_OP_GREATER : IR_OP_LESS][d];
    ir_ref_fn isnan_ = ir_ref_elem[IR_OP_ISNAN][d];
    int64_t best = 0;
    unsigned char nan = 0, b = 0;
    isnan_(1, &nan, x, 0, NULL, 0, NULL, 0);
    for (int64_t i = 1; i < n && !nan; i++) {
        const char *xi = x + i * (int64_t)sz;
        isnan_(1, &nan, xi, 0, NULL, 0, NULL, 0);
        better(1, &b, xi, 0, x + best * (int64_t)sz, 0, NULL, 0);
        if (nan || b) best = i;
    }
    return best;
}

/* Combines x[0..n) (accumulator dtype ad) into res (ad; 16 bytes, zeroed). */
static void combine(ir_op_t op, loom_dtype_t ad, const char *x, int64_t n, void *res) {
    size_t sz = ir_dtypes[ad].size;
    if (op == IR_OP_ARGMAX || op == IR_OP_ARGMIN) {
        int64_t i = arg_extreme(op, ad, x, n);
        memcpy(res, &i, sizeof i);
        return;
    }
    if (op == IR_OP_SUM && ad == LOOM_DTYPE_F32) {
        float s = 0.0f;
        s += pairwise_f32((const float *)(const void *)x, n);
        memcpy(res, &s, sizeof s);
        return;
    }
    if (op == IR_OP_SUM && ad == LOOM_DTYPE_F64) {
        double s = 0.0;
        s += pairwise_f64((const double *)(const void *)x, n);
        memcpy(res, &s, sizeof s);
        return;
    }
    if (op == IR_OP_SUM && ad == LOOM_DTYPE_C64) {
        float s[2] = {0.0f, 0.0f}, rr, ri;
        cpairwise_f32((const float *)(const void *)x, 2 * n, &rr, &ri);
        s[0] += rr;
        s[1] += ri;
        memcpy(res, s, sizeof s);
        return;
    }
    if (op == IR_OP_SUM && ad == LOOM_DTYPE_C128) {
        double s[2] = {0.0, 0.0}, rr, ri;
        cpairwise_f64((const double *)(const void *)x, 2 * n, &rr, &ri);
        s[0] += rr;
        s[1] += ri;
        memcpy(res, s, sizeof s);
        return;
    }
    ir_op_t elem = op == IR_OP_SUM    ? IR_OP_ADD
                   : op == IR_OP_PROD ? IR_OP_MULTIPLY
                   : op == IR_OP_MAX  ? IR_OP_MAXIMUM
                   : op == IR_OP_MIN  ? IR_OP_MINIMUM
                   : op == IR_OP_ANY  ? IR_OP_LOGICAL_OR
                                      : IR_OP_LOGICAL_AND;
    ir_ref_fn f = ir_ref_elem[elem][ad];
    int64_t i = 0;
    if (op == IR_OP_PROD || op == IR_OP_ALL) {
        int64_t one = 1; /* the identity */
        ir_cast_element(ad, res, LOOM_DTYPE_I64, &one);
    } else if (op == IR_OP_MAX || op == IR_OP_MIN) {
        if (n == 0) return;
        memcpy(res, x, sz);
        i = 1;
    }
    for (; i < n; i++) f(1, res, res, 0, x + i * (int64_t)sz, 0, NULL, 0);
}

bool ir_ref_reduce(const ir_node_t *n, const ir_node_t *o, const char *p, const int64_t *s,
                   void *out, base_alloc_t *al) {
    ir_op_t op = (ir_op_t)n->op;
    loom_dtype_t d = (loom_dtype_t)o->dtype, ad = acc_dtype(op, d);
    size_t isz = ir_dtypes[d].size, asz = ir_dtypes[ad].size, osz = ir_dtypes[n->dtype].size;
    int kept[LOOM_MAX_DIMS], red[LOOM_MAX_DIMS], nk = 0, nr = 0;
    int64_t count = 1, outs = 1;
    for (int ax = 0; ax < o->ndim; ax++) {
        if (n->p.axes & (1u << ax)) {
            red[nr++] = ax;
            count *= o->shape[ax];
        } else {
            kept[nk++] = ax;
            outs *= o->shape[ax];
        }
    }
    if (outs == 0) return true;
    char *row = base_malloc(al, (size_t)(count ? count : 1), asz);
    if (!row) return false;
    ir_ref_fn to_acc = ir_ref_cast[d][ad];
    ir_ref_fn to_out = ir_ref_cast[ad][n->dtype];
    int64_t inner = nr ? o->shape[red[nr - 1]] : 1, s_in = nr ? s[red[nr - 1]] : 0;
    int64_t kidx[LOOM_MAX_DIMS] = {0};
    for (int64_t k = 0; k < outs; k++) {
        int64_t base = 0;
        for (int j = 0; j < nk; j++) base += kidx[j] * s[kept[j]];
        if (count > 0) { /* gather the reduced elements, C order */
            int64_t ridx[LOOM_MAX_DIMS] = {0};
            for (int64_t r = 0; r < count / inner; r++) {
                int64_t off = base;
                for (int j = 0; j < nr - 1; j++) off += ridx[j] * s[red[j]];
                to_acc(inner, row + r * inner * (int64_t)asz, p + off * (int64_t)isz, s_in, NULL, 0,
                       NULL, 0);
                for (int j = nr - 2; j >= 0; j--) {
                    if (++ridx[j] < o->shape[red[j]]) break;
                    ridx[j] = 0;
                }
            }
        }
        _Alignas(16) unsigned char res[16] = {0};
        combine(op, ad, row, count, res);
        if (op == IR_OP_ARGMAX || op == IR_OP_ARGMIN)
            memcpy((char *)out + k * (int64_t)osz, res, osz);
        else
            to_out(1, (char *)out + k * (int64_t)osz, res, 0, NULL, 0, NULL, 0);
        for (int j = nk - 1; j >= 0; j--) {
            if (++kidx[j] < o->shape[kept[j]]) break;
            kidx[j] = 0;
        }
    }
    base_free(al, row);
    return true;
}

/* ---- gathers ---- */

void ir_ref_gather(const ir_node_t *n, const ir_node_t *o, const char *p, const int64_t *s,
                   const int64_t *px, const int64_t *sx, void *out) {
    int64_t total = ir_node_size(n), idx[LOOM_MAX_DIMS] = {0};
    size_t sz = ir_dtypes[n->dtype].size;
    int ax0 = (int)n->p.axis;
    int64_t ext = o->shape[ax0];
    char *y = out;
    for (int64_t e = 0; e < total; e++) {
        int64_t off = 0, xo = 0;
        for (int ax = 0; ax < n->ndim; ax++) {
            xo += idx[ax] * sx[ax];
            if (ax != ax0) off += idx[ax] * s[ax];
        }
        int64_t k = px[xo];
        k = k < 0 ? 0 : k >= ext ? ext - 1 : k; /* INDEX made it so; never read outside */
        memcpy(y + e * (int64_t)sz, p + (off + k * s[ax0]) * (int64_t)sz, sz);
        for (int ax = n->ndim - 1; ax >= 0; ax--) {
            if (++idx[ax] < n->shape[ax]) break;
            idx[ax] = 0;
        }
    }
}

void ir_ref_nonzero(const ir_node_t *n, const ir_node_t *o, const char *p, const int64_t *s,
                    void *out) {
    int64_t total = ir_node_size(o), idx[LOOM_MAX_DIMS] = {0}, len = n->shape[0], k = 0;
    int64_t *y = out;
    for (int64_t e = 0; e < total && k < len; e++) {
        int64_t off = 0;
        for (int ax = 0; ax < o->ndim; ax++) off += idx[ax] * s[ax];
        if (p[off]) y[k++] = e;
        for (int ax = o->ndim - 1; ax >= 0; ax--) {
            if (++idx[ax] < o->shape[ax]) break;
            idx[ax] = 0;
        }
    }
    while (k < len) y[k++] = -1;
}

void ir_ref_compress(const ir_node_t *n, const ir_node_t *o, const char *p, const int64_t *s,
                     const char *pv, const int64_t *sv, void *out) {
    int64_t total = o->shape[0], k = 0;
    size_t es = ir_dtypes[n->dtype].size;
    char *y = out;
    for (int64_t e = 0; e < total; e++)
        if (p[e * s[0]]) /* (sv[0] may be negative: a reversed view) */
            memcpy(y + (size_t)(k++) * es, pv + e * sv[0] * (int64_t)es, es);
    /* the elements no kept value reached, and the tail, zeros; then the count (a bool per
     * bit, else little-endian, as every target loom runs on) */
    memset(y + (size_t)k * es, 0, (size_t)(n->shape[0] - k) * es);
    uint64_t c = (uint64_t)k;
    if (n->dtype == LOOM_DTYPE_BOOL)
        for (int b = 0; b < 64; b++) y[total + b] = (char)((c >> b) & 1u);
    else
        memcpy(y + (size_t)total * es, &c, sizeof c);
}

/* ---- scatters ---- */

void ir_ref_scatter(const ir_node_t *n, const ir_node_t *o, const char *p, const int64_t *s,
                    const ir_node_t *x, const char *px, const int64_t *sx, const ir_node_t *v,
                    const char *pv, const int64_t *sv, void *out) {
    loom_dtype_t d = (loom_dtype_t)n->dtype;
    size_t sz = ir_dtypes[d].size;
    int64_t size = ir_node_size(n), total = ir_node_size(x), idx[LOOM_MAX_DIMS] = {0};
    ir_copy_strided(d, n->ndim, n->shape, p, s, out);
    (void)o;
    static const ir_op_t combine[4] = {IR_OP_COUNT, IR_OP_ADD, IR_OP_MINIMUM, IR_OP_MAXIMUM};
    ir_ref_fn f = n->p.k > 0 && n->p.k < 4 ? ir_ref_elem[combine[n->p.k]][d] : NULL;
    char *y = out;
    int lead = x->ndim - v->ndim; /* v broadcasts to x's shape */
    for (int64_t e = 0; e < total; e++) {
        int64_t xo = 0, vo = 0;
        for (int ax = 0; ax < x->ndim; ax++) {
            xo += idx[ax] * sx[ax];
            int j = ax - lead;
            if (j >= 0 && v->shape[j] != 1) vo += idx[ax] * sv[j];
        }
        int64_t k;
        memcpy(&k, px + xo * 8, 8);
        if (k >= 0 && k < size) {
            char *dst = y + k * (int64_t)sz;
            const char *val = pv + vo * (int64_t)sz;
            if (f)
                f(1, dst, dst, 0, val, 0, NULL, 0);
            else
                memcpy(dst, val, sz);
        }
        for (int ax = x->ndim - 1; ax >= 0; ax--) {
            if (++idx[ax] < x->shape[ax]) break;
            idx[ax] = 0;
        }
    }
}

/* ---- sorts ---- */

typedef struct sort_key {
    double f;    /* floats */
    uint64_t u;  /* ints (signed: as int64 bits), bool */
    int64_t pos; /* along the axis: the tie-break that makes the sort stable */
} sort_key_t;

/* a < b in NumPy's order for keys of kind k (NaN last, equal keys by position). */
static bool key_less(ir_dkind_t k, const sort_key_t *a, const sort_key_t *b) {
    if (k == IR_DKIND_FLOAT) {
        bool na = a->f != a->f, nb = b->f != b->f;
        if (na != nb) return nb;
        if (!na && a->f != b->f) return a->f < b->f;
    } else if (a->u != b->u) {
        return k == IR_DKIND_INT ? (int64_t)a->u < (int64_t)b->u : a->u < b->u;
    }
    return a->pos < b->pos;
}

/* The key of the element at e (dtype d, of kind k as key_less reads it). */
static void load_key(loom_dtype_t d, ir_dkind_t k, const char *e, sort_key_t *out) {
    out->f = 0;
    out->u = 0;
    if (k == IR_DKIND_FLOAT)
        ir_cast_element(LOOM_DTYPE_F64, &out->f, d, e);
    else if (k == IR_DKIND_INT)
        ir_cast_element(LOOM_DTYPE_I64, &out->u, d, e);
    else
        ir_cast_element(LOOM_DTYPE_U64, &out->u, d, e);
}

static ir_dkind_t key_kind(loom_dtype_t d) {
    return ir_dtypes[d].kind == IR_DKIND_BOOL ? IR_DKIND_UINT : ir_dtypes[d].kind;
}

void ir_ref_searchsorted(const ir_node_t *n, const ir_node_t *o, const char *p, const int64_t *s,
                         const ir_node_t *v, const char *pv, const int64_t *sv, void *out) {
    loom_dtype_t d = (loom_dtype_t)o->dtype;
    ir_dkind_t k = key_kind(d);
    size_t sz = ir_dtypes[d].size;
    int64_t len = o->shape[0], total = ir_node_size(n), idx[LOOM_MAX_DIMS] = {0};
    bool right = n->p.k != 0;
    int64_t *y = out;
    for (int64_t e = 0; e < total; e++) {
        int64_t off = 0;
        for (int ax = 0; ax < v->ndim; ax++) off += idx[ax] * sv[ax];
        sort_key_t key, at;
        load_key(d, k, pv + off * (int64_t)sz, &key);
        int64_t lo = 0, hi = len; /* the first position whose element goes after key */
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            load_key(d, k, p + mid * s[0] * (int64_t)sz, &at);
            key.pos = at.pos = 0;
            bool after = right ? key_less(k, &key, &at) : !key_less(k, &at, &key);
            if (after)
                hi = mid;
            else
                lo = mid + 1;
        }
        y[e] = lo;
        for (int ax = v->ndim - 1; ax >= 0; ax--) {
            if (++idx[ax] < v->shape[ax]) break;
            idx[ax] = 0;
        }
    }
}

void ir_ref_correlate(const ir_node_t *n, const ir_node_t *a, const char *pa, const int64_t *sa,
                      const ir_node_t *v, const char *pv, const int64_t *sv, void *out) {
    int64_t n1 = a->shape[0], n2 = v->shape[0], len = n->shape[0], off = n->p.k;
    bool flip = n->p.axis != 0, f32 = n->dtype == LOOM_DTYPE_F32;
    for (int64_t t = 0; t < len; t++) {
        /* the taps whose a index is inside: i in [lo, hi) */
        int64_t lo = -(off + t) > 0 ? -(off + t) : 0, hi = n1 - (off + t);
        if (hi > n2) hi = n2;
        float accf = 0;
        double accd = 0;
        for (int64_t i = lo; i < hi; i++) {
            int64_t ja = (off + t + i) * sa[0], jv = (flip ? n2 - 1 - i : i) * sv[0];
            if (f32)
                accf = accf + ((const float *)(const void *)pa)[ja] *
                                  ((const float *)(const void *)pv)[jv];
            else
                accd = accd + ((const double *)(const void *)pa)[ja] *
                                  ((const double *)(const void *)pv)[jv];
        }
        if (f32)
            ((float *)out)[t] = accf;
        else
            ((double *)out)[t] = accd;
    }
}

/* Bottom-up merge sort of n keys (tmp: n more). */
static sort_key_t *merge_sort(ir_dkind_t k, sort_key_t *a, sort_key_t *tmp, int64_t n) {
    for (int64_t w = 1; w < n; w *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * w) {
            int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int64_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi) tmp[o++] = key_less(k, &a[j], &a[i]) ? a[j++] : a[i++];
            while (i < mid) tmp[o++] = a[i++];
            while (j < hi) tmp[o++] = a[j++];
        }
        sort_key_t *t = a;
        a = tmp;
        tmp = t;
    }
    return a;
}

bool ir_ref_sort(const ir_node_t *n, const ir_node_t *o, const char *p, const int64_t *s, void *out,
                 base_alloc_t *al) {
    int64_t total = ir_node_size(o); /* lines x len */
    if (total == 0) return true;
    int axis = (int)n->p.axis, nd = n->ndim;
    loom_dtype_t d = (loom_dtype_t)o->dtype;
    ir_dkind_t kind = key_kind(d);
    size_t sz = ir_dtypes[d].size, osz = ir_dtypes[n->dtype].size;
    int64_t len = o->shape[axis], ost[LOOM_MAX_DIMS], st = 1, idx[LOOM_MAX_DIMS] = {0};
    for (int ax = nd - 1; ax >= 0; ax--) {
        ost[ax] = st;
        st *= n->shape[ax];
    }
    sort_key_t *keys = base_malloc(al, (size_t)(2 * len), sizeof *keys);
    if (!keys) return false;
    for (int64_t line = 0; line < total / len; line++) {
        int64_t ioff = 0, ooff = 0;
        for (int ax = 0; ax < nd; ax++) {
            ioff += idx[ax] * s[ax];
            ooff += idx[ax] * ost[ax];
        }
        for (int64_t i = 0; i < len; i++) {
            load_key(d, kind, p + (ioff + i * s[axis]) * (int64_t)sz, &keys[i]);
            keys[i].pos = i;
        }
        const sort_key_t *sorted = merge_sort(kind, keys, keys + len, len);
        char *y = (char *)out + ooff * (int64_t)osz;
        bool select = n->op == IR_OP_SELECT; /* the ranks p.ax[i] alone */
        for (int64_t i = 0; i < (select ? n->shape[axis] : len); i++) {
            char *dst = y + i * ost[axis] * (int64_t)osz;
            if (select)
                memcpy(dst, p + (ioff + sorted[n->p.ax[i]].pos * s[axis]) * (int64_t)sz, sz);
            else if (n->op == IR_OP_ARGSORT)
                memcpy(dst, &sorted[i].pos, sizeof sorted[i].pos);
            else /* the element's own bytes: -0.0 and NaN payloads as they were */
                memcpy(dst, p + (ioff + sorted[i].pos * s[axis]) * (int64_t)sz, sz);
        }
        for (int ax = nd - 1; ax >= 0; ax--) { /* odometer, skipping the sorted axis */
            if (ax == axis) continue;
            if (++idx[ax] < n->shape[ax]) break;
            idx[ax] = 0;
        }
    }
    base_free(al, keys);
    return true;
}

/* ---- scans ---- */

void ir_ref_scan(const ir_node_t *n, const ir_node_t *o, const char *p, const int64_t *s,
                 void *out) {
    int64_t total = ir_node_size(n);
    if (total == 0) return;
    int axis = (int)n->p.axis, nd = n->ndim;
    size_t sz = ir_dtypes[n->dtype].size;
    ir_ref_fn f = ir_ref_elem[n->op == IR_OP_CUMSUM ? IR_OP_ADD : IR_OP_MULTIPLY][n->dtype];
    ir_ref_fn copy = ir_ref_cast[o->dtype][n->dtype];
    int64_t ost[LOOM_MAX_DIMS], st = 1;
    for (int ax = nd - 1; ax >= 0; ax--) {
        ost[ax] = st;
        st *= n->shape[ax];
    }
    int64_t len = n->shape[axis], idx[LOOM_MAX_DIMS] = {0};
    for (int64_t line = 0; line < total / len; line++) { /* every line along the axis */
        int64_t ioff = 0, ooff = 0;
        for (int ax = 0; ax < nd; ax++) {
            ioff += idx[ax] * s[ax];
            ooff += idx[ax] * ost[ax];
        }
        char *y = (char *)out + ooff * (int64_t)sz;
        int64_t ys = ost[axis] * (int64_t)sz;
        copy(1, y, p + ioff * (int64_t)sz, 0, NULL, 0, NULL, 0);
        for (int64_t i = 1; i < len; i++)
            f(1, y + i * ys, y + (i - 1) * ys, 0, p + (ioff + i * s[axis]) * (int64_t)sz, 0, NULL,
              0);
        for (int ax = nd - 1; ax >= 0; ax--) { /* odometer, skipping the scanned axis */
            if (ax == axis) continue;
            if (++idx[ax] < n->shape[ax]) break;
            idx[ax] = 0;
        }
    }
}
