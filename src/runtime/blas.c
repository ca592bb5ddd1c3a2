/* blas.c — matrix products through cuBLASLt. The library is loaded with dlopen into a function
 * table (as driver.c loads libcuda), so loom loads and runs without it; the declarations below
 * are ours, with the numeric values documented in cublasLt.h and cublas_api.h (CUDA 12/13).
 *
 * Each call builds its descriptors (host-only, microseconds) and takes its algorithm from a
 * small cache keyed by the problem's structure and operand alignment (the epilogue included:
 * cuBLASLt's candidates differ per epilogue). On the first call of a structure the heuristic's
 * best ALGO_CANDIDATES are each run and timed with events on the call's own operands (D is the
 * result, about to be overwritten) and the fastest is kept: the heuristic's first choice is
 * often 5-10% off the best on large float16 products.
 *
 * Split-K reductions are limited to the compute type (float32 partial sums in the workspace):
 * "in place" and "output type" schemes add partial sums rounded to float16/bfloat16, which
 * breaks the round-once contract of rt.h (bfloat16 results came back 3-40 ulps off). */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

/* ---- cuBLASLt's ABI, as documented ---- */
typedef int lt_status_t;            /* cublasStatus_t; 0 = CUBLAS_STATUS_SUCCESS */
typedef struct lt_ctx *lt_handle_t; /* cublasLtHandle_t */
typedef struct lt_opaque *lt_desc_t, *lt_layout_t, *lt_pref_t;
typedef struct lt_algo {
    uint64_t data[8];
} lt_algo_t;
typedef struct lt_heuristic {
    lt_algo_t algo;
    size_t workspace_size;
    lt_status_t state;
    float waves;
    int reserved[4];
} lt_heuristic_t;

enum {
    CUDA_R_32F_ = 0, CUDA_R_64F_ = 1, CUDA_R_16F_ = 2, CUDA_R_16BF_ = 14, /* cudaDataType */
    CUDA_C_32F_ = 4, CUDA_C_64F_ = 5,
    COMPUTE_32F = 68, COMPUTE_32F_FAST_TF32 = 77, COMPUTE_64F = 70,      /* cublasComputeType_t */
    OP_N = 0, OP_T = 1,                                                   /* cublasOperation_t */
    DESC_SCALE_TYPE = 1, DESC_TRANSA = 3, DESC_TRANSB = 4, DESC_EPILOGUE = 7,
    DESC_BIAS_POINTER = 8,
    LAYOUT_BATCH_COUNT = 5, LAYOUT_STRIDED_BATCH_OFFSET = 6,
    EPILOGUE_DEFAULT = 1, EPILOGUE_RELU = 2, EPILOGUE_BIAS = 4, EPILOGUE_GELU = 32,
    PREF_MAX_WORKSPACE_BYTES = 1, PREF_REDUCTION_SCHEME_MASK = 3, PREF_MIN_ALIGNMENT_A = 5, PREF_MIN_ALIGNMENT_B = 6,
    PREF_MIN_ALIGNMENT_C = 7, PREF_MIN_ALIGNMENT_D = 8,
    REDUCTION_SCHEME_COMPUTE_TYPE = 2, /* cublasLtReductionScheme_t; NONE (0) always allowed */
    STATUS_NOT_SUPPORTED = 15,
};

/* X(field, symbol, parameters): every cuBLASLt call returning a status. */
#define RT_BLAS_LIST(X)                                                                        \
    X(Create, "cublasLtCreate", (lt_handle_t * h))                                             \
    X(Destroy, "cublasLtDestroy", (lt_handle_t h))                                             \
    X(DescCreate, "cublasLtMatmulDescCreate", (lt_desc_t * d, int compute, int scale))         \
    X(DescDestroy, "cublasLtMatmulDescDestroy", (lt_desc_t d))                                 \
    X(DescSet, "cublasLtMatmulDescSetAttribute",                                               \
      (lt_desc_t d, int attr, const void *buf, size_t n))                                      \
    X(LayoutCreate, "cublasLtMatrixLayoutCreate",                                              \
      (lt_layout_t * l, int type, uint64_t rows, uint64_t cols, int64_t ld))                   \
    X(LayoutDestroy, "cublasLtMatrixLayoutDestroy", (lt_layout_t l))                           \
    X(LayoutSet, "cublasLtMatrixLayoutSetAttribute",                                           \
      (lt_layout_t l, int attr, const void *buf, size_t n))                                    \
    X(PrefCreate, "cublasLtMatmulPreferenceCreate", (lt_pref_t * p))                           \
    X(PrefDestroy, "cublasLtMatmulPreferenceDestroy", (lt_pref_t p))                           \
    X(PrefSet, "cublasLtMatmulPreferenceSetAttribute",                                         \
      (lt_pref_t p, int attr, const void *buf, size_t n))                                      \
    X(Heuristic, "cublasLtMatmulAlgoGetHeuristic",                                             \
      (lt_handle_t h, lt_desc_t op, lt_layout_t a, lt_layout_t b, lt_layout_t c, lt_layout_t d, \
       lt_pref_t pref, int requested, lt_heuristic_t *results, int *returned))                 \
    X(AlgoCheck, "cublasLtMatmulAlgoCheck",                                                    \
      (lt_handle_t h, lt_desc_t op, lt_layout_t a, lt_layout_t b, lt_layout_t c, lt_layout_t d, \
       const lt_algo_t *algo, lt_heuristic_t *result))                                         \
    X(Matmul, "cublasLtMatmul",                                                                \
      (lt_handle_t h, lt_desc_t op, const void *alpha, const void *a, lt_layout_t adesc,       \
       const void *b, lt_layout_t bdesc, const void *beta, const void *c, lt_layout_t cdesc,    \
       void *d, lt_layout_t ddesc, const lt_algo_t *algo, void *ws, size_t ws_bytes,            \
       CUstream s))

typedef struct lt_table {
#define RT__BLAS_FIELD(field, sym, params) lt_status_t (*field) params;
    RT_BLAS_LIST(RT__BLAS_FIELD)
#undef RT__BLAS_FIELD
    const char *(*StatusName)(lt_status_t s); /* optional */
    size_t (*Version)(void);                  /* optional */
} lt_table_t;

static const struct {
    const char *name;
    size_t offset;
} syms[] = {
#define RT__BLAS_SYM(field, sym, params) {sym, offsetof(lt_table_t, field)},
    RT_BLAS_LIST(RT__BLAS_SYM)
#undef RT__BLAS_SYM
};

/* The libraries tried, newest first; the unversioned name last (a development install). */
static const char *const lib_names[] = {"libcublasLt.so.13", "libcublasLt.so.12",
                                        "libcublasLt.so.11", "libcublasLt.so"};

#define ALGO_SLOTS      256
#define ALGO_CANDIDATES 16
/* Timed per tuning: the heuristic's candidates, plus for a fused epilogue the plain product's
 * candidates that accept it (cuBLASLt's heuristic for RELU_BIAS misses fast tile configs). */
#define ALGO_TIMED (2 * ALGO_CANDIDATES)
/* The workspace: cuBLAS's own default on Hopper is 32 MiB (cublasSetWorkspace's documentation;
 * CuPy keeps that default), allocated at create. Candidates may ask for up to
 * WORKSPACE_MAX_BYTES; the buffer grows (from the pool) to what the chosen ones need. */
#define WORKSPACE_BYTES     ((size_t)32 << 20)
#define WORKSPACE_MAX_BYTES ((size_t)128 << 20)

typedef struct algo_slot {
    uint64_t key; /* 0 = empty */
    bool ok;      /* the heuristic found an algorithm */
    bool tuned;   /* the candidates were timed and algo is the fastest */
    lt_algo_t algo;
    size_t workspace; /* bytes algo needs */
} algo_slot_t;

struct rt_blas {
    void *dl;
    const char *lib;
    lt_table_t lt;
    lt_handle_t handle;
    uint64_t workspace;
    size_t workspace_bytes;
    rt_event_t *ev[ALGO_TIMED + 1]; /* for timing candidates; made on the first tuning */
    algo_slot_t algos[ALGO_SLOTS]; /* direct-mapped by key */
};

static const char *status_name(const rt_blas_t *b, lt_status_t s) {
    const char *n = b->lt.StatusName ? b->lt.StatusName(s) : NULL;
    return n ? n : "CUBLAS_STATUS_UNKNOWN";
}

static const char *dtype_name(loom_dtype_t t) {
    switch (t) {
        case LOOM_DTYPE_F16: return "float16";
        case LOOM_DTYPE_BF16: return "bfloat16";
        case LOOM_DTYPE_F32: return "float32";
        case LOOM_DTYPE_C64: return "complex64";
        case LOOM_DTYPE_C128: return "complex128";
        default: return "float64";
    }
}

/* Records "<call> failed: <STATUS> (<code>) for <the problem>". */
static loom_status_t fail(rt_device_t *d, const rt_blas_t *b, loom_status_t st, const char *call,
                          lt_status_t s, const rt_gemm_t *g) {
    if (!g)
        return base_error_set(d->err, st, "%s failed: %s (%d)", call, status_name(b, s), s);
    return base_error_set(d->err, st,
                          "%s failed: %s (%d) for a %s product m=%lld n=%lld k=%lld batch=%lld "
                          "(column-major: op(A)=%s lda=%lld, op(B)=%s ldb=%lld, ldd=%lld, "
                          "strides %lld/%lld/%lld%s%s)",
                          call, status_name(b, s), s, dtype_name(g->dtype), (long long)g->m,
                          (long long)g->n, (long long)g->k, (long long)g->batch,
                          g->trans_a ? "T" : "N", (long long)g->lda, g->trans_b ? "T" : "N",
                          (long long)g->ldb, (long long)g->ldd, (long long)g->stride_a,
                          (long long)g->stride_b, (long long)g->stride_d,
                          g->bias ? ", bias" : "",
                          g->act == RT_GEMM_ACT_RELU   ? ", relu"
                          : g->act == RT_GEMM_ACT_GELU ? ", gelu"
                                                       : "");
}

loom_status_t rt_blas_create(rt_device_t *d, rt_blas_t **out) {
    *out = NULL;
    if (d->compile_only) return rt_not_available(d, "cuBLASLt");
    rt_blas_t *b = base_calloc(d->al, 1, sizeof *b);
    if (!b) return base_error_set(d->err, LOOM_STATUS_OUT_OF_MEMORY, "cuBLASLt: out of memory");
    char why[256];
    b->dl = rt_dlopen_first(lib_names, BASE_ARRAY_LEN(lib_names), &b->lib, why, sizeof why);
    if (!b->dl) {
        base_free(d->al, b);
        return base_error_set(d->err, LOOM_STATUS_NOT_AVAILABLE,
                              "matmul on the CUDA device needs cuBLASLt: %s not found (%s)",
                              lib_names[0], why[0] ? why : "unknown reason");
    }
    for (size_t i = 0; i < BASE_ARRAY_LEN(syms); i++) {
        void *f = dlsym(b->dl, syms[i].name);
        if (!f) {
            loom_status_t st =
                base_error_set(d->err, LOOM_STATUS_NOT_AVAILABLE,
                               "%s has no symbol %s: cuBLASLt is too old or broken", b->lib,
                               syms[i].name);
            rt_blas_destroy(d, b);
            return st;
        }
        memcpy((char *)&b->lt + syms[i].offset, &f, sizeof f); /* POSIX: data -> function */
    }
    void *f = dlsym(b->dl, "cublasLtGetStatusName");
    if (f) memcpy(&b->lt.StatusName, &f, sizeof f);
    f = dlsym(b->dl, "cublasLtGetVersion");
    if (f) memcpy(&b->lt.Version, &f, sizeof f);
    loom_status_t st = rt_bind(d);
    lt_status_t s = st ? 0 : b->lt.Create(&b->handle);
    if (!st && s) st = fail(d, b, LOOM_STATUS_DEVICE_ERROR, "cublasLtCreate", s, NULL);
    if (!st) st = rt_alloc(d, WORKSPACE_BYTES, &b->workspace);
    if (st) {
        rt_blas_destroy(d, b);
        return st;
    }
    b->workspace_bytes = WORKSPACE_BYTES;
    base_log(d->log, LOOM_LOG_INFO, "loaded %s (version %zu), %zu MiB workspace", b->lib,
             b->lt.Version ? b->lt.Version() : (size_t)0, b->workspace_bytes >> 20);
    *out = b;
    return LOOM_STATUS_OK;
}

void rt_blas_destroy(rt_device_t *d, rt_blas_t *b) {
    if (!b) return;
    for (int i = 0; i <= ALGO_TIMED; i++) rt_event_destroy(d, b->ev[i]);
    if (b->workspace) rt_free(d, b->workspace);
    if (b->handle && rt_bind(d) == LOOM_STATUS_OK) b->lt.Destroy(b->handle);
    if (b->dl) dlclose(b->dl);
    base_free(d->al, b);
}

/* ---- one product ---- */

static int data_type(loom_dtype_t t) {
    switch (t) {
        case LOOM_DTYPE_F16: return CUDA_R_16F_;
        case LOOM_DTYPE_BF16: return CUDA_R_16BF_;
        case LOOM_DTYPE_F32: return CUDA_R_32F_;
        case LOOM_DTYPE_C64: return CUDA_C_32F_;
        case LOOM_DTYPE_C128: return CUDA_C_64F_;
        default: return CUDA_R_64F_;
    }
}

/* Largest power of two (up to 256) dividing addr: what cuBLASLt may assume about it. */
static uint32_t alignment(uint64_t addr) {
    uint32_t a = 256;
    while (a > 1 && addr % a) a /= 2;
    return a;
}

/* The descriptors of g; a NULL member means creation failed (status in *s, call in *call). */
typedef struct descs {
    lt_desc_t op;
    lt_layout_t a, b, d;
    lt_pref_t pref;
} descs_t;

static void descs_free(const rt_blas_t *b, descs_t *x) {
    if (x->op) b->lt.DescDestroy(x->op);
    if (x->a) b->lt.LayoutDestroy(x->a);
    if (x->b) b->lt.LayoutDestroy(x->b);
    if (x->d) b->lt.LayoutDestroy(x->d);
    if (x->pref) b->lt.PrefDestroy(x->pref);
}

static lt_status_t layout(const rt_blas_t *b, lt_layout_t *l, int type, int64_t rows,
                          int64_t cols, int64_t ld, int64_t batch, int64_t stride) {
    lt_status_t s = b->lt.LayoutCreate(l, type, (uint64_t)rows, (uint64_t)cols, ld);
    if (!s && batch > 1) {
        int32_t count = (int32_t)batch;
        s = b->lt.LayoutSet(*l, LAYOUT_BATCH_COUNT, &count, sizeof count);
        if (!s) s = b->lt.LayoutSet(*l, LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride);
    }
    return s;
}

static lt_status_t descs_make(const rt_blas_t *b, const rt_gemm_t *g, descs_t *x,
                              const char **call) {
    memset(x, 0, sizeof *x);
    int type = data_type(g->dtype);
    bool dbl = g->dtype == LOOM_DTYPE_F64 || g->dtype == LOOM_DTYPE_C128;
    int compute = dbl                                     ? COMPUTE_64F
                  : g->dtype == LOOM_DTYPE_F32 && g->tf32 ? COMPUTE_32F_FAST_TF32
                                                          : COMPUTE_32F;
    /* complex products scale by complex alpha and beta (CUBLAS's C and Z GEMMs) */
    int scale = g->dtype == LOOM_DTYPE_C64    ? CUDA_C_32F_
                : g->dtype == LOOM_DTYPE_C128 ? CUDA_C_64F_
                : dbl                         ? CUDA_R_64F_
                                              : CUDA_R_32F_;
    *call = "cublasLtMatmulDescCreate";
    lt_status_t s = b->lt.DescCreate(&x->op, compute, scale);
    if (s) return s;
    int32_t ta = g->trans_a ? OP_T : OP_N, tb = g->trans_b ? OP_T : OP_N;
    int32_t epi = EPILOGUE_DEFAULT;
    if (g->act == RT_GEMM_ACT_RELU) epi = EPILOGUE_RELU;
    if (g->act == RT_GEMM_ACT_GELU) epi = EPILOGUE_GELU;
    if (g->bias) epi = epi == EPILOGUE_DEFAULT ? EPILOGUE_BIAS : epi | EPILOGUE_BIAS;
    *call = "cublasLtMatmulDescSetAttribute";
    s = b->lt.DescSet(x->op, DESC_TRANSA, &ta, sizeof ta);
    if (!s) s = b->lt.DescSet(x->op, DESC_TRANSB, &tb, sizeof tb);
    if (!s && epi != EPILOGUE_DEFAULT) s = b->lt.DescSet(x->op, DESC_EPILOGUE, &epi, sizeof epi);
    if (!s && g->bias) { /* before the heuristic: it reads the pointer's alignment */
        const void *bias = (const void *)(uintptr_t)g->bias;
        s = b->lt.DescSet(x->op, DESC_BIAS_POINTER, &bias, sizeof bias);
    }
    if (s) return s;
    *call = "cublasLtMatrixLayoutCreate";
    s = layout(b, &x->a, type, g->trans_a ? g->k : g->m, g->trans_a ? g->m : g->k, g->lda,
               g->batch, g->stride_a);
    if (!s)
        s = layout(b, &x->b, type, g->trans_b ? g->n : g->k, g->trans_b ? g->k : g->n, g->ldb,
                   g->batch, g->stride_b);
    if (!s) s = layout(b, &x->d, type, g->m, g->n, g->ldd, g->batch, g->stride_d);
    if (s) return s;
    *call = "cublasLtMatmulPreferenceCreate";
    s = b->lt.PrefCreate(&x->pref);
    if (s) return s;
    *call = "cublasLtMatmulPreferenceSetAttribute";
    uint64_t ws = WORKSPACE_MAX_BYTES;
    uint32_t al[4] = {alignment(g->a), alignment(g->b), alignment(g->d), alignment(g->d)};
    uint32_t reduction = REDUCTION_SCHEME_COMPUTE_TYPE;
    s = b->lt.PrefSet(x->pref, PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
    if (!s) s = b->lt.PrefSet(x->pref, PREF_REDUCTION_SCHEME_MASK, &reduction, sizeof reduction);
    for (int i = 0; i < 4 && !s; i++)
        s = b->lt.PrefSet(x->pref, PREF_MIN_ALIGNMENT_A + i, &al[i], sizeof al[i]);
    return s;
}

/* The algorithm cache's key: everything but the addresses, and their alignment. */
static uint64_t algo_key(const rt_gemm_t *g) {
    int64_t w[18] = {g->dtype, g->tf32, g->trans_a, g->trans_b, g->m, g->n, g->k, g->lda, g->ldb,
                     g->ldd, g->batch, g->stride_a, g->stride_b, g->stride_d,
                     alignment(g->a) | (int64_t)alignment(g->b) << 16 |
                         (int64_t)alignment(g->d) << 32,
                     g->bias ? alignment(g->bias) : 0, g->act, 0};
    uint64_t k = base_hash64(w, sizeof w, 0x676d6d);
    return k ? k : 1;
}

/* The slot holding g's algorithm, running the heuristic on a miss (x: g's descriptors). The
 * slot takes the heuristic's first choice, untuned. */
static algo_slot_t *find_algo(rt_blas_t *b, const rt_gemm_t *g, const descs_t *x,
                              lt_status_t *s) {
    uint64_t key = algo_key(g);
    algo_slot_t *slot = &b->algos[key % ALGO_SLOTS];
    *s = 0;
    if (slot->key == key) return slot;
    lt_heuristic_t h;
    int n = 0;
    memset(&h, 0, sizeof h);
    *s = b->lt.Heuristic(b->handle, x->op, x->a, x->b, x->d, x->d, x->pref, 1, &h, &n);
    if (*s && *s != STATUS_NOT_SUPPORTED) return NULL; /* NOT_SUPPORTED: no algorithm */
    slot->key = key;
    slot->ok = !*s && n > 0 && !h.state;
    slot->tuned = false;
    slot->algo = h.algo;
    slot->workspace = h.workspace_size;
    *s = 0;
    return slot;
}

/* Makes the workspace at least bytes (stream-ordered: the old one is reused by the pool only
 * after the calls queued on it). */
static loom_status_t workspace_reserve(rt_device_t *d, rt_blas_t *b, size_t bytes) {
    if (bytes <= b->workspace_bytes) return LOOM_STATUS_OK;
    uint64_t w = 0;
    loom_status_t st = rt_alloc(d, bytes, &w);
    if (st) return st;
    if (b->workspace) rt_free(d, b->workspace);
    b->workspace = w;
    b->workspace_bytes = bytes;
    return LOOM_STATUS_OK;
}

static lt_status_t matmul(rt_device_t *d, const rt_blas_t *b, const rt_gemm_t *g,
                          const descs_t *x, const lt_algo_t *algo) {
    /* alpha and beta (0) in the scale type: real, or complex with a zero imaginary part */
    float af[2] = {(float)g->alpha, 0}, bf[2] = {0, 0};
    double ad[2] = {g->alpha, 0}, bd[2] = {0, 0};
    bool dbl = g->dtype == LOOM_DTYPE_F64 || g->dtype == LOOM_DTYPE_C128;
    void *dp = (void *)(uintptr_t)g->d;
    return b->lt.Matmul(b->handle, x->op, dbl ? (const void *)ad : (const void *)af,
                        (const void *)(uintptr_t)g->a, x->a, (const void *)(uintptr_t)g->b, x->b,
                        dbl ? (const void *)bd : (const void *)bf, dp, x->d, dp, x->d, algo,
                        (void *)(uintptr_t)b->workspace, b->workspace_bytes, d->stream);
}

/* Times the heuristic's candidates for g on g's operands (D is overwritten: g is about to
 * write it anyway) and keeps the fastest in slot. Each candidate runs once untimed (lazy
 * module loading, caches); then in each round every candidate runs once between two of a
 * chain of events, so clock changes during tuning hit all candidates alike, and a candidate's
 * time is its best round. The heuristic's first choice stays unless another is 1% faster.
 * Failures to time leave the first choice; a candidate that fails to run is skipped. One
 * stream synchronisation per round, on the first call of a structure only. */
/* Appends to h (room entries) the plain product's heuristic candidates for g (g without bias
 * and activation) that cuBLASLt accepts with g's epilogue descriptors x; returns how many. */
static int plain_candidates(rt_blas_t *b, const rt_gemm_t *g, const descs_t *x, lt_heuristic_t *h,
                            int room) {
    rt_gemm_t g0 = *g;
    g0.bias = 0;
    g0.act = RT_GEMM_ACT_NONE;
    descs_t x0;
    const char *call;
    lt_heuristic_t hp[ALGO_CANDIDATES];
    int np = 0, n = 0;
    memset(hp, 0, sizeof hp);
    if (!descs_make(b, &g0, &x0, &call) &&
        !b->lt.Heuristic(b->handle, x0.op, x0.a, x0.b, x0.d, x0.d, x0.pref, ALGO_CANDIDATES, hp,
                         &np))
        for (int i = 0; i < np && n < room; i++) {
            lt_heuristic_t r;
            memset(&r, 0, sizeof r);
            if (hp[i].state ||
                b->lt.AlgoCheck(b->handle, x->op, x->a, x->b, x->d, x->d, &hp[i].algo, &r) ||
                r.state)
                continue;
            r.algo = hp[i].algo;
            h[n++] = r;
        }
    descs_free(b, &x0);
    return n;
}

static void tune(rt_device_t *d, rt_blas_t *b, const rt_gemm_t *g, const descs_t *x,
                 algo_slot_t *slot) {
    slot->tuned = true;
    lt_heuristic_t h[ALGO_TIMED];
    int n = 0;
    memset(h, 0, sizeof h);
    if (b->lt.Heuristic(b->handle, x->op, x->a, x->b, x->d, x->d, x->pref, ALGO_CANDIDATES, h,
                        &n))
        return;
    int n_own = n;
    if (g->bias || g->act != RT_GEMM_ACT_NONE) n += plain_candidates(b, g, x, h + n, ALGO_TIMED - n);
    if (n < 2) return;
    for (int i = 0; i <= n; i++)
        if (!b->ev[i] && rt_event_create(d, &b->ev[i]) != LOOM_STATUS_OK) return;
    size_t need = 0;
    for (int i = 0; i < n; i++)
        if (!h[i].state && h[i].workspace_size > need) need = h[i].workspace_size;
    if (workspace_reserve(d, b, need) != LOOM_STATUS_OK) return;
    int cand[ALGO_TIMED], nc = 0;
    float best[ALGO_TIMED];
    for (int i = 0; i < n; i++)
        if (!h[i].state && h[i].workspace_size <= b->workspace_bytes &&
            !matmul(d, b, g, x, &h[i].algo)) /* warm-up; refused: not a candidate */
            best[nc] = 1e30f, cand[nc++] = i;
    if (nc < 2) return;
    int rounds = 5;
    for (int r = 0; r < rounds; r++) {
        if (rt_event_record(d, b->ev[0])) return;
        for (int c = 0; c < nc; c++) {
            matmul(d, b, g, x, &h[cand[c]].algo);
            if (rt_event_record(d, b->ev[c + 1])) return;
        }
        for (int c = 0; c < nc; c++) {
            float ms = 0;
            if (rt_event_elapsed_ms(d, b->ev[c], b->ev[c + 1], &ms)) return;
            if (ms < best[c]) best[c] = ms;
            if (r == 0 && ms > 5.0f) rounds = 2; /* big products: tuning costs seconds */
        }
    }
    int win = 0;
    for (int c = 1; c < nc; c++)
        if (best[c] < best[win]) win = c;
    if (cand[0] == 0 && best[win] > 0.99f * best[0]) win = 0;
    slot->algo = h[cand[win]].algo;
    slot->workspace = h[cand[win]].workspace_size;
    base_log(d->log, LOOM_LOG_INFO,
             "cuBLASLt: m=%lld n=%lld k=%lld: candidate %d of %d (%d from the heuristic%s), %.3f ms "
             "(first: %.3f ms)",
             (long long)g->m, (long long)g->n, (long long)g->k, cand[win], n, n_own,
             n > n_own ? ", the rest the plain product's" : "", (double)best[win], (double)best[0]);
}

bool rt_blas_supported(rt_device_t *d, rt_blas_t *b, const rt_gemm_t *g) {
    if (rt_bind(d) != LOOM_STATUS_OK) return false;
    descs_t x;
    const char *call;
    lt_status_t s = descs_make(b, g, &x, &call);
    algo_slot_t *slot = s ? NULL : find_algo(b, g, &x, &s);
    descs_free(b, &x);
    return slot && slot->ok;
}

loom_status_t rt_blas_gemm(rt_device_t *d, rt_blas_t *b, const rt_gemm_t *g) {
    loom_status_t st = rt_bind(d);
    if (st) return st;
    descs_t x;
    const char *call;
    lt_status_t s = descs_make(b, g, &x, &call);
    algo_slot_t *slot = NULL;
    if (!s) {
        call = "cublasLtMatmulAlgoGetHeuristic";
        slot = find_algo(b, g, &x, &s);
    }
    if (s) {
        st = fail(d, b, LOOM_STATUS_DEVICE_ERROR, call, s, g);
    } else if (!slot->ok) {
        st = fail(d, b, LOOM_STATUS_NOT_AVAILABLE, "cublasLtMatmulAlgoGetHeuristic",
                  STATUS_NOT_SUPPORTED, g);
    } else {
        if (!slot->tuned) {
            const char *t = getenv("LOOM_GEMM_TUNE"); /* "0": the heuristic's first choice */
            if (t && !strcmp(t, "0"))
                slot->tuned = true;
            else
                tune(d, b, g, &x, slot);
        }
        st = workspace_reserve(d, b, slot->workspace);
        if (!st) {
            s = matmul(d, b, g, &x, &slot->algo);
            if (s) st = fail(d, b, LOOM_STATUS_DEVICE_ERROR, "cublasLtMatmul", s, g);
        }
    }
    descs_free(b, &x);
    return st;
}
