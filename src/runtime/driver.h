/* driver.h — private to runtime/: the CUDA driver function table (the seam tests mock), the
 * device object that every runtime file shares, and the calls between runtime files.
 * <cuda.h> is included for its types only; libcuda is loaded with dlopen, never linked. */
#ifndef LOOM_RT_DRIVER_H
#define LOOM_RT_DRIVER_H

#include <cuda.h>

#include "rt.h"

/* X(field, symbol, fallback symbol or NULL, parameters) — every driver call the runtime makes.
 * Symbols are the versioned ones: the unversioned names are legacy ABIs kept for old binaries. */
#define RT_DRIVER_LIST(X)                                                                          \
    X(Init, "cuInit", NULL, (unsigned int flags))                                                  \
    X(DriverGetVersion, "cuDriverGetVersion", NULL, (int *version))                                \
    X(GetErrorName, "cuGetErrorName", NULL, (CUresult r, const char **s))                          \
    X(GetErrorString, "cuGetErrorString", NULL, (CUresult r, const char **s))                      \
    X(DeviceGetCount, "cuDeviceGetCount", NULL, (int *n))                                          \
    X(DeviceGet, "cuDeviceGet", NULL, (CUdevice * dev, int ordinal))                               \
    X(DeviceGetName, "cuDeviceGetName", NULL, (char *name, int len, CUdevice dev))                 \
    X(DeviceGetAttribute, "cuDeviceGetAttribute", NULL,                                            \
      (int *v, CUdevice_attribute a, CUdevice dev))                                                \
    X(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", NULL, (CUcontext * ctx, CUdevice dev))   \
    X(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", NULL, (CUdevice dev))               \
    X(CtxSetCurrent, "cuCtxSetCurrent", NULL, (CUcontext ctx))                                     \
    X(CtxGetCurrent, "cuCtxGetCurrent", NULL, (CUcontext * ctx))                                   \
    X(CtxSynchronize, "cuCtxSynchronize", NULL, (void))                                            \
    X(StreamCreate, "cuStreamCreate", NULL, (CUstream * s, unsigned int flags))                    \
    X(StreamDestroy, "cuStreamDestroy_v2", NULL, (CUstream s))                                     \
    X(StreamSynchronize, "cuStreamSynchronize", NULL, (CUstream s))                                \
    X(MemAlloc, "cuMemAlloc_v2", NULL, (CUdeviceptr * p, size_t bytes))                            \
    X(MemFree, "cuMemFree_v2", NULL, (CUdeviceptr p))                                              \
    X(MemGetInfo, "cuMemGetInfo_v2", NULL, (size_t * free_bytes, size_t * total_bytes))            \
    X(MemHostAlloc, "cuMemHostAlloc", NULL, (void **p, size_t bytes, unsigned int flags))          \
    X(MemFreeHost, "cuMemFreeHost", NULL, (void *p))                                               \
    X(MemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", NULL,                                               \
      (CUdeviceptr dst, const void *src, size_t bytes, CUstream s))                                \
    X(MemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", NULL,                                               \
      (void *dst, CUdeviceptr src, size_t bytes, CUstream s))                                      \
    X(MemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", NULL,                                               \
      (CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s))                                \
    X(Memcpy2DAsync, "cuMemcpy2DAsync_v2", NULL, (const CUDA_MEMCPY2D *copy, CUstream s))          \
    X(MemsetD8Async, "cuMemsetD8Async", NULL,                                                      \
      (CUdeviceptr dst, unsigned char v, size_t n, CUstream s))                                    \
    X(EventCreate, "cuEventCreate", NULL, (CUevent * e, unsigned int flags))                       \
    X(EventDestroy, "cuEventDestroy_v2", NULL, (CUevent e))                                        \
    X(EventRecord, "cuEventRecord", NULL, (CUevent e, CUstream s))                                 \
    X(EventSynchronize, "cuEventSynchronize", NULL, (CUevent e))                                   \
    X(EventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime",                             \
      (float *ms, CUevent start, CUevent end))                                                     \
    X(ModuleLoadData, "cuModuleLoadData", NULL, (CUmodule * m, const void *image))                 \
    X(ModuleUnload, "cuModuleUnload", NULL, (CUmodule m))                                          \
    X(OccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor",    \
      NULL, (int *n, CUfunction fn, int block, size_t smem))                                       \
    X(ModuleGetFunction, "cuModuleGetFunction", NULL,                                              \
      (CUfunction * f, CUmodule m, const char *name))                                              \
    X(ModuleGetGlobal, "cuModuleGetGlobal_v2", NULL,                                               \
      (CUdeviceptr * p, size_t * bytes, CUmodule m, const char *name))                             \
    X(FuncSetAttribute, "cuFuncSetAttribute", NULL,                                                \
      (CUfunction f, CUfunction_attribute a, int value))                                           \
    X(LaunchKernel, "cuLaunchKernel", NULL,                                                        \
      (CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,           \
       unsigned int by, unsigned int bz, unsigned int shared, CUstream s, void **params,           \
       void **extra))

/* The table: one pointer per entry of RT_DRIVER_LIST, plus the dlopen handle (NULL for a
 * table filled by hand, e.g. a mock). */
struct rt_driver {
#define RT__DRIVER_FIELD(field, sym, alt, params) CUresult (*field) params;
    RT_DRIVER_LIST(RT__DRIVER_FIELD)
#undef RT__DRIVER_FIELD
    void *dl;
};

/* ---- driver.c ---- */
/* dlopens lib (NULL: "libcuda.so.1") and fills *drv. NO_DRIVER if the library or a symbol is
 * missing (the message names it and dlerror's reason). */
loom_status_t rt_driver_load(base_error_t *err, const char *lib, rt_driver_t *drv);
void rt_driver_unload(rt_driver_t *drv);
/* Records a failed driver call on the device's error: "<what> failed: NAME (description)".
 * Returns `status` (DEVICE_ERROR for most callers). */
loom_status_t rt_cu_fail(rt_device_t *d, loom_status_t status, CUresult r, const char *what);
/* NOT_AVAILABLE: "<what> is not available on a compile-only device". */
loom_status_t rt_not_available(rt_device_t *d, const char *what);
/* The first of names[0..n) that dlopen loads (its name in *opened), or NULL with the first
 * failure's dlerror text copied into why (cap bytes; the library's own buffer does not outlive
 * the next failing dlopen). */
void *rt_dlopen_first(const char *const *names, size_t n, const char **opened, char *why,
                      size_t cap);
/* Makes the device's context current on this thread (cheap when it already is). */
loom_status_t rt_bind(rt_device_t *d);

/* ---- pool.c ---- */
typedef struct rt_block {
    uint64_t ptr;
    size_t size;  /* the size class, as allocated from the driver */
    int32_t next; /* next block of the same class in a free list; -1 ends it */
} rt_block_t;

typedef struct rt_pool {
    rt_block_t *blocks; /* every block the pool got from the driver, by index */
    int32_t n_blocks, cap_blocks;
    int32_t spare;      /* list (through next) of block records whose memory was given back */
    int32_t *live;      /* open addressing: ptr -> block index of live blocks; -1 = empty */
    uint32_t live_cap, n_live;
    struct rt_class {
        size_t size;
        int32_t head;   /* free list of cached blocks of this size */
    } *classes;         /* open addressing on size; size 0 = empty slot */
    uint32_t class_cap, n_classes;
    size_t in_use, held, peak;
    uint64_t driver_allocs, reuses;
} rt_pool_t;

void rt_pool_fini(rt_device_t *d);
/* The end of the pool block (one driver allocation) that holds addr, or 0 when no block of the
 * pool does (wrapped or imported memory, module globals). A linear search: for copy.c's merging
 * of adjacent pieces, once per run of them. */
uint64_t rt_pool_block_end(const rt_device_t *d, uint64_t addr);

/* ---- copy.c ---- */
#define RT_STAGE_SLOTS 4                  /* default number of pinned staging buffers */
#define RT_STAGE_MAX_SLOTS 8
#define RT_STAGE_CHUNK ((size_t)8 << 20)  /* default bytes per staging buffer */
#define RT_COPY_MAX_THREADS 16

typedef struct rt_copier rt_copier_t; /* helper threads for host memcpy (copy.c) */

typedef struct rt_stage {
    size_t chunk;                     /* bytes per staging buffer */
    uint32_t n_slots;                 /* staging buffers in use, <= RT_STAGE_MAX_SLOTS */
    int threads;                      /* host threads that copy to and from staging */
    void *host[RT_STAGE_MAX_SLOTS];   /* pinned, chunk bytes each, allocated on first use */
    CUevent done[RT_STAGE_MAX_SLOTS];
    bool pending[RT_STAGE_MAX_SLOTS]; /* a DMA reading or writing the slot may still run */
    uint32_t next;                    /* slot to use next (round robin across calls) */
    struct rt_pinned {
        uintptr_t base;
        size_t size;
    } *pinned;                        /* rt_host_alloc's blocks, sorted by base */
    uint32_t n_pinned, cap_pinned;
    rt_copier_t *copier;              /* started on the first staged copy when threads > 1 */
} rt_stage_t;

/* Staging settings from opt (copy_threads, stage_bytes, stage_slots), else $LOOM_COPY_THREADS,
 * else defaults; allocates nothing. */
void rt_stage_init(rt_device_t *d, const rt_options_t *opt);
void rt_stage_fini(rt_device_t *d);

/* ---- nvrtc.c ---- */
typedef struct rt_binary {
    char *data; /* cubin, or PTX (NUL-terminated) when ptx */
    size_t size;
    bool ptx;
} rt_binary_t;

/* The fixed NVRTC options for the device's arch, and NVRTC's version, used by compiles and in
 * the disk cache key. Filled once by rt_nvrtc_init. */
#define RT_NVRTC_MAX_OPTS 8
typedef struct rt_nvrtc {
    int major, minor;
    bool ptx; /* the arch is unknown to NVRTC: PTX for the newest arch it knows */
    char arch_opt[48];
    const char *opts[RT_NVRTC_MAX_OPTS];
    int n_opts;
    char *log; /* last compile's log (base_alloc'd) */
} rt_nvrtc_t;

/* Chooses cubin for sm_XY (cc = 10 * major + minor) or the PTX fallback. */
loom_status_t rt_nvrtc_init(rt_device_t *d, int cc, bool allow_fma);
void rt_nvrtc_fini(rt_device_t *d);
/* Compiles source; on success *out holds the binary (base_alloc'd) and d->nvrtc.log the log.
 * COMPILE_ERROR names the kernel and carries the (truncated) log. */
loom_status_t rt_nvrtc_compile(rt_device_t *d, const char *name, const char *source,
                               rt_binary_t *out);

/* ---- kcache.c ---- */
typedef struct rt_kcache {
    rt_kernel_t **slots; /* open addressing on the caller's key; NULL = empty */
    uint32_t cap, n;
    char *dir;           /* disk cache folder, or NULL: memory-only */
    int dirfd;           /* open on dir (O_DIRECTORY | O_NOFOLLOW), -1 if none */
} rt_kcache_t;

loom_status_t rt_kcache_init(rt_device_t *d, const rt_options_t *opt);
void rt_kcache_fini(rt_device_t *d);

/* ---- device.c: the object itself ---- */
struct rt_device {
    base_alloc_t *al;
    base_error_t *err;
    const base_log_t *log;
    rt_driver_t drv;
    bool compile_only;
    bool own_stream;
    bool ctx_retained;
    CUdevice dev;
    CUcontext ctx;
    CUstream stream;
    int cc, sm_count;
    int smem_per_sm; /* shared memory bytes a multiprocessor has (0: not known) */
    int l2_bytes;    /* the L2 cache's bytes (0: not known) */
    int smem_block;  /* shared memory bytes a block may opt in to (0: not known) */
    char arch[16];  /* "sm_90" */
    char name[160]; /* "NVIDIA H200 (sm_90)" */
    char *dump_dir;
    rt_pool_t pool;
    bool pool_off;    /* $LOOM_POOL=0: exact-size blocks straight from and back to the driver */
    rt_stage_t stage;
    rt_nvrtc_t nvrtc;
    rt_kcache_t kc;
    rt_stats_t stats; /* kernel and copy counters; pool figures are filled in on read */
};

struct rt_kernel {
    base_hash128_t key;
    CUmodule module; /* NULL in compile_only mode */
    CUfunction fn;
    char *name;
    size_t binary_size;
    uint64_t status;    /* device address of the module's RT_STATUS_WORD, 0 if it has none */
    uint32_t occ_block; /* block size occ_blocks was computed for (0: not yet) */
    int occ_blocks;     /* resident blocks per multiprocessor at that block size */
    uint32_t dyn_smem;  /* dynamic shared memory bytes a launch may take past the default */
};

#endif
