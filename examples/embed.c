/* embed — a host library that keeps its own memory (and, on a GPU, its own CUDA stream) and
 * lends them to loom without copies: host memory wrapped with a release callback and marked
 * when the library changes it, results handed back through DLPack, a result's device pointer
 * wrapped again, and every kernel queued on the library's stream. Runs on the CPU device too. */
#include <dlfcn.h>
#include <loom.h>
#include <stdio.h>
#include <string.h>

typedef struct lib_buffer { /* the library's own buffer, with its own reference count */
    float data[8];
    int refs;
} lib_buffer_t;

static void lib_release(void *user) { ((lib_buffer_t *)user)->refs--; }

typedef struct dl_head { /* the start of a DLManagedTensorVersioned (dlpack.h v1) */
    uint32_t major, minor;
    void *manager_ctx;
    void (*deleter)(void *self);
    uint64_t flags;
    void *data;
    int32_t device_type, device_id;
} dl_head_t;

/* The library's stream: a CUstream made (and destroyed) with the driver API. */
static int (*stream_create)(void **s, unsigned flags), (*stream_destroy)(void *s);

static void *lib_stream(void) {
    void *cu = dlopen("libcuda.so.1", RTLD_NOW), *s = NULL;
    if (!cu) return NULL;
    *(void **)&stream_create = dlsym(cu, "cuStreamCreate");
    *(void **)&stream_destroy = dlsym(cu, "cuStreamDestroy_v2");
    return stream_create && stream_destroy && !stream_create(&s, 1 /* NON_BLOCKING */) ? s : NULL;
}

static int fail(loom_ctx_t *ctx) {
    fprintf(stderr, "loom: %s\n", loom_ctx_message(ctx));
    return 1;
}

int main(void) {
    loom_ctx_t *probe, *ctx;
    if (loom_ctx_create(NULL, &probe) != LOOM_STATUS_OK) return 1; /* makes CUDA current */
    loom_options_t o = {0};
    if (loom_ctx_device(probe) == LOOM_DEVICE_CUDA) o.cuda_stream = lib_stream();
    if (loom_ctx_create(&o, &ctx) != LOOM_STATUS_OK) return 1;
    printf("device %s, %s stream\n", loom_ctx_device_name(ctx),
           o.cuda_stream ? "the library's" : "loom's");

    lib_buffer_t buf = {{1, 4, 9, 16, 25, 36, 49, 64}, 1};
    int64_t n = 8;
    buf.refs++; /* loom's reference, dropped by lib_release */
    loom_array_t *x =
        loom_wrap_host(ctx, LOOM_DTYPE_F32, 1, &n, NULL, buf.data, lib_release, &buf);
    float out[8];
    loom_array_t *y = loom_add(ctx, loom_sqrt(ctx, x), x);
    if (loom_read(ctx, y, out, sizeof out)) return fail(ctx);
    printf("sqrt(x) + x: %g %g ... %g\n", out[0], out[1], out[7]);

    buf.data[0] = 100; /* the library changes its memory, and says so */
    if (loom_array_host_changed(ctx, x)) return fail(ctx);
    y = loom_add(ctx, loom_sqrt(ctx, x), x);
    if (loom_read(ctx, y, out, sizeof out) || out[0] != 110) return fail(ctx);
    loom_stats_t s;
    loom_ctx_stats(ctx, &s);
    printf("after the change: %g (uploaded again: %llu bytes)\n", out[0],
           (unsigned long long)s.last_eval_h2d_bytes);

    void *managed = NULL; /* the result handed to the library through DLPack, no copy */
    if (loom_to_dlpack(ctx, y, 1, &managed)) return fail(ctx);
    dl_head_t *t = managed;
    printf("DLPack: %s memory at %p\n", t->device_type == 2 ? "CUDA" : "host", t->data);
    if (t->device_type == 2) { /* a device pointer goes back in as a wrapped array, no copy */
        uint64_t p = loom_array_device_ptr(ctx, y);
        loom_array_t *w = loom_wrap_device(ctx, LOOM_DTYPE_F32, 1, &n, NULL, p, NULL, NULL);
        if (loom_read(ctx, loom_multiply_f(ctx, w, 0.5), out, sizeof out)) return fail(ctx);
        printf("wrapped 0x%llx (same as DLPack's: %s): y / 2 = %g\n", (unsigned long long)p,
               (void *)(uintptr_t)p == t->data ? "yes" : "no", out[0]);
    }
    t->deleter(managed);
    loom_ctx_destroy(ctx); /* releases x: lib_release runs once */
    if (o.cuda_stream) stream_destroy(o.cuda_stream); /* after the context that used it */
    loom_ctx_destroy(probe);
    printf("library buffer references left: %d\n", buf.refs);
    return buf.refs == 1 ? 0 : 1;
}
