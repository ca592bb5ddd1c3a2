/* ref_linalg.c — the factorisations (LINALG nodes) on the reference device, through LAPACK's C
 * interface (LAPACKE, loaded with dlopen the first time one runs, as the CUDA device loads
 * cuSOLVER: a machine without it still runs everything else).
 *
 * Both devices run the same column-major routines over the same C-contiguous buffers. A C-order
 * (r x c) matrix read in column-major order is its transpose (c x r), so each node's layout (ir.h)
 * is the one that needs no transposition around the library call:
 *   LU        getrf of A^T: det(A^T) = det(A), which is all its users need.
 *   SOLVE     getrf of A^T, then getrs with trans = 'T' solves (A^T)^T X = B; B and X are
 *             column-major n x k, which is the C-order k x n B^T and X^T.
 *   CHOLESKY  potrf(uplo 'L') of A: the node's operand is A^T (C order), which is A
 *             column-major, or (p.k 1) A itself, transposed into the factored copy; potrf
 *             reads A's lower triangle and leaves L there, which C order sees as L^T
 *             (cuSOLVER's lower form is ~1.5x the speed of its upper one).
 *   EIGH      syevd of A^T = A, uplo swapped; the column-major eigenvectors are C-order rows.
 *   SVD       of A^T = U' S VT' (n x m, n >= m): A = VT'^T S U'^T, so VT' read in C order is
 *             A's U and U' read in C order is A's Vh.
 *   QR        geqrf + orgqr of A itself: the frontend hands the node A^T (C order), which is A
 *             column-major; Q and R come back column-major, C order's Q^T and R^T.
 *   EIG       geev of A itself (the frontend hands the node A^T), right eigenvectors only.
 * Complex matrices take the same routes through the c and z routines (heevd, ungqr, ...):
 * the transposes above are plain ones, never conjugating, so each identity holds as it is, with
 * one exception: EIGH's A^T is conj(A) for a Hermitian A, whose eigenvectors are conj(V) (the
 * frontend conjugates them back).
 * The reference zeroes what the CUDA device leaves undefined (CHOLESKY's lower triangle, R's
 * Householder vectors); the frontend masks those parts anyway. */
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "ir.h"

#define COL_MAJOR 102   /* LAPACK_COL_MAJOR */
typedef int32_t lp_int; /* lapack_int of Debian's LP64 LAPACKE */

/* Every routine in its s (float32), d (float64), c (complex64) and z (complex128) forms, one C
 * signature for the four (complex numbers and their real parts both as void *); geev in its c
 * and z forms (real matrices go through complex ones: see EIG in ir.h). */
typedef struct lapacke {
    lp_int (*getrf[4])(int, lp_int, lp_int, void *, lp_int, lp_int *);
    lp_int (*getrs[4])(int, char, lp_int, lp_int, const void *, lp_int, const lp_int *, void *,
                       lp_int);
    lp_int (*potrf[4])(int, char, lp_int, void *, lp_int);
    lp_int (*syevd[4])(int, char, char, lp_int, void *, lp_int, void *);
    lp_int (*gesdd[4])(int, char, lp_int, lp_int, void *, lp_int, void *, void *, lp_int, void *,
                       lp_int);
    lp_int (*geqrf[4])(int, lp_int, lp_int, void *, lp_int, void *);
    lp_int (*orgqr[4])(int, lp_int, lp_int, lp_int, void *, lp_int, const void *);
    lp_int (*geev[4])(int, char, char, lp_int, void *, lp_int, void *, void *, lp_int, void *,
                      lp_int); /* [2] and [3] only */
} lapacke_t;

static const struct {
    const char *name[4];
    size_t offset;
} lapacke_syms[] = {
    {{"LAPACKE_sgetrf", "LAPACKE_dgetrf", "LAPACKE_cgetrf", "LAPACKE_zgetrf"},
     offsetof(lapacke_t, getrf)},
    {{"LAPACKE_sgetrs", "LAPACKE_dgetrs", "LAPACKE_cgetrs", "LAPACKE_zgetrs"},
     offsetof(lapacke_t, getrs)},
    {{"LAPACKE_spotrf", "LAPACKE_dpotrf", "LAPACKE_cpotrf", "LAPACKE_zpotrf"},
     offsetof(lapacke_t, potrf)},
    {{"LAPACKE_ssyevd", "LAPACKE_dsyevd", "LAPACKE_cheevd", "LAPACKE_zheevd"},
     offsetof(lapacke_t, syevd)},
    {{"LAPACKE_sgesdd", "LAPACKE_dgesdd", "LAPACKE_cgesdd", "LAPACKE_zgesdd"},
     offsetof(lapacke_t, gesdd)},
    {{"LAPACKE_sgeqrf", "LAPACKE_dgeqrf", "LAPACKE_cgeqrf", "LAPACKE_zgeqrf"},
     offsetof(lapacke_t, geqrf)},
    {{"LAPACKE_sorgqr", "LAPACKE_dorgqr", "LAPACKE_cungqr", "LAPACKE_zungqr"},
     offsetof(lapacke_t, orgqr)},
    {{NULL, NULL, "LAPACKE_cgeev", "LAPACKE_zgeev"}, offsetof(lapacke_t, geev)},
};
static const char *const lapacke_libs[] = {"liblapacke.so.3", "liblapacke.so"};

static lapacke_t lapacke;
static bool lapacke_ok;
static pthread_mutex_t lapacke_lock = PTHREAD_MUTEX_INITIALIZER;

static void lapacke_load(void) {
    void *dl = NULL;
    for (size_t i = 0; i < BASE_ARRAY_LEN(lapacke_libs) && !dl; i++)
        dl = dlopen(lapacke_libs[i], RTLD_NOW | RTLD_LOCAL);
    if (!dl) return;
    for (size_t i = 0; i < BASE_ARRAY_LEN(lapacke_syms); i++)
        for (int t = 0; t < 4; t++) {
            if (!lapacke_syms[i].name[t]) continue;
            void *f = dlsym(dl, lapacke_syms[i].name[t]);
            if (!f) return; /* the library stays loaded: a process-wide table, like libcuda's */
            memcpy((char *)&lapacke + lapacke_syms[i].offset + (size_t)t * sizeof f, &f, sizeof f);
        }
    /* LAPACKE refuses matrices holding NaN (a negative info naming the matrix argument);
     * NumPy calls LAPACK itself, which computes with them: NaN results, or a factorisation
     * that does not converge. Switch the check off where the library has the switch. */
    void (*set_nancheck)(int) = NULL;
    void *f = dlsym(dl, "LAPACKE_set_nancheck");
    if (f) memcpy(&set_nancheck, &f, sizeof f);
    if (set_nancheck) set_nancheck(0);
    lapacke_ok = true;
}

/* LAPACKE's table, loaded by the first caller; a failed load is tried again next time (the
 * library may be installed meanwhile, or the failure was a lack of memory). */
static bool lapacke_ready(void) {
    pthread_mutex_lock(&lapacke_lock);
    if (!lapacke_ok) lapacke_load();
    bool ok = lapacke_ok;
    pthread_mutex_unlock(&lapacke_lock);
    return ok;
}

void ir_linalg_dims(const ir_node_t *n, const ir_node_t *a_node, int64_t *batch, int64_t *rows,
                    int64_t *cols) {
    (void)n;
    int nd = a_node->ndim;
    int64_t b = 1;
    for (int ax = 0; ax + 2 < nd; ax++) b *= a_node->shape[ax];
    *batch = b;
    *rows = a_node->shape[nd - 2];
    *cols = a_node->shape[nd - 1];
}

loom_status_t ir_linalg_error(base_error_t *err, const ir_node_t *n, int64_t info, int64_t index,
                              int64_t batch) {
    const char *what = "Singular matrix";
    const char *fn = n->op == IR_OP_SOLVE && n->p.k ? "inv" : ir_ops[n->op].name;
    if (n->op == IR_OP_CHOLESKY) what = "Matrix is not positive definite";
    if (n->op == IR_OP_EIGH || n->op == IR_OP_EIG) what = "Eigenvalues did not converge";
    if (info == IR_LINALG_NONFINITE) what = "Array must not contain infs or NaNs";
    if (n->op == IR_OP_SVD) what = "SVD did not converge";
    if (n->op == IR_OP_QR) what = "QR factorization failed";
    if (batch > 1)
        return base_error_set(err, LOOM_STATUS_LINALG_ERROR,
                              "linalg.%s: %s (matrix %lld of the stack of %lld; info %lld)", fn,
                              what, (long long)index, (long long)batch, (long long)info);
    return base_error_set(err, LOOM_STATUS_LINALG_ERROR, "linalg.%s: %s (info %lld)", fn, what,
                          (long long)info);
}

/* out[i + j * ld_out] = in[i + j * ld_in] for i < rows, j < cols (column-major copies). */
static void copy_cols(size_t es, int64_t rows, int64_t cols, const char *in, int64_t ld_in,
                      char *out, int64_t ld_out) {
    for (int64_t j = 0; j < cols; j++)
        memcpy(out + (size_t)(j * ld_out) * es, in + (size_t)(j * ld_in) * es, (size_t)rows * es);
}

/* Element i of p (dtype d) set to v; a complex one to v + 0j. */
static void set_elem(loom_dtype_t d, char *p, int64_t i, double v) {
    bool c = ir_is_complex(d);
    if (c) i *= 2;
    if (ir_real_dtype(d) == LOOM_DTYPE_F32) {
        ((float *)(void *)p)[i] = (float)v;
        if (c) ((float *)(void *)p)[i + 1] = 0;
    } else {
        ((double *)(void *)p)[i] = v;
        if (c) ((double *)(void *)p)[i + 1] = 0;
    }
}

/* count real values (dtype ir_real_dtype(d)) at w into the complex elements of p (dtype d),
 * imaginary parts zero; a real d copies. */
static void widen(loom_dtype_t d, char *p, const char *w, int64_t count) {
    bool f32 = ir_real_dtype(d) == LOOM_DTYPE_F32;
    for (int64_t i = 0; i < count; i++)
        set_elem(d, p, i, f32 ? ((const float *)(const void *)w)[i]
                              : ((const double *)(const void *)w)[i]);
}

/* Whether the count elements of p (dtype d) are all finite. */
static bool all_finite(loom_dtype_t d, const char *p, int64_t count) {
    if (ir_is_complex(d)) count *= 2;
    for (int64_t i = 0; i < count; i++)
        if (!isfinite(ir_real_dtype(d) == LOOM_DTYPE_F32 ? ((const float *)(const void *)p)[i]
                                                         : ((const double *)(const void *)p)[i]))
            return false;
    return true;
}

/* The index of d in the routines' tables: s, d, c, z. */
static int routine_index(loom_dtype_t d) {
    return d == LOOM_DTYPE_F32 ? 0 : d == LOOM_DTYPE_F64 ? 1 : d == LOOM_DTYPE_C64 ? 2 : 3;
}

loom_dtype_t ir_linalg_dtype(ir_op_t op, int64_t mode, loom_dtype_t d) {
    if ((op == IR_OP_EIGH && (mode & 2)) || (op == IR_OP_SVD && mode == 0))
        return ir_real_dtype(d);
    return d;
}

/* The identity (n x n) at p. */
static void identity(loom_dtype_t d, char *p, int64_t n) {
    memset(p, 0, (size_t)(n * n) * ir_dtypes[d].size);
    for (int64_t i = 0; i < n; i++) set_elem(d, p, i * n + i, 1.0);
}

loom_status_t ir_ref_linalg(const ir_node_t *n, const ir_node_t *a_node, const void *a,
                            const ir_node_t *b_node, const void *b, void *out, base_alloc_t *al,
                            base_error_t *err) {
    (void)b_node; /* SOLVE's right-hand sides: k x rows each, k from the node's shape */
    int64_t batch, rows, cols;
    ir_linalg_dims(n, a_node, &batch, &rows, &cols);
    loom_dtype_t d = (loom_dtype_t)a_node->dtype;
    size_t es = ir_dtypes[d].size, oes = ir_dtypes[n->dtype].size;
    int t = routine_index(d);
    int64_t out_per = batch ? ir_node_size(n) / batch : 0;
    int64_t a_per = rows * cols;
    if (batch == 0 || (out_per == 0 && a_per == 0)) return LOOM_STATUS_OK;
    if (!lapacke_ready())
        return base_error_set(err, LOOM_STATUS_NOT_AVAILABLE,
                              "linalg.%s: the reference device needs LAPACK's C interface "
                              "(liblapacke.so.3, Debian's liblapacke), which could not be loaded",
                              ir_ops[n->op].name);
    if (rows > INT32_MAX || cols > INT32_MAX)
        return base_error_set(err, LOOM_STATUS_OVERFLOW,
                              "linalg.%s: matrices of %lld x %lld "
                              "exceed LAPACK's 32-bit sizes",
                              ir_ops[n->op].name, (long long)rows, (long long)cols);
    const lapacke_t *L = &lapacke;
    /* scratch: a copy of the operand matrix (QR: m x max(n, q) and tau), and the pivots */
    int64_t qm = cols, qn = rows, qk = qm < qn ? qm : qn, qq = n->p.k == 1 ? qm : qk;
    int64_t work_n = n->op == IR_OP_QR ? qm * (qn > qq ? qn : qq) + qk : a_per;
    work_n += rows; /* EIGH's and SVD's real values before they widen into complex results */
    char *work = base_malloc(al, (size_t)work_n + 1, es), *vals = NULL;
    lp_int *ipiv = base_malloc(al, (size_t)rows + 1, sizeof *ipiv);
    loom_status_t st = LOOM_STATUS_OK;
    if (!work || !ipiv) {
        st = base_error_set(err, LOOM_STATUS_OUT_OF_MEMORY, "reference device: out of memory");
        goto done;
    }
    vals = work + (size_t)(work_n - rows) * es; /* (not from a failed allocation's NULL) */
    for (int64_t bi = 0; bi < batch && !st; bi++) {
        const char *ap = (const char *)a + (size_t)(bi * a_per) * es;
        char *op = (char *)out + (size_t)(bi * out_per) * oes;
        lp_int info = 0, nn = (lp_int)rows;
        switch (n->op) {
            case IR_OP_LU:
                memcpy(op, ap, (size_t)a_per * es);
                info = L->getrf[t](COL_MAJOR, nn, nn, op, nn, ipiv);
                for (int64_t i = 0; i < rows; i++) set_elem(d, op, a_per + i, ipiv[i]);
                if (info > 0) info = 0; /* a singular matrix has a determinant: 0 */
                break;
            case IR_OP_SOLVE: {
                int64_t k = n->shape[n->ndim - 2];
                memcpy(work, ap, (size_t)a_per * es);
                int64_t bb = n->p.k ? 0 : bi; /* inv: one B for all */
                memcpy(op, (const char *)b + (size_t)(bb * k * rows) * es, (size_t)(k * rows) * es);
                info = L->getrf[t](COL_MAJOR, nn, nn, work, nn, ipiv);
                if (info == 0 && k)
                    info = L->getrs[t](COL_MAJOR, 'T', nn, (lp_int)k, work, nn, ipiv, op, nn);
                if (info > 0 && n->p.k == 2) { /* cond's inv: NaN, no error */
                    for (int64_t e = 0; e < k * rows * (ir_is_complex(d) ? 2 : 1); e++)
                        set_elem(ir_real_dtype(d), op, e, NAN);
                    info = 0;
                }
                break;
            }
            case IR_OP_CHOLESKY:
                if (n->p.k == 1) /* A itself: its transpose, as p.k 0's operand */
                    for (int64_t r = 0; r < rows; r++)
                        for (int64_t c = 0; c < rows; c++)
                            memcpy(op + (size_t)(r * rows + c) * es,
                                   ap + (size_t)(c * rows + r) * es, es);
                else
                    memcpy(op, ap, (size_t)a_per * es);
                info = L->potrf[t](COL_MAJOR, 'L', nn, op, nn);
                for (int64_t j = 0; j < rows; j++) /* column-major strict upper = C's lower */
                    for (int64_t i = 0; i < j; i++) set_elem(d, op, i + j * rows, 0);
                break;
            case IR_OP_EIGH: {
                char uplo = (n->p.k & 1) ? 'L' : 'U'; /* C order's triangle, transposed */
                bool vectors = !(n->p.k & 2);
                char *m = vectors ? op + (size_t)rows * es : work;
                bool wide = vectors && ir_is_complex(d);
                memcpy(m, ap, (size_t)a_per * es);
                info = L->syevd[t](COL_MAJOR, vectors ? 'V' : 'N', uplo, nn, m, nn,
                                   wide ? vals : op);
                if (wide && !info) widen(d, op, vals, rows);
                break;
            }
            case IR_OP_SVD: { /* rows = m <= cols = n; column-major A^T is n x m */
                int64_t m = rows, nc = cols;
                memcpy(work, ap, (size_t)a_per * es);
                char *s = n->p.k ? op + (size_t)(m * m) * es : op;
                char *vh = s + (size_t)m * es;
                bool wide = n->p.k && ir_is_complex(d);
                char jobz = n->p.k == 0 ? 'N' : n->p.k == 1 ? 'S' : 'A';
                if (m == 0) {
                    if (n->p.k == 2) identity(d, vh, nc);
                    break;
                }
                char dummy[16];
                info = L->gesdd[t](COL_MAJOR, jobz, (lp_int)nc, (lp_int)m, work, (lp_int)nc,
                                   wide ? vals : s, n->p.k ? vh : dummy, (lp_int)nc,
                                   n->p.k ? op : dummy, (lp_int)m);
                if (wide && !info) widen(d, s, vals, m);
                break;
            }
            case IR_OP_QR: { /* operand A^T (n x m in C order) is A column-major, m x n */
                int64_t m = cols, nc = rows, k = m < nc ? m : nc;
                int64_t q = n->p.k == 1 ? m : k, wide = nc > q ? nc : q;
                char *tau = work + (size_t)(m * wide) * es;
                char *rt = n->p.k == 2 ? op : op + (size_t)(q * m) * es;
                memcpy(work, ap, (size_t)a_per * es);
                if (k) info = L->geqrf[t](COL_MAJOR, (lp_int)m, (lp_int)nc, work, (lp_int)m, tau);
                if (info) break;
                copy_cols(es, k, nc, work, m, rt, k); /* R: k x n column-major */
                for (int64_t j = 0; j < nc; j++)
                    for (int64_t i = j + 1; i < k; i++) set_elem(d, rt, i + j * k, 0);
                if (n->p.k == 2) break;
                if (k == 0) {
                    if (q) identity(d, op, q);
                    break;
                }
                info =
                    L->orgqr[t](COL_MAJOR, (lp_int)m, (lp_int)q, (lp_int)k, work, (lp_int)m, tau);
                if (!info) memcpy(op, work, (size_t)(m * q) * es);
                break;
            }
            case IR_OP_EIG: { /* operand A^T: A column-major */
                char dummy[16];
                bool vectors = n->p.k == 1;
                memcpy(work, ap, (size_t)a_per * es);
                if (!all_finite(d, work, a_per)) { /* NumPy's eig checks first */
                    info = IR_LINALG_NONFINITE;
                    break;
                }
                info = L->geev[t](COL_MAJOR, 'N', vectors ? 'V' : 'N', nn, work, nn, op, dummy, 1,
                                  vectors ? op + (size_t)rows * es : dummy, vectors ? nn : 1);
                break;
            }
            default:
                info = -1;
        }
        if (n->op == IR_OP_SVD && info == -5) /* gesdd's "A had a NaN entry" (its -4) */
            info = 1;
        if (info == -1010 || info == -1011) /* LAPACK_WORK_MEMORY_ERROR, _TRANSPOSE_ */
            st = base_error_set(err, LOOM_STATUS_OUT_OF_MEMORY,
                                "linalg.%s: LAPACK ran out of memory for its work arrays",
                                ir_ops[n->op].name);
        else if (info < 0)
            st = base_error_set(err, LOOM_STATUS_INTERNAL,
                                "linalg.%s: LAPACK refused argument %d (mode %lld, %lld x %lld)",
                                ir_ops[n->op].name, (int)-info, (long long)n->p.k, (long long)rows,
                                (long long)cols);
        else if (info > 0)
            st = ir_linalg_error(err, n, info, bi, batch);
    }
done:
    base_free(al, work);
    base_free(al, ipiv);
    return st;
}

/* a * b + c, false on overflow (the packed results' sizes). */
static bool mul_add(int64_t a, int64_t b, int64_t c, int64_t *out) {
    int64_t p;
    return !__builtin_mul_overflow(a, b, &p) && !__builtin_add_overflow(p, c, out);
}

bool ir_linalg_shape(ir_op_t op, int64_t mode, const ir_node_t *a, const ir_node_t *b, int *ndim,
                     int64_t *shape) {
    int nd = a->ndim;
    if (nd < 2 || a->shape[nd - 2] < 0) return false;
    int64_t r = a->shape[nd - 2], c = a->shape[nd - 1];
    memcpy(shape, a->shape, (size_t)nd * sizeof *shape);
    *ndim = nd;
    bool square = r == c;
    switch (op) {
        case IR_OP_LU: /* pivots as floats: exact while n < 2^24 */
            if (r >= ((int64_t)1 << 24)) return false;
            shape[nd - 2] = r + 1;
            return square && mode == 0;
        case IR_OP_SOLVE: /* modes 1 and 2 (inv): one (k, n) B^T shared by every matrix */
            if (!b || b->ndim != (mode ? 2 : nd) || b->shape[b->ndim - 1] != r ||
                (!mode && memcmp(b->shape, a->shape, (size_t)(nd - 2) * sizeof *shape)))
                return false;
            shape[nd - 2] = b->shape[b->ndim - 2];
            return square && mode >= 0 && mode <= 2;
        case IR_OP_CHOLESKY:
            return square && (mode == 0 || mode == 1);
        case IR_OP_EIGH:
            if (mode & 2)
                *ndim = nd - 1;
            else
                shape[nd - 2] = r + 1;
            return square && mode >= 0 && mode < 4;
        case IR_OP_SVD:
            if (mode == 0) {
                *ndim = nd - 1;
                shape[nd - 2] = r;
            } else {
                int64_t uv;
                *ndim = nd - 1;
                if (!mul_add(r, r, r, &uv) || !mul_add(mode == 1 ? r : c, c, uv, &shape[nd - 2]))
                    return false;
            }
            return r <= c && mode >= 0 && mode < 3;
        case IR_OP_EIG:
            if (mode == 0)
                *ndim = nd - 1;
            else
                shape[nd - 2] = r + 1;
            return square && (mode == 0 || mode == 1);
        case IR_OP_QR: { /* operand A^T: r = n, c = m */
            int64_t m = c, n = r, k = m < n ? m : n, q = mode == 1 ? m : k;
            if (mode == 2) {
                shape[nd - 2] = n;
                shape[nd - 1] = k;
            } else {
                int64_t qs;
                *ndim = nd - 1;
                if (!mul_add(q, m, 0, &qs) || !mul_add(n, k, qs, &shape[nd - 2])) return false;
            }
            return mode >= 0 && mode < 3;
        }
        default:
            return false;
    }
}
