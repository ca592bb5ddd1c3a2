/* launch.c — kernel launches on the device's stream (cuLaunchKernel); params as for it. */
#include <stdio.h>

#include "driver.h"

loom_status_t rt_launch_ex(rt_device_t *d, rt_kernel_t *k, const uint32_t grid[3],
                           const uint32_t block[3], uint32_t shared_bytes, void **params) {
    if (d->compile_only) return rt_not_available(d, "rt_launch");
    loom_status_t st = rt_bind(d);
    if (st) return st;
    /* (see RT_SMEM_ASK) */
    if (shared_bytes > RT_SMEM_ASK && shared_bytes > k->dyn_smem && d->drv.FuncSetAttribute) {
        CUresult r = d->drv.FuncSetAttribute(k->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                             (int)shared_bytes);
        if (r) {
            char what[160];
            snprintf(what, sizeof what, "cuFuncSetAttribute of %s (%u bytes of shared memory)",
                     k->name, shared_bytes);
            return rt_cu_fail(d, LOOM_STATUS_DEVICE_ERROR, r, what);
        }
        k->dyn_smem = shared_bytes;
    }
    CUresult r = d->drv.LaunchKernel(k->fn, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                                     shared_bytes, d->stream, params, NULL);
    if (r) {
        char what[160];
        snprintf(what, sizeof what, "cuLaunchKernel of %s (grid %u x %u x %u, block %u x %u x %u)",
                 k->name, grid[0], grid[1], grid[2], block[0], block[1], block[2]);
        return rt_cu_fail(d, LOOM_STATUS_DEVICE_ERROR, r, what);
    }
    d->stats.launches++;
    return LOOM_STATUS_OK;
}

loom_status_t rt_launch(rt_device_t *d, rt_kernel_t *k, uint32_t grid, uint32_t block,
                        void **params) {
    const uint32_t g[3] = {grid, 1, 1}, b[3] = {block, 1, 1};
    return rt_launch_ex(d, k, g, b, 0, params);
}

int rt_kernel_blocks_per_sm(rt_device_t *d, rt_kernel_t *k, uint32_t block) {
    if (!k || !k->fn || !d->drv.OccupancyMaxActiveBlocksPerMultiprocessor) return 0;
    if (k->occ_block != block) {
        int n = 0;
        if (d->drv.OccupancyMaxActiveBlocksPerMultiprocessor(&n, k->fn, (int)block, 0) !=
            CUDA_SUCCESS)
            n = 0;
        k->occ_block = block;
        k->occ_blocks = n;
    }
    return k->occ_blocks;
}
