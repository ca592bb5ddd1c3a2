/* driver.c — loads libcuda.so.1 with dlopen into the function table of driver.h, and turns
 * failed driver calls into messages. The library is never linked, so loom loads (and runs on
 * the CPU) on machines without a driver. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "driver.h"

typedef struct sym {
    const char *name, *alt;
    size_t offset;
} sym_t;

static const sym_t syms[] = {
#define RT__DRIVER_SYM(field, sym, alt, params) {sym, alt, offsetof(rt_driver_t, field)},
    RT_DRIVER_LIST(RT__DRIVER_SYM)
#undef RT__DRIVER_SYM
};

void *rt_dlopen_first(const char *const *names, size_t n, const char **opened, char *why,
                      size_t cap) {
    if (cap) why[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        void *dl = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (dl) {
            *opened = names[i];
            return dl;
        }
        const char *e = dlerror();
        if (cap && !why[0] && e) snprintf(why, cap, "%s", e);
    }
    return NULL;
}

loom_status_t rt_driver_load(base_error_t *err, const char *lib, rt_driver_t *drv) {
    memset(drv, 0, sizeof *drv);
    if (!lib) lib = "libcuda.so.1";
    void *dl = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        const char *why = dlerror();
        return base_error_set(err, LOOM_STATUS_NO_DRIVER, "%s not found: %s", lib,
                              why ? why : "unknown reason");
    }
    for (size_t i = 0; i < BASE_ARRAY_LEN(syms); i++) {
        void *f = dlsym(dl, syms[i].name);
        if (!f && syms[i].alt) f = dlsym(dl, syms[i].alt);
        if (!f) {
            dlclose(dl);
            memset(drv, 0, sizeof *drv);
            return base_error_set(err, LOOM_STATUS_NO_DRIVER,
                                  "%s has no symbol %s: the CUDA driver is too old or broken", lib,
                                  syms[i].name);
        }
        /* POSIX guarantees that a data pointer from dlsym converts to a function pointer. */
        memcpy((char *)drv + syms[i].offset, &f, sizeof f);
    }
    drv->dl = dl;
    return LOOM_STATUS_OK;
}

void rt_driver_unload(rt_driver_t *drv) {
    if (drv->dl) dlclose(drv->dl);
    memset(drv, 0, sizeof *drv);
}

loom_status_t rt_cu_fail(rt_device_t *d, loom_status_t status, CUresult r, const char *what) {
    const char *name = NULL, *desc = NULL;
    if (d->drv.GetErrorName) d->drv.GetErrorName(r, &name);
    if (d->drv.GetErrorString) d->drv.GetErrorString(r, &desc);
    return base_error_set(d->err, status, "%s failed: %s (%s, code %d)", what,
                          name ? name : "CUDA_ERROR_UNKNOWN", desc ? desc : "no description",
                          (int)r);
}

loom_status_t rt_bind(rt_device_t *d) {
    CUcontext cur = NULL;
    if (d->compile_only) return LOOM_STATUS_OK;
    if (d->drv.CtxGetCurrent(&cur) == CUDA_SUCCESS && cur == d->ctx) return LOOM_STATUS_OK;
    CUresult r = d->drv.CtxSetCurrent(d->ctx);
    return r ? rt_cu_fail(d, LOOM_STATUS_DEVICE_ERROR, r, "cuCtxSetCurrent") : LOOM_STATUS_OK;
}

loom_status_t rt_not_available(rt_device_t *d, const char *what) {
    return base_error_set(d->err, LOOM_STATUS_NOT_AVAILABLE,
                          "%s is not available on a compile-only device (%s)", what, d->name);
}
