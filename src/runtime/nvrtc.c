/* nvrtc.c — compiles CUDA C to a cubin for the device's own arch with a fixed set of options
 * (they are part of the disk cache key). Only when NVRTC does not know the arch does it emit
 * PTX for the newest arch it knows, for the driver to JIT. */
#include <nvrtc.h>
#include <stdio.h>
#include <string.h>

#include "driver.h"

/* NumPy semantics: no fused multiply-add contraction (the host build uses -ffp-contract=off
 * too, so device and reference round alike), IEEE division and square root, denormals kept.
 * allow_fma (opt-in) lets NVRTC contract a * b + c, as XLA and Triton do. */
static const char *const fixed_opts[] = {"--std=c++17", "-default-device"};

loom_status_t rt_nvrtc_init(rt_device_t *d, int cc, bool allow_fma) {
    rt_nvrtc_t *nv = &d->nvrtc;
    int n = 0, best = 0;
    if (nvrtcVersion(&nv->major, &nv->minor) != NVRTC_SUCCESS ||
        nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0 || n > 256)
        return base_error_set(d->err, LOOM_STATUS_INTERNAL, "NVRTC does not report its archs");
    int archs[256];
    if (nvrtcGetSupportedArchs(archs) != NVRTC_SUCCESS)
        return base_error_set(d->err, LOOM_STATUS_INTERNAL, "nvrtcGetSupportedArchs failed");
    bool known = false;
    for (int i = 0; i < n; i++) {
        known |= archs[i] == cc;
        if (archs[i] > best) best = archs[i];
    }
    if (known) {
        snprintf(nv->arch_opt, sizeof nv->arch_opt, "--gpu-architecture=sm_%d", cc);
    } else if (cc > best) {
        nv->ptx = true; /* a device newer than NVRTC: PTX that its driver can JIT */
        snprintf(nv->arch_opt, sizeof nv->arch_opt, "--gpu-architecture=compute_%d", best);
        base_log(d->log, LOOM_LOG_INFO,
                 "NVRTC %d.%d does not know sm_%d; compiling PTX for compute_%d", nv->major,
                 nv->minor, cc, best);
    } else {
        return base_error_set(d->err, LOOM_STATUS_NOT_AVAILABLE,
                              "NVRTC %d.%d cannot compile for sm_%d (oldest it supports: sm_%d)",
                              nv->major, nv->minor, cc, archs[0]);
    }
    nv->n_opts = 0;
    nv->opts[nv->n_opts++] = nv->arch_opt;
    for (size_t i = 0; i < BASE_ARRAY_LEN(fixed_opts); i++) nv->opts[nv->n_opts++] = fixed_opts[i];
    nv->opts[nv->n_opts++] = allow_fma ? "--fmad=true" : "--fmad=false";
    if (allow_fma) nv->opts[nv->n_opts++] = "-DLM_ALLOW_FMA"; /* prelude.h's LM_OP_* */
    /* NVRTC 12.4+: leave out the runtime-API declarations generated code never uses (texture
     * objects, device-side launches, cudart types): about a tenth of a small kernel's compile */
    if (nv->major > 12 || (nv->major == 12 && nv->minor >= 4)) nv->opts[nv->n_opts++] = "--minimal";
    return LOOM_STATUS_OK;
}

void rt_nvrtc_fini(rt_device_t *d) {
    base_free(d->al, d->nvrtc.log);
    d->nvrtc.log = NULL;
}

/* Keeps the program's log in d->nvrtc.log (replacing the last one). */
static void keep_log(rt_device_t *d, nvrtcProgram prog) {
    size_t n = 0;
    base_free(d->al, d->nvrtc.log);
    d->nvrtc.log = NULL;
    if (nvrtcGetProgramLogSize(prog, &n) != NVRTC_SUCCESS || n == 0) return;
    char *log = base_malloc(d->al, n + 1, 1);
    if (!log) return;
    if (nvrtcGetProgramLog(prog, log) != NVRTC_SUCCESS) log[0] = '\0';
    log[n] = '\0';
    d->nvrtc.log = log;
}

loom_status_t rt_nvrtc_compile(rt_device_t *d, const char *name, const char *source,
                               rt_binary_t *out) {
    rt_nvrtc_t *nv = &d->nvrtc;
    nvrtcProgram prog = NULL;
    memset(out, 0, sizeof *out);
    double t0 = base_now_ms();
    nvrtcResult r = nvrtcCreateProgram(&prog, source, name, 0, NULL, NULL);
    if (r != NVRTC_SUCCESS)
        return base_error_set(d->err, LOOM_STATUS_COMPILE_ERROR,
                              "NVRTC could not create a program for kernel %s: %s", name,
                              nvrtcGetErrorString(r));
    r = nvrtcCompileProgram(prog, nv->n_opts, nv->opts);
    keep_log(d, prog);
    loom_status_t st = LOOM_STATUS_OK;
    if (r != NVRTC_SUCCESS) {
        const char *log = nv->log ? nv->log : "";
        /* The message holds 1 KiB: keep the log's start, where the first error is. */
        st = base_error_set(d->err, LOOM_STATUS_COMPILE_ERROR,
                            "NVRTC failed to compile kernel %s for %s (%s):\n%.700s%s", name,
                            d->arch, nvrtcGetErrorString(r), log,
                            strlen(log) > 700 ? "\n[log truncated]" : "");
        base_log(d->log, LOOM_LOG_ERROR, "NVRTC failed to compile kernel %s: %s", name,
                 nvrtcGetErrorString(r));
        goto done;
    }
    size_t n = 0;
    r = nv->ptx ? nvrtcGetPTXSize(prog, &n) : nvrtcGetCUBINSize(prog, &n);
    if (r != NVRTC_SUCCESS || n == 0) {
        st = base_error_set(d->err, LOOM_STATUS_COMPILE_ERROR, "NVRTC produced no %s for kernel %s",
                            nv->ptx ? "PTX" : "cubin", name);
        goto done;
    }
    out->data = base_malloc(d->al, n, 1);
    if (!out->data) {
        st = base_error_set(d->err, LOOM_STATUS_OUT_OF_MEMORY,
                            "out of host memory for the %zu-byte binary of kernel %s", n, name);
        goto done;
    }
    r = nv->ptx ? nvrtcGetPTX(prog, out->data) : nvrtcGetCUBIN(prog, out->data);
    if (r != NVRTC_SUCCESS) {
        base_free(d->al, out->data);
        out->data = NULL;
        st = base_error_set(d->err, LOOM_STATUS_COMPILE_ERROR, "NVRTC lost the binary of %s: %s",
                            name, nvrtcGetErrorString(r));
        goto done;
    }
    out->size = n;
    out->ptx = nv->ptx;
done:
    nvrtcDestroyProgram(&prog);
    double ms = base_now_ms() - t0;
    d->stats.compile_ms += ms;
    if (st == LOOM_STATUS_OK) {
        d->stats.kernel_compiles++;
        base_log(d->log, LOOM_LOG_INFO, "compiled kernel %s for %s: %zu-byte %s in %.1f ms", name,
                 d->arch, out->size, out->ptx ? "PTX" : "cubin", ms);
    }
    return st;
}
