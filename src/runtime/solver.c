/* solver.c — dense factorisations through cuSOLVER (cusolverDn's 32-bit routines), loaded with
 * dlopen into a function table as blas.c loads cuBLASLt, so loom loads and runs without it. The
 * declarations are ours, with the numeric values of cusolver_common.h and cublas_api.h.
 *
 * rt_solver_run runs one job: the same routine over each matrix of a stack, queued on the
 * device's stream with one workspace from the pool (sized by the routine's bufferSize query) and
 * each matrix's info word in the caller's array. Nothing here synchronises but EIG, whose
 * routine (Xgeev, CUDA 12.6 and later) also works in host memory that must outlive it. */
#include <dlfcn.h>
#include <string.h>

#include "driver.h"

typedef int sv_status_t;            /* cusolverStatus_t; 0 = CUSOLVER_STATUS_SUCCESS */
typedef struct sv_ctx *sv_handle_t; /* cusolverDnHandle_t */
typedef struct sv_par *sv_params_t; /* cusolverDnParams_t */
enum { OP_N = 0, OP_T = 1, FILL_LOWER = 0, FILL_UPPER = 1, EIG_NOVECTOR = 0, EIG_VECTOR = 1 };
enum { CUDA_R_32F_ = 0, CUDA_R_64F_ = 1, CUDA_C_32F_ = 4, CUDA_C_64F_ = 5 }; /* cudaDataType */

/* The s (float32), d (float64), c (complex64) and z (complex128) forms of each routine, one C
 * signature for the four (complex numbers and their real parts both as void *). */
typedef struct sv_table {
    sv_status_t (*Create)(sv_handle_t *h);
    sv_status_t (*Destroy)(sv_handle_t h);
    sv_status_t (*SetStream)(sv_handle_t h, CUstream s);
    sv_status_t (*CreateParams)(sv_params_t *p);
    sv_status_t (*DestroyParams)(sv_params_t p);
    sv_status_t (*Xpotrf_ws)(sv_handle_t, sv_params_t, int, int64_t, int, const void *, int64_t,
                             int, size_t *, size_t *);
    sv_status_t (*Xpotrf)(sv_handle_t, sv_params_t, int, int64_t, int, void *, int64_t, int, void *,
                          size_t, void *, size_t, int *);
    sv_status_t (*getrf_ws[4])(sv_handle_t, int, int, void *, int, int *);
    sv_status_t (*getrf[4])(sv_handle_t, int, int, void *, int, void *, int *, int *);
    sv_status_t (*getrs[4])(sv_handle_t, int, int, int, const void *, int, const int *, void *, int,
                            int *);
    sv_status_t (*syevd_ws[4])(sv_handle_t, int, int, int, const void *, int, const void *, int *);
    sv_status_t (*syevd[4])(sv_handle_t, int, int, int, void *, int, void *, void *, int, int *);
    sv_status_t (*gesvd_ws[4])(sv_handle_t, int, int, int *);
    sv_status_t (*gesvd[4])(sv_handle_t, signed char, signed char, int, int, void *, int, void *,
                            void *, int, void *, int, void *, int, void *, int *);
    sv_status_t (*geqrf_ws[4])(sv_handle_t, int, int, void *, int, int *);
    sv_status_t (*geqrf[4])(sv_handle_t, int, int, void *, int, void *, void *, int, int *);
    sv_status_t (*orgqr_ws[4])(sv_handle_t, int, int, int, const void *, int, const void *, int *);
    sv_status_t (*orgqr[4])(sv_handle_t, int, int, int, void *, int, const void *, void *, int,
                            int *);
    sv_status_t (*Xgeev_ws)(sv_handle_t, sv_params_t, int, int, int64_t, int, const void *, int64_t,
                            int, const void *, int, const void *, int64_t, int, const void *,
                            int64_t, int, size_t *, size_t *);
    sv_status_t (*Xgeev)(sv_handle_t, sv_params_t, int, int, int64_t, int, void *, int64_t, int,
                         void *, int, void *, int64_t, int, void *, int64_t, int, void *, size_t,
                         void *, size_t, int *);
} sv_table_t;

#define SV_FOUR(field, s, d, c, z)                                                                 \
    { {"cusolverDn" s, "cusolverDn" d, "cusolverDn" c, "cusolverDn" z}, offsetof(sv_table_t, field), 4, false }
#define SV_ONE(field, s)                                                                           \
    { {"cusolverDn" s}, offsetof(sv_table_t, field), 1, false }
#define SV_LATER(field, s) /* newer than CUDA 11: its absence refuses only what needs it */       \
    { {"cusolverDn" s}, offsetof(sv_table_t, field), 1, true }
static const struct {
    const char *name[4];
    size_t offset;
    int n;
    bool optional;
} sv_syms[] = {
    SV_ONE(Create, "Create"),
    SV_ONE(Destroy, "Destroy"),
    SV_ONE(SetStream, "SetStream"),
    SV_ONE(CreateParams, "CreateParams"),
    SV_ONE(DestroyParams, "DestroyParams"),
    SV_ONE(Xpotrf_ws, "Xpotrf_bufferSize"),
    SV_ONE(Xpotrf, "Xpotrf"),
    SV_FOUR(getrf_ws, "Sgetrf_bufferSize", "Dgetrf_bufferSize", "Cgetrf_bufferSize", "Zgetrf_bufferSize"),
    SV_FOUR(getrf, "Sgetrf", "Dgetrf", "Cgetrf", "Zgetrf"),
    SV_FOUR(getrs, "Sgetrs", "Dgetrs", "Cgetrs", "Zgetrs"),
    SV_FOUR(syevd_ws, "Ssyevd_bufferSize", "Dsyevd_bufferSize", "Cheevd_bufferSize", "Zheevd_bufferSize"),
    SV_FOUR(syevd, "Ssyevd", "Dsyevd", "Cheevd", "Zheevd"),
    SV_FOUR(gesvd_ws, "Sgesvd_bufferSize", "Dgesvd_bufferSize", "Cgesvd_bufferSize", "Zgesvd_bufferSize"),
    SV_FOUR(gesvd, "Sgesvd", "Dgesvd", "Cgesvd", "Zgesvd"),
    SV_FOUR(geqrf_ws, "Sgeqrf_bufferSize", "Dgeqrf_bufferSize", "Cgeqrf_bufferSize", "Zgeqrf_bufferSize"),
    SV_FOUR(geqrf, "Sgeqrf", "Dgeqrf", "Cgeqrf", "Zgeqrf"),
    SV_FOUR(orgqr_ws, "Sorgqr_bufferSize", "Dorgqr_bufferSize", "Cungqr_bufferSize", "Zungqr_bufferSize"),
    SV_FOUR(orgqr, "Sorgqr", "Dorgqr", "Cungqr", "Zungqr"),
    SV_LATER(Xgeev_ws, "Xgeev_bufferSize"),
    SV_LATER(Xgeev, "Xgeev"),
};

static const char *const sv_libs[] = {"libcusolver.so.12", "libcusolver.so.11", "libcusolver.so"};

struct rt_solver {
    void *dl;
    const char *lib;
    sv_table_t t;
    sv_handle_t handle;
    sv_params_t params; /* the 64-bit API's (default) parameters */
};

loom_status_t rt_solver_create(rt_device_t *d, rt_solver_t **out) {
    *out = NULL;
    if (d->compile_only) return rt_not_available(d, "cuSOLVER");
    rt_solver_t *s = base_calloc(d->al, 1, sizeof *s);
    if (!s) return base_error_set(d->err, LOOM_STATUS_OUT_OF_MEMORY, "cuSOLVER: out of memory");
    char why[256];
    s->dl = rt_dlopen_first(sv_libs, BASE_ARRAY_LEN(sv_libs), &s->lib, why, sizeof why);
    if (!s->dl) {
        base_free(d->al, s);
        return base_error_set(d->err, LOOM_STATUS_NOT_AVAILABLE,
                              "linalg on the CUDA device needs cuSOLVER: %s not found (%s)",
                              sv_libs[0], why[0] ? why : "unknown reason");
    }
    for (size_t i = 0; i < BASE_ARRAY_LEN(sv_syms); i++)
        for (int k = 0; k < sv_syms[i].n; k++) {
            void *f = dlsym(s->dl, sv_syms[i].name[k]);
            if (!f && sv_syms[i].optional) continue;
            if (!f) {
                loom_status_t st = base_error_set(d->err, LOOM_STATUS_NOT_AVAILABLE,
                                                  "%s has no symbol %s: cuSOLVER is too old or "
                                                  "broken",
                                                  s->lib, sv_syms[i].name[k]);
                rt_solver_destroy(d, s);
                return st;
            }
            memcpy((char *)&s->t + sv_syms[i].offset + (size_t)k * sizeof f, &f, sizeof f);
        }
    loom_status_t st = rt_bind(d);
    sv_status_t r = st ? 0 : s->t.Create(&s->handle);
    if (!st && !r) r = s->t.SetStream(s->handle, (CUstream)rt_device_stream(d));
    if (!st && !r) r = s->t.CreateParams(&s->params);
    if (st || r) {
        if (!st)
            st = base_error_set(d->err, LOOM_STATUS_DEVICE_ERROR,
                                "cusolverDnCreate/SetStream failed: status %d", r);
        rt_solver_destroy(d, s);
        return st;
    }
    *out = s;
    return LOOM_STATUS_OK;
}

void rt_solver_destroy(rt_device_t *d, rt_solver_t *s) {
    if (!s) return;
    if (s->params) s->t.DestroyParams(s->params);
    if (s->handle) s->t.Destroy(s->handle);
    if (s->dl) dlclose(s->dl);
    base_free(d->al, s);
}

/* The routines' index of dtype d (s, d, c, z), and by it the cudaDataType, element size and
 * name. */
static int sv_index(loom_dtype_t d) {
    return d == LOOM_DTYPE_F32 ? 0 : d == LOOM_DTYPE_F64 ? 1 : d == LOOM_DTYPE_C64 ? 2 : 3;
}
static const int sv_types[4] = {CUDA_R_32F_, CUDA_R_64F_, CUDA_C_32F_, CUDA_C_64F_};
static const size_t sv_sizes[4] = {4, 8, 8, 16};
static const char *const sv_names[4] = {"float32", "float64", "complex64", "complex128"};

static loom_status_t sv_fail(rt_device_t *d, const char *call, sv_status_t r, const rt_la_t *j) {
    return base_error_set(d->err, LOOM_STATUS_DEVICE_ERROR,
                          "cusolverDn %s failed: status %d (%s, %lld matrices of %lld x %lld)",
                          call, r, sv_names[sv_index(j->dtype)], (long long)j->batch,
                          (long long)j->rows, (long long)j->cols);
}


/* count real values at src into the complex elements at dst (imaginary parts zero): the real
 * values EIGH and SVD give, packed into a complex result. es: the complex element's size. */
static loom_status_t widen(rt_device_t *d, uint64_t dst, uint64_t src, size_t es, int64_t count) {
    loom_status_t st = rt_memset(d, dst, 0, (size_t)count * es);
    if (!st) st = rt_d2d_2d(d, dst, es, src, es / 2, es / 2, (size_t)count);
    return st;
}

#define SV_CALL(call, expr)                                                                        \
    do {                                                                                           \
        sv_status_t r_ = (expr);                                                                   \
        if (r_) {                                                                                  \
            st = sv_fail(d, call, r_, j);                                                          \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)

/* The identity (n x n) at dev: zeros, then the diagonal from a host row of ones... built on the
 * host (empty-matrix corner cases only). */
static loom_status_t identity(rt_device_t *d, const rt_la_t *j, uint64_t dev, int64_t n) {
    int t = sv_index(j->dtype);
    size_t es = sv_sizes[t], bytes = (size_t)(n * n) * es;
    char *h = base_calloc(d->al, bytes ? bytes : 1, 1);
    if (!h) return base_error_set(d->err, LOOM_STATUS_OUT_OF_MEMORY, "cuSOLVER: out of memory");
    for (int64_t i = 0; i < n; i++) { /* 1 (+ 0j): the real part's first bytes */
        if (t & 1) /* float64, complex128 */
            ((double *)(void *)(h + (size_t)(i * n + i) * es))[0] = 1;
        else
            ((float *)(void *)(h + (size_t)(i * n + i) * es))[0] = 1;
    }
    loom_status_t st = rt_h2d(d, dev, h, bytes);
    base_free(d->al, h);
    return st;
}

loom_status_t rt_solver_run(rt_device_t *d, rt_solver_t *s, const rt_la_t *j) {
    int t = sv_index(j->dtype), ty = sv_types[t];
    size_t es = sv_sizes[t];
    bool cplx = t >= 2;
    char *host = NULL; /* EIG's host workspace */
    size_t host_bytes = 0, dev_bytes = 0;
    int64_t m = j->rows, n = j->cols, k = m < n ? m : n;
    int im = (int)m, in = (int)n;
    const sv_table_t *T = &s->t;
    sv_handle_t h = s->handle;
    uint64_t ws = 0, work = 0, tau = 0;
    int lwork = 0, l2 = 0;
    loom_status_t st = LOOM_STATUS_OK;
    if (j->batch == 0) return st;
    /* the workspace: the routine's own query, for one matrix (reused in stream order) */
    switch (j->op) {
        case RT_LA_LU:
        case RT_LA_SOLVE:
            SV_CALL("getrf_bufferSize", T->getrf_ws[t](h, im, im, NULL, im, &lwork));
            break;
        case RT_LA_CHOLESKY: { /* lower: ~1.5x the speed of cuSOLVER's upper form */
            size_t dev = 0, hb = 0;
            SV_CALL("Xpotrf_bufferSize",
                    T->Xpotrf_ws(h, s->params, FILL_LOWER, m, ty, NULL, m, ty, &dev, &hb));
            if (hb) {
                st = base_error_set(d->err, LOOM_STATUS_NOT_AVAILABLE,
                                    "cusolverDnXpotrf asks for %zu bytes of host workspace", hb);
                goto done;
            }
            lwork = (int)((dev + es - 1) / es);
            break;
        }
        case RT_LA_EIG:
            if (!T->Xgeev || !T->Xgeev_ws) {
                st = base_error_set(d->err, LOOM_STATUS_NOT_AVAILABLE,
                                    "linalg.eig on the CUDA device needs cusolverDnXgeev "
                                    "(CUDA 12.6 or later); %s has none",
                                    s->lib);
                goto done;
            }
            SV_CALL("Xgeev_bufferSize",
                    T->Xgeev_ws(h, s->params, EIG_NOVECTOR, j->mode ? EIG_VECTOR : EIG_NOVECTOR, m,
                                ty, NULL, m, ty, NULL, ty, NULL, 1, ty, NULL, m, ty, &dev_bytes,
                                &host_bytes));
            lwork = (int)((dev_bytes + es - 1) / es);
            break;
        case RT_LA_EIGH:
            SV_CALL("syevd_bufferSize", T->syevd_ws[t](h, (j->mode & 2) ? EIG_NOVECTOR : EIG_VECTOR,
                                                       (j->mode & 1) ? FILL_LOWER : FILL_UPPER, im,
                                                       NULL, im, NULL, &lwork));
            break;
        case RT_LA_SVD: /* column-major A^T: n x m, n >= m */
            if (m) SV_CALL("gesvd_bufferSize", T->gesvd_ws[t](h, in, im, &lwork));
            break;
        case RT_LA_QR: { /* column-major A: m x n (rows: the operand's columns) */
            int qm = (int)n, qn = (int)m, qk = qm < qn ? qm : qn, q = j->mode == 1 ? qm : qk;
            if (qk) SV_CALL("geqrf_bufferSize", T->geqrf_ws[t](h, qm, qn, NULL, qm, &lwork));
            if (qk && j->mode != 2)
                SV_CALL("orgqr_bufferSize", T->orgqr_ws[t](h, qm, q, qk, NULL, qm, NULL, &l2));
            if (l2 > lwork) lwork = l2;
            break;
        }
    }
    size_t per = (size_t)(m * n) * es;
    /* after the routine's own workspace: SVD's rwork (k reals), then EIGH's and SVD's real
     * values when they widen into a complex result (m reals) */
    size_t wbytes = (size_t)(lwork > 0 ? lwork : 1) * es + (size_t)(k + m) * es;
    uint64_t vals = 0;
    if ((st = rt_alloc(d, wbytes, &ws))) goto done;
    vals = ws + (uint64_t)(lwork > 0 ? lwork : 1) * es + (uint64_t)k * es;
    if (host_bytes && !(host = base_malloc(d->al, host_bytes, 1))) {
        st = base_error_set(d->err, LOOM_STATUS_OUT_OF_MEMORY,
                            "linalg.eig: %zu bytes of host workspace", host_bytes);
        goto done;
    }
    switch (j->op) {
        case RT_LA_LU: { /* factors into the result's first n rows, pivots to j->ipiv */
            size_t pitch = (size_t)((m + 1) * m) * es;
            if ((st = rt_d2d_2d(d, j->out, pitch, j->a, per, per, (size_t)j->batch))) goto done;
            for (int64_t b = 0; b < j->batch; b++)
                SV_CALL("getrf", T->getrf[t](h, im, im, (void *)(uintptr_t)(j->out + b * pitch), im,
                                             (void *)(uintptr_t)ws,
                                             (int *)(uintptr_t)(j->ipiv + (uint64_t)(b * m) * 4),
                                             (int *)(uintptr_t)(j->info + (uint64_t)b * 4)));
            break;
        }
        case RT_LA_SOLVE: { /* A^T factored in a copy, then A X = B for X^T in the result */
            size_t bbytes = (size_t)(j->nrhs * m) * es;
            if ((st = rt_alloc(d, per * (size_t)j->batch, &work))) goto done;
            if ((st = rt_d2d(d, work, j->a, per * (size_t)j->batch))) goto done;
            if (j->mode == 0) {
                if (bbytes && (st = rt_d2d(d, j->out, j->b, bbytes * (size_t)j->batch))) goto done;
            } else { /* inv: the one identity B for every matrix */
                for (int64_t b = 0; b < j->batch && bbytes; b++)
                    if ((st = rt_d2d(d, j->out + (uint64_t)b * bbytes, j->b, bbytes))) goto done;
            }
            for (int64_t b = 0; b < j->batch; b++) {
                void *a = (void *)(uintptr_t)(work + b * per);
                int *piv = (int *)(uintptr_t)(j->ipiv + (uint64_t)(b * m) * 4);
                SV_CALL("getrf", T->getrf[t](h, im, im, a, im, (void *)(uintptr_t)ws, piv,
                                             (int *)(uintptr_t)(j->info + (uint64_t)b * 4)));
                if (j->nrhs)
                    SV_CALL("getrs", T->getrs[t](h, OP_T, im, (int)j->nrhs, a, im, piv,
                                                 (void *)(uintptr_t)(j->out + b * bbytes), im,
                                                 (int *)(uintptr_t)(j->info2 + (uint64_t)b * 4)));
            }
            break;
        }
        case RT_LA_CHOLESKY: /* (the engine may have written the operand into out already) */
            if (j->a != j->out && (st = rt_d2d(d, j->out, j->a, per * (size_t)j->batch))) goto done;
            for (int64_t b = 0; b < j->batch; b++)
                SV_CALL("Xpotrf",
                        T->Xpotrf(h, s->params, FILL_LOWER, m, ty,
                                  (void *)(uintptr_t)(j->out + b * per), m, ty,
                                  (void *)(uintptr_t)ws,
                                  (size_t)lwork * es, NULL, 0,
                                  (int *)(uintptr_t)(j->info + (uint64_t)b * 4)));
            break;
        case RT_LA_EIGH: {
            bool vectors = !(j->mode & 2);
            size_t pitch = vectors ? per + (size_t)m * es : (size_t)m * es;
            uint64_t mat = j->out + (vectors ? (uint64_t)m * es : 0);
            if (vectors) {
                if ((st = rt_d2d_2d(d, mat, pitch, j->a, per, per, (size_t)j->batch))) goto done;
            } else {
                if ((st = rt_alloc(d, per * (size_t)j->batch, &work))) goto done;
                if ((st = rt_d2d(d, work, j->a, per * (size_t)j->batch))) goto done;
                mat = work;
            }
            if (!vectors) pitch = (size_t)m * (es / (cplx ? 2 : 1)); /* real values alone */
            bool wide = vectors && cplx;
            for (int64_t b = 0; b < j->batch; b++) {
                SV_CALL("syevd",
                        T->syevd[t](h, vectors ? EIG_VECTOR : EIG_NOVECTOR,
                                    (j->mode & 1) ? FILL_LOWER : FILL_UPPER, im,
                                    (void *)(uintptr_t)(mat + b * (vectors ? pitch : per)), im,
                                    (void *)(uintptr_t)(wide ? vals : j->out + b * pitch),
                                    (void *)(uintptr_t)ws, lwork,
                                    (int *)(uintptr_t)(j->info + (uint64_t)b * 4)));
                if (wide && (st = widen(d, j->out + b * pitch, vals, es, m))) goto done;
            }
            break;
        }
        case RT_LA_SVD: { /* A^T = U' S VT' (n x m): VT' is A's U, U' its Vh */
            int64_t r = j->mode == 2 ? n : m;
            size_t pitch = j->mode ? (size_t)(m * m + m + r * n) * es
                                   : (size_t)m * (es / (cplx ? 2 : 1)); /* real values alone */
            bool wide = j->mode && cplx;
            if ((st = rt_alloc(d, per ? per : es, &work))) goto done;
            for (int64_t b = 0; b < j->batch; b++) {
                uint64_t o = j->out + b * pitch, sv = j->mode ? o + (uint64_t)(m * m) * es : o;
                if (m == 0) {
                    if (j->mode == 2 && (st = identity(d, j, sv, n))) goto done;
                    continue;
                }
                if ((st = rt_d2d(d, work, j->a + b * per, per))) goto done;
                signed char ju = j->mode == 0 ? 'N' : j->mode == 1 ? 'S' : 'A';
                signed char jv = j->mode == 0 ? 'N' : 'A';
                SV_CALL("gesvd",
                        T->gesvd[t](
                            h, ju, jv, in, im, (void *)(uintptr_t)work, in,
                            (void *)(uintptr_t)(wide ? vals : sv),
                            j->mode ? (void *)(uintptr_t)(sv + (uint64_t)m * es) : NULL, in,
                            j->mode ? (void *)(uintptr_t)o : NULL, im, (void *)(uintptr_t)ws, lwork,
                            (void *)(uintptr_t)(ws + (uint64_t)(lwork > 0 ? lwork : 1) * es),
                            (int *)(uintptr_t)(j->info + (uint64_t)b * 4)));
                if (wide && (st = widen(d, sv, vals, es, m))) goto done;
            }
            break;
        }
        case RT_LA_EIG: { /* operand A^T (C order): A column-major */
            bool vectors = j->mode == 1;
            size_t pitch = (size_t)((vectors ? m : 0) + 1) * (size_t)m * es;
            if ((st = rt_alloc(d, per ? per : es, &work))) goto done;
            for (int64_t b = 0; b < j->batch; b++) {
                uint64_t o = j->out + b * pitch;
                if ((st = rt_d2d(d, work, j->a + b * per, per))) goto done;
                SV_CALL("Xgeev",
                        T->Xgeev(h, s->params, EIG_NOVECTOR, vectors ? EIG_VECTOR : EIG_NOVECTOR,
                                 m, ty, (void *)(uintptr_t)work, m, ty, (void *)(uintptr_t)o, ty,
                                 NULL, 1, ty,
                                 vectors ? (void *)(uintptr_t)(o + (uint64_t)m * es) : NULL, m, ty,
                                 (void *)(uintptr_t)ws, dev_bytes, host, host_bytes,
                                 (int *)(uintptr_t)(j->info + (uint64_t)b * 4)));
            }
            if (host) st = rt_sync(d); /* the host workspace may be read until the stream ends */
            break;
        }
        case RT_LA_QR: { /* operand A^T (C order) = A column-major, qm x qn */
            int64_t qm = n, qn = m, qk = qm < qn ? qm : qn, q = j->mode == 1 ? qm : qk;
            int64_t wide = qn > q ? qn : q; /* geqrf uses qm x qn, orgqr qm x q */
            size_t pitch = (size_t)((j->mode == 2 ? 0 : q * qm) + qn * qk) * es;
            if ((st = rt_alloc(d, (size_t)(qm * wide + qk + 1) * es, &work))) goto done;
            tau = work + (uint64_t)(qm * wide) * es;
            for (int64_t b = 0; b < j->batch; b++) {
                uint64_t o = j->out + b * pitch,
                         rt = j->mode == 2 ? o : o + (uint64_t)(q * qm) * es;
                if (qk == 0) {
                    if (q && (st = identity(d, j, o, q))) goto done;
                    continue;
                }
                if ((st = rt_d2d(d, work, j->a + b * per, per))) goto done;
                SV_CALL("geqrf", T->geqrf[t](h, (int)qm, (int)qn, (void *)(uintptr_t)work, (int)qm,
                                             (void *)(uintptr_t)tau, (void *)(uintptr_t)ws, lwork,
                                             (int *)(uintptr_t)(j->info + (uint64_t)b * 4)));
                /* R: the first qk rows of each column (k x n column-major, ld qk) */
                if ((st = rt_d2d_2d(d, rt, (size_t)qk * es, work, (size_t)qm * es, (size_t)qk * es,
                                    (size_t)qn)))
                    goto done;
                if (j->mode == 2) continue;
                SV_CALL("orgqr",
                        T->orgqr[t](h, (int)qm, (int)q, (int)qk, (void *)(uintptr_t)work, (int)qm,
                                    (void *)(uintptr_t)tau, (void *)(uintptr_t)ws, lwork,
                                    (int *)(uintptr_t)(j->info2 + (uint64_t)b * 4)));
                if ((st = rt_d2d(d, o, work, (size_t)(qm * q) * es))) goto done;
            }
            break;
        }
    }
done:
    if (host) {
        if (st) rt_sync(d); /* a failure partway: what was queued may still read it */
        base_free(d->al, host);
    }
    if (ws) rt_free(d, ws);
    if (work) rt_free(d, work);
    return st;
}
