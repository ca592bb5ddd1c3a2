/* copy2d.c — strided device-to-device copies (cuMemcpy2DAsync), for joins. */
#include <string.h>

#include "driver.h"

/* Pitches past this go row by row (the driver bounds pitches; 2^31 is safe everywhere). */
#define MAX_PITCH ((size_t)1 << 31)

loom_status_t rt_d2d_2d(rt_device_t *d, uint64_t dst, size_t dpitch, uint64_t src, size_t spitch,
                        size_t width, size_t height) {
    if (d->compile_only) return rt_not_available(d, "rt_d2d_2d");
    if (width == 0 || height == 0) return LOOM_STATUS_OK;
    if (height == 1 || (width == spitch && width == dpitch))
        return rt_d2d(d, dst, src, width * height);
    if (dpitch >= MAX_PITCH || spitch >= MAX_PITCH) {
        for (size_t r = 0; r < height; r++) {
            loom_status_t st = rt_d2d(d, dst + r * dpitch, src + r * spitch, width);
            if (st) return st;
        }
        return LOOM_STATUS_OK;
    }
    loom_status_t st = rt_bind(d);
    if (st) return st;
    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    c.srcDevice = (CUdeviceptr)src;
    c.srcPitch = spitch;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = (CUdeviceptr)dst;
    c.dstPitch = dpitch;
    c.WidthInBytes = width;
    c.Height = height;
    CUresult r = d->drv.Memcpy2DAsync(&c, d->stream);
    return r ? rt_cu_fail(d, LOOM_STATUS_DEVICE_ERROR, r, "cuMemcpy2DAsync") : LOOM_STATUS_OK;
}
