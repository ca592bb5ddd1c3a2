/* mock_driver.h — a CUDA driver function table for running loom's CUDA path without a GPU
 * (tests and host-overhead benchmarks): device memory is host memory; copies are queued and run
 * when an event or the stream is synchronised, so early reuse of a staging buffer shows up as
 * wrong bytes; kernels compile with NVRTC and launch as no-ops. Header-only (static): include
 * it in one file of a program. mock_ctx() gives a loom context on it (NULL on failure). */
#ifndef LOOM_TEST_MOCK_DRIVER_H
#define LOOM_TEST_MOCK_DRIVER_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/fe.h"
#include "runtime/driver.h"

typedef struct op {
    void *dst;
    const void *src;
    size_t n;
    CUevent ev; /* an event record when non-NULL */
} op_t;

#define MAX_OPS 65536
static struct {
    op_t q[MAX_OPS];
    int head, tail;
    int events, h2d, d2h;
} m;

static void run_to(int last) {
    for (; m.head <= last && m.head < m.tail; m.head++)
        if (!m.q[m.head].ev) memcpy(m.q[m.head].dst, m.q[m.head].src, m.q[m.head].n);
    if (m.head == m.tail) m.head = m.tail = 0;
}
static void push(op_t o) {
    if (m.tail == MAX_OPS) run_to(m.tail); /* full: run what is queued (as a sync would) */
    m.q[m.tail++] = o;
}

/* Fault injection (tests/compile/test_faults.c): when set, every call that can fail on a real
 * driver asks it first and fails (with the code a real failure of that call gives) when it
 * says so. Releases (frees, destroys, unloads) never fail. */
static bool (*mock_trip)(void);
#define MOCK_TRIP(code)                                                                            \
    do {                                                                                           \
        if (mock_trip && mock_trip()) return (code);                                               \
    } while (0)

static CUresult ok0(void) { return CUDA_SUCCESS; }
static CUresult mInit(unsigned f) {
    MOCK_TRIP(CUDA_ERROR_NOT_INITIALIZED);
    return (void)f, CUDA_SUCCESS;
}
static CUresult mVersion(int *v) {
    MOCK_TRIP(CUDA_ERROR_NOT_INITIALIZED);
    return *v = 99000, CUDA_SUCCESS;
}
static CUresult mErr(CUresult r, const char **s) { return (void)r, *s = "mock", CUDA_SUCCESS; }
static CUresult mCount(int *n) {
    MOCK_TRIP(CUDA_ERROR_NO_DEVICE);
    return *n = 1, CUDA_SUCCESS;
}
static CUresult mGet(CUdevice *d, int i) {
    MOCK_TRIP(CUDA_ERROR_INVALID_DEVICE);
    return *d = i, CUDA_SUCCESS;
}
static CUresult mName(char *s, int n, CUdevice d) {
    MOCK_TRIP(CUDA_ERROR_INVALID_DEVICE);
    (void)d;
    snprintf(s, (size_t)n, "Mock GPU");
    return CUDA_SUCCESS;
}
static CUresult mAttr(int *v, CUdevice_attribute a, CUdevice d) {
    MOCK_TRIP(CUDA_ERROR_INVALID_VALUE);
    (void)d;
    *v = a == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ? 9
         : a == CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT   ? 132
                                                           : 0;
    return CUDA_SUCCESS;
}
static CUresult mRetain(CUcontext *c, CUdevice d) {
    MOCK_TRIP(CUDA_ERROR_OUT_OF_MEMORY);
    return (void)d, *c = (CUcontext)&m, 0;
}
static CUresult mRelease(CUdevice d) { return (void)d, CUDA_SUCCESS; }
static CUcontext current;
static CUresult mSetCur(CUcontext c) {
    MOCK_TRIP(CUDA_ERROR_INVALID_CONTEXT);
    return current = c, CUDA_SUCCESS;
}
static CUresult mGetCur(CUcontext *c) {
    MOCK_TRIP(CUDA_ERROR_INVALID_CONTEXT);
    return *c = current, CUDA_SUCCESS;
}
static CUresult mStreamCreate(CUstream *s, unsigned f) {
    MOCK_TRIP(CUDA_ERROR_OUT_OF_MEMORY);
    return (void)f, *s = (CUstream)&m.q, 0;
}
static CUresult mStreamDestroy(CUstream s) { return (void)s, CUDA_SUCCESS; }
/* A failing synchronisation still runs the queued copies first, so that host memory freed
 * after the failure is never written by a copy run later. */
static CUresult mStreamSync(CUstream s) {
    (void)s, run_to(m.tail);
    MOCK_TRIP(CUDA_ERROR_LAUNCH_FAILED);
    return CUDA_SUCCESS;
}
static CUresult mCtxSync(void) {
    run_to(m.tail);
    MOCK_TRIP(CUDA_ERROR_LAUNCH_FAILED);
    return CUDA_SUCCESS;
}
static CUresult mAlloc(CUdeviceptr *p, size_t n) {
    MOCK_TRIP(CUDA_ERROR_OUT_OF_MEMORY);
    *p = (CUdeviceptr)aligned_alloc(256, (n + 255) / 256 * 256);
    return *p ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
static CUresult mFree(CUdeviceptr p) { return free((void *)p), CUDA_SUCCESS; }
static CUresult mInfo(size_t *f, size_t *t) {
    MOCK_TRIP(CUDA_ERROR_INVALID_CONTEXT);
    return *f = *t = (size_t)1 << 34, CUDA_SUCCESS;
}
static CUresult mHostAlloc(void **p, size_t n, unsigned f) {
    MOCK_TRIP(CUDA_ERROR_OUT_OF_MEMORY);
    (void)f;
    return (*p = malloc(n)) ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
static CUresult mHostFree(void *p) { return free(p), CUDA_SUCCESS; }
static CUresult mH2D(CUdeviceptr d, const void *s, size_t n, CUstream st) {
    MOCK_TRIP(CUDA_ERROR_INVALID_VALUE);
    (void)st;
    m.h2d++;
    push((op_t){(void *)d, s, n, NULL});
    return CUDA_SUCCESS;
}
static CUresult mD2H(void *d, CUdeviceptr s, size_t n, CUstream st) {
    MOCK_TRIP(CUDA_ERROR_INVALID_VALUE);
    (void)st;
    m.d2h++;
    push((op_t){d, (const void *)s, n, NULL});
    return CUDA_SUCCESS;
}
static CUresult mD2D(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st) {
    MOCK_TRIP(CUDA_ERROR_INVALID_VALUE);
    (void)st;
    push((op_t){(void *)d, (const void *)s, n, NULL});
    return CUDA_SUCCESS;
}
static CUresult mSet(CUdeviceptr d, unsigned char v, size_t n, CUstream st) {
    MOCK_TRIP(CUDA_ERROR_INVALID_VALUE);
    (void)st;
    memset((void *)d, v, n);
    return CUDA_SUCCESS;
}
static CUresult mEventCreate(CUevent *e, unsigned f) {
    MOCK_TRIP(CUDA_ERROR_OUT_OF_MEMORY);
    (void)f;
    *e = (CUevent)(uintptr_t)(++m.events);
    return CUDA_SUCCESS;
}
static CUresult mEventDestroy(CUevent e) { return (void)e, CUDA_SUCCESS; }
static CUresult mEventRecord(CUevent e, CUstream s) {
    MOCK_TRIP(CUDA_ERROR_INVALID_HANDLE);
    (void)s;
    push((op_t){NULL, NULL, 0, e});
    return CUDA_SUCCESS;
}
static CUresult mEventSync(CUevent e) {
    int last = -1;
    for (int i = m.head; i < m.tail; i++)
        if (m.q[i].ev == e) last = i;
    run_to(last);
    MOCK_TRIP(CUDA_ERROR_LAUNCH_FAILED);
    return CUDA_SUCCESS;
}
static CUresult mElapsed(float *ms, CUevent a, CUevent b) {
    MOCK_TRIP(CUDA_ERROR_NOT_READY);
    return (void)a, (void)b, *ms = 1, CUDA_SUCCESS;
}
#define MOCK_MODULES 64
static unsigned mock_loads; /* modules loaded: each its handle, and its status word */
static CUresult mLoad(CUmodule *mod, const void *img) {
    MOCK_TRIP(CUDA_ERROR_INVALID_IMAGE);
    (void)img;
    *mod = (CUmodule)(uintptr_t)(0x1000 + 16 * (mock_loads++ % MOCK_MODULES));
    return CUDA_SUCCESS;
}
static CUresult mUnload(CUmodule mod) { return (void)mod, CUDA_SUCCESS; }
static CUresult mOcc(int *n, CUfunction f, int block, size_t smem) {
    MOCK_TRIP(CUDA_ERROR_INVALID_VALUE);
    return (void)f, (void)block, (void)smem, *n = 8, CUDA_SUCCESS;
}
static CUresult mGetFn(CUfunction *f, CUmodule mod, const char *name) {
    MOCK_TRIP(CUDA_ERROR_NOT_FOUND);
    return (void)mod, (void)name, *f = (CUfunction)(uintptr_t)0x2000, CUDA_SUCCESS;
}
/* a module's status word (kernels never set it: a test writes where a kernel would have) */
static unsigned long long mock_status[MOCK_MODULES][4];
static CUresult mGetGlobal(CUdeviceptr *p, size_t *bytes, CUmodule mod, const char *name) {
    MOCK_TRIP(CUDA_ERROR_NOT_FOUND);
    (void)name;
    *p = (CUdeviceptr)mock_status[((uintptr_t)mod - 0x1000) / 16 % MOCK_MODULES];
    *bytes = sizeof mock_status[0];
    return CUDA_SUCCESS;
}
static CUresult mLaunch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned sh, CUstream s, void **p, void **e) {
    MOCK_TRIP(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
    (void)f, (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz, (void)sh, (void)s;
    (void)p, (void)e;
    return CUDA_SUCCESS; /* kernels do not run: results keep whatever the test wrote */
}

static rt_driver_t table;

static void make_table(void) {
    table = (rt_driver_t){.Init = mInit,
                          .DriverGetVersion = mVersion,
                          .GetErrorName = mErr,
                          .GetErrorString = mErr,
                          .DeviceGetCount = mCount,
                          .DeviceGet = mGet,
                          .DeviceGetName = mName,
                          .DeviceGetAttribute = mAttr,
                          .DevicePrimaryCtxRetain = mRetain,
                          .DevicePrimaryCtxRelease = mRelease,
                          .CtxSetCurrent = mSetCur,
                          .CtxGetCurrent = mGetCur,
                          .CtxSynchronize = mCtxSync,
                          .StreamCreate = mStreamCreate,
                          .StreamDestroy = mStreamDestroy,
                          .StreamSynchronize = mStreamSync,
                          .MemAlloc = mAlloc,
                          .MemFree = mFree,
                          .MemGetInfo = mInfo,
                          .MemHostAlloc = mHostAlloc,
                          .MemFreeHost = mHostFree,
                          .MemcpyHtoDAsync = mH2D,
                          .MemcpyDtoHAsync = mD2H,
                          .MemcpyDtoDAsync = mD2D,
                          .MemsetD8Async = mSet,
                          .EventCreate = mEventCreate,
                          .EventDestroy = mEventDestroy,
                          .EventRecord = mEventRecord,
                          .EventSynchronize = mEventSync,
                          .EventElapsedTime = mElapsed,
                          .ModuleLoadData = mLoad,
                          .ModuleUnload = mUnload,
                          .OccupancyMaxActiveBlocksPerMultiprocessor = mOcc,
                          .ModuleGetFunction = mGetFn,
                          .ModuleGetGlobal = mGetGlobal,
                          .LaunchKernel = mLaunch};
    (void)ok0;
}

/* Turns CPU context ctx into a CUDA one on the mock driver (ro: its runtime options; the
 * driver is set here). False when the runtime or the engine could not be created (the error
 * on ctx, which stays a CPU context). */
static inline bool mock_attach(loom_ctx_t *ctx, rt_options_t ro) {
    make_table();
    ro.driver = &table;
    if (rt_device_create(&ctx->al, &ctx->err, &ctx->log, &ro, &ctx->rt) != LOOM_STATUS_OK)
        return false;
    en_options_t eo = {
        .rt = ctx->rt, .al = &ctx->al, .err = &ctx->err, .log = &ctx->log, .stats = &ctx->stats};
    if (!(ctx->engine = en_engine_create(&eo))) {
        fe_error(ctx, LOOM_STATUS_OUT_OF_MEMORY, "out of memory creating the engine");
        return false;
    }
    ctx->device = LOOM_DEVICE_CUDA;
    return true;
}

/* A loom context on the CPU, given a CUDA runtime on the mock driver. */
static inline loom_ctx_t *mock_ctx(void) {
    loom_options_t o = {.device = LOOM_DEVICE_CPU, .disable_disk_cache = 1};
    loom_ctx_t *ctx = NULL;
    if (loom_ctx_create(&o, &ctx) != LOOM_STATUS_OK) return NULL;
    if (!mock_attach(ctx, (rt_options_t){.disable_disk_cache = true})) {
        loom_ctx_destroy(ctx);
        return NULL;
    }
    return ctx;
}

#endif
