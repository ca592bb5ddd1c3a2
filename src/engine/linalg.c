/* linalg.c — runs a LINALG step: one cuSOLVER job over the stack of matrices (runtime/solver.c),
 * LU's pivots turned into the result's last row by a small kernel, then each matrix's info word
 * read back (one sync: an error names its matrix, as NumPy's LinAlgError would, before any
 * later step reads a result that is not one). */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* The pivots kernel: int32 pivots (n per matrix) into row n of each (n+1) x n result. idx bit
 * 0: float64 parts; bit 1: complex (each pivot a real part, its imaginary part zero). */
void en_linalg_pivots_source(const void *obj, uint32_t idx, base_str_t *t, char *name) {
    (void)obj;
    const char *ct = idx & 1 ? "double" : "float";
    unsigned parts = idx & 2 ? 2 : 1;
    snprintf(name, 48, "loom_lu_pivots_%s%s", idx & 1 ? "f64" : "f32", idx & 2 ? "_c" : "");
    base_str_printf(t,
                    "struct lm_params_%s { unsigned long long w[4]; };\n"
                    "extern \"C\" __global__ void %s(const lm_params_%s P) {\n"
                    "    const int *piv = (const int *)P.w[0];\n"
                    "    %s *out = (%s *)P.w[1];\n"
                    "    const unsigned long long n = P.w[2], total = P.w[3];\n"
                    "    const unsigned long long step = (unsigned long long)gridDim.x * "
                    "blockDim.x;\n"
                    "    for (unsigned long long t = (unsigned long long)blockIdx.x * blockDim.x + "
                    "threadIdx.x; t < total; t += step) {\n"
                    "        const unsigned long long b = t / n, i = t - b * n;\n"
                    "        const unsigned long long o = (b * (n + 1) * n + n * n + i) * %u;\n"
                    "        out[o] = (%s)piv[t];\n"
                    "        if (%u > 1) out[o + 1] = 0;\n"
                    "    }\n"
                    "}\n",
                    name, name, name, ct, ct, parts, ct, parts);
}

/* The small-system solver: one thread per matrix of a stack of n x n systems (n <= 32, idx =
 * n * 2 + float64), Gaussian elimination with partial pivoting in registers (local memory past
 * them), then each right-hand side through the factors. cuSOLVER's routines are made for one
 * large matrix; a loop of them over 100,000 8 x 8 systems costs a launch sequence each. Reads
 * the node's operands as C order (A, and B^T's rows) and writes X^T's rows; an exact zero pivot
 * sets the matrix's info word to its 1-based column, as getrf does. */
static void small_cholesky_source(uint32_t idx, base_str_t *t, char *name);

/* A small-matrix kernel's name (loom_small_WHAT_f32_N) and opening, up to its thread's matrix
 * m in shared memory: the block's matrices staged through shared memory, read coalesced (a
 * pad word per matrix keeps the threads' rows in different banks). Words: A first, the
 * number of matrices fifth. */
static void small_open(base_str_t *t, char *name, const char *what, uint32_t idx) {
    unsigned n = idx / 2;
    snprintf(name, 48, "loom_small_%s_%s_%u", what, idx & 1 ? "f64" : "f32", n);
    base_str_printf(
        t,
        "#define N %u\n"
        "#define TPB %u\n"
        "typedef %s T;\n"
        "struct lm_params_%s { unsigned long long w[7]; };\n"
        "extern \"C\" __global__ void __launch_bounds__(TPB) %s(const lm_params_%s P) {\n"
        "    __shared__ T sm[TPB * (N * N + 1)];\n"
        "    const unsigned long long m0 = (unsigned long long)blockIdx.x * TPB;\n"
        "    const unsigned long long left = P.w[4] - m0;\n"
        "    const unsigned cnt = left < TPB ? (unsigned)left : TPB;\n"
        "    const T *A0 = (const T *)P.w[0] + m0 * N * N;\n"
        "    for (unsigned i = threadIdx.x; i < cnt * N * N; i += TPB)\n"
        "        sm[i / (N * N) * (N * N + 1) + i %% (N * N)] = A0[i];\n"
        "    __syncthreads();\n"
        "    const unsigned long long m = m0 + threadIdx.x;\n"
        "    if (threadIdx.x >= cnt) return;\n",
        n, en_linalg_small_tpb(n, idx & 1 ? 8 : 4), idx & 1 ? "double" : "float", name, name,
        name);
}

void en_linalg_small_source(const void *obj, uint32_t idx, base_str_t *t, char *name) {
    (void)obj;
    if (idx & EN_SMALL_CHOLESKY) {
        small_cholesky_source(idx & ~(uint32_t)EN_SMALL_CHOLESKY, t, name);
        return;
    }
    small_open(t, name, "solve", idx);
    base_str_cat(
        t,
        "    const unsigned long long k = P.w[5];\n"
        "    const T *A = sm + threadIdx.x * (N * N + 1);\n"
        "    const T *B = (const T *)P.w[1] + m * k * N * P.w[6];\n"
        "    T *X = (T *)P.w[2] + m * k * N;\n"
        "    T a[N][N];\n"
        "    int piv[N];\n"
        "    int info = 0;\n"
        "#pragma unroll\n"
        "    for (int i = 0; i < N; i++)\n"
        "#pragma unroll\n"
        "        for (int j = 0; j < N; j++) a[i][j] = A[i * N + j];\n"
        "#pragma unroll\n"
        "    for (int c = 0; c < N; c++) {\n"
        "        int p = c;\n"
        "        T best = a[c][c] < 0 ? -a[c][c] : a[c][c];\n"
        "#pragma unroll\n"
        "        for (int r = c + 1; r < N; r++) {\n"
        "            T v = a[r][c] < 0 ? -a[r][c] : a[r][c];\n"
        "            if (v > best) { best = v; p = r; }\n"
        "        }\n"
        "        piv[c] = p;\n"
        "#pragma unroll\n" /* constant indices only: the matrix stays in registers */
        "        for (int r = c + 1; r < N; r++)\n"
        "            if (r == p) {\n"
        "#pragma unroll\n"
        "                for (int j = 0; j < N; j++) { T x = a[c][j]; a[c][j] = a[r][j]; a[r][j] = "
        "x; }\n"
        "            }\n"
        "        if (a[c][c] == 0) { if (!info) info = c + 1; continue; }\n"
        "        const T inv = (T)1 / a[c][c];\n"
        "#pragma unroll\n"
        "        for (int r = c + 1; r < N; r++) {\n"
        "            const T l = a[r][c] * inv;\n"
        "            a[r][c] = l;\n"
        "#pragma unroll\n"
        "            for (int j = c + 1; j < N; j++) a[r][j] -= l * a[c][j];\n"
        "        }\n"
        "    }\n"
        "    if (info) ((int *)P.w[3])[m] = info;\n"
        "    for (unsigned long long q = 0; q < k; q++) {\n"
        "        T b[N];\n"
        "#pragma unroll\n"
        "        for (int i = 0; i < N; i++) b[i] = B[q * N + i];\n"
        "#pragma unroll\n"
        "        for (int c = 0; c < N; c++)\n"
        "#pragma unroll\n"
        "            for (int r = c + 1; r < N; r++)\n"
        "                if (r == piv[c]) { T x = b[c]; b[c] = b[r]; b[r] = x; }\n"
        "#pragma unroll\n"
        "        for (int i = 1; i < N; i++)\n"
        "#pragma unroll\n"
        "            for (int j = 0; j < i; j++) b[i] -= a[i][j] * b[j];\n"
        "#pragma unroll\n"
        "        for (int i = N - 1; i >= 0; i--) {\n"
        "#pragma unroll\n"
        "            for (int j = i + 1; j < N; j++) b[i] -= a[i][j] * b[j];\n"
        "            b[i] /= a[i][i];\n"
        "        }\n"
        "#pragma unroll\n"
        "        for (int i = 0; i < N; i++) X[q * N + i] = b[i];\n"
        "    }\n"
        "}\n");
}

/* The small-matrix Cholesky factorisation, the same way (a thread a matrix, staged through
 * shared memory, the factor in registers): the operand is A^T as cuSOLVER's path gets it, so
 * its column-major lower triangle is A's lower triangle, and the result is what potrf leaves
 * there: L^T in the upper triangle of the row-major buffer (zeros below it, where potrf leaves
 * A and the consumer masks). A pivot that is not positive (or a NaN) sets the matrix's info
 * word to its 1-based column, as potrf does. Words: A, -, out, info, matrices. */
static void small_cholesky_source(uint32_t idx, base_str_t *t, char *name) {
    bool tr = idx & EN_SMALL_TRANSPOSED; /* the operand is A itself */
    small_open(t, name, tr ? "cholesky_t" : "cholesky", idx & ~(uint32_t)EN_SMALL_TRANSPOSED);
    base_str_printf(t, "#define AT(i) At[%s]\n", tr ? "(i) % N * N + (i) / N" : "(i)");
    base_str_cat(
        t,
        "    const T *At = sm + threadIdx.x * (N * N + 1); /* A[r][c] = AT(c * N + r) */\n"
        "    T l[N][N];\n"
        "    int info = 0;\n"
        "#pragma unroll\n"
        "    for (int c = 0; c < N; c++) {\n"
        "        T d = AT(c * N + c);\n"
        "#pragma unroll\n"
        "        for (int k = 0; k < c; k++) d -= l[c][k] * l[c][k];\n"
        "        if (!(d > 0)) { if (!info) info = c + 1; d = 1; } /* (no break: unrolled) */\n"
        "        const T lc = sqrt(d), inv = (T)1 / lc;\n"
        "        l[c][c] = lc;\n"
        "#pragma unroll\n"
        "        for (int r = c + 1; r < N; r++) {\n"
        "            T v = AT(c * N + r);\n"
        "#pragma unroll\n"
        "            for (int k = 0; k < c; k++) v -= l[r][k] * l[c][k];\n"
        "            l[r][c] = v * inv;\n"
        "        }\n"
        "    }\n"
        "    if (info) { ((int *)P.w[3])[m] = info; return; }\n"
        "    T *out = (T *)P.w[2] + m * N * N;\n"
        "#pragma unroll\n"
        "    for (int i = 0; i < N; i++)\n"
        "#pragma unroll\n"
        "        for (int j = 0; j < N; j++) out[i * N + j] = j >= i ? l[j][i] : (T)0;\n"
        "}\n");
}

uint32_t en_linalg_small_tpb(int64_t n, size_t es) {
    int64_t t = n > 0 ? 32768 / (n * n * (int64_t)es) : 128;
    return (uint32_t)(t < 1 ? 1 : t > 128 ? 128 : t);
}

base_hash128_t en_linalg_small_key(loom_dtype_t d, uint32_t idx) {
    char k[40];
    snprintf(k, sizeof k, "small/%d/%u/6", (int)d, (unsigned)idx);
    return base_hash128(k, strlen(k));
}

/* The first failing info word of a step (its index, or UINT32_MAX): what the host reads back,
 * 4 bytes instead of every matrix's words. LU's positive words (a zero pivot) are no failure. */
void en_linalg_first_bad_source(const void *obj, uint32_t idx, base_str_t *t, char *name) {
    (void)obj;
    (void)idx;
    snprintf(name, 48, "loom_la_first_bad");
    base_str_printf(t,
                    "struct lm_params_%s { unsigned long long w[5]; };\n"
                    "extern \"C\" __global__ void %s(const lm_params_%s P) {\n"
                    "    const int *info = (const int *)P.w[0];\n"
                    "    const unsigned long long n = P.w[1], batch = P.w[2], lu = P.w[4];\n"
                    "    const unsigned long long step = (unsigned long long)gridDim.x * "
                    "blockDim.x;\n"
                    "    for (unsigned long long t = (unsigned long long)blockIdx.x * blockDim.x + "
                    "threadIdx.x; t < n; t += step) {\n"
                    "        const int v = info[t];\n"
                    "        if (v < 0 || (v > 0 && !(lu && t < batch)))\n"
                    "            atomicMin((unsigned *)P.w[3], (unsigned)t);\n"
                    "    }\n"
                    "}\n",
                    name, name, name);
}

base_hash128_t en_linalg_first_bad_key(void) {
    static const char k[] = "la_first_bad/1";
    return base_hash128(k, sizeof k - 1);
}

base_hash128_t en_linalg_pivots_key(loom_dtype_t d) {
    char k[32];
    snprintf(k, sizeof k, "lu_pivots/%d/2", (int)d);
    return base_hash128(k, strlen(k));
}

/* EIG's check, as NumPy's: each matrix holding an inf or a NaN gets info word
 * IR_LINALG_NONFINITE (idx: 0 complex64's float parts, 1 complex128's double ones). Runs before
 * the routine, which then overwrites the words. */
void en_linalg_nonfinite_source(const void *obj, uint32_t idx, base_str_t *t, char *name) {
    (void)obj;
    const char *ct = idx ? "double" : "float";
    snprintf(name, 48, "loom_la_nonfinite_%s", idx ? "f64" : "f32");
    base_str_printf(t,
                    "struct lm_params_%s { unsigned long long w[4]; };\n"
                    "extern \"C\" __global__ void %s(const lm_params_%s P) {\n"
                    "    const %s *a = (const %s *)P.w[0];\n"
                    "    const unsigned long long per = P.w[1], total = P.w[2];\n"
                    "    const unsigned long long step = (unsigned long long)gridDim.x * "
                    "blockDim.x;\n"
                    "    for (unsigned long long t = (unsigned long long)blockIdx.x * blockDim.x + "
                    "threadIdx.x; t < total; t += step)\n"
                    "        if (!isfinite(a[t])) ((int *)P.w[3])[t / per] = %d;\n"
                    "}\n",
                    name, name, name, ct, ct, IR_LINALG_NONFINITE);
}

/* 32 x 32 tiles through shared memory (a pad element a row against bank conflicts): reads and
 * writes coalesced. Words: source, destination, n, matrices. */
void en_linalg_transpose_source(const void *obj, uint32_t idx, base_str_t *t, char *name) {
    (void)obj;
    const char *et = idx == 4 ? "unsigned" : idx == 8 ? "unsigned long long" : "ulonglong2";
    snprintf(name, 48, "loom_la_transpose_%u", (unsigned)idx);
    base_str_printf(
        t,
        "typedef %s T;\n"
        "struct lm_params_%s { unsigned long long w[4]; };\n"
        "extern \"C\" __global__ void __launch_bounds__(256) %s(const lm_params_%s P) {\n"
        "    __shared__ T tile[32][33];\n"
        "    const unsigned long long n = P.w[2], nn = n * n;\n"
        "    const unsigned long long c = (unsigned long long)blockIdx.x * 32 + "
        "threadIdx.x;\n"
        "    const unsigned long long r0 = (unsigned long long)blockIdx.y * 32;\n"
        "    const unsigned long long c2 = r0 + threadIdx.x;\n"
        "    for (unsigned long long b = blockIdx.z; b < P.w[3]; b += gridDim.z) {\n"
        "        const T *src = (const T *)P.w[0] + b * nn;\n"
        "        T *dst = (T *)P.w[1] + b * nn;\n"
        "        for (unsigned k = threadIdx.y; k < 32; k += 8)\n"
        "            if (c < n && r0 + k < n) tile[k][threadIdx.x] = src[(r0 + k) * n + c];\n"
        "        __syncthreads();\n"
        "        for (unsigned k = threadIdx.y; k < 32; k += 8) {\n"
        "            const unsigned long long r2 = (unsigned long long)blockIdx.x * 32 + k;\n"
        "            if (c2 < n && r2 < n) dst[r2 * n + c2] = tile[threadIdx.x][k];\n"
        "        }\n"
        "        __syncthreads();\n"
        "    }\n"
        "}\n",
        et, name, name, name);
}

base_hash128_t en_linalg_transpose_key(uint32_t es) {
    char k[32];
    snprintf(k, sizeof k, "la_transpose/%u/1", (unsigned)es);
    return base_hash128(k, strlen(k));
}

base_hash128_t en_linalg_nonfinite_key(loom_dtype_t d) {
    char k[32];
    snprintf(k, sizeof k, "la_nonfinite/%d/1", (int)d);
    return base_hash128(k, strlen(k));
}

/* The first failing info word of the step's words at info (found on the device by the step's
 * last kernel into `first`, then read back: a sync) as the node's error; OK when none failed. */
static loom_status_t first_failure(en_engine_t *e, const en_step_t *st, const ir_node_t *nd,
                                   const rt_la_t *j, uint64_t info, size_t words, uint64_t first) {
    rt_device_t *rt = e->rt;
    /* a zero pivot is no failure for LU (det is 0) and cond's inv (inf) */
    bool zero_ok = nd->op == IR_OP_LU || (nd->op == IR_OP_SOLVE && nd->p.k == 2);
    uint64_t w[5] = {info, (uint64_t)words, (uint64_t)j->batch, first, zero_ok};
    void *params[1] = {w};
    uint64_t blocks = (words + 255) / 256;
    loom_status_t s = rt_launch(rt, st->kerns[st->n_kerns - 1],
                                (uint32_t)(blocks < 1024 ? blocks : 1024), 256, params);
    uint32_t bad;
    /* a wait: an index found out of bounds before (in the operands' evals) is reported first,
     * not the factorisation's failure on the values it gave */
    if (s || (s = en_check(e)) || (s = rt_d2h(rt, &bad, first, sizeof bad))) return s;
    if (bad == UINT32_MAX) return LOOM_STATUS_OK;
    int32_t v = 0;
    if ((s = rt_d2h(rt, &v, info + (uint64_t)bad * 4, sizeof v))) return s;
    int64_t b = (int64_t)bad % j->batch;
    if (v < 0)
        return en_error(e, LOOM_STATUS_INTERNAL, "linalg.%s: cuSOLVER refused argument %d",
                        ir_ops[nd->op].name, -v);
    /* stacked separate calls: the error of the first call that failed, as its own */
    int64_t per = st->la_members ? j->batch / st->la_members : j->batch;
    return ir_linalg_error(e->err, nd, v, b % per, per);
}

loom_status_t en_linalg_run(en_engine_t *e, const en_step_t *st, const uint64_t *in, uint64_t out) {
    const ir_graph_t *sg = &st->sg;
    const ir_node_t *nd = &sg->nodes[sg->outputs[0]];
    const ir_node_t *a = &sg->nodes[nd->src[0]];
    rt_device_t *rt = e->rt;
    if (rt_device_compile_only(rt)) return LOOM_STATUS_OK; /* its kernel compiled already */
    rt_la_t j = {0};
    j.op = nd->op == IR_OP_LU         ? RT_LA_LU
           : nd->op == IR_OP_SOLVE    ? RT_LA_SOLVE
           : nd->op == IR_OP_CHOLESKY ? RT_LA_CHOLESKY
           : nd->op == IR_OP_EIGH     ? RT_LA_EIGH
           : nd->op == IR_OP_SVD      ? RT_LA_SVD
           : nd->op == IR_OP_QR       ? RT_LA_QR
                                      : RT_LA_EIG;
    j.dtype = (loom_dtype_t)a->dtype;
    j.mode = nd->p.k;
    ir_linalg_dims(nd, a, &j.batch, &j.rows, &j.cols);
    /* an empty result still factors its matrices: a singular one with no right-hand sides
     * is an error, as NumPy's */
    if (j.batch == 0 || (ir_node_size(nd) == 0 && j.rows * j.cols == 0)) return LOOM_STATUS_OK;
    if (j.rows > INT32_MAX / 2 || j.cols > INT32_MAX / 2)
        return en_error(e, LOOM_STATUS_OVERFLOW,
                        "linalg.%s: matrices of %lld x %lld exceed cuSOLVER's 32-bit sizes",
                        ir_ops[nd->op].name, (long long)j.rows, (long long)j.cols);
    bool small = en_linalg_small(nd->op, j.rows, j.dtype);
    if (!small && !e->solver && rt_solver_create(rt, &e->solver) != LOOM_STATUS_OK)
        return e->err->status;
    j.a = en_operand(sg, nd, 0, in);
    if (nd->op == IR_OP_SOLVE) {
        j.b = en_operand(sg, nd, 1, in);
        j.nrhs = nd->shape[nd->ndim - 2];
    }
    j.out = out;
    size_t words = (size_t)j.batch * 2, pivs = (size_t)(j.batch * j.rows);
    uint64_t info = 0, ipiv = 0, first = 0;
    loom_status_t s = rt_alloc(rt, words * 4 + 8 + pivs * 4, &info);
    if (s) return s;
    first = info + words * 4;
    ipiv = first + 8;
    j.info = info;
    j.info2 = info + (uint64_t)j.batch * 4;
    j.ipiv = ipiv;
    if ((s = rt_memset(rt, info, 0, words * 4)) || (s = rt_memset(rt, first, 0xFF, 4))) goto done;
    if (nd->op == IR_OP_EIG) {
        /* NumPy refuses infs and NaNs before geev, and cuSOLVER's Xgeev fails on them as a
         * whole call (an internal error, not a matrix's info word): look first (one sync) */
        uint64_t reals = (uint64_t)(j.rows * j.rows) * 2;
        uint64_t w[4] = {j.a, reals, reals * (uint64_t)j.batch, info};
        void *params[1] = {w};
        if (w[2] &&
            (s = rt_launch(rt, st->kerns[0], en_stride_grid(rt, (int64_t)w[2]), 256, params)))
            goto done;
        if ((s = first_failure(e, st, nd, &j, info, words, first)) ||
            (s = rt_memset(rt, first, 0xFF, 4)))
            goto done;
    }
    if (small) {
        uint64_t w[7] = {j.a, j.b, out, info, (uint64_t)j.batch, (uint64_t)j.nrhs, j.mode == 0};
        void *params[1] = {w};
        uint32_t tpb = en_linalg_small_tpb(j.rows, ir_dtypes[j.dtype].size);
        if ((s = rt_launch(rt, st->kerns[0], (uint32_t)((j.batch + tpb - 1) / tpb), tpb, params)))
            goto done;
    } else {
        if (nd->op == IR_OP_CHOLESKY && nd->p.k == 1) { /* A^T into the factored buffer */
            uint64_t w[4] = {j.a, out, (uint64_t)j.rows, (uint64_t)j.batch};
            void *params[1] = {w};
            uint32_t tiles = (uint32_t)((j.rows + 31) / 32), block[3] = {32, 8, 1};
            uint32_t grid[3] = {tiles, tiles, (uint32_t)(j.batch < 65535 ? j.batch : 65535)};
            if ((s = rt_launch_ex(rt, st->kerns[0], grid, block, 0, params))) goto done;
            j.a = out; /* (factored where it lies) */
        }
        if ((s = rt_solver_run(rt, e->solver, &j))) goto done;
    }
    if (nd->op == IR_OP_LU && pivs) {
        uint64_t w[4] = {ipiv, out, (uint64_t)j.rows, (uint64_t)pivs};
        void *params[1] = {w};
        if ((s = rt_launch(rt, st->kerns[0], en_stride_grid(rt, (int64_t)pivs), 256, params)))
            goto done;
    }
    s = first_failure(e, st, nd, &j, info, words, first);
done:
    rt_free(rt, info);
    return s;
}
