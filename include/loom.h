/* loom — NumPy-style array expressions, fused and compiled just in time for NVIDIA GPUs.
 *
 * Calls such as loom_add() do not compute anything: they add a node to a lazy expression
 * graph and return a handle to it. When a result is needed (loom_eval(), loom_read()), the
 * graph is lowered to a flat IR, simplified, split into as few kernels as possible, emitted as
 * CUDA C, compiled with NVRTC, cached by hash (in memory and on disk) and launched through the
 * CUDA driver API. Without a GPU, the same graph runs on the CPU reference device, an
 * interpreter with NumPy 2's semantics (broadcasting, NEP 50 promotion, result dtypes).
 *
 * Errors: given a context, builders never return NULL (with a NULL ctx they return NULL, which
 * every function accepts as nil). On failure they return a "nil" array that carries no
 * data; every builder given a nil input returns nil, so a whole expression can be written
 * without checks and the first error, with a message naming the values involved, is kept on
 * the context (loom_ctx_status(), loom_ctx_message()). Actions (loom_eval(), loom_read(), ...)
 * return that status. The library never aborts, exits or prints.
 *
 * Ownership: each builder result belongs to the context's current scope and is released by
 * loom_scope_end() (or loom_ctx_destroy()). Call loom_array_retain() on what must outlive the
 * scope, and loom_array_release() when done with it. Functions borrow their arguments.
 *
 * Threads: separate contexts run on separate threads at once, also sharing one kernel cache
 * folder. One context, with its arrays, is used by one thread at a time: the caller serialises
 * calls on it (a mutex); nothing checks, and overlapping calls corrupt it. Arrays never pass
 * between contexts. docs/guide.md, "Threads", has the rules.
 *
 * A complete program:
 *
 *     #include <loom.h>
 *     #include <stdio.h>
 *
 *     int main(void) {
 *         loom_ctx_t *ctx;
 *         if (loom_ctx_create(NULL, &ctx) != LOOM_STATUS_OK) return 1;  // auto: GPU, else CPU
 *         float x[4] = {3, 5, 8, 7}, y[4] = {4, 12, 15, 24}, z[4];
 *         int64_t n = 4;
 *         loom_array_t *a = loom_from_host(ctx, LOOM_DTYPE_F32, 1, &n, x);
 *         loom_array_t *b = loom_from_host(ctx, LOOM_DTYPE_F32, 1, &n, y);
 *         loom_array_t *h = loom_sqrt(ctx, loom_add(ctx, loom_square(ctx, a),
 *                                                        loom_square(ctx, b)));  // one kernel
 *         if (loom_read(ctx, h, z, sizeof z) != LOOM_STATUS_OK)
 *             fprintf(stderr, "%s\n", loom_ctx_message(ctx));
 *         else
 *             printf("%g %g %g %g\n", z[0], z[1], z[2], z[3]);  // 5 13 17 25
 *         loom_ctx_destroy(ctx);
 *         return 0;
 *     }
 */
#ifndef LOOM_H
#define LOOM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(LOOM_BUILDING) && defined(__GNUC__)
#define LOOM_API __attribute__((visibility("default")))
#else
#define LOOM_API
#endif

#define LOOM_VERSION_MAJOR 0
#define LOOM_VERSION_MINOR 1
#define LOOM_VERSION_PATCH 0
#define LOOM_VERSION_STRING "0.1.0"

/* Most axes an array may have. */
#define LOOM_MAX_DIMS 8

/* ---- Statuses ------------------------------------------------------------------------- */

/* X(ENUM, "string") — every status loom returns, with its description. */
#define LOOM_STATUS_LIST(X)                                                                    \
    X(OK, "ok")                                                                                \
    X(INVALID_ARGUMENT, "invalid argument")                                                    \
    X(OUT_OF_MEMORY, "out of memory")                                                          \
    X(SHAPE_MISMATCH, "shapes do not broadcast or do not match")                              \
    X(DTYPE_ERROR, "no valid dtype for this operation")                                        \
    X(OVERFLOW, "value or size out of range")                                                  \
    X(WRONG_CTX, "array belongs to another context")                                           \
    X(BUFFER_TOO_SMALL, "destination buffer too small")                                        \
    X(NOT_AVAILABLE, "device or feature not built or not available")                           \
    X(NO_DRIVER, "no CUDA driver found")                                                       \
    X(NO_DEVICE, "no CUDA device found")                                                       \
    X(DRIVER_TOO_OLD, "CUDA driver older than NVRTC")                                          \
    X(COMPILE_ERROR, "kernel compilation failed")                                              \
    X(DEVICE_ERROR, "CUDA driver call failed")                                                 \
    X(IO_ERROR, "file or cache input/output failed")                                           \
    X(INTERNAL, "internal error (a bug in loom)")                                              \
    X(INDEX_ERROR, "index out of bounds")                                                      \
    X(LINALG_ERROR, "singular or not positive definite matrix, or no convergence")

typedef enum loom_status {
#define LOOM__STATUS_ENUM(e, s) LOOM_STATUS_##e,
    LOOM_STATUS_LIST(LOOM__STATUS_ENUM)
#undef LOOM__STATUS_ENUM
        LOOM_STATUS_COUNT
} loom_status_t;

/* A static description of a status ("shapes do not broadcast ..."); never NULL. */
LOOM_API const char *loom_status_string(loom_status_t status);

/* ---- dtypes --------------------------------------------------------------------------- */

/* X(ENUM, numpy name, bytes) — in NumPy's promotion order within each kind. */
#define LOOM_DTYPE_LIST(X)                                                                     \
    X(BOOL, "bool", 1)                                                                         \
    X(I8, "int8", 1)                                                                           \
    X(I16, "int16", 2)                                                                         \
    X(I32, "int32", 4)                                                                         \
    X(I64, "int64", 8)                                                                         \
    X(U8, "uint8", 1)                                                                          \
    X(U16, "uint16", 2)                                                                        \
    X(U32, "uint32", 4)                                                                        \
    X(U64, "uint64", 8)                                                                        \
    X(F16, "float16", 2)                                                                       \
    X(BF16, "bfloat16", 2)                                                                     \
    X(F32, "float32", 4)                                                                       \
    X(F64, "float64", 8)                                                                       \
    X(C64, "complex64", 8)                                                                     \
    X(C128, "complex128", 16)

typedef enum loom_dtype {
#define LOOM__DTYPE_ENUM(e, s, n) LOOM_DTYPE_##e,
    LOOM_DTYPE_LIST(LOOM__DTYPE_ENUM)
#undef LOOM__DTYPE_ENUM
        LOOM_DTYPE_COUNT
} loom_dtype_t;

/* NumPy's name of a dtype ("float32"), or "invalid". */
LOOM_API const char *loom_dtype_name(loom_dtype_t dtype);
/* Bytes per element of a dtype, or 0 if invalid. */
LOOM_API size_t loom_dtype_size(loom_dtype_t dtype);
/* The dtype named by NumPy's name ("float32", "int64", "bool", "bfloat16"); -1 if unknown. */
LOOM_API int loom_dtype_from_name(const char *name);
/* np.result_type of two strong dtypes (bfloat16 promotes like JAX); -1 where none exists. */
LOOM_API int loom_dtype_promote(loom_dtype_t a, loom_dtype_t b);
/* np.can_cast(from, to, casting): 1 or 0; -1 for an invalid dtype or casting. same_kind
 * allows safe casts and any cast within a kind or up NumPy's kind order (bool, unsigned,
 * signed, float). */
typedef enum loom_casting {
    LOOM_CASTING_NO,
    LOOM_CASTING_EQUIV,
    LOOM_CASTING_SAFE,
    LOOM_CASTING_SAME_KIND,
    LOOM_CASTING_UNSAFE
} loom_casting_t;
LOOM_API int loom_can_cast(loom_dtype_t from, loom_dtype_t to, loom_casting_t casting);
/* np.finfo of a float dtype (bfloat16's as ml_dtypes gives them; a complex dtype's parts', as
 * np.finfo(complex64) is float32's): 0, or -1 for another dtype. */
typedef struct loom_finfo {
    int bits;
    double eps, max, min, smallest_normal, resolution;
} loom_finfo_t;
LOOM_API int loom_finfo(loom_dtype_t dtype, loom_finfo_t *out);
/* np.iinfo of an integer dtype (min as int64, max as uint64 bits): 0, or -1 for another. */
typedef struct loom_iinfo {
    int bits;
    int64_t min;
    uint64_t max;
} loom_iinfo_t;
LOOM_API int loom_iinfo(loom_dtype_t dtype, loom_iinfo_t *out);
/* The Array API's isdtype(dtype, kind) for one kind name ("bool", "signed integer",
 * "unsigned integer", "integral", "real floating", "complex floating", "numeric"): 1 or 0;
 * -1 for an unknown kind or dtype. */
LOOM_API int loom_isdtype(loom_dtype_t dtype, const char *kind);

/* Exact round-to-nearest-even conversions between float32 and the 16-bit float formats
 * (bit patterns as uint16_t). NaN stays NaN (quiet); overflow gives infinity. */
LOOM_API uint16_t loom_f32_to_f16(float x);
LOOM_API float loom_f16_to_f32(uint16_t h);
LOOM_API uint16_t loom_f64_to_f16(double x);
LOOM_API uint16_t loom_f32_to_bf16(float x);
LOOM_API float loom_bf16_to_f32(uint16_t h);
LOOM_API uint16_t loom_f64_to_bf16(double x);

/* ---- Contexts ------------------------------------------------------------------------- */

typedef struct loom_ctx loom_ctx_t;
typedef struct loom_array loom_array_t;

typedef enum loom_device_kind {
    LOOM_DEVICE_AUTO = 0, /* CUDA if a driver and device are present, else the CPU */
    LOOM_DEVICE_CPU,      /* the reference interpreter */
    LOOM_DEVICE_CUDA,     /* a CUDA GPU; an error status if there is none */
    LOOM_DEVICE_NVRTC     /* compile-only: generate and compile kernels, launch nothing */
} loom_device_kind_t;

typedef enum loom_log_level {
    LOOM_LOG_OFF = 0,
    LOOM_LOG_ERROR,
    LOOM_LOG_INFO,  /* compiles, cache misses, evals */
    LOOM_LOG_DEBUG, /* also cache hits, timings of each step */
} loom_log_level_t;

/* Receives each log line (no trailing newline). */
typedef void (*loom_log_fn)(void *user, loom_log_level_t level, const char *line);

/* Options of a context. All-zero (or a NULL pointer) means defaults; environment variables
 * (LOOM_DEVICE, LOOM_CACHE_DIR, LOOM_DUMP, LOOM_LOG) are read once at creation and fill
 * only the fields left zero here. */
typedef struct loom_options {
    loom_device_kind_t device;
    int cuda_ordinal;          /* which CUDA device (default 0) */
    const char *arch;          /* for LOOM_DEVICE_NVRTC: "sm_90" (default) */
    const char *cache_dir;     /* kernel cache folder (default $XDG_CACHE_HOME/loom/...) */
    int disable_disk_cache;    /* nonzero: memory-only kernel cache */
    const char *dump_dir;      /* write every kernel's .cu, log and the graph here */
    loom_log_level_t log_level;
    loom_log_fn log_fn;        /* default: none (or stderr when LOOM_LOG is set) */
    void *log_user;
    int allow_tf32;            /* nonzero: float32 matmul may use TF32 */
    int allow_fma;             /* nonzero (or LOOM_ALLOW_FMA=1): generated kernels may contract
                                * a * b + c into one fused multiply-add, as XLA and Triton do:
                                * faster for arithmetic-heavy kernels (gelu), but results may
                                * then differ from NumPy's (and the CPU device's) in the last
                                * bit. Off by default. */
    /* A CUstream (cast to void *) to run on instead of a stream of loom's own; borrowed: it
     * must outlive the context. loom enqueues all its copies and kernels on it, in call order,
     * so device memory the caller wraps (loom_wrap_device) may be written by work the caller
     * queued earlier on it, and results may be used by work queued later, without a sync.
     * loom_read, loom_read_many, loom_sync and loom_array_device_ptr synchronise this stream
     * (and so wait for the caller's work on it too). NULL: loom creates a non-blocking one. */
    void *cuda_stream;
} loom_options_t;

/* The device a name stands for, as LOOM_DEVICE and `loom --device` spell it: "auto", "cpu",
 * "cuda" (or "gpu"), "nvrtc" or "nvrtc:sm_XY", in any case. Returns the loom_device_kind_t,
 * or -1 if name (NULL included) is none of these. If arch is not NULL, *arch is the text after
 * "nvrtc:" (borrowed from name), else NULL. */
LOOM_API int loom_device_from_name(const char *name, const char **arch);

/* Creates a context. On success *out is the new context and LOOM_STATUS_OK is returned. On
 * failure *out is NULL, and the status says why (e.g. LOOM_STATUS_NOT_AVAILABLE when CUDA is
 * asked for and this build or machine has none); loom_last_create_message() has details. Any
 * thread may create one; its calls must then never overlap (see the top of this header). */
LOOM_API loom_status_t loom_ctx_create(const loom_options_t *options, loom_ctx_t **out);
/* Frees the context and everything it owns, arrays still retained included. NULL is a no-op. */
LOOM_API void loom_ctx_destroy(loom_ctx_t *ctx);
/* Message of the last failed loom_ctx_create() of this thread ("" if none). */
LOOM_API const char *loom_last_create_message(void);

/* The first error recorded on the context since creation or the last clear (OK if none). */
LOOM_API loom_status_t loom_ctx_status(const loom_ctx_t *ctx);
/* Its message, naming the values involved ("" if none). Valid until the next clear. */
LOOM_API const char *loom_ctx_message(const loom_ctx_t *ctx);
/* Forgets the recorded error, so that the context can be used again. */
LOOM_API void loom_ctx_clear_error(loom_ctx_t *ctx);
/* The device this context runs on (never AUTO). */
LOOM_API loom_device_kind_t loom_ctx_device(const loom_ctx_t *ctx);
/* A one-line description of the device ("NVIDIA H200 (sm_90)", "CPU reference"). */
LOOM_API const char *loom_ctx_device_name(const loom_ctx_t *ctx);

/* Scopes: builder results made between begin and end belong to that scope and are released
 * at its end. Scopes nest; the context has an outermost scope of its own. */
LOOM_API void loom_scope_begin(loom_ctx_t *ctx);
LOOM_API void loom_scope_end(loom_ctx_t *ctx);

/* Refcounts for arrays that must outlive their scope. Both accept nil and NULL. */
LOOM_API loom_array_t *loom_array_retain(loom_array_t *a);
LOOM_API void loom_array_release(loom_array_t *a);

/* ---- Array facts ---------------------------------------------------------------------- */

/* Nonzero if a is NULL or nil (a failed builder's result). */
LOOM_API int loom_array_is_nil(const loom_array_t *a);
LOOM_API loom_dtype_t loom_array_dtype(const loom_array_t *a);
LOOM_API int32_t loom_array_ndim(const loom_array_t *a);
/* Extent of one axis (negative axes count from the end); 0 for nil or a bad axis. */
LOOM_API int64_t loom_array_dim(const loom_array_t *a, int32_t axis);
/* Number of elements and bytes (C-contiguous) of the array; 0 for nil. */
LOOM_API int64_t loom_array_size(const loom_array_t *a);
LOOM_API size_t loom_array_nbytes(const loom_array_t *a);

/* ---- Constructors --------------------------------------------------------------------- */

/* A new array holding a copy of n C-contiguous elements at data (the caller keeps data). */
LOOM_API loom_array_t *loom_from_host(loom_ctx_t *ctx, loom_dtype_t dtype, int32_t ndim,
                                      const int64_t *shape, const void *data);
/* Like loom_from_host, but borrows data without copying (zero copy until an eval needs it).
 * loom never writes data. The contract:
 *  - Lifetime: data must stay valid until the array is released (scope end or
 *    loom_array_release) and every array built from it has been evaluated or released.
 *  - Changes: on a GPU the first eval that needs data uploads it, and later evals reuse that
 *    device copy. After changing the contents, call loom_array_host_changed() before the next
 *    eval, which then uploads them again. Unmarked changes may or may not be seen (the CPU
 *    device always reads data directly); debug builds of loom detect them and fail the eval
 *    with INVALID_ARGUMENT. Do not change data while an eval or loom_read runs. */
LOOM_API loom_array_t *loom_borrow_host(loom_ctx_t *ctx, loom_dtype_t dtype, int32_t ndim,
                                        const int64_t *shape, const void *data);
/* Host memory for data that crosses to and from the device. On a CUDA ctx: page-locked (pinned)
 * memory, which copies reach by direct DMA (about 55 GB/s on an H200, against 7-30 GB/s for
 * pageable memory, which goes through staging buffers and a host memcpy); on the CPU and NVRTC
 * devices: ordinary memory. Aligned to 4096 bytes; 0 bytes gives a valid block. Uploads of
 * loom_borrow_host and loom_wrap_host arrays and the downloads of loom_read and loom_read_many
 * take the direct path by themselves when the memory lies in a block of this ctx (pieces under
 * 64 KiB may still be staged); another ctx sees ordinary memory. loom_from_host gains nothing
 * (it copies into memory of its own first): borrow instead. The caller owns the block:
 * loom_host_free (or loom_ctx_destroy) frees it. NULL on failure, with OUT_OF_MEMORY recorded
 * (the message names the bytes); works even when the ctx already holds an error. NULL ctx:
 * NULL.
 * Caution: an eval reads borrowed pinned memory asynchronously (loom_eval returns before the
 * DMA has read it). Do not write memory handed to loom_borrow_host until the eval that reads
 * it has been synchronised (a loom_read or loom_sync on that ctx has returned); then mark the
 * change (loom_array_host_changed) as for any borrowed memory. */
LOOM_API void *loom_host_alloc(loom_ctx_t *ctx, size_t bytes);
/* Frees a block from loom_host_alloc on this ctx, waiting first for the ctx's queued work (a
 * copy may still use it). NULL p or ctx: no-op. A pointer loom_host_alloc did not return on
 * this ctx (or one freed already) records INVALID_ARGUMENT and frees nothing. Arrays borrowing
 * the block must have been released first. */
LOOM_API void loom_host_free(loom_ctx_t *ctx, void *p);
/* Tells loom that the caller changed the memory of a borrowed host array (loom_borrow_host,
 * loom_wrap_host, a host DLPack import), so that the next eval uploads it again. Any other
 * array (loom_from_host copies are immutable; lazy and device arrays) is INVALID_ARGUMENT.
 * Returns the context's status. */
LOOM_API loom_status_t loom_array_host_changed(loom_ctx_t *ctx, loom_array_t *a);

LOOM_API loom_array_t *loom_zeros(loom_ctx_t *ctx, loom_dtype_t dtype, int32_t ndim,
                                  const int64_t *shape);
LOOM_API loom_array_t *loom_ones(loom_ctx_t *ctx, loom_dtype_t dtype, int32_t ndim,
                                 const int64_t *shape);
/* Every element value, converted to dtype as NumPy's np.full does (C casting). */
LOOM_API loom_array_t *loom_full(loom_ctx_t *ctx, loom_dtype_t dtype, int32_t ndim,
                                 const int64_t *shape, double value);
/* Same for integer values that a double cannot hold exactly. */
LOOM_API loom_array_t *loom_full_int(loom_ctx_t *ctx, loom_dtype_t dtype, int32_t ndim,
                                     const int64_t *shape, int64_t value);
/* np.arange(start, stop, step, dtype): ceil((stop - start) / step) elements. Bounds past 2**53
 * lose precision as doubles: give integer bounds to loom_arange_int. */
LOOM_API loom_array_t *loom_arange(loom_ctx_t *ctx, double start, double stop, double step,
                                   loom_dtype_t dtype);
/* np.arange with Python-int bounds: NumPy's length (the quotient rounded to a double, then its
 * ceiling) and exact integer values. An integer dtype that cannot hold start (or start + step,
 * when there are two elements or more) is an OVERFLOW error, as in NumPy; step 0 is
 * INVALID_ARGUMENT. */
LOOM_API loom_array_t *loom_arange_int(loom_ctx_t *ctx, int64_t start, int64_t stop, int64_t step,
                                       loom_dtype_t dtype);
/* np.linspace(start, stop, num, endpoint, dtype). */
LOOM_API loom_array_t *loom_linspace(loom_ctx_t *ctx, double start, double stop, int64_t num,
                                     int endpoint, loom_dtype_t dtype);
/* np.logspace(start, stop, num, endpoint, base, dtype): base ** linspace(start, stop, ...)
 * in float64, cast to dtype. np.geomspace(start, stop, num, endpoint, dtype): NumPy's
 * geometric sequence (ends exact; start or stop 0 is an error). */
LOOM_API loom_array_t *loom_logspace(loom_ctx_t *ctx, double start, double stop, int64_t num,
                                     int endpoint, double base, loom_dtype_t dtype);
LOOM_API loom_array_t *loom_geomspace(loom_ctx_t *ctx, double start, double stop, int64_t num,
                                      int endpoint, loom_dtype_t dtype);
/* np.eye(n, m, k, dtype): ones on the k-th diagonal of an n x m array. */
LOOM_API loom_array_t *loom_eye(loom_ctx_t *ctx, int64_t n, int64_t m, int64_t k,
                                loom_dtype_t dtype);

/* Counter-based random numbers (Philox-4x32-10, key = seed, counter = element index), so the
 * same seed gives bit-identical values on every device. uniform: [low, high) in a float dtype;
 * normal: mean + std * N(0,1) by Box–Muller. The stream is specified in docs/random.md. */
LOOM_API loom_array_t *loom_random_uniform(loom_ctx_t *ctx, uint64_t seed, loom_dtype_t dtype,
                                           int32_t ndim, const int64_t *shape, double low,
                                           double high);
LOOM_API loom_array_t *loom_random_normal(loom_ctx_t *ctx, uint64_t seed, loom_dtype_t dtype,
                                          int32_t ndim, const int64_t *shape, double mean,
                                          double std);
/* The key of draw number `stream` (0, 1, 2, ...) of a generator seeded with seed: SplitMix64's
 * output number `stream` from state seed (docs/random.md). A generator that counts its calls
 * in stream gets new numbers from each call, reproducibly. */
LOOM_API uint64_t loom_random_key(uint64_t seed, uint64_t stream);
/* NumPy's Generator methods on the stream: each call draws under loom_random_key(seed,
 * stream), so the values differ from NumPy's (another bit generator) while the distributions
 * are NumPy's. Results belong to the current scope; errors (NumPy's checks and messages)
 * give the nil array. uniform: [low, high) in a float dtype (high < low refused);
 * normal: loc + scale * N(0,1); exponential: scale * -log(1 - u). */
LOOM_API loom_array_t *loom_rng_uniform(loom_ctx_t *ctx, uint64_t seed, uint64_t stream, double low,
                                        double high, loom_dtype_t dtype, int32_t ndim,
                                        const int64_t *shape);
LOOM_API loom_array_t *loom_rng_normal(loom_ctx_t *ctx, uint64_t seed, uint64_t stream, double loc,
                                       double scale, loom_dtype_t dtype, int32_t ndim,
                                       const int64_t *shape);
LOOM_API loom_array_t *loom_rng_exponential(loom_ctx_t *ctx, uint64_t seed, uint64_t stream,
                                            double scale, loom_dtype_t dtype, int32_t ndim,
                                            const int64_t *shape);
/* rng.integers(low, high, size, dtype, endpoint): integers in [low, high) ([low, high] with
 * endpoint) in an integer or bool dtype, both bounds in its range. floor(u * (high - low))
 * with 53-bit u: uniform for ranges below 2^53 (past it, not every value can occur). */
LOOM_API loom_array_t *loom_rng_integers(loom_ctx_t *ctx, uint64_t seed, uint64_t stream,
                                         int64_t low, int64_t high, int endpoint,
                                         loom_dtype_t dtype, int32_t ndim, const int64_t *shape);
/* rng.permutation(x, axis): x with its entries along axis in a random order (the argsort of
 * uniform keys); rng.shuffle's values. */
LOOM_API loom_array_t *loom_rng_permutation(loom_ctx_t *ctx, uint64_t seed, uint64_t stream,
                                            loom_array_t *x, int32_t axis);
/* rng.choice(a, size, replace, p, axis): entries of a along axis at random indices of the
 * given shape (ndim 0: one). p (NULL: uniform) 1-D probabilities, checked as NumPy does (one
 * sync reads their sum and signs). With replacement: inversion of p's running sum; without:
 * the first of a random order (by p: the exponential race, NumPy's successive sampling). */
LOOM_API loom_array_t *loom_rng_choice(loom_ctx_t *ctx, uint64_t seed, uint64_t stream,
                                       loom_array_t *a, int32_t ndim, const int64_t *shape,
                                       int replace, loom_array_t *p, int32_t axis);

/* Weak scalars (NEP 50): a Python-style number whose dtype yields to the array it meets.
 * int8 array + loom_weak_int(1) stays int8; + loom_weak_int(300) is an OVERFLOW error;
 * int32 array + loom_weak_float(2.5) becomes float64; alone, they are int64 / float64 / bool. */
LOOM_API loom_array_t *loom_weak_int(loom_ctx_t *ctx, int64_t value);
LOOM_API loom_array_t *loom_weak_uint(loom_ctx_t *ctx, uint64_t value);
LOOM_API loom_array_t *loom_weak_float(loom_ctx_t *ctx, double value);
LOOM_API loom_array_t *loom_weak_bool(loom_ctx_t *ctx, int value);
/* A Python complex re + im j: complex128 alone; next to float32 (or float16, bfloat16) arrays
 * complex64, as NEP 50 gives float32 + 1j. */
LOOM_API loom_array_t *loom_weak_complex(loom_ctx_t *ctx, double re, double im);
/* np.full(shape, re + im j, dtype) for dtype complex64 or complex128. */
LOOM_API loom_array_t *loom_full_complex(loom_ctx_t *ctx, loom_dtype_t dtype, int32_t ndim,
                                         const int64_t *shape, double re, double im);

/* ---- Complex numbers ------------------------------------------------------------------ */

/* np.real, np.imag: the parts of a complex array in its parts' float dtype (complex64:
 * float32); of a real array, the array itself and zeros of its dtype. np.conj (conjugate):
 * the complex conjugate, a real array itself. np.angle(z, deg): arctan2(imag, real), in
 * degrees when deg (integers compute in float64). loom_complex: re + 1j * im with the parts'
 * promoted float dtype (float32: complex64; integers: complex128). */
LOOM_API loom_array_t *loom_real(loom_ctx_t *ctx, loom_array_t *a);
LOOM_API loom_array_t *loom_imag(loom_ctx_t *ctx, loom_array_t *a);
LOOM_API loom_array_t *loom_conj(loom_ctx_t *ctx, loom_array_t *a);
LOOM_API loom_array_t *loom_angle(loom_ctx_t *ctx, loom_array_t *a, int deg);
LOOM_API loom_array_t *loom_complex(loom_ctx_t *ctx, loom_array_t *re, loom_array_t *im);
/* ---- numpy.fft ------------------------------------------------------------------------ */

/* numpy.fft's norm: "backward" (the inverse transforms divide by n), "ortho" (both by
 * sqrt(n)), "forward" (the forward ones divide by n). */
typedef enum loom_fft_norm { LOOM_FFT_BACKWARD, LOOM_FFT_ORTHO, LOOM_FFT_FORWARD } loom_fft_norm_t;
/* np.fft.fft, ifft, rfft, irfft, hfft, ihfft along axis: n points (LOOM_NONE: the axis's
 * extent; irfft and hfft: 2 (m - 1)), the input cropped or zero-padded to them. float16,
 * bfloat16 and float32 transform in complex64, the rest in complex128 (rfft and ihfft refuse a
 * complex input; irfft and hfft give the real dtype). The CPU device transforms in double; the
 * CUDA device calls cuFFT (NOT_AVAILABLE without libcufft) in the dtype's own precision. */
LOOM_API loom_array_t *loom_fft(loom_ctx_t *ctx, loom_array_t *a, int64_t n, int32_t axis,
                                loom_fft_norm_t norm);
LOOM_API loom_array_t *loom_ifft(loom_ctx_t *ctx, loom_array_t *a, int64_t n, int32_t axis,
                                 loom_fft_norm_t norm);
LOOM_API loom_array_t *loom_rfft(loom_ctx_t *ctx, loom_array_t *a, int64_t n, int32_t axis,
                                 loom_fft_norm_t norm);
LOOM_API loom_array_t *loom_irfft(loom_ctx_t *ctx, loom_array_t *a, int64_t n, int32_t axis,
                                  loom_fft_norm_t norm);
LOOM_API loom_array_t *loom_hfft(loom_ctx_t *ctx, loom_array_t *a, int64_t n, int32_t axis,
                                 loom_fft_norm_t norm);
LOOM_API loom_array_t *loom_ihfft(loom_ctx_t *ctx, loom_array_t *a, int64_t n, int32_t axis,
                                  loom_fft_norm_t norm);
/* np.fft.fftn, ifftn, rfftn, irfftn over naxes axes (axes NULL: the last naxes, or all when s
 * is NULL too), s[i] points on axes[i] (s NULL: the extents; irfftn's last: 2 (m - 1)); fft2
 * and the like are these over axes (-2, -1). */
LOOM_API loom_array_t *loom_fftn(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes, const int64_t *s,
                                 const int32_t *axes, loom_fft_norm_t norm);
LOOM_API loom_array_t *loom_ifftn(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                  const int64_t *s, const int32_t *axes, loom_fft_norm_t norm);
LOOM_API loom_array_t *loom_rfftn(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                  const int64_t *s, const int32_t *axes, loom_fft_norm_t norm);
LOOM_API loom_array_t *loom_irfftn(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                   const int64_t *s, const int32_t *axes, loom_fft_norm_t norm);

/* np.iscomplex, np.isreal: whether each element's imaginary part is nonzero, zero (a real
 * array: all false, all true). */
LOOM_API loom_array_t *loom_iscomplex(loom_ctx_t *ctx, loom_array_t *a);
LOOM_API loom_array_t *loom_isreal(loom_ctx_t *ctx, loom_array_t *a);

/* ---- Elementwise operations ----------------------------------------------------------- */

/* X(name) — unary ops with NumPy's names, dtypes and values (np.negative, np.sqrt, ...).
 * Integer inputs to float functions take NumPy's loop (int8 -> float16, int32 -> float64).
 * erf, erfc, erfinv, erfcinv, lgamma (scipy's gammaln) and digamma (psi) are scipy.special's
 * functions with NumPy's dtype rule (float16 stays float16); i0 and sinc are NumPy's, which
 * compute integers in float64 (sinc of complex z: sin(y) / y, y = pi * where(z == 0, 1e-20, z);
 * rint of complex z: each part). The special functions round a double result to float32 once
 * (docs/guide.md gives the measured accuracy). fabs is abs for real numbers only (integers take
 * the float loop, as NumPy's); bitwise_count counts the 1-bits of |a| of an integer array
 * (uint8, NumPy's). */
#define LOOM_UNARY_LIST(X)                                                                     \
    X(negative) X(positive) X(abs) X(sign) X(sqrt) X(cbrt) X(square) X(reciprocal) X(exp)     \
    X(exp2) X(expm1) X(log) X(log2) X(log10) X(log1p) X(sin) X(cos) X(tan) X(arcsin)          \
    X(arccos) X(arctan) X(sinh) X(cosh) X(tanh) X(arcsinh) X(arccosh) X(arctanh) X(floor)     \
    X(ceil) X(trunc) X(rint) X(isnan) X(isinf) X(isfinite) X(logical_not) X(invert) X(erf)    \
    X(erfc) X(erfinv) X(erfcinv) X(lgamma) X(digamma) X(i0) X(sinc) X(deg2rad) X(rad2deg)    \
    X(spacing) X(signbit) X(fabs) X(bitwise_count)

/* X(name) — binary ops, broadcasting their operands (np.add, np.floor_divide, ...). */
#define LOOM_BINARY_LIST(X)                                                                    \
    X(add) X(subtract) X(multiply) X(true_divide) X(floor_divide) X(remainder) X(power)       \
    X(maximum) X(minimum) X(fmax) X(fmin) X(arctan2) X(hypot) X(copysign) X(equal)            \
    X(not_equal) X(less) X(less_equal) X(greater) X(greater_equal) X(logical_and)             \
    X(logical_or) X(logical_xor) X(bitwise_and) X(bitwise_or) X(bitwise_xor) X(left_shift)    \
    X(right_shift) X(logaddexp) X(logaddexp2) X(nextafter) X(heaviside) X(gcd) X(lcm) X(fmod)

/* Each unary op: loom_sqrt(ctx, a). Returns a new lazy array, or nil on error. */
#define LOOM__UNARY_DECL(name) LOOM_API loom_array_t *loom_##name(loom_ctx_t *ctx, loom_array_t *a);
LOOM_UNARY_LIST(LOOM__UNARY_DECL)
#undef LOOM__UNARY_DECL

/* Each binary op, and its weak-scalar forms: loom_add(ctx, a, b), loom_add_f(ctx, a, 2.5)
 * (a + weak float), loom_add_i(ctx, a, 2) (a + weak int). For a scalar on the left, pass
 * loom_weak_float(ctx, v) as the first operand. */
#define LOOM__BINARY_DECL(name)                                                                \
    LOOM_API loom_array_t *loom_##name(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b);     \
    LOOM_API loom_array_t *loom_##name##_f(loom_ctx_t *ctx, loom_array_t *a, double b);        \
    LOOM_API loom_array_t *loom_##name##_i(loom_ctx_t *ctx, loom_array_t *a, int64_t b);
LOOM_BINARY_LIST(LOOM__BINARY_DECL)
#undef LOOM__BINARY_DECL

/* np.ldexp(x, n) = x * 2**n exactly rounded: n an integer (not uint64) array; the result is
 * x's float loop (int8 -> float16, int32 -> float64; a Python int x beside an array n gives
 * float16, as NumPy's NEP 50 resolution does; a Python float x, float64). bfloat16 computes in float32, as ml_dtypes does. */
LOOM_API loom_array_t *loom_ldexp(loom_ctx_t *ctx, loom_array_t *x, loom_array_t *n);
/* np.frexp: x = mantissa * 2**exponent with |mantissa| in [0.5, 1) (0, inf and NaN keep x and
 * give exponent 0); mantissa in x's float loop, exponent int32. */
LOOM_API loom_status_t loom_frexp(loom_ctx_t *ctx, loom_array_t *x, loom_array_t **mantissa,
                                  loom_array_t **exponent);
/* np.modf: the fractional and integral parts, both with x's sign (modf(-inf) = (-0, -inf)). */
LOOM_API loom_status_t loom_modf(loom_ctx_t *ctx, loom_array_t *x, loom_array_t **fractional,
                                 loom_array_t **integral);
/* np.divmod: (floor_divide(a, b), remainder(a, b)). */
LOOM_API loom_status_t loom_divmod(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b,
                                   loom_array_t **quotient, loom_array_t **remainder);
/* np.float_power: power in float64, whatever the operands' dtypes. */
LOOM_API loom_array_t *loom_float_power(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b);
/* np.round(a, decimals) as NumPy computes it: floats rint(a * 10**d) / 10**d (d < 0:
 * rint(a / 10**-d) * 10**-d, the power a Python float of a's dtype); integers unchanged for
 * d >= 0, else rounded half to even through float64 and cast back; bool: rint (float16) for
 * d = 0, else an error, as NumPy's. */
LOOM_API loom_array_t *loom_round(loom_ctx_t *ctx, loom_array_t *a, int32_t decimals);
/* np.fix: rounding towards zero (loom_trunc; integers unchanged). */
LOOM_API loom_array_t *loom_fix(loom_ctx_t *ctx, loom_array_t *a);
/* np.isposinf / np.isneginf: isinf(a) and the sign bit clear / set. */
LOOM_API loom_array_t *loom_isposinf(loom_ctx_t *ctx, loom_array_t *a);
LOOM_API loom_array_t *loom_isneginf(loom_ctx_t *ctx, loom_array_t *a);

/* np.where(cond, x, y): cond is cast to bool, x and y promote together. */
LOOM_API loom_array_t *loom_where(loom_ctx_t *ctx, loom_array_t *cond, loom_array_t *x,
                                  loom_array_t *y);
/* np.clip(a, lo, hi) = minimum(maximum(a, lo), hi), with NumPy's dtype rules. */
LOOM_API loom_array_t *loom_clip(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *lo,
                                 loom_array_t *hi);
/* a.astype(dtype) with NumPy's unsafe (C-style) casting; float -> int of NaN/inf/out of range
 * values gives the value NumPy gives on x86-64. */
LOOM_API loom_array_t *loom_astype(loom_ctx_t *ctx, loom_array_t *a, loom_dtype_t dtype);

/* ---- Evaluation ----------------------------------------------------------------------- */

/* Computes the n arrays (and nothing they do not need) together: kernels are shared between
 * them. Nil or NULL entries give the recorded error. Returns the context's status. On CUDA it
 * queues the work and returns without waiting for it; an error found by the kernels (an index
 * out of bounds, an integer to a negative power) is reported by the next call that waits
 * (loom_read, loom_read_many, loom_sync, loom_array_device_ptr, loom_to_dlpack, a builder
 * that reads values back), and the results of the evals since the previous wait that ran
 * such kernels or used their results then report it whenever they are read, and make an eval
 * that uses one fail with it (the guide's "Errors found on the device"). The CPU device
 * reports it here. */
LOOM_API loom_status_t loom_eval(loom_ctx_t *ctx, int32_t n, loom_array_t *const *arrays);
/* Evaluates a if needed and copies it, C-contiguous, into dst (dst_bytes must be at least
 * loom_array_nbytes(a), else LOOM_STATUS_BUFFER_TOO_SMALL and nothing is written). Strided
 * device memory (a wrapped or imported view) is first copied on the device, then downloaded. */
LOOM_API loom_status_t loom_read(loom_ctx_t *ctx, loom_array_t *a, void *dst, size_t dst_bytes);
/* Evaluates the n arrays together (one loom_eval) and copies arrays[i] into dsts[i]
 * (dst_bytes[i] at least its nbytes), with the downloads coalesced through pinned staging and
 * one wait. Checks every size before writing anything (BUFFER_TOO_SMALL names the index). */
LOOM_API loom_status_t loom_read_many(loom_ctx_t *ctx, int32_t n, loom_array_t *const *arrays,
                                      void *const *dsts, const size_t *dst_bytes);
/* Waits until all work queued on the context has finished, and reports an error its kernels
 * found (see loom_eval). */
LOOM_API loom_status_t loom_sync(loom_ctx_t *ctx);

/* Writes the flat IR that evaluating these arrays would run, as deterministic text, into buf
 * (NUL-terminated, truncated to cap). Returns the full length, or -1 on error. */
LOOM_API int64_t loom_dump_ir(loom_ctx_t *ctx, int32_t n, loom_array_t *const *arrays, char *buf,
                              size_t cap);

/* ---- Statistics ----------------------------------------------------------------------- */

typedef struct loom_stats {
    uint64_t evals;             /* loom_eval calls that ran something */
    uint64_t kernels_launched;
    uint64_t plan_hits;         /* evals that reused a cached schedule (dispatch fast path) */
    uint64_t plan_misses;
    uint64_t kernel_mem_hits;   /* kernel found in the memory cache */
    uint64_t kernel_disk_hits;  /* loaded from the disk cache */
    uint64_t kernel_compiles;   /* compiled by NVRTC */
    double compile_ms;          /* total NVRTC time */
    /* Host<->device transfers since creation: copies are DMA operations (a staged copy makes
     * one per 8 MiB staging buffer; many small inputs of one eval share one), bytes the
     * payload. Always 0 on the CPU device. */
    uint64_t h2d_copies, h2d_bytes, d2h_copies, d2h_bytes;
    size_t pool_bytes_in_use;   /* device memory held by live buffers */
    size_t pool_bytes_held;     /* in use + cached for reuse */
    size_t pool_peak_in_use;
    /* The same for the last loom_eval, loom_read or loom_read_many alone (a read's upload and
     * download together). LOOM_LOG=info logs them after each of these calls. */
    uint64_t last_eval_h2d_copies, last_eval_h2d_bytes;
    uint64_t last_eval_d2h_copies, last_eval_d2h_bytes;
    /* Reductions launched taking their outputs in reverse order: the latest kernel over their
     * largest input went forward, so its last lines may still be in L2
     * (docs/design-notes.md, "Traversal order"). The results are the same bits either way. */
    uint64_t kernels_reversed;
} loom_stats_t;

/* Fills *out with the context's counters since creation. */
LOOM_API void loom_ctx_stats(const loom_ctx_t *ctx, loom_stats_t *out);
/* Returns cached, unused device memory to the driver. */
LOOM_API void loom_ctx_trim(loom_ctx_t *ctx);

/* ---- Expressions, .npy files, facts (the loom command's library side) ----------------- */

/* Evaluates a program in loom's expression language, a subset of Python/NumPy: statements
 * separated by ';' or newlines, assignments `a = ...`, NumPy's operators (`-2**2 == -4`),
 * numbers (Python ints and floats stay Python numbers, NEP 50 weak next to arrays), and calls
 * with NumPy's names (`where(x > 0, x, 0.5 * x)`, `x.astype('float16')`, `zeros((2, 3))`).
 * names[i] is bound to arrays[i] (borrowed). outs[k] receives the variable out_names[k], or
 * the last statement's value where out_names (or its entry) is NULL; numbers become strong 0-d
 * arrays. Results are lazy and belong to the current scope. On failure every outs[k] is nil and
 * the status is returned: INVALID_ARGUMENT for syntax and unknown names (the message shows the
 * line with a caret under the column and lists the bound names), NOT_AVAILABLE for NumPy
 * constructs loom cannot evaluate yet, and the builders' own statuses (with the caret). */
LOOM_API loom_status_t loom_parse(loom_ctx_t *ctx, const char *program, int32_t n_names,
                                  const char *const *names, loom_array_t *const *arrays,
                                  int32_t n_outs, const char *const *out_names,
                                  loom_array_t **outs);
/* loom_parse's last value as items, for bindings that do not know a function's results in
 * advance: an array or a number is one item (*is_tuple 0), a tuple (`linalg.svd(a)`) its
 * entries in order (*is_tuple 1; a nested tuple is refused). outs has room for cap items; a
 * longer tuple is INVALID_ARGUMENT. *n_items: how many were written (0 on failure). */
LOOM_API loom_status_t loom_parse_items(loom_ctx_t *ctx, const char *program, int32_t n_names,
                                        const char *const *names, loom_array_t *const *arrays,
                                        int32_t cap, loom_array_t **outs, int32_t *n_items,
                                        int *is_tuple);
/* The expression language's functions, in the order of its table (for generated bindings):
 * the i-th name (0, 1, ...; NULL past the last); *params, when not NULL, its parameters as
 * "a,axis?,keepdims?" (? marks optional ones, * a variadic one); *method, when not NULL,
 * whether x.NAME(...) works too. Names taken as linalg.NAME and fft.NAME are in the table by
 * their short names. */
LOOM_API const char *loom_expr_function(int32_t i, const char **params, int *method);
/* The C builder of the i-th function when it is an elementwise ufunc (loom_sin, loom_add, ...):
 * *arity 1 (loom_array_t *(*)(loom_ctx_t *, loom_array_t *)) or 2 (.., loom_array_t *,
 * loom_array_t *), to be cast to that type; NULL (*arity 0) for every other function. Bindings
 * call these directly, sparing the parse. */
typedef void (*loom_builder_fn)(void);
LOOM_API loom_builder_fn loom_expr_builder(int32_t i, int *arity);
/* A program parsed once and run many times (what a binding's jit records): loom_program_run is
 * loom_parse_items without the parse, its names bound to new arrays on every run, so a cached
 * graph costs only its builders and the eval. A program belongs to ctx: destroy it before the
 * context. Syntax errors are reported by loom_program_create, everything else by the run. */
typedef struct loom_program loom_program_t;
LOOM_API loom_status_t loom_program_create(loom_ctx_t *ctx, const char *program,
                                           loom_program_t **out);
LOOM_API loom_status_t loom_program_run(loom_ctx_t *ctx, const loom_program_t *program,
                                        int32_t n_names, const char *const *names,
                                        loom_array_t *const *arrays, int32_t cap,
                                        loom_array_t **outs, int32_t *n_items, int *is_tuple);
/* loom_program_run, then loom_eval of its items, in one call (a binding's jit that returns
 * computed results crosses into the library once). The program keeps the graph of its last
 * such run when that run read no values (no count or mask read back) and its arrays were all
 * evaluated and none a weak scalar; a later call whose arrays are evaluated and match them
 * (the same names in order, dtypes, shapes, strides and sharing) evaluates that graph on the
 * new arrays without running the statements: the same results, for the host work of the eval
 * alone. On a failure, the status; the items are as the run left them (nil when the run
 * failed, or when the failing call replayed). */
LOOM_API loom_status_t loom_program_eval(loom_ctx_t *ctx, const loom_program_t *program,
                                         int32_t n_names, const char *const *names,
                                         loom_array_t *const *arrays, int32_t cap,
                                         loom_array_t **outs, int32_t *n_items, int *is_tuple);
LOOM_API void loom_program_destroy(loom_program_t *program);
/* loom_parse for one result, the program's last value; nil on failure, like every builder. */
LOOM_API loom_array_t *loom_expr(loom_ctx_t *ctx, const char *expr, int32_t n_names,
                                 const char *const *names, loom_array_t *const *arrays);

/* Reads a .npy file (format 1.0, 2.0 or 3.0; either byte order; C or Fortran order) into a new
 * array of the current scope. bfloat16 is read from descr '<V2' or '|V2'. A missing, corrupt or
 * truncated file, a dtype loom lacks, or a path that is not a regular file (a FIFO, a folder)
 * gives nil and an error naming the file and the fault. */
LOOM_API loom_array_t *loom_npy_load(loom_ctx_t *ctx, const char *path);
/* Evaluates a and writes it to path as a .npy file (version 1.0, little-endian, C order;
 * bfloat16 as descr '<V2', which NumPy reads as raw 2-byte voids: view them as
 * ml_dtypes.bfloat16). The file is written to a temporary file beside it, synced and renamed
 * over path, so path holds the old file or the whole new one, never a part; a character device
 * (/dev/null, or a link to one such as /dev/stdout) is written as a stream. A folder, FIFO,
 * socket, block device or other symbolic link at path is refused. Returns the status; IO_ERROR
 * names the file and the system's reason ("No space left on device"). */
LOOM_API loom_status_t loom_npy_save(loom_ctx_t *ctx, loom_array_t *a, const char *path);

/* What a context runs on. Strings are static or owned by the context (valid while it lives). */
typedef struct loom_info {
    const char *version;       /* the library's LOOM_VERSION_STRING */
    int cuda_built;            /* nonzero when built with NVRTC */
    int nvrtc_version;         /* 1000 * major + 10 * minor (12080 = 12.8); 0 without CUDA */
    int driver_version;        /* cuDriverGetVersion's value (same scheme); 0 without a driver */
    loom_device_kind_t device; /* as loom_ctx_device */
    const char *device_name;   /* as loom_ctx_device_name */
    const char *arch;          /* "sm_90" on the cuda and nvrtc devices, "" on the CPU */
    const char *cache_dir;     /* the kernel disk cache folder in use; "" if none */
} loom_info_t;

/* Fills *out (a NULL ctx gives the build's facts only). Never fails. */
LOOM_API void loom_ctx_info(const loom_ctx_t *ctx, loom_info_t *out);

/* ---- Views, joins and reductions --------------------------------------------------------
 * NumPy 2's semantics. Views read their operand through strides (no copy; a reshape copies only
 * where strides cannot express it), compose, and may be taken of evaluated arrays. Axes are
 * int32_t and may be negative (counted from the end); an axis out of range, a repeated axis or
 * a bad shape gives a nil result with INVALID_ARGUMENT or SHAPE_MISMATCH and a message naming
 * the axis and shape, as NumPy words it. Results belong to the current scope. */

/* In a loom_slice() start or stop: omitted (Python's a[:3], a[2:], a[::-1]). */
#define LOOM_NONE INT64_MIN
/* As the axis of loom_cumsum(), loom_cumprod() and loom_concatenate(): NumPy's axis=None,
 * which works on the flattened arrays. */
#define LOOM_AXIS_NONE INT32_MIN

/* np.reshape(a, shape) in C order; one extent may be -1 (inferred). A view when strides can
 * express it, else a copy made at evaluation. SHAPE_MISMATCH if the sizes differ. */
LOOM_API loom_array_t *loom_reshape(loom_ctx_t *ctx, loom_array_t *a, int32_t ndim,
                                    const int64_t *shape);
/* np.transpose(a, axes): result axis i is a's axis axes[i]; axes NULL reverses the axes
 * (naxes is then ignored). naxes must be a's ndim. A view. */
LOOM_API loom_array_t *loom_transpose(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                      const int32_t *axes);
/* a[starts[0]:stops[0]:steps[0], ...] over the first naxes axes (the rest whole), with Python's
 * clipping and negative indices and steps. Any of the three arrays may be NULL (all omitted);
 * LOOM_NONE marks one omitted entry (a step of LOOM_NONE is 1). A step of 0 is an error. */
LOOM_API loom_array_t *loom_slice(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                  const int64_t *starts, const int64_t *stops,
                                  const int64_t *steps);
/* np.broadcast_to(a, shape): a view repeating extent-1 and missing leading axes. */
LOOM_API loom_array_t *loom_broadcast_to(loom_ctx_t *ctx, loom_array_t *a, int32_t ndim,
                                         const int64_t *shape);
/* np.expand_dims(a, axes): inserts extent-1 axes at the given positions of the result. */
LOOM_API loom_array_t *loom_expand_dims(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                        const int32_t *axes);
/* np.squeeze(a, axes): removes the given axes, which must have extent 1; axes NULL removes
 * every extent-1 axis. */
LOOM_API loom_array_t *loom_squeeze(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                    const int32_t *axes);
/* np.flip(a, axes): reverses the given axes (axes NULL: all). A view (negative strides). */
LOOM_API loom_array_t *loom_flip(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                 const int32_t *axes);
/* np.moveaxis(a, source, destination): moves the naxes axes source[i] to destination[i]. */
LOOM_API loom_array_t *loom_moveaxis(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                     const int32_t *source, const int32_t *destination);
/* ---- Manipulation, built from the ops above (they run and fuse wherever those do) ----
 * np.swapaxes(a, axis1, axis2): a view. */
LOOM_API loom_array_t *loom_swapaxes(loom_ctx_t *ctx, loom_array_t *a, int32_t axis1,
                                     int32_t axis2);
/* The Array API's matrix_transpose (NumPy's x.mT): the last two axes swapped, a view; at least
 * 2 dimensions. */
LOOM_API loom_array_t *loom_matrix_transpose(loom_ctx_t *ctx, loom_array_t *a);
/* np.atleast_1d / 2d / 3d (n = 1, 2, 3): a view with NumPy's added axes ((N,) becomes (1, N)
 * and (1, N, 1); (M, N) becomes (M, N, 1)). */
LOOM_API loom_array_t *loom_atleast_nd(loom_ctx_t *ctx, loom_array_t *a, int32_t n);
/* np.tril / np.triu(a, k): zeros above (below) the k-th diagonal of the last two axes. */
LOOM_API loom_array_t *loom_tril(loom_ctx_t *ctx, loom_array_t *a, int64_t k);
LOOM_API loom_array_t *loom_triu(loom_ctx_t *ctx, loom_array_t *a, int64_t k);
/* np.diagonal(a, offset, axis1, axis2): the diagonal as the last axis (a gather that fuses into
 * its consumer; NumPy returns a read-only view of the same values). */
LOOM_API loom_array_t *loom_diagonal(loom_ctx_t *ctx, loom_array_t *a, int64_t offset,
                                     int32_t axis1, int32_t axis2);
/* np.trace(a, offset, axis1, axis2): the sum of loom_diagonal along its last axis. */
LOOM_API loom_array_t *loom_trace(loom_ctx_t *ctx, loom_array_t *a, int64_t offset, int32_t axis1,
                                  int32_t axis2);
/* np.diag(v, k): a 1-D v on the k-th diagonal of a square zero matrix, or a 2-D v's k-th
 * diagonal. */
LOOM_API loom_array_t *loom_diag(loom_ctx_t *ctx, loom_array_t *v, int64_t k);
/* np.roll(a, shift, axis): elements shifted along the axis, wrapping around; LOOM_AXIS_NONE
 * rolls the flattened array and keeps a's shape. */
LOOM_API loom_array_t *loom_roll(loom_ctx_t *ctx, loom_array_t *a, int64_t shift, int32_t axis);
/* np.repeat(a, repeats, axis): each element repeated (repeats: integers, 0-d or one per
 * element along the axis, none negative); LOOM_AXIS_NONE repeats the flattened a. The length
 * is the repeats' sum: one sync. */
LOOM_API loom_array_t *loom_repeat(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *repeats,
                                   int32_t axis);
/* np.tile(a, reps): a repeated reps[i] times along each axis (n reps; the shorter of a's
 * shape and reps gets leading 1s, as NumPy's). */
LOOM_API loom_array_t *loom_tile(loom_ctx_t *ctx, loom_array_t *a, int32_t n, const int64_t *reps);
/* np.diff(a, n, axis): the n-th differences along the axis (bool: not_equal, as NumPy's). */
LOOM_API loom_array_t *loom_diff(loom_ctx_t *ctx, loom_array_t *a, int32_t n, int32_t axis);
/* np.rot90(a, k, axes=(axis1, axis2)): rotated by 90 degrees k times, from axis1 to axis2. */
LOOM_API loom_array_t *loom_rot90(loom_ctx_t *ctx, loom_array_t *a, int64_t k, int32_t axis1,
                                  int32_t axis2);
/* np.full_like / zeros_like / ones_like / empty_like (a's shape; dtype -1: a's). empty_like's
 * elements are zeros here: loom has no uninitialised arrays. */
LOOM_API loom_array_t *loom_full_like(loom_ctx_t *ctx, loom_array_t *a, double value, int dtype);
/* np.outer (flattened operands), np.inner (last axes contracted), np.vecdot (NumPy 2, real
 * dtypes: the product summed over `axis` after broadcasting), np.kron (block products). */
LOOM_API loom_array_t *loom_outer(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b);
LOOM_API loom_array_t *loom_inner(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b);
LOOM_API loom_array_t *loom_vecdot(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b, int32_t axis);
LOOM_API loom_array_t *loom_kron(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b);
/* np.meshgrid(*xs, indexing='ij' when ij, else 'xy'): n broadcast views into outs. */
LOOM_API loom_status_t loom_meshgrid(loom_ctx_t *ctx, int32_t n, loom_array_t *const *xs, int ij,
                                     loom_array_t **outs);
/* np.array_split(a, sections, axis) (np.split when even: an unequal division is an error):
 * `sections` slices into outs, the first n % sections one longer. */
/* np.unstack(a, axis): the a.shape[axis] views a[..., i, ...] (axis removed) into out. */
LOOM_API loom_status_t loom_unstack(loom_ctx_t *ctx, loom_array_t *a, int32_t axis,
                                    loom_array_t **out);
LOOM_API loom_status_t loom_array_split(loom_ctx_t *ctx, loom_array_t *a, int64_t sections,
                                        int32_t axis, int even, loom_array_t **outs);
/* np.tri(N, M, k, dtype): ones at and below the k-th diagonal of an N x M grid (index
 * arithmetic; fuses into its consumer). np.indices(dims, dtype): the (n, *dims) grid of each
 * axis's coordinate. */
LOOM_API loom_array_t *loom_tri(loom_ctx_t *ctx, int64_t n, int64_t m, int64_t k, loom_dtype_t dtype);
LOOM_API loom_array_t *loom_indices(loom_ctx_t *ctx, int32_t n, const int64_t *dims,
                                    loom_dtype_t dtype);
/* np.broadcast_arrays(*arrays): n broadcast views of one shape into outs. */
LOOM_API loom_status_t loom_broadcast_arrays(loom_ctx_t *ctx, int32_t n, loom_array_t *const *in,
                                             loom_array_t **outs);
/* np.ediff1d(a, to_end, to_begin): the differences of the flattened a, with the optional ends
 * (NULL: none, flattened and cast to a's dtype) joined before and after. */
LOOM_API loom_array_t *loom_ediff1d(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *to_begin,
                                    loom_array_t *to_end);
/* np.pad(a, pad_width, mode, constant_values): widths holds (before, after) for each axis;
 * value is constant's constant_values and linear_ramp's end_values on every side. The
 * statistic modes use whole axes; 'empty' pads with zeros (loom has no uninitialised memory).
 * Axes are padded in order, each over the ones padded before it, as NumPy's. */
typedef enum loom_pad_mode {
    LOOM_PAD_CONSTANT,
    LOOM_PAD_EDGE,
    LOOM_PAD_REFLECT,
    LOOM_PAD_SYMMETRIC,
    LOOM_PAD_WRAP,
    LOOM_PAD_MAXIMUM,
    LOOM_PAD_MINIMUM,
    LOOM_PAD_MEAN,
    LOOM_PAD_MEDIAN,
    LOOM_PAD_LINEAR_RAMP,
    LOOM_PAD_EMPTY
} loom_pad_mode_t;
LOOM_API loom_array_t *loom_pad(loom_ctx_t *ctx, loom_array_t *a, const int64_t *widths,
                                loom_pad_mode_t mode, double value);
/* loom_pad with NumPy's per-axis options: values (before, after) for each axis (NULL: 0) are
 * constant_values or end_values; stat_length (before, after) for each axis (NULL, or an entry
 * -1: the whole axis; longer ones are clipped to it) for maximum, minimum, mean and median (a
 * mean or median of integers rounded half to even); odd nonzero: reflect_type='odd' for reflect
 * and symmetric (2 edge - the mirrored value). */
LOOM_API loom_array_t *loom_pad_ex(loom_ctx_t *ctx, loom_array_t *a, const int64_t *widths,
                                   loom_pad_mode_t mode, const double *values,
                                   const int64_t *stat_length, int odd);
/* np.concatenate(arrays, axis): n >= 1 arrays of equal ndim (not 0-d) whose extents agree off
 * the axis; the dtype is their np.result_type. LOOM_AXIS_NONE joins the flattened arrays. */
LOOM_API loom_array_t *loom_concatenate(loom_ctx_t *ctx, int32_t n, loom_array_t *const *arrays,
                                        int32_t axis);
/* np.stack(arrays, axis): n >= 1 arrays of one shape joined along a new axis. */
LOOM_API loom_array_t *loom_stack(loom_ctx_t *ctx, int32_t n, loom_array_t *const *arrays,
                                  int32_t axis);
/* np.hstack / vstack / dstack / column_stack(arrays): n >= 1 arrays made at least 1-, 2-, 3-d
 * (column_stack: 0-d and 1-d ones as columns) and concatenated along axis 1 (0 for 1-D
 * arrays), 0, 2, 1; the dtype is their np.result_type. */
LOOM_API loom_array_t *loom_hstack(loom_ctx_t *ctx, int32_t n, loom_array_t *const *arrays);
LOOM_API loom_array_t *loom_vstack(loom_ctx_t *ctx, int32_t n, loom_array_t *const *arrays);
LOOM_API loom_array_t *loom_dstack(loom_ctx_t *ctx, int32_t n, loom_array_t *const *arrays);
LOOM_API loom_array_t *loom_column_stack(loom_ctx_t *ctx, int32_t n, loom_array_t *const *arrays);
/* np.block(arrays): nested lists of arrays, `depth` lists deep (0: arrays[0] alone), given in
 * pre-order: lens[i] is the length of the i-th of the nlists lists met (the outermost first),
 * and the n arrays are the leaves in order. Arrays get leading 1s up to max(depth, their
 * ndim); the innermost lists join along the last axis, the outermost along axis -depth. An
 * empty list is an error ("List at arrays[0] cannot be empty"), as are mismatched extents. */
LOOM_API loom_array_t *loom_block(loom_ctx_t *ctx, int32_t depth, int32_t nlists,
                                  const int32_t *lens, int32_t n, loom_array_t *const *arrays);
/* np.hsplit / vsplit / dsplit(a, indices_or_sections): np.split along axis 1 (0 for a 1-D a),
 * 0 and 2; a needs at least 1, 2, 3 dimensions. indices NULL: n equal sections into outs[0..n),
 * else n split points into outs[0..n]. Views; returns the status. */
LOOM_API loom_status_t loom_hsplit(loom_ctx_t *ctx, loom_array_t *a, int32_t n,
                                   const int64_t *indices, loom_array_t **outs);
LOOM_API loom_status_t loom_vsplit(loom_ctx_t *ctx, loom_array_t *a, int32_t n,
                                   const int64_t *indices, loom_array_t **outs);
LOOM_API loom_status_t loom_dsplit(loom_ctx_t *ctx, loom_array_t *a, int32_t n,
                                   const int64_t *indices, loom_array_t **outs);
/* np.fliplr (axis 1 reversed; at least 2-d) and np.flipud (axis 0; at least 1-d): views. */
LOOM_API loom_array_t *loom_fliplr(loom_ctx_t *ctx, loom_array_t *a);
LOOM_API loom_array_t *loom_flipud(loom_ctx_t *ctx, loom_array_t *a);
/* np.rollaxis(a, axis, start): the axis moved to lie before `start` (-ndim <= start <= ndim;
 * NumPy's AxisError text otherwise). A view. */
LOOM_API loom_array_t *loom_rollaxis(loom_ctx_t *ctx, loom_array_t *a, int32_t axis, int32_t start);
/* np.append(arr, values, axis): concatenated along the axis; LOOM_AXIS_NONE joins both
 * flattened. */
LOOM_API loom_array_t *loom_append(loom_ctx_t *ctx, loom_array_t *arr, loom_array_t *values,
                                   int32_t axis);
/* np.insert(arr, obj, values, axis) (LOOM_AXIS_NONE: into the flattened arr), values cast to
 * arr's dtype. _index: obj one integer (-n <= index <= n; values' first axis becomes the
 * insertion axis); _slice: obj a slice (LOOM_NONE bounds as loom_slice's); loom_insert: obj an
 * integer array of at most 1 dimension (NumPy 2's rules: negative indices count from the end,
 * each lands before the old element it names, out-of-range ones raise when evaluated) or a 1-D
 * bool mask (its true positions; one sync). An obj of one element takes NumPy's one-index path
 * (its value read back: one sync). */
LOOM_API loom_array_t *loom_insert(loom_ctx_t *ctx, loom_array_t *arr, loom_array_t *obj,
                                   loom_array_t *values, int32_t axis);
LOOM_API loom_array_t *loom_insert_index(loom_ctx_t *ctx, loom_array_t *arr, int64_t index,
                                         loom_array_t *values, int32_t axis);
LOOM_API loom_array_t *loom_insert_slice(loom_ctx_t *ctx, loom_array_t *arr, int64_t start,
                                         int64_t stop, int64_t step, loom_array_t *values,
                                         int32_t axis);
/* np.delete(arr, obj, axis) (LOOM_AXIS_NONE: from the flattened arr). _index: one integer
 * (-n <= index < n, else INDEX_ERROR); _slice: a slice; loom_delete: an integer array of any
 * shape (out-of-range indices raise when evaluated) or a bool mask of the axis's length, the
 * result's length read back (one sync). */
LOOM_API loom_array_t *loom_delete(loom_ctx_t *ctx, loom_array_t *arr, loom_array_t *obj,
                                   int32_t axis);
LOOM_API loom_array_t *loom_delete_index(loom_ctx_t *ctx, loom_array_t *arr, int64_t index,
                                         int32_t axis);
LOOM_API loom_array_t *loom_delete_slice(loom_ctx_t *ctx, loom_array_t *arr, int64_t start,
                                         int64_t stop, int64_t step, int32_t axis);
/* np.resize(a, new_shape): the flattened a repeated to fill the shape (an empty a or shape:
 * zeros). */
LOOM_API loom_array_t *loom_resize(loom_ctx_t *ctx, loom_array_t *a, int32_t ndim,
                                   const int64_t *shape);
/* What loom_trim_zeros() trims: NumPy's trim='f', 'b' and 'fb' (both bits). */
#define LOOM_TRIM_FRONT 1
#define LOOM_TRIM_BACK  2
/* np.trim_zeros(a, trim, axis): a view of a without its leading/trailing zeros: the bounding
 * box of the nonzero elements on the given axes (axes NULL: all); all zero: those axes empty.
 * The bounds are read back (one sync). */
LOOM_API loom_array_t *loom_trim_zeros(loom_ctx_t *ctx, loom_array_t *a, int trim, int32_t naxes,
                                       const int32_t *axes);
/* np.diagflat(v, k): the flattened v on the k-th diagonal of a square zero matrix. */
LOOM_API loom_array_t *loom_diagflat(loom_ctx_t *ctx, loom_array_t *v, int64_t k);
/* np.identity(n, dtype): the n x n identity matrix (loom_eye). */
LOOM_API loom_array_t *loom_identity(loom_ctx_t *ctx, int64_t n, loom_dtype_t dtype);

/* ---- Gathers ----------------------------------------------------------------------------
 * Indices are arrays of any integer dtype or bool (read as 0 and 1); a float index array is a
 * DTYPE_ERROR. An index outside its axis is INDEX_ERROR, found where the values are: the CPU
 * device names the index, axis and size as NumPy does ("index 7 is out of bounds for axis 0
 * with size 5"), when the eval runs. */

/* What loom_take() does with an index outside [-n, n) of an axis of extent n: NumPy's mode=
 * "raise" (the error above; negative indices count from the end), "wrap" (modulo n) and "clip"
 * (to [0, n - 1]: negative indices become 0). */
typedef enum loom_take_mode { LOOM_TAKE_RAISE, LOOM_TAKE_WRAP, LOOM_TAKE_CLIP } loom_take_mode_t;

/* np.take(a, indices, axis, mode): the elements of a at indices along axis (LOOM_AXIS_NONE:
 * of the flattened a). The result's shape is a's with that axis replaced by indices' shape.
 * A non-empty take from an empty axis is INDEX_ERROR in every mode. */
LOOM_API loom_array_t *loom_take(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *indices,
                                 int32_t axis, loom_take_mode_t mode);
/* np.take_along_axis(a, indices, axis): indices has a's ndim; off the axis the two broadcast,
 * and result[..., i, ...] = a[..., indices[..., i, ...], ...]. LOOM_AXIS_NONE: the flattened a
 * with 1-D indices. Out-of-range indices raise. */
LOOM_API loom_array_t *loom_take_along_axis(loom_ctx_t *ctx, loom_array_t *a,
                                            loom_array_t *indices, int32_t axis);
/* NumPy's advanced indexing with n integer arrays: a[..., indices[0], ..., indices[1], ...] with
 * indices[t] on axis axes[t] (distinct). The arrays broadcast together to a shape B; the result
 * is a's other axes, in order, with B's axes inserted at position dest (0 <= dest <= a's ndim
 * - n). NumPy puts B where the first indexed axis was when the indexed axes are adjacent, and
 * first otherwise: x[:, i, j] is dest 1, x[i, :, j] is dest 0. Out-of-range indices raise. */
LOOM_API loom_array_t *loom_gather(loom_ctx_t *ctx, loom_array_t *a, int32_t n,
                                   const int32_t *axes, loom_array_t *const *indices,
                                   int32_t dest);

/* ---- Scatters as values ---------------------------------------------------------------------
 * Arrays are immutable: these return a new array, a with some elements replaced or combined.
 * Duplicated indices: LOOM_AT_SET keeps the last write in C order of the indices (what NumPy's
 * x[idx] = v leaves); LOOM_AT_ADD/MIN/MAX combine every duplicate in that order (NumPy's
 * np.add.at, np.minimum.at, np.maximum.at; JAX's x.at[idx].add), so float sums are the same
 * bits on every run. Values broadcast to the selection and are cast to a's dtype (set: any
 * cast; add/min/max: NumPy's same_kind rule). */
typedef enum loom_at_op { LOOM_AT_SET, LOOM_AT_ADD, LOOM_AT_MIN, LOOM_AT_MAX } loom_at_op_t;

/* a with a[..., indices[0], ..., indices[1], ...] (integer arrays on axes, as loom_gather
 * selects them, NumPy's placement) set to or combined with values. */
LOOM_API loom_array_t *loom_at(loom_ctx_t *ctx, loom_array_t *a, int32_t n, const int32_t *axes,
                               loom_array_t *const *indices, loom_array_t *values,
                               loom_at_op_t op);
/* np.put(a, indices, values, mode): flat indices (take's modes); values repeat to the number of
 * indices; empty values leave a as it is. Values cast to a's dtype: an array by any rule, a weak
 * scalar by its value (complex into a real dtype: DTYPE_ERROR; an integer a's dtype cannot
 * hold: OVERFLOW), as NumPy's put, put_along_axis, place and putmask convert them. */
LOOM_API loom_array_t *loom_put(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *indices,
                                loom_array_t *values, loom_take_mode_t mode);
/* np.put_along_axis(a, indices, values, axis): the positions take_along_axis reads. */
LOOM_API loom_array_t *loom_put_along_axis(loom_ctx_t *ctx, loom_array_t *a,
                                           loom_array_t *indices, loom_array_t *values,
                                           int32_t axis);
/* np.place(a, mask, values): the elements where the mask (a's size) is true take the values in
 * order, repeated as needed; an array of values (not 0-d) must cast to a's dtype by 'safe'
 * (DTYPE_ERROR). Data-dependent (one sync for the count). */
LOOM_API loom_array_t *loom_place(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *mask,
                                  loom_array_t *values);
/* np.bincount(x, weights, minlength): x 1-D non-negative integers; int64 counts, or float64
 * sums of the weights. The length depends on max(x): one sync. */
LOOM_API loom_array_t *loom_bincount(loom_ctx_t *ctx, loom_array_t *x, loom_array_t *weights,
                                     int64_t minlength);
/* np.histogram(a, bins, range, weights): `bins` equal bins over [lo, hi] (both NaN: the data's
 * min and max, one sync), or the 1-D `edges` (bins ignored); the last bin includes its right
 * edge; values outside are not counted. *hist: int64 counts (float weights: their sums);
 * *bin_edges (may be NULL): the edges (float64, or a's float dtype). */
LOOM_API loom_status_t loom_histogram(loom_ctx_t *ctx, loom_array_t *a, int64_t bins,
                                      loom_array_t *edges, double lo, double hi,
                                      loom_array_t *weights, loom_array_t **hist,
                                      loom_array_t **bin_edges);
/* np.histogram(..., density=True) from loom_histogram's results: hist / diff(bin_edges) /
 * sum(hist), NumPy's order, in float64 (NaN where the sum is 0, as NumPy's). */
LOOM_API loom_array_t *loom_histogram_density(loom_ctx_t *ctx, loom_array_t *hist,
                                              loom_array_t *bin_edges);
/* np.histogram_bin_edges(a, bins, range, weights): loom_histogram's bin_edges alone (the same
 * arguments and sync). */
LOOM_API loom_array_t *loom_histogram_bin_edges(loom_ctx_t *ctx, loom_array_t *a, int64_t bins,
                                                loom_array_t *edges, double lo, double hi,
                                                loom_array_t *weights);
/* NumPy's bin estimators (bins='auto', 'fd', 'doane', 'scott', 'rice', 'sturges', 'sqrt';
 * 'stone' is NOT_AVAILABLE): the number of equal bins for the flattened a into *bins, and the
 * outer edges into *lo and *hi, which give the range when they are not NaN (then the values
 * inside it are the data, as NumPy takes them; a sync for their count) and receive the data's
 * otherwise (equal ends widened by 0.5). One sync for the statistics; computed in double (NumPy
 * computes float32 data's in float32), so a width at a bin boundary may round apart. Pass the
 * results to loom_histogram as bins, lo and hi. */
LOOM_API loom_status_t loom_histogram_bin_count(loom_ctx_t *ctx, loom_array_t *a,
                                                const char *estimator, double *lo, double *hi,
                                                int64_t *bins);
/* np.histogramdd(sample, bins, range, density, weights): sample (N, d) holds N points; axis i
 * has bins[i] equal bins over [lo[i], hi[i]] (lo or hi NULL or NaN: the data's, one sync for
 * all such axes), or the 1-D edges[i] when edges and edges[i] are not NULL (used as they are).
 * A point's bin on an axis is the last edge at or below it (the last edge itself: the last
 * bin); points outside any axis's edges are not counted. *hist: float64, d axes of the bins
 * (density: divided by each axis's widths, then by the total, NumPy's order); bin_edges (NULL:
 * not wanted) receives d arrays (computed from float data: in its dtype, as NumPy's linspace of
 * its min and max makes them; else float64). np.histogram2d is d = 2. */
LOOM_API loom_status_t loom_histogramdd(loom_ctx_t *ctx, loom_array_t *sample, int32_t d,
                                        const int64_t *bins, loom_array_t *const *edges,
                                        const double *lo, const double *hi, loom_array_t *weights,
                                        int density, loom_array_t **hist, loom_array_t **bin_edges);
/* NumPy's in-place updates as values (a itself is left as it is; the expression language
 * returns the result, Python's loom.numpy rebinds its first argument to it, as x[k] = v does):
 * np.putmask(a, mask, values): where the mask (a's size) is true, flat element i takes
 * values[i % len(values)] (values repeat over all of a, as NumPy's), cast to a's dtype as
 * place's are; empty values change nothing. */
LOOM_API loom_array_t *loom_putmask(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *mask,
                                    loom_array_t *values);
/* np.copyto(dst, src, casting, where): src broadcast to dst's shape and cast to its dtype
 * (refused by the casting rule: DTYPE_ERROR with NumPy's message; a weak scalar is judged by
 * its kind, as NumPy 2 does, except that 'no' puts a bool only into bool and 'equiv' wants
 * its own dtype: int64, float64, complex128 or bool), where the bool `where` (broadcast; NULL:
 * everywhere) holds, dst elsewhere. */
LOOM_API loom_array_t *loom_copyto(loom_ctx_t *ctx, loom_array_t *dst, loom_array_t *src,
                                   loom_casting_t casting, loom_array_t *where);
/* np.fill_diagonal(a, val, wrap): a (2-d, or n-d with equal extents) with its main diagonal
 * set to val's elements in order, repeated (any cast); a tall 2-d a goes on below the square
 * (every ncols + 1 flat elements) when wrap, as NumPy's. */
LOOM_API loom_array_t *loom_fill_diagonal(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *val,
                                          int wrap);

/* ---- Index helpers (int64 results) ---------------------------------------------------------
 * np.unravel_index(indices, dims, order): n arrays of indices' shape into outs, the
 * coordinates of each flat index in an array of shape dims (C order, or Fortran's when
 * order_f). Integer indices (else DTYPE_ERROR); one outside [0, size) is INVALID_ARGUMENT,
 * NumPy's "index 10 is out of bounds for array with size 6" (one sync reads the extremes). */
LOOM_API loom_status_t loom_unravel_index(loom_ctx_t *ctx, loom_array_t *indices, int32_t n,
                                          const int64_t *dims, int order_f, loom_array_t **outs);
/* np.ravel_multi_index(multi_index, dims, mode, order): the flat index of the n broadcast
 * integer coordinate arrays; modes (NULL: all raise) per axis as take's: "raise" refuses a
 * coordinate outside [0, dims[i]) with NumPy's "invalid entry in coordinates array" (one sync),
 * wrap and clip bring it in. */
LOOM_API loom_array_t *loom_ravel_multi_index(loom_ctx_t *ctx, int32_t n,
                                              loom_array_t *const *multi_index, const int64_t *dims,
                                              const loom_take_mode_t *modes, int order_f);
/* np.tril_indices(n, k, m) / np.triu_indices(n, k, m) (m LOOM_NONE: n): the row and column
 * indices (outs[0], outs[1]) of the n x m grid's elements at and below (above) the k-th
 * diagonal, in C order: nonzero of tri, its size from n, m and k, so no sync. */
LOOM_API loom_status_t loom_tril_indices(loom_ctx_t *ctx, int64_t n, int64_t k, int64_t m,
                                         loom_array_t **outs);
LOOM_API loom_status_t loom_triu_indices(loom_ctx_t *ctx, int64_t n, int64_t k, int64_t m,
                                         loom_array_t **outs);
/* np.diag_indices(n, ndim): ndim times arange(n) into outs. */
LOOM_API loom_status_t loom_diag_indices(loom_ctx_t *ctx, int64_t n, int32_t ndim,
                                         loom_array_t **outs);
/* np.ix_(*arrays): each 1-d array k reshaped to extent 1 on every axis but k (n axes); a bool
 * one becomes its nonzero positions first (one sync each), as NumPy's. */
LOOM_API loom_status_t loom_ix(loom_ctx_t *ctx, int32_t n, loom_array_t *const *arrays,
                               loom_array_t **outs);
/* np.setxor1d(a, b, assume_unique): the sorted values in exactly one of the flattened a and b
 * (assume_unique: NumPy's formula without the unique step, so duplicates that are there count
 * as NumPy's do). Syncs: each unique, and the count. */
LOOM_API loom_array_t *loom_setxor1d(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b,
                                     int assume_unique);

/* ---- Masks and data-dependent shapes ------------------------------------------------------
 * The result's shape depends on the values: these builders evaluate the number of true
 * (nonzero) elements at once and read it back (one sync with the device; it costs an eval of
 * what the mask needs), and the graph stays lazy after that. The _sized forms take the length
 * instead (JAX's size= and fill_value=): no sync; missing positions read fill_value, and
 * positions past size are dropped. */

/* np.count_nonzero(a, axis, keepdims): int64 counts; lazy (no sync). Axes as loom_sum. */
LOOM_API loom_array_t *loom_count_nonzero(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                          const int32_t *axes, int keepdims);
/* np.flatnonzero(a): int64 positions in the flattened a of its nonzero elements. */
LOOM_API loom_array_t *loom_flatnonzero(loom_ctx_t *ctx, loom_array_t *a);
LOOM_API loom_array_t *loom_flatnonzero_sized(loom_ctx_t *ctx, loom_array_t *a, int64_t size,
                                              int64_t fill_value);
/* np.nonzero(a) (also np.where(a) with one argument): one int64 array per axis of a (n_out
 * >= a's ndim; outs[0..ndim-1] are set). A 0-d a is refused, as in NumPy 2. */
LOOM_API loom_status_t loom_nonzero(loom_ctx_t *ctx, loom_array_t *a, int32_t n_out,
                                    loom_array_t **outs);
LOOM_API loom_status_t loom_nonzero_sized(loom_ctx_t *ctx, loom_array_t *a, int64_t size,
                                          int64_t fill_value, int32_t n_out, loom_array_t **outs);
/* np.argwhere(a): (count, ndim) int64. */
LOOM_API loom_array_t *loom_argwhere(loom_ctx_t *ctx, loom_array_t *a);
/* np.compress(condition, a, axis): the slices of a along axis (LOOM_AXIS_NONE: of the flattened
 * a) where the 1-D condition is true. A condition longer than the axis is an INDEX_ERROR where
 * it is true past the end. */
LOOM_API loom_array_t *loom_compress(loom_ctx_t *ctx, loom_array_t *condition, loom_array_t *a,
                                     int32_t axis);
/* np.extract(condition, a): the elements of the flattened a where the flattened condition is
 * true. */
LOOM_API loom_array_t *loom_extract(loom_ctx_t *ctx, loom_array_t *condition, loom_array_t *a);
/* a[..., mask, ...]: a bool mask of k axes matching a's axes axis .. axis + k - 1 selects along
 * them; they become one axis of the count. (a[mask] is axis 0; a 0-d mask there adds an axis of
 * extent 1 or 0, as NumPy's does.) */
LOOM_API loom_array_t *loom_boolean_index(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *mask,
                                          int32_t axis);

/* ---- Sorting ---------------------------------------------------------------------------
 * Stable, in NumPy's order: NaN after everything else, -0.0 and 0.0 equal (so they keep their
 * order), bool false before true. LOOM_AXIS_NONE sorts the flattened array. */

/* np.sort(a, axis) (kind='stable'): the sorted values, as they were (bits kept). */
LOOM_API loom_array_t *loom_sort(loom_ctx_t *ctx, loom_array_t *a, int32_t axis);
/* np.argsort(a, axis, kind='stable'): int64 positions along the axis that sort it. */
LOOM_API loom_array_t *loom_argsort(loom_ctx_t *ctx, loom_array_t *a, int32_t axis);
/* np.sort_complex(a): sorted along the last axis (complex: NumPy's lexicographic order), as
 * complex64 for 8- and 16-bit integers and complex128 for other real dtypes. */
LOOM_API loom_array_t *loom_sort_complex(loom_ctx_t *ctx, loom_array_t *a);
/* np.searchsorted(a, v, side, sorter): for each element of v, where it goes in the 1-D a
 * (sorted, or sorted by the int64 permutation sorter): right 0 is side='left' (before equal
 * elements), 1 side='right'. int64 of v's shape; a and v compare in their common dtype. */
LOOM_API loom_array_t *loom_searchsorted(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *v,
                                         int right, loom_array_t *sorter);
/* np.unique(a) over the flattened a (NumPy 2): the sorted distinct values, and where wanted
 * (NULL: not computed) the position of each one's first occurrence (return_index), the
 * group of every element of a in a's shape (return_inverse) and the counts. NaNs are one value
 * when equal_nan (NumPy's default). The number of values is data-dependent: one sync. The Array
 * API's unique_all/counts/inverse/values are this call with the outputs they name. */
LOOM_API loom_status_t loom_unique(loom_ctx_t *ctx, loom_array_t *a, int equal_nan,
                                   loom_array_t **values, loom_array_t **index,
                                   loom_array_t **inverse, loom_array_t **counts);
/* np.unique(a, axis=axis): the distinct slices along the axis (rows when moved first),
 * sorted lexicographically (NaN last in each position, as loom_lexsort orders); index, inverse
 * (1-D, one group per slice) and counts as loom_unique's. LOOM_AXIS_NONE: loom_unique. */
LOOM_API loom_status_t loom_unique_axis(loom_ctx_t *ctx, loom_array_t *a, int32_t axis,
                                        int equal_nan, loom_array_t **values,
                                        loom_array_t **index, loom_array_t **inverse,
                                        loom_array_t **counts);
/* np.isin(element, test_elements, invert): bool of element's shape (NaN is never found). */
LOOM_API loom_array_t *loom_isin(loom_ctx_t *ctx, loom_array_t *element,
                                 loom_array_t *test_elements, int invert);
/* np.lexsort(keys, axis): int64 positions sorting by the n keys (one shape), the last key
 * primary, each tie broken by the key before it, then by position. */
LOOM_API loom_array_t *loom_lexsort(loom_ctx_t *ctx, int32_t n, loom_array_t *const *keys,
                                    int32_t axis);
/* np.partition / np.argpartition(a, kth, axis): the element at kth is the one a sort puts
 * there, no larger one before it and no smaller one after. loom returns the fully sorted
 * arrangement (one valid answer; NumPy's introselect may order the sides differently), so
 * compare results by that property, not element by element. */
LOOM_API loom_array_t *loom_partition(loom_ctx_t *ctx, loom_array_t *a, int64_t kth,
                                      int32_t axis);
LOOM_API loom_array_t *loom_argpartition(loom_ctx_t *ctx, loom_array_t *a, int64_t kth,
                                         int32_t axis);
/* The k largest elements along axis, largest first, and their int64 positions (JAX's top_k):
 * NaN counts as the largest value; equal values come lowest position first. */
LOOM_API loom_status_t loom_top_k(loom_ctx_t *ctx, loom_array_t *a, int64_t k, int32_t axis,
                                  loom_array_t **values, loom_array_t **indices);
/* np.choose(a, choices, mode): a (integers) and the n choices broadcast together; each element
 * comes from the choice a names there (take's modes). */
LOOM_API loom_array_t *loom_choose(loom_ctx_t *ctx, loom_array_t *a, int32_t n,
                                   loom_array_t *const *choices, loom_take_mode_t mode);
/* np.intersect1d, np.union1d, np.setdiff1d: sorted unique values (flattened inputs). */
LOOM_API loom_array_t *loom_intersect1d(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b);
LOOM_API loom_array_t *loom_union1d(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b);
LOOM_API loom_array_t *loom_setdiff1d(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b);

/* Reductions over the naxes axes given (naxes < 0 or axes NULL: all axes, NumPy's axis=None;
 * naxes 0 with axes given: none, axis=()). keepdims keeps the reduced axes with extent 1.
 * Result dtypes are NumPy 2's: sum/prod of bool and signed ints -> int64, of unsigned ints ->
 * uint64, floats keep theirs (float16/bfloat16 accumulate in float32); float sums are pairwise
 * like NumPy's, so results match NumPy within float rounding, ints exactly. Empty: sum 0,
 * prod 1. */
LOOM_API loom_array_t *loom_sum(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                const int32_t *axes, int keepdims);
LOOM_API loom_array_t *loom_prod(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                 const int32_t *axes, int keepdims);
/* np.mean: ints and bool -> float64; float16/bfloat16 summed in float32; empty -> NaN. */
LOOM_API loom_array_t *loom_mean(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                 const int32_t *axes, int keepdims);
/* np.max / np.min (amax, amin): the dtype kept, NaN propagates. An empty reduction is an error
 * ("zero-size array to reduction operation maximum which has no identity"). */
LOOM_API loom_array_t *loom_max(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                const int32_t *axes, int keepdims);
LOOM_API loom_array_t *loom_min(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                const int32_t *axes, int keepdims);
/* np.argmax / np.argmin: int64 index of the first extreme (the first NaN wins) along one axis
 * (naxes 1) or in the flattened array (all axes). Empty: an error, as NumPy. */
LOOM_API loom_array_t *loom_argmax(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                   const int32_t *axes, int keepdims);
LOOM_API loom_array_t *loom_argmin(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                   const int32_t *axes, int keepdims);
/* np.einsum(subscripts, *operands): "ij,jk->ik", implicit outputs ("ij,jk": the labels seen
 * once, in ASCII order), "..." for broadcast axes, repeated labels in an operand (diagonals),
 * up to 16 operands; the result dtype is NumPy's result_type of the operands. Contractions are
 * matrix products (cuBLAS on the GPU), outer products broadcast multiplies that fuse; optimize
 * nonzero orders them greedily by result size (NumPy's 'greedy'), zero left to right. */
LOOM_API loom_array_t *loom_einsum(loom_ctx_t *ctx, const char *subscripts, int32_t n,
                                   loom_array_t *const *operands, int optimize);
/* np.nanargmax / np.nanargmin: argmax / argmin ignoring NaN; a slice of only NaN is an error
 * ("All-NaN slice encountered", found by evaluating that condition: a sync). */
LOOM_API loom_array_t *loom_nanargmax(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                      const int32_t *axes, int keepdims);
LOOM_API loom_array_t *loom_nanargmin(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                      const int32_t *axes, int keepdims);
/* np.nansum / nanprod / nanmax / nanmin / nanmean (and nanvar / nanstd below): NaN elements
 * ignored (an all-NaN slice gives NaN, as NumPy's does, without its warning); for integer and
 * bool arrays, the plain reductions. np.ptp: max minus min. */
LOOM_API loom_array_t *loom_nansum(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                   const int32_t *axes, int keepdims);
LOOM_API loom_array_t *loom_nanprod(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                    const int32_t *axes, int keepdims);
LOOM_API loom_array_t *loom_nanmax(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                   const int32_t *axes, int keepdims);
LOOM_API loom_array_t *loom_nanmin(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                   const int32_t *axes, int keepdims);
LOOM_API loom_array_t *loom_nanmean(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                    const int32_t *axes, int keepdims);
LOOM_API loom_array_t *loom_nanvar(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                   const int32_t *axes, int keepdims, double ddof);
LOOM_API loom_array_t *loom_nanstd(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                   const int32_t *axes, int keepdims, double ddof);
LOOM_API loom_array_t *loom_ptp(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                const int32_t *axes, int keepdims);
/* The methods of np.quantile and np.percentile (NumPy 2's names, default linear). */
typedef enum loom_quantile_method {
    LOOM_QUANTILE_LINEAR,
    LOOM_QUANTILE_INVERTED_CDF,
    LOOM_QUANTILE_AVERAGED_INVERTED_CDF,
    LOOM_QUANTILE_CLOSEST_OBSERVATION,
    LOOM_QUANTILE_INTERPOLATED_INVERTED_CDF,
    LOOM_QUANTILE_HAZEN,
    LOOM_QUANTILE_WEIBULL,
    LOOM_QUANTILE_MEDIAN_UNBIASED,
    LOOM_QUANTILE_NORMAL_UNBIASED,
    LOOM_QUANTILE_LOWER,
    LOOM_QUANTILE_HIGHER,
    LOOM_QUANTILE_MIDPOINT,
    LOOM_QUANTILE_NEAREST
} loom_quantile_method_t;
/* np.median(a, axis, keepdims): the middle of a sort along the axis (the mean of the middle
 * two for an even count; NaN where a slice holds one). LOOM_AXIS_NONE: the flattened a. An
 * empty a gives NumPy's mean of it: NaN of the reduced shape (loom_nanmedian and
 * loom_nanquantile give loom_nanmean's, as NumPy's do). The expression language takes a tuple
 * of axes for these four (the axes merged into one: moved last, then reshaped). */
LOOM_API loom_array_t *loom_median(loom_ctx_t *ctx, loom_array_t *a, int32_t axis, int keepdims);
/* np.quantile(a, q, axis, method=, keepdims=) for one q in [0, 1] (np.percentile: q / 100):
 * NumPy's index and interpolation rules of each method over a sort along the axis; the
 * discrete methods keep a's dtype, the others give floats as NumPy's (float64 for integers). */
LOOM_API loom_array_t *loom_quantile(loom_ctx_t *ctx, loom_array_t *a, double q, int32_t axis,
                                     loom_quantile_method_t method, int keepdims);
/* np.nanmedian / np.nanquantile (nanpercentile: q / 100): the same statistics of each slice's
 * non-NaN values (an all-NaN slice gives NaN, without NumPy's warning); integer arrays: the
 * plain functions. */
LOOM_API loom_array_t *loom_nanmedian(loom_ctx_t *ctx, loom_array_t *a, int32_t axis,
                                      int keepdims);
LOOM_API loom_array_t *loom_nanquantile(loom_ctx_t *ctx, loom_array_t *a, double q, int32_t axis,
                                        loom_quantile_method_t method, int keepdims);
/* np.average(a, axis, weights, keepdims): the weights' mean of a (weights of a's shape, or 1-D
 * along the axis; NULL: loom_mean), in NumPy's dtype; weights summing to zero are refused (one
 * sync to look). sum_weights (NULL: not wanted) gets their sum, as returned=True does. */
LOOM_API loom_array_t *loom_average(loom_ctx_t *ctx, loom_array_t *a, int32_t axis,
                                    loom_array_t *weights, int keepdims, loom_array_t **sum_weights);
/* np.cov(m, y, rowvar, bias, ddof) (ddof NaN: NumPy's None, 1 or 0 with bias) for 1-D or 2-D
 * operands without weights: the centred product over n - ddof, in float64 at least; and
 * np.corrcoef(m, y, rowvar): it normalised by the standard deviations, clipped to [-1, 1]. */
LOOM_API loom_array_t *loom_cov(loom_ctx_t *ctx, loom_array_t *m, loom_array_t *y, int rowvar,
                                int bias, double ddof);
LOOM_API loom_array_t *loom_corrcoef(loom_ctx_t *ctx, loom_array_t *m, loom_array_t *y,
                                     int rowvar);
/* np.cumulative_sum / cumulative_prod (NumPy 2.1): cumsum/cumprod along the axis
 * (LOOM_AXIS_NONE only for 1-D arrays), with the identity first when include_initial. */
LOOM_API loom_array_t *loom_cumulative_sum(loom_ctx_t *ctx, loom_array_t *a, int32_t axis,
                                           int include_initial);
LOOM_API loom_array_t *loom_cumulative_prod(loom_ctx_t *ctx, loom_array_t *a, int32_t axis,
                                            int include_initial);
/* np.nancumsum / nancumprod: NaN elements count as 0 / 1. */
LOOM_API loom_array_t *loom_nancumsum(loom_ctx_t *ctx, loom_array_t *a, int32_t axis);
LOOM_API loom_array_t *loom_nancumprod(loom_ctx_t *ctx, loom_array_t *a, int32_t axis);
/* np.isclose(a, b, rtol, atol, equal_nan): NumPy 2's test, |a - b| <= atol + rtol |b| for
 * finite b, or a == b (b taken as a float); bool of the broadcast shape. */
LOOM_API loom_array_t *loom_isclose(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b, double rtol,
                                    double atol, int equal_nan);
/* np.packbits(a, axis, bitorder): the elements of an integer or bool array as bits (nonzero:
 * 1), 8 to a uint8 along axis (LOOM_AXIS_NONE: the flattened array), the last byte padded
 * with zeros; little: the first element in the least significant bit. np.unpackbits(a, axis,
 * count, bitorder): the bits of a uint8 array, 8 an element along axis; count (LOOM_NONE: all)
 * keeps the first count bits, pads with zeros past them, or drops -count from the end. */
LOOM_API loom_array_t *loom_packbits(loom_ctx_t *ctx, loom_array_t *a, int32_t axis, int little);
LOOM_API loom_array_t *loom_unpackbits(loom_ctx_t *ctx, loom_array_t *a, int32_t axis,
                                       int64_t count, int little);
/* np.allclose: all(isclose(...)) as a 0-d bool array (NumPy returns a Python bool: the value
 * is read when used as one). np.array_equal(a, b, equal_nan): equal shapes and elements;
 * np.array_equiv(a, b): shapes that broadcast and equal elements; both 0-d bool, False (not an
 * error) for shapes that do not match. */
LOOM_API loom_array_t *loom_allclose(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b,
                                     double rtol, double atol, int equal_nan);
LOOM_API loom_array_t *loom_array_equal(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b,
                                        int equal_nan);
LOOM_API loom_array_t *loom_array_equiv(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b);
/* np.nan_to_num(a, nan, posinf, neginf): NaN and the infinities replaced (posinf/neginf NaN:
 * the dtype's largest / smallest finite values, NumPy's default); integers unchanged. */
LOOM_API loom_array_t *loom_nan_to_num(loom_ctx_t *ctx, loom_array_t *a, double nan, double posinf,
                                       double neginf);
/* np.any / np.all: bool results (NaN counts as true); empty: False / True. */
LOOM_API loom_array_t *loom_any(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                const int32_t *axes, int keepdims);
LOOM_API loom_array_t *loom_all(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                const int32_t *axes, int keepdims);
/* np.var / np.std with ddof (divisor max(N - ddof, 0)): dtypes as loom_mean; float16 and
 * bfloat16 are computed in float32 (NumPy computes them in float16) and rounded once. */
LOOM_API loom_array_t *loom_var(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                const int32_t *axes, int keepdims, double ddof);
LOOM_API loom_array_t *loom_std(loom_ctx_t *ctx, loom_array_t *a, int32_t naxes,
                                const int32_t *axes, int keepdims, double ddof);
/* np.cumsum / np.cumprod along one axis (LOOM_AXIS_NONE: of the flattened array, as NumPy's
 * default); dtypes as loom_sum; accumulated in order in the result dtype, as NumPy does. */
LOOM_API loom_array_t *loom_cumsum(loom_ctx_t *ctx, loom_array_t *a, int32_t axis);
LOOM_API loom_array_t *loom_cumprod(loom_ctx_t *ctx, loom_array_t *a, int32_t axis);

/* ---- Matrix products ------------------------------------------------------------------ */

/* np.matmul(a, b) (the `@` operator): a 1-D operand is promoted to a matrix and the added axis
 * removed from the result; batch axes broadcast; the dtype is np.result_type(a, b) (bool: or of
 * ands; ints wrap; float16/bfloat16 accumulate in float32). 0-d operands and weak scalars are
 * refused as NumPy refuses them; mismatched shapes give SHAPE_MISMATCH with NumPy's message. */
LOOM_API loom_array_t *loom_matmul(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b);
/* np.dot(a, b): a 0-d operand multiplies; 1-D and 2-D operands as matmul; N-D sums over a's
 * last axis and b's second-to-last (result a[:-1] + b[:-2] + b[-1:]). Weak scalars count as
 * their default dtype (int64, float64, bool), as np.dot sees a Python number. Nil on error. */
LOOM_API loom_array_t *loom_dot(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b);
/* np.matvec(a, v) and np.vecmat(v, a) (NumPy 2.2): matrix-vector and vector-matrix products
 * over the last axes, the other axes broadcast; vecmat conjugates v. */
LOOM_API loom_array_t *loom_matvec(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *v);
LOOM_API loom_array_t *loom_vecmat(loom_ctx_t *ctx, loom_array_t *v, loom_array_t *a);
/* np.tensordot(a, b, naxes): sums over a's last naxes axes and b's first naxes axes (which must
 * match); result a[:-naxes] + b[naxes:] (naxes 0: the outer product). Nil on error. */
LOOM_API loom_array_t *loom_tensordot(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b,
                                      int32_t naxes);

/* ---- numpy.linalg: norms and products ------------------------------------------------- */

/* The order of a norm: LOOM_NORM_ORD takes the number given with it (p; 0; +-INFINITY);
 * LOOM_NORM_DEFAULT is NumPy's ord=None (the 2-norm of vectors, Frobenius of matrices; of the
 * flattened array when no axis is given); FRO and NUC are 'fro' and 'nuc'. */
typedef enum loom_norm {
    LOOM_NORM_ORD = 0,
    LOOM_NORM_DEFAULT,
    LOOM_NORM_FRO,
    LOOM_NORM_NUC
} loom_norm_t;
/* np.linalg.norm(x, ord, axis, keepdims): one axis a vector norm, two a matrix norm, none the
 * whole array (a 1-D or 2-D one when an order is given). Integers compute in float64. The
 * matrix norms 2, -2 and 'nuc' come from the singular values (loom_svdvals). */
LOOM_API loom_array_t *loom_norm(loom_ctx_t *ctx, loom_array_t *x, loom_norm_t kind, double ord,
                                 int32_t naxes, const int32_t *axes, int keepdims);
/* The Array API's vector_norm over the given axes (naxes -1 or axes NULL: all), ord a number
 * (2 the Euclidean norm; +-INFINITY; 0 the count of non-zeros). */
LOOM_API loom_array_t *loom_vector_norm(loom_ctx_t *ctx, loom_array_t *x, int32_t naxes,
                                        const int32_t *axes, int keepdims, double ord);
/* The Array API's matrix_norm over the last two axes: 'fro' (DEFAULT or FRO), or ORD 1, -1,
 * +-INFINITY. */
LOOM_API loom_array_t *loom_matrix_norm(loom_ctx_t *ctx, loom_array_t *x, int keepdims,
                                        loom_norm_t kind, double ord);
/* np.cross(a, b, axis=axis): 3-vectors (or NumPy's 2-vectors, a missing third component 0; two
 * 2-vectors give the z component alone) along the axis, broadcast over the others. */
LOOM_API loom_array_t *loom_cross(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b, int32_t axis);
/* np.linalg.multi_dot: 2 to 64 matrices (the first and last may be vectors) multiplied in the
 * order of fewest multiplications (the matrix-chain order NumPy computes); two arrays are
 * loom_dot's, as NumPy's. */
LOOM_API loom_array_t *loom_multi_dot(loom_ctx_t *ctx, int32_t n, loom_array_t *const *arrays);
/* np.linalg.matrix_power(a, n) (n = 0: the identity; n < 0: powers of the inverse), by NumPy's
 * repeated squaring. */
LOOM_API loom_array_t *loom_matrix_power(loom_ctx_t *ctx, loom_array_t *a, int64_t n);

/* ---- numpy.linalg: factorisations ------------------------------------------------------
 * float32, float64, complex64 and complex128 matrices in the last two axes, stacked over the
 * leading ones (bool and integers compute in float64, as NumPy's; float16 and bfloat16 are
 * DTYPE_ERROR, as NumPy refuses float16). Eigenvalues of Hermitian matrices, singular values,
 * logabsdet, norms and ranks are real (float32 or float64) for complex matrices too. The reference device calls LAPACK through LAPACKE (liblapacke.so.3, loaded
 * when first needed: NOT_AVAILABLE where it is missing), the CUDA device cuSOLVER (loaded with
 * dlopen). A singular matrix (solve, inv, tensorsolve, tensorinv),
 * one not positive definite (cholesky) or a factorisation that does not converge fails the eval
 * with LINALG_ERROR, the message naming the matrix of the stack (NumPy's LinAlgError). det and
 * slogdet of a singular matrix are 0 and (0, -inf), not errors. */

/* np.linalg.solve(a, b): a (.., n, n); b (n,)-shaped stacks when 1-d (NumPy 2's rule), else
 * (.., n, k) matrices; the stack axes broadcast. */
LOOM_API loom_array_t *loom_solve(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b);
LOOM_API loom_array_t *loom_inv(loom_ctx_t *ctx, loom_array_t *a);
/* np.linalg.cholesky(a, upper): L with a = L L^H from a's lower triangle; upper: U with
 * a = U^H U from a's upper triangle (NumPy 2's). */
LOOM_API loom_array_t *loom_cholesky(loom_ctx_t *ctx, loom_array_t *a, int upper);
/* np.linalg.det: sign * exp(logabsdet), as NumPy computes it. */
LOOM_API loom_array_t *loom_det(loom_ctx_t *ctx, loom_array_t *a);
LOOM_API loom_status_t loom_slogdet(loom_ctx_t *ctx, loom_array_t *a, loom_array_t **sign,
                                    loom_array_t **logabsdet);
/* np.linalg.eigh(a, UPLO): eigenvalues ascending and the eigenvectors as columns, from the lower
 * triangle (upper = 0, NumPy's 'L') or the upper one. Eigenvectors are unique up to sign (and
 * within repeated eigenvalues); LAPACK and cuSOLVER may choose differently. */
LOOM_API loom_status_t loom_eigh(loom_ctx_t *ctx, loom_array_t *a, int upper,
                                 loom_array_t **eigenvalues, loom_array_t **eigenvectors);
LOOM_API loom_array_t *loom_eigvalsh(loom_ctx_t *ctx, loom_array_t *a, int upper);
/* np.linalg.eig(a): the eigenvalues of a general square matrix and its right eigenvectors as
 * columns (each of unit 2-norm, its largest component real, as LAPACK's geev gives them), in
 * the library's order. Always complex (complex64 for float32 input, else complex128), as
 * JAX's: NumPy's real result when every eigenvalue is real would make the dtype depend on the
 * data. A matrix holding an inf or a NaN fails the eval with LINALG_ERROR, as NumPy checks.
 * The CUDA device needs cuSOLVER's Xgeev (CUDA 12.6 or later). */
LOOM_API loom_status_t loom_eig(loom_ctx_t *ctx, loom_array_t *a, loom_array_t **eigenvalues,
                                loom_array_t **eigenvectors);
LOOM_API loom_array_t *loom_eigvals(loom_ctx_t *ctx, loom_array_t *a);
/* np.linalg.svd(a, full_matrices): u, s (descending), vh with a = u * s @ vh. */
LOOM_API loom_status_t loom_svd(loom_ctx_t *ctx, loom_array_t *a, int full_matrices,
                                loom_array_t **u, loom_array_t **s, loom_array_t **vh);
LOOM_API loom_array_t *loom_svdvals(loom_ctx_t *ctx, loom_array_t *a);
/* np.linalg.qr's modes; LOOM_QR_R gives r alone (q may be NULL). */
typedef enum loom_qr_mode { LOOM_QR_REDUCED, LOOM_QR_COMPLETE, LOOM_QR_R } loom_qr_mode_t;
LOOM_API loom_status_t loom_qr(loom_ctx_t *ctx, loom_array_t *a, loom_qr_mode_t mode,
                               loom_array_t **q, loom_array_t **r);
/* np.linalg.lstsq(a, b, rcond) for a 2-d a (rcond NAN: NumPy's eps * max(M, N)): the minimum
 * norm solution from the SVD, the residuals (empty unless a has full column rank and more rows
 * than columns: deciding that reads the rank back, one sync), the rank (int64) and the singular
 * values. */
LOOM_API loom_status_t loom_lstsq(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b, double rcond,
                                  loom_array_t **x, loom_array_t **residuals, loom_array_t **rank,
                                  loom_array_t **sv);
/* np.linalg.pinv(a, rcond) (NumPy's default rcond is 1e-15): singular values at or below
 * rcond * max(s) count as zero. */
LOOM_API loom_array_t *loom_pinv(loom_ctx_t *ctx, loom_array_t *a, double rcond);
/* The same with rcond an array, one for each matrix of the stack (broadcast against a's shape
 * without its last two axes), as NumPy's array rcond and the Array API's array rtol. */
LOOM_API loom_array_t *loom_pinv_tol(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *rcond);
/* np.linalg.matrix_rank(a, tol, rtol=rtol): singular values above tol count; tol NAN: above
 * rtol * S.max() (rtol NAN: NumPy's max(M, N) * eps). int64. */
LOOM_API loom_array_t *loom_matrix_rank(loom_ctx_t *ctx, loom_array_t *a, double tol, double rtol);
/* The same with tol or rtol (at most one; NULL for the other, both NULL for the default) an
 * array, one for each matrix of the stack, as NumPy's and the Array API's array tolerances. */
LOOM_API loom_array_t *loom_matrix_rank_tol(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *tol,
                                            loom_array_t *rtol);
/* np.linalg.cond(x, p): DEFAULT or ORD +-2 from the singular values; other orders
 * norm(x) * norm(inv(x)). A singular matrix gives inf, as NumPy's (NaN where x holds NaN). */
LOOM_API loom_array_t *loom_cond(loom_ctx_t *ctx, loom_array_t *x, loom_norm_t kind, double ord);
/* np.linalg.tensorinv(a, ind) and tensorsolve(a, b) (axes=None): solve and inv on the
 * reshaped operands. */
LOOM_API loom_array_t *loom_tensorinv(loom_ctx_t *ctx, loom_array_t *a, int32_t ind);
LOOM_API loom_array_t *loom_tensorsolve(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b);

/* ---- numpy.fft's helpers, convolution ------------------------------------------------ */

/* np.fft.fftfreq(n, d) and rfftfreq(n, d): the sample frequencies (float64), n >= 1. */
LOOM_API loom_array_t *loom_fftfreq(loom_ctx_t *ctx, int64_t n, double d);
LOOM_API loom_array_t *loom_rfftfreq(loom_ctx_t *ctx, int64_t n, double d);
/* np.fft.fftshift / ifftshift over the given axes (naxes -1 or axes NULL: all): rolls by half
 * of each axis, index arithmetic that fuses into the consumer. */
LOOM_API loom_array_t *loom_fftshift(loom_ctx_t *ctx, loom_array_t *x, int32_t naxes,
                                     const int32_t *axes);
LOOM_API loom_array_t *loom_ifftshift(loom_ctx_t *ctx, loom_array_t *x, int32_t naxes,
                                      const int32_t *axes);
/* The modes of np.convolve and np.correlate, with NumPy's numbers. */
typedef enum loom_conv_mode { LOOM_CONV_VALID = 0, LOOM_CONV_SAME = 1, LOOM_CONV_FULL = 2 } loom_conv_mode_t;
/* np.convolve(a, v, mode) and np.correlate(a, v, mode) of 1-D arrays (0-d as length 1; none
 * empty), in the direct form (O(n m) work; loom_fftconvolve for long kernels): each output a
 * sum of products in order of the taps, for float32 and float64 one kernel of its own (a
 * window of a in registers), for other dtypes one gather-multiply-sum reduction kernel. The
 * dtype is np.result_type(a, v). */
LOOM_API loom_array_t *loom_convolve(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *v,
                                     loom_conv_mode_t mode);
LOOM_API loom_array_t *loom_correlate(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *v,
                                      loom_conv_mode_t mode);
/* scipy.signal.fftconvolve(a, v, mode) of 1-D arrays: the convolution in float64 for integer
 * and bool inputs, float32 for float16 and bfloat16, else the result dtype; SciPy's modes
 * ('same': a's length, centred; 'valid': the lags where one input covers the other). Computed
 * directly (one reduction kernel) or as the inverse transform of the product of the inputs'
 * transforms, padded to a length with factors 2, 3, 5 and 7, whichever the cost rule in
 * docs/guide.md says is cheaper: the two agree within the transforms' rounding. */
LOOM_API loom_array_t *loom_fftconvolve(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *v,
                                        loom_conv_mode_t mode);

/* ---- Interpolation, binning, integration, polynomials ---------------------------------- */

/* np.interp(x, xp, fp, left, right, period): float64, NumPy's formula and edge rules (xp
 * increasing; left/right NULL: fp[0] and fp[-1]; period NaN: none, else x and xp are taken
 * modulo it). A gather of the searchsorted intervals, fused with the arithmetic. */
LOOM_API loom_array_t *loom_interp(loom_ctx_t *ctx, loom_array_t *x, loom_array_t *xp,
                                   loom_array_t *fp, loom_array_t *left, loom_array_t *right,
                                   double period);
/* np.digitize(x, bins, right): the bin of each x (int64); bins 1-D and monotonic, increasing or
 * decreasing, which is read back (one sync) to choose the search, as NumPy checks it. */
LOOM_API loom_array_t *loom_digitize(loom_ctx_t *ctx, loom_array_t *x, loom_array_t *bins,
                                     int right);
/* np.trapezoid(y, x, dx, axis): the trapezoid rule along the axis (x NULL: spacing dx; 1-D x
 * along the axis, or x of y's shape). */
LOOM_API loom_array_t *loom_trapezoid(loom_ctx_t *ctx, loom_array_t *y, loom_array_t *x, double dx,
                                      int32_t axis);
/* np.polyval(p, x): Horner's rule over the 1-D coefficients p (highest power first; at most
 * 4096), one fused expression. */
LOOM_API loom_array_t *loom_polyval(loom_ctx_t *ctx, loom_array_t *p, loom_array_t *x);
/* np.vander(x, N, increasing): the Vandermonde matrix of 1-D x (N -1: len(x)), in
 * promote_types(x.dtype, int64). */
LOOM_API loom_array_t *loom_vander(loom_ctx_t *ctx, loom_array_t *x, int64_t n, int increasing);
/* np.polyder(p, m) and np.polyint(p, m, k) of 1-D coefficients p (highest power first), as
 * NumPy computes them (p[:-1] * arange(n, 0, -1): float32 gives float64; k NULL: zeros, else a
 * number or 1-D array of integration constants, at least m of them or one). m <= 4096 for
 * polyint. */
LOOM_API loom_array_t *loom_polyder(loom_ctx_t *ctx, loom_array_t *p, int64_t m);
LOOM_API loom_array_t *loom_polyint(loom_ctx_t *ctx, loom_array_t *p, int64_t m, loom_array_t *k);
/* np.polyadd / np.polysub: the shorter operand (0-d as length 1) padded with leading zeros. */
LOOM_API loom_array_t *loom_polyadd(loom_ctx_t *ctx, loom_array_t *a1, loom_array_t *a2);
LOOM_API loom_array_t *loom_polysub(loom_ctx_t *ctx, loom_array_t *a1, loom_array_t *a2);
/* np.polymul: loom_convolve of the 1-D operands, each stripped of its leading zeros first as
 * NumPy's poly1d does (an all-zero one becomes [0]); finding them reads back (one sync). */
LOOM_API loom_array_t *loom_polymul(loom_ctx_t *ctx, loom_array_t *a1, loom_array_t *a2);
/* np.polydiv(u, v): NumPy's long division in the operands' float dtype (at most 4096 quotient
 * coefficients), q and r; r's leading elements within 1e-8 of zero are dropped, as NumPy's
 * allclose loop does (one sync). Both results or neither; returns the status. */
LOOM_API loom_status_t loom_polydiv(loom_ctx_t *ctx, loom_array_t *u, loom_array_t *v,
                                    loom_array_t **q, loom_array_t **r);
/* np.polyfit(x, y, deg, rcond, w=w): the least-squares coefficients (deg + 1,) or (deg + 1, K)
 * by NumPy's steps (the Vandermonde matrix, weighted, columns scaled to unit norm, then
 * loom_lstsq: one sync); rcond NAN: len(x) * eps of x's float dtype; w NULL: no weights. No
 * RankWarning is given for a rank-deficient fit. loom_polyfit_full fills out[0..4] with
 * full=True's tuple (coefficients, residuals, rank, singular values, rcond as a 0-d float64);
 * loom_polyfit_cov gives cov=True's (unscaled: cov='unscaled') coefficients and covariance. */
LOOM_API loom_array_t *loom_polyfit(loom_ctx_t *ctx, loom_array_t *x, loom_array_t *y, int64_t deg,
                                    double rcond, loom_array_t *w);
LOOM_API loom_status_t loom_polyfit_full(loom_ctx_t *ctx, loom_array_t *x, loom_array_t *y,
                                         int64_t deg, double rcond, loom_array_t *w,
                                         loom_array_t **out);
LOOM_API loom_status_t loom_polyfit_cov(loom_ctx_t *ctx, loom_array_t *x, loom_array_t *y,
                                        int64_t deg, double rcond, loom_array_t *w, int unscaled,
                                        loom_array_t **coef, loom_array_t **cov);
/* np.roots(p): the eigenvalues of the companion matrix of p stripped of its leading and
 * trailing zeros (found by reading p back: one sync), then a 0 for each trailing zero. Complex
 * always, as loom_eigvals (NumPy gives float64 when every root is real); float64 when there is
 * no companion matrix (p of one nonzero coefficient; all zeros: empty). */
LOOM_API loom_array_t *loom_roots(loom_ctx_t *ctx, loom_array_t *p);
/* np.poly(seq_of_zeros): the coefficients of the polynomial with these roots (1-D), or with the
 * eigenvalues of a non-empty square matrix as roots, by NumPy's repeated loom_convolve (at most
 * 4096 roots); float32 and float64 stay, other real dtypes give float64, a real matrix gives
 * its real dtype, complex roots complex (NumPy drops the imaginary part when they come in
 * conjugate pairs). No roots: a 0-d float64 1.0. */
LOOM_API loom_array_t *loom_poly(loom_ctx_t *ctx, loom_array_t *seq_of_zeros);
/* np.gradient(f, *spacing, axis=axes, edge_order=edge_order): central differences inside,
 * one-sided ones of order edge_order (1 or 2; NumPy takes any other value below 1 as 2) at the
 * ends, along each of the naxes axes (-1 or axes NULL: every axis), into outs[i]. n_spacing: 0
 * (unit spacing), 1 with a 0-d array (that spacing on every axis), or one per axis: a 0-d array
 * or 1-D coordinates along it. Floats and complex keep their dtype, the rest give float64
 * (bool is refused by the subtraction, as NumPy's). Returns the status. */
LOOM_API loom_status_t loom_gradient(loom_ctx_t *ctx, loom_array_t *f, int32_t n_spacing,
                                     loom_array_t *const *spacing, int32_t naxes,
                                     const int32_t *axes, int32_t edge_order, loom_array_t **outs);
/* np.unwrap(p, discont, axis, period=period): the jumps along the axis larger than discont
 * (NULL: period / 2) replaced by their complements modulo period (NULL: 2 pi), in
 * np.result_type(diff(p), period) (integers with an integer period stay integers). */
LOOM_API loom_array_t *loom_unwrap(loom_ctx_t *ctx, loom_array_t *p, loom_array_t *discont,
                                   int32_t axis, loom_array_t *period);
/* np.bartlett, np.blackman, np.hamming, np.hanning (M) and np.kaiser(M, beta): float64 windows
 * of M points by NumPy's formulas (M < 1: empty; M == 1: [1.]; a NaN or infinite M is
 * refused). */
LOOM_API loom_array_t *loom_bartlett(loom_ctx_t *ctx, double m);
LOOM_API loom_array_t *loom_blackman(loom_ctx_t *ctx, double m);
LOOM_API loom_array_t *loom_hamming(loom_ctx_t *ctx, double m);
LOOM_API loom_array_t *loom_hanning(loom_ctx_t *ctx, double m);
LOOM_API loom_array_t *loom_kaiser(loom_ctx_t *ctx, double m, double beta);
/* np.select(condlist, choicelist, default): the choice of the first true condition (bool
 * arrays), else default (NULL: 0); the dtype is the result_type of the choices and default. */
LOOM_API loom_array_t *loom_select(loom_ctx_t *ctx, int32_t n, loom_array_t *const *conds,
                                   loom_array_t *const *choices, loom_array_t *dflt);
/* np.vdot(a, b) of real arrays: the dot product of the flattened arrays (equal sizes). */
LOOM_API loom_array_t *loom_vdot(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b);
/* np.tensordot(a, b, axes=(axes_a, axes_b)): sums over the paired axes (equal extents). */
LOOM_API loom_array_t *loom_tensordot_axes(loom_ctx_t *ctx, loom_array_t *a, loom_array_t *b,
                                           int32_t naxes, const int32_t *axes_a,
                                           const int32_t *axes_b);
/* np.split(a, indices, axis) with split points: the n + 1 views a[:i0], a[i0:i1], ..., a[in:]
 * along the axis (Python's slice clipping) into outs. */
LOOM_API loom_status_t loom_split_at(loom_ctx_t *ctx, loom_array_t *a, int32_t n,
                                     const int64_t *indices, int32_t axis, loom_array_t **outs);

/* ---- Embedding: external memory and DLPack -------------------------------------------- */

/* Wraps the caller's host memory as a realised array without a copy: strides in elements (NULL:
 * C-contiguous; negative allowed), data the address of element [0,...,0]. loom never writes it.
 * release(user) is called exactly once, when loom no longer needs the memory (release may be
 * NULL); on failure it is not called and the nil array is returned. */
LOOM_API loom_array_t *loom_wrap_host(loom_ctx_t *ctx, loom_dtype_t dtype, int32_t ndim,
                                      const int64_t *shape, const int64_t *strides, void *data,
                                      void (*release)(void *user), void *user);
/* loom_wrap_host for a CUDA device pointer (a CUdeviceptr on the ctx's device, as uint64_t).
 * A CUDA ctx only: elsewhere nil with LOOM_STATUS_NOT_AVAILABLE (release not called). */
LOOM_API loom_array_t *loom_wrap_device(loom_ctx_t *ctx, loom_dtype_t dtype, int32_t ndim,
                                        const int64_t *shape, const int64_t *strides,
                                        uint64_t device_ptr, void (*release)(void *user),
                                        void *user);
/* The device address of a's element [0,...,0] (evaluating a first if needed); valid while a
 * lives. 0 with an error recorded if a lives in host memory (e.g. on the CPU device). */
LOOM_API uint64_t loom_array_device_ptr(loom_ctx_t *ctx, loom_array_t *a);
/* The host address of a's element [0,...,0] (evaluating a first if needed); valid while a lives;
 * the memory may be strided (see loom_to_dlpack). NULL with an error if a lives on a device,
 * NULL without one if a is empty. */
LOOM_API const void *loom_array_host_ptr(loom_ctx_t *ctx, loom_array_t *a);
/* Imports a DLPack tensor without a copy. managed is a DLManagedTensorVersioned * (versioned
 * nonzero) or a legacy DLManagedTensor * from dlpack.h v1.x; kDLCPU/kDLCUDAHost memory gives a
 * host array, kDLCUDA memory a device array (a CUDA ctx on that device only). Its deleter is
 * called exactly once when loom is done; on failure nil, and the caller still owns managed. */
LOOM_API loom_array_t *loom_from_dlpack(loom_ctx_t *ctx, void *managed, int versioned);
/* Exports a (evaluated first if needed) as DLPack without a copy: *out is a
 * DLManagedTensorVersioned * (version 1.0, flags DLPACK_FLAG_BITMASK_READ_ONLY: loom's arrays
 * are immutable, the consumer must not write) or a DLManagedTensor * that keeps a alive
 * until the consumer calls its deleter, which must happen before loom_ctx_destroy. Host memory
 * is kDLCPU, device memory kDLCUDA. Returns the status; *out is NULL on failure. */
LOOM_API loom_status_t loom_to_dlpack(loom_ctx_t *ctx, loom_array_t *a, int versioned,
                                      void **out);

#ifdef __cplusplus
}
#endif
#endif /* LOOM_H */
