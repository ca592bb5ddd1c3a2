/* device.c — the device object: driver, primary context, one stream, and the owners of the
 * pool, staging buffers, NVRTC settings and kernel cache. In compile_only mode there is no
 * driver at all; only kernel builds work (they compile and cache, and load nothing). */
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

/* "sm_90" -> 90; 0 if malformed. */
static int parse_arch(const char *arch) {
    int cc = 0;
    if (strncmp(arch, "sm_", 3) != 0 && strncmp(arch, "compute_", 8) != 0) return 0;
    const char *p = strchr(arch, '_') + 1;
    if (!*p) return 0;
    for (; *p >= '0' && *p <= '9'; p++) cc = cc * 10 + (*p - '0');
    return *p || cc <= 0 || cc > 10000 ? 0 : cc;
}

/* Loads the driver and checks, in order: library, version against NVRTC's, cuInit, device. */
static loom_status_t open_driver(rt_device_t *d, const rt_options_t *opt) {
    loom_status_t st;
    CUresult r;
    if (opt->driver) {
        d->drv = *opt->driver;
        d->drv.dl = NULL; /* a borrowed table: nothing to dlclose */
    } else if ((st = rt_driver_load(d->err, opt->driver_lib, &d->drv)) != LOOM_STATUS_OK) {
        return st;
    }
    int ver = 0, maj = 0, min = 0;
    if ((r = d->drv.DriverGetVersion(&ver)) != CUDA_SUCCESS)
        return rt_cu_fail(d, LOOM_STATUS_NO_DRIVER, r, "cuDriverGetVersion");
    if (nvrtcVersion(&maj, &min) != NVRTC_SUCCESS)
        return base_error_set(d->err, LOOM_STATUS_INTERNAL, "nvrtcVersion failed");
    /* CUDA's minor-version compatibility lets a 13.0 driver run cubins from NVRTC 13.x, so
     * only the major version must match or exceed NVRTC's. */
    if (ver < maj * 1000)
        return base_error_set(d->err, LOOM_STATUS_DRIVER_TOO_OLD,
                              "the CUDA driver supports CUDA %d.%d, but NVRTC %d.%d needs a "
                              "driver for CUDA %d.0 or newer",
                              ver / 1000, ver % 1000 / 10, maj, min, maj);
    r = d->drv.Init(0);
    if (r == CUDA_ERROR_NO_DEVICE)
        return base_error_set(d->err, LOOM_STATUS_NO_DEVICE,
                              "no CUDA device found (cuInit: CUDA_ERROR_NO_DEVICE)");
    if (r == CUDA_ERROR_SYSTEM_DRIVER_MISMATCH || r == CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE)
        return rt_cu_fail(d, LOOM_STATUS_DRIVER_TOO_OLD, r, "cuInit");
    if (r) return rt_cu_fail(d, LOOM_STATUS_NO_DEVICE, r, "cuInit");
    int n = 0;
    if ((r = d->drv.DeviceGetCount(&n)) != CUDA_SUCCESS)
        return rt_cu_fail(d, LOOM_STATUS_NO_DEVICE, r, "cuDeviceGetCount");
    if (opt->ordinal < 0 || opt->ordinal >= n)
        return base_error_set(d->err, LOOM_STATUS_NO_DEVICE,
                              "CUDA device %d asked for, but %d device%s present", opt->ordinal, n,
                              n == 1 ? " is" : "s are");
    if ((r = d->drv.DeviceGet(&d->dev, opt->ordinal)) != CUDA_SUCCESS)
        return rt_cu_fail(d, LOOM_STATUS_NO_DEVICE, r, "cuDeviceGet");
    return LOOM_STATUS_OK;
}

/* Facts, primary context and stream of an opened device. */
static loom_status_t open_device(rt_device_t *d, const rt_options_t *opt) {
    CUresult r;
    int major = 0, minor = 0;
    char name[128] = "CUDA device";
    if ((r = d->drv.DeviceGetName(name, (int)sizeof name, d->dev)) != CUDA_SUCCESS)
        return rt_cu_fail(d, LOOM_STATUS_DEVICE_ERROR, r, "cuDeviceGetName");
    name[sizeof name - 1] = '\0';
    if ((r = d->drv.DeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                       d->dev)) ||
        (r = d->drv.DeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                       d->dev)) ||
        (r = d->drv.DeviceGetAttribute(&d->sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                                       d->dev)))
        return rt_cu_fail(d, LOOM_STATUS_DEVICE_ERROR, r, "cuDeviceGetAttribute");
    d->cc = major * 10 + minor;
    /* a tuning fact, not a requirement: a driver that cannot tell leaves it unknown */
    if (d->drv.DeviceGetAttribute(&d->smem_per_sm,
                                  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, d->dev))
        d->smem_per_sm = 0;
    if (d->drv.DeviceGetAttribute(&d->l2_bytes, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, d->dev))
        d->l2_bytes = 0;
    if (d->drv.DeviceGetAttribute(&d->smem_block,
                                  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, d->dev))
        d->smem_block = 0;
    snprintf(d->arch, sizeof d->arch, "sm_%d", d->cc);
    snprintf(d->name, sizeof d->name, "%s (%s)", name, d->arch);
    /* The primary context is the one the CUDA runtime (and so cuBLAS) uses: sharing it lets
     * pointers and streams pass between loom and those libraries. */
    if ((r = d->drv.DevicePrimaryCtxRetain(&d->ctx, d->dev)) != CUDA_SUCCESS)
        return rt_cu_fail(d, LOOM_STATUS_DEVICE_ERROR, r, "cuDevicePrimaryCtxRetain");
    d->ctx_retained = true;
    if ((r = d->drv.CtxSetCurrent(d->ctx)) != CUDA_SUCCESS)
        return rt_cu_fail(d, LOOM_STATUS_DEVICE_ERROR, r, "cuCtxSetCurrent");
    if (opt->stream) {
        d->stream = (CUstream)opt->stream;
    } else {
        if ((r = d->drv.StreamCreate(&d->stream, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS)
            return rt_cu_fail(d, LOOM_STATUS_DEVICE_ERROR, r, "cuStreamCreate");
        d->own_stream = true;
    }
    return LOOM_STATUS_OK;
}

loom_status_t rt_device_create(base_alloc_t *al, base_error_t *err, const base_log_t *log,
                               const rt_options_t *opt, rt_device_t **out) {
    static const rt_options_t defaults = {0};
    *out = NULL;
    if (!opt) opt = &defaults;
    rt_device_t *d = base_calloc(al, 1, sizeof *d);
    if (!d)
        return base_error_set(err, LOOM_STATUS_OUT_OF_MEMORY,
                              "out of host memory creating a CUDA device (%zu bytes)", sizeof *d);
    d->al = al;
    d->err = err;
    d->log = log;
    d->compile_only = opt->compile_only;
    d->kc.dirfd = -1;
    d->pool.spare = -1;
    const char *pool_env = getenv("LOOM_POOL");
    d->pool_off = pool_env && !strcmp(pool_env, "0");
    rt_stage_init(d, opt);

    loom_status_t st = LOOM_STATUS_OK;
    if (d->compile_only) {
        const char *arch = opt->arch ? opt->arch : "sm_90";
        d->cc = parse_arch(arch);
        if (!d->cc)
            st = base_error_set(err, LOOM_STATUS_INVALID_ARGUMENT,
                                "arch \"%s\" is not of the form sm_XY", arch);
        snprintf(d->arch, sizeof d->arch, "sm_%d", d->cc);
        snprintf(d->name, sizeof d->name, "NVRTC compile-only (%s)", d->arch);
    } else {
        st = open_driver(d, opt);
        if (st == LOOM_STATUS_OK) st = open_device(d, opt);
    }
    if (st == LOOM_STATUS_OK) st = rt_nvrtc_init(d, d->cc, opt->allow_fma);
    if (st == LOOM_STATUS_OK && opt->dump_dir) {
        d->dump_dir = base_strdup(al, opt->dump_dir);
        if (!d->dump_dir)
            st = base_error_set(err, LOOM_STATUS_OUT_OF_MEMORY, "out of host memory (dump_dir)");
    }
    if (st == LOOM_STATUS_OK) st = rt_kcache_init(d, opt);
    if (st != LOOM_STATUS_OK) {
        rt_device_destroy(d);
        return err->status != LOOM_STATUS_OK ? err->status : st;
    }
    base_log(log, LOOM_LOG_INFO, "runtime: %s, %d SMs, kernel cache %s", d->name, d->sm_count,
             d->kc.dir ? d->kc.dir : "in memory only");
    *out = d;
    return LOOM_STATUS_OK;
}

void rt_device_destroy(rt_device_t *d) {
    if (!d) return;
    if (!d->compile_only && d->ctx_retained) {
        rt_bind(d);
        d->drv.StreamSynchronize(d->stream); /* nothing may still use what we free below */
    }
    rt_kcache_fini(d);
    rt_stage_fini(d);
    rt_pool_fini(d);
    rt_nvrtc_fini(d);
    if (d->own_stream) d->drv.StreamDestroy(d->stream);
    if (d->ctx_retained) d->drv.DevicePrimaryCtxRelease(d->dev);
    rt_driver_unload(&d->drv);
    base_free(d->al, d->dump_dir);
    base_free(d->al, d);
}

const char *rt_device_name(const rt_device_t *d) { return d->name; }
const char *rt_device_arch(const rt_device_t *d) { return d->arch; }
int rt_device_sm_count(const rt_device_t *d) { return d->sm_count; }
int rt_device_smem_per_sm(const rt_device_t *d) { return d->smem_per_sm; }
int rt_device_l2_bytes(const rt_device_t *d) { return d->l2_bytes; }
int rt_device_smem_per_block(const rt_device_t *d) { return d->smem_block; }
bool rt_device_compile_only(const rt_device_t *d) { return d->compile_only; }
void *rt_device_stream(const rt_device_t *d) { return d->compile_only ? NULL : d->stream; }
void *rt_device_context(const rt_device_t *d) { return d->compile_only ? NULL : d->ctx; }

void rt_device_stats(const rt_device_t *d, rt_stats_t *out) {
    *out = d->stats;
    out->pool_in_use = d->pool.in_use;
    out->pool_held = d->pool.held;
    out->pool_peak = d->pool.peak;
    out->pool_driver_allocs = d->pool.driver_allocs;
    out->pool_reuses = d->pool.reuses;
}

loom_status_t rt_sync(rt_device_t *d) {
    if (d->compile_only) return rt_not_available(d, "rt_sync");
    loom_status_t st = rt_bind(d);
    if (st) return st;
    CUresult r = d->drv.StreamSynchronize(d->stream);
    return r ? rt_cu_fail(d, LOOM_STATUS_DEVICE_ERROR, r, "cuStreamSynchronize") : LOOM_STATUS_OK;
}

/* ---- events ---- */

loom_status_t rt_event_create(rt_device_t *d, rt_event_t **out) {
    *out = NULL;
    if (d->compile_only) return rt_not_available(d, "rt_event_create");
    loom_status_t st = rt_bind(d);
    if (st) return st;
    CUevent e = NULL;
    CUresult r = d->drv.EventCreate(&e, CU_EVENT_DEFAULT);
    if (r) return rt_cu_fail(d, LOOM_STATUS_DEVICE_ERROR, r, "cuEventCreate");
    *out = (rt_event_t *)e;
    return LOOM_STATUS_OK;
}

void rt_event_destroy(rt_device_t *d, rt_event_t *e) {
    if (e && !d->compile_only) d->drv.EventDestroy((CUevent)e);
}

loom_status_t rt_event_record(rt_device_t *d, rt_event_t *e) {
    if (d->compile_only) return rt_not_available(d, "rt_event_record");
    CUresult r = d->drv.EventRecord((CUevent)e, d->stream);
    return r ? rt_cu_fail(d, LOOM_STATUS_DEVICE_ERROR, r, "cuEventRecord") : LOOM_STATUS_OK;
}

loom_status_t rt_event_elapsed_ms(rt_device_t *d, rt_event_t *start, rt_event_t *end, float *ms) {
    *ms = 0;
    if (d->compile_only) return rt_not_available(d, "rt_event_elapsed_ms");
    CUresult r = d->drv.EventSynchronize((CUevent)end);
    if (r) return rt_cu_fail(d, LOOM_STATUS_DEVICE_ERROR, r, "cuEventSynchronize");
    r = d->drv.EventElapsedTime(ms, (CUevent)start, (CUevent)end);
    return r ? rt_cu_fail(d, LOOM_STATUS_DEVICE_ERROR, r, "cuEventElapsedTime") : LOOM_STATUS_OK;
}
