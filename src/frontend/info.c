/* info.c — loom_ctx_info: what a context runs on (device, architecture, NVRTC and driver
 * versions, the kernel cache folder), for `loom info` and bug reports. */
#include <dlfcn.h>
#include <string.h>

#include "fe.h"

#if LOOM_HAVE_CUDA
#include <nvrtc.h>
#endif

/* cuDriverGetVersion through a dlopen of its own: the context may be on the CPU (no driver
 * loaded) and the runtime's table is private to it. */
static int driver_version(void) {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return 0;
    int v = 0;
    int (*get)(int *);
    void *sym = dlsym(lib, "cuDriverGetVersion");
    memcpy(&get, &sym, sizeof get); /* object to function pointer, as POSIX allows */
    if (!get || get(&v) != 0) v = 0;
    dlclose(lib);
    return v;
}

LOOM_API void loom_ctx_info(const loom_ctx_t *ctx, loom_info_t *out) {
    if (!out) return;
    memset(out, 0, sizeof *out);
    out->version = LOOM_VERSION_STRING;
    out->device_name = ctx ? ctx->device_name : "";
    out->device = ctx ? ctx->device : LOOM_DEVICE_CPU;
    out->arch = "";
    out->cache_dir = "";
    out->driver_version = driver_version();
#if LOOM_HAVE_CUDA
    out->cuda_built = 1;
    int maj = 0, min = 0;
    if (nvrtcVersion(&maj, &min) == NVRTC_SUCCESS) out->nvrtc_version = 1000 * maj + 10 * min;
    if (ctx && ctx->rt) {
        out->arch = rt_device_arch(ctx->rt);
        const char *dir = rt_kernel_cache_dir(ctx->rt);
        out->cache_dir = dir ? dir : "";
    }
#endif
}
