/* runtime — the CUDA side, knowing nothing of the IR: the driver (loaded with dlopen through a
 * function table; never linked), the primary context and a stream, the stream-ordered caching
 * device memory pool, pinned host staging, NVRTC, the kernel cache (memory and disk), launches
 * and copies. Everything takes source text, launch shapes and buffers.
 *
 * Errors: every function records failures on the error it was created with (first error
 * wins, message names the values involved) and returns a status. Nothing aborts or prints. */
#ifndef LOOM_RT_H
#define LOOM_RT_H

#include "../base/base.h"

typedef struct rt_device rt_device_t;
typedef struct rt_kernel rt_kernel_t;
typedef struct rt_event rt_event_t;   /* a CUevent */
typedef struct rt_driver rt_driver_t; /* the driver function table (driver.h) */

typedef struct rt_options {
    int ordinal;             /* CUDA device index */
    bool compile_only;       /* NVRTC only: no driver needed, launches and copies fail */
    const char *arch;        /* compile_only: "sm_90"; else taken from the device */
    const char *cache_dir;   /* NULL: $LOOM_CACHE_DIR, $XDG_CACHE_HOME/loom/<ver>, ~/.cache/... */
    bool disable_disk_cache;
    bool allow_fma;          /* NVRTC may contract a * b + c (not NumPy-exact; opt-in) */
    const char *dump_dir;    /* NULL: no dump; else each compiled kernel's .cu and log */
    void *stream;            /* NULL: a stream of our own; else the caller's CUstream (borrowed) */
    const rt_driver_t *driver; /* NULL: load libcuda; else this table (tests mock the driver) */
    const char *driver_lib;  /* NULL: "libcuda.so.1" */
    /* Copies through pinned staging (copy.c); 0 means the default. copy_threads: host threads
     * for the memcpy into and out of staging (else $LOOM_COPY_THREADS, else half the online
     * CPUs, 1 to 8); stage_bytes: bytes per staging buffer (8 MiB); stage_slots: buffers (4). */
    int copy_threads;
    size_t stage_bytes;
    int stage_slots;
} rt_options_t;

typedef struct rt_stats {
    uint64_t kernel_mem_hits, kernel_disk_hits, kernel_compiles, launches;
    double compile_ms;
    uint64_t h2d_copies, h2d_bytes, d2h_copies, d2h_bytes;
    size_t pool_in_use, pool_held, pool_peak;
    uint64_t pool_driver_allocs; /* cuMemAlloc calls that succeeded (pool misses) */
    uint64_t pool_reuses;        /* allocations served from cached blocks */
} rt_stats_t;

/* ---- device.c ---- */
/* Loads the driver (unless compile_only), retains the primary context of the device, creates
 * a stream and the pool. Statuses: NO_DRIVER, NO_DEVICE, DRIVER_TOO_OLD, DEVICE_ERROR. */
loom_status_t rt_device_create(base_alloc_t *al, base_error_t *err, const base_log_t *log,
                               const rt_options_t *opt, rt_device_t **out);
void rt_device_destroy(rt_device_t *d);
const char *rt_device_name(const rt_device_t *d);   /* "NVIDIA H200 (sm_90)" */
int rt_device_sm_count(const rt_device_t *d);
/* Shared memory bytes of a multiprocessor (0: not known, as on the compile-only device). */
int rt_device_smem_per_sm(const rt_device_t *d);
/* The L2 cache's bytes (0: not known, as on the compile-only device). */
int rt_device_l2_bytes(const rt_device_t *d);
/* Shared memory bytes a block may opt in to (0: not known, as on the compile-only device). */
int rt_device_smem_per_block(const rt_device_t *d);
void rt_device_stats(const rt_device_t *d, rt_stats_t *out);
const char *rt_device_arch(const rt_device_t *d);   /* "sm_90" */
bool rt_device_compile_only(const rt_device_t *d);
/* The CUstream and CUcontext (the device's primary context), for cuBLAS and for embedders;
 * NULL in compile_only mode. */
void *rt_device_stream(const rt_device_t *d);
void *rt_device_context(const rt_device_t *d);

/* ---- pool.c: stream-ordered caching allocator ----
 * No cuMemAlloc/cuMemFree on the hot path: freed blocks are cached by size class and reused
 * in stream order. On out of memory, cached blocks are released and the allocation retried
 * once; then OUT_OF_MEMORY with the bytes asked and held. Returned addresses are 256-byte
 * aligned. Size classes: up to 1 MiB rounded up to 256 B, above that to 2 MiB multiples; a
 * freed block serves only requests of its own class. Everything runs on the device's one
 * stream (give cuBLAS rt_device_stream()), which is what makes reuse without waiting safe.
 * rt_free of a pointer the pool did not hand out records INVALID_ARGUMENT. */
loom_status_t rt_alloc(rt_device_t *d, size_t bytes, uint64_t *out);
void rt_free(rt_device_t *d, uint64_t ptr);
void rt_trim(rt_device_t *d);

/* ---- copy.c: copies on the device's stream, through pinned staging for pageable memory
 * Pageable bytes are copied (by rt_options.copy_threads host threads) into a small ring of
 * pinned staging buffers, and each full buffer is one DMA, so the memcpy of one buffer overlaps
 * the DMA of the previous ones. Statistics: h2d_copies / d2h_copies count DMA operations (a
 * staged 20 MiB upload through 8 MiB buffers is 3), h2d_bytes / d2h_bytes the payload. */
/* Returns once every byte has left src (the caller may reuse it at once), except from pinned
 * memory (see rt_host_alloc). */
loom_status_t rt_h2d(rt_device_t *d, uint64_t dst, const void *src, size_t bytes);
/* Blocks until the bytes are in dst. */
loom_status_t rt_d2h(rt_device_t *d, void *dst, uint64_t src, size_t bytes);
/* n uploads at once: bytes[i] from src[i] to dst[i] (device ranges disjoint). The pieces are
 * packed into staging one after another, and each staging fill is one DMA per run of adjacent
 * destinations: many small pieces bound for one device range cost one DMA per 8 MiB. */
loom_status_t rt_h2d_batch(rt_device_t *d, uint32_t n, const uint64_t *dst,
                           const void *const *src, const size_t *bytes);
/* n uploads into one device range: piece i to dst + offset[i], offsets ascending and pieces
 * disjoint. The bytes between pieces (alignment padding) may be overwritten with anything, so
 * each staging fill is exactly one DMA. */
loom_status_t rt_h2d_packed(rt_device_t *d, uint64_t dst, uint32_t n, const size_t *offset,
                            const void *const *src, const size_t *bytes);
/* n downloads at once: bytes[i] from device src[i] to host dst[i]; blocks until all are in
 * place. One DMA per run of adjacent sources in each staging fill. */
loom_status_t rt_d2h_batch(rt_device_t *d, uint32_t n, void *const *dst, const uint64_t *src,
                           const size_t *bytes);
/* The host threads staged copies use (after rt_options and $LOOM_COPY_THREADS). */
int rt_copy_threads(const rt_device_t *d);
/* Pinned host memory (cuMemHostAlloc). Copies from and to it are direct DMA (~53 GB/s on the
 * H200, against ~7 GB/s for pageable memory, which a host memcpy bounds), so loom-owned host
 * buffers should live here. Caution: rt_h2d from pinned memory returns before the DMA has
 * read it; do not write the source until rt_sync (or a later rt_d2h) returns. rt_host_free
 * waits for the stream first. NULL when compile_only or out of pinned memory. */
loom_status_t rt_host_alloc(rt_device_t *d, size_t bytes, void **out);
void rt_host_free(rt_device_t *d, void *p);
loom_status_t rt_sync(rt_device_t *d);
/* Stream-ordered device-to-device copy and byte fill (cuMemsetD8Async). */
loom_status_t rt_d2d(rt_device_t *d, uint64_t dst, uint64_t src, size_t bytes);
loom_status_t rt_memset(rt_device_t *d, uint64_t dst, uint8_t value, size_t bytes);
/* copy2d.c: `height` rows of `width` bytes, rows `spitch` apart at src and `dpitch` apart at
 * dst, device to device on the stream (joins write their operands this way). */
loom_status_t rt_d2d_2d(rt_device_t *d, uint64_t dst, size_t dpitch, uint64_t src, size_t spitch,
                        size_t width, size_t height);

/* Events on the device's stream, for timing (benchmarks). elapsed waits for `end`. */
loom_status_t rt_event_create(rt_device_t *d, rt_event_t **out);
void rt_event_destroy(rt_device_t *d, rt_event_t *e);
loom_status_t rt_event_record(rt_device_t *d, rt_event_t *e);
loom_status_t rt_event_elapsed_ms(rt_device_t *d, rt_event_t *start, rt_event_t *end,
                                  float *ms);

/* ---- kcache.c + nvrtc.c: kernels ----
 * key: the caller's structural key (128 bits), looked up before any source is generated. */
rt_kernel_t *rt_kernel_find(rt_device_t *d, base_hash128_t key);
/* On a memory miss: the disk cache (XXH3-128 of format version, source, options, NVRTC
 * version, arch), else NVRTC; loads the cubin and remembers it under key. `name` is the
 * extern "C" __global__ function in source. COMPILE_ERROR carries the NVRTC log. */
loom_status_t rt_kernel_build(rt_device_t *d, base_hash128_t key, const char *name,
                              const char *source, rt_kernel_t **out);
/* How many blocks of `block` threads of k fit on one multiprocessor at once (from the
 * driver's occupancy calculator; computed once per kernel); 0 if unknown. */
int rt_kernel_blocks_per_sm(rt_device_t *d, rt_kernel_t *k, uint32_t block);
/* Launches on the device's stream; params as for cuLaunchKernel. */
loom_status_t rt_launch(rt_device_t *d, rt_kernel_t *k, uint32_t grid, uint32_t block,
                        void **params);
/* Dynamic shared memory past which a launch first allows the kernel its bytes: CUDA's default
 * limit is 48 KiB with the static part, which is not known here, and no generated kernel has
 * more than 16 KiB of it. */
#define RT_SMEM_ASK (32u * 1024u)
/* The same with 3-D grid and block and dynamic shared memory bytes (past RT_SMEM_ASK, the
 * kernel is allowed them first: cuFuncSetAttribute, once per kernel). */
loom_status_t rt_launch_ex(rt_device_t *d, rt_kernel_t *k, const uint32_t grid[3],
                           const uint32_t block[3], uint32_t shared_bytes, void **params);
const char *rt_kernel_name(const rt_kernel_t *k);
/* A kernel whose source defines `__device__ unsigned long long lm_status[4]` (RT_STATUS_WORD,
 * RT_STATUS_BYTES) reports data-dependent errors through it (see ir_node_raises): the IR_RAISE_*
 * bits, then the first index out of bounds met, its extent and its axis. Its device address,
 * else 0 (and 0 on a compile-only device). */
#define RT_STATUS_WORD "lm_status"
#define RT_STATUS_BYTES 32
uint64_t rt_kernel_status(const rt_kernel_t *k);
/* Bytes of the kernel's cubin (or PTX when NVRTC does not know the device's arch). */
size_t rt_kernel_binary_size(const rt_kernel_t *k);
/* The disk cache folder in use, or NULL when the cache is memory-only. */
const char *rt_kernel_cache_dir(const rt_device_t *d);
/* The NVRTC log of the last compile ("" if none); valid until the next compile. */
const char *rt_last_compile_log(const rt_device_t *d);

/* ---- blas.c: matrix products through cuBLASLt, loaded with dlopen (never linked) ----
 * One product in cuBLAS's column-major terms: D (m x n, leading dimension ldd) =
 * act(alpha * op(A) op(B) + bias), `batch` times with element strides between the matrices
 * (0: the same matrix for every batch). bias has m elements, packed, broadcast over the
 * columns and the batch. float16/bfloat16 accumulate in float32 and round once (as the CPU
 * reference does); float32 in float32 (TF32 tensor cores only when tf32), float64 in float64.
 * Runs on the device's stream with a workspace from the pool. */
typedef struct rt_blas rt_blas_t;
typedef enum rt_gemm_act { RT_GEMM_ACT_NONE, RT_GEMM_ACT_RELU, RT_GEMM_ACT_GELU } rt_gemm_act_t;
typedef struct rt_gemm {
    loom_dtype_t dtype;      /* F16, BF16, F32 or F64: A, B, D and bias */
    bool tf32;               /* F32 only: CUBLAS_COMPUTE_32F_FAST_TF32 */
    bool trans_a, trans_b;   /* op(X) = X^T */
    int64_t m, n, k;         /* op(A) is m x k, op(B) k x n; all > 0 */
    int64_t lda, ldb, ldd;   /* column-major leading dimensions, in elements */
    int64_t batch;           /* >= 1 */
    int64_t stride_a, stride_b, stride_d; /* elements between batch matrices */
    uint64_t a, b, d;        /* device addresses */
    double alpha;
    uint64_t bias;           /* 0: none */
    rt_gemm_act_t act;       /* GELU: cuBLASLt's tanh approximation */
} rt_gemm_t;
/* Loads libcublasLt (NOT_AVAILABLE naming the library when it is missing), creates a handle
 * and a workspace from the pool. NOT_AVAILABLE on a compile-only device. */
loom_status_t rt_blas_create(rt_device_t *d, rt_blas_t **out);
/* Frees the handle, the workspace and the library (NULL-safe). */
void rt_blas_destroy(rt_device_t *d, rt_blas_t *b);
/* Whether cuBLASLt has an algorithm for g (its heuristic, remembered by the problem's
 * structure and the operands' alignment). Records nothing: false means "do it another way". */
bool rt_blas_supported(rt_device_t *d, rt_blas_t *b, const rt_gemm_t *g);
/* Runs g on the device's stream. Failures record DEVICE_ERROR (NOT_AVAILABLE when cuBLASLt
 * has no algorithm) naming the cuBLASLt call, its status and the shapes. */
loom_status_t rt_blas_gemm(rt_device_t *d, rt_blas_t *b, const rt_gemm_t *g);

/* ---- solver.c: factorisations through cuSOLVER, loaded with dlopen (never linked) ----
 * A job: one routine over each of `batch` C-contiguous matrices (rows x cols, the operand's C
 * order; the routines read them column-major, i.e. transposed, as ref_linalg.c explains), with
 * results at out in the IR's layouts (ir.h: LU, SOLVE, CHOLESKY, EIGH, SVD, QR, EIG), each matrix's
 * info word at info (int32 x batch; SOLVE's getrs and QR's orgqr words at info2) and LU's and
 * SOLVE's int32 pivots at ipiv (rows x batch). */
typedef struct rt_solver rt_solver_t;
typedef enum rt_la_op {
    RT_LA_LU, RT_LA_SOLVE, RT_LA_CHOLESKY, RT_LA_EIGH, RT_LA_SVD, RT_LA_QR, RT_LA_EIG
} rt_la_op_t;
typedef struct rt_la {
    rt_la_op_t op;
    loom_dtype_t dtype; /* the operand's: F32, F64, C64 or C128 (EIG: C64 or C128) */
    int64_t mode;       /* the node's p.k */
    int64_t batch, rows, cols;
    int64_t nrhs;       /* SOLVE: right-hand sides */
    uint64_t a, b, out, ipiv, info, info2;
} rt_la_t;
/* Loads libcusolver (NOT_AVAILABLE naming it when missing) and creates a handle on the device's
 * stream. NOT_AVAILABLE on a compile-only device. */
loom_status_t rt_solver_create(rt_device_t *d, rt_solver_t **out);
void rt_solver_destroy(rt_device_t *d, rt_solver_t *s);
/* Queues job j on the device's stream (workspace from the pool); DEVICE_ERROR naming the call
 * when cuSOLVER refuses one. */
loom_status_t rt_solver_run(rt_device_t *d, rt_solver_t *s, const rt_la_t *j);

/* ---- fft.c: transforms through cuFFT, loaded with dlopen (never linked) ----
 * A job: the unscaled transform over the `rank` middle axes of a C-contiguous
 * (outer, n[0], ..., n[rank - 1], inner) array at in, into the same layout at out. C2C: complex
 * both sides; R2C: real in, the last axis n / 2 + 1 complex out; C2R: those in (overwritten, as
 * cuFFT's C2R does), real out. */
typedef struct rt_fft rt_fft_t;
enum { RT_FFT_C2C, RT_FFT_R2C, RT_FFT_C2R };
typedef struct rt_fft_job {
    loom_dtype_t dtype; /* the complex side's: C64 or C128 */
    int kind;           /* RT_FFT_* */
    int rank;           /* 1 .. 3 */
    int64_t n[3];       /* the points along each transformed axis */
    int64_t outer, inner;
    bool inverse;       /* C2C: exp(+2 pi i jk / n), numpy's ifft without its 1 / n */
    uint64_t in, out;
} rt_fft_job_t;
/* Loads libcufft (NOT_AVAILABLE naming it when missing). NOT_AVAILABLE on a compile-only
 * device. */
loom_status_t rt_fft_create(rt_device_t *d, rt_fft_t **out);
/* Waits for queued transforms, then destroys the kept plans. */
void rt_fft_destroy(rt_device_t *d, rt_fft_t *f);
/* Queues job j on the device's stream (plans kept by layout, work area from the pool);
 * DEVICE_ERROR naming the call when cuFFT refuses one. */
loom_status_t rt_fft_run(rt_device_t *d, rt_fft_t *f, const rt_fft_job_t *j);

#endif
