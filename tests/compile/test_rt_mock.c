/* test_rt_mock.c — the runtime against a mock driver table (the one seam we mock): device
 * memory is host memory, and the stream is a real queue whose copies run only when an event
 * or the stream is synchronised, so a staging buffer reused too early shows up as wrong data.
 * Covers device creation statuses, the pool (reuse, classes, OOM retry, trim), staged copies
 * and launches, without a GPU. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/driver.h"

/* ---- the mock driver ---- */

typedef enum { OP_H2D, OP_D2H, OP_D2D, OP_SET, OP_EVENT } op_kind_t;
typedef struct op {
    op_kind_t kind;
    void *dst;
    const void *src;
    size_t n;
    int value;
    CUevent ev;
} op_t;

#define MAX_OPS 4096
static struct mock {
    int driver_version;
    CUresult init_result, launch_result, attr_result;
    int device_count;
    int attr_calls, attr_smem; /* cuFuncSetAttribute: calls, the last shared memory allowed */
    size_t capacity, used; /* device memory */
    int live_allocs, alloc_calls, free_calls, live_host, live_events, live_modules;
    int ctx_refs, streams;
    op_t q[MAX_OPS];
    int q_head, q_tail;
    int events_made;
    unsigned last_grid[3], last_block[3], last_shared;
    void **last_params;
} m;

static void run_one(void) {
    op_t *o = &m.q[m.q_head++];
    switch (o->kind) {
        case OP_H2D:
        case OP_D2H:
        case OP_D2D:
            memcpy(o->dst, o->src, o->n);
            break;
        case OP_SET:
            memset(o->dst, o->value, o->n);
            break;
        case OP_EVENT:
            break;
    }
}

static void run_all(void) {
    while (m.q_head < m.q_tail) run_one();
    m.q_head = m.q_tail = 0;
}

static void push(op_t o) {
    assert_true(m.q_tail < MAX_OPS);
    m.q[m.q_tail++] = o;
}

static CUresult mInit(unsigned f) {
    (void)f;
    return m.init_result;
}
static CUresult mDriverGetVersion(int *v) {
    *v = m.driver_version;
    return CUDA_SUCCESS;
}
static CUresult mGetErrorName(CUresult r, const char **s) {
    *s = r == CUDA_ERROR_OUT_OF_MEMORY   ? "CUDA_ERROR_OUT_OF_MEMORY"
         : r == CUDA_ERROR_INVALID_VALUE ? "CUDA_ERROR_INVALID_VALUE"
                                         : "CUDA_ERROR_OTHER";
    return CUDA_SUCCESS;
}
static CUresult mGetErrorString(CUresult r, const char **s) {
    (void)r;
    *s = "mock error";
    return CUDA_SUCCESS;
}
static CUresult mDeviceGetCount(int *n) {
    *n = m.device_count;
    return CUDA_SUCCESS;
}
static CUresult mDeviceGet(CUdevice *d, int i) {
    *d = i;
    return CUDA_SUCCESS;
}
static CUresult mDeviceGetName(char *s, int n, CUdevice d) {
    (void)d;
    snprintf(s, (size_t)n, "Mock GPU");
    return CUDA_SUCCESS;
}
static CUresult mDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d) {
    (void)d;
    *v = a == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR   ? 9
         : a == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR ? 0
         : a == CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT     ? 132
                                                             : 0;
    return CUDA_SUCCESS;
}
static CUresult mPrimaryRetain(CUcontext *c, CUdevice d) {
    (void)d;
    m.ctx_refs++;
    *c = (CUcontext)&m;
    return CUDA_SUCCESS;
}
static CUresult mPrimaryRelease(CUdevice d) {
    (void)d;
    m.ctx_refs--;
    return CUDA_SUCCESS;
}
static CUcontext current;
static CUresult mCtxSetCurrent(CUcontext c) {
    current = c;
    return CUDA_SUCCESS;
}
static CUresult mCtxGetCurrent(CUcontext *c) {
    *c = current;
    return CUDA_SUCCESS;
}
static CUresult mCtxSynchronize(void) {
    run_all();
    return CUDA_SUCCESS;
}
static CUresult mStreamCreate(CUstream *s, unsigned f) {
    (void)f;
    m.streams++;
    *s = (CUstream)&m.q;
    return CUDA_SUCCESS;
}
static CUresult mStreamDestroy(CUstream s) {
    (void)s;
    m.streams--;
    return CUDA_SUCCESS;
}
static CUresult mStreamSynchronize(CUstream s) {
    (void)s;
    run_all();
    return CUDA_SUCCESS;
}
static CUresult mMemAlloc(CUdeviceptr *p, size_t n) {
    m.alloc_calls++;
    if (n > m.capacity - m.used) return CUDA_ERROR_OUT_OF_MEMORY;
    void *q = aligned_alloc(256, (n + 255) / 256 * 256);
    if (!q) return CUDA_ERROR_OUT_OF_MEMORY;
    m.used += n;
    m.live_allocs++;
    *p = (CUdeviceptr)q;
    return CUDA_SUCCESS;
}
/* Sizes of live mock allocations, for cuMemFree. */
#define MAX_BLOCKS 8192
static struct {
    CUdeviceptr p;
    size_t n;
} blocks[MAX_BLOCKS];
static CUresult mMemAllocTracked(CUdeviceptr *p, size_t n) {
    CUresult r = mMemAlloc(p, n);
    if (r) return r;
    for (int i = 0; i < MAX_BLOCKS; i++)
        if (!blocks[i].p) {
            blocks[i].p = *p;
            blocks[i].n = n;
            return CUDA_SUCCESS;
        }
    fail_msg("mock block table full");
    return CUDA_ERROR_UNKNOWN;
}
static CUresult mMemFree(CUdeviceptr p) {
    m.free_calls++;
    for (int i = 0; i < MAX_BLOCKS; i++)
        if (blocks[i].p == p) {
            m.used -= blocks[i].n;
            blocks[i].p = 0;
            m.live_allocs--;
            free((void *)p);
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_INVALID_VALUE;
}
static CUresult mMemGetInfo(size_t *f, size_t *t) {
    *f = m.capacity - m.used;
    *t = m.capacity;
    return CUDA_SUCCESS;
}
static CUresult mMemHostAlloc(void **p, size_t n, unsigned f) {
    (void)f;
    *p = malloc(n);
    m.live_host++;
    return CUDA_SUCCESS;
}
static CUresult mMemFreeHost(void *p) {
    free(p);
    m.live_host--;
    return CUDA_SUCCESS;
}
static CUresult mH2D(CUdeviceptr d, const void *s, size_t n, CUstream st) {
    (void)st;
    push((op_t){OP_H2D, (void *)d, s, n, 0, NULL});
    return CUDA_SUCCESS;
}
static CUresult mD2H(void *d, CUdeviceptr s, size_t n, CUstream st) {
    (void)st;
    push((op_t){OP_D2H, d, (const void *)s, n, 0, NULL});
    return CUDA_SUCCESS;
}
static CUresult mD2D(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st) {
    (void)st;
    push((op_t){OP_D2D, (void *)d, (const void *)s, n, 0, NULL});
    return CUDA_SUCCESS;
}
static CUresult mSet(CUdeviceptr d, unsigned char v, size_t n, CUstream st) {
    (void)st;
    push((op_t){OP_SET, (void *)d, NULL, n, v, NULL});
    return CUDA_SUCCESS;
}
static CUresult mEventCreate(CUevent *e, unsigned f) {
    (void)f;
    *e = (CUevent)(uintptr_t)(++m.events_made);
    m.live_events++;
    return CUDA_SUCCESS;
}
static CUresult mEventDestroy(CUevent e) {
    (void)e;
    m.live_events--;
    return CUDA_SUCCESS;
}
static CUresult mEventRecord(CUevent e, CUstream s) {
    (void)s;
    push((op_t){OP_EVENT, NULL, NULL, 0, 0, e});
    return CUDA_SUCCESS;
}
static CUresult mEventSynchronize(CUevent e) {
    int last = -1; /* runs the queue through the last record of e */
    for (int i = m.q_head; i < m.q_tail; i++)
        if (m.q[i].kind == OP_EVENT && m.q[i].ev == e) last = i;
    while (m.q_head <= last) run_one();
    if (m.q_head == m.q_tail) m.q_head = m.q_tail = 0;
    return CUDA_SUCCESS;
}
static CUresult mEventElapsed(float *ms, CUevent a, CUevent b) {
    (void)a;
    (void)b;
    *ms = 1.5f;
    return CUDA_SUCCESS;
}
static CUresult mModuleLoadData(CUmodule *mod, const void *img) {
    if (memcmp(img,
               "\x7f"
               "ELF",
               4) != 0)
        return CUDA_ERROR_INVALID_IMAGE;
    m.live_modules++;
    *mod = (CUmodule)(uintptr_t)0x1000;
    return CUDA_SUCCESS;
}
static CUresult mModuleUnload(CUmodule mod) {
    (void)mod;
    m.live_modules--;
    return CUDA_SUCCESS;
}
static CUresult mModuleGetFunction(CUfunction *f, CUmodule mod, const char *name) {
    (void)mod;
    *f = (CUfunction)(uintptr_t)(strcmp(name, "add1") == 0 ? 0x2000 : 0);
    return *f ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}
static CUresult mFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v) {
    (void)f;
    if (m.attr_result) return m.attr_result;
    m.attr_calls++;
    if (a == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) m.attr_smem = v;
    return CUDA_SUCCESS;
}
static CUresult mLaunch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned sh, CUstream s, void **params,
                        void **extra) {
    (void)f;
    (void)s;
    (void)extra;
    if (m.launch_result) return m.launch_result;
    m.last_grid[0] = gx;
    m.last_grid[1] = gy;
    m.last_grid[2] = gz;
    m.last_block[0] = bx;
    m.last_block[1] = by;
    m.last_block[2] = bz;
    m.last_shared = sh;
    m.last_params = params;
    return CUDA_SUCCESS;
}

static rt_driver_t mock_table(void) {
    rt_driver_t t = {0};
    t.Init = mInit;
    t.DriverGetVersion = mDriverGetVersion;
    t.GetErrorName = mGetErrorName;
    t.GetErrorString = mGetErrorString;
    t.DeviceGetCount = mDeviceGetCount;
    t.DeviceGet = mDeviceGet;
    t.DeviceGetName = mDeviceGetName;
    t.DeviceGetAttribute = mDeviceGetAttribute;
    t.DevicePrimaryCtxRetain = mPrimaryRetain;
    t.DevicePrimaryCtxRelease = mPrimaryRelease;
    t.CtxSetCurrent = mCtxSetCurrent;
    t.CtxGetCurrent = mCtxGetCurrent;
    t.CtxSynchronize = mCtxSynchronize;
    t.StreamCreate = mStreamCreate;
    t.StreamDestroy = mStreamDestroy;
    t.StreamSynchronize = mStreamSynchronize;
    t.MemAlloc = mMemAllocTracked;
    t.MemFree = mMemFree;
    t.MemGetInfo = mMemGetInfo;
    t.MemHostAlloc = mMemHostAlloc;
    t.MemFreeHost = mMemFreeHost;
    t.MemcpyHtoDAsync = mH2D;
    t.MemcpyDtoHAsync = mD2H;
    t.MemcpyDtoDAsync = mD2D;
    t.MemsetD8Async = mSet;
    t.EventCreate = mEventCreate;
    t.EventDestroy = mEventDestroy;
    t.EventRecord = mEventRecord;
    t.EventSynchronize = mEventSynchronize;
    t.EventElapsedTime = mEventElapsed;
    t.ModuleLoadData = mModuleLoadData;
    t.ModuleUnload = mModuleUnload;
    t.ModuleGetFunction = mModuleGetFunction;
    t.FuncSetAttribute = mFuncSetAttribute;
    t.LaunchKernel = mLaunch;
    return t;
}

/* ---- fixture ---- */

typedef struct fx {
    base_alloc_t al;
    base_error_t err;
    rt_driver_t drv;
    rt_device_t *d;
} fx_t;

static void mock_reset(void) {
    memset(&m, 0, sizeof m);
    memset(blocks, 0, sizeof blocks);
    current = NULL;
    m.driver_version = 13000;
    m.device_count = 1;
    m.capacity = (size_t)256 << 20;
}

static loom_status_t open_mock(fx_t *f, rt_device_t **d) {
    rt_options_t o = {0};
    o.driver = &f->drv;
    o.disable_disk_cache = true;
    base_error_clear(&f->err);
    return rt_device_create(&f->al, &f->err, NULL, &o, d);
}

static int setup(void **state) {
    mock_reset();
    fx_t *f = calloc(1, sizeof *f);
    f->al.fail_after = -1;
    f->drv = mock_table();
    *state = f;
    return 0;
}

static int setup_dev(void **state) {
    setup(state);
    fx_t *f = *state;
    return open_mock(f, &f->d) == LOOM_STATUS_OK ? 0 : -1;
}

static int teardown(void **state) {
    fx_t *f = *state;
    rt_device_destroy(f->d);
    assert_int_equal(f->al.n_live, 0);
    /* destroy gave everything back to the driver */
    assert_int_equal(m.live_allocs, 0);
    assert_int_equal(m.live_host, 0);
    assert_int_equal(m.live_events, 0);
    assert_int_equal(m.live_modules, 0);
    assert_int_equal(m.ctx_refs, 0);
    assert_int_equal(m.streams, 0);
    free(f);
    return 0;
}

static rt_stats_t stats_of(rt_device_t *d) {
    rt_stats_t s;
    rt_device_stats(d, &s);
    return s;
}

/* ---- device creation ---- */

static void test_mock_device_facts(void **state) {
    fx_t *f = *state;
    assert_string_equal(rt_device_name(f->d), "Mock GPU (sm_90)");
    assert_string_equal(rt_device_arch(f->d), "sm_90");
    assert_int_equal(rt_device_sm_count(f->d), 132);
    assert_false(rt_device_compile_only(f->d));
    assert_non_null(rt_device_stream(f->d));
    assert_ptr_equal(rt_device_context(f->d), &m);
    assert_int_equal(m.ctx_refs, 1);
    assert_int_equal(m.streams, 1);
}

static void test_mock_driver_too_old(void **state) {
    fx_t *f = *state;
    m.driver_version = 12080;
    assert_int_equal(open_mock(f, &f->d), LOOM_STATUS_DRIVER_TOO_OLD);
    assert_null(f->d);
    assert_non_null(strstr(f->err.message, "12.8"));
    assert_non_null(strstr(f->err.message, "NVRTC 13."));
}

static void test_mock_no_device(void **state) {
    fx_t *f = *state;
    m.init_result = CUDA_ERROR_NO_DEVICE;
    assert_int_equal(open_mock(f, &f->d), LOOM_STATUS_NO_DEVICE);
    assert_null(f->d);
    m.init_result = CUDA_SUCCESS;
    m.device_count = 0;
    assert_int_equal(open_mock(f, &f->d), LOOM_STATUS_NO_DEVICE);
    assert_non_null(strstr(f->err.message, "0 devices are present"));
}

/* ---- pool ---- */

static void test_mock_pool_reuses_blocks(void **state) {
    fx_t *f = *state;
    uint64_t a, b, c;
    assert_int_equal(rt_alloc(f->d, 1000, &a), LOOM_STATUS_OK);
    assert_int_equal(a % 256, 0);
    rt_stats_t s = stats_of(f->d);
    assert_int_equal(s.pool_in_use, 1024);
    assert_int_equal(s.pool_held, 1024);
    rt_free(f->d, a);
    s = stats_of(f->d);
    assert_int_equal(s.pool_in_use, 0);
    assert_int_equal(s.pool_held, 1024);
    int calls = m.alloc_calls;
    assert_int_equal(rt_alloc(f->d, 1000, &b), LOOM_STATUS_OK);
    assert_int_equal(b, a);
    assert_int_equal(m.alloc_calls, calls);                     /* a hit does not call the driver */
    assert_int_equal(rt_alloc(f->d, 1001, &c), LOOM_STATUS_OK); /* same class, none cached */
    assert_int_not_equal(c, a);
    s = stats_of(f->d);
    assert_int_equal(s.pool_driver_allocs, 2);
    assert_int_equal(s.pool_reuses, 1);
    assert_int_equal(s.pool_in_use, 2048);
    assert_int_equal(s.pool_peak, 2048);
    rt_free(f->d, b);
    rt_free(f->d, c);
    /* classes: 0 -> 256, 1 MiB stays small, 1 MiB + 1 -> 2 MiB, 5 MiB -> 6 MiB */
    size_t asks[] = {0, (size_t)1 << 20, ((size_t)1 << 20) + 1, (size_t)5 << 20};
    size_t want[] = {256, (size_t)1 << 20, (size_t)2 << 20, (size_t)6 << 20};
    for (size_t i = 0; i < 4; i++) {
        size_t before = stats_of(f->d).pool_in_use;
        assert_int_equal(rt_alloc(f->d, asks[i], &a), LOOM_STATUS_OK);
        assert_int_equal(stats_of(f->d).pool_in_use - before, want[i]);
        rt_free(f->d, a);
    }
    assert_int_equal(stats_of(f->d).pool_in_use, 0);
    rt_free(f->d, 12345); /* not ours: an error, not a crash */
    assert_int_equal(f->err.status, LOOM_STATUS_INVALID_ARGUMENT);
}

/* LOOM_POOL=0 (for memcheck): exact sizes, every block from the driver and back at free. */
static void test_mock_pool_off(void **state) {
    fx_t *f = *state;
    setenv("LOOM_POOL", "0", 1);
    rt_device_t *d = NULL;
    loom_status_t st = open_mock(f, &d);
    unsetenv("LOOM_POOL");
    assert_int_equal(st, LOOM_STATUS_OK);
    uint64_t a, b;
    for (int i = 0; i < 2; i++) {
        assert_int_equal(rt_alloc(d, 1000, &a), LOOM_STATUS_OK);
        assert_int_equal(rt_alloc(d, 0, &b), LOOM_STATUS_OK);
        rt_stats_t s = stats_of(d);
        assert_int_equal(s.pool_in_use, 1001);
        assert_int_equal(s.pool_held, 1001);
        assert_int_equal(s.pool_driver_allocs, 2 * (i + 1));
        assert_int_equal(s.pool_reuses, 0);
        rt_free(d, a);
        rt_free(d, b);
        assert_int_equal(stats_of(d).pool_held, 0);
    }
    rt_device_destroy(d);
}

static void test_mock_pool_many_blocks(void **state) {
    fx_t *f = *state;
    enum { N = 3000 };
    static uint64_t p[N];
    static size_t sz[N];
    uint64_t seed = 42;
    size_t sum = 0;
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < N; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            sz[i] = (size_t)(seed >> 40) % 5000;
            assert_int_equal(rt_alloc(f->d, sz[i], &p[i]), LOOM_STATUS_OK);
            sum += (sz[i] ? sz[i] : 1) + 255 - ((sz[i] ? sz[i] : 1) + 255) % 256;
        }
        assert_int_equal(stats_of(f->d).pool_in_use, sum);
        for (int i = 0; i < N; i++) /* live pointers are distinct */
            assert_true(i == 0 || p[i] != p[i - 1]);
        for (int k = 0; k < N; k++) { /* free in a scrambled order */
            int i = (int)(((uint64_t)k * 7919) % N);
            rt_free(f->d, p[i]);
        }
        sum = 0;
        assert_int_equal(stats_of(f->d).pool_in_use, 0);
        assert_int_equal(f->err.status, LOOM_STATUS_OK);
    }
    assert_true(stats_of(f->d).pool_reuses > N);
    rt_trim(f->d);
    rt_stats_t s = stats_of(f->d);
    assert_int_equal(s.pool_held, 0);
    assert_int_equal(m.live_allocs, 0);
}

static void test_mock_pool_oom_frees_cache_and_retries(void **state) {
    fx_t *f = *state;
    m.capacity = (size_t)64 << 20;
    uint64_t a, b, c;
    assert_int_equal(rt_alloc(f->d, (size_t)40 << 20, &a), LOOM_STATUS_OK);
    rt_free(f->d, a); /* cached: 40 MiB held */
    assert_int_equal(rt_alloc(f->d, (size_t)50 << 20, &b), LOOM_STATUS_OK);
    rt_stats_t s = stats_of(f->d);
    assert_int_equal(s.pool_held, (size_t)50 << 20); /* the cached block was given back */
    assert_int_equal(s.pool_in_use, (size_t)50 << 20);
    assert_int_equal(rt_alloc(f->d, (size_t)100 << 20, &c), LOOM_STATUS_OUT_OF_MEMORY);
    assert_int_equal(c, 0);
    assert_non_null(strstr(f->err.message, "104857600 bytes"));
    assert_non_null(strstr(f->err.message, "52428800 bytes in use"));
    assert_non_null(strstr(f->err.message, "held"));
    base_error_clear(&f->err);
    assert_int_equal(rt_alloc(f->d, SIZE_MAX - 5, &c), LOOM_STATUS_OUT_OF_MEMORY);
    assert_non_null(strstr(f->err.message, "too large"));
    rt_free(f->d, b);
    rt_trim(f->d);
    assert_int_equal(stats_of(f->d).pool_held, 0);
    assert_int_equal(m.used, 0);
}

/* ---- copies ---- */

static void test_mock_copies_round_trip(void **state) {
    fx_t *f = *state;
    const size_t chunk = RT_STAGE_CHUNK;
    size_t sizes[] = {1,     3,         255,           4096 + 7,     chunk - 1,
                      chunk, chunk + 1, 3 * chunk + 5, 9 * chunk + 3};
    uint64_t bytes = 0, h2d_dmas = 0;
    for (size_t t = 0; t < BASE_ARRAY_LEN(sizes); t++) {
        size_t n = sizes[t];
        h2d_dmas += (n + chunk - 1) / chunk; /* a staged copy is one DMA per staging fill */
        unsigned char *src = malloc(n + 1), *keep = malloc(n), *back = malloc(n + 2);
        for (size_t i = 0; i < n; i++) keep[i] = (unsigned char)(i * 131 + t * 7 + (i >> 12));
        memcpy(src + 1, keep, n); /* unaligned source */
        uint64_t dev;
        assert_int_equal(rt_alloc(f->d, n, &dev), LOOM_STATUS_OK);
        assert_int_equal(rt_h2d(f->d, dev, src + 1, n), LOOM_STATUS_OK);
        memset(src, 0xEE, n + 1); /* the caller may reuse its buffer at once */
        memset(back, 0xCC, n + 2);
        assert_int_equal(rt_d2h(f->d, back + 1, dev, n), LOOM_STATUS_OK);
        assert_memory_equal(back + 1, keep, n);
        assert_int_equal(back[0], 0xCC);
        assert_int_equal(back[n + 1], 0xCC);
        bytes += n;
        rt_free(f->d, dev);
        free(src);
        free(keep);
        free(back);
    }
    rt_stats_t s = stats_of(f->d);
    assert_int_equal(s.h2d_copies, h2d_dmas);
    assert_in_range(s.d2h_copies, BASE_ARRAY_LEN(sizes), h2d_dmas); /* large: maybe direct */
    assert_int_equal(s.h2d_bytes, bytes);
    assert_int_equal(s.d2h_bytes, bytes);
}

static void test_mock_copies_queued_back_to_back(void **state) {
    fx_t *f = *state;
    /* Several uploads queued without any sync, then d2d, memset and downloads. */
    enum { K = 6 };
    size_t n = 2 * RT_STAGE_CHUNK + 77;
    uint64_t dev[K], dup;
    unsigned char *buf = malloc(n), *back = malloc(n);
    for (int k = 0; k < K; k++) {
        assert_int_equal(rt_alloc(f->d, n, &dev[k]), LOOM_STATUS_OK);
        memset(buf, 'a' + k, n);
        assert_int_equal(rt_h2d(f->d, dev[k], buf, n), LOOM_STATUS_OK);
    }
    assert_int_equal(rt_alloc(f->d, n, &dup), LOOM_STATUS_OK);
    assert_int_equal(rt_d2d(f->d, dup, dev[2], n), LOOM_STATUS_OK);
    assert_int_equal(rt_memset(f->d, dev[0], 'z', 100), LOOM_STATUS_OK);
    for (int k = 0; k < K; k++) {
        assert_int_equal(rt_d2h(f->d, back, dev[k], n), LOOM_STATUS_OK);
        for (size_t i = 0; i < n; i++)
            if (back[i] != (k == 0 && i < 100 ? 'z' : 'a' + k)) fail_msg("k %d byte %zu", k, i);
        rt_free(f->d, dev[k]);
    }
    assert_int_equal(rt_d2h(f->d, back, dup, n), LOOM_STATUS_OK);
    for (size_t i = 0; i < n; i++) assert_int_equal(back[i], 'c');
    rt_free(f->d, dup);
    assert_int_equal(rt_sync(f->d), LOOM_STATUS_OK);
    free(buf);
    free(back);
}

static void test_mock_pinned_copies_are_direct(void **state) {
    fx_t *f = *state;
    size_t n = 3 * RT_STAGE_CHUNK + 11;
    unsigned char *pin = NULL, *back = NULL;
    assert_int_equal(rt_host_alloc(f->d, n, (void **)&pin), LOOM_STATUS_OK);
    assert_int_equal(rt_host_alloc(f->d, n, (void **)&back), LOOM_STATUS_OK);
    assert_int_equal(m.live_host, 2); /* no staging buffers: pinned copies skip them */
    for (size_t i = 0; i < n; i++) pin[i] = (unsigned char)(i * 7);
    uint64_t dev;
    assert_int_equal(rt_alloc(f->d, n, &dev), LOOM_STATUS_OK);
    assert_int_equal(rt_h2d(f->d, dev, pin + 1, n - 1), LOOM_STATUS_OK); /* inside the block */
    assert_int_equal(m.q_tail - m.q_head, 1); /* one DMA queued, no chunks */
    assert_int_equal(rt_d2h(f->d, back, dev, n - 1), LOOM_STATUS_OK);
    assert_memory_equal(back, pin + 1, n - 1);
    assert_int_equal(m.live_host, 2);
    /* A range that runs past the pinned block is staged instead. */
    unsigned char *big = malloc(2 * n);
    memcpy(big, pin, n);
    memcpy(big + n, pin, n);
    assert_int_equal(rt_h2d(f->d, dev, big + n - 5, 100), LOOM_STATUS_OK);
    assert_int_equal(m.live_host, 2 + RT_STAGE_SLOTS);
    assert_int_equal(rt_d2h(f->d, back, dev, 100), LOOM_STATUS_OK);
    assert_memory_equal(back, big + n - 5, 100);
    rt_host_free(f->d, pin);
    rt_host_free(f->d, back);
    assert_int_equal(m.live_host, RT_STAGE_SLOTS);
    rt_host_free(f->d, big);
    assert_int_equal(f->err.status, LOOM_STATUS_INVALID_ARGUMENT);
    free(big);
    rt_free(f->d, dev);
    /* Left allocated: destroy frees it. */
    assert_int_equal(rt_host_alloc(f->d, 10, (void **)&pin), LOOM_STATUS_OK);
}

/* ---- kernels and launches ---- */

static void test_mock_launch(void **state) {
    fx_t *f = *state;
    const char *src = "extern \"C\" __global__ void add1(float *x, int n) {\n"
                      "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                      "    if (i < n) x[i] += 1.0f;\n}\n";
    rt_kernel_t *k = NULL;
    base_hash128_t key = {1, 2};
    assert_int_equal(rt_kernel_build(f->d, key, "add1", src, &k), LOOM_STATUS_OK);
    assert_int_equal(m.live_modules, 1);
    uint64_t x = 0;
    int n = 10;
    void *params[] = {&x, &n};
    assert_int_equal(rt_launch(f->d, k, 7, 128, params), LOOM_STATUS_OK);
    assert_int_equal(m.last_grid[0], 7);
    assert_int_equal(m.last_block[0], 128);
    assert_int_equal(m.last_grid[1], 1);
    assert_ptr_equal(m.last_params, params);
    const uint32_t g[3] = {2, 3, 4}, b[3] = {32, 2, 1};
    assert_int_equal(rt_launch_ex(f->d, k, g, b, 4096, params), LOOM_STATUS_OK);
    assert_int_equal(m.last_grid[2], 4);
    assert_int_equal(m.last_block[1], 2);
    assert_int_equal(m.last_shared, 4096);
    assert_int_equal(m.attr_calls, 0); /* within the default: nothing to allow */
    /* a tile past 32 KiB: the kernel is allowed its shared memory once, before its launch */
    assert_int_equal(rt_launch_ex(f->d, k, g, b, 64 * 1024, params), LOOM_STATUS_OK);
    assert_int_equal(rt_launch_ex(f->d, k, g, b, 64 * 1024, params), LOOM_STATUS_OK);
    assert_int_equal(m.attr_calls, 1);
    assert_int_equal(m.attr_smem, 64 * 1024);
    assert_int_equal(m.last_shared, 64 * 1024);
    m.attr_result = CUDA_ERROR_INVALID_VALUE; /* more than the device has */
    assert_int_equal(rt_launch_ex(f->d, k, g, b, 300 * 1024, params), LOOM_STATUS_DEVICE_ERROR);
    assert_non_null(strstr(f->err.message, "cuFuncSetAttribute of add1 (307200 bytes"));
    m.attr_result = CUDA_SUCCESS;
    base_error_clear(&f->err);
    assert_int_equal(stats_of(f->d).launches, 4);
    m.launch_result = CUDA_ERROR_INVALID_VALUE;
    assert_int_equal(rt_launch(f->d, k, 1, 4096, params), LOOM_STATUS_DEVICE_ERROR);
    assert_non_null(strstr(f->err.message, "cuLaunchKernel of add1"));
    assert_non_null(strstr(f->err.message, "CUDA_ERROR_INVALID_VALUE"));
    assert_int_equal(stats_of(f->d).launches, 4);

    rt_event_t *e0, *e1;
    float ms = 0;
    assert_int_equal(rt_event_create(f->d, &e0), LOOM_STATUS_OK);
    assert_int_equal(rt_event_create(f->d, &e1), LOOM_STATUS_OK);
    assert_int_equal(rt_event_record(f->d, e0), LOOM_STATUS_OK);
    assert_int_equal(rt_event_record(f->d, e1), LOOM_STATUS_OK);
    assert_int_equal(rt_event_elapsed_ms(f->d, e0, e1, &ms), LOOM_STATUS_OK);
    assert_true(ms == 1.5f);
    rt_event_destroy(f->d, e0);
    rt_event_destroy(f->d, e1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_mock_device_facts, setup_dev, teardown),
        cmocka_unit_test_setup_teardown(test_mock_driver_too_old, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mock_no_device, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mock_pool_reuses_blocks, setup_dev, teardown),
        cmocka_unit_test_setup_teardown(test_mock_pool_many_blocks, setup_dev, teardown),
        cmocka_unit_test_setup_teardown(test_mock_pool_off, setup, teardown),
        cmocka_unit_test_setup_teardown(test_mock_pool_oom_frees_cache_and_retries, setup_dev,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_mock_copies_round_trip, setup_dev, teardown),
        cmocka_unit_test_setup_teardown(test_mock_copies_queued_back_to_back, setup_dev, teardown),
        cmocka_unit_test_setup_teardown(test_mock_pinned_copies_are_direct, setup_dev, teardown),
        cmocka_unit_test_setup_teardown(test_mock_launch, setup_dev, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
